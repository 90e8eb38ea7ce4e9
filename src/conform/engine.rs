//! Runs a plan: units of work (comparison × processor × chunk of inputs)
//! on a few threads, each unit through every peer that takes part in its
//! comparison; tallies the peer × comparison matrix; keeps what the
//! allowlist does not know as events; and at the end reduces and
//! deduplicates the events into findings, with reproducers.
//!
//! Units are numbered in a fixed order (comparison, processor, chunk), so
//! `--shard I/N` (the units whose number is I modulo N) splits a run
//! across CI jobs, and with an output folder the results of finished units
//! are saved (`state.json`, atomically) so that the same command run again
//! after an interruption resumes where it stopped.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use hsaco_oracle::targets::{self, Target};
use serde::{Deserialize, Serialize};

use super::allowlist::{self, Allowlist};
use super::findings::{self, Finding, Repro, Signature, Store};
use super::isolate::{self, Crash, Hang};
use super::reduce::{self, Budget};
use super::{Comparison, ComparisonId, Ctx, Difference, Input, Peer, PeerResult, Verdict, View};

/// What to run.
pub struct Plan {
    /// The comparisons, in order.
    pub comparisons: Vec<Box<dyn Comparison>>,
    /// The processors.
    pub targets: Vec<&'static Target>,
    /// The peers, in order of preference (the first peer to show a problem
    /// reduces it, so fast in-process peers come first).
    pub peers: Vec<Box<dyn Peer>>,
    /// Known differences.
    pub allowlist: Allowlist,
}

/// How to run it.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Threads running units.
    pub jobs: usize,
    /// (index, count) of this shard.
    pub shard: (u64, u64),
    /// Per-input time limit of a peer.
    pub timeout: Duration,
    /// Output folder for findings (and resume state).
    pub out: Option<PathBuf>,
    /// Reduce findings.
    pub reduce: bool,
    /// Peer calls allowed for reducing one finding.
    pub reduce_budget: usize,
    /// Print progress to standard error.
    pub progress: bool,
    /// Identifies the command and options, for resuming.
    pub resume_key: String,
    /// The `hsaco-conform` executable (workers, self-reproducers).
    pub program: PathBuf,
    /// Name of the command in progress lines (`conform`).
    pub label: String,
}

/// Counts of one cell of the matrix (a peer in a comparison).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Inputs given to the peer (every other count is a part of this).
    pub compared: u64,
    /// The peer agreed.
    pub same: u64,
    /// The peer differed as an allowlist entry describes.
    pub known: u64,
    /// The peer differed, and no entry explains it.
    pub different: u64,
    /// Informational differences no entry explains (a peer that accepts
    /// an invalid object, `mutants`): not a problem of the run.
    #[serde(default)]
    pub informational: u64,
    /// Not comparable (see `reasons`).
    pub not_comparable: u64,
    /// The peer crashed (known crashes included).
    pub crashed: u64,
    /// The peer hung and was killed.
    pub timed_out: u64,
    /// Time spent in the peer and the comparison, in nanoseconds.
    pub nanos: u64,
    /// Why inputs were not comparable, with counts: every reason (as many
    /// as the inputs at most; the text report abbreviates them, the JSON
    /// report and the HTML page do not).
    pub reasons: BTreeMap<String, u64>,
}

impl Counts {
    /// Adds another cell's counts.
    pub fn merge(&mut self, o: &Counts) {
        self.compared += o.compared;
        self.same += o.same;
        self.known += o.known;
        self.different += o.different;
        self.informational += o.informational;
        self.not_comparable += o.not_comparable;
        self.crashed += o.crashed;
        self.timed_out += o.timed_out;
        self.nanos += o.nanos;
        for (r, n) in &o.reasons {
            self.add_reason(r, *n);
        }
    }

    fn add_reason(&mut self, r: &str, n: u64) {
        if let Some(c) = self.reasons.get_mut(r) {
            *c += n;
        } else {
            self.reasons.insert(r.to_owned(), n);
        }
    }

    /// Comparisons per second of peer time.
    pub fn rate(&self) -> f64 {
        if self.nanos == 0 {
            return 0.0;
        }
        self.compared as f64 / (self.nanos as f64 / 1e9)
    }
}

/// A problem seen once: a new difference, a crash or a hang.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Peer id.
    pub peer: String,
    /// Comparison id.
    pub comparison: String,
    /// Processor.
    pub target: String,
    /// Where the input came from.
    pub origin: String,
    /// The input.
    pub input: Input,
    /// What happened.
    pub what: What,
    /// (unit, input index, peer index): the order events are handled in.
    pub order: (u64, usize, usize),
}

/// What an [`Event`] is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum What {
    /// A difference no allowlist entry explains.
    Different(Difference),
    /// A crash.
    Crash(Crash),
    /// A hang.
    Hang(Hang),
}

/// The results of one unit.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UnitResult {
    /// Per peer id.
    pub cells: BTreeMap<String, Counts>,
    /// Allowlist hits per entry id.
    pub known: BTreeMap<String, u64>,
    /// New events (at most [`EVENTS_PER_KEY`] per peer and key).
    pub events: Vec<Event>,
}

/// Events kept per peer, unit and difference key (the rest are counted).
pub const EVENTS_PER_KEY: u32 = 4;

/// One unit of work.
#[derive(Clone, Copy, Debug)]
pub struct Unit {
    /// Number in the full (unsharded) run.
    pub id: u64,
    /// Index into [`Plan::comparisons`].
    pub comparison: usize,
    /// The processor.
    pub target: &'static Target,
    /// Chunk number.
    pub chunk: u64,
}

/// The outcome of a run.
#[derive(Debug, Default)]
pub struct RunResult {
    /// (comparison, peer id) → counts.
    pub cells: BTreeMap<(String, String), Counts>,
    /// The reference peer of comparisons between peers: comparison → peer.
    pub references: BTreeMap<String, String>,
    /// Allowlist hits per entry id.
    pub known: BTreeMap<String, u64>,
    /// New findings.
    pub findings: Vec<Finding>,
    /// Units in this shard.
    pub units: u64,
    /// Of those, taken from a saved state.
    pub resumed: u64,
    /// (comparison, processor, why) pairs that were not run.
    pub skipped: Vec<(String, String, String)>,
    /// Problems of the run itself (a folder that could not be written).
    pub warnings: Vec<String>,
    /// Wall time.
    pub seconds: f64,
}

impl RunResult {
    /// Number of new findings (informational ones left out).
    pub fn new_findings(&self) -> usize {
        self.findings.iter().filter(|f| !f.informational).count()
    }

    /// Number of informational findings.
    pub fn informational(&self) -> usize {
        self.findings.iter().filter(|f| f.informational).count()
    }
}

/// Every unit of the plan, numbered, and what does not apply.
pub fn units(plan: &Plan) -> (Vec<Unit>, Vec<(String, String, String)>) {
    let mut v = Vec::new();
    let mut skipped = Vec::new();
    let mut id = 0u64;
    for (ci, c) in plan.comparisons.iter().enumerate() {
        for &t in &plan.targets {
            if let Err(why) = c.applies(t) {
                skipped.push((c.id().as_str().to_owned(), t.name.to_owned(), why));
                continue;
            }
            for chunk in 0..c.chunks(t) {
                v.push(Unit {
                    id,
                    comparison: ci,
                    target: t,
                    chunk,
                });
                id += 1;
            }
        }
    }
    (v, skipped)
}

fn peers_of(plan: &Plan, comparison: ComparisonId) -> Vec<&dyn Peer> {
    plan.peers
        .iter()
        .map(|p| p.as_ref())
        .filter(|p| p.info().takes_part(comparison))
        .collect()
}

fn kind_name(w: &What) -> &'static str {
    match w {
        What::Different(_) => "different",
        What::Crash(_) => "crash",
        What::Hang(_) => "hang",
    }
}

/// The allowlist's verdict on an event.
fn classify<'a>(
    allow: &'a Allowlist,
    peer: &dyn Peer,
    comparison: &str,
    target: &Target,
    input: &Input,
    what: &What,
) -> Option<Vec<&'a str>> {
    let (tags, message): (&[String], String) = match what {
        What::Different(d) => (&d.tags, d.message.clone()),
        What::Crash(c) => (&c.tags, format!("{} {}", c.status, c.stderr.join("\n"))),
        What::Hang(h) => (&[], h.stderr.join("\n")),
    };
    allow.classify(&allowlist::Subject {
        kind: kind_name(what),
        comparison,
        component: peer.info().component,
        peer: peer.id(),
        family: peer.info().family,
        version: peer.info().version,
        generation: target.generation,
        tags,
        message: &message,
        word: input.first_word(),
    })
}

/// Tags each crash on instruction bytes that goes away once the bytes
/// are followed by zeros with [`isolate::PAST_END_TAG`]: the peer read
/// past the end of its input (one more run of the peer, only for the
/// unit's crashes).
fn probe_past_end(
    c: &dyn Comparison,
    peer: &dyn Peer,
    ctx: &Ctx,
    target: &Target,
    inputs: &[Input],
    crashed: &mut [(usize, Crash)],
) {
    let mut rendered = Vec::new();
    let mut slots = Vec::new();
    for (slot, (k, _)) in crashed.iter().enumerate() {
        let Some(Input::Bytes { bytes }) = inputs.get(*k) else {
            continue;
        };
        let mut padded = bytes.clone();
        padded.resize(bytes.len() + isolate::PAST_END_PAD, 0);
        if let Ok(r) = c.render(peer, target, &Input::bytes(padded)) {
            rendered.push(r);
            slots.push(slot);
        }
    }
    if rendered.is_empty() {
        return;
    }
    peer.run(ctx, c.id(), target.name, &rendered, &mut |j, res| {
        if matches!(res, PeerResult::Crashed(_) | PeerResult::TimedOut(_)) {
            return;
        }
        if let Some((_, cr)) = slots.get(j).and_then(|&s| crashed.get_mut(s)) {
            cr.tags.push(isolate::PAST_END_TAG.to_owned());
        }
    });
}

/// Runs one unit through every peer of its comparison.
pub fn run_unit(plan: &Plan, ctx: &Ctx, unit: &Unit) -> UnitResult {
    run_unit_for(plan, ctx, unit, &|_| true)
}

/// Runs one unit through the peers of its comparison that `only` accepts
/// (the reference peer of a comparison between peers runs regardless).
pub fn run_unit_for(
    plan: &Plan,
    ctx: &Ctx,
    unit: &Unit,
    only: &dyn Fn(&dyn Peer) -> bool,
) -> UnitResult {
    let c = &plan.comparisons[unit.comparison];
    let inputs = c.inputs(unit.target, unit.chunk);
    run_inputs(plan, ctx, unit, &inputs, only)
}

/// Runs `inputs` (the unit's, made by [`Comparison::inputs`]) through the
/// peers of the unit's comparison that `only` accepts; the benchmark makes
/// the inputs beforehand so that it times the comparisons alone.
pub fn run_inputs(
    plan: &Plan,
    ctx: &Ctx,
    unit: &Unit,
    inputs: &[Input],
    only: &dyn Fn(&dyn Peer) -> bool,
) -> UnitResult {
    let c = &plan.comparisons[unit.comparison];
    let target = unit.target;
    let n = inputs.len();
    let peers = peers_of(plan, c.id());
    let reference = if c.needs_reference() {
        c.reference(&peers)
    } else {
        None
    };
    let mut order: Vec<usize> = (0..peers.len())
        .filter(|&k| Some(k) == reference || peers.get(k).is_some_and(|p| only(*p)))
        .collect();
    if let Some(r) = reference {
        order.retain(|&p| p != r);
        order.insert(0, r);
    }
    let mut result = UnitResult::default();
    let mut ref_views: Option<Vec<Option<View>>> = None;
    let mut per_key: HashMap<(String, String), u32> = HashMap::new();
    for pi in order {
        let peer = peers[pi];
        let is_ref = Some(pi) == reference;
        let t0 = Instant::now();
        let mut counts = Counts::default();
        let mut views: Vec<Option<View>> = if is_ref { vec![None; n] } else { Vec::new() };
        if let Err(why) = peer.supports(ctx, c.id(), target.name) {
            counts.compared += n as u64;
            counts.not_comparable += n as u64;
            counts.add_reason(&why.to_string(), n as u64);
        } else {
            let mut rendered = Vec::with_capacity(n);
            let mut map = Vec::with_capacity(n);
            for (k, i) in inputs.iter().enumerate() {
                match c.render(peer, target, i) {
                    Ok(r) => {
                        rendered.push(r);
                        map.push(k);
                    }
                    Err(why) => {
                        counts.compared += 1;
                        counts.not_comparable += 1;
                        counts.add_reason(&why, 1);
                    }
                }
            }
            let mut record = |k: usize, what: What, counts: &mut Counts| {
                let Some(input) = inputs.get(k) else { return };
                match classify(&plan.allowlist, peer, c.id().as_str(), target, input, &what) {
                    Some(ids) => {
                        if matches!(what, What::Different(_)) {
                            counts.known += 1;
                        }
                        for id in ids {
                            *result.known.entry(id.to_owned()).or_insert(0) += 1;
                        }
                    }
                    None => {
                        if let What::Different(d) = &what {
                            if d.informational {
                                counts.informational += 1;
                            } else {
                                counts.different += 1;
                            }
                        }
                        let key = match &what {
                            What::Different(d) => d.key.clone(),
                            other => kind_name(other).to_owned(),
                        };
                        let kept = per_key.entry((peer.id().to_owned(), key)).or_insert(0);
                        let limit = match what {
                            What::Different(_) => EVENTS_PER_KEY,
                            _ => 64,
                        };
                        if *kept < limit {
                            *kept += 1;
                            result.events.push(Event {
                                peer: peer.id().to_owned(),
                                comparison: c.id().as_str().to_owned(),
                                target: target.name.to_owned(),
                                origin: c.origin(target, unit.chunk, k),
                                input: input.clone(),
                                what,
                                order: (unit.id, k, pi),
                            });
                        }
                    }
                }
            };
            let mut crashed: Vec<(usize, Crash)> = Vec::new();
            peer.run(ctx, c.id(), target.name, &rendered, &mut |j, res| {
                let Some(&k) = map.get(j) else { return };
                counts.compared += 1;
                match res {
                    PeerResult::View(v) => {
                        if is_ref {
                            counts.same += 1;
                            if let Some(slot) = views.get_mut(k) {
                                *slot = Some(v);
                            }
                            return;
                        }
                        let r = ref_views
                            .as_ref()
                            .and_then(|rv| rv.get(k))
                            .and_then(Option::as_ref);
                        let Some(input) = inputs.get(k) else { return };
                        match c.compare(peer, target, input, &v, r) {
                            Verdict::Same => counts.same += 1,
                            Verdict::NotComparable(why) => {
                                counts.not_comparable += 1;
                                counts.add_reason(&why, 1);
                            }
                            Verdict::Differs(d) => record(k, What::Different(d), &mut counts),
                        }
                    }
                    PeerResult::Same => counts.same += 1,
                    PeerResult::NotComparable(why) => {
                        counts.not_comparable += 1;
                        counts.add_reason(&why.to_string(), 1);
                    }
                    PeerResult::Crashed(cr) => {
                        counts.crashed += 1;
                        crashed.push((k, cr));
                    }
                    PeerResult::TimedOut(h) => {
                        counts.timed_out += 1;
                        record(k, What::Hang(h), &mut counts);
                    }
                }
            });
            probe_past_end(c.as_ref(), peer, ctx, target, inputs, &mut crashed);
            for (k, cr) in crashed {
                record(k, What::Crash(cr), &mut counts);
            }
        }
        counts.nanos += t0.elapsed().as_nanos() as u64;
        if is_ref {
            ref_views = Some(views);
        }
        result
            .cells
            .entry(peer.id().to_owned())
            .or_default()
            .merge(&counts);
    }
    result
}

/// A private scratch folder, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// Creates one under the system's temporary folder.
    pub fn new() -> std::io::Result<Self> {
        let base = std::env::temp_dir();
        // Folders of runs that were killed (their process is gone).
        if let Ok(rd) = std::fs::read_dir(&base) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let pid = name
                    .strip_prefix("hsaco-conform-")
                    .and_then(|r| r.split('-').next())
                    .and_then(|p| p.parse::<u32>().ok());
                // Only folders that hold nothing but this module's files.
                let ours = std::fs::read_dir(e.path()).is_ok_and(|d| {
                    d.flatten().all(|f| {
                        let n = f.file_name().to_string_lossy().into_owned();
                        n.starts_with("crumb-") || n.starts_with("repro-")
                    })
                });
                if let Some(pid) = pid {
                    if ours
                        && Path::new("/proc/self").exists()
                        && !Path::new(&format!("/proc/{pid}")).exists()
                    {
                        let _ = std::fs::remove_dir_all(e.path());
                    }
                }
            }
        }
        for k in 0..1000u32 {
            let p = base.join(format!("hsaco-conform-{}-{k}", std::process::id()));
            match std::fs::create_dir(&p) {
                Ok(()) => return Ok(Self(p)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other("no free temporary folder name"))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the plan. `Err` when it could not run at all (the output folder
/// is refused or cannot be created, no scratch folder).
pub fn run(plan: &Plan, settings: &Settings) -> Result<RunResult, String> {
    let store = settings.out.as_deref().map(Store::claim).transpose()?;
    run_in(plan, settings, store)
}

/// Runs the plan with its output folder already claimed
/// ([`Store::claim`], done before any work by the commands).
pub fn run_in(
    plan: &Plan,
    settings: &Settings,
    mut store: Option<Store>,
) -> Result<RunResult, String> {
    let t0 = Instant::now();
    let scratch = Scratch::new().map_err(|e| format!("cannot create a temporary folder: {e}"))?;
    let ctx = Ctx::new(
        settings.program.clone(),
        settings.timeout,
        scratch.0.clone(),
    );
    let (all, skipped) = units(plan);
    let (si, sn) = settings.shard;
    let mine: Vec<Unit> = all.into_iter().filter(|u| u.id % sn.max(1) == si).collect();
    let mut result = RunResult {
        skipped,
        units: mine.len() as u64,
        ..RunResult::default()
    };
    let mut done: BTreeMap<u64, UnitResult> = BTreeMap::new();
    if let Some(store) = store.as_mut() {
        match store.begin(&settings.label, &settings.resume_key)? {
            findings::Begin::Resumed(units) => {
                // Units of the same key have this version's format; any
                // that do not read are run again.
                for (id, u) in units {
                    if let (Ok(id), Ok(u)) = (id.parse::<u64>(), serde_json::from_value(u)) {
                        done.insert(id, u);
                    }
                }
                done.retain(|id, _| mine.iter().any(|u| u.id == *id));
                result.resumed = done.len() as u64;
            }
            findings::Begin::Restarted { command } if settings.progress => eprintln!(
                "{}: {} held a run of {command} with other options: starting afresh (its findings are replaced)",
                settings.label,
                store.dir().display()
            ),
            _ => {}
        }
    }
    let store = store;
    let todo: VecDeque<Unit> = mine
        .iter()
        .filter(|u| !done.contains_key(&u.id))
        .copied()
        .collect();
    let total = mine.len();
    if settings.progress {
        eprintln!(
            "{}: {} units ({} from an earlier run), {} peer(s), {} thread(s)",
            settings.label,
            total,
            result.resumed,
            plan.peers.len(),
            settings.jobs
        );
    }
    let queue = Mutex::new(todo);
    let (tx, rx) = mpsc::channel::<(u64, UnitResult)>();
    let save = |done: &BTreeMap<u64, UnitResult>| -> Result<(), String> {
        if let Some(store) = &store {
            store.save_units(done).map_err(|e| {
                format!("{}: {e}", store.dir().join(findings::STATE_FILE).display())
            })?;
        }
        Ok(())
    };
    std::thread::scope(|s| {
        for _ in 0..settings.jobs.max(1) {
            let tx = tx.clone();
            let queue = &queue;
            let ctx = &ctx;
            s.spawn(move || loop {
                let next = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front();
                let Some(u) = next else { break };
                let r = run_unit(plan, ctx, &u);
                if tx.send((u.id, r)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut last_save = Instant::now();
        let mut last_progress = Instant::now();
        let mut dirty = false;
        loop {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok((id, r)) => {
                    done.insert(id, r);
                    dirty = true;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if dirty && last_save.elapsed() >= Duration::from_secs(1) {
                if let Err(e) = save(&done) {
                    result.warnings.push(e);
                }
                dirty = false;
                last_save = Instant::now();
            }
            if settings.progress && last_progress.elapsed() >= Duration::from_secs(5) {
                last_progress = Instant::now();
                let compared: u64 = done
                    .values()
                    .flat_map(|u| u.cells.values())
                    .map(|c| c.compared)
                    .sum();
                let events: usize = done.values().map(|u| u.events.len()).sum();
                eprintln!(
                    "{}: {}/{} units, {} comparisons, {} new events, {:.0} s",
                    settings.label,
                    done.len(),
                    total,
                    compared,
                    events,
                    t0.elapsed().as_secs_f64()
                );
            }
        }
        if dirty {
            if let Err(e) = save(&done) {
                result.warnings.push(e);
            }
        }
    });
    // The matrix, in unit order (deterministic).
    let mut events: Vec<Event> = Vec::new();
    for u in &mine {
        let Some(r) = done.get(&u.id) else { continue };
        let comparison = plan.comparisons[u.comparison].id();
        for (peer, c) in &r.cells {
            result
                .cells
                .entry((comparison.as_str().to_owned(), peer.clone()))
                .or_default()
                .merge(c);
        }
        for (id, n) in &r.known {
            *result.known.entry(id.clone()).or_insert(0) += n;
        }
        events.extend(r.events.iter().cloned());
    }
    for c in &plan.comparisons {
        if c.needs_reference() {
            let peers = peers_of(plan, c.id());
            if let Some(r) = c.reference(&peers).and_then(|k| peers.get(k)) {
                result
                    .references
                    .insert(c.id().as_str().to_owned(), r.id().to_owned());
            }
        }
    }
    events.sort_by_key(|e| e.order);
    if settings.progress && !events.is_empty() {
        eprintln!(
            "{}: {} new event(s): deduplicating{}",
            settings.label,
            events.len(),
            if settings.reduce { " and reducing" } else { "" }
        );
    }
    result.findings = make_findings(plan, &ctx, settings, &events);
    if let Some(store) = &store {
        write_findings(plan, &ctx, settings, store, &mut result);
    }
    ctx.shutdown();
    result.seconds = t0.elapsed().as_secs_f64();
    Ok(result)
}

/// Runs `peer` on one input of `comparison` (rendered for it).
fn run_one(
    ctx: &Ctx,
    peer: &dyn Peer,
    comparison: &dyn Comparison,
    target: &Target,
    input: &Input,
) -> Option<PeerResult> {
    let rendered = comparison.render(peer, target, input).ok()?;
    let mut out = None;
    peer.run(
        ctx,
        comparison.id(),
        target.name,
        std::slice::from_ref(&rendered),
        &mut |_, r| {
            out = Some(r);
        },
    );
    out
}

/// Whether `candidate` still shows `what` (same crash status, same
/// difference key) with `peer`; the difference found, for messages.
fn still_shows(
    plan: &Plan,
    ctx: &Ctx,
    peer: &dyn Peer,
    comparison: &dyn Comparison,
    target: &Target,
    candidate: &Input,
    what: &What,
) -> Option<What> {
    let r = run_one(ctx, peer, comparison, target, candidate)?;
    match (what, r) {
        // Any crash: one wild jump ends in SIGSEGV in one build and SIGILL
        // in another.
        (What::Crash(_), PeerResult::Crashed(c2)) => Some(What::Crash(c2)),
        (What::Hang(_), PeerResult::TimedOut(h)) => Some(What::Hang(h)),
        (What::Different(d), PeerResult::View(v)) => {
            let reference = if comparison.needs_reference() {
                let peers = peers_of(plan, comparison.id());
                let rp = comparison
                    .reference(&peers)
                    .and_then(|k| peers.get(k).copied())?;
                match run_one(ctx, rp, comparison, target, candidate)? {
                    PeerResult::View(rv) => Some(rv),
                    _ => return None,
                }
            } else {
                None
            };
            match comparison.compare(peer, target, candidate, &v, reference.as_ref()) {
                Verdict::Differs(d2) if d2.key == d.key => Some(What::Different(d2)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// How the peer was used, for crash signatures: the same bytes crash a
/// disassembler whatever the comparison.
fn scope_of(input: &Input) -> &'static str {
    match input {
        Input::Bytes { .. } => "disassemble",
        Input::Asm { .. } => "assemble",
        Input::File { .. } => "read",
    }
}

/// True when every set bit of `small` is set in `big` (a reduced input
/// reachable from `big` by clearing bits and dropping bytes).
fn contained(small: &Input, big: &Input) -> bool {
    match (small, big) {
        (Input::Bytes { bytes: s }, Input::Bytes { bytes: b }) => {
            s.len() <= b.len() && s.iter().zip(b).all(|(x, y)| x & !y == 0)
        }
        _ => small == big,
    }
}

/// Who looks at an input: the peer, in which comparison, for which
/// processor.
#[derive(Clone, Copy)]
struct Lens<'a> {
    peer: &'a dyn Peer,
    comparison: &'a dyn Comparison,
    target: &'a Target,
}

/// Reduces `event`'s input with its peer while `what` holds.
fn reduce_event(
    plan: &Plan,
    ctx: &Ctx,
    settings: &Settings,
    lens: Lens<'_>,
    input: &Input,
    what: &What,
) -> (Input, What, usize) {
    let Lens {
        peer,
        comparison,
        target,
    } = lens;
    let mut budget = Budget::new(settings.reduce_budget);
    let mut last = what.clone();
    if !settings.reduce || matches!(what, What::Hang(_)) {
        // Hangs cost a whole time limit per test: not reduced.
        return (input.clone(), last, 0);
    }
    let reduced =
        reduce::shrink(
            input,
            &mut budget,
            &|i| comparison.shrink(i),
            &mut |cand| match still_shows(plan, ctx, peer, comparison, target, cand, what) {
                Some(w) => {
                    last = w;
                    true
                }
                None => false,
            },
        );
    (reduced, last, budget.used)
}

/// Turns events into findings: one per signature, reduced, with peers,
/// versions and processors merged.
pub fn make_findings(
    plan: &Plan,
    ctx: &Ctx,
    settings: &Settings,
    events: &[Event],
) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    // Crash and hang inputs already reduced: input → finding index.
    let mut memo: HashMap<(String, Input), usize> = HashMap::new();
    for e in events {
        let Some(peer) = plan
            .peers
            .iter()
            .find(|p| p.id() == e.peer)
            .map(|p| p.as_ref())
        else {
            continue;
        };
        let Some(comparison) = plan
            .comparisons
            .iter()
            .find(|c| c.id().as_str() == e.comparison)
            .map(|c| c.as_ref())
        else {
            continue;
        };
        let Some(target) = targets::by_name(&e.target) else {
            continue;
        };
        let lens = Lens {
            peer,
            comparison,
            target,
        };
        let merge = |f: &mut Finding| {
            f.peers.insert(e.peer.clone());
            if let Some(v) = peer.info().version {
                f.versions.insert(v);
            }
            f.targets.insert(e.target.clone());
            f.count += 1;
            if let What::Crash(c) = &e.what {
                f.statuses.insert(c.status.clone());
                if let Some(site) = &c.site {
                    f.sites.insert(site.clone());
                }
                f.crashes.entry(e.peer.clone()).or_insert_with(|| c.clone());
            }
        };
        match &e.what {
            What::Different(d) => {
                let sig = Signature {
                    kind: if d.informational {
                        "informational"
                    } else {
                        "different"
                    }
                    .to_owned(),
                    scope: e.comparison.clone(),
                    component: peer.info().component.to_owned(),
                    key: d.key.clone(),
                };
                if let Some(f) = out.iter_mut().find(|f| f.signature == sig) {
                    merge(f);
                    continue;
                }
                let (reduced, last, tests) =
                    reduce_event(plan, ctx, settings, lens, &e.input, &e.what);
                let message = match last {
                    What::Different(d2) => d2.message,
                    _ => d.message.clone(),
                };
                let mut f = new_finding(sig, e, peer, message, reduced, tests);
                f.count = 1;
                f.informational = d.informational;
                out.push(f);
            }
            What::Crash(_) | What::Hang(_) => {
                let scope = scope_of(&e.input);
                let memo_key = (
                    format!("{scope}/{}", peer.info().component),
                    e.input.clone(),
                );
                // The same input seen with another peer or version: does
                // the reduced input show it there too?
                let mut candidates: Vec<usize> = memo.get(&memo_key).copied().into_iter().collect();
                for (k, f) in out.iter().enumerate() {
                    if f.signature.kind == kind_name(&e.what)
                        && f.signature.scope == scope
                        && f.signature.component == peer.info().component
                        && f.reduced.first().is_some_and(|r| contained(r, &e.input))
                        && !candidates.contains(&k)
                    {
                        candidates.push(k);
                    }
                }
                let mut merged = false;
                for k in candidates {
                    let Some(r) = out.get(k).and_then(|f| f.reduced.first().cloned()) else {
                        continue;
                    };
                    if still_shows(plan, ctx, peer, comparison, target, &r, &e.what).is_some() {
                        if let Some(f) = out.get_mut(k) {
                            merge(f);
                        }
                        memo.insert(memo_key.clone(), k);
                        merged = true;
                        break;
                    }
                }
                if merged {
                    continue;
                }
                let (reduced, last, tests) =
                    reduce_event(plan, ctx, settings, lens, &e.input, &e.what);
                let sig = Signature {
                    kind: kind_name(&e.what).to_owned(),
                    scope: scope.to_owned(),
                    component: peer.info().component.to_owned(),
                    key: format!("{scope} {}", reduced.display()),
                };
                if let Some(k) = out.iter().position(|f| f.signature == sig) {
                    if let Some(f) = out.get_mut(k) {
                        merge(f);
                    }
                    memo.insert(memo_key, k);
                    continue;
                }
                let message = match &last {
                    What::Crash(c) => format!(
                        "{} crashed ({}) on {} ({})",
                        peer.id(),
                        c.status,
                        reduced.display(),
                        e.origin
                    ),
                    What::Hang(h) => format!(
                        "{} made no progress for {:.0} s on {} ({})",
                        peer.id(),
                        h.seconds,
                        reduced.display(),
                        e.origin
                    ),
                    What::Different(d) => d.message.clone(),
                };
                let mut f = new_finding(sig, e, peer, message, reduced, tests);
                if let What::Crash(c) = &e.what {
                    f.statuses.insert(c.status.clone());
                    f.sites.extend(c.site.clone());
                    f.crashes.insert(e.peer.clone(), c.clone());
                }
                match last {
                    What::Crash(c) => f.crash = Some(c),
                    What::Hang(h) => f.hang = Some(h),
                    What::Different(_) => {}
                }
                out.push(f);
                memo.insert(memo_key, out.len() - 1);
            }
        }
    }
    // To a fixed point: a merge can join two sites' sets.
    loop {
        let n = out.len();
        out = merge_sites(out);
        if out.len() == n {
            break;
        }
    }
    for f in &mut out {
        f.commands = commands(plan, ctx, settings, f);
    }
    out
}

/// Merges crash findings that a peer's stack dump puts at the same site
/// (the first keeps its id and reduced input; the others' reduced inputs
/// go to `also`).
fn merge_sites(findings: Vec<Finding>) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::with_capacity(findings.len());
    for f in findings {
        let same = out.iter().position(|g| {
            g.signature.kind == "crash"
                && f.signature.kind == "crash"
                && g.signature.scope == f.signature.scope
                && g.signature.component == f.signature.component
                && !g.sites.is_disjoint(&f.sites)
        });
        match same.and_then(|k| out.get_mut(k)) {
            Some(g) => {
                g.peers.extend(f.peers);
                g.versions.extend(f.versions);
                g.targets.extend(f.targets);
                g.statuses.extend(f.statuses);
                for (p, c) in f.crashes {
                    g.crashes.entry(p).or_insert(c);
                }
                g.sites.extend(f.sites);
                g.count += f.count;
                g.original.extend(f.original);
                g.also.extend(f.reduced);
                g.also.extend(f.also);
            }
            None => out.push(f),
        }
    }
    out
}

fn new_finding(
    sig: Signature,
    e: &Event,
    peer: &dyn Peer,
    message: String,
    reduced: Input,
    tests: usize,
) -> Finding {
    Finding {
        id: sig.id(),
        signature: sig,
        comparison: e.comparison.clone(),
        message,
        peers: BTreeSet::from([e.peer.clone()]),
        versions: peer.info().version.into_iter().collect(),
        targets: BTreeSet::from([e.target.clone()]),
        count: 1,
        origin: e.origin.clone(),
        original: vec![e.input.clone()],
        reduced: vec![reduced],
        reduction_tests: tests,
        crash: None,
        crashes: BTreeMap::new(),
        statuses: BTreeSet::new(),
        sites: BTreeSet::new(),
        also: Vec::new(),
        hang: None,
        commands: Vec::new(),
        dir: None,
        files: Vec::new(),
        informational: false,
    }
}

/// The reproducer file of `peer` for a finding: its name and contents.
fn reproducer(plan: &Plan, f: &Finding, peer: &dyn Peer, target: &Target) -> Option<String> {
    let comparison = plan
        .comparisons
        .iter()
        .find(|c| c.id().as_str() == f.comparison)?;
    let rendered: Vec<Input> = f
        .reduced
        .iter()
        .map(|i| comparison.render(peer, target, i))
        .collect::<Result<_, _>>()
        .ok()?;
    Some(peer.reproducer(comparison.id(), &rendered))
}

/// Reproducer files of a finding: (peer, file name, contents), one file per
/// distinct contents (`input.txt` first).
fn reproducer_files(plan: &Plan, f: &Finding) -> Vec<(String, String, String)> {
    let mut files: Vec<(String, String, String)> = Vec::new();
    let target = f.targets.iter().next().and_then(|t| targets::by_name(t));
    let Some(target) = target else {
        return files;
    };
    for p in &f.peers {
        let Some(peer) = plan.peers.iter().find(|x| x.id() == p) else {
            continue;
        };
        let Some(text) = reproducer(plan, f, peer.as_ref(), target) else {
            continue;
        };
        if let Some(existing) = files.iter().find(|(_, _, t)| *t == text) {
            let name = existing.1.clone();
            files.push((p.clone(), name, text));
            continue;
        }
        let name = if files.is_empty() {
            "input.txt".to_owned()
        } else {
            format!("input-{p}.txt")
        };
        files.push((p.clone(), name, text));
    }
    files
}

/// Commands that show the finding with one peer alone, checked for crashes
/// and hangs (run in a scratch folder holding the reproducer).
fn commands(plan: &Plan, ctx: &Ctx, settings: &Settings, f: &Finding) -> Vec<Repro> {
    let files = reproducer_files(plan, f);
    let Some(cpu) = f.targets.iter().next().cloned() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (peer_id, name, text) in &files {
        let Some(peer) = plan.peers.iter().find(|x| x.id() == peer_id) else {
            continue;
        };
        let Ok(comparison) = f.comparison.parse::<ComparisonId>() else {
            continue;
        };
        let (argv, external) = match peer.command(comparison, &cpu, name) {
            Some(a) => (a, true),
            None if matches!(f.reduced.first(), Some(Input::Bytes { .. })) => {
                // This program by its absolute path (the reproducer runs
                // outside cargo too), with the --peer that made the peer.
                let mut a = vec![
                    settings.program.display().to_string(),
                    "diff".to_owned(),
                    "words".to_owned(),
                    "--target".to_owned(),
                    cpu.clone(),
                ];
                if let Some(n) = &peer.info().named {
                    a.extend(["--peer".to_owned(), n.spec()]);
                }
                a.extend(["--peers".to_owned(), peer_id.clone(), name.clone()]);
                (a, false)
            }
            None => continue,
        };
        let reproduces = if external && (f.signature.kind == "crash" || f.signature.kind == "hang")
        {
            Some(check_command(
                ctx,
                settings,
                &argv,
                name,
                text,
                f.signature.kind == "hang",
            ))
        } else {
            None
        };
        out.push(Repro {
            peer: peer_id.clone(),
            target: cpu.clone(),
            shell: findings::shell_line(&argv),
            argv,
            reproduces,
        });
    }
    // Commands that reproduce first, external programs before ours.
    out.sort_by_key(|r| {
        (
            r.reproduces != Some(true),
            r.argv
                .first()
                .is_some_and(|a| Path::new(a) == settings.program),
        )
    });
    out
}

fn check_command(
    ctx: &Ctx,
    _settings: &Settings,
    argv: &[String],
    name: &str,
    text: &str,
    hang: bool,
) -> bool {
    let dir = ctx.scratch.join(format!("repro-{}", isolate::unique()));
    if std::fs::create_dir_all(&dir).is_err() || std::fs::write(dir.join(name), text).is_err() {
        return false;
    }
    let Some((prog, args)) = argv.split_first() else {
        return false;
    };
    let mut cmd = std::process::Command::new(prog);
    cmd.args(args).current_dir(&dir);
    let ok = match isolate::run_tool(cmd, b"", ctx.timeout) {
        Ok(run) if hang => run.timed_out,
        Ok(run) => isolate::crash_of(&run).is_some(),
        Err(_) => false,
    };
    let _ = std::fs::remove_dir_all(&dir);
    ok
}

/// Writes every finding's folder and the manifest; removes folders of
/// findings that are gone.
fn write_findings(
    plan: &Plan,
    _ctx: &Ctx,
    _settings: &Settings,
    store: &Store,
    result: &mut RunResult,
) {
    let mut written: Vec<Finding> = Vec::new();
    for f in &mut result.findings {
        let mut files = reproducer_files(plan, f);
        let original = f
            .original
            .iter()
            .map(Input::display)
            .collect::<Vec<_>>()
            .join("\n")
            + "\n";
        files.push((String::new(), "original.txt".to_owned(), original));
        for (name, contents) in super::upstream::files(f) {
            files.push((String::new(), name, contents));
        }
        if let Err(e) = store.write_finding(f, &files) {
            result.warnings.push(format!(
                "{}: cannot write finding {}: {e}",
                store.dir().display(),
                f.id
            ));
            continue;
        }
        // Object inputs: the object itself goes next to the reproducer.
        if let Some(rel) = f.dir.clone() {
            for i in &f.reduced {
                if let Input::File { name, bytes } = i {
                    let safe = !name.contains('/') && !name.starts_with('.');
                    if safe {
                        let _ = std::fs::write(store.dir().join(&rel).join(name), bytes);
                    }
                }
            }
        }
        written.push(f.clone());
        if let Err(e) = store.write_manifest(&written) {
            result.warnings.push(format!(
                "{}: cannot write manifest.jsonl: {e}",
                store.dir().display()
            ));
        }
    }
    if written.is_empty() {
        if let Err(e) = store.write_manifest(&written) {
            result.warnings.push(format!(
                "{}: cannot write manifest.jsonl: {e}",
                store.dir().display()
            ));
        }
    }
    if let Err(e) = store.prune(&written) {
        result.warnings.push(format!(
            "{}: cannot remove old findings: {e}",
            store.dir().display()
        ));
    }
}

/// The folder a path's parent names (for atomic writes of report files).
pub fn parent_dir(p: &Path) -> &Path {
    p.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
