//! How comgr prints MessagePack scalars, and the model of the LLVM
//! `msgpack::Document` reader inside comgr ([`llvm_model`]).

use hsaco_oracle::msgpack::Value;

use super::{Known, MD_BINARY, MD_CONTAINER_KEY, MD_TRUNCATED_ZERO};
use crate::peers::comgr::ComgrMeta;

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
/// [`crate::peers::comgr`]): `None` for arrays, maps, bin and ext values.
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
    /// undefined; nesting deeper than [`crate::peers::comgr::MAX_DEPTH`]; more
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
            if stack.len() >= crate::peers::comgr::MAX_DEPTH {
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
