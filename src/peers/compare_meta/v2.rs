//! Code object V2: YAML metadata as comgr reads it.

use hsaco_oracle::yaml;

use super::metadata::{compare_lookups, diff, push_raw, show};
use super::model::format_float;
use super::{err_text, verdict, Aspect, Difference, Outcome, MD_V2_YAML_SCALARS};
use crate::peers::comgr::{ComgrError, ComgrMeta, ComgrView};

/// How comgr prints a YAML scalar of code object V2 metadata: LLVM's
/// `msgpack::Document::fromYAML` gives a scalar without a tag the first
/// type it parses as (unsigned, signed, boolean, float, else string), and
/// comgr prints it back (booleans as `true` / `false` for YAML notes).
pub fn yaml_scalar(text: &str) -> String {
    if let Some(u) = hsaco_oracle::yaml::parse_uint(text) {
        return u.to_string();
    }
    if let Some(u) = text
        .strip_prefix('-')
        .and_then(hsaco_oracle::yaml::parse_uint)
    {
        if let Ok(i) = i64::try_from(u) {
            return (-i).to_string();
        }
        if u == 1 << 63 {
            return i64::MIN.to_string();
        }
    }
    // llvm::yaml::parseBool: YAML 1.1's words.
    match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            return "true".into()
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return "false".into()
        }
        _ => {}
    }
    // strtod's words for infinity and NaN, in any case, with a sign.
    let word = text.trim_start_matches(['+', '-']).to_ascii_lowercase();
    if matches!(word.as_str(), "inf" | "infinity" | "nan") {
        let neg = text.starts_with('-');
        return format_float(match (word.as_str(), neg) {
            ("nan", _) => f64::NAN,
            (_, true) => f64::NEG_INFINITY,
            _ => f64::INFINITY,
        });
    }
    let looks_numeric = text
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    if looks_numeric && text.chars().any(|c| c.is_ascii_digit()) {
        if let Ok(x) = text.parse::<f64>() {
            return format_float(x);
        }
    }
    text.to_owned()
}

/// The oracle's YAML tree in comgr's form: scalars typed and printed back
/// as LLVM does ([`yaml_scalar`]) when `typed`, else as written.
fn yaml_tree(n: &yaml::Node, typed: bool) -> ComgrMeta {
    let scalar =
        |t: &str| ComgrMeta::String(if typed { yaml_scalar(t) } else { t.to_owned() }.into_bytes());
    match &n.value {
        yaml::Value::Empty => ComgrMeta::String(Vec::new()),
        yaml::Value::Scalar(s) => scalar(&s.text),
        yaml::Value::Seq(items) => {
            ComgrMeta::List(items.iter().map(|i| yaml_tree(i, typed)).collect())
        }
        yaml::Value::Map(entries) => ComgrMeta::Map(
            entries
                .iter()
                .map(|e| (scalar(&e.key.text), yaml_tree(&e.value, typed)))
                .collect(),
        ),
    }
}

pub(super) fn compare_v2(
    view: &ComgrView,
    desc: Option<&[u8]>,
    diffs: &mut Vec<Difference>,
    from: usize,
) -> Outcome {
    let parsed = desc.map(yaml::parse);
    compare_lookups(view, diffs);
    match (&view.metadata, parsed) {
        (Ok(c), Some(Ok(node))) => {
            // Differences from the text as written are known when comgr
            // agrees exactly with LLVM's typing of the scalars.
            let mut typed = Vec::new();
            diff("", c, &yaml_tree(&node, true), &mut typed);
            let mut raw = Vec::new();
            diff("", c, &yaml_tree(&node, false), &mut raw);
            let known = typed.is_empty().then_some(&MD_V2_YAML_SCALARS);
            push_raw(diffs, Aspect::Metadata, raw, known);
        }
        (Ok(c), other) => diffs.push(Difference {
            aspect: Aspect::Metadata,
            path: "/".into(),
            comgr: show(c),
            oracle: match other {
                Some(Err(e)) => format!("unreadable YAML: {e}"),
                _ => "no NT_AMD_HSA_METADATA note".into(),
            },
            known: None,
        }),
        // Both have nothing to read.
        (Err(ComgrError::Call { .. }), None | Some(Err(_))) => {}
        (Err(e), Some(Ok(_))) => diffs.push(Difference {
            aspect: Aspect::Metadata,
            path: "/".into(),
            comgr: err_text(e),
            oracle: "readable YAML metadata".into(),
            known: None,
        }),
        (Err(e), _) => return Outcome::NotComparable(format!("the binding stopped: {e}")),
    }
    verdict(diffs, from)
}
