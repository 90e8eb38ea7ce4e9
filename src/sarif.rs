//! `check --format sarif`: the report as SARIF 2.1.0 (OASIS), which CI
//! services (GitHub code scanning among them) read.
//!
//! One run: `tool.driver.rules` is the whole rule catalogue in catalogue
//! order (a result's `ruleIndex` is its rule's position there); each kept
//! finding is a result, written as soon as its code object is checked;
//! findings a baseline suppressed are results with an external
//! suppression; inputs that could not be checked, and counts of findings
//! not kept, are notifications of the one invocation, and stale baseline
//! entries are configuration notifications.

use crate::baseline::{Baseline, Entry, Suppressed};
use crate::report::{Chunks, Summary};
use hsaco_oracle::check::ObjectReport;
use hsaco_oracle::rules::{Omitted, Rule};
use hsaco_oracle::{Severity, Violation};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Write;
use std::sync::OnceLock;

/// The schema the document names: the OASIS SARIF 2.1.0 schema with
/// errata 01, the version in force.
pub const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// SARIF's level for a severity (also each rule's default level).
pub fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A rule's position in `tool.driver.rules` (`None` for a rule outside
/// the catalogue, which a result then names by id alone).
fn rule_index(rule: &Rule) -> Option<usize> {
    static INDEX: OnceLock<HashMap<&'static str, usize>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        hsaco_oracle::rules::catalogue()
            .enumerate()
            .map(|(i, r)| (r.id, i))
            .collect()
    });
    index.get(rule.id).copied()
}

/// A path as a URI reference: relative paths stay relative (to the
/// directory `check` ran in), absolute ones become `file://` URIs; bytes
/// other than unreserved characters and `/` are percent-encoded.
pub fn uri(path: &str) -> String {
    let mut s = String::with_capacity(path.len() + 8);
    if path.starts_with('/') {
        s.push_str("file://");
    }
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

fn write(out: &mut Chunks, v: &Value) {
    serde_json::to_writer(out, v).expect("serialising to memory cannot fail");
}

/// The catalogue as `reportingDescriptor`s.
fn rules() -> Value {
    hsaco_oracle::rules::catalogue()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": {"text": r.statement},
                "fullDescription": {"text": r.statement},
                "help": {"text": format!("Source: {}", r.reference)},
                "defaultConfiguration": {"level": level(r.severity)},
                "properties": {"source": r.reference},
            })
        })
        .collect()
}

/// Writes the document up to the opening of the results array.
pub fn begin(out: &mut Chunks) {
    let driver = json!({
        "name": "hsaco-conform",
        "version": env!("CARGO_PKG_VERSION"),
        "rules": rules(),
    });
    let _ = write!(
        out,
        "{{\"$schema\":\"{SCHEMA}\",\"version\":\"2.1.0\",\"runs\":[{{\"tool\":{{\"driver\":"
    );
    write(out, &driver);
    out.extend(b"},\"results\":[");
}

/// Where a finding is: the file, its byte offset in the file when known
/// (`base` is where the code object starts in the file: unknown for an
/// object unpacked from a compressed bundle), and the kernel or else the
/// bundle entry as a logical location.
fn location(
    path: &str,
    member: Option<&str>,
    base: Option<u64>,
    offset: Option<u64>,
    kernel: Option<&str>,
) -> Value {
    let mut physical = json!({"artifactLocation": {"uri": uri(path)}});
    if let (Some(b), Some(o)) = (base, offset) {
        physical["region"] = json!({"byteOffset": b + o});
    }
    let mut loc = json!({"physicalLocation": physical});
    let logical = match (kernel, member) {
        (Some(k), _) => Some(json!({"name": k, "kind": "function"})),
        (None, Some(m)) => Some(json!({"name": m, "kind": "module"})),
        (None, None) => None,
    };
    if let Some(l) = logical {
        loc["logicalLocations"] = json!([l]);
    }
    loc
}

/// One finding as a result; `suppressed` gives the baseline entry that
/// accepted it.
fn result(
    path: &str,
    member: Option<&str>,
    base: Option<u64>,
    v: &Violation,
    suppressed: Option<(&Baseline, &Entry)>,
) -> Value {
    // The message says what the location cannot: the bundle entry, and
    // the offset within the code object when the file offset is unknown.
    let mut text = v.message.clone();
    if let Some(m) = member {
        text += &format!(" [member {m}]");
    }
    if let (None, Some(o)) = (base, v.offset) {
        text += &format!(" (at {o:#x} in the code object)");
    }
    let mut r = json!({
        "ruleId": v.rule.id,
        "level": level(v.severity),
        "message": {"text": text},
        "locations": [location(path, member, base, v.offset, v.kernel.as_deref())],
    });
    if let Some(i) = rule_index(v.rule) {
        r["ruleIndex"] = i.into();
    }
    // In a bundle, the entry and the offset within it, for scripts.
    if let Some(m) = member {
        r["properties"] = json!({"member": m});
        if let Some(o) = v.offset {
            r["properties"]["codeObjectOffset"] = o.into();
        }
    }
    if let Some((b, e)) = suppressed {
        r["suppressions"] = json!([{
            "kind": "external",
            "justification": e.reason,
            "location": baseline_location(b, e),
        }]);
    }
    r
}

fn baseline_location(b: &Baseline, e: &Entry) -> Value {
    json!({"physicalLocation": {
        "artifactLocation": {"uri": uri(&b.path)},
        "region": {"startLine": e.line},
    }})
}

/// A notification of the invocation.
fn notification(level: &str, text: String, location: Value, rule: Option<&Rule>) -> Value {
    let mut n = json!({"level": level, "message": {"text": text}, "locations": [location]});
    if let Some(r) = rule {
        n["associatedRule"] = json!({"id": r.id});
        if let Some(i) = rule_index(r) {
            n["associatedRule"]["index"] = i.into();
        }
    }
    n
}

/// Writes the results of one checked code object (each after a comma if
/// `out` already holds one), those a baseline suppressed after the others,
/// and adds a notification for each rule whose findings were counted but
/// not kept.
pub fn object(
    out: &mut Chunks,
    notes: &mut Vec<Value>,
    path: &str,
    member: Option<&str>,
    base: Option<u64>,
    r: &ObjectReport,
    suppressed: Option<(&Suppressed, &Baseline)>,
) {
    let emit = |out: &mut Chunks, v: Value| {
        if !out.is_empty() {
            out.push(b',');
        }
        write(out, &v);
    };
    for v in &r.violations {
        emit(out, result(path, member, base, v, None));
    }
    if let Some((suppressed, b)) = suppressed {
        for (v, i) in &suppressed.violations {
            emit(
                out,
                result(path, member, base, v, Some((b, &b.entries[*i]))),
            );
        }
    }
    for o in &r.omitted {
        notes.push(omitted(path, member, o));
    }
}

fn omitted(path: &str, member: Option<&str>, o: &Omitted) -> Value {
    let name = crate::report::entry_name(path, member);
    notification(
        "note",
        format!("{name}: {}", crate::report::omitted_line(o)),
        location(path, member, None, None, None),
        Some(o.rule),
    )
}

/// The notification of an input that could not be checked.
pub fn failed(path: &str, member: Option<&str>, error: &str) -> Value {
    let name = crate::report::entry_name(path, member);
    notification(
        "error",
        format!("{name}: could not check: {error}"),
        location(path, member, None, None, None),
        None,
    )
}

/// Writes the rest of the document after the last result: the invocation
/// (whether every input was checked, the exit status, the notifications)
/// and the run's properties (the summary, and the baseline's counts).
pub fn end(
    out: &mut dyn Write,
    notes: Vec<Value>,
    summary: &Summary,
    exit_status: u8,
    baseline: Option<&Baseline>,
) -> std::io::Result<()> {
    let config: Vec<Value> = baseline
        .map(|b| {
            b.stale()
                .into_iter()
                .map(|e| notification("warning", b.stale_line(e), baseline_location(b, e), None))
                .collect()
        })
        .unwrap_or_default();
    let invocation = json!({
        "executionSuccessful": summary.unreadable == 0,
        "exitCode": exit_status,
        "toolExecutionNotifications": notes,
        "toolConfigurationNotifications": config,
    });
    let mut props = json!({"summary": summary});
    if let Some(b) = baseline {
        props["baseline"] = crate::report::baseline_json(b);
    }
    out.write_all(b"],\"invocations\":[")?;
    serde_json::to_writer(&mut *out, &invocation)?;
    out.write_all(b"],\"properties\":")?;
    serde_json::to_writer(&mut *out, &props)?;
    out.write_all(b"}]}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_encoded_references() {
        assert_eq!(uri("build/a.hsaco"), "build/a.hsaco");
        assert_eq!(uri("./x y#1.co"), "./x%20y%231.co");
        assert_eq!(uri("/usr/lib/libhsa.so.1"), "file:///usr/lib/libhsa.so.1");
        assert_eq!(uri("é"), "%C3%A9");
    }

    #[test]
    fn every_rule_has_its_own_index() {
        for (i, r) in hsaco_oracle::rules::catalogue().enumerate() {
            assert_eq!(rule_index(r), Some(i), "{}", r.id);
        }
    }
}
