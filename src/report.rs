//! The `check` and `rules` commands: running the oracle over inputs and
//! printing text or JSON reports.

use crate::input::{self, Input};
use hsaco_oracle::check::{check_object_with, Detail, ObjectReport};
use hsaco_oracle::container;
use hsaco_oracle::{Severity, Violation};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// The result for one code object (or one input that could not be read).
#[derive(Serialize)]
pub struct FileEntry {
    /// The file.
    pub path: String,
    /// Bundle entry inside the file, or null for a plain code object.
    pub member: Option<String>,
    /// Target ID from `e_flags`.
    pub target: Option<String>,
    /// Code object version (2-6).
    pub code_object_version: Option<u8>,
    /// `ET_REL` / `ET_DYN`.
    pub elf_type: Option<String>,
    /// Kernels with their descriptor fields and SGPR layout.
    pub kernels: Vec<hsaco_oracle::check::KernelReport>,
    /// Broken rules.
    pub violations: Vec<Violation>,
    /// Why the input could not be checked, if it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Totals over a run.
#[derive(Serialize, Default)]
pub struct Summary {
    /// Input files examined.
    pub files: usize,
    /// Code objects checked.
    pub code_objects: usize,
    /// Kernels found.
    pub kernels: usize,
    /// Violations of error severity.
    pub errors: usize,
    /// Violations of warning severity.
    pub warnings: usize,
    /// Violations of info severity.
    pub infos: usize,
    /// Code objects with no error.
    pub clean: usize,
    /// Inputs that could not be checked.
    pub unreadable: usize,
    /// Files in directories skipped because they hold no code object.
    pub skipped: usize,
}

impl Summary {
    fn add(&mut self, e: &FileEntry) {
        if e.error.is_some() {
            self.unreadable += 1;
            return;
        }
        self.code_objects += 1;
        self.kernels += e.kernels.len();
        let mut errs = 0;
        for v in &e.violations {
            match v.severity {
                Severity::Error => errs += 1,
                Severity::Warning => self.warnings += 1,
                Severity::Info => self.infos += 1,
            }
        }
        self.errors += errs;
        if errs == 0 {
            self.clean += 1;
        }
    }
}

fn entry(path: &str, member: Option<String>, r: ObjectReport) -> FileEntry {
    FileEntry {
        path: path.to_owned(),
        member,
        target: r.target,
        code_object_version: r.code_object_version,
        elf_type: r.elf_type,
        kernels: r.kernels,
        violations: r.violations,
        error: None,
    }
}

fn failed(path: &str, member: Option<String>, error: String) -> FileEntry {
    FileEntry {
        path: path.to_owned(),
        member,
        target: None,
        code_object_version: None,
        elf_type: None,
        kernels: Vec::new(),
        violations: Vec::new(),
        error: Some(error),
    }
}

/// Checks every code object of one file, in parallel across members, and
/// hands each entry to `each` in member order; false if the file was found
/// in a directory and holds no code object. `detail` says how much of the
/// typed view each entry carries.
pub fn check_file(inp: &Input, detail: Detail, each: &mut dyn FnMut(FileEntry)) -> bool {
    let path = inp.path.display().to_string();
    let bytes = match input::map(&inp.path) {
        Ok(b) => b,
        Err(e) => {
            each(failed(&path, None, e));
            return true;
        }
    };
    let scan = container::scan(&bytes);
    if scan.not_a_code_object {
        if inp.explicit {
            each(failed(
                &path,
                None,
                "not a code object: neither an AMDGPU ELF file, an offload bundle (compressed or not), nor an ELF file with a .hip_fatbin section or an embedded AMDGPU ELF image".to_owned(),
            ));
        }
        return inp.explicit;
    }
    // Compressed bundles are unpacked one at a time, their members checked
    // on all cores, and dropped before the next.
    scan.for_each(container::DEFAULT_UNPACK_LIMIT, &mut |v| match v {
        container::Visit::Members(ms) => for_each_member(&path, ms, detail, each),
        container::Visit::Failed { at, error } => each(failed(&path, Some(at), error)),
    });
    for e in scan.errors {
        each(failed(&path, None, e));
    }
    true
}

/// Runs the oracle over members on all cores and hands each entry to
/// `each` in member order, as soon as it and every earlier one are done.
/// Streaming (rather than collecting every entry of a file first) keeps
/// memory flat on libraries with hundreds of objects and lets the caller
/// print while the workers check.
pub fn for_each_member(
    path: &str,
    members: &[container::Member],
    detail: Detail,
    each: &mut dyn FnMut(FileEntry),
) {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(members.len().max(1));
    if threads <= 1 {
        for m in members {
            each(entry(
                path,
                m.name.clone(),
                check_object_with(m.data, detail),
            ));
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, FileEntry)>();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let tx = tx.clone();
            let next = &next;
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(m) = members.get(i) else { break };
                let e = entry(path, m.name.clone(), check_object_with(m.data, detail));
                if tx.send((i, e)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        // Entries arrive in completion order; release them in member order.
        let mut pending: BTreeMap<usize, FileEntry> = BTreeMap::new();
        let mut want = 0usize;
        for (i, e) in rx {
            pending.insert(i, e);
            while let Some(e) = pending.remove(&want) {
                each(e);
                want += 1;
            }
        }
    });
}

/// The `check` command. Returns the exit status.
pub fn run_check(paths: &[PathBuf], json: bool, verbose: bool) -> u8 {
    let (inputs, walk_errors) = input::expand(paths);
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut summary = Summary::default();
    let mut first = true;
    // Text output shows only violations and counts, so it skips building
    // descriptor fields, register layouts and metadata copies.
    let detail = if json {
        Detail::Full
    } else {
        Detail::Violations
    };
    if json {
        let _ = out.write_all(b"{\"files\":[");
    }
    let mut emit = |e: FileEntry, summary: &mut Summary, out: &mut dyn Write| {
        summary.add(&e);
        if json {
            if !first {
                let _ = out.write_all(b",");
            }
            first = false;
            let _ = serde_json::to_writer(&mut *out, &e);
        } else {
            print_text(&e, verbose, out);
        }
    };
    for err in walk_errors {
        summary.files += 1;
        emit(
            failed(&err, None, "cannot read this path".to_owned()),
            &mut summary,
            &mut out,
        );
    }
    for inp in &inputs {
        summary.files += 1;
        let found = check_file(inp, detail, &mut |e| emit(e, &mut summary, &mut out));
        if !found {
            summary.skipped += 1;
        }
    }
    if json {
        let _ = out.write_all(b"],\"summary\":");
        let _ = serde_json::to_writer(&mut out, &summary);
        let _ = out.write_all(b"}\n");
    } else {
        let _ = writeln!(
            out,
            "checked {} code object{} ({} kernel{}) in {} file{}: {} error{}, {} warning{}, {} info{}{}{}",
            summary.code_objects,
            plural(summary.code_objects),
            summary.kernels,
            plural(summary.kernels),
            summary.files,
            plural(summary.files),
            summary.errors,
            plural(summary.errors),
            summary.warnings,
            plural(summary.warnings),
            summary.infos,
            plural(summary.infos),
            if summary.unreadable > 0 { format!(", {} could not be checked", summary.unreadable) } else { String::new() },
            if summary.skipped > 0 { format!(", {} skipped (no code object)", summary.skipped) } else { String::new() },
        );
    }
    let _ = out.flush();
    if summary.unreadable > 0 {
        2
    } else if summary.errors > 0 {
        1
    } else {
        0
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Prints one entry for people: nothing for an object with no findings to
/// show (the summary counts it), else its header line and violations
/// grouped by kernel. Info-level findings show only when `verbose`.
pub fn print_text(e: &FileEntry, verbose: bool, out: &mut dyn Write) {
    let name = match &e.member {
        Some(m) => format!("{} [{m}]", e.path),
        None => e.path.clone(),
    };
    if let Some(err) = &e.error {
        let _ = writeln!(out, "{name}: could not check: {err}");
        return;
    }
    let shown: Vec<&Violation> = e
        .violations
        .iter()
        .filter(|v| verbose || v.severity != Severity::Info)
        .collect();
    if shown.is_empty() {
        return;
    }
    let what = match (&e.target, e.code_object_version) {
        (Some(t), Some(v)) => format!("{t}, code object V{v}"),
        (None, Some(v)) => format!("unknown target, code object V{v}"),
        _ => "unreadable header".to_owned(),
    };
    let _ = writeln!(
        out,
        "{name}: {what}, {} kernel{}",
        e.kernels.len(),
        plural(e.kernels.len())
    );
    let mut kernels: Vec<Option<&str>> = Vec::new();
    for v in &shown {
        if !kernels.contains(&v.kernel.as_deref()) {
            kernels.push(v.kernel.as_deref());
        }
    }
    for k in kernels {
        let indent = if let Some(k) = k {
            let _ = writeln!(out, "  kernel {k}:");
            "    "
        } else {
            "  "
        };
        for v in shown.iter().filter(|v| v.kernel.as_deref() == k) {
            let at = v.offset.map_or(String::new(), |o| format!(" (at {o:#x})"));
            let _ = writeln!(
                out,
                "{indent}{:<7} {}: {}{at}",
                v.severity.to_string(),
                v.rule.id,
                v.message
            );
        }
    }
}

/// The `rules` command.
pub fn run_rules(json: bool) -> u8 {
    let rules: Vec<&hsaco_oracle::Rule> = hsaco_oracle::rules::catalogue().collect();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if json {
        let _ = serde_json::to_writer_pretty(&mut out, &serde_json::json!({ "rules": rules }));
        let _ = writeln!(out);
        return 0;
    }
    let mut group = "";
    for r in &rules {
        let g = r.id.split('.').next().unwrap_or("");
        if g != group {
            if !group.is_empty() {
                let _ = writeln!(out);
            }
            let _ = writeln!(out, "[{g}]");
            group = g;
        }
        let _ = writeln!(
            out,
            "{:<7} {}\n        {}\n        source: {}",
            r.severity.to_string(),
            r.id,
            r.statement,
            r.reference
        );
    }
    let _ = writeln!(out, "\n{} rules", rules.len());
    0
}

/// The checker allocates many small short-lived strings and vectors per
/// kernel (metadata values, messages, descriptor fields); mimalloc's
/// thread-local free lists cut the CPU time of `bench` on librocsparse by
/// about a fifth over the system allocator. Its `no_thp` feature keeps it
/// from backing its arenas with transparent huge pages, whose 2 MiB
/// zeroing on first touch showed up as system time.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
