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

/// Size of an `amd_kernel_code_t` in bytes.
pub const KERNEL_CODE_SIZE: usize = 256;

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

/// Byte offsets of the fields, for reporting file offsets.
pub mod offsets {
    /// `amd_kernel_code_version_major` (u32).
    pub const VERSION_MAJOR: u64 = 0;
    /// `amd_kernel_code_version_minor` (u32).
    pub const VERSION_MINOR: u64 = 4;
    /// `amd_machine_kind` (u16).
    pub const MACHINE_KIND: u64 = 8;
    /// `amd_machine_version_major` (u16).
    pub const MACHINE_VERSION_MAJOR: u64 = 10;
    /// `amd_machine_version_minor` (u16).
    pub const MACHINE_VERSION_MINOR: u64 = 12;
    /// `amd_machine_version_stepping` (u16).
    pub const MACHINE_VERSION_STEPPING: u64 = 14;
    /// `kernel_code_entry_byte_offset` (i64).
    pub const KERNEL_CODE_ENTRY_BYTE_OFFSET: u64 = 16;
    /// `kernel_code_prefetch_byte_offset` (i64).
    pub const KERNEL_CODE_PREFETCH_BYTE_OFFSET: u64 = 24;
    /// `kernel_code_prefetch_byte_size` (u64).
    pub const KERNEL_CODE_PREFETCH_BYTE_SIZE: u64 = 32;
    /// `max_scratch_backing_memory_byte_size` (u64).
    pub const MAX_SCRATCH_BACKING_MEMORY_BYTE_SIZE: u64 = 40;
    /// `compute_pgm_rsrc1` (u32; the low half of
    /// `compute_pgm_resource_registers`).
    pub const COMPUTE_PGM_RSRC1: u64 = 48;
    /// `compute_pgm_rsrc2` (u32; the high half).
    pub const COMPUTE_PGM_RSRC2: u64 = 52;
    /// `code_properties` (u32).
    pub const CODE_PROPERTIES: u64 = 56;
    /// `workitem_private_segment_byte_size` (u32).
    pub const WORKITEM_PRIVATE_SEGMENT_BYTE_SIZE: u64 = 60;
    /// `workgroup_group_segment_byte_size` (u32).
    pub const WORKGROUP_GROUP_SEGMENT_BYTE_SIZE: u64 = 64;
    /// `gds_segment_byte_size` (u32).
    pub const GDS_SEGMENT_BYTE_SIZE: u64 = 68;
    /// `kernarg_segment_byte_size` (u64).
    pub const KERNARG_SEGMENT_BYTE_SIZE: u64 = 72;
    /// `workgroup_fbarrier_count` (u32).
    pub const WORKGROUP_FBARRIER_COUNT: u64 = 80;
    /// `wavefront_sgpr_count` (u16).
    pub const WAVEFRONT_SGPR_COUNT: u64 = 84;
    /// `workitem_vgpr_count` (u16).
    pub const WORKITEM_VGPR_COUNT: u64 = 86;
    /// `reserved_vgpr_first` (u16).
    pub const RESERVED_VGPR_FIRST: u64 = 88;
    /// `reserved_vgpr_count` (u16).
    pub const RESERVED_VGPR_COUNT: u64 = 90;
    /// `reserved_sgpr_first` (u16).
    pub const RESERVED_SGPR_FIRST: u64 = 92;
    /// `reserved_sgpr_count` (u16).
    pub const RESERVED_SGPR_COUNT: u64 = 94;
    /// `debug_wavefront_private_segment_offset_sgpr` (u16).
    pub const DEBUG_WAVEFRONT_PRIVATE_SEGMENT_OFFSET_SGPR: u64 = 96;
    /// `debug_private_segment_buffer_sgpr` (u16).
    pub const DEBUG_PRIVATE_SEGMENT_BUFFER_SGPR: u64 = 98;
    /// `kernarg_segment_alignment` (u8, log2).
    pub const KERNARG_SEGMENT_ALIGNMENT: u64 = 100;
    /// `group_segment_alignment` (u8, log2).
    pub const GROUP_SEGMENT_ALIGNMENT: u64 = 101;
    /// `private_segment_alignment` (u8, log2).
    pub const PRIVATE_SEGMENT_ALIGNMENT: u64 = 102;
    /// `wavefront_size` (u8, log2).
    pub const WAVEFRONT_SIZE: u64 = 103;
    /// `call_convention` (i32).
    pub const CALL_CONVENTION: u64 = 104;
    /// Reserved, 12 bytes.
    pub const RESERVED3: u64 = 108;
    /// `runtime_loader_kernel_symbol` (u64).
    pub const RUNTIME_LOADER_KERNEL_SYMBOL: u64 = 120;
    /// `control_directives`, 128 bytes.
    pub const CONTROL_DIRECTIVES: u64 = 128;
}

/// Bits of `code_properties` (`AMD_CODE_PROPERTY_*` in LLVM's
/// `AMDKernelCodeT.h`).
pub mod props {
    /// Bit 0: private segment buffer (4 user SGPRs).
    pub const ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER: u32 = 1 << 0;
    /// Bit 1: dispatch ptr (2 user SGPRs).
    pub const ENABLE_SGPR_DISPATCH_PTR: u32 = 1 << 1;
    /// Bit 2: queue ptr (2 user SGPRs).
    pub const ENABLE_SGPR_QUEUE_PTR: u32 = 1 << 2;
    /// Bit 3: kernarg segment ptr (2 user SGPRs).
    pub const ENABLE_SGPR_KERNARG_SEGMENT_PTR: u32 = 1 << 3;
    /// Bit 4: dispatch id (2 user SGPRs).
    pub const ENABLE_SGPR_DISPATCH_ID: u32 = 1 << 4;
    /// Bit 5: flat scratch init (2 user SGPRs).
    pub const ENABLE_SGPR_FLAT_SCRATCH_INIT: u32 = 1 << 5;
    /// Bit 6: private segment size (1 user SGPR).
    pub const ENABLE_SGPR_PRIVATE_SEGMENT_SIZE: u32 = 1 << 6;
    /// Bit 7: grid work-group count X (1 user SGPR).
    pub const ENABLE_SGPR_GRID_WORKGROUP_COUNT_X: u32 = 1 << 7;
    /// Bit 8: grid work-group count Y (1 user SGPR).
    pub const ENABLE_SGPR_GRID_WORKGROUP_COUNT_Y: u32 = 1 << 8;
    /// Bit 9: grid work-group count Z (1 user SGPR).
    pub const ENABLE_SGPR_GRID_WORKGROUP_COUNT_Z: u32 = 1 << 9;
    /// Bit 10: wave32 (GFX10+; not in the V2 documents).
    pub const ENABLE_WAVEFRONT_SIZE32: u32 = 1 << 10;
    /// Bits 15:11: reserved.
    pub const RESERVED1: u32 = 0x1f << 11;
    /// Bit 16: GDS ordered-append wave ID base counter.
    pub const ENABLE_ORDERED_APPEND_GDS: u32 = 1 << 16;
    /// Shift of the 2-bit private element size (bits 18:17).
    pub const PRIVATE_ELEMENT_SIZE_SHIFT: u32 = 17;
    /// Bits 18:17: private element size (0 = 2, 1 = 4, 2 = 8, 3 = 16 bytes).
    pub const PRIVATE_ELEMENT_SIZE: u32 = 3 << PRIVATE_ELEMENT_SIZE_SHIFT;
    /// Bit 19: 64-bit global addresses.
    pub const IS_PTR64: u32 = 1 << 19;
    /// Bit 20: dynamically sized call stack.
    pub const IS_DYNAMIC_CALLSTACK: u32 = 1 << 20;
    /// Bit 21: code built for the debugger.
    pub const IS_DEBUG_ENABLED: u32 = 1 << 21;
    /// Bit 22: conservative XNACK register allocation.
    pub const IS_XNACK_ENABLED: u32 = 1 << 22;
    /// Bits 31:23: reserved.
    pub const RESERVED2: u32 = 0x1ff << 23;
}

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

/// Byte ranges of the control directives block that are reserved.
const CONTROL_DIRECTIVES_RESERVED_RANGES: [(usize, usize); 2] = [(29, 32), (68, 128)];

/// Reads `N` bytes at `at`; an out-of-range byte reads as 0 (the callers
/// pass constant in-range offsets).
fn take<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = at
            .checked_add(i)
            .and_then(|j| b.get(j))
            .copied()
            .unwrap_or(0);
    }
    out
}

fn put(out: &mut [u8], at: usize, src: &[u8]) {
    for (i, s) in src.iter().enumerate() {
        if let Some(o) = at.checked_add(i).and_then(|j| out.get_mut(j)) {
            *o = *s;
        }
    }
}

/// Bits `shift .. shift + width` of `word` (width < 32).
fn bits(word: u32, shift: u32, width: u32) -> u32 {
    (word >> shift) & ((1u32 << width) - 1)
}

fn bit(word: u32, b: u32) -> bool {
    (word >> b) & 1 != 0
}

/// Names each maximal run of set bits ("bits 15:11, bit 23").
fn describe_set_bits(mask: u32) -> String {
    let mut parts = Vec::new();
    let mut m = mask;
    while m != 0 {
        let lo = m.trailing_zeros();
        let run = (m >> lo).trailing_ones();
        let run_mask = if run >= 32 {
            u32::MAX
        } else {
            ((1u32 << run) - 1) << lo
        };
        let hi = lo + run - 1;
        parts.push(if hi == lo {
            format!("bit {lo}")
        } else {
            format!("bits {hi}:{lo}")
        });
        m &= !run_mask;
    }
    parts.join(", ")
}

impl KernelCode {
    /// Decodes the first 256 bytes of `bytes` (more are ignored). Every bit
    /// pattern is an `amd_kernel_code_t`; [`check`] says which are valid.
    pub fn parse(bytes: &[u8]) -> Result<KernelCode, &'static str> {
        let b = bytes
            .get(..KERNEL_CODE_SIZE)
            .ok_or("amd_kernel_code_t is truncated: it needs 256 bytes")?;
        Ok(Self {
            amd_kernel_code_version_major: u32::from_le_bytes(take(b, 0)),
            amd_kernel_code_version_minor: u32::from_le_bytes(take(b, 4)),
            amd_machine_kind: u16::from_le_bytes(take(b, 8)),
            amd_machine_version_major: u16::from_le_bytes(take(b, 10)),
            amd_machine_version_minor: u16::from_le_bytes(take(b, 12)),
            amd_machine_version_stepping: u16::from_le_bytes(take(b, 14)),
            kernel_code_entry_byte_offset: i64::from_le_bytes(take(b, 16)),
            kernel_code_prefetch_byte_offset: i64::from_le_bytes(take(b, 24)),
            kernel_code_prefetch_byte_size: u64::from_le_bytes(take(b, 32)),
            max_scratch_backing_memory_byte_size: u64::from_le_bytes(take(b, 40)),
            compute_pgm_rsrc1: u32::from_le_bytes(take(b, 48)),
            compute_pgm_rsrc2: u32::from_le_bytes(take(b, 52)),
            code_properties: u32::from_le_bytes(take(b, 56)),
            workitem_private_segment_byte_size: u32::from_le_bytes(take(b, 60)),
            workgroup_group_segment_byte_size: u32::from_le_bytes(take(b, 64)),
            gds_segment_byte_size: u32::from_le_bytes(take(b, 68)),
            kernarg_segment_byte_size: u64::from_le_bytes(take(b, 72)),
            workgroup_fbarrier_count: u32::from_le_bytes(take(b, 80)),
            wavefront_sgpr_count: u16::from_le_bytes(take(b, 84)),
            workitem_vgpr_count: u16::from_le_bytes(take(b, 86)),
            reserved_vgpr_first: u16::from_le_bytes(take(b, 88)),
            reserved_vgpr_count: u16::from_le_bytes(take(b, 90)),
            reserved_sgpr_first: u16::from_le_bytes(take(b, 92)),
            reserved_sgpr_count: u16::from_le_bytes(take(b, 94)),
            debug_wavefront_private_segment_offset_sgpr: u16::from_le_bytes(take(b, 96)),
            debug_private_segment_buffer_sgpr: u16::from_le_bytes(take(b, 98)),
            kernarg_segment_alignment: take::<1>(b, 100)[0],
            group_segment_alignment: take::<1>(b, 101)[0],
            private_segment_alignment: take::<1>(b, 102)[0],
            wavefront_size: take::<1>(b, 103)[0],
            call_convention: i32::from_le_bytes(take(b, 104)),
            reserved3: take(b, 108),
            runtime_loader_kernel_symbol: u64::from_le_bytes(take(b, 120)),
            control_directives: take(b, 128),
        })
    }

    /// Encodes the structure; the inverse of [`Self::parse`].
    pub fn to_bytes(&self) -> [u8; KERNEL_CODE_SIZE] {
        let mut o = [0u8; KERNEL_CODE_SIZE];
        put(&mut o, 0, &self.amd_kernel_code_version_major.to_le_bytes());
        put(&mut o, 4, &self.amd_kernel_code_version_minor.to_le_bytes());
        put(&mut o, 8, &self.amd_machine_kind.to_le_bytes());
        put(&mut o, 10, &self.amd_machine_version_major.to_le_bytes());
        put(&mut o, 12, &self.amd_machine_version_minor.to_le_bytes());
        put(&mut o, 14, &self.amd_machine_version_stepping.to_le_bytes());
        put(
            &mut o,
            16,
            &self.kernel_code_entry_byte_offset.to_le_bytes(),
        );
        put(
            &mut o,
            24,
            &self.kernel_code_prefetch_byte_offset.to_le_bytes(),
        );
        put(
            &mut o,
            32,
            &self.kernel_code_prefetch_byte_size.to_le_bytes(),
        );
        put(
            &mut o,
            40,
            &self.max_scratch_backing_memory_byte_size.to_le_bytes(),
        );
        put(&mut o, 48, &self.compute_pgm_rsrc1.to_le_bytes());
        put(&mut o, 52, &self.compute_pgm_rsrc2.to_le_bytes());
        put(&mut o, 56, &self.code_properties.to_le_bytes());
        put(
            &mut o,
            60,
            &self.workitem_private_segment_byte_size.to_le_bytes(),
        );
        put(
            &mut o,
            64,
            &self.workgroup_group_segment_byte_size.to_le_bytes(),
        );
        put(&mut o, 68, &self.gds_segment_byte_size.to_le_bytes());
        put(&mut o, 72, &self.kernarg_segment_byte_size.to_le_bytes());
        put(&mut o, 80, &self.workgroup_fbarrier_count.to_le_bytes());
        put(&mut o, 84, &self.wavefront_sgpr_count.to_le_bytes());
        put(&mut o, 86, &self.workitem_vgpr_count.to_le_bytes());
        put(&mut o, 88, &self.reserved_vgpr_first.to_le_bytes());
        put(&mut o, 90, &self.reserved_vgpr_count.to_le_bytes());
        put(&mut o, 92, &self.reserved_sgpr_first.to_le_bytes());
        put(&mut o, 94, &self.reserved_sgpr_count.to_le_bytes());
        put(
            &mut o,
            96,
            &self
                .debug_wavefront_private_segment_offset_sgpr
                .to_le_bytes(),
        );
        put(
            &mut o,
            98,
            &self.debug_private_segment_buffer_sgpr.to_le_bytes(),
        );
        put(
            &mut o,
            100,
            &[
                self.kernarg_segment_alignment,
                self.group_segment_alignment,
                self.private_segment_alignment,
                self.wavefront_size,
            ],
        );
        put(&mut o, 104, &self.call_convention.to_le_bytes());
        put(&mut o, 108, &self.reserved3);
        put(
            &mut o,
            120,
            &self.runtime_loader_kernel_symbol.to_le_bytes(),
        );
        put(&mut o, 128, &self.control_directives);
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

    // ---- compute_pgm_rsrc1 -------------------------------------------------

    /// rsrc1 5:0 GRANULATED_WORKITEM_VGPR_COUNT: VGPR blocks minus 1.
    pub fn granulated_workitem_vgpr_count(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 0, 6)
    }
    /// rsrc1 9:6 GRANULATED_WAVEFRONT_SGPR_COUNT: SGPR blocks minus 1.
    pub fn granulated_wavefront_sgpr_count(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 6, 4)
    }
    /// rsrc1 11:10 PRIORITY.
    pub fn priority(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 10, 2)
    }
    /// rsrc1 19:12 as LLVM's `.amd_kernel_code_t` lists it (`float_mode`):
    /// the four round and denorm mode fields together.
    pub fn float_mode(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 12, 8)
    }
    /// rsrc1 13:12 float_mode_round_32.
    pub fn float_round_mode_32(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 12, 2)
    }
    /// rsrc1 15:14 float_mode_round_16_64.
    pub fn float_round_mode_16_64(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 14, 2)
    }
    /// rsrc1 17:16 float_mode_denorm_32.
    pub fn float_denorm_mode_32(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 16, 2)
    }
    /// rsrc1 19:18 float_mode_denorm_16_64.
    pub fn float_denorm_mode_16_64(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 18, 2)
    }
    /// rsrc1 20 PRIV (filled in by CP).
    pub fn priv_mode(&self) -> bool {
        bit(self.compute_pgm_rsrc1, 20)
    }
    /// rsrc1 21 ENABLE_DX10_CLAMP.
    pub fn enable_dx10_clamp(&self) -> bool {
        bit(self.compute_pgm_rsrc1, 21)
    }
    /// rsrc1 22 DEBUG_MODE (filled in by CP).
    pub fn debug_mode(&self) -> bool {
        bit(self.compute_pgm_rsrc1, 22)
    }
    /// rsrc1 23 ENABLE_IEEE_MODE.
    pub fn enable_ieee_mode(&self) -> bool {
        bit(self.compute_pgm_rsrc1, 23)
    }
    /// rsrc1 24 BULKY (filled in by CP).
    pub fn bulky(&self) -> bool {
        bit(self.compute_pgm_rsrc1, 24)
    }
    /// rsrc1 25 CDBG_USER (filled in by CP).
    pub fn cdbg_user(&self) -> bool {
        bit(self.compute_pgm_rsrc1, 25)
    }
    /// rsrc1 26 FP16_OVFL (GFX9+; reserved before).
    pub fn fp16_ovfl(&self) -> bool {
        bit(self.compute_pgm_rsrc1, 26)
    }
    /// rsrc1 29 WGP_MODE (`enable_wgp_mode`, GFX10+).
    pub fn wgp_mode(&self) -> bool {
        bit(self.compute_pgm_rsrc1, 29)
    }
    /// rsrc1 30 MEM_ORDERED (`enable_mem_ordered`, GFX10+).
    pub fn mem_ordered(&self) -> bool {
        bit(self.compute_pgm_rsrc1, 30)
    }
    /// rsrc1 31 FWD_PROGRESS (`enable_fwd_progress`, GFX10+).
    pub fn fwd_progress(&self) -> bool {
        bit(self.compute_pgm_rsrc1, 31)
    }

    // ---- compute_pgm_rsrc2 -------------------------------------------------

    /// rsrc2 0 `enable_sgpr_private_segment_wave_byte_offset`: the wave
    /// offset system SGPR, and SCRATCH_EN.
    pub fn enable_sgpr_private_segment_wave_byte_offset(&self) -> bool {
        bit(self.compute_pgm_rsrc2, 0)
    }
    /// rsrc2 5:1 USER_SGPR_COUNT.
    pub fn user_sgpr_count(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 1, 5)
    }
    /// rsrc2 6 ENABLE_TRAP_HANDLER.
    pub fn enable_trap_handler(&self) -> bool {
        bit(self.compute_pgm_rsrc2, 6)
    }
    /// rsrc2 7 ENABLE_SGPR_WORKGROUP_ID_X.
    pub fn enable_sgpr_workgroup_id_x(&self) -> bool {
        bit(self.compute_pgm_rsrc2, 7)
    }
    /// rsrc2 8 ENABLE_SGPR_WORKGROUP_ID_Y.
    pub fn enable_sgpr_workgroup_id_y(&self) -> bool {
        bit(self.compute_pgm_rsrc2, 8)
    }
    /// rsrc2 9 ENABLE_SGPR_WORKGROUP_ID_Z.
    pub fn enable_sgpr_workgroup_id_z(&self) -> bool {
        bit(self.compute_pgm_rsrc2, 9)
    }
    /// rsrc2 10 ENABLE_SGPR_WORKGROUP_INFO.
    pub fn enable_sgpr_workgroup_info(&self) -> bool {
        bit(self.compute_pgm_rsrc2, 10)
    }
    /// rsrc2 12:11 ENABLE_VGPR_WORKITEM_ID: 0 X, 1 X Y, 2 X Y Z, 3 undefined.
    pub fn enable_vgpr_workitem_id(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 11, 2)
    }
    /// rsrc2 14:13 as LLVM lists them (`enable_exception_msb`): address
    /// watch (bit 13) and memory violation (bit 14).
    pub fn enable_exception_msb(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 13, 2)
    }
    /// rsrc2 13 ENABLE_EXCEPTION_ADDRESS_WATCH.
    pub fn enable_exception_address_watch(&self) -> bool {
        bit(self.compute_pgm_rsrc2, 13)
    }
    /// rsrc2 14 ENABLE_EXCEPTION_MEMORY_VIOLATION.
    pub fn enable_exception_memory_violation(&self) -> bool {
        bit(self.compute_pgm_rsrc2, 14)
    }
    /// rsrc2 23:15 GRANULATED_LDS_SIZE (0: CP uses the dispatch packet).
    pub fn granulated_lds_size(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 15, 9)
    }
    /// rsrc2 30:24 as LLVM lists them (`enable_exception`): the seven IEEE
    /// and integer exception enables.
    pub fn enable_exception(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 24, 7)
    }
    /// rsrc2 24 ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION.
    pub fn enable_exception_ieee_754_fp_invalid_operation(&self) -> bool {
        bit(self.compute_pgm_rsrc2, 24)
    }
    /// rsrc2 25 ENABLE_EXCEPTION_FP_DENORMAL_SOURCE.
    pub fn enable_exception_fp_denormal_source(&self) -> bool {
        bit(self.compute_pgm_rsrc2, 25)
    }
    /// rsrc2 26 ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO.
    pub fn enable_exception_ieee_754_fp_division_by_zero(&self) -> bool {
        bit(self.compute_pgm_rsrc2, 26)
    }
    /// rsrc2 27 ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW.
    pub fn enable_exception_ieee_754_fp_overflow(&self) -> bool {
        bit(self.compute_pgm_rsrc2, 27)
    }
    /// rsrc2 28 ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW.
    pub fn enable_exception_ieee_754_fp_underflow(&self) -> bool {
        bit(self.compute_pgm_rsrc2, 28)
    }
    /// rsrc2 29 ENABLE_EXCEPTION_IEEE_754_FP_INEXACT.
    pub fn enable_exception_ieee_754_fp_inexact(&self) -> bool {
        bit(self.compute_pgm_rsrc2, 29)
    }
    /// rsrc2 30 ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO.
    pub fn enable_exception_int_divide_by_zero(&self) -> bool {
        bit(self.compute_pgm_rsrc2, 30)
    }

    // ---- code_properties ---------------------------------------------------

    fn prop(&self, mask: u32) -> bool {
        self.code_properties & mask != 0
    }
    /// ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER (4 user SGPRs).
    pub fn enable_sgpr_private_segment_buffer(&self) -> bool {
        self.prop(props::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER)
    }
    /// ENABLE_SGPR_DISPATCH_PTR (2 user SGPRs).
    pub fn enable_sgpr_dispatch_ptr(&self) -> bool {
        self.prop(props::ENABLE_SGPR_DISPATCH_PTR)
    }
    /// ENABLE_SGPR_QUEUE_PTR (2 user SGPRs).
    pub fn enable_sgpr_queue_ptr(&self) -> bool {
        self.prop(props::ENABLE_SGPR_QUEUE_PTR)
    }
    /// ENABLE_SGPR_KERNARG_SEGMENT_PTR (2 user SGPRs).
    pub fn enable_sgpr_kernarg_segment_ptr(&self) -> bool {
        self.prop(props::ENABLE_SGPR_KERNARG_SEGMENT_PTR)
    }
    /// ENABLE_SGPR_DISPATCH_ID (2 user SGPRs).
    pub fn enable_sgpr_dispatch_id(&self) -> bool {
        self.prop(props::ENABLE_SGPR_DISPATCH_ID)
    }
    /// ENABLE_SGPR_FLAT_SCRATCH_INIT (2 user SGPRs).
    pub fn enable_sgpr_flat_scratch_init(&self) -> bool {
        self.prop(props::ENABLE_SGPR_FLAT_SCRATCH_INIT)
    }
    /// ENABLE_SGPR_PRIVATE_SEGMENT_SIZE (1 user SGPR).
    pub fn enable_sgpr_private_segment_size(&self) -> bool {
        self.prop(props::ENABLE_SGPR_PRIVATE_SEGMENT_SIZE)
    }
    /// ENABLE_SGPR_GRID_WORKGROUP_COUNT_X (1 user SGPR).
    pub fn enable_sgpr_grid_workgroup_count_x(&self) -> bool {
        self.prop(props::ENABLE_SGPR_GRID_WORKGROUP_COUNT_X)
    }
    /// ENABLE_SGPR_GRID_WORKGROUP_COUNT_Y (1 user SGPR, if it fits).
    pub fn enable_sgpr_grid_workgroup_count_y(&self) -> bool {
        self.prop(props::ENABLE_SGPR_GRID_WORKGROUP_COUNT_Y)
    }
    /// ENABLE_SGPR_GRID_WORKGROUP_COUNT_Z (1 user SGPR, if it fits).
    pub fn enable_sgpr_grid_workgroup_count_z(&self) -> bool {
        self.prop(props::ENABLE_SGPR_GRID_WORKGROUP_COUNT_Z)
    }
    /// ENABLE_WAVEFRONT_SIZE32 (bit 10, GFX10+).
    pub fn enable_wavefront_size32(&self) -> bool {
        self.prop(props::ENABLE_WAVEFRONT_SIZE32)
    }
    /// ENABLE_ORDERED_APPEND_GDS.
    pub fn enable_ordered_append_gds(&self) -> bool {
        self.prop(props::ENABLE_ORDERED_APPEND_GDS)
    }
    /// The 2-bit PRIVATE_ELEMENT_SIZE code (0 = 2, 1 = 4, 2 = 8, 3 = 16
    /// bytes).
    pub fn private_element_size(&self) -> u32 {
        bits(self.code_properties, props::PRIVATE_ELEMENT_SIZE_SHIFT, 2)
    }
    /// The private element size in bytes (2, 4, 8 or 16).
    pub fn private_element_size_bytes(&self) -> u32 {
        2 << self.private_element_size()
    }
    /// IS_PTR64.
    pub fn is_ptr64(&self) -> bool {
        self.prop(props::IS_PTR64)
    }
    /// IS_DYNAMIC_CALLSTACK.
    pub fn is_dynamic_callstack(&self) -> bool {
        self.prop(props::IS_DYNAMIC_CALLSTACK)
    }
    /// IS_DEBUG_ENABLED (`is_debug_supported` in the documents).
    pub fn is_debug_enabled(&self) -> bool {
        self.prop(props::IS_DEBUG_ENABLED)
    }
    /// IS_XNACK_ENABLED.
    pub fn is_xnack_enabled(&self) -> bool {
        self.prop(props::IS_XNACK_ENABLED)
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
        let b = &self.control_directives[..];
        ControlDirectives {
            enabled_control_directives: u64::from_le_bytes(take(b, 0)),
            enable_break_exceptions: u16::from_le_bytes(take(b, 8)),
            enable_detect_exceptions: u16::from_le_bytes(take(b, 10)),
            max_dynamic_group_size: u32::from_le_bytes(take(b, 12)),
            max_flat_grid_size: u64::from_le_bytes(take(b, 16)),
            max_flat_workgroup_size: u32::from_le_bytes(take(b, 24)),
            required_dim: take::<1>(b, 28)[0],
            required_grid_size: [
                u64::from_le_bytes(take(b, 32)),
                u64::from_le_bytes(take(b, 40)),
                u64::from_le_bytes(take(b, 48)),
            ],
            required_workgroup_size: [
                u32::from_le_bytes(take(b, 56)),
                u32::from_le_bytes(take(b, 60)),
                u32::from_le_bytes(take(b, 64)),
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

    /// Every field, named as LLVM's `.amd_kernel_code_t` and the documents
    /// name it (`compute_pgm_rsrc1.priv`, `code_properties.is_ptr64`), with
    /// its raw value and a short meaning for `target`. Signed fields are
    /// given as their two's-complement bits.
    pub fn fields(&self, target: &Target) -> Vec<Field> {
        let gen = target.generation;
        let mut f = Vec::with_capacity(96);
        let mut push = |name: &'static str, value: u64, meaning: String| {
            f.push(Field {
                name,
                value,
                meaning,
            })
        };
        let yes_no = |b: bool, on: &str, off: &str| if b { on.to_owned() } else { off.to_owned() };
        let wave32 = self.wave32(target);

        push(
            "amd_kernel_code_version_major",
            self.amd_kernel_code_version_major.into(),
            "must be 1".to_owned(),
        );
        push(
            "amd_kernel_code_version_minor",
            self.amd_kernel_code_version_minor.into(),
            "minor version (any)".to_owned(),
        );
        push(
            "amd_machine_kind",
            self.amd_machine_kind.into(),
            match self.amd_machine_kind {
                0 => "undefined",
                1 => "AMDGPU",
                _ => "unknown machine kind",
            }
            .to_owned(),
        );
        let [ma, mi, st] = target.isa_version;
        let machine_meaning = |v: u16, want: u8, what: &str| {
            if v == u16::from(want) {
                format!("ISA {what} of {target}")
            } else {
                format!("{target} has ISA {what} {want}")
            }
        };
        push(
            "amd_machine_version_major",
            self.amd_machine_version_major.into(),
            machine_meaning(self.amd_machine_version_major, ma, "major"),
        );
        push(
            "amd_machine_version_minor",
            self.amd_machine_version_minor.into(),
            machine_meaning(self.amd_machine_version_minor, mi, "minor"),
        );
        push(
            "amd_machine_version_stepping",
            self.amd_machine_version_stepping.into(),
            machine_meaning(self.amd_machine_version_stepping, st, "stepping"),
        );
        push(
            "kernel_code_entry_byte_offset",
            self.kernel_code_entry_byte_offset as u64,
            format!(
                "entry at amd_kernel_code_t {:+}",
                self.kernel_code_entry_byte_offset
            ),
        );
        push(
            "kernel_code_prefetch_byte_offset",
            self.kernel_code_prefetch_byte_offset as u64,
            format!(
                "prefetch from amd_kernel_code_t {:+}",
                self.kernel_code_prefetch_byte_offset
            ),
        );
        push(
            "kernel_code_prefetch_byte_size",
            self.kernel_code_prefetch_byte_size,
            if self.kernel_code_prefetch_byte_size == 0 {
                "no prefetch information".to_owned()
            } else {
                format!("prefetch {} bytes", self.kernel_code_prefetch_byte_size)
            },
        );
        push(
            "max_scratch_backing_memory_byte_size",
            self.max_scratch_backing_memory_byte_size,
            "deprecated; 0 from LLVM".to_owned(),
        );

        // rsrc1
        push(
            "compute_pgm_rsrc1.granulated_workitem_vgpr_count",
            self.granulated_workitem_vgpr_count().into(),
            format!(
                "{} VGPRs allocated ({})",
                self.allocated_vgprs(target),
                if wave32 { "wave32" } else { "wave64" }
            ),
        );
        push(
            "compute_pgm_rsrc1.granulated_wavefront_sgpr_count",
            self.granulated_wavefront_sgpr_count().into(),
            match self.allocated_sgprs(target) {
                Some(n) => format!("{n} SGPRs allocated"),
                None => "ignored (a fixed SGPR block is allocated)".to_owned(),
            },
        );
        push(
            "compute_pgm_rsrc1.priority",
            self.priority().into(),
            "should be 0".to_owned(),
        );
        push(
            "compute_pgm_rsrc1.float_mode_round_32",
            self.float_round_mode_32().into(),
            round_mode_name(self.float_round_mode_32()).to_owned(),
        );
        push(
            "compute_pgm_rsrc1.float_mode_round_16_64",
            self.float_round_mode_16_64().into(),
            round_mode_name(self.float_round_mode_16_64()).to_owned(),
        );
        push(
            "compute_pgm_rsrc1.float_mode_denorm_32",
            self.float_denorm_mode_32().into(),
            denorm_mode_name(self.float_denorm_mode_32()).to_owned(),
        );
        push(
            "compute_pgm_rsrc1.float_mode_denorm_16_64",
            self.float_denorm_mode_16_64().into(),
            denorm_mode_name(self.float_denorm_mode_16_64()).to_owned(),
        );
        push(
            "compute_pgm_rsrc1.priv",
            self.priv_mode().into(),
            "must be 0 (set by CP)".to_owned(),
        );
        push(
            "compute_pgm_rsrc1.enable_dx10_clamp",
            self.enable_dx10_clamp().into(),
            yes_no(
                self.enable_dx10_clamp(),
                "DX10 clamp: NaN clamped to 0",
                "NaN passed through",
            ),
        );
        push(
            "compute_pgm_rsrc1.debug_mode",
            self.debug_mode().into(),
            "must be 0 (set by CP)".to_owned(),
        );
        push(
            "compute_pgm_rsrc1.enable_ieee_mode",
            self.enable_ieee_mode().into(),
            yes_no(self.enable_ieee_mode(), "IEEE mode", "IEEE mode off"),
        );
        push(
            "compute_pgm_rsrc1.bulky",
            self.bulky().into(),
            "must be 0 (set by CP)".to_owned(),
        );
        push(
            "compute_pgm_rsrc1.cdbg_user",
            self.cdbg_user().into(),
            "must be 0 (set by CP)".to_owned(),
        );
        if gen >= Generation::Gfx9 {
            push(
                "compute_pgm_rsrc1.fp16_ovfl",
                self.fp16_ovfl().into(),
                yes_no(
                    self.fp16_ovfl(),
                    "fp16 overflow clamps to +/-MAX_FP16",
                    "fp16 overflow gives +/-INF",
                ),
            );
        }
        if gen >= Generation::Gfx10 {
            push(
                "compute_pgm_rsrc1.enable_wgp_mode",
                self.wgp_mode().into(),
                yes_no(self.wgp_mode(), "WGP mode", "CU mode"),
            );
            push(
                "compute_pgm_rsrc1.enable_mem_ordered",
                self.mem_ordered().into(),
                yes_no(
                    self.mem_ordered(),
                    "vmcnt reports loads and samples in order",
                    "vmcnt may report samples out of order",
                ),
            );
            push(
                "compute_pgm_rsrc1.enable_fwd_progress",
                self.fwd_progress().into(),
                yes_no(
                    self.fwd_progress(),
                    "forward-progress wave scheduling",
                    "oldest-first wave scheduling",
                ),
            );
        }

        // rsrc2
        push(
            "compute_pgm_rsrc2.enable_sgpr_private_segment_wave_byte_offset",
            self.enable_sgpr_private_segment_wave_byte_offset().into(),
            yes_no(
                self.enable_sgpr_private_segment_wave_byte_offset(),
                "scratch enabled; wave offset system SGPR set up",
                "no scratch",
            ),
        );
        push(
            "compute_pgm_rsrc2.user_sgpr_count",
            self.user_sgpr_count().into(),
            format!("{} user SGPRs", self.user_sgpr_count()),
        );
        push(
            "compute_pgm_rsrc2.enable_trap_handler",
            self.enable_trap_handler().into(),
            "should be 0 (set by CP)".to_owned(),
        );
        for (name, on) in [
            (
                "compute_pgm_rsrc2.enable_sgpr_workgroup_id_x",
                self.enable_sgpr_workgroup_id_x(),
            ),
            (
                "compute_pgm_rsrc2.enable_sgpr_workgroup_id_y",
                self.enable_sgpr_workgroup_id_y(),
            ),
            (
                "compute_pgm_rsrc2.enable_sgpr_workgroup_id_z",
                self.enable_sgpr_workgroup_id_z(),
            ),
            (
                "compute_pgm_rsrc2.enable_sgpr_workgroup_info",
                self.enable_sgpr_workgroup_info(),
            ),
        ] {
            push(
                name,
                on.into(),
                yes_no(on, "system SGPR set up", "not set up"),
            );
        }
        push(
            "compute_pgm_rsrc2.enable_vgpr_workitem_id",
            self.enable_vgpr_workitem_id().into(),
            match self.enable_vgpr_workitem_id() {
                0 => "work-item ID X",
                1 => "work-item IDs X, Y",
                2 => "work-item IDs X, Y, Z",
                _ => "undefined",
            }
            .to_owned(),
        );
        for (name, on, what) in [
            (
                "compute_pgm_rsrc2.enable_exception_address_watch",
                self.enable_exception_address_watch(),
                "address watch",
            ),
            (
                "compute_pgm_rsrc2.enable_exception_memory_violation",
                self.enable_exception_memory_violation(),
                "memory violation",
            ),
        ] {
            push(
                name,
                on.into(),
                if on {
                    format!("exception on {what}")
                } else {
                    format!("no exception on {what}")
                },
            );
        }
        push(
            "compute_pgm_rsrc2.granulated_lds_size",
            self.granulated_lds_size().into(),
            "must be 0 (CP uses the dispatch packet)".to_owned(),
        );
        for (name, on, what) in [
            (
                "compute_pgm_rsrc2.enable_exception_ieee_754_fp_invalid_operation",
                self.enable_exception_ieee_754_fp_invalid_operation(),
                "invalid operation",
            ),
            (
                "compute_pgm_rsrc2.enable_exception_fp_denormal_source",
                self.enable_exception_fp_denormal_source(),
                "denormal source",
            ),
            (
                "compute_pgm_rsrc2.enable_exception_ieee_754_fp_division_by_zero",
                self.enable_exception_ieee_754_fp_division_by_zero(),
                "FP division by zero",
            ),
            (
                "compute_pgm_rsrc2.enable_exception_ieee_754_fp_overflow",
                self.enable_exception_ieee_754_fp_overflow(),
                "FP overflow",
            ),
            (
                "compute_pgm_rsrc2.enable_exception_ieee_754_fp_underflow",
                self.enable_exception_ieee_754_fp_underflow(),
                "FP underflow",
            ),
            (
                "compute_pgm_rsrc2.enable_exception_ieee_754_fp_inexact",
                self.enable_exception_ieee_754_fp_inexact(),
                "FP inexact",
            ),
            (
                "compute_pgm_rsrc2.enable_exception_int_divide_by_zero",
                self.enable_exception_int_divide_by_zero(),
                "integer division by zero",
            ),
        ] {
            push(
                name,
                on.into(),
                if on {
                    format!("trap on {what}")
                } else {
                    format!("no trap on {what}")
                },
            );
        }

        // code_properties
        for (name, on, n) in [
            (
                "code_properties.enable_sgpr_private_segment_buffer",
                self.enable_sgpr_private_segment_buffer(),
                4,
            ),
            (
                "code_properties.enable_sgpr_dispatch_ptr",
                self.enable_sgpr_dispatch_ptr(),
                2,
            ),
            (
                "code_properties.enable_sgpr_queue_ptr",
                self.enable_sgpr_queue_ptr(),
                2,
            ),
            (
                "code_properties.enable_sgpr_kernarg_segment_ptr",
                self.enable_sgpr_kernarg_segment_ptr(),
                2,
            ),
            (
                "code_properties.enable_sgpr_dispatch_id",
                self.enable_sgpr_dispatch_id(),
                2,
            ),
            (
                "code_properties.enable_sgpr_flat_scratch_init",
                self.enable_sgpr_flat_scratch_init(),
                2,
            ),
            (
                "code_properties.enable_sgpr_private_segment_size",
                self.enable_sgpr_private_segment_size(),
                1,
            ),
            (
                "code_properties.enable_sgpr_grid_workgroup_count_x",
                self.enable_sgpr_grid_workgroup_count_x(),
                1,
            ),
            (
                "code_properties.enable_sgpr_grid_workgroup_count_y",
                self.enable_sgpr_grid_workgroup_count_y(),
                1,
            ),
            (
                "code_properties.enable_sgpr_grid_workgroup_count_z",
                self.enable_sgpr_grid_workgroup_count_z(),
                1,
            ),
        ] {
            push(
                name,
                on.into(),
                if on {
                    format!("{n} user SGPR{}", if n == 1 { "" } else { "s" })
                } else {
                    "not set up".to_owned()
                },
            );
        }
        if gen >= Generation::Gfx10 {
            push(
                "code_properties.enable_wavefront_size32",
                self.enable_wavefront_size32().into(),
                yes_no(self.enable_wavefront_size32(), "wave32", "wave64"),
            );
        }
        push(
            "code_properties.enable_ordered_append_gds",
            self.enable_ordered_append_gds().into(),
            yes_no(
                self.enable_ordered_append_gds(),
                "GDS ordered-append wave ID counter enabled",
                "no GDS ordered append",
            ),
        );
        push(
            "code_properties.private_element_size",
            self.private_element_size().into(),
            format!(
                "{}-byte scratch swizzle element",
                self.private_element_size_bytes()
            ),
        );
        push(
            "code_properties.is_ptr64",
            self.is_ptr64().into(),
            yes_no(
                self.is_ptr64(),
                "64-bit global addresses",
                "32-bit global addresses",
            ),
        );
        push(
            "code_properties.is_dynamic_callstack",
            self.is_dynamic_callstack().into(),
            yes_no(
                self.is_dynamic_callstack(),
                "call stack size not known at compile time",
                "fixed private segment size",
            ),
        );
        push(
            "code_properties.is_debug_enabled",
            self.is_debug_enabled().into(),
            yes_no(
                self.is_debug_enabled(),
                "built for the debugger",
                "not built for the debugger",
            ),
        );
        push(
            "code_properties.is_xnack_enabled",
            self.is_xnack_enabled().into(),
            yes_no(
                self.is_xnack_enabled(),
                "conservative XNACK register allocation",
                "no XNACK replay support",
            ),
        );

        // Segments and registers.
        push(
            "workitem_private_segment_byte_size",
            self.workitem_private_segment_byte_size.into(),
            format!(
                "{} bytes of scratch per work-item",
                self.workitem_private_segment_byte_size
            ),
        );
        push(
            "workgroup_group_segment_byte_size",
            self.workgroup_group_segment_byte_size.into(),
            format!(
                "{} bytes of LDS per work-group",
                self.workgroup_group_segment_byte_size
            ),
        );
        push(
            "gds_segment_byte_size",
            self.gds_segment_byte_size.into(),
            format!("{} bytes of GDS", self.gds_segment_byte_size),
        );
        push(
            "kernarg_segment_byte_size",
            self.kernarg_segment_byte_size,
            format!(
                "{} bytes of kernel arguments",
                self.kernarg_segment_byte_size
            ),
        );
        push(
            "workgroup_fbarrier_count",
            self.workgroup_fbarrier_count.into(),
            format!("{} fbarriers", self.workgroup_fbarrier_count),
        );
        push(
            "wavefront_sgpr_count",
            self.wavefront_sgpr_count.into(),
            format!("{} SGPRs used", self.wavefront_sgpr_count),
        );
        push(
            "workitem_vgpr_count",
            self.workitem_vgpr_count.into(),
            format!("{} VGPRs used", self.workitem_vgpr_count),
        );
        push(
            "reserved_vgpr_first",
            self.reserved_vgpr_first.into(),
            reserved_regs("v", self.reserved_vgpr_first, self.reserved_vgpr_count),
        );
        push(
            "reserved_vgpr_count",
            self.reserved_vgpr_count.into(),
            format!("{} VGPRs reserved", self.reserved_vgpr_count),
        );
        push(
            "reserved_sgpr_first",
            self.reserved_sgpr_first.into(),
            reserved_regs("s", self.reserved_sgpr_first, self.reserved_sgpr_count),
        );
        push(
            "reserved_sgpr_count",
            self.reserved_sgpr_count.into(),
            format!("{} SGPRs reserved", self.reserved_sgpr_count),
        );
        push(
            "debug_wavefront_private_segment_offset_sgpr",
            self.debug_wavefront_private_segment_offset_sgpr.into(),
            debug_sgpr(self.debug_wavefront_private_segment_offset_sgpr),
        );
        push(
            "debug_private_segment_buffer_sgpr",
            self.debug_private_segment_buffer_sgpr.into(),
            debug_sgpr(self.debug_private_segment_buffer_sgpr),
        );
        for (name, v, bytes) in [
            (
                "kernarg_segment_alignment",
                self.kernarg_segment_alignment,
                self.kernarg_segment_alignment_bytes(),
            ),
            (
                "group_segment_alignment",
                self.group_segment_alignment,
                self.group_segment_alignment_bytes(),
            ),
            (
                "private_segment_alignment",
                self.private_segment_alignment,
                self.private_segment_alignment_bytes(),
            ),
        ] {
            push(
                name,
                v.into(),
                match bytes {
                    Some(b) => format!("{b}-byte alignment"),
                    None => "alignment beyond 2^63".to_owned(),
                },
            );
        }
        push(
            "wavefront_size",
            self.wavefront_size.into(),
            match self.wavefront_lanes() {
                Some(l) => format!("{l} lanes"),
                None => "beyond 2^63 lanes".to_owned(),
            },
        );
        push(
            "call_convention",
            self.call_convention as u32 as u64,
            if self.call_convention == -1 {
                "no indirect functions".to_owned()
            } else {
                format!("call convention {}", self.call_convention)
            },
        );
        push(
            "runtime_loader_kernel_symbol",
            self.runtime_loader_kernel_symbol,
            "must be 0 (set by the loader)".to_owned(),
        );
        let cd = self.decoded_control_directives();
        push(
            "control_directives.enabled_control_directives",
            cd.enabled_control_directives,
            if cd.enabled_control_directives == 0 {
                "no control directives".to_owned()
            } else {
                format!("directive mask {:#x}", cd.enabled_control_directives)
            },
        );
        if cd.enabled_control_directives != 0 {
            push(
                "control_directives.enable_break_exceptions",
                cd.enable_break_exceptions.into(),
                format!("exception mask {:#x}", cd.enable_break_exceptions),
            );
            push(
                "control_directives.enable_detect_exceptions",
                cd.enable_detect_exceptions.into(),
                format!("exception mask {:#x}", cd.enable_detect_exceptions),
            );
            push(
                "control_directives.max_dynamic_group_size",
                cd.max_dynamic_group_size.into(),
                format!("{} bytes", cd.max_dynamic_group_size),
            );
            push(
                "control_directives.max_flat_grid_size",
                cd.max_flat_grid_size,
                format!("{} work-items", cd.max_flat_grid_size),
            );
            push(
                "control_directives.max_flat_workgroup_size",
                cd.max_flat_workgroup_size.into(),
                format!("{} work-items", cd.max_flat_workgroup_size),
            );
            push(
                "control_directives.required_dim",
                cd.required_dim.into(),
                format!("{} dimensions", cd.required_dim),
            );
            let [gx, gy, gz] = cd.required_grid_size;
            for (name, v) in [
                ("control_directives.required_grid_size_x", gx),
                ("control_directives.required_grid_size_y", gy),
                ("control_directives.required_grid_size_z", gz),
            ] {
                push(name, v, format!("{v} work-items"));
            }
            let [wx, wy, wz] = cd.required_workgroup_size;
            for (name, v) in [
                ("control_directives.required_workgroup_size_x", wx),
                ("control_directives.required_workgroup_size_y", wy),
                ("control_directives.required_workgroup_size_z", wz),
            ] {
                push(name, v.into(), format!("{v} work-items"));
            }
        }
        f
    }
}

fn round_mode_name(v: u32) -> &'static str {
    match v {
        0 => "round to nearest even",
        1 => "round toward +infinity",
        2 => "round toward -infinity",
        _ => "round toward zero",
    }
}

fn denorm_mode_name(v: u32) -> &'static str {
    match v {
        0 => "flush source and destination denormals",
        1 => "flush output denormals",
        2 => "flush source denormals",
        _ => "no denormal flushing",
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

fn debug_sgpr(v: u16) -> String {
    match v {
        0 => "none (debugging off)".to_owned(),
        u16::MAX => "not used or not known".to_owned(),
        n => format!("s{n}"),
    }
}

/// Reserved compute_pgm_rsrc1 bits on `gen`: 28:27 always, 26 (FP16_OVFL)
/// before GFX9, 31:29 before GFX10.
fn rsrc1_reserved_mask(gen: Generation) -> u32 {
    let mut m = 0x1800_0000u32;
    if gen < Generation::Gfx9 {
        m |= 1 << 26;
    }
    if gen < Generation::Gfx10 {
        m |= 0xE000_0000;
    }
    m
}

/// Checks every rule that needs only the `amd_kernel_code_t`, the
/// processor it is for and the xnack setting of `e_flags`
/// ([`FeatureSetting::Any`] skips the xnack comparison). `offset` is the
/// structure's file offset; violations point at the offending field. The
/// initial-state rules are in [`crate::sgpr::v2::check`], the placement
/// rules in [`check_placement`].
pub fn check(
    code: &KernelCode,
    target: &Target,
    xnack: FeatureSetting,
    offset: u64,
    sink: &mut Sink,
) {
    let gen = target.generation;
    let at = |field: u64| offset.saturating_add(field);

    if code.amd_kernel_code_version_major != VERSION_MAJOR_VALUE {
        sink.report_at(
            &VERSION_MAJOR,
            at(offsets::VERSION_MAJOR),
            format!(
                "amd_kernel_code_version_major is {}, expected {VERSION_MAJOR_VALUE}",
                code.amd_kernel_code_version_major
            ),
        );
    }
    if code.amd_machine_kind != MACHINE_KIND_AMDGPU {
        sink.report_at(
            &MACHINE_KIND,
            at(offsets::MACHINE_KIND),
            format!(
                "amd_machine_kind is {}, expected {MACHINE_KIND_AMDGPU} (AMDGPU)",
                code.amd_machine_kind
            ),
        );
    }
    let got = [
        code.amd_machine_version_major,
        code.amd_machine_version_minor,
        code.amd_machine_version_stepping,
    ];
    let want = target.isa_version.map(u16::from);
    if got != want {
        let field = if got[0] != want[0] {
            offsets::MACHINE_VERSION_MAJOR
        } else if got[1] != want[1] {
            offsets::MACHINE_VERSION_MINOR
        } else {
            offsets::MACHINE_VERSION_STEPPING
        };
        sink.report_at(
            &MACHINE_VERSION,
            at(field),
            format!(
                "amd_machine_version is {}.{}.{}, but {target} has ISA version {}.{}.{}",
                got[0], got[1], got[2], want[0], want[1], want[2]
            ),
        );
    }
    let entry = code.kernel_code_entry_byte_offset;
    if (0..KERNEL_CODE_SIZE as i64).contains(&entry) {
        sink.report_at(
            &ENTRY_OFFSET_INSIDE,
            at(offsets::KERNEL_CODE_ENTRY_BYTE_OFFSET),
            format!("kernel_code_entry_byte_offset is {entry}: the entry would lie inside the 256-byte amd_kernel_code_t"),
        );
    }
    let uses_scratch = code.workitem_private_segment_byte_size > 0 || code.is_dynamic_callstack();
    if code.max_scratch_backing_memory_byte_size != 0 && !uses_scratch {
        sink.report_at(
            &MAX_SCRATCH_BACKING_MEMORY,
            at(offsets::MAX_SCRATCH_BACKING_MEMORY_BYTE_SIZE),
            format!(
                "max_scratch_backing_memory_byte_size is {}, but the kernel uses no scratch",
                code.max_scratch_backing_memory_byte_size
            ),
        );
    }

    check_rsrc1(code, target, at(offsets::COMPUTE_PGM_RSRC1), sink);
    check_rsrc2(code, target, at(offsets::COMPUTE_PGM_RSRC2), sink);

    // code_properties
    let props_at = at(offsets::CODE_PROPERTIES);
    let reserved = code.properties_reserved();
    if reserved != 0 {
        sink.report_at(
            &PROPERTIES_RESERVED,
            props_at,
            format!(
                "code_properties {:#010x} has reserved {} set",
                code.code_properties,
                describe_set_bits(reserved)
            ),
        );
    }
    if code.enable_wavefront_size32() && (gen < Generation::Gfx10 || !target.wave32) {
        sink.report_at(
            &PROPERTIES_WAVEFRONT_SIZE32,
            props_at,
            format!("ENABLE_WAVEFRONT_SIZE32 is set, but {target} has no wave32 mode"),
        );
    }
    if code.private_element_size() != 1 {
        sink.report_at(
            &PRIVATE_ELEMENT_SIZE,
            props_at,
            format!(
                "private_element_size is {} ({} bytes); the runtime configures 4-byte elements",
                code.private_element_size(),
                code.private_element_size_bytes()
            ),
        );
    }
    if !code.is_ptr64() {
        sink.report_at(
            &IS_PTR64,
            props_at,
            "is_ptr64 is 0, but amdgcn HSA code uses 64-bit global addresses",
        );
    }
    let x = code.is_xnack_enabled();
    let xnack_problem = if !target.xnack || xnack == FeatureSetting::Unsupported {
        x.then(|| format!("is_xnack_enabled is 1, but {target} has no XNACK"))
    } else {
        match xnack {
            FeatureSetting::On if !x => {
                Some("is_xnack_enabled is 0, but e_flags says xnack is on".to_owned())
            }
            FeatureSetting::Off if x => {
                Some("is_xnack_enabled is 1, but e_flags says xnack is off".to_owned())
            }
            _ => None,
        }
    };
    if let Some(msg) = xnack_problem {
        sink.report_at(&XNACK, props_at, msg);
    }
    if uses_scratch && !code.enable_sgpr_private_segment_wave_byte_offset() {
        sink.report_at(
            &SCRATCH_EN,
            at(offsets::COMPUTE_PGM_RSRC2),
            format!(
                "the kernel uses scratch (workitem_private_segment_byte_size {}, is_dynamic_callstack {}), but compute_pgm_rsrc2 bit 0 (SCRATCH_EN) is clear",
                code.workitem_private_segment_byte_size,
                u8::from(code.is_dynamic_callstack())
            ),
        );
    }

    // Registers.
    if !code.is_debug_enabled() {
        for (field, name, v) in [
            (
                offsets::DEBUG_WAVEFRONT_PRIVATE_SEGMENT_OFFSET_SGPR,
                "debug_wavefront_private_segment_offset_sgpr",
                code.debug_wavefront_private_segment_offset_sgpr,
            ),
            (
                offsets::DEBUG_PRIVATE_SEGMENT_BUFFER_SGPR,
                "debug_private_segment_buffer_sgpr",
                code.debug_private_segment_buffer_sgpr,
            ),
        ] {
            if v != 0 {
                sink.report_at(
                    &DEBUG_SGPRS,
                    at(field),
                    format!("{name} is {v}, but is_debug_enabled is 0"),
                );
            }
        }
    }
    if code.reserved_vgpr_count == 0 && code.reserved_vgpr_first != 0 {
        sink.report_at(
            &RESERVED_VGPR_FIRST,
            at(offsets::RESERVED_VGPR_FIRST),
            format!(
                "reserved_vgpr_first is {}, but reserved_vgpr_count is 0",
                code.reserved_vgpr_first
            ),
        );
    }
    if code.reserved_sgpr_count == 0 && code.reserved_sgpr_first != 0 {
        sink.report_at(
            &RESERVED_SGPR_FIRST,
            at(offsets::RESERVED_SGPR_FIRST),
            format!(
                "reserved_sgpr_first is {}, but reserved_sgpr_count is 0",
                code.reserved_sgpr_first
            ),
        );
    }
    if let Some(alloc) = code.allocated_sgprs(target) {
        let used = u32::from(code.wavefront_sgpr_count);
        if used > alloc {
            sink.report_at(
                &GRANULATED_SGPR_COUNT,
                at(offsets::COMPUTE_PGM_RSRC1),
                format!(
                    "GRANULATED_WAVEFRONT_SGPR_COUNT {} allocates {alloc} SGPRs, but wavefront_sgpr_count is {used}",
                    code.granulated_wavefront_sgpr_count()
                ),
            );
        }
    }
    let alloc_v = code.allocated_vgprs(target);
    if u32::from(code.workitem_vgpr_count) > alloc_v {
        sink.report_at(
            &GRANULATED_VGPR_COUNT,
            at(offsets::COMPUTE_PGM_RSRC1),
            format!(
                "GRANULATED_WORKITEM_VGPR_COUNT {} allocates {alloc_v} VGPRs, but workitem_vgpr_count is {}",
                code.granulated_workitem_vgpr_count(),
                code.workitem_vgpr_count
            ),
        );
    }

    // Segments.
    for (field, name, v) in [
        (
            offsets::KERNARG_SEGMENT_ALIGNMENT,
            "kernarg_segment_alignment",
            code.kernarg_segment_alignment,
        ),
        (
            offsets::GROUP_SEGMENT_ALIGNMENT,
            "group_segment_alignment",
            code.group_segment_alignment,
        ),
        (
            offsets::PRIVATE_SEGMENT_ALIGNMENT,
            "private_segment_alignment",
            code.private_segment_alignment,
        ),
    ] {
        if v < 4 {
            sink.report_at(
                &SEGMENT_ALIGNMENT,
                at(field),
                format!(
                    "{name} is {v} ({} bytes), below the minimum 4 (16 bytes)",
                    1u32 << v
                ),
            );
        }
    }
    if target.lds_bytes > 0 && code.workgroup_group_segment_byte_size > target.lds_bytes {
        sink.report_at(
            &GROUP_SEGMENT_SIZE,
            at(offsets::WORKGROUP_GROUP_SEGMENT_BYTE_SIZE),
            format!(
                "workgroup_group_segment_byte_size is {}, but {target} has {} bytes of LDS",
                code.workgroup_group_segment_byte_size, target.lds_bytes
            ),
        );
    }
    let want_wave = if code.wave32(target) { 5 } else { 6 };
    if code.wavefront_size != want_wave {
        sink.report_at(
            &WAVEFRONT_SIZE,
            at(offsets::WAVEFRONT_SIZE),
            format!(
                "wavefront_size is {}, expected {want_wave} (wave{})",
                code.wavefront_size,
                1u32 << want_wave
            ),
        );
    }

    // Loader field and reserved ranges.
    if code.runtime_loader_kernel_symbol != 0 {
        sink.report_at(
            &RUNTIME_LOADER_KERNEL_SYMBOL,
            at(offsets::RUNTIME_LOADER_KERNEL_SYMBOL),
            format!(
                "runtime_loader_kernel_symbol is {:#x}, expected 0 in a code object",
                code.runtime_loader_kernel_symbol
            ),
        );
    }
    if let Some(i) = code.reserved3.iter().position(|&b| b != 0) {
        let first = offsets::RESERVED3 + i as u64;
        sink.report_at(
            &RESERVED_BYTES,
            at(first),
            format!(
                "reserved bytes 108..120 are not zero (byte {first} is {:#04x})",
                code.reserved3.get(i).copied().unwrap_or(0)
            ),
        );
    }
    for (lo, hi) in CONTROL_DIRECTIVES_RESERVED_RANGES {
        let range = code.control_directives.get(lo..hi).unwrap_or(&[]);
        if let Some(i) = range.iter().position(|&b| b != 0) {
            let first = offsets::CONTROL_DIRECTIVES + (lo + i) as u64;
            let (a, b) = (
                offsets::CONTROL_DIRECTIVES + lo as u64,
                offsets::CONTROL_DIRECTIVES + hi as u64,
            );
            sink.report_at(
                &CONTROL_DIRECTIVES_RESERVED,
                at(first),
                format!(
                    "reserved control directive bytes {a}..{b} are not zero (byte {first} is {:#04x})",
                    range.get(i).copied().unwrap_or(0)
                ),
            );
        }
    }
}

fn check_rsrc1(code: &KernelCode, target: &Target, at: u64, sink: &mut Sink) {
    if code.priority() != 0 {
        sink.report_at(
            &RSRC1_PRIORITY,
            at,
            format!("PRIORITY is {}, expected 0", code.priority()),
        );
    }
    if code.priv_mode() {
        sink.report_at(&RSRC1_PRIV, at, "PRIV is set, expected 0");
    }
    if code.debug_mode() {
        sink.report_at(&RSRC1_DEBUG_MODE, at, "DEBUG_MODE is set, expected 0");
    }
    if code.bulky() {
        sink.report_at(&RSRC1_BULKY, at, "BULKY is set, expected 0");
    }
    if code.cdbg_user() {
        sink.report_at(&RSRC1_CDBG_USER, at, "CDBG_USER is set, expected 0");
    }
    let r1 = code.compute_pgm_rsrc1;
    let reserved = r1 & rsrc1_reserved_mask(target.generation);
    if reserved != 0 {
        sink.report_at(
            &RSRC1_RESERVED,
            at,
            format!(
                "compute_pgm_rsrc1 {r1:#010x} has {} set, reserved on {target}",
                describe_set_bits(reserved)
            ),
        );
    }
}

fn check_rsrc2(code: &KernelCode, target: &Target, at: u64, sink: &mut Sink) {
    if code.enable_trap_handler() {
        sink.report_at(
            &RSRC2_TRAP_HANDLER,
            at,
            "ENABLE_TRAP_HANDLER is set; CP sets the trap bit itself",
        );
    }
    if code.granulated_lds_size() != 0 {
        sink.report_at(
            &RSRC2_GRANULATED_LDS_SIZE,
            at,
            format!(
                "GRANULATED_LDS_SIZE is {}, expected 0",
                code.granulated_lds_size()
            ),
        );
    }
    if target.generation < Generation::Gfx12 && bit(code.compute_pgm_rsrc2, 31) {
        sink.report_at(
            &RSRC2_RESERVED,
            at,
            format!("compute_pgm_rsrc2 bit 31 is set, reserved on {target}"),
        );
    }
}

/// Checks where the `amd_kernel_code_t` and its code sit: `address` is the
/// kernel symbol's value (a virtual address in a linked object, a section
/// offset in a relocatable one, whose `.text` is 256-byte aligned), and
/// `offset` its file offset for the report.
pub fn check_placement(code: &KernelCode, address: u64, offset: u64, sink: &mut Sink) {
    if !address.is_multiple_of(ALIGNMENT_BYTES) {
        sink.report_at(
            &ADDRESS_ALIGNMENT,
            offset,
            format!("the amd_kernel_code_t is at {address:#x}, not {ALIGNMENT_BYTES}-byte aligned"),
        );
    }
    // Wrapping arithmetic keeps the residue modulo 256 exact.
    let entry = address.wrapping_add(code.kernel_code_entry_byte_offset as u64);
    if !entry.is_multiple_of(ENTRY_ALIGNMENT_BYTES) {
        sink.report_at(
            &ENTRY_ALIGNMENT,
            offset.saturating_add(offsets::KERNEL_CODE_ENTRY_BYTE_OFFSET),
            format!(
                "the entry is at {entry:#x} ({address:#x} {:+}), not {ENTRY_ALIGNMENT_BYTES}-byte aligned",
                code.kernel_code_entry_byte_offset
            ),
        );
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rules::{Rule, Severity};
    use crate::targets::{by_name, TARGETS};
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    pub(crate) fn t(name: &str) -> &'static Target {
        by_name(name).unwrap_or_else(|| panic!("target {name} missing from targets::TARGETS"))
    }

    /// The processors llc-14 writes V2 for: GFX6 to GFX9 up to gfx906 and
    /// gfx90c (llc-14 rejects gfx908, gfx909, gfx90a and GFX10 at V2).
    pub(crate) const SAMPLE: &[&str] = &[
        "gfx600", "gfx602", "gfx700", "gfx701", "gfx705", "gfx801", "gfx802", "gfx803", "gfx805",
        "gfx810", "gfx900", "gfx902", "gfx904", "gfx906", "gfx90c",
    ];

    /// The xnack setting llc-14 writes by default: on where supported.
    pub(crate) fn default_xnack(target: &Target) -> FeatureSetting {
        if target.xnack {
            FeatureSetting::On
        } else {
            FeatureSetting::Unsupported
        }
    }

    /// An amd_kernel_code_t shaped like llc-14's for the fixture kernel
    /// `group_ids_yz` (one pointer argument, work-group ids X, Y, Z,
    /// work-item ids X, Y, Z, 9-11 SGPRs, 3 VGPRs).
    pub(crate) fn valid(target: &Target) -> KernelCode {
        let [ma, mi, st] = target.isa_version;
        let (sgprs, gs) = if target.sgpr_init_bug {
            (96, 11)
        } else {
            (11, 1)
        };
        let mut props = props::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER
            | props::ENABLE_SGPR_KERNARG_SEGMENT_PTR
            | 1 << props::PRIVATE_ELEMENT_SIZE_SHIFT
            | props::IS_PTR64;
        if target.xnack {
            props |= props::IS_XNACK_ENABLED;
        }
        KernelCode {
            amd_kernel_code_version_major: 1,
            amd_kernel_code_version_minor: 2,
            amd_machine_kind: 1,
            amd_machine_version_major: ma.into(),
            amd_machine_version_minor: mi.into(),
            amd_machine_version_stepping: st.into(),
            kernel_code_entry_byte_offset: 256,
            // float_mode 240, DX10 clamp, IEEE mode.
            compute_pgm_rsrc1: 0x00af_0000 | gs << 6,
            // USER_SGPR_COUNT 6, work-group ids X Y Z, work-item ids X Y Z.
            compute_pgm_rsrc2: 6 << 1 | 7 << 7 | 2 << 11,
            code_properties: props,
            kernarg_segment_byte_size: 8,
            wavefront_sgpr_count: sgprs,
            workitem_vgpr_count: 3,
            kernarg_segment_alignment: 4,
            group_segment_alignment: 4,
            private_segment_alignment: 4,
            wavefront_size: 6,
            call_convention: -1,
            ..Default::default()
        }
    }

    /// Runs every amd_kernel_code_t and V2 initial-state check.
    pub(crate) fn run_all(code: &KernelCode, target: &Target, xnack: FeatureSetting) -> Sink {
        let mut sink = Sink::new();
        check(code, target, xnack, 0x100, &mut sink);
        check_placement(code, 0x100, 0x100, &mut sink);
        crate::sgpr::v2::check(code, target, 0x100, &mut sink);
        sink
    }

    pub(crate) fn ids(sink: &Sink) -> BTreeSet<&'static str> {
        sink.violations.iter().map(|v| v.rule.id).collect()
    }

    /// A mutation that must break `rule` (and nothing outside `also`).
    pub(crate) struct Case {
        pub rule: &'static Rule,
        pub target: &'static str,
        /// The e_flags xnack setting; `None` for llc-14's default.
        pub xnack: Option<FeatureSetting>,
        pub mutate: fn(&mut KernelCode),
        pub also: &'static [&'static Rule],
    }

    pub(crate) fn run_cases(cases: &[Case]) {
        for (i, c) in cases.iter().enumerate() {
            let target = t(c.target);
            let xnack = c.xnack.unwrap_or_else(|| default_xnack(target));
            let mut code = valid(target);
            let base = run_all(&code, target, xnack);
            assert!(
                base.violations.is_empty(),
                "case {i} ({}): baseline not clean: {:?}",
                c.rule.id,
                base.violations
            );
            (c.mutate)(&mut code);
            let sink = run_all(&code, target, xnack);
            let got = ids(&sink);
            assert!(
                got.contains(c.rule.id),
                "case {i}: {} not reported on {}; got {got:?}",
                c.rule.id,
                c.target
            );
            let allowed: BTreeSet<&str> = std::iter::once(c.rule.id)
                .chain(c.also.iter().map(|r| r.id))
                .collect();
            assert!(
                got.is_subset(&allowed),
                "case {i} ({}): extra rules {got:?}",
                c.rule.id
            );
            for v in &sink.violations {
                assert_eq!(v.severity, v.rule.severity);
                assert!(
                    v.offset
                        .is_some_and(|o| (0x100..0x100 + KERNEL_CODE_SIZE as u64).contains(&o)),
                    "{v:?}"
                );
            }
        }
    }

    pub(crate) fn assert_all_covered(rules: &[&Rule], cases: &[Case]) {
        let covered: BTreeSet<&str> = cases.iter().map(|c| c.rule.id).collect();
        for r in rules {
            assert!(covered.contains(r.id), "rule {} has no mutation test", r.id);
        }
    }

    use FeatureSetting::{Off, On};

    const CASES: &[Case] = &[
        Case {
            rule: &VERSION_MAJOR,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.amd_kernel_code_version_major = 2,
            also: &[],
        },
        Case {
            rule: &MACHINE_KIND,
            target: "gfx900",
            xnack: None,
            mutate: |c| c.amd_machine_kind = 0,
            also: &[],
        },
        Case {
            rule: &MACHINE_VERSION,
            target: "gfx900",
            xnack: None,
            // What the V2 ISA note says for gfx900 with xnack: not this field.
            mutate: |c| c.amd_machine_version_stepping = 1,
            also: &[],
        },
        Case {
            rule: &MACHINE_VERSION,
            target: "gfx701",
            xnack: None,
            mutate: |c| c.amd_machine_version_major = 8,
            also: &[],
        },
        Case {
            rule: &ENTRY_OFFSET_INSIDE,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.kernel_code_entry_byte_offset = 0,
            also: &[],
        },
        Case {
            rule: &ENTRY_OFFSET_INSIDE,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.kernel_code_entry_byte_offset = 64,
            also: &[&ENTRY_ALIGNMENT],
        },
        Case {
            rule: &ENTRY_ALIGNMENT,
            target: "gfx906",
            xnack: None,
            mutate: |c| c.kernel_code_entry_byte_offset = 320,
            also: &[],
        },
        Case {
            rule: &ENTRY_ALIGNMENT,
            target: "gfx906",
            xnack: None,
            mutate: |c| c.kernel_code_entry_byte_offset = -4,
            also: &[],
        },
        Case {
            rule: &MAX_SCRATCH_BACKING_MEMORY,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.max_scratch_backing_memory_byte_size = 1 << 20,
            also: &[],
        },
        Case {
            rule: &RSRC1_PRIORITY,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.compute_pgm_rsrc1 |= 2 << 10,
            also: &[],
        },
        Case {
            rule: &RSRC1_PRIV,
            target: "gfx900",
            xnack: None,
            mutate: |c| c.compute_pgm_rsrc1 |= 1 << 20,
            also: &[],
        },
        Case {
            rule: &RSRC1_DEBUG_MODE,
            target: "gfx701",
            xnack: None,
            mutate: |c| c.compute_pgm_rsrc1 |= 1 << 22,
            also: &[],
        },
        Case {
            rule: &RSRC1_BULKY,
            target: "gfx906",
            xnack: None,
            mutate: |c| c.compute_pgm_rsrc1 |= 1 << 24,
            also: &[],
        },
        Case {
            rule: &RSRC1_CDBG_USER,
            target: "gfx600",
            xnack: None,
            mutate: |c| c.compute_pgm_rsrc1 |= 1 << 25,
            also: &[],
        },
        Case {
            rule: &RSRC1_RESERVED,
            target: "gfx803",
            xnack: None,
            // FP16_OVFL does not exist before GFX9.
            mutate: |c| c.compute_pgm_rsrc1 |= 1 << 26,
            also: &[],
        },
        Case {
            rule: &RSRC1_RESERVED,
            target: "gfx900",
            xnack: None,
            mutate: |c| c.compute_pgm_rsrc1 |= 1 << 29,
            also: &[],
        },
        Case {
            rule: &RSRC1_RESERVED,
            target: "gfx1010",
            xnack: None,
            mutate: |c| c.compute_pgm_rsrc1 |= 1 << 27,
            also: &[],
        },
        Case {
            rule: &RSRC2_TRAP_HANDLER,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.compute_pgm_rsrc2 |= 1 << 6,
            also: &[],
        },
        Case {
            rule: &RSRC2_GRANULATED_LDS_SIZE,
            target: "gfx900",
            xnack: None,
            mutate: |c| c.compute_pgm_rsrc2 |= 3 << 15,
            also: &[],
        },
        Case {
            rule: &RSRC2_RESERVED,
            target: "gfx906",
            xnack: None,
            mutate: |c| c.compute_pgm_rsrc2 |= 1 << 31,
            also: &[],
        },
        Case {
            rule: &PROPERTIES_RESERVED,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.code_properties |= 1 << 11,
            also: &[],
        },
        Case {
            rule: &PROPERTIES_RESERVED,
            target: "gfx900",
            xnack: None,
            mutate: |c| c.code_properties |= 1 << 31,
            also: &[],
        },
        Case {
            rule: &PROPERTIES_WAVEFRONT_SIZE32,
            target: "gfx900",
            xnack: None,
            mutate: |c| c.code_properties |= props::ENABLE_WAVEFRONT_SIZE32,
            also: &[],
        },
        Case {
            rule: &PRIVATE_ELEMENT_SIZE,
            target: "gfx900",
            xnack: None,
            // What llc-14 -mattr=+max-private-element-size-16 writes.
            mutate: |c| c.code_properties |= props::PRIVATE_ELEMENT_SIZE,
            also: &[],
        },
        Case {
            rule: &IS_PTR64,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.code_properties &= !props::IS_PTR64,
            also: &[],
        },
        Case {
            rule: &XNACK,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.code_properties |= props::IS_XNACK_ENABLED,
            also: &[],
        },
        Case {
            rule: &XNACK,
            target: "gfx900",
            xnack: Some(On),
            mutate: |c| c.code_properties &= !props::IS_XNACK_ENABLED,
            also: &[],
        },
        Case {
            rule: &XNACK,
            target: "gfx906",
            xnack: None,
            mutate: |c| c.code_properties &= !props::IS_XNACK_ENABLED,
            also: &[],
        },
        Case {
            rule: &DEBUG_SGPRS,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.debug_private_segment_buffer_sgpr = 96,
            also: &[],
        },
        Case {
            rule: &DEBUG_SGPRS,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.debug_wavefront_private_segment_offset_sgpr = u16::MAX,
            also: &[],
        },
        Case {
            rule: &RESERVED_VGPR_FIRST,
            target: "gfx900",
            xnack: None,
            mutate: |c| c.reserved_vgpr_first = 3,
            also: &[],
        },
        Case {
            rule: &RESERVED_SGPR_FIRST,
            target: "gfx900",
            xnack: None,
            mutate: |c| c.reserved_sgpr_first = 9,
            also: &[],
        },
        Case {
            rule: &SEGMENT_ALIGNMENT,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.kernarg_segment_alignment = 3,
            also: &[],
        },
        Case {
            rule: &SEGMENT_ALIGNMENT,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.group_segment_alignment = 0,
            also: &[],
        },
        Case {
            rule: &SEGMENT_ALIGNMENT,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.private_segment_alignment = 2,
            also: &[],
        },
        Case {
            rule: &WAVEFRONT_SIZE,
            target: "gfx900",
            xnack: None,
            mutate: |c| c.wavefront_size = 5,
            also: &[],
        },
        Case {
            rule: &WAVEFRONT_SIZE,
            target: "gfx1010",
            xnack: None,
            // wave32 selected, but the size still says 64 lanes.
            mutate: |c| c.code_properties |= props::ENABLE_WAVEFRONT_SIZE32,
            also: &[],
        },
        Case {
            rule: &GRANULATED_SGPR_COUNT,
            target: "gfx701",
            xnack: None,
            // 17 > 16 allocated (2 granules of 8).
            mutate: |c| c.wavefront_sgpr_count = 17,
            also: &[],
        },
        Case {
            rule: &GRANULATED_SGPR_COUNT,
            target: "gfx802",
            xnack: None,
            mutate: |c| c.wavefront_sgpr_count = 97,
            also: &[],
        },
        Case {
            rule: &GRANULATED_VGPR_COUNT,
            target: "gfx906",
            xnack: None,
            mutate: |c| c.workitem_vgpr_count = 5,
            also: &[],
        },
        Case {
            rule: &SCRATCH_EN,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.workitem_private_segment_byte_size = 260,
            also: &[],
        },
        Case {
            rule: &SCRATCH_EN,
            target: "gfx900",
            xnack: None,
            mutate: |c| c.code_properties |= props::IS_DYNAMIC_CALLSTACK,
            also: &[],
        },
        Case {
            rule: &GROUP_SEGMENT_SIZE,
            target: "gfx600",
            xnack: None,
            mutate: |c| c.workgroup_group_segment_byte_size = 32769,
            also: &[],
        },
        Case {
            rule: &RUNTIME_LOADER_KERNEL_SYMBOL,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.runtime_loader_kernel_symbol = 0x7f00_0000_1000,
            also: &[],
        },
        Case {
            rule: &RESERVED_BYTES,
            target: "gfx900",
            xnack: None,
            mutate: |c| c.reserved3[11] = 0x80,
            also: &[],
        },
        Case {
            rule: &CONTROL_DIRECTIVES_RESERVED,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.control_directives[30] = 1,
            also: &[],
        },
        Case {
            rule: &CONTROL_DIRECTIVES_RESERVED,
            target: "gfx803",
            xnack: None,
            mutate: |c| c.control_directives[127] = 1,
            also: &[],
        },
    ];

    #[test]
    fn mutants_break_their_rule() {
        run_cases(CASES);
    }

    #[test]
    fn every_rule_has_a_mutant() {
        // The header's own alignment depends on its address, not its bytes;
        // `placement` breaks it.
        let by_bytes: Vec<&Rule> = RULES
            .iter()
            .copied()
            .filter(|r| r.id != ADDRESS_ALIGNMENT.id)
            .collect();
        assert_all_covered(&by_bytes, CASES);
    }

    #[test]
    fn valid_kernel_codes_are_clean() {
        for name in SAMPLE {
            let target = t(name);
            let sink = run_all(&valid(target), target, default_xnack(target));
            assert!(sink.violations.is_empty(), "{name}: {:?}", sink.violations);
        }
    }

    #[test]
    fn severities_are_as_declared() {
        let errors: Vec<&str> = RULES
            .iter()
            .filter(|r| r.severity == Severity::Error)
            .map(|r| r.id)
            .collect();
        assert_eq!(errors.len(), 25, "{errors:?}");
        assert_eq!(RULES.len(), 33);
        for id in [
            "code.address_alignment",
            "code.rsrc1.priority",
            "code.rsrc2.trap_handler",
            "code.private_element_size",
            "code.xnack",
            "code.group_segment_size",
            "code.control_directives.reserved",
        ] {
            let r = RULES.iter().find(|r| r.id == id).unwrap();
            assert_eq!(r.severity, Severity::Warning, "{id}");
        }
        let r = RULES
            .iter()
            .find(|r| r.id == "code.max_scratch_backing_memory")
            .unwrap();
        assert_eq!(r.severity, Severity::Info);
        assert!(RULES.iter().all(|r| r.id.starts_with("code.")));
    }

    /// A target and a change to the clean base.
    type Setting = (&'static str, fn(&mut KernelCode));

    #[test]
    fn allowed_settings_are_clean() {
        // Settings the documents or LLVM allow, each on the clean base.
        let cases: &[Setting] = &[
            // Any minor version.
            ("gfx803", |c| c.amd_kernel_code_version_minor = 0),
            // A negative entry offset that lands aligned.
            ("gfx803", |c| c.kernel_code_entry_byte_offset = -0x1000),
            // Prefetch information.
            ("gfx803", |c| {
                c.kernel_code_prefetch_byte_offset = 256;
                c.kernel_code_prefetch_byte_size = 4096
            }),
            // FP16_OVFL on GFX9.
            ("gfx906", |c| c.compute_pgm_rsrc1 |= 1 << 26),
            // Exception enables (V2 lets the code request them).
            ("gfx803", |c| c.compute_pgm_rsrc2 |= 3 << 13 | 0x7f << 24),
            // GDS ordered append, debug support with debug SGPRs.
            ("gfx900", |c| {
                c.code_properties |= props::ENABLE_ORDERED_APPEND_GDS | props::IS_DEBUG_ENABLED;
                c.debug_wavefront_private_segment_offset_sgpr = u16::MAX;
                c.debug_private_segment_buffer_sgpr = 96;
            }),
            // Reserved registers for a client.
            ("gfx900", |c| {
                c.reserved_vgpr_first = 1;
                c.reserved_vgpr_count = 2;
                c.reserved_sgpr_first = 4;
                c.reserved_sgpr_count = 4;
            }),
            // More registers allocated than used (amdgpu-waves-per-eu).
            ("gfx900", |c| c.compute_pgm_rsrc1 |= 12 << 6 | 21),
            // Scratch with SCRATCH_EN, and the deprecated size.
            ("gfx803", |c| {
                c.workitem_private_segment_byte_size = 260;
                c.compute_pgm_rsrc2 |= 1;
                c.max_scratch_backing_memory_byte_size = 1 << 20;
            }),
            // A dynamic call stack with SCRATCH_EN and no static size.
            ("gfx803", |c| {
                c.code_properties |= props::IS_DYNAMIC_CALLSTACK;
                c.compute_pgm_rsrc2 |= 1;
            }),
            // A 512-byte-aligned kernel argument (llc-14 writes 9).
            ("gfx803", |c| c.kernarg_segment_alignment = 9),
            // 64 KiB of LDS on GFX7.
            ("gfx701", |c| c.workgroup_group_segment_byte_size = 65536),
            // A call convention and enabled control directives.
            ("gfx803", |c| {
                c.call_convention = 0;
                c.control_directives[0] = 0x40;
                c.control_directives[56] = 64;
            }),
            // wave32 on GFX10 (LLVM's V2 assembler accepts it there).
            ("gfx1010", |c| {
                c.code_properties |= props::ENABLE_WAVEFRONT_SIZE32;
                c.wavefront_size = 5;
                c.compute_pgm_rsrc1 |= 3 << 29;
                c.code_properties &= !props::IS_XNACK_ENABLED;
            }),
        ];
        for (i, (name, mutate)) in cases.iter().enumerate() {
            let target = t(name);
            let xnack = if *name == "gfx1010" {
                Off
            } else {
                default_xnack(target)
            };
            let mut code = valid(target);
            mutate(&mut code);
            let sink = run_all(&code, target, xnack);
            assert!(
                sink.violations.is_empty(),
                "case {i} on {name}: {:?}",
                sink.violations
            );
        }
    }

    #[test]
    fn xnack_against_e_flags() {
        let target = t("gfx900");
        let mut code = valid(target);
        for on in [false, true] {
            if on {
                code.code_properties |= props::IS_XNACK_ENABLED;
            } else {
                code.code_properties &= !props::IS_XNACK_ENABLED;
            }
            // "Any" is not compared.
            let sink = run_all(&code, target, FeatureSetting::Any);
            assert!(sink.violations.is_empty(), "{on}: {:?}", sink.violations);
            // llc-14 -mattr=-xnack writes the bit clear with e_flags off.
            let sink = run_all(&code, target, Off);
            assert_eq!(
                ids(&sink),
                if on {
                    BTreeSet::from(["code.xnack"])
                } else {
                    BTreeSet::new()
                },
                "{on}"
            );
        }
    }

    /// The bytes llvm-mc-14 assembles for a `.amd_kernel_code_t` block on
    /// gfx803 (V2) with priority = 1, is_ptr64 = 0, private_element_size =
    /// 3, kernarg_segment_alignment = 2, wavefront_size = 4,
    /// user_sgpr_count = 3, reserved_vgpr_first = 7,
    /// runtime_loader_kernel_symbol = 5, kernel_code_prefetch_byte_size =
    /// 12 and max_scratch_backing_memory_byte_size = 99 (which it ignores).
    fn llvm_mc_gfx803_sample() -> [u8; KERNEL_CODE_SIZE] {
        let mut b = [0u8; KERNEL_CODE_SIZE];
        let rows: &[(usize, [u8; 16])] = &[
            (0x00, [1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 8, 0, 0, 0, 3, 0]),
            (0x10, [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
            (0x20, [0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
            (0x30, [0, 4, 0, 0, 6, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0]),
            (0x50, [0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0]),
            (
                0x60,
                [0, 0, 0, 0, 2, 4, 4, 4, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0],
            ),
            (0x70, [0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0]),
        ];
        for (at, row) in rows {
            b[*at..*at + 16].copy_from_slice(row);
        }
        b
    }

    #[test]
    fn layout_matches_llvm_mc() {
        let b = llvm_mc_gfx803_sample();
        let c = KernelCode::parse(&b).unwrap();
        assert_eq!(
            (
                c.amd_kernel_code_version_major,
                c.amd_kernel_code_version_minor,
                c.amd_machine_kind,
                c.amd_machine_version_major,
                c.amd_machine_version_minor,
                c.amd_machine_version_stepping
            ),
            (1, 2, 1, 8, 0, 3)
        );
        assert_eq!(c.kernel_code_entry_byte_offset, 256);
        assert_eq!(c.kernel_code_prefetch_byte_offset, 0);
        assert_eq!(c.kernel_code_prefetch_byte_size, 12);
        assert_eq!(c.max_scratch_backing_memory_byte_size, 0);
        assert_eq!(c.compute_pgm_rsrc1, 0x400);
        assert_eq!(c.priority(), 1);
        assert_eq!(c.compute_pgm_rsrc2, 6);
        assert_eq!(c.user_sgpr_count(), 3);
        assert_eq!(c.compute_pgm_resource_registers(), 0x6_0000_0400);
        assert_eq!(c.code_properties, 0x0006_0000);
        assert_eq!(
            (
                c.private_element_size(),
                c.private_element_size_bytes(),
                c.is_ptr64()
            ),
            (3, 16, false)
        );
        assert_eq!((c.reserved_vgpr_first, c.reserved_vgpr_count), (7, 0));
        assert_eq!(
            (
                c.kernarg_segment_alignment,
                c.group_segment_alignment,
                c.private_segment_alignment,
                c.wavefront_size
            ),
            (2, 4, 4, 4)
        );
        assert_eq!(c.kernarg_segment_alignment_bytes(), Some(4));
        assert_eq!(c.wavefront_lanes(), Some(16));
        assert_eq!(c.call_convention, -1);
        assert_eq!(c.runtime_loader_kernel_symbol, 5);
        assert_eq!(c.to_bytes(), b);

        let mut sink = Sink::new();
        check(
            &c,
            t("gfx803"),
            FeatureSetting::Unsupported,
            0x40,
            &mut sink,
        );
        let got: Vec<(&str, Option<u64>)> = sink
            .violations
            .iter()
            .map(|v| (v.rule.id, v.offset))
            .collect();
        assert_eq!(
            got,
            vec![
                ("code.rsrc1.priority", Some(0x40 + 48)),
                ("code.private_element_size", Some(0x40 + 56)),
                ("code.is_ptr64", Some(0x40 + 56)),
                ("code.reserved_vgpr_first", Some(0x40 + 88)),
                ("code.segment_alignment", Some(0x40 + 100)),
                ("code.wavefront_size", Some(0x40 + 103)),
                ("code.runtime_loader_kernel_symbol", Some(0x40 + 120)),
            ]
        );
    }

    #[test]
    fn layout_offsets() {
        // Each field set to a distinct marker lands at its documented
        // offset.
        let c = KernelCode {
            amd_kernel_code_version_major: 0x0102_0304,
            amd_machine_version_stepping: 0xbeef,
            kernel_code_entry_byte_offset: -2,
            max_scratch_backing_memory_byte_size: 0x1122_3344_5566_7788,
            compute_pgm_rsrc2: 0xa5a5_5a5a,
            code_properties: 0x8000_0001,
            kernarg_segment_byte_size: 0x0101_0101_0101_0101,
            workitem_vgpr_count: 0x7777,
            debug_private_segment_buffer_sgpr: 0x4242,
            wavefront_size: 0x99,
            call_convention: -3,
            runtime_loader_kernel_symbol: u64::MAX,
            ..Default::default()
        };
        let b = c.to_bytes();
        let u16_at = |o: u64| u16::from_le_bytes([b[o as usize], b[o as usize + 1]]);
        let u32_at = |o: u64| u32::from_le_bytes(b[o as usize..o as usize + 4].try_into().unwrap());
        let u64_at = |o: u64| u64::from_le_bytes(b[o as usize..o as usize + 8].try_into().unwrap());
        assert_eq!(u32_at(offsets::VERSION_MAJOR), 0x0102_0304);
        assert_eq!(u16_at(offsets::MACHINE_VERSION_STEPPING), 0xbeef);
        assert_eq!(
            u64_at(offsets::KERNEL_CODE_ENTRY_BYTE_OFFSET),
            (-2i64) as u64
        );
        assert_eq!(
            u64_at(offsets::MAX_SCRATCH_BACKING_MEMORY_BYTE_SIZE),
            0x1122_3344_5566_7788
        );
        assert_eq!(u32_at(offsets::COMPUTE_PGM_RSRC2), 0xa5a5_5a5a);
        assert_eq!(u32_at(offsets::CODE_PROPERTIES), 0x8000_0001);
        assert_eq!(
            u64_at(offsets::KERNARG_SEGMENT_BYTE_SIZE),
            0x0101_0101_0101_0101
        );
        assert_eq!(u16_at(offsets::WORKITEM_VGPR_COUNT), 0x7777);
        assert_eq!(u16_at(offsets::DEBUG_PRIVATE_SEGMENT_BUFFER_SGPR), 0x4242);
        assert_eq!(b[offsets::WAVEFRONT_SIZE as usize], 0x99);
        assert_eq!(u32_at(offsets::CALL_CONVENTION), (-3i32) as u32);
        assert_eq!(u64_at(offsets::RUNTIME_LOADER_KERNEL_SYMBOL), u64::MAX);
        // Nothing else is set.
        let set: usize = b.iter().filter(|&&x| x != 0).count();
        assert_eq!(set, 4 + 2 + 8 + 8 + 4 + 2 + 8 + 2 + 2 + 1 + 4 + 8);
    }

    #[test]
    fn bit_field_accessors() {
        let c = KernelCode {
            compute_pgm_rsrc1: 0x3f | 0xf << 6 | 3 << 10 | 0xab << 12 | 1 << 21 | 1 << 23,
            compute_pgm_rsrc2: 1
                | 17 << 1
                | 1 << 8
                | 1 << 10
                | 2 << 11
                | 1 << 14
                | 0x1ff << 15
                | 1 << 25
                | 1 << 30,
            code_properties: 0x3ff | 2 << 17 | 1 << 20 | 1 << 22,
            ..Default::default()
        };
        assert_eq!(c.granulated_workitem_vgpr_count(), 63);
        assert_eq!(c.granulated_wavefront_sgpr_count(), 15);
        assert_eq!(c.priority(), 3);
        assert_eq!(c.float_mode(), 0xab);
        assert_eq!(
            (
                c.float_round_mode_32(),
                c.float_round_mode_16_64(),
                c.float_denorm_mode_32(),
                c.float_denorm_mode_16_64()
            ),
            (3, 2, 2, 2)
        );
        assert!(c.enable_dx10_clamp() && c.enable_ieee_mode());
        assert!(!c.priv_mode() && !c.debug_mode() && !c.bulky() && !c.cdbg_user());
        assert!(c.enable_sgpr_private_segment_wave_byte_offset());
        assert_eq!(c.user_sgpr_count(), 17);
        assert!(!c.enable_trap_handler());
        assert!(
            !c.enable_sgpr_workgroup_id_x()
                && c.enable_sgpr_workgroup_id_y()
                && !c.enable_sgpr_workgroup_id_z()
        );
        assert!(c.enable_sgpr_workgroup_info());
        assert_eq!(c.enable_vgpr_workitem_id(), 2);
        assert_eq!(c.enable_exception_msb(), 2);
        assert!(!c.enable_exception_address_watch() && c.enable_exception_memory_violation());
        assert_eq!(c.granulated_lds_size(), 0x1ff);
        assert_eq!(c.enable_exception(), 0x42);
        assert!(c.enable_exception_fp_denormal_source() && c.enable_exception_int_divide_by_zero());
        assert!(!c.enable_exception_ieee_754_fp_invalid_operation());
        assert!(
            c.enable_sgpr_grid_workgroup_count_x()
                && c.enable_sgpr_grid_workgroup_count_y()
                && c.enable_sgpr_grid_workgroup_count_z()
        );
        assert!(!c.enable_wavefront_size32() && !c.enable_ordered_append_gds());
        assert_eq!(c.private_element_size_bytes(), 8);
        assert!(c.is_dynamic_callstack() && !c.is_debug_enabled() && c.is_xnack_enabled());
        assert!(!c.is_ptr64());
        assert_eq!(c.properties_reserved(), 0);
        assert_eq!(
            KernelCode {
                code_properties: u32::MAX,
                ..Default::default()
            }
            .properties_reserved(),
            0xff80_f800
        );
    }

    #[test]
    fn control_directives_decode() {
        let mut c = KernelCode::default();
        let mut put_at =
            |at: usize, v: &[u8]| c.control_directives[at..at + v.len()].copy_from_slice(v);
        put_at(0, &0x48u64.to_le_bytes());
        put_at(8, &3u16.to_le_bytes());
        put_at(10, &5u16.to_le_bytes());
        put_at(12, &4096u32.to_le_bytes());
        put_at(16, &(1u64 << 40).to_le_bytes());
        put_at(24, &256u32.to_le_bytes());
        put_at(28, &[3]);
        put_at(32, &7u64.to_le_bytes());
        put_at(40, &8u64.to_le_bytes());
        put_at(48, &9u64.to_le_bytes());
        put_at(56, &64u32.to_le_bytes());
        put_at(60, &2u32.to_le_bytes());
        put_at(64, &1u32.to_le_bytes());
        assert_eq!(
            c.decoded_control_directives(),
            ControlDirectives {
                enabled_control_directives: 0x48,
                enable_break_exceptions: 3,
                enable_detect_exceptions: 5,
                max_dynamic_group_size: 4096,
                max_flat_grid_size: 1 << 40,
                max_flat_workgroup_size: 256,
                required_dim: 3,
                required_grid_size: [7, 8, 9],
                required_workgroup_size: [64, 2, 1],
            }
        );
        let fields = c.fields(t("gfx803"));
        let names: Vec<&str> = fields
            .iter()
            .filter(|f| f.name.starts_with("control_directives."))
            .map(|f| f.name)
            .collect();
        assert_eq!(names.len(), 13, "{names:?}");
        assert_eq!(
            fields
                .iter()
                .find(|f| f.name == "control_directives.required_workgroup_size_x")
                .map(|f| f.value),
            Some(64)
        );
    }

    #[test]
    fn parse_rejects_short_input_and_ignores_the_rest() {
        assert!(KernelCode::parse(&[0u8; 255]).is_err());
        assert!(KernelCode::parse(&[]).is_err());
        let mut long = valid(t("gfx900")).to_bytes().to_vec();
        long.extend_from_slice(&[0xff; 16]);
        assert_eq!(KernelCode::parse(&long).unwrap(), valid(t("gfx900")));
    }

    #[test]
    fn placement() {
        let c = valid(t("gfx803"));
        let mut sink = Sink::new();
        check_placement(&c, 0x1000, 0x1000, &mut sink);
        assert!(sink.violations.is_empty());
        check_placement(&c, 0x1040, 0x1040, &mut sink);
        // 64-aligned but the entry at 0x1140 is not 256-aligned.
        assert_eq!(ids(&sink), BTreeSet::from(["code.entry_offset.alignment"]));
        let mut sink = Sink::new();
        let c2 = KernelCode {
            kernel_code_entry_byte_offset: 0xc0,
            ..c
        };
        // A 64-aligned header whose entry offset reaches the next 256 bytes.
        check_placement(&c2, 0x1040, 0, &mut sink);
        assert!(sink.violations.is_empty());
        check_placement(&c2, 0x1044, 0, &mut sink);
        assert_eq!(
            ids(&sink),
            BTreeSet::from(["code.address_alignment", "code.entry_offset.alignment"])
        );
        assert_eq!(c.entry_address(0x1000), Some(0x1100));
        assert_eq!(c.entry_address(u64::MAX), None);
        let back = KernelCode {
            kernel_code_entry_byte_offset: -0x100,
            ..c
        };
        assert_eq!(back.entry_address(0x1000), Some(0xf00));
        assert_eq!(back.entry_address(0x10), None);
    }

    #[test]
    fn fields_name_every_member() {
        let target = t("gfx900");
        let c = valid(target);
        let fields = c.fields(target);
        let names: BTreeSet<&str> = fields.iter().map(|f| f.name).collect();
        assert_eq!(names.len(), fields.len(), "duplicate field names");
        for n in [
            "amd_kernel_code_version_major",
            "amd_machine_version_stepping",
            "kernel_code_prefetch_byte_offset",
            "max_scratch_backing_memory_byte_size",
            "compute_pgm_rsrc1.fp16_ovfl",
            "compute_pgm_rsrc2.enable_sgpr_private_segment_wave_byte_offset",
            "code_properties.enable_sgpr_grid_workgroup_count_z",
            "code_properties.private_element_size",
            "code_properties.is_xnack_enabled",
            "wavefront_sgpr_count",
            "debug_private_segment_buffer_sgpr",
            "call_convention",
            "runtime_loader_kernel_symbol",
            "control_directives.enabled_control_directives",
        ] {
            assert!(names.contains(n), "{n} missing");
        }
        // GFX10-only fields are absent on GFX9, FP16_OVFL on GFX8.
        assert!(!names.contains("compute_pgm_rsrc1.enable_wgp_mode"));
        assert!(!names.contains("code_properties.enable_wavefront_size32"));
        assert!(!c
            .fields(t("gfx803"))
            .iter()
            .any(|f| f.name == "compute_pgm_rsrc1.fp16_ovfl"));
        let get = |n: &str| fields.iter().find(|f| f.name == n).unwrap();
        assert_eq!(get("call_convention").value, 0xffff_ffff);
        assert_eq!(get("call_convention").meaning, "no indirect functions");
        assert_eq!(
            get("compute_pgm_rsrc1.granulated_wavefront_sgpr_count").meaning,
            "16 SGPRs allocated"
        );
        assert_eq!(get("wavefront_size").meaning, "64 lanes");
        assert_eq!(
            get("amd_machine_version_major").meaning,
            "ISA major of gfx900"
        );
    }

    #[test]
    fn messages_name_values() {
        let target = t("gfx900");
        let mut c = valid(target);
        c.code_properties |= 0x0180_0800;
        c.amd_machine_version_stepping = 1;
        let mut sink = Sink::new();
        check(&c, target, FeatureSetting::On, 0, &mut sink);
        let msgs: Vec<&str> = sink.violations.iter().map(|v| v.message.as_str()).collect();
        assert_eq!(
            msgs,
            vec![
                "amd_machine_version is 9.0.1, but gfx900 has ISA version 9.0.0",
                "code_properties 0x01ca0809 has reserved bit 11, bits 24:23 set",
            ]
        );
        assert_eq!(sink.violations[0].offset, Some(14));
    }

    proptest! {
        #[test]
        fn bytes_round_trip(v in proptest::collection::vec(any::<u8>(), KERNEL_CODE_SIZE)) {
            let c = KernelCode::parse(&v).unwrap();
            prop_assert_eq!(&c.to_bytes()[..], &v[..]);
            prop_assert_eq!(KernelCode::parse(&c.to_bytes()).unwrap(), c);
        }

        #[test]
        fn struct_round_trip(
            a in any::<(u32, u32, u16, u16, u16, u16)>(),
            b in any::<(i64, i64, u64, u64, u32, u32, u32)>(),
            c in any::<(u32, u32, u32, u64, u32, u16, u16)>(),
            d in any::<(u16, u16, u16, u16, u16, u16)>(),
            e in any::<(u8, u8, u8, u8, i32, [u8; 12], u64)>(),
            cd in proptest::collection::vec(any::<u8>(), 128),
        ) {
            let code = KernelCode {
                amd_kernel_code_version_major: a.0, amd_kernel_code_version_minor: a.1,
                amd_machine_kind: a.2, amd_machine_version_major: a.3,
                amd_machine_version_minor: a.4, amd_machine_version_stepping: a.5,
                kernel_code_entry_byte_offset: b.0, kernel_code_prefetch_byte_offset: b.1,
                kernel_code_prefetch_byte_size: b.2, max_scratch_backing_memory_byte_size: b.3,
                compute_pgm_rsrc1: b.4, compute_pgm_rsrc2: b.5, code_properties: b.6,
                workitem_private_segment_byte_size: c.0, workgroup_group_segment_byte_size: c.1,
                gds_segment_byte_size: c.2, kernarg_segment_byte_size: c.3,
                workgroup_fbarrier_count: c.4, wavefront_sgpr_count: c.5, workitem_vgpr_count: c.6,
                reserved_vgpr_first: d.0, reserved_vgpr_count: d.1, reserved_sgpr_first: d.2,
                reserved_sgpr_count: d.3, debug_wavefront_private_segment_offset_sgpr: d.4,
                debug_private_segment_buffer_sgpr: d.5,
                kernarg_segment_alignment: e.0, group_segment_alignment: e.1,
                private_segment_alignment: e.2, wavefront_size: e.3, call_convention: e.4,
                reserved3: e.5, runtime_loader_kernel_symbol: e.6,
                control_directives: cd.as_slice().try_into().unwrap(),
            };
            prop_assert_eq!(KernelCode::parse(&code.to_bytes()).unwrap(), code);
        }

        #[test]
        fn any_bytes_any_target_never_panics(
            v in proptest::collection::vec(any::<u8>(), 0..300),
            ti in any::<proptest::sample::Index>(),
            x in 0u32..4,
            address in any::<u64>(),
        ) {
            let Ok(code) = KernelCode::parse(&v) else {
                prop_assert!(v.len() < KERNEL_CODE_SIZE);
                return Ok(());
            };
            if TARGETS.is_empty() { return Ok(()); }
            let target = &TARGETS[ti.index(TARGETS.len())];
            let xnack = FeatureSetting::from_field(x);
            let mut sink = run_all(&code, target, xnack);
            for v in &sink.violations {
                prop_assert!(v.offset.is_some_and(|o| (0x100..0x200).contains(&o)));
            }
            check_placement(&code, address, u64::MAX - 8, &mut sink);
            prop_assert!(!code.fields(target).is_empty());
            let st = crate::sgpr::v2::initial_state(&code, target);
            prop_assert!(st.sgprs.len() <= 16 && st.vgprs.len() <= 3);
            prop_assert!(crate::sgpr::v2::user_sgprs(&code).len() <= 10);
        }
    }
}
