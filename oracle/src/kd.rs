//! The 64-byte kernel descriptor of code object V3 and later: its fields,
//! their meaning per generation, the rules on reserved bits, and its
//! consistency with the kernel's metadata.
//!
//! Sources: amdgpu-usage.rst "Kernel Descriptor" and the
//! compute_pgm_rsrc1/2/3 tables; NOTES.md "Kernel descriptor"; LLVM
//! `llvm/include/llvm/Support/AMDHSAKernelDescriptor.h` (layout and bit
//! fields), `llvm/lib/Target/AMDGPU/Disassembler/AMDGPUDisassembler.cpp`
//! (which bits `llvm-objdump` rejects per generation),
//! `llvm/lib/Target/AMDGPU/AsmParser/AMDGPUAsmParser.cpp` (which
//! `.amdhsa_*` directives exist per target) and
//! `llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp` (register granules).
//! Every rule was checked against clang-19/llvm-mc-19 output: none fires on
//! what LLVM 19 produces, except where LLVM 19 itself is wrong, and those
//! rules are warnings (see each rule's statement).
//!
//! Placement (64-byte alignment, where the entry offset leads) is checked by
//! [`crate::symbols`], which knows addresses.

use crate::layout::{self, describe_set_bits, put, reserved_mask, take, Word};
use crate::rules::Sink;
use crate::targets::{CodeObjectVersion, Generation, Target};
use serde::Serialize;

crate::declare_rules! {
    RESERVED_BYTES = (Error, "kd.reserved_bytes",
        "Reserved bytes 12-15, 24-43 and 60-63 of the kernel descriptor are 0.",
        "amdgpu-usage.rst: Kernel Descriptor; AMDHSAKernelDescriptor.h; AMDGPUDisassembler.cpp (decodeKernelDescriptorDirective)");
    RSRC1_GRANULATED_SGPR_COUNT = (Info, "kd.rsrc1.granulated_sgpr_count",
        "On GFX10 and later GRANULATED_WAVEFRONT_SGPR_COUNT is reserved and must be 0 (the hardware ignores it; clang-19 still writes a non-zero value there, llvm-objdump-19 refuses to decode it, LLVM fixed this in PR 154666).",
        "amdgpu-usage.rst: compute_pgm_rsrc1; AMDGPUDisassembler.cpp (decodeCOMPUTE_PGM_RSRC1)");
    RSRC1_PRIORITY = (Error, "kd.rsrc1.priority",
        "compute_pgm_rsrc1 PRIORITY (bits 11:10) is 0: CP fills it in.",
        "amdgpu-usage.rst: compute_pgm_rsrc1; AMDGPUDisassembler.cpp");
    RSRC1_PRIV = (Error, "kd.rsrc1.priv",
        "compute_pgm_rsrc1 PRIV (bit 20) is 0: CP fills it in.",
        "amdgpu-usage.rst: compute_pgm_rsrc1; AMDGPUDisassembler.cpp");
    RSRC1_DEBUG_MODE = (Error, "kd.rsrc1.debug_mode",
        "compute_pgm_rsrc1 DEBUG_MODE (bit 22) is 0: CP fills it in.",
        "amdgpu-usage.rst: compute_pgm_rsrc1; AMDGPUDisassembler.cpp");
    RSRC1_BULKY = (Error, "kd.rsrc1.bulky",
        "compute_pgm_rsrc1 BULKY (bit 24) is 0: CP fills it in.",
        "amdgpu-usage.rst: compute_pgm_rsrc1; AMDGPUDisassembler.cpp");
    RSRC1_CDBG_USER = (Error, "kd.rsrc1.cdbg_user",
        "compute_pgm_rsrc1 CDBG_USER (bit 25) is 0: CP fills it in.",
        "amdgpu-usage.rst: compute_pgm_rsrc1; AMDGPUDisassembler.cpp");
    RSRC1_RESERVED = (Error, "kd.rsrc1.reserved",
        "Reserved compute_pgm_rsrc1 bits are 0: bit 28 everywhere, bit 27 before GFX12.5 (FLAT_SCRATCH_IS_NV), bit 26 (FP16_OVFL) before GFX9, bits 31:29 (WGP_MODE, MEM_ORDERED, FWD_PROGRESS) before GFX10.",
        "AMDHSAKernelDescriptor.h; AMDGPUDisassembler.cpp (decodeCOMPUTE_PGM_RSRC1)");
    RSRC2_TRAP_HANDLER = (Warning, "kd.rsrc2.trap_handler",
        "compute_pgm_rsrc2 ENABLE_TRAP_HANDLER (bit 6, GFX6-GFX11) should be 0: CP sets the trap bit itself when the runtime installed a trap handler, and no LLVM directive sets it.",
        "amdgpu-usage.rst: compute_pgm_rsrc2");
    RSRC2_EXCEPTION_ADDRESS_WATCH = (Error, "kd.rsrc2.exception_address_watch",
        "compute_pgm_rsrc2 ENABLE_EXCEPTION_ADDRESS_WATCH (bit 13) is 0: CP sets it as the runtime requests.",
        "amdgpu-usage.rst: compute_pgm_rsrc2; AMDGPUDisassembler.cpp");
    RSRC2_EXCEPTION_MEMORY = (Error, "kd.rsrc2.exception_memory",
        "compute_pgm_rsrc2 ENABLE_EXCEPTION_MEMORY (bit 14) is 0: CP sets it as the runtime requests.",
        "amdgpu-usage.rst: compute_pgm_rsrc2; AMDGPUDisassembler.cpp");
    RSRC2_GRANULATED_LDS_SIZE = (Error, "kd.rsrc2.granulated_lds_size",
        "compute_pgm_rsrc2 GRANULATED_LDS_SIZE (bits 23:15) is 0: CP uses the dispatch packet's group segment size instead.",
        "amdgpu-usage.rst: compute_pgm_rsrc2; AMDGPUDisassembler.cpp");
    RSRC2_RESERVED = (Error, "kd.rsrc2.reserved",
        "compute_pgm_rsrc2 bit 31 is 0 on GFX6-GFX11 (GFX12 defines it as WGP_TAKEOVER).",
        "AMDHSAKernelDescriptor.h; AMDGPUDisassembler.cpp (decodeCOMPUTE_PGM_RSRC2)");
    RSRC3_RESERVED = (Error, "kd.rsrc3.reserved",
        "compute_pgm_rsrc3 bits the generation does not define are 0: all of it on GFX6-GFX9 except gfx90a/gfx94x/gfx950 (ACCUM_OFFSET 5:0, TG_SPLIT 16); GFX10 defines only SHARED_VGPR_COUNT 3:0; GFX11 adds INST_PREF_SIZE 9:4, TRAP_ON_START 10, TRAP_ON_END 11, IMAGE_OP 31; GFX12 has INST_PREF_SIZE 11:4, GLG_EN 13, IMAGE_OP 31; GFX12.5 adds NAMED_BAR_CNT 16:14, ENABLE_DYNAMIC_VGPR 17, TCP_SPLIT 20:18, ENABLE_DIDT_THROTTLE 21.",
        "AMDHSAKernelDescriptor.h; AMDGPUDisassembler.cpp (decodeCOMPUTE_PGM_RSRC3)");
    RSRC3_SHARED_VGPR_COUNT_WAVE32 = (Warning, "kd.rsrc3.shared_vgpr_count_wave32",
        "SHARED_VGPR_COUNT applies to wave64 only; it should be 0 in a wave32 kernel (LLVM's assembler rejects it).",
        "amdgpu-usage.rst: compute_pgm_rsrc3 for GFX10; AMDGPUAsmParser.cpp (ParseDirectiveAMDHSAKernel)");
    RSRC3_SHARED_VGPR_COUNT_OVERFLOW = (Error, "kd.rsrc3.shared_vgpr_count_overflow",
        "2 * SHARED_VGPR_COUNT + GRANULATED_WORKITEM_VGPR_COUNT does not exceed 63 (GFX10-GFX11).",
        "amdgpu-usage.rst: compute_pgm_rsrc3 for GFX10; AMDGPUAsmParser.cpp (ParseDirectiveAMDHSAKernel)");
    RSRC3_ACCUM_OFFSET = (Error, "kd.rsrc3.accum_offset",
        "On gfx90a/gfx94x/gfx950 the first AGPR ((ACCUM_OFFSET + 1) * 4) lies within the VGPRs the descriptor allocates.",
        "AMDGPUAsmParser.cpp (accum_offset exceeds total VGPR allocation)");
    PROPERTIES_RESERVED = (Error, "kd.properties.reserved",
        "kernel_code_properties bits 9:7 (the removed grid work-group count enables) and 15:12 are 0.",
        "AMDHSAKernelDescriptor.h; AMDGPUDisassembler.cpp; NOTES.md: Kernel descriptor");
    PROPERTIES_WAVEFRONT_SIZE32 = (Error, "kd.properties.wavefront_size32",
        "ENABLE_WAVEFRONT_SIZE32 is 0 before GFX10, and otherwise selects a wave size the target supports.",
        "amdgpu-usage.rst: Kernel Descriptor; AMDGPUAsmParser.cpp (directive requires gfx10+); clang-22 (wavefrontsize64 cannot be specified on gfx1250); docs/errata.md GFX12.5 2");
    PROPERTIES_USES_DYNAMIC_STACK = (Info, "kd.properties.uses_dynamic_stack",
        "USES_DYNAMIC_STACK (bit 11) is defined from code object V5; clang-19 also sets it in V4 objects, where readers ignore it.",
        "AMDGPUDisassembler.cpp (printed only for COV5+); observed with clang-19 -mcode-object-version=4");
    KERNARG_PRELOAD_UNSUPPORTED = (Error, "kd.kernarg_preload.unsupported",
        "kernarg_preload is 0 on targets without kernarg preloading (only gfx90a, gfx94x, gfx950 and GFX12.5 have it).",
        "AMDGPUAsmParser.cpp (directive requires gfx90a+); NOTES.md: Kernel descriptor");
    KERNARG_PRELOAD_LENGTH = (Error, "kd.kernarg_preload.length",
        "KERNARG_PRELOAD_SPEC_LENGTH is at most the number of user SGPRs (16; 32 on GFX12.5).",
        "AMDGPUAsmParser.cpp (value out of range); amdgpu-usage.rst: Preloaded Kernel Arguments");
    KERNARG_PRELOAD_EXCEEDS_KERNARG_SIZE = (Error, "kd.kernarg_preload.exceeds_kernarg_size",
        "When kernarg_size is given (non-zero), the preloaded dwords (offset + length) lie within it.",
        "AMDGPUAsmParser.cpp (Kernarg preload length + offset is larger than the kernarg segment size)");
    METADATA_GROUP_SEGMENT_FIXED_SIZE = (Error, "kd.metadata.group_segment_fixed_size",
        "group_segment_fixed_size equals the kernel's .group_segment_fixed_size metadata.",
        "amdgpu-usage.rst: Code Object V3 Metadata; Kernel Descriptor");
    METADATA_PRIVATE_SEGMENT_FIXED_SIZE = (Error, "kd.metadata.private_segment_fixed_size",
        "private_segment_fixed_size equals the kernel's .private_segment_fixed_size metadata.",
        "amdgpu-usage.rst: Code Object V3 Metadata; Kernel Descriptor");
    METADATA_KERNARG_SEGMENT_SIZE = (Error, "kd.metadata.kernarg_segment_size",
        "A non-zero kernarg_size equals the kernel's .kernarg_segment_size metadata (clang-19 writes the same value to both, 8-aligned explicit size + 256 when hidden arguments are present, the exact explicit size otherwise).",
        "AMDHSAKernelDescriptor.h; observed with clang-19 for V4-V6");
    METADATA_WAVEFRONT_SIZE = (Error, "kd.metadata.wavefront_size",
        "The .wavefront_size metadata is 32 when ENABLE_WAVEFRONT_SIZE32 is set and 64 otherwise.",
        "amdgpu-usage.rst: Code Object V3 Metadata; Kernel Descriptor");
    METADATA_SGPR_COUNT = (Error, "kd.metadata.sgpr_count",
        "On GFX6-GFX9 the SGPRs the descriptor allocates (GRANULATED_WAVEFRONT_SGPR_COUNT, allocation granule 8 before GFX8 and 16 from GFX8) cover the .sgpr_count metadata.",
        "amdgpu-usage.rst: compute_pgm_rsrc1; AMDGPUBaseInfo.cpp (getNumSGPRBlocks, getSGPRAllocGranule)");
    METADATA_VGPR_COUNT = (Error, "kd.metadata.vgpr_count",
        "The VGPRs the descriptor allocates (GRANULATED_WORKITEM_VGPR_COUNT) cover the .vgpr_count and .agpr_count metadata (gfx90a family: .vgpr_count is the unified count and ACCUM_OFFSET + .agpr_count must fit too).",
        "amdgpu-usage.rst: compute_pgm_rsrc1; AMDGPUBaseInfo.cpp (getVGPREncodingGranule, getTotalNumVGPRs)");
    METADATA_ACCUM_OFFSET = (Warning, "kd.metadata.accum_offset",
        "On gfx90a/gfx94x/gfx950 the architectural VGPRs (.vgpr_count - .agpr_count) fit below ACCUM_OFFSET.",
        "AMDGPUAsmParser.cpp (.amdhsa_accum_offset); observed with clang-19 MFMA kernels");
    METADATA_USES_DYNAMIC_STACK = (Error, "kd.metadata.uses_dynamic_stack",
        "USES_DYNAMIC_STACK equals the kernel's .uses_dynamic_stack metadata (V5+).",
        "amdgpu-usage.rst: Code Object V5 Metadata; AMDHSAKernelDescriptor.h");
    METADATA_WORKGROUP_PROCESSOR_MODE = (Error, "kd.metadata.workgroup_processor_mode",
        "On targets with WGP mode, WGP_MODE (rsrc1 bit 29) equals the kernel's .workgroup_processor_mode metadata.",
        "amdgpu-usage.rst: Code Object V5 Metadata; compute_pgm_rsrc1");
}

pub use crate::layout::{offsets, KD_SIZE};

/// The most user SGPRs the hardware initializes (COMPUTE_USER_DATA_0..15).
pub const MAX_USER_SGPRS: u32 = 16;

/// The most user SGPRs `target` initializes (its table entry, or
/// [`MAX_USER_SGPRS`] where the entry has none).
pub fn max_user_sgprs(target: &Target) -> u32 {
    match target.max_user_sgprs {
        0 => MAX_USER_SGPRS,
        n => u32::from(n),
    }
}

/// A kernel descriptor, every field as stored (little-endian), reserved
/// ranges included so that [`KernelDescriptor::to_bytes`] reproduces the
/// input exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct KernelDescriptor {
    /// Bytes 0-3: fixed LDS bytes per work-group.
    pub group_segment_fixed_size: u32,
    /// Bytes 4-7: fixed scratch bytes per work-item.
    pub private_segment_fixed_size: u32,
    /// Bytes 8-11: kernarg segment size in bytes (0: not given).
    pub kernarg_size: u32,
    /// Bytes 12-15: reserved.
    pub reserved0: [u8; 4],
    /// Bytes 16-23: signed byte offset from the descriptor to the entry.
    pub kernel_code_entry_byte_offset: i64,
    /// Bytes 24-43: reserved.
    pub reserved1: [u8; 20],
    /// Bytes 44-47: COMPUTE_PGM_RSRC3 (GFX10+ and gfx90a family).
    pub compute_pgm_rsrc3: u32,
    /// Bytes 48-51: COMPUTE_PGM_RSRC1.
    pub compute_pgm_rsrc1: u32,
    /// Bytes 52-55: COMPUTE_PGM_RSRC2.
    pub compute_pgm_rsrc2: u32,
    /// Bytes 56-57: kernel code properties (user SGPR enables, wave32, ...).
    pub kernel_code_properties: u16,
    /// Bytes 58-59: kernarg preload specification (length 6:0, offset 15:7).
    pub kernarg_preload: u16,
    /// Bytes 60-63: reserved.
    pub reserved3: [u8; 4],
}

/// Accessors that read one row of [`crate::layout::FIELDS`] through the
/// type's `field` method: `name: u32 = ROW;` returns the value,
/// `name: bool = ROW;` whether it is non-zero.
macro_rules! bit_accessors {
    ($( $(#[$m:meta])* $name:ident: $ty:ident = $row:ident; )*) => {
        $(
            $(#[$m])*
            pub fn $name(&self) -> $ty {
                $crate::kd::bit_accessors!(@ $ty, self.field(&$crate::layout::$row))
            }
        )*
    };
    (@ u32, $e:expr) => { $e };
    (@ bool, $e:expr) => { $e != 0 };
}
pub(crate) use bit_accessors;

/// The accessors of the bits V3+ descriptors and V2's `amd_kernel_code_t`
/// share (same word, same bits, same meaning), for both `impl` blocks.
macro_rules! shared_accessors {
    () => {
        $crate::kd::bit_accessors! {
            /// rsrc1 5:0 GRANULATED_WORKITEM_VGPR_COUNT: VGPR blocks minus 1.
            granulated_workitem_vgpr_count: u32 = GRANULATED_WORKITEM_VGPR_COUNT;
            /// rsrc1 9:6 GRANULATED_WAVEFRONT_SGPR_COUNT: SGPR blocks minus 1
            /// (GFX6-GFX9; reserved from GFX10).
            granulated_wavefront_sgpr_count: u32 = GRANULATED_WAVEFRONT_SGPR_COUNT;
            /// rsrc1 11:10 PRIORITY (must be 0).
            priority: u32 = PRIORITY;
            /// rsrc1 13:12 FLOAT_ROUND_MODE_32.
            float_round_mode_32: u32 = FLOAT_ROUND_MODE_32;
            /// rsrc1 15:14 FLOAT_ROUND_MODE_16_64.
            float_round_mode_16_64: u32 = FLOAT_ROUND_MODE_16_64;
            /// rsrc1 17:16 FLOAT_DENORM_MODE_32.
            float_denorm_mode_32: u32 = FLOAT_DENORM_MODE_32;
            /// rsrc1 19:18 FLOAT_DENORM_MODE_16_64.
            float_denorm_mode_16_64: u32 = FLOAT_DENORM_MODE_16_64;
            /// rsrc1 20 PRIV (must be 0: CP fills it in).
            priv_mode: bool = PRIV;
            /// rsrc1 21 as ENABLE_DX10_CLAMP (its meaning on GFX6-GFX11).
            enable_dx10_clamp: bool = ENABLE_DX10_CLAMP;
            /// rsrc1 22 DEBUG_MODE (must be 0: CP fills it in).
            debug_mode: bool = DEBUG_MODE;
            /// rsrc1 23 as ENABLE_IEEE_MODE (its meaning on GFX6-GFX11).
            enable_ieee_mode: bool = ENABLE_IEEE_MODE;
            /// rsrc1 24 BULKY (must be 0: CP fills it in).
            bulky: bool = BULKY;
            /// rsrc1 25 CDBG_USER (must be 0: CP fills it in).
            cdbg_user: bool = CDBG_USER;
            /// rsrc1 26 FP16_OVFL (GFX9+; reserved before).
            fp16_ovfl: bool = FP16_OVFL;
            /// rsrc1 29 WGP_MODE (GFX10+; reserved before).
            wgp_mode: bool = WGP_MODE;
            /// rsrc1 30 MEM_ORDERED (GFX10+; reserved before).
            mem_ordered: bool = MEM_ORDERED;
            /// rsrc1 31 FWD_PROGRESS (GFX10+; reserved before).
            fwd_progress: bool = FWD_PROGRESS;
            /// rsrc2 6 ENABLE_TRAP_HANDLER (GFX6-GFX11; should be 0).
            enable_trap_handler: bool = ENABLE_TRAP_HANDLER;
            /// rsrc2 7 ENABLE_SGPR_WORKGROUP_ID_X.
            enable_sgpr_workgroup_id_x: bool = ENABLE_SGPR_WORKGROUP_ID_X;
            /// rsrc2 8 ENABLE_SGPR_WORKGROUP_ID_Y.
            enable_sgpr_workgroup_id_y: bool = ENABLE_SGPR_WORKGROUP_ID_Y;
            /// rsrc2 9 ENABLE_SGPR_WORKGROUP_ID_Z.
            enable_sgpr_workgroup_id_z: bool = ENABLE_SGPR_WORKGROUP_ID_Z;
            /// rsrc2 10 ENABLE_SGPR_WORKGROUP_INFO.
            enable_sgpr_workgroup_info: bool = ENABLE_SGPR_WORKGROUP_INFO;
            /// rsrc2 12:11 ENABLE_VGPR_WORKITEM_ID: 0 X, 1 X Y, 2 X Y Z, 3
            /// undefined.
            enable_vgpr_workitem_id: u32 = ENABLE_VGPR_WORKITEM_ID;
            /// rsrc2 13 ENABLE_EXCEPTION_ADDRESS_WATCH (must be 0).
            enable_exception_address_watch: bool = ENABLE_EXCEPTION_ADDRESS_WATCH;
            /// rsrc2 23:15 GRANULATED_LDS_SIZE (must be 0: CP uses the
            /// dispatch packet).
            granulated_lds_size: u32 = GRANULATED_LDS_SIZE;
            /// rsrc2 24 ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION.
            enable_exception_ieee_754_fp_invalid_operation: bool = ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION;
            /// rsrc2 25 ENABLE_EXCEPTION_FP_DENORMAL_SOURCE.
            enable_exception_fp_denormal_source: bool = ENABLE_EXCEPTION_FP_DENORMAL_SOURCE;
            /// rsrc2 26 ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO.
            enable_exception_ieee_754_fp_division_by_zero: bool = ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO;
            /// rsrc2 27 ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW.
            enable_exception_ieee_754_fp_overflow: bool = ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW;
            /// rsrc2 28 ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW.
            enable_exception_ieee_754_fp_underflow: bool = ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW;
            /// rsrc2 29 ENABLE_EXCEPTION_IEEE_754_FP_INEXACT.
            enable_exception_ieee_754_fp_inexact: bool = ENABLE_EXCEPTION_IEEE_754_FP_INEXACT;
            /// rsrc2 30 ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO.
            enable_exception_int_divide_by_zero: bool = ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO;
            /// Property 0 ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER (4 user SGPRs).
            enable_sgpr_private_segment_buffer: bool = ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER;
            /// Property 1 ENABLE_SGPR_DISPATCH_PTR (2 user SGPRs).
            enable_sgpr_dispatch_ptr: bool = ENABLE_SGPR_DISPATCH_PTR;
            /// Property 2 ENABLE_SGPR_QUEUE_PTR (2 user SGPRs).
            enable_sgpr_queue_ptr: bool = ENABLE_SGPR_QUEUE_PTR;
            /// Property 3 ENABLE_SGPR_KERNARG_SEGMENT_PTR (2 user SGPRs).
            enable_sgpr_kernarg_segment_ptr: bool = ENABLE_SGPR_KERNARG_SEGMENT_PTR;
            /// Property 4 ENABLE_SGPR_DISPATCH_ID (2 user SGPRs).
            enable_sgpr_dispatch_id: bool = ENABLE_SGPR_DISPATCH_ID;
            /// Property 5 ENABLE_SGPR_FLAT_SCRATCH_INIT (2 user SGPRs).
            enable_sgpr_flat_scratch_init: bool = ENABLE_SGPR_FLAT_SCRATCH_INIT;
            /// Property 6 ENABLE_SGPR_PRIVATE_SEGMENT_SIZE (1 user SGPR).
            enable_sgpr_private_segment_size: bool = ENABLE_SGPR_PRIVATE_SEGMENT_SIZE;
            /// Property 10 ENABLE_WAVEFRONT_SIZE32 (GFX10+).
            enable_wavefront_size32: bool = ENABLE_WAVEFRONT_SIZE32;
        }
    };
}
pub(crate) use shared_accessors;

impl KernelDescriptor {
    /// Decodes 64 bytes. Every bit pattern is a descriptor; [`Self::check`]
    /// says which are valid.
    pub fn parse(bytes: &[u8; KD_SIZE]) -> Self {
        Self {
            group_segment_fixed_size: u32::from_le_bytes(take(bytes, 0)),
            private_segment_fixed_size: u32::from_le_bytes(take(bytes, 4)),
            kernarg_size: u32::from_le_bytes(take(bytes, 8)),
            reserved0: take(bytes, 12),
            kernel_code_entry_byte_offset: i64::from_le_bytes(take(bytes, 16)),
            reserved1: take(bytes, 24),
            compute_pgm_rsrc3: u32::from_le_bytes(take(bytes, 44)),
            compute_pgm_rsrc1: u32::from_le_bytes(take(bytes, 48)),
            compute_pgm_rsrc2: u32::from_le_bytes(take(bytes, 52)),
            kernel_code_properties: u16::from_le_bytes(take(bytes, 56)),
            kernarg_preload: u16::from_le_bytes(take(bytes, 58)),
            reserved3: take(bytes, 60),
        }
    }

    /// Decodes the first 64 bytes of `bytes`, or `None` if there are fewer.
    pub fn from_slice(bytes: &[u8]) -> Option<Self> {
        let arr: &[u8; KD_SIZE] = bytes.get(..KD_SIZE)?.try_into().ok()?;
        Some(Self::parse(arr))
    }

    /// Encodes the descriptor; the inverse of [`Self::parse`].
    pub fn to_bytes(&self) -> [u8; KD_SIZE] {
        let mut out = [0u8; KD_SIZE];
        put(&mut out, 0, &self.group_segment_fixed_size.to_le_bytes());
        put(&mut out, 4, &self.private_segment_fixed_size.to_le_bytes());
        put(&mut out, 8, &self.kernarg_size.to_le_bytes());
        put(&mut out, 12, &self.reserved0);
        put(
            &mut out,
            16,
            &self.kernel_code_entry_byte_offset.to_le_bytes(),
        );
        put(&mut out, 24, &self.reserved1);
        put(&mut out, 44, &self.compute_pgm_rsrc3.to_le_bytes());
        put(&mut out, 48, &self.compute_pgm_rsrc1.to_le_bytes());
        put(&mut out, 52, &self.compute_pgm_rsrc2.to_le_bytes());
        put(&mut out, 56, &self.kernel_code_properties.to_le_bytes());
        put(&mut out, 58, &self.kernarg_preload.to_le_bytes());
        put(&mut out, 60, &self.reserved3);
        out
    }

    /// The value of `f` in this descriptor.
    pub fn field(&self, f: &layout::BitField) -> u32 {
        f.get(self.word(f.word))
    }
    /// The descriptor word `w`.
    pub fn word(&self, w: layout::Word) -> u32 {
        match w {
            layout::Word::Rsrc1 => self.compute_pgm_rsrc1,
            layout::Word::Rsrc2 => self.compute_pgm_rsrc2,
            layout::Word::Rsrc3 => self.compute_pgm_rsrc3,
            layout::Word::Properties => self.kernel_code_properties.into(),
            layout::Word::KernargPreload => self.kernarg_preload.into(),
        }
    }

    crate::kd::shared_accessors!();

    bit_accessors! {
        /// rsrc1 21 as ENABLE_WG_RR_EN, round-robin work-group scheduling
        /// (its meaning on GFX12).
        enable_wg_rr_en: bool = ENABLE_WG_RR_EN;
        /// rsrc1 23 as DISABLE_PERF (its meaning on GFX12).
        disable_perf: bool = DISABLE_PERF;
        /// rsrc2 0 ENABLE_PRIVATE_SEGMENT (scratch; also the wave offset
        /// SGPR on targets without architected flat scratch).
        enable_private_segment: bool = ENABLE_PRIVATE_SEGMENT;
        /// rsrc2 14 ENABLE_EXCEPTION_MEMORY (must be 0).
        enable_exception_memory: bool = ENABLE_EXCEPTION_MEMORY;
        /// rsrc2 31 as WGP_TAKEOVER (its meaning on GFX12; reserved before).
        wgp_takeover: bool = WGP_TAKEOVER;
        /// rsrc3 5:0 ACCUM_OFFSET field (gfx90a family): first AGPR / 4 - 1.
        accum_offset_field: u32 = ACCUM_OFFSET;
        /// rsrc3 16 TG_SPLIT (gfx90a family).
        tg_split: bool = TG_SPLIT;
        /// rsrc3 3:0 SHARED_VGPR_COUNT (GFX10-GFX11, wave64).
        shared_vgpr_count: u32 = SHARED_VGPR_COUNT;
        /// rsrc3 10 TRAP_ON_START (GFX11).
        trap_on_start: bool = TRAP_ON_START;
        /// rsrc3 11 TRAP_ON_END (GFX11).
        trap_on_end: bool = TRAP_ON_END;
        /// rsrc3 13 GLG_EN, group launch guarantee (GFX12).
        glg_en: bool = GLG_EN;
        /// rsrc3 31 IMAGE_OP (GFX11+).
        image_op: bool = IMAGE_OP;
        /// Property 11 USES_DYNAMIC_STACK (V5+).
        uses_dynamic_stack: bool = USES_DYNAMIC_STACK;
        /// KERNARG_PRELOAD_SPEC_LENGTH (bits 6:0): dwords preloaded into
        /// SGPRs.
        kernarg_preload_length: u32 = KERNARG_PRELOAD_SPEC_LENGTH;
        /// KERNARG_PRELOAD_SPEC_OFFSET (bits 15:7): first preloaded dword.
        kernarg_preload_offset: u32 = KERNARG_PRELOAD_SPEC_OFFSET;
    }

    /// rsrc2 USER_SGPR_COUNT as `target` lays it out: bits 5:1, 6:1 on
    /// GFX12.5.
    pub fn user_sgpr_count(&self, target: &Target) -> u32 {
        self.field(layout::user_sgpr_count_field(target))
    }

    /// The first AGPR's unified VGPR index, `(ACCUM_OFFSET + 1) * 4`
    /// (gfx90a family).
    pub fn accum_offset(&self) -> u32 {
        (self.accum_offset_field() + 1) * 4
    }
    /// INST_PREF_SIZE: rsrc3 9:4 on GFX11, 11:4 on GFX12 (0 elsewhere).
    pub fn inst_pref_size(&self, generation: Generation) -> u32 {
        match generation {
            Generation::Gfx11 => self.field(&layout::INST_PREF_SIZE_GFX11),
            Generation::Gfx12 => self.field(&layout::INST_PREF_SIZE_GFX12),
            _ => 0,
        }
    }

    // ---- derived -----------------------------------------------------------

    /// True if the kernel runs in wave32 on `target` (the wave32 bit only
    /// counts from GFX10).
    pub fn wave32(&self, target: &Target) -> bool {
        target.generation >= Generation::Gfx10 && self.enable_wavefront_size32()
    }

    /// VGPRs the descriptor allocates per work-item (for the gfx90a family,
    /// architectural and accumulation VGPRs together).
    pub fn allocated_vgprs(&self, target: &Target) -> u32 {
        max_vgprs_for_granulated(
            target,
            self.wave32(target),
            self.granulated_workitem_vgpr_count(),
        )
    }

    /// SGPRs the hardware allocates per wave on GFX6-GFX9, with the
    /// allocation granule applied (`None` from GFX10, where the field is
    /// ignored and a fixed block is allocated).
    pub fn allocated_sgprs(&self, target: &Target) -> Option<u32> {
        allocated_sgprs_hw(target, self.granulated_wavefront_sgpr_count())
    }
}

/// One descriptor field as [`KernelDescriptor::fields`] lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Field {
    /// Descriptor field name, `register.field` for bit fields.
    pub name: &'static str,
    /// Raw value of the field.
    pub value: u64,
    /// What the value means, for a person.
    pub meaning: String,
}

/// The metadata keys of one kernel that the descriptor must agree with.
/// `None` means the key is absent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct MetadataFacts {
    /// `.sgpr_count`.
    pub sgpr_count: Option<u64>,
    /// `.vgpr_count`.
    pub vgpr_count: Option<u64>,
    /// `.agpr_count`.
    pub agpr_count: Option<u64>,
    /// `.wavefront_size`.
    pub wavefront_size: Option<u64>,
    /// `.group_segment_fixed_size`.
    pub group_segment_fixed_size: Option<u64>,
    /// `.private_segment_fixed_size`.
    pub private_segment_fixed_size: Option<u64>,
    /// `.kernarg_segment_size`.
    pub kernarg_segment_size: Option<u64>,
    /// `.uses_dynamic_stack` (V5+).
    pub uses_dynamic_stack: Option<bool>,
    /// `.workgroup_processor_mode` (V5+, GFX10+).
    pub workgroup_processor_mode: Option<bool>,
}

/// SGPR encoding granule of GRANULATED_WAVEFRONT_SGPR_COUNT: 8 on every
/// target (LLVM `getSGPREncodingGranule`).
pub const SGPR_ENCODING_GRANULE: u32 = 8;

/// VGPR encoding granule of GRANULATED_WORKITEM_VGPR_COUNT (LLVM
/// `getVGPREncodingGranule`), as the targets table gives it: 4 in wave64
/// (8 on the gfx90a family and GFX12.5), 8 in wave32 (16 on GFX12.5).
pub fn vgpr_encoding_granule(target: &Target, wave32: bool) -> u32 {
    let g = if wave32 {
        target.vgpr_encoding_granule_wave32
    } else {
        target.vgpr_encoding_granule_wave64
    };
    u32::from(g).max(1)
}

/// SGPR allocation granule of the hardware on GFX6-GFX9 (LLVM
/// `getSGPRAllocGranule`): 8 before GFX8, 16 from GFX8.
fn sgpr_alloc_granule(target: &Target) -> u32 {
    if target.generation >= Generation::Gfx8 {
        16
    } else {
        8
    }
}

fn blocks_minus_one(n: u32, granule: u32) -> u32 {
    n.max(1).div_ceil(granule.max(1)) - 1
}

/// The GRANULATED_WAVEFRONT_SGPR_COUNT LLVM writes for a kernel using
/// `sgprs` SGPRs (VCC, FLAT_SCRATCH and XNACK_MASK included): 0 from GFX10,
/// else `ceil(max(1, sgprs) / 8) - 1`. Not clamped to the 4-bit field.
pub fn granulated_sgpr_count(target: &Target, sgprs: u32) -> u32 {
    if target.generation >= Generation::Gfx10 {
        0
    } else {
        blocks_minus_one(sgprs, SGPR_ENCODING_GRANULE)
    }
}

/// The register count GRANULATED_WORKITEM_VGPR_COUNT must cover for
/// `vgprs` architectural and `agprs` accumulation VGPRs (LLVM
/// `getTotalNumVGPRs`): on the gfx90a family with AGPRs,
/// `align(vgprs, 4) + agprs`; otherwise `max(vgprs, agprs)`.
pub fn total_vgprs(target: &Target, vgprs: u32, agprs: u32) -> u32 {
    if target.accum_offset && agprs > 0 {
        vgprs
            .saturating_add(3)
            .saturating_sub(vgprs.saturating_add(3) % 4)
            .saturating_add(agprs)
    } else {
        vgprs.max(agprs)
    }
}

/// The GRANULATED_WORKITEM_VGPR_COUNT LLVM writes for `vgprs`
/// architectural and `agprs` accumulation VGPRs. Not clamped to the 6-bit
/// field.
pub fn granulated_vgpr_count(target: &Target, wave32: bool, vgprs: u32, agprs: u32) -> u32 {
    blocks_minus_one(
        total_vgprs(target, vgprs, agprs),
        vgpr_encoding_granule(target, wave32),
    )
}

/// The most SGPRs a GRANULATED_WAVEFRONT_SGPR_COUNT value `g` covers by the
/// encoding granule, `(g + 1) * 8`; what `llvm-objdump` prints as
/// `.amdhsa_next_free_sgpr` (GFX10+ ignore the field).
pub fn max_sgprs_for_granulated(target: &Target, g: u32) -> u32 {
    let _ = target;
    g.saturating_add(1).saturating_mul(SGPR_ENCODING_GRANULE)
}

/// The most VGPRs a GRANULATED_WORKITEM_VGPR_COUNT value `g` covers,
/// `(g + 1) * granule`; what `llvm-objdump` prints as
/// `.amdhsa_next_free_vgpr`.
pub fn max_vgprs_for_granulated(target: &Target, wave32: bool, g: u32) -> u32 {
    g.saturating_add(1)
        .saturating_mul(vgpr_encoding_granule(target, wave32))
}

/// SGPRs the hardware allocates for GRANULATED_WAVEFRONT_SGPR_COUNT `g` on
/// GFX6-GFX9: the encoded count rounded up to the allocation granule (so a
/// producer following the documents' GFX9 formula, which encodes in pairs
/// of blocks, is not flagged). `None` from GFX10.
fn allocated_sgprs_hw(target: &Target, g: u32) -> Option<u32> {
    if target.generation >= Generation::Gfx10 {
        return None;
    }
    let n = max_sgprs_for_granulated(target, g);
    let gran = sgpr_alloc_granule(target);
    Some(n.div_ceil(gran).saturating_mul(gran))
}

pub(crate) mod checks;
pub(crate) mod fields;
#[cfg(test)]
pub(crate) mod tests;
