//! `replay --plan DIR`: a self-contained bundle of probe kernels for the
//! processors asked for, with the oracle's predictions, that a GPU machine
//! runs with `replay --bundle DIR`.
//!
//! Besides what [`super::bundle`] reads (`bundle.json`, `plans.jsonl`, the
//! objects under `objects/`), the bundle holds `predictions/CASE.json.zst`
//! for each SGPR probe: every wave's [`wave::Predictions`], addresses
//! symbolic (resolved against each run's `runs.jsonl` addresses),
//! zstd-compressed JSON (a wave64 probe's predictions are about 1.8 MB of
//! JSON and 5 KB compressed). An SMEM probe's prediction depends on the
//! output buffer's address at every step of the stream, so `--compare`
//! runs the oracle's SMEM executor on it then, from the probe made again
//! from its name (and refuses a bundle object that differs from it).

use std::path::{Path, PathBuf};

use hsaco_gen::probe::{self, smem as smem_probe};
use hsaco_gen::sgpr;
use hsaco_gen::target::Family;
use hsaco_oracle::check::check_object;
use hsaco_oracle::probe::Plan;
use hsaco_oracle::smem::SmemGen;
use hsaco_oracle::targets::{by_name, Target};
use hsaco_oracle::wave::{self, Predictions};

use super::bundle;

/// The predictions folder inside a bundle.
pub const PREDICTIONS: &str = "predictions";
/// The objects folder inside a bundle.
pub const OBJECTS: &str = "objects";

/// What to put in a bundle.
#[derive(Debug, Clone)]
pub struct Selection {
    /// Processors (each a modelled HSA processor).
    pub targets: Vec<&'static Target>,
    /// SGPR suite entries per processor: all when `None`, else this many
    /// spread evenly over the suite (first and last included).
    pub sample: Option<usize>,
    /// SMEM probes per processor with SMEM (seeds `seed`, indices from 0).
    pub smem: u64,
    /// The SMEM probes' seed.
    pub seed: u64,
    /// Shard (I, N): the cases whose position is I modulo N.
    pub shard: (u64, u64),
}

/// The processors named in `names`, each checked: known, modelled, able
/// to run HSA code objects.
pub fn targets(names: &[String]) -> Result<Vec<&'static Target>, String> {
    names
        .iter()
        .map(|n| {
            let t = by_name(n)
                .ok_or_else(|| format!("--targets: {n} is not a processor the oracle models"))?;
            if !t.hsa || Family::of(t).is_none() {
                return Err(format!("--targets: {n} runs no HSA code objects"));
            }
            Ok(t)
        })
        .collect()
}

/// The SGPR suite indices of `t`'s family a selection takes.
pub fn suite_indices(t: &Target, sample: Option<usize>) -> Vec<usize> {
    let n = Family::of(t).map_or(0, sgpr::suite_len);
    match sample {
        None => (0..n).collect(),
        Some(0) => Vec::new(),
        Some(1) => vec![0],
        Some(k) if k >= n => (0..n).collect(),
        Some(k) => (0..k).map(|i| i * (n - 1) / (k - 1)).collect(),
    }
}

/// One case of a bundle to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    /// SGPR suite entry `index` of the processor's family.
    Sgpr(&'static Target, usize),
    /// SMEM probe `index` of the selection's seed.
    Smem(&'static Target, u64),
}

/// Path of the predictions of `case` in bundle `dir`.
pub fn predictions_path(dir: &Path, case: &str) -> PathBuf {
    dir.join(PREDICTIONS).join(format!("{case}.json.zst"))
}

/// Reads the predictions of `case` from bundle `dir`.
pub fn read_predictions(dir: &Path, case: &str) -> Result<Predictions, String> {
    let path = predictions_path(dir, case);
    let z = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    // A prediction file is at most tens of MB of JSON; the decoder's output
    // is bounded by reading through a limit.
    let mut json = Vec::new();
    let dec = zstd::stream::read::Decoder::new(&z[..])
        .map_err(|e| format!("{}: not zstd: {e}", path.display()))?;
    std::io::Read::read_to_end(
        &mut std::io::Read::take(dec, MAX_PREDICTION_JSON),
        &mut json,
    )
    .map_err(|e| format!("{}: not zstd: {e}", path.display()))?;
    serde_json::from_slice(&json).map_err(|e| format!("{}: not predictions: {e}", path.display()))
}

/// The most JSON one prediction file may decode to.
pub const MAX_PREDICTION_JSON: u64 = 256 << 20;

/// The predictions of an SGPR probe, from the bytes the GPU gets.
pub fn sgpr_predictions(elf: &[u8], plan: &Plan) -> Result<Predictions, String> {
    let report = check_object(elf);
    let kd = report
        .kernels
        .first()
        .and_then(|k| k.descriptor)
        .ok_or_else(|| format!("{}: the oracle reads no descriptor", plan.case))?;
    let t = by_name(&plan.target).ok_or_else(|| format!("{}: unknown target", plan.case))?;
    wave::predict(&kd, t, plan).map_err(|e| format!("{}: cannot predict: {e:?}", plan.case))
}

/// Writes the bundle of `sel` to `dir` (created; must be new or empty);
/// the number of cases written. Progress on standard error unless
/// `quiet`.
pub fn write(dir: &Path, sel: &Selection, quiet: bool) -> Result<usize, String> {
    if dir.exists()
        && std::fs::read_dir(dir)
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .next()
            .is_some()
    {
        return Err(format!(
            "{} is not empty: --plan writes a new bundle",
            dir.display()
        ));
    }
    let mut cases = Vec::new();
    for &t in &sel.targets {
        for i in suite_indices(t, sel.sample) {
            cases.push(Case::Sgpr(t, i));
        }
        if SmemGen::for_target(t).is_some() {
            for i in 0..sel.smem {
                cases.push(Case::Smem(t, i));
            }
        }
    }
    let (k, n) = sel.shard;
    let cases: Vec<Case> = cases
        .into_iter()
        .enumerate()
        .filter(|(i, _)| *i as u64 % n == k)
        .map(|(_, c)| c)
        .collect();
    write_cases(dir, &cases, sel.seed, quiet)
}

/// Writes a bundle of `cases` (SMEM probes of seed `seed`) to `dir`; the
/// number of cases written (an SMEM seed that draws no stream has none).
pub fn write_cases(dir: &Path, cases: &[Case], seed: u64, quiet: bool) -> Result<usize, String> {
    let mkdir = |p: PathBuf| {
        std::fs::create_dir_all(&p).map_err(|e| format!("cannot create {}: {e}", p.display()))
    };
    mkdir(dir.join(PREDICTIONS))?;
    let total = cases.len();
    let mut out: Vec<(Plan, Vec<u8>)> = Vec::with_capacity(total);
    let t0 = std::time::Instant::now();
    for (done, &case) in cases.iter().enumerate() {
        let (mut plan, elf) = match case {
            Case::Sgpr(t, i) => {
                let entry = probe::suite_entry_for(t, i)
                    .ok_or_else(|| format!("{}: no SGPR suite entry {i}", t.name))?;
                let name = probe::sgpr_probe_name(&entry, i);
                let p = probe::sgpr_probe(&entry, &name)
                    .ok_or_else(|| format!("{name}: no probe for {}", t.name))?;
                let pred = sgpr_predictions(&p.elf, &p.plan)?;
                let json = serde_json::to_vec(&pred).map_err(|e| e.to_string())?;
                let z = zstd::encode_all(&json[..], 3).map_err(|e| e.to_string())?;
                let path = predictions_path(dir, &p.plan.case);
                crate::files::write_atomic(&path, &z)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                (p.plan, p.elf)
            }
            Case::Smem(t, i) => {
                let Some(p) = smem_probe::seeded_smem_probe(t, seed, i) else {
                    // A seed that draws no stream on this processor has
                    // no case; the index is skipped, not an error.
                    continue;
                };
                (p.replay_plan(), p.elf)
            }
        };
        plan.object = format!("{OBJECTS}/{}.hsaco", plan.case);
        out.push((plan, elf));
        if !quiet && (done + 1) % 500 == 0 {
            eprintln!(
                "replay --plan: {}/{total} cases ({:.0} s)",
                done + 1,
                t0.elapsed().as_secs_f64()
            );
        }
    }
    bundle::write_bundle(dir, &out).map_err(|e| format!("cannot write {}: {e}", dir.display()))?;
    Ok(out.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_spread_over_the_suite() {
        let t = by_name("gfx900").unwrap();
        let n = sgpr::suite_len(Family::Gfx9);
        assert_eq!(suite_indices(t, None).len(), n);
        assert_eq!(suite_indices(t, Some(0)), Vec::<usize>::new());
        assert_eq!(suite_indices(t, Some(1)), vec![0]);
        let s = suite_indices(t, Some(5));
        assert_eq!(s.len(), 5);
        assert_eq!((s[0], s[4]), (0, n - 1));
        assert!(s.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn targets_must_be_modelled_hsa_processors() {
        assert!(targets(&["gfx90a".into(), "gfx1100".into()]).is_ok());
        let e = targets(&["gfx9000".into()]).unwrap_err();
        assert_eq!(e, "--targets: gfx9000 is not a processor the oracle models");
        let r600 = hsaco_oracle::targets::TARGETS
            .iter()
            .find(|t| !t.hsa)
            .expect("an r600 processor");
        assert!(targets(&[r600.name.to_owned()])
            .unwrap_err()
            .ends_with("runs no HSA code objects"));
    }
}
