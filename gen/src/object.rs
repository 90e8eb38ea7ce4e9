//! A whole code object: its target, its kernels (descriptor, metadata and
//! code each) and its metadata map; drawn so that every part agrees with
//! every other the way LLVM makes them agree.

use crate::config::Config;
use crate::kd::{self, DescriptorSpec};
use crate::metadata::{self, KernelMeta, MetadataSpec};
use crate::sgpr::{self, Enables};
use crate::target::{self, TargetChoice};
use arbitrary::Unstructured;
use hsaco_oracle::targets::{CodeObjectVersion, Generation, Target};
use serde::Serialize;

/// One kernel: its name, descriptor, metadata and machine code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Kernel {
    /// The kernel symbol (the descriptor symbol is `NAME.kd`).
    pub name: String,
    /// The descriptor, as directives.
    pub descriptor: DescriptorSpec,
    /// The kernel's metadata map.
    pub metadata: KernelMeta,
    /// The instruction stream, one 32-bit word per element: an SMEM
    /// stream ([`crate::smem`]), `s_waitcnt lgkmcnt(0)` and `s_endpgm`, or
    /// a lone `s_endpgm`; for a probe kernel ([`crate::probe`]), its
    /// instructions.
    pub code: Vec<u32>,
    /// The assembler lines of `code` when they are not an SMEM stream (a
    /// probe kernel's instructions and directives), else empty. Each
    /// line assembles to exactly its part of `code`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub text: Vec<String>,
}

/// A code object before it is written out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeObject {
    /// Target, version, generic version.
    pub target: TargetChoice,
    /// Kernels in symbol, descriptor and metadata order.
    pub kernels: Vec<Kernel>,
    /// `amdhsa.printf`.
    pub printf: Vec<String>,
    /// How the metadata is split into `NT_AMDGPU_METADATA` notes, as
    /// ld.lld writes an object linked from several (comgr merges them):
    /// the index of the first kernel of each note after the first,
    /// increasing, each in `1..kernels.len()`. Empty: one note. Code object
    /// V2 has one note always.
    pub note_starts: Vec<usize>,
    /// The note (index into the notes [`CodeObject::note_starts`] makes)
    /// that carries `amdhsa.printf`.
    pub printf_note: usize,
}

/// How a case's assembler text can be turned back into an object with the
/// installed tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rebuild {
    /// `llvm-mc-19` and `ld.lld-19` rebuild it (code object V4-V6).
    Llvm19,
    /// `llvm-mc-14` (with `--amdhsa-code-object-version=3`, or `=2`) and
    /// `ld.lld-19` rebuild it (code object V3 or V2, which LLVM 19 no
    /// longer writes).
    Llvm14,
    /// No installed assembler can: the case uses a processor or directive
    /// the installed LLVM lacks, or a descriptor bit no directive sets.
    Unavailable,
}

/// `s_endpgm` on `t` (SOPP opcode 1 before GFX11, 0x30 from GFX11; checked
/// with `llvm-mc-19 -show-encoding`).
pub fn s_endpgm(t: &Target) -> u32 {
    if t.generation >= Generation::Gfx11 {
        0xbfb0_0000
    } else {
        0xbf81_0000
    }
}

impl CodeObject {
    /// The metadata map.
    pub fn metadata(&self) -> MetadataSpec {
        let cov = self.target.cov;
        MetadataSpec {
            version: cov
                .metadata_version()
                .map_or([1, 0], |[a, b]| [a as u32, b as u32]),
            target: (cov >= CodeObjectVersion::V4).then(|| self.target.target_id_string()),
            printf: self.printf.clone(),
            kernels: self.kernels.iter().map(|k| k.metadata.clone()).collect(),
        }
    }

    /// `amdhsa.version`: the version's metadata version ([1, 0] where
    /// it has none).
    pub fn metadata_version(&self) -> [u32; 2] {
        self.target
            .cov
            .metadata_version()
            .map_or([1, 0], |[a, b]| [a as u32, b as u32])
    }

    /// The kernels of each metadata note, in order (one range for one
    /// note).
    pub fn note_ranges(&self) -> Vec<std::ops::Range<usize>> {
        let n = self.kernels.len();
        let mut out = Vec::with_capacity(self.note_starts.len() + 1);
        let mut from = 0;
        // Starts that are not increasing or leave a note empty are
        // ignored, so a model edited by hand still writes every kernel once.
        for &s in self.note_starts.iter().filter(|&&s| s < n) {
            if s > from {
                out.push(from..s);
                from = s;
            }
        }
        out.push(from..n);
        out
    }

    /// The document of metadata note `i` (of [`CodeObject::note_ranges`]):
    /// the root keys, its kernels, and the printf list if it is
    /// [`CodeObject::printf_note`].
    pub fn note_doc(&self, i: usize) -> metadata::Doc<'_> {
        let cov = self.target.cov;
        let r = self.note_ranges().get(i).cloned().unwrap_or(0..0);
        let printf: &[String] = if i == self.printf_index() {
            &self.printf
        } else {
            &[]
        };
        metadata::root_doc(
            self.metadata_version(),
            (cov >= CodeObjectVersion::V4).then(|| self.target.target_id_string()),
            printf,
            self.kernels[r].iter().map(|k| &k.metadata),
        )
    }

    /// The note that carries the printf list: [`CodeObject::printf_note`],
    /// or the last note if there are fewer.
    pub fn printf_index(&self) -> usize {
        self.printf_note.min(self.note_ranges().len() - 1)
    }

    /// The same object with its metadata in one note (what mutants of the
    /// note and metadata rules start from).
    pub fn one_note(&self) -> CodeObject {
        CodeObject {
            note_starts: Vec::new(),
            printf_note: 0,
            ..self.clone()
        }
    }

    /// The metadata document, borrowing the kernels' metadata (what the
    /// emitters write; [`CodeObject::metadata`] is the owned model).
    pub fn metadata_doc(&self) -> metadata::Doc<'_> {
        let cov = self.target.cov;
        metadata::root_doc(
            self.metadata_version(),
            (cov >= CodeObjectVersion::V4).then(|| self.target.target_id_string()),
            &self.printf,
            self.kernels.iter().map(|k| &k.metadata),
        )
    }

    /// Which installed assembler rebuilds this object from its assembler
    /// text.
    pub fn rebuild(&self) -> Rebuild {
        if self.target.cov == CodeObjectVersion::V2 {
            return crate::v2::rebuild(self);
        }
        let t = self.target.target();
        if self
            .kernels
            .iter()
            .any(|k| k.descriptor.uses_fields_without_directives())
        {
            return Rebuild::Unavailable;
        }
        if self.target.cov == CodeObjectVersion::V3 {
            let ok = target::assembler_knows(t, CodeObjectVersion::V3)
                && !self
                    .kernels
                    .iter()
                    .any(|k| k.descriptor.needs_newer_than_llvm14());
            if ok {
                Rebuild::Llvm14
            } else {
                Rebuild::Unavailable
            }
        } else if t.llvm19()
            && self.target.generic_version <= 1
            && !self
                .kernels
                .iter()
                .any(|k| k.descriptor.needs_newer_than_llvm19())
        {
            Rebuild::Llvm19
        } else {
            Rebuild::Unavailable
        }
    }
}

/// Builds one kernel named `name` on `tc` from already drawn arguments and
/// enables: draws register use, the descriptor and the code (an SMEM
/// stream when `cfg` asks for one), then derives the
/// metadata keys tied to the descriptor (sizes, counts, wave size, dynamic
/// stack, WGP mode) and draws the rest.
pub fn build_kernel(
    u: &mut Unstructured<'_>,
    cfg: &Config,
    tc: &TargetChoice,
    name: String,
    args: metadata::ArgList,
    enables: Enables,
) -> arbitrary::Result<Kernel> {
    let t = tc.target();
    let cov = tc.cov;
    let vgprs = kd::arbitrary_vgprs(u, cfg, t, enables.workitem_vgprs(t))?;
    let mut d = kd::arbitrary_descriptor(u, cfg, tc, enables, args.kernarg_segment_size, vgprs)?;
    if cov == CodeObjectVersion::V2 {
        return crate::v2::finish_kernel(u, cfg, tc, name, args, vgprs, d);
    }
    // The stream may raise .amdhsa_next_free_sgpr, so it comes before
    // everything derived from the descriptor's SGPR count.
    let code = arbitrary_code(u, cfg, tc, &mut d)?;
    let mut meta = descriptor_metadata(name.clone(), format!("{name}.kd"), args, &d, &vgprs);
    meta.wavefront_size = if enables.is_wave32(t) { 32 } else { 64 };
    meta.sgpr_count = d.sgpr_count(tc).into();
    meta.agpr_count = vgprs.agpr_count.map(u32::from);
    meta.uses_dynamic_stack = (cov >= CodeObjectVersion::V4).then_some(d.uses_dynamic_stack);
    meta.workgroup_processor_mode =
        (cov >= CodeObjectVersion::V5 && t.has_wgp_mode()).then_some(d.workgroup_processor_mode);
    metadata::arbitrary_kernel_extras(u, cfg, cov, &mut meta)?;
    Ok(Kernel {
        name,
        descriptor: d,
        metadata: meta,
        code,
        text: Vec::new(),
    })
}

/// The code of a kernel with descriptor `d`: an SMEM stream when `cfg`
/// asks for one (which may raise `.amdhsa_next_free_sgpr`), else
/// `s_endpgm` alone.
pub(crate) fn arbitrary_code(
    u: &mut Unstructured<'_>,
    cfg: &Config,
    tc: &TargetChoice,
    d: &mut DescriptorSpec,
) -> arbitrary::Result<Vec<u32>> {
    Ok(match crate::smem::arbitrary_kernel_stream(u, cfg, tc, d)? {
        Some(stream) => stream.kernel_code(),
        None => vec![s_endpgm(tc.target())],
    })
}

/// The metadata of kernel `name` (descriptor symbol `symbol`) as its
/// arguments, descriptor `d` and register use `vgprs` give it: sizes and
/// the VGPR count; the keys that differ between code object versions
/// (wave size, SGPR and AGPR counts, dynamic stack, WGP mode) are for
/// the caller, the rest unset.
pub(crate) fn descriptor_metadata(
    name: String,
    symbol: String,
    args: metadata::ArgList,
    d: &DescriptorSpec,
    vgprs: &kd::VgprUse,
) -> KernelMeta {
    KernelMeta {
        symbol,
        name,
        language: None,
        language_version: None,
        args: args.args,
        reqd_workgroup_size: None,
        workgroup_size_hint: None,
        vec_type_hint: None,
        device_enqueue_symbol: None,
        kernarg_segment_size: args.kernarg_segment_size,
        group_segment_fixed_size: d.group_segment_fixed_size,
        private_segment_fixed_size: d.private_segment_fixed_size,
        kernarg_segment_align: args.kernarg_segment_align,
        wavefront_size: 64,
        sgpr_count: 0,
        vgpr_count: vgprs.vgpr_count.into(),
        agpr_count: None,
        max_flat_workgroup_size: 256,
        max_num_workgroups: None,
        sgpr_spill_count: None,
        vgpr_spill_count: None,
        kind: None,
        uses_dynamic_stack: None,
        workgroup_processor_mode: None,
        uniform_work_group_size: None,
    }
}

/// Draws a valid code object: a target from `cfg`, then
/// `cfg.min_kernels..=cfg.max_kernels` kernels with distinct names.
pub fn arbitrary_code_object(
    u: &mut Unstructured<'_>,
    cfg: &Config,
) -> arbitrary::Result<CodeObject> {
    arbitrary_code_object_in(u, cfg, &target::allowed_pairs(cfg))
}

/// [`arbitrary_code_object`] with `cfg`'s (processor, version) pairs
/// computed once by the caller ([`crate::Generator`] does).
pub fn arbitrary_code_object_in(
    u: &mut Unstructured<'_>,
    cfg: &Config,
    pairs: &[(&'static Target, CodeObjectVersion)],
) -> arbitrary::Result<CodeObject> {
    let tc = target::arbitrary_target_in(u, cfg, pairs)?;
    let t = tc.target();
    let n = u.int_in_range(cfg.min_kernels..=cfg.max_kernels.max(cfg.min_kernels))?;
    let mut kernels: Vec<Kernel> = Vec::with_capacity(n);
    for i in 0..n {
        let mut name = metadata::arbitrary_ident(u, cfg.max_name_len)?;
        while kernels.iter().any(|k| k.name == name) {
            name.push_str(&format!("_{i}"));
        }
        let args = metadata::arbitrary_args(u, cfg, tc.cov)?;
        let preload_ok = !(cfg.rebuildable_only && tc.cov == CodeObjectVersion::V3);
        let enables = sgpr::arbitrary_enables(u, cfg, t, args.kernarg_segment_size, preload_ok)?;
        kernels.push(build_kernel(u, cfg, &tc, name, args, enables)?);
    }
    let printf = if cfg.printf && u.ratio(1u8, 4)? {
        metadata::arbitrary_printf(u)?
    } else {
        Vec::new()
    };
    // Drawn last: a one-note configuration (or a one-kernel object) draws
    // nothing here.
    let (note_starts, printf_note) = arbitrary_note_split(u, cfg, tc.cov, n)?;
    Ok(CodeObject {
        target: tc,
        kernels,
        printf,
        note_starts,
        printf_note,
    })
}

/// Draws how `n` kernels are split between metadata notes (at most
/// `cfg.max_metadata_notes`, each with at least one kernel; code object V2
/// keeps one) and which note carries the printf list.
fn arbitrary_note_split(
    u: &mut Unstructured<'_>,
    cfg: &Config,
    cov: CodeObjectVersion,
    n: usize,
) -> arbitrary::Result<(Vec<usize>, usize)> {
    let most = cfg.max_metadata_notes.min(n);
    if cov == CodeObjectVersion::V2 || most <= 1 {
        return Ok((Vec::new(), 0));
    }
    let notes = u.int_in_range(1..=most)?;
    let mut starts: Vec<usize> = Vec::with_capacity(notes - 1);
    // Choose notes-1 distinct starts in 1..n, in order: each start leaves
    // room for the notes still to come.
    let mut from = 1;
    for left in (1..notes).rev() {
        let s = u.int_in_range(from..=n - left)?;
        starts.push(s);
        from = s + 1;
    }
    let printf_note = u.int_in_range(0..=notes - 1)?;
    Ok((starts, printf_note))
}
