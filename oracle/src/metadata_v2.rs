//! Code object V2 metadata: the YAML text in the `NT_AMD_HSA_METADATA`
//! note (owner "AMD").
//!
//! [`check`] reads the text with [`crate::yaml`], builds the typed model
//! ([`MetadataV2`], [`KernelV2`], [`ArgV2`], [`CodePropsV2`]) and reports
//! every rule it breaks. Keys, value types, integer widths, enumerations
//! and which keys are required follow LLVM 14's V2 reader and writer
//! (`llvm/lib/Support/AMDGPUMetadata.cpp`, `llvm/include/llvm/Support/
//! AMDGPUMetadata.h`, `MetadataStreamerYamlV2` in
//! `llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp`), checked by
//! feeding YAML to `llvm-mc-14 --amdhsa-code-object-version=2` (which runs
//! `HSAMD::fromString` on `.amd_amdgpu_hsa_metadata` blocks) and by
//! compiling kernels with `llc-14`. amdgpu-usage.rst "Code Object V2
//! Metadata" is followed where LLVM agrees with it (see
//! docs/errata-v2meta.md for where it does not).
//!
//! Severity policy: what LLVM's V2 reader rejects (a missing required key,
//! a value of the wrong type or out of its field's range, an unknown
//! enumerator) is an error, and so is what breaks the kernel argument
//! layout a runtime computes; YAML that LLVM accepts but that other readers
//! may take differently, and keys LLVM's reader rejects but the document
//! allows, are warnings.
//!
//! V2 arguments have no offsets: a runtime places each argument at the
//! previous end rounded up to its `Align`, in order, as LLVM's
//! `getKernArgSegmentSize` does. The model records these computed offsets
//! ([`ArgV2::offset`]) and the layout rules use them.

use crate::metadata::{parse_yaml_bool, parse_yaml_uint, printf_ok, ValueKind};
use crate::rules::{Rule, Sink};
use crate::targets::{CodeObjectVersion, FeatureSetting, TargetId};
use crate::yaml::{self, Entry, ErrorKind, Node, Style, Value};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

crate::declare_rules! {
    DECODE = (Error, "metadata.v2.decode",
        "The NT_AMD_HSA_METADATA description must be well-formed YAML (UTF-8, no control characters, consistent indentation, terminated quotes).",
        "amdgpu-usage.rst: Code Object V2 Metadata; llvm/lib/Support/YAMLParser.cpp");
    YAML_UNSUPPORTED = (Warning, "metadata.v2.yaml_unsupported",
        "The metadata uses YAML the oracle does not read (anchors, aliases, tags, block scalars, multi-line scalars, complex keys, several documents, nesting deeper than 64), so it is not checked; LLVM never writes these.",
        "llvm/lib/Support/YAMLTraits.cpp (the writer HSAMD::toString uses)");
    NUL_TERMINATED = (Info, "metadata.v2.nul_terminated",
        "The YAML text ends in NUL bytes: LLVM 14 writes none (the document leaves it open, llvm-readobj assumes one); they are ignored.",
        "amdgpu-usage.rst: Code Object V2 Metadata (TODO on NUL termination); llvm/lib/Target/AMDGPU/MCTargetDesc/AMDGPUTargetStreamer.cpp (EmitHSAMetadata)");
    ROOT_NOT_MAP = (Error, "metadata.v2.root_not_map",
        "The document must be a mapping.",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Metadata Map");
    MISSING_KEY = (Error, "metadata.v2.missing_key",
        "The top-level mapping must have Version (LLVM's reader requires only Version; it omits Kernels when there are none).",
        "llvm/lib/Support/AMDGPUMetadata.cpp (MappingTraits<HSAMD::Metadata>)");
    KERNEL_MISSING_KEY = (Error, "metadata.v2.kernel.missing_key",
        "A kernel mapping must have Name and SymbolName.",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Metadata Map; llvm/lib/Support/AMDGPUMetadata.cpp");
    ARG_MISSING_KEY = (Error, "metadata.v2.arg.missing_key",
        "An argument mapping must have Size, Align and ValueKind.",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Argument Metadata Map; llvm/lib/Support/AMDGPUMetadata.cpp");
    CODE_PROPS_MISSING_KEY = (Error, "metadata.v2.code_props.missing_key",
        "A CodeProps mapping must have KernargSegmentSize, GroupSegmentFixedSize, PrivateSegmentFixedSize, KernargSegmentAlign and WavefrontSize (LLVM omits NumSGPRs, NumVGPRs and other optional keys when they are 0).",
        "llvm/lib/Support/AMDGPUMetadata.cpp (MappingTraits<Kernel::CodeProps::Metadata>)");
    CODE_PROPS_MISSING = (Warning, "metadata.v2.kernel.code_props_missing",
        "A kernel should have CodeProps: LLVM always writes it, and without it a reader takes every segment size, the alignment and the wavefront size as 0.",
        "llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (MetadataStreamerYamlV2::emitKernel)");
    VALUE_TYPE = (Error, "metadata.v2.value.type",
        "Each known key must have the kind of value LLVM's reader takes: a non-empty scalar, an unsigned integer (decimal, 0x, 0b, 0o or leading-0 octal), a boolean, a sequence or a mapping.",
        "llvm/lib/Support/AMDGPUMetadata.cpp; llvm/lib/Support/YAMLTraits.cpp (ScalarTraits)");
    VALUE_RANGE = (Error, "metadata.v2.value.range",
        "Integers must fit LLVM's field: 16 bits for NumSGPRs, NumVGPRs, NumSpilledSGPRs, NumSpilledVGPRs and the DebugProps registers, 64 bits for KernargSegmentSize, 32 bits elsewhere.",
        "llvm/include/llvm/Support/AMDGPUMetadata.h; llvm-mc-14 (\"out of range number\")");
    VALUE_ENUM = (Error, "metadata.v2.value.enum",
        "ValueKind, ValueType, AddrSpaceQual, AccQual and ActualAccQual must be one of LLVM's enumerators, spelled exactly (AccQual also takes Default).",
        "llvm/lib/Support/AMDGPUMetadata.cpp (ScalarEnumerationTraits)");
    SCALAR_STYLE = (Warning, "metadata.v2.value.scalar_style",
        "Integers and booleans should be plain scalars and booleans true or false, as LLVM writes them: LLVM's reader also takes quoted scalars and yes/no/on/off/y/n, but YAML types a quoted scalar as a string and the document names only true and false.",
        "amdgpu-usage.rst: Code Object V2 Metadata (boolean values)");
    VALUE_LENGTH = (Warning, "metadata.v2.value.length",
        "LanguageVersion should have 2 integers, ReqdWorkGroupSize and WorkGroupSizeHint 3 (LLVM's reader takes any length; LLVM writes these lengths only).",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Metadata Map, Kernel Attribute Metadata Map");
    DUPLICATE_KEY = (Error, "metadata.v2.duplicate_key",
        "A mapping must not repeat a key: YAML forbids it, LLVM 14's reader silently keeps the last value and LLVM 19's YAML reader rejects the document.",
        "YAML 1.2 (mapping keys are unique); llvm-mc-14 and llvm-mc-19 (\"duplicated mapping key\")");
    KEY_UNKNOWN = (Warning, "metadata.v2.key.unknown",
        "A key that LLVM's V2 mapping does not define: LLVM's reader rejects the whole metadata for it (vendor-prefixed keys too, although the document allows vendor-name. prefixes).",
        "amdgpu-usage.rst: Code Object V2 Metadata (vendor-name prefix); llvm-mc-14 (\"unknown key\")");
    VERSION = (Warning, "metadata.v2.version",
        "Version should be [1, 0], the only V2 metadata version (LLVM's reader accepts any list of integers).",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Metadata Map; llvm/include/llvm/Support/AMDGPUMetadata.h (VersionMajorV2, VersionMinorV2)");
    PRINTF_FORMAT = (Warning, "metadata.v2.printf.format",
        "Each Printf entry should read ID:N:S[0]:...:S[N-1]:FormatString with ID, N and the sizes as 32-bit decimal integers.",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Metadata Map (Printf)");
    KERNEL_DUPLICATE = (Error, "metadata.v2.kernel.duplicate",
        "Two kernels must not share a Name or a SymbolName: in V2 the Name is also the kernel's ELF symbol (STT_AMDGPU_HSA_KERNEL), so runtimes look kernels up by it.",
        "llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (emitKernel); llc-14 --amdhsa-code-object-version=2");
    KERNEL_SYMBOL_NAME = (Warning, "metadata.v2.kernel.symbol_name",
        "SymbolName should be Name followed by \"@kd\", as LLVM writes it (no ELF symbol has that name; the amd_kernel_code_t symbol is Name).",
        "llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (MetadataStreamerYamlV2::emitKernel)");
    REQD_WORK_GROUP_SIZE = (Error, "metadata.v2.kernel.reqd_work_group_size",
        "ReqdWorkGroupSize must be 0, 0, 0 or have every value at least 1.",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Attribute Metadata Map");
    REQD_WORK_GROUP_SIZE_LIMIT = (Warning, "metadata.v2.kernel.reqd_work_group_size_limit",
        "The product of ReqdWorkGroupSize should not exceed MaxFlatWorkGroupSize.",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Code Properties Metadata Map (MaxFlatWorkGroupSize)");
    KERNARG_SEGMENT_ALIGN = (Error, "metadata.v2.code_props.kernarg_segment_align",
        "KernargSegmentAlign must be a power of two.",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Code Properties Metadata Map");
    WAVEFRONT_SIZE = (Error, "metadata.v2.code_props.wavefront_size",
        "WavefrontSize must be 32 or 64 and a size the target supports (every processor LLVM 14 compiles V2 for is wave64).",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Code Properties Metadata Map; llvm/lib/Target/AMDGPU/GCNProcessors.td");
    MAX_FLAT_WORK_GROUP_SIZE = (Error, "metadata.v2.code_props.max_flat_work_group_size",
        "MaxFlatWorkGroupSize, when given, must be between 1 and 1024.",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Code Properties Metadata Map; llvm/lib/Target/AMDGPU/AMDGPUSubtarget.cpp");
    XNACK = (Warning, "metadata.v2.code_props.xnack",
        "IsXNACKEnabled should agree with the xnack bit (0x100) of e_flags on processors that have XNACK (LLVM writes both from the same setting).",
        "llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (getHSACodeProps); llc-14 --amdhsa-code-object-version=2");
    ARG_ALIGN = (Error, "metadata.v2.arg.align",
        "An argument's Align must be a power of two: runtimes place each argument at the previous end rounded up to it.",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Argument Metadata Map (Align)");
    ARG_ALIGN_SEGMENT = (Warning, "metadata.v2.arg.align_exceeds_segment",
        "No argument's Align should exceed KernargSegmentAlign (LLVM makes KernargSegmentAlign the largest argument alignment, at least 4).",
        "llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (getHSACodeProps)");
    ARG_POINTEE_ALIGN = (Error, "metadata.v2.arg.pointee_align",
        "PointeeAlign, when not 0, must be a power of two.",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Argument Metadata Map (PointeeAlign)");
    ARG_VALUE_TYPE = (Info, "metadata.v2.arg.value_type",
        "ValueType is deprecated: LLVM 14 no longer writes it; readers accept it for compatibility.",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Argument Metadata Map; llvm/lib/Support/AMDGPUMetadata.cpp");
    ARG_KEY_KIND = (Info, "metadata.v2.arg.key_kind",
        "A key LLVM only writes for other value kinds: PointeeAlign (DynamicSharedPointer), AddrSpaceQual (pointer kinds, not ByValue or the hidden global offsets), IsPipe (Pipe).",
        "llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (MetadataStreamerYamlV2::emitKernelArg)");
    ARG_ADDRESS_SPACE = (Warning, "metadata.v2.arg.address_space",
        "A DynamicSharedPointer should be in the Local address space, and a GlobalBuffer should not be.",
        "llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (getValueKind)");
    ARG_KIND_SIZE = (Warning, "metadata.v2.arg.kind_size",
        "Pointer-like arguments should have pointer size: 8 bytes for Global/Constant/Generic GlobalBuffer, Image, Sampler, Pipe and Queue; 4 for DynamicSharedPointer.",
        "llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp; amdgpu-usage.rst: Address Spaces");
    ARG_MISALIGNED = (Warning, "metadata.v2.arg.misaligned",
        "A pointer or hidden argument's computed offset should be a multiple of its natural alignment (its size: 2, 4 or 8).",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Argument Metadata Map (Align)");
    ARG_OUT_OF_BOUNDS = (Error, "metadata.v2.arg.out_of_bounds",
        "Every argument, placed in order at the previous end rounded up to its Align, must end within KernargSegmentSize.",
        "amdgpu-usage.rst: AMDHSA Code Object V2 Kernel Code Properties Metadata Map (KernargSegmentSize); llvm/lib/Target/AMDGPU/AMDGPUSubtarget.cpp (getKernArgSegmentSize)");
    ARG_HIDDEN_LAYOUT = (Warning, "metadata.v2.arg.hidden_layout",
        "Hidden arguments should be 8 bytes each, in LLVM's slot order (global offsets X, Y, Z, then printf or hostcall buffer, default queue, completion action, multi-grid sync arg, any slot HiddenNone), starting at the end of the explicit arguments rounded up to 8.",
        "llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (MetadataStreamerYamlV2::emitHiddenKernelArgs)");
}

/// What the checker knows about the code object around the note.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context {
    /// Target ID decoded from `e_flags` (V2 layout), if the mach is known.
    pub target_id: Option<TargetId>,
}

/// Typed view of V2 metadata. Keys whose value has the wrong type are left
/// out (and reported); of a repeated key the last value counts, as in
/// LLVM 14.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MetadataV2 {
    /// `Version`, as written (LLVM writes `[1, 0]`).
    pub version: Option<Vec<u64>>,
    /// `Printf`: encoded printf format descriptions.
    pub printf: Vec<String>,
    /// `Kernels`.
    pub kernels: Vec<KernelV2>,
    /// Keys of the top-level mapping LLVM does not define.
    pub other_keys: Vec<String>,
}

/// One kernel (a mapping in `Kernels`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct KernelV2 {
    /// `Name`: the kernel's name, which is also its `amd_kernel_code_t`
    /// ELF symbol.
    pub name: Option<String>,
    /// `SymbolName`: LLVM writes `Name@kd`.
    pub symbol_name: Option<String>,
    /// `Language`, e.g. `OpenCL C`.
    pub language: Option<String>,
    /// `LanguageVersion`: [major, minor].
    pub language_version: Option<Vec<u64>>,
    /// `Attrs`, if present.
    pub attrs: Option<AttrsV2>,
    /// `Args`, in order.
    pub args: Vec<ArgV2>,
    /// `CodeProps`, if present.
    pub code_props: Option<CodePropsV2>,
    /// `DebugProps`, if present.
    pub debug_props: Option<DebugPropsV2>,
    /// Keys LLVM does not define.
    pub other_keys: Vec<String>,
}

/// `Attrs` of a kernel.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AttrsV2 {
    /// `ReqdWorkGroupSize`: X, Y, Z.
    pub reqd_work_group_size: Option<Vec<u64>>,
    /// `WorkGroupSizeHint`: X, Y, Z.
    pub work_group_size_hint: Option<Vec<u64>>,
    /// `VecTypeHint`.
    pub vec_type_hint: Option<String>,
    /// `RuntimeHandle`.
    pub runtime_handle: Option<String>,
    /// Keys LLVM does not define.
    pub other_keys: Vec<String>,
}

/// One kernel argument (a mapping in `Args`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ArgV2 {
    /// `Name`.
    pub name: Option<String>,
    /// `TypeName`.
    pub type_name: Option<String>,
    /// `Size` in bytes.
    pub size: Option<u64>,
    /// `Align` in bytes.
    pub align: Option<u64>,
    /// `ValueKind`, as written (see [`ArgV2::kind`]).
    pub value_kind: Option<String>,
    /// `ValueType` (deprecated).
    pub value_type: Option<String>,
    /// `PointeeAlign` (0 or absent: none).
    pub pointee_align: Option<u64>,
    /// `AddrSpaceQual`.
    pub addr_space_qual: Option<String>,
    /// `AccQual`.
    pub acc_qual: Option<String>,
    /// `ActualAccQual`.
    pub actual_acc_qual: Option<String>,
    /// `IsConst`.
    pub is_const: Option<bool>,
    /// `IsRestrict`.
    pub is_restrict: Option<bool>,
    /// `IsVolatile`.
    pub is_volatile: Option<bool>,
    /// `IsPipe`.
    pub is_pipe: Option<bool>,
    /// Offset in the kernarg segment, computed (not a key): the end of the
    /// previous argument rounded up to `Align`. `None` once an earlier
    /// argument lacks a usable `Size` or `Align`.
    pub offset: Option<u64>,
    /// Keys LLVM does not define.
    pub other_keys: Vec<String>,
}

impl ArgV2 {
    /// The value kind, if it is one LLVM knows, in the V3+ model's terms.
    pub fn kind(&self) -> Option<ValueKind> {
        self.value_kind.as_deref().and_then(value_kind)
    }
}

/// `CodeProps` of a kernel, as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CodePropsV2 {
    /// `KernargSegmentSize`.
    pub kernarg_segment_size: Option<u64>,
    /// `GroupSegmentFixedSize`.
    pub group_segment_fixed_size: Option<u64>,
    /// `PrivateSegmentFixedSize`.
    pub private_segment_fixed_size: Option<u64>,
    /// `KernargSegmentAlign`.
    pub kernarg_segment_align: Option<u64>,
    /// `WavefrontSize`.
    pub wavefront_size: Option<u64>,
    /// `NumSGPRs` (LLVM omits it when 0).
    pub num_sgprs: Option<u64>,
    /// `NumVGPRs` (LLVM omits it when 0).
    pub num_vgprs: Option<u64>,
    /// `MaxFlatWorkGroupSize`.
    pub max_flat_work_group_size: Option<u64>,
    /// `IsDynamicCallStack` (LLVM omits it when false).
    pub is_dynamic_call_stack: Option<bool>,
    /// `IsXNACKEnabled` (LLVM omits it when false).
    pub is_xnack_enabled: Option<bool>,
    /// `NumSpilledSGPRs`.
    pub num_spilled_sgprs: Option<u64>,
    /// `NumSpilledVGPRs`.
    pub num_spilled_vgprs: Option<u64>,
    /// Keys LLVM does not define.
    pub other_keys: Vec<String>,
}

/// [`CodePropsV2`] with LLVM's defaults for absent keys (what LLVM's
/// reader and writer assume: 0 and false).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct EffectiveCodeProps {
    /// `KernargSegmentSize`.
    pub kernarg_segment_size: u64,
    /// `GroupSegmentFixedSize`.
    pub group_segment_fixed_size: u64,
    /// `PrivateSegmentFixedSize`.
    pub private_segment_fixed_size: u64,
    /// `KernargSegmentAlign`.
    pub kernarg_segment_align: u64,
    /// `WavefrontSize`.
    pub wavefront_size: u64,
    /// `NumSGPRs`.
    pub num_sgprs: u64,
    /// `NumVGPRs`.
    pub num_vgprs: u64,
    /// `MaxFlatWorkGroupSize`.
    pub max_flat_work_group_size: u64,
    /// `IsDynamicCallStack`.
    pub is_dynamic_call_stack: bool,
    /// `IsXNACKEnabled`.
    pub is_xnack_enabled: bool,
    /// `NumSpilledSGPRs`.
    pub num_spilled_sgprs: u64,
    /// `NumSpilledVGPRs`.
    pub num_spilled_vgprs: u64,
}

impl CodePropsV2 {
    /// The values with absent keys replaced by LLVM's defaults.
    pub fn effective(&self) -> EffectiveCodeProps {
        EffectiveCodeProps {
            kernarg_segment_size: self.kernarg_segment_size.unwrap_or(0),
            group_segment_fixed_size: self.group_segment_fixed_size.unwrap_or(0),
            private_segment_fixed_size: self.private_segment_fixed_size.unwrap_or(0),
            kernarg_segment_align: self.kernarg_segment_align.unwrap_or(0),
            wavefront_size: self.wavefront_size.unwrap_or(0),
            num_sgprs: self.num_sgprs.unwrap_or(0),
            num_vgprs: self.num_vgprs.unwrap_or(0),
            max_flat_work_group_size: self.max_flat_work_group_size.unwrap_or(0),
            is_dynamic_call_stack: self.is_dynamic_call_stack.unwrap_or(false),
            is_xnack_enabled: self.is_xnack_enabled.unwrap_or(false),
            num_spilled_sgprs: self.num_spilled_sgprs.unwrap_or(0),
            num_spilled_vgprs: self.num_spilled_vgprs.unwrap_or(0),
        }
    }
}

/// `DebugProps` of a kernel (LLVM 14 writes none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DebugPropsV2 {
    /// `DebuggerABIVersion`.
    pub debugger_abi_version: Option<Vec<u64>>,
    /// `ReservedNumVGPRs`.
    pub reserved_num_vgprs: Option<u64>,
    /// `ReservedFirstVGPR`.
    pub reserved_first_vgpr: Option<u64>,
    /// `PrivateSegmentBufferSGPR`.
    pub private_segment_buffer_sgpr: Option<u64>,
    /// `WavefrontPrivateSegmentOffsetSGPR`.
    pub wavefront_private_segment_offset_sgpr: Option<u64>,
    /// Keys LLVM does not define.
    pub other_keys: Vec<String>,
}

impl MetadataV2 {
    /// The first kernel whose `Name` is `name`.
    pub fn kernel_by_name(&self, name: &str) -> Option<&KernelV2> {
        self.kernels
            .iter()
            .find(|k| k.name.as_deref() == Some(name))
    }

    /// The kernel whose `amd_kernel_code_t` is the ELF symbol `symbol`: the
    /// first with that `Name` (LLVM's convention), else the first whose
    /// `SymbolName` is `symbol` or `symbol@kd`.
    pub fn kernel_for_symbol(&self, symbol: &str) -> Option<&KernelV2> {
        self.kernel_by_name(symbol).or_else(|| {
            self.kernels.iter().find(|k| {
                k.symbol_name
                    .as_deref()
                    .is_some_and(|s| s == symbol || s.strip_suffix("@kd") == Some(symbol))
            })
        })
    }
}

impl KernelV2 {
    /// The kernel's `CodeProps` with LLVM's defaults (all 0 and false when
    /// `CodeProps` is absent, as LLVM's reader takes it).
    pub fn effective_code_props(&self) -> EffectiveCodeProps {
        self.code_props
            .as_ref()
            .map(CodePropsV2::effective)
            .unwrap_or_default()
    }
}

/// The V2 `ValueKind` spellings and the V3+ kinds they correspond to.
pub const VALUE_KINDS: [(&str, ValueKind); 16] = [
    ("ByValue", ValueKind::ByValue),
    ("GlobalBuffer", ValueKind::GlobalBuffer),
    ("DynamicSharedPointer", ValueKind::DynamicSharedPointer),
    ("Sampler", ValueKind::Sampler),
    ("Image", ValueKind::Image),
    ("Pipe", ValueKind::Pipe),
    ("Queue", ValueKind::Queue),
    ("HiddenGlobalOffsetX", ValueKind::HiddenGlobalOffsetX),
    ("HiddenGlobalOffsetY", ValueKind::HiddenGlobalOffsetY),
    ("HiddenGlobalOffsetZ", ValueKind::HiddenGlobalOffsetZ),
    ("HiddenNone", ValueKind::HiddenNone),
    ("HiddenPrintfBuffer", ValueKind::HiddenPrintfBuffer),
    ("HiddenDefaultQueue", ValueKind::HiddenDefaultQueue),
    ("HiddenCompletionAction", ValueKind::HiddenCompletionAction),
    ("HiddenMultiGridSyncArg", ValueKind::HiddenMultigridSyncArg),
    ("HiddenHostcallBuffer", ValueKind::HiddenHostcallBuffer),
];

/// The V3+ kind of a V2 `ValueKind` spelling.
pub fn value_kind(s: &str) -> Option<ValueKind> {
    VALUE_KINDS.iter().find(|(n, _)| *n == s).map(|(_, k)| *k)
}

const VALUE_KIND_NAMES: &[&str] = &[
    "ByValue",
    "GlobalBuffer",
    "DynamicSharedPointer",
    "Sampler",
    "Image",
    "Pipe",
    "Queue",
    "HiddenGlobalOffsetX",
    "HiddenGlobalOffsetY",
    "HiddenGlobalOffsetZ",
    "HiddenNone",
    "HiddenPrintfBuffer",
    "HiddenDefaultQueue",
    "HiddenCompletionAction",
    "HiddenMultiGridSyncArg",
    "HiddenHostcallBuffer",
];
/// `ValueType` enumerators (deprecated key).
pub const VALUE_TYPES: &[&str] = &[
    "Struct", "I8", "U8", "I16", "U16", "F16", "I32", "U32", "F32", "I64", "U64", "F64",
];
/// `AddrSpaceQual` enumerators.
pub const ADDR_SPACE_QUALS: &[&str] = &[
    "Private", "Global", "Constant", "Local", "Generic", "Region",
];
/// `AccQual` and `ActualAccQual` enumerators. LLVM writes `Default` for an
/// OpenCL access qualifier of `none`.
pub const ACC_QUALS: &[&str] = &["Default", "ReadOnly", "WriteOnly", "ReadWrite"];

/// The type of a known key's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    /// Any non-empty scalar.
    Str,
    /// An unsigned integer up to this maximum.
    UInt(u64),
    /// A boolean.
    Bool,
    /// A sequence of 32-bit unsigned integers.
    Ints,
    /// A sequence of scalars.
    Strs,
    /// A mapping.
    Map,
    /// A sequence of mappings.
    Maps,
    /// A scalar from this list.
    Enum(&'static [&'static str]),
}

const U16: Ty = Ty::UInt(u16::MAX as u64);
const U32: Ty = Ty::UInt(u32::MAX as u64);
const U64: Ty = Ty::UInt(u64::MAX);

/// One key a mapping may have.
struct KeyDef {
    key: &'static str,
    ty: Ty,
    required: bool,
}

const fn opt(key: &'static str, ty: Ty) -> KeyDef {
    KeyDef {
        key,
        ty,
        required: false,
    }
}
const fn req(key: &'static str, ty: Ty) -> KeyDef {
    KeyDef {
        key,
        ty,
        required: true,
    }
}

const ROOT_KEYS: &[KeyDef] = &[
    req("Version", Ty::Ints),
    opt("Printf", Ty::Strs),
    opt("Kernels", Ty::Maps),
];
const KERNEL_KEYS: &[KeyDef] = &[
    req("Name", Ty::Str),
    req("SymbolName", Ty::Str),
    opt("Language", Ty::Str),
    opt("LanguageVersion", Ty::Ints),
    opt("Attrs", Ty::Map),
    opt("Args", Ty::Maps),
    opt("CodeProps", Ty::Map),
    opt("DebugProps", Ty::Map),
];
const ATTRS_KEYS: &[KeyDef] = &[
    opt("ReqdWorkGroupSize", Ty::Ints),
    opt("WorkGroupSizeHint", Ty::Ints),
    opt("VecTypeHint", Ty::Str),
    opt("RuntimeHandle", Ty::Str),
];
const ARG_KEYS: &[KeyDef] = &[
    opt("Name", Ty::Str),
    opt("TypeName", Ty::Str),
    req("Size", U32),
    req("Align", U32),
    req("ValueKind", Ty::Enum(VALUE_KIND_NAMES)),
    opt("ValueType", Ty::Enum(VALUE_TYPES)),
    opt("PointeeAlign", U32),
    opt("AddrSpaceQual", Ty::Enum(ADDR_SPACE_QUALS)),
    opt("AccQual", Ty::Enum(ACC_QUALS)),
    opt("ActualAccQual", Ty::Enum(ACC_QUALS)),
    opt("IsConst", Ty::Bool),
    opt("IsRestrict", Ty::Bool),
    opt("IsVolatile", Ty::Bool),
    opt("IsPipe", Ty::Bool),
];
const CODE_PROPS_KEYS: &[KeyDef] = &[
    req("KernargSegmentSize", U64),
    req("GroupSegmentFixedSize", U32),
    req("PrivateSegmentFixedSize", U32),
    req("KernargSegmentAlign", U32),
    req("WavefrontSize", U32),
    opt("NumSGPRs", U16),
    opt("NumVGPRs", U16),
    opt("MaxFlatWorkGroupSize", U32),
    opt("IsDynamicCallStack", Ty::Bool),
    opt("IsXNACKEnabled", Ty::Bool),
    opt("NumSpilledSGPRs", U16),
    opt("NumSpilledVGPRs", U16),
];
const DEBUG_PROPS_KEYS: &[KeyDef] = &[
    opt("DebuggerABIVersion", Ty::Ints),
    opt("ReservedNumVGPRs", U16),
    opt("ReservedFirstVGPR", U16),
    opt("PrivateSegmentBufferSGPR", U16),
    opt("WavefrontPrivateSegmentOffsetSGPR", U16),
];

/// A value whose type was checked.
#[derive(Debug, Clone)]
enum Parsed<'d> {
    Str(&'d str),
    UInt(u64),
    Bool(bool),
    Ints(Vec<u64>),
    Strs(Vec<&'d str>),
    Map(&'d [Entry]),
    Maps(Vec<&'d [Entry]>),
}

/// The known keys of one mapping (by index in its table), with the offset
/// of each value, and the names of the other keys.
struct Fields<'d> {
    vals: Vec<Option<(Parsed<'d>, usize)>>,
    other: Vec<String>,
}

impl<'d> Fields<'d> {
    fn find(&self, defs: &[KeyDef], key: &str) -> Option<&(Parsed<'d>, usize)> {
        let i = defs.iter().position(|d| d.key == key)?;
        self.vals.get(i)?.as_ref()
    }
}

/// Looks a key up in a [`Fields`] by name; the tables are small.
struct Get<'f, 'd> {
    f: &'f Fields<'d>,
    defs: &'static [KeyDef],
}

impl<'d> Get<'_, 'd> {
    fn str(&self, key: &str) -> Option<&'d str> {
        match self.f.find(self.defs, key)? {
            (Parsed::Str(s), _) => Some(s),
            _ => None,
        }
    }
    fn string(&self, key: &str) -> Option<String> {
        self.str(key).map(str::to_owned)
    }
    fn uint(&self, key: &str) -> Option<u64> {
        match self.f.find(self.defs, key)? {
            (Parsed::UInt(u), _) => Some(*u),
            _ => None,
        }
    }
    fn bool(&self, key: &str) -> Option<bool> {
        match self.f.find(self.defs, key)? {
            (Parsed::Bool(b), _) => Some(*b),
            _ => None,
        }
    }
    fn ints(&self, key: &str) -> Option<Vec<u64>> {
        match self.f.find(self.defs, key)? {
            (Parsed::Ints(v), _) => Some(v.clone()),
            _ => None,
        }
    }
    fn strs(&self, key: &str) -> Vec<&'d str> {
        match self.f.find(self.defs, key) {
            Some((Parsed::Strs(v), _)) => v.clone(),
            _ => Vec::new(),
        }
    }
    fn map(&self, key: &str) -> Option<&'d [Entry]> {
        match self.f.find(self.defs, key)? {
            (Parsed::Map(m), _) => Some(m),
            _ => None,
        }
    }
    fn maps(&self, key: &str) -> Vec<&'d [Entry]> {
        match self.f.find(self.defs, key) {
            Some((Parsed::Maps(v), _)) => v.clone(),
            _ => Vec::new(),
        }
    }
    /// Offset of the key's value in the YAML text.
    fn at(&self, key: &str) -> Option<usize> {
        self.f.find(self.defs, key).map(|(_, o)| *o)
    }
}

struct Checker<'s> {
    base: u64,
    ctx: &'s Context,
    sink: &'s mut Sink,
}

/// Where one argument's fields are in the text, for messages.
struct ArgAt {
    size: Option<usize>,
    align: Option<usize>,
    value_type: Option<usize>,
    pointee_align: Option<usize>,
    addr_space_qual: Option<usize>,
    is_pipe: Option<usize>,
    map: usize,
}

impl Checker<'_> {
    fn report(&mut self, rule: &'static Rule, at: Option<usize>, msg: String) {
        let off = at
            .and_then(|o| u64::try_from(o).ok())
            .and_then(|o| self.base.checked_add(o));
        match off {
            Some(o) => self.sink.report_at(rule, o, msg),
            None => self.sink.report(rule, msg),
        }
    }

    /// Walks one mapping: duplicate and unknown keys, value types, required
    /// keys. `what` names the mapping in messages.
    fn scan<'d>(
        &mut self,
        entries: &'d [Entry],
        map_at: usize,
        defs: &'static [KeyDef],
        what: &str,
        missing: &'static Rule,
    ) -> Fields<'d> {
        let mut f = Fields {
            vals: defs.iter().map(|_| None).collect(),
            other: Vec::new(),
        };
        let mut seen: HashSet<&str> = HashSet::with_capacity(entries.len().min(64));
        for e in entries {
            let key = e.key.text.as_str();
            let first = seen.insert(key);
            if !first {
                self.report(
                    &DUPLICATE_KEY,
                    Some(e.key_offset),
                    format!("{what}: key {key:?} appears again (the last value counts)"),
                );
            }
            let Some(di) = defs.iter().position(|d| d.key == key) else {
                let vendor = key.find('.').is_some_and(|dot| dot > 0);
                self.report(
                    &KEY_UNKNOWN,
                    Some(e.key_offset),
                    if vendor {
                        format!("{what}: vendor key {key:?} (LLVM's reader rejects it)")
                    } else {
                        format!("{what}: unknown key {key:?}")
                    },
                );
                if first {
                    f.other.push(key.to_owned());
                }
                continue;
            };
            let Some(def) = defs.get(di) else { continue };
            let parsed = self.value(def, &e.value, what);
            if let Some(slot) = f.vals.get_mut(di) {
                // A badly typed repeat leaves the earlier good value; LLVM
                // would reject the document anyway.
                if let Some(p) = parsed {
                    *slot = Some((p, e.value.offset));
                }
            }
        }
        for def in defs {
            if def.required && !entries.iter().any(|e| e.key.text == def.key) {
                self.report(
                    missing,
                    Some(map_at),
                    format!("{what}: required key {} is missing", def.key),
                );
            }
        }
        f
    }

    /// Checks a value against its key's type.
    fn value<'d>(&mut self, def: &KeyDef, node: &'d Node, what: &str) -> Option<Parsed<'d>> {
        let key = def.key;
        let at = Some(node.offset);
        let empty_ok = |n: &Node| match &n.value {
            Value::Empty => true,
            Value::Scalar(s) => s.is_plain_null(),
            _ => false,
        };
        match def.ty {
            Ty::Str | Ty::Enum(_) => {
                let s = self.scalar(node, what, key)?;
                if let Ty::Enum(values) = def.ty {
                    if !values.contains(&s) {
                        self.report(
                            &VALUE_ENUM,
                            at,
                            format!("{what}: {key} {s:?} is not one of {values:?}"),
                        );
                        return None;
                    }
                }
                Some(Parsed::Str(s))
            }
            Ty::UInt(max) => self.uint(node, what, key, max).map(Parsed::UInt),
            Ty::Bool => self.boolean(node, what, key).map(Parsed::Bool),
            Ty::Ints => {
                if empty_ok(node) {
                    return Some(Parsed::Ints(Vec::new()));
                }
                let Value::Seq(items) = &node.value else {
                    self.type_error(node, what, key, "a sequence of integers");
                    return None;
                };
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let k = format!("{key}[{i}]");
                    out.push(self.uint(item, what, &k, u64::from(u32::MAX))?);
                }
                Some(Parsed::Ints(out))
            }
            Ty::Strs => {
                if empty_ok(node) {
                    return Some(Parsed::Strs(Vec::new()));
                }
                let Value::Seq(items) = &node.value else {
                    self.type_error(node, what, key, "a sequence of strings");
                    return None;
                };
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    if let Some(s) = self.scalar(item, what, &format!("{key}[{i}]")) {
                        out.push(s);
                    }
                }
                Some(Parsed::Strs(out))
            }
            Ty::Map => {
                if empty_ok(node) {
                    return Some(Parsed::Map(&[]));
                }
                match &node.value {
                    Value::Map(m) => Some(Parsed::Map(m)),
                    _ => {
                        self.type_error(node, what, key, "a mapping");
                        None
                    }
                }
            }
            Ty::Maps => {
                if empty_ok(node) {
                    return Some(Parsed::Maps(Vec::new()));
                }
                let Value::Seq(items) = &node.value else {
                    self.type_error(node, what, key, "a sequence of mappings");
                    return None;
                };
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match &item.value {
                        Value::Map(m) => out.push(m.as_slice()),
                        _ => self.type_error(item, what, &format!("{key}[{i}]"), "a mapping"),
                    }
                }
                Some(Parsed::Maps(out))
            }
        }
    }

    fn type_error(&mut self, node: &Node, what: &str, key: &str, want: &str) {
        self.report(
            &VALUE_TYPE,
            Some(node.offset),
            format!(
                "{what}: {key} should be {want}, found a {}",
                node.kind_name()
            ),
        );
    }

    /// The text of a non-empty scalar.
    fn scalar<'d>(&mut self, node: &'d Node, what: &str, key: &str) -> Option<&'d str> {
        match &node.value {
            Value::Scalar(s) => Some(s.text.as_str()),
            _ => {
                self.type_error(node, what, key, "a scalar");
                None
            }
        }
    }

    fn uint(&mut self, node: &Node, what: &str, key: &str, max: u64) -> Option<u64> {
        let Value::Scalar(s) = &node.value else {
            self.type_error(node, what, key, "an unsigned integer");
            return None;
        };
        let Some(v) = parse_yaml_uint(&s.text) else {
            self.report(
                &VALUE_TYPE,
                Some(node.offset),
                format!(
                    "{what}: {key} should be an unsigned integer, found {:?}",
                    s.text
                ),
            );
            return None;
        };
        if v > max {
            self.report(
                &VALUE_RANGE,
                Some(node.offset),
                format!("{what}: {key} {v} is larger than {max}, the most its field holds"),
            );
            return None;
        }
        if s.style != Style::Plain {
            self.report(
                &SCALAR_STYLE,
                Some(node.offset),
                format!("{what}: {key}: integer {v} written as a quoted string"),
            );
        }
        Some(v)
    }

    fn boolean(&mut self, node: &Node, what: &str, key: &str) -> Option<bool> {
        let Value::Scalar(s) = &node.value else {
            self.type_error(node, what, key, "a boolean");
            return None;
        };
        let Some(b) = parse_yaml_bool(&s.text) else {
            self.report(
                &VALUE_TYPE,
                Some(node.offset),
                format!("{what}: {key} should be a boolean, found {:?}", s.text),
            );
            return None;
        };
        if s.style != Style::Plain || !matches!(s.text.as_str(), "true" | "false") {
            self.report(
                &SCALAR_STYLE,
                Some(node.offset),
                format!(
                    "{what}: {key}: boolean written as {:?}{}, not {b}",
                    s.text,
                    if s.style == Style::Plain {
                        ""
                    } else {
                        " (quoted)"
                    }
                ),
            );
        }
        Some(b)
    }

    fn length(
        &mut self,
        v: &Option<Vec<u64>>,
        want: usize,
        at: Option<usize>,
        what: &str,
        key: &str,
    ) {
        if let Some(v) = v {
            if v.len() != want {
                self.report(
                    &VALUE_LENGTH,
                    at,
                    format!("{what}: {key} has {} integers, expected {want}", v.len()),
                );
            }
        }
    }

    fn root(&mut self, entries: &[Entry], at: usize) -> MetadataV2 {
        let f = self.scan(entries, at, ROOT_KEYS, "metadata", &MISSING_KEY);
        let g = Get {
            f: &f,
            defs: ROOT_KEYS,
        };
        let version = g.ints("Version");
        if let Some(v) = &version {
            if v.as_slice() != [1, 0] {
                self.report(
                    &VERSION,
                    g.at("Version"),
                    format!("Version is {v:?}, expected [1, 0]"),
                );
            }
        }
        let printf: Vec<String> = g.strs("Printf").into_iter().map(str::to_owned).collect();
        for (i, p) in printf.iter().enumerate() {
            if !printf_ok(p) {
                self.report(
                    &PRINTF_FORMAT,
                    g.at("Printf"),
                    format!("Printf[{i}] {p:?} is not ID:N:sizes:format"),
                );
            }
        }
        let mut kernels = Vec::new();
        let mut names: HashMap<String, usize> = HashMap::new();
        let mut symbols: HashMap<String, usize> = HashMap::new();
        for (i, k) in g.maps("Kernels").into_iter().enumerate() {
            let at = k.first().map_or(at, |e| e.key_offset);
            let kernel = self.kernel(k, at, i);
            self.sink.set_kernel(kernel.name.as_deref());
            for (key, value, seen) in [
                ("Name", &kernel.name, &mut names),
                ("SymbolName", &kernel.symbol_name, &mut symbols),
            ] {
                if let Some(v) = value {
                    if let Some(first) = seen.insert(v.clone(), i) {
                        self.report(
                            &KERNEL_DUPLICATE,
                            Some(at),
                            format!("kernel {i}: {key} {v:?} is also the {key} of kernel {first}"),
                        );
                    }
                }
            }
            self.sink.set_kernel(None);
            kernels.push(kernel);
        }
        MetadataV2 {
            version,
            printf,
            kernels,
            other_keys: f.other.clone(),
        }
    }

    fn kernel(&mut self, entries: &[Entry], at: usize, index: usize) -> KernelV2 {
        let label = entries
            .iter()
            .rev()
            .find(|e| e.key.text == "Name")
            .and_then(|e| e.value.as_scalar())
            .map(|s| s.text.clone());
        self.sink.set_kernel(label.as_deref());
        let what = match &label {
            Some(n) => format!("kernel {index} ({n})"),
            None => format!("kernel {index}"),
        };
        let f = self.scan(entries, at, KERNEL_KEYS, &what, &KERNEL_MISSING_KEY);
        let g = Get {
            f: &f,
            defs: KERNEL_KEYS,
        };
        let name = g.string("Name");
        let symbol_name = g.string("SymbolName");
        if let (Some(n), Some(s)) = (&name, &symbol_name) {
            if s.strip_suffix("@kd") != Some(n.as_str()) {
                self.report(
                    &KERNEL_SYMBOL_NAME,
                    g.at("SymbolName"),
                    format!("{what}: SymbolName {s:?} is not {:?}", format!("{n}@kd")),
                );
            }
        }
        let language_version = g.ints("LanguageVersion");
        self.length(
            &language_version,
            2,
            g.at("LanguageVersion"),
            &what,
            "LanguageVersion",
        );
        let attrs = g
            .map("Attrs")
            .map(|m| self.attrs(m, g.at("Attrs").unwrap_or(at), &what));
        let code_props = match g.map("CodeProps") {
            Some(m) => Some(self.code_props(m, g.at("CodeProps").unwrap_or(at), &what)),
            None => {
                if g.at("CodeProps").is_none() && !entries.iter().any(|e| e.key.text == "CodeProps")
                {
                    self.report(
                        &CODE_PROPS_MISSING,
                        Some(at),
                        format!("{what}: no CodeProps"),
                    );
                }
                None
            }
        };
        let debug_props = g
            .map("DebugProps")
            .map(|m| self.debug_props(m, g.at("DebugProps").unwrap_or(at), &what));
        let mut args = Vec::new();
        let mut arg_at = Vec::new();
        for (i, a) in g.maps("Args").into_iter().enumerate() {
            let a_at = a.first().map_or(at, |e| e.key_offset);
            let (arg, where_) = self.arg(a, a_at, &format!("{what} arg {i}"));
            args.push(arg);
            arg_at.push(where_);
        }
        let mut k = KernelV2 {
            name,
            symbol_name,
            language: g.string("Language"),
            language_version,
            attrs,
            args,
            code_props,
            debug_props,
            other_keys: f.other.clone(),
        };
        self.kernel_rules(&k, &g, &what);
        self.layout(&mut k, &arg_at, &what);
        k
    }

    fn attrs(&mut self, entries: &[Entry], at: usize, what: &str) -> AttrsV2 {
        let what = format!("{what} Attrs");
        let f = self.scan(entries, at, ATTRS_KEYS, &what, &KERNEL_MISSING_KEY);
        let g = Get {
            f: &f,
            defs: ATTRS_KEYS,
        };
        let reqd = g.ints("ReqdWorkGroupSize");
        let hint = g.ints("WorkGroupSizeHint");
        self.length(
            &reqd,
            3,
            g.at("ReqdWorkGroupSize"),
            &what,
            "ReqdWorkGroupSize",
        );
        self.length(
            &hint,
            3,
            g.at("WorkGroupSizeHint"),
            &what,
            "WorkGroupSizeHint",
        );
        if let Some(r) = &reqd {
            if r.len() == 3 && r.contains(&0) && r.iter().any(|&x| x != 0) {
                self.report(
                    &REQD_WORK_GROUP_SIZE,
                    g.at("ReqdWorkGroupSize"),
                    format!("{what}: ReqdWorkGroupSize {r:?} mixes zero and non-zero"),
                );
            }
        }
        AttrsV2 {
            reqd_work_group_size: reqd,
            work_group_size_hint: hint,
            vec_type_hint: g.string("VecTypeHint"),
            runtime_handle: g.string("RuntimeHandle"),
            other_keys: f.other.clone(),
        }
    }

    fn code_props(&mut self, entries: &[Entry], at: usize, what: &str) -> CodePropsV2 {
        let what = format!("{what} CodeProps");
        let f = self.scan(entries, at, CODE_PROPS_KEYS, &what, &CODE_PROPS_MISSING_KEY);
        let g = Get {
            f: &f,
            defs: CODE_PROPS_KEYS,
        };
        let cp = CodePropsV2 {
            kernarg_segment_size: g.uint("KernargSegmentSize"),
            group_segment_fixed_size: g.uint("GroupSegmentFixedSize"),
            private_segment_fixed_size: g.uint("PrivateSegmentFixedSize"),
            kernarg_segment_align: g.uint("KernargSegmentAlign"),
            wavefront_size: g.uint("WavefrontSize"),
            num_sgprs: g.uint("NumSGPRs"),
            num_vgprs: g.uint("NumVGPRs"),
            max_flat_work_group_size: g.uint("MaxFlatWorkGroupSize"),
            is_dynamic_call_stack: g.bool("IsDynamicCallStack"),
            is_xnack_enabled: g.bool("IsXNACKEnabled"),
            num_spilled_sgprs: g.uint("NumSpilledSGPRs"),
            num_spilled_vgprs: g.uint("NumSpilledVGPRs"),
            other_keys: f.other.clone(),
        };
        if let Some(a) = cp.kernarg_segment_align {
            if !a.is_power_of_two() {
                self.report(
                    &KERNARG_SEGMENT_ALIGN,
                    g.at("KernargSegmentAlign"),
                    format!("{what}: KernargSegmentAlign {a} is not a power of two"),
                );
            }
        }
        if let Some(w) = cp.wavefront_size {
            let target = self.ctx.target_id.map(|t| t.target);
            let problem = match w {
                32 if target.is_some_and(|t| !t.wave32) => Some(format!(
                    "{what}: WavefrontSize 32 but {} has no wave32",
                    target.map_or("", |t| t.name)
                )),
                64 if target.is_some_and(|t| !t.wave64) => Some(format!(
                    "{what}: WavefrontSize 64 but {} has no wave64",
                    target.map_or("", |t| t.name)
                )),
                32 | 64 => None,
                _ => Some(format!("{what}: WavefrontSize {w} is neither 32 nor 64")),
            };
            if let Some(m) = problem {
                self.report(&WAVEFRONT_SIZE, g.at("WavefrontSize"), m);
            }
        }
        if let Some(m) = cp.max_flat_work_group_size {
            if !(1..=1024).contains(&m) {
                self.report(
                    &MAX_FLAT_WORK_GROUP_SIZE,
                    g.at("MaxFlatWorkGroupSize"),
                    format!("{what}: MaxFlatWorkGroupSize {m} is outside 1..=1024"),
                );
            }
        }
        if let Some(id) = self.ctx.target_id {
            let on = cp.is_xnack_enabled.unwrap_or(false);
            let flag = match id.xnack {
                FeatureSetting::On => Some(true),
                FeatureSetting::Off => Some(false),
                FeatureSetting::Any | FeatureSetting::Unsupported => None,
            };
            if let Some(flag) = flag {
                if flag != on {
                    self.report(
                        &XNACK,
                        g.at("IsXNACKEnabled").or(Some(at)),
                        format!(
                            "{what}: IsXNACKEnabled is {on} but the e_flags xnack bit is {}",
                            if flag { "set" } else { "clear" }
                        ),
                    );
                }
            }
        }
        cp
    }

    fn debug_props(&mut self, entries: &[Entry], at: usize, what: &str) -> DebugPropsV2 {
        let what = format!("{what} DebugProps");
        let f = self.scan(entries, at, DEBUG_PROPS_KEYS, &what, &KERNEL_MISSING_KEY);
        let g = Get {
            f: &f,
            defs: DEBUG_PROPS_KEYS,
        };
        DebugPropsV2 {
            debugger_abi_version: g.ints("DebuggerABIVersion"),
            reserved_num_vgprs: g.uint("ReservedNumVGPRs"),
            reserved_first_vgpr: g.uint("ReservedFirstVGPR"),
            private_segment_buffer_sgpr: g.uint("PrivateSegmentBufferSGPR"),
            wavefront_private_segment_offset_sgpr: g.uint("WavefrontPrivateSegmentOffsetSGPR"),
            other_keys: f.other.clone(),
        }
    }

    fn arg(&mut self, entries: &[Entry], at: usize, what: &str) -> (ArgV2, ArgAt) {
        let f = self.scan(entries, at, ARG_KEYS, what, &ARG_MISSING_KEY);
        let g = Get {
            f: &f,
            defs: ARG_KEYS,
        };
        let arg = ArgV2 {
            name: g.string("Name"),
            type_name: g.string("TypeName"),
            size: g.uint("Size"),
            align: g.uint("Align"),
            value_kind: g.string("ValueKind"),
            value_type: g.string("ValueType"),
            pointee_align: g.uint("PointeeAlign"),
            addr_space_qual: g.string("AddrSpaceQual"),
            acc_qual: g.string("AccQual"),
            actual_acc_qual: g.string("ActualAccQual"),
            is_const: g.bool("IsConst"),
            is_restrict: g.bool("IsRestrict"),
            is_volatile: g.bool("IsVolatile"),
            is_pipe: g.bool("IsPipe"),
            offset: None,
            other_keys: f.other.clone(),
        };
        let where_ = ArgAt {
            size: g.at("Size"),
            align: g.at("Align"),
            value_type: g.at("ValueType"),
            pointee_align: g.at("PointeeAlign"),
            addr_space_qual: g.at("AddrSpaceQual"),
            is_pipe: g.at("IsPipe"),
            map: at,
        };
        (arg, where_)
    }

    fn kernel_rules(&mut self, k: &KernelV2, g: &Get<'_, '_>, what: &str) {
        let reqd = k
            .attrs
            .as_ref()
            .and_then(|a| a.reqd_work_group_size.as_deref());
        let max = k
            .code_props
            .as_ref()
            .and_then(|c| c.max_flat_work_group_size);
        if let (Some(r), Some(m)) = (reqd, max) {
            if r.len() == 3 && r.iter().all(|&x| x != 0) {
                let product = r.iter().try_fold(1u64, |a, &b| a.checked_mul(b));
                if product.is_none_or(|p| p > m) {
                    self.report(
                        &REQD_WORK_GROUP_SIZE_LIMIT,
                        g.at("Attrs"),
                        format!("{what}: ReqdWorkGroupSize {r:?} exceeds MaxFlatWorkGroupSize {m}"),
                    );
                }
            }
        }
    }

    /// Computes the argument offsets and checks the layout rules.
    fn layout(&mut self, k: &mut KernelV2, at: &[ArgAt], what: &str) {
        let cp = k.code_props.as_ref();
        let kss = cp.and_then(|c| c.kernarg_segment_size);
        let ksa = cp.and_then(|c| c.kernarg_segment_align);
        let mut end: Option<u64> = Some(0);
        for (i, (a, w)) in k.args.iter_mut().zip(at).enumerate() {
            let what = format!("{what} arg {i}");
            if let Some(al) = a.align {
                if !al.is_power_of_two() {
                    self.report(
                        &ARG_ALIGN,
                        w.align,
                        format!("{what}: Align {al} is not a power of two"),
                    );
                } else if ksa.is_some_and(|s| s.is_power_of_two() && al > s) {
                    self.report(
                        &ARG_ALIGN_SEGMENT,
                        w.align,
                        format!(
                            "{what}: Align {al} exceeds KernargSegmentAlign {}",
                            ksa.unwrap_or(0)
                        ),
                    );
                }
            }
            if let Some(p) = a.pointee_align {
                if p != 0 && !p.is_power_of_two() {
                    self.report(
                        &ARG_POINTEE_ALIGN,
                        w.pointee_align,
                        format!("{what}: PointeeAlign {p} is not a power of two"),
                    );
                }
            }
            if a.value_type.is_some() {
                self.report(
                    &ARG_VALUE_TYPE,
                    w.value_type,
                    format!("{what}: deprecated ValueType"),
                );
            }
            if let Some(kind) = a.kind() {
                self.arg_kind_rules(a, w, kind, &what);
            }
            // The offset a runtime computes, as long as every argument so
            // far had a usable Size and Align.
            let placed = match (end, a.size, a.align) {
                (Some(e), Some(size), Some(al)) if al.is_power_of_two() => {
                    let off = e.checked_add(al - 1).map(|x| x & !(al - 1));
                    off.and_then(|o| Some((o, o.checked_add(size)?)))
                }
                _ => None,
            };
            match placed {
                Some((off, new_end)) => {
                    a.offset = Some(off);
                    end = Some(new_end);
                    if let Some(kss) = kss {
                        if new_end > kss {
                            self.report(
                                &ARG_OUT_OF_BOUNDS,
                                w.size.or(Some(w.map)),
                                format!(
                                    "{what}: bytes {off}..{new_end} end past KernargSegmentSize {kss}"
                                ),
                            );
                        }
                    }
                }
                None => {
                    if end.is_some()
                        && a.size.is_some()
                        && a.align.is_some_and(u64::is_power_of_two)
                    {
                        self.report(
                            &ARG_OUT_OF_BOUNDS,
                            w.size.or(Some(w.map)),
                            format!("{what}: the argument's end overflows 64 bits"),
                        );
                    }
                    end = None;
                }
            }
            if let (Some(off), Some(size), Some(kind)) = (a.offset, a.size, a.kind()) {
                if kind != ValueKind::ByValue && matches!(size, 2 | 4 | 8) && off % size != 0 {
                    self.report(
                        &ARG_MISALIGNED,
                        w.align,
                        format!("{what}: offset {off} is not a multiple of its size {size}"),
                    );
                }
            }
        }
        self.hidden_layout(k, at, what);
    }

    fn arg_kind_rules(&mut self, a: &ArgV2, w: &ArgAt, kind: ValueKind, what: &str) {
        use ValueKind as K;
        if a.pointee_align.is_some() && kind != K::DynamicSharedPointer {
            self.report(
                &ARG_KEY_KIND,
                w.pointee_align,
                format!("{what}: PointeeAlign on a {} argument", v2_name(kind)),
            );
        }
        let non_pointer = matches!(
            kind,
            K::ByValue | K::HiddenGlobalOffsetX | K::HiddenGlobalOffsetY | K::HiddenGlobalOffsetZ
        );
        if a.addr_space_qual.is_some() && non_pointer {
            self.report(
                &ARG_KEY_KIND,
                w.addr_space_qual,
                format!("{what}: AddrSpaceQual on a {} argument", v2_name(kind)),
            );
        }
        if a.is_pipe.is_some() && kind != K::Pipe {
            self.report(
                &ARG_KEY_KIND,
                w.is_pipe,
                format!("{what}: IsPipe on a {} argument", v2_name(kind)),
            );
        }
        let space = a.addr_space_qual.as_deref();
        let bad_space = match kind {
            K::DynamicSharedPointer => space.is_some_and(|s| s != "Local"),
            K::GlobalBuffer => space == Some("Local"),
            _ => false,
        };
        if bad_space {
            self.report(
                &ARG_ADDRESS_SPACE,
                w.addr_space_qual,
                format!(
                    "{what}: {} in address space {}",
                    v2_name(kind),
                    space.unwrap_or_default()
                ),
            );
        }
        let want = match kind {
            K::GlobalBuffer if matches!(space, Some("Global" | "Constant" | "Generic")) => Some(8),
            K::Image | K::Sampler | K::Pipe | K::Queue => Some(8),
            K::DynamicSharedPointer => Some(4),
            _ => None,
        };
        if let (Some(want), Some(size)) = (want, a.size) {
            if size != want {
                self.report(
                    &ARG_KIND_SIZE,
                    w.size,
                    format!("{what}: {} of size {size}, expected {want}", v2_name(kind)),
                );
            }
        }
    }

    /// Checks hidden arguments against LLVM's slots: 8 bytes each, from
    /// the end of the explicit arguments rounded up to 8.
    fn hidden_layout(&mut self, k: &KernelV2, at: &[ArgAt], what: &str) {
        let explicit_end = k
            .args
            .iter()
            .filter(|a| a.kind().is_some_and(|kd| !kd.is_hidden()))
            .filter_map(|a| a.offset?.checked_add(a.size?))
            .max()
            .unwrap_or(0);
        let Some(base) = explicit_end.checked_add(7).map(|e| e & !7) else {
            return;
        };
        for (i, (a, w)) in k.args.iter().zip(at).enumerate() {
            let Some(kind) = a.kind().filter(|kd| kd.is_hidden()) else {
                continue;
            };
            if a.offset.is_none() {
                // The offset is unknown (an earlier argument is broken,
                // and reported); only the size can be checked.
                if a.size != Some(8) {
                    self.report(
                        &ARG_HIDDEN_LAYOUT,
                        Some(w.map),
                        format!(
                            "{what} arg {i}: {} of size {}, expected 8",
                            v2_name(kind),
                            a.size.map_or("?".to_owned(), |s| s.to_string())
                        ),
                    );
                }
                continue;
            }
            let slot = if kind == ValueKind::HiddenNone {
                // Any slot after the global offsets: it only reserves space.
                a.offset
                    .and_then(|o| o.checked_sub(base))
                    .filter(|s| s % 8 == 0 && *s >= 24)
                    .map(|s| (s, 8))
            } else {
                kind.hidden_slot(CodeObjectVersion::V2)
            };
            let want = slot.and_then(|(s, size)| Some((base.checked_add(s)?, size)));
            let ok = match (want, a.offset) {
                (Some((o, size)), Some(off)) => off == o && a.size == Some(size),
                _ => false,
            };
            if !ok {
                let expect = match want {
                    Some((o, size)) => format!("offset {o} and size {size}"),
                    None => format!(
                        "an 8-byte slot at or after offset {}",
                        base.saturating_add(24)
                    ),
                };
                self.report(
                    &ARG_HIDDEN_LAYOUT,
                    Some(w.map),
                    format!(
                        "{what} arg {i}: {} at offset {} size {}, expected {expect} (hidden arguments start at {base})",
                        v2_name(kind),
                        a.offset.map_or("?".to_owned(), |o| o.to_string()),
                        a.size.map_or("?".to_owned(), |s| s.to_string()),
                    ),
                );
            }
        }
    }
}

/// The V2 spelling of a kind.
fn v2_name(kind: ValueKind) -> &'static str {
    VALUE_KINDS
        .iter()
        .find(|(_, k)| *k == kind)
        .map_or("unknown", |(n, _)| *n)
}

/// Checks the description of an `NT_AMD_HSA_METADATA` note (code object
/// V2).
///
/// `desc_offset` is the file offset of `desc`, so violations point into
/// the file. Returns the model if the text is YAML this reader reads and
/// its top level is a mapping (even if it breaks rules), `None` otherwise.
pub fn check(desc: &[u8], desc_offset: u64, ctx: &Context, sink: &mut Sink) -> Option<MetadataV2> {
    let text_len = desc.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    let text = desc.get(..text_len).unwrap_or_default();
    let mut c = Checker {
        base: desc_offset,
        ctx,
        sink,
    };
    if text_len < desc.len() {
        c.report(
            &NUL_TERMINATED,
            Some(text_len),
            format!("{} NUL byte(s) end the YAML text", desc.len() - text_len),
        );
    }
    let root = match yaml::parse(text) {
        Ok(r) => r,
        Err(e) => {
            let rule = match e.kind {
                ErrorKind::Syntax => &DECODE,
                ErrorKind::Unsupported => &YAML_UNSUPPORTED,
            };
            c.report(
                rule,
                Some(e.offset),
                format!("metadata YAML: {}", e.message),
            );
            return None;
        }
    };
    let Value::Map(entries) = &root.value else {
        c.report(
            &ROOT_NOT_MAP,
            Some(root.offset),
            format!("the document is a {}, not a mapping", root.kind_name()),
        );
        return None;
    };
    let md = c.root(entries, root.offset);
    c.sink.set_kernel(None);
    Some(md)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Severity;
    use std::collections::BTreeSet;

    /// LLVM 14's output shape (accepted by `llvm-mc-14
    /// --amdhsa-code-object-version=2`), for gfx900 with xnack: every
    /// argument kind family, hidden arguments, attributes and printf.
    const BASE: &str = r#"---
Version:         [ 1, 0 ]
Printf:
  - '1:1:4:%d\n'
Kernels:
  - Name:            foo
    SymbolName:      'foo@kd'
    Language:        OpenCL C
    LanguageVersion: [ 2, 0 ]
    Attrs:
      ReqdWorkGroupSize: [ 64, 2, 1 ]
      WorkGroupSizeHint: [ 32, 4, 2 ]
      VecTypeHint:     float4
      RuntimeHandle:   foo.runtime_handle
    Args:
      - Name:            img
        TypeName:        image2d_t
        Size:            8
        Align:           8
        ValueKind:       Image
        AddrSpaceQual:   Constant
        AccQual:         ReadOnly
      - Name:            out
        TypeName:        'int*'
        Size:            8
        Align:           8
        ValueKind:       GlobalBuffer
        AddrSpaceQual:   Global
        AccQual:         Default
        IsConst:         true
      - Name:            lds
        TypeName:        'float*'
        Size:            4
        Align:           4
        ValueKind:       DynamicSharedPointer
        PointeeAlign:    16
        AddrSpaceQual:   Local
        AccQual:         Default
      - Name:            p
        TypeName:        int
        Size:            8
        Align:           8
        ValueKind:       Pipe
        AddrSpaceQual:   Global
        AccQual:         ReadOnly
        IsPipe:          true
      - Name:            c
        TypeName:        char
        Size:            1
        Align:           1
        ValueKind:       ByValue
        AccQual:         Default
      - Size:            8
        Align:           8
        ValueKind:       HiddenGlobalOffsetX
      - Size:            8
        Align:           8
        ValueKind:       HiddenGlobalOffsetY
      - Size:            8
        Align:           8
        ValueKind:       HiddenGlobalOffsetZ
      - Size:            8
        Align:           8
        ValueKind:       HiddenPrintfBuffer
        AddrSpaceQual:   Global
      - Size:            8
        Align:           8
        ValueKind:       HiddenNone
        AddrSpaceQual:   Global
      - Size:            8
        Align:           8
        ValueKind:       HiddenCompletionAction
        AddrSpaceQual:   Global
      - Size:            8
        Align:           8
        ValueKind:       HiddenMultiGridSyncArg
        AddrSpaceQual:   Global
    CodeProps:
      KernargSegmentSize: 96
      GroupSegmentFixedSize: 0
      PrivateSegmentFixedSize: 0
      KernargSegmentAlign: 8
      WavefrontSize:   64
      NumSGPRs:        10
      NumVGPRs:        3
      MaxFlatWorkGroupSize: 256
      IsXNACKEnabled:  true
  - Name:            bar
    SymbolName:      'bar@kd'
    Args:
      - Name:            x
        Size:            16
        Align:           16
        ValueKind:       ByValue
    CodeProps:
      KernargSegmentSize: 16
      GroupSegmentFixedSize: 1024
      PrivateSegmentFixedSize: 260
      KernargSegmentAlign: 16
      WavefrontSize:   64
      NumSGPRs:        17
      NumVGPRs:        4
      MaxFlatWorkGroupSize: 1024
      IsXNACKEnabled:  true
...
"#;

    /// gfx900 with the xnack bit, as llc-14 writes it by default.
    const E_FLAGS: u32 = 0x12c;
    const DESC_OFFSET: u64 = 0x1000;

    fn ctx(e_flags: u32) -> Context {
        Context {
            target_id: TargetId::from_e_flags(e_flags, CodeObjectVersion::V2).ok(),
        }
    }

    fn run_with(text: &[u8], e_flags: u32) -> (Sink, Option<MetadataV2>) {
        let mut sink = Sink::new();
        let md = check(text, DESC_OFFSET, &ctx(e_flags), &mut sink);
        (sink, md)
    }

    fn run(text: &str) -> (Sink, Option<MetadataV2>) {
        run_with(text.as_bytes(), E_FLAGS)
    }

    fn reported(sink: &Sink) -> BTreeSet<&'static str> {
        sink.violations.iter().map(|v| v.rule.id).collect()
    }

    /// Replaces the `n`th (0-based) occurrence of `pat`, which must exist.
    fn nth(text: &str, pat: &str, n: usize, with: &str) -> String {
        let (at, _) = text
            .match_indices(pat)
            .nth(n)
            .unwrap_or_else(|| panic!("no occurrence {n} of {pat:?}"));
        format!("{}{}{}", &text[..at], with, &text[at + pat.len()..])
    }

    /// Replaces the only occurrence of `pat`.
    fn one(text: &str, pat: &str, with: &str) -> String {
        assert_eq!(text.matches(pat).count(), 1, "{pat:?} is not unique");
        nth(text, pat, 0, with)
    }

    #[test]
    fn base_is_clean_and_modelled() {
        let (sink, md) = run(BASE);
        assert!(sink.violations.is_empty(), "{:#?}", sink.violations);
        let md = md.unwrap();
        assert_eq!(md.version, Some(vec![1, 0]));
        assert_eq!(md.printf, vec!["1:1:4:%d\\n".to_owned()]);
        assert_eq!(md.kernels.len(), 2);
        let foo = &md.kernels[0];
        assert_eq!(foo.name.as_deref(), Some("foo"));
        assert_eq!(foo.symbol_name.as_deref(), Some("foo@kd"));
        assert_eq!(foo.language.as_deref(), Some("OpenCL C"));
        assert_eq!(foo.language_version, Some(vec![2, 0]));
        let attrs = foo.attrs.as_ref().unwrap();
        assert_eq!(attrs.reqd_work_group_size, Some(vec![64, 2, 1]));
        assert_eq!(attrs.work_group_size_hint, Some(vec![32, 4, 2]));
        assert_eq!(attrs.vec_type_hint.as_deref(), Some("float4"));
        assert_eq!(attrs.runtime_handle.as_deref(), Some("foo.runtime_handle"));
        let offsets: Vec<_> = foo.args.iter().map(|a| a.offset.unwrap()).collect();
        assert_eq!(offsets, [0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88]);
        let kinds: Vec<_> = foo.args.iter().map(|a| a.kind().unwrap()).collect();
        assert_eq!(kinds[3], ValueKind::Pipe);
        assert_eq!(kinds[11], ValueKind::HiddenMultigridSyncArg);
        let lds = &foo.args[2];
        assert_eq!(lds.pointee_align, Some(16));
        assert_eq!(lds.addr_space_qual.as_deref(), Some("Local"));
        assert_eq!(lds.acc_qual.as_deref(), Some("Default"));
        assert_eq!(foo.args[1].is_const, Some(true));
        assert_eq!(foo.args[3].is_pipe, Some(true));
        assert_eq!(foo.args[1].type_name.as_deref(), Some("int*"));
        let cp = foo.code_props.as_ref().unwrap();
        assert_eq!(cp.kernarg_segment_size, Some(96));
        assert_eq!(cp.num_sgprs, Some(10));
        assert_eq!(cp.is_xnack_enabled, Some(true));
        assert_eq!(cp.is_dynamic_call_stack, None);
        let eff = md.kernels[1].effective_code_props();
        assert_eq!(
            (
                eff.group_segment_fixed_size,
                eff.private_segment_fixed_size,
                eff.is_dynamic_call_stack
            ),
            (1024, 260, false)
        );
        assert_eq!(
            md.kernel_for_symbol("bar").unwrap().name.as_deref(),
            Some("bar")
        );
        assert!(md.kernel_for_symbol("baz").is_none());
        assert_eq!(
            KernelV2::default().effective_code_props(),
            EffectiveCodeProps::default()
        );
    }

    type Mutation = (&'static str, &'static [&'static str], fn(&str) -> String);

    fn mutations() -> Vec<Mutation> {
        vec![
            ("metadata.v2.decode", &[], |t| one(t, "[ 1, 0 ]", "[ 1, 0")),
            ("metadata.v2.decode", &[], |t| format!("{t}\u{7f}")),
            ("metadata.v2.yaml_unsupported", &[], |t| {
                one(t, "VecTypeHint:     float4", "VecTypeHint:     &a float4")
            }),
            ("metadata.v2.nul_terminated", &[], |t| format!("{t}\0\0")),
            ("metadata.v2.root_not_map", &[], |_| {
                "---\n- a\n...\n".to_owned()
            }),
            ("metadata.v2.missing_key", &[], |t| {
                one(t, "Version:         [ 1, 0 ]\n", "")
            }),
            ("metadata.v2.kernel.missing_key", &[], |t| {
                one(t, "    SymbolName:      'bar@kd'\n", "")
            }),
            ("metadata.v2.arg.missing_key", &[], |t| {
                one(t, "        Align:           1\n", "")
            }),
            ("metadata.v2.code_props.missing_key", &[], |t| {
                nth(t, "      WavefrontSize:   64\n", 1, "")
            }),
            ("metadata.v2.kernel.code_props_missing", &[], |t| {
                let at = t.rfind("    CodeProps:").unwrap();
                format!("{}...\n", &t[..at])
            }),
            ("metadata.v2.value.type", &[], |t| {
                one(t, "NumSGPRs:        17", "NumSGPRs:        [ 17 ]")
            }),
            ("metadata.v2.value.type", &[], |t| {
                one(t, "IsConst:         true", "IsConst:         1")
            }),
            ("metadata.v2.value.type", &[], |t| {
                one(t, "Language:        OpenCL C", "Language:")
            }),
            ("metadata.v2.value.range", &[], |t| {
                one(t, "NumSGPRs:        17", "NumSGPRs:        65536")
            }),
            ("metadata.v2.value.enum", &[], |t| {
                one(t, "ValueKind:       Pipe", "ValueKind:       pipe")
            }),
            ("metadata.v2.value.enum", &[], |t| {
                one(
                    t,
                    "AccQual:         ReadOnly\n        IsPipe",
                    "AccQual:         None\n        IsPipe",
                )
            }),
            ("metadata.v2.value.scalar_style", &[], |t| {
                one(t, "NumVGPRs:        4", "NumVGPRs:        '4'")
            }),
            ("metadata.v2.value.scalar_style", &[], |t| {
                one(t, "IsConst:         true", "IsConst:         yes")
            }),
            ("metadata.v2.value.length", &[], |t| {
                one(t, "LanguageVersion: [ 2, 0 ]", "LanguageVersion: [ 2 ]")
            }),
            ("metadata.v2.duplicate_key", &[], |t| {
                one(
                    t,
                    "NumSGPRs:        17\n",
                    "NumSGPRs:        17\n      NumSGPRs:        17\n",
                )
            }),
            ("metadata.v2.key.unknown", &[], |t| {
                one(
                    t,
                    "        TypeName:        char\n",
                    "        TypeName:        char\n        amd.Foo: 1\n",
                )
            }),
            ("metadata.v2.key.unknown", &[], |t| {
                one(t, "Printf:\n", "Foo: 1\nPrintf:\n")
            }),
            ("metadata.v2.version", &[], |t| {
                one(t, "[ 1, 0 ]", "[ 1, 1 ]")
            }),
            ("metadata.v2.printf.format", &[], |t| {
                one(t, "'1:1:4:%d\\n'", "'x:1:4:%d'")
            }),
            ("metadata.v2.kernel.duplicate", &[], |t| {
                one(
                    t,
                    "Name:            bar\n    SymbolName:      'bar@kd'",
                    "Name:            foo\n    SymbolName:      'foo@kd'",
                )
            }),
            ("metadata.v2.kernel.symbol_name", &[], |t| {
                one(t, "'bar@kd'", "bar")
            }),
            ("metadata.v2.kernel.reqd_work_group_size", &[], |t| {
                one(t, "[ 64, 2, 1 ]", "[ 64, 0, 1 ]")
            }),
            ("metadata.v2.kernel.reqd_work_group_size_limit", &[], |t| {
                one(t, "[ 64, 2, 1 ]", "[ 64, 8, 1 ]")
            }),
            ("metadata.v2.code_props.kernarg_segment_align", &[], |t| {
                one(t, "KernargSegmentAlign: 8", "KernargSegmentAlign: 12")
            }),
            ("metadata.v2.code_props.wavefront_size", &[], |t| {
                nth(t, "WavefrontSize:   64", 1, "WavefrontSize:   32")
            }),
            ("metadata.v2.code_props.wavefront_size", &[], |t| {
                nth(t, "WavefrontSize:   64", 0, "WavefrontSize:   48")
            }),
            (
                "metadata.v2.code_props.max_flat_work_group_size",
                &[],
                |t| {
                    one(
                        t,
                        "MaxFlatWorkGroupSize: 1024",
                        "MaxFlatWorkGroupSize: 2048",
                    )
                },
            ),
            ("metadata.v2.code_props.xnack", &[], |t| {
                nth(t, "IsXNACKEnabled:  true", 1, "IsXNACKEnabled:  false")
            }),
            ("metadata.v2.code_props.xnack", &[], |t| {
                nth(t, "      IsXNACKEnabled:  true\n", 0, "")
            }),
            ("metadata.v2.arg.align", &[], |t| {
                one(
                    t,
                    "        Align:           1\n",
                    "        Align:           3\n",
                )
            }),
            ("metadata.v2.arg.align_exceeds_segment", &[], |t| {
                one(t, "Align:           16", "Align:           32")
            }),
            ("metadata.v2.arg.pointee_align", &[], |t| {
                one(t, "PointeeAlign:    16", "PointeeAlign:    12")
            }),
            ("metadata.v2.arg.value_type", &[], |t| {
                one(
                    t,
                    "        TypeName:        char\n",
                    "        TypeName:        char\n        ValueType:       I8\n",
                )
            }),
            ("metadata.v2.arg.key_kind", &[], |t| {
                one(t, "        IsConst:         true\n", "        IsConst:         true\n        PointeeAlign:    4\n        IsPipe:          false\n")
            }),
            ("metadata.v2.arg.key_kind", &[], |t| {
                one(
                    t,
                    "        TypeName:        char\n",
                    "        TypeName:        char\n        AddrSpaceQual:   Private\n",
                )
            }),
            ("metadata.v2.arg.address_space", &[], |t| {
                one(t, "AddrSpaceQual:   Local", "AddrSpaceQual:   Global")
            }),
            ("metadata.v2.arg.address_space", &[], |t| {
                one(t, "        AddrSpaceQual:   Global\n        AccQual:         Default\n        IsConst", "        AddrSpaceQual:   Local\n        AccQual:         Default\n        IsConst")
            }),
            ("metadata.v2.arg.kind_size", &[], |t| {
                one(
                    t,
                    "image2d_t\n        Size:            8",
                    "image2d_t\n        Size:            4",
                )
            }),
            ("metadata.v2.arg.misaligned", &[], |t| {
                one(
                    t,
                    "TypeName:        int\n        Size:            8\n        Align:           8",
                    "TypeName:        int\n        Size:            8\n        Align:           4",
                )
            }),
            ("metadata.v2.arg.out_of_bounds", &[], |t| {
                one(t, "KernargSegmentSize: 96", "KernargSegmentSize: 90")
            }),
            ("metadata.v2.arg.hidden_layout", &[], |t| {
                one(t, "HiddenCompletionAction", "HiddenDefaultQueue")
            }),
            ("metadata.v2.arg.hidden_layout", &[], |t| {
                let t = one(
                    t,
                    "ValueKind:       HiddenGlobalOffsetY",
                    "ValueKind:       HiddenTmp",
                );
                let t = one(
                    &t,
                    "ValueKind:       HiddenGlobalOffsetZ",
                    "ValueKind:       HiddenGlobalOffsetY",
                );
                one(
                    &t,
                    "ValueKind:       HiddenTmp",
                    "ValueKind:       HiddenGlobalOffsetZ",
                )
            }),
        ]
    }

    #[test]
    fn each_mutation_breaks_its_rule() {
        for (i, (id, also, f)) in mutations().into_iter().enumerate() {
            let text = f(BASE);
            let (sink, _) = run(&text);
            let got = reported(&sink);
            let want: BTreeSet<&str> = std::iter::once(id).chain(also.iter().copied()).collect();
            assert_eq!(got, want, "mutation {i} ({id}): {:#?}", sink.violations);
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
    fn violations_point_at_the_value_and_name_the_kernel() {
        let text = one(BASE, "NumSGPRs:        17", "NumSGPRs:        65536");
        let (sink, _) = run(&text);
        let v = &sink.violations[0];
        let at = text.find("65536").unwrap() as u64;
        assert_eq!(v.offset, Some(DESC_OFFSET + at));
        assert_eq!(v.kernel.as_deref(), Some("bar"));
        let text = one(BASE, "[ 1, 0 ]", "[ 1, 1 ]");
        let (sink, _) = run(&text);
        assert_eq!(sink.violations[0].kernel, None);
    }

    #[test]
    fn xnack_follows_e_flags_and_targets() {
        // gfx900 without the xnack bit: both kernels say true.
        let (sink, _) = run_with(BASE.as_bytes(), 0x2c);
        assert_eq!(
            sink.violations.iter().filter(|v| v.rule == &XNACK).count(),
            2
        );
        // gfx803 has no XNACK: llc-14 -mattr=+xnack writes IsXNACKEnabled
        // with a clear bit, which is no violation.
        let (sink, _) = run_with(BASE.as_bytes(), 0x2a);
        assert!(sink.violations.is_empty(), "{:#?}", sink.violations);
        // Unknown mach: no target checks.
        let (sink, _) = run_with(BASE.as_bytes(), 0);
        assert!(sink.violations.is_empty(), "{:#?}", sink.violations);
    }

    #[test]
    fn absent_kernels_and_null_collections_are_empty() {
        for text in [
            "---\nVersion: [ 1, 0 ]\n...\n",
            "---\nVersion: [ 1, 0 ]\nKernels:\n...\n",
            "---\nVersion: [ 1, 0 ]\nKernels: ~\nPrintf: [ ]\n",
            "Version: [ 1, 0 ]\nKernels: []\n",
        ] {
            let (sink, md) = run(text);
            assert!(
                sink.violations.is_empty(),
                "{text:?}: {:#?}",
                sink.violations
            );
            assert!(md.unwrap().kernels.is_empty());
        }
        // A kernel with an empty CodeProps: the five required keys.
        let (sink, _) = run_with(
            b"Version: [ 1, 0 ]\nKernels:\n  - Name: k\n    SymbolName: 'k@kd'\n    CodeProps: {}\n",
            0x2a,
        );
        assert_eq!(sink.violations.len(), 5);
        assert!(sink
            .violations
            .iter()
            .all(|v| v.rule == &CODE_PROPS_MISSING_KEY));
    }

    #[test]
    fn enumerations_match_llvm() {
        assert_eq!(VALUE_KINDS.len(), VALUE_KIND_NAMES.len());
        for ((n, k), name) in VALUE_KINDS.iter().zip(VALUE_KIND_NAMES) {
            assert_eq!(n, name);
            assert_eq!(value_kind(n), Some(*k));
            assert_eq!(v2_name(*k), *n);
        }
        // Every pre-V5 kind LLVM 14 can write, and no V5-only kind.
        assert!(VALUE_KINDS.iter().all(|(_, k)| !k.since_v5()));
        assert_eq!(value_kind("HiddenMultigridSyncArg"), None);
        assert_eq!(VALUE_TYPES.len(), 12);
    }

    #[test]
    fn large_metadata_is_checked_in_linear_time() {
        let mut text = String::from("Version: [ 1, 0 ]\n");
        for i in 0..100_000 {
            text.push_str(&format!("x.k{i}: {i}\n"));
        }
        text.push_str("Kernels:\n");
        for i in 0..20_000 {
            text.push_str(&format!(
                "  - Name: k{i}\n    SymbolName: 'k{i}@kd'\n    Args:\n      - Size: 8\n        Align: 8\n        ValueKind: GlobalBuffer\n        AddrSpaceQual: Global\n    CodeProps:\n      KernargSegmentSize: 8\n      GroupSegmentFixedSize: 0\n      PrivateSegmentFixedSize: 0\n      KernargSegmentAlign: 8\n      WavefrontSize: 64\n"
            ));
        }
        let start = std::time::Instant::now();
        let (sink, md) = run_with(text.as_bytes(), 0x2a);
        let md = md.unwrap();
        assert_eq!(md.kernels.len(), 20_000);
        assert_eq!(md.other_keys.len(), 100_000);
        assert!(sink.violations.iter().all(|v| v.rule == &KEY_UNKNOWN));
        assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
    }

    #[test]
    fn rule_ids_are_well_formed() {
        let mut seen = BTreeSet::new();
        for r in RULES {
            assert!(seen.insert(r.id), "duplicate {}", r.id);
            assert!(r.id.starts_with("metadata.v2."), "{}", r.id);
            assert!(
                r.id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '_'),
                "{}",
                r.id
            );
            // No clash with the V3+ rules.
            assert!(crate::metadata::RULES.iter().all(|m| m.id != r.id));
        }
    }

    #[test]
    fn severities_follow_the_policy() {
        for r in [
            &DECODE,
            &MISSING_KEY,
            &KERNEL_MISSING_KEY,
            &ARG_MISSING_KEY,
            &CODE_PROPS_MISSING_KEY,
            &VALUE_TYPE,
            &VALUE_RANGE,
            &VALUE_ENUM,
        ] {
            assert_eq!(r.severity, Severity::Error, "{}", r.id);
        }
        for r in [&YAML_UNSUPPORTED, &KEY_UNKNOWN, &SCALAR_STYLE, &VERSION] {
            assert_eq!(r.severity, Severity::Warning, "{}", r.id);
        }
    }

    proptest::proptest! {
        #[test]
        fn check_never_panics(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            let mut sink = Sink::new();
            let _ = check(&bytes, u64::MAX - 3, &ctx(E_FLAGS), &mut sink);
        }

        #[test]
        fn mutated_base_never_panics(cut in 0usize..4000, with in "[ -~\n]{0,3}") {
            let mut text = BASE.as_bytes().to_vec();
            let at = cut % text.len();
            text.splice(at..(at + 1).min(text.len()), with.bytes());
            let mut sink = Sink::new();
            let _ = check(&text, 0, &ctx(E_FLAGS), &mut sink);
        }

        #[test]
        fn random_sizes_and_aligns_never_panic(
            sizes in proptest::collection::vec((proptest::prelude::any::<u64>(), 0u32..70), 1..6),
            kss in proptest::prelude::any::<u64>(),
        ) {
            let mut text = String::from("Version: [ 1, 0 ]\nKernels:\n  - Name: k\n    SymbolName: 'k@kd'\n    Args:\n");
            for (size, shift) in &sizes {
                let align = 1u128 << shift;
                text.push_str(&format!("      - Size: {size}\n        Align: {align}\n        ValueKind: HiddenNone\n"));
            }
            text.push_str(&format!("    CodeProps:\n      KernargSegmentSize: {kss}\n      GroupSegmentFixedSize: 0\n      PrivateSegmentFixedSize: 0\n      KernargSegmentAlign: 8\n      WavefrontSize: 64\n"));
            let mut sink = Sink::new();
            let _ = check(text.as_bytes(), 0, &ctx(E_FLAGS), &mut sink);
        }
    }
}
