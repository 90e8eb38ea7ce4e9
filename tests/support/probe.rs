//! Checking a `replay` probe kernel (SGPR or SMEM) against the real
//! toolchain and the oracle: its assembler text, assembled by llvm-mc-19
//! and llvm-mc-22 and linked by ld.lld-19 and ld.lld-22, must load exactly
//! as what `gen` wrote (program headers and allocated sections byte for
//! byte; lld adds only an unallocated `.comment`); llvm-objdump-19 and -22
//! must decode its descriptor as the oracle does (GFX8 on: neither
//! disassembles GFX6-7); the oracle must find it clean; and the
//! output-address patch sites must hold the placeholders.

use super::objdump;
use super::rebuild::{loaded_image, run};
use hsaco_gen::emit;
use hsaco_gen::object::CodeObject;
use hsaco_gen::probe::PATCH_PLACEHOLDER;
use hsaco_oracle::check::check_object;
use hsaco_oracle::targets::{by_name, Generation};
use hsaco_oracle::Severity;
use std::path::{Path, PathBuf};

/// One LLVM version's assembler, linker and disassembler.
pub struct Toolchain {
    /// The LLVM major release.
    pub version: u8,
    pub mc: PathBuf,
    pub lld: PathBuf,
    pub objdump: PathBuf,
}

/// LLVM 19's and 22's tools (`None`: a tool is missing outside CI).
pub fn toolchains() -> Option<Vec<Toolchain>> {
    let mut out = Vec::new();
    for v in [19, 22] {
        out.push(Toolchain {
            version: v,
            mc: super::require_tool(&format!("llvm-mc-{v}"))?,
            lld: super::require_tool(&format!("ld.lld-{v}"))?,
            objdump: super::require_tool(&format!("llvm-objdump-{v}"))?,
        });
    }
    Some(out)
}

/// What a probe of either kind is, for these checks.
pub struct Probe<'a> {
    /// The case name.
    pub name: &'a str,
    /// The model its text and bytes were written from.
    pub object: &'a CodeObject,
    /// gen's bytes.
    pub elf: &'a [u8],
    /// gen's assembler text.
    pub asm: &'a str,
    /// The kernel symbol.
    pub kernel: &'a str,
    /// The processor.
    pub target: &'a str,
    /// File offsets of the output-address literals.
    pub patch_offsets: [u64; 2],
}

/// Assembles and links the probe's text with `tc`; the linked bytes.
fn rebuild(tc: &Toolchain, p: &Probe<'_>, dir: &Path) -> Result<Vec<u8>, String> {
    let name = p.name;
    let s = dir.join(format!("{name}.s"));
    let o = dir.join(format!("{name}.o"));
    let so = dir.join(format!("{name}.hsaco"));
    std::fs::write(&s, p.asm).map_err(|e| e.to_string())?;
    let mut args = emit::asm::llvm_mc_args(p.object);
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
pub fn problems(tcs: &[Toolchain], p: &Probe<'_>, dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let name = p.name;
    // HSACO_PROBE_KEEP=DIR keeps gen's bytes and text to compare by hand.
    if let Some(keep) = std::env::var_os("HSACO_PROBE_KEEP") {
        let keep = Path::new(&keep);
        let _ = std::fs::write(keep.join(format!("{name}.gen.hsaco")), p.elf);
        let _ = std::fs::write(keep.join(format!("{name}.s")), p.asm);
    }
    let report = check_object(p.elf);
    for v in &report.violations {
        if v.severity != Severity::Info {
            out.push(format!("{name}: oracle: {} {}", v.rule.id, v.message));
        }
    }
    for (k, at) in p.patch_offsets.iter().enumerate() {
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
    let kernel = p.kernel;
    let desc = report.kernels.first().and_then(|k| k.descriptor);
    let target = by_name(p.target).expect("a known target");
    // Each toolchain that knows the processor (GFX12.5 only LLVM 21+).
    for tc in tcs.iter().filter(|tc| target.known_to_llvm(tc.version)) {
        let tool = tc.mc.display();
        match rebuild(tc, p, dir) {
            Err(e) => out.push(format!("{name}: {e}")),
            Ok(bytes) if loaded_image(&bytes) != loaded_image(p.elf) => {
                let (ours, theirs) = (loaded_image(p.elf), loaded_image(&bytes));
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
