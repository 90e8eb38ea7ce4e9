//! Opcode rows: one per instruction of an encoding family, with the
//! operands it prints, and the processors that have it.
//!
//! Decoding, length, text and register use are computed from the rows;
//! nothing is written per opcode. The rows themselves are data
//! (`rows/*.rs`), checked against libLLVM 19 and 22 in process
//! (`tests/isa_libllvm.rs`).

use super::gen::IsaGen;
use super::operand::OpType;

/// An encoding family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// Scalar, one source: `s_mov_b32 s0, s1`.
    Sop1,
    /// Scalar, two sources.
    Sop2,
    /// Scalar with a 16-bit immediate.
    Sopk,
    /// Scalar compare (writes SCC).
    Sopc,
    /// Scalar program control with a 16-bit immediate.
    Sopp,
}

impl Family {
    /// Every family the layer decodes.
    pub const ALL: [Family; 5] = [
        Family::Sop1,
        Family::Sop2,
        Family::Sopk,
        Family::Sopc,
        Family::Sopp,
    ];

    /// Upper-case name, as the ISA references write it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sop1 => "SOP1",
            Self::Sop2 => "SOP2",
            Self::Sopk => "SOPK",
            Self::Sopc => "SOPC",
            Self::Sopp => "SOPP",
        }
    }

    /// The family named `name` (any case).
    pub fn by_name(name: &str) -> Option<Family> {
        Self::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }
}

/// An operand field of an encoding (positions in [`super::encoding`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// Scalar destination, 7 bits.
    Sdst,
    /// Scalar source 0, 8 bits.
    Ssrc0,
    /// Scalar source 1, 8 bits.
    Ssrc1,
    /// 16-bit immediate.
    Simm16,
    /// The 32-bit literal dword that follows the instruction (an operand
    /// that is always a literal, such as `s_fmaak_f32`'s K).
    Literal,
}

/// How an immediate operand prints (register and constant operands print
/// by their [`OpType`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A register or constant source, or a register destination.
    Reg,
    /// 16 bits printed in hex (`s_movk_i32 s4, 0x1`).
    Hex16,
    /// 16 bits, decimal up to 64 and hex above (`s_nop 3`, `s_nop 0x41`).
    Imm16,
    /// 16 bits printed as an unsigned decimal.
    Dec16,
    /// 16 bits printed as an unsigned decimal, and not at all when 0
    /// (`s_endpgm`).
    Dec16Opt,
    /// A branch offset in dwords, printed as an unsigned decimal
    /// (`s_branch 38`; the target is the next instruction plus 4 times the
    /// offset read as signed).
    Branch,
    /// `hwreg(ID, OFFSET, SIZE)`.
    Hwreg,
    /// `sendmsg(...)`.
    SendMsg,
    /// `vmcnt(..) expcnt(..) lgkmcnt(..)`.
    Waitcnt,
    /// `depctr_...` fields (GFX10+ `s_waitcnt_depctr`).
    DepCtr,
    /// `instid0(...)` ... (GFX11+ `s_delay_alu`).
    DelayAlu,
    /// `gpr_idx(...)` (GFX8/GFX9 `s_set_gpr_idx_mode`).
    GprIdx,
    /// `UC_VERSION_...` (`s_version`).
    Version,
    /// The literal dword, printed in hex whatever its value (a K
    /// operand: `s_fmaak_f32 s0, s1, s2, 0x12`).
    Lit,
    /// The literal dword, printed as a 32-bit value as LLVM 19 prints
    /// literals, in both dialects (`s_setreg_imm32_b32 ..., 18`,
    /// `0.15915494`).
    LitValue,
}

/// Whether the instruction reads or writes an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read.
    Read,
    /// Written.
    Write,
    /// Read and written.
    ReadWrite,
    /// An immediate: no register.
    Immediate,
}

/// One printed operand of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    /// The field that holds it.
    pub field: Field,
    /// How it prints.
    pub kind: Kind,
    /// Its type (registers: the width in dwords comes from here, or from
    /// `dwords` for wider tuples).
    pub ty: OpType,
    /// 32-bit registers it spans.
    pub dwords: u8,
    /// Read or written.
    pub access: Access,
    /// A source that also takes inline constants and a literal (LLVM's
    /// `SSrc` classes); `false` for registers only (`SReg`: LLVM prints a
    /// constant there with `/*Invalid immediate*/`).
    pub consts: bool,
}

/// One instruction of one family on some processors.
#[derive(Debug, PartialEq, Eq)]
pub struct Row {
    /// The family.
    pub family: Family,
    /// The opcode field's value.
    pub opcode: u16,
    /// The mnemonic LLVM 22 prints.
    pub name: &'static str,
    /// The mnemonic LLVM 19 prints, where it differs.
    pub name19: Option<&'static str>,
    /// The operands, in printed order.
    pub slots: &'static [Slot],
    /// Fields no operand uses that must be 0 (LLVM's disassembler refuses
    /// the word otherwise; fields it ignores are not listed).
    pub zero: &'static [Field],
    /// The processors (LLVM names) that have it.
    pub procs: &'static [&'static str],
    /// Which LLVMs decode it on those processors.
    pub llvm: Llvm,
}

/// Which LLVM versions decode a row, on processors both know (a
/// processor LLVM 19 does not know has `Both` rows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Llvm {
    /// LLVM 19 and 22.
    Both,
    /// LLVM 22 only: new there (`s_alloc_vgpr` on GFX12).
    Since22,
    /// LLVM 19 only: gone from LLVM 22 (`s_singleuse_vdst`). The oracle
    /// follows LLVM 22 and calls the word invalid.
    Until19,
}

impl Llvm {
    /// True if LLVM `version` decodes the row.
    pub fn includes(self, version: u32) -> bool {
        match self {
            Self::Both => true,
            Self::Since22 => version >= 22,
            Self::Until19 => version < 22,
        }
    }
}

/// The rows of every family.
pub fn rows() -> impl Iterator<Item = &'static Row> {
    super::rows::ALL.iter().flat_map(|r| r.iter())
}

/// The generation a row belongs to: the one of its first processor.
pub fn row_gen(r: &Row) -> Option<IsaGen> {
    r.procs
        .first()
        .and_then(|p| crate::targets::by_name(p))
        .and_then(IsaGen::of)
}
