//! Mutators of `metadata.*` rules: the MessagePack document.

use super::*;

pub(super) fn metadata_decode(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Any strict prefix of one MessagePack value is incomplete.
    let md = emit::metadata_bytes(c.co);
    let n = int(u, 0usize, md.len().saturating_sub(1))?;
    Ok(Some(with_md_bytes(c.co.clone(), &md[..n])))
}

pub(super) fn metadata_trailing_bytes(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let mut md = emit::metadata_bytes(c.co);
    let n = int(u, 1usize, 16)?;
    for _ in 0..n {
        md.push(u.arbitrary()?);
    }
    Ok(Some(with_md_bytes(c.co.clone(), &md)))
}

/// A drawn map of the document: the root, a kernel map or an argument
/// map, as a path of (kernel, argument) indices.
#[derive(Clone, Copy)]
pub(super) enum Place {
    Root,
    Kernel(usize),
    Arg(usize, usize),
}

pub(super) fn any_place(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> arbitrary::Result<Place> {
    let mut places = vec![Place::Root];
    for (i, k) in c.co.kernels.iter().enumerate() {
        places.push(Place::Kernel(i));
        for j in 0..k.metadata.args.len() {
            places.push(Place::Arg(i, j));
        }
    }
    pick(u, &places)
}

pub(super) fn place_mut(root: &mut Value, p: Place) -> Option<&mut Value> {
    match p {
        Place::Root => Some(root),
        Place::Kernel(i) => kernel_mut(root, i),
        Place::Arg(i, j) => args_mut(kernel_mut(root, i)?)?.get_mut(j),
    }
}

pub(super) fn metadata_ext_type(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let p = any_place(c, u)?;
    let key = format!("acme.{}", word(u)?);
    let ty = u.arbitrary::<i8>()?;
    let n = int(u, 0usize, 20)?;
    let mut data = Vec::with_capacity(n);
    for _ in 0..n {
        data.push(u.arbitrary()?);
    }
    Ok(with_md(c.co.clone(), |m| {
        set_key(place_mut(m, p)?, &key, Value::Ext(ty, data))
    }))
}

pub(super) fn metadata_duplicate_key(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let p = any_place(c, u)?;
    let which = u.arbitrary::<u16>()?;
    Ok(with_md(c.co.clone(), |m| {
        let map = map_mut(place_mut(m, p)?)?;
        if map.is_empty() {
            return None;
        }
        let e = map[usize::from(which) % map.len()].clone();
        map.push(e);
        Some(())
    }))
}

pub(super) fn metadata_root_not_map(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let how = int(u, 0u8, 3)?;
    Ok(with_md(c.co.clone(), |m| {
        *m = match how {
            0 => Value::Array(vec![m.clone()]),
            1 => Value::UInt(1),
            2 => Value::str("amdhsa.kernels"),
            _ => Value::Nil,
        };
        Some(())
    }))
}

pub(super) fn metadata_missing_key(c: &Ctx<'_>, _u: &mut Unstructured<'_>) -> R {
    Ok(with_md(c.co.clone(), |m| del_key(m, "amdhsa.version")))
}

pub(super) fn metadata_missing_key_kernels(c: &Ctx<'_>, _u: &mut Unstructured<'_>) -> R {
    Ok(with_md(c.co.clone(), |m| del_key(m, "amdhsa.kernels")))
}

/// Kernel keys the value mutators rewrite: those every generated kernel
/// map has.
pub(super) const KERNEL_UINT_KEYS: &[&str] = &[
    ".group_segment_fixed_size",
    ".kernarg_segment_align",
    ".kernarg_segment_size",
    ".max_flat_workgroup_size",
    ".private_segment_fixed_size",
    ".sgpr_count",
    ".vgpr_count",
    ".wavefront_size",
];

pub(super) fn metadata_value_type(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let key = pick(u, KERNEL_UINT_KEYS)?;
    let val = match int(u, 0u8, 4)? {
        0 => Value::Bool(u.arbitrary()?),
        1 => Value::Array(vec![Value::UInt(1)]),
        2 => Value::Map(Vec::new()),
        3 => Value::Int(-int(u, 1i64, 1 << 40)?),
        _ => Value::F64(1.5),
    };
    Ok(with_md(c.co.clone(), |m| {
        set_key(kernel_mut(m, i)?, key, val)
    }))
}

pub(super) fn metadata_value_string_scalar(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let key = pick(u, KERNEL_UINT_KEYS)?;
    Ok(with_md(c.co.clone(), |m| {
        let k = kernel_mut(m, i)?;
        let n = get_mut(k, key)?.as_u64()?;
        set_key(k, key, Value::str(&n.to_string()))
    }))
}

pub(super) fn metadata_value_enum(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let lang = pick(u, &["Fortran", "opencl c", "CUDA", "", "OpenCL"])?;
    Ok(with_md(c.co.clone(), |m| {
        set_key(kernel_mut(m, i)?, ".language", Value::str(lang))
    }))
}

pub(super) fn metadata_key_unprefixed(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let p = any_place(c, u)?;
    let key = word(u)?;
    let v = int(u, 0u64, 1000)?;
    Ok(with_md(c.co.clone(), |m| {
        set_key(place_mut(m, p)?, &key, Value::UInt(v))
    }))
}

pub(super) fn metadata_version_mismatch(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let own = c.cov.metadata_version().unwrap_or([1, 0]);
    let others: Vec<[u64; 2]> = [[1, 0], [1, 1], [1, 2], [1, 3], [2, 0]]
        .into_iter()
        .filter(|v| *v != own)
        .collect();
    let v = pick(u, &others)?;
    Ok(with_md(c.co.clone(), |m| {
        set_key(
            m,
            "amdhsa.version",
            Value::Array(vec![Value::UInt(v[0]), Value::UInt(v[1])]),
        )
    }))
}

pub(super) fn metadata_target_missing(c: &Ctx<'_>, _u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V4 {
        return Ok(None);
    }
    Ok(with_md(c.co.clone(), |m| del_key(m, "amdhsa.target")))
}

pub(super) fn metadata_target_invalid(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V4 {
        return Ok(None);
    }
    let name = c.t.name;
    let bad = match int(u, 0u8, 3)? {
        0 => format!("{}gfx9999", targets::TRIPLE_PREFIX),
        1 => name.to_owned(),
        2 => format!("{}{name}:bogus+", targets::TRIPLE_PREFIX),
        _ => format!("amdgcn-amd-amdpal--{name}"),
    };
    Ok(with_md(c.co.clone(), |m| {
        set_key(m, "amdhsa.target", Value::str(&bad))
    }))
}

pub(super) fn metadata_target_mismatch(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V4 {
        return Ok(None);
    }
    let own = c.co.target.id;
    let mut others: Vec<TargetId> = targets::hsa_targets()
        .filter(|t| t.name != c.t.name)
        .map(TargetId::any)
        .collect();
    // The same processor with another feature setting.
    for x in [FeatureSetting::Any, FeatureSetting::Off, FeatureSetting::On] {
        for s in [FeatureSetting::Any, FeatureSetting::Off, FeatureSetting::On] {
            let x = if c.t.xnack {
                x
            } else {
                FeatureSetting::Unsupported
            };
            let s = if c.t.sramecc {
                s
            } else {
                FeatureSetting::Unsupported
            };
            if let Ok(id) = TargetId::new(c.t, x, s) {
                if id != own && !others.contains(&id) {
                    others.push(id);
                }
            }
        }
    }
    let id = pick(u, &others)?;
    Ok(with_md(c.co.clone(), |m| {
        set_key(m, "amdhsa.target", Value::str(&id.to_full_string()))
    }))
}

pub(super) fn metadata_printf_format(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let bad = pick(
        u,
        &["x:1:4:%d", "1:2:4:%d", "1", "1:x:%d", "1:1:q:%s", "-1:0:%d"],
    )?;
    let mut co = c.co.clone();
    let at = int(u, 0usize, co.printf.len())?;
    co.printf.insert(at, bad.to_owned());
    Ok(Some(remodel(co)))
}

/// Required kernel keys (`metadata.kernel.missing_key`).
/// (`.symbol` is left out: without it the descriptor symbol is named by no
/// metadata kernel, a second rule.)
pub(super) const KERNEL_REQUIRED: &[&str] = &[
    ".name",
    ".kernarg_segment_size",
    ".group_segment_fixed_size",
    ".private_segment_fixed_size",
    ".kernarg_segment_align",
    ".wavefront_size",
    ".sgpr_count",
    ".vgpr_count",
    ".max_flat_workgroup_size",
];

pub(super) fn metadata_kernel_missing_key(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let key = pick(u, KERNEL_REQUIRED)?;
    Ok(with_md(c.co.clone(), |m| del_key(kernel_mut(m, i)?, key)))
}

pub(super) fn metadata_kernel_duplicate_name(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let n = c.co.kernels.len();
    if n < 2 {
        return Ok(None);
    }
    let i = int(u, 0usize, n - 1)?;
    let j = (i + int(u, 1usize, n - 1)?) % n;
    let mut co = c.co.clone();
    co.kernels[j].metadata.name = co.kernels[i].metadata.name.clone();
    Ok(Some(remodel(co)))
}

pub(super) fn metadata_kernel_duplicate_symbol(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // A second metadata entry for one kernel.
    let i = any_kernel(c.co, u)?;
    Ok(with_md(c.co.clone(), |m| {
        let ks = kernels_mut(m)?;
        let copy = ks.get(i)?.clone();
        ks.push(copy);
        Some(())
    }))
}

pub(super) fn metadata_kernel_symbol_name(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let mut co = c.co.clone();
    let new = word(u)?;
    if co
        .kernels
        .iter()
        .any(|k| k.name == new || k.metadata.name == new)
    {
        return Ok(None);
    }
    co.kernels[i].metadata.name = new;
    Ok(Some(remodel(co)))
}

/// A model change to kernel `i`'s metadata.
pub(super) fn meta_edit(
    c: &Ctx<'_>,
    i: usize,
    f: impl FnOnce(&mut crate::metadata::KernelMeta),
) -> Out {
    let mut co = c.co.clone();
    f(&mut co.kernels[i].metadata);
    remodel(co)
}

pub(super) fn metadata_kernel_kernarg_segment_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let v = if u.ratio(1u8, 8)? {
        0
    } else {
        non_pow2(u, 3, 4096)? as u32
    };
    Ok(Some(meta_edit(c, i, |m| m.kernarg_segment_align = v)))
}

pub(super) fn metadata_kernel_wavefront_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let v = int_except(u, 0, 1024, &[32, 64])? as u32;
    Ok(Some(meta_edit(c, i, |m| m.wavefront_size = v)))
}

pub(super) fn metadata_kernel_max_flat_workgroup_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let reqd = c.co.kernels[i].metadata.reqd_workgroup_size.is_some();
    // 0 only without .reqd_workgroup_size, whose product must not exceed it.
    let v = if !reqd && u.ratio(1u8, 4)? {
        0
    } else {
        int(u, 1025u32, u32::MAX)?
    };
    Ok(Some(meta_edit(c, i, |m| m.max_flat_workgroup_size = v)))
}

pub(super) fn metadata_kernel_reqd_workgroup_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let zero = int(u, 0usize, 2)?;
    let mut d = [0u32; 3];
    for (j, x) in d.iter_mut().enumerate() {
        *x = if j == zero { 0 } else { int(u, 0u32, 16)? };
    }
    if d == [0, 0, 0] {
        d[(zero + 1) % 3] = 1;
    }
    Ok(Some(meta_edit(c, i, |m| m.reqd_workgroup_size = Some(d))))
}

pub(super) fn metadata_kernel_reqd_workgroup_size_limit(
    c: &Ctx<'_>,
    u: &mut Unstructured<'_>,
) -> R {
    let i = any_kernel(c.co, u)?;
    let max = c.co.kernels[i].metadata.max_flat_workgroup_size;
    let x = int(u, max.saturating_add(1), max.saturating_add(1024))?;
    let mut d = [x, 1, 1];
    let at = int(u, 0usize, 2)?;
    d.swap(0, at);
    Ok(Some(meta_edit(c, i, |m| m.reqd_workgroup_size = Some(d))))
}

pub(super) fn metadata_kernel_workgroup_processor_mode(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // The key on a processor without WGP mode.
    if c.cov < CodeObjectVersion::V5 || c.t.has_wgp_mode() {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let v = u.arbitrary()?;
    Ok(Some(meta_edit(c, i, |m| {
        m.workgroup_processor_mode = Some(v)
    })))
}

pub(super) fn metadata_kernel_workgroup_processor_mode_value(
    c: &Ctx<'_>,
    u: &mut Unstructured<'_>,
) -> R {
    // A value other than 0 and 1 where the key belongs, in a kernel whose
    // WGP_MODE is set (the oracle reads any non-zero value as true).
    if c.cov < CodeObjectVersion::V5 || !c.t.has_wgp_mode() {
        return Ok(None);
    }
    let Some(i) = kernel_where(c.co, u, |k| k.descriptor.workgroup_processor_mode)? else {
        return Ok(None);
    };
    let v = int(u, 2u64, 255)?;
    Ok(with_md(c.co.clone(), |m| {
        set_key(
            kernel_mut(m, i)?,
            ".workgroup_processor_mode",
            Value::UInt(v),
        )
    }))
}

pub(super) fn metadata_kernel_uniform_work_group_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov < CodeObjectVersion::V5 {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let v = int(u, 2u64, 255)?;
    Ok(with_md(c.co.clone(), |m| {
        set_key(
            kernel_mut(m, i)?,
            ".uniform_work_group_size",
            Value::UInt(v),
        )
    }))
}

pub(super) fn metadata_kernel_kind(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let i = any_kernel(c.co, u)?;
    let k = pick(
        u,
        &["weird", "Normal", "INIT", "kernel", "main", "finalizer"],
    )?;
    Ok(Some(meta_edit(c, i, |m| m.kind = Some(k))))
}

/// A drawn (kernel, argument) pair where `pred` holds.
pub(super) fn arg_where(
    co: &CodeObject,
    u: &mut Unstructured<'_>,
    pred: impl Fn(&Kernel, &ArgSpec) -> bool,
) -> arbitrary::Result<Option<(usize, usize)>> {
    let mut all = Vec::new();
    for (i, k) in co.kernels.iter().enumerate() {
        for (j, a) in k.metadata.args.iter().enumerate() {
            if pred(k, a) {
                all.push((i, j));
            }
        }
    }
    if all.is_empty() {
        return Ok(None);
    }
    Ok(Some(pick(u, &all)?))
}

pub(super) fn metadata_arg_missing_key(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Kernels without hidden arguments: an argument without size or
    // offset (or kind) moves where the hidden block is expected.
    let Some((i, j)) = arg_where(c.co, u, |k, _| !has_hidden(k))? else {
        return Ok(None);
    };
    let key = pick(u, &[".size", ".offset", ".value_kind"])?;
    Ok(with_md(c.co.clone(), |m| {
        del_key(args_mut(kernel_mut(m, i)?)?.get_mut(j)?, key)
    }))
}

/// A model change to argument `j` of kernel `i`.
pub(super) fn arg_edit(c: &Ctx<'_>, i: usize, j: usize, f: impl FnOnce(&mut ArgSpec)) -> Out {
    let mut co = c.co.clone();
    f(&mut co.kernels[i].metadata.args[j]);
    remodel(co)
}

pub(super) fn metadata_arg_address_space(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some((i, j)) = arg_where(c.co, u, |_, a| {
        matches!(
            a.kind,
            ValueKind::GlobalBuffer | ValueKind::DynamicSharedPointer
        )
    })?
    else {
        return Ok(None);
    };
    let space = if c.co.kernels[i].metadata.args[j].kind == ValueKind::GlobalBuffer {
        AddressSpace::Local
    } else {
        pick(
            u,
            &[
                AddressSpace::Global,
                AddressSpace::Constant,
                AddressSpace::Generic,
            ],
        )?
    };
    Ok(Some(arg_edit(c, i, j, |a| a.address_space = Some(space))))
}

pub(super) fn metadata_arg_kind_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Pointers shrink: 8-byte kinds to 1, 2 or 4; LDS pointers to 1 or 2.
    let Some((i, j)) = arg_where(c.co, u, |_, a| {
        is_pointer_kind(a.kind) || a.kind == ValueKind::DynamicSharedPointer
    })?
    else {
        return Ok(None);
    };
    let size = if c.co.kernels[i].metadata.args[j].kind == ValueKind::DynamicSharedPointer {
        pick(u, &[1u32, 2])?
    } else {
        pick(u, &[1u32, 2, 4])?
    };
    Ok(Some(arg_edit(c, i, j, |a| a.size = size)))
}

pub(super) fn metadata_arg_pointee_align(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some((i, j)) = arg_where(c.co, u, |_, a| a.kind == ValueKind::DynamicSharedPointer)? else {
        return Ok(None);
    };
    let v = if u.ratio(1u8, 8)? {
        0
    } else {
        non_pow2(u, 3, 4096)? as u32
    };
    Ok(Some(arg_edit(c, i, j, |a| a.pointee_align = Some(v))))
}

/// True if kernel `k` has hidden arguments.
pub(super) fn has_hidden(k: &Kernel) -> bool {
    k.metadata.args.iter().any(|a| a.kind.is_hidden())
}

/// The end of kernel `k`'s arguments.
pub(super) fn args_end(k: &Kernel) -> u32 {
    k.metadata.args.iter().map(ArgSpec::end).max().unwrap_or(0)
}

pub(super) fn metadata_arg_misaligned(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // A new pointer argument after the others, off its natural alignment,
    // with the segment grown to hold it (kernels without hidden arguments,
    // whose place the new argument would move).
    let Some(i) = kernel_where(c.co, u, |k| !has_hidden(k))? else {
        return Ok(None);
    };
    let (kind, size) = pick(
        u,
        &[
            (ValueKind::GlobalBuffer, 8u32),
            (ValueKind::DynamicSharedPointer, 4),
            (ValueKind::Sampler, 8),
            (ValueKind::Queue, 8),
        ],
    )?;
    let mut co = c.co.clone();
    let k = &mut co.kernels[i];
    let end = args_end(k).max(k.metadata.kernarg_segment_size);
    let mut off = end;
    if off.is_multiple_of(size) {
        off += pick(u, &[1u32, 2, size / 2])?;
    }
    let mut a = ArgSpec::new(kind, off, size);
    if kind == ValueKind::GlobalBuffer {
        a.address_space = Some(AddressSpace::Global);
    } else if kind == ValueKind::DynamicSharedPointer {
        a.address_space = Some(AddressSpace::Local);
    }
    k.metadata.args.push(a);
    k.metadata.kernarg_segment_size = off + size;
    if k.descriptor.kernarg_size != 0 {
        k.descriptor.kernarg_size = off + size;
    }
    Ok(Some(remodel(co)))
}

pub(super) fn metadata_arg_out_of_bounds(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // The segment shrinks below the end of the last argument (metadata and
    // descriptor together; never below the preloaded dwords).
    let t = c.t;
    let Some(i) = kernel_where(c.co, u, |k| {
        let e = &k.descriptor.enables;
        let preload = if t.kernarg_preload && e.preload_length != 0 {
            4 * (u32::from(e.preload_offset) + u32::from(e.preload_length))
        } else {
            0
        };
        args_end(k) > preload.max(1)
    })?
    else {
        return Ok(None);
    };
    let mut co = c.co.clone();
    let k = &mut co.kernels[i];
    let e = &k.descriptor.enables;
    let preload = if t.kernarg_preload && e.preload_length != 0 {
        4 * (u32::from(e.preload_offset) + u32::from(e.preload_length))
    } else {
        0
    };
    let end = args_end(k);
    let size = int(u, preload.max(1), end - 1)?;
    k.metadata.kernarg_segment_size = size;
    if k.descriptor.kernarg_size != 0 {
        k.descriptor.kernarg_size = size;
    }
    Ok(Some(remodel(co)))
}

pub(super) fn metadata_arg_overlap(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Argument a moves onto argument b (explicit, both non-empty), where it
    // stays naturally aligned and the end of the explicit arguments stays.
    let mut pairs = Vec::new();
    for (i, k) in c.co.kernels.iter().enumerate() {
        let args = &k.metadata.args;
        let explicit_end = args
            .iter()
            .filter(|a| !a.kind.is_hidden())
            .map(ArgSpec::end)
            .max()
            .unwrap_or(0);
        for (x, a) in args.iter().enumerate() {
            for (y, b) in args.iter().enumerate() {
                let ok = x != y
                    && !a.kind.is_hidden()
                    && !b.kind.is_hidden()
                    && a.size > 0
                    && b.size > 0
                    && b.offset % natural_align(a) == 0
                    && b.offset + a.size <= explicit_end
                    && (a.end() < explicit_end
                        || args.iter().enumerate().any(|(z, o)| {
                            z != x && !o.kind.is_hidden() && o.end() == explicit_end
                        }));
                if ok {
                    pairs.push((i, x, y));
                }
            }
        }
    }
    if pairs.is_empty() {
        return Ok(None);
    }
    let (i, x, y) = pick(u, &pairs)?;
    let to = c.co.kernels[i].metadata.args[y].offset;
    Ok(Some(arg_edit(c, i, x, |a| a.offset = to)))
}

pub(super) fn metadata_arg_hidden_version(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if c.cov >= CodeObjectVersion::V5 {
        return Ok(None);
    }
    let Some((i, j)) = arg_where(c.co, u, |_, a| a.kind.is_hidden() && a.size == 8)? else {
        return Ok(None);
    };
    // llvm-mc-14 (the V3 assembler) knows hidden_queue_ptr but not
    // hidden_heap_v1 ("invalid HSA metadata"); llvm-mc-19 takes both.
    let kinds: &[ValueKind] = if c.cov == CodeObjectVersion::V3 {
        &[ValueKind::HiddenQueuePtr]
    } else {
        &[ValueKind::HiddenHeapV1, ValueKind::HiddenQueuePtr]
    };
    let kind = pick(u, kinds)?;
    Ok(Some(arg_edit(c, i, j, |a| a.kind = kind)))
}

pub(super) fn metadata_arg_hidden_layout(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    // Two hidden arguments of one size trade places.
    let mut pairs = Vec::new();
    for (i, k) in c.co.kernels.iter().enumerate() {
        let args = &k.metadata.args;
        for (x, a) in args.iter().enumerate() {
            for (y, b) in args.iter().enumerate().skip(x + 1) {
                if a.kind.is_hidden()
                    && b.kind.is_hidden()
                    && a.kind != ValueKind::HiddenNone
                    && b.kind != ValueKind::HiddenNone
                    && a.kind != b.kind
                    && a.size == b.size
                {
                    pairs.push((i, x, y));
                }
            }
        }
    }
    if pairs.is_empty() {
        return Ok(None);
    }
    let (i, x, y) = pick(u, &pairs)?;
    let mut co = c.co.clone();
    let args = &mut co.kernels[i].metadata.args;
    let (ox, oy) = (args[x].offset, args[y].offset);
    args[x].offset = oy;
    args[y].offset = ox;
    Ok(Some(remodel(co)))
}

/// The mutators of this area, in catalogue order.
pub(super) static MUTATORS: &[Mutator] = &[
    Mutator {
        rule: &oracle::metadata::DECODE,
        how: "the MessagePack cut short",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_decode,
    },
    Mutator {
        rule: &oracle::metadata::TRAILING_BYTES,
        how: "bytes after the MessagePack value",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_trailing_bytes,
    },
    Mutator {
        rule: &oracle::metadata::EXT_TYPE,
        how: "an extension value under a vendor key",
        also: &[&oracle::metadata::KEY_VENDOR],
        asm: MutantAsm::None,
        apply: metadata_ext_type,
    },
    Mutator {
        rule: &oracle::metadata::DUPLICATE_KEY,
        how: "a map entry repeated",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_duplicate_key,
    },
    Mutator {
        rule: &oracle::metadata::ROOT_NOT_MAP,
        how: "the root an array, integer, string or nil",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_root_not_map,
    },
    Mutator {
        rule: &oracle::metadata::MISSING_KEY,
        how: "amdhsa.version removed",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_missing_key,
    },
    Mutator {
        rule: &oracle::metadata::MISSING_KEY,
        how: "amdhsa.kernels removed",
        also: &[&oracle::symbols::KD_NOT_IN_METADATA],
        asm: MutantAsm::None,
        apply: metadata_missing_key_kernels,
    },
    Mutator {
        rule: &oracle::metadata::VALUE_TYPE,
        how: "a kernel's integer key as a boolean, array, map, negative or float",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_value_type,
    },
    Mutator {
        rule: &oracle::metadata::STRING_SCALAR,
        how: "a kernel's integer key as a decimal string",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_value_string_scalar,
    },
    Mutator {
        rule: &oracle::metadata::VALUE_ENUM,
        how: "a .language LLVM does not list",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_value_enum,
    },
    Mutator {
        rule: &oracle::metadata::KEY_UNPREFIXED,
        how: "a key without a vendor prefix",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_key_unprefixed,
    },
    Mutator {
        rule: &oracle::metadata::VERSION_MISMATCH,
        how: "amdhsa.version of another code object version",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_version_mismatch,
    },
    Mutator {
        rule: &oracle::metadata::TARGET_MISSING,
        how: "V4+: amdhsa.target removed",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_target_missing,
    },
    Mutator {
        rule: &oracle::metadata::TARGET_INVALID,
        how: "V4+: amdhsa.target not a target ID string",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_target_invalid,
    },
    Mutator {
        rule: &oracle::metadata::TARGET_MISMATCH,
        how: "V4+: amdhsa.target naming another processor or feature setting",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_target_mismatch,
    },
    Mutator {
        rule: &oracle::metadata::PRINTF_FORMAT,
        how: "an amdhsa.printf entry not ID:N:sizes:format",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_printf_format,
    },
    Mutator {
        rule: &oracle::metadata::KERNEL_MISSING_KEY,
        how: "a required kernel key removed",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_kernel_missing_key,
    },
    Mutator {
        rule: &oracle::metadata::KERNEL_DUPLICATE_NAME,
        how: "two kernels with one .name",
        also: &[&oracle::metadata::KERNEL_SYMBOL_NAME],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_duplicate_name,
    },
    Mutator {
        rule: &oracle::metadata::KERNEL_DUPLICATE_SYMBOL,
        how: "a second metadata entry for one kernel",
        also: &[&oracle::metadata::KERNEL_DUPLICATE_NAME],
        asm: MutantAsm::None,
        apply: metadata_kernel_duplicate_symbol,
    },
    Mutator {
        rule: &oracle::metadata::KERNEL_DUPLICATE_SYMBOL,
        how: "one kernel described by two metadata notes",
        also: &[&oracle::metadata::KERNEL_DUPLICATE_NAME],
        asm: MutantAsm::None,
        apply: metadata_kernel_described_twice,
    },
    Mutator {
        rule: &oracle::metadata::KERNEL_SYMBOL_NAME,
        how: "a .name that is not .symbol without .kd",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_symbol_name,
    },
    Mutator {
        rule: &oracle::metadata::KERNARG_SEGMENT_ALIGN,
        how: ".kernarg_segment_align not a power of two",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_kernarg_segment_align,
    },
    Mutator {
        rule: &oracle::metadata::WAVEFRONT_SIZE,
        how: ".wavefront_size other than 32 and 64",
        also: &[&oracle::kd::METADATA_WAVEFRONT_SIZE],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_wavefront_size,
    },
    Mutator {
        rule: &oracle::metadata::MAX_FLAT_WORKGROUP_SIZE,
        how: ".max_flat_workgroup_size 0 or above 1024",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_max_flat_workgroup_size,
    },
    Mutator {
        rule: &oracle::metadata::REQD_WORKGROUP_SIZE,
        how: ".reqd_workgroup_size with a 0 but not all 0",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_reqd_workgroup_size,
    },
    Mutator {
        rule: &oracle::metadata::REQD_WORKGROUP_SIZE_LIMIT,
        how: ".reqd_workgroup_size above .max_flat_workgroup_size",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_reqd_workgroup_size_limit,
    },
    Mutator {
        rule: &oracle::metadata::WORKGROUP_PROCESSOR_MODE,
        how: "V5+: the key on a processor without WGP mode",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_workgroup_processor_mode,
    },
    Mutator {
        rule: &oracle::metadata::WORKGROUP_PROCESSOR_MODE,
        how: "V5+, WGP targets: .workgroup_processor_mode 2 or more",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_kernel_workgroup_processor_mode_value,
    },
    Mutator {
        rule: &oracle::metadata::UNIFORM_WORK_GROUP_SIZE,
        how: "V5+: .uniform_work_group_size 2 or more",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_kernel_uniform_work_group_size,
    },
    Mutator {
        rule: &oracle::metadata::KERNEL_KIND,
        how: "a .kind other than normal, init, fini",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_kernel_kind,
    },
    Mutator {
        rule: &oracle::metadata::ARG_MISSING_KEY,
        how: "an argument's .size, .offset or .value_kind removed",
        also: &[],
        asm: MutantAsm::None,
        apply: metadata_arg_missing_key,
    },
    Mutator {
        rule: &oracle::metadata::ARG_ADDRESS_SPACE,
        how: "a dynamic_shared_pointer outside local, a global_buffer in local",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_address_space,
    },
    Mutator {
        rule: &oracle::metadata::ARG_KIND_SIZE,
        how: "a pointer argument shrunk below pointer size",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_kind_size,
    },
    Mutator {
        rule: &oracle::metadata::ARG_POINTEE_ALIGN,
        how: "a .pointee_align that is not a power of two",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_pointee_align,
    },
    Mutator {
        rule: &oracle::metadata::ARG_MISALIGNED,
        how: "a new pointer argument off its natural alignment (kernels without hidden arguments)",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_misaligned,
    },
    Mutator {
        rule: &oracle::metadata::ARG_OUT_OF_BOUNDS,
        how: "the kernarg segment shrunk below the last argument's end",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_out_of_bounds,
    },
    Mutator {
        rule: &oracle::metadata::ARG_OVERLAP,
        how: "an explicit argument moved onto another",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_overlap,
    },
    Mutator {
        rule: &oracle::metadata::ARG_HIDDEN_VERSION,
        how: "V3/V4: an 8-byte hidden argument becomes hidden_queue_ptr (or, V4, hidden_heap_v1)",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_hidden_version,
    },
    Mutator {
        rule: &oracle::metadata::ARG_HIDDEN_LAYOUT,
        how: "two hidden arguments of one size trade offsets",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: metadata_arg_hidden_layout,
    },
];
