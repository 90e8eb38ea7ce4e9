//! MessagePack for metadata documents, written the way LLVM's
//! `msgpack::Writer` writes them: the smallest form for every value
//! (positive fixint, uint8/16/32/64; fixstr, str8, str16, str32; fixarray,
//! array16, array32; fixmap, map16, map32). The oracle's encoder follows
//! the same rules; the tests check that re-encoding what the oracle
//! decodes gives these bytes back.

use crate::metadata::{ArgSpec, Doc, Entries, KernelMeta};

fn header(out: &mut Vec<u8>, n: usize, fix: u8, fix_max: usize, b16: u8, b32: u8) {
    if n <= fix_max {
        out.push(fix | n as u8);
    } else if let Ok(n) = u16::try_from(n) {
        out.push(b16);
        out.extend_from_slice(&n.to_be_bytes());
    } else {
        out.push(b32);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
}

fn string(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    match b.len() {
        n @ 0..=31 => out.push(0xa0 | n as u8),
        n @ 32..=255 => out.extend_from_slice(&[0xd9, n as u8]),
        n => header(out, n, 0, 0, 0xda, 0xdb),
    }
    out.extend_from_slice(b);
}

fn uint(out: &mut Vec<u8>, v: u64) {
    if v < 0x80 {
        out.push(v as u8);
    } else if let Ok(v) = u8::try_from(v) {
        out.extend_from_slice(&[0xcc, v]);
    } else if let Ok(v) = u16::try_from(v) {
        out.push(0xcd);
        out.extend_from_slice(&v.to_be_bytes());
    } else if let Ok(v) = u32::try_from(v) {
        out.push(0xce);
        out.extend_from_slice(&v.to_be_bytes());
    } else {
        out.push(0xcf);
        out.extend_from_slice(&v.to_be_bytes());
    }
}

/// Appends the encoding of `d` to `out`.
pub fn encode_into(d: &Doc<'_>, out: &mut Vec<u8>) {
    match d {
        Doc::Map(m) => {
            header(out, m.len(), 0x80, 15, 0xde, 0xdf);
            for (k, v) in m {
                string(out, k);
                encode_into(v, out);
            }
        }
        Doc::Array(a) => {
            header(out, a.len(), 0x90, 15, 0xdc, 0xdd);
            for v in a {
                encode_into(v, out);
            }
        }
        Doc::Str(s) => string(out, s),
        Doc::Owned(s) => string(out, s),
        Doc::UInt(v) => uint(out, *v),
        Doc::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
    }
}

/// The encoding of `d`.
pub fn encode(d: &Doc<'_>) -> Vec<u8> {
    // Metadata of a few kernels takes 1-4 KiB; one allocation covers most.
    let mut out = Vec::with_capacity(4096);
    encode_into(d, &mut out);
    out
}

/// Writes map entries straight into the output, counting them.
struct Direct<'o> {
    out: &'o mut Vec<u8>,
    n: usize,
}

impl<'a> Entries<'a> for Direct<'_> {
    fn uint(&mut self, k: &'static str, v: u64) {
        string(self.out, k);
        uint(self.out, v);
        self.n += 1;
    }
    fn str(&mut self, k: &'static str, v: &'a str) {
        string(self.out, k);
        string(self.out, v);
        self.n += 1;
    }
    fn bool(&mut self, k: &'static str, v: bool) {
        string(self.out, k);
        self.out.push(if v { 0xc3 } else { 0xc2 });
        self.n += 1;
    }
    fn uints(&mut self, k: &'static str, v: &[u32]) {
        string(self.out, k);
        header(self.out, v.len(), 0x90, 15, 0xdc, 0xdd);
        for &x in v {
            uint(self.out, x.into());
        }
        self.n += 1;
    }
    fn args(&mut self, k: &'static str, v: &'a [ArgSpec]) {
        string(self.out, k);
        header(self.out, v.len(), 0x90, 15, 0xdc, 0xdd);
        for a in v {
            map(self.out, |e| a.entries(e));
        }
        self.n += 1;
    }
}

/// Writes a map whose entries `f` writes: the header's size depends on
/// the count, known only afterwards, so a one-byte fixmap header is
/// reserved and widened in place when the map has more than 15 entries.
fn map(out: &mut Vec<u8>, f: impl FnOnce(&mut Direct<'_>)) {
    let start = out.len();
    out.push(0x80);
    let mut d = Direct { out, n: 0 };
    f(&mut d);
    let n = d.n;
    let mut h = Vec::with_capacity(5);
    header(&mut h, n, 0x80, 15, 0xde, 0xdf);
    out.splice(start..start + 1, h);
}

/// The metadata document of [`crate::metadata::root_doc`] with these
/// arguments, encoded without building it (the same bytes as
/// `encode(&root_doc(..))`; a test checks).
pub fn encode_metadata<'a>(
    version: [u32; 2],
    target: Option<&str>,
    printf: &[String],
    kernels: impl ExactSizeIterator<Item = &'a KernelMeta>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(4096);
    let n = 2 + usize::from(!printf.is_empty()) + usize::from(target.is_some());
    header(&mut out, n, 0x80, 15, 0xde, 0xdf);
    string(&mut out, "amdhsa.kernels");
    header(&mut out, kernels.len(), 0x90, 15, 0xdc, 0xdd);
    for k in kernels {
        map(&mut out, |e| k.entries(e));
    }
    if !printf.is_empty() {
        string(&mut out, "amdhsa.printf");
        header(&mut out, printf.len(), 0x90, 15, 0xdc, 0xdd);
        for p in printf {
            string(&mut out, p);
        }
    }
    if let Some(t) = target {
        string(&mut out, "amdhsa.target");
        string(&mut out, t);
    }
    string(&mut out, "amdhsa.version");
    header(&mut out, 2, 0x90, 15, 0xdc, 0xdd);
    for x in version {
        uint(&mut out, x.into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsaco_oracle::msgpack;
    use proptest::prelude::*;

    fn arb_doc() -> impl Strategy<Value = Doc<'static>> {
        const KEYS: &[&str] = &[".a", ".b", ".name", "amdhsa.kernels", ".x"];
        const STRS: &[&str] = &[
            "",
            "a",
            "0123456789012345678901234567890",
            "01234567890123456789012345678901",
        ];
        let leaf = prop_oneof![
            any::<u64>().prop_map(Doc::UInt),
            (0u64..70_000).prop_map(Doc::UInt),
            any::<bool>().prop_map(Doc::Bool),
            proptest::sample::select(STRS).prop_map(Doc::Str),
        ];
        leaf.prop_recursive(3, 64, 20, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..20).prop_map(Doc::Array),
                proptest::collection::vec((proptest::sample::select(KEYS), inner), 0..18)
                    .prop_map(Doc::Map),
            ]
        })
    }

    fn to_value(d: &Doc<'_>) -> msgpack::Value {
        match d {
            Doc::Map(m) => msgpack::Value::Map(
                m.iter()
                    .map(|(k, v)| (msgpack::Value::str(k), to_value(v)))
                    .collect(),
            ),
            Doc::Array(a) => msgpack::Value::Array(a.iter().map(to_value).collect()),
            Doc::Str(s) => msgpack::Value::str(s),
            Doc::Owned(s) => msgpack::Value::str(s),
            Doc::UInt(v) => msgpack::Value::UInt(*v),
            Doc::Bool(b) => msgpack::Value::Bool(*b),
        }
    }

    proptest! {
        #[test]
        fn same_bytes_as_the_oracle_encoder(d in arb_doc()) {
            let ours = encode(&d);
            prop_assert_eq!(&ours, &msgpack::encode(&to_value(&d)));
            let (v, used) = msgpack::decode(&ours).expect("decodes");
            prop_assert_eq!(used, ours.len());
            prop_assert_eq!(v, to_value(&d));
        }
    }

    /// The direct writer and the tree encoder agree on generated objects
    /// of every shape (printf, target, kernels with more than 15 keys,
    /// arguments with every key).
    #[test]
    fn direct_writer_matches_the_tree() {
        use crate::{Config, Generator};
        use arbitrary::Unstructured;
        let no_printf = Config {
            printf: false,
            ..Config::default()
        };
        for cfg in [Config::default(), no_printf] {
            let g = Generator::new(&cfg);
            let mut buf = vec![0u8; 8192];
            for seed in 0..3000u64 {
                let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                for b in buf.iter_mut() {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    *b = x as u8;
                }
                let Ok(co) = g.code_object(&mut Unstructured::new(&buf)) else {
                    continue;
                };
                // Code object V2 metadata is YAML (emit::v2).
                if co.target.cov < hsaco_oracle::targets::CodeObjectVersion::V3 {
                    continue;
                }
                assert_eq!(
                    crate::emit::metadata_bytes(&co),
                    encode(&co.metadata_doc()),
                    "seed {seed}"
                );
            }
        }
    }

    #[test]
    fn long_strings_use_str16() {
        let s = "x".repeat(300);
        let b = encode(&Doc::Str(&s));
        assert_eq!(&b[..3], &[0xda, 0x01, 0x2c]);
        let b = encode(&Doc::Str(&s[..40]));
        assert_eq!(&b[..2], &[0xd9, 40]);
    }
}
