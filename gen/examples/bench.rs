//! Generation throughput: valid code objects (model, ELF bytes and
//! assembler text) per second on one core, with the default configuration
//! and with the ELF alone (no assembler text). Rates are per second of the
//! thread's CPU time where Linux reports it (wall time elsewhere).
//!
//! `cargo run --release -p hsaco-gen --example bench [COUNT] [PHASE]
//! [VERSIONS]` (default 100000 objects, every phase, the default mix of
//! code object versions; PHASE `model`, `elf`, `asm` or `all`; VERSIONS
//! e.g. `2` or `3,4,5,6`). The target is at least 50
//! thousand code objects (model and ELF bytes) per second.

use hsaco_gen::arbitrary::Unstructured;
use hsaco_gen::{emit, Config, Generator};
use std::time::Instant;

/// Fills `buf` with `seed`'s stream in the seed domain `bench`.
fn fill(buf: &mut [u8], seed: u64) {
    hsaco_gen::seed::fill(seed, "bench", 0, buf);
}

/// This thread's CPU time in seconds (Linux `/proc/thread-self/schedstat`),
/// so that other processes on a busy machine do not skew the rate.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// Times `f`: this thread's CPU seconds where Linux reports them, else
/// wall seconds.
fn timed(f: impl FnOnce()) -> f64 {
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    f();
    let w = wall.elapsed().as_secs_f64();
    match (cpu, cpu_seconds()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => w,
    }
}

/// Size of the pool of input bytes.
const POOL: usize = 64 << 20;

/// Case `i`'s 4096 input bytes.
fn window(pool: &[u8], i: u64) -> &[u8] {
    let at = (i as usize).wrapping_mul(4099) % (pool.len() - 4096);
    &pool[at..at + 4096]
}

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let phase = std::env::args().nth(2);
    let runs = |p: &str| phase.as_deref().is_none_or(|q| q == p || q == "all");
    // Optional third argument: code object versions, e.g. `2` or `3,4,5,6`.
    let mut cfg = Config::default();
    if let Some(v) = std::env::args().nth(3) {
        cfg.set("code_object_versions", &v)
            .unwrap_or_else(|e| panic!("versions {v}: {e}"));
    }
    let gen = Generator::new(&cfg);
    // The input bytes are made before timing (as in smem_bench): the
    // rate is the generators', not the random stream's. Case I reads the
    // 4096 bytes at I * 4099 (mod the pool), so every case differs.
    let mut pool = vec![0u8; POOL];
    fill(&mut pool, 1);

    if runs("model") {
        model(&gen, count, &pool);
    }
    if runs("elf") {
        elf(&gen, count, &pool);
    }
    if runs("asm") {
        asm(&gen, count, &pool);
    }
}

/// The model alone: targets, descriptors, metadata, streams.
fn model(gen: &Generator<'_>, count: u64, pool: &[u8]) {
    let mut kernels = 0usize;
    let t = timed(|| {
        for seed in 0..count {
            let mut u = Unstructured::new(window(pool, seed));
            if let Ok(co) = gen.code_object(&mut u) {
                kernels += co.kernels.len();
            }
        }
    });
    println!(
        "model only:      {count} code objects ({kernels} kernels) in {t:.2} s CPU: {:.0} objects/s",
        count as f64 / t
    );
}

/// The model and its ELF bytes: the code objects/s of the target.
fn elf(gen: &Generator<'_>, count: u64, pool: &[u8]) {
    let mut bytes = 0usize;
    let t = timed(|| {
        for seed in 0..count {
            let mut u = Unstructured::new(window(pool, seed));
            let Ok(co) = gen.code_object(&mut u) else {
                continue;
            };
            bytes += emit::elf_bytes(&co).len();
        }
    });
    println!(
        "ELF only:        {count} code objects in {t:.2} s CPU: {:.0} objects/s, {:.1} MB/s",
        count as f64 / t,
        bytes as f64 / t / 1e6
    );
}

/// Whole cases: model, ELF bytes and assembler text.
fn asm(gen: &Generator<'_>, count: u64, pool: &[u8]) {
    let t = timed(|| {
        for seed in 0..count {
            let mut u = Unstructured::new(window(pool, seed));
            let _ = gen.valid_case(&mut u, String::new());
        }
    });
    println!(
        "ELF + assembler: {count} cases in {t:.2} s CPU: {:.0} cases/s",
        count as f64 / t
    );
}
