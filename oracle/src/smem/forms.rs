//! Instruction forms: every opcode × offset form × modifier set a family
//! can encode. The generators draw instruction shapes from this list and
//! `tests/smem_llvm.rs` assembles every one of them with `llvm-mc-19`, so
//! whatever the generators emit has been checked against LLVM.

use super::{Class, Instruction, Offset, OpInfo, SmemGen};

/// How the offset operand is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OffsetForm {
    /// No offset operand.
    None,
    /// Immediate only.
    Imm,
    /// SGPR only (GFX8/GFX9 IMM=0 SOE=0; GFX10/GFX11 OFFSET=0).
    Sgpr,
    /// SGPR plus immediate (GFX9 IMM=1 SOE=1; GFX10+ both fields).
    SgprImm,
    /// GFX9 IMM=0 SOE=1: SGPR in SOFFSET. It prints like [`OffsetForm::Sgpr`]
    /// and LLVM assembles that text to the SOE=0 word, so it exists only
    /// as bytes.
    Soffset,
}

impl OffsetForm {
    /// True when LLVM's assembler can produce this form from text.
    pub fn has_text(self) -> bool {
        self != Self::Soffset
    }
}

/// One opcode with one offset form and one set of modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Form {
    /// Encoding family.
    pub gen: SmemGen,
    /// Opcode entry.
    pub op: &'static OpInfo,
    /// Offset form.
    pub offset: OffsetForm,
    /// GLC.
    pub glc: bool,
    /// DLC.
    pub dlc: bool,
    /// GFX12 temporal hint.
    pub th: u8,
    /// GFX12 scope.
    pub scope: u8,
}

impl Form {
    /// The instruction of this form with the given operands; `reg` and
    /// `imm` feed the offset as the form needs them.
    pub fn instruction(&self, sdata: u8, sbase: u8, reg: u8, imm: i32) -> Instruction {
        let offset = match self.offset {
            OffsetForm::None => Offset::None,
            OffsetForm::Imm => Offset::Imm(imm),
            OffsetForm::Sgpr => Offset::Sgpr(reg),
            OffsetForm::SgprImm => Offset::SgprImm { sgpr: reg, imm },
            OffsetForm::Soffset => Offset::Soffset(reg),
        };
        Instruction {
            glc: self.glc,
            dlc: self.dlc,
            th: self.th,
            scope: self.scope,
            ..Instruction::new(self.gen, self.op, sdata, sbase, offset)
        }
    }
}

/// The offset forms an instruction of class `c` has on `gen`.
pub fn offset_forms(gen: SmemGen, c: Class) -> &'static [OffsetForm] {
    use OffsetForm::*;
    if !c.has_offset() {
        return &[None];
    }
    match gen {
        SmemGen::Gfx8 => &[Imm, Sgpr],
        SmemGen::Gfx9 => &[Imm, Sgpr, SgprImm, Soffset],
        SmemGen::Gfx10_1 | SmemGen::Gfx10_3 | SmemGen::Gfx11 => &[Imm, Sgpr, SgprImm],
        // Prefetches always name SOFFSET (null when unused).
        SmemGen::Gfx12 if c.prefetch() => &[SgprImm],
        SmemGen::Gfx12 => &[Imm, SgprImm],
    }
}

/// The modifier sets (glc, dlc, th, scope) an instruction of class `c`
/// takes on `gen`.
pub fn modifier_sets(gen: SmemGen, c: Class) -> Vec<(bool, bool, u8, u8)> {
    let mut mods = vec![(false, false, 0, 0)];
    if gen == SmemGen::Gfx12 {
        if matches!(c, Class::Load | Class::BufferLoad) {
            mods = (0..16u8).map(|k| (false, false, k >> 2, k & 3)).collect();
        }
    } else if c.has_glc() {
        mods.push((true, false, 0, 0));
        if gen.dlc_bit().is_some() {
            mods.extend([(false, true, 0, 0), (true, true, 0, 0)]);
        }
    }
    mods
}

/// Every form of `gen`: each opcode × offset form × modifier set.
pub fn forms(gen: SmemGen) -> Vec<Form> {
    let mut v = Vec::new();
    for op in gen.table() {
        for &offset in offset_forms(gen, op.class) {
            for (glc, dlc, th, scope) in modifier_sets(gen, op.class) {
                v.push(Form {
                    gen,
                    op,
                    offset,
                    glc,
                    dlc,
                    th,
                    scope,
                });
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smem::{decode, encode, Verdict};

    /// Every form encodes (with in-class operands) to a canonical word that
    /// decodes back to the same form.
    #[test]
    fn every_form_encodes_and_decodes() {
        for gen in SmemGen::ALL {
            let fs = forms(gen);
            assert!(fs.len() >= gen.table().len());
            for f in fs {
                let c = f.op.class;
                let sdata = if c.has_sdata_regs() {
                    8
                } else if c.has_sdata_imm() {
                    3
                } else {
                    0
                };
                let sbase = if c.has_sbase() { 4 } else { 0 };
                let i = f.instruction(sdata, sbase, 7, 0x10);
                let w = encode(&i).unwrap_or_else(|e| panic!("{f:?}: {e}"));
                let d = decode(gen, w);
                assert_eq!(d.verdict, Verdict::Valid, "{f:?}");
                assert_eq!(d.instruction, Some(i), "{f:?}");
            }
        }
    }
}
