//! Generators of AMDGPU code object test cases.
//!
//! The generators are functions of [`arbitrary::Unstructured`] only, never
//! of a random number generator: the command line feeds them bytes from a
//! seeded stream, so a seed names a case on every machine, and a fuzzer can
//! drive them directly. What they build is steered by a [`Config`] (one
//! table of knobs, with swarm configurations for fuzzing).
//!
//! - [`target`]: processor, feature settings, code object version;
//!   target families.
//! - [`sgpr`]: the enable bits of the initial register state, drawn or
//!   enumerated exhaustively (the SGPR suite), with the layout they imply.
//! - [`kd`]: kernel descriptors at the level of `.amdhsa_*` directives.
//! - [`metadata`]: arguments of every kind, hidden arguments, kernel keys.
//! - [`object`]: whole code objects.
//! - [`emit`]: ELF bytes (laid out as `ld.lld -shared` lays them out) and
//!   LLVM assembler text that rebuilds the same object.
//! - [`v2`]: code object V2 (`amd_kernel_code_t`, YAML metadata, "AMD"
//!   notes) derived from the same model.
//!
//! A [`Case`] carries one generated code object with both renderings and
//! the verdict the oracle must reach.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod emit;
pub mod isa;
pub mod kd;
pub mod metadata;
pub mod mutate;
pub mod object;
pub mod probe;
pub mod seed;
pub mod sgpr;
pub mod smem;
pub mod target;
pub mod v2;

pub use arbitrary;
pub use config::Config;
pub use object::{CodeObject, Rebuild};

use arbitrary::Unstructured;
use serde::Serialize;

/// What kind of case this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseKind {
    /// A random valid code object.
    Valid,
    /// An entry of the exhaustive SGPR enable suite (valid).
    SgprSuite,
    /// A valid case changed to break one rule ([`mutate`]).
    Mutant,
}

/// The verdict the oracle must reach on a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Expect {
    /// No error and no warning (infos only where LLVM's own output has
    /// them).
    Valid,
    /// The named rule (and no other error), for single-rule mutants.
    Rule(&'static str),
}

impl Expect {
    /// `valid`, or the rule id: the form the manifest records.
    pub fn as_str(&self) -> &'static str {
        match self {
            Expect::Valid => "valid",
            Expect::Rule(r) => r,
        }
    }
}

/// One generated test case.
#[derive(Debug, Clone, Serialize)]
pub struct Case {
    /// Stable name of the case (the caller's seed or suite position).
    pub id: String,
    /// The seed whose byte stream produced the case, when there is one.
    pub seed: Option<u64>,
    /// What kind of case.
    pub kind: CaseKind,
    /// Target ID (V4+ spelling, without the triple).
    pub target: String,
    /// Code object version number (2 to 6).
    pub code_object_version: u8,
    /// The verdict the oracle must reach.
    pub expect: Expect,
    /// Which installed assembler rebuilds [`Case::asm`].
    pub rebuild: Rebuild,
    /// The code object's ELF bytes.
    #[serde(skip)]
    pub elf: Vec<u8>,
    /// The LLVM assembler text for the same code object.
    #[serde(skip)]
    pub asm: String,
    /// The model both were written from.
    #[serde(skip)]
    pub object: CodeObject,
}

impl Case {
    /// Renders `object` into a case.
    pub fn from_object(id: String, kind: CaseKind, expect: Expect, object: CodeObject) -> Case {
        Case {
            id,
            seed: None,
            kind,
            target: object.target.id.to_v4_string(),
            code_object_version: object.target.cov.number(),
            expect,
            rebuild: object.rebuild(),
            elf: emit::elf_bytes(&object),
            asm: emit::asm::write(&object),
            object,
        }
    }
}

/// Draws a valid case from `u` under `cfg`. Fails only if `cfg` allows no
/// (processor, version) pair. For many cases of one configuration,
/// [`Generator`] saves the per-configuration work.
pub fn valid_case(u: &mut Unstructured<'_>, cfg: &Config, id: String) -> arbitrary::Result<Case> {
    Generator::new(cfg).valid_case(u, id)
}

/// A configuration prepared for generating many cases: what every case
/// needs of it (the allowed processor and version pairs) is computed once.
#[derive(Debug, Clone)]
pub struct Generator<'c> {
    config: &'c Config,
    pairs: Vec<(
        &'static hsaco_oracle::targets::Target,
        hsaco_oracle::targets::CodeObjectVersion,
    )>,
}

impl<'c> Generator<'c> {
    /// Prepares `config`.
    pub fn new(config: &'c Config) -> Generator<'c> {
        Generator {
            config,
            pairs: target::allowed_pairs(config),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        self.config
    }

    /// Draws a valid code object (see [`object::arbitrary_code_object`]).
    pub fn code_object(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<CodeObject> {
        object::arbitrary_code_object_in(u, self.config, &self.pairs)
    }

    /// Draws a valid case named `id`.
    pub fn valid_case(&self, u: &mut Unstructured<'_>, id: String) -> arbitrary::Result<Case> {
        let object = self.code_object(u)?;
        Ok(Case::from_object(
            id,
            CaseKind::Valid,
            Expect::Valid,
            object,
        ))
    }
}

/// The code object of an SGPR suite entry: one kernel on the family's
/// representative processor, code object V5, with the entry's enables, a
/// kernarg segment large enough for its preload, and the fewest SGPRs and
/// VGPRs that hold the initial state (LLVM's defaults elsewhere).
pub fn suite_object(entry: &sgpr::SuiteEntry) -> CodeObject {
    use hsaco_oracle::targets::{CodeObjectVersion, TargetId};
    let t = entry.target;
    let tc = target::TargetChoice {
        id: TargetId::any(t),
        cov: CodeObjectVersion::V5,
        generic_version: 0,
    };
    let e = entry.enables;
    let kernarg = 4 * (u32::from(e.preload_offset) + u32::from(e.preload_length));
    let mut d = kd::DescriptorSpec::llvm_defaults(&tc, e);
    d.kernarg_size = kernarg;
    d.reserve_vcc = false;
    d.reserve_flat_scratch = false;
    if t.accum_offset {
        d.accum_offset = d.next_free_vgpr.div_ceil(4) * 4;
    }
    let dwords = kernarg / 4;
    let args = (0..dwords)
        .map(|i| metadata::ArgSpec {
            name: None,
            type_name: None,
            size: 4,
            offset: 4 * i,
            kind: hsaco_oracle::metadata::ValueKind::ByValue,
            pointee_align: None,
            address_space: None,
            access: None,
            actual_access: None,
            is_const: None,
            is_restrict: None,
            is_volatile: None,
            is_pipe: None,
        })
        .collect();
    let name = "suite".to_owned();
    let meta = metadata::KernelMeta {
        name: name.clone(),
        symbol: format!("{name}.kd"),
        language: None,
        language_version: None,
        args,
        reqd_workgroup_size: None,
        workgroup_size_hint: None,
        vec_type_hint: None,
        device_enqueue_symbol: None,
        kernarg_segment_size: kernarg,
        group_segment_fixed_size: 0,
        private_segment_fixed_size: 0,
        kernarg_segment_align: 4,
        wavefront_size: if e.is_wave32(t) { 32 } else { 64 },
        sgpr_count: d.sgpr_count(&tc).into(),
        vgpr_count: d.next_free_vgpr.into(),
        agpr_count: t.agprs.then_some(0),
        max_flat_workgroup_size: 256,
        max_num_workgroups: None,
        sgpr_spill_count: None,
        vgpr_spill_count: None,
        kind: None,
        uses_dynamic_stack: Some(false),
        workgroup_processor_mode: t.has_wgp_mode().then_some(d.workgroup_processor_mode),
        uniform_work_group_size: None,
    };
    CodeObject {
        target: tc,
        kernels: vec![object::Kernel {
            name,
            descriptor: d,
            metadata: meta,
            code: vec![object::s_endpgm(t)],
            text: Vec::new(),
        }],
        printf: Vec::new(),
        note_starts: Vec::new(),
        printf_note: 0,
    }
}

/// Every case of the SGPR suite for `family`, in [`sgpr::suite`] order,
/// named `sgpr-<family>-<index>`.
pub fn suite_cases(family: target::Family) -> impl Iterator<Item = Case> {
    sgpr::suite(family).enumerate().map(move |(i, entry)| {
        Case::from_object(
            format!("sgpr-{}-{i}", family.name()),
            CaseKind::SgprSuite,
            Expect::Valid,
            suite_object(&entry),
        )
    })
}
