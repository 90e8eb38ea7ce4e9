//! The V2 metadata key schema: every key a mapping may have, its value
//! type and whether LLVM's reader requires it, and the enumerations.

use super::*;

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

/// The V2 `ValueKind` spellings alone, for the key schema: made from
/// [`VALUE_KINDS`] at compile time, so the names are written once.
pub(super) const VALUE_KIND_NAMES: &[&str] = &{
    let mut names = [""; VALUE_KINDS.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = VALUE_KINDS[i].0;
        i += 1;
    }
    names
};
/// The V2 spelling of a kind.
pub(super) fn v2_name(kind: ValueKind) -> &'static str {
    VALUE_KINDS
        .iter()
        .find(|(_, k)| *k == kind)
        .map_or("unknown", |(n, _)| *n)
}

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
pub(super) enum Ty {
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

pub(super) const U16: Ty = Ty::UInt(u16::MAX as u64);
pub(super) const U32: Ty = Ty::UInt(u32::MAX as u64);
pub(super) const U64: Ty = Ty::UInt(u64::MAX);

/// One key a mapping may have.
pub(super) struct KeyDef {
    pub(super) key: &'static str,
    pub(super) ty: Ty,
    pub(super) required: bool,
}

pub(super) const fn opt(key: &'static str, ty: Ty) -> KeyDef {
    KeyDef {
        key,
        ty,
        required: false,
    }
}
pub(super) const fn req(key: &'static str, ty: Ty) -> KeyDef {
    KeyDef {
        key,
        ty,
        required: true,
    }
}

pub(super) const ROOT_KEYS: &[KeyDef] = &[
    req("Version", Ty::Ints),
    opt("Printf", Ty::Strs),
    opt("Kernels", Ty::Maps),
];
pub(super) const KERNEL_KEYS: &[KeyDef] = &[
    req("Name", Ty::Str),
    req("SymbolName", Ty::Str),
    opt("Language", Ty::Str),
    opt("LanguageVersion", Ty::Ints),
    opt("Attrs", Ty::Map),
    opt("Args", Ty::Maps),
    opt("CodeProps", Ty::Map),
    opt("DebugProps", Ty::Map),
];
pub(super) const ATTRS_KEYS: &[KeyDef] = &[
    opt("ReqdWorkGroupSize", Ty::Ints),
    opt("WorkGroupSizeHint", Ty::Ints),
    opt("VecTypeHint", Ty::Str),
    opt("RuntimeHandle", Ty::Str),
];
pub(super) const ARG_KEYS: &[KeyDef] = &[
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
pub(super) const CODE_PROPS_KEYS: &[KeyDef] = &[
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
pub(super) const DEBUG_PROPS_KEYS: &[KeyDef] = &[
    opt("DebuggerABIVersion", Ty::Ints),
    opt("ReservedNumVGPRs", U16),
    opt("ReservedFirstVGPR", U16),
    opt("PrivateSegmentBufferSGPR", U16),
    opt("WavefrontPrivateSegmentOffsetSGPR", U16),
];
