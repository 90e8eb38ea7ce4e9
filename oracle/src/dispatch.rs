//! The kernel dispatch packet for one kernel: the rules a packet must
//! keep to dispatch that kernel, and the packet a runtime builds for a
//! plain launch of it.
//!
//! The packet's layout (offsets, header and setup bits) is
//! [`crate::layout::dispatch`]; this module judges values. Sources:
//! `hsa.h` (`hsa_kernel_dispatch_packet_t` and its header enums: what
//! every field must hold), amdgpu-usage.rst "Kernel Dispatch" (kernarg
//! alignment, the completion signal), the kernel's descriptor and
//! metadata (the sizes the kernel was compiled for), what CP refuses as
//! ROCr reports it (`amd_aql_queue.cpp`, `ExceptionHandler`: the
//! `EC_QUEUE_PACKET_DISPATCH_*` codes for a bad dimension count, group
//! segment size, code object and work-group size, and an unsupported
//! packet type), and what HIP refuses or builds (ROCm/clr
//! `hipamd/src/hip_module.cpp` `ihipLaunchKernel_validate` and
//! `ihipModuleLaunchKernel`, `rocclr/device/rocm/rocvirtual.cpp`
//! `submitKernelInternal`).
//!
//! Severity: error where CP refuses the packet, the HSA headers say a
//! value is invalid, or the kernel's code was compiled under an
//! assumption the packet breaks; warning where only a document asks for
//! it and the runtime itself does otherwise (errata DISPATCH 2); info for
//! the barrier bit, which no value breaks.

use crate::kd::KernelDescriptor;
use crate::layout::dispatch::{
    header, KernelDispatchPacket, Slot, AMD_OBJECT_ALIGN, KERNEL_DISPATCH_PACKET, PACKET_SIZE,
    SETUP_DIMENSIONS,
};
use crate::metadata;
use crate::probe::Shape;
use crate::rules::Sink;
use crate::targets::Target;
use serde::Serialize;

crate::declare_rules! {
    HEADER_TYPE = (Error, "dispatch.header.type",
        "header TYPE is HSA_PACKET_TYPE_KERNEL_DISPATCH (2): CP refuses other packet types in a kernel's place (EC_QUEUE_PACKET_UNSUPPORTED).",
        "hsa.h: hsa_packet_type_t, hsa_packet_header_t; ROCR-Runtime amd_aql_queue.cpp (ExceptionHandler: EC_QUEUE_PACKET_UNSUPPORTED)");
    HEADER_BARRIER = (Info, "dispatch.header.barrier",
        "header BARRIER is 0: the dispatch may start before the packets ahead of it in the queue complete (allowed: HIP clears the bit for a dispatch its memory-dependency tracking finds independent of the earlier ones, and for any-order launches).",
        "hsa.h: HSA_PACKET_HEADER_BARRIER; ROCm/clr rocvirtual.cpp (dispatchPacketHeader_, dispatchPacketHeaderNoSync_, processMemObjects, getAnyOrderLaunchFlag)");
    HEADER_ACQUIRE_FENCE_SCOPE = (Error, "dispatch.header.acquire_fence_scope",
        "header SCACQUIRE_FENCE_SCOPE is a hsa_fence_scope_t: 0 (none), 1 (agent) or 2 (system); 3 is no scope.",
        "hsa.h: hsa_packet_header_t (HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE), hsa_fence_scope_t");
    HEADER_RELEASE_FENCE_SCOPE = (Error, "dispatch.header.release_fence_scope",
        "header SCRELEASE_FENCE_SCOPE is a hsa_fence_scope_t: 0 (none), 1 (agent) or 2 (system); 3 is no scope.",
        "hsa.h: hsa_packet_header_t (HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE), hsa_fence_scope_t");
    SETUP_DIMENSIONS_RULE = (Error, "dispatch.setup.dimensions",
        "setup DIMENSIONS is 1, 2 or 3: CP refuses 0 (EC_QUEUE_PACKET_DISPATCH_DIM_INVALID).",
        "hsa.h: HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS; ROCR-Runtime amd_aql_queue.cpp (ExceptionHandler: EC_QUEUE_PACKET_DISPATCH_DIM_INVALID)");
    UNUSED_DIMENSION = (Error, "dispatch.setup.unused_dimension",
        "In a dimension past setup DIMENSIONS the work-group size and the grid size are 1 (the only valid value).",
        "hsa.h: hsa_kernel_dispatch_packet_t (workgroup_size_y/z, grid_size_y/z)");
    WORKGROUP_SIZE_ZERO = (Error, "dispatch.workgroup_size.zero",
        "Every workgroup_size_x/y/z is greater than 0 (HIP refuses a zero block dimension).",
        "hsa.h: hsa_kernel_dispatch_packet_t (workgroup_size_x); ROCm/clr hip_module.cpp (ihipLaunchKernel_validate: hipErrorInvalidConfiguration)");
    GRID_SIZE_ZERO = (Error, "dispatch.grid_size.zero",
        "Every grid_size_x/y/z is greater than 0 (HIP refuses a zero grid dimension).",
        "hsa.h: hsa_kernel_dispatch_packet_t (grid_size_x); ROCm/clr hip_module.cpp (ihipLaunchKernel_validate: hipErrorInvalidValue)");
    GRID_SMALLER_THAN_WORKGROUP = (Error, "dispatch.grid_size.smaller_than_workgroup",
        "In each dimension the grid size is not smaller than the work-group size (a grid that is not a multiple of it is allowed: the last work-group is partial; HIP shrinks a block larger than the grid before it builds the packet).",
        "hsa.h: hsa_kernel_dispatch_packet_t (grid_size_x: must not be smaller than workgroup_size_x); ROCm/clr hip_module.cpp (ihipModuleLaunchKernel)");
    WORKGROUP_SIZE_MAX = (Error, "dispatch.workgroup_size.max",
        "The flat work-group size (X * Y * Z) is at most 1024, the agent's HSA_AGENT_INFO_WORKGROUP_MAX_SIZE: CP refuses larger work-groups (EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID).",
        "ROCR-Runtime amd_gpu_agent.cpp (HSA_AGENT_INFO_WORKGROUP_MAX_SIZE 1024, WORKGROUP_MAX_DIM 1024); amd_aql_queue.cpp (ExceptionHandler); ROCm/clr hip_module.cpp (maxWorkGroupSize_)");
    WORKGROUP_SIZE_MAX_FLAT = (Error, "dispatch.workgroup_size.max_flat",
        "The flat work-group size is at most the kernel's .max_flat_workgroup_size: the code was compiled for at most that many work-items (HIP refuses the launch: larger than launch bounds).",
        "amdgpu-usage.rst: Code Object V3 Metadata (.max_flat_workgroup_size); ROCm/clr hip_module.cpp (ihipModuleLaunchKernel: hipErrorLaunchFailure)");
    WORKGROUP_SIZE_REQD = (Error, "dispatch.workgroup_size.reqd",
        "When the kernel's .reqd_workgroup_size is not 0, 0, 0, workgroup_size_x/y/z equal it (the code may use it as a constant).",
        "amdgpu-usage.rst: Code Object V3 Metadata (.reqd_workgroup_size: the dispatch work-group size must correspond)");
    GRID_UNIFORM = (Error, "dispatch.grid_size.uniform",
        "When the kernel's .uniform_work_group_size is 1, each grid size is a multiple of the work-group size (the code assumes no partial work-group; HIP refuses the launch).",
        "LLVM AMDGPUMetadata.h (UniformWorkgroupSize); ROCm/clr hip_module.cpp (ihipModuleLaunchKernel: hipErrorInvalidValue)");
    GROUP_SEGMENT_FIXED = (Error, "dispatch.group_segment_size.fixed",
        "group_segment_size is at least the kernel's GROUP_SEGMENT_FIXED_SIZE (descriptor) and .group_segment_fixed_size (metadata): the group memory the kernel uses.",
        "hsa.h: hsa_kernel_dispatch_packet_t (group_segment_size: must not be less than the group memory used by the kernel); amdgpu-usage.rst: Kernel Descriptor");
    GROUP_SEGMENT_LDS = (Error, "dispatch.group_segment_size.lds_limit",
        "group_segment_size is at most the LDS one work-group of the target can allocate: CP refuses more (EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID).",
        "ROCR-Runtime amd_aql_queue.cpp (ExceptionHandler: EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID); ROCm/clr rocvirtual.cpp (No local memory available); oracle/src/targets.rs lds_bytes");
    PRIVATE_SEGMENT_FIXED = (Error, "dispatch.private_segment_size.fixed",
        "For a kernel without a dynamic stack, private_segment_size is at least PRIVATE_SEGMENT_FIXED_SIZE (descriptor) and .private_segment_fixed_size (metadata): the scratch each work-item uses.",
        "rocm-code-object-format.rst: Dynamic call stack (the packet holds the static private segment size plus the call stack); amdgpu-usage.rst: Kernel Descriptor; docs/errata.md DISPATCH 3 (what HIP does for a dynamic stack)");
    KERNEL_OBJECT_NULL = (Error, "dispatch.kernel_object.null",
        "kernel_object is not 0: CP refuses a NULL code object (EC_QUEUE_PACKET_DISPATCH_CODE_INVALID).",
        "amdgpu-usage.rst: Kernel Dispatch (a pointer to the kernel descriptor); ROCR-Runtime amd_aql_queue.cpp (ExceptionHandler: Invalid (or NULL) code)");
    KERNEL_OBJECT_ALIGN = (Error, "dispatch.kernel_object.align",
        "kernel_object, the kernel descriptor's address, is 64-byte aligned, as every kernel descriptor is.",
        "amdgpu-usage.rst: Kernel Descriptor; NOTES.md: Kernel descriptor (64-byte aligned); rule symbol.kd.align");
    KERNARG_ADDRESS_NULL = (Error, "dispatch.kernarg_address.null",
        "kernarg_address is not 0 when the kernel has a kernarg segment (kernarg_size or .kernarg_segment_size above 0): the kernel loads its arguments from there.",
        "hsa.h: hsa_kernel_dispatch_packet_t (kernarg_address); amdgpu-usage.rst: Kernel Dispatch, Initial Kernel Execution State (Kernarg Segment Ptr)");
    KERNARG_ADDRESS_ALIGN = (Error, "dispatch.kernarg_address.align",
        "kernarg_address is aligned to 16 bytes and to the kernel's .kernarg_segment_align, whichever is larger.",
        "amdgpu-usage.rst: Kernel Dispatch (kernarg memory at least 16-byte aligned), Code Object V3 Metadata (.kernarg_segment_align); ROCm/clr rocvirtual.cpp (allocKernArg)");
    COMPLETION_SIGNAL_ALIGN = (Warning, "dispatch.completion_signal.align",
        "completion_signal is 0 (no signal: allowed) or the address of an amd_signal_t, which is 64-byte aligned; CP signals it when the dispatch completes.",
        "hsa.h: hsa_kernel_dispatch_packet_t (completion_signal); amdgpu-usage.rst: Kernel Dispatch (step 10); amd_hsa_signal.h (AMD_SIGNAL_ALIGN_BYTES)");
    RESERVED = (Warning, "dispatch.reserved",
        "reserved0 and reserved2 are 0 (hsa.h: must be 0); a warning because ROCm's HIP runtime itself writes a profiler correlation id into reserved2 (errata DISPATCH 2).",
        "hsa.h: hsa_kernel_dispatch_packet_t (reserved0, reserved2); ROCm/clr rocvirtual.cpp (dispatchGenericAqlPacket); docs/errata.md DISPATCH 2");
}

/// The largest flat work-group (X * Y * Z work-items) an AMD GPU agent
/// runs: ROCr's `HSA_AGENT_INFO_WORKGROUP_MAX_SIZE` (and each dimension's
/// `HSA_AGENT_INFO_WORKGROUP_MAX_DIM`).
pub const MAX_WORKGROUP_SIZE: u64 = 1024;
/// The least alignment of a kernarg segment (amdgpu-usage.rst, "Kernel
/// Dispatch", step 3).
pub const KERNARG_MIN_ALIGN: u64 = 16;
/// HIP aligns more than the documents ask: kernarg segments to the larger
/// of `.kernarg_segment_align` and this, rounded up to the cache line
/// (`LightningKernel::postLoad`, ROCm/clr `rockernel.cpp`).
pub const HIP_MIN_KERNARG_ALIGN: u64 = 128;
/// Alignment of a kernel descriptor, which `kernel_object` points at.
pub const KERNEL_OBJECT_ALIGN_BYTES: u64 = crate::layout::KD_ALIGN;
/// HIP's stack size per work-item for kernels with a dynamic stack, unless
/// the program sets another (`Device::stack_size_`, ROCm/clr
/// `rocclr/device/device.hpp`).
pub const HIP_DEFAULT_STACK_BYTES: u32 = 1024;
/// HIP caps `private_segment_size` of a dynamic-stack kernel at this
/// (`submitKernelInternal`, ROCm/clr `rocvirtual.cpp`).
pub const HIP_MAX_DYNAMIC_PRIVATE_BYTES: u32 = 16 * 1024;

/// The packet fields named in messages, each a row of
/// [`KERNEL_DISPATCH_PACKET`] (a test checks).
const WORKGROUP_SIZE: [&str; 3] = ["workgroup_size_x", "workgroup_size_y", "workgroup_size_z"];
const GRID_SIZE: [&str; 3] = ["grid_size_x", "grid_size_y", "grid_size_z"];

/// The metadata keys of one kernel that a dispatch must agree with
/// (`None`: the key is absent).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct KernelMetadata {
    /// `.max_flat_workgroup_size`.
    pub max_flat_workgroup_size: Option<u64>,
    /// `.reqd_workgroup_size` (0, 0, 0 means none).
    pub reqd_workgroup_size: Option<[u64; 3]>,
    /// `.uniform_work_group_size` (V5+).
    pub uniform_work_group_size: Option<bool>,
    /// `.group_segment_fixed_size`.
    pub group_segment_fixed_size: Option<u64>,
    /// `.private_segment_fixed_size`.
    pub private_segment_fixed_size: Option<u64>,
    /// `.kernarg_segment_size`.
    pub kernarg_segment_size: Option<u64>,
    /// `.kernarg_segment_align`.
    pub kernarg_segment_align: Option<u64>,
    /// `.uses_dynamic_stack`.
    pub uses_dynamic_stack: Option<bool>,
}

impl From<&metadata::Kernel> for KernelMetadata {
    fn from(k: &metadata::Kernel) -> Self {
        Self {
            max_flat_workgroup_size: k.max_flat_workgroup_size,
            reqd_workgroup_size: k.reqd_workgroup_size,
            uniform_work_group_size: k.uniform_work_group_size,
            group_segment_fixed_size: k.group_segment_fixed_size,
            private_segment_fixed_size: k.private_segment_fixed_size,
            kernarg_segment_size: k.kernarg_segment_size,
            kernarg_segment_align: k.kernarg_segment_align,
            uses_dynamic_stack: k.uses_dynamic_stack,
        }
    }
}

/// The kernel a packet dispatches: its descriptor, the target it runs on
/// and, when the object has one, its metadata.
#[derive(Debug, Clone, Copy)]
pub struct Kernel<'a> {
    /// The kernel descriptor.
    pub descriptor: &'a KernelDescriptor,
    /// The processor.
    pub target: &'a Target,
    /// The kernel's metadata map, if any.
    pub metadata: Option<&'a KernelMetadata>,
}

impl Kernel<'_> {
    fn md<T>(&self, f: impl Fn(&KernelMetadata) -> Option<T>) -> Option<T> {
        self.metadata.and_then(f)
    }

    /// Group segment bytes the kernel uses: the larger of the descriptor's
    /// and the metadata's fixed sizes (equal in a valid object).
    pub fn group_segment_fixed_size(&self) -> u64 {
        u64::from(self.descriptor.group_segment_fixed_size)
            .max(self.md(|m| m.group_segment_fixed_size).unwrap_or(0))
    }

    /// Private segment bytes per work-item the kernel uses statically: the
    /// larger of the descriptor's and the metadata's fixed sizes.
    pub fn private_segment_fixed_size(&self) -> u64 {
        u64::from(self.descriptor.private_segment_fixed_size)
            .max(self.md(|m| m.private_segment_fixed_size).unwrap_or(0))
    }

    /// True if the descriptor's USES_DYNAMIC_STACK or the metadata's
    /// `.uses_dynamic_stack` says the stack size is not known statically.
    pub fn uses_dynamic_stack(&self) -> bool {
        self.descriptor.uses_dynamic_stack() || self.md(|m| m.uses_dynamic_stack) == Some(true)
    }

    /// Kernarg segment bytes: the larger of the descriptor's kernarg_size
    /// and `.kernarg_segment_size`.
    pub fn kernarg_segment_size(&self) -> u64 {
        u64::from(self.descriptor.kernarg_size)
            .max(self.md(|m| m.kernarg_segment_size).unwrap_or(0))
    }

    /// The alignment `kernarg_address` needs: [`KERNARG_MIN_ALIGN`] or
    /// `.kernarg_segment_align`, whichever is larger.
    pub fn kernarg_align(&self) -> u64 {
        KERNARG_MIN_ALIGN.max(self.md(|m| m.kernarg_segment_align).unwrap_or(0))
    }

    /// `.reqd_workgroup_size`, unless absent or 0, 0, 0 (its default).
    pub fn reqd_workgroup_size(&self) -> Option<[u64; 3]> {
        self.md(|m| m.reqd_workgroup_size)
            .filter(|r| *r != [0, 0, 0])
    }

    /// True if `.uniform_work_group_size` is 1.
    pub fn uniform_work_group_size(&self) -> bool {
        self.md(|m| m.uniform_work_group_size) == Some(true)
    }

    /// Lanes per wave.
    pub fn wave_lanes(&self) -> u32 {
        if self.descriptor.wave32(self.target) {
            32
        } else {
            64
        }
    }
}

fn flat(wg: [u16; 3]) -> u64 {
    wg.iter().map(|&w| u64::from(w)).product()
}

fn sizes(v: [u64; 3]) -> String {
    format!("{} x {} x {}", v[0], v[1], v[2])
}

fn scope_name(v: u16) -> &'static str {
    header::FENCE_SCOPES
        .iter()
        .find(|(s, _)| *s == v)
        .map_or("reserved", |(_, n)| n)
}

/// Checks `p` as a dispatch of `k`, reporting into `sink` (the caller sets
/// the kernel context). Every message names the packet field as the
/// layout table does.
pub fn check(p: &KernelDispatchPacket, k: &Kernel<'_>, sink: &mut Sink) {
    check_header(p, sink);
    let dims = p.dimensions();
    let valid_dims = (1..=3).contains(&dims);
    if !valid_dims {
        sink.report(
            &SETUP_DIMENSIONS_RULE,
            format!(
                "setup.{} is {dims}, expected 1, 2 or 3",
                SETUP_DIMENSIONS.name
            ),
        );
    }
    // With an invalid count, every dimension is judged as a used one.
    let used = if valid_dims { usize::from(dims) } else { 3 };
    check_sizes(p, k, used, sink);
    check_segments(p, k, sink);
    check_addresses(p, k, sink);
    if p.reserved0 != 0 || p.reserved2 != 0 {
        sink.report(
            &RESERVED,
            format!(
                "reserved0 is {:#x} and reserved2 is {:#x}, expected 0 and 0",
                p.reserved0, p.reserved2
            ),
        );
    }
}

fn check_header(p: &KernelDispatchPacket, sink: &mut Sink) {
    let ty = header::TYPE.get(p.header);
    if ty != header::TYPE_KERNEL_DISPATCH {
        sink.report(
            &HEADER_TYPE,
            format!(
                "header.{} is {ty}, expected {} (HSA_PACKET_TYPE_KERNEL_DISPATCH)",
                header::TYPE.name,
                header::TYPE_KERNEL_DISPATCH
            ),
        );
    }
    if header::BARRIER.get(p.header) == 0 {
        sink.report(
            &HEADER_BARRIER,
            format!(
                "header.{} is 0: the dispatch may overlap the packets before it",
                header::BARRIER.name
            ),
        );
    }
    for (bits, rule) in [
        (header::SCACQUIRE_FENCE_SCOPE, &HEADER_ACQUIRE_FENCE_SCOPE),
        (header::SCRELEASE_FENCE_SCOPE, &HEADER_RELEASE_FENCE_SCOPE),
    ] {
        let v = bits.get(p.header);
        if !header::FENCE_SCOPES.iter().any(|(s, _)| *s == v) {
            let valid: Vec<String> = header::FENCE_SCOPES
                .iter()
                .map(|(s, n)| format!("{s} ({n})"))
                .collect();
            sink.report(
                rule,
                format!(
                    "header.{} is {v}, expected one of {}",
                    bits.name,
                    valid.join(", ")
                ),
            );
        }
    }
}

fn check_sizes(p: &KernelDispatchPacket, k: &Kernel<'_>, used: usize, sink: &mut Sink) {
    let dims = p.dimensions();
    for d in 0..3 {
        let (wg, grid) = (p.workgroup_size[d], p.grid_size[d]);
        // A zero is the zero rules' finding, in any dimension; the
        // unused-dimension rule judges the other values.
        if wg == 0 {
            sink.report(
                &WORKGROUP_SIZE_ZERO,
                format!("{} is 0, expected at least 1", WORKGROUP_SIZE[d]),
            );
        }
        if grid == 0 {
            sink.report(
                &GRID_SIZE_ZERO,
                format!("{} is 0, expected at least 1", GRID_SIZE[d]),
            );
        }
        if d >= used {
            for (name, v) in [(WORKGROUP_SIZE[d], u32::from(wg)), (GRID_SIZE[d], grid)] {
                if v > 1 {
                    sink.report(
                        &UNUSED_DIMENSION,
                        format!("{name} is {v}, expected 1: setup.DIMENSIONS is {dims}"),
                    );
                }
            }
            continue;
        }
        if wg > 0 && grid > 0 && grid < u32::from(wg) {
            sink.report(
                &GRID_SMALLER_THAN_WORKGROUP,
                format!(
                    "{} is {grid}, smaller than {} {wg}",
                    GRID_SIZE[d], WORKGROUP_SIZE[d]
                ),
            );
        }
        if k.uniform_work_group_size() && wg > 0 && !grid.is_multiple_of(u32::from(wg)) {
            sink.report(
                &GRID_UNIFORM,
                format!(
                    "{} is {grid}, not a multiple of {} {wg}, and the kernel's .uniform_work_group_size is 1",
                    GRID_SIZE[d], WORKGROUP_SIZE[d]
                ),
            );
        }
    }
    let wg = p.workgroup_size.map(u64::from);
    let n = flat(p.workgroup_size);
    if n > MAX_WORKGROUP_SIZE {
        sink.report(
            &WORKGROUP_SIZE_MAX,
            format!(
                "workgroup_size_x/y/z are {} = {n} work-items, expected at most {MAX_WORKGROUP_SIZE}",
                sizes(wg)
            ),
        );
    }
    if let Some(max) = k.md(|m| m.max_flat_workgroup_size) {
        if n > max {
            sink.report(
                &WORKGROUP_SIZE_MAX_FLAT,
                format!(
                    "workgroup_size_x/y/z are {} = {n} work-items, expected at most the kernel's .max_flat_workgroup_size {max}",
                    sizes(wg)
                ),
            );
        }
    }
    if let Some(r) = k.reqd_workgroup_size() {
        if wg != r {
            sink.report(
                &WORKGROUP_SIZE_REQD,
                format!(
                    "workgroup_size_x/y/z are {}, expected the kernel's .reqd_workgroup_size {}",
                    sizes(wg),
                    sizes(r)
                ),
            );
        }
    }
}

fn check_segments(p: &KernelDispatchPacket, k: &Kernel<'_>, sink: &mut Sink) {
    let group = u64::from(p.group_segment_size);
    let need = k.group_segment_fixed_size();
    if group < need {
        sink.report(
            &GROUP_SEGMENT_FIXED,
            format!(
                "group_segment_size is {group}, expected at least {need} (GROUP_SEGMENT_FIXED_SIZE {}, .group_segment_fixed_size {})",
                k.descriptor.group_segment_fixed_size,
                k.md(|m| m.group_segment_fixed_size)
                    .map_or("absent".to_owned(), |v| v.to_string())
            ),
        );
    }
    let lds = k.target.lds_bytes;
    // r600 processors have no HSA LDS limit in the table (0).
    if lds > 0 && p.group_segment_size > lds {
        sink.report(
            &GROUP_SEGMENT_LDS,
            format!(
                "group_segment_size is {group}, expected at most {lds}, the LDS one work-group can allocate on {}",
                k.target.name
            ),
        );
    }
    let private = u64::from(p.private_segment_size);
    let need = k.private_segment_fixed_size();
    if !k.uses_dynamic_stack() && private < need {
        sink.report(
            &PRIVATE_SEGMENT_FIXED,
            format!(
                "private_segment_size is {private}, expected at least {need} (PRIVATE_SEGMENT_FIXED_SIZE {}, .private_segment_fixed_size {}; no dynamic stack)",
                k.descriptor.private_segment_fixed_size,
                k.md(|m| m.private_segment_fixed_size)
                    .map_or("absent".to_owned(), |v| v.to_string())
            ),
        );
    }
}

fn check_addresses(p: &KernelDispatchPacket, k: &Kernel<'_>, sink: &mut Sink) {
    if p.kernel_object == 0 {
        sink.report(
            &KERNEL_OBJECT_NULL,
            "kernel_object is 0, expected the kernel descriptor's address",
        );
    } else if !p.kernel_object.is_multiple_of(KERNEL_OBJECT_ALIGN_BYTES) {
        sink.report(
            &KERNEL_OBJECT_ALIGN,
            format!(
                "kernel_object is {:#x}, expected a multiple of {KERNEL_OBJECT_ALIGN_BYTES}",
                p.kernel_object
            ),
        );
    }
    let kernarg = k.kernarg_segment_size();
    let align = k.kernarg_align();
    if p.kernarg_address == 0 {
        if kernarg > 0 {
            sink.report(
                &KERNARG_ADDRESS_NULL,
                format!("kernarg_address is 0, expected the address of the kernel's {kernarg}-byte kernarg segment"),
            );
        }
    } else if !p.kernarg_address.is_multiple_of(align) {
        sink.report(
            &KERNARG_ADDRESS_ALIGN,
            format!(
                "kernarg_address is {:#x}, expected a multiple of {align} (at least {KERNARG_MIN_ALIGN}; .kernarg_segment_align {})",
                p.kernarg_address,
                k.md(|m| m.kernarg_segment_align)
                    .map_or("absent".to_owned(), |v| v.to_string())
            ),
        );
    }
    let align = AMD_OBJECT_ALIGN as u64;
    if p.completion_signal != 0 && !p.completion_signal.is_multiple_of(align) {
        sink.report(
            &COMPLETION_SIGNAL_ALIGN,
            format!(
                "completion_signal is {:#x}, expected 0 (no signal) or a multiple of {align} (an amd_signal_t)",
                p.completion_signal
            ),
        );
    }
}

// ---------------------------------------------------------------------------
// The packet a runtime builds.

/// HIP's kernel dispatch header: KERNEL_DISPATCH, barrier, agent-scope
/// acquire and release fences. That is `dispatchPacketHeader_` (ROCm/clr
/// `rocvirtual.cpp`) under HIP's default `AMD_OPT_FLUSH=1`, "device-scope
/// fence operations when possible" (`fenceScopeAgent_`, `device.cpp`).
/// HIP uses system scope instead with `AMD_OPT_FLUSH=0`, or for a launch
/// whose stop event needs a system fence (`addSystemScope_`). HIP starts
/// every queue with this header and uses it whenever it orders a dispatch
/// after the earlier ones (a memory dependency, writable program-scope
/// variables); a dispatch its dependency tracking finds independent gets
/// it without the barrier bit (`dispatchPacketHeaderNoSync_`).
pub const HIP_HEADER: u16 = {
    let agent = header::FENCE_SCOPES[1].0;
    let h = header::TYPE.set(0, header::TYPE_KERNEL_DISPATCH);
    let h = header::BARRIER.set(h, 1);
    let h = header::SCACQUIRE_FENCE_SCOPE.set(h, agent);
    header::SCRELEASE_FENCE_SCOPE.set(h, agent)
};

/// HIP's grid dimension count: `ihipLaunchKernelCommand` builds every
/// launch as a 3-D range (unused dimensions of size 1).
pub const HIP_DIMENSIONS: u16 = 3;

/// What a launch supplies beside the kernel: the grid and work-group
/// sizes and the three addresses the runtime picks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    /// Grid and work-group sizes, in work-items.
    pub shape: Shape,
    /// The kernel descriptor's address.
    pub kernel_object: u64,
    /// The kernarg segment's address.
    pub kernarg_address: u64,
    /// The completion signal handle, 0 for none.
    pub completion_signal: u64,
}

/// The packet HIP builds for a plain launch of `k` (no dynamic group
/// memory, no profiling; ROCm/clr `ihipModuleLaunchKernel` and
/// `submitKernelInternal`): [`HIP_HEADER`], [`HIP_DIMENSIONS`], each
/// work-group dimension shrunk to the grid's where the grid is smaller,
/// the kernel's fixed group segment size, and its fixed private segment
/// size (for a dynamic-stack kernel at least [`HIP_DEFAULT_STACK_BYTES`]
/// and at most [`HIP_MAX_DYNAMIC_PRIVATE_BYTES`]).
///
/// For a launch HIP accepts (non-zero sizes, a work-group within the
/// kernel's limits, a uniform grid where the kernel asks for one, fixed
/// LDS within the target's) at suitably aligned addresses, the packet
/// keeps every rule of this module; [`check`] says why another one would
/// not dispatch.
pub fn runtime_packet(k: &Kernel<'_>, launch: &Launch) -> KernelDispatchPacket {
    let s = launch.shape;
    // HIP shrinks a block larger than the grid (ihipModuleLaunchKernel).
    let workgroup: [u16; 3] = std::array::from_fn(|d| {
        let g = s.grid[d];
        if g > 0 && g < u32::from(s.workgroup[d]) {
            g as u16
        } else {
            s.workgroup[d]
        }
    });
    let sat = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    let mut private = sat(k.private_segment_fixed_size());
    if k.uses_dynamic_stack() {
        private = private.clamp(HIP_DEFAULT_STACK_BYTES, HIP_MAX_DYNAMIC_PRIVATE_BYTES);
    }
    KernelDispatchPacket {
        header: HIP_HEADER,
        setup: SETUP_DIMENSIONS.set(0, HIP_DIMENSIONS),
        workgroup_size: workgroup,
        reserved0: 0,
        grid_size: s.grid,
        private_segment_size: private,
        group_segment_size: sat(k.group_segment_fixed_size()),
        kernel_object: launch.kernel_object,
        kernarg_address: launch.kernarg_address,
        reserved2: 0,
        completion_signal: launch.completion_signal,
    }
}

/// The shape `explain` shows a kernel's packet for, and why: one
/// work-group of the `.reqd_workgroup_size` when the kernel has one (it
/// can run no other); else one 1-D work-group of `.max_flat_workgroup_size`
/// work-items (the largest the kernel allows, at most
/// [`MAX_WORKGROUP_SIZE`]); else one wave (the least a dispatch runs,
/// and within any kernel's limits).
pub fn default_shape(k: &Kernel<'_>) -> (Shape, &'static str) {
    let one_group = |wg: [u16; 3]| Shape {
        grid: wg.map(u32::from),
        workgroup: wg,
    };
    if let Some(r) = k.reqd_workgroup_size() {
        let fits = r.iter().all(|&v| (1..=MAX_WORKGROUP_SIZE).contains(&v))
            && r.iter().product::<u64>() <= MAX_WORKGROUP_SIZE;
        if fits {
            return (
                one_group(r.map(|v| v as u16)),
                "one work-group of the kernel's .reqd_workgroup_size",
            );
        }
    }
    if let Some(m) = k.md(|m| m.max_flat_workgroup_size) {
        if (1..=MAX_WORKGROUP_SIZE).contains(&m) {
            return (
                one_group([m as u16, 1, 1]),
                "one 1-D work-group of the kernel's .max_flat_workgroup_size",
            );
        }
    }
    (
        one_group([k.wave_lanes() as u16, 1, 1]),
        "one 1-D work-group of one wave (the metadata gives no work-group size)",
    )
}

/// One field of a packet as `explain` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PacketField {
    /// The member's name in the layout table ([`KERNEL_DISPATCH_PACKET`]).
    pub name: &'static str,
    /// Its value; `None` for an address only the runtime knows.
    pub value: Option<u64>,
    /// What the value means, for a person.
    pub meaning: String,
}

/// The packet a runtime would build for a kernel, as `explain` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PacketView {
    /// The grid and work-group sizes it is built for.
    pub shape: Shape,
    /// Why that shape ([`default_shape`]).
    pub shape_reason: &'static str,
    /// Every member of the packet, in layout order.
    pub fields: Vec<PacketField>,
    /// Findings of [`check`] on it (`rule: message`): empty unless the
    /// kernel cannot be launched so (its fixed LDS exceeds the target's,
    /// its metadata contradicts itself, ...).
    pub violations: Vec<String>,
}

/// Reads the member `s` of a packet's bytes.
fn slot_value(b: &[u8; PACKET_SIZE], s: &Slot) -> u64 {
    b.get(s.offset..s.offset + s.size).map_or(0, |v| {
        v.iter().rev().fold(0, |a, &x| (a << 8) | u64::from(x))
    })
}

/// The packet HIP builds for `k` at its [`default_shape`], field by field.
/// The addresses are the runtime's: the view leaves kernel_object and
/// kernarg_address without a value, and the packet is checked with
/// stand-ins that keep their alignment rules, so that the findings are
/// about the kernel only.
pub fn view(k: &Kernel<'_>) -> PacketView {
    let (shape, shape_reason) = default_shape(k);
    let launch = Launch {
        shape,
        kernel_object: KERNEL_OBJECT_ALIGN_BYTES,
        kernarg_address: k.kernarg_align(),
        completion_signal: 0,
    };
    let p = runtime_packet(k, &launch);
    let mut sink = Sink::new();
    check(&p, k, &mut sink);
    let violations = sink
        .violations
        .iter()
        .map(|v| format!("{}: {}", v.rule.id, v.message))
        .collect();
    let bytes = p.to_bytes();
    let fields = KERNEL_DISPATCH_PACKET
        .iter()
        .map(|s| {
            let value = slot_value(&bytes, s);
            let (value, meaning) = match s.name {
                "header" => (Some(value), header_meaning(p.header)),
                "setup" => (
                    Some(value),
                    format!("{} {}", SETUP_DIMENSIONS.name, p.dimensions()),
                ),
                "private_segment_size" => (Some(value), private_meaning(k)),
                "group_segment_size" => (
                    Some(value),
                    "bytes per work-group: the kernel's fixed group segment, no dynamic LDS"
                        .to_owned(),
                ),
                "kernel_object" => (
                    None,
                    "the kernel descriptor's address once loaded (64-byte aligned)".to_owned(),
                ),
                "kernarg_address" => (
                    None,
                    format!(
                        "the address of a kernarg segment of {} bytes, {}-byte aligned (HIP: at least {HIP_MIN_KERNARG_ALIGN})",
                        k.kernarg_segment_size(),
                        k.kernarg_align()
                    ),
                ),
                "completion_signal" => (
                    Some(value),
                    "no signal (HIP attaches one only when it waits for or profiles the dispatch)"
                        .to_owned(),
                ),
                n if n.starts_with("reserved") => (Some(value), "reserved, 0".to_owned()),
                // The work-group and grid sizes.
                _ => (Some(value), "work-items".to_owned()),
            };
            PacketField {
                name: s.name,
                value,
                meaning,
            }
        })
        .collect();
    PacketView {
        shape,
        shape_reason,
        fields,
        violations,
    }
}

fn header_meaning(h: u16) -> String {
    let ty = header::TYPE.get(h);
    let ty = if ty == header::TYPE_KERNEL_DISPATCH {
        format!("{ty} (kernel dispatch)")
    } else {
        ty.to_string()
    };
    format!(
        "{} {ty}, {} {}, {} {} ({}), {} {} ({})",
        header::TYPE.name,
        header::BARRIER.name,
        header::BARRIER.get(h),
        header::SCACQUIRE_FENCE_SCOPE.name,
        header::SCACQUIRE_FENCE_SCOPE.get(h),
        scope_name(header::SCACQUIRE_FENCE_SCOPE.get(h)),
        header::SCRELEASE_FENCE_SCOPE.name,
        header::SCRELEASE_FENCE_SCOPE.get(h),
        scope_name(header::SCRELEASE_FENCE_SCOPE.get(h)),
    )
}

fn private_meaning(k: &Kernel<'_>) -> String {
    if k.uses_dynamic_stack() {
        format!(
            "bytes per work-item: dynamic stack, so the fixed size or HIP's {HIP_DEFAULT_STACK_BYTES}-byte stack, whichever is larger, at most {HIP_MAX_DYNAMIC_PRIVATE_BYTES}"
        )
    } else {
        "bytes per work-item: the kernel's fixed private segment".to_owned()
    }
}

#[cfg(test)]
mod tests;
