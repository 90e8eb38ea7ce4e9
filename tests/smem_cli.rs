//! The `smem` command line: `decode` (text and JSON), `encode`, `diff`
//! and their errors and exit statuses (0 every line valid, 1 some line
//! invalid or malformed, 2 could not run). Golden files in
//! tests/snapshots/.

mod support;

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hsaco-conform"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run hsaco-conform");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).expect("write stdin");
    drop(input);
    child.wait_with_output().expect("output")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("UTF-8")
}

/// gfx900 words: canonical (spaces, then commas, then decimal), a word
/// with an unused bit set, a misaligned tuple, a non-SMEM word, malformed
/// lines, a blank line and the SOE form.
const DECODE_INPUT: &str = "\
# SMEM words for gfx900
0x41 0x01 0x02 0xc0 0x10 0x00 0x00 0x00
0x41,0x01,0x02,0xc0,0x10,0x00,0x00,0x00
65, 1, 2, 192, 16, 0, 0, 0
0x41 0x01 0x02 0xc0 0x10 0x00 0x00 0x80
0x41 0x01 0x06 0xc0 0x10 0x00 0x00 0x00
0x00 0x00 0x80 0xbf 0x00 0x00 0x00 0x00
0x41 0x01 0x02
0x41 0x01 0x02 0xc0 0x10 0x00 0x00 0xzz

0x41 0x41 0x02 0xc0 0x10 0x00 0x00 0x0e
";

#[test]
fn decode_text() {
    let o = run(&["smem", "decode", "--target", "gfx900"], DECODE_INPUT);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).lines().count(),
        DECODE_INPUT.lines().count(),
        "one output line per input line"
    );
    insta::assert_snapshot!("decode_text_gfx900", stdout(&o));
}

#[test]
fn decode_json() {
    let o = run(
        &["smem", "decode", "--target", "gfx900", "--format", "json"],
        DECODE_INPUT,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(lines.len(), DECODE_INPUT.lines().count());
    insta::assert_json_snapshot!("decode_json_gfx900", lines);
}

#[test]
fn decode_all_valid_exits_0_from_a_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("words.txt");
    // gfx1100 s_load_b32 s5, s[2:3], 0x10 and GFX12 s_load_b32 with th/scope.
    std::fs::write(&p, "0x41 0x01 0x00 0xf4 0x10 0x00 0x00 0xf8\n").expect("write");
    let path = p.to_str().expect("UTF-8 path");
    let o = run(&["smem", "decode", "--target", "gfx1100", path], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "s_load_b32 s5, s[2:3], 0x10\n");
    let o = run(
        &["smem", "decode", "--target", "gfx1200"],
        "0x41 0x01 0x60 0xf5 0x10 0x00 0x00 0xf8\n",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "s_load_b32 s5, s[2:3], 0x10 th:TH_LOAD_HT scope:SCOPE_SYS\n"
    );
}

/// gfx900 instructions: plain, SOE form with glc, a blank and a comment
/// line, and four errors (misaligned tuple, unknown mnemonic, negative
/// buffer offset, `null` before GFX10), each refused by llvm-mc-19 too.
const ENCODE_INPUT: &str = "\
s_load_dword s5, s[2:3], 0x10
s_load_dword s5, s[2:3], s7 offset:0x10 glc

# comment
s_load_dwordx2 s[5:6], s[2:3], 0x10
s_bogus s1
s_buffer_load_dword s5, s[4:7], -0x10
s_load_dword s5, s[2:3], null
";

#[test]
fn encode_text() {
    let o = run(&["smem", "encode", "--target", "gfx900"], ENCODE_INPUT);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), ENCODE_INPUT.lines().count());
    insta::assert_snapshot!("encode_gfx900", stdout(&o));
}

/// Every line encodes (exit 0), and decoding the bytes gives the text
/// back.
#[test]
fn encode_then_decode_round_trips() {
    let text = "\
s_load_b32 s5, s[2:3], 0x10 th:TH_LOAD_HT scope:SCOPE_SYS
s_buffer_load_b96 s[8:10], s[4:7], s7 offset:0x10
s_prefetch_data s[2:3], 0x100, null, 7
";
    let o = run(&["smem", "encode", "--target", "gfx1200"], text);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let bytes = stdout(&o);
    assert_eq!(bytes.lines().count(), 3, "{bytes}");
    let o = run(&["smem", "decode", "--target", "gfx1200"], &bytes);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), text);
}

#[test]
fn errors_say_what_and_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["smem", "decode", "--target", "gfx9999"],
            "hsaco-conform smem decode: unknown processor \"gfx9999\"",
        ),
        (
            &["smem", "decode", "--target", "gfx700"],
            "hsaco-conform smem decode: gfx700 (Gfx7) has no SMEM model: SMEM is modelled for GFX8 to GFX12",
        ),
        (
            &["smem", "encode", "--target", "gfx700"],
            "hsaco-conform smem encode: gfx700 (Gfx7) has no SMEM model",
        ),
        (
            &["smem", "decode", "--target", "gfx900", "/nonexistent/words.txt"],
            "hsaco-conform smem decode: /nonexistent/words.txt: cannot read: No such file or directory",
        ),
        (
            &["smem", "diff", "--target", "gfx900,gfx9999"],
            "hsaco-conform smem diff: unknown processor \"gfx9999\"",
        ),
        (
            &["smem", "diff", "--llvm", "3"],
            "hsaco-conform smem diff: libLLVM-3.so not found (searched",
        ),
        (
            &["smem", "diff", "--llvm", "latest"],
            "hsaco-conform smem diff: --llvm \"latest\": expected a major version such as 19, or all",
        ),
    ];
    for (args, msg) in cases {
        let o = run(args, "");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).starts_with(msg),
            "{args:?}: stderr {:?}",
            stderr(&o)
        );
        assert_eq!(stdout(&o), "", "{args:?}");
    }
}

#[test]
fn decode_help_documents_input_and_exit_status() {
    let o = run(&["smem", "decode", "--help"], "");
    assert_eq!(o.status.code(), Some(0));
    insta::assert_snapshot!("decode_help", stdout(&o));
}

/// True when libLLVM-`version` can be used; skips (outside CI) or fails
/// (in CI) otherwise.
fn have_libllvm(version: u32) -> bool {
    match hsaco_conform::peers::llvm_disasm::find(version) {
        Ok(_) => true,
        Err(e) if support::in_ci() => panic!("{e}"),
        Err(e) => {
            eprintln!("SKIPPED: {e}");
            false
        }
    }
}

/// A run whose word 65,665 on gfx900 (seed 1) crashes LLVM 19: the worker
/// dies with SIGSEGV, the crash is reported as the known one with its
/// word, and the run completes with every other word compared.
#[test]
fn diff_survives_a_crash_inside_llvm() {
    if !have_libllvm(19) {
        return;
    }
    let o = run(
        &[
            "smem", "diff", "--target", "gfx900", "--count", "70000", "--seed", "1",
        ],
        "",
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(
        out.contains(
            "LLVM crashed (SIGSEGV (11)) on word 65665 0x8297b55f151282f9 (0xf9 0x82 0x12 0x15 0x5f 0xb5 0x97 0x82): known crash: GFX8-GFX10 VOP1/VOP2/VOPC SDWA"
        ),
        "{out}"
    );
    assert!(out.contains("gfx900 LLVM 19: 69999 words: "), "{out}");
    assert!(out.contains(", 0 different;"), "{out}");
    assert!(
        out.contains("summary: 1 comparisons (0 not comparable), 69999 words, 0 unexplained differences, 1 LLVM crashes (0 unknown), 0 failed;"),
        "{out}"
    );
}

#[test]
fn diff_reports_not_comparable_processors() {
    if !have_libllvm(14) {
        return;
    }
    let o = run(
        &[
            "smem",
            "diff",
            "--target",
            "gfx1030,gfx1100",
            "--count",
            "2000",
            "--llvm",
            "14",
        ],
        "",
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(
        out.contains(
            "gfx1100 LLVM 14: not comparable: LLVM 14 does not know the processor gfx1100"
        ),
        "{out}"
    );
    assert!(out.contains("gfx1030 LLVM 14: 2000 words: "), "{out}");
    assert!(out.contains("  known llvm14-gfx10-drops-offset: "), "{out}");
    assert!(
        out.contains("llvm14-gfx10-drops-offset: LLVM 14 drops the immediate"),
        "{out}"
    );
}

/// GFX12.5: `nv` and `scale_offset` encode, decode back, and appear in the
/// JSON instruction objects of gfx1250/gfx1251 (and nowhere else); a
/// modifier the instruction does not take is an error line.
#[test]
fn gfx12_5_modifiers_round_trip_and_show_in_json() {
    let text = "\
s_load_b32 s4, s[2:3], s5 offset:0x10 scale_offset th:TH_LOAD_HT scope:SCOPE_DEV nv
s_buffer_load_b64 s[8:9], s[4:7], 0x20 nv
s_load_u16 s1, s[6:7], 0x2 scale_offset
";
    for cpu in ["gfx1250", "gfx1251"] {
        let o = run(&["smem", "encode", "--target", cpu], text);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let bytes = stdout(&o);
        let o = run(&["smem", "decode", "--target", cpu], &bytes);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stdout(&o), text, "{cpu}");
        let o = run(
            &["smem", "decode", "--target", cpu, "--format", "json"],
            &bytes,
        );
        let flags: Vec<(bool, bool)> = stdout(&o)
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("JSON");
                let i = &v["instruction"];
                (i["nv"] == true, i["scale_offset"] == true)
            })
            .collect();
        assert_eq!(flags, [(true, true), (true, false), (false, true)], "{cpu}");
    }
    let o = run(
        &["smem", "encode", "--target", "gfx1250"],
        "s_buffer_load_b32 s4, s[4:7], 0x10 scale_offset\n",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("`scale_offset` is not allowed here"),
        "{}",
        stdout(&o)
    );
    // gfx1200 has neither modifier, and its JSON objects no such keys.
    let o = run(
        &["smem", "decode", "--target", "gfx1200", "--format", "json"],
        "0x01,0x01,0x10,0xf4,0x10,0x00,0x00,0xf9\n",
    );
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!(v["verdict"], "non-canonical");
    assert!(v["instruction"].get("nv").is_none() && v["instruction"].get("scale_offset").is_none());
}
