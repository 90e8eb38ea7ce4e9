//! Rebuilding a generated case's assembler text with the real toolchain:
//! `llvm-mc` (19, or 14 for code object V3) and `ld.lld-19 -shared`, or
//! `llvm-mc-22` and `ld.lld-22` for processors only LLVM 21 and later know
//! (GFX12.5), and reading back what a loader sees of the result.

use hsaco_gen::{emit, Case, Rebuild};
use hsaco_oracle::elf::{Elf, SHF_ALLOC};
use hsaco_oracle::Sink;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The installed tools a rebuild needs.
pub struct Tools {
    pub mc19: PathBuf,
    pub mc14: Option<PathBuf>,
    pub lld: PathBuf,
    /// `llvm-mc-22` and `ld.lld-22`, for processors LLVM 19 does not know.
    pub llvm22: Option<(PathBuf, PathBuf)>,
}

pub fn tools() -> Option<Tools> {
    let mc19 = super::require_tool("llvm-mc-19")?;
    let lld = super::require_tool("ld.lld-19")?;
    // llvm-mc-14 only rebuilds V3 cases; without it they are skipped.
    let mc14 = super::require_tool("llvm-mc-14");
    let llvm22 = super::require_tool("llvm-mc-22").zip(super::require_tool("ld.lld-22"));
    Some(Tools {
        mc19,
        mc14,
        lld,
        llvm22,
    })
}

/// The byte stream of a seed for these tests: the seed domain `test`
/// (`hsaco_gen::seed`).
pub fn seed_bytes(seed: u64, len: usize) -> Vec<u8> {
    hsaco_gen::seed::bytes(seed, "test", 0, len)
}

pub fn run(tool: &Path, args: &[String]) -> Result<(), String> {
    let out = Command::new(tool)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", tool.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} {} failed ({}):\n{}",
            tool.display(),
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Assembles and links `case.asm`; returns the linked object's bytes.
pub fn rebuild(tools: &Tools, case: &Case, dir: &Path) -> Result<Vec<u8>, String> {
    let mc = match case.rebuild {
        Rebuild::Llvm19 => &tools.mc19,
        Rebuild::Llvm14 => tools.mc14.as_ref().ok_or("no llvm-mc-14")?,
        Rebuild::Unavailable => return Err("not rebuildable".into()),
    };
    rebuild_with(mc, &tools.lld, case, dir)
}

/// Assembles `case.asm` with `llvm-mc-22` and links it with `ld.lld-22`,
/// whatever LLVM the generator's `Rebuild` names: for processors LLVM 19
/// does not know.
pub fn rebuild_llvm22(tools: &Tools, case: &Case, dir: &Path) -> Result<Vec<u8>, String> {
    let (mc, lld) = tools.llvm22.as_ref().ok_or("no llvm-mc-22 or ld.lld-22")?;
    rebuild_with(mc, lld, case, dir)
}

fn rebuild_with(mc: &Path, lld: &Path, case: &Case, dir: &Path) -> Result<Vec<u8>, String> {
    let s = dir.join(format!("{}.s", case.id));
    let o = dir.join(format!("{}.o", case.id));
    let so = dir.join(format!("{}.hsaco", case.id));
    std::fs::write(&s, &case.asm).map_err(|e| e.to_string())?;
    let mut args = emit::asm::llvm_mc_args(&case.object);
    args.push(s.to_string_lossy().into_owned());
    args.push("-o".into());
    args.push(o.to_string_lossy().into_owned());
    run(mc, &args)?;
    run(
        lld,
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

/// Program headers, and every allocated section (name, type, flags,
/// address, size, bytes), of a code object.
pub fn loaded_image(bytes: &[u8]) -> (Vec<String>, Vec<(String, Vec<u8>)>) {
    let mut sink = Sink::new();
    let elf = Elf::parse(bytes, &mut sink).expect("an ELF code object");
    let phdrs = elf
        .segments
        .iter()
        .map(|p| {
            format!(
                "type {:#x} flags {} off {:#x} addr {:#x} filesz {:#x} memsz {:#x} align {:#x}",
                p.p_type, p.flags, p.offset, p.vaddr, p.filesz, p.memsz, p.align
            )
        })
        .collect();
    let sections = elf
        .sections
        .iter()
        .filter(|s| s.flags & SHF_ALLOC != 0)
        .map(|s| {
            (
                format!(
                    "{} type {:#x} flags {:#x} addr {:#x} off {:#x} size {:#x} link {} info {} align {} entsize {}",
                    s.name, s.sh_type, s.flags, s.addr, s.offset, s.size, s.link, s.info, s.addralign, s.entsize
                ),
                s.data(bytes).map(<[u8]>::to_vec).unwrap_or_default(),
            )
        })
        .collect();
    (phdrs, sections)
}
