//! The whole-object check: runs every layer of the model over one code
//! object and gathers the typed view (target, kernels) with the violations.

use crate::elf::Elf;
use crate::metadata::FastHash;
use crate::rules::{Sink, Violation};
use crate::targets::{CodeObjectVersion, TargetId};
use crate::{kd, metadata, notes, sgpr, symbols};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

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
    /// Every violation found, in check order.
    pub violations: Vec<Violation>,
    /// The decoded metadata, if the object had a readable metadata note.
    #[serde(skip)]
    pub metadata: Option<metadata::Metadata>,
}

/// One kernel: its descriptor decoded field by field, the initial register
/// state the hardware sets up for it, and its metadata.
#[derive(Debug, Serialize)]
pub struct KernelReport {
    /// Kernel name (the descriptor symbol without `.kd`).
    pub name: String,
    /// File offset of the descriptor within the code object.
    pub descriptor_offset: Option<u64>,
    /// The raw descriptor, when it could be read.
    #[serde(skip)]
    pub descriptor: Option<kd::KernelDescriptor>,
    /// Descriptor fields by name, with their meaning for the target.
    pub fields: Vec<kd::Field>,
    /// Initial SGPR/VGPR layout predicted from the descriptor.
    pub initial_state: Option<sgpr::InitialState>,
    /// The kernel's metadata entry, if the metadata names it.
    pub metadata: Option<metadata::Kernel>,
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
    /// Everything: descriptor fields, initial register state and metadata
    /// per kernel (for JSON output and `explain`).
    Full,
    /// Only what text reports need: violations, and each kernel's name,
    /// descriptor offset and raw descriptor; `fields` stays empty and
    /// `initial_state`, `metadata` stay `None`.
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
    let mut sink = Sink::new();
    let mut report = ObjectReport {
        target: None,
        code_object_version: None,
        elf_type: None,
        kernels: Vec::new(),
        violations: Vec::new(),
        metadata: None,
    };
    if let Some(elf) = Elf::parse(data, &mut sink) {
        check_parsed(&elf, detail, &mut sink, &mut report);
    }
    report.violations = sink.violations;
    report
}

fn check_parsed(elf: &Elf, detail: Detail, sink: &mut Sink, report: &mut ObjectReport) {
    let full = detail == Detail::Full;
    report.elf_type = Some(match elf.header.e_type {
        crate::elf::ET_REL => "ET_REL".to_owned(),
        crate::elf::ET_DYN => "ET_DYN".to_owned(),
        t => t.to_string(),
    });
    let Some(cov) = elf.cov else { return };
    report.code_object_version = Some(cov.number());
    let target_id = TargetId::from_e_flags(elf.header.flags, cov).ok();
    report.target = target_id.map(|t| t.to_string());

    let all_notes = notes::read(elf, sink);
    let md_note = notes::check_set(&all_notes, cov, sink);
    if cov == CodeObjectVersion::V2 {
        // Code object V2 (amd_kernel_code_t, YAML metadata) is modelled by a
        // later change; only the container rules apply here.
        return;
    }
    let md = md_note.and_then(|n| {
        let ctx = metadata::Context { cov, target_id };
        metadata::check_parts(n.desc, n.desc_offset, &ctx, sink, full)
    });
    let (md_kernels, md_model) = match md {
        Some((k, m)) => (Some(k), m),
        None => (None, None),
    };

    let syms = symbols::read(elf, sink);
    let kernels = symbols::kernels(elf, &syms, sink);
    // Metadata kernel by `.symbol` (the first one, as a linear search would
    // find), and the descriptor symbol names: large libraries hold thousands
    // of kernels per object, so pairwise searching is quadratic.
    let md_count = md_kernels.as_ref().map_or(0, Vec::len);
    let mut by_symbol: HashMap<&str, usize, FastHash> =
        HashMap::with_capacity_and_hasher(md_count, FastHash);
    for (i, mk) in md_kernels.iter().flatten().enumerate() {
        if let Some(sym) = mk.symbol.as_deref() {
            by_symbol.entry(sym).or_insert(i);
        }
    }
    report.kernels.reserve(kernels.len());
    for k in &kernels {
        let md_index = by_symbol.get(k.kd.name).copied();
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
            fields: Vec::new(),
            initial_state: None,
            // The model lists the kernels in the same order as the refs.
            metadata: md_index.and_then(|i| md_model.as_ref()?.kernels.get(i).cloned()),
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
                }
                sink.set_kernel(None);
            }
            kr.descriptor = Some(desc);
        }
        report.kernels.push(kr);
    }
    if let Some(mks) = &md_kernels {
        let mut kd_names: HashSet<&str, FastHash> =
            HashSet::with_capacity_and_hasher(kernels.len(), FastHash);
        kd_names.extend(kernels.iter().map(|k| k.kd.name));
        for mk in mks {
            let Some(sym) = mk.symbol.as_deref() else {
                continue;
            };
            if !kd_names.contains(sym) {
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
