//! Code object metadata (V3 and later): kernel arguments of every kind at
//! correct offsets and alignment, hidden arguments (the pre-V5 8-byte slots
//! or the V5 256-byte block), the kernel keys each version defines, and the
//! document both emitters write.
//!
//! [`MetadataSpec::doc`] turns the model into a [`Doc`]: maps whose keys
//! are in byte order, which is how LLVM's `msgpack::Document` (a sorted
//! map) writes them, so the ELF emitter's note is byte-identical to what
//! `llvm-mc` makes of the assembler text's YAML.
//!
//! Sources: amdgpu-usage.rst "Code Object V3 Metadata" and the kernel and
//! argument map tables; NOTES.md "Metadata" (hidden argument offsets); LLVM
//! `AMDGPUHSAMetadataStreamer.cpp` (which keys go with which kinds) and
//! `MsgPackDocument.cpp` (sorted maps). The oracle's `metadata` rules are
//! the acceptance test: every value drawn here passes them without a
//! warning or an info.

use crate::config::Config;
use arbitrary::Unstructured;
use hsaco_oracle::metadata::{self as om, ValueKind};
use hsaco_oracle::targets::CodeObjectVersion;
use serde::Serialize;

/// `.address_space` values the generators write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AddressSpace {
    /// `global`.
    Global,
    /// `constant`.
    Constant,
    /// `generic`.
    Generic,
    /// `local` (LDS).
    Local,
}

impl AddressSpace {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Global => "global",
            Self::Constant => "constant",
            Self::Generic => "generic",
            Self::Local => "local",
        }
    }
}

/// `.access` and `.actual_access` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// `read_only`.
    ReadOnly,
    /// `write_only`.
    WriteOnly,
    /// `read_write`.
    ReadWrite,
}

impl Access {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "read_only",
            Self::WriteOnly => "write_only",
            Self::ReadWrite => "read_write",
        }
    }
    const ALL: [Access; 3] = [Access::ReadOnly, Access::WriteOnly, Access::ReadWrite];
}

/// One kernel argument.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArgSpec {
    /// `.name`.
    pub name: Option<String>,
    /// `.type_name`.
    pub type_name: Option<&'static str>,
    /// `.size` in bytes.
    pub size: u32,
    /// `.offset` in the kernarg segment.
    pub offset: u32,
    /// `.value_kind`.
    pub kind: ValueKind,
    /// `.pointee_align` (dynamic_shared_pointer only).
    pub pointee_align: Option<u32>,
    /// `.address_space` (global_buffer and dynamic_shared_pointer).
    pub address_space: Option<AddressSpace>,
    /// `.access` (global_buffer, image, pipe).
    pub access: Option<Access>,
    /// `.actual_access` (global_buffer, image, pipe).
    pub actual_access: Option<Access>,
    /// `.is_const` (global_buffer).
    pub is_const: Option<bool>,
    /// `.is_restrict` (global_buffer).
    pub is_restrict: Option<bool>,
    /// `.is_volatile` (global_buffer).
    pub is_volatile: Option<bool>,
    /// `.is_pipe` (pipe).
    pub is_pipe: Option<bool>,
}

impl ArgSpec {
    /// An argument of `kind` at `offset`, `size` bytes, with no optional
    /// key.
    pub(crate) fn new(kind: ValueKind, offset: u32, size: u32) -> ArgSpec {
        ArgSpec {
            name: None,
            type_name: None,
            size,
            offset,
            kind,
            pointee_align: None,
            address_space: None,
            access: None,
            actual_access: None,
            is_const: None,
            is_restrict: None,
            is_volatile: None,
            is_pipe: None,
        }
    }

    /// The end of the argument in the kernarg segment.
    pub fn end(&self) -> u32 {
        self.offset + self.size
    }
}

/// One kernel's metadata map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KernelMeta {
    /// `.name`.
    pub name: String,
    /// `.symbol` (`.name` + `.kd`).
    pub symbol: String,
    /// `.language`.
    pub language: Option<&'static str>,
    /// `.language_version`.
    pub language_version: Option<[u32; 2]>,
    /// `.args` (omitted when empty, as LLVM does).
    pub args: Vec<ArgSpec>,
    /// `.reqd_workgroup_size`.
    pub reqd_workgroup_size: Option<[u32; 3]>,
    /// `.workgroup_size_hint`.
    pub workgroup_size_hint: Option<[u32; 3]>,
    /// `.vec_type_hint`.
    pub vec_type_hint: Option<&'static str>,
    /// `.device_enqueue_symbol`.
    pub device_enqueue_symbol: Option<String>,
    /// `.kernarg_segment_size`.
    pub kernarg_segment_size: u32,
    /// `.group_segment_fixed_size`.
    pub group_segment_fixed_size: u32,
    /// `.private_segment_fixed_size`.
    pub private_segment_fixed_size: u32,
    /// `.kernarg_segment_align`.
    pub kernarg_segment_align: u32,
    /// `.wavefront_size`.
    pub wavefront_size: u32,
    /// `.sgpr_count`.
    pub sgpr_count: u32,
    /// `.vgpr_count`.
    pub vgpr_count: u32,
    /// `.agpr_count` (targets with AGPRs).
    pub agpr_count: Option<u32>,
    /// `.max_flat_workgroup_size`.
    pub max_flat_workgroup_size: u32,
    /// `.max_num_workgroups_x/y/z`.
    pub max_num_workgroups: Option<[u32; 3]>,
    /// `.sgpr_spill_count`.
    pub sgpr_spill_count: Option<u32>,
    /// `.vgpr_spill_count`.
    pub vgpr_spill_count: Option<u32>,
    /// `.kind`.
    pub kind: Option<&'static str>,
    /// `.uses_dynamic_stack` (V4+).
    pub uses_dynamic_stack: Option<bool>,
    /// `.workgroup_processor_mode` (V5+, processors with WGP mode), an
    /// integer on the wire.
    pub workgroup_processor_mode: Option<bool>,
    /// `.uniform_work_group_size` (V5+), an integer on the wire.
    pub uniform_work_group_size: Option<bool>,
}

/// The whole metadata map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MetadataSpec {
    /// `amdhsa.version`.
    pub version: [u32; 2],
    /// `amdhsa.target` (V4+), with the triple prefix.
    pub target: Option<String>,
    /// `amdhsa.printf`.
    pub printf: Vec<String>,
    /// `amdhsa.kernels`.
    pub kernels: Vec<KernelMeta>,
}

/// A metadata document: what both emitters serialise. Map keys are in
/// byte order (the order LLVM writes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Doc<'a> {
    /// A map, keys sorted.
    Map(Vec<(&'static str, Doc<'a>)>),
    /// An array.
    Array(Vec<Doc<'a>>),
    /// A string.
    Str(&'a str),
    /// A string the document owns.
    Owned(String),
    /// A non-negative integer.
    UInt(u64),
    /// A boolean.
    Bool(bool),
}

fn uints(v: &[u32]) -> Doc<'static> {
    Doc::Array(v.iter().map(|&x| Doc::UInt(x.into())).collect())
}

/// Receives one metadata map's entries in key order. Each map's keys are
/// listed once ([`ArgSpec::entries`], [`KernelMeta::entries`]) and both
/// renderings are made from that list: the [`Doc`] tree (for YAML and
/// the mutators) and the MessagePack bytes, which
/// [`crate::emit::msgpack`] writes directly because building and freeing
/// a tree for every generated object cost a quarter of generation time.
pub(crate) trait Entries<'a> {
    /// A non-negative integer.
    fn uint(&mut self, k: &'static str, v: u64);
    /// A string.
    fn str(&mut self, k: &'static str, v: &'a str);
    /// A boolean.
    fn bool(&mut self, k: &'static str, v: bool);
    /// An array of integers.
    fn uints(&mut self, k: &'static str, v: &[u32]);
    /// The argument maps.
    fn args(&mut self, k: &'static str, v: &'a [ArgSpec]);
}

/// Collects entries into a [`Doc::Map`].
struct DocEntries<'a>(Vec<(&'static str, Doc<'a>)>);

impl<'a> Entries<'a> for DocEntries<'a> {
    fn uint(&mut self, k: &'static str, v: u64) {
        self.0.push((k, Doc::UInt(v)));
    }
    fn str(&mut self, k: &'static str, v: &'a str) {
        self.0.push((k, Doc::Str(v)));
    }
    fn bool(&mut self, k: &'static str, v: bool) {
        self.0.push((k, Doc::Bool(v)));
    }
    fn uints(&mut self, k: &'static str, v: &[u32]) {
        self.0.push((k, uints(v)));
    }
    fn args(&mut self, k: &'static str, v: &'a [ArgSpec]) {
        self.0
            .push((k, Doc::Array(v.iter().map(ArgSpec::doc).collect())));
    }
}

impl ArgSpec {
    fn doc(&self) -> Doc<'_> {
        let mut e = DocEntries(Vec::with_capacity(8));
        self.entries(&mut e);
        Doc::Map(e.0)
    }

    /// The argument map's entries, in key order.
    pub(crate) fn entries<'a, E: Entries<'a>>(&'a self, e: &mut E) {
        if let Some(a) = self.access {
            e.str(".access", a.as_str());
        }
        if let Some(a) = self.actual_access {
            e.str(".actual_access", a.as_str());
        }
        if let Some(a) = self.address_space {
            e.str(".address_space", a.as_str());
        }
        if let Some(b) = self.is_const {
            e.bool(".is_const", b);
        }
        if let Some(b) = self.is_pipe {
            e.bool(".is_pipe", b);
        }
        if let Some(b) = self.is_restrict {
            e.bool(".is_restrict", b);
        }
        if let Some(b) = self.is_volatile {
            e.bool(".is_volatile", b);
        }
        if let Some(n) = &self.name {
            e.str(".name", n);
        }
        e.uint(".offset", self.offset.into());
        if let Some(p) = self.pointee_align {
            e.uint(".pointee_align", p.into());
        }
        e.uint(".size", self.size.into());
        if let Some(t) = self.type_name {
            e.str(".type_name", t);
        }
        e.str(".value_kind", self.kind.as_str());
    }
}

impl KernelMeta {
    fn doc(&self) -> Doc<'_> {
        let mut e = DocEntries(Vec::with_capacity(28));
        self.entries(&mut e);
        Doc::Map(e.0)
    }

    /// The kernel map's entries, in key order.
    pub(crate) fn entries<'a, E: Entries<'a>>(&'a self, e: &mut E) {
        if let Some(a) = self.agpr_count {
            e.uint(".agpr_count", a.into());
        }
        if !self.args.is_empty() {
            e.args(".args", &self.args);
        }
        if let Some(s) = &self.device_enqueue_symbol {
            e.str(".device_enqueue_symbol", s);
        }
        e.uint(
            ".group_segment_fixed_size",
            self.group_segment_fixed_size.into(),
        );
        e.uint(".kernarg_segment_align", self.kernarg_segment_align.into());
        e.uint(".kernarg_segment_size", self.kernarg_segment_size.into());
        if let Some(k) = self.kind {
            e.str(".kind", k);
        }
        if let Some(l) = self.language {
            e.str(".language", l);
        }
        if let Some(v) = self.language_version {
            e.uints(".language_version", &v);
        }
        e.uint(
            ".max_flat_workgroup_size",
            self.max_flat_workgroup_size.into(),
        );
        if let Some([x, y, z]) = self.max_num_workgroups {
            e.uint(".max_num_workgroups_x", x.into());
            e.uint(".max_num_workgroups_y", y.into());
            e.uint(".max_num_workgroups_z", z.into());
        }
        e.str(".name", &self.name);
        e.uint(
            ".private_segment_fixed_size",
            self.private_segment_fixed_size.into(),
        );
        if let Some(r) = self.reqd_workgroup_size {
            e.uints(".reqd_workgroup_size", &r);
        }
        e.uint(".sgpr_count", self.sgpr_count.into());
        if let Some(s) = self.sgpr_spill_count {
            e.uint(".sgpr_spill_count", s.into());
        }
        e.str(".symbol", &self.symbol);
        if let Some(b) = self.uniform_work_group_size {
            e.uint(".uniform_work_group_size", b.into());
        }
        if let Some(b) = self.uses_dynamic_stack {
            e.bool(".uses_dynamic_stack", b);
        }
        if let Some(v) = self.vec_type_hint {
            e.str(".vec_type_hint", v);
        }
        e.uint(".vgpr_count", self.vgpr_count.into());
        if let Some(s) = self.vgpr_spill_count {
            e.uint(".vgpr_spill_count", s.into());
        }
        e.uint(".wavefront_size", self.wavefront_size.into());
        if let Some(b) = self.workgroup_processor_mode {
            e.uint(".workgroup_processor_mode", b.into());
        }
        if let Some(h) = self.workgroup_size_hint {
            e.uints(".workgroup_size_hint", &h);
        }
    }
}

impl MetadataSpec {
    /// The document both emitters write.
    pub fn doc(&self) -> Doc<'_> {
        root_doc(
            self.version,
            self.target.clone(),
            &self.printf,
            self.kernels.iter(),
        )
    }

    /// The model the oracle should decode from this metadata (for tests
    /// that compare the two).
    pub fn to_oracle(&self) -> om::Metadata {
        let s = |x: &str| Some(x.to_owned());
        let u = |x: u32| Some(u64::from(x));
        let tri = |v: Option<[u32; 3]>| v.map(|[a, b, c]| [a.into(), b.into(), c.into()]);
        om::Metadata {
            version: Some([self.version[0].into(), self.version[1].into()]),
            target: self.target.clone(),
            printf: self.printf.clone(),
            kernels: self
                .kernels
                .iter()
                .map(|k| om::Kernel {
                    name: s(&k.name),
                    symbol: s(&k.symbol),
                    language: k.language.map(str::to_owned),
                    language_version: k.language_version.map(|[a, b]| [a.into(), b.into()]),
                    args: k
                        .args
                        .iter()
                        .map(|a| om::Arg {
                            name: a.name.clone(),
                            type_name: a.type_name.map(str::to_owned),
                            size: u(a.size),
                            offset: u(a.offset),
                            value_kind: s(a.kind.as_str()),
                            value_type: None,
                            pointee_align: a.pointee_align.map(u64::from),
                            address_space: a.address_space.map(|x| x.as_str().to_owned()),
                            access: a.access.map(|x| x.as_str().to_owned()),
                            actual_access: a.actual_access.map(|x| x.as_str().to_owned()),
                            is_const: a.is_const,
                            is_restrict: a.is_restrict,
                            is_volatile: a.is_volatile,
                            is_pipe: a.is_pipe,
                            other_keys: Vec::new(),
                        })
                        .collect(),
                    reqd_workgroup_size: tri(k.reqd_workgroup_size),
                    workgroup_size_hint: tri(k.workgroup_size_hint),
                    vec_type_hint: k.vec_type_hint.map(str::to_owned),
                    device_enqueue_symbol: k.device_enqueue_symbol.clone(),
                    kernarg_segment_size: u(k.kernarg_segment_size),
                    group_segment_fixed_size: u(k.group_segment_fixed_size),
                    private_segment_fixed_size: u(k.private_segment_fixed_size),
                    kernarg_segment_align: u(k.kernarg_segment_align),
                    wavefront_size: u(k.wavefront_size),
                    sgpr_count: u(k.sgpr_count),
                    vgpr_count: u(k.vgpr_count),
                    agpr_count: k.agpr_count.map(u64::from),
                    max_flat_workgroup_size: u(k.max_flat_workgroup_size),
                    max_num_workgroups_x: k.max_num_workgroups.map(|v| v[0].into()),
                    max_num_workgroups_y: k.max_num_workgroups.map(|v| v[1].into()),
                    max_num_workgroups_z: k.max_num_workgroups.map(|v| v[2].into()),
                    sgpr_spill_count: k.sgpr_spill_count.map(u64::from),
                    vgpr_spill_count: k.vgpr_spill_count.map(u64::from),
                    kind: k.kind.map(str::to_owned),
                    uses_dynamic_stack: k.uses_dynamic_stack,
                    workgroup_processor_mode: k.workgroup_processor_mode,
                    uniform_work_group_size: k.uniform_work_group_size,
                    cluster_dims: None,
                    other_keys: Vec::new(),
                })
                .collect(),
            other_keys: Vec::new(),
        }
    }
}

/// The root map: `amdhsa.kernels`, `amdhsa.printf` (if any),
/// `amdhsa.target` (if given) and `amdhsa.version`, borrowing the kernels.
pub fn root_doc<'a>(
    version: [u32; 2],
    target: Option<String>,
    printf: &'a [String],
    kernels: impl Iterator<Item = &'a KernelMeta>,
) -> Doc<'a> {
    let mut m: Vec<(&'static str, Doc<'a>)> = Vec::with_capacity(4);
    m.push((
        "amdhsa.kernels",
        Doc::Array(kernels.map(KernelMeta::doc).collect()),
    ));
    if !printf.is_empty() {
        m.push((
            "amdhsa.printf",
            Doc::Array(printf.iter().map(|s| Doc::Str(s)).collect()),
        ));
    }
    if let Some(t) = target {
        m.push(("amdhsa.target", Doc::Owned(t)));
    }
    m.push(("amdhsa.version", uints(&version)));
    Doc::Map(m)
}

/// The explicit argument kinds `cfg` allows.
fn explicit_kinds(cfg: &Config) -> Vec<ValueKind> {
    use ValueKind as K;
    [
        (cfg.by_value_args, K::ByValue),
        (cfg.global_buffer_args, K::GlobalBuffer),
        (cfg.dynamic_shared_pointer_args, K::DynamicSharedPointer),
        (cfg.sampler_args, K::Sampler),
        (cfg.image_args, K::Image),
        (cfg.pipe_args, K::Pipe),
        (cfg.queue_args, K::Queue),
    ]
    .into_iter()
    .filter_map(|(on, k)| on.then_some(k))
    .collect()
}

/// The V5 hidden arguments, in slot order.
pub const V5_HIDDEN: [ValueKind; 23] = {
    use ValueKind as K;
    [
        K::HiddenBlockCountX,
        K::HiddenBlockCountY,
        K::HiddenBlockCountZ,
        K::HiddenGroupSizeX,
        K::HiddenGroupSizeY,
        K::HiddenGroupSizeZ,
        K::HiddenRemainderX,
        K::HiddenRemainderY,
        K::HiddenRemainderZ,
        K::HiddenGlobalOffsetX,
        K::HiddenGlobalOffsetY,
        K::HiddenGlobalOffsetZ,
        K::HiddenGridDims,
        K::HiddenPrintfBuffer,
        K::HiddenHostcallBuffer,
        K::HiddenMultigridSyncArg,
        K::HiddenHeapV1,
        K::HiddenDefaultQueue,
        K::HiddenCompletionAction,
        K::HiddenDynamicLdsSize,
        K::HiddenPrivateBase,
        K::HiddenSharedBase,
        K::HiddenQueuePtr,
    ]
};

/// The size of the V5 hidden argument block LLVM reserves.
pub const V5_HIDDEN_BLOCK: u32 = 256;

/// The pre-V5 hidden slots in order: each slot's possible kinds (LLVM
/// writes `hidden_none` for a slot it must skip).
fn pre_v5_slot(i: usize) -> &'static [ValueKind] {
    use ValueKind as K;
    match i {
        0 => &[K::HiddenGlobalOffsetX],
        1 => &[K::HiddenGlobalOffsetY],
        2 => &[K::HiddenGlobalOffsetZ],
        3 => &[
            K::HiddenPrintfBuffer,
            K::HiddenHostcallBuffer,
            K::HiddenNone,
        ],
        4 => &[K::HiddenDefaultQueue, K::HiddenNone],
        5 => &[K::HiddenCompletionAction, K::HiddenNone],
        _ => &[K::HiddenMultigridSyncArg, K::HiddenNone],
    }
}

const BY_VALUE_TYPES: &[&str] = &[
    "int", "uint", "float", "char", "short", "long", "double", "half", "int2", "float4",
    "struct S", "size_t",
];
const POINTER_TYPES: &[&str] = &["int*", "float*", "char*", "uint4*", "struct S*", "void*"];
const VEC_TYPE_HINTS: &[&str] = &["int", "float", "float4", "int2", "uint8", "double"];
const LANGUAGES: &[&str] = &[
    "OpenCL C",
    "OpenCL C++",
    "HCC",
    "HIP",
    "OpenMP",
    "Assembler",
];
const KERNEL_KINDS: &[&str] = &["normal", "init", "fini"];

/// Draws an identifier for a kernel or argument name: a letter or
/// underscore, then letters, digits and underscores, 1 to `max_len` bytes
/// (short half of the time). Names that assemblers or YAML could read as
/// something else (register names, numbers, booleans) get a `k_` prefix.
pub fn arbitrary_ident(u: &mut Unstructured<'_>, max_len: usize) -> arbitrary::Result<String> {
    const FIRST: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
    const REST: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789";
    let max_len = max_len.max(1);
    let len = if u.arbitrary::<bool>()? {
        u.int_in_range(1..=max_len.min(8))?
    } else {
        u.int_in_range(1..=max_len)?
    };
    let mut s = String::with_capacity(len + 2);
    s.push(char::from(*u.choose(FIRST)?));
    for _ in 1..len {
        s.push(char::from(*u.choose(REST)?));
    }
    if ambiguous_ident(&s) {
        s.insert_str(0, "k_");
    }
    Ok(s)
}

/// True for identifiers the AMDGPU assembler or LLVM's YAML reader could
/// take for something other than a name: register names (`s0`, `v12`,
/// `ttmp3`, `vcc`, ...) and words YAML reads as numbers or booleans.
pub fn ambiguous_ident(s: &str) -> bool {
    let l = s.to_ascii_lowercase();
    let numbered = |p: &str| {
        l.strip_prefix(p)
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    };
    numbered("s")
        || numbered("v")
        || numbered("a")
        || numbered("ttmp")
        || l.starts_with("vcc")
        || l.starts_with("exec")
        || l.starts_with("flat_scratch")
        || l.starts_with("xnack_mask")
        || l.starts_with("src_")
        || l.starts_with("tba")
        || l.starts_with("tma")
        || l.starts_with("inf")
        || l.starts_with("nan")
        || matches!(
            l.as_str(),
            "m0" | "scc" | "null" | "off" | "true" | "false" | "lds_direct" | "pc" | "sgpr_null"
        )
}

/// The explicit and hidden arguments of one kernel, with the
/// `.kernarg_segment_size` and `.kernarg_segment_align` they imply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgList {
    /// Explicit arguments, then hidden ones in slot order.
    pub args: Vec<ArgSpec>,
    /// `.kernarg_segment_size`: the explicit arguments' end, or with
    /// hidden arguments the hidden block's end (explicit end rounded to 8,
    /// plus 256 in V5, plus the slots used before V5), as clang writes it.
    pub kernarg_segment_size: u32,
    /// `.kernarg_segment_align`: the largest argument alignment, at least 4.
    pub kernarg_segment_align: u32,
}

/// Draws the arguments of a kernel for code object `cov`.
pub fn arbitrary_args(
    u: &mut Unstructured<'_>,
    cfg: &Config,
    cov: CodeObjectVersion,
) -> arbitrary::Result<ArgList> {
    use ValueKind as K;
    let kinds = explicit_kinds(cfg);
    let count = if kinds.is_empty() {
        0
    } else if u.arbitrary::<bool>()? {
        u.int_in_range(0..=cfg.max_explicit_args.min(4))?
    } else {
        u.int_in_range(0..=cfg.max_explicit_args)?
    };
    let opt = cfg.optional_metadata;
    let mut args = Vec::with_capacity(count + 8);
    let mut end = 0u32;
    let mut max_align = 4u32;
    for i in 0..count {
        let kind = *u.choose(&kinds)?;
        let (size, align) = match kind {
            K::ByValue => {
                let aligns: Vec<u32> = [1u32, 2, 4, 8, 16]
                    .into_iter()
                    .filter(|&a| a <= cfg.max_by_value_size)
                    .collect();
                let align = *u.choose(&aligns)?;
                let n = u.int_in_range(1..=(cfg.max_by_value_size / align).max(1))?;
                (align * n, align)
            }
            K::DynamicSharedPointer => (4, 4),
            _ => (8, 8),
        };
        let offset = end.div_ceil(align) * align;
        let mut a = ArgSpec::new(kind, offset, size);
        match kind {
            K::GlobalBuffer => {
                a.address_space = Some(*u.choose(&[
                    AddressSpace::Global,
                    AddressSpace::Constant,
                    AddressSpace::Generic,
                ])?);
                if opt {
                    a.access = optional(u, |u| Ok(*u.choose(&Access::ALL)?))?;
                    a.actual_access = optional(u, |u| Ok(*u.choose(&Access::ALL)?))?;
                    a.is_const = optional(u, |u| u.arbitrary())?;
                    a.is_restrict = optional(u, |u| u.arbitrary())?;
                    a.is_volatile = optional(u, |u| u.arbitrary())?;
                }
            }
            K::DynamicSharedPointer => {
                a.address_space = Some(AddressSpace::Local);
                if u.arbitrary()? {
                    a.pointee_align = Some(1 << u.int_in_range(0..=8)?);
                }
            }
            K::Image if opt => {
                a.access = optional(u, |u| Ok(*u.choose(&Access::ALL)?))?;
                a.actual_access = optional(u, |u| Ok(*u.choose(&Access::ALL)?))?;
            }
            K::Pipe if opt => {
                a.access = optional(u, |u| Ok(*u.choose(&Access::ALL)?))?;
                a.is_pipe = optional(u, |_| Ok(true))?;
            }
            _ => {}
        }
        if opt && u.arbitrary()? {
            a.name = Some(format!("{}{i}", arbitrary_ident(u, 12)?));
        }
        if opt && u.arbitrary()? {
            a.type_name = Some(match kind {
                K::ByValue => *u.choose(BY_VALUE_TYPES)?,
                K::GlobalBuffer | K::DynamicSharedPointer => *u.choose(POINTER_TYPES)?,
                K::Sampler => "sampler_t",
                K::Image => *u.choose(&["image1d_t", "image2d_t", "image3d_t"])?,
                K::Pipe => "int",
                _ => "queue_t",
            });
        }
        end = offset + size;
        max_align = max_align.max(align);
        args.push(a);
    }
    let explicit_end = end;
    let base = explicit_end.div_ceil(8) * 8;
    let mut size = explicit_end;
    if cfg.hidden_args && u.arbitrary::<bool>()? {
        max_align = max_align.max(8);
        if cov >= CodeObjectVersion::V5 {
            let all = u.arbitrary::<bool>()?;
            for kind in V5_HIDDEN {
                if all || u.arbitrary::<bool>()? {
                    if let Some((slot, len)) = kind.hidden_slot(cov) {
                        args.push(ArgSpec::new(kind, base + slot as u32, len as u32));
                    }
                }
            }
            size = base + V5_HIDDEN_BLOCK;
        } else {
            let slots = u.int_in_range(1..=7usize)?;
            for i in 0..slots {
                let kind = *u.choose(pre_v5_slot(i))?;
                args.push(ArgSpec::new(kind, base + 8 * i as u32, 8));
            }
            size = base + 8 * slots as u32;
        }
    }
    Ok(ArgList {
        args,
        kernarg_segment_size: size,
        kernarg_segment_align: max_align,
    })
}

fn optional<T>(
    u: &mut Unstructured<'_>,
    f: impl FnOnce(&mut Unstructured<'_>) -> arbitrary::Result<T>,
) -> arbitrary::Result<Option<T>> {
    if u.arbitrary::<bool>()? {
        Ok(Some(f(u)?))
    } else {
        Ok(None)
    }
}

/// Three work-group dimensions, each at least 1, whose product is at most
/// `max`.
fn dims_within(u: &mut Unstructured<'_>, max: u32) -> arbitrary::Result<[u32; 3]> {
    let x = u.int_in_range(1..=max.max(1))?;
    let y = u.int_in_range(1..=(max / x).max(1))?;
    let z = u.int_in_range(1..=(max / (x * y)).max(1))?;
    Ok([x, y, z])
}

/// The kernel keys that are not tied to the descriptor, drawn: language,
/// work-group sizes and hints, spill counts, kind. Fills the optional keys
/// of `k` in place.
pub fn arbitrary_kernel_extras(
    u: &mut Unstructured<'_>,
    cfg: &Config,
    cov: CodeObjectVersion,
    k: &mut KernelMeta,
) -> arbitrary::Result<()> {
    k.max_flat_workgroup_size = if u.arbitrary::<bool>()? {
        *u.choose(&[64, 128, 256, 512, 1024])?
    } else {
        u.int_in_range(1..=1024)?
    };
    if cov >= CodeObjectVersion::V5 && cfg.optional_metadata && u.arbitrary()? {
        k.uniform_work_group_size = Some(u.arbitrary()?);
    }
    if !cfg.optional_metadata {
        return Ok(());
    }
    if u.arbitrary()? {
        k.language = Some(*u.choose(LANGUAGES)?);
        if u.arbitrary()? {
            k.language_version = Some([u.int_in_range(1..=3)?, u.int_in_range(0..=2)?]);
        }
    }
    if u.ratio(1u8, 4)? {
        k.reqd_workgroup_size = Some(dims_within(u, k.max_flat_workgroup_size)?);
    }
    if u.ratio(1u8, 4)? {
        k.workgroup_size_hint = Some(dims_within(u, 1024)?);
    }
    if u.ratio(1u8, 4)? {
        k.vec_type_hint = Some(*u.choose(VEC_TYPE_HINTS)?);
    }
    if u.ratio(1u8, 8)? {
        k.device_enqueue_symbol = Some(format!("{}.runtime_handle", k.name));
    }
    if u.ratio(1u8, 4)? {
        k.max_num_workgroups = Some([
            u.int_in_range(1..=u32::MAX)?,
            u.int_in_range(1..=u32::MAX)?,
            u.int_in_range(1..=u32::MAX)?,
        ]);
    }
    if u.arbitrary()? {
        k.sgpr_spill_count = Some(u.int_in_range(0..=64)?);
        k.vgpr_spill_count = Some(u.int_in_range(0..=64)?);
    }
    if u.ratio(1u8, 4)? {
        k.kind = Some(*u.choose(KERNEL_KINDS)?);
    }
    Ok(())
}

/// Draws `amdhsa.printf` entries: `ID:N:S0:...:S(N-1):format`.
pub fn arbitrary_printf(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<String>> {
    const FORMATS: &[&str] = &["%d", "value %u: %f", "x=%s y=%p", "", "a:b %lx", "[%5.2f]"];
    let n = u.int_in_range(1..=3)?;
    let mut out = Vec::with_capacity(n);
    for id in 1..=n {
        let args: usize = u.int_in_range(0..=3)?;
        let mut s = format!("{id}:{args}");
        for _ in 0..args {
            s.push(':');
            s.push_str(u.choose(&["1", "2", "4", "8"])?);
        }
        s.push(':');
        s.push_str(u.choose(FORMATS)?);
        out.push(s);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys_sorted(d: &Doc<'_>) -> bool {
        match d {
            Doc::Map(m) => {
                m.windows(2).all(|w| w[0].0.as_bytes() < w[1].0.as_bytes())
                    && m.iter().all(|(_, v)| keys_sorted(v))
            }
            Doc::Array(a) => a.iter().all(keys_sorted),
            _ => true,
        }
    }

    #[test]
    fn docs_have_sorted_keys() {
        let bytes: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
        let mut u = Unstructured::new(&bytes);
        for cov in [CodeObjectVersion::V3, CodeObjectVersion::V5] {
            let list = arbitrary_args(&mut u, &Config::default(), cov).expect("draws");
            let mut k = KernelMeta {
                name: "k".into(),
                symbol: "k.kd".into(),
                language: Some("OpenCL C"),
                language_version: Some([2, 0]),
                args: list.args,
                reqd_workgroup_size: Some([1, 2, 3]),
                workgroup_size_hint: Some([4, 5, 6]),
                vec_type_hint: Some("int"),
                device_enqueue_symbol: Some("e".into()),
                kernarg_segment_size: list.kernarg_segment_size,
                group_segment_fixed_size: 0,
                private_segment_fixed_size: 0,
                kernarg_segment_align: list.kernarg_segment_align,
                wavefront_size: 64,
                sgpr_count: 1,
                vgpr_count: 1,
                agpr_count: Some(0),
                max_flat_workgroup_size: 256,
                max_num_workgroups: Some([1, 1, 1]),
                sgpr_spill_count: Some(0),
                vgpr_spill_count: Some(0),
                kind: Some("normal"),
                uses_dynamic_stack: Some(false),
                workgroup_processor_mode: Some(true),
                uniform_work_group_size: Some(true),
            };
            k.args.push(ArgSpec {
                name: Some("n".into()),
                type_name: Some("int*"),
                access: Some(Access::ReadOnly),
                actual_access: Some(Access::ReadOnly),
                address_space: Some(AddressSpace::Global),
                is_const: Some(true),
                is_pipe: Some(false),
                is_restrict: Some(true),
                is_volatile: Some(true),
                pointee_align: Some(4),
                ..ArgSpec::new(ValueKind::GlobalBuffer, 0, 8)
            });
            let md = MetadataSpec {
                version: [1, 0],
                target: Some("t".into()),
                printf: vec!["1:0:x".into()],
                kernels: vec![k],
            };
            assert!(keys_sorted(&md.doc()));
        }
    }

    #[test]
    fn v5_hidden_slots_are_the_oracles() {
        for k in V5_HIDDEN {
            assert!(k.hidden_slot(CodeObjectVersion::V5).is_some(), "{k:?}");
            assert!(k.is_hidden());
        }
        for i in 0..7 {
            for k in pre_v5_slot(i) {
                if *k != ValueKind::HiddenNone {
                    assert_eq!(
                        k.hidden_slot(CodeObjectVersion::V4).map(|s| s.0),
                        Some(8 * i as u64)
                    );
                }
                assert!(!k.since_v5());
            }
        }
    }

    #[test]
    fn identifiers() {
        for s in [
            "s0", "V12", "ttmp3", "vcc_lo", "exec", "inf", "NaN", "true", "m0", "a7",
        ] {
            assert!(ambiguous_ident(s), "{s}");
        }
        for s in ["s", "sx1", "kernel", "_Z3fooPi", "a_1", "v"] {
            assert!(!ambiguous_ident(s), "{s}");
        }
        let bytes = [0xffu8; 64];
        let mut u = Unstructured::new(&bytes);
        let id = arbitrary_ident(&mut u, 5).expect("draws");
        assert!(!id.is_empty() && id.len() <= 7);
    }
}
