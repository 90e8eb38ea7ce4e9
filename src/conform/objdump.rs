//! `llvm-objdump-NN` as a peer ([`ObjdumpPeer`]): the kernel descriptors
//! of an object decoded (`descriptors`, judged in [`super::descriptors`]),
//! and whether it complains about an invalid object (`mutants`).

use std::path::{Path, PathBuf};
use std::process::Command;

use hsaco_oracle::check::check_object;
use serde_json::{json, Value};

use super::descriptors::parse_objdump;
use super::findings::shell_line;
use super::isolate;
use super::run::{each_object_for, mutant_view, run_all_on_object, write_object, Ran};
use super::{ComparisonId, Ctx, Input, NotComparable, Peer, PeerInfo, PeerResult, View};
use crate::peers::discover;

/// The descriptor symbols of an object (as the oracle finds them).
pub(super) fn kd_symbols(bytes: &[u8]) -> Vec<String> {
    check_object(bytes)
        .kernels
        .iter()
        .filter(|k| k.descriptor.is_some())
        .map(|k| format!("{}.kd", k.name))
        .collect()
}

/// Bytes of kernel descriptor symbols one llvm-objdump command line names:
/// a single argument may not exceed 128 KiB (Linux's MAX_ARG_STRLEN), and
/// a library's code object can have thousands of kernels with long names.
const KD_ARG_BYTES: usize = 100_000;

/// `syms` cut into runs whose `--disassemble-symbols=` list stays within
/// [`KD_ARG_BYTES`] (a symbol longer than that alone in its run).
fn kd_batches(syms: &[String]) -> Vec<&[String]> {
    let mut out = Vec::new();
    let (mut start, mut len) = (0, 0);
    for (k, s) in syms.iter().enumerate() {
        if k > start && len + 1 + s.len() > KD_ARG_BYTES {
            out.push(&syms[start..k]);
            (start, len) = (k, 0);
        }
        len += s.len() + 1;
    }
    if start < syms.len() {
        out.push(&syms[start..]);
    }
    out
}

/// The command lines of llvm-objdump (`name`) printing the kernel
/// descriptors `syms` of `file`: one per [`kd_batches`] run.
pub(super) fn objdump_argvs(name: &str, syms: &[String], file: &str) -> Vec<Vec<String>> {
    kd_batches(syms)
        .into_iter()
        .map(|b| {
            vec![
                name.to_owned(),
                "-D".to_owned(),
                format!("--disassemble-symbols={}", b.join(",")),
                file.to_owned(),
            ]
        })
        .collect()
}

/// Runs llvm-objdump (`exe`) on the kernel descriptors of `bytes`: their
/// symbols and the run's [`outcome`] (the outputs of several runs joined,
/// when the symbols do not fit one command line).
pub(super) fn objdump_descriptors(
    ctx: &Ctx,
    exe: &Path,
    bytes: &[u8],
) -> Result<(Vec<String>, Ran), PeerResult> {
    let syms = kd_symbols(bytes);
    if syms.is_empty() {
        return Err(PeerResult::NotComparable(NotComparable::Object(
            "the object has no kernel descriptors".to_owned(),
        )));
    }
    let run = run_all_on_object(ctx, bytes, |f| {
        objdump_argvs(&exe.display().to_string(), &syms, &f.to_string_lossy())
            .into_iter()
            .map(|argv| {
                let mut cmd = Command::new(exe);
                cmd.args(argv.get(1..).unwrap_or_default());
                cmd
            })
            .collect()
    })?;
    Ok((syms, run))
}

/// A shell script that writes each object ([`super::run::write_object`]) and runs the
/// peer's commands on it (`argvs(kernel descriptor symbols, file name)`).
pub(super) fn object_script(
    inputs: &[Input],
    argvs: impl Fn(&[String], &str) -> Vec<Vec<String>>,
) -> String {
    let mut s = String::from(
        "#!/bin/sh\n# Shows the peer alone on the object (written here if missing).\n",
    );
    for i in inputs {
        let Input::File { name, bytes } = i else {
            continue;
        };
        s.push_str(&write_object(name, bytes));
        for argv in argvs(&kd_symbols(bytes), name) {
            s.push_str(&shell_line(&argv));
            s.push('\n');
        }
    }
    s
}

/// `llvm-objdump-NN`: decodes kernel descriptors (comparisons
/// [`ComparisonId::Descriptors`] and [`ComparisonId::Mutants`]).
pub struct ObjdumpPeer {
    info: PeerInfo,
    path: PathBuf,
    /// An `llvm-mc` of the same version, to ask whether it knows a
    /// processor.
    mc: Option<PathBuf>,
}

impl ObjdumpPeer {
    /// The peer of `objdump` (LLVM `version`), under its discovery id;
    /// `mc`, an `llvm-mc` of the same version, is asked whether it knows a
    /// processor.
    pub fn new(version: u32, objdump: &discover::Peer, mc: Option<PathBuf>) -> Self {
        Self {
            info: PeerInfo::llvm(
                objdump.id.clone(),
                "llvm-objdump",
                version,
                objdump.path.display().to_string(),
                &[ComparisonId::Descriptors, ComparisonId::Mutants],
            ),
            path: objdump.path.clone(),
            mc,
        }
    }

    /// For `mutants`: whether llvm-objdump complains about the object's
    /// descriptors (exit status, standard error, a descriptor it refuses
    /// or does not print).
    fn judge(&self, ctx: &Ctx, bytes: &[u8]) -> PeerResult {
        let (syms, (ok, out, err)) = match objdump_descriptors(ctx, &self.path, bytes) {
            Ok(x) => x,
            Err(p) => return p,
        };
        let blocks = parse_objdump(&out);
        let complaint = syms.iter().find_map(|s| {
            let k = s.strip_suffix(".kd").unwrap_or(s);
            match blocks.get(k) {
                None => Some(format!("{s}: not printed")),
                Some(b) => b
                    .get("error")
                    .and_then(Value::as_str)
                    .map(|e| format!("{s}: {e}")),
            }
        });
        mutant_view(ok, &err, complaint)
    }

    fn decode(&self, ctx: &Ctx, bytes: &[u8]) -> PeerResult {
        match objdump_descriptors(ctx, &self.path, bytes) {
            Ok((_, (true, out, _))) => PeerResult::View(View::Json {
                value: json!({ "kernels": parse_objdump(&out) }),
            }),
            Ok((_, (false, _, err))) => PeerResult::View(View::Json {
                value: json!({ "tool_error": isolate::tail(&err, 4).join(" ") }),
            }),
            Err(p) => p,
        }
    }
}

impl Peer for ObjdumpPeer {
    fn info(&self) -> &PeerInfo {
        &self.info
    }
    fn supports(
        &self,
        ctx: &Ctx,
        _comparison: ComparisonId,
        cpu: &str,
    ) -> Result<(), NotComparable> {
        let version = self.info.version.unwrap_or(0);
        super::llvm::knows(ctx, self.mc.as_deref(), version, cpu, true)
    }
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
            "llvm-objdump reads code objects",
            each,
            |bytes| self.judge(ctx, bytes),
            |bytes| self.decode(ctx, bytes),
        );
    }
    fn reproducer(&self, _comparison: ComparisonId, inputs: &[Input]) -> String {
        object_script(inputs, |syms, name| {
            objdump_argvs(&self.path.display().to_string(), syms, name)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_symbols_are_cut_to_fit_a_command_line() {
        let syms: Vec<String> = (0..3000)
            .map(|k| format!("{}{k}.kd", "k".repeat(90)))
            .collect();
        let runs = kd_batches(&syms);
        assert!(runs.len() > 1);
        assert_eq!(runs.concat(), syms);
        for r in &runs {
            assert!(r.join(",").len() <= KD_ARG_BYTES);
        }
        let argvs = objdump_argvs("llvm-objdump-19", &syms, "x.hsaco");
        assert_eq!(argvs.len(), runs.len());
        assert!(kd_batches(&[]).is_empty());
        let one = vec!["a.kd".to_owned()];
        assert_eq!(kd_batches(&one), [&one[..]]);
    }
}
