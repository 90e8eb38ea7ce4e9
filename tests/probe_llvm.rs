//! Probe kernels (`hsaco_gen::probe`) against the real toolchain, for a
//! sample of SGPR suite entries of every family: their assembler text,
//! assembled by llvm-mc-19 and llvm-mc-22 and linked by ld.lld-19 and
//! ld.lld-22, loads exactly as what `gen` wrote (the same program headers
//! and allocated sections, byte for byte: code, descriptor, notes,
//! dynamic symbols; lld adds only an unallocated `.comment`);
//! llvm-objdump-19 and -22
//! decode their descriptors as the oracle does; the oracle finds them
//! clean; and the output-address patch sites hold the placeholders.
//!
//! The sample is the first and last entry of each family and 6 drawn from
//! the `test` seed domain. `HSACO_PROBES=all cargo test --test probe_llvm`
//! checks every entry of every family instead (hours: the suite has
//! 241,152 entries).

mod support;

use hsaco_gen::emit;
use hsaco_gen::probe::{self, Probe, PATCH_PLACEHOLDER};
use hsaco_gen::sgpr;
use hsaco_gen::target::Family;
use hsaco_oracle::check::check_object;
use hsaco_oracle::targets::Generation;
use hsaco_oracle::Severity;
use std::path::{Path, PathBuf};
use support::objdump;
use support::rebuild::{loaded_image, run};

/// Entries drawn per family besides the first and the last.
const DRAWN: usize = 6;

/// The suite indices of `family` this run checks.
fn sample(family: Family) -> Vec<usize> {
    let n = sgpr::suite_len(family);
    if std::env::var("HSACO_PROBES").is_ok_and(|v| v == "all") {
        return (0..n).collect();
    }
    let bytes = hsaco_gen::seed::bytes(family as u64, "test", 0, 8 * DRAWN);
    let mut v: Vec<usize> = bytes
        .chunks(8)
        .map(|c| (u64::from_le_bytes(c.try_into().unwrap()) % n as u64) as usize)
        .collect();
    v.push(0);
    v.push(n - 1);
    v.sort_unstable();
    v.dedup();
    v
}

struct Toolchain {
    mc: PathBuf,
    lld: PathBuf,
    objdump: PathBuf,
}

fn toolchains() -> Option<Vec<Toolchain>> {
    let mut out = Vec::new();
    for v in ["19", "22"] {
        out.push(Toolchain {
            mc: support::require_tool(&format!("llvm-mc-{v}"))?,
            lld: support::require_tool(&format!("ld.lld-{v}"))?,
            objdump: support::require_tool(&format!("llvm-objdump-{v}"))?,
        });
    }
    Some(out)
}

/// Assembles and links the probe's text with `tc`; the linked bytes.
fn rebuild(tc: &Toolchain, p: &Probe, dir: &Path) -> Result<Vec<u8>, String> {
    let name = &p.plan.case;
    let s = dir.join(format!("{name}.s"));
    let o = dir.join(format!("{name}.o"));
    let so = dir.join(format!("{name}.hsaco"));
    std::fs::write(&s, &p.asm).map_err(|e| e.to_string())?;
    let mut args = emit::asm::llvm_mc_args(&p.object);
    args.extend([
        s.display().to_string(),
        "-o".into(),
        o.display().to_string(),
    ]);
    run(&tc.mc, &args)?;
    run(
        &tc.lld,
        &[
            "-shared".into(),
            o.display().to_string(),
            "-o".into(),
            so.display().to_string(),
        ],
    )?;
    std::fs::read(&so).map_err(|e| e.to_string())
}

/// Every way `p` falls short; empty when it holds.
fn problems(tcs: &[Toolchain], p: &Probe, dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let name = &p.plan.case;
    // HSACO_PROBE_KEEP=DIR keeps gen's bytes and text to compare by hand.
    if let Some(keep) = std::env::var_os("HSACO_PROBE_KEEP") {
        let keep = Path::new(&keep);
        let _ = std::fs::write(keep.join(format!("{name}.gen.hsaco")), &p.elf);
        let _ = std::fs::write(keep.join(format!("{name}.s")), &p.asm);
    }
    let report = check_object(&p.elf);
    for v in &report.violations {
        if v.severity != Severity::Info {
            out.push(format!("{name}: oracle: {} {}", v.rule.id, v.message));
        }
    }
    for (k, at) in p.plan.patch_offsets.iter().enumerate() {
        let at = *at as usize;
        let got = p
            .elf
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()));
        if got != Some(PATCH_PLACEHOLDER[k]) {
            out.push(format!(
                "{name}: patch site {k} at {at:#x} holds {got:x?}, not the placeholder"
            ));
        }
    }
    let kernel = p.plan.kernel.as_str();
    let desc = report.kernels.first().and_then(|k| k.descriptor);
    let target = hsaco_oracle::targets::by_name(&p.plan.target).expect("a known target");
    for tc in tcs {
        let tool = tc.mc.display();
        match rebuild(tc, p, dir) {
            Err(e) => out.push(format!("{name}: {e}")),
            Ok(bytes) if loaded_image(&bytes) != loaded_image(&p.elf) => {
                let (ours, theirs) = (loaded_image(&p.elf), loaded_image(&bytes));
                let first = ours
                    .1
                    .iter()
                    .zip(&theirs.1)
                    .find(|(a, b)| a != b)
                    .map(|(a, b)| format!("gen {}\n  lld {}", a.0, b.0));
                out.push(format!(
                    "{name}: {tool} + lld load a different image: {}",
                    first.unwrap_or_else(|| format!("{:?}\n  vs {:?}", ours.0, theirs.0))
                ));
            }
            // llvm-objdump 19 and 22 disassemble nothing before GFX8
            // ("disassembly not yet supported for subtarget").
            Ok(_) if target.generation < Generation::Gfx8 => {}
            Ok(bytes) => {
                let file = dir.join(format!("{name}.hsaco"));
                std::fs::write(&file, &bytes).expect("write the rebuilt probe");
                let decoded = objdump::decode(&tc.objdump, &file, &[kernel]);
                match (decoded.get(kernel), desc) {
                    (Some(Ok(dirs)), Some(d)) => {
                        out.extend(objdump::mismatches(kernel, dirs, &d, target))
                    }
                    (other, _) => out.push(format!(
                        "{name}: {} decodes {kernel}.kd as {other:?}",
                        tc.objdump.display()
                    )),
                }
            }
        }
    }
    out
}

#[test]
fn probes_rebuild_to_the_same_bytes_and_are_clean() {
    let Some(tcs) = toolchains() else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut bad = Vec::new();
    let mut checked = 0;
    for family in Family::ALL {
        let wanted = sample(family);
        let mut next = wanted.iter().peekable();
        for (i, entry) in sgpr::suite(family).enumerate() {
            if next.peek() != Some(&&i) {
                continue;
            }
            next.next();
            let name = probe::sgpr_probe_name(&entry, i);
            let p = probe::sgpr_probe(&entry, &name).expect("every family has probes");
            bad.extend(problems(&tcs, &p, dir.path()));
            checked += 1;
            if next.peek().is_none() {
                break;
            }
        }
    }
    assert!(
        checked >= Family::ALL.len() * 2,
        "checked only {checked} probes"
    );
    assert!(
        bad.is_empty(),
        "{} problems:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
