//! Coverage of a generated set of cases: which rules of the catalogue it
//! exercises both ways, which descriptor fields and values, which
//! combinations of initial-state enables and which SMEM instruction forms
//! it holds, in valid cases and in mutants.
//!
//! Everything is measured on the oracle's own decoding of each case's
//! bytes, never on what the generator meant to build:
//!
//! - A **valid case touches a rule** when the oracle's view of the case
//!   holds what the rule governs, in a context where the oracle evaluates
//!   it: `kd.rsrc1.priority` is touched by every case with a kernel
//!   descriptor (the oracle reads that field of each one),
//!   `kd.rsrc3.accum_offset` only by a descriptor of a gfx90a-family
//!   processor, `metadata.arg.pointee_align` by an argument that carries
//!   `.pointee_align`, `metadata.kernel.duplicate_symbol` by a code object
//!   with two or more kernels, `smem.sdata.class` by an SMEM instruction
//!   that names SDATA registers. The oracle does not record which checks it
//!   ran, so [`scope`] states this per rule as a predicate over [`Facts`],
//!   the features of the decoded case; a unit test keeps it total over the
//!   catalogue. Rules no generated valid case can reach (code object V2,
//!   relocatable objects) carry the reason instead.
//! - A **mutant breaks a rule** when its manifest names the rule and the
//!   oracle reports it on the mutant's bytes; a mutant that also breaks
//!   another rule (error or warning) is counted as impure.
//! - Any disagreement with the manifest (a valid case with an error or a
//!   warning, a mutant whose rule the oracle does not report, an ELF whose
//!   SHA-256 differs from the manifest's) is listed.

use crate::manifest::{sha256_hex, ManifestEntry};
use hsaco_conform::files::write_atomic;
use hsaco_conform::out;
use hsaco_gen::mutate;
use hsaco_gen::sgpr::Enables;
use hsaco_gen::target::Family;
use hsaco_oracle::check::{check_object_with, Detail, ObjectReport};
use hsaco_oracle::metadata::ValueKind;
use hsaco_oracle::rules::{self, Rule};
pub use hsaco_oracle::smem::code::{check_code, code_steps, CodeCheck};
use hsaco_oracle::smem::{self, SmemGen};
use hsaco_oracle::targets::{self, Generation, Target};
use hsaco_oracle::Severity;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::io::{self, BufRead};
use std::path::Path;

/// The long help of `coverage`: what the report counts.
pub const HELP: &str = "\
What is counted (on the oracle's decoding of each case's bytes):
  valid      valid cases (expect \"valid\") that touch the rule: the case
             holds what the rule governs where the oracle evaluates it (every
             descriptor for kd.rsrc1.priority, a gfx90a-family descriptor for
             kd.rsrc3.accum_offset, an argument with .pointee_align for
             metadata.arg.pointee_align, two kernels for
             metadata.kernel.duplicate_symbol, an SMEM instruction with SDATA
             registers for smem.sdata.class, an executed SMEM stream for
             smem.lgkm.*)
  mutants    mutants whose manifest names the rule
  broken     of those, mutants on which the oracle reports the rule
  impure     of those, mutants that also break a rule (error or warning)
             their mutator does not list as broken with it
  status     both, valid-only, mutant-only or neither; a missing way is
             explained when the rule cannot be reached that way (code
             object V2, relocatable objects, info rules no mutant can break)
Kernel code is read by the oracle's code-level check (the bytes of each
kernel's entry symbol; V2: of its symbol after the amd_kernel_code_t): SMEM
words are decoded and the stream run in the SMEM executor (smem.* rules,
which only that check reports).
Also: descriptor fields and the values they took, initial-state enable
combinations per SGPR family (of the exhaustive suite's), and SMEM opcode x
offset form x modifier combinations per family (of every form).
A disagreement is a valid case with an error or warning, a mutant whose
rule is not reported, or an ELF whose SHA-256 is not the manifest's.

Examples:
  hsaco-conform coverage cases/
  hsaco-conform coverage --json cov.json cases/";

/// Most distinct values kept per descriptor field (the count saturates).
const MAX_VALUES: usize = 4096;
/// Most values listed per field in the report.
const LISTED_VALUES: usize = 16;
/// Most disagreements listed (all are counted).
const MAX_LISTED: usize = 50;

/// What the oracle's decoding of one case holds: the inputs of the
/// per-rule touch predicates.
#[derive(Debug, Default, Clone)]
pub struct Facts {
    /// Code object version from the header (0 when unknown).
    pub cov: u8,
    /// The processor `e_flags` names.
    pub target: Option<&'static Target>,
    /// The metadata was decoded.
    pub metadata: bool,
    /// `amdhsa.target` is present.
    pub target_key: bool,
    /// `amdhsa.printf` is present.
    pub printf: bool,
    /// Kernels in the metadata.
    pub md_kernels: usize,
    /// `NT_AMDGPU_METADATA` notes (V3+).
    pub metadata_notes: usize,
    /// Some kernel has `.language`.
    pub language: bool,
    /// Some kernel has `.reqd_workgroup_size`.
    pub reqd_workgroup_size: bool,
    /// Some kernel has `.workgroup_processor_mode`.
    pub wgp_mode_key: bool,
    /// Some kernel has `.uniform_work_group_size`.
    pub uniform_key: bool,
    /// Some kernel has `.kind`.
    pub kind_key: bool,
    /// Some kernel has an argument.
    pub args: bool,
    /// Some kernel has two arguments of non-zero size.
    pub two_args: bool,
    /// Some argument is pointer-like (global buffer, LDS pointer, image,
    /// sampler, pipe, queue).
    pub pointer_args: bool,
    /// Some argument is hidden.
    pub hidden_args: bool,
    /// Some argument has `.value_type`.
    pub value_type: bool,
    /// Some argument has one of `.pointee_align`, `.address_space`,
    /// `.access`, `.is_pipe`.
    pub kind_keys: bool,
    /// Some global buffer or LDS pointer argument.
    pub address_space_args: bool,
    /// Some argument has `.pointee_align`.
    pub pointee_align: bool,
    /// Kernel descriptors decoded.
    pub descriptors: usize,
    /// Descriptors whose kernel the metadata names.
    pub paired: usize,
    /// Some descriptor selects wave32.
    pub wave32: bool,
    /// Some descriptor gives a non-zero kernarg_size.
    pub kernarg_size: bool,
    /// SMEM instructions the case holds, by class.
    pub smem: SmemFacts,
}

/// The SMEM side of [`Facts`].
#[derive(Debug, Default, Clone, Copy)]
pub struct SmemFacts {
    /// Instructions decoded.
    pub instructions: usize,
    /// Their family (the last seen).
    pub gen: Option<SmemGen>,
    /// Some instruction names SDATA registers.
    pub sdata_regs: bool,
    /// Some GFX12 probe or prefetch holds an SDATA immediate.
    pub sdata_imm: bool,
    /// Some instruction has SBASE.
    pub sbase: bool,
    /// Some GFX8/GFX9 instruction without an offset operand.
    pub no_offset_gfx89: bool,
    /// Some GFX11 instruction without cache-policy modifiers.
    pub no_cpol_gfx11: bool,
    /// Some GFX8/GFX9 SGPR offset.
    pub sgpr_offset_gfx89: bool,
    /// Some pre-GFX12 buffer instruction with an immediate offset.
    pub buffer_imm: bool,
    /// The stream was executed by the SMEM model.
    pub executed: bool,
    /// Some executed GFX8 store.
    pub gfx8_store: bool,
    /// Some executed buffer instruction.
    pub buffer: bool,
    /// Some executed non-buffer instruction with an immediate offset
    /// (GFX9 and later).
    pub imm_offset_gfx9plus: bool,
    /// Executed with XNACK enabled.
    pub xnack: bool,
    /// Some executed cache discard.
    pub discard: bool,
    /// Some executed GFX12.5 byte load with `scale_offset`.
    pub scale_offset: bool,
}

impl Facts {
    /// The facts of one decoded case.
    pub fn from_report(r: &ObjectReport) -> Facts {
        let mut f = Facts {
            cov: r.code_object_version.unwrap_or(0),
            target: r
                .target
                .as_deref()
                .and_then(|t| targets::by_name(t.split(':').next().unwrap_or(t))),
            metadata_notes: r.metadata_notes.len(),
            ..Facts::default()
        };
        if let Some(md) = &r.metadata {
            f.metadata = true;
            f.target_key = md.target.is_some();
            f.printf = !md.printf.is_empty();
            f.md_kernels = md.kernels.len();
            for k in &md.kernels {
                f.language |= k.language.is_some();
                f.reqd_workgroup_size |= k.reqd_workgroup_size.is_some();
                f.wgp_mode_key |= k.workgroup_processor_mode.is_some();
                f.uniform_key |= k.uniform_work_group_size.is_some();
                f.kind_key |= k.kind.is_some();
                f.args |= !k.args.is_empty();
                f.two_args |= k.args.iter().filter(|a| a.size.unwrap_or(0) > 0).count() >= 2;
                for a in &k.args {
                    let kind = a.kind();
                    f.hidden_args |= kind.is_some_and(ValueKind::is_hidden);
                    f.pointer_args |= matches!(
                        kind,
                        Some(
                            ValueKind::GlobalBuffer
                                | ValueKind::DynamicSharedPointer
                                | ValueKind::Image
                                | ValueKind::Sampler
                                | ValueKind::Pipe
                                | ValueKind::Queue
                        )
                    );
                    f.address_space_args |= matches!(
                        kind,
                        Some(ValueKind::GlobalBuffer | ValueKind::DynamicSharedPointer)
                    );
                    f.value_type |= a.value_type.is_some();
                    f.pointee_align |= a.pointee_align.is_some();
                    f.kind_keys |= a.pointee_align.is_some()
                        || a.address_space.is_some()
                        || a.access.is_some()
                        || a.is_pipe.is_some();
                }
            }
        }
        for k in &r.kernels {
            if let Some(d) = &k.descriptor {
                f.descriptors += 1;
                f.paired += usize::from(k.metadata.is_some());
                f.wave32 |= d.enable_wavefront_size32();
                f.kernarg_size |= d.kernarg_size != 0;
            }
        }
        f
    }

    fn generation(&self) -> Option<Generation> {
        self.target.map(|t| t.generation)
    }

    fn gen_in(&self, lo: Generation, hi: Generation) -> bool {
        self.descriptors > 0 && self.generation().is_some_and(|g| lo <= g && g <= hi)
    }

    fn target_has(&self, p: impl Fn(&Target) -> bool) -> bool {
        self.target.is_some_and(p)
    }
}

/// Whether a valid case with these facts touches a rule.
pub type Scope = fn(&Facts) -> bool;

/// The touch predicate of rule `id`, or why no generated valid case can
/// touch it. `Err("")` means the rule is not in this table (a unit test
/// keeps that from happening for catalogue rules).
pub fn scope(id: &str) -> Result<Scope, &'static str> {
    use Generation as G;
    // Code object V2 rules: the V2 check runs every one of them on each
    // V2 object, so a valid V2 case touches them all (some only
    // vacuously: a printf rule on an object without printf strings).
    if id.starts_with("code.")
        || id.starts_with("metadata.v2.")
        || id.starts_with("note.v2.")
        || id.starts_with("symbol.v2.")
        || id.starts_with("sgpr.grid_workgroup_count.")
    {
        return Ok(|f| f.cov == 2);
    }
    if id.starts_with("dispatch.") {
        return Err(
            "dispatch rules judge a kernel dispatch packet, which no generated code object holds",
        );
    }
    let s: Scope = match id {
        // The header, program and section headers are read for every file.
        "elf.header.truncated"
        | "elf.ident.class"
        | "elf.ident.data"
        | "elf.ident.version"
        | "elf.ident.osabi"
        | "elf.ident.abi_version"
        | "elf.ident.pad"
        | "elf.type"
        | "elf.machine"
        | "elf.version"
        | "elf.entry"
        | "elf.header.sizes"
        | "elf.e_flags.mach"
        | "elf.e_flags.mach_unmodelled"
        | "elf.e_flags.reserved"
        | "elf.e_flags.xnack"
        | "elf.e_flags.sramecc"
        | "elf.e_flags.generic_version"
        | "elf.phdr.bounds"
        | "elf.phdr.sizes"
        | "elf.phdr.align"
        | "elf.shdr.bounds"
        | "elf.shdr.align"
        | "elf.shstrndx"
        | "elf.load_segments" => |f| f.cov >= 3,
        "elf.e_flags.generic_needs_v6" => |f| f.target_has(|t| t.is_generic),
        "elf.e_flags.mach_retired" => |f| f.target_has(|t| t.is_retired()),
        // Notes: every V3+ object has the metadata note.
        "note.section.align"
        | "note.truncated"
        | "note.name.terminator"
        | "note.padding"
        | "note.metadata.missing"
        | "note.unknown" => |f| f.cov >= 3,
        "note.code_object_v1" => {
            return Err("code object V1 (the HSAIL finalizer's) is recognised, not generated")
        }
        // The rules between metadata notes: objects with several.
        "note.metadata.version_conflict" | "note.metadata.printf_conflict" => {
            |f| f.metadata_notes >= 2
        }
        "note.metadata.target_conflict" => |f| f.metadata_notes >= 2 && f.cov >= 4,
        "note.metadata.printf_repeated" => |f| f.metadata_notes >= 2 && f.printf,
        // Every metadata value and key is decoded and classified.
        "metadata.decode"
        | "metadata.trailing_bytes"
        | "metadata.ext_type"
        | "metadata.duplicate_key"
        | "metadata.root.not_map"
        | "metadata.missing_key"
        | "metadata.value.type"
        | "metadata.value.string_scalar"
        | "metadata.key.unknown"
        | "metadata.key.vendor"
        | "metadata.key.unprefixed"
        | "metadata.key.version"
        | "metadata.version.mismatch" => |f| f.metadata,
        "metadata.value.enum" => |f| f.args || f.language,
        "metadata.target.missing" => |f| f.metadata && f.cov >= 4,
        "metadata.target.invalid" | "metadata.target.mismatch" => |f| f.target_key,
        "metadata.printf.format" => |f| f.printf,
        "metadata.kernel.missing_key"
        | "metadata.kernel.symbol_name"
        | "metadata.kernel.kernarg_segment_align"
        | "metadata.kernel.wavefront_size"
        | "metadata.kernel.max_flat_workgroup_size" => |f| f.md_kernels > 0,
        "metadata.kernel.duplicate_name" | "metadata.kernel.duplicate_symbol" => {
            |f| f.md_kernels >= 2
        }
        "metadata.kernel.reqd_workgroup_size" | "metadata.kernel.reqd_workgroup_size_limit" => {
            |f| f.reqd_workgroup_size
        }
        "metadata.kernel.workgroup_processor_mode" => |f| f.wgp_mode_key,
        "metadata.kernel.uniform_work_group_size" => |f| f.uniform_key,
        "metadata.kernel.kind" => |f| f.kind_key,
        "metadata.arg.missing_key" | "metadata.arg.out_of_bounds" => |f| f.args,
        "metadata.arg.overlap" => |f| f.two_args,
        "metadata.arg.value_type" => |f| f.value_type,
        "metadata.arg.key_kind" => |f| f.kind_keys,
        "metadata.arg.address_space" => |f| f.address_space_args,
        "metadata.arg.kind_size" => |f| f.pointer_args,
        "metadata.arg.pointee_align" => |f| f.pointee_align,
        "metadata.arg.misaligned" => |f| f.pointer_args || f.hidden_args,
        "metadata.arg.hidden_version" | "metadata.arg.hidden_layout" => |f| f.hidden_args,
        "symbol.table" | "symbol.name" => |f| f.cov >= 3,
        "symbol.kd.type"
        | "symbol.kd.size"
        | "symbol.kd.align"
        | "symbol.kd.section"
        | "symbol.kd.duplicate"
        | "symbol.kernel.missing"
        | "symbol.kernel.type"
        | "symbol.entry.target"
        | "symbol.entry.align" => |f| f.descriptors > 0,
        "symbol.entry.relocation" => {
            return Err("relocatable (ET_REL) objects only; the generators write ET_DYN")
        }
        "symbol.kd.not_in_metadata" | "symbol.metadata_kernel.no_kd" => {
            |f| f.descriptors > 0 && f.md_kernels > 0
        }
        // Every field of every descriptor is decoded.
        "kd.reserved_bytes"
        | "kd.rsrc1.priority"
        | "kd.rsrc1.priv"
        | "kd.rsrc1.debug_mode"
        | "kd.rsrc1.bulky"
        | "kd.rsrc1.cdbg_user"
        | "kd.rsrc1.reserved"
        | "kd.rsrc2.exception_address_watch"
        | "kd.rsrc2.exception_memory"
        | "kd.rsrc2.granulated_lds_size"
        | "kd.rsrc3.reserved"
        | "kd.properties.reserved"
        | "kd.properties.wavefront_size32"
        | "sgpr.user_sgpr_count.too_small"
        | "sgpr.user_sgpr_count.extra"
        | "sgpr.user_sgpr_count.limit"
        | "sgpr.vgpr_workitem_id.undefined" => |f| f.descriptors > 0,
        "kd.rsrc1.granulated_sgpr_count" => |f| f.gen_in(G::Gfx10, G::Gfx12),
        "kd.rsrc2.trap_handler" | "kd.rsrc2.reserved" => |f| f.gen_in(G::Gfx6, G::Gfx11),
        "kd.rsrc3.shared_vgpr_count_wave32" => |f| f.wave32 && f.gen_in(G::Gfx10, G::Gfx11),
        "kd.rsrc3.shared_vgpr_count_overflow" => |f| f.gen_in(G::Gfx10, G::Gfx11),
        "kd.rsrc3.accum_offset" => |f| f.descriptors > 0 && f.target_has(|t| t.accum_offset),
        "kd.properties.uses_dynamic_stack" => |f| f.descriptors > 0 && f.cov <= 4,
        "kd.kernarg_preload.unsupported" => {
            |f| f.descriptors > 0 && f.target_has(|t| !t.kernarg_preload)
        }
        "kd.kernarg_preload.length" => |f| f.descriptors > 0 && f.target_has(|t| t.kernarg_preload),
        "kd.kernarg_preload.exceeds_kernarg_size" => {
            |f| f.kernarg_size && f.target_has(|t| t.kernarg_preload)
        }
        "kd.metadata.group_segment_fixed_size"
        | "kd.metadata.private_segment_fixed_size"
        | "kd.metadata.kernarg_segment_size"
        | "kd.metadata.wavefront_size"
        | "kd.metadata.vgpr_count" => |f| f.paired > 0,
        "kd.metadata.sgpr_count" => |f| f.paired > 0 && f.gen_in(G::Gfx6, G::Gfx9),
        "kd.metadata.accum_offset" => |f| f.paired > 0 && f.target_has(|t| t.accum_offset),
        "kd.metadata.uses_dynamic_stack" => |f| f.paired > 0 && f.cov >= 5,
        "kd.metadata.workgroup_processor_mode" => {
            |f| f.paired > 0 && f.wgp_mode_key && f.target_has(Target::has_wgp_mode)
        }
        "sgpr.private_segment_buffer.unsupported" => {
            |f| f.descriptors > 0 && f.target_has(|t| t.architected_flat_scratch)
        }
        "sgpr.flat_scratch_init.unsupported" => |f| {
            f.descriptors > 0
                && f.target_has(|t| t.architected_flat_scratch || t.generation == Generation::Gfx6)
        },
        "sgpr.allocation.too_small" => |f| f.gen_in(G::Gfx6, G::Gfx9),
        // SMEM: decode rules by what the instructions name, execution
        // rules by what the model ran.
        "smem.encoding" | "smem.opcode" | "smem.noncanonical" => |f| f.smem.instructions > 0,
        "smem.sdata.class" => |f| f.smem.sdata_regs,
        "smem.sdata.immediate" => |f| f.smem.sdata_imm,
        "smem.sbase.class" => |f| f.smem.sbase,
        "smem.imm_without_offset" => |f| f.smem.no_offset_gfx89,
        "smem.cpol.unsupported" => |f| f.smem.no_cpol_gfx11,
        "smem.offset.null" => |f| f.smem.sgpr_offset_gfx89,
        "smem.offset.buffer_negative" => |f| f.smem.buffer_imm,
        "smem.lgkm.read_before_wait"
        | "smem.lgkm.write_before_wait"
        | "smem.exec.invalid_instruction"
        | "smem.address.unaligned" => |f| f.smem.executed,
        "smem.gfx8.store_offset_register" => |f| f.smem.gfx8_store,
        "smem.buffer.resource_hazard" | "smem.buffer.stride" => |f| f.smem.buffer,
        "smem.scale_offset.byte_load" => |f| f.smem.scale_offset,
        "smem.offset.negative" => |f| f.smem.imm_offset_gfx9plus,
        "smem.xnack.clause_overlap" => |f| f.smem.xnack,
        "smem.discard.dirty" => |f| f.smem.discard,
        _ => return Err(""),
    };
    Ok(s)
}

/// A set of values, counted up to [`MAX_VALUES`].
#[derive(Debug, Default, Clone)]
struct ValueSet {
    values: BTreeSet<u64>,
    saturated: bool,
}

impl ValueSet {
    fn insert(&mut self, v: u64) {
        if self.values.len() < MAX_VALUES {
            self.values.insert(v);
        } else if !self.values.contains(&v) {
            self.saturated = true;
        }
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct RuleTally {
    valid: u64,
    mutants: u64,
    broken: u64,
    impure: u64,
}

/// Accumulates the coverage of cases one at a time.
pub struct Coverage {
    rules: Vec<(&'static Rule, Result<Scope, &'static str>)>,
    index: HashMap<&'static str, usize>,
    tally: Vec<RuleTally>,
    cases: u64,
    by_kind: BTreeMap<String, u64>,
    fields: [BTreeMap<&'static str, ValueSet>; 2],
    enables: [HashSet<(Family, Enables)>; 2],
    forms: [HashSet<(SmemGen, usize)>; 2],
    form_index: HashMap<SmemGen, HashMap<FormKey, usize>>,
    disagreements: Vec<Disagreement>,
    disagreement_count: u64,
    also: HashMap<&'static str, HashSet<&'static str>>,
}

/// An SMEM instruction's shape: opcode × offset form × modifiers.
type FormKey = (u8, smem::forms::OffsetForm, smem::forms::Modifiers);

/// One case whose verdict differs from its manifest.
#[derive(Debug, Clone, Serialize)]
pub struct Disagreement {
    /// The case.
    pub id: String,
    /// What the manifest expects.
    pub expect: String,
    /// What went wrong.
    pub what: String,
}

impl Default for Coverage {
    fn default() -> Self {
        Self::new()
    }
}

fn offset_form(o: &smem::Offset) -> smem::forms::OffsetForm {
    use smem::forms::OffsetForm as F;
    match o {
        smem::Offset::None => F::None,
        smem::Offset::Imm(_) => F::Imm,
        smem::Offset::Sgpr(_) => F::Sgpr,
        smem::Offset::SgprImm { .. } => F::SgprImm,
        smem::Offset::Soffset(_) => F::Soffset,
    }
}

fn form_key(i: &smem::Instruction) -> FormKey {
    (
        i.op.opcode,
        offset_form(&i.offset),
        smem::forms::Modifiers::of(i),
    )
}

impl Coverage {
    /// Empty coverage over the whole catalogue.
    pub fn new() -> Coverage {
        let rules: Vec<_> = rules::catalogue().map(|r| (r, scope(r.id))).collect();
        let index = rules
            .iter()
            .enumerate()
            .map(|(i, (r, _))| (r.id, i))
            .collect();
        let form_index = SmemGen::ALL
            .iter()
            .map(|&g| {
                let m = smem::forms::forms(g)
                    .iter()
                    .enumerate()
                    .map(|(i, f)| ((f.op.opcode, f.offset, f.modifiers()), i))
                    .collect();
                (g, m)
            })
            .collect();
        Coverage {
            tally: vec![RuleTally::default(); rules.len()],
            rules,
            index,
            cases: 0,
            by_kind: BTreeMap::new(),
            fields: Default::default(),
            enables: Default::default(),
            forms: Default::default(),
            form_index,
            disagreements: Vec::new(),
            disagreement_count: 0,
            also: HashMap::new(),
        }
    }

    fn disagree(&mut self, e: &ManifestEntry, what: String) {
        self.disagreement_count += 1;
        if self.disagreements.len() < MAX_LISTED {
            self.disagreements.push(Disagreement {
                id: e.id.clone(),
                expect: e.expect.clone(),
                what,
            });
        }
    }

    /// Adds one case: its manifest line and its ELF bytes, checked by the
    /// oracle ([`check_object_with`]) and by the code-level check
    /// ([`check_code`]).
    pub fn add(&mut self, e: &ManifestEntry, elf: &[u8]) {
        self.cases += 1;
        *self.by_kind.entry(e.kind.clone()).or_insert(0) += 1;
        let report = check_object_with(elf, Detail::Full);
        let code = check_code(elf);
        let mut facts = Facts::from_report(&report);
        let valid = e.expect == "valid";
        let side = usize::from(!valid);
        self.smem_facts(&mut facts, &code, side);
        self.shapes(&report, &facts, side);
        let found: Vec<(&'static str, Severity)> = report
            .violations
            .iter()
            .map(|v| (v.rule.id, v.severity))
            .chain(code.rules.iter().map(|r| (r.id, r.severity)))
            .collect();
        if valid {
            for (i, (_, s)) in self.rules.iter().enumerate() {
                if let Ok(p) = s {
                    if p(&facts) {
                        self.tally[i].valid += 1;
                    }
                }
            }
            let bad: BTreeSet<&str> = found
                .iter()
                .filter(|(_, sev)| *sev > Severity::Info)
                .map(|(id, _)| *id)
                .collect();
            let bad: Vec<&str> = bad.into_iter().collect();
            if !bad.is_empty() {
                self.disagree(e, format!("valid case has findings: {}", bad.join(", ")));
            }
            return;
        }
        let Some(&i) = self.index.get(e.expect.as_str()) else {
            self.disagree(e, "the expected rule is not in the catalogue".into());
            return;
        };
        self.tally[i].mutants += 1;
        let reported = found.iter().any(|(id, _)| *id == e.expect);
        if !reported {
            let found: BTreeSet<&str> = found.iter().map(|(id, _)| *id).collect();
            let found: Vec<&str> = found.into_iter().collect();
            self.disagree(
                e,
                format!(
                    "mutant: the oracle does not report its rule (found: {})",
                    if found.is_empty() {
                        "nothing".into()
                    } else {
                        found.join(", ")
                    }
                ),
            );
            return;
        }
        self.tally[i].broken += 1;
        let also = self
            .also
            .entry(self.rules[i].0.id)
            .or_insert_with(|| allowed_also(&e.expect));
        if found
            .iter()
            .any(|(id, sev)| *id != e.expect && *sev > Severity::Info && !also.contains(id))
        {
            self.tally[i].impure += 1;
        }
    }

    /// Records a case whose ELF could not be read or does not match the
    /// manifest.
    pub fn add_unreadable(&mut self, e: &ManifestEntry, why: String) {
        self.cases += 1;
        *self.by_kind.entry(e.kind.clone()).or_insert(0) += 1;
        self.disagree(e, why);
    }

    fn smem_facts(&mut self, facts: &mut Facts, code: &CodeCheck, side: usize) {
        use smem::Class;
        let s = &mut facts.smem;
        s.executed = code.executed;
        s.xnack = code.xnack;
        for &(g, w) in &code.words {
            let d = smem::decode(g, w);
            s.instructions += 1;
            s.gen = Some(g);
            let Some(i) = d.instruction else { continue };
            let c = i.op.class;
            let gfx89 = matches!(g, SmemGen::Gfx8 | SmemGen::Gfx9);
            s.sdata_regs |= c.has_sdata_regs();
            s.sdata_imm |= g.is_gfx12() && c.has_sdata_imm();
            s.sbase |= c.has_sbase();
            s.no_offset_gfx89 |= gfx89 && !c.has_offset();
            s.no_cpol_gfx11 |= g == SmemGen::Gfx11 && !c.has_glc();
            s.sgpr_offset_gfx89 |= gfx89
                && matches!(
                    i.offset,
                    smem::Offset::Sgpr(_) | smem::Offset::SgprImm { .. } | smem::Offset::Soffset(_)
                );
            let buffer = c.buffer_base();
            s.buffer_imm |= !g.is_gfx12()
                && buffer
                && matches!(
                    i.offset,
                    smem::Offset::Imm(_) | smem::Offset::SgprImm { .. }
                );
            s.gfx8_store |= g == SmemGen::Gfx8 && matches!(c, Class::Store | Class::BufferStore);
            s.buffer |= buffer;
            s.imm_offset_gfx9plus |= g != SmemGen::Gfx8
                && !buffer
                && matches!(
                    i.offset,
                    smem::Offset::Imm(_) | smem::Offset::SgprImm { .. }
                );
            s.discard |= c == Class::Discard;
            s.scale_offset |=
                i.scale_offset && matches!(i.op.ext, smem::table::Ext::I8 | smem::table::Ext::U8);
            if d.verdict == smem::Verdict::Valid {
                if let Some(&fi) = self.form_index.get(&g).and_then(|m| m.get(&form_key(&i))) {
                    self.forms[side].insert((g, fi));
                }
            }
        }
    }

    fn shapes(&mut self, report: &ObjectReport, facts: &Facts, side: usize) {
        for k in &report.kernels {
            for fld in &k.fields {
                self.fields[side]
                    .entry(fld.name)
                    .or_default()
                    .insert(fld.value);
            }
            let (Some(d), Some(t)) = (&k.descriptor, facts.target) else {
                continue;
            };
            let Some(family) = Family::of(t) else {
                continue;
            };
            let rsrc2 = d.compute_pgm_rsrc2;
            let e = Enables {
                user: (d.kernel_code_properties & 0x7f) as u8,
                preload_length: (d.kernarg_preload & 0x7f) as u8,
                // The suite enumerates offset 0 only; the offset is a
                // separate dimension, not an enable.
                preload_offset: 0,
                private_segment: d.enable_private_segment(),
                workgroup_ids: ((rsrc2 >> 7) & 7) as u8,
                workgroup_info: d.enable_sgpr_workgroup_info(),
                workitem_id: d.enable_vgpr_workitem_id() as u8,
                wave32: d.enable_wavefront_size32(),
            };
            self.enables[side].insert((family, e));
        }
    }

    /// The report.
    pub fn report(&self) -> CoverageReport {
        let mut rules = Vec::with_capacity(self.rules.len());
        let mut s = RuleSummary {
            rules: self.rules.len(),
            ..RuleSummary::default()
        };
        for ((r, sc), t) in self.rules.iter().zip(&self.tally) {
            let unmutable = unmutable_reason(r.id);
            let status = match (t.valid > 0, t.broken > 0) {
                (true, true) => "both",
                (true, false) => "valid-only",
                (false, true) => "mutant-only",
                (false, false) => "neither",
            };
            match status {
                "both" => s.both += 1,
                "valid-only" => s.valid_only += 1,
                "mutant-only" => s.mutant_only += 1,
                _ => s.neither += 1,
            }
            if t.valid > 0 {
                s.touched_by_valid += 1;
            }
            if t.broken > 0 {
                s.broken_by_mutant += 1;
            }
            let valid_reason = valid_reason(r.id, sc);
            let mut reasons = Vec::new();
            if t.valid == 0 {
                if let Some(v) = valid_reason {
                    reasons.push(format!("no valid case: {v}"));
                }
            }
            if t.broken == 0 {
                if let Some(m) = unmutable {
                    reasons.push(format!("no mutant: {m}"));
                }
            }
            let explained =
                (t.valid > 0 || valid_reason.is_some()) && (t.broken > 0 || unmutable.is_some());
            if status != "both" && explained {
                s.explained += 1;
            }
            if status != "both" && !explained {
                s.unexplained += 1;
            }
            rules.push(RuleCoverage {
                id: r.id,
                severity: r.severity,
                valid_cases: t.valid,
                mutants: t.mutants,
                broken: t.broken,
                impure: t.impure,
                status,
                reason: (!reasons.is_empty()).then(|| reasons.join("; ")),
            });
        }
        let fields = self.fields_report();
        let families: Vec<FamilyEnables> = Family::ALL
            .iter()
            .map(|&f| FamilyEnables {
                family: f.name(),
                valid: self.enables[0].iter().filter(|(g, _)| *g == f).count(),
                mutated: self.enables[1].iter().filter(|(g, _)| *g == f).count(),
                suite: hsaco_gen::sgpr::suite_len(f),
            })
            .collect();
        let smem_forms: Vec<SmemFormCoverage> = SmemGen::ALL
            .iter()
            .map(|&g| {
                let all = smem::forms::forms(g);
                let valid: BTreeSet<usize> = self.forms[0]
                    .iter()
                    .filter(|(x, _)| *x == g)
                    .map(|(_, i)| *i)
                    .collect();
                let mutated = self.forms[1].iter().filter(|(x, _)| *x == g).count();
                let missing: Vec<String> = all
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !valid.contains(i))
                    .take(LISTED_VALUES)
                    .map(|(_, f)| form_name(f))
                    .collect();
                SmemFormCoverage {
                    family: gen_name(g),
                    valid: valid.len(),
                    mutated,
                    forms: all.len(),
                    missing_examples: missing,
                }
            })
            .collect();
        CoverageReport {
            cases: self.cases,
            by_kind: self.by_kind.clone(),
            summary: s,
            rules,
            descriptor_fields: fields,
            enable_combinations: families,
            smem_forms,
            disagreement_count: self.disagreement_count,
            disagreements: self.disagreements.clone(),
        }
    }

    fn fields_report(&self) -> Vec<FieldCoverage> {
        let names: BTreeSet<&'static str> =
            self.fields.iter().flat_map(|m| m.keys().copied()).collect();
        names
            .into_iter()
            .map(|n| {
                let v = self.fields[0].get(n);
                let m = self.fields[1].get(n);
                let count = |s: Option<&ValueSet>| s.map_or(0, |s| s.values.len());
                FieldCoverage {
                    field: n,
                    valid_values: count(v),
                    valid_saturated: v.is_some_and(|s| s.saturated),
                    mutated_values: count(m),
                    valid_list: v
                        .filter(|s| s.values.len() <= LISTED_VALUES)
                        .map(|s| s.values.iter().copied().collect()),
                }
            })
            .collect()
    }

    /// Reads a generated tree (`DIR/manifest.jsonl` and the files it
    /// names) into a coverage.
    pub fn from_dir(dir: &Path) -> Result<Coverage, String> {
        let mpath = dir.join("manifest.jsonl");
        let file = std::fs::File::open(&mpath)
            .map_err(|e| format!("cannot read {}: {e}", mpath.display()))?;
        let mut cov = Coverage::new();
        for (n, line) in io::BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|e| format!("cannot read {}: {e}", mpath.display()))?;
            if line.trim().is_empty() {
                continue;
            }
            let e: ManifestEntry = serde_json::from_str(&line).map_err(|err| {
                format!("{}:{}: not a manifest line: {err}", mpath.display(), n + 1)
            })?;
            let path = dir.join(&e.elf);
            match std::fs::read(&path) {
                Ok(bytes) if sha256_hex(&bytes) == e.sha256 => cov.add(&e, &bytes),
                Ok(_) => {
                    cov.add_unreadable(&e, format!("{}: SHA-256 differs from the manifest", e.elf))
                }
                Err(err) => cov.add_unreadable(&e, format!("{}: {err}", e.elf)),
            }
        }
        Ok(cov)
    }
}

/// Rules no valid case touches because the generators, by design, never
/// write what the rule governs (they write what LLVM 19 writes).
const VALID_GAPS: &[(&str, &str)] = &[(
    "metadata.arg.value_type",
    "the generators write argument keys as LLVM 19 does, and LLVM 19 no longer writes \
     .value_type (clang-19 -mcode-object-version=4 and 5 objects have none)",
)];

/// Why no valid case touches rule `id`: out of the generators' scope, or
/// left out by design.
fn valid_reason(id: &str, scope: &Result<Scope, &'static str>) -> Option<&'static str> {
    if let Err(why) = scope {
        if !why.is_empty() {
            return Some(why);
        }
    }
    VALID_GAPS
        .iter()
        .find(|(r, _)| *r == id)
        .map(|(_, why)| *why)
}

/// Why no mutant can break rule `id`, from the mutators' own list.
fn unmutable_reason(id: &str) -> Option<&'static str> {
    mutate::unmutable()
        .iter()
        .find(|(r, _)| r.id == id)
        .map(|(_, why)| *why)
}

/// The rules a mutant of `rule` may break beside it: the `also` lists of
/// the rule's mutators.
fn allowed_also(rule: &str) -> HashSet<&'static str> {
    mutate::mutators()
        .iter()
        .filter(|m| m.rule.id == rule)
        .flat_map(|m| m.also.iter().map(|r| r.id))
        .collect()
}

fn gen_name(g: SmemGen) -> &'static str {
    match g {
        SmemGen::Gfx8 => "gfx8",
        SmemGen::Gfx9 => "gfx9",
        SmemGen::Gfx10_1 => "gfx10.1",
        SmemGen::Gfx10_3 => "gfx10.3",
        SmemGen::Gfx11 => "gfx11",
        SmemGen::Gfx12 => "gfx12",
        SmemGen::Gfx12_5 => "gfx12.5",
    }
}

fn form_name(f: &smem::forms::Form) -> String {
    let mut s = format!("{} {:?}", f.op.mnemonic, f.offset);
    for (on, m) in [(f.glc, " glc"), (f.dlc, " dlc")] {
        if on {
            s.push_str(m);
        }
    }
    if f.th != 0 || f.scope != 0 {
        let _ = write!(s, " th:{} scope:{}", f.th, f.scope);
    }
    for (on, m) in [(f.scale_offset, " scale_offset"), (f.nv, " nv")] {
        if on {
            s.push_str(m);
        }
    }
    s
}

/// Totals over the catalogue.
#[derive(Debug, Default, Clone, Serialize)]
pub struct RuleSummary {
    /// Rules in the catalogue.
    pub rules: usize,
    /// Touched by a valid case and broken by a mutant.
    pub both: usize,
    /// Touched by a valid case only.
    pub valid_only: usize,
    /// Broken by a mutant only.
    pub mutant_only: usize,
    /// Neither.
    pub neither: usize,
    /// Touched by at least one valid case.
    pub touched_by_valid: usize,
    /// Broken by at least one mutant.
    pub broken_by_mutant: usize,
    /// Not both ways, and each missing way has a stated reason.
    pub explained: usize,
    /// Not both ways, with a missing way that has no stated reason.
    pub unexplained: usize,
}

/// One rule's line of the report.
#[derive(Debug, Clone, Serialize)]
pub struct RuleCoverage {
    /// Rule id.
    pub id: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// Valid cases that touch it.
    pub valid_cases: u64,
    /// Mutants meant to break it.
    pub mutants: u64,
    /// Of those, mutants the oracle reports it on.
    pub broken: u64,
    /// Of those, mutants that also break a rule (error or warning) their
    /// mutator does not list as necessarily broken with it.
    pub impure: u64,
    /// `both`, `valid-only`, `mutant-only` or `neither`.
    pub status: &'static str,
    /// Why a way is missing, when it cannot be exercised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Values one descriptor field took.
#[derive(Debug, Clone, Serialize)]
pub struct FieldCoverage {
    /// Field name, `register.field`.
    pub field: &'static str,
    /// Distinct values in valid cases.
    pub valid_values: usize,
    /// More distinct values than were counted.
    pub valid_saturated: bool,
    /// Distinct values in mutants.
    pub mutated_values: usize,
    /// The valid values, when there are few.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub valid_list: Option<Vec<u64>>,
}

/// Enable combinations of one SGPR family.
#[derive(Debug, Clone, Serialize)]
pub struct FamilyEnables {
    /// Family name.
    pub family: &'static str,
    /// Distinct combinations in valid cases.
    pub valid: usize,
    /// Distinct combinations in mutants.
    pub mutated: usize,
    /// Combinations of the exhaustive suite.
    pub suite: usize,
}

/// SMEM forms of one family.
#[derive(Debug, Clone, Serialize)]
pub struct SmemFormCoverage {
    /// Family name.
    pub family: &'static str,
    /// Distinct forms (opcode × offset form × modifiers) in valid cases.
    pub valid: usize,
    /// Distinct valid forms in mutants.
    pub mutated: usize,
    /// Every form the family has.
    pub forms: usize,
    /// Some forms no valid case holds.
    pub missing_examples: Vec<String>,
}

/// The coverage report, as JSON and as text.
#[derive(Debug, Clone, Serialize)]
pub struct CoverageReport {
    /// Cases read.
    pub cases: u64,
    /// Cases per kind.
    pub by_kind: BTreeMap<String, u64>,
    /// Rule totals.
    pub summary: RuleSummary,
    /// Every rule of the catalogue.
    pub rules: Vec<RuleCoverage>,
    /// Descriptor fields and the values they took.
    pub descriptor_fields: Vec<FieldCoverage>,
    /// Initial-state enable combinations per family.
    pub enable_combinations: Vec<FamilyEnables>,
    /// SMEM opcode × form × modifier combinations per family.
    pub smem_forms: Vec<SmemFormCoverage>,
    /// Cases whose verdict differs from the manifest.
    pub disagreement_count: u64,
    /// The first of them.
    pub disagreements: Vec<Disagreement>,
}

impl CoverageReport {
    /// Writes the report as JSON, atomically.
    pub fn write_json(&self, path: &Path) -> io::Result<()> {
        let mut s = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        s.push('\n');
        write_atomic(path, s.as_bytes())
    }

    /// The summary lines.
    pub fn summary_text(&self) -> String {
        let s = &self.summary;
        let kinds: Vec<String> = self
            .by_kind
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        let mut out = format!("coverage of {} cases ({})\n", self.cases, kinds.join(", "));
        let _ = writeln!(
            out,
            "rules: {} in the catalogue; {} both ways, {} by valid cases only, {} by mutants only, {} neither",
            s.rules, s.both, s.valid_only, s.mutant_only, s.neither
        );
        let _ = writeln!(
            out,
            "       {} touched by a valid case, {} broken by a mutant; of the {} not covered both ways, {} have a stated reason, {} do not",
            s.touched_by_valid,
            s.broken_by_mutant,
            s.rules - s.both,
            s.explained,
            s.unexplained
        );
        let (v, m, total): (usize, usize, usize) =
            self.enable_combinations.iter().fold((0, 0, 0), |a, f| {
                (a.0 + f.valid, a.1 + f.mutated, a.2 + f.suite)
            });
        let _ = writeln!(
            out,
            "enable combinations: {v} in valid cases, {m} in mutants, of {total} in the SGPR suite"
        );
        let (v, m, total) = self.smem_forms.iter().fold((0, 0, 0), |a, f| {
            (a.0 + f.valid, a.1 + f.mutated, a.2 + f.forms)
        });
        let _ = writeln!(
            out,
            "SMEM forms: {v} in valid cases, {m} in mutants, of {total}"
        );
        let _ = writeln!(
            out,
            "descriptor fields: {} seen; disagreements with the manifest: {}",
            self.descriptor_fields.len(),
            self.disagreement_count
        );
        out
    }

    /// The full text report: summary, then tables.
    pub fn text(&self) -> String {
        let mut out = self.summary_text();
        let w = self.rules.iter().map(|r| r.id.len()).max().unwrap_or(4);
        let _ = writeln!(
            out,
            "\n{:<w$} {:<7} {:>7} {:>8} {:>8} {:>8}  status",
            "rule", "sev", "valid", "mutants", "broken", "impure"
        );
        for r in &self.rules {
            let _ = writeln!(
                out,
                "{:<w$} {:<7} {:>7} {:>8} {:>8} {:>8}  {}",
                r.id,
                r.severity.to_string(),
                r.valid_cases,
                r.mutants,
                r.broken,
                r.impure,
                r.status
            );
            if let Some(why) = &r.reason {
                let _ = writeln!(out, "    {why}");
            }
        }
        out.push_str("\nenable combinations    valid  mutated    suite\n");
        for f in &self.enable_combinations {
            let _ = writeln!(
                out,
                "{:<18} {:>9} {:>8} {:>8}",
                f.family, f.valid, f.mutated, f.suite
            );
        }
        out.push_str("\nSMEM forms             valid  mutated    forms\n");
        for f in &self.smem_forms {
            let _ = writeln!(
                out,
                "{:<18} {:>9} {:>8} {:>8}",
                f.family, f.valid, f.mutated, f.forms
            );
        }
        let w = self
            .descriptor_fields
            .iter()
            .map(|f| f.field.len())
            .max()
            .unwrap_or(5);
        let _ = writeln!(
            out,
            "\n{:<w$} {:>8}  {:>7}  valid values",
            "descriptor field", "valid", "mutated"
        );
        for f in &self.descriptor_fields {
            let list = match &f.valid_list {
                Some(v) => v.iter().map(u64::to_string).collect::<Vec<_>>().join(" "),
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "{:<w$} {:>8}{} {:>7}  {}",
                f.field,
                f.valid_values,
                if f.valid_saturated { "+" } else { " " },
                f.mutated_values,
                list
            );
        }
        if !self.disagreements.is_empty() {
            let _ = writeln!(out, "\ndisagreements ({} in all):", self.disagreement_count);
            for d in &self.disagreements {
                let _ = writeln!(out, "  {} (expect {}): {}", d.id, d.expect, d.what);
            }
        }
        out
    }
}

/// Runs `coverage DIR`; returns the exit status (0 no disagreement, 1
/// disagreements, 2 could not run).
pub fn run(dir: &Path, json: Option<&Path>) -> u8 {
    let cov = match Coverage::from_dir(dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("hsaco-conform coverage: {e}");
            return 2;
        }
    };
    let report = cov.report();
    if let Some(p) = json {
        if let Err(e) = report.write_json(p) {
            eprintln!("hsaco-conform coverage: cannot write {}: {e}", p.display());
            return 2;
        }
    }
    out!("{}", report.text());
    u8::from(report.disagreement_count > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_covers_the_catalogue() {
        for r in rules::catalogue() {
            match scope(r.id) {
                Ok(_) => {}
                Err(why) => assert!(!why.is_empty(), "rule {} has no touch predicate", r.id),
            }
        }
    }

    fn entry(id: &str, expect: &str, case: &hsaco_gen::Case) -> ManifestEntry {
        ManifestEntry {
            id: id.into(),
            seed: 0,
            index: 0,
            kind: if expect == "valid" { "valid" } else { "mutant" }.into(),
            target: case.target.clone(),
            code_object_version: case.code_object_version,
            expect: expect.into(),
            elf: format!("{id}.elf"),
            asm: None,
            sha256: sha256_hex(&case.elf),
            suite_entry: None,
            mutation: None,
            smem_instructions: None,
            sgpr_enables: None,
            layout: None,
        }
    }

    /// SMEM mutants are judged by the code-level check: each is counted
    /// broken and pure, its valid base touches the rule, and nothing
    /// disagrees.
    #[test]
    fn smem_mutants_are_broken_by_the_code_level_check() {
        let cfg = hsaco_gen::Config {
            targets: vec!["gfx900".into()],
            code_object_versions: vec![5],
            ..hsaco_gen::Config::default()
        };
        let bytes = [3u8; 4096];
        let mut u = hsaco_gen::arbitrary::Unstructured::new(&bytes);
        let base = hsaco_gen::valid_case(&mut u, &cfg, "t".into()).expect("generates");
        let mut cov = Coverage::new();
        cov.add(&entry("base", "valid", &base), &base.elf);
        // (rule, whether the base touches it: it runs an SMEM stream with
        // SDATA registers, but holds no buffer instruction).
        let rules = [
            ("smem.lgkm.read_before_wait", true),
            ("smem.sdata.class", true),
            ("smem.exec.invalid_instruction", true),
            ("smem.buffer.stride", false),
        ];
        let mut touched = Facts::from_report(&check_object_with(&base.elf, Detail::Full));
        Coverage::new().smem_facts(&mut touched, &check_code(&base.elf), 0);
        assert!(touched.smem.executed && touched.smem.sdata_regs && !touched.smem.buffer);
        for (rule, _) in rules {
            let choice = [9u8; 512];
            let m = mutate::mutate(
                &base,
                rule,
                &mut hsaco_gen::arbitrary::Unstructured::new(&choice),
            )
            .unwrap_or_else(|| panic!("{rule} applies on gfx900"));
            assert!(check_code(&m.elf).reports(rule), "{rule}");
            cov.add(&entry(rule, rule, &m), &m.elf);
        }
        let r = cov.report();
        assert_eq!(r.disagreement_count, 0, "{:?}", r.disagreements);
        for (rule, valid) in rules {
            let line = r.rules.iter().find(|x| x.id == rule).expect("in catalogue");
            let status = if valid { "both" } else { "mutant-only" };
            let got = (line.valid_cases, line.mutants, line.broken, line.impure);
            assert_eq!(got, (u64::from(valid), 1, 1, 0), "{rule}");
            assert_eq!(line.status, status, "{rule}");
        }
    }

    #[test]
    fn facts_of_a_generated_case() {
        let cfg = hsaco_gen::Config {
            targets: vec!["gfx90a".into()],
            code_object_versions: vec![5],
            min_kernels: 2,
            max_kernels: 2,
            ..hsaco_gen::Config::default()
        };
        let bytes = [7u8; 2048];
        let mut u = hsaco_gen::arbitrary::Unstructured::new(&bytes);
        let case = hsaco_gen::valid_case(&mut u, &cfg, "t".into()).expect("generates");
        let r = check_object_with(&case.elf, Detail::Full);
        let f = Facts::from_report(&r);
        assert_eq!(f.cov, 5);
        assert_eq!(f.target.map(|t| t.name), Some("gfx90a"));
        assert_eq!((f.descriptors, f.paired, f.md_kernels), (2, 2, 2));
        let touched = |id: &str| scope(id).expect("in table")(&f);
        assert!(touched("kd.rsrc3.accum_offset"));
        assert!(touched("kd.kernarg_preload.length"));
        assert!(!touched("kd.kernarg_preload.unsupported"));
        assert!(touched("metadata.kernel.duplicate_symbol"));
        assert!(!touched("kd.rsrc1.granulated_sgpr_count"));
        assert!(!touched("smem.opcode"));
        // V2 rules: touched by V2 cases only.
        assert!(!touched("code.version_major"));
        assert!(scope("code.version_major").expect("in table")(&Facts {
            cov: 2,
            ..f
        }));
    }
}
