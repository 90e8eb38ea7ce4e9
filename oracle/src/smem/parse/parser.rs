//! The parser: operands, registers, modifiers and integer expressions,
//! then the encode/decode round trip that makes the result canonical.

use super::*;

/// Parenthesis/unary nesting limit, so that hostile input cannot exhaust
/// the stack.
pub(super) const MAX_DEPTH: u32 = 200;

/// Kinds of register LLVM's parser tells apart in lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RegKind {
    Sgpr,
    Ttmp,
    Special,
}

/// A parsed register operand: hardware number of the first register and
/// the number of 32-bit registers.
#[derive(Clone, Copy, Debug)]
pub(super) struct Reg {
    pub(super) hw: u8,
    pub(super) width: u32,
    pub(super) start: usize,
}

/// The offset operand as written.
#[derive(Clone, Copy, Debug)]
pub(super) enum OffsetText {
    Imm(i64, usize),
    Reg(u8),
    RegImm(u8, i64, usize),
}

/// Cache-policy words LLVM's parser recognises before it knows the
/// instruction.
pub(super) const CPOL_WORDS: &[&str] = &[
    "glc", "noglc", "slc", "noslc", "dlc", "nodlc", "scc", "noscc", "sc0", "nosc0", "sc1", "nosc1",
    "nt", "nont",
];

/// GFX12.5 modifiers and their `no` forms, with the modifier each stands
/// for (llvm-mc-22 -mcpu=gfx1250 counts `nv` and `nonv` as one modifier).
pub(super) const GFX12_5_WORDS: &[(&str, &str)] = &[
    ("nv", "nv"),
    ("nonv", "nv"),
    ("scale_offset", "scale_offset"),
    ("noscale_offset", "scale_offset"),
];

/// Special register names that exist in LLVM but that no SMEM operand
/// takes (their numbers do not fit the 7-bit fields).
pub(super) const UNUSABLE_SPECIALS: &[&str] = &[
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
pub(super) const LOAD_ALIASES: &[(&str, &str)] = &[
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

pub(super) struct Parser<'a> {
    pub(super) text: &'a str,
    pub(super) toks: Vec<Token<'a>>,
    pub(super) at: usize,
    pub(super) gen: SmemGen,
    pub(super) opts: ParseOptions,
}

/// What the operands of one instruction said.
#[derive(Default)]
pub(super) struct Operands {
    pub(super) sdata: u8,
    pub(super) sbase: u8,
    pub(super) offset: Option<OffsetText>,
    pub(super) glc: bool,
    pub(super) dlc: bool,
    pub(super) th: u8,
    pub(super) scope: u8,
    pub(super) nv: bool,
    pub(super) scale_offset: bool,
}

impl<'a> Parser<'a> {
    pub(super) fn tok(&self) -> Tok<'a> {
        self.tok_at(0)
    }

    pub(super) fn tok_at(&self, k: usize) -> Tok<'a> {
        self.toks
            .get(self.at.saturating_add(k))
            .map_or(Tok::End, |t| t.tok)
    }

    pub(super) fn pos(&self) -> usize {
        self.toks.get(self.at).map_or(self.text.len(), |t| t.start)
    }

    pub(super) fn bump(&mut self) {
        if self.at < self.toks.len() {
            self.at += 1;
        }
    }

    pub(super) fn err_at<T>(&self, byte: usize, kind: ParseErrorKind) -> Result<T, ParseError> {
        Err(error_at(self.text, byte, kind))
    }

    pub(super) fn err<T>(&self, kind: ParseErrorKind) -> Result<T, ParseError> {
        self.err_at(self.pos(), kind)
    }

    pub(super) fn is_punct(&self, p: Punct) -> bool {
        self.tok() == Tok::Punct(p)
    }

    pub(super) fn eat(&mut self, p: Punct) -> bool {
        let yes = self.is_punct(p);
        if yes {
            self.bump();
        }
        yes
    }

    pub(super) fn at_end(&self) -> bool {
        matches!(self.tok(), Tok::Eol | Tok::End)
    }

    pub(super) fn llvm19(&self) -> bool {
        self.opts.dialect == Dialect::Llvm19
    }

    /// The token error for "expected `what`" at the current token, more
    /// specific when the token is itself malformed.
    pub(super) fn expected<T>(&self, what: &'static str) -> Result<T, ParseError> {
        let kind = match self.tok() {
            Tok::Real => ParseErrorKind::RealLiteral,
            Tok::Eol | Tok::End => ParseErrorKind::MissingOperand(what),
            _ => ParseErrorKind::Expected(what),
        };
        self.err(kind)
    }

    pub(super) fn instruction(&mut self) -> Result<Instruction, ParseError> {
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

    pub(super) fn mnemonic(&self, name: &str, start: usize) -> Result<&'static OpInfo, ParseError> {
        let lower = name.to_ascii_lowercase();
        for bad in ["_e64_dpp", "_e64", "_dpp", "_sdwa"] {
            if lower.ends_with(bad) {
                return self.err_at(start, ParseErrorKind::VariantSuffix(bad.to_owned()));
            }
        }
        let base = lower.strip_suffix("_e32").unwrap_or(&lower);
        let gen = self.gen;
        let alias = || {
            matches!(gen, SmemGen::Gfx11 | SmemGen::Gfx12 | SmemGen::Gfx12_5)
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

    pub(super) fn operands(&mut self, op: &'static OpInfo) -> Result<Operands, ParseError> {
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
    pub(super) fn at_modifier(&self) -> bool {
        match (self.tok(), self.tok_at(1)) {
            // GFX12 has no `scc` modifier: LLVM reads it as the register.
            (Tok::Ident("scc"), _) if self.gen.is_gfx12() => false,
            (Tok::Ident(w), _) if CPOL_WORDS.contains(&w) => true,
            (Tok::Ident(w), _) if self.gfx12_5_modifier(w).is_some() => true,
            (Tok::Ident(w), Tok::Punct(Punct::Colon)) => w != "offset",
            _ => false,
        }
    }

    pub(super) fn offset(&mut self) -> Result<Option<OffsetText>, ParseError> {
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
    pub(super) fn immediate(&mut self) -> Result<(i64, usize), ParseError> {
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

    pub(super) fn sdata_imm(&mut self, op: &OpInfo) -> Result<u8, ParseError> {
        let (v, start) = self.immediate()?;
        let max = if self.gen.is_gfx12() { 31 } else { 127 };
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

    pub(super) fn sdata(&mut self, op: &OpInfo) -> Result<u8, ParseError> {
        let r = self.required_register("an SDATA register")?;
        if !self.is_null(r) {
            self.check_width(r, op.width)?;
        }
        if tuple_name(self.gen, r.hw, op.width, false).is_none() {
            return self.err_at(r.start, ParseErrorKind::RegisterClass(self.reg_text(r)));
        }
        Ok(r.hw)
    }

    pub(super) fn sbase(&mut self, c: Class) -> Result<u8, ParseError> {
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

    pub(super) fn soffset(&mut self) -> Result<u8, ParseError> {
        let r = self.required_register("an offset register")?;
        self.check_width(r, 1)?;
        Ok(r.hw)
    }

    pub(super) fn required_register(&mut self, what: &'static str) -> Result<Reg, ParseError> {
        match self.register()? {
            Some(r) => Ok(r),
            None => self.expected(what),
        }
    }

    /// True for `null`, which stands for a tuple of any width (whether the
    /// operand takes it is `tuple_name`'s call).
    pub(super) fn is_null(&self, r: Reg) -> bool {
        self.gen.is_rdna() && r.width == 1 && r.hw == self.gen.null()
    }

    pub(super) fn check_width(&self, r: Reg, expected: u8) -> Result<(), ParseError> {
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
    pub(super) fn reg_text(&self, r: Reg) -> String {
        let rest = self.text.get(r.start..).unwrap_or("");
        let end = rest
            .char_indices()
            .find(|&(_, c)| c == ',' || c.is_whitespace())
            .map_or(rest.len(), |(k, _)| k);
        rest.get(..end).unwrap_or("").to_owned()
    }

    /// True when the current token begins a register (LLVM's
    /// `isRegister`): a register name, `s[`/`ttmp[`/`v[`..., or `[`.
    pub(super) fn starts_register(&self) -> bool {
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
    pub(super) fn register(&mut self) -> Result<Option<Reg>, ParseError> {
        if !self.starts_register() {
            return Ok(None);
        }
        let start = self.pos();
        let (kind, index, width) = self.register_syntax(0)?;
        self.resolve(kind, index, width, start).map(Some)
    }

    /// One register or list in LLVM's syntax: its kind, index (SGPR/ttmp
    /// number, or hardware number of a special register) and width.
    pub(super) fn register_syntax(
        &mut self,
        depth: u32,
    ) -> Result<(RegKind, u32, u32), ParseError> {
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
    pub(super) fn register_range(&mut self) -> Result<(u32, u32), ParseError> {
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
    pub(super) fn register_list(&mut self, depth: u32) -> Result<(RegKind, u32, u32), ParseError> {
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
    pub(super) fn check_special(&self, w: &str, start: usize) -> Result<(), ParseError> {
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
    pub(super) fn resolve(
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

    /// The modifier a GFX12.5 word (`nv`, `nonv`, `scale_offset`,
    /// `noscale_offset`) stands for, on a family that has them.
    pub(super) fn gfx12_5_modifier(&self, w: &str) -> Option<&'static str> {
        let gen = self.gen;
        if gen.nv_bit().is_none() && gen.scale_offset_bit().is_none() {
            return None;
        }
        GFX12_5_WORDS
            .iter()
            .find(|(word, _)| *word == w)
            .map(|(_, key)| *key)
    }

    /// Cache-policy modifiers after the operands.
    pub(super) fn modifiers(&mut self, op: &OpInfo, o: &mut Operands) -> Result<(), ParseError> {
        let mut seen: Vec<&'static str> = Vec::new();
        let mut th_name: Option<&str> = None;
        let mut th_at = 0;
        let gen = self.gen;
        let c = op.class;
        loop {
            let start = self.pos();
            let Tok::Ident(w) = self.tok() else { break };
            let named = self.tok_at(1) == Tok::Punct(Punct::Colon);
            let gfx12_5 = self.gfx12_5_modifier(w).filter(|_| !named);
            if !(CPOL_WORDS.contains(&w)
                || (named && matches!(w, "th" | "scope"))
                || gfx12_5.is_some())
            {
                break;
            }
            if let Some(key) = gfx12_5 {
                // llvm-mc-22 takes these (and their `no` forms) wherever
                // the instruction has cache-policy modifiers, but
                // `scale_offset` itself only where it applies ("not
                // supported for this instruction" on buffer loads).
                let allowed = gen.has_nv(c) && (w != "scale_offset" || gen.has_scale_offset(c));
                if !allowed {
                    return self.err(ParseErrorKind::Modifier(w.to_owned()));
                }
                if seen.contains(&key) {
                    return self.err(ParseErrorKind::DuplicateModifier(w.to_owned()));
                }
                seen.push(key);
                match w {
                    "nv" => o.nv = true,
                    "scale_offset" => o.scale_offset = true,
                    _ => {}
                }
                self.bump();
            } else if gen.is_gfx12() {
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
    pub(super) fn expr(&mut self, depth: u32) -> Result<i64, ParseError> {
        let lhs = self.primary(depth)?;
        self.binop_rhs(0, lhs, depth)
    }

    pub(super) fn binop_rhs(
        &mut self,
        min_prec: u8,
        mut lhs: i64,
        depth: u32,
    ) -> Result<i64, ParseError> {
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

    pub(super) fn apply(&self, p: Punct, l: i64, r: i64, at: usize) -> Result<i64, ParseError> {
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

    pub(super) fn primary(&mut self, depth: u32) -> Result<i64, ParseError> {
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
    pub(super) fn build(
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
            Some(OffsetText::Reg(r)) if gen.is_gfx12() => Offset::SgprImm { sgpr: r, imm: 0 },
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
            nv: o.nv,
            scale_offset: o.scale_offset,
        };
        let word = encode(&i).or_else(|e| self.err_at(start, ParseErrorKind::Encode(e)))?;
        let d = decode(gen, word);
        match (d.verdict, d.instruction) {
            (Verdict::Valid, Some(i)) => Ok(i),
            _ => self.err_at(start, ParseErrorKind::Encode(EncodeError::OffsetForm)),
        }
    }
}
