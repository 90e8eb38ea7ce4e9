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
//!   `th:`/`scope:` in any order.
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

/// Which LLVM release's assembler and disassembler syntax to follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// `llvm-mc-19` (Debian 19.1.7): the syntax `Display` prints.
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
                f.write_str("LLVM 14 does not know this generation (GFX11, GFX12)")
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

// ---------------------------------------------------------------------------
// Lexer

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Punct {
    Comma,
    LBrac,
    RBrac,
    Colon,
    LParen,
    RParen,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Shl,
    Shr,
    Amp,
    AmpAmp,
    Pipe,
    PipePipe,
    Caret,
    Tilde,
    Excl,
    EqEq,
    Ne,
    LessGreater,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok<'a> {
    Ident(&'a str),
    /// An integer or character literal (two's complement).
    Int(u64),
    Real,
    Str,
    Punct(Punct),
    /// A newline (comments are skipped).
    Eol,
    End,
    Other(char),
}

#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    tok: Tok<'a>,
    /// Byte offset of the first character.
    start: usize,
}

/// Line and column (1-based, columns in characters) of a byte offset.
fn position(text: &str, byte: usize) -> (usize, usize) {
    let before = text.get(..byte).unwrap_or("");
    let line_start = before.rfind('\n').map_or(0, |k| k + 1);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

fn error_at(text: &str, byte: usize, kind: ParseErrorKind) -> ParseError {
    let (line, column) = position(text, byte);
    ParseError { line, column, kind }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || matches!(c, b'_' | b'.' | b'$' | b'@' | b'?')
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'@' | b'?')
}

/// Splits `text` into tokens; the token list is at most one longer than
/// the text.
fn lex(text: &str, dialect: Dialect) -> Result<Vec<Token<'_>>, ParseError> {
    let b = text.as_bytes();
    let err = |at: usize, kind| error_at(text, at, kind);
    let mut toks = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let start = i;
        let at = |k: usize| b.get(k).copied().unwrap_or(0);
        let punct = |p: Punct, len: usize| (Tok::Punct(p), start + len);
        let (tok, end) = match c {
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                i += 1;
                continue;
            }
            b'\n' => (Tok::Eol, i + 1),
            b';' => {
                // LLVM's AMDGPU comment character: the rest of the line.
                while b.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
                continue;
            }
            b'/' if at(i + 1) == b'/' => {
                while b.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
                continue;
            }
            b'/' if at(i + 1) == b'*' => {
                let rest = text.get(i + 2..).unwrap_or("");
                match rest.find("*/") {
                    Some(k) => {
                        i += 2 + k + 2;
                        continue;
                    }
                    None => return Err(err(start, ParseErrorKind::Unterminated("comment"))),
                }
            }
            b'0'..=b'9' => lex_number(b, i, dialect).map_err(|(at, k)| err(at, k))?,
            b'\'' => lex_char(b, i).map_err(|(at, k)| err(at, k))?,
            b'"' => {
                let mut k = i + 1;
                loop {
                    match b.get(k) {
                        None | Some(b'\n') => {
                            return Err(err(start, ParseErrorKind::Unterminated("string")))
                        }
                        Some(b'\\') => k += 2,
                        Some(b'"') => break (Tok::Str, k + 1),
                        Some(_) => k += 1,
                    }
                }
            }
            c if is_ident_start(c) => {
                let mut k = i + 1;
                while b.get(k).is_some_and(|&c| is_ident_char(c)) {
                    k += 1;
                }
                (Tok::Ident(text.get(i..k).unwrap_or("")), k)
            }
            b',' => punct(Punct::Comma, 1),
            b'[' => punct(Punct::LBrac, 1),
            b']' => punct(Punct::RBrac, 1),
            b':' => punct(Punct::Colon, 1),
            b'(' => punct(Punct::LParen, 1),
            b')' => punct(Punct::RParen, 1),
            b'+' => punct(Punct::Plus, 1),
            b'-' => punct(Punct::Minus, 1),
            b'*' => punct(Punct::Star, 1),
            b'/' => punct(Punct::Slash, 1),
            b'%' => punct(Punct::Percent, 1),
            b'^' => punct(Punct::Caret, 1),
            b'~' => punct(Punct::Tilde, 1),
            b'<' => match at(i + 1) {
                b'<' => punct(Punct::Shl, 2),
                b'=' => punct(Punct::Le, 2),
                b'>' => punct(Punct::LessGreater, 2),
                _ => punct(Punct::Lt, 1),
            },
            b'>' => match at(i + 1) {
                b'>' => punct(Punct::Shr, 2),
                b'=' => punct(Punct::Ge, 2),
                _ => punct(Punct::Gt, 1),
            },
            b'&' if at(i + 1) == b'&' => punct(Punct::AmpAmp, 2),
            b'&' => punct(Punct::Amp, 1),
            b'|' if at(i + 1) == b'|' => punct(Punct::PipePipe, 2),
            b'|' => punct(Punct::Pipe, 1),
            b'!' if at(i + 1) == b'=' => punct(Punct::Ne, 2),
            b'!' => punct(Punct::Excl, 1),
            b'=' if at(i + 1) == b'=' => punct(Punct::EqEq, 2),
            _ => {
                let ch = text.get(i..).and_then(|s| s.chars().next()).unwrap_or('?');
                (Tok::Other(ch), i + ch.len_utf8())
            }
        };
        toks.push(Token { tok, start });
        i = end;
    }
    toks.push(Token {
        tok: Tok::End,
        start: b.len(),
    });
    Ok(toks)
}

type LexResult<'a> = Result<(Tok<'a>, usize), (usize, ParseErrorKind)>;

/// Accumulates digits of `radix`; `None` when the value passes 64 bits.
fn digits_value(digits: &[u8], radix: u64) -> Option<u64> {
    digits.iter().try_fold(0u64, |acc, &d| {
        let v = u64::from(char::from(d).to_digit(36)?);
        acc.checked_mul(radix)?.checked_add(v)
    })
}

/// Skips LLVM's ignored integer suffixes: `U`, `L`, `LL`, `UL`, `ULL`;
/// LLVM 19 takes them in any case, LLVM 14 upper case only.
fn skip_suffix(b: &[u8], mut i: usize, dialect: Dialect) -> usize {
    let is = |c: Option<&u8>, up: u8| match (c, dialect) {
        (Some(&c), Dialect::Llvm19) => c.to_ascii_uppercase() == up,
        (Some(&c), Dialect::Llvm14) => c == up,
        (None, _) => false,
    };
    if is(b.get(i), b'U') {
        i += 1;
    }
    for _ in 0..2 {
        if is(b.get(i), b'L') {
            i += 1;
        }
    }
    i
}

fn lex_number(b: &[u8], start: usize, dialect: Dialect) -> LexResult<'static> {
    let at = |k: usize| b.get(k).copied().unwrap_or(0);
    let run = |mut k: usize, f: fn(&u8) -> bool| {
        while b.get(k).is_some_and(f) {
            k += 1;
        }
        k
    };
    let real_end = |k: usize| {
        run(k, |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-')
        })
    };
    let value = |digits: &[u8], radix: u64, end: usize| match digits_value(digits, radix) {
        Some(v) => Ok((Tok::Int(v), skip_suffix(b, end, dialect))),
        None => Err((start, ParseErrorKind::LiteralTooLarge)),
    };
    let first = at(start);
    let second = at(start + 1);
    if first == b'0' && matches!(second, b'x' | b'X') {
        let ds = start + 2;
        let de = run(ds, u8::is_ascii_hexdigit);
        if matches!(at(de), b'.' | b'p' | b'P') {
            return Ok((Tok::Real, real_end(de)));
        }
        if de == ds {
            return Err((start, ParseErrorKind::BadLiteral("hexadecimal")));
        }
        return value(b.get(ds..de).unwrap_or(&[]), 16, de);
    }
    if first == b'0' && matches!(second, b'b' | b'B') {
        let ds = start + 2;
        let de = run(ds, |c| matches!(c, b'0' | b'1'));
        if de == ds {
            return Err((start, ParseErrorKind::BadLiteral("binary")));
        }
        return value(b.get(ds..de).unwrap_or(&[]), 2, de);
    }
    let de = run(start, u8::is_ascii_digit);
    if first != b'0' || at(de) == b'.' {
        if matches!(at(de), b'.' | b'e' | b'E') {
            return Ok((Tok::Real, real_end(de)));
        }
        return value(b.get(start..de).unwrap_or(&[]), 10, de);
    }
    // A leading 0: octal, as in C.
    let digits = b.get(start..de).unwrap_or(&[]);
    if digits.iter().any(|&d| d > b'7') {
        return Err((start, ParseErrorKind::BadLiteral("octal")));
    }
    value(digits, 8, de)
}

/// `'c'` and `'\c'` as LLVM reads them (`\t \n \b \f \r`, otherwise the
/// character itself). Only ASCII characters are accepted.
fn lex_char(b: &[u8], start: usize) -> LexResult<'static> {
    let mut k = start + 1;
    let mut c = b.get(k).copied();
    let escaped = c == Some(b'\\');
    if escaped {
        k += 1;
        c = b.get(k).copied();
    }
    let Some(c) = c.filter(|&c| c != b'\n') else {
        return Err((start, ParseErrorKind::Unterminated("character literal")));
    };
    if b.get(k + 1) != Some(&b'\'') || !c.is_ascii() {
        return Err((start, ParseErrorKind::BadLiteral("character")));
    }
    let v = match (escaped, c) {
        (true, b't') => b'\t',
        (true, b'n') => b'\n',
        (true, b'b') => 8,
        (true, b'f') => 12,
        (true, b'r') => b'\r',
        (_, c) => c,
    };
    Ok((Tok::Int(u64::from(v)), k + 2))
}

// ---------------------------------------------------------------------------
// Parser

/// Parenthesis/unary nesting limit, so that hostile input cannot exhaust
/// the stack.
const MAX_DEPTH: u32 = 200;

/// Kinds of register LLVM's parser tells apart in lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RegKind {
    Sgpr,
    Ttmp,
    Special,
}

/// A parsed register operand: hardware number of the first register and
/// the number of 32-bit registers.
#[derive(Clone, Copy, Debug)]
struct Reg {
    hw: u8,
    width: u32,
    start: usize,
}

/// The offset operand as written.
#[derive(Clone, Copy, Debug)]
enum OffsetText {
    Imm(i64, usize),
    Reg(u8),
    RegImm(u8, i64, usize),
}

/// Cache-policy words LLVM's parser recognises before it knows the
/// instruction.
const CPOL_WORDS: &[&str] = &[
    "glc", "noglc", "slc", "noslc", "dlc", "nodlc", "scc", "noscc", "sc0", "nosc0", "sc1", "nosc1",
    "nt", "nont",
];

/// Special register names that exist in LLVM but that no SMEM operand
/// takes (their numbers do not fit the 7-bit fields).
const UNUSABLE_SPECIALS: &[&str] = &[
    "shared_base",
    "src_shared_base",
    "shared_limit",
    "src_shared_limit",
    "private_base",
    "src_private_base",
    "private_limit",
    "src_private_limit",
    "pops_exiting_wave_id",
    "src_pops_exiting_wave_id",
    "lds_direct",
    "src_lds_direct",
    "vccz",
    "src_vccz",
    "execz",
    "src_execz",
    "scc",
    "src_scc",
    "pc",
];

/// GFX10 load names that LLVM 19 accepts on GFX11/GFX12 as aliases.
const LOAD_ALIASES: &[(&str, &str)] = &[
    ("s_load_dword", "s_load_b32"),
    ("s_load_dwordx2", "s_load_b64"),
    ("s_load_dwordx4", "s_load_b128"),
    ("s_load_dwordx8", "s_load_b256"),
    ("s_load_dwordx16", "s_load_b512"),
    ("s_buffer_load_dword", "s_buffer_load_b32"),
    ("s_buffer_load_dwordx2", "s_buffer_load_b64"),
    ("s_buffer_load_dwordx4", "s_buffer_load_b128"),
    ("s_buffer_load_dwordx8", "s_buffer_load_b256"),
    ("s_buffer_load_dwordx16", "s_buffer_load_b512"),
];

struct Parser<'a> {
    text: &'a str,
    toks: Vec<Token<'a>>,
    at: usize,
    gen: SmemGen,
    opts: ParseOptions,
}

/// What the operands of one instruction said.
#[derive(Default)]
struct Operands {
    sdata: u8,
    sbase: u8,
    offset: Option<OffsetText>,
    glc: bool,
    dlc: bool,
    th: u8,
    scope: u8,
}

impl<'a> Parser<'a> {
    fn tok(&self) -> Tok<'a> {
        self.tok_at(0)
    }

    fn tok_at(&self, k: usize) -> Tok<'a> {
        self.toks
            .get(self.at.saturating_add(k))
            .map_or(Tok::End, |t| t.tok)
    }

    fn pos(&self) -> usize {
        self.toks.get(self.at).map_or(self.text.len(), |t| t.start)
    }

    fn bump(&mut self) {
        if self.at < self.toks.len() {
            self.at += 1;
        }
    }

    fn err_at<T>(&self, byte: usize, kind: ParseErrorKind) -> Result<T, ParseError> {
        Err(error_at(self.text, byte, kind))
    }

    fn err<T>(&self, kind: ParseErrorKind) -> Result<T, ParseError> {
        self.err_at(self.pos(), kind)
    }

    fn is_punct(&self, p: Punct) -> bool {
        self.tok() == Tok::Punct(p)
    }

    fn eat(&mut self, p: Punct) -> bool {
        let yes = self.is_punct(p);
        if yes {
            self.bump();
        }
        yes
    }

    fn at_end(&self) -> bool {
        matches!(self.tok(), Tok::Eol | Tok::End)
    }

    fn llvm19(&self) -> bool {
        self.opts.dialect == Dialect::Llvm19
    }

    /// The token error for "expected `what`" at the current token, more
    /// specific when the token is itself malformed.
    fn expected<T>(&self, what: &'static str) -> Result<T, ParseError> {
        let kind = match self.tok() {
            Tok::Real => ParseErrorKind::RealLiteral,
            Tok::Eol | Tok::End => ParseErrorKind::MissingOperand(what),
            _ => ParseErrorKind::Expected(what),
        };
        self.err(kind)
    }

    fn instruction(&mut self) -> Result<Instruction, ParseError> {
        while self.tok() == Tok::Eol {
            self.bump();
        }
        let start = self.pos();
        let Tok::Ident(name) = self.tok() else {
            return match self.tok() {
                Tok::End => self.err(ParseErrorKind::Empty),
                _ => self.err(ParseErrorKind::Expected("a mnemonic")),
            };
        };
        if self.gen.is_rdna() && !self.gen.is_gfx10() && !self.llvm19() {
            return self.err(ParseErrorKind::GenerationNotInDialect);
        }
        let op = self.mnemonic(name, start)?;
        self.bump();
        let ops = self.operands(op)?;
        if !self.at_end() {
            return self.err(ParseErrorKind::TrailingInput);
        }
        while self.tok() == Tok::Eol {
            self.bump();
        }
        if self.tok() != Tok::End {
            return self.err(ParseErrorKind::TrailingInput);
        }
        self.build(op, ops, start)
    }

    fn mnemonic(&self, name: &str, start: usize) -> Result<&'static OpInfo, ParseError> {
        let lower = name.to_ascii_lowercase();
        for bad in ["_e64_dpp", "_e64", "_dpp", "_sdwa"] {
            if lower.ends_with(bad) {
                return self.err_at(start, ParseErrorKind::VariantSuffix(bad.to_owned()));
            }
        }
        let base = lower.strip_suffix("_e32").unwrap_or(&lower);
        let gen = self.gen;
        let alias = || {
            matches!(gen, SmemGen::Gfx11 | SmemGen::Gfx12)
                .then(|| LOAD_ALIASES.iter().find(|(old, _)| *old == base))
                .flatten()
                .and_then(|(_, new)| gen.op_by_name(new))
        };
        if let Some(op) = gen.op_by_name(base).or_else(alias) {
            return Ok(op);
        }
        let elsewhere = SmemGen::ALL
            .iter()
            .any(|g| g.op_by_name(base).is_some() || LOAD_ALIASES.iter().any(|(o, _)| *o == base));
        let kind = if elsewhere {
            ParseErrorKind::NotOnGeneration(name.to_owned())
        } else {
            ParseErrorKind::UnknownMnemonic(name.to_owned())
        };
        self.err_at(start, kind)
    }

    fn operands(&mut self, op: &'static OpInfo) -> Result<Operands, ParseError> {
        let c = op.class;
        let mut o = Operands::default();
        if c.prefetch() {
            if c.has_sbase() {
                o.sbase = self.sbase(c)?;
                self.eat(Punct::Comma);
            }
            // The immediate offset may be left out before the register.
            let imm = if self.starts_register() {
                (0, self.pos())
            } else {
                let v = self.immediate()?;
                self.eat(Punct::Comma);
                v
            };
            let r = self.soffset()?;
            self.eat(Punct::Comma);
            o.offset = Some(OffsetText::RegImm(r, imm.0, imm.1));
            o.sdata = self.sdata_imm(op)?;
            self.eat(Punct::Comma);
            return Ok(o);
        }
        if c.has_sdata_regs() {
            o.sdata = self.sdata(op)?;
            self.eat(Punct::Comma);
        } else if c.has_sdata_imm() {
            o.sdata = self.sdata_imm(op)?;
            self.eat(Punct::Comma);
        }
        if c.has_sbase() {
            o.sbase = self.sbase(c)?;
            self.eat(Punct::Comma);
        }
        if c.has_offset() {
            o.offset = self.offset()?;
            if o.offset.is_some() {
                self.eat(Punct::Comma);
            }
        }
        self.modifiers(op, &mut o)?;
        Ok(o)
    }

    /// True when the current token starts a cache-policy modifier (or a
    /// `name:` modifier), where LLVM leaves an optional immediate out.
    fn at_modifier(&self) -> bool {
        match (self.tok(), self.tok_at(1)) {
            // GFX12 has no `scc` modifier: LLVM reads it as the register.
            (Tok::Ident("scc"), _) if self.gen == SmemGen::Gfx12 => false,
            (Tok::Ident(w), _) if CPOL_WORDS.contains(&w) => true,
            (Tok::Ident(w), Tok::Punct(Punct::Colon)) => w != "offset",
            _ => false,
        }
    }

    fn offset(&mut self) -> Result<Option<OffsetText>, ParseError> {
        if self.at_end() {
            return Ok(None);
        }
        if self.at_modifier() {
            if !self.llvm19() && matches!(self.tok(), Tok::Ident(w) if CPOL_WORDS.contains(&w)) {
                return self.err(ParseErrorKind::Llvm14ModifierAsOffset);
            }
            return Ok(None);
        }
        let is_offset_mod = |p: &Self, k: usize| {
            p.tok_at(k) == Tok::Ident("offset") && p.tok_at(k + 1) == Tok::Punct(Punct::Colon)
        };
        if is_offset_mod(self, 0) {
            if self.llvm19() {
                return self.err(ParseErrorKind::OffsetForm("it must follow a register"));
            }
            // LLVM 14 reads `offset:X` alone as the immediate offset, as a
            // modifier: no trailing comma after it.
            self.bump();
            self.bump();
            let start = self.pos();
            let v = self.expr(0)?;
            if self.is_punct(Punct::Comma) && matches!(self.tok_at(1), Tok::Eol | Tok::End) {
                return self.err(ParseErrorKind::Expected("no `,` after the last modifier"));
            }
            return Ok(Some(OffsetText::Imm(v, start)));
        }
        if self.starts_register() {
            let r = self.soffset()?;
            let comma = self.is_punct(Punct::Comma) && is_offset_mod(self, 1);
            if !(comma || is_offset_mod(self, 0)) {
                return Ok(Some(OffsetText::Reg(r)));
            }
            if comma {
                self.bump();
            }
            if !self.llvm19() {
                return self.err(ParseErrorKind::OffsetForm(
                    "LLVM 14 has no register + immediate form",
                ));
            }
            if self.gen == SmemGen::Gfx8 {
                return self.err(ParseErrorKind::OffsetForm("GFX8 has no SOFFSET"));
            }
            self.bump();
            self.bump();
            let start = self.pos();
            // `offset:` takes a plain expression (no `lit()`).
            let v = self.expr(0)?;
            return Ok(Some(OffsetText::RegImm(r, v, start)));
        }
        let (v, start) = self.immediate()?;
        Ok(Some(OffsetText::Imm(v, start)))
    }

    /// An immediate operand: an expression, or `lit(expr)` in LLVM 19.
    /// Returns the value and where it starts.
    fn immediate(&mut self) -> Result<(i64, usize), ParseError> {
        let start = self.pos();
        if self.llvm19()
            && self.tok() == Tok::Ident("lit")
            && self.tok_at(1) == Tok::Punct(Punct::LParen)
        {
            self.bump();
            self.bump();
            let v = self.expr(0)?;
            if !self.eat(Punct::RParen) {
                return self.expected("`)`");
            }
            return Ok((v, start));
        }
        if self.at_end() {
            return self.err(ParseErrorKind::MissingOperand("an immediate"));
        }
        if self.starts_register() {
            return self.err(ParseErrorKind::Expected("an immediate, not a register"));
        }
        Ok((self.expr(0)?, start))
    }

    fn sdata_imm(&mut self, op: &OpInfo) -> Result<u8, ParseError> {
        let (v, start) = self.immediate()?;
        let max = if self.gen == SmemGen::Gfx12 { 31 } else { 127 };
        let what = if op.class.prefetch() {
            "prefetch length"
        } else {
            "probe mode"
        };
        match u8::try_from(v) {
            Ok(b) if b <= max => Ok(b),
            _ => self.err_at(
                start,
                ParseErrorKind::ImmediateRange {
                    what,
                    value: v,
                    min: 0,
                    max: i64::from(max),
                },
            ),
        }
    }

    fn sdata(&mut self, op: &OpInfo) -> Result<u8, ParseError> {
        let r = self.required_register("an SDATA register")?;
        if !self.is_null(r) {
            self.check_width(r, op.width)?;
        }
        if tuple_name(self.gen, r.hw, op.width, false).is_none() {
            return self.err_at(r.start, ParseErrorKind::RegisterClass(self.reg_text(r)));
        }
        Ok(r.hw)
    }

    fn sbase(&mut self, c: Class) -> Result<u8, ParseError> {
        let r = self.required_register("an SBASE register")?;
        let w = if c.buffer_base() { 4 } else { 2 };
        if !self.is_null(r) {
            self.check_width(r, w)?;
        }
        if tuple_name(self.gen, r.hw, w, true).is_none() {
            return self.err_at(r.start, ParseErrorKind::RegisterClass(self.reg_text(r)));
        }
        Ok(r.hw)
    }

    fn soffset(&mut self) -> Result<u8, ParseError> {
        let r = self.required_register("an offset register")?;
        self.check_width(r, 1)?;
        Ok(r.hw)
    }

    fn required_register(&mut self, what: &'static str) -> Result<Reg, ParseError> {
        match self.register()? {
            Some(r) => Ok(r),
            None => self.expected(what),
        }
    }

    /// True for `null`, which stands for a tuple of any width (whether the
    /// operand takes it is `tuple_name`'s call).
    fn is_null(&self, r: Reg) -> bool {
        self.gen.is_rdna() && r.width == 1 && r.hw == self.gen.null()
    }

    fn check_width(&self, r: Reg, expected: u8) -> Result<(), ParseError> {
        if r.width == u32::from(expected) {
            Ok(())
        } else {
            self.err_at(
                r.start,
                ParseErrorKind::RegisterWidth {
                    expected,
                    found: r.width,
                },
            )
        }
    }

    /// The source text of the register at `r` (for messages).
    fn reg_text(&self, r: Reg) -> String {
        let rest = self.text.get(r.start..).unwrap_or("");
        let end = rest
            .char_indices()
            .find(|&(_, c)| c == ',' || c.is_whitespace())
            .map_or(rest.len(), |(k, _)| k);
        rest.get(..end).unwrap_or("").to_owned()
    }

    /// True when the current token begins a register (LLVM's
    /// `isRegister`): a register name, `s[`/`ttmp[`/`v[`..., or `[`.
    fn starts_register(&self) -> bool {
        match self.tok() {
            Tok::Punct(Punct::LBrac) => true,
            Tok::Ident(w) => {
                let next_brac = self.tok_at(1) == Tok::Punct(Punct::LBrac);
                match regular_prefix(w) {
                    Some((_, suffix)) if !suffix.is_empty() && index_of(suffix).is_some() => true,
                    Some((_, "")) if next_brac => true,
                    _ => special_name(w).is_some() || UNUSABLE_SPECIALS.contains(&w),
                }
            }
            _ => false,
        }
    }

    /// Parses a register if one starts here; `Ok(None)` (nothing
    /// consumed) otherwise.
    fn register(&mut self) -> Result<Option<Reg>, ParseError> {
        if !self.starts_register() {
            return Ok(None);
        }
        let start = self.pos();
        let (kind, index, width) = self.register_syntax(0)?;
        self.resolve(kind, index, width, start).map(Some)
    }

    /// One register or list in LLVM's syntax: its kind, index (SGPR/ttmp
    /// number, or hardware number of a special register) and width.
    fn register_syntax(&mut self, depth: u32) -> Result<(RegKind, u32, u32), ParseError> {
        let start = self.pos();
        match self.tok() {
            // LLVM reads list elements as registers, so lists nest
            // (`[[s2],s3]`).
            Tok::Punct(Punct::LBrac) if depth < MAX_DEPTH => {
                self.bump();
                self.register_list(depth + 1)
            }
            Tok::Punct(Punct::LBrac) => self.err(ParseErrorKind::TooDeep),
            Tok::Ident(w) => {
                if UNUSABLE_SPECIALS.contains(&w) {
                    return self.err(ParseErrorKind::RegisterNotAllowed(w.to_owned()));
                }
                if let Some((hw, width)) = special_name(w) {
                    self.check_special(w, start)?;
                    self.bump();
                    let hw = match hw {
                        SpecialHw::Fixed(n) => n,
                        SpecialHw::M0 => self.gen.m0(),
                        SpecialHw::Null => self.gen.null(),
                    };
                    return Ok((RegKind::Special, u32::from(hw), width));
                }
                let Some((kind, suffix)) = regular_prefix(w) else {
                    return self.err(ParseErrorKind::Expected("a register"));
                };
                let Some(kind) = kind else {
                    return self.err(ParseErrorKind::RegisterNotAllowed(w.to_owned()));
                };
                self.bump();
                if !suffix.is_empty() {
                    return match index_of(suffix) {
                        Some(n) => Ok((kind, n, 1)),
                        None => self.err_at(start, ParseErrorKind::RegisterIndex),
                    };
                }
                let (lo, hi) = self.register_range()?;
                Ok((kind, lo, hi - lo + 1))
            }
            _ => self.expected("a register"),
        }
    }

    /// `[lo]` or `[lo:hi]` after `s`/`ttmp`; returns (lo, hi).
    fn register_range(&mut self) -> Result<(u32, u32), ParseError> {
        if !self.eat(Punct::LBrac) {
            return self.expected("`[`");
        }
        let lo_at = self.pos();
        let lo = self.expr(0)?;
        let (hi_at, hi) = if self.eat(Punct::Colon) {
            let at = self.pos();
            (at, self.expr(0)?)
        } else {
            (lo_at, lo)
        };
        if !self.eat(Punct::RBrac) {
            return self.expected("`]`");
        }
        let lo =
            u32::try_from(lo).or_else(|_| self.err_at(lo_at, ParseErrorKind::RegisterIndex))?;
        let hi =
            u32::try_from(hi).or_else(|_| self.err_at(hi_at, ParseErrorKind::RegisterIndex))?;
        if lo > hi {
            return self.err_at(lo_at, ParseErrorKind::RegisterIndex);
        }
        Ok((lo, hi))
    }

    /// `[r0, r1, ...]` (after the `[`): consecutive 32-bit registers of
    /// one kind, or a lo/hi pair of a special register.
    fn register_list(&mut self, depth: u32) -> Result<(RegKind, u32, u32), ParseError> {
        let first_at = self.pos();
        let (kind, index, width) = self.register_syntax(depth)?;
        if width != 1 {
            return self.err_at(
                first_at,
                ParseErrorKind::RegisterList("expected 32-bit registers"),
            );
        }
        let mut count = 1u32;
        while self.eat(Punct::Comma) {
            let at = self.pos();
            let (k, i, w) = self.register_syntax(depth)?;
            if w != 1 {
                return self.err_at(
                    at,
                    ParseErrorKind::RegisterList("expected 32-bit registers"),
                );
            }
            if k != kind {
                return self.err_at(
                    at,
                    ParseErrorKind::RegisterList("registers of different kinds"),
                );
            }
            let consecutive =
                kind != RegKind::Special || (count == 1 && special_pair(index).is_some());
            if !consecutive || Some(i) != index.checked_add(count) {
                return self.err_at(
                    at,
                    ParseErrorKind::RegisterList("registers not consecutive"),
                );
            }
            count += 1;
        }
        if !self.eat(Punct::RBrac) {
            return self.expected("`,` or `]`");
        }
        Ok((kind, index, count))
    }

    /// Checks that a special register exists on this generation and
    /// processor.
    fn check_special(&self, w: &str, start: usize) -> Result<(), ParseError> {
        let g = self.gen;
        let pre10 = matches!(g, SmemGen::Gfx8 | SmemGen::Gfx9);
        let ok = if w.starts_with("flat_scratch") {
            pre10
        } else if w.starts_with("xnack_mask") {
            pre10 && self.opts.xnack
        } else if w.starts_with("tba") || w.starts_with("tma") {
            g == SmemGen::Gfx8
        } else if w == "null" {
            !pre10
        } else {
            true
        };
        if ok {
            Ok(())
        } else {
            self.err_at(start, ParseErrorKind::RegisterUnavailable(w.to_owned()))
        }
    }

    /// Checks alignment and range of a register (tuple) and returns it with
    /// its hardware number.
    fn resolve(
        &self,
        kind: RegKind,
        index: u32,
        width: u32,
        start: usize,
    ) -> Result<Reg, ParseError> {
        let g = self.gen;
        let name = |what: &str| format!("{what}{index}");
        if kind == RegKind::Special {
            // Lists of special registers were built from lo/hi pairs.
            let hw = u8::try_from(index)
                .or_else(|_| self.err_at(start, ParseErrorKind::RegisterIndex))?;
            return Ok(Reg { hw, width, start });
        }
        let align = tuple_align(u8::try_from(width.min(4)).unwrap_or(4));
        if !index.is_multiple_of(u32::from(align)) {
            return self.err_at(
                start,
                ParseErrorKind::RegisterAlignment {
                    first: index,
                    align,
                },
            );
        }
        // SGPR tuple sizes LLVM has register classes for (no 96-bit
        // trap-temporary class in LLVM 19).
        if !matches!(width, 1..=12 | 16 | 32) || (kind == RegKind::Ttmp && width == 3) {
            return self.err_at(start, ParseErrorKind::RegisterSize(width));
        }
        let last = index.saturating_add(width - 1);
        let (base, count, avail, prefix) = match kind {
            RegKind::Sgpr => (0, 106, if g.is_rdna() { 106 } else { 102 }, "s"),
            _ => (
                u32::from(g.ttmp_base()),
                16,
                u32::from(g.ttmp_count()),
                "ttmp",
            ),
        };
        if last >= count {
            return self.err_at(start, ParseErrorKind::RegisterIndex);
        }
        if last >= avail {
            return self.err_at(start, ParseErrorKind::RegisterUnavailable(name(prefix)));
        }
        let hw = u8::try_from(base + index)
            .or_else(|_| self.err_at(start, ParseErrorKind::RegisterIndex))?;
        Ok(Reg { hw, width, start })
    }

    /// Cache-policy modifiers after the operands.
    fn modifiers(&mut self, op: &OpInfo, o: &mut Operands) -> Result<(), ParseError> {
        let mut seen: Vec<&'static str> = Vec::new();
        let mut th_name: Option<&str> = None;
        let mut th_at = 0;
        let gen = self.gen;
        let c = op.class;
        loop {
            let start = self.pos();
            let Tok::Ident(w) = self.tok() else { break };
            let named = self.tok_at(1) == Tok::Punct(Punct::Colon);
            if !(CPOL_WORDS.contains(&w) || (named && matches!(w, "th" | "scope"))) {
                break;
            }
            if gen == SmemGen::Gfx12 {
                if !named || !matches!(c, Class::Load | Class::BufferLoad) {
                    return self.err(ParseErrorKind::Modifier(w.to_owned()));
                }
                let key = if w == "th" { "th" } else { "scope" };
                if seen.contains(&key) {
                    return self.err(ParseErrorKind::DuplicateModifier(w.to_owned()));
                }
                seen.push(key);
                self.bump();
                self.bump();
                let Tok::Ident(v) = self.tok() else {
                    return self.expected("a th/scope name");
                };
                if key == "th" {
                    o.th = match v {
                        "TH_LOAD_RT" => 0,
                        "TH_LOAD_NT" => 1,
                        "TH_LOAD_HT" => 2,
                        "TH_LOAD_BYPASS" | "TH_LOAD_LU" => 3,
                        _ if v.starts_with("TH_") => {
                            return self.err(ParseErrorKind::CachePolicy(
                                "th value SMEM loads do not take",
                            ))
                        }
                        _ => return self.err(ParseErrorKind::CachePolicy("unknown th value")),
                    };
                    th_name = Some(v);
                    th_at = start;
                } else {
                    o.scope = match v {
                        "SCOPE_CU" => 0,
                        "SCOPE_SE" => 1,
                        "SCOPE_DEV" => 2,
                        "SCOPE_SYS" => 3,
                        _ => return self.err(ParseErrorKind::CachePolicy("unknown scope value")),
                    };
                }
                self.bump();
            } else {
                if !c.has_glc() || named {
                    return self.err(ParseErrorKind::Modifier(w.to_owned()));
                }
                let base = w.strip_prefix("no").unwrap_or(w);
                let allowed = match base {
                    "glc" => true,
                    "dlc" => gen.dlc_bit().is_some(),
                    // LLVM ignores `noslc`/`noscc`; `slc`/`scc` are errors.
                    "slc" => w == "noslc",
                    "scc" => w == "noscc" && self.opts.scc,
                    _ => false,
                };
                if !allowed {
                    return self.err(ParseErrorKind::Modifier(w.to_owned()));
                }
                let key = match base {
                    "glc" => "glc",
                    "dlc" => "dlc",
                    "slc" => "slc",
                    _ => "scc",
                };
                if seen.contains(&key) {
                    return self.err(ParseErrorKind::DuplicateModifier(w.to_owned()));
                }
                seen.push(key);
                match w {
                    "glc" => o.glc = true,
                    "dlc" => o.dlc = true,
                    _ => {}
                }
                self.bump();
            }
            // LLVM 19 reads a run of modifiers as one operand: a comma may
            // end it but not separate two modifiers. LLVM 14 takes commas
            // between modifiers but not after the last one.
            if self.is_punct(Punct::Comma) {
                self.bump();
                if self.llvm19() && self.at_modifier() {
                    return self.err(ParseErrorKind::Expected("no `,` between modifiers"));
                }
                if !self.llvm19() && self.at_end() {
                    return self.err_at(
                        self.pos().saturating_sub(1),
                        ParseErrorKind::Expected("no `,` after the last modifier"),
                    );
                }
            }
        }
        if let Some(name) = th_name {
            match (name, o.scope) {
                ("TH_LOAD_BYPASS", s) if s != 3 => {
                    return self.err_at(
                        th_at,
                        ParseErrorKind::CachePolicy("TH_LOAD_BYPASS needs SCOPE_SYS"),
                    )
                }
                ("TH_LOAD_LU", 3) => {
                    return self.err_at(
                        th_at,
                        ParseErrorKind::CachePolicy("TH_LOAD_LU with SCOPE_SYS"),
                    )
                }
                _ => {}
            }
        }
        Ok(())
    }

    // -- expressions ------------------------------------------------------

    /// An absolute expression (LLVM's `parseExpression` with GNU operator
    /// precedence), evaluated in 64-bit two's complement.
    fn expr(&mut self, depth: u32) -> Result<i64, ParseError> {
        let lhs = self.primary(depth)?;
        self.binop_rhs(0, lhs, depth)
    }

    fn binop_rhs(&mut self, min_prec: u8, mut lhs: i64, depth: u32) -> Result<i64, ParseError> {
        loop {
            let Tok::Punct(p) = self.tok() else {
                return Ok(lhs);
            };
            let Some(prec) = precedence(p) else {
                return Ok(lhs);
            };
            if prec < min_prec {
                return Ok(lhs);
            }
            let op_at = self.pos();
            self.bump();
            let mut rhs = self.primary(depth)?;
            loop {
                let next = match self.tok() {
                    Tok::Punct(q) => precedence(q),
                    _ => None,
                };
                match next {
                    Some(q) if q > prec => rhs = self.binop_rhs(prec + 1, rhs, depth)?,
                    _ => break,
                }
            }
            lhs = self.apply(p, lhs, rhs, op_at)?;
        }
    }

    fn apply(&self, p: Punct, l: i64, r: i64, at: usize) -> Result<i64, ParseError> {
        let truth = |b: bool| if b { -1 } else { 0 };
        Ok(match p {
            Punct::Plus => l.wrapping_add(r),
            Punct::Minus => l.wrapping_sub(r),
            Punct::Star => l.wrapping_mul(r),
            Punct::Slash | Punct::Percent => {
                if r == 0 {
                    return self.err_at(at, ParseErrorKind::DivisionByZero);
                }
                let v = if p == Punct::Slash {
                    l.checked_div(r)
                } else {
                    l.checked_rem(r)
                };
                match v {
                    Some(v) => v,
                    None => return self.err_at(at, ParseErrorKind::DivisionOverflow),
                }
            }
            // LLVM shifts with the host's instructions, which take the
            // count modulo 64 on x86-64; `>>` is a logical shift.
            Punct::Shl => l.wrapping_shl(r as u32),
            Punct::Shr => (l as u64).wrapping_shr(r as u32) as i64,
            Punct::Amp => l & r,
            Punct::Pipe => l | r,
            Punct::Caret => l ^ r,
            Punct::Excl => l | !r,
            Punct::AmpAmp => i64::from(l != 0 && r != 0),
            Punct::PipePipe => i64::from(l != 0 || r != 0),
            // GNU as: comparisons give -1 for true.
            Punct::EqEq => truth(l == r),
            Punct::Ne | Punct::LessGreater => truth(l != r),
            Punct::Lt => truth(l < r),
            Punct::Le => truth(l <= r),
            Punct::Gt => truth(l > r),
            Punct::Ge => truth(l >= r),
            _ => return self.err_at(at, ParseErrorKind::Expected("an operator")),
        })
    }

    fn primary(&mut self, depth: u32) -> Result<i64, ParseError> {
        if depth > MAX_DEPTH {
            return self.err(ParseErrorKind::TooDeep);
        }
        let d = depth + 1;
        match self.tok() {
            Tok::Int(v) => {
                self.bump();
                Ok(v as i64)
            }
            Tok::Punct(Punct::Minus) => {
                self.bump();
                Ok(self.primary(d)?.wrapping_neg())
            }
            Tok::Punct(Punct::Plus) => {
                self.bump();
                self.primary(d)
            }
            Tok::Punct(Punct::Tilde) => {
                self.bump();
                Ok(!self.primary(d)?)
            }
            Tok::Punct(Punct::Excl) => {
                self.bump();
                Ok(i64::from(self.primary(d)? == 0))
            }
            Tok::Punct(Punct::LParen) => {
                self.bump();
                let v = self.expr(d)?;
                if !self.eat(Punct::RParen) {
                    return self.expected("`)`");
                }
                Ok(v)
            }
            Tok::Ident(s) => self.err(ParseErrorKind::Symbol(s.to_owned())),
            _ => self.expected("an expression"),
        }
    }

    // -- result -----------------------------------------------------------

    /// Checks ranges, builds the instruction, and returns the canonical
    /// form (decode of its encoding).
    fn build(
        &self,
        op: &'static OpInfo,
        o: Operands,
        start: usize,
    ) -> Result<Instruction, ParseError> {
        let gen = self.gen;
        let c = op.class;
        let (lo, hi) = gen.offset_range(c);
        let check = |v: i64, at: usize| -> Result<i32, ParseError> {
            match i32::try_from(v) {
                Ok(x) if (lo..=hi).contains(&x) => Ok(x),
                _ => self.err_at(
                    at,
                    ParseErrorKind::ImmediateRange {
                        what: "offset",
                        value: v,
                        min: i64::from(lo),
                        max: i64::from(hi),
                    },
                ),
            }
        };
        let null = gen.null();
        let offset = match o.offset {
            _ if !c.has_offset() => Offset::None,
            None => Offset::Imm(0),
            Some(OffsetText::Imm(v, at)) => Offset::Imm(check(v, at)?),
            Some(OffsetText::Reg(r)) if gen == SmemGen::Gfx12 => {
                Offset::SgprImm { sgpr: r, imm: 0 }
            }
            Some(OffsetText::Reg(r)) => Offset::Sgpr(r),
            Some(OffsetText::RegImm(r, v, at)) => {
                let imm = check(v, at)?;
                match gen {
                    // On GFX10/GFX11 a null register or a zero immediate
                    // is the other form's word.
                    SmemGen::Gfx10_1 | SmemGen::Gfx10_3 | SmemGen::Gfx11 if r == null => {
                        Offset::Imm(imm)
                    }
                    SmemGen::Gfx10_1 | SmemGen::Gfx10_3 | SmemGen::Gfx11 if imm == 0 => {
                        Offset::Sgpr(r)
                    }
                    _ => Offset::SgprImm { sgpr: r, imm },
                }
            }
        };
        let i = Instruction {
            gen,
            op,
            sdata: o.sdata,
            sbase: o.sbase,
            offset,
            glc: o.glc,
            dlc: o.dlc,
            th: o.th,
            scope: o.scope,
        };
        let word = encode(&i).or_else(|e| self.err_at(start, ParseErrorKind::Encode(e)))?;
        let d = decode(gen, word);
        match (d.verdict, d.instruction) {
            (Verdict::Valid, Some(i)) => Ok(i),
            _ => self.err_at(start, ParseErrorKind::Encode(EncodeError::OffsetForm)),
        }
    }
}

/// Binary operator precedence of LLVM's GNU-style expression parser.
fn precedence(p: Punct) -> Option<u8> {
    Some(match p {
        Punct::PipePipe => 1,
        Punct::AmpAmp => 2,
        Punct::EqEq
        | Punct::Ne
        | Punct::LessGreater
        | Punct::Lt
        | Punct::Le
        | Punct::Gt
        | Punct::Ge => 3,
        Punct::Plus | Punct::Minus => 4,
        Punct::Pipe | Punct::Caret | Punct::Amp | Punct::Excl => 5,
        Punct::Star | Punct::Slash | Punct::Percent | Punct::Shl | Punct::Shr => 6,
        _ => return None,
    })
}

/// LLVM's regular register prefixes, tried in its order. `None` kind
/// marks vector registers (never SMEM operands).
fn regular_prefix(w: &str) -> Option<(Option<RegKind>, &str)> {
    for (p, k) in [
        ("v", None),
        ("s", Some(RegKind::Sgpr)),
        ("ttmp", Some(RegKind::Ttmp)),
        ("acc", None),
        ("a", None),
    ] {
        if let Some(rest) = w.strip_prefix(p) {
            return Some((k, rest));
        }
    }
    None
}

/// A decimal register index as LLVM reads it (`s007` is `s7`).
fn index_of(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[derive(Clone, Copy)]
enum SpecialHw {
    Fixed(u8),
    M0,
    Null,
}

/// Special register names usable in SMEM operands: hardware number of the
/// first register and width.
fn special_name(w: &str) -> Option<(SpecialHw, u32)> {
    use SpecialHw::Fixed;
    Some(match w {
        "flat_scratch" => (Fixed(102), 2),
        "flat_scratch_lo" => (Fixed(102), 1),
        "flat_scratch_hi" => (Fixed(103), 1),
        "xnack_mask" => (Fixed(104), 2),
        "xnack_mask_lo" => (Fixed(104), 1),
        "xnack_mask_hi" => (Fixed(105), 1),
        "vcc" => (Fixed(106), 2),
        "vcc_lo" => (Fixed(106), 1),
        "vcc_hi" => (Fixed(107), 1),
        "tba" => (Fixed(108), 2),
        "tba_lo" => (Fixed(108), 1),
        "tba_hi" => (Fixed(109), 1),
        "tma" => (Fixed(110), 2),
        "tma_lo" => (Fixed(110), 1),
        "tma_hi" => (Fixed(111), 1),
        "exec" => (Fixed(126), 2),
        "exec_lo" => (Fixed(126), 1),
        "exec_hi" => (Fixed(127), 1),
        "m0" => (SpecialHw::M0, 1),
        "null" => (SpecialHw::Null, 1),
        _ => return None,
    })
}

/// The lo halves that pair with the next register in a list
/// (`[vcc_lo, vcc_hi]`).
fn special_pair(lo: u32) -> Option<()> {
    matches!(lo, 102 | 104 | 106 | 108 | 110 | 126).then_some(())
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
