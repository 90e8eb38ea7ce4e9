//! Single-rule mutants against the oracle: every rule of the catalogue has
//! a mutator or a reason in `mutate::unmutable()`; every mutant of thousands of
//! generated cases makes the oracle report its rule and nothing else
//! (but the rules its mutator lists as necessarily broken too, and infos
//! the unmutated case already had), where the oracle is the object check
//! and the code-level check together (`smem.*` rules are found by the
//! latter only); mutants are deterministic; and every mutator applies to
//! some case.

use arbitrary::{Arbitrary, Unstructured};
use hsaco_gen::mutate::{self, MutantAsm, Mutator};
use hsaco_gen::target::Family;
use hsaco_gen::{valid_case, Case, CaseKind, Config, Expect, Rebuild};
use hsaco_oracle::check::check_object;
use hsaco_oracle::rules;
use hsaco_oracle::smem::code::check_code;
use hsaco_oracle::Severity;
use std::collections::{BTreeMap, BTreeSet};

mod common;
use common::seed_bytes;

/// The valid case of `seed`: the default configuration for even seeds, a
/// swarm configuration drawn from the seed's bytes for odd ones (narrow
/// corners: one version, few processors, no hidden arguments, ...).
fn case_for_seed(seed: u64) -> Option<Case> {
    let bytes = seed_bytes(seed, 8192);
    let mut u = Unstructured::new(&bytes);
    let cfg = if seed.is_multiple_of(2) {
        Config::default()
    } else {
        Config::arbitrary(&mut u).ok()?
    };
    let mut c = valid_case(&mut u, &cfg, format!("seed-{seed}")).ok()?;
    c.seed = Some(seed);
    Some(c)
}

/// The bytes mutator number `m` draws from for `seed`.
fn mutation_bytes(seed: u64, m: usize) -> Vec<u8> {
    seed_bytes(
        seed ^ (m as u64 + 1).wrapping_mul(0x5851_f42d_4c95_7f2d),
        512,
    )
}

/// Why the oracle's view of `mutant` does not match `m`, if it does not.
/// `base_infos` are the infos the oracle reports on `base`.
///
/// The view is the object check's report together with the code-level
/// check's ([`check_code`]: SMEM words decoded, streams executed). An
/// `smem.*` mutant must make the code-level check report its rule; any
/// other mutant must make the object check report it. Either way nothing
/// else may be found by either check but the mutator's `also` rules and
/// infos the base already had: the object check stays as clean as the
/// base for SMEM mutants, and the code-level check stays clean for the
/// others.
fn judge(m: &Mutator, base: &Case, base_infos: &BTreeSet<&str>, mutant: &Case) -> Option<String> {
    let report = check_object(&mutant.elf);
    let code = check_code(&mutant.elf);
    let findings: Vec<(&str, Severity, String)> = report
        .violations
        .iter()
        .map(|v| (v.rule.id, v.severity, v.message.clone()))
        .chain(
            code.rules
                .iter()
                .map(|r| (r.id, r.severity, "(code-level check)".to_owned())),
        )
        .collect();
    let found = if m.rule.id.starts_with("smem.") {
        code.reports(m.rule.id)
    } else {
        report.violations.iter().any(|v| v.rule.id == m.rule.id)
    };
    let unexpected: Vec<String> = findings
        .iter()
        .filter(|(id, _, _)| *id != m.rule.id && !m.also.iter().any(|a| a.id == *id))
        .filter(|(id, sev, _)| !(*sev == Severity::Info && base_infos.contains(id)))
        .map(|(id, sev, msg)| format!("{id} [{sev}] {msg}"))
        .collect();
    if found && unexpected.is_empty() {
        return None;
    }
    let all: Vec<String> = findings
        .iter()
        .map(|(id, _, msg)| format!("{id} {msg}"))
        .collect();
    Some(format!(
        "{} ({}) on {} ({} V{}): {}; unexpected {unexpected:#?}; all {all:#?}\ncode:\n{}",
        m.rule.id,
        m.how,
        base.id,
        base.target,
        base.code_object_version,
        if found { "reported" } else { "NOT reported" },
        code_text(mutant),
    ))
}

/// The kernels' code of a case as assembler lines, for failure messages.
fn code_text(case: &Case) -> String {
    let t = case.object.target.target();
    case.object
        .kernels
        .iter()
        .map(|k| {
            format!(
                "{}:\n  {}",
                k.name,
                hsaco_gen::smem::code_lines(t, &k.code).join("\n  ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Why the code-level check of a valid case is not clean, if it is not.
fn code_clean(case: &Case) -> Option<String> {
    let code = check_code(&case.elf);
    (!code.is_clean()).then(|| {
        let ids: Vec<&str> = code.rules.iter().map(|r| r.id).collect();
        format!(
            "valid case {} ({}): code-level check finds {ids:?}\ncode:\n{}",
            case.id,
            case.target,
            code_text(case)
        )
    })
}

#[test]
fn every_rule_has_a_mutator_or_a_reason() {
    let muts: BTreeSet<&str> = mutate::mutators().iter().map(|m| m.rule.id).collect();
    let unm: BTreeSet<&str> = mutate::unmutable().iter().map(|(r, _)| r.id).collect();
    let missing: Vec<&str> = rules::catalogue()
        .map(|r| r.id)
        .filter(|id| !muts.contains(id) && !unm.contains(id))
        .collect();
    assert!(
        missing.is_empty(),
        "rules with neither a mutator nor a reason in unmutable(): {missing:#?}"
    );
    let both: Vec<&&str> = muts.intersection(&unm).collect();
    assert!(
        both.is_empty(),
        "rules with a mutator and listed as unmutable: {both:?}"
    );
    for m in mutate::mutators() {
        assert!(
            rules::find(m.rule.id).is_some(),
            "mutator for rule {} that is not in the catalogue",
            m.rule.id
        );
        assert!(!m.how.is_empty(), "{}", m.rule.id);
        for a in m.also {
            // In the catalogue, not just declared somewhere.
            assert!(
                rules::find(a.id).is_some(),
                "{} lists rule {} that is not in the catalogue",
                m.rule.id,
                a.id
            );
            assert_ne!(a.id, m.rule.id);
        }
    }
    for (r, why) in mutate::unmutable() {
        assert!(
            rules::find(r.id).is_some(),
            "unmutable() lists rule {} that is not in the catalogue",
            r.id
        );
        assert!(!why.is_empty(), "{} has no reason", r.id);
    }
    assert_eq!(
        mutate::unmutable().len(),
        unm.len(),
        "unmutable() lists a rule twice"
    );
}

/// Runs every mutator over the cases of `seeds`, in parallel; returns the
/// failures and, per mutator index, how many mutants it made.
fn sweep(seeds: std::ops::Range<u64>) -> (Vec<String>, Vec<usize>) {
    let ms = mutate::mutators();
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8);
    let seeds: Vec<u64> = seeds.collect();
    let chunks: Vec<&[u64]> = seeds.chunks(seeds.len().div_ceil(threads).max(1)).collect();
    let results: Vec<(Vec<String>, Vec<usize>)> = std::thread::scope(|s| {
        let hs: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                s.spawn(move || {
                    let mut failures = Vec::new();
                    let mut made = vec![0usize; ms.len()];
                    for &seed in *chunk {
                        let Some(base) = case_for_seed(seed) else {
                            continue;
                        };
                        failures.extend(code_clean(&base));
                        let base_infos: BTreeSet<&str> = check_object(&base.elf)
                            .violations
                            .iter()
                            .filter(|v| v.severity == Severity::Info)
                            .map(|v| v.rule.id)
                            .collect();
                        for (mi, m) in ms.iter().enumerate() {
                            let bytes = mutation_bytes(seed, mi);
                            let Some(mutant) = m.apply(&base, &mut Unstructured::new(&bytes))
                            else {
                                continue;
                            };
                            made[mi] += 1;
                            assert_eq!(mutant.expect, Expect::Rule(m.rule.id));
                            assert_eq!(mutant.kind, CaseKind::Mutant);
                            match m.asm {
                                MutantAsm::None => {
                                    assert!(mutant.asm.is_empty(), "{}", m.rule.id);
                                    assert_eq!(mutant.rebuild, Rebuild::Unavailable);
                                }
                                MutantAsm::Rebuilds => {
                                    assert!(!mutant.asm.is_empty(), "{}", m.rule.id);
                                    assert_eq!(mutant.rebuild, mutant.object.rebuild());
                                }
                                MutantAsm::Rejected => {
                                    assert!(!mutant.asm.is_empty(), "{}", m.rule.id);
                                    assert_eq!(mutant.rebuild, Rebuild::Unavailable);
                                }
                            }
                            if let Some(f) = judge(m, &base, &base_infos, &mutant) {
                                failures.push(f);
                            }
                        }
                    }
                    (failures, made)
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("sweep thread"))
            .collect()
    });
    let mut failures = Vec::new();
    let mut made = vec![0usize; ms.len()];
    for (f, m) in results {
        failures.extend(f);
        for (a, b) in made.iter_mut().zip(m) {
            *a += b;
        }
    }
    (failures, made)
}

/// How many seeds the sweep covers: `HSACO_MUTANT_SEEDS`, else 3000 in
/// release builds and 500 in debug builds (where the oracle is about ten
/// times slower). 30000 seeds, three million mutants, take about four
/// minutes in release mode on two cores.
fn seed_count() -> u64 {
    std::env::var("HSACO_MUTANT_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 500 } else { 3000 })
}

#[test]
fn mutants_break_exactly_their_rule() {
    let n = seed_count();
    let (failures, made) = sweep(0..n);
    let ms = mutate::mutators();
    // Group failures by rule so a systematic problem reads as one entry.
    let mut by_rule: BTreeMap<&str, (usize, String)> = BTreeMap::new();
    for f in &failures {
        let rule = f.split(' ').next().unwrap_or("");
        let e = by_rule.entry(rule).or_insert((0, f.clone()));
        e.0 += 1;
    }
    let summary: Vec<String> = by_rule
        .iter()
        .map(|(r, (n, first))| format!("{r}: {n} failures; first: {first}"))
        .collect();
    let total: usize = made.iter().sum();
    println!("{total} mutants over {n} seeds, {} mutators", ms.len());
    let mut rare: Vec<(usize, &str)> = made.iter().zip(ms).map(|(&k, m)| (k, m.rule.id)).collect();
    rare.sort_unstable();
    println!("rarest: {:?}", &rare[..rare.len().min(12)]);
    let smem: Vec<(&str, usize)> = ms
        .iter()
        .zip(&made)
        .filter(|(m, _)| m.rule.id.starts_with("smem."))
        .map(|(m, &k)| (m.rule.id, k))
        .collect();
    println!("smem mutants: {smem:?}");
    assert!(
        failures.is_empty(),
        "{} of the mutants miss their rule or break others:\n{}",
        failures.len(),
        summary.join("\n\n")
    );
    // Every mutator makes mutants: a mutator that silently stops applying
    // is the classic failure.
    let idle: Vec<String> = ms
        .iter()
        .zip(&made)
        .filter(|(_, &n)| n == 0)
        .map(|(m, _)| format!("{} ({})", m.rule.id, m.how))
        .collect();
    assert!(
        idle.is_empty(),
        "mutators that never applied in {n} seeds: {idle:#?}"
    );
}

/// The SGPR suite's cases (every enable combination of each family, V5)
/// mutate cleanly too: a sample of each family, every mutator.
#[test]
fn suite_cases_mutate_cleanly() {
    let ms = mutate::mutators();
    let mut failures = Vec::new();
    let mut made = 0usize;
    for family in Family::ALL {
        for (n, base) in hsaco_gen::suite_cases(family)
            .enumerate()
            .step_by(if cfg!(debug_assertions) { 211 } else { 53 })
        {
            let infos: BTreeSet<&str> = check_object(&base.elf)
                .violations
                .iter()
                .filter(|v| v.severity == Severity::Info)
                .map(|v| v.rule.id)
                .collect();
            for (mi, m) in ms.iter().enumerate() {
                let bytes = mutation_bytes(n as u64, mi);
                if let Some(mutant) = m.apply(&base, &mut Unstructured::new(&bytes)) {
                    made += 1;
                    failures.extend(judge(m, &base, &infos, &mutant));
                }
            }
        }
    }
    assert!(made > 300, "only {made} suite mutants");
    assert!(
        failures.is_empty(),
        "{} suite mutants fail; first: {}",
        failures.len(),
        failures[0]
    );
}

#[test]
fn mutants_are_deterministic() {
    for seed in [0u64, 1, 2, 3, 17, 1000] {
        let Some(base) = case_for_seed(seed) else {
            continue;
        };
        for (mi, m) in mutate::mutators().iter().enumerate() {
            let bytes = mutation_bytes(seed, mi);
            let a = m.apply(&base, &mut Unstructured::new(&bytes));
            let b = m.apply(&base, &mut Unstructured::new(&bytes));
            match (a, b) {
                (None, None) => {}
                (Some(a), Some(b)) => {
                    assert_eq!(a.elf, b.elf, "{}", m.rule.id);
                    assert_eq!(a.asm, b.asm, "{}", m.rule.id);
                    assert_eq!(a.object, b.object, "{}", m.rule.id);
                    assert_eq!(a.id, b.id);
                    assert_ne!(a.elf, base.elf, "{} changed nothing", m.rule.id);
                }
                _ => panic!("{}: applies once but not twice", m.rule.id),
            }
        }
    }
}

#[test]
fn mutate_and_arbitrary_mutant() {
    let base = case_for_seed(4).expect("seed 4 generates");
    let bytes = seed_bytes(99, 256);
    let m = mutate::mutate(&base, "kd.rsrc1.priv", &mut Unstructured::new(&bytes))
        .expect("every descriptor can have PRIV set");
    assert_eq!(m.expect, Expect::Rule("kd.rsrc1.priv"));
    assert_eq!(m.id, format!("{}~kd.rsrc1.priv", base.id));
    assert!(check_object(&m.elf)
        .violations
        .iter()
        .any(|v| v.rule.id == "kd.rsrc1.priv"));
    assert!(mutate::mutate(&base, "no.such.rule", &mut Unstructured::new(&bytes)).is_none());
    assert!(mutate::mutate(&base, "note.unknown", &mut Unstructured::new(&bytes)).is_none());
    // Drawn mutants cover many rules, and each names a mutator's rule.
    let mut seen = BTreeSet::new();
    for seed in 0..200u64 {
        let Some(base) = case_for_seed(seed) else {
            continue;
        };
        let bytes = seed_bytes(seed.wrapping_mul(31), 512);
        let m = mutate::arbitrary_mutant(&base, &mut Unstructured::new(&bytes))
            .expect("some mutator applies to every case");
        let Expect::Rule(r) = m.expect else {
            panic!("a mutant expects a rule");
        };
        assert!(mutate::mutators().iter().any(|x| x.rule.id == r));
        seen.insert(r);
    }
    assert!(seen.len() > 50, "only {} rules drawn", seen.len());
    // The mutator named with a drawn mutant is the one that made it.
    let base = case_for_seed(6).expect("seed 6 generates");
    let bytes = seed_bytes(5, 512);
    let (m, c) = mutate::arbitrary_mutation(&base, &mut Unstructured::new(&bytes))
        .expect("some mutator applies");
    assert_eq!(c.expect, Expect::Rule(m.rule.id));
}
