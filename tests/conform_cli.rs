//! `hsaco-conform conform`: a small run's JSON and JUnit reports (the
//! JUnit file read by a real consumer, the `junit-parser` crate), exit
//! statuses 0, 1 and 2, a SIGKILL in the middle of a run (no half-written
//! file; the same command resumes), `--shard`, the benchmark, the worker
//! isolation (a worker that aborts, exits or hangs is replaced and the
//! batch goes on), and output safety (`--out` refuses folders it did not
//! write, leaves others' files alone, is locked while a run uses it; report
//! paths are checked before any work).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use hsaco_conform::conform::isolate::{Isolated, Reply, WorkerSpec};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_hsaco-conform");

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
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

/// LLVM 19 and 14, libraries and llvm-mc, or `None` (skipped outside CI).
fn peers() -> Option<()> {
    support::require_tool("llvm-mc-19")?;
    support::require_tool("llvm-mc-14")?;
    (have_libllvm(19) && have_libllvm(14)).then_some(())
}

fn json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).expect("read JSON")).expect("parse JSON")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

fn cell<'a>(j: &'a Value, comparison: &str, peer: &str) -> &'a Value {
    j["matrix"]
        .as_array()
        .expect("matrix")
        .iter()
        .find(|c| c["comparison"] == comparison && c["peer"] == peer)
        .unwrap_or_else(|| panic!("no cell {comparison} {peer} in {}", j["matrix"]))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("{v} is not a count"))
}

/// Every cell's parts add up to `compared`.
fn check_cells(j: &Value) {
    for c in j["matrix"].as_array().expect("matrix") {
        let parts = [
            "same",
            "known",
            "different",
            "informational",
            "not_comparable",
            "crashed",
            "timed_out",
        ]
        .iter()
        .map(|k| u(&c[*k]))
        .sum::<u64>();
        assert_eq!(parts, u(&c["compared"]), "{c}");
    }
}

#[test]
fn small_run_writes_json_junit_html_and_a_findings_folder() {
    if peers().is_none() {
        return;
    }
    let d = tempfile::tempdir().expect("tmp");
    let (jp, xp, hp, out) = (
        d.path().join("c.json"),
        d.path().join("c.xml"),
        d.path().join("c.html"),
        d.path().join("found"),
    );
    let o = run(&[
        "conform",
        "--count",
        "1024",
        "--targets",
        "gfx900,gfx1100",
        "--peers",
        "libllvm-19,llvm-mc-19,llvm-mc-14",
        "--json",
        s(&jp),
        "--junit",
        s(&xp),
        "--html",
        s(&hp),
        "--out",
        s(&out),
    ]);
    let all = text(&o);
    assert_eq!(o.status.code(), Some(0), "{all}");
    assert!(all.contains("comparison   peer"), "{all}");
    assert!(all.contains("no new findings"), "{all}");

    let j = json(&jp);
    assert_eq!(j["tool"], "hsaco-conform");
    assert_eq!(j["command"], "conform");
    assert_eq!(j["options"]["count"], 1024);
    assert_eq!(
        j["options"]["targets"],
        serde_json::json!(["gfx900", "gfx1100"])
    );
    assert_eq!(
        j["options"]["kinds"],
        serde_json::json!(["smem-disasm", "smem-encode"])
    );
    let ids: Vec<&str> = j["peers"]
        .as_array()
        .expect("peers")
        .iter()
        .filter_map(|p| p["id"].as_str())
        .collect();
    assert_eq!(ids, ["libllvm-19", "llvm-mc-19", "llvm-mc-14"]);
    assert_eq!(j["matrix"].as_array().map(Vec::len), Some(5));
    check_cells(&j);
    let c = cell(&j, "smem-disasm", "libllvm-19");
    assert_eq!(
        (u(&c["compared"]), u(&c["different"]), u(&c["crashed"])),
        (2048, 0, 0),
        "{c}"
    );
    assert!(u(&c["known"]) > 0, "{c}");
    let c = cell(&j, "smem-disasm", "llvm-mc-14");
    assert_eq!(
        u(&c["not_comparable"]),
        1024,
        "gfx1100 is unknown to LLVM 14: {c}"
    );
    assert!(
        c["not_comparable_reasons"]["LLVM 14 does not know gfx1100"].is_u64(),
        "{c}"
    );
    let c = cell(&j, "smem-encode", "llvm-mc-19");
    assert_eq!((u(&c["compared"]), u(&c["same"])), (512, 512), "{c}");
    assert_eq!(j["summary"]["new_findings"], 0);
    assert_eq!(j["summary"]["exit"], 0);
    assert_eq!(j["findings"].as_array().map(Vec::len), Some(0));
    // A word can show several divergences: each entry counts it.
    let known: u64 = j["known"]
        .as_array()
        .expect("known")
        .iter()
        .map(|k| u(&k["count"]))
        .sum();
    assert!(known >= u(&j["summary"]["known"]) && u(&j["summary"]["known"]) > 0);

    // JUnit, read by a real consumer.
    let x = junit_parser::from_reader(std::io::BufReader::new(
        std::fs::File::open(&xp).expect("junit"),
    ))
    .expect("JUnit parses");
    assert_eq!(x.suites.len(), 2);
    assert_eq!(x.tests, 5);
    assert_eq!((x.failures, x.errors), (0, 0));
    let names: Vec<&str> = x.suites.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["smem-disasm", "smem-encode"]);
    for suite in &x.suites {
        for case in &suite.cases {
            assert!(case.status.is_success(), "{}", case.name);
            assert_eq!(
                case.classname.as_deref(),
                Some(format!("hsaco-conform.{}", suite.name).as_str())
            );
        }
    }

    let h = std::fs::read_to_string(&hp).expect("html");
    assert!(h.starts_with("<!DOCTYPE html>"));
    assert!(
        h.contains("<table>") && h.contains("libllvm-19") && h.contains("smem.misaligned-tuple")
    );
    assert!(
        !h.contains("<script") && !h.contains("<link") && !h.contains("src="),
        "self-contained"
    );

    assert_eq!(
        std::fs::read_to_string(out.join("manifest.jsonl")).expect("manifest"),
        ""
    );
    assert!(out.join("state.json").is_file());
}

#[test]
fn new_findings_exit_1_and_fail_in_junit() {
    if peers().is_none() {
        return;
    }
    let d = tempfile::tempdir().expect("tmp");
    let (jp, xp) = (d.path().join("c.json"), d.path().join("c.xml"));
    // Without the allowlist the known divergences are new.
    let o = run(&[
        "conform",
        "--count",
        "512",
        "--targets",
        "gfx900",
        "--kinds",
        "smem-disasm",
        "--peers",
        "libllvm-19",
        "--no-allowlist",
        "--no-reduce",
        "--json",
        s(&jp),
        "--junit",
        s(&xp),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let j = json(&jp);
    check_cells(&j);
    let f = j["findings"].as_array().expect("findings");
    assert!(!f.is_empty());
    for x in f {
        assert_eq!(x["signature"]["kind"], "different");
        assert!(
            x["signature"]["key"]
                .as_str()
                .expect("key")
                .starts_with("known divergence divergence:"),
            "{x}"
        );
    }
    assert_eq!(u(&cell(&j, "smem-disasm", "libllvm-19")["known"]), 0);
    let x = junit_parser::from_reader(std::io::BufReader::new(
        std::fs::File::open(&xp).expect("junit"),
    ))
    .expect("JUnit parses");
    assert_eq!((x.tests, x.failures), (1, 1));
    let case = &x.suites[0].cases[0];
    assert!(case.status.is_failure());
}

#[test]
fn exit_2_when_it_cannot_run() {
    let d = tempfile::tempdir().expect("tmp");
    let bad = d.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[[known]]\nid = \"x\"\nreason = \"\"\nkind = \"crash\"\n",
    )
    .expect("write");
    for (args, message) in [
        (
            vec!["conform", "--targets", "gfx9000"],
            "unknown processor \"gfx9000\"",
        ),
        (
            vec!["conform", "--targets", "gfx700"],
            "gfx700 has no SMEM model",
        ),
        (
            vec!["conform", "--kinds", "smem-bogus"],
            "--kinds: unknown comparison \"smem-bogus\"",
        ),
        (vec!["conform", "--shard", "2/2"], "need 0 <= I < N"),
        (
            vec!["conform", "--peers", "llvm-mc-3"],
            "--peers: no peer \"llvm-mc-3\"",
        ),
        (
            vec!["conform", "--allowlist", "/nonexistent.toml"],
            "/nonexistent.toml: cannot read",
        ),
        (vec!["conform", "--allowlist", s(&bad)], "no reason"),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(message), "{args:?}: {}", text(&o));
    }
}

#[test]
fn help_teaches() {
    let o = run(&["conform", "--help"]);
    let t = text(&o);
    for w in [
        "smem-disasm",
        "allowlist",
        "Exit status",
        "Examples",
        "--shard",
        "Resuming",
        "--peer <NAME=PATH>",
        "Output folder (--out DIR)",
        "in use",
    ] {
        assert!(t.contains(w), "{w}: {t}");
    }
    let o = run(&["diff", "words", "--help"]);
    let t = text(&o);
    for w in ["llvm-mc's byte syntax", "reference peer", "Examples"] {
        assert!(t.contains(w), "{w}: {t}");
    }
}

/// Compared counts of each cell (without timings).
fn counts(j: &Value) -> Vec<(String, String, u64, u64, u64)> {
    j["matrix"]
        .as_array()
        .expect("matrix")
        .iter()
        .map(|c| {
            (
                c["comparison"].as_str().unwrap_or("").to_owned(),
                c["peer"].as_str().unwrap_or("").to_owned(),
                u(&c["compared"]),
                u(&c["same"]),
                u(&c["known"]),
            )
        })
        .collect()
}

#[test]
fn shards_split_the_units() {
    if peers().is_none() {
        return;
    }
    let d = tempfile::tempdir().expect("tmp");
    let base = [
        "conform",
        "--count",
        "8192",
        "--targets",
        "gfx1030",
        "--kinds",
        "smem-disasm",
        "--peers",
        "libllvm-19",
        "--quiet",
    ];
    let mut totals = (0, 0, 0);
    for shard in ["0/2", "1/2"] {
        let p = d.path().join(format!("s{}.json", &shard[..1]));
        let mut a = base.to_vec();
        a.extend(["--shard", shard, "--json", s(&p)]);
        let o = run(&a);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let j = json(&p);
        assert_eq!(
            j["summary"]["units"], 1,
            "two chunks of 4096, one per shard"
        );
        let c = &counts(&j)[0];
        totals = (totals.0 + c.2, totals.1 + c.3, totals.2 + c.4);
    }
    let p = d.path().join("all.json");
    let mut a = base.to_vec();
    a.extend(["--json", s(&p)]);
    let o = run(&a);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let c = &counts(&json(&p))[0];
    assert_eq!(totals, (c.2, c.3, c.4));
    assert_eq!(c.2, 8192);
}

/// Files under `dir` (recursively), as paths.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).expect("read folder").flatten() {
        let p = e.path();
        if p.is_dir() {
            v.extend(files(&p));
        }
        v.push(p);
    }
    v
}

#[test]
fn sigkill_leaves_no_half_written_file_and_the_rerun_resumes() {
    if peers().is_none() {
        return;
    }
    let d = tempfile::tempdir().expect("tmp");
    let out = d.path().join("found");
    let jp = d.path().join("c.json");
    let args = [
        "conform",
        "--count",
        "61440",
        "--targets",
        "gfx900",
        "--kinds",
        "smem-disasm",
        "--peers",
        "libllvm-19,llvm-mc-19",
        "--jobs",
        "1",
        "--out",
        s(&out),
        "--json",
        s(&jp),
    ];
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start");
    let t0 = Instant::now();
    // state.json is written when the run begins; wait for a finished unit.
    let saved_units = || {
        std::fs::read(out.join("state.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .and_then(|j| j["units"].as_object().map(|m| m.len()))
            .unwrap_or(0)
    };
    while saved_units() == 0 {
        assert!(t0.elapsed() < Duration::from_secs(120), "no progress saved");
        assert!(
            child.try_wait().expect("wait").is_none(),
            "finished before it could be killed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // SIGKILL: no handler runs.
    child.kill().expect("kill");
    child.wait().expect("wait");
    assert!(!jp.exists(), "reports are written at the end only");
    for p in files(&out) {
        let name = p
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_owned();
        if name.starts_with(".tmp-") || p.is_dir() {
            continue;
        }
        let bytes = std::fs::read(&p).expect("read");
        match name.as_str() {
            "state.json" | "finding.json" => {
                serde_json::from_slice::<Value>(&bytes)
                    .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            }
            "manifest.jsonl" => {
                for l in String::from_utf8(bytes).expect("utf-8").lines() {
                    serde_json::from_str::<Value>(l).expect("manifest line");
                }
            }
            _ => {}
        }
    }
    let saved = json(&out.join("state.json"));
    let done = saved["units"].as_object().map_or(0, |m| m.len());
    assert!((1..15).contains(&done), "{done} of 15 units saved");

    // The same command again: resumes, finishes, and cleans up.
    let o = Command::new(BIN).args(args).output().expect("rerun");
    let all = text(&o);
    assert_eq!(o.status.code(), Some(0), "{all}");
    assert!(
        all.contains(&format!("15 units ({done} from an earlier run)")),
        "{all}"
    );
    let j = json(&jp);
    assert_eq!(u(&j["summary"]["resumed"]), done as u64);
    check_cells(&j);
    for peer in ["libllvm-19", "llvm-mc-19"] {
        let c = cell(&j, "smem-disasm", peer);
        assert_eq!(u(&c["compared"]), 61440, "{c}");
        assert_eq!(u(&c["same"]) + u(&c["known"]), 61440, "{c}");
    }
    let leftovers: Vec<PathBuf> = files(&out)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(".tmp-"))
        })
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // Both peers agree on every count, and so does a third, resumed-from-
    // complete run.
    let o = Command::new(BIN).args(args).output().expect("rerun");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let k = json(&jp);
    assert_eq!(u(&k["summary"]["resumed"]), 15);
    assert_eq!(counts(&k), counts(&j));
}

#[test]
fn workers_that_abort_exit_or_hang_are_replaced_and_the_batch_goes_on() {
    let d = tempfile::tempdir().expect("tmp");
    let mut w = Isolated::new(WorkerSpec {
        program: PathBuf::from(BIN),
        task: "selftest".to_owned(),
        arg: String::new(),
        env: Vec::new(),
        timeout: Duration::from_secs(2),
        scratch: d.path().to_path_buf(),
    });
    let payloads: Vec<String> = [
        "echo:a", "abort", "echo:b", "hang", "exit:3", "nc:why", "echo:c",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let mut got: Vec<Option<Reply>> = vec![None; payloads.len()];
    let t0 = Instant::now();
    w.run("ctx", &payloads, &mut |k, r| {
        assert!(got[k].is_none(), "one reply per item");
        got[k] = Some(r);
    });
    assert!(t0.elapsed() < Duration::from_secs(30));
    let got: Vec<Reply> = got
        .into_iter()
        .map(|r| r.expect("every item answered"))
        .collect();
    assert_eq!(got[0], Reply::Ok("a".to_owned()));
    match &got[1] {
        Reply::Crashed(c) => {
            assert_eq!((c.signal, c.status.as_str()), (Some(6), "SIGABRT (6)"));
            assert!(
                c.stderr.iter().any(|l| l.contains("aborting as asked")),
                "{c:?}"
            );
        }
        r => panic!("{r:?}"),
    }
    assert_eq!(got[2], Reply::Ok("b".to_owned()));
    match &got[3] {
        Reply::TimedOut(h) => assert_eq!(h.seconds, 2.0),
        r => panic!("{r:?}"),
    }
    match &got[4] {
        Reply::Crashed(c) => {
            assert_eq!((c.exit_code, c.status.as_str()), (Some(3), "exit status 3"));
            assert!(
                c.stderr.iter().any(|l| l.contains("exiting as asked")),
                "{c:?}"
            );
        }
        r => panic!("{r:?}"),
    }
    assert_eq!(got[5], Reply::NotComparable("why".to_owned()));
    assert_eq!(got[6], Reply::Ok("c".to_owned()));
    assert_eq!(
        w.starts, 4,
        "one worker, then one after each of abort, hang, exit"
    );
    // The worker survives for the next batch.
    let mut again = Vec::new();
    w.run("ctx", &["echo:d".to_owned()], &mut |k, r| {
        again.push((k, r))
    });
    assert_eq!(again, vec![(0, Reply::Ok("d".to_owned()))]);
    assert_eq!(w.starts, 4);
}

#[test]
fn bench_reports_rates_per_peer_and_the_ratio() {
    if peers().is_none() {
        return;
    }
    let d = tempfile::tempdir().expect("tmp");
    let jp = d.path().join("b.json");
    let o = run(&[
        "conform",
        "--bench",
        "--count",
        "4096",
        "--peers",
        "libllvm-19,llvm-mc-19",
        "--json",
        s(&jp),
    ]);
    let all = text(&o);
    assert_eq!(o.status.code(), Some(0), "{all}");
    assert!(
        all.contains("conform bench: smem-disasm on gfx900 (4096 words"),
        "{all}"
    );
    assert!(all.contains("libLLVM-19 alone, in this process:"), "{all}");
    assert!(
        all.contains("ratio: smem-disasm against libllvm-19 runs at "),
        "{all}"
    );
    let j = json(&jp);
    let peers: Vec<&str> = j["peers"]
        .as_array()
        .expect("peers")
        .iter()
        .filter_map(|p| p["peer"].as_str())
        .collect();
    assert_eq!(peers, ["libllvm-19", "llvm-mc-19"]);
    for p in j["peers"].as_array().expect("peers") {
        assert_eq!(p["compared"], 4096);
        assert!(p["per_second"].as_f64().is_some_and(|r| r > 0.0));
    }
    assert!(j["ratio"].as_f64().is_some_and(|r| r > 0.0));
}

/// The lines of standard error.
fn err_lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Names in a folder, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("read folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn out_refuses_a_folder_it_did_not_write_and_leaves_it_untouched() {
    let d = tempfile::tempdir().expect("tmp");
    let theirs = d.path().join("thesis");
    std::fs::create_dir_all(theirs.join("findings")).expect("dir");
    std::fs::write(theirs.join("chapter1.tex"), b"precious").expect("file");
    std::fs::write(theirs.join("findings/notes.txt"), b"mine").expect("file");
    let t0 = Instant::now();
    let o = run(&["conform", "--count", "512", "--out", s(&theirs)]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        t0.elapsed() < Duration::from_secs(10),
        "refused before any work"
    );
    let lines = err_lines(&o);
    assert_eq!(lines.len(), 1, "one line: {lines:?}");
    assert!(
        lines[0].contains(&format!("--out {}", theirs.display()))
            && lines[0].contains("not an earlier hsaco-conform run")
            && lines[0].contains("give a new or empty folder"),
        "{lines:?}"
    );
    assert!(o.stdout.is_empty(), "no table");
    assert_eq!(names(&theirs), ["chapter1.tex", "findings"]);
    assert_eq!(names(&theirs.join("findings")), ["notes.txt"]);
    assert_eq!(
        std::fs::read(theirs.join("chapter1.tex")).expect("read"),
        b"precious"
    );
    // A file is not a folder.
    let f = theirs.join("chapter1.tex");
    let o = run(&["conform", "--out", s(&f)]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not a folder"), "{}", text(&o));
}

#[test]
fn report_paths_are_checked_before_any_work() {
    let d = tempfile::tempdir().expect("tmp");
    let file = d.path().join("plain-file");
    std::fs::write(&file, b"x").expect("file");
    let out = d.path().join("found");
    let kept = d.path().join("kept.json");
    std::fs::write(&kept, b"an earlier report").expect("file");
    let under_file = file.join("c.json");
    let in_proc = PathBuf::from("/proc/version/c.xml");
    for (flag, bad, why) in [
        ("--json", under_file.as_path(), "Not a directory"),
        ("--junit", in_proc.as_path(), "Not a directory"),
        ("--html", d.path(), "Is a directory"),
        (
            "--json",
            &d.path().join("no/such/folder/c.json"),
            "No such file",
        ),
    ] {
        let t0 = Instant::now();
        // The default run takes a minute: a quick exit shows nothing ran.
        // An existing report named with another option is not touched.
        let keep_flag = if flag == "--junit" {
            "--json"
        } else {
            "--junit"
        };
        let o = run(&[
            "conform",
            keep_flag,
            s(&kept),
            flag,
            s(bad),
            "--out",
            s(&out),
        ]);
        let took = t0.elapsed();
        assert_eq!(
            o.status.code(),
            Some(2),
            "{flag} {}: {}",
            bad.display(),
            text(&o)
        );
        assert!(took < Duration::from_secs(10), "{took:?}");
        let lines = err_lines(&o);
        assert_eq!(lines.len(), 1, "one line: {lines:?}");
        assert!(
            lines[0].contains(&format!("{flag} {}: cannot write", bad.display()))
                && lines[0].contains(why),
            "{lines:?}"
        );
        assert!(o.stdout.is_empty(), "no table: {}", text(&o));
        assert!(!out.exists(), "no output folder made");
        assert_eq!(std::fs::read(&kept).expect("read"), b"an earlier report");
    }
    assert_eq!(
        names(d.path()),
        ["kept.json", "plain-file"],
        "no probe left"
    );
    // diff words checks the same way, before reading its input.
    let o = run(&[
        "diff",
        "words",
        "--target",
        "gfx900",
        "--json",
        s(&under_file),
        "/nonexistent-words.txt",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains(&format!("--json {}: cannot write", under_file.display())),
        "{}",
        text(&o)
    );
}

#[test]
fn out_is_locked_while_a_run_uses_it_and_others_files_survive_restarts() {
    if peers().is_none() {
        return;
    }
    let d = tempfile::tempdir().expect("tmp");
    let out = d.path().join("found");
    let long = [
        "conform",
        "--count",
        "245760",
        "--targets",
        "gfx900",
        "--kinds",
        "smem-disasm",
        "--peers",
        "libllvm-19,llvm-mc-19",
        "--jobs",
        "1",
        "--quiet",
        "--out",
        s(&out),
    ];
    let mut first = Command::new(BIN)
        .args(long)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start");
    let t0 = Instant::now();
    while !out.join("state.json").exists() {
        assert!(t0.elapsed() < Duration::from_secs(120), "no run record");
        assert!(
            first.try_wait().expect("wait").is_none(),
            "finished before the second run"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // A second run on the same folder fails at once, naming the first.
    let t1 = Instant::now();
    let o = run(&long);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(t1.elapsed() < Duration::from_secs(10));
    let lines = err_lines(&o);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains(&format!(
            "--out {}: in use by another hsaco-conform run (PID {})",
            out.display(),
            first.id()
        )),
        "{lines:?}"
    );
    assert!(
        first.try_wait().expect("wait").is_none(),
        "the first run goes on"
    );
    // SIGKILL: the kernel drops the lock; no stale state blocks the next run.
    first.kill().expect("kill");
    first.wait().expect("wait");

    // Others' files in the run's folder.
    std::fs::write(out.join("README.txt"), b"what these are").expect("file");
    std::fs::create_dir_all(out.join("findings/by-hand")).expect("dir");
    std::fs::write(out.join("findings/by-hand/note.txt"), b"mine").expect("file");
    let small = |extra: &[&str]| {
        let mut a = vec![
            "conform",
            "--count",
            "512",
            "--targets",
            "gfx900",
            "--kinds",
            "smem-disasm",
            "--peers",
            "libllvm-19",
            "--no-allowlist",
            "--no-reduce",
            "--out",
            s(&out),
        ];
        a.extend(extra);
        run(&a)
    };
    // Other options: a fresh start in the folder, with findings.
    let o = small(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("held a run of conform with other options: starting afresh"),
        "{}",
        text(&o)
    );
    let state = json(&out.join("state.json"));
    assert_eq!(state["tool"], "hsaco-conform");
    assert_eq!(state["command"], "conform");
    let written: Vec<String> = state["findings"]
        .as_array()
        .expect("findings recorded")
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    assert!(!written.is_empty(), "{state}");
    let mut want = written.clone();
    want.push("by-hand".to_owned());
    want.sort();
    assert_eq!(names(&out.join("findings")), want);
    // The same command again resumes, and keeps the same findings.
    let o = small(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("1 units (1 from an earlier run)"),
        "{}",
        text(&o)
    );
    assert_eq!(names(&out.join("findings")), want);
    // With the allowlist there are none: this run's findings are removed,
    // nobody else's.
    let mut a = vec![
        "conform",
        "--count",
        "512",
        "--targets",
        "gfx900",
        "--kinds",
        "smem-disasm",
        "--peers",
        "libllvm-19",
        "--out",
    ];
    a.push(s(&out));
    let o = run(&a);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(names(&out.join("findings")), ["by-hand"]);
    assert_eq!(
        std::fs::read(out.join("findings/by-hand/note.txt")).expect("read"),
        b"mine"
    );
    assert_eq!(
        std::fs::read(out.join("README.txt")).expect("read"),
        b"what these are"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("manifest.jsonl")).expect("manifest"),
        ""
    );
}
