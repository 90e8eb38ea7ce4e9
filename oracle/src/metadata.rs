//! Code object metadata for V3, V4, V5 and V6: the MessagePack map in the
//! `NT_AMDGPU_METADATA` note.
//!
//! [`check`] decodes the note description, builds the typed model
//! ([`Metadata`], [`Kernel`], [`Arg`]) and reports every rule it breaks.
//! Key spellings, value kinds and which keys are required follow LLVM 19's
//! writer and verifier (`llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp`,
//! `llvm/lib/BinaryFormat/AMDGPUMetadataVerifier.cpp`) and its reader
//! (`llvm/lib/BinaryFormat/MsgPackDocument.cpp`); the documents
//! (amdgpu-usage.rst "Code Object V3 Metadata", NOTES.md "Metadata") are
//! followed where LLVM agrees with them.
//!
//! Severity policy: whatever LLVM's strict verifier (the one
//! `llvm-readobj --notes` runs) rejects is an error, except a string given
//! where a number or boolean is expected, which LLVM's lenient verifier
//! coerces (a warning). Checks LLVM does not make are errors only where a
//! runtime would certainly misbehave (overlapping or out-of-bounds
//! arguments, version or target contradicting the ELF header), otherwise
//! warnings.

use crate::fasthash::{le64, FastHash};
use crate::msgpack::{self, Flat, Raw, Value};
use crate::rules::{Rule, Sink};
use crate::targets::{CodeObjectVersion, TargetId, TargetIdError};
use serde::Serialize;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;

mod checks;
mod fields;
mod scan;
mod schema;
mod value_kind;
mod views;
mod walk;

use fields::*;
use scan::*;
use schema::*;
pub use value_kind::ValueKind;
pub(crate) use value_kind::{hidden_block_start, Space};
// The V3+ checker coerces strings the way LLVM's YAML reader does (its
// lenient verifier), so both metadata formats read scalars alike.
pub(crate) use crate::yaml::{parse_bool as parse_yaml_bool, parse_uint as parse_yaml_uint};
use views::*;
pub(crate) use views::{KernelRef, Memo, Parts};

crate::declare_rules! {
    DECODE = (Error, "metadata.decode",
        "The note description must be one well-formed MessagePack value, nested at most 64 levels deep.",
        "amdgpu-usage.rst: Code Object V3 Metadata; llvm/lib/BinaryFormat/MsgPackReader.cpp");
    TRAILING_BYTES = (Warning, "metadata.trailing_bytes",
        "Nothing should follow the MessagePack value in the note description; LLVM's reader silently ignores such bytes.",
        "llvm/lib/BinaryFormat/MsgPackDocument.cpp (readFromBlob, Multi=false)");
    EXT_TYPE = (Error, "metadata.ext_type",
        "Metadata must not contain MessagePack extension values: LLVM's msgpack::Document reader rejects the whole note.",
        "llvm/lib/BinaryFormat/MsgPackDocument.cpp (readFromBlob)");
    DUPLICATE_KEY = (Error, "metadata.duplicate_key",
        "A map must not repeat a key: LLVM's msgpack::Document reader fails on the repeated entry.",
        "llvm/lib/BinaryFormat/MsgPackDocument.cpp (readFromBlob merge conflict)");
    ROOT_NOT_MAP = (Error, "metadata.root.not_map",
        "The top-level value must be a map.",
        "amdgpu-usage.rst: Code Object V3 Metadata");
    MISSING_KEY = (Error, "metadata.missing_key",
        "The top-level map must have amdhsa.version and amdhsa.kernels.",
        "amdgpu-usage.rst: AMDHSA Code Object V3 Metadata Map; llvm/lib/BinaryFormat/AMDGPUMetadataVerifier.cpp");
    VALUE_TYPE = (Error, "metadata.value.type",
        "Each known key must have the value kind LLVM's verifier expects (string, integer, boolean, array of given length, map); sizes, offsets and counts must not be negative.",
        "llvm/lib/BinaryFormat/AMDGPUMetadataVerifier.cpp");
    STRING_SCALAR = (Warning, "metadata.value.string_scalar",
        "A number or boolean should not be written as a string: LLVM's lenient verifier coerces it but its strict verifier (llvm-readobj) rejects the note.",
        "llvm/lib/BinaryFormat/AMDGPUMetadataVerifier.cpp (verifyScalar, Strict)");
    VALUE_ENUM = (Error, "metadata.value.enum",
        ".language, .value_kind, .address_space, .access and .actual_access must take one of the values LLVM's verifier lists.",
        "llvm/lib/BinaryFormat/AMDGPUMetadataVerifier.cpp; amdgpu-usage.rst: AMDHSA Code Object V3 Kernel Argument Metadata Map");
    KEY_UNKNOWN = (Info, "metadata.key.unknown",
        "A key in the AMD namespace (amdhsa.* at the top level, .* in kernel and argument maps) that LLVM does not define.",
        "amdgpu-usage.rst: Code Object V3 Metadata; llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp");
    KEY_VENDOR = (Info, "metadata.key.vendor",
        "A vendor-specific key (prefixed vendor-name.), which the ABI allows.",
        "amdgpu-usage.rst: Code Object V3 Metadata (vendor-name prefix)");
    KEY_UNPREFIXED = (Warning, "metadata.key.unprefixed",
        "Keys added beside the defined ones should carry a vendor-name. prefix; this one has none (or is not a string).",
        "amdgpu-usage.rst: Code Object V3 Metadata (vendor-name prefix)");
    KEY_VERSION = (Info, "metadata.key.version",
        "A key that only a later code object version defines (amdhsa.target and .uses_dynamic_stack from V4; .workgroup_processor_mode, .uniform_work_group_size from V5; .cluster_dims from V6).",
        "NOTES.md: Metadata; llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp");
    VERSION_MISMATCH = (Error, "metadata.version.mismatch",
        "amdhsa.version must be the one of the code object version in EI_ABIVERSION: V3 [1,0], V4 [1,1], V5 and V6 [1,2]; runtimes pick the kernarg layout from it.",
        "NOTES.md: Metadata; llvm/include/llvm/Support/AMDGPUMetadata.h");
    TARGET_MISSING = (Warning, "metadata.target.missing",
        "From code object V4, amdhsa.target is a required key (LLVM's V4 metadata table) that LLVM always writes: at least one metadata note of the object names the target ID. A warning, because nothing reads it (LLVM's metadata verifier does not check it; comgr and ROCr take the target from e_flags).",
        "AMDGPUUsage.rst (LLVM 19 and 22): AMDHSA Code Object V4 Metadata Map Changes (amdhsa.target Required); llvm/lib/BinaryFormat/AMDGPUMetadataVerifier.cpp; llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (emitTargetID)");
    TARGET_INVALID = (Warning, "metadata.target.invalid",
        "amdhsa.target should be amdgcn-amd-amdhsa-- followed by a target ID the oracle knows (processor, then :feature+ or :feature- settings); a processor newer than the oracle's table is accepted unchecked.",
        "amdgpu-usage.rst: Target ID; NOTES.md: ELF header");
    TARGET_MISMATCH = (Error, "metadata.target.mismatch",
        "amdhsa.target must name the same target ID as EF_AMDGPU_MACH and the feature bits of e_flags (and the same processor where e_flags name none the oracle models, such as mach 0).",
        "NOTES.md: Metadata; llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (emitTargetID)");
    PRINTF_FORMAT = (Warning, "metadata.printf.format",
        "Each amdhsa.printf entry should read ID:N:S[0]:...:S[N-1]:FormatString with ID, N and the sizes as 32-bit decimal integers.",
        "amdgpu-usage.rst: AMDHSA Code Object V3 Metadata Map");
    KERNEL_MISSING_KEY = (Error, "metadata.kernel.missing_key",
        "A kernel map must have .name, .symbol, .kernarg_segment_size, .group_segment_fixed_size, .private_segment_fixed_size, .kernarg_segment_align, .wavefront_size, .sgpr_count, .vgpr_count and .max_flat_workgroup_size.",
        "llvm/lib/BinaryFormat/AMDGPUMetadataVerifier.cpp (verifyKernel)");
    KERNEL_DUPLICATE_NAME = (Warning, "metadata.kernel.duplicate_name",
        "Kernel .name values should be unique, within a note and across the metadata notes of one object: runtimes look kernels up by name.",
        "amdgpu-usage.rst: AMDHSA Code Object V3 Kernel Metadata Map");
    KERNEL_DUPLICATE_SYMBOL = (Error, "metadata.kernel.duplicate_symbol",
        "Two kernels must not share a .symbol (kernel descriptor symbol), within a note or across the metadata notes of one object (a kernel described twice): the descriptor can be checked against, and launched with, only one of the two.",
        "amdgpu-usage.rst: AMDHSA Code Object V3 Kernel Metadata Map");
    KERNEL_SYMBOL_NAME = (Warning, "metadata.kernel.symbol_name",
        ".symbol should be .name followed by \".kd\", as LLVM writes it.",
        "llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (emitKernel)");
    KERNARG_SEGMENT_ALIGN = (Error, "metadata.kernel.kernarg_segment_align",
        ".kernarg_segment_align must be a power of two.",
        "amdgpu-usage.rst: AMDHSA Code Object V3 Kernel Metadata Map");
    WAVEFRONT_SIZE = (Error, "metadata.kernel.wavefront_size",
        ".wavefront_size must be 32 or 64, and a size the target supports (wave32 needs GFX10 or later).",
        "amdgpu-usage.rst: AMDHSA Code Object V3 Kernel Metadata Map; llvm/lib/Target/AMDGPU/GCNProcessors.td");
    MAX_FLAT_WORKGROUP_SIZE = (Error, "metadata.kernel.max_flat_workgroup_size",
        ".max_flat_workgroup_size must be between 1 and 1024.",
        "amdgpu-usage.rst: AMDHSA Code Object V3 Kernel Metadata Map; llvm/lib/Target/AMDGPU/AMDGPUSubtarget.cpp");
    REQD_WORKGROUP_SIZE = (Error, "metadata.kernel.reqd_workgroup_size",
        ".reqd_workgroup_size must be 0,0,0 or have every value at least 1.",
        "amdgpu-usage.rst: AMDHSA Code Object V3 Kernel Metadata Map");
    REQD_WORKGROUP_SIZE_LIMIT = (Warning, "metadata.kernel.reqd_workgroup_size_limit",
        "The product of .reqd_workgroup_size should not exceed .max_flat_workgroup_size (the two must be consistent).",
        "amdgpu-usage.rst: AMDHSA Code Object V3 Kernel Metadata Map (.max_flat_workgroup_size)");
    WORKGROUP_PROCESSOR_MODE = (Warning, "metadata.kernel.workgroup_processor_mode",
        ".workgroup_processor_mode should be 0 or 1 and only appear for targets with WGP mode (GFX10 and later).",
        "NOTES.md: Metadata; llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (supportsWGP)");
    UNIFORM_WORK_GROUP_SIZE = (Warning, "metadata.kernel.uniform_work_group_size",
        ".uniform_work_group_size should be 0 or 1 (LLVM writes 1).",
        "llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (emitKernelAttrs V5)");
    KERNEL_KIND = (Warning, "metadata.kernel.kind",
        ".kind should be normal, init or fini.",
        "llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (emitKernelAttrs)");
    ARG_MISSING_KEY = (Error, "metadata.arg.missing_key",
        "An argument map must have .size, .offset and .value_kind.",
        "amdgpu-usage.rst: AMDHSA Code Object V3 Kernel Argument Metadata Map; llvm/lib/BinaryFormat/AMDGPUMetadataVerifier.cpp");
    ARG_VALUE_TYPE = (Info, "metadata.arg.value_type",
        ".value_type is deprecated and unused; readers accept it for compatibility.",
        "amdgpu-usage.rst: AMDHSA Code Object V3 Kernel Argument Metadata Map");
    ARG_KEY_KIND = (Info, "metadata.arg.key_kind",
        "A key LLVM only writes for other value kinds: .pointee_align (dynamic_shared_pointer), .address_space (global_buffer, dynamic_shared_pointer), .access (image, pipe), .is_pipe (pipe).",
        "llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (emitKernelArg)");
    ARG_ADDRESS_SPACE = (Warning, "metadata.arg.address_space",
        "A dynamic_shared_pointer should be in the local address space, and a global_buffer should not be.",
        "llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (getValueKind)");
    ARG_KIND_SIZE = (Warning, "metadata.arg.kind_size",
        "Pointer-like arguments should have pointer size: 8 bytes for global/constant/generic global_buffer, image, sampler, pipe and queue; 4 bytes for dynamic_shared_pointer.",
        "llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp; amdgpu-usage.rst: Address Spaces");
    ARG_POINTEE_ALIGN = (Error, "metadata.arg.pointee_align",
        ".pointee_align must be a power of two.",
        "amdgpu-usage.rst: AMDHSA Code Object V3 Kernel Argument Metadata Map");
    ARG_MISALIGNED = (Warning, "metadata.arg.misaligned",
        "A pointer or hidden argument's .offset should be a multiple of its natural alignment (its size: 2, 4 or 8).",
        "amdgpu-usage.rst: AMDHSA Code Object V3 Kernel Argument Metadata Map (.offset)");
    ARG_OUT_OF_BOUNDS = (Error, "metadata.arg.out_of_bounds",
        "Every argument must lie inside the kernarg segment: .offset + .size <= .kernarg_segment_size.",
        "amdgpu-usage.rst: AMDHSA Code Object V3 Kernel Metadata Map (.kernarg_segment_size)");
    ARG_OVERLAP = (Error, "metadata.arg.overlap",
        "No two arguments of non-zero size may share kernarg bytes: the runtime writes each at its offset.",
        "amdgpu-usage.rst: AMDHSA Code Object V3 Kernel Argument Metadata Map (.offset)");
    ARG_HIDDEN_VERSION = (Warning, "metadata.arg.hidden_version",
        "Hidden argument kinds introduced with code object V5 (block counts, group sizes, remainders, grid dims, heap, dynamic LDS size, private/shared base, queue pointer) should not appear before V5; LLVM's verifier accepts them in any version.",
        "NOTES.md: Metadata; llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp");
    ARG_HIDDEN_LAYOUT = (Warning, "metadata.arg.hidden_layout",
        "Each hidden argument should have its fixed size and offset within the hidden block, which starts at the end of the explicit arguments rounded up to 8; LLVM-compiled code reads it there.",
        "NOTES.md: Metadata; llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (emitHiddenKernelArgs)");
}

/// What the checker knows about the code object around the note.
#[derive(Debug, Clone, Copy)]
pub struct Context {
    /// Code object version from the ELF header (`EI_ABIVERSION`).
    pub cov: CodeObjectVersion,
    /// Target ID decoded from `e_flags`, if the mach value is known.
    pub target_id: Option<TargetId>,
    /// `EF_AMDGPU_MACH` of `e_flags`, decoded or not: `amdhsa.target` is
    /// compared with it when it names no modelled processor (`llc`
    /// without `-mcpu` writes 0 there and `gfx700` in the metadata).
    pub mach: u8,
}

impl Context {
    /// The context of an object whose ELF header holds `e_flags`.
    pub fn from_e_flags(cov: CodeObjectVersion, e_flags: u32) -> Self {
        Self {
            cov,
            target_id: TargetId::from_e_flags(e_flags, cov).ok(),
            mach: (e_flags & crate::elf::raw::EF_AMDGPU_MACH) as u8,
        }
    }
}

/// Typed view of a metadata map. Keys with a value of the wrong kind are
/// left out (and reported).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Metadata {
    /// `amdhsa.version`: [major, minor].
    pub version: Option<[u64; 2]>,
    /// `amdhsa.target`: target ID string, with its `amdgcn-amd-amdhsa--`
    /// prefix (V4+).
    pub target: Option<String>,
    /// `amdhsa.printf`: encoded printf format descriptions.
    pub printf: Vec<String>,
    /// `amdhsa.kernels`.
    pub kernels: Vec<Kernel>,
    /// Keys of the top-level map beyond the ones modelled here (vendor keys,
    /// unknown keys, `amdhsa.globals`), as text.
    pub other_keys: Vec<String>,
}

/// One kernel's metadata (a map in `amdhsa.kernels`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Kernel {
    /// `.name`: source name of the kernel.
    pub name: Option<String>,
    /// `.symbol`: name of the kernel descriptor symbol.
    pub symbol: Option<String>,
    /// `.language`, e.g. `OpenCL C`.
    pub language: Option<String>,
    /// `.language_version`: [major, minor].
    pub language_version: Option<[u64; 2]>,
    /// `.args`, in metadata order.
    pub args: Vec<Arg>,
    /// `.reqd_workgroup_size`: X, Y, Z.
    pub reqd_workgroup_size: Option<[u64; 3]>,
    /// `.workgroup_size_hint`: X, Y, Z.
    pub workgroup_size_hint: Option<[u64; 3]>,
    /// `.vec_type_hint`.
    pub vec_type_hint: Option<String>,
    /// `.device_enqueue_symbol`.
    pub device_enqueue_symbol: Option<String>,
    /// `.kernarg_segment_size` in bytes.
    pub kernarg_segment_size: Option<u64>,
    /// `.group_segment_fixed_size` in bytes.
    pub group_segment_fixed_size: Option<u64>,
    /// `.private_segment_fixed_size` in bytes per work-item.
    pub private_segment_fixed_size: Option<u64>,
    /// `.kernarg_segment_align` in bytes.
    pub kernarg_segment_align: Option<u64>,
    /// `.wavefront_size`.
    pub wavefront_size: Option<u64>,
    /// `.sgpr_count`.
    pub sgpr_count: Option<u64>,
    /// `.vgpr_count`.
    pub vgpr_count: Option<u64>,
    /// `.agpr_count` (targets with MAI instructions).
    pub agpr_count: Option<u64>,
    /// `.max_flat_workgroup_size`.
    pub max_flat_workgroup_size: Option<u64>,
    /// `.max_num_workgroups_x`.
    pub max_num_workgroups_x: Option<u64>,
    /// `.max_num_workgroups_y`.
    pub max_num_workgroups_y: Option<u64>,
    /// `.max_num_workgroups_z`.
    pub max_num_workgroups_z: Option<u64>,
    /// `.sgpr_spill_count`.
    pub sgpr_spill_count: Option<u64>,
    /// `.vgpr_spill_count`.
    pub vgpr_spill_count: Option<u64>,
    /// `.kind`: `normal`, `init` or `fini`.
    pub kind: Option<String>,
    /// `.uses_dynamic_stack` (V5+).
    pub uses_dynamic_stack: Option<bool>,
    /// `.workgroup_processor_mode` (V5+, GFX10+), an integer 0/1 on the wire.
    pub workgroup_processor_mode: Option<bool>,
    /// `.uniform_work_group_size` (V5+), an integer 0/1 on the wire.
    pub uniform_work_group_size: Option<bool>,
    /// `.cluster_dims`: X, Y, Z (V6).
    pub cluster_dims: Option<[u64; 3]>,
    /// Keys beyond the ones modelled here, as text.
    pub other_keys: Vec<String>,
}

/// One kernel argument (a map in `.args`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Arg {
    /// `.name`.
    pub name: Option<String>,
    /// `.type_name`.
    pub type_name: Option<String>,
    /// `.size` in bytes.
    pub size: Option<u64>,
    /// `.offset` in the kernarg segment.
    pub offset: Option<u64>,
    /// `.value_kind`, as written (see [`ValueKind`]).
    pub value_kind: Option<String>,
    /// `.value_type` (deprecated).
    pub value_type: Option<String>,
    /// `.pointee_align`.
    pub pointee_align: Option<u64>,
    /// `.address_space`.
    pub address_space: Option<String>,
    /// `.access`.
    pub access: Option<String>,
    /// `.actual_access`.
    pub actual_access: Option<String>,
    /// `.is_const`.
    pub is_const: Option<bool>,
    /// `.is_restrict`.
    pub is_restrict: Option<bool>,
    /// `.is_volatile`.
    pub is_volatile: Option<bool>,
    /// `.is_pipe`.
    pub is_pipe: Option<bool>,
    /// Keys beyond the ones modelled here, as text.
    pub other_keys: Vec<String>,
}

impl Arg {
    /// The value kind, if it is one LLVM knows.
    pub fn kind(&self) -> Option<ValueKind> {
        self.value_kind.as_deref().and_then(ValueKind::parse)
    }
}

/// True if a printf entry reads `ID:N:S[0]:...:S[N-1]:Format`.
pub(crate) fn printf_ok(s: &str) -> bool {
    let mut parts = s.split(':');
    let id = parts.next().and_then(|p| p.parse::<u32>().ok());
    let n = parts.next().and_then(|p| p.parse::<u32>().ok());
    let (Some(_), Some(n)) = (id, n) else {
        return false;
    };
    for _ in 0..n {
        if parts.next().and_then(|p| p.parse::<u32>().ok()).is_none() {
            return false;
        }
    }
    // The format string is whatever follows (it may itself hold ':').
    parts.next().is_some()
}

/// Checks the description of an `NT_AMDGPU_METADATA` note.
///
/// `desc_offset` is the file offset of `desc`, so violations point into
/// the file. Returns the model if the description decodes to a map (even
/// if it breaks rules), `None` otherwise.
pub fn check(desc: &[u8], desc_offset: u64, ctx: &Context, sink: &mut Sink) -> Option<Metadata> {
    let parts = check_parts(desc, desc_offset, ctx, sink, true, &mut Memo::default())?;
    missing_target(std::slice::from_ref(&parts.root), ctx.cov, sink);
    parts.model
}

/// `metadata.target.missing`, once per object: code object V4 or later
/// whose metadata notes (`roots`, those that decoded to a map) all lack
/// the `amdhsa.target` key.
pub(crate) fn missing_target(
    roots: &[crate::notes::MetadataRoot],
    cov: CodeObjectVersion,
    sink: &mut Sink,
) {
    if cov >= CodeObjectVersion::V4 && !roots.is_empty() && roots.iter().all(|r| !r.target_key) {
        let what = if roots.len() == 1 {
            "metadata has".to_owned()
        } else {
            format!("metadata notes ({}) have", roots.len())
        };
        sink.report(
            &TARGET_MISSING,
            format!("code object {cov} {what} no amdhsa.target"),
        );
    }
}

/// Like [`check`] (the same violations), returning what the whole-object
/// check needs of each kernel, and the owned model only when `full`.
/// `None` unless the description decodes to a map. `memo` carries the
/// argument lists checked in earlier notes of the same object (and
/// context).
pub(crate) fn check_parts<'a>(
    desc: &'a [u8],
    desc_offset: u64,
    ctx: &Context,
    sink: &mut Sink,
    full: bool,
    memo: &mut Memo<'a>,
) -> Option<Parts<'a>> {
    let (doc, used) = match msgpack::decode_flat_with(desc, &memo.templates) {
        Ok(d) => d,
        Err(e) => {
            let at = u64::try_from(e.offset)
                .ok()
                .and_then(|o| desc_offset.checked_add(o));
            let msg = format!("metadata is not MessagePack: {e}");
            match at {
                Some(o) => sink.report_at(&DECODE, o, msg),
                None => sink.report(&DECODE, msg),
            }
            return None;
        }
    };
    let mut c = Checker {
        base: desc_offset,
        ctx,
        sink,
        doc: &doc,
        full,
        hints: [[0; HINTS]; 3],
        memo,
        reports: 0,
    };
    if used < desc.len() {
        let n = desc.len() - used;
        let at = u64::try_from(used)
            .ok()
            .and_then(|u| desc_offset.checked_add(u));
        let msg = format!("{n} byte(s) after the MessagePack value");
        match at {
            Some(o) => c.sink.report_at(&TRAILING_BYTES, o, msg),
            None => c.sink.report(&TRAILING_BYTES, msg),
        }
    }
    let root: Node = 0;
    if let Some(ext) = doc.first_ext() {
        let at = u64::try_from(ext)
            .ok()
            .and_then(|o| desc_offset.checked_add(o));
        let msg = "extension value in metadata".to_owned();
        match at {
            Some(o) => c.sink.report_at(&EXT_TYPE, o, msg),
            None => c.sink.report(&EXT_TYPE, msg),
        }
    }
    let r = c.raw(root);
    if !matches!(r, Raw::Map(_)) {
        c.report(
            &ROOT_NOT_MAP,
            Some(root),
            format!("top level is a {}, not a map", r.kind_name()),
        );
        return None;
    }
    c.nested_duplicate_keys();
    Some(c.root(root))
}
#[cfg(test)]
#[path = "metadata_tests.rs"]
mod tests;
