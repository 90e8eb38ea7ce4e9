//! Deterministic inputs for the stable-toolchain smoke tests (and for
//! making seed corpora): the same bytes on every machine.

use hsaco_gen::arbitrary::{Arbitrary, Unstructured};
use hsaco_gen::{Case, Config};

/// `len` bytes of `seed`'s stream in the seed domain `fuzz-smoke`
/// (`hsaco_gen::seed`).
pub fn bytes(seed: u64, len: usize) -> Vec<u8> {
    hsaco_gen::seed::bytes(seed, "fuzz-smoke", 0, len)
}

/// `n` inputs of lengths spread over `0..=max_len` (short ones first, as
/// libFuzzer grows them).
pub fn inputs(seed: u64, n: usize, max_len: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|k| {
            let len = (k * k) % (max_len + 1);
            bytes(seed ^ (k as u64).wrapping_mul(0x2545_f491_4f6c_dd1d), len)
        })
        .collect()
}

/// `n` valid generated cases (seeds 0, 1, ...; odd seeds use a swarm
/// configuration), skipping seeds whose configuration generates nothing.
pub fn generated_cases(n: usize) -> Vec<Case> {
    (0u64..)
        .take(n * 4)
        .filter_map(|seed| {
            let b = bytes(seed, 4096);
            let mut u = Unstructured::new(&b);
            let cfg = if seed % 2 == 0 {
                Config::default()
            } else {
                Config::arbitrary(&mut u).ok()?
            };
            hsaco_gen::valid_case(&mut u, &cfg, format!("seed-{seed}")).ok()
        })
        .take(n)
        .collect()
}
