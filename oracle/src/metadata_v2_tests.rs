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
