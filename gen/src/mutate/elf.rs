//! Mutators of `elf.*` rules: the header, program headers and section
//! headers (bytes only).

use super::*;
use hsaco_oracle::elf::raw::{
    at, FileHeader, EHDR_SIZE, ELFCLASS64, ELFDATA2LSB, ELFOSABI_AMDGPU_HSA, EM_AMDGPU, ET_DYN,
    ET_REL, EV_CURRENT, LE, PT_DYNAMIC, PT_GNU_RELRO, PT_GNU_STACK, PT_LOAD, PT_NOTE, PT_NULL,
    PT_PHDR, SHT_STRTAB,
};

/// Sets header byte `at` to a drawn value other than `not`.
pub(super) fn header_byte(
    c: &Ctx<'_>,
    u: &mut Unstructured<'_>,
    at: usize,
    lo: u8,
    not: &[u64],
) -> R {
    let v = int_except(u, u64::from(lo), 255, not)? as u8;
    Ok(patch_case(c, |e| {
        e.set_u8(at, v);
        Some(())
    }))
}

pub(super) fn elf_header_truncated(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Keep the magic, so that readers still take the file for ELF.
    let n = int(u, 16usize, 63)?;
    Ok(patch_case(c, |e| {
        e.b.truncate(n);
        Some(())
    }))
}

pub(super) fn elf_ident_class(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    header_byte(c, u, at::CLASS, 0, &[ELFCLASS64.into()])
}

pub(super) fn elf_ident_data(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    header_byte(c, u, at::DATA, 0, &[ELFDATA2LSB.into()])
}

pub(super) fn elf_ident_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    header_byte(c, u, at::IDENT_VERSION, 0, &[EV_CURRENT.into()])
}

pub(super) fn elf_ident_osabi(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    header_byte(c, u, at::OSABI, 0, &[ELFOSABI_AMDGPU_HSA.into()])
}

pub(super) fn elf_ident_abi_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    header_byte(c, u, at::ABI_VERSION, 5, &[])
}

pub(super) fn elf_ident_pad(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let at = int(u, at::PAD, at::TYPE - 1)?;
    header_byte(c, u, at, 1, &[])
}

/// The ELF header of the case, edited by `f`.
fn patch_header(c: &Ctx<'_>, f: impl FnOnce(&mut FileHeader)) -> Option<Out> {
    patch_case(c, |e| {
        f(e.header_mut()?);
        Some(())
    })
}

pub(super) fn elf_type(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let v = int_except(u, 0, 0xffff, &[ET_REL.into(), ET_DYN.into()])? as u16;
    Ok(patch_header(c, |h| h.e_type.set(LE, v)))
}

pub(super) fn elf_machine(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let v = int_except(u, 0, 0xffff, &[EM_AMDGPU.into()])? as u16;
    Ok(patch_header(c, |h| h.e_machine.set(LE, v)))
}

pub(super) fn elf_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let v = int_except(u, 0, u64::from(u32::MAX), &[EV_CURRENT.into()])? as u32;
    Ok(patch_header(c, |h| h.e_version.set(LE, v)))
}

pub(super) fn elf_entry(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let v = int(u, 1u64, u64::MAX)?;
    Ok(patch_header(c, |h| h.e_entry.set(LE, v)))
}

pub(super) fn elf_header_sizes(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // e_ehsize only: a wrong e_phentsize or e_shentsize hides the tables,
    // which breaks every rule that needs them.
    let v = int_except(u, 0, 0xffff, &[EHDR_SIZE as u64])? as u16;
    Ok(patch_header(c, |h| h.e_ehsize.set(LE, v)))
}

/// Rewrites e_flags of the case with `f`.
fn patch_flags(c: &Ctx<'_>, f: impl FnOnce(u32) -> u32) -> Option<Out> {
    patch_header(c, |h| h.e_flags.set(LE, f(h.e_flags.get(LE))))
}

/// Rewrites the low byte (EF_AMDGPU_MACH) of e_flags.
pub(super) fn set_mach(c: &Ctx<'_>, mach: u8) -> Option<Out> {
    patch_flags(c, |f| f & !0xff | u32::from(mach))
}

pub(super) fn elf_e_flags_mach(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // None, r600-era or reserved values.
    let bad: Vec<u8> = (0..=255u8)
        .filter(|&m| {
            targets::by_mach(m).is_none_or(|t| !t.hsa || t.generation == Generation::R600)
                && targets::unmodelled_mach(m).is_none()
        })
        .collect();
    let m = pick(u, &bad)?;
    Ok(set_mach(c, m))
}

pub(super) fn elf_e_flags_mach_unmodelled(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let (m, _) = pick(u, targets::UNMODELLED)?;
    Ok(set_mach(c, m))
}

pub(super) fn elf_e_flags_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let defined = c.cov.defined_e_flags();
    // Bits 31:24 are the generic version in V6 and reserved before; keep
    // to the bits reserved in every version so the rule is this one.
    let bits: Vec<u32> = (0..24).filter(|b| defined >> b & 1 == 0).collect();
    let b = pick(u, &bits)?;
    Ok(patch_flags(c, |f| f | 1 << b))
}

/// The xnack (`shift` 8) or sramecc (`shift` 10) field made to disagree
/// with the processor: a setting where it has none, "unsupported" where
/// it has the feature (V4+; V3 has one bit, where 0 means off).
pub(super) fn feature_field(
    c: &Ctx<'_>,
    u: &mut Unstructured<'_>,
    has: bool,
    v3_bit: u32,
    shift: u32,
) -> R {
    let flags = c.co.target.e_flags();
    let new = if c.cov <= CodeObjectVersion::V3 {
        if has {
            return Ok(None);
        }
        flags | v3_bit
    } else if has {
        flags & !(3 << shift)
    } else {
        flags & !(3 << shift) | int(u, 1u32, 3)? << shift
    };
    Ok(patch_flags(c, |_| new))
}

pub(super) fn elf_e_flags_xnack(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    feature_field(c, u, c.t.xnack, 0x100, 8)
}

pub(super) fn elf_e_flags_sramecc(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    feature_field(c, u, c.t.sramecc, 0x200, 10)
}

pub(super) fn elf_e_flags_generic_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V6 {
        return Ok(None);
    }
    let v = if c.t.is_generic {
        0
    } else {
        int(u, 1u32, 255)?
    };
    Ok(patch_flags(c, |f| f & 0x00ff_ffff | v << 24))
}

pub(super) fn elf_e_flags_generic_needs_v6(c: &Ctx<'_>, _u: &mut Unstructured<'_>) -> R {
    if !c.t.is_generic {
        return Ok(None);
    }
    // V5 (EI_ABIVERSION 3) has the same metadata version as V6 and no
    // generic version byte.
    Ok(patch_header(c, |h| {
        h.e_ident.abi_version = CodeObjectVersion::V5.abi_version();
        h.e_flags.set(LE, h.e_flags.get(LE) & 0x00ff_ffff);
    }))
}

/// A drawn program header whose type is in `types`.
pub(super) fn phdr_of(
    e: &Ed<'_>,
    u: &mut Unstructured<'_>,
    types: &[u32],
) -> arbitrary::Result<Option<Ph>> {
    let ps: Vec<Ph> = e
        .phdrs()
        .into_iter()
        .filter(|p| types.contains(&p.p_type))
        .collect();
    if ps.is_empty() {
        return Ok(None);
    }
    Ok(Some(pick(u, &ps)?))
}

pub(super) fn elf_phdr_bounds(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // A segment the loader does not map runs past the end of the file
    // (a PT_LOAD or PT_NOTE would also lose its sections).
    let mut elf = c.case.elf.clone();
    let e = Ed::new(&mut elf);
    let Some(p) = phdr_of(&e, u, &[PT_PHDR, PT_GNU_RELRO, PT_GNU_STACK])? else {
        return Ok(None);
    };
    let past = e.len().saturating_sub(p.offset) + int(u, 1u64, 0x10000)?;
    Ok(patch_case(c, |e| {
        let ph = e.phdr_mut(p.at)?;
        ph.p_filesz.set(LE, past);
        ph.p_memsz.set(LE, past.max(ph.p_memsz.get(LE)));
        Some(())
    }))
}

pub(super) fn elf_phdr_sizes(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Segments other than PT_LOAD, whose p_memsz covers no section.
    let mut elf = c.case.elf.clone();
    let e = Ed::new(&mut elf);
    let Some(p) = phdr_of(&e, u, &[PT_PHDR, PT_DYNAMIC, PT_NOTE, PT_GNU_RELRO])? else {
        return Ok(None);
    };
    if p.filesz == 0 {
        return Ok(None);
    }
    let mem = int(u, 0, p.filesz - 1)?;
    Ok(patch_case(c, |e| {
        e.phdr_mut(p.at)?.p_memsz.set(LE, mem);
        Some(())
    }))
}

pub(super) fn elf_phdr_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let mut elf = c.case.elf.clone();
    let e = Ed::new(&mut elf);
    let all: Vec<u32> = e.phdrs().iter().map(|p| p.p_type).collect();
    let Some(p) = phdr_of(&e, u, &all)? else {
        return Ok(None);
    };
    let a = non_pow2(u, 3, 0x1_0000)?;
    Ok(patch_case(c, |e| {
        e.phdr_mut(p.at)?.p_align.set(LE, a);
        Some(())
    }))
}

/// A drawn section among `names`.
pub(super) fn section_of(
    e: &Ed<'_>,
    u: &mut Unstructured<'_>,
    names: &[&str],
) -> arbitrary::Result<Option<Sec>> {
    let ss: Vec<Sec> = e
        .sections()
        .into_iter()
        .filter(|s| names.contains(&s.name.as_str()))
        .collect();
    if ss.is_empty() {
        return Ok(None);
    }
    let i = u.choose_index(ss.len())?;
    Ok(ss.into_iter().nth(i))
}

/// Sections nothing the oracle checks reads (lld's dynamic linking
/// tables; the oracle takes symbols from `.symtab`).
pub(super) const UNREAD_SECTIONS: &[&str] =
    &[".dynsym", ".gnu.hash", ".hash", ".dynstr", ".dynamic"];

pub(super) fn elf_shdr_bounds(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Move the file bytes past the end (the address, which PT_LOAD
    // coverage is judged by, stays).
    let mut elf = c.case.elf.clone();
    let e = Ed::new(&mut elf);
    let Some(s) = section_of(&e, u, UNREAD_SECTIONS)? else {
        return Ok(None);
    };
    let off = e.len() - s.size.min(e.len()) + int(u, 1u64, 0x10000)?;
    Ok(patch_case(c, |e| {
        e.shdr_mut(s.hdr)?.sh_offset.set(LE, off);
        Some(())
    }))
}

pub(super) fn elf_shdr_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let mut elf = c.case.elf.clone();
    let e = Ed::new(&mut elf);
    // Not the note section, whose alignment the note reader also judges.
    let names: Vec<String> = e
        .sections()
        .into_iter()
        .skip(1)
        .map(|s| s.name)
        .filter(|n| n != ".note")
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let Some(s) = section_of(&e, u, &names)? else {
        return Ok(None);
    };
    let a = non_pow2(u, 3, 0x1_0000)?;
    Ok(patch_case(c, |e| {
        e.shdr_mut(s.hdr)?.sh_addralign.set(LE, a);
        Some(())
    }))
}

pub(super) fn elf_shstrndx(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let mut elf = c.case.elf.clone();
    let e = Ed::new(&mut elf);
    if u.arbitrary::<bool>()? {
        // e_shstrndx names a section that is not a string table, or none.
        let secs = e.sections();
        let mut bad: Vec<u16> = secs
            .iter()
            .filter(|s| s.sh_type != SHT_STRTAB)
            .map(|s| s.index as u16)
            .collect();
        bad.push(secs.len() as u16 + int(u, 0u16, 100)?);
        let v = pick(u, &bad)?;
        Ok(patch_header(c, |h| h.e_shstrndx.set(LE, v)))
    } else {
        // One unread section's name offset past the end of .shstrtab.
        let Some(s) = section_of(&e, u, UNREAD_SECTIONS)? else {
            return Ok(None);
        };
        let Some(strs) = e.section(".shstrtab") else {
            return Ok(None);
        };
        let off = strs.size as u32 + int(u, 0u32, 0x1000)?;
        Ok(patch_case(c, |e| {
            e.shdr_mut(s.hdr)?.sh_name.set(LE, off);
            Some(())
        }))
    }
}

pub(super) fn elf_load_segments(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let mut elf = c.case.elf.clone();
    let e = Ed::new(&mut elf);
    let Some(p) = phdr_of(&e, u, &[PT_LOAD])? else {
        return Ok(None);
    };
    Ok(patch_case(c, |e| {
        e.phdr_mut(p.at)?.p_type.set(LE, PT_NULL);
        Some(())
    }))
}

/// The mutators of this area, in catalogue order.
pub(super) static MUTATORS: &[Mutator] = &[
    Mutator {
        rule: &oracle::elf::HEADER_TRUNCATED,
        how: "cuts the file to 16-63 bytes",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_header_truncated,
    },
    Mutator {
        rule: &oracle::elf::IDENT_CLASS,
        how: "EI_CLASS other than 2",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_ident_class,
    },
    Mutator {
        rule: &oracle::elf::IDENT_DATA,
        how: "EI_DATA other than 1",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_ident_data,
    },
    Mutator {
        rule: &oracle::elf::IDENT_VERSION,
        how: "EI_VERSION other than 1",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_ident_version,
    },
    Mutator {
        rule: &oracle::elf::IDENT_OSABI,
        how: "EI_OSABI other than 64",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_ident_osabi,
    },
    Mutator {
        rule: &oracle::elf::IDENT_ABI_VERSION,
        how: "EI_ABIVERSION 5 or more",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_ident_abi_version,
    },
    Mutator {
        rule: &oracle::elf::IDENT_PAD,
        how: "a non-zero e_ident padding byte",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_ident_pad,
    },
    Mutator {
        rule: &oracle::elf::TYPE,
        how: "e_type other than ET_REL and ET_DYN",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_type,
    },
    Mutator {
        rule: &oracle::elf::MACHINE,
        how: "e_machine other than EM_AMDGPU",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_machine,
    },
    Mutator {
        rule: &oracle::elf::VERSION,
        how: "e_version other than 1",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_version,
    },
    Mutator {
        rule: &oracle::elf::ENTRY,
        how: "a non-zero e_entry",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_entry,
    },
    Mutator {
        rule: &oracle::elf::HEADER_SIZES,
        how: "e_ehsize other than 64",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_header_sizes,
    },
    Mutator {
        rule: &oracle::elf::E_FLAGS_MACH,
        how: "EF_AMDGPU_MACH none, r600-era or reserved",
        // amdhsa.target (V4+) still names the processor.
        also: &[&oracle::metadata::TARGET_MISMATCH],
        asm: MutantAsm::None,
        apply: elf_e_flags_mach,
    },
    Mutator {
        rule: &oracle::elf::E_FLAGS_MACH_UNMODELLED,
        how: "EF_AMDGPU_MACH of a processor the oracle does not model",
        also: &[&oracle::metadata::TARGET_MISMATCH],
        asm: MutantAsm::None,
        apply: elf_e_flags_mach_unmodelled,
    },
    Mutator {
        rule: &oracle::elf::E_FLAGS_RESERVED,
        how: "an e_flags bit the version does not define (below bit 24)",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_e_flags_reserved,
    },
    Mutator {
        rule: &oracle::elf::E_FLAGS_XNACK,
        how: "the xnack field set without xnack, or 'unsupported' with it",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_e_flags_xnack,
    },
    Mutator {
        rule: &oracle::elf::E_FLAGS_SRAMECC,
        how: "the sramecc field set without sramecc, or 'unsupported' with it",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_e_flags_sramecc,
    },
    Mutator {
        rule: &oracle::elf::E_FLAGS_GENERIC_VERSION,
        how: "V6: generic version 0 on a generic target, non-zero elsewhere",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_e_flags_generic_version,
    },
    Mutator {
        rule: &oracle::elf::GENERIC_NEEDS_V6,
        how: "a generic target's EI_ABIVERSION says V5",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_e_flags_generic_needs_v6,
    },
    Mutator {
        rule: &oracle::elf::PHDR_BOUNDS,
        how: "PT_PHDR, PT_GNU_RELRO or PT_GNU_STACK file bytes past the end",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_phdr_bounds,
    },
    Mutator {
        rule: &oracle::elf::PHDR_SIZES,
        how: "p_memsz below p_filesz in a segment other than PT_LOAD",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_phdr_sizes,
    },
    Mutator {
        rule: &oracle::elf::PHDR_ALIGN,
        how: "a p_align that is not a power of two",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_phdr_align,
    },
    Mutator {
        rule: &oracle::elf::SHDR_BOUNDS,
        how: "a dynamic-linking section's file bytes past the end",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_shdr_bounds,
    },
    Mutator {
        rule: &oracle::elf::SHDR_ALIGN,
        how: "an sh_addralign that is not a power of two",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_shdr_align,
    },
    Mutator {
        rule: &oracle::elf::SHSTRNDX,
        how: "e_shstrndx not a string table, or a section name past .shstrtab",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_shstrndx,
    },
    Mutator {
        rule: &oracle::elf::LOAD_SEGMENTS,
        how: "a PT_LOAD turned into PT_NULL",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_load_segments,
    },
];
