//! Tests of `amd_kernel_code_t`: one mutant per rule, layout against llvm-mc, fields.

use super::*;
pub(crate) use crate::kd::tests::assert_all_covered;
use crate::kd::tests::{assert_mutant, Mutant};
use crate::rules::{Rule, Severity};
use crate::targets::{by_name, TARGETS};
use proptest::prelude::*;
use std::collections::BTreeSet;

pub(crate) fn t(name: &str) -> &'static Target {
    by_name(name).unwrap_or_else(|| panic!("target {name} missing from targets::TARGETS"))
}

/// The processors llc-14 writes V2 for: GFX6 to GFX9 up to gfx906 and
/// gfx90c (llc-14 rejects gfx908, gfx909, gfx90a and GFX10 at V2).
pub(crate) const SAMPLE: &[&str] = &[
    "gfx600", "gfx602", "gfx700", "gfx701", "gfx705", "gfx801", "gfx802", "gfx803", "gfx805",
    "gfx810", "gfx900", "gfx902", "gfx904", "gfx906", "gfx90c",
];

/// The xnack setting llc-14 writes by default: on where supported.
pub(crate) fn default_xnack(target: &Target) -> FeatureSetting {
    if target.xnack {
        FeatureSetting::On
    } else {
        FeatureSetting::Unsupported
    }
}

/// An amd_kernel_code_t shaped like llc-14's for the fixture kernel
/// `group_ids_yz` (one pointer argument, work-group ids X, Y, Z,
/// work-item ids X, Y, Z, 9-11 SGPRs, 3 VGPRs).
pub(crate) fn valid(target: &Target) -> KernelCode {
    let [ma, mi, st] = target.isa_version;
    let (sgprs, gs) = if target.sgpr_init_bug {
        (96, 11)
    } else {
        (11, 1)
    };
    let mut props = props::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER
        | props::ENABLE_SGPR_KERNARG_SEGMENT_PTR
        | 1 << props::PRIVATE_ELEMENT_SIZE_SHIFT
        | props::IS_PTR64;
    if target.xnack {
        props |= props::IS_XNACK_ENABLED;
    }
    KernelCode {
        amd_kernel_code_version_major: 1,
        amd_kernel_code_version_minor: 2,
        amd_machine_kind: 1,
        amd_machine_version_major: ma.into(),
        amd_machine_version_minor: mi.into(),
        amd_machine_version_stepping: st.into(),
        kernel_code_entry_byte_offset: 256,
        // float_mode 240, DX10 clamp, IEEE mode.
        compute_pgm_rsrc1: 0x00af_0000 | gs << 6,
        // USER_SGPR_COUNT 6, work-group ids X Y Z, work-item ids X Y Z.
        compute_pgm_rsrc2: 6 << 1 | 7 << 7 | 2 << 11,
        code_properties: props,
        kernarg_segment_byte_size: 8,
        wavefront_sgpr_count: sgprs,
        workitem_vgpr_count: 3,
        kernarg_segment_alignment: 4,
        group_segment_alignment: 4,
        private_segment_alignment: 4,
        wavefront_size: 6,
        call_convention: -1,
        ..Default::default()
    }
}

/// Runs every amd_kernel_code_t and V2 initial-state check.
pub(crate) fn run_all(code: &KernelCode, target: &Target, xnack: FeatureSetting) -> Sink {
    let mut sink = Sink::new();
    check(code, target, xnack, 0x100, &mut sink);
    check_placement(code, 0x100, 0x100, &mut sink);
    crate::sgpr::v2::check(code, target, 0x100, &mut sink);
    sink
}

pub(crate) fn ids(sink: &Sink) -> BTreeSet<&'static str> {
    sink.violations.iter().map(|v| v.rule.id).collect()
}

/// A mutation that must break `rule` (and nothing outside `also`).
pub(crate) struct Case {
    pub rule: &'static Rule,
    pub target: &'static str,
    /// The e_flags xnack setting; `None` for llc-14's default.
    pub xnack: Option<FeatureSetting>,
    pub mutate: fn(&mut KernelCode),
    pub also: &'static [&'static Rule],
}

pub(crate) fn run_cases(cases: &[Case]) {
    for (i, c) in cases.iter().enumerate() {
        let target = t(c.target);
        let xnack = c.xnack.unwrap_or_else(|| default_xnack(target));
        let mut code = valid(target);
        let base = run_all(&code, target, xnack);
        (c.mutate)(&mut code);
        let sink = run_all(&code, target, xnack);
        assert_mutant(i, c, &base, &sink, 0x100..0x100 + KERNEL_CODE_SIZE as u64);
    }
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

use FeatureSetting::{Off, On};

const CASES: &[Case] = &[
    Case {
        rule: &VERSION_MAJOR,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.amd_kernel_code_version_major = 2,
        also: &[],
    },
    Case {
        rule: &MACHINE_KIND,
        target: "gfx900",
        xnack: None,
        mutate: |c| c.amd_machine_kind = 0,
        also: &[],
    },
    Case {
        rule: &MACHINE_VERSION,
        target: "gfx900",
        xnack: None,
        // What the V2 ISA note says for gfx900 with xnack: not this field.
        mutate: |c| c.amd_machine_version_stepping = 1,
        also: &[],
    },
    Case {
        rule: &MACHINE_VERSION,
        target: "gfx701",
        xnack: None,
        mutate: |c| c.amd_machine_version_major = 8,
        also: &[],
    },
    Case {
        rule: &ENTRY_OFFSET_INSIDE,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.kernel_code_entry_byte_offset = 0,
        also: &[],
    },
    Case {
        rule: &ENTRY_OFFSET_INSIDE,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.kernel_code_entry_byte_offset = 64,
        also: &[&ENTRY_ALIGNMENT],
    },
    Case {
        rule: &ENTRY_ALIGNMENT,
        target: "gfx906",
        xnack: None,
        mutate: |c| c.kernel_code_entry_byte_offset = 320,
        also: &[],
    },
    Case {
        rule: &ENTRY_ALIGNMENT,
        target: "gfx906",
        xnack: None,
        mutate: |c| c.kernel_code_entry_byte_offset = -4,
        also: &[],
    },
    Case {
        rule: &MAX_SCRATCH_BACKING_MEMORY,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.max_scratch_backing_memory_byte_size = 1 << 20,
        also: &[],
    },
    Case {
        rule: &RSRC1_PRIORITY,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.compute_pgm_rsrc1 |= 2 << 10,
        also: &[],
    },
    Case {
        rule: &RSRC1_PRIV,
        target: "gfx900",
        xnack: None,
        mutate: |c| c.compute_pgm_rsrc1 |= 1 << 20,
        also: &[],
    },
    Case {
        rule: &RSRC1_DEBUG_MODE,
        target: "gfx701",
        xnack: None,
        mutate: |c| c.compute_pgm_rsrc1 |= 1 << 22,
        also: &[],
    },
    Case {
        rule: &RSRC1_BULKY,
        target: "gfx906",
        xnack: None,
        mutate: |c| c.compute_pgm_rsrc1 |= 1 << 24,
        also: &[],
    },
    Case {
        rule: &RSRC1_CDBG_USER,
        target: "gfx600",
        xnack: None,
        mutate: |c| c.compute_pgm_rsrc1 |= 1 << 25,
        also: &[],
    },
    Case {
        rule: &RSRC1_RESERVED,
        target: "gfx803",
        xnack: None,
        // FP16_OVFL does not exist before GFX9.
        mutate: |c| c.compute_pgm_rsrc1 |= 1 << 26,
        also: &[],
    },
    Case {
        rule: &RSRC1_RESERVED,
        target: "gfx900",
        xnack: None,
        mutate: |c| c.compute_pgm_rsrc1 |= 1 << 29,
        also: &[],
    },
    Case {
        rule: &RSRC1_RESERVED,
        target: "gfx1010",
        xnack: None,
        mutate: |c| c.compute_pgm_rsrc1 |= 1 << 27,
        also: &[],
    },
    Case {
        rule: &RSRC2_TRAP_HANDLER,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.compute_pgm_rsrc2 |= 1 << 6,
        also: &[],
    },
    Case {
        rule: &RSRC2_GRANULATED_LDS_SIZE,
        target: "gfx900",
        xnack: None,
        mutate: |c| c.compute_pgm_rsrc2 |= 3 << 15,
        also: &[],
    },
    Case {
        rule: &RSRC2_RESERVED,
        target: "gfx906",
        xnack: None,
        mutate: |c| c.compute_pgm_rsrc2 |= 1 << 31,
        also: &[],
    },
    Case {
        rule: &PROPERTIES_RESERVED,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.code_properties |= 1 << 11,
        also: &[],
    },
    Case {
        rule: &PROPERTIES_RESERVED,
        target: "gfx900",
        xnack: None,
        mutate: |c| c.code_properties |= 1 << 31,
        also: &[],
    },
    Case {
        rule: &PROPERTIES_WAVEFRONT_SIZE32,
        target: "gfx900",
        xnack: None,
        mutate: |c| c.code_properties |= props::ENABLE_WAVEFRONT_SIZE32,
        also: &[],
    },
    Case {
        rule: &PRIVATE_ELEMENT_SIZE,
        target: "gfx900",
        xnack: None,
        // What llc-14 -mattr=+max-private-element-size-16 writes.
        mutate: |c| c.code_properties |= props::PRIVATE_ELEMENT_SIZE,
        also: &[],
    },
    Case {
        rule: &IS_PTR64,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.code_properties &= !props::IS_PTR64,
        also: &[],
    },
    Case {
        rule: &XNACK,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.code_properties |= props::IS_XNACK_ENABLED,
        also: &[],
    },
    Case {
        rule: &XNACK,
        target: "gfx900",
        xnack: Some(On),
        mutate: |c| c.code_properties &= !props::IS_XNACK_ENABLED,
        also: &[],
    },
    Case {
        rule: &XNACK,
        target: "gfx906",
        xnack: None,
        mutate: |c| c.code_properties &= !props::IS_XNACK_ENABLED,
        also: &[],
    },
    Case {
        rule: &DEBUG_SGPRS,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.debug_private_segment_buffer_sgpr = 96,
        also: &[],
    },
    Case {
        rule: &DEBUG_SGPRS,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.debug_wavefront_private_segment_offset_sgpr = u16::MAX,
        also: &[],
    },
    Case {
        rule: &RESERVED_VGPR_FIRST,
        target: "gfx900",
        xnack: None,
        mutate: |c| c.reserved_vgpr_first = 3,
        also: &[],
    },
    Case {
        rule: &RESERVED_SGPR_FIRST,
        target: "gfx900",
        xnack: None,
        mutate: |c| c.reserved_sgpr_first = 9,
        also: &[],
    },
    Case {
        rule: &SEGMENT_ALIGNMENT,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.kernarg_segment_alignment = 3,
        also: &[],
    },
    Case {
        rule: &SEGMENT_ALIGNMENT,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.group_segment_alignment = 0,
        also: &[],
    },
    Case {
        rule: &SEGMENT_ALIGNMENT,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.private_segment_alignment = 2,
        also: &[],
    },
    Case {
        rule: &WAVEFRONT_SIZE,
        target: "gfx900",
        xnack: None,
        mutate: |c| c.wavefront_size = 5,
        also: &[],
    },
    Case {
        rule: &WAVEFRONT_SIZE,
        target: "gfx1010",
        xnack: None,
        // wave32 selected, but the size still says 64 lanes.
        mutate: |c| c.code_properties |= props::ENABLE_WAVEFRONT_SIZE32,
        also: &[],
    },
    Case {
        rule: &GRANULATED_SGPR_COUNT,
        target: "gfx701",
        xnack: None,
        // 17 > 16 allocated (2 granules of 8).
        mutate: |c| c.wavefront_sgpr_count = 17,
        also: &[],
    },
    Case {
        rule: &GRANULATED_SGPR_COUNT,
        target: "gfx802",
        xnack: None,
        mutate: |c| c.wavefront_sgpr_count = 97,
        also: &[],
    },
    Case {
        rule: &GRANULATED_VGPR_COUNT,
        target: "gfx906",
        xnack: None,
        mutate: |c| c.workitem_vgpr_count = 5,
        also: &[],
    },
    Case {
        rule: &SCRATCH_EN,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.workitem_private_segment_byte_size = 260,
        also: &[],
    },
    Case {
        rule: &SCRATCH_EN,
        target: "gfx900",
        xnack: None,
        mutate: |c| c.code_properties |= props::IS_DYNAMIC_CALLSTACK,
        also: &[],
    },
    Case {
        rule: &GROUP_SEGMENT_SIZE,
        target: "gfx600",
        xnack: None,
        mutate: |c| c.workgroup_group_segment_byte_size = 32769,
        also: &[],
    },
    Case {
        rule: &RUNTIME_LOADER_KERNEL_SYMBOL,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.runtime_loader_kernel_symbol = 0x7f00_0000_1000,
        also: &[],
    },
    Case {
        rule: &RESERVED_BYTES,
        target: "gfx900",
        xnack: None,
        mutate: |c| c.reserved3[11] = 0x80,
        also: &[],
    },
    Case {
        rule: &CONTROL_DIRECTIVES_RESERVED,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.control_directives[30] = 1,
        also: &[],
    },
    Case {
        rule: &CONTROL_DIRECTIVES_RESERVED,
        target: "gfx803",
        xnack: None,
        mutate: |c| c.control_directives[127] = 1,
        also: &[],
    },
];

#[test]
fn mutants_break_their_rule() {
    run_cases(CASES);
}

#[test]
fn every_rule_has_a_mutant() {
    // The header's own alignment depends on its address, not its bytes;
    // `placement` breaks it.
    let by_bytes: Vec<&Rule> = RULES
        .iter()
        .copied()
        .filter(|r| r.id != ADDRESS_ALIGNMENT.id)
        .collect();
    assert_all_covered(&by_bytes, CASES);
}

#[test]
fn valid_kernel_codes_are_clean() {
    for name in SAMPLE {
        let target = t(name);
        let sink = run_all(&valid(target), target, default_xnack(target));
        assert!(sink.violations.is_empty(), "{name}: {:?}", sink.violations);
    }
}

#[test]
fn severities_are_as_declared() {
    let errors: Vec<&str> = RULES
        .iter()
        .filter(|r| r.severity == Severity::Error)
        .map(|r| r.id)
        .collect();
    assert_eq!(errors.len(), 25, "{errors:?}");
    assert_eq!(RULES.len(), 33);
    for id in [
        "code.address_alignment",
        "code.rsrc1.priority",
        "code.rsrc2.trap_handler",
        "code.private_element_size",
        "code.xnack",
        "code.group_segment_size",
        "code.control_directives.reserved",
    ] {
        let r = RULES.iter().find(|r| r.id == id).unwrap();
        assert_eq!(r.severity, Severity::Warning, "{id}");
    }
    let r = RULES
        .iter()
        .find(|r| r.id == "code.max_scratch_backing_memory")
        .unwrap();
    assert_eq!(r.severity, Severity::Info);
    assert!(RULES.iter().all(|r| r.id.starts_with("code.")));
}

/// A target and a change to the clean base.
type Setting = (&'static str, fn(&mut KernelCode));

#[test]
fn allowed_settings_are_clean() {
    // Settings the documents or LLVM allow, each on the clean base.
    let cases: &[Setting] = &[
        // Any minor version.
        ("gfx803", |c| c.amd_kernel_code_version_minor = 0),
        // A negative entry offset that lands aligned.
        ("gfx803", |c| c.kernel_code_entry_byte_offset = -0x1000),
        // Prefetch information.
        ("gfx803", |c| {
            c.kernel_code_prefetch_byte_offset = 256;
            c.kernel_code_prefetch_byte_size = 4096
        }),
        // FP16_OVFL on GFX9.
        ("gfx906", |c| c.compute_pgm_rsrc1 |= 1 << 26),
        // Exception enables (V2 lets the code request them).
        ("gfx803", |c| c.compute_pgm_rsrc2 |= 3 << 13 | 0x7f << 24),
        // GDS ordered append, debug support with debug SGPRs.
        ("gfx900", |c| {
            c.code_properties |= props::ENABLE_ORDERED_APPEND_GDS | props::IS_DEBUG_ENABLED;
            c.debug_wavefront_private_segment_offset_sgpr = u16::MAX;
            c.debug_private_segment_buffer_sgpr = 96;
        }),
        // Reserved registers for a client.
        ("gfx900", |c| {
            c.reserved_vgpr_first = 1;
            c.reserved_vgpr_count = 2;
            c.reserved_sgpr_first = 4;
            c.reserved_sgpr_count = 4;
        }),
        // More registers allocated than used (amdgpu-waves-per-eu).
        ("gfx900", |c| c.compute_pgm_rsrc1 |= 12 << 6 | 21),
        // Scratch with SCRATCH_EN, and the deprecated size.
        ("gfx803", |c| {
            c.workitem_private_segment_byte_size = 260;
            c.compute_pgm_rsrc2 |= 1;
            c.max_scratch_backing_memory_byte_size = 1 << 20;
        }),
        // A dynamic call stack with SCRATCH_EN and no static size.
        ("gfx803", |c| {
            c.code_properties |= props::IS_DYNAMIC_CALLSTACK;
            c.compute_pgm_rsrc2 |= 1;
        }),
        // A 512-byte-aligned kernel argument (llc-14 writes 9).
        ("gfx803", |c| c.kernarg_segment_alignment = 9),
        // 64 KiB of LDS on GFX7.
        ("gfx701", |c| c.workgroup_group_segment_byte_size = 65536),
        // A call convention and enabled control directives.
        ("gfx803", |c| {
            c.call_convention = 0;
            c.control_directives[0] = 0x40;
            c.control_directives[56] = 64;
        }),
        // wave32 on GFX10 (LLVM's V2 assembler accepts it there).
        ("gfx1010", |c| {
            c.code_properties |= props::ENABLE_WAVEFRONT_SIZE32;
            c.wavefront_size = 5;
            c.compute_pgm_rsrc1 |= 3 << 29;
            c.code_properties &= !props::IS_XNACK_ENABLED;
        }),
    ];
    for (i, (name, mutate)) in cases.iter().enumerate() {
        let target = t(name);
        let xnack = if *name == "gfx1010" {
            Off
        } else {
            default_xnack(target)
        };
        let mut code = valid(target);
        mutate(&mut code);
        let sink = run_all(&code, target, xnack);
        assert!(
            sink.violations.is_empty(),
            "case {i} on {name}: {:?}",
            sink.violations
        );
    }
}

#[test]
fn xnack_against_e_flags() {
    let target = t("gfx900");
    let mut code = valid(target);
    for on in [false, true] {
        if on {
            code.code_properties |= props::IS_XNACK_ENABLED;
        } else {
            code.code_properties &= !props::IS_XNACK_ENABLED;
        }
        // "Any" is not compared.
        let sink = run_all(&code, target, FeatureSetting::Any);
        assert!(sink.violations.is_empty(), "{on}: {:?}", sink.violations);
        // llc-14 -mattr=-xnack writes the bit clear with e_flags off.
        let sink = run_all(&code, target, Off);
        assert_eq!(
            ids(&sink),
            if on {
                BTreeSet::from(["code.xnack"])
            } else {
                BTreeSet::new()
            },
            "{on}"
        );
    }
}

/// The bytes llvm-mc-14 assembles for a `.amd_kernel_code_t` block on
/// gfx803 (V2) with priority = 1, is_ptr64 = 0, private_element_size =
/// 3, kernarg_segment_alignment = 2, wavefront_size = 4,
/// user_sgpr_count = 3, reserved_vgpr_first = 7,
/// runtime_loader_kernel_symbol = 5, kernel_code_prefetch_byte_size =
/// 12 and max_scratch_backing_memory_byte_size = 99 (which it ignores).
fn llvm_mc_gfx803_sample() -> [u8; KERNEL_CODE_SIZE] {
    let mut b = [0u8; KERNEL_CODE_SIZE];
    let rows: &[(usize, [u8; 16])] = &[
        (0x00, [1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 8, 0, 0, 0, 3, 0]),
        (0x10, [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        (0x20, [0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        (0x30, [0, 4, 0, 0, 6, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0]),
        (0x50, [0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0]),
        (
            0x60,
            [0, 0, 0, 0, 2, 4, 4, 4, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0],
        ),
        (0x70, [0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0]),
    ];
    for (at, row) in rows {
        b[*at..*at + 16].copy_from_slice(row);
    }
    b
}

#[test]
fn layout_matches_llvm_mc() {
    let b = llvm_mc_gfx803_sample();
    let c = KernelCode::parse(&b).unwrap();
    assert_eq!(
        (
            c.amd_kernel_code_version_major,
            c.amd_kernel_code_version_minor,
            c.amd_machine_kind,
            c.amd_machine_version_major,
            c.amd_machine_version_minor,
            c.amd_machine_version_stepping
        ),
        (1, 2, 1, 8, 0, 3)
    );
    assert_eq!(c.kernel_code_entry_byte_offset, 256);
    assert_eq!(c.kernel_code_prefetch_byte_offset, 0);
    assert_eq!(c.kernel_code_prefetch_byte_size, 12);
    assert_eq!(c.max_scratch_backing_memory_byte_size, 0);
    assert_eq!(c.compute_pgm_rsrc1, 0x400);
    assert_eq!(c.priority(), 1);
    assert_eq!(c.compute_pgm_rsrc2, 6);
    assert_eq!(c.user_sgpr_count(), 3);
    assert_eq!(c.compute_pgm_resource_registers(), 0x6_0000_0400);
    assert_eq!(c.code_properties, 0x0006_0000);
    assert_eq!(
        (
            c.private_element_size(),
            c.private_element_size_bytes(),
            c.is_ptr64()
        ),
        (3, 16, false)
    );
    assert_eq!((c.reserved_vgpr_first, c.reserved_vgpr_count), (7, 0));
    assert_eq!(
        (
            c.kernarg_segment_alignment,
            c.group_segment_alignment,
            c.private_segment_alignment,
            c.wavefront_size
        ),
        (2, 4, 4, 4)
    );
    assert_eq!(c.kernarg_segment_alignment_bytes(), Some(4));
    assert_eq!(c.wavefront_lanes(), Some(16));
    assert_eq!(c.call_convention, -1);
    assert_eq!(c.runtime_loader_kernel_symbol, 5);
    assert_eq!(c.to_bytes(), b);

    let mut sink = Sink::new();
    check(
        &c,
        t("gfx803"),
        FeatureSetting::Unsupported,
        0x40,
        &mut sink,
    );
    let got: Vec<(&str, Option<u64>)> = sink
        .violations
        .iter()
        .map(|v| (v.rule.id, v.offset))
        .collect();
    assert_eq!(
        got,
        vec![
            ("code.rsrc1.priority", Some(0x40 + 48)),
            ("code.private_element_size", Some(0x40 + 56)),
            ("code.is_ptr64", Some(0x40 + 56)),
            ("code.reserved_vgpr_first", Some(0x40 + 88)),
            ("code.segment_alignment", Some(0x40 + 100)),
            ("code.wavefront_size", Some(0x40 + 103)),
            ("code.runtime_loader_kernel_symbol", Some(0x40 + 120)),
        ]
    );
}

#[test]
fn layout_offsets() {
    // Each field set to a distinct marker lands at its documented
    // offset.
    let c = KernelCode {
        amd_kernel_code_version_major: 0x0102_0304,
        amd_machine_version_stepping: 0xbeef,
        kernel_code_entry_byte_offset: -2,
        max_scratch_backing_memory_byte_size: 0x1122_3344_5566_7788,
        compute_pgm_rsrc2: 0xa5a5_5a5a,
        code_properties: 0x8000_0001,
        kernarg_segment_byte_size: 0x0101_0101_0101_0101,
        workitem_vgpr_count: 0x7777,
        debug_private_segment_buffer_sgpr: 0x4242,
        wavefront_size: 0x99,
        call_convention: -3,
        runtime_loader_kernel_symbol: u64::MAX,
        ..Default::default()
    };
    let b = c.to_bytes();
    let u16_at = |o: u64| u16::from_le_bytes([b[o as usize], b[o as usize + 1]]);
    let u32_at = |o: u64| u32::from_le_bytes(b[o as usize..o as usize + 4].try_into().unwrap());
    let u64_at = |o: u64| u64::from_le_bytes(b[o as usize..o as usize + 8].try_into().unwrap());
    assert_eq!(u32_at(offsets::VERSION_MAJOR), 0x0102_0304);
    assert_eq!(u16_at(offsets::MACHINE_VERSION_STEPPING), 0xbeef);
    assert_eq!(
        u64_at(offsets::KERNEL_CODE_ENTRY_BYTE_OFFSET),
        (-2i64) as u64
    );
    assert_eq!(
        u64_at(offsets::MAX_SCRATCH_BACKING_MEMORY_BYTE_SIZE),
        0x1122_3344_5566_7788
    );
    assert_eq!(u32_at(offsets::COMPUTE_PGM_RSRC2), 0xa5a5_5a5a);
    assert_eq!(u32_at(offsets::CODE_PROPERTIES), 0x8000_0001);
    assert_eq!(
        u64_at(offsets::KERNARG_SEGMENT_BYTE_SIZE),
        0x0101_0101_0101_0101
    );
    assert_eq!(u16_at(offsets::WORKITEM_VGPR_COUNT), 0x7777);
    assert_eq!(u16_at(offsets::DEBUG_PRIVATE_SEGMENT_BUFFER_SGPR), 0x4242);
    assert_eq!(b[offsets::WAVEFRONT_SIZE as usize], 0x99);
    assert_eq!(u32_at(offsets::CALL_CONVENTION), (-3i32) as u32);
    assert_eq!(u64_at(offsets::RUNTIME_LOADER_KERNEL_SYMBOL), u64::MAX);
    // Nothing else is set.
    let set: usize = b.iter().filter(|&&x| x != 0).count();
    assert_eq!(set, 4 + 2 + 8 + 8 + 4 + 2 + 8 + 2 + 2 + 1 + 4 + 8);
}

#[test]
fn bit_field_accessors() {
    let c = KernelCode {
        compute_pgm_rsrc1: 0x3f | 0xf << 6 | 3 << 10 | 0xab << 12 | 1 << 21 | 1 << 23,
        compute_pgm_rsrc2: 1
            | 17 << 1
            | 1 << 8
            | 1 << 10
            | 2 << 11
            | 1 << 14
            | 0x1ff << 15
            | 1 << 25
            | 1 << 30,
        code_properties: 0x3ff | 2 << 17 | 1 << 20 | 1 << 22,
        ..Default::default()
    };
    assert_eq!(c.granulated_workitem_vgpr_count(), 63);
    assert_eq!(c.granulated_wavefront_sgpr_count(), 15);
    assert_eq!(c.priority(), 3);
    assert_eq!(c.float_mode(), 0xab);
    assert_eq!(
        (
            c.float_round_mode_32(),
            c.float_round_mode_16_64(),
            c.float_denorm_mode_32(),
            c.float_denorm_mode_16_64()
        ),
        (3, 2, 2, 2)
    );
    assert!(c.enable_dx10_clamp() && c.enable_ieee_mode());
    assert!(!c.priv_mode() && !c.debug_mode() && !c.bulky() && !c.cdbg_user());
    assert!(c.enable_sgpr_private_segment_wave_byte_offset());
    assert_eq!(c.user_sgpr_count(), 17);
    assert!(!c.enable_trap_handler());
    assert!(
        !c.enable_sgpr_workgroup_id_x()
            && c.enable_sgpr_workgroup_id_y()
            && !c.enable_sgpr_workgroup_id_z()
    );
    assert!(c.enable_sgpr_workgroup_info());
    assert_eq!(c.enable_vgpr_workitem_id(), 2);
    assert_eq!(c.enable_exception_msb(), 2);
    assert!(!c.enable_exception_address_watch() && c.enable_exception_memory_violation());
    assert_eq!(c.granulated_lds_size(), 0x1ff);
    assert_eq!(c.enable_exception(), 0x42);
    assert!(c.enable_exception_fp_denormal_source() && c.enable_exception_int_divide_by_zero());
    assert!(!c.enable_exception_ieee_754_fp_invalid_operation());
    assert!(
        c.enable_sgpr_grid_workgroup_count_x()
            && c.enable_sgpr_grid_workgroup_count_y()
            && c.enable_sgpr_grid_workgroup_count_z()
    );
    assert!(!c.enable_wavefront_size32() && !c.enable_ordered_append_gds());
    assert_eq!(c.private_element_size_bytes(), 8);
    assert!(c.is_dynamic_callstack() && !c.is_debug_enabled() && c.is_xnack_enabled());
    assert!(!c.is_ptr64());
    assert_eq!(c.properties_reserved(), 0);
    assert_eq!(
        KernelCode {
            code_properties: u32::MAX,
            ..Default::default()
        }
        .properties_reserved(),
        0xff80_f800
    );
}

#[test]
fn control_directives_decode() {
    let mut c = KernelCode::default();
    let mut put_at =
        |at: usize, v: &[u8]| c.control_directives[at..at + v.len()].copy_from_slice(v);
    put_at(0, &0x48u64.to_le_bytes());
    put_at(8, &3u16.to_le_bytes());
    put_at(10, &5u16.to_le_bytes());
    put_at(12, &4096u32.to_le_bytes());
    put_at(16, &(1u64 << 40).to_le_bytes());
    put_at(24, &256u32.to_le_bytes());
    put_at(28, &[3]);
    put_at(32, &7u64.to_le_bytes());
    put_at(40, &8u64.to_le_bytes());
    put_at(48, &9u64.to_le_bytes());
    put_at(56, &64u32.to_le_bytes());
    put_at(60, &2u32.to_le_bytes());
    put_at(64, &1u32.to_le_bytes());
    assert_eq!(
        c.decoded_control_directives(),
        ControlDirectives {
            enabled_control_directives: 0x48,
            enable_break_exceptions: 3,
            enable_detect_exceptions: 5,
            max_dynamic_group_size: 4096,
            max_flat_grid_size: 1 << 40,
            max_flat_workgroup_size: 256,
            required_dim: 3,
            required_grid_size: [7, 8, 9],
            required_workgroup_size: [64, 2, 1],
        }
    );
    let fields = c.fields(t("gfx803"));
    let names: Vec<&str> = fields
        .iter()
        .filter(|f| f.name.starts_with("control_directives."))
        .map(|f| f.name)
        .collect();
    assert_eq!(names.len(), 13, "{names:?}");
    assert_eq!(
        fields
            .iter()
            .find(|f| f.name == "control_directives.required_workgroup_size_x")
            .map(|f| f.value),
        Some(64)
    );
}

#[test]
fn parse_rejects_short_input_and_ignores_the_rest() {
    assert!(KernelCode::parse(&[0u8; 255]).is_err());
    assert!(KernelCode::parse(&[]).is_err());
    let mut long = valid(t("gfx900")).to_bytes().to_vec();
    long.extend_from_slice(&[0xff; 16]);
    assert_eq!(KernelCode::parse(&long).unwrap(), valid(t("gfx900")));
}

#[test]
fn placement() {
    let c = valid(t("gfx803"));
    let mut sink = Sink::new();
    check_placement(&c, 0x1000, 0x1000, &mut sink);
    assert!(sink.violations.is_empty());
    check_placement(&c, 0x1040, 0x1040, &mut sink);
    // 64-aligned but the entry at 0x1140 is not 256-aligned.
    assert_eq!(ids(&sink), BTreeSet::from(["code.entry_offset.alignment"]));
    let mut sink = Sink::new();
    let c2 = KernelCode {
        kernel_code_entry_byte_offset: 0xc0,
        ..c
    };
    // A 64-aligned header whose entry offset reaches the next 256 bytes.
    check_placement(&c2, 0x1040, 0, &mut sink);
    assert!(sink.violations.is_empty());
    check_placement(&c2, 0x1044, 0, &mut sink);
    assert_eq!(
        ids(&sink),
        BTreeSet::from(["code.address_alignment", "code.entry_offset.alignment"])
    );
    assert_eq!(c.entry_address(0x1000), Some(0x1100));
    assert_eq!(c.entry_address(u64::MAX), None);
    let back = KernelCode {
        kernel_code_entry_byte_offset: -0x100,
        ..c
    };
    assert_eq!(back.entry_address(0x1000), Some(0xf00));
    assert_eq!(back.entry_address(0x10), None);
}

#[test]
fn fields_name_every_member() {
    let target = t("gfx900");
    let c = valid(target);
    let fields = c.fields(target);
    let names: BTreeSet<&str> = fields.iter().map(|f| f.name).collect();
    assert_eq!(names.len(), fields.len(), "duplicate field names");
    for n in [
        "amd_kernel_code_version_major",
        "amd_machine_version_stepping",
        "kernel_code_prefetch_byte_offset",
        "max_scratch_backing_memory_byte_size",
        "compute_pgm_rsrc1.fp16_ovfl",
        "compute_pgm_rsrc2.enable_sgpr_private_segment_wave_byte_offset",
        "code_properties.enable_sgpr_grid_workgroup_count_z",
        "code_properties.private_element_size",
        "code_properties.is_xnack_enabled",
        "wavefront_sgpr_count",
        "debug_private_segment_buffer_sgpr",
        "call_convention",
        "runtime_loader_kernel_symbol",
        "control_directives.enabled_control_directives",
    ] {
        assert!(names.contains(n), "{n} missing");
    }
    // GFX10-only fields are absent on GFX9, FP16_OVFL on GFX8.
    assert!(!names.contains("compute_pgm_rsrc1.enable_wgp_mode"));
    assert!(!names.contains("code_properties.enable_wavefront_size32"));
    assert!(!c
        .fields(t("gfx803"))
        .iter()
        .any(|f| f.name == "compute_pgm_rsrc1.fp16_ovfl"));
    let get = |n: &str| fields.iter().find(|f| f.name == n).unwrap();
    assert_eq!(get("call_convention").value, 0xffff_ffff);
    assert_eq!(get("call_convention").meaning, "no indirect functions");
    assert_eq!(
        get("compute_pgm_rsrc1.granulated_wavefront_sgpr_count").meaning,
        "16 SGPRs allocated"
    );
    assert_eq!(get("wavefront_size").meaning, "64 lanes");
    assert_eq!(
        get("amd_machine_version_major").meaning,
        "ISA major of gfx900"
    );
}

#[test]
fn messages_name_values() {
    let target = t("gfx900");
    let mut c = valid(target);
    c.code_properties |= 0x0180_0800;
    c.amd_machine_version_stepping = 1;
    let mut sink = Sink::new();
    check(&c, target, FeatureSetting::On, 0, &mut sink);
    let msgs: Vec<&str> = sink.violations.iter().map(|v| v.message.as_str()).collect();
    assert_eq!(
        msgs,
        vec![
            "amd_machine_version is 9.0.1, but gfx900 has ISA version 9.0.0",
            "code_properties 0x01ca0809 has reserved bit 11, bits 24:23 set",
        ]
    );
    assert_eq!(sink.violations[0].offset, Some(14));
}

proptest! {
    #[test]
    fn bytes_round_trip(v in proptest::collection::vec(any::<u8>(), KERNEL_CODE_SIZE)) {
        let c = KernelCode::parse(&v).unwrap();
        prop_assert_eq!(&c.to_bytes()[..], &v[..]);
        prop_assert_eq!(KernelCode::parse(&c.to_bytes()).unwrap(), c);
    }

    #[test]
    fn struct_round_trip(
        a in any::<(u32, u32, u16, u16, u16, u16)>(),
        b in any::<(i64, i64, u64, u64, u32, u32, u32)>(),
        c in any::<(u32, u32, u32, u64, u32, u16, u16)>(),
        d in any::<(u16, u16, u16, u16, u16, u16)>(),
        e in any::<(u8, u8, u8, u8, i32, [u8; 12], u64)>(),
        cd in proptest::collection::vec(any::<u8>(), 128),
    ) {
        let code = KernelCode {
            amd_kernel_code_version_major: a.0, amd_kernel_code_version_minor: a.1,
            amd_machine_kind: a.2, amd_machine_version_major: a.3,
            amd_machine_version_minor: a.4, amd_machine_version_stepping: a.5,
            kernel_code_entry_byte_offset: b.0, kernel_code_prefetch_byte_offset: b.1,
            kernel_code_prefetch_byte_size: b.2, max_scratch_backing_memory_byte_size: b.3,
            compute_pgm_rsrc1: b.4, compute_pgm_rsrc2: b.5, code_properties: b.6,
            workitem_private_segment_byte_size: c.0, workgroup_group_segment_byte_size: c.1,
            gds_segment_byte_size: c.2, kernarg_segment_byte_size: c.3,
            workgroup_fbarrier_count: c.4, wavefront_sgpr_count: c.5, workitem_vgpr_count: c.6,
            reserved_vgpr_first: d.0, reserved_vgpr_count: d.1, reserved_sgpr_first: d.2,
            reserved_sgpr_count: d.3, debug_wavefront_private_segment_offset_sgpr: d.4,
            debug_private_segment_buffer_sgpr: d.5,
            kernarg_segment_alignment: e.0, group_segment_alignment: e.1,
            private_segment_alignment: e.2, wavefront_size: e.3, call_convention: e.4,
            reserved3: e.5, runtime_loader_kernel_symbol: e.6,
            control_directives: cd.as_slice().try_into().unwrap(),
        };
        prop_assert_eq!(KernelCode::parse(&code.to_bytes()).unwrap(), code);
    }

    #[test]
    fn any_bytes_any_target_never_panics(
        v in proptest::collection::vec(any::<u8>(), 0..300),
        ti in any::<proptest::sample::Index>(),
        x in 0u32..4,
        address in any::<u64>(),
    ) {
        let Ok(code) = KernelCode::parse(&v) else {
            prop_assert!(v.len() < KERNEL_CODE_SIZE);
            return Ok(());
        };
        if TARGETS.is_empty() { return Ok(()); }
        let target = &TARGETS[ti.index(TARGETS.len())];
        let xnack = FeatureSetting::from_field(x);
        let mut sink = run_all(&code, target, xnack);
        for v in &sink.violations {
            prop_assert!(v.offset.is_some_and(|o| (0x100..0x200).contains(&o)));
        }
        check_placement(&code, address, u64::MAX - 8, &mut sink);
        prop_assert!(!code.fields(target).is_empty());
        let st = crate::sgpr::v2::initial_state(&code, target);
        prop_assert!(st.sgprs.len() <= 16 && st.vgprs.len() <= 3);
        prop_assert!(crate::sgpr::v2::user_sgprs(&code).len() <= 10);
    }
}

#[test]
fn fields_explains_every_listed_member_once() {
    use crate::layout::v2::{Bits, MEMBERS};
    for m in MEMBERS {
        let n = super::fields::SHOWN
            .iter()
            .filter(|(r, _, _)| std::ptr::eq(*r, *m))
            .count();
        // The groups LLVM sets with one key are not listed: their bits are.
        let group = matches!(m.bits, Bits::Own(_)) && m.offset != offsets::CODE_PROPERTIES;
        assert_eq!(n, usize::from(!group), "{}", m.name);
    }
}

#[test]
fn rsrc1_reserved_bits_are_the_descriptors() {
    // V2's reserved rsrc1 bits as the V2 documents and LLVM 14 give them.
    // Code object V2 names no GFX12.5 processor.
    for t in TARGETS.iter().filter(|t| !t.is_gfx12_5()) {
        let mut m = 0x1800_0000u32;
        if t.generation < Generation::Gfx9 {
            m |= 1 << 26;
        }
        if t.generation < Generation::Gfx10 {
            m |= 0xE000_0000;
        }
        assert_eq!(
            crate::layout::reserved_mask(crate::layout::Word::Rsrc1, t),
            m,
            "{}",
            t.name
        );
    }
}
