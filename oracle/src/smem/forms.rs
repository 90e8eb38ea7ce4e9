//! Instruction forms: every opcode × offset form × modifier set a family
//! can encode. The generators draw instruction shapes from this list and
//! `tests/smem_llvm.rs` assembles every one of them with `llvm-mc-19`
//! (GFX12.5's: `tests/smem_gfx1250_llvm.rs`, with `llvm-mc-22`), so
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
    /// GFX12.5 `nv`.
    pub nv: bool,
    /// GFX12.5 `scale_offset`.
    pub scale_offset: bool,
}

/// One set of cache-policy and addressing modifiers an instruction takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modifiers {
    /// GLC (GFX8–GFX11).
    pub glc: bool,
    /// DLC (GFX10, GFX11).
    pub dlc: bool,
    /// GFX12 temporal hint.
    pub th: u8,
    /// GFX12 scope.
    pub scope: u8,
    /// GFX12.5 `nv`.
    pub nv: bool,
    /// GFX12.5 `scale_offset`.
    pub scale_offset: bool,
}

impl Modifiers {
    /// `i` with these modifiers.
    pub fn apply(self, i: Instruction) -> Instruction {
        Instruction {
            glc: self.glc,
            dlc: self.dlc,
            th: self.th,
            scope: self.scope,
            nv: self.nv,
            scale_offset: self.scale_offset,
            ..i
        }
    }

    /// The modifiers of `i`.
    pub fn of(i: &Instruction) -> Modifiers {
        Modifiers {
            glc: i.glc,
            dlc: i.dlc,
            th: i.th,
            scope: i.scope,
            nv: i.nv,
            scale_offset: i.scale_offset,
        }
    }
}

impl Form {
    /// The form's modifiers.
    pub fn modifiers(&self) -> Modifiers {
        Modifiers {
            glc: self.glc,
            dlc: self.dlc,
            th: self.th,
            scope: self.scope,
            nv: self.nv,
            scale_offset: self.scale_offset,
        }
    }

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
        self.modifiers()
            .apply(Instruction::new(self.gen, self.op, sdata, sbase, offset))
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
        SmemGen::Gfx12 | SmemGen::Gfx12_5 if c.prefetch() => &[SgprImm],
        SmemGen::Gfx12 | SmemGen::Gfx12_5 => &[Imm, SgprImm],
    }
}

/// The modifier sets an instruction of class `c` takes on `gen`, the empty
/// set first.
pub fn modifier_sets(gen: SmemGen, c: Class) -> Vec<Modifiers> {
    let none = Modifiers::default();
    let mut mods = vec![none];
    if gen.is_gfx12() {
        if matches!(c, Class::Load | Class::BufferLoad) {
            mods = (0..16u8)
                .map(|k| Modifiers {
                    th: k >> 2,
                    scope: k & 3,
                    ..none
                })
                .collect();
        }
        if gen.has_nv(c) {
            let with: Vec<Modifiers> = mods.iter().map(|m| Modifiers { nv: true, ..*m }).collect();
            mods.extend(with);
        }
        if gen.has_scale_offset(c) {
            let with: Vec<Modifiers> = mods
                .iter()
                .map(|m| Modifiers {
                    scale_offset: true,
                    ..*m
                })
                .collect();
            mods.extend(with);
        }
    } else if c.has_glc() {
        let glc = |glc, dlc| Modifiers { glc, dlc, ..none };
        mods.push(glc(true, false));
        if gen.dlc_bit().is_some() {
            mods.extend([glc(false, true), glc(true, true)]);
        }
    }
    mods
}

/// Every form of `gen`: each opcode × offset form × modifier set.
pub fn forms(gen: SmemGen) -> Vec<Form> {
    let mut v = Vec::new();
    for op in gen.table() {
        for &offset in offset_forms(gen, op.class) {
            for m in modifier_sets(gen, op.class) {
                v.push(Form {
                    gen,
                    op,
                    offset,
                    glc: m.glc,
                    dlc: m.dlc,
                    th: m.th,
                    scope: m.scope,
                    nv: m.nv,
                    scale_offset: m.scale_offset,
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
