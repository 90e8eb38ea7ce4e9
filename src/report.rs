//! The `check` and `rules` commands: running the oracle over inputs and
//! printing text or JSON reports.
//!
//! `check` is a pipeline: this thread expands the inputs, maps each file
//! and finds its code objects, and hands them to a pool of workers (one per
//! core, for the whole run). A worker checks one code object (or every code
//! object of a file with compressed bundles, which it unpacks) and renders
//! its report (text or JSON) into a buffer; this thread writes the buffers
//! in input order. At most [`WINDOW_PER_WORKER`] objects per worker are
//! between being handed out and being written, so memory does not grow with
//! the number of objects or files, whatever their order of completion.

use crate::baseline::{Baseline, Suppressed};
use crate::input::{self, Bytes, Input};
use crate::sarif;
use hsaco_conform::output::write_failed;
use hsaco_oracle::check::{check_object_with, Detail, KernelReport, ObjectReport};
use hsaco_oracle::container;
use hsaco_oracle::rules::Omitted;
use hsaco_oracle::{Severity, Violation};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};

/// The layout of `check`'s report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// For people: findings grouped by file and kernel, then a summary
    /// line.
    Text,
    /// For scripts: one JSON document with stable field names.
    Json,
    /// SARIF 2.1.0, for CI services and code-scanning tools.
    Sarif,
}

/// Which findings make `check` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Errors (the default).
    Error,
    /// Errors and warnings.
    Warning,
    /// No finding: only inputs that could not be checked change the status
    /// (to 2).
    Never,
}

/// What `check` prints, and what fails it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The report's layout.
    pub format: ReportFormat,
    /// JSON: each kernel's descriptor fields, initial state and metadata.
    pub detail: bool,
    /// Text: list info-level findings too.
    pub verbose: bool,
    /// Which findings make the exit status 1.
    pub fail_on: FailOn,
}

impl Options {
    /// True if the report is one JSON document whose entries (objects, or
    /// SARIF results) are separated by commas.
    fn json_like(self) -> bool {
        self.format != ReportFormat::Text
    }

    /// How much of the typed view the oracle builds: only JSON with detail
    /// needs descriptor fields, register layouts and metadata copies.
    pub fn oracle_detail(self) -> Detail {
        if self.format == ReportFormat::Json && self.detail {
            Detail::Full
        } else {
            Detail::Violations
        }
    }
}

/// Totals over a run (also the JSON `summary`; field names are stable).
#[derive(Serialize, Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Paths examined: files checked or skipped, and paths that could not
    /// be examined.
    pub files: usize,
    /// Code objects checked.
    pub code_objects: usize,
    /// Kernels found.
    pub kernels: usize,
    /// Findings of error severity (omitted ones included).
    pub errors: usize,
    /// Findings of warning severity (omitted ones included).
    pub warnings: usize,
    /// Findings of info severity (omitted ones included).
    pub infos: usize,
    /// Code objects with neither an error nor a warning (info findings
    /// and findings a baseline suppressed do not count).
    pub clean: usize,
    /// Inputs that could not be checked (each is named in the report).
    pub unreadable: usize,
    /// Files in directories skipped because they hold no code object.
    pub skipped: usize,
    /// Paths skipped because they reach a file already checked (symlinks,
    /// hard links, a path named twice).
    pub duplicates: usize,
}

impl Summary {
    fn add(&mut self, o: &Summary) {
        self.files += o.files;
        self.code_objects += o.code_objects;
        self.kernels += o.kernels;
        self.errors += o.errors;
        self.warnings += o.warnings;
        self.infos += o.infos;
        self.clean += o.clean;
        self.unreadable += o.unreadable;
        self.skipped += o.skipped;
        self.duplicates += o.duplicates;
    }

    /// The counts of one checked code object.
    fn of(r: &ObjectReport) -> Summary {
        let mut s = Summary {
            code_objects: 1,
            kernels: r.kernels.len(),
            ..Summary::default()
        };
        let mut tally = |sev: Severity, n: usize| match sev {
            Severity::Error => s.errors += n,
            Severity::Warning => s.warnings += n,
            Severity::Info => s.infos += n,
        };
        for v in &r.violations {
            tally(v.severity, 1);
        }
        for o in &r.omitted {
            tally(o.severity, o.count);
        }
        s.clean = usize::from(s.errors == 0 && s.warnings == 0);
        s
    }

    /// The exit status of `check`: 1 if a finding that `fail_on` names
    /// was found (errors; errors and warnings; none), else 2 if some input
    /// could not be checked, else 0. Findings a baseline suppressed are
    /// not in the counts, so they never fail a run.
    pub fn exit_status(&self, fail_on: FailOn) -> u8 {
        let failing = match fail_on {
            FailOn::Error => self.errors,
            FailOn::Warning => self.errors + self.warnings,
            FailOn::Never => 0,
        };
        if failing > 0 {
            1
        } else if self.unreadable > 0 {
            2
        } else {
            0
        }
    }
}

/// What one report entry says besides its kernels.
struct EntryHead<'a> {
    path: &'a str,
    member: Option<&'a str>,
    target: Option<&'a str>,
    code_object_version: Option<u8>,
    elf_type: Option<&'a str>,
}

/// Writes one report entry as a JSON object: a code object, or an input
/// that could not be checked (`error` set, the lists empty). The fields
/// are written one by one so that kernels can be rendered (and, when owned,
/// dropped) one at a time: with detail a library's largest object renders
/// to tens of megabytes.
#[allow(clippy::too_many_arguments)]
fn json_entry<K: std::borrow::Borrow<KernelReport>>(
    out: &mut Chunks,
    head: &EntryHead<'_>,
    kernels: impl Iterator<Item = K>,
    detail: bool,
    violations: &[Violation],
    omitted: &[Omitted],
    suppressed: Option<(&Suppressed, &Baseline)>,
    error: Option<&str>,
) {
    fn field(out: &mut Chunks, first: bool, name: &str, v: &impl Serialize) {
        out.push(if first { b'{' } else { b',' });
        out.push(b'"');
        out.extend(name.as_bytes());
        out.extend(b"\":");
        serde_json::to_writer(&mut *out, v).expect("serialising to memory cannot fail");
    }
    field(out, true, "path", &head.path);
    field(out, false, "member", &head.member);
    field(out, false, "target", &head.target);
    field(out, false, "code_object_version", &head.code_object_version);
    field(out, false, "elf_type", &head.elf_type);
    out.extend(b",\"kernels\":[");
    for (i, k) in kernels.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        // Each kernel: with detail, everything the oracle decoded about it
        // (descriptor fields, initial state, metadata); without, its name
        // and descriptor offset, written directly (a library's JSON is
        // mostly these entries, and long mangled names rarely need
        // escaping).
        let kernel = k.borrow();
        if detail {
            serde_json::to_writer(&mut *out, kernel).expect("serialising to memory cannot fail");
        } else {
            out.extend(b"{\"name\":");
            json_str(out, &kernel.name);
            out.extend(b",\"descriptor_offset\":");
            match kernel.descriptor_offset {
                Some(o) => {
                    let _ = write!(out, "{o}");
                }
                None => out.extend(b"null"),
            }
            out.push(b'}');
        }
    }
    out.push(b']');
    out.extend(b",\"violations\":[");
    for (i, v) in violations.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json_violation(out, v);
    }
    out.push(b']');
    field(out, false, "omitted", &omitted);
    if let Some((s, b)) = suppressed {
        json_suppressed(out, s, b);
    }
    if let Some(e) = error {
        field(out, false, "error", &e);
    }
    out.push(b'}');
}

/// Writes `s` as a JSON string, as `serde_json` does: a string with nothing
/// to escape (no control character, quote or backslash) is copied as it
/// is, found with a scan that vectorises; any other goes through
/// `serde_json`.
fn json_str(out: &mut Chunks, s: &str) {
    let plain = s
        .bytes()
        .fold(true, |ok, b| ok & (b >= 0x20 && b != b'"' && b != b'\\'));
    if plain {
        out.push(b'"');
        out.extend(s.as_bytes());
        out.push(b'"');
    } else {
        serde_json::to_writer(&mut *out, s).expect("serialising to memory cannot fail");
    }
}

/// Writes `v` as `serde_json` writes a [`Violation`] (its `Serialize`
/// derive), with [`json_str`] for the strings: messages name kernels, and
/// long mangled names made escaping the largest cost of a library's JSON.
fn json_violation(out: &mut Chunks, v: &Violation) {
    json_violation_fields(out, v);
    out.push(b'}');
}

/// [`json_violation`] without the closing brace, for fields to follow.
fn json_violation_fields(out: &mut Chunks, v: &Violation) {
    out.extend(b"{\"rule\":");
    json_str(out, v.rule.id);
    let _ = write!(out, ",\"severity\":\"{}\",\"message\":", v.severity);
    json_str(out, &v.message);
    if let Some(o) = v.offset {
        let _ = write!(out, ",\"offset\":{o}");
    }
    if let Some(k) = &v.kernel {
        out.extend(b",\"kernel\":");
        json_str(out, k);
    }
}

/// Writes an entry's `suppressed` field: the findings a baseline accepted,
/// as `violations` and `omitted` are written, each with the number of the
/// baseline entry that accepted it and that entry's reason.
fn json_suppressed(out: &mut Chunks, s: &Suppressed, b: &Baseline) {
    let accepted_by = |out: &mut Chunks, i: usize| {
        let e = &b.entries[i];
        let _ = write!(out, ",\"baseline_entry\":{},\"reason\":", e.entry);
        json_str(out, &e.reason);
        out.push(b'}');
    };
    out.extend(b",\"suppressed\":{\"violations\":[");
    for (n, (v, i)) in s.violations.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        json_violation_fields(out, v);
        accepted_by(out, *i);
    }
    out.extend(b"],\"omitted\":[");
    for (n, (o, i)) in s.omitted.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        out.extend(b"{\"rule\":");
        json_str(out, o.rule.id);
        let _ = write!(
            out,
            ",\"severity\":\"{}\",\"count\":{}",
            o.severity, o.count
        );
        accepted_by(out, *i);
    }
    out.extend(b"]}");
}

/// The JSON report's `baseline` object (also the SARIF run's
/// `properties.baseline`): the file, the findings it suppressed, and its
/// stale entries in full.
pub fn baseline_json(b: &Baseline) -> serde_json::Value {
    serde_json::json!({
        "path": b.path,
        "suppressed": b.suppressed(),
        "stale": b.stale(),
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// How the text report names a code object: `path [member]`.
pub fn entry_name(path: &str, member: Option<&str>) -> String {
    match member {
        Some(m) => format!("{path} [{m}]"),
        None => path.to_owned(),
    }
}

fn head<'a>(path: &'a str, member: Option<&'a str>, r: &'a ObjectReport) -> EntryHead<'a> {
    EntryHead {
        path,
        member,
        target: r.target.as_deref(),
        code_object_version: r.code_object_version,
        elf_type: r.elf_type.as_deref(),
    }
}

/// Renders the report of one checked code object into `out`.
pub fn render_object(
    path: &str,
    member: Option<&str>,
    r: &ObjectReport,
    opts: Options,
    out: &mut Chunks,
) {
    match opts.format {
        ReportFormat::Json => json_entry(
            out,
            &head(path, member, r),
            r.kernels.iter(),
            opts.detail,
            &r.violations,
            &r.omitted,
            None,
            None,
        ),
        ReportFormat::Text => print_text(&entry_name(path, member), r, opts.verbose, out),
        // The results alone: `bench` measures rendering, and the
        // notifications of counted-but-not-kept findings are not results.
        ReportFormat::Sarif => sarif::object(out, &mut Vec::new(), path, member, None, r, None),
    }
}

/// [`render_object`] for a report that is no longer needed: in JSON each
/// kernel is dropped as soon as it is written, so the report and its
/// rendering are not both whole in memory.
fn render_object_owned(
    path: &str,
    member: Option<&str>,
    mut r: ObjectReport,
    opts: Options,
    suppressed: Option<(&Suppressed, &Baseline)>,
    out: &mut Chunks,
) {
    if opts.format != ReportFormat::Json {
        return render_object(path, member, &r, opts, out);
    }
    // Kept for `explain`; the JSON report does not carry them.
    r.metadata = None;
    r.metadata_v2 = None;
    r.v2_notes = None;
    let kernels = std::mem::take(&mut r.kernels);
    json_entry(
        out,
        &head(path, member, &r),
        kernels.into_iter(),
        opts.detail,
        &r.violations,
        &r.omitted,
        suppressed,
        None,
    );
}

/// Renders the entry of an input that could not be checked (in SARIF, a
/// notification of the invocation rather than a result).
fn render_failed(path: &str, member: Option<&str>, error: &str, ctx: &Ctx<'_>, out: &mut Rendered) {
    let opts = ctx.opts;
    if opts.format == ReportFormat::Sarif {
        out.notes.push(sarif::failed(path, member, error));
    } else if opts.format == ReportFormat::Json {
        if !out.out.is_empty() {
            out.out.push(b',');
        }
        let out = &mut out.out;
        let none = Suppressed::default();
        let head = EntryHead {
            path,
            member,
            target: None,
            code_object_version: None,
            elf_type: None,
        };
        json_entry(
            out,
            &head,
            std::iter::empty::<&KernelReport>(),
            false,
            &[],
            &[],
            ctx.baseline.map(|b| (&none, b)),
            Some(error),
        );
    } else {
        let _ = writeln!(
            out.out,
            "{}: could not check: {error}",
            entry_name(path, member)
        );
    }
}

/// A rendered entry, in pieces of at most [`Chunks::PIECE`] bytes: a large
/// rendering grows without the copies and the up-to-double capacity of one
/// growing buffer.
#[derive(Default)]
pub struct Chunks {
    full: Vec<Vec<u8>>,
    cur: Vec<u8>,
}

impl Chunks {
    /// Size of a piece.
    pub const PIECE: usize = 256 << 10;

    /// Empties the buffer, keeping the current piece's memory.
    pub fn clear(&mut self) {
        self.full.clear();
        self.cur.clear();
    }

    /// Bytes held.
    pub fn len(&self) -> usize {
        self.full.len() * Self::PIECE + self.cur.len()
    }

    /// True if nothing was written.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends a byte.
    pub fn push(&mut self, b: u8) {
        self.extend(&[b]);
    }

    /// Appends bytes.
    pub fn extend(&mut self, mut buf: &[u8]) {
        while !buf.is_empty() {
            let take = buf.len().min(Self::PIECE - self.cur.len());
            let need = self.cur.len() + take;
            if need > self.cur.capacity() {
                // A short entry (a text line) takes a page; past that the
                // piece is taken whole, rather than doubled with a copy
                // each time (which showed in profiles of large libraries).
                let cap = if need <= 4096 { 4096 } else { Self::PIECE };
                self.cur.reserve_exact(cap - self.cur.len());
            }
            self.cur.extend_from_slice(&buf[..take]);
            buf = &buf[take..];
            if self.cur.len() == Self::PIECE {
                let full = std::mem::replace(&mut self.cur, Vec::with_capacity(Self::PIECE));
                self.full.push(full);
            }
        }
    }

    /// Writes every piece, in order.
    fn write_to(&self, w: &mut dyn Write) -> io::Result<()> {
        for p in &self.full {
            w.write_all(p)?;
        }
        w.write_all(&self.cur)
    }
}

impl Write for Chunks {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.extend(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Prints one code object for people: nothing for an object with no
/// findings to show (the summary counts it), else its header line and its
/// findings grouped by kernel, then what was counted but not kept.
/// Info-level findings show only when `verbose`.
fn print_text(name: &str, r: &ObjectReport, verbose: bool, out: &mut Chunks) {
    let shown = |sev: Severity| verbose || sev != Severity::Info;
    let omitted: Vec<&Omitted> = r.omitted.iter().filter(|o| shown(o.severity)).collect();
    // Findings by kernel, kernels in order of their first finding.
    let mut groups: Vec<(Option<&str>, Vec<&Violation>)> = Vec::new();
    let mut index: HashMap<Option<&str>, usize> = HashMap::new();
    for v in r.violations.iter().filter(|v| shown(v.severity)) {
        let k = v.kernel.as_deref();
        let i = *index.entry(k).or_insert_with(|| {
            groups.push((k, Vec::new()));
            groups.len() - 1
        });
        groups[i].1.push(v);
    }
    if groups.is_empty() && omitted.is_empty() {
        return;
    }
    let what = match (&r.target, r.code_object_version) {
        (Some(t), Some(v)) => format!("{t}, code object V{v}"),
        (None, Some(v)) => format!("unknown target, code object V{v}"),
        _ => "unreadable header".to_owned(),
    };
    let _ = writeln!(
        out,
        "{name}: {what}, {} kernel{}",
        r.kernels.len(),
        plural(r.kernels.len())
    );
    for (k, vs) in groups {
        let indent = if let Some(k) = k {
            let _ = writeln!(out, "  kernel {k}:");
            "    "
        } else {
            "  "
        };
        for v in vs {
            let _ = write!(
                out,
                "{indent}{:<7} {}: {}",
                v.severity.to_string(),
                v.rule.id,
                v.message
            );
            if let Some(o) = v.offset {
                let _ = write!(out, " (at {o:#x})");
            }
            out.push(b'\n');
        }
    }
    for o in omitted {
        let _ = writeln!(out, "  {}", omitted_line(o));
    }
}

/// Says that findings of a rule were counted but not kept:
/// `… and 50 more info findings of RULE not shown`.
pub fn omitted_line(o: &Omitted) -> String {
    let what = match o.severity {
        Severity::Info => "info finding",
        Severity::Warning => "warning",
        Severity::Error => "error",
    };
    let mut line = format!(
        "\u{2026} and {} more {what}{} of {} not shown",
        o.count,
        plural(o.count),
        o.rule.id
    );
    if o.severity != Severity::Info {
        line += " (more findings than an object of this size may keep; all are counted)";
    }
    line
}

/// Objects handed out but not yet written, per worker: enough that no
/// worker waits for work while one object is slow, few enough that the
/// rendered reports waiting behind it stay small.
pub const WINDOW_PER_WORKER: usize = 4;

/// Rendered bytes that may wait behind a slower object before no more
/// objects are handed out (with `--detail`, one large object renders to
/// tens of megabytes).
pub const MAX_WAITING_BYTES: usize = 16 << 20;

/// What a job checks.
enum Source {
    /// One code object: a range of a mapped file.
    Mapped(Arc<Bytes>, Range<usize>),
    /// Every code object of a mapped file that holds compressed bundles,
    /// unpacked by the worker one bundle at a time and checked in place
    /// (so unpacking runs in parallel across files, and a decompressed
    /// object of hundreds of megabytes is never copied).
    Unpack(Arc<Bytes>),
}

struct Job {
    seq: u64,
    path: Arc<str>,
    member: Option<String>,
    src: Source,
}

/// What the workers share: the options and the baseline.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    opts: Options,
    baseline: Option<&'a Baseline>,
}

/// What a job renders: report bytes, and (SARIF only) notifications of
/// the invocation, which go at the end of the document.
#[derive(Default)]
struct Rendered {
    out: Chunks,
    notes: Vec<serde_json::Value>,
}

/// Rendered entries, ready to be written in their turn.
struct Done {
    seq: u64,
    out: Rendered,
    counts: Summary,
}

/// Checks one code object and renders its entry into `out` (after a JSON
/// separator if `out` already holds an entry); its counts. `base` is
/// where the code object starts in its file, when it is a part of the
/// file as it is on disk (not unpacked from a compressed bundle).
fn check_one(
    path: &str,
    member: Option<&str>,
    data: &[u8],
    base: Option<u64>,
    ctx: &Ctx<'_>,
    out: &mut Rendered,
) -> Summary {
    let opts = ctx.opts;
    // The oracle never panics by contract; if a bug breaks that, the
    // object is reported as not checked and the run goes on (a lost worker
    // would stall the pipeline).
    let mut r = match std::panic::catch_unwind(|| check_object_with(data, opts.oracle_detail())) {
        Ok(r) => r,
        Err(_) => {
            return failed_one(
                path,
                member,
                "internal error: the checker panicked on this code object (please report it with the file)",
                ctx,
                out,
            )
        }
    };
    let suppressed = match ctx.baseline {
        Some(b) => b.apply(path, member, &mut r),
        None => Suppressed::default(),
    };
    let counts = Summary::of(&r);
    if opts.format == ReportFormat::Sarif {
        let suppressed = ctx.baseline.map(|b| (&suppressed, b));
        sarif::object(
            &mut out.out,
            &mut out.notes,
            path,
            member,
            base,
            &r,
            suppressed,
        );
    } else {
        if opts.format == ReportFormat::Json && !out.out.is_empty() {
            out.out.push(b',');
        }
        let suppressed = ctx.baseline.map(|b| (&suppressed, b));
        render_object_owned(path, member, r, opts, suppressed, &mut out.out);
    }
    counts
}

/// Renders the entry of something that could not be checked into `out`;
/// its counts.
fn failed_one(
    path: &str,
    member: Option<&str>,
    error: &str,
    ctx: &Ctx<'_>,
    out: &mut Rendered,
) -> Summary {
    render_failed(path, member, error, ctx, out);
    Summary {
        unreadable: 1,
        ..Summary::default()
    }
}

/// Where `part` starts in `file`, if it is a slice of it.
pub(crate) fn offset_in(file: &[u8], part: &[u8]) -> Option<u64> {
    let start = (part.as_ptr() as usize).wrapping_sub(file.as_ptr() as usize);
    (start <= file.len() && part.len() <= file.len() - start).then_some(start as u64)
}

/// Runs one job: check, render, and let the mapped pages go.
fn work(job: Job, ctx: &Ctx<'_>) -> Done {
    let mut out = Rendered::default();
    let mut counts = Summary::default();
    match &job.src {
        Source::Mapped(b, r) => {
            counts = check_one(
                &job.path,
                job.member.as_deref(),
                &b[r.clone()],
                Some(r.start as u64),
                ctx,
                &mut out,
            );
            // The last holder of the map unmaps it when the job is dropped:
            // releasing the pages first would only add TLB flushes (a file
            // of one code object is always in that case).
            if Arc::strong_count(b) > 1 {
                b.release(r.clone());
            }
        }
        Source::Unpack(b) => {
            container::scan(b).for_each(container::DEFAULT_UNPACK_LIMIT, &mut |v| {
                let c = match v {
                    container::Visit::Members(ms) => {
                        let mut c = Summary::default();
                        for m in ms {
                            c.add(&check_one(
                                &job.path,
                                m.name.as_deref(),
                                m.data,
                                offset_in(b, m.data),
                                ctx,
                                &mut out,
                            ));
                        }
                        c
                    }
                    container::Visit::Failed { at, error } => {
                        failed_one(&job.path, Some(&at), &error, ctx, &mut out)
                    }
                };
                counts.add(&c);
            });
            if Arc::strong_count(b) > 1 {
                b.release(0..b.len());
            }
        }
    }
    Done {
        seq: job.seq,
        out,
        counts,
    }
}

/// The writing end of the pipeline: hands out jobs, and writes finished
/// entries in input order.
struct Writer<'w> {
    ctx: Ctx<'w>,
    jobs: Option<mpsc::Sender<Job>>,
    done: mpsc::Receiver<Done>,
    window: usize,
    next_seq: u64,
    next_out: u64,
    pending: BTreeMap<u64, Done>,
    /// Rendered bytes in `pending`.
    pending_bytes: usize,
    out: &'w mut dyn Write,
    wrote_entry: bool,
    summary: Summary,
    write_error: Option<io::Error>,
    /// SARIF: the invocation's notifications, in input order.
    notes: Vec<serde_json::Value>,
}

impl Writer<'_> {
    /// Hands a code object to the workers, first waiting (and writing)
    /// while the window is full.
    fn submit(&mut self, path: &Arc<str>, member: Option<String>, src: Source) {
        while self.next_seq - self.next_out >= self.window as u64
            || self.pending_bytes > MAX_WAITING_BYTES
        {
            self.wait_one();
        }
        let job = Job {
            seq: self.next_seq,
            path: Arc::clone(path),
            member,
            src,
        };
        self.next_seq += 1;
        if let Some(tx) = &self.jobs {
            // The workers outlive the writer's use of the channel.
            let _ = tx.send(job);
        }
    }

    /// Adds an entry rendered here (an input that could not be checked).
    fn failed(&mut self, path: &str, member: Option<&str>, error: &str) {
        let mut out = Rendered::default();
        render_failed(path, member, error, &self.ctx, &mut out);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.accept(Done {
            seq,
            out,
            counts: Summary {
                unreadable: 1,
                ..Summary::default()
            },
        });
    }

    fn wait_one(&mut self) {
        match self.done.recv() {
            Ok(d) => self.accept(d),
            // Unreachable while jobs are out: every job sends its entry.
            Err(_) => self.next_out = self.next_seq,
        }
    }

    /// Takes a finished entry and writes every entry now due.
    fn accept(&mut self, d: Done) {
        self.pending_bytes += d.out.out.len();
        self.pending.insert(d.seq, d);
        while let Some(d) = self.pending.remove(&self.next_out) {
            let Rendered { out, notes } = d.out;
            self.pending_bytes -= out.len();
            self.next_out += 1;
            self.summary.add(&d.counts);
            self.notes.extend(notes);
            if self.write_error.is_some() || out.is_empty() {
                continue;
            }
            let sep: &[u8] = if self.ctx.opts.json_like() && self.wrote_entry {
                b","
            } else {
                b""
            };
            self.wrote_entry = true;
            if let Err(e) = self
                .out
                .write_all(sep)
                .and_then(|()| out.write_to(self.out))
            {
                self.write_error = Some(e);
            }
        }
    }

    /// Waits for every job handed out, and closes the job queue.
    fn drain(&mut self) {
        while self.next_out < self.next_seq {
            self.wait_one();
        }
        self.jobs = None;
    }

    /// Checks one file: maps it, finds its code objects and hands them
    /// out; names it if it cannot be checked. A file found in a directory
    /// that holds no code object (and whose name and first bytes do not say
    /// it should) is counted as skipped.
    fn file(&mut self, inp: &Input) {
        let path: Arc<str> = inp.path.display().to_string().into();
        self.summary.files += 1;
        let bytes = match input::map_reason(&inp.path) {
            Ok(b) => Arc::new(b),
            Err(e) => return self.failed(&path, None, &e),
        };
        let scan = container::scan(&bytes);
        if scan.not_a_code_object {
            match not_a_code_object(&inp.path, &bytes, inp.explicit) {
                Some(why) => self.failed(&path, None, &why),
                None => self.summary.skipped += 1,
            }
            return;
        }
        if scan.compressed.is_empty() {
            self.members(&bytes, &path, &scan.members);
        } else {
            // The worker scans the file again (finding bundles costs little
            // next to unpacking them) and reports what `Scan::for_each`
            // meets, in file order; the scan's own errors follow.
            self.submit(&path, None, Source::Unpack(Arc::clone(&bytes)));
        }
        for e in &scan.errors {
            self.failed(&path, None, e);
        }
    }

    /// Hands out the code objects of one mapped file, each as a range of
    /// the map (a scan of a file without compressed bundles gives slices
    /// of the bytes it was given; should one not be, the whole file goes
    /// to a worker as one job rather than be copied).
    fn members(&mut self, file: &Arc<Bytes>, path: &Arc<str>, members: &[container::Member]) {
        let base = file.as_ptr() as usize;
        let ranges: Option<Vec<Range<usize>>> = members
            .iter()
            .map(|m| {
                let start = (m.data.as_ptr() as usize).wrapping_sub(base);
                (start <= file.len() && m.data.len() <= file.len() - start)
                    .then(|| start..start + m.data.len())
            })
            .collect();
        let Some(ranges) = ranges else {
            return self.submit(path, None, Source::Unpack(Arc::clone(file)));
        };
        for (m, r) in members.iter().zip(ranges) {
            self.submit(path, m.name.clone(), Source::Mapped(Arc::clone(file), r));
        }
    }
}

/// Why a file that the scan says holds no code object cannot be checked,
/// or `None` if it is simply not a code object (skipped). A file named on
/// the command line must hold one; a file found in a directory is named
/// when its name or first bytes say it should be one.
pub(crate) fn not_a_code_object(path: &Path, bytes: &[u8], explicit: bool) -> Option<String> {
    const ELF_MAGIC: &[u8] = b"\x7fELF";
    // An ELF64 header is 64 bytes; shorter, even e_machine may be missing.
    const ELF64_HEADER: usize = 64;
    if bytes.is_empty() {
        return (explicit || input::named_like_code_object(path, false))
            .then(|| "empty file".to_owned());
    }
    if bytes.starts_with(ELF_MAGIC) && bytes.len() < ELF64_HEADER {
        return Some(format!(
            "truncated ELF file: {} bytes, shorter than an ELF64 header ({ELF64_HEADER} bytes)",
            bytes.len()
        ));
    }
    let elf = bytes.starts_with(ELF_MAGIC);
    if explicit {
        return Some(
            "not a code object: neither an AMDGPU ELF file, an offload bundle (compressed or not), nor an ELF file with a .hip_fatbin section or an embedded AMDGPU ELF image".to_owned(),
        );
    }
    if !elf && input::named_like_code_object(path, false) {
        return Some(format!(
            "named like a code object, but its {} bytes are neither an ELF file nor an offload bundle",
            bytes.len()
        ));
    }
    if elf && input::named_like_code_object(path, true) {
        return Some(
            "named like a code object, but it is an ELF file for another machine, without a .hip_fatbin section".to_owned(),
        );
    }
    None
}

/// The `check` command: checks `paths`, suppressing the findings that
/// `baseline` accepts. Returns the exit status.
pub fn run_check(paths: &[PathBuf], opts: Options, baseline: Option<&Baseline>) -> u8 {
    let ctx = Ctx { opts, baseline };
    let inputs = input::expand(paths);
    let mut out = hsaco_conform::output::buffered();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    let job_rx = Mutex::new(job_rx);
    match opts.format {
        ReportFormat::Json => {
            let _ = out.write_all(b"{\"files\":[");
        }
        ReportFormat::Sarif => {
            let mut head = Chunks::default();
            sarif::begin(&mut head);
            let _ = head.write_to(&mut out);
        }
        ReportFormat::Text => {}
    }
    let (summary, write_error, notes) = std::thread::scope(|s| {
        for _ in 0..workers {
            let done_tx = done_tx.clone();
            let job_rx = &job_rx;
            s.spawn(move || loop {
                let job = match job_rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => break,
                };
                let Ok(job) = job else { break };
                if done_tx.send(work(job, &ctx)).is_err() {
                    break;
                }
            });
        }
        drop(done_tx);
        let mut w = Writer {
            ctx,
            jobs: Some(job_tx),
            done: done_rx,
            window: WINDOW_PER_WORKER * workers,
            next_seq: 0,
            next_out: 0,
            pending: BTreeMap::new(),
            pending_bytes: 0,
            out: &mut out,
            wrote_entry: false,
            summary: Summary {
                skipped: inputs.skipped,
                files: inputs.skipped,
                duplicates: inputs.duplicates,
                ..Summary::default()
            },
            write_error: None,
            notes: Vec::new(),
        };
        for p in &inputs.problems {
            w.summary.files += 1;
            w.failed(&p.path.display().to_string(), None, &p.reason);
        }
        for inp in &inputs.files {
            if w.write_error.is_some() {
                break;
            }
            w.file(inp);
        }
        w.drain();
        (w.summary, w.write_error, w.notes)
    });
    if let Some(e) = write_error {
        return write_failed("check", &e);
    }
    let status = summary.exit_status(opts.fail_on);
    let written = match opts.format {
        ReportFormat::Json => out
            .write_all(b"],\"summary\":")
            .and_then(|()| serde_json::to_writer(&mut out, &summary).map_err(io::Error::from))
            .and_then(|()| match baseline {
                Some(b) => out.write_all(b",\"baseline\":").and_then(|()| {
                    serde_json::to_writer(&mut out, &baseline_json(b)).map_err(io::Error::from)
                }),
                None => Ok(()),
            })
            .and_then(|()| out.write_all(b"}\n")),
        ReportFormat::Sarif => sarif::end(&mut out, notes, &summary, status, baseline),
        ReportFormat::Text => {
            let mut line = summary_line(&summary);
            let mut stale = String::new();
            if let Some(b) = baseline {
                for e in b.stale() {
                    stale += &b.stale_line(e);
                    stale.push('\n');
                }
                line += &format!(", {} suppressed by baseline {}", b.suppressed(), b.path);
            }
            writeln!(out, "{stale}{line}")
        }
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        return write_failed("check", &e);
    }
    status
}

/// The text report's last line.
fn summary_line(s: &Summary) -> String {
    let mut line = format!(
        "checked {} code object{} ({} kernel{}) in {} file{}: {} error{}, {} warning{}, {} info{}",
        s.code_objects,
        plural(s.code_objects),
        s.kernels,
        plural(s.kernels),
        s.files,
        plural(s.files),
        s.errors,
        plural(s.errors),
        s.warnings,
        plural(s.warnings),
        s.infos,
        plural(s.infos),
    );
    if s.unreadable > 0 {
        line += &format!(", {} could not be checked", s.unreadable);
    }
    if s.skipped > 0 {
        line += &format!(", {} skipped (no code object)", s.skipped);
    }
    if s.duplicates > 0 {
        line += &format!(
            ", {} duplicate path{} skipped (same file)",
            s.duplicates,
            plural(s.duplicates)
        );
    }
    line
}

/// The `rules` command.
pub fn run_rules(json: bool) -> u8 {
    let stdout = io::stdout();
    match write_rules(&mut stdout.lock(), json) {
        Ok(()) => 0,
        Err(e) => write_failed("rules", &e),
    }
}

/// Writes the rule catalogue as `rules` prints it.
fn write_rules(out: &mut impl Write, json: bool) -> io::Result<()> {
    let rules: Vec<&hsaco_oracle::Rule> = hsaco_oracle::rules::catalogue().collect();
    if json {
        serde_json::to_writer_pretty(&mut *out, &serde_json::json!({ "rules": rules }))?;
        writeln!(out)?;
        return out.flush();
    }
    let mut group = "";
    for r in &rules {
        let g = r.id.split('.').next().unwrap_or("");
        if g != group {
            if !group.is_empty() {
                writeln!(out)?;
            }
            writeln!(out, "[{g}]")?;
            group = g;
        }
        writeln!(
            out,
            "{:<7} {}\n        {}\n        source: {}",
            r.severity.to_string(),
            r.id,
            r.statement,
            r.reference
        )?;
    }
    writeln!(out, "\n{} rules", rules.len())?;
    out.flush()
}

/// The checker allocates many small short-lived strings and vectors per
/// kernel (metadata values, messages, descriptor fields); mimalloc's
/// thread-local free lists cut the CPU time of `bench` on librocsparse by
/// about a fifth over the system allocator. Its `no_thp` feature keeps it
/// from backing its arenas with transparent huge pages, whose 2 MiB
/// zeroing on first touch showed up as system time.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rendered(s: &str) -> Vec<u8> {
        let mut out = Chunks::default();
        json_str(&mut out, s);
        let mut v = Vec::new();
        out.write_to(&mut v).expect("writing to memory");
        v
    }

    proptest! {
        /// The direct path writes what `serde_json` writes, for any string
        /// (escapes, control characters and non-ASCII included).
        #[test]
        fn json_str_is_serde_json(s in "(\\PC|[\"\\\\\\x00-\\x1f\\x7f])*") {
            prop_assert_eq!(rendered(&s), serde_json::to_vec(&s).expect("serialising"));
        }
    }

    /// Every combination of the optional fields, strings with and without
    /// escapes, and every severity.
    #[test]
    fn json_violation_is_serde_json() {
        let rules: Vec<_> = hsaco_oracle::rules::catalogue().take(3).collect();
        let mut n = 0;
        for rule in rules {
            for severity in [Severity::Info, Severity::Warning, Severity::Error] {
                for message in ["plain", "kernel 'a\"b': tab\there"] {
                    for offset in [None, Some(0), Some(u64::MAX)] {
                        for kernel in [None, Some("k"), Some("back\\slash\u{1}")] {
                            let v = Violation {
                                rule,
                                severity,
                                message: message.to_owned(),
                                offset,
                                kernel: kernel.map(str::to_owned),
                            };
                            let mut out = Chunks::default();
                            json_violation(&mut out, &v);
                            let mut got = Vec::new();
                            out.write_to(&mut got).expect("writing to memory");
                            assert_eq!(got, serde_json::to_vec(&v).expect("serialising"), "{v:?}");
                            n += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(n, 3 * 3 * 2 * 3 * 3);
    }

    #[test]
    fn json_str_examples() {
        for s in [
            "",
            "Cijk_Ailk_Bljk",
            "a\"b",
            "back\\slash",
            "tab\there",
            "\u{7f}é",
        ] {
            assert_eq!(
                rendered(s),
                serde_json::to_vec(s).expect("serialising"),
                "{s:?}"
            );
        }
    }
}
