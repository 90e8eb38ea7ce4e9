//! `llvm-readobj-NN --notes` as a peer ([`ReadobjPeer`]): the metadata
//! notes of an object as YAML (`metadata`, judged in
//! [`super::objects_meta`]), and whether it complains about an invalid
//! object (`mutants`).

use std::path::PathBuf;
use std::process::Command;

use serde_json::{json, Value};

use super::isolate;
use super::objdump::object_script;
use super::objects_meta::parse_yaml;
use super::run::{each_object_for, mutant_view, run_on_object, Ran};
use super::{ComparisonId, Ctx, Input, NotComparable, Peer, PeerInfo, PeerResult, View};

/// `llvm-readobj-NN --notes`: the metadata note as YAML (comparisons
/// [`ComparisonId::Metadata`] and [`ComparisonId::Mutants`]).
pub struct ReadobjPeer {
    info: PeerInfo,
    path: PathBuf,
}

impl ReadobjPeer {
    /// The peer for one program (its absolute path: reproducers name it),
    /// known as `id` (`llvm-readobj-19`, or a name given with `--peer`).
    pub fn new(version: u32, path: PathBuf, id: &str) -> Self {
        Self {
            info: PeerInfo::llvm(
                id.to_owned(),
                "llvm-readobj",
                version,
                path.display().to_string(),
                &[ComparisonId::Metadata, ComparisonId::Mutants],
            ),
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
        mutant_view(ok, &err, complaint)
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
                return PeerResult::NotComparable(NotComparable::Object(
                    "llvm-readobj's YAML is outside the subset read here".to_owned(),
                ));
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
            return PeerResult::NotComparable(NotComparable::Object(format!(
                "llvm-readobj prints {yamls} of {notes} metadata notes as YAML"
            )));
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
    fn info(&self) -> &PeerInfo {
        &self.info
    }
    // llvm-readobj prints notes whether or not its LLVM knows the
    // processor: no probe (the default `supports`).
    fn run(
        &self,
        ctx: &Ctx,
        comparison: ComparisonId,
        _cpu: &str,
        inputs: &[Input],
        each: &mut dyn FnMut(usize, PeerResult),
    ) {
        each_object_for(
            comparison,
            inputs,
            "llvm-readobj reads code objects",
            each,
            |bytes| self.judge(ctx, bytes),
            |bytes| self.read(ctx, bytes),
        );
    }
    fn reproducer(&self, _comparison: ComparisonId, inputs: &[Input]) -> String {
        object_script(inputs, |_, name| {
            vec![vec![
                self.path.display().to_string(),
                "--notes".to_owned(),
                name.to_owned(),
            ]]
        })
    }
}
