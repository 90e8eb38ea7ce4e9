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
        "amdhsa.target must name the same target ID as EF_AMDGPU_MACH and the feature bits of e_flags.",
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

/// Every `.value_kind` LLVM's verifier accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)] // The variants are the wire names, documented by `as_str`.
pub enum ValueKind {
    ByValue,
    GlobalBuffer,
    DynamicSharedPointer,
    Sampler,
    Image,
    Pipe,
    Queue,
    HiddenGlobalOffsetX,
    HiddenGlobalOffsetY,
    HiddenGlobalOffsetZ,
    HiddenNone,
    HiddenPrintfBuffer,
    HiddenHostcallBuffer,
    HiddenDefaultQueue,
    HiddenCompletionAction,
    HiddenMultigridSyncArg,
    HiddenBlockCountX,
    HiddenBlockCountY,
    HiddenBlockCountZ,
    HiddenGroupSizeX,
    HiddenGroupSizeY,
    HiddenGroupSizeZ,
    HiddenRemainderX,
    HiddenRemainderY,
    HiddenRemainderZ,
    HiddenGridDims,
    HiddenHeapV1,
    HiddenDynamicLdsSize,
    HiddenPrivateBase,
    HiddenSharedBase,
    HiddenQueuePtr,
}

impl ValueKind {
    /// All kinds, V3 ones first.
    pub const ALL: [ValueKind; 31] = [
        Self::ByValue,
        Self::GlobalBuffer,
        Self::DynamicSharedPointer,
        Self::Sampler,
        Self::Image,
        Self::Pipe,
        Self::Queue,
        Self::HiddenGlobalOffsetX,
        Self::HiddenGlobalOffsetY,
        Self::HiddenGlobalOffsetZ,
        Self::HiddenNone,
        Self::HiddenPrintfBuffer,
        Self::HiddenHostcallBuffer,
        Self::HiddenDefaultQueue,
        Self::HiddenCompletionAction,
        Self::HiddenMultigridSyncArg,
        Self::HiddenBlockCountX,
        Self::HiddenBlockCountY,
        Self::HiddenBlockCountZ,
        Self::HiddenGroupSizeX,
        Self::HiddenGroupSizeY,
        Self::HiddenGroupSizeZ,
        Self::HiddenRemainderX,
        Self::HiddenRemainderY,
        Self::HiddenRemainderZ,
        Self::HiddenGridDims,
        Self::HiddenHeapV1,
        Self::HiddenDynamicLdsSize,
        Self::HiddenPrivateBase,
        Self::HiddenSharedBase,
        Self::HiddenQueuePtr,
    ];

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ByValue => "by_value",
            Self::GlobalBuffer => "global_buffer",
            Self::DynamicSharedPointer => "dynamic_shared_pointer",
            Self::Sampler => "sampler",
            Self::Image => "image",
            Self::Pipe => "pipe",
            Self::Queue => "queue",
            Self::HiddenGlobalOffsetX => "hidden_global_offset_x",
            Self::HiddenGlobalOffsetY => "hidden_global_offset_y",
            Self::HiddenGlobalOffsetZ => "hidden_global_offset_z",
            Self::HiddenNone => "hidden_none",
            Self::HiddenPrintfBuffer => "hidden_printf_buffer",
            Self::HiddenHostcallBuffer => "hidden_hostcall_buffer",
            Self::HiddenDefaultQueue => "hidden_default_queue",
            Self::HiddenCompletionAction => "hidden_completion_action",
            Self::HiddenMultigridSyncArg => "hidden_multigrid_sync_arg",
            Self::HiddenBlockCountX => "hidden_block_count_x",
            Self::HiddenBlockCountY => "hidden_block_count_y",
            Self::HiddenBlockCountZ => "hidden_block_count_z",
            Self::HiddenGroupSizeX => "hidden_group_size_x",
            Self::HiddenGroupSizeY => "hidden_group_size_y",
            Self::HiddenGroupSizeZ => "hidden_group_size_z",
            Self::HiddenRemainderX => "hidden_remainder_x",
            Self::HiddenRemainderY => "hidden_remainder_y",
            Self::HiddenRemainderZ => "hidden_remainder_z",
            Self::HiddenGridDims => "hidden_grid_dims",
            Self::HiddenHeapV1 => "hidden_heap_v1",
            Self::HiddenDynamicLdsSize => "hidden_dynamic_lds_size",
            Self::HiddenPrivateBase => "hidden_private_base",
            Self::HiddenSharedBase => "hidden_shared_base",
            Self::HiddenQueuePtr => "hidden_queue_ptr",
        }
    }

    /// Parses the wire spelling.
    pub fn parse(s: &str) -> Option<ValueKind> {
        // VALUE_KIND_NAMES lists the kinds in the order of ALL (tested).
        Self::ALL
            .get(bytes_index(VALUE_KIND_NAMES, s.as_bytes())?)
            .copied()
    }

    /// True for the `hidden_*` kinds, which the runtime fills in.
    pub fn is_hidden(self) -> bool {
        self.as_str().starts_with("hidden_")
    }

    /// True for the kinds introduced with code object V5.
    pub fn since_v5(self) -> bool {
        matches!(
            self,
            Self::HiddenBlockCountX
                | Self::HiddenBlockCountY
                | Self::HiddenBlockCountZ
                | Self::HiddenGroupSizeX
                | Self::HiddenGroupSizeY
                | Self::HiddenGroupSizeZ
                | Self::HiddenRemainderX
                | Self::HiddenRemainderY
                | Self::HiddenRemainderZ
                | Self::HiddenGridDims
                | Self::HiddenHeapV1
                | Self::HiddenDynamicLdsSize
                | Self::HiddenPrivateBase
                | Self::HiddenSharedBase
                | Self::HiddenQueuePtr
        )
    }

    /// Where LLVM places this hidden kind for code object version `cov`:
    /// `(offset from the start of the hidden block, size)`. `None` for
    /// explicit kinds, `hidden_none`, and kinds the version does not have.
    pub fn hidden_slot(self, cov: CodeObjectVersion) -> Option<(u64, u64)> {
        use ValueKind as K;
        if cov >= CodeObjectVersion::V5 {
            // NOTES.md "Metadata" and MetadataStreamerMsgPackV5::emitHiddenKernelArgs;
            // the printf buffer slot (72) is not in NOTES.md, checked with clang-19.
            Some(match self {
                K::HiddenBlockCountX => (0, 4),
                K::HiddenBlockCountY => (4, 4),
                K::HiddenBlockCountZ => (8, 4),
                K::HiddenGroupSizeX => (12, 2),
                K::HiddenGroupSizeY => (14, 2),
                K::HiddenGroupSizeZ => (16, 2),
                K::HiddenRemainderX => (18, 2),
                K::HiddenRemainderY => (20, 2),
                K::HiddenRemainderZ => (22, 2),
                K::HiddenGlobalOffsetX => (40, 8),
                K::HiddenGlobalOffsetY => (48, 8),
                K::HiddenGlobalOffsetZ => (56, 8),
                K::HiddenGridDims => (64, 2),
                K::HiddenPrintfBuffer => (72, 8),
                K::HiddenHostcallBuffer => (80, 8),
                K::HiddenMultigridSyncArg => (88, 8),
                K::HiddenHeapV1 => (96, 8),
                K::HiddenDefaultQueue => (104, 8),
                K::HiddenCompletionAction => (112, 8),
                K::HiddenDynamicLdsSize => (120, 4),
                K::HiddenPrivateBase => (192, 4),
                K::HiddenSharedBase => (196, 4),
                K::HiddenQueuePtr => (200, 8),
                _ => return None,
            })
        } else {
            // Pre-V5 LLVM writes up to seven 8-byte slots in this order,
            // with printf and hostcall sharing one.
            Some(match self {
                K::HiddenGlobalOffsetX => (0, 8),
                K::HiddenGlobalOffsetY => (8, 8),
                K::HiddenGlobalOffsetZ => (16, 8),
                K::HiddenPrintfBuffer | K::HiddenHostcallBuffer => (24, 8),
                K::HiddenDefaultQueue => (32, 8),
                K::HiddenCompletionAction => (40, 8),
                K::HiddenMultigridSyncArg => (48, 8),
                _ => return None,
            })
        }
    }
}

/// `.language` values LLVM's verifier accepts.
const LANGUAGES: &[&str] = &[
    "OpenCL C",
    "OpenCL C++",
    "HCC",
    "HIP",
    "OpenMP",
    "Assembler",
];
/// `.address_space` values.
const ADDRESS_SPACES: &[&str] = &[
    "private", "global", "constant", "local", "generic", "region",
];
/// `.access` and `.actual_access` values.
const ACCESSES: &[&str] = &["read_only", "write_only", "read_write"];
/// `.kind` values (not checked by LLVM's verifier).
const KERNEL_KINDS: &[&str] = &["normal", "init", "fini"];
/// Prefix of `amdhsa.target` before the target ID proper.
const TARGET_PREFIX: &str = "amdgcn-amd-amdhsa--";

/// The value kind a known key takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A string.
    Str,
    /// A non-negative integer.
    UInt,
    /// A boolean.
    Bool,
    /// An array of this many non-negative integers.
    Ints(usize),
    /// An array of strings.
    Strs,
    /// An array of maps.
    Maps,
}

/// One key a map may have.
struct KeyDef {
    key: &'static str,
    shape: Shape,
    required: bool,
    /// First code object version that defines the key.
    since: CodeObjectVersion,
    /// Allowed string values, if LLVM's verifier restricts them.
    values: Option<&'static [&'static str]>,
}

const fn key(key: &'static str, shape: Shape) -> KeyDef {
    KeyDef {
        key,
        shape,
        required: false,
        since: CodeObjectVersion::V3,
        values: None,
    }
}
const fn req(key: &'static str, shape: Shape) -> KeyDef {
    KeyDef {
        key,
        shape,
        required: true,
        since: CodeObjectVersion::V3,
        values: None,
    }
}
const fn since(mut d: KeyDef, v: CodeObjectVersion) -> KeyDef {
    d.since = v;
    d
}
const fn one_of(mut d: KeyDef, values: &'static [&'static str]) -> KeyDef {
    d.values = Some(values);
    d
}

const ROOT_KEYS: &[KeyDef] = &[
    req("amdhsa.version", Shape::Ints(2)),
    since(key("amdhsa.target", Shape::Str), CodeObjectVersion::V4),
    key("amdhsa.printf", Shape::Strs),
    // Accepted by LLVM's verifier (each entry a map with .name and .size);
    // not modelled further.
    key("amdhsa.globals", Shape::Maps),
    req("amdhsa.kernels", Shape::Maps),
];

const KERNEL_KEYS: &[KeyDef] = &[
    req(".name", Shape::Str),
    req(".symbol", Shape::Str),
    one_of(key(".language", Shape::Str), LANGUAGES),
    key(".language_version", Shape::Ints(2)),
    key(".args", Shape::Maps),
    key(".reqd_workgroup_size", Shape::Ints(3)),
    key(".workgroup_size_hint", Shape::Ints(3)),
    key(".vec_type_hint", Shape::Str),
    key(".device_enqueue_symbol", Shape::Str),
    req(".kernarg_segment_size", Shape::UInt),
    req(".group_segment_fixed_size", Shape::UInt),
    req(".private_segment_fixed_size", Shape::UInt),
    // NOTES.md lists this key as new in V5, but ROCm 5.3's compiler and
    // clang-19 both write it in V4 objects (docs/errata.md).
    since(
        key(".uses_dynamic_stack", Shape::Bool),
        CodeObjectVersion::V4,
    ),
    // LLVM writes these two as integers and its verifier wants integers.
    since(
        key(".workgroup_processor_mode", Shape::UInt),
        CodeObjectVersion::V5,
    ),
    since(
        key(".uniform_work_group_size", Shape::UInt),
        CodeObjectVersion::V5,
    ),
    req(".kernarg_segment_align", Shape::UInt),
    req(".wavefront_size", Shape::UInt),
    req(".sgpr_count", Shape::UInt),
    req(".vgpr_count", Shape::UInt),
    key(".agpr_count", Shape::UInt),
    req(".max_flat_workgroup_size", Shape::UInt),
    key(".max_num_workgroups_x", Shape::UInt),
    key(".max_num_workgroups_y", Shape::UInt),
    key(".max_num_workgroups_z", Shape::UInt),
    key(".sgpr_spill_count", Shape::UInt),
    key(".vgpr_spill_count", Shape::UInt),
    key(".kind", Shape::Str),
    since(key(".cluster_dims", Shape::Ints(3)), CodeObjectVersion::V6),
];

const ARG_KEYS: &[KeyDef] = &[
    key(".name", Shape::Str),
    key(".type_name", Shape::Str),
    req(".size", Shape::UInt),
    req(".offset", Shape::UInt),
    KeyDef {
        key: ".value_kind",
        shape: Shape::Str,
        required: true,
        since: CodeObjectVersion::V3,
        values: Some(VALUE_KIND_NAMES),
    },
    key(".value_type", Shape::Str),
    key(".pointee_align", Shape::UInt),
    one_of(key(".address_space", Shape::Str), ADDRESS_SPACES),
    one_of(key(".access", Shape::Str), ACCESSES),
    one_of(key(".actual_access", Shape::Str), ACCESSES),
    key(".is_const", Shape::Bool),
    key(".is_restrict", Shape::Bool),
    key(".is_volatile", Shape::Bool),
    key(".is_pipe", Shape::Bool),
];

const VALUE_KIND_NAMES: &[&str] = &[
    "by_value",
    "global_buffer",
    "dynamic_shared_pointer",
    "sampler",
    "image",
    "pipe",
    "queue",
    "hidden_global_offset_x",
    "hidden_global_offset_y",
    "hidden_global_offset_z",
    "hidden_none",
    "hidden_printf_buffer",
    "hidden_hostcall_buffer",
    "hidden_default_queue",
    "hidden_completion_action",
    "hidden_multigrid_sync_arg",
    "hidden_block_count_x",
    "hidden_block_count_y",
    "hidden_block_count_z",
    "hidden_group_size_x",
    "hidden_group_size_y",
    "hidden_group_size_z",
    "hidden_remainder_x",
    "hidden_remainder_y",
    "hidden_remainder_z",
    "hidden_grid_dims",
    "hidden_heap_v1",
    "hidden_dynamic_lds_size",
    "hidden_private_base",
    "hidden_shared_base",
    "hidden_queue_ptr",
];

/// Which map a key sits in; decides the AMD namespace prefix and the
/// missing-key rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Kernel,
    Arg,
}

impl Level {
    fn defs(self) -> &'static [KeyDef] {
        match self {
            Level::Root => ROOT_KEYS,
            Level::Kernel => KERNEL_KEYS,
            Level::Arg => ARG_KEYS,
        }
    }
    /// The required keys, as a bit set by table index.
    fn required(self) -> u64 {
        match self {
            Level::Root => const { required_mask(ROOT_KEYS) },
            Level::Kernel => const { required_mask(KERNEL_KEYS) },
            Level::Arg => const { required_mask(ARG_KEYS) },
        }
    }
    fn namespace(self) -> &'static str {
        match self {
            Level::Root => "amdhsa.",
            Level::Kernel | Level::Arg => ".",
        }
    }
    fn missing_rule(self) -> &'static Rule {
        match self {
            Level::Root => &MISSING_KEY,
            Level::Kernel => &KERNEL_MISSING_KEY,
            Level::Arg => &ARG_MISSING_KEY,
        }
    }
}

/// Index of a value in the decoded [`Flat`] document.
type Node = usize;

/// The required keys of `defs` as a bit set by index, at compile time.
const fn required_mask(defs: &[KeyDef]) -> u64 {
    let mut mask = 0u64;
    let mut i = 0;
    while i < defs.len() && i < 64 {
        if defs[i].required {
            mask |= 1u64 << i;
        }
        i += 1;
    }
    mask
}

/// Index of `key` in `defs`, at compile time (see [`kdef!`]).
const fn def_index(defs: &[KeyDef], key: &str) -> usize {
    let mut i = 0;
    while i < defs.len() {
        let (a, b) = (defs[i].key.as_bytes(), key.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("metadata key is not in the table")
}

/// The index of a known key in its level's table, checked at compile time,
/// so field look-ups are array accesses rather than string searches.
macro_rules! kdef {
    (root $key:literal) => {
        const { def_index(ROOT_KEYS, $key) }
    };
    (kernel $key:literal) => {
        const { def_index(KERNEL_KEYS, $key) }
    };
    (arg $key:literal) => {
        const { def_index(ARG_KEYS, $key) }
    };
}

/// Table sizes, for the fixed-size field arrays.
const ROOT_N: usize = ROOT_KEYS.len();
const KERNEL_N: usize = KERNEL_KEYS.len();
const ARG_N: usize = ARG_KEYS.len();
// Known keys seen in a map are tracked in a u64 bit set.
const _: () = assert!(ROOT_N <= 64 && KERNEL_N <= 64 && ARG_N <= 64);

/// A key's value after its kind was checked. `Copy`, so that storing one
/// needs no drop of the slot's old value (which made the compiler spill
/// and reload each value, stalling, in profiles).
#[derive(Clone, Copy)]
enum Parsed<'a> {
    /// The string's bytes; turned into text (lossily, as
    /// `String::from_utf8_lossy` does) only when asked for, since most
    /// strings are only kind-checked.
    /// With the index of the value in the key's list of allowed values,
    /// if it has one and the value is in it.
    Str(&'a [u8], Option<u8>),
    UInt(u64),
    Bool(bool),
    /// Up to three integers (the longest `Shape::Ints`) and how many.
    Ints([u64; 3], u8),
    /// The array; its elements that are strings are the values.
    Strs(Node),
    /// The array; its elements that are maps are the entries.
    Maps(Node),
}

/// The known keys found in one map, by index in the level's table, and the
/// others' names. Reused from map to map ([`Fields::reset`] clears only
/// the slots that were filled): arguments are counted in millions.
struct Fields<'a, const N: usize> {
    found: [Option<Parsed<'a>>; N],
    /// Where each filled slot's value is.
    nodes: Nodes<N>,
    /// Bit `k`: slot `k` is filled.
    filled: u64,
    other: Vec<String>,
}

impl<'a, const N: usize> Fields<'a, N> {
    fn new() -> Self {
        Fields {
            found: std::array::from_fn(|_| None),
            nodes: Nodes([NO_NODE; N]),
            filled: 0,
            other: Vec::new(),
        }
    }
    /// Empties the slots filled by the last map.
    fn reset(&mut self) {
        let mut bits = self.filled;
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            if let Some(slot) = self.found.get_mut(k) {
                *slot = None;
            }
            if let Some(n) = self.nodes.0.get_mut(k) {
                *n = NO_NODE;
            }
            bits &= bits - 1;
        }
        self.filled = 0;
        self.other.clear();
    }
    fn set(&mut self, k: usize, p: Parsed<'a>, n: Node) {
        if let (Some(slot), Some(node)) = (self.found.get_mut(k), self.nodes.0.get_mut(k)) {
            *slot = Some(p);
            *node = narrow_node(n);
            self.filled |= 1u64 << (k % 64);
        }
    }
    fn get(&self, k: usize) -> Option<&Parsed<'a>> {
        self.found.get(k)?.as_ref()
    }
    fn node(&self, k: usize) -> Option<Node> {
        self.nodes.get(k)
    }
    fn bytes(&self, k: usize) -> Option<&'a [u8]> {
        match self.get(k)? {
            Parsed::Str(s, _) => Some(s),
            _ => None,
        }
    }
    /// Index of a string value in its key's allowed values.
    fn value_index(&self, k: usize) -> Option<usize> {
        match self.get(k)? {
            Parsed::Str(_, i) => i.map(usize::from),
            _ => None,
        }
    }
    fn text(&self, k: usize) -> Option<Cow<'a, str>> {
        self.bytes(k).map(lossy)
    }
    fn uint(&self, k: usize) -> Option<u64> {
        match self.get(k)? {
            Parsed::UInt(u) => Some(*u),
            _ => None,
        }
    }
    fn bool(&self, k: usize) -> Option<bool> {
        match self.get(k)? {
            Parsed::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn ints<const M: usize>(&self, k: usize) -> Option<[u64; M]> {
        match self.get(k)? {
            Parsed::Ints(v, n) if usize::from(*n) == M => v.get(..M)?.try_into().ok(),
            _ => None,
        }
    }
    /// The string elements of a `Shape::Strs` value in `doc`.
    fn strs(&self, k: usize, doc: &Flat<'a>) -> Vec<String> {
        match self.get(k) {
            Some(Parsed::Strs(n)) => doc
                .children(*n)
                .filter_map(|e| doc.raw(e)?.as_str_bytes())
                .map(|b| lossy(b).into_owned())
                .collect(),
            _ => Vec::new(),
        }
    }
    fn maps(&self, k: usize) -> Option<Node> {
        match self.get(k) {
            Some(Parsed::Maps(n)) => Some(*n),
            _ => None,
        }
    }
}

/// An absent entry of [`Nodes`].
const NO_NODE: u32 = u32::MAX;

/// A node index as stored in [`Nodes`]: indices fit 32 bits, since a
/// document has at most one item per input byte and inputs are below 4 GiB.
fn narrow_node(n: Node) -> u32 {
    u32::try_from(n).unwrap_or(NO_NODE)
}

/// Where each known key's value is, by index in the level's table, kept
/// after the parsed values are taken ([`NO_NODE`]: absent or of the wrong
/// kind).
#[derive(Clone, Copy)]
struct Nodes<const N: usize>([u32; N]);

impl<const N: usize> Nodes<N> {
    fn get(&self, k: usize) -> Option<Node> {
        self.0
            .get(k)
            .copied()
            .filter(|&n| n != NO_NODE)
            .map(|n| n as usize)
    }

    /// The nodes as offsets from `base`, an item before all of them.
    fn relative_to(mut self, base: Node) -> Self {
        let base = narrow_node(base);
        for n in self.0.iter_mut().filter(|n| **n != NO_NODE) {
            *n = n.checked_sub(base).unwrap_or(NO_NODE);
        }
        self
    }

    /// Nodes made by [`Nodes::relative_to`], placed after `base`.
    fn placed_at(mut self, base: Node) -> Self {
        let base = narrow_node(base);
        for n in self.0.iter_mut().filter(|n| **n != NO_NODE) {
            *n = n.checked_add(base).unwrap_or(NO_NODE);
        }
        self
    }
}

/// Names a key (or one element of its array value) in messages; written
/// out only when a message is actually made, since nearly every key is
/// fine.
#[derive(Clone, Copy)]
struct KeyCtx<'w> {
    what: &'w dyn fmt::Display,
    key: &'static str,
    index: Option<usize>,
}

impl<'w> KeyCtx<'w> {
    fn at(self, i: usize) -> KeyCtx<'w> {
        KeyCtx {
            index: Some(i),
            ..self
        }
    }
}

impl fmt::Display for KeyCtx<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.what, self.key)?;
        if let Some(i) = self.index {
            write!(f, "[{i}]")?;
        }
        Ok(())
    }
}

/// Names argument `index` of a kernel in messages (`kernel 0 (k) arg 2`);
/// written out only when a message is made.
struct ArgWhat<'w> {
    kernel: &'w dyn fmt::Display,
    index: usize,
}

impl fmt::Display for ArgWhat<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} arg {}", self.kernel, self.index)
    }
}

/// Names kernel `index` in messages (`kernel 3 (name)`); written out only
/// when a message is made.
struct KernelWhat<'a> {
    index: usize,
    label: Option<Cow<'a, str>>,
}

impl fmt::Display for KernelWhat<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.label {
            Some(n) => write!(f, "kernel {} ({n})", self.index),
            None => write!(f, "kernel {}", self.index),
        }
    }
}

/// The keys of one map seen so far, for duplicate detection with the
/// equality of [`key_fingerprint`]: known keys in a bit set by table
/// index, other string keys by their bytes, other kinds by fingerprint.
/// Strings never equal non-strings, and a known key never equals an
/// unknown one, so the three sets are disjoint.
struct SeenKeys<'a> {
    known: u64,
    unknown: Vec<&'a [u8]>,
    unknown_many: HashSet<&'a [u8]>,
    non_str: HashSet<Vec<u8>>,
}

impl<'a> SeenKeys<'a> {
    /// Beyond this many unknown keys (only hostile input has them), hash.
    const LINEAR_MAX: usize = 64;

    fn new() -> Self {
        SeenKeys {
            known: 0,
            unknown: Vec::new(),
            unknown_many: HashSet::new(),
            non_str: HashSet::new(),
        }
    }

    /// Records known key `di`; false if it was recorded before.
    fn known(&mut self, di: usize) -> bool {
        let bit = 1u64 << (di % 64);
        let new = self.known & bit == 0;
        self.known |= bit;
        new
    }

    /// Records an unknown string key; false if it was recorded before.
    fn unknown(&mut self, k: &'a [u8]) -> bool {
        if self.unknown.len() < Self::LINEAR_MAX {
            if self.unknown.contains(&k) {
                return false;
            }
            self.unknown.push(k);
            true
        } else {
            !self.unknown.contains(&k) && self.unknown_many.insert(k)
        }
    }
}

/// One kernel's metadata as the rules see it, borrowing strings from the
/// note; [`Kernel`] is its owned form.
struct KernelView<'a> {
    name: Option<Cow<'a, str>>,
    symbol: Option<Cow<'a, str>>,
    language: Option<Cow<'a, str>>,
    language_version: Option<[u64; 2]>,
    reqd_workgroup_size: Option<[u64; 3]>,
    workgroup_size_hint: Option<[u64; 3]>,
    vec_type_hint: Option<Cow<'a, str>>,
    device_enqueue_symbol: Option<Cow<'a, str>>,
    kernarg_segment_size: Option<u64>,
    group_segment_fixed_size: Option<u64>,
    private_segment_fixed_size: Option<u64>,
    kernarg_segment_align: Option<u64>,
    wavefront_size: Option<u64>,
    sgpr_count: Option<u64>,
    vgpr_count: Option<u64>,
    agpr_count: Option<u64>,
    max_flat_workgroup_size: Option<u64>,
    max_num_workgroups_x: Option<u64>,
    max_num_workgroups_y: Option<u64>,
    max_num_workgroups_z: Option<u64>,
    sgpr_spill_count: Option<u64>,
    vgpr_spill_count: Option<u64>,
    kind: Option<Cow<'a, str>>,
    uses_dynamic_stack: Option<bool>,
    workgroup_processor_mode: Option<bool>,
    uniform_work_group_size: Option<bool>,
    cluster_dims: Option<[u64; 3]>,
    other_keys: Vec<String>,
}

impl KernelView<'_> {
    fn to_owned_kernel(&self, args: Vec<Arg>) -> Kernel {
        let s = |c: &Option<Cow<'_, str>>| c.as_deref().map(str::to_owned);
        Kernel {
            name: s(&self.name),
            symbol: s(&self.symbol),
            language: s(&self.language),
            language_version: self.language_version,
            args,
            reqd_workgroup_size: self.reqd_workgroup_size,
            workgroup_size_hint: self.workgroup_size_hint,
            vec_type_hint: s(&self.vec_type_hint),
            device_enqueue_symbol: s(&self.device_enqueue_symbol),
            kernarg_segment_size: self.kernarg_segment_size,
            group_segment_fixed_size: self.group_segment_fixed_size,
            private_segment_fixed_size: self.private_segment_fixed_size,
            kernarg_segment_align: self.kernarg_segment_align,
            wavefront_size: self.wavefront_size,
            sgpr_count: self.sgpr_count,
            vgpr_count: self.vgpr_count,
            agpr_count: self.agpr_count,
            max_flat_workgroup_size: self.max_flat_workgroup_size,
            max_num_workgroups_x: self.max_num_workgroups_x,
            max_num_workgroups_y: self.max_num_workgroups_y,
            max_num_workgroups_z: self.max_num_workgroups_z,
            sgpr_spill_count: self.sgpr_spill_count,
            vgpr_spill_count: self.vgpr_spill_count,
            kind: s(&self.kind),
            uses_dynamic_stack: self.uses_dynamic_stack,
            workgroup_processor_mode: self.workgroup_processor_mode,
            uniform_work_group_size: self.uniform_work_group_size,
            cluster_dims: self.cluster_dims,
            other_keys: self.other_keys.clone(),
        }
    }
}

/// One argument as the rules see it; [`Arg`] is its owned form. Strings
/// the rules do not read stay in the document (found through `nodes`).
#[derive(Clone)]
struct ArgView<'a> {
    size: Option<u64>,
    offset: Option<u64>,
    pointee_align: Option<u64>,
    address_space: Option<&'a [u8]>,
    is_const: Option<bool>,
    is_restrict: Option<bool>,
    is_volatile: Option<bool>,
    is_pipe: Option<bool>,
    other_keys: Vec<String>,
    /// `.value_kind` parsed, if it is one LLVM knows.
    kind: Option<ValueKind>,
    /// Where each known key's value is (only values of the right kind).
    nodes: Nodes<ARG_N>,
}

impl<'a> ArgView<'a> {
    fn new() -> Self {
        ArgView {
            size: None,
            offset: None,
            pointee_align: None,
            address_space: None,
            is_const: None,
            is_restrict: None,
            is_volatile: None,
            is_pipe: None,
            other_keys: Vec::new(),
            kind: None,
            nodes: Nodes([NO_NODE; ARG_N]),
        }
    }

    /// Overwrites every field with the argument `af` holds.
    fn fill(&mut self, af: &mut Fields<'a, ARG_N>) {
        self.size = af.uint(kdef!(arg ".size"));
        self.offset = af.uint(kdef!(arg ".offset"));
        self.pointee_align = af.uint(kdef!(arg ".pointee_align"));
        self.address_space = af.bytes(kdef!(arg ".address_space"));
        self.is_const = af.bool(kdef!(arg ".is_const"));
        self.is_restrict = af.bool(kdef!(arg ".is_restrict"));
        self.is_volatile = af.bool(kdef!(arg ".is_volatile"));
        self.is_pipe = af.bool(kdef!(arg ".is_pipe"));
        self.other_keys = std::mem::take(&mut af.other);
        // `.value_kind`'s allowed values are VALUE_KIND_NAMES, in the
        // order of ValueKind::ALL (tested).
        self.kind = af
            .value_index(kdef!(arg ".value_kind"))
            .and_then(|i| ValueKind::ALL.get(i).copied());
        self.nodes = af.nodes;
    }

    fn kind(&self) -> Option<ValueKind> {
        self.kind
    }

    /// Whether known key `k` has a value of the right kind.
    fn has(&self, k: usize) -> bool {
        self.nodes.get(k).is_some()
    }

    fn to_owned_arg(&self, doc: &Flat<'_>) -> Arg {
        let s = |k: usize| {
            let b = self.nodes.get(k).and_then(|n| doc.raw(n)?.as_str_bytes());
            b.map(|b| lossy(b).into_owned())
        };
        Arg {
            name: s(kdef!(arg ".name")),
            type_name: s(kdef!(arg ".type_name")),
            size: self.size,
            offset: self.offset,
            value_kind: s(kdef!(arg ".value_kind")),
            value_type: s(kdef!(arg ".value_type")),
            pointee_align: self.pointee_align,
            address_space: s(kdef!(arg ".address_space")),
            access: s(kdef!(arg ".access")),
            actual_access: s(kdef!(arg ".actual_access")),
            is_const: self.is_const,
            is_restrict: self.is_restrict,
            is_volatile: self.is_volatile,
            is_pipe: self.is_pipe,
            other_keys: self.other_keys.clone(),
        }
    }
}

/// What the whole-object check needs of one metadata note: its kernels,
/// the root keys the notes of one object must agree on, and the owned
/// model when asked for.
pub(crate) struct Parts<'a> {
    /// `amdhsa.kernels`, in note order.
    pub kernels: Vec<KernelRef<'a>>,
    /// The root keys, for [`crate::notes::check_merge`].
    pub root: crate::notes::MetadataRoot,
    /// The owned model (full detail only).
    pub model: Option<Metadata>,
}

/// What the whole-object check needs of one metadata kernel, borrowing
/// from the note.
pub(crate) struct KernelRef<'a> {
    /// `.name`.
    pub name: Option<Cow<'a, str>>,
    /// `.symbol`.
    pub symbol: Option<Cow<'a, str>>,
    /// The values the descriptor is checked against.
    pub facts: crate::kd::MetadataFacts,
}

/// What the metadata notes of one object share, so that what was checked
/// in one note is not checked again in the next: Tensile objects carry one
/// note per kernel, thousands of them, with a handful of argument lists
/// and one target between them.
///
/// Argument lists are remembered by their encoded bytes (the `.args`
/// array and everything in it): a list whose bytes were seen before
/// decodes to the same items, so its argument views are taken from here
/// rather than checked key by key again. Only lists whose argument maps
/// broke no rule are kept, so nothing is left unreported; the argument
/// rules are skipped too when they found nothing but `.value_type` infos
/// for the same `.kernarg_segment_size` (the only kernel value they read),
/// and those infos are reported again. An `amdhsa.target` value whose
/// check found nothing is not checked again either.
#[derive(Default)]
pub(crate) struct Memo<'a> {
    /// Index in `lists` by encoded bytes.
    index: HashMap<&'a [u8], usize, FastHash>,
    lists: Vec<MemoList<'a>>,
    /// Argument views held in `lists`, at most [`Memo::MAX_ARGS`].
    held: usize,
    /// An `amdhsa.target` value that broke no rule.
    quiet_target: Option<&'a [u8]>,
    /// The remembered argument lists, decoded, for the next notes'
    /// decoding ([`msgpack::decode_flat_with`]).
    templates: Vec<msgpack::Template<'a>>,
    /// The argument views of the kernel being checked, kept between notes
    /// for their allocation.
    scratch: Vec<ArgView<'a>>,
}

/// One remembered argument list.
struct MemoList<'a> {
    /// The views, their nodes relative to the list's node.
    args: Vec<ArgView<'a>>,
    /// A `.kernarg_segment_size` for which the argument rules reported
    /// only the `.value_type` infos.
    quiet_for: Option<Option<u64>>,
}

impl<'a> Memo<'a> {
    /// Views held at most (about 200 bytes each): real objects have a few
    /// hundred; hostile ones are checked key by key past this.
    const MAX_ARGS: usize = 1 << 14;

    /// Argument lists kept as decoding templates at most: every array and
    /// map start is compared with each (Tensile objects have a handful).
    const MAX_TEMPLATES: usize = 16;

    /// Remembers the views `args` of the list at node `list`, encoded as
    /// `bytes`, unless that would hold too many.
    fn remember(
        &mut self,
        doc: &msgpack::Flat<'a>,
        bytes: &'a [u8],
        list: Node,
        args: &[ArgView<'a>],
    ) {
        if self.held + args.len() > Self::MAX_ARGS {
            return;
        }
        self.held += args.len();
        let args = args
            .iter()
            .map(|a| ArgView {
                nodes: a.nodes.relative_to(list),
                ..a.clone()
            })
            .collect();
        if self.templates.len() < Self::MAX_TEMPLATES {
            self.templates.extend(doc.template(list));
        }
        self.index.insert(bytes, self.lists.len());
        self.lists.push(MemoList {
            args,
            quiet_for: None,
        });
    }

    /// Records that the argument rules reported only `.value_type` infos
    /// for the list `bytes` with `.kernarg_segment_size` `kss`.
    fn quiet(&mut self, bytes: &[u8], kss: Option<u64>) {
        if let Some(&i) = self.index.get(bytes) {
            if let Some(m) = self.lists.get_mut(i) {
                m.quiet_for = Some(kss);
            }
        }
    }
}

struct Checker<'s, 'a> {
    base: u64,
    ctx: &'s Context,
    sink: &'s mut Sink,
    doc: &'s Flat<'a>,
    /// Whether to build the owned [`Metadata`] model.
    full: bool,
    /// Per [`Level`], per entry position: the table index of the known key
    /// last found there.
    hints: [[u8; HINTS]; 3],
    /// Argument lists checked before in the object.
    memo: &'s mut Memo<'a>,
    /// Findings reported so far (kept or not).
    reports: usize,
}

/// Map entry positions with a key hint (more than any level has keys).
const HINTS: usize = 40;

impl<'a> Checker<'_, 'a> {
    fn raw(&self, n: Node) -> Raw<'a> {
        self.doc.raw(n).unwrap_or(Raw::Nil)
    }

    fn report(&mut self, rule: &'static Rule, node: Option<Node>, msg: String) {
        self.report_lazy(rule, node, || msg);
    }

    /// [`Checker::report`] with a message made only if the sink keeps the
    /// finding (for info rules that fire on every argument).
    fn report_lazy(
        &mut self,
        rule: &'static Rule,
        node: Option<Node>,
        msg: impl FnOnce() -> String,
    ) {
        let at = node
            .and_then(|n| self.doc.offset(n))
            .and_then(|o| u64::try_from(o).ok())
            .and_then(|o| self.base.checked_add(o));
        self.reports += 1;
        self.sink.report_lazy(rule, at, msg);
    }

    /// Walks one map: duplicate keys, key classification, value kinds,
    /// required keys. `what` names the map in messages.
    fn scan<const N: usize>(
        &mut self,
        map: Node,
        level: Level,
        what: &dyn fmt::Display,
        fields: &mut Fields<'a, N>,
    ) {
        fields.reset();
        if !matches!(self.raw(map), Raw::Map(_)) {
            return;
        }
        let doc = self.doc;
        let mut seen = SeenKeys::new();
        let defs = level.defs();
        let mut present = 0u64;
        for (pos, (kn, vn)) in doc.entries(map).enumerate() {
            let k = self.raw(kn);
            let Some(kb) = k.as_str_bytes() else {
                // A non-string key: compare by fingerprint (rare).
                let fp = doc
                    .to_value(kn)
                    .map(|(v, _)| key_fingerprint(&v))
                    .unwrap_or_default();
                if !seen.non_str.insert(fp) {
                    self.report(
                        &DUPLICATE_KEY,
                        Some(kn),
                        format!("{what}: key {} appears again", show_key(k)),
                    );
                    continue;
                }
                self.report(
                    &KEY_UNPREFIXED,
                    Some(kn),
                    format!("{what}: key is a {}, not a string", k.kind_name()),
                );
                fields.other.push(show_key(k));
                continue;
            };
            // LLVM writes keys in a fixed order: try the key found at this
            // position of the previous map of the level first.
            let slot = self
                .hints
                .get_mut(level as usize)
                .and_then(|h| h.get_mut(pos));
            let hinted = slot
                .as_deref()
                .map(|&h| usize::from(h))
                .filter(|&h| defs.get(h).is_some_and(|d| key_eq(d.key.as_bytes(), kb)));
            let di = hinted.or_else(|| {
                let di = defs.iter().position(|d| key_eq(d.key.as_bytes(), kb))?;
                if let (Some(slot), Ok(h)) = (slot, u8::try_from(di)) {
                    *slot = h;
                }
                Some(di)
            });
            let new = match di {
                Some(di) => seen.known(di),
                None => seen.unknown(kb),
            };
            if !new {
                self.report(
                    &DUPLICATE_KEY,
                    Some(kn),
                    format!("{what}: key {} appears again", show_key(k)),
                );
                continue;
            }
            let Some((di, def)) = di.and_then(|di| Some((di, defs.get(di)?))) else {
                let text = String::from_utf8_lossy(kb).into_owned();
                self.classify_unknown(kn, level, what, &text);
                fields.other.push(text);
                continue;
            };
            present |= 1u64 << (di % 64);
            if self.ctx.cov < def.since {
                self.report(
                    &KEY_VERSION,
                    Some(kn),
                    format!(
                        "{what}: {} is defined from code object {}, this object is {}",
                        def.key, def.since, self.ctx.cov
                    ),
                );
            }
            let _ = self.parse(def, vn, what, fields, di);
        }
        let mut missing = level.required() & !present;
        while missing != 0 {
            let di = missing.trailing_zeros() as usize;
            missing &= missing - 1;
            if let Some(def) = defs.get(di) {
                self.report(
                    level.missing_rule(),
                    Some(map),
                    format!("{what}: required key {} is missing", def.key),
                );
            }
        }
    }

    fn classify_unknown(&mut self, kn: Node, level: Level, what: &dyn fmt::Display, text: &str) {
        if text.starts_with(level.namespace()) {
            self.report(
                &KEY_UNKNOWN,
                Some(kn),
                format!("{what}: unknown key {text:?}"),
            );
        } else if text.find('.').is_some_and(|dot| dot > 0) {
            self.report(
                &KEY_VENDOR,
                Some(kn),
                format!("{what}: vendor key {text:?}"),
            );
        } else {
            self.report(
                &KEY_UNPREFIXED,
                Some(kn),
                format!("{what}: key {text:?} has no vendor prefix"),
            );
        }
    }

    /// Checks a value against its key's shape and stores it in slot `di`
    /// of `fields`; reports and returns `None` if it does not fit. (Storing
    /// here rather than returning the value saves a trip through memory
    /// per key, which showed in profiles.)
    fn parse<const N: usize>(
        &mut self,
        def: &KeyDef,
        n: Node,
        what: &dyn fmt::Display,
        fields: &mut Fields<'a, N>,
        di: usize,
    ) -> Option<()> {
        let ctx = KeyCtx {
            what,
            key: def.key,
            index: None,
        };
        let doc = self.doc;
        let mut p = match def.shape {
            Shape::Str => Parsed::Str(self.str_bytes(n, &ctx)?, None),
            Shape::UInt => Parsed::UInt(self.uint(n, &ctx)?),
            Shape::Bool => Parsed::Bool(self.boolean(n, &ctx)?),
            Shape::Ints(len) => {
                let count = self.array(n, &ctx)?;
                if count != len {
                    self.report(
                        &VALUE_TYPE,
                        Some(n),
                        format!("{ctx}: expected {len} integers, found {count}"),
                    );
                    return None;
                }
                let mut out = [0u64; 3];
                for (i, e) in doc.children(n).enumerate() {
                    let u = self.uint(e, &ctx.at(i))?;
                    if let Some(slot) = out.get_mut(i) {
                        *slot = u;
                    }
                }
                Parsed::Ints(out, u8::try_from(len).unwrap_or(u8::MAX))
            }
            Shape::Strs => {
                self.array(n, &ctx)?;
                // Elements that are no strings are reported here and left
                // out by `Fields::strs`.
                for (i, e) in doc.children(n).enumerate() {
                    let _ = self.str_bytes(e, &ctx.at(i));
                }
                Parsed::Strs(n)
            }
            Shape::Maps => {
                self.array(n, &ctx)?;
                for (i, e) in doc.children(n).enumerate() {
                    let r = self.raw(e);
                    if !matches!(r, Raw::Map(_)) {
                        self.report(
                            &VALUE_TYPE,
                            Some(e),
                            format!("{ctx}[{i}]: expected a map, found a {}", r.kind_name()),
                        );
                    }
                }
                Parsed::Maps(n)
            }
        };
        if let (Some(values), Parsed::Str(b, index)) = (def.values, &mut p) {
            // The values are ASCII: bytes that match are valid UTF-8, and
            // invalid UTF-8 matches none before or after lossy decoding.
            match bytes_index(values, b) {
                Some(i) => *index = u8::try_from(i).ok(),
                None => self.report(
                    &VALUE_ENUM,
                    Some(n),
                    format!("{ctx}: {:?} is not one of {values:?}", lossy(b)),
                ),
            }
        }
        fields.set(di, p, n);
        Some(())
    }

    /// The element count, if `n` is an array.
    fn array(&mut self, n: Node, ctx: &KeyCtx<'_>) -> Option<usize> {
        match self.raw(n) {
            Raw::Array(len) => Some(len),
            other => {
                self.report(
                    &VALUE_TYPE,
                    Some(n),
                    format!("{ctx}: expected an array, found a {}", other.kind_name()),
                );
                None
            }
        }
    }

    /// The bytes of a string value (reported if `n` is no string).
    #[inline]
    fn str_bytes(&mut self, n: Node, ctx: &KeyCtx<'_>) -> Option<&'a [u8]> {
        match self.raw(n) {
            Raw::Str(b) => Some(b),
            other => self.not_str(n, other, ctx),
        }
    }

    /// The uncommon half of [`Checker::str_bytes`], kept out of line.
    #[inline(never)]
    fn not_str(&mut self, n: Node, other: Raw<'a>, ctx: &KeyCtx<'_>) -> Option<&'a [u8]> {
        match other {
            Raw::Str(b) => Some(b),
            other => {
                self.report(
                    &VALUE_TYPE,
                    Some(n),
                    format!("{ctx}: expected a string, found a {}", other.kind_name()),
                );
                None
            }
        }
    }

    #[inline]
    fn uint(&mut self, n: Node, ctx: &KeyCtx<'_>) -> Option<u64> {
        match self.raw(n) {
            Raw::UInt(u) => Some(u),
            other => self.uint_other(n, other, ctx),
        }
    }

    /// The uncommon half of [`Checker::uint`], kept out of line.
    #[inline(never)]
    fn uint_other(&mut self, n: Node, other: Raw<'a>, ctx: &KeyCtx<'_>) -> Option<u64> {
        match other {
            Raw::UInt(u) => Some(u),
            Raw::Int(i) => match u64::try_from(i) {
                Ok(u) => Some(u),
                Err(_) => {
                    self.report(&VALUE_TYPE, Some(n), format!("{ctx}: negative value {i}"));
                    None
                }
            },
            Raw::Str(b) => match std::str::from_utf8(b).ok().and_then(parse_yaml_uint) {
                Some(u) => {
                    self.report(
                        &STRING_SCALAR,
                        Some(n),
                        format!("{ctx}: integer {u} written as a string"),
                    );
                    Some(u)
                }
                None => {
                    self.report(
                        &VALUE_TYPE,
                        Some(n),
                        format!(
                            "{ctx}: expected an integer, found the string {:?}",
                            String::from_utf8_lossy(b)
                        ),
                    );
                    None
                }
            },
            other => {
                self.report(
                    &VALUE_TYPE,
                    Some(n),
                    format!("{ctx}: expected an integer, found a {}", other.kind_name()),
                );
                None
            }
        }
    }

    fn boolean(&mut self, n: Node, ctx: &KeyCtx<'_>) -> Option<bool> {
        match self.raw(n) {
            Raw::Bool(b) => Some(b),
            Raw::Str(s) => match std::str::from_utf8(s).ok().and_then(parse_yaml_bool) {
                Some(b) => {
                    self.report(
                        &STRING_SCALAR,
                        Some(n),
                        format!("{ctx}: boolean {b} written as a string"),
                    );
                    Some(b)
                }
                None => {
                    self.report(
                        &VALUE_TYPE,
                        Some(n),
                        format!(
                            "{ctx}: expected a boolean, found the string {:?}",
                            String::from_utf8_lossy(s)
                        ),
                    );
                    None
                }
            },
            other => {
                self.report(
                    &VALUE_TYPE,
                    Some(n),
                    format!("{ctx}: expected a boolean, found a {}", other.kind_name()),
                );
                None
            }
        }
    }

    /// Checks the root map and every kernel; returns what the object check
    /// needs of each kernel and, when `full`, the owned model.
    fn root(&mut self, root: Node) -> Parts<'a> {
        let mut f: Fields<'_, ROOT_N> = Fields::new();
        self.scan(root, Level::Root, &"metadata", &mut f);
        let target = f.text(kdef!(root "amdhsa.target"));
        let version = f.ints::<2>(kdef!(root "amdhsa.version"));
        let printf = f.strs(kdef!(root "amdhsa.printf"), self.doc);

        if let (Some(v), Some(want)) = (version, self.ctx.cov.metadata_version()) {
            if v != want {
                self.report(
                    &VERSION_MISMATCH,
                    f.node(kdef!(root "amdhsa.version")),
                    format!(
                        "amdhsa.version is [{}, {}], code object {} needs [{}, {}]",
                        v[0], v[1], self.ctx.cov, want[0], want[1]
                    ),
                );
            }
        }
        let target_bytes = f.bytes(kdef!(root "amdhsa.target"));
        if target_bytes.is_none() || target_bytes != self.memo.quiet_target {
            let before = self.reports;
            self.target(target.as_deref(), f.node(kdef!(root "amdhsa.target")));
            if self.reports == before {
                self.memo.quiet_target = target_bytes;
            }
        }
        for (i, p) in printf.iter().enumerate() {
            if !printf_ok(p) {
                let node = f
                    .node(kdef!(root "amdhsa.printf"))
                    .and_then(|n| self.doc.children(n).nth(i));
                self.report(
                    &PRINTF_FORMAT,
                    node,
                    format!("amdhsa.printf[{i}] {p:?} is not ID:N:sizes:format"),
                );
            }
        }

        let doc = self.doc;
        let kernels_node = f.maps(kdef!(root "amdhsa.kernels"));
        // Presized for the entries of amdhsa.kernels (bounded by the input:
        // the document has an item per entry).
        let count = kernels_node
            .and_then(|n| match doc.raw(n) {
                Some(Raw::Array(len)) => Some(len.min(doc.items().len())),
                _ => None,
            })
            .unwrap_or(0);
        let mut refs = Vec::with_capacity(count);
        let root_facts = crate::notes::MetadataRoot {
            target_key: f.get(kdef!(root "amdhsa.target")).is_some(),
            version,
            target: target.as_deref().map(str::to_owned),
            printf: f
                .node(kdef!(root "amdhsa.printf"))
                .is_some()
                .then(|| printf.clone()),
        };
        let mut model = self.full.then(|| Metadata {
            version,
            target: target.as_deref().map(str::to_owned),
            printf,
            kernels: Vec::new(),
            other_keys: std::mem::take(&mut f.other),
        });
        if let Some(md) = &mut model {
            if f.get(kdef!(root "amdhsa.globals")).is_some() {
                md.other_keys.push("amdhsa.globals".to_owned());
            }
        }
        // Names and symbols within the note; one kernel (as Tensile writes
        // each note) cannot repeat them.
        let several = count > 1;
        let capacity = if several { count } else { 0 };
        let mut names: HashMap<Cow<'a, str>, usize, FastHash> =
            HashMap::with_capacity_and_hasher(capacity, FastHash);
        let mut symbols: HashMap<Cow<'a, str>, usize, FastHash> =
            HashMap::with_capacity_and_hasher(capacity, FastHash);
        let mut args = std::mem::take(&mut self.memo.scratch);
        let mut kf: Fields<'a, KERNEL_N> = Fields::new();
        let mut af: Fields<'a, ARG_N> = Fields::new();
        let kernel_maps = kernels_node
            .into_iter()
            .flat_map(|n| doc.children(n))
            .filter(|&n| matches!(doc.raw(n), Some(Raw::Map(_))));
        for (i, kn) in kernel_maps.enumerate() {
            let k = self.kernel(kn, i, &mut kf, &mut af, &mut args);
            self.sink.set_kernel(k.name.as_deref());
            if let Some(name) = k.name.as_ref().filter(|_| several) {
                if let Some(first) = names.insert(name.clone(), i) {
                    self.report(
                        &KERNEL_DUPLICATE_NAME,
                        kf.node(kdef!(kernel ".name")),
                        format!("kernel {i}: .name {name:?} also names kernel {first}"),
                    );
                }
            }
            if let Some(sym) = k.symbol.as_ref().filter(|_| several) {
                if let Some(first) = symbols.insert(sym.clone(), i) {
                    self.report(
                        &KERNEL_DUPLICATE_SYMBOL,
                        kf.node(kdef!(kernel ".symbol")),
                        format!("kernel {i}: .symbol {sym:?} is also the symbol of kernel {first}"),
                    );
                }
            }
            self.sink.set_kernel(None);
            if let Some(md) = &mut model {
                let owned_args = args.iter().map(|a| a.to_owned_arg(doc)).collect();
                md.kernels.push(k.to_owned_kernel(owned_args));
            }
            refs.push(KernelRef {
                facts: crate::kd::MetadataFacts {
                    sgpr_count: k.sgpr_count,
                    vgpr_count: k.vgpr_count,
                    agpr_count: k.agpr_count,
                    wavefront_size: k.wavefront_size,
                    group_segment_fixed_size: k.group_segment_fixed_size,
                    private_segment_fixed_size: k.private_segment_fixed_size,
                    kernarg_segment_size: k.kernarg_segment_size,
                    uses_dynamic_stack: k.uses_dynamic_stack,
                    workgroup_processor_mode: k.workgroup_processor_mode,
                },
                name: k.name,
                symbol: k.symbol,
            });
        }
        args.clear();
        self.memo.scratch = args;
        Parts {
            kernels: refs,
            root: root_facts,
            model,
        }
    }

    fn target(&mut self, target: Option<&str>, node: Option<Node>) {
        // A missing key is judged per object, not per note
        // ([`missing_target`]): one note naming the target is enough.
        let Some(t) = target else {
            return;
        };
        let Some(rest) = t.strip_prefix(TARGET_PREFIX) else {
            self.report(
                &TARGET_INVALID,
                node,
                format!("amdhsa.target {t:?} does not start with {TARGET_PREFIX}"),
            );
            return;
        };
        // LLVM writes the V4 syntax (`:xnack+`); the V3 spelling
        // (`+xnack`) would mean other feature settings.
        if rest.find([':', '+']).and_then(|i| rest.get(i..=i)) == Some("+") {
            self.report(
                &TARGET_INVALID,
                node,
                format!("amdhsa.target {t:?} uses the V3 +feature syntax"),
            );
            return;
        }
        let id = match TargetId::parse(rest) {
            Ok(id) => id,
            // A valid processor newer than the target table: the ELF check
            // already says so; only a contradiction with a modelled e_flags
            // processor can be seen.
            Err(TargetIdError::UnmodelledProcessor { name }) => {
                if let Some(elf) = self.ctx.target_id {
                    self.report(
                        &TARGET_MISMATCH,
                        node,
                        format!(
                            "amdhsa.target {t:?} names {name} but e_flags say {TARGET_PREFIX}{elf}"
                        ),
                    );
                }
                return;
            }
            Err(e) => {
                self.report(&TARGET_INVALID, node, format!("amdhsa.target {t:?}: {e}"));
                return;
            }
        };
        if let Some(elf) = self.ctx.target_id {
            if id != elf {
                self.report(
                    &TARGET_MISMATCH,
                    node,
                    format!("amdhsa.target {t:?} but e_flags say {TARGET_PREFIX}{elf}"),
                );
            }
        }
    }

    /// Checks one kernel map; leaves its arguments in `args` (reused
    /// across kernels to save allocations).
    fn kernel(
        &mut self,
        kn: Node,
        index: usize,
        f: &mut Fields<'a, KERNEL_N>,
        af: &mut Fields<'a, ARG_N>,
        args: &mut Vec<ArgView<'a>>,
    ) -> KernelView<'a> {
        // Name the kernel in messages before its fields are known.
        let label = self
            .doc
            .map_get(kn, ".name")
            .and_then(|v| self.doc.raw(v))
            .and_then(|r| r.as_str_bytes())
            .map(lossy);
        self.sink.set_kernel(label.as_deref());
        let what = KernelWhat { index, label };
        self.scan(kn, Level::Kernel, &what, f);
        let k = KernelView {
            // The label is the same value, read the same way.
            name: what.label.clone(),
            symbol: f.text(kdef!(kernel ".symbol")),
            language: f.text(kdef!(kernel ".language")),
            language_version: f.ints::<2>(kdef!(kernel ".language_version")),
            reqd_workgroup_size: f.ints::<3>(kdef!(kernel ".reqd_workgroup_size")),
            workgroup_size_hint: f.ints::<3>(kdef!(kernel ".workgroup_size_hint")),
            vec_type_hint: f.text(kdef!(kernel ".vec_type_hint")),
            device_enqueue_symbol: f.text(kdef!(kernel ".device_enqueue_symbol")),
            kernarg_segment_size: f.uint(kdef!(kernel ".kernarg_segment_size")),
            group_segment_fixed_size: f.uint(kdef!(kernel ".group_segment_fixed_size")),
            private_segment_fixed_size: f.uint(kdef!(kernel ".private_segment_fixed_size")),
            kernarg_segment_align: f.uint(kdef!(kernel ".kernarg_segment_align")),
            wavefront_size: f.uint(kdef!(kernel ".wavefront_size")),
            sgpr_count: f.uint(kdef!(kernel ".sgpr_count")),
            vgpr_count: f.uint(kdef!(kernel ".vgpr_count")),
            agpr_count: f.uint(kdef!(kernel ".agpr_count")),
            max_flat_workgroup_size: f.uint(kdef!(kernel ".max_flat_workgroup_size")),
            max_num_workgroups_x: f.uint(kdef!(kernel ".max_num_workgroups_x")),
            max_num_workgroups_y: f.uint(kdef!(kernel ".max_num_workgroups_y")),
            max_num_workgroups_z: f.uint(kdef!(kernel ".max_num_workgroups_z")),
            sgpr_spill_count: f.uint(kdef!(kernel ".sgpr_spill_count")),
            vgpr_spill_count: f.uint(kdef!(kernel ".vgpr_spill_count")),
            kind: f.text(kdef!(kernel ".kind")),
            uses_dynamic_stack: f.bool(kdef!(kernel ".uses_dynamic_stack")),
            workgroup_processor_mode: f
                .uint(kdef!(kernel ".workgroup_processor_mode"))
                .map(|v| v != 0),
            uniform_work_group_size: f
                .uint(kdef!(kernel ".uniform_work_group_size"))
                .map(|v| v != 0),
            cluster_dims: f.ints::<3>(kdef!(kernel ".cluster_dims")),
            other_keys: std::mem::take(&mut f.other),
        };
        let doc = self.doc;
        let list = f.maps(kdef!(kernel ".args"));
        let key = list.and_then(|n| Some((n, doc.subtree_bytes(n)?)));
        let kss = k.kernarg_segment_size;
        let mut quiet_for = None;
        let remembered = key.and_then(|(n, b)| Some((n, *self.memo.index.get(b)?)));
        if let Some((n, li)) = remembered {
            let m = self.memo.lists.get(li);
            quiet_for = m.and_then(|m| m.quiet_for);
            if quiet_for == Some(kss) && !self.full {
                // Nothing reads the views: report the infos straight from
                // the memo.
                args.clear();
                self.kernel_rules(&k, f, &what);
                self.remembered_value_type_infos(li, n, &what);
                return k;
            }
            args.clear();
            args.extend(m.into_iter().flat_map(|m| &m.args).map(|a| ArgView {
                nodes: a.nodes.placed_at(n),
                ..a.clone()
            }));
        } else {
            let before = self.reports;
            let arg_maps = list
                .into_iter()
                .flat_map(|n| doc.children(n))
                .filter(|&n| matches!(doc.raw(n), Some(Raw::Map(_))));
            // The slots of the previous kernel's arguments are overwritten
            // in place (moving whole views showed as memcpy in profiles).
            let mut count = 0;
            for (i, an) in arg_maps.enumerate() {
                let what = ArgWhat {
                    kernel: &what,
                    index: i,
                };
                self.scan(an, Level::Arg, &what, af);
                if args.len() <= count {
                    args.push(ArgView::new());
                }
                if let Some(a) = args.get_mut(count) {
                    a.fill(af);
                }
                count += 1;
            }
            args.truncate(count);
            if let Some((n, b)) = key.filter(|_| self.reports == before) {
                self.memo.remember(doc, b, n, args);
            }
        }
        self.kernel_rules(&k, f, &what);
        if quiet_for == Some(kss) {
            self.value_type_infos(args, &what);
        } else {
            let before = self.reports;
            self.arg_rules(&k, args, &what);
            let infos = args
                .iter()
                .filter(|a| a.has(kdef!(arg ".value_type")))
                .count();
            if self.reports - before == infos {
                if let Some((_, b)) = key {
                    self.memo.quiet(b, kss);
                }
            }
        }
        k
    }

    fn kernel_rules(
        &mut self,
        k: &KernelView<'_>,
        f: &Fields<'_, KERNEL_N>,
        what: &dyn fmt::Display,
    ) {
        if let (Some(name), Some(sym)) = (&k.name, &k.symbol) {
            if sym.strip_suffix(".kd") != Some(name.as_ref()) {
                self.report(
                    &KERNEL_SYMBOL_NAME,
                    f.node(kdef!(kernel ".symbol")),
                    format!("{what}: .symbol {sym:?} is not {:?}", format!("{name}.kd")),
                );
            }
        }
        if let Some(a) = k.kernarg_segment_align {
            if !a.is_power_of_two() {
                self.report(
                    &KERNARG_SEGMENT_ALIGN,
                    f.node(kdef!(kernel ".kernarg_segment_align")),
                    format!("{what}: .kernarg_segment_align {a} is not a power of two"),
                );
            }
        }
        if let Some(w) = k.wavefront_size {
            let target = self.ctx.target_id.map(|t| t.target);
            let problem = match w {
                32 if target.is_some_and(|t| !t.wave32) => Some(format!(
                    "{what}: wave32 but {} has no wave32",
                    target.map_or("", |t| t.name)
                )),
                64 if target.is_some_and(|t| !t.wave64) => Some(format!(
                    "{what}: wave64 but {} has no wave64",
                    target.map_or("", |t| t.name)
                )),
                32 | 64 => None,
                _ => Some(format!("{what}: .wavefront_size {w} is neither 32 nor 64")),
            };
            if let Some(m) = problem {
                self.report(&WAVEFRONT_SIZE, f.node(kdef!(kernel ".wavefront_size")), m);
            }
        }
        if let Some(m) = k.max_flat_workgroup_size {
            if !(1..=1024).contains(&m) {
                self.report(
                    &MAX_FLAT_WORKGROUP_SIZE,
                    f.node(kdef!(kernel ".max_flat_workgroup_size")),
                    format!("{what}: .max_flat_workgroup_size {m} is outside 1..=1024"),
                );
            }
        }
        if let Some(r) = k.reqd_workgroup_size {
            if r != [0, 0, 0] && r.contains(&0) {
                self.report(
                    &REQD_WORKGROUP_SIZE,
                    f.node(kdef!(kernel ".reqd_workgroup_size")),
                    format!("{what}: .reqd_workgroup_size {r:?} mixes zero and non-zero"),
                );
            } else if let Some(m) = k.max_flat_workgroup_size {
                let product = r.iter().try_fold(1u64, |a, &b| a.checked_mul(b));
                if r != [0, 0, 0] && product.is_none_or(|p| p > m) {
                    self.report(
                        &REQD_WORKGROUP_SIZE_LIMIT,
                        f.node(kdef!(kernel ".reqd_workgroup_size")),
                        format!("{what}: .reqd_workgroup_size {r:?} exceeds .max_flat_workgroup_size {m}"),
                    );
                }
            }
        }
        if let Some(v) = f.uint(kdef!(kernel ".workgroup_processor_mode")) {
            let no_wgp = self
                .ctx
                .target_id
                .map(|t| t.target)
                .filter(|t| !t.has_wgp_mode());
            if v > 1 {
                self.report(
                    &WORKGROUP_PROCESSOR_MODE,
                    f.node(kdef!(kernel ".workgroup_processor_mode")),
                    format!("{what}: .workgroup_processor_mode {v} is not 0 or 1"),
                );
            } else if let Some(t) = no_wgp {
                self.report(
                    &WORKGROUP_PROCESSOR_MODE,
                    f.node(kdef!(kernel ".workgroup_processor_mode")),
                    format!(
                        "{what}: .workgroup_processor_mode given but {} has no WGP mode",
                        t.name
                    ),
                );
            }
        }
        if let Some(v) = f.uint(kdef!(kernel ".uniform_work_group_size")) {
            if v > 1 {
                self.report(
                    &UNIFORM_WORK_GROUP_SIZE,
                    f.node(kdef!(kernel ".uniform_work_group_size")),
                    format!("{what}: .uniform_work_group_size {v} is not 0 or 1"),
                );
            }
        }
        if let Some(kind) = &k.kind {
            if !KERNEL_KINDS.contains(&kind.as_ref()) {
                self.report(
                    &KERNEL_KIND,
                    f.node(kdef!(kernel ".kind")),
                    format!("{what}: .kind {kind:?} is not normal, init or fini"),
                );
            }
        }
    }

    fn arg_rules(&mut self, k: &KernelView<'_>, args: &[ArgView<'_>], what: &dyn fmt::Display) {
        let cov = self.ctx.cov;
        for (i, a) in args.iter().enumerate() {
            let af = &a.nodes;
            let what = ArgWhat {
                kernel: what,
                index: i,
            };
            let kind = a.kind();
            self.value_type_info(a, &what);
            if let Some(kind) = kind {
                self.arg_kind_rules(a, kind, &what);
            }
            if let Some(p) = a.pointee_align {
                if !p.is_power_of_two() {
                    self.report(
                        &ARG_POINTEE_ALIGN,
                        af.get(kdef!(arg ".pointee_align")),
                        format!("{what}: .pointee_align {p} is not a power of two"),
                    );
                }
            }
            let (Some(off), Some(size)) = (a.offset, a.size) else {
                continue;
            };
            match (off.checked_add(size), k.kernarg_segment_size) {
                (None, _) => self.report(
                    &ARG_OUT_OF_BOUNDS,
                    a.nodes.get(kdef!(arg ".offset")),
                    format!("{what}: .offset + .size overflows"),
                ),
                (Some(end), Some(kss)) if end > kss => self.report(
                    &ARG_OUT_OF_BOUNDS,
                    a.nodes.get(kdef!(arg ".offset")),
                    format!("{what}: bytes {off}..{end} end past .kernarg_segment_size {kss}"),
                ),
                _ => {}
            }
            let natural = match kind {
                Some(ValueKind::ByValue) | None => None,
                Some(_) => Some(size).filter(|s| matches!(s, 2 | 4 | 8)),
            };
            if let Some(al) = natural {
                if off % al != 0 {
                    self.report(
                        &ARG_MISALIGNED,
                        a.nodes.get(kdef!(arg ".offset")),
                        format!("{what}: .offset {off} is not a multiple of {al}"),
                    );
                }
            }
            if let Some(kind) = kind.filter(|k| k.is_hidden()) {
                if kind.since_v5() && cov < CodeObjectVersion::V5 {
                    self.report(
                        &ARG_HIDDEN_VERSION,
                        af.get(kdef!(arg ".value_kind")),
                        format!(
                            "{what}: {} is a V5 hidden argument, this object is {cov}",
                            kind.as_str()
                        ),
                    );
                }
            }
        }
        self.hidden_layout(args, what);
        self.overlaps(args, what);
    }

    /// `metadata.arg.value_type` for argument `a`, named `what`.
    fn value_type_info(&mut self, a: &ArgView<'_>, what: &ArgWhat<'_>) {
        if let Some(n) = a.nodes.get(kdef!(arg ".value_type")) {
            self.report_lazy(&ARG_VALUE_TYPE, Some(n), || {
                format!("{what}: deprecated .value_type")
            });
        }
    }

    /// What [`Checker::arg_rules`] reports for a remembered argument list
    /// that broke no argument rule: the `.value_type` infos, in order.
    fn value_type_infos(&mut self, args: &[ArgView<'_>], what: &dyn fmt::Display) {
        for (i, a) in args.iter().enumerate() {
            let what = ArgWhat {
                kernel: what,
                index: i,
            };
            self.value_type_info(a, &what);
        }
    }

    /// [`Checker::value_type_infos`] for remembered list `li` placed at
    /// node `list`.
    fn remembered_value_type_infos(&mut self, li: usize, list: Node, what: &dyn fmt::Display) {
        let count = self.memo.lists.get(li).map_or(0, |m| m.args.len());
        for i in 0..count {
            let node = self
                .memo
                .lists
                .get(li)
                .and_then(|m| m.args.get(i))
                .and_then(|a| a.nodes.placed_at(list).get(kdef!(arg ".value_type")));
            if let Some(n) = node {
                let what = ArgWhat {
                    kernel: what,
                    index: i,
                };
                self.report_lazy(&ARG_VALUE_TYPE, Some(n), || {
                    format!("{what}: deprecated .value_type")
                });
            }
        }
    }

    fn arg_kind_rules(&mut self, a: &ArgView<'_>, kind: ValueKind, what: &dyn fmt::Display) {
        use ValueKind as K;
        let af = &a.nodes;
        let mut misplaced: [Option<(&str, usize)>; 4] = [None; 4];
        if a.pointee_align.is_some() && kind != K::DynamicSharedPointer {
            misplaced[0] = Some((".pointee_align", kdef!(arg ".pointee_align")));
        }
        if a.address_space.is_some() && !matches!(kind, K::GlobalBuffer | K::DynamicSharedPointer) {
            misplaced[1] = Some((".address_space", kdef!(arg ".address_space")));
        }
        // The doc allows .access only on images and pipes, but clang writes
        // it on HIP global_buffer arguments too (docs/errata.md).
        if a.has(kdef!(arg ".access")) && !matches!(kind, K::Image | K::Pipe | K::GlobalBuffer) {
            misplaced[2] = Some((".access", kdef!(arg ".access")));
        }
        if a.is_pipe.is_some() && kind != K::Pipe {
            misplaced[3] = Some((".is_pipe", kdef!(arg ".is_pipe")));
        }
        for (key, di) in misplaced.into_iter().flatten() {
            self.report(
                &ARG_KEY_KIND,
                af.get(di),
                format!("{what}: {key} on a {} argument", kind.as_str()),
            );
        }
        let as_ = a.address_space;
        let bad_space = match kind {
            K::DynamicSharedPointer => as_.is_some_and(|s| s != b"local"),
            K::GlobalBuffer => as_ == Some(b"local"),
            _ => false,
        };
        if bad_space {
            self.report(
                &ARG_ADDRESS_SPACE,
                af.get(kdef!(arg ".address_space")),
                format!(
                    "{what}: {} in address space {}",
                    kind.as_str(),
                    as_.map(lossy).unwrap_or_default()
                ),
            );
        }
        let want = match kind {
            K::GlobalBuffer if matches!(as_, Some(b"global" | b"constant" | b"generic")) => Some(8),
            K::Image | K::Sampler | K::Pipe | K::Queue => Some(8),
            K::DynamicSharedPointer => Some(4),
            _ => None,
        };
        if let (Some(want), Some(size)) = (want, a.size) {
            if size != want {
                self.report(
                    &ARG_KIND_SIZE,
                    af.get(kdef!(arg ".size")),
                    format!("{what}: {} of size {size}, expected {want}", kind.as_str()),
                );
            }
        }
    }

    /// Checks hidden arguments against their fixed slots. The hidden block
    /// starts where LLVM's implicit argument pointer points: the end of the
    /// explicit arguments rounded up to 8 (`getAlignmentForImplicitArgPtr`
    /// for amdhsa; confirmed with clang-19).
    fn hidden_layout(&mut self, args: &[ArgView<'_>], what: &dyn fmt::Display) {
        let explicit_end = args
            .iter()
            .filter(|a| a.kind().is_some_and(|kd| !kd.is_hidden()))
            .filter_map(|a| a.offset?.checked_add(a.size?))
            .max()
            .unwrap_or(0);
        let Some(base) = explicit_end.checked_add(7).map(|e| e & !7) else {
            return;
        };
        for (i, a) in args.iter().enumerate() {
            let Some(kind) = a.kind() else { continue };
            let Some((slot, size)) = kind.hidden_slot(self.ctx.cov) else {
                continue;
            };
            let Some(want) = base.checked_add(slot) else {
                continue;
            };
            if a.offset.is_some_and(|o| o != want) || a.size.is_some_and(|s| s != size) {
                self.report(
                    &ARG_HIDDEN_LAYOUT,
                    a.nodes.get(kdef!(arg ".offset")),
                    format!(
                        "{what} arg {i}: {} at offset {} size {}, expected offset {want} (hidden block at {base}) size {size}",
                        kind.as_str(),
                        a.offset.unwrap_or(0),
                        a.size.unwrap_or(0)
                    ),
                );
            }
        }
    }

    fn overlaps(&mut self, args: &[ArgView<'_>], what: &dyn fmt::Display) {
        let mut spans: Vec<(u64, u64, usize)> = args
            .iter()
            .enumerate()
            .filter_map(|(i, a)| {
                let (o, s) = (a.offset?, a.size?);
                (s > 0).then_some((o, o.saturating_add(s), i))
            })
            .collect();
        spans.sort_unstable();
        // Sweep: the furthest end so far and whose it is.
        let mut reach: Option<(u64, usize)> = None;
        for &(start, end, i) in &spans {
            if let Some((r, j)) = reach {
                if start < r {
                    let node = args.get(i).and_then(|a| a.nodes.get(kdef!(arg ".offset")));
                    self.report(
                        &ARG_OVERLAP,
                        node,
                        format!(
                            "{what}: arg {i} (bytes {start}..{end}) overlaps arg {j} (ends at {r})"
                        ),
                    );
                }
            }
            if reach.is_none_or(|(r, _)| end > r) {
                reach = Some((end, i));
            }
        }
    }
}

/// `String::from_utf8_lossy`, taking the faster validation path first:
/// nearly every metadata string is valid UTF-8.
fn lossy(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(b),
    }
}

/// Index of `b` in `values`, comparing lengths and last bytes before
/// whole strings (many names share long prefixes).
fn bytes_index(values: &[&str], b: &[u8]) -> Option<usize> {
    values.iter().position(|v| key_eq(v.as_bytes(), b))
}

/// `a == b` for the short names of the metadata (keys, enumerated values):
/// compares the first and last 8 (or 4) bytes as words, which covers the
/// whole of strings up to 16 bytes, before any byte-wise comparison; a
/// call to `memcmp` for each of them showed in profiles.
fn key_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n >= 8 {
        let word = |x: &[u8], at: usize| x.get(at..at + 8).map_or(0, le64);
        word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8) && (n <= 16 || a == b)
    } else if n >= 4 {
        let word = |x: &[u8], at: usize| {
            x.get(at..at + 4)
                .and_then(|w| <[u8; 4]>::try_from(w).ok())
                .map_or(0, u32::from_le_bytes)
        };
        word(a, 0) == word(b, 0) && word(a, n - 4) == word(b, n - 4)
    } else {
        a == b
    }
}

/// A byte string identifying a map key the way LLVM's `msgpack::Document`
/// compares keys: by kind and value, with both float widths read as double.
fn key_fingerprint(k: &Value) -> Vec<u8> {
    fn widen(v: &Value) -> Value {
        match v {
            Value::F32(f) => Value::F64(f64::from(*f)),
            Value::Array(a) => Value::Array(a.iter().map(widen).collect()),
            Value::Map(m) => Value::Map(m.iter().map(|(a, b)| (widen(a), widen(b))).collect()),
            other => other.clone(),
        }
    }
    match k {
        Value::Str(s) => {
            // The common case, without cloning through `widen`.
            let mut out = vec![0xa0];
            out.extend_from_slice(s);
            out
        }
        other => msgpack::encode(&widen(other)),
    }
}

fn show_key(k: Raw<'_>) -> String {
    match k.as_str_bytes() {
        Some(b) => format!("{:?}", String::from_utf8_lossy(b)),
        None => format!("<{}>", k.kind_name()),
    }
}

/// LLVM's YAML integer reading (`StringRef::getAsInteger` with radix 0):
/// decimal, `0x` hex, `0b` binary, `0o` or leading-zero octal.
pub(crate) fn parse_yaml_uint(s: &str) -> Option<u64> {
    let (digits, radix) = if let Some(r) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (r, 16)
    } else if let Some(r) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        (r, 2)
    } else if let Some(r) = s.strip_prefix("0o") {
        (r, 8)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// LLVM's YAML boolean spellings (`llvm::yaml::parseBool`).
pub(crate) fn parse_yaml_bool(s: &str) -> Option<bool> {
    match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Some(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Some(false)
        }
        _ => None,
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

impl Checker<'_, '_> {
    /// `metadata.duplicate_key` in the maps the schema walk does not visit
    /// (vendor extensions and values nested in them): LLVM's reader, and
    /// comgr's with it, rejects a repeated key in any map, not only in the
    /// root, kernel and argument maps.
    fn nested_duplicate_keys(&mut self) {
        let doc = self.doc;
        // The schema walk descends only into arrays of maps: a kernel list
        // or argument list of another kind (a map of maps, say) is reported
        // as the wrong type and its maps are left to this walk.
        let is_array = |n: Node| matches!(doc.raw(n), Some(Raw::Array(_)));
        let walk = |visit: &mut dyn FnMut(Node)| {
            visit(0);
            if let Some(ks) = doc.map_get(0, "amdhsa.kernels").filter(|&n| is_array(n)) {
                for k in doc.children(ks).filter(|&k| doc.is_map(k)) {
                    visit(k);
                    if let Some(args) = doc.map_get(k, ".args").filter(|&n| is_array(n)) {
                        doc.children(args)
                            .filter(|&a| doc.is_map(a))
                            .for_each(&mut *visit);
                    }
                }
            }
        };
        // The walked maps are distinct: when they are all the maps, as in
        // what LLVM writes, there is nothing else to look at.
        let mut count = 0;
        walk(&mut |_| count += 1);
        if count == doc.map_count() {
            return;
        }
        let mut walked: Vec<Node> = Vec::with_capacity(count);
        walk(&mut |m| walked.push(m));
        walked.sort_unstable();
        let mut seen: HashSet<Vec<u8>> = HashSet::new();
        for map in (0..doc.items().len()).filter(|&i| doc.is_map(i)) {
            if walked.binary_search(&map).is_ok() {
                continue;
            }
            seen.clear();
            for (kn, _) in doc.entries(map) {
                // Strings by their bytes, anything else by the value.
                let key = match doc.raw(kn) {
                    Some(r) => match r.as_str_bytes() {
                        Some(b) => [b"s".as_slice(), b].concat(),
                        None => [
                            b"v".as_slice(),
                            &doc.to_value(kn)
                                .map(|(v, _)| key_fingerprint(&v))
                                .unwrap_or_default(),
                        ]
                        .concat(),
                    },
                    None => continue,
                };
                if !seen.insert(key) {
                    let shown = doc.raw(kn).map(show_key).unwrap_or_default();
                    self.report(
                        &DUPLICATE_KEY,
                        Some(kn),
                        format!("a nested map: key {shown} appears again"),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Severity;
    use std::collections::BTreeSet;

    fn u(x: u64) -> Value {
        Value::UInt(x)
    }
    fn s(x: &str) -> Value {
        Value::str(x)
    }
    fn m(entries: &[(&str, Value)]) -> Value {
        Value::Map(entries.iter().map(|(k, v)| (s(k), v.clone())).collect())
    }
    fn ints(xs: &[u64]) -> Value {
        Value::Array(xs.iter().map(|&x| u(x)).collect())
    }
    fn entries(v: &mut Value) -> &mut Vec<(Value, Value)> {
        match v {
            Value::Map(m) => m,
            other => panic!("test document is not a map: {other:?}"),
        }
    }
    fn set(v: &mut Value, key: &str, val: Value) {
        let e = entries(v);
        match e.iter_mut().find(|(k, _)| k.as_str() == Some(key)) {
            Some(slot) => slot.1 = val,
            None => e.push((s(key), val)),
        }
    }
    fn del(v: &mut Value, key: &str) {
        entries(v).retain(|(k, _)| k.as_str() != Some(key));
    }
    fn field<'a>(v: &'a mut Value, key: &str) -> &'a mut Value {
        entries(v)
            .iter_mut()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
            .unwrap_or_else(|| panic!("no key {key}"))
    }
    fn kernel(doc: &mut Value, i: usize) -> &mut Value {
        match field(doc, "amdhsa.kernels") {
            Value::Array(a) => &mut a[i],
            _ => panic!("amdhsa.kernels is not an array"),
        }
    }
    fn args(doc: &mut Value, k: usize) -> &mut Vec<Value> {
        match field(kernel(doc, k), ".args") {
            Value::Array(a) => a,
            _ => panic!(".args is not an array"),
        }
    }
    fn arg(doc: &mut Value, k: usize, a: usize) -> &mut Value {
        &mut args(doc, k)[a]
    }
    fn hidden(kind: &str, offset: u64, size: u64) -> Value {
        m(&[
            (".offset", u(offset)),
            (".size", u(size)),
            (".value_kind", s(kind)),
        ])
    }

    fn gfx90a() -> TargetId {
        TargetId::parse("gfx90a").expect("targets table knows gfx90a")
    }

    struct Case {
        doc: Value,
        ctx: Context,
        /// Bytes to check instead of the encoded `doc`.
        raw: Option<Vec<u8>>,
    }

    const DESC_OFFSET: u64 = 0x1000;

    /// A valid metadata map for `cov`, as LLVM would write it for gfx90a:
    /// one kernel with explicit arguments of most kinds and a full hidden
    /// block, and one kernel with no arguments.
    fn base(cov: CodeObjectVersion) -> Case {
        let v5 = cov >= CodeObjectVersion::V5;
        let mut k0_args = vec![
            m(&[
                (".name", s("out")),
                (".type_name", s("float*")),
                (".offset", u(0)),
                (".size", u(8)),
                (".value_kind", s("global_buffer")),
                (".address_space", s("global")),
                (".actual_access", s("write_only")),
                (".is_restrict", Value::Bool(true)),
            ]),
            m(&[
                (".offset", u(8)),
                (".size", u(1)),
                (".type_name", s("char")),
                (".value_kind", s("by_value")),
            ]),
            m(&[
                (".offset", u(12)),
                (".size", u(4)),
                (".value_kind", s("dynamic_shared_pointer")),
                (".address_space", s("local")),
                (".pointee_align", u(4)),
                (".is_const", Value::Bool(true)),
            ]),
            m(&[
                (".offset", u(16)),
                (".size", u(8)),
                (".value_kind", s("image")),
                (".access", s("read_only")),
                (".type_name", s("image2d_t")),
            ]),
            m(&[
                (".offset", u(24)),
                (".size", u(8)),
                (".value_kind", s("pipe")),
                (".access", s("read_only")),
                (".is_pipe", Value::Bool(true)),
            ]),
            // An empty struct: clang-19 writes size 0 at the next offset.
            m(&[
                (".offset", u(32)),
                (".size", u(0)),
                (".type_name", s("E")),
                (".value_kind", s("by_value")),
            ]),
        ];
        // Hidden block at 32 (the explicit arguments end there).
        let kss = if v5 {
            for (kind, off, size) in [
                ("hidden_block_count_x", 0, 4),
                ("hidden_block_count_y", 4, 4),
                ("hidden_block_count_z", 8, 4),
                ("hidden_group_size_x", 12, 2),
                ("hidden_group_size_y", 14, 2),
                ("hidden_group_size_z", 16, 2),
                ("hidden_remainder_x", 18, 2),
                ("hidden_remainder_y", 20, 2),
                ("hidden_remainder_z", 22, 2),
                ("hidden_global_offset_x", 40, 8),
                ("hidden_global_offset_y", 48, 8),
                ("hidden_global_offset_z", 56, 8),
                ("hidden_grid_dims", 64, 2),
                ("hidden_printf_buffer", 72, 8),
                ("hidden_hostcall_buffer", 80, 8),
                ("hidden_multigrid_sync_arg", 88, 8),
                ("hidden_heap_v1", 96, 8),
                ("hidden_default_queue", 104, 8),
                ("hidden_completion_action", 112, 8),
                ("hidden_dynamic_lds_size", 120, 4),
                ("hidden_private_base", 192, 4),
                ("hidden_shared_base", 196, 4),
                ("hidden_queue_ptr", 200, 8),
            ] {
                k0_args.push(hidden(kind, 32 + off, size));
            }
            32 + 256
        } else {
            for (kind, off) in [
                ("hidden_global_offset_x", 0),
                ("hidden_global_offset_y", 8),
                ("hidden_global_offset_z", 16),
                ("hidden_printf_buffer", 24),
                ("hidden_default_queue", 32),
                ("hidden_completion_action", 40),
                ("hidden_multigrid_sync_arg", 48),
            ] {
                k0_args.push(hidden(kind, 32 + off, 8));
            }
            32 + 56
        };
        let mut k0 = m(&[
            (".name", s("foo")),
            (".symbol", s("foo.kd")),
            (".language", s("OpenCL C")),
            (".language_version", ints(&[2, 0])),
            (".args", Value::Array(k0_args)),
            (".reqd_workgroup_size", ints(&[64, 1, 1])),
            (".workgroup_size_hint", ints(&[8, 8, 1])),
            (".vec_type_hint", s("float4")),
            (".kernarg_segment_size", u(kss)),
            (".group_segment_fixed_size", u(0)),
            (".private_segment_fixed_size", u(16)),
            (".kernarg_segment_align", u(8)),
            (".wavefront_size", u(64)),
            (".sgpr_count", u(40)),
            (".vgpr_count", u(12)),
            (".agpr_count", u(0)),
            (".max_flat_workgroup_size", u(64)),
            (".sgpr_spill_count", u(0)),
            (".vgpr_spill_count", u(0)),
        ]);
        let mut k1 = m(&[
            (".name", s("bar")),
            (".symbol", s("bar.kd")),
            (".args", Value::Array(vec![])),
            (".kernarg_segment_size", u(0)),
            (".group_segment_fixed_size", u(0)),
            (".private_segment_fixed_size", u(0)),
            (".kernarg_segment_align", u(4)),
            (".wavefront_size", u(64)),
            (".sgpr_count", u(4)),
            (".vgpr_count", u(0)),
            (".max_flat_workgroup_size", u(256)),
            (".kind", s("init")),
            (".max_num_workgroups_x", u(16)),
            (".max_num_workgroups_y", u(1)),
            (".max_num_workgroups_z", u(1)),
        ]);
        if v5 {
            set(&mut k0, ".uses_dynamic_stack", Value::Bool(false));
            set(&mut k0, ".uniform_work_group_size", u(1));
            set(&mut k1, ".uses_dynamic_stack", Value::Bool(true));
        }
        if cov >= CodeObjectVersion::V6 {
            set(&mut k1, ".cluster_dims", ints(&[1, 1, 1]));
        }
        let version = cov.metadata_version().expect("V3+");
        let mut doc = m(&[
            ("amdhsa.version", ints(&version)),
            (
                "amdhsa.printf",
                Value::Array(vec![s("1:1:4:%d\n"), s("2:0:a:b:c")]),
            ),
            ("amdhsa.kernels", Value::Array(vec![k0, k1])),
        ]);
        if cov >= CodeObjectVersion::V4 {
            set(&mut doc, "amdhsa.target", s("amdgcn-amd-amdhsa--gfx90a"));
        }
        Case {
            doc,
            ctx: Context {
                cov,
                target_id: Some(gfx90a()),
            },
            raw: None,
        }
    }

    fn run(c: &Case) -> (Sink, Option<Metadata>) {
        let bytes = c.raw.clone().unwrap_or_else(|| msgpack::encode(&c.doc));
        let mut sink = Sink::new();
        let md = check(&bytes, DESC_OFFSET, &c.ctx, &mut sink);
        (sink, md)
    }

    fn reported(sink: &Sink) -> BTreeSet<&'static str> {
        sink.violations.iter().map(|v| v.rule.id).collect()
    }

    const ALL_VERSIONS: [CodeObjectVersion; 4] = [
        CodeObjectVersion::V3,
        CodeObjectVersion::V4,
        CodeObjectVersion::V5,
        CodeObjectVersion::V6,
    ];

    #[test]
    fn baselines_are_clean() {
        for cov in ALL_VERSIONS {
            let (sink, md) = run(&base(cov));
            assert!(sink.violations.is_empty(), "{cov}: {:#?}", sink.violations);
            let md = md.expect("model");
            assert_eq!(md.kernels.len(), 2);
            assert_eq!(md.version, cov.metadata_version());
        }
    }

    #[test]
    fn model_reads_every_field() {
        let (_, md) = run(&base(CodeObjectVersion::V6));
        let md = md.unwrap();
        assert_eq!(md.target.as_deref(), Some("amdgcn-amd-amdhsa--gfx90a"));
        assert_eq!(md.printf, ["1:1:4:%d\n", "2:0:a:b:c"]);
        assert!(md.other_keys.is_empty());
        let k = &md.kernels[0];
        assert_eq!(k.name.as_deref(), Some("foo"));
        assert_eq!(k.symbol.as_deref(), Some("foo.kd"));
        assert_eq!(k.language.as_deref(), Some("OpenCL C"));
        assert_eq!(k.language_version, Some([2, 0]));
        assert_eq!(k.reqd_workgroup_size, Some([64, 1, 1]));
        assert_eq!(k.workgroup_size_hint, Some([8, 8, 1]));
        assert_eq!(k.vec_type_hint.as_deref(), Some("float4"));
        assert_eq!(k.kernarg_segment_size, Some(288));
        assert_eq!(k.private_segment_fixed_size, Some(16));
        assert_eq!(k.kernarg_segment_align, Some(8));
        assert_eq!(k.wavefront_size, Some(64));
        assert_eq!(
            (k.sgpr_count, k.vgpr_count, k.agpr_count),
            (Some(40), Some(12), Some(0))
        );
        assert_eq!(k.max_flat_workgroup_size, Some(64));
        assert_eq!(k.uses_dynamic_stack, Some(false));
        assert_eq!(k.uniform_work_group_size, Some(true));
        assert_eq!(k.workgroup_processor_mode, None);
        assert_eq!(k.args.len(), 6 + 23);
        let a = &k.args[0];
        assert_eq!(a.name.as_deref(), Some("out"));
        assert_eq!(a.type_name.as_deref(), Some("float*"));
        assert_eq!((a.offset, a.size), (Some(0), Some(8)));
        assert_eq!(a.kind(), Some(ValueKind::GlobalBuffer));
        assert_eq!(a.address_space.as_deref(), Some("global"));
        assert_eq!(a.actual_access.as_deref(), Some("write_only"));
        assert_eq!(a.is_restrict, Some(true));
        assert_eq!(k.args[2].pointee_align, Some(4));
        assert_eq!(k.args[2].is_const, Some(true));
        assert_eq!(k.args[4].is_pipe, Some(true));
        assert_eq!(k.args[4].access.as_deref(), Some("read_only"));
        let k1 = &md.kernels[1];
        assert_eq!(k1.kind.as_deref(), Some("init"));
        assert_eq!(
            (
                k1.max_num_workgroups_x,
                k1.max_num_workgroups_y,
                k1.max_num_workgroups_z
            ),
            (Some(16), Some(1), Some(1))
        );
        assert_eq!(k1.cluster_dims, Some([1, 1, 1]));
        assert_eq!(k1.uses_dynamic_stack, Some(true));
    }

    type Mutation = fn(&mut Case);

    /// For every rule: a mutation of a valid case that breaks it, and the
    /// other rules the mutation necessarily breaks too.
    fn mutations() -> Vec<(&'static str, &'static [&'static str], Mutation)> {
        use CodeObjectVersion::*;
        vec![
            ("metadata.decode", &[], |c| {
                let mut b = msgpack::encode(&c.doc);
                b.pop();
                c.raw = Some(b);
            }),
            ("metadata.decode", &[], |c| {
                c.raw = Some(vec![0x81, 0xc1, 0xc0])
            }),
            ("metadata.trailing_bytes", &[], |c| {
                let mut b = msgpack::encode(&c.doc);
                b.extend_from_slice(&[0, 0, 0]);
                c.raw = Some(b);
            }),
            ("metadata.ext_type", &["metadata.key.vendor"], |c| {
                set(&mut c.doc, "acme.blob", Value::Ext(1, vec![1, 2]))
            }),
            ("metadata.duplicate_key", &[], |c| {
                entries(kernel(&mut c.doc, 0)).push((s(".name"), s("foo")))
            }),
            // Below the schema's maps: a vendor map, and a map in an array
            // in a vendor map of a kernel.
            ("metadata.duplicate_key", &["metadata.key.vendor"], |c| {
                set(
                    &mut c.doc,
                    "acme.k",
                    m(&[("a", u(1)), ("b", u(2)), ("a", u(3))]),
                )
            }),
            ("metadata.duplicate_key", &["metadata.key.vendor"], |c| {
                set(
                    kernel(&mut c.doc, 0),
                    "acme.list",
                    Value::Array(vec![u(1), m(&[("x", u(1)), ("x", u(1))])]),
                )
            }),
            // A kernel list that is a map (of kernel maps) is the wrong
            // type, and the schema walk does not enter it: the repeat in a
            // kernel map is still found (LLVM rejects the whole note).
            ("metadata.duplicate_key", &["metadata.value.type"], |c| {
                let mut k0 = kernel(&mut c.doc, 0).clone();
                entries(&mut k0).push((s(".name"), s("again")));
                set(&mut c.doc, "amdhsa.kernels", Value::Map(vec![(u(0), k0)]))
            }),
            (
                "metadata.duplicate_key",
                &["metadata.key.unprefixed"],
                |c| {
                    let e = entries(&mut c.doc);
                    e.push((Value::F32(1.0), Value::Nil));
                    e.push((Value::F64(1.0), Value::Nil));
                },
            ),
            ("metadata.root.not_map", &[], |c| {
                c.doc = Value::Array(vec![c.doc.clone()])
            }),
            ("metadata.missing_key", &[], |c| {
                del(&mut c.doc, "amdhsa.kernels")
            }),
            ("metadata.missing_key", &[], |c| {
                del(&mut c.doc, "amdhsa.version")
            }),
            ("metadata.value.type", &[], |c| {
                set(kernel(&mut c.doc, 0), ".sgpr_count", Value::Bool(true))
            }),
            ("metadata.value.type", &[], |c| {
                set(kernel(&mut c.doc, 0), ".sgpr_count", Value::Int(-1))
            }),
            ("metadata.value.type", &[], |c| {
                set(kernel(&mut c.doc, 0), ".sgpr_count", s("many"))
            }),
            ("metadata.value.type", &[], |c| {
                set(
                    kernel(&mut c.doc, 0),
                    ".reqd_workgroup_size",
                    ints(&[64, 1]),
                )
            }),
            ("metadata.value.type", &[], |c| {
                set(kernel(&mut c.doc, 1), ".uses_dynamic_stack", u(1))
            }),
            ("metadata.value.type", &[], |c| {
                set(
                    kernel(&mut c.doc, 1),
                    ".uniform_work_group_size",
                    Value::Bool(true),
                )
            }),
            ("metadata.value.type", &[], |c| {
                set(&mut c.doc, "amdhsa.printf", Value::Array(vec![u(1)]))
            }),
            ("metadata.value.type", &[], |c| {
                if let Value::Array(a) = field(&mut c.doc, "amdhsa.kernels") {
                    a.push(u(7));
                }
            }),
            ("metadata.value.string_scalar", &[], |c| {
                set(kernel(&mut c.doc, 0), ".sgpr_count", s("0x28"))
            }),
            ("metadata.value.string_scalar", &[], |c| {
                set(arg(&mut c.doc, 0, 0), ".is_restrict", s("true"))
            }),
            ("metadata.value.enum", &[], |c| {
                set(kernel(&mut c.doc, 0), ".language", s("Fortran"))
            }),
            ("metadata.value.enum", &[], |c| {
                set(arg(&mut c.doc, 0, 0), ".actual_access", s("none"))
            }),
            ("metadata.value.enum", &[], |c| {
                set(arg(&mut c.doc, 0, 1), ".value_kind", s("by_reference"))
            }),
            ("metadata.key.unknown", &[], |c| {
                set(kernel(&mut c.doc, 0), ".frobnicate", u(1))
            }),
            ("metadata.key.unknown", &[], |c| {
                set(&mut c.doc, "amdhsa.frobnicate", u(1))
            }),
            ("metadata.key.vendor", &[], |c| {
                set(arg(&mut c.doc, 0, 1), "acme.note", u(1))
            }),
            ("metadata.key.unprefixed", &[], |c| {
                set(&mut c.doc, "extra", u(1))
            }),
            ("metadata.key.unprefixed", &[], |c| {
                entries(kernel(&mut c.doc, 1)).push((u(3), u(4)))
            }),
            ("metadata.key.version", &[], |c| {
                c.ctx.cov = V5;
                set(kernel(&mut c.doc, 0), ".cluster_dims", ints(&[1, 1, 1]));
            }),
            ("metadata.key.version", &[], |c| {
                *c = base(V3);
                set(&mut c.doc, "amdhsa.target", s("amdgcn-amd-amdhsa--gfx90a"));
            }),
            ("metadata.version.mismatch", &[], |c| {
                set(&mut c.doc, "amdhsa.version", ints(&[1, 1]))
            }),
            ("metadata.version.mismatch", &[], |c| {
                *c = base(V6);
                set(&mut c.doc, "amdhsa.version", ints(&[1, 3]));
            }),
            ("metadata.target.missing", &[], |c| {
                del(&mut c.doc, "amdhsa.target")
            }),
            ("metadata.target.invalid", &[], |c| {
                set(&mut c.doc, "amdhsa.target", s("gfx90a"))
            }),
            ("metadata.target.invalid", &[], |c| {
                set(&mut c.doc, "amdhsa.target", s("amdgcn-amd-amdhsa--gfx9999"))
            }),
            ("metadata.target.invalid", &[], |c| {
                set(
                    &mut c.doc,
                    "amdhsa.target",
                    s("amdgcn-amd-amdhsa--gfx90a+xnack"),
                )
            }),
            ("metadata.target.mismatch", &[], |c| {
                set(
                    &mut c.doc,
                    "amdhsa.target",
                    s("amdgcn-amd-amdhsa--gfx90a:xnack+"),
                )
            }),
            ("metadata.target.mismatch", &[], |c| {
                // A valid processor newer than the table, e_flags gfx90a.
                set(&mut c.doc, "amdhsa.target", s("amdgcn-amd-amdhsa--gfx1250"))
            }),
            ("metadata.target.mismatch", &[], |c| {
                set(&mut c.doc, "amdhsa.target", s("amdgcn-amd-amdhsa--gfx908"))
            }),
            ("metadata.printf.format", &[], |c| {
                set(
                    &mut c.doc,
                    "amdhsa.printf",
                    Value::Array(vec![s("x:1:4:%d")]),
                )
            }),
            ("metadata.printf.format", &[], |c| {
                set(
                    &mut c.doc,
                    "amdhsa.printf",
                    Value::Array(vec![s("1:2:4:%d")]),
                )
            }),
            ("metadata.kernel.missing_key", &[], |c| {
                del(kernel(&mut c.doc, 0), ".vgpr_count")
            }),
            ("metadata.kernel.missing_key", &[], |c| {
                del(kernel(&mut c.doc, 1), ".symbol")
            }),
            (
                "metadata.kernel.duplicate_name",
                &["metadata.kernel.symbol_name"],
                |c| set(kernel(&mut c.doc, 1), ".name", s("foo")),
            ),
            (
                "metadata.kernel.duplicate_symbol",
                &["metadata.kernel.symbol_name"],
                |c| set(kernel(&mut c.doc, 1), ".symbol", s("foo.kd")),
            ),
            ("metadata.kernel.symbol_name", &[], |c| {
                set(kernel(&mut c.doc, 1), ".symbol", s("bar"))
            }),
            ("metadata.kernel.kernarg_segment_align", &[], |c| {
                set(kernel(&mut c.doc, 0), ".kernarg_segment_align", u(12))
            }),
            ("metadata.kernel.wavefront_size", &[], |c| {
                set(kernel(&mut c.doc, 0), ".wavefront_size", u(32))
            }),
            ("metadata.kernel.wavefront_size", &[], |c| {
                set(kernel(&mut c.doc, 1), ".wavefront_size", u(48))
            }),
            ("metadata.kernel.max_flat_workgroup_size", &[], |c| {
                set(kernel(&mut c.doc, 0), ".max_flat_workgroup_size", u(2048))
            }),
            ("metadata.kernel.max_flat_workgroup_size", &[], |c| {
                set(kernel(&mut c.doc, 1), ".max_flat_workgroup_size", u(0))
            }),
            ("metadata.kernel.reqd_workgroup_size", &[], |c| {
                set(
                    kernel(&mut c.doc, 0),
                    ".reqd_workgroup_size",
                    ints(&[64, 0, 1]),
                )
            }),
            ("metadata.kernel.reqd_workgroup_size_limit", &[], |c| {
                set(
                    kernel(&mut c.doc, 0),
                    ".reqd_workgroup_size",
                    ints(&[64, 2, 1]),
                )
            }),
            ("metadata.kernel.workgroup_processor_mode", &[], |c| {
                set(kernel(&mut c.doc, 0), ".workgroup_processor_mode", u(1))
            }),
            ("metadata.kernel.uniform_work_group_size", &[], |c| {
                set(kernel(&mut c.doc, 0), ".uniform_work_group_size", u(2))
            }),
            ("metadata.kernel.kind", &[], |c| {
                set(kernel(&mut c.doc, 1), ".kind", s("weird"))
            }),
            ("metadata.arg.missing_key", &[], |c| {
                del(arg(&mut c.doc, 0, 1), ".value_kind")
            }),
            ("metadata.arg.missing_key", &[], |c| {
                del(arg(&mut c.doc, 0, 1), ".offset")
            }),
            ("metadata.arg.value_type", &[], |c| {
                set(arg(&mut c.doc, 0, 1), ".value_type", s("i8"))
            }),
            ("metadata.arg.key_kind", &[], |c| {
                set(arg(&mut c.doc, 0, 0), ".pointee_align", u(4))
            }),
            ("metadata.arg.key_kind", &[], |c| {
                set(arg(&mut c.doc, 0, 1), ".is_pipe", Value::Bool(false))
            }),
            ("metadata.arg.address_space", &[], |c| {
                set(arg(&mut c.doc, 0, 2), ".address_space", s("global"))
            }),
            ("metadata.arg.address_space", &[], |c| {
                set(arg(&mut c.doc, 0, 0), ".address_space", s("local"))
            }),
            ("metadata.arg.kind_size", &[], |c| {
                set(arg(&mut c.doc, 0, 0), ".size", u(4))
            }),
            ("metadata.arg.pointee_align", &[], |c| {
                set(arg(&mut c.doc, 0, 2), ".pointee_align", u(3))
            }),
            ("metadata.arg.misaligned", &[], |c| {
                set(arg(&mut c.doc, 0, 2), ".offset", u(10))
            }),
            ("metadata.arg.out_of_bounds", &[], |c| {
                set(kernel(&mut c.doc, 0), ".kernarg_segment_size", u(200))
            }),
            (
                "metadata.arg.out_of_bounds",
                &["metadata.arg.misaligned"],
                |c| args(&mut c.doc, 1).push(hidden("hidden_none", u64::MAX, 8)),
            ),
            ("metadata.arg.overlap", &[], |c| {
                set(arg(&mut c.doc, 0, 1), ".offset", u(4))
            }),
            ("metadata.arg.hidden_version", &[], |c| {
                *c = base(V4);
                set(kernel(&mut c.doc, 0), ".kernarg_segment_size", u(96));
                args(&mut c.doc, 0).push(hidden("hidden_block_count_x", 88, 4));
            }),
            ("metadata.arg.hidden_layout", &[], |c| {
                set(arg(&mut c.doc, 0, 6 + 16), ".offset", u(160))
            }),
            ("metadata.arg.hidden_layout", &[], |c| {
                *c = base(V4);
                set(
                    arg(&mut c.doc, 0, 6),
                    ".value_kind",
                    s("hidden_hostcall_buffer"),
                );
                set(
                    arg(&mut c.doc, 0, 9),
                    ".value_kind",
                    s("hidden_global_offset_x"),
                );
            }),
        ]
    }

    #[test]
    fn each_mutation_breaks_its_rule() {
        for cov in [CodeObjectVersion::V5, CodeObjectVersion::V6] {
            for (i, (id, also, f)) in mutations().into_iter().enumerate() {
                let mut c = base(cov);
                f(&mut c);
                let (sink, _) = run(&c);
                let got = reported(&sink);
                let want: BTreeSet<&str> =
                    std::iter::once(id).chain(also.iter().copied()).collect();
                assert_eq!(
                    got, want,
                    "mutation {i} ({id}) at {cov}: {:#?}",
                    sink.violations
                );
            }
        }
    }

    #[test]
    fn every_rule_has_a_mutation() {
        let covered: BTreeSet<&str> = mutations().iter().map(|(id, _, _)| *id).collect();
        for r in RULES {
            assert!(covered.contains(r.id), "rule {} has no mutation test", r.id);
        }
        let declared: BTreeSet<&str> = RULES.iter().map(|r| r.id).collect();
        for id in &covered {
            assert!(declared.contains(id), "mutation for undeclared rule {id}");
        }
    }

    #[test]
    fn targets_beyond_the_table_are_not_invalid() {
        // LLVM 22 writes gfx1250 (mach 0x49, which the ELF check reports
        // as unmodelled); the retired gfx940 is modelled.
        for (target, elf) in [
            ("amdgcn-amd-amdhsa--gfx1250:xnack-", None),
            (
                "amdgcn-amd-amdhsa--gfx940:sramecc+",
                TargetId::parse("gfx940:sramecc+").ok(),
            ),
        ] {
            let mut c = base(CodeObjectVersion::V5);
            set(&mut c.doc, "amdhsa.target", s(target));
            c.ctx.target_id = elf;
            let (sink, _) = run(&c);
            assert!(
                sink.violations.is_empty(),
                "{target}: {:#?}",
                sink.violations
            );
        }
    }

    #[test]
    fn kernel_context_is_set() {
        let mut c = base(CodeObjectVersion::V5);
        set(kernel(&mut c.doc, 1), ".wavefront_size", u(48));
        set(&mut c.doc, "amdhsa.version", ints(&[1, 0]));
        let (sink, _) = run(&c);
        let w = sink
            .violations
            .iter()
            .find(|v| v.rule == &WAVEFRONT_SIZE)
            .unwrap();
        assert_eq!(w.kernel.as_deref(), Some("bar"));
        let v = sink
            .violations
            .iter()
            .find(|v| v.rule == &VERSION_MISMATCH)
            .unwrap();
        assert_eq!(v.kernel, None);
    }

    #[test]
    fn offsets_point_at_the_offending_value() {
        let mut c = base(CodeObjectVersion::V5);
        set(kernel(&mut c.doc, 0), ".sgpr_count", Value::Bool(true));
        let bytes = msgpack::encode(&c.doc);
        let key = b"\xab.sgpr_count";
        let at = bytes.windows(key.len()).position(|w| w == key).unwrap() + key.len();
        assert_eq!(bytes[at], 0xc3);
        let (sink, _) = run(&c);
        let v = sink
            .violations
            .iter()
            .find(|v| v.rule == &VALUE_TYPE)
            .unwrap();
        assert_eq!(v.offset, Some(DESC_OFFSET + at as u64));

        c.raw = Some(bytes[..10].to_vec());
        let (sink, md) = run(&c);
        assert!(md.is_none());
        // The string at offset 1 is cut short: its payload starts at 2.
        assert_eq!(sink.violations[0].offset, Some(DESC_OFFSET + 2));
    }

    #[test]
    fn first_extension_value_is_reported_at_its_format_byte() {
        let mut c = base(CodeObjectVersion::V5);
        set(
            kernel(&mut c.doc, 0),
            "x.first",
            Value::Ext(5, vec![1, 2, 3]),
        );
        set(kernel(&mut c.doc, 0), "x.second", Value::Ext(6, vec![9]));
        let bytes = msgpack::encode(&c.doc);
        let first = [0xc7, 3, 5, 1, 2, 3];
        let at = bytes.windows(first.len()).position(|w| w == first).unwrap();
        let (sink, _) = run(&c);
        let exts: Vec<_> = sink
            .violations
            .iter()
            .filter(|v| v.rule == &EXT_TYPE)
            .collect();
        assert_eq!(exts.len(), 1);
        assert_eq!(exts[0].offset, Some(DESC_OFFSET + at as u64));
    }

    #[test]
    fn severities_follow_the_policy() {
        // Anything LLVM's strict reader or verifier rejects is an error.
        for r in [
            &DECODE,
            &EXT_TYPE,
            &DUPLICATE_KEY,
            &ROOT_NOT_MAP,
            &MISSING_KEY,
            &VALUE_TYPE,
            &VALUE_ENUM,
        ] {
            assert_eq!(r.severity, Severity::Error, "{}", r.id);
        }
        for r in [&KEY_UNKNOWN, &KEY_VENDOR, &ARG_VALUE_TYPE, &ARG_KEY_KIND] {
            assert_eq!(r.severity, Severity::Info, "{}", r.id);
        }
    }

    #[test]
    fn value_kinds_round_trip() {
        assert_eq!(ValueKind::ALL.len(), VALUE_KIND_NAMES.len());
        for (k, name) in ValueKind::ALL.iter().zip(VALUE_KIND_NAMES) {
            assert_eq!(k.as_str(), *name);
            assert_eq!(ValueKind::parse(name), Some(*k));
        }
        let v5: Vec<_> = ValueKind::ALL.iter().filter(|k| k.since_v5()).collect();
        assert_eq!(v5.len(), 15);
        assert!(v5.iter().all(|k| k.is_hidden()));
        // Every hidden kind except hidden_none has a V5 slot; slots do not overlap.
        let mut slots: Vec<(u64, u64)> = ValueKind::ALL
            .iter()
            .filter(|k| k.is_hidden() && **k != ValueKind::HiddenNone)
            .map(|k| k.hidden_slot(CodeObjectVersion::V5).unwrap())
            .collect();
        slots.sort();
        assert!(
            slots.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0),
            "{slots:?}"
        );
        assert!(slots.iter().all(|(o, s)| o + s <= 256 && o % s == 0));
    }

    #[test]
    fn fast_hash_separates_tails_and_blocks() {
        use std::hash::BuildHasher;
        let h = |s: &str| FastHash.hash_one(s);
        let keys = [
            "",
            "a",
            "a\0",
            "\0a",
            "abcdefghijklmnop",
            "abcdefghijklmnopq",
            "ijklmnopabcdefgh",
            "abcdefghijklmnop\0",
        ];
        let hashes: BTreeSet<u64> = keys.iter().map(|k| h(k)).collect();
        assert_eq!(hashes.len(), keys.len());
        assert_eq!(h("kernel.kd"), h("kernel.kd"));
    }

    #[test]
    fn yaml_scalars() {
        assert_eq!(parse_yaml_uint("40"), Some(40));
        assert_eq!(parse_yaml_uint("0x28"), Some(40));
        assert_eq!(parse_yaml_uint("0b101"), Some(5));
        assert_eq!(parse_yaml_uint("050"), Some(40));
        assert_eq!(parse_yaml_uint("0o50"), Some(40));
        assert_eq!(parse_yaml_uint("0"), Some(0));
        assert_eq!(parse_yaml_uint("+4"), None);
        assert_eq!(parse_yaml_uint("08"), None);
        assert_eq!(parse_yaml_uint("0x"), None);
        assert_eq!(parse_yaml_uint(""), None);
        assert_eq!(parse_yaml_bool("Yes"), Some(true));
        assert_eq!(parse_yaml_bool("OFF"), Some(false));
        assert_eq!(parse_yaml_bool("1"), None);
        assert!(printf_ok("1:0:"));
        assert!(printf_ok("3:2:4:8:a:b"));
        assert!(!printf_ok("1:1:4"));
        assert!(!printf_ok("1"));
        assert!(!printf_ok("1:4294967295:4"));
    }

    #[test]
    fn key_eq_is_byte_equality() {
        // Every length class (under 4, 4..8, 8..=16, longer), with one
        // byte changed at each position.
        for n in 0..40usize {
            let a: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(key_eq(&a, &a), "{n}");
            for i in 0..n {
                let mut b = a.clone();
                b[i] ^= 0x20;
                assert!(!key_eq(&a, &b), "{n} {i}");
            }
            let mut longer = a.clone();
            longer.push(b'z');
            assert!(!key_eq(&a, &longer), "{n}");
        }
        assert_eq!(bytes_index(ACCESSES, b"write_only"), Some(1));
        assert_eq!(bytes_index(ACCESSES, b"write_onlx"), None);
    }

    proptest::proptest! {
        #[test]
        fn key_eq_agrees_with_eq(
            a in proptest::collection::vec(0u8..3, 0..24),
            b in proptest::collection::vec(0u8..3, 0..24),
        ) {
            proptest::prop_assert_eq!(key_eq(&a, &b), a == b);
        }

        #[test]
        fn check_never_panics(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            let ctx = Context { cov: CodeObjectVersion::V5, target_id: None };
            let mut sink = Sink::new();
            let _ = check(&bytes, u64::MAX - 3, &ctx, &mut sink);
        }

        #[test]
        fn mutated_baselines_never_panic(cut in 0usize..4000, flip in proptest::prelude::any::<u8>()) {
            let c = base(CodeObjectVersion::V5);
            let mut bytes = msgpack::encode(&c.doc);
            let n = bytes.len();
            bytes[cut % n] ^= flip;
            let mut sink = Sink::new();
            let _ = check(&bytes, 0, &c.ctx, &mut sink);
        }
    }
}
