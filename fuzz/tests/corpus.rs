//! Replays every stored input: each file of `corpus/seeds/<target>/` and
//! `corpus/regressions/<target>/` goes through its target's `run`.
//!
//! A regression may carry a signature file `<input>.toml` saying what the
//! replay must do (`outcome`):
//!
//! * `"pass"` (also when there is no signature file): `run` returns;
//! * `"panic"`: an open finding in our code; `run` must still panic with a
//!   message containing `panic` (when it stops panicking, the finding is
//!   fixed: set `outcome = "pass"`);
//! * `"crash"`: a crash in a peer (LLVM); the target's replay program, run
//!   as a child process, must die by `signal`, and when the signature
//!   gives an `llvm_mc` command, that command alone must die by
//!   `llvm_mc_signal` too.
//!
//! Inputs of the libLLVM-backed targets need libLLVM-19 (and -14 for
//! LLVM 14 reproducers): without it they are skipped with a printed
//! reason, except in CI, where that fails. `libllvm_disasm` inputs always
//! run in a child process, so that an LLVM crash cannot end this test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use hsaco_fuzz::peer;
use hsaco_fuzz::replay::{inputs_in, repo_root, TARGETS};

/// The replay program of a target (built by Cargo for this test).
fn program(target: &str) -> &'static str {
    match target {
        "oracle_check" => env!("CARGO_BIN_EXE_oracle_check"),
        "smem_roundtrip" => env!("CARGO_BIN_EXE_smem_roundtrip"),
        "gen_check" => env!("CARGO_BIN_EXE_gen_check"),
        "smem_vs_libllvm" => env!("CARGO_BIN_EXE_smem_vs_libllvm"),
        "libllvm_disasm" => env!("CARGO_BIN_EXE_libllvm_disasm"),
        "comgr_metadata" => env!("CARGO_BIN_EXE_comgr_metadata"),
        _ => panic!("unknown target {target}"),
    }
}

/// LLVM versions a target's inputs need loaded.
fn needs_llvm(target: &str) -> bool {
    matches!(target, "smem_vs_libllvm" | "libllvm_disasm")
}

/// The signature file of an input, parsed.
fn signature(input: &Path) -> Option<toml::Table> {
    let mut p = input.as_os_str().to_owned();
    p.push(".toml");
    let text = std::fs::read_to_string(PathBuf::from(p)).ok()?;
    Some(
        text.parse::<toml::Table>()
            .unwrap_or_else(|e| panic!("{}.toml: {e}", input.display())),
    )
}

fn str_field<'a>(sig: &'a toml::Table, key: &str, input: &Path) -> &'a str {
    sig.get(key)
        .and_then(toml::Value::as_str)
        .unwrap_or_else(|| panic!("{}.toml: no string `{key}`", input.display()))
}

fn signal_number(name: &str) -> i32 {
    match name {
        "SIGILL" => 4,
        "SIGABRT" => 6,
        "SIGBUS" => 7,
        "SIGFPE" => 8,
        "SIGSEGV" => 11,
        _ => panic!("unknown signal {name}"),
    }
}

/// Runs `cmd`; returns the signal that killed it (also through `sh`,
/// which reports a killed last pipeline command as 128 + signal).
#[cfg(unix)]
fn died_by(cmd: &mut Command) -> (Option<i32>, String) {
    use std::os::unix::process::ExitStatusExt;
    let out = cmd.output().expect("run child");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let sig = out
        .status
        .signal()
        .or_else(|| out.status.code().filter(|c| *c > 128).map(|c| c - 128));
    (sig, stderr)
}

fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(12)..].join("\n")
}

/// The LLVM versions present, or `None` after a printed skip (a panic in
/// CI) when one `needed` is missing.
fn llvm_ready(needed: u32) -> bool {
    peer::require_llvm(needed).is_some()
}

fn replay_in_process(target: &str, run: fn(&[u8]), input: &Path) -> Result<(), String> {
    let data = std::fs::read(input).expect("read input");
    std::panic::catch_unwind(|| run(&data)).map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| format!("{target}: non-string panic"))
    })
}

fn replay_in_child(target: &str, inputs: &[PathBuf]) -> Result<(), String> {
    let out = Command::new(program(target))
        .args(inputs)
        .output()
        .expect("run replay program");
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} exited with {}:\n{}",
            target,
            out.status,
            tail(&String::from_utf8_lossy(&out.stderr))
        ))
    }
}

#[cfg(unix)]
fn replay_crash(target: &str, input: &Path, sig: &toml::Table) -> Result<(), String> {
    if target == "libllvm_disasm" {
        check_disasm_signature(input, sig)?;
    }
    let want = signal_number(str_field(sig, "signal", input));
    let (got, stderr) = died_by(
        Command::new(program(target))
            .env("HSACO_FUZZ_KNOWN_CRASHES", "run")
            .arg(input),
    );
    if got != Some(want) {
        return Err(format!(
            "{} no longer dies by signal {want} (got {got:?}); if LLVM was fixed, update its signature:\n{}",
            input.display(),
            tail(&stderr)
        ));
    }
    if let Some(cmd) = sig.get("llvm_mc").and_then(toml::Value::as_str) {
        let tool = cmd
            .split_whitespace()
            .find(|w| w.starts_with("llvm-mc"))
            .unwrap_or("llvm-mc");
        if peer_tool(tool) {
            let want = signal_number(str_field(sig, "llvm_mc_signal", input));
            let (got, stderr) = died_by(Command::new("sh").arg("-c").arg(cmd));
            if got != Some(want) {
                return Err(format!(
                    "{}: `{cmd}` no longer dies by signal {want} (got {got:?}):\n{}",
                    input.display(),
                    tail(&stderr)
                ));
            }
        }
    }
    Ok(())
}

/// A `libllvm_disasm` crash signature agrees with its input: the selector
/// byte picks the recorded LLVM version and processor, the instruction is
/// the recorded one, and it matches the known crash of that name (so
/// fuzzing skips it), whose walk stops before it (the replay passes with
/// known crashes skipped).
fn check_disasm_signature(input: &Path, sig: &toml::Table) -> Result<(), String> {
    use hsaco_fuzz::libllvm_disasm::{ends_in_instruction, known_crash, select, PAST_END};
    let data = std::fs::read(input).expect("read input");
    let (&sel, code) = data.split_first().ok_or("empty input")?;
    let (lib, cpu) = select(sel).ok_or("selector names no installed library")?;
    let version = sig.get("llvm_version").and_then(toml::Value::as_integer);
    if version != Some(i64::from(lib.version())) || cpu != str_field(sig, "processor", input) {
        return Err(format!(
            "selector {sel:#04x} now picks LLVM {} {cpu}, the signature says {version:?} {}",
            lib.version(),
            str_field(sig, "processor", input)
        ));
    }
    let hex: Vec<String> = code.iter().map(|b| format!("{b:02x}")).collect();
    if hex.join(" ") != str_field(sig, "instruction", input) {
        return Err(format!(
            "instruction bytes differ from the signature: {}",
            hex.join(" ")
        ));
    }
    let name = str_field(sig, "crash", input);
    let matched = if name == PAST_END.name {
        // The instruction runs past the input's end (decoding it followed
        // by zeros is safe).
        PAST_END.versions.contains(&lib.version())
            && hsaco_fuzz::peer::with_disassembler(lib, cpu, |d| ends_in_instruction(d, code))
                .map_err(|e| e.to_string())?
    } else {
        known_crash(lib.version(), cpu, code).map(|k| k.name) == Some(name)
    };
    if !matched {
        return Err(format!("no known-crash rule `{name}` matches it"));
    }
    replay_in_child("libllvm_disasm", &[input.to_path_buf()])
        .map_err(|e| format!("the walk does not stop before the known crash: {e}"))
}

/// True when `tool` is on PATH; prints a skip (panics in CI) otherwise.
fn peer_tool(tool: &str) -> bool {
    let found = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()));
    if !found {
        let msg = format!("`{tool}` not found on PATH");
        assert!(!peer::in_ci(), "{msg}");
        eprintln!("SKIPPED: {msg}");
    }
    found
}

fn replay_target(target: &str, run: fn(&[u8])) -> Vec<String> {
    let root = repo_root().join("corpus");
    let mut failures = Vec::new();
    let seeds = inputs_in(&root.join("seeds").join(target));
    let regressions = inputs_in(&root.join("regressions").join(target));
    if needs_llvm(target) && !llvm_ready(19) {
        return failures;
    }
    if target == "comgr_metadata" && hsaco_fuzz::comgr_metadata::require_comgr().is_none() {
        return failures;
    }
    // Seeds: every one must pass.
    if target == "libllvm_disasm" {
        if let Err(e) = replay_in_child(target, &seeds) {
            failures.push(format!("seeds: {e}"));
        }
    } else {
        for s in &seeds {
            if let Err(e) = replay_in_process(target, run, s) {
                failures.push(format!("{}: {e}", s.display()));
            }
        }
    }
    // Regressions: as their signatures say.
    for r in &regressions {
        let sig = signature(r);
        let outcome = sig
            .as_ref()
            .and_then(|s| s.get("outcome"))
            .and_then(toml::Value::as_str)
            .unwrap_or("pass");
        if let Some(v) = sig
            .as_ref()
            .and_then(|s| s.get("llvm_version"))
            .and_then(toml::Value::as_integer)
        {
            if !llvm_ready(u32::try_from(v).expect("version")) {
                continue;
            }
        }
        let result = match outcome {
            "pass" if target == "libllvm_disasm" => {
                replay_in_child(target, std::slice::from_ref(r))
            }
            "pass" => replay_in_process(target, run, r),
            "panic" => {
                let sig = sig.as_ref().expect("signature");
                let want = str_field(sig, "panic", r);
                match replay_in_process(target, run, r) {
                    Ok(()) => Err(format!(
                        "open finding {} no longer panics: fixed? set outcome = \"pass\" in its .toml",
                        r.display()
                    )),
                    Err(msg) if msg.contains(want) => Ok(()),
                    Err(msg) => Err(format!("panics differently: {msg}")),
                }
            }
            #[cfg(unix)]
            "crash" => replay_crash(target, r, sig.as_ref().expect("signature")),
            other => Err(format!("unknown outcome `{other}`")),
        };
        if let Err(e) = result {
            failures.push(format!("{}: {e}", r.display()));
        }
    }
    failures
}

#[test]
fn every_seed_and_regression_replays() {
    let mut all: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (target, run) in TARGETS {
        let f = replay_target(target, run);
        if !f.is_empty() {
            all.insert(target, f);
        }
    }
    assert!(all.is_empty(), "replay failures: {all:#?}");
}

#[test]
fn every_target_has_seeds_wired_for_cargo_fuzz() {
    let root = repo_root();
    for (target, _) in TARGETS {
        let seeds = root.join("corpus").join("seeds").join(target);
        assert!(
            inputs_in(&seeds).len() >= 10,
            "{}: fewer than 10 seeds",
            seeds.display()
        );
        // `cargo fuzz run TARGET` reads fuzz/corpus/TARGET.
        let link = root.join("fuzz").join("corpus").join(target);
        let to = std::fs::read_link(&link)
            .unwrap_or_else(|e| panic!("{} is not a symlink: {e}", link.display()));
        assert_eq!(to, Path::new("../../corpus/seeds").join(target));
        assert_eq!(
            std::fs::canonicalize(&link).expect("link resolves"),
            std::fs::canonicalize(&seeds).expect("seeds exist")
        );
        assert!(root
            .join("corpus")
            .join("regressions")
            .join(target)
            .is_dir());
    }
}

#[test]
fn every_cargo_fuzz_target_is_replayed() {
    let manifest = std::fs::read_to_string(repo_root().join("fuzz").join("Cargo.toml"))
        .expect("fuzz/Cargo.toml");
    let t: toml::Table = manifest.parse().expect("manifest parses");
    let bins: Vec<&str> = t["bin"]
        .as_array()
        .expect("[[bin]]")
        .iter()
        .filter_map(|b| b.get("name").and_then(toml::Value::as_str))
        .collect();
    let names: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
    assert_eq!(bins, names);
    for n in names {
        let path = repo_root()
            .join("fuzz")
            .join("fuzz_targets")
            .join(format!("{n}.rs"));
        // DESIGN.md: the targets are 3-10 line wrappers.
        let text = std::fs::read_to_string(&path).expect("target file");
        let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
        assert!(
            (3..=10).contains(&lines),
            "{}: {lines} lines",
            path.display()
        );
    }
}

#[test]
fn dictionaries_parse() {
    let dir = repo_root().join("fuzz").join("dicts");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).expect("fuzz/dicts") {
        let p = e.expect("entry").path();
        let text = std::fs::read_to_string(&p).expect("dict");
        for (k, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            // libFuzzer's format: optional name=, then a quoted string with
            // \\, \" and \xNN escapes only.
            let q = line
                .find('"')
                .unwrap_or_else(|| panic!("{}:{}: no quote", p.display(), k + 1));
            assert!(
                line.ends_with('"') && line.len() > q + 1,
                "{}:{}",
                p.display(),
                k + 1
            );
            let body = &line[q + 1..line.len() - 1];
            let mut chars = body.chars();
            while let Some(c) = chars.next() {
                if c == '\\' {
                    match chars.next() {
                        Some('\\' | '"') => {}
                        Some('x') => {
                            let h: String = chars.by_ref().take(2).collect();
                            assert!(
                                h.len() == 2 && h.chars().all(|c| c.is_ascii_hexdigit()),
                                "{}:{}: bad \\x escape",
                                p.display(),
                                k + 1
                            );
                        }
                        other => panic!("{}:{}: bad escape {other:?}", p.display(), k + 1),
                    }
                } else {
                    assert!(
                        c != '"' && (' '..='~').contains(&c),
                        "{}:{}: {c:?}",
                        p.display(),
                        k + 1
                    );
                }
            }
            n += 1;
        }
    }
    assert!(n >= 100, "only {n} dictionary entries");
}
