//! Mutators of `symbol.*` rules: the symbol tables.

use super::*;

use hsaco_oracle::elf::raw::{Rela, Sym as RawSym, LE, STT_FUNC, STT_OBJECT};

pub(super) fn symbol_table(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let ent = int_except(u, 1, 64, &[24])?;
    Ok(patch_case(c, |e| {
        let s = e.section(".symtab")?;
        e.shdr_mut(s.hdr)?.sh_entsize.set(LE, ent);
        Some(())
    }))
}

pub(super) fn symbol_name(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // lld's local _DYNAMIC symbol gets a name past the string table.
    let k = int(u, 0u32, 0x1000)?;
    Ok(patch_case(c, |e| {
        let strtab = e.section(".strtab")?;
        let s = e.both("_DYNAMIC").into_iter().next()?;
        e.raw_mut::<RawSym>(s.at)?
            .st_name
            .set(LE, strtab.size as u32 + k);
        Some(())
    }))
}

/// The names of kernel `i`'s entry and descriptor symbols.
pub(super) fn kernel_syms(co: &CodeObject, i: usize) -> (String, String) {
    let n = &co.kernels[i].name;
    (n.clone(), format!("{n}.kd"))
}

/// The case written as a relocatable object (as llvm-mc writes it), with
/// one kernel's entry relocation of another type. (Another addend is
/// `symbol.entry.target`: the relocation then resolves elsewhere.)
pub(super) fn symbol_entry_relocation(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V3 {
        return Ok(None);
    }
    let (mut elf, relocs) = emit::relocatable_bytes(c.co);
    let Some(r) = relocs.get(any_kernel(c.co, u)?).copied() else {
        return Ok(None);
    };
    // R_AMDGPU_NONE, ABS32_LO, ABS32_HI, ABS64, REL32, ABS32, GOTPCREL.
    let ty = pick(u, &[0u64, 1, 2, 3, 4, 6, 7])?;
    let mut e = Ed::new(&mut elf);
    let Some(rela) = e.raw_mut::<Rela>(r.offset) else {
        return Ok(None);
    };
    rela.r_info = Rela::r_info(LE, false, r.symbol, ty as u32);
    Ok(Some(Out {
        object: c.co.clone(),
        elf,
    }))
}

pub(super) fn symbol_kd_type(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let (_, kd) = kernel_syms(c.co, any_kernel(c.co, u)?);
    let ty = pick(u, &[0u8, STT_FUNC, 5, 6, 7, 10, 13])?;
    Ok(patch_case(c, |e| {
        e.edit_sym(&kd, |raw, s| raw.st_info = s.info & 0xf0 | ty)
    }))
}

pub(super) fn symbol_kd_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let (_, kd) = kernel_syms(c.co, any_kernel(c.co, u)?);
    let size = int_except(u, 0, 4096, &[64])?;
    Ok(patch_case(c, |e| {
        e.edit_sym(&kd, |raw, _| raw.st_size.set(LE, size))
    }))
}

pub(super) fn symbol_kd_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Descriptor i (not the first) moves back 1 to 4 bytes, over the
    // reserved zero bytes that end descriptor i - 1; its bytes are written
    // there, with the entry offset adjusted and group_segment_fixed_size
    // 0 (in descriptor and metadata), so the overlap stays zero.
    let n = c.co.kernels.len();
    if n < 2 {
        return Ok(None);
    }
    let i = int(u, 1usize, n - 1)?;
    let back = int(u, 1u64, 4)?;
    let mut co = c.co.clone();
    co.kernels[i].descriptor.group_segment_fixed_size = 0;
    co.kernels[i].metadata.group_segment_fixed_size = 0;
    let out = remodel(co);
    let (name, kd) = kernel_syms(&out.object, i);
    let tc = out.object.target;
    let desc = out.object.kernels[i].descriptor.clone();
    Ok(patch(out, |e| {
        let at = e.kd(&name)?;
        let entry = e.u64(at + KD_ENTRY) as i64 + back as i64;
        let bytes = desc.encode(&tc, entry).to_bytes();
        let new = at - back as usize;
        e.put(new, &bytes);
        e.edit_sym(&kd, |raw, s| raw.st_value.set(LE, s.value - back))
    }))
}

pub(super) fn symbol_kd_section(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let (_, kd) = kernel_syms(c.co, any_kernel(c.co, u)?);
    let to = pick(u, &[".text", ".dynamic", ".note", ".dynstr"])?;
    Ok(patch_case(c, |e| {
        let idx = e.section(to)?.index as u16;
        e.edit_sym(&kd, |raw, _| raw.st_shndx.set(LE, idx))
    }))
}

pub(super) fn symbol_kd_duplicate(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Kernel j becomes a copy of kernel i (but for its name), then j's
    // descriptor symbol takes i's name and its entry i's code; j's
    // metadata .symbol then names no descriptor.
    let n = c.co.kernels.len();
    if n < 2 {
        return Ok(None);
    }
    let i = int(u, 0usize, n - 1)?;
    let j = (i + int(u, 1usize, n - 1)?) % n;
    let mut co = c.co.clone();
    let src = co.kernels[i].clone();
    let dst = &mut co.kernels[j];
    dst.descriptor = src.descriptor;
    dst.code = src.code;
    let (name, symbol) = (dst.metadata.name.clone(), dst.metadata.symbol.clone());
    dst.metadata = src.metadata;
    dst.metadata.name = name;
    dst.metadata.symbol = symbol;
    let out = remodel(co);
    let (_, kd_i) = kernel_syms(&out.object, i);
    let (_, kd_j) = kernel_syms(&out.object, j);
    let (name_i, _) = kernel_syms(&out.object, i);
    let (name_j, _) = kernel_syms(&out.object, j);
    Ok(patch(out, |e| {
        // The entry of descriptor j goes to kernel i's code, which the
        // entry check looks up by the (now shared) name.
        let code_i = e.both(&name_i).first()?.value;
        let kd_j_sym = e.both(&kd_j).first()?.clone();
        let at = e.kd(&name_j)? + KD_ENTRY;
        e.set_u64(at, code_i.wrapping_sub(kd_j_sym.value));
        let syms = e.both(&kd_j);
        for (t, s) in [".symtab", ".dynsym"].iter().zip(&syms) {
            let off = e.str_offset(t, &kd_i)?;
            e.raw_mut::<RawSym>(s.at)?.st_name.set(LE, off);
        }
        Some(())
    }))
}

pub(super) fn symbol_kernel_missing(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // The kernel symbol's name loses its first bytes ("name" -> "ame"),
    // to a string no other symbol has.
    let i = any_kernel(c.co, u)?;
    let (k, _) = kernel_syms(c.co, i);
    let taken: Vec<String> =
        c.co.kernels
            .iter()
            .flat_map(|k| [k.name.clone(), format!("{}.kd", k.name)])
            .chain(["_DYNAMIC".to_owned()])
            .collect();
    let cuts: Vec<usize> = (1..=k.len())
        .filter(|&d| !taken.contains(&k[d..].to_owned()))
        .collect();
    if cuts.is_empty() {
        return Ok(None);
    }
    let d = pick(u, &cuts)? as u32;
    Ok(patch_case(c, |e| {
        e.edit_sym(&k, |raw, _| raw.st_name.set(LE, raw.st_name.get(LE) + d))
    }))
}

pub(super) fn symbol_kernel_type(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let (k, _) = kernel_syms(c.co, any_kernel(c.co, u)?);
    let ty = pick(u, &[0u8, STT_OBJECT, 5, 6, 10, 13])?;
    Ok(patch_case(c, |e| {
        e.edit_sym(&k, |raw, s| raw.st_info = s.info & 0xf0 | ty)
    }))
}

pub(super) fn symbol_entry_target(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Still 256-byte aligned, but not this kernel's code.
    let i = any_kernel(c.co, u)?;
    let steps = int_except(u, 0, 16, &[8])? as i64 - 8;
    let (k, _) = kernel_syms(c.co, i);
    Ok(patch_case(c, |e| {
        let at = e.kd(&k)? + KD_ENTRY;
        let v = e.u64(at) as i64;
        e.set_u64(at, v.wrapping_add(256 * steps) as u64);
        Some(())
    }))
}

pub(super) fn symbol_entry_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // The kernel gets `s_nop 0` words before its s_endpgm; its symbol and
    // entry then move past some of them, off the 256-byte boundary.
    let i = any_kernel(c.co, u)?;
    let nops = int(u, 1usize, 63)?;
    let skip = int(u, 1usize, nops)? as u64 * 4;
    let mut co = c.co.clone();
    let code = &mut co.kernels[i].code;
    code.splice(0..0, std::iter::repeat_n(S_NOP_0, nops));
    let out = remodel(co);
    let (k, _) = kernel_syms(&out.object, i);
    Ok(patch(out, |e| {
        let at = e.kd(&k)? + KD_ENTRY;
        let v = e.u64(at);
        e.set_u64(at, v + skip);
        e.edit_sym(&k, |raw, s| {
            raw.st_value.set(LE, s.value + skip);
            raw.st_size.set(LE, s.size - skip);
        })
    }))
}

pub(super) fn symbol_kd_not_in_metadata(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    Ok(with_md(c.co.clone(), |m| {
        let ks = kernels_mut(m)?;
        (i < ks.len()).then(|| {
            ks.remove(i);
        })
    }))
}

pub(super) fn symbol_metadata_kernel_no_kd(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // A metadata entry (a copy of kernel i's) for a kernel the object does
    // not have.
    let i = any_kernel(c.co, u)?;
    let ghost = word(u)?;
    if c.co
        .kernels
        .iter()
        .any(|k| k.name == ghost || k.metadata.name == ghost)
    {
        return Ok(None);
    }
    Ok(with_md(c.co.clone(), |m| {
        let ks = kernels_mut(m)?;
        let mut copy = ks.get(i)?.clone();
        set_key(&mut copy, ".name", Value::str(&ghost))?;
        set_key(&mut copy, ".symbol", Value::str(&format!("{ghost}.kd")))?;
        ks.push(copy);
        Some(())
    }))
}

/// The mutators of this area, in catalogue order.
pub(super) static MUTATORS: &[Mutator] = &[
    Mutator {
        rule: &oracle::symbols::TABLE,
        how: ".symtab sh_entsize other than 24",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_table,
    },
    Mutator {
        rule: &oracle::symbols::NAME,
        how: "a symbol name offset past .strtab",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_name,
    },
    Mutator {
        rule: &oracle::symbols::KD_TYPE,
        how: "a descriptor symbol's type other than STT_OBJECT",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kd_type,
    },
    Mutator {
        rule: &oracle::symbols::KD_SIZE,
        how: "a descriptor symbol's size other than 64",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kd_size,
    },
    Mutator {
        rule: &oracle::symbols::KD_ALIGN,
        how: "a descriptor (not the first) moved back 1-4 bytes",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kd_align,
    },
    Mutator {
        rule: &oracle::symbols::KD_SECTION,
        how: "a descriptor symbol defined in .text, .dynamic, .note or .dynstr",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kd_section,
    },
    Mutator {
        rule: &oracle::symbols::KD_DUPLICATE,
        how: "two descriptor symbols with one name",
        also: &[&oracle::symbols::METADATA_KERNEL_NO_KD],
        asm: MutantAsm::None,
        apply: symbol_kd_duplicate,
    },
    Mutator {
        rule: &oracle::symbols::KERNEL_MISSING,
        how: "a kernel symbol renamed to a suffix of its name",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kernel_missing,
    },
    Mutator {
        rule: &oracle::symbols::KERNEL_TYPE,
        how: "a kernel symbol's type other than STT_FUNC",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kernel_type,
    },
    Mutator {
        rule: &oracle::symbols::ENTRY_RELOCATION,
        how: "written as a relocatable object, an entry relocation of a type other than R_AMDGPU_REL64",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_entry_relocation,
    },
    Mutator {
        rule: &oracle::symbols::ENTRY_TARGET,
        how: "the entry offset moved by a multiple of 256",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_entry_target,
    },
    Mutator {
        rule: &oracle::symbols::ENTRY_ALIGN,
        how: "entry and kernel symbol moved past leading s_nop words",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_entry_align,
    },
    Mutator {
        rule: &oracle::symbols::KD_NOT_IN_METADATA,
        how: "a kernel's metadata entry removed",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kd_not_in_metadata,
    },
    Mutator {
        rule: &oracle::symbols::METADATA_KERNEL_NO_KD,
        how: "a metadata entry for a kernel the object lacks",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_metadata_kernel_no_kd,
    },
];
