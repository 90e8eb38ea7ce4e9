//! `check --baseline FILE`: findings known and accepted, which neither fail
//! the run nor show as findings.
//!
//! The file is TOML, one `[[suppress]]` table per accepted finding:
//!
//! ```toml
//! [[suppress]]
//! rule = "kd.rsrc1.granulated_sgpr_count"   # a rule id of `hsaco-conform rules`
//! file = "build/gfx1030/kernels.hsaco"      # optional
//! member = "hipv4-amdgcn-amd-amdhsa--gfx1030" # optional: a bundle entry
//! kernel = "scale"                          # optional
//! reason = "LLVM 19 rounds the SGPR granule up; harmless (issue 12)"
//! ```
//!
//! An entry matches a finding when every key it gives matches: `rule` the
//! finding's rule id; `file` the path as the report names it, either whole
//! or a trailing part of it that starts after a `/` (`kernels.hsaco` and
//! `gfx1030/kernels.hsaco` match `build/gfx1030/kernels.hsaco`, `nels.hsaco`
//! does not); `member` the bundle entry's name exactly; `kernel` the
//! kernel's name exactly. A finding is suppressed by the first entry that
//! matches it. Findings counted but not kept (past the per-rule cap) carry
//! no kernel, so only entries without `kernel` suppress them. An entry that
//! suppressed nothing is stale; stale entries are reported but do not
//! change the exit status.
//!
//! Any problem with the file (missing, not UTF-8, invalid TOML, an unknown
//! key, an unknown rule id, a missing or empty `reason`, an empty matcher)
//! is one line naming the file and, where it can, the line.

use crate::input;
use hsaco_oracle::check::ObjectReport;
use hsaco_oracle::rules::{Omitted, Rule};
use hsaco_oracle::Violation;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use toml::Spanned;

/// One accepted finding (or family of findings) of a baseline file.
#[derive(Debug, Serialize)]
pub struct Entry {
    /// Position in the file, from 1.
    pub entry: usize,
    /// Line of the entry's `rule` key, from 1.
    pub line: usize,
    /// The rule whose findings it suppresses.
    #[serde(serialize_with = "rule_id")]
    pub rule: &'static Rule,
    /// The report's path, or a trailing part of it after a `/`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The bundle entry's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
    /// The kernel's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// Why the finding is accepted.
    pub reason: String,
}

fn rule_id<S: serde::Serializer>(r: &&'static Rule, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(r.id)
}

impl Entry {
    fn matches(&self, path: &str, member: Option<&str>, rule: &Rule, kernel: Option<&str>) -> bool {
        self.rule.id == rule.id
            && self.file.as_deref().is_none_or(|f| file_matches(f, path))
            && self.member.as_deref().is_none_or(|m| member == Some(m))
            && self.kernel.as_deref().is_none_or(|k| kernel == Some(k))
    }

    /// `entry N at line L (rule X, file F, member M, kernel K)`: how
    /// messages name an entry.
    pub fn describe(&self) -> String {
        let mut what = format!("rule {}", self.rule.id);
        for (key, v) in [
            ("file", &self.file),
            ("member", &self.member),
            ("kernel", &self.kernel),
        ] {
            if let Some(v) = v {
                what += &format!(", {key} {v}");
            }
        }
        format!("entry {} at line {} ({what})", self.entry, self.line)
    }
}

/// True if `pattern` names `path`: the whole of it, or a trailing part that
/// starts after a `/` (so that a baseline holds whichever directory the
/// run starts from, and `a.hsaco` never matches `data.hsaco`).
fn file_matches(pattern: &str, path: &str) -> bool {
    path == pattern
        || path
            .strip_suffix(pattern)
            .is_some_and(|head| head.ends_with('/'))
}

/// A loaded baseline, with how many findings each entry has suppressed so
/// far in this run (shared by the workers).
#[derive(Debug)]
pub struct Baseline {
    /// The file, as named on the command line.
    pub path: String,
    /// The entries, in file order.
    pub entries: Vec<Entry>,
    used: Vec<AtomicUsize>,
}

/// The findings of one code object that a baseline suppressed, each with
/// the index (in [`Baseline::entries`]) of the entry that did.
#[derive(Default)]
pub struct Suppressed {
    /// Kept findings.
    pub violations: Vec<(Violation, usize)>,
    /// Counts of findings not kept (past the per-rule cap).
    pub omitted: Vec<(Omitted, usize)>,
}

/// The keys of a `[[suppress]]` table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    rule: Spanned<String>,
    file: Option<Spanned<String>>,
    member: Option<Spanned<String>>,
    kernel: Option<Spanned<String>>,
    reason: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    suppress: Vec<RawEntry>,
}

/// Line (from 1) of byte `at` of `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

impl Baseline {
    /// Reads and checks a baseline file. The error is one line naming the
    /// file.
    pub fn load(path: &Path) -> Result<Baseline, String> {
        let name = path.display().to_string();
        let bytes = input::map(path).map_err(|e| format!("baseline {e}"))?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| format!("baseline {name}: not UTF-8 text ({e})"))?;
        Baseline::parse(text, &name)
    }

    /// Parses and checks the text of a baseline file named `name`.
    pub fn parse(text: &str, name: &str) -> Result<Baseline, String> {
        let at = |span: std::ops::Range<usize>| {
            format!("baseline {name}: line {}", line_of(text, span.start))
        };
        let raw: RawFile = toml::from_str(text).map_err(|e| {
            // toml's Display quotes the offending lines over several; one
            // line with the line number says the same.
            let msg = e.message().trim().replace('\n', "; ");
            match e.span() {
                Some(s) => format!("{}: {msg}", at(s)),
                None => format!("baseline {name}: {msg}"),
            }
        })?;
        let mut entries = Vec::with_capacity(raw.suppress.len());
        for (i, e) in raw.suppress.into_iter().enumerate() {
            let id = e.rule.get_ref();
            let rule = hsaco_oracle::rules::find(id).ok_or_else(|| {
                format!(
                    "{}: unknown rule id {id:?} (`hsaco-conform rules` lists them)",
                    at(e.rule.span())
                )
            })?;
            if e.reason.get_ref().trim().is_empty() {
                return Err(format!(
                    "{}: empty reason: say why the finding is accepted",
                    at(e.reason.span())
                ));
            }
            let matcher = |key: &str, v: Option<Spanned<String>>| match v {
                Some(v) if v.get_ref().is_empty() => Err(format!(
                    "{}: empty {key} (leave the key out to match any {key})",
                    at(v.span())
                )),
                v => Ok(v.map(Spanned::into_inner)),
            };
            entries.push(Entry {
                entry: i + 1,
                line: line_of(text, e.rule.span().start),
                rule,
                file: matcher("file", e.file)?,
                member: matcher("member", e.member)?,
                kernel: matcher("kernel", e.kernel)?,
                reason: e.reason.into_inner(),
            });
        }
        let used = entries.iter().map(|_| AtomicUsize::new(0)).collect();
        Ok(Baseline {
            path: name.to_owned(),
            entries,
            used,
        })
    }

    /// The first entry that matches a finding, if any.
    fn find(
        &self,
        path: &str,
        member: Option<&str>,
        rule: &Rule,
        kernel: Option<&str>,
    ) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| e.matches(path, member, rule, kernel))
    }

    /// Moves the findings of `r` that an entry matches out of it, and
    /// counts them against their entries.
    pub fn apply(&self, path: &str, member: Option<&str>, r: &mut ObjectReport) -> Suppressed {
        let mut out = Suppressed::default();
        if self.entries.is_empty() {
            return out;
        }
        let mut kept = Vec::with_capacity(r.violations.len());
        for v in r.violations.drain(..) {
            match self.find(path, member, v.rule, v.kernel.as_deref()) {
                Some(i) => {
                    self.used[i].fetch_add(1, Ordering::Relaxed);
                    out.violations.push((v, i));
                }
                None => kept.push(v),
            }
        }
        r.violations = kept;
        let mut kept = Vec::with_capacity(r.omitted.len());
        for o in r.omitted.drain(..) {
            match self.find(path, member, o.rule, None) {
                Some(i) => {
                    self.used[i].fetch_add(o.count, Ordering::Relaxed);
                    out.omitted.push((o, i));
                }
                None => kept.push(o),
            }
        }
        r.omitted = kept;
        out
    }

    /// Findings suppressed so far.
    pub fn suppressed(&self) -> usize {
        self.used.iter().map(|u| u.load(Ordering::Relaxed)).sum()
    }

    /// The entries that have suppressed nothing so far, in file order.
    pub fn stale(&self) -> Vec<&Entry> {
        self.entries
            .iter()
            .zip(&self.used)
            .filter(|(_, u)| u.load(Ordering::Relaxed) == 0)
            .map(|(e, _)| e)
            .collect()
    }

    /// The report's line about a stale entry.
    pub fn stale_line(&self, e: &Entry) -> String {
        format!("baseline {}: {} matched nothing", self.path, e.describe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_matches_whole_paths_and_trailing_components() {
        assert!(file_matches("a.hsaco", "a.hsaco"));
        assert!(file_matches("a.hsaco", "build/a.hsaco"));
        assert!(file_matches("build/a.hsaco", "./build/a.hsaco"));
        assert!(file_matches("/abs/a.hsaco", "/abs/a.hsaco"));
        assert!(!file_matches("a.hsaco", "data.hsaco"));
        assert!(!file_matches("build/a.hsaco", "a.hsaco"));
        assert!(!file_matches("a.hsaco", "a.hsaco.bak"));
    }

    #[test]
    fn errors_are_one_line_with_the_line_number() {
        let cases = [
            (
                "[[suppress]]\nrule = \"elf.ident.pad\"\n",
                "line 1: missing field `reason`",
            ),
            (
                "[[suppress]]\nrule = \"no.such.rule\"\nreason = \"x\"\n",
                "line 2: unknown rule id \"no.such.rule\"",
            ),
            (
                "[[suppress]]\nrule = \"elf.ident.pad\"\nreason = \"  \"\n",
                "line 3: empty reason",
            ),
            (
                "[[suppress]]\nrule = \"elf.ident.pad\"\nreason = \"x\"\nkernal = \"k\"\n",
                "line 4: unknown field `kernal`",
            ),
            (
                "[[suppress]]\nrule = \"elf.ident.pad\"\nfile = \"\"\nreason = \"x\"\n",
                "line 3: empty file",
            ),
            ("[[suppress]\n", "line 1: "),
            ("supress = []\n", "line 1: unknown field `supress`"),
        ];
        for (text, want) in cases {
            let e = Baseline::parse(text, "b.toml").expect_err(text);
            assert!(e.starts_with("baseline b.toml: "), "{e}");
            assert!(e.contains(want), "{text:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn an_empty_file_suppresses_nothing() {
        let b = Baseline::parse("", "b.toml").expect("parses");
        assert!(b.entries.is_empty() && b.stale().is_empty());
    }
}
