//! A fast hash for the per-object name maps of `check`.

/// A folded-multiply hash over 16-byte blocks (in the style of wyhash),
/// with a final mix, for the per-object name maps (here, in `check` and in
/// `symbols`): the keys are names from one object, so hash flooding is no
/// concern, and SipHash's cost showed in profiles. The multiplies of
/// different blocks do not depend on each other, so long mangled names
/// hash at several bytes per cycle.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FastHash;

/// The hasher state of [`FastHash`].
pub(crate) struct FastHasher(u64);

impl std::hash::BuildHasher for FastHash {
    type Hasher = FastHasher;
    fn build_hasher(&self) -> FastHasher {
        FastHasher(0)
    }
}

const K1: u64 = 0xa076_1d64_78bd_642f;
const K2: u64 = 0xe703_7ed1_a0b4_28db;

/// The 128-bit product of `a` and `b`, its halves xored.
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = u128::from(a).wrapping_mul(u128::from(b));
    (p as u64) ^ ((p >> 64) as u64)
}

/// The little-endian value of an 8-byte slice (0 for any other length).
pub(crate) fn le64(b: &[u8]) -> u64 {
    <[u8; 8]>::try_from(b).map_or(0, u64::from_le_bytes)
}

impl FastHasher {
    fn add(&mut self, a: u64, b: u64) {
        // Only the rotate and xor are serial; the multiply is per block.
        self.0 = self.0.rotate_left(23) ^ fold_mul(a ^ K1, b ^ K2);
    }
}

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        // Spread every state bit over both ends (the hash table uses the
        // low bits for the bucket and the top seven as a tag).
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^ (x >> 33)
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut blocks = bytes.chunks_exact(16);
        for b in &mut blocks {
            let (lo, hi) = b.split_at(8);
            self.add(le64(lo), le64(hi));
        }
        let rest = blocks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 16];
            for (d, s) in last.iter_mut().zip(rest) {
                *d = *s;
            }
            let (lo, hi) = last.split_at(8);
            // The length keeps zero-padded tails apart from real zeros.
            self.add(le64(lo), le64(hi) ^ (rest.len() as u64) << 56);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i), 0);
    }
}
