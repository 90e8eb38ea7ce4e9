//! Single-rule mutants: a valid [`Case`] changed so that it breaks exactly
//! one rule of the oracle's catalogue.
//!
//! Each [`Mutator`] targets one rule id. Where the model can express the
//! break (a metadata value, a descriptor directive, an enable bit) the
//! mutator changes the [`CodeObject`] and re-emits it, so the ELF stays
//! laid out as `ld.lld` lays it out and, where the assembler text still
//! describes the object, the mutant keeps its text ([`MutantAsm`]). Below
//! what the model expresses (MessagePack types, note headers, ELF header
//! fields, symbol table entries, descriptor bits no directive sets) it
//! edits the MessagePack tree or the bytes.
//!
//! "Exactly one rule": the oracle must report the mutator's rule and
//! nothing else, except the rules listed in [`Mutator::also`], which the
//! same change necessarily breaks (for example, an extra metadata entry
//! for a kernel repeats both its `.symbol` and its `.name`), and infos
//! the unmutated case already had. Rules no mutation of a generated object
//! can break are in [`unmutable`] with the reason. `tests/mutants.rs`
//! checks both lists against the oracle's catalogue and every mutant
//! against the oracle.
//!
//! Mutators draw their choices (which kernel, which bit, which value) from
//! an [`Unstructured`], so a (case, bytes) pair names a mutant forever.
//!
//! Sources: the oracle's rule statements (`hsaco-conform rules`) and the
//! object-level mutations of `tests/rules_objects.rs`, whose ideas these
//! follow on generated objects.

use crate::emit::{self, elf::S_NOP_0};
use crate::metadata::{AddressSpace, ArgSpec};
use crate::object::{CodeObject, Kernel};
use crate::{Case, CaseKind, Expect, Rebuild};
use arbitrary::unstructured::Int;
use arbitrary::Unstructured;
use hsaco_oracle as oracle;
use hsaco_oracle::metadata::ValueKind;
use hsaco_oracle::msgpack::{self, Value};
use hsaco_oracle::rules::Rule;
use hsaco_oracle::targets::{
    self, CodeObjectVersion, FeatureSetting, Generation, Target, TargetId,
};

/// What assembler text a mutant carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MutantAsm {
    /// None: the change is below what assembler directives express (bytes
    /// of headers, tables, MessagePack types). The mutant's
    /// [`Case::asm`] is empty.
    None,
    /// The mutated model's assembler text, which an installed assembler
    /// turns back into the mutant's bytes ([`Case::rebuild`] says which).
    Rebuilds,
    /// The mutated model's assembler text, which LLVM's assembler rejects
    /// with a diagnostic for the broken rule; [`Case::rebuild`] is
    /// [`Rebuild::Unavailable`].
    Rejected,
}

/// The result of one mutation before it becomes a [`Case`].
struct Out {
    object: CodeObject,
    elf: Vec<u8>,
}

/// What a mutator sees: the case and its target.
struct Ctx<'a> {
    case: &'a Case,
    co: &'a CodeObject,
    t: &'static Target,
    cov: CodeObjectVersion,
}

type Apply = fn(&Ctx<'_>, &mut Unstructured<'_>) -> arbitrary::Result<Option<Out>>;

/// One mutator: breaks rule [`Mutator::rule`] of a valid case.
#[derive(Clone)]
pub struct Mutator {
    /// The rule the mutants break (its id is the case's [`Expect::Rule`]):
    /// a catalogue value, so a mutator cannot name a rule that does not
    /// exist.
    pub rule: &'static Rule,
    /// What the mutator changes, in one line.
    pub how: &'static str,
    /// Rules the same change necessarily breaks too; the oracle may report
    /// them beside [`Mutator::rule`].
    pub also: &'static [&'static Rule],
    /// What assembler text the mutants carry.
    pub asm: MutantAsm,
    apply: Apply,
}

impl std::fmt::Debug for Mutator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mutator")
            .field("rule", &self.rule.id)
            .field("how", &self.how)
            .field("also", &self.also.iter().map(|r| r.id).collect::<Vec<_>>())
            .field("asm", &self.asm)
            .finish()
    }
}

impl Mutator {
    /// True for the mutators of note and metadata rules that edit one
    /// metadata note: all but those of the rules between notes, which
    /// split a one-note case themselves.
    fn wants_one_note(&self) -> bool {
        use oracle::notes;
        const BETWEEN_NOTES: [&Rule; 4] = [
            &notes::METADATA_VERSION_CONFLICT,
            &notes::METADATA_TARGET_CONFLICT,
            &notes::METADATA_PRINTF_CONFLICT,
            &notes::METADATA_PRINTF_REPEATED,
        ];
        !BETWEEN_NOTES.iter().any(|r| std::ptr::eq(*r, self.rule))
            && (self.rule.id.starts_with("note.") || self.rule.id.starts_with("metadata."))
    }

    /// Mutates `case` (a valid case), or `None` if the rule cannot be
    /// broken on it (wrong target or version, too few kernels or
    /// arguments) or `u` ran out in a way that left no choice.
    ///
    /// The mutant's id is the case's with `~RULE` appended; its target and
    /// version are the case's. Its `object` is the model it was emitted
    /// from: the mutated model for model changes, the case's (or a
    /// prepared) model for MessagePack and byte edits, which the model
    /// does not describe.
    pub fn apply(&self, case: &Case, u: &mut Unstructured<'_>) -> Option<Case> {
        // The note and metadata mutators edit one note's bytes or tree:
        // they start from the case with its metadata in one note (the
        // rules between notes have mutators of their own).
        let single;
        let case = if !case.object.note_starts.is_empty() && self.wants_one_note() {
            single = Case::from_object(
                case.id.clone(),
                case.kind,
                case.expect,
                case.object.one_note(),
            );
            &single
        } else {
            case
        };
        let co = &case.object;
        let ctx = Ctx {
            case,
            co,
            t: co.target.target(),
            cov: co.target.cov,
        };
        // Code object V2 cases take only the V2 mutators (mutate/v2.rs),
        // and those only V2 cases: the other rules judge V3+ structures.
        if (ctx.cov == CodeObjectVersion::V2) != v2::owns(self.rule) {
            return None;
        }
        let out = (self.apply)(&ctx, u).ok().flatten()?;
        let (asm, rebuild) = match self.asm {
            MutantAsm::None => (String::new(), Rebuild::Unavailable),
            MutantAsm::Rebuilds => (emit::asm::write(&out.object), out.object.rebuild()),
            MutantAsm::Rejected => (emit::asm::write(&out.object), Rebuild::Unavailable),
        };
        Some(Case {
            id: format!("{}~{}", case.id, self.rule.id),
            seed: case.seed,
            kind: CaseKind::Mutant,
            target: case.target.clone(),
            code_object_version: case.code_object_version,
            expect: Expect::Rule(self.rule.id),
            rebuild,
            elf: out.elf,
            asm,
            object: out.object,
        })
    }
}

/// Every mutator, in catalogue order. A rule may have several mutators
/// (different ways to break it, for different targets).
pub fn mutators() -> &'static [Mutator] {
    static ALL: std::sync::OnceLock<Vec<Mutator>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let [v2_notes, v2_metadata, v2_symbols, v2_code, v2_code_metadata, v2_sgpr] = v2::AREAS;
        [
            elf::MUTATORS,
            notes::MUTATORS,
            metadata::MUTATORS,
            symbols::MUTATORS,
            kd::MUTATORS,
            sgpr::MUTATORS,
            v2_notes,
            v2_metadata,
            v2_symbols,
            v2_code,
            v2_code_metadata,
            v2_sgpr,
            smem::MUTATORS,
        ]
        .concat()
    })
}

/// True if `m` applies to code object V2 cases only (the others apply to
/// V3+ cases only).
pub fn for_v2(m: &Mutator) -> bool {
    v2::owns(m.rule)
}

/// Mutates `case` to break `rule` with the first of the rule's mutators
/// (in a drawn order) that applies; `None` if none does or the rule has
/// none.
pub fn mutate(case: &Case, rule: &str, u: &mut Unstructured<'_>) -> Option<Case> {
    let ms: Vec<&'static Mutator> = mutators().iter().filter(|m| m.rule.id == rule).collect();
    first_applicable(case, &ms, u).map(|(_, c)| c)
}

/// Mutates `case` with a drawn mutator among those that apply to it;
/// `None` if none applies.
pub fn arbitrary_mutant(case: &Case, u: &mut Unstructured<'_>) -> Option<Case> {
    arbitrary_mutation(case, u).map(|(_, c)| c)
}

/// [`arbitrary_mutant`], also naming the mutator that made the mutant
/// (a rule may have several).
pub fn arbitrary_mutation(
    case: &Case,
    u: &mut Unstructured<'_>,
) -> Option<(&'static Mutator, Case)> {
    let ms: Vec<&'static Mutator> = mutators().iter().collect();
    first_applicable(case, &ms, u)
}

/// Tries the mutators from a drawn start, wrapping around, until one
/// applies.
fn first_applicable(
    case: &Case,
    ms: &[&'static Mutator],
    u: &mut Unstructured<'_>,
) -> Option<(&'static Mutator, Case)> {
    // Only the mutators of the case's side (V2 or V3+) can apply: drawing
    // among them keeps each mutator's share even, instead of handing the
    // other side's shares to whichever mutator follows them in the list.
    let v2_case = case.object.target.cov == CodeObjectVersion::V2;
    let ms: Vec<&'static Mutator> = ms
        .iter()
        .copied()
        .filter(|m| v2::owns(m.rule) == v2_case)
        .collect();
    if ms.is_empty() {
        return None;
    }
    let start = u.choose_index(ms.len()).unwrap_or(0);
    (0..ms.len()).find_map(|i| {
        let m = ms[(start + i) % ms.len()];
        m.apply(case, u).map(|c| (m, c))
    })
}

// One module per rule area (the catalogue's order), each with its
// mutators and their table; `edit` is the ELF editor they share.
mod edit;
mod elf;
mod kd;
mod metadata;
mod notes;
mod sgpr;
mod smem;
mod symbols;
mod v2;
use edit::*;
use metadata::*;
use notes::*;
use symbols::*;

/// Rules of the catalogue that no mutation of a generated object breaks,
/// with the reason: the base list, the V2 and SMEM modules' lists, and
/// every dispatch packet rule.
pub fn unmutable() -> &'static [(&'static Rule, &'static str)] {
    static ALL: std::sync::OnceLock<Vec<(&'static Rule, &'static str)>> =
        std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut all = [UNMUTABLE_BASE, v2::UNMUTABLE, smem::UNMUTABLE].concat();
        all.extend(oracle::dispatch::RULES.iter().map(|&r| (r, DISPATCH)));
        all
    })
}

/// Reason for a dispatch rule in [`unmutable`].
const DISPATCH: &str = "the rule judges a kernel dispatch packet, which a code object does not hold (oracle/src/dispatch.rs tests break each rule alone)";

/// The object-level rules no mutation breaks (V2 and SMEM rules are in
/// their modules).
static UNMUTABLE_BASE: &[(&Rule, &str)] = &[
    (&oracle::notes::OWNER_TYPE, INFO),
    (&oracle::elf::E_FLAGS_MACH_RETIRED, INFO),
    (&oracle::notes::CODE_OBJECT_V1, INFO),
    (&oracle::metadata::KEY_UNKNOWN, INFO),
    (&oracle::metadata::KEY_VENDOR, INFO),
    (&oracle::metadata::KEY_VERSION, INFO),
    (&oracle::metadata::ARG_VALUE_TYPE, INFO),
    (&oracle::metadata::ARG_KEY_KIND, INFO),
    (&oracle::metadata_v2::NUL_TERMINATED, INFO),
    (&oracle::metadata_v2::ARG_VALUE_TYPE, INFO),
    (&oracle::metadata_v2::ARG_KEY_KIND, INFO),
    (&oracle::kd::RSRC1_GRANULATED_SGPR_COUNT, INFO),
    (&oracle::kd::PROPERTIES_USES_DYNAMIC_STACK, INFO),
    (&oracle::kernel_code::MAX_SCRATCH_BACKING_MEMORY, INFO),
    (&oracle::sgpr::USER_SGPR_COUNT_EXTRA, INFO),
];

/// Reason for an info rule in [`unmutable`].
const INFO: &str = "info: the rule reports a fact and breaks nothing, so a mutant would be a valid object (tests/rules_objects.rs reaches it on clang-19 objects)";

// ---------------------------------------------------------------------------
// Helpers: drawing.

/// A value in `lo..=hi`; an error (no mutant) if the range is empty.
fn int<T: Int>(u: &mut Unstructured<'_>, lo: T, hi: T) -> arbitrary::Result<T> {
    if lo > hi {
        return Err(arbitrary::Error::IncorrectFormat);
    }
    u.int_in_range(lo..=hi)
}

/// A value in `lo..=hi` other than `not`.
fn int_except(u: &mut Unstructured<'_>, lo: u64, hi: u64, not: &[u64]) -> arbitrary::Result<u64> {
    let v = int(u, lo, hi)?;
    if !not.contains(&v) {
        return Ok(v);
    }
    // Walk up (then around) to the next allowed value.
    (1..=hi - lo)
        .map(|d| lo + (v - lo + d) % (hi - lo + 1))
        .find(|x| !not.contains(x))
        .ok_or(arbitrary::Error::IncorrectFormat)
}

/// A number in `lo..=hi` that is not a power of two (`lo` at least 3, so
/// the neighbours of a power of two are not powers of two).
fn non_pow2(u: &mut Unstructured<'_>, lo: u64, hi: u64) -> arbitrary::Result<u64> {
    let v = int(u, lo.max(3), hi)?;
    if !v.is_power_of_two() {
        Ok(v)
    } else if v < hi {
        Ok(v + 1)
    } else if v > lo.max(3) {
        Ok(v - 1)
    } else {
        Err(arbitrary::Error::IncorrectFormat)
    }
}

fn pick<T: Copy>(u: &mut Unstructured<'_>, from: &[T]) -> arbitrary::Result<T> {
    Ok(*u.choose(from)?)
}

/// Index of a kernel of `co` satisfying `pred`, drawn.
fn kernel_where(
    co: &CodeObject,
    u: &mut Unstructured<'_>,
    pred: impl Fn(&Kernel) -> bool,
) -> arbitrary::Result<Option<usize>> {
    let ok: Vec<usize> = (0..co.kernels.len())
        .filter(|&i| pred(&co.kernels[i]))
        .collect();
    if ok.is_empty() {
        return Ok(None);
    }
    Ok(Some(pick(u, &ok)?))
}

/// A drawn kernel index.
fn any_kernel(co: &CodeObject, u: &mut Unstructured<'_>) -> arbitrary::Result<usize> {
    u.choose_index(co.kernels.len())
}

/// A lower-case identifier of 1 to 12 letters (never a register name or
/// YAML keyword: it starts with `x_`).
fn word(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    let n = int(u, 1usize, 10)?;
    let mut s = String::from("x_");
    for _ in 0..n {
        s.push(char::from(b'a' + int(u, 0u8, 25)?));
    }
    Ok(s)
}

// ---------------------------------------------------------------------------
// Helpers: whole objects.

/// The model re-emitted.
fn remodel(object: CodeObject) -> Out {
    let elf = emit::elf_bytes(&object);
    Out { object, elf }
}

/// The model with `md` as its metadata note description.
fn with_md_bytes(object: CodeObject, md: &[u8]) -> Out {
    let elf = emit::elf::write(&object, md);
    Out { object, elf }
}

/// The model with its MessagePack metadata changed by `f` (`None` from
/// `f`: not applicable).
fn with_md(object: CodeObject, f: impl FnOnce(&mut Value) -> Option<()>) -> Option<Out> {
    let bytes = emit::metadata_bytes(&object);
    let (mut v, _) = msgpack::decode(&bytes).ok()?;
    f(&mut v)?;
    Some(with_md_bytes(object, &msgpack::encode(&v)))
}

/// The model's note section with `extra` (whole note records, or any bytes)
/// after the metadata note: written through the ELF writer with the
/// extra bytes appended to the description, then the description size put
/// back, so the layout stays the linker's.
fn with_extra_notes(object: CodeObject, extra: &[u8]) -> Out {
    let md = emit::metadata_bytes(&object);
    let mut payload = md.clone();
    payload.resize(md.len().div_ceil(4) * 4, 0);
    payload.extend_from_slice(extra);
    let mut out = with_md_bytes(object, &payload);
    let mut e = Ed::new(&mut out.elf);
    if let Some(s) = e.section(".note") {
        e.set_u32(s.offset as usize + 4, md.len() as u32);
    }
    out
}

/// One note record: header, name (with its NUL unless `nul` is false),
/// padding, description, padding.
fn note_record(name: &[u8], nul: bool, n_type: u32, desc: &[u8]) -> Vec<u8> {
    let namesz = name.len() + usize::from(nul);
    let mut v = Vec::with_capacity(12 + namesz + desc.len() + 8);
    v.extend_from_slice(&(namesz as u32).to_le_bytes());
    v.extend_from_slice(&(desc.len() as u32).to_le_bytes());
    v.extend_from_slice(&n_type.to_le_bytes());
    v.extend_from_slice(name);
    if nul {
        v.push(0);
    }
    v.resize(v.len().div_ceil(4) * 4, 0);
    v.extend_from_slice(desc);
    v.resize(v.len().div_ceil(4) * 4, 0);
    v
}

// ---------------------------------------------------------------------------
// Helpers: MessagePack trees.

fn map_mut(v: &mut Value) -> Option<&mut Vec<(Value, Value)>> {
    match v {
        Value::Map(m) => Some(m),
        _ => None,
    }
}

fn is_key(k: &Value, key: &str) -> bool {
    k.as_str_bytes() == Some(key.as_bytes())
}

fn get_mut<'a>(m: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    map_mut(m)?
        .iter_mut()
        .find(|(k, _)| is_key(k, key))
        .map(|e| &mut e.1)
}

/// Sets `key` (replacing its value, or adding it at the end).
fn set_key(m: &mut Value, key: &str, val: Value) -> Option<()> {
    let map = map_mut(m)?;
    if let Some(e) = map.iter_mut().find(|(k, _)| is_key(k, key)) {
        e.1 = val;
    } else {
        map.push((Value::str(key), val));
    }
    Some(())
}

/// Removes `key`; `None` if it was not there.
fn del_key(m: &mut Value, key: &str) -> Option<()> {
    let map = map_mut(m)?;
    let n = map.len();
    map.retain(|(k, _)| !is_key(k, key));
    (map.len() < n).then_some(())
}

fn kernels_mut(root: &mut Value) -> Option<&mut Vec<Value>> {
    match get_mut(root, "amdhsa.kernels")? {
        Value::Array(a) => Some(a),
        _ => None,
    }
}

fn kernel_mut(root: &mut Value, i: usize) -> Option<&mut Value> {
    kernels_mut(root)?.get_mut(i)
}

fn args_mut(kernel: &mut Value) -> Option<&mut Vec<Value>> {
    match get_mut(kernel, ".args")? {
        Value::Array(a) => Some(a),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
