//! The reassembly peer of the `descriptors` comparison
//! ([`ReassemblePeer`], `llvm-objdump-NN+llvm-mc-NN`): the
//! `.amdhsa_kernel` blocks llvm-objdump prints, verbatim, under the
//! object's own `.amdgcn_target` and code object version, are assembled by
//! llvm-mc of the same version (one run per object) and each `K.kd` must
//! come back as the object's 64 bytes (the entry offset, which llvm-objdump
//! does not print, left out). Known LLVM round-trip limits carry
//! `reassembly:*` tags ([`explain_change`], [`explain_rejection`]).

use std::path::PathBuf;
use std::process::Command;

use hsaco_oracle::check::check_object;
use hsaco_oracle::elf::Elf;
use hsaco_oracle::kd::{self, KernelDescriptor};
use hsaco_oracle::layout;
use hsaco_oracle::targets::{self, Generation, Target};
use hsaco_oracle::Sink;
use serde_json::{json, Map, Value};

use super::descriptors::{mismatch_verdict, parse_objdump, Mismatch};
use super::findings::shell_line;
use super::objdump::{kd_symbols, objdump_argvs, objdump_descriptors};
use super::rebuild::{assembler_refuses, first_error, COV_DIRECTIVE_FROM};
use super::run::{each_object, io_failed, run_program, scratch_file, write_object};
use super::{ComparisonId, Ctx, Input, NotComparable, Peer, PeerInfo, PeerResult, Verdict, View};
use crate::peers::discover;

/// The `.amdhsa_kernel K` ... `.end_amdhsa_kernel` blocks of llvm-objdump's
/// `-D` output, verbatim (kernel name, lines with their newlines), in
/// order. A block cut short (no end line) is left out: only text
/// llvm-objdump printed whole is reassembled.
pub fn directive_blocks(out: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in out.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix(".amdhsa_kernel ") {
            current = Some((name.trim().to_owned(), format!("{line}\n")));
            continue;
        }
        let Some((_, text)) = current.as_mut() else {
            continue;
        };
        text.push_str(line);
        text.push('\n');
        if t == ".end_amdhsa_kernel" {
            blocks.extend(current.take());
        }
    }
    blocks
}

/// How LLVM `version`'s assembler must be told about an object: the
/// `.amdgcn_target` string, the `-mcpu`/`-mattr` arguments and the code
/// object version (a directive from LLVM 19 on; LLVM 14 knows only the
/// `--amdhsa-code-object-version` option).
struct AsmTarget {
    target_id: String,
    args: Vec<String>,
    directive: Option<String>,
}

/// The assembler settings that give `bytes`' own target ID and code object
/// version, or why there are none.
fn asm_target(bytes: &[u8], version: u32) -> Result<AsmTarget, String> {
    let header = hsaco_oracle::elf::read_header(bytes).ok_or("not an ELF file")?;
    let cov = targets::CodeObjectVersion::from_abi_version(header.abi_version)
        .filter(|v| *v >= targets::CodeObjectVersion::V3)
        .ok_or("not a code object V3+")?;
    let id = targets::TargetId::from_e_flags(header.flags, cov)
        .map_err(|e| format!("no target ID in e_flags: {e:?}"))?;
    if let Some(why) = assembler_refuses(cov, version) {
        return Err(why);
    }
    let target_id = if cov == targets::CodeObjectVersion::V3 {
        format!("{}{}", targets::TRIPLE_PREFIX, id.to_v3_string())
    } else {
        id.to_full_string()
    };
    let mut args = vec![
        format!("-triple={}", super::llvm::TRIPLE),
        format!("-mcpu={}", id.target.name),
    ];
    let mattr: Vec<String> = targets::Feature::ALL
        .iter()
        .filter_map(|f| match id.setting(*f) {
            targets::FeatureSetting::On => Some(format!("+{}", f.name())),
            targets::FeatureSetting::Off => Some(format!("-{}", f.name())),
            _ => None,
        })
        .collect();
    if !mattr.is_empty() {
        args.push(format!("-mattr={}", mattr.join(",")));
    }
    let directive = if version >= COV_DIRECTIVE_FROM {
        Some(format!(".amdhsa_code_object_version {}", cov.number()))
    } else {
        args.push(format!("--amdhsa-code-object-version={}", cov.number()));
        None
    };
    args.push("-filetype=obj".to_owned());
    Ok(AsmTarget {
        target_id,
        args,
        directive,
    })
}

/// The lines put before llvm-objdump's blocks: the target ID, the code
/// object version (when a directive) and the section.
fn source_header(t: &AsmTarget) -> Vec<String> {
    let mut v = vec![format!(".amdgcn_target \"{}\"", t.target_id)];
    v.extend(t.directive.clone());
    v.push(".rodata".to_owned());
    v
}

/// The 64 bytes at symbol `name` in a relocatable object.
fn symbol_bytes(obj: &[u8], name: &str) -> Option<Vec<u8>> {
    let mut sink = Sink::new();
    let elf = Elf::parse(obj, &mut sink)?;
    let syms = hsaco_oracle::symbols::read(&elf, &mut sink);
    let s = syms.symbols.iter().find(|s| s.name == name)?;
    let section = elf.sections.get(usize::from(s.shndx))?;
    let data = section.data(obj)?;
    let start = usize::try_from(s.value).ok()?;
    data.get(start..start.checked_add(kd::KD_SIZE)?)
        .map(<[u8]>::to_vec)
}

/// `llvm-objdump-NN` + `llvm-mc-NN`: each kernel descriptor llvm-objdump
/// prints as a directive block, assembled again by the assembler of the
/// same LLVM version, must give the object's descriptor bytes (comparison
/// [`ComparisonId::Descriptors`]).
pub struct ReassemblePeer {
    info: PeerInfo,
    objdump: PathBuf,
    mc: PathBuf,
}

impl ReassemblePeer {
    /// The peer of `objdump` and `mc` (both of LLVM `version`), known as
    /// `OBJDUMP-ID+MC-ID`.
    pub fn new(version: u32, objdump: &discover::Peer, mc: &discover::Peer) -> Self {
        Self {
            info: PeerInfo::llvm_pair(
                objdump,
                mc,
                "llvm-objdump",
                version,
                &[ComparisonId::Descriptors],
            ),
            objdump: objdump.path.clone(),
            mc: mc.path.clone(),
        }
    }

    fn version(&self) -> u32 {
        self.info.version.unwrap_or(0)
    }

    /// Disassembles, reassembles (one llvm-mc run for all the object's
    /// kernels) and reads the descriptors back: the view holds
    /// `{"reassembly": {"kernels": {K: hex}, "missing": [K]}}`, or
    /// `{"reassembly": {"rejected": first error}}`.
    fn reassemble(&self, ctx: &Ctx, bytes: &[u8]) -> PeerResult {
        let t = match asm_target(bytes, self.version()) {
            Ok(t) => t,
            Err(e) => return PeerResult::NotComparable(NotComparable::Object(e)),
        };
        let (s, o) = (scratch_file(ctx, "s"), scratch_file(ctx, "o"));
        let r = (|| {
            let (_, (ok, out, _)) = objdump_descriptors(ctx, &self.objdump, bytes)?;
            let blocks = if ok {
                directive_blocks(&out)
            } else {
                Vec::new()
            };
            if blocks.is_empty() {
                return Err(PeerResult::NotComparable(NotComparable::Object(
                    "llvm-objdump prints no directive block".to_owned(),
                )));
            }
            let mut text = source_header(&t).join("\n");
            text.push('\n');
            for (_, b) in &blocks {
                text.push_str(b);
            }
            std::fs::write(&s, &text)
                .map_err(|e| io_failed(format!("cannot write {}: {e}", s.display())))?;
            let mut mc = Command::new(&self.mc);
            mc.args(&t.args).arg(&s).arg("-o").arg(&o);
            let (ok, _, err) = run_program(ctx, mc)?;
            if !ok {
                return Ok(json!({ "rejected": first_error(&err) }));
            }
            let obj = std::fs::read(&o)
                .map_err(|e| io_failed(format!("cannot read the assembled object: {e}")))?;
            let mut kernels = Map::new();
            let mut missing = Vec::new();
            for (k, _) in &blocks {
                match symbol_bytes(&obj, &format!("{k}.kd")) {
                    Some(b) => {
                        kernels.insert(k.clone(), Value::from(super::hex_bytes::encode(&b)));
                    }
                    None => missing.push(k.clone()),
                }
            }
            // The fields llvm-objdump printed, per kernel: directives
            // (lower case) and comments (upper case, which the assembler
            // cannot take back); what it left out is lost too.
            let printed: Map<String, Value> = parse_objdump(&out)
                .into_iter()
                .map(|(k, v)| {
                    let names: Vec<Value> = v
                        .get("fields")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flat_map(|m| m.keys())
                        .map(|n| Value::from(n.as_str()))
                        .collect();
                    (k, Value::from(names))
                })
                .collect();
            Ok(json!({ "kernels": kernels, "missing": missing, "printed": printed }))
        })();
        for p in [&s, &o] {
            let _ = std::fs::remove_file(p);
        }
        match r {
            Ok(v) => PeerResult::View(View::Json {
                value: json!({ "reassembly": v }),
            }),
            Err(p) => p,
        }
    }
}

impl Peer for ReassemblePeer {
    fn info(&self) -> &PeerInfo {
        &self.info
    }
    fn supports(
        &self,
        ctx: &Ctx,
        _comparison: ComparisonId,
        cpu: &str,
    ) -> Result<(), NotComparable> {
        super::llvm::knows(ctx, Some(&self.mc), self.version(), cpu, true)
    }
    fn run(
        &self,
        ctx: &Ctx,
        _comparison: ComparisonId,
        _cpu: &str,
        inputs: &[Input],
        each: &mut dyn FnMut(usize, PeerResult),
    ) {
        each_object(inputs, "llvm-objdump reads code objects", each, |bytes| {
            self.reassemble(ctx, bytes)
        });
    }
    fn reproducer(&self, _comparison: ComparisonId, inputs: &[Input]) -> String {
        let mut s = String::from(
            "#!/bin/sh\n# Disassembles each kernel descriptor with llvm-objdump, assembles the\n\
             # printed directives again with llvm-mc of the same LLVM version, and\n\
             # prints the original and the reassembled descriptor bytes (.rodata).\n",
        );
        for i in inputs {
            let Input::File { name, bytes } = i else {
                continue;
            };
            s.push_str(&write_object(name, bytes));
            let Ok(t) = asm_target(bytes, self.version()) else {
                continue;
            };
            let (src, obj) = (format!("{name}.s"), format!("{name}.o"));
            s.push_str("{ printf '%s\\n'");
            for h in source_header(&t) {
                s.push(' ');
                s.push_str(&shell_line(&[h]));
            }
            // One llvm-objdump run per batch of descriptor symbols, their
            // output filtered together.
            s.push_str("; { :");
            for argv in objdump_argvs(
                &self.objdump.display().to_string(),
                &kd_symbols(bytes),
                name,
            ) {
                s.push_str("; ");
                s.push_str(&shell_line(&argv));
            }
            s.push_str(&format!(
                "; }} | sed -n '/^[[:space:]]*\\.amdhsa_kernel /,/^[[:space:]]*\\.end_amdhsa_kernel/p'; }} > {}\n",
                shell_line(std::slice::from_ref(&src))
            ));
            let mut mc = vec![self.mc.display().to_string()];
            mc.extend(t.args.iter().cloned());
            mc.extend([src, "-o".to_owned(), obj.clone()]);
            s.push_str(&shell_line(&mc));
            s.push('\n');
            for (what, file) in [("original", name.as_str()), ("reassembled", obj.as_str())] {
                s.push_str(&format!("echo '== {what}'\n"));
                s.push_str(&shell_line(&[
                    self.objdump.display().to_string(),
                    "-s".to_owned(),
                    "-j".to_owned(),
                    ".rodata".to_owned(),
                    file.to_owned(),
                ]));
                s.push('\n');
            }
        }
        s
    }
}

/// Bytes llvm-objdump does not print (the entry offset, which the
/// assembler leaves to a relocation against the undefined entry symbol).
const UNPRINTED: std::ops::Range<usize> = 16..24;

/// Every descriptor field whose value differs between `a` and `b`
/// (decoded for `target`; the unprinted entry offset left out) as (name,
/// value in `a`, value in `b`), then any differing reserved byte.
fn changed_fields(target: &Target, a: &[u8; 64], b: &[u8; 64]) -> Vec<(String, String, String)> {
    let (da, db) = (KernelDescriptor::parse(a), KernelDescriptor::parse(b));
    let (fa, fb) = (da.fields(target), db.fields(target));
    let mut out = Vec::new();
    for x in fa
        .iter()
        .filter(|x| x.name != "kernel_code_entry_byte_offset")
    {
        match fb.iter().find(|y| y.name == x.name) {
            Some(y) if y.value != x.value => {
                out.push((x.name.to_owned(), x.value.to_string(), y.value.to_string()))
            }
            None => out.push((x.name.to_owned(), x.value.to_string(), "absent".to_owned())),
            Some(_) => {}
        }
    }
    for y in fb.iter().filter(|y| !fa.iter().any(|x| x.name == y.name)) {
        out.push((y.name.to_owned(), "absent".to_owned(), y.value.to_string()));
    }
    if out.is_empty() {
        if let Some(at) = (0..kd::KD_SIZE).find(|k| a[*k] != b[*k] && !UNPRINTED.contains(k)) {
            out.push((
                format!("reserved byte {at}"),
                format!("{:#04x}", a[at]),
                format!("{:#04x}", b[at]),
            ));
        }
    }
    out
}

/// User SGPRs the enable bits and the preload length of `d` ask for: the
/// count an assembler writes when no `.amdhsa_user_sgpr_count` is given.
fn implied_user_sgprs(d: &KernelDescriptor) -> u32 {
    let bits = [
        (d.enable_sgpr_private_segment_buffer(), 4),
        (d.enable_sgpr_dispatch_ptr(), 2),
        (d.enable_sgpr_queue_ptr(), 2),
        (d.enable_sgpr_kernarg_segment_ptr(), 2),
        (d.enable_sgpr_dispatch_id(), 2),
        (d.enable_sgpr_flat_scratch_init(), 2),
        (d.enable_sgpr_private_segment_size(), 1),
    ];
    bits.iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| *n)
        .sum::<u32>()
        .saturating_add(d.kernarg_preload_length())
}

/// The comment name under which llvm-objdump prints `field` when it
/// prints it only as a comment (the assembler then writes its default,
/// 0): every layout row printed so ([`layout::Printed::Comment`]), and
/// SHARED_VGPR_COUNT, which llvm-objdump-19 prints as a directive for
/// wave64 kernels but only as a comment for wave32 ones.
fn comment_only(field: &str) -> Option<&'static str> {
    if field == layout::SHARED_VGPR_COUNT.path {
        return Some("SHARED_VGPR_COUNT");
    }
    layout::FIELDS
        .iter()
        .filter(|f| f.path == field)
        .find_map(|f| match f.printed {
            layout::Printed::Comment(n) => Some(n),
            _ => None,
        })
}

/// Fields some llvm-objdump before 19 prints neither as a directive nor
/// as a comment (oracle field, the names it would be printed under):
/// `.amdhsa_uses_dynamic_stack` is missing from LLVM 16 (LLVM 15 and 19
/// print it), GFX11's INST_PREF_SIZE from LLVM 15 and 16.
const NOT_PRINTED_BEFORE_19: &[(&str, &[&str])] = &[
    (
        "kernel_code_properties.uses_dynamic_stack",
        &["uses_dynamic_stack"],
    ),
    (
        "compute_pgm_rsrc3.inst_pref_size",
        &["inst_pref_size", "INST_PREF_SIZE"],
    ),
    // GFX11 fields llvm-objdump-19 prints as comments, 15-16 not at all.
    ("compute_pgm_rsrc3.trap_on_start", &["TRAP_ON_START"]),
    ("compute_pgm_rsrc3.trap_on_end", &["TRAP_ON_END"]),
    ("compute_pgm_rsrc3.image_op", &["IMAGE_OP"]),
];

/// The allowlist tag of a reviewed LLVM round-trip limitation that
/// explains why reassembly turned `field` of `old` into `new`, if one
/// does exactly. `printed`: the directives and comment fields
/// llvm-objdump printed for the kernel.
fn explain_change(
    target: &Target,
    version: u32,
    old: &KernelDescriptor,
    field: &str,
    new_value: &str,
    printed: &[&str],
) -> Option<&'static str> {
    let new_value: u64 = new_value.parse().ok()?;
    if let Some((_, names)) = NOT_PRINTED_BEFORE_19.iter().find(|(f, _)| *f == field) {
        if version < 19 && !names.iter().any(|n| printed.contains(n)) {
            // LLVM 15-16's llvm-objdump prints the field neither as a
            // directive nor as a comment: reassembly writes 0.
            return (new_value == 0).then_some("reassembly:llvm15-16-field-not-printed");
        }
    }
    if field == "compute_pgm_rsrc2.user_sgpr_count" {
        // llvm-objdump does not print .amdhsa_user_sgpr_count: a count
        // above what the enable bits ask for is lost.
        let implied = u64::from(implied_user_sgprs(old));
        return (new_value == implied && u64::from(old.user_sgpr_count(target)) > implied)
            .then_some("reassembly:user-sgpr-count-not-printed");
    }
    if field == "compute_pgm_rsrc3.shared_vgpr_count"
        && version < 19
        && !printed.contains(&"SHARED_VGPR_COUNT")
    {
        // llvm-objdump-14 prints no .amdhsa_shared_vgpr_count.
        return (new_value == 0).then_some("reassembly:llvm14-shared-vgpr-count-not-printed");
    }
    if field == "compute_pgm_rsrc1.granulated_wavefront_sgpr_count"
        && target.architected_flat_scratch
        && target.generation < Generation::Gfx10
    {
        // llvm-objdump prints the whole granule as .amdhsa_next_free_sgpr
        // without .amdhsa_reserve_flat_scratch (refused with architected
        // flat scratch), and llvm-mc adds the FLAT_SCRATCH SGPRs again:
        // one granule more.
        let g = u64::from(old.granulated_wavefront_sgpr_count());
        return (new_value == g.saturating_add(1))
            .then_some("reassembly:architected-flat-scratch-sgprs");
    }
    if let Some(c) = comment_only(field) {
        return (new_value == 0 && printed.contains(&c)).then_some("reassembly:comment-only-field");
    }
    if field == "compute_pgm_rsrc1.disable_perf" && target.generation >= Generation::Gfx12 {
        // GFX12 DISABLE_PERF (rsrc1 bit 23): llvm-objdump-19 prints
        // nothing for it and llvm-mc-19 has no directive.
        return (new_value == 0).then_some("reassembly:gfx12-disable-perf-not-printed");
    }
    if field == "compute_pgm_rsrc1.granulated_workitem_vgpr_count"
        && version < 19
        && target.generation >= Generation::Gfx10
        && !old.wave32(target)
    {
        // llvm-objdump-14 prints the count with the wave32 granule (8),
        // llvm-mc-14 encodes it with the wave64 granule (4).
        let g = u64::from(old.granulated_workitem_vgpr_count());
        return (new_value == g.saturating_mul(2).saturating_add(1))
            .then_some("reassembly:llvm14-wave64-vgpr-granule");
    }
    None
}

/// The allowlist tag of a reviewed reason llvm-mc has to reject
/// llvm-objdump's text of `bytes` (first error `e`), if one explains it
/// exactly.
fn explain_rejection(target: &Target, version: u32, bytes: &[u8], e: &str) -> Option<&'static str> {
    let at = e
        .split_once("(at `")
        .and_then(|(_, r)| r.strip_suffix("`)"))
        .unwrap_or("");
    let mut words = at.split_whitespace();
    let (directive, value) = (words.next().unwrap_or(""), words.next());
    if e.starts_with("error: .amdhsa_reserve_xnack_mask does not match target id") {
        // llvm-mc wants the directive to be the target ID's XNACK setting
        // (1 for on and any); llvm-objdump prints 0, and 1 on GFX12.5.
        let on = hsaco_oracle::elf::read_header(bytes)
            .and_then(|h| {
                let cov = targets::CodeObjectVersion::from_abi_version(h.abi_version)?;
                targets::TargetId::from_e_flags(h.flags, cov).ok()
            })
            .map(|id| id.xnack.is_on_or_any());
        match (at, on) {
            (".amdhsa_reserve_xnack_mask 0", Some(true)) => {
                return Some("reassembly:reserve-xnack-mask")
            }
            (".amdhsa_reserve_xnack_mask 1", Some(false)) if target.is_gfx12_5() => {
                return Some("reassembly:gfx12-5-reserve-xnack-mask")
            }
            _ => {}
        }
    }
    if e.starts_with("error: value out of range")
        && directive == ".amdhsa_next_free_sgpr"
        && target.generation < Generation::Gfx10
    {
        // The SGPR granule counts VCC, FLAT_SCRATCH and XNACK_MASK too;
        // llvm-objdump prints the whole granule with reserve_* 0, past
        // what llvm-mc lets a kernel address.
        let n: u64 = value?.parse().ok()?;
        return (n > u64::from(target.addressable_sgprs) && n.is_multiple_of(8))
            .then_some("reassembly:sgpr-granule-past-addressable");
    }
    if version < 19
        && e.starts_with("error: value out of range")
        && directive == ".amdhsa_next_free_vgpr"
        && target.generation >= Generation::Gfx10
    {
        // llvm-objdump-14's doubled wave64 VGPR count (see
        // explain_change) past what llvm-mc-14 accepts.
        let n: u64 = value?.parse().ok()?;
        let doubled = check_object(bytes).kernels.iter().any(|k| {
            k.descriptor.as_ref().is_some_and(|d| {
                !d.wave32(target)
                    && u64::from(d.granulated_workitem_vgpr_count())
                        .saturating_add(1)
                        .saturating_mul(8)
                        == n
            })
        });
        return (doubled && n > u64::from(target.addressable_vgprs))
            .then_some("reassembly:llvm14-wave64-vgpr-granule");
    }
    if version < 19
        && e.starts_with("error: directive requires gfx9+")
        && directive == ".amdhsa_fp16_overflow"
        && target.generation < Generation::Gfx9
    {
        return Some("reassembly:llvm14-fp16-overflow-before-gfx9");
    }
    if version < 19
        && e.starts_with("error: .amdhsa_accum_offset directive is required")
        && target.accum_offset
    {
        return Some("reassembly:llvm14-no-accum-offset");
    }
    None
}

/// The reassembly peer's view against the object's own descriptor bytes.
pub(super) fn compare_reassembly(
    target: &Target,
    bytes: &[u8],
    r: &Value,
    version: u32,
) -> Verdict {
    if let Some(e) = r.get("rejected").and_then(Value::as_str) {
        return Verdict::differs(
            format!("{target}: llvm-mc-{version} rejects llvm-objdump-{version}'s directives: {e}"),
            "descriptors: llvm-mc rejects llvm-objdump's directives",
            explain_rejection(target, version, bytes, e)
                .map(str::to_owned)
                .into_iter()
                .collect(),
        );
    }
    let Some(kernels) = r.get("kernels").and_then(Value::as_object) else {
        return Verdict::NotComparable("the peer returned no descriptors".to_owned());
    };
    let report = check_object(bytes);
    let mut found: Vec<Mismatch> = Vec::new();
    for k in r
        .get("missing")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        found.push((
            "descriptors: reassembly defines no descriptor symbol".to_owned(),
            format!("{k}: llvm-mc's object has no {k}.kd"),
            Vec::new(),
        ));
    }
    for (k, hex) in kernels {
        let Some(new) = hex
            .as_str()
            .and_then(super::hex_bytes::decode)
            .and_then(|b| <[u8; 64]>::try_from(b).ok())
        else {
            continue;
        };
        let old = report
            .kernels
            .iter()
            .find(|x| &x.name == k)
            .and_then(|x| x.descriptor_offset)
            .and_then(|off| {
                let off = usize::try_from(off).ok()?;
                bytes.get(off..off.checked_add(kd::KD_SIZE)?)
            })
            .and_then(|b| <[u8; 64]>::try_from(b).ok());
        let Some(old) = old else {
            found.push((
                "descriptors: reassembly of a kernel the object lacks".to_owned(),
                format!("{k}: llvm-objdump prints a descriptor the oracle does not find"),
                Vec::new(),
            ));
            continue;
        };
        let printed: Vec<&str> = r
            .get("printed")
            .and_then(|c| c.get(k))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let desc = KernelDescriptor::parse(&old);
        for (field, a, b) in changed_fields(target, &old, &new) {
            let tag = explain_change(target, version, &desc, &field, &b, &printed);
            found.push((
                format!("descriptors: reassembly changes {field}"),
                format!(
                    "{k}: {field}: original {a}, reassembled {b} (descriptor {} reassembled as {})",
                    super::hex_bytes::encode(&old),
                    super::hex_bytes::encode(&new)
                ),
                tag.map(str::to_owned).into_iter().collect(),
            ));
        }
    }
    mismatch_verdict(found, |message| {
        format!("{target}: llvm-objdump-{version} + llvm-mc-{version}: {message}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directive_blocks_are_cut_verbatim() {
        let out = "\nx.hsaco:\tfile format elf64-amdgpu\n\nDisassembly of section .rodata:\n\n\
            0000000000001000 <a.kd>:\n.amdhsa_kernel a\n\t.amdhsa_next_free_vgpr 8\n\t; INST_PREF_SIZE 3\n\
            .end_amdhsa_kernel\n\n0000000000001040 <b.kd>:\n; error decoding b.kd: bad bits\n\
            0000000000001080 <c.kd>:\n.amdhsa_kernel c\n\t.amdhsa_kernarg_size 8\n\t.end_amdhsa_kernel\n\
            00000000000010c0 <d.kd>:\n.amdhsa_kernel d\n\t.amdhsa_kernarg_size 8\n";
        assert_eq!(
            directive_blocks(out),
            [
                (
                    "a".to_owned(),
                    ".amdhsa_kernel a\n\t.amdhsa_next_free_vgpr 8\n\t; INST_PREF_SIZE 3\n.end_amdhsa_kernel\n"
                        .to_owned()
                ),
                (
                    "c".to_owned(),
                    ".amdhsa_kernel c\n\t.amdhsa_kernarg_size 8\n\t.end_amdhsa_kernel\n".to_owned()
                ),
            ]
        );
        assert!(directive_blocks("").is_empty());
    }

    #[test]
    fn reassembly_sources_name_the_object_target_and_version() {
        // A V4 gfx90a object with xnack off and sramecc any, and a V3 one
        // with xnack on and sramecc off.
        let mut v4 = vec![0u8; 64];
        v4[..4].copy_from_slice(b"\x7fELF");
        v4[4] = 2;
        v4[5] = 1;
        v4[7] = 64;
        v4[8] = 2;
        v4[48..52].copy_from_slice(&(0x3f_u32 | 0x200 | 0x400).to_le_bytes());
        let t = asm_target(&v4, 19).expect("V4");
        assert_eq!(t.target_id, "amdgcn-amd-amdhsa--gfx90a:xnack-");
        assert_eq!(
            t.args,
            [
                "-triple=amdgcn-amd-amdhsa",
                "-mcpu=gfx90a",
                "-mattr=-xnack",
                "-filetype=obj"
            ]
        );
        assert_eq!(
            source_header(&t),
            [
                ".amdgcn_target \"amdgcn-amd-amdhsa--gfx90a:xnack-\"",
                ".amdhsa_code_object_version 4",
                ".rodata"
            ]
        );
        let t = asm_target(&v4, 14).expect("V4, LLVM 14");
        assert_eq!(t.directive, None);
        assert!(t
            .args
            .contains(&"--amdhsa-code-object-version=4".to_owned()));
        let mut v3 = v4.clone();
        v3[8] = 1;
        v3[48..52].copy_from_slice(&(0x3f_u32 | 0x100).to_le_bytes());
        let t = asm_target(&v3, 14).expect("V3, LLVM 14");
        assert_eq!(t.target_id, "amdgcn-amd-amdhsa--gfx90a+xnack");
        assert_eq!(t.args[2], "-mattr=-sramecc,+xnack");
        assert_eq!(
            asm_target(&v3, 19).err().as_deref(),
            Some("LLVM 19 cannot assemble code object V3")
        );
    }
}
