//! `bench --packages`: `check` over whole package trees, one row per
//! package (the `realworld` benchmark of `scripts/realworld`).
//!
//! For each tree, `check --format json` runs as a child process of this
//! binary, exactly as a user runs it; its document gives the objects,
//! kernels, targets, code object versions, findings by severity and rule
//! (the omitted info findings counted in) and the inputs that could not be
//! checked. `llvm-readobj --notes` then reads the same code objects,
//! extracted to files, in two batched processes (as `bench` runs it). The
//! table is Markdown, so the README can carry it as printed.

use crate::bench;
use crate::input;
use hsaco_conform::out;
use serde::de::IgnoredAny;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The fields of `check --format json` this report reads.
#[derive(Deserialize)]
struct Document {
    files: Vec<Entry>,
    summary: Summary,
}

#[derive(Deserialize)]
struct Entry {
    path: String,
    member: Option<String>,
    target: Option<String>,
    code_object_version: Option<u8>,
    #[serde(default)]
    kernels: Vec<IgnoredAny>,
    #[serde(default)]
    violations: Vec<Finding>,
    #[serde(default)]
    omitted: Vec<Omitted>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct Finding {
    rule: String,
    severity: String,
}

#[derive(Deserialize)]
struct Omitted {
    rule: String,
    severity: String,
    count: u64,
}

#[derive(Deserialize)]
struct Summary {
    skipped: u64,
    duplicates: u64,
}

/// One package's figures.
#[derive(Default)]
struct Row {
    name: String,
    objects: u64,
    kernels: u64,
    targets: BTreeSet<String>,
    versions: BTreeSet<u8>,
    /// (severity, rule) → count.
    findings: BTreeMap<(String, String), u64>,
    /// Inputs that could not be checked: (path and member, reason).
    unchecked: Vec<(String, String)>,
    skipped: u64,
    duplicates: u64,
    check: Duration,
    check_cpu: Duration,
    readobj: Option<Duration>,
}

impl Row {
    fn count(&self, severity: &str) -> u64 {
        self.findings
            .iter()
            .filter(|((s, _), _)| s == severity)
            .map(|(_, n)| n)
            .sum()
    }
}

/// Runs `bench --packages`; returns the exit status (0, or 2 when a tree
/// cannot be measured).
pub fn run(trees: &[PathBuf], readobj: Option<&str>, repeat: u32) -> u8 {
    let mut rows = Vec::new();
    for (i, tree) in trees.iter().enumerate() {
        eprintln!(
            "hsaco-conform bench: package {}/{}: {}",
            i + 1,
            trees.len(),
            tree.display()
        );
        match measure(tree, readobj, repeat) {
            Ok(r) => rows.push(r),
            Err(e) => {
                eprintln!("hsaco-conform bench: {}: {e}", tree.display());
                return 2;
            }
        }
    }
    out!("{}", table(&rows, readobj));
    0
}

fn measure(tree: &Path, readobj: Option<&str>, repeat: u32) -> Result<Row, String> {
    if !tree.is_dir() {
        return Err("not a directory (give one unpacked package per path)".to_owned());
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let dir = bench::tempfile_dir("packages")?;
    let out = dir.join("check.json");
    let result = (|| {
        // `check` as users run it; its document is kept from the best run.
        let mut best: Option<hsaco_conform::measure::Run> = None;
        for _ in 0..repeat {
            let file = std::fs::File::create(&out)
                .map_err(|e| format!("cannot create {}: {e}", out.display()))?;
            let mut c = Command::new(&exe);
            c.args(["check", "--format", "json"])
                .arg(tree)
                .stdin(Stdio::null())
                .stdout(file)
                .stderr(Stdio::null());
            let (run, code) = hsaco_conform::measure::run_one(&mut c)?;
            if code > 2 {
                return Err(format!(
                    "`check --format json` exited with status {code} (run it alone to see why)"
                ));
            }
            if best.is_none_or(|b| run.wall < b.wall) {
                best = Some(run);
            }
        }
        let best = best.ok_or("no run")?;
        let reader = std::io::BufReader::new(
            std::fs::File::open(&out).map_err(|e| format!("cannot read {}: {e}", out.display()))?,
        );
        let doc: Document = serde_json::from_reader(reader)
            .map_err(|e| format!("check's JSON does not parse: {e}"))?;
        let mut row = Row {
            name: tree.file_name().map_or_else(
                || tree.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            check: best.wall,
            check_cpu: best.cpu,
            skipped: doc.summary.skipped,
            duplicates: doc.summary.duplicates,
            ..Row::default()
        };
        for e in doc.files {
            if let Some(err) = e.error {
                let at = match e.member {
                    Some(m) => format!("{} [{m}]", e.path),
                    None => e.path,
                };
                row.unchecked.push((at, err));
                continue;
            }
            row.objects += 1;
            row.kernels += e.kernels.len() as u64;
            if let Some(t) = e.target {
                row.targets
                    .insert(t.split(':').next().unwrap_or(&t).to_owned());
            }
            row.versions.extend(e.code_object_version);
            for f in e.violations {
                *row.findings.entry((f.severity, f.rule)).or_default() += 1;
            }
            for o in e.omitted {
                *row.findings.entry((o.severity, o.rule)).or_default() += o.count;
            }
        }
        if let Some(tool) = readobj {
            let inputs = input::expand(&[tree.to_path_buf()]);
            let mut files = Vec::with_capacity(inputs.files.len());
            for inp in &inputs.files {
                files.push((inp.path.clone(), input::map(&inp.path)?));
            }
            if row.objects > 0 {
                let (_, run) = bench::readobj_run(tool, &files, repeat)?;
                row.readobj = Some(run.wall);
            }
        }
        Ok(row)
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn secs(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64())
}

/// The Markdown report: the table, then each package's findings by rule
/// and the inputs it could not check.
fn table(rows: &[Row], readobj: Option<&str>) -> String {
    let mut s = String::new();
    let tool = readobj.unwrap_or("llvm-readobj");
    let _ = writeln!(
        s,
        "\n| package | objects | kernels | targets | code object versions | errors | warnings | infos | not checked | `check` s (CPU s) | `{tool} --notes` s | ratio |"
    );
    let _ = writeln!(
        s,
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    let mut total = Row::default();
    for r in rows {
        let versions: Vec<String> = r.versions.iter().map(|v| format!("V{v}")).collect();
        let (theirs, ratio) = match r.readobj {
            Some(t) => (
                secs(t),
                format!("{:.1}x", t.as_secs_f64() / r.check.as_secs_f64().max(1e-9)),
            ),
            None => ("-".to_owned(), "-".to_owned()),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) | {theirs} | {ratio} |",
            r.name,
            r.objects,
            r.kernels,
            r.targets.len(),
            if versions.is_empty() {
                "-".to_owned()
            } else {
                versions.join(", ")
            },
            r.count("error"),
            r.count("warning"),
            r.count("info"),
            r.unchecked.len(),
            secs(r.check),
            secs(r.check_cpu),
        );
        total.objects += r.objects;
        total.kernels += r.kernels;
        total.targets.extend(r.targets.iter().cloned());
        total.versions.extend(r.versions.iter().copied());
        for (k, n) in &r.findings {
            *total.findings.entry(k.clone()).or_default() += n;
        }
        total.unchecked.extend(r.unchecked.iter().cloned());
        total.check += r.check;
        total.check_cpu += r.check_cpu;
    }
    // The total time of llvm-readobj only when every package has one.
    total.readobj = rows
        .iter()
        .filter(|r| r.objects > 0)
        .map(|r| r.readobj)
        .sum::<Option<Duration>>();
    let versions: Vec<String> = total.versions.iter().map(|v| format!("V{v}")).collect();
    let (theirs, ratio) = match total.readobj {
        Some(t) => (
            secs(t),
            format!(
                "{:.1}x",
                t.as_secs_f64() / total.check.as_secs_f64().max(1e-9)
            ),
        ),
        None => ("-".to_owned(), "-".to_owned()),
    };
    let _ = writeln!(
        s,
        "| **all {} packages** | {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) | {theirs} | {ratio} |",
        rows.len(),
        total.objects,
        total.kernels,
        total.targets.len(),
        versions.join(", "),
        total.count("error"),
        total.count("warning"),
        total.count("info"),
        total.unchecked.len(),
        secs(total.check),
        secs(total.check_cpu),
    );
    let _ = writeln!(s, "\nFindings by rule (errors and warnings must each be a real defect of the shipped object, listed in docs/realworld.md):\n");
    for r in rows {
        let mut parts: Vec<String> = r
            .findings
            .iter()
            .map(|((sev, rule), n)| (sev_rank(sev), format!("{rule} ({sev}) {n}")))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        if parts.is_empty() {
            parts.push("none".to_owned());
        }
        let extra = if r.duplicates > 0 || r.skipped > 0 {
            format!(
                " ({} files without code objects, {} duplicate paths skipped)",
                r.skipped, r.duplicates
            )
        } else {
            String::new()
        };
        let _ = writeln!(s, "- {}{extra}: {}", r.name, parts.join(", "));
        for (at, why) in &r.unchecked {
            let _ = writeln!(s, "  - not checked: {at}: {why}");
        }
    }
    s
}

/// Errors first, then warnings, then infos.
fn sev_rank(s: &str) -> u8 {
    match s {
        "error" => 0,
        "warning" => 1,
        _ => 2,
    }
}
