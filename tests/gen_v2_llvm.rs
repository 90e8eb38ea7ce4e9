//! Generated code object V2 cases against LLVM 14: for a sample of cases,
//! `llvm-mc-14 --amdhsa-code-object-version=2` assembles the generator's
//! text and `ld.lld-19 -shared` links it, and the result must match what
//! `hsaco-gen` wrote directly: every kernel's `amd_kernel_code_t` byte for
//! byte, the YAML metadata decoded to the same V2 model (and the note text
//! byte for byte, since the generator writes LLVM's canonical YAML), the
//! same "AMD" notes, the same program headers and allocated sections; and
//! the oracle finds the rebuilt object clean.
//!
//! The mutants of the V2 mutators whose assembler text rebuilds
//! ([`MutantAsm::Rebuilds`]) go through the same comparison.

mod support;

use hsaco_gen::arbitrary::Unstructured;
use hsaco_gen::mutate::{self, MutantAsm};
use hsaco_gen::{emit, Case, Config, Rebuild};
use hsaco_oracle::check::check_object;
use hsaco_oracle::elf::Elf;
use hsaco_oracle::targets::CodeObjectVersion;
use hsaco_oracle::Sink;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use support::rebuild::{loaded_image, seed_bytes};

/// Cases per sample.
const SAMPLE: u64 = 200;

struct Tools {
    mc14: PathBuf,
    lld: PathBuf,
}

fn tools() -> Option<Tools> {
    Some(Tools {
        mc14: support::require_tool("llvm-mc-14")?,
        lld: support::require_tool("ld.lld-19")?,
    })
}

fn run(tool: &Path, args: &[String]) -> Result<(), String> {
    let out = Command::new(tool)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", tool.display()))?;
    if out.status.success() && out.stderr.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} {} ({}):\n{}",
            tool.display(),
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Assembles `case.asm` with llvm-mc-14 and links it; the linked bytes.
fn rebuild(tools: &Tools, case: &Case, dir: &Path) -> Result<Vec<u8>, String> {
    if case.rebuild != Rebuild::Llvm14 {
        return Err(format!("rebuild is {:?}", case.rebuild));
    }
    let id = case.id.replace('~', "_");
    let s = dir.join(format!("{id}.s"));
    let o = dir.join(format!("{id}.o"));
    let so = dir.join(format!("{id}.hsaco"));
    std::fs::write(&s, &case.asm).map_err(|e| e.to_string())?;
    let mut args = emit::asm::llvm_mc_args(&case.object);
    if !args.iter().any(|a| a == "--amdhsa-code-object-version=2") {
        return Err(format!("llvm-mc arguments without the V2 flag: {args:?}"));
    }
    args.push(s.to_string_lossy().into_owned());
    args.push("-o".into());
    args.push(o.to_string_lossy().into_owned());
    run(&tools.mc14, &args)?;
    run(
        &tools.lld,
        &[
            "-shared".into(),
            o.to_string_lossy().into_owned(),
            "-o".into(),
            so.to_string_lossy().into_owned(),
        ],
    )?;
    let bytes = std::fs::read(&so).map_err(|e| e.to_string())?;
    for p in [s, o, so] {
        let _ = std::fs::remove_file(p);
    }
    Ok(bytes)
}

/// The `.symtab` entries (name, info, other, section, value, size).
fn symbols(bytes: &[u8]) -> Vec<(String, u8, u8, u16, u64, u64)> {
    let mut sink = Sink::new();
    let elf = Elf::parse(bytes, &mut sink).expect("an ELF code object");
    let Some(t) = elf.sections.iter().find(|s| s.sh_type == 2) else {
        return Vec::new();
    };
    let strtab = elf
        .sections
        .get(t.link as usize)
        .and_then(|s| s.data(bytes))
        .unwrap_or_default();
    let data = t.data(bytes).unwrap_or_default();
    data.chunks_exact(24)
        .map(|e| {
            let off = u32::from_le_bytes(e[0..4].try_into().unwrap()) as usize;
            let name = strtab
                .get(off..)
                .and_then(|s| s.split(|&c| c == 0).next())
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .unwrap_or_default();
            (
                name,
                e[4],
                e[5],
                u16::from_le_bytes(e[6..8].try_into().unwrap()),
                u64::from_le_bytes(e[8..16].try_into().unwrap()),
                u64::from_le_bytes(e[16..24].try_into().unwrap()),
            )
        })
        .collect()
}

/// Every difference between `case` and its rebuild. `clean`: the rebuilt
/// object must draw no violation at all (valid cases).
fn compare(case: &Case, rebuilt: &[u8], clean: bool) -> Vec<String> {
    let mut diffs = Vec::new();
    let ours = check_object(&case.elf);
    let theirs = check_object(rebuilt);
    if ours.kernels.len() != theirs.kernels.len() {
        diffs.push(format!(
            "{} kernels, rebuilt object has {}",
            ours.kernels.len(),
            theirs.kernels.len()
        ));
    }
    for (a, b) in ours.kernels.iter().zip(&theirs.kernels) {
        let (ca, cb) = (
            a.kernel_code.as_ref().map(|c| c.to_bytes().to_vec()),
            b.kernel_code.as_ref().map(|c| c.to_bytes().to_vec()),
        );
        if a.name != b.name || ca != cb || ca.is_none() {
            diffs.push(format!(
                "kernel {}: amd_kernel_code_t\n  gen {:02x?}\n  lld {:02x?} ({})",
                a.name, ca, cb, b.name
            ));
        }
    }
    if ours.metadata_v2 != theirs.metadata_v2 || ours.metadata_v2.is_none() {
        diffs.push(format!(
            "V2 metadata differs:\n  gen {:?}\n  lld {:?}",
            ours.metadata_v2, theirs.metadata_v2
        ));
    }
    if ours.v2_notes != theirs.v2_notes || ours.v2_notes.is_none() {
        diffs.push(format!(
            "notes differ:\n  gen {:?}\n  lld {:?}",
            ours.v2_notes, theirs.v2_notes
        ));
    }
    if ours.target != theirs.target || theirs.code_object_version != Some(2) {
        diffs.push(format!(
            "target {:?}, rebuilt {:?} V{:?}",
            ours.target, theirs.target, theirs.code_object_version
        ));
    }
    let ours_found: Vec<&str> = ours.violations.iter().map(|v| v.rule.id).collect();
    let theirs_found: Vec<&str> = theirs.violations.iter().map(|v| v.rule.id).collect();
    if clean && !theirs_found.is_empty() {
        diffs.push(format!(
            "the oracle flags the rebuilt object: {theirs_found:?}"
        ));
    }
    if ours_found != theirs_found {
        diffs.push(format!(
            "the oracle's verdicts differ: gen {ours_found:?}, lld {theirs_found:?}"
        ));
    }
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
    // .symtab: the same entries (section numbers agree: lld's .comment
    // comes after .relro_padding, which the generator does not write).
    let (ya, yb) = (symbols(&case.elf), symbols(rebuilt));
    if ya != yb {
        diffs.push(format!("symbols:\n  gen {ya:?}\n  lld {yb:?}"));
    }
    diffs
}

/// Rebuilds `cases` two at a time; panics listing every case that differs.
fn check_all(tools: &Tools, cases: &[Case], clean: bool) -> usize {
    let dir = tempfile::tempdir().expect("temporary directory");
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                let msg = match rebuild(tools, case, dir.path()) {
                    Ok(bytes) => {
                        let d = compare(case, &bytes, clean);
                        (!d.is_empty()).then(|| d.join("\n"))
                    }
                    Err(e) => Some(e),
                };
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
    cases.len()
}

fn v2_config() -> Config {
    Config {
        code_object_versions: vec![2],
        max_kernels: 5,
        ..Config::default()
    }
}

fn sample(cfg: &Config, seeds: std::ops::Range<u64>) -> Vec<Case> {
    seeds
        .filter_map(|seed| {
            let bytes = seed_bytes(seed, 8192);
            let mut u = Unstructured::new(&bytes);
            let mut c = hsaco_gen::valid_case(&mut u, cfg, format!("v2seed{seed}")).ok()?;
            c.seed = Some(seed);
            (c.object.target.cov == CodeObjectVersion::V2).then_some(c)
        })
        .collect()
}

#[test]
fn v2_cases_rebuild_identically() {
    let Some(tools) = tools() else { return };
    let cases = sample(&v2_config(), 0..SAMPLE);
    assert_eq!(cases.len() as u64, SAMPLE);
    // Every V2 processor, with each xnack setting LLVM 14 takes.
    let procs: std::collections::BTreeSet<&str> = cases
        .iter()
        .map(|c| c.object.target.target().name)
        .collect();
    assert_eq!(procs.len(), hsaco_gen::v2::LLVM14_V2_TARGETS.len());
    let n = check_all(&tools, &cases, true);
    eprintln!("gen_v2_llvm: {n} V2 cases rebuilt identically by llvm-mc-14");
}

/// The rules of the V2 mutators (`gen/src/mutate/v2.rs`).
fn is_v2_rule(rule: &str) -> bool {
    [
        "note.v2.",
        "metadata.v2.",
        "symbol.v2.",
        "code.",
        "sgpr.grid_",
    ]
    .iter()
    .any(|p| rule.starts_with(p))
}

#[test]
fn v2_rebuildable_mutants_rebuild_identically() {
    let Some(tools) = tools() else { return };
    let ms: Vec<(usize, &mutate::Mutator)> = mutate::mutators()
        .iter()
        .enumerate()
        .filter(|(_, m)| m.asm == MutantAsm::Rebuilds && is_v2_rule(m.rule.id))
        .collect();
    // Three mutators per base case, in turn, so every mutator meets
    // many bases.
    let mut mutants = Vec::new();
    for (b, base) in sample(&v2_config(), 1000..1000 + SAMPLE / 2)
        .into_iter()
        .enumerate()
    {
        for r in 0..3 {
            let (mi, m) = ms[(3 * b + r) % ms.len()];
            let bytes = seed_bytes(base.seed.unwrap_or(0) ^ (mi as u64 * 7919), 512);
            if let Some(c) = m.apply(&base, &mut Unstructured::new(&bytes)) {
                assert_eq!(c.rebuild, c.object.rebuild(), "{}", m.rule.id);
                if c.rebuild == Rebuild::Llvm14 {
                    mutants.push(c);
                }
            }
        }
    }
    assert!(
        mutants.len() > 50,
        "only {} V2 mutants rebuild",
        mutants.len()
    );
    let n = check_all(&tools, &mutants, false);
    eprintln!("gen_v2_llvm: {n} V2 mutants rebuilt identically by llvm-mc-14");
}
