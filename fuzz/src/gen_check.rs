//! Target `gen_check`: the generators against the oracle.
//!
//! The input drives [`hsaco_gen`] through [`Unstructured`]: the first
//! byte chooses the default configuration or a swarm configuration drawn
//! from the input, then a valid case is drawn, and the oracle must find no
//! error and no warning in it (infos only where LLVM's own output has
//! them), with the target, version, metadata and initial register state
//! the generator modelled, and the code-level check
//! ([`hsaco_oracle::smem::code::check_code`]: SMEM words decoded, streams
//! executed) must find nothing. Then a single-rule mutant of the case is
//! drawn ([`hsaco_gen::mutate::arbitrary_mutant`]) and the oracle must
//! report the mutant's rule and nothing else but the rules its mutators
//! list as broken by the same change (and infos the valid case already
//! had): an `smem.*` rule from the code-level check, any other from the
//! object check, with neither check finding anything else.
//!
//! Finds: generator bugs (a "valid" object the oracle rejects), oracle
//! false alarms on valid objects, mutators that miss their rule or break
//! others, and panics in either.

use std::collections::BTreeSet;

use hsaco_gen::arbitrary::{Arbitrary, Unstructured};
use hsaco_gen::{mutate, Case, Config, Expect, Generator};
use hsaco_oracle::check::{check_object, ObjectReport};
use hsaco_oracle::smem::code::{check_code, CodeCheck};
use hsaco_oracle::Severity;

/// Infos the oracle may report on a valid case: only those LLVM's own
/// output has (the GFX11 user SGPR padding clang-19 writes for wave32
/// kernels; `gen/tests/valid.rs` allows the same).
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

fn describe(case: &Case, report: &ObjectReport, code: &CodeCheck) -> String {
    let all: Vec<String> = report
        .violations
        .iter()
        .map(|v| format!("{} [{}] {}", v.rule.id, v.severity, v.message))
        .chain(
            code.rules
                .iter()
                .map(|r| format!("{} [{}] (code-level check)", r.id, r.severity)),
        )
        .collect();
    format!(
        "case {} ({} V{}, expect {}): oracle reports {all:#?}\nassembler text:\n{}",
        case.id,
        case.target,
        case.code_object_version,
        case.expect.as_str(),
        case.asm
    )
}

/// Asserts the oracle's view of a valid case.
fn check_valid(case: &Case) -> ObjectReport {
    let report = check_object(&case.elf);
    let code = check_code(&case.elf);
    let bad = report
        .violations
        .iter()
        .any(|v| v.severity != Severity::Info || !allowed_info(case, v.rule.id));
    assert!(
        !bad && code.is_clean(),
        "valid {}",
        describe(case, &report, &code)
    );
    assert_eq!(report.target.as_deref(), Some(case.target.as_str()));
    assert_eq!(report.code_object_version, Some(case.code_object_version));
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

/// Asserts the oracle's verdict on a mutant of `base`.
fn check_mutant(base_infos: &BTreeSet<&str>, mutant: &Case) {
    let Expect::Rule(rule) = mutant.expect else {
        panic!("mutant {} expects {}", mutant.id, mutant.expect.as_str());
    };
    // The mutant does not say which of the rule's mutators made it; any of
    // their companions may be reported.
    let also: BTreeSet<&str> = mutate::mutators()
        .iter()
        .filter(|m| m.rule.id == rule)
        .flat_map(|m| m.also.iter().map(|r| r.id))
        .collect();
    let report = check_object(&mutant.elf);
    let code = check_code(&mutant.elf);
    // `smem.*` rules judge kernel code, which only the code-level check
    // reads.
    let found = if rule.starts_with("smem.") {
        code.reports(rule)
    } else {
        report.violations.iter().any(|v| v.rule.id == rule)
    };
    let unexpected = report
        .violations
        .iter()
        .map(|v| (v.rule.id, v.severity))
        .chain(code.rules.iter().map(|r| (r.id, r.severity)))
        .any(|(id, sev)| {
            id != rule && !also.contains(id) && !(sev == Severity::Info && base_infos.contains(id))
        });
    assert!(
        found && !unexpected,
        "mutant ({}) {}",
        if found {
            "other rules reported"
        } else {
            "rule NOT reported"
        },
        describe(mutant, &report, &code)
    );
}

/// Runs one input; panics when the oracle and the generators disagree.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let swarm = u.arbitrary::<bool>().unwrap_or(false);
    let cfg = if swarm {
        match Config::arbitrary(&mut u) {
            Ok(c) => c,
            Err(_) => return,
        }
    } else {
        Config::default()
    };
    let Ok(case) = Generator::new(&cfg).valid_case(&mut u, "fuzz".to_owned()) else {
        return;
    };
    let report = check_valid(&case);
    let base_infos: BTreeSet<&str> = report
        .violations
        .iter()
        .filter(|v| v.severity == Severity::Info)
        .map(|v| v.rule.id)
        .collect();
    if let Some(mutant) = mutate::arbitrary_mutant(&case, &mut u) {
        check_mutant(&base_infos, &mutant);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smoke;

    #[test]
    fn seeded_inputs() {
        for seed in 0..200u64 {
            run(&smoke::bytes(seed, 4096));
        }
    }

    #[test]
    fn short_and_empty_inputs() {
        for input in smoke::inputs(7, 100, 300) {
            run(&input);
        }
    }

    #[test]
    fn reaches_mutants() {
        // The target is only useful if inputs reach the mutation step.
        let made = (0..50u64)
            .filter(|&seed| {
                let b = smoke::bytes(seed, 4096);
                let mut u = Unstructured::new(&b);
                let _ = u.arbitrary::<bool>();
                let cfg = Config::default();
                Generator::new(&cfg)
                    .valid_case(&mut u, "x".to_owned())
                    .ok()
                    .and_then(|c| mutate::arbitrary_mutant(&c, &mut u))
                    .is_some()
            })
            .count();
        assert!(made >= 40, "only {made} of 50 inputs made a mutant");
    }

    #[test]
    fn reaches_smem_mutants() {
        // SMEM mutants are judged by the code-level check: inputs must
        // reach some.
        let smem = (0..200u64)
            .filter(|&seed| {
                let b = smoke::bytes(seed, 4096);
                let mut u = Unstructured::new(&b);
                let _ = u.arbitrary::<bool>();
                let cfg = Config::default();
                Generator::new(&cfg)
                    .valid_case(&mut u, "x".to_owned())
                    .ok()
                    .and_then(|c| mutate::arbitrary_mutant(&c, &mut u))
                    .is_some_and(|m| m.expect.as_str().starts_with("smem."))
            })
            .count();
        assert!(smem >= 5, "only {smem} of 200 inputs made an SMEM mutant");
    }
}
