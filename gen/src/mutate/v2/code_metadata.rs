//! V2 mutators of the rules between an `amd_kernel_code_t` and the
//! metadata or notes (`code.metadata.*`, `code.note.isa_version`).

use super::metadata::md_wavefront_size;
use super::*;

fn code_md_kernarg_segment_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].metadata.kernarg_segment_size;
    let v = int_except(u, 0, 0x10_0000, &[u64::from(own)])? as u32;
    Ok(model_edit(c, |co| {
        co.kernels.get_mut(i)?.descriptor.kernarg_size = v;
        Some(())
    }))
}

fn code_md_kernarg_segment_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // KernargSegmentAlign above the 16 bytes the amd_kernel_code_t gives.
    let i = any_kernel(c.co, u)?;
    let v = 1u64 << int(u, 5u32, 16)?;
    Ok(yaml(c, |d| {
        code_props(d, i)?.set("KernargSegmentAlign", Yaml::UInt(v))
    }))
}

fn code_md_group_segment_fixed_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.group_segment_fixed_size;
    let v = int_except(u, 0, u64::from(c.t.lds_bytes), &[u64::from(own)])? as u32;
    Ok(meta_edit(c, i, |m| {
        m.group_segment_fixed_size = v;
        Some(())
    }))
}

fn code_md_private_segment_fixed_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.private_segment_fixed_size;
    let v = int_except(u, 0, 0x10_0000, &[u64::from(own)])? as u32;
    Ok(meta_edit(c, i, |m| {
        m.private_segment_fixed_size = v;
        Some(())
    }))
}

fn code_md_sgpr_count(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = model::sgpr_count(&c.co.target, &c.co.kernels[i].descriptor);
    let v = int_except(u, 0, 0xffff, &[u64::from(own)])? as u32;
    Ok(meta_edit(c, i, |m| {
        m.sgpr_count = v;
        Some(())
    }))
}

fn code_md_vgpr_count(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.next_free_vgpr;
    let v = int_except(u, 0, 0xffff, &[u64::from(own)])? as u32;
    Ok(meta_edit(c, i, |m| {
        m.vgpr_count = v;
        Some(())
    }))
}

fn code_md_dynamic_call_stack(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.uses_dynamic_stack;
    Ok(meta_edit(c, i, |m| {
        m.uses_dynamic_stack = Some(!own);
        Some(())
    }))
}

fn code_md_xnack(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // IsXNACKEnabled on a processor without XNACK (on one with it, the
    // metadata would disagree with e_flags too).
    if c.t.xnack {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    Ok(yaml(c, |d| {
        code_props(d, i)?.set("IsXNACKEnabled", Yaml::Bool(true))
    }))
}

fn code_note_isa_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // e_flags names a processor the oracle does not model; the
    // amd_kernel_code_t's machine version is not the ISA note's.
    let (mach, _) = pick(u, targets::UNMODELLED)?;
    let i = any_kernel(c.co, u)?;
    let v = other_isa(c, u)?;
    Ok(image(c, |img| {
        img.e_flags = img.e_flags & !hsaco_oracle::elf::raw::EF_AMDGPU_MACH | u32::from(mach);
        let h = &mut img.kernels.get_mut(i)?.header;
        let [ma, mi, st] = v.map(|x| x as u16);
        let [oa, oi, os] = c.t.isa_version.map(u16::from);
        if (ma, mi, st) == (oa, oi, os) {
            return None;
        }
        h.amd_machine_version_major = ma;
        h.amd_machine_version_minor = mi;
        h.amd_machine_version_stepping = st;
        Some(())
    }))
}

/// The mutators of this area, in catalogue order.
pub(super) static MUTATORS: &[Mutator] = &[
    Mutator {
        rule: &oracle::check::CODE_METADATA_KERNARG_SEGMENT_SIZE,
        how: "kernarg_segment_byte_size other than KernargSegmentSize",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_md_kernarg_segment_size,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_KERNARG_SEGMENT_ALIGN,
        how: "KernargSegmentAlign 32 or more (the amd_kernel_code_t says 16)",
        also: &[],
        asm: MutantAsm::None,
        apply: code_md_kernarg_segment_align,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_GROUP_SEGMENT_FIXED_SIZE,
        how: "GroupSegmentFixedSize other than the amd_kernel_code_t's",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_md_group_segment_fixed_size,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_PRIVATE_SEGMENT_FIXED_SIZE,
        how: "PrivateSegmentFixedSize other than the amd_kernel_code_t's",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_md_private_segment_fixed_size,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_WAVEFRONT_SIZE,
        how: "WavefrontSize other than the amd_kernel_code_t's 64",
        also: &[&oracle::metadata_v2::WAVEFRONT_SIZE],
        asm: MutantAsm::Rebuilds,
        apply: md_wavefront_size,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_SGPR_COUNT,
        how: "NumSGPRs other than wavefront_sgpr_count",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_md_sgpr_count,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_VGPR_COUNT,
        how: "NumVGPRs other than workitem_vgpr_count",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_md_vgpr_count,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_DYNAMIC_CALL_STACK,
        how: "IsDynamicCallStack flipped against is_dynamic_callstack",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_md_dynamic_call_stack,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_XNACK,
        how: "processors without XNACK: IsXNACKEnabled true",
        also: &[],
        asm: MutantAsm::None,
        apply: code_md_xnack,
    },
    Mutator {
        rule: &oracle::check::CODE_NOTE_ISA_VERSION,
        how: "e_flags naming an unmodelled processor, amd_machine_version not the ISA note's",
        also: &[&oracle::elf::E_FLAGS_MACH_UNMODELLED],
        asm: MutantAsm::None,
        apply: code_note_isa_version,
    },
];
