//! The instruction layer against LLVM's disassembler: libLLVM 22 and 19,
//! each in crash-isolated worker processes (the `hsaco-conform worker`
//! that `conform` uses), on every processor the layer decodes and the
//! library knows.
//!
//! For each processor: one word per opcode row (registers in every
//! field, a literal after it), then random words of every modelled
//! family from the seed scheme (`hsaco_gen::isa::Words`: biased towards
//! literal codes, special registers and literal values LLVM prints
//! specially). Every word must agree (same verdict; for valid words the
//! same length and text) or be printed exactly as a named divergence of
//! `src/isa_diff.rs` predicts; every LLVM crash must be a known one of
//! `corpus/allowlist.toml`. The counts per divergence are printed.

mod support;

use std::collections::BTreeMap;

use hsaco_conform::conform::allowlist::Allowlist;
use hsaco_conform::isa_diff::{diff_words, libllvm_worker, row_words, Tally};
use hsaco_conform::peers::llvm_disasm;
use hsaco_gen::isa::Words;
use hsaco_oracle::isa::{Decoder, IsaGen};
use hsaco_oracle::targets;

/// Random words per processor and LLVM version.
const RANDOM_WORDS: usize = 20_000;

/// The seed of the random words (any seed must pass; this one is fixed
/// so that a failure reproduces).
const SEED: u64 = 24;

fn run(version: u32) {
    let info = match llvm_disasm::find(version) {
        Ok(i) => i,
        Err(e) if support::in_ci() => panic!("{e}"),
        Err(e) => {
            eprintln!("SKIPPED: {e}");
            return;
        }
    };
    let scratch = tempfile::tempdir().expect("scratch");
    let mut worker = libllvm_worker(
        env!("CARGO_BIN_EXE_hsaco-conform").into(),
        &info,
        scratch.path().to_owned(),
    );
    let allowlist = Allowlist::builtin();
    let mut all = Tally::default();
    let mut rows = 0usize;
    let mut procs = 0usize;
    for t in
        targets::all_targets().filter(|t| IsaGen::of(t).is_some() && t.known_to_llvm(version as u8))
    {
        let mut words = row_words(t);
        rows += words.len();
        words.extend(Words::new(t, SEED).into_iter().flatten().take(RANDOM_WORDS));
        let tally = diff_words(&mut worker, &allowlist, t, version, &words);
        assert_eq!(
            tally.compared + tally.crashed.len() as u64,
            words.len() as u64,
            "{}: every word compared or crashed",
            t.name
        );
        all.merge(tally);
        procs += 1;
    }
    assert!(procs >= 30, "LLVM {version} decodes {procs} processors");
    let new: Vec<String> = all
        .crashed
        .iter()
        .filter(|c| c.known.is_none())
        .map(|c| format!("{:#018x} ({})", c.word, c.status))
        .collect();
    let mut groups: Vec<String> = all
        .different
        .iter()
        .map(|(k, g)| format!("{:6} {k}\n         {}", g.count, g.example))
        .collect();
    groups.sort();
    println!(
        "LLVM {version}: {procs} processors, {rows} row words, {} words compared: {} agree, {} as divergences predict {:?}, {} crashed LLVM (all known)",
        all.compared,
        all.agree,
        all.known_count(),
        all.known,
        all.crashed.len()
    );
    assert!(
        new.is_empty(),
        "LLVM {version} crashed on new words: {new:?}"
    );
    assert!(
        groups.is_empty(),
        "LLVM {version}: {} words differ with no divergence to explain them:\n{}",
        all.different_count(),
        groups.join("\n")
    );
}

#[test]
fn every_row_and_random_words_agree_with_libllvm_22() {
    run(22);
}

#[test]
fn every_row_and_random_words_agree_with_libllvm_19() {
    run(19);
}

/// Every processor LLVM 22 knows from GFX8 on is decoded by the layer,
/// and each has rows in every scalar family (a harvest that lost a
/// processor or a family would pass the differential vacuously).
#[test]
fn the_layer_decodes_every_gfx8_plus_processor() {
    let mut per_family: BTreeMap<&str, usize> = BTreeMap::new();
    for t in targets::all_targets()
        .filter(|t| t.generation >= targets::Generation::Gfx8 && t.known_to_llvm(22))
    {
        let d = Decoder::for_target(t).unwrap_or_else(|| panic!("{} is not decoded", t.name));
        for fam in hsaco_oracle::isa::Family::ALL {
            let n = (0..256u16).filter(|&op| d.row(fam, op).is_some()).count();
            assert!(n > 0, "{}: no {} rows", t.name, fam.name());
            *per_family.entry(fam.name()).or_default() += n;
        }
    }
    assert_eq!(per_family.len(), hsaco_oracle::isa::Family::ALL.len());
}
