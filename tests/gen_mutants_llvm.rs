//! What mutants claim about their assembler text, checked with the real
//! toolchain. A mutator marked `MutantAsm::Rebuilds` says the mutated
//! model's text turns back into the mutant's bytes: `llvm-mc` and
//! `ld.lld-19 -shared` rebuild it into an object with the same loaded
//! image, on which the oracle reports the same rules. A mutator marked
//! `MutantAsm::Rejected` says LLVM's assembler refuses the text: `llvm-mc`
//! exits non-zero with an error. Every such mutator is sampled on a few
//! cases.

mod support;

use hsaco_gen::arbitrary::Unstructured;
use hsaco_gen::mutate::{self, MutantAsm};
use hsaco_gen::{emit, Case, Config, Rebuild};
use hsaco_oracle::check::check_object;
use hsaco_oracle::Severity;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use support::rebuild::{loaded_image, rebuild, seed_bytes, tools, Tools};

/// Mutants checked per mutator (each is one llvm-mc and one ld.lld run).
const PER_MUTATOR: usize = 3;
/// Seeds searched for cases each mutator applies to.
const SEEDS: u64 = 300;

/// The errors and warnings the oracle reports on `bytes`, by rule.
fn verdict(bytes: &[u8]) -> BTreeSet<&'static str> {
    check_object(bytes)
        .violations
        .iter()
        .filter(|v| v.severity != Severity::Info)
        .map(|v| v.rule.id)
        .collect()
}

/// Up to [`PER_MUTATOR`] mutants of every mutator that carries assembler
/// text, with the case each was made from.
fn sample(tools: &Tools) -> Vec<(Case, Case, MutantAsm)> {
    let cfg = Config::default();
    let gen = hsaco_gen::Generator::new(&cfg);
    let mut taken: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut out = Vec::new();
    for seed in 0..SEEDS {
        let bytes = seed_bytes(seed, 4096);
        let Ok(base) = gen.valid_case(&mut Unstructured::new(&bytes), format!("seed{seed}")) else {
            continue;
        };
        let usable = match base.rebuild {
            Rebuild::Llvm19 => true,
            Rebuild::Llvm14 => tools.mc14.is_some(),
            Rebuild::Unavailable => false,
        };
        if !usable {
            continue;
        }
        for (i, m) in mutate::mutators().iter().enumerate() {
            if m.asm == MutantAsm::None {
                continue;
            }
            let n = taken.entry((m.rule.id, m.how)).or_default();
            if *n >= PER_MUTATOR {
                continue;
            }
            let choice = seed_bytes(seed ^ (i as u64) << 32, 256);
            let Some(mutant) = m.apply(&base, &mut Unstructured::new(&choice)) else {
                continue;
            };
            // A text no installed assembler takes claims nothing here.
            if m.asm == MutantAsm::Rebuilds && mutant.rebuild == Rebuild::Unavailable {
                continue;
            }
            *n += 1;
            out.push((base.clone(), mutant, m.asm));
        }
    }
    out
}

/// Checks one mutant's claim; a description of what failed, if anything.
fn check(
    tools: &Tools,
    base: &Case,
    mutant: &Case,
    claim: MutantAsm,
    dir: &std::path::Path,
) -> Option<String> {
    match claim {
        MutantAsm::None => None,
        MutantAsm::Rebuilds => {
            let rebuilt = match rebuild(tools, mutant, dir) {
                Ok(b) => b,
                Err(e) => return Some(format!("claims to rebuild, but: {e}")),
            };
            let mut problems = Vec::new();
            if loaded_image(&rebuilt) != loaded_image(&mutant.elf) {
                problems
                    .push("the rebuilt object's loaded image differs from the mutant's".to_owned());
            }
            let (ours, theirs) = (verdict(&mutant.elf), verdict(&rebuilt));
            if ours != theirs {
                problems.push(format!(
                    "the oracle reports {ours:?} on the mutant but {theirs:?} on its rebuild"
                ));
            }
            (!problems.is_empty()).then(|| problems.join("; "))
        }
        MutantAsm::Rejected => {
            let mc: PathBuf = match base.rebuild {
                Rebuild::Llvm19 => tools.mc19.clone(),
                Rebuild::Llvm14 => tools.mc14.clone()?,
                Rebuild::Unavailable => return None,
            };
            let s = dir.join(format!("{}.s", mutant.id.replace('~', "_")));
            std::fs::write(&s, &mutant.asm).ok()?;
            let mut args = emit::asm::llvm_mc_args(&mutant.object);
            args.push(s.to_string_lossy().into_owned());
            args.push("-o".into());
            args.push(dir.join("rejected.o").to_string_lossy().into_owned());
            let out = Command::new(&mc).args(&args).output().ok()?;
            let _ = std::fs::remove_file(&s);
            let stderr = String::from_utf8_lossy(&out.stderr);
            if out.status.success() || !stderr.contains("error:") {
                Some(format!(
                    "claims LLVM rejects the text, but {} exited {} with {stderr:?}",
                    mc.display(),
                    out.status
                ))
            } else {
                None
            }
        }
    }
}

#[test]
fn mutant_assembler_claims_hold() {
    let Some(tools) = tools() else { return };
    let cases = sample(&tools);
    let rules: BTreeSet<&str> = cases
        .iter()
        .filter_map(|(_, m, _)| match m.expect {
            hsaco_gen::Expect::Rule(r) => Some(r),
            hsaco_gen::Expect::Valid => None,
        })
        .collect();
    // Every mutator that carries text must have been sampled.
    let with_text: BTreeSet<&str> = mutate::mutators()
        .iter()
        .filter(|m| m.asm != MutantAsm::None)
        .map(|m| m.rule.id)
        .collect();
    let missing: Vec<&&str> = with_text.difference(&rules).collect();
    assert!(
        missing.is_empty(),
        "no rebuildable case in {SEEDS} seeds for mutators of {missing:?}"
    );
    let dir = tempfile::tempdir().expect("temporary directory");
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for w in 0..2 {
            let sub = dir.path().join(format!("w{w}"));
            std::fs::create_dir_all(&sub).expect("worker directory");
            let (next, failures, cases, tools) = (&next, &failures, &cases, &tools);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((base, mutant, claim)) = cases.get(i) else {
                    break;
                };
                if let Some(msg) = check(tools, base, mutant, *claim, &sub) {
                    if let Ok(mut f) = failures.lock() {
                        f.push(format!(
                            "{} ({} V{}): {msg}\nassembler text:\n{}",
                            mutant.id, mutant.target, mutant.code_object_version, mutant.asm
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap_or_default();
    for f in &failures {
        eprintln!("FAILURE {}", f.lines().next().unwrap_or(""));
    }
    assert!(
        failures.is_empty(),
        "{} of {} mutants break their assembler claim; first:\n{}",
        failures.len(),
        cases.len(),
        failures.first().map(String::as_str).unwrap_or("")
    );
    eprintln!(
        "{} mutants of {} rules checked against llvm-mc and ld.lld",
        cases.len(),
        rules.len()
    );
}
