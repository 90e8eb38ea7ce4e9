//! V2 mutators of `symbol.v2.*` rules: the kernel symbols.

use super::*;
use hsaco_oracle::elf::raw::{LE, SHN_ABS, SHN_UNDEF};

fn symbol_kernel_section(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if !v2(c) {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let name = c.co.kernels[i].name.clone();
    let to = pick(
        u,
        &[
            idx::NOTE,
            idx::DYNSYM,
            idx::DYNSTR,
            idx::DYNAMIC,
            SHN_UNDEF,
            SHN_ABS,
        ],
    )?;
    Ok(patch_case(c, |e| {
        e.edit_sym(&name, |raw, _| raw.st_shndx.set(LE, to))
    }))
}

fn symbol_kernel_duplicate(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    Ok(image(c, |img| {
        img.duplicate_symbols.push(i);
        Some(())
    }))
}

fn symbol_entry(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // The entry 256-byte aligned but outside .text: past its end, or
    // before its start.
    if !v2(c) {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let img = Image::from_object(c.co);
    let (offs, end) = img.text_layout();
    let start = offs[i].0 as i64;
    let after = u.arbitrary::<bool>()?;
    let steps = int(u, 0i64, 64)?;
    let align = kc::ENTRY_ALIGNMENT_BYTES as i64;
    let entry = if after {
        ((end as i64 - start).max(0) + align - 1) / align * align + align * steps
    } else {
        -start - align * (steps + 1)
    };
    Ok(code(c, i, |h| {
        h.kernel_code_entry_byte_offset = entry;
        Some(())
    }))
}

fn symbol_kernel_not_in_metadata(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    Ok(yaml(c, |d| {
        let ks = kernels(d)?;
        if i >= ks.len() {
            return None;
        }
        ks.remove(i);
        if ks.is_empty() {
            d.remove("Kernels")?;
        }
        Some(())
    }))
}

fn symbol_metadata_kernel_no_symbol(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let ghost = word(u)?;
    if c.co
        .kernels
        .iter()
        .any(|k| k.name == ghost || k.metadata.name == ghost)
    {
        return Ok(None);
    }
    Ok(yaml(c, |d| {
        let ks = kernels(d)?;
        let mut copy = ks.get(i)?.clone();
        copy.set("Name", Yaml::Str(ghost.clone().into()))?;
        copy.set("SymbolName", Yaml::Str(format!("{ghost}@kd").into()))?;
        ks.push(copy);
        Some(())
    }))
}

/// The mutators of this area, in catalogue order.
pub(super) static MUTATORS: &[Mutator] = &[
    Mutator {
        rule: &oracle::symbols::V2_KERNEL_SECTION,
        how: "a kernel symbol defined in a non-code section, or none",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kernel_section,
    },
    Mutator {
        rule: &oracle::symbols::V2_KERNEL_DUPLICATE,
        how: "a kernel symbol defined twice in .symtab",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kernel_duplicate,
    },
    Mutator {
        rule: &oracle::symbols::V2_ENTRY,
        how: "the entry offset past the end of .text or before its start",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_entry,
    },
    Mutator {
        rule: &oracle::symbols::V2_KERNEL_NOT_IN_METADATA,
        how: "a kernel's metadata removed",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kernel_not_in_metadata,
    },
    Mutator {
        rule: &oracle::symbols::V2_METADATA_KERNEL_NO_SYMBOL,
        how: "metadata for a kernel the object lacks",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_metadata_kernel_no_symbol,
    },
];
