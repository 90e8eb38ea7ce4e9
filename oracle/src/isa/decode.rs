//! Decoding: bytes to an instruction with a verdict.

use std::fmt;
use std::sync::OnceLock;

use super::encoding::{self, Format};
use super::gen::IsaGen;
use super::operand::{self, Operand};
use super::table::{self, Family, Field, Kind, Row, Slot};
use crate::targets::{self, Target};

/// The most operands a row prints.
pub const MAX_SLOTS: usize = 8;

/// Why bytes are not a valid instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Invalid {
    /// Fewer bytes than the instruction needs (`need` bytes).
    Truncated {
        /// Bytes the instruction needs.
        need: u8,
    },
    /// No family the layer models has this encoding.
    Encoding,
    /// The family has no instruction with this opcode on the processor.
    Opcode(u16),
    /// A field no operand uses is not 0.
    Unused(Field),
    /// An operand field names a value its slot does not allow (the
    /// slot's index in the row, the field's value).
    Operand {
        /// The slot.
        slot: u8,
        /// The field's value.
        code: u16,
    },
    /// Two operands want literals of different sizes (a 32-bit literal
    /// code, or a literal-only operand, and GFX12.5's 64-bit code): an
    /// instruction carries one literal, and LLVM's assembler writes one
    /// code for both.
    MixedLiterals,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Truncated { need } => write!(f, "the instruction needs {need} bytes"),
            Self::Encoding => f.write_str("no instruction encoding the processor has"),
            Self::Opcode(o) => write!(f, "opcode {o} is not defined on this processor"),
            Self::Unused(field) => write!(f, "unused field {field:?} is not 0"),
            Self::MixedLiterals => f.write_str("operands want a 32-bit and a 64-bit literal"),
            Self::Operand { slot, code } => {
                write!(f, "operand {slot} holds {code}, which it does not allow")
            }
        }
    }
}

/// The verdict on decoded bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// A valid instruction.
    Valid,
    /// Not a valid instruction.
    Invalid(Invalid),
}

/// A decoded instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn {
    /// Its encoding format.
    pub format: &'static Format,
    /// Its opcode row.
    pub row: &'static Row,
    /// The operands, in the row's slot order (`row.slots.len()` of them).
    pub operands: [Operand; MAX_SLOTS],
    /// The raw field value of each slot.
    pub codes: [u16; MAX_SLOTS],
    /// The literal that follows the instruction, if an operand takes one
    /// (32 bits, or 64 for a GFX12.5 `lit64`).
    pub literal: Option<u64>,
}

impl Insn {
    /// The operands with their slots.
    pub fn operands(&self) -> impl Iterator<Item = (&'static Slot, Operand)> + '_ {
        self.row.slots.iter().zip(self.operands.iter().copied())
    }
}

/// What the bytes at one address are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The processor.
    pub target: &'static Target,
    /// The encoding generation.
    pub gen: IsaGen,
    /// Bytes the instruction takes (for a truncated one, the bytes
    /// there were; for an unknown encoding, 4).
    pub len: u8,
    /// The first dword (what there was of it).
    pub word: u32,
    /// The instruction, when its family and opcode are known (also for
    /// some invalid ones, whose operands are then out of place).
    pub insn: Option<Insn>,
    /// The verdict.
    pub verdict: Verdict,
}

/// Decodes one processor's machine code.
#[derive(Debug)]
pub struct Decoder {
    /// The processor.
    pub target: &'static Target,
    /// Its encoding generation.
    pub gen: IsaGen,
    /// Per family (in [`Family::ALL`] order), the row of each opcode.
    by_opcode: Vec<Vec<Option<&'static Row>>>,
}

impl Decoder {
    /// A decoder for `t`, or `None` for processors the layer does not
    /// decode (r600, GFX6, GFX7).
    pub fn new(t: &'static Target) -> Option<Decoder> {
        Self::as_llvm(t, 22)
    }

    /// The decoder of `t` with the opcode rows LLVM `version` decodes
    /// (the oracle's own is LLVM 22's: [`Decoder::new`]); for telling
    /// version differences from disagreements.
    pub fn as_llvm(t: &'static Target, version: u32) -> Option<Decoder> {
        let gen = IsaGen::of(t)?;
        let by_opcode = Family::ALL
            .iter()
            .map(|&fam| {
                let n = encoding::format(gen, fam).map_or(0, |f| 1usize << f.opcode.width);
                let mut v = vec![None; n];
                for r in table::rows().filter(|r| {
                    r.family == fam && r.llvm.includes(version) && r.procs.contains(&t.name)
                }) {
                    if let Some(slot) = v.get_mut(usize::from(r.opcode)) {
                        *slot = Some(r);
                    }
                }
                v
            })
            .collect();
        Some(Decoder {
            target: t,
            gen,
            by_opcode,
        })
    }

    /// The decoder of `t`, made once per process.
    pub fn for_target(t: &'static Target) -> Option<&'static Decoder> {
        static ALL: OnceLock<Vec<Option<Decoder>>> = OnceLock::new();
        let all = ALL.get_or_init(|| targets::all_targets().map(Decoder::new).collect());
        let i = targets::all_targets().position(|x| std::ptr::eq(x, t))?;
        all.get(i)?.as_ref()
    }

    /// The row of `opcode` in `family`, if the processor has one.
    pub fn row(&self, family: Family, opcode: u16) -> Option<&'static Row> {
        let f = Family::ALL.iter().position(|x| *x == family)?;
        *self.by_opcode.get(f)?.get(usize::from(opcode))?
    }

    /// Decodes the instruction at the start of `bytes`.
    pub fn decode(&self, bytes: &[u8]) -> Decoded {
        let gen = self.gen;
        let mut first = [0u8; 4];
        let n = bytes.len().min(4);
        first[..n].copy_from_slice(&bytes[..n]);
        let word = u32::from_le_bytes(first);
        let target = self.target;
        let out = |len: u8, insn, verdict| Decoded {
            target,
            gen,
            len,
            word,
            insn,
            verdict,
        };
        if n < 4 {
            return out(
                n as u8,
                None,
                Verdict::Invalid(Invalid::Truncated { need: 4 }),
            );
        }
        let Some(format) = encoding::identify(gen, word) else {
            return out(4, None, Verdict::Invalid(Invalid::Encoding));
        };
        let w = u64::from(word);
        let opcode = format.opcode.get(w) as u16;
        let Some(row) = self.row(format.family, opcode) else {
            return out(format.size, None, Verdict::Invalid(Invalid::Opcode(opcode)));
        };
        let mut insn = Insn {
            format,
            row,
            operands: [Operand::Null; MAX_SLOTS],
            codes: [0; MAX_SLOTS],
            literal: None,
        };
        let mut bad = row
            .zero
            .iter()
            .find(|f| format.field(**f).is_some_and(|b| b.get(w) != 0))
            .map(|f| Invalid::Unused(*f));
        // Bytes of literal the operands want: 4 (code 255 or a
        // literal-only operand), 8 (GFX12.5 code 254). An instruction
        // has one literal; two of different sizes make it invalid. Its
        // length is then as LLVM 22 reads it: 4 with a literal-only
        // operand, else 8.
        let mut literal_bytes = 0u8;
        let mut mixed = false;
        // A 64-bit literal code before the literal-only operand: LLVM 22
        // reads the K dword with the instruction and the 64-bit literal
        // after it (errata ISA 3).
        let mut lit64_before_k = false;
        let has_k = row.slots.iter().any(|s| s.field == Field::Literal);
        for (i, slot) in row.slots.iter().enumerate().take(MAX_SLOTS) {
            let code = format.field(slot.field).map_or(0, |b| b.get(w) as u16);
            insn.codes[i] = code;
            let op = if slot.field == Field::Literal {
                Operand::Literal(0)
            } else {
                operand_of(gen, self.target, slot, code)
            };
            let want = match op {
                Operand::Literal(_) => 4,
                Operand::Literal64(_) => 8,
                _ => 0,
            };
            mixed |= want != 0 && literal_bytes != 0 && want != literal_bytes;
            lit64_before_k |= has_k && want == 8 && literal_bytes == 0;
            if want != 0 {
                literal_bytes = if has_k { 4 } else { literal_bytes.max(want) };
            }
            if bad.is_none() && !operand_allowed(gen, self.target, slot, op) {
                bad = Some(Invalid::Operand {
                    slot: i as u8,
                    code,
                });
            }
            insn.operands[i] = op;
        }
        if mixed && bad.is_none() {
            bad = Some(Invalid::MixedLiterals);
        }
        let mut len = format.size;
        if lit64_before_k {
            literal_bytes = 12;
        }
        if literal_bytes != 0 {
            len += literal_bytes;
            match bytes.get(usize::from(format.size)..usize::from(len)) {
                Some(l) => {
                    let mut b = [0u8; 12];
                    b[..l.len()].copy_from_slice(l);
                    let [k0, k1, k2, k3, r @ ..] = b;
                    let k = u32::from_le_bytes([k0, k1, k2, k3]);
                    let (v32, v64) = if lit64_before_k {
                        let mut w = [0u8; 8];
                        w.copy_from_slice(&r[..8]);
                        (k, u64::from_le_bytes(w))
                    } else {
                        let mut w = [0u8; 8];
                        w.copy_from_slice(&b[..8]);
                        let v = u64::from_le_bytes(w);
                        (v as u32, v)
                    };
                    insn.literal = Some(v64);
                    for op in &mut insn.operands {
                        match op {
                            Operand::Literal(x) => *x = v32,
                            Operand::Literal64(x) => *x = v64,
                            _ => {}
                        }
                    }
                }
                None => {
                    return out(
                        bytes.len().min(usize::from(len)) as u8,
                        Some(insn),
                        Verdict::Invalid(Invalid::Truncated { need: len }),
                    )
                }
            }
        }
        let verdict = bad.map_or(Verdict::Valid, Verdict::Invalid);
        out(len, Some(insn), verdict)
    }
}

/// The operand a slot's field value names on `t`.
fn operand_of(gen: IsaGen, t: &Target, slot: &Slot, code: u16) -> Operand {
    match slot.kind {
        // GFX12.5's 64-bit literal code, in a source.
        Kind::Reg if code == 254 && t.is_gfx12_5() && slot.access == table::Access::Read => {
            Operand::Literal64(0)
        }
        Kind::Reg => operand::decode_src(gen, code, slot.dwords),
        _ => Operand::Imm(code),
    }
}

/// True if `op` may stand in `slot` on `t` (of generation `gen`).
pub fn operand_allowed(gen: IsaGen, t: &Target, slot: &Slot, op: Operand) -> bool {
    let source = slot.access == table::Access::Read;
    match op {
        Operand::Bad(_) => false,
        Operand::Imm(_) => true,
        Operand::Literal(_) if slot.field == Field::Literal => true,
        Operand::Reg { file, first, count } => {
            operand::reg_ok(gen, file, first, count, slot.field == Field::Sdst)
        }
        Operand::Special { code, count } => operand::special_name(gen, code, count).is_some(),
        // GFX8/GFX9 have no null register (LLVM's assembler: "'null'
        // operand is not supported on this GPU").
        Operand::Null => gen.is_rdna(),
        Operand::Int(_) | Operand::Float(_) | Operand::Literal(_) => source && slot.consts,
        // LLVM writes a 64-bit literal only for 64-bit operands (a
        // 32-bit one gets a 32-bit literal; a 16-bit one is refused),
        // and its decoder asserts that no other operand has one.
        Operand::Literal64(_) => source && slot.consts && slot.ty.dwords() == 2,
        Operand::Source(code) => source && operand::source_ok(t, code, slot.dwords, slot.consts),
    }
}

/// Decodes the instruction at the start of `bytes` for `t`; `None` for
/// processors the layer does not decode.
pub fn decode(t: &'static Target, bytes: &[u8]) -> Option<Decoded> {
    Some(Decoder::for_target(t)?.decode(bytes))
}
