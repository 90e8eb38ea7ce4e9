//! `hsaco-conform conform INPUT...` on code objects built here by real
//! tools (clang-19 and clang-22 OpenCL kernels, linked by ld.lld and put in
//! an offload bundle by clang-offload-bundler-19): every object comparison
//! that reads an existing object runs on every object with every peer, the
//! ones that need the generator are listed as not applicable, an object
//! llvm-objdump-14 misreads is one finding naming its file and bundle
//! entry with a script that shows it, `--out` resumes only the same
//! inputs, and bad inputs are one line and exit 2 without a hang.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_hsaco-conform");

/// Two kernels using a work-item id, arguments and memory.
const SOURCE: &str = "kernel void add(global int *a, global const int *b, int n) {\n  int i = __builtin_amdgcn_workitem_id_x();\n  if (i < n) a[i] += b[i];\n}\nkernel void scale(global float *a, float s) {\n  a[__builtin_amdgcn_workitem_id_x()] *= s;\n}\n";

/// The comparisons that read an existing object.
const OBJECT_KINDS: [&str; 3] = ["descriptors", "metadata", "comgr-metadata"];

fn run(args: &[&str]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run hsaco-conform");
    // A bad input must never hang the run: give up after a while.
    let t0 = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if t0.elapsed() > Duration::from_secs(600) {
            let _ = child.kill();
            panic!("hsaco-conform {args:?} did not finish in 600 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

fn json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).expect("read JSON")).expect("parse JSON")
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("{v} is not a count"))
}

fn tool(cmd: &mut Command) {
    let o = cmd.output().expect("run tool");
    assert!(
        o.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Compiles [`SOURCE`] with `clang` for `cpu` (extra flags `extra`) into
/// `dir/STEM.o` and links it with `lld` into `dir/STEM.hsaco`.
fn build(clang: &Path, lld: &Path, dir: &Path, stem: &str, cpu: &str, extra: &[&str]) {
    let src = dir.join(format!("{stem}.cl.txt"));
    std::fs::write(&src, SOURCE).expect("write source");
    let obj = dir.join(format!("{stem}.o"));
    tool(
        Command::new(clang)
            .args(support::CLANG_OPENCL)
            .arg(format!("-mcpu={cpu}"))
            .args(extra)
            .arg("-c")
            .arg(&src)
            .arg("-o")
            .arg(&obj),
    );
    // The source is not an input.
    std::fs::remove_file(&src).expect("remove source");
    tool(
        Command::new(lld)
            .arg("-shared")
            .arg(&obj)
            .arg("-o")
            .arg(dir.join(format!("{stem}.hsaco"))),
    );
}

/// An offload bundle of `images` ((processor, code object)) with an empty
/// host entry, as HIP's `.hipfb` files are.
fn bundle(bundler: &Path, out: &Path, images: &[(&str, &Path)]) {
    let mut targets = vec!["host-x86_64-unknown-linux-gnu".to_owned()];
    let mut cmd = Command::new(bundler);
    cmd.arg("-type=o").arg("-input=/dev/null");
    for (cpu, p) in images {
        targets.push(format!("hipv4-amdgcn-amd-amdhsa--{cpu}"));
        cmd.arg(format!("-input={}", p.display()));
    }
    cmd.arg(format!("-targets={}", targets.join(",")))
        .arg(format!("-output={}", out.display()));
    tool(&mut cmd);
}

/// The tools the object tests need, or `None` (skipped outside CI).
struct Tools {
    clang19: PathBuf,
    lld19: PathBuf,
    bundler: PathBuf,
    /// clang-22 and ld.lld-22, when installed (optional everywhere).
    llvm22: Option<(PathBuf, PathBuf)>,
}

fn tools() -> Option<Tools> {
    let clang19 = support::require_tool("clang-19")?;
    let lld19 = support::require_tool("ld.lld-19")?;
    let bundler = support::require_tool("clang-offload-bundler-19")?;
    for t in ["llvm-objdump-19", "llvm-readobj-19", "llvm-mc-19"] {
        support::require_tool(t)?;
    }
    let llvm22 = support::which("clang-22").zip(support::which("ld.lld-22"));
    Some(Tools {
        clang19,
        lld19,
        bundler,
        llvm22,
    })
}

/// A folder of real code objects: clang-19 objects for gfx900, gfx90a and
/// gfx1030 (relocatable and linked), clang-22's for gfx1100 when
/// installed, a bundle of two of them, and a text file. Returns the number
/// of code objects per processor, counted as they are made.
fn corpus(t: &Tools, dir: &Path) -> BTreeMap<String, u64> {
    let mut per: BTreeMap<String, u64> = BTreeMap::new();
    for cpu in ["gfx900", "gfx90a", "gfx1030"] {
        build(&t.clang19, &t.lld19, dir, &format!("k19-{cpu}"), cpu, &[]);
        // The relocatable object and the linked one.
        *per.entry(cpu.to_owned()).or_insert(0) += 2;
    }
    if let Some((clang22, lld22)) = &t.llvm22 {
        build(clang22, lld22, dir, "k22-gfx1100", "gfx1100", &[]);
        *per.entry("gfx1100".to_owned()).or_insert(0) += 2;
    }
    let sub = dir.join("hip");
    std::fs::create_dir(&sub).expect("mkdir");
    bundle(
        &t.bundler,
        &sub.join("kernels.hipfb"),
        &[
            ("gfx900", &dir.join("k19-gfx900.hsaco")),
            ("gfx90a", &dir.join("k19-gfx90a.hsaco")),
        ],
    );
    for cpu in ["gfx900", "gfx90a"] {
        *per.entry(cpu.to_owned()).or_insert(0) += 1;
    }
    std::fs::write(dir.join("README.txt"), "not a code object\n").expect("write");
    per
}

fn cells<'a>(j: &'a Value, comparison: &str) -> Vec<&'a Value> {
    j["matrix"]
        .as_array()
        .expect("matrix")
        .iter()
        .filter(|c| c["comparison"] == comparison)
        .collect()
}

fn cell<'a>(j: &'a Value, comparison: &str, peer: &str) -> &'a Value {
    cells(j, comparison)
        .into_iter()
        .find(|c| c["peer"] == peer)
        .unwrap_or_else(|| panic!("no cell {comparison} {peer} in {}", j["matrix"]))
}

#[test]
fn every_object_of_a_folder_goes_through_every_object_peer() {
    let Some(t) = tools() else { return };
    let d = tempfile::tempdir().expect("tempdir");
    let dir = d.path().join("objects");
    std::fs::create_dir(&dir).expect("mkdir");
    let per = corpus(&t, &dir);
    let total: u64 = per.values().sum();
    let report = d.path().join("r.json");
    let o = run(&["conform", s(&dir), "--json", s(&report)]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let j = json(&report);
    // The inputs, as found.
    let inputs = &j["inputs"];
    assert_eq!(u(&inputs["code_objects"]), total, "{inputs}");
    let found: BTreeMap<String, u64> =
        serde_json::from_value(inputs["per_target"].clone()).expect("per_target");
    assert_eq!(found, per);
    assert_eq!(u(&inputs["skipped"]), 1, "README.txt: {inputs}");
    assert_eq!(inputs["not_read"], serde_json::json!([]));
    assert_eq!(inputs["no_target"], serde_json::json!([]));
    assert!(
        out.contains(&format!("inputs: {total} code objects")),
        "{out}"
    );
    // Every object comparison: each of its peers was given every object
    // (a processor it does not know counts as not comparable), and none
    // differs, crashes or hangs.
    for kind in OBJECT_KINDS {
        let cs = cells(&j, kind);
        if kind != "comgr-metadata" {
            assert!(!cs.is_empty(), "no {kind} cell");
        }
        for c in cs {
            assert_eq!(u(&c["compared"]), total, "{c}");
            for k in ["different", "crashed", "timed_out"] {
                assert_eq!(u(&c[k]), 0, "{k}: {c}");
            }
        }
    }
    // LLVM 19 knows every processor here and reads every object: all of
    // them agree with the oracle (or as a reviewed allowlist entry says).
    for (kind, peer) in [
        ("descriptors", "llvm-objdump-19"),
        ("metadata", "llvm-readobj-19"),
    ] {
        let c = cell(&j, kind, peer);
        assert_eq!(u(&c["same"]) + u(&c["known"]), total, "{c}");
    }
    assert_eq!(u(&cell(&j, "metadata", "llvm-readobj-19")["same"]), total);
    assert_eq!(u(&j["summary"]["new_findings"]), 0);
    assert_eq!(u(&j["summary"]["exit"]), 0);
    // The units: one per object comparison, processor and chunk of four.
    let kinds_run = OBJECT_KINDS
        .iter()
        .filter(|k| !cells(&j, k).is_empty())
        .count() as u64;
    let chunks: u64 = per.values().map(|n| n.div_ceil(4)).sum();
    assert_eq!(u(&j["summary"]["units"]), kinds_run * chunks);
    // What needs the generator is listed as not applicable, per processor.
    let skipped = j["skipped"].as_array().expect("skipped");
    for kind in ["rebuild", "mutants"] {
        let on: Vec<&str> = skipped
            .iter()
            .filter(|x| x["comparison"] == kind)
            .map(|x| x["target"].as_str().expect("target"))
            .collect();
        assert_eq!(
            on,
            per.keys().map(String::as_str).collect::<Vec<_>>(),
            "{kind}"
        );
        assert!(skipped
            .iter()
            .filter(|x| x["comparison"] == kind)
            .all(|x| x["reason"]
                .as_str()
                .is_some_and(|r| r.starts_with("not applicable to given objects"))));
    }
    assert!(out.contains("skipped: rebuild on "), "{out}");

    // --targets keeps the objects of those processors only.
    let only = d.path().join("only.json");
    let o = run(&[
        "conform",
        "--quiet",
        "--targets",
        "gfx900",
        "--kinds",
        "metadata",
        "--peers",
        "llvm-readobj-19",
        "--json",
        s(&only),
        s(&dir),
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let j = json(&only);
    assert_eq!(u(&j["inputs"]["code_objects"]), per["gfx900"]);
    assert_eq!(u(&j["inputs"]["filtered"]), total - per["gfx900"]);
    assert_eq!(
        u(&cell(&j, "metadata", "llvm-readobj-19")["same"]),
        per["gfx900"]
    );
}

/// The oracle's and llvm-objdump's `next_free_vgpr` in a finding message
/// (`K: next_free_vgpr: llvm-objdump Some(X), oracle Y`).
fn vgpr_values(message: &str) -> (u64, u64) {
    let rest = message
        .split("next_free_vgpr: llvm-objdump Some(")
        .nth(1)
        .unwrap_or_else(|| panic!("{message}"));
    let (x, rest) = rest.split_once("), oracle ").expect("oracle value");
    let y: String = rest.chars().take_while(char::is_ascii_digit).collect();
    (x.parse().expect("X"), y.parse().expect("Y"))
}

#[test]
fn an_object_a_peer_misreads_is_one_finding_naming_file_and_entry() {
    let Some(t) = tools() else { return };
    if support::require_tool("llvm-objdump-14").is_none() {
        return;
    }
    let d = tempfile::tempdir().expect("tempdir");
    let dir = d.path().join("in");
    std::fs::create_dir(&dir).expect("mkdir");
    // A GFX10 wave64 kernel: llvm-objdump-14 decodes its VGPR granule with
    // the wave32 granule (a reviewed allowlist entry says so).
    build(
        &t.clang19,
        &t.lld19,
        d.path(),
        "w64",
        "gfx1030",
        &["-mwavefrontsize64"],
    );
    std::fs::copy(d.path().join("w64.hsaco"), dir.join("w64.hsaco")).expect("copy");
    bundle(
        &t.bundler,
        &dir.join("app.hipfb"),
        &[("gfx1030", &d.path().join("w64.hsaco"))],
    );
    let base = [
        "conform",
        "--quiet",
        "--kinds",
        "descriptors",
        "--peers",
        "llvm-objdump-14",
    ];
    // With the allowlist: known, exit 0.
    let r = d.path().join("known.json");
    let mut args = base.to_vec();
    args.extend(["--json", s(&r), s(&dir)]);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let c = json(&r);
    let c = cell(&c, "descriptors", "llvm-objdump-14");
    assert_eq!((u(&c["compared"]), u(&c["known"])), (2, 2), "{c}");

    // Without: one finding for both objects, named by the first.
    let out = d.path().join("out");
    let r = d.path().join("new.json");
    let mut args = base.to_vec();
    args.extend(["--no-allowlist", "--out", s(&out), "--json", s(&r), s(&dir)]);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let j = json(&r);
    let f = j["findings"].as_array().expect("findings");
    assert_eq!(f.len(), 1, "{f:?}");
    let f = &f[0];
    assert_eq!(u(&f["count"]), 2, "{f}");
    // Directories are read in name order: the bundle comes first.
    let origin = f["origin"].as_str().expect("origin");
    assert_eq!(
        origin,
        format!(
            "{} [hipv4-amdgcn-amd-amdhsa--gfx1030]",
            dir.join("app.hipfb").display()
        )
    );
    let (objdump, oracle) = vgpr_values(f["message"].as_str().expect("message"));
    assert_eq!(objdump, 2 * oracle, "{f}");
    // The folder holds the object, under the file's and the entry's name,
    // and a script that shows llvm-objdump-14's reading of it alone.
    let folder = out.join(f["dir"].as_str().expect("dir"));
    let name = "app.hipfb@hipv4-amdgcn-amd-amdhsa--gfx1030.hsaco";
    assert_eq!(
        std::fs::read(folder.join(name)).expect("object"),
        std::fs::read(d.path().join("w64.hsaco")).expect("original")
    );
    let script = f["commands"][0]["argv"][1].as_str().expect("script");
    let shown = Command::new("sh")
        .arg(script)
        .current_dir(&folder)
        .output()
        .expect("sh");
    assert!(shown.status.success(), "{shown:?}");
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains(&format!(".amdhsa_next_free_vgpr {objdump}")),
        "{text}"
    );

    // The same command resumes every unit; other inputs start afresh.
    let o = run(&args);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let j = json(&r);
    assert_eq!(j["summary"]["resumed"], j["summary"]["units"]);
    assert_eq!(u(&j["summary"]["units"]), 1);
    std::fs::copy(d.path().join("w64.o"), dir.join("w64.o")).expect("copy");
    let o = run(&args);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let j = json(&r);
    assert_eq!(u(&j["summary"]["resumed"]), 0);
    assert_eq!(u(&j["inputs"]["code_objects"]), 3);
    assert_eq!(u(&j["findings"][0]["count"]), 3);
}

/// Runs `conform` with `args`; asserts exit 2 and one line on standard
/// error containing each of `want`.
fn refused(args: &[&str], want: &[&str]) {
    let mut all = vec!["conform", "--quiet"];
    all.extend(args);
    let t0 = Instant::now();
    let o = run(&all);
    assert!(t0.elapsed() < Duration::from_secs(30), "{args:?} took long");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    for w in want {
        assert!(err.contains(w), "{args:?}: {err} lacks {w:?}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_inputs_are_one_line_and_exit_2() {
    let d = tempfile::tempdir().expect("tempdir");
    let p = |n: &str| d.path().join(n);
    let missing = p("missing.hsaco");
    refused(&[s(&missing)], &[s(&missing), "No such file"]);
    let fifo = p("pipe.hsaco");
    let mk = Command::new("mkfifo").arg(&fifo).output().expect("mkfifo");
    assert!(mk.status.success());
    refused(&[s(&fifo)], &[s(&fifo), "a FIFO"]);
    std::fs::write(p("notes.txt"), "hello\n").expect("write");
    refused(&[s(&p("notes.txt"))], &["notes.txt", "not a code object"]);
    let empty = p("empty");
    std::fs::create_dir(&empty).expect("mkdir");
    refused(
        &[s(&empty)],
        &["no code object to compare", "0 code objects"],
    );
    let text_only = p("text");
    std::fs::create_dir(&text_only).expect("mkdir");
    std::fs::write(text_only.join("a.txt"), "x").expect("write");
    refused(
        &[s(&text_only)],
        &["no code object to compare", "1 skipped"],
    );
    // Options of generated runs.
    for flag in [["--seed", "3"], ["--count", "10"], ["--objects", "2"]] {
        let mut a = flag.to_vec();
        a.push(s(&empty));
        refused(&a, &[flag[0], "not for INPUT paths"]);
    }
    refused(&["--bench", s(&empty)], &["--bench", "not for INPUT paths"]);
    refused(&["--targets", "gfx9999", s(&empty)], &["gfx9999"]);

    let Some(t) = tools() else { return };
    let objs = p("objs");
    std::fs::create_dir(&objs).expect("mkdir");
    build(&t.clang19, &t.lld19, &objs, "k", "gfx900", &[]);
    std::fs::remove_file(objs.join("k.o")).expect("rm");
    refused(
        &["--kinds", "rebuild,mutants", s(&objs)],
        &["none of rebuild, mutants applies to given objects"],
    );
    refused(
        &["--targets", "gfx1100", s(&objs)],
        &["no code object to compare", "1 left out by --targets"],
    );
    // A truncated code object next to a good one: the good one is compared,
    // the other named, and the status is 2 (as `check`'s).
    let good = std::fs::read(objs.join("k.hsaco")).expect("read");
    std::fs::write(objs.join("cut.hsaco"), &good[..40]).expect("write");
    let r = p("cut.json");
    let o = run(&[
        "conform",
        "--quiet",
        "--kinds",
        "metadata",
        "--peers",
        "llvm-readobj-19",
        "--json",
        s(&r),
        s(&objs),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(
        out.contains(&format!(
            "{}: could not read: elf.header.truncated",
            objs.join("cut.hsaco").display()
        )),
        "{out}"
    );
    let j = json(&r);
    assert_eq!(u(&j["inputs"]["code_objects"]), 1);
    assert_eq!(j["inputs"]["not_read"].as_array().map(Vec::len), Some(1));
    assert_eq!(u(&j["summary"]["exit"]), 2);
    assert_eq!(u(&cell(&j, "metadata", "llvm-readobj-19")["same"]), 1);
}

/// Every reason a peer gives for not comparing is in the JSON report and
/// the HTML page, however many there are; the text lists the most frequent
/// and says where the rest are (issue 30: past eight, the reports lumped
/// them into "(other reasons)"). Here llvm-objdump-14 knows none of twelve
/// processors of generated objects: twelve reasons.
#[test]
fn every_not_comparable_reason_is_reported() {
    if support::require_tool("llvm-objdump-14").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let targets = "gfx940,gfx941,gfx942,gfx950,gfx1100,gfx1101,gfx1102,gfx1103,gfx1150,gfx1151,gfx1200,gfx1201";
    let gen = d.join("gen");
    let o = run(&[
        "gen",
        "--seed",
        "1",
        "--count",
        "60",
        "--kinds",
        "valid",
        "--targets",
        targets,
        "--out",
        s(&gen),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // What the reasons must count: the objects of each processor, from the
    // generator's manifest.
    let mut want: BTreeMap<String, u64> = BTreeMap::new();
    for line in std::fs::read_to_string(gen.join("manifest.jsonl"))
        .unwrap()
        .lines()
    {
        let case: Value = serde_json::from_str(line).unwrap();
        let cpu = case["target"].as_str().unwrap().split(':').next().unwrap();
        *want
            .entry(format!("LLVM 14 does not know {cpu}"))
            .or_insert(0) += 1;
    }
    assert_eq!(want.len(), 12, "{want:?}");
    let (json_path, html_path) = (d.join("r.json"), d.join("r.html"));
    let o = run(&[
        "conform",
        "--quiet",
        "--kinds",
        "descriptors",
        "--peers",
        "llvm-objdump-14",
        "--json",
        s(&json_path),
        "--html",
        s(&html_path),
        s(&gen),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let j = json(&json_path);
    let reasons: BTreeMap<String, u64> = serde_json::from_value(
        cell(&j, "descriptors", "llvm-objdump-14")["not_comparable_reasons"].clone(),
    )
    .unwrap();
    assert_eq!(reasons, want);
    let html = std::fs::read_to_string(&html_path).unwrap();
    for (why, n) in &want {
        assert!(
            html.contains(&format!("{why} ({n})")),
            "{why} ({n}) not in the page"
        );
    }
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  not comparable: descriptors llvm-objdump-14: "))
        .collect();
    // The eight most frequent, then the rest counted.
    let mut by_count: Vec<(&String, &u64)> = want.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let mut expected: Vec<String> = by_count[..8]
        .iter()
        .map(|(why, n)| format!("  not comparable: descriptors llvm-objdump-14: {why} ({n})"))
        .collect();
    let rest: u64 = by_count[8..].iter().map(|(_, n)| **n).sum();
    expected.push(format!(
        "  not comparable: descriptors llvm-objdump-14: {rest} input(s) for 4 more reasons \
         (the --json report and the --html page list every reason)"
    ));
    assert_eq!(lines, expected, "{text}");
}
