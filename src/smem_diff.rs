//! Differential testing of the SMEM model (`hsaco_oracle::smem`) against
//! LLVM's AMDGPU disassembler, one 64-bit word at a time.
//!
//! For every word the oracle's verdict and text are turned into what LLVM
//! is expected to print ([`expect`]), using a small model of how LLVM's
//! disassembler treats what the oracle calls invalid. The comparison
//! ([`compare`]) then has three outcomes: the same, a listed
//! [`Divergence`] (LLVM prints exactly what the model of that divergence
//! predicts), or different. Every divergence is one named, exact rule;
//! anything the rules do not predict character for character is a
//! difference.
//!
//! Words come from [`Words`]: a deterministic stream for a seed and a
//! processor, biased towards the SMEM encoding and known opcodes.
//!
//! The model of LLVM was checked over millions of random words against
//! libLLVM-19, -15 and -14 (Debian 19.1.7, 15.0.6, 14.0.6): LLVM 15
//! decodes like 19 but prints like 14; versions 16 to 18 are assumed to
//! behave like 19.

use std::fmt::{self, Write as _};

use hsaco_gen::seed::{self, ChaCha20Rng, Rng as _};
use hsaco_oracle::smem::parse::Dialect;
use hsaco_oracle::smem::{
    self, Class, Decoded, Instruction, InvalidReason, Offset, SmemGen, Verdict,
};
use serde::{Deserialize, Serialize};

/// The processors the differential runs by default: one per SMEM family
/// (GFX8, GFX9, gfx90a, gfx1010, gfx1030, GFX11, GFX12, GFX12.5). LLVM
/// releases that predate one are not comparable there.
pub const DEFAULT_TARGETS: [&str; 8] = [
    "gfx803", "gfx900", "gfx90a", "gfx1010", "gfx1030", "gfx1100", "gfx1200", "gfx1250",
];

/// The processor named by `name` (a processor, an alias or a target ID
/// such as `gfx90a:xnack+`), or a message suggesting
/// [`DEFAULT_TARGETS`].
pub fn resolve_processor(name: &str) -> Result<&'static hsaco_oracle::targets::Target, String> {
    hsaco_oracle::targets::processor_named(name).ok_or_else(|| {
        format!(
            "unknown processor {name:?} (try {}, or a target ID such as gfx90a:xnack+)",
            DEFAULT_TARGETS.join(", ")
        )
    })
}

/// The random words of one processor: nine in ten carry the SMEM
/// encoding, two in three a defined opcode; all other bits are uniform.
/// The numbers come from the seed scheme ([`hsaco_gen::seed`]), domain
/// `words.CPU`, index 0; each word takes two 64-bit draws.
#[derive(Clone, Debug)]
pub struct Words {
    rng: ChaCha20Rng,
    gen: SmemGen,
}

impl Words {
    /// The seed domain of `cpu`'s random words.
    pub fn domain(cpu: &str) -> String {
        format!("words.{cpu}")
    }

    /// The stream for `seed` and `cpu` (of family `gen`).
    pub fn new(gen: SmemGen, cpu: &str, seed: u64) -> Self {
        Self {
            rng: seed::rng(seed, &Self::domain(cpu), 0),
            gen,
        }
    }

    /// The stream positioned at word number `index` (a seek, not a walk:
    /// four 32-bit stream words a word).
    pub fn starting_at(gen: SmemGen, cpu: &str, seed: u64, index: u64) -> Self {
        let mut w = Self::new(gen, cpu, seed);
        w.rng.set_word_pos(u128::from(index) * 4);
        w
    }

    /// The next word.
    pub fn next_word(&mut self) -> u64 {
        let gen = self.gen;
        let mut w = self.rng.next_u64();
        let sel = self.rng.next_u64();
        if !sel.is_multiple_of(10) {
            w = (w & !(0x3f << 26)) | (u64::from(gen.encoding()) << 26);
        }
        if !sel.is_multiple_of(3) {
            let table = gen.table();
            let n = table.len() as u64;
            if let Some(op) = usize::try_from((sel >> 8) % n.max(1))
                .ok()
                .and_then(|k| table.get(k))
            {
                let (lo, width) = gen.opcode_field();
                let m = ((1u64 << width) - 1) << lo;
                w = (w & !m) | (u64::from(op.opcode) << lo);
            }
        }
        w
    }
}

impl Iterator for Words {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        Some(self.next_word())
    }
}

/// A difference between the oracle and LLVM that is understood and
/// accepted. Each has an exact rule in [`expect`]: LLVM must print what
/// the rule predicts, character for character.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Divergence {
    /// A misaligned SGPR or trap-temporary tuple (SDATA or SBASE): LLVM
    /// rounds it down to the alignment and adds the comment `Warning:
    /// SGPR_64: scalar reg isn't aligned N` (the class, the register
    /// number within its file); the oracle calls the word invalid.
    MisalignedTuple,
    /// A register outside the operand's class (`m0`, `exec_lo` or
    /// `exec_hi` as a 32-bit destination, `exec` as a 64-bit one, `vcc`,
    /// `exec`, `flat_scratch`, `xnack_mask`, `tba`, `tma` as a tuple of
    /// three or more dwords or as a buffer resource, a trap temporary as
    /// a GFX12 96-bit destination): LLVM 19 prints it with
    /// `/*Invalid register, operand has 'SReg_128' register class*/`,
    /// LLVM 14 and 15 print it without a mark (and take no special
    /// register in 256/512-bit operands); the oracle calls it invalid.
    OutOfClassRegister,
    /// Register 125 as SDATA on GFX8/GFX9 (which have no null register),
    /// or (GFX11 and GFX12) null as a buffer resource: LLVM prints `null`,
    /// its assembler refuses it; the oracle calls it invalid. (Null as an
    /// SDATA tuple of any width from GFX10, and as a GFX11+ address pair,
    /// is valid: LLVM assembles it; errata SMEM 17.)
    NullTuple,
    /// GFX8 has 12 trap temporaries, but LLVM names SDATA tuples that run
    /// past ttmp11 (`ttmp[8:15]`); the oracle calls them invalid.
    Gfx8TtmpPast11,
    /// GFX8/GFX9 offset register 125: LLVM's disassembler prints `null`,
    /// which these processors do not have (LLVM's own assembler rejects
    /// it: "'null' operand is not supported on this GPU").
    Gfx9OffsetNull,
    /// A negative immediate on a buffer instruction: LLVM's disassembler
    /// prints it; before GFX12 its assembler rejects it (buffer offsets are
    /// 20-bit unsigned), and on GFX12 LLVM 19 assembles it too while LLVM
    /// 22 rejects it in both directions (23-bit unsigned, the hardware's
    /// rule).
    BufferOffsetNegative,
    /// LLVM 14 ignores GFX9's SOE bit (14): it reads the word as if SOE
    /// were 0 (IMM=1: the immediate alone; IMM=0: the register in
    /// OFFSET[6:0]), dropping the SOFFSET register. Fixed in later LLVM.
    Llvm14Gfx9IgnoresSoe,
    /// LLVM 14 drops the immediate of GFX10's register-plus-immediate form
    /// (SOFFSET not null and OFFSET not 0): it prints the register alone.
    Llvm14Gfx10DropsOffset,
    /// LLVM 22 prints bit 56 of a GFX12 (gfx1200, gfx1201) load as
    /// `scale_offset` (after the offset) and bit 20 as `nv` (last): gfx1250
    /// modifiers that gfx1200 does not have and its own assembler refuses
    /// ("not supported on this GPU"); LLVM 19 and the oracle ignore both
    /// bits (non-canonical). GFX12.5 has the modifiers: the oracle models
    /// them there, so this divergence never applies to gfx1250/gfx1251.
    Llvm22Gfx12Gfx1250Modifiers,
    /// LLVM 14-16 reject null as a 256- or 512-bit SDATA (GFX10+) as an
    /// invalid encoding; LLVM 19 and 22 print it, LLVM 22 assembles it,
    /// and the oracle calls it valid (errata SMEM 17).
    Llvm16NullWideSdata,
    /// LLVM 22's GFX12.5 (gfx1250, gfx1251) disassembler prints bit 56 of a
    /// buffer load as `scale_offset`, which its own assembler refuses
    /// there ("scale_offset is not supported for this instruction"); the
    /// oracle calls the bit unused (non-canonical), as LLVM's assembler
    /// and instruction selection treat it (errata SMEM 18).
    Llvm22Gfx1250BufferScaleOffset,
}

impl Divergence {
    /// Every divergence.
    pub const ALL: [Divergence; 11] = [
        Self::MisalignedTuple,
        Self::OutOfClassRegister,
        Self::NullTuple,
        Self::Gfx8TtmpPast11,
        Self::Gfx9OffsetNull,
        Self::BufferOffsetNegative,
        Self::Llvm14Gfx9IgnoresSoe,
        Self::Llvm14Gfx10DropsOffset,
        Self::Llvm22Gfx12Gfx1250Modifiers,
        Self::Llvm16NullWideSdata,
        Self::Llvm22Gfx1250BufferScaleOffset,
    ];

    /// Stable kebab-case name.
    pub fn name(self) -> &'static str {
        match self {
            Self::MisalignedTuple => "misaligned-tuple",
            Self::OutOfClassRegister => "out-of-class-register",
            Self::NullTuple => "null-tuple",
            Self::Gfx8TtmpPast11 => "gfx8-ttmp-past-11",
            Self::Gfx9OffsetNull => "gfx9-offset-null",
            Self::BufferOffsetNegative => "buffer-offset-negative",
            Self::Llvm14Gfx9IgnoresSoe => "llvm14-gfx9-ignores-soe",
            Self::Llvm14Gfx10DropsOffset => "llvm14-gfx10-drops-offset",
            Self::Llvm22Gfx12Gfx1250Modifiers => "llvm22-gfx12-gfx1250-modifiers",
            Self::Llvm16NullWideSdata => "llvm16-null-wide-sdata",
            Self::Llvm22Gfx1250BufferScaleOffset => "llvm22-gfx1250-buffer-scale-offset",
        }
    }

    /// Why the oracle and LLVM differ, in one sentence.
    pub fn reason(self) -> &'static str {
        match self {
            Self::MisalignedTuple => {
                "LLVM rounds a misaligned SGPR/ttmp tuple down and only warns \
                 (\"scalar reg isn't aligned\"); the hardware needs aligned tuples, \
                 the oracle calls the word invalid"
            }
            Self::OutOfClassRegister => {
                "LLVM decodes a register outside the operand's class (m0/exec as a \
                 destination, vcc/exec/flat_scratch... as a wide tuple or buffer \
                 resource, ttmp as a GFX12 96-bit destination); LLVM 19 marks it \
                 /*Invalid register...*/, LLVM 14 and 15 print it plainly; its \
                 assembler rejects it, the oracle calls the word invalid"
            }
            Self::NullTuple => {
                "LLVM prints null as SDATA on GFX8/GFX9 (which have no null) or \
                 (GFX11+) as a buffer resource; its assembler rejects it, the oracle \
                 calls the word invalid"
            }
            Self::Gfx8TtmpPast11 => {
                "GFX8 has ttmp0-ttmp11 only, but LLVM names SDATA tuples reaching \
                 ttmp12-ttmp15; the oracle calls the word invalid"
            }
            Self::Gfx9OffsetNull => {
                "GFX8/GFX9 offset register 125 prints as null, which these processors \
                 lack (LLVM's assembler rejects it); the oracle calls the word invalid"
            }
            Self::BufferOffsetNegative => {
                "a negative buffer offset prints (before GFX12 LLVM's assembler \
                 rejects it, 20-bit unsigned; on GFX12 LLVM 22 rejects it both ways, \
                 23-bit unsigned); the oracle calls the word invalid"
            }
            Self::Llvm14Gfx9IgnoresSoe => {
                "LLVM 14 ignores GFX9's SOE bit and drops the SOFFSET register \
                 (fixed in later LLVM; LLVM 19 agrees with the oracle)"
            }
            Self::Llvm14Gfx10DropsOffset => {
                "LLVM 14 drops the immediate of GFX10's register-plus-immediate \
                 offset and prints the register alone (fixed in later LLVM)"
            }
            Self::Llvm22Gfx12Gfx1250Modifiers => {
                "LLVM 22 prints gfx1200 load bits 56 and 20 as the gfx1250 modifiers \
                 scale_offset and nv, which its gfx1200 assembler refuses; the oracle \
                 and LLVM 19 ignore the bits (non-canonical)"
            }
            Self::Llvm22Gfx1250BufferScaleOffset => {
                "LLVM 22 prints bit 56 of a gfx1250 buffer load as scale_offset, which \
                 its gfx1250 assembler refuses for buffer loads; the oracle ignores the \
                 bit there (non-canonical)"
            }
            Self::Llvm16NullWideSdata => {
                "LLVM 14-16 reject null as a 256- or 512-bit SDATA (GFX10+), which \
                 LLVM 19 and 22 print and LLVM 22 assembles; the oracle calls the \
                 word valid"
            }
        }
    }

    /// The LLVM major versions known to show the divergence (checked
    /// against Debian's libLLVM-14, -15 and -19; 16 to 18 behave like 19).
    /// LLVM 22 rejects the words of the first six, as the oracle does:
    /// a later version that agrees with the oracle is counted as fixed
    /// ([`Outcome::Fixed`]), never as a difference.
    pub fn versions(self) -> std::ops::RangeInclusive<u32> {
        match self {
            Self::Llvm14Gfx9IgnoresSoe | Self::Llvm14Gfx10DropsOffset => 14..=14,
            Self::Llvm22Gfx12Gfx1250Modifiers | Self::Llvm22Gfx1250BufferScaleOffset => 22..=22,
            Self::Llvm16NullWideSdata => 14..=16,
            _ => 14..=19,
        }
    }

    /// The divergence with this [`Divergence::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.name() == name)
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of divergences (a word may show several).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Divergences(u16);

impl Divergences {
    /// Adds one.
    pub fn insert(&mut self, d: Divergence) {
        self.0 |= d.bit();
    }
    /// True when `d` is in the set.
    pub fn contains(self, d: Divergence) -> bool {
        self.0 & d.bit() != 0
    }
    /// True when empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The members, in [`Divergence::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Divergence> {
        Divergence::ALL
            .into_iter()
            .filter(move |d| self.contains(*d))
    }
}

/// LLVM's disassembly of one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LlvmView<'a> {
    /// LLVM reported an invalid encoding.
    Rejected,
    /// LLVM decoded `size` bytes as `text` (its annotation comments, if
    /// any, after `;`).
    Decoded {
        /// Bytes consumed.
        size: usize,
        /// The text as the C API returns it, whitespace-trimmed.
        text: &'a str,
    },
}

/// What LLVM is expected to print for a word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expectation {
    /// The word is not an SMEM word (bits 31:26): LLVM may reject it or
    /// decode any other instruction, but no SMEM one.
    NotSmem,
    /// LLVM must reject the word.
    Reject,
    /// LLVM must decode 8 bytes and print exactly this.
    Text {
        /// The instruction.
        text: String,
        /// The annotation comment LLVM adds (empty when none).
        comment: String,
        /// The divergences this prediction relies on (empty: the oracle
        /// and LLVM agree outright).
        divergences: Divergences,
        /// The oracle calls the word invalid (the divergences say why LLVM
        /// prints it anyway): an LLVM that rejects it agrees with the
        /// oracle's verdict.
        oracle_invalid: bool,
    },
    /// The oracle calls the word invalid for a reason no divergence rule
    /// covers; whatever LLVM prints is a difference unless it rejects.
    Unmodelled,
    /// The oracle calls the word valid, and these divergences say this
    /// LLVM rejects it.
    Refused(Divergences),
}

/// Outcome of comparing one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Oracle and LLVM agree.
    Same,
    /// They differ exactly as these listed divergences predict.
    Known(Divergences),
    /// The oracle calls the word invalid and this LLVM rejects it, where
    /// these divergences predicted that LLVM prints it: the verdicts
    /// agree (an LLVM past [`Divergence::versions`] has fixed it).
    Fixed(Divergences),
    /// An unexplained difference.
    Different,
}

/// True for LLVM versions whose printer does not mark registers outside
/// the operand's class and whose 256/512-bit operands take no special
/// registers (LLVM 14 and 15; checked against libLLVM-14 and -15).
fn is_llvm14_like(version: u32) -> bool {
    version <= 15
}

/// True for LLVM versions with the GFX9 SOE and GFX10 offset decoding
/// bugs (LLVM 14; LLVM 15 decodes both as LLVM 19 does).
fn has_llvm14_offset_bugs(version: u32) -> bool {
    version <= 14
}

/// How LLVM renders an operand the oracle calls out of class.
enum Operand {
    /// LLVM rejects the whole word.
    Reject,
    /// LLVM prints `text` and maybe adds `warning` to the comment.
    Print {
        text: String,
        warning: Option<String>,
        divergence: Divergence,
    },
    /// The model has no rule for this operand.
    Unmodelled,
}

/// SDATA (a destination or source tuple) or SBASE (an address pair or a
/// buffer resource quad).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Sdata,
    Sbase,
}

/// LLVM's register class name of an SMEM operand, as its `Invalid
/// register` comment gives it.
fn class_name(role: Role, width: u8) -> &'static str {
    match (role, width) {
        (Role::Sdata, 1) => "SReg_32_XM0_XEXEC",
        (Role::Sdata, 2) => "SReg_64_XEXEC",
        (Role::Sbase, 2) => "SReg_64",
        (_, 3) => "SReg_96",
        (_, 4) => "SReg_128",
        (_, 8) => "SReg_256",
        _ => "SReg_512",
    }
}

/// LLVM's name of a 64-bit special register pair (the names its
/// disassembler falls back to for pairs and wider tuples outside the
/// SGPR and trap-temporary ranges).
fn special64(gen: SmemGen, v: u8) -> Option<&'static str> {
    let pre10 = !gen.is_rdna();
    Some(match v {
        102 if pre10 => "flat_scratch",
        104 if pre10 => "xnack_mask",
        106 => "vcc",
        108 if gen == SmemGen::Gfx8 => "tba",
        110 if gen == SmemGen::Gfx8 => "tma",
        126 => "exec",
        _ => return None,
    })
}

/// How LLVM `version` decodes and prints register `v` as an operand of
/// `width` dwords that the oracle calls out of class.
fn llvm_operand(version: u32, gen: SmemGen, role: Role, v: u8, width: u8) -> Operand {
    let old = is_llvm14_like(version);
    let sgpr_max: u8 = if gen.is_rdna() { 105 } else { 101 };
    let (ttmp_base, ttmp_count): (u8, u8) = if gen == SmemGen::Gfx8 {
        (112, 12)
    } else {
        (108, 16)
    };
    let shift = match width {
        0 | 1 => 0,
        2 => 1,
        _ => 2,
    };
    let bits = 32 * u32::from(width);
    let tuple = |prefix: &str, a: u8| -> String {
        if width == 1 {
            format!("{prefix}{a}")
        } else {
            format!("{prefix}[{a}:{}]", u16::from(a) + u16::from(width) - 1)
        }
    };
    if v <= sgpr_max {
        let a = (v >> shift) << shift;
        // LLVM's SGPR tuples end at s105.
        if u16::from(a) + u16::from(width) > 106 {
            return Operand::Reject;
        }
        if a == v {
            return Operand::Unmodelled;
        }
        return Operand::Print {
            text: tuple("s", a),
            warning: Some(format!(
                "Warning: SGPR_{bits}: scalar reg isn't aligned {v}"
            )),
            divergence: Divergence::MisalignedTuple,
        };
    }
    if let Some(idx) = v.checked_sub(ttmp_base).filter(|i| *i < ttmp_count) {
        if width == 3 {
            // LLVM has no 96-bit trap-temporary tuples. LLVM 16-19 print
            // the first register, marked as outside the class; LLVM 22
            // aligns it down to 4 and prints an 8-register tuple (so
            // ttmp12-15 have none and are refused).
            if old {
                return Operand::Unmodelled;
            }
            let (text, warning) = if version >= 22 {
                let a = idx & !3;
                if a + 8 > 16 {
                    return Operand::Reject;
                }
                let warning = (a != idx)
                    .then(|| format!("Warning: TTMP_256: scalar reg isn't aligned {idx}"));
                (format!("ttmp[{a}:{}]", a + 7), warning)
            } else {
                (format!("ttmp{idx}"), None)
            };
            return Operand::Print {
                text: format!(
                    "{text}/*Invalid register, operand has '{}' register class*/",
                    class_name(role, width)
                ),
                warning,
                divergence: Divergence::OutOfClassRegister,
            };
        }
        let a = (idx >> shift) << shift;
        // LLVM always has 16 trap temporaries.
        if u16::from(a) + u16::from(width) > 16 {
            return Operand::Reject;
        }
        if a != idx {
            return Operand::Print {
                text: tuple("ttmp", a),
                warning: Some(format!(
                    "Warning: TTMP_{bits}: scalar reg isn't aligned {idx}"
                )),
                divergence: Divergence::MisalignedTuple,
            };
        }
        if gen == SmemGen::Gfx8 && a + width > 12 {
            return Operand::Print {
                text: tuple("ttmp", a),
                warning: None,
                divergence: Divergence::Gfx8TtmpPast11,
            };
        }
        return Operand::Unmodelled;
    }
    let marked = |name: &str| -> String {
        if old {
            name.to_owned()
        } else {
            format!(
                "{name}/*Invalid register, operand has '{}' register class*/",
                class_name(role, width)
            )
        }
    };
    let null = v == gen.null();
    if width == 1 {
        let name = match v {
            124 | 125 if v == gen.m0() => "m0",
            126 => "exec_lo",
            127 => "exec_hi",
            // GFX8/GFX9 register 125: printed as null, which they lack.
            _ if null => {
                return Operand::Print {
                    text: "null".to_owned(),
                    warning: None,
                    divergence: Divergence::NullTuple,
                }
            }
            _ => return Operand::Unmodelled,
        };
        return Operand::Print {
            text: marked(name),
            warning: None,
            divergence: Divergence::OutOfClassRegister,
        };
    }
    // LLVM 14 has no special registers (not even null) in 256/512-bit
    // operands.
    if old && width > 4 {
        return Operand::Reject;
    }
    if null {
        return Operand::Print {
            text: "null".to_owned(),
            warning: None,
            divergence: Divergence::NullTuple,
        };
    }
    match special64(gen, v) {
        Some(name) => Operand::Print {
            text: marked(name),
            warning: None,
            divergence: Divergence::OutOfClassRegister,
        },
        None => Operand::Reject,
    }
}

/// The offset register, when the instruction has one.
fn offset_register(i: &Instruction) -> Option<u8> {
    match i.offset {
        Offset::Sgpr(r) | Offset::Soffset(r) | Offset::SgprImm { sgpr: r, .. } => Some(r),
        Offset::None | Offset::Imm(_) => None,
    }
}

/// The immediate offset, when the instruction has one.
fn offset_imm(i: &Instruction) -> Option<i32> {
    match i.offset {
        Offset::Imm(v) | Offset::SgprImm { imm: v, .. } => Some(v),
        _ => None,
    }
}

/// True when SDATA is an atomic's returned value (GLC set): LLVM decodes
/// the field twice (destination and tied source), so its warnings appear
/// twice.
fn sdata_decoded_twice(i: &Instruction) -> bool {
    matches!(i.op.class, Class::Atomic | Class::BufferAtomic) && i.glc
}

/// The instruction as LLVM `version` prints it ([`smem::parse::format`]:
/// LLVM 14's spelling differs from 19's in the offset operand, e.g. a
/// GFX10 word with SOFFSET = null and OFFSET = 0 prints `0x0`, not
/// `null`). Operands outside their class stay `<bad:N>`.
fn llvm_text(version: u32, i: &Instruction) -> String {
    let dialect = if has_llvm14_offset_bugs(version) {
        Dialect::Llvm14
    } else {
        Dialect::Llvm19
    };
    smem::parse::format(i, dialect)
}

/// What LLVM `version` is expected to print for `word` on family `gen`.
pub fn expect(version: u32, gen: SmemGen, word: u64) -> Expectation {
    let mut divergences = Divergences::default();
    let mut word = word;
    let old = has_llvm14_offset_bugs(version);
    // LLVM 14 reads GFX9 words as if SOE were clear.
    const SOE: u64 = 1 << 14;
    if old && gen == SmemGen::Gfx9 && word & SOE != 0 {
        let d = smem::decode(gen, word);
        if d.instruction.is_some_and(|i| i.op.class.has_offset()) {
            let cleared = word & !SOE;
            if expect(19, gen, cleared) != expect(19, gen, word) {
                divergences.insert(Divergence::Llvm14Gfx9IgnoresSoe);
            }
            word = cleared;
        }
    }
    let d = smem::decode(gen, word);
    let Some(mut i) = d.instruction else {
        return match d.verdict {
            Verdict::Invalid(InvalidReason::Encoding(_)) => Expectation::NotSmem,
            _ => Expectation::Reject,
        };
    };
    if old && gen.is_gfx10() {
        if let Offset::SgprImm { sgpr, .. } = i.offset {
            i.offset = Offset::Sgpr(sgpr);
            divergences.insert(Divergence::Llvm14Gfx10DropsOffset);
        }
    }
    let reason = match d.verdict {
        Verdict::Valid | Verdict::NonCanonical { .. } => None,
        Verdict::Invalid(r) => Some(r),
    };
    match reason {
        None => {}
        Some(InvalidReason::Encoding(_)) => return Expectation::NotSmem,
        Some(
            InvalidReason::Opcode(_)
            | InvalidReason::ImmWithoutOffset
            | InvalidReason::CpolWithoutModifiers
            | InvalidReason::SdataImmediate(_),
        ) => return Expectation::Reject,
        Some(
            InvalidReason::SdataRegister(_)
            | InvalidReason::SbaseRegister(_)
            | InvalidReason::OffsetNull
            | InvalidReason::BufferOffsetNegative(_),
        ) => {}
    }
    let c = i.op.class;
    // LLVM 14-16 have no null in their 256/512-bit SDATA classes: they
    // reject the word whatever else it holds.
    if version <= 16
        && gen.is_rdna()
        && c.has_sdata_regs()
        && i.sdata == gen.null()
        && i.op.width > 4
    {
        if reason.is_some() {
            return Expectation::Reject;
        }
        divergences.insert(Divergence::Llvm16NullWideSdata);
        return Expectation::Refused(divergences);
    }
    if !gen.is_rdna() && offset_register(&i) == Some(125) {
        divergences.insert(Divergence::Gfx9OffsetNull);
    }
    if c.buffer_base() && offset_imm(&i).is_some_and(|v| v < 0) {
        divergences.insert(Divergence::BufferOffsetNegative);
    }
    let mut text = llvm_text(version, &i);
    let mut warnings: Vec<String> = Vec::new();
    let operands = [
        (Role::Sdata, c.has_sdata_regs(), i.sdata, i.op.width),
        (
            Role::Sbase,
            c.has_sbase(),
            i.sbase,
            if c.buffer_base() { 4 } else { 2 },
        ),
    ];
    for (role, present, v, width) in operands {
        let bad = format!("<bad:{v}>");
        if !present || smem::tuple_name(gen, v, width, role == Role::Sbase).is_some() {
            continue;
        }
        if !text.contains(&bad) {
            return Expectation::Unmodelled;
        }
        match llvm_operand(version, gen, role, v, width) {
            Operand::Reject => return Expectation::Reject,
            Operand::Unmodelled => return Expectation::Unmodelled,
            Operand::Print {
                text: t,
                warning,
                divergence,
            } => {
                text = text.replacen(&bad, &t, 1);
                if let Some(w) = warning {
                    if role == Role::Sdata && sdata_decoded_twice(&i) {
                        warnings.push(w.clone());
                    }
                    warnings.push(w);
                }
                divergences.insert(divergence);
            }
        }
    }
    if text.contains("<bad") {
        return Expectation::Unmodelled;
    }
    if version >= 22 && gen == SmemGen::Gfx12 && matches!(c, Class::Load | Class::BufferLoad) {
        let (scale, nv) = (word >> 56 & 1 == 1, word >> 20 & 1 == 1);
        if scale {
            // After the offset, before th/scope.
            let at = [" th:", " scope:"]
                .iter()
                .filter_map(|m| text.find(m))
                .min()
                .unwrap_or(text.len());
            text.insert_str(at, " scale_offset");
        }
        if nv {
            text.push_str(" nv");
        }
        if scale || nv {
            divergences.insert(Divergence::Llvm22Gfx12Gfx1250Modifiers);
        }
    }
    if version >= 22
        && gen.scale_offset_bit().is_some_and(|b| word >> b & 1 == 1)
        && c == Class::BufferLoad
    {
        // Where GFX12.5 prints the modifier: after the offset, before
        // th/scope and nv.
        let at = [" th:", " scope:", " nv"]
            .iter()
            .filter_map(|m| text.find(m))
            .min()
            .unwrap_or(text.len());
        text.insert_str(at, " scale_offset");
        divergences.insert(Divergence::Llvm22Gfx1250BufferScaleOffset);
    }
    // Every invalid verdict must be explained by at least one divergence.
    if reason.is_some() && divergences.is_empty() {
        return Expectation::Unmodelled;
    }
    Expectation::Text {
        text,
        comment: warnings.concat(),
        divergences,
        oracle_invalid: reason.is_some(),
    }
}

/// Splits LLVM's output into the instruction and its annotation comment
/// (LLVM pads to its comment column and writes `; ` before comments).
pub fn split_comment(text: &str) -> (&str, &str) {
    match text.find("; ") {
        Some(p) => (
            text.get(..p).unwrap_or("").trim_end(),
            text.get(p + 2..).unwrap_or(""),
        ),
        None => (text, ""),
    }
}

/// True when `text`'s mnemonic is one of `gen`'s SMEM mnemonics.
pub fn is_smem_text(gen: SmemGen, text: &str) -> bool {
    let m = text.split_whitespace().next().unwrap_or("");
    gen.op_by_name(m).is_some()
}

/// Compares an expectation with what LLVM did.
pub fn compare(gen: SmemGen, e: &Expectation, llvm: LlvmView<'_>) -> Outcome {
    match (e, llvm) {
        (Expectation::NotSmem, LlvmView::Rejected) => Outcome::Same,
        (Expectation::NotSmem, LlvmView::Decoded { text, .. }) => {
            if is_smem_text(gen, text) {
                Outcome::Different
            } else {
                Outcome::Same
            }
        }
        (Expectation::Reject, LlvmView::Rejected) => Outcome::Same,
        (Expectation::Refused(d), LlvmView::Rejected) => Outcome::Known(*d),
        (Expectation::Unmodelled, LlvmView::Rejected) => Outcome::Same,
        // Verdicts, not one version's text: rejecting what the oracle
        // calls invalid is agreement, whatever older LLVM printed.
        (
            Expectation::Text {
                divergences,
                oracle_invalid: true,
                ..
            },
            LlvmView::Rejected,
        ) => Outcome::Fixed(*divergences),
        (
            Expectation::Text {
                text,
                comment,
                divergences,
                ..
            },
            LlvmView::Decoded { size: 8, text: got },
        ) => {
            let (main, got_comment) = split_comment(got);
            if main == text && got_comment == comment {
                if divergences.is_empty() {
                    Outcome::Same
                } else {
                    Outcome::Known(*divergences)
                }
            } else {
                Outcome::Different
            }
        }
        _ => Outcome::Different,
    }
}

/// One word that came out different (or an example of a divergence).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Example {
    /// Index of the word in the stream.
    pub index: u64,
    /// The word (first dword in bits 31:0).
    pub word: u64,
    /// The oracle's verdict (`valid`, `non-canonical bits 0x...`, or
    /// `invalid: reason`).
    pub oracle: String,
    /// The oracle's text (LLVM syntax; `<bad:N>` marks an operand outside
    /// its class).
    pub oracle_text: String,
    /// What the model expected LLVM to print.
    pub expected: String,
    /// What LLVM printed (`None`: it rejected the word).
    pub llvm: Option<String>,
}

/// The oracle's verdict in words.
pub fn verdict_text(d: &Decoded) -> String {
    match d.verdict {
        Verdict::Valid => "valid".to_owned(),
        Verdict::NonCanonical { bits } => format!("non-canonical (bits {bits:#018x})"),
        Verdict::Invalid(r) => format!("invalid: {r}"),
    }
}

fn expectation_text(e: &Expectation) -> String {
    match e {
        Expectation::NotSmem => "no SMEM instruction".to_owned(),
        Expectation::Reject => "invalid".to_owned(),
        Expectation::Refused(_) => "invalid (a listed divergence)".to_owned(),
        Expectation::Unmodelled => "invalid (no rule predicts LLVM's text)".to_owned(),
        Expectation::Text { text, comment, .. } if comment.is_empty() => text.clone(),
        Expectation::Text { text, comment, .. } => format!("{text} ; {comment}"),
    }
}

/// Counts of one comparison run (one processor, one LLVM version).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Words compared.
    pub compared: u64,
    /// Words on which oracle and LLVM agree (including `non_smem`).
    pub same: u64,
    /// Of `same`: words outside the SMEM encoding (LLVM rejected them or
    /// decoded another kind of instruction).
    pub non_smem: u64,
    /// Words that differ only by listed divergences.
    pub known_words: u64,
    /// Per divergence, the words showing it (a word may show several).
    pub known: Vec<(Divergence, u64)>,
    /// Words the oracle calls invalid and LLVM rejected, where a listed
    /// divergence predicted text ([`Outcome::Fixed`]; counted in `same`).
    pub fixed_words: u64,
    /// Per divergence, the words on which LLVM agreed instead.
    pub fixed: Vec<(Divergence, u64)>,
    /// Unexplained differences.
    pub different: u64,
    /// The first unexplained differences.
    pub examples: Vec<Example>,
    /// One example per divergence seen.
    pub known_examples: Vec<(Divergence, Example)>,
    /// Words not given to LLVM (known to crash it).
    pub skipped: u64,
    /// Of `skipped`: words that begin an instruction longer than 8 bytes
    /// ([`begins_longer_instruction`]).
    pub truncated: u64,
    /// Nanoseconds spent inside LLVM's disassembler.
    pub llvm_nanos: u64,
}

impl Tally {
    /// How many words showed `d`.
    pub fn count(&self, d: Divergence) -> u64 {
        self.known
            .iter()
            .find(|(k, _)| *k == d)
            .map_or(0, |(_, n)| *n)
    }

    /// Adds another run's counts (examples are kept up to `max_examples`).
    pub fn merge(&mut self, o: &Tally, max_examples: usize) {
        self.compared += o.compared;
        self.same += o.same;
        self.non_smem += o.non_smem;
        self.known_words += o.known_words;
        self.fixed_words += o.fixed_words;
        for &(d, n) in &o.fixed {
            add_count(&mut self.fixed, d, n);
        }
        self.different += o.different;
        self.llvm_nanos += o.llvm_nanos;
        self.skipped += o.skipped;
        self.truncated += o.truncated;
        for &(d, n) in &o.known {
            self.add_known(d, n);
        }
        for e in &o.examples {
            if self.examples.len() < max_examples {
                self.examples.push(e.clone());
            }
        }
        for (d, e) in &o.known_examples {
            if !self.known_examples.iter().any(|(k, _)| k == d) {
                self.known_examples.push((*d, e.clone()));
            }
        }
        self.known.sort();
        self.known_examples.sort_by_key(|(d, _)| *d);
    }

    fn add_known(&mut self, d: Divergence, n: u64) {
        add_count(&mut self.known, d, n);
    }

    /// LLVM disassembly throughput in words per second.
    pub fn llvm_words_per_second(&self) -> f64 {
        self.compared as f64 / (self.llvm_nanos as f64 / 1e9).max(1e-9)
    }
}

/// Compares one word and records it in `tally`. `disassemble` runs LLVM
/// on the word's 8 bytes.
pub fn check_word(
    version: u32,
    gen: SmemGen,
    index: u64,
    word: u64,
    llvm: LlvmView<'_>,
    tally: &mut Tally,
    max_examples: usize,
) -> Outcome {
    let e = expect(version, gen, word);
    let outcome = compare(gen, &e, llvm);
    tally.compared += 1;
    let example = || {
        let d = smem::decode(gen, word);
        Example {
            index,
            word,
            oracle: verdict_text(&d),
            oracle_text: d.instruction.map(|i| i.to_string()).unwrap_or_default(),
            expected: expectation_text(&e),
            llvm: match llvm {
                LlvmView::Rejected => None,
                LlvmView::Decoded { size: 8, text } => Some(text.to_owned()),
                LlvmView::Decoded { size, text } => Some(format!("{text} ({size} bytes)")),
            },
        }
    };
    match outcome {
        Outcome::Same => {
            tally.same += 1;
            if e == Expectation::NotSmem {
                tally.non_smem += 1;
            }
        }
        Outcome::Known(ds) => {
            tally.known_words += 1;
            for d in ds.iter() {
                tally.add_known(d, 1);
                if !tally.known_examples.iter().any(|(k, _)| *k == d) {
                    tally.known_examples.push((d, example()));
                    tally.known_examples.sort_by_key(|(d, _)| *d);
                }
            }
        }
        Outcome::Fixed(ds) => {
            tally.same += 1;
            tally.fixed_words += 1;
            for d in ds.iter() {
                add_count(&mut tally.fixed, d, 1);
            }
        }
        Outcome::Different => {
            tally.different += 1;
            if tally.examples.len() < max_examples {
                tally.examples.push(example());
            }
        }
    }
    outcome
}

/// Adds `n` to `d`'s count in `counts` (kept sorted).
fn add_count(counts: &mut Vec<(Divergence, u64)>, d: Divergence, n: u64) {
    match counts.iter_mut().find(|(k, _)| *k == d) {
        Some((_, c)) => *c += n,
        None => {
            counts.push((d, n));
            counts.sort();
        }
    }
}

/// Formats a word as llvm-mc's `--disassemble` input: eight bytes,
/// lowest address first.
pub fn word_bytes(word: u64) -> String {
    let mut s = String::with_capacity(40);
    for (k, b) in word.to_le_bytes().iter().enumerate() {
        if k > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{b:#04x}");
    }
    s
}

/// True when `word` is not an SMEM word of `gen` and LLVM decodes it,
/// followed by zero bytes, as an instruction longer than 8 bytes (a 64-bit
/// encoding with a 32-bit literal, such as VOPD or VOP3 with a literal
/// source from GFX10; on GFX12.5 also a 32-bit encoding with a 64-bit
/// literal). Its 8 bytes alone end inside that instruction, so they say
/// nothing about SMEM; where the literal is missing entirely LLVM 22
/// crashes on them (the known crash
/// `llvm.crash.llvm22-input-ends-in-instruction`, SIGSEGV in
/// `llvm::Twine::print`; docs/errata.md SMEM 20), elsewhere it rejects
/// them.
pub fn begins_longer_instruction(
    dis: &mut crate::peers::llvm_disasm::Disassembler,
    gen: SmemGen,
    word: u64,
) -> bool {
    if (word >> 26) & 0x3f == u64::from(gen.encoding()) {
        return false;
    }
    let mut padded = [0u8; 8 + crate::conform::isolate::PAST_END_PAD];
    padded[..8].copy_from_slice(&word.to_le_bytes());
    dis.disassemble(&padded).is_some_and(|(n, _)| n > 8)
}

/// Runs `count` words of the stream for (`seed`, processor) starting at
/// word `start` through `dis` and the oracle. Words for which
/// `skip(index, word)` is true are not given to LLVM (counted in
/// [`Tally::skipped`]), nor are words that begin a longer instruction
/// ([`begins_longer_instruction`], counted in [`Tally::truncated`] too).
/// `before(index, word)` is called before each call into LLVM (a worker
/// records it so that a crash can be traced to its word).
#[allow(clippy::too_many_arguments)]
pub fn run(
    dis: &mut crate::peers::llvm_disasm::Disassembler,
    gen: SmemGen,
    seed: u64,
    start: u64,
    count: u64,
    max_examples: usize,
    skip: &dyn Fn(u64, u64) -> bool,
    mut before: impl FnMut(u64, u64),
) -> Tally {
    let version = dis.version();
    let cpu = dis.cpu().to_owned();
    let mut words = Words::starting_at(gen, &cpu, seed, start);
    let mut tally = Tally::default();
    for index in start..start.saturating_add(count) {
        let word = words.next_word();
        if skip(index, word) {
            tally.skipped += 1;
            continue;
        }
        before(index, word);
        if begins_longer_instruction(dis, gen, word) {
            tally.skipped += 1;
            tally.truncated += 1;
            continue;
        }
        let t = std::time::Instant::now();
        let got = dis.disassemble(&word.to_le_bytes());
        tally.llvm_nanos += t.elapsed().as_nanos() as u64;
        let view = match got {
            None => LlvmView::Rejected,
            Some((size, text)) => LlvmView::Decoded { size, text },
        };
        check_word(version, gen, index, word, view, &mut tally, max_examples);
    }
    tally
}

/// Why [`known_llvm_crash`] words crash LLVM, in one line.
pub const KNOWN_CRASH: &str =
    "known crash: GFX8-GFX10 VOP1/VOP2/VOPC SDWA word with an SDWA selector of 7";

/// True for words LLVM 14 and 19 crash on (SIGSEGV while printing an SDWA
/// selector of 7, a value SDWA leaves undefined): on GFX8 to GFX10, a word
/// in SDWA form (SRC0 = 0xF9) that is
/// - VOP2 (bit 31 clear, bits 31:25 not 0x3E or 0x3F) with DST_SEL,
///   SRC0_SEL or SRC1_SEL (bits 42:40, 50:48, 58:56) = 7;
/// - VOP1 (bits 31:25 = 0x3F) with DST_SEL or SRC0_SEL = 7 (LLVM rejects a
///   SRC1_SEL of 7 instead);
/// - VOPC (bits 31:25 = 0x3E) with SRC0_SEL or SRC1_SEL = 7 (bits 42:40
///   belong to SDST there).
///
/// Checked with `llvm-mc-19` and `llvm-mc-14 --disassemble` on gfx803,
/// gfx900, gfx1010 and gfx1030, e.g. `0xf9 0x06 0x02 0x02 0x02 0x07 0x06
/// 0x06` (VOP2), `0xf9 0x02 0x00 0x7e 0x00 0x07 0x06 0x00` (VOP1), `0xf9
/// 0x00 0x84 0x7c 0x00 0x00 0x07 0x06` (VOPC); reproducers in
/// `corpus/regressions/libllvm_disasm/`. The fields are not checked
/// further, so words LLVM rejects before printing (an opcode the processor
/// lacks) may match too: skipping them loses nothing. These are not SMEM
/// words;
/// in-process runs skip them so that LLVM's crash does not take the
/// process down, and `smem diff` workers report them as known crashes.
pub fn known_llvm_crash(gen: SmemGen, word: u64) -> bool {
    if !matches!(
        gen,
        SmemGen::Gfx8 | SmemGen::Gfx9 | SmemGen::Gfx10_1 | SmemGen::Gfx10_3
    ) || word & (1 << 31) != 0
        || word & 0x1ff != 0xf9
    {
        return false;
    }
    let fields: &[u32] = match (word >> 25) & 0x7f {
        0x3f => &[40, 48],
        0x3e => &[48, 56],
        _ => &[40, 48, 56],
    };
    fields.iter().any(|&b| (word >> b) & 7 == 7)
}
