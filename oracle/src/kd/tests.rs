//! Tests of the descriptor: one mutant per rule, layout, fields, granules.

use super::*;
use crate::rules::{Rule, Severity};
use crate::targets::{by_name, TARGETS};
use proptest::prelude::*;
use std::collections::BTreeSet;

pub(crate) fn t(name: &str) -> &'static Target {
    by_name(name).unwrap_or_else(|| panic!("target {name} missing from targets::TARGETS"))
}

/// Targets the rule tests run on, one or more per generation.
pub(crate) const SAMPLE: &[&str] = &[
    "gfx600",
    "gfx700",
    "gfx803",
    "gfx802",
    "gfx900",
    "gfx908",
    "gfx90a",
    "gfx942",
    "gfx9-generic",
    "gfx1010",
    "gfx1030",
    "gfx1100",
    "gfx1151",
    "gfx1200",
    "gfx11-generic",
    "gfx12-generic",
];

/// A descriptor shaped like clang-19's output for a small kernel (one
/// pointer argument, work-group id X, 5 VGPRs, 10 SGPRs): kernarg
/// segment pointer (plus the private segment buffer where it exists),
/// wave32 where the target has it.
pub(crate) fn valid(target: &Target) -> KernelDescriptor {
    let gen = target.generation;
    let mut r1: u32 = match gen {
        Generation::Gfx6 | Generation::Gfx7 | Generation::Gfx8 => 0x00ac_0000,
        Generation::Gfx9 => 0x00af_0000,
        Generation::Gfx10 | Generation::Gfx11 => 0x40af_0000,
        _ => 0x400f_0000,
    };
    if gen >= Generation::Gfx10 && target.cumode {
        r1 |= 1 << 29;
    }
    r1 |= 1; // 8 VGPRs (wave64) / 16 (wave32, gfx90a)
    if gen < Generation::Gfx10 {
        r1 |= if target.sgpr_init_bug { 11 } else { 1 } << 6;
    }
    let mut props: u16 = 1 << 3;
    if !target.architected_flat_scratch {
        props |= 1;
    }
    if gen >= Generation::Gfx10 && target.wave32 {
        props |= 1 << 10;
    }
    let mut kd = KernelDescriptor {
        kernarg_size: 8,
        kernel_code_entry_byte_offset: 0x1000,
        compute_pgm_rsrc1: r1,
        kernel_code_properties: props,
        ..Default::default()
    };
    let usc = crate::sgpr::implied_user_sgpr_count(&kd, target) as u32;
    kd.compute_pgm_rsrc2 = usc << 1 | 1 << 7;
    kd
}

/// Metadata facts matching [`valid`].
pub(crate) fn valid_facts(target: &Target) -> MetadataFacts {
    let kd = valid(target);
    MetadataFacts {
        sgpr_count: Some(10),
        vgpr_count: Some(5),
        agpr_count: if target.agprs { Some(0) } else { None },
        wavefront_size: Some(if kd.wave32(target) { 32 } else { 64 }),
        group_segment_fixed_size: Some(0),
        private_segment_fixed_size: Some(0),
        kernarg_segment_size: Some(8),
        uses_dynamic_stack: Some(false),
        workgroup_processor_mode: if target.cumode { Some(true) } else { None },
    }
}

/// Runs every descriptor-level check of both kd and sgpr.
pub(crate) fn run_all(
    kd: &KernelDescriptor,
    facts: &MetadataFacts,
    target: &Target,
    cov: CodeObjectVersion,
) -> Sink {
    let mut sink = Sink::new();
    kd.check(target, cov, 0x100, &mut sink);
    kd.check_against_metadata(facts, target, cov, 0x100, &mut sink);
    crate::sgpr::check(kd, target, 0x100, &mut sink);
    sink
}

pub(crate) fn ids(sink: &Sink) -> BTreeSet<&'static str> {
    sink.violations.iter().map(|v| v.rule.id).collect()
}

/// A mutation that must break `rule` (and nothing outside `also`).
pub(crate) struct Case {
    pub rule: &'static Rule,
    pub target: &'static str,
    pub cov: CodeObjectVersion,
    pub mutate: fn(&mut KernelDescriptor, &mut MetadataFacts),
    pub also: &'static [&'static Rule],
}

pub(crate) fn run_cases(cases: &[Case]) {
    for (i, c) in cases.iter().enumerate() {
        let target = t(c.target);
        let mut kd = valid(target);
        let mut facts = valid_facts(target);
        let base = run_all(&kd, &facts, target, c.cov);
        (c.mutate)(&mut kd, &mut facts);
        let sink = run_all(&kd, &facts, target, c.cov);
        assert_mutant(i, c, &base, &sink, 0x100..0x140);
    }
}

/// A mutation test case: the rule it must break and the others it may.
pub(crate) trait Mutant {
    /// The rule the mutation breaks.
    fn rule(&self) -> &'static Rule;
    /// The target's name.
    fn target(&self) -> &'static str;
    /// Rules it may break as well.
    fn also(&self) -> &'static [&'static Rule];
}

impl Mutant for Case {
    fn rule(&self) -> &'static Rule {
        self.rule
    }
    fn target(&self) -> &'static str {
        self.target
    }
    fn also(&self) -> &'static [&'static Rule] {
        self.also
    }
}

/// Asserts that case `i`'s clean base reported nothing (`base`) and its
/// mutant (`sink`) its rule and nothing outside `also`, each violation
/// with its declared severity and within `span`.
pub(crate) fn assert_mutant(
    i: usize,
    c: &impl Mutant,
    base: &Sink,
    sink: &Sink,
    span: std::ops::Range<u64>,
) {
    let id = c.rule().id;
    assert!(
        base.violations.is_empty(),
        "case {i} ({id}): baseline not clean: {:?}",
        base.violations
    );
    let got = ids(sink);
    assert!(
        got.contains(id),
        "case {i}: {id} not reported on {}; got {got:?}",
        c.target()
    );
    let allowed: BTreeSet<&str> = std::iter::once(id)
        .chain(c.also().iter().map(|r| r.id))
        .collect();
    assert!(
        got.is_subset(&allowed),
        "case {i} ({id}): extra rules {got:?}"
    );
    for v in &sink.violations {
        assert_eq!(v.severity, v.rule.severity);
        assert!(v.offset.is_some_and(|o| span.contains(&o)), "{v:?}");
    }
}

/// The two tests of a table of mutants: each breaks its rule, and every
/// rule of `rules` has one.
macro_rules! mutant_tests {
    ($rules:expr, $cases:expr) => {
        #[test]
        fn mutants_break_their_rule() {
            run_cases($cases);
        }

        #[test]
        fn every_rule_has_a_mutant() {
            assert_all_covered($rules, $cases);
        }
    };
}
pub(crate) use mutant_tests;

pub(crate) fn assert_all_covered(rules: &[&Rule], cases: &[impl Mutant]) {
    let covered: BTreeSet<&str> = cases.iter().map(|c| c.rule().id).collect();
    for r in rules {
        assert!(covered.contains(r.id), "rule {} has no mutation test", r.id);
    }
}

use CodeObjectVersion::{V4, V5};

const CASES: &[Case] = &[
    Case {
        rule: &RESERVED_BYTES,
        target: "gfx900",
        cov: V5,
        mutate: |k, _| k.reserved0[2] = 1,
        also: &[],
    },
    Case {
        rule: &RESERVED_BYTES,
        target: "gfx1100",
        cov: V5,
        mutate: |k, _| k.reserved1[19] = 0x80,
        also: &[],
    },
    Case {
        rule: &RESERVED_BYTES,
        target: "gfx942",
        cov: V5,
        mutate: |k, _| k.reserved3[0] = 4,
        also: &[],
    },
    Case {
        rule: &RSRC1_GRANULATED_SGPR_COUNT,
        target: "gfx1030",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc1 |= 4 << 6,
        also: &[],
    },
    Case {
        rule: &RSRC1_PRIORITY,
        target: "gfx900",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc1 |= 2 << 10,
        also: &[],
    },
    Case {
        rule: &RSRC1_PRIV,
        target: "gfx1200",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc1 |= 1 << 20,
        also: &[],
    },
    Case {
        rule: &RSRC1_DEBUG_MODE,
        target: "gfx803",
        cov: V4,
        mutate: |k, _| k.compute_pgm_rsrc1 |= 1 << 22,
        also: &[],
    },
    Case {
        rule: &RSRC1_BULKY,
        target: "gfx90a",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc1 |= 1 << 24,
        also: &[],
    },
    Case {
        rule: &RSRC1_CDBG_USER,
        target: "gfx1100",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc1 |= 1 << 25,
        also: &[],
    },
    Case {
        rule: &RSRC1_RESERVED,
        target: "gfx803",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc1 |= 1 << 26,
        also: &[],
    },
    Case {
        rule: &RSRC1_RESERVED,
        target: "gfx1200",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc1 |= 1 << 28,
        also: &[],
    },
    Case {
        rule: &RSRC1_RESERVED,
        target: "gfx908",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc1 |= 1 << 31,
        also: &[],
    },
    Case {
        rule: &RSRC2_TRAP_HANDLER,
        target: "gfx1100",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc2 |= 1 << 6,
        also: &[],
    },
    Case {
        rule: &RSRC2_EXCEPTION_ADDRESS_WATCH,
        target: "gfx700",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc2 |= 1 << 13,
        also: &[],
    },
    Case {
        rule: &RSRC2_EXCEPTION_MEMORY,
        target: "gfx1030",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc2 |= 1 << 14,
        also: &[],
    },
    Case {
        rule: &RSRC2_GRANULATED_LDS_SIZE,
        target: "gfx942",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc2 |= 0x101 << 15,
        also: &[],
    },
    Case {
        rule: &RSRC2_RESERVED,
        target: "gfx1030",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc2 |= 1 << 31,
        also: &[],
    },
    Case {
        rule: &RSRC3_RESERVED,
        target: "gfx900",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc3 = 1,
        also: &[],
    },
    Case {
        rule: &RSRC3_RESERVED,
        target: "gfx90a",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc3 |= 1 << 6,
        also: &[],
    },
    Case {
        rule: &RSRC3_RESERVED,
        target: "gfx1030",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc3 = 1 << 4,
        also: &[],
    },
    Case {
        rule: &RSRC3_RESERVED,
        target: "gfx1030",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc3 = 1 << 31,
        also: &[],
    },
    Case {
        rule: &RSRC3_RESERVED,
        target: "gfx1100",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc3 = 1 << 13,
        also: &[],
    },
    Case {
        rule: &RSRC3_RESERVED,
        target: "gfx1200",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc3 = 2,
        also: &[],
    },
    Case {
        rule: &RSRC3_SHARED_VGPR_COUNT_WAVE32,
        target: "gfx1030",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc3 = 1,
        also: &[],
    },
    Case {
        rule: &RSRC3_SHARED_VGPR_COUNT_OVERFLOW,
        target: "gfx1100",
        cov: V5,
        mutate: |k, f| {
            k.kernel_code_properties &= !(1 << 10);
            f.wavefront_size = Some(64);
            k.compute_pgm_rsrc1 |= 63;
            k.compute_pgm_rsrc3 = 1;
        },
        also: &[],
    },
    Case {
        rule: &RSRC3_ACCUM_OFFSET,
        target: "gfx90a",
        cov: V5,
        mutate: |k, _| k.compute_pgm_rsrc3 = 4, // first AGPR v20, 16 VGPRs allocated
        also: &[],
    },
    Case {
        rule: &PROPERTIES_RESERVED,
        target: "gfx900",
        cov: V5,
        mutate: |k, _| k.kernel_code_properties |= 1 << 8,
        also: &[],
    },
    Case {
        rule: &PROPERTIES_RESERVED,
        target: "gfx1200",
        cov: V5,
        mutate: |k, _| k.kernel_code_properties |= 1 << 15,
        also: &[],
    },
    Case {
        rule: &PROPERTIES_WAVEFRONT_SIZE32,
        target: "gfx900",
        cov: V5,
        mutate: |k, _| k.kernel_code_properties |= 1 << 10,
        also: &[],
    },
    Case {
        rule: &PROPERTIES_WAVEFRONT_SIZE32,
        target: "gfx700",
        cov: V4,
        mutate: |k, _| k.kernel_code_properties |= 1 << 10,
        also: &[],
    },
    Case {
        rule: &PROPERTIES_USES_DYNAMIC_STACK,
        target: "gfx900",
        cov: V4,
        mutate: |k, f| {
            k.kernel_code_properties |= 1 << 11;
            f.uses_dynamic_stack = None;
        },
        also: &[],
    },
    Case {
        rule: &KERNARG_PRELOAD_UNSUPPORTED,
        target: "gfx1100",
        cov: V5,
        mutate: |k, _| k.kernarg_preload = 2,
        also: &[],
    },
    Case {
        rule: &KERNARG_PRELOAD_LENGTH,
        target: "gfx90a",
        cov: V5,
        mutate: |k, _| {
            k.kernarg_preload = 17;
            k.kernarg_size = 0;
            // 6 + 17 user SGPRs, and room for them in the allocation.
            k.compute_pgm_rsrc2 = (k.compute_pgm_rsrc2 & !0x3E) | 23 << 1;
            k.compute_pgm_rsrc1 = (k.compute_pgm_rsrc1 & !(0xF << 6)) | 2 << 6;
        },
        also: &[&crate::sgpr::USER_SGPR_COUNT_LIMIT],
    },
    Case {
        rule: &KERNARG_PRELOAD_EXCEEDS_KERNARG_SIZE,
        target: "gfx942",
        cov: V5,
        mutate: |k, _| {
            k.kernarg_preload = 2 | 1 << 7; // dwords 1..3, past 8 bytes
            k.compute_pgm_rsrc2 = (k.compute_pgm_rsrc2 & !0x3E) | 4 << 1;
        },
        also: &[],
    },
    Case {
        rule: &METADATA_GROUP_SEGMENT_FIXED_SIZE,
        target: "gfx900",
        cov: V5,
        mutate: |_, f| f.group_segment_fixed_size = Some(1024),
        also: &[],
    },
    Case {
        rule: &METADATA_PRIVATE_SEGMENT_FIXED_SIZE,
        target: "gfx1030",
        cov: V5,
        mutate: |k, _| k.private_segment_fixed_size = 16,
        also: &[],
    },
    Case {
        rule: &METADATA_KERNARG_SEGMENT_SIZE,
        target: "gfx942",
        cov: V5,
        mutate: |_, f| f.kernarg_segment_size = Some(264),
        also: &[],
    },
    Case {
        rule: &METADATA_WAVEFRONT_SIZE,
        target: "gfx1030",
        cov: V5,
        mutate: |_, f| f.wavefront_size = Some(64),
        also: &[],
    },
    Case {
        rule: &METADATA_WAVEFRONT_SIZE,
        target: "gfx803",
        cov: V5,
        mutate: |_, f| f.wavefront_size = Some(32),
        also: &[],
    },
    Case {
        rule: &METADATA_SGPR_COUNT,
        target: "gfx900",
        cov: V5,
        mutate: |_, f| f.sgpr_count = Some(17),
        also: &[],
    },
    Case {
        rule: &METADATA_SGPR_COUNT,
        target: "gfx700",
        cov: V5,
        mutate: |_, f| f.sgpr_count = Some(17),
        also: &[],
    },
    Case {
        rule: &METADATA_VGPR_COUNT,
        target: "gfx900",
        cov: V5,
        mutate: |_, f| f.vgpr_count = Some(9),
        also: &[],
    },
    Case {
        rule: &METADATA_VGPR_COUNT,
        target: "gfx1100",
        cov: V5,
        mutate: |_, f| f.vgpr_count = Some(17),
        also: &[],
    },
    Case {
        rule: &METADATA_VGPR_COUNT,
        target: "gfx908",
        cov: V5,
        mutate: |_, f| f.agpr_count = Some(9),
        also: &[],
    },
    Case {
        rule: &METADATA_VGPR_COUNT,
        target: "gfx90a",
        cov: V5,
        // ACCUM_OFFSET 4 + 13 AGPRs = 17 > 16 allocated.
        mutate: |_, f| {
            f.vgpr_count = Some(16);
            f.agpr_count = Some(13);
        },
        also: &[],
    },
    Case {
        rule: &METADATA_ACCUM_OFFSET,
        target: "gfx942",
        cov: V5,
        mutate: |_, f| {
            f.vgpr_count = Some(10);
            f.agpr_count = Some(4);
        },
        also: &[],
    },
    Case {
        rule: &METADATA_USES_DYNAMIC_STACK,
        target: "gfx900",
        cov: V5,
        mutate: |_, f| f.uses_dynamic_stack = Some(true),
        also: &[],
    },
    Case {
        rule: &METADATA_WORKGROUP_PROCESSOR_MODE,
        target: "gfx1200",
        cov: V5,
        mutate: |_, f| f.workgroup_processor_mode = Some(false),
        also: &[],
    },
];

mutant_tests!(RULES, CASES);

#[test]
fn valid_descriptors_are_clean() {
    for name in SAMPLE {
        let target = t(name);
        for cov in [
            CodeObjectVersion::V4,
            CodeObjectVersion::V5,
            CodeObjectVersion::V6,
        ] {
            let sink = run_all(&valid(target), &valid_facts(target), target, cov);
            assert!(
                sink.violations.is_empty(),
                "{name} {cov}: {:?}",
                sink.violations
            );
        }
    }
}

#[test]
fn severities_are_as_declared() {
    // Rules that real LLVM 19 output can trigger must not be errors.
    assert_eq!(RSRC1_GRANULATED_SGPR_COUNT.severity, Severity::Info);
    assert_eq!(PROPERTIES_USES_DYNAMIC_STACK.severity, Severity::Info);
    assert_eq!(RSRC2_TRAP_HANDLER.severity, Severity::Warning);
}

#[test]
fn layout_offsets() {
    let mut b = [0u8; KD_SIZE];
    for (i, x) in b.iter_mut().enumerate() {
        *x = i as u8;
    }
    let kd = KernelDescriptor::parse(&b);
    assert_eq!(kd.group_segment_fixed_size, 0x0302_0100);
    assert_eq!(kd.private_segment_fixed_size, 0x0706_0504);
    assert_eq!(kd.kernarg_size, 0x0B0A_0908);
    assert_eq!(kd.reserved0, [12, 13, 14, 15]);
    assert_eq!(kd.kernel_code_entry_byte_offset, 0x1716_1514_1312_1110);
    assert_eq!(kd.reserved1[0], 24);
    assert_eq!(kd.reserved1[19], 43);
    assert_eq!(kd.compute_pgm_rsrc3, 0x2F2E_2D2C);
    assert_eq!(kd.compute_pgm_rsrc1, 0x3332_3130);
    assert_eq!(kd.compute_pgm_rsrc2, 0x3736_3534);
    assert_eq!(kd.kernel_code_properties, 0x3938);
    assert_eq!(kd.kernarg_preload, 0x3B3A);
    assert_eq!(kd.reserved3, [60, 61, 62, 63]);
    assert_eq!(KernelDescriptor::from_slice(&b[..63]), None);
    assert_eq!(KernelDescriptor::from_slice(&b), Some(kd));
}

#[test]
fn bit_field_accessors() {
    // clang-19 gfx900 extcall: rsrc1 0x00af014a, rsrc2 0x1399,
    // properties 0x83b.
    let kd = KernelDescriptor {
        compute_pgm_rsrc1: 0x00af_014a,
        compute_pgm_rsrc2: 0x1399,
        kernel_code_properties: 0x83b,
        kernarg_preload: 9 | 3 << 7,
        compute_pgm_rsrc3: 0x8000_2A1E,
        ..Default::default()
    };
    assert_eq!(kd.granulated_workitem_vgpr_count(), 10);
    assert_eq!(kd.granulated_wavefront_sgpr_count(), 5);
    assert_eq!(kd.float_denorm_mode_32(), 3);
    assert_eq!(kd.float_denorm_mode_16_64(), 3);
    assert_eq!(kd.float_round_mode_32(), 0);
    assert!(kd.enable_dx10_clamp() && kd.enable_ieee_mode() && !kd.fp16_ovfl());
    assert!(kd.enable_private_segment());
    let gfx900 = crate::targets::by_name("gfx900").expect("gfx900");
    assert_eq!(kd.user_sgpr_count(gfx900), 12);
    // GFX12.5's field is 6 bits wide: bit 6 (the trap handler bit
    // elsewhere) is its top bit. LLVM's amdhsa-kernarg-preload-num-sgprs.ll
    // expects rsrc2 0x13c0 (32 user SGPRs) for gfx1250.
    let gfx1250 = crate::targets::by_name("gfx1250").expect("gfx1250");
    let wide = KernelDescriptor {
        compute_pgm_rsrc2: 0x13c0,
        ..Default::default()
    };
    assert_eq!(wide.user_sgpr_count(gfx1250), 32);
    assert_eq!(wide.user_sgpr_count(gfx900), 0);
    assert!(
        kd.enable_sgpr_workgroup_id_x()
            && kd.enable_sgpr_workgroup_id_y()
            && kd.enable_sgpr_workgroup_id_z()
    );
    assert!(!kd.enable_sgpr_workgroup_info());
    assert_eq!(kd.enable_vgpr_workitem_id(), 2);
    assert!(kd.enable_sgpr_private_segment_buffer() && kd.enable_sgpr_dispatch_ptr());
    assert!(
        !kd.enable_sgpr_queue_ptr()
            && kd.enable_sgpr_kernarg_segment_ptr()
            && kd.enable_sgpr_dispatch_id()
    );
    assert!(kd.enable_sgpr_flat_scratch_init() && !kd.enable_sgpr_private_segment_size());
    assert!(!kd.enable_wavefront_size32() && kd.uses_dynamic_stack());
    assert_eq!(kd.kernarg_preload_length(), 9);
    assert_eq!(kd.kernarg_preload_offset(), 3);
    // rsrc3 0x80002A1E: accum field 30 (v124), bits 4.. per generation.
    assert_eq!(kd.accum_offset_field(), 30);
    assert_eq!(kd.accum_offset(), 124);
    assert_eq!(kd.shared_vgpr_count(), 0xE);
    assert_eq!(kd.inst_pref_size(Generation::Gfx11), 0x21);
    assert_eq!(kd.inst_pref_size(Generation::Gfx12), 0xA1);
    assert_eq!(kd.inst_pref_size(Generation::Gfx10), 0);
    assert!(
        !kd.trap_on_start() && kd.trap_on_end() && kd.glg_en() && kd.image_op() && !kd.tg_split()
    );
}

#[test]
fn granules_match_llvm_output() {
    // (target, sgprs, expected) from clang-19 objects: the metadata
    // .sgpr_count and the descriptor's field.
    for (name, s, g) in [
        ("gfx900", 24, 2),
        ("gfx900", 11, 1),
        ("gfx900", 4, 0),
        ("gfx803", 42, 5),
        ("gfx802", 96, 11),
        ("gfx1030", 38, 0),
    ] {
        assert_eq!(granulated_sgpr_count(t(name), s), g, "{name} {s}");
    }
    // (target, wave32, vgprs, agprs, expected).
    for (name, w32, v, a, g) in [
        ("gfx900", false, 129, 0, 32),
        ("gfx900", false, 41, 0, 10),
        ("gfx900", false, 0, 0, 0),
        ("gfx1030", true, 134, 0, 16),
        ("gfx1030", false, 134, 0, 33),
        ("gfx1030", true, 9, 0, 1),
        ("gfx90a", false, 122, 0, 15),
        ("gfx90a", false, 4, 32, 4),
        ("gfx90a", false, 64, 96, 19),
        ("gfx90a", false, 62, 96, 19),
        ("gfx908", false, 33, 32, 8),
        ("gfx908", false, 96, 96, 23),
    ] {
        assert_eq!(
            granulated_vgpr_count(t(name), w32, v, a),
            g,
            "{name} {w32} {v} {a}"
        );
    }
    assert_eq!(total_vgprs(t("gfx90a"), 5, 8), 16);
    assert_eq!(total_vgprs(t("gfx908"), 5, 8), 8);
    assert_eq!(max_sgprs_for_granulated(t("gfx900"), 5), 48);
    assert_eq!(max_vgprs_for_granulated(t("gfx900"), false, 32), 132);
    assert_eq!(max_vgprs_for_granulated(t("gfx1030"), true, 16), 136);
    assert_eq!(max_vgprs_for_granulated(t("gfx90a"), false, 15), 128);
    // Hardware allocation granule: 16 from GFX8, 8 before.
    let mut kd = valid(t("gfx900"));
    kd.compute_pgm_rsrc1 &= !(0xF << 6);
    assert_eq!(kd.allocated_sgprs(t("gfx900")), Some(16));
    assert_eq!(kd.allocated_sgprs(t("gfx700")), Some(8));
    assert_eq!(kd.allocated_sgprs(t("gfx1030")), None);
    assert_eq!(granulated_sgpr_count(t("gfx900"), u32::MAX), 536_870_911);
    assert_eq!(
        granulated_vgpr_count(t("gfx90a"), false, u32::MAX, u32::MAX),
        u32::MAX / 8
    );
}

#[test]
fn granules_agree_with_target_table() {
    for target in TARGETS.iter().filter(|t| t.hsa) {
        assert_eq!(
            vgpr_encoding_granule(target, false),
            u32::from(target.vgpr_encoding_granule_wave64),
            "{target}"
        );
        if target.wave32 {
            assert_eq!(
                vgpr_encoding_granule(target, true),
                u32::from(target.vgpr_encoding_granule_wave32),
                "{target}"
            );
        }
        let sg = if target.generation >= Generation::Gfx10 {
            0
        } else {
            SGPR_ENCODING_GRANULE
        };
        assert_eq!(sg, u32::from(target.sgpr_encoding_granule), "{target}");
    }
}

#[test]
fn fields_follow_the_generation() {
    let names = |tn: &str, kd: &KernelDescriptor| -> Vec<&'static str> {
        kd.fields(t(tn)).iter().map(|f| f.name).collect()
    };
    for name in SAMPLE {
        let list = names(name, &valid(t(name)));
        let set: BTreeSet<_> = list.iter().collect();
        assert_eq!(set.len(), list.len(), "{name}: duplicate field names");
    }
    let g12 = names("gfx1200", &valid(t("gfx1200")));
    assert!(
        g12.contains(&"compute_pgm_rsrc1.enable_wg_rr_en")
            && g12.contains(&"compute_pgm_rsrc1.disable_perf")
    );
    assert!(
        !g12.contains(&"compute_pgm_rsrc1.enable_dx10_clamp")
            && !g12.contains(&"compute_pgm_rsrc3.shared_vgpr_count")
    );
    assert!(
        g12.contains(&"compute_pgm_rsrc3.glg_en")
            && g12.contains(&"compute_pgm_rsrc2.wgp_takeover")
    );
    let g9 = names("gfx900", &valid(t("gfx900")));
    assert!(
        g9.contains(&"compute_pgm_rsrc1.fp16_ovfl")
            && g9.contains(&"compute_pgm_rsrc1.enable_ieee_mode")
    );
    assert!(!g9.contains(&"kernel_code_properties.enable_wavefront_size32"));
    assert!(!g9.contains(&"compute_pgm_rsrc1.wgp_mode") && !g9.contains(&"kernarg_preload.length"));
    let g8 = names("gfx803", &valid(t("gfx803")));
    assert!(!g8.contains(&"compute_pgm_rsrc1.fp16_ovfl"));
    let a = names("gfx90a", &valid(t("gfx90a")));
    assert!(a.contains(&"compute_pgm_rsrc3.accum_offset") && a.contains(&"kernarg_preload.offset"));
    let g11 = names("gfx1100", &valid(t("gfx1100")));
    assert!(
        g11.contains(&"compute_pgm_rsrc3.trap_on_end")
            && g11.contains(&"compute_pgm_rsrc3.shared_vgpr_count")
    );

    // Values and meanings of one clang-19 gfx1030 descriptor (extcall).
    let kd = KernelDescriptor {
        compute_pgm_rsrc1: 0x60af_0105,
        compute_pgm_rsrc2: 0x1399,
        kernel_code_properties: 0xc3b,
        ..Default::default()
    };
    let f = kd.fields(t("gfx1030"));
    let get = |n: &str| {
        f.iter()
            .find(|x| x.name == n)
            .unwrap_or_else(|| panic!("no field {n}"))
    };
    let v = get("compute_pgm_rsrc1.granulated_workitem_vgpr_count");
    assert_eq!(
        (v.value, v.meaning.as_str()),
        (5, "48 VGPRs allocated (wave32)")
    );
    let w = get("kernel_code_properties.enable_wavefront_size32");
    assert_eq!((w.value, w.meaning.as_str()), (1, "wave32"));
    let m = get("compute_pgm_rsrc1.wgp_mode");
    assert_eq!((m.value, m.meaning.as_str()), (1, "WGP mode"));
    let s = get("compute_pgm_rsrc1.granulated_wavefront_sgpr_count");
    assert_eq!(s.value, 4);
    assert!(s.meaning.starts_with("ignored"));
    assert_eq!(get("compute_pgm_rsrc2.user_sgpr_count").value, 12);
    assert_eq!(
        get("compute_pgm_rsrc2.enable_vgpr_workitem_id").meaning,
        "work-item IDs X, Y, Z"
    );
    let g = kd.fields(t("gfx900"));
    let s9 = g
        .iter()
        .find(|x| x.name == "compute_pgm_rsrc1.granulated_wavefront_sgpr_count")
        .map(|x| x.meaning.clone());
    assert_eq!(s9.as_deref(), Some("48 SGPRs allocated"));
}

#[test]
fn messages_name_bits() {
    assert_eq!(describe_set_bits(0x380), "bits 9:7");
    assert_eq!(describe_set_bits(0x8000_0001), "bit 0, bit 31");
    assert_eq!(describe_set_bits(u32::MAX), "bits 31:0");
    let mut kd = valid(t("gfx900"));
    kd.kernel_code_properties |= 0x3080;
    let mut sink = Sink::new();
    kd.check(t("gfx900"), CodeObjectVersion::V5, 0x40, &mut sink);
    assert_eq!(sink.violations.len(), 1);
    assert_eq!(
        sink.violations[0].offset,
        Some(0x40 + offsets::KERNEL_CODE_PROPERTIES)
    );
    assert_eq!(
        sink.violations[0].message,
        "kernel_code_properties 0x3089 has reserved bit 7, bits 13:12 set"
    );
}

proptest! {
    #[test]
    fn bytes_round_trip(v in proptest::collection::vec(any::<u8>(), KD_SIZE)) {
        let b: [u8; KD_SIZE] = v.as_slice().try_into().unwrap();
        let kd = KernelDescriptor::parse(&b);
        prop_assert_eq!(kd.to_bytes(), b);
        prop_assert_eq!(KernelDescriptor::parse(&kd.to_bytes()), kd);
    }

    #[test]
    fn struct_round_trip(
        g in any::<u32>(), p in any::<u32>(), k in any::<u32>(), r0 in any::<[u8; 4]>(),
        e in any::<i64>(), r1 in proptest::collection::vec(any::<u8>(), 20), r3 in any::<u32>(),
        rs1 in any::<u32>(), rs2 in any::<u32>(), props in any::<u16>(), pre in any::<u16>(), r3b in any::<[u8; 4]>(),
    ) {
        let kd = KernelDescriptor {
            group_segment_fixed_size: g, private_segment_fixed_size: p, kernarg_size: k, reserved0: r0,
            kernel_code_entry_byte_offset: e, reserved1: r1.as_slice().try_into().unwrap(),
            compute_pgm_rsrc3: r3, compute_pgm_rsrc1: rs1, compute_pgm_rsrc2: rs2,
            kernel_code_properties: props, kernarg_preload: pre, reserved3: r3b,
        };
        prop_assert_eq!(KernelDescriptor::parse(&kd.to_bytes()), kd);
    }

    #[test]
    fn any_bytes_any_target_never_panics(
        v in proptest::collection::vec(any::<u8>(), KD_SIZE),
        ti in any::<proptest::sample::Index>(),
        cov in 0u8..5,
        facts in any::<(Option<u64>, Option<u64>, Option<u64>, Option<u64>, Option<u64>, Option<bool>, Option<bool>)>(),
    ) {
        let b: [u8; KD_SIZE] = v.as_slice().try_into().unwrap();
        let kd = KernelDescriptor::parse(&b);
        if TARGETS.is_empty() { return Ok(()); }
        let target = &TARGETS[ti.index(TARGETS.len())];
        let cov = CodeObjectVersion::from_abi_version(cov).unwrap();
        let f = MetadataFacts {
            sgpr_count: facts.0, vgpr_count: facts.1, agpr_count: facts.2, wavefront_size: facts.3,
            group_segment_fixed_size: facts.4, private_segment_fixed_size: facts.0,
            kernarg_segment_size: facts.4, uses_dynamic_stack: facts.5, workgroup_processor_mode: facts.6,
        };
        let sink = run_all(&kd, &f, target, cov);
        for v in &sink.violations {
            prop_assert!(v.offset.is_some_and(|o| (0x100..0x140).contains(&o)));
        }
        let fields = kd.fields(target);
        prop_assert!(!fields.is_empty());
        let st = crate::sgpr::initial_state(&kd, target);
        prop_assert!(st.sgprs.len() <= 14 && st.vgprs.len() <= 3);
    }
}

mod layout_masks {
    use super::*;
    use crate::targets::TARGETS;

    /// The reserved bits the table implies, per target, against the
    /// documents' lists (amdgpu-usage.rst, AMDGPUDisassembler.cpp).
    #[test]
    fn table_masks_are_the_documented_ones() {
        for t in TARGETS {
            let gen = t.generation;
            let mut r1 = 0x1800_0000u32;
            if gen < Generation::Gfx9 {
                r1 |= 1 << 26;
            }
            if gen < Generation::Gfx10 {
                r1 |= 0xE000_0000;
            }
            // GFX12.5 defines bit 27, FLAT_SCRATCH_IS_NV.
            if t.is_gfx12_5() {
                r1 &= !(1 << 27);
            }
            assert_eq!(reserved_mask(Word::Rsrc1, t), r1, "rsrc1 {}", t.name);
            let r2 = if gen < Generation::Gfx12 { 1 << 31 } else { 0 };
            assert_eq!(reserved_mask(Word::Rsrc2, t), r2, "rsrc2 {}", t.name);
            // ACCUM_OFFSET 5:0 and TG_SPLIT 16; SHARED_VGPR_COUNT 3:0;
            // GFX11 adds INST_PREF_SIZE 9:4, TRAP_ON_START/END 11:10 and
            // IMAGE_OP 31; GFX12: INST_PREF_SIZE 11:4, GLG_EN 13, IMAGE_OP 31;
            // GFX12.5 adds NAMED_BAR_CNT 16:14, ENABLE_DYNAMIC_VGPR 17,
            // TCP_SPLIT 20:18 and ENABLE_DIDT_THROTTLE 21.
            let r3 = match (t.accum_offset, gen) {
                (true, _) => !(0x3F | 1 << 16),
                _ if t.is_gfx12_5() => !(0xFF0 | 1 << 13 | 0xFF << 14 | 1 << 31),
                (_, Generation::Gfx10) => !0xF,
                (_, Generation::Gfx11) => !(0xFFF | 1 << 31),
                (_, Generation::Gfx12) => !(0xFF0 | 1 << 13 | 1 << 31),
                _ => u32::MAX,
            };
            assert_eq!(reserved_mask(Word::Rsrc3, t), r3, "rsrc3 {}", t.name);
            assert_eq!(
                reserved_mask(Word::Properties, t),
                0xF380,
                "props {}",
                t.name
            );
        }
    }
}

#[test]
fn fields_explains_every_layout_row_at_most_once() {
    for row in crate::layout::FIELDS {
        let n = super::fields::SHOWN
            .iter()
            .filter(|(r, _, _)| std::ptr::eq(*r, *row))
            .count();
        assert!(n <= 1, "{} ({}): {n} entries", row.name, row.path);
    }
}

/// A row with no display entry of its own is still listed wherever the
/// table defines it, read by the table's meaning (so adding a row to the
/// table is enough for `explain`), on modelled processors and on a
/// processor LLVM knows that the oracle does not model yet (gfx1250).
#[test]
fn fields_lists_rows_without_a_display_entry_by_their_meaning() {
    static NEWER: Target = Target::gcn("gfx1250", 0x49, Generation::Gfx12, [12, 5, 0]);
    let targets: Vec<&Target> = crate::targets::hsa_targets()
        .chain(std::iter::once(&NEWER))
        .collect();
    let kd = KernelDescriptor::parse(&[0xff; KD_SIZE]);
    for t in targets {
        let listed = kd.fields(t);
        for row in crate::layout::FIELDS.iter().copied() {
            let own = super::fields::SHOWN
                .iter()
                .any(|(r, _, _)| std::ptr::eq(*r, row));
            if own || !(row.defined)(t) {
                continue;
            }
            let f = listed
                .iter()
                .find(|f| f.name == row.path)
                .unwrap_or_else(|| panic!("{}: {} not listed", t.name, row.path));
            assert_eq!(f.value, u64::from(row.mask() >> row.shift), "{}", row.path);
            assert!(f.meaning.starts_with(row.meaning), "{}", f.meaning);
        }
    }
}
