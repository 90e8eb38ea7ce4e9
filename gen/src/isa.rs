//! Random instruction words for the instruction layer's differential
//! runs: every family the layer models, deterministically from a seed.
//!
//! A word is random where randomness finds bugs and biased where plain
//! randomness would almost never look: one source field in four holds a
//! code of interest (the literal codes, `m0`/`null`, `vcc`, `exec`,
//! inline constants, the read-only sources), and the literal that
//! follows the word is, half the time, a value an inline constant could
//! also encode, a float pattern or a 32-bit boundary (LLVM prints those
//! differently, and only they show it).
//!
//! The stream of processor `cpu` is the seed scheme's domain
//! `isa-words.CPU` ([`crate::seed`]): word `i` of a seed is always the
//! same, whatever else is asked.

use hsaco_oracle::isa::encoding::{self, Format};
use hsaco_oracle::isa::{Field, IsaGen};
use hsaco_oracle::targets::Target;

use crate::seed::{self, ChaCha20Rng, Rng as _};

/// Bytes of one generated word: the instruction's own (4 or 8), then
/// the 8 bytes a literal would take, then zero padding.
pub const WORD_BYTES: usize = 16;

/// Source codes of interest: the literal codes, `m0`/`null` (124, 125),
/// `vcc_lo`, `exec_lo`, the trap temporaries' ends, inline integers
/// 0, 64, -1, -16, inline floats, and the read-only sources.
const SOURCE_CODES: &[u8] = &[
    255, 255, 255, 254, 254, 124, 125, 106, 107, 126, 127, 102, 104, 108, 122, 123, 128, 192, 193,
    208, 240, 242, 248, 230, 231, 235, 236, 237, 238, 239, 251, 252, 253,
];

/// Destination codes of interest: the special registers and both ends
/// of the SGPRs and trap temporaries.
const DEST_CODES: &[u8] = &[
    0, 101, 102, 104, 105, 106, 108, 110, 112, 122, 124, 125, 126,
];

/// Low dwords of interest for a literal: values an inline constant could
/// encode (as a 32-bit integer, float, or 16-bit float), their
/// neighbours, and the 32-bit boundaries.
const LITERAL_LO: &[u32] = &[
    0,
    1,
    0x12,
    0x40,
    0x41,
    0xffff_fff0,
    0xffff_ffef,
    0xffff_ffc0,
    0x3f00_0000,
    0xbf80_0000,
    0x3e22_f983,
    0x3800,
    0x3118,
    0xffff_3800,
    0x0001_0012,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x6dc9_c882,
];

/// High dwords of interest (a 64-bit literal): zero, one, all ones, and
/// the high halves of the 64-bit inline floats 1.0 and 1/(2π).
const LITERAL_HI: &[u32] = &[0, 0, 1, 0xffff_ffff, 0x3ff0_0000, 0x3fc4_5f30, 0x8000_0000];

/// The random words of one processor.
pub struct Words {
    rng: ChaCha20Rng,
    formats: &'static [Format],
}

impl Words {
    /// The seed domain of `t`'s words.
    pub fn domain(t: &Target) -> String {
        format!("isa-words.{}", t.name)
    }

    /// The stream for `seed` on `t`, or `None` for a processor the
    /// instruction layer does not decode.
    pub fn new(t: &Target, seed: u64) -> Option<Self> {
        let gen = IsaGen::of(t)?;
        Some(Self {
            rng: seed::rng(seed, &Self::domain(t), 0),
            formats: encoding::formats(gen),
        })
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        let i = (self.rng.next_u32() as usize) % from.len().max(1);
        from[i]
    }

    /// The next word: a format chosen uniformly, its identifying bits
    /// set, every other bit random, fields biased as the module says.
    pub fn next_word(&mut self) -> [u8; WORD_BYTES] {
        let formats = self.formats;
        let f = &formats[(self.rng.next_u32() as usize) % formats.len().max(1)];
        let mut w = self.rng.next_u64();
        w = (w & !u64::from(f.mask)) | u64::from(f.value);
        if f.size == 4 {
            w &= 0xffff_ffff;
        }
        for (field, bits) in f.fields {
            if !self.rng.next_u32().is_multiple_of(4) {
                continue;
            }
            let v = match field {
                Field::Ssrc0 | Field::Ssrc1 => self.pick(SOURCE_CODES),
                Field::Sdst => self.pick(DEST_CODES),
                Field::Simm16 | Field::Literal => continue,
            };
            w = bits.set(w, u64::from(v));
        }
        let lit: u64 = if self.rng.next_u32().is_multiple_of(2) {
            u64::from(self.pick(LITERAL_LO)) | u64::from(self.pick(LITERAL_HI)) << 32
        } else {
            self.rng.next_u64()
        };
        let mut out = [0u8; WORD_BYTES];
        let size = usize::from(f.size).min(8);
        out[..size].copy_from_slice(&w.to_le_bytes()[..size]);
        out[size..size + 8].copy_from_slice(&lit.to_le_bytes());
        out
    }
}

impl Iterator for Words {
    type Item = [u8; WORD_BYTES];

    fn next(&mut self) -> Option<Self::Item> {
        Some(self.next_word())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsaco_oracle::targets::by_name;

    #[test]
    fn words_are_a_function_of_seed_and_processor() {
        let t = by_name("gfx900").expect("gfx900");
        let a: Vec<_> = Words::new(t, 7).expect("decoded").take(50).collect();
        let b: Vec<_> = Words::new(t, 7).expect("decoded").take(50).collect();
        let c: Vec<_> = Words::new(t, 8).expect("decoded").take(50).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn every_word_is_of_a_modelled_family_and_every_family_comes() {
        let t = by_name("gfx1100").expect("gfx1100");
        let gen = IsaGen::of(t).expect("decoded");
        let mut seen = std::collections::BTreeSet::new();
        for w in Words::new(t, 1).expect("decoded").take(2000) {
            let d = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            let f = encoding::identify(gen, d).expect("a modelled format");
            seen.insert(f.family.name());
        }
        assert_eq!(seen.len(), encoding::formats(gen).len(), "{seen:?}");
    }
}
