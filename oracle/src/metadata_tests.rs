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
            mach: gfx90a().target.mach,
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
            set(&mut c.doc, "amdhsa.target", s("amdgcn-amd-amdhsa--gfx1310"))
        }),
        ("metadata.target.mismatch", &[], |c| {
            // `llc-22` without -mcpu: EF_AMDGPU_MACH 0, amdhsa.target gfx700.
            c.ctx.target_id = None;
            c.ctx.mach = 0;
            set(&mut c.doc, "amdhsa.target", s("amdgcn-amd-amdhsa--gfx700"))
        }),
        ("metadata.target.mismatch", &[], |c| {
            // e_flags name a processor newer than the table (gfx1310), the
            // metadata a modelled one.
            c.ctx.target_id = None;
            c.ctx.mach = 0x50;
            set(&mut c.doc, "amdhsa.target", s("amdgcn-amd-amdhsa--gfx90a"))
        }),
        ("metadata.target.mismatch", &[], |c| {
            // Both newer than the table, and different.
            c.ctx.target_id = None;
            c.ctx.mach = 0x50;
            set(&mut c.doc, "amdhsa.target", s("amdgcn-amd-amdhsa--gfx1154"))
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
            let want: BTreeSet<&str> = std::iter::once(id).chain(also.iter().copied()).collect();
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
    // LLVM trunk writes gfx1310 (mach 0x50, which the ELF check reports
    // as unmodelled; the same processor in e_flags and metadata is no
    // mismatch); the retired gfx940 is modelled.
    for (target, elf, mach) in [
        ("amdgcn-amd-amdhsa--gfx1310:xnack-", None, 0x50),
        // e_flags whose feature fields do not decode (the ELF check says
        // so): the same processor is no mismatch.
        ("amdgcn-amd-amdhsa--gfx90a", None, 0x3f),
        (
            "amdgcn-amd-amdhsa--gfx940:sramecc+",
            TargetId::parse("gfx940:sramecc+").ok(),
            0x40,
        ),
    ] {
        let mut c = base(CodeObjectVersion::V5);
        set(&mut c.doc, "amdhsa.target", s(target));
        c.ctx.target_id = elf;
        c.ctx.mach = mach;
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
        let ctx = Context { cov: CodeObjectVersion::V5, target_id: None, mach: 0 };
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

/// `Space::from_index` reads both formats' address-space lists by position:
/// they must list the spaces in the same order.
#[test]
fn address_space_lists_share_their_order() {
    let v2 = crate::metadata_v2::ADDR_SPACE_QUALS;
    assert_eq!(ADDRESS_SPACES.len(), v2.len());
    for (a, b) in ADDRESS_SPACES.iter().zip(v2) {
        assert!(a.eq_ignore_ascii_case(b), "{a} vs {b}");
    }
    assert_eq!(
        Space::from_index(bytes_index(ADDRESS_SPACES, b"local")),
        Space::Local
    );
}
