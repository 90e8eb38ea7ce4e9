//! `hsaco-conform diff words` with inputs that really crash LLVM 14 and 19
//! (the reproducers in corpus/regressions/libllvm_disasm/): the crashes
//! are recorded as findings with their signal and the last lines of the
//! peer's standard error, the run goes on past them, each crash is reduced
//! to the smallest word sequence that still crashes, one finding stands
//! for one crash site across LLVM versions and peers, and its reproducer
//! command crashes `llvm-mc` alone.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

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

/// Every peer these tests use, or `None` (skipped outside CI).
fn peers() -> Option<(PathBuf, PathBuf)> {
    let mc19 = support::require_tool("llvm-mc-19")?;
    let mc14 = support::require_tool("llvm-mc-14")?;
    (have_libllvm(19) && have_libllvm(14)).then_some((mc19, mc14))
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hsaco-conform"))
        .args(args)
        .output()
        .expect("run hsaco-conform")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temporary folder")
}

/// The `instruction` bytes of each corpus reproducer: (name, processor,
/// LLVM version, bytes).
fn corpus() -> Vec<(String, String, u32, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/regressions/libllvm_disasm");
    let mut v = Vec::new();
    for e in std::fs::read_dir(&dir).expect("corpus folder") {
        let p = e.expect("entry").path();
        if p.extension().and_then(|x| x.to_str()) != Some("toml") {
            continue;
        }
        let t: toml::Value =
            toml::from_str(&std::fs::read_to_string(&p).expect("read")).expect("toml");
        let bytes: Vec<u8> = t["instruction"]
            .as_str()
            .expect("instruction")
            .split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).expect("hex byte"))
            .collect();
        v.push((
            p.file_stem().expect("name").to_string_lossy().into_owned(),
            t["processor"].as_str().expect("processor").to_owned(),
            u32::try_from(t["llvm_version"].as_integer().expect("version")).expect("u32"),
            bytes,
        ));
    }
    v.sort();
    assert_eq!(v.len(), 12, "twelve reproducers in {}", dir.display());
    v
}

fn line(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:#04x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// True when `llvm-mc` dies by a signal on `bytes` for `cpu`.
fn crashes_llvm_mc(tool: &Path, cpu: &str, bytes: &[u8]) -> bool {
    let d = tempdir();
    let f = d.path().join("w.txt");
    std::fs::write(&f, format!("{}\n", line(bytes))).expect("write");
    let o = Command::new(tool)
        .args([
            "--disassemble",
            "-triple=amdgcn-amd-amdhsa",
            &format!("-mcpu={cpu}"),
        ])
        .arg(&f)
        .output()
        .expect("run llvm-mc");
    use std::os::unix::process::ExitStatusExt;
    o.status.signal().is_some()
}

fn json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).expect("read JSON")).expect("parse JSON")
}

fn cell<'a>(j: &'a Value, comparison: &str, peer: &str) -> &'a Value {
    j["matrix"]
        .as_array()
        .expect("matrix")
        .iter()
        .find(|c| c["comparison"] == comparison && c["peer"] == peer)
        .unwrap_or_else(|| panic!("no cell {comparison} {peer}"))
}

#[test]
fn real_llvm_crashes_become_reduced_deduplicated_findings() {
    let Some((mc19, mc14)) = peers() else {
        return;
    };
    let cpu = "gfx900";
    // The LLVM 14 and 19 reproducers (LLVM 22's have a test of their own).
    let words: Vec<_> = corpus()
        .into_iter()
        .filter(|(_, _, v, _)| matches!(v, 14 | 19))
        .collect();
    assert_eq!(words.len(), 6);
    // Which reproducers crash LLVM on this processor (the others are valid
    // or rejected words here): known from llvm-mc itself.
    let crashing: Vec<&Vec<u8>> = words
        .iter()
        .map(|(_, _, _, b)| b)
        .filter(|b| crashes_llvm_mc(&mc19, cpu, b))
        .collect();
    assert_eq!(
        crashing.len(),
        4,
        "reproducers that crash llvm-mc-19 on {cpu}"
    );
    for b in &crashing {
        assert!(
            crashes_llvm_mc(&mc14, cpu, b),
            "{} crashes llvm-mc-14 too",
            line(b)
        );
    }
    // Ordinary words around and between them: the run must go on.
    let mut file =
        String::from("# corpus/regressions/libllvm_disasm, gfx900\n0x00 0x00 0x80 0xbf\n");
    for (name, _, _, b) in &words {
        file.push_str(&format!("{}   # {name}\n0x01 0x00 0x00 0x7e\n", line(b)));
    }
    file.push_str("0x41 0x01 0x02 0xc0 0x10 0x00 0x00 0x00\n0xff 0xff 0xff 0xff\n");
    let lines = 1 + 2 * words.len() + 1; // non-SMEM lines
    let d = tempdir();
    let input = d.path().join("words.txt");
    std::fs::write(&input, &file).expect("write words");
    let out = d.path().join("found");
    let report = d.path().join("report.json");
    let o = run(&[
        "diff",
        "words",
        "--target",
        cpu,
        "--peers",
        "libllvm-19,libllvm-14,llvm-mc-19,llvm-mc-14",
        "--no-allowlist",
        "--timeout",
        "30",
        "--out",
        out.to_str().expect("utf-8"),
        "--json",
        report.to_str().expect("utf-8"),
        input.to_str().expect("utf-8"),
    ]);
    let all = text(&o);
    assert_eq!(o.status.code(), Some(1), "{all}");
    let j = json(&report);

    // The run went on: every line reached every peer; the crashing ones
    // crashed, every other one was compared.
    for peer in ["libllvm-19", "libllvm-14", "llvm-mc-19", "llvm-mc-14"] {
        let c = cell(&j, "words", peer);
        assert_eq!(c["compared"], lines as u64, "{peer}: {c}");
        assert_eq!(c["crashed"], 4, "{peer}: {c}");
        assert_eq!(c["timed_out"], 0, "{peer}: {c}");
        let s = cell(&j, "smem-disasm", peer);
        assert_eq!(
            (s["compared"].as_u64(), s["same"].as_u64()),
            (Some(1), Some(1)),
            "{peer}: {s}"
        );
    }
    assert_eq!(cell(&j, "words", "llvm-mc-19")["same"], (lines - 4) as u64);

    // Findings: crashes only, one per crash site, across versions.
    let findings = j["findings"].as_array().expect("findings");
    assert!(!findings.is_empty() && findings.len() <= 3, "{all}");
    let mut reduced_inputs = Vec::new();
    for f in findings {
        assert_eq!(f["signature"]["kind"], "crash", "{f}");
        let versions: Vec<u64> = f["versions"]
            .as_array()
            .expect("versions")
            .iter()
            .filter_map(Value::as_u64)
            .collect();
        assert!(
            versions.contains(&14) && versions.contains(&19),
            "deduplicated across versions: {f}"
        );
        let peers: Vec<&str> = f["peers"]
            .as_array()
            .expect("peers")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        for p in ["libllvm-19", "libllvm-14", "llvm-mc-19", "llvm-mc-14"] {
            assert!(peers.contains(&p), "{p} in {f}");
        }
        // Signal and the last lines of standard error, per peer.
        let mc = &f["crashes"]["llvm-mc-19"];
        assert_eq!(mc["signal"], 11, "{f}");
        assert_eq!(mc["status"], "SIGSEGV (11)");
        let tail: Vec<&str> = mc["stderr"]
            .as_array()
            .expect("stderr")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(!tail.is_empty() && tail.len() <= 16, "{tail:?}");
        assert!(tail.iter().any(|l| l.contains("libLLVM")), "{tail:?}");
        assert_eq!(f["crashes"]["libllvm-19"]["signal"], 11, "{f}");
        // Reduced: one line of one word, with fewer bits than any original,
        // and it still crashes both llvm-mc versions alone.
        let reduced = f["reduced"].as_array().expect("reduced");
        assert_eq!(reduced.len(), 1, "{f}");
        let hex = reduced[0]["bytes"].as_str().expect("bytes");
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|k| u8::from_str_radix(&hex[k..k + 2], 16).expect("hex"))
            .collect();
        assert!(bytes.len() <= 8, "{hex}");
        let bits = |b: &[u8]| b.iter().map(|x| x.count_ones()).sum::<u32>();
        for orig in f["original"].as_array().expect("original") {
            let o = orig["bytes"].as_str().expect("bytes");
            let ob: Vec<u8> = (0..o.len())
                .step_by(2)
                .map(|k| u8::from_str_radix(&o[k..k + 2], 16).expect("hex"))
                .collect();
            assert!(bits(&bytes) < bits(&ob), "{hex} from {o}");
        }
        assert!(crashes_llvm_mc(&mc19, cpu, &bytes), "{hex}");
        assert!(crashes_llvm_mc(&mc14, cpu, &bytes), "{hex}");
        reduced_inputs.push(hex.to_owned());

        // The folder: reproducer, and commands that crash the peer alone.
        let dir = out.join(f["dir"].as_str().expect("dir"));
        let repro = std::fs::read_to_string(dir.join("input.txt")).expect("input.txt");
        assert_eq!(repro, format!("{}\n", line(&bytes)));
        assert!(dir.join("finding.json").is_file() && dir.join("original.txt").is_file());
        let cmds = f["commands"].as_array().expect("commands");
        let mut checked = 0;
        for c in cmds {
            let argv: Vec<&str> = c["argv"]
                .as_array()
                .expect("argv")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            // Programs by absolute path: the reproducer runs anywhere.
            let prog = Path::new(argv[0]);
            assert!(prog.is_absolute(), "{c}");
            let is_mc = prog
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("llvm-mc"));
            if !is_mc {
                let canon = |p: &Path| std::fs::canonicalize(p).expect("exists");
                assert_eq!(
                    canon(prog),
                    canon(Path::new(env!("CARGO_BIN_EXE_hsaco-conform"))),
                    "{c}"
                );
                assert_eq!(&argv[1..3], ["diff", "words"], "{c}");
                continue;
            }
            assert_eq!(c["reproduces"], true, "{c}");
            assert_eq!(
                argv[1..4],
                ["--disassemble", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx900"],
                "{c}"
            );
            let o = Command::new(argv[0])
                .args(&argv[1..])
                .current_dir(&dir)
                .output()
                .expect("run reproducer");
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(
                o.status.signal(),
                Some(11),
                "{} in {}",
                c["shell"],
                dir.display()
            );
            checked += 1;
        }
        assert_eq!(checked, 2, "llvm-mc-19 and llvm-mc-14 commands: {f}");
    }
    reduced_inputs.sort();
    reduced_inputs.dedup();
    assert_eq!(
        reduced_inputs.len(),
        findings.len(),
        "one finding per reduced input"
    );
    // Crash sites (llvm-mc-19's stack dump) are disjoint between findings.
    let mut sites: Vec<&str> = findings
        .iter()
        .flat_map(|f| {
            f["sites"]
                .as_array()
                .expect("sites")
                .iter()
                .filter_map(Value::as_str)
        })
        .collect();
    let n = sites.len();
    sites.sort();
    sites.dedup();
    assert_eq!(sites.len(), n, "one finding per crash site: {sites:?}");

    // The manifest names each finding.
    let manifest = std::fs::read_to_string(out.join("manifest.jsonl")).expect("manifest");
    let ids: Vec<String> = manifest
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).expect("manifest line")["id"]
                .as_str()
                .expect("id")
                .to_owned()
        })
        .collect();
    let expected: Vec<String> = findings
        .iter()
        .map(|f| f["id"].as_str().expect("id").to_owned())
        .collect();
    assert_eq!(ids, expected);
}

#[test]
fn known_crashes_and_divergences_are_counted_not_reported() {
    let Some(_) = peers() else {
        return;
    };
    let d = tempdir();
    let input = d.path().join("words.txt");
    // A valid SMEM word, a misaligned tuple (known divergence), a VOP2
    // SDWA selector-7 word (known crash), an s_nop and an invalid dword.
    std::fs::write(
        &input,
        "0x41 0x01 0x02 0xc0 0x10 0x00 0x00 0x00\n\
         0x41 0x01 0x06 0xc0 0x10 0x00 0x00 0x00\n\
         [0xf9,0x06,0x02,0x02,0x02,0x07,0x06,0x06]\n\
         0x00 0x00 0x80 0xbf\n\
         0xff 0xff 0xff 0xff\n",
    )
    .expect("write");
    let report = d.path().join("r.json");
    let o = run(&[
        "diff",
        "words",
        "--target",
        "gfx900",
        "--peers",
        "libllvm-19,llvm-mc-19",
        "--json",
        report.to_str().expect("utf-8"),
        input.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let j = json(&report);
    assert_eq!(j["findings"].as_array().map(Vec::len), Some(0));
    for peer in ["libllvm-19", "llvm-mc-19"] {
        let s = cell(&j, "smem-disasm", peer);
        assert_eq!(
            (
                s["compared"].as_u64(),
                s["same"].as_u64(),
                s["known"].as_u64()
            ),
            (Some(2), Some(1), Some(1)),
            "{s}"
        );
    }
    // The reference's own crash counts; llvm-mc's crash is known too.
    assert_eq!(cell(&j, "words", "libllvm-19")["crashed"], 1);
    assert_eq!(cell(&j, "words", "llvm-mc-19")["crashed"], 1);
    assert_eq!(cell(&j, "words", "llvm-mc-19")["same"], 2);
    let known = |id: &str| known_count(&j, id);
    assert_eq!(known("smem.misaligned-tuple"), Some(2));
    assert_eq!(known("llvm.crash.vop2-sdwa-sel7"), Some(2));
    assert_eq!(known("smem.null-tuple"), Some(0));
}

/// `diff words` on gfx803 `input` with LLVM 22's peers, writing `report`
/// and `out`.
fn diff_words_llvm22(input: &Path, report: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut a = vec![
        "diff",
        "words",
        "--target",
        "gfx803",
        "--peers",
        "libllvm-22,llvm-mc-22",
        "--timeout",
        "30",
        "--json",
        report.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ];
    a.extend_from_slice(extra);
    a.push(input.to_str().expect("utf-8"));
    run(&a)
}

/// The count of allowlist entry `id` in a JSON report.
fn known_count(j: &Value, id: &str) -> Option<u64> {
    j["known"]
        .as_array()
        .expect("known")
        .iter()
        .find(|k| k["id"] == id)
        .and_then(|k| k["count"].as_u64())
}

/// LLVM 22's disassembler crashes on the stored reproducers alone; with
/// them stored (the default allowlist) a run counts them as known, and
/// without the allowlist they are new crash findings whose `llvm-mc-22`
/// reproducer crashes it alone. LLVM 19 reads the same bytes (on gfx1200
/// for the GFX12.5 reproducers: it does not know gfx1250).
#[test]
fn llvm22_crashes_are_known_once_stored() {
    let (Some(mc22), Some(mc19)) = (
        support::require_tool("llvm-mc-22"),
        support::require_tool("llvm-mc-19"),
    ) else {
        return;
    };
    if !have_libllvm(22) {
        return;
    }
    let llvm22: Vec<_> = corpus()
        .into_iter()
        .filter(|(_, _, v, _)| *v == 22)
        .collect();
    assert_eq!(llvm22.len(), 6);
    for (name, cpu, _, bytes) in &llvm22 {
        assert!(
            crashes_llvm_mc(&mc22, cpu, bytes),
            "{name} crashes llvm-mc-22"
        );
        let known19 = hsaco_oracle::targets::by_name(cpu).is_some_and(|t| t.llvm19());
        let cpu19 = if known19 { cpu.as_str() } else { "gfx1200" };
        assert!(
            !crashes_llvm_mc(&mc19, cpu19, bytes),
            "{name}: llvm-mc-19 survives on {cpu19}"
        );
    }
    // gfx803: the truncated literal as the last line, after a valid word
    // and the gfx90a buffer word (SOFFSET 0xff), which crashes GFX8 too.
    let d = tempdir();
    let input = d.path().join("words.txt");
    std::fs::write(
        &input,
        "0x41 0x01 0x02 0xc0 0x10 0x00 0x00 0x00
         0x00 0x00 0x00 0xe0 0x00 0x00 0x00 0xff
         0x00 0xff 0x00 0x80
",
    )
    .expect("write");
    let report = d.path().join("known.json");
    let o = diff_words_llvm22(&input, &report, &d.path().join("known"), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let j = json(&report);
    assert_eq!(j["findings"].as_array().map(Vec::len), Some(0), "{j}");
    let known = |id: &str| known_count(&j, id);
    // Each crashes libLLVM-22 and llvm-mc-22 once.
    assert_eq!(
        known("llvm.crash.llvm22-input-ends-in-instruction"),
        Some(2)
    );
    assert_eq!(known("llvm.crash.llvm22-buffer-soffset-literal"), Some(2));

    // Without the allowlist: new crash findings, reproduced by llvm-mc-22
    // alone.
    let report = d.path().join("new.json");
    let out = d.path().join("new");
    let o = diff_words_llvm22(&input, &report, &out, &["--no-allowlist"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let j = json(&report);
    let findings = j["findings"].as_array().expect("findings");
    assert!(!findings.is_empty(), "{j}");
    for f in findings {
        assert_eq!(f["signature"]["kind"], "crash", "{f}");
        assert_eq!(f["versions"], serde_json::json!([22]), "{f}");
        let dir = out.join(f["dir"].as_str().expect("dir"));
        let mc = f["commands"]
            .as_array()
            .expect("commands")
            .iter()
            .find(|c| c["peer"] == "llvm-mc-22")
            .unwrap_or_else(|| panic!("an llvm-mc-22 command: {f}"));
        assert_eq!(mc["reproduces"], true, "{mc}");
        let argv: Vec<&str> = mc["argv"]
            .as_array()
            .expect("argv")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let o = Command::new(argv[0])
            .args(&argv[1..])
            .current_dir(&dir)
            .output()
            .expect("run reproducer");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(o.status.signal(), Some(11), "{}", mc["shell"]);
    }
}

/// Runs a finding's lit test the way lit would (pipefail, %s the file)
/// with `mc` for llvm-mc; true when it passes.
fn lit_passes(test: &Path, mc: &Path, filecheck: &Path) -> bool {
    let text = std::fs::read_to_string(test).expect("test.s");
    let run = text
        .lines()
        .find_map(|l| l.strip_prefix("# RUN: "))
        .expect("a RUN line");
    let cmd = run
        .replace("%s", &test.display().to_string())
        .replacen("llvm-mc ", &format!("{} ", mc.display()), 1)
        .replace("FileCheck", &filecheck.display().to_string());
    Command::new("bash")
        .args(["-o", "pipefail", "-c", &cmd])
        .output()
        .expect("run the lit RUN line")
        .status
        .success()
}

/// A new LLVM finding's folder holds an upstream-ready lit test and a
/// report naming the versions: the test fails with the LLVM that shows
/// the problem and passes with one that does not.
#[test]
fn llvm_findings_carry_a_lit_test_that_fails_only_where_the_bug_is() {
    let (Some(mc22), Some(mc19), Some(fc)) = (
        support::require_tool("llvm-mc-22"),
        support::require_tool("llvm-mc-19"),
        support::require_tool("FileCheck-14"),
    ) else {
        return;
    };
    if !have_libllvm(22) {
        return;
    }
    let d = tempdir();
    let input = d.path().join("words.txt");
    // The truncated literal (LLVM 22 crashes) and s_load_dword with SDATA
    // 125 on gfx803 (no null register there: LLVM 22 prints `null`).
    std::fs::write(
        &input,
        "0x00 0xff 0x00 0x80
0x40 0x1f 0x00 0xc0 0x00 0x00 0x00 0x00
",
    )
    .expect("write");
    let out = d.path().join("found");
    let report = d.path().join("r.json");
    let o = diff_words_llvm22(&input, &report, &out, &["--no-allowlist"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let j = json(&report);
    let findings = j["findings"].as_array().expect("findings");
    let crash = findings
        .iter()
        .find(|f| f["signature"]["kind"] == "crash")
        .unwrap_or_else(|| panic!("a crash finding: {j}"));
    let dir = out.join(crash["dir"].as_str().expect("dir"));
    let report_md = std::fs::read_to_string(dir.join("report.md")).expect("report.md");
    assert!(report_md.contains("Shown by LLVM 22"), "{report_md}");
    let test = dir.join("test.s");
    assert!(!lit_passes(&test, &mc22, &fc), "fails with llvm-mc-22");
    assert!(lit_passes(&test, &mc19, &fc), "passes with llvm-mc-19");
}

#[test]
fn bad_input_lines_are_named_and_exit_2() {
    let d = tempdir();
    let input = d.path().join("words.txt");
    std::fs::write(&input, "0x00 0x00 0x80 0xbf\n0x00 0x1ff\n").expect("write");
    let o = run(&[
        "diff",
        "words",
        "--target",
        "gfx900",
        input.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("words.txt:2: \"0x1ff\" is not a byte"), "{e}");
    let o = run(&[
        "diff",
        "words",
        "--target",
        "gfx9000",
        input.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown processor \"gfx9000\""));
    let o = run(&[
        "diff",
        "words",
        "--target",
        "gfx900",
        "/nonexistent/words.txt",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/words.txt: cannot read"));
}

/// A peer that agrees with the oracle where older LLVM diverged is "fixed
/// in N", listed for the record and never a finding. The word: a gfx900
/// `s_buffer_load_dword` whose buffer resource is `xnack_mask`. LLVM 14 and
/// 19 print it (19 with `/*Invalid register...*/`: the known divergence
/// out-of-class-register, LLVM 14-19); LLVM 22 rejects it, as the oracle
/// does.
#[test]
fn a_peer_that_fixed_a_divergence_is_listed_not_a_finding() {
    let (Some(mc14), Some(mc19), Some(mc22)) = (
        support::require_tool("llvm-mc-14"),
        support::require_tool("llvm-mc-19"),
        support::require_tool("llvm-mc-22"),
    ) else {
        return;
    };
    let cpu = "gfx900";
    let bytes = [0x34u8, 0x00, 0x20, 0xc0, 0x00, 0x00, 0x00, 0x00];
    let d = tempdir();
    let words = d.path().join("w.txt");
    std::fs::write(&words, format!("{}\n", line(&bytes))).expect("write");
    // What each llvm-mc does with the word, from the tools themselves.
    let dis = |tool: &Path| {
        text(
            &Command::new(tool)
                .args([
                    "--disassemble",
                    "-triple=amdgcn-amd-amdhsa",
                    &format!("-mcpu={cpu}"),
                ])
                .arg(&words)
                .output()
                .expect("run llvm-mc"),
        )
    };
    assert!(dis(&mc14).contains("s_buffer_load_dword s0, xnack_mask, s0"));
    assert!(dis(&mc19).contains("xnack_mask/*Invalid register"));
    let t22 = dis(&mc22);
    assert!(t22.contains("invalid instruction encoding"), "{t22}");
    let report = |extra: &[&str]| {
        let j = d.path().join("r.json");
        let mut args = vec![
            "diff",
            "words",
            "--target",
            cpu,
            "--peers",
            "llvm-mc-14,llvm-mc-19,llvm-mc-22",
            "--json",
            j.to_str().expect("UTF-8"),
        ];
        args.extend_from_slice(extra);
        args.push(words.to_str().expect("UTF-8"));
        let o = run(&args);
        (o.status.code(), json(&j), text(&o))
    };
    let informational = |j: &Value| -> Vec<Value> {
        j["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["informational"] == true)
            .cloned()
            .collect()
    };
    // With the allowlist: LLVM 14 and 19 are known, LLVM 22 is a fix.
    let (code, j, out) = report(&[]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(j["summary"]["new_findings"], 0, "{out}");
    for peer in ["llvm-mc-14", "llvm-mc-19"] {
        assert_eq!(cell(&j, "smem-disasm", peer)["known"], 1, "{peer}");
    }
    let c22 = cell(&j, "smem-disasm", "llvm-mc-22");
    assert_eq!(
        (c22["known"].clone(), c22["different"].clone()),
        (0.into(), 0.into())
    );
    assert_eq!(c22["informational"], 1);
    let info = informational(&j);
    assert_eq!(info.len(), 1, "{out}");
    let f = &info[0];
    assert_eq!(
        f["signature"]["key"],
        "fixed in LLVM 22: out-of-class-register (LLVM 14-19)"
    );
    assert_eq!(f["peers"], serde_json::json!(["llvm-mc-22"]));
    assert_eq!(f["versions"], serde_json::json!([22]));
    // Without it, LLVM 14 and 19's divergence is new; LLVM 22's fix still
    // is not a finding.
    let (code, j, out) = report(&["--no-allowlist"]);
    assert_eq!(code, Some(1), "{out}");
    let new: Vec<&Value> = j["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["informational"] != true)
        .collect();
    let mut new_peers: Vec<&str> = new
        .iter()
        .flat_map(|f| f["peers"].as_array().expect("peers"))
        .filter_map(Value::as_str)
        .collect();
    new_peers.sort();
    assert_eq!(new_peers, ["llvm-mc-14", "llvm-mc-19"], "{out}");
    assert_eq!(informational(&j).len(), 1, "{out}");
}
