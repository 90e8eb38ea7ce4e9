//! The `metadata` object comparison: `llvm-readobj-NN --notes` of a
//! generated code object (V3+) against the oracle's metadata model, key by
//! key, for the top level, every kernel and every argument.
//!
//! llvm-readobj prints the MessagePack metadata note as YAML; a small
//! reader here turns the subset it prints (block maps and sequences, `[]`,
//! plain and quoted scalars) into a JSON tree of strings, and the oracle's
//! model is turned into the same form (keys `amdhsa.*` at the top, `.*`
//! below; the two flags LLVM stores as integers printed as 0/1). Keys the
//! model keeps only by name (`other_keys`) are not compared.

use std::path::PathBuf;
use std::process::Command;

use hsaco_oracle::check::check_object;
use serde_json::{json, Map, Value};

use super::isolate;
use super::objects::{object_script, run_on_object, Ran};
use super::{Ctx, Difference, Input, Peer, PeerResult, Verdict, View};

/// Comparison id: metadata notes as `llvm-readobj` prints them.
pub const METADATA: &str = "metadata";

const READOBJ_COMPARISONS: &[&str] = &[METADATA, super::mutants::MUTANTS];

// ------------------------------------------------------------------- YAML

struct Lines<'a> {
    lines: Vec<(usize, &'a str)>,
    pos: usize,
}

/// Reads llvm-readobj's metadata YAML into a tree of strings; `None` when
/// it is not the expected subset.
pub fn parse_yaml(text: &str) -> Option<Value> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && l.trim() != "---" && l.trim() != "...")
        .map(|l| (l.len() - l.trim_start().len(), l.trim_start()))
        .collect();
    let indent = lines.first().map_or(0, |l| l.0);
    let mut p = Lines { lines, pos: 0 };
    let v = p.block(indent)?;
    (p.pos == p.lines.len()).then_some(v)
}

impl Lines<'_> {
    fn block(&mut self, indent: usize) -> Option<Value> {
        let Some(&(_, first)) = self.lines.get(self.pos) else {
            return Some(Value::Object(Map::new()));
        };
        if !(first.starts_with("- ") || first == "-") {
            return self.map(indent);
        }
        let mut items = Vec::new();
        while let Some(&(ind, line)) = self.lines.get(self.pos) {
            if ind != indent || !line.starts_with('-') {
                break;
            }
            let rest = line.get(1..)?.trim_start();
            let inner = ind + (line.len() - rest.len());
            if !rest.starts_with(['\'', '"']) && (rest.contains(": ") || rest.ends_with(':')) {
                if let Some(slot) = self.lines.get_mut(self.pos) {
                    *slot = (inner, rest);
                }
                items.push(self.map(inner)?);
            } else {
                self.pos += 1;
                items.push(scalar(rest)?);
            }
        }
        Some(Value::Array(items))
    }

    fn map(&mut self, indent: usize) -> Option<Value> {
        let mut entries = Map::new();
        while let Some(&(ind, line)) = self.lines.get(self.pos) {
            if ind != indent || line.starts_with("- ") {
                break;
            }
            let (key, rest) = match line.find(": ") {
                Some(i) if !line.starts_with('\'') => (line.get(..i)?, line.get(i + 2..)?.trim()),
                _ => (line.strip_suffix(':')?, ""),
            };
            self.pos += 1;
            let value = if rest.is_empty() {
                match self.lines.get(self.pos) {
                    Some(&(ni, nl)) if ni > indent || (ni == indent && nl.starts_with("- ")) => {
                        self.block(ni)?
                    }
                    _ => Value::String(String::new()),
                }
            } else if rest == "[]" {
                Value::Array(Vec::new())
            } else {
                scalar(rest)?
            };
            entries.insert(key.to_owned(), value);
        }
        Some(Value::Object(entries))
    }
}

fn scalar(s: &str) -> Option<Value> {
    // `!str y`: a string that would otherwise read as another type.
    if let Some(rest) = s.strip_prefix("!str ") {
        return scalar(rest.trim_start());
    }
    if let Some(q) = s.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return Some(Value::String(q.replace("''", "'")));
    }
    let Some(q) = s.strip_prefix('"').and_then(|r| r.strip_suffix('"')) else {
        return Some(Value::String(s.to_owned()));
    };
    let mut out = String::new();
    let mut it = q.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('x') => {
                let h: String = it.by_ref().take(2).collect();
                out.push(char::from(u8::from_str_radix(&h, 16).ok()?));
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    Some(Value::String(out))
}

// ------------------------------------------------------------------ model

/// The oracle's model as the same tree of strings; the keys it keeps only
/// by name go under a private key (`\0hidden`).
fn model_tree(v: &Value, prefix: &str) -> Value {
    match v {
        Value::Object(o) => {
            let mut m = Map::new();
            for (k, v) in o {
                if v.is_null() || k == "other_keys" {
                    continue;
                }
                let flag = k == "workgroup_processor_mode" || k == "uniform_work_group_size";
                let t = match v {
                    Value::Bool(b) if flag => Value::String(u8::from(*b).to_string()),
                    other => model_tree(other, "."),
                };
                m.insert(format!("{prefix}{k}"), t);
            }
            if let Some(Value::Array(hidden)) = o.get("other_keys") {
                m.insert("\u{0}hidden".to_owned(), Value::Array(hidden.clone()));
            }
            Value::Object(m)
        }
        Value::Array(a) => Value::Array(a.iter().map(|e| model_tree(e, ".")).collect()),
        Value::String(s) => Value::String(s.clone()),
        Value::Bool(b) => Value::String(b.to_string()),
        Value::Number(n) => Value::String(n.to_string()),
        Value::Null => Value::String(String::new()),
    }
}

/// A path without sequence positions, for finding keys.
fn norm(path: &str) -> String {
    path.split('/')
        .filter(|p| p.parse::<usize>().is_err())
        .collect::<Vec<_>>()
        .join("/")
}

/// Each difference between llvm-readobj's tree `y` and the model's `m`:
/// (key, message).
fn diff(path: &str, y: &Value, m: &Value, out: &mut Vec<(String, String)>) {
    match (y, m) {
        (Value::Object(ym), Value::Object(mm)) => {
            let hidden: Vec<&str> = mm
                .get("\u{0}hidden")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for (k, yv) in ym {
                let p = format!("{path}/{k}");
                match mm.get(k) {
                    Some(mv) => diff(&p, yv, mv, out),
                    // Kept by name only: nothing to compare.
                    None if hidden.iter().any(|h| h.contains(k.as_str())) => {}
                    None => out.push((
                        format!("metadata: {} printed, not in the model", norm(&p)),
                        format!("{p}: llvm-readobj prints {yv}, the model has no such key"),
                    )),
                }
            }
            for (k, mv) in mm {
                if k.starts_with('\u{0}') || ym.contains_key(k) {
                    continue;
                }
                // An empty list the note leaves out.
                if mv == &Value::Array(Vec::new()) {
                    continue;
                }
                let p = format!("{path}/{k}");
                out.push((
                    format!("metadata: {} in the model, not printed", norm(&p)),
                    format!("{p}: the model has {mv}, llvm-readobj prints nothing"),
                ));
            }
        }
        (Value::Array(ya), Value::Array(ma)) if ya.len() == ma.len() => {
            for (k, (a, b)) in ya.iter().zip(ma).enumerate() {
                diff(&format!("{path}/{k}"), a, b, out);
            }
        }
        _ if y == m => {}
        _ => out.push((
            format!("metadata: {} differs", norm(path)),
            format!("{path}: llvm-readobj {y}, the model {m}"),
        )),
    }
}

/// Judges llvm-readobj's view of a generated object.
pub fn compare(input: &Input, view: &View) -> Verdict {
    let (Input::File { bytes, .. }, View::Json { value }) = (input, view) else {
        return Verdict::NotComparable("not an object and a structured view".to_owned());
    };
    if let Some(e) = value.get("tool_error").and_then(Value::as_str) {
        return Verdict::Differs(Difference {
            message: format!("llvm-readobj fails on a valid object: {e}"),
            key: "metadata: llvm-readobj fails".to_owned(),
            tags: Vec::new(),
            informational: false,
        });
    }
    let Some(yaml) = value.get("yaml") else {
        return Verdict::NotComparable("llvm-readobj printed no metadata".to_owned());
    };
    let Some(md) = check_object(bytes).metadata else {
        return Verdict::NotComparable("the oracle reads no metadata note".to_owned());
    };
    let Ok(model) = serde_json::to_value(&md) else {
        return Verdict::NotComparable("the model does not serialise".to_owned());
    };
    let mut out = Vec::new();
    diff("", yaml, &model_tree(&model, "amdhsa."), &mut out);
    let Some((key, _)) = out.first() else {
        return Verdict::Same;
    };
    Verdict::Differs(Difference {
        key: key.clone(),
        message: out
            .iter()
            .map(|d| d.1.as_str())
            .collect::<Vec<_>>()
            .join("; "),
        tags: Vec::new(),
        informational: false,
    })
}

// ------------------------------------------------------------------- peer

/// `llvm-readobj-NN --notes`: the metadata note as YAML (comparison
/// [`METADATA`]).
pub struct ReadobjPeer {
    id: String,
    version: u32,
    path: PathBuf,
}

impl ReadobjPeer {
    /// The peer for one program (its absolute path: reproducers name it),
    /// known as `id` (`llvm-readobj-19`, or a name given with `--peer`).
    pub fn new(version: u32, path: PathBuf, id: &str) -> Self {
        Self {
            id: id.to_owned(),
            version,
            path,
        }
    }

    /// `llvm-readobj --notes` on `bytes`: the run's outcome.
    fn notes(&self, ctx: &Ctx, bytes: &[u8]) -> Result<Ran, PeerResult> {
        run_on_object(ctx, bytes, |f| {
            let mut cmd = Command::new(&self.path);
            cmd.arg("--notes").arg(f);
            cmd
        })
    }

    /// For `mutants`: whether llvm-readobj complains about the object
    /// (exit status, standard error, or a note it prints as unreadable).
    fn judge(&self, ctx: &Ctx, bytes: &[u8]) -> PeerResult {
        let (ok, out, err) = match self.notes(ctx, bytes) {
            Ok(x) => x,
            Err(p) => return p,
        };
        // A metadata note llvm-readobj cannot decode is printed as raw
        // description data instead of YAML: its way of refusing it.
        let lines: Vec<&str> = out.lines().collect();
        let raw_metadata = lines.windows(2).any(|w| {
            w[0].contains("NT_AMDGPU_METADATA") && w[1].trim_start().starts_with("Description data")
        });
        let complaint = lines
            .iter()
            .find(|l| l.contains("Invalid AMDGPU Metadata") || l.contains("<corrupt"))
            .map(|l| l.trim().to_owned())
            .or_else(|| raw_metadata.then(|| "prints the metadata note as raw bytes".to_owned()));
        PeerResult::View(View::Json {
            value: json!({
                "ok": ok,
                "stderr": isolate::tail(&err, 4).join(" "),
                "complaint": complaint,
            }),
        })
    }

    fn read(&self, ctx: &Ctx, bytes: &[u8]) -> PeerResult {
        let (ok, out, err) = match self.notes(ctx, bytes) {
            Ok(x) => x,
            Err(p) => return p,
        };
        if !ok {
            return PeerResult::View(View::Json {
                value: json!({ "tool_error": isolate::tail(&err, 4).join(" ") }),
            });
        }
        // One YAML document per metadata note (ld.lld keeps every linked
        // object's note), merged as comgr and the oracle merge them.
        let mut merged: Option<Value> = None;
        for (start, _) in out.match_indices("AMDGPU Metadata: ---") {
            let body = out.get(start + "AMDGPU Metadata: ".len()..).unwrap_or("");
            let body = body
                .find("\n...")
                .map_or(body, |e| body.get(..e).unwrap_or(body));
            let Some(y) = parse_yaml(body) else {
                return PeerResult::NotComparable(
                    "llvm-readobj's YAML is outside the subset read here".to_owned(),
                );
            };
            match &mut merged {
                None => merged = Some(y),
                Some(m) => merge_note(m, y),
            }
        }
        // A note this llvm-readobj cannot verify is printed as raw bytes
        // (as when it predates a key): with one of several notes missing,
        // the merged view would be partial.
        let notes = out.matches("Type: NT_AMDGPU_METADATA").count();
        let yamls = out.matches("AMDGPU Metadata: ---").count();
        if merged.is_some() && yamls != notes {
            return PeerResult::NotComparable(format!(
                "llvm-readobj prints {yamls} of {notes} metadata notes as YAML"
            ));
        }
        match merged {
            Some(y) => PeerResult::View(View::Json {
                value: json!({ "yaml": y }),
            }),
            None => PeerResult::View(View::Json { value: json!({}) }),
        }
    }
}

/// Merges a later metadata note's YAML tree into the first's: its kernels
/// appended, its printf list taken if the first has none (the oracle's
/// merged model).
fn merge_note(into: &mut Value, later: Value) {
    let (Some(m), Value::Object(mut l)) = (into.as_object_mut(), later) else {
        return;
    };
    if let Some(Value::Array(ks)) = l.remove("amdhsa.kernels") {
        match m.get_mut("amdhsa.kernels") {
            Some(Value::Array(a)) => a.extend(ks),
            _ => {
                m.insert("amdhsa.kernels".to_owned(), Value::Array(ks));
            }
        }
    }
    if let Some(p) = l.remove("amdhsa.printf") {
        m.entry("amdhsa.printf").or_insert(p);
    }
}

impl Peer for ReadobjPeer {
    fn id(&self) -> &str {
        &self.id
    }
    fn family(&self) -> &str {
        "llvm-readobj"
    }
    fn component(&self) -> &str {
        "llvm"
    }
    fn version(&self) -> Option<u32> {
        Some(self.version)
    }
    fn location(&self) -> String {
        self.path.display().to_string()
    }
    fn comparisons(&self) -> &[&'static str] {
        READOBJ_COMPARISONS
    }
    fn supports(&self, _ctx: &Ctx, comparison: &str, _cpu: &str) -> Result<(), String> {
        // llvm-readobj prints notes whether or not its LLVM knows the
        // processor: no probe.
        if !READOBJ_COMPARISONS.contains(&comparison) {
            return Err(format!("{} does not take part in {comparison}", self.id));
        }
        Ok(())
    }
    fn run(
        &self,
        ctx: &Ctx,
        comparison: &str,
        _cpu: &str,
        inputs: &[Input],
        each: &mut dyn FnMut(usize, PeerResult),
    ) {
        for (k, i) in inputs.iter().enumerate() {
            match i {
                Input::File { bytes, .. } if comparison == super::mutants::MUTANTS => {
                    each(k, self.judge(ctx, bytes))
                }
                Input::File { bytes, .. } => each(k, self.read(ctx, bytes)),
                _ => each(
                    k,
                    PeerResult::NotComparable("llvm-readobj reads code objects".to_owned()),
                ),
            }
        }
    }
    fn reproducer(&self, _comparison: &str, inputs: &[Input]) -> String {
        object_script(inputs, |_, name| {
            vec![vec![
                self.path.display().to_string(),
                "--notes".to_owned(),
                name.to_owned(),
            ]]
        })
    }
    fn command(&self, _comparison: &str, _cpu: &str, file: &str) -> Option<Vec<String>> {
        Some(vec!["sh".to_owned(), file.to_owned()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readobj_yaml_subset_parses() {
        let y = "---\namdhsa.kernels:\n  - .args:\n      - .offset: 0\n        .size: 8\n    .name: 'n'\n    .symbol: !str y\n    .sgpr_count: 4\namdhsa.printf: []\namdhsa.version:\n  - 1\n  - 2\n";
        assert_eq!(
            parse_yaml(y),
            Some(json!({
                "amdhsa.kernels": [{".args": [{".offset": "0", ".size": "8"}], ".name": "n", ".symbol": "y", ".sgpr_count": "4"}],
                "amdhsa.printf": [],
                "amdhsa.version": ["1", "2"],
            }))
        );
    }

    #[test]
    fn differences_name_the_key_without_positions() {
        let mut out = Vec::new();
        diff(
            "",
            &json!({"a": [{"b": "1"}], "c": "x"}),
            &json!({"a": [{"b": "2"}], "d": "y", "e": []}),
            &mut out,
        );
        let keys: Vec<&str> = out.iter().map(|d| d.0.as_str()).collect();
        assert_eq!(
            keys,
            [
                "metadata: /a/b differs",
                "metadata: /c printed, not in the model",
                "metadata: /d in the model, not printed"
            ]
        );
    }
}
