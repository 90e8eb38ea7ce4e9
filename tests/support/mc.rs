//! Running `llvm-mc` (or any filter) with text on standard input.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `cmd` with `input` on stdin and a 300 s limit (some inputs make
/// llvm-mc-19 loop forever; none should be in the tests); returns
/// (stdout, stderr).
pub fn run_with_input(mut cmd: Command, input: &str) -> (String, String) {
    let what = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {what}: {e}"));
    let mut stdin = child.stdin.take().expect("stdin");
    let data = input.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(data.as_bytes()));
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        out.read_to_end(&mut s).map(|_| s)
    });
    let ereader = std::thread::spawn(move || {
        let mut s = Vec::new();
        err.read_to_end(&mut s).map(|_| s)
    });
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what} did not finish");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    writer.join().expect("writer").expect("write stdin");
    let out = reader.join().expect("reader").expect("read stdout");
    let err = ereader.join().expect("reader").expect("read stderr");
    (
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// Runs llvm-mc for `cpu` (amdhsa triple) with `input` on stdin.
pub fn mc(tool: &Path, cpu: &str, extra: &[&str], input: &str) -> (String, String) {
    let mut cmd = Command::new(tool);
    cmd.args(["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={cpu}")])
        .args(extra);
    run_with_input(cmd, input)
}

/// Line numbers (1-based) that llvm-mc reported with `<stdin>:N:C: kind`.
pub fn reported_lines(stderr: &str, kind: &str) -> BTreeSet<usize> {
    stderr
        .lines()
        .filter(|l| l.contains(kind))
        .filter_map(|l| l.strip_prefix("<stdin>:")?.split(':').next()?.parse().ok())
        .collect()
}

/// Instruction lines of llvm-mc output (without directives).
pub fn insn_lines(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('.'))
        .map(str::to_owned)
        .collect()
}
