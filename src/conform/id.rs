//! [`ComparisonId`]: the one name of every comparison (`--kinds`,
//! reports, findings, the allowlist).

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

/// What is compared: the id of every comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ComparisonId {
    /// SMEM words decoded by a disassembler peer against the oracle.
    SmemDisasm,
    /// SMEM instructions assembled by `llvm-mc` against the oracle.
    SmemEncode,
    /// Instruction words of any encoding, peer against reference peer
    /// (`diff words`).
    Words,
    /// Generated assembler text rebuilt by `llvm-mc` + `ld.lld`.
    Rebuild,
    /// Kernel descriptors as `llvm-objdump` decodes (and `llvm-mc`
    /// reassembles) them.
    Descriptors,
    /// Metadata notes as `llvm-readobj` prints them.
    Metadata,
    /// comgr's metadata tree, ISA name and symbols.
    ComgrMetadata,
    /// Which peers read invalid objects without complaint.
    Mutants,
}

impl ComparisonId {
    /// Every comparison `--kinds` takes, in the order a run makes them.
    pub const KINDS: [ComparisonId; 7] = [
        Self::SmemDisasm,
        Self::SmemEncode,
        Self::Rebuild,
        Self::Descriptors,
        Self::Metadata,
        Self::ComgrMetadata,
        Self::Mutants,
    ];

    /// Every comparison, `words` included.
    pub const ALL: [ComparisonId; 8] = [
        Self::SmemDisasm,
        Self::SmemEncode,
        Self::Words,
        Self::Rebuild,
        Self::Descriptors,
        Self::Metadata,
        Self::ComgrMetadata,
        Self::Mutants,
    ];

    /// The id's text (`--kinds`, reports, findings, the allowlist).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::SmemDisasm => "smem-disasm",
            Self::SmemEncode => "smem-encode",
            Self::Words => "words",
            Self::Rebuild => "rebuild",
            Self::Descriptors => "descriptors",
            Self::Metadata => "metadata",
            Self::ComgrMetadata => "comgr-metadata",
            Self::Mutants => "mutants",
        }
    }

    /// One line for people.
    pub fn description(self) -> &'static str {
        match self {
            Self::SmemDisasm => "SMEM words: the oracle's decode against the peer's disassembly (invalid words must be rejected)",
            Self::SmemEncode => "SMEM instructions: the oracle's encoding against the peer's assembler",
            Self::Words => "instruction words of any encoding: each peer's disassembly against the reference peer's",
            Self::Rebuild => "generated assembler text rebuilt by llvm-mc + ld.lld: same loaded image and oracle verdict",
            Self::Descriptors => "kernel descriptors decoded by llvm-objdump against the oracle's decode",
            Self::Metadata => "metadata notes printed by llvm-readobj --notes against the oracle's metadata model",
            Self::ComgrMetadata => "comgr's metadata tree, ISA name and symbols against the oracle",
            Self::Mutants => "single-rule mutants: which peers read an invalid object without complaint (informational)",
        }
    }

    /// Why the comparison cannot run on given objects (`conform INPUT...`),
    /// or `None` when it can.
    pub fn not_for_given(self) -> Option<&'static str> {
        match self {
            Self::Rebuild => Some("a rebuild assembles the generator's assembler text, which a given object does not come with"),
            Self::Mutants => Some("mutants are made from the generator's model of an object"),
            Self::SmemDisasm | Self::SmemEncode => Some("SMEM comparisons draw instruction words, not code objects (`diff words` takes words of your own)"),
            Self::Words | Self::Descriptors | Self::Metadata | Self::ComgrMetadata => None,
        }
    }
}

impl fmt::Display for ComparisonId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ComparisonId {
    type Err = String;

    /// Parses [`ComparisonId::as_str`]; the error names the known ids.
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| {
                let known: Vec<&str> = Self::ALL.iter().map(|c| c.as_str()).collect();
                format!("unknown comparison {s:?} (known: {})", known.join(", "))
            })
    }
}

impl Serialize for ComparisonId {
    /// As its text, so that reports show the id as they always did.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_read_back_and_serialise_as_their_text() {
        for c in ComparisonId::ALL {
            assert_eq!(c.as_str().parse::<ComparisonId>(), Ok(c));
            assert_eq!(
                serde_json::to_value(c).ok(),
                Some(serde_json::json!(c.as_str()))
            );
        }
        assert!("nope"
            .parse::<ComparisonId>()
            .is_err_and(|e| e.contains("smem-disasm")));
        assert!(!ComparisonId::KINDS.contains(&ComparisonId::Words));
    }
}
