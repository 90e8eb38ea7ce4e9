//! Text: instructions as LLVM 22 prints them.

use std::fmt::{self, Write};

use super::decode::{Decoded, Insn, Verdict};
use super::operand::{self, Operand};
use super::simm::{self, Dialect};
use super::table::Kind;
use super::IsaGen;
use crate::targets::Target;

impl Insn {
    /// Writes the instruction as LLVM 22 prints it: the mnemonic, then the
    /// operands separated by `, ` (an operand that prints nothing is left
    /// out).
    pub fn write_text(&self, t: &Target, gen: IsaGen, out: &mut impl Write) -> fmt::Result {
        self.write_text_with(t, gen, Dialect::Llvm22, out, |_, op| op)
    }

    /// [`Insn::write_text`] with each operand first passed through `map`
    /// (slot index, operand): how another printer would show it (the
    /// differential tests print invalid operands as LLVM does).
    pub fn write_text_with(
        &self,
        t: &Target,
        gen: IsaGen,
        dialect: Dialect,
        out: &mut impl Write,
        map: impl Fn(usize, Operand) -> Operand,
    ) -> fmt::Result {
        self.write_text_over(t, gen, dialect, out, map, |_, _| None)
    }

    /// [`Insn::write_text_with`], where `over(slot index, operand)` may
    /// give an operand's whole text instead (another printer's view of
    /// a value the operand cannot hold).
    pub fn write_text_over(
        &self,
        t: &Target,
        gen: IsaGen,
        dialect: Dialect,
        out: &mut impl Write,
        map: impl Fn(usize, Operand) -> Operand,
        over: impl Fn(usize, Operand) -> Option<String>,
    ) -> fmt::Result {
        out.write_str(self.row.name)?;
        let mut first = true;
        for (i, (slot, op)) in self.operands().enumerate() {
            let op = map(i, op);
            if slot.kind == Kind::Dec16Opt && op == Operand::Imm(0) {
                continue;
            }
            out.write_str(if first { " " } else { ", " })?;
            first = false;
            if let Some(text) = over(i, op) {
                out.write_str(&text)?;
                continue;
            }
            match (slot.kind, op) {
                (Kind::Reg, op) => operand::write_operand(out, gen, dialect, op, slot.ty)?,
                (kind, Operand::Imm(v)) => write_imm(out, t, gen, dialect, kind, v)?,
                // A literal-only operand (`s_fmaak_f32`'s K) is hex
                // whatever its value: no inline constant could stand there.
                (Kind::Lit, Operand::Literal(v)) => write!(out, "{v:#x}")?,
                (Kind::LitValue, Operand::Literal(v)) => {
                    operand::write_literal(out, v, slot.ty, Dialect::Llvm19)?
                }
                (_, op) => operand::write_operand(out, gen, dialect, op, slot.ty)?,
            }
        }
        Ok(())
    }
}

/// Writes an immediate field of kind `kind`.
fn write_imm(
    out: &mut impl Write,
    t: &Target,
    gen: IsaGen,
    dialect: Dialect,
    kind: Kind,
    v: u16,
) -> fmt::Result {
    match kind {
        Kind::Hwreg => simm::write_hwreg(out, t, v, dialect),
        Kind::SendMsg => simm::write_sendmsg(out, t, v),
        Kind::Waitcnt => simm::write_waitcnt(out, gen, v),
        Kind::DepCtr => simm::write_depctr(out, t, v),
        Kind::DelayAlu => simm::write_delay_alu(out, v),
        Kind::GprIdx => simm::write_gpr_idx(out, v),
        Kind::Version => simm::write_version(out, v),
        Kind::Hex16 => write!(out, "{v:#x}"),
        Kind::Imm16 if v <= 64 => write!(out, "{v}"),
        Kind::Imm16 => write!(out, "{v:#x}"),
        Kind::Dec16 | Kind::Dec16Opt | Kind::Branch => write!(out, "{v}"),
        Kind::Reg | Kind::Lit | Kind::LitValue => write!(out, "{v:#x}"),
    }
}

impl Decoded {
    /// Writes the instruction's LLVM 22 text, or `<invalid>`.
    pub fn write_text(&self, out: &mut impl Write) -> fmt::Result {
        self.write_text_in(Dialect::Llvm22, out)
    }

    /// Writes the instruction's text in `dialect`, or `<invalid>`.
    pub fn write_text_in(&self, dialect: Dialect, out: &mut impl Write) -> fmt::Result {
        match (self.verdict, &self.insn) {
            (Verdict::Valid, Some(i)) => {
                i.write_text_with(self.target, self.gen, dialect, out, |_, op| op)
            }
            _ => out.write_str("<invalid>"),
        }
    }

    /// The instruction's LLVM 22 text, or `<invalid>`.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = self.write_text(&mut s);
        s
    }
}
