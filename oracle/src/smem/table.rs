//! Opcode tables, one per generation, as data.

/// What an instruction does with its operands; decides operand shapes,
/// offset forms and modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// `s_load_*`: SDATA ← memory at an SGPR-pair address.
    Load,
    /// `s_buffer_load_*`: SDATA ← memory through an SGPR-quad resource.
    BufferLoad,
    /// `s_store_*`: memory at an SGPR-pair address ← SDATA.
    Store,
    /// `s_buffer_store_*`.
    BufferStore,
    /// `s_scratch_load_*` (GFX9).
    ScratchLoad,
    /// `s_scratch_store_*` (GFX9).
    ScratchStore,
    /// `s_atomic_*` (GFX9).
    Atomic,
    /// `s_buffer_atomic_*` (GFX9).
    BufferAtomic,
    /// Cache invalidate/write-back: no operands.
    Cache,
    /// `s_memtime`/`s_memrealtime`: a 64-bit SDATA destination only.
    Time,
    /// `s_atc_probe`: 7-bit immediate in SDATA, pair base, offset.
    Probe,
    /// `s_atc_probe_buffer`: 7-bit immediate in SDATA, quad base, offset.
    ProbeBuffer,
    /// `s_dcache_discard*` (GFX9, gfx1010–gfx1013): pair base and offset,
    /// no SDATA.
    Discard,
    /// `s_get_waveid_in_workgroup` (gfx1010–gfx1013): one SGPR
    /// destination only.
    WaveId,
    /// `s_prefetch_inst`/`s_prefetch_data` (GFX12): pair base, 24-bit
    /// offset, SOFFSET register, and a 5-bit length immediate in SDATA.
    Prefetch,
    /// `s_buffer_prefetch_data` (GFX12): as [`Class::Prefetch`] with a
    /// quad (buffer resource) base.
    PrefetchBuffer,
    /// `s_prefetch_inst_pc_rel`/`s_prefetch_data_pc_rel` (GFX12): no base;
    /// the address is relative to the program counter.
    PrefetchPcRel,
}

impl Class {
    /// True when SDATA names registers (not for probes, prefetches, cache
    /// ops, discard).
    pub fn has_sdata_regs(self) -> bool {
        !matches!(
            self,
            Self::Cache
                | Self::Probe
                | Self::ProbeBuffer
                | Self::Discard
                | Self::Prefetch
                | Self::PrefetchBuffer
                | Self::PrefetchPcRel
        )
    }
    /// True when SDATA holds an immediate (probe mode, prefetch length).
    pub fn has_sdata_imm(self) -> bool {
        matches!(
            self,
            Self::Probe
                | Self::ProbeBuffer
                | Self::Prefetch
                | Self::PrefetchBuffer
                | Self::PrefetchPcRel
        )
    }
    /// True for the GFX12 prefetches.
    pub fn prefetch(self) -> bool {
        matches!(
            self,
            Self::Prefetch | Self::PrefetchBuffer | Self::PrefetchPcRel
        )
    }
    /// True when the instruction reads SBASE.
    pub fn has_sbase(self) -> bool {
        !matches!(
            self,
            Self::Cache | Self::Time | Self::WaveId | Self::PrefetchPcRel
        )
    }
    /// True when SBASE is a buffer resource (SGPR quad) rather than an
    /// address (SGPR pair).
    pub fn buffer_base(self) -> bool {
        matches!(
            self,
            Self::BufferLoad
                | Self::BufferStore
                | Self::BufferAtomic
                | Self::ProbeBuffer
                | Self::PrefetchBuffer
        )
    }
    /// True when the instruction takes an offset operand.
    pub fn has_offset(self) -> bool {
        self.has_sbase() || self == Self::PrefetchPcRel
    }
    /// True when the GLC modifier exists (LLVM accepts `glc`).
    pub fn has_glc(self) -> bool {
        matches!(
            self,
            Self::Load
                | Self::BufferLoad
                | Self::Store
                | Self::BufferStore
                | Self::ScratchLoad
                | Self::ScratchStore
                | Self::Atomic
                | Self::BufferAtomic
        )
    }
    /// True for the scratch forms (`s_scratch_*`, addresses relative to
    /// the wave's scratch base).
    pub fn scratch(self) -> bool {
        matches!(self, Self::ScratchLoad | Self::ScratchStore)
    }
}

/// How a load moves memory into SDATA: whole dwords, or one byte or
/// half-word extended to 32 bits (GFX12 `s_load_i8/u8/i16/u16`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ext {
    /// `width` whole dwords.
    Dwords,
    /// One byte, zero-extended.
    U8,
    /// One byte, sign-extended.
    I8,
    /// Two bytes, zero-extended.
    U16,
    /// Two bytes, sign-extended.
    I16,
}

impl Ext {
    /// Bytes read from memory for a `width`-dword destination.
    pub fn bytes(self, width: u8) -> u32 {
        match self {
            Self::Dwords => 4 * u32::from(width),
            Self::U8 | Self::I8 => 1,
            Self::U16 | Self::I16 => 2,
        }
    }
}

/// One opcode of one generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    /// Mnemonic as LLVM 19 spells it on this generation.
    pub mnemonic: &'static str,
    /// Value of the OPCODE field.
    pub opcode: u8,
    /// SDATA width in dwords (0 when SDATA is not a register operand).
    pub width: u8,
    /// Operand shape class.
    pub class: Class,
    /// Memory access of loads ([`Ext::Dwords`] for everything else).
    pub ext: Ext,
}

const fn op(mnemonic: &'static str, opcode: u8, width: u8, class: Class) -> OpInfo {
    OpInfo {
        mnemonic,
        opcode,
        width,
        class,
        ext: Ext::Dwords,
    }
}

/// A GFX12 sub-dword load.
const fn sub(mnemonic: &'static str, opcode: u8, class: Class, ext: Ext) -> OpInfo {
    OpInfo {
        mnemonic,
        opcode,
        width: 1,
        class,
        ext,
    }
}

use Class::*;

/// GFX8 (gfx801–gfx810): opcodes checked with `llvm-mc-19 -mcpu=gfx803
/// -show-encoding` (tests/smem_llvm.rs repeats the check).
pub static GFX8: &[OpInfo] = &[
    op("s_load_dword", 0, 1, Load),
    op("s_load_dwordx2", 1, 2, Load),
    op("s_load_dwordx4", 2, 4, Load),
    op("s_load_dwordx8", 3, 8, Load),
    op("s_load_dwordx16", 4, 16, Load),
    op("s_buffer_load_dword", 8, 1, BufferLoad),
    op("s_buffer_load_dwordx2", 9, 2, BufferLoad),
    op("s_buffer_load_dwordx4", 10, 4, BufferLoad),
    op("s_buffer_load_dwordx8", 11, 8, BufferLoad),
    op("s_buffer_load_dwordx16", 12, 16, BufferLoad),
    op("s_store_dword", 16, 1, Store),
    op("s_store_dwordx2", 17, 2, Store),
    op("s_store_dwordx4", 18, 4, Store),
    op("s_buffer_store_dword", 24, 1, BufferStore),
    op("s_buffer_store_dwordx2", 25, 2, BufferStore),
    op("s_buffer_store_dwordx4", 26, 4, BufferStore),
    op("s_dcache_inv", 32, 0, Cache),
    op("s_dcache_wb", 33, 0, Cache),
    op("s_dcache_inv_vol", 34, 0, Cache),
    op("s_dcache_wb_vol", 35, 0, Cache),
    op("s_memtime", 36, 2, Time),
    op("s_memrealtime", 37, 2, Time),
    op("s_atc_probe", 38, 0, Probe),
    op("s_atc_probe_buffer", 39, 0, ProbeBuffer),
];

/// The scalar atomics of GFX9 and gfx1010–gfx1013 (same opcodes and
/// names on both), checked with `llvm-mc-19 -mcpu=gfx900` and `gfx1010`.
macro_rules! scalar_atomics {
    () => {
        [
            op("s_buffer_atomic_swap", 64, 1, BufferAtomic),
            op("s_buffer_atomic_cmpswap", 65, 2, BufferAtomic),
            op("s_buffer_atomic_add", 66, 1, BufferAtomic),
            op("s_buffer_atomic_sub", 67, 1, BufferAtomic),
            op("s_buffer_atomic_smin", 68, 1, BufferAtomic),
            op("s_buffer_atomic_umin", 69, 1, BufferAtomic),
            op("s_buffer_atomic_smax", 70, 1, BufferAtomic),
            op("s_buffer_atomic_umax", 71, 1, BufferAtomic),
            op("s_buffer_atomic_and", 72, 1, BufferAtomic),
            op("s_buffer_atomic_or", 73, 1, BufferAtomic),
            op("s_buffer_atomic_xor", 74, 1, BufferAtomic),
            op("s_buffer_atomic_inc", 75, 1, BufferAtomic),
            op("s_buffer_atomic_dec", 76, 1, BufferAtomic),
            op("s_buffer_atomic_swap_x2", 96, 2, BufferAtomic),
            op("s_buffer_atomic_cmpswap_x2", 97, 4, BufferAtomic),
            op("s_buffer_atomic_add_x2", 98, 2, BufferAtomic),
            op("s_buffer_atomic_sub_x2", 99, 2, BufferAtomic),
            op("s_buffer_atomic_smin_x2", 100, 2, BufferAtomic),
            op("s_buffer_atomic_umin_x2", 101, 2, BufferAtomic),
            op("s_buffer_atomic_smax_x2", 102, 2, BufferAtomic),
            op("s_buffer_atomic_umax_x2", 103, 2, BufferAtomic),
            op("s_buffer_atomic_and_x2", 104, 2, BufferAtomic),
            op("s_buffer_atomic_or_x2", 105, 2, BufferAtomic),
            op("s_buffer_atomic_xor_x2", 106, 2, BufferAtomic),
            op("s_buffer_atomic_inc_x2", 107, 2, BufferAtomic),
            op("s_buffer_atomic_dec_x2", 108, 2, BufferAtomic),
            op("s_atomic_swap", 128, 1, Atomic),
            op("s_atomic_cmpswap", 129, 2, Atomic),
            op("s_atomic_add", 130, 1, Atomic),
            op("s_atomic_sub", 131, 1, Atomic),
            op("s_atomic_smin", 132, 1, Atomic),
            op("s_atomic_umin", 133, 1, Atomic),
            op("s_atomic_smax", 134, 1, Atomic),
            op("s_atomic_umax", 135, 1, Atomic),
            op("s_atomic_and", 136, 1, Atomic),
            op("s_atomic_or", 137, 1, Atomic),
            op("s_atomic_xor", 138, 1, Atomic),
            op("s_atomic_inc", 139, 1, Atomic),
            op("s_atomic_dec", 140, 1, Atomic),
            op("s_atomic_swap_x2", 160, 2, Atomic),
            op("s_atomic_cmpswap_x2", 161, 4, Atomic),
            op("s_atomic_add_x2", 162, 2, Atomic),
            op("s_atomic_sub_x2", 163, 2, Atomic),
            op("s_atomic_smin_x2", 164, 2, Atomic),
            op("s_atomic_umin_x2", 165, 2, Atomic),
            op("s_atomic_smax_x2", 166, 2, Atomic),
            op("s_atomic_umax_x2", 167, 2, Atomic),
            op("s_atomic_and_x2", 168, 2, Atomic),
            op("s_atomic_or_x2", 169, 2, Atomic),
            op("s_atomic_xor_x2", 170, 2, Atomic),
            op("s_atomic_inc_x2", 171, 2, Atomic),
            op("s_atomic_dec_x2", 172, 2, Atomic),
        ]
    };
}

/// Concatenates two opcode lists at compile time.
const fn concat<const A: usize, const B: usize, const N: usize>(
    a: [OpInfo; A],
    b: [OpInfo; B],
) -> [OpInfo; N] {
    // Evaluated at compile time: a wrong length fails the build.
    assert!(A + B == N, "concat: N must be A + B");
    let mut out = [a[0]; N];
    let mut k = 0;
    while k < A {
        out[k] = a[k];
        k += 1;
    }
    while k < N {
        out[k] = b[k - A];
        k += 1;
    }
    out
}

/// GFX9 (gfx900–gfx950): GFX8's opcodes plus scratch, discard and atomics.
pub static GFX9: &[OpInfo] = &{
    const BASE: [OpInfo; 32] = [
        op("s_load_dword", 0, 1, Load),
        op("s_load_dwordx2", 1, 2, Load),
        op("s_load_dwordx4", 2, 4, Load),
        op("s_load_dwordx8", 3, 8, Load),
        op("s_load_dwordx16", 4, 16, Load),
        op("s_scratch_load_dword", 5, 1, ScratchLoad),
        op("s_scratch_load_dwordx2", 6, 2, ScratchLoad),
        op("s_scratch_load_dwordx4", 7, 4, ScratchLoad),
        op("s_buffer_load_dword", 8, 1, BufferLoad),
        op("s_buffer_load_dwordx2", 9, 2, BufferLoad),
        op("s_buffer_load_dwordx4", 10, 4, BufferLoad),
        op("s_buffer_load_dwordx8", 11, 8, BufferLoad),
        op("s_buffer_load_dwordx16", 12, 16, BufferLoad),
        op("s_store_dword", 16, 1, Store),
        op("s_store_dwordx2", 17, 2, Store),
        op("s_store_dwordx4", 18, 4, Store),
        op("s_scratch_store_dword", 21, 1, ScratchStore),
        op("s_scratch_store_dwordx2", 22, 2, ScratchStore),
        op("s_scratch_store_dwordx4", 23, 4, ScratchStore),
        op("s_buffer_store_dword", 24, 1, BufferStore),
        op("s_buffer_store_dwordx2", 25, 2, BufferStore),
        op("s_buffer_store_dwordx4", 26, 4, BufferStore),
        op("s_dcache_inv", 32, 0, Cache),
        op("s_dcache_wb", 33, 0, Cache),
        op("s_dcache_inv_vol", 34, 0, Cache),
        op("s_dcache_wb_vol", 35, 0, Cache),
        op("s_memtime", 36, 2, Time),
        op("s_memrealtime", 37, 2, Time),
        op("s_atc_probe", 38, 0, Probe),
        op("s_atc_probe_buffer", 39, 0, ProbeBuffer),
        op("s_dcache_discard", 40, 0, Discard),
        op("s_dcache_discard_x2", 41, 0, Discard),
    ];
    concat::<32, 52, 84>(BASE, scalar_atomics!())
};

/// Entries shared by every GFX10 processor (loads, cache and time ops,
/// probes), checked with `llvm-mc-19 -mcpu=gfx1030`.
macro_rules! gfx10_common {
    () => {
        [
            op("s_load_dword", 0, 1, Load),
            op("s_load_dwordx2", 1, 2, Load),
            op("s_load_dwordx4", 2, 4, Load),
            op("s_load_dwordx8", 3, 8, Load),
            op("s_load_dwordx16", 4, 16, Load),
            op("s_buffer_load_dword", 8, 1, BufferLoad),
            op("s_buffer_load_dwordx2", 9, 2, BufferLoad),
            op("s_buffer_load_dwordx4", 10, 4, BufferLoad),
            op("s_buffer_load_dwordx8", 11, 8, BufferLoad),
            op("s_buffer_load_dwordx16", 12, 16, BufferLoad),
            op("s_gl1_inv", 31, 0, Cache),
            op("s_dcache_inv", 32, 0, Cache),
            op("s_memtime", 36, 2, Time),
            op("s_memrealtime", 37, 2, Time),
            op("s_atc_probe", 38, 0, Probe),
            op("s_atc_probe_buffer", 39, 0, ProbeBuffer),
        ]
    };
}

/// gfx1030 and later GFX10 processors (and `gfx10-3-generic`): no scalar
/// stores, atomics, scratch, discard or `s_dcache_wb` (llvm-mc-19:
/// "instruction not supported on this GPU").
pub static GFX10_3: &[OpInfo] = &gfx10_common!();

/// gfx1010–gfx1013 (and `gfx10-1-generic`): GFX10_3 plus scalar stores,
/// scratch, write-back, discard, wave id and scalar atomics.
pub static GFX10_1: &[OpInfo] = &{
    const COMMON: [OpInfo; 16] = gfx10_common!();
    const EXTRA: [OpInfo; 16] = [
        op("s_scratch_load_dword", 5, 1, ScratchLoad),
        op("s_scratch_load_dwordx2", 6, 2, ScratchLoad),
        op("s_scratch_load_dwordx4", 7, 4, ScratchLoad),
        op("s_store_dword", 16, 1, Store),
        op("s_store_dwordx2", 17, 2, Store),
        op("s_store_dwordx4", 18, 4, Store),
        op("s_scratch_store_dword", 21, 1, ScratchStore),
        op("s_scratch_store_dwordx2", 22, 2, ScratchStore),
        op("s_scratch_store_dwordx4", 23, 4, ScratchStore),
        op("s_buffer_store_dword", 24, 1, BufferStore),
        op("s_buffer_store_dwordx2", 25, 2, BufferStore),
        op("s_buffer_store_dwordx4", 26, 4, BufferStore),
        op("s_dcache_wb", 33, 0, Cache),
        op("s_dcache_discard", 40, 0, Discard),
        op("s_dcache_discard_x2", 41, 0, Discard),
        op("s_get_waveid_in_workgroup", 42, 1, WaveId),
    ];
    const BASE: [OpInfo; 32] = concat::<16, 16, 32>(COMMON, EXTRA);
    concat::<32, 52, 84>(BASE, scalar_atomics!())
};

/// GFX11 (gfx1100–gfx1153): loads with the `_bNN` names, cache ops and
/// probes; `s_memtime`/`s_memrealtime` left SMEM (llvm-mc-19 -mcpu=gfx1100).
pub static GFX11: &[OpInfo] = &[
    op("s_load_b32", 0, 1, Load),
    op("s_load_b64", 1, 2, Load),
    op("s_load_b128", 2, 4, Load),
    op("s_load_b256", 3, 8, Load),
    op("s_load_b512", 4, 16, Load),
    op("s_buffer_load_b32", 8, 1, BufferLoad),
    op("s_buffer_load_b64", 9, 2, BufferLoad),
    op("s_buffer_load_b128", 10, 4, BufferLoad),
    op("s_buffer_load_b256", 11, 8, BufferLoad),
    op("s_buffer_load_b512", 12, 16, BufferLoad),
    op("s_gl1_inv", 32, 0, Cache),
    op("s_dcache_inv", 33, 0, Cache),
    op("s_atc_probe", 34, 0, Probe),
    op("s_atc_probe_buffer", 35, 0, ProbeBuffer),
];

/// GFX12 (gfx1200, gfx1201): opcode field at bits 18:13, `_b96` loads,
/// sub-dword loads, prefetches; no time or write-back instructions
/// (llvm-mc-19 -mcpu=gfx1200 --disassemble of every opcode). GFX12.5
/// (gfx1250, gfx1251) has the same 28 opcodes and mnemonics (llvm-mc-22
/// --disassemble of all 64 opcode values on gfx1200, gfx1250 and gfx1251).
pub static GFX12: &[OpInfo] = &[
    op("s_load_b32", 0, 1, Load),
    op("s_load_b64", 1, 2, Load),
    op("s_load_b128", 2, 4, Load),
    op("s_load_b256", 3, 8, Load),
    op("s_load_b512", 4, 16, Load),
    op("s_load_b96", 5, 3, Load),
    sub("s_load_i8", 8, Load, Ext::I8),
    sub("s_load_u8", 9, Load, Ext::U8),
    sub("s_load_i16", 10, Load, Ext::I16),
    sub("s_load_u16", 11, Load, Ext::U16),
    op("s_buffer_load_b32", 16, 1, BufferLoad),
    op("s_buffer_load_b64", 17, 2, BufferLoad),
    op("s_buffer_load_b128", 18, 4, BufferLoad),
    op("s_buffer_load_b256", 19, 8, BufferLoad),
    op("s_buffer_load_b512", 20, 16, BufferLoad),
    op("s_buffer_load_b96", 21, 3, BufferLoad),
    sub("s_buffer_load_i8", 24, BufferLoad, Ext::I8),
    sub("s_buffer_load_u8", 25, BufferLoad, Ext::U8),
    sub("s_buffer_load_i16", 26, BufferLoad, Ext::I16),
    sub("s_buffer_load_u16", 27, BufferLoad, Ext::U16),
    op("s_dcache_inv", 33, 0, Cache),
    op("s_atc_probe", 34, 0, Probe),
    op("s_atc_probe_buffer", 35, 0, ProbeBuffer),
    op("s_prefetch_inst", 36, 0, Prefetch),
    op("s_prefetch_inst_pc_rel", 37, 0, PrefetchPcRel),
    op("s_prefetch_data", 38, 0, Prefetch),
    op("s_buffer_prefetch_data", 39, 0, PrefetchBuffer),
    op("s_prefetch_data_pc_rel", 40, 0, PrefetchPcRel),
];
