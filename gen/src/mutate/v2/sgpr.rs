//! V2 mutators of V2-only `sgpr.*` rules: the grid work-group count
//! enables.

use super::*;
use crate::kd::field_max;
use crate::sgpr::{max_user_sgprs, supported_user_mask};

/// Sets the code_properties bits `grid` (bits 7-9) and `user` (0-6) of a
/// drawn kernel's amd_kernel_code_t, USER_SGPR_COUNT to `declared` (or
/// the enables' count capped at 16), and raises the SGPR allocation to
/// hold the initial SGPRs.
fn with_grid(
    c: &Ctx<'_>,
    u: &mut Unstructured<'_>,
    user: u32,
    grid: u32,
    ok: impl Fn(u32) -> bool,
) -> R {
    if !v2(c) {
        return Ok(None);
    }
    let t = c.t;
    let i = any_kernel(c.co, u)?;
    let mut h = header(c, i);
    h.code_properties |= user | grid << props::ENABLE_SGPR_GRID_WORKGROUP_COUNT_X.trailing_zeros();
    let implied = hsaco_oracle::sgpr::v2::implied_user_sgpr_count(&h);
    if !ok(u32::from(implied)) {
        return Ok(None);
    }
    let declared = u32::from(implied.min(max_user_sgprs(t)));
    h.compute_pgm_rsrc2 = l::USER_SGPR_COUNT.set(h.compute_pgm_rsrc2, declared);
    let total = u32::from(hsaco_oracle::sgpr::v2::initial_state(&h, t).total_sgprs());
    while h.allocated_sgprs(t).is_some_and(|a| a < total) {
        let sgprs = &l::GRANULATED_WAVEFRONT_SGPR_COUNT;
        let g = h.granulated_wavefront_sgpr_count();
        if g >= field_max(sgprs) {
            return Ok(None);
        }
        h.compute_pgm_rsrc1 = sgprs.set(h.compute_pgm_rsrc1, g + 1);
    }
    Ok(code(c, i, |k| {
        *k = h;
        Some(())
    }))
}

fn sgpr_grid_unsupported(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // One count, X or the first two or all three, while they all fit in
    // the 16 initialized user SGPRs.
    let grid = pick(u, &[1u32, 3, 7])?;
    with_grid(c, u, 0, grid, |implied| implied <= 16)
}

fn sgpr_grid_not_initialized(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Every user SGPR enable the processor has, then the three counts:
    // the last of them past SGPR15.
    let mask = u32::from(supported_user_mask(c.t));
    with_grid(c, u, mask, 7, |implied| implied > 16)
}

/// The mutators of this area, in catalogue order.
pub(super) static MUTATORS: &[Mutator] = &[
    Mutator {
        rule: &oracle::sgpr::v2::GRID_WORKGROUP_COUNT_UNSUPPORTED,
        how: "grid work-group counts enabled (and counted in USER_SGPR_COUNT)",
        also: &[],
        asm: MutantAsm::None,
        apply: sgpr_grid_unsupported,
    },
    Mutator {
        rule: &oracle::sgpr::v2::GRID_WORKGROUP_COUNT_NOT_INITIALIZED,
        how: "GFX7+: every user SGPR and the three grid counts enabled, past SGPR15",
        also: &[&oracle::sgpr::v2::GRID_WORKGROUP_COUNT_UNSUPPORTED],
        asm: MutantAsm::None,
        apply: sgpr_grid_not_initialized,
    },
];
