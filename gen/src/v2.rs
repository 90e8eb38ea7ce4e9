//! Code object V2: the processors LLVM 14 writes it for, the kernels drawn
//! for it, and what each kernel's [`DescriptorSpec`] and [`KernelMeta`]
//! become in V2 form: a 256-byte `amd_kernel_code_t` ([`kernel_code`]),
//! the YAML metadata of the `NT_AMD_HSA_METADATA` note ([`metadata_doc`])
//! and the ISA notes ([`isa_version`], [`isa_name`]).
//!
//! The model stays [`CodeObject`] with `target.cov` V2. Every value V2
//! needs is derived from what the V3+ model already holds, the way LLVM 14
//! fills both structures from one set of facts (checked field by field
//! against `llc-14 --amdhsa-code-object-version=2 -filetype=asm`, which
//! prints the `.amd_kernel_code_t` block next to the metadata):
//!
//! - `amd_kernel_code_t` from the descriptor: rsrc1 and rsrc2 exactly as
//!   the V3 descriptor encodes them, the user SGPR enables, the segment
//!   sizes, `wavefront_sgpr_count` (the SGPRs with VCC, FLAT_SCRATCH and
//!   XNACK_MASK, or LLVM's fixed 96 on processors with the SGPR init bug),
//!   `workitem_vgpr_count`, `is_dynamic_callstack` from
//!   [`DescriptorSpec::uses_dynamic_stack`], `is_xnack_enabled` from the
//!   target's xnack setting; `kernarg_segment_alignment` is
//!   log2(max(16, `KernargSegmentAlign`)) as `AMDGPUAsmPrinter` writes it.
//! - The metadata from the kernel's metadata: V2 has no argument offsets,
//!   so each argument's `Align` ([`arg_align`]) is chosen so that a
//!   runtime placing the arguments in order lands on the modelled offsets;
//!   keys LLVM omits at their default (false, 0, empty) are omitted.
//!
//! What V2 needs that V3+ kernels do not have is drawn in [`build_kernel`]
//! into the existing fields: a dynamic call stack
//! ([`DescriptorSpec::uses_dynamic_stack`], which V2 records in
//! `is_dynamic_callstack` and `IsDynamicCallStack`), and SCRATCH_EN
//! whenever the kernel uses scratch (the oracle's `code.scratch_en`).

use crate::config::Config;
use crate::kd::{self, DescriptorSpec};
use crate::metadata::{self, AddressSpace, ArgList, ArgSpec, KernelMeta};
use crate::object::{CodeObject, Kernel, Rebuild};
use crate::target::TargetChoice;
use arbitrary::Unstructured;
use hsaco_oracle::kernel_code::KernelCode;
use hsaco_oracle::metadata::ValueKind;
use hsaco_oracle::metadata_v2 as om;
use hsaco_oracle::targets::{CodeObjectVersion, FeatureSetting, Target};
use std::borrow::Cow;

/// Processors `llc-14`/`llvm-mc-14 --amdhsa-code-object-version=2` write
/// code object V2 for. LLVM 14 rejects gfx908, gfx909, gfx90a and GFX10+
/// ("AMD GPU code object V2 does not support processor gfx908"), gfx801
/// and gfx810 without XNACK, and gfx90c with it.
pub const LLVM14_V2_TARGETS: &[&str] = &[
    "gfx600", "gfx601", "gfx602", "gfx700", "gfx701", "gfx702", "gfx703", "gfx704", "gfx705",
    "gfx801", "gfx802", "gfx803", "gfx805", "gfx810", "gfx900", "gfx902", "gfx904", "gfx906",
    "gfx90c",
];

/// Processors whose V2 ISA version LLVM 14 raises by one stepping when
/// xnack is on (`NT_AMD_HSA_ISA_NAME` then names gfx901, gfx903, gfx905,
/// gfx907).
const XNACK_STEPPING: &[&str] = &["gfx900", "gfx902", "gfx904", "gfx906"];

/// True if LLVM 14 writes code object V2 for `t`.
pub fn fits(t: &Target) -> bool {
    LLVM14_V2_TARGETS.contains(&t.name)
}

/// The xnack settings LLVM 14 accepts for `t` at V2 (V2 has one bit: on
/// or off): on only for gfx801 and gfx810, off only for gfx90c, either
/// elsewhere on processors with XNACK.
pub fn xnack_settings(t: &Target) -> &'static [FeatureSetting] {
    if !t.xnack {
        &[FeatureSetting::Unsupported]
    } else if matches!(t.name, "gfx801" | "gfx810") {
        &[FeatureSetting::On]
    } else if t.name == "gfx90c" {
        &[FeatureSetting::Off]
    } else {
        &[FeatureSetting::On, FeatureSetting::Off]
    }
}

/// Draws the xnack setting of a V2 target (see [`xnack_settings`]).
pub fn arbitrary_xnack(u: &mut Unstructured<'_>, t: &Target) -> arbitrary::Result<FeatureSetting> {
    Ok(*u.choose(xnack_settings(t))?)
}

/// True if the target's xnack bit is set (V2 cannot say "any").
pub fn xnack_on(tc: &TargetChoice) -> bool {
    tc.id.xnack == FeatureSetting::On
}

/// `NT_AMD_HSA_ISA_VERSION` (and `.hsa_code_object_isa`): the processor's
/// ISA version, one stepping higher for gfx900/902/904/906 with xnack.
pub fn isa_version(tc: &TargetChoice) -> [u32; 3] {
    let t = tc.target();
    let [major, minor, stepping] = t.isa_version.map(u32::from);
    let bump = xnack_on(tc) && XNACK_STEPPING.contains(&t.name);
    [major, minor, stepping + u32::from(bump)]
}

/// `NT_AMD_HSA_ISA_NAME`: `amdgcn-amd-amdhsa--` and the processor as LLVM
/// 14 names it at V2 (gfx901 for gfx900 with xnack, and so on).
pub fn isa_name(tc: &TargetChoice) -> String {
    let t = tc.target();
    let name = if xnack_on(tc) && XNACK_STEPPING.contains(&t.name) {
        let [a, b, c] = isa_version(tc);
        format!("gfx{a}{b}{c}")
    } else {
        t.name.to_owned()
    };
    format!("amdgcn-amd-amdhsa--{name}")
}

/// SGPRs a V2 kernel reports (`wavefront_sgpr_count`, `NumSGPRs`): the
/// descriptor's count with VCC, FLAT_SCRATCH and XNACK_MASK, or 96 on
/// processors with the SGPR init bug, where LLVM always allocates 96 and
/// says so (`llc-14 -mcpu=gfx802`: `wavefront_sgpr_count = 96`,
/// `NumSGPRs: 96`).
pub fn sgpr_count(tc: &TargetChoice, d: &DescriptorSpec) -> u16 {
    if tc.target().sgpr_init_bug {
        96
    } else {
        d.sgpr_count(tc)
    }
}

/// The `Align` of a V2 argument: the largest power of two up to 16 that
/// divides both its size and its offset. Placing the argument at the
/// previous end rounded up to it gives the modelled offset (the offset is
/// the smallest multiple of the drawn alignment at or after the previous
/// end, and this value is a multiple of the drawn alignment that divides
/// the offset), and it is what LLVM writes for the types that produce
/// these layouts (8 for pointers and hidden arguments, 4 for LDS
/// pointers).
pub fn arg_align(a: &ArgSpec) -> u32 {
    let bits = a.size.max(1) | a.offset;
    (bits & bits.wrapping_neg()).min(16)
}

/// `kernarg_segment_alignment`: log2 of max(16, `KernargSegmentAlign`)
/// (rounded up to a power of two), as `AMDGPUAsmPrinter::getAmdKernelCode`
/// writes it.
pub fn kernarg_segment_alignment(ksa: u32) -> u8 {
    ksa.max(16).next_power_of_two().trailing_zeros() as u8
}

/// The `amd_kernel_code_t` LLVM 14 writes for kernel `k` on `tc`, entry at
/// byte 256.
pub fn kernel_code(tc: &TargetChoice, k: &Kernel) -> KernelCode {
    let d = &k.descriptor;
    let m = &k.metadata;
    let kd = d.encode(tc, 0);
    let mut props = u32::from(d.enables.user & 0x7f)
        | 1 << hsaco_oracle::kernel_code::props::PRIVATE_ELEMENT_SIZE_SHIFT
        | hsaco_oracle::kernel_code::props::IS_PTR64;
    if d.uses_dynamic_stack {
        props |= hsaco_oracle::kernel_code::props::IS_DYNAMIC_CALLSTACK;
    }
    if xnack_on(tc) {
        props |= hsaco_oracle::kernel_code::props::IS_XNACK_ENABLED;
    }
    let [major, minor, stepping] = tc.target().isa_version.map(u16::from);
    KernelCode {
        amd_kernel_code_version_major: 1,
        amd_kernel_code_version_minor: 2,
        amd_machine_kind: 1,
        amd_machine_version_major: major,
        amd_machine_version_minor: minor,
        amd_machine_version_stepping: stepping,
        kernel_code_entry_byte_offset: 256,
        compute_pgm_rsrc1: kd.compute_pgm_rsrc1,
        compute_pgm_rsrc2: kd.compute_pgm_rsrc2,
        code_properties: props,
        workitem_private_segment_byte_size: d.private_segment_fixed_size,
        workgroup_group_segment_byte_size: d.group_segment_fixed_size,
        kernarg_segment_byte_size: d.kernarg_size.into(),
        wavefront_sgpr_count: sgpr_count(tc, d),
        workitem_vgpr_count: d.next_free_vgpr,
        kernarg_segment_alignment: kernarg_segment_alignment(m.kernarg_segment_align),
        group_segment_alignment: 4,
        private_segment_alignment: 4,
        wavefront_size: if d.enables.is_wave32(tc.target()) {
            5
        } else {
            6
        },
        call_convention: -1,
        ..KernelCode::default()
    }
}

/// Which installed assembler rebuilds a V2 object from its text:
/// llvm-mc-14 when LLVM 14 writes V2 for the target and its xnack setting
/// and no descriptor uses FP16_OVFL (LLVM 14's `.amd_kernel_code_t` has
/// no field for it).
pub fn rebuild(co: &CodeObject) -> Rebuild {
    let t = co.target.target();
    let ok = fits(t)
        && xnack_settings(t).contains(&co.target.id.xnack)
        && co.kernels.iter().all(|k| !k.descriptor.fp16_overflow);
    if ok {
        Rebuild::Llvm14
    } else {
        Rebuild::Unavailable
    }
}

/// Finishes V2 kernel `name` on `tc` from drawn arguments, register use
/// and descriptor (drawn as for V3+ by [`crate::object::build_kernel`]):
/// the V2 facts (the kernarg size always given, since the
/// `amd_kernel_code_t` has no "not given"; no FP16_OVFL; a drawn dynamic
/// call stack; SCRATCH_EN when the kernel uses scratch), the code, and
/// the metadata keys V2 has.
pub(crate) fn finish_kernel(
    u: &mut Unstructured<'_>,
    cfg: &Config,
    tc: &TargetChoice,
    name: String,
    args: ArgList,
    vgprs: kd::VgprUse,
    mut d: DescriptorSpec,
) -> arbitrary::Result<Kernel> {
    let t = tc.target();
    d.kernarg_size = args.kernarg_segment_size;
    d.fp16_overflow = false;
    d.uses_dynamic_stack = cfg.dynamic_stack && u.ratio(1u8, 4)?;
    if (d.private_segment_fixed_size > 0 || d.uses_dynamic_stack) && !d.enables.private_segment {
        // LLVM sets SCRATCH_EN whenever the kernel uses scratch; the wave
        // offset SGPR it adds must fit the allocation.
        d.enables.private_segment = true;
        d.next_free_sgpr = d.next_free_sgpr.max(d.enables.total_sgprs(t));
    }
    let code = crate::object::arbitrary_code(u, cfg, tc, &mut d)?;
    let align = args
        .args
        .iter()
        .map(arg_align)
        .fold(args.kernarg_segment_align, u32::max);
    let mut meta =
        crate::object::descriptor_metadata(name.clone(), format!("{name}@kd"), args, &d, &vgprs);
    meta.kernarg_segment_align = align;
    meta.sgpr_count = sgpr_count(tc, &d).into();
    meta.uses_dynamic_stack = Some(d.uses_dynamic_stack);
    metadata::arbitrary_kernel_extras(u, cfg, CodeObjectVersion::V2, &mut meta)?;
    // V2 metadata has no keys for these.
    meta.max_num_workgroups = None;
    meta.kind = None;
    Ok(Kernel {
        name,
        descriptor: d,
        metadata: meta,
        code,
        text: Vec::new(),
    })
}

// ---------------------------------------------------------------------------
// Metadata.

/// A mapping key (the keys LLVM defines are static strings; mutants add
/// others).
pub type Key = Cow<'static, str>;

/// A YAML node as LLVM's `yaml::Output` writes V2 metadata; the text is
/// [`Yaml::to_text`] (in [`crate::emit::v2`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Yaml {
    /// A block mapping, keys in order.
    Map(Vec<(Key, Yaml)>),
    /// A block sequence.
    Seq(Vec<Yaml>),
    /// A flow sequence of integers (`[ 1, 0 ]`).
    Flow(Vec<u64>),
    /// A string, quoted as LLVM quotes it.
    Str(Cow<'static, str>),
    /// An unsigned integer.
    UInt(u64),
    /// A boolean (`true`, `false`).
    Bool(bool),
    /// Text written as it is (for mutants: quoted numbers, tags, broken
    /// syntax).
    Raw(String),
}

impl Yaml {
    /// The entries of a mapping.
    pub fn map_mut(&mut self) -> Option<&mut Vec<(Key, Yaml)>> {
        match self {
            Yaml::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The items of a block sequence.
    pub fn seq_mut(&mut self) -> Option<&mut Vec<Yaml>> {
        match self {
            Yaml::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// The value of `key` in a mapping.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Yaml> {
        self.map_mut()?
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|e| &mut e.1)
    }

    /// Sets `key` (replacing its value, or adding it at the end).
    pub fn set(&mut self, key: &str, v: Yaml) -> Option<()> {
        let m = self.map_mut()?;
        match m.iter_mut().find(|(k, _)| k == key) {
            Some(e) => e.1 = v,
            None => m.push((Cow::Owned(key.to_owned()), v)),
        }
        Some(())
    }

    /// Removes `key`; `None` if it was not there.
    pub fn remove(&mut self, key: &str) -> Option<Yaml> {
        let m = self.map_mut()?;
        let i = m.iter().position(|(k, _)| k == key)?;
        Some(m.remove(i).1)
    }
}

/// The V2 `ValueKind` spelling of `kind` (`None` for V5-only kinds).
pub fn value_kind_name(kind: ValueKind) -> Option<&'static str> {
    om::VALUE_KINDS
        .iter()
        .find(|(_, k)| *k == kind)
        .map(|(n, _)| *n)
}

fn address_space_name(a: AddressSpace) -> &'static str {
    match a {
        AddressSpace::Global => "Global",
        AddressSpace::Constant => "Constant",
        AddressSpace::Generic => "Generic",
        AddressSpace::Local => "Local",
    }
}

fn access_name(a: metadata::Access) -> &'static str {
    match a {
        metadata::Access::ReadOnly => "ReadOnly",
        metadata::Access::WriteOnly => "WriteOnly",
        metadata::Access::ReadWrite => "ReadWrite",
    }
}

fn flow(v: &[u32]) -> Yaml {
    Yaml::Flow(v.iter().map(|&x| x.into()).collect())
}

/// One argument's mapping, keys in LLVM's order, defaults omitted.
pub fn arg_doc(a: &ArgSpec) -> Yaml {
    let mut m: Vec<(Key, Yaml)> = Vec::with_capacity(10);
    let mut put = |k: &'static str, v: Yaml| m.push((Cow::Borrowed(k), v));
    if let Some(n) = a.name.as_deref().filter(|n| !n.is_empty()) {
        put("Name", Yaml::Str(Cow::Owned(n.to_owned())));
    }
    if let Some(t) = a.type_name.filter(|t| !t.is_empty()) {
        put("TypeName", Yaml::Str(Cow::Borrowed(t)));
    }
    put("Size", Yaml::UInt(a.size.into()));
    put("Align", Yaml::UInt(arg_align(a).into()));
    put(
        "ValueKind",
        Yaml::Str(Cow::Borrowed(value_kind_name(a.kind).unwrap_or("ByValue"))),
    );
    if let Some(p) = a.pointee_align.filter(|&p| p != 0) {
        put("PointeeAlign", Yaml::UInt(p.into()));
    }
    if let Some(s) = a.address_space {
        put(
            "AddrSpaceQual",
            Yaml::Str(Cow::Borrowed(address_space_name(s))),
        );
    }
    if let Some(x) = a.access {
        put("AccQual", Yaml::Str(Cow::Borrowed(access_name(x))));
    }
    if let Some(x) = a.actual_access {
        put("ActualAccQual", Yaml::Str(Cow::Borrowed(access_name(x))));
    }
    for (k, v) in [
        ("IsConst", a.is_const),
        ("IsRestrict", a.is_restrict),
        ("IsVolatile", a.is_volatile),
        ("IsPipe", a.is_pipe),
    ] {
        if v == Some(true) {
            put(k, Yaml::Bool(true));
        }
    }
    Yaml::Map(m)
}

/// One kernel's mapping, keys in LLVM's order, defaults omitted.
pub fn kernel_doc(tc: &TargetChoice, k: &KernelMeta) -> Yaml {
    let mut m: Vec<(Key, Yaml)> = Vec::with_capacity(8);
    m.push(("Name".into(), Yaml::Str(Cow::Owned(k.name.clone()))));
    m.push(("SymbolName".into(), Yaml::Str(Cow::Owned(k.symbol.clone()))));
    if let Some(l) = k.language.filter(|l| !l.is_empty()) {
        m.push(("Language".into(), Yaml::Str(Cow::Borrowed(l))));
    }
    if let Some(v) = k.language_version {
        m.push(("LanguageVersion".into(), flow(&v)));
    }
    let mut attrs: Vec<(Key, Yaml)> = Vec::new();
    if let Some(r) = k.reqd_workgroup_size {
        attrs.push(("ReqdWorkGroupSize".into(), flow(&r)));
    }
    if let Some(h) = k.workgroup_size_hint {
        attrs.push(("WorkGroupSizeHint".into(), flow(&h)));
    }
    if let Some(v) = k.vec_type_hint.filter(|v| !v.is_empty()) {
        attrs.push(("VecTypeHint".into(), Yaml::Str(Cow::Borrowed(v))));
    }
    if let Some(s) = k.device_enqueue_symbol.as_deref().filter(|s| !s.is_empty()) {
        attrs.push(("RuntimeHandle".into(), Yaml::Str(Cow::Owned(s.to_owned()))));
    }
    if !attrs.is_empty() {
        m.push(("Attrs".into(), Yaml::Map(attrs)));
    }
    if !k.args.is_empty() {
        m.push((
            "Args".into(),
            Yaml::Seq(k.args.iter().map(arg_doc).collect()),
        ));
    }
    let mut cp: Vec<(Key, Yaml)> = Vec::with_capacity(12);
    let mut put = |key: &'static str, v: Yaml| cp.push((Cow::Borrowed(key), v));
    put(
        "KernargSegmentSize",
        Yaml::UInt(k.kernarg_segment_size.into()),
    );
    put(
        "GroupSegmentFixedSize",
        Yaml::UInt(k.group_segment_fixed_size.into()),
    );
    put(
        "PrivateSegmentFixedSize",
        Yaml::UInt(k.private_segment_fixed_size.into()),
    );
    put(
        "KernargSegmentAlign",
        Yaml::UInt(k.kernarg_segment_align.into()),
    );
    put("WavefrontSize", Yaml::UInt(k.wavefront_size.into()));
    for (key, v) in [
        ("NumSGPRs", k.sgpr_count),
        ("NumVGPRs", k.vgpr_count),
        ("MaxFlatWorkGroupSize", k.max_flat_workgroup_size),
    ] {
        if v != 0 {
            put(key, Yaml::UInt(v.into()));
        }
    }
    if k.uses_dynamic_stack == Some(true) {
        put("IsDynamicCallStack", Yaml::Bool(true));
    }
    if xnack_on(tc) {
        put("IsXNACKEnabled", Yaml::Bool(true));
    }
    for (key, v) in [
        ("NumSpilledSGPRs", k.sgpr_spill_count),
        ("NumSpilledVGPRs", k.vgpr_spill_count),
    ] {
        if let Some(v) = v.filter(|&v| v != 0) {
            put(key, Yaml::UInt(v.into()));
        }
    }
    m.push(("CodeProps".into(), Yaml::Map(cp)));
    Yaml::Map(m)
}

/// The whole metadata document: `Version`, `Printf` (if any), `Kernels`.
pub fn metadata_doc(co: &CodeObject) -> Yaml {
    let mut m: Vec<(Key, Yaml)> = vec![("Version".into(), Yaml::Flow(vec![1, 0]))];
    if !co.printf.is_empty() {
        m.push((
            "Printf".into(),
            Yaml::Seq(
                co.printf
                    .iter()
                    .map(|p| Yaml::Str(Cow::Owned(p.clone())))
                    .collect(),
            ),
        ));
    }
    if !co.kernels.is_empty() {
        m.push((
            "Kernels".into(),
            Yaml::Seq(
                co.kernels
                    .iter()
                    .map(|k| kernel_doc(&co.target, &k.metadata))
                    .collect(),
            ),
        ));
    }
    Yaml::Map(m)
}

/// The model the oracle should decode from the metadata of `co` (for tests
/// that compare the two): what [`metadata_doc`] writes, with LLVM's
/// omissions, and each argument's offset as a runtime computes it.
pub fn to_oracle(co: &CodeObject) -> om::MetadataV2 {
    let s = |x: &str| Some(x.to_owned());
    let nz = |v: Option<u32>| v.filter(|&v| v != 0).map(u64::from);
    let truth = |v: Option<bool>| v.filter(|&b| b);
    let ints = |v: &[u32]| v.iter().map(|&x| u64::from(x)).collect::<Vec<u64>>();
    let kernels = co
        .kernels
        .iter()
        .map(|k| {
            let m = &k.metadata;
            let attrs = om::AttrsV2 {
                reqd_work_group_size: m.reqd_workgroup_size.map(|v| ints(&v)),
                work_group_size_hint: m.workgroup_size_hint.map(|v| ints(&v)),
                vec_type_hint: m.vec_type_hint.map(str::to_owned),
                runtime_handle: m.device_enqueue_symbol.clone(),
                other_keys: Vec::new(),
            };
            let has_attrs = attrs.reqd_work_group_size.is_some()
                || attrs.work_group_size_hint.is_some()
                || attrs.vec_type_hint.is_some()
                || attrs.runtime_handle.is_some();
            om::KernelV2 {
                name: s(&m.name),
                symbol_name: s(&m.symbol),
                language: m.language.map(str::to_owned),
                language_version: m.language_version.map(|v| ints(&v)),
                attrs: has_attrs.then_some(attrs),
                args: m
                    .args
                    .iter()
                    .map(|a| om::ArgV2 {
                        name: a.name.clone(),
                        type_name: a.type_name.map(str::to_owned),
                        size: Some(a.size.into()),
                        align: Some(arg_align(a).into()),
                        value_kind: value_kind_name(a.kind).map(str::to_owned),
                        value_type: None,
                        pointee_align: nz(a.pointee_align),
                        addr_space_qual: a.address_space.map(|x| address_space_name(x).to_owned()),
                        acc_qual: a.access.map(|x| access_name(x).to_owned()),
                        actual_acc_qual: a.actual_access.map(|x| access_name(x).to_owned()),
                        is_const: truth(a.is_const),
                        is_restrict: truth(a.is_restrict),
                        is_volatile: truth(a.is_volatile),
                        is_pipe: truth(a.is_pipe),
                        offset: Some(a.offset.into()),
                        other_keys: Vec::new(),
                    })
                    .collect(),
                code_props: Some(om::CodePropsV2 {
                    kernarg_segment_size: Some(m.kernarg_segment_size.into()),
                    group_segment_fixed_size: Some(m.group_segment_fixed_size.into()),
                    private_segment_fixed_size: Some(m.private_segment_fixed_size.into()),
                    kernarg_segment_align: Some(m.kernarg_segment_align.into()),
                    wavefront_size: Some(m.wavefront_size.into()),
                    num_sgprs: nz(Some(m.sgpr_count)),
                    num_vgprs: nz(Some(m.vgpr_count)),
                    max_flat_work_group_size: nz(Some(m.max_flat_workgroup_size)),
                    is_dynamic_call_stack: truth(m.uses_dynamic_stack),
                    is_xnack_enabled: xnack_on(&co.target).then_some(true),
                    num_spilled_sgprs: nz(m.sgpr_spill_count),
                    num_spilled_vgprs: nz(m.vgpr_spill_count),
                    other_keys: Vec::new(),
                }),
                debug_props: None,
                other_keys: Vec::new(),
            }
        })
        .collect();
    om::MetadataV2 {
        version: Some(vec![1, 0]),
        printf: co.printf.clone(),
        kernels,
        other_keys: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsaco_oracle::targets::{by_name, TargetId};

    fn tc(name: &str, xnack: FeatureSetting) -> TargetChoice {
        let t = by_name(name).unwrap_or_else(|| panic!("{name}"));
        let id = TargetId::new(
            t,
            if t.xnack {
                xnack
            } else {
                FeatureSetting::Unsupported
            },
            if t.sramecc {
                FeatureSetting::On
            } else {
                FeatureSetting::Unsupported
            },
        )
        .expect("valid");
        TargetChoice {
            id,
            cov: CodeObjectVersion::V2,
            generic_version: 0,
        }
    }

    #[test]
    fn isa_notes_like_llc14() {
        // llc-14 --amdhsa-code-object-version=2 (NT_AMD_HSA_ISA_NAME).
        use FeatureSetting::{Off, On};
        for (p, x, name, v) in [
            ("gfx900", On, "gfx901", [9, 0, 1]),
            ("gfx900", Off, "gfx900", [9, 0, 0]),
            ("gfx906", On, "gfx907", [9, 0, 7]),
            ("gfx904", On, "gfx905", [9, 0, 5]),
            ("gfx801", On, "gfx801", [8, 0, 1]),
            ("gfx810", On, "gfx810", [8, 1, 0]),
            ("gfx90c", Off, "gfx90c", [9, 0, 12]),
            ("gfx705", Off, "gfx705", [7, 0, 5]),
        ] {
            let c = tc(p, x);
            assert_eq!(isa_name(&c), format!("amdgcn-amd-amdhsa--{name}"), "{p}");
            assert_eq!(isa_version(&c), v, "{p}");
        }
    }

    #[test]
    fn targets_exist_and_settings() {
        for n in LLVM14_V2_TARGETS {
            let t = by_name(n).expect("known");
            assert!(fits(t) && t.hsa && !t.is_generic, "{n}");
            assert!(!xnack_settings(t).is_empty());
        }
        for n in ["gfx908", "gfx909", "gfx90a", "gfx1010", "gfx1100"] {
            assert!(!fits(by_name(n).expect("known")), "{n}");
        }
    }

    #[test]
    fn arg_aligns_place_args_at_their_offsets() {
        let mk = |size: u32, offset: u32| ArgSpec::new(ValueKind::ByValue, offset, size);
        assert_eq!(arg_align(&mk(8, 0)), 8);
        assert_eq!(arg_align(&mk(4, 20)), 4);
        assert_eq!(arg_align(&mk(3, 5)), 1);
        assert_eq!(arg_align(&mk(64, 32)), 16);
        assert_eq!(arg_align(&mk(12, 0)), 4);
        assert_eq!(kernarg_segment_alignment(4), 4);
        assert_eq!(kernarg_segment_alignment(16), 4);
        assert_eq!(kernarg_segment_alignment(32), 5);
        assert_eq!(kernarg_segment_alignment(12), 4);
    }
}
