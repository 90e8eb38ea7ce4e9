//! V2 mutators of `metadata.v2.*` rules: the YAML metadata document.

use super::*;

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

/// Also the mutator of `code.metadata.wavefront_size` (code_metadata.rs):
/// the one change breaks both.
pub(super) fn md_wavefront_size(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
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

/// The mutators of this area, in catalogue order.
pub(super) static MUTATORS: &[Mutator] = &[
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
];
