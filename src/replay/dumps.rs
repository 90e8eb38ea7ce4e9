//! The dumps folder `replay --bundle DIR --out DUMPS` writes:
//!
//! ```text
//! DUMPS/runs.jsonl   one Record per case that ran (any outcome)
//! DUMPS/CASE.out     the raw output buffer of each case whose status is ok
//! ```
//!
//! A [`Record`] line: `{"case": ..., "status": "ok" | "loader_rejected" |
//! "not_comparable" | "timeout" | "crashed" | "error", "text": ...,
//! "addresses": probe::Addresses, "signature": run::Signature, "output":
//! "CASE.out"}` (`text` for every status but ok; `addresses`, `signature`
//! and `output` when the probe ran; `signature` also when the agent was
//! known). Each `CASE.out` is written as its case ends and `runs.jsonl` is
//! rewritten whole at most once a second and at the end, both through a
//! temporary file, synced (`files::write_durable`), so an interrupted run
//! loses at most the last second's records (those cases run again), and a
//! new run skips the cases `runs.jsonl` already names.
//!
//! [`read_runs`] and [`read_dump`] are what `replay --compare DIR DUMPS`
//! reads.

use std::path::{Path, PathBuf};

use hsaco_oracle::probe::{Addresses, Dump, DumpError, Plan};
use serde::{Deserialize, Serialize};

use super::run::{Outcome, Signature};

/// The records file's name.
pub const RUNS: &str = "runs.jsonl";

/// One case's line of `runs.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The case.
    pub case: String,
    /// How it ended.
    pub status: Outcome,
    /// Why, for every status but ok.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The addresses the harness used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addresses: Option<Addresses>,
    /// What it ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signature>,
    /// The output buffer's file in the dumps folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// The output file name of `case`: its name with every character but
/// ASCII letters, digits, `.`, `-` and `_` replaced by `_`, and `.out`.
pub fn output_name(case: &str) -> String {
    let mut s: String = case
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.starts_with('.') {
        s.insert(0, '_');
    }
    s.push_str(".out");
    s
}

/// Reads `DUMPS/runs.jsonl` (no file: no records). An error names the
/// line.
pub fn read_runs(dumps: &Path) -> Result<Vec<Record>, String> {
    let path = dumps.join(RUNS);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| {
                format!(
                    "{} line {}: not a replay record: {e}",
                    path.display(),
                    i + 1
                )
            })
        })
        .collect()
}

/// `runs.jsonl`'s text for `records`.
pub fn runs_text(records: &[Record]) -> String {
    let mut s = String::new();
    for r in records {
        // A record of plain data always serialises.
        if let Ok(l) = serde_json::to_string(r) {
            s.push_str(&l);
            s.push('\n');
        }
    }
    s
}

/// Where `record`'s output buffer is, when it has one.
pub fn output_path(dumps: &Path, record: &Record) -> Option<PathBuf> {
    record.output.as_ref().map(|o| dumps.join(o))
}

/// Why a case's dump could not be had.
#[derive(Debug)]
pub enum ReadDumpError {
    /// The case produced no output buffer (its status says why).
    NoOutput,
    /// The output file could not be read.
    Io(std::io::Error),
    /// The output buffer is not a probe's dump.
    Dump(DumpError),
}

impl std::fmt::Display for ReadDumpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadDumpError::NoOutput => f.write_str("the case has no output buffer"),
            ReadDumpError::Io(e) => write!(f, "cannot read the output buffer: {e}"),
            ReadDumpError::Dump(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadDumpError {}

/// The decoded dump of `plan`'s case from the dumps folder.
pub fn read_dump(dumps: &Path, plan: &Plan, record: &Record) -> Result<Dump, ReadDumpError> {
    let path = output_path(dumps, record).ok_or(ReadDumpError::NoOutput)?;
    let bytes = std::fs::read(path).map_err(ReadDumpError::Io)?;
    Dump::parse(&bytes, plan.lanes, plan.captured_sgprs).map_err(ReadDumpError::Dump)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_names_are_plain_file_names() {
        assert_eq!(output_name("sgpr.gfx90a.17"), "sgpr.gfx90a.17.out");
        assert_eq!(output_name("a/b c"), "a_b_c.out");
        assert_eq!(output_name("..x"), "_..x.out");
    }

    #[test]
    fn records_round_trip_and_bad_lines_are_named() {
        let d = tempfile::tempdir().expect("tmp");
        let recs = vec![
            Record {
                case: "a".into(),
                status: Outcome::Ok,
                text: None,
                addresses: Some(Addresses {
                    packet: 1,
                    queue: 2,
                    kernarg: 3,
                    output: 4,
                    packet_index: 0,
                }),
                signature: Some(Signature::default()),
                output: Some(output_name("a")),
            },
            Record {
                case: "b".into(),
                status: Outcome::LoaderRejected,
                text: Some("hsa_executable_load_agent_code_object returned ...".into()),
                addresses: None,
                signature: None,
                output: None,
            },
        ];
        std::fs::write(d.path().join(RUNS), runs_text(&recs)).expect("write");
        assert_eq!(read_runs(d.path()).expect("read"), recs);
        let line = runs_text(&recs[1..]);
        assert!(line.contains("\"status\":\"loader_rejected\""), "{line}");
        std::fs::write(d.path().join(RUNS), format!("{}{{}}\n", runs_text(&recs))).expect("write");
        let e = read_runs(d.path()).expect_err("bad");
        assert!(e.contains("runs.jsonl line 3: not a replay record"), "{e}");
        assert_eq!(read_runs(&d.path().join("none")).expect("absent"), vec![]);
    }
}
