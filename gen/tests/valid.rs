//! Valid cases against the oracle: every generated object is free of
//! errors and warnings, its metadata and initial register state decode to
//! what the generator modelled, generation is deterministic, and the
//! generator reaches every feature it claims to cover.

use arbitrary::{Arbitrary, Unstructured};
use hsaco_gen::target::Family;
use hsaco_gen::{sgpr, valid_case, Case, Config, Rebuild};
use hsaco_oracle::check::{check_object, ObjectReport};
use hsaco_oracle::metadata::ValueKind;
use hsaco_oracle::smem::code::{check_code, code_steps};
use hsaco_oracle::smem::SmemGen;
use hsaco_oracle::Severity;
use proptest::prelude::*;
use std::collections::BTreeSet;

mod common;
use common::seed_bytes;

fn case_for_seed(cfg: &Config, seed: u64) -> Case {
    let bytes = seed_bytes(seed, 4096);
    let mut u = Unstructured::new(&bytes);
    let mut c =
        valid_case(&mut u, cfg, format!("seed-{seed}")).expect("the default config generates");
    c.seed = Some(seed);
    c
}

/// Infos the oracle may report on a valid case: only those LLVM's own
/// output has (the GFX11 user SGPR padding clang-19 writes).
fn allowed_info(case: &Case, rule: &str) -> bool {
    let t = case.object.target.target();
    rule == "sgpr.user_sgpr_count.extra"
        && t.user_sgpr_init16_bug
        && case
            .object
            .kernels
            .iter()
            .any(|k| k.descriptor.enables.is_wave32(t))
}

/// Asserts the oracle's verdict and typed view of `case`.
fn assert_clean(case: &Case) -> ObjectReport {
    let report = check_object(&case.elf);
    let bad: Vec<String> = report
        .violations
        .iter()
        .filter(|v| v.severity != Severity::Info || !allowed_info(case, v.rule.id))
        .map(|v| format!("{} [{}] {}", v.rule.id, v.severity, v.message))
        .collect();
    assert!(
        bad.is_empty(),
        "case {} ({} V{}): oracle found {bad:#?}\nassembler text:\n{}",
        case.id,
        case.target,
        case.code_object_version,
        case.asm
    );
    assert_code_clean(case);
    assert_eq!(report.target.as_deref(), Some(case.target.as_str()));
    assert_eq!(report.code_object_version, Some(case.code_object_version));
    assert_eq!(report.elf_type.as_deref(), Some("ET_DYN"));
    if case.object.target.cov == hsaco_oracle::targets::CodeObjectVersion::V2 {
        assert_eq!(
            report.metadata_v2,
            Some(hsaco_gen::v2::to_oracle(&case.object)),
            "case {}: decoded V2 metadata differs from the model",
            case.id
        );
    } else {
        assert_eq!(
            report.metadata,
            Some(case.object.metadata().to_oracle()),
            "case {}: decoded metadata differs from the model",
            case.id
        );
    }
    let t = case.object.target.target();
    assert_eq!(report.kernels.len(), case.object.kernels.len());
    for (k, r) in case.object.kernels.iter().zip(&report.kernels) {
        assert_eq!(r.name, k.name);
        assert_eq!(
            r.initial_state.as_ref(),
            Some(&k.descriptor.enables.layout(t)),
            "case {} kernel {}",
            case.id,
            k.name
        );
    }
    report
}

/// Asserts the code-level check's view of `case`: nothing broken, and
/// (on processors with an SMEM family) every kernel's code read from the
/// ELF, holding the SMEM words of the model's code.
fn assert_code_clean(case: &Case) {
    let code = check_code(&case.elf);
    let ids: Vec<&str> = code.rules.iter().map(|r| r.id).collect();
    assert!(
        code.is_clean(),
        "case {} ({} V{}): code-level check found {ids:?}\nassembler text:\n{}",
        case.id,
        case.target,
        case.code_object_version,
        case.asm
    );
    let Some(gen) = SmemGen::for_target(case.object.target.target()) else {
        assert_eq!(code.kernels, 0);
        return;
    };
    assert_eq!(code.kernels, case.object.kernels.len(), "case {}", case.id);
    let words: usize = case
        .object
        .kernels
        .iter()
        .map(|k| {
            let b: Vec<u8> = k.code.iter().flat_map(|w| w.to_le_bytes()).collect();
            code_steps(gen, &b).1.len()
        })
        .sum();
    assert_eq!(code.words.len(), words, "case {}", case.id);
    assert_eq!(code.executed, words > 0, "case {}", case.id);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn default_config_cases_are_clean(bytes in proptest::collection::vec(any::<u8>(), 0..3000)) {
        let mut u = Unstructured::new(&bytes);
        if let Ok(c) = valid_case(&mut u, &Config::default(), "prop".into()) {
            assert_clean(&c);
        }
    }

    #[test]
    fn swarm_config_cases_are_clean(bytes in proptest::collection::vec(any::<u8>(), 0..4000)) {
        let mut u = Unstructured::new(&bytes);
        let cfg = Config::arbitrary(&mut u).expect("configs always draw");
        let c = valid_case(&mut u, &cfg, "prop".into()).expect("swarm configs are generable");
        assert_clean(&c);
        prop_assert!(cfg.targets.contains(&c.object.target.target().name.to_owned()));
        prop_assert!(cfg.code_object_versions.contains(&c.code_object_version));
        prop_assert!(c.object.kernels.len() >= cfg.min_kernels && c.object.kernels.len() <= cfg.max_kernels);
        if cfg.rebuildable_only {
            prop_assert_ne!(c.rebuild, hsaco_gen::Rebuild::Unavailable, "{}", c.asm);
        }
    }
}

/// Seeds of the sweep: `HSACO_SEEDS`, else 2000 (the long run:
/// `HSACO_SEEDS=100000 HSACO_MUTANT_SEEDS=100000 cargo test --release -p
/// hsaco-gen --test valid --test mutants`).
fn sweep_seeds() -> u64 {
    std::env::var("HSACO_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000)
}

#[test]
fn seed_sweep_is_clean() {
    let cfg = Config::default();
    for seed in 0..sweep_seeds() {
        assert_clean(&case_for_seed(&cfg, seed));
    }
}

#[test]
fn same_bytes_same_case() {
    let cfg = Config::default();
    for seed in [0u64, 1, 42, 0xdead_beef] {
        let a = case_for_seed(&cfg, seed);
        let b = case_for_seed(&cfg, seed);
        assert_eq!(a.elf, b.elf);
        assert_eq!(a.asm, b.asm);
        assert_eq!(a.object, b.object);
    }
    let a = case_for_seed(&cfg, 1);
    let b = case_for_seed(&cfg, 2);
    assert_ne!(a.elf, b.elf, "different seeds give different cases");
    let bytes = seed_bytes(7, 2048);
    let c1 = Config::arbitrary(&mut Unstructured::new(&bytes)).expect("draws");
    let c2 = Config::arbitrary(&mut Unstructured::new(&bytes)).expect("draws");
    assert_eq!(c1, c2);
}

/// Every feature the generators claim to cover shows up within a few
/// thousand seeds of the default configuration.
#[test]
fn reaches_every_feature() {
    let cfg = Config::default();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for seed in 0..4000 {
        let c = case_for_seed(&cfg, seed);
        let t = c.object.target.target();
        let cov = c.object.target.cov;
        seen.insert(format!("family {:?}", Family::of(t).expect("amdgcn")));
        seen.insert(format!("cov {}", cov.number()));
        if t.is_generic {
            seen.insert("generic target".into());
        }
        seen.insert(format!("rebuild {:?}", c.rebuild));
        if c.object.kernels.len() > 1 {
            seen.insert("several kernels".into());
        }
        if !c.object.printf.is_empty() {
            seen.insert("printf".into());
        }
        let notes = c.object.note_ranges().len();
        if notes > 1 {
            seen.insert("several metadata notes".into());
            if notes > 2 {
                seen.insert("three or more metadata notes".into());
            }
            if !c.object.printf.is_empty() && c.object.printf_index() > 0 {
                seen.insert("printf in a later metadata note".into());
            }
            if c.rebuild != Rebuild::Unavailable {
                seen.insert("several metadata notes, rebuildable".into());
            }
        }
        for k in &c.object.kernels {
            let d = &k.descriptor;
            let e = &d.enables;
            for bit in 0..7 {
                if e.user_bit(bit) {
                    seen.insert(format!("user sgpr {}", sgpr::USER_SGPRS[bit as usize].0));
                }
            }
            if e.preload_length > 0 {
                seen.insert("kernarg preload".into());
                if e.preload_offset > 0 {
                    seen.insert("kernarg preload offset".into());
                }
            }
            if e.is_wave32(t) {
                seen.insert("wave32".into());
            } else if t.wave32 {
                seen.insert("wave64 on a wave32 target".into());
            }
            if d.uses_dynamic_stack {
                seen.insert("dynamic stack".into());
            }
            if e.private_segment {
                seen.insert("private segment".into());
            }
            for (i, n) in ["x", "y", "z"].iter().enumerate() {
                if e.workgroup_ids >> i & 1 != 0 {
                    seen.insert(format!("workgroup id {n}"));
                }
            }
            if e.workgroup_info {
                seen.insert("workgroup info".into());
            }
            seen.insert(format!("workitem id {}", e.workitem_id));
            if e.user_sgpr_count(t) > e.implied_user_sgprs(t) {
                seen.insert("user sgpr padding".into());
            }
            if d.kernarg_size == 0 && k.metadata.kernarg_segment_size > 0 {
                seen.insert("kernarg size not given".into());
            }
            if k.metadata.agpr_count.is_some_and(|a| a > 0) {
                seen.insert("agprs".into());
            }
            if d.shared_vgpr_count > 0 {
                seen.insert("shared vgprs".into());
            }
            if d.inst_pref_size > 0 {
                seen.insert("inst pref size".into());
            }
            if d.uses_fields_without_directives() {
                seen.insert("fields without directives".into());
            }
            if d.exceptions == 0x7f {
                seen.insert("all exceptions".into());
            }
            if k.name.len() >= 32 {
                seen.insert("name of 32+ bytes".into());
            }
            for a in &k.metadata.args {
                seen.insert(format!("arg {}", a.kind.as_str()));
            }
        }
    }
    let mut missing = Vec::new();
    let mut want: Vec<String> = Family::ALL
        .iter()
        .map(|f| format!("family {f:?}"))
        .collect();
    want.extend((2..=6).map(|v| format!("cov {v}")));
    want.extend(
        sgpr::USER_SGPRS
            .iter()
            .map(|(n, _, _)| format!("user sgpr {n}")),
    );
    want.extend(ValueKind::ALL.iter().map(|k| format!("arg {}", k.as_str())));
    want.extend(
        [
            "generic target",
            "rebuild Llvm19",
            "rebuild Llvm14",
            "rebuild Unavailable",
            "several kernels",
            "printf",
            "several metadata notes",
            "three or more metadata notes",
            "printf in a later metadata note",
            "several metadata notes, rebuildable",
            "kernarg preload",
            "kernarg preload offset",
            "wave32",
            "wave64 on a wave32 target",
            "dynamic stack",
            "private segment",
            "workgroup id x",
            "workgroup id y",
            "workgroup id z",
            "workgroup info",
            "workitem id 0",
            "workitem id 1",
            "workitem id 2",
            "user sgpr padding",
            "kernarg size not given",
            "agprs",
            "shared vgprs",
            "inst pref size",
            "fields without directives",
            "all exceptions",
            "name of 32+ bytes",
        ]
        .map(String::from),
    );
    for w in want {
        if !seen.contains(&w) {
            missing.push(w);
        }
    }
    assert!(missing.is_empty(), "never generated: {missing:?}");
}

/// The SGPR suite: its size per family, and every entry's layout equal to
/// the oracle's prediction from the encoded descriptor; a sample of
/// entries also goes through the whole object check.
#[test]
fn sgpr_suite_matches_the_oracle() {
    let mut total = 0;
    for f in Family::ALL {
        let mut n = 0;
        for (i, entry) in sgpr::suite(f).enumerate() {
            let co = hsaco_gen::suite_object(&entry);
            let k = &co.kernels[0];
            let kd = k.descriptor.encode(&co.target, 0);
            let oracle = hsaco_oracle::sgpr::initial_state(&kd, entry.target);
            assert_eq!(oracle, entry.layout, "{f:?} entry {i}: {:?}", entry.enables);
            if i % 211 == 0 {
                let case = hsaco_gen::Case::from_object(
                    format!("sgpr-{}-{i}", f.name()),
                    hsaco_gen::CaseKind::SgprSuite,
                    hsaco_gen::Expect::Valid,
                    co,
                );
                assert_clean(&case);
            }
            n += 1;
        }
        assert_eq!(n, sgpr::suite_len(f), "{f:?}");
        total += n;
    }
    // 6144 (gfx6) + 3 x 12288 (gfx7-9) + gfx90a + gfx94 + 24576 (gfx10) +
    // 3 x 6144 (gfx11, gfx12) + gfx125 (up to 32 user SGPRs, wave32 only).
    let preload_within = |max: u16, subsets: &[u16]| {
        subsets
            .iter()
            .map(|&c| usize::from(max + 1 - c))
            .sum::<usize>()
            * 96
    };
    let preload = |subsets: &[u16]| preload_within(16, subsets);
    let sizes = |mask: u8| -> Vec<u16> {
        (0u8..=0x7f)
            .filter(|u| u & !mask == 0)
            .map(|u| {
                sgpr::Enables {
                    user: u,
                    ..Default::default()
                }
                .enabled_user_sgprs()
            })
            .collect()
    };
    let expected = 6144
        + 3 * 12288
        + preload(&sizes(0x7f))
        + preload(&sizes(0x5e))
        + 24576
        + 3 * 6144
        + preload_within(32, &sizes(0x5e));
    assert_eq!(total, expected);
}
