//! The 256-byte `amd_kernel_code_t` of code object V2: its fields, their
//! meaning per generation, and the rules on them.
//!
//! In a V2 code object every kernel is a symbol of type
//! `STT_AMDGPU_HSA_KERNEL` (10) whose value is the address of its
//! `amd_kernel_code_t` in `.text`; the machine code follows at
//! `kernel_code_entry_byte_offset` (256 in everything LLVM writes).
//!
//! Byte layout (little-endian):
//!
//! | bytes   | field |
//! | ------- | ----- |
//! | 0-7     | `amd_kernel_code_version_major`, `_minor` (u32 each) |
//! | 8-15    | `amd_machine_kind`, `amd_machine_version_major/_minor/_stepping` (u16 each) |
//! | 16-23   | `kernel_code_entry_byte_offset` (i64) |
//! | 24-39   | `kernel_code_prefetch_byte_offset` (i64), `_size` (u64) |
//! | 40-47   | `max_scratch_backing_memory_byte_size` (u64) |
//! | 48-55   | `compute_pgm_rsrc1`, `compute_pgm_rsrc2` (u32 each) |
//! | 56-59   | `code_properties` (u32 of bit fields) |
//! | 60-71   | private, group and GDS segment byte sizes (u32 each) |
//! | 72-79   | `kernarg_segment_byte_size` (u64) |
//! | 80-83   | `workgroup_fbarrier_count` (u32) |
//! | 84-99   | SGPR/VGPR counts, reserved and debug registers (u16 each) |
//! | 100-103 | kernarg, group, private alignment and wavefront size (log2, u8 each) |
//! | 104-107 | `call_convention` (i32) |
//! | 108-119 | reserved |
//! | 120-127 | `runtime_loader_kernel_symbol` (u64) |
//! | 128-255 | `control_directives` |
//!
//! Sources: rocm-code-object-format.rst and hsa-code-object-abi-v0.40.txt
//! "AMD Kernel Code Object amd_kernel_code_t" and the rsrc1/rsrc2 tables;
//! LLVM `llvm/lib/Target/AMDGPU/AMDKernelCodeT.h` (layout, property bits),
//! `Utils/AMDKernelCodeTInfo.h` (the `.amd_kernel_code_t` field names),
//! `Utils/AMDGPUBaseInfo.cpp` (`initDefaultAMDKernelCodeT`),
//! `AMDGPUAsmPrinter.cpp` (`getAmdKernelCode`, `getSIProgramInfo`) and
//! `AsmParser/AMDGPUAsmParser.cpp` (`ParseAMDKernelCodeTValue`); ROCm's
//! `amd_hsa_kernel_code.h` for the inner layout of the control directives.
//! Every rule was checked against llc-14 output for gfx600 to gfx906
//! (`tests/kernel_code_llvm.rs`): none fires on it. Where the documents and
//! LLVM 14 disagree the oracle follows LLVM (docs/errata-kcode.md).
//!
//! The initial register state these fields select is in
//! [`crate::sgpr::v2`].

use crate::kd::{Field, KernelDescriptor};
use crate::layout::{self, put, take, v2};
use crate::rules::Sink;
use crate::targets::{FeatureSetting, Generation, Target};
use serde::Serialize;

crate::declare_rules! {
    VERSION_MAJOR = (Error, "code.version_major",
        "amd_kernel_code_version_major is 1 (AMD_KERNEL_CODE_VERSION_MAJOR); major versions are not backward compatible. Any minor version is accepted (LLVM has written 0, 1 and 2).",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t; AMDGPUBaseInfo.cpp (initDefaultAMDKernelCodeT writes 1.2)");
    MACHINE_KIND = (Error, "code.machine_kind",
        "amd_machine_kind is 1 (AMD_MACHINE_KIND_AMDGPU).",
        "rocm-code-object-format.rst: AMD Machine Kind; AMDGPUBaseInfo.cpp (initDefaultAMDKernelCodeT)");
    MACHINE_VERSION = (Error, "code.machine_version",
        "amd_machine_version_major/minor/stepping equal the ISA version of the processor the object is for (LLVM getIsaVersion of the e_flags processor; unlike the V2 ISA note, the stepping is not raised when xnack is on).",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t; AMDGPUBaseInfo.cpp (initDefaultAMDKernelCodeT); observed with llc-14 -mcpu=gfx900/gfx906 at V2");
    ENTRY_OFFSET_INSIDE = (Error, "code.entry_offset.inside",
        "kernel_code_entry_byte_offset does not point into the 256-byte amd_kernel_code_t itself (0 to 255).",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t (kernel_code_entry_byte_offset)");
    ENTRY_ALIGNMENT = (Error, "code.entry_offset.alignment",
        "The kernel's entry (the amd_kernel_code_t address plus kernel_code_entry_byte_offset) is 256-byte aligned: the entry point register holds only address bits 47:8.",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t (kernel_code_entry_byte_offset); AMDGPUAsmPrinter.cpp (kernels aligned to 256)");
    ADDRESS_ALIGNMENT = (Warning, "code.address_alignment",
        "The amd_kernel_code_t starts on a 64-byte boundary (AMD_KERNEL_CODE_ALIGN_BYTES; LLVM aligns it to 256).",
        "ROCm amd_hsa_kernel_code.h (AMD_KERNEL_CODE_ALIGN_BYTES 64); AMDGPUAsmPrinter.cpp");
    MAX_SCRATCH_BACKING_MEMORY = (Info, "code.max_scratch_backing_memory",
        "max_scratch_backing_memory_byte_size is 0 when the kernel uses no scratch (no private segment bytes, no dynamic call stack). LLVM treats the field as deprecated, always writes 0 and its assembler ignores it.",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t; AMDGPUAsmParser.cpp (ParseAMDKernelCodeTValue)");
    RSRC1_PRIORITY = (Warning, "code.rsrc1.priority",
        "compute_pgm_rsrc1 PRIORITY (bits 11:10) should be 0: LLVM always writes 0 and the V3 documents say CP fills it in (the V2 table does not require 0).",
        "rocm-code-object-format.rst: amd_compute_pgm_rsrc1_t; amdgpu-usage.rst: compute_pgm_rsrc1");
    RSRC1_PRIV = (Error, "code.rsrc1.priv",
        "compute_pgm_rsrc1 PRIV (bit 20) is 0: set to 0 by the finalizer and filled in by CP.",
        "rocm-code-object-format.rst: amd_compute_pgm_rsrc1_t");
    RSRC1_DEBUG_MODE = (Error, "code.rsrc1.debug_mode",
        "compute_pgm_rsrc1 DEBUG_MODE (bit 22) is 0: set to 0 by the finalizer and filled in by CP.",
        "rocm-code-object-format.rst: amd_compute_pgm_rsrc1_t");
    RSRC1_BULKY = (Error, "code.rsrc1.bulky",
        "compute_pgm_rsrc1 BULKY (bit 24) is 0: set to 0 by the finalizer and filled in by CP.",
        "rocm-code-object-format.rst: amd_compute_pgm_rsrc1_t");
    RSRC1_CDBG_USER = (Error, "code.rsrc1.cdbg_user",
        "compute_pgm_rsrc1 CDBG_USER (bit 25) is 0: set to 0 by the finalizer and filled in by CP.",
        "rocm-code-object-format.rst: amd_compute_pgm_rsrc1_t");
    RSRC1_RESERVED = (Error, "code.rsrc1.reserved",
        "Reserved compute_pgm_rsrc1 bits are 0: bits 28:27 everywhere, bit 26 (FP16_OVFL) before GFX9, bits 31:29 (WGP_MODE, MEM_ORDERED, FWD_PROGRESS, which LLVM's V2 assembler accepts on GFX10) before GFX10.",
        "rocm-code-object-format.rst: amd_compute_pgm_rsrc1_t (31:26 reserved); AMDKernelCodeTInfo.h; AMDGPUAsmParser.cpp (enable_wgp_mode=1 is only allowed on GFX10+)");
    RSRC2_TRAP_HANDLER = (Warning, "code.rsrc2.trap_handler",
        "compute_pgm_rsrc2 ENABLE_TRAP_HANDLER (bit 6) should be 0: LLVM writes 0 for AMDHSA because CP sets the trap bit itself (the V2 table lets code containing a trap set it).",
        "AMDGPUAsmPrinter.cpp (getSIProgramInfo: TRAP_HANDLER must be zero for AMDHSA); rocm-code-object-format.rst: amd_compute_pgm_rsrc2_t");
    RSRC2_GRANULATED_LDS_SIZE = (Error, "code.rsrc2.granulated_lds_size",
        "compute_pgm_rsrc2 GRANULATED_LDS_SIZE (bits 23:15) is 0: CP uses the dispatch packet's group segment size instead.",
        "rocm-code-object-format.rst: amd_compute_pgm_rsrc2_t; AMDGPUAsmPrinter.cpp (LDS_SIZE must be zero for AMDHSA)");
    RSRC2_RESERVED = (Error, "code.rsrc2.reserved",
        "compute_pgm_rsrc2 bit 31 is 0 (reserved before GFX12).",
        "rocm-code-object-format.rst: amd_compute_pgm_rsrc2_t");
    PROPERTIES_RESERVED = (Error, "code.properties.reserved",
        "code_properties bits 15:11 and 31:23 are 0.",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t (bits 463:458, 479:471); AMDKernelCodeT.h (RESERVED1, RESERVED2)");
    PROPERTIES_WAVEFRONT_SIZE32 = (Error, "code.properties.wavefront_size32",
        "code_properties bit 10 (ENABLE_WAVEFRONT_SIZE32) is 0 unless the processor has wave32 (GFX10+).",
        "AMDKernelCodeT.h (ENABLE_WAVEFRONT_SIZE32); AMDGPUAsmParser.cpp (enable_wavefront_size32=1 is only allowed on GFX10+)");
    PRIVATE_ELEMENT_SIZE = (Warning, "code.private_element_size",
        "private_element_size is 1 (4 bytes): the runtime configures the scratch swizzle element size (SH_STATIC_MEM_CONFIG.ELEMENT_SIZE) to a dword, and the value must match it. LLVM writes 1 unless built with +max-private-element-size-8/16.",
        "rocm-code-object-format.rst: Scratch memory swizzling; AMDKernelCodeT.h (AMD_CODE_PROPERTY_PRIVATE_ELEMENT_SIZE); AMDGPUAsmPrinter.cpp (getAmdKernelCode)");
    IS_PTR64 = (Error, "code.is_ptr64",
        "is_ptr64 is 1: amdgcn HSA code objects use 64-bit global addresses (LLVM always sets it).",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t (is_ptr64); AMDGPUAsmPrinter.cpp (getAmdKernelCode)");
    XNACK = (Warning, "code.xnack",
        "is_xnack_enabled is 0 on processors without XNACK, and otherwise agrees with the xnack setting of e_flags (LLVM 14 sets both from the same subtarget feature).",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t (is_xnack_enabled); AMDGPUAsmPrinter.cpp (getAmdKernelCode); observed with llc-14 -mcpu=gfx900 -mattr=+xnack/-xnack at V2");
    DEBUG_SGPRS = (Error, "code.debug_sgprs",
        "When is_debug_enabled is 0, debug_wavefront_private_segment_offset_sgpr and debug_private_segment_buffer_sgpr are 0.",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t");
    RESERVED_VGPR_FIRST = (Error, "code.reserved_vgpr_first",
        "reserved_vgpr_first is 0 when reserved_vgpr_count is 0.",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t");
    RESERVED_SGPR_FIRST = (Error, "code.reserved_sgpr_first",
        "reserved_sgpr_first is 0 when reserved_sgpr_count is 0.",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t");
    SEGMENT_ALIGNMENT = (Error, "code.segment_alignment",
        "kernarg_segment_alignment, group_segment_alignment and private_segment_alignment (log2 of bytes) are at least 4 (16 bytes). LLVM writes 4, or more for a kernel argument aligned beyond 16 (9 for a 512-byte-aligned vector).",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t (at least HSA_POWERTWO_16); AMDKernelCodeT.h; AMDGPUAsmPrinter.cpp (getAmdKernelCode)");
    WAVEFRONT_SIZE = (Error, "code.wavefront_size",
        "wavefront_size (log2) is 6 (64 lanes), or 5 when ENABLE_WAVEFRONT_SIZE32 is set on a wave32 processor.",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t (wavefront_size); AMDGPUBaseInfo.cpp (initDefaultAMDKernelCodeT)");
    GRANULATED_SGPR_COUNT = (Error, "code.granulated_sgpr_count",
        "On GFX6-GFX9 the SGPRs compute_pgm_rsrc1 GRANULATED_WAVEFRONT_SGPR_COUNT allocates (granule 8, rounded to the allocation granule) cover wavefront_sgpr_count. LLVM may allocate more (amdgpu-waves-per-eu), so only too few is wrong.",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t (wavefront_sgpr_count); AMDGPUAsmPrinter.cpp (NumSGPRsForWavesPerEU); AMDGPUBaseInfo.cpp (getNumSGPRBlocks)");
    GRANULATED_VGPR_COUNT = (Error, "code.granulated_vgpr_count",
        "The VGPRs compute_pgm_rsrc1 GRANULATED_WORKITEM_VGPR_COUNT allocates (granule 4 in wave64) cover workitem_vgpr_count. LLVM may allocate more (amdgpu-waves-per-eu), so only too few is wrong.",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t (workitem_vgpr_count); AMDGPUAsmPrinter.cpp (NumVGPRsForWavesPerEU); AMDGPUBaseInfo.cpp (getNumVGPRBlocks)");
    SCRATCH_EN = (Error, "code.scratch_en",
        "compute_pgm_rsrc2 bit 0 (enable_sgpr_private_segment_wave_byte_offset, which CP uses for SCRATCH_EN) is set when the kernel uses scratch: workitem_private_segment_byte_size > 0 or is_dynamic_callstack.",
        "rocm-code-object-format.rst: amd_compute_pgm_rsrc2_t (bit 0); AMDGPUAsmPrinter.cpp (ScratchEnable = ScratchBlocks > 0 || DynamicCallStack)");
    GROUP_SEGMENT_SIZE = (Warning, "code.group_segment_size",
        "workgroup_group_segment_byte_size fits the processor's LDS (64 KiB; 32 KiB on GFX6); a larger work-group cannot be dispatched.",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t; targets.rs (lds_bytes)");
    RUNTIME_LOADER_KERNEL_SYMBOL = (Error, "code.runtime_loader_kernel_symbol",
        "runtime_loader_kernel_symbol is 0 in a code object: the loader fills it in after loading.",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t");
    RESERVED_BYTES = (Error, "code.reserved_bytes",
        "Reserved bytes 108-119 of the amd_kernel_code_t are 0.",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t (bits 960:864); AMDKernelCodeT.h (reserved3)");
    CONTROL_DIRECTIVES_RESERVED = (Warning, "code.control_directives.reserved",
        "The reserved bytes of the control directives (bytes 29-31 and 68-127 of the block, amd_kernel_code_t bytes 157-159 and 196-255) are 0; LLVM writes the whole block as 0.",
        "ROCm amd_hsa_kernel_code.h (amd_control_directives_t reserved1, reserved2); AMDGPUBaseInfo.cpp (initDefaultAMDKernelCodeT zeroes the header)");
}

pub use crate::layout::v2::{offsets, props, KERNEL_CODE_SIZE};

/// `AMD_KERNEL_CODE_VERSION_MAJOR`.
pub const VERSION_MAJOR_VALUE: u32 = 1;

/// `AMD_MACHINE_KIND_AMDGPU`.
pub const MACHINE_KIND_AMDGPU: u16 = 1;

/// The alignment the kernel's machine code needs (the entry point register
/// holds address bits 47:8).
pub const ENTRY_ALIGNMENT_BYTES: u64 = 256;

/// The alignment of the `amd_kernel_code_t` itself
/// (`AMD_KERNEL_CODE_ALIGN_BYTES`).
pub const ALIGNMENT_BYTES: u64 = 64;

/// An `amd_kernel_code_t`, every field as stored (little-endian), reserved
/// ranges included so that [`KernelCode::to_bytes`] reproduces the input
/// exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct KernelCode {
    /// Bytes 0-3: major version of the structure (1).
    pub amd_kernel_code_version_major: u32,
    /// Bytes 4-7: minor version (LLVM 14 writes 2).
    pub amd_kernel_code_version_minor: u32,
    /// Bytes 8-9: machine kind (1 = AMDGPU).
    pub amd_machine_kind: u16,
    /// Bytes 10-11: ISA major version.
    pub amd_machine_version_major: u16,
    /// Bytes 12-13: ISA minor version.
    pub amd_machine_version_minor: u16,
    /// Bytes 14-15: ISA stepping.
    pub amd_machine_version_stepping: u16,
    /// Bytes 16-23: signed byte offset from this structure to the entry.
    pub kernel_code_entry_byte_offset: i64,
    /// Bytes 24-31: signed offset of the range to prefetch.
    pub kernel_code_prefetch_byte_offset: i64,
    /// Bytes 32-39: size of the range to prefetch (0: none).
    pub kernel_code_prefetch_byte_size: u64,
    /// Bytes 40-47: scratch backing memory for full occupancy (deprecated).
    pub max_scratch_backing_memory_byte_size: u64,
    /// Bytes 48-51: COMPUTE_PGM_RSRC1.
    pub compute_pgm_rsrc1: u32,
    /// Bytes 52-55: COMPUTE_PGM_RSRC2.
    pub compute_pgm_rsrc2: u32,
    /// Bytes 56-59: code properties (user SGPR enables and flags, see
    /// [`props`]).
    pub code_properties: u32,
    /// Bytes 60-63: static private (scratch) bytes per work-item.
    pub workitem_private_segment_byte_size: u32,
    /// Bytes 64-67: static group (LDS) bytes per work-group.
    pub workgroup_group_segment_byte_size: u32,
    /// Bytes 68-71: GDS bytes.
    pub gds_segment_byte_size: u32,
    /// Bytes 72-79: kernarg segment bytes.
    pub kernarg_segment_byte_size: u64,
    /// Bytes 80-83: fbarriers used (HSAIL).
    pub workgroup_fbarrier_count: u32,
    /// Bytes 84-85: SGPRs used by a wave (VCC, FLAT_SCRATCH, XNACK_MASK
    /// included).
    pub wavefront_sgpr_count: u16,
    /// Bytes 86-87: VGPRs used by a work-item.
    pub workitem_vgpr_count: u16,
    /// Bytes 88-89: first VGPR reserved by the client.
    pub reserved_vgpr_first: u16,
    /// Bytes 90-91: VGPRs reserved by the client.
    pub reserved_vgpr_count: u16,
    /// Bytes 92-93: first SGPR reserved by the client.
    pub reserved_sgpr_first: u16,
    /// Bytes 94-95: SGPRs reserved by the client.
    pub reserved_sgpr_count: u16,
    /// Bytes 96-97: SGPR holding the wave scratch offset for the debugger.
    pub debug_wavefront_private_segment_offset_sgpr: u16,
    /// Bytes 98-99: first of 4 SGPRs holding the scratch V# for the
    /// debugger.
    pub debug_private_segment_buffer_sgpr: u16,
    /// Byte 100: kernarg segment alignment, log2 of bytes.
    pub kernarg_segment_alignment: u8,
    /// Byte 101: group segment alignment, log2 of bytes.
    pub group_segment_alignment: u8,
    /// Byte 102: private segment alignment, log2 of bytes.
    pub private_segment_alignment: u8,
    /// Byte 103: wavefront size, log2 of lanes.
    pub wavefront_size: u8,
    /// Bytes 104-107: call convention for indirect functions (-1: none).
    pub call_convention: i32,
    /// Bytes 108-119: reserved.
    pub reserved3: [u8; 12],
    /// Bytes 120-127: filled in by the loader; 0 in a file.
    pub runtime_loader_kernel_symbol: u64,
    /// Bytes 128-255: control directives (see [`ControlDirectives`]).
    #[serde(serialize_with = "ser_bytes")]
    pub control_directives: [u8; 128],
}

fn ser_bytes<S: serde::Serializer>(b: &[u8; 128], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(b.iter())
}

impl Default for KernelCode {
    /// All zero.
    fn default() -> Self {
        Self {
            amd_kernel_code_version_major: 0,
            amd_kernel_code_version_minor: 0,
            amd_machine_kind: 0,
            amd_machine_version_major: 0,
            amd_machine_version_minor: 0,
            amd_machine_version_stepping: 0,
            kernel_code_entry_byte_offset: 0,
            kernel_code_prefetch_byte_offset: 0,
            kernel_code_prefetch_byte_size: 0,
            max_scratch_backing_memory_byte_size: 0,
            compute_pgm_rsrc1: 0,
            compute_pgm_rsrc2: 0,
            code_properties: 0,
            workitem_private_segment_byte_size: 0,
            workgroup_group_segment_byte_size: 0,
            gds_segment_byte_size: 0,
            kernarg_segment_byte_size: 0,
            workgroup_fbarrier_count: 0,
            wavefront_sgpr_count: 0,
            workitem_vgpr_count: 0,
            reserved_vgpr_first: 0,
            reserved_vgpr_count: 0,
            reserved_sgpr_first: 0,
            reserved_sgpr_count: 0,
            debug_wavefront_private_segment_offset_sgpr: 0,
            debug_private_segment_buffer_sgpr: 0,
            kernarg_segment_alignment: 0,
            group_segment_alignment: 0,
            private_segment_alignment: 0,
            wavefront_size: 0,
            call_convention: 0,
            reserved3: [0; 12],
            runtime_loader_kernel_symbol: 0,
            control_directives: [0; 128],
        }
    }
}

/// The control directives block (`amd_control_directives_t` of ROCm's
/// `amd_hsa_kernel_code.h`), decoded from [`KernelCode::control_directives`].
/// HSAIL finalizers recorded the directives the code was built under; LLVM
/// writes zeros.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ControlDirectives {
    /// Block bytes 0-7: which directives are enabled (bit mask).
    pub enabled_control_directives: u64,
    /// Bytes 8-9: exceptions that break.
    pub enable_break_exceptions: u16,
    /// Bytes 10-11: exceptions that are detected.
    pub enable_detect_exceptions: u16,
    /// Bytes 12-15: most dynamic group segment bytes.
    pub max_dynamic_group_size: u32,
    /// Bytes 16-23: most work-items in the grid.
    pub max_flat_grid_size: u64,
    /// Bytes 24-27: most work-items in a work-group.
    pub max_flat_workgroup_size: u32,
    /// Byte 28: required number of dimensions.
    pub required_dim: u8,
    /// Bytes 32-55: required grid size X, Y, Z.
    pub required_grid_size: [u64; 3],
    /// Bytes 56-67: required work-group size X, Y, Z.
    pub required_workgroup_size: [u32; 3],
}

impl KernelCode {
    /// Decodes the first 256 bytes of `bytes` (more are ignored). Every bit
    /// pattern is an `amd_kernel_code_t`; [`check`] says which are valid.
    pub fn parse(bytes: &[u8]) -> Result<KernelCode, &'static str> {
        let b = bytes
            .get(..KERNEL_CODE_SIZE)
            .ok_or("amd_kernel_code_t is truncated: it needs 256 bytes")?;
        Ok(Self {
            amd_kernel_code_version_major: u32::from_le_bytes(take(
                b,
                offsets::VERSION_MAJOR as usize,
            )),
            amd_kernel_code_version_minor: u32::from_le_bytes(take(
                b,
                offsets::VERSION_MINOR as usize,
            )),
            amd_machine_kind: u16::from_le_bytes(take(b, offsets::MACHINE_KIND as usize)),
            amd_machine_version_major: u16::from_le_bytes(take(
                b,
                offsets::MACHINE_VERSION_MAJOR as usize,
            )),
            amd_machine_version_minor: u16::from_le_bytes(take(
                b,
                offsets::MACHINE_VERSION_MINOR as usize,
            )),
            amd_machine_version_stepping: u16::from_le_bytes(take(
                b,
                offsets::MACHINE_VERSION_STEPPING as usize,
            )),
            kernel_code_entry_byte_offset: i64::from_le_bytes(take(
                b,
                offsets::KERNEL_CODE_ENTRY_BYTE_OFFSET as usize,
            )),
            kernel_code_prefetch_byte_offset: i64::from_le_bytes(take(
                b,
                offsets::KERNEL_CODE_PREFETCH_BYTE_OFFSET as usize,
            )),
            kernel_code_prefetch_byte_size: u64::from_le_bytes(take(
                b,
                offsets::KERNEL_CODE_PREFETCH_BYTE_SIZE as usize,
            )),
            max_scratch_backing_memory_byte_size: u64::from_le_bytes(take(
                b,
                offsets::MAX_SCRATCH_BACKING_MEMORY_BYTE_SIZE as usize,
            )),
            compute_pgm_rsrc1: u32::from_le_bytes(take(b, offsets::COMPUTE_PGM_RSRC1 as usize)),
            compute_pgm_rsrc2: u32::from_le_bytes(take(b, offsets::COMPUTE_PGM_RSRC2 as usize)),
            code_properties: u32::from_le_bytes(take(b, offsets::CODE_PROPERTIES as usize)),
            workitem_private_segment_byte_size: u32::from_le_bytes(take(
                b,
                offsets::WORKITEM_PRIVATE_SEGMENT_BYTE_SIZE as usize,
            )),
            workgroup_group_segment_byte_size: u32::from_le_bytes(take(
                b,
                offsets::WORKGROUP_GROUP_SEGMENT_BYTE_SIZE as usize,
            )),
            gds_segment_byte_size: u32::from_le_bytes(take(
                b,
                offsets::GDS_SEGMENT_BYTE_SIZE as usize,
            )),
            kernarg_segment_byte_size: u64::from_le_bytes(take(
                b,
                offsets::KERNARG_SEGMENT_BYTE_SIZE as usize,
            )),
            workgroup_fbarrier_count: u32::from_le_bytes(take(
                b,
                offsets::WORKGROUP_FBARRIER_COUNT as usize,
            )),
            wavefront_sgpr_count: u16::from_le_bytes(take(
                b,
                offsets::WAVEFRONT_SGPR_COUNT as usize,
            )),
            workitem_vgpr_count: u16::from_le_bytes(take(b, offsets::WORKITEM_VGPR_COUNT as usize)),
            reserved_vgpr_first: u16::from_le_bytes(take(b, offsets::RESERVED_VGPR_FIRST as usize)),
            reserved_vgpr_count: u16::from_le_bytes(take(b, offsets::RESERVED_VGPR_COUNT as usize)),
            reserved_sgpr_first: u16::from_le_bytes(take(b, offsets::RESERVED_SGPR_FIRST as usize)),
            reserved_sgpr_count: u16::from_le_bytes(take(b, offsets::RESERVED_SGPR_COUNT as usize)),
            debug_wavefront_private_segment_offset_sgpr: u16::from_le_bytes(take(
                b,
                offsets::DEBUG_WAVEFRONT_PRIVATE_SEGMENT_OFFSET_SGPR as usize,
            )),
            debug_private_segment_buffer_sgpr: u16::from_le_bytes(take(
                b,
                offsets::DEBUG_PRIVATE_SEGMENT_BUFFER_SGPR as usize,
            )),
            kernarg_segment_alignment: take::<1>(b, offsets::KERNARG_SEGMENT_ALIGNMENT as usize)[0],
            group_segment_alignment: take::<1>(b, offsets::GROUP_SEGMENT_ALIGNMENT as usize)[0],
            private_segment_alignment: take::<1>(b, offsets::PRIVATE_SEGMENT_ALIGNMENT as usize)[0],
            wavefront_size: take::<1>(b, offsets::WAVEFRONT_SIZE as usize)[0],
            call_convention: i32::from_le_bytes(take(b, offsets::CALL_CONVENTION as usize)),
            reserved3: take(b, offsets::RESERVED3 as usize),
            runtime_loader_kernel_symbol: u64::from_le_bytes(take(
                b,
                offsets::RUNTIME_LOADER_KERNEL_SYMBOL as usize,
            )),
            control_directives: take(b, offsets::CONTROL_DIRECTIVES as usize),
        })
    }

    /// Encodes the structure; the inverse of [`Self::parse`].
    pub fn to_bytes(&self) -> [u8; KERNEL_CODE_SIZE] {
        let mut o = [0u8; KERNEL_CODE_SIZE];
        put(
            &mut o,
            offsets::VERSION_MAJOR as usize,
            &self.amd_kernel_code_version_major.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::VERSION_MINOR as usize,
            &self.amd_kernel_code_version_minor.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::MACHINE_KIND as usize,
            &self.amd_machine_kind.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::MACHINE_VERSION_MAJOR as usize,
            &self.amd_machine_version_major.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::MACHINE_VERSION_MINOR as usize,
            &self.amd_machine_version_minor.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::MACHINE_VERSION_STEPPING as usize,
            &self.amd_machine_version_stepping.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::KERNEL_CODE_ENTRY_BYTE_OFFSET as usize,
            &self.kernel_code_entry_byte_offset.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::KERNEL_CODE_PREFETCH_BYTE_OFFSET as usize,
            &self.kernel_code_prefetch_byte_offset.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::KERNEL_CODE_PREFETCH_BYTE_SIZE as usize,
            &self.kernel_code_prefetch_byte_size.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::MAX_SCRATCH_BACKING_MEMORY_BYTE_SIZE as usize,
            &self.max_scratch_backing_memory_byte_size.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::COMPUTE_PGM_RSRC1 as usize,
            &self.compute_pgm_rsrc1.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::COMPUTE_PGM_RSRC2 as usize,
            &self.compute_pgm_rsrc2.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::CODE_PROPERTIES as usize,
            &self.code_properties.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::WORKITEM_PRIVATE_SEGMENT_BYTE_SIZE as usize,
            &self.workitem_private_segment_byte_size.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::WORKGROUP_GROUP_SEGMENT_BYTE_SIZE as usize,
            &self.workgroup_group_segment_byte_size.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::GDS_SEGMENT_BYTE_SIZE as usize,
            &self.gds_segment_byte_size.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::KERNARG_SEGMENT_BYTE_SIZE as usize,
            &self.kernarg_segment_byte_size.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::WORKGROUP_FBARRIER_COUNT as usize,
            &self.workgroup_fbarrier_count.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::WAVEFRONT_SGPR_COUNT as usize,
            &self.wavefront_sgpr_count.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::WORKITEM_VGPR_COUNT as usize,
            &self.workitem_vgpr_count.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::RESERVED_VGPR_FIRST as usize,
            &self.reserved_vgpr_first.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::RESERVED_VGPR_COUNT as usize,
            &self.reserved_vgpr_count.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::RESERVED_SGPR_FIRST as usize,
            &self.reserved_sgpr_first.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::RESERVED_SGPR_COUNT as usize,
            &self.reserved_sgpr_count.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::DEBUG_WAVEFRONT_PRIVATE_SEGMENT_OFFSET_SGPR as usize,
            &self
                .debug_wavefront_private_segment_offset_sgpr
                .to_le_bytes(),
        );
        put(
            &mut o,
            offsets::DEBUG_PRIVATE_SEGMENT_BUFFER_SGPR as usize,
            &self.debug_private_segment_buffer_sgpr.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::KERNARG_SEGMENT_ALIGNMENT as usize,
            &[
                self.kernarg_segment_alignment,
                self.group_segment_alignment,
                self.private_segment_alignment,
                self.wavefront_size,
            ],
        );
        put(
            &mut o,
            offsets::CALL_CONVENTION as usize,
            &self.call_convention.to_le_bytes(),
        );
        put(&mut o, offsets::RESERVED3 as usize, &self.reserved3);
        put(
            &mut o,
            offsets::RUNTIME_LOADER_KERNEL_SYMBOL as usize,
            &self.runtime_loader_kernel_symbol.to_le_bytes(),
        );
        put(
            &mut o,
            offsets::CONTROL_DIRECTIVES as usize,
            &self.control_directives,
        );
        o
    }

    /// `compute_pgm_resource_registers` as LLVM's `amd_kernel_code_t`
    /// holds it: rsrc1 in the low, rsrc2 in the high 32 bits.
    pub fn compute_pgm_resource_registers(&self) -> u64 {
        u64::from(self.compute_pgm_rsrc1) | u64::from(self.compute_pgm_rsrc2) << 32
    }

    /// The address of the kernel's first instruction for an
    /// `amd_kernel_code_t` at `address` (`None` if it overflows).
    pub fn entry_address(&self, address: u64) -> Option<u64> {
        address.checked_add_signed(self.kernel_code_entry_byte_offset)
    }
    // ---- bit fields ----------------------------------------------------------

    /// The value of the descriptor's bit field `f` here: `compute_pgm_rsrc1/2`
    /// hold the same fields, and `code_properties` the user SGPR enables
    /// and the wave32 bit at the same bits (words V2 lacks read as 0).
    pub fn field(&self, f: &layout::BitField) -> u32 {
        match f.word {
            layout::Word::Rsrc1 => f.get(self.compute_pgm_rsrc1),
            layout::Word::Rsrc2 => f.get(self.compute_pgm_rsrc2),
            layout::Word::Properties => f.get(self.code_properties),
            layout::Word::Rsrc3 | layout::Word::KernargPreload => 0,
        }
    }
    /// The value of row `m` of [`v2::MEMBERS`] here (signed members as
    /// their two's-complement bits).
    pub fn member(&self, m: &v2::Member) -> u64 {
        let word = match m.offset {
            offsets::COMPUTE_PGM_RSRC1 => self.compute_pgm_rsrc1,
            offsets::COMPUTE_PGM_RSRC2 => self.compute_pgm_rsrc2,
            offsets::CODE_PROPERTIES => self.code_properties,
            _ => return m.get(&self.to_bytes()),
        };
        m.value_in(word.into())
    }

    crate::kd::shared_accessors!();

    /// rsrc2 5:1 USER_SGPR_COUNT (code object V2 names no GFX12.5
    /// processor, whose field is 6 bits).
    pub fn user_sgpr_count(&self) -> u32 {
        self.field(&crate::layout::USER_SGPR_COUNT)
    }

    /// rsrc1 19:12 as LLVM's `.amd_kernel_code_t` lists it (`float_mode`):
    /// the four round and denorm mode fields together.
    pub fn float_mode(&self) -> u32 {
        self.member(&v2::FLOAT_MODE) as u32
    }
    /// rsrc2 0 `enable_sgpr_private_segment_wave_byte_offset`: the wave
    /// offset system SGPR, and SCRATCH_EN.
    pub fn enable_sgpr_private_segment_wave_byte_offset(&self) -> bool {
        self.field(&layout::ENABLE_PRIVATE_SEGMENT) != 0
    }
    /// rsrc2 14:13 as LLVM lists them (`enable_exception_msb`): address
    /// watch (bit 13) and memory violation (bit 14).
    pub fn enable_exception_msb(&self) -> u32 {
        self.member(&v2::ENABLE_EXCEPTION_MSB) as u32
    }
    /// rsrc2 14 ENABLE_EXCEPTION_MEMORY_VIOLATION.
    pub fn enable_exception_memory_violation(&self) -> bool {
        self.field(&layout::ENABLE_EXCEPTION_MEMORY) != 0
    }
    /// rsrc2 30:24 as LLVM lists them (`enable_exception`): the seven IEEE
    /// and integer exception enables.
    pub fn enable_exception(&self) -> u32 {
        self.member(&v2::ENABLE_EXCEPTION) as u32
    }

    fn prop(&self, m: &v2::Member) -> bool {
        self.member(m) != 0
    }
    /// ENABLE_SGPR_GRID_WORKGROUP_COUNT_X (1 user SGPR).
    pub fn enable_sgpr_grid_workgroup_count_x(&self) -> bool {
        self.prop(&v2::ENABLE_SGPR_GRID_WORKGROUP_COUNT_X)
    }
    /// ENABLE_SGPR_GRID_WORKGROUP_COUNT_Y (1 user SGPR, if it fits).
    pub fn enable_sgpr_grid_workgroup_count_y(&self) -> bool {
        self.prop(&v2::ENABLE_SGPR_GRID_WORKGROUP_COUNT_Y)
    }
    /// ENABLE_SGPR_GRID_WORKGROUP_COUNT_Z (1 user SGPR, if it fits).
    pub fn enable_sgpr_grid_workgroup_count_z(&self) -> bool {
        self.prop(&v2::ENABLE_SGPR_GRID_WORKGROUP_COUNT_Z)
    }
    /// ENABLE_ORDERED_APPEND_GDS.
    pub fn enable_ordered_append_gds(&self) -> bool {
        self.prop(&v2::ENABLE_ORDERED_APPEND_GDS)
    }
    /// The 2-bit PRIVATE_ELEMENT_SIZE code (0 = 2, 1 = 4, 2 = 8, 3 = 16
    /// bytes).
    pub fn private_element_size(&self) -> u32 {
        self.member(&v2::PRIVATE_ELEMENT_SIZE) as u32
    }
    /// The private element size in bytes (2, 4, 8 or 16).
    pub fn private_element_size_bytes(&self) -> u32 {
        2 << self.private_element_size()
    }
    /// IS_PTR64.
    pub fn is_ptr64(&self) -> bool {
        self.prop(&v2::IS_PTR64)
    }
    /// IS_DYNAMIC_CALLSTACK.
    pub fn is_dynamic_callstack(&self) -> bool {
        self.prop(&v2::IS_DYNAMIC_CALLSTACK)
    }
    /// IS_DEBUG_ENABLED (`is_debug_supported` in the documents).
    pub fn is_debug_enabled(&self) -> bool {
        self.prop(&v2::IS_DEBUG_ENABLED)
    }
    /// IS_XNACK_ENABLED.
    pub fn is_xnack_enabled(&self) -> bool {
        self.prop(&v2::IS_XNACK_ENABLED)
    }
    /// The reserved code_properties bits that are set.
    pub fn properties_reserved(&self) -> u32 {
        self.code_properties & (props::RESERVED1 | props::RESERVED2)
    }

    // ---- alignments --------------------------------------------------------

    /// `kernarg_segment_alignment` in bytes (`None` past 2^63).
    pub fn kernarg_segment_alignment_bytes(&self) -> Option<u64> {
        1u64.checked_shl(u32::from(self.kernarg_segment_alignment))
    }
    /// `group_segment_alignment` in bytes (`None` past 2^63).
    pub fn group_segment_alignment_bytes(&self) -> Option<u64> {
        1u64.checked_shl(u32::from(self.group_segment_alignment))
    }
    /// `private_segment_alignment` in bytes (`None` past 2^63).
    pub fn private_segment_alignment_bytes(&self) -> Option<u64> {
        1u64.checked_shl(u32::from(self.private_segment_alignment))
    }
    /// Lanes per wavefront (`None` past 2^63).
    pub fn wavefront_lanes(&self) -> Option<u64> {
        1u64.checked_shl(u32::from(self.wavefront_size))
    }

    // ---- control directives ------------------------------------------------

    /// The control directives block decoded.
    pub fn decoded_control_directives(&self) -> ControlDirectives {
        let b = self.to_bytes();
        // Each row is at most as wide as its member, so the casts keep it.
        let get = |m: &v2::Member| m.get(&b);
        ControlDirectives {
            enabled_control_directives: get(&v2::ENABLED_CONTROL_DIRECTIVES),
            enable_break_exceptions: get(&v2::ENABLE_BREAK_EXCEPTIONS) as u16,
            enable_detect_exceptions: get(&v2::ENABLE_DETECT_EXCEPTIONS) as u16,
            max_dynamic_group_size: get(&v2::MAX_DYNAMIC_GROUP_SIZE) as u32,
            max_flat_grid_size: get(&v2::MAX_FLAT_GRID_SIZE),
            max_flat_workgroup_size: get(&v2::MAX_FLAT_WORKGROUP_SIZE) as u32,
            required_dim: get(&v2::REQUIRED_DIM) as u8,
            required_grid_size: [
                get(&v2::REQUIRED_GRID_SIZE_X),
                get(&v2::REQUIRED_GRID_SIZE_Y),
                get(&v2::REQUIRED_GRID_SIZE_Z),
            ],
            required_workgroup_size: [
                get(&v2::REQUIRED_WORKGROUP_SIZE_X) as u32,
                get(&v2::REQUIRED_WORKGROUP_SIZE_Y) as u32,
                get(&v2::REQUIRED_WORKGROUP_SIZE_Z) as u32,
            ],
        }
    }

    // ---- derived -----------------------------------------------------------

    /// True if the kernel runs in wave32 on `target` (bit 10 only counts
    /// from GFX10).
    pub fn wave32(&self, target: &Target) -> bool {
        target.generation >= Generation::Gfx10 && self.enable_wavefront_size32()
    }

    /// rsrc1, rsrc2 and the user SGPR enables in the shape of a V3+ kernel
    /// descriptor, to share the register arithmetic of [`crate::kd`] and
    /// [`crate::sgpr`] (both structures hold the same registers, and the
    /// property bits 0-6 and 10 mean the same).
    pub(crate) fn as_descriptor(&self) -> KernelDescriptor {
        KernelDescriptor {
            compute_pgm_rsrc1: self.compute_pgm_rsrc1,
            compute_pgm_rsrc2: self.compute_pgm_rsrc2,
            // Bits 0-6 and 10 fit in 16 bits by the mask.
            kernel_code_properties: (self.code_properties & 0x047f) as u16,
            ..Default::default()
        }
    }

    /// SGPRs the hardware allocates per wave on GFX6-GFX9 for
    /// GRANULATED_WAVEFRONT_SGPR_COUNT (`None` from GFX10, where the field
    /// is ignored).
    pub fn allocated_sgprs(&self, target: &Target) -> Option<u32> {
        self.as_descriptor().allocated_sgprs(target)
    }

    /// VGPRs GRANULATED_WORKITEM_VGPR_COUNT allocates per work-item.
    pub fn allocated_vgprs(&self, target: &Target) -> u32 {
        self.as_descriptor().allocated_vgprs(target)
    }
}

mod checks;
pub(crate) mod fields;
#[cfg(test)]
pub(crate) mod tests;

pub use checks::{check, check_placement};
