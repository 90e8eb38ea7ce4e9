//! Replaying inputs without libFuzzer: the `main` of every target on a
//! stable build, and the corpus layout the tests walk.
//!
//! `cargo run -p hsaco-fuzz --bin TARGET -- PATH...` runs each file (or
//! every file under each directory) through the target's `run`, naming
//! each on standard error first, so that a crash is attributable.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A target's `run`: panics on a finding.
pub type Run = fn(&[u8]);

/// Every target: its name and its `run`.
pub const TARGETS: [(&str, Run); 6] = [
    ("oracle_check", crate::oracle_check::run),
    ("smem_roundtrip", crate::smem_roundtrip::run),
    ("gen_check", crate::gen_check::run),
    ("smem_vs_libllvm", crate::smem_vs_libllvm::run),
    ("libllvm_disasm", crate::libllvm_disasm::run),
    ("comgr_metadata", crate::comgr_metadata::run),
];

/// The repository root (the workspace this crate belongs to).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// True for files in corpus directories that are not inputs: dot files,
/// signature and note files (`.toml`, `.md`, `.txt`), and the
/// SHA-1-named units libFuzzer adds to `corpus/seeds/` while fuzzing
/// (kept out of git by `corpus/seeds/.gitignore`, and not replayed: they
/// are local fuzzing state, not part of the repository's corpus).
pub fn is_not_input(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.starts_with('.')
        || [".toml", ".md", ".txt"].iter().any(|e| name.ends_with(e))
        || (name.len() == 40 && name.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The input files under `dir` (recursively), sorted; none when it does
/// not exist.
pub fn inputs_in(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if !is_not_input(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The `main` of a target built without libFuzzer: replays the files and
/// directories given as arguments.
pub fn main(target: &str, run: Run) -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if args.is_empty() {
        eprintln!(
            "usage: {target} PATH...\n\
             Replays files (or every file under directories) through the `{target}` fuzz target.\n\
             To fuzz, run `cargo fuzz run {target}` from the repository root (see fuzz/README.md)."
        );
        return ExitCode::from(2);
    }
    for a in &args {
        let files = if a.is_dir() {
            inputs_in(a)
        } else {
            vec![a.clone()]
        };
        for f in files {
            let data = match std::fs::read(&f) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("{target}: cannot read {}: {e}", f.display());
                    return ExitCode::from(2);
                }
            };
            eprintln!("{target}: replaying {} ({} bytes)", f.display(), data.len());
            run(&data);
        }
    }
    ExitCode::SUCCESS
}
