//! The opcode rows, family by family. Each file is data: written by
//! `cargo run --release --example isa_rows` from what libLLVM 22 (and 19,
//! for the names it prints otherwise and the processors only it knows)
//! decodes, then checked against both by `tests/isa_libllvm.rs`.

use super::table::Row;

// Generated one row per line; formatting would only make diffs long.
#[rustfmt::skip]
mod scalar;

/// Every family's rows.
pub static ALL: &[&[Row]] = &[scalar::ROWS];
