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

use crate::layout::{self, reserved_mask, Word};
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
        "Reserved compute_pgm_rsrc1 bits are 0: bits 28:27 everywhere, bit 26 (FP16_OVFL) before GFX9, bits 31:29 (WGP_MODE, MEM_ORDERED, FWD_PROGRESS) before GFX10.",
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
        "compute_pgm_rsrc3 bits the generation does not define are 0: all of it on GFX6-GFX9 except gfx90a/gfx94x/gfx950 (ACCUM_OFFSET 5:0, TG_SPLIT 16); GFX10 defines only SHARED_VGPR_COUNT 3:0; GFX11 adds INST_PREF_SIZE 9:4, TRAP_ON_START 10, TRAP_ON_END 11, IMAGE_OP 31; GFX12 has INST_PREF_SIZE 11:4, GLG_EN 13, IMAGE_OP 31.",
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
        "amdgpu-usage.rst: Kernel Descriptor; AMDGPUAsmParser.cpp (directive requires gfx10+)");
    PROPERTIES_USES_DYNAMIC_STACK = (Info, "kd.properties.uses_dynamic_stack",
        "USES_DYNAMIC_STACK (bit 11) is defined from code object V5; clang-19 also sets it in V4 objects, where readers ignore it.",
        "AMDGPUDisassembler.cpp (printed only for COV5+); observed with clang-19 -mcode-object-version=4");
    KERNARG_PRELOAD_UNSUPPORTED = (Error, "kd.kernarg_preload.unsupported",
        "kernarg_preload is 0 on targets without kernarg preloading (only gfx90a, gfx94x, gfx950 have it).",
        "AMDGPUAsmParser.cpp (directive requires gfx90a+); NOTES.md: Kernel descriptor");
    KERNARG_PRELOAD_LENGTH = (Error, "kd.kernarg_preload.length",
        "KERNARG_PRELOAD_SPEC_LENGTH is at most 16 (the number of user SGPRs).",
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

/// Copies `N` bytes at `at`; the callers pass constant in-range offsets,
/// and an out-of-range byte would read as 0 rather than panic.
fn take<const N: usize>(b: &[u8; KD_SIZE], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = b.get(at + i).copied().unwrap_or(0);
    }
    out
}

fn put(out: &mut [u8; KD_SIZE], at: usize, src: &[u8]) {
    for (i, s) in src.iter().enumerate() {
        if let Some(o) = out.get_mut(at + i) {
            *o = *s;
        }
    }
}

/// Returns `(first, last)` bit indices of a contiguous non-empty mask.
fn mask_range(mask: u32) -> (u32, u32) {
    (mask.trailing_zeros(), 31 - mask.leading_zeros())
}

fn describe_bits(mask: u32) -> String {
    let (lo, hi) = mask_range(mask);
    if lo == hi {
        format!("bit {lo}")
    } else {
        format!("bits {hi}:{lo}")
    }
}

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

    // ---- compute_pgm_rsrc1 -------------------------------------------------

    /// rsrc1 5:0 GRANULATED_WORKITEM_VGPR_COUNT: VGPR blocks minus 1.
    pub fn granulated_workitem_vgpr_count(&self) -> u32 {
        self.field(&layout::GRANULATED_WORKITEM_VGPR_COUNT)
    }
    /// rsrc1 9:6 GRANULATED_WAVEFRONT_SGPR_COUNT: SGPR blocks minus 1
    /// (GFX6-GFX9; reserved from GFX10).
    pub fn granulated_wavefront_sgpr_count(&self) -> u32 {
        self.field(&layout::GRANULATED_WAVEFRONT_SGPR_COUNT)
    }
    /// rsrc1 11:10 PRIORITY (must be 0).
    pub fn priority(&self) -> u32 {
        self.field(&layout::PRIORITY)
    }
    /// rsrc1 13:12 FLOAT_ROUND_MODE_32.
    pub fn float_round_mode_32(&self) -> u32 {
        self.field(&layout::FLOAT_ROUND_MODE_32)
    }
    /// rsrc1 15:14 FLOAT_ROUND_MODE_16_64.
    pub fn float_round_mode_16_64(&self) -> u32 {
        self.field(&layout::FLOAT_ROUND_MODE_16_64)
    }
    /// rsrc1 17:16 FLOAT_DENORM_MODE_32.
    pub fn float_denorm_mode_32(&self) -> u32 {
        self.field(&layout::FLOAT_DENORM_MODE_32)
    }
    /// rsrc1 19:18 FLOAT_DENORM_MODE_16_64.
    pub fn float_denorm_mode_16_64(&self) -> u32 {
        self.field(&layout::FLOAT_DENORM_MODE_16_64)
    }
    /// rsrc1 20 PRIV (must be 0).
    pub fn priv_mode(&self) -> bool {
        self.field(&layout::PRIV) != 0
    }
    /// rsrc1 21 as ENABLE_DX10_CLAMP (its meaning on GFX6-GFX11).
    pub fn enable_dx10_clamp(&self) -> bool {
        self.field(&layout::ENABLE_DX10_CLAMP) != 0
    }
    /// rsrc1 21 as ENABLE_WG_RR_EN, round-robin work-group scheduling (its
    /// meaning on GFX12).
    pub fn enable_wg_rr_en(&self) -> bool {
        self.field(&layout::ENABLE_WG_RR_EN) != 0
    }
    /// rsrc1 22 DEBUG_MODE (must be 0).
    pub fn debug_mode(&self) -> bool {
        self.field(&layout::DEBUG_MODE) != 0
    }
    /// rsrc1 23 as ENABLE_IEEE_MODE (its meaning on GFX6-GFX11).
    pub fn enable_ieee_mode(&self) -> bool {
        self.field(&layout::ENABLE_IEEE_MODE) != 0
    }
    /// rsrc1 23 as DISABLE_PERF (its meaning on GFX12).
    pub fn disable_perf(&self) -> bool {
        self.field(&layout::DISABLE_PERF) != 0
    }
    /// rsrc1 24 BULKY (must be 0).
    pub fn bulky(&self) -> bool {
        self.field(&layout::BULKY) != 0
    }
    /// rsrc1 25 CDBG_USER (must be 0).
    pub fn cdbg_user(&self) -> bool {
        self.field(&layout::CDBG_USER) != 0
    }
    /// rsrc1 26 FP16_OVFL (GFX9+; reserved before).
    pub fn fp16_ovfl(&self) -> bool {
        self.field(&layout::FP16_OVFL) != 0
    }
    /// rsrc1 29 WGP_MODE (GFX10+; reserved before).
    pub fn wgp_mode(&self) -> bool {
        self.field(&layout::WGP_MODE) != 0
    }
    /// rsrc1 30 MEM_ORDERED (GFX10+; reserved before).
    pub fn mem_ordered(&self) -> bool {
        self.field(&layout::MEM_ORDERED) != 0
    }
    /// rsrc1 31 FWD_PROGRESS (GFX10+; reserved before).
    pub fn fwd_progress(&self) -> bool {
        self.field(&layout::FWD_PROGRESS) != 0
    }

    // ---- compute_pgm_rsrc2 -------------------------------------------------

    /// rsrc2 0 ENABLE_PRIVATE_SEGMENT (scratch; also the wave offset SGPR
    /// on targets without architected flat scratch).
    pub fn enable_private_segment(&self) -> bool {
        self.field(&layout::ENABLE_PRIVATE_SEGMENT) != 0
    }
    /// rsrc2 5:1 USER_SGPR_COUNT.
    pub fn user_sgpr_count(&self) -> u32 {
        self.field(&layout::USER_SGPR_COUNT)
    }
    /// rsrc2 6 ENABLE_TRAP_HANDLER (GFX6-GFX11; should be 0).
    pub fn enable_trap_handler(&self) -> bool {
        self.field(&layout::ENABLE_TRAP_HANDLER) != 0
    }
    /// rsrc2 7 ENABLE_SGPR_WORKGROUP_ID_X.
    pub fn enable_sgpr_workgroup_id_x(&self) -> bool {
        self.field(&layout::ENABLE_SGPR_WORKGROUP_ID_X) != 0
    }
    /// rsrc2 8 ENABLE_SGPR_WORKGROUP_ID_Y.
    pub fn enable_sgpr_workgroup_id_y(&self) -> bool {
        self.field(&layout::ENABLE_SGPR_WORKGROUP_ID_Y) != 0
    }
    /// rsrc2 9 ENABLE_SGPR_WORKGROUP_ID_Z.
    pub fn enable_sgpr_workgroup_id_z(&self) -> bool {
        self.field(&layout::ENABLE_SGPR_WORKGROUP_ID_Z) != 0
    }
    /// rsrc2 10 ENABLE_SGPR_WORKGROUP_INFO.
    pub fn enable_sgpr_workgroup_info(&self) -> bool {
        self.field(&layout::ENABLE_SGPR_WORKGROUP_INFO) != 0
    }
    /// rsrc2 12:11 ENABLE_VGPR_WORKITEM_ID: 0 X, 1 X Y, 2 X Y Z, 3 undefined.
    pub fn enable_vgpr_workitem_id(&self) -> u32 {
        self.field(&layout::ENABLE_VGPR_WORKITEM_ID)
    }
    /// rsrc2 13 ENABLE_EXCEPTION_ADDRESS_WATCH (must be 0).
    pub fn enable_exception_address_watch(&self) -> bool {
        self.field(&layout::ENABLE_EXCEPTION_ADDRESS_WATCH) != 0
    }
    /// rsrc2 14 ENABLE_EXCEPTION_MEMORY (must be 0).
    pub fn enable_exception_memory(&self) -> bool {
        self.field(&layout::ENABLE_EXCEPTION_MEMORY) != 0
    }
    /// rsrc2 23:15 GRANULATED_LDS_SIZE (must be 0).
    pub fn granulated_lds_size(&self) -> u32 {
        self.field(&layout::GRANULATED_LDS_SIZE)
    }
    /// rsrc2 24 ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION.
    pub fn enable_exception_ieee_754_fp_invalid_operation(&self) -> bool {
        self.field(&layout::ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION) != 0
    }
    /// rsrc2 25 ENABLE_EXCEPTION_FP_DENORMAL_SOURCE.
    pub fn enable_exception_fp_denormal_source(&self) -> bool {
        self.field(&layout::ENABLE_EXCEPTION_FP_DENORMAL_SOURCE) != 0
    }
    /// rsrc2 26 ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO.
    pub fn enable_exception_ieee_754_fp_division_by_zero(&self) -> bool {
        self.field(&layout::ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO) != 0
    }
    /// rsrc2 27 ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW.
    pub fn enable_exception_ieee_754_fp_overflow(&self) -> bool {
        self.field(&layout::ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW) != 0
    }
    /// rsrc2 28 ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW.
    pub fn enable_exception_ieee_754_fp_underflow(&self) -> bool {
        self.field(&layout::ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW) != 0
    }
    /// rsrc2 29 ENABLE_EXCEPTION_IEEE_754_FP_INEXACT.
    pub fn enable_exception_ieee_754_fp_inexact(&self) -> bool {
        self.field(&layout::ENABLE_EXCEPTION_IEEE_754_FP_INEXACT) != 0
    }
    /// rsrc2 30 ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO.
    pub fn enable_exception_int_divide_by_zero(&self) -> bool {
        self.field(&layout::ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO) != 0
    }
    /// rsrc2 31 as WGP_TAKEOVER (its meaning on GFX12; reserved before).
    pub fn wgp_takeover(&self) -> bool {
        self.field(&layout::WGP_TAKEOVER) != 0
    }

    // ---- compute_pgm_rsrc3 -------------------------------------------------

    /// rsrc3 5:0 ACCUM_OFFSET field (gfx90a family): first AGPR / 4 - 1.
    pub fn accum_offset_field(&self) -> u32 {
        self.field(&layout::ACCUM_OFFSET)
    }
    /// The first AGPR's unified VGPR index, `(ACCUM_OFFSET + 1) * 4`
    /// (gfx90a family).
    pub fn accum_offset(&self) -> u32 {
        (self.accum_offset_field() + 1) * 4
    }
    /// rsrc3 16 TG_SPLIT (gfx90a family).
    pub fn tg_split(&self) -> bool {
        self.field(&layout::TG_SPLIT) != 0
    }
    /// rsrc3 3:0 SHARED_VGPR_COUNT (GFX10-GFX11, wave64).
    pub fn shared_vgpr_count(&self) -> u32 {
        self.field(&layout::SHARED_VGPR_COUNT)
    }
    /// INST_PREF_SIZE: rsrc3 9:4 on GFX11, 11:4 on GFX12 (0 elsewhere).
    pub fn inst_pref_size(&self, generation: Generation) -> u32 {
        match generation {
            Generation::Gfx11 => self.field(&layout::INST_PREF_SIZE_GFX11),
            Generation::Gfx12 => self.field(&layout::INST_PREF_SIZE_GFX12),
            _ => 0,
        }
    }
    /// rsrc3 10 TRAP_ON_START (GFX11).
    pub fn trap_on_start(&self) -> bool {
        self.field(&layout::TRAP_ON_START) != 0
    }
    /// rsrc3 11 TRAP_ON_END (GFX11).
    pub fn trap_on_end(&self) -> bool {
        self.field(&layout::TRAP_ON_END) != 0
    }
    /// rsrc3 13 GLG_EN, group launch guarantee (GFX12).
    pub fn glg_en(&self) -> bool {
        self.field(&layout::GLG_EN) != 0
    }
    /// rsrc3 31 IMAGE_OP (GFX11+).
    pub fn image_op(&self) -> bool {
        self.field(&layout::IMAGE_OP) != 0
    }

    // ---- kernel_code_properties --------------------------------------------

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
    /// Property 0 ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER (4 user SGPRs).
    pub fn enable_sgpr_private_segment_buffer(&self) -> bool {
        self.field(&layout::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER) != 0
    }
    /// Property 1 ENABLE_SGPR_DISPATCH_PTR (2 user SGPRs).
    pub fn enable_sgpr_dispatch_ptr(&self) -> bool {
        self.field(&layout::ENABLE_SGPR_DISPATCH_PTR) != 0
    }
    /// Property 2 ENABLE_SGPR_QUEUE_PTR (2 user SGPRs).
    pub fn enable_sgpr_queue_ptr(&self) -> bool {
        self.field(&layout::ENABLE_SGPR_QUEUE_PTR) != 0
    }
    /// Property 3 ENABLE_SGPR_KERNARG_SEGMENT_PTR (2 user SGPRs).
    pub fn enable_sgpr_kernarg_segment_ptr(&self) -> bool {
        self.field(&layout::ENABLE_SGPR_KERNARG_SEGMENT_PTR) != 0
    }
    /// Property 4 ENABLE_SGPR_DISPATCH_ID (2 user SGPRs).
    pub fn enable_sgpr_dispatch_id(&self) -> bool {
        self.field(&layout::ENABLE_SGPR_DISPATCH_ID) != 0
    }
    /// Property 5 ENABLE_SGPR_FLAT_SCRATCH_INIT (2 user SGPRs).
    pub fn enable_sgpr_flat_scratch_init(&self) -> bool {
        self.field(&layout::ENABLE_SGPR_FLAT_SCRATCH_INIT) != 0
    }
    /// Property 6 ENABLE_SGPR_PRIVATE_SEGMENT_SIZE (1 user SGPR).
    pub fn enable_sgpr_private_segment_size(&self) -> bool {
        self.field(&layout::ENABLE_SGPR_PRIVATE_SEGMENT_SIZE) != 0
    }
    /// Property 10 ENABLE_WAVEFRONT_SIZE32 (GFX10+).
    pub fn enable_wavefront_size32(&self) -> bool {
        self.field(&layout::ENABLE_WAVEFRONT_SIZE32) != 0
    }
    /// Property 11 USES_DYNAMIC_STACK (V5+).
    pub fn uses_dynamic_stack(&self) -> bool {
        self.field(&layout::USES_DYNAMIC_STACK) != 0
    }

    // ---- kernarg_preload ---------------------------------------------------

    /// KERNARG_PRELOAD_SPEC_LENGTH (bits 6:0): dwords preloaded into SGPRs.
    pub fn kernarg_preload_length(&self) -> u32 {
        self.field(&layout::KERNARG_PRELOAD_SPEC_LENGTH)
    }
    /// KERNARG_PRELOAD_SPEC_OFFSET (bits 15:7): first preloaded dword.
    pub fn kernarg_preload_offset(&self) -> u32 {
        self.field(&layout::KERNARG_PRELOAD_SPEC_OFFSET)
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

    /// Checks every field rule that needs only the descriptor, the target
    /// and the code object version. `offset` is the descriptor's file
    /// offset; violations point at the offending field.
    pub fn check(&self, target: &Target, cov: CodeObjectVersion, offset: u64, sink: &mut Sink) {
        let gen = target.generation;
        let at = |field: u64| offset.saturating_add(field);

        for (start, bytes) in [
            (offsets::RESERVED0, &self.reserved0[..]),
            (offsets::RESERVED1, &self.reserved1[..]),
            (offsets::RESERVED3, &self.reserved3[..]),
        ] {
            if let Some(i) = bytes.iter().position(|&b| b != 0) {
                let first = start + i as u64;
                sink.report_at(
                    &RESERVED_BYTES,
                    at(first),
                    format!(
                        "reserved descriptor bytes {start}..{} are not zero (byte {first} is {:#04x})",
                        start + bytes.len() as u64,
                        bytes.get(i).copied().unwrap_or(0)
                    ),
                );
            }
        }

        self.check_rsrc1(target, at(offsets::COMPUTE_PGM_RSRC1), sink);
        self.check_rsrc2(target, at(offsets::COMPUTE_PGM_RSRC2), sink);
        self.check_rsrc3(target, at(offsets::COMPUTE_PGM_RSRC3), sink);

        // kernel_code_properties
        let props = u32::from(self.kernel_code_properties);
        let reserved = props & reserved_mask(Word::Properties, target);
        if reserved != 0 {
            sink.report_at(
                &PROPERTIES_RESERVED,
                at(offsets::KERNEL_CODE_PROPERTIES),
                format!(
                    "kernel_code_properties {:#06x} has reserved {} set",
                    self.kernel_code_properties,
                    describe_set_bits(reserved)
                ),
            );
        }
        let w32 = self.enable_wavefront_size32();
        if gen < Generation::Gfx10 {
            if w32 {
                sink.report_at(
                    &PROPERTIES_WAVEFRONT_SIZE32,
                    at(offsets::KERNEL_CODE_PROPERTIES),
                    format!(
                        "ENABLE_WAVEFRONT_SIZE32 is set, but {target} ({gen:?}) has no wave32 mode"
                    ),
                );
            }
        } else if w32 && !target.wave32 {
            sink.report_at(
                &PROPERTIES_WAVEFRONT_SIZE32,
                at(offsets::KERNEL_CODE_PROPERTIES),
                format!("ENABLE_WAVEFRONT_SIZE32 is set, but {target} does not support wave32"),
            );
        } else if !w32 && !target.wave64 {
            sink.report_at(
                &PROPERTIES_WAVEFRONT_SIZE32,
                at(offsets::KERNEL_CODE_PROPERTIES),
                format!("ENABLE_WAVEFRONT_SIZE32 is clear (wave64), but {target} does not support wave64"),
            );
        }
        if self.uses_dynamic_stack() && cov < CodeObjectVersion::V5 {
            sink.report_at(
                &PROPERTIES_USES_DYNAMIC_STACK,
                at(offsets::KERNEL_CODE_PROPERTIES),
                format!("USES_DYNAMIC_STACK is set in a code object {cov} descriptor, where the bit is not defined"),
            );
        }

        // kernarg_preload
        if self.kernarg_preload != 0 {
            if !target.kernarg_preload {
                sink.report_at(
                    &KERNARG_PRELOAD_UNSUPPORTED,
                    at(offsets::KERNARG_PRELOAD),
                    format!(
                        "kernarg_preload is {:#06x}, but {target} cannot preload kernel arguments",
                        self.kernarg_preload
                    ),
                );
            } else {
                let len = self.kernarg_preload_length();
                let off = self.kernarg_preload_offset();
                let max = max_user_sgprs(target);
                if len > max {
                    sink.report_at(
                        &KERNARG_PRELOAD_LENGTH,
                        at(offsets::KERNARG_PRELOAD),
                        format!("kernarg preload length is {len} dwords; at most {max} SGPRs can be preloaded"),
                    );
                }
                let end = u64::from(len + off) * 4;
                if len != 0 && self.kernarg_size != 0 && end > u64::from(self.kernarg_size) {
                    sink.report_at(
                        &KERNARG_PRELOAD_EXCEEDS_KERNARG_SIZE,
                        at(offsets::KERNARG_PRELOAD),
                        format!(
                            "kernarg preload covers bytes {}..{end}, past kernarg_size {}",
                            u64::from(off) * 4,
                            self.kernarg_size
                        ),
                    );
                }
            }
        }
    }

    fn check_rsrc1(&self, target: &Target, at: u64, sink: &mut Sink) {
        let gen = target.generation;
        let r1 = self.compute_pgm_rsrc1;
        if gen >= Generation::Gfx10 && self.granulated_wavefront_sgpr_count() != 0 {
            sink.report_lazy(&RSRC1_GRANULATED_SGPR_COUNT, Some(at), || {
                format!(
                    "GRANULATED_WAVEFRONT_SGPR_COUNT is {} on {target}, where it is reserved (must be 0)",
                    self.granulated_wavefront_sgpr_count()
                )
            });
        }
        if self.priority() != 0 {
            sink.report_at(
                &RSRC1_PRIORITY,
                at,
                format!("PRIORITY is {}, expected 0", self.priority()),
            );
        }
        if self.priv_mode() {
            sink.report_at(&RSRC1_PRIV, at, "PRIV is set, expected 0");
        }
        if self.debug_mode() {
            sink.report_at(&RSRC1_DEBUG_MODE, at, "DEBUG_MODE is set, expected 0");
        }
        if self.bulky() {
            sink.report_at(&RSRC1_BULKY, at, "BULKY is set, expected 0");
        }
        if self.cdbg_user() {
            sink.report_at(&RSRC1_CDBG_USER, at, "CDBG_USER is set, expected 0");
        }
        let reserved = reserved_mask(Word::Rsrc1, target);
        if r1 & reserved != 0 {
            sink.report_at(
                &RSRC1_RESERVED,
                at,
                format!(
                    "compute_pgm_rsrc1 {r1:#010x} has {} set, reserved on {target}",
                    describe_set_bits(r1 & reserved)
                ),
            );
        }
    }

    fn check_rsrc2(&self, target: &Target, at: u64, sink: &mut Sink) {
        let gen = target.generation;
        if gen < Generation::Gfx12 && self.enable_trap_handler() {
            sink.report_at(
                &RSRC2_TRAP_HANDLER,
                at,
                "ENABLE_TRAP_HANDLER is set; CP sets the trap bit itself",
            );
        }
        if self.enable_exception_address_watch() {
            sink.report_at(
                &RSRC2_EXCEPTION_ADDRESS_WATCH,
                at,
                "ENABLE_EXCEPTION_ADDRESS_WATCH is set, expected 0",
            );
        }
        if self.enable_exception_memory() {
            sink.report_at(
                &RSRC2_EXCEPTION_MEMORY,
                at,
                "ENABLE_EXCEPTION_MEMORY is set, expected 0",
            );
        }
        if self.granulated_lds_size() != 0 {
            sink.report_at(
                &RSRC2_GRANULATED_LDS_SIZE,
                at,
                format!(
                    "GRANULATED_LDS_SIZE is {}, expected 0",
                    self.granulated_lds_size()
                ),
            );
        }
        if self.compute_pgm_rsrc2 & reserved_mask(Word::Rsrc2, target) & 1 << 31 != 0 {
            sink.report_at(
                &RSRC2_RESERVED,
                at,
                format!("compute_pgm_rsrc2 bit 31 is set, reserved on {target}"),
            );
        }
    }

    fn check_rsrc3(&self, target: &Target, at: u64, sink: &mut Sink) {
        let gen = target.generation;
        let r3 = self.compute_pgm_rsrc3;
        let reserved = reserved_mask(Word::Rsrc3, target);
        if r3 & reserved != 0 {
            sink.report_at(
                &RSRC3_RESERVED,
                at,
                format!(
                    "compute_pgm_rsrc3 {r3:#010x} has {} set, reserved on {target}",
                    describe_set_bits(r3 & reserved)
                ),
            );
        }
        if matches!(gen, Generation::Gfx10 | Generation::Gfx11) {
            let shared = self.shared_vgpr_count();
            if shared != 0 && self.wave32(target) {
                sink.report_at(
                    &RSRC3_SHARED_VGPR_COUNT_WAVE32,
                    at,
                    format!("SHARED_VGPR_COUNT is {shared} in a wave32 kernel"),
                );
            }
            let total = shared * 2 + self.granulated_workitem_vgpr_count();
            if total > 63 {
                sink.report_at(
                    &RSRC3_SHARED_VGPR_COUNT_OVERFLOW,
                    at,
                    format!(
                        "2 * SHARED_VGPR_COUNT ({shared}) + GRANULATED_WORKITEM_VGPR_COUNT ({}) = {total} exceeds 63",
                        self.granulated_workitem_vgpr_count()
                    ),
                );
            }
        }
        if target.accum_offset {
            let acc = self.accum_offset();
            let alloc = self.allocated_vgprs(target);
            if acc > alloc {
                sink.report_at(
                    &RSRC3_ACCUM_OFFSET,
                    at,
                    format!("ACCUM_OFFSET puts the first AGPR at v{acc}, beyond the {alloc} VGPRs allocated"),
                );
            }
        }
    }

    /// Checks the descriptor against facts from the kernel's metadata.
    /// Facts that are `None` (key absent) are not compared; the metadata
    /// module reports missing keys.
    pub fn check_against_metadata(
        &self,
        facts: &MetadataFacts,
        target: &Target,
        cov: CodeObjectVersion,
        offset: u64,
        sink: &mut Sink,
    ) {
        let gen = target.generation;
        let at = |field: u64| offset.saturating_add(field);
        if let Some(v) = facts.group_segment_fixed_size {
            if v != u64::from(self.group_segment_fixed_size) {
                sink.report_at(
                    &METADATA_GROUP_SEGMENT_FIXED_SIZE,
                    at(offsets::GROUP_SEGMENT_FIXED_SIZE),
                    format!(
                        "descriptor group_segment_fixed_size is {}, metadata .group_segment_fixed_size is {v}",
                        self.group_segment_fixed_size
                    ),
                );
            }
        }
        if let Some(v) = facts.private_segment_fixed_size {
            if v != u64::from(self.private_segment_fixed_size) {
                sink.report_at(
                    &METADATA_PRIVATE_SEGMENT_FIXED_SIZE,
                    at(offsets::PRIVATE_SEGMENT_FIXED_SIZE),
                    format!(
                        "descriptor private_segment_fixed_size is {}, metadata .private_segment_fixed_size is {v}",
                        self.private_segment_fixed_size
                    ),
                );
            }
        }
        if let Some(v) = facts.kernarg_segment_size {
            if self.kernarg_size != 0 && v != u64::from(self.kernarg_size) {
                sink.report_at(
                    &METADATA_KERNARG_SEGMENT_SIZE,
                    at(offsets::KERNARG_SIZE),
                    format!(
                        "descriptor kernarg_size is {}, metadata .kernarg_segment_size is {v}",
                        self.kernarg_size
                    ),
                );
            }
        }
        let wave32 = self.wave32(target);
        if let Some(w) = facts.wavefront_size {
            let expected = if wave32 { 32 } else { 64 };
            if w != expected {
                sink.report_at(
                    &METADATA_WAVEFRONT_SIZE,
                    at(offsets::KERNEL_CODE_PROPERTIES),
                    format!("descriptor selects wave{expected}, metadata .wavefront_size is {w}"),
                );
            }
        }
        if let (Some(s), Some(alloc)) = (facts.sgpr_count, self.allocated_sgprs(target)) {
            if s > u64::from(alloc) {
                sink.report_at(
                    &METADATA_SGPR_COUNT,
                    at(offsets::COMPUTE_PGM_RSRC1),
                    format!(
                        "GRANULATED_WAVEFRONT_SGPR_COUNT {} allocates {alloc} SGPRs, metadata .sgpr_count is {s}",
                        self.granulated_wavefront_sgpr_count()
                    ),
                );
            }
        }
        let alloc_v = u64::from(self.allocated_vgprs(target));
        let agprs = facts.agpr_count.unwrap_or(0);
        if let Some(v) = facts.vgpr_count {
            // gfx90a family: .vgpr_count already counts AGPRs (unified file);
            // elsewhere AGPRs are a separate file of the same size.
            let needed = if target.accum_offset {
                let acc_end = if agprs > 0 {
                    u64::from(self.accum_offset()).saturating_add(agprs)
                } else {
                    0
                };
                v.max(acc_end)
            } else {
                v.max(agprs)
            };
            if needed > alloc_v {
                sink.report_at(
                    &METADATA_VGPR_COUNT,
                    at(offsets::COMPUTE_PGM_RSRC1),
                    format!(
                        "GRANULATED_WORKITEM_VGPR_COUNT {} allocates {alloc_v} VGPRs ({}), but the metadata needs {needed} (.vgpr_count {v}, .agpr_count {agprs})",
                        self.granulated_workitem_vgpr_count(),
                        if wave32 { "wave32" } else { "wave64" }
                    ),
                );
            }
            if target.accum_offset && agprs > 0 {
                let arch = v.saturating_sub(agprs);
                if arch > u64::from(self.accum_offset()) {
                    sink.report_at(
                        &METADATA_ACCUM_OFFSET,
                        at(offsets::COMPUTE_PGM_RSRC3),
                        format!(
                            "ACCUM_OFFSET is {}, but .vgpr_count {v} - .agpr_count {agprs} = {arch} architectural VGPRs",
                            self.accum_offset()
                        ),
                    );
                }
            }
        } else if agprs > alloc_v && !target.accum_offset {
            sink.report_at(
                &METADATA_VGPR_COUNT,
                at(offsets::COMPUTE_PGM_RSRC1),
                format!("descriptor allocates {alloc_v} VGPRs, metadata .agpr_count is {agprs}"),
            );
        }
        if let Some(d) = facts.uses_dynamic_stack {
            if cov >= CodeObjectVersion::V5 && d != self.uses_dynamic_stack() {
                sink.report_at(
                    &METADATA_USES_DYNAMIC_STACK,
                    at(offsets::KERNEL_CODE_PROPERTIES),
                    format!(
                        "descriptor USES_DYNAMIC_STACK is {}, metadata .uses_dynamic_stack is {d}",
                        self.uses_dynamic_stack()
                    ),
                );
            }
        }
        if let Some(m) = facts.workgroup_processor_mode {
            if gen >= Generation::Gfx10 && target.cumode && m != self.wgp_mode() {
                sink.report_at(
                    &METADATA_WORKGROUP_PROCESSOR_MODE,
                    at(offsets::COMPUTE_PGM_RSRC1),
                    format!(
                        "descriptor WGP_MODE is {}, metadata .workgroup_processor_mode is {m}",
                        self.wgp_mode()
                    ),
                );
            }
        }
    }

    /// Every field that applies to `target`, named after the descriptor
    /// field (`compute_pgm_rsrc1.granulated_workitem_vgpr_count`), with its
    /// raw value and a short meaning.
    pub fn fields(&self, target: &Target) -> Vec<Field> {
        let gen = target.generation;
        let mut f = Vec::with_capacity(64);
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

        // rsrc1
        let gv = self.granulated_workitem_vgpr_count();
        push(
            "compute_pgm_rsrc1.granulated_workitem_vgpr_count",
            gv.into(),
            if target.accum_offset {
                format!(
                    "{} VGPRs allocated (architectural + accumulation)",
                    self.allocated_vgprs(target)
                )
            } else {
                format!(
                    "{} VGPRs allocated ({})",
                    self.allocated_vgprs(target),
                    if wave32 { "wave32" } else { "wave64" }
                )
            },
        );
        let gs = self.granulated_wavefront_sgpr_count();
        push(
            "compute_pgm_rsrc1.granulated_wavefront_sgpr_count",
            gs.into(),
            match self.allocated_sgprs(target) {
                Some(n) => format!("{n} SGPRs allocated"),
                None => "ignored (reserved; a fixed SGPR block is allocated)".to_owned(),
            },
        );
        push(
            "compute_pgm_rsrc1.priority",
            self.priority().into(),
            "must be 0".to_owned(),
        );
        push(
            "compute_pgm_rsrc1.float_round_mode_32",
            self.float_round_mode_32().into(),
            round_mode_name(self.float_round_mode_32()).to_owned(),
        );
        push(
            "compute_pgm_rsrc1.float_round_mode_16_64",
            self.float_round_mode_16_64().into(),
            round_mode_name(self.float_round_mode_16_64()).to_owned(),
        );
        push(
            "compute_pgm_rsrc1.float_denorm_mode_32",
            self.float_denorm_mode_32().into(),
            denorm_mode_name(self.float_denorm_mode_32()).to_owned(),
        );
        push(
            "compute_pgm_rsrc1.float_denorm_mode_16_64",
            self.float_denorm_mode_16_64().into(),
            denorm_mode_name(self.float_denorm_mode_16_64()).to_owned(),
        );
        push(
            "compute_pgm_rsrc1.priv",
            self.priv_mode().into(),
            "must be 0".to_owned(),
        );
        if gen >= Generation::Gfx12 {
            push(
                "compute_pgm_rsrc1.enable_wg_rr_en",
                self.enable_wg_rr_en().into(),
                yes_no(
                    self.enable_wg_rr_en(),
                    "round-robin work-group scheduling",
                    "default work-group scheduling",
                ),
            );
        } else {
            push(
                "compute_pgm_rsrc1.enable_dx10_clamp",
                self.enable_dx10_clamp().into(),
                yes_no(
                    self.enable_dx10_clamp(),
                    "DX10 clamp: NaN clamped to 0",
                    "NaN passed through",
                ),
            );
        }
        push(
            "compute_pgm_rsrc1.debug_mode",
            self.debug_mode().into(),
            "must be 0".to_owned(),
        );
        if gen >= Generation::Gfx12 {
            push(
                "compute_pgm_rsrc1.disable_perf",
                self.disable_perf().into(),
                yes_no(
                    self.disable_perf(),
                    "performance counters disabled",
                    "performance counters enabled",
                ),
            );
        } else {
            push(
                "compute_pgm_rsrc1.enable_ieee_mode",
                self.enable_ieee_mode().into(),
                yes_no(self.enable_ieee_mode(), "IEEE mode", "IEEE mode off"),
            );
        }
        push(
            "compute_pgm_rsrc1.bulky",
            self.bulky().into(),
            "must be 0".to_owned(),
        );
        push(
            "compute_pgm_rsrc1.cdbg_user",
            self.cdbg_user().into(),
            "must be 0".to_owned(),
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
            if target.cumode {
                push(
                    "compute_pgm_rsrc1.wgp_mode",
                    self.wgp_mode().into(),
                    yes_no(self.wgp_mode(), "WGP mode", "CU mode"),
                );
            }
            push(
                "compute_pgm_rsrc1.mem_ordered",
                self.mem_ordered().into(),
                yes_no(
                    self.mem_ordered(),
                    "vmcnt reports loads and samples in order",
                    "vmcnt may report samples out of order",
                ),
            );
            push(
                "compute_pgm_rsrc1.fwd_progress",
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
            "compute_pgm_rsrc2.enable_private_segment",
            self.enable_private_segment().into(),
            if target.architected_flat_scratch {
                yes_no(
                    self.enable_private_segment(),
                    "scratch enabled",
                    "no scratch",
                )
            } else {
                yes_no(
                    self.enable_private_segment(),
                    "scratch enabled; private segment wave byte offset SGPR set up",
                    "no scratch wave offset SGPR",
                )
            },
        );
        push(
            "compute_pgm_rsrc2.user_sgpr_count",
            self.user_sgpr_count().into(),
            format!("{} user SGPRs", self.user_sgpr_count()),
        );
        if gen < Generation::Gfx12 {
            push(
                "compute_pgm_rsrc2.enable_trap_handler",
                self.enable_trap_handler().into(),
                "should be 0 (set by CP)".to_owned(),
            );
        }
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
        push(
            "compute_pgm_rsrc2.enable_exception_address_watch",
            self.enable_exception_address_watch().into(),
            "must be 0".to_owned(),
        );
        push(
            "compute_pgm_rsrc2.enable_exception_memory",
            self.enable_exception_memory().into(),
            "must be 0".to_owned(),
        );
        push(
            "compute_pgm_rsrc2.granulated_lds_size",
            self.granulated_lds_size().into(),
            "must be 0".to_owned(),
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
        if gen >= Generation::Gfx12 {
            push(
                "compute_pgm_rsrc2.wgp_takeover",
                self.wgp_takeover().into(),
                yes_no(self.wgp_takeover(), "WGP takeover", "no WGP takeover"),
            );
        }

        // rsrc3
        if target.accum_offset {
            push(
                "compute_pgm_rsrc3.accum_offset",
                self.accum_offset_field().into(),
                format!("AGPRs start at v{}", self.accum_offset()),
            );
            push(
                "compute_pgm_rsrc3.tg_split",
                self.tg_split().into(),
                yes_no(
                    self.tg_split(),
                    "work-group may span CUs (no LDS)",
                    "work-group on one CU",
                ),
            );
        }
        if matches!(gen, Generation::Gfx10 | Generation::Gfx11) {
            push(
                "compute_pgm_rsrc3.shared_vgpr_count",
                self.shared_vgpr_count().into(),
                format!("{} shared VGPRs (wave64)", self.shared_vgpr_count() * 8),
            );
        }
        if gen >= Generation::Gfx11 {
            let p = self.inst_pref_size(gen);
            push(
                "compute_pgm_rsrc3.inst_pref_size",
                p.into(),
                format!("prefetch {} bytes of code", p * 128),
            );
        }
        if gen == Generation::Gfx11 {
            push(
                "compute_pgm_rsrc3.trap_on_start",
                self.trap_on_start().into(),
                yes_no(
                    self.trap_on_start(),
                    "trap at wave start",
                    "no trap at start",
                ),
            );
            push(
                "compute_pgm_rsrc3.trap_on_end",
                self.trap_on_end().into(),
                yes_no(self.trap_on_end(), "trap at wave end", "no trap at end"),
            );
        }
        if gen >= Generation::Gfx12 {
            push(
                "compute_pgm_rsrc3.glg_en",
                self.glg_en().into(),
                yes_no(
                    self.glg_en(),
                    "group launch guarantee",
                    "no group launch guarantee",
                ),
            );
        }
        if gen >= Generation::Gfx11 {
            push(
                "compute_pgm_rsrc3.image_op",
                self.image_op().into(),
                yes_no(
                    self.image_op(),
                    "image instructions wait for graphics fences",
                    "no image fence wait",
                ),
            );
        }

        // kernel_code_properties
        for (name, on, n) in [
            (
                "kernel_code_properties.enable_sgpr_private_segment_buffer",
                self.enable_sgpr_private_segment_buffer(),
                4,
            ),
            (
                "kernel_code_properties.enable_sgpr_dispatch_ptr",
                self.enable_sgpr_dispatch_ptr(),
                2,
            ),
            (
                "kernel_code_properties.enable_sgpr_queue_ptr",
                self.enable_sgpr_queue_ptr(),
                2,
            ),
            (
                "kernel_code_properties.enable_sgpr_kernarg_segment_ptr",
                self.enable_sgpr_kernarg_segment_ptr(),
                2,
            ),
            (
                "kernel_code_properties.enable_sgpr_dispatch_id",
                self.enable_sgpr_dispatch_id(),
                2,
            ),
            (
                "kernel_code_properties.enable_sgpr_flat_scratch_init",
                self.enable_sgpr_flat_scratch_init(),
                2,
            ),
            (
                "kernel_code_properties.enable_sgpr_private_segment_size",
                self.enable_sgpr_private_segment_size(),
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
                "kernel_code_properties.enable_wavefront_size32",
                self.enable_wavefront_size32().into(),
                yes_no(self.enable_wavefront_size32(), "wave32", "wave64"),
            );
        }
        push(
            "kernel_code_properties.uses_dynamic_stack",
            self.uses_dynamic_stack().into(),
            yes_no(
                self.uses_dynamic_stack(),
                "stack size not known at compile time",
                "fixed stack size",
            ),
        );

        if target.kernarg_preload {
            let len = self.kernarg_preload_length();
            let off = self.kernarg_preload_offset();
            push(
                "kernarg_preload.length",
                len.into(),
                if len == 0 {
                    "no kernel arguments preloaded".to_owned()
                } else {
                    format!("{len} dwords preloaded into user SGPRs")
                },
            );
            push(
                "kernarg_preload.offset",
                off.into(),
                format!("preload starts at kernarg byte {}", off * 4),
            );
        }
        f
    }
}

fn describe_set_bits(mask: u32) -> String {
    // Names each maximal run of set bits, so messages read "bits 9:7".
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
        parts.push(describe_bits(run_mask));
        m &= !run_mask;
    }
    parts.join(", ")
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
/// `getVGPREncodingGranule`): 8 on the gfx90a family and in wave32, else 4.
pub fn vgpr_encoding_granule(target: &Target, wave32: bool) -> u32 {
    if target.accum_offset || wave32 {
        8
    } else {
        4
    }
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

    /// Targets the rule tests run on, one or more per generation.
    pub(crate) const SAMPLE: &[&str] = &[
        "gfx600",
        "gfx700",
        "gfx803",
        "gfx802",
        "gfx900",
        "gfx908",
        "gfx90a",
        "gfx942",
        "gfx9-generic",
        "gfx1010",
        "gfx1030",
        "gfx1100",
        "gfx1151",
        "gfx1200",
        "gfx11-generic",
        "gfx12-generic",
    ];

    /// A descriptor shaped like clang-19's output for a small kernel (one
    /// pointer argument, work-group id X, 5 VGPRs, 10 SGPRs): kernarg
    /// segment pointer (plus the private segment buffer where it exists),
    /// wave32 where the target has it.
    pub(crate) fn valid(target: &Target) -> KernelDescriptor {
        let gen = target.generation;
        let mut r1: u32 = match gen {
            Generation::Gfx6 | Generation::Gfx7 | Generation::Gfx8 => 0x00ac_0000,
            Generation::Gfx9 => 0x00af_0000,
            Generation::Gfx10 | Generation::Gfx11 => 0x40af_0000,
            _ => 0x400f_0000,
        };
        if gen >= Generation::Gfx10 && target.cumode {
            r1 |= 1 << 29;
        }
        r1 |= 1; // 8 VGPRs (wave64) / 16 (wave32, gfx90a)
        if gen < Generation::Gfx10 {
            r1 |= if target.sgpr_init_bug { 11 } else { 1 } << 6;
        }
        let mut props: u16 = 1 << 3;
        if !target.architected_flat_scratch {
            props |= 1;
        }
        if gen >= Generation::Gfx10 && target.wave32 {
            props |= 1 << 10;
        }
        let mut kd = KernelDescriptor {
            kernarg_size: 8,
            kernel_code_entry_byte_offset: 0x1000,
            compute_pgm_rsrc1: r1,
            kernel_code_properties: props,
            ..Default::default()
        };
        let usc = crate::sgpr::implied_user_sgpr_count(&kd, target) as u32;
        kd.compute_pgm_rsrc2 = usc << 1 | 1 << 7;
        kd
    }

    /// Metadata facts matching [`valid`].
    pub(crate) fn valid_facts(target: &Target) -> MetadataFacts {
        let kd = valid(target);
        MetadataFacts {
            sgpr_count: Some(10),
            vgpr_count: Some(5),
            agpr_count: if target.agprs { Some(0) } else { None },
            wavefront_size: Some(if kd.wave32(target) { 32 } else { 64 }),
            group_segment_fixed_size: Some(0),
            private_segment_fixed_size: Some(0),
            kernarg_segment_size: Some(8),
            uses_dynamic_stack: Some(false),
            workgroup_processor_mode: if target.cumode { Some(true) } else { None },
        }
    }

    /// Runs every descriptor-level check of both kd and sgpr.
    pub(crate) fn run_all(
        kd: &KernelDescriptor,
        facts: &MetadataFacts,
        target: &Target,
        cov: CodeObjectVersion,
    ) -> Sink {
        let mut sink = Sink::new();
        kd.check(target, cov, 0x100, &mut sink);
        kd.check_against_metadata(facts, target, cov, 0x100, &mut sink);
        crate::sgpr::check(kd, target, 0x100, &mut sink);
        sink
    }

    pub(crate) fn ids(sink: &Sink) -> BTreeSet<&'static str> {
        sink.violations.iter().map(|v| v.rule.id).collect()
    }

    /// A mutation that must break `rule` (and nothing outside `also`).
    pub(crate) struct Case {
        pub rule: &'static Rule,
        pub target: &'static str,
        pub cov: CodeObjectVersion,
        pub mutate: fn(&mut KernelDescriptor, &mut MetadataFacts),
        pub also: &'static [&'static Rule],
    }

    pub(crate) fn run_cases(cases: &[Case]) {
        for (i, c) in cases.iter().enumerate() {
            let target = t(c.target);
            let mut kd = valid(target);
            let mut facts = valid_facts(target);
            let base = run_all(&kd, &facts, target, c.cov);
            assert!(
                base.violations.is_empty(),
                "case {i} ({}): baseline not clean: {:?}",
                c.rule.id,
                base.violations
            );
            (c.mutate)(&mut kd, &mut facts);
            let sink = run_all(&kd, &facts, target, c.cov);
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
                    v.offset.is_some_and(|o| (0x100..0x140).contains(&o)),
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

    use CodeObjectVersion::{V4, V5};

    const CASES: &[Case] = &[
        Case {
            rule: &RESERVED_BYTES,
            target: "gfx900",
            cov: V5,
            mutate: |k, _| k.reserved0[2] = 1,
            also: &[],
        },
        Case {
            rule: &RESERVED_BYTES,
            target: "gfx1100",
            cov: V5,
            mutate: |k, _| k.reserved1[19] = 0x80,
            also: &[],
        },
        Case {
            rule: &RESERVED_BYTES,
            target: "gfx942",
            cov: V5,
            mutate: |k, _| k.reserved3[0] = 4,
            also: &[],
        },
        Case {
            rule: &RSRC1_GRANULATED_SGPR_COUNT,
            target: "gfx1030",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc1 |= 4 << 6,
            also: &[],
        },
        Case {
            rule: &RSRC1_PRIORITY,
            target: "gfx900",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc1 |= 2 << 10,
            also: &[],
        },
        Case {
            rule: &RSRC1_PRIV,
            target: "gfx1200",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc1 |= 1 << 20,
            also: &[],
        },
        Case {
            rule: &RSRC1_DEBUG_MODE,
            target: "gfx803",
            cov: V4,
            mutate: |k, _| k.compute_pgm_rsrc1 |= 1 << 22,
            also: &[],
        },
        Case {
            rule: &RSRC1_BULKY,
            target: "gfx90a",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc1 |= 1 << 24,
            also: &[],
        },
        Case {
            rule: &RSRC1_CDBG_USER,
            target: "gfx1100",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc1 |= 1 << 25,
            also: &[],
        },
        Case {
            rule: &RSRC1_RESERVED,
            target: "gfx803",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc1 |= 1 << 26,
            also: &[],
        },
        Case {
            rule: &RSRC1_RESERVED,
            target: "gfx1200",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc1 |= 1 << 28,
            also: &[],
        },
        Case {
            rule: &RSRC1_RESERVED,
            target: "gfx908",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc1 |= 1 << 31,
            also: &[],
        },
        Case {
            rule: &RSRC2_TRAP_HANDLER,
            target: "gfx1100",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc2 |= 1 << 6,
            also: &[],
        },
        Case {
            rule: &RSRC2_EXCEPTION_ADDRESS_WATCH,
            target: "gfx700",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc2 |= 1 << 13,
            also: &[],
        },
        Case {
            rule: &RSRC2_EXCEPTION_MEMORY,
            target: "gfx1030",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc2 |= 1 << 14,
            also: &[],
        },
        Case {
            rule: &RSRC2_GRANULATED_LDS_SIZE,
            target: "gfx942",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc2 |= 0x101 << 15,
            also: &[],
        },
        Case {
            rule: &RSRC2_RESERVED,
            target: "gfx1030",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc2 |= 1 << 31,
            also: &[],
        },
        Case {
            rule: &RSRC3_RESERVED,
            target: "gfx900",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc3 = 1,
            also: &[],
        },
        Case {
            rule: &RSRC3_RESERVED,
            target: "gfx90a",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc3 |= 1 << 6,
            also: &[],
        },
        Case {
            rule: &RSRC3_RESERVED,
            target: "gfx1030",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc3 = 1 << 4,
            also: &[],
        },
        Case {
            rule: &RSRC3_RESERVED,
            target: "gfx1030",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc3 = 1 << 31,
            also: &[],
        },
        Case {
            rule: &RSRC3_RESERVED,
            target: "gfx1100",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc3 = 1 << 13,
            also: &[],
        },
        Case {
            rule: &RSRC3_RESERVED,
            target: "gfx1200",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc3 = 2,
            also: &[],
        },
        Case {
            rule: &RSRC3_SHARED_VGPR_COUNT_WAVE32,
            target: "gfx1030",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc3 = 1,
            also: &[],
        },
        Case {
            rule: &RSRC3_SHARED_VGPR_COUNT_OVERFLOW,
            target: "gfx1100",
            cov: V5,
            mutate: |k, f| {
                k.kernel_code_properties &= !(1 << 10);
                f.wavefront_size = Some(64);
                k.compute_pgm_rsrc1 |= 63;
                k.compute_pgm_rsrc3 = 1;
            },
            also: &[],
        },
        Case {
            rule: &RSRC3_ACCUM_OFFSET,
            target: "gfx90a",
            cov: V5,
            mutate: |k, _| k.compute_pgm_rsrc3 = 4, // first AGPR v20, 16 VGPRs allocated
            also: &[],
        },
        Case {
            rule: &PROPERTIES_RESERVED,
            target: "gfx900",
            cov: V5,
            mutate: |k, _| k.kernel_code_properties |= 1 << 8,
            also: &[],
        },
        Case {
            rule: &PROPERTIES_RESERVED,
            target: "gfx1200",
            cov: V5,
            mutate: |k, _| k.kernel_code_properties |= 1 << 15,
            also: &[],
        },
        Case {
            rule: &PROPERTIES_WAVEFRONT_SIZE32,
            target: "gfx900",
            cov: V5,
            mutate: |k, _| k.kernel_code_properties |= 1 << 10,
            also: &[],
        },
        Case {
            rule: &PROPERTIES_WAVEFRONT_SIZE32,
            target: "gfx700",
            cov: V4,
            mutate: |k, _| k.kernel_code_properties |= 1 << 10,
            also: &[],
        },
        Case {
            rule: &PROPERTIES_USES_DYNAMIC_STACK,
            target: "gfx900",
            cov: V4,
            mutate: |k, f| {
                k.kernel_code_properties |= 1 << 11;
                f.uses_dynamic_stack = None;
            },
            also: &[],
        },
        Case {
            rule: &KERNARG_PRELOAD_UNSUPPORTED,
            target: "gfx1100",
            cov: V5,
            mutate: |k, _| k.kernarg_preload = 2,
            also: &[],
        },
        Case {
            rule: &KERNARG_PRELOAD_LENGTH,
            target: "gfx90a",
            cov: V5,
            mutate: |k, _| {
                k.kernarg_preload = 17;
                k.kernarg_size = 0;
                // 6 + 17 user SGPRs, and room for them in the allocation.
                k.compute_pgm_rsrc2 = (k.compute_pgm_rsrc2 & !0x3E) | 23 << 1;
                k.compute_pgm_rsrc1 = (k.compute_pgm_rsrc1 & !(0xF << 6)) | 2 << 6;
            },
            also: &[&crate::sgpr::USER_SGPR_COUNT_LIMIT],
        },
        Case {
            rule: &KERNARG_PRELOAD_EXCEEDS_KERNARG_SIZE,
            target: "gfx942",
            cov: V5,
            mutate: |k, _| {
                k.kernarg_preload = 2 | 1 << 7; // dwords 1..3, past 8 bytes
                k.compute_pgm_rsrc2 = (k.compute_pgm_rsrc2 & !0x3E) | 4 << 1;
            },
            also: &[],
        },
        Case {
            rule: &METADATA_GROUP_SEGMENT_FIXED_SIZE,
            target: "gfx900",
            cov: V5,
            mutate: |_, f| f.group_segment_fixed_size = Some(1024),
            also: &[],
        },
        Case {
            rule: &METADATA_PRIVATE_SEGMENT_FIXED_SIZE,
            target: "gfx1030",
            cov: V5,
            mutate: |k, _| k.private_segment_fixed_size = 16,
            also: &[],
        },
        Case {
            rule: &METADATA_KERNARG_SEGMENT_SIZE,
            target: "gfx942",
            cov: V5,
            mutate: |_, f| f.kernarg_segment_size = Some(264),
            also: &[],
        },
        Case {
            rule: &METADATA_WAVEFRONT_SIZE,
            target: "gfx1030",
            cov: V5,
            mutate: |_, f| f.wavefront_size = Some(64),
            also: &[],
        },
        Case {
            rule: &METADATA_WAVEFRONT_SIZE,
            target: "gfx803",
            cov: V5,
            mutate: |_, f| f.wavefront_size = Some(32),
            also: &[],
        },
        Case {
            rule: &METADATA_SGPR_COUNT,
            target: "gfx900",
            cov: V5,
            mutate: |_, f| f.sgpr_count = Some(17),
            also: &[],
        },
        Case {
            rule: &METADATA_SGPR_COUNT,
            target: "gfx700",
            cov: V5,
            mutate: |_, f| f.sgpr_count = Some(17),
            also: &[],
        },
        Case {
            rule: &METADATA_VGPR_COUNT,
            target: "gfx900",
            cov: V5,
            mutate: |_, f| f.vgpr_count = Some(9),
            also: &[],
        },
        Case {
            rule: &METADATA_VGPR_COUNT,
            target: "gfx1100",
            cov: V5,
            mutate: |_, f| f.vgpr_count = Some(17),
            also: &[],
        },
        Case {
            rule: &METADATA_VGPR_COUNT,
            target: "gfx908",
            cov: V5,
            mutate: |_, f| f.agpr_count = Some(9),
            also: &[],
        },
        Case {
            rule: &METADATA_VGPR_COUNT,
            target: "gfx90a",
            cov: V5,
            // ACCUM_OFFSET 4 + 13 AGPRs = 17 > 16 allocated.
            mutate: |_, f| {
                f.vgpr_count = Some(16);
                f.agpr_count = Some(13);
            },
            also: &[],
        },
        Case {
            rule: &METADATA_ACCUM_OFFSET,
            target: "gfx942",
            cov: V5,
            mutate: |_, f| {
                f.vgpr_count = Some(10);
                f.agpr_count = Some(4);
            },
            also: &[],
        },
        Case {
            rule: &METADATA_USES_DYNAMIC_STACK,
            target: "gfx900",
            cov: V5,
            mutate: |_, f| f.uses_dynamic_stack = Some(true),
            also: &[],
        },
        Case {
            rule: &METADATA_WORKGROUP_PROCESSOR_MODE,
            target: "gfx1200",
            cov: V5,
            mutate: |_, f| f.workgroup_processor_mode = Some(false),
            also: &[],
        },
    ];

    #[test]
    fn mutants_break_their_rule() {
        run_cases(CASES);
    }

    #[test]
    fn every_rule_has_a_mutant() {
        assert_all_covered(RULES, CASES);
    }

    #[test]
    fn valid_descriptors_are_clean() {
        for name in SAMPLE {
            let target = t(name);
            for cov in [
                CodeObjectVersion::V4,
                CodeObjectVersion::V5,
                CodeObjectVersion::V6,
            ] {
                let sink = run_all(&valid(target), &valid_facts(target), target, cov);
                assert!(
                    sink.violations.is_empty(),
                    "{name} {cov}: {:?}",
                    sink.violations
                );
            }
        }
    }

    #[test]
    fn severities_are_as_declared() {
        // Rules that real LLVM 19 output can trigger must not be errors.
        assert_eq!(RSRC1_GRANULATED_SGPR_COUNT.severity, Severity::Info);
        assert_eq!(PROPERTIES_USES_DYNAMIC_STACK.severity, Severity::Info);
        assert_eq!(RSRC2_TRAP_HANDLER.severity, Severity::Warning);
    }

    #[test]
    fn layout_offsets() {
        let mut b = [0u8; KD_SIZE];
        for (i, x) in b.iter_mut().enumerate() {
            *x = i as u8;
        }
        let kd = KernelDescriptor::parse(&b);
        assert_eq!(kd.group_segment_fixed_size, 0x0302_0100);
        assert_eq!(kd.private_segment_fixed_size, 0x0706_0504);
        assert_eq!(kd.kernarg_size, 0x0B0A_0908);
        assert_eq!(kd.reserved0, [12, 13, 14, 15]);
        assert_eq!(kd.kernel_code_entry_byte_offset, 0x1716_1514_1312_1110);
        assert_eq!(kd.reserved1[0], 24);
        assert_eq!(kd.reserved1[19], 43);
        assert_eq!(kd.compute_pgm_rsrc3, 0x2F2E_2D2C);
        assert_eq!(kd.compute_pgm_rsrc1, 0x3332_3130);
        assert_eq!(kd.compute_pgm_rsrc2, 0x3736_3534);
        assert_eq!(kd.kernel_code_properties, 0x3938);
        assert_eq!(kd.kernarg_preload, 0x3B3A);
        assert_eq!(kd.reserved3, [60, 61, 62, 63]);
        assert_eq!(KernelDescriptor::from_slice(&b[..63]), None);
        assert_eq!(KernelDescriptor::from_slice(&b), Some(kd));
    }

    #[test]
    fn bit_field_accessors() {
        // clang-19 gfx900 extcall: rsrc1 0x00af014a, rsrc2 0x1399,
        // properties 0x83b.
        let kd = KernelDescriptor {
            compute_pgm_rsrc1: 0x00af_014a,
            compute_pgm_rsrc2: 0x1399,
            kernel_code_properties: 0x83b,
            kernarg_preload: 9 | 3 << 7,
            compute_pgm_rsrc3: 0x8000_2A1E,
            ..Default::default()
        };
        assert_eq!(kd.granulated_workitem_vgpr_count(), 10);
        assert_eq!(kd.granulated_wavefront_sgpr_count(), 5);
        assert_eq!(kd.float_denorm_mode_32(), 3);
        assert_eq!(kd.float_denorm_mode_16_64(), 3);
        assert_eq!(kd.float_round_mode_32(), 0);
        assert!(kd.enable_dx10_clamp() && kd.enable_ieee_mode() && !kd.fp16_ovfl());
        assert!(kd.enable_private_segment());
        assert_eq!(kd.user_sgpr_count(), 12);
        assert!(
            kd.enable_sgpr_workgroup_id_x()
                && kd.enable_sgpr_workgroup_id_y()
                && kd.enable_sgpr_workgroup_id_z()
        );
        assert!(!kd.enable_sgpr_workgroup_info());
        assert_eq!(kd.enable_vgpr_workitem_id(), 2);
        assert!(kd.enable_sgpr_private_segment_buffer() && kd.enable_sgpr_dispatch_ptr());
        assert!(
            !kd.enable_sgpr_queue_ptr()
                && kd.enable_sgpr_kernarg_segment_ptr()
                && kd.enable_sgpr_dispatch_id()
        );
        assert!(kd.enable_sgpr_flat_scratch_init() && !kd.enable_sgpr_private_segment_size());
        assert!(!kd.enable_wavefront_size32() && kd.uses_dynamic_stack());
        assert_eq!(kd.kernarg_preload_length(), 9);
        assert_eq!(kd.kernarg_preload_offset(), 3);
        // rsrc3 0x80002A1E: accum field 30 (v124), bits 4.. per generation.
        assert_eq!(kd.accum_offset_field(), 30);
        assert_eq!(kd.accum_offset(), 124);
        assert_eq!(kd.shared_vgpr_count(), 0xE);
        assert_eq!(kd.inst_pref_size(Generation::Gfx11), 0x21);
        assert_eq!(kd.inst_pref_size(Generation::Gfx12), 0xA1);
        assert_eq!(kd.inst_pref_size(Generation::Gfx10), 0);
        assert!(
            !kd.trap_on_start()
                && kd.trap_on_end()
                && kd.glg_en()
                && kd.image_op()
                && !kd.tg_split()
        );
    }

    #[test]
    fn granules_match_llvm_output() {
        // (target, sgprs, expected) from clang-19 objects: the metadata
        // .sgpr_count and the descriptor's field.
        for (name, s, g) in [
            ("gfx900", 24, 2),
            ("gfx900", 11, 1),
            ("gfx900", 4, 0),
            ("gfx803", 42, 5),
            ("gfx802", 96, 11),
            ("gfx1030", 38, 0),
        ] {
            assert_eq!(granulated_sgpr_count(t(name), s), g, "{name} {s}");
        }
        // (target, wave32, vgprs, agprs, expected).
        for (name, w32, v, a, g) in [
            ("gfx900", false, 129, 0, 32),
            ("gfx900", false, 41, 0, 10),
            ("gfx900", false, 0, 0, 0),
            ("gfx1030", true, 134, 0, 16),
            ("gfx1030", false, 134, 0, 33),
            ("gfx1030", true, 9, 0, 1),
            ("gfx90a", false, 122, 0, 15),
            ("gfx90a", false, 4, 32, 4),
            ("gfx90a", false, 64, 96, 19),
            ("gfx90a", false, 62, 96, 19),
            ("gfx908", false, 33, 32, 8),
            ("gfx908", false, 96, 96, 23),
        ] {
            assert_eq!(
                granulated_vgpr_count(t(name), w32, v, a),
                g,
                "{name} {w32} {v} {a}"
            );
        }
        assert_eq!(total_vgprs(t("gfx90a"), 5, 8), 16);
        assert_eq!(total_vgprs(t("gfx908"), 5, 8), 8);
        assert_eq!(max_sgprs_for_granulated(t("gfx900"), 5), 48);
        assert_eq!(max_vgprs_for_granulated(t("gfx900"), false, 32), 132);
        assert_eq!(max_vgprs_for_granulated(t("gfx1030"), true, 16), 136);
        assert_eq!(max_vgprs_for_granulated(t("gfx90a"), false, 15), 128);
        // Hardware allocation granule: 16 from GFX8, 8 before.
        let mut kd = valid(t("gfx900"));
        kd.compute_pgm_rsrc1 &= !(0xF << 6);
        assert_eq!(kd.allocated_sgprs(t("gfx900")), Some(16));
        assert_eq!(kd.allocated_sgprs(t("gfx700")), Some(8));
        assert_eq!(kd.allocated_sgprs(t("gfx1030")), None);
        assert_eq!(granulated_sgpr_count(t("gfx900"), u32::MAX), 536_870_911);
        assert_eq!(
            granulated_vgpr_count(t("gfx90a"), false, u32::MAX, u32::MAX),
            u32::MAX / 8
        );
    }

    #[test]
    fn granules_agree_with_target_table() {
        for target in TARGETS.iter().filter(|t| t.hsa) {
            assert_eq!(
                vgpr_encoding_granule(target, false),
                u32::from(target.vgpr_encoding_granule_wave64),
                "{target}"
            );
            if target.wave32 {
                assert_eq!(
                    vgpr_encoding_granule(target, true),
                    u32::from(target.vgpr_encoding_granule_wave32),
                    "{target}"
                );
            }
            let sg = if target.generation >= Generation::Gfx10 {
                0
            } else {
                SGPR_ENCODING_GRANULE
            };
            assert_eq!(sg, u32::from(target.sgpr_encoding_granule), "{target}");
        }
    }

    #[test]
    fn fields_follow_the_generation() {
        let names = |tn: &str, kd: &KernelDescriptor| -> Vec<&'static str> {
            kd.fields(t(tn)).iter().map(|f| f.name).collect()
        };
        for name in SAMPLE {
            let list = names(name, &valid(t(name)));
            let set: BTreeSet<_> = list.iter().collect();
            assert_eq!(set.len(), list.len(), "{name}: duplicate field names");
        }
        let g12 = names("gfx1200", &valid(t("gfx1200")));
        assert!(
            g12.contains(&"compute_pgm_rsrc1.enable_wg_rr_en")
                && g12.contains(&"compute_pgm_rsrc1.disable_perf")
        );
        assert!(
            !g12.contains(&"compute_pgm_rsrc1.enable_dx10_clamp")
                && !g12.contains(&"compute_pgm_rsrc3.shared_vgpr_count")
        );
        assert!(
            g12.contains(&"compute_pgm_rsrc3.glg_en")
                && g12.contains(&"compute_pgm_rsrc2.wgp_takeover")
        );
        let g9 = names("gfx900", &valid(t("gfx900")));
        assert!(
            g9.contains(&"compute_pgm_rsrc1.fp16_ovfl")
                && g9.contains(&"compute_pgm_rsrc1.enable_ieee_mode")
        );
        assert!(!g9.contains(&"kernel_code_properties.enable_wavefront_size32"));
        assert!(
            !g9.contains(&"compute_pgm_rsrc1.wgp_mode") && !g9.contains(&"kernarg_preload.length")
        );
        let g8 = names("gfx803", &valid(t("gfx803")));
        assert!(!g8.contains(&"compute_pgm_rsrc1.fp16_ovfl"));
        let a = names("gfx90a", &valid(t("gfx90a")));
        assert!(
            a.contains(&"compute_pgm_rsrc3.accum_offset") && a.contains(&"kernarg_preload.offset")
        );
        let g11 = names("gfx1100", &valid(t("gfx1100")));
        assert!(
            g11.contains(&"compute_pgm_rsrc3.trap_on_end")
                && g11.contains(&"compute_pgm_rsrc3.shared_vgpr_count")
        );

        // Values and meanings of one clang-19 gfx1030 descriptor (extcall).
        let kd = KernelDescriptor {
            compute_pgm_rsrc1: 0x60af_0105,
            compute_pgm_rsrc2: 0x1399,
            kernel_code_properties: 0xc3b,
            ..Default::default()
        };
        let f = kd.fields(t("gfx1030"));
        let get = |n: &str| {
            f.iter()
                .find(|x| x.name == n)
                .unwrap_or_else(|| panic!("no field {n}"))
        };
        let v = get("compute_pgm_rsrc1.granulated_workitem_vgpr_count");
        assert_eq!(
            (v.value, v.meaning.as_str()),
            (5, "48 VGPRs allocated (wave32)")
        );
        let w = get("kernel_code_properties.enable_wavefront_size32");
        assert_eq!((w.value, w.meaning.as_str()), (1, "wave32"));
        let m = get("compute_pgm_rsrc1.wgp_mode");
        assert_eq!((m.value, m.meaning.as_str()), (1, "WGP mode"));
        let s = get("compute_pgm_rsrc1.granulated_wavefront_sgpr_count");
        assert_eq!(s.value, 4);
        assert!(s.meaning.starts_with("ignored"));
        assert_eq!(get("compute_pgm_rsrc2.user_sgpr_count").value, 12);
        assert_eq!(
            get("compute_pgm_rsrc2.enable_vgpr_workitem_id").meaning,
            "work-item IDs X, Y, Z"
        );
        let g = kd.fields(t("gfx900"));
        let s9 = g
            .iter()
            .find(|x| x.name == "compute_pgm_rsrc1.granulated_wavefront_sgpr_count")
            .map(|x| x.meaning.clone());
        assert_eq!(s9.as_deref(), Some("48 SGPRs allocated"));
    }

    #[test]
    fn messages_name_bits() {
        assert_eq!(describe_set_bits(0x380), "bits 9:7");
        assert_eq!(describe_set_bits(0x8000_0001), "bit 0, bit 31");
        assert_eq!(describe_set_bits(u32::MAX), "bits 31:0");
        let mut kd = valid(t("gfx900"));
        kd.kernel_code_properties |= 0x3080;
        let mut sink = Sink::new();
        kd.check(t("gfx900"), CodeObjectVersion::V5, 0x40, &mut sink);
        assert_eq!(sink.violations.len(), 1);
        assert_eq!(
            sink.violations[0].offset,
            Some(0x40 + offsets::KERNEL_CODE_PROPERTIES)
        );
        assert_eq!(
            sink.violations[0].message,
            "kernel_code_properties 0x3089 has reserved bit 7, bits 13:12 set"
        );
    }

    proptest! {
        #[test]
        fn bytes_round_trip(v in proptest::collection::vec(any::<u8>(), KD_SIZE)) {
            let b: [u8; KD_SIZE] = v.as_slice().try_into().unwrap();
            let kd = KernelDescriptor::parse(&b);
            prop_assert_eq!(kd.to_bytes(), b);
            prop_assert_eq!(KernelDescriptor::parse(&kd.to_bytes()), kd);
        }

        #[test]
        fn struct_round_trip(
            g in any::<u32>(), p in any::<u32>(), k in any::<u32>(), r0 in any::<[u8; 4]>(),
            e in any::<i64>(), r1 in proptest::collection::vec(any::<u8>(), 20), r3 in any::<u32>(),
            rs1 in any::<u32>(), rs2 in any::<u32>(), props in any::<u16>(), pre in any::<u16>(), r3b in any::<[u8; 4]>(),
        ) {
            let kd = KernelDescriptor {
                group_segment_fixed_size: g, private_segment_fixed_size: p, kernarg_size: k, reserved0: r0,
                kernel_code_entry_byte_offset: e, reserved1: r1.as_slice().try_into().unwrap(),
                compute_pgm_rsrc3: r3, compute_pgm_rsrc1: rs1, compute_pgm_rsrc2: rs2,
                kernel_code_properties: props, kernarg_preload: pre, reserved3: r3b,
            };
            prop_assert_eq!(KernelDescriptor::parse(&kd.to_bytes()), kd);
        }

        #[test]
        fn any_bytes_any_target_never_panics(
            v in proptest::collection::vec(any::<u8>(), KD_SIZE),
            ti in any::<proptest::sample::Index>(),
            cov in 0u8..5,
            facts in any::<(Option<u64>, Option<u64>, Option<u64>, Option<u64>, Option<u64>, Option<bool>, Option<bool>)>(),
        ) {
            let b: [u8; KD_SIZE] = v.as_slice().try_into().unwrap();
            let kd = KernelDescriptor::parse(&b);
            if TARGETS.is_empty() { return Ok(()); }
            let target = &TARGETS[ti.index(TARGETS.len())];
            let cov = CodeObjectVersion::from_abi_version(cov).unwrap();
            let f = MetadataFacts {
                sgpr_count: facts.0, vgpr_count: facts.1, agpr_count: facts.2, wavefront_size: facts.3,
                group_segment_fixed_size: facts.4, private_segment_fixed_size: facts.0,
                kernarg_segment_size: facts.4, uses_dynamic_stack: facts.5, workgroup_processor_mode: facts.6,
            };
            let sink = run_all(&kd, &f, target, cov);
            for v in &sink.violations {
                prop_assert!(v.offset.is_some_and(|o| (0x100..0x140).contains(&o)));
            }
            let fields = kd.fields(target);
            prop_assert!(!fields.is_empty());
            let st = crate::sgpr::initial_state(&kd, target);
            prop_assert!(st.sgprs.len() <= 14 && st.vgprs.len() <= 3);
        }
    }
}

#[cfg(test)]
mod layout_masks {
    use super::*;
    use crate::targets::TARGETS;

    /// The reserved bits the table implies, per target, against the
    /// documents' lists (amdgpu-usage.rst, AMDGPUDisassembler.cpp).
    #[test]
    fn table_masks_are_the_documented_ones() {
        for t in TARGETS {
            let gen = t.generation;
            let mut r1 = 0x1800_0000u32;
            if gen < Generation::Gfx9 {
                r1 |= 1 << 26;
            }
            if gen < Generation::Gfx10 {
                r1 |= 0xE000_0000;
            }
            assert_eq!(reserved_mask(Word::Rsrc1, t), r1, "rsrc1 {}", t.name);
            let r2 = if gen < Generation::Gfx12 { 1 << 31 } else { 0 };
            assert_eq!(reserved_mask(Word::Rsrc2, t), r2, "rsrc2 {}", t.name);
            // ACCUM_OFFSET 5:0 and TG_SPLIT 16; SHARED_VGPR_COUNT 3:0;
            // GFX11 adds INST_PREF_SIZE 9:4, TRAP_ON_START/END 11:10 and
            // IMAGE_OP 31; GFX12: INST_PREF_SIZE 11:4, GLG_EN 13, IMAGE_OP 31.
            let r3 = match (t.accum_offset, gen) {
                (true, _) => !(0x3F | 1 << 16),
                (_, Generation::Gfx10) => !0xF,
                (_, Generation::Gfx11) => !(0xFFF | 1 << 31),
                (_, Generation::Gfx12) => !(0xFF0 | 1 << 13 | 1 << 31),
                _ => u32::MAX,
            };
            assert_eq!(reserved_mask(Word::Rsrc3, t), r3, "rsrc3 {}", t.name);
            assert_eq!(
                reserved_mask(Word::Properties, t),
                0xF380,
                "props {}",
                t.name
            );
        }
    }
}
