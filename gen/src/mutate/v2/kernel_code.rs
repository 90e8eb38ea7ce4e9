//! V2 mutators of `code.*` rules: `amd_kernel_code_t` fields.

use super::super::kd::{reserved_bits, rsrc1_reserved_bits};
use super::*;
use crate::kd::field_max;

fn code_version_major(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.amd_kernel_code_version_major = int_except(u, 0, 16, &[1])? as u32;
        Ok(Some(()))
    })
}

fn code_machine_kind(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.amd_machine_kind = int_except(u, 0, 0xffff, &[1])? as u16;
        Ok(Some(()))
    })
}

fn code_machine_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        let slot = int(u, 0u8, 2)?;
        let f = match slot {
            0 => &mut h.amd_machine_version_major,
            1 => &mut h.amd_machine_version_minor,
            _ => &mut h.amd_machine_version_stepping,
        };
        *f = int_except(u, 0, 15, &[u64::from(*f)])? as u16;
        Ok(Some(()))
    })
}

fn code_entry_offset_inside(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.kernel_code_entry_byte_offset = int(u, 0i64, 255)?;
        Ok(Some(()))
    })
}

fn code_entry_offset_alignment(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Into the kernel's own code, off the 256-byte boundary.
    if !v2(c) {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let len = c.co.kernels[i].code.len() as i64;
    if len == 0 {
        return Ok(None);
    }
    let align = kc::ENTRY_ALIGNMENT_BYTES as i64;
    let k = int(u, 1i64, (4 * len - 1).min(align - 1))?;
    Ok(code(c, i, |h| {
        h.kernel_code_entry_byte_offset = align + k;
        Some(())
    }))
}

fn code_address_alignment(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // The amd_kernel_code_t placed `skew` bytes past the 256-byte
    // boundary (a multiple of 4, not of 64), the code still at the next
    // boundary: the entry offset says how far.
    if !v2(c) {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let mut skew = 4 * int(u, 1u64, 63)?;
    if skew % kc::ALIGNMENT_BYTES == 0 {
        skew += 4;
    }
    Ok(image(c, |img| {
        let k = img.kernels.get_mut(i)?;
        k.skew = skew;
        // The header's 256 bytes end past the first boundary: the code
        // starts at the second.
        k.header.kernel_code_entry_byte_offset = 2 * kc::ENTRY_ALIGNMENT_BYTES as i64 - skew as i64;
        Some(())
    }))
}

fn code_rsrc1_priority(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        let v = int(u, 1u32, field_max(&l::PRIORITY))?;
        Ok(set_code_field(h, &l::PRIORITY, v))
    })
}

fn code_rsrc1_priv(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_flag(c, u, &l::PRIV)
}

fn code_rsrc1_debug_mode(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_flag(c, u, &l::DEBUG_MODE)
}

fn code_rsrc1_bulky(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_flag(c, u, &l::BULKY)
}

fn code_rsrc1_cdbg_user(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_flag(c, u, &l::CDBG_USER)
}

fn code_rsrc1_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_bit(c, u, Word::Rsrc1, &rsrc1_reserved_bits(c.t))
}

fn code_rsrc2_trap_handler(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_flag(c, u, &l::ENABLE_TRAP_HANDLER)
}

fn code_rsrc2_granulated_lds_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        let v = int(u, 1u32, field_max(&l::GRANULATED_LDS_SIZE))?;
        Ok(set_code_field(h, &l::GRANULATED_LDS_SIZE, v))
    })
}

fn code_rsrc2_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Bit 31 (the V2 processors are all before GFX12).
    code_bit(c, u, Word::Rsrc2, &reserved_bits(Word::Rsrc2, c.t))
}

fn code_properties_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let bits = bits_of(props::RESERVED1 | props::RESERVED2);
    code_bit(c, u, Word::Properties, &bits)
}

fn code_properties_wavefront_size32(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.t.wave32 {
        return Ok(None);
    }
    let bit = props::ENABLE_WAVEFRONT_SIZE32.trailing_zeros();
    code_bit(c, u, Word::Properties, &[bit])
}

fn code_private_element_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        let v = pick(u, &[0u32, 2, 3])?;
        h.code_properties = h.code_properties & !props::PRIVATE_ELEMENT_SIZE
            | v << props::PRIVATE_ELEMENT_SIZE_SHIFT;
        Ok(Some(()))
    })
}

fn code_is_ptr64(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |_, h| {
        h.code_properties &= !props::IS_PTR64;
        Ok(Some(()))
    })
}

fn code_xnack(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |_, h| {
        h.code_properties ^= props::IS_XNACK_ENABLED;
        Ok(Some(()))
    })
}

fn code_debug_sgprs(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        let v = int(u, 1u16, 0xffff)?;
        if u.arbitrary::<bool>()? {
            h.debug_wavefront_private_segment_offset_sgpr = v;
        } else {
            h.debug_private_segment_buffer_sgpr = v;
        }
        Ok(Some(()))
    })
}

fn code_reserved_vgpr_first(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.reserved_vgpr_first = int(u, 1u16, 0xffff)?;
        Ok(Some(()))
    })
}

fn code_reserved_sgpr_first(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.reserved_sgpr_first = int(u, 1u16, 0xffff)?;
        Ok(Some(()))
    })
}

fn code_segment_alignment(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Group or private (the kernarg alignment is also compared with the
    // metadata).
    code_any(c, u, |u, h| {
        let v = int(u, 0u8, 3)?;
        if u.arbitrary::<bool>()? {
            h.group_segment_alignment = v;
        } else {
            h.private_segment_alignment = v;
        }
        Ok(Some(()))
    })
}

fn code_wavefront_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.wavefront_size = int_except(u, 0, 255, &[6])? as u8;
        Ok(Some(()))
    })
}

fn code_granulated_sgpr_count(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let t = c.t;
    code_any(c, u, |u, h| {
        let Some(alloc) = h.allocated_sgprs(t) else {
            return Ok(None);
        };
        h.wavefront_sgpr_count = int(u, alloc + 1, 0xffff)? as u16;
        Ok(Some(()))
    })
}

fn code_granulated_vgpr_count(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let t = c.t;
    code_any(c, u, |u, h| {
        let alloc = h.allocated_vgprs(t);
        h.workitem_vgpr_count = int(u, alloc + 1, 0xffff)? as u16;
        Ok(Some(()))
    })
}

fn code_scratch_en(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Private segment bytes (descriptor and metadata alike) without
    // SCRATCH_EN: on a kernel without it, or with it cleared on one that
    // uses scratch.
    let i = any_kernel(c.co, u)?;
    let size = int(u, 1u32, 0x1_0000)?;
    Ok(model_edit(c, |co| {
        let k = co.kernels.get_mut(i)?;
        k.descriptor.enables.private_segment = false;
        if k.descriptor.private_segment_fixed_size == 0 && !k.descriptor.uses_dynamic_stack {
            k.descriptor.private_segment_fixed_size = size;
            k.metadata.private_segment_fixed_size = size;
        }
        Some(())
    }))
}

fn code_group_segment_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let v = int(u, c.t.lds_bytes.saturating_add(1), u32::MAX)?;
    Ok(model_edit(c, |co| {
        let k = co.kernels.get_mut(i)?;
        k.descriptor.group_segment_fixed_size = v;
        k.metadata.group_segment_fixed_size = v;
        Some(())
    }))
}

fn code_runtime_loader_kernel_symbol(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.runtime_loader_kernel_symbol = int(u, 1u64, u64::MAX)?;
        Ok(Some(()))
    })
}

fn code_reserved_bytes(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        let at = int(u, 0usize, h.reserved3.len() - 1)?;
        h.reserved3[at] = int(u, 1u8, 255)?;
        Ok(Some(()))
    })
}

fn code_control_directives_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        // The reserved byte ranges of amd_control_directives_t, as the
        // oracle's layout gives them (half-open).
        let ranges = hsaco_oracle::layout::v2::CONTROL_DIRECTIVES_RESERVED_RANGES;
        let (lo, hi) = ranges[usize::from(!u.arbitrary::<bool>()?)];
        let at = int(u, lo, hi - 1)?;
        h.control_directives[at] = int(u, 1u8, 255)?;
        Ok(Some(()))
    })
}

/// The mutators of this area, in catalogue order.
pub(super) static MUTATORS: &[Mutator] = &[
    Mutator {
        rule: &oracle::kernel_code::VERSION_MAJOR,
        how: "amd_kernel_code_version_major other than 1",
        also: &[],
        asm: MutantAsm::None,
        apply: code_version_major,
    },
    Mutator {
        rule: &oracle::kernel_code::MACHINE_KIND,
        how: "amd_machine_kind other than 1",
        also: &[],
        asm: MutantAsm::None,
        apply: code_machine_kind,
    },
    Mutator {
        rule: &oracle::kernel_code::MACHINE_VERSION,
        how: "one part of amd_machine_version changed",
        also: &[],
        asm: MutantAsm::None,
        apply: code_machine_version,
    },
    Mutator {
        rule: &oracle::kernel_code::ENTRY_OFFSET_INSIDE,
        how: "kernel_code_entry_byte_offset 0-255",
        also: &[&oracle::kernel_code::ENTRY_ALIGNMENT],
        asm: MutantAsm::None,
        apply: code_entry_offset_inside,
    },
    Mutator {
        rule: &oracle::kernel_code::ENTRY_ALIGNMENT,
        how: "the entry moved into the kernel's code off the 256-byte boundary",
        also: &[],
        asm: MutantAsm::None,
        apply: code_entry_offset_alignment,
    },
    Mutator {
        rule: &oracle::kernel_code::ADDRESS_ALIGNMENT,
        how: "an amd_kernel_code_t placed off a 64-byte boundary, its code still aligned",
        also: &[],
        asm: MutantAsm::None,
        apply: code_address_alignment,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC1_PRIORITY,
        how: "PRIORITY non-zero",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc1_priority,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC1_PRIV,
        how: "PRIV set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc1_priv,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC1_DEBUG_MODE,
        how: "DEBUG_MODE set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc1_debug_mode,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC1_BULKY,
        how: "BULKY set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc1_bulky,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC1_CDBG_USER,
        how: "CDBG_USER set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc1_cdbg_user,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC1_RESERVED,
        how: "a reserved rsrc1 bit set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc1_reserved,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC2_TRAP_HANDLER,
        how: "ENABLE_TRAP_HANDLER set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc2_trap_handler,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC2_GRANULATED_LDS_SIZE,
        how: "GRANULATED_LDS_SIZE non-zero",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc2_granulated_lds_size,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC2_RESERVED,
        how: "rsrc2 bit 31 set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc2_reserved,
    },
    Mutator {
        rule: &oracle::kernel_code::PROPERTIES_RESERVED,
        how: "a reserved code_properties bit set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_properties_reserved,
    },
    Mutator {
        rule: &oracle::kernel_code::PROPERTIES_WAVEFRONT_SIZE32,
        how: "ENABLE_WAVEFRONT_SIZE32 set (no V2 processor has wave32)",
        also: &[],
        asm: MutantAsm::None,
        apply: code_properties_wavefront_size32,
    },
    Mutator {
        rule: &oracle::kernel_code::PRIVATE_ELEMENT_SIZE,
        how: "private_element_size 0, 2 or 3",
        also: &[],
        asm: MutantAsm::None,
        apply: code_private_element_size,
    },
    Mutator {
        rule: &oracle::kernel_code::IS_PTR64,
        how: "is_ptr64 cleared",
        also: &[],
        asm: MutantAsm::None,
        apply: code_is_ptr64,
    },
    Mutator {
        rule: &oracle::kernel_code::XNACK,
        how: "is_xnack_enabled flipped",
        also: &[&oracle::check::CODE_METADATA_XNACK],
        asm: MutantAsm::None,
        apply: code_xnack,
    },
    Mutator {
        rule: &oracle::kernel_code::DEBUG_SGPRS,
        how: "a debug SGPR field non-zero without is_debug_enabled",
        also: &[],
        asm: MutantAsm::None,
        apply: code_debug_sgprs,
    },
    Mutator {
        rule: &oracle::kernel_code::RESERVED_VGPR_FIRST,
        how: "reserved_vgpr_first non-zero with no reserved VGPRs",
        also: &[],
        asm: MutantAsm::None,
        apply: code_reserved_vgpr_first,
    },
    Mutator {
        rule: &oracle::kernel_code::RESERVED_SGPR_FIRST,
        how: "reserved_sgpr_first non-zero with no reserved SGPRs",
        also: &[],
        asm: MutantAsm::None,
        apply: code_reserved_sgpr_first,
    },
    Mutator {
        rule: &oracle::kernel_code::SEGMENT_ALIGNMENT,
        how: "group or private segment alignment below 16 bytes",
        also: &[],
        asm: MutantAsm::None,
        apply: code_segment_alignment,
    },
    Mutator {
        rule: &oracle::kernel_code::WAVEFRONT_SIZE,
        how: "wavefront_size other than 6",
        also: &[&oracle::check::CODE_METADATA_WAVEFRONT_SIZE],
        asm: MutantAsm::None,
        apply: code_wavefront_size,
    },
    Mutator {
        rule: &oracle::kernel_code::GRANULATED_SGPR_COUNT,
        how: "wavefront_sgpr_count above the allocated SGPRs",
        also: &[&oracle::check::CODE_METADATA_SGPR_COUNT],
        asm: MutantAsm::None,
        apply: code_granulated_sgpr_count,
    },
    Mutator {
        rule: &oracle::kernel_code::GRANULATED_VGPR_COUNT,
        how: "workitem_vgpr_count above the allocated VGPRs",
        also: &[&oracle::check::CODE_METADATA_VGPR_COUNT],
        asm: MutantAsm::None,
        apply: code_granulated_vgpr_count,
    },
    Mutator {
        rule: &oracle::kernel_code::SCRATCH_EN,
        how: "private segment bytes without SCRATCH_EN",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_scratch_en,
    },
    Mutator {
        rule: &oracle::kernel_code::GROUP_SEGMENT_SIZE,
        how: "group segment (amd_kernel_code_t and metadata) above the processor's LDS",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_group_segment_size,
    },
    Mutator {
        rule: &oracle::kernel_code::RUNTIME_LOADER_KERNEL_SYMBOL,
        how: "runtime_loader_kernel_symbol non-zero",
        also: &[],
        asm: MutantAsm::None,
        apply: code_runtime_loader_kernel_symbol,
    },
    Mutator {
        rule: &oracle::kernel_code::RESERVED_BYTES,
        how: "a non-zero byte in 108-119",
        also: &[],
        asm: MutantAsm::None,
        apply: code_reserved_bytes,
    },
    Mutator {
        rule: &oracle::kernel_code::CONTROL_DIRECTIVES_RESERVED,
        how: "a non-zero reserved control directive byte",
        also: &[],
        asm: MutantAsm::None,
        apply: code_control_directives_reserved,
    },
];
