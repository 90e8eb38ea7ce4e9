//! The 256-byte `amd_kernel_code_t` of code object V2 as data: its byte
//! offsets, the bits of `code_properties`, and one row per member as
//! [`crate::kernel_code::KernelCode::fields`] lists it: where it is, which
//! processors define it, the `.amd_kernel_code_t` key LLVM's assembler
//! takes for it and how LLVM prints it. `compute_pgm_rsrc1/2` hold the
//! same bit fields as in the V3+ descriptor, so those rows point at the
//! descriptor's rows ([`super::FIELDS`]); so do the user SGPR enables and
//! the wave32 bit, which V2's `code_properties` has at the same bits.
//!
//! How LLVM prints it: `llvm-mc` 14-16 and `llc` print the block as
//! `.amd_kernel_code_t` with one `key = value` line per key (the rows'
//! [`Printed`]); `llvm-objdump` 14-22 print no member at all, only the 256
//! bytes as `.byte` lines (14: decoding failed; 19 and later: code object
//! v2 is not supported). LLVM 17 and later no longer assemble V2.
//!
//! Sources: rocm-code-object-format.rst "AMD Kernel Code Object
//! amd_kernel_code_t"; LLVM `AMDKernelCodeT.h` (layout, property bits) and
//! `Utils/AMDKernelCodeTInfo.h` (keys); ROCm `amd_hsa_kernel_code.h`
//! (control directives); keys checked with llvm-mc-14/15/16.

use super::{BitField, Printed};
use crate::targets::{Generation, Target};

/// Size of an `amd_kernel_code_t` in bytes.
pub const KERNEL_CODE_SIZE: usize = 256;

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

/// Byte ranges of the control directives block (relative to
/// [`offsets::CONTROL_DIRECTIVES`]) that are reserved.
pub const CONTROL_DIRECTIVES_RESERVED_RANGES: [(usize, usize); 2] = [(29, 32), (68, 128)];

/// Which bits of a member a row is.
#[derive(Debug)]
pub enum Bits {
    /// All of it: a little-endian integer of [`Member::size`] bytes.
    Whole,
    /// The V3+ descriptor's bit field at the same bits of the same word.
    Shared(&'static BitField),
    /// A bit field of V2's own (the bits of [`props`] or a group of
    /// `compute_pgm_rsrc1/2` bits that LLVM sets with one key).
    Own(u32),
}

/// One member of `amd_kernel_code_t`, or one bit field of a member.
#[derive(Debug)]
pub struct Member {
    /// Name as `explain` lists it: the structure's member, `word.field`
    /// for bit fields (`compute_pgm_rsrc1.priv`), `control_directives.*`
    /// inside the control directives.
    pub name: &'static str,
    /// Byte offset of the member (of the word, for a bit field).
    pub offset: u64,
    /// Size in bytes (of the word, for a bit field).
    pub size: u64,
    /// Which bits.
    pub bits: Bits,
    /// The processors that define it.
    pub defined: fn(&Target) -> bool,
    /// The `.amd_kernel_code_t` key that sets it (what LLVM prints), or
    /// `Err(reason)` when no key does.
    pub key: Result<&'static str, &'static str>,
    /// Another key LLVM's assembler accepts for it (`compute_pgm_rsrc1_vgprs`).
    pub alias: Option<&'static str>,
    /// How LLVM prints it in `.amd_kernel_code_t` (see the module docs for
    /// llvm-objdump, which prints no member).
    pub printed: Printed,
}

impl Member {
    /// The row's bits within its word (all ones for a whole member).
    pub fn mask(&self) -> u64 {
        match self.bits {
            Bits::Whole if self.size >= 8 => u64::MAX,
            Bits::Whole => (1u64 << (8 * self.size)) - 1,
            Bits::Shared(f) => f.mask().into(),
            Bits::Own(m) => m.into(),
        }
    }
    /// The row's value in the 256 bytes of an `amd_kernel_code_t`
    /// (signed members as their two's-complement bits).
    pub fn get(&self, bytes: &[u8]) -> u64 {
        let mut raw = [0u8; 8];
        let at = self.offset as usize;
        if let Some(src) = bytes.get(at..at + self.size as usize) {
            raw[..src.len()].copy_from_slice(src);
        }
        self.value_in(u64::from_le_bytes(raw))
    }
    /// The row's value in its word `word`.
    pub fn value_in(&self, word: u64) -> u64 {
        (word & self.mask()) >> self.mask().trailing_zeros().min(63)
    }
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

/// The word a shared row is in: `compute_pgm_rsrc1/2` or `code_properties`.
const fn word_of(f: &BitField) -> u64 {
    match f.word {
        super::Word::Rsrc1 => offsets::COMPUTE_PGM_RSRC1,
        super::Word::Rsrc2 => offsets::COMPUTE_PGM_RSRC2,
        // V2 has no rsrc3 or kernarg preload word: its only other bit
        // word is code_properties, whose low bits are the descriptor's.
        _ => offsets::CODE_PROPERTIES,
    }
}

const NO_KEY: &str = "LLVM 14-16 have no .amd_kernel_code_t key for it";
const NOT_PRINTED: Printed = Printed::Not("LLVM has no key to print it with");
const IN_FLOAT_MODE_KEY: &str =
    "set with float_mode (compute_pgm_rsrc1_float_mode), which covers bits 19:12";
const IN_FLOAT_MODE: Printed = Printed::Not("printed within float_mode");
const IN_EXCEPTION_MSB_KEY: &str =
    "set with enable_exception_msb (compute_pgm_rsrc2_excp_en_msb), which covers bits 14:13";
const IN_EXCEPTION_MSB: Printed = Printed::Not("printed within enable_exception_msb");
const IN_EXCEPTION_KEY: &str =
    "set with enable_exception (compute_pgm_rsrc2_excp_en), which covers bits 30:24";
const IN_EXCEPTION: Printed = Printed::Not("printed within enable_exception");
const CP: &str = "CP fills it in; LLVM has no key for it";
const DIRECTIVES: &str = "LLVM has no key for the control directives and writes them as 0";

macro_rules! members {
    ($( $(#[$m:meta])* $id:ident = ($name:literal, $at:expr, $defined:expr, $key:expr, $alias:expr, $printed:expr); )*) => {
        $(
            $(#[$m])*
            #[doc = concat!("`", $name, "`.")]
            pub static $id: Member = {
                let (offset, size, bits) = $at;
                Member {
                    name: $name,
                    offset,
                    size,
                    bits,
                    defined: $defined,
                    key: $key,
                    alias: $alias,
                    printed: $printed,
                }
            };
        )*
        /// Every row, in the order of the structure (a key that covers a
        /// group of bits comes before the bits it covers, as LLVM prints).
        pub static MEMBERS: &[&Member] = &[$(&$id),*];
    };
}

/// A whole member at `offset` of `size` bytes.
const fn at(offset: u64, size: u64) -> (u64, u64, Bits) {
    (offset, size, Bits::Whole)
}
/// The descriptor's row `f`, at the same bits of the V2 word.
const fn shared(f: &'static BitField) -> (u64, u64, Bits) {
    (word_of(f), 4, Bits::Shared(f))
}
/// V2's own bits `mask` of the 4-byte word at `offset`.
const fn own(offset: u64, mask: u32) -> (u64, u64, Bits) {
    (offset, 4, Bits::Own(mask))
}
/// A control directive `offset` bytes into the block.
const fn directive(offset: u64, size: u64) -> (u64, u64, Bits) {
    (offsets::CONTROL_DIRECTIVES + offset, size, Bits::Whole)
}
/// A key that LLVM prints as itself.
const fn key(k: &'static str) -> Result<&'static str, &'static str> {
    Ok(k)
}

members! {
    VERSION_MAJOR = ("amd_kernel_code_version_major", at(offsets::VERSION_MAJOR, 4), always,
        key("amd_code_version_major"), None, Printed::Directive("amd_code_version_major"));
    VERSION_MINOR = ("amd_kernel_code_version_minor", at(offsets::VERSION_MINOR, 4), always,
        key("amd_code_version_minor"), None, Printed::Directive("amd_code_version_minor"));
    MACHINE_KIND = ("amd_machine_kind", at(offsets::MACHINE_KIND, 2), always,
        key("amd_machine_kind"), None, Printed::Directive("amd_machine_kind"));
    MACHINE_VERSION_MAJOR = ("amd_machine_version_major", at(offsets::MACHINE_VERSION_MAJOR, 2), always,
        key("amd_machine_version_major"), None, Printed::Directive("amd_machine_version_major"));
    MACHINE_VERSION_MINOR = ("amd_machine_version_minor", at(offsets::MACHINE_VERSION_MINOR, 2), always,
        key("amd_machine_version_minor"), None, Printed::Directive("amd_machine_version_minor"));
    MACHINE_VERSION_STEPPING = ("amd_machine_version_stepping", at(offsets::MACHINE_VERSION_STEPPING, 2), always,
        key("amd_machine_version_stepping"), None, Printed::Directive("amd_machine_version_stepping"));
    KERNEL_CODE_ENTRY_BYTE_OFFSET = ("kernel_code_entry_byte_offset", at(offsets::KERNEL_CODE_ENTRY_BYTE_OFFSET, 8), always,
        key("kernel_code_entry_byte_offset"), None, Printed::Directive("kernel_code_entry_byte_offset"));
    KERNEL_CODE_PREFETCH_BYTE_OFFSET = ("kernel_code_prefetch_byte_offset", at(offsets::KERNEL_CODE_PREFETCH_BYTE_OFFSET, 8), always,
        Err(NO_KEY), None, NOT_PRINTED);
    KERNEL_CODE_PREFETCH_BYTE_SIZE = ("kernel_code_prefetch_byte_size", at(offsets::KERNEL_CODE_PREFETCH_BYTE_SIZE, 8), always,
        key("kernel_code_prefetch_byte_size"), None, Printed::Directive("kernel_code_prefetch_byte_size"));
    MAX_SCRATCH_BACKING_MEMORY_BYTE_SIZE = ("max_scratch_backing_memory_byte_size", at(offsets::MAX_SCRATCH_BACKING_MEMORY_BYTE_SIZE, 8), always,
        key("max_scratch_backing_memory_byte_size"), None, Printed::Not("deprecated: the assembler accepts and ignores the key, and LLVM does not print it"));
    GRANULATED_WORKITEM_VGPR_COUNT = ("compute_pgm_rsrc1.granulated_workitem_vgpr_count", shared(&super::GRANULATED_WORKITEM_VGPR_COUNT), always,
        key("granulated_workitem_vgpr_count"), Some("compute_pgm_rsrc1_vgprs"), Printed::Directive("granulated_workitem_vgpr_count"));
    GRANULATED_WAVEFRONT_SGPR_COUNT = ("compute_pgm_rsrc1.granulated_wavefront_sgpr_count", shared(&super::GRANULATED_WAVEFRONT_SGPR_COUNT), always,
        key("granulated_wavefront_sgpr_count"), Some("compute_pgm_rsrc1_sgprs"), Printed::Directive("granulated_wavefront_sgpr_count"));
    PRIORITY = ("compute_pgm_rsrc1.priority", shared(&super::PRIORITY), always,
        key("priority"), Some("compute_pgm_rsrc1_priority"), Printed::Directive("priority"));
    FLOAT_MODE = ("compute_pgm_rsrc1.float_mode", own(offsets::COMPUTE_PGM_RSRC1, 0xff << 12), always,
        key("float_mode"), Some("compute_pgm_rsrc1_float_mode"), Printed::Directive("float_mode"));
    FLOAT_ROUND_MODE_32 = ("compute_pgm_rsrc1.float_mode_round_32", shared(&super::FLOAT_ROUND_MODE_32), always,
        Err(IN_FLOAT_MODE_KEY), None, IN_FLOAT_MODE);
    FLOAT_ROUND_MODE_16_64 = ("compute_pgm_rsrc1.float_mode_round_16_64", shared(&super::FLOAT_ROUND_MODE_16_64), always,
        Err(IN_FLOAT_MODE_KEY), None, IN_FLOAT_MODE);
    FLOAT_DENORM_MODE_32 = ("compute_pgm_rsrc1.float_mode_denorm_32", shared(&super::FLOAT_DENORM_MODE_32), always,
        Err(IN_FLOAT_MODE_KEY), None, IN_FLOAT_MODE);
    FLOAT_DENORM_MODE_16_64 = ("compute_pgm_rsrc1.float_mode_denorm_16_64", shared(&super::FLOAT_DENORM_MODE_16_64), always,
        Err(IN_FLOAT_MODE_KEY), None, IN_FLOAT_MODE);
    PRIV = ("compute_pgm_rsrc1.priv", shared(&super::PRIV), always,
        key("priv"), Some("compute_pgm_rsrc1_priv"), Printed::Directive("priv"));
    ENABLE_DX10_CLAMP = ("compute_pgm_rsrc1.enable_dx10_clamp", shared(&super::ENABLE_DX10_CLAMP), always,
        key("enable_dx10_clamp"), Some("compute_pgm_rsrc1_dx10_clamp"), Printed::Directive("enable_dx10_clamp"));
    DEBUG_MODE = ("compute_pgm_rsrc1.debug_mode", shared(&super::DEBUG_MODE), always,
        key("debug_mode"), Some("compute_pgm_rsrc1_debug_mode"), Printed::Directive("debug_mode"));
    ENABLE_IEEE_MODE = ("compute_pgm_rsrc1.enable_ieee_mode", shared(&super::ENABLE_IEEE_MODE), always,
        key("enable_ieee_mode"), Some("compute_pgm_rsrc1_ieee_mode"), Printed::Directive("enable_ieee_mode"));
    BULKY = ("compute_pgm_rsrc1.bulky", shared(&super::BULKY), always,
        Err(CP), None, NOT_PRINTED);
    CDBG_USER = ("compute_pgm_rsrc1.cdbg_user", shared(&super::CDBG_USER), always,
        Err(CP), None, NOT_PRINTED);
    FP16_OVFL = ("compute_pgm_rsrc1.fp16_ovfl", shared(&super::FP16_OVFL), gfx9_on,
        Err(NO_KEY), None, NOT_PRINTED);
    WGP_MODE = ("compute_pgm_rsrc1.enable_wgp_mode", shared(&super::WGP_MODE), gfx10_on,
        key("enable_wgp_mode"), Some("compute_pgm_rsrc1_wgp_mode"), Printed::Directive("enable_wgp_mode"));
    MEM_ORDERED = ("compute_pgm_rsrc1.enable_mem_ordered", shared(&super::MEM_ORDERED), gfx10_on,
        key("enable_mem_ordered"), Some("compute_pgm_rsrc1_mem_ordered"), Printed::Directive("enable_mem_ordered"));
    FWD_PROGRESS = ("compute_pgm_rsrc1.enable_fwd_progress", shared(&super::FWD_PROGRESS), gfx10_on,
        key("enable_fwd_progress"), Some("compute_pgm_rsrc1_fwd_progress"), Printed::Directive("enable_fwd_progress"));
    ENABLE_SGPR_PRIVATE_SEGMENT_WAVE_BYTE_OFFSET = ("compute_pgm_rsrc2.enable_sgpr_private_segment_wave_byte_offset", shared(&super::ENABLE_PRIVATE_SEGMENT), always,
        key("enable_sgpr_private_segment_wave_byte_offset"), Some("compute_pgm_rsrc2_scratch_en"), Printed::Directive("enable_sgpr_private_segment_wave_byte_offset"));
    USER_SGPR_COUNT = ("compute_pgm_rsrc2.user_sgpr_count", shared(&super::USER_SGPR_COUNT), always,
        key("user_sgpr_count"), Some("compute_pgm_rsrc2_user_sgpr"), Printed::Directive("user_sgpr_count"));
    ENABLE_TRAP_HANDLER = ("compute_pgm_rsrc2.enable_trap_handler", shared(&super::ENABLE_TRAP_HANDLER), always,
        key("enable_trap_handler"), Some("compute_pgm_rsrc2_trap_handler"), Printed::Directive("enable_trap_handler"));
    ENABLE_SGPR_WORKGROUP_ID_X = ("compute_pgm_rsrc2.enable_sgpr_workgroup_id_x", shared(&super::ENABLE_SGPR_WORKGROUP_ID_X), always,
        key("enable_sgpr_workgroup_id_x"), Some("compute_pgm_rsrc2_tgid_x_en"), Printed::Directive("enable_sgpr_workgroup_id_x"));
    ENABLE_SGPR_WORKGROUP_ID_Y = ("compute_pgm_rsrc2.enable_sgpr_workgroup_id_y", shared(&super::ENABLE_SGPR_WORKGROUP_ID_Y), always,
        key("enable_sgpr_workgroup_id_y"), Some("compute_pgm_rsrc2_tgid_y_en"), Printed::Directive("enable_sgpr_workgroup_id_y"));
    ENABLE_SGPR_WORKGROUP_ID_Z = ("compute_pgm_rsrc2.enable_sgpr_workgroup_id_z", shared(&super::ENABLE_SGPR_WORKGROUP_ID_Z), always,
        key("enable_sgpr_workgroup_id_z"), Some("compute_pgm_rsrc2_tgid_z_en"), Printed::Directive("enable_sgpr_workgroup_id_z"));
    ENABLE_SGPR_WORKGROUP_INFO = ("compute_pgm_rsrc2.enable_sgpr_workgroup_info", shared(&super::ENABLE_SGPR_WORKGROUP_INFO), always,
        key("enable_sgpr_workgroup_info"), Some("compute_pgm_rsrc2_tg_size_en"), Printed::Directive("enable_sgpr_workgroup_info"));
    ENABLE_VGPR_WORKITEM_ID = ("compute_pgm_rsrc2.enable_vgpr_workitem_id", shared(&super::ENABLE_VGPR_WORKITEM_ID), always,
        key("enable_vgpr_workitem_id"), Some("compute_pgm_rsrc2_tidig_comp_cnt"), Printed::Directive("enable_vgpr_workitem_id"));
    ENABLE_EXCEPTION_MSB = ("compute_pgm_rsrc2.enable_exception_msb", own(offsets::COMPUTE_PGM_RSRC2, 3 << 13), always,
        key("enable_exception_msb"), Some("compute_pgm_rsrc2_excp_en_msb"), Printed::Directive("enable_exception_msb"));
    ENABLE_EXCEPTION_ADDRESS_WATCH = ("compute_pgm_rsrc2.enable_exception_address_watch", shared(&super::ENABLE_EXCEPTION_ADDRESS_WATCH), always,
        Err(IN_EXCEPTION_MSB_KEY), None, IN_EXCEPTION_MSB);
    ENABLE_EXCEPTION_MEMORY_VIOLATION = ("compute_pgm_rsrc2.enable_exception_memory_violation", shared(&super::ENABLE_EXCEPTION_MEMORY), always,
        Err(IN_EXCEPTION_MSB_KEY), None, IN_EXCEPTION_MSB);
    GRANULATED_LDS_SIZE = ("compute_pgm_rsrc2.granulated_lds_size", shared(&super::GRANULATED_LDS_SIZE), always,
        key("granulated_lds_size"), Some("compute_pgm_rsrc2_lds_size"), Printed::Directive("granulated_lds_size"));
    ENABLE_EXCEPTION = ("compute_pgm_rsrc2.enable_exception", own(offsets::COMPUTE_PGM_RSRC2, 0x7f << 24), always,
        key("enable_exception"), Some("compute_pgm_rsrc2_excp_en"), Printed::Directive("enable_exception"));
    ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION = ("compute_pgm_rsrc2.enable_exception_ieee_754_fp_invalid_operation", shared(&super::ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION), always,
        Err(IN_EXCEPTION_KEY), None, IN_EXCEPTION);
    ENABLE_EXCEPTION_FP_DENORMAL_SOURCE = ("compute_pgm_rsrc2.enable_exception_fp_denormal_source", shared(&super::ENABLE_EXCEPTION_FP_DENORMAL_SOURCE), always,
        Err(IN_EXCEPTION_KEY), None, IN_EXCEPTION);
    ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO = ("compute_pgm_rsrc2.enable_exception_ieee_754_fp_division_by_zero", shared(&super::ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO), always,
        Err(IN_EXCEPTION_KEY), None, IN_EXCEPTION);
    ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW = ("compute_pgm_rsrc2.enable_exception_ieee_754_fp_overflow", shared(&super::ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW), always,
        Err(IN_EXCEPTION_KEY), None, IN_EXCEPTION);
    ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW = ("compute_pgm_rsrc2.enable_exception_ieee_754_fp_underflow", shared(&super::ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW), always,
        Err(IN_EXCEPTION_KEY), None, IN_EXCEPTION);
    ENABLE_EXCEPTION_IEEE_754_FP_INEXACT = ("compute_pgm_rsrc2.enable_exception_ieee_754_fp_inexact", shared(&super::ENABLE_EXCEPTION_IEEE_754_FP_INEXACT), always,
        Err(IN_EXCEPTION_KEY), None, IN_EXCEPTION);
    ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO = ("compute_pgm_rsrc2.enable_exception_int_divide_by_zero", shared(&super::ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO), always,
        Err(IN_EXCEPTION_KEY), None, IN_EXCEPTION);
    ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER = ("code_properties.enable_sgpr_private_segment_buffer", shared(&super::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER), always,
        key("enable_sgpr_private_segment_buffer"), None, Printed::Directive("enable_sgpr_private_segment_buffer"));
    ENABLE_SGPR_DISPATCH_PTR = ("code_properties.enable_sgpr_dispatch_ptr", shared(&super::ENABLE_SGPR_DISPATCH_PTR), always,
        key("enable_sgpr_dispatch_ptr"), None, Printed::Directive("enable_sgpr_dispatch_ptr"));
    ENABLE_SGPR_QUEUE_PTR = ("code_properties.enable_sgpr_queue_ptr", shared(&super::ENABLE_SGPR_QUEUE_PTR), always,
        key("enable_sgpr_queue_ptr"), None, Printed::Directive("enable_sgpr_queue_ptr"));
    ENABLE_SGPR_KERNARG_SEGMENT_PTR = ("code_properties.enable_sgpr_kernarg_segment_ptr", shared(&super::ENABLE_SGPR_KERNARG_SEGMENT_PTR), always,
        key("enable_sgpr_kernarg_segment_ptr"), None, Printed::Directive("enable_sgpr_kernarg_segment_ptr"));
    ENABLE_SGPR_DISPATCH_ID = ("code_properties.enable_sgpr_dispatch_id", shared(&super::ENABLE_SGPR_DISPATCH_ID), always,
        key("enable_sgpr_dispatch_id"), None, Printed::Directive("enable_sgpr_dispatch_id"));
    ENABLE_SGPR_FLAT_SCRATCH_INIT = ("code_properties.enable_sgpr_flat_scratch_init", shared(&super::ENABLE_SGPR_FLAT_SCRATCH_INIT), always,
        key("enable_sgpr_flat_scratch_init"), None, Printed::Directive("enable_sgpr_flat_scratch_init"));
    ENABLE_SGPR_PRIVATE_SEGMENT_SIZE = ("code_properties.enable_sgpr_private_segment_size", shared(&super::ENABLE_SGPR_PRIVATE_SEGMENT_SIZE), always,
        key("enable_sgpr_private_segment_size"), None, Printed::Directive("enable_sgpr_private_segment_size"));
    ENABLE_SGPR_GRID_WORKGROUP_COUNT_X = ("code_properties.enable_sgpr_grid_workgroup_count_x", own(offsets::CODE_PROPERTIES, props::ENABLE_SGPR_GRID_WORKGROUP_COUNT_X), always,
        key("enable_sgpr_grid_workgroup_count_x"), None, Printed::Directive("enable_sgpr_grid_workgroup_count_x"));
    ENABLE_SGPR_GRID_WORKGROUP_COUNT_Y = ("code_properties.enable_sgpr_grid_workgroup_count_y", own(offsets::CODE_PROPERTIES, props::ENABLE_SGPR_GRID_WORKGROUP_COUNT_Y), always,
        key("enable_sgpr_grid_workgroup_count_y"), None, Printed::Directive("enable_sgpr_grid_workgroup_count_y"));
    ENABLE_SGPR_GRID_WORKGROUP_COUNT_Z = ("code_properties.enable_sgpr_grid_workgroup_count_z", own(offsets::CODE_PROPERTIES, props::ENABLE_SGPR_GRID_WORKGROUP_COUNT_Z), always,
        key("enable_sgpr_grid_workgroup_count_z"), None, Printed::Directive("enable_sgpr_grid_workgroup_count_z"));
    ENABLE_WAVEFRONT_SIZE32 = ("code_properties.enable_wavefront_size32", shared(&super::ENABLE_WAVEFRONT_SIZE32), gfx10_on,
        key("enable_wavefront_size32"), None, Printed::Directive("enable_wavefront_size32"));
    ENABLE_ORDERED_APPEND_GDS = ("code_properties.enable_ordered_append_gds", own(offsets::CODE_PROPERTIES, props::ENABLE_ORDERED_APPEND_GDS), always,
        key("enable_ordered_append_gds"), None, Printed::Directive("enable_ordered_append_gds"));
    PRIVATE_ELEMENT_SIZE = ("code_properties.private_element_size", own(offsets::CODE_PROPERTIES, props::PRIVATE_ELEMENT_SIZE), always,
        key("private_element_size"), None, Printed::Directive("private_element_size"));
    IS_PTR64 = ("code_properties.is_ptr64", own(offsets::CODE_PROPERTIES, props::IS_PTR64), always,
        key("is_ptr64"), None, Printed::Directive("is_ptr64"));
    IS_DYNAMIC_CALLSTACK = ("code_properties.is_dynamic_callstack", own(offsets::CODE_PROPERTIES, props::IS_DYNAMIC_CALLSTACK), always,
        key("is_dynamic_callstack"), None, Printed::Directive("is_dynamic_callstack"));
    IS_DEBUG_ENABLED = ("code_properties.is_debug_enabled", own(offsets::CODE_PROPERTIES, props::IS_DEBUG_ENABLED), always,
        key("is_debug_enabled"), None, Printed::Directive("is_debug_enabled"));
    IS_XNACK_ENABLED = ("code_properties.is_xnack_enabled", own(offsets::CODE_PROPERTIES, props::IS_XNACK_ENABLED), always,
        key("is_xnack_enabled"), None, Printed::Directive("is_xnack_enabled"));
    WORKITEM_PRIVATE_SEGMENT_BYTE_SIZE = ("workitem_private_segment_byte_size", at(offsets::WORKITEM_PRIVATE_SEGMENT_BYTE_SIZE, 4), always,
        key("workitem_private_segment_byte_size"), None, Printed::Directive("workitem_private_segment_byte_size"));
    WORKGROUP_GROUP_SEGMENT_BYTE_SIZE = ("workgroup_group_segment_byte_size", at(offsets::WORKGROUP_GROUP_SEGMENT_BYTE_SIZE, 4), always,
        key("workgroup_group_segment_byte_size"), None, Printed::Directive("workgroup_group_segment_byte_size"));
    GDS_SEGMENT_BYTE_SIZE = ("gds_segment_byte_size", at(offsets::GDS_SEGMENT_BYTE_SIZE, 4), always,
        key("gds_segment_byte_size"), None, Printed::Directive("gds_segment_byte_size"));
    KERNARG_SEGMENT_BYTE_SIZE = ("kernarg_segment_byte_size", at(offsets::KERNARG_SEGMENT_BYTE_SIZE, 8), always,
        key("kernarg_segment_byte_size"), None, Printed::Directive("kernarg_segment_byte_size"));
    WORKGROUP_FBARRIER_COUNT = ("workgroup_fbarrier_count", at(offsets::WORKGROUP_FBARRIER_COUNT, 4), always,
        key("workgroup_fbarrier_count"), None, Printed::Directive("workgroup_fbarrier_count"));
    WAVEFRONT_SGPR_COUNT = ("wavefront_sgpr_count", at(offsets::WAVEFRONT_SGPR_COUNT, 2), always,
        key("wavefront_sgpr_count"), None, Printed::Directive("wavefront_sgpr_count"));
    WORKITEM_VGPR_COUNT = ("workitem_vgpr_count", at(offsets::WORKITEM_VGPR_COUNT, 2), always,
        key("workitem_vgpr_count"), None, Printed::Directive("workitem_vgpr_count"));
    RESERVED_VGPR_FIRST = ("reserved_vgpr_first", at(offsets::RESERVED_VGPR_FIRST, 2), always,
        key("reserved_vgpr_first"), None, Printed::Directive("reserved_vgpr_first"));
    RESERVED_VGPR_COUNT = ("reserved_vgpr_count", at(offsets::RESERVED_VGPR_COUNT, 2), always,
        key("reserved_vgpr_count"), None, Printed::Directive("reserved_vgpr_count"));
    RESERVED_SGPR_FIRST = ("reserved_sgpr_first", at(offsets::RESERVED_SGPR_FIRST, 2), always,
        key("reserved_sgpr_first"), None, Printed::Directive("reserved_sgpr_first"));
    RESERVED_SGPR_COUNT = ("reserved_sgpr_count", at(offsets::RESERVED_SGPR_COUNT, 2), always,
        key("reserved_sgpr_count"), None, Printed::Directive("reserved_sgpr_count"));
    DEBUG_WAVEFRONT_PRIVATE_SEGMENT_OFFSET_SGPR = ("debug_wavefront_private_segment_offset_sgpr", at(offsets::DEBUG_WAVEFRONT_PRIVATE_SEGMENT_OFFSET_SGPR, 2), always,
        key("debug_wavefront_private_segment_offset_sgpr"), None, Printed::Directive("debug_wavefront_private_segment_offset_sgpr"));
    DEBUG_PRIVATE_SEGMENT_BUFFER_SGPR = ("debug_private_segment_buffer_sgpr", at(offsets::DEBUG_PRIVATE_SEGMENT_BUFFER_SGPR, 2), always,
        key("debug_private_segment_buffer_sgpr"), None, Printed::Directive("debug_private_segment_buffer_sgpr"));
    KERNARG_SEGMENT_ALIGNMENT = ("kernarg_segment_alignment", at(offsets::KERNARG_SEGMENT_ALIGNMENT, 1), always,
        key("kernarg_segment_alignment"), None, Printed::Directive("kernarg_segment_alignment"));
    GROUP_SEGMENT_ALIGNMENT = ("group_segment_alignment", at(offsets::GROUP_SEGMENT_ALIGNMENT, 1), always,
        key("group_segment_alignment"), None, Printed::Directive("group_segment_alignment"));
    PRIVATE_SEGMENT_ALIGNMENT = ("private_segment_alignment", at(offsets::PRIVATE_SEGMENT_ALIGNMENT, 1), always,
        key("private_segment_alignment"), None, Printed::Directive("private_segment_alignment"));
    WAVEFRONT_SIZE = ("wavefront_size", at(offsets::WAVEFRONT_SIZE, 1), always,
        key("wavefront_size"), None, Printed::Directive("wavefront_size"));
    CALL_CONVENTION = ("call_convention", at(offsets::CALL_CONVENTION, 4), always,
        key("call_convention"), None, Printed::Directive("call_convention"));
    RUNTIME_LOADER_KERNEL_SYMBOL = ("runtime_loader_kernel_symbol", at(offsets::RUNTIME_LOADER_KERNEL_SYMBOL, 8), always,
        key("runtime_loader_kernel_symbol"), None, Printed::Directive("runtime_loader_kernel_symbol"));
    ENABLED_CONTROL_DIRECTIVES = ("control_directives.enabled_control_directives", directive(0, 8), always,
        Err(DIRECTIVES), None, NOT_PRINTED);
    ENABLE_BREAK_EXCEPTIONS = ("control_directives.enable_break_exceptions", directive(8, 2), always,
        Err(DIRECTIVES), None, NOT_PRINTED);
    ENABLE_DETECT_EXCEPTIONS = ("control_directives.enable_detect_exceptions", directive(10, 2), always,
        Err(DIRECTIVES), None, NOT_PRINTED);
    MAX_DYNAMIC_GROUP_SIZE = ("control_directives.max_dynamic_group_size", directive(12, 4), always,
        Err(DIRECTIVES), None, NOT_PRINTED);
    MAX_FLAT_GRID_SIZE = ("control_directives.max_flat_grid_size", directive(16, 8), always,
        Err(DIRECTIVES), None, NOT_PRINTED);
    MAX_FLAT_WORKGROUP_SIZE = ("control_directives.max_flat_workgroup_size", directive(24, 4), always,
        Err(DIRECTIVES), None, NOT_PRINTED);
    REQUIRED_DIM = ("control_directives.required_dim", directive(28, 1), always,
        Err(DIRECTIVES), None, NOT_PRINTED);
    REQUIRED_GRID_SIZE_X = ("control_directives.required_grid_size_x", directive(32, 8), always,
        Err(DIRECTIVES), None, NOT_PRINTED);
    REQUIRED_GRID_SIZE_Y = ("control_directives.required_grid_size_y", directive(40, 8), always,
        Err(DIRECTIVES), None, NOT_PRINTED);
    REQUIRED_GRID_SIZE_Z = ("control_directives.required_grid_size_z", directive(48, 8), always,
        Err(DIRECTIVES), None, NOT_PRINTED);
    REQUIRED_WORKGROUP_SIZE_X = ("control_directives.required_workgroup_size_x", directive(56, 4), always,
        Err(DIRECTIVES), None, NOT_PRINTED);
    REQUIRED_WORKGROUP_SIZE_Y = ("control_directives.required_workgroup_size_y", directive(60, 4), always,
        Err(DIRECTIVES), None, NOT_PRINTED);
    REQUIRED_WORKGROUP_SIZE_Z = ("control_directives.required_workgroup_size_z", directive(64, 4), always,
        Err(DIRECTIVES), None, NOT_PRINTED);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys `llvm-mc-14/15/16 -triple amdgcn-amd-amdhsa
    /// --amdhsa-code-object-version=2` print in `.amd_kernel_code_t`, in
    /// their order (observed; the same for gfx803, gfx900 and gfx1010).
    const LLVM_PRINTS: &str = "amd_code_version_major amd_code_version_minor amd_machine_kind \
        amd_machine_version_major amd_machine_version_minor amd_machine_version_stepping \
        kernel_code_entry_byte_offset kernel_code_prefetch_byte_size \
        granulated_workitem_vgpr_count granulated_wavefront_sgpr_count priority float_mode priv \
        enable_dx10_clamp debug_mode enable_ieee_mode enable_wgp_mode enable_mem_ordered \
        enable_fwd_progress enable_sgpr_private_segment_wave_byte_offset user_sgpr_count \
        enable_trap_handler enable_sgpr_workgroup_id_x enable_sgpr_workgroup_id_y \
        enable_sgpr_workgroup_id_z enable_sgpr_workgroup_info enable_vgpr_workitem_id \
        enable_exception_msb granulated_lds_size enable_exception \
        enable_sgpr_private_segment_buffer enable_sgpr_dispatch_ptr enable_sgpr_queue_ptr \
        enable_sgpr_kernarg_segment_ptr enable_sgpr_dispatch_id enable_sgpr_flat_scratch_init \
        enable_sgpr_private_segment_size enable_sgpr_grid_workgroup_count_x \
        enable_sgpr_grid_workgroup_count_y enable_sgpr_grid_workgroup_count_z \
        enable_wavefront_size32 enable_ordered_append_gds private_element_size is_ptr64 \
        is_dynamic_callstack is_debug_enabled is_xnack_enabled \
        workitem_private_segment_byte_size workgroup_group_segment_byte_size \
        gds_segment_byte_size kernarg_segment_byte_size workgroup_fbarrier_count \
        wavefront_sgpr_count workitem_vgpr_count reserved_vgpr_first reserved_vgpr_count \
        reserved_sgpr_first reserved_sgpr_count debug_wavefront_private_segment_offset_sgpr \
        debug_private_segment_buffer_sgpr kernarg_segment_alignment group_segment_alignment \
        private_segment_alignment wavefront_size call_convention runtime_loader_kernel_symbol";

    #[test]
    fn every_member_has_a_key_and_a_printed_name_or_a_reason() {
        for m in MEMBERS {
            match m.key {
                Ok(k) => assert!(!k.is_empty() && !k.starts_with('.'), "{}", m.name),
                Err(why) => assert!(why.len() > 10, "{}: no reason", m.name),
            }
            match m.printed {
                // What LLVM prints is the key itself.
                Printed::Directive(p) => assert_eq!(Ok(p), m.key, "{}", m.name),
                Printed::Comment(_) => {
                    panic!("{}: LLVM prints no comments in .amd_kernel_code_t", m.name)
                }
                Printed::Not(why) => assert!(why.len() > 10, "{}: no reason", m.name),
            }
            if let Some(a) = m.alias {
                assert!(
                    m.key.is_ok() && a.starts_with("compute_pgm_rsrc"),
                    "{}",
                    m.name
                );
            }
            assert!(m.offset + m.size <= KERNEL_CODE_SIZE as u64, "{}", m.name);
        }
    }

    #[test]
    fn printed_keys_are_the_ones_llvm_prints_in_its_order() {
        let ours: Vec<&str> = MEMBERS
            .iter()
            .filter_map(|m| match m.printed {
                Printed::Directive(k) => Some(k),
                _ => None,
            })
            .collect();
        let llvm: Vec<&str> = LLVM_PRINTS.split_whitespace().collect();
        assert_eq!(ours, llvm);
    }

    #[test]
    fn names_are_unique_and_members_in_structure_order() {
        let mut names: Vec<&str> = MEMBERS.iter().map(|m| m.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), MEMBERS.len());
        assert!(MEMBERS.windows(2).all(|w| w[0].offset <= w[1].offset));
    }

    #[test]
    fn shared_rows_are_in_the_words_v2_has() {
        for m in MEMBERS {
            if let Bits::Shared(f) = m.bits {
                assert!(
                    matches!(
                        f.word,
                        super::super::Word::Rsrc1
                            | super::super::Word::Rsrc2
                            | super::super::Word::Properties
                    ),
                    "{}",
                    m.name
                );
            }
        }
        // The user SGPR enables and wave32 are the descriptor's bits; the
        // props constants other crates use say the same.
        for (mask, f) in [
            (
                props::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER,
                &super::super::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER,
            ),
            (
                props::ENABLE_SGPR_DISPATCH_PTR,
                &super::super::ENABLE_SGPR_DISPATCH_PTR,
            ),
            (
                props::ENABLE_SGPR_QUEUE_PTR,
                &super::super::ENABLE_SGPR_QUEUE_PTR,
            ),
            (
                props::ENABLE_SGPR_KERNARG_SEGMENT_PTR,
                &super::super::ENABLE_SGPR_KERNARG_SEGMENT_PTR,
            ),
            (
                props::ENABLE_SGPR_DISPATCH_ID,
                &super::super::ENABLE_SGPR_DISPATCH_ID,
            ),
            (
                props::ENABLE_SGPR_FLAT_SCRATCH_INIT,
                &super::super::ENABLE_SGPR_FLAT_SCRATCH_INIT,
            ),
            (
                props::ENABLE_SGPR_PRIVATE_SEGMENT_SIZE,
                &super::super::ENABLE_SGPR_PRIVATE_SEGMENT_SIZE,
            ),
            (
                props::ENABLE_WAVEFRONT_SIZE32,
                &super::super::ENABLE_WAVEFRONT_SIZE32,
            ),
        ] {
            assert_eq!(mask, f.mask(), "{}", f.name);
        }
    }

    #[test]
    fn values_read_from_bytes() {
        let mut b = [0u8; KERNEL_CODE_SIZE];
        b[offsets::CALL_CONVENTION as usize..][..4].copy_from_slice(&(-1i32).to_le_bytes());
        b[offsets::CODE_PROPERTIES as usize + 2] = 0x06; // private_element_size 3
        b[offsets::COMPUTE_PGM_RSRC1 as usize + 2] = 0x10; // PRIV
        assert_eq!(CALL_CONVENTION.get(&b), 0xffff_ffff);
        assert_eq!(PRIVATE_ELEMENT_SIZE.get(&b), 3);
        assert_eq!(PRIV.get(&b), 1);
        assert_eq!(FLOAT_MODE.get(&b), 0);
        assert_eq!(REQUIRED_DIM.get(&b), 0);
    }
}
