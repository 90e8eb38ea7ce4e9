//! Mutators of `kd.*` rules: kernel descriptor fields.

use super::*;
use crate::kd::{field_max, shared_vgpr_room};
use hsaco_oracle::layout::{self as l, offsets, BitField, Word, KD_SIZE};

/// The reserved byte ranges of the descriptor (start, end) and the bytes
/// of each the mutants set, relative to the start (a sample: every byte
/// of the short ranges, dword starts and ends of the long one).
const RESERVED_SAMPLES: [(u64, u64, &[u64]); 3] = [
    (
        offsets::RESERVED0,
        offsets::KERNEL_CODE_ENTRY_BYTE_OFFSET,
        &[0, 1, 2, 3],
    ),
    (
        offsets::RESERVED1,
        offsets::COMPUTE_PGM_RSRC3,
        &[0, 4, 7, 8, 12, 16, 19],
    ),
    (offsets::RESERVED3, KD_SIZE as u64, &[0, 1, 2, 3]),
];

pub(super) fn kd_reserved_bytes(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let bytes: Vec<usize> = RESERVED_SAMPLES
        .iter()
        .flat_map(|(start, _, at)| at.iter().map(move |a| (start + a) as usize))
        .collect();
    kd_edit(
        c,
        u,
        |_| true,
        |u, _| {
            let at = pick(u, &bytes)?;
            Ok(Some(KdEdit::Byte(at, int(u, 1u8, 255)?)))
        },
    )
}

/// The edit that ORs `bits` into descriptor word `w`.
pub(super) fn or_bits(w: Word, bits: u32) -> KdEdit {
    if w.bits() == 16 {
        KdEdit::Or16(w.offset() as usize, bits as u16)
    } else {
        KdEdit::Or32(w.offset() as usize, bits)
    }
}

/// The edit that sets field `f` of a 32-bit word to `v`.
pub(super) fn set_field(f: &BitField, v: u32) -> KdEdit {
    KdEdit::Set32(f.word.offset() as usize, f.mask(), f.set(0, v))
}

/// The bits of word `w` no field defines on `t`, lowest first.
pub(super) fn reserved_bits(w: Word, t: &Target) -> Vec<u32> {
    let m = l::reserved_mask(w, t);
    (0..w.bits()).filter(|b| m >> b & 1 != 0).collect()
}

/// The reserved compute_pgm_rsrc1 bits of `t` in the order the mutants
/// draw them: the bits no target defines first, then those later
/// generations define (the order the draw has always used; another would
/// change the mutants of every seed).
pub(super) fn rsrc1_reserved_bits(t: &Target) -> Vec<u32> {
    let mut bits = reserved_bits(Word::Rsrc1, t);
    bits.sort_by_key(|&b| {
        l::FIELDS
            .iter()
            .any(|f| f.word == Word::Rsrc1 && f.mask() >> b & 1 != 0)
    });
    bits
}

/// OR one of `bits` (drawn) of word `w` into a drawn kernel's descriptor.
pub(super) fn kd_bit(c: &Ctx<'_>, u: &mut Unstructured<'_>, w: Word, bits: &[u32]) -> R {
    if bits.is_empty() {
        return Ok(None);
    }
    let b = pick(u, bits)?;
    kd_edit(c, u, |_| true, |_, _| Ok(Some(or_bits(w, 1 << b))))
}

/// Field `f` of a drawn kernel's descriptor set to `v` (a one-bit field:
/// set).
pub(super) fn kd_field(c: &Ctx<'_>, u: &mut Unstructured<'_>, f: &BitField, v: u32) -> R {
    let edit = if f.width == 1 {
        or_bits(f.word, f.mask())
    } else {
        set_field(f, v)
    };
    kd_edit(c, u, |_| true, |_, _| Ok(Some(edit)))
}

pub(super) fn kd_rsrc1_priority(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let v = int(u, 1u32, field_max(&l::PRIORITY))?;
    kd_field(c, u, &l::PRIORITY, v)
}

pub(super) fn kd_rsrc1_priv(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_field(c, u, &l::PRIV, 1)
}

pub(super) fn kd_rsrc1_debug_mode(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_field(c, u, &l::DEBUG_MODE, 1)
}

pub(super) fn kd_rsrc1_bulky(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_field(c, u, &l::BULKY, 1)
}

pub(super) fn kd_rsrc1_cdbg_user(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_field(c, u, &l::CDBG_USER, 1)
}

pub(super) fn kd_rsrc1_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_bit(c, u, Word::Rsrc1, &rsrc1_reserved_bits(c.t))
}

pub(super) fn kd_rsrc2_trap_handler(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // GFX12 has no trap handler bit to break the rule with.
    if c.t.generation >= Generation::Gfx12 {
        return Ok(None);
    }
    kd_field(c, u, &l::ENABLE_TRAP_HANDLER, 1)
}

pub(super) fn kd_rsrc2_exception_address_watch(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_field(c, u, &l::ENABLE_EXCEPTION_ADDRESS_WATCH, 1)
}

pub(super) fn kd_rsrc2_exception_memory(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_field(c, u, &l::ENABLE_EXCEPTION_MEMORY, 1)
}

pub(super) fn kd_rsrc2_granulated_lds_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let v = int(u, 1u32, field_max(&l::GRANULATED_LDS_SIZE))?;
    kd_field(c, u, &l::GRANULATED_LDS_SIZE, v)
}

pub(super) fn kd_rsrc2_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Bit 31 before GFX12 (WGP_TAKEOVER there): none on GFX12.
    kd_bit(c, u, Word::Rsrc2, &reserved_bits(Word::Rsrc2, c.t))
}

pub(super) fn kd_rsrc3_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_bit(c, u, Word::Rsrc3, &reserved_bits(Word::Rsrc3, c.t))
}

pub(super) fn kd_rsrc3_shared_vgpr_count_wave32(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let t = c.t;
    if !matches!(t.generation, Generation::Gfx10 | Generation::Gfx11) {
        return Ok(None);
    }
    let Some(i) = kernel_where(c.co, u, |k| {
        k.descriptor.enables.is_wave32(t)
            && shared_vgpr_room(k.descriptor.granulated_vgpr_count(t)) >= 1
    })?
    else {
        return Ok(None);
    };
    let mut co = c.co.clone();
    let d = &mut co.kernels[i].descriptor;
    let room = shared_vgpr_room(d.granulated_vgpr_count(t)) as u8;
    d.shared_vgpr_count = int(u, 1u8, room)?;
    Ok(Some(remodel(co)))
}

pub(super) fn kd_rsrc3_shared_vgpr_count_overflow(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Wave64 on GFX10-11: SHARED_VGPR_COUNT s with at least 4 * (64 - 2s)
    // + 1 VGPRs allocated (at most 256, the 6-bit field's limit).
    let t = c.t;
    if !matches!(t.generation, Generation::Gfx10 | Generation::Gfx11) {
        return Ok(None);
    }
    let Some(i) = kernel_where(c.co, u, |k| {
        !k.descriptor.enables.is_wave32(t) && k.descriptor.next_free_vgpr <= 256
    })?
    else {
        return Ok(None);
    };
    let s = int(u, 1u16, field_max(&l::SHARED_VGPR_COUNT) as u16)?;
    let need = 4 * (64 - 2 * s) + 1;
    let mut co = c.co.clone();
    let d = &mut co.kernels[i].descriptor;
    d.shared_vgpr_count = s as u8;
    d.next_free_vgpr = int(u, need.max(d.next_free_vgpr), 256)?;
    Ok(Some(remodel(co)))
}

pub(super) fn kd_rsrc3_accum_offset(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let t = c.t;
    if !t.accum_offset {
        return Ok(None);
    }
    // Kernels without AGPRs: with some, ACCUM_OFFSET + .agpr_count would
    // outgrow the allocation too (kd.metadata.vgpr_count).
    let Some(i) = kernel_where(c.co, u, |k| {
        k.descriptor.allocated_vgprs(t) < 256 && k.metadata.agpr_count.unwrap_or(0) == 0
    })?
    else {
        return Ok(None);
    };
    let mut co = c.co.clone();
    let d = &mut co.kernels[i].descriptor;
    let alloc = d.allocated_vgprs(t) as u16;
    d.accum_offset = 4 * int(u, alloc / 4 + 1, 64)?;
    Ok(Some(remodel(co)))
}

pub(super) fn kd_properties_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_bit(
        c,
        u,
        Word::Properties,
        &reserved_bits(Word::Properties, c.t),
    )
}

pub(super) fn kd_properties_wavefront_size32(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.t.generation >= Generation::Gfx10 {
        return Ok(None);
    }
    kd_field(c, u, &l::ENABLE_WAVEFRONT_SIZE32, 1)
}

pub(super) fn kd_kernarg_preload_unsupported(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.t.kernarg_preload {
        return Ok(None);
    }
    let v = int(u, 1u16, u16::MAX)?;
    let at = Word::KernargPreload.offset() as usize;
    kd_edit(c, u, |_| true, |_, _| Ok(Some(KdEdit::Set16(at, v))))
}

/// The preload fields of kernel `i` set to `len` dwords from dword `off`,
/// with the SGPRs refitted.
pub(super) fn set_preload(co: &mut CodeObject, i: usize, off: u16, len: u8) {
    let e = &mut co.kernels[i].descriptor.enables;
    e.preload_offset = off;
    e.preload_length = len;
    refit_sgprs(co, i);
}

pub(super) fn kd_kernarg_preload_length(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // More dwords than the target has user SGPRs (16; 32 on GFX12.5);
    // USER_SGPR_COUNT counts them (5 bits, 6 on GFX12.5), the SGPRs and
    // the kernarg segment hold them.
    let t = c.t;
    if !t.kernarg_preload {
        return Ok(None);
    }
    let over = crate::sgpr::max_user_sgprs(t) + 1;
    let most = field_max(l::user_sgpr_count_field(t)) as u16;
    let room = |k: &Kernel| most.saturating_sub(k.descriptor.enables.enabled_user_sgprs());
    let Some(i) = kernel_where(c.co, u, |k| room(k) >= over)? else {
        return Ok(None);
    };
    let mut co = c.co.clone();
    let len = int(u, over, room(&co.kernels[i]))? as u8;
    set_preload(&mut co, i, 0, len);
    let k = &mut co.kernels[i];
    let bytes = 4 * u32::from(len);
    if k.metadata.kernarg_segment_size < bytes {
        k.metadata.kernarg_segment_size = bytes;
    }
    if k.descriptor.kernarg_size != 0 {
        k.descriptor.kernarg_size = k.metadata.kernarg_segment_size;
    }
    Ok(Some(remodel(co)))
}

pub(super) fn kd_kernarg_preload_exceeds_kernarg_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let t = c.t;
    if !t.kernarg_preload {
        return Ok(None);
    }
    let max_off = field_max(&l::KERNARG_PRELOAD_SPEC_OFFSET);
    let Some(i) = kernel_where(c.co, u, |k| {
        k.descriptor.kernarg_size != 0
            && k.descriptor.kernarg_size.div_ceil(4) <= max_off
            && user_room(k, t) + u16::from(k.descriptor.enables.preload_length) >= 1
    })?
    else {
        return Ok(None);
    };
    let mut co = c.co.clone();
    let k = &co.kernels[i];
    let room = user_room(k, t) + u16::from(k.descriptor.enables.preload_length);
    let len = int(u, 1u16, room)?;
    let dwords = k.descriptor.kernarg_size.div_ceil(4) as u16;
    // off + len > kernarg_size / 4, off at most the field's largest.
    let lo = (dwords + 1).saturating_sub(len);
    let off = int(u, lo, max_off as u16)?;
    if u32::from(off + len) * 4 <= k.descriptor.kernarg_size {
        return Ok(None);
    }
    set_preload(&mut co, i, off, len as u8);
    Ok(Some(remodel(co)))
}

pub(super) fn kd_metadata_group_segment_fixed_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.group_segment_fixed_size;
    let v = int_except(u, 0, 0x1_0000, &[u64::from(own)])? as u32;
    Ok(Some(meta_edit(c, i, |m| m.group_segment_fixed_size = v)))
}

pub(super) fn kd_metadata_private_segment_fixed_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.private_segment_fixed_size;
    let v = int_except(u, 0, 0x1_0000, &[u64::from(own)])? as u32;
    Ok(Some(meta_edit(c, i, |m| m.private_segment_fixed_size = v)))
}

pub(super) fn kd_metadata_kernarg_segment_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // A non-zero kernarg_size that is not the metadata's (at least the
    // preloaded bytes).
    let t = c.t;
    let i = any_kernel(c.co, u)?;
    let mut co = c.co.clone();
    let k = &mut co.kernels[i];
    let e = &k.descriptor.enables;
    let preload = if t.kernarg_preload && e.preload_length != 0 {
        4 * (u64::from(e.preload_offset) + u64::from(e.preload_length))
    } else {
        0
    };
    let v = int_except(
        u,
        preload.max(1),
        0x1_0000,
        &[u64::from(k.metadata.kernarg_segment_size)],
    )?;
    k.descriptor.kernarg_size = v as u32;
    Ok(Some(remodel(co)))
}

pub(super) fn kd_metadata_wavefront_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Only where both sizes exist: elsewhere the other size is also a
    // wave size the processor lacks (metadata.kernel.wavefront_size).
    if !(c.t.wave32 && c.t.wave64) {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    Ok(Some(meta_edit(c, i, |m| {
        m.wavefront_size = if m.wavefront_size == 32 { 64 } else { 32 }
    })))
}

pub(super) fn kd_metadata_sgpr_count(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // More than any GFX6-GFX9 allocation (16 granules of 8).
    if c.t.generation >= Generation::Gfx10 {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let v = int(u, 129u32, 1024)?;
    Ok(Some(meta_edit(c, i, |m| m.sgpr_count = v)))
}

pub(super) fn kd_metadata_vgpr_count(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let t = c.t;
    let i = any_kernel(c.co, u)?;
    let alloc = c.co.kernels[i].descriptor.allocated_vgprs(t);
    let acc = u32::from(c.co.kernels[i].descriptor.accum_offset.max(4));
    let delta = int(u, alloc + 1, alloc + 512)?;
    Ok(Some(meta_edit(c, i, |m| {
        if t.accum_offset {
            // More AGPRs, with the architectural VGPRs (the difference)
            // kept below ACCUM_OFFSET.
            let agprs = m.agpr_count.unwrap_or(0);
            let arch = (m.vgpr_count - agprs.min(m.vgpr_count)).min(acc);
            m.agpr_count = Some(agprs + delta);
            m.vgpr_count = arch + agprs + delta;
        } else if t.agprs && m.agpr_count.is_some() && delta % 2 == 0 {
            m.agpr_count = Some(delta);
        } else {
            m.vgpr_count = delta;
        }
    })))
}

pub(super) fn kd_metadata_accum_offset(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // gfx90a family: AGPRs in use (the oracle, like LLVM, lets
    // architectural VGPRs reach past ACCUM_OFFSET when there are none), and
    // one to eight architectural VGPRs past ACCUM_OFFSET; the allocation is
    // raised to hold them all.
    let t = c.t;
    if !t.accum_offset {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let mut co = c.co.clone();
    let k = &mut co.kernels[i];
    let acc = u32::from(k.descriptor.accum_offset.max(4));
    let agprs = match k.metadata.agpr_count {
        Some(a) if a > 0 => a,
        _ => int(u, 1u32, 64)?,
    };
    let over = int(u, 1u32, 8)?;
    let total = acc + over + agprs;
    if total > 512 {
        return Ok(None);
    }
    k.metadata.vgpr_count = total;
    k.metadata.agpr_count = Some(agprs);
    if k.descriptor.allocated_vgprs(t) < total {
        k.descriptor.next_free_vgpr = total as u16;
    }
    Ok(Some(remodel(co)))
}

pub(super) fn kd_metadata_uses_dynamic_stack(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V5 {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.uses_dynamic_stack;
    Ok(Some(meta_edit(c, i, |m| m.uses_dynamic_stack = Some(!own))))
}

pub(super) fn kd_metadata_workgroup_processor_mode(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V5 || !c.t.has_wgp_mode() {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.workgroup_processor_mode;
    Ok(Some(meta_edit(c, i, |m| {
        m.workgroup_processor_mode = Some(!own)
    })))
}

/// The mutators of this area, in catalogue order.
pub(super) static MUTATORS: &[Mutator] = &[
    Mutator {
        rule: &oracle::kd::RESERVED_BYTES,
        how: "a non-zero reserved descriptor byte",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_reserved_bytes,
    },
    Mutator {
        rule: &oracle::kd::RSRC1_PRIORITY,
        how: "PRIORITY non-zero",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc1_priority,
    },
    Mutator {
        rule: &oracle::kd::RSRC1_PRIV,
        how: "PRIV set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc1_priv,
    },
    Mutator {
        rule: &oracle::kd::RSRC1_DEBUG_MODE,
        how: "DEBUG_MODE set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc1_debug_mode,
    },
    Mutator {
        rule: &oracle::kd::RSRC1_BULKY,
        how: "BULKY set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc1_bulky,
    },
    Mutator {
        rule: &oracle::kd::RSRC1_CDBG_USER,
        how: "CDBG_USER set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc1_cdbg_user,
    },
    Mutator {
        rule: &oracle::kd::RSRC1_RESERVED,
        how: "a reserved rsrc1 bit set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc1_reserved,
    },
    Mutator {
        rule: &oracle::kd::RSRC2_TRAP_HANDLER,
        how: "GFX6-GFX11: ENABLE_TRAP_HANDLER set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc2_trap_handler,
    },
    Mutator {
        rule: &oracle::kd::RSRC2_EXCEPTION_ADDRESS_WATCH,
        how: "ENABLE_EXCEPTION_ADDRESS_WATCH set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc2_exception_address_watch,
    },
    Mutator {
        rule: &oracle::kd::RSRC2_EXCEPTION_MEMORY,
        how: "ENABLE_EXCEPTION_MEMORY set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc2_exception_memory,
    },
    Mutator {
        rule: &oracle::kd::RSRC2_GRANULATED_LDS_SIZE,
        how: "GRANULATED_LDS_SIZE non-zero",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc2_granulated_lds_size,
    },
    Mutator {
        rule: &oracle::kd::RSRC2_RESERVED,
        how: "GFX6-GFX11: rsrc2 bit 31 set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc2_reserved,
    },
    Mutator {
        rule: &oracle::kd::RSRC3_RESERVED,
        how: "an rsrc3 bit the target does not define",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc3_reserved,
    },
    Mutator {
        rule: &oracle::kd::RSRC3_SHARED_VGPR_COUNT_WAVE32,
        how: "GFX10-GFX11 wave32: SHARED_VGPR_COUNT non-zero",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc3_shared_vgpr_count_wave32,
    },
    Mutator {
        rule: &oracle::kd::RSRC3_SHARED_VGPR_COUNT_OVERFLOW,
        how: "GFX10-GFX11 wave64: shared VGPRs and VGPRs past 63 granules",
        also: &[],
        asm: MutantAsm::Rejected,
        apply: kd_rsrc3_shared_vgpr_count_overflow,
    },
    Mutator {
        rule: &oracle::kd::RSRC3_ACCUM_OFFSET,
        how: "gfx90a family: ACCUM_OFFSET past the allocated VGPRs",
        also: &[],
        asm: MutantAsm::Rejected,
        apply: kd_rsrc3_accum_offset,
    },
    Mutator {
        rule: &oracle::kd::PROPERTIES_RESERVED,
        how: "a reserved kernel_code_properties bit set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_properties_reserved,
    },
    Mutator {
        rule: &oracle::kd::PROPERTIES_WAVEFRONT_SIZE32,
        how: "before GFX10: ENABLE_WAVEFRONT_SIZE32 set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_properties_wavefront_size32,
    },
    Mutator {
        rule: &oracle::kd::KERNARG_PRELOAD_UNSUPPORTED,
        how: "kernarg_preload non-zero where preload does not exist",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_kernarg_preload_unsupported,
    },
    Mutator {
        rule: &oracle::kd::KERNARG_PRELOAD_LENGTH,
        how: "preload of more dwords than user SGPRs (17+; 33+ on GFX12.5), counted in USER_SGPR_COUNT",
        also: &[&oracle::sgpr::USER_SGPR_COUNT_LIMIT],
        asm: MutantAsm::Rejected,
        apply: kd_kernarg_preload_length,
    },
    Mutator {
        rule: &oracle::kd::KERNARG_PRELOAD_EXCEEDS_KERNARG_SIZE,
        how: "preloaded dwords past a non-zero kernarg_size",
        also: &[],
        asm: MutantAsm::Rejected,
        apply: kd_kernarg_preload_exceeds_kernarg_size,
    },
    Mutator {
        rule: &oracle::kd::METADATA_GROUP_SEGMENT_FIXED_SIZE,
        how: "metadata .group_segment_fixed_size differs",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_group_segment_fixed_size,
    },
    Mutator {
        rule: &oracle::kd::METADATA_PRIVATE_SEGMENT_FIXED_SIZE,
        how: "metadata .private_segment_fixed_size differs",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_private_segment_fixed_size,
    },
    Mutator {
        rule: &oracle::kd::METADATA_KERNARG_SEGMENT_SIZE,
        how: "a non-zero kernarg_size other than .kernarg_segment_size",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_kernarg_segment_size,
    },
    Mutator {
        rule: &oracle::kd::METADATA_WAVEFRONT_SIZE,
        how: "metadata .wavefront_size the other wave size (processors with both)",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_wavefront_size,
    },
    Mutator {
        rule: &oracle::kd::METADATA_SGPR_COUNT,
        how: "GFX6-GFX9: .sgpr_count above any allocation",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_sgpr_count,
    },
    Mutator {
        rule: &oracle::kd::METADATA_VGPR_COUNT,
        how: ".vgpr_count (or .agpr_count) above the allocated VGPRs",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_vgpr_count,
    },
    Mutator {
        rule: &oracle::kd::METADATA_ACCUM_OFFSET,
        how: "gfx90a family: an architectural VGPR past ACCUM_OFFSET",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_accum_offset,
    },
    Mutator {
        rule: &oracle::kd::METADATA_USES_DYNAMIC_STACK,
        how: "V5+: .uses_dynamic_stack flipped",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_uses_dynamic_stack,
    },
    Mutator {
        rule: &oracle::kd::METADATA_WORKGROUP_PROCESSOR_MODE,
        how: "V5+, WGP targets: .workgroup_processor_mode flipped",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_workgroup_processor_mode,
    },
];
