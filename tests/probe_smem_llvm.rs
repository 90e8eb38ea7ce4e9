//! SMEM probe kernels (`hsaco_gen::probe::smem`) against the real
//! toolchain and the oracle's executor, for a sample of constrained
//! streams on one processor of every SMEM family:
//!
//! - their assembler text, assembled by llvm-mc-19 and llvm-mc-22 and
//!   linked by ld.lld-19 and ld.lld-22, loads exactly as what `gen` wrote
//!   (program headers and allocated sections byte for byte);
//!   llvm-objdump-19 and -22 decode their descriptors as the oracle does;
//!   the oracle finds them clean; the patch sites hold the placeholders;
//! - the executor predicts every register and data byte of every sampled
//!   probe, a dump built from the prediction compares equal, and changing
//!   any one dword of it is reported as exactly that one difference.
//!
//! The sample is [`PER_TARGET`] probes per processor with the default
//! harness (indices 0.. of seed 0 in each processor's `probe-smem.TARGET`
//! domain) and [`LARGE`] with the largest (seed 1: every SGPR, two capture
//! rows, 16 to 64 instructions); `HSACO_SMEM_PROBES=N` checks N default
//! ones per processor instead.

mod support;

use hsaco_gen::probe::smem::{self, SmemProbe};
use hsaco_gen::smem::Harness;
use hsaco_oracle::probe::smem::{Field, SmemDump};
use hsaco_oracle::targets::{self, Generation, Target};
use support::probe::{problems, toolchains, Probe};

/// One processor per SMEM family (gfx1010 for GFX10.1's stores and
/// atomics besides the brief's six).
const TARGETS: [&str; 7] = [
    "gfx803", "gfx900", "gfx90a", "gfx1010", "gfx1030", "gfx1100", "gfx1200",
];

/// Probes per processor.
const PER_TARGET: u64 = 4;

/// The buffer address the predictions assume: 256-byte aligned, above
/// 4 GiB so that the high halves of base addresses matter.
const OUTPUT: u64 = 0x0000_7f3a_5c00_1200;

fn per_target() -> u64 {
    std::env::var("HSACO_SMEM_PROBES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(PER_TARGET)
}

fn target(name: &str) -> &'static Target {
    targets::by_name(name).expect("a known processor")
}

/// Probes per processor with the largest harness.
const LARGE: u64 = 2;

/// The largest harness on `t`: every SGPR below the probe's own (two
/// capture rows), larger regions, longer streams.
fn large(t: &Target) -> Harness {
    let rdna = t.generation >= Generation::Gfx10;
    Harness {
        sgprs: if rdna { 100 } else { 96 },
        cached_bytes: 1024,
        atomic_bytes: 512,
        min_len: 16,
        max_len: 64,
        ..Harness::for_target(t)
    }
}

/// The sampled probes of every processor: [`per_target`] with the
/// default harness (seed 0), [`LARGE`] with [`large`] (seed 1).
fn probes() -> Vec<SmemProbe> {
    let n = per_target();
    TARGETS
        .iter()
        .flat_map(|name| {
            let t = target(name);
            let default = (0..n).map(move |i| smem::seeded_smem_probe(t, 0, i));
            let big = (0..LARGE).map(move |i| smem::seeded_smem_probe_with(t, &large(t), 1, i));
            default.chain(big).map(|p| p.expect("an SMEM processor"))
        })
        .collect()
}

#[test]
fn smem_probes_rebuild_to_the_same_bytes_and_are_clean() {
    let Some(tcs) = toolchains() else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let probes = probes();
    assert_eq!(
        probes.len() as u64,
        TARGETS.len() as u64 * (per_target() + LARGE)
    );
    let bad: Vec<String> = probes
        .iter()
        .flat_map(|p| {
            let probe = Probe {
                name: &p.plan.case,
                object: &p.object,
                elf: &p.elf,
                asm: &p.asm,
                kernel: &p.plan.kernel,
                target: &p.plan.target,
                patch_offsets: p.plan.patch_offsets,
            };
            problems(&tcs, &probe, dir.path())
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} problems:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn smem_probe_predictions_are_full_and_one_dword_changes_show() {
    let mut instructions = 0;
    for p in probes() {
        let name = &p.plan.case;
        let layout = p.plan.layout;
        // The stream is in the code, after the prologue, as its words.
        let code: Vec<u32> = p.object.kernels[0].code.clone();
        let words = &p.constrained.stream.words;
        assert!(
            code.windows(words.len().max(1)).any(|w| w == &words[..]),
            "{name}: the stream's words are not in the code"
        );
        instructions += p.constrained.stream.smem_count;
        let pred = p.predict(OUTPUT);
        assert!(
            pred.is_full(),
            "{name}: prediction not full: unknown {:#x}, {:?}",
            pred.unknown_sgprs,
            pred.problems
        );
        assert_eq!(pred.dump.sgprs.len(), usize::from(layout.captured_sgprs));
        assert_eq!(pred.dump.data.len() as u64, layout.data_bytes());
        let bytes = pred.dump.to_bytes(&layout);
        assert_eq!(bytes.len() as u64, p.plan.output_bytes);
        let got = SmemDump::parse(&bytes, &layout).expect("a dump");
        assert_eq!(pred.compare(&got), vec![], "{name}");
        // One dword changed anywhere: m0, each register, each data dword.
        let mut fields = vec![Field::M0];
        fields.extend((0..layout.captured_sgprs).map(Field::Sgpr));
        fields.extend((0..layout.data_bytes()).step_by(4).map(Field::Data));
        for f in fields {
            let mut bad = got.clone();
            match f {
                Field::M0 => bad.m0 ^= 0x100,
                Field::Sgpr(r) => bad.sgprs[usize::from(r)] ^= 0x8000_0000,
                Field::Data(at) => bad.data[at as usize + 1] ^= 0x01,
            }
            let d = pred.compare(&bad);
            assert_eq!(d.len(), 1, "{name}: {f:?} changed: {d:?}");
            assert_eq!(d[0].field, f, "{name}");
        }
    }
    // The sample is not trivially empty.
    assert!(instructions as u64 >= TARGETS.len() as u64 * per_target() * 4);
}
