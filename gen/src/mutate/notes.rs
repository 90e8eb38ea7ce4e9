//! Mutators of `note.*` rules: the note section, and several metadata notes
//! (as ld.lld links them) with the rules between them.

use super::*;

use hsaco_oracle::elf::raw::{NoteHeader, LE, NHDR_SIZE, NT_AMDGPU_METADATA};

pub(super) fn note_section_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Powers of two that divide the note's address (0x200), so only the
    // note rule breaks; 0 and 1 read as 4.
    let a = pick(u, &[2u64, 16, 32, 64, 128, 256, 512])?;
    Ok(patch_case(c, |e| {
        let s = e.section(".note")?;
        if s.addr % a != 0 {
            return None;
        }
        e.shdr_mut(s.hdr)?.sh_addralign.set(LE, a);
        Some(())
    }))
}

pub(super) fn note_truncated(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // 4 or 8 bytes after the metadata note: a note header cut short.
    let n = pick(u, &[4usize, 8])?;
    let mut extra = Vec::with_capacity(n);
    for _ in 0..n {
        extra.push(u.arbitrary::<u8>()?);
    }
    Ok(Some(with_extra_notes(c.co.clone(), &extra)))
}

pub(super) fn note_name_terminator(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // A second note whose name has no terminating NUL (or a NUL inside).
    let n = int(u, 1usize, 12)?;
    let mut name = Vec::with_capacity(n + 2);
    for _ in 0..n {
        name.push(b'A' + int(u, 0u8, 25)?);
    }
    let rec = if u.arbitrary::<bool>()? {
        note_record(&name, false, int(u, 1u32, 0xffff)?, b"data")
    } else {
        let at = int(u, 0usize, name.len() - 1)?;
        name.insert(at, 0);
        note_record(&name, true, int(u, 1u32, 0xffff)?, b"data")
    };
    Ok(Some(with_extra_notes(c.co.clone(), &rec)))
}

pub(super) fn note_padding(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let md_len = emit::metadata_bytes(c.co).len();
    let v = int(u, 1u8, 255)?;
    // The byte after "AMDGPU\0" (name padding), or one after the
    // description when it is not a multiple of 4 bytes.
    let name_end = NHDR_SIZE + b"AMDGPU\0".len();
    let desc_at = name_end.div_ceil(4) * 4;
    let pads: Vec<usize> = std::iter::once(name_end)
        .chain((md_len..md_len.div_ceil(4) * 4).map(|i| desc_at + i))
        .collect();
    let at = pick(u, &pads)?;
    Ok(patch_case(c, |e| {
        let s = e.section(".note")?;
        e.set_u8(s.offset as usize + at, v);
        Some(())
    }))
}

pub(super) fn note_metadata_missing(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let ty = int_except(u, 0, 0xffff, &[u64::from(NT_AMDGPU_METADATA)])? as u32;
    Ok(patch_case(c, |e| {
        let s = e.section(".note")?;
        e.raw_mut::<NoteHeader>(s.offset as usize)?
            .n_type
            .set(LE, ty);
        Some(())
    }))
}

// Several metadata notes (as ld.lld links them) and the rules between
// them.

/// The case's metadata notes as MessagePack trees, at least two: a
/// one-note case's kernels are split at a drawn kernel, and a one-kernel
/// case gets a second note with no kernels. Also returns the model the
/// notes describe (the split recorded in it where the split is one).
pub(super) fn two_or_more_notes(
    c: &Ctx<'_>,
    u: &mut Unstructured<'_>,
) -> arbitrary::Result<Option<(CodeObject, Vec<Value>)>> {
    let mut co = c.co.clone();
    if co.note_starts.is_empty() && co.kernels.len() >= 2 {
        co.note_starts = vec![int(u, 1usize, co.kernels.len() - 1)?];
        co.printf_note = int(u, 0usize, 1)?;
    }
    let mut roots = Vec::new();
    for d in emit::metadata_note_descs(&co) {
        let Ok((v, _)) = msgpack::decode(&d) else {
            return Ok(None);
        };
        roots.push(v);
    }
    if roots.len() == 1 {
        let mut extra = roots[0].clone();
        kernels_mut(&mut extra).map(Vec::clear);
        let _ = del_key(&mut extra, "amdhsa.printf");
        roots.push(extra);
    }
    Ok(Some((co, roots)))
}

/// The model written with one metadata note per tree of `roots`.
pub(super) fn with_notes(object: CodeObject, roots: &[Value]) -> Out {
    let descs: Vec<Vec<u8>> = roots.iter().map(msgpack::encode).collect();
    let refs: Vec<&[u8]> = descs.iter().map(Vec::as_slice).collect();
    let elf = emit::elf::write_notes(&object, &refs);
    Out { object, elf }
}

/// Two drawn note indices `i < j` of `n` notes.
pub(super) fn two_notes(u: &mut Unstructured<'_>, n: usize) -> arbitrary::Result<(usize, usize)> {
    let j = int(u, 1usize, n - 1)?;
    let i = int(u, 0usize, j - 1)?;
    Ok((i, j))
}

pub(super) fn note_metadata_version_conflict(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some((co, mut roots)) = two_or_more_notes(c, u)? else {
        return Ok(None);
    };
    let j = int(u, 1usize, roots.len() - 1)?;
    let [major, minor] = co.metadata_version();
    let other = int_except(u, 0, 3, &[u64::from(minor)])?;
    let v = Value::Array(vec![Value::UInt(major.into()), Value::UInt(other)]);
    set_key(&mut roots[j], "amdhsa.version", v);
    Ok(Some(with_notes(co, &roots)))
}

pub(super) fn note_metadata_target_conflict(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V4 {
        return Ok(None);
    }
    let Some((co, mut roots)) = two_or_more_notes(c, u)? else {
        return Ok(None);
    };
    let j = int(u, 1usize, roots.len() - 1)?;
    // Another processor LLVM knows, named as LLVM names it.
    let others: Vec<&'static Target> = targets::hsa_targets()
        .filter(|t| t.llvm19() && !t.is_generic && t.name != c.t.name)
        .collect();
    let other = pick(u, &others)?;
    let v = Value::str(&format!("amdgcn-amd-amdhsa--{}", other.name));
    set_key(&mut roots[j], "amdhsa.target", v);
    Ok(Some(with_notes(co, &roots)))
}

pub(super) fn note_metadata_printf(c: &Ctx<'_>, u: &mut Unstructured<'_>, same: bool) -> R {
    let Some((co, mut roots)) = two_or_more_notes(c, u)? else {
        return Ok(None);
    };
    let (i, j) = two_notes(u, roots.len())?;
    let first = crate::metadata::arbitrary_printf(u)?;
    let mut second = first.clone();
    if !same {
        // One more format: a list that differs from the first.
        second.push(format!("{}:0:differs", second.len() + 1));
    }
    let list = |l: &[String]| Value::Array(l.iter().map(|s| Value::str(s)).collect());
    for (k, r) in roots.iter_mut().enumerate() {
        if k == i {
            set_key(r, "amdhsa.printf", list(&first));
        } else if k == j {
            set_key(r, "amdhsa.printf", list(&second));
        } else {
            let _ = del_key(r, "amdhsa.printf");
        }
    }
    Ok(Some(with_notes(co, &roots)))
}

pub(super) fn note_metadata_printf_conflict(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    note_metadata_printf(c, u, false)
}

pub(super) fn note_metadata_printf_repeated(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    note_metadata_printf(c, u, true)
}

pub(super) fn metadata_kernel_described_twice(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // One kernel's metadata in a second note too (as when two linked
    // objects both describe it).
    let Some((co, mut roots)) = two_or_more_notes(c, u)? else {
        return Ok(None);
    };
    let (i, j) = two_notes(u, roots.len())?;
    let (from, to) = if u.arbitrary::<bool>()? {
        (i, j)
    } else {
        (j, i)
    };
    let Some(ks) = kernels_mut(&mut roots[from]) else {
        return Ok(None);
    };
    if ks.is_empty() {
        return Ok(None);
    }
    let k = ks[u.choose_index(ks.len())?].clone();
    let Some(dst) = kernels_mut(&mut roots[to]) else {
        return Ok(None);
    };
    let at = int(u, 0usize, dst.len())?;
    dst.insert(at, k);
    Ok(Some(with_notes(co, &roots)))
}

/// The mutators of this area, in catalogue order.
pub(super) static MUTATORS: &[Mutator] = &[
    Mutator {
        rule: &oracle::notes::SECTION_ALIGN,
        how: "the note section aligned to 2 or 16-512",
        also: &[&oracle::notes::METADATA_MISSING],
        asm: MutantAsm::None,
        apply: note_section_align,
    },
    Mutator {
        rule: &oracle::notes::TRUNCATED,
        how: "4 or 8 bytes of a note header after the metadata note",
        also: &[],
        asm: MutantAsm::None,
        apply: note_truncated,
    },
    Mutator {
        rule: &oracle::notes::NAME_TERMINATOR,
        how: "a second note whose name lacks its NUL or has another",
        also: &[&oracle::notes::OWNER_TYPE],
        asm: MutantAsm::None,
        apply: note_name_terminator,
    },
    Mutator {
        rule: &oracle::notes::PADDING,
        how: "a non-zero padding byte after the name or the description",
        also: &[],
        asm: MutantAsm::None,
        apply: note_padding,
    },
    Mutator {
        rule: &oracle::notes::METADATA_MISSING,
        how: "the metadata note's type other than 32",
        also: &[&oracle::notes::OWNER_TYPE],
        asm: MutantAsm::None,
        apply: note_metadata_missing,
    },
    Mutator {
        rule: &oracle::notes::METADATA_VERSION_CONFLICT,
        how: "a later metadata note with another amdhsa.version",
        also: &[&oracle::metadata::VERSION_MISMATCH],
        asm: MutantAsm::None,
        apply: note_metadata_version_conflict,
    },
    Mutator {
        rule: &oracle::notes::METADATA_TARGET_CONFLICT,
        how: "V4+: a later metadata note naming another processor",
        also: &[&oracle::metadata::TARGET_MISMATCH],
        asm: MutantAsm::None,
        apply: note_metadata_target_conflict,
    },
    Mutator {
        rule: &oracle::notes::METADATA_PRINTF_CONFLICT,
        how: "two metadata notes with different amdhsa.printf lists",
        also: &[],
        asm: MutantAsm::None,
        apply: note_metadata_printf_conflict,
    },
    Mutator {
        rule: &oracle::notes::METADATA_PRINTF_REPEATED,
        how: "two metadata notes with the same amdhsa.printf list",
        also: &[],
        asm: MutantAsm::None,
        apply: note_metadata_printf_repeated,
    },
];
