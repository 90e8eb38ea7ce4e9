//! SMEM stream generation throughput: SMEM instructions generated per
//! second on one core, drawing streams of `LEN` instructions from a long
//! buffer of seeded bytes (the words encoded, waits placed; the text is
//! built only on demand and is not part of the count).
//!
//! Rates are per second of the thread's CPU time where Linux reports it
//! (wall time elsewhere).
//!
//! `cargo run --release -p hsaco-gen --example smem_bench [MIB] [LEN]`
//! (default 64 MiB of bytes per family, streams of 100000 instructions).
//! The target is at least 20 million instructions per second.

use hsaco_gen::arbitrary::Unstructured;
use hsaco_gen::smem;
use hsaco_gen::Config;
use hsaco_oracle::targets::by_name;
use std::time::Instant;

/// This thread's CPU time in seconds (Linux `/proc/thread-self/schedstat`),
/// so that other processes on a busy machine do not skew the rate; `None`
/// elsewhere.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// Fills `buf` with `seed`'s stream in the seed domain `bench`.
fn fill(buf: &mut [u8], seed: u64) {
    hsaco_gen::seed::fill(seed, "bench", 0, buf);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mib: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(64);
    let len: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let cfg = Config {
        smem_min_len: len,
        smem_max_len: len,
        ..Config::default()
    };
    let mut buf = vec![0u8; mib << 20];
    let (mut all_insns, mut all_time) = (0usize, 0f64);
    for (k, name) in [
        "gfx803", "gfx900", "gfx90a", "gfx1010", "gfx1030", "gfx1100", "gfx1200",
    ]
    .iter()
    .enumerate()
    {
        let Some(t) = by_name(name) else { continue };
        fill(&mut buf, k as u64);
        let mut u = Unstructured::new(&buf);
        let (mut insns, mut waits, mut streams) = (0usize, 0usize, 0usize);
        let start = Instant::now();
        let cpu0 = cpu_seconds();
        // Stop while bytes remain: an exhausted Unstructured draws only
        // zeros, which would measure a degenerate stream.
        while u.len() > 4096 {
            let Ok(s) = smem::arbitrary_stream(&mut u, &cfg, t) else {
                break;
            };
            insns += s.smem_count;
            waits += s.steps.len() - s.smem_count;
            streams += 1;
        }
        let wall = start.elapsed().as_secs_f64();
        // CPU time when available (the rate of one core), else wall time.
        let secs = match (cpu0, cpu_seconds()) {
            (Some(a), Some(b)) if b > a => b - a,
            _ => wall,
        };
        println!(
            "{name:8} {insns:>10} SMEM instructions (+{waits} waits, {streams} streams) in {secs:.3} s CPU ({wall:.3} s wall): {:.1} million/s, {:.1} bytes of input each",
            insns as f64 / secs / 1e6,
            (buf.len() - u.len()) as f64 / insns.max(1) as f64
        );
        all_insns += insns;
        all_time += secs;
    }
    println!(
        "all      {all_insns:>10} SMEM instructions in {all_time:.3} s CPU: {:.1} million/s",
        all_insns as f64 / all_time / 1e6
    );
}
