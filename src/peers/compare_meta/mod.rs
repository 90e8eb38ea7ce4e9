//! comgr against the oracle: the metadata tree key by key, the ISA name
//! against the target of `e_flags`, and the symbol list against the
//! symbol table. A pure function of comgr's answers ([`ComgrView`]) and the
//! object's bytes: no library is called here.
//!
//! Every difference is either a finding or *known*: explained by one entry
//! of [`KNOWN`], a comgr (or LLVM) behaviour that was checked and is named
//! with its reason. Nothing is skipped silently: a known difference is
//! still listed, with the entry that explains it.
//!
//! For MessagePack metadata (code object V3 and later) the explanation is
//! checked, not assumed: [`llvm_model`] reads the note the way LLVM's
//! `msgpack::Document` reader inside comgr does (LLVM 15 for Debian's
//! comgr 2.4; its quirks are the [`KNOWN`] entries named `metadata.*`),
//! and a difference between comgr and the oracle is known only when comgr
//! agrees exactly with that model and the model records which quirk made
//! it depart from the oracle's reading.

mod metadata;
mod model;
mod symbols;
#[cfg(test)]
mod tests;
mod v2;

pub use metadata::tree_differences;
pub use model::{expected_scalar, format_float, llvm_model, oracle_tree, Model};
pub use symbols::{comgr_symbol_type, expected_symbols};
pub use v2::yaml_scalar;

use std::fmt;

use hsaco_oracle::check::{self, Detail};
use hsaco_oracle::elf::Elf;
use hsaco_oracle::rules::Sink;
use hsaco_oracle::targets::{CodeObjectVersion, TRIPLE_PREFIX};

use super::comgr::{ComgrError, ComgrView, DataKind};
use metadata::compare_metadata;
use symbols::compare_symbols;

/// A difference between comgr and the oracle that is understood: the
/// behaviour was checked and is explained.
#[derive(Debug, PartialEq, Eq)]
pub struct Known {
    /// Stable identifier (`aspect.what`).
    pub id: &'static str,
    /// What comgr does and why that differs from the oracle.
    pub reason: &'static str,
}

/// Declares each [`Known`] entry as a `pub static` and [`KNOWN`], the list of
/// them all in declaration order, so an entry cannot be left out of the list.
macro_rules! known {
    ($($(#[$doc:meta])* $name:ident = $id:literal, $reason:literal;)*) => {
        $($(#[$doc])* pub static $name: Known = Known { id: $id, reason: $reason };)*
        /// Every known difference.
        pub static KNOWN: [&Known; [$(stringify!($name)),*].len()] = [$(&$name),*];
    };
}

known! {
    /// comgr 2.4 names no code object V5/V6 object, and no processor missing
    /// from its `EF_AMDGPU_MACH` table ([`COMGR_2_4_MACHS`]).
    ISA_UNSUPPORTED = "isa_name.unsupported",
        "comgr 2.4 (ROCm 5.2) names only code objects V2-V4 (EI_ABIVERSION 0-2) whose EF_AMDGPU_MACH is in its table (gfx600-gfx1036, gfx90a, gfx90c: no gfx940+, gfx11, gfx12 or generic targets); amd_comgr_get_data_isa_name returns INVALID_ARGUMENT for the rest";
    /// comgr names code object V2 objects from the ISA version note.
    ISA_V2_NOTE = "isa_name.v2_note",
        "comgr names a code object V2 from its NT_AMD_HSA_ISA_VERSION note (major.minor.stepping, which cannot say sramecc) and writes sramecc- for processors that have the feature; the oracle takes the target from e_flags, where LLVM 14 sets EF_AMDGPU_FEATURE_SRAMECC";
    /// comgr types V2 YAML scalars as LLVM's YAML reader does.
    MD_V2_YAML_SCALARS = "metadata.v2_yaml_scalars",
        "comgr reads code object V2 YAML metadata with LLVM's msgpack::Document::fromYAML, which gives every scalar (quoted or not) the first type it parses as and prints it back: the YAML 1.1 boolean words (y, n, yes, no, on, off in any of their spellings) become true or false, so an argument named n reads as false; hex, octal and binary integers print in decimal; floats print as %e";
    /// LLVM's reader turns an array or map used as a map key into an empty
    /// container and reads its elements as the map's next entries.
    MD_CONTAINER_KEY = "metadata.container_key",
        "LLVM's msgpack::Document reader (readFromBlob) stores an array or map used as a map key as an empty container and reads its elements as the following keys and values, so the tree comgr returns departs from the wire structure from there on (two such keys of the same kind in one map crash comgr: a known crash)";
    /// LLVM's reader fills values missing at the end of the note with 0.
    MD_TRUNCATED_ZERO = "metadata.truncated_zero_fill",
        "LLVM's msgpack::Document reader does not notice the end of the input between values (readFromBlob ignores msgpack::Reader's 'no more data' result): every value missing from a note that ends on a value boundary reads as the integer 0; the oracle reports metadata.decode";
    /// LLVM 15's reader has no MessagePack bin support.
    MD_BINARY = "metadata.binary",
        "the LLVM 15 msgpack::Document reader under comgr 2.4 rejects MessagePack bin values (LLVM 19 reads them); the oracle reads them without an error";
    /// The oracle only decodes [`msgpack::MAX_DEPTH`] levels.
    MD_DEPTH = "metadata.depth",
        "the oracle decodes at most 64 levels of nesting (metadata.decode beyond); LLVM's reader has no limit";
}

/// `EF_AMDGPU_MACH` values comgr 2.4 names (every other value gets
/// `INVALID_ARGUMENT`), found by asking it for every value 0-255 with
/// `EI_ABIVERSION` 1 and 2 (`tests/comgr.rs` checks the table still holds).
pub const COMGR_2_4_MACHS: &[u8] = &[
    0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f, 0x30,
    0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f, 0x42,
    0x45,
];

/// The note type PAL metadata uses (owner `AMD` or `AMDGPU`), which comgr
/// reads as MessagePack metadata too.
const PAL_METADATA_NOTE: u32 = 13;

/// Rules whose error means "LLVM's reader cannot read this note": when the
/// oracle reports one, comgr refusing the metadata is agreement.
pub const REJECT_RULES: &[&str] = &[
    "metadata.decode",
    "metadata.ext_type",
    "metadata.duplicate_key",
    "metadata.root.not_map",
    "note.metadata.missing",
];

/// What is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Aspect {
    /// `amd_comgr_get_data_isa_name` against the target of `e_flags`.
    IsaName,
    /// The metadata tree against the oracle's decoded note.
    Metadata,
    /// The symbol list against the symbol table.
    Symbols,
}

impl Aspect {
    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Aspect::IsaName => "isa_name",
            Aspect::Metadata => "metadata",
            Aspect::Symbols => "symbols",
        }
    }
}

impl fmt::Display for Aspect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One difference: where, what each side says, and whether it is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// What was compared.
    pub aspect: Aspect,
    /// Where: `/key/index/...` in the metadata, `[index]` or a symbol name.
    pub path: String,
    /// comgr's value.
    pub comgr: String,
    /// The oracle's value.
    pub oracle: String,
    /// The known difference that explains it; `None` for a finding.
    pub known: Option<&'static Known>,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: comgr {} / oracle {}",
            self.aspect, self.path, self.comgr, self.oracle
        )?;
        match self.known {
            Some(k) => write!(f, " [known: {}]", k.id),
            None => write!(f, " [FINDING]"),
        }
    }
}

/// The verdict on one aspect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// No difference (also: both refuse, for the same reason).
    Same,
    /// Differences, every one explained by a [`Known`] entry.
    Known,
    /// At least one unexplained difference.
    Different,
    /// Cannot be compared, and why.
    NotComparable(String),
}

/// The comparison of one code object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// ISA name verdict.
    pub isa_name: Outcome,
    /// Metadata verdict.
    pub metadata: Outcome,
    /// Symbols verdict.
    pub symbols: Outcome,
    /// Every difference found, known or not.
    pub differences: Vec<Difference>,
}

impl Report {
    /// The unexplained differences.
    pub fn findings(&self) -> impl Iterator<Item = &Difference> {
        self.differences.iter().filter(|d| d.known.is_none())
    }

    /// True when some difference is unexplained.
    pub fn has_findings(&self) -> bool {
        self.findings().next().is_some()
    }

    /// The verdict on `aspect`.
    pub fn outcome(&self, aspect: Aspect) -> &Outcome {
        match aspect {
            Aspect::IsaName => &self.isa_name,
            Aspect::Metadata => &self.metadata,
            Aspect::Symbols => &self.symbols,
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for a in [Aspect::IsaName, Aspect::Metadata, Aspect::Symbols] {
            writeln!(f, "{a}: {:?}", self.outcome(a))?;
        }
        for d in &self.differences {
            writeln!(f, "  {d}")?;
        }
        Ok(())
    }
}

/// Compares comgr's view of `object` with the oracle's.
pub fn compare(view: &ComgrView, object: &[u8]) -> Report {
    let oracle = check::check_object_with(object, Detail::Violations);
    let mut sink = Sink::new();
    let parsed = Elf::parse(object, &mut sink);
    let mut diffs = Vec::new();
    let isa_name = compare_isa(view, &oracle, parsed.as_ref(), &mut diffs);
    let metadata = compare_metadata(view, &oracle, parsed.as_ref(), &mut diffs);
    let symbols = compare_symbols(view, parsed.as_ref(), DataKind::of(object), &mut diffs);
    Report {
        isa_name,
        metadata,
        symbols,
        differences: diffs,
    }
}

/// The verdict from the differences of one aspect added since `from`.
fn verdict(diffs: &[Difference], from: usize) -> Outcome {
    let new = diffs.get(from..).unwrap_or(&[]);
    if new.is_empty() {
        Outcome::Same
    } else if new.iter().all(|d| d.known.is_some()) {
        Outcome::Known
    } else {
        Outcome::Different
    }
}

fn err_text(e: &ComgrError) -> String {
    format!("error: {e}")
}

fn compare_isa(
    view: &ComgrView,
    oracle: &check::ObjectReport,
    elf: Option<&Elf<'_>>,
    diffs: &mut Vec<Difference>,
) -> Outcome {
    let from = diffs.len();
    let expected = oracle
        .target
        .as_ref()
        .map(|t| format!("{TRIPLE_PREFIX}{t}"));
    let cov = elf.and_then(|e| e.cov);
    let mach = elf.map(|e| (e.header.flags & hsaco_oracle::elf::raw::EF_AMDGPU_MACH) as u8);
    let push = |diffs: &mut Vec<Difference>, comgr: String, known| {
        diffs.push(Difference {
            aspect: Aspect::IsaName,
            path: "/".into(),
            comgr,
            oracle: expected.clone().unwrap_or_else(|| "no target".into()),
            known,
        })
    };
    match (&view.isa_name, &expected) {
        (Ok(got), Some(want)) if got == want => {}
        (Ok(got), Some(want)) => {
            let known = (cov == Some(CodeObjectVersion::V2) && v2_note_explains(got, want, oracle))
                .then_some(&ISA_V2_NOTE);
            push(diffs, got.clone(), known);
        }
        (Ok(got), None) => push(diffs, got.clone(), None),
        // Neither names a target.
        (Err(_), None) => {}
        (Err(e), Some(_)) => {
            let unsupported = cov.is_some_and(|c| c >= CodeObjectVersion::V5)
                || mach.is_some_and(|m| !COMGR_2_4_MACHS.contains(&m));
            push(diffs, err_text(e), unsupported.then_some(&ISA_UNSUPPORTED));
        }
    }
    verdict(diffs, from)
}

/// A V2 name that differs from the e_flags target only as the ISA version
/// note explains: `sramecc+` named `sramecc-`, or a processor or xnack
/// setting taken from a note the oracle reports as disagreeing with
/// `e_flags` (`note.v2.isa_version.mach`).
fn v2_note_explains(got: &str, want: &str, oracle: &check::ObjectReport) -> bool {
    if want.replace(":sramecc+", ":sramecc-") == got {
        return true;
    }
    oracle
        .violations
        .iter()
        .any(|v| v.rule.id == "note.v2.isa_version.mach")
}
