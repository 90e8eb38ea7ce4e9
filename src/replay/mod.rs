//! `hsaco-conform replay`: hardware replay (issue 16). Probe kernels made
//! by `gen` are dispatched through ROCm's HSA runtime on a GPU, and each
//! probe's output buffer (every wave's initial SGPRs, VGPRs and EXEC, see
//! `hsaco_oracle::probe`; or an SMEM stream's result) is compared with the
//! oracle's predictions.
//!
//! - [`hsa`]: hand-written bindings to `libhsa-runtime64.so.1`, loaded at
//!   run time (the only module with `unsafe` code).
//! - [`mod@run`]: one dispatch ([`run::Harness::run_plan`]) and its pure
//!   parts (the AQL packet, the address patch, matching agents).
//! - [`mod@plan`]: `replay --plan DIR`, a bundle of probes and predictions.
//! - [`bundle`]: the bundle folder a run reads (plans and objects).
//! - [`dumps`]: the dumps folder a run writes (`runs.jsonl`, `CASE.out`).
//! - [`mod@compare`]: dumps against predictions, as `conform` findings.
//! - [`reduce`]: an SGPR difference reduced to the fewest enables.
//! - [`worker`]: the worker process the runtime runs in.
//!
//! [`run`] dispatches on the mode: `--plan`, `--bundle` ([`run_bundle`],
//! then the comparison and the reduction), `--compare`, or none (plan for
//! this machine's GPUs, run, compare, reduce).

#[allow(unsafe_code)]
pub mod hsa;

pub mod bundle;
pub mod compare;
pub mod dumps;
pub mod plan;
pub mod reduce;
pub mod run;
pub mod worker;

use crate::out;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::args::{parse_secs, parse_shard};
use crate::conform::isolate::{self, Isolated, Reply as IsoReply, WorkerSpec};
use crate::files::write_durable;
use dumps::{output_name, read_runs, runs_text, Record, RUNS};
use run::Outcome;
use worker::{decode_output, Reply, Request};

/// How long a worker may go beyond a case's dispatch time limit (loading
/// the runtime and the code object, creating the queue) before it counts
/// as hung and is killed.
pub const WORKER_MARGIN: Duration = Duration::from_secs(60);

/// `replay --help`, after the options.
pub const HELP: &str = "\
Probes (gen): for each SGPR suite entry of a processor's family, a code object
whose kernel first copies every initial SGPR (v_writelane, nothing clobbered),
EXEC, the work-item VGPRs and on GFX12 the trap temporaries, then stores them
for every wave; `hsaco-conform gen --case probe.sgpr.gfx90a.17` writes one.
SMEM probes run a generated scalar-memory stream on registers and a data region
the harness sets up and store the result (probe.smem.CPU.SEED.INDEX).
Predictions: every wave's registers from the descriptor and the dispatch, by
the oracle (addresses the runtime picks are resolved from runs.jsonl; what the
runtime chooses, such as scratch addresses, is checked as a constraint).

Reduction (--bundle and replay alone, on the GPU that made the dumps): for
each SGPR difference, every enable set one enable smaller is planned and run
in one batch (DUMPS/reduce/FINDING/step-K/); the first that still shows the
same difference becomes the new start, until none does. The finding then
names the smallest case and counts the GPU runs it took (--no-reduce skips).

Modes:
  replay [--targets ..]          plan, run and compare on this machine's GPUs
  replay --plan DIR --targets .. write a bundle (no runtime needed)
  replay --bundle DIR            run a bundle here, then compare
  replay --compare DIR DUMPS     compare dumps gathered elsewhere

Findings: replay.sgpr (a register of a wave differs from the prediction),
replay.smem (a register or data dword after an SMEM stream differs),
replay.load (the runtime's loader refused a valid probe); a probe that hangs
or crashes the GPU is a finding too. Each names the case, the wave and the
hardware (agent, ISA, runtime and firmware versions); `gen --case CASE` makes
the probe again.

Bundle (DIR):
  bundle.json   {\"format\":\"hsaco-replay-bundle\",\"version\":1,\"cases\":N}
  plans.jsonl   one probe plan per line (case, object, target, kernel, lanes,
                shape {grid, workgroup}, captured_sgprs, private/group segment
                sizes, kernarg_hex, output_bytes, patch_offsets, kind, and for
                SMEM probes output_init_hex/offset: the data region)
  objects/      each plan's code object, at its `object` path inside DIR
  predictions/  CASE.json.zst: each SGPR probe's predicted waves (JSON, zstd);
                SMEM probes are predicted at compare time by the oracle's SMEM
                executor from the probe made again from its name

For each case, in a worker process (a GPU fault or hang ends the worker, not
the run): pick the GPU whose ISA matches the target, allocate the output
buffer in fine-grained system memory, write its address into the object's two
patch dwords, load the object with the runtime's loader, copy the kernel
arguments into the kernarg pool, write one AQL kernel dispatch packet (barrier,
system-scope fences, header stored last) to a new queue, ring the doorbell and
wait for the completion signal (--timeout).

Dumps (DUMPS, default DIR/dumps):
  runs.jsonl    one line per case: case, status, text, addresses (packet,
                queue, kernarg, output, packet_index), signature (agent,
                product, isa, runtime, hsa, firmware), output (CASE.out)
  CASE.out      the raw output buffer of each case that ran

Status: ok (CASE.out holds the buffer), loader_rejected (the runtime's loader
refused the object: a finding if the oracle accepts it), not_comparable (no
GPU for the target, or a code object version the runtime predates), timeout
(the dispatch or the worker ran out of time), crashed (the worker died: the
runtime aborts on a GPU memory fault), error (anything else, with its text).

Cases already in runs.jsonl are skipped, so an interrupted run goes on where
it stopped; delete runs.jsonl to run everything again.

Without a GPU, replay says so in one line on stderr and exits 2, e.g.
  no HSA runtime: cannot load libhsa-runtime64.so.1: ...
  no GPU agent: hsa_init returned HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008); is /dev/kfd present?

Exit status: 0 every selected case ran (whatever its status) and no new
finding, 1 new findings, 2 could not run (bad bundle, unwritable DUMPS, no
runtime or GPU).

Examples:
  hsaco-conform replay
  hsaco-conform replay --plan probes/ --targets gfx90a,gfx1100 --sample 1000
  hsaco-conform replay --bundle probes/ --out dumps-mi210 --targets gfx90a --json r.json
  hsaco-conform replay --bundle probes/ --shard 0/4 --timeout 5
  hsaco-conform replay --compare probes/ dumps-mi210 --junit replay.xml";

/// `replay`'s options.
#[derive(clap::Args, Debug, Clone)]
pub struct ReplayArgs {
    /// Write a bundle of probe kernels, dispatch plans and predictions for
    /// --targets to DIR (a new or empty folder) and stop. Needs no runtime
    /// or GPU: plan here, run it elsewhere with --bundle.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["bundle", "compare"])]
    pub plan: Option<PathBuf>,
    /// Run a bundle on this machine's GPUs (see below), write the dumps,
    /// and compare them with the bundle's predictions.
    #[arg(long, value_name = "DIR", conflicts_with = "compare")]
    pub bundle: Option<PathBuf>,
    /// Compare dumps gathered elsewhere (by `replay --bundle DIR --out
    /// DUMPS`) with the bundle's predictions; needs no runtime or GPU.
    #[arg(long, num_args = 2, value_names = ["DIR", "DUMPS"])]
    pub compare: Vec<PathBuf>,
    /// With --bundle: where to write runs.jsonl and each case's CASE.out
    /// (created; default DIR/dumps; cases already in its runs.jsonl are
    /// skipped). Without --plan, --bundle or --compare: the working
    /// folder for the bundle and the dumps (default replay-out).
    #[arg(long, value_name = "DUMPS")]
    pub out: Option<PathBuf>,
    /// Processors (comma-separated: gfx90a,gfx1100). --plan: the probes'
    /// processors (required). --bundle: run only plans for these. Without
    /// a mode: default, the GPUs' own.
    #[arg(long, value_delimiter = ',', value_name = "TARGET")]
    pub targets: Vec<String>,
    /// Shard I of N (0-based): the cases whose position is I modulo N (of
    /// the plans planned, or of plans.jsonl with --bundle).
    #[arg(long, value_parser = parse_shard, value_name = "I/N")]
    pub shard: Option<(u64, u64)>,
    /// SGPR suite entries per processor: N spread evenly over the suite
    /// (first and last included), or `all` (the whole suite: 6,144 to
    /// 116,736 entries per processor, hours of GPU time).
    #[arg(long, default_value = "256", value_parser = parse_sample, value_name = "N|all")]
    pub sample: Sample,
    /// SMEM stream probes per processor with SMEM (GFX8 on).
    #[arg(long, default_value = "16", value_name = "N")]
    pub smem: u64,
    /// Seed of the SMEM streams (the seed domain probe-smem.CPU).
    #[arg(long, default_value = "1", value_name = "SEED")]
    pub seed: u64,
    /// Time limit of one dispatch, in seconds (a case that takes longer is
    /// recorded as timeout).
    #[arg(long, default_value = "10", value_parser = parse_secs, value_name = "SECS")]
    pub timeout: Duration,
    /// The HSA runtime library to load instead of libhsa-runtime64.so.1
    /// from the system's library folders or /opt/rocm/lib.
    #[arg(long, value_name = "FILE")]
    pub hsa_runtime: Option<PathBuf>,
    /// Write the JSON report to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report to this file.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write one self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// No progress on standard error.
    #[arg(long)]
    pub quiet: bool,
    /// Do not reduce differences of SGPR probes to the fewest enables
    /// that still show them (reduction runs more probes on the GPU, so it
    /// happens only where the dumps were made: --bundle or replay alone).
    #[arg(long)]
    pub no_reduce: bool,
}

/// How many SGPR suite entries to probe per processor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sample {
    /// This many, spread over the suite.
    Some(usize),
    /// Every entry.
    All,
}

impl Sample {
    fn count(self) -> Option<usize> {
        match self {
            Sample::Some(n) => Some(n),
            Sample::All => None,
        }
    }
}

fn parse_sample(s: &str) -> Result<Sample, String> {
    if s == "all" {
        return Ok(Sample::All);
    }
    s.parse()
        .map(Sample::Some)
        .map_err(|_| format!("{s:?} is neither a count nor `all`"))
}

/// `hsaco-conform replay`: its exit status (0 no new finding, 1 new
/// findings, 2 could not run).
pub fn run(a: &ReplayArgs) -> u8 {
    let result = if let Some(dir) = &a.plan {
        plan_only(a, dir).map(|()| 0)
    } else if let [dir, dumps] = a.compare.as_slice() {
        report(a, dir, dumps)
    } else if let Some(dir) = &a.bundle {
        let dumps = a.out.clone().unwrap_or_else(|| dir.join("dumps"));
        run_bundle(a, dir, &dumps).and_then(|()| report_reduced(a, dir, &dumps))
    } else {
        direct(a)
    };
    match result {
        Ok(code) => code,
        Err(Stop::Unavailable(line)) => {
            eprintln!("{line}");
            2
        }
        Err(Stop::Error(e)) => {
            eprintln!("hsaco-conform replay: {e}");
            2
        }
    }
}

/// `replay --plan DIR`.
fn plan_only(a: &ReplayArgs, dir: &Path) -> Result<(), Stop> {
    if a.targets.is_empty() {
        return Err(Stop::Error(
            "--plan needs --targets: the processors of the GPUs that will run the bundle \
             (e.g. --targets gfx90a,gfx1100)"
                .into(),
        ));
    }
    let sel = plan::Selection {
        targets: plan::targets(&a.targets).map_err(Stop::Error)?,
        sample: a.sample.count(),
        smem: a.smem,
        seed: a.seed,
        shard: a.shard.unwrap_or((0, 1)),
    };
    let n = plan::write(dir, &sel, a.quiet).map_err(Stop::Error)?;
    eprintln!(
        "replay --plan: wrote {n} cases to {}; run them on a GPU with \
         `hsaco-conform replay --bundle {}`",
        dir.display(),
        dir.display()
    );
    Ok(())
}

/// Compares `dumps` with bundle `dir`, writes the reports `a` asks for,
/// prints the text report; the exit status.
fn report(a: &ReplayArgs, dir: &Path, dumps: &Path) -> Result<u8, Stop> {
    let r = compared(dir, dumps)?;
    emit(a, dir, dumps, &r)
}

/// As [`report`], reducing SGPR differences on this machine's GPU first
/// (unless --no-reduce).
fn report_reduced(a: &ReplayArgs, dir: &Path, dumps: &Path) -> Result<u8, Stop> {
    let mut r = compared(dir, dumps)?;
    if !a.no_reduce {
        reduce_findings(a, &mut r, &dumps.join("reduce"));
    }
    emit(a, dir, dumps, &r)
}

/// The comparison of `dumps` with bundle `dir`.
fn compared(dir: &Path, dumps: &Path) -> Result<crate::conform::engine::RunResult, Stop> {
    if !dumps.join(RUNS).is_file() {
        return Err(Stop::Error(format!(
            "{} has no {RUNS}: not a dumps folder of `replay --bundle`",
            dumps.display()
        )));
    }
    compare::compare(dir, dumps).map_err(Stop::Error)
}

/// Reduces each SGPR probe's difference to the fewest enables that still
/// show it, running the candidates on this machine's GPU under `work`.
/// A reduction that cannot run leaves its finding as it was, with a
/// warning.
fn reduce_findings(a: &ReplayArgs, r: &mut crate::conform::engine::RunResult, work: &Path) {
    use crate::conform::Input;
    // Each step's bundle is run whole.
    let step_args = ReplayArgs {
        shard: None,
        targets: Vec::new(),
        ..a.clone()
    };
    for f in r
        .findings
        .iter_mut()
        .filter(|f| f.comparison == compare::SGPR && f.signature.kind == "different")
    {
        let Some((t, index)) = reduce::parse_sgpr_case(&f.origin) else {
            continue;
        };
        let Some(entry) = hsaco_gen::probe::suite_entry_for(t, index) else {
            continue;
        };
        let key = f.signature.key.clone();
        let mut step = 0;
        let mut problem = None;
        let (end, tried) = reduce::reduce_enables(entry.enables, |cands| {
            step += 1;
            let dir = work.join(&f.id).join(format!("step-{step}"));
            let cases: Vec<(usize, plan::Case)> = cands
                .iter()
                .enumerate()
                .filter_map(|(i, e)| Some((i, reduce::case_of(t, e)?)))
                .collect();
            let list: Vec<plan::Case> = cases.iter().map(|(_, c)| *c).collect();
            let bundle_dir = dir.join("bundle");
            let dumps = dir.join("dumps");
            if !bundle_dir.join(bundle::HEADER).is_file() {
                if let Err(e) = reduce::write_step(&bundle_dir, &list) {
                    problem = Some(e);
                    return None;
                }
            }
            if let Err(e) = run_bundle(&step_args, &bundle_dir, &dumps) {
                problem = Some(match e {
                    Stop::Unavailable(m) | Stop::Error(m) => m,
                });
                return None;
            }
            let (Ok(b), Ok(runs)) = (bundle::read_bundle(&bundle_dir), read_runs(&dumps)) else {
                problem = Some(format!("cannot read {}", dir.display()));
                return None;
            };
            cases.iter().find_map(|&(i, c)| {
                let name = reduce::case_name(&c)?;
                let plan = b.plans.iter().find(|p| p.case == name)?;
                let rec = runs
                    .iter()
                    .find(|r| r.case == name && r.status == Outcome::Ok)?;
                let events = compare::case_events(&b, &dumps, plan, rec).ok()?;
                events.iter().any(|e| e.key == key).then_some(i)
            })
        });
        f.reduction_tests = tried;
        if let Some(p) = problem {
            r.warnings.push(format!("{}: reduction stopped: {p}", f.id));
        }
        if end == entry.enables {
            continue;
        }
        let Some(c) = reduce::case_of(t, &end) else {
            continue;
        };
        let (Some(name), plan::Case::Sgpr(_, i)) = (reduce::case_name(&c), c) else {
            continue;
        };
        let Some(p) = hsaco_gen::probe::suite_entry_for(t, i)
            .and_then(|e| hsaco_gen::probe::sgpr_probe(&e, &name))
        else {
            continue;
        };
        f.reduced = vec![Input::File {
            name: format!("{name}.hsaco"),
            bytes: p.elf,
        }];
        f.message = format!("{} (reduced to {name}: {end:?})", f.message);
        if let Some(cmd) = f.commands.first_mut() {
            cmd.argv = vec![
                "hsaco-conform".into(),
                "gen".into(),
                "--case".into(),
                name.clone(),
            ];
            cmd.shell = format!("hsaco-conform gen --case {name}");
        }
    }
}

/// Writes the reports `a` asks for and prints the text report; the exit
/// status.
fn emit(
    a: &ReplayArgs,
    dir: &Path,
    dumps: &Path,
    r: &crate::conform::engine::RunResult,
) -> Result<u8, Stop> {
    use crate::conform::allowlist::Allowlist;
    use crate::conform::report as rep;
    let allow = Allowlist::empty();
    let command = "replay";
    let write = |path: &Option<PathBuf>, text: String| -> Result<(), Stop> {
        if let Some(p) = path {
            crate::files::write_atomic(p, text.as_bytes())
                .map_err(|e| Stop::Error(format!("cannot write {}: {e}", p.display())))?;
        }
        Ok(())
    };
    let options = serde_json::json!({
        "bundle": dir.display().to_string(),
        "dumps": dumps.display().to_string(),
    });
    let json = rep::json(command, options, &[], &allow, r);
    write(
        &a.json,
        serde_json::to_string_pretty(&json).unwrap_or_default() + "\n",
    )?;
    write(&a.junit, rep::junit(command, r))?;
    write(&a.html, rep::html(command, r, &allow))?;
    out!("{}", rep::text(r, &allow));
    Ok(rep::exit_code(r))
}

/// `replay` without a mode: plan for this machine's GPUs (or --targets),
/// run, compare.
fn direct(a: &ReplayArgs) -> Result<u8, Stop> {
    let gpus = open(a)?.1 .0;
    let targets = if a.targets.is_empty() {
        let mut names: Vec<String> = gpus.iter().map(|g| g.name.clone()).collect();
        names.sort();
        names.dedup();
        names
    } else {
        a.targets.clone()
    };
    let out = a.out.clone().unwrap_or_else(|| PathBuf::from("replay-out"));
    let dir = out.join("bundle");
    let dumps = out.join("dumps");
    if !dir.join(bundle::HEADER).is_file() {
        let sel = plan::Selection {
            targets: plan::targets(&targets).map_err(Stop::Error)?,
            sample: a.sample.count(),
            smem: a.smem,
            seed: a.seed,
            shard: a.shard.unwrap_or((0, 1)),
        };
        plan::write(&dir, &sel, a.quiet).map_err(Stop::Error)?;
    } else if !a.quiet {
        eprintln!(
            "replay: using the bundle already in {} (delete it to plan again)",
            dir.display()
        );
    }
    let whole = ReplayArgs {
        shard: None,
        ..a.clone()
    };
    run_bundle(&whole, &dir, &dumps)?;
    report_reduced(a, &dir, &dumps)
}

/// Why a replay run stopped before its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// No case can run on this machine: the one line to print as it is
    /// (`no HSA runtime: ...`, `no GPU agent: ...`).
    Unavailable(String),
    /// Bad input or output: a one-line message.
    Error(String),
}

/// The plans of `bundle` this run selects (targets, shard) and has not
/// already recorded, with their positions.
fn select<'b>(
    plans: &'b [hsaco_oracle::probe::Plan],
    targets: &[String],
    shard: (u64, u64),
    done: &HashSet<String>,
) -> Vec<&'b hsaco_oracle::probe::Plan> {
    plans
        .iter()
        .enumerate()
        .filter(|(i, _)| *i as u64 % shard.1 == shard.0)
        .map(|(_, p)| p)
        .filter(|p| targets.is_empty() || targets.iter().any(|t| t == &p.target))
        .filter(|p| !done.contains(&p.case))
        .collect()
}

/// Starts the worker and opens the runtime in it: the worker and the
/// GPUs and runtime version it found, or why no case can run here.
fn open(a: &ReplayArgs) -> Result<(Isolated, (Vec<run::Gpu>, String)), Stop> {
    let program = std::env::current_exe()
        .map_err(|e| Stop::Error(format!("cannot find this program: {e}")))?;
    let mut iso = Isolated::new(WorkerSpec {
        program,
        task: worker::TASK.into(),
        arg: a
            .hsa_runtime
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        env: Vec::new(),
        timeout: a.timeout + WORKER_MARGIN,
        scratch: std::env::temp_dir(),
    });
    // Open the runtime once: without a GPU nothing else is tried.
    let probe = serde_json::to_string(&Request::Probe)
        .map_err(|e| Stop::Error(format!("cannot encode a request: {e}")))?;
    let mut first = None;
    iso.run("", &[probe], &mut |_, r| first = Some(r));
    let ready = match first {
        Some(IsoReply::Ok(text)) => match serde_json::from_str::<Reply>(&text) {
            Ok(Reply::Ready { gpus, runtime }) => (gpus, runtime),
            Ok(Reply::Unavailable { message }) => return Err(Stop::Unavailable(message)),
            Ok(other) => {
                return Err(Stop::Error(format!(
                    "the worker answered the probe with {other:?}"
                )))
            }
            Err(e) => return Err(Stop::Error(format!("the worker's answer: {e}"))),
        },
        Some(other) => {
            return Err(Stop::Error(format!(
                "the HSA runtime could not start: {}",
                worker_failure(&other)
            )))
        }
        None => return Err(Stop::Error("the worker gave no answer".into())),
    };
    Ok((iso, ready))
}

/// `replay --bundle DIR`: runs the bundle's selected cases and writes the
/// dumps folder `out`.
pub fn run_bundle(a: &ReplayArgs, dir: &Path, out: &Path) -> Result<(), Stop> {
    let bundle = bundle::read_bundle(dir).map_err(|e| Stop::Error(e.to_string()))?;
    let out = out.to_path_buf();
    let unwritable =
        |e: std::io::Error| Stop::Error(format!("cannot write to {}: {e}", out.display()));
    std::fs::create_dir_all(&out).map_err(unwritable)?;
    let mut records = read_runs(&out).map_err(Stop::Error)?;
    // Rewriting what is there proves the folder writable before any GPU
    // work.
    write_durable(&out.join(RUNS), runs_text(&records).as_bytes()).map_err(unwritable)?;
    let done: HashSet<String> = records.iter().map(|r| r.case.clone()).collect();
    let plans = select(&bundle.plans, &a.targets, a.shard.unwrap_or((0, 1)), &done);
    let already = bundle
        .plans
        .iter()
        .filter(|p| done.contains(&p.case))
        .count();
    if plans.is_empty() {
        eprintln!(
            "replay: nothing to run ({} cases in the bundle, {already} already in {})",
            bundle.plans.len(),
            out.join(RUNS).display()
        );
        return Ok(());
    }
    let (mut iso, ready) = open(a)?;
    let names: Vec<String> = ready
        .0
        .iter()
        .map(|g| format!("{} ({})", g.name, g.product))
        .collect();
    eprintln!(
        "replay: {} case{} ({already} already done) on {}, runtime {}",
        plans.len(),
        if plans.len() == 1 { "" } else { "s" },
        names.join(", "),
        ready.1
    );
    let payloads = plans
        .iter()
        .map(|p| {
            serde_json::to_string(&Request::Case {
                plan: Box::new((*p).clone()),
                object: bundle.object_path(p),
                timeout: a.timeout.as_secs_f64(),
            })
            .map_err(|e| Stop::Error(format!("cannot encode a request: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let t0 = Instant::now();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut failed: Option<Stop> = None;
    let total = plans.len();
    let mut n = 0usize;
    let mut last_write = Instant::now();
    iso.run("", &payloads, &mut |k, reply| {
        if failed.is_some() {
            return;
        }
        let Some(plan) = plans.get(k) else {
            return;
        };
        n += 1;
        let record = match record_of(&out, &plan.case, reply) {
            Ok(r) => r,
            Err(e) => {
                failed = Some(e);
                return;
            }
        };
        *counts.entry(record.status.to_string()).or_default() += 1;
        eprintln!(
            "replay: [{n}/{total}] {}: {}{}",
            plan.case,
            record.status,
            record
                .text
                .as_deref()
                .map(|t| format!(" ({t})"))
                .unwrap_or_default()
        );
        records.push(record);
        // Rewritten whole at most once per RUNS_EVERY (a bundle of
        // thousands of cases must not rewrite it thousands of times): an
        // interrupted run loses at most that much, and runs it again.
        if last_write.elapsed() >= RUNS_EVERY {
            last_write = Instant::now();
            if let Err(e) = write_runs(&out, &records) {
                failed = Some(e);
            }
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    write_runs(&out, &records)?;
    let summary: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
    eprintln!(
        "replay: {total} case{} in {:.1} s: {}; dumps in {}",
        if total == 1 { "" } else { "s" },
        t0.elapsed().as_secs_f64(),
        summary.join(", "),
        out.display()
    );
    Ok(())
}

/// How often `runs.jsonl` is rewritten while cases run (and once at the
/// end).
pub const RUNS_EVERY: Duration = Duration::from_secs(1);

/// Writes `runs.jsonl` through a temporary file, synced.
fn write_runs(out: &Path, records: &[Record]) -> Result<(), Stop> {
    let path = out.join(RUNS);
    write_durable(&path, runs_text(records).as_bytes())
        .map_err(|e| Stop::Error(format!("cannot write {}: {e}", path.display())))
}

/// How a worker failed on an item, in one line.
fn worker_failure(r: &IsoReply) -> String {
    match r {
        IsoReply::Ok(t) => format!("unexpected answer {t}"),
        IsoReply::NotComparable(t) => t.clone(),
        IsoReply::Crashed(c) => {
            let mut s = format!("the worker crashed ({})", c.status);
            if let Some(l) = c.stderr.last() {
                s.push_str(": ");
                s.push_str(l);
            }
            s
        }
        IsoReply::TimedOut(h) => format!(
            "the worker made no progress for {:.0} s and was killed",
            h.seconds
        ),
    }
}

/// The record of case `case` from the worker's reply, its output buffer
/// written to `out` first.
fn record_of(out: &Path, case: &str, reply: IsoReply) -> Result<Record, Stop> {
    let failed = |status: Outcome, text: String| Record {
        case: case.to_owned(),
        status,
        text: Some(text),
        addresses: None,
        signature: None,
        output: None,
    };
    let text = match reply {
        IsoReply::Ok(t) => t,
        IsoReply::Crashed(ref c) => {
            let mut r = failed(Outcome::Crashed, worker_failure(&reply));
            if !c.stderr.is_empty() {
                r.text = Some(format!(
                    "the worker crashed ({}): {}",
                    c.status,
                    c.stderr.join(" | ")
                ));
            }
            return Ok(r);
        }
        IsoReply::TimedOut(_) => return Ok(failed(Outcome::Timeout, worker_failure(&reply))),
        IsoReply::NotComparable(t) => return Ok(failed(Outcome::Error, t)),
    };
    match serde_json::from_str::<Reply>(&text) {
        Ok(Reply::Case { mut record, output }) => {
            if let Some(b64) = output {
                let bytes = match decode_output(&b64) {
                    Ok(b) => b,
                    Err(e) => return Ok(failed(Outcome::Error, e)),
                };
                let name = output_name(case);
                write_durable(&out.join(&name), &bytes).map_err(|e| {
                    Stop::Error(format!("cannot write {}: {e}", out.join(&name).display()))
                })?;
                record.output = Some(name);
            }
            Ok(*record)
        }
        Ok(Reply::Unavailable { message }) => Ok(failed(Outcome::Error, message)),
        Ok(Reply::Ready { .. }) => Ok(failed(Outcome::Error, "unexpected ready answer".into())),
        Err(e) => Ok(failed(Outcome::Error, format!("the worker's answer: {e}"))),
    }
}

/// The worker task for `worker --task replay --arg LIBRARY` (an empty
/// argument: find the library).
pub fn worker_task(arg: &str) -> Box<dyn isolate::Task> {
    Box::new(worker::ReplayTask::new(
        (!arg.is_empty()).then(|| PathBuf::from(arg)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsaco_oracle::probe::{Plan, Shape};

    fn plan(case: &str, target: &str) -> Plan {
        Plan {
            case: case.into(),
            object: format!("{case}.hsaco"),
            target: target.into(),
            kernel: "k".into(),
            lanes: 64,
            shape: Shape {
                grid: [1, 1, 1],
                workgroup: [1, 1, 1],
            },
            captured_sgprs: 0,
            private_segment_size: 0,
            group_segment_size: 0,
            kernarg_hex: String::new(),
            output_bytes: 64,
            patch_offsets: [0, 4],
            kind: Default::default(),
            output_init_hex: String::new(),
            output_init_offset: 0,
        }
    }

    #[test]
    fn selection_filters_targets_shards_and_done_cases() {
        let plans = vec![
            plan("a", "gfx90a"),
            plan("b", "gfx1100"),
            plan("c", "gfx90a"),
            plan("d", "gfx90a"),
        ];
        let names = |v: Vec<&Plan>| v.iter().map(|p| p.case.clone()).collect::<Vec<_>>();
        let none = HashSet::new();
        assert_eq!(
            names(select(&plans, &[], (0, 1), &none)),
            ["a", "b", "c", "d"]
        );
        assert_eq!(
            names(select(&plans, &["gfx90a".into()], (0, 1), &none)),
            ["a", "c", "d"]
        );
        assert_eq!(names(select(&plans, &[], (1, 2), &none)), ["b", "d"]);
        let done: HashSet<String> = ["a".to_owned()].into();
        assert_eq!(
            names(select(&plans, &["gfx90a".into()], (0, 2), &done)),
            ["c"]
        );
    }

    #[test]
    fn crashed_and_hung_workers_become_records() {
        let d = tempfile::tempdir().expect("tmp");
        let crash = isolate::Crash {
            status: "SIGABRT (6)".into(),
            signal: Some(6),
            exit_code: None,
            stderr: vec!["Memory access fault by GPU node-1".into()],
            site: None,
            tags: Vec::new(),
        };
        let r = record_of(d.path(), "x", IsoReply::Crashed(crash)).expect("record");
        assert_eq!(r.status, Outcome::Crashed);
        assert!(r.text.as_deref().is_some_and(|t| t.contains("GPU node-1")));
        let r = record_of(
            d.path(),
            "x",
            IsoReply::TimedOut(isolate::Hang {
                seconds: 70.0,
                stderr: vec![],
            }),
        )
        .expect("record");
        assert_eq!(r.status, Outcome::Timeout);
    }

    #[test]
    fn an_ok_reply_writes_the_output_buffer() {
        let d = tempfile::tempdir().expect("tmp");
        let reply = Reply::Case {
            record: Box::new(Record {
                case: "a/b".into(),
                status: Outcome::Ok,
                text: None,
                addresses: None,
                signature: None,
                output: None,
            }),
            output: Some("AAEC".into()),
        };
        let text = serde_json::to_string(&reply).expect("json");
        let r = record_of(d.path(), "a/b", IsoReply::Ok(text)).expect("record");
        assert_eq!(r.output.as_deref(), Some("a_b.out"));
        assert_eq!(
            std::fs::read(d.path().join("a_b.out")).expect("out"),
            [0, 1, 2]
        );
    }
}
