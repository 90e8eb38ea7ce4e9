//! [`KernelCode::fields`]: every member for `explain`. Names, positions,
//! widths and which processors define a member come from the layout table
//! ([`crate::layout::v2::MEMBERS`]); this file only says how a value reads
//! to a person, in the vocabulary the descriptor's `fields` uses.

use super::*;
use crate::kd::fields::{
    yes_no, Show, DX10_CLAMP, FP16_OVFL, FWD_PROGRESS, IEEE_MODE, MEM_ORDERED, WAVE32, WGP_MODE,
};
use crate::layout::v2::Member;

/// A row, whether `fields` lists it for this structure (beyond the
/// processors that define it), and how its value reads.
pub(super) type Shown = (&'static Member, fn(&KernelCode) -> bool, Show<KernelCode>);

fn always(_: &KernelCode) -> bool {
    true
}

/// The members of the control directives mean something only when some
/// directive is enabled.
fn with_directives(c: &KernelCode) -> bool {
    c.member(&v2::ENABLED_CONTROL_DIRECTIVES) != 0
}

const SET_BY_CP: Show<KernelCode> = Show::Fixed("must be 0 (set by CP)");
const WORK_ITEMS: Show<KernelCode> = Show::Count("work-items");

/// How each row of [`v2::MEMBERS`] reads; a row without an entry (the
/// groups of bits LLVM sets with one key) is not listed.
pub(super) static SHOWN: &[Shown] = &[
    (&v2::VERSION_MAJOR, always, Show::Fixed("must be 1")),
    (
        &v2::VERSION_MINOR,
        always,
        Show::Fixed("minor version (any)"),
    ),
    (&v2::MACHINE_KIND, always, Show::With(machine_kind)),
    (
        &v2::MACHINE_VERSION_MAJOR,
        always,
        Show::With(|_, t, v| isa(t, v, 0, "major")),
    ),
    (
        &v2::MACHINE_VERSION_MINOR,
        always,
        Show::With(|_, t, v| isa(t, v, 1, "minor")),
    ),
    (
        &v2::MACHINE_VERSION_STEPPING,
        always,
        Show::With(|_, t, v| isa(t, v, 2, "stepping")),
    ),
    (
        &v2::KERNEL_CODE_ENTRY_BYTE_OFFSET,
        always,
        Show::With(|_, _, v| format!("entry at amd_kernel_code_t {:+}", v as i64)),
    ),
    (
        &v2::KERNEL_CODE_PREFETCH_BYTE_OFFSET,
        always,
        Show::With(|_, _, v| format!("prefetch from amd_kernel_code_t {:+}", v as i64)),
    ),
    (
        &v2::KERNEL_CODE_PREFETCH_BYTE_SIZE,
        always,
        Show::With(prefetch_size),
    ),
    (
        &v2::MAX_SCRATCH_BACKING_MEMORY_BYTE_SIZE,
        always,
        Show::Fixed("deprecated; 0 from LLVM"),
    ),
    (
        &v2::GRANULATED_WORKITEM_VGPR_COUNT,
        always,
        Show::With(vgprs),
    ),
    (
        &v2::GRANULATED_WAVEFRONT_SGPR_COUNT,
        always,
        Show::With(sgprs),
    ),
    (&v2::PRIORITY, always, Show::Fixed("should be 0")),
    (&v2::FLOAT_ROUND_MODE_32, always, Show::RoundMode),
    (&v2::FLOAT_ROUND_MODE_16_64, always, Show::RoundMode),
    (&v2::FLOAT_DENORM_MODE_32, always, Show::DenormMode),
    (&v2::FLOAT_DENORM_MODE_16_64, always, Show::DenormMode),
    (&v2::PRIV, always, SET_BY_CP),
    (&v2::ENABLE_DX10_CLAMP, always, yes_no(DX10_CLAMP)),
    (&v2::DEBUG_MODE, always, SET_BY_CP),
    (&v2::ENABLE_IEEE_MODE, always, yes_no(IEEE_MODE)),
    (&v2::BULKY, always, SET_BY_CP),
    (&v2::CDBG_USER, always, SET_BY_CP),
    (&v2::FP16_OVFL, always, yes_no(FP16_OVFL)),
    (&v2::WGP_MODE, always, yes_no(WGP_MODE)),
    (&v2::MEM_ORDERED, always, yes_no(MEM_ORDERED)),
    (&v2::FWD_PROGRESS, always, yes_no(FWD_PROGRESS)),
    (
        &v2::ENABLE_SGPR_PRIVATE_SEGMENT_WAVE_BYTE_OFFSET,
        always,
        Show::YesNo(
            "scratch enabled; wave offset system SGPR set up",
            "no scratch",
        ),
    ),
    (&v2::USER_SGPR_COUNT, always, Show::Count("user SGPRs")),
    (
        &v2::ENABLE_TRAP_HANDLER,
        always,
        Show::Fixed("should be 0 (set by CP)"),
    ),
    (&v2::ENABLE_SGPR_WORKGROUP_ID_X, always, Show::SystemSgpr),
    (&v2::ENABLE_SGPR_WORKGROUP_ID_Y, always, Show::SystemSgpr),
    (&v2::ENABLE_SGPR_WORKGROUP_ID_Z, always, Show::SystemSgpr),
    (&v2::ENABLE_SGPR_WORKGROUP_INFO, always, Show::SystemSgpr),
    (&v2::ENABLE_VGPR_WORKITEM_ID, always, Show::WorkitemIds),
    (
        &v2::ENABLE_EXCEPTION_ADDRESS_WATCH,
        always,
        Show::Exception("address watch"),
    ),
    (
        &v2::ENABLE_EXCEPTION_MEMORY_VIOLATION,
        always,
        Show::Exception("memory violation"),
    ),
    (
        &v2::GRANULATED_LDS_SIZE,
        always,
        Show::Fixed("must be 0 (CP uses the dispatch packet)"),
    ),
    (
        &v2::ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION,
        always,
        Show::Trap("invalid operation"),
    ),
    (
        &v2::ENABLE_EXCEPTION_FP_DENORMAL_SOURCE,
        always,
        Show::Trap("denormal source"),
    ),
    (
        &v2::ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO,
        always,
        Show::Trap("FP division by zero"),
    ),
    (
        &v2::ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW,
        always,
        Show::Trap("FP overflow"),
    ),
    (
        &v2::ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW,
        always,
        Show::Trap("FP underflow"),
    ),
    (
        &v2::ENABLE_EXCEPTION_IEEE_754_FP_INEXACT,
        always,
        Show::Trap("FP inexact"),
    ),
    (
        &v2::ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO,
        always,
        Show::Trap("integer division by zero"),
    ),
    (
        &v2::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER,
        always,
        Show::UserSgprs(4),
    ),
    (&v2::ENABLE_SGPR_DISPATCH_PTR, always, Show::UserSgprs(2)),
    (&v2::ENABLE_SGPR_QUEUE_PTR, always, Show::UserSgprs(2)),
    (
        &v2::ENABLE_SGPR_KERNARG_SEGMENT_PTR,
        always,
        Show::UserSgprs(2),
    ),
    (&v2::ENABLE_SGPR_DISPATCH_ID, always, Show::UserSgprs(2)),
    (
        &v2::ENABLE_SGPR_FLAT_SCRATCH_INIT,
        always,
        Show::UserSgprs(2),
    ),
    (
        &v2::ENABLE_SGPR_PRIVATE_SEGMENT_SIZE,
        always,
        Show::UserSgprs(1),
    ),
    (
        &v2::ENABLE_SGPR_GRID_WORKGROUP_COUNT_X,
        always,
        Show::UserSgprs(1),
    ),
    (
        &v2::ENABLE_SGPR_GRID_WORKGROUP_COUNT_Y,
        always,
        Show::UserSgprs(1),
    ),
    (
        &v2::ENABLE_SGPR_GRID_WORKGROUP_COUNT_Z,
        always,
        Show::UserSgprs(1),
    ),
    (&v2::ENABLE_WAVEFRONT_SIZE32, always, yes_no(WAVE32)),
    (
        &v2::ENABLE_ORDERED_APPEND_GDS,
        always,
        Show::YesNo(
            "GDS ordered-append wave ID counter enabled",
            "no GDS ordered append",
        ),
    ),
    (
        &v2::PRIVATE_ELEMENT_SIZE,
        always,
        Show::With(|_, _, v| format!("{}-byte scratch swizzle element", 2u64 << v)),
    ),
    (
        &v2::IS_PTR64,
        always,
        Show::YesNo("64-bit global addresses", "32-bit global addresses"),
    ),
    (
        &v2::IS_DYNAMIC_CALLSTACK,
        always,
        Show::YesNo(
            "call stack size not known at compile time",
            "fixed private segment size",
        ),
    ),
    (
        &v2::IS_DEBUG_ENABLED,
        always,
        Show::YesNo("built for the debugger", "not built for the debugger"),
    ),
    (
        &v2::IS_XNACK_ENABLED,
        always,
        Show::YesNo(
            "conservative XNACK register allocation",
            "no XNACK replay support",
        ),
    ),
    (
        &v2::WORKITEM_PRIVATE_SEGMENT_BYTE_SIZE,
        always,
        Show::Count("bytes of scratch per work-item"),
    ),
    (
        &v2::WORKGROUP_GROUP_SEGMENT_BYTE_SIZE,
        always,
        Show::Count("bytes of LDS per work-group"),
    ),
    (
        &v2::GDS_SEGMENT_BYTE_SIZE,
        always,
        Show::Count("bytes of GDS"),
    ),
    (
        &v2::KERNARG_SEGMENT_BYTE_SIZE,
        always,
        Show::Count("bytes of kernel arguments"),
    ),
    (
        &v2::WORKGROUP_FBARRIER_COUNT,
        always,
        Show::Count("fbarriers"),
    ),
    (&v2::WAVEFRONT_SGPR_COUNT, always, Show::Count("SGPRs used")),
    (&v2::WORKITEM_VGPR_COUNT, always, Show::Count("VGPRs used")),
    (
        &v2::RESERVED_VGPR_FIRST,
        always,
        Show::With(|c, _, _| reserved_regs("v", c.reserved_vgpr_first, c.reserved_vgpr_count)),
    ),
    (
        &v2::RESERVED_VGPR_COUNT,
        always,
        Show::Count("VGPRs reserved"),
    ),
    (
        &v2::RESERVED_SGPR_FIRST,
        always,
        Show::With(|c, _, _| reserved_regs("s", c.reserved_sgpr_first, c.reserved_sgpr_count)),
    ),
    (
        &v2::RESERVED_SGPR_COUNT,
        always,
        Show::Count("SGPRs reserved"),
    ),
    (
        &v2::DEBUG_WAVEFRONT_PRIVATE_SEGMENT_OFFSET_SGPR,
        always,
        Show::With(debug_sgpr),
    ),
    (
        &v2::DEBUG_PRIVATE_SEGMENT_BUFFER_SGPR,
        always,
        Show::With(debug_sgpr),
    ),
    (
        &v2::KERNARG_SEGMENT_ALIGNMENT,
        always,
        Show::With(alignment),
    ),
    (&v2::GROUP_SEGMENT_ALIGNMENT, always, Show::With(alignment)),
    (
        &v2::PRIVATE_SEGMENT_ALIGNMENT,
        always,
        Show::With(alignment),
    ),
    (&v2::WAVEFRONT_SIZE, always, Show::With(lanes)),
    (&v2::CALL_CONVENTION, always, Show::With(call_convention)),
    (
        &v2::RUNTIME_LOADER_KERNEL_SYMBOL,
        always,
        Show::Fixed("must be 0 (set by the loader)"),
    ),
    (
        &v2::ENABLED_CONTROL_DIRECTIVES,
        always,
        Show::With(directive_mask),
    ),
    (
        &v2::ENABLE_BREAK_EXCEPTIONS,
        with_directives,
        Show::With(exception_mask),
    ),
    (
        &v2::ENABLE_DETECT_EXCEPTIONS,
        with_directives,
        Show::With(exception_mask),
    ),
    (
        &v2::MAX_DYNAMIC_GROUP_SIZE,
        with_directives,
        Show::Count("bytes"),
    ),
    (&v2::MAX_FLAT_GRID_SIZE, with_directives, WORK_ITEMS),
    (&v2::MAX_FLAT_WORKGROUP_SIZE, with_directives, WORK_ITEMS),
    (
        &v2::REQUIRED_DIM,
        with_directives,
        Show::Count("dimensions"),
    ),
    (&v2::REQUIRED_GRID_SIZE_X, with_directives, WORK_ITEMS),
    (&v2::REQUIRED_GRID_SIZE_Y, with_directives, WORK_ITEMS),
    (&v2::REQUIRED_GRID_SIZE_Z, with_directives, WORK_ITEMS),
    (&v2::REQUIRED_WORKGROUP_SIZE_X, with_directives, WORK_ITEMS),
    (&v2::REQUIRED_WORKGROUP_SIZE_Y, with_directives, WORK_ITEMS),
    (&v2::REQUIRED_WORKGROUP_SIZE_Z, with_directives, WORK_ITEMS),
];

fn machine_kind(_: &KernelCode, _: &Target, v: u64) -> String {
    match v {
        0 => "undefined",
        1 => "AMDGPU",
        _ => "unknown machine kind",
    }
    .to_owned()
}

/// Part `i` (major, minor, stepping) of the ISA version against `target`'s.
fn isa(target: &Target, v: u64, i: usize, what: &str) -> String {
    let want = target.isa_version.get(i).copied().unwrap_or(0);
    if v == u64::from(want) {
        format!("ISA {what} of {target}")
    } else {
        format!("{target} has ISA {what} {want}")
    }
}

fn prefetch_size(_: &KernelCode, _: &Target, v: u64) -> String {
    if v == 0 {
        "no prefetch information".to_owned()
    } else {
        format!("prefetch {v} bytes")
    }
}

fn vgprs(c: &KernelCode, t: &Target, _: u64) -> String {
    let wave = if c.wave32(t) { "wave32" } else { "wave64" };
    format!("{} VGPRs allocated ({wave})", c.allocated_vgprs(t))
}

fn sgprs(c: &KernelCode, t: &Target, _: u64) -> String {
    match c.allocated_sgprs(t) {
        Some(n) => format!("{n} SGPRs allocated"),
        None => "ignored (a fixed SGPR block is allocated)".to_owned(),
    }
}

fn reserved_regs(prefix: &str, first: u16, count: u16) -> String {
    match count {
        0 => "no registers reserved".to_owned(),
        1 => format!("{prefix}{first} reserved"),
        n => format!(
            "{prefix}[{first}:{}] reserved",
            u32::from(first) + u32::from(n) - 1
        ),
    }
}

fn debug_sgpr(_: &KernelCode, _: &Target, v: u64) -> String {
    match v {
        0 => "none (debugging off)".to_owned(),
        0xffff => "not used or not known".to_owned(),
        n => format!("s{n}"),
    }
}

fn alignment(_: &KernelCode, _: &Target, v: u64) -> String {
    match 1u64.checked_shl(v as u32) {
        Some(b) => format!("{b}-byte alignment"),
        None => "alignment beyond 2^63".to_owned(),
    }
}

fn lanes(_: &KernelCode, _: &Target, v: u64) -> String {
    match 1u64.checked_shl(v as u32) {
        Some(l) => format!("{l} lanes"),
        None => "beyond 2^63 lanes".to_owned(),
    }
}

fn call_convention(_: &KernelCode, _: &Target, v: u64) -> String {
    // The member is an i32: its low 32 bits, sign and all.
    match v as u32 as i32 {
        -1 => "no indirect functions".to_owned(),
        c => format!("call convention {c}"),
    }
}

fn directive_mask(_: &KernelCode, _: &Target, v: u64) -> String {
    if v == 0 {
        "no control directives".to_owned()
    } else {
        format!("directive mask {v:#x}")
    }
}

fn exception_mask(_: &KernelCode, _: &Target, v: u64) -> String {
    format!("exception mask {v:#x}")
}

impl KernelCode {
    /// Every field, named as LLVM's `.amd_kernel_code_t` and the documents
    /// name it (`compute_pgm_rsrc1.priv`, `code_properties.is_ptr64`), with
    /// its raw value and a short meaning for `target`. Signed fields are
    /// given as their two's-complement bits.
    pub fn fields(&self, target: &Target) -> Vec<Field> {
        let bytes = self.to_bytes();
        let mut f = Vec::with_capacity(96);
        for m in v2::MEMBERS.iter().copied() {
            let shown = SHOWN.iter().find(|(r, _, _)| std::ptr::eq(*r, m));
            let Some((_, when, show)) = shown else {
                continue;
            };
            if (m.defined)(target) && when(self) {
                let value = m.get(&bytes);
                f.push(Field {
                    name: m.name,
                    value,
                    meaning: show.text(self, target, value),
                });
            }
        }
        f
    }
}
