//! Operands: what an operand field's value names (registers, inline
//! constants, a literal), and how LLVM prints it.
//!
//! Scalar and vector source fields share one code space (amdgpu-usage.rst
//! and the ISA references' "SSRC"/"SRC" tables; LLVM
//! `AMDGPUDisassembler.cpp` decodeSrcOp):
//!
//! | code | meaning |
//! | --- | --- |
//! | 0-101 (0-105 from GFX10) | SGPRs |
//! | 102-105 (GFX8/GFX9) | `flat_scratch_lo/hi`, `xnack_mask_lo/hi` |
//! | 106-107 | `vcc_lo`, `vcc_hi` |
//! | 108-111 (GFX8) | `tba_lo/hi`, `tma_lo/hi` |
//! | 108-123 (112-123 on GFX8) | trap temporaries |
//! | 124, 125 | `m0` and `null` (swapped from GFX11) |
//! | 126-127 | `exec_lo`, `exec_hi` |
//! | 128-192, 193-208 | inline integers 0..64, -1..-16 |
//! | 235-239 | `src_shared_base`, `src_shared_limit`, `src_private_base`, `src_private_limit`, `src_pops_exiting_wave_id` |
//! | 240-248 | inline floats 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 1/(2π) |
//! | 251-254 | `src_vccz`, `src_execz`, `src_scc`, `src_lds_direct` |
//! | 254 (GFX12.5) | a 64-bit literal follows the instruction |
//! | 255 | a 32-bit literal follows the instruction |
//! | 256-511 | VGPRs (9-bit fields) |
//!
//! Codes 209-234 and 249-250 name nothing in a scalar field (in a VOP
//! `src0` 249 and 250 select SDWA and DPP, 233 and 234 DPP8).

use std::fmt::{self, Write};

use super::gen::IsaGen;
use super::simm::Dialect;

/// A register file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum File {
    /// Scalar registers (`s`).
    Sgpr,
    /// Vector registers (`v`).
    Vgpr,
    /// Accumulation registers (`a`, gfx908 and the gfx90a family).
    Agpr,
    /// Trap temporaries (`ttmp`).
    Ttmp,
}

/// What an operand field names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// `count` registers of `file` from `first`.
    Reg {
        /// Register file.
        file: File,
        /// First register number.
        first: u16,
        /// Number of 32-bit registers.
        count: u8,
    },
    /// A special register or pair by its scalar code: `vcc` (106), `exec`
    /// (126), `m0`, `flat_scratch` (102), `xnack_mask` (104), `tba` and
    /// `tma` (108, 110, GFX8), and their halves.
    Special {
        /// The scalar code of the first dword.
        code: u16,
        /// Number of 32-bit registers.
        count: u8,
    },
    /// `null` (any width).
    Null,
    /// An inline integer constant, -16..=64.
    Int(i8),
    /// An inline floating-point constant by its code (240-248).
    Float(u16),
    /// A read-only source: 235-239, 251-254.
    Source(u16),
    /// A 32-bit literal that follows the instruction.
    Literal(u32),
    /// A 64-bit literal that follows the instruction (GFX12.5 code 254,
    /// LLVM's `lit64`).
    Literal64(u64),
    /// An immediate field's value (SIMM16, offsets, ...).
    Imm(u16),
    /// A field value that names nothing valid in its place.
    Bad(u16),
}

/// How an operand's value is read: its width and, for constants, the
/// type LLVM prints them as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpType {
    /// 32 bits, integer or float (constants print alike).
    B32,
    /// 64-bit integer.
    I64,
    /// 64-bit float.
    F64,
    /// 16-bit float.
    F16,
    /// 16-bit float that LLVM prints as 16-bit integer bits: inline
    /// integers in decimal, inline floats and literals as their 16-bit
    /// pattern in hex (the GFX11.5+ SALU `s_cmp_*_f16` sources).
    F16Bits,
    /// 16-bit integer.
    I16,
    /// Two packed 16-bit floats.
    V2F16,
    /// Two packed 16-bit integers.
    V2I16,
    /// 16-bit bfloat.
    Bf16,
    /// Two packed 16-bit bfloats.
    V2Bf16,
    /// A wider register tuple (128 bits and more): registers only.
    Wide,
}

impl OpType {
    /// 32-bit registers an operand of this type spans (wide tuples give
    /// their count separately).
    pub fn dwords(self) -> u8 {
        match self {
            Self::I64 | Self::F64 => 2,
            _ => 1,
        }
    }
}

/// Decodes a scalar source or destination code (0-255) or a vector
/// source code (0-511) of `count` dwords. Constants and sources are
/// returned whatever `count` is; whether they are allowed is the
/// caller's business.
pub fn decode_src(gen: IsaGen, code: u16, count: u8) -> Operand {
    match code {
        0..=101 => sgprs(code, count),
        102..=105 if gen.is_rdna() => sgprs(code, count),
        102..=107 => Operand::Special { code, count },
        108..=111 if gen == IsaGen::Gfx8 => Operand::Special { code, count },
        108..=123 => Operand::Reg {
            file: File::Ttmp,
            first: code - gen.ttmp_base(),
            count,
        },
        124 | 125 if code == gen.m0() => Operand::Special { code, count },
        124 | 125 => Operand::Null,
        126 | 127 => Operand::Special { code, count },
        128..=192 => Operand::Int((code - 128) as i8),
        193..=208 => Operand::Int(-((code - 192) as i8)),
        230 | 231 | 235..=239 | 251..=254 => Operand::Source(code),
        240..=248 => Operand::Float(code),
        255 => Operand::Literal(0),
        256..=511 => Operand::Reg {
            file: File::Vgpr,
            first: code - 256,
            count,
        },
        _ => Operand::Bad(code),
    }
}

fn sgprs(code: u16, count: u8) -> Operand {
    Operand::Reg {
        file: File::Sgpr,
        first: code,
        count,
    }
}

/// True if `count` registers of `file` from `first` form a tuple LLVM's
/// register classes have on `gen`: SGPR pairs aligned to 2 and wider
/// tuples to 4, within the SGPRs (s0-s101 before GFX10, s0-s105 from
/// GFX10); trap-temporary tuples likewise within the trap temporaries;
/// VGPRs within v0-v255.
pub fn reg_ok(gen: IsaGen, file: File, first: u16, count: u8, _dst: bool) -> bool {
    let count = u16::from(count.max(1));
    let align = match count {
        1 => 1,
        2 => 2,
        _ => 4,
    };
    let end = first + count;
    match file {
        File::Sgpr => {
            let limit = if gen.is_rdna() { 106 } else { 102 };
            first.is_multiple_of(align) && end <= limit
        }
        File::Ttmp => first.is_multiple_of(align) && end <= gen.ttmp_count(),
        File::Vgpr | File::Agpr => end <= 256,
    }
}

/// The name of a special register run, as LLVM prints it, or `None` when
/// the pair or half has no name (`count` 1 or 2).
pub fn special_name(gen: IsaGen, code: u16, count: u8) -> Option<&'static str> {
    Some(match (code, count) {
        (102, 1) => "flat_scratch_lo",
        (103, 1) => "flat_scratch_hi",
        (102, 2) => "flat_scratch",
        (104, 1) => "xnack_mask_lo",
        (105, 1) => "xnack_mask_hi",
        (104, 2) => "xnack_mask",
        (106, 1) => "vcc_lo",
        (107, 1) => "vcc_hi",
        (106, 2) => "vcc",
        (108, 1) if gen == IsaGen::Gfx8 => "tba_lo",
        (109, 1) if gen == IsaGen::Gfx8 => "tba_hi",
        (108, 2) if gen == IsaGen::Gfx8 => "tba",
        (110, 1) if gen == IsaGen::Gfx8 => "tma_lo",
        (111, 1) if gen == IsaGen::Gfx8 => "tma_hi",
        (110, 2) if gen == IsaGen::Gfx8 => "tma",
        (c, 1) if c == gen.m0() => "m0",
        (126, 1) => "exec_lo",
        (127, 1) => "exec_hi",
        (126, 2) => "exec",
        _ => return None,
    })
}

/// True if read-only source `code` may stand in a scalar source of
/// `dwords` dwords on `t`, one that takes constants (`consts`, LLVM's
/// `SSrc` classes) or registers only (`SReg`), as LLVM 22's assembler
/// accepts them:
///
/// - 230-231 (`src_flat_scratch_base_lo/hi`) only on GFX12.5 ("register
///   not available on this GPU" elsewhere), and of 64 bits only 230;
/// - 239, 251, 252 (`src_pops_exiting_wave_id`, `src_vccz`, `src_execz`)
///   not from GFX12;
/// - 254 (`src_lds_direct`) never (a VOP `src0` only);
/// - a register-only source takes none of 64 bits, and of 32 bits only
///   230, 231, 239 and 251-253 (not the apertures 235-238).
pub fn source_ok(t: &crate::targets::Target, code: u16, dwords: u8, consts: bool) -> bool {
    let exists = match code {
        230 => t.is_gfx12_5(),
        231 => t.is_gfx12_5() && dwords == 1,
        239 | 251 | 252 => t.generation < crate::targets::Generation::Gfx12,
        254 => false,
        _ => true,
    };
    exists && (consts || (dwords == 1 && matches!(code, 230 | 231 | 239 | 251..=253)))
}

/// The name of a read-only source code (230-231, 235-239, 251-254).
pub fn source_name(code: u16) -> Option<&'static str> {
    Some(match code {
        230 => "src_flat_scratch_base_lo",
        231 => "src_flat_scratch_base_hi",
        235 => "src_shared_base",
        236 => "src_shared_limit",
        237 => "src_private_base",
        238 => "src_private_limit",
        239 => "src_pops_exiting_wave_id",
        251 => "src_vccz",
        252 => "src_execz",
        253 => "src_scc",
        254 => "src_lds_direct",
        _ => return None,
    })
}

/// Writes a register run: `s5`, `s[4:5]`, `v[0:3]`, `ttmp[4:7]`.
pub fn write_reg(out: &mut impl Write, file: File, first: u16, count: u8) -> fmt::Result {
    let prefix = match file {
        File::Sgpr => "s",
        File::Vgpr => "v",
        File::Agpr => "a",
        File::Ttmp => "ttmp",
    };
    if count <= 1 {
        write!(out, "{prefix}{first}")
    } else {
        write!(
            out,
            "{prefix}[{first}:{}]",
            u32::from(first) + u32::from(count) - 1
        )
    }
}

/// The 32-bit pattern of inline float code `code` (240-248).
fn float32(code: u16) -> u32 {
    match code {
        240 => 0x3f00_0000,
        241 => 0xbf00_0000,
        242 => 0x3f80_0000,
        243 => 0xbf80_0000,
        244 => 0x4000_0000,
        245 => 0xc000_0000,
        246 => 0x4080_0000,
        247 => 0xc080_0000,
        _ => 0x3e22_f983,
    }
}

/// The text of inline float code `code` (240-248) for an operand of type
/// `ty`: `0.5` ... `-4.0`, and 1/(2π) with the precision of the type.
pub fn float_text(code: u16, ty: OpType) -> &'static str {
    match code {
        240 => "0.5",
        241 => "-0.5",
        242 => "1.0",
        243 => "-1.0",
        244 => "2.0",
        245 => "-2.0",
        246 => "4.0",
        247 => "-4.0",
        _ => match ty {
            OpType::I64 | OpType::F64 => "0.15915494309189532",
            _ => "0.15915494",
        },
    }
}

/// The 16-bit pattern of inline float code `code` (240-248).
fn float16(code: u16) -> u16 {
    match code {
        240 => 0x3800,
        241 => 0xb800,
        242 => 0x3c00,
        243 => 0xbc00,
        244 => 0x4000,
        245 => 0xc000,
        246 => 0x4400,
        247 => 0xc400,
        _ => 0x3118,
    }
}

/// The inline float code whose 32-bit pattern is `v`, if any.
pub fn float32_code(v: u32) -> Option<u16> {
    (240..=248).find(|&c| float32(c) == v)
}

/// The inline float code whose 64-bit pattern is `v`, if any.
pub fn float_code64(v: u64) -> Option<u16> {
    (240..=248).find(|&c| float64(c) == v)
}

/// The inline float code whose 16-bit pattern is `h`, if any.
pub fn float16_code(h: u16) -> Option<u16> {
    (240..=248).find(|&c| float16(c) == h)
}

/// The 64-bit pattern of inline float code `code` (240-248).
fn float64(code: u16) -> u64 {
    match code {
        240 => 0x3fe0_0000_0000_0000,
        241 => 0xbfe0_0000_0000_0000,
        242 => 0x3ff0_0000_0000_0000,
        243 => 0xbff0_0000_0000_0000,
        244 => 0x4000_0000_0000_0000,
        245 => 0xc000_0000_0000_0000,
        246 => 0x4010_0000_0000_0000,
        247 => 0xc010_0000_0000_0000,
        _ => 0x3fc4_5f30_6dc9_c882,
    }
}

/// How a 32-bit literal `v` reads as an inline constant of an operand of
/// type `ty`, if it could have been one: `Ok(integer)` or `Err(float
/// code)`. 16-bit floats look at the low half; their integer-bits form
/// (`F16Bits`) and 32-bit operands at the whole value; 64-bit integers
/// at the zero-extended value.
fn literal_as_inline(v: u32, ty: OpType) -> Option<Result<i64, u16>> {
    match ty {
        OpType::F16 => {
            let h = v as u16;
            let i = i64::from(h as i16);
            if (-16..=64).contains(&i) {
                Some(Ok(i))
            } else {
                float16_code(h).map(Err)
            }
        }
        OpType::I64 => (v <= 64).then_some(Ok(i64::from(v))),
        _ => {
            let i = i64::from(v as i32);
            if (-16..=64).contains(&i) {
                Some(Ok(i))
            } else {
                float32_code(v).map(Err)
            }
        }
    }
}

/// The text of a 32-bit literal LLVM gives an operand of type `ty`.
///
/// A literal an inline constant could also encode is printed as that
/// constant by LLVM 19 (`18`, `0.5`) and as `lit(0x12)` by LLVM 22, so
/// that its assembler keeps the literal. Anything else is hex: of the
/// low half for 16-bit operands, of the value otherwise. (Measured with
/// llvm-mc-19 and -22 on `s_mov_b32`, `s_mov_b64`, `s_add_f16` and
/// `s_cmp_lt_f16`.)
pub fn write_literal(out: &mut impl Write, v: u32, ty: OpType, dialect: Dialect) -> fmt::Result {
    let narrow = matches!(ty, OpType::F16 | OpType::F16Bits);
    match (literal_as_inline(v, ty), dialect) {
        (Some(_), Dialect::Llvm22) => write!(out, "lit({v:#x})"),
        (Some(Ok(i)), Dialect::Llvm19) => write!(out, "{i}"),
        (Some(Err(code)), Dialect::Llvm19) => out.write_str(float_text(
            code,
            if ty == OpType::F16 { ty } else { OpType::B32 },
        )),
        (None, _) if narrow => write!(out, "{:#x}", v as u16),
        (None, _) => write!(out, "{v:#x}"),
    }
}

/// The text of a GFX12.5 64-bit literal (LLVM 22; LLVM 19 has no
/// GFX12.5): a value below 2^32 as `lit64(0x12)`, so that the assembler
/// keeps the long form; otherwise a 64-bit operand prints the value (an
/// inline integer or float it equals by name, else hex) and a narrower
/// one its low dword as an LLVM 19 literal (measured with llvm-mc-22 on
/// gfx1250 `s_mov_b64` and `s_mov_b32`).
pub fn write_literal64(out: &mut impl Write, v: u64, ty: OpType) -> fmt::Result {
    if v >> 32 == 0 {
        return write!(out, "lit64({v:#x})");
    }
    if ty.dwords() == 2 {
        let i = v as i64;
        if (-16..=64).contains(&i) {
            return write!(out, "{i}");
        }
        if let Some(code) = float_code64(v) {
            return out.write_str(float_text(code, OpType::F64));
        }
        return write!(out, "{v:#x}");
    }
    write_literal(out, v as u32, ty, Dialect::Llvm19)
}

/// Writes `op` as LLVM (`dialect`) prints an operand of type `ty` on
/// `gen`.
pub fn write_operand(
    out: &mut impl Write,
    gen: IsaGen,
    dialect: Dialect,
    op: Operand,
    ty: OpType,
) -> fmt::Result {
    match op {
        Operand::Reg { file, first, count } => write_reg(out, file, first, count),
        Operand::Special { code, count } => match special_name(gen, code, count) {
            Some(n) => out.write_str(n),
            None => write!(out, "<bad special {code}x{count}>"),
        },
        Operand::Null => out.write_str("null"),
        Operand::Int(i) => write!(out, "{i}"),
        Operand::Float(code) if ty == OpType::F16Bits => write!(out, "{:#x}", float16(code)),
        Operand::Float(code) => out.write_str(float_text(code, ty)),
        Operand::Source(code) => out.write_str(source_name(code).unwrap_or("<bad source>")),
        Operand::Literal(v) => write_literal(out, v, ty, dialect),
        Operand::Literal64(v) => write_literal64(out, v, ty),
        Operand::Imm(v) => write!(out, "{v:#x}"),
        Operand::Bad(code) => write!(out, "<bad {code}>"),
    }
}
