//! Every command, run with a standard output whose reader has gone (the
//! pipe's reading end closed before the command writes, as `| head -1`
//! leaves it), ends with one line on standard error and exit status 2,
//! never a panic (issue 30: `explain ... | head -1` exited 101 with a
//! backtrace).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hsaco-conform"))
}

/// Runs the command in `dir` with standard output a pipe nobody reads:
/// the reading end is closed before the command starts, so its first
/// write fails with EPIPE whatever its timing.
fn closed(dir: &Path, args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    bin()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("run hsaco-conform")
}

/// The command ended as a closed pipe must end it: status 2, and the last
/// line on standard error (earlier ones may be progress) names the command
/// and the broken pipe; no panic.
fn ends_with_one_line(o: &Output, command: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !err.contains("panicked") && !err.contains("stack backtrace"),
        "{command}: {err}"
    );
    assert_eq!(o.status.code(), Some(2), "{command}: {err}");
    let last = err.lines().last().unwrap_or("");
    // `smem decode` says `smem decode`, `diff words` `diff words`.
    assert!(
        last.starts_with(&format!("hsaco-conform {command}"))
            && last.contains(": cannot write to standard output: ")
            && last.contains("Broken pipe"),
        "{command}: last line of stderr is {last:?}; all of it:\n{err}"
    );
}

/// A fresh directory with `gen/`, three generated cases and their
/// manifest (written by the command itself, output not closed).
fn generated() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let o = bin()
        .args(["gen", "--seed", "1", "--count", "3", "--out", "gen"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let first = dir.path().join("gen/1-000000.elf");
    assert!(first.is_file());
    (dir, first)
}

#[test]
fn check() {
    let (dir, obj) = generated();
    let obj = obj.to_str().unwrap();
    for format in ["text", "json", "sarif"] {
        let o = closed(dir.path(), &["check", "--format", format, obj]);
        ends_with_one_line(&o, "check");
    }
}

#[test]
fn explain() {
    let (dir, obj) = generated();
    let o = closed(dir.path(), &["explain", obj.to_str().unwrap()]);
    ends_with_one_line(&o, "explain");
}

#[test]
fn rules() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["text", "json"] {
        let o = closed(dir.path(), &["rules", "--format", format]);
        ends_with_one_line(&o, "rules");
    }
}

#[test]
fn uri() {
    let dir = tempfile::tempdir().unwrap();
    let o = closed(dir.path(), &["uri", "file:///a.so#offset=4096&size=8192"]);
    ends_with_one_line(&o, "uri");
}

#[test]
fn bench() {
    let (dir, obj) = generated();
    let obj = obj.to_str().unwrap();
    let o = closed(dir.path(), &["bench", "--no-readobj", "--repeat", "1", obj]);
    ends_with_one_line(&o, "bench");
    let o = closed(
        dir.path(),
        &[
            "bench",
            "--packages",
            "--no-readobj",
            "--repeat",
            "1",
            "gen",
        ],
    );
    ends_with_one_line(&o, "bench");
}

#[test]
fn smem() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("words.txt"),
        "0x41 0x01 0x02 0xc0 0x10 0x00 0x00 0x00\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("text.s"), "s_load_dword s5, s[2:3], 0x10\n").unwrap();
    for args in [
        &["smem", "decode", "--target", "gfx900", "words.txt"][..],
        &[
            "smem",
            "decode",
            "--target",
            "gfx900",
            "--format",
            "json",
            "words.txt",
        ],
        &["smem", "encode", "--target", "gfx900", "text.s"],
        &[
            "smem",
            "bench",
            "--target",
            "gfx900",
            "--count",
            "100",
            "--repeat",
            "1",
            "--no-llvm",
        ],
    ] {
        let o = closed(dir.path(), args);
        ends_with_one_line(&o, "smem");
    }
}

#[test]
fn smem_diff() {
    if let Err(e) = hsaco_conform::peers::llvm_disasm::LlvmLib::open(19) {
        let msg = format!("libLLVM-19: {e}");
        assert!(!support::in_ci(), "{msg}");
        eprintln!("SKIPPED: {msg}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let o = closed(
        dir.path(),
        &["smem", "diff", "--target", "gfx900", "--count", "100"],
    );
    ends_with_one_line(&o, "smem");
}

#[test]
fn gen() {
    let dir = tempfile::tempdir().unwrap();
    let o = closed(
        dir.path(),
        &["gen", "--seed", "1", "--count", "1", "--out", "g"],
    );
    ends_with_one_line(&o, "gen");
    let o = closed(dir.path(), &["gen", "--list-knobs"]);
    ends_with_one_line(&o, "gen");
}

#[test]
fn coverage() {
    let (dir, _) = generated();
    let o = closed(dir.path(), &["coverage", "gen"]);
    ends_with_one_line(&o, "coverage");
}

#[test]
fn peers() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["text", "json"] {
        let o = closed(dir.path(), &["peers", "--format", format]);
        ends_with_one_line(&o, "peers");
    }
}

#[test]
fn conform() {
    let Some(_) = support::require_tool("llvm-readobj-19") else {
        return;
    };
    let (dir, obj) = generated();
    let o = closed(
        dir.path(),
        &[
            "conform",
            "--quiet",
            "--peers",
            "llvm-readobj-19",
            "--json",
            "report.json",
            obj.to_str().unwrap(),
        ],
    );
    ends_with_one_line(&o, "conform");
    // The files it was asked for are written all the same.
    assert!(dir.path().join("report.json").is_file());
}

#[test]
fn diff() {
    let Some(_) = support::require_tool("llvm-mc-19") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("words.txt"),
        "0x41 0x01 0x02 0xc0 0x10 0x00 0x00 0x00\n",
    )
    .unwrap();
    let o = closed(
        dir.path(),
        &[
            "diff",
            "words",
            "--quiet",
            "--target",
            "gfx900",
            "--peers",
            "llvm-mc-19",
            "words.txt",
        ],
    );
    ends_with_one_line(&o, "diff");
}

#[test]
fn replay() {
    let dir = tempfile::tempdir().unwrap();
    let plan = bin()
        .args([
            "replay",
            "--quiet",
            "--plan",
            "bundle",
            "--targets",
            "gfx900",
            "--sample",
            "1",
            "--smem",
            "1",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        plan.status.success(),
        "{}",
        String::from_utf8_lossy(&plan.stderr)
    );
    // Dumps of no case: the comparison has nothing to compare, and says so
    // in its report.
    std::fs::create_dir(dir.path().join("dumps")).unwrap();
    std::fs::write(dir.path().join("dumps/runs.jsonl"), "").unwrap();
    let o = closed(
        dir.path(),
        &["replay", "--quiet", "--compare", "bundle", "dumps"],
    );
    ends_with_one_line(&o, "replay");
}
