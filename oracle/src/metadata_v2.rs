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

use crate::metadata::{hidden_block_start, printf_ok, Space, ValueKind};
use crate::rules::{Rule, Sink};
use crate::targets::{CodeObjectVersion, FeatureSetting, TargetId};
use crate::yaml::{self, Entry, ErrorKind, Node, Style, Value};
use crate::yaml::{parse_bool as parse_yaml_bool, parse_uint as parse_yaml_uint};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

mod kernel;
mod scan;
mod schema;

use scan::*;
use schema::*;
pub use schema::{value_kind, ACC_QUALS, ADDR_SPACE_QUALS, VALUE_KINDS, VALUE_TYPES};

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
#[path = "metadata_v2_tests.rs"]
mod tests;
