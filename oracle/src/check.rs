//! The whole-object check: runs every layer of the model over one code
//! object and gathers the typed view (target, kernels) with the violations.
//!
//! Code object V3 and later: kernel descriptors (`NAME.kd`) and MessagePack
//! metadata. Code object V2 ([`check_parsed`]'s V2 branch): the "AMD" notes,
//! YAML metadata, and one `amd_kernel_code_t` per `STT_AMDGPU_HSA_KERNEL`
//! symbol; the rules declared here compare each `amd_kernel_code_t` with
//! the kernel's YAML `CodeProps` (LLVM 14 fills both from the same values,
//! checked with `llc-14 -filetype=asm`, which prints both) and, when
//! `e_flags` names no known processor, with the ISA version note.

use crate::elf::Elf;
use crate::fasthash::FastHash;
use crate::kernel_code::{self, offsets, KernelCode, KERNEL_CODE_SIZE};
use crate::metadata_v2::{self, CodePropsV2, KernelV2, MetadataV2};
use crate::rules::{Omitted, Sink, Violation};
use crate::targets::{CodeObjectVersion, FeatureSetting, TargetId};
use crate::{dispatch, kd, metadata, notes, sgpr, symbols};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

crate::declare_rules! {
    CODE_METADATA_KERNARG_SEGMENT_SIZE = (Error, "code.metadata.kernarg_segment_size",
        "Code object V2: kernarg_segment_byte_size equals the kernel's KernargSegmentSize metadata. LLVM writes both from one value; ROCm's loader sizes the kernarg segment from the amd_kernel_code_t while runtimes lay the arguments out from the metadata.",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Code Properties Metadata Map; AMDGPUAsmPrinter.cpp (getAmdKernelCode); AMDGPUHSAMetadataStreamer.cpp (getHSACodeProps); ROCR-Runtime src/loader/executable.cpp (KernelSymbol)");
    CODE_METADATA_KERNARG_SEGMENT_ALIGN = (Error, "code.metadata.kernarg_segment_align",
        "Code object V2: the kernarg segment alignment of the amd_kernel_code_t (2^kernarg_segment_alignment) is at least the KernargSegmentAlign metadata: ROCm's loader aligns the segment by the former, the arguments need the latter. LLVM writes max(16, KernargSegmentAlign), so the two differ whenever the metadata says 4 or 8.",
        "AMDGPUAsmPrinter.cpp (getAmdKernelCode: Log2(max(Align(16), MaxKernArgAlign))); AMDGPUHSAMetadataStreamer.cpp (getHSACodeProps); ROCR-Runtime src/loader/executable.cpp (KernelSymbol)");
    CODE_METADATA_GROUP_SEGMENT_FIXED_SIZE = (Error, "code.metadata.group_segment_fixed_size",
        "Code object V2: workgroup_group_segment_byte_size equals the kernel's GroupSegmentFixedSize metadata (LLVM writes both from one value; ROCm's loader takes the amd_kernel_code_t's).",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Code Properties Metadata Map; AMDGPUAsmPrinter.cpp (getAmdKernelCode); ROCR-Runtime src/loader/executable.cpp (KernelSymbol)");
    CODE_METADATA_PRIVATE_SEGMENT_FIXED_SIZE = (Error, "code.metadata.private_segment_fixed_size",
        "Code object V2: workitem_private_segment_byte_size equals the kernel's PrivateSegmentFixedSize metadata (LLVM writes both from one value; ROCm's loader takes the amd_kernel_code_t's).",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Code Properties Metadata Map; AMDGPUAsmPrinter.cpp (getAmdKernelCode); ROCR-Runtime src/loader/executable.cpp (KernelSymbol)");
    CODE_METADATA_WAVEFRONT_SIZE = (Error, "code.metadata.wavefront_size",
        "Code object V2: the lanes of wavefront_size (2^wavefront_size) equal the kernel's WavefrontSize metadata.",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Code Properties Metadata Map; rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t (wavefront_size)");
    CODE_METADATA_SGPR_COUNT = (Warning, "code.metadata.sgpr_count",
        "Code object V2: wavefront_sgpr_count equals the kernel's NumSGPRs metadata (absent means 0, as LLVM omits it then). Both only inform tools (the hardware allocates by GRANULATED_WAVEFRONT_SGPR_COUNT), so a difference is a warning.",
        "AMDGPUAsmPrinter.cpp (getAmdKernelCode); AMDGPUHSAMetadataStreamer.cpp (getHSACodeProps); llc-14 --amdhsa-code-object-version=2 -filetype=asm");
    CODE_METADATA_VGPR_COUNT = (Warning, "code.metadata.vgpr_count",
        "Code object V2: workitem_vgpr_count equals the kernel's NumVGPRs metadata (absent means 0, as LLVM omits it then). Both only inform tools (the hardware allocates by GRANULATED_WORKITEM_VGPR_COUNT), so a difference is a warning.",
        "AMDGPUAsmPrinter.cpp (getAmdKernelCode); AMDGPUHSAMetadataStreamer.cpp (getHSACodeProps); llc-14 --amdhsa-code-object-version=2 -filetype=asm");
    CODE_METADATA_DYNAMIC_CALL_STACK = (Error, "code.metadata.dynamic_call_stack",
        "Code object V2: code_properties is_dynamic_callstack equals the kernel's IsDynamicCallStack metadata (absent means false): ROCm's loader takes the flag from the amd_kernel_code_t, tools from the metadata.",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Code Properties Metadata Map; AMDGPUAsmPrinter.cpp (getAmdKernelCode); ROCR-Runtime src/loader/executable.cpp (KernelSymbol)");
    CODE_METADATA_XNACK = (Warning, "code.metadata.xnack",
        "Code object V2: code_properties is_xnack_enabled equals the kernel's IsXNACKEnabled metadata (absent means false); LLVM writes both from the one xnack setting.",
        "AMDGPUAsmPrinter.cpp (getAmdKernelCode); AMDGPUHSAMetadataStreamer.cpp (getHSACodeProps); llc-14 --amdhsa-code-object-version=2 -mattr=+xnack/-xnack");
    CODE_NOTE_ISA_VERSION = (Error, "code.note.isa_version",
        "Code object V2 whose e_flags name no known processor: amd_machine_version is the ISA version of the processor NT_AMD_HSA_ISA_VERSION names (the note's version with LLVM 14's xnack stepping raise of gfx901/903/905/907 undone). With a known processor, code.machine_version and note.v2.isa_version.mach compare both with e_flags instead.",
        "rocm-code-object-format.rst: Instruction set architecture; AMDGPUBaseInfo.cpp (initDefaultAMDKernelCodeT); llc-14 --amdhsa-code-object-version=2 -mcpu=gfx900 (note 9.0.1, amd_machine_version 9.0.0)");
}

/// Everything the oracle learned about one code object.
#[derive(Debug, Serialize)]
pub struct ObjectReport {
    /// Target ID decoded from `e_flags` (V4+ syntax), if the mach is known.
    pub target: Option<String>,
    /// Code object version number (2-6), if the header names one.
    pub code_object_version: Option<u8>,
    /// `ET_REL` or `ET_DYN` (or the raw number for anything else).
    pub elf_type: Option<String>,
    /// One entry per kernel descriptor symbol.
    pub kernels: Vec<KernelReport>,
    /// Every violation found, in check order (info findings up to
    /// [`MAX_INFOS_PER_RULE`](crate::rules::MAX_INFOS_PER_RULE) per rule).
    pub violations: Vec<Violation>,
    /// Info findings counted but not kept in `violations`, per rule.
    pub omitted: Vec<Omitted>,
    /// The decoded metadata, if the object had a readable metadata note.
    #[serde(skip)]
    pub metadata: Option<metadata::Metadata>,
    /// Code object V2: the decoded YAML metadata, if readable (full
    /// detail only).
    #[serde(skip)]
    pub metadata_v2: Option<MetadataV2>,
    /// Code object V2: what the "AMD" notes say (full detail only).
    #[serde(skip)]
    pub v2_notes: Option<V2NoteSummary>,
    /// Code object V3+: every `NT_AMDGPU_METADATA` note, in file order
    /// (linked objects carry one per input object; their kernels are
    /// merged as comgr merges them).
    pub metadata_notes: Vec<MetadataNote>,
}

/// One `NT_AMDGPU_METADATA` note of an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MetadataNote {
    /// File offset of the note header.
    pub offset: u64,
    /// Kernels the note describes (0 if it did not decode).
    pub kernels: usize,
}

/// The "AMD" notes of a code object V2, decoded (the first of each type).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct V2NoteSummary {
    /// `NT_AMD_HSA_CODE_OBJECT_VERSION`: [major, minor].
    pub code_object_version: Option<[u32; 2]>,
    /// `NT_AMD_HSA_ISA_VERSION`: [major, minor, stepping].
    pub isa_version: Option<[u32; 3]>,
    /// `NT_AMD_HSA_ISA_VERSION` as an ISA string, `AMD:AMDGPU:9:0:1`.
    pub isa_string: Option<String>,
    /// `NT_AMD_HSA_ISA_NAME`, e.g. `amdgcn-amd-amdhsa--gfx901`.
    pub isa_name: Option<String>,
    /// True if there is an `NT_AMD_HSA_HSAIL` note (an HSAIL finalizer
    /// object).
    pub hsail: bool,
    /// Key/value pairs of an `NT_AMD_PAL_METADATA` note, if present.
    pub pal_metadata_pairs: Option<usize>,
}

impl V2NoteSummary {
    fn new(n: &notes::V2Notes<'_, '_>) -> Self {
        Self {
            code_object_version: n.code_object_version.map(|v| [v.major, v.minor]),
            isa_version: n.isa_version.as_ref().map(notes::IsaVersionNote::version),
            isa_string: n
                .isa_version
                .as_ref()
                .map(notes::IsaVersionNote::isa_string),
            isa_name: n.isa_name.clone(),
            hsail: n.hsail.is_some(),
            pal_metadata_pairs: n.pal_metadata.as_ref().map(Vec::len),
        }
    }
}

/// One kernel: its descriptor decoded field by field, the initial register
/// state the hardware sets up for it, and its metadata. In a code object V2
/// the "descriptor" is the kernel's 256-byte `amd_kernel_code_t`.
#[derive(Debug, Serialize)]
pub struct KernelReport {
    /// Kernel name (the descriptor symbol without `.kd`; in V2 the
    /// `STT_AMDGPU_HSA_KERNEL` symbol).
    pub name: String,
    /// File offset of the descriptor (V2: of the `amd_kernel_code_t`)
    /// within the code object.
    pub descriptor_offset: Option<u64>,
    /// The raw descriptor, when it could be read (V3+).
    #[serde(skip)]
    pub descriptor: Option<kd::KernelDescriptor>,
    /// The raw `amd_kernel_code_t`, when it could be read (V2).
    #[serde(skip)]
    pub kernel_code: Option<Box<KernelCode>>,
    /// Descriptor (V2: `amd_kernel_code_t`) fields by name, with their
    /// meaning for the target.
    pub fields: Vec<kd::Field>,
    /// Initial SGPR/VGPR layout predicted from the descriptor.
    pub initial_state: Option<sgpr::InitialState>,
    /// The kernel's metadata entry, if the metadata names it (V3+).
    pub metadata: Option<Box<metadata::Kernel>>,
    /// The kernel's YAML metadata entry, if the metadata names it (V2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata_v2: Option<Box<KernelV2>>,
    /// V3+: the index in [`ObjectReport::metadata_notes`] of the note that
    /// describes the kernel, if one does.
    pub metadata_note: Option<u32>,
    /// V3+: the kernel dispatch packet HIP would build for the kernel at
    /// its default shape ([`dispatch::view`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispatch_packet: Option<dispatch::PacketView>,
}

impl ObjectReport {
    /// True if any violation has error severity.
    pub fn has_errors(&self) -> bool {
        self.violations
            .iter()
            .any(|v| v.severity == crate::Severity::Error)
    }
}

/// How much of the typed view [`check_object_with`] builds. Every rule is
/// evaluated either way, so the violations are the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Everything: descriptor fields, initial register state, metadata and
    /// (V3+) the dispatch packet per kernel (for JSON output and
    /// `explain`).
    Full,
    /// Only what text reports need: violations, and each kernel's name,
    /// descriptor offset and raw descriptor (or `amd_kernel_code_t`);
    /// `fields` stays empty and `initial_state`, `metadata`, `metadata_v2`,
    /// `dispatch_packet` and the object's `metadata_v2` and `v2_notes` stay
    /// `None`.
    Violations,
}

/// Checks one code object (the bytes of one ELF file), building the full
/// typed view.
pub fn check_object(data: &[u8]) -> ObjectReport {
    check_object_with(data, Detail::Full)
}

/// Checks one code object, building as much of the typed view as `detail`
/// asks for.
pub fn check_object_with(data: &[u8], detail: Detail) -> ObjectReport {
    let mut sink = Sink::for_input(data.len());
    let mut report = ObjectReport {
        target: None,
        code_object_version: None,
        elf_type: None,
        kernels: Vec::new(),
        violations: Vec::new(),
        omitted: Vec::new(),
        metadata: None,
        metadata_v2: None,
        v2_notes: None,
        metadata_notes: Vec::new(),
    };
    if let Some(at) = notes::code_object_v1(data) {
        // One finding and nothing else: the V1 layout is not modelled, so
        // every V2 rule would misfire on it.
        report.code_object_version = Some(1);
        report.elf_type = crate::elf::read_header(data).map(|h| elf_type_name(h.e_type));
        sink.report_at(
            &notes::CODE_OBJECT_V1,
            at,
            "code object V1 (HSAIL finalizer) is not modelled: NT_AMD_HSA_CODE_OBJECT_VERSION 1.x; nothing else is checked",
        );
    } else if let Some(elf) = Elf::parse(data, &mut sink) {
        check_parsed(&elf, detail, &mut sink, &mut report);
    }
    (report.violations, report.omitted) = sink.into_parts();
    report
}

fn elf_type_name(t: u16) -> String {
    match t {
        crate::elf::ET_REL => "ET_REL".to_owned(),
        crate::elf::ET_DYN => "ET_DYN".to_owned(),
        t => t.to_string(),
    }
}

fn check_parsed(elf: &Elf, detail: Detail, sink: &mut Sink, report: &mut ObjectReport) {
    let full = detail == Detail::Full;
    report.elf_type = Some(elf_type_name(elf.header.e_type));
    let Some(cov) = elf.cov else { return };
    report.code_object_version = Some(cov.number());
    let target_id = TargetId::from_e_flags(elf.header.flags, cov).ok();
    report.target = target_id.map(|t| t.to_string());

    let all_notes = notes::read(elf, sink);
    let md_notes = notes::check_set(&all_notes, cov, sink);
    if cov == CodeObjectVersion::V2 {
        check_v2(elf, target_id, &all_notes, detail, sink, report);
        return;
    }
    let ctx = metadata::Context::from_e_flags(cov, elf.header.flags);
    let md = merge_metadata(&md_notes, ctx, full, sink);
    report.metadata_notes = md.notes;
    let md_kernels = md.kernels;
    let md_model = md.model;
    let kernel_note = md.kernel_note;

    let syms = symbols::Table::read(elf, sink);
    let kernels = syms.kernels(elf, sink);
    // Metadata kernel by `.symbol` (the first one, as a linear search would
    // find), and the descriptor symbol names: large libraries hold thousands
    // of kernels per object, so pairwise searching is quadratic.
    let md_count = md_kernels.as_ref().map_or(0, Vec::len);
    let mut by_symbol: HashMap<&str, usize, FastHash> =
        HashMap::with_capacity_and_hasher(md_count, FastHash);
    // For each metadata kernel, the first one with its `.symbol`; and
    // whether a descriptor symbol names that first one (found below).
    let mut first_of: Vec<usize> = (0..md_count).collect();
    let mut has_kd = vec![false; md_count];
    for (i, mk) in md_kernels.iter().flatten().enumerate() {
        if let Some(sym) = mk.symbol.as_deref() {
            // One hash per name (they are long mangled names).
            let first = *by_symbol.entry(sym).or_insert(i);
            if first != i {
                first_of[i] = first;
                // The same symbol within one note is the note's own rule.
                if kernel_note[first] != kernel_note[i] {
                    sink.set_kernel(mk.name.as_deref());
                    sink.report(
                        &metadata::KERNEL_DUPLICATE_SYMBOL,
                        format!(
                            ".symbol {sym:?} is described by the metadata note at {:#x} and again by the note at {:#x}",
                            report.metadata_notes[kernel_note[first] as usize].offset,
                            report.metadata_notes[kernel_note[i] as usize].offset
                        ),
                    );
                    sink.set_kernel(None);
                }
            }
        }
    }
    if report.metadata_notes.len() > 1 {
        check_names_across_notes(
            md_kernels.as_deref().unwrap_or(&[]),
            &kernel_note,
            &report.metadata_notes,
            sink,
        );
    }
    report.kernels.reserve(kernels.len());
    for k in &kernels {
        let md_index = by_symbol.get(k.kd.name).copied();
        if let Some(slot) = md_index.and_then(|i| has_kd.get_mut(i)) {
            *slot = true;
        }
        let metadata_note = md_index.map(|i| kernel_note[i]);
        let md_kernel = md_index.and_then(|i| md_kernels.as_ref()?.get(i));
        if md_kernels.is_some() && md_kernel.is_none() {
            sink.set_kernel(Some(k.name));
            sink.report(
                &symbols::KD_NOT_IN_METADATA,
                format!(
                    "descriptor symbol {} is not the .symbol of any metadata kernel",
                    k.kd.name
                ),
            );
        }
        let mut kr = KernelReport {
            name: k.name.to_owned(),
            descriptor_offset: k.kd_offset,
            descriptor: None,
            kernel_code: None,
            fields: Vec::new(),
            initial_state: None,
            // The model lists the kernels in the same order as the refs.
            metadata: md_index
                .and_then(|i| Some(Box::new(md_model.as_ref()?.kernels.get(i)?.clone()))),
            metadata_v2: None,
            metadata_note,
            dispatch_packet: None,
        };
        let bytes = k
            .kd_offset
            .and_then(|o| crate::elf::range(elf.data, o, 64))
            .and_then(|b| <&[u8; 64]>::try_from(b).ok());
        if let (Some(bytes), Some(off)) = (bytes, k.kd_offset) {
            let desc = kd::KernelDescriptor::parse(bytes);
            symbols::check_entry(elf, &syms, k, desc.kernel_code_entry_byte_offset, sink);
            if let Some(t) = elf.target {
                sink.set_kernel(Some(k.name));
                desc.check(t, cov, off, sink);
                sgpr::check(&desc, t, off, sink);
                if let Some(mk) = md_kernel {
                    desc.check_against_metadata(&mk.facts, t, cov, off, sink);
                }
                if full {
                    kr.fields = desc.fields(t);
                    kr.initial_state = Some(sgpr::initial_state(&desc, t));
                    let md = kr.metadata.as_deref().map(dispatch::KernelMetadata::from);
                    kr.dispatch_packet = Some(dispatch::view(&dispatch::Kernel {
                        descriptor: &desc,
                        target: t,
                        metadata: md.as_ref(),
                    }));
                }
                sink.set_kernel(None);
            }
            kr.descriptor = Some(desc);
        }
        report.kernels.push(kr);
    }
    if let Some(mks) = &md_kernels {
        for (i, mk) in mks.iter().enumerate() {
            let Some(sym) = mk.symbol.as_deref() else {
                continue;
            };
            if !first_of
                .get(i)
                .and_then(|&f| has_kd.get(f))
                .copied()
                .unwrap_or(false)
            {
                sink.set_kernel(mk.name.as_deref());
                sink.report(
                    &symbols::METADATA_KERNEL_NO_KD,
                    format!("metadata kernel .symbol '{sym}' is not in the symbol table"),
                );
            }
        }
        sink.set_kernel(None);
    }
    report.metadata = md_model;
}

/// The metadata notes of a V3+ object, each checked on its own and merged
/// as comgr merges them (kernels appended in note order).
struct Merged<'a> {
    /// Every kernel of every note that decoded; `None` if none did.
    kernels: Option<Vec<metadata::KernelRef<'a>>>,
    /// For each kernel, the index of its note in `notes`.
    kernel_note: Vec<u32>,
    /// The merged model (full detail only): the first note's root keys,
    /// every note's kernels.
    model: Option<metadata::Metadata>,
    /// Every metadata note, in file order.
    notes: Vec<MetadataNote>,
}

fn merge_metadata<'a>(
    md_notes: &[&notes::Note<'a>],
    ctx: metadata::Context,
    full: bool,
    sink: &mut Sink,
) -> Merged<'a> {
    let mut m = Merged {
        kernels: None,
        kernel_note: Vec::new(),
        model: None,
        notes: Vec::with_capacity(md_notes.len()),
    };
    let mut roots = Vec::with_capacity(md_notes.len());
    let mut memo = metadata::Memo::default();
    for (i, n) in md_notes.iter().enumerate() {
        let index = u32::try_from(i).unwrap_or(u32::MAX);
        let parts = metadata::check_parts(n.desc, n.desc_offset, &ctx, sink, full, &mut memo);
        let count = parts.as_ref().map_or(0, |p| p.kernels.len());
        m.notes.push(MetadataNote {
            offset: n.offset,
            kernels: count,
        });
        let Some(p) = parts else { continue };
        roots.push((n.offset, p.root));
        m.kernel_note.extend(std::iter::repeat_n(index, count));
        m.kernels.get_or_insert_with(Vec::new).extend(p.kernels);
        if let Some(pm) = p.model {
            match &mut m.model {
                None => m.model = Some(pm),
                Some(base) => {
                    if base.printf.is_empty() {
                        base.printf = pm.printf;
                    }
                    base.kernels.extend(pm.kernels);
                }
            }
        }
    }
    notes::check_merge(&roots, sink);
    let roots: Vec<notes::MetadataRoot> = roots.into_iter().map(|(_, r)| r).collect();
    metadata::missing_target(&roots, ctx.cov, sink);
    m
}

/// `metadata.kernel.duplicate_name` between notes (within one note it is
/// the note's own check).
fn check_names_across_notes(
    kernels: &[metadata::KernelRef<'_>],
    kernel_note: &[u32],
    notes: &[MetadataNote],
    sink: &mut Sink,
) {
    let mut by_name: HashMap<&str, usize, FastHash> =
        HashMap::with_capacity_and_hasher(kernels.len(), FastHash);
    for (i, k) in kernels.iter().enumerate() {
        let Some(name) = k.name.as_deref() else {
            continue;
        };
        let first = *by_name.entry(name).or_insert(i);
        if kernel_note[first] != kernel_note[i] {
            sink.set_kernel(Some(name));
            sink.report(
                &metadata::KERNEL_DUPLICATE_NAME,
                format!(
                    ".name {name:?} is described by the metadata note at {:#x} and again by the note at {:#x}",
                    notes[kernel_note[first] as usize].offset,
                    notes[kernel_note[i] as usize].offset
                ),
            );
            sink.set_kernel(None);
        }
    }
}

/// The code object V2 part of [`check_parsed`]: the "AMD" notes, the YAML
/// metadata, and for every `STT_AMDGPU_HSA_KERNEL` symbol its
/// `amd_kernel_code_t` (its own rules, placement, initial state, and
/// agreement with the kernel's metadata), and the kernels of the metadata
/// against the symbols.
fn check_v2(
    elf: &Elf,
    target_id: Option<TargetId>,
    all_notes: &[notes::Note<'_>],
    detail: Detail,
    sink: &mut Sink,
    report: &mut ObjectReport,
) {
    let full = detail == Detail::Full;
    let v2 = notes::check_v2(all_notes, elf.header.flags, sink);
    let md = v2.metadata.and_then(|n| {
        let ctx = metadata_v2::Context { target_id };
        metadata_v2::check(n.desc, n.desc_offset, &ctx, sink)
    });
    if full {
        report.v2_notes = Some(V2NoteSummary::new(&v2));
    }
    let syms = symbols::read(elf, sink);
    let kernels = symbols::v2_kernels(elf, &syms, sink);
    // Without a known processor the kernel code's own rules cannot run; its
    // machine version can still be compared with the ISA note.
    let isa_note = if elf.target.is_none() {
        v2.isa_version.as_ref().map(notes::IsaVersionNote::version)
    } else {
        None
    };
    let xnack = target_id.map_or(FeatureSetting::Any, |id| id.xnack);
    // The lookup borrows the metadata, which moves into the report after.
    {
        let lookup = md.as_ref().map(MetadataLookup::new);
        report.kernels.reserve(kernels.len());
        for k in &kernels {
            let md_kernel = md
                .as_ref()
                .zip(lookup.as_ref())
                .and_then(|(m, l)| m.kernels.get(l.find(k.name)?));
            sink.set_kernel(Some(k.name));
            if md.is_some() && md_kernel.is_none() {
                sink.report(
                    &symbols::V2_KERNEL_NOT_IN_METADATA,
                    format!(
                        "kernel symbol '{}' is not the Name of any kernel in the metadata",
                        k.name
                    ),
                );
            }
            let mut kr = KernelReport {
                name: k.name.to_owned(),
                descriptor_offset: k.code_offset,
                descriptor: None,
                kernel_code: None,
                fields: Vec::new(),
                initial_state: None,
                metadata: None,
                metadata_v2: if full {
                    md_kernel.cloned().map(Box::new)
                } else {
                    None
                },
                metadata_note: None,
                dispatch_packet: None,
            };
            let code = k
                .code_offset
                .and_then(|o| crate::elf::range(elf.data, o, KERNEL_CODE_SIZE as u64))
                .and_then(|b| KernelCode::parse(b).ok());
            if let (Some(code), Some(off)) = (code, k.code_offset) {
                symbols::check_entry_v2(elf, k, code.kernel_code_entry_byte_offset, sink);
                sink.set_kernel(Some(k.name));
                kernel_code::check_placement(&code, k.symbol.value, off, sink);
                if let Some(t) = elf.target {
                    kernel_code::check(&code, t, xnack, off, sink);
                    sgpr::v2::check(&code, t, off, sink);
                    if full {
                        kr.fields = code.fields(t);
                        kr.initial_state = Some(sgpr::v2::initial_state(&code, t));
                    }
                } else if let Some(v) = isa_note {
                    check_code_against_isa_note(&code, v, off, sink);
                }
                if let Some(props) = md_kernel.and_then(|m| m.code_props.as_ref()) {
                    check_code_against_metadata(&code, props, off, sink);
                }
                kr.kernel_code = Some(Box::new(code));
            }
            sink.set_kernel(None);
            report.kernels.push(kr);
        }
        if let Some(m) = &md {
            check_metadata_kernels_have_symbols(m, &kernels, &syms, sink);
        }
    }
    if full {
        report.metadata_v2 = md;
    }
}

/// Finds the metadata kernel of a V2 kernel symbol as
/// [`MetadataV2::kernel_for_symbol`] does (the first kernel with that
/// `Name`, else the first whose `SymbolName` is the symbol or the symbol
/// plus `@kd`), through maps built once: old libraries hold hundreds of
/// kernels per object.
struct MetadataLookup<'m> {
    by_name: HashMap<&'m str, usize, FastHash>,
    by_symbol_name: HashMap<&'m str, usize, FastHash>,
}

impl<'m> MetadataLookup<'m> {
    fn new(md: &'m MetadataV2) -> Self {
        let n = md.kernels.len();
        let mut by_name = HashMap::with_capacity_and_hasher(n, FastHash);
        let mut by_symbol_name = HashMap::with_capacity_and_hasher(n, FastHash);
        for (i, k) in md.kernels.iter().enumerate() {
            if let Some(name) = k.name.as_deref() {
                by_name.entry(name).or_insert(i);
            }
            if let Some(sn) = k.symbol_name.as_deref() {
                by_symbol_name.entry(sn).or_insert(i);
                if let Some(stem) = sn.strip_suffix("@kd") {
                    by_symbol_name.entry(stem).or_insert(i);
                }
            }
        }
        Self {
            by_name,
            by_symbol_name,
        }
    }

    fn find(&self, symbol: &str) -> Option<usize> {
        self.by_name
            .get(symbol)
            .or_else(|| self.by_symbol_name.get(symbol))
            .copied()
    }
}

/// Every metadata kernel must have its kernel symbol: its `Name` (or, as
/// [`MetadataLookup`] accepts, its `SymbolName` with or without `@kd`).
fn check_metadata_kernels_have_symbols(
    md: &MetadataV2,
    kernels: &[symbols::V2KernelSymbol<'_>],
    syms: &symbols::Symbols<'_>,
    sink: &mut Sink,
) {
    let mut names: HashSet<&str, FastHash> =
        HashSet::with_capacity_and_hasher(kernels.len(), FastHash);
    names.extend(kernels.iter().map(|k| k.name));
    // Types of the other symbols, built only when a kernel is missing, to
    // say whether its name exists with the wrong type.
    let mut other_types: Option<HashMap<&str, u8, FastHash>> = None;
    for mk in &md.kernels {
        // A kernel without a Name is metadata.v2.kernel.missing_key's.
        let Some(name) = mk.name.as_deref() else {
            continue;
        };
        let by_symbol_name = mk.symbol_name.as_deref().is_some_and(|sn| {
            names.contains(sn) || sn.strip_suffix("@kd").is_some_and(|s| names.contains(s))
        });
        if names.contains(name) || by_symbol_name {
            continue;
        }
        let types = other_types.get_or_insert_with(|| {
            let mut m = HashMap::with_capacity_and_hasher(syms.symbols.len(), FastHash);
            for s in syms
                .symbols
                .iter()
                .filter(|s| s.sym_type != symbols::STT_SECTION && s.shndx != 0)
            {
                m.entry(s.name).or_insert(s.sym_type);
            }
            m
        });
        let why = match types.get(name) {
            Some(t) => format!(
                "symbol '{name}' has type {t}, not STT_AMDGPU_HSA_KERNEL ({})",
                symbols::STT_AMDGPU_HSA_KERNEL
            ),
            None => format!("no kernel symbol '{name}' is defined"),
        };
        sink.set_kernel(Some(name));
        sink.report(
            &symbols::V2_METADATA_KERNEL_NO_SYMBOL,
            format!("metadata kernel '{name}': {why}"),
        );
    }
    sink.set_kernel(None);
}

/// The `amd_kernel_code_t` at file offset `offset` against the kernel's
/// YAML `CodeProps`. A required key that is absent is the metadata's own
/// violation and is not compared; optional keys take LLVM's default (0,
/// false), as LLVM omits them when they have it.
fn check_code_against_metadata(code: &KernelCode, p: &CodePropsV2, offset: u64, sink: &mut Sink) {
    let at = |field: u64| offset.saturating_add(field);
    let sizes = [
        (
            &CODE_METADATA_KERNARG_SEGMENT_SIZE,
            offsets::KERNARG_SEGMENT_BYTE_SIZE,
            "kernarg_segment_byte_size",
            code.kernarg_segment_byte_size,
            "KernargSegmentSize",
            p.kernarg_segment_size,
        ),
        (
            &CODE_METADATA_GROUP_SEGMENT_FIXED_SIZE,
            offsets::WORKGROUP_GROUP_SEGMENT_BYTE_SIZE,
            "workgroup_group_segment_byte_size",
            code.workgroup_group_segment_byte_size.into(),
            "GroupSegmentFixedSize",
            p.group_segment_fixed_size,
        ),
        (
            &CODE_METADATA_PRIVATE_SEGMENT_FIXED_SIZE,
            offsets::WORKITEM_PRIVATE_SEGMENT_BYTE_SIZE,
            "workitem_private_segment_byte_size",
            code.workitem_private_segment_byte_size.into(),
            "PrivateSegmentFixedSize",
            p.private_segment_fixed_size,
        ),
        (
            &CODE_METADATA_SGPR_COUNT,
            offsets::WAVEFRONT_SGPR_COUNT,
            "wavefront_sgpr_count",
            code.wavefront_sgpr_count.into(),
            "NumSGPRs",
            Some(p.num_sgprs.unwrap_or(0)),
        ),
        (
            &CODE_METADATA_VGPR_COUNT,
            offsets::WORKITEM_VGPR_COUNT,
            "workitem_vgpr_count",
            code.workitem_vgpr_count.into(),
            "NumVGPRs",
            Some(p.num_vgprs.unwrap_or(0)),
        ),
    ];
    for (rule, field, name, have, key, want) in sizes {
        if let Some(want) = want.filter(|&w| w != have) {
            sink.report_at(
                rule,
                at(field),
                format!("{name} is {have}, but the metadata's {key} is {want}"),
            );
        }
    }
    if let Some(want) = p.kernarg_segment_align {
        // `None` is 2^64 or more: larger than any alignment the metadata
        // can give.
        if let Some(have) = code.kernarg_segment_alignment_bytes().filter(|&h| h < want) {
            sink.report_at(
                &CODE_METADATA_KERNARG_SEGMENT_ALIGN,
                at(offsets::KERNARG_SEGMENT_ALIGNMENT),
                format!(
                    "kernarg_segment_alignment is {} ({have} bytes), less than the metadata's KernargSegmentAlign {want}",
                    code.kernarg_segment_alignment
                ),
            );
        }
    }
    if let Some(want) = p.wavefront_size {
        if code.wavefront_lanes() != Some(want) {
            sink.report_at(
                &CODE_METADATA_WAVEFRONT_SIZE,
                at(offsets::WAVEFRONT_SIZE),
                format!(
                    "wavefront_size is {} ({} lanes), but the metadata's WavefrontSize is {want}",
                    code.wavefront_size,
                    code.wavefront_lanes()
                        .map_or("2^64 or more".to_owned(), |l| l.to_string())
                ),
            );
        }
    }
    let flags = [
        (
            &CODE_METADATA_DYNAMIC_CALL_STACK,
            "is_dynamic_callstack",
            code.is_dynamic_callstack(),
            "IsDynamicCallStack",
            p.is_dynamic_call_stack.unwrap_or(false),
        ),
        (
            &CODE_METADATA_XNACK,
            "is_xnack_enabled",
            code.is_xnack_enabled(),
            "IsXNACKEnabled",
            p.is_xnack_enabled.unwrap_or(false),
        ),
    ];
    for (rule, name, have, key, want) in flags {
        if have != want {
            sink.report_at(
                rule,
                at(offsets::CODE_PROPERTIES),
                format!(
                    "code_properties {name} is {}, but the metadata's {key} is {want}",
                    u8::from(have)
                ),
            );
        }
    }
}

/// With no known processor in `e_flags`: the `amd_kernel_code_t`'s machine
/// version against the processor the ISA version note `note` names.
fn check_code_against_isa_note(code: &KernelCode, note: [u32; 3], offset: u64, sink: &mut Sink) {
    let Some((t, xnack)) = notes::isa_version_target(note) else {
        return;
    };
    let got = [
        code.amd_machine_version_major,
        code.amd_machine_version_minor,
        code.amd_machine_version_stepping,
    ];
    let want = t.isa_version.map(u16::from);
    if got != want {
        sink.report_at(
            &CODE_NOTE_ISA_VERSION,
            offset.saturating_add(offsets::MACHINE_VERSION_MAJOR),
            format!(
                "amd_machine_version is {}.{}.{}, but NT_AMD_HSA_ISA_VERSION {}.{}.{} names {}{} (ISA version {}.{}.{})",
                got[0],
                got[1],
                got[2],
                note[0],
                note[1],
                note[2],
                t.name,
                if xnack { " with xnack" } else { "" },
                want[0],
                want[1],
                want[2]
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel_code::tests::{t, valid};
    use crate::rules::Rule;

    /// The CodeProps llc-14 writes next to `valid(gfx900)` (the fixture
    /// kernel `group_ids_yz`, which has one 8-byte pointer argument).
    fn props() -> CodePropsV2 {
        CodePropsV2 {
            kernarg_segment_size: Some(8),
            group_segment_fixed_size: Some(0),
            private_segment_fixed_size: Some(0),
            kernarg_segment_align: Some(8),
            wavefront_size: Some(64),
            num_sgprs: Some(11),
            num_vgprs: Some(3),
            max_flat_work_group_size: Some(256),
            is_xnack_enabled: Some(true),
            ..Default::default()
        }
    }

    /// Rule ids with the file offsets they were reported at.
    type Found = Vec<(&'static str, Option<u64>)>;

    fn compare(code: &KernelCode, p: &CodePropsV2) -> Found {
        let mut sink = Sink::new();
        check_code_against_metadata(code, p, 0x1000, &mut sink);
        sink.violations
            .iter()
            .map(|v| (v.rule.id, v.offset))
            .collect()
    }

    fn one(rule: &Rule, field: u64) -> Found {
        vec![(rule.id, Some(0x1000 + field))]
    }

    #[test]
    fn llc14_pair_agrees() {
        let code = valid(t("gfx900"));
        assert_eq!(compare(&code, &props()), vec![]);
        // LLVM writes kernarg_segment_alignment max(16, KernargSegmentAlign):
        // 4 (16 bytes) for 4, 8 and 16; 8 (256 bytes) for 256.
        for (log2, align) in [(4u8, 4u64), (4, 8), (4, 16), (8, 256)] {
            let c = KernelCode {
                kernarg_segment_alignment: log2,
                ..code
            };
            let p = CodePropsV2 {
                kernarg_segment_align: Some(align),
                ..props()
            };
            assert_eq!(compare(&c, &p), vec![], "{log2} {align}");
        }
    }

    #[test]
    fn each_field_mismatch_is_its_rule() {
        let code = valid(t("gfx900"));
        let cases: Vec<(CodePropsV2, Found)> = vec![
            (
                CodePropsV2 {
                    kernarg_segment_size: Some(16),
                    ..props()
                },
                one(
                    &CODE_METADATA_KERNARG_SEGMENT_SIZE,
                    offsets::KERNARG_SEGMENT_BYTE_SIZE,
                ),
            ),
            (
                CodePropsV2 {
                    group_segment_fixed_size: Some(1024),
                    ..props()
                },
                one(
                    &CODE_METADATA_GROUP_SEGMENT_FIXED_SIZE,
                    offsets::WORKGROUP_GROUP_SEGMENT_BYTE_SIZE,
                ),
            ),
            (
                CodePropsV2 {
                    private_segment_fixed_size: Some(4),
                    ..props()
                },
                one(
                    &CODE_METADATA_PRIVATE_SEGMENT_FIXED_SIZE,
                    offsets::WORKITEM_PRIVATE_SEGMENT_BYTE_SIZE,
                ),
            ),
            (
                CodePropsV2 {
                    kernarg_segment_align: Some(32),
                    ..props()
                },
                one(
                    &CODE_METADATA_KERNARG_SEGMENT_ALIGN,
                    offsets::KERNARG_SEGMENT_ALIGNMENT,
                ),
            ),
            (
                CodePropsV2 {
                    wavefront_size: Some(32),
                    ..props()
                },
                one(&CODE_METADATA_WAVEFRONT_SIZE, offsets::WAVEFRONT_SIZE),
            ),
            (
                CodePropsV2 {
                    num_sgprs: Some(12),
                    ..props()
                },
                one(&CODE_METADATA_SGPR_COUNT, offsets::WAVEFRONT_SGPR_COUNT),
            ),
            (
                // Absent NumVGPRs means 0.
                CodePropsV2 {
                    num_vgprs: None,
                    ..props()
                },
                one(&CODE_METADATA_VGPR_COUNT, offsets::WORKITEM_VGPR_COUNT),
            ),
            (
                CodePropsV2 {
                    is_dynamic_call_stack: Some(true),
                    ..props()
                },
                one(&CODE_METADATA_DYNAMIC_CALL_STACK, offsets::CODE_PROPERTIES),
            ),
            (
                // Absent IsXNACKEnabled means false.
                CodePropsV2 {
                    is_xnack_enabled: None,
                    ..props()
                },
                one(&CODE_METADATA_XNACK, offsets::CODE_PROPERTIES),
            ),
        ];
        for (i, (p, want)) in cases.iter().enumerate() {
            assert_eq!(&compare(&code, p), want, "case {i}");
        }
    }

    #[test]
    fn absent_required_keys_and_huge_values_are_not_compared() {
        let code = valid(t("gfx900"));
        let p = CodePropsV2 {
            kernarg_segment_size: None,
            group_segment_fixed_size: None,
            private_segment_fixed_size: None,
            kernarg_segment_align: None,
            wavefront_size: None,
            ..props()
        };
        assert_eq!(compare(&code, &p), vec![]);
        // An alignment of 2^70 is more than any metadata value; a wavefront
        // size of 2^70 lanes is never the metadata's.
        let huge = KernelCode {
            kernarg_segment_alignment: 70,
            wavefront_size: 70,
            ..code
        };
        assert_eq!(
            compare(&huge, &props()),
            one(&CODE_METADATA_WAVEFRONT_SIZE, offsets::WAVEFRONT_SIZE)
        );
    }

    #[test]
    fn machine_version_against_the_isa_note() {
        let run = |code: &KernelCode, note: [u32; 3]| {
            let mut sink = Sink::new();
            check_code_against_isa_note(code, note, 0x200, &mut sink);
            sink.violations
                .iter()
                .map(|v| (v.rule.id, v.offset))
                .collect::<Vec<_>>()
        };
        let code = valid(t("gfx900"));
        // 9.0.1 is gfx900 with xnack: amd_kernel_code_t keeps 9.0.0.
        assert_eq!(run(&code, [9, 0, 1]), vec![]);
        assert_eq!(run(&code, [9, 0, 0]), vec![]);
        let want = vec![(CODE_NOTE_ISA_VERSION.id, Some(0x200 + 10))];
        assert_eq!(run(&code, [9, 0, 6]), want);
        assert_eq!(run(&code, [8, 0, 3]), want);
        // A version no processor has names nothing to compare with.
        assert_eq!(run(&code, [8, 0, 4]), vec![]);
    }

    #[test]
    fn metadata_lookup_follows_kernel_for_symbol() {
        let k = |name: Option<&str>, sn: Option<&str>| KernelV2 {
            name: name.map(str::to_owned),
            symbol_name: sn.map(str::to_owned),
            ..Default::default()
        };
        let md = MetadataV2 {
            kernels: vec![
                k(Some("a"), Some("a@kd")),
                k(Some("b"), Some("c@kd")),
                k(Some("c"), Some("c@kd")),
                k(None, Some("d")),
                k(Some("a"), Some("a@kd")),
            ],
            ..Default::default()
        };
        let l = MetadataLookup::new(&md);
        for sym in ["a", "b", "c", "d", "c@kd", "a@kd", "e", ""] {
            let want = md
                .kernel_for_symbol(sym)
                .map(|mk| md.kernels.iter().position(|x| std::ptr::eq(x, mk)).unwrap());
            assert_eq!(l.find(sym), want, "{sym}");
        }
        assert_eq!(l.find("c"), Some(2));
        assert_eq!(l.find("d"), Some(3));
    }
}
