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

use hsaco_oracle::check::check_object;
use serde_json::{Map, Value};

use super::{Input, Verdict, View};

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
        return Verdict::differs(
            format!("llvm-readobj fails on a valid object: {e}"),
            "metadata: llvm-readobj fails",
            Vec::new(),
        );
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
    let message = out
        .iter()
        .map(|d| d.1.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    Verdict::differs(message, key.clone(), Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
