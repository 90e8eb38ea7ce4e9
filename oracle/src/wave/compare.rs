//! The comparator: a hardware [`Dump`] against [`Predictions`].
//!
//! Records come in slot order, which is whichever wave got there first,
//! so the comparator pairs them with the predicted waves: first every
//! record that matches a predicted wave exactly, then the rest so that each
//! pair differs in as few register fields as possible (greedy on the
//! number of differences, ties broken by prediction order and slot, so the
//! result is deterministic). A predicted wave left over is missing, a
//! record left over is extra.
//!
//! Each difference is reported once: the lanes of one VGPR field of one
//! wave are one [`Difference`], two user SGPR runs holding each other's
//! values are one, and a register the ABI makes the same in every wave is
//! checked across the waves once. Lanes off in the captured EXEC are never
//! compared.

use super::{word, Expect, Expectation, Field, Predictions, Reg, Text, WavePrediction};
use crate::probe::{Addresses, Dump, WaveDump, ENTRY_FIRST, ENTRY_PRELOAD};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Above this many (prediction, record) pairs left after exact matching,
/// the comparator pairs the rest in order instead of by cost (a dump that
/// differs everywhere says so either way; the bound keeps the pairing
/// quadratic only in small cases).
const MAX_COST_PAIRS: usize = 250_000;

/// A predicted wave: its work-group and its index in the work-group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct WaveId {
    /// The work-group id.
    pub workgroup: [u32; 3],
    /// The wave's index within the work-group.
    pub wave: u32,
}

impl fmt::Display for WaveId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.workgroup;
        write!(f, "work-group ({x},{y},{z}) wave {}", self.wave)
    }
}

/// One lane's (or a scalar register's) expected and found value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneValue {
    /// The lane (VGPRs only).
    pub lane: Option<u8>,
    /// The expected value (`None` when the prediction is a constraint).
    pub expected: Option<u32>,
    /// The value found (`None` when the dump does not hold the register).
    pub found: Option<u32>,
}

/// What differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum DifferenceKind {
    /// A register field holds another value than predicted, or one that
    /// breaks its constraint; for a VGPR field, every lane that differs.
    Value {
        /// `s7`, `v0[19:10]`, `ttmp9`, `exec_lo`.
        register: String,
        /// What it holds (`workgroup_id_x`, `workitem_id_y`).
        name: Text,
        /// The constraint's text when the prediction is a constraint.
        constraint: Option<Text>,
        /// The symbolic prediction (`lo(packet)`) when it is not a
        /// constant.
        symbol: Option<String>,
        /// The differing lanes (one entry without a lane for a scalar
        /// register).
        lanes: Vec<LaneValue>,
        /// The prediction's source.
        source: Text,
    },
    /// A register the ABI makes the same in every wave holds another
    /// value here than in most waves.
    NotUniform {
        /// The register.
        register: String,
        /// What it holds.
        name: Text,
        /// The value most waves hold.
        usual: u32,
        /// How many waves hold it.
        waves_with_usual: u32,
        /// The value here.
        found: u32,
        /// The prediction's source.
        source: Text,
    },
    /// Two SGPR runs hold each other's values.
    Swapped {
        /// The registers of each run (`["s4", "s5"]`).
        registers: [Vec<String>; 2],
        /// What each run should hold.
        names: [Text; 2],
        /// The first run's source.
        source: Text,
    },
    /// A predicted wave has no record.
    MissingWave,
    /// A record matches no predicted wave.
    ExtraWave,
    /// The wave entered at the kernel's first byte on a preload target:
    /// the firmware did not preload kernel arguments, so the preloaded
    /// SGPRs are not compared.
    LegacyEntry,
    /// The record's entry marker is not the predicted one.
    Entry {
        /// The predicted marker.
        expected: u32,
        /// The record's.
        found: u32,
    },
    /// The dump's waves have another size than predicted.
    Lanes {
        /// Predicted lanes per wave.
        expected: u32,
        /// The dump's.
        found: u32,
    },
}

/// One finding of [`compare`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    /// The predicted wave (`None` for an extra record or the whole dump).
    pub wave: Option<WaveId>,
    /// The record's slot (`None` for a missing wave or the whole dump).
    pub slot: Option<u32>,
    /// What differs.
    pub kind: DifferenceKind,
}

fn hex(v: u32, whole: bool) -> String {
    if whole {
        format!("{v:#010x}")
    } else {
        format!("{v:#x}")
    }
}

fn found_text(v: Option<u32>, whole: bool) -> String {
    match v {
        Some(v) => hex(v, whole),
        None => "nothing (not captured)".to_string(),
    }
}

impl fmt::Display for Difference {
    /// One line: the wave, the register with what it holds, expected and
    /// found, and the source in brackets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.wave, self.slot) {
            (Some(w), Some(s)) => write!(f, "{w} (record {s}): ")?,
            (Some(w), None) => write!(f, "{w}: ")?,
            (None, Some(s)) => write!(f, "record {s}: ")?,
            (None, None) => f.write_str("dump: ")?,
        }
        match &self.kind {
            DifferenceKind::Value {
                register,
                name,
                constraint,
                symbol,
                lanes,
                source,
            } => {
                let whole = !register.contains('[');
                let want = |l: &LaneValue| match (l.expected, constraint) {
                    (Some(v), _) => match symbol {
                        Some(sym) => format!("expected {} = {sym}", hex(v, whole)),
                        None => format!("expected {}", hex(v, whole)),
                    },
                    (None, Some(c)) => format!("expected {c}"),
                    (None, None) => "expected a value".to_string(),
                };
                match lanes.as_slice() {
                    [one] => {
                        let at = one.lane.map(|l| format!(" lane {l}")).unwrap_or_default();
                        write!(
                            f,
                            "{register}{at} {name}: {}, found {}",
                            want(one),
                            found_text(one.found, whole)
                        )?;
                    }
                    many => {
                        write!(f, "{register} {name}: {} lanes differ (", many.len())?;
                        for (i, l) in many.iter().take(3).enumerate() {
                            if i > 0 {
                                f.write_str("; ")?;
                            }
                            write!(
                                f,
                                "lane {}: {}, found {}",
                                l.lane.map(u32::from).unwrap_or(0),
                                want(l),
                                found_text(l.found, whole)
                            )?;
                        }
                        if many.len() > 3 {
                            write!(f, "; {} more", many.len() - 3)?;
                        }
                        f.write_str(")")?;
                    }
                }
                write!(f, " [{source}]")
            }
            DifferenceKind::NotUniform {
                register,
                name,
                usual,
                waves_with_usual,
                found,
                source,
            } => write!(
                f,
                "{register} {name}: {} here but {} in {waves_with_usual} other waves; it is the same in every wave [{source}]",
                hex(*found, true),
                hex(*usual, true)
            ),
            DifferenceKind::Swapped {
                registers,
                names,
                source,
            } => write!(
                f,
                "{} ({}) and {} ({}) hold each other's values [{source}]",
                registers[0].join(","),
                names[0],
                registers[1].join(","),
                names[1]
            ),
            DifferenceKind::MissingWave => f.write_str("no record: the wave is missing"),
            DifferenceKind::ExtraWave => {
                f.write_str("no predicted wave matches this record: an extra wave")
            }
            DifferenceKind::LegacyEntry => f.write_str(
                "entered at the kernel's first byte, not 256 bytes in: the firmware did not preload kernel arguments (preloaded SGPRs not compared)",
            ),
            DifferenceKind::Entry { expected, found } => write!(
                f,
                "entry marker {}, expected {}",
                hex(*found, true),
                hex(*expected, true)
            ),
            DifferenceKind::Lanes { expected, found } => write!(
                f,
                "the dump has {found}-lane waves, the predictions {expected}-lane waves"
            ),
        }
    }
}

/// A resolved prediction.
enum Want<'a> {
    Value(u32),
    Check(&'a super::Constraint),
}

/// A predicted wave with its values resolved.
struct Prepared<'a> {
    pred: &'a WavePrediction,
    want: Vec<Want<'a>>,
}

fn prepare<'a>(pred: &'a WavePrediction, a: &Addresses) -> Prepared<'a> {
    let want = pred
        .expect
        .iter()
        .map(|e| match &e.expect {
            Expect::Exact(v) => Want::Value(v.resolve(a) & e.field.mask()),
            Expect::Check(c) => Want::Check(c),
        })
        .collect();
    Prepared { pred, want }
}

/// The differing fields of one register's bits (lanes together): the
/// key without a lane, and (expectation index, found value) per lane.
type Group = (Field, Vec<(usize, Option<u32>)>);

/// Swapped SGPRs of one pair of runs, merged.
struct Run {
    names: (Text, Text),
    groups: Vec<usize>,
    a: Vec<String>,
    b: Vec<String>,
    source: Text,
}

/// One raw difference of a pair.
#[derive(Clone, Copy)]
enum Raw {
    /// Expectation `idx` does not hold; `found` is the field's value.
    Field { idx: usize, found: Option<u32> },
    /// An entry marker other than predicted.
    Entry(u32),
    /// The legacy entry on a preload target.
    Legacy,
}

fn legacy(p: &Prepared<'_>, rec: &WaveDump) -> bool {
    p.pred.entry == ENTRY_PRELOAD && rec.entry == ENTRY_FIRST
}

/// True if `e` is compared in `rec`: lanes off in the captured EXEC are
/// not, and neither are preloaded SGPRs of a wave the firmware did not
/// preload.
fn compared(e: &Expectation, rec: &WaveDump, legacy: bool) -> bool {
    if e.preloaded && legacy {
        return false;
    }
    match e.field.lane {
        Some(l) => l < 64 && (rec.exec >> l) & 1 == 1,
        None => true,
    }
}

/// The field's value in `rec`.
fn read(rec: &WaveDump, f: &Field) -> Option<u32> {
    word(rec, f).map(|w| f.get(w))
}

/// Calls `visit` with each raw difference of `p` and `rec` until it
/// returns false.
fn walk(p: &Prepared<'_>, rec: &WaveDump, mut visit: impl FnMut(Raw) -> bool) {
    let legacy = legacy(p, rec);
    if legacy {
        if !visit(Raw::Legacy) {
            return;
        }
    } else if rec.entry != p.pred.entry && !visit(Raw::Entry(rec.entry)) {
        return;
    }
    for (idx, (e, want)) in p.pred.expect.iter().zip(&p.want).enumerate() {
        if !compared(e, rec, legacy) {
            continue;
        }
        let found = read(rec, &e.field);
        let ok = match (want, found) {
            (_, None) => false,
            (Want::Value(v), Some(f)) => *v == f,
            (Want::Check(c), Some(f)) => c.holds(f),
        };
        if !ok && !visit(Raw::Field { idx, found }) {
            return;
        }
    }
}

fn exact_match(p: &Prepared<'_>, rec: &WaveDump) -> bool {
    let mut same = true;
    walk(p, rec, |_| {
        same = false;
        false
    });
    same
}

fn cost(p: &Prepared<'_>, rec: &WaveDump) -> usize {
    let mut n = 0;
    walk(p, rec, |_| {
        n += 1;
        true
    });
    n
}

/// Pairs predictions with records: `pair[p] = Some(r)`.
fn pair(preds: &[Prepared<'_>], recs: &[WaveDump]) -> Vec<Option<usize>> {
    let mut by_pred: Vec<Option<usize>> = vec![None; preds.len()];
    let mut taken = vec![false; recs.len()];
    // Exact matches first: a record that matches a prediction exactly is
    // that wave.
    for (r, rec) in recs.iter().enumerate() {
        if let Some(p) =
            (0..preds.len()).find(|&p| by_pred[p].is_none() && exact_match(&preds[p], rec))
        {
            by_pred[p] = Some(r);
            taken[r] = true;
        }
    }
    let open_p: Vec<usize> = (0..preds.len()).filter(|&p| by_pred[p].is_none()).collect();
    let open_r: Vec<usize> = (0..recs.len()).filter(|&r| !taken[r]).collect();
    if open_p.is_empty() || open_r.is_empty() {
        return by_pred;
    }
    if open_p.len().saturating_mul(open_r.len()) > MAX_COST_PAIRS {
        pair_by_identity(preds, recs, &open_p, &open_r, &mut by_pred, &mut taken);
        let open_r = (0..recs.len()).filter(|&r| !taken[r]);
        let open_p = (0..preds.len()).filter(|&p| by_pred[p].is_none());
        for (p, r) in open_p.collect::<Vec<_>>().into_iter().zip(open_r) {
            by_pred[p] = Some(r);
        }
        return by_pred;
    }
    let mut pairs: Vec<(usize, usize, usize)> = Vec::with_capacity(open_p.len() * open_r.len());
    for &p in &open_p {
        for &r in &open_r {
            pairs.push((cost(&preds[p], &recs[r]), p, r));
        }
    }
    pairs.sort_unstable();
    for (_, p, r) in pairs {
        if by_pred[p].is_none() && !taken[r] {
            by_pred[p] = Some(r);
            taken[r] = true;
        }
    }
    by_pred
}

/// Names of the predictions that tell waves apart.
const IDENTITY: [&str; 6] = [
    "workgroup_id_x",
    "workgroup_id_y",
    "workgroup_id_z",
    "workitem_id_x",
    "workitem_id_y",
    "workitem_id_z",
];

/// Pairs, in order, records and predictions that agree on the wave's
/// identity: the exact work-group ids and the work-item ids of lane 0 (a
/// wave always has lane 0). Used when there are too many open pairs to
/// rank by cost, typically a register that differs in every wave.
fn pair_by_identity(
    preds: &[Prepared<'_>],
    recs: &[WaveDump],
    open_p: &[usize],
    open_r: &[usize],
    by_pred: &mut [Option<usize>],
    taken: &mut [bool],
) {
    let key_fields = |p: &Prepared<'_>| -> Vec<(Field, u32)> {
        p.pred
            .expect
            .iter()
            .zip(&p.want)
            .filter(|(e, _)| IDENTITY.contains(&e.name.as_ref()) && e.field.lane.unwrap_or(0) == 0)
            .filter_map(|(e, w)| match w {
                Want::Value(v) => Some((e.field, *v)),
                Want::Check(_) => None,
            })
            .collect()
    };
    let mut buckets: BTreeMap<Vec<(Field, u32)>, Vec<usize>> = BTreeMap::new();
    for &p in open_p {
        buckets.entry(key_fields(&preds[p])).or_default().push(p);
    }
    for &r in open_r {
        // A record's key on the fields each bucket reads.
        let hit = buckets.iter_mut().find(|(key, ps)| {
            !ps.is_empty() && key.iter().all(|(f, v)| read(&recs[r], f) == Some(*v))
        });
        if let Some((_, ps)) = hit {
            let p = ps.remove(0);
            by_pred[p] = Some(r);
            taken[r] = true;
        }
    }
}

/// Compares a hardware dump with the predictions, the symbolic values
/// resolved against `addresses`. The result is empty when every wave is
/// there and every prediction holds.
pub fn compare(predictions: &Predictions, dump: &Dump, addresses: &Addresses) -> Vec<Difference> {
    let mut out = Vec::new();
    if dump.lanes != predictions.lanes {
        out.push(Difference {
            wave: None,
            slot: None,
            kind: DifferenceKind::Lanes {
                expected: predictions.lanes,
                found: dump.lanes,
            },
        });
    }
    let preds: Vec<Prepared<'_>> = predictions
        .waves
        .iter()
        .map(|w| prepare(w, addresses))
        .collect();
    let recs = &dump.waves;
    let by_pred = pair(&preds, recs);
    let mut uniform = not_uniform(&preds, recs, &by_pred);

    for (p, prep) in preds.iter().enumerate() {
        let wave = Some(prep.pred.id());
        let Some(r) = by_pred[p] else {
            out.push(Difference {
                wave,
                slot: None,
                kind: DifferenceKind::MissingWave,
            });
            continue;
        };
        let rec = &recs[r];
        let slot = Some(rec.slot);
        for kind in wave_differences(prep, rec)
            .into_iter()
            .chain(uniform.remove(&p).unwrap_or_default())
        {
            out.push(Difference { wave, slot, kind });
        }
    }
    let mut paired = vec![false; recs.len()];
    for r in by_pred.iter().flatten() {
        paired[*r] = true;
    }
    let mut extra: Vec<&WaveDump> = recs
        .iter()
        .zip(&paired)
        .filter(|(_, &p)| !p)
        .map(|(r, _)| r)
        .collect();
    extra.sort_by_key(|r| r.slot);
    for rec in extra {
        out.push(Difference {
            wave: None,
            slot: Some(rec.slot),
            kind: DifferenceKind::ExtraWave,
        });
    }
    out
}

/// The differences of one pair, lanes of a field together and swapped
/// SGPR runs as one.
fn wave_differences(p: &Prepared<'_>, rec: &WaveDump) -> Vec<DifferenceKind> {
    let mut raws = Vec::new();
    walk(p, rec, |r| {
        raws.push(r);
        true
    });
    let mut out = Vec::new();
    // Field differences grouped by register bits (lanes together), in the
    // order of the predictions.
    let mut groups: Vec<Group> = Vec::new();
    for r in raws {
        match r {
            Raw::Legacy => out.push(DifferenceKind::LegacyEntry),
            Raw::Entry(found) => out.push(DifferenceKind::Entry {
                expected: p.pred.entry,
                found,
            }),
            Raw::Field { idx, found } => {
                let key = Field {
                    lane: None,
                    ..p.pred.expect[idx].field
                };
                match groups.iter_mut().find(|g| g.0 == key) {
                    Some(g) => g.1.push((idx, found)),
                    None => groups.push((key, vec![(idx, found)])),
                }
            }
        }
    }
    let swapped = swaps(p, &groups);
    let mut reported_swap = vec![false; swapped.len()];
    for (g, (key, members)) in groups.iter().enumerate() {
        if let Some(s) = swapped.iter().position(|s| s.0.contains(&g)) {
            if !reported_swap[s] {
                reported_swap[s] = true;
                out.push(swapped[s].1.clone());
            }
            continue;
        }
        let first = &p.pred.expect[members[0].0];
        let (constraint, symbol) = match &first.expect {
            Expect::Check(c) => (Some(c.text.clone()), None),
            Expect::Exact(super::Value::Const(_)) => (None, None),
            Expect::Exact(v) => (None, Some(v.to_string())),
        };
        let lanes = members
            .iter()
            .map(|&(idx, found)| LaneValue {
                lane: p.pred.expect[idx].field.lane,
                expected: match p.want[idx] {
                    Want::Value(v) => Some(v),
                    Want::Check(_) => None,
                },
                found,
            })
            .collect();
        out.push(DifferenceKind::Value {
            register: key.register(),
            name: first.name.clone(),
            constraint,
            symbol,
            lanes,
            source: first.source.clone(),
        });
    }
    out
}

/// Groups of whole scalar SGPRs that hold each other's exact values,
/// merged per pair of runs: (the group indices, the finding).
fn swaps(p: &Prepared<'_>, groups: &[Group]) -> Vec<(Vec<usize>, DifferenceKind)> {
    // Candidates: a whole SGPR with an exact prediction and a value.
    let cand: Vec<(usize, usize, u32, u32)> = groups
        .iter()
        .enumerate()
        .filter_map(|(g, (key, m))| {
            let [(idx, Some(found))] = m.as_slice() else {
                return None;
            };
            if !matches!(key.reg, Reg::Sgpr(_)) || key.width < 32 {
                return None;
            }
            match p.want[*idx] {
                Want::Value(v) => Some((g, *idx, v, *found)),
                Want::Check(_) => None,
            }
        })
        .collect();
    let mut used = vec![false; cand.len()];
    let mut runs: Vec<Run> = Vec::new();
    for i in 0..cand.len() {
        if used[i] {
            continue;
        }
        let (gi, ii, ei, fi) = cand[i];
        let Some(j) = (i + 1..cand.len()).find(|&j| {
            let (_, _, ej, fj) = cand[j];
            !used[j] && ei != ej && fi == ej && fj == ei
        }) else {
            continue;
        };
        used[i] = true;
        used[j] = true;
        let (gj, ij, _, _) = cand[j];
        let (a, b) = (&p.pred.expect[ii], &p.pred.expect[ij]);
        let names = (a.name.clone(), b.name.clone());
        let ra = groups[gi].0.register();
        let rb = groups[gj].0.register();
        match runs.iter_mut().find(|r| r.names == names) {
            Some(r) => {
                r.groups.extend([gi, gj]);
                r.a.push(ra);
                r.b.push(rb);
            }
            None => runs.push(Run {
                names,
                groups: vec![gi, gj],
                a: vec![ra],
                b: vec![rb],
                source: a.source.clone(),
            }),
        }
    }
    runs.into_iter()
        .map(|r| {
            (
                r.groups,
                DifferenceKind::Swapped {
                    registers: [r.a, r.b],
                    names: [r.names.0, r.names.1],
                    source: r.source,
                },
            )
        })
        .collect()
}

/// Registers the ABI makes the same in every wave that are not: per
/// prediction index, the findings.
fn not_uniform(
    preds: &[Prepared<'_>],
    recs: &[WaveDump],
    by_pred: &[Option<usize>],
) -> BTreeMap<usize, Vec<DifferenceKind>> {
    // Field -> (prediction, value, expectation index), for fields whose
    // value holds its constraint (one that does not is reported already).
    let mut seen: BTreeMap<Field, Vec<(usize, u32, usize)>> = BTreeMap::new();
    for (p, prep) in preds.iter().enumerate() {
        let Some(r) = by_pred[p] else { continue };
        let rec = &recs[r];
        let legacy = legacy(prep, rec);
        for (idx, (e, want)) in prep.pred.expect.iter().zip(&prep.want).enumerate() {
            let Want::Check(c) = want else { continue };
            if !c.uniform || !compared(e, rec, legacy) {
                continue;
            }
            if let Some(v) = read(rec, &e.field).filter(|&v| c.holds(v)) {
                seen.entry(e.field).or_default().push((p, v, idx));
            }
        }
    }
    let mut out: BTreeMap<usize, Vec<DifferenceKind>> = BTreeMap::new();
    for (field, vals) in seen {
        let mut counts: BTreeMap<u32, u32> = BTreeMap::new();
        for &(_, v, _) in &vals {
            *counts.entry(v).or_default() += 1;
        }
        if counts.len() < 2 {
            continue;
        }
        // The most common value; the smallest on a tie.
        let (&usual, &n) = counts
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .unwrap_or((&0, &0));
        for (p, v, idx) in vals {
            if v != usual {
                let e = &preds[p].pred.expect[idx];
                out.entry(p).or_default().push(DifferenceKind::NotUniform {
                    register: field.register(),
                    name: e.name.clone(),
                    usual,
                    waves_with_usual: n,
                    found: v,
                    source: e.source.clone(),
                });
            }
        }
    }
    out
}
