//! The metadata key schema: every key a V3+ map may have, with its value
//! kind, the code object versions that define it and whether it is
//! required. The checks read these tables and nothing else.

use super::*;

/// `.language` values LLVM's verifier accepts.
pub(super) const LANGUAGES: &[&str] = &[
    "OpenCL C",
    "OpenCL C++",
    "HCC",
    "HIP",
    "OpenMP",
    "Assembler",
];
/// `.address_space` values.
pub(super) const ADDRESS_SPACES: &[&str] = &[
    "private", "global", "constant", "local", "generic", "region",
];
/// `.access` and `.actual_access` values.
pub(super) const ACCESSES: &[&str] = &["read_only", "write_only", "read_write"];
/// `.kind` values (not checked by LLVM's verifier).
pub(super) const KERNEL_KINDS: &[&str] = &["normal", "init", "fini"];
/// Prefix of `amdhsa.target` before the target ID proper.
pub(super) const TARGET_PREFIX: &str = "amdgcn-amd-amdhsa--";

/// The value kind a known key takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
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
pub(super) struct KeyDef {
    pub(super) key: &'static str,
    pub(super) shape: Shape,
    pub(super) required: bool,
    /// First code object version that defines the key.
    pub(super) since: CodeObjectVersion,
    /// Allowed string values, if LLVM's verifier restricts them.
    pub(super) values: Option<&'static [&'static str]>,
}

pub(super) const fn key(key: &'static str, shape: Shape) -> KeyDef {
    KeyDef {
        key,
        shape,
        required: false,
        since: CodeObjectVersion::V3,
        values: None,
    }
}
pub(super) const fn req(key: &'static str, shape: Shape) -> KeyDef {
    KeyDef {
        key,
        shape,
        required: true,
        since: CodeObjectVersion::V3,
        values: None,
    }
}
pub(super) const fn since(mut d: KeyDef, v: CodeObjectVersion) -> KeyDef {
    d.since = v;
    d
}
pub(super) const fn one_of(mut d: KeyDef, values: &'static [&'static str]) -> KeyDef {
    d.values = Some(values);
    d
}

pub(super) const ROOT_KEYS: &[KeyDef] = &[
    req("amdhsa.version", Shape::Ints(2)),
    since(key("amdhsa.target", Shape::Str), CodeObjectVersion::V4),
    key("amdhsa.printf", Shape::Strs),
    // Accepted by LLVM's verifier (each entry a map with .name and .size);
    // not modelled further.
    key("amdhsa.globals", Shape::Maps),
    req("amdhsa.kernels", Shape::Maps),
];

pub(super) const KERNEL_KEYS: &[KeyDef] = &[
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

pub(super) const ARG_KEYS: &[KeyDef] = &[
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

/// `.value_kind` spellings, in the order of [`ValueKind::ALL`]: made from
/// [`ValueKind::as_str`] at compile time, so the names are written once.
pub(super) const VALUE_KIND_NAMES: &[&str] = &{
    let mut names = [""; ValueKind::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = ValueKind::ALL[i].as_str();
        i += 1;
    }
    names
};

/// Which map a key sits in; decides the AMD namespace prefix and the
/// missing-key rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Level {
    Root,
    Kernel,
    Arg,
}

impl Level {
    pub(super) fn defs(self) -> &'static [KeyDef] {
        match self {
            Level::Root => ROOT_KEYS,
            Level::Kernel => KERNEL_KEYS,
            Level::Arg => ARG_KEYS,
        }
    }
    /// The required keys, as a bit set by table index.
    pub(super) fn required(self) -> u64 {
        match self {
            Level::Root => const { required_mask(ROOT_KEYS) },
            Level::Kernel => const { required_mask(KERNEL_KEYS) },
            Level::Arg => const { required_mask(ARG_KEYS) },
        }
    }
    pub(super) fn namespace(self) -> &'static str {
        match self {
            Level::Root => "amdhsa.",
            Level::Kernel | Level::Arg => ".",
        }
    }
    pub(super) fn missing_rule(self) -> &'static Rule {
        match self {
            Level::Root => &MISSING_KEY,
            Level::Kernel => &KERNEL_MISSING_KEY,
            Level::Arg => &ARG_MISSING_KEY,
        }
    }
}

/// Index of a value in the decoded [`Flat`] document.
pub(super) type Node = usize;

/// The required keys of `defs` as a bit set by index, at compile time.
pub(super) const fn required_mask(defs: &[KeyDef]) -> u64 {
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
pub(super) const fn def_index(defs: &[KeyDef], key: &str) -> usize {
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
        const { $crate::metadata::schema::def_index($crate::metadata::schema::ROOT_KEYS, $key) }
    };
    (kernel $key:literal) => {
        const { $crate::metadata::schema::def_index($crate::metadata::schema::KERNEL_KEYS, $key) }
    };
    (arg $key:literal) => {
        const { $crate::metadata::schema::def_index($crate::metadata::schema::ARG_KEYS, $key) }
    };
}
pub(crate) use kdef;

/// The spelling of a known key, read from its level's table (and checked
/// against it at compile time), for code that needs the name itself.
macro_rules! kname {
    (root $key:literal) => {
        $crate::metadata::schema::ROOT_KEYS[$crate::metadata::schema::kdef!(root $key)].key
    };
    (kernel $key:literal) => {
        $crate::metadata::schema::KERNEL_KEYS[$crate::metadata::schema::kdef!(kernel $key)].key
    };
    (arg $key:literal) => {
        $crate::metadata::schema::ARG_KEYS[$crate::metadata::schema::kdef!(arg $key)].key
    };
}
pub(crate) use kname;

/// Table sizes, for the fixed-size field arrays.
pub(super) const ROOT_N: usize = ROOT_KEYS.len();
pub(super) const KERNEL_N: usize = KERNEL_KEYS.len();
pub(super) const ARG_N: usize = ARG_KEYS.len();
// Known keys seen in a map are tracked in a u64 bit set.
const _: () = assert!(ROOT_N <= 64 && KERNEL_N <= 64 && ARG_N <= 64);
