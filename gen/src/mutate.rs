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
use hsaco_oracle::metadata::ValueKind;
use hsaco_oracle::msgpack::{self, Value};
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
    /// The rule id the mutants break (the case's [`Expect::Rule`]).
    pub rule: &'static str,
    /// What the mutator changes, in one line.
    pub how: &'static str,
    /// Rules the same change necessarily breaks too; the oracle may report
    /// them beside [`Mutator::rule`].
    pub also: &'static [&'static str],
    /// What assembler text the mutants carry.
    pub asm: MutantAsm,
    apply: Apply,
}

impl std::fmt::Debug for Mutator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mutator")
            .field("rule", &self.rule)
            .field("how", &self.how)
            .field("also", &self.also)
            .field("asm", &self.asm)
            .finish()
    }
}

impl Mutator {
    /// True for the mutators of note and metadata rules that edit one
    /// metadata note: all but those of the rules between notes, which
    /// split a one-note case themselves.
    fn wants_one_note(&self) -> bool {
        const BETWEEN_NOTES: &[&str] = &[
            "note.metadata.version_conflict",
            "note.metadata.target_conflict",
            "note.metadata.printf_conflict",
            "note.metadata.printf_repeated",
        ];
        !BETWEEN_NOTES.contains(&self.rule)
            && (self.rule.starts_with("note.") || self.rule.starts_with("metadata."))
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
            id: format!("{}~{}", case.id, self.rule),
            seed: case.seed,
            kind: CaseKind::Mutant,
            target: case.target.clone(),
            code_object_version: case.code_object_version,
            expect: Expect::Rule(self.rule),
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
    ALL.get_or_init(|| [MUTATORS, v2::MUTATORS, smem::MUTATORS].concat())
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
    let ms: Vec<&'static Mutator> = mutators().iter().filter(|m| m.rule == rule).collect();
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

mod smem;
mod v2;

/// Rules of the catalogue that no mutation of a generated object breaks,
/// with the reason: the base list and the V2 and SMEM modules' lists.
pub fn unmutable() -> &'static [(&'static str, &'static str)] {
    static ALL: std::sync::OnceLock<Vec<(&'static str, &'static str)>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| [UNMUTABLE_BASE, v2::UNMUTABLE, smem::UNMUTABLE].concat())
}

/// The object-level rules no mutation breaks (V2 and SMEM rules are in
/// their modules).
static UNMUTABLE_BASE: &[(&str, &str)] = &[
    ("note.unknown", INFO),
    ("elf.e_flags.mach_retired", INFO),
    ("note.code_object_v1", INFO),
    ("metadata.key.unknown", INFO),
    ("metadata.key.vendor", INFO),
    ("metadata.key.version", INFO),
    ("metadata.arg.value_type", INFO),
    ("metadata.arg.key_kind", INFO),
    ("metadata.v2.nul_terminated", INFO),
    ("metadata.v2.arg.value_type", INFO),
    ("metadata.v2.arg.key_kind", INFO),
    ("kd.rsrc1.granulated_sgpr_count", INFO),
    ("kd.properties.uses_dynamic_stack", INFO),
    ("code.max_scratch_backing_memory", INFO),
    ("sgpr.user_sgpr_count.extra", INFO),
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
// Helpers: ELF bytes of a generated object.

/// A section header of the object being edited.
#[derive(Debug, Clone)]
struct Sec {
    index: usize,
    name: String,
    sh_type: u32,
    addr: u64,
    offset: u64,
    size: u64,
    link: u32,
    /// File offset of the header.
    hdr: usize,
}

/// A symbol table entry.
#[derive(Debug, Clone)]
struct Sym {
    /// File offset of the entry.
    at: usize,
    name: String,
    info: u8,
    shndx: u16,
    value: u64,
    size: u64,
}

/// A program header.
#[derive(Debug, Clone, Copy)]
struct Ph {
    at: usize,
    p_type: u32,
    offset: u64,
    filesz: u64,
}

/// Reads and patches the bytes of a generated object (which the ELF
/// writer made, so its tables are well-formed; reads still use `get`).
struct Ed<'a> {
    b: &'a mut Vec<u8>,
}

impl<'a> Ed<'a> {
    fn new(b: &'a mut Vec<u8>) -> Self {
        Ed { b }
    }
    fn u16(&self, at: usize) -> u16 {
        hsaco_oracle::elf::le_u16(self.b, at).unwrap_or(0)
    }
    fn u32(&self, at: usize) -> u32 {
        hsaco_oracle::elf::le_u32(self.b, at).unwrap_or(0)
    }
    fn u64(&self, at: usize) -> u64 {
        hsaco_oracle::elf::le_u64(self.b, at).unwrap_or(0)
    }
    fn put(&mut self, at: usize, v: &[u8]) {
        if let Some(d) = self.b.get_mut(at..at + v.len()) {
            d.copy_from_slice(v);
        }
    }
    fn set_u8(&mut self, at: usize, v: u8) {
        self.put(at, &[v]);
    }
    fn set_u16(&mut self, at: usize, v: u16) {
        self.put(at, &v.to_le_bytes());
    }
    fn set_u32(&mut self, at: usize, v: u32) {
        self.put(at, &v.to_le_bytes());
    }
    fn set_u64(&mut self, at: usize, v: u64) {
        self.put(at, &v.to_le_bytes());
    }
    fn len(&self) -> u64 {
        self.b.len() as u64
    }

    fn phdrs(&self) -> Vec<Ph> {
        let phoff = self.u64(32) as usize;
        let n = usize::from(self.u16(56));
        (0..n)
            .map(|i| {
                let at = phoff + 56 * i;
                Ph {
                    at,
                    p_type: self.u32(at),
                    offset: self.u64(at + 8),
                    filesz: self.u64(at + 32),
                }
            })
            .collect()
    }

    fn sections(&self) -> Vec<Sec> {
        let shoff = self.u64(40) as usize;
        let n = usize::from(self.u16(60));
        let shstr = usize::from(self.u16(62));
        let str_off = self.u64(shoff + 64 * shstr + 24) as usize;
        (0..n)
            .map(|i| {
                let at = shoff + 64 * i;
                let name_off = self.u32(at) as usize;
                Sec {
                    index: i,
                    name: self.cstr(str_off + name_off),
                    sh_type: self.u32(at + 4),
                    addr: self.u64(at + 16),
                    offset: self.u64(at + 24),
                    size: self.u64(at + 32),
                    link: self.u32(at + 40),
                    hdr: at,
                }
            })
            .collect()
    }

    fn cstr(&self, at: usize) -> String {
        let tail = self.b.get(at..).unwrap_or(&[]);
        let end = tail.iter().position(|&c| c == 0).unwrap_or(tail.len());
        String::from_utf8_lossy(&tail[..end]).into_owned()
    }

    fn section(&self, name: &str) -> Option<Sec> {
        self.sections().into_iter().find(|s| s.name == name)
    }

    /// The symbols of section `table` (`.symtab` or `.dynsym`), the null
    /// symbol included.
    fn symbols(&self, table: &str) -> Vec<Sym> {
        let secs = self.sections();
        let Some(t) = secs.iter().find(|s| s.name == table) else {
            return Vec::new();
        };
        let str_off = secs.get(t.link as usize).map_or(0, |s| s.offset as usize);
        (0..(t.size / 24) as usize)
            .map(|i| {
                let at = t.offset as usize + 24 * i;
                Sym {
                    at,
                    name: self.cstr(str_off + self.u32(at) as usize),
                    info: self.b.get(at + 4).copied().unwrap_or(0),
                    shndx: self.u16(at + 6),
                    value: self.u64(at + 8),
                    size: self.u64(at + 16),
                }
            })
            .collect()
    }

    /// The entries of symbol `name` in both symbol tables.
    fn both(&self, name: &str) -> Vec<Sym> {
        [".symtab", ".dynsym"]
            .iter()
            .flat_map(|t| self.symbols(t))
            .filter(|s| s.name == name)
            .collect()
    }

    /// Applies `f` to the entries of symbol `name` in both tables.
    fn edit_symbol(&mut self, name: &str, f: impl Fn(&mut Self, &Sym)) -> Option<()> {
        let syms = self.both(name);
        if syms.is_empty() {
            return None;
        }
        for s in &syms {
            f(self, s);
        }
        Some(())
    }

    /// File offset of the descriptor of kernel `name`.
    fn kd(&self, name: &str) -> Option<usize> {
        let s = self
            .symbols(".symtab")
            .into_iter()
            .find(|s| s.name == format!("{name}.kd"))?;
        let sec = self
            .sections()
            .into_iter()
            .find(|x| x.index == usize::from(s.shndx))?;
        Some((s.value - sec.addr + sec.offset) as usize)
    }

    /// Offset, within the string table linked to `table`, of the string
    /// `name` (NUL-terminated).
    fn str_offset(&self, table: &str, name: &str) -> Option<u32> {
        let secs = self.sections();
        let t = secs.iter().find(|s| s.name == table)?;
        let st = secs.get(t.link as usize)?;
        let data = self
            .b
            .get(st.offset as usize..(st.offset + st.size) as usize)?;
        let mut needle = name.as_bytes().to_vec();
        needle.push(0);
        data.windows(needle.len())
            .position(|w| w == needle.as_slice())
            .map(|p| p as u32)
    }
}

/// The ELF bytes of `out`, edited by `f`; `None` from `f`: not applicable.
fn patch(mut out: Out, f: impl FnOnce(&mut Ed<'_>) -> Option<()>) -> Option<Out> {
    f(&mut Ed::new(&mut out.elf))?;
    Some(out)
}

/// The case's own bytes, edited by `f`.
fn patch_case(c: &Ctx<'_>, f: impl FnOnce(&mut Ed<'_>) -> Option<()>) -> Option<Out> {
    patch(
        Out {
            object: c.co.clone(),
            elf: c.case.elf.clone(),
        },
        f,
    )
}

/// Descriptor field offsets.
mod kdo {
    pub const RSRC3: usize = 44;
    pub const RSRC1: usize = 48;
    pub const RSRC2: usize = 52;
    pub const PROPS: usize = 56;
    pub const PRELOAD: usize = 58;
    pub const ENTRY: usize = 16;
}

/// Rewrites the 32-bit descriptor field at `field` of kernel `k`.
fn kd_u32(e: &mut Ed<'_>, k: &str, field: usize, f: impl FnOnce(u32) -> u32) -> Option<()> {
    let at = e.kd(k)? + field;
    let v = e.u32(at);
    e.set_u32(at, f(v));
    Some(())
}

/// Rewrites the 16-bit descriptor field at `field` of kernel `k`.
fn kd_u16(e: &mut Ed<'_>, k: &str, field: usize, f: impl FnOnce(u16) -> u16) -> Option<()> {
    let at = e.kd(k)? + field;
    let v = e.u16(at);
    e.set_u16(at, f(v));
    Some(())
}

/// A byte-level descriptor mutation of a drawn kernel: `f` gets the
/// kernel and returns the edit.
fn kd_edit(
    c: &Ctx<'_>,
    u: &mut Unstructured<'_>,
    pred: impl Fn(&Kernel) -> bool,
    f: impl FnOnce(&mut Unstructured<'_>, &Kernel) -> arbitrary::Result<Option<KdEdit>>,
) -> arbitrary::Result<Option<Out>> {
    let Some(i) = kernel_where(c.co, u, pred)? else {
        return Ok(None);
    };
    let k = &c.co.kernels[i];
    let Some(edit) = f(u, k)? else {
        return Ok(None);
    };
    Ok(patch_case(c, |e| match edit {
        KdEdit::Or32(field, bits) => kd_u32(e, &k.name, field, |v| v | bits),
        KdEdit::Set32(field, mask, val) => kd_u32(e, &k.name, field, |v| v & !mask | val),
        KdEdit::Or16(field, bits) => kd_u16(e, &k.name, field, |v| v | bits),
        KdEdit::Set16(field, val) => kd_u16(e, &k.name, field, |_| val),
        KdEdit::Byte(at, val) => {
            let base = e.kd(&k.name)?;
            e.set_u8(base + at, val);
            Some(())
        }
    }))
}

/// One byte-level change to a descriptor.
enum KdEdit {
    /// OR bits into a 32-bit field.
    Or32(usize, u32),
    /// Replace the `mask` bits of a 32-bit field with `val`.
    Set32(usize, u32, u32),
    /// OR bits into a 16-bit field.
    Or16(usize, u16),
    /// Replace a 16-bit field.
    Set16(usize, u16),
    /// Replace one byte.
    Byte(usize, u8),
}

/// A natural alignment check applies to pointer and hidden arguments of
/// size 2, 4 or 8.
fn natural_align(a: &ArgSpec) -> u32 {
    if a.kind != ValueKind::ByValue && matches!(a.size, 2 | 4 | 8) {
        a.size
    } else {
        1
    }
}

fn is_pointer_kind(k: ValueKind) -> bool {
    matches!(
        k,
        ValueKind::GlobalBuffer
            | ValueKind::Image
            | ValueKind::Sampler
            | ValueKind::Pipe
            | ValueKind::Queue
    )
}

/// Re-derives the metadata `.sgpr_count` and keeps `.amdhsa_next_free_sgpr`
/// above the initial SGPRs after the enables of kernel `i` changed.
fn refit_sgprs(co: &mut CodeObject, i: usize) {
    let tc = co.target;
    let t = tc.target();
    let k = &mut co.kernels[i];
    let need = k.descriptor.enables.total_sgprs(t);
    if k.descriptor.next_free_sgpr < need {
        k.descriptor.next_free_sgpr = need;
    }
    k.metadata.sgpr_count = k.descriptor.sgpr_count(&tc).into();
}

/// The user SGPR limit with the GFX11 padding: enabled + preload must stay
/// at most 16 to keep `sgpr.user_sgpr_count.limit` quiet.
fn user_room(k: &Kernel, t: &Target) -> u16 {
    16u16.saturating_sub(k.descriptor.enables.implied_user_sgprs(t))
}

type R = arbitrary::Result<Option<Out>>;

// ---------------------------------------------------------------------------
// elf: the header, program headers and section headers (bytes only).

/// Sets header byte `at` to a drawn value other than `not`.
fn header_byte(c: &Ctx<'_>, u: &mut Unstructured<'_>, at: usize, lo: u8, not: &[u64]) -> R {
    let v = int_except(u, u64::from(lo), 255, not)? as u8;
    Ok(patch_case(c, |e| {
        e.set_u8(at, v);
        Some(())
    }))
}

fn elf_header_truncated(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Keep the magic, so that readers still take the file for ELF.
    let n = int(u, 16usize, 63)?;
    Ok(patch_case(c, |e| {
        e.b.truncate(n);
        Some(())
    }))
}

fn elf_ident_class(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    header_byte(c, u, 4, 0, &[2])
}

fn elf_ident_data(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    header_byte(c, u, 5, 0, &[1])
}

fn elf_ident_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    header_byte(c, u, 6, 0, &[1])
}

fn elf_ident_osabi(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    header_byte(c, u, 7, 0, &[64])
}

fn elf_ident_abi_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    header_byte(c, u, 8, 5, &[])
}

fn elf_ident_pad(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let at = int(u, 9usize, 15)?;
    header_byte(c, u, at, 1, &[])
}

fn elf_type(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let v = int_except(u, 0, 0xffff, &[1, 3])? as u16;
    Ok(patch_case(c, |e| {
        e.set_u16(16, v);
        Some(())
    }))
}

fn elf_machine(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let v = int_except(u, 0, 0xffff, &[224])? as u16;
    Ok(patch_case(c, |e| {
        e.set_u16(18, v);
        Some(())
    }))
}

fn elf_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let v = int_except(u, 0, u64::from(u32::MAX), &[1])? as u32;
    Ok(patch_case(c, |e| {
        e.set_u32(20, v);
        Some(())
    }))
}

fn elf_entry(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let v = int(u, 1u64, u64::MAX)?;
    Ok(patch_case(c, |e| {
        e.set_u64(24, v);
        Some(())
    }))
}

fn elf_header_sizes(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // e_ehsize only: a wrong e_phentsize or e_shentsize hides the tables,
    // which breaks every rule that needs them.
    let v = int_except(u, 0, 0xffff, &[64])? as u16;
    Ok(patch_case(c, |e| {
        e.set_u16(52, v);
        Some(())
    }))
}

/// Rewrites the low byte (EF_AMDGPU_MACH) of e_flags.
fn set_mach(c: &Ctx<'_>, mach: u8) -> Option<Out> {
    patch_case(c, |e| {
        let f = e.u32(48);
        e.set_u32(48, f & !0xff | u32::from(mach));
        Some(())
    })
}

fn elf_e_flags_mach(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // None, r600-era or reserved values.
    let bad: Vec<u8> = (0..=255u8)
        .filter(|&m| {
            targets::by_mach(m).is_none_or(|t| !t.hsa || t.generation == Generation::R600)
                && targets::unmodelled_mach(m).is_none()
        })
        .collect();
    let m = pick(u, &bad)?;
    Ok(set_mach(c, m))
}

fn elf_e_flags_mach_unmodelled(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let (m, _) = pick(u, targets::UNMODELLED)?;
    Ok(set_mach(c, m))
}

fn elf_e_flags_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let defined = c.cov.defined_e_flags();
    // Bits 31:24 are the generic version in V6 and reserved before; keep
    // to the bits reserved in every version so the rule is this one.
    let bits: Vec<u32> = (0..24).filter(|b| defined >> b & 1 == 0).collect();
    let b = pick(u, &bits)?;
    Ok(patch_case(c, |e| {
        let f = e.u32(48);
        e.set_u32(48, f | 1 << b);
        Some(())
    }))
}

/// The xnack (`shift` 8) or sramecc (`shift` 10) field made to disagree
/// with the processor: a setting where it has none, "unsupported" where
/// it has the feature (V4+; V3 has one bit, where 0 means off).
fn feature_field(c: &Ctx<'_>, u: &mut Unstructured<'_>, has: bool, v3_bit: u32, shift: u32) -> R {
    let flags = c.co.target.e_flags();
    let new = if c.cov <= CodeObjectVersion::V3 {
        if has {
            return Ok(None);
        }
        flags | v3_bit
    } else if has {
        flags & !(3 << shift)
    } else {
        flags & !(3 << shift) | int(u, 1u32, 3)? << shift
    };
    Ok(patch_case(c, |e| {
        e.set_u32(48, new);
        Some(())
    }))
}

fn elf_e_flags_xnack(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    feature_field(c, u, c.t.xnack, 0x100, 8)
}

fn elf_e_flags_sramecc(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    feature_field(c, u, c.t.sramecc, 0x200, 10)
}

fn elf_e_flags_generic_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V6 {
        return Ok(None);
    }
    let v = if c.t.is_generic {
        0
    } else {
        int(u, 1u32, 255)?
    };
    Ok(patch_case(c, |e| {
        let f = e.u32(48);
        e.set_u32(48, f & 0x00ff_ffff | v << 24);
        Some(())
    }))
}

fn elf_e_flags_generic_needs_v6(c: &Ctx<'_>, _u: &mut Unstructured<'_>) -> R {
    if !c.t.is_generic {
        return Ok(None);
    }
    // V5 (EI_ABIVERSION 3) has the same metadata version as V6 and no
    // generic version byte.
    Ok(patch_case(c, |e| {
        e.set_u8(8, CodeObjectVersion::V5.abi_version());
        let f = e.u32(48);
        e.set_u32(48, f & 0x00ff_ffff);
        Some(())
    }))
}

const PT_NULL: u32 = 0;
const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;
const PT_NOTE: u32 = 4;
const PT_PHDR: u32 = 6;
const PT_GNU_STACK: u32 = 0x6474_e551;
const PT_GNU_RELRO: u32 = 0x6474_e552;

/// A drawn program header whose type is in `types`.
fn phdr_of(e: &Ed<'_>, u: &mut Unstructured<'_>, types: &[u32]) -> arbitrary::Result<Option<Ph>> {
    let ps: Vec<Ph> = e
        .phdrs()
        .into_iter()
        .filter(|p| types.contains(&p.p_type))
        .collect();
    if ps.is_empty() {
        return Ok(None);
    }
    Ok(Some(pick(u, &ps)?))
}

fn elf_phdr_bounds(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // A segment the loader does not map runs past the end of the file
    // (a PT_LOAD or PT_NOTE would also lose its sections).
    let mut elf = c.case.elf.clone();
    let e = Ed::new(&mut elf);
    let Some(p) = phdr_of(&e, u, &[PT_PHDR, PT_GNU_RELRO, PT_GNU_STACK])? else {
        return Ok(None);
    };
    let past = e.len().saturating_sub(p.offset) + int(u, 1u64, 0x10000)?;
    Ok(patch_case(c, |e| {
        e.set_u64(p.at + 32, past);
        e.set_u64(p.at + 40, past.max(e.u64(p.at + 40)));
        Some(())
    }))
}

fn elf_phdr_sizes(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Segments other than PT_LOAD, whose p_memsz covers no section.
    let mut elf = c.case.elf.clone();
    let e = Ed::new(&mut elf);
    let Some(p) = phdr_of(&e, u, &[PT_PHDR, PT_DYNAMIC, PT_NOTE, PT_GNU_RELRO])? else {
        return Ok(None);
    };
    if p.filesz == 0 {
        return Ok(None);
    }
    let mem = int(u, 0, p.filesz - 1)?;
    Ok(patch_case(c, |e| {
        e.set_u64(p.at + 40, mem);
        Some(())
    }))
}

fn elf_phdr_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let mut elf = c.case.elf.clone();
    let e = Ed::new(&mut elf);
    let all: Vec<u32> = e.phdrs().iter().map(|p| p.p_type).collect();
    let Some(p) = phdr_of(&e, u, &all)? else {
        return Ok(None);
    };
    let a = non_pow2(u, 3, 0x1_0000)?;
    Ok(patch_case(c, |e| {
        e.set_u64(p.at + 48, a);
        Some(())
    }))
}

/// A drawn section among `names`.
fn section_of(
    e: &Ed<'_>,
    u: &mut Unstructured<'_>,
    names: &[&str],
) -> arbitrary::Result<Option<Sec>> {
    let ss: Vec<Sec> = e
        .sections()
        .into_iter()
        .filter(|s| names.contains(&s.name.as_str()))
        .collect();
    if ss.is_empty() {
        return Ok(None);
    }
    let i = u.choose_index(ss.len())?;
    Ok(ss.into_iter().nth(i))
}

/// Sections nothing the oracle checks reads (lld's dynamic linking
/// tables; the oracle takes symbols from `.symtab`).
const UNREAD_SECTIONS: &[&str] = &[".dynsym", ".gnu.hash", ".hash", ".dynstr", ".dynamic"];

fn elf_shdr_bounds(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Move the file bytes past the end (the address, which PT_LOAD
    // coverage is judged by, stays).
    let mut elf = c.case.elf.clone();
    let e = Ed::new(&mut elf);
    let Some(s) = section_of(&e, u, UNREAD_SECTIONS)? else {
        return Ok(None);
    };
    let off = e.len() - s.size.min(e.len()) + int(u, 1u64, 0x10000)?;
    Ok(patch_case(c, |e| {
        e.set_u64(s.hdr + 24, off);
        Some(())
    }))
}

fn elf_shdr_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let mut elf = c.case.elf.clone();
    let e = Ed::new(&mut elf);
    // Not the note section, whose alignment the note reader also judges.
    let names: Vec<String> = e
        .sections()
        .into_iter()
        .skip(1)
        .map(|s| s.name)
        .filter(|n| n != ".note")
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let Some(s) = section_of(&e, u, &names)? else {
        return Ok(None);
    };
    let a = non_pow2(u, 3, 0x1_0000)?;
    Ok(patch_case(c, |e| {
        e.set_u64(s.hdr + 48, a);
        Some(())
    }))
}

fn elf_shstrndx(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let mut elf = c.case.elf.clone();
    let e = Ed::new(&mut elf);
    if u.arbitrary::<bool>()? {
        // e_shstrndx names a section that is not a string table, or none.
        let secs = e.sections();
        let mut bad: Vec<u16> = secs
            .iter()
            .filter(|s| s.sh_type != 3)
            .map(|s| s.index as u16)
            .collect();
        bad.push(secs.len() as u16 + int(u, 0u16, 100)?);
        let v = pick(u, &bad)?;
        Ok(patch_case(c, |e| {
            e.set_u16(62, v);
            Some(())
        }))
    } else {
        // One unread section's name offset past the end of .shstrtab.
        let Some(s) = section_of(&e, u, UNREAD_SECTIONS)? else {
            return Ok(None);
        };
        let Some(strs) = e.section(".shstrtab") else {
            return Ok(None);
        };
        let off = strs.size as u32 + int(u, 0u32, 0x1000)?;
        Ok(patch_case(c, |e| {
            e.set_u32(s.hdr, off);
            Some(())
        }))
    }
}

fn elf_load_segments(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let mut elf = c.case.elf.clone();
    let e = Ed::new(&mut elf);
    let Some(p) = phdr_of(&e, u, &[PT_LOAD])? else {
        return Ok(None);
    };
    Ok(patch_case(c, |e| {
        e.set_u32(p.at, PT_NULL);
        Some(())
    }))
}

// ---------------------------------------------------------------------------
// note: the note section (V3+ writes one NT_AMDGPU_METADATA note).

const NT_AMDGPU_METADATA: u32 = 32;

fn note_section_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Powers of two that divide the note's address (0x200), so only the
    // note rule breaks; 0 and 1 read as 4.
    let a = pick(u, &[2u64, 16, 32, 64, 128, 256, 512])?;
    Ok(patch_case(c, |e| {
        let s = e.section(".note")?;
        if s.addr % a != 0 {
            return None;
        }
        e.set_u64(s.hdr + 48, a);
        Some(())
    }))
}

fn note_truncated(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // 4 or 8 bytes after the metadata note: a note header cut short.
    let n = pick(u, &[4usize, 8])?;
    let mut extra = Vec::with_capacity(n);
    for _ in 0..n {
        extra.push(u.arbitrary::<u8>()?);
    }
    Ok(Some(with_extra_notes(c.co.clone(), &extra)))
}

fn note_name_terminator(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // A second note whose name has no terminating NUL (or a NUL inside).
    let n = int(u, 1usize, 12)?;
    let mut name = Vec::with_capacity(n + 2);
    for _ in 0..n {
        name.push(b'A' + int(u, 0u8, 25)?);
    }
    let rec = if u.arbitrary::<bool>()? {
        note_record(&name, false, int(u, 1u32, 0xffff)?, b"data")
    } else {
        let at = int(u, 0usize, name.len() - 1)?;
        name.insert(at, 0);
        note_record(&name, true, int(u, 1u32, 0xffff)?, b"data")
    };
    Ok(Some(with_extra_notes(c.co.clone(), &rec)))
}

fn note_padding(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let md_len = emit::metadata_bytes(c.co).len();
    let v = int(u, 1u8, 255)?;
    // The byte after "AMDGPU\0" (name padding), or one after the
    // description when it is not a multiple of 4 bytes.
    let pads: Vec<usize> = std::iter::once(19)
        .chain((md_len..md_len.div_ceil(4) * 4).map(|i| 20 + i))
        .collect();
    let at = pick(u, &pads)?;
    Ok(patch_case(c, |e| {
        let s = e.section(".note")?;
        e.set_u8(s.offset as usize + at, v);
        Some(())
    }))
}

fn note_metadata_missing(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let ty = int_except(u, 0, 0xffff, &[u64::from(NT_AMDGPU_METADATA)])? as u32;
    Ok(patch_case(c, |e| {
        let s = e.section(".note")?;
        e.set_u32(s.offset as usize + 8, ty);
        Some(())
    }))
}

// Several metadata notes (as ld.lld links them) and the rules between
// them.

/// The case's metadata notes as MessagePack trees, at least two: a
/// one-note case's kernels are split at a drawn kernel, and a one-kernel
/// case gets a second note with no kernels. Also returns the model the
/// notes describe (the split recorded in it where the split is one).
fn two_or_more_notes(
    c: &Ctx<'_>,
    u: &mut Unstructured<'_>,
) -> arbitrary::Result<Option<(CodeObject, Vec<Value>)>> {
    let mut co = c.co.clone();
    if co.note_starts.is_empty() && co.kernels.len() >= 2 {
        co.note_starts = vec![int(u, 1usize, co.kernels.len() - 1)?];
        co.printf_note = int(u, 0usize, 1)?;
    }
    let mut roots = Vec::new();
    for d in emit::metadata_note_descs(&co) {
        let Ok((v, _)) = msgpack::decode(&d) else {
            return Ok(None);
        };
        roots.push(v);
    }
    if roots.len() == 1 {
        let mut extra = roots[0].clone();
        kernels_mut(&mut extra).map(Vec::clear);
        let _ = del_key(&mut extra, "amdhsa.printf");
        roots.push(extra);
    }
    Ok(Some((co, roots)))
}

/// The model written with one metadata note per tree of `roots`.
fn with_notes(object: CodeObject, roots: &[Value]) -> Out {
    let descs: Vec<Vec<u8>> = roots.iter().map(msgpack::encode).collect();
    let refs: Vec<&[u8]> = descs.iter().map(Vec::as_slice).collect();
    let elf = emit::elf::write_notes(&object, &refs);
    Out { object, elf }
}

/// Two drawn note indices `i < j` of `n` notes.
fn two_notes(u: &mut Unstructured<'_>, n: usize) -> arbitrary::Result<(usize, usize)> {
    let j = int(u, 1usize, n - 1)?;
    let i = int(u, 0usize, j - 1)?;
    Ok((i, j))
}

fn note_metadata_version_conflict(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some((co, mut roots)) = two_or_more_notes(c, u)? else {
        return Ok(None);
    };
    let j = int(u, 1usize, roots.len() - 1)?;
    let [major, minor] = co.metadata_version();
    let other = int_except(u, 0, 3, &[u64::from(minor)])?;
    let v = Value::Array(vec![Value::UInt(major.into()), Value::UInt(other)]);
    set_key(&mut roots[j], "amdhsa.version", v);
    Ok(Some(with_notes(co, &roots)))
}

fn note_metadata_target_conflict(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V4 {
        return Ok(None);
    }
    let Some((co, mut roots)) = two_or_more_notes(c, u)? else {
        return Ok(None);
    };
    let j = int(u, 1usize, roots.len() - 1)?;
    // Another processor LLVM knows, named as LLVM names it.
    let others: Vec<&'static Target> = targets::hsa_targets()
        .filter(|t| t.llvm19() && !t.is_generic && t.name != c.t.name)
        .collect();
    let other = pick(u, &others)?;
    let v = Value::str(&format!("amdgcn-amd-amdhsa--{}", other.name));
    set_key(&mut roots[j], "amdhsa.target", v);
    Ok(Some(with_notes(co, &roots)))
}

fn note_metadata_printf(c: &Ctx<'_>, u: &mut Unstructured<'_>, same: bool) -> R {
    let Some((co, mut roots)) = two_or_more_notes(c, u)? else {
        return Ok(None);
    };
    let (i, j) = two_notes(u, roots.len())?;
    let first = crate::metadata::arbitrary_printf(u)?;
    let mut second = first.clone();
    if !same {
        // One more format: a list that differs from the first.
        second.push(format!("{}:0:differs", second.len() + 1));
    }
    let list = |l: &[String]| Value::Array(l.iter().map(|s| Value::str(s)).collect());
    for (k, r) in roots.iter_mut().enumerate() {
        if k == i {
            set_key(r, "amdhsa.printf", list(&first));
        } else if k == j {
            set_key(r, "amdhsa.printf", list(&second));
        } else {
            let _ = del_key(r, "amdhsa.printf");
        }
    }
    Ok(Some(with_notes(co, &roots)))
}

fn note_metadata_printf_conflict(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    note_metadata_printf(c, u, false)
}

fn note_metadata_printf_repeated(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    note_metadata_printf(c, u, true)
}

fn metadata_kernel_described_twice(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // One kernel's metadata in a second note too (as when two linked
    // objects both describe it).
    let Some((co, mut roots)) = two_or_more_notes(c, u)? else {
        return Ok(None);
    };
    let (i, j) = two_notes(u, roots.len())?;
    let (from, to) = if u.arbitrary::<bool>()? {
        (i, j)
    } else {
        (j, i)
    };
    let Some(ks) = kernels_mut(&mut roots[from]) else {
        return Ok(None);
    };
    if ks.is_empty() {
        return Ok(None);
    }
    let k = ks[u.choose_index(ks.len())?].clone();
    let Some(dst) = kernels_mut(&mut roots[to]) else {
        return Ok(None);
    };
    let at = int(u, 0usize, dst.len())?;
    dst.insert(at, k);
    Ok(Some(with_notes(co, &roots)))
}

// ---------------------------------------------------------------------------
// metadata: the MessagePack document.

fn metadata_decode(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Any strict prefix of one MessagePack value is incomplete.
    let md = emit::metadata_bytes(c.co);
    let n = int(u, 0usize, md.len().saturating_sub(1))?;
    Ok(Some(with_md_bytes(c.co.clone(), &md[..n])))
}

fn metadata_trailing_bytes(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let mut md = emit::metadata_bytes(c.co);
    let n = int(u, 1usize, 16)?;
    for _ in 0..n {
        md.push(u.arbitrary()?);
    }
    Ok(Some(with_md_bytes(c.co.clone(), &md)))
}

/// A drawn map of the document: the root, a kernel map or an argument
/// map, as a path of (kernel, argument) indices.
#[derive(Clone, Copy)]
enum Place {
    Root,
    Kernel(usize),
    Arg(usize, usize),
}

fn any_place(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> arbitrary::Result<Place> {
    let mut places = vec![Place::Root];
    for (i, k) in c.co.kernels.iter().enumerate() {
        places.push(Place::Kernel(i));
        for j in 0..k.metadata.args.len() {
            places.push(Place::Arg(i, j));
        }
    }
    pick(u, &places)
}

fn place_mut(root: &mut Value, p: Place) -> Option<&mut Value> {
    match p {
        Place::Root => Some(root),
        Place::Kernel(i) => kernel_mut(root, i),
        Place::Arg(i, j) => args_mut(kernel_mut(root, i)?)?.get_mut(j),
    }
}

fn metadata_ext_type(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let p = any_place(c, u)?;
    let key = format!("acme.{}", word(u)?);
    let ty = u.arbitrary::<i8>()?;
    let n = int(u, 0usize, 20)?;
    let mut data = Vec::with_capacity(n);
    for _ in 0..n {
        data.push(u.arbitrary()?);
    }
    Ok(with_md(c.co.clone(), |m| {
        set_key(place_mut(m, p)?, &key, Value::Ext(ty, data))
    }))
}

fn metadata_duplicate_key(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let p = any_place(c, u)?;
    let which = u.arbitrary::<u16>()?;
    Ok(with_md(c.co.clone(), |m| {
        let map = map_mut(place_mut(m, p)?)?;
        if map.is_empty() {
            return None;
        }
        let e = map[usize::from(which) % map.len()].clone();
        map.push(e);
        Some(())
    }))
}

fn metadata_root_not_map(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let how = int(u, 0u8, 3)?;
    Ok(with_md(c.co.clone(), |m| {
        *m = match how {
            0 => Value::Array(vec![m.clone()]),
            1 => Value::UInt(1),
            2 => Value::str("amdhsa.kernels"),
            _ => Value::Nil,
        };
        Some(())
    }))
}

fn metadata_missing_key(c: &Ctx<'_>, _u: &mut Unstructured<'_>) -> R {
    Ok(with_md(c.co.clone(), |m| del_key(m, "amdhsa.version")))
}

fn metadata_missing_key_kernels(c: &Ctx<'_>, _u: &mut Unstructured<'_>) -> R {
    Ok(with_md(c.co.clone(), |m| del_key(m, "amdhsa.kernels")))
}

/// Kernel keys the value mutators rewrite: those every generated kernel
/// map has.
const KERNEL_UINT_KEYS: &[&str] = &[
    ".group_segment_fixed_size",
    ".kernarg_segment_align",
    ".kernarg_segment_size",
    ".max_flat_workgroup_size",
    ".private_segment_fixed_size",
    ".sgpr_count",
    ".vgpr_count",
    ".wavefront_size",
];

fn metadata_value_type(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let key = pick(u, KERNEL_UINT_KEYS)?;
    let val = match int(u, 0u8, 4)? {
        0 => Value::Bool(u.arbitrary()?),
        1 => Value::Array(vec![Value::UInt(1)]),
        2 => Value::Map(Vec::new()),
        3 => Value::Int(-int(u, 1i64, 1 << 40)?),
        _ => Value::F64(1.5),
    };
    Ok(with_md(c.co.clone(), |m| {
        set_key(kernel_mut(m, i)?, key, val)
    }))
}

fn metadata_value_string_scalar(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let key = pick(u, KERNEL_UINT_KEYS)?;
    Ok(with_md(c.co.clone(), |m| {
        let k = kernel_mut(m, i)?;
        let n = get_mut(k, key)?.as_u64()?;
        set_key(k, key, Value::str(&n.to_string()))
    }))
}

fn metadata_value_enum(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let lang = pick(u, &["Fortran", "opencl c", "CUDA", "", "OpenCL"])?;
    Ok(with_md(c.co.clone(), |m| {
        set_key(kernel_mut(m, i)?, ".language", Value::str(lang))
    }))
}

fn metadata_key_unprefixed(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let p = any_place(c, u)?;
    let key = word(u)?;
    let v = int(u, 0u64, 1000)?;
    Ok(with_md(c.co.clone(), |m| {
        set_key(place_mut(m, p)?, &key, Value::UInt(v))
    }))
}

fn metadata_version_mismatch(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let own = c.cov.metadata_version().unwrap_or([1, 0]);
    let others: Vec<[u64; 2]> = [[1, 0], [1, 1], [1, 2], [1, 3], [2, 0]]
        .into_iter()
        .filter(|v| *v != own)
        .collect();
    let v = pick(u, &others)?;
    Ok(with_md(c.co.clone(), |m| {
        set_key(
            m,
            "amdhsa.version",
            Value::Array(vec![Value::UInt(v[0]), Value::UInt(v[1])]),
        )
    }))
}

fn metadata_target_missing(c: &Ctx<'_>, _u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V4 {
        return Ok(None);
    }
    Ok(with_md(c.co.clone(), |m| del_key(m, "amdhsa.target")))
}

fn metadata_target_invalid(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V4 {
        return Ok(None);
    }
    let name = c.t.name;
    let bad = match int(u, 0u8, 3)? {
        0 => format!("{}gfx9999", targets::TRIPLE_PREFIX),
        1 => name.to_owned(),
        2 => format!("{}{name}:bogus+", targets::TRIPLE_PREFIX),
        _ => format!("amdgcn-amd-amdpal--{name}"),
    };
    Ok(with_md(c.co.clone(), |m| {
        set_key(m, "amdhsa.target", Value::str(&bad))
    }))
}

fn metadata_target_mismatch(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V4 {
        return Ok(None);
    }
    let own = c.co.target.id;
    let mut others: Vec<TargetId> = targets::hsa_targets()
        .filter(|t| t.name != c.t.name)
        .map(TargetId::any)
        .collect();
    // The same processor with another feature setting.
    for x in [FeatureSetting::Any, FeatureSetting::Off, FeatureSetting::On] {
        for s in [FeatureSetting::Any, FeatureSetting::Off, FeatureSetting::On] {
            let x = if c.t.xnack {
                x
            } else {
                FeatureSetting::Unsupported
            };
            let s = if c.t.sramecc {
                s
            } else {
                FeatureSetting::Unsupported
            };
            if let Ok(id) = TargetId::new(c.t, x, s) {
                if id != own && !others.contains(&id) {
                    others.push(id);
                }
            }
        }
    }
    let id = pick(u, &others)?;
    Ok(with_md(c.co.clone(), |m| {
        set_key(m, "amdhsa.target", Value::str(&id.to_full_string()))
    }))
}

fn metadata_printf_format(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let bad = pick(
        u,
        &["x:1:4:%d", "1:2:4:%d", "1", "1:x:%d", "1:1:q:%s", "-1:0:%d"],
    )?;
    let mut co = c.co.clone();
    let at = int(u, 0usize, co.printf.len())?;
    co.printf.insert(at, bad.to_owned());
    Ok(Some(remodel(co)))
}

/// Required kernel keys (`metadata.kernel.missing_key`).
/// (`.symbol` is left out: without it the descriptor symbol is named by no
/// metadata kernel, a second rule.)
const KERNEL_REQUIRED: &[&str] = &[
    ".name",
    ".kernarg_segment_size",
    ".group_segment_fixed_size",
    ".private_segment_fixed_size",
    ".kernarg_segment_align",
    ".wavefront_size",
    ".sgpr_count",
    ".vgpr_count",
    ".max_flat_workgroup_size",
];

fn metadata_kernel_missing_key(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let key = pick(u, KERNEL_REQUIRED)?;
    Ok(with_md(c.co.clone(), |m| del_key(kernel_mut(m, i)?, key)))
}

fn metadata_kernel_duplicate_name(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let n = c.co.kernels.len();
    if n < 2 {
        return Ok(None);
    }
    let i = int(u, 0usize, n - 1)?;
    let j = (i + int(u, 1usize, n - 1)?) % n;
    let mut co = c.co.clone();
    co.kernels[j].metadata.name = co.kernels[i].metadata.name.clone();
    Ok(Some(remodel(co)))
}

fn metadata_kernel_duplicate_symbol(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // A second metadata entry for one kernel.
    let i = any_kernel(c.co, u)?;
    Ok(with_md(c.co.clone(), |m| {
        let ks = kernels_mut(m)?;
        let copy = ks.get(i)?.clone();
        ks.push(copy);
        Some(())
    }))
}

fn metadata_kernel_symbol_name(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let mut co = c.co.clone();
    let new = word(u)?;
    if co
        .kernels
        .iter()
        .any(|k| k.name == new || k.metadata.name == new)
    {
        return Ok(None);
    }
    co.kernels[i].metadata.name = new;
    Ok(Some(remodel(co)))
}

/// A model change to kernel `i`'s metadata.
fn meta_edit(c: &Ctx<'_>, i: usize, f: impl FnOnce(&mut crate::metadata::KernelMeta)) -> Out {
    let mut co = c.co.clone();
    f(&mut co.kernels[i].metadata);
    remodel(co)
}

fn metadata_kernel_kernarg_segment_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let v = if u.ratio(1u8, 8)? {
        0
    } else {
        non_pow2(u, 3, 4096)? as u32
    };
    Ok(Some(meta_edit(c, i, |m| m.kernarg_segment_align = v)))
}

fn metadata_kernel_wavefront_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let v = int_except(u, 0, 1024, &[32, 64])? as u32;
    Ok(Some(meta_edit(c, i, |m| m.wavefront_size = v)))
}

fn metadata_kernel_max_flat_workgroup_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let reqd = c.co.kernels[i].metadata.reqd_workgroup_size.is_some();
    // 0 only without .reqd_workgroup_size, whose product must not exceed it.
    let v = if !reqd && u.ratio(1u8, 4)? {
        0
    } else {
        int(u, 1025u32, u32::MAX)?
    };
    Ok(Some(meta_edit(c, i, |m| m.max_flat_workgroup_size = v)))
}

fn metadata_kernel_reqd_workgroup_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let zero = int(u, 0usize, 2)?;
    let mut d = [0u32; 3];
    for (j, x) in d.iter_mut().enumerate() {
        *x = if j == zero { 0 } else { int(u, 0u32, 16)? };
    }
    if d == [0, 0, 0] {
        d[(zero + 1) % 3] = 1;
    }
    Ok(Some(meta_edit(c, i, |m| m.reqd_workgroup_size = Some(d))))
}

fn metadata_kernel_reqd_workgroup_size_limit(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let max = c.co.kernels[i].metadata.max_flat_workgroup_size;
    let x = int(u, max.saturating_add(1), max.saturating_add(1024))?;
    let mut d = [x, 1, 1];
    let at = int(u, 0usize, 2)?;
    d.swap(0, at);
    Ok(Some(meta_edit(c, i, |m| m.reqd_workgroup_size = Some(d))))
}

fn metadata_kernel_workgroup_processor_mode(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // The key on a processor without WGP mode.
    if c.cov < CodeObjectVersion::V5 || c.t.has_wgp_mode() {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let v = u.arbitrary()?;
    Ok(Some(meta_edit(c, i, |m| {
        m.workgroup_processor_mode = Some(v)
    })))
}

fn metadata_kernel_workgroup_processor_mode_value(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // A value other than 0 and 1 where the key belongs, in a kernel whose
    // WGP_MODE is set (the oracle reads any non-zero value as true).
    if c.cov < CodeObjectVersion::V5 || !c.t.has_wgp_mode() {
        return Ok(None);
    }
    let Some(i) = kernel_where(c.co, u, |k| k.descriptor.workgroup_processor_mode)? else {
        return Ok(None);
    };
    let v = int(u, 2u64, 255)?;
    Ok(with_md(c.co.clone(), |m| {
        set_key(
            kernel_mut(m, i)?,
            ".workgroup_processor_mode",
            Value::UInt(v),
        )
    }))
}

fn metadata_kernel_uniform_work_group_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V5 {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let v = int(u, 2u64, 255)?;
    Ok(with_md(c.co.clone(), |m| {
        set_key(
            kernel_mut(m, i)?,
            ".uniform_work_group_size",
            Value::UInt(v),
        )
    }))
}

fn metadata_kernel_kind(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let k = pick(
        u,
        &["weird", "Normal", "INIT", "kernel", "main", "finalizer"],
    )?;
    Ok(Some(meta_edit(c, i, |m| m.kind = Some(k))))
}

/// A drawn (kernel, argument) pair where `pred` holds.
fn arg_where(
    co: &CodeObject,
    u: &mut Unstructured<'_>,
    pred: impl Fn(&Kernel, &ArgSpec) -> bool,
) -> arbitrary::Result<Option<(usize, usize)>> {
    let mut all = Vec::new();
    for (i, k) in co.kernels.iter().enumerate() {
        for (j, a) in k.metadata.args.iter().enumerate() {
            if pred(k, a) {
                all.push((i, j));
            }
        }
    }
    if all.is_empty() {
        return Ok(None);
    }
    Ok(Some(pick(u, &all)?))
}

fn metadata_arg_missing_key(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Kernels without hidden arguments: an argument without size or
    // offset (or kind) moves where the hidden block is expected.
    let Some((i, j)) = arg_where(c.co, u, |k, _| !has_hidden(k))? else {
        return Ok(None);
    };
    let key = pick(u, &[".size", ".offset", ".value_kind"])?;
    Ok(with_md(c.co.clone(), |m| {
        del_key(args_mut(kernel_mut(m, i)?)?.get_mut(j)?, key)
    }))
}

/// A model change to argument `j` of kernel `i`.
fn arg_edit(c: &Ctx<'_>, i: usize, j: usize, f: impl FnOnce(&mut ArgSpec)) -> Out {
    let mut co = c.co.clone();
    f(&mut co.kernels[i].metadata.args[j]);
    remodel(co)
}

fn metadata_arg_address_space(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some((i, j)) = arg_where(c.co, u, |_, a| {
        matches!(
            a.kind,
            ValueKind::GlobalBuffer | ValueKind::DynamicSharedPointer
        )
    })?
    else {
        return Ok(None);
    };
    let space = if c.co.kernels[i].metadata.args[j].kind == ValueKind::GlobalBuffer {
        AddressSpace::Local
    } else {
        pick(
            u,
            &[
                AddressSpace::Global,
                AddressSpace::Constant,
                AddressSpace::Generic,
            ],
        )?
    };
    Ok(Some(arg_edit(c, i, j, |a| a.address_space = Some(space))))
}

fn metadata_arg_kind_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Pointers shrink: 8-byte kinds to 1, 2 or 4; LDS pointers to 1 or 2.
    let Some((i, j)) = arg_where(c.co, u, |_, a| {
        is_pointer_kind(a.kind) || a.kind == ValueKind::DynamicSharedPointer
    })?
    else {
        return Ok(None);
    };
    let size = if c.co.kernels[i].metadata.args[j].kind == ValueKind::DynamicSharedPointer {
        pick(u, &[1u32, 2])?
    } else {
        pick(u, &[1u32, 2, 4])?
    };
    Ok(Some(arg_edit(c, i, j, |a| a.size = size)))
}

fn metadata_arg_pointee_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some((i, j)) = arg_where(c.co, u, |_, a| a.kind == ValueKind::DynamicSharedPointer)? else {
        return Ok(None);
    };
    let v = if u.ratio(1u8, 8)? {
        0
    } else {
        non_pow2(u, 3, 4096)? as u32
    };
    Ok(Some(arg_edit(c, i, j, |a| a.pointee_align = Some(v))))
}

/// True if kernel `k` has hidden arguments.
fn has_hidden(k: &Kernel) -> bool {
    k.metadata.args.iter().any(|a| a.kind.is_hidden())
}

/// The end of kernel `k`'s arguments.
fn args_end(k: &Kernel) -> u32 {
    k.metadata.args.iter().map(ArgSpec::end).max().unwrap_or(0)
}

fn metadata_arg_misaligned(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // A new pointer argument after the others, off its natural alignment,
    // with the segment grown to hold it (kernels without hidden arguments,
    // whose place the new argument would move).
    let Some(i) = kernel_where(c.co, u, |k| !has_hidden(k))? else {
        return Ok(None);
    };
    let (kind, size) = pick(
        u,
        &[
            (ValueKind::GlobalBuffer, 8u32),
            (ValueKind::DynamicSharedPointer, 4),
            (ValueKind::Sampler, 8),
            (ValueKind::Queue, 8),
        ],
    )?;
    let mut co = c.co.clone();
    let k = &mut co.kernels[i];
    let end = args_end(k).max(k.metadata.kernarg_segment_size);
    let mut off = end;
    if off.is_multiple_of(size) {
        off += pick(u, &[1u32, 2, size / 2])?;
    }
    let mut a = ArgSpec {
        name: None,
        type_name: None,
        size,
        offset: off,
        kind,
        pointee_align: None,
        address_space: None,
        access: None,
        actual_access: None,
        is_const: None,
        is_restrict: None,
        is_volatile: None,
        is_pipe: None,
    };
    if kind == ValueKind::GlobalBuffer {
        a.address_space = Some(AddressSpace::Global);
    } else if kind == ValueKind::DynamicSharedPointer {
        a.address_space = Some(AddressSpace::Local);
    }
    k.metadata.args.push(a);
    k.metadata.kernarg_segment_size = off + size;
    if k.descriptor.kernarg_size != 0 {
        k.descriptor.kernarg_size = off + size;
    }
    Ok(Some(remodel(co)))
}

fn metadata_arg_out_of_bounds(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // The segment shrinks below the end of the last argument (metadata and
    // descriptor together; never below the preloaded dwords).
    let t = c.t;
    let Some(i) = kernel_where(c.co, u, |k| {
        let e = &k.descriptor.enables;
        let preload = if t.kernarg_preload && e.preload_length != 0 {
            4 * (u32::from(e.preload_offset) + u32::from(e.preload_length))
        } else {
            0
        };
        args_end(k) > preload.max(1)
    })?
    else {
        return Ok(None);
    };
    let mut co = c.co.clone();
    let k = &mut co.kernels[i];
    let e = &k.descriptor.enables;
    let preload = if t.kernarg_preload && e.preload_length != 0 {
        4 * (u32::from(e.preload_offset) + u32::from(e.preload_length))
    } else {
        0
    };
    let end = args_end(k);
    let size = int(u, preload.max(1), end - 1)?;
    k.metadata.kernarg_segment_size = size;
    if k.descriptor.kernarg_size != 0 {
        k.descriptor.kernarg_size = size;
    }
    Ok(Some(remodel(co)))
}

fn metadata_arg_overlap(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Argument a moves onto argument b (explicit, both non-empty), where it
    // stays naturally aligned and the end of the explicit arguments stays.
    let mut pairs = Vec::new();
    for (i, k) in c.co.kernels.iter().enumerate() {
        let args = &k.metadata.args;
        let explicit_end = args
            .iter()
            .filter(|a| !a.kind.is_hidden())
            .map(ArgSpec::end)
            .max()
            .unwrap_or(0);
        for (x, a) in args.iter().enumerate() {
            for (y, b) in args.iter().enumerate() {
                let ok = x != y
                    && !a.kind.is_hidden()
                    && !b.kind.is_hidden()
                    && a.size > 0
                    && b.size > 0
                    && b.offset % natural_align(a) == 0
                    && b.offset + a.size <= explicit_end
                    && (a.end() < explicit_end
                        || args.iter().enumerate().any(|(z, o)| {
                            z != x && !o.kind.is_hidden() && o.end() == explicit_end
                        }));
                if ok {
                    pairs.push((i, x, y));
                }
            }
        }
    }
    if pairs.is_empty() {
        return Ok(None);
    }
    let (i, x, y) = pick(u, &pairs)?;
    let to = c.co.kernels[i].metadata.args[y].offset;
    Ok(Some(arg_edit(c, i, x, |a| a.offset = to)))
}

fn metadata_arg_hidden_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov >= CodeObjectVersion::V5 {
        return Ok(None);
    }
    let Some((i, j)) = arg_where(c.co, u, |_, a| a.kind.is_hidden() && a.size == 8)? else {
        return Ok(None);
    };
    // llvm-mc-14 (the V3 assembler) knows hidden_queue_ptr but not
    // hidden_heap_v1 ("invalid HSA metadata"); llvm-mc-19 takes both.
    let kinds: &[ValueKind] = if c.cov == CodeObjectVersion::V3 {
        &[ValueKind::HiddenQueuePtr]
    } else {
        &[ValueKind::HiddenHeapV1, ValueKind::HiddenQueuePtr]
    };
    let kind = pick(u, kinds)?;
    Ok(Some(arg_edit(c, i, j, |a| a.kind = kind)))
}

fn metadata_arg_hidden_layout(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Two hidden arguments of one size trade places.
    let mut pairs = Vec::new();
    for (i, k) in c.co.kernels.iter().enumerate() {
        let args = &k.metadata.args;
        for (x, a) in args.iter().enumerate() {
            for (y, b) in args.iter().enumerate().skip(x + 1) {
                if a.kind.is_hidden()
                    && b.kind.is_hidden()
                    && a.kind != ValueKind::HiddenNone
                    && b.kind != ValueKind::HiddenNone
                    && a.kind != b.kind
                    && a.size == b.size
                {
                    pairs.push((i, x, y));
                }
            }
        }
    }
    if pairs.is_empty() {
        return Ok(None);
    }
    let (i, x, y) = pick(u, &pairs)?;
    let mut co = c.co.clone();
    let args = &mut co.kernels[i].metadata.args;
    let (ox, oy) = (args[x].offset, args[y].offset);
    args[x].offset = oy;
    args[y].offset = ox;
    Ok(Some(remodel(co)))
}

// ---------------------------------------------------------------------------
// symbol: the symbol tables (both are edited alike; the oracle reads
// `.symtab`, the loader `.dynsym`).

const STT_OBJECT: u8 = 1;
const STT_FUNC: u8 = 2;

fn symbol_table(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let ent = int_except(u, 1, 64, &[24])?;
    Ok(patch_case(c, |e| {
        let s = e.section(".symtab")?;
        e.set_u64(s.hdr + 56, ent);
        Some(())
    }))
}

fn symbol_name(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // lld's local _DYNAMIC symbol gets a name past the string table.
    let k = int(u, 0u32, 0x1000)?;
    Ok(patch_case(c, |e| {
        let strtab = e.section(".strtab")?;
        let s = e.both("_DYNAMIC").into_iter().next()?;
        e.set_u32(s.at, strtab.size as u32 + k);
        Some(())
    }))
}

/// The names of kernel `i`'s entry and descriptor symbols.
fn kernel_syms(co: &CodeObject, i: usize) -> (String, String) {
    let n = &co.kernels[i].name;
    (n.clone(), format!("{n}.kd"))
}

/// The case written as a relocatable object (as llvm-mc writes it), with
/// one kernel's entry relocation of another type. (Another addend is
/// `symbol.entry.target`: the relocation then resolves elsewhere.)
fn symbol_entry_relocation(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V3 {
        return Ok(None);
    }
    let (mut elf, relocs) = emit::relocatable_bytes(c.co);
    let Some(r) = relocs.get(any_kernel(c.co, u)?).copied() else {
        return Ok(None);
    };
    // R_AMDGPU_NONE, ABS32_LO, ABS32_HI, ABS64, REL32, ABS32, GOTPCREL.
    let ty = pick(u, &[0u64, 1, 2, 3, 4, 6, 7])?;
    let at = r.offset + 8;
    let Some(info) = elf.get_mut(at..at + 8) else {
        return Ok(None);
    };
    info.copy_from_slice(&(u64::from(r.symbol) << 32 | ty).to_le_bytes());
    Ok(Some(Out {
        object: c.co.clone(),
        elf,
    }))
}

fn symbol_kd_type(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let (_, kd) = kernel_syms(c.co, any_kernel(c.co, u)?);
    let ty = pick(u, &[0u8, STT_FUNC, 5, 6, 7, 10, 13])?;
    Ok(patch_case(c, |e| {
        e.edit_symbol(&kd, |e, s| e.set_u8(s.at + 4, s.info & 0xf0 | ty))
    }))
}

fn symbol_kd_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let (_, kd) = kernel_syms(c.co, any_kernel(c.co, u)?);
    let size = int_except(u, 0, 4096, &[64])?;
    Ok(patch_case(c, |e| {
        e.edit_symbol(&kd, |e, s| e.set_u64(s.at + 16, size))
    }))
}

fn symbol_kd_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Descriptor i (not the first) moves back 1 to 4 bytes, over the
    // reserved zero bytes that end descriptor i - 1; its bytes are written
    // there, with the entry offset adjusted and group_segment_fixed_size
    // 0 (in descriptor and metadata), so the overlap stays zero.
    let n = c.co.kernels.len();
    if n < 2 {
        return Ok(None);
    }
    let i = int(u, 1usize, n - 1)?;
    let back = int(u, 1u64, 4)?;
    let mut co = c.co.clone();
    co.kernels[i].descriptor.group_segment_fixed_size = 0;
    co.kernels[i].metadata.group_segment_fixed_size = 0;
    let out = remodel(co);
    let (name, kd) = kernel_syms(&out.object, i);
    let tc = out.object.target;
    let desc = out.object.kernels[i].descriptor.clone();
    Ok(patch(out, |e| {
        let at = e.kd(&name)?;
        let entry = e.u64(at + kdo::ENTRY) as i64 + back as i64;
        let bytes = desc.encode(&tc, entry).to_bytes();
        let new = at - back as usize;
        e.put(new, &bytes);
        e.edit_symbol(&kd, |e, s| e.set_u64(s.at + 8, s.value - back))
    }))
}

fn symbol_kd_section(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let (_, kd) = kernel_syms(c.co, any_kernel(c.co, u)?);
    let to = pick(u, &[".text", ".dynamic", ".note", ".dynstr"])?;
    Ok(patch_case(c, |e| {
        let idx = e.section(to)?.index as u16;
        e.edit_symbol(&kd, |e, s| e.set_u16(s.at + 6, idx))
    }))
}

fn symbol_kd_duplicate(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Kernel j becomes a copy of kernel i (but for its name), then j's
    // descriptor symbol takes i's name and its entry i's code; j's
    // metadata .symbol then names no descriptor.
    let n = c.co.kernels.len();
    if n < 2 {
        return Ok(None);
    }
    let i = int(u, 0usize, n - 1)?;
    let j = (i + int(u, 1usize, n - 1)?) % n;
    let mut co = c.co.clone();
    let src = co.kernels[i].clone();
    let dst = &mut co.kernels[j];
    dst.descriptor = src.descriptor;
    dst.code = src.code;
    let (name, symbol) = (dst.metadata.name.clone(), dst.metadata.symbol.clone());
    dst.metadata = src.metadata;
    dst.metadata.name = name;
    dst.metadata.symbol = symbol;
    let out = remodel(co);
    let (_, kd_i) = kernel_syms(&out.object, i);
    let (_, kd_j) = kernel_syms(&out.object, j);
    let (name_i, _) = kernel_syms(&out.object, i);
    let (name_j, _) = kernel_syms(&out.object, j);
    Ok(patch(out, |e| {
        // The entry of descriptor j goes to kernel i's code, which the
        // entry check looks up by the (now shared) name.
        let code_i = e.both(&name_i).first()?.value;
        let kd_j_sym = e.both(&kd_j).first()?.clone();
        let at = e.kd(&name_j)? + kdo::ENTRY;
        e.set_u64(at, code_i.wrapping_sub(kd_j_sym.value));
        let syms = e.both(&kd_j);
        for (t, s) in [".symtab", ".dynsym"].iter().zip(&syms) {
            let off = e.str_offset(t, &kd_i)?;
            e.set_u32(s.at, off);
        }
        Some(())
    }))
}

fn symbol_kernel_missing(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // The kernel symbol's name loses its first bytes ("name" -> "ame"),
    // to a string no other symbol has.
    let i = any_kernel(c.co, u)?;
    let (k, _) = kernel_syms(c.co, i);
    let taken: Vec<String> =
        c.co.kernels
            .iter()
            .flat_map(|k| [k.name.clone(), format!("{}.kd", k.name)])
            .chain(["_DYNAMIC".to_owned()])
            .collect();
    let cuts: Vec<usize> = (1..=k.len())
        .filter(|&d| !taken.contains(&k[d..].to_owned()))
        .collect();
    if cuts.is_empty() {
        return Ok(None);
    }
    let d = pick(u, &cuts)? as u32;
    Ok(patch_case(c, |e| {
        e.edit_symbol(&k, |e, s| {
            let v = e.u32(s.at);
            e.set_u32(s.at, v + d)
        })
    }))
}

fn symbol_kernel_type(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let (k, _) = kernel_syms(c.co, any_kernel(c.co, u)?);
    let ty = pick(u, &[0u8, STT_OBJECT, 5, 6, 10, 13])?;
    Ok(patch_case(c, |e| {
        e.edit_symbol(&k, |e, s| e.set_u8(s.at + 4, s.info & 0xf0 | ty))
    }))
}

fn symbol_entry_target(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Still 256-byte aligned, but not this kernel's code.
    let i = any_kernel(c.co, u)?;
    let steps = int_except(u, 0, 16, &[8])? as i64 - 8;
    let (k, _) = kernel_syms(c.co, i);
    Ok(patch_case(c, |e| {
        let at = e.kd(&k)? + kdo::ENTRY;
        let v = e.u64(at) as i64;
        e.set_u64(at, v.wrapping_add(256 * steps) as u64);
        Some(())
    }))
}

fn symbol_entry_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // The kernel gets `s_nop 0` words before its s_endpgm; its symbol and
    // entry then move past some of them, off the 256-byte boundary.
    let i = any_kernel(c.co, u)?;
    let nops = int(u, 1usize, 63)?;
    let skip = int(u, 1usize, nops)? as u64 * 4;
    let mut co = c.co.clone();
    let code = &mut co.kernels[i].code;
    code.splice(0..0, std::iter::repeat_n(S_NOP_0, nops));
    let out = remodel(co);
    let (k, _) = kernel_syms(&out.object, i);
    Ok(patch(out, |e| {
        let at = e.kd(&k)? + kdo::ENTRY;
        let v = e.u64(at);
        e.set_u64(at, v + skip);
        e.edit_symbol(&k, |e, s| {
            e.set_u64(s.at + 8, s.value + skip);
            e.set_u64(s.at + 16, s.size - skip);
        })
    }))
}

fn symbol_kd_not_in_metadata(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    Ok(with_md(c.co.clone(), |m| {
        let ks = kernels_mut(m)?;
        (i < ks.len()).then(|| {
            ks.remove(i);
        })
    }))
}

fn symbol_metadata_kernel_no_kd(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // A metadata entry (a copy of kernel i's) for a kernel the object does
    // not have.
    let i = any_kernel(c.co, u)?;
    let ghost = word(u)?;
    if c.co
        .kernels
        .iter()
        .any(|k| k.name == ghost || k.metadata.name == ghost)
    {
        return Ok(None);
    }
    Ok(with_md(c.co.clone(), |m| {
        let ks = kernels_mut(m)?;
        let mut copy = ks.get(i)?.clone();
        set_key(&mut copy, ".name", Value::str(&ghost))?;
        set_key(&mut copy, ".symbol", Value::str(&format!("{ghost}.kd")))?;
        ks.push(copy);
        Some(())
    }))
}

// ---------------------------------------------------------------------------
// kd: kernel descriptor fields.

fn kd_reserved_bytes(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_edit(
        c,
        u,
        |_| true,
        |u, _| {
            let at = pick(
                u,
                &[
                    12usize, 13, 14, 15, 24, 28, 31, 32, 36, 40, 43, 60, 61, 62, 63,
                ],
            )?;
            Ok(Some(KdEdit::Byte(at, int(u, 1u8, 255)?)))
        },
    )
}

/// OR one of `bits` (drawn) into the 32-bit field at `field` of a drawn
/// kernel.
fn kd_bit(c: &Ctx<'_>, u: &mut Unstructured<'_>, field: usize, bits: &[u32]) -> R {
    if bits.is_empty() {
        return Ok(None);
    }
    let b = pick(u, bits)?;
    kd_edit(c, u, |_| true, |_, _| Ok(Some(KdEdit::Or32(field, 1 << b))))
}

fn kd_rsrc1_priority(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let v = int(u, 1u32, 3)?;
    kd_edit(
        c,
        u,
        |_| true,
        |_, _| Ok(Some(KdEdit::Set32(kdo::RSRC1, 3 << 10, v << 10))),
    )
}

fn kd_rsrc1_priv(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_bit(c, u, kdo::RSRC1, &[20])
}

fn kd_rsrc1_debug_mode(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_bit(c, u, kdo::RSRC1, &[22])
}

fn kd_rsrc1_bulky(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_bit(c, u, kdo::RSRC1, &[24])
}

fn kd_rsrc1_cdbg_user(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_bit(c, u, kdo::RSRC1, &[25])
}

fn kd_rsrc1_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let gen = c.t.generation;
    let mut bits = vec![27, 28];
    if gen < Generation::Gfx9 {
        bits.push(26);
    }
    if gen < Generation::Gfx10 {
        bits.extend([29, 30, 31]);
    }
    kd_bit(c, u, kdo::RSRC1, &bits)
}

fn kd_rsrc2_trap_handler(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.t.generation >= Generation::Gfx12 {
        return Ok(None);
    }
    kd_bit(c, u, kdo::RSRC2, &[6])
}

fn kd_rsrc2_exception_address_watch(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_bit(c, u, kdo::RSRC2, &[13])
}

fn kd_rsrc2_exception_memory(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_bit(c, u, kdo::RSRC2, &[14])
}

fn kd_rsrc2_granulated_lds_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let v = int(u, 1u32, 0x1ff)?;
    kd_edit(
        c,
        u,
        |_| true,
        |_, _| Ok(Some(KdEdit::Set32(kdo::RSRC2, 0x1ff << 15, v << 15))),
    )
}

fn kd_rsrc2_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.t.generation >= Generation::Gfx12 {
        return Ok(None);
    }
    kd_bit(c, u, kdo::RSRC2, &[31])
}

/// compute_pgm_rsrc3 bits `t` does not define (amdgpu-usage.rst and
/// AMDHSAKernelDescriptor.h, as the rule states them).
fn rsrc3_reserved(t: &Target) -> u32 {
    if t.accum_offset {
        return !(0x3f | 1 << 16);
    }
    match t.generation {
        Generation::Gfx10 => !0xf,
        Generation::Gfx11 => !(0xfff | 1 << 31),
        Generation::Gfx12 => !(0xff0 | 1 << 13 | 1 << 31),
        _ => u32::MAX,
    }
}

fn kd_rsrc3_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let m = rsrc3_reserved(c.t);
    let bits: Vec<u32> = (0..32).filter(|b| m >> b & 1 != 0).collect();
    kd_bit(c, u, kdo::RSRC3, &bits)
}

fn kd_rsrc3_shared_vgpr_count_wave32(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let t = c.t;
    if !matches!(t.generation, Generation::Gfx10 | Generation::Gfx11) {
        return Ok(None);
    }
    let Some(i) = kernel_where(c.co, u, |k| {
        k.descriptor.enables.is_wave32(t) && k.descriptor.granulated_vgpr_count(t) <= 61
    })?
    else {
        return Ok(None);
    };
    let mut co = c.co.clone();
    let d = &mut co.kernels[i].descriptor;
    let room = ((63 - d.granulated_vgpr_count(t)) / 2).min(15) as u8;
    d.shared_vgpr_count = int(u, 1u8, room)?;
    Ok(Some(remodel(co)))
}

fn kd_rsrc3_shared_vgpr_count_overflow(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Wave64 on GFX10-11: SHARED_VGPR_COUNT s with at least 4 * (64 - 2s)
    // + 1 VGPRs allocated (at most 256, the 6-bit field's limit).
    let t = c.t;
    if !matches!(t.generation, Generation::Gfx10 | Generation::Gfx11) {
        return Ok(None);
    }
    let Some(i) = kernel_where(c.co, u, |k| {
        !k.descriptor.enables.is_wave32(t) && k.descriptor.next_free_vgpr <= 256
    })?
    else {
        return Ok(None);
    };
    let s = int(u, 1u16, 15)?;
    let need = 4 * (64 - 2 * s) + 1;
    let mut co = c.co.clone();
    let d = &mut co.kernels[i].descriptor;
    d.shared_vgpr_count = s as u8;
    d.next_free_vgpr = int(u, need.max(d.next_free_vgpr), 256)?;
    Ok(Some(remodel(co)))
}

fn kd_rsrc3_accum_offset(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let t = c.t;
    if !t.accum_offset {
        return Ok(None);
    }
    // Kernels without AGPRs: with some, ACCUM_OFFSET + .agpr_count would
    // outgrow the allocation too (kd.metadata.vgpr_count).
    let Some(i) = kernel_where(c.co, u, |k| {
        k.descriptor.allocated_vgprs(t) < 256 && k.metadata.agpr_count.unwrap_or(0) == 0
    })?
    else {
        return Ok(None);
    };
    let mut co = c.co.clone();
    let d = &mut co.kernels[i].descriptor;
    let alloc = d.allocated_vgprs(t) as u16;
    d.accum_offset = 4 * int(u, alloc / 4 + 1, 64)?;
    Ok(Some(remodel(co)))
}

fn kd_properties_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let b = pick(u, &[7u16, 8, 9, 12, 13, 14, 15])?;
    kd_edit(
        c,
        u,
        |_| true,
        |_, _| Ok(Some(KdEdit::Or16(kdo::PROPS, 1 << b))),
    )
}

fn kd_properties_wavefront_size32(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.t.generation >= Generation::Gfx10 {
        return Ok(None);
    }
    kd_edit(
        c,
        u,
        |_| true,
        |_, _| Ok(Some(KdEdit::Or16(kdo::PROPS, 1 << 10))),
    )
}

fn kd_kernarg_preload_unsupported(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.t.kernarg_preload {
        return Ok(None);
    }
    let v = int(u, 1u16, u16::MAX)?;
    kd_edit(
        c,
        u,
        |_| true,
        |_, _| Ok(Some(KdEdit::Set16(kdo::PRELOAD, v))),
    )
}

/// The preload fields of kernel `i` set to `len` dwords from dword `off`,
/// with the SGPRs refitted.
fn set_preload(co: &mut CodeObject, i: usize, off: u16, len: u8) {
    let e = &mut co.kernels[i].descriptor.enables;
    e.preload_offset = off;
    e.preload_length = len;
    refit_sgprs(co, i);
}

fn kd_kernarg_preload_length(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // More than 16 dwords; USER_SGPR_COUNT counts them (5 bits, so at
    // most 31 user SGPRs), the SGPRs and the kernarg segment hold them.
    let t = c.t;
    if !t.kernarg_preload {
        return Ok(None);
    }
    let Some(i) = kernel_where(c.co, u, |k| k.descriptor.enables.enabled_user_sgprs() <= 14)?
    else {
        return Ok(None);
    };
    let mut co = c.co.clone();
    let max = 31 - co.kernels[i].descriptor.enables.enabled_user_sgprs();
    let len = int(u, 17u16, max)? as u8;
    set_preload(&mut co, i, 0, len);
    let k = &mut co.kernels[i];
    let bytes = 4 * u32::from(len);
    if k.metadata.kernarg_segment_size < bytes {
        k.metadata.kernarg_segment_size = bytes;
    }
    if k.descriptor.kernarg_size != 0 {
        k.descriptor.kernarg_size = k.metadata.kernarg_segment_size;
    }
    Ok(Some(remodel(co)))
}

fn kd_kernarg_preload_exceeds_kernarg_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let t = c.t;
    if !t.kernarg_preload {
        return Ok(None);
    }
    let Some(i) = kernel_where(c.co, u, |k| {
        k.descriptor.kernarg_size != 0
            && k.descriptor.kernarg_size.div_ceil(4) <= 0x1ff
            && user_room(k, t) + u16::from(k.descriptor.enables.preload_length) >= 1
    })?
    else {
        return Ok(None);
    };
    let mut co = c.co.clone();
    let k = &co.kernels[i];
    let room = user_room(k, t) + u16::from(k.descriptor.enables.preload_length);
    let len = int(u, 1u16, room)?;
    let dwords = k.descriptor.kernarg_size.div_ceil(4) as u16;
    // off + len > kernarg_size / 4, off <= 0x1ff.
    let lo = (dwords + 1).saturating_sub(len);
    let off = int(u, lo, 0x1ff)?;
    if u32::from(off + len) * 4 <= k.descriptor.kernarg_size {
        return Ok(None);
    }
    set_preload(&mut co, i, off, len as u8);
    Ok(Some(remodel(co)))
}

fn kd_metadata_group_segment_fixed_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.group_segment_fixed_size;
    let v = int_except(u, 0, 0x1_0000, &[u64::from(own)])? as u32;
    Ok(Some(meta_edit(c, i, |m| m.group_segment_fixed_size = v)))
}

fn kd_metadata_private_segment_fixed_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.private_segment_fixed_size;
    let v = int_except(u, 0, 0x1_0000, &[u64::from(own)])? as u32;
    Ok(Some(meta_edit(c, i, |m| m.private_segment_fixed_size = v)))
}

fn kd_metadata_kernarg_segment_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // A non-zero kernarg_size that is not the metadata's (at least the
    // preloaded bytes).
    let t = c.t;
    let i = any_kernel(c.co, u)?;
    let mut co = c.co.clone();
    let k = &mut co.kernels[i];
    let e = &k.descriptor.enables;
    let preload = if t.kernarg_preload && e.preload_length != 0 {
        4 * (u64::from(e.preload_offset) + u64::from(e.preload_length))
    } else {
        0
    };
    let v = int_except(
        u,
        preload.max(1),
        0x1_0000,
        &[u64::from(k.metadata.kernarg_segment_size)],
    )?;
    k.descriptor.kernarg_size = v as u32;
    Ok(Some(remodel(co)))
}

fn kd_metadata_wavefront_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.t.generation < Generation::Gfx10 {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    Ok(Some(meta_edit(c, i, |m| {
        m.wavefront_size = if m.wavefront_size == 32 { 64 } else { 32 }
    })))
}

fn kd_metadata_sgpr_count(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // More than any GFX6-GFX9 allocation (16 granules of 8).
    if c.t.generation >= Generation::Gfx10 {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let v = int(u, 129u32, 1024)?;
    Ok(Some(meta_edit(c, i, |m| m.sgpr_count = v)))
}

fn kd_metadata_vgpr_count(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let t = c.t;
    let i = any_kernel(c.co, u)?;
    let alloc = c.co.kernels[i].descriptor.allocated_vgprs(t);
    let acc = u32::from(c.co.kernels[i].descriptor.accum_offset.max(4));
    let delta = int(u, alloc + 1, alloc + 512)?;
    Ok(Some(meta_edit(c, i, |m| {
        if t.accum_offset {
            // More AGPRs, with the architectural VGPRs (the difference)
            // kept below ACCUM_OFFSET.
            let agprs = m.agpr_count.unwrap_or(0);
            let arch = (m.vgpr_count - agprs.min(m.vgpr_count)).min(acc);
            m.agpr_count = Some(agprs + delta);
            m.vgpr_count = arch + agprs + delta;
        } else if t.agprs && m.agpr_count.is_some() && delta % 2 == 0 {
            m.agpr_count = Some(delta);
        } else {
            m.vgpr_count = delta;
        }
    })))
}

fn kd_metadata_accum_offset(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // gfx90a family: AGPRs in use (the oracle, like LLVM, lets
    // architectural VGPRs reach past ACCUM_OFFSET when there are none), and
    // one to eight architectural VGPRs past ACCUM_OFFSET; the allocation is
    // raised to hold them all.
    let t = c.t;
    if !t.accum_offset {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let mut co = c.co.clone();
    let k = &mut co.kernels[i];
    let acc = u32::from(k.descriptor.accum_offset.max(4));
    let agprs = match k.metadata.agpr_count {
        Some(a) if a > 0 => a,
        _ => int(u, 1u32, 64)?,
    };
    let over = int(u, 1u32, 8)?;
    let total = acc + over + agprs;
    if total > 512 {
        return Ok(None);
    }
    k.metadata.vgpr_count = total;
    k.metadata.agpr_count = Some(agprs);
    if k.descriptor.allocated_vgprs(t) < total {
        k.descriptor.next_free_vgpr = total as u16;
    }
    Ok(Some(remodel(co)))
}

fn kd_metadata_uses_dynamic_stack(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V5 {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.uses_dynamic_stack;
    Ok(Some(meta_edit(c, i, |m| m.uses_dynamic_stack = Some(!own))))
}

fn kd_metadata_workgroup_processor_mode(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V5 || !c.t.has_wgp_mode() {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.workgroup_processor_mode;
    Ok(Some(meta_edit(c, i, |m| {
        m.workgroup_processor_mode = Some(!own)
    })))
}

// ---------------------------------------------------------------------------
// sgpr: the initial register state the enables select.

/// compute_pgm_rsrc2 with USER_SGPR_COUNT (bits 5:1) set to `n`.
fn with_user_sgprs(rsrc2: u32, n: u32) -> u32 {
    rsrc2 & !(0x1f << 1) | (n & 0x1f) << 1
}

fn sgpr_user_sgpr_count_too_small(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let t = c.t;
    kd_edit(
        c,
        u,
        |k| k.descriptor.enables.implied_user_sgprs(t) > 0,
        |u, k| {
            let need = k.descriptor.enables.implied_user_sgprs(t);
            let n = u32::from(int(u, 0u16, need - 1)?);
            Ok(Some(KdEdit::Set32(kdo::RSRC2, 0x1f << 1, n << 1)))
        },
    )
}

fn sgpr_user_sgpr_count_limit(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // 17 to 31 user SGPRs; on GFX6-GFX9 the SGPR allocation is raised to
    // its maximum so it still holds them.
    let t = c.t;
    let i = any_kernel(c.co, u)?;
    let n = int(u, 17u32, 31)?;
    let (k, _) = kernel_syms(c.co, i);
    Ok(patch_case(c, |e| {
        kd_u32(e, &k, kdo::RSRC2, |v| with_user_sgprs(v, n))?;
        if t.generation < Generation::Gfx10 {
            kd_u32(e, &k, kdo::RSRC1, |v| v | 0xf << 6)?;
        }
        Some(())
    }))
}

/// Adds user SGPR enable `bit` to a kernel of `c` that lacks it and has
/// room for `n` more user SGPRs.
fn add_user_enable(c: &Ctx<'_>, u: &mut Unstructured<'_>, bit: u8, n: u16) -> R {
    let t = c.t;
    let Some(i) = kernel_where(c.co, u, |k| {
        !k.descriptor.enables.user_bit(bit.into()) && user_room(k, t) >= n
    })?
    else {
        return Ok(None);
    };
    let mut co = c.co.clone();
    co.kernels[i].descriptor.enables.user |= 1 << bit;
    refit_sgprs(&mut co, i);
    Ok(Some(remodel(co)))
}

fn sgpr_private_segment_buffer_unsupported(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if !c.t.architected_flat_scratch {
        return Ok(None);
    }
    add_user_enable(c, u, 0, 4)
}

fn sgpr_flat_scratch_init_unsupported(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if !c.t.architected_flat_scratch && c.t.generation > Generation::Gfx6 {
        return Ok(None);
    }
    add_user_enable(c, u, 5, 2)
}

fn sgpr_vgpr_workitem_id_undefined(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    kd_edit(
        c,
        u,
        |_| true,
        |_, _| Ok(Some(KdEdit::Set32(kdo::RSRC2, 3 << 11, 3 << 11))),
    )
}

fn sgpr_allocation_too_small(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // GFX6-GFX9: every user and system SGPR enabled, the allocation cut to
    // one granule, and the metadata's .sgpr_count inside it.
    let t = c.t;
    if t.generation >= Generation::Gfx10 {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let mut co = c.co.clone();
    {
        let e = &mut co.kernels[i].descriptor.enables;
        e.user = crate::sgpr::supported_user_mask(t);
        let room = 16u16.saturating_sub(e.enabled_user_sgprs());
        if u16::from(e.preload_length) > room {
            e.preload_length = room as u8;
        }
        e.workgroup_ids = 7;
        e.workgroup_info = true;
        e.private_segment = true;
    }
    refit_sgprs(&mut co, i);
    let total = co.kernels[i].descriptor.enables.total_sgprs(t);
    let granule = if t.generation >= Generation::Gfx8 {
        16
    } else {
        8
    };
    if total <= granule {
        return Ok(None);
    }
    co.kernels[i].metadata.sgpr_count = int(u, 1u32, 8)?;
    let out = remodel(co);
    let (k, _) = kernel_syms(&out.object, i);
    Ok(patch(out, |e| {
        kd_u32(e, &k, kdo::RSRC1, |v| v & !(0xf << 6))
    }))
}

/// The mutators, in catalogue order.
static MUTATORS: &[Mutator] = &[
    Mutator {
        rule: "elf.header.truncated",
        how: "cuts the file to 16-63 bytes",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_header_truncated,
    },
    Mutator {
        rule: "elf.ident.class",
        how: "EI_CLASS other than 2",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_ident_class,
    },
    Mutator {
        rule: "elf.ident.data",
        how: "EI_DATA other than 1",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_ident_data,
    },
    Mutator {
        rule: "elf.ident.version",
        how: "EI_VERSION other than 1",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_ident_version,
    },
    Mutator {
        rule: "elf.ident.osabi",
        how: "EI_OSABI other than 64",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_ident_osabi,
    },
    Mutator {
        rule: "elf.ident.abi_version",
        how: "EI_ABIVERSION 5 or more",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_ident_abi_version,
    },
    Mutator {
        rule: "elf.ident.pad",
        how: "a non-zero e_ident padding byte",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_ident_pad,
    },
    Mutator {
        rule: "elf.type",
        how: "e_type other than ET_REL and ET_DYN",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_type,
    },
    Mutator {
        rule: "elf.machine",
        how: "e_machine other than EM_AMDGPU",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_machine,
    },
    Mutator {
        rule: "elf.version",
        how: "e_version other than 1",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_version,
    },
    Mutator {
        rule: "elf.entry",
        how: "a non-zero e_entry",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_entry,
    },
    Mutator {
        rule: "elf.header.sizes",
        how: "e_ehsize other than 64",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_header_sizes,
    },
    Mutator {
        rule: "elf.e_flags.mach",
        how: "EF_AMDGPU_MACH none, r600-era or reserved",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_e_flags_mach,
    },
    Mutator {
        rule: "elf.e_flags.mach_unmodelled",
        how: "EF_AMDGPU_MACH of a processor the oracle does not model",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_e_flags_mach_unmodelled,
    },
    Mutator {
        rule: "elf.e_flags.reserved",
        how: "an e_flags bit the version does not define (below bit 24)",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_e_flags_reserved,
    },
    Mutator {
        rule: "elf.e_flags.xnack",
        how: "the xnack field set without xnack, or 'unsupported' with it",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_e_flags_xnack,
    },
    Mutator {
        rule: "elf.e_flags.sramecc",
        how: "the sramecc field set without sramecc, or 'unsupported' with it",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_e_flags_sramecc,
    },
    Mutator {
        rule: "elf.e_flags.generic_version",
        how: "V6: generic version 0 on a generic target, non-zero elsewhere",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_e_flags_generic_version,
    },
    Mutator {
        rule: "elf.e_flags.generic_needs_v6",
        how: "a generic target's EI_ABIVERSION says V5",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_e_flags_generic_needs_v6,
    },
    Mutator {
        rule: "elf.phdr.bounds",
        how: "PT_PHDR, PT_GNU_RELRO or PT_GNU_STACK file bytes past the end",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_phdr_bounds,
    },
    Mutator {
        rule: "elf.phdr.sizes",
        how: "p_memsz below p_filesz in a segment other than PT_LOAD",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_phdr_sizes,
    },
    Mutator {
        rule: "elf.phdr.align",
        how: "a p_align that is not a power of two",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_phdr_align,
    },
    Mutator {
        rule: "elf.shdr.bounds",
        how: "a dynamic-linking section's file bytes past the end",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_shdr_bounds,
    },
    Mutator {
        rule: "elf.shdr.align",
        how: "an sh_addralign that is not a power of two",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_shdr_align,
    },
    Mutator {
        rule: "elf.shstrndx",
        how: "e_shstrndx not a string table, or a section name past .shstrtab",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_shstrndx,
    },
    Mutator {
        rule: "elf.load_segments",
        how: "a PT_LOAD turned into PT_NULL",
        also: &[],
        asm: MutantAsm::None,
        apply: elf_load_segments,
    },
    Mutator {
        rule: "note.section.align",
        how: "the note section aligned to 2 or 16-512",
        also: &["note.metadata.missing"],
        asm: MutantAsm::None,
        apply: note_section_align,
    },
    Mutator {
        rule: "note.truncated",
        how: "4 or 8 bytes of a note header after the metadata note",
        also: &[],
        asm: MutantAsm::None,
        apply: note_truncated,
    },
    Mutator {
        rule: "note.name.terminator",
        how: "a second note whose name lacks its NUL or has another",
        also: &["note.unknown"],
        asm: MutantAsm::None,
        apply: note_name_terminator,
    },
    Mutator {
        rule: "note.padding",
        how: "a non-zero padding byte after the name or the description",
        also: &[],
        asm: MutantAsm::None,
        apply: note_padding,
    },
    Mutator {
        rule: "note.metadata.missing",
        how: "the metadata note's type other than 32",
        also: &["note.unknown"],
        asm: MutantAsm::None,
        apply: note_metadata_missing,
    },
    Mutator {
        rule: "note.metadata.version_conflict",
        how: "a later metadata note with another amdhsa.version",
        also: &["metadata.version.mismatch"],
        asm: MutantAsm::None,
        apply: note_metadata_version_conflict,
    },
    Mutator {
        rule: "note.metadata.target_conflict",
        how: "V4+: a later metadata note naming another processor",
        also: &["metadata.target.mismatch"],
        asm: MutantAsm::None,
        apply: note_metadata_target_conflict,
    },
    Mutator {
        rule: "note.metadata.printf_conflict",
        how: "two metadata notes with different amdhsa.printf lists",
        also: &[],
        asm: MutantAsm::None,
        apply: note_metadata_printf_conflict,
    },
    Mutator {
        rule: "note.metadata.printf_repeated",
        how: "two metadata notes with the same amdhsa.printf list",
        also: &[],
        asm: MutantAsm::None,
        apply: note_metadata_printf_repeated,
    },
    Mutator {
        rule: "metadata.decode",
        how: "the MessagePack cut short",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_decode,
    },
    Mutator {
        rule: "metadata.trailing_bytes",
        how: "bytes after the MessagePack value",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_trailing_bytes,
    },
    Mutator {
        rule: "metadata.ext_type",
        how: "an extension value under a vendor key",
        also: &["metadata.key.vendor"],
        asm: MutantAsm::None,
        apply: metadata_ext_type,
    },
    Mutator {
        rule: "metadata.duplicate_key",
        how: "a map entry repeated",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_duplicate_key,
    },
    Mutator {
        rule: "metadata.root.not_map",
        how: "the root an array, integer, string or nil",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_root_not_map,
    },
    Mutator {
        rule: "metadata.missing_key",
        how: "amdhsa.version removed",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_missing_key,
    },
    Mutator {
        rule: "metadata.missing_key",
        how: "amdhsa.kernels removed",
        also: &["symbol.kd.not_in_metadata"],
        asm: MutantAsm::None,
        apply: metadata_missing_key_kernels,
    },
    Mutator {
        rule: "metadata.value.type",
        how: "a kernel's integer key as a boolean, array, map, negative or float",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_value_type,
    },
    Mutator {
        rule: "metadata.value.string_scalar",
        how: "a kernel's integer key as a decimal string",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_value_string_scalar,
    },
    Mutator {
        rule: "metadata.value.enum",
        how: "a .language LLVM does not list",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_value_enum,
    },
    Mutator {
        rule: "metadata.key.unprefixed",
        how: "a key without a vendor prefix",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_key_unprefixed,
    },
    Mutator {
        rule: "metadata.version.mismatch",
        how: "amdhsa.version of another code object version",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_version_mismatch,
    },
    Mutator {
        rule: "metadata.target.missing",
        how: "V4+: amdhsa.target removed",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_target_missing,
    },
    Mutator {
        rule: "metadata.target.invalid",
        how: "V4+: amdhsa.target not a target ID string",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_target_invalid,
    },
    Mutator {
        rule: "metadata.target.mismatch",
        how: "V4+: amdhsa.target naming another processor or feature setting",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_target_mismatch,
    },
    Mutator {
        rule: "metadata.printf.format",
        how: "an amdhsa.printf entry not ID:N:sizes:format",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_printf_format,
    },
    Mutator {
        rule: "metadata.kernel.missing_key",
        how: "a required kernel key removed",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_kernel_missing_key,
    },
    Mutator {
        rule: "metadata.kernel.duplicate_name",
        how: "two kernels with one .name",
        also: &["metadata.kernel.symbol_name"],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_duplicate_name,
    },
    Mutator {
        rule: "metadata.kernel.duplicate_symbol",
        how: "a second metadata entry for one kernel",
        also: &["metadata.kernel.duplicate_name"],
        asm: MutantAsm::None,
        apply: metadata_kernel_duplicate_symbol,
    },
    Mutator {
        rule: "metadata.kernel.duplicate_symbol",
        how: "one kernel described by two metadata notes",
        also: &["metadata.kernel.duplicate_name"],
        asm: MutantAsm::None,
        apply: metadata_kernel_described_twice,
    },
    Mutator {
        rule: "metadata.kernel.symbol_name",
        how: "a .name that is not .symbol without .kd",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_symbol_name,
    },
    Mutator {
        rule: "metadata.kernel.kernarg_segment_align",
        how: ".kernarg_segment_align not a power of two",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_kernarg_segment_align,
    },
    Mutator {
        rule: "metadata.kernel.wavefront_size",
        how: ".wavefront_size other than 32 and 64",
        also: &["kd.metadata.wavefront_size"],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_wavefront_size,
    },
    Mutator {
        rule: "metadata.kernel.max_flat_workgroup_size",
        how: ".max_flat_workgroup_size 0 or above 1024",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_max_flat_workgroup_size,
    },
    Mutator {
        rule: "metadata.kernel.reqd_workgroup_size",
        how: ".reqd_workgroup_size with a 0 but not all 0",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_reqd_workgroup_size,
    },
    Mutator {
        rule: "metadata.kernel.reqd_workgroup_size_limit",
        how: ".reqd_workgroup_size above .max_flat_workgroup_size",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_reqd_workgroup_size_limit,
    },
    Mutator {
        rule: "metadata.kernel.workgroup_processor_mode",
        how: "V5+: the key on a processor without WGP mode",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_workgroup_processor_mode,
    },
    Mutator {
        rule: "metadata.kernel.workgroup_processor_mode",
        how: "V5+, WGP targets: .workgroup_processor_mode 2 or more",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_kernel_workgroup_processor_mode_value,
    },
    Mutator {
        rule: "metadata.kernel.uniform_work_group_size",
        how: "V5+: .uniform_work_group_size 2 or more",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_kernel_uniform_work_group_size,
    },
    Mutator {
        rule: "metadata.kernel.kind",
        how: "a .kind other than normal, init, fini",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_kind,
    },
    Mutator {
        rule: "metadata.arg.missing_key",
        how: "an argument's .size, .offset or .value_kind removed",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_arg_missing_key,
    },
    Mutator {
        rule: "metadata.arg.address_space",
        how: "a dynamic_shared_pointer outside local, a global_buffer in local",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_address_space,
    },
    Mutator {
        rule: "metadata.arg.kind_size",
        how: "a pointer argument shrunk below pointer size",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_kind_size,
    },
    Mutator {
        rule: "metadata.arg.pointee_align",
        how: "a .pointee_align that is not a power of two",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_pointee_align,
    },
    Mutator {
        rule: "metadata.arg.misaligned",
        how: "a new pointer argument off its natural alignment (kernels without hidden arguments)",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_misaligned,
    },
    Mutator {
        rule: "metadata.arg.out_of_bounds",
        how: "the kernarg segment shrunk below the last argument's end",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_out_of_bounds,
    },
    Mutator {
        rule: "metadata.arg.overlap",
        how: "an explicit argument moved onto another",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_overlap,
    },
    Mutator {
        rule: "metadata.arg.hidden_version",
        how: "V3/V4: an 8-byte hidden argument becomes hidden_queue_ptr (or, V4, hidden_heap_v1)",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_hidden_version,
    },
    Mutator {
        rule: "metadata.arg.hidden_layout",
        how: "two hidden arguments of one size trade offsets",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_hidden_layout,
    },
    Mutator {
        rule: "symbol.table",
        how: ".symtab sh_entsize other than 24",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_table,
    },
    Mutator {
        rule: "symbol.name",
        how: "a symbol name offset past .strtab",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_name,
    },
    Mutator {
        rule: "symbol.kd.type",
        how: "a descriptor symbol's type other than STT_OBJECT",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kd_type,
    },
    Mutator {
        rule: "symbol.kd.size",
        how: "a descriptor symbol's size other than 64",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kd_size,
    },
    Mutator {
        rule: "symbol.kd.align",
        how: "a descriptor (not the first) moved back 1-4 bytes",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kd_align,
    },
    Mutator {
        rule: "symbol.kd.section",
        how: "a descriptor symbol defined in .text, .dynamic, .note or .dynstr",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kd_section,
    },
    Mutator {
        rule: "symbol.kd.duplicate",
        how: "two descriptor symbols with one name",
        also: &["symbol.metadata_kernel.no_kd"],
        asm: MutantAsm::None,
        apply: symbol_kd_duplicate,
    },
    Mutator {
        rule: "symbol.kernel.missing",
        how: "a kernel symbol renamed to a suffix of its name",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kernel_missing,
    },
    Mutator {
        rule: "symbol.kernel.type",
        how: "a kernel symbol's type other than STT_FUNC",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kernel_type,
    },
    Mutator {
        rule: "symbol.entry.relocation",
        how: "written as a relocatable object, an entry relocation of a type other than R_AMDGPU_REL64",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_entry_relocation,
    },
    Mutator {
        rule: "symbol.entry.target",
        how: "the entry offset moved by a multiple of 256",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_entry_target,
    },
    Mutator {
        rule: "symbol.entry.align",
        how: "entry and kernel symbol moved past leading s_nop words",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_entry_align,
    },
    Mutator {
        rule: "symbol.kd.not_in_metadata",
        how: "a kernel's metadata entry removed",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kd_not_in_metadata,
    },
    Mutator {
        rule: "symbol.metadata_kernel.no_kd",
        how: "a metadata entry for a kernel the object lacks",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_metadata_kernel_no_kd,
    },
    Mutator {
        rule: "kd.reserved_bytes",
        how: "a non-zero reserved descriptor byte",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_reserved_bytes,
    },
    Mutator {
        rule: "kd.rsrc1.priority",
        how: "PRIORITY non-zero",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc1_priority,
    },
    Mutator {
        rule: "kd.rsrc1.priv",
        how: "PRIV set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc1_priv,
    },
    Mutator {
        rule: "kd.rsrc1.debug_mode",
        how: "DEBUG_MODE set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc1_debug_mode,
    },
    Mutator {
        rule: "kd.rsrc1.bulky",
        how: "BULKY set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc1_bulky,
    },
    Mutator {
        rule: "kd.rsrc1.cdbg_user",
        how: "CDBG_USER set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc1_cdbg_user,
    },
    Mutator {
        rule: "kd.rsrc1.reserved",
        how: "a reserved rsrc1 bit set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc1_reserved,
    },
    Mutator {
        rule: "kd.rsrc2.trap_handler",
        how: "GFX6-GFX11: ENABLE_TRAP_HANDLER set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc2_trap_handler,
    },
    Mutator {
        rule: "kd.rsrc2.exception_address_watch",
        how: "ENABLE_EXCEPTION_ADDRESS_WATCH set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc2_exception_address_watch,
    },
    Mutator {
        rule: "kd.rsrc2.exception_memory",
        how: "ENABLE_EXCEPTION_MEMORY set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc2_exception_memory,
    },
    Mutator {
        rule: "kd.rsrc2.granulated_lds_size",
        how: "GRANULATED_LDS_SIZE non-zero",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc2_granulated_lds_size,
    },
    Mutator {
        rule: "kd.rsrc2.reserved",
        how: "GFX6-GFX11: rsrc2 bit 31 set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc2_reserved,
    },
    Mutator {
        rule: "kd.rsrc3.reserved",
        how: "an rsrc3 bit the target does not define",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc3_reserved,
    },
    Mutator {
        rule: "kd.rsrc3.shared_vgpr_count_wave32",
        how: "GFX10-GFX11 wave32: SHARED_VGPR_COUNT non-zero",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_rsrc3_shared_vgpr_count_wave32,
    },
    Mutator {
        rule: "kd.rsrc3.shared_vgpr_count_overflow",
        how: "GFX10-GFX11 wave64: shared VGPRs and VGPRs past 63 granules",
        also: &[],
        asm: MutantAsm::Rejected,
        apply: kd_rsrc3_shared_vgpr_count_overflow,
    },
    Mutator {
        rule: "kd.rsrc3.accum_offset",
        how: "gfx90a family: ACCUM_OFFSET past the allocated VGPRs",
        also: &[],
        asm: MutantAsm::Rejected,
        apply: kd_rsrc3_accum_offset,
    },
    Mutator {
        rule: "kd.properties.reserved",
        how: "a reserved kernel_code_properties bit set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_properties_reserved,
    },
    Mutator {
        rule: "kd.properties.wavefront_size32",
        how: "before GFX10: ENABLE_WAVEFRONT_SIZE32 set",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_properties_wavefront_size32,
    },
    Mutator {
        rule: "kd.kernarg_preload.unsupported",
        how: "kernarg_preload non-zero where preload does not exist",
        also: &[],
        asm: MutantAsm::None,
        apply: kd_kernarg_preload_unsupported,
    },
    Mutator {
        rule: "kd.kernarg_preload.length",
        how: "preload of 17 or more dwords, counted in USER_SGPR_COUNT",
        also: &["sgpr.user_sgpr_count.limit"],
        asm: MutantAsm::Rejected,
        apply: kd_kernarg_preload_length,
    },
    Mutator {
        rule: "kd.kernarg_preload.exceeds_kernarg_size",
        how: "preloaded dwords past a non-zero kernarg_size",
        also: &[],
        asm: MutantAsm::Rejected,
        apply: kd_kernarg_preload_exceeds_kernarg_size,
    },
    Mutator {
        rule: "kd.metadata.group_segment_fixed_size",
        how: "metadata .group_segment_fixed_size differs",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_group_segment_fixed_size,
    },
    Mutator {
        rule: "kd.metadata.private_segment_fixed_size",
        how: "metadata .private_segment_fixed_size differs",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_private_segment_fixed_size,
    },
    Mutator {
        rule: "kd.metadata.kernarg_segment_size",
        how: "a non-zero kernarg_size other than .kernarg_segment_size",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_kernarg_segment_size,
    },
    Mutator {
        rule: "kd.metadata.wavefront_size",
        how: "GFX10+: metadata .wavefront_size the other wave size",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_wavefront_size,
    },
    Mutator {
        rule: "kd.metadata.sgpr_count",
        how: "GFX6-GFX9: .sgpr_count above any allocation",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_sgpr_count,
    },
    Mutator {
        rule: "kd.metadata.vgpr_count",
        how: ".vgpr_count (or .agpr_count) above the allocated VGPRs",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_vgpr_count,
    },
    Mutator {
        rule: "kd.metadata.accum_offset",
        how: "gfx90a family: an architectural VGPR past ACCUM_OFFSET",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_accum_offset,
    },
    Mutator {
        rule: "kd.metadata.uses_dynamic_stack",
        how: "V5+: .uses_dynamic_stack flipped",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_uses_dynamic_stack,
    },
    Mutator {
        rule: "kd.metadata.workgroup_processor_mode",
        how: "V5+, WGP targets: .workgroup_processor_mode flipped",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: kd_metadata_workgroup_processor_mode,
    },
    Mutator {
        rule: "sgpr.user_sgpr_count.too_small",
        how: "USER_SGPR_COUNT below the enabled and preloaded SGPRs",
        also: &[],
        asm: MutantAsm::None,
        apply: sgpr_user_sgpr_count_too_small,
    },
    Mutator {
        rule: "sgpr.user_sgpr_count.limit",
        how: "USER_SGPR_COUNT 17-31 (GFX6-GFX9: allocation raised to hold them)",
        also: &["sgpr.user_sgpr_count.extra"],
        asm: MutantAsm::None,
        apply: sgpr_user_sgpr_count_limit,
    },
    Mutator {
        rule: "sgpr.private_segment_buffer.unsupported",
        how: "architected flat scratch: private segment buffer enabled",
        also: &[],
        asm: MutantAsm::None,
        apply: sgpr_private_segment_buffer_unsupported,
    },
    Mutator {
        rule: "sgpr.flat_scratch_init.unsupported",
        how: "GFX6 or architected flat scratch: flat scratch init enabled",
        also: &[],
        asm: MutantAsm::None,
        apply: sgpr_flat_scratch_init_unsupported,
    },
    Mutator {
        rule: "sgpr.vgpr_workitem_id.undefined",
        how: "ENABLE_VGPR_WORKITEM_ID 3",
        also: &[],
        asm: MutantAsm::None,
        apply: sgpr_vgpr_workitem_id_undefined,
    },
    Mutator {
        rule: "sgpr.allocation.too_small",
        how: "GFX6-GFX9: every SGPR enabled, allocation cut to one granule",
        also: &[],
        asm: MutantAsm::None,
        apply: sgpr_allocation_too_small,
    },
];
