//! Compares the instruction layer's decode with libLLVM's on random words
//! of the modelled families and prints the differences no divergence
//! explains, grouped. libLLVM runs in worker processes (the
//! `hsaco-conform` binary built next to this example), which survive its
//! crashes. A development aid; `tests/isa_libllvm.rs` is the test.
//!
//! usage: cargo run --release --example isa_diff -- [--llvm 22] [--cpu gfx900] [--count N] [--seed S]

use hsaco_conform::conform::allowlist::Allowlist;
use hsaco_conform::isa_diff::{diff_words, libllvm_worker, row_words, Tally};
use hsaco_conform::peers::llvm_disasm;
use hsaco_gen::isa::Words;
use hsaco_oracle::isa::IsaGen;
use hsaco_oracle::targets;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let version: u32 = opt("--llvm").and_then(|v| v.parse().ok()).unwrap_or(22);
    let count: usize = opt("--count")
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let seed: u64 = opt("--seed").and_then(|v| v.parse().ok()).unwrap_or(1);
    let only_cpu = opt("--cpu");
    let info = llvm_disasm::find(version).unwrap_or_else(|e| panic!("{e}"));
    let program = std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.parent()?.join("hsaco-conform")))
        .filter(|p| p.is_file())
        .expect("the hsaco-conform binary next to this example (cargo build --release)");
    let mut worker = libllvm_worker(program, &info, std::env::temp_dir());
    let allowlist = Allowlist::builtin();
    let mut all = Tally::default();
    for t in
        targets::all_targets().filter(|t| IsaGen::of(t).is_some() && t.known_to_llvm(version as u8))
    {
        if only_cpu.as_deref().is_some_and(|c| c != t.name) {
            continue;
        }
        let mut words = row_words(t);
        words.extend(Words::new(t, seed).into_iter().flatten().take(count));
        let tally = diff_words(&mut worker, &allowlist, t, version, &words);
        println!(
            "{} LLVM {version}: {} words: {} agree, {} known {:?}, {} different, {} crashed LLVM",
            t.name,
            tally.compared,
            tally.agree,
            tally.known_count(),
            tally.known,
            tally.different_count(),
            tally.crashed.len()
        );
        for c in &tally.crashed {
            let known = c.known.as_ref().map_or("NEW".to_owned(), |k| k.join("+"));
            println!("  LLVM {}: {:#018x} ({known})", c.status, c.word);
        }
        let mut groups: Vec<_> = tally.different.iter().collect();
        groups.sort_by_key(|g| std::cmp::Reverse(g.1.count));
        for (k, g) in groups.iter().take(12) {
            println!("  {:7} {k}\n          {}", g.count, g.example);
        }
        all.merge(tally);
    }
    println!(
        "total LLVM {version}: {} words, {} agree, {} known, {} different, {} crashed",
        all.compared,
        all.agree,
        all.known_count(),
        all.different_count(),
        all.crashed.len()
    );
}
