//! The generator's assembler text against the real toolchain: for a sample
//! of cases, `llvm-mc` assembles the text and `ld.lld-19 -shared` links it,
//! and the result must equal what `hsaco-gen` wrote directly: the same
//! program headers and allocated sections (so the same kernel descriptors,
//! byte for byte, entry offsets included), the same symbols, and metadata
//! the oracle decodes to the same typed model. V4-V6 cases go through
//! `llvm-mc-19`; V3 cases through `llvm-mc-14`, since LLVM 19 no longer
//! writes V3.

mod support;

use hsaco_gen::arbitrary::Unstructured;
use hsaco_gen::target::Family;
use hsaco_gen::{sgpr, Case, CaseKind, Config, Expect, Rebuild};
use hsaco_oracle::check::check_object;
use hsaco_oracle::Severity;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use support::rebuild::{loaded_image, rebuild, rebuild_llvm22, seed_bytes, tools, Tools};

/// Cases per configuration (a few seconds of llvm-mc and lld each).
const SAMPLE: u64 = 150;

/// Checks one case against its rebuild; returns a description of every
/// difference.
fn compare(case: &Case, rebuilt: &[u8]) -> Vec<String> {
    let mut diffs = Vec::new();
    let ours = check_object(&case.elf);
    let theirs = check_object(rebuilt);
    // Descriptors byte for byte, kernel by kernel.
    for (a, b) in ours.kernels.iter().zip(&theirs.kernels) {
        let (da, db) = (
            a.descriptor.map(|d| d.to_bytes()),
            b.descriptor.map(|d| d.to_bytes()),
        );
        if a.name != b.name || da != db {
            diffs.push(format!(
                "kernel {}: descriptor\n  gen  {:02x?}\n  lld  {:02x?} ({})",
                a.name, da, db, b.name
            ));
        }
    }
    if ours.kernels.len() != theirs.kernels.len() {
        diffs.push(format!(
            "{} kernels, rebuilt object has {}",
            ours.kernels.len(),
            theirs.kernels.len()
        ));
    }
    if ours.metadata != theirs.metadata {
        diffs.push(format!(
            "metadata differs:\n  gen {:?}\n  lld {:?}",
            ours.metadata, theirs.metadata
        ));
    }
    if ours.target != theirs.target || ours.code_object_version != theirs.code_object_version {
        diffs.push(format!(
            "target {:?} V{:?}, rebuilt {:?} V{:?}",
            ours.target, ours.code_object_version, theirs.target, theirs.code_object_version
        ));
    }
    let errors: Vec<String> = theirs
        .violations
        .iter()
        .filter(|v| v.severity != Severity::Info)
        .map(|v| format!("{} {}", v.rule.id, v.message))
        .collect();
    if !errors.is_empty() {
        diffs.push(format!("the oracle flags the rebuilt object: {errors:?}"));
    }
    // The whole loaded image: program headers and allocated sections.
    let (pa, sa) = loaded_image(&case.elf);
    let (pb, sb) = loaded_image(rebuilt);
    if pa != pb {
        diffs.push(format!("program headers:\n  gen {pa:#?}\n  lld {pb:#?}"));
    }
    let ha: Vec<&String> = sa.iter().map(|s| &s.0).collect();
    let hb: Vec<&String> = sb.iter().map(|s| &s.0).collect();
    if ha != hb {
        diffs.push(format!("allocated sections:\n  gen {ha:#?}\n  lld {hb:#?}"));
    } else {
        for ((h, a), (_, b)) in sa.iter().zip(&sb) {
            if a != b {
                let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(0);
                diffs.push(format!("section bytes differ from byte {at}: {h}"));
            }
        }
    }
    diffs
}

/// Rebuilds `cases` two at a time; panics listing every case that differs.
fn check_all(tools: &Tools, cases: Vec<Case>) -> usize {
    check_all_with(tools, cases, rebuild)
}

/// [`check_all`] with the rebuild function given.
fn check_all_with(
    tools: &Tools,
    cases: Vec<Case>,
    rebuild: fn(&Tools, &Case, &std::path::Path) -> Result<Vec<u8>, String>,
) -> usize {
    let dir = tempfile::tempdir().expect("temporary directory");
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let done = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                let msg = match rebuild(tools, case, dir.path()) {
                    Ok(bytes) => {
                        let d = compare(case, &bytes);
                        if d.is_empty() {
                            None
                        } else {
                            Some(d.join("\n"))
                        }
                    }
                    Err(e) => Some(e),
                };
                done.fetch_add(1, Ordering::Relaxed);
                if let Some(m) = msg {
                    if let Ok(mut f) = failures.lock() {
                        f.push(format!(
                            "case {} ({} V{}):\n{m}\nassembler text:\n{}",
                            case.id, case.target, case.code_object_version, case.asm
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap_or_default();
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from their rebuild; first:\n{}",
        failures.len(),
        cases.len(),
        failures.first().map(String::as_str).unwrap_or("")
    );
    done.into_inner()
}

fn sample(cfg: &Config, seeds: std::ops::Range<u64>, tools: &Tools) -> Vec<Case> {
    seeds
        .filter_map(|seed| {
            let bytes = seed_bytes(seed, 4096);
            let mut u = Unstructured::new(&bytes);
            let mut c = hsaco_gen::valid_case(&mut u, cfg, format!("seed{seed}")).ok()?;
            c.seed = Some(seed);
            let ok = match c.rebuild {
                Rebuild::Llvm19 => true,
                Rebuild::Llvm14 => tools.mc14.is_some(),
                Rebuild::Unavailable => false,
            };
            ok.then_some(c)
        })
        .collect()
}

#[test]
fn rebuildable_cases_rebuild_identically() {
    let Some(tools) = tools() else { return };
    let cfg = Config {
        rebuildable_only: true,
        ..Config::default()
    };
    let cases = sample(&cfg, 0..SAMPLE, &tools);
    assert!(cases.len() as u64 == SAMPLE || tools.mc14.is_none());
    let n = check_all(&tools, cases);
    eprintln!("gen_llvm: {n} rebuildable cases rebuilt identically");
}

#[test]
fn default_config_cases_rebuild_identically() {
    let Some(tools) = tools() else { return };
    // The default configuration, restricted to what the installed
    // assemblers express.
    let cases = sample(&Config::default(), 1000..1000 + SAMPLE, &tools);
    assert!(
        cases.len() > 20,
        "too few rebuildable cases: {}",
        cases.len()
    );
    let n = check_all(&tools, cases);
    eprintln!("gen_llvm: {n} default-config cases rebuilt identically");
}

/// GFX12.5 (gfx1250, gfx1251), which LLVM 19 does not know: generated
/// objects of code object V4-V6 whose every descriptor field has an
/// LLVM 22 directive, rebuilt by `llvm-mc-22` and `ld.lld-22`.
#[test]
fn gfx12_5_cases_rebuild_identically_with_llvm22() {
    let Some(tools) = tools() else { return };
    let cfg = Config {
        targets: vec!["gfx1250".into(), "gfx1251".into()],
        code_object_versions: vec![4, 5, 6],
        ..Config::default()
    };
    let cases: Vec<Case> = (2000..2000 + SAMPLE)
        .filter_map(|seed| {
            let bytes = seed_bytes(seed, 4096);
            let mut u = Unstructured::new(&bytes);
            let mut c = hsaco_gen::valid_case(&mut u, &cfg, format!("seed{seed}")).ok()?;
            c.seed = Some(seed);
            let expressible = c
                .object
                .kernels
                .iter()
                .all(|k| !k.descriptor.uses_fields_without_directives());
            expressible.then_some(c)
        })
        .collect();
    assert!(cases.len() > 20, "too few GFX12.5 cases: {}", cases.len());
    let n = check_all_with(&tools, cases, rebuild_llvm22);
    eprintln!("gen_llvm: {n} GFX12.5 cases rebuilt identically by LLVM 22");
}

#[test]
fn sgpr_suite_sample_rebuilds_identically() {
    let Some(tools) = tools() else { return };
    let mut cases = Vec::new();
    let mut newer = Vec::new();
    for f in Family::ALL {
        let step = (sgpr::suite_len(f) / 12).max(1);
        for (i, entry) in sgpr::suite(f).enumerate().step_by(step) {
            let case = Case::from_object(
                format!("sgpr-{}-{i}", f.name()),
                CaseKind::SgprSuite,
                Expect::Valid,
                hsaco_gen::suite_object(&entry),
            );
            // GFX12.5 only LLVM 21 and later know: llvm-mc-22 rebuilds it.
            if f.representative().llvm19() {
                cases.push(case);
            } else {
                newer.push(case);
            }
        }
    }
    let n = check_all(&tools, cases);
    let m = check_all_with(&tools, newer, rebuild_llvm22);
    assert!(m > 0, "no family needs LLVM 22");
    eprintln!("gen_llvm: {n} SGPR suite entries rebuilt identically by LLVM 19, {m} by LLVM 22");
}
