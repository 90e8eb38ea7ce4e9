//! Code object V2 cases against the oracle: with a V2-only configuration,
//! every generated object over thousands of seeds (every processor LLVM 14
//! writes V2 for, one to several kernels) is free of errors, warnings and
//! infos, and the oracle decodes from it exactly what the generator
//! modelled: each kernel's `amd_kernel_code_t` byte for byte, its initial
//! register state, the YAML metadata and the "AMD" notes; and the
//! code-level check finds every kernel's code (SMEM streams included)
//! clean.

use arbitrary::{Arbitrary, Unstructured};
use hsaco_gen::emit::v2::Image;
use hsaco_gen::{v2, valid_case, Case, Config, Rebuild};
use hsaco_oracle::check::{check_object, V2NoteSummary};
use hsaco_oracle::smem::code::check_code;
use hsaco_oracle::targets::{CodeObjectVersion, FeatureSetting};
use std::collections::BTreeSet;

mod common;
use common::seed_bytes;

/// Only code object V2, every processor, up to 6 kernels.
fn v2_config() -> Config {
    Config {
        code_object_versions: vec![2],
        max_kernels: 6,
        ..Config::default()
    }
}

fn case(cfg: &Config, seed: u64) -> Case {
    let bytes = seed_bytes(seed, 8192);
    let mut u = Unstructured::new(&bytes);
    let mut c = valid_case(&mut u, cfg, format!("v2-{seed}")).expect("V2 configs generate");
    c.seed = Some(seed);
    c
}

/// Asserts that the oracle finds `c` clean and decodes the model from it.
fn assert_clean_v2(c: &Case) {
    let co = &c.object;
    assert_eq!(co.target.cov, CodeObjectVersion::V2, "{}", c.id);
    let r = check_object(&c.elf);
    let found: Vec<String> = r
        .violations
        .iter()
        .map(|v| format!("{} [{}] {}", v.rule.id, v.severity, v.message))
        .collect();
    assert!(
        found.is_empty(),
        "case {} ({} V2): oracle found {found:#?}\nassembler text:\n{}",
        c.id,
        c.target,
        c.asm
    );
    let code = check_code(&c.elf);
    let ids: Vec<&str> = code.rules.iter().map(|r| r.id).collect();
    assert!(
        code.is_clean(),
        "case {}: code-level check found {ids:?}",
        c.id
    );
    if code.kernels > 0 {
        assert_eq!(code.kernels, co.kernels.len(), "case {}", c.id);
    }
    assert_eq!(r.code_object_version, Some(2));
    assert_eq!(r.target.as_deref(), Some(c.target.as_str()));
    assert_eq!(r.elf_type.as_deref(), Some("ET_DYN"));
    assert_eq!(
        r.metadata_v2,
        Some(v2::to_oracle(co)),
        "case {}: decoded V2 metadata differs from the model",
        c.id
    );
    let tc = &co.target;
    let [a, b, s] = v2::isa_version(tc);
    assert_eq!(
        r.v2_notes,
        Some(V2NoteSummary {
            code_object_version: Some([2, 1]),
            isa_version: Some([a, b, s]),
            isa_string: Some(format!("AMD:AMDGPU:{a}:{b}:{s}")),
            isa_name: Some(v2::isa_name(tc)),
            hsail: false,
            pal_metadata_pairs: None,
        })
    );
    let t = tc.target();
    assert_eq!(r.kernels.len(), co.kernels.len());
    for (k, kr) in co.kernels.iter().zip(&r.kernels) {
        assert_eq!(kr.name, k.name);
        assert_eq!(
            kr.kernel_code.as_deref(),
            Some(&v2::kernel_code(tc, k)),
            "case {} kernel {}",
            c.id,
            k.name
        );
        assert_eq!(
            kr.initial_state.as_ref(),
            Some(&k.descriptor.enables.layout(t)),
            "case {} kernel {}",
            c.id,
            k.name
        );
    }
}

/// How many seeds: `HSACO_V2_SEEDS`, else 4000 (debug) or 20000 (release).
fn seeds() -> u64 {
    std::env::var("HSACO_V2_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 4000 } else { 20000 })
}

#[test]
fn v2_seed_sweep_is_clean_and_modelled() {
    let cfg = v2_config();
    let mut procs = BTreeSet::new();
    let mut kernel_counts = BTreeSet::new();
    let mut xnack = BTreeSet::new();
    for seed in 0..seeds() {
        let c = case(&cfg, seed);
        assert_clean_v2(&c);
        assert_eq!(c.rebuild, Rebuild::Llvm14, "{}", c.id);
        procs.insert(c.object.target.target().name);
        kernel_counts.insert(c.object.kernels.len());
        xnack.insert((
            c.object.target.target().name,
            c.object.target.id.xnack == FeatureSetting::On,
        ));
    }
    let all: BTreeSet<&str> = v2::LLVM14_V2_TARGETS.iter().copied().collect();
    assert_eq!(procs, all, "every V2 processor generated");
    assert_eq!(kernel_counts, (1..=6).collect::<BTreeSet<usize>>());
    for n in ["gfx900", "gfx902", "gfx904", "gfx906"] {
        let t = hsaco_oracle::targets::by_name(n).expect("known");
        for x in v2::xnack_settings(t) {
            assert!(xnack.contains(&(n, *x == FeatureSetting::On)), "{n} {x:?}");
        }
    }
}

#[test]
fn v2_swarm_cases_are_clean() {
    for seed in 0..seeds() / 4 {
        let bytes = seed_bytes(seed ^ 0x5a5a, 8192);
        let mut u = Unstructured::new(&bytes);
        let mut cfg = Config::arbitrary(&mut u).expect("configs draw");
        cfg.code_object_versions = vec![2];
        if hsaco_gen::target::allowed_pairs(&cfg).is_empty() {
            cfg.targets = v2::LLVM14_V2_TARGETS
                .iter()
                .map(|s| (*s).to_owned())
                .collect();
        }
        let c = valid_case(&mut u, &cfg, format!("v2-swarm-{seed}")).expect("generates");
        assert_clean_v2(&c);
    }
}

/// The V2 cases the default configuration draws are clean too (V2 is one
/// of its versions).
#[test]
fn default_config_draws_v2() {
    let cfg = Config::default();
    let mut n = 0;
    for seed in 0..2000 {
        let c = case(&cfg, seed);
        if c.object.target.cov == CodeObjectVersion::V2 {
            assert_clean_v2(&c);
            n += 1;
        }
    }
    assert!(n > 50, "only {n} V2 cases in 2000 default seeds");
}

#[test]
fn image_round_trips_the_writer() {
    // The image of a case writes the case's bytes, and the layout puts
    // every amd_kernel_code_t 256-byte aligned with its code right after.
    let cfg = v2_config();
    for seed in 0..50 {
        let c = case(&cfg, seed);
        let img = Image::from_object(&c.object);
        assert_eq!(img.write(), c.elf);
        let (offs, end) = img.text_layout();
        for (i, (start, code)) in offs.iter().enumerate() {
            assert_eq!(start % 256, 0);
            assert_eq!(*code, start + 256);
            assert!(code + 4 * c.object.kernels[i].code.len() as u64 <= end);
        }
    }
}

#[test]
fn v2_cases_are_deterministic() {
    let cfg = v2_config();
    for seed in [0u64, 7, 99, 12345] {
        let a = case(&cfg, seed);
        let b = case(&cfg, seed);
        assert_eq!(a.elf, b.elf);
        assert_eq!(a.asm, b.asm);
        assert_eq!(a.object, b.object);
    }
}
