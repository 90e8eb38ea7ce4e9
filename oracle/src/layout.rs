//! Layout facts as data: the 64-byte kernel descriptor's byte offsets and
//! the bit fields of its
//! `compute_pgm_rsrc1/2/3`, `kernel_code_properties` and `kernarg_preload`
//! words, one row per field: name, `explain` path, position, width, the targets that
//! define it, the `.amdhsa_*` directive that sets it, how `llvm-objdump`
//! prints it, and what CP does with it. The descriptor's accessors and
//! reserved-bit rules ([`crate::kd`]) read this table; adding a field is
//! one row here (and, if it has one, its rule). The V2 `amd_kernel_code_t`
//! is in [`v2`], whose rsrc rows are these.
//!
//! Sources: amdgpu-usage.rst "Kernel Descriptor" and the
//! compute_pgm_rsrc1/2/3 tables; NOTES.md "Kernel descriptor"; LLVM
//! `AMDHSAKernelDescriptor.h` (positions), `AMDGPUAsmParser.cpp`
//! (directives) and `AMDGPUDisassembler.cpp` (what llvm-objdump prints),
//! checked with llvm-objdump and llvm-mc 14-22.

use crate::targets::{Generation, Target};

pub mod dispatch;
pub mod v2;

/// Size of a kernel descriptor in bytes.
pub const KD_SIZE: usize = 64;
/// Alignment of a kernel descriptor: in the file, in memory, and so of a
/// dispatch packet's `kernel_object` (amdgpu-usage.rst "Kernel
/// Descriptor": 64-byte aligned).
pub const KD_ALIGN: u64 = 64;

/// Byte offsets of the descriptor's fields, for reporting file offsets.
pub mod offsets {
    /// `group_segment_fixed_size` (u32).
    pub const GROUP_SEGMENT_FIXED_SIZE: u64 = 0;
    /// `private_segment_fixed_size` (u32).
    pub const PRIVATE_SEGMENT_FIXED_SIZE: u64 = 4;
    /// `kernarg_size` (u32).
    pub const KERNARG_SIZE: u64 = 8;
    /// First reserved range, 4 bytes.
    pub const RESERVED0: u64 = 12;
    /// `kernel_code_entry_byte_offset` (i64).
    pub const KERNEL_CODE_ENTRY_BYTE_OFFSET: u64 = 16;
    /// Second reserved range, 20 bytes.
    pub const RESERVED1: u64 = 24;
    /// `compute_pgm_rsrc3` (u32).
    pub const COMPUTE_PGM_RSRC3: u64 = 44;
    /// `compute_pgm_rsrc1` (u32).
    pub const COMPUTE_PGM_RSRC1: u64 = 48;
    /// `compute_pgm_rsrc2` (u32).
    pub const COMPUTE_PGM_RSRC2: u64 = 52;
    /// `kernel_code_properties` (u16).
    pub const KERNEL_CODE_PROPERTIES: u64 = 56;
    /// `kernarg_preload` (u16).
    pub const KERNARG_PRELOAD: u64 = 58;
    /// Last reserved range, 4 bytes.
    pub const RESERVED3: u64 = 60;
}

/// A word's name as a literal, so that [`BitField::path`] can be built at
/// compile time from the same spelling [`Word::name`] returns.
macro_rules! word_name {
    (Rsrc1) => {
        "compute_pgm_rsrc1"
    };
    (Rsrc2) => {
        "compute_pgm_rsrc2"
    };
    (Rsrc3) => {
        "compute_pgm_rsrc3"
    };
    (Properties) => {
        "kernel_code_properties"
    };
    (KernargPreload) => {
        "kernarg_preload"
    };
}

/// A descriptor word that holds bit fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Word {
    /// `compute_pgm_rsrc1`, bytes 48-51.
    Rsrc1,
    /// `compute_pgm_rsrc2`, bytes 52-55.
    Rsrc2,
    /// `compute_pgm_rsrc3`, bytes 44-47.
    Rsrc3,
    /// `kernel_code_properties`, bytes 56-57.
    Properties,
    /// `kernarg_preload`, bytes 58-59.
    KernargPreload,
}

impl Word {
    /// Every word, in descriptor order of their names in the documents.
    pub const ALL: [Word; 5] = [
        Word::Rsrc1,
        Word::Rsrc2,
        Word::Rsrc3,
        Word::Properties,
        Word::KernargPreload,
    ];
    /// The word's name in the documents and in `explain`.
    pub fn name(self) -> &'static str {
        match self {
            Word::Rsrc1 => word_name!(Rsrc1),
            Word::Rsrc2 => word_name!(Rsrc2),
            Word::Rsrc3 => word_name!(Rsrc3),
            Word::Properties => word_name!(Properties),
            Word::KernargPreload => word_name!(KernargPreload),
        }
    }
    /// Byte offset of the word in the 64-byte descriptor ([`offsets`]).
    pub const fn offset(self) -> u64 {
        match self {
            Word::Rsrc1 => offsets::COMPUTE_PGM_RSRC1,
            Word::Rsrc2 => offsets::COMPUTE_PGM_RSRC2,
            Word::Rsrc3 => offsets::COMPUTE_PGM_RSRC3,
            Word::Properties => offsets::KERNEL_CODE_PROPERTIES,
            Word::KernargPreload => offsets::KERNARG_PRELOAD,
        }
    }
    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Word::Properties | Word::KernargPreload => 16,
            _ => 32,
        }
    }
    /// All the word's bits.
    pub fn mask(self) -> u32 {
        if self.bits() == 32 {
            u32::MAX
        } else {
            (1 << self.bits()) - 1
        }
    }
}

/// How `llvm-objdump --disassemble-symbols=NAME.kd` (LLVM 19) shows a
/// field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Printed {
    /// As this directive (without `.amdhsa_`), the value the field encodes
    /// (a count the field holds in granules is printed as the count).
    Directive(&'static str),
    /// Only as a comment `; NAME value` (the assembler skips it).
    Comment(&'static str),
    /// Not at all, for this reason.
    Not(&'static str),
}

/// What CP and LLVM's tools do with a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Set by the compiler for the kernel.
    Kernel,
    /// CP fills it in at dispatch: the descriptor holds 0 and
    /// llvm-objdump refuses a non-zero value.
    CpSets,
}

/// One bit field of a descriptor word.
#[derive(Debug)]
pub struct BitField {
    /// Name as amdgpu-usage.rst spells it (`GRANULATED_WORKITEM_VGPR_COUNT`).
    pub name: &'static str,
    /// `word.field` as `explain` and [`crate::kd::KernelDescriptor::fields`]
    /// list it (`compute_pgm_rsrc1.granulated_workitem_vgpr_count`).
    pub path: &'static str,
    /// The word that holds it.
    pub word: Word,
    /// Lowest bit.
    pub shift: u32,
    /// Width in bits.
    pub width: u32,
    /// The targets that define the field (the bits are reserved elsewhere,
    /// unless another row defines them there).
    pub defined: fn(&Target) -> bool,
    /// The `.amdhsa_*` directive that sets it (without `.amdhsa_`), or
    /// `Err(reason)` when no directive does.
    pub directive: Result<&'static str, &'static str>,
    /// How llvm-objdump prints it.
    pub printed: Printed,
    /// Who sets it.
    pub role: Role,
    /// What it means, in one line.
    pub meaning: &'static str,
}

impl BitField {
    /// The field's bits within its word.
    pub const fn mask(&self) -> u32 {
        bit_mask(self.shift, self.width)
    }
    /// The field's value in `word`.
    pub fn get(&self, word: u32) -> u32 {
        (word & self.mask()) >> self.shift
    }
    /// `word` with the field set to `value` (its low `width` bits).
    pub fn set(&self, word: u32, value: u32) -> u32 {
        (word & !self.mask()) | ((value << self.shift) & self.mask())
    }
}

/// Bits `shift .. shift + width` of a 32-bit word.
pub const fn bit_mask(shift: u32, width: u32) -> u32 {
    let ones = if width >= 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    };
    ones << shift
}

/// Copies `N` bytes at `at` of `b`; a byte past the end reads as 0 (the
/// callers pass constant in-range offsets, and garbage must not panic).
pub(crate) fn take<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
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

/// Copies `src` to `at` of `out`, dropping what does not fit.
pub(crate) fn put(out: &mut [u8], at: usize, src: &[u8]) {
    for (i, s) in src.iter().enumerate() {
        if let Some(o) = at.checked_add(i).and_then(|j| out.get_mut(j)) {
            *o = *s;
        }
    }
}

/// Names each maximal run of set bits, so messages read "bits 15:11, bit
/// 23".
pub(crate) fn describe_set_bits(mask: u32) -> String {
    let mut parts = Vec::new();
    let mut m = mask;
    while m != 0 {
        let lo = m.trailing_zeros();
        let run = (m >> lo).trailing_ones();
        let hi = lo + run - 1;
        parts.push(if hi == lo {
            format!("bit {lo}")
        } else {
            format!("bits {hi}:{lo}")
        });
        m &= !bit_mask(lo, run);
    }
    parts.join(", ")
}

fn always(_: &Target) -> bool {
    true
}
fn gfx9_on(t: &Target) -> bool {
    t.generation >= Generation::Gfx9
}
fn gfx10_on(t: &Target) -> bool {
    t.generation >= Generation::Gfx10
}
fn before_gfx12(t: &Target) -> bool {
    t.generation < Generation::Gfx12
}
fn gfx12_on(t: &Target) -> bool {
    t.generation >= Generation::Gfx12
}
fn accum_offset(t: &Target) -> bool {
    t.accum_offset
}
fn gfx10_gfx11(t: &Target) -> bool {
    matches!(t.generation, Generation::Gfx10 | Generation::Gfx11) && !t.accum_offset
}
fn gfx11(t: &Target) -> bool {
    t.generation == Generation::Gfx11
}
fn gfx11_on(t: &Target) -> bool {
    t.generation >= Generation::Gfx11
}
fn gfx12_5_on(t: &Target) -> bool {
    t.is_gfx12_5()
}
fn before_gfx12_5(t: &Target) -> bool {
    !t.is_gfx12_5()
}
fn kernarg_preload(t: &Target) -> bool {
    t.kernarg_preload
}

const CP: &str = "CP fills it in; no directive sets it";
const NOT_CP: Printed = Printed::Not("CP fills it in: llvm-objdump refuses a non-zero value");

macro_rules! fields {
    ($( $(#[$m:meta])* $id:ident = ($name:literal, $key:literal, $word:ident, $shift:literal, $width:literal,
        $defined:expr, $directive:expr, $printed:expr, $role:ident, $meaning:literal); )*) => {
        $(
            $(#[$m])*
            #[doc = concat!("`", $name, "`: ", $meaning)]
            pub static $id: BitField = BitField {
                name: $name,
                path: concat!(word_name!($word), ".", $key),
                word: Word::$word,
                shift: $shift,
                width: $width,
                defined: $defined,
                directive: $directive,
                printed: $printed,
                role: Role::$role,
                meaning: $meaning,
            };
        )*
        /// Every field, word by word, lowest bit first.
        pub static FIELDS: &[&BitField] = &[$(&$id),*];
    };
}

fields! {
    GRANULATED_WORKITEM_VGPR_COUNT = ("GRANULATED_WORKITEM_VGPR_COUNT", "granulated_workitem_vgpr_count", Rsrc1, 0, 6, always,
        Ok("next_free_vgpr"), Printed::Directive("next_free_vgpr"), Kernel,
        "VGPR blocks allocated per work-item, minus 1");
    GRANULATED_WAVEFRONT_SGPR_COUNT = ("GRANULATED_WAVEFRONT_SGPR_COUNT", "granulated_wavefront_sgpr_count", Rsrc1, 6, 4, always,
        Ok("next_free_sgpr"), Printed::Directive("next_free_sgpr"), Kernel,
        "SGPR blocks allocated per wave, minus 1 (GFX6-GFX9; reserved from GFX10, rule kd.rsrc1.granulated_sgpr_count)");
    PRIORITY = ("PRIORITY", "priority", Rsrc1, 10, 2, always, Err(CP), NOT_CP, CpSets,
        "wave priority");
    FLOAT_ROUND_MODE_32 = ("FLOAT_ROUND_MODE_32", "float_round_mode_32", Rsrc1, 12, 2, always,
        Ok("float_round_mode_32"), Printed::Directive("float_round_mode_32"), Kernel,
        "round mode of 32-bit floats");
    FLOAT_ROUND_MODE_16_64 = ("FLOAT_ROUND_MODE_16_64", "float_round_mode_16_64", Rsrc1, 14, 2, always,
        Ok("float_round_mode_16_64"), Printed::Directive("float_round_mode_16_64"), Kernel,
        "round mode of 16- and 64-bit floats");
    FLOAT_DENORM_MODE_32 = ("FLOAT_DENORM_MODE_32", "float_denorm_mode_32", Rsrc1, 16, 2, always,
        Ok("float_denorm_mode_32"), Printed::Directive("float_denorm_mode_32"), Kernel,
        "denormal mode of 32-bit floats");
    FLOAT_DENORM_MODE_16_64 = ("FLOAT_DENORM_MODE_16_64", "float_denorm_mode_16_64", Rsrc1, 18, 2, always,
        Ok("float_denorm_mode_16_64"), Printed::Directive("float_denorm_mode_16_64"), Kernel,
        "denormal mode of 16- and 64-bit floats");
    PRIV = ("PRIV", "priv", Rsrc1, 20, 1, always, Err(CP), NOT_CP, CpSets,
        "privileged mode");
    ENABLE_DX10_CLAMP = ("ENABLE_DX10_CLAMP", "enable_dx10_clamp", Rsrc1, 21, 1, before_gfx12,
        Ok("dx10_clamp"), Printed::Directive("dx10_clamp"), Kernel,
        "DX10 clamp mode (GFX6-GFX11)");
    ENABLE_WG_RR_EN = ("ENABLE_WG_RR_EN", "enable_wg_rr_en", Rsrc1, 21, 1, gfx12_on,
        Ok("round_robin_scheduling"), Printed::Directive("round_robin_scheduling"), Kernel,
        "round-robin work-group scheduling (GFX12)");
    DEBUG_MODE = ("DEBUG_MODE", "debug_mode", Rsrc1, 22, 1, always, Err(CP), NOT_CP, CpSets,
        "debug mode");
    ENABLE_IEEE_MODE = ("ENABLE_IEEE_MODE", "enable_ieee_mode", Rsrc1, 23, 1, before_gfx12,
        Ok("ieee_mode"), Printed::Directive("ieee_mode"), Kernel,
        "IEEE mode (GFX6-GFX11)");
    DISABLE_PERF = ("DISABLE_PERF", "disable_perf", Rsrc1, 23, 1, gfx12_on,
        Err("LLVM 19 and 22 have no directive for it (errata: reassembly.gfx12-disable-perf-not-printed)"),
        Printed::Not("llvm-objdump-19 neither prints nor refuses it"), Kernel,
        "disable performance counters (GFX12)");
    BULKY = ("BULKY", "bulky", Rsrc1, 24, 1, always, Err(CP), NOT_CP, CpSets,
        "bulky mode");
    CDBG_USER = ("CDBG_USER", "cdbg_user", Rsrc1, 25, 1, always, Err(CP), NOT_CP, CpSets,
        "user debugging");
    FP16_OVFL = ("FP16_OVFL", "fp16_ovfl", Rsrc1, 26, 1, gfx9_on,
        Ok("fp16_overflow"), Printed::Directive("fp16_overflow"), Kernel,
        "FP16 overflow clamps to max (GFX9+)");
    FLAT_SCRATCH_IS_NV = ("FLAT_SCRATCH_IS_NV", "flat_scratch_is_nv", Rsrc1, 27, 1, gfx12_5_on,
        Err("LLVM 22 has no directive for it"), Printed::Comment("FLAT_SCRATCH_IS_NV"), Kernel,
        "flat scratch is NV (GFX12.5; named as llvm-objdump-22 prints it, no directive)");
    WGP_MODE = ("WGP_MODE", "wgp_mode", Rsrc1, 29, 1, gfx10_on,
        Ok("workgroup_processor_mode"), Printed::Directive("workgroup_processor_mode"), Kernel,
        "work-group processor mode, not CU mode (GFX10+)");
    MEM_ORDERED = ("MEM_ORDERED", "mem_ordered", Rsrc1, 30, 1, gfx10_on,
        Ok("memory_ordered"), Printed::Directive("memory_ordered"), Kernel,
        "memory operations return in order (GFX10+)");
    FWD_PROGRESS = ("FWD_PROGRESS", "fwd_progress", Rsrc1, 31, 1, gfx10_on,
        Ok("forward_progress"), Printed::Directive("forward_progress"), Kernel,
        "forward progress guarantee (GFX10+)");

    ENABLE_PRIVATE_SEGMENT = ("ENABLE_PRIVATE_SEGMENT", "enable_private_segment", Rsrc2, 0, 1, always,
        Ok("system_sgpr_private_segment_wavefront_offset"),
        Printed::Directive("system_sgpr_private_segment_wavefront_offset"), Kernel,
        "scratch is used; without architected flat scratch also the wave offset SGPR (`.amdhsa_enable_private_segment` with it)");
    USER_SGPR_COUNT = ("USER_SGPR_COUNT", "user_sgpr_count", Rsrc2, 1, 5, before_gfx12_5,
        Ok("user_sgpr_count"),
        Printed::Not("llvm-objdump prints the enables, not the count (errata: reassembly.user-sgpr-count-not-printed)"),
        Kernel, "user SGPRs CP sets up");
    USER_SGPR_COUNT_GFX125 = ("USER_SGPR_COUNT", "user_sgpr_count", Rsrc2, 1, 6, gfx12_5_on,
        Ok("user_sgpr_count"),
        Printed::Not("llvm-objdump prints the enables, not the count (errata: reassembly.user-sgpr-count-not-printed)"),
        Kernel, "user SGPRs CP sets up (6 bits on GFX12.5, which has up to 32)");
    ENABLE_TRAP_HANDLER = ("ENABLE_TRAP_HANDLER", "enable_trap_handler", Rsrc2, 6, 1, before_gfx12_5,
        Err("CP sets it when a trap handler is installed; rule kd.rsrc2.trap_handler"),
        Printed::Not("no directive to print"), Kernel,
        "trap handler enabled (GFX6-GFX11)");
    ENABLE_SGPR_WORKGROUP_ID_X = ("ENABLE_SGPR_WORKGROUP_ID_X", "enable_sgpr_workgroup_id_x", Rsrc2, 7, 1, always,
        Ok("system_sgpr_workgroup_id_x"), Printed::Directive("system_sgpr_workgroup_id_x"), Kernel,
        "work-group id X in a system SGPR");
    ENABLE_SGPR_WORKGROUP_ID_Y = ("ENABLE_SGPR_WORKGROUP_ID_Y", "enable_sgpr_workgroup_id_y", Rsrc2, 8, 1, always,
        Ok("system_sgpr_workgroup_id_y"), Printed::Directive("system_sgpr_workgroup_id_y"), Kernel,
        "work-group id Y in a system SGPR");
    ENABLE_SGPR_WORKGROUP_ID_Z = ("ENABLE_SGPR_WORKGROUP_ID_Z", "enable_sgpr_workgroup_id_z", Rsrc2, 9, 1, always,
        Ok("system_sgpr_workgroup_id_z"), Printed::Directive("system_sgpr_workgroup_id_z"), Kernel,
        "work-group id Z in a system SGPR");
    ENABLE_SGPR_WORKGROUP_INFO = ("ENABLE_SGPR_WORKGROUP_INFO", "enable_sgpr_workgroup_info", Rsrc2, 10, 1, always,
        Ok("system_sgpr_workgroup_info"), Printed::Directive("system_sgpr_workgroup_info"), Kernel,
        "work-group info in a system SGPR");
    ENABLE_VGPR_WORKITEM_ID = ("ENABLE_VGPR_WORKITEM_ID", "enable_vgpr_workitem_id", Rsrc2, 11, 2, always,
        Ok("system_vgpr_workitem_id"), Printed::Directive("system_vgpr_workitem_id"), Kernel,
        "work-item ids set up: 0 X, 1 X Y, 2 X Y Z");
    ENABLE_EXCEPTION_ADDRESS_WATCH = ("ENABLE_EXCEPTION_ADDRESS_WATCH", "enable_exception_address_watch", Rsrc2, 13, 1, always,
        Err(CP), NOT_CP, CpSets, "address watch exceptions");
    ENABLE_EXCEPTION_MEMORY = ("ENABLE_EXCEPTION_MEMORY", "enable_exception_memory", Rsrc2, 14, 1, always,
        Err(CP), NOT_CP, CpSets, "memory violation exceptions");
    GRANULATED_LDS_SIZE = ("GRANULATED_LDS_SIZE", "granulated_lds_size", Rsrc2, 15, 9, always,
        Err(CP), NOT_CP, CpSets, "LDS blocks (CP takes the packet's group segment size)");
    ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION = ("ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION", "enable_exception_ieee_754_fp_invalid_operation",
        Rsrc2, 24, 1, always, Ok("exception_fp_ieee_invalid_op"),
        Printed::Directive("exception_fp_ieee_invalid_op"), Kernel, "trap on invalid operations");
    ENABLE_EXCEPTION_FP_DENORMAL_SOURCE = ("ENABLE_EXCEPTION_FP_DENORMAL_SOURCE", "enable_exception_fp_denormal_source", Rsrc2, 25, 1,
        always, Ok("exception_fp_denorm_src"), Printed::Directive("exception_fp_denorm_src"),
        Kernel, "trap on denormal sources");
    ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO = ("ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO", "enable_exception_ieee_754_fp_division_by_zero",
        Rsrc2, 26, 1, always, Ok("exception_fp_ieee_div_zero"),
        Printed::Directive("exception_fp_ieee_div_zero"), Kernel, "trap on float division by zero");
    ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW = ("ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW", "enable_exception_ieee_754_fp_overflow", Rsrc2, 27, 1,
        always, Ok("exception_fp_ieee_overflow"), Printed::Directive("exception_fp_ieee_overflow"),
        Kernel, "trap on overflow");
    ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW = ("ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW", "enable_exception_ieee_754_fp_underflow", Rsrc2, 28, 1,
        always, Ok("exception_fp_ieee_underflow"), Printed::Directive("exception_fp_ieee_underflow"),
        Kernel, "trap on underflow");
    ENABLE_EXCEPTION_IEEE_754_FP_INEXACT = ("ENABLE_EXCEPTION_IEEE_754_FP_INEXACT", "enable_exception_ieee_754_fp_inexact", Rsrc2, 29, 1,
        always, Ok("exception_fp_ieee_inexact"), Printed::Directive("exception_fp_ieee_inexact"),
        Kernel, "trap on inexact results");
    ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO = ("ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO", "enable_exception_int_divide_by_zero", Rsrc2, 30, 1,
        always, Ok("exception_int_div_zero"), Printed::Directive("exception_int_div_zero"),
        Kernel, "trap on integer division by zero");
    WGP_TAKEOVER = ("WGP_TAKEOVER", "wgp_takeover", Rsrc2, 31, 1, gfx12_on,
        Err("LLVM 19 and 22 have no directive for it"), Printed::Comment("WGP_TAKEOVER"), Kernel,
        "work-group processor takeover (GFX12)");

    ACCUM_OFFSET = ("ACCUM_OFFSET", "accum_offset", Rsrc3, 0, 6, accum_offset,
        Ok("accum_offset"), Printed::Directive("accum_offset"), Kernel,
        "first AGPR / 4 - 1 (gfx90a family)");
    TG_SPLIT = ("TG_SPLIT", "tg_split", Rsrc3, 16, 1, accum_offset,
        Ok("tg_split"), Printed::Directive("tg_split"), Kernel,
        "work-groups may span CUs (gfx90a family)");
    SHARED_VGPR_COUNT = ("SHARED_VGPR_COUNT", "shared_vgpr_count", Rsrc3, 0, 4, gfx10_gfx11,
        Ok("shared_vgpr_count"), Printed::Directive("shared_vgpr_count"), Kernel,
        "VGPRs shared between the waves of a wave64 pair (GFX10-GFX11; a comment in wave32 kernels)");
    INST_PREF_SIZE_GFX11 = ("INST_PREF_SIZE", "inst_pref_size", Rsrc3, 4, 6, gfx11,
        Ok("inst_pref_size"), Printed::Comment("INST_PREF_SIZE"), Kernel,
        "instruction prefetch size in cache lines (GFX11; llvm-objdump-22 prints the directive)");
    INST_PREF_SIZE_GFX12 = ("INST_PREF_SIZE", "inst_pref_size", Rsrc3, 4, 8, gfx12_on,
        Ok("inst_pref_size"), Printed::Comment("INST_PREF_SIZE"), Kernel,
        "instruction prefetch size in cache lines (GFX12; llvm-objdump-22 prints the directive)");
    TRAP_ON_START = ("TRAP_ON_START", "trap_on_start", Rsrc3, 10, 1, gfx11,
        Err("LLVM 19 and 22 have no directive for it"), Printed::Comment("TRAP_ON_START"), Kernel,
        "trap before the first instruction (GFX11)");
    TRAP_ON_END = ("TRAP_ON_END", "trap_on_end", Rsrc3, 11, 1, gfx11,
        Err("LLVM 19 and 22 have no directive for it"), Printed::Comment("TRAP_ON_END"), Kernel,
        "trap after s_endpgm (GFX11)");
    GLG_EN = ("GLG_EN", "glg_en", Rsrc3, 13, 1, gfx12_on,
        Err("LLVM 19 and 22 have no directive for it"), Printed::Comment("GLG_EN"), Kernel,
        "group launch guarantee (GFX12)");
    NAMED_BAR_CNT = ("NAMED_BAR_CNT", "named_bar_cnt", Rsrc3, 14, 3, gfx12_5_on,
        Ok("named_barrier_count"), Printed::Directive("named_barrier_count"), Kernel,
        "named barrier count (GFX12.5)");
    ENABLE_DYNAMIC_VGPR = ("ENABLE_DYNAMIC_VGPR", "enable_dynamic_vgpr", Rsrc3, 17, 1, gfx12_5_on,
        Err("LLVM 22 has no directive for it"), Printed::Comment("ENABLE_DYNAMIC_VGPR"), Kernel,
        "dynamic VGPR enable (GFX12.5; named as llvm-objdump-22 prints it, no directive)");
    TCP_SPLIT = ("TCP_SPLIT", "tcp_split", Rsrc3, 18, 3, gfx12_5_on,
        Err("LLVM 22 has no directive for it"), Printed::Comment("TCP_SPLIT"), Kernel,
        "TCP split, 3 bits (GFX12.5; named as llvm-objdump-22 prints it, no directive)");
    ENABLE_DIDT_THROTTLE = ("ENABLE_DIDT_THROTTLE", "enable_didt_throttle", Rsrc3, 21, 1, gfx12_5_on,
        Err("LLVM 22 has no directive for it"), Printed::Comment("ENABLE_DIDT_THROTTLE"), Kernel,
        "di/dt throttle enable (GFX12.5; named as llvm-objdump-22 prints it, no directive)");
    IMAGE_OP = ("IMAGE_OP", "image_op", Rsrc3, 31, 1, gfx11_on,
        Err("LLVM 19 and 22 have no directive for it"), Printed::Comment("IMAGE_OP"), Kernel,
        "the kernel uses image instructions (GFX11+)");

    ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER = ("ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER", "enable_sgpr_private_segment_buffer", Properties, 0, 1,
        always, Ok("user_sgpr_private_segment_buffer"),
        Printed::Directive("user_sgpr_private_segment_buffer"), Kernel,
        "private segment buffer in 4 user SGPRs");
    ENABLE_SGPR_DISPATCH_PTR = ("ENABLE_SGPR_DISPATCH_PTR", "enable_sgpr_dispatch_ptr", Properties, 1, 1, always,
        Ok("user_sgpr_dispatch_ptr"), Printed::Directive("user_sgpr_dispatch_ptr"), Kernel,
        "dispatch packet address in 2 user SGPRs");
    ENABLE_SGPR_QUEUE_PTR = ("ENABLE_SGPR_QUEUE_PTR", "enable_sgpr_queue_ptr", Properties, 2, 1, always,
        Ok("user_sgpr_queue_ptr"), Printed::Directive("user_sgpr_queue_ptr"), Kernel,
        "queue address in 2 user SGPRs");
    ENABLE_SGPR_KERNARG_SEGMENT_PTR = ("ENABLE_SGPR_KERNARG_SEGMENT_PTR", "enable_sgpr_kernarg_segment_ptr", Properties, 3, 1, always,
        Ok("user_sgpr_kernarg_segment_ptr"), Printed::Directive("user_sgpr_kernarg_segment_ptr"),
        Kernel, "kernarg segment address in 2 user SGPRs");
    ENABLE_SGPR_DISPATCH_ID = ("ENABLE_SGPR_DISPATCH_ID", "enable_sgpr_dispatch_id", Properties, 4, 1, always,
        Ok("user_sgpr_dispatch_id"), Printed::Directive("user_sgpr_dispatch_id"), Kernel,
        "dispatch id in 2 user SGPRs");
    ENABLE_SGPR_FLAT_SCRATCH_INIT = ("ENABLE_SGPR_FLAT_SCRATCH_INIT", "enable_sgpr_flat_scratch_init", Properties, 5, 1, always,
        Ok("user_sgpr_flat_scratch_init"), Printed::Directive("user_sgpr_flat_scratch_init"),
        Kernel, "flat scratch setup in 2 user SGPRs");
    ENABLE_SGPR_PRIVATE_SEGMENT_SIZE = ("ENABLE_SGPR_PRIVATE_SEGMENT_SIZE", "enable_sgpr_private_segment_size", Properties, 6, 1,
        always, Ok("user_sgpr_private_segment_size"),
        Printed::Directive("user_sgpr_private_segment_size"), Kernel,
        "private segment size in 1 user SGPR");
    ENABLE_WAVEFRONT_SIZE32 = ("ENABLE_WAVEFRONT_SIZE32", "enable_wavefront_size32", Properties, 10, 1, always,
        Ok("wavefront_size32"), Printed::Directive("wavefront_size32"), Kernel,
        "wave32 (GFX10+; rule kd.properties.wavefront_size32 before)");
    USES_DYNAMIC_STACK = ("USES_DYNAMIC_STACK", "uses_dynamic_stack", Properties, 11, 1, always,
        Ok("uses_dynamic_stack"), Printed::Directive("uses_dynamic_stack"), Kernel,
        "the kernel's stack size is not known statically (V5+; rule kd.properties.uses_dynamic_stack before)");

    KERNARG_PRELOAD_SPEC_LENGTH = ("KERNARG_PRELOAD_SPEC_LENGTH", "length", KernargPreload, 0, 7,
        kernarg_preload, Ok("user_sgpr_kernarg_preload_length"),
        Printed::Directive("user_sgpr_kernarg_preload_length"), Kernel,
        "kernarg dwords preloaded into user SGPRs");
    KERNARG_PRELOAD_SPEC_OFFSET = ("KERNARG_PRELOAD_SPEC_OFFSET", "offset", KernargPreload, 7, 9,
        kernarg_preload, Ok("user_sgpr_kernarg_preload_offset"),
        Printed::Directive("user_sgpr_kernarg_preload_offset"), Kernel,
        "first preloaded kernarg dword");
}

/// The floating-point exception enables of `compute_pgm_rsrc2`, bit 24
/// first (the order of `.amdhsa_exception_*` and of a 7-bit exception mask).
pub static EXCEPTIONS: [&BitField; 7] = [
    &ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION,
    &ENABLE_EXCEPTION_FP_DENORMAL_SOURCE,
    &ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO,
    &ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW,
    &ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW,
    &ENABLE_EXCEPTION_IEEE_754_FP_INEXACT,
    &ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO,
];

/// The user SGPR enables of `kernel_code_properties`, bit 0 first (the
/// order the user SGPRs are laid out in).
pub static USER_SGPR_ENABLES: [&BitField; 7] = [
    &ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER,
    &ENABLE_SGPR_DISPATCH_PTR,
    &ENABLE_SGPR_QUEUE_PTR,
    &ENABLE_SGPR_KERNARG_SEGMENT_PTR,
    &ENABLE_SGPR_DISPATCH_ID,
    &ENABLE_SGPR_FLAT_SCRATCH_INIT,
    &ENABLE_SGPR_PRIVATE_SEGMENT_SIZE,
];

/// The work-group id enables of `compute_pgm_rsrc2`, X first.
pub static WORKGROUP_IDS: [&BitField; 3] = [
    &ENABLE_SGPR_WORKGROUP_ID_X,
    &ENABLE_SGPR_WORKGROUP_ID_Y,
    &ENABLE_SGPR_WORKGROUP_ID_Z,
];

/// The USER_SGPR_COUNT row `target` defines: 5 bits, 6 on GFX12.5.
pub fn user_sgpr_count_field(target: &Target) -> &'static BitField {
    if (USER_SGPR_COUNT_GFX125.defined)(target) {
        &USER_SGPR_COUNT_GFX125
    } else {
        &USER_SGPR_COUNT
    }
}

/// The fields `target` defines in `word`.
pub fn defined(word: Word, target: &Target) -> impl Iterator<Item = &'static BitField> + '_ {
    FIELDS
        .iter()
        .copied()
        .filter(move |f| f.word == word && (f.defined)(target))
}

/// The bits of `word` no field defines on `target`: reserved, must be 0.
pub fn reserved_mask(word: Word, target: &Target) -> u32 {
    word.mask() & !defined(word, target).fold(0, |m, f| m | f.mask())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::targets::TARGETS;

    #[test]
    fn every_field_has_a_directive_and_a_printed_name_or_a_reason() {
        for f in FIELDS {
            match f.directive {
                Ok(d) => assert!(!d.is_empty() && !d.starts_with('.'), "{}", f.name),
                Err(why) => assert!(why.len() > 10, "{}: no reason", f.name),
            }
            match f.printed {
                Printed::Directive(d) | Printed::Comment(d) => assert!(!d.is_empty(), "{}", f.name),
                Printed::Not(why) => assert!(why.len() > 10, "{}: no reason", f.name),
            }
            // What CP fills in has no directive, and llvm-objdump refuses it.
            if f.role == Role::CpSets {
                assert!(f.directive.is_err() && f.printed == NOT_CP, "{}", f.name);
            }
            assert!(
                f.width > 0 && f.shift + f.width <= f.word.bits(),
                "{}",
                f.name
            );
        }
    }

    #[test]
    fn paths_are_the_word_and_the_lower_case_name() {
        for f in FIELDS {
            let field = f.name.to_lowercase();
            // The kernarg preload fields go by their last word in explain.
            let field = field
                .strip_prefix("kernarg_preload_spec_")
                .unwrap_or(&field);
            assert_eq!(f.path, format!("{}.{field}", f.word.name()), "{}", f.name);
        }
    }

    #[test]
    fn fields_of_one_target_do_not_overlap() {
        for t in TARGETS {
            for w in Word::ALL {
                let mut seen = 0u32;
                for f in defined(w, t) {
                    assert_eq!(
                        seen & f.mask(),
                        0,
                        "{} {} overlaps on {}",
                        w.name(),
                        f.name,
                        t.name
                    );
                    seen |= f.mask();
                }
            }
        }
    }

    #[test]
    fn bit_groups_are_consecutive_in_order() {
        let groups: [(&[&BitField], Word, u32); 3] = [
            (&EXCEPTIONS, Word::Rsrc2, 24),
            (&USER_SGPR_ENABLES, Word::Properties, 0),
            (&WORKGROUP_IDS, Word::Rsrc2, 7),
        ];
        for (fields, word, first) in groups {
            for (k, f) in fields.iter().enumerate() {
                assert_eq!(
                    (f.word, f.shift, f.width),
                    (word, first + k as u32, 1),
                    "{}",
                    f.name
                );
            }
        }
    }

    #[test]
    fn get_and_set_round_trip() {
        for f in FIELDS {
            let max = f.mask() >> f.shift;
            let w = f.set(0xa5a5_a5a5 & f.word.mask(), max);
            assert_eq!(f.get(w), max, "{}", f.name);
            assert_eq!(w & !f.mask(), 0xa5a5_a5a5 & f.word.mask() & !f.mask());
            assert_eq!(f.get(f.set(w, 0)), 0);
        }
    }
}
