//! Shared helpers for the integration tests: finding the real LLVM tools.
//!
//! Tests that need an external tool call [`require_tool`]. Outside CI a
//! missing tool makes the test skip with a printed reason; in CI (the `CI`
//! environment variable is set, as `.ci/run` does) it fails the test, so a
//! broken install can never turn into a silently green run.

#![allow(dead_code)]

use std::path::PathBuf;

pub mod ccob;
pub mod elfedit;
pub mod fixtures;
pub mod llc;
pub mod mc;
pub mod objdump;
pub mod probe;
pub mod rebuild;

/// clang's arguments for an OpenCL 2.0 source compiled for AMDHSA without
/// device libraries, as every test that builds real kernels compiles them
/// (add `-mcpu`, the code object version, `-c` and files).
pub const CLANG_OPENCL: &[&str] = &[
    "-x",
    "cl",
    "-cl-std=CL2.0",
    "-target",
    "amdgcn-amd-amdhsa",
    "-nogpulib",
    "-O2",
];

/// True when running under `.ci/run` (peers are required there).
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// Finds `name` on `PATH`. Returns `None` (after printing why) when it is
/// missing outside CI; panics when it is missing in CI.
pub fn require_tool(name: &str) -> Option<PathBuf> {
    if let Some(p) = which(name) {
        return Some(p);
    }
    let msg = format!(
        "required tool `{name}` not found on PATH (install the Debian packages listed in .ci/run)"
    );
    if in_ci() {
        panic!("{msg}");
    }
    eprintln!("SKIPPED: {msg}");
    None
}

/// Finds an executable on `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}
