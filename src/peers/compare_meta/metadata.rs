//! Metadata trees: comgr's against the oracle's (and against the LLVM
//! model's, which decides whether a difference is known), key by key.

use std::collections::BTreeMap;

use hsaco_oracle::check::{self};
use hsaco_oracle::elf::Elf;
use hsaco_oracle::msgpack::{self, DecodeErrorKind, Value};
use hsaco_oracle::notes;
use hsaco_oracle::rules::Sink;
use hsaco_oracle::targets::CodeObjectVersion;

use super::model::{llvm_model, oracle_tree, Model};
use super::v2::compare_v2;
use super::{
    err_text, verdict, Aspect, Difference, Known, Outcome, MD_DEPTH, PAL_METADATA_NOTE,
    REJECT_RULES,
};
use crate::peers::comgr::{ComgrError, ComgrMeta, ComgrView, Status};

/// Most differences recorded per aspect (a broken tree could list
/// thousands).
pub(super) const MAX_DIFFS: usize = 100;

/// One raw difference before labelling: path, comgr's side, the other.
type RawDiff = (String, String, String);

/// A value for a message: strings quoted, containers in short form.
pub(super) fn show(m: &ComgrMeta) -> String {
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
pub(super) fn diff(path: &str, c: &ComgrMeta, o: &ComgrMeta, out: &mut Vec<RawDiff>) {
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

pub(super) fn push_raw(
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

pub(super) fn compare_metadata(
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
pub(super) fn compare_lookups(view: &ComgrView, diffs: &mut Vec<Difference>) {
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
