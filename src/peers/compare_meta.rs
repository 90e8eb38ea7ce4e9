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

use std::collections::BTreeMap;
use std::fmt;

use hsaco_oracle::check::{self, Detail};
use hsaco_oracle::elf::{self, Elf, SHT_DYNSYM, SHT_STRTAB, SHT_SYMTAB};
use hsaco_oracle::msgpack::{self, DecodeErrorKind, Value};
use hsaco_oracle::notes;
use hsaco_oracle::rules::Sink;
use hsaco_oracle::symbols::STT_SECTION;
use hsaco_oracle::targets::{CodeObjectVersion, TRIPLE_PREFIX};
use hsaco_oracle::yaml;

use super::comgr::{ComgrError, ComgrMeta, ComgrView, DataKind, Status, SymbolInfo};

/// A difference between comgr and the oracle that is understood: the
/// behaviour was checked and is explained.
#[derive(Debug, PartialEq, Eq)]
pub struct Known {
    /// Stable identifier (`aspect.what`).
    pub id: &'static str,
    /// What comgr does and why that differs from the oracle.
    pub reason: &'static str,
}

/// comgr 2.4 names no code object V5/V6 object, and no processor missing
/// from its `EF_AMDGPU_MACH` table ([`COMGR_2_4_MACHS`]).
pub static ISA_UNSUPPORTED: Known = Known {
    id: "isa_name.unsupported",
    reason: "comgr 2.4 (ROCm 5.2) names only code objects V2-V4 (EI_ABIVERSION 0-2) whose EF_AMDGPU_MACH is in its table (gfx600-gfx1036, gfx90a, gfx90c: no gfx940+, gfx11, gfx12 or generic targets); amd_comgr_get_data_isa_name returns INVALID_ARGUMENT for the rest",
};

/// comgr names code object V2 objects from the ISA version note.
pub static ISA_V2_NOTE: Known = Known {
    id: "isa_name.v2_note",
    reason: "comgr names a code object V2 from its NT_AMD_HSA_ISA_VERSION note (major.minor.stepping, which cannot say sramecc) and writes sramecc- for processors that have the feature; the oracle takes the target from e_flags, where LLVM 14 sets EF_AMDGPU_FEATURE_SRAMECC",
};

/// LLVM's reader turns an array or map used as a map key into an empty
/// container and reads its elements as the map's next entries.
pub static MD_CONTAINER_KEY: Known = Known {
    id: "metadata.container_key",
    reason: "LLVM's msgpack::Document reader (readFromBlob) stores an array or map used as a map key as an empty container and reads its elements as the following keys and values, so the tree comgr returns departs from the wire structure from there on (two such keys of the same kind in one map crash comgr: a known crash)",
};

/// LLVM's reader fills values missing at the end of the note with 0.
pub static MD_TRUNCATED_ZERO: Known = Known {
    id: "metadata.truncated_zero_fill",
    reason: "LLVM's msgpack::Document reader does not notice the end of the input between values (readFromBlob ignores msgpack::Reader's 'no more data' result): every value missing from a note that ends on a value boundary reads as the integer 0; the oracle reports metadata.decode",
};

/// LLVM 15's reader has no MessagePack bin support.
pub static MD_BINARY: Known = Known {
    id: "metadata.binary",
    reason: "the LLVM 15 msgpack::Document reader under comgr 2.4 rejects MessagePack bin values (LLVM 19 reads them); the oracle reads them without an error",
};

/// comgr types V2 YAML scalars as LLVM's YAML reader does.
pub static MD_V2_YAML_SCALARS: Known = Known {
    id: "metadata.v2_yaml_scalars",
    reason: "comgr reads code object V2 YAML metadata with LLVM's msgpack::Document::fromYAML, which gives every scalar (quoted or not) the first type it parses as and prints it back: the YAML 1.1 boolean words (y, n, yes, no, on, off in any of their spellings) become true or false, so an argument named n reads as false; hex, octal and binary integers print in decimal; floats print as %e",
};

/// The oracle only decodes [`msgpack::MAX_DEPTH`] levels.
pub static MD_DEPTH: Known = Known {
    id: "metadata.depth",
    reason: "the oracle decodes at most 64 levels of nesting (metadata.decode beyond); LLVM's reader has no limit",
};

/// Every known difference.
pub static KNOWN: [&Known; 7] = [
    &ISA_UNSUPPORTED,
    &ISA_V2_NOTE,
    &MD_V2_YAML_SCALARS,
    &MD_CONTAINER_KEY,
    &MD_TRUNCATED_ZERO,
    &MD_BINARY,
    &MD_DEPTH,
];

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

// ---------------------------------------------------------------------
// Metadata.

/// How comgr prints a MessagePack float: LLVM's `raw_ostream` double
/// output, C's `%e` (six decimals, a signed exponent of at least two
/// digits), `nan` for any NaN and `INF` / `-INF` for infinities.
pub fn format_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-INF" } else { "INF" }.into();
    }
    // Rust's `{:.6e}` rounds the exact binary value to six decimals as C
    // does; only the exponent is written differently (`e0`, `e-5`).
    let s = format!("{x:.6e}");
    let Some((mant, exp)) = s.split_once('e') else {
        return s;
    };
    let (sign, digits) = match exp.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exp),
    };
    format!("{mant}e{sign}{digits:0>2}")
}

/// How comgr prints a MessagePack scalar (see the module docs of
/// [`super::comgr`]): `None` for arrays, maps, bin and ext values.
pub fn expected_scalar(v: &Value) -> Option<Vec<u8>> {
    Some(match v {
        Value::Nil => Vec::new(),
        Value::Bool(b) => {
            if *b {
                b"1".to_vec()
            } else {
                b"0".to_vec()
            }
        }
        Value::Int(i) => i.to_string().into_bytes(),
        Value::UInt(u) => u.to_string().into_bytes(),
        Value::F32(x) => format_float(f64::from(*x)).into_bytes(),
        Value::F64(x) => format_float(*x).into_bytes(),
        Value::Str(s) => s.clone(),
        Value::Bin(_) | Value::Ext(..) | Value::Array(_) | Value::Map(_) => return None,
    })
}

/// The oracle's decoded tree in comgr's form: scalars as comgr prints
/// them, map entries in wire order (duplicates kept), bin and ext values
/// shown as `<bin N bytes>` / `<ext T>` strings.
pub fn oracle_tree(v: &Value) -> ComgrMeta {
    match v {
        Value::Array(a) => ComgrMeta::List(a.iter().map(oracle_tree).collect()),
        Value::Map(m) => ComgrMeta::Map(
            m.iter()
                .map(|(k, v)| (oracle_tree(k), oracle_tree(v)))
                .collect(),
        ),
        Value::Bin(b) => ComgrMeta::String(format!("<bin {} bytes>", b.len()).into_bytes()),
        Value::Ext(t, _) => ComgrMeta::String(format!("<ext {t}>").into_bytes()),
        other => ComgrMeta::String(expected_scalar(other).unwrap_or_default()),
    }
}

/// A node of the model of LLVM's document: a DocNode's kind and value.
#[derive(Clone, Debug)]
enum Doc {
    Nil,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(Vec<u8>),
    Array(Vec<Doc>),
    Map(Vec<(Doc, Doc)>),
}

impl Doc {
    fn kind_rank(&self) -> u8 {
        match self {
            Doc::Int(_) => 0,
            Doc::UInt(_) => 1,
            Doc::Nil => 2,
            Doc::Bool(_) => 3,
            Doc::Float(_) => 4,
            Doc::Str(_) => 5,
            Doc::Map(_) => 7,
            Doc::Array(_) => 8,
        }
    }

    fn is_container(&self) -> bool {
        matches!(self, Doc::Array(_) | Doc::Map(_))
    }

    /// Key equality as LLVM's `std::map<DocNode, DocNode>` sees it (two
    /// keys are the same when neither orders before the other).
    fn same_key(&self, o: &Doc) -> bool {
        match (self, o) {
            (Doc::Nil, Doc::Nil) => true,
            (Doc::Bool(a), Doc::Bool(b)) => a == b,
            (Doc::Int(a), Doc::Int(b)) => a == b,
            (Doc::UInt(a), Doc::UInt(b)) => a == b,
            // Neither orders before the other (a NaN is "equal" to every float).
            (Doc::Float(a), Doc::Float(b)) => !matches!(a.partial_cmp(b), Some(o) if o.is_ne()),
            (Doc::Str(a), Doc::Str(b)) => a == b,
            _ => false,
        }
    }

    fn to_meta(&self) -> ComgrMeta {
        match self {
            Doc::Nil => ComgrMeta::String(Vec::new()),
            Doc::Bool(b) => ComgrMeta::String(if *b { b"1".to_vec() } else { b"0".to_vec() }),
            Doc::Int(i) => ComgrMeta::String(i.to_string().into_bytes()),
            Doc::UInt(u) => ComgrMeta::String(u.to_string().into_bytes()),
            Doc::Float(x) => ComgrMeta::String(format_float(*x).into_bytes()),
            Doc::Str(s) => ComgrMeta::String(s.clone()),
            Doc::Array(a) => ComgrMeta::List(a.iter().map(Doc::to_meta).collect()),
            Doc::Map(m) => {
                ComgrMeta::Map(m.iter().map(|(k, v)| (k.to_meta(), v.to_meta())).collect())
            }
        }
    }
}

/// What the model of LLVM's reader makes of a note description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Model {
    /// A tree (in comgr's form), and the quirks that made LLVM's reading
    /// depart from the plain MessagePack meaning.
    Tree(ComgrMeta, Vec<&'static Known>),
    /// LLVM's reader (or comgr after it) refuses the note, and the quirks
    /// met on the way.
    Reject(String, Vec<&'static Known>),
    /// The note hits undefined behaviour in LLVM: two map keys that are
    /// both arrays or both maps reach `llvm_unreachable` in the key order
    /// of `std::map<DocNode, DocNode>`. comgr crashes on it.
    Crash(String),
    /// The model cannot say (NaN among a map's float keys, whose order is
    /// undefined; nesting deeper than [`super::comgr::MAX_DEPTH`]; more
    /// than 65,536 values missing at the end).
    Indeterminate(String),
}

/// One event of the flat stream LLVM's `msgpack::Reader` produces.
enum Event {
    /// A scalar.
    Scalar(Doc),
    /// An array header and its length.
    Array(usize),
    /// A map header and its entry count.
    Map(usize),
    /// Something LLVM 15's reader refuses (bin, ext, 0xc1, a truncated
    /// value); `true` for bin.
    Bad(&'static str, bool),
    /// The input ended before a format byte.
    End,
}

/// Reads the event at `*pos`.
fn event(b: &[u8], pos: &mut usize) -> Event {
    let Some(&f) = b.get(*pos) else {
        return Event::End;
    };
    *pos += 1;
    // `n` bytes of payload, or `None` when the input ends first.
    let mut take = |n: usize| -> Option<&[u8]> {
        let s = b.get(*pos..pos.checked_add(n)?)?;
        *pos += n;
        Some(s)
    };
    let be = |s: &[u8]| s.iter().fold(0u64, |a, &x| (a << 8) | u64::from(x));
    let trunc = Event::Bad("truncated value", false);
    match f {
        0x00..=0x7f => Event::Scalar(Doc::UInt(u64::from(f))),
        0x80..=0x8f => Event::Map(usize::from(f & 0x0f)),
        0x90..=0x9f => Event::Array(usize::from(f & 0x0f)),
        0xa0..=0xbf => match take(usize::from(f & 0x1f)) {
            Some(s) => Event::Scalar(Doc::Str(s.to_vec())),
            None => trunc,
        },
        0xc0 => Event::Scalar(Doc::Nil),
        0xc1 => Event::Bad("byte 0xc1", false),
        0xc2 => Event::Scalar(Doc::Bool(false)),
        0xc3 => Event::Scalar(Doc::Bool(true)),
        0xc4..=0xc6 => Event::Bad("bin value", true),
        0xc7..=0xc9 | 0xd4..=0xd8 => Event::Bad("ext value", false),
        0xca => match take(4) {
            Some(s) => Event::Scalar(Doc::Float(f64::from(f32::from_bits(be(s) as u32)))),
            None => trunc,
        },
        0xcb => match take(8) {
            Some(s) => Event::Scalar(Doc::Float(f64::from_bits(be(s)))),
            None => trunc,
        },
        0xcc..=0xcf => match take(1 << (f - 0xcc)) {
            Some(s) => Event::Scalar(Doc::UInt(be(s))),
            None => trunc,
        },
        0xd0..=0xd3 => match take(1 << (f - 0xd0)) {
            // Sign-extend from the value's width.
            Some(s) => {
                let bits = 8 * s.len() as u32;
                let v = be(s);
                let shift = 64 - bits;
                Event::Scalar(Doc::Int(((v << shift) as i64) >> shift))
            }
            None => trunc,
        },
        0xd9..=0xdb => {
            let Some(n) = take(1 << (f - 0xd9)).map(be) else {
                return trunc;
            };
            match usize::try_from(n).ok().and_then(&mut take) {
                Some(s) => Event::Scalar(Doc::Str(s.to_vec())),
                None => trunc,
            }
        }
        0xdc | 0xdd => match take(2 << (f - 0xdc)) {
            Some(s) => Event::Array(usize::try_from(be(s)).unwrap_or(usize::MAX)),
            None => trunc,
        },
        0xde | 0xdf => match take(2 << (f - 0xde)) {
            Some(s) => Event::Map(usize::try_from(be(s)).unwrap_or(usize::MAX)),
            None => trunc,
        },
        0xe0..=0xff => Event::Scalar(Doc::Int(i64::from(f as i8))),
    }
}

/// Where a value goes: the root, an element of the container below, or
/// the value of an entry of the map below.
#[derive(Clone, Copy)]
enum Slot {
    Root,
    Elem(usize),
    Val(usize),
}

/// A container being filled, as on LLVM's reading stack.
struct Level {
    doc: Doc,
    len: usize,
    count: usize,
    /// The map entry whose value is read next, and whether its key was
    /// already in the map.
    entry: Option<(usize, bool)>,
    /// Where the container goes once complete.
    slot: Slot,
}

/// Most values read past the end of the note before the model gives up.
const MAX_FILLS: usize = 65_536;

fn store(stack: &mut [Level], root: &mut Option<Doc>, slot: Slot, d: Doc) {
    match (slot, stack.last_mut().map(|l| &mut l.doc)) {
        (Slot::Root, _) => *root = Some(d),
        (Slot::Elem(i), Some(Doc::Array(a))) => {
            if let Some(e) = a.get_mut(i) {
                *e = d;
            }
        }
        (Slot::Val(i), Some(Doc::Map(m))) => {
            if let Some(e) = m.get_mut(i) {
                e.1 = d;
            }
        }
        _ => {}
    }
}

/// Reads a note description as comgr 2.4's LLVM 15 `msgpack::Document`
/// reader does (`readFromBlob`, one top-level value), followed by comgr's
/// own requirement that the root be a map. Its departures from plain
/// MessagePack are the quirks [`MD_CONTAINER_KEY`], [`MD_TRUNCATED_ZERO`]
/// and [`MD_BINARY`], each recorded when it applies.
/// A model, checked against comgr by `tests/comgr.rs` and the
/// `comgr_metadata` fuzz target.
pub fn llvm_model(desc: &[u8]) -> Model {
    let mut quirks: Vec<&'static Known> = Vec::new();
    fn add(q: &mut Vec<&'static Known>, k: &'static Known) {
        if !q.contains(&k) {
            q.push(k);
        }
    }
    let mut pos = 0usize;
    let mut stack: Vec<Level> = Vec::new();
    let mut root: Option<Doc> = None;
    let mut fills = 0usize;
    loop {
        let (node, len) = match event(desc, &mut pos) {
            Event::Scalar(d) => (d, 0),
            Event::Array(n) => (Doc::Array(Vec::with_capacity(n.min(64))), n),
            Event::Map(n) => (Doc::Map(Vec::with_capacity(n.min(64))), n),
            Event::Bad(what, bin) => {
                if bin {
                    add(&mut quirks, &MD_BINARY);
                }
                return Model::Reject(format!("LLVM's reader rejects a {what}"), quirks);
            }
            Event::End => {
                // readFromBlob reads on with a default msgpack::Object.
                fills += 1;
                if fills > MAX_FILLS {
                    return Model::Indeterminate("too many values missing at the end".into());
                }
                add(&mut quirks, &MD_TRUNCATED_ZERO);
                (Doc::Int(0), 0)
            }
        };
        let slot = match stack.last_mut() {
            None => Slot::Root,
            Some(top) => match (&mut top.doc, top.entry.take()) {
                (Doc::Array(a), _) => {
                    a.push(Doc::Nil);
                    top.count += 1;
                    Slot::Elem(a.len() - 1)
                }
                (Doc::Map(m), None) => {
                    // A key: stored as read, never entered, even when it is
                    // a container (whose elements then follow as entries).
                    if node.is_container() {
                        add(&mut quirks, &MD_CONTAINER_KEY);
                        if m.iter().any(|(k, _)| k.kind_rank() == node.kind_rank()) {
                            return Model::Crash(
                                "two keys of one map are both arrays or both maps".into(),
                            );
                        }
                    }
                    if let Doc::Float(x) = node {
                        let nan = m
                            .iter()
                            .any(|(k, _)| matches!(k, Doc::Float(y) if x.is_nan() || y.is_nan()));
                        if nan {
                            return Model::Indeterminate("NaN among a map's float keys".into());
                        }
                    }
                    let entry = match m.iter().position(|(k, _)| k.same_key(&node)) {
                        Some(i) => (i, true),
                        None => {
                            m.push((node, Doc::Nil));
                            (m.len() - 1, false)
                        }
                    };
                    top.entry = Some(entry);
                    continue;
                }
                (Doc::Map(_), Some((i, repeated))) => {
                    // LLVM 15 calls any repeated key a merge conflict (later
                    // LLVM lets a repeat replace a nil value).
                    if repeated {
                        return Model::Reject("a repeated map key".into(), quirks);
                    }
                    top.count += 1;
                    Slot::Val(i)
                }
                _ => return Model::Indeterminate("model error: scalar on the stack".into()),
            },
        };
        if node.is_container() {
            if stack.len() >= super::comgr::MAX_DEPTH {
                return Model::Indeterminate("nested deeper than the binding converts".into());
            }
            stack.push(Level {
                doc: node,
                len,
                count: 0,
                entry: None,
                slot,
            });
        } else {
            store(&mut stack, &mut root, slot, node);
        }
        // Pop finished levels, storing each in its parent.
        while let Some(top) = stack.last() {
            if top.entry.is_some() || top.count != top.len {
                break;
            }
            let Some(done) = stack.pop() else { break };
            store(&mut stack, &mut root, done.slot, done.doc);
        }
        if stack.is_empty() {
            break;
        }
    }
    match root {
        Some(r @ Doc::Map(_)) => Model::Tree(r.to_meta(), quirks),
        Some(_) => Model::Reject("the root is not a map".into(), quirks),
        None => Model::Reject("no value".into(), quirks),
    }
}

/// Most differences recorded per aspect (a broken tree could list
/// thousands).
const MAX_DIFFS: usize = 100;

/// One raw difference before labelling: path, comgr's side, the other.
type RawDiff = (String, String, String);

/// A value for a message: strings quoted, containers in short form.
fn show(m: &ComgrMeta) -> String {
    let s = m.to_string();
    if s.len() <= 120 {
        return s;
    }
    let mut cut = 117;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}...", &s[..cut])
}

fn key_text(k: &ComgrMeta) -> String {
    match k {
        ComgrMeta::String(s) => String::from_utf8_lossy(s).into_owned(),
        other => other.to_string(),
    }
}

fn join(path: &str, seg: &str) -> String {
    format!("{path}/{seg}")
}

fn root_path(path: &str) -> String {
    if path.is_empty() {
        "/".into()
    } else {
        path.to_owned()
    }
}

/// A rendering that does not depend on map order (entries sorted by their
/// own rendering, recursively), for comparing values as multisets.
fn canonical(m: &ComgrMeta) -> String {
    match m {
        ComgrMeta::Map(e) => {
            let mut parts: Vec<String> = e
                .iter()
                .map(|(k, v)| format!("{}: {}", canonical(k), canonical(v)))
                .collect();
            parts.sort();
            format!("{{{}}}", parts.join(", "))
        }
        ComgrMeta::List(l) => {
            let parts: Vec<String> = l.iter().map(canonical).collect();
            format!("[{}]", parts.join(", "))
        }
        other => other.to_string(),
    }
}

/// The differences between two trees (comgr's first): maps are compared
/// key by key regardless of order; when a key occurs more than once on a
/// side (the oracle keeps repeats; keys of different kinds can print
/// alike), the values under it are compared as sorted lists.
fn diff(path: &str, c: &ComgrMeta, o: &ComgrMeta, out: &mut Vec<RawDiff>) {
    if out.len() >= MAX_DIFFS {
        return;
    }
    match (c, o) {
        (ComgrMeta::String(a), ComgrMeta::String(b)) => {
            if a != b {
                out.push((root_path(path), show(c), show(o)));
            }
        }
        (ComgrMeta::List(a), ComgrMeta::List(b)) => {
            if a.len() != b.len() {
                out.push((
                    root_path(path),
                    format!("{} elements", a.len()),
                    format!("{} elements", b.len()),
                ));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff(&join(path, &i.to_string()), x, y, out);
            }
        }
        (ComgrMeta::Map(a), ComgrMeta::Map(b)) => {
            type Group<'m> = (Vec<&'m ComgrMeta>, Vec<&'m ComgrMeta>);
            let mut groups: BTreeMap<String, Group<'_>> = BTreeMap::new();
            for (k, v) in a {
                groups.entry(key_text(k)).or_default().0.push(v);
            }
            for (k, v) in b {
                groups.entry(key_text(k)).or_default().1.push(v);
            }
            for (k, (cs, os)) in groups {
                let p = join(path, &k);
                match (cs.as_slice(), os.as_slice()) {
                    ([x], [y]) => diff(&p, x, y, out),
                    ([], _) => out.push((p, "(no such key)".into(), show_all(&os))),
                    (_, []) => out.push((p, show_all(&cs), "(no such key)".into())),
                    _ => {
                        let (mut cv, mut ov): (Vec<String>, Vec<String>) = (
                            cs.iter().map(|m| canonical(m)).collect(),
                            os.iter().map(|m| canonical(m)).collect(),
                        );
                        cv.sort();
                        ov.sort();
                        if cv != ov {
                            out.push((p, show_all(&cs), show_all(&os)));
                        }
                    }
                }
                if out.len() >= MAX_DIFFS {
                    return;
                }
            }
        }
        _ => out.push((
            root_path(path),
            format!("{} {}", c.kind_name(), show(c)),
            format!("{} {}", o.kind_name(), show(o)),
        )),
    }
}

/// The differences between two trees (comgr's first) as (path, comgr's
/// value, the other value), as [`compare`] lists them.
pub fn tree_differences(comgr: &ComgrMeta, other: &ComgrMeta) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    diff("", comgr, other, &mut out);
    out
}

fn show_all(v: &[&ComgrMeta]) -> String {
    let parts: Vec<String> = v.iter().map(|m| show(m)).collect();
    if parts.len() == 1 {
        parts.join("")
    } else {
        format!("{} values: {}", parts.len(), parts.join(", "))
    }
}

fn push_raw(
    diffs: &mut Vec<Difference>,
    aspect: Aspect,
    raw: Vec<RawDiff>,
    known: Option<&'static Known>,
) {
    diffs.extend(raw.into_iter().map(|(path, comgr, oracle)| Difference {
        aspect,
        path,
        comgr,
        oracle,
        known,
    }));
}

/// The first error-severity reject rule the oracle reported (see
/// [`REJECT_RULES`]).
fn oracle_reject_rule(oracle: &check::ObjectReport) -> Option<&'static str> {
    oracle
        .violations
        .iter()
        .filter(|v| v.severity == hsaco_oracle::Severity::Error)
        .map(|v| v.rule.id)
        .find(|id| REJECT_RULES.contains(id))
}

fn compare_metadata(
    view: &ComgrView,
    oracle: &check::ObjectReport,
    elf: Option<&Elf<'_>>,
    diffs: &mut Vec<Difference>,
) -> Outcome {
    let from = diffs.len();
    let (Some(elf), Some(cov)) = (elf, elf.and_then(|e| e.cov)) else {
        return Outcome::NotComparable("not a code object the oracle reads".into());
    };
    let mut sink = Sink::new();
    let all = notes::read(elf, &mut sink);
    if cov == CodeObjectVersion::V2 {
        let v2 = notes::check_v2(&all, elf.header.flags, &mut sink);
        return compare_v2(view, v2.metadata.map(|n| n.desc), diffs, from);
    }
    let metadata_notes = all
        .iter()
        .filter(|n| n.name == "AMDGPU" && n.n_type == notes::NT_AMDGPU_METADATA)
        .count();
    let pal = all
        .iter()
        .any(|n| (n.name == "AMDGPU" || n.name == "AMD") && n.n_type == PAL_METADATA_NOTE);
    if pal {
        return Outcome::NotComparable(
            "a PAL metadata note (type 13): comgr merges it with the HSA metadata, which the oracle does not model".into(),
        );
    }
    if metadata_notes > 1 {
        let descs: Vec<&[u8]> = notes::check_set(&all, cov, &mut sink)
            .iter()
            .map(|n| n.desc)
            .collect();
        return compare_merged(view, oracle, &descs, diffs, from);
    }
    let desc = notes::check_set(&all, cov, &mut sink)
        .first()
        .map(|n| n.desc);
    let raw_decode = desc.map(msgpack::decode);
    let too_deep = matches!(&raw_decode, Some(Err(e)) if e.kind == DecodeErrorKind::TooDeep);
    let decoded: Result<Value, String> = match raw_decode {
        Some(Ok((v, _))) => Ok(v),
        Some(Err(e)) => Err(e.to_string()),
        None => Err("no NT_AMDGPU_METADATA note".into()),
    };
    let model = match desc {
        Some(d) => llvm_model(d),
        None => Model::Reject("no note".into(), Vec::new()),
    };
    let reject_rule = oracle_reject_rule(oracle);
    compare_lookups(view, diffs);
    match &view.metadata {
        Ok(c) => {
            if let Model::Indeterminate(why) | Model::Crash(why) = &model {
                let mut raw = Vec::new();
                if let Ok(v) = &decoded {
                    diff("", c, &oracle_tree(v), &mut raw);
                }
                if !raw.is_empty() {
                    return Outcome::NotComparable(format!(
                        "comgr and the oracle differ where LLVM's behaviour is undefined: {why}"
                    ));
                }
                return verdict(diffs, from);
            }
            // Is comgr's tree exactly the model's, and which quirks made
            // the model depart from plain MessagePack?
            let explained = match &model {
                Model::Tree(l, q) => {
                    let mut d = Vec::new();
                    diff("", c, l, &mut d);
                    if d.is_empty() {
                        q.first().copied()
                    } else {
                        None
                    }
                }
                _ => None,
            };
            match &decoded {
                Ok(v) => {
                    let mut raw = Vec::new();
                    diff("", c, &oracle_tree(v), &mut raw);
                    push_raw(diffs, Aspect::Metadata, raw, explained);
                    if let Some(rule) = reject_rule {
                        // The oracle calls the note unreadable by LLVM, yet
                        // comgr reads it.
                        diffs.push(Difference {
                            aspect: Aspect::Metadata,
                            path: "/".into(),
                            comgr: "reads the note".into(),
                            oracle: format!("error {rule}"),
                            known: explained,
                        });
                    }
                }
                Err(e) => diffs.push(Difference {
                    aspect: Aspect::Metadata,
                    path: "/".into(),
                    comgr: show(c),
                    oracle: format!("undecodable: {e}"),
                    known: if too_deep && explained.is_some() {
                        Some(&MD_DEPTH)
                    } else {
                        explained
                    },
                }),
            }
        }
        Err(ComgrError::Call { call, status }) => {
            let err = format!("{call} returned {status}");
            match &model {
                Model::Tree(..) => diffs.push(Difference {
                    aspect: Aspect::Metadata,
                    path: "/".into(),
                    comgr: err,
                    oracle: match &decoded {
                        Ok(_) => "a readable note".into(),
                        Err(e) => format!("undecodable: {e}"),
                    },
                    known: None,
                }),
                Model::Reject(why, q) => {
                    if decoded.is_err()
                        || reject_rule.is_some()
                        || *status != Status::INVALID_ARGUMENT
                    {
                        // Both refuse (comgr's status is checked too: a note
                        // it cannot read is INVALID_ARGUMENT).
                        if *status != Status::INVALID_ARGUMENT {
                            diffs.push(Difference {
                                aspect: Aspect::Metadata,
                                path: "/".into(),
                                comgr: err,
                                oracle: "unreadable (expected INVALID_ARGUMENT)".into(),
                                known: None,
                            });
                        }
                    } else {
                        let known = q.first().copied();
                        diffs.push(Difference {
                            aspect: Aspect::Metadata,
                            path: "/".into(),
                            comgr: err,
                            oracle: format!("no error (LLVM: {why})"),
                            known,
                        });
                    }
                }
                Model::Crash(why) | Model::Indeterminate(why) => {
                    return Outcome::NotComparable(format!(
                        "LLVM's behaviour is undefined here: {why}"
                    ))
                }
            }
        }
        Err(e) => {
            return Outcome::NotComparable(format!("the binding stopped: {e}"));
        }
    }
    verdict(diffs, from)
}

/// The oracle's rules whose error means comgr drops a note when it merges
/// the notes of an object.
const MERGE_DROP_RULES: &[&str] = &[
    "note.metadata.version_conflict",
    "note.metadata.printf_conflict",
    "note.metadata.printf_repeated",
];

/// Inserts `(key, value)` into a comgr map, keeping comgr's key order.
fn map_insert(m: &mut Vec<(ComgrMeta, ComgrMeta)>, key: &str, value: ComgrMeta) {
    let k = ComgrMeta::String(key.as_bytes().to_vec());
    let at = m
        .iter()
        .position(|(e, _)| matches!(e, ComgrMeta::String(s) if s.as_slice() > key.as_bytes()))
        .unwrap_or(m.len());
    m.insert(at, (k, value));
}

fn map_get_mut<'m>(m: &'m mut [(ComgrMeta, ComgrMeta)], key: &str) -> Option<&'m mut ComgrMeta> {
    m.iter_mut()
        .find(|(k, _)| matches!(k, ComgrMeta::String(s) if s == key.as_bytes()))
        .map(|(_, v)| v)
}

/// Merges `from` into `to` as comgr 2.4 (ROCm 5.2, Debian's
/// libamd-comgr2) does in `mergeNoteRecords`: a later note with a printf
/// list is refused when the merged root has one (after ROCm 6 comgr keeps
/// the first list instead); otherwise its list is copied first, even if
/// the merge then fails on the version or kernel arrays, which must both
/// be lists (versions equal) for the kernels to be appended. Returns
/// whether the note was merged.
fn comgr_merge(to: &mut ComgrMeta, from: &ComgrMeta) -> bool {
    let (ComgrMeta::Map(t), ComgrMeta::Map(_)) = (&mut *to, from) else {
        return false;
    };
    if let Some(p) = from.get("amdhsa.printf") {
        if map_get_mut(t, "amdhsa.printf").is_some() {
            return false;
        }
        map_insert(t, "amdhsa.printf", p.clone());
    }
    let (Some(ComgrMeta::List(fv)), Some(ComgrMeta::List(tv))) = (
        from.get("amdhsa.version"),
        map_get_mut(t, "amdhsa.version").map(|v| &*v),
    ) else {
        return false;
    };
    if fv != tv {
        return false;
    }
    let Some(ComgrMeta::List(fk)) = from.get("amdhsa.kernels") else {
        return false;
    };
    match map_get_mut(t, "amdhsa.kernels") {
        Some(ComgrMeta::List(tk)) => {
            tk.extend(fk.iter().cloned());
            true
        }
        _ => false,
    }
}

fn kernel_count(m: &ComgrMeta) -> usize {
    match m.get("amdhsa.kernels") {
        Some(ComgrMeta::List(k)) => k.len(),
        _ => 0,
    }
}

/// An object with several `NT_AMDGPU_METADATA` notes (as ld.lld links
/// them): comgr's merged tree against the notes merged as comgr 2.4 merges
/// them, and against the oracle, which keeps every note's kernels and
/// calls the notes comgr must drop errors of its merge rules.
fn compare_merged(
    view: &ComgrView,
    oracle: &check::ObjectReport,
    descs: &[&[u8]],
    diffs: &mut Vec<Difference>,
    from: usize,
) -> Outcome {
    let mut trees = Vec::with_capacity(descs.len());
    let mut quirks: Vec<&'static Known> = Vec::new();
    let mut plain = Vec::with_capacity(descs.len());
    for (i, d) in descs.iter().enumerate() {
        match llvm_model(d) {
            Model::Tree(t, q) => {
                trees.push(t);
                quirks.extend(q);
            }
            _ => {
                return Outcome::NotComparable(format!(
                    "metadata note {i} of {} is one LLVM's reader refuses or reads in an undefined way; how comgr then merges is not modelled",
                    descs.len()
                ))
            }
        }
        match msgpack::decode(d) {
            Ok((v, _)) => plain.push(oracle_tree(&v)),
            Err(e) => {
                return Outcome::NotComparable(format!("metadata note {i} does not decode: {e}"))
            }
        }
    }
    // comgr's view, modelled; and the oracle's: every note's kernels
    // appended to the first note's root, printf from the first note that
    // has it.
    let mut model = trees[0].clone();
    for t in &trees[1..] {
        comgr_merge(&mut model, t);
    }
    let mut ours = plain[0].clone();
    for t in &plain[1..] {
        if let ComgrMeta::Map(o) = &mut ours {
            if let (Some(p), None) = (t.get("amdhsa.printf"), map_get_mut(o, "amdhsa.printf")) {
                map_insert(o, "amdhsa.printf", p.clone());
            }
            if let (Some(ComgrMeta::List(k)), Some(ComgrMeta::List(ok))) =
                (t.get("amdhsa.kernels"), map_get_mut(o, "amdhsa.kernels"))
            {
                ok.extend(k.iter().cloned());
            }
        }
    }
    compare_lookups(view, diffs);
    let c = match &view.metadata {
        Ok(c) => c,
        Err(e) => {
            diffs.push(Difference {
                aspect: Aspect::Metadata,
                path: "/".into(),
                comgr: err_text(e),
                oracle: format!("{} readable notes", descs.len()),
                known: None,
            });
            return verdict(diffs, from);
        }
    };
    let explained = quirks.first().copied();
    let mut raw = Vec::new();
    diff("", c, &model, &mut raw);
    push_raw(diffs, Aspect::Metadata, raw, None);
    let drops = oracle
        .violations
        .iter()
        .any(|v| MERGE_DROP_RULES.contains(&v.rule.id));
    if drops {
        // The oracle says comgr must drop a note: comgr's tree must hold
        // fewer kernels than the notes together.
        if kernel_count(c) >= kernel_count(&ours) {
            diffs.push(Difference {
                aspect: Aspect::Metadata,
                path: "/amdhsa.kernels".into(),
                comgr: format!("{} kernels: every note merged", kernel_count(c)),
                oracle: "a note comgr must drop (note.metadata merge rule)".into(),
                known: None,
            });
        }
    } else {
        let mut raw = Vec::new();
        diff("", c, &ours, &mut raw);
        push_raw(diffs, Aspect::Metadata, raw, explained);
    }
    verdict(diffs, from)
}

/// comgr's lookup of each root key must find what its iteration listed.
fn compare_lookups(view: &ComgrView, diffs: &mut Vec<Difference>) {
    let Ok(root) = &view.metadata else { return };
    for (key, found) in &view.root_lookups {
        let want = root.get(key);
        let same = match found {
            Ok(f) => f.as_ref() == want,
            Err(_) => false,
        };
        if !same {
            diffs.push(Difference {
                aspect: Aspect::Metadata,
                path: format!("lookup({key})"),
                comgr: match found {
                    Ok(Some(m)) => show(m),
                    Ok(None) => "(not found)".into(),
                    Err(e) => err_text(e),
                },
                oracle: want.map_or_else(|| "(no such key)".into(), show),
                known: None,
            });
        }
    }
}

// ---------------------------------------------------------------------
// Code object V2: YAML metadata.

/// How comgr prints a YAML scalar of code object V2 metadata: LLVM's
/// `msgpack::Document::fromYAML` gives a scalar without a tag the first
/// type it parses as (unsigned, signed, boolean, float, else string), and
/// comgr prints it back (booleans as `true` / `false` for YAML notes).
pub fn yaml_scalar(text: &str) -> String {
    if let Some(u) = hsaco_oracle::yaml::parse_uint(text) {
        return u.to_string();
    }
    if let Some(u) = text
        .strip_prefix('-')
        .and_then(hsaco_oracle::yaml::parse_uint)
    {
        if let Ok(i) = i64::try_from(u) {
            return (-i).to_string();
        }
        if u == 1 << 63 {
            return i64::MIN.to_string();
        }
    }
    // llvm::yaml::parseBool: YAML 1.1's words.
    match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            return "true".into()
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return "false".into()
        }
        _ => {}
    }
    // strtod's words for infinity and NaN, in any case, with a sign.
    let word = text.trim_start_matches(['+', '-']).to_ascii_lowercase();
    if matches!(word.as_str(), "inf" | "infinity" | "nan") {
        let neg = text.starts_with('-');
        return format_float(match (word.as_str(), neg) {
            ("nan", _) => f64::NAN,
            (_, true) => f64::NEG_INFINITY,
            _ => f64::INFINITY,
        });
    }
    let looks_numeric = text
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    if looks_numeric && text.chars().any(|c| c.is_ascii_digit()) {
        if let Ok(x) = text.parse::<f64>() {
            return format_float(x);
        }
    }
    text.to_owned()
}

/// The oracle's YAML tree in comgr's form: scalars typed and printed back
/// as LLVM does ([`yaml_scalar`]) when `typed`, else as written.
fn yaml_tree(n: &yaml::Node, typed: bool) -> ComgrMeta {
    let scalar =
        |t: &str| ComgrMeta::String(if typed { yaml_scalar(t) } else { t.to_owned() }.into_bytes());
    match &n.value {
        yaml::Value::Empty => ComgrMeta::String(Vec::new()),
        yaml::Value::Scalar(s) => scalar(&s.text),
        yaml::Value::Seq(items) => {
            ComgrMeta::List(items.iter().map(|i| yaml_tree(i, typed)).collect())
        }
        yaml::Value::Map(entries) => ComgrMeta::Map(
            entries
                .iter()
                .map(|e| (scalar(&e.key.text), yaml_tree(&e.value, typed)))
                .collect(),
        ),
    }
}

fn compare_v2(
    view: &ComgrView,
    desc: Option<&[u8]>,
    diffs: &mut Vec<Difference>,
    from: usize,
) -> Outcome {
    let parsed = desc.map(yaml::parse);
    compare_lookups(view, diffs);
    match (&view.metadata, parsed) {
        (Ok(c), Some(Ok(node))) => {
            // Differences from the text as written are known when comgr
            // agrees exactly with LLVM's typing of the scalars.
            let mut typed = Vec::new();
            diff("", c, &yaml_tree(&node, true), &mut typed);
            let mut raw = Vec::new();
            diff("", c, &yaml_tree(&node, false), &mut raw);
            let known = typed.is_empty().then_some(&MD_V2_YAML_SCALARS);
            push_raw(diffs, Aspect::Metadata, raw, known);
        }
        (Ok(c), other) => diffs.push(Difference {
            aspect: Aspect::Metadata,
            path: "/".into(),
            comgr: show(c),
            oracle: match other {
                Some(Err(e)) => format!("unreadable YAML: {e}"),
                _ => "no NT_AMD_HSA_METADATA note".into(),
            },
            known: None,
        }),
        // Both have nothing to read.
        (Err(ComgrError::Call { .. }), None | Some(Err(_))) => {}
        (Err(e), Some(Ok(_))) => diffs.push(Difference {
            aspect: Aspect::Metadata,
            path: "/".into(),
            comgr: err_text(e),
            oracle: "readable YAML metadata".into(),
            known: None,
        }),
        (Err(e), _) => return Outcome::NotComparable(format!("the binding stopped: {e}")),
    }
    verdict(diffs, from)
}

// ---------------------------------------------------------------------
// Symbols.

/// comgr's symbol type for an ELF `st_type` (`amd_comgr_symbol_type_t`).
pub fn comgr_symbol_type(st_type: u8) -> i32 {
    match st_type {
        0..=5 => i32::from(st_type),
        10 => 10,
        _ => -1,
    }
}

/// The symbols comgr should list: those of `.symtab` for a relocatable
/// object, of `.dynsym` otherwise, without the null symbol; a section
/// symbol without a name is named after its section, as LLVM does. `None` when
/// the object has no such table (or it cannot be read).
pub fn expected_symbols(elf: &Elf<'_>, kind: DataKind) -> Option<Vec<SymbolInfo>> {
    let want = match kind {
        DataKind::Relocatable => SHT_SYMTAB,
        DataKind::Executable => SHT_DYNSYM,
    };
    let table = elf.sections.iter().find(|s| s.sh_type == want)?;
    let data = table.data(elf.data)?;
    let strtab = elf
        .sections
        .get(table.link as usize)
        .filter(|s| s.sh_type == SHT_STRTAB)
        .and_then(|s| s.data(elf.data))?;
    let mut out = Vec::with_capacity(data.len() / 24);
    for e in data.chunks_exact(24).skip(1) {
        let name_off = elf::le_u32(e, 0)? as usize;
        let rest = strtab.get(name_off..)?;
        let mut name = rest.split(|&b| b == 0).next().unwrap_or_default().to_vec();
        let info = *e.get(4)?;
        let shndx = elf::le_u16(e, 6)?;
        // LLVM names a section symbol without a name after its section.
        if info & 0xf == STT_SECTION && name.is_empty() {
            if let Some(sec) = elf.sections.get(usize::from(shndx)) {
                name = sec.name.as_bytes().to_vec();
            }
        }
        out.push(SymbolInfo {
            name,
            sym_type: comgr_symbol_type(info & 0xf),
            size: elf::le_u64(e, 16)?,
            is_undefined: shndx == 0,
            value: elf::le_u64(e, 8)?,
        });
    }
    Some(out)
}

fn show_symbol(s: &SymbolInfo) -> String {
    format!(
        "{} type {} size {} value {:#x}{}",
        s.name_lossy(),
        s.sym_type,
        s.size,
        s.value,
        if s.is_undefined { " undefined" } else { "" }
    )
}

fn compare_symbols(
    view: &ComgrView,
    elf: Option<&Elf<'_>>,
    kind: DataKind,
    diffs: &mut Vec<Difference>,
) -> Outcome {
    let from = diffs.len();
    let Some(elf) = elf else {
        return Outcome::NotComparable("not an ELF file the oracle reads".into());
    };
    let expected = expected_symbols(elf, kind);
    let push = |diffs: &mut Vec<Difference>, path: String, comgr: String, oracle: String| {
        diffs.push(Difference {
            aspect: Aspect::Symbols,
            path,
            comgr,
            oracle,
            known: None,
        })
    };
    match (&view.symbols, &expected) {
        (Ok(got), Some(want)) => {
            if got.len() != want.len() {
                push(
                    diffs,
                    "/".into(),
                    format!("{} symbols", got.len()),
                    format!("{} symbols", want.len()),
                );
            }
            for (i, (g, w)) in got.iter().zip(want).enumerate() {
                if g != w && diffs.len() - from < MAX_DIFFS {
                    push(diffs, format!("[{i}]"), show_symbol(g), show_symbol(w));
                }
            }
            for (g, found) in got.iter().zip(&view.lookups) {
                let first = want.iter().find(|w| w.name == g.name);
                let ok = matches!(found, Ok(Some(f)) if Some(f) == first);
                // Names that are not UTF-8 are not looked up.
                if !ok && std::str::from_utf8(&g.name).is_ok() {
                    push(
                        diffs,
                        format!("lookup({})", g.name_lossy()),
                        match found {
                            Ok(Some(f)) => show_symbol(f),
                            Ok(None) => "(not found)".into(),
                            Err(e) => err_text(e),
                        },
                        first.map_or_else(|| "(no such symbol)".into(), show_symbol),
                    );
                }
            }
        }
        (Ok(got), None) => push(
            diffs,
            "/".into(),
            format!("{} symbols", got.len()),
            "no symbol table".into(),
        ),
        (Err(_), None) => {}
        (Err(e), Some(want)) => push(
            diffs,
            "/".into(),
            err_text(e),
            format!("{} symbols", want.len()),
        ),
    }
    verdict(diffs, from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> ComgrMeta {
        ComgrMeta::String(x.as_bytes().to_vec())
    }

    fn tree(d: &[u8]) -> ComgrMeta {
        match llvm_model(d) {
            Model::Tree(t, _) => t,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn floats_print_like_c() {
        assert_eq!(format_float(1.5), "1.500000e+00");
        assert_eq!(format_float(0.1), "1.000000e-01");
        assert_eq!(format_float(-2.5e300), "-2.500000e+300");
        assert_eq!(format_float(0.0), "0.000000e+00");
        assert_eq!(format_float(-0.0), "-0.000000e+00");
        assert_eq!(format_float(f64::NAN), "nan");
        assert_eq!(format_float(f64::NEG_INFINITY), "-INF");
        assert_eq!(format_float(1e-7), "1.000000e-07");
    }

    #[test]
    fn scalars_print_like_comgr() {
        let e = |v: Value| String::from_utf8(expected_scalar(&v).expect("scalar")).expect("utf8");
        assert_eq!(e(Value::Nil), "");
        assert_eq!(e(Value::Bool(true)), "1");
        assert_eq!(e(Value::Bool(false)), "0");
        assert_eq!(e(Value::Int(-5)), "-5");
        assert_eq!(e(Value::UInt(u64::MAX)), "18446744073709551615");
        assert_eq!(e(Value::F32(1.5)), "1.500000e+00");
        assert_eq!(expected_scalar(&Value::Bin(vec![1])), None);
    }

    #[test]
    fn model_reads_plain_maps() {
        // {"a": [1, -1], "b": nil}
        let d = [0x82, 0xa1, b'a', 0x92, 0x01, 0xff, 0xa1, b'b', 0xc0];
        assert_eq!(
            llvm_model(&d),
            Model::Tree(
                ComgrMeta::Map(vec![
                    (s("a"), ComgrMeta::List(vec![s("1"), s("-1")])),
                    (s("b"), s("")),
                ]),
                Vec::new()
            )
        );
    }

    #[test]
    fn model_fills_missing_values_with_zero() {
        // {"v": [1, 2]} cut after the 1.
        let d = [0x81, 0xa1, b'v', 0x92, 0x01];
        assert_eq!(
            llvm_model(&d),
            Model::Tree(
                ComgrMeta::Map(vec![(s("v"), ComgrMeta::List(vec![s("1"), s("0")]))]),
                vec![&MD_TRUNCATED_ZERO]
            )
        );
        // A cut inside a string is refused.
        assert!(matches!(llvm_model(&[0x81, 0xa2, b'v']), Model::Reject(..)));
        // Two missing map entries repeat the key 0: refused.
        assert!(matches!(llvm_model(&[0x82]), Model::Reject(..)));
    }

    #[test]
    fn model_keys() {
        // {"k": nil, "k": 1}: refused too (LLVM 15).
        assert!(matches!(
            llvm_model(&[0x82, 0xa1, b'k', 0xc0, 0xa1, b'k', 0x01]),
            Model::Reject(..)
        ));
        // {"k": 0, "k": 1}: refused.
        assert!(matches!(
            llvm_model(&[0x82, 0xa1, b'k', 0x00, 0xa1, b'k', 0x01]),
            Model::Reject(..)
        ));
        // {[1]: "x"} reads as {[]: 1, "x": ...}: the string becomes a key
        // and the map ends there with 1 entry of 1 declared.
        let d = [0x81, 0x91, 0x01, 0xa1, b'x'];
        assert_eq!(
            tree(&d),
            ComgrMeta::Map(vec![(ComgrMeta::List(Vec::new()), s("1"))])
        );
        // {[]: 1, []: 2}: undefined behaviour (comgr crashes).
        assert!(matches!(
            llvm_model(&[0x82, 0x90, 0x01, 0x90, 0x02]),
            Model::Crash(_)
        ));
        // {[]: 1, {}: 2}: different kinds order fine.
        assert!(matches!(
            llvm_model(&[0x82, 0x90, 0x01, 0x80, 0x02]),
            Model::Tree(..)
        ));
        // Ext and bin are refused, bin as a known quirk.
        assert!(
            matches!(llvm_model(&[0x81, 0xa1, b'k', 0xd4, 0x01, 0x00]), Model::Reject(_, q) if q.is_empty())
        );
        assert!(
            matches!(llvm_model(&[0x81, 0xa1, b'k', 0xc4, 0x00]), Model::Reject(_, q) if q == vec![&MD_BINARY])
        );
        // A root that is not a map is refused; trailing bytes are ignored.
        assert!(matches!(llvm_model(&[0x90]), Model::Reject(..)));
        assert_eq!(tree(&[0x80, 0xc1, 0xc1]), ComgrMeta::Map(Vec::new()));
    }

    #[test]
    fn diff_compares_maps_by_key() {
        let a = ComgrMeta::Map(vec![
            (s("x"), s("1")),
            (s("y"), ComgrMeta::List(vec![s("2")])),
        ]);
        let b = ComgrMeta::Map(vec![
            (s("y"), ComgrMeta::List(vec![s("3")])),
            (s("x"), s("1")),
        ]);
        let mut out = Vec::new();
        diff("", &a, &b, &mut out);
        assert_eq!(
            out,
            vec![("/y/0".to_string(), "\"2\"".to_string(), "\"3\"".to_string())]
        );
        // Repeated keys: values compared whatever the order of their maps.
        let m1 = ComgrMeta::Map(vec![(s("a"), s("1")), (s("b"), s("2"))]);
        let m2 = ComgrMeta::Map(vec![(s("b"), s("2")), (s("a"), s("1"))]);
        let rep1 = ComgrMeta::Map(vec![(s("k"), m1.clone()), (s("k"), s("x"))]);
        let rep2 = ComgrMeta::Map(vec![(s("k"), s("x")), (s("k"), m2)]);
        assert_eq!(tree_differences(&rep1, &rep2), Vec::new());
        let c = ComgrMeta::Map(vec![(s("x"), s("1"))]);
        out.clear();
        diff("", &a, &c, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0, "/y");
        assert_eq!(out[0].2, "(no such key)");
    }

    #[test]
    fn yaml_scalars_print_like_comgr() {
        assert_eq!(yaml_scalar("64"), "64");
        assert_eq!(yaml_scalar("0x10"), "16");
        assert_eq!(yaml_scalar("-3"), "-3");
        assert_eq!(yaml_scalar("true"), "true");
        assert_eq!(yaml_scalar("2.0"), "2.000000e+00");
        assert_eq!(yaml_scalar("group_ids_yz@kd"), "group_ids_yz@kd");
        assert_eq!(yaml_scalar("GlobalBuffer"), "GlobalBuffer");
        assert_eq!(yaml_scalar("n"), "false");
        assert_eq!(yaml_scalar("On"), "true");
        assert_eq!(yaml_scalar("nn"), "nn");
        assert_eq!(yaml_scalar("017"), "15");
        assert_eq!(yaml_scalar("-inf"), "-INF");
        assert_eq!(yaml_scalar("~"), "~");
    }
}
