//! The initial register state of a wave: which SGPRs and VGPRs the packet
//! processor (CP/ADC/SPI) sets up before the first instruction, as the
//! kernel descriptor's enable bits select them.
//!
//! User SGPRs come first, dense from SGPR0, in a fixed order: private
//! segment buffer (4), dispatch ptr (2), queue ptr (2), kernarg segment ptr
//! (2), dispatch id (2), flat scratch init (2), private segment size (1),
//! then the preloaded kernel arguments. CP loads `USER_SGPR_COUNT` of them
//! (at most 16); the system SGPRs follow: work-group id X, Y, Z, work-group
//! info, and the private segment wave byte offset (absent on targets with
//! architected flat scratch, where the hardware adds the offset to
//! FLAT_SCRATCH itself). Work-item IDs arrive in VGPR0..2, or packed into
//! VGPR0 on targets that pack them.
//!
//! Code object V2 (`amd_kernel_code_t`, with three more user SGPRs for the
//! grid work-group counts) is in [`v2`].
//!
//! Sources: amdgpu-usage.rst "Initial Kernel Execution State" (completed from
//! LLVM's current AMDGPUUsage.rst, which adds preloaded kernargs and the
//! packed work-item ID layout); rocm-code-object-format.rst "Initial kernel
//! register state"; gcn-kernel-machine-state.md "Scalar registers layout";
//! LLVM `SIISelLowering.cpp` (allocateHSAUserSGPRs, allocatePreloadKernArgSGPRs),
//! `SIMachineFunctionInfo.cpp` (no wave offset SGPR with architected flat
//! scratch) and `AMDGPUAsmParser.cpp` (implied USER_SGPR_COUNT).

use crate::kd::{max_user_sgprs, KernelDescriptor};
use crate::rules::Sink;
use crate::targets::{Generation, Target, WorkItemIdLayout};
use serde::Serialize;

crate::declare_rules! {
    USER_SGPR_COUNT_TOO_SMALL = (Error, "sgpr.user_sgpr_count.too_small",
        "compute_pgm_rsrc2 USER_SGPR_COUNT is at least the number of user SGPRs the kernel_code_properties enables and kernarg_preload requests; otherwise the system SGPRs overwrite enabled user SGPRs.",
        "amdgpu-usage.rst: Kernel Descriptor (user_sgpr_count must match); AMDGPUAsmParser.cpp (amdgpu_user_sgpr_count smaller than implied by enabled user SGPRs)");
    USER_SGPR_COUNT_EXTRA = (Info, "sgpr.user_sgpr_count.extra",
        "USER_SGPR_COUNT exceeds the user SGPRs the enables imply; the extra SGPRs carry no defined value (LLVM pads to 16 user + work-group SGPRs on targets with the user SGPR init bug, e.g. gfx1100, and .amdhsa_user_sgpr_count may request more).",
        "AMDGPUAsmParser.cpp (.amdhsa_user_sgpr_count); observed with clang-19 for gfx1100 and gfx11-generic");
    USER_SGPR_COUNT_LIMIT = (Warning, "sgpr.user_sgpr_count.limit",
        "At most 16 user SGPRs (32 on GFX12.5) are requested (by USER_SGPR_COUNT or by the enables and preload): the hardware initializes only that many.",
        "amdgpu-usage.rst: Initial Kernel Execution State; AMDGPUBaseInfo.cpp (getMaxNumUserSGPRs is 16; 32 on GFX12.5, LLVM PR 192579)");
    PRIVATE_SEGMENT_BUFFER_UNSUPPORTED = (Warning, "sgpr.private_segment_buffer.unsupported",
        "Targets with architected flat scratch (gfx94x, GFX11, GFX12) have no private segment buffer user SGPRs; LLVM's assembler rejects the enable there.",
        "amdgpu-usage.rst (current): Private Segment Buffer; AMDGPUAsmParser.cpp (directive is not supported with architected flat scratch)");
    FLAT_SCRATCH_INIT_UNSUPPORTED = (Warning, "sgpr.flat_scratch_init.unsupported",
        "Flat scratch init user SGPRs exist only on GFX7 and later targets without architected flat scratch (GFX6 has no flat scratch; gfx94x, GFX11, GFX12 initialize FLAT_SCRATCH in hardware).",
        "amdgpu-usage.rst: Initial Kernel Execution State (GFX6 not supported); AMDGPUAsmParser.cpp (directive is not supported with architected flat scratch)");
    VGPR_WORKITEM_ID_UNDEFINED = (Warning, "sgpr.vgpr_workitem_id.undefined",
        "ENABLE_VGPR_WORKITEM_ID is 0 (X), 1 (X, Y) or 2 (X, Y, Z); 3 is SYSTEM_VGPR_WORKITEM_ID_UNDEFINED.",
        "amdgpu-usage.rst: System VGPR Work-Item ID Enumeration Values");
    ALLOCATION_TOO_SMALL = (Info, "sgpr.allocation.too_small",
        "On GFX6-GFX9 the initial SGPRs (USER_SGPR_COUNT plus the system SGPRs) exceed the SGPRs GRANULATED_WAVEFRONT_SGPR_COUNT allocates. LLVM sizes the allocation from the SGPRs the code uses, and counts the user SGPRs only when kernel arguments are preloaded; firmware sets up implicit user and system SGPRs either way, so the code must only not read past its allocation.",
        "LLVM AMDGPUAsmPrinter.cpp getSIProgramInfo (user SGPRs counted only with kernarg preload); LLVM PR 104743 and test amdhsa-kernarg-preload-num-sgprs.ll; docs/errata.md SGPR 1");
}

/// One run of initial SGPRs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SgprSlot {
    /// What the SGPRs hold, e.g. `kernarg_segment_ptr`, `workgroup_id_x`.
    pub name: &'static str,
    /// First SGPR number.
    pub first: u16,
    /// Number of SGPRs.
    pub count: u16,
    /// True for user SGPRs (set by CP), false for system SGPRs (set by
    /// ADC/SPI per wave).
    pub user: bool,
}

/// One initial VGPR value (or bit field of a VGPR).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct VgprSlot {
    /// `workitem_id_x`, `workitem_id_y` or `workitem_id_z`.
    pub name: &'static str,
    /// VGPR number.
    pub vgpr: u16,
    /// Least significant bit of the value within the VGPR.
    pub lsb: u8,
    /// Width of the value in bits.
    pub width: u8,
}

/// The register state a wave starts with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InitialState {
    /// User SGPRs implied by the enable bits and the preload length (what
    /// LLVM's assembler computes when `.amdhsa_user_sgpr_count` is absent).
    pub user_sgpr_count: u16,
    /// USER_SGPR_COUNT as the descriptor states it; system SGPRs start here.
    pub declared_user_sgpr_count: u16,
    /// Number of system SGPRs.
    pub system_sgpr_count: u16,
    /// SGPR runs in register order (overlapping if the descriptor declares
    /// fewer user SGPRs than it enables).
    pub sgprs: Vec<SgprSlot>,
    /// Work-item ID VGPRs.
    pub vgprs: Vec<VgprSlot>,
    /// True if the wave runs in wave32 mode.
    pub wave32: bool,
}

impl InitialState {
    /// Total initial SGPRs: the declared user SGPRs plus the system SGPRs.
    pub fn total_sgprs(&self) -> u16 {
        self.declared_user_sgpr_count
            .saturating_add(self.system_sgpr_count)
    }

    /// The SGPR run named `name`, if set up.
    pub fn sgpr(&self, name: &str) -> Option<&SgprSlot> {
        self.sgprs.iter().find(|s| s.name == name)
    }
}

/// User SGPRs enabled by kernel_code_properties, in load order, with their
/// sizes.
fn user_enables(kd: &KernelDescriptor) -> [(&'static str, bool, u16); 7] {
    [
        (
            "private_segment_buffer",
            kd.enable_sgpr_private_segment_buffer(),
            4,
        ),
        ("dispatch_ptr", kd.enable_sgpr_dispatch_ptr(), 2),
        ("queue_ptr", kd.enable_sgpr_queue_ptr(), 2),
        (
            "kernarg_segment_ptr",
            kd.enable_sgpr_kernarg_segment_ptr(),
            2,
        ),
        ("dispatch_id", kd.enable_sgpr_dispatch_id(), 2),
        ("flat_scratch_init", kd.enable_sgpr_flat_scratch_init(), 2),
        (
            "private_segment_size",
            kd.enable_sgpr_private_segment_size(),
            1,
        ),
    ]
}

/// Kernel-argument dwords preloaded into user SGPRs (0 on targets that
/// cannot preload, whose CP ignores the field).
fn preload_sgprs(kd: &KernelDescriptor, target: &Target) -> u16 {
    if target.kernarg_preload {
        // The length field is 7 bits, so this never truncates.
        kd.kernarg_preload_length() as u16
    } else {
        0
    }
}

/// The user SGPR count the enables and preload imply.
pub fn implied_user_sgpr_count(kd: &KernelDescriptor, target: &Target) -> u16 {
    let enabled: u16 = user_enables(kd).iter().filter(|e| e.1).map(|e| e.2).sum();
    enabled + preload_sgprs(kd, target)
}

/// System SGPRs in set-up order.
fn system_enables(kd: &KernelDescriptor, target: &Target) -> [(&'static str, bool); 5] {
    [
        ("workgroup_id_x", kd.enable_sgpr_workgroup_id_x()),
        ("workgroup_id_y", kd.enable_sgpr_workgroup_id_y()),
        ("workgroup_id_z", kd.enable_sgpr_workgroup_id_z()),
        ("workgroup_info", kd.enable_sgpr_workgroup_info()),
        // With architected flat scratch ENABLE_PRIVATE_SEGMENT only turns
        // scratch on; no wave offset SGPR is delivered.
        (
            "private_segment_wave_byte_offset",
            kd.enable_private_segment() && !target.architected_flat_scratch,
        ),
    ]
}

/// The work-item ID VGPRs that ENABLE_VGPR_WORKITEM_ID `enable` selects on
/// `target`.
fn workitem_vgprs(enable: u32, target: &Target) -> Vec<VgprSlot> {
    let ids = match enable {
        0 => 1,
        1 => 2,
        // 2 is X, Y, Z; 3 (undefined) is laid out like 2, and checked.
        _ => 3,
    };
    let names = ["workitem_id_x", "workitem_id_y", "workitem_id_z"];
    names
        .iter()
        .take(ids)
        .enumerate()
        .map(|(i, &name)| match target.work_item_ids {
            WorkItemIdLayout::Separate => VgprSlot {
                name,
                vgpr: i as u16,
                lsb: 0,
                width: 32,
            },
            WorkItemIdLayout::Packed => VgprSlot {
                name,
                vgpr: 0,
                lsb: (i * 10) as u8,
                width: 10,
            },
        })
        .collect()
}

/// Lays out the initial SGPRs and VGPRs of a wave of the kernel `kd` on
/// `target`.
pub fn initial_state(kd: &KernelDescriptor, target: &Target) -> InitialState {
    let mut sgprs = Vec::with_capacity(14);
    let mut next: u16 = 0;
    for (name, on, n) in user_enables(kd) {
        if on {
            sgprs.push(SgprSlot {
                name,
                first: next,
                count: n,
                user: true,
            });
            next += n;
        }
    }
    let preload = preload_sgprs(kd, target);
    if preload > 0 {
        sgprs.push(SgprSlot {
            name: "kernarg_preload",
            first: next,
            count: preload,
            user: true,
        });
        next += preload;
    }
    let implied = next;
    // USER_SGPR_COUNT is 5 bits.
    let declared = kd.user_sgpr_count(target) as u16;
    if declared > implied {
        sgprs.push(SgprSlot {
            name: "reserved_user_sgprs",
            first: implied,
            count: declared - implied,
            user: true,
        });
    }
    let mut sys = declared;
    let mut system_count = 0;
    for (name, on) in system_enables(kd, target) {
        if on {
            sgprs.push(SgprSlot {
                name,
                first: sys,
                count: 1,
                user: false,
            });
            sys += 1;
            system_count += 1;
        }
    }

    let vgprs = workitem_vgprs(kd.enable_vgpr_workitem_id(), target);

    InitialState {
        user_sgpr_count: implied,
        declared_user_sgpr_count: declared,
        system_sgpr_count: system_count,
        sgprs,
        vgprs,
        wave32: kd.wave32(target),
    }
}

/// Checks the initial-state rules of `kd` on `target`. `offset` is the
/// descriptor's file offset.
pub fn check(kd: &KernelDescriptor, target: &Target, offset: u64, sink: &mut Sink) {
    use crate::kd::offsets;
    let at = |field: u64| offset.saturating_add(field);
    let st = initial_state(kd, target);
    let implied = st.user_sgpr_count;
    let declared = st.declared_user_sgpr_count;

    if declared < implied {
        sink.report_at(
            &USER_SGPR_COUNT_TOO_SMALL,
            at(offsets::COMPUTE_PGM_RSRC2),
            format!("USER_SGPR_COUNT is {declared}, but the enabled user SGPRs and preload need {implied}"),
        );
    } else if declared > implied {
        sink.report_lazy(
            &USER_SGPR_COUNT_EXTRA,
            Some(at(offsets::COMPUTE_PGM_RSRC2)),
            || {
                format!(
                    "USER_SGPR_COUNT is {declared}; the enables and preload account for {implied}"
                )
            },
        );
    }
    let most = declared.max(implied);
    let max = max_user_sgprs(target);
    if u32::from(most) > max {
        sink.report_at(
            &USER_SGPR_COUNT_LIMIT,
            at(offsets::COMPUTE_PGM_RSRC2),
            format!(
                "{most} user SGPRs requested (USER_SGPR_COUNT {declared}, implied {implied}); only {max} are initialized"
            ),
        );
    }
    if target.architected_flat_scratch && kd.enable_sgpr_private_segment_buffer() {
        sink.report_at(
            &PRIVATE_SEGMENT_BUFFER_UNSUPPORTED,
            at(offsets::KERNEL_CODE_PROPERTIES),
            format!("ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER is set, but {target} has architected flat scratch"),
        );
    }
    if kd.enable_sgpr_flat_scratch_init() {
        if target.architected_flat_scratch {
            sink.report_at(
                &FLAT_SCRATCH_INIT_UNSUPPORTED,
                at(offsets::KERNEL_CODE_PROPERTIES),
                format!("ENABLE_SGPR_FLAT_SCRATCH_INIT is set, but {target} has architected flat scratch"),
            );
        } else if target.generation <= Generation::Gfx6 {
            sink.report_at(
                &FLAT_SCRATCH_INIT_UNSUPPORTED,
                at(offsets::KERNEL_CODE_PROPERTIES),
                format!("ENABLE_SGPR_FLAT_SCRATCH_INIT is set, but {target} has no flat scratch"),
            );
        }
    }
    if kd.enable_vgpr_workitem_id() == 3 {
        sink.report_at(
            &VGPR_WORKITEM_ID_UNDEFINED,
            at(offsets::COMPUTE_PGM_RSRC2),
            "ENABLE_VGPR_WORKITEM_ID is 3 (undefined)",
        );
    }
    if let Some(alloc) = kd.allocated_sgprs(target) {
        let total = u32::from(st.total_sgprs());
        if total > alloc {
            sink.report_at(
                &ALLOCATION_TOO_SMALL,
                at(offsets::COMPUTE_PGM_RSRC1),
                format!(
                    "{total} initial SGPRs ({declared} user + {} system), but GRANULATED_WAVEFRONT_SGPR_COUNT {} allocates {alloc}",
                    st.system_sgpr_count,
                    kd.granulated_wavefront_sgpr_count()
                ),
            );
        }
    }
}

/// The initial register state of code object V2 kernels, as the enable
/// bits of their `amd_kernel_code_t` select it.
///
/// The order is the V3+ one with three more user SGPRs after the private
/// segment size: private segment buffer (4), dispatch ptr (2), queue ptr
/// (2), kernarg segment ptr (2), dispatch id (2), flat scratch init (2),
/// private segment size (1), grid work-group count X, Y and Z (1 each);
/// then the system SGPRs work-group id X, Y, Z, work-group info and the
/// private segment wave byte offset; work-item IDs in VGPR0..2.
///
/// CP initializes at most 16 user SGPRs. The first seven enables take at
/// most 15, so the grid work-group count X always fits; Y and Z are set
/// only when fewer than 16 SGPRs precede them, that is only if their place
/// is below SGPR16. [`initial_state`] lists only what is initialized, and
/// its `user_sgpr_count` is the enabled count capped at 16, the value
/// COMPUTE_PGM_RSRC2.USER_SGPR takes (LLVM's `AMDKernelCodeT.h`: "set to
/// total count of SGPR user data registers enabled up to 16").
/// [`user_sgprs`] lists every enabled user SGPR at its place.
///
/// Work-group id Z follows X directly when Y is disabled: llc-14 gives
/// the kernel `group_id_z_only` in `tests/fixtures/v2/initial_state.ll`
/// USER_SGPR_COUNT 6 with TGID_X_EN and TGID_Z_EN only and reads Z from s7
/// (the documents' "if present then Work-group Id Y will also be present"
/// does not hold; docs/errata-kcode.md).
///
/// Sources: rocm-code-object-format.rst and hsa-code-object-abi-v0.40.txt
/// "Initial kernel register state"; LLVM `AMDKernelCodeT.h` (comments on
/// amd_code_property_mask_t and the initial state), `AMDGPUAsmPrinter.cpp`
/// (getAmdKernelCode never sets the grid work-group count enables).
pub mod v2 {
    use super::{
        system_enables, workitem_vgprs, InitialState, SgprSlot, ALLOCATION_TOO_SMALL,
        FLAT_SCRATCH_INIT_UNSUPPORTED, PRIVATE_SEGMENT_BUFFER_UNSUPPORTED, USER_SGPR_COUNT_EXTRA,
        USER_SGPR_COUNT_LIMIT, USER_SGPR_COUNT_TOO_SMALL, VGPR_WORKITEM_ID_UNDEFINED,
    };
    use crate::kd::max_user_sgprs;
    use crate::kernel_code::{offsets, KernelCode};
    use crate::rules::Sink;
    use crate::targets::{Generation, Target};

    crate::declare_rules! {
        GRID_WORKGROUP_COUNT_UNSUPPORTED = (Warning, "sgpr.grid_workgroup_count.unsupported",
            "Code object V2: enable_sgpr_grid_workgroup_count_X/Y/Z should be 0: CP does not implement these user SGPRs, LLVM never sets them, and code object V3 dropped the bits.",
            "rocm-code-object-format.rst: Initial kernel register state (enableGridWorkGroupCount* is not implemented in CP); AMDGPUAsmPrinter.cpp (getAmdKernelCode)");
        GRID_WORKGROUP_COUNT_NOT_INITIALIZED = (Warning, "sgpr.grid_workgroup_count.not_initialized",
            "Code object V2: grid work-group count Y and Z are initialized only when fewer than 16 SGPRs precede them; an enabled count whose place is SGPR16 or later holds no defined value.",
            "rocm-code-object-format.rst: Initial kernel register state; AMDKernelCodeT.h (only the first 16 user SGPRs are initialized)");
    }

    /// User SGPRs in load order: name, enabled, size.
    fn user_enables(code: &KernelCode) -> [(&'static str, bool, u16); 10] {
        [
            (
                "private_segment_buffer",
                code.enable_sgpr_private_segment_buffer(),
                4,
            ),
            ("dispatch_ptr", code.enable_sgpr_dispatch_ptr(), 2),
            ("queue_ptr", code.enable_sgpr_queue_ptr(), 2),
            (
                "kernarg_segment_ptr",
                code.enable_sgpr_kernarg_segment_ptr(),
                2,
            ),
            ("dispatch_id", code.enable_sgpr_dispatch_id(), 2),
            ("flat_scratch_init", code.enable_sgpr_flat_scratch_init(), 2),
            (
                "private_segment_size",
                code.enable_sgpr_private_segment_size(),
                1,
            ),
            (
                "grid_workgroup_count_x",
                code.enable_sgpr_grid_workgroup_count_x(),
                1,
            ),
            (
                "grid_workgroup_count_y",
                code.enable_sgpr_grid_workgroup_count_y(),
                1,
            ),
            (
                "grid_workgroup_count_z",
                code.enable_sgpr_grid_workgroup_count_z(),
                1,
            ),
        ]
    }

    /// Every enabled user SGPR run at its place in the V2 order, including
    /// those at SGPR16 or later that CP does not initialize.
    pub fn user_sgprs(code: &KernelCode) -> Vec<SgprSlot> {
        let mut out = Vec::with_capacity(10);
        let mut next: u16 = 0;
        for (name, on, count) in user_enables(code) {
            if on {
                out.push(SgprSlot {
                    name,
                    first: next,
                    count,
                    user: true,
                });
                next += count;
            }
        }
        out
    }

    /// The user SGPRs the enable bits request (up to 18; more than 16 can
    /// only come from the grid work-group counts).
    pub fn implied_user_sgpr_count(code: &KernelCode) -> u16 {
        user_enables(code).iter().filter(|e| e.1).map(|e| e.2).sum()
    }

    /// The most user SGPRs CP initializes on `target` (16).
    fn max_user(target: &Target) -> u16 {
        u16::try_from(max_user_sgprs(target)).unwrap_or(u16::MAX)
    }

    /// The user SGPRs CP initializes for these enables: the requested
    /// count capped at 16. COMPUTE_PGM_RSRC2.USER_SGPR must say this.
    pub fn initialized_user_sgpr_count(code: &KernelCode, target: &Target) -> u16 {
        implied_user_sgpr_count(code).min(max_user(target))
    }

    /// Lays out the initial SGPRs and VGPRs of a wave of the V2 kernel
    /// `code` on `target`: the initialized user SGPRs at their places (a
    /// `reserved_user_sgprs` run if USER_SGPR_COUNT says more), then the
    /// system SGPRs from USER_SGPR_COUNT on.
    pub fn initial_state(code: &KernelCode, target: &Target) -> InitialState {
        let max = max_user(target);
        let mut sgprs: Vec<SgprSlot> = user_sgprs(code)
            .into_iter()
            .filter(|s| s.first.saturating_add(s.count) <= max)
            .collect();
        let initialized = initialized_user_sgpr_count(code, target);
        // USER_SGPR_COUNT is 5 bits.
        let declared = code.user_sgpr_count() as u16;
        if declared > initialized {
            sgprs.push(SgprSlot {
                name: "reserved_user_sgprs",
                first: initialized,
                count: declared - initialized,
                user: true,
            });
        }
        let mut sys = declared;
        let mut system_count = 0;
        for (name, on) in system_enables(&code.as_descriptor(), target) {
            if on {
                sgprs.push(SgprSlot {
                    name,
                    first: sys,
                    count: 1,
                    user: false,
                });
                sys += 1;
                system_count += 1;
            }
        }
        InitialState {
            user_sgpr_count: initialized,
            declared_user_sgpr_count: declared,
            system_sgpr_count: system_count,
            sgprs,
            vgprs: workitem_vgprs(code.enable_vgpr_workitem_id(), target),
            wave32: code.wave32(target),
        }
    }

    /// Checks the initial-state rules of the V2 kernel `code` on `target`.
    /// `offset` is the `amd_kernel_code_t`'s file offset.
    pub fn check(code: &KernelCode, target: &Target, offset: u64, sink: &mut Sink) {
        let at = |field: u64| offset.saturating_add(field);
        let rsrc2 = at(offsets::COMPUTE_PGM_RSRC2);
        let props = at(offsets::CODE_PROPERTIES);
        let st = initial_state(code, target);
        let implied = implied_user_sgpr_count(code);
        let initialized = st.user_sgpr_count;
        let declared = st.declared_user_sgpr_count;
        let max = max_user(target);

        if declared < initialized {
            sink.report_at(
                &USER_SGPR_COUNT_TOO_SMALL,
                rsrc2,
                format!(
                    "USER_SGPR_COUNT is {declared}, but the enabled user SGPRs need {initialized}"
                ),
            );
        } else if declared > initialized {
            sink.report_lazy(&USER_SGPR_COUNT_EXTRA, Some(rsrc2), || {
                format!(
                    "USER_SGPR_COUNT is {declared}; the enables account for {initialized}{}",
                    if implied > max {
                        format!(" (of {implied} requested, only {max} are initialized)")
                    } else {
                        String::new()
                    }
                )
            });
        }
        if declared > max {
            sink.report_at(
                &USER_SGPR_COUNT_LIMIT,
                rsrc2,
                format!("USER_SGPR_COUNT is {declared}; only {max} user SGPRs are initialized"),
            );
        }
        let lost: Vec<String> = user_sgprs(code)
            .iter()
            .filter(|s| s.first.saturating_add(s.count) > max)
            .map(|s| format!("{} (s{})", s.name, s.first))
            .collect();
        if !lost.is_empty() {
            sink.report_at(
                &GRID_WORKGROUP_COUNT_NOT_INITIALIZED,
                props,
                format!(
                    "{} enabled but not initialized: {max} user SGPRs precede",
                    lost.join(", ")
                ),
            );
        }
        let grid: Vec<&str> = [
            ("X", code.enable_sgpr_grid_workgroup_count_x()),
            ("Y", code.enable_sgpr_grid_workgroup_count_y()),
            ("Z", code.enable_sgpr_grid_workgroup_count_z()),
        ]
        .iter()
        .filter(|g| g.1)
        .map(|g| g.0)
        .collect();
        if !grid.is_empty() {
            sink.report_at(
                &GRID_WORKGROUP_COUNT_UNSUPPORTED,
                props,
                format!(
                    "enable_sgpr_grid_workgroup_count_{} set; CP does not implement these SGPRs",
                    grid.join("/")
                ),
            );
        }
        if target.architected_flat_scratch && code.enable_sgpr_private_segment_buffer() {
            sink.report_at(
                &PRIVATE_SEGMENT_BUFFER_UNSUPPORTED,
                props,
                format!("enable_sgpr_private_segment_buffer is set, but {target} has architected flat scratch"),
            );
        }
        if code.enable_sgpr_flat_scratch_init() {
            if target.architected_flat_scratch {
                sink.report_at(
                    &FLAT_SCRATCH_INIT_UNSUPPORTED,
                    props,
                    format!("enable_sgpr_flat_scratch_init is set, but {target} has architected flat scratch"),
                );
            } else if target.generation <= Generation::Gfx6 {
                sink.report_at(
                    &FLAT_SCRATCH_INIT_UNSUPPORTED,
                    props,
                    format!(
                        "enable_sgpr_flat_scratch_init is set, but {target} has no flat scratch"
                    ),
                );
            }
        }
        if code.enable_vgpr_workitem_id() == 3 {
            sink.report_at(
                &VGPR_WORKITEM_ID_UNDEFINED,
                rsrc2,
                "enable_vgpr_workitem_id is 3 (undefined)",
            );
        }
        if let Some(alloc) = code.allocated_sgprs(target) {
            let total = u32::from(st.total_sgprs());
            if total > alloc {
                sink.report_at(
                    &ALLOCATION_TOO_SMALL,
                    at(offsets::COMPUTE_PGM_RSRC1),
                    format!(
                        "{total} initial SGPRs ({declared} user + {} system), but granulated_wavefront_sgpr_count {} allocates {alloc}",
                        st.system_sgpr_count,
                        code.granulated_wavefront_sgpr_count()
                    ),
                );
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::kernel_code::props as p;
        use crate::kernel_code::tests::{
            assert_all_covered, default_xnack, ids, run_all, run_cases, t, valid, Case,
        };
        use crate::sgpr::VgprSlot;

        fn slot(name: &'static str, first: u16, count: u16, user: bool) -> SgprSlot {
            SgprSlot {
                name,
                first,
                count,
                user,
            }
        }

        fn with(props: u32, rsrc2: u32) -> KernelCode {
            KernelCode {
                code_properties: props,
                compute_pgm_rsrc2: rsrc2,
                ..Default::default()
            }
        }

        #[test]
        fn all_inputs_like_llc14_gfx701() {
            // llc-14 gfx701 "all_inputs": properties 0x3f (plus flags),
            // USER_SGPR_COUNT 14, SCRATCH_EN, work-group ids X Y Z,
            // work-item ids X Y Z.
            let code = with(0x3f | 0x000a_0000, 1 | 14 << 1 | 7 << 7 | 2 << 11);
            let st = initial_state(&code, t("gfx701"));
            assert_eq!(
                st.sgprs,
                vec![
                    slot("private_segment_buffer", 0, 4, true),
                    slot("dispatch_ptr", 4, 2, true),
                    slot("queue_ptr", 6, 2, true),
                    slot("kernarg_segment_ptr", 8, 2, true),
                    slot("dispatch_id", 10, 2, true),
                    slot("flat_scratch_init", 12, 2, true),
                    slot("workgroup_id_x", 14, 1, false),
                    slot("workgroup_id_y", 15, 1, false),
                    slot("workgroup_id_z", 16, 1, false),
                    slot("private_segment_wave_byte_offset", 17, 1, false),
                ]
            );
            assert_eq!(
                (
                    st.user_sgpr_count,
                    st.declared_user_sgpr_count,
                    st.system_sgpr_count,
                    st.total_sgprs()
                ),
                (14, 14, 4, 18)
            );
            assert_eq!(
                st.vgprs,
                vec![
                    VgprSlot {
                        name: "workitem_id_x",
                        vgpr: 0,
                        lsb: 0,
                        width: 32
                    },
                    VgprSlot {
                        name: "workitem_id_y",
                        vgpr: 1,
                        lsb: 0,
                        width: 32
                    },
                    VgprSlot {
                        name: "workitem_id_z",
                        vgpr: 2,
                        lsb: 0,
                        width: 32
                    },
                ]
            );
            assert!(!st.wave32);
            // Same kernel on gfx600: no flat scratch init, 12 user SGPRs.
            let code6 = with(0x1f | 0x000a_0000, 1 | 12 << 1 | 7 << 7 | 2 << 11);
            let st6 = initial_state(&code6, t("gfx600"));
            assert_eq!(
                st6.sgpr("private_segment_wave_byte_offset"),
                Some(&slot("private_segment_wave_byte_offset", 15, 1, false))
            );
        }

        #[test]
        fn group_id_z_follows_x() {
            // llc-14 gfx803 "group_id_z_only" reads work-group id Z from s7.
            let code = with(0x9, 6 << 1 | 1 << 7 | 1 << 9);
            let st = initial_state(&code, t("gfx803"));
            assert_eq!(
                st.sgprs[2..],
                [
                    slot("workgroup_id_x", 6, 1, false),
                    slot("workgroup_id_z", 7, 1, false)
                ]
            );
        }

        #[test]
        fn trivial_kernel() {
            // llc-14 "trivial": private segment buffer and work-group id X.
            let st = initial_state(&with(0x1, 4 << 1 | 1 << 7), t("gfx900"));
            assert_eq!(
                st.sgprs,
                vec![
                    slot("private_segment_buffer", 0, 4, true),
                    slot("workgroup_id_x", 4, 1, false)
                ]
            );
            assert_eq!(st.vgprs.len(), 1);
        }

        #[test]
        fn grid_counts_beyond_16_are_not_initialized() {
            // Every enable: 15 SGPRs, then grid count X at s15, Y at s16,
            // Z at s17. CP loads 16: Y and Z are lost.
            let code = with(0x3ff, 16 << 1 | 1 << 7);
            assert_eq!(implied_user_sgpr_count(&code), 18);
            assert_eq!(initialized_user_sgpr_count(&code, t("gfx900")), 16);
            let all = user_sgprs(&code);
            assert_eq!(
                all[7..],
                [
                    slot("grid_workgroup_count_x", 15, 1, true),
                    slot("grid_workgroup_count_y", 16, 1, true),
                    slot("grid_workgroup_count_z", 17, 1, true),
                ]
            );
            let st = initial_state(&code, t("gfx900"));
            assert!(st.sgpr("grid_workgroup_count_x").is_some());
            assert!(st.sgpr("grid_workgroup_count_y").is_none());
            assert!(st.sgpr("grid_workgroup_count_z").is_none());
            assert_eq!(
                st.sgpr("workgroup_id_x"),
                Some(&slot("workgroup_id_x", 16, 1, false))
            );
            // Without the private segment size, Y moves to s15 and is set.
            let code = with(0x3bf, 16 << 1 | 1 << 7);
            let st = initial_state(&code, t("gfx900"));
            assert_eq!(
                st.sgpr("grid_workgroup_count_y"),
                Some(&slot("grid_workgroup_count_y", 15, 1, true))
            );
            assert!(st.sgpr("grid_workgroup_count_z").is_none());
            // And with only X and Y (s14, s15) nothing is lost.
            let code = with(0x1bf, 16 << 1);
            assert_eq!(user_sgprs(&code), initial_state(&code, t("gfx900")).sgprs);
        }

        #[test]
        fn short_user_sgpr_count_overlaps() {
            let st = initial_state(&with(0x9, 4 << 1 | 1 << 7), t("gfx803"));
            assert_eq!(
                st.sgpr("kernarg_segment_ptr"),
                Some(&slot("kernarg_segment_ptr", 4, 2, true))
            );
            assert_eq!(
                st.sgpr("workgroup_id_x"),
                Some(&slot("workgroup_id_x", 4, 1, false))
            );
        }

        /// Sets USER_SGPR_COUNT (bits 5:1) of `c`.
        fn set_usc(c: &mut KernelCode, n: u32) {
            c.compute_pgm_rsrc2 = (c.compute_pgm_rsrc2 & !0x3e) | n << 1;
        }

        const CASES: &[Case] = &[
            Case {
                rule: &USER_SGPR_COUNT_TOO_SMALL,
                target: "gfx803",
                xnack: None,
                mutate: |c| set_usc(c, 4),
                also: &[],
            },
            Case {
                rule: &USER_SGPR_COUNT_EXTRA,
                target: "gfx900",
                xnack: None,
                mutate: |c| set_usc(c, 8),
                also: &[],
            },
            Case {
                rule: &USER_SGPR_COUNT_LIMIT,
                target: "gfx906",
                xnack: None,
                mutate: |c| {
                    set_usc(c, 17);
                    // 17 + 3 system SGPRs fit 24 allocated.
                    c.compute_pgm_rsrc1 = (c.compute_pgm_rsrc1 & !(0xf << 6)) | 2 << 6;
                },
                also: &[&USER_SGPR_COUNT_EXTRA],
            },
            Case {
                rule: &GRID_WORKGROUP_COUNT_UNSUPPORTED,
                target: "gfx803",
                xnack: None,
                mutate: |c| {
                    c.code_properties |= p::ENABLE_SGPR_GRID_WORKGROUP_COUNT_X;
                    set_usc(c, 7);
                },
                also: &[],
            },
            Case {
                rule: &GRID_WORKGROUP_COUNT_NOT_INITIALIZED,
                target: "gfx900",
                xnack: None,
                mutate: |c| {
                    // 18 requested, 16 initialized and declared.
                    c.code_properties |= 0x3ff;
                    set_usc(c, 16);
                    c.compute_pgm_rsrc1 = (c.compute_pgm_rsrc1 & !(0xf << 6)) | 2 << 6;
                },
                also: &[&GRID_WORKGROUP_COUNT_UNSUPPORTED],
            },
            Case {
                rule: &FLAT_SCRATCH_INIT_UNSUPPORTED,
                target: "gfx600",
                xnack: None,
                mutate: |c| {
                    c.code_properties |= p::ENABLE_SGPR_FLAT_SCRATCH_INIT;
                    set_usc(c, 8);
                },
                also: &[],
            },
            Case {
                rule: &VGPR_WORKITEM_ID_UNDEFINED,
                target: "gfx701",
                xnack: None,
                mutate: |c| c.compute_pgm_rsrc2 |= 3 << 11,
                also: &[],
            },
            Case {
                rule: &ALLOCATION_TOO_SMALL,
                target: "gfx701",
                xnack: None,
                mutate: |c| {
                    // 6 user + 3 system = 9 > 8 allocated.
                    c.compute_pgm_rsrc1 &= !(0xf << 6);
                    c.wavefront_sgpr_count = 8;
                },
                also: &[],
            },
            Case {
                rule: &ALLOCATION_TOO_SMALL,
                target: "gfx900",
                xnack: None,
                mutate: |c| {
                    // 14 user + 4 system = 18 > 16 (GFX9 allocates in 16s).
                    c.code_properties |= 0x3e;
                    set_usc(c, 14);
                    c.compute_pgm_rsrc2 |= 1;
                    c.workitem_private_segment_byte_size = 16;
                    c.wavefront_sgpr_count = 16;
                },
                also: &[],
            },
        ];

        #[test]
        fn mutants_break_their_rule() {
            run_cases(CASES);
        }

        #[test]
        fn every_v2_rule_has_a_mutant() {
            assert_all_covered(RULES, CASES);
            assert_all_covered(
                &[
                    &USER_SGPR_COUNT_TOO_SMALL,
                    &USER_SGPR_COUNT_EXTRA,
                    &USER_SGPR_COUNT_LIMIT,
                    &FLAT_SCRATCH_INIT_UNSUPPORTED,
                    &VGPR_WORKITEM_ID_UNDEFINED,
                    &ALLOCATION_TOO_SMALL,
                ],
                CASES,
            );
        }

        #[test]
        fn architected_flat_scratch_targets() {
            // No V2 for these in LLVM, but the rules still hold.
            let target = t("gfx1100");
            let mut code = valid(target);
            code.code_properties |= p::ENABLE_SGPR_FLAT_SCRATCH_INIT;
            set_usc(&mut code, 8);
            let sink = run_all(&code, target, default_xnack(target));
            assert!(
                ids(&sink).is_superset(
                    &[
                        "sgpr.private_segment_buffer.unsupported",
                        "sgpr.flat_scratch_init.unsupported"
                    ]
                    .into()
                ),
                "{:?}",
                sink.violations
            );
        }

        #[test]
        fn valid_layouts_fit() {
            for name in crate::kernel_code::tests::SAMPLE {
                let target = t(name);
                let st = initial_state(&valid(target), target);
                assert_eq!(st.user_sgpr_count, 6, "{name}");
                assert_eq!(st.declared_user_sgpr_count, 6, "{name}");
                assert_eq!(st.system_sgpr_count, 3, "{name}");
                assert_eq!(st.vgprs.len(), 3, "{name}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kd::tests::{assert_all_covered, run_cases, t, valid, Case};
    use crate::targets::CodeObjectVersion::V5;

    fn slot(name: &'static str, first: u16, count: u16, user: bool) -> SgprSlot {
        SgprSlot {
            name,
            first,
            count,
            user,
        }
    }

    fn with(props: u16, rsrc2: u32, preload: u16) -> KernelDescriptor {
        KernelDescriptor {
            kernel_code_properties: props,
            compute_pgm_rsrc2: rsrc2,
            kernarg_preload: preload,
            ..Default::default()
        }
    }

    #[test]
    fn gfx900_all_inputs_like_clang() {
        // clang-19 gfx900 "extcall": properties 0x83b, rsrc2 0x1399. Its code
        // adds s15 (wave offset) to s[10:11] (flat scratch init) and loads
        // arguments through s[6:7].
        let st = initial_state(&with(0x83b, 0x1399, 0), t("gfx900"));
        assert_eq!(
            st.sgprs,
            vec![
                slot("private_segment_buffer", 0, 4, true),
                slot("dispatch_ptr", 4, 2, true),
                slot("kernarg_segment_ptr", 6, 2, true),
                slot("dispatch_id", 8, 2, true),
                slot("flat_scratch_init", 10, 2, true),
                slot("workgroup_id_x", 12, 1, false),
                slot("workgroup_id_y", 13, 1, false),
                slot("workgroup_id_z", 14, 1, false),
                slot("private_segment_wave_byte_offset", 15, 1, false),
            ]
        );
        assert_eq!(
            (
                st.user_sgpr_count,
                st.declared_user_sgpr_count,
                st.system_sgpr_count
            ),
            (12, 12, 4)
        );
        assert_eq!(st.total_sgprs(), 16);
        assert_eq!(
            st.vgprs,
            vec![
                VgprSlot {
                    name: "workitem_id_x",
                    vgpr: 0,
                    lsb: 0,
                    width: 32
                },
                VgprSlot {
                    name: "workitem_id_y",
                    vgpr: 1,
                    lsb: 0,
                    width: 32
                },
                VgprSlot {
                    name: "workitem_id_z",
                    vgpr: 2,
                    lsb: 0,
                    width: 32
                },
            ]
        );
        assert!(!st.wave32);
    }

    #[test]
    fn gfx1100_padding_and_packed_ids() {
        // clang-19 gfx1100 "ids3": properties 0x408, rsrc2 0x139a. LLVM pads
        // USER_SGPR_COUNT to 13 so that 13 + 3 work-group ids = 16; the code
        // reads the Y and Z work-group ids from s14 and s15 and unpacks the
        // work-item ids from v0 bits 10 and 20.
        let st = initial_state(&with(0x408, 0x139a, 0), t("gfx1100"));
        assert_eq!(
            st.sgprs,
            vec![
                slot("kernarg_segment_ptr", 0, 2, true),
                slot("reserved_user_sgprs", 2, 11, true),
                slot("workgroup_id_x", 13, 1, false),
                slot("workgroup_id_y", 14, 1, false),
                slot("workgroup_id_z", 15, 1, false),
            ]
        );
        assert_eq!((st.user_sgpr_count, st.declared_user_sgpr_count), (2, 13));
        assert_eq!(
            st.vgprs,
            vec![
                VgprSlot {
                    name: "workitem_id_x",
                    vgpr: 0,
                    lsb: 0,
                    width: 10
                },
                VgprSlot {
                    name: "workitem_id_y",
                    vgpr: 0,
                    lsb: 10,
                    width: 10
                },
                VgprSlot {
                    name: "workitem_id_z",
                    vgpr: 0,
                    lsb: 20,
                    width: 10
                },
            ]
        );
        assert!(st.wave32);
    }

    #[test]
    fn architected_flat_scratch_has_no_wave_offset() {
        // clang-19 gfx942 "priv": properties 0x8, rsrc2 0x85 (scratch on).
        let st = initial_state(&with(0x8, 0x85, 0), t("gfx942"));
        assert_eq!(
            st.sgprs,
            vec![
                slot("kernarg_segment_ptr", 0, 2, true),
                slot("workgroup_id_x", 2, 1, false)
            ]
        );
        assert_eq!(
            st.vgprs,
            vec![VgprSlot {
                name: "workitem_id_x",
                vgpr: 0,
                lsb: 0,
                width: 10
            }]
        );
        // The same bits on gfx900 deliver the offset.
        let st9 = initial_state(&with(0x8, 0x85, 0), t("gfx900"));
        assert_eq!(
            st9.sgpr("private_segment_wave_byte_offset"),
            Some(&slot("private_segment_wave_byte_offset", 3, 1, false))
        );
    }

    #[test]
    fn preload_follows_the_other_user_sgprs() {
        // clang-19 gfx90a "args" with -amdgpu-kernarg-preload-count=16:
        // properties 0x9, USER_SGPR_COUNT 15, 9 dwords preloaded.
        let st = initial_state(&with(0x9, 15 << 1 | 1 << 7, 9), t("gfx90a"));
        assert_eq!(
            st.sgprs,
            vec![
                slot("private_segment_buffer", 0, 4, true),
                slot("kernarg_segment_ptr", 4, 2, true),
                slot("kernarg_preload", 6, 9, true),
                slot("workgroup_id_x", 15, 1, false),
            ]
        );
        // Private segment size precedes the preloaded dwords (LLVM's
        // allocation order).
        let st = initial_state(&with(0x48, 5 << 1, 2), t("gfx942"));
        assert_eq!(
            st.sgprs,
            vec![
                slot("kernarg_segment_ptr", 0, 2, true),
                slot("private_segment_size", 2, 1, true),
                slot("kernarg_preload", 3, 2, true),
            ]
        );
        // CP of a target without preload ignores the field.
        assert_eq!(implied_user_sgpr_count(&with(0x8, 0, 9), t("gfx1100")), 2);
        assert_eq!(implied_user_sgpr_count(&with(0x7f, 0, 0), t("gfx900")), 15);
    }

    #[test]
    fn short_user_sgpr_count_overlaps() {
        // System SGPRs start at the declared count even if that hides
        // enabled user SGPRs.
        let st = initial_state(&with(0x9, 4 << 1 | 1 << 7, 0), t("gfx900"));
        assert_eq!(
            st.sgpr("workgroup_id_x"),
            Some(&slot("workgroup_id_x", 4, 1, false))
        );
        assert_eq!(
            st.sgpr("kernarg_segment_ptr"),
            Some(&slot("kernarg_segment_ptr", 4, 2, true))
        );
    }

    #[test]
    fn workitem_id_values() {
        let st = initial_state(&with(0, 1 << 11, 0), t("gfx1030"));
        assert_eq!(
            st.vgprs
                .iter()
                .map(|v| (v.name, v.vgpr))
                .collect::<Vec<_>>(),
            vec![("workitem_id_x", 0), ("workitem_id_y", 1)]
        );
        let st = initial_state(&with(0, 3 << 11, 0), t("gfx90a"));
        assert_eq!(st.vgprs.len(), 3);
        assert_eq!(
            st.vgprs[2],
            VgprSlot {
                name: "workitem_id_z",
                vgpr: 0,
                lsb: 20,
                width: 10
            }
        );
        // GFX9 has no wave32 even with the bit set.
        assert!(!initial_state(&with(1 << 10, 0, 0), t("gfx900")).wave32);
    }

    const CASES: &[Case] = &[
        Case {
            rule: &USER_SGPR_COUNT_TOO_SMALL,
            target: "gfx900",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc2 = (k.compute_pgm_rsrc2 & !0x3E) | 4 << 1,
            also: &[],
        },
        Case {
            rule: &USER_SGPR_COUNT_EXTRA,
            target: "gfx1100",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc2 = (k.compute_pgm_rsrc2 & !0x3E) | 15 << 1,
            also: &[],
        },
        Case {
            rule: &USER_SGPR_COUNT_LIMIT,
            target: "gfx90a",
            cov: V5,
            mutate: |k, f| {
                // 6 + 11 preloaded = 17 user SGPRs, declared and allocated.
                k.kernarg_preload = 11;
                k.kernarg_size = 64;
                f.kernarg_segment_size = Some(64);
                k.compute_pgm_rsrc2 = (k.compute_pgm_rsrc2 & !0x3E) | 17 << 1;
                k.compute_pgm_rsrc1 = (k.compute_pgm_rsrc1 & !(0xF << 6)) | 2 << 6;
            },
            also: &[],
        },
        Case {
            rule: &PRIVATE_SEGMENT_BUFFER_UNSUPPORTED,
            target: "gfx942",
            cov: V5,
            mutate: |k, _| {
                k.kernel_code_properties |= 1;
                k.compute_pgm_rsrc2 = (k.compute_pgm_rsrc2 & !0x3E) | 6 << 1;
            },
            also: &[],
        },
        Case {
            rule: &FLAT_SCRATCH_INIT_UNSUPPORTED,
            target: "gfx1200",
            cov: V5,
            mutate: |k, _| {
                k.kernel_code_properties |= 1 << 5;
                k.compute_pgm_rsrc2 = (k.compute_pgm_rsrc2 & !0x3E) | 4 << 1;
            },
            also: &[],
        },
        Case {
            rule: &FLAT_SCRATCH_INIT_UNSUPPORTED,
            target: "gfx600",
            cov: V5,
            mutate: |k, _| {
                k.kernel_code_properties |= 1 << 5;
                k.compute_pgm_rsrc2 = (k.compute_pgm_rsrc2 & !0x3E) | 8 << 1;
            },
            also: &[],
        },
        Case {
            rule: &VGPR_WORKITEM_ID_UNDEFINED,
            target: "gfx1030",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc2 |= 3 << 11,
            also: &[],
        },
        Case {
            rule: &ALLOCATION_TOO_SMALL,
            target: "gfx700",
            cov: V5,
            mutate: |k, f| {
                // 6 user + work-group ids X, Y, Z = 9 > 8 allocated.
                k.compute_pgm_rsrc1 &= !(0xF << 6);
                k.compute_pgm_rsrc2 |= 3 << 8;
                f.sgpr_count = Some(8);
            },
            also: &[],
        },
        Case {
            rule: &ALLOCATION_TOO_SMALL,
            target: "gfx900",
            cov: V5,
            mutate: |k, f| {
                // 15 user + 5 system = 20 > 16 (8 encoded, 16 allocated).
                k.kernel_code_properties = 0x7f;
                k.compute_pgm_rsrc1 &= !(0xF << 6);
                k.compute_pgm_rsrc2 = 15 << 1 | 1 | 0xF << 7;
                f.sgpr_count = Some(16);
            },
            also: &[],
        },
    ];

    crate::kd::tests::mutant_tests!(RULES, CASES);

    #[test]
    fn valid_layouts_fit() {
        for name in crate::kd::tests::SAMPLE {
            let target = t(name);
            let kd = valid(target);
            let st = initial_state(&kd, target);
            assert_eq!(st.user_sgpr_count, st.declared_user_sgpr_count, "{name}");
            assert_eq!(
                st.sgprs.last().map(|s| s.name),
                Some("workgroup_id_x"),
                "{name}"
            );
            let expected = if target.architected_flat_scratch {
                2
            } else {
                6
            };
            assert_eq!(st.user_sgpr_count, expected, "{name}");
        }
    }
}
