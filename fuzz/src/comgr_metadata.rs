//! Target `comgr_metadata`: comgr (`libamd_comgr.so.2`) against the oracle
//! on code objects whose metadata note was mutated at the MessagePack
//! level.
//!
//! Input: a base object, then a mutation program.
//!
//! * If the input starts with one of the real objects of [`REAL`] (clang-19
//!   and llc-14 output, also stored as seeds), that is the base and the
//!   program is what follows; its metadata note is rewritten
//!   ([`rewrite_metadata`]). An input whose ELF bytes were mutated is not a
//!   real object any more: it is read as a selector, below (the target
//!   compares metadata, not comgr's and the oracle's views of broken ELF
//!   files).
//! * Otherwise byte 0 picks one of [`BASES`] generated objects
//!   ([`bases`]), which are emitted again with the new note by
//!   `hsaco_gen::emit::elf::write`; the program is the rest.
//!
//! The program edits the decoded metadata tree ([`mutate`]: new scalars,
//! type changes, deleted, repeated and renamed entries, wrapped and
//! transplanted subtrees, extreme numbers, string edits, a truncated or
//! extended encoding). The object is then read through comgr (metadata
//! iteration and lookup, symbols and their lookup, ISA name:
//! [`hsaco_conform::peers::comgr::view`]) and through the oracle, and the
//! two are compared ([`hsaco_conform::peers::compare_meta::compare`]). A
//! difference no [`compare_meta::KNOWN`] entry explains panics; a comgr
//! crash ends the process (libFuzzer saves the input).
//!
//! Notes on which LLVM's behaviour is undefined and comgr crashes (two map
//! keys that are both arrays or both maps, [`compare_meta::Model::Crash`])
//! are not given to comgr, so that a run finds new crashes instead of this
//! known one; `HSACO_FUZZ_KNOWN_CRASHES=run` gives them to it (the
//! regression replay does, to check it still crashes).

use std::sync::OnceLock;

use hsaco_conform::peers::comgr::{self, Comgr, ComgrError};
use hsaco_conform::peers::compare_meta::{self, Model};
use hsaco_gen::Case;
use hsaco_oracle::elf::{self, Elf, SHT_NOTE};
use hsaco_oracle::msgpack::{self, Value};
use hsaco_oracle::notes::NT_AMDGPU_METADATA;
use hsaco_oracle::rules::Sink;

use crate::peer;

/// Number of generated base objects.
pub const BASES: usize = 16;

/// Real objects used as bases, by name (the seeds of the same name).
pub const REAL: &[(&str, &[u8])] = &[
    (
        "llc14-gfx900-xnack-v3-kernels.o",
        include_bytes!("../../corpus/seeds/comgr_metadata/llc14-gfx900-xnack-v3-kernels.o"),
    ),
    (
        "llc14-gfx900-xnack-v3-kernels.hsaco",
        include_bytes!("../../corpus/seeds/comgr_metadata/llc14-gfx900-xnack-v3-kernels.hsaco"),
    ),
    (
        "clang19-gfx900-v4-args.o",
        include_bytes!("../../corpus/seeds/comgr_metadata/clang19-gfx900-v4-args.o"),
    ),
    (
        "clang19-gfx900-v4-args.hsaco",
        include_bytes!("../../corpus/seeds/comgr_metadata/clang19-gfx900-v4-args.hsaco"),
    ),
    (
        "clang19-gfx900-v5-args.o",
        include_bytes!("../../corpus/seeds/comgr_metadata/clang19-gfx900-v5-args.o"),
    ),
    (
        "clang19-gfx1030-v6-args.o",
        include_bytes!("../../corpus/seeds/comgr_metadata/clang19-gfx1030-v6-args.o"),
    ),
    (
        "clang19-gfx9-generic-v6-args.o",
        include_bytes!("../../corpus/seeds/comgr_metadata/clang19-gfx9-generic-v6-args.o"),
    ),
];

/// Most mutation steps one input applies.
pub const MAX_STEPS: usize = 32;

/// Keys the mutations write: those LLVM writes, a vendor key and nonsense.
pub const KEYS: &[&str] = &[
    "amdhsa.version",
    "amdhsa.kernels",
    "amdhsa.target",
    "amdhsa.printf",
    ".name",
    ".symbol",
    ".args",
    ".size",
    ".offset",
    ".value_kind",
    ".address_space",
    ".access",
    ".is_const",
    ".language",
    ".language_version",
    ".kernarg_segment_size",
    ".kernarg_segment_align",
    ".group_segment_fixed_size",
    ".private_segment_fixed_size",
    ".wavefront_size",
    ".sgpr_count",
    ".vgpr_count",
    ".max_flat_workgroup_size",
    ".reqd_workgroup_size",
    ".uses_dynamic_stack",
    "vendor.key",
    "",
];

/// comgr, loaded once; `None` when it is missing.
pub fn library() -> Result<&'static Comgr, ComgrError> {
    Comgr::open()
}

/// comgr for a smoke test: `None` (after printing why) when it is missing
/// outside CI; a panic in CI.
pub fn require_comgr() -> Option<&'static Comgr> {
    match library() {
        Ok(c) => Some(c),
        Err(e) => {
            let msg = format!("comgr: {e}");
            assert!(!peer::in_ci(), "{msg}");
            eprintln!("SKIPPED: {msg}");
            None
        }
    }
}

/// The generated base objects, built once: the first [`BASES`] cases of
/// [`crate::smoke::generated_cases`] with MessagePack metadata (code
/// object V3 and later; V2 objects carry YAML).
pub fn bases() -> &'static [Case] {
    static BASE: OnceLock<Vec<Case>> = OnceLock::new();
    BASE.get_or_init(|| {
        crate::smoke::generated_cases(4 * BASES)
            .into_iter()
            .filter(|c| c.code_object_version >= 3)
            .take(BASES)
            .collect()
    })
}

/// True when known crashes are to be given to comgr.
fn run_known_crashes() -> bool {
    static RUN: OnceLock<bool> = OnceLock::new();
    *RUN.get_or_init(|| std::env::var("HSACO_FUZZ_KNOWN_CRASHES").is_ok_and(|v| v == "run"))
}

/// Reads bytes from the program, zero when it runs out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn u64(&mut self) -> u64 {
        let mut b = [0u8; 8];
        for x in &mut b {
            *x = self.u8();
        }
        u64::from_le_bytes(b)
    }
    fn take(&mut self, n: usize) -> &[u8] {
        let n = n.min(self.0.len());
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        a
    }
}

/// The number of nodes (pre-order) in a tree, keys included.
fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count).sum(),
        Value::Map(m) => m.iter().map(|(k, v)| count(k) + count(v)).sum(),
        _ => 0,
    }
}

/// The path (child positions; a map entry `i` has its key at `2i` and
/// its value at `2i + 1`) of the `n`th node in pre-order.
fn path_of(v: &Value, n: &mut usize, path: &mut Vec<usize>) -> bool {
    if *n == 0 {
        return true;
    }
    *n -= 1;
    let children: Vec<&Value> = match v {
        Value::Array(a) => a.iter().collect(),
        Value::Map(m) => m.iter().flat_map(|(k, v)| [k, v]).collect(),
        _ => return false,
    };
    for (i, c) in children.into_iter().enumerate() {
        path.push(i);
        if path_of(c, n, path) {
            return true;
        }
        path.pop();
    }
    false
}

/// The node at `path`.
fn at_path<'a>(v: &'a mut Value, path: &[usize]) -> Option<&'a mut Value> {
    let Some((&i, rest)) = path.split_first() else {
        return Some(v);
    };
    let child = match v {
        Value::Array(a) => a.get_mut(i)?,
        Value::Map(m) => {
            let (k, v) = m.get_mut(i / 2)?;
            if i % 2 == 0 {
                k
            } else {
                v
            }
        }
        _ => return None,
    };
    at_path(child, rest)
}

/// The `n`th node (mod the node count), as a copy.
fn nth_copy(root: &Value, n: usize) -> Option<Value> {
    let mut n = n % count(root).max(1);
    let mut path = Vec::new();
    if !path_of(root, &mut n, &mut path) {
        return None;
    }
    let mut v = root;
    for &i in &path {
        v = match v {
            Value::Array(a) => a.get(i)?,
            Value::Map(m) => {
                let (k, val) = m.get(i / 2)?;
                if i % 2 == 0 {
                    k
                } else {
                    val
                }
            }
            _ => return None,
        };
    }
    Some(v.clone())
}

/// Applies `f` to the node `i` (mod the node count).
fn with_node(root: &mut Value, i: usize, f: impl FnOnce(&mut Value)) {
    let mut n = i % count(root).max(1);
    let mut path = Vec::new();
    if path_of(root, &mut n, &mut path) {
        if let Some(v) = at_path(root, &path) {
            f(v);
        }
    }
}

/// The containers of a tree (arrays and maps), in pre-order, by count.
fn containers(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(containers).sum::<usize>(),
        Value::Map(m) => {
            1 + m
                .iter()
                .map(|(k, v)| containers(k) + containers(v))
                .sum::<usize>()
        }
        _ => 0,
    }
}

/// Applies `f` to the `i`th container (mod their count).
fn with_container(root: &mut Value, i: usize, f: impl FnOnce(&mut Value)) {
    let total = containers(root);
    if total == 0 {
        return;
    }
    let want = i % total;
    let mut n = 0usize;
    let mut idx = 0usize;
    // Find the node index of the `want`th container.
    fn walk(v: &Value, want: usize, seen: &mut usize, idx: &mut usize) -> Option<usize> {
        let here = *idx;
        *idx += 1;
        if matches!(v, Value::Array(_) | Value::Map(_)) {
            if *seen == want {
                return Some(here);
            }
            *seen += 1;
        }
        match v {
            Value::Array(a) => a.iter().find_map(|e| walk(e, want, seen, idx)),
            Value::Map(m) => m
                .iter()
                .find_map(|(k, e)| walk(k, want, seen, idx).or_else(|| walk(e, want, seen, idx))),
            _ => None,
        }
    }
    if let Some(node) = walk(root, want, &mut n, &mut idx) {
        with_node(root, node, f);
    }
}

/// A new scalar drawn from the program.
fn scalar(b: &mut Bytes<'_>) -> Value {
    match b.u8() % 10 {
        0 => Value::Nil,
        1 => Value::Bool(b.u8() & 1 == 1),
        2 => Value::Int(b.u64() as i64),
        3 => Value::UInt(u64::from(b.u16())),
        4 => Value::UInt(b.u64()),
        5 => Value::F32(f32::from_bits(b.u64() as u32)),
        6 => Value::F64(f64::from_bits(b.u64())),
        7 => {
            let n = usize::from(b.u8() % 12);
            Value::Str(b.take(n).to_vec())
        }
        8 => Value::str(KEYS[usize::from(b.u8()) % KEYS.len()]),
        _ => match b.u8() % 3 {
            0 => Value::Bin(b.take(2).to_vec()),
            1 => Value::Ext(b.u8() as i8, b.take(1).to_vec()),
            _ => Value::Str(vec![0xff, 0x00, b'x']),
        },
    }
}

/// A map key drawn from the program: mostly known keys, sometimes edited
/// or of another kind (including containers).
fn key(b: &mut Bytes<'_>) -> Value {
    match b.u8() % 8 {
        0..=3 => Value::str(KEYS[usize::from(b.u8()) % KEYS.len()]),
        4 => {
            let mut k = KEYS[usize::from(b.u8()) % KEYS.len()].as_bytes().to_vec();
            let c = b.u8();
            k.push(c);
            Value::Str(k)
        }
        5 => Value::Array(vec![Value::UInt(u64::from(b.u8() % 3))]),
        6 => Value::Map(Vec::new()),
        _ => scalar(b),
    }
}

/// Changes a value's type, keeping what can be kept of its meaning.
fn retype(v: &mut Value, sel: u8) {
    let new = match (&*v, sel % 4) {
        (Value::UInt(u), 0) => Value::Int(*u as i64),
        (Value::UInt(u), 1) => Value::Str(u.to_string().into_bytes()),
        (Value::UInt(u), 2) => Value::F64(*u as f64),
        (Value::UInt(u), _) => Value::Bool(*u != 0),
        (Value::Int(i), 0) => Value::UInt(*i as u64),
        (Value::Int(i), _) => Value::Str(i.to_string().into_bytes()),
        (Value::Str(s), 0) => Value::UInt(
            std::str::from_utf8(s)
                .ok()
                .and_then(|t| t.parse().ok())
                .unwrap_or(0),
        ),
        (Value::Str(s), 1) => Value::Bin(s.clone()),
        (Value::Str(s), 2) => Value::Array(vec![Value::Str(s.clone())]),
        (Value::Str(_), _) => Value::Nil,
        (Value::Bool(x), 0) => Value::UInt(u64::from(*x)),
        (Value::Bool(x), _) => Value::str(if *x { "true" } else { "false" }),
        (Value::F32(x), _) => Value::F64(f64::from(*x)),
        (Value::F64(x), _) => Value::F32(*x as f32),
        (Value::Nil, _) => Value::UInt(0),
        (Value::Array(a), 0) => Value::Map(
            a.iter()
                .enumerate()
                .map(|(i, e)| (Value::UInt(i as u64), e.clone()))
                .collect(),
        ),
        (Value::Array(a), _) => a.first().cloned().unwrap_or(Value::Nil),
        (Value::Map(m), 0) => Value::Array(m.iter().map(|(_, v)| v.clone()).collect()),
        (Value::Map(m), _) => m.first().map(|(_, v)| v.clone()).unwrap_or(Value::Nil),
        (Value::Bin(s), _) => Value::Str(s.clone()),
        (Value::Ext(_, s), _) => Value::Bin(s.clone()),
    };
    *v = new;
}

/// What the program does to the encoded note after the tree edits.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tail {
    /// Bytes cut from the end.
    pub cut: usize,
    /// Bytes appended (copies of `fill`).
    pub append: usize,
    /// The appended byte.
    pub fill: u8,
}

/// Applies the program to the tree; returns the tail edits.
pub fn mutate(root: &mut Value, program: &[u8]) -> Tail {
    let mut b = Bytes(program);
    let mut tail = Tail::default();
    for _ in 0..MAX_STEPS {
        if b.is_empty() {
            break;
        }
        let op = b.u8();
        let at = usize::from(b.u16());
        match op % 12 {
            0 => {
                let s = scalar(&mut b);
                with_node(root, at, |v| *v = s);
            }
            1 => {
                let sel = b.u8();
                with_node(root, at, |v| retype(v, sel));
            }
            2 => {
                let i = usize::from(b.u8());
                with_container(root, at, |c| match c {
                    Value::Array(a) if !a.is_empty() => {
                        let n = a.len();
                        a.remove(i % n);
                    }
                    Value::Map(m) if !m.is_empty() => {
                        let n = m.len();
                        m.remove(i % n);
                    }
                    _ => {}
                });
            }
            3 => {
                let i = usize::from(b.u8());
                let fresh = b.u8() & 1 == 1;
                let s = scalar(&mut b);
                with_container(root, at, |c| match c {
                    Value::Array(a) if !a.is_empty() => {
                        let e = a[i % a.len()].clone();
                        a.insert(i % a.len(), e);
                    }
                    Value::Map(m) if !m.is_empty() => {
                        let (k, v) = m[i % m.len()].clone();
                        m.push((k, if fresh { s } else { v }));
                    }
                    _ => {}
                });
            }
            4 => {
                let i = usize::from(b.u8());
                let k = key(&mut b);
                with_container(root, at, |c| {
                    if let Value::Map(m) = c {
                        if !m.is_empty() {
                            let n = m.len();
                            m[i % n].0 = k;
                        }
                    }
                });
            }
            5 => {
                let as_map = b.u8() & 1 == 1;
                let k = key(&mut b);
                // Keep nesting well inside the oracle's 64 levels.
                if depth(root) < 48 {
                    with_node(root, at, |v| {
                        let inner = std::mem::replace(v, Value::Nil);
                        *v = if as_map {
                            Value::Map(vec![(k, inner)])
                        } else {
                            Value::Array(vec![inner])
                        };
                    });
                }
            }
            6 => {
                let from = usize::from(b.u16());
                if let Some(c) = nth_copy(root, from) {
                    if count(&c) < 4096 && depth(root) + depth(&c) < 56 {
                        with_node(root, at, |v| *v = c);
                    }
                }
            }
            7 => {
                let k = key(&mut b);
                let s = scalar(&mut b);
                with_container(root, at, |c| {
                    if let Value::Map(m) = c {
                        m.push((k, s));
                    }
                });
            }
            8 => {
                let x = match b.u8() % 9 {
                    0 => Value::UInt(0),
                    1 => Value::UInt(u64::MAX),
                    2 => Value::Int(i64::MIN),
                    3 => Value::Int(-1),
                    4 => Value::UInt(1 << 32),
                    5 => Value::F64(f64::NAN),
                    6 => Value::F64(f64::INFINITY),
                    7 => Value::F64(-0.0),
                    _ => Value::UInt(u64::from(u32::MAX)),
                };
                with_node(root, at, |v| *v = x);
            }
            9 => {
                let (i, j) = (usize::from(b.u8()), usize::from(b.u8()));
                with_container(root, at, |c| match c {
                    Value::Array(a) if !a.is_empty() => {
                        let n = a.len();
                        a.swap(i % n, j % n);
                    }
                    Value::Map(m) if !m.is_empty() => {
                        let n = m.len();
                        m.swap(i % n, j % n);
                    }
                    _ => {}
                });
            }
            10 => {
                let t = b.u8();
                if t & 0x80 == 0 {
                    tail.cut = usize::from(t % 8) + 1;
                } else {
                    tail.append = usize::from(t % 4) + 1;
                    tail.fill = b.u8();
                }
            }
            _ => {
                let sel = b.u8();
                with_node(root, at, |v| {
                    if let Value::Str(s) = v {
                        match sel % 5 {
                            0 => s.push(0),
                            1 => s.insert(0, 0xff),
                            2 => s.clear(),
                            3 => {
                                let base = if s.is_empty() {
                                    b"x".to_vec()
                                } else {
                                    s.clone()
                                };
                                while s.len() < 300 {
                                    s.extend_from_slice(&base);
                                }
                            }
                            _ => s.make_ascii_uppercase(),
                        }
                    }
                });
            }
        }
    }
    tail
}

/// Nesting depth of a tree (a scalar is 0).
fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Map(m) => {
            1 + m
                .iter()
                .map(|(k, v)| depth(k).max(depth(v)))
                .max()
                .unwrap_or(0)
        }
        _ => 0,
    }
}

/// The real object `data` starts with, and the rest of `data`.
pub fn real_prefix(data: &[u8]) -> Option<(&'static [u8], &[u8])> {
    REAL.iter()
        .find(|(_, obj)| data.starts_with(obj))
        .and_then(|(_, obj)| Some((*obj, data.get(obj.len()..)?)))
}

/// The description of the first `NT_AMDGPU_METADATA` note in a note
/// section of `object`.
pub fn metadata_desc(object: &[u8]) -> Option<Vec<u8>> {
    let mut sink = Sink::new();
    let e = Elf::parse(object, &mut sink)?;
    let notes = hsaco_oracle::notes::read(&e, &mut sink);
    notes
        .iter()
        .find(|n| n.name == "AMDGPU" && n.n_type == NT_AMDGPU_METADATA)
        .map(|n| n.desc.to_vec())
}

/// `object` with the description of its first `NT_AMDGPU_METADATA` note
/// replaced by `desc`: the note section, rebuilt with the new note, is
/// appended at the end of the file (8-byte aligned), and its section
/// header and any `PT_NOTE` segment that covered it point there. `None`
/// when no note section holds such a note.
pub fn rewrite_metadata(object: &[u8], desc: &[u8]) -> Option<Vec<u8>> {
    let mut sink = Sink::new();
    let e = Elf::parse(object, &mut sink)?;
    let pad4 = |n: usize| n.checked_add(3).map(|x| x & !3);
    for s in e.sections.iter().filter(|s| s.sh_type == SHT_NOTE) {
        let data = s.data(object)?;
        let mut out = Vec::with_capacity(data.len() + desc.len());
        let mut pos = 0usize;
        let mut replaced = false;
        while pos + 12 <= data.len() {
            let namesz = elf::le_u32(data, pos)? as usize;
            let descsz = elf::le_u32(data, pos + 4)? as usize;
            let ntype = elf::le_u32(data, pos + 8)?;
            let name_end = pos + 12 + pad4(namesz)?;
            let desc_end = name_end.checked_add(pad4(descsz)?)?;
            let name = data.get(pos + 12..pos + 12 + namesz)?;
            if desc_end > data.len() {
                return None;
            }
            if !replaced && name == b"AMDGPU\0" && ntype == NT_AMDGPU_METADATA {
                out.extend_from_slice(&(namesz as u32).to_le_bytes());
                out.extend_from_slice(&u32::try_from(desc.len()).ok()?.to_le_bytes());
                out.extend_from_slice(&ntype.to_le_bytes());
                out.extend_from_slice(data.get(pos + 12..name_end)?);
                out.extend_from_slice(desc);
                out.resize(out.len() + (pad4(desc.len())? - desc.len()), 0);
                replaced = true;
            } else {
                out.extend_from_slice(data.get(pos..desc_end)?);
            }
            pos = desc_end;
        }
        if !replaced {
            continue;
        }
        let mut file = object.to_vec();
        file.resize(file.len().checked_add(7)? & !7, 0);
        let new_off = file.len() as u64;
        file.extend_from_slice(&out);
        let shdr = usize::try_from(e.header.shoff)
            .ok()?
            .checked_add(s.index.checked_mul(64)?)?;
        file.get_mut(shdr + 24..shdr + 32)?
            .copy_from_slice(&new_off.to_le_bytes());
        file.get_mut(shdr + 32..shdr + 40)?
            .copy_from_slice(&(out.len() as u64).to_le_bytes());
        for i in 0..usize::from(e.header.phnum) {
            let ph = usize::try_from(e.header.phoff).ok()?.checked_add(i * 56)?;
            let (Some(pt), Some(off)) = (elf::le_u32(&file, ph), elf::le_u64(&file, ph + 8)) else {
                continue;
            };
            if pt == elf::PT_NOTE && off == s.offset {
                let size = (out.len() as u64).to_le_bytes();
                file.get_mut(ph + 8..ph + 16)?
                    .copy_from_slice(&new_off.to_le_bytes());
                file.get_mut(ph + 32..ph + 40)?.copy_from_slice(&size);
                file.get_mut(ph + 40..ph + 48)?.copy_from_slice(&size);
            }
        }
        return Some(file);
    }
    None
}

/// The object an input describes and its new note (see the module docs);
/// `None` when the base has no metadata note to mutate.
pub fn build(data: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let (base_elf, case, program) = match real_prefix(data) {
        Some((obj, rest)) => (Some(obj), None, rest),
        None => {
            let (&sel, rest) = data.split_first().unwrap_or((&0, &[]));
            let cases = bases();
            (None, cases.get(usize::from(sel) % cases.len().max(1)), rest)
        }
    };
    let old = match (base_elf, case) {
        (Some(b), _) => metadata_desc(b)?,
        (None, Some(c)) => hsaco_gen::emit::metadata_bytes(&c.object),
        (None, None) => return None,
    };
    let mut desc = match msgpack::decode(&old) {
        Ok((mut tree, _)) => {
            let tail = mutate(&mut tree, program);
            let mut d = msgpack::encode(&tree);
            d.truncate(d.len().saturating_sub(tail.cut));
            d.resize(d.len() + tail.append, tail.fill);
            d
        }
        // A base whose note the oracle cannot decode is used as it is.
        Err(_) => old,
    };
    desc.shrink_to_fit();
    let object = match (base_elf, case) {
        (Some(b), _) => rewrite_metadata(b, &desc)?,
        (None, Some(c)) => hsaco_gen::emit::elf::write(&c.object, &desc),
        (None, None) => return None,
    };
    Some((object, desc))
}

/// Runs one input; panics on an unexplained difference.
pub fn run(data: &[u8]) {
    let lib = library().unwrap_or_else(|e| panic!("comgr_metadata needs comgr: {e}"));
    let Some((object, desc)) = build(data) else {
        return;
    };
    if !run_known_crashes() {
        if let Model::Crash(_) = compare_meta::llvm_model(&desc) {
            return;
        }
    }
    check(lib, &object);
}

/// Reads `object` through comgr and compares; panics on a finding.
pub fn check(lib: &'static Comgr, object: &[u8]) {
    let view = comgr::view(lib, object)
        .unwrap_or_else(|e| panic!("comgr refuses to take {} bytes: {e}", object.len()));
    let report = compare_meta::compare(&view, object);
    if report.has_findings() {
        let desc = metadata_desc(object).unwrap_or_default();
        let hex: String = desc.iter().take(512).map(|b| format!("{b:02x}")).collect();
        panic!(
            "comgr and the oracle differ:\n{report}\nnote ({} bytes): {hex}",
            desc.len()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smoke;

    #[test]
    fn bases_are_valid_and_varied() {
        let b = bases();
        assert_eq!(b.len(), BASES);
        let versions: std::collections::BTreeSet<u8> =
            b.iter().map(|c| c.code_object_version).collect();
        assert!(versions.len() >= 3, "{versions:?}");
    }

    #[test]
    fn rewriting_a_note_keeps_everything_else() {
        let case = &bases()[0];
        let old = metadata_desc(&case.elf).expect("note");
        // The same note again: the oracle reads the same metadata.
        let same = rewrite_metadata(&case.elf, &old).expect("rewritten");
        assert_eq!(metadata_desc(&same), Some(old.clone()));
        // A longer note moves to the end of the file.
        let mut longer = old.clone();
        longer.extend_from_slice(&[0xc0; 9]);
        let moved = rewrite_metadata(&case.elf, &longer).expect("rewritten");
        assert_eq!(metadata_desc(&moved), Some(longer));
        assert!(moved.len() > case.elf.len());
        // Without a metadata note there is nothing to rewrite.
        assert_eq!(rewrite_metadata(b"\x7fELF", &old), None);
    }

    #[test]
    fn real_objects_are_bases_while_intact() {
        for (name, obj) in REAL {
            let desc = metadata_desc(obj).unwrap_or_else(|| panic!("{name}: no metadata"));
            let mut input = obj.to_vec();
            input.extend_from_slice(&[2, 0, 0]);
            let (base, rest) = real_prefix(&input).expect("a real object");
            assert_eq!(base, *obj);
            assert_eq!(rest, &[2, 0, 0]);
            // The empty program leaves the note as it was.
            let (object, new) = build(obj).expect("builds");
            assert_eq!(new, desc, "{name}");
            assert_eq!(metadata_desc(&object), Some(desc), "{name}");
        }
        // One changed byte and the input is a selector again.
        let mut broken = REAL[0].1.to_vec();
        broken[20] ^= 1;
        assert!(real_prefix(&broken).is_none());
    }

    #[test]
    fn mutations_change_the_tree() {
        let case = &bases()[2];
        let (tree, _) =
            msgpack::decode(&hsaco_gen::emit::metadata_bytes(&case.object)).expect("decodes");
        let mut changed = 0;
        for op in 0u8..12 {
            let mut t = tree.clone();
            let tail = mutate(&mut t, &[op, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
            if t != tree || tail != Tail::default() {
                changed += 1;
            }
        }
        assert!(
            changed >= 10,
            "{changed} of 12 operations changed something"
        );
        // The empty program changes nothing.
        let mut t = tree.clone();
        assert_eq!(mutate(&mut t, &[]), Tail::default());
        assert_eq!(t, tree);
    }

    #[test]
    fn mutated_notes_agree_with_comgr() {
        let Some(_) = require_comgr() else { return };
        for (k, mut input) in smoke::inputs(0xc0_96a7, 300, 48).into_iter().enumerate() {
            if input.is_empty() {
                input.push(k as u8);
            }
            run(&input);
        }
        // The real objects with programs after them.
        for (k, (_, obj)) in REAL.iter().enumerate() {
            for p in smoke::inputs(0x0b_1ec7 + k as u64, 20, 40) {
                let mut input = obj.to_vec();
                input.extend_from_slice(&p);
                run(&input);
            }
        }
    }
}
