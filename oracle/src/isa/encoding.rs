//! Encodings as bit-field rows: how the first dword of an instruction
//! names its family, where the opcode is, and where each operand field
//! lies.
//!
//! The scalar formats are the same from GFX8 to GFX12 (amdgpu-usage.rst
//! and the ISA references' "Microcode Formats"; LLVM `SOPInstructions.td`
//! `SOP1e`...`SOPPe`): SOP2 is `10` in bits 31:30, and the codes SOP2
//! would give opcodes 0x60-0x7F select SOPK (`1011` in 31:28), whose
//! opcodes 0x1D-0x1F in turn select SOP1, SOPC and SOPP. Formats are
//! listed most specific first: the first whose mask matches wins.

use super::gen::IsaGen;
use super::table::{Family, Field};

/// A bit field of an instruction: lowest bit and width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bits {
    /// Lowest bit.
    pub lo: u8,
    /// Width in bits.
    pub width: u8,
}

impl Bits {
    /// The field's value in `word`.
    pub const fn get(self, word: u64) -> u64 {
        (word >> self.lo) & ((1u64 << self.width) - 1)
    }

    /// `word` with the field set to `v` (its low `width` bits).
    pub const fn set(self, word: u64, v: u64) -> u64 {
        let m = ((1u64 << self.width) - 1) << self.lo;
        (word & !m) | ((v << self.lo) & m)
    }

    /// The field's bits within the word.
    pub const fn mask(self) -> u64 {
        ((1u64 << self.width) - 1) << self.lo
    }
}

const fn b(lo: u8, width: u8) -> Bits {
    Bits { lo, width }
}

/// One encoding format.
#[derive(Debug, PartialEq, Eq)]
pub struct Format {
    /// The family.
    pub family: Family,
    /// The identifying bits of the first dword.
    pub mask: u32,
    /// Their value.
    pub value: u32,
    /// Base size in bytes (without a literal).
    pub size: u8,
    /// The opcode field.
    pub opcode: Bits,
    /// The operand fields.
    pub fields: &'static [(Field, Bits)],
}

impl Format {
    /// True if `dword` (the instruction's first) is of this format.
    pub fn matches(&self, dword: u32) -> bool {
        dword & self.mask == self.value
    }

    /// Where `f` lies, if the format has it.
    pub fn field(&self, f: Field) -> Option<Bits> {
        self.fields.iter().find(|(g, _)| *g == f).map(|(_, b)| *b)
    }

    /// The word whose identifying bits are this format's and whose other
    /// bits are 0.
    pub fn base(&self) -> u64 {
        u64::from(self.value)
    }
}

/// The scalar formats, shared by every generation.
static SCALAR: [Format; 5] = [
    Format {
        family: Family::Sop1,
        mask: 0xff80_0000,
        value: 0xbe80_0000,
        size: 4,
        opcode: b(8, 8),
        fields: &[(Field::Sdst, b(16, 7)), (Field::Ssrc0, b(0, 8))],
    },
    Format {
        family: Family::Sopc,
        mask: 0xff80_0000,
        value: 0xbf00_0000,
        size: 4,
        opcode: b(16, 7),
        fields: &[(Field::Ssrc0, b(0, 8)), (Field::Ssrc1, b(8, 8))],
    },
    Format {
        family: Family::Sopp,
        mask: 0xff80_0000,
        value: 0xbf80_0000,
        size: 4,
        opcode: b(16, 7),
        fields: &[(Field::Simm16, b(0, 16))],
    },
    Format {
        family: Family::Sopk,
        mask: 0xf000_0000,
        value: 0xb000_0000,
        size: 4,
        opcode: b(23, 5),
        fields: &[(Field::Sdst, b(16, 7)), (Field::Simm16, b(0, 16))],
    },
    Format {
        family: Family::Sop2,
        mask: 0xc000_0000,
        value: 0x8000_0000,
        size: 4,
        opcode: b(23, 7),
        fields: &[
            (Field::Sdst, b(16, 7)),
            (Field::Ssrc0, b(0, 8)),
            (Field::Ssrc1, b(8, 8)),
        ],
    },
];

/// The formats of `gen`, most specific first.
pub fn formats(gen: IsaGen) -> &'static [Format] {
    let _ = gen;
    &SCALAR
}

/// The format of `family` on `gen`.
pub fn format(gen: IsaGen, family: Family) -> Option<&'static Format> {
    formats(gen).iter().find(|f| f.family == family)
}

/// The format the first dword `dword` is in, on `gen`.
pub fn identify(gen: IsaGen, dword: u32) -> Option<&'static Format> {
    formats(gen).iter().find(|f| f.matches(dword))
}
