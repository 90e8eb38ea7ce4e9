//! `replay --compare DIR DUMPS` (and the end of `replay --bundle`): each
//! case's dump against the oracle's prediction, as findings in the reports
//! `conform` writes (text, JSON, JUnit, HTML) with its exit codes.
//!
//! Comparisons are `replay.sgpr` (an SGPR probe's waves against
//! [`wave::compare`]), `replay.smem` (an SMEM probe's registers and data
//! region against the SMEM executor) and `replay.load` (the runtime's
//! loader refused a probe the oracle finds valid). The peer is the GPU:
//! `gpu:ISA` (`gpu:gfx90a`), the runtime and firmware versions in each
//! finding's message. A finding's key is the difference without values,
//! waves or registers (`value workgroup_id_x`), so one hardware behaviour
//! seen in many cases is one finding.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use hsaco_oracle::probe::smem::SmemDump;
use hsaco_oracle::probe::{Kind, Plan};
use hsaco_oracle::wave::{self, DifferenceKind};

use super::bundle::{self, Bundle};
use super::dumps::{read_runs, Record};
use super::plan::read_predictions;
use super::run::{Outcome, Signature as Hardware};
use crate::conform::engine::{Counts, RunResult};
use crate::conform::findings::{Finding, Repro, Signature};
use crate::conform::Input;

/// The comparison of SGPR probes.
pub const SGPR: &str = "replay.sgpr";
/// The comparison of SMEM probes.
pub const SMEM: &str = "replay.smem";
/// Loader refusals of probes the oracle finds valid.
pub const LOAD: &str = "replay.load";

/// One difference of one case, before findings are merged.
#[derive(Debug, Clone)]
pub struct Event {
    /// The comparison.
    pub comparison: &'static str,
    /// The case.
    pub case: String,
    /// The processor.
    pub target: String,
    /// The normalized key.
    pub key: String,
    /// For people.
    pub message: String,
}

/// The key of a wave difference: its kind and what the register holds,
/// without values, registers, lanes or waves.
pub fn sgpr_key(k: &DifferenceKind) -> String {
    match k {
        DifferenceKind::Value { name, .. } => format!("value {name}"),
        DifferenceKind::NotUniform { name, .. } => format!("not uniform {name}"),
        DifferenceKind::Swapped { names, .. } => format!("swapped {} {}", names[0], names[1]),
        DifferenceKind::MissingWave => "missing wave".into(),
        DifferenceKind::ExtraWave => "extra wave".into(),
        DifferenceKind::LegacyEntry => "legacy entry (no kernarg preload)".into(),
        DifferenceKind::Entry { .. } => "entry marker".into(),
        DifferenceKind::Lanes { .. } => "wave size".into(),
    }
}

/// The events of one case that ran (`Err`: the case could not be read,
/// a problem of the run rather than of the GPU).
pub fn case_events(
    b: &Bundle,
    dumps: &Path,
    plan: &Plan,
    rec: &Record,
) -> Result<Vec<Event>, String> {
    let addresses = rec
        .addresses
        .ok_or_else(|| format!("{}: ok but no addresses recorded", plan.case))?;
    let out = rec
        .output
        .as_deref()
        .ok_or_else(|| format!("{}: ok but no output file recorded", plan.case))?;
    let path = dumps.join(out);
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let event = |comparison, key: String, message: String| Event {
        comparison,
        case: plan.case.clone(),
        target: plan.target.clone(),
        key,
        message,
    };
    match plan.kind {
        Kind::Sgpr => {
            let pred = read_predictions(&b.dir, &plan.case)?;
            let dump = hsaco_oracle::probe::Dump::parse(&bytes, plan.lanes, plan.captured_sgprs)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(wave::compare(&pred, &dump, &addresses)
                .into_iter()
                .map(|d| event(SGPR, sgpr_key(&d.kind), format!("{}: {d}", plan.case)))
                .collect())
        }
        Kind::Smem => {
            let probe = hsaco_gen::probe::smem::smem_probe_by_name(&plan.case)
                .ok_or_else(|| format!("{}: names no SMEM probe this version makes", plan.case))?;
            let object = std::fs::read(b.object_path(plan))
                .map_err(|e| format!("{}: cannot read its object: {e}", plan.case))?;
            if object != probe.elf {
                return Err(format!(
                    "{}: the bundle's object is not the probe this version makes \
                     (plan the bundle again with this hsaco-conform)",
                    plan.case
                ));
            }
            let pred = probe.predict(addresses.output);
            if !pred.problems.is_empty() {
                return Err(format!(
                    "{}: the executor cannot predict it: {}",
                    plan.case,
                    pred.problems.join("; ")
                ));
            }
            let dump = SmemDump::parse(&bytes, &probe.plan.layout)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(pred
                .compare(&dump)
                .into_iter()
                .map(|d| {
                    let key = match d.field {
                        hsaco_oracle::probe::smem::Field::M0 => "m0".to_owned(),
                        hsaco_oracle::probe::smem::Field::Sgpr(_) => "sdata register".to_owned(),
                        hsaco_oracle::probe::smem::Field::Data(_) => "data region".to_owned(),
                    };
                    event(SMEM, key, format!("{}: {d}", plan.case))
                })
                .collect())
        }
    }
}

/// The comparison a plan belongs to.
fn comparison_of(plan: &Plan) -> &'static str {
    match plan.kind {
        Kind::Sgpr => SGPR,
        Kind::Smem => SMEM,
    }
}

/// The peer id of a record: the GPU's agent name (`gpu:gfx90a`; the
/// plan's target when the run never reached an agent).
fn peer_of(plan: &Plan, rec: &Record) -> String {
    let agent = rec
        .signature
        .as_ref()
        .map(|s| s.agent.clone())
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| plan.target.clone());
    format!("gpu:{agent}")
}

/// Compares every case of `bundle_dir` that `dumps` has a record of.
pub fn compare(bundle_dir: &Path, dumps: &Path) -> Result<RunResult, String> {
    let t0 = std::time::Instant::now();
    let b = bundle::read_bundle(bundle_dir).map_err(|e| e.to_string())?;
    let records = read_runs(dumps)?;
    let by_case: HashMap<&str, &Record> = records.iter().map(|r| (r.case.as_str(), r)).collect();
    let mut r = RunResult::default();
    let mut merged: BTreeMap<(String, String), Finding> = BTreeMap::new();
    for plan in &b.plans {
        let Some(rec) = by_case.get(plan.case.as_str()) else {
            continue;
        };
        r.units += 1;
        let peer = peer_of(plan, rec);
        let mut counts = Counts {
            compared: 1,
            ..Counts::default()
        };
        let mut events = Vec::new();
        match rec.status {
            Outcome::Ok => match case_events(&b, dumps, plan, rec) {
                Ok(ev) if ev.is_empty() => counts.same = 1,
                Ok(ev) => {
                    counts.different = 1;
                    events = ev;
                }
                Err(e) => {
                    counts.not_comparable = 1;
                    counts.reasons.insert(e.clone(), 1);
                    r.warnings.push(e);
                }
            },
            Outcome::LoaderRejected => {
                counts.different = 1;
                let text = rec.text.clone().unwrap_or_default();
                events.push(Event {
                    comparison: LOAD,
                    case: plan.case.clone(),
                    target: plan.target.clone(),
                    key: "the loader refuses a valid probe".into(),
                    message: format!("{}: {text}", plan.case),
                });
            }
            Outcome::NotComparable => {
                counts.not_comparable = 1;
                let why = rec.text.clone().unwrap_or_else(|| "not comparable".into());
                counts.reasons.insert(why, 1);
            }
            Outcome::Timeout => counts.timed_out = 1,
            Outcome::Crashed => counts.crashed = 1,
            Outcome::Error => {
                counts.not_comparable = 1;
                let why = rec.text.clone().unwrap_or_else(|| "error".into());
                counts.reasons.insert(why.clone(), 1);
                r.warnings.push(format!("{}: {why}", plan.case));
            }
        }
        // Time-outs and crashes are findings of the GPU too (a probe that
        // hangs or faults the GPU), keyed by how they ended.
        if matches!(rec.status, Outcome::Timeout | Outcome::Crashed) {
            events.push(Event {
                comparison: comparison_of(plan),
                case: plan.case.clone(),
                target: plan.target.clone(),
                key: rec.status.to_string(),
                message: format!(
                    "{}: {}",
                    plan.case,
                    rec.text.clone().unwrap_or_else(|| rec.status.to_string())
                ),
            });
        }
        let cell = r
            .cells
            .entry((comparison_of(plan).to_owned(), peer.clone()))
            .or_default();
        cell.merge(&counts);
        // One case showing the same key many times (a register wrong in
        // every wave) counts once.
        let mut seen = BTreeSet::new();
        for e in events {
            if !seen.insert((e.comparison, e.key.clone())) {
                continue;
            }
            merge(&mut merged, &b, plan, rec, &peer, e, &rec.status);
        }
    }
    r.findings = merged.into_values().collect();
    r.seconds = t0.elapsed().as_secs_f64();
    Ok(r)
}

/// The hardware signature in a finding's message: agent, product, ISA,
/// runtime and firmware.
fn hardware(s: &Hardware) -> String {
    format!(
        " [{} ({}), {}, runtime {}, HSA {}, firmware cp {} sdma {}]",
        s.agent,
        s.product,
        s.isa,
        s.runtime,
        s.hsa,
        s.firmware.cp.map_or("?".into(), |v| v.to_string()),
        s.firmware.sdma.map_or("?".into(), |v| v.to_string())
    )
}

/// The runtime's major version, when its version string starts with one.
fn runtime_major(s: &Hardware) -> Option<u32> {
    let digits: String = s
        .runtime
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Adds event `e` of case `plan` to the finding of its signature.
fn merge(
    merged: &mut BTreeMap<(String, String), Finding>,
    b: &Bundle,
    plan: &Plan,
    rec: &Record,
    peer: &str,
    e: Event,
    status: &Outcome,
) {
    let signature = Signature {
        kind: match status {
            Outcome::Timeout => "hang".into(),
            Outcome::Crashed => "crash".into(),
            _ => "different".into(),
        },
        scope: e.comparison.to_owned(),
        component: "gpu".into(),
        key: e.key.clone(),
    };
    let id = signature.id();
    let f = merged
        .entry((e.comparison.to_owned(), e.key.clone()))
        .or_insert_with(|| {
            let object = std::fs::read(b.object_path(plan)).unwrap_or_default();
            let hardware = rec.signature.as_ref().map(hardware).unwrap_or_default();
            let input = Input::File {
                name: format!("{}.hsaco", plan.case),
                bytes: object,
            };
            Finding {
                id,
                signature,
                comparison: e.comparison.to_owned(),
                message: format!("{}{hardware}", e.message),
                peers: BTreeSet::new(),
                versions: BTreeSet::new(),
                targets: BTreeSet::new(),
                count: 0,
                origin: e.case.clone(),
                original: vec![input.clone()],
                reduced: vec![input],
                reduction_tests: 0,
                crash: None,
                crashes: BTreeMap::new(),
                statuses: BTreeSet::new(),
                sites: BTreeSet::new(),
                also: Vec::new(),
                hang: None,
                commands: vec![Repro {
                    peer: peer.to_owned(),
                    target: plan.target.clone(),
                    argv: vec![
                        "hsaco-conform".into(),
                        "gen".into(),
                        "--case".into(),
                        plan.case.clone(),
                    ],
                    shell: format!("hsaco-conform gen --case {}", plan.case),
                    reproduces: None,
                }],
                dir: None,
                files: Vec::new(),
                informational: false,
            }
        });
    f.count += 1;
    f.peers.insert(peer.to_owned());
    f.targets.insert(e.target);
    if let Some(major) = rec.signature.as_ref().and_then(runtime_major) {
        f.versions.insert(major);
    }
    if matches!(status, Outcome::Timeout | Outcome::Crashed) {
        f.statuses.insert(status.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_leave_out_values_and_registers() {
        let k = DifferenceKind::Value {
            register: "s7".into(),
            name: "workgroup_id_x".into(),
            constraint: None,
            symbol: None,
            lanes: Vec::new(),
            source: "x".into(),
        };
        assert_eq!(sgpr_key(&k), "value workgroup_id_x");
        assert_eq!(sgpr_key(&DifferenceKind::MissingWave), "missing wave");
    }
}
