//! Object-level comparisons: whole code objects made by `hsaco_gen`, read
//! by LLVM's programs and by the oracle.
//!
//! - `rebuild`: the generator's assembler text, assembled by `llvm-mc`
//!   (19, or 14 for code object V3) and linked by `ld.lld -shared`, must
//!   give the generator's loaded image (program headers, allocated
//!   sections) and the same oracle verdict.
//! - `descriptors`: `llvm-objdump -D --disassemble-symbols=K.kd` of a
//!   generated object, directive by directive, against the oracle's decode
//!   of each kernel descriptor (every installed LLVM version that knows
//!   the processor).
//!   The same comparison has a second peer per LLVM version,
//!   `llvm-objdump-NN+llvm-mc-NN` ([`ReassemblePeer`]): the
//!   `.amdhsa_kernel` blocks llvm-objdump prints, verbatim, under the
//!   object's own `.amdgcn_target` and code object version, are assembled
//!   by llvm-mc of the same version (one run per object) and each `K.kd`
//!   must come back as the object's 64 bytes (the entry offset, which
//!   llvm-objdump does not print, left out). Known LLVM round-trip limits
//!   carry `reassembly:*` tags (`explain_change`, `explain_rejection`).
//! - `metadata` ([`super::objects_meta`]): `llvm-readobj --notes` against
//!   the oracle's metadata model, key by key.
//!
//! - `comgr-metadata` ([`super::comgr`]): comgr's metadata tree, ISA name
//!   and symbols against the oracle (every code object version).
//!
//! Inputs are generated valid cases, a function of the seed, the
//! comparison, the processor, the chunk and the position only; each input
//! is an [`Input::File`] whose name encodes all of these, so a case can be
//! made again from its name.
//!
//! Reduction works on the generator's model, not on bytes: a candidate is
//! the case made again with one more edit ([`Edit`]: a kernel dropped, a
//! kernel's code reduced to `s_endpgm`, its argument list emptied, its
//! optional metadata fields reset, the printf list emptied) and emitted
//! again, so every candidate is a well-formed object the generator could
//! have written. The edits are recorded in the name
//! (`KIND.CPU.SEED.CHUNK.INDEX.EDITS.hsaco`, edits joined by `_`), so a
//! reduced object too can be made again from its name.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use hsaco_gen::{emit, Generator, Rebuild};
use hsaco_oracle::check::check_object;
use hsaco_oracle::elf::{Elf, SHF_ALLOC};
use hsaco_oracle::kd::{self, KernelDescriptor};
use hsaco_oracle::layout;
use hsaco_oracle::targets::{self, Generation, Target};
use hsaco_oracle::{Severity, Sink};
use serde_json::{json, Map, Value};

use super::cases::{case_name, case_of, config, generate, shrink_object, PER_CHUNK};
use super::findings::shell_line;
use super::isolate;
use super::{Comparison, Ctx, Difference, Input, Peer, PeerResult, Verdict, View};
use crate::peers::discover::{self, Discovery, Kind};

/// Comparison id: generated assembler text rebuilt by LLVM.
pub const REBUILD: &str = "rebuild";
/// Comparison id: kernel descriptors as `llvm-objdump` decodes them.
pub const DESCRIPTORS: &str = "descriptors";

// ------------------------------------------------------------ comparisons

/// An object-level comparison ([`REBUILD`], [`DESCRIPTORS`],
/// [`super::objects_meta::METADATA`] or [`super::comgr::COMGR_METADATA`])
/// over generated valid cases.
pub struct ObjectCmp {
    kind: &'static str,
    seed: u64,
    objects: u64,
    /// Objects given by the caller instead of generated ones.
    given: Option<Vec<Input>>,
}

impl ObjectCmp {
    /// `objects` generated cases per processor for comparison `kind`
    /// ([`REBUILD`], [`DESCRIPTORS`], [`super::objects_meta::METADATA`] or
    /// [`super::comgr::COMGR_METADATA`]; anything else is read as
    /// [`DESCRIPTORS`]).
    pub fn new(kind: &str, seed: u64, objects: u64) -> Self {
        let kind = match kind {
            REBUILD => REBUILD,
            super::objects_meta::METADATA => super::objects_meta::METADATA,
            super::comgr::COMGR_METADATA => super::comgr::COMGR_METADATA,
            _ => DESCRIPTORS,
        };
        Self {
            kind,
            seed,
            objects,
            given: None,
        }
    }

    /// Comparison `kind` (as for [`ObjectCmp::new`]; not [`REBUILD`],
    /// which starts from generated assembler text) on the given objects
    /// (`Input::File`s) instead of generated ones, on every processor of
    /// the plan. Their names need not name generated cases; those that do
    /// not are not reduced.
    pub fn given(kind: &str, objects: Vec<Input>) -> Self {
        let mut c = Self::new(kind, 0, objects.len() as u64);
        c.given = Some(objects);
        c
    }
}

impl Comparison for ObjectCmp {
    fn id(&self) -> &'static str {
        self.kind
    }

    fn description(&self) -> &'static str {
        if self.kind == REBUILD {
            "generated assembler text rebuilt by llvm-mc + ld.lld: same loaded image and oracle verdict"
        } else if self.kind == super::objects_meta::METADATA {
            "metadata notes printed by llvm-readobj --notes against the oracle's metadata model"
        } else if self.kind == super::comgr::COMGR_METADATA {
            "comgr's metadata tree, ISA name and symbols against the oracle"
        } else {
            "kernel descriptors decoded by llvm-objdump against the oracle's decode"
        }
    }

    fn applies(&self, _target: &Target) -> Result<(), String> {
        // A processor the generator cannot make yields no inputs.
        Ok(())
    }

    fn chunks(&self, _target: &Target) -> u64 {
        self.objects.div_ceil(PER_CHUNK)
    }

    fn inputs(&self, target: &Target, chunk: u64) -> Vec<Input> {
        if let Some(g) = &self.given {
            let first = usize::try_from(chunk.saturating_mul(PER_CHUNK)).unwrap_or(usize::MAX);
            return g
                .iter()
                .skip(first)
                .take(PER_CHUNK as usize)
                .cloned()
                .collect();
        }
        let cfg = config(self.kind, target);
        let gen = Generator::new(&cfg);
        let first = chunk.saturating_mul(PER_CHUNK);
        let n = self.objects.saturating_sub(first).min(PER_CHUNK);
        (0..n)
            .filter_map(|i| generate(&gen, self.kind, target, self.seed, chunk, i))
            .map(|c| Input::File {
                name: c.id.clone(),
                bytes: c.elf,
            })
            .collect()
    }

    fn origin(&self, target: &Target, chunk: u64, index: usize) -> String {
        if let Some(g) = &self.given {
            let k = usize::try_from(chunk.saturating_mul(PER_CHUNK))
                .unwrap_or(usize::MAX)
                .saturating_add(index);
            return match g.get(k) {
                Some(Input::File { name, .. }) => format!("given object {name}"),
                _ => format!("given object {k}"),
            };
        }
        format!(
            "generated object {} (seed {})",
            case_name(self.kind, target.name, self.seed, chunk, index as u64),
            self.seed
        )
    }

    fn render(&self, peer: &dyn Peer, _target: &Target, input: &Input) -> Result<Input, String> {
        if self.kind != REBUILD {
            return Ok(input.clone());
        }
        let Input::File { name, .. } = input else {
            return Err("a rebuild starts from a generated object".to_owned());
        };
        let case = case_of(name).ok_or_else(|| format!("{name} names no generated case"))?;
        if case.rebuild == Rebuild::Unavailable {
            return Err("the case is not rebuildable".to_owned());
        }
        let version = peer
            .version()
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

    fn compare(
        &self,
        peer: &dyn Peer,
        target: &Target,
        input: &Input,
        view: &View,
        _reference: Option<&View>,
    ) -> Verdict {
        let (Input::File { bytes, .. }, View::Json { value }) = (input, view) else {
            return Verdict::NotComparable("not an object and a structured view".to_owned());
        };
        if self.kind == REBUILD {
            compare_rebuild(bytes, value)
        } else if self.kind == super::objects_meta::METADATA {
            super::objects_meta::compare(input, view)
        } else if self.kind == super::comgr::COMGR_METADATA {
            super::comgr::compare_view(value)
        } else if let Some(r) = value.get("reassembly") {
            compare_reassembly(target, bytes, r, peer.version().unwrap_or(0))
        } else {
            compare_descriptors(target, bytes, value, peer.version().unwrap_or(0))
        }
    }

    fn shrink(&self, input: &Input) -> Vec<Input> {
        shrink_object(input)
    }
}

fn differs(message: String, key: &str, tags: Vec<String>) -> Verdict {
    Verdict::Differs(Difference {
        message,
        key: key.to_owned(),
        tags,
        informational: false,
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

fn compare_rebuild(gen: &[u8], value: &Value) -> Verdict {
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
        return differs(
            format!("LLVM rejects the generator's assembler text: {tool}: {first}"),
            &format!("rebuild: the assembler or linker rejects the text: {reason}{directive}"),
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
        return differs(
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
        return differs(
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
        return differs(
            format!("section headers differ: {detail}"),
            &format!("rebuild: section {section} header differs"),
            Vec::new(),
        );
    }
    for ((ha, da), (_, db)) in a.1.iter().zip(&b.1) {
        if da != db {
            let section = ha.split_whitespace().next().unwrap_or("?");
            let at = da.iter().zip(db).position(|(x, y)| x != y).unwrap_or(0);
            return differs(
                format!("contents of {section} differ (first at byte {at:#x})"),
                &format!("rebuild: section {section} contents differ"),
                Vec::new(),
            );
        }
    }
    let (ea, eb) = (errors(gen), errors(&rebuilt));
    if ea != eb {
        return differs(
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

// ------------------------------------------------------------ descriptors

/// The reason llvm-objdump-19 refuses a GFX10+ descriptor whose
/// GRANULATED_WAVEFRONT_SGPR_COUNT is not zero (clang-19 writes it; the
/// field is reserved there).
const SGPR_GRANULE_REFUSAL: &str = "COMPUTE_PGM_RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT reserved bits in range (9:6) set, must be zero on gfx10+";

/// The reason llvm-objdump-19 refuses a GFX12 descriptor with rsrc2 bit
/// 31 (WGP_TAKEOVER on GFX12, reserved before) set.
const WGP_TAKEOVER_REFUSAL: &str = "COMPUTE_PGM_RSRC2 reserved bit (31) set";

/// The oracle's value for llvm-objdump's directive (lowercase) or comment
/// field (uppercase) `d`; `None` when the oracle has no such field. (The
/// LLVM tests of the descriptor decoder use it too.)
pub fn oracle_value(desc: &KernelDescriptor, target: &Target, d: &str) -> Option<u64> {
    let b = |x: bool| Some(u64::from(x));
    let v: u64 = match d {
        "group_segment_fixed_size" => desc.group_segment_fixed_size.into(),
        "private_segment_fixed_size" => desc.private_segment_fixed_size.into(),
        "kernarg_size" => desc.kernarg_size.into(),
        "next_free_vgpr" => kd::max_vgprs_for_granulated(
            target,
            desc.wave32(target),
            desc.granulated_workitem_vgpr_count(),
        )
        .into(),
        "next_free_sgpr" => {
            kd::max_sgprs_for_granulated(target, desc.granulated_wavefront_sgpr_count()).into()
        }
        // Not recoverable from a descriptor: the decoder prints 0.
        "reserve_vcc" | "reserve_flat_scratch" | "reserve_xnack_mask" => 0,
        "system_sgpr_private_segment_wavefront_offset" | "enable_private_segment" => {
            return b(desc.enable_private_segment())
        }
        // The field holds the first AGPR / 4 - 1; the directive the index.
        "accum_offset" => desc.accum_offset().into(),
        // Every other bit field, by its directive or the name llvm-objdump
        // prints it under (a directive, or a comment: `; INST_PREF_SIZE 38`,
        // SHARED_VGPR_COUNT of wave32 kernels), from the oracle's layout
        // table: the row the target defines, else any row of that name.
        _ => {
            let named = |f: &&&layout::BitField| {
                f.directive == Ok(d)
                    || f.name == d
                    || matches!(f.printed, layout::Printed::Directive(n) | layout::Printed::Comment(n) if n == d)
            };
            let f = layout::FIELDS
                .iter()
                .filter(named)
                .find(|f| (f.defined)(target))
                .or_else(|| layout::FIELDS.iter().find(named))?;
            desc.field(f).into()
        }
    };
    Some(v)
}

/// Directives llvm-objdump leaves out when the value is zero.
pub const PRINTED_IF_NONZERO: &[&str] = &[
    "user_sgpr_kernarg_preload_length",
    "user_sgpr_kernarg_preload_offset",
];

/// Directives or comment fields printed exactly when the target's
/// descriptor has the oracle field (any of the names, oracle field name).
pub const PRESENCE: &[(&[&str], &str)] = &[
    (&["fp16_overflow"], "compute_pgm_rsrc1.fp16_ovfl"),
    (&["dx10_clamp"], "compute_pgm_rsrc1.enable_dx10_clamp"),
    (&["ieee_mode"], "compute_pgm_rsrc1.enable_ieee_mode"),
    (
        &["round_robin_scheduling"],
        "compute_pgm_rsrc1.enable_wg_rr_en",
    ),
    (&["workgroup_processor_mode"], "compute_pgm_rsrc1.wgp_mode"),
    (&["memory_ordered"], "compute_pgm_rsrc1.mem_ordered"),
    (&["forward_progress"], "compute_pgm_rsrc1.fwd_progress"),
    (
        &["wavefront_size32"],
        "kernel_code_properties.enable_wavefront_size32",
    ),
    (&["accum_offset"], "compute_pgm_rsrc3.accum_offset"),
    (&["tg_split"], "compute_pgm_rsrc3.tg_split"),
    (
        &["shared_vgpr_count", "SHARED_VGPR_COUNT"],
        "compute_pgm_rsrc3.shared_vgpr_count",
    ),
    (
        &["inst_pref_size", "INST_PREF_SIZE"],
        "compute_pgm_rsrc3.inst_pref_size",
    ),
    (&["TRAP_ON_START"], "compute_pgm_rsrc3.trap_on_start"),
    (&["TRAP_ON_END"], "compute_pgm_rsrc3.trap_on_end"),
    (&["GLG_EN"], "compute_pgm_rsrc3.glg_en"),
    (&["IMAGE_OP"], "compute_pgm_rsrc3.image_op"),
];

/// One disagreement: normalized key, message, allowlist tags.
type Mismatch = (String, String, Vec<String>);

/// Each disagreement between llvm-objdump `version`'s decode `dirs` of
/// `kernel` and the oracle's. Which fields are printed (and which only
/// when not zero) is LLVM 19's behaviour: older decoders print another
/// set, so for them only the values they print are compared.
fn field_mismatches(
    kernel: &str,
    dirs: &Map<String, Value>,
    desc: &KernelDescriptor,
    target: &Target,
    version: u32,
) -> Vec<Mismatch> {
    let mut out = Vec::new();
    for (d, v) in dirs {
        let v = v.as_u64();
        match oracle_value(desc, target, d) {
            None => out.push((
                format!("descriptors: field {d} unknown to the oracle"),
                format!("{kernel}: llvm-objdump prints {d} = {v:?}, unknown to the oracle"),
                Vec::new(),
            )),
            Some(mine) if Some(mine) != v => {
                // LLVM 14 decodes the VGPR granule of GFX10+ wave64
                // kernels with the wave32 encoding granule (8 instead
                // of 4): twice the oracle's count.
                let granule = version < 19
                    && d == "next_free_vgpr"
                    && target.generation >= Generation::Gfx10
                    && !desc.wave32(target)
                    && v == Some(mine.saturating_mul(2));
                out.push((
                    format!("descriptors: field {d} differs"),
                    format!("{kernel}: {d}: llvm-objdump {v:?}, oracle {mine}"),
                    if granule {
                        vec!["quirk:llvm14-wave64-vgpr-granule".to_owned()]
                    } else {
                        Vec::new()
                    },
                ))
            }
            Some(_) => {}
        }
    }
    if version < 19 {
        return out;
    }
    for &d in PRINTED_IF_NONZERO {
        let mine = oracle_value(desc, target, d).unwrap_or(0);
        if !dirs.contains_key(d) && mine != 0 {
            out.push((
                format!("descriptors: field {d} omitted"),
                format!("{kernel}: {d}: llvm-objdump omits it (0), oracle {mine}"),
                Vec::new(),
            ));
        }
    }
    let names: BTreeSet<&str> = desc.fields(target).iter().map(|f| f.name).collect();
    for &(ds, field) in PRESENCE {
        let printed = ds.iter().any(|d| dirs.contains_key(*d));
        let has = names.contains(field);
        if printed != has {
            out.push((
                format!("descriptors: presence of {field} differs"),
                format!(
                    "{kernel}: llvm-objdump {} {ds:?}, the oracle {} {field}",
                    if printed { "prints" } else { "does not print" },
                    if has { "has" } else { "lacks" }
                ),
                Vec::new(),
            ));
        }
    }
    out
}

fn compare_descriptors(target: &Target, bytes: &[u8], value: &Value, version: u32) -> Verdict {
    if let Some(e) = value.get("tool_error").and_then(Value::as_str) {
        return differs(
            format!("llvm-objdump fails on a valid object: {e}"),
            "descriptors: llvm-objdump fails",
            Vec::new(),
        );
    }
    let Some(kernels) = value.get("kernels").and_then(Value::as_object) else {
        return Verdict::NotComparable("the peer returned no descriptors".to_owned());
    };
    let report = check_object(bytes);
    let mut found: Vec<Mismatch> = Vec::new();
    let mut compared = 0usize;
    for k in &report.kernels {
        let Some(desc) = &k.descriptor else { continue };
        compared += 1;
        let Some(view) = kernels.get(&k.name) else {
            found.push((
                "descriptors: kernel not decoded".to_owned(),
                format!("{}: llvm-objdump prints no descriptor", k.name),
                Vec::new(),
            ));
            continue;
        };
        if let Some(reason) = view.get("error").and_then(Value::as_str) {
            if reason.ends_with(SGPR_GRANULE_REFUSAL)
                && target.generation >= Generation::Gfx10
                && desc.granulated_wavefront_sgpr_count() != 0
            {
                found.push((
                    "descriptors: refuses a GFX10+ SGPR granule".to_owned(),
                    format!("{}: llvm-objdump refuses: {reason}", k.name),
                    vec!["quirk:sgpr-granule".to_owned()],
                ));
            } else if reason.ends_with(WGP_TAKEOVER_REFUSAL)
                && target.generation >= Generation::Gfx12
                && desc.wgp_takeover()
            {
                found.push((
                    "descriptors: refuses GFX12 WGP_TAKEOVER".to_owned(),
                    format!("{}: llvm-objdump refuses: {reason}", k.name),
                    vec!["quirk:gfx12-wgp-takeover".to_owned()],
                ));
            } else {
                found.push((
                    "descriptors: llvm-objdump refuses the descriptor".to_owned(),
                    format!("{}: llvm-objdump refuses: {reason}", k.name),
                    Vec::new(),
                ));
            }
            continue;
        }
        let Some(dirs) = view.get("fields").and_then(Value::as_object) else {
            continue;
        };
        found.extend(field_mismatches(&k.name, dirs, desc, target, version));
    }
    if compared == 0 {
        return Verdict::NotComparable("the object has no kernel descriptors".to_owned());
    }
    // The first difference no tag explains names the finding; the
    // message lists them all.
    found.sort_by_key(|(_, _, tags)| !tags.is_empty());
    let Some((key, _, _)) = found.first() else {
        return Verdict::Same;
    };
    let key = key.clone();
    let mut tags: Vec<String> = if found.iter().all(|f| !f.2.is_empty()) {
        found.iter().flat_map(|f| f.2.clone()).collect()
    } else {
        Vec::new()
    };
    tags.sort();
    tags.dedup();
    let message = found
        .iter()
        .map(|f| f.1.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    differs(format!("{target}: {message}"), &key, tags)
}

/// One `NAME.kd` block being read: its directives, or the refusal.
type Block = (String, Result<Map<String, Value>, String>);

/// Parses llvm-objdump's `-D` output: kernel name → `{"fields": {...}}`
/// or `{"error": reason}`.
pub fn parse_objdump(out: &str) -> Map<String, Value> {
    let mut result = Map::new();
    let mut current: Option<Block> = None;
    let flush = |c: Option<Block>, r: &mut Map<String, Value>| {
        if let Some((n, s)) = c {
            let v = match s {
                Ok(m) => json!({ "fields": m }),
                Err(e) => json!({ "error": e }),
            };
            r.insert(n, v);
        }
    };
    for line in out.lines() {
        if let Some(rest) = line.strip_suffix(".kd>:") {
            if let Some((_, name)) = rest.rsplit_once('<') {
                flush(current.take(), &mut result);
                current = Some((name.to_owned(), Ok(Map::new())));
                continue;
            }
        }
        let Some((name, state)) = current.as_mut() else {
            continue;
        };
        let l = line.trim();
        if let Some(reason) = l
            .strip_prefix("; error decoding ")
            .and_then(|r| r.strip_prefix(name.as_str()))
            .and_then(|r| r.strip_prefix(".kd: "))
        {
            *state = Err(reason.to_owned());
            continue;
        }
        let Ok(map) = state.as_mut() else { continue };
        let entry = l.strip_prefix(".amdhsa_").or_else(|| {
            l.strip_prefix("; ")
                .filter(|c| c.starts_with(|ch: char| ch.is_ascii_uppercase()))
        });
        let Some(entry) = entry else { continue };
        let mut it = entry.split_whitespace();
        let (Some(key), Some(val), None) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        if key == "kernel" {
            continue;
        }
        let v = match val.parse::<u64>() {
            Ok(n) => Value::from(n),
            Err(_) => Value::from(val),
        };
        map.insert(key.to_owned(), v);
    }
    flush(current.take(), &mut result);
    result
}

// ------------------------------------------------------------------ peers

/// Whether LLVM `version`'s assembler (`mc`, an `llvm-mc` of that version)
/// knows `cpu`, and with `disassemble`, whether its disassembler takes the
/// processor too (llvm-objdump stops with a fatal error on GFX6-GFX7
/// objects); cached per context. Without an assembler, every processor is
/// tried.
fn knows(
    ctx: &Ctx,
    mc: Option<&Path>,
    version: u32,
    cpu: &str,
    disassemble: bool,
) -> Result<(), String> {
    let Some(mc) = mc else {
        return Ok(());
    };
    let probe = |disassemble: bool| {
        let mut cmd = Command::new(mc);
        cmd.arg(format!("-triple={}", super::llvm::TRIPLE))
            .arg(format!("-mcpu={cpu}"));
        let input = if disassemble {
            cmd.arg("--disassemble");
            super::llvm::PROBE_BYTES
        } else {
            super::llvm::PROBE_ASM
        };
        let run = isolate::run_tool(cmd, input, std::time::Duration::from_secs(60))
            .map_err(|e| format!("cannot run {}: {e}", mc.display()))?;
        super::llvm::refusal(&run.stderr, version, cpu).map_or(Ok(()), Err)
    };
    ctx.cached_support(&format!("objects/{}/{cpu}", mc.display()), || probe(false))?;
    if disassemble {
        ctx.cached_support(&format!("objects-disasm/{}/{cpu}", mc.display()), || {
            probe(true)
        })?;
    }
    Ok(())
}

/// Base64 (RFC 4648, with padding, 76-column lines, a final newline), for
/// objects embedded in shell reproducers (`base64 -d`): the `base64`
/// crate encodes, the lines are cut here as coreutils' `base64` cuts them.
pub(super) fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    let flat = base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut s = String::with_capacity(flat.len() + flat.len() / 76 + 1);
    for (k, line) in flat.as_bytes().chunks(76).enumerate() {
        if k > 0 {
            s.push('\n');
        }
        // Base64 is ASCII: every cut is on a character boundary.
        s.push_str(std::str::from_utf8(line).unwrap_or_default());
    }
    s.push('\n');
    s
}

/// The first line of a rendered rebuild input: the `llvm-mc` arguments.
const ARGS_PREFIX: &str = "; llvm-mc arguments: ";

/// A fresh file name in the context's scratch folder.
fn scratch_file(ctx: &Ctx, ext: &str) -> PathBuf {
    ctx.scratch.join(format!(
        "objpeer-{}-{}.{ext}",
        std::process::id(),
        isolate::unique()
    ))
}

/// A program that ran to its end: whether it succeeded, its standard
/// output and its standard error.
pub(super) type Ran = (bool, String, String);

/// What a program run means for the peer: a crash, a hang, or its output
/// (`Ok((success, stdout, stderr))`).
fn outcome(
    run: std::io::Result<isolate::ToolRun>,
    limit: std::time::Duration,
) -> Result<Ran, PeerResult> {
    let run = match run {
        Ok(r) => r,
        Err(e) => return Err(PeerResult::NotComparable(format!("cannot run: {e}"))),
    };
    if run.timed_out {
        return Err(PeerResult::TimedOut(isolate::Hang {
            seconds: limit.as_secs_f64(),
            stderr: isolate::tail(&run.stderr, 20),
        }));
    }
    if let Some(c) = isolate::crash_of(&run) {
        return Err(PeerResult::Crashed(c));
    }
    let ok = run.status.is_some_and(|s| s.success());
    Ok((ok, run.stdout, run.stderr))
}

/// Runs the program `command(file)` makes on `bytes`, written to a scratch
/// file that is removed afterwards: its [`outcome`].
pub(super) fn run_on_object(
    ctx: &Ctx,
    bytes: &[u8],
    command: impl FnOnce(&Path) -> Command,
) -> Result<Ran, PeerResult> {
    run_all_on_object(ctx, bytes, |f| vec![command(f)])
}

/// Runs the programs `commands(file)` makes, one after another, on `bytes`
/// written once to a scratch file that is removed afterwards: their
/// outputs joined (success only if each succeeded), or the first crash or
/// hang.
fn run_all_on_object(
    ctx: &Ctx,
    bytes: &[u8],
    commands: impl FnOnce(&Path) -> Vec<Command>,
) -> Result<Ran, PeerResult> {
    let f = scratch_file(ctx, "hsaco");
    if let Err(e) = std::fs::write(&f, bytes) {
        return Err(PeerResult::NotComparable(format!(
            "cannot write {}: {e}",
            f.display()
        )));
    }
    let mut all: Ran = (true, String::new(), String::new());
    let mut r = Ok(());
    for cmd in commands(&f) {
        match outcome(isolate::run_tool(cmd, b"", ctx.timeout), ctx.timeout) {
            Ok((ok, out, err)) => {
                all.0 &= ok;
                all.1.push_str(&out);
                all.2.push_str(&err);
            }
            Err(p) => {
                r = Err(p);
                break;
            }
        }
    }
    let _ = std::fs::remove_file(&f);
    r.map(|()| all)
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
fn objdump_argvs(name: &str, syms: &[String], file: &str) -> Vec<Vec<String>> {
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
fn objdump_descriptors(
    ctx: &Ctx,
    exe: &Path,
    bytes: &[u8],
) -> Result<(Vec<String>, Ran), PeerResult> {
    let syms = ObjdumpPeer::kd_symbols(bytes);
    if syms.is_empty() {
        return Err(PeerResult::NotComparable(
            "the object has no kernel descriptors".to_owned(),
        ));
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

/// `llvm-mc-NN` + `ld.lld`: rebuilds assembler text into a linked code
/// object (comparison [`REBUILD`]).
pub struct RebuildPeer {
    id: String,
    version: u32,
    mc: PathBuf,
    mc_id: String,
    lld: PathBuf,
    lld_id: String,
}

const REBUILD_ONLY: &[&str] = &[REBUILD];
const OBJDUMP_COMPARISONS: &[&str] = &[DESCRIPTORS, super::mutants::MUTANTS];

impl RebuildPeer {
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
            return PeerResult::NotComparable(format!("cannot write {}: {e}", s.display()));
        }
        let mut mc = Command::new(&self.mc);
        mc.args(&args).arg(&s).arg("-o").arg(&o);
        let r = (|| {
            let (ok, _, err) = outcome(isolate::run_tool(mc, b"", ctx.timeout), ctx.timeout)?;
            if !ok {
                return Ok(json!({ "error": format!("{}: {}", self.mc_id, err.trim()) }));
            }
            let mut ld = Command::new(&self.lld);
            ld.arg("-shared").arg(&o).arg("-o").arg(&so);
            let (ok, _, err) = outcome(isolate::run_tool(ld, b"", ctx.timeout), ctx.timeout)?;
            if !ok {
                return Ok(json!({ "error": format!("{}: {}", self.lld_id, err.trim()) }));
            }
            match std::fs::read(&so) {
                Ok(b) => Ok(json!({ "object": super::hex_bytes::encode(&b) })),
                Err(e) => Err(PeerResult::NotComparable(format!(
                    "cannot read the linked object: {e}"
                ))),
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
    fn id(&self) -> &str {
        &self.id
    }
    fn family(&self) -> &str {
        "rebuild"
    }
    fn component(&self) -> &str {
        "llvm"
    }
    fn version(&self) -> Option<u32> {
        Some(self.version)
    }
    fn location(&self) -> String {
        format!("{} + {}", self.mc.display(), self.lld.display())
    }
    fn comparisons(&self) -> &[&'static str] {
        REBUILD_ONLY
    }
    fn supports(&self, ctx: &Ctx, comparison: &str, cpu: &str) -> Result<(), String> {
        if comparison != REBUILD {
            return Err(format!("{} does not take part in {comparison}", self.id));
        }
        knows(ctx, Some(&self.mc), self.version, cpu, false)
    }
    fn run(
        &self,
        ctx: &Ctx,
        _comparison: &str,
        _cpu: &str,
        inputs: &[Input],
        each: &mut dyn FnMut(usize, PeerResult),
    ) {
        for (k, i) in inputs.iter().enumerate() {
            match i {
                Input::Asm { text } => each(k, self.rebuild(ctx, text)),
                _ => each(
                    k,
                    PeerResult::NotComparable("a rebuild reads assembler text".to_owned()),
                ),
            }
        }
    }
    fn reproducer(&self, _comparison: &str, inputs: &[Input]) -> String {
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
    fn command(&self, _comparison: &str, _cpu: &str, file: &str) -> Option<Vec<String>> {
        Some(vec!["sh".to_owned(), file.to_owned()])
    }
}

/// `llvm-objdump-NN`: decodes kernel descriptors (comparison
/// [`DESCRIPTORS`]).
pub struct ObjdumpPeer {
    id: String,
    version: u32,
    path: PathBuf,
    /// An `llvm-mc` of the same version, to ask whether it knows a
    /// processor.
    mc: Option<PathBuf>,
}

impl ObjdumpPeer {
    /// The descriptor symbols of an object (as the oracle finds them).
    fn kd_symbols(bytes: &[u8]) -> Vec<String> {
        check_object(bytes)
            .kernels
            .iter()
            .filter(|k| k.descriptor.is_some())
            .map(|k| format!("{}.kd", k.name))
            .collect()
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
        PeerResult::View(View::Json {
            value: json!({
                "ok": ok,
                "stderr": isolate::tail(&err, 4).join(" "),
                "complaint": complaint,
            }),
        })
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
    fn id(&self) -> &str {
        &self.id
    }
    fn family(&self) -> &str {
        "llvm-objdump"
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
        OBJDUMP_COMPARISONS
    }
    fn supports(&self, ctx: &Ctx, comparison: &str, cpu: &str) -> Result<(), String> {
        if !OBJDUMP_COMPARISONS.contains(&comparison) {
            return Err(format!("{} does not take part in {comparison}", self.id));
        }
        knows(ctx, self.mc.as_deref(), self.version, cpu, true)
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
                Input::File { bytes, .. } => each(k, self.decode(ctx, bytes)),
                _ => each(
                    k,
                    PeerResult::NotComparable("llvm-objdump reads code objects".to_owned()),
                ),
            }
        }
    }
    fn reproducer(&self, _comparison: &str, inputs: &[Input]) -> String {
        object_script(inputs, |syms, name| {
            objdump_argvs(&self.path.display().to_string(), syms, name)
        })
    }
    fn command(&self, _comparison: &str, _cpu: &str, file: &str) -> Option<Vec<String>> {
        Some(vec!["sh".to_owned(), file.to_owned()])
    }
}

// ------------------------------------------------------------- reassembly

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

/// The first LLVM whose assembler is given the code object version by the
/// `.amdhsa_code_object_version` directive (the generator writes it);
/// older ones take the `--amdhsa-code-object-version` option.
const COV_DIRECTIVE_FROM: u32 = 19;

/// Why LLVM `version`'s assembler cannot write code object version `cov`,
/// if it cannot: both abort ("LLVM ERROR: Unsupported AMDHSA Code Object
/// Version"), llvm-mc-19 on V3, llvm-mc-14 on V6 (added in LLVM 18); and
/// llvm-mc-19 and -22 no longer know V2's `.hsa_code_object_version`
/// ("unknown directive"; 17 and 18 were not at hand to check).
fn assembler_refuses(cov: targets::CodeObjectVersion, version: u32) -> Option<String> {
    ((cov <= targets::CodeObjectVersion::V3 && version >= 19)
        || (cov >= targets::CodeObjectVersion::V6 && version < 18))
        .then(|| format!("LLVM {version} cannot assemble code object {cov:?}"))
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

/// The first error line of an assembler's standard error, with the source
/// line it quotes.
fn first_error(err: &str) -> String {
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

/// `llvm-objdump-NN` + `llvm-mc-NN`: each kernel descriptor llvm-objdump
/// prints as a directive block, assembled again by the assembler of the
/// same LLVM version, must give the object's descriptor bytes (comparison
/// [`DESCRIPTORS`]).
pub struct ReassemblePeer {
    id: String,
    version: u32,
    objdump: PathBuf,
    mc: PathBuf,
}

impl ReassemblePeer {
    /// Disassembles, reassembles (one llvm-mc run for all the object's
    /// kernels) and reads the descriptors back: the view holds
    /// `{"reassembly": {"kernels": {K: hex}, "missing": [K]}}`, or
    /// `{"reassembly": {"rejected": first error}}`.
    fn reassemble(&self, ctx: &Ctx, bytes: &[u8]) -> PeerResult {
        let t = match asm_target(bytes, self.version) {
            Ok(t) => t,
            Err(e) => return PeerResult::NotComparable(e),
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
                return Err(PeerResult::NotComparable(
                    "llvm-objdump prints no directive block".to_owned(),
                ));
            }
            let mut text = source_header(&t).join("\n");
            text.push('\n');
            for (_, b) in &blocks {
                text.push_str(b);
            }
            std::fs::write(&s, &text).map_err(|e| {
                PeerResult::NotComparable(format!("cannot write {}: {e}", s.display()))
            })?;
            let mut mc = Command::new(&self.mc);
            mc.args(&t.args).arg(&s).arg("-o").arg(&o);
            let (ok, _, err) = outcome(isolate::run_tool(mc, b"", ctx.timeout), ctx.timeout)?;
            if !ok {
                return Ok(json!({ "rejected": first_error(&err) }));
            }
            let obj = std::fs::read(&o).map_err(|e| {
                PeerResult::NotComparable(format!("cannot read the assembled object: {e}"))
            })?;
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
    fn id(&self) -> &str {
        &self.id
    }
    fn family(&self) -> &str {
        "llvm-objdump"
    }
    fn component(&self) -> &str {
        "llvm"
    }
    fn version(&self) -> Option<u32> {
        Some(self.version)
    }
    fn location(&self) -> String {
        format!("{} + {}", self.objdump.display(), self.mc.display())
    }
    fn comparisons(&self) -> &[&'static str] {
        DESCRIPTORS_ONLY
    }
    fn supports(&self, ctx: &Ctx, comparison: &str, cpu: &str) -> Result<(), String> {
        if comparison != DESCRIPTORS {
            return Err(format!("{} does not take part in {comparison}", self.id));
        }
        knows(ctx, Some(&self.mc), self.version, cpu, true)
    }
    fn run(
        &self,
        ctx: &Ctx,
        _comparison: &str,
        _cpu: &str,
        inputs: &[Input],
        each: &mut dyn FnMut(usize, PeerResult),
    ) {
        for (k, i) in inputs.iter().enumerate() {
            match i {
                Input::File { bytes, .. } => each(k, self.reassemble(ctx, bytes)),
                _ => each(
                    k,
                    PeerResult::NotComparable("llvm-objdump reads code objects".to_owned()),
                ),
            }
        }
    }
    fn reproducer(&self, _comparison: &str, inputs: &[Input]) -> String {
        let mut s = String::from(
            "#!/bin/sh\n# Disassembles each kernel descriptor with llvm-objdump, assembles the\n\
             # printed directives again with llvm-mc of the same LLVM version, and\n\
             # prints the original and the reassembled descriptor bytes (.rodata).\n",
        );
        for i in inputs {
            let Input::File { name, bytes } = i else {
                continue;
            };
            let q = shell_line(std::slice::from_ref(name));
            s.push_str(&format!(
                "[ -f {q} ] || base64 -d > {q} <<'HSACO_EOF'\n{}HSACO_EOF\n",
                base64(bytes)
            ));
            let Ok(t) = asm_target(bytes, self.version) else {
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
                &ObjdumpPeer::kd_symbols(bytes),
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
    fn command(&self, _comparison: &str, _cpu: &str, file: &str) -> Option<Vec<String>> {
        Some(vec!["sh".to_owned(), file.to_owned()])
    }
}

const DESCRIPTORS_ONLY: &[&str] = &[DESCRIPTORS];

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

/// Descriptor fields llvm-objdump prints only as a comment (uppercase
/// name), for which the assembler then writes its default, 0.
const COMMENT_ONLY: &[(&str, &str)] = &[
    ("compute_pgm_rsrc3.shared_vgpr_count", "SHARED_VGPR_COUNT"),
    ("compute_pgm_rsrc3.inst_pref_size", "INST_PREF_SIZE"),
    ("compute_pgm_rsrc3.trap_on_start", "TRAP_ON_START"),
    ("compute_pgm_rsrc3.trap_on_end", "TRAP_ON_END"),
    ("compute_pgm_rsrc3.glg_en", "GLG_EN"),
    ("compute_pgm_rsrc3.image_op", "IMAGE_OP"),
    ("compute_pgm_rsrc2.wgp_takeover", "WGP_TAKEOVER"),
];

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
        return (new_value == implied && u64::from(old.user_sgpr_count()) > implied)
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
    if let Some((_, c)) = COMMENT_ONLY.iter().find(|(f, _)| *f == field) {
        return (new_value == 0 && printed.contains(c)).then_some("reassembly:comment-only-field");
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
    if e.starts_with("error: .amdhsa_reserve_xnack_mask does not match target id")
        && at == ".amdhsa_reserve_xnack_mask 0"
    {
        // llvm-objdump always prints 0; llvm-mc wants the target ID's
        // XNACK setting (1 for on and any).
        let on = hsaco_oracle::elf::read_header(bytes)
            .and_then(|h| {
                let cov = targets::CodeObjectVersion::from_abi_version(h.abi_version)?;
                targets::TargetId::from_e_flags(h.flags, cov).ok()
            })
            .is_some_and(|id| id.xnack.is_on_or_any());
        return on.then_some("reassembly:reserve-xnack-mask");
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
fn compare_reassembly(target: &Target, bytes: &[u8], r: &Value, version: u32) -> Verdict {
    if let Some(e) = r.get("rejected").and_then(Value::as_str) {
        return differs(
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
    if found.is_empty() {
        return Verdict::Same;
    }
    // As for the field comparison: the first difference no tag explains
    // names the finding, the message lists them all.
    found.sort_by_key(|(_, _, tags)| !tags.is_empty());
    let key = found[0].0.clone();
    let mut tags: Vec<String> = if found.iter().all(|f| !f.2.is_empty()) {
        found.iter().flat_map(|f| f.2.clone()).collect()
    } else {
        Vec::new()
    };
    tags.sort();
    tags.dedup();
    let message = found
        .iter()
        .map(|f| f.1.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    differs(
        format!("{target}: llvm-objdump-{version} + llvm-mc-{version}: {message}"),
        &key,
        tags,
    )
}

/// A shell script that writes each object (unless the finding folder
/// already holds it) and runs the peer's command on it.
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
        let q = shell_line(std::slice::from_ref(name));
        s.push_str(&format!(
            "[ -f {q} ] || base64 -d > {q} <<'HSACO_EOF'\n{}HSACO_EOF\n",
            base64(bytes)
        ));
        for argv in argvs(&ObjdumpPeer::kd_symbols(bytes), name) {
            s.push_str(&shell_line(&argv));
            s.push('\n');
        }
    }
    s
}

/// The object-level peers of a discovery ([`discover::discover_with`],
/// the one finder), newest LLVM first: `llvm-mc`+`ld.lld` rebuilds (the
/// linker of the assembler's own named folder, else the newest),
/// `llvm-readobj`, `llvm-objdump`, `llvm-objdump`+`llvm-mc` of one version
/// (the same named folder's first), and comgr; each under its discovery
/// id (composites join them with `+`).
pub fn peers(d: &Discovery) -> Vec<Box<dyn Peer>> {
    let tools = |name| super::llvm::usable(d, Kind::Tool, name);
    let (mcs, lds) = (tools("llvm-mc"), tools("ld.lld"));
    // An llvm-mc of `version`, the same named folder's first.
    let mc_for = |version: Option<u32>, named: &Option<discover::Named>| {
        mcs.iter()
            .find(|m| m.llvm_major == version && m.named.is_some() && m.named == *named)
            .or_else(|| mcs.iter().find(|m| m.llvm_major == version))
            .copied()
    };
    let mut peers: Vec<Box<dyn Peer>> = Vec::new();
    for mc in &mcs {
        let lld = lds
            .iter()
            .find(|l| l.named.is_some() && l.named == mc.named)
            .or_else(|| lds.first());
        if let (Some(lld), Some(version)) = (lld, mc.llvm_major) {
            peers.push(Box::new(RebuildPeer {
                id: format!("{}+{}", mc.id, lld.id),
                version,
                mc: mc.path.clone(),
                mc_id: mc.id.clone(),
                lld: lld.path.clone(),
                lld_id: lld.id.clone(),
            }));
        }
    }
    for r in tools("llvm-readobj") {
        if let Some(version) = r.llvm_major {
            peers.push(Box::new(super::objects_meta::ReadobjPeer::new(
                version,
                r.path.clone(),
                &r.id,
            )));
        }
    }
    let objdumps = tools("llvm-objdump");
    for o in &objdumps {
        if let Some(version) = o.llvm_major {
            peers.push(Box::new(ObjdumpPeer {
                id: o.id.clone(),
                version,
                path: o.path.clone(),
                mc: mc_for(o.llvm_major, &o.named).map(|m| m.path.clone()),
            }));
        }
    }
    for o in &objdumps {
        if let (Some(version), Some(mc)) = (o.llvm_major, mc_for(o.llvm_major, &o.named)) {
            peers.push(Box::new(ReassemblePeer {
                id: format!("{}+{}", o.id, mc.id),
                version,
                objdump: o.path.clone(),
                mc: mc.path.clone(),
            }));
        }
    }
    peers.extend(
        d.peers
            .iter()
            .filter_map(super::comgr::ComgrPeer::of)
            .map(|c| Box::new(c) as Box<dyn Peer>),
    );
    peers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), format!("{o}\n"));
        }
        let long = base64(&[0u8; 60]);
        assert_eq!(long.lines().map(str::len).collect::<Vec<_>>(), [76, 4]);
    }

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

    #[test]
    fn objdump_blocks_parse() {
        let out = "\n0000000000001000 <a.kd>:\n\t.amdhsa_kernel a\n\t\t.amdhsa_next_free_vgpr 8\n\t\t; SHARED_VGPR_COUNT 0\n\t.end_amdhsa_kernel\n0000000000001040 <b.kd>:\n; error decoding b.kd: bad bits\n";
        let m = parse_objdump(out);
        assert_eq!(
            Value::Object(m),
            json!({"a": {"fields": {"next_free_vgpr": 8, "SHARED_VGPR_COUNT": 0}}, "b": {"error": "bad bits"}})
        );
    }

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
