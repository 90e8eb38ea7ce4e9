//! ROCm's code object manager (comgr, `libamd_comgr.so.2`) as a peer: the
//! `comgr-metadata` comparison (comgr's metadata tree, ISA name and symbol
//! list of a generated code object against the oracle, through
//! [`crate::peers::compare_meta`]) and the `mutants` comparison (does comgr
//! complain about an invalid object).
//!
//! comgr is a library: it runs in worker processes (task [`TASK`],
//! [`ComgrTask`]), one batch per unit, so that a crash inside it (it
//! crashes on some MessagePack notes LLVM's reader mishandles) is recorded
//! against the input that caused it and the run goes on with a fresh
//! worker. The worker reads the object through comgr and, for
//! `comgr-metadata`, runs `compare_meta::compare` itself, so that only the
//! verdict (a small JSON document) travels back.
//!
//! A finding's reproducer is a shell script that writes the object(s),
//! builds a small C program against comgr's C API with `cc` (no ROCm
//! headers needed) and runs it: comgr alone, printing the ISA name, the
//! metadata tree and the symbol count with every status (a comgr crash
//! kills the script by the same signal).
//!
//! Differences `compare_meta` explains with one of its
//! [`KNOWN`](crate::peers::compare_meta::KNOWN) entries carry the tag
//! `comgr:ID`; the allowlist has an entry per tag (counted as known, not
//! new).

use std::path::PathBuf;

use serde_json::{json, Value};

use super::findings::shell_line;
use super::isolate::Task;
use super::run::{from_reply, unreadable, worker_payloads, write_object};
use super::{hex_bytes, ComparisonId, Ctx, Input, Peer, PeerInfo, PeerResult, Verdict, View};
use crate::peers::comgr::{self as binding, Comgr, ComgrError};
use crate::peers::compare_meta::{self, Outcome, Report};
use crate::peers::discover;

/// Name of the worker task that runs comgr.
pub const TASK: &str = "comgr";

/// Worker context: read the object and compare it with the oracle.
const CONTEXT_COMPARE: &str = "compare";
/// Worker context: read the object and report comgr's errors only.
const CONTEXT_READ: &str = "read";

/// The worker side: comgr loaded once per worker process.
pub struct ComgrTask {
    path: Option<PathBuf>,
    lib: Option<Result<&'static Comgr, String>>,
}

impl ComgrTask {
    /// A task that loads comgr at its first item: the library at `path`,
    /// or (`None`) the one installed.
    pub fn new(path: Option<PathBuf>) -> Self {
        Self { path, lib: None }
    }
}

fn outcome_text(o: &Outcome) -> String {
    match o {
        Outcome::Same => "same".to_owned(),
        Outcome::Known => "known".to_owned(),
        Outcome::Different => "different".to_owned(),
        Outcome::NotComparable(why) => format!("not comparable: {why}"),
    }
}

/// The report as JSON: outcome per aspect and every difference.
fn report_json(r: &Report) -> Value {
    json!({
        "isa_name": outcome_text(&r.isa_name),
        "metadata": outcome_text(&r.metadata),
        "symbols": outcome_text(&r.symbols),
        "differences": r.differences.iter().map(|d| json!({
            "aspect": d.aspect.name(),
            "path": d.path,
            "comgr": d.comgr,
            "oracle": d.oracle,
            "known": d.known.map(|k| k.id),
        })).collect::<Vec<_>>(),
    })
}

fn err(r: &Result<impl Sized, ComgrError>) -> Option<String> {
    r.as_ref().err().map(ToString::to_string)
}

impl Task for ComgrTask {
    fn call(&mut self, context: &str, payload: &str, out: &mut String) -> Result<(), String> {
        let path = &self.path;
        let lib = self
            .lib
            .get_or_insert_with(|| {
                match path {
                    Some(p) => Comgr::load(p),
                    None => Comgr::open(),
                }
                .map_err(|e| e.to_string())
            })
            .clone()?;
        if payload == "version" {
            let (major, minor) = lib.version();
            out.push_str(&format!("{major}.{minor}"));
            return Ok(());
        }
        let bytes = hex_bytes::decode(payload).ok_or("payload is not hex bytes")?;
        let view = match binding::view(lib, &bytes) {
            Ok(v) => v,
            Err(e) => {
                out.push_str(&json!({ "refused": e.to_string() }).to_string());
                return Ok(());
            }
        };
        let mut errors = serde_json::Map::new();
        for (part, e) in [
            ("isa_name", err(&view.isa_name)),
            ("metadata", err(&view.metadata)),
            ("symbols", err(&view.symbols)),
        ] {
            if let Some(e) = e {
                errors.insert(part.to_owned(), Value::from(e));
            }
        }
        let mut v = json!({ "errors": errors });
        if context == CONTEXT_COMPARE {
            v["report"] = report_json(&compare_meta::compare(&view, &bytes));
        }
        out.push_str(&v.to_string());
        Ok(())
    }
}

/// A path without list positions (`/amdhsa.kernels/0/.args/1/.size` →
/// `/amdhsa.kernels/.args/.size`, `[3]` → `[]`), for finding keys.
fn norm(path: &str) -> String {
    if path.starts_with('[') && path.ends_with(']') {
        return "[]".to_owned();
    }
    path.split('/')
        .filter(|p| p.parse::<usize>().is_err())
        .collect::<Vec<_>>()
        .join("/")
}

/// Judges comgr's view (the worker's JSON) of a generated valid object.
pub fn compare_view(value: &Value) -> Verdict {
    if let Some(e) = value.get("refused").and_then(Value::as_str) {
        return Verdict::differs(
            format!("comgr refuses to take the object: {e}"),
            "comgr-metadata: comgr refuses the object",
            Vec::new(),
        );
    }
    let Some(report) = value.get("report") else {
        return Verdict::NotComparable("comgr returned no comparison".to_owned());
    };
    let aspects = ["isa_name", "metadata", "symbols"];
    let outcome = |a: &str| report.get(a).and_then(Value::as_str).unwrap_or("");
    if aspects
        .iter()
        .all(|a| outcome(a).starts_with("not comparable"))
    {
        return Verdict::NotComparable(format!("comgr-metadata: {}", outcome("metadata")));
    }
    let diffs: Vec<&Value> = report
        .get("differences")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    if diffs.is_empty() {
        return Verdict::Same;
    }
    let s = |d: &Value, k: &str| d.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let line = |d: &Value| {
        let mut l = format!(
            "{} {}: comgr {} / oracle {}",
            s(d, "aspect"),
            s(d, "path"),
            s(d, "comgr"),
            s(d, "oracle")
        );
        if let Some(k) = d.get("known").and_then(Value::as_str) {
            l.push_str(&format!(" [known: {k}]"));
        }
        l
    };
    let message = diffs.iter().map(|d| line(d)).collect::<Vec<_>>().join("; ");
    let unexplained: Vec<&&Value> = diffs
        .iter()
        .filter(|d| d.get("known").and_then(Value::as_str).is_none())
        .collect();
    if let Some(first) = unexplained.first() {
        let key = format!(
            "comgr-metadata: {} {} differs",
            s(first, "aspect"),
            norm(&s(first, "path"))
        );
        return Verdict::differs(message, key, Vec::new());
    }
    let mut tags: Vec<String> = diffs
        .iter()
        .filter_map(|d| d.get("known").and_then(Value::as_str))
        .map(|k| format!("comgr:{k}"))
        .collect();
    tags.sort();
    tags.dedup();
    let key = format!("comgr-metadata: known differences {}", tags.join(" "));
    Verdict::differs(message, key, tags)
}

/// What comgr complained about on an object (the worker's JSON): `None`
/// when it read everything without an error.
pub fn complaint(value: &Value) -> Option<String> {
    if let Some(e) = value.get("refused").and_then(Value::as_str) {
        return Some(format!("refused: {e}"));
    }
    let errors = value.get("errors").and_then(Value::as_object)?;
    if errors.is_empty() {
        return None;
    }
    Some(
        errors
            .iter()
            .map(|(k, v)| format!("{k}: {}", v.as_str().unwrap_or("")))
            .collect::<Vec<_>>()
            .join("; "),
    )
}

/// The comgr peer (`comgr-MAJOR.MINOR`, or a name given with `--peer`).
pub struct ComgrPeer {
    info: PeerInfo,
    path: PathBuf,
}

impl ComgrPeer {
    /// The peer for what discovery found (a usable comgr), under its id.
    pub fn of(p: &discover::Peer) -> Option<Self> {
        if p.kind != discover::Kind::Comgr || !p.status.is_usable() {
            return None;
        }
        let major = p.version.as_deref()?.split('.').next()?.parse().ok()?;
        Some(Self {
            info: PeerInfo {
                id: p.id.clone(),
                family: "comgr",
                component: "comgr",
                version: Some(major),
                location: p.path.display().to_string(),
                comparisons: &[ComparisonId::ComgrMetadata, ComparisonId::Mutants],
                named: None,
            },
            path: p.path.clone(),
        })
    }

    /// The comgr library on this machine ([`discover::comgr_peer`]).
    pub fn discover() -> Option<Self> {
        Self::of(&discover::comgr_peer(None)?)
    }
}

impl Peer for ComgrPeer {
    fn info(&self) -> &PeerInfo {
        &self.info
    }
    // comgr reads objects of any processor (an ISA name it cannot give is
    // a known difference): no probe (the default `supports`).
    fn run(
        &self,
        ctx: &Ctx,
        comparison: ComparisonId,
        _cpu: &str,
        inputs: &[Input],
        each: &mut dyn FnMut(usize, PeerResult),
    ) {
        let bytes_of: fn(&Input) -> Option<&[u8]> = |i| match i {
            Input::File { bytes, .. } => Some(bytes),
            _ => None,
        };
        let (payloads, index) = worker_payloads(inputs, bytes_of, "comgr reads code objects", each);
        let context = if comparison == ComparisonId::ComgrMetadata {
            CONTEXT_COMPARE
        } else {
            CONTEXT_READ
        };
        // The worker loads the very library the parent chose.
        let arg = self.path.display().to_string();
        ctx.with_worker(TASK, &arg, &[], |w| {
            w.run(context, &payloads, &mut |j, reply| {
                let Some(&k) = index.get(j) else { return };
                let r = from_reply(reply, |s| match serde_json::from_str::<Value>(&s) {
                    Ok(value) => PeerResult::View(View::Json { value }),
                    Err(_) => unreadable(&s),
                });
                each(k, r);
            });
        });
    }
    fn reproducer(&self, _comparison: ComparisonId, inputs: &[Input]) -> String {
        let names: Vec<String> = inputs
            .iter()
            .filter_map(|i| match i {
                Input::File { name, .. } => Some(name.clone()),
                _ => None,
            })
            .collect();
        let mut s = format!(
            "#!/bin/sh\n\
             # Shows {} ({}) alone on the object(s), written here if missing:\n\
             # a small C program reads each through comgr's C API (ISA name,\n\
             # metadata tree, symbols), as the comgr-metadata comparison does.\n\
             set -e\n",
            self.info.id,
            self.path.display()
        );
        for i in inputs {
            if let Input::File { name, bytes } = i {
                s.push_str(&write_object(name, bytes));
            }
        }
        s.push_str("cat > comgr-read.c <<'HSACO_EOF'\n");
        s.push_str(C_READER);
        s.push_str("HSACO_EOF\n");
        let lib = self.path.display().to_string();
        s.push_str(&shell_line(&[
            "cc".to_owned(),
            "-o".to_owned(),
            "comgr-read".to_owned(),
            "comgr-read.c".to_owned(),
            lib,
        ]));
        s.push('\n');
        // exec: a crash of the reader is the script's own death by signal.
        let mut run = vec!["exec".to_owned(), "./comgr-read".to_owned()];
        run.extend(names);
        s.push_str(&shell_line(&run));
        s.push('\n');
        s
    }
}

/// The standalone reader of [`ComgrPeer::reproducer`]: declares the few
/// comgr functions it calls (no ROCm headers needed), prints the ISA name,
/// the metadata tree and the number of symbols of each file, with every
/// status.
const C_READER: &str = r#"#include <stdio.h>
#include <stdlib.h>
typedef struct { unsigned long long handle; } H;
int amd_comgr_create_data(int kind, H *data);
int amd_comgr_set_data(H data, size_t size, const char *bytes);
int amd_comgr_get_data_isa_name(H data, size_t *size, char *name);
int amd_comgr_get_data_metadata(H data, H *node);
int amd_comgr_get_metadata_kind(H node, int *kind);
int amd_comgr_get_metadata_string(H node, size_t *size, char *s);
int amd_comgr_get_metadata_list_size(H node, size_t *size);
int amd_comgr_index_list_metadata(H node, size_t i, H *value);
int amd_comgr_iterate_map_metadata(H node, int (*cb)(H, H, void *), void *user);
int amd_comgr_iterate_symbols(H data, int (*cb)(H, void *), void *user);
static void show(H n, int depth);
static int entry(H k, H v, void *user) {
  int d = *(int *)user;
  printf("%*s", 2 * d, "");
  show(k, -1);
  printf(":");
  show(v, d + 1);
  return 0;
}
static void show(H n, int d) {
  int kind = -1;
  amd_comgr_get_metadata_kind(n, &kind);
  if (kind == 1) {
    size_t s = 0;
    amd_comgr_get_metadata_string(n, &s, NULL);
    char *b = calloc(s + 1, 1);
    amd_comgr_get_metadata_string(n, &s, b);
    printf(d < 0 ? "'%s'" : " '%s'\n", b);
    free(b);
  } else if (kind == 2) {
    int dd = d < 0 ? 0 : d;
    printf("\n");
    amd_comgr_iterate_map_metadata(n, entry, &dd);
  } else if (kind == 3) {
    size_t s = 0;
    amd_comgr_get_metadata_list_size(n, &s);
    printf("\n");
    for (size_t i = 0; i < s; i++) {
      H e;
      if (amd_comgr_index_list_metadata(n, i, &e) == 0) {
        printf("%*s-", 2 * d, "");
        show(e, d + 1);
      }
    }
  } else {
    printf(" (kind %d)\n", kind);
  }
}
static int count(H s, void *user) { (void)s; ++*(int *)user; return 0; }
int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    FILE *f = fopen(argv[a], "rb");
    if (!f) { perror(argv[a]); return 2; }
    static char buf[1 << 24];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    /* ET_REL: a relocatable data object; anything else: executable. */
    int kind = len > 16 && buf[16] == 1 ? 7 : 8;
    H d;
    printf("%s: create_data %d", argv[a], amd_comgr_create_data(kind, &d));
    printf(", set_data %d\n", amd_comgr_set_data(d, len, buf));
    fflush(stdout);
    size_t s = 0;
    int st = amd_comgr_get_data_isa_name(d, &s, NULL);
    char *name = calloc(s + 1, 1);
    if (st == 0) st = amd_comgr_get_data_isa_name(d, &s, name);
    printf("isa name: status %d '%s'\n", st, name);
    free(name);
    fflush(stdout);
    H md;
    st = amd_comgr_get_data_metadata(d, &md);
    printf("metadata: status %d", st);
    if (st == 0) show(md, 0); else printf("\n");
    fflush(stdout);
    int n = 0;
    st = amd_comgr_iterate_symbols(d, count, &n);
    printf("symbols: status %d, %d symbols\n", st, n);
  }
  return 0;
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_comgr_difference_is_in_the_allowlist() {
        let a = super::super::allowlist::Allowlist::builtin();
        for k in compare_meta::KNOWN {
            let tag = format!("comgr:{}", k.id);
            assert!(
                a.entries
                    .iter()
                    .any(|e| e.tag.as_deref() == Some(tag.as_str())
                        && e.comparison.as_deref() == Some(ComparisonId::ComgrMetadata.as_str())),
                "no allowlist entry for {tag}"
            );
        }
    }

    #[test]
    fn paths_lose_positions() {
        assert_eq!(
            norm("/amdhsa.kernels/0/.args/1/.size"),
            "/amdhsa.kernels/.args/.size"
        );
        assert_eq!(norm("[3]"), "[]");
        assert_eq!(norm("/"), "/");
    }

    #[test]
    fn known_differences_become_tags_and_unknown_ones_keys() {
        let known = json!({"errors": {}, "report": {"isa_name": "known", "metadata": "same", "symbols": "same",
            "differences": [{"aspect": "isa_name", "path": "/", "comgr": "error: x", "oracle": "amdgcn-amd-amdhsa--gfx1100", "known": "isa_name.unsupported"}]}});
        match compare_view(&known) {
            Verdict::Differs(d) => {
                assert_eq!(d.tags, ["comgr:isa_name.unsupported"]);
                assert!(!d.informational);
            }
            v => panic!("{v:?}"),
        }
        let new = json!({"errors": {}, "report": {"isa_name": "same", "metadata": "different", "symbols": "same",
            "differences": [{"aspect": "metadata", "path": "/amdhsa.kernels/0/.name", "comgr": "a", "oracle": "b", "known": null}]}});
        match compare_view(&new) {
            Verdict::Differs(d) => {
                assert_eq!(
                    d.key,
                    "comgr-metadata: metadata /amdhsa.kernels/.name differs"
                );
                assert!(d.tags.is_empty());
            }
            v => panic!("{v:?}"),
        }
        let same = json!({"errors": {}, "report": {"isa_name": "same", "metadata": "same", "symbols": "same", "differences": []}});
        assert_eq!(compare_view(&same), Verdict::Same);
        assert_eq!(complaint(&same), None);
        assert_eq!(
            complaint(&json!({"errors": {"metadata": "bad"}})),
            Some("metadata: bad".to_owned())
        );
    }
}
