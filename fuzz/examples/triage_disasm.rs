//! Triage of `libllvm_disasm` crashes: for each crash input, the shortest
//! byte string that still crashes LLVM on its own, the known crash it
//! matches (if any), and whether `llvm-mc` alone crashes on it.
//!
//! ```text
//! cargo build -p hsaco-fuzz --bin libllvm_disasm --example triage_disasm
//! cargo run -p hsaco-fuzz --example triage_disasm -- fuzz/artifacts/libllvm_disasm/crash-*
//! ```
//!
//! Every probe runs the target's replay program (built next to this
//! example) as a child process with `HSACO_FUZZ_KNOWN_CRASHES=run`, so
//! LLVM's crashes end only the child.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use hsaco_fuzz::libllvm_disasm::{known_crash, select};
use hsaco_fuzz::peer::llvm_mc_command;

/// The replay program `libllvm_disasm`, next to this example's directory.
fn replay_program() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target directory");
    let p = dir.join("libllvm_disasm");
    assert!(
        p.is_file(),
        "{} missing: cargo build -p hsaco-fuzz --bin libllvm_disasm",
        p.display()
    );
    p
}

/// The signal that ended a child, if one did (`sh` reports a killed
/// command as 128 + signal).
#[cfg(unix)]
fn signal_of(status: std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status
        .signal()
        .or_else(|| status.code().filter(|c| *c > 128).map(|c| c - 128))
}

/// Runs `input` through the replay program; the signal that killed it.
fn crashes(prog: &Path, scratch: &Path, input: &[u8]) -> Option<i32> {
    std::fs::write(scratch, input).expect("write probe");
    let st = Command::new(prog)
        .arg(scratch)
        .env("HSACO_FUZZ_KNOWN_CRASHES", "run")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run replay program");
    signal_of(st)
}

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() {
    let prog = replay_program();
    let scratch = std::env::temp_dir().join(format!("triage-disasm-{}", std::process::id()));
    for path in std::env::args_os().skip(1).map(PathBuf::from) {
        let data = std::fs::read(&path).expect("read crash input");
        let Some((&sel, code)) = data.split_first() else {
            continue;
        };
        let Some((lib, cpu)) = select(sel) else {
            println!(
                "{}: selector {sel:#04x}: library not installed",
                path.display()
            );
            continue;
        };
        let Some(sig) = crashes(&prog, &scratch, &data) else {
            println!("{}: does not crash", path.display());
            continue;
        };
        // Shortest crashing prefix (a crash needs its whole instruction),
        // then the latest dword-aligned start that still crashes alone.
        let end = (1..=code.len())
            .find(|&n| crashes(&prog, &scratch, &[&[sel], &code[..n]].concat()).is_some())
            .unwrap_or(code.len());
        let start = (0..end)
            .rev()
            .step_by(1)
            .filter(|s| s % 4 == 0)
            .find(|&s| crashes(&prog, &scratch, &[&[sel], &code[s..end]].concat()).is_some())
            .unwrap_or(0);
        let bytes = &code[start..end];
        let known = known_crash(lib.version(), cpu, bytes).map_or("NEW", |k| k.name);
        let cmd = llvm_mc_command(lib.version(), cpu, bytes);
        let mc = Command::new("sh")
            .arg("-c")
            .arg(&cmd)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .ok()
            .and_then(signal_of);
        println!(
            "{}: LLVM {} {cpu} signal {sig}: [{}] ({known}); llvm-mc signal {mc:?}\n  {cmd}",
            path.display(),
            lib.version(),
            hex(bytes)
        );
    }
    let _ = std::fs::remove_file(&scratch);
}
