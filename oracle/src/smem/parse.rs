//! Parsing SMEM instructions in LLVM assembler syntax, and printing them
//! the way `llvm-mc-14 --disassemble` does.
//!
//! [`parse`] reads one instruction as `llvm-mc-19` assembles it for a
//! generation: everything [`Instruction`]'s `Display` prints, plus the
//! other spellings LLVM accepts for the same words (checked one by one
//! with `llvm-mc-19 -show-encoding`, see `tests/smem_parse_llvm.rs`):
//!
//! * mnemonics in any case, with an optional `_e32` suffix; on GFX11 and
//!   GFX12 the GFX10 load names (`s_load_dword` for `s_load_b32`);
//! * registers `s5`, `s[4:7]`, `s[5]`, `[s4,s5,s6,s7]`, `ttmpN`,
//!   `ttmp[a:b]`, `vcc`, `vcc_lo`, `exec`, `exec_lo`, `m0`, `null`,
//!   `flat_scratch`, `xnack_mask`, `tba`, `tma` and their halves, where the
//!   generation (and processor: [`ParseOptions`]) has them; register names
//!   are lower case only, as in LLVM;
//! * integer expressions wherever a number goes: decimal, hex, octal,
//!   binary and character literals with LLVM's integer suffixes,
//!   parentheses, unary `- + ~ !` and LLVM's binary operators with GNU
//!   precedence and 64-bit wrapping arithmetic; `lit(...)` around an
//!   immediate operand (LLVM 19);
//! * optional commas between operands, a trailing comma, comments (`;`,
//!   `//`, `/* */`), any spacing;
//! * an omitted immediate offset (it defaults to 0), `sN offset:X` on
//!   GFX9–GFX12, `null offset:X` on GFX10+, `glc`/`dlc` in any order and
//!   their `no` forms, `noslc`, `noscc` (gfx90a/gfx942), GFX12
//!   `th:`/`scope:` in any order, and on GFX12.5 (as `llvm-mc-22
//!   -mcpu=gfx1250` takes them) `nv`, `scale_offset`, `nonv` and
//!   `noscale_offset` among them in any order.
//!
//! What `llvm-mc-19` rejects, `parse` rejects, with the column of the
//! problem. `parse` also rejects a few texts that LLVM accepts but
//! assembles into a different word than they say (LLVM truncates
//! `s_atc_probe 128` and the GFX12 prefetch length 32 to 0, and assembles
//! `src_scc`, `src_vccz`, `src_execz`, `src_pops_exiting_wave_id` as an
//! offset register into the low 7 bits of their number), symbols (which
//! need relocations), and division overflow (which crashes llvm-mc).
//! Every text `Display` prints parses back, except GFX8/GFX9 SGPR tuples
//! reaching s102 (`s[100:103]`), which llvm-mc's disassembler prints but
//! its assembler refuses.
//!
//! The result is canonical: `parse` encodes what it read and decodes the
//! word, so `parse(gen, t)` is the instruction [`super::decode`] returns
//! for the word `llvm-mc` assembles from `t`.
//!
//! [`Dialect::Llvm14`] follows `llvm-mc-14` instead (no `sN offset:X`,
//! `offset:X` alone as the immediate, upper-case-only integer suffixes,
//! no `lit()`, commas allowed between modifiers, no comma after the last
//! one; a modifier where the offset goes is refused because LLVM 14 turns
//! it into offset 1); [`format()`] prints an instruction as either release's
//! disassembler does.

use std::fmt;

use super::{
    decode, encode, tuple_align, tuple_name, Class, EncodeError, Instruction, Offset, OpInfo,
    SmemGen, Verdict,
};
use crate::targets::Target;

mod lex;
mod names;
mod parser;

use lex::*;
use names::*;
use parser::*;

/// Which LLVM release's assembler and disassembler syntax to follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// `llvm-mc-19` (Debian 19.1.7): the syntax `Display` prints. On
    /// GFX12.5, which LLVM 19 does not know, `llvm-mc-22`'s (Debian
    /// 22.1.8), which adds `nv`, `scale_offset` and their `no` forms.
    Llvm19,
    /// `llvm-mc-14` (Debian 14.0.6), which knows GFX8 to GFX10 only.
    Llvm14,
}

/// Processor details that change what the assembler accepts within one
/// [`SmemGen`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParseOptions {
    /// Assembler release.
    pub dialect: Dialect,
    /// The processor supports XNACK, so GFX8/GFX9 `xnack_mask`,
    /// `xnack_mask_lo` and `xnack_mask_hi` exist (llvm-mc rejects them on
    /// gfx803, for example: "register not available on this GPU").
    pub xnack: bool,
    /// The processor has the SCC cache-policy bit (gfx90a, gfx940–gfx942),
    /// so `noscc` is accepted (and ignored) on SMEM instructions.
    pub scc: bool,
}

impl ParseOptions {
    /// LLVM 19 syntax, with XNACK registers and without `noscc`: accepts
    /// the text `Display` prints for every instruction llvm-mc can
    /// assemble.
    pub const LLVM19: ParseOptions = ParseOptions::new(Dialect::Llvm19);

    /// Options for `dialect` with XNACK registers and without `noscc`.
    pub const fn new(dialect: Dialect) -> Self {
        Self {
            dialect,
            xnack: true,
            scc: false,
        }
    }

    /// Options matching what `llvm-mc -mcpu=<t.name>` accepts.
    pub fn for_target(t: &Target, dialect: Dialect) -> Self {
        Self {
            dialect,
            xnack: t.xnack,
            // llvm-mc-19 accepts `noscc` on gfx90a and gfx942 but not on
            // gfx9-4-generic (checked with -mcpu=gfx9-4-generic).
            scc: t.is_gfx90a_family() && !t.is_generic,
        }
    }
}

impl Default for ParseOptions {
    fn default() -> Self {
        Self::LLVM19
    }
}

/// Why a text is not a valid SMEM instruction, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Line (1-based) where the problem starts; only texts with newlines
    /// have problems past line 1.
    pub line: usize,
    /// Column (1-based, in characters from the start of the line) where
    /// the problem starts.
    pub column: usize,
    /// What is wrong.
    pub kind: ParseErrorKind,
}

/// The kinds of [`ParseError`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// No instruction: the text is empty, blank or only a comment.
    Empty,
    /// Not the mnemonic of an SMEM instruction of any generation.
    UnknownMnemonic(String),
    /// An SMEM mnemonic this generation does not have (llvm-mc:
    /// "instruction not supported on this GPU").
    NotOnGeneration(String),
    /// The dialect's LLVM release does not know the generation (LLVM 14
    /// has no GFX11 or GFX12).
    GenerationNotInDialect,
    /// An encoding-variant suffix (`_e64`, `_dpp`, `_sdwa`) that SMEM
    /// instructions do not have.
    VariantSuffix(String),
    /// Something else was needed here (what is named).
    Expected(&'static str),
    /// A malformed literal (`09`, `0x`, `0b2`, `'ab'`); names the kind.
    BadLiteral(&'static str),
    /// An integer literal wider than 64 bits.
    LiteralTooLarge,
    /// A floating-point literal where an integer is needed.
    RealLiteral,
    /// A symbol in an expression: only constants can be checked.
    Symbol(String),
    /// Division or remainder by zero.
    DivisionByZero,
    /// `INT64_MIN / -1` or `INT64_MIN % -1` (llvm-mc-19 dies of SIGFPE).
    DivisionOverflow,
    /// Parentheses or unary operators nested too deeply.
    TooDeep,
    /// A block comment, character or string literal without its end.
    Unterminated(&'static str),
    /// A register that no SMEM operand takes (vector registers,
    /// `src_scc`, `shared_base`, `pc`, ...).
    RegisterNotAllowed(String),
    /// A register that this generation or processor does not have.
    RegisterUnavailable(String),
    /// A register index that is not a number in range.
    RegisterIndex,
    /// A tuple whose first register is not a multiple of its alignment.
    RegisterAlignment {
        /// First register index.
        first: u32,
        /// Required alignment.
        align: u8,
    },
    /// A register tuple of the wrong size.
    RegisterWidth {
        /// Registers the operand takes.
        expected: u8,
        /// Registers given.
        found: u32,
    },
    /// A number of registers no register tuple has (`s[0:12]`).
    RegisterSize(u32),
    /// A register list (`[s0,s1]`) that does not name one tuple.
    RegisterList(&'static str),
    /// A register of the right size that the operand's class excludes
    /// (`m0` or `exec` as a destination, `exec` as a buffer resource).
    RegisterClass(String),
    /// An immediate outside the operand's range.
    ImmediateRange {
        /// The operand.
        what: &'static str,
        /// The value given.
        value: i64,
        /// Smallest accepted value.
        min: i64,
        /// Largest accepted value.
        max: i64,
    },
    /// A modifier that this instruction, generation or processor does
    /// not take.
    Modifier(String),
    /// A cache-policy modifier given twice (counting `glc` and `noglc` as
    /// one).
    DuplicateModifier(String),
    /// A GFX12 `th:` or `scope:` value, or combination, that SMEM loads
    /// do not take.
    CachePolicy(&'static str),
    /// An `offset:` modifier where it is not allowed (says why).
    OffsetForm(&'static str),
    /// An operand is missing (names it).
    MissingOperand(&'static str),
    /// Text after the complete instruction.
    TrailingInput,
    /// LLVM 14 reads a modifier in the offset position as the immediate
    /// 1 and drops it (`s_load_dword s5, s[2:3], glc` becomes offset 1);
    /// refused in the LLVM 14 dialect.
    Llvm14ModifierAsOffset,
    /// `encode` refused the instruction (not expected after parsing).
    Encode(EncodeError),
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ParseErrorKind as K;
        match self {
            K::Empty => f.write_str("no instruction"),
            K::UnknownMnemonic(m) => write!(f, "unknown SMEM mnemonic `{m}`"),
            K::NotOnGeneration(m) => write!(f, "`{m}` is not an instruction of this generation"),
            K::GenerationNotInDialect => {
                f.write_str("LLVM 14 does not know this generation (GFX11, GFX12, GFX12.5)")
            }
            K::VariantSuffix(s) => write!(f, "SMEM instructions have no `{s}` variant"),
            K::Expected(what) => write!(f, "expected {what}"),
            K::BadLiteral(what) => write!(f, "invalid {what} literal"),
            K::LiteralTooLarge => f.write_str("integer literal does not fit in 64 bits"),
            K::RealLiteral => f.write_str("floating-point literal where an integer is needed"),
            K::Symbol(s) => write!(f, "symbol `{s}` in an expression (constants only)"),
            K::DivisionByZero => f.write_str("division by zero"),
            K::DivisionOverflow => f.write_str("signed division overflow"),
            K::TooDeep => f.write_str("expression nested too deeply"),
            K::Unterminated(what) => write!(f, "unterminated {what}"),
            K::RegisterNotAllowed(r) => write!(f, "register `{r}` is not an SMEM operand"),
            K::RegisterUnavailable(r) => {
                write!(
                    f,
                    "register `{r}` does not exist on this generation or processor"
                )
            }
            K::RegisterIndex => f.write_str("invalid register index"),
            K::RegisterAlignment { first, align } => {
                write!(
                    f,
                    "register tuple starts at {first}, not a multiple of {align}"
                )
            }
            K::RegisterWidth { expected, found } => {
                write!(f, "expected {expected} register(s), found {found}")
            }
            K::RegisterSize(n) => write!(f, "no register tuple has {n} registers"),
            K::RegisterList(why) => write!(f, "invalid register list: {why}"),
            K::RegisterClass(r) => write!(f, "register `{r}` is not allowed for this operand"),
            K::ImmediateRange {
                what,
                value,
                min,
                max,
            } => write!(f, "{what} {value} is out of range {min}..={max}"),
            K::Modifier(m) => write!(f, "modifier `{m}` is not allowed here"),
            K::DuplicateModifier(m) => write!(f, "duplicate cache-policy modifier `{m}`"),
            K::CachePolicy(why) => write!(f, "invalid cache policy: {why}"),
            K::OffsetForm(why) => write!(f, "`offset:` not allowed: {why}"),
            K::MissingOperand(what) => write!(f, "missing {what}"),
            K::TrailingInput => f.write_str("unexpected text after the instruction"),
            K::Llvm14ModifierAsOffset => f.write_str(
                "modifier in the offset position (LLVM 14 would assemble it as offset 1)",
            ),
            K::Encode(e) => write!(f, "cannot encode: {e}"),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 1 {
            write!(f, "line {}, ", self.line)?;
        }
        write!(f, "column {}: {}", self.column, self.kind)
    }
}

impl std::error::Error for ParseError {}

/// Parses one SMEM instruction in `llvm-mc-19` syntax for `gen` (with
/// [`ParseOptions::LLVM19`]). Never panics.
pub fn parse(gen: SmemGen, text: &str) -> Result<Instruction, ParseError> {
    parse_with(gen, text, ParseOptions::LLVM19)
}

/// Parses one SMEM instruction for `gen` with `opts`. Never panics.
pub fn parse_with(gen: SmemGen, text: &str, opts: ParseOptions) -> Result<Instruction, ParseError> {
    let toks = lex(text, opts.dialect)?;
    let mut p = Parser {
        text,
        toks,
        at: 0,
        gen,
        opts,
    };
    p.instruction()
}

/// The instruction as `llvm-mc --disassemble` of that release prints its
/// canonical word ([`super::encode`]). For [`Dialect::Llvm14`], GFX11 and
/// GFX12 instructions (unknown to LLVM 14) print as LLVM 19 does.
pub fn format(i: &Instruction, dialect: Dialect) -> String {
    match dialect {
        Dialect::Llvm19 => i.to_string(),
        Dialect::Llvm14 => Instruction {
            offset: llvm14_offset(i),
            ..*i
        }
        .to_string(),
    }
}

/// The offset operand as LLVM 14 shows it: it has no SOE on GFX9 (it
/// prints the immediate of IMM=1 words and the OFFSET register, 0 in
/// canonical words, of IMM=0 words) and no immediate next to a register
/// on GFX10 (it prints SOFFSET alone, or OFFSET when SOFFSET is null).
fn llvm14_offset(i: &Instruction) -> Offset {
    let g = i.gen;
    match (g, i.offset) {
        (SmemGen::Gfx9, Offset::SgprImm { imm, .. }) => Offset::Imm(imm),
        (SmemGen::Gfx9, Offset::Soffset(_)) => Offset::Sgpr(0),
        (SmemGen::Gfx10_1 | SmemGen::Gfx10_3, Offset::SgprImm { sgpr, .. }) => Offset::Sgpr(sgpr),
        (SmemGen::Gfx10_1 | SmemGen::Gfx10_3, Offset::Sgpr(r)) if r == g.null() => Offset::Imm(0),
        (_, o) => o,
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
