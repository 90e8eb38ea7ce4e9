//! The one seed scheme of the project.
//!
//! Every generated case, wherever it is made (`gen`, each `conform`
//! comparison, the SMEM word streams), is named by three values:
//!
//! - the **seed** the user gave (`--seed`);
//! - the **domain**: what draws from the stream and how, as a short name
//!   (`gen` for the `gen` command, whose knobs and kinds are in its own
//!   options and manifest; `descriptors.gfx90a` for the valid cases of
//!   `conform`'s `descriptors` comparison on gfx90a; `smem-words.gfx1100`
//!   for SMEM words);
//! - the **index** of the case in that domain (0-based).
//!
//! The bytes of a case are the original ChaCha20 key stream (64-bit nonce,
//! block counter from 0; `rand_chacha`'s `ChaCha20Rng` with `set_stream`)
//! whose 256-bit key is the seed (8 bytes little-endian), then the
//! domain's [`domain_key`] (8 bytes little-endian), then 16 zero bytes,
//! and whose nonce is the index. The `gen` domain's key is 0, so a `gen`
//! case's key is the seed followed by 24 zero bytes.
//!
//! Generators read the stream through `arbitrary::Unstructured` over its
//! first [`FIRST_LEN`] bytes, or 4× as many (up to [`MAX_LEN`]) while a
//! case exhausts them ([`with_bytes`]). A case is a function of
//! (seed, domain, index) and of the domain's options only: never of how
//! many cases are asked for, the machine, threads or order.

pub use rand_chacha::ChaCha20Rng;
pub use rand_core::Rng;
use rand_core::SeedableRng;

/// The domain of the `gen` command's cases (its [`domain_key`] is 0).
pub const GEN: &str = "gen";

/// First number of stream bytes offered to a generator.
pub const FIRST_LEN: usize = 4096;
/// Largest number of stream bytes offered.
pub const MAX_LEN: usize = 4 << 20;

/// One-line description of the scheme, for `run.json`.
pub const DESCRIPTION: &str =
    "chacha20(key = seed as u64 LE ++ domain key as u64 LE (0 for gen) ++ 16 zero bytes, \
     nonce = index as u64 LE, counter from 0); 4096 bytes, x4 while exhausted, at most 4 MiB";

/// FNV-1a (64-bit) of a name: the one name hash of the project, for
/// domain keys and anything else that needs a stable hash of a name.
pub fn name_hash(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The second 8 bytes of the key of `domain`: 0 for [`GEN`] (so `gen`'s
/// streams keep the key they have always had), else [`name_hash`].
pub fn domain_key(domain: &str) -> u64 {
    if domain == GEN {
        0
    } else {
        name_hash(domain)
    }
}

/// Fills `buf` with the first `buf.len()` bytes of case `index`'s stream
/// in `domain` under `seed`.
pub fn fill(seed: u64, domain: &str, index: u64, buf: &mut [u8]) {
    rng(seed, domain, index).fill_bytes(buf);
}

/// The generator of case `index`'s stream in `domain` under `seed`, for
/// callers that draw numbers rather than bytes (its bytes are those of
/// [`fill`]; `set_word_pos` seeks in 32-bit words).
pub fn rng(seed: u64, domain: &str, index: u64) -> ChaCha20Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&domain_key(domain).to_le_bytes());
    let mut rng = ChaCha20Rng::from_seed(key);
    rng.set_stream(index);
    rng
}

/// The first `len` bytes of case `index`'s stream in `domain` under
/// `seed` (tests, benchmarks and fuzz seeds that want a fixed length).
pub fn bytes(seed: u64, domain: &str, index: u64, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    fill(seed, domain, index, &mut out);
    out
}

/// Runs `f` over the shortest prefix of case `index`'s stream
/// ([`FIRST_LEN`] bytes times a power of 4, up to [`MAX_LEN`]) that `f`
/// does not exhaust; `buf` is reused between calls.
pub fn with_bytes<T>(
    seed: u64,
    domain: &str,
    index: u64,
    buf: &mut Vec<u8>,
    mut f: impl FnMut(&mut arbitrary::Unstructured<'_>) -> T,
) -> T {
    let mut len = FIRST_LEN;
    loop {
        buf.resize(len, 0);
        fill(seed, domain, index, buf);
        let mut u = arbitrary::Unstructured::new(buf);
        let r = f(&mut u);
        if !u.is_empty() || len >= MAX_LEN {
            return r;
        }
        len *= 4;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use hsaco_oracle::hex::encode as hex;

    /// The stream is the original ChaCha20 key stream (64-bit nonce): the
    /// first vector is the published all-zero one; the others come from a
    /// separate plain implementation of the cipher (Python, from the
    /// specification), not from rand_chacha.
    #[test]
    fn gen_stream_is_chacha20_with_seed_key_and_index_nonce() {
        let mut b = [0u8; 32];
        fill(0, GEN, 0, &mut b);
        assert_eq!(
            hex(&b),
            "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
        );
        fill(42, GEN, 7, &mut b);
        assert_eq!(
            hex(&b),
            "e7873e338ee513b573ccbf8e763d732df8fafd5b2d8ddebf076c10aea8f9b8c5"
        );
        let mut b = [0u8; 80];
        fill(u64::MAX, GEN, 123_456, &mut b);
        assert_eq!(
            hex(&b),
            "7f673af25c1ef1d46fa83f23becaa0ab6ba21b23091c1a4a169c4219ff54f038\
             681658b7b87262ff69842c23f295b73c5b113265d0183c967f0e156b3697288f\
             f0fd0098d1463c0a568693763bd0836c"
        );
    }

    /// A domain other than `gen` puts its FNV-1a in the key: the vector
    /// comes from the same separate Python implementation, keyed with
    /// seed 1 ++ fnv1a("descriptors.gfx90a") ++ zeros, nonce 5.
    #[test]
    fn other_domains_put_their_hash_in_the_key() {
        assert_eq!(name_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(name_hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(domain_key(GEN), 0);
        let mut b = [0u8; 32];
        fill(1, "descriptors.gfx90a", 5, &mut b);
        assert_eq!(
            hex(&b),
            "8f8c5c6af68a084d7785ce67077c5b8e6d31332a11a77dd830deb44a236164c1"
        );
        let mut g = [0u8; 32];
        fill(1, GEN, 5, &mut g);
        assert_ne!(b, g);
    }

    /// Numbers drawn from [`rng`] are the stream's bytes, little-endian,
    /// and seeking by words lands where drawing would.
    #[test]
    fn rng_draws_the_stream_and_seeks_in_words() {
        let mut b = [0u8; 48];
        fill(5, "words.gfx900", 0, &mut b);
        let mut r = rng(5, "words.gfx900", 0);
        for k in 0..6 {
            let want = u64::from_le_bytes(b[k * 8..k * 8 + 8].try_into().expect("8 bytes"));
            assert_eq!(r.next_u64(), want);
        }
        let mut r = rng(5, "words.gfx900", 0);
        r.set_word_pos(6);
        let want = u64::from_le_bytes(b[24..32].try_into().expect("8 bytes"));
        assert_eq!(r.next_u64(), want);
    }

    /// A case that exhausts the first 4096 bytes is built again from a
    /// longer prefix of the same stream.
    #[test]
    fn with_bytes_grows_the_prefix() {
        let mut buf = Vec::new();
        let mut lens = Vec::new();
        let got = with_bytes(9, GEN, 3, &mut buf, |u| {
            lens.push(u.len());
            let mut v = vec![0u8; 5000];
            u.fill_buffer(&mut v).expect("fills");
            v
        });
        assert_eq!(lens, [4096, 16384]);
        let mut want = vec![0u8; 5000];
        fill(9, GEN, 3, &mut want);
        assert_eq!(got, want);
    }
}
