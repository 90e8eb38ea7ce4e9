//! Mutators of `sgpr.*` rules: the initial register state the enables
//! select (and the descriptor fields that size it).

use super::kd::kd_field;
use super::*;
use crate::kd::field_max;
use hsaco_oracle::layout::{self as l, BitField, Word};

pub(super) fn sgpr_user_sgpr_count_too_small(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let t = c.t;
    kd_edit(
        c,
        u,
        |k| k.descriptor.enables.implied_user_sgprs(t) > 0,
        |u, k| {
            let need = k.descriptor.enables.implied_user_sgprs(t);
            let n = u32::from(int(u, 0u16, need - 1)?);
            Ok(Some(super::kd::set_field(l::user_sgpr_count_field(t), n)))
        },
    )
}

pub(super) fn sgpr_user_sgpr_count_limit(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // 17 to 31 user SGPRs (33 to 63 on GFX12.5); on GFX6-GFX9 the SGPR
    // allocation is raised to its maximum so it still holds them.
    let t = c.t;
    let field = l::user_sgpr_count_field(t);
    let i = any_kernel(c.co, u)?;
    let n = int(u, u32::from(t.max_user_sgprs) + 1, field_max(field))?;
    let (k, _) = kernel_syms(c.co, i);
    let sgprs = &l::GRANULATED_WAVEFRONT_SGPR_COUNT;
    Ok(patch_case(c, |e| {
        kd_u32(e, &k, Word::Rsrc2.offset() as usize, |v| field.set(v, n))?;
        if t.generation < Generation::Gfx10 {
            kd_u32(e, &k, Word::Rsrc1.offset() as usize, |v| v | sgprs.mask())?;
        }
        Some(())
    }))
}

/// Adds user SGPR enable `f` to a kernel of `c` that lacks it and has
/// room for `n` more user SGPRs.
pub(super) fn add_user_enable(c: &Ctx<'_>, u: &mut Unstructured<'_>, f: &BitField, n: u16) -> R {
    let t = c.t;
    // Enables::user holds the kernel_code_properties enables where the
    // word does.
    let bit = f.shift as u16;
    let Some(i) = kernel_where(c.co, u, |k| {
        !k.descriptor.enables.user_bit(bit) && user_room(k, t) >= n
    })?
    else {
        return Ok(None);
    };
    let mut co = c.co.clone();
    co.kernels[i].descriptor.enables.user |= f.mask() as u8;
    refit_sgprs(&mut co, i);
    Ok(Some(remodel(co)))
}

pub(super) fn sgpr_private_segment_buffer_unsupported(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if !c.t.architected_flat_scratch {
        return Ok(None);
    }
    add_user_enable(c, u, &l::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER, 4)
}

pub(super) fn sgpr_flat_scratch_init_unsupported(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if !c.t.architected_flat_scratch && c.t.generation > Generation::Gfx6 {
        return Ok(None);
    }
    add_user_enable(c, u, &l::ENABLE_SGPR_FLAT_SCRATCH_INIT, 2)
}

pub(super) fn sgpr_vgpr_workitem_id_undefined(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // 3 is the one value of the two bits that names no work-item IDs.
    kd_field(c, u, &l::ENABLE_VGPR_WORKITEM_ID, 3)
}

pub(super) fn sgpr_allocation_too_small(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // GFX6-GFX9: every user and system SGPR enabled, the allocation cut to
    // one granule, and the metadata's .sgpr_count inside it.
    let t = c.t;
    if t.generation >= Generation::Gfx10 {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let mut co = c.co.clone();
    {
        let e = &mut co.kernels[i].descriptor.enables;
        e.user = crate::sgpr::supported_user_mask(t);
        let room = 16u16.saturating_sub(e.enabled_user_sgprs());
        if u16::from(e.preload_length) > room {
            e.preload_length = room as u8;
        }
        e.workgroup_ids = 7;
        e.workgroup_info = true;
        e.private_segment = true;
    }
    refit_sgprs(&mut co, i);
    let total = co.kernels[i].descriptor.enables.total_sgprs(t);
    let granule = if t.generation >= Generation::Gfx8 {
        16
    } else {
        8
    };
    if total <= granule {
        return Ok(None);
    }
    co.kernels[i].metadata.sgpr_count = int(u, 1u32, 8)?;
    let out = remodel(co);
    let (k, _) = kernel_syms(&out.object, i);
    Ok(patch(out, |e| {
        kd_u32(e, &k, Word::Rsrc1.offset() as usize, |v| {
            l::GRANULATED_WAVEFRONT_SGPR_COUNT.set(v, 0)
        })
    }))
}

/// The mutators of this area, in catalogue order.
pub(super) static MUTATORS: &[Mutator] = &[
    Mutator {
        rule: &oracle::sgpr::USER_SGPR_COUNT_TOO_SMALL,
        how: "USER_SGPR_COUNT below the enabled and preloaded SGPRs",
        also: &[],
        asm: MutantAsm::None,
        apply: sgpr_user_sgpr_count_too_small,
    },
    Mutator {
        rule: &oracle::sgpr::USER_SGPR_COUNT_LIMIT,
        how: "USER_SGPR_COUNT past the user SGPRs the target initialises (GFX6-GFX9: allocation raised to hold them)",
        also: &[&oracle::sgpr::USER_SGPR_COUNT_EXTRA],
        asm: MutantAsm::None,
        apply: sgpr_user_sgpr_count_limit,
    },
    Mutator {
        rule: &oracle::sgpr::PRIVATE_SEGMENT_BUFFER_UNSUPPORTED,
        how: "architected flat scratch: private segment buffer enabled",
        also: &[],
        asm: MutantAsm::None,
        apply: sgpr_private_segment_buffer_unsupported,
    },
    Mutator {
        rule: &oracle::sgpr::FLAT_SCRATCH_INIT_UNSUPPORTED,
        how: "GFX6 or architected flat scratch: flat scratch init enabled",
        also: &[],
        asm: MutantAsm::None,
        apply: sgpr_flat_scratch_init_unsupported,
    },
    Mutator {
        rule: &oracle::sgpr::VGPR_WORKITEM_ID_UNDEFINED,
        how: "ENABLE_VGPR_WORKITEM_ID 3",
        also: &[],
        asm: MutantAsm::None,
        apply: sgpr_vgpr_workitem_id_undefined,
    },
    Mutator {
        rule: &oracle::sgpr::ALLOCATION_TOO_SMALL,
        how: "GFX6-GFX9: every SGPR enabled, allocation cut to one granule",
        also: &[],
        asm: MutantAsm::None,
        apply: sgpr_allocation_too_small,
    },
];
