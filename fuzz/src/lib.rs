//! The library behind the cargo-fuzz targets: one module per target, each
//! with a `run(&[u8])` that panics on a finding, and the stable-toolchain
//! smoke tests that run a few hundred inputs through it.
//!
//! The targets in `fuzz_targets/` only hand libFuzzer's input to `run`
//! (and install [`alloc::Counting`], so that `oracle_check` can check the
//! oracle's memory bound). Built without libFuzzer (no `--cfg fuzzing`,
//! as on `cargo build`), each target is a replay program instead
//! ([`replay::main`]). See `fuzz/README.md` for running them.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod alloc;
pub mod comgr_metadata;
pub mod gen_check;
pub mod libllvm_disasm;
pub mod oracle_check;
pub mod peer;
pub mod replay;
pub mod smem_roundtrip;
pub mod smem_vs_libllvm;
pub mod smoke;

// The crate's own tests measure memory like the fuzz targets do.
#[cfg(test)]
#[global_allocator]
static ALLOC: alloc::Counting = alloc::Counting;
