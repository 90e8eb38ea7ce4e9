//! [`KernelDescriptor::fields`]: every field for `explain`. Names,
//! positions, widths and which targets define a field come from the
//! layout table ([`crate::layout::FIELDS`]); this file only says how a
//! value reads to a person. The same vocabulary ([`Show`]) explains the
//! `amd_kernel_code_t` of code object V2 ([`crate::kernel_code`]).

use super::*;
use crate::layout::{self as l, BitField};

/// How `fields` explains a value; `T` is the structure the field is in.
pub(crate) enum Show<T: 'static> {
    /// The same text whatever the value ("must be 0").
    Fixed(&'static str),
    /// The first text when the value is non-zero, the second when 0.
    YesNo(&'static str, &'static str),
    /// A user SGPR enable that takes this many registers.
    UserSgprs(u32),
    /// A system SGPR enable.
    SystemSgpr,
    /// An exception enable: "trap on WHAT".
    Trap(&'static str),
    /// An exception CP reports: "exception on WHAT".
    Exception(&'static str),
    /// A count of this unit ("12 SGPRs used").
    Count(&'static str),
    /// A rounding mode.
    RoundMode,
    /// A denormal mode.
    DenormMode,
    /// Work-item ids set up in VGPRs.
    WorkitemIds,
    /// Computed from the structure, the target and the value.
    With(fn(&T, &Target, u64) -> String),
}

impl<T> Show<T> {
    /// The meaning of `value` of a field of `item` on `target`.
    pub(crate) fn text(&self, item: &T, target: &Target, value: u64) -> String {
        let on = value != 0;
        let pick = |a: &str, b: &str| if on { a.to_owned() } else { b.to_owned() };
        match self {
            Show::Fixed(s) => (*s).to_owned(),
            Show::YesNo(a, b) => pick(a, b),
            Show::UserSgprs(n) if on => format!("{n} user SGPR{}", if *n == 1 { "" } else { "s" }),
            Show::UserSgprs(_) => "not set up".to_owned(),
            Show::SystemSgpr => pick("system SGPR set up", "not set up"),
            Show::Trap(what) if on => format!("trap on {what}"),
            Show::Trap(what) => format!("no trap on {what}"),
            Show::Exception(what) if on => format!("exception on {what}"),
            Show::Exception(what) => format!("no exception on {what}"),
            Show::Count(unit) => format!("{value} {unit}"),
            Show::RoundMode => round_mode_name(value).to_owned(),
            Show::DenormMode => denorm_mode_name(value).to_owned(),
            Show::WorkitemIds => match value {
                0 => "work-item ID X",
                1 => "work-item IDs X, Y",
                2 => "work-item IDs X, Y, Z",
                _ => "undefined",
            }
            .to_owned(),
            Show::With(f) => f(item, target, value),
        }
    }
}

/// A rounding mode's name (FLOAT_ROUND_MODE_*).
pub(crate) fn round_mode_name(v: u64) -> &'static str {
    match v {
        0 => "round to nearest even",
        1 => "round toward +infinity",
        2 => "round toward -infinity",
        _ => "round toward zero",
    }
}

/// A denormal mode's name (FLOAT_DENORM_MODE_*).
pub(crate) fn denorm_mode_name(v: u64) -> &'static str {
    match v {
        0 => "flush source and destination denormals",
        1 => "flush output denormals",
        2 => "flush source denormals",
        _ => "no denormal flushing",
    }
}

/// [`Show::YesNo`] of a pair of texts shared with V2.
pub(crate) const fn yes_no<T>(texts: (&'static str, &'static str)) -> Show<T> {
    Show::YesNo(texts.0, texts.1)
}

/// Text of a field CP fills in.
const ZERO: Show<KernelDescriptor> = Show::Fixed("must be 0");

fn always(_: &Target) -> bool {
    true
}

/// A row, the targets `fields` lists it on (within those that define it),
/// and how its value reads.
pub(super) type Shown = (
    &'static BitField,
    fn(&Target) -> bool,
    Show<KernelDescriptor>,
);

/// How each row of [`l::FIELDS`] reads, and on which targets `fields`
/// lists it beyond the table's `defined` (a row without an entry is
/// listed wherever it is defined, read by its `meaning` in the table).
pub(super) static SHOWN: &[Shown] = &[
    (
        &l::GRANULATED_WORKITEM_VGPR_COUNT,
        always,
        Show::With(vgprs),
    ),
    (
        &l::GRANULATED_WAVEFRONT_SGPR_COUNT,
        always,
        Show::With(sgprs),
    ),
    (&l::PRIORITY, always, ZERO),
    (&l::FLOAT_ROUND_MODE_32, always, Show::RoundMode),
    (&l::FLOAT_ROUND_MODE_16_64, always, Show::RoundMode),
    (&l::FLOAT_DENORM_MODE_32, always, Show::DenormMode),
    (&l::FLOAT_DENORM_MODE_16_64, always, Show::DenormMode),
    (&l::PRIV, always, ZERO),
    (&l::ENABLE_DX10_CLAMP, always, yes_no(DX10_CLAMP)),
    (
        &l::ENABLE_WG_RR_EN,
        always,
        Show::YesNo(
            "round-robin work-group scheduling",
            "default work-group scheduling",
        ),
    ),
    (&l::DEBUG_MODE, always, ZERO),
    (&l::ENABLE_IEEE_MODE, always, yes_no(IEEE_MODE)),
    (
        &l::DISABLE_PERF,
        always,
        Show::YesNo(
            "performance counters disabled",
            "performance counters enabled",
        ),
    ),
    (&l::BULKY, always, ZERO),
    (&l::CDBG_USER, always, ZERO),
    (&l::FP16_OVFL, always, yes_no(FP16_OVFL)),
    // Only where the target has a CU mode to contrast with.
    (&l::WGP_MODE, |t| t.cumode, yes_no(WGP_MODE)),
    (&l::MEM_ORDERED, always, yes_no(MEM_ORDERED)),
    (&l::FWD_PROGRESS, always, yes_no(FWD_PROGRESS)),
    (
        &l::ENABLE_PRIVATE_SEGMENT,
        always,
        Show::With(private_segment),
    ),
    (&l::USER_SGPR_COUNT, always, Show::Count("user SGPRs")),
    // GFX12 has no trap handler bit to speak of.
    (
        &l::ENABLE_TRAP_HANDLER,
        |t| t.generation < Generation::Gfx12,
        Show::Fixed("should be 0 (set by CP)"),
    ),
    (&l::ENABLE_SGPR_WORKGROUP_ID_X, always, Show::SystemSgpr),
    (&l::ENABLE_SGPR_WORKGROUP_ID_Y, always, Show::SystemSgpr),
    (&l::ENABLE_SGPR_WORKGROUP_ID_Z, always, Show::SystemSgpr),
    (&l::ENABLE_SGPR_WORKGROUP_INFO, always, Show::SystemSgpr),
    (&l::ENABLE_VGPR_WORKITEM_ID, always, Show::WorkitemIds),
    (&l::ENABLE_EXCEPTION_ADDRESS_WATCH, always, ZERO),
    (&l::ENABLE_EXCEPTION_MEMORY, always, ZERO),
    (&l::GRANULATED_LDS_SIZE, always, ZERO),
    (
        &l::ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION,
        always,
        Show::Trap("invalid operation"),
    ),
    (
        &l::ENABLE_EXCEPTION_FP_DENORMAL_SOURCE,
        always,
        Show::Trap("denormal source"),
    ),
    (
        &l::ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO,
        always,
        Show::Trap("FP division by zero"),
    ),
    (
        &l::ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW,
        always,
        Show::Trap("FP overflow"),
    ),
    (
        &l::ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW,
        always,
        Show::Trap("FP underflow"),
    ),
    (
        &l::ENABLE_EXCEPTION_IEEE_754_FP_INEXACT,
        always,
        Show::Trap("FP inexact"),
    ),
    (
        &l::ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO,
        always,
        Show::Trap("integer division by zero"),
    ),
    (
        &l::WGP_TAKEOVER,
        always,
        Show::YesNo("WGP takeover", "no WGP takeover"),
    ),
    (
        &l::ACCUM_OFFSET,
        always,
        Show::With(|k, _, _| format!("AGPRs start at v{}", k.accum_offset())),
    ),
    (
        &l::TG_SPLIT,
        always,
        Show::YesNo("work-group may span CUs (no LDS)", "work-group on one CU"),
    ),
    (
        &l::SHARED_VGPR_COUNT,
        always,
        Show::With(|_, _, v| format!("{} shared VGPRs (wave64)", v * 8)),
    ),
    (&l::INST_PREF_SIZE_GFX11, always, INST_PREF_SIZE),
    (&l::INST_PREF_SIZE_GFX12, always, INST_PREF_SIZE),
    (
        &l::TRAP_ON_START,
        always,
        Show::YesNo("trap at wave start", "no trap at start"),
    ),
    (
        &l::TRAP_ON_END,
        always,
        Show::YesNo("trap at wave end", "no trap at end"),
    ),
    (
        &l::GLG_EN,
        always,
        Show::YesNo("group launch guarantee", "no group launch guarantee"),
    ),
    (
        &l::IMAGE_OP,
        always,
        Show::YesNo(
            "image instructions wait for graphics fences",
            "no image fence wait",
        ),
    ),
    (
        &l::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER,
        always,
        Show::UserSgprs(4),
    ),
    (&l::ENABLE_SGPR_DISPATCH_PTR, always, Show::UserSgprs(2)),
    (&l::ENABLE_SGPR_QUEUE_PTR, always, Show::UserSgprs(2)),
    (
        &l::ENABLE_SGPR_KERNARG_SEGMENT_PTR,
        always,
        Show::UserSgprs(2),
    ),
    (&l::ENABLE_SGPR_DISPATCH_ID, always, Show::UserSgprs(2)),
    (
        &l::ENABLE_SGPR_FLAT_SCRATCH_INIT,
        always,
        Show::UserSgprs(2),
    ),
    (
        &l::ENABLE_SGPR_PRIVATE_SEGMENT_SIZE,
        always,
        Show::UserSgprs(1),
    ),
    // The bit means nothing before GFX10 (no wave32 there).
    (
        &l::ENABLE_WAVEFRONT_SIZE32,
        |t| t.generation >= Generation::Gfx10,
        yes_no(WAVE32),
    ),
    (
        &l::USES_DYNAMIC_STACK,
        always,
        Show::YesNo("stack size not known at compile time", "fixed stack size"),
    ),
    (
        &l::KERNARG_PRELOAD_SPEC_LENGTH,
        always,
        Show::With(preload_length),
    ),
    (
        &l::KERNARG_PRELOAD_SPEC_OFFSET,
        always,
        Show::With(|_, _, v| format!("preload starts at kernarg byte {}", v * 4)),
    ),
];

// Texts V2's `amd_kernel_code_t` shares for the same bits.
pub(crate) const DX10_CLAMP: (&str, &str) = ("DX10 clamp: NaN clamped to 0", "NaN passed through");
pub(crate) const IEEE_MODE: (&str, &str) = ("IEEE mode", "IEEE mode off");
pub(crate) const FP16_OVFL: (&str, &str) = (
    "fp16 overflow clamps to +/-MAX_FP16",
    "fp16 overflow gives +/-INF",
);
pub(crate) const WGP_MODE: (&str, &str) = ("WGP mode", "CU mode");
pub(crate) const MEM_ORDERED: (&str, &str) = (
    "vmcnt reports loads and samples in order",
    "vmcnt may report samples out of order",
);
pub(crate) const FWD_PROGRESS: (&str, &str) = (
    "forward-progress wave scheduling",
    "oldest-first wave scheduling",
);
pub(crate) const WAVE32: (&str, &str) = ("wave32", "wave64");
const INST_PREF_SIZE: Show<KernelDescriptor> =
    Show::With(|_, _, v| format!("prefetch {} bytes of code", v * 128));

fn vgprs(k: &KernelDescriptor, t: &Target, _: u64) -> String {
    if t.accum_offset {
        format!(
            "{} VGPRs allocated (architectural + accumulation)",
            k.allocated_vgprs(t)
        )
    } else {
        let wave = if k.wave32(t) { "wave32" } else { "wave64" };
        format!("{} VGPRs allocated ({wave})", k.allocated_vgprs(t))
    }
}

fn sgprs(k: &KernelDescriptor, t: &Target, _: u64) -> String {
    match k.allocated_sgprs(t) {
        Some(n) => format!("{n} SGPRs allocated"),
        None => "ignored (reserved; a fixed SGPR block is allocated)".to_owned(),
    }
}

fn private_segment(_: &KernelDescriptor, t: &Target, v: u64) -> String {
    // Without architected flat scratch the bit also sets up the wave
    // offset SGPR.
    let (on, off) = if t.architected_flat_scratch {
        ("scratch enabled", "no scratch")
    } else {
        (
            "scratch enabled; private segment wave byte offset SGPR set up",
            "no scratch wave offset SGPR",
        )
    };
    if v != 0 { on } else { off }.to_owned()
}

fn preload_length(_: &KernelDescriptor, _: &Target, v: u64) -> String {
    if v == 0 {
        "no kernel arguments preloaded".to_owned()
    } else {
        format!("{v} dwords preloaded into user SGPRs")
    }
}

impl KernelDescriptor {
    /// Every field that applies to `target`, named after the descriptor
    /// field (`compute_pgm_rsrc1.granulated_workitem_vgpr_count`), with its
    /// raw value and a short meaning.
    pub fn fields(&self, target: &Target) -> Vec<Field> {
        let mut f = Vec::with_capacity(64);
        let mut push = |name: &'static str, value: u64, meaning: String| {
            f.push(Field {
                name,
                value,
                meaning,
            })
        };
        push(
            "group_segment_fixed_size",
            self.group_segment_fixed_size.into(),
            format!(
                "{} bytes of LDS per work-group",
                self.group_segment_fixed_size
            ),
        );
        push(
            "private_segment_fixed_size",
            self.private_segment_fixed_size.into(),
            format!(
                "{} bytes of scratch per work-item",
                self.private_segment_fixed_size
            ),
        );
        push(
            "kernarg_size",
            self.kernarg_size.into(),
            if self.kernarg_size == 0 {
                "not given".to_owned()
            } else {
                format!("{} bytes of kernel arguments", self.kernarg_size)
            },
        );
        push(
            "kernel_code_entry_byte_offset",
            self.kernel_code_entry_byte_offset as u64,
            format!(
                "entry at descriptor {:+}",
                self.kernel_code_entry_byte_offset
            ),
        );
        for row in l::FIELDS.iter().copied() {
            let v = u64::from(self.field(row));
            match SHOWN.iter().find(|(r, _, _)| std::ptr::eq(*r, row)) {
                Some((_, when, show)) if (row.defined)(target) && when(target) => {
                    push(row.path, v, show.text(self, target, v));
                }
                Some(_) => {}
                // A row with no entry of its own reads as the table says:
                // its meaning, and the value when it is a count.
                None if (row.defined)(target) => {
                    let meaning = if row.width == 1 {
                        format!("{} ({})", row.meaning, if v != 0 { "on" } else { "off" })
                    } else {
                        format!("{}: {v}", row.meaning)
                    };
                    push(row.path, v, meaning);
                }
                None => {}
            }
        }
        f
    }
}
