//! Mutators for code object V2 rules (`note.v2.*`, `metadata.v2.*`,
//! `symbol.v2.*`, `code.*`, V2-only `sgpr.*`), on the V2 cases of
//! [`crate::v2`].
//!
//! Where the model expresses the break (a metadata value, a segment size,
//! an enable, a printf string) the mutator changes the [`CodeObject`] and
//! re-emits it, so the assembler text still describes the mutant
//! ([`MutantAsm::Rebuilds`]). Below the model it edits the
//! [`Image`] (the notes, an `amd_kernel_code_t`, the placement of a
//! kernel, `e_flags`, the symbol table) or the metadata's [`Yaml`] tree,
//! and writes the image with the V2 writer, so the layout stays lld's.
//!
//! Every mutator returns `None` on a case that is not V2.

use super::{
    any_kernel, int, int_except, kernel_where, non_pow2, patch_case, pick, remodel, word, Ctx,
    MutantAsm, Mutator, Out, R,
};
use crate::emit::v2::{idx, Image, Note};
use crate::metadata::{AddressSpace, ArgSpec, KernelMeta};
use crate::object::{CodeObject, Kernel};
use crate::v2::{self as model, Yaml};
use arbitrary::Unstructured;
use hsaco_oracle as oracle;
use hsaco_oracle::kernel_code::KernelCode;
use hsaco_oracle::metadata::ValueKind;
use hsaco_oracle::notes::{
    NT_AMD_HSA_CODE_OBJECT_VERSION, NT_AMD_HSA_HSAIL, NT_AMD_HSA_ISA_NAME, NT_AMD_HSA_ISA_VERSION,
    NT_AMD_HSA_METADATA, NT_AMD_PAL_METADATA,
};
use hsaco_oracle::rules::Rule;
use hsaco_oracle::targets::{self, CodeObjectVersion, Generation};

/// True if `rule` is one of this module's (V2-only) rules: V2 cases take
/// only these mutators, and these mutators only V2 cases.
pub(super) fn owns(rule: &Rule) -> bool {
    MUTATORS.iter().any(|m| m.rule == rule)
}

// ---------------------------------------------------------------------------
// Helpers.

fn v2(c: &Ctx<'_>) -> bool {
    c.cov == CodeObjectVersion::V2
}

/// The case's image, edited by `f` (`None` from `f`: not applicable).
fn image(c: &Ctx<'_>, f: impl FnOnce(&mut Image) -> Option<()>) -> Option<Out> {
    if !v2(c) {
        return None;
    }
    let mut img = Image::from_object(c.co);
    f(&mut img)?;
    Some(Out {
        object: c.co.clone(),
        elf: img.write(),
    })
}

/// The case with its metadata document edited by `f`.
fn yaml(c: &Ctx<'_>, f: impl FnOnce(&mut Yaml) -> Option<()>) -> Option<Out> {
    image(c, |img| {
        let mut doc = model::metadata_doc(c.co);
        f(&mut doc)?;
        img.note_mut(NT_AMD_HSA_METADATA)?.desc = doc.to_text().into_bytes();
        Some(())
    })
}

/// The case with the `amd_kernel_code_t` of kernel `i` edited by `f`.
fn code(c: &Ctx<'_>, i: usize, f: impl FnOnce(&mut KernelCode) -> Option<()>) -> Option<Out> {
    image(c, |img| f(&mut img.kernels.get_mut(i)?.header))
}

/// The model changed by `f` and re-emitted.
fn model_edit(c: &Ctx<'_>, f: impl FnOnce(&mut CodeObject) -> Option<()>) -> Option<Out> {
    if !v2(c) {
        return None;
    }
    let mut co = c.co.clone();
    f(&mut co)?;
    Some(remodel(co))
}

/// Kernel `i`'s metadata changed by `f` and re-emitted.
fn meta_edit(c: &Ctx<'_>, i: usize, f: impl FnOnce(&mut KernelMeta) -> Option<()>) -> Option<Out> {
    model_edit(c, |co| f(&mut co.kernels.get_mut(i)?.metadata))
}

fn kernels(doc: &mut Yaml) -> Option<&mut Vec<Yaml>> {
    doc.get_mut("Kernels")?.seq_mut()
}

fn kernel(doc: &mut Yaml, i: usize) -> Option<&mut Yaml> {
    kernels(doc)?.get_mut(i)
}

fn code_props(doc: &mut Yaml, i: usize) -> Option<&mut Yaml> {
    kernel(doc, i)?.get_mut("CodeProps")
}

fn arg(doc: &mut Yaml, i: usize, j: usize) -> Option<&mut Yaml> {
    kernel(doc, i)?.get_mut("Args")?.seq_mut()?.get_mut(j)
}

/// A drawn (kernel, argument) pair whose argument satisfies `pred`.
fn arg_where(
    co: &CodeObject,
    u: &mut Unstructured<'_>,
    pred: impl Fn(&Kernel, usize, &ArgSpec) -> bool,
) -> arbitrary::Result<Option<(usize, usize)>> {
    let mut all = Vec::new();
    for (i, k) in co.kernels.iter().enumerate() {
        for (j, a) in k.metadata.args.iter().enumerate() {
            if pred(k, j, a) {
                all.push((i, j));
            }
        }
    }
    if all.is_empty() {
        return Ok(None);
    }
    Ok(Some(pick(u, &all)?))
}

/// Index of the last explicit (non-hidden) argument of `k`.
fn last_explicit(k: &Kernel) -> Option<usize> {
    k.metadata.args.iter().rposition(|a| !a.kind.is_hidden())
}

/// The kernel's V2 kernel code, as the case has it.
fn header(c: &Ctx<'_>, i: usize) -> KernelCode {
    model::kernel_code(&c.co.target, &c.co.kernels[i])
}

/// A byte-level `amd_kernel_code_t` change of a drawn kernel.
fn code_any(
    c: &Ctx<'_>,
    u: &mut Unstructured<'_>,
    f: impl FnOnce(&mut Unstructured<'_>, &mut KernelCode) -> arbitrary::Result<Option<()>>,
) -> R {
    if !v2(c) {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let mut h = header(c, i);
    if f(u, &mut h)?.is_none() {
        return Ok(None);
    }
    Ok(code(c, i, |k| {
        *k = h;
        Some(())
    }))
}

/// Sets one of `bits` (drawn) in rsrc1 (`field` 0), rsrc2 (1) or
/// code_properties (2) of a drawn kernel.
fn code_bit(c: &Ctx<'_>, u: &mut Unstructured<'_>, field: u8, bits: &[u32]) -> R {
    if bits.is_empty() {
        return Ok(None);
    }
    let b = pick(u, bits)?;
    code_any(c, u, |_, h| {
        match field {
            0 => h.compute_pgm_rsrc1 |= 1 << b,
            1 => h.compute_pgm_rsrc2 |= 1 << b,
            _ => h.code_properties |= 1 << b,
        }
        Ok(Some(()))
    })
}

/// The value of bits `at..at + n` replaced by `v`.
fn with_bits(word: u32, at: u32, n: u32, v: u32) -> u32 {
    let mask = ((1u64 << n) - 1) as u32;
    word & !(mask << at) | (v & mask) << at
}

// ---------------------------------------------------------------------------
// note.v2: the "AMD" notes.

fn note_missing(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let ty = pick(
        u,
        &[
            NT_AMD_HSA_CODE_OBJECT_VERSION,
            NT_AMD_HSA_ISA_VERSION,
            NT_AMD_HSA_METADATA,
        ],
    )?;
    Ok(image(c, |img| {
        img.notes.retain(|n| n.n_type != ty);
        Some(())
    }))
}

fn note_isa_name_missing(c: &Ctx<'_>, _u: &mut Unstructured<'_>) -> R {
    Ok(image(c, |img| {
        img.notes.retain(|n| n.n_type != NT_AMD_HSA_ISA_NAME);
        Some(())
    }))
}

fn note_duplicate(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let which = int(u, 0usize, 3)?;
    let at = int(u, 0usize, 4)?;
    Ok(image(c, |img| {
        let n = img.notes.get(which)?.clone();
        // The copy goes after the original, so the first stays the one
        // readers take.
        let at = at.clamp(which + 1, img.notes.len());
        img.notes.insert(at, n);
        Some(())
    }))
}

fn note_desc_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let version = u.arbitrary::<bool>()?;
    let len = if version {
        int_except(u, 0, 24, &[8])? as usize
    } else {
        int(u, 0usize, 15)?
    };
    Ok(image(c, |img| {
        let ty = if version {
            NT_AMD_HSA_CODE_OBJECT_VERSION
        } else {
            NT_AMD_HSA_ISA_VERSION
        };
        img.note_mut(ty)?.desc.resize(len, 0);
        Some(())
    }))
}

fn note_code_object_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Not 1 either: that is code object V1, a format of its own
    // (note.code_object_v1).
    let major = int_except(u, 0, 8, &[1, 2])? as u32;
    let minor = int(u, 0u32, 3)?;
    Ok(image(c, |img| {
        let mut d = major.to_le_bytes().to_vec();
        d.extend_from_slice(&minor.to_le_bytes());
        img.note_mut(NT_AMD_HSA_CODE_OBJECT_VERSION)?.desc = d;
        Some(())
    }))
}

fn note_hsail(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let mut d = Vec::with_capacity(12);
    d.extend_from_slice(&int(u, 0u32, 2)?.to_le_bytes());
    d.extend_from_slice(&int(u, 0u32, 2)?.to_le_bytes());
    for _ in 0..3 {
        d.push(int(u, 0u8, 4)?);
    }
    d.push(0);
    let at = int(u, 0usize, 4)?;
    Ok(image(c, |img| {
        let at = at.min(img.notes.len());
        img.notes.insert(at, Note::amd(NT_AMD_HSA_HSAIL, d));
        Some(())
    }))
}

fn note_isa_version_names(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let (vendor, arch): (&[u8], &[u8]) = pick(
        u,
        &[
            (&b"ATI\0"[..], &b"AMDGPU\0"[..]),
            (b"amd\0", b"AMDGPU\0"),
            (b"AMD\0", b"AMDGCN\0"),
            (b"AMD\0", b"amdgpu\0"),
            (b"AMDX", b"AMDGPU\0"),
            (b"AMD\0", b"AMDGPUX"),
        ],
    )?;
    let v = model::isa_version(&c.co.target);
    Ok(image(c, |img| {
        let mut d = Vec::with_capacity(27);
        d.extend_from_slice(&4u16.to_le_bytes());
        d.extend_from_slice(&7u16.to_le_bytes());
        for x in v {
            d.extend_from_slice(&x.to_le_bytes());
        }
        d.extend_from_slice(vendor);
        d.extend_from_slice(arch);
        img.note_mut(NT_AMD_HSA_ISA_VERSION)?.desc = d;
        Some(())
    }))
}

/// An ISA version no V2 object for `c`'s target carries.
fn other_isa(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> arbitrary::Result<[u32; 3]> {
    let own = model::isa_version(&c.co.target);
    let mut v = own;
    let slot = int(u, 0usize, 2)?;
    v[slot] = int_except(u, 0, 12, &[u64::from(own[slot])])? as u32;
    Ok(v)
}

fn note_isa_version_mach(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let v = other_isa(c, u)?;
    Ok(image(c, |img| {
        *img.note_mut(NT_AMD_HSA_ISA_VERSION)? = crate::emit::v2::isa_version_note(v);
        Some(())
    }))
}

fn note_isa_name_mach(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let own = model::isa_name(&c.co.target);
    let others: Vec<String> = model::LLVM14_V2_TARGETS
        .iter()
        .map(|n| format!("{}{n}", targets::TRIPLE_PREFIX))
        .chain([
            format!("{}gfx901", targets::TRIPLE_PREFIX),
            "amdgcn-amd-amdhsa-gfx803".to_owned(),
            own.replace("amdhsa", "amdpal"),
            format!("{own}+xnack"),
        ])
        .filter(|n| *n != own)
        .collect();
    let name = pick(u, &others.iter().map(String::as_str).collect::<Vec<_>>())?.to_owned();
    Ok(image(c, |img| {
        img.note_mut(NT_AMD_HSA_ISA_NAME)?.desc = name.into_bytes();
        Some(())
    }))
}

fn note_pal_metadata(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let pairs = int(u, 0usize, 4)?;
    let extra = int(u, 1usize, 7)?;
    let mut d = Vec::with_capacity(8 * pairs + extra);
    for _ in 0..8 * pairs + extra {
        d.push(u.arbitrary()?);
    }
    Ok(image(c, |img| {
        img.notes.push(Note::amd(NT_AMD_PAL_METADATA, d));
        Some(())
    }))
}

// ---------------------------------------------------------------------------
// metadata.v2: the YAML document.

fn md_decode(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let how = int(u, 0u8, 2)?;
    let i = any_kernel(c.co, u)?;
    Ok(yaml(c, |d| match how {
        // An unclosed flow sequence.
        0 => d.set("Version", Yaml::Raw("[ 1, 0".into())),
        // A mapping value that is itself `key: value` on one line.
        1 => kernel(d, i)?.set("Language", Yaml::Raw("OpenCL: C".into())),
        // A control character in a key.
        _ => code_props(d, i)?.set("Wave\u{1}Size", Yaml::UInt(64)),
    }))
}

fn md_yaml_unsupported(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let how = int(u, 0u8, 2)?;
    let i = any_kernel(c.co, u)?;
    let gs = c.co.kernels[i].metadata.group_segment_fixed_size;
    Ok(yaml(c, |d| {
        let v = match how {
            0 => format!("&size {gs}"),
            1 => format!("!!int {gs}"),
            _ => "|\n        {gs}".replace("{gs}", &gs.to_string()),
        };
        code_props(d, i)?.set("GroupSegmentFixedSize", Yaml::Raw(v))
    }))
}

fn md_root_not_map(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let how = int(u, 0u8, 2)?;
    Ok(yaml(c, |d| {
        *d = match how {
            0 => Yaml::Seq(vec![d.clone()]),
            1 => Yaml::Seq(vec![Yaml::Str("Version".into()), Yaml::UInt(1)]),
            _ => Yaml::Raw("Version".into()),
        };
        Some(())
    }))
}

fn md_missing_key(c: &Ctx<'_>, _u: &mut Unstructured<'_>) -> R {
    Ok(yaml(c, |d| d.remove("Version").map(|_| ())))
}

fn md_kernel_missing_key(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // SymbolName (without Name the kernel is still found by SymbolName,
    // but SymbolName is what a reader without Name would need).
    let i = any_kernel(c.co, u)?;
    Ok(yaml(c, |d| kernel(d, i)?.remove("SymbolName").map(|_| ())))
}

fn md_arg_missing_key(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Align from any argument; Size only from explicit ones (a hidden
    // argument whose offset is unknown is still checked for 8 bytes).
    let Some((i, j)) = arg_where(c.co, u, |_, _, _| true)? else {
        return Ok(None);
    };
    let hidden = c.co.kernels[i].metadata.args[j].kind.is_hidden();
    let key = if hidden || u.arbitrary::<bool>()? {
        "Align"
    } else {
        "Size"
    };
    Ok(yaml(c, |d| arg(d, i, j)?.remove(key).map(|_| ())))
}

const CODE_PROPS_REQUIRED: &[&str] = &[
    "KernargSegmentSize",
    "GroupSegmentFixedSize",
    "PrivateSegmentFixedSize",
    "KernargSegmentAlign",
    "WavefrontSize",
];

fn md_code_props_missing_key(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let key = pick(u, CODE_PROPS_REQUIRED)?;
    Ok(yaml(c, |d| code_props(d, i)?.remove(key).map(|_| ())))
}

fn md_code_props_missing(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    Ok(yaml(c, |d| kernel(d, i)?.remove("CodeProps").map(|_| ())))
}

/// CodeProps integer keys whose absence or a bad value compares with
/// nothing (unlike NumSGPRs and NumVGPRs, which default to 0).
const CODE_PROPS_UINTS: &[&str] = &[
    "KernargSegmentSize",
    "GroupSegmentFixedSize",
    "PrivateSegmentFixedSize",
    "KernargSegmentAlign",
    "WavefrontSize",
    "MaxFlatWorkGroupSize",
];

fn md_value_type(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let key = pick(u, CODE_PROPS_UINTS)?;
    let v = match int(u, 0u8, 4)? {
        0 => Yaml::Raw("true".into()),
        1 => Yaml::Flow(vec![1]),
        2 => Yaml::Raw(word(u)?),
        3 => Yaml::Raw(format!("-{}", int(u, 1u32, 1000)?)),
        _ => Yaml::Raw("1.5".into()),
    };
    Ok(yaml(c, |d| code_props(d, i)?.set(key, v)))
}

fn md_value_range(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let key = pick(
        u,
        &[
            "GroupSegmentFixedSize",
            "PrivateSegmentFixedSize",
            "KernargSegmentAlign",
            "WavefrontSize",
            "MaxFlatWorkGroupSize",
        ],
    )?;
    let v = int(u, 1u64 << 32, u64::MAX)?;
    Ok(yaml(c, |d| code_props(d, i)?.set(key, Yaml::UInt(v))))
}

fn md_value_enum(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some((i, j)) = arg_where(c.co, u, |_, _, _| true)? else {
        return Ok(None);
    };
    let key = pick(u, &["AccQual", "ActualAccQual"])?;
    let v = pick(u, &["None", "readonly", "Read", "ReadOnlyWrite", "Unknown"])?;
    Ok(yaml(c, |d| arg(d, i, j)?.set(key, Yaml::Raw(v.into()))))
}

fn md_value_scalar_style(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let k = &c.co.kernels[i].metadata;
    let (key, v) = pick(
        u,
        &[
            ("KernargSegmentSize", k.kernarg_segment_size),
            ("GroupSegmentFixedSize", k.group_segment_fixed_size),
            ("PrivateSegmentFixedSize", k.private_segment_fixed_size),
            ("KernargSegmentAlign", k.kernarg_segment_align),
            ("WavefrontSize", k.wavefront_size),
        ],
    )?;
    let quote = pick(u, &['\'', '"'])?;
    Ok(yaml(c, |d| {
        code_props(d, i)?.set(key, Yaml::Raw(format!("{quote}{v}{quote}")))
    }))
}

fn md_value_length(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let which = int(u, 0u8, 2)?;
    let len = if which == 0 {
        int_except(u, 1, 4, &[2])?
    } else {
        int_except(u, 1, 5, &[3])?
    } as usize;
    let v = Yaml::Flow(vec![1; len]);
    Ok(yaml(c, |d| {
        let k = kernel(d, i)?;
        if which == 0 {
            return k.set("LanguageVersion", v);
        }
        if k.get_mut("Attrs").is_none() {
            k.set("Attrs", Yaml::Map(Vec::new()))?;
        }
        let key = if which == 1 {
            "ReqdWorkGroupSize"
        } else {
            "WorkGroupSizeHint"
        };
        k.get_mut("Attrs")?.set(key, v)
    }))
}

fn md_duplicate_key(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // A scalar entry of a mapping repeated with its value.
    let i = any_kernel(c.co, u)?;
    let place = int(u, 0u8, 2)?;
    let pick_at = u.arbitrary::<u16>()?;
    Ok(yaml(c, |d| {
        let m = match place {
            0 => d,
            1 => kernel(d, i)?,
            _ => code_props(d, i)?,
        };
        let entries = m.map_mut()?;
        let scalars: Vec<usize> = (0..entries.len())
            .filter(|&e| !matches!(entries[e].1, Yaml::Map(_) | Yaml::Seq(_)))
            .collect();
        if scalars.is_empty() {
            return None;
        }
        let e = entries[scalars[usize::from(pick_at) % scalars.len()]].clone();
        entries.push(e);
        Some(())
    }))
}

fn md_key_unknown(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let place = int(u, 0u8, 3)?;
    let key = if u.arbitrary::<bool>()? {
        format!("acme.{}", word(u)?)
    } else {
        word(u)?
    };
    let v = int(u, 0u64, 1000)?;
    let nargs = c.co.kernels[i].metadata.args.len();
    let j = if nargs > 0 {
        int(u, 0usize, nargs - 1)?
    } else {
        0
    };
    Ok(yaml(c, |d| {
        let m = match place {
            0 => d,
            1 => kernel(d, i)?,
            2 => code_props(d, i)?,
            _ => arg(d, i, j)?,
        };
        m.set(&key, Yaml::UInt(v))
    }))
}

fn md_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let v = pick(
        u,
        &[&[1u64, 1][..], &[2, 0], &[1], &[1, 0, 0], &[0, 0], &[1, 2]],
    )?;
    Ok(yaml(c, |d| d.set("Version", Yaml::Flow(v.to_vec()))))
}

fn md_printf_format(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let bad = pick(
        u,
        &["x:1:4:%d", "1:2:4:%d", "1", "1:x:%d", "1:1:q:%s", "-1:0:%d"],
    )?;
    let at = int(u, 0usize, c.co.printf.len())?;
    Ok(model_edit(c, |co| {
        co.printf.insert(at, bad.to_owned());
        Some(())
    }))
}

fn md_kernel_duplicate(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    Ok(yaml(c, |d| {
        let ks = kernels(d)?;
        let copy = ks.get(i)?.clone();
        ks.push(copy);
        Some(())
    }))
}

fn md_kernel_symbol_name(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let name = c.co.kernels[i].name.clone();
    let new = match int(u, 0u8, 2)? {
        0 => format!("{name}.kd"),
        1 => name,
        _ => format!("{}@kd", word(u)?),
    };
    if c.co.kernels.iter().any(|k| k.metadata.symbol == new) {
        return Ok(None);
    }
    Ok(meta_edit(c, i, |m| {
        m.symbol = new;
        Some(())
    }))
}

fn md_reqd_work_group_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let zero = int(u, 0usize, 2)?;
    let mut r = [0u32; 3];
    for (n, x) in r.iter_mut().enumerate() {
        if n != zero && (n == (zero + 1) % 3 || u.arbitrary::<bool>()?) {
            *x = int(u, 1u32, 16)?;
        }
    }
    Ok(meta_edit(c, i, |m| {
        m.reqd_workgroup_size = Some(r);
        Some(())
    }))
}

fn md_reqd_work_group_size_limit(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let max = c.co.kernels[i].metadata.max_flat_workgroup_size;
    let x = int(u, max.saturating_add(1), 4096)?;
    Ok(meta_edit(c, i, |m| {
        m.reqd_workgroup_size = Some([x, 1, 1]);
        Some(())
    }))
}

fn md_kernarg_segment_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Not a power of two, but at most 16 (the amd_kernel_code_t's 16
    // bytes stay enough).
    let i = any_kernel(c.co, u)?;
    let v = non_pow2(u, 3, 15)? as u32;
    Ok(meta_edit(c, i, |m| {
        m.kernarg_segment_align = v;
        Some(())
    }))
}

fn md_wavefront_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // (every V2 processor is wave64: 32 is not its size either)
    let i = any_kernel(c.co, u)?;
    let v = int_except(u, 0, 1024, &[64])? as u32;
    Ok(meta_edit(c, i, |m| {
        m.wavefront_size = v;
        Some(())
    }))
}

fn md_max_flat_work_group_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let v = int(u, 1025u32, u32::MAX)?;
    Ok(meta_edit(c, i, |m| {
        m.max_flat_workgroup_size = v;
        Some(())
    }))
}

fn md_xnack(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if !c.t.xnack {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let on = model::xnack_on(&c.co.target);
    Ok(yaml(c, |d| {
        let cp = code_props(d, i)?;
        if on {
            cp.remove("IsXNACKEnabled").map(|_| ())
        } else {
            cp.set("IsXNACKEnabled", Yaml::Bool(true))
        }
    }))
}

fn md_arg_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some((i, j)) = arg_where(c.co, u, |_, _, _| true)? else {
        return Ok(None);
    };
    let v = non_pow2(u, 3, 64)?;
    Ok(yaml(c, |d| arg(d, i, j)?.set("Align", Yaml::UInt(v))))
}

fn md_arg_align_exceeds_segment(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // KernargSegmentAlign lowered below the largest argument Align.
    let Some(i) = kernel_where(c.co, u, |k| {
        k.metadata.args.iter().map(model::arg_align).max() >= Some(2)
    })?
    else {
        return Ok(None);
    };
    let max = c.co.kernels[i]
        .metadata
        .args
        .iter()
        .map(model::arg_align)
        .max()
        .unwrap_or(1);
    let v = 1u32 << int(u, 0u32, max.trailing_zeros() - 1)?;
    Ok(meta_edit(c, i, |m| {
        m.kernarg_segment_align = v;
        Some(())
    }))
}

fn md_arg_pointee_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some((i, j)) = arg_where(c.co, u, |_, _, a| a.kind == ValueKind::DynamicSharedPointer)?
    else {
        return Ok(None);
    };
    let v = non_pow2(u, 3, 4096)? as u32;
    Ok(meta_edit(c, i, |m| {
        m.args.get_mut(j)?.pointee_align = Some(v);
        Some(())
    }))
}

fn md_arg_address_space(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some((i, j)) = arg_where(c.co, u, |_, _, a| {
        matches!(
            a.kind,
            ValueKind::DynamicSharedPointer | ValueKind::GlobalBuffer
        )
    })?
    else {
        return Ok(None);
    };
    let dsp = c.co.kernels[i].metadata.args[j].kind == ValueKind::DynamicSharedPointer;
    let space = if dsp {
        pick(
            u,
            &[
                AddressSpace::Global,
                AddressSpace::Constant,
                AddressSpace::Generic,
            ],
        )?
    } else {
        AddressSpace::Local
    };
    Ok(meta_edit(c, i, |m| {
        m.args.get_mut(j)?.address_space = Some(space);
        Some(())
    }))
}

fn md_arg_kind_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // The last explicit argument, an 8-byte pointer kind, says 4 bytes:
    // its Align keeps its place and the hidden arguments theirs.
    let Some((i, j)) = arg_where(c.co, u, |k, j, a| {
        last_explicit(k) == Some(j)
            && a.size == 8
            && matches!(
                a.kind,
                ValueKind::GlobalBuffer
                    | ValueKind::Image
                    | ValueKind::Sampler
                    | ValueKind::Pipe
                    | ValueKind::Queue
            )
    })?
    else {
        return Ok(None);
    };
    let size = pick(u, &[4u64, 1, 2])?;
    Ok(yaml(c, |d| arg(d, i, j)?.set("Size", Yaml::UInt(size))))
}

fn md_arg_misaligned(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // A kernel without hidden arguments gets a 4- or 8-byte by-value
    // argument and then a global pointer at an offset 4 mod 8 (its Align
    // is then 4).
    let Some(i) = kernel_where(c.co, u, |k| {
        !k.metadata.args.iter().any(|a| a.kind.is_hidden())
    })?
    else {
        return Ok(None);
    };
    Ok(model_edit(c, |co| {
        let k = co.kernels.get_mut(i)?;
        let m = &mut k.metadata;
        let end = m.args.iter().map(ArgSpec::end).max().unwrap_or(0);
        let y = end.div_ceil(4) * 4;
        let size = if y % 8 == 0 { 4 } else { 8 };
        let blank = ArgSpec::new;
        m.args.push(blank(ValueKind::ByValue, y, size));
        let mut p = blank(ValueKind::GlobalBuffer, y + size, 8);
        p.address_space = Some(AddressSpace::Global);
        m.args.push(p);
        m.kernarg_segment_size = y + size + 8;
        m.kernarg_segment_align = m.kernarg_segment_align.max(4);
        k.descriptor.kernarg_size = m.kernarg_segment_size;
        Some(())
    }))
}

fn md_arg_out_of_bounds(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some(i) = kernel_where(c.co, u, |k| k.metadata.args.iter().any(|a| a.end() > 0))? else {
        return Ok(None);
    };
    let end = c.co.kernels[i]
        .metadata
        .args
        .iter()
        .map(ArgSpec::end)
        .max()
        .unwrap_or(1);
    let v = int(u, 0u32, end - 1)?;
    Ok(model_edit(c, |co| {
        let k = co.kernels.get_mut(i)?;
        k.metadata.kernarg_segment_size = v;
        k.descriptor.kernarg_size = v;
        Some(())
    }))
}

fn md_arg_hidden_layout(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Two hidden arguments of different kinds trade kinds.
    let mut pairs = Vec::new();
    for (i, k) in c.co.kernels.iter().enumerate() {
        let a = &k.metadata.args;
        for x in 0..a.len() {
            for y in x + 1..a.len() {
                if a[x].kind.is_hidden() && a[y].kind.is_hidden() && a[x].kind != a[y].kind {
                    pairs.push((i, x, y));
                }
            }
        }
    }
    if pairs.is_empty() {
        return Ok(None);
    }
    let (i, x, y) = pick(u, &pairs)?;
    Ok(meta_edit(c, i, |m| {
        let kx = m.args.get(x)?.kind;
        let ky = m.args.get(y)?.kind;
        m.args.get_mut(x)?.kind = ky;
        m.args.get_mut(y)?.kind = kx;
        Some(())
    }))
}

// ---------------------------------------------------------------------------
// symbol.v2: the kernel symbols.

fn symbol_kernel_section(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if !v2(c) {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let name = c.co.kernels[i].name.clone();
    let to = pick(
        u,
        &[idx::NOTE, idx::DYNSYM, idx::DYNSTR, idx::DYNAMIC, 0, 0xfff1],
    )?;
    Ok(patch_case(c, |e| {
        e.edit_symbol(&name, |e, s| e.set_u16(s.at + 6, to))
    }))
}

fn symbol_kernel_duplicate(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    Ok(image(c, |img| {
        img.duplicate_symbols.push(i);
        Some(())
    }))
}

fn symbol_entry(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // The entry 256-byte aligned but outside .text: past its end, or
    // before its start.
    if !v2(c) {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let img = Image::from_object(c.co);
    let (offs, end) = img.text_layout();
    let start = offs[i].0 as i64;
    let after = u.arbitrary::<bool>()?;
    let steps = int(u, 0i64, 64)?;
    let entry = if after {
        ((end as i64 - start).max(0) + 255) / 256 * 256 + 256 * steps
    } else {
        -start - 256 * (steps + 1)
    };
    Ok(code(c, i, |h| {
        h.kernel_code_entry_byte_offset = entry;
        Some(())
    }))
}

fn symbol_kernel_not_in_metadata(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    Ok(yaml(c, |d| {
        let ks = kernels(d)?;
        if i >= ks.len() {
            return None;
        }
        ks.remove(i);
        if ks.is_empty() {
            d.remove("Kernels")?;
        }
        Some(())
    }))
}

fn symbol_metadata_kernel_no_symbol(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let ghost = word(u)?;
    if c.co
        .kernels
        .iter()
        .any(|k| k.name == ghost || k.metadata.name == ghost)
    {
        return Ok(None);
    }
    Ok(yaml(c, |d| {
        let ks = kernels(d)?;
        let mut copy = ks.get(i)?.clone();
        copy.set("Name", Yaml::Str(ghost.clone().into()))?;
        copy.set("SymbolName", Yaml::Str(format!("{ghost}@kd").into()))?;
        ks.push(copy);
        Some(())
    }))
}

// ---------------------------------------------------------------------------
// code: amd_kernel_code_t fields.

fn code_version_major(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.amd_kernel_code_version_major = int_except(u, 0, 16, &[1])? as u32;
        Ok(Some(()))
    })
}

fn code_machine_kind(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.amd_machine_kind = int_except(u, 0, 0xffff, &[1])? as u16;
        Ok(Some(()))
    })
}

fn code_machine_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        let slot = int(u, 0u8, 2)?;
        let f = match slot {
            0 => &mut h.amd_machine_version_major,
            1 => &mut h.amd_machine_version_minor,
            _ => &mut h.amd_machine_version_stepping,
        };
        *f = int_except(u, 0, 15, &[u64::from(*f)])? as u16;
        Ok(Some(()))
    })
}

fn code_entry_offset_inside(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.kernel_code_entry_byte_offset = int(u, 0i64, 255)?;
        Ok(Some(()))
    })
}

fn code_entry_offset_alignment(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Into the kernel's own code, off the 256-byte boundary.
    if !v2(c) {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let len = c.co.kernels[i].code.len() as i64;
    if len == 0 {
        return Ok(None);
    }
    let k = int(u, 1i64, (4 * len - 1).min(255))?;
    Ok(code(c, i, |h| {
        h.kernel_code_entry_byte_offset = 256 + k;
        Some(())
    }))
}

fn code_address_alignment(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // The amd_kernel_code_t placed `skew` bytes past the 256-byte
    // boundary (a multiple of 4, not of 64), the code still at the next
    // boundary: the entry offset says how far.
    if !v2(c) {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let mut skew = 4 * int(u, 1u64, 63)?;
    if skew % 64 == 0 {
        skew += 4;
    }
    Ok(image(c, |img| {
        let k = img.kernels.get_mut(i)?;
        k.skew = skew;
        k.header.kernel_code_entry_byte_offset = 512 - skew as i64;
        Some(())
    }))
}

fn code_rsrc1_priority(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.compute_pgm_rsrc1 = with_bits(h.compute_pgm_rsrc1, 10, 2, int(u, 1u32, 3)?);
        Ok(Some(()))
    })
}

fn code_rsrc1_priv(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_bit(c, u, 0, &[20])
}

fn code_rsrc1_debug_mode(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_bit(c, u, 0, &[22])
}

fn code_rsrc1_bulky(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_bit(c, u, 0, &[24])
}

fn code_rsrc1_cdbg_user(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_bit(c, u, 0, &[25])
}

fn code_rsrc1_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let gen = c.t.generation;
    let mut bits = vec![27u32, 28];
    if gen < Generation::Gfx9 {
        bits.push(26);
    }
    if gen < Generation::Gfx10 {
        bits.extend([29, 30, 31]);
    }
    code_bit(c, u, 0, &bits)
}

fn code_rsrc2_trap_handler(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_bit(c, u, 1, &[6])
}

fn code_rsrc2_granulated_lds_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.compute_pgm_rsrc2 = with_bits(h.compute_pgm_rsrc2, 15, 9, int(u, 1u32, 511)?);
        Ok(Some(()))
    })
}

fn code_rsrc2_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_bit(c, u, 1, &[31])
}

fn code_properties_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let bits: Vec<u32> = (11..=15).chain(23..=31).collect();
    code_bit(c, u, 2, &bits)
}

fn code_properties_wavefront_size32(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.t.wave32 {
        return Ok(None);
    }
    code_bit(c, u, 2, &[10])
}

fn code_private_element_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        let v = pick(u, &[0u32, 2, 3])?;
        h.code_properties = with_bits(h.code_properties, 17, 2, v);
        Ok(Some(()))
    })
}

fn code_is_ptr64(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |_, h| {
        h.code_properties &= !(1 << 19);
        Ok(Some(()))
    })
}

fn code_xnack(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |_, h| {
        h.code_properties ^= 1 << 22;
        Ok(Some(()))
    })
}

fn code_debug_sgprs(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        let v = int(u, 1u16, 0xffff)?;
        if u.arbitrary::<bool>()? {
            h.debug_wavefront_private_segment_offset_sgpr = v;
        } else {
            h.debug_private_segment_buffer_sgpr = v;
        }
        Ok(Some(()))
    })
}

fn code_reserved_vgpr_first(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.reserved_vgpr_first = int(u, 1u16, 0xffff)?;
        Ok(Some(()))
    })
}

fn code_reserved_sgpr_first(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.reserved_sgpr_first = int(u, 1u16, 0xffff)?;
        Ok(Some(()))
    })
}

fn code_segment_alignment(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Group or private (the kernarg alignment is also compared with the
    // metadata).
    code_any(c, u, |u, h| {
        let v = int(u, 0u8, 3)?;
        if u.arbitrary::<bool>()? {
            h.group_segment_alignment = v;
        } else {
            h.private_segment_alignment = v;
        }
        Ok(Some(()))
    })
}

fn code_wavefront_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.wavefront_size = int_except(u, 0, 255, &[6])? as u8;
        Ok(Some(()))
    })
}

fn code_granulated_sgpr_count(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let t = c.t;
    code_any(c, u, |u, h| {
        let Some(alloc) = h.allocated_sgprs(t) else {
            return Ok(None);
        };
        h.wavefront_sgpr_count = int(u, alloc + 1, 0xffff)? as u16;
        Ok(Some(()))
    })
}

fn code_granulated_vgpr_count(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let t = c.t;
    code_any(c, u, |u, h| {
        let alloc = h.allocated_vgprs(t);
        h.workitem_vgpr_count = int(u, alloc + 1, 0xffff)? as u16;
        Ok(Some(()))
    })
}

fn code_scratch_en(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Private segment bytes (descriptor and metadata alike) without
    // SCRATCH_EN: on a kernel without it, or with it cleared on one that
    // uses scratch.
    let i = any_kernel(c.co, u)?;
    let size = int(u, 1u32, 0x1_0000)?;
    Ok(model_edit(c, |co| {
        let k = co.kernels.get_mut(i)?;
        k.descriptor.enables.private_segment = false;
        if k.descriptor.private_segment_fixed_size == 0 && !k.descriptor.uses_dynamic_stack {
            k.descriptor.private_segment_fixed_size = size;
            k.metadata.private_segment_fixed_size = size;
        }
        Some(())
    }))
}

fn code_group_segment_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let v = int(u, c.t.lds_bytes.saturating_add(1), u32::MAX)?;
    Ok(model_edit(c, |co| {
        let k = co.kernels.get_mut(i)?;
        k.descriptor.group_segment_fixed_size = v;
        k.metadata.group_segment_fixed_size = v;
        Some(())
    }))
}

fn code_runtime_loader_kernel_symbol(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        h.runtime_loader_kernel_symbol = int(u, 1u64, u64::MAX)?;
        Ok(Some(()))
    })
}

fn code_reserved_bytes(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        let at = int(u, 0usize, 11)?;
        h.reserved3[at] = int(u, 1u8, 255)?;
        Ok(Some(()))
    })
}

fn code_control_directives_reserved(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    code_any(c, u, |u, h| {
        let at = if u.arbitrary::<bool>()? {
            int(u, 29usize, 31)?
        } else {
            int(u, 68usize, 127)?
        };
        h.control_directives[at] = int(u, 1u8, 255)?;
        Ok(Some(()))
    })
}

fn code_md_kernarg_segment_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].metadata.kernarg_segment_size;
    let v = int_except(u, 0, 0x10_0000, &[u64::from(own)])? as u32;
    Ok(model_edit(c, |co| {
        co.kernels.get_mut(i)?.descriptor.kernarg_size = v;
        Some(())
    }))
}

fn code_md_kernarg_segment_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // KernargSegmentAlign above the 16 bytes the amd_kernel_code_t gives.
    let i = any_kernel(c.co, u)?;
    let v = 1u64 << int(u, 5u32, 16)?;
    Ok(yaml(c, |d| {
        code_props(d, i)?.set("KernargSegmentAlign", Yaml::UInt(v))
    }))
}

fn code_md_group_segment_fixed_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.group_segment_fixed_size;
    let v = int_except(u, 0, u64::from(c.t.lds_bytes), &[u64::from(own)])? as u32;
    Ok(meta_edit(c, i, |m| {
        m.group_segment_fixed_size = v;
        Some(())
    }))
}

fn code_md_private_segment_fixed_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.private_segment_fixed_size;
    let v = int_except(u, 0, 0x10_0000, &[u64::from(own)])? as u32;
    Ok(meta_edit(c, i, |m| {
        m.private_segment_fixed_size = v;
        Some(())
    }))
}

fn code_md_sgpr_count(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = model::sgpr_count(&c.co.target, &c.co.kernels[i].descriptor);
    let v = int_except(u, 0, 0xffff, &[u64::from(own)])? as u32;
    Ok(meta_edit(c, i, |m| {
        m.sgpr_count = v;
        Some(())
    }))
}

fn code_md_vgpr_count(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.next_free_vgpr;
    let v = int_except(u, 0, 0xffff, &[u64::from(own)])? as u32;
    Ok(meta_edit(c, i, |m| {
        m.vgpr_count = v;
        Some(())
    }))
}

fn code_md_dynamic_call_stack(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let own = c.co.kernels[i].descriptor.uses_dynamic_stack;
    Ok(meta_edit(c, i, |m| {
        m.uses_dynamic_stack = Some(!own);
        Some(())
    }))
}

fn code_md_xnack(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // IsXNACKEnabled on a processor without XNACK (on one with it, the
    // metadata would disagree with e_flags too).
    if c.t.xnack {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    Ok(yaml(c, |d| {
        code_props(d, i)?.set("IsXNACKEnabled", Yaml::Bool(true))
    }))
}

fn code_note_isa_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // e_flags names a processor the oracle does not model; the
    // amd_kernel_code_t's machine version is not the ISA note's.
    let (mach, _) = pick(u, targets::UNMODELLED)?;
    let i = any_kernel(c.co, u)?;
    let v = other_isa(c, u)?;
    Ok(image(c, |img| {
        img.e_flags = img.e_flags & !0xff | u32::from(mach);
        let h = &mut img.kernels.get_mut(i)?.header;
        let [ma, mi, st] = v.map(|x| x as u16);
        let [oa, oi, os] = c.t.isa_version.map(u16::from);
        if (ma, mi, st) == (oa, oi, os) {
            return None;
        }
        h.amd_machine_version_major = ma;
        h.amd_machine_version_minor = mi;
        h.amd_machine_version_stepping = st;
        Some(())
    }))
}

// ---------------------------------------------------------------------------
// sgpr: the V2 grid work-group count enables.

/// Sets the code_properties bits `grid` (bits 7-9) and `user` (0-6) of a
/// drawn kernel's amd_kernel_code_t, USER_SGPR_COUNT to `declared` (or
/// the enables' count capped at 16), and raises the SGPR allocation to
/// hold the initial SGPRs.
fn with_grid(
    c: &Ctx<'_>,
    u: &mut Unstructured<'_>,
    user: u32,
    grid: u32,
    ok: impl Fn(u32) -> bool,
) -> R {
    if !v2(c) {
        return Ok(None);
    }
    let t = c.t;
    let i = any_kernel(c.co, u)?;
    let mut h = header(c, i);
    h.code_properties |= user | grid << 7;
    let implied = hsaco_oracle::sgpr::v2::implied_user_sgpr_count(&h);
    if !ok(u32::from(implied)) {
        return Ok(None);
    }
    let declared = u32::from(implied.min(16));
    h.compute_pgm_rsrc2 = with_bits(h.compute_pgm_rsrc2, 1, 5, declared);
    let total = u32::from(hsaco_oracle::sgpr::v2::initial_state(&h, t).total_sgprs());
    while h.allocated_sgprs(t).is_some_and(|a| a < total) {
        let g = h.granulated_wavefront_sgpr_count();
        if g >= 15 {
            return Ok(None);
        }
        h.compute_pgm_rsrc1 = with_bits(h.compute_pgm_rsrc1, 6, 4, g + 1);
    }
    Ok(code(c, i, |k| {
        *k = h;
        Some(())
    }))
}

fn sgpr_grid_unsupported(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // One count, X or the first two or all three, while they all fit in
    // the 16 initialized user SGPRs.
    let grid = pick(u, &[1u32, 3, 7])?;
    with_grid(c, u, 0, grid, |implied| implied <= 16)
}

fn sgpr_grid_not_initialized(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Every user SGPR enable the processor has, then the three counts:
    // the last of them past SGPR15.
    let mask = if c.t.generation <= Generation::Gfx6 {
        0x5f
    } else {
        0x7f
    };
    with_grid(c, u, mask, 7, |implied| implied > 16)
}

// ---------------------------------------------------------------------------
// The table.

/// The V2 mutators.
pub(super) static MUTATORS: &[Mutator] = &[
    Mutator {
        rule: &oracle::notes::V2_MISSING,
        how: "the version, ISA version or metadata note removed",
        also: &[],
        asm: MutantAsm::None,
        apply: note_missing,
    },
    Mutator {
        rule: &oracle::notes::V2_ISA_NAME_MISSING,
        how: "the NT_AMD_HSA_ISA_NAME note removed",
        also: &[],
        asm: MutantAsm::None,
        apply: note_isa_name_missing,
    },
    Mutator {
        rule: &oracle::notes::V2_DUPLICATE,
        how: "an \"AMD\" note repeated after itself",
        also: &[],
        asm: MutantAsm::None,
        apply: note_duplicate,
    },
    Mutator {
        rule: &oracle::notes::V2_DESC_SIZE,
        how: "the version note not 8 bytes, or the ISA version note under 16",
        also: &[],
        asm: MutantAsm::None,
        apply: note_desc_size,
    },
    Mutator {
        rule: &oracle::notes::V2_CODE_OBJECT_VERSION,
        how: "NT_AMD_HSA_CODE_OBJECT_VERSION with a major version other than 2 (or 1, V1)",
        also: &[],
        asm: MutantAsm::None,
        apply: note_code_object_version,
    },
    Mutator {
        rule: &oracle::notes::V2_HSAIL,
        how: "an NT_AMD_HSA_HSAIL note added",
        also: &[],
        asm: MutantAsm::None,
        apply: note_hsail,
    },
    Mutator {
        rule: &oracle::notes::V2_ISA_NAMES,
        how: "the ISA version note's vendor or architecture name changed",
        also: &[],
        asm: MutantAsm::None,
        apply: note_isa_version_names,
    },
    Mutator {
        rule: &oracle::notes::V2_ISA_MACH,
        how: "the ISA version note naming another version",
        also: &[],
        asm: MutantAsm::None,
        apply: note_isa_version_mach,
    },
    Mutator {
        rule: &oracle::notes::V2_ISA_NAME,
        how: "the ISA name note naming another processor",
        also: &[],
        asm: MutantAsm::None,
        apply: note_isa_name_mach,
    },
    Mutator {
        rule: &oracle::notes::V2_PAL_METADATA,
        how: "an NT_AMD_PAL_METADATA note of a size not a multiple of 8",
        also: &[],
        asm: MutantAsm::None,
        apply: note_pal_metadata,
    },
    Mutator {
        rule: &oracle::metadata_v2::DECODE,
        how: "broken YAML: an unclosed flow sequence, `a: b: c`, a control character",
        also: &[],
        asm: MutantAsm::None,
        apply: md_decode,
    },
    Mutator {
        rule: &oracle::metadata_v2::YAML_UNSUPPORTED,
        how: "an anchor, a tag or a block scalar",
        also: &[],
        asm: MutantAsm::None,
        apply: md_yaml_unsupported,
    },
    Mutator {
        rule: &oracle::metadata_v2::ROOT_NOT_MAP,
        how: "the document a sequence or a scalar",
        also: &[],
        asm: MutantAsm::None,
        apply: md_root_not_map,
    },
    Mutator {
        rule: &oracle::metadata_v2::MISSING_KEY,
        how: "Version removed",
        also: &[],
        asm: MutantAsm::None,
        apply: md_missing_key,
    },
    Mutator {
        rule: &oracle::metadata_v2::KERNEL_MISSING_KEY,
        how: "a kernel's SymbolName removed",
        also: &[],
        asm: MutantAsm::None,
        apply: md_kernel_missing_key,
    },
    Mutator {
        rule: &oracle::metadata_v2::ARG_MISSING_KEY,
        how: "an argument's Align (or an explicit argument's Size) removed",
        also: &[],
        asm: MutantAsm::None,
        apply: md_arg_missing_key,
    },
    Mutator {
        rule: &oracle::metadata_v2::CODE_PROPS_MISSING_KEY,
        how: "a required CodeProps key removed",
        also: &[],
        asm: MutantAsm::None,
        apply: md_code_props_missing_key,
    },
    Mutator {
        rule: &oracle::metadata_v2::CODE_PROPS_MISSING,
        how: "a kernel's CodeProps removed",
        also: &[],
        asm: MutantAsm::None,
        apply: md_code_props_missing,
    },
    Mutator {
        rule: &oracle::metadata_v2::VALUE_TYPE,
        how: "a CodeProps integer as a boolean, sequence, word, negative or float",
        also: &[],
        asm: MutantAsm::None,
        apply: md_value_type,
    },
    Mutator {
        rule: &oracle::metadata_v2::VALUE_RANGE,
        how: "a 32-bit CodeProps key of 2^32 or more",
        also: &[],
        asm: MutantAsm::None,
        apply: md_value_range,
    },
    Mutator {
        rule: &oracle::metadata_v2::VALUE_ENUM,
        how: "an argument's AccQual or ActualAccQual not an enumerator",
        also: &[],
        asm: MutantAsm::None,
        apply: md_value_enum,
    },
    Mutator {
        rule: &oracle::metadata_v2::SCALAR_STYLE,
        how: "a CodeProps integer quoted",
        also: &[],
        asm: MutantAsm::None,
        apply: md_value_scalar_style,
    },
    Mutator {
        rule: &oracle::metadata_v2::VALUE_LENGTH,
        how: "LanguageVersion not 2 integers, or a work-group size not 3",
        also: &[],
        asm: MutantAsm::None,
        apply: md_value_length,
    },
    Mutator {
        rule: &oracle::metadata_v2::DUPLICATE_KEY,
        how: "a scalar entry of a mapping repeated",
        also: &[],
        asm: MutantAsm::None,
        apply: md_duplicate_key,
    },
    Mutator {
        rule: &oracle::metadata_v2::KEY_UNKNOWN,
        how: "an unknown (or vendor-prefixed) key added",
        also: &[],
        asm: MutantAsm::None,
        apply: md_key_unknown,
    },
    Mutator {
        rule: &oracle::metadata_v2::VERSION,
        how: "Version other than [1, 0]",
        also: &[],
        asm: MutantAsm::None,
        apply: md_version,
    },
    Mutator {
        rule: &oracle::metadata_v2::PRINTF_FORMAT,
        how: "a Printf entry not ID:N:sizes:format",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: md_printf_format,
    },
    Mutator {
        rule: &oracle::metadata_v2::KERNEL_DUPLICATE,
        how: "a kernel's metadata repeated",
        also: &[],
        asm: MutantAsm::None,
        apply: md_kernel_duplicate,
    },
    Mutator {
        rule: &oracle::metadata_v2::KERNEL_SYMBOL_NAME,
        how: "SymbolName not Name@kd",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: md_kernel_symbol_name,
    },
    Mutator {
        rule: &oracle::metadata_v2::REQD_WORK_GROUP_SIZE,
        how: "ReqdWorkGroupSize with a 0 but not all 0",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: md_reqd_work_group_size,
    },
    Mutator {
        rule: &oracle::metadata_v2::REQD_WORK_GROUP_SIZE_LIMIT,
        how: "ReqdWorkGroupSize above MaxFlatWorkGroupSize",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: md_reqd_work_group_size_limit,
    },
    Mutator {
        rule: &oracle::metadata_v2::KERNARG_SEGMENT_ALIGN,
        how: "KernargSegmentAlign not a power of two (3-15)",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: md_kernarg_segment_align,
    },
    Mutator {
        rule: &oracle::metadata_v2::WAVEFRONT_SIZE,
        how: "WavefrontSize other than 64",
        also: &[&oracle::check::CODE_METADATA_WAVEFRONT_SIZE],
        asm: MutantAsm::Rebuilds,
        apply: md_wavefront_size,
    },
    Mutator {
        rule: &oracle::metadata_v2::MAX_FLAT_WORK_GROUP_SIZE,
        how: "MaxFlatWorkGroupSize above 1024",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: md_max_flat_work_group_size,
    },
    Mutator {
        rule: &oracle::metadata_v2::XNACK,
        how: "XNACK processors: IsXNACKEnabled flipped against e_flags",
        also: &[&oracle::check::CODE_METADATA_XNACK],
        asm: MutantAsm::None,
        apply: md_xnack,
    },
    Mutator {
        rule: &oracle::metadata_v2::ARG_ALIGN,
        how: "an argument's Align not a power of two",
        also: &[],
        asm: MutantAsm::None,
        apply: md_arg_align,
    },
    Mutator {
        rule: &oracle::metadata_v2::ARG_ALIGN_SEGMENT,
        how: "KernargSegmentAlign below the largest argument Align",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: md_arg_align_exceeds_segment,
    },
    Mutator {
        rule: &oracle::metadata_v2::ARG_POINTEE_ALIGN,
        how: "a DynamicSharedPointer's PointeeAlign not a power of two",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: md_arg_pointee_align,
    },
    Mutator {
        rule: &oracle::metadata_v2::ARG_ADDRESS_SPACE,
        how: "a DynamicSharedPointer outside Local, a GlobalBuffer in Local",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: md_arg_address_space,
    },
    Mutator {
        rule: &oracle::metadata_v2::ARG_KIND_SIZE,
        how: "the last explicit 8-byte pointer argument's Size 1, 2 or 4",
        also: &[],
        asm: MutantAsm::None,
        apply: md_arg_kind_size,
    },
    Mutator {
        rule: &oracle::metadata_v2::ARG_MISALIGNED,
        how:
            "a new global pointer argument at an offset 4 mod 8 (kernels without hidden arguments)",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: md_arg_misaligned,
    },
    Mutator {
        rule: &oracle::metadata_v2::ARG_OUT_OF_BOUNDS,
        how: "the kernarg segment (metadata and amd_kernel_code_t) below the last argument's end",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: md_arg_out_of_bounds,
    },
    Mutator {
        rule: &oracle::metadata_v2::ARG_HIDDEN_LAYOUT,
        how: "two hidden arguments of different kinds trade kinds",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: md_arg_hidden_layout,
    },
    Mutator {
        rule: &oracle::symbols::V2_KERNEL_SECTION,
        how: "a kernel symbol defined in a non-code section, or none",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kernel_section,
    },
    Mutator {
        rule: &oracle::symbols::V2_KERNEL_DUPLICATE,
        how: "a kernel symbol defined twice in .symtab",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kernel_duplicate,
    },
    Mutator {
        rule: &oracle::symbols::V2_ENTRY,
        how: "the entry offset past the end of .text or before its start",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_entry,
    },
    Mutator {
        rule: &oracle::symbols::V2_KERNEL_NOT_IN_METADATA,
        how: "a kernel's metadata removed",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_kernel_not_in_metadata,
    },
    Mutator {
        rule: &oracle::symbols::V2_METADATA_KERNEL_NO_SYMBOL,
        how: "metadata for a kernel the object lacks",
        also: &[],
        asm: MutantAsm::None,
        apply: symbol_metadata_kernel_no_symbol,
    },
    Mutator {
        rule: &oracle::kernel_code::VERSION_MAJOR,
        how: "amd_kernel_code_version_major other than 1",
        also: &[],
        asm: MutantAsm::None,
        apply: code_version_major,
    },
    Mutator {
        rule: &oracle::kernel_code::MACHINE_KIND,
        how: "amd_machine_kind other than 1",
        also: &[],
        asm: MutantAsm::None,
        apply: code_machine_kind,
    },
    Mutator {
        rule: &oracle::kernel_code::MACHINE_VERSION,
        how: "one part of amd_machine_version changed",
        also: &[],
        asm: MutantAsm::None,
        apply: code_machine_version,
    },
    Mutator {
        rule: &oracle::kernel_code::ENTRY_OFFSET_INSIDE,
        how: "kernel_code_entry_byte_offset 0-255",
        also: &[&oracle::kernel_code::ENTRY_ALIGNMENT],
        asm: MutantAsm::None,
        apply: code_entry_offset_inside,
    },
    Mutator {
        rule: &oracle::kernel_code::ENTRY_ALIGNMENT,
        how: "the entry moved into the kernel's code off the 256-byte boundary",
        also: &[],
        asm: MutantAsm::None,
        apply: code_entry_offset_alignment,
    },
    Mutator {
        rule: &oracle::kernel_code::ADDRESS_ALIGNMENT,
        how: "an amd_kernel_code_t placed off a 64-byte boundary, its code still aligned",
        also: &[],
        asm: MutantAsm::None,
        apply: code_address_alignment,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC1_PRIORITY,
        how: "PRIORITY non-zero",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc1_priority,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC1_PRIV,
        how: "PRIV set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc1_priv,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC1_DEBUG_MODE,
        how: "DEBUG_MODE set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc1_debug_mode,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC1_BULKY,
        how: "BULKY set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc1_bulky,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC1_CDBG_USER,
        how: "CDBG_USER set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc1_cdbg_user,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC1_RESERVED,
        how: "a reserved rsrc1 bit set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc1_reserved,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC2_TRAP_HANDLER,
        how: "ENABLE_TRAP_HANDLER set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc2_trap_handler,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC2_GRANULATED_LDS_SIZE,
        how: "GRANULATED_LDS_SIZE non-zero",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc2_granulated_lds_size,
    },
    Mutator {
        rule: &oracle::kernel_code::RSRC2_RESERVED,
        how: "rsrc2 bit 31 set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_rsrc2_reserved,
    },
    Mutator {
        rule: &oracle::kernel_code::PROPERTIES_RESERVED,
        how: "a reserved code_properties bit set",
        also: &[],
        asm: MutantAsm::None,
        apply: code_properties_reserved,
    },
    Mutator {
        rule: &oracle::kernel_code::PROPERTIES_WAVEFRONT_SIZE32,
        how: "ENABLE_WAVEFRONT_SIZE32 set (no V2 processor has wave32)",
        also: &[],
        asm: MutantAsm::None,
        apply: code_properties_wavefront_size32,
    },
    Mutator {
        rule: &oracle::kernel_code::PRIVATE_ELEMENT_SIZE,
        how: "private_element_size 0, 2 or 3",
        also: &[],
        asm: MutantAsm::None,
        apply: code_private_element_size,
    },
    Mutator {
        rule: &oracle::kernel_code::IS_PTR64,
        how: "is_ptr64 cleared",
        also: &[],
        asm: MutantAsm::None,
        apply: code_is_ptr64,
    },
    Mutator {
        rule: &oracle::kernel_code::XNACK,
        how: "is_xnack_enabled flipped",
        also: &[&oracle::check::CODE_METADATA_XNACK],
        asm: MutantAsm::None,
        apply: code_xnack,
    },
    Mutator {
        rule: &oracle::kernel_code::DEBUG_SGPRS,
        how: "a debug SGPR field non-zero without is_debug_enabled",
        also: &[],
        asm: MutantAsm::None,
        apply: code_debug_sgprs,
    },
    Mutator {
        rule: &oracle::kernel_code::RESERVED_VGPR_FIRST,
        how: "reserved_vgpr_first non-zero with no reserved VGPRs",
        also: &[],
        asm: MutantAsm::None,
        apply: code_reserved_vgpr_first,
    },
    Mutator {
        rule: &oracle::kernel_code::RESERVED_SGPR_FIRST,
        how: "reserved_sgpr_first non-zero with no reserved SGPRs",
        also: &[],
        asm: MutantAsm::None,
        apply: code_reserved_sgpr_first,
    },
    Mutator {
        rule: &oracle::kernel_code::SEGMENT_ALIGNMENT,
        how: "group or private segment alignment below 16 bytes",
        also: &[],
        asm: MutantAsm::None,
        apply: code_segment_alignment,
    },
    Mutator {
        rule: &oracle::kernel_code::WAVEFRONT_SIZE,
        how: "wavefront_size other than 6",
        also: &[&oracle::check::CODE_METADATA_WAVEFRONT_SIZE],
        asm: MutantAsm::None,
        apply: code_wavefront_size,
    },
    Mutator {
        rule: &oracle::kernel_code::GRANULATED_SGPR_COUNT,
        how: "wavefront_sgpr_count above the allocated SGPRs",
        also: &[&oracle::check::CODE_METADATA_SGPR_COUNT],
        asm: MutantAsm::None,
        apply: code_granulated_sgpr_count,
    },
    Mutator {
        rule: &oracle::kernel_code::GRANULATED_VGPR_COUNT,
        how: "workitem_vgpr_count above the allocated VGPRs",
        also: &[&oracle::check::CODE_METADATA_VGPR_COUNT],
        asm: MutantAsm::None,
        apply: code_granulated_vgpr_count,
    },
    Mutator {
        rule: &oracle::kernel_code::SCRATCH_EN,
        how: "private segment bytes without SCRATCH_EN",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_scratch_en,
    },
    Mutator {
        rule: &oracle::kernel_code::GROUP_SEGMENT_SIZE,
        how: "group segment (amd_kernel_code_t and metadata) above the processor's LDS",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_group_segment_size,
    },
    Mutator {
        rule: &oracle::kernel_code::RUNTIME_LOADER_KERNEL_SYMBOL,
        how: "runtime_loader_kernel_symbol non-zero",
        also: &[],
        asm: MutantAsm::None,
        apply: code_runtime_loader_kernel_symbol,
    },
    Mutator {
        rule: &oracle::kernel_code::RESERVED_BYTES,
        how: "a non-zero byte in 108-119",
        also: &[],
        asm: MutantAsm::None,
        apply: code_reserved_bytes,
    },
    Mutator {
        rule: &oracle::kernel_code::CONTROL_DIRECTIVES_RESERVED,
        how: "a non-zero reserved control directive byte",
        also: &[],
        asm: MutantAsm::None,
        apply: code_control_directives_reserved,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_KERNARG_SEGMENT_SIZE,
        how: "kernarg_segment_byte_size other than KernargSegmentSize",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_md_kernarg_segment_size,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_KERNARG_SEGMENT_ALIGN,
        how: "KernargSegmentAlign 32 or more (the amd_kernel_code_t says 16)",
        also: &[],
        asm: MutantAsm::None,
        apply: code_md_kernarg_segment_align,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_GROUP_SEGMENT_FIXED_SIZE,
        how: "GroupSegmentFixedSize other than the amd_kernel_code_t's",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_md_group_segment_fixed_size,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_PRIVATE_SEGMENT_FIXED_SIZE,
        how: "PrivateSegmentFixedSize other than the amd_kernel_code_t's",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_md_private_segment_fixed_size,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_WAVEFRONT_SIZE,
        how: "WavefrontSize other than the amd_kernel_code_t's 64",
        also: &[&oracle::metadata_v2::WAVEFRONT_SIZE],
        asm: MutantAsm::Rebuilds,
        apply: md_wavefront_size,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_SGPR_COUNT,
        how: "NumSGPRs other than wavefront_sgpr_count",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_md_sgpr_count,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_VGPR_COUNT,
        how: "NumVGPRs other than workitem_vgpr_count",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_md_vgpr_count,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_DYNAMIC_CALL_STACK,
        how: "IsDynamicCallStack flipped against is_dynamic_callstack",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: code_md_dynamic_call_stack,
    },
    Mutator {
        rule: &oracle::check::CODE_METADATA_XNACK,
        how: "processors without XNACK: IsXNACKEnabled true",
        also: &[],
        asm: MutantAsm::None,
        apply: code_md_xnack,
    },
    Mutator {
        rule: &oracle::check::CODE_NOTE_ISA_VERSION,
        how: "e_flags naming an unmodelled processor, amd_machine_version not the ISA note's",
        also: &[&oracle::elf::E_FLAGS_MACH_UNMODELLED],
        asm: MutantAsm::None,
        apply: code_note_isa_version,
    },
    Mutator {
        rule: &oracle::sgpr::v2::GRID_WORKGROUP_COUNT_UNSUPPORTED,
        how: "grid work-group counts enabled (and counted in USER_SGPR_COUNT)",
        also: &[],
        asm: MutantAsm::None,
        apply: sgpr_grid_unsupported,
    },
    Mutator {
        rule: &oracle::sgpr::v2::GRID_WORKGROUP_COUNT_NOT_INITIALIZED,
        how: "GFX7+: every user SGPR and the three grid counts enabled, past SGPR15",
        also: &[&oracle::sgpr::v2::GRID_WORKGROUP_COUNT_UNSUPPORTED],
        asm: MutantAsm::None,
        apply: sgpr_grid_not_initialized,
    },
];

/// V2 rules no mutation of a generated object breaks, with the reason
/// (none: every V2 rule has a mutator).
pub(super) static UNMUTABLE: &[(&Rule, &str)] = &[];
