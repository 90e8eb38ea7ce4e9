//! `hsaco-conform replay`: hardware replay (issue 16). Probe kernels made
//! by `gen` are dispatched through ROCm's HSA runtime on a GPU, and each
//! probe's output buffer (every wave's initial SGPRs, VGPRs and EXEC, see
//! `hsaco_oracle::probe`) is kept for comparison with the oracle's
//! predictions.
//!
//! - [`hsa`]: hand-written bindings to `libhsa-runtime64.so.1`, loaded at
//!   run time (the only module with `unsafe` code).
//! - [`mod@run`]: one dispatch ([`run::Harness::run_plan`]) and its pure
//!   parts (the AQL packet, the address patch, matching agents).
//! - [`bundle`]: the bundle folder a run reads (plans and objects).
//! - [`dumps`]: the dumps folder a run writes (`runs.jsonl`, `CASE.out`).
//! - [`worker`]: the worker process the runtime runs in.
//!
//! `replay --bundle DIR` is [`run_bundle`]. Two forms are for later, on
//! top of functions that exist: `replay --plan DIR` (write a bundle from
//! gen's probes: [`bundle::write_bundle`]) and `replay --compare DIR
//! DUMPS` (compare dumps with the oracle's predictions:
//! [`bundle::read_bundle`], [`dumps::read_runs`], [`dumps::read_dump`]).

#[allow(unsafe_code)]
pub mod hsa;

pub mod bundle;
pub mod dumps;
pub mod run;
pub mod worker;

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
Bundle (DIR):
  bundle.json   {\"format\":\"hsaco-replay-bundle\",\"version\":1,\"cases\":N}
  plans.jsonl   one probe plan per line (case, object, target, kernel, lanes,
                shape {grid, workgroup}, captured_sgprs, private/group segment
                sizes, kernarg_hex, output_bytes, patch_offsets)
  OBJECT        each plan's code object, at its `object` path inside DIR

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

Exit status: 0 every selected case has a line in runs.jsonl (whatever its
status), 2 could not run (bad bundle, unwritable DUMPS, no runtime or GPU).

Examples:
  hsaco-conform replay --bundle probes/
  hsaco-conform replay --bundle probes/ --out dumps-mi210 --targets gfx90a
  hsaco-conform replay --bundle probes/ --shard 0/4 --timeout 5";

/// `replay`'s options.
#[derive(clap::Args, Debug, Clone)]
pub struct ReplayArgs {
    /// The bundle to run: a folder with bundle.json, plans.jsonl and the
    /// code objects (see below).
    #[arg(long, value_name = "DIR", required = true)]
    pub bundle: PathBuf,
    /// Where to write runs.jsonl and each case's CASE.out (created;
    /// default DIR/dumps). Cases already in its runs.jsonl are skipped.
    #[arg(long, value_name = "DUMPS")]
    pub out: Option<PathBuf>,
    /// Run only plans for these targets (comma-separated, as the plans
    /// name them: gfx90a,gfx1100).
    #[arg(long, value_delimiter = ',', value_name = "TARGET")]
    pub targets: Vec<String>,
    /// Run shard I of N (0-based): the plans whose position in plans.jsonl
    /// is I modulo N.
    #[arg(long, value_parser = parse_shard, value_name = "I/N")]
    pub shard: Option<(u64, u64)>,
    /// Time limit of one dispatch, in seconds (a case that takes longer is
    /// recorded as timeout).
    #[arg(long, default_value = "10", value_parser = parse_secs, value_name = "SECS")]
    pub timeout: Duration,
    /// The HSA runtime library to load instead of libhsa-runtime64.so.1
    /// from the system's library folders or /opt/rocm/lib.
    #[arg(long, value_name = "FILE")]
    pub hsa_runtime: Option<PathBuf>,
}

/// `hsaco-conform replay`: its exit status.
pub fn run(a: &ReplayArgs) -> u8 {
    match run_bundle(a) {
        Ok(()) => 0,
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

/// `replay --bundle DIR`: runs the bundle's selected cases and writes the
/// dumps folder.
pub fn run_bundle(a: &ReplayArgs) -> Result<(), Stop> {
    let bundle = bundle::read_bundle(&a.bundle).map_err(|e| Stop::Error(e.to_string()))?;
    let out = a.out.clone().unwrap_or_else(|| a.bundle.join("dumps"));
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
