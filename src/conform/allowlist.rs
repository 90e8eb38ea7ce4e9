//! The reviewed allowlist: known, understood differences between the
//! oracle and its peers (and known peer crashes), each with an id and the
//! reason it is accepted. Matches are counted per entry but not reported
//! as new findings.
//!
//! The default list is `corpus/allowlist.toml`, built into the binary;
//! `--allowlist FILE` replaces it. Format: one `[[known]]` table per entry.
//!
//! ```toml
//! [[known]]
//! id = "llvm.crash.vop2-sdwa-sel7"       # stable, unique
//! reason = "why this is understood and accepted"
//! see = "where the evidence is"          # optional
//! # Matchers: every one given must match.
//! kind = "crash"                        # different | crash | hang
//! comparison = "smem-disasm"            # a comparison id
//! component = "llvm"                    # the peer's component
//! peer = "libllvm"                      # a peer id or family
//! versions = [14, 19]                   # peer major versions
//! generations = ["gfx8", "gfx9"]         # of the processor
//! tag = "divergence:misaligned-tuple"   # covers this tag of a difference
//! message = "text"                      # a substring of the message
//! any_bits = [{ mask = "0x1ff", value = "0xf9" }]   # on the input's
//! not_bits = [{ mask = "0x7c000000", value = "0x7c000000" }] # first 8 bytes
//! ```
//!
//! A difference that carries tags (the SMEM divergences) is known only
//! when every tag is covered by an entry with that `tag`; anything else
//! needs one entry whose matchers all hold (and that has no `tag`).

use hsaco_oracle::targets::Generation;
use serde::{Deserialize, Serialize};

/// The default allowlist (`corpus/allowlist.toml`).
pub const DEFAULT: &str = include_str!("../../corpus/allowlist.toml");

/// A mask/value test on a 64-bit word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bits {
    /// Bits that are tested.
    pub mask: u64,
    /// Their required value.
    pub value: u64,
}

/// One reviewed entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Stable id.
    pub id: String,
    /// Why the difference is understood and accepted.
    pub reason: String,
    /// Where the evidence is (optional).
    pub see: Option<String>,
    /// `different`, `crash` or `hang`.
    pub kind: Option<String>,
    /// Comparison id.
    pub comparison: Option<String>,
    /// Peer component.
    pub component: Option<String>,
    /// Peer id or family.
    pub peer: Option<String>,
    /// Peer major versions.
    pub versions: Option<Vec<u32>>,
    /// Processor generations.
    pub generations: Option<Vec<Generation>>,
    /// A tag of the difference this entry covers.
    pub tag: Option<String>,
    /// A substring of the message.
    pub message: Option<String>,
    /// At least one must match the input's first word (when given).
    pub any_bits: Vec<Bits>,
    /// None may match the input's first word.
    pub not_bits: Vec<Bits>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    known: Vec<RawEntry>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawBits {
    mask: String,
    value: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    id: String,
    reason: String,
    see: Option<String>,
    kind: Option<String>,
    comparison: Option<String>,
    component: Option<String>,
    peer: Option<String>,
    versions: Option<Vec<u32>>,
    generations: Option<Vec<String>>,
    tag: Option<String>,
    message: Option<String>,
    #[serde(default)]
    any_bits: Vec<RawBits>,
    #[serde(default)]
    not_bits: Vec<RawBits>,
}

/// What is being classified.
#[derive(Clone, Debug)]
pub struct Subject<'a> {
    /// `different`, `crash` or `hang`.
    pub kind: &'a str,
    /// Comparison id.
    pub comparison: &'a str,
    /// Peer component.
    pub component: &'a str,
    /// Peer id.
    pub peer: &'a str,
    /// Peer family.
    pub family: &'a str,
    /// Peer major version.
    pub version: Option<u32>,
    /// The processor's generation.
    pub generation: Generation,
    /// The difference's tags.
    pub tags: &'a [String],
    /// The message.
    pub message: &'a str,
    /// The input's first 8 bytes as a little-endian word (bytes inputs).
    pub word: Option<u64>,
}

/// Name of a generation as the allowlist spells it (`gfx9`).
pub fn generation_name(g: Generation) -> &'static str {
    match g {
        Generation::R600 => "r600",
        Generation::Gfx6 => "gfx6",
        Generation::Gfx7 => "gfx7",
        Generation::Gfx8 => "gfx8",
        Generation::Gfx9 => "gfx9",
        Generation::Gfx10 => "gfx10",
        Generation::Gfx11 => "gfx11",
        Generation::Gfx12 => "gfx12",
    }
}

fn parse_generation(s: &str) -> Option<Generation> {
    [
        Generation::R600,
        Generation::Gfx6,
        Generation::Gfx7,
        Generation::Gfx8,
        Generation::Gfx9,
        Generation::Gfx10,
        Generation::Gfx11,
        Generation::Gfx12,
    ]
    .into_iter()
    .find(|g| generation_name(*g) == s)
}

fn parse_u64(s: &str) -> Option<u64> {
    let t = s.replace('_', "");
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    }
}

impl Entry {
    fn matches_fields(&self, s: &Subject<'_>) -> bool {
        let opt = |f: &Option<String>, v: &str| f.as_deref().is_none_or(|f| f == v);
        opt(&self.kind, s.kind)
            && opt(&self.comparison, s.comparison)
            && opt(&self.component, s.component)
            && self
                .peer
                .as_deref()
                .is_none_or(|p| p == s.peer || p == s.family)
            && self
                .versions
                .as_ref()
                .is_none_or(|v| s.version.is_some_and(|x| v.contains(&x)))
            && self
                .generations
                .as_ref()
                .is_none_or(|g| g.contains(&s.generation))
            && self
                .message
                .as_deref()
                .is_none_or(|m| s.message.contains(m))
            && (self.any_bits.is_empty()
                || s.word
                    .is_some_and(|w| self.any_bits.iter().any(|b| w & b.mask == b.value)))
            && (self.not_bits.is_empty()
                || s.word
                    .is_some_and(|w| !self.not_bits.iter().any(|b| w & b.mask == b.value)))
    }
}

/// A parsed allowlist.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Allowlist {
    /// The entries, in file order.
    pub entries: Vec<Entry>,
    /// Where it came from (`built-in corpus/allowlist.toml`, a path, or
    /// `none`).
    pub source: String,
}

impl Allowlist {
    /// The built-in list.
    pub fn builtin() -> Self {
        // The embedded file is checked by a unit test; an error here is a
        // build of a broken tree, reported instead of a panic.
        Self::parse(DEFAULT, "built-in corpus/allowlist.toml").unwrap_or_else(|e| Self {
            entries: Vec::new(),
            source: format!("built-in corpus/allowlist.toml (unreadable: {e})"),
        })
    }

    /// An empty list: every difference is new.
    pub fn empty() -> Self {
        Self {
            entries: Vec::new(),
            source: "none".to_owned(),
        }
    }

    /// Parses a TOML allowlist; `source` names it in messages.
    pub fn parse(text: &str, source: &str) -> Result<Self, String> {
        let raw: RawFile = toml::from_str(text).map_err(|e| format!("{source}: {e}"))?;
        let mut entries: Vec<Entry> = Vec::with_capacity(raw.known.len());
        for r in raw.known {
            let ctx = |m: &str| format!("{source}: entry {:?}: {m}", r.id);
            if r.id.trim().is_empty() {
                return Err(format!("{source}: an entry has an empty id"));
            }
            if entries.iter().any(|e| e.id == r.id) {
                return Err(ctx("duplicate id"));
            }
            if r.reason.trim().is_empty() {
                return Err(ctx("no reason: every entry says why it is accepted"));
            }
            if let Some(k) = &r.kind {
                if !["different", "crash", "hang"].contains(&k.as_str()) {
                    return Err(ctx(&format!(
                        "kind {k:?} is not one of different, crash, hang"
                    )));
                }
            }
            let generations = match &r.generations {
                None => None,
                Some(list) => Some(
                    list.iter()
                        .map(|g| {
                            parse_generation(g).ok_or_else(|| {
                                ctx(&format!("generation {g:?} (expected gfx6 ... gfx12)"))
                            })
                        })
                        .collect::<Result<Vec<_>, _>>()?,
                ),
            };
            let bits = |list: &[RawBits]| -> Result<Vec<Bits>, String> {
                list.iter()
                    .map(|b| {
                        let mask = parse_u64(&b.mask)
                            .ok_or_else(|| ctx(&format!("mask {:?} is not a number", b.mask)))?;
                        let value = parse_u64(&b.value)
                            .ok_or_else(|| ctx(&format!("value {:?} is not a number", b.value)))?;
                        if value & !mask != 0 {
                            return Err(ctx(&format!(
                                "value {value:#x} has bits outside mask {mask:#x}"
                            )));
                        }
                        Ok(Bits { mask, value })
                    })
                    .collect()
            };
            let e = Entry {
                id: r.id.clone(),
                reason: r.reason.trim().to_owned(),
                see: r.see.clone(),
                kind: r.kind.clone(),
                comparison: r.comparison.clone(),
                component: r.component.clone(),
                peer: r.peer.clone(),
                versions: r.versions.clone(),
                generations,
                tag: r.tag.clone(),
                message: r.message.clone(),
                any_bits: bits(&r.any_bits)?,
                not_bits: bits(&r.not_bits)?,
            };
            let has_matcher = e.kind.is_some()
                || e.comparison.is_some()
                || e.peer.is_some()
                || e.tag.is_some()
                || e.message.is_some()
                || !e.any_bits.is_empty();
            if !has_matcher {
                return Err(ctx(
                    "matches everything: give at least a kind, comparison, peer, tag, message or any_bits",
                ));
            }
            entries.push(e);
        }
        Ok(Self {
            entries,
            source: source.to_owned(),
        })
    }

    /// Reads and parses a file.
    pub fn load(path: &std::path::Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// The ids of the entries that make `s` known, or `None` when it is
    /// new.
    pub fn classify(&self, s: &Subject<'_>) -> Option<Vec<&str>> {
        if s.tags.is_empty() {
            return self
                .entries
                .iter()
                .find(|e| e.tag.is_none() && e.matches_fields(s))
                .map(|e| vec![e.id.as_str()]);
        }
        let mut ids = Vec::with_capacity(s.tags.len());
        for t in s.tags {
            let e = self
                .entries
                .iter()
                .find(|e| e.tag.as_deref() == Some(t.as_str()) && e.matches_fields(s))?;
            ids.push(e.id.as_str());
        }
        Some(ids)
    }

    /// The entry with this id.
    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// A digest of the entries, for the resume key (a run resumed with a
    /// different allowlist would classify differently).
    pub fn digest(&self) -> String {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        for e in &self.entries {
            h.update(format!("{e:?}").as_bytes());
        }
        super::hex_bytes::encode(h.finalize().get(..8).unwrap_or(&[]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smem_diff::{self, Divergence};
    use hsaco_gen::seed::Rng as _;
    use hsaco_oracle::smem::SmemGen;

    fn subject<'a>(
        kind: &'a str,
        generation: Generation,
        tags: &'a [String],
        word: Option<u64>,
    ) -> Subject<'a> {
        Subject {
            kind,
            comparison: "smem-disasm",
            component: "llvm",
            peer: "libllvm-19",
            family: "libllvm",
            version: Some(19),
            generation,
            tags,
            message: "",
            word,
        }
    }

    #[test]
    fn builtin_list_parses_and_covers_every_divergence() {
        let a = Allowlist::parse(DEFAULT, "corpus/allowlist.toml").expect("parses");
        for d in Divergence::ALL {
            let tags = vec![format!("divergence:{}", d.name())];
            let mut s = subject("different", Generation::Gfx9, &tags, None);
            let v = d.versions();
            if !v.contains(&19) {
                // Older or newer releases' own bugs are known for those
                // releases only.
                assert_eq!(a.classify(&s), None, "{}", d.name());
                s.version = Some(*v.start());
            }
            let ids = a
                .classify(&s)
                .unwrap_or_else(|| panic!("{} is not in the allowlist", d.name()));
            assert_eq!(ids, vec![format!("smem.{}", d.name())]);
        }
        // A word with an unlisted tag stays new, even next to a listed one.
        let tags = vec![
            "divergence:misaligned-tuple".to_owned(),
            "divergence:unheard-of".to_owned(),
        ];
        assert_eq!(
            a.classify(&subject("different", Generation::Gfx9, &tags, None)),
            None
        );
        // An untagged difference is new.
        assert_eq!(
            a.classify(&subject("different", Generation::Gfx9, &[], None)),
            None
        );
    }

    #[test]
    fn sdwa_crash_entries_are_smem_diffs_rule() {
        let a = Allowlist::builtin();
        let gens = [
            (SmemGen::Gfx8, Generation::Gfx8),
            (SmemGen::Gfx9, Generation::Gfx9),
            (SmemGen::Gfx10_3, Generation::Gfx10),
            (SmemGen::Gfx11, Generation::Gfx11),
        ];
        let mut r = hsaco_gen::seed::rng(7, "allowlist-test", 0);
        let mut hits = 0;
        for k in 0..400_000u32 {
            let mut w = r.next_u64();
            // Bias towards SDWA words so that both outcomes are frequent.
            if k % 2 == 0 {
                w = (w & !0x1ff) | 0xf9;
            }
            for (sg, g) in gens {
                let known = a
                    .classify(&subject("crash", g, &[], Some(w)))
                    .is_some_and(|ids| {
                        ids.len() == 1
                            && [
                                "llvm.crash.vop1-sdwa-sel7",
                                "llvm.crash.vop2-sdwa-sel7",
                                "llvm.crash.vopc-sdwa-sel7",
                            ]
                            .contains(&ids[0])
                    });
                assert_eq!(known, smem_diff::known_llvm_crash(sg, w), "{w:#018x} {g:?}");
                hits += u32::from(known);
            }
        }
        assert!(hits > 1000, "{hits}");
    }

    #[test]
    fn corpus_crash_inputs_are_listed() {
        // The reproducers in corpus/regressions/libllvm_disasm/ are known.
        let a = Allowlist::builtin();
        for (bytes, g, id) in [
            (
                "f9 02 00 7e 00 07 06 00",
                Generation::Gfx9,
                "llvm.crash.vop1-sdwa-sel7",
            ),
            (
                "f9 c0 00 7f 21 bf 12 00",
                Generation::Gfx10,
                "llvm.crash.vop1-sdwa-sel7",
            ),
            (
                "f9 06 06 06 06 07 00 00",
                Generation::Gfx8,
                "llvm.crash.vop2-sdwa-sel7",
            ),
            (
                "f9 06 02 02 02 07 06 06",
                Generation::Gfx9,
                "llvm.crash.vop2-sdwa-sel7",
            ),
            (
                "f9 00 04 7c 00 00 06 07",
                Generation::Gfx10,
                "llvm.crash.vopc-sdwa-sel7",
            ),
            (
                "f9 00 84 7c 00 00 07 06",
                Generation::Gfx8,
                "llvm.crash.vopc-sdwa-sel7",
            ),
        ] {
            let b: Vec<u8> = bytes
                .split(' ')
                .map(|x| u8::from_str_radix(x, 16).expect("hex"))
                .collect();
            let w = u64::from_le_bytes(b.try_into().expect("8 bytes"));
            assert_eq!(
                a.classify(&subject("crash", g, &[], Some(w))),
                Some(vec![id]),
                "{bytes}"
            );
            // Not a known difference, and not on GFX11.
            assert_eq!(a.classify(&subject("different", g, &[], Some(w))), None);
            assert_eq!(
                a.classify(&subject("crash", Generation::Gfx11, &[], Some(w))),
                None
            );
        }
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let e = Allowlist::parse(
            "[[known]]\nid = \"a\"\nreason = \"\"\nkind = \"crash\"\n",
            "f",
        )
        .expect_err("no reason");
        assert!(e.contains("no reason"), "{e}");
        let e = Allowlist::parse("[[known]]\nid = \"a\"\nreason = \"r\"\n", "f")
            .expect_err("no matcher");
        assert!(e.contains("matches everything"), "{e}");
        let e = Allowlist::parse(
            "[[known]]\nid = \"a\"\nreason = \"r\"\nkind = \"crash\"\n[[known]]\nid = \"a\"\nreason = \"r\"\nkind = \"hang\"\n",
            "f",
        )
        .expect_err("duplicate");
        assert!(e.contains("duplicate id"), "{e}");
        let e = Allowlist::parse(
            "[[known]]\nid = \"a\"\nreason = \"r\"\nany_bits = [{ mask = \"0x1\", value = \"0x3\" }]\n",
            "f",
        )
        .expect_err("value outside mask");
        assert!(e.contains("outside mask"), "{e}");
        let e = Allowlist::parse(
            "[[known]]\nid = \"a\"\nreason = \"r\"\nkind = \"oops\"\n",
            "f",
        )
        .expect_err("kind");
        assert!(e.contains("not one of"), "{e}");
        assert!(Allowlist::parse("[[known]]\nid = \"a\"\nreason = \"r\"\nfoo = 1\n", "f").is_err());
        assert_eq!(Allowlist::parse("", "f").map(|a| a.entries.len()), Ok(0));
    }
}
