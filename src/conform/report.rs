//! Reports of a run: the summary table, JSON (for scripts), JUnit XML (for
//! CI systems) and one self-contained HTML page.
//!
//! # JSON
//!
//! ```json
//! {"tool": "hsaco-conform", "version": "0.1.0", "command": "conform",
//!  "options": {...}, "allowlist": "built-in corpus/allowlist.toml",
//!  "peers": [{"id": "libllvm-19", "family": "libllvm", "component": "llvm",
//!             "version": 19, "location": "/usr/lib/.../libLLVM.so.19.1"}],
//!  "matrix": [{"comparison": "smem-disasm", "peer": "libllvm-19", "reference": false,
//!              "compared": 40000, "same": 38812, "known": 1188, "different": 0,
//!              "informational": 0, "not_comparable": 0, "crashed": 0, "timed_out": 0,
//!              "seconds": 0.21, "per_second": 190476.2, "not_comparable_reasons": {}}],
//!  "known": [{"id": "smem.misaligned-tuple", "count": 1021, "reason": "..."}],
//!  "findings": [{"id": "...", "signature": {...}, "message": "...", ...}],
//!  "skipped": [{"comparison": "smem-disasm", "target": "gfx700", "reason": "..."}],
//!  "warnings": [],
//!  "summary": {"units": 14, "resumed": 0, "compared": 280000, "same": 277000,
//!              "known": 2990, "different": 0, "informational": 0, "not_comparable": 10,
//!              "crashed": 0, "timed_out": 0, "new_findings": 0,
//!              "informational_findings": 0, "seconds": 41.3, "exit": 0}}
//! ```
//!
//! `findings` holds the [`super::findings::Finding`] objects (`manifest.jsonl`
//! has a one-line summary of each), informational ones (a peer that reads
//! an invalid object without complaint) with `"informational": true`; only
//! the others count in `new_findings` and the exit status. Field names are
//! stable.

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::allowlist::Allowlist;
use super::engine::{Counts, RunResult};
use super::findings::Finding;
use super::Peer;

/// Not-comparable reasons the text report lists per cell (the most
/// frequent; it counts the others and says where they are).
const TEXT_REASONS: usize = 8;

/// Totals over the matrix.
pub fn totals(r: &RunResult) -> Counts {
    let mut t = Counts::default();
    for c in r.cells.values() {
        t.merge(c);
    }
    t.reasons.clear();
    t
}

/// Exit status of a run: 0 no new finding, 1 new findings (informational
/// findings do not count).
pub fn exit_code(r: &RunResult) -> u8 {
    u8::from(r.new_findings() > 0)
}

/// The new findings (informational ones left out).
fn new_findings(r: &RunResult) -> impl Iterator<Item = &Finding> {
    r.findings.iter().filter(|f| !f.informational)
}

/// The informational findings.
fn informational(r: &RunResult) -> impl Iterator<Item = &Finding> {
    r.findings.iter().filter(|f| f.informational)
}

fn cell_json(comparison: &str, peer: &str, reference: bool, c: &Counts) -> Value {
    let secs = c.nanos as f64 / 1e9;
    json!({
        "comparison": comparison,
        "peer": peer,
        "reference": reference,
        "compared": c.compared,
        "same": c.same,
        "known": c.known,
        "different": c.different,
        "informational": c.informational,
        "not_comparable": c.not_comparable,
        "crashed": c.crashed,
        "timed_out": c.timed_out,
        "seconds": (secs * 1000.0).round() / 1000.0,
        "per_second": (c.rate() * 10.0).round() / 10.0,
        "not_comparable_reasons": c.reasons,
    })
}

/// The JSON document.
pub fn json(
    command: &str,
    options: Value,
    peers: &[Box<dyn Peer>],
    allowlist: &Allowlist,
    r: &RunResult,
) -> Value {
    let t = totals(r);
    let known: Vec<Value> = allowlist
        .entries
        .iter()
        .map(|e| {
            json!({
                "id": e.id,
                "count": r.known.get(&e.id).copied().unwrap_or(0),
                "reason": e.reason,
            })
        })
        .collect();
    json!({
        "tool": "hsaco-conform",
        "version": env!("CARGO_PKG_VERSION"),
        "command": command,
        "options": options,
        "allowlist": allowlist.source,
        "peers": peers.iter().map(|p| p.info()).map(|p| json!({
            "id": p.id,
            "family": p.family,
            "component": p.component,
            "version": p.version,
            "location": p.location,
            "comparisons": p.comparisons,
        })).collect::<Vec<_>>(),
        "matrix": r.cells.iter().map(|((c, p), counts)| {
            cell_json(c, p, r.references.get(c) == Some(p), counts)
        }).collect::<Vec<_>>(),
        "known": known,
        "findings": r.findings,
        "skipped": r.skipped.iter().map(|(c, t, why)| json!({
            "comparison": c, "target": t, "reason": why
        })).collect::<Vec<_>>(),
        "warnings": r.warnings,
        "summary": {
            "units": r.units,
            "resumed": r.resumed,
            "compared": t.compared,
            "same": t.same,
            "known": t.known,
            "different": t.different,
            "informational": t.informational,
            "not_comparable": t.not_comparable,
            "crashed": t.crashed,
            "timed_out": t.timed_out,
            "new_findings": r.new_findings(),
            "informational_findings": r.informational(),
            "seconds": (r.seconds * 1000.0).round() / 1000.0,
            "exit": exit_code(r),
        },
    })
}

/// The summary table (peer × comparison) and the findings, for people.
pub fn text(r: &RunResult, allowlist: &Allowlist) -> String {
    let mut s = String::new();
    let head = [
        "comparison",
        "peer",
        "compared",
        "same",
        "known",
        "different",
        "info",
        "n/c",
        "crashed",
        "timed out",
        "per s",
    ];
    let mut rows: Vec<[String; 11]> = Vec::new();
    for ((c, p), k) in &r.cells {
        let peer = if r.references.get(c) == Some(p) {
            format!("{p} (reference)")
        } else {
            p.clone()
        };
        rows.push([
            c.clone(),
            peer,
            k.compared.to_string(),
            k.same.to_string(),
            k.known.to_string(),
            k.different.to_string(),
            k.informational.to_string(),
            k.not_comparable.to_string(),
            k.crashed.to_string(),
            k.timed_out.to_string(),
            format!("{:.0}", k.rate()),
        ]);
    }
    let t = totals(r);
    rows.push([
        "total".to_owned(),
        String::new(),
        t.compared.to_string(),
        t.same.to_string(),
        t.known.to_string(),
        t.different.to_string(),
        t.informational.to_string(),
        t.not_comparable.to_string(),
        t.crashed.to_string(),
        t.timed_out.to_string(),
        String::new(),
    ]);
    let mut w = [0usize; 11];
    for (k, h) in head.iter().enumerate() {
        w[k] = h.len();
    }
    for row in &rows {
        for (k, cell) in row.iter().enumerate() {
            w[k] = w[k].max(cell.len());
        }
    }
    let line = |s: &mut String, cells: &[String]| {
        for (k, c) in cells.iter().enumerate() {
            if k < 2 {
                let _ = write!(s, "{c:<width$}  ", width = w[k]);
            } else {
                let _ = write!(s, "{c:>width$}  ", width = w[k]);
            }
        }
        let trimmed = s.trim_end().len();
        s.truncate(trimmed);
        s.push('\n');
    };
    let h: Vec<String> = head.iter().map(|x| (*x).to_owned()).collect();
    line(&mut s, &h);
    for row in &rows {
        line(&mut s, row);
    }
    for ((c, p), k) in &r.cells {
        // The most frequent first; a cell can have a reason per processor.
        let mut reasons: Vec<(&String, &u64)> = k.reasons.iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (why, n) in reasons.iter().take(TEXT_REASONS) {
            let _ = writeln!(s, "  not comparable: {c} {p}: {why} ({n})");
        }
        let rest = &reasons[reasons.len().min(TEXT_REASONS)..];
        if !rest.is_empty() {
            let inputs: u64 = rest.iter().map(|(_, n)| **n).sum();
            let _ = writeln!(
                s,
                "  not comparable: {c} {p}: {} input(s) for {} more reasons (the --json report and the --html page list every reason)",
                inputs,
                rest.len()
            );
        }
    }
    // One line per comparison and reason, naming its processors (a
    // comparison that does not apply to given objects skips them all).
    let mut skipped: Vec<(&str, &str, Vec<&str>)> = Vec::new();
    for (c, t, why) in &r.skipped {
        match skipped.iter_mut().find(|(c2, w2, _)| c2 == c && w2 == why) {
            Some(e) => e.2.push(t),
            None => skipped.push((c, why, vec![t])),
        }
    }
    for (c, why, ts) in skipped {
        let _ = writeln!(s, "  skipped: {c} on {}: {why}", ts.join(", "));
    }
    let hits: Vec<(&String, &u64)> = r.known.iter().filter(|(_, n)| **n > 0).collect();
    if !hits.is_empty() {
        let _ = writeln!(s, "known (allowlist {}):", allowlist.source);
        for (id, n) in hits {
            let _ = writeln!(s, "  {id}: {n}");
        }
    }
    if r.new_findings() == 0 {
        let _ = writeln!(s, "no new findings");
    } else {
        let _ = writeln!(s, "{} new finding(s):", r.new_findings());
        for f in new_findings(r) {
            finding_text(&mut s, f);
        }
    }
    if r.informational() > 0 {
        let _ = writeln!(
            s,
            "{} informational finding(s) (peers that read invalid objects without complaint, divergences a peer has fixed; not new findings):",
            r.informational()
        );
        for f in informational(r) {
            finding_text(&mut s, f);
        }
    }
    for w in &r.warnings {
        let _ = writeln!(s, "warning: {w}");
    }
    let _ = writeln!(
        s,
        "summary: {} units ({} resumed), {} comparisons, {} new finding(s), {} informational, {:.1} s",
        r.units,
        r.resumed,
        t.compared,
        r.new_findings(),
        r.informational(),
        r.seconds
    );
    s
}

fn finding_text(s: &mut String, f: &Finding) {
    let _ = writeln!(s, "  {} [{}]: {}", f.id, f.comparison, f.message);
    let _ = writeln!(
        s,
        "    peers {}; versions {}; targets {}; seen {} time(s) (first: {})",
        join(&f.peers),
        join(&f.versions),
        join(&f.targets),
        f.count,
        f.origin
    );
    if let Some(c) = &f.crash {
        let _ = writeln!(s, "    crash: {}", c.status);
        for l in c.stderr.iter().rev().take(4).rev() {
            let _ = writeln!(s, "    | {l}");
        }
    }
    if let Some(h) = &f.hang {
        let _ = writeln!(s, "    hang: no progress for {:.0} s", h.seconds);
    }
    if f.reduced != f.original {
        let _ = writeln!(
            s,
            "    reduced from {} to {} ({} tests)",
            inputs_text(&f.original),
            inputs_text(&f.reduced),
            f.reduction_tests
        );
    } else {
        let _ = writeln!(s, "    input: {}", inputs_text(&f.reduced));
    }
    for c in &f.commands {
        let _ = writeln!(
            s,
            "    reproduce: {}{}{}",
            f.dir
                .as_ref()
                .map(|d| format!("(cd {d} && "))
                .unwrap_or_default(),
            c.shell,
            match (f.dir.is_some(), c.reproduces) {
                (true, Some(true)) => ")  # checked",
                (true, Some(false)) => ")  # did not reproduce when checked",
                (true, None) => ")",
                (false, Some(true)) => "  # checked",
                (false, Some(false)) => "  # did not reproduce when checked",
                (false, None) => "",
            }
        );
    }
}

fn inputs_text(v: &[super::Input]) -> String {
    v.iter()
        .map(super::Input::display)
        .collect::<Vec<_>>()
        .join(" / ")
}

fn join<T: ToString>(v: impl IntoIterator<Item = T>) -> String {
    let parts: Vec<String> = v.into_iter().map(|x| x.to_string()).collect();
    if parts.is_empty() {
        "-".to_owned()
    } else {
        parts.join(", ")
    }
}

/// Escapes text for XML and HTML.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            // Characters XML 1.0 cannot hold.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => o.push('\u{fffd}'),
            c => o.push(c),
        }
    }
    o
}

/// JUnit XML: a test suite per comparison, a test case per peer in it,
/// failing when the peer shows new findings there, skipped when nothing
/// was comparable.
pub fn junit(command: &str, r: &RunResult) -> String {
    let mut comparisons: Vec<&String> = r.cells.keys().map(|(c, _)| c).collect();
    comparisons.dedup();
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let failing = |c: &str, p: &str| -> Vec<&Finding> {
        new_findings(r)
            .filter(|f| f.comparison == c && f.peers.contains(p))
            .collect()
    };
    // Informational findings: listed in the passing test case's output.
    let info = |c: &str, p: &str| -> String {
        let mut t = String::new();
        for f in informational(r).filter(|f| f.comparison == c && f.peers.contains(p)) {
            t.push_str("informational: ");
            finding_text(&mut t, f);
        }
        t
    };
    let skipped = |k: &Counts| k.compared > 0 && k.not_comparable == k.compared;
    let (mut tests, mut failures, mut skips) = (0usize, 0usize, 0usize);
    for ((c, p), k) in &r.cells {
        tests += 1;
        if !failing(c, p).is_empty() {
            failures += 1;
        } else if skipped(k) {
            skips += 1;
        }
    }
    let _ = writeln!(
        s,
        "<testsuites name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skips}\" time=\"{:.3}\">",
        escape(&format!("hsaco-conform {command}")),
        r.seconds
    );
    for c in comparisons {
        let cells: Vec<(&String, &Counts)> = r
            .cells
            .iter()
            .filter(|((cc, _), _)| cc == c)
            .map(|((_, p), k)| (p, k))
            .collect();
        let f = cells
            .iter()
            .filter(|(p, _)| !failing(c, p).is_empty())
            .count();
        let sk = cells
            .iter()
            .filter(|(p, k)| failing(c, p).is_empty() && skipped(k))
            .count();
        let time: f64 = cells.iter().map(|(_, k)| k.nanos as f64 / 1e9).sum();
        let _ = writeln!(
            s,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" errors=\"0\" skipped=\"{sk}\" time=\"{time:.3}\">",
            escape(c),
            cells.len()
        );
        for (p, k) in cells {
            let _ = write!(
                s,
                "    <testcase classname=\"hsaco-conform.{}\" name=\"{}\" time=\"{:.3}\"",
                escape(c),
                escape(p),
                k.nanos as f64 / 1e9
            );
            let fs = failing(c, p);
            let summary = format!(
                "compared {}, same {}, known {}, different {}, informational {}, not comparable {}, crashed {}, timed out {}\n{}",
                k.compared,
                k.same,
                k.known,
                k.different,
                k.informational,
                k.not_comparable,
                k.crashed,
                k.timed_out,
                info(c, p)
            );
            if !fs.is_empty() {
                let _ = writeln!(s, ">");
                let mut body = String::new();
                for f in &fs {
                    let mut t = String::new();
                    finding_text(&mut t, f);
                    body.push_str(&t);
                }
                let _ = writeln!(
                    s,
                    "      <failure type=\"finding\" message=\"{}\">{}</failure>",
                    escape(&format!(
                        "{} new finding(s): {}",
                        fs.len(),
                        fs.iter()
                            .map(|f| f.id.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                    escape(&body)
                );
                let _ = writeln!(s, "      <system-out>{}</system-out>", escape(&summary));
                let _ = writeln!(s, "    </testcase>");
            } else if skipped(k) {
                let why = k.reasons.keys().next().cloned().unwrap_or_default();
                let _ = writeln!(s, ">");
                let _ = writeln!(
                    s,
                    "      <skipped message=\"{}\"/>",
                    escape(&format!("not comparable: {why}"))
                );
                let _ = writeln!(s, "    </testcase>");
            } else {
                let _ = writeln!(s, ">");
                let _ = writeln!(s, "      <system-out>{}</system-out>", escape(&summary));
                let _ = writeln!(s, "    </testcase>");
            }
        }
        let _ = writeln!(s, "  </testsuite>");
    }
    s.push_str("</testsuites>\n");
    s
}

/// One self-contained HTML page: the matrix, the allowlist hits and the
/// findings with their reproducers.
pub fn html(command: &str, r: &RunResult, allowlist: &Allowlist) -> String {
    let mut s = String::new();
    let t = totals(r);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<title>hsaco-conform {cmd}</title>\n<style>\
body{{font-family:system-ui,sans-serif;margin:2em;color:#222}}\
table{{border-collapse:collapse;margin:1em 0}}\
td,th{{border:1px solid #bbb;padding:.25em .6em}}td.n{{text-align:right}}\
th{{background:#eee}}tr.bad td{{background:#fdd}}tr.nc td{{color:#888}}\
pre{{background:#f6f6f6;padding:.6em;overflow-x:auto}}\
.ok{{color:#070}}.bad{{color:#b00}}details{{margin:.6em 0}}\
</style></head><body>\n<h1>hsaco-conform {cmd}</h1>\n",
        cmd = escape(command)
    );
    let _ = writeln!(
        s,
        "<p class=\"{}\">{} comparisons, {} new finding(s), {} units ({} resumed), {:.1} s.</p>",
        if r.new_findings() == 0 { "ok" } else { "bad" },
        t.compared,
        r.new_findings(),
        r.units,
        r.resumed,
        r.seconds
    );
    s.push_str("<h2>Peers × comparisons</h2>\n<table><tr><th>comparison</th><th>peer</th><th>compared</th><th>same</th><th>known</th><th>different</th><th>informational</th><th>not comparable</th><th>crashed</th><th>timed out</th><th>per second</th></tr>\n");
    for ((c, p), k) in &r.cells {
        let bad = new_findings(r).any(|f| f.comparison == *c && f.peers.contains(p));
        let class = if bad {
            " class=\"bad\""
        } else if k.compared > 0 && k.not_comparable == k.compared {
            " class=\"nc\""
        } else {
            ""
        };
        let peer = if r.references.get(c) == Some(p) {
            format!("{} (reference)", escape(p))
        } else {
            escape(p)
        };
        let _ = writeln!(
            s,
            "<tr{class}><td>{}</td><td>{peer}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\" title=\"{}\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.0}</td></tr>",
            escape(c),
            k.compared,
            k.same,
            k.known,
            k.different,
            k.informational,
            escape(&k.reasons.iter().map(|(w, n)| format!("{w} ({n})")).collect::<Vec<_>>().join("; ")),
            k.not_comparable,
            k.crashed,
            k.timed_out,
            k.rate()
        );
    }
    s.push_str("</table>\n");
    let hits: Vec<(&String, &u64)> = r.known.iter().filter(|(_, n)| **n > 0).collect();
    if !hits.is_empty() {
        let _ = writeln!(
            s,
            "<h2>Known differences</h2>\n<p>Allowlist: {}</p>\n<table><tr><th>id</th><th>count</th><th>reason</th></tr>",
            escape(&allowlist.source)
        );
        for (id, n) in hits {
            let reason = allowlist.get(id).map(|e| e.reason.as_str()).unwrap_or("");
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td class=\"n\">{n}</td><td>{}</td></tr>",
                escape(id),
                escape(reason)
            );
        }
        s.push_str("</table>\n");
    }
    let _ = writeln!(s, "<h2>New findings ({})</h2>", r.new_findings());
    for f in new_findings(r) {
        let mut body = String::new();
        finding_text(&mut body, f);
        let _ = writeln!(
            s,
            "<details open><summary><b>{}</b> [{}]: {}</summary><pre>{}</pre></details>",
            escape(&f.id),
            escape(&f.comparison),
            escape(&f.message),
            escape(&body)
        );
    }
    if r.new_findings() == 0 {
        s.push_str("<p class=\"ok\">None.</p>\n");
    }
    if r.informational() > 0 {
        let _ = writeln!(
            s,
            "<h2>Informational ({})</h2>\n<p>Peers that read invalid objects without complaint (for vendors; not new findings).</p>",
            r.informational()
        );
        for f in informational(r) {
            let mut body = String::new();
            finding_text(&mut body, f);
            let _ = writeln!(
                s,
                "<details><summary><b>{}</b> [{}]: {}</summary><pre>{}</pre></details>",
                escape(&f.id),
                escape(&f.comparison),
                escape(&f.message),
                escape(&body)
            );
        }
    }
    for w in &r.warnings {
        let _ = writeln!(s, "<p class=\"bad\">warning: {}</p>", escape(w));
    }
    s.push_str("</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(
            escape("a<b>&\"'\u{1}"),
            "a&lt;b&gt;&amp;&quot;&apos;\u{fffd}"
        );
    }

    #[test]
    fn junit_of_an_empty_run_is_well_formed() {
        let r = RunResult::default();
        let x = junit("conform", &r);
        assert!(x.starts_with("<?xml"));
        assert!(x.contains("<testsuites name=\"hsaco-conform conform\" tests=\"0\" failures=\"0\""));
        assert!(x.trim_end().ends_with("</testsuites>"));
    }
}
