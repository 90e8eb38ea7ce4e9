//! V2 mutators of `note.v2.*` rules: the "AMD" notes.

use super::*;

fn note_missing(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let ty = pick(
        u,
        &[
            NT_AMD_HSA_CODE_OBJECT_VERSION,
            NT_AMD_HSA_ISA_VERSION,
            NT_AMD_HSA_METADATA,
        ],
    )?;
    Ok(image(c, |img| {
        img.notes.retain(|n| n.n_type != ty);
        Some(())
    }))
}

fn note_isa_name_missing(c: &Ctx<'_>, _u: &mut Unstructured<'_>) -> R {
    Ok(image(c, |img| {
        img.notes.retain(|n| n.n_type != NT_AMD_HSA_ISA_NAME);
        Some(())
    }))
}

fn note_duplicate(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let which = int(u, 0usize, 3)?;
    let at = int(u, 0usize, 4)?;
    Ok(image(c, |img| {
        let n = img.notes.get(which)?.clone();
        // The copy goes after the original, so the first stays the one
        // readers take.
        let at = at.clamp(which + 1, img.notes.len());
        img.notes.insert(at, n);
        Some(())
    }))
}

fn note_desc_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let version = u.arbitrary::<bool>()?;
    let len = if version {
        int_except(u, 0, 24, &[8])? as usize
    } else {
        int(u, 0usize, 15)?
    };
    Ok(image(c, |img| {
        let ty = if version {
            NT_AMD_HSA_CODE_OBJECT_VERSION
        } else {
            NT_AMD_HSA_ISA_VERSION
        };
        img.note_mut(ty)?.desc.resize(len, 0);
        Some(())
    }))
}

fn note_code_object_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Not 1 either: that is code object V1, a format of its own
    // (note.code_object_v1).
    let major = int_except(u, 0, 8, &[1, 2])? as u32;
    let minor = int(u, 0u32, 3)?;
    Ok(image(c, |img| {
        let mut d = major.to_le_bytes().to_vec();
        d.extend_from_slice(&minor.to_le_bytes());
        img.note_mut(NT_AMD_HSA_CODE_OBJECT_VERSION)?.desc = d;
        Some(())
    }))
}

fn note_hsail(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let mut d = Vec::with_capacity(12);
    d.extend_from_slice(&int(u, 0u32, 2)?.to_le_bytes());
    d.extend_from_slice(&int(u, 0u32, 2)?.to_le_bytes());
    for _ in 0..3 {
        d.push(int(u, 0u8, 4)?);
    }
    d.push(0);
    let at = int(u, 0usize, 4)?;
    Ok(image(c, |img| {
        let at = at.min(img.notes.len());
        img.notes.insert(at, Note::amd(NT_AMD_HSA_HSAIL, d));
        Some(())
    }))
}

fn note_isa_version_names(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let (vendor, arch): (&[u8], &[u8]) = pick(
        u,
        &[
            (&b"ATI\0"[..], &b"AMDGPU\0"[..]),
            (b"amd\0", b"AMDGPU\0"),
            (b"AMD\0", b"AMDGCN\0"),
            (b"AMD\0", b"amdgpu\0"),
            (b"AMDX", b"AMDGPU\0"),
            (b"AMD\0", b"AMDGPUX"),
        ],
    )?;
    let v = model::isa_version(&c.co.target);
    Ok(image(c, |img| {
        let mut d = Vec::with_capacity(27);
        d.extend_from_slice(&4u16.to_le_bytes());
        d.extend_from_slice(&7u16.to_le_bytes());
        for x in v {
            d.extend_from_slice(&x.to_le_bytes());
        }
        d.extend_from_slice(vendor);
        d.extend_from_slice(arch);
        img.note_mut(NT_AMD_HSA_ISA_VERSION)?.desc = d;
        Some(())
    }))
}

fn note_isa_version_mach(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let v = other_isa(c, u)?;
    Ok(image(c, |img| {
        *img.note_mut(NT_AMD_HSA_ISA_VERSION)? = crate::emit::v2::isa_version_note(v);
        Some(())
    }))
}

fn note_isa_name_mach(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let own = model::isa_name(&c.co.target);
    let others: Vec<String> = model::LLVM14_V2_TARGETS
        .iter()
        .map(|n| format!("{}{n}", targets::TRIPLE_PREFIX))
        .chain([
            format!("{}gfx901", targets::TRIPLE_PREFIX),
            "amdgcn-amd-amdhsa-gfx803".to_owned(),
            own.replace("amdhsa", "amdpal"),
            format!("{own}+xnack"),
        ])
        .filter(|n| *n != own)
        .collect();
    let name = pick(u, &others.iter().map(String::as_str).collect::<Vec<_>>())?.to_owned();
    Ok(image(c, |img| {
        img.note_mut(NT_AMD_HSA_ISA_NAME)?.desc = name.into_bytes();
        Some(())
    }))
}

fn note_pal_metadata(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let pairs = int(u, 0usize, 4)?;
    let extra = int(u, 1usize, 7)?;
    let mut d = Vec::with_capacity(8 * pairs + extra);
    for _ in 0..8 * pairs + extra {
        d.push(u.arbitrary()?);
    }
    Ok(image(c, |img| {
        img.notes.push(Note::amd(NT_AMD_PAL_METADATA, d));
        Some(())
    }))
}

/// The mutators of this area, in catalogue order.
pub(super) static MUTATORS: &[Mutator] = &[
    Mutator {
        rule: &oracle::notes::V2_MISSING,
        how: "the version, ISA version or metadata note removed",
        also: &[],
        asm: MutantAsm::None,
        apply: note_missing,
    },
    Mutator {
        rule: &oracle::notes::V2_ISA_NAME_MISSING,
        how: "the NT_AMD_HSA_ISA_NAME note removed",
        also: &[],
        asm: MutantAsm::None,
        apply: note_isa_name_missing,
    },
    Mutator {
        rule: &oracle::notes::V2_DUPLICATE,
        how: "an \"AMD\" note repeated after itself",
        also: &[],
        asm: MutantAsm::None,
        apply: note_duplicate,
    },
    Mutator {
        rule: &oracle::notes::V2_DESC_SIZE,
        how: "the version note not 8 bytes, or the ISA version note under 16",
        also: &[],
        asm: MutantAsm::None,
        apply: note_desc_size,
    },
    Mutator {
        rule: &oracle::notes::V2_CODE_OBJECT_VERSION,
        how: "NT_AMD_HSA_CODE_OBJECT_VERSION with a major version other than 2 (or 1, V1)",
        also: &[],
        asm: MutantAsm::None,
        apply: note_code_object_version,
    },
    Mutator {
        rule: &oracle::notes::V2_HSAIL,
        how: "an NT_AMD_HSA_HSAIL note added",
        also: &[],
        asm: MutantAsm::None,
        apply: note_hsail,
    },
    Mutator {
        rule: &oracle::notes::V2_ISA_NAMES,
        how: "the ISA version note's vendor or architecture name changed",
        also: &[],
        asm: MutantAsm::None,
        apply: note_isa_version_names,
    },
    Mutator {
        rule: &oracle::notes::V2_ISA_MACH,
        how: "the ISA version note naming another version",
        also: &[],
        asm: MutantAsm::None,
        apply: note_isa_version_mach,
    },
    Mutator {
        rule: &oracle::notes::V2_ISA_NAME,
        how: "the ISA name note naming another processor",
        also: &[],
        asm: MutantAsm::None,
        apply: note_isa_name_mach,
    },
    Mutator {
        rule: &oracle::notes::V2_PAL_METADATA,
        how: "an NT_AMD_PAL_METADATA note of a size not a multiple of 8",
        also: &[],
        asm: MutantAsm::None,
        apply: note_pal_metadata,
    },
];
