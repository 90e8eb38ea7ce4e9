//! The `rebuild` comparison: the generator's assembler text, assembled by
//! `llvm-mc` (19, or 14 for code object V3) and linked by `ld.lld
//! -shared` ([`RebuildPeer`]), must give the generator's loaded image
//! (program headers, allocated sections) and the same oracle verdict.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use hsaco_gen::{emit, Rebuild};
use hsaco_oracle::check::check_object;
use hsaco_oracle::elf::{Elf, SHF_ALLOC};
use hsaco_oracle::targets;
use hsaco_oracle::{Severity, Sink};
use serde_json::{json, Value};

use super::cases::case_of;
use super::findings::shell_line;
use super::isolate;
use super::run::{io_failed, run_program, scratch_file};
use super::{ComparisonId, Ctx, Input, NotComparable, Peer, PeerInfo, PeerResult, Verdict, View};
use crate::peers::discover;

/// The first line of a rendered rebuild input: the `llvm-mc` arguments.
pub(super) const ARGS_PREFIX: &str = "; llvm-mc arguments: ";

/// The first LLVM whose assembler is given the code object version by the
/// `.amdhsa_code_object_version` directive (the generator writes it);
/// older ones take the `--amdhsa-code-object-version` option.
pub(super) const COV_DIRECTIVE_FROM: u32 = 19;

/// Why LLVM `version`'s assembler cannot write code object version `cov`,
/// if it cannot: both abort ("LLVM ERROR: Unsupported AMDHSA Code Object
/// Version"), llvm-mc-19 on V3, llvm-mc-14 on V6 (added in LLVM 18); and
/// llvm-mc-19 and -22 no longer know V2's `.hsa_code_object_version`
/// ("unknown directive"; 17 and 18 were not at hand to check).
pub(super) fn assembler_refuses(cov: targets::CodeObjectVersion, version: u32) -> Option<String> {
    ((cov <= targets::CodeObjectVersion::V3 && version >= 19)
        || (cov >= targets::CodeObjectVersion::V6 && version < 18))
        .then(|| format!("LLVM {version} cannot assemble code object {cov:?}"))
}

/// The input of a rebuild for `peer`: the generated case `input` names,
/// as its assembler text with the `llvm-mc` arguments in a first comment
/// line ([`ARGS_PREFIX`]), in the dialect of the peer's LLVM version.
pub(super) fn render(peer: &dyn Peer, input: &Input) -> Result<Input, String> {
    let Input::File { name, .. } = input else {
        return Err("a rebuild starts from a generated object".to_owned());
    };
    let case = case_of(name).ok_or_else(|| format!("{name} names no generated case"))?;
    if case.rebuild == Rebuild::Unavailable {
        return Err("the case is not rebuildable".to_owned());
    }
    let version = peer
        .info()
        .version
        .ok_or("the assembler's LLVM version is unknown")?;
    let cov = case.object.target.cov;
    if let Some(why) = assembler_refuses(cov, version) {
        return Err(why);
    }
    let mut args = emit::asm::llvm_mc_args(&case.object);
    let mut text = case.asm.clone();
    if cov >= targets::CodeObjectVersion::V4 && version < COV_DIRECTIVE_FROM {
        // The generator writes LLVM 19's directive; older assemblers
        // take the version as an option.
        let directive = format!(".amdhsa_code_object_version {}", cov.number());
        text = text
            .lines()
            .filter(|l| l.trim() != directive)
            .flat_map(|l| [l, "\n"])
            .collect();
        let at = args.len().saturating_sub(1);
        args.insert(at, format!("--amdhsa-code-object-version={}", cov.number()));
    }
    Ok(Input::Asm {
        text: format!("{ARGS_PREFIX}{}\n{text}", args.join(" ")),
    })
}

/// Program headers and allocated sections (header line, contents) of an
/// object, as a loader sees them.
type Image = (Vec<String>, Vec<(String, Vec<u8>)>);

fn loaded_image(bytes: &[u8]) -> Option<Image> {
    let mut sink = Sink::new();
    let elf = Elf::parse(bytes, &mut sink)?;
    let phdrs = elf
        .segments
        .iter()
        .map(|p| {
            format!(
                "type {:#x} flags {} off {:#x} addr {:#x} filesz {:#x} memsz {:#x} align {:#x}",
                p.p_type, p.flags, p.offset, p.vaddr, p.filesz, p.memsz, p.align
            )
        })
        .collect();
    let sections = elf
        .sections
        .iter()
        .filter(|s| s.flags & SHF_ALLOC != 0)
        .map(|s| {
            (
                format!(
                    "{} type {:#x} flags {:#x} addr {:#x} off {:#x} size {:#x} link {} info {} align {} entsize {}",
                    s.name, s.sh_type, s.flags, s.addr, s.offset, s.size, s.link, s.info,
                    s.addralign, s.entsize
                ),
                s.data(bytes).map(<[u8]>::to_vec).unwrap_or_default(),
            )
        })
        .collect();
    Some((phdrs, sections))
}

/// The rule ids of the oracle's errors on an object, sorted.
fn errors(bytes: &[u8]) -> BTreeSet<String> {
    check_object(bytes)
        .violations
        .iter()
        .filter(|v| v.severity == Severity::Error)
        .map(|v| v.rule.id.to_owned())
        .collect()
}

pub(super) fn compare_rebuild(gen: &[u8], value: &Value) -> Verdict {
    if let Some(e) = value.get("error").and_then(Value::as_str) {
        // `TOOL: standard error`: the first error, with the source line it
        // quotes, names the finding (not the scratch file's position).
        let (tool, err) = e.split_once(": ").unwrap_or(("LLVM", e));
        let first = first_error(err);
        let (reason, at) = first
            .strip_prefix("error: ")
            .unwrap_or(&first)
            .split_once(" (at `")
            .map_or((first.as_str(), ""), |(r, a)| {
                (r, a.strip_suffix("`)").unwrap_or(a))
            });
        // A directive the assembler does not know names the finding too
        // (each is its own problem; instruction operands are not).
        let directive = at
            .split_whitespace()
            .next()
            .filter(|d| d.starts_with('.') && reason.starts_with("unknown"))
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        return Verdict::differs(
            format!("LLVM rejects the generator's assembler text: {tool}: {first}"),
            format!("rebuild: the assembler or linker rejects the text: {reason}{directive}"),
            rejection_tags(gen, &first),
        );
    }
    let Some(rebuilt) = value
        .get("object")
        .and_then(Value::as_str)
        .and_then(super::hex_bytes::decode)
    else {
        return Verdict::NotComparable("the peer returned no object".to_owned());
    };
    let (Some(a), Some(b)) = (loaded_image(gen), loaded_image(&rebuilt)) else {
        return Verdict::differs(
            "the rebuilt object is not an ELF file the oracle parses".to_owned(),
            "rebuild: not an ELF file",
            Vec::new(),
        );
    };
    if a.0 != b.0 {
        let k = a.0.iter().zip(&b.0).position(|(x, y)| x != y);
        let detail = match k {
            Some(k) => format!("program header {k}: generator {} / LLVM {}", a.0[k], b.0[k]),
            None => format!(
                "{} program headers from the generator, {} from LLVM",
                a.0.len(),
                b.0.len()
            ),
        };
        return Verdict::differs(
            format!("loaded image differs: {detail}"),
            "rebuild: program headers differ",
            Vec::new(),
        );
    }
    let names = |i: &Image| i.1.iter().map(|s| s.0.clone()).collect::<Vec<_>>();
    if names(&a) != names(&b) {
        let k = a.1.iter().zip(&b.1).position(|(x, y)| x.0 != y.0);
        let detail = match k {
            Some(k) => format!("generator {} / LLVM {}", a.1[k].0, b.1[k].0),
            None => format!("{} / {} allocated sections", a.1.len(), b.1.len()),
        };
        let section = k
            .and_then(|k| a.1[k].0.split_whitespace().next())
            .unwrap_or("?");
        return Verdict::differs(
            format!("section headers differ: {detail}"),
            format!("rebuild: section {section} header differs"),
            Vec::new(),
        );
    }
    for ((ha, da), (_, db)) in a.1.iter().zip(&b.1) {
        if da != db {
            let section = ha.split_whitespace().next().unwrap_or("?");
            let at = da.iter().zip(db).position(|(x, y)| x != y).unwrap_or(0);
            return Verdict::differs(
                format!("contents of {section} differ (first at byte {at:#x})"),
                format!("rebuild: section {section} contents differ"),
                Vec::new(),
            );
        }
    }
    let (ea, eb) = (errors(gen), errors(&rebuilt));
    if ea != eb {
        return Verdict::differs(
            format!("oracle errors: generator's object {ea:?}, rebuilt object {eb:?}"),
            "rebuild: oracle verdict differs",
            Vec::new(),
        );
    }
    Verdict::Same
}

/// Allowlist tags of a rejection of the generator's (LLVM 19's) text that
/// the object itself explains: a metadata value kind older LLVM does not
/// know, or LLVM 19's SMEM spelling of an SGPR offset plus an immediate.
/// `first` is [`first_error`]'s line.
fn rejection_tags(gen: &[u8], first: &str) -> Vec<String> {
    let at = first
        .split_once(" (at `")
        .and_then(|(_, r)| r.strip_suffix("`)"))
        .unwrap_or("");
    let mut tags = Vec::new();
    if first.starts_with("error: invalid HSA metadata") {
        let kinds: BTreeSet<String> = check_object(gen)
            .metadata
            .iter()
            .flat_map(|m| &m.kernels)
            .flat_map(|k| &k.args)
            .filter_map(|a| a.value_kind.clone())
            .collect();
        for k in NEWER_VALUE_KINDS {
            if kinds.contains(*k) {
                tags.push(format!("rebuild:value-kind:{k}"));
            }
        }
    }
    if (first.starts_with("error: invalid operand for instruction")
        || first.starts_with("error: not a valid operand."))
        && at.starts_with("s_")
    {
        // `s_load_dword s5, s[2:3], s7 offset:0x10`: the operand before
        // `offset:` is a scalar register (s7, ttmp1, m0, vcc_lo, ...), not
        // a number.
        let sgpr_then_imm = at.split_once(" offset:").is_some_and(|(before, _)| {
            before.rsplit(", ").next().is_some_and(|op| {
                op.starts_with(|c: char| c.is_ascii_alphabetic()) && !op.contains('[')
            })
        });
        if sgpr_then_imm {
            tags.push("rebuild:smem-sgpr-and-immediate-offset".to_owned());
        }
    }
    tags
}

/// Metadata argument value kinds the generator writes that some LLVM
/// before 19 does not know (its assembler calls the metadata invalid).
const NEWER_VALUE_KINDS: &[&str] = &["hidden_dynamic_lds_size"];

/// The first error line of an assembler's standard error, with the source
/// line it quotes.
pub(super) fn first_error(err: &str) -> String {
    let mut lines = err.lines();
    let Some(first) = lines.by_ref().find(|l| l.contains("error")) else {
        return isolate::tail(err, 2).join(" ");
    };
    // `file:line:col: error: message`: the file name is a scratch name.
    let msg = first
        .split_once(": error: ")
        .map_or(first.to_owned(), |(_, m)| format!("error: {m}"));
    match lines.next().map(str::trim) {
        Some(src) if !src.is_empty() => format!("{msg} (at `{src}`)"),
        _ => msg,
    }
}

/// `llvm-mc-NN` + `ld.lld`: rebuilds assembler text into a linked code
/// object (comparison [`ComparisonId::Rebuild`]).
pub struct RebuildPeer {
    info: PeerInfo,
    mc: PathBuf,
    mc_id: String,
    lld: PathBuf,
    lld_id: String,
}

impl RebuildPeer {
    /// The peer of assembler `mc` (LLVM `version`) and linker `lld`, known
    /// as `MC-ID+LLD-ID`.
    pub fn new(version: u32, mc: &discover::Peer, lld: &discover::Peer) -> Self {
        Self {
            info: PeerInfo::llvm_pair(mc, lld, "rebuild", version, &[ComparisonId::Rebuild]),
            mc: mc.path.clone(),
            mc_id: mc.id.clone(),
            lld: lld.path.clone(),
            lld_id: lld.id.clone(),
        }
    }

    fn args_and_text(text: &str) -> (Vec<String>, &str) {
        let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
        match first.strip_prefix(ARGS_PREFIX) {
            Some(a) => (a.split_whitespace().map(str::to_owned).collect(), rest),
            None => (Vec::new(), text),
        }
    }

    fn rebuild(&self, ctx: &Ctx, text: &str) -> PeerResult {
        let (args, _) = Self::args_and_text(text);
        let (s, o, so) = (
            scratch_file(ctx, "s"),
            scratch_file(ctx, "o"),
            scratch_file(ctx, "hsaco"),
        );
        if let Err(e) = std::fs::write(&s, text) {
            return io_failed(format!("cannot write {}: {e}", s.display()));
        }
        let mut mc = Command::new(&self.mc);
        mc.args(&args).arg(&s).arg("-o").arg(&o);
        let r = (|| {
            let (ok, _, err) = run_program(ctx, mc)?;
            if !ok {
                return Ok(json!({ "error": format!("{}: {}", self.mc_id, err.trim()) }));
            }
            let mut ld = Command::new(&self.lld);
            ld.arg("-shared").arg(&o).arg("-o").arg(&so);
            let (ok, _, err) = run_program(ctx, ld)?;
            if !ok {
                return Ok(json!({ "error": format!("{}: {}", self.lld_id, err.trim()) }));
            }
            match std::fs::read(&so) {
                Ok(b) => Ok(json!({ "object": super::hex_bytes::encode(&b) })),
                Err(e) => Err(io_failed(format!("cannot read the linked object: {e}"))),
            }
        })();
        for p in [&s, &o, &so] {
            let _ = std::fs::remove_file(p);
        }
        match r {
            Ok(value) => PeerResult::View(View::Json { value }),
            Err(p) => p,
        }
    }
}

impl Peer for RebuildPeer {
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
        super::llvm::knows(ctx, Some(&self.mc), version, cpu, false)
    }
    fn run(
        &self,
        ctx: &Ctx,
        _comparison: ComparisonId,
        _cpu: &str,
        inputs: &[Input],
        each: &mut dyn FnMut(usize, PeerResult),
    ) {
        for (k, i) in inputs.iter().enumerate() {
            match i {
                Input::Asm { text } => each(k, self.rebuild(ctx, text)),
                _ => each(
                    k,
                    PeerResult::NotComparable(NotComparable::Reads(
                        "a rebuild reads assembler text",
                    )),
                ),
            }
        }
    }
    fn reproducer(&self, _comparison: ComparisonId, inputs: &[Input]) -> String {
        let mut s = String::from(
            "#!/bin/sh\n# Rebuilds the generated assembler text with LLVM alone.\nset -e\n",
        );
        for (k, i) in inputs.iter().enumerate() {
            let Input::Asm { text } = i else { continue };
            let (args, _) = Self::args_and_text(text);
            let stem = format!("case{k}");
            s.push_str(&format!("cat > {stem}.s <<'HSACO_EOF'\n{text}"));
            if !text.ends_with('\n') {
                s.push('\n');
            }
            s.push_str("HSACO_EOF\n");
            let mut mc = vec![self.mc.display().to_string()];
            mc.extend(args);
            mc.extend([format!("{stem}.s"), "-o".into(), format!("{stem}.o")]);
            s.push_str(&shell_line(&mc));
            s.push('\n');
            let ld = [
                self.lld.display().to_string(),
                "-shared".into(),
                format!("{stem}.o"),
                "-o".into(),
                format!("{stem}.hsaco"),
            ];
            s.push_str(&shell_line(&ld));
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_errors_drop_the_scratch_file_name() {
        let err = "/tmp/x/objpeer-1-2.s:12:2: error: value out of range\n\t.amdhsa_next_free_sgpr 112\n\t^\n/tmp/x.s:13:1: error: unknown directive\n";
        assert_eq!(
            first_error(err),
            "error: value out of range (at `.amdhsa_next_free_sgpr 112`)"
        );
    }

    #[test]
    fn rebuild_inputs_carry_their_arguments() {
        let (a, t) = RebuildPeer::args_and_text(
            "; llvm-mc arguments: -triple=amdgcn-amd-amdhsa -mcpu=gfx900\n.text\n",
        );
        assert_eq!(a, ["-triple=amdgcn-amd-amdhsa", "-mcpu=gfx900"]);
        assert_eq!(t, ".text\n");
    }
}
