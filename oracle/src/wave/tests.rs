//! Tests of the wave predictions and the comparator: dumps built from the
//! predictions compare clean for SGPR-suite-like enable combinations on
//! several targets, and each single perturbation is exactly one finding.

use super::*;
use crate::kd::tests::{t, valid};
use crate::layout::{self as l, BitField};
use crate::probe::{Shape, ENTRY_FIRST, ENTRY_PRELOAD};
use proptest::prelude::*;

/// The targets the suite runs on, one or more per layout family.
const TARGETS: &[&str] = &[
    "gfx803", "gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1200",
];

/// The user SGPR enables in load order.
const USER: [&BitField; 7] = [
    &l::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER,
    &l::ENABLE_SGPR_DISPATCH_PTR,
    &l::ENABLE_SGPR_QUEUE_PTR,
    &l::ENABLE_SGPR_KERNARG_SEGMENT_PTR,
    &l::ENABLE_SGPR_DISPATCH_ID,
    &l::ENABLE_SGPR_FLAT_SCRATCH_INIT,
    &l::ENABLE_SGPR_PRIVATE_SEGMENT_SIZE,
];

/// The system SGPR enables: work-group id X, Y, Z, info, private segment.
const SYSTEM: [&BitField; 5] = [
    &l::ENABLE_SGPR_WORKGROUP_ID_X,
    &l::ENABLE_SGPR_WORKGROUP_ID_Y,
    &l::ENABLE_SGPR_WORKGROUP_ID_Z,
    &l::ENABLE_SGPR_WORKGROUP_INFO,
    &l::ENABLE_PRIVATE_SEGMENT,
];

/// An SGPR-suite-like kernel: `user` and `system` are bit sets over
/// [`USER`] and [`SYSTEM`]; USER_SGPR_COUNT is what the enables imply.
#[derive(Debug, Clone, Copy)]
struct Kernel {
    user: u8,
    system: u8,
    workitem_ids: u32,
    preload: (u32, u32),
    wave64: bool,
}

/// The user enables `target` supports.
fn supported(target: &Target, user: u8) -> u8 {
    let mut u = user & 0x7f;
    if target.architected_flat_scratch {
        u &= !1 & !(1 << 5);
    }
    if target.generation <= Generation::Gfx6 {
        u &= !(1 << 5);
    }
    u
}

fn descriptor(target: &Target, k: Kernel) -> KernelDescriptor {
    let mut kd = valid(target);
    let mut props = u32::from(kd.kernel_code_properties);
    for (i, f) in USER.iter().enumerate() {
        props = f.set(props, u32::from(supported(target, k.user) >> i & 1));
    }
    if k.wave64 {
        props = l::ENABLE_WAVEFRONT_SIZE32.set(props, 0);
    }
    kd.kernel_code_properties = props as u16;
    let mut pre = l::KERNARG_PRELOAD_SPEC_LENGTH.set(0, k.preload.0);
    pre = l::KERNARG_PRELOAD_SPEC_OFFSET.set(pre, k.preload.1);
    kd.kernarg_preload = pre as u16;
    let mut r2 = 0;
    for (i, f) in SYSTEM.iter().enumerate() {
        r2 = f.set(r2, u32::from(k.system >> i & 1));
    }
    r2 = l::ENABLE_VGPR_WORKITEM_ID.set(r2, k.workitem_ids);
    let usc = crate::sgpr::implied_user_sgpr_count(&kd, target);
    kd.compute_pgm_rsrc2 = l::USER_SGPR_COUNT.set(r2, u32::from(usc));
    kd
}

/// 64 bytes of kernel arguments, dword `i` = 0xa0000000 + i.
fn kernarg_hex() -> String {
    (0u32..16)
        .flat_map(|i| (0xa000_0000 + i).to_le_bytes())
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn plan(kd: &KernelDescriptor, target: &Target, shape: Shape) -> Plan {
    let st = crate::sgpr::initial_state(kd, target);
    Plan {
        case: "test".into(),
        object: "test.hsaco".into(),
        target: target.name.into(),
        kernel: "k".into(),
        lanes: if st.wave32 { 32 } else { 64 },
        shape,
        captured_sgprs: st.total_sgprs() + 2,
        private_segment_size: 22,
        group_segment_size: 0,
        kernarg_hex: kernarg_hex(),
        output_bytes: 0,
        patch_offsets: [0, 0],
        kind: Default::default(),
        output_init_hex: String::new(),
        output_init_offset: 0,
    }
}

fn addresses() -> Addresses {
    Addresses {
        packet: 0x0000_7f12_3456_0040,
        queue: 0x0000_7f13_3400_0000,
        kernarg: 0x0000_7f11_0000_1000,
        output: 0x0000_7f10_0000_0000,
        packet_index: 0x1_0000_0005,
    }
}

/// A grid with partial work-groups in X and Y.
const PARTIAL: Shape = Shape {
    grid: [20, 3, 1],
    workgroup: [8, 2, 1],
};
/// Several waves per work-group.
const WIDE: Shape = Shape {
    grid: [64, 4, 2],
    workgroup: [32, 4, 1],
};

fn predictions(target: &str, k: Kernel, shape: Shape) -> Predictions {
    let target = t(target);
    let kd = descriptor(target, k);
    predict(&kd, target, &plan(&kd, target, shape)).expect("plan predicts")
}

/// The dump every prediction holds in, with junk in the lanes EXEC turns
/// off and the records in reverse order (as if the last wave wrote first).
fn clean_dump(p: &Predictions) -> Dump {
    let mut d = p.to_dump(&addresses(), |_, _| None);
    for w in &mut d.waves {
        for row in &mut w.vgprs {
            for (lane, v) in row.iter_mut().enumerate() {
                if (w.exec >> lane) & 1 == 0 {
                    *v = 0xdead_beef;
                }
            }
        }
    }
    d.waves.reverse();
    for (i, w) in d.waves.iter_mut().enumerate() {
        w.slot = i as u32;
    }
    d
}

/// SGPR-suite-like enable combinations: every user enable set, with the
/// system enables, work-item ids and preload lengths varied along.
fn suite(target: &Target) -> Vec<Kernel> {
    (0u8..128)
        .map(|user| {
            let user = supported(target, user);
            let used = USER
                .iter()
                .enumerate()
                .filter(|(i, _)| user >> i & 1 == 1)
                .map(|(i, _)| [4, 2, 2, 2, 2, 2, 1][i])
                .sum::<u32>();
            let preload = if target.kernarg_preload {
                ((u32::from(user) % 4).min(16 - used), u32::from(user) % 3)
            } else {
                (0, 0)
            };
            Kernel {
                user,
                system: user.wrapping_mul(37) >> 1 & 31,
                workitem_ids: u32::from(user) % 3,
                preload,
                wave64: target.wave32 && user % 2 == 1,
            }
        })
        .chain([Kernel {
            user: supported(target, 0x7f),
            system: 31,
            workitem_ids: 2,
            preload: (0, 0),
            wave64: false,
        }])
        .collect()
}

#[test]
fn dumps_built_from_predictions_compare_clean() {
    for name in TARGETS {
        let target = t(name);
        for k in suite(target) {
            for shape in [PARTIAL, WIDE] {
                let p = predictions(name, k, shape);
                let d = clean_dump(&p);
                let diffs = compare(&p, &d, &addresses());
                assert!(diffs.is_empty(), "{name} {k:?}: {diffs:#?}");
            }
        }
    }
}

#[test]
fn waves_and_lanes_follow_the_grid() {
    // PARTIAL: work-groups 3 x 2; X sizes 8, 8, 4; Y sizes 2, 1.
    let k = Kernel {
        user: 0,
        system: 0b111,
        workitem_ids: 1,
        preload: (0, 0),
        wave64: true,
    };
    let p = predictions("gfx900", k, PARTIAL);
    let ids: Vec<([u32; 3], u32, u32)> = p
        .waves
        .iter()
        .map(|w| (w.workgroup, w.wave, w.workitems))
        .collect();
    assert_eq!(
        ids,
        vec![
            ([0, 0, 0], 0, 16),
            ([1, 0, 0], 0, 16),
            ([2, 0, 0], 0, 8),
            ([0, 1, 0], 0, 8),
            ([1, 1, 0], 0, 8),
            ([2, 1, 0], 0, 4),
        ]
    );
    // WIDE on wave32: 4 waves per 128-item work-group.
    let k32 = Kernel { wave64: false, ..k };
    let p = predictions("gfx1030", k32, WIDE);
    assert_eq!(p.waves.len(), 2 * 2 * 4);
    assert_eq!(p.waves[5].workgroup, [1, 0, 0]);
    assert_eq!(p.waves[5].wave, 1);
}

#[test]
fn values_resolve_as_the_abi_says() {
    // gfx900, every user SGPR, every system SGPR: s[0:3] V#, s[4:5]
    // dispatch ptr, s[6:7] queue ptr, s[8:9] kernarg ptr, s[10:11]
    // dispatch id, s[12:13] flat scratch init, s14 private segment size,
    // s15-s17 work-group ids, s18 info, s19 wave offset.
    let k = Kernel {
        user: 0x7f,
        system: 31,
        workitem_ids: 2,
        preload: (0, 0),
        wave64: true,
    };
    let p = predictions("gfx900", k, WIDE);
    let a = addresses();
    let d = p.to_dump(&a, |_, _| None);
    let w = &d.waves[3]; // work-group (1,0,0) wave 1
    assert_eq!(p.waves[3].workgroup, [1, 0, 0]);
    assert_eq!(
        w.sgprs[4..12],
        [
            0x3456_0040,
            0x7f12,
            0x3400_0000,
            0x7f13,
            0x0000_1000,
            0x7f11,
            5,
            1
        ]
    );
    assert_eq!(w.sgprs[14], 24, "22 rounded up to a dword");
    assert_eq!(w.sgprs[15..18], [1, 0, 0]);
    assert_eq!(w.sgprs[18] & 0x3f, 2, "two waves per work-group");
    assert_eq!(w.sgprs[19] % 1024, 0);
    assert_eq!(w.sgprs[3] & 1 << 23, 1 << 23, "ADD_TID_ENABLE");
    assert_eq!(w.exec, u64::MAX);
    // Lane 5 of wave 1: flat id 69 in a 32 x 4 work-group: (5, 2, 0).
    assert_eq!((w.vgprs[0][5], w.vgprs[1][5], w.vgprs[2][5]), (5, 2, 0));
    // Packed on gfx90a: X | Y << 10.
    let p = predictions(
        "gfx90a",
        Kernel {
            workitem_ids: 1,
            ..k
        },
        WIDE,
    );
    let d = p.to_dump(&a, |_, _| None);
    assert_eq!(d.waves[3].vgprs[0][5], 5 | 2 << 10);
}

#[test]
fn preloaded_arguments_come_from_the_kernarg_bytes() {
    // gfx90a: kernarg ptr s[0:1], then 3 dwords from dword 2.
    let k = Kernel {
        user: 1 << 3,
        system: 1,
        workitem_ids: 0,
        preload: (3, 2),
        wave64: true,
    };
    let p = predictions("gfx90a", k, PARTIAL);
    assert_eq!(p.waves[0].entry, ENTRY_PRELOAD);
    let d = p.to_dump(&addresses(), |_, _| None);
    assert_eq!(
        d.waves[0].sgprs[2..5],
        [0xa000_0002, 0xa000_0003, 0xa000_0004]
    );
    assert_eq!(d.waves[0].sgprs[5], 0, "work-group id X of work-group 0");
    // Without preload the entry is the first byte.
    let p = predictions(
        "gfx90a",
        Kernel {
            preload: (0, 0),
            ..k
        },
        PARTIAL,
    );
    assert_eq!(p.waves[0].entry, ENTRY_FIRST);
}

#[test]
fn gfx12_work_group_ids_are_in_trap_temporaries() {
    let k = Kernel {
        user: 1 << 3,
        system: 0b011,
        workitem_ids: 1,
        preload: (0, 0),
        wave64: false,
    };
    let shape = Shape {
        grid: [64, 8, 1],
        workgroup: [32, 4, 1],
    };
    let p = predictions("gfx1200", k, shape);
    let d = p.to_dump(&addresses(), |_, _| None);
    let w = &d.waves[p
        .waves
        .iter()
        .position(|w| w.workgroup == [1, 1, 0])
        .unwrap()];
    // Z is not enabled: TTMP7[31:16] is 0.
    assert_eq!((w.ttmp[2], w.ttmp[1]), (1, 1));
    let names: Vec<String> = p.waves[0]
        .expect
        .iter()
        .filter(|e| matches!(e.field.reg, Reg::Ttmp(_)))
        .map(|e| format!("{} {}", e.field, e.name))
        .collect();
    assert_eq!(
        names,
        [
            "ttmp6 ttmp6",
            "ttmp9 workgroup_id_x",
            "ttmp7[15:0] workgroup_id_y",
            "ttmp7[31:16] workgroup_id_z (not enabled)"
        ]
    );
    // Not on GFX11.
    let p = predictions("gfx1100", k, WIDE);
    assert!(p.waves[0]
        .expect
        .iter()
        .all(|e| !matches!(e.field.reg, Reg::Ttmp(_))));
}

#[test]
fn predictions_round_trip_through_json() {
    let k = Kernel {
        user: 0x7f,
        system: 31,
        workitem_ids: 2,
        preload: (2, 0),
        wave64: true,
    };
    let p = predictions("gfx90a", k, PARTIAL);
    let json = serde_json::to_string(&p).expect("serializes");
    let back: Predictions = serde_json::from_str(&json).expect("deserializes");
    assert_eq!(back, p);
    let d = clean_dump(&p);
    let mut d2 = d.clone();
    d2.waves.truncate(2);
    let diffs = compare(&back, &d2, &addresses());
    let json = serde_json::to_string(&diffs).expect("serializes");
    let again: Vec<Difference> = serde_json::from_str(&json).expect("deserializes");
    assert_eq!(again, diffs);
}

#[test]
fn code_object_v2_kernels_predict_too() {
    let target = crate::kernel_code::tests::t("gfx803");
    let code = crate::kernel_code::tests::valid(target);
    let kd = code.as_descriptor();
    let plan = plan(&kd, target, WIDE);
    let p = predict_v2(&code, target, &plan).expect("predicts");
    assert_eq!(p.waves.len(), 2 * 2 * 2);
    assert!(compare(&p, &clean_dump(&p), &addresses()).is_empty());
}

#[test]
fn bad_plans_are_errors() {
    let target = t("gfx900");
    let kd = descriptor(
        target,
        Kernel {
            user: 8,
            system: 1,
            workitem_ids: 0,
            preload: (0, 0),
            wave64: true,
        },
    );
    let good = plan(&kd, target, WIDE);
    let p = Plan {
        lanes: 32,
        ..good.clone()
    };
    assert_eq!(
        predict(&kd, target, &p),
        Err(PredictError::Lanes {
            plan: 32,
            kernel: 64
        })
    );
    let p = Plan {
        shape: Shape {
            grid: [4, 1, 1],
            workgroup: [0, 1, 1],
        },
        ..good.clone()
    };
    assert_eq!(
        predict(&kd, target, &p),
        Err(PredictError::EmptyWorkgroup { dim: 0 })
    );
    let p = Plan {
        shape: Shape {
            grid: [u32::MAX, u32::MAX, u32::MAX],
            workgroup: [1, 1, 1],
        },
        ..good.clone()
    };
    assert!(matches!(
        predict(&kd, target, &p),
        Err(PredictError::TooManyWaves { .. })
    ));
    let p = Plan {
        kernarg_hex: "abc".into(),
        ..good.clone()
    };
    assert_eq!(predict(&kd, target, &p), Err(PredictError::KernargHex));
    // An empty grid has no waves.
    let p = Plan {
        shape: Shape {
            grid: [0, 4, 1],
            workgroup: [0, 1, 1],
        },
        ..good
    };
    assert_eq!(predict(&kd, target, &p).map(|p| p.waves.len()), Ok(0));
}

#[test]
fn constraints_hold_and_have_witnesses() {
    let c = Constraint {
        multiple_of: 1024,
        bits_set: 1 << 23,
        ..Constraint::unspecified("test")
    };
    assert!(c.holds(1 << 23) && !c.holds(1 << 23 | 4) && !c.holds(1024));
    assert_eq!(c.witness(), Some(1 << 23));
    let c = Constraint {
        multiple_of: 4,
        at_least: 22,
        ..Constraint::unspecified("test")
    };
    assert_eq!(c.witness(), Some(24));
    let c = Constraint {
        bits_set: 1,
        bits_clear: 1,
        ..Constraint::unspecified("test")
    };
    assert_eq!(c.witness(), None);
    assert!(Constraint::unspecified("x").is_unspecified());
}

/// The only difference of `d`.
fn one(d: Vec<Difference>) -> Difference {
    assert_eq!(d.len(), 1, "{d:#?}");
    d.into_iter().next().unwrap()
}

/// A clean dump of `p` with `edit` applied to the record of wave `i`.
fn perturbed(p: &Predictions, i: usize, edit: impl FnOnce(&mut WaveDump)) -> Dump {
    let mut d = p.to_dump(&addresses(), |_, _| None);
    edit(&mut d.waves[i]);
    d
}

const ALL_GFX900: Kernel = Kernel {
    user: 0x7f,
    system: 31,
    workitem_ids: 2,
    preload: (0, 0),
    wave64: true,
};

/// Each single perturbation and its one finding, as the report prints it.
fn perturbations() -> Vec<(&'static str, Difference)> {
    let a = addresses();
    let mut out = Vec::new();

    // A wrong work-group id Y (s16) in one wave.
    let p = predictions("gfx900", ALL_GFX900, WIDE);
    let d = perturbed(&p, 5, |w| w.sgprs[16] += 7);
    out.push(("wrong work-group id", one(compare(&p, &d, &a))));

    // Dispatch ptr and queue ptr swapped in one wave.
    let d = perturbed(&p, 2, |w| {
        w.sgprs.swap(4, 6);
        w.sgprs.swap(5, 7);
    });
    out.push(("swapped user SGPRs", one(compare(&p, &d, &a))));

    // The packed Y field zeroed in every lane of one wave.
    let packed = Kernel {
        user: 1 << 3,
        system: 0b111,
        workitem_ids: 1,
        preload: (0, 0),
        wave64: true,
    };
    let p = predictions("gfx90a", packed, WIDE);
    let d = perturbed(&p, 1, |w| {
        for v in &mut w.vgprs[0] {
            *v &= !(0x3ff << 10);
        }
    });
    out.push(("packed Y field zeroed", one(compare(&p, &d, &a))));

    // A missing wave.
    let p = predictions("gfx900", ALL_GFX900, WIDE);
    let mut d = p.to_dump(&a, |_, _| None);
    d.waves.remove(3);
    out.push(("missing wave", one(compare(&p, &d, &a))));

    // An extra wave: one record written twice.
    let mut d = p.to_dump(&a, |_, _| None);
    let mut again = d.waves[1].clone();
    again.slot = d.waves.len() as u32;
    d.waves.push(again);
    out.push(("extra wave", one(compare(&p, &d, &a))));

    // A wave that entered at the legacy entry on a preload target: its
    // preloaded SGPRs hold something else and are not compared.
    let pre = Kernel {
        user: 1 << 3,
        system: 1,
        workitem_ids: 0,
        preload: (2, 0),
        wave64: true,
    };
    let p = predictions("gfx90a", pre, PARTIAL);
    let d = perturbed(&p, 4, |w| {
        w.entry = ENTRY_FIRST;
        w.sgprs[2] = 0;
        w.sgprs[3] = 0x1234;
    });
    out.push(("legacy entry", one(compare(&p, &d, &a))));

    // A misaligned scratch wave offset (s19 on gfx900).
    let p = predictions("gfx900", ALL_GFX900, WIDE);
    let d = perturbed(&p, 6, |w| w.sgprs[19] = 0x104);
    out.push(("misaligned scratch offset", one(compare(&p, &d, &a))));

    // Dispatch id (s[10:11]) low half not the packet index in one wave.
    let d = perturbed(&p, 7, |w| w.sgprs[10] = 0);
    out.push(("dispatch id", one(compare(&p, &d, &a))));

    // Flat scratch init differs in one wave from all the others.
    let d = perturbed(&p, 0, |w| w.sgprs[12] = 0x4000);
    out.push(("flat scratch init not uniform", one(compare(&p, &d, &a))));

    out
}

#[test]
fn single_perturbations_are_single_findings() {
    let found = perturbations();
    let kinds: Vec<(&str, &DifferenceKind)> = found.iter().map(|(n, d)| (*n, &d.kind)).collect();
    assert!(matches!(kinds[0].1, DifferenceKind::Value { name, .. } if name == "workgroup_id_y"));
    assert!(matches!(kinds[1].1, DifferenceKind::Swapped { .. }));
    assert!(
        matches!(kinds[2].1, DifferenceKind::Value { name, lanes, .. } if name == "workitem_id_y" && lanes.len() == 64)
    );
    assert!(matches!(kinds[3].1, DifferenceKind::MissingWave));
    assert!(matches!(kinds[4].1, DifferenceKind::ExtraWave));
    assert!(matches!(kinds[5].1, DifferenceKind::LegacyEntry));
    assert!(matches!(
        kinds[6].1,
        DifferenceKind::Value {
            constraint: Some(_),
            ..
        }
    ));
    assert!(matches!(
        kinds[7].1,
        DifferenceKind::Value {
            symbol: Some(_),
            ..
        }
    ));
    assert!(matches!(kinds[8].1, DifferenceKind::NotUniform { .. }));
    let report: String = found
        .iter()
        .map(|(name, d)| format!("{name}:\n  {d}\n"))
        .collect();
    insta::assert_snapshot!(report);
}

#[test]
fn short_dumps_are_differences_not_panics() {
    let p = predictions("gfx900", ALL_GFX900, WIDE);
    let a = addresses();
    let mut d = p.to_dump(&a, |_, _| None);
    for w in &mut d.waves {
        w.sgprs.truncate(3);
        for row in &mut w.vgprs {
            row.truncate(10);
        }
    }
    d.lanes = 32;
    let diffs = compare(&p, &d, &a);
    assert!(matches!(
        diffs[0].kind,
        DifferenceKind::Lanes {
            expected: 64,
            found: 32
        }
    ));
    assert!(diffs
        .iter()
        .any(|d| d.to_string().contains("nothing (not captured)")));
    // No records at all: every wave is missing.
    let empty = Dump {
        lanes: 64,
        waves: Vec::new(),
    };
    let diffs = compare(&p, &empty, &a);
    assert_eq!(diffs.len(), p.waves.len());
    assert!(diffs.iter().all(|d| d.kind == DifferenceKind::MissingWave));
}

fn any_kernel() -> impl Strategy<Value = (usize, Kernel)> {
    (
        0..TARGETS.len(),
        0u8..128,
        0u8..32,
        0u32..3,
        0u32..5,
        0u32..4,
        proptest::bool::ANY,
    )
        .prop_map(|(t_i, user, system, workitem_ids, len, off, wave64)| {
            let target = t(TARGETS[t_i]);
            let user = supported(target, user);
            let used: u32 = USER
                .iter()
                .enumerate()
                .filter(|(i, _)| user >> i & 1 == 1)
                .map(|(i, _)| [4, 2, 2, 2, 2, 2, 1][i])
                .sum();
            let preload = if target.kernarg_preload {
                (len.min(16 - used), off)
            } else {
                (0, 0)
            };
            (
                t_i,
                Kernel {
                    user,
                    system,
                    workitem_ids,
                    preload,
                    wave64: wave64 && target.wave32,
                },
            )
        })
}

fn any_shape() -> impl Strategy<Value = Shape> {
    ([1u32..70, 1u32..6, 1u32..4], [1u16..40, 1u16..5, 1u16..3])
        .prop_map(|(grid, workgroup)| Shape { grid, workgroup })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any kernel on any grid: the dump built from the predictions, in any
    /// record order, compares clean; a changed work-group id in any wave
    /// is one finding naming that wave.
    #[test]
    fn clean_in_any_order((t_i, k) in any_kernel(), shape in any_shape(), rot in 0usize..64) {
        let p = predictions(TARGETS[t_i], k, shape);
        let mut d = clean_dump(&p);
        let n = d.waves.len();
        if n > 0 {
            d.waves.rotate_left(rot % n);
        }
        prop_assert!(compare(&p, &d, &addresses()).is_empty());
        // Perturb EXEC of one wave: one finding for that wave.
        if n > 0 {
            let i = rot % n;
            d.waves[i].exec ^= 1 << 40 | 1 << 31;
            let diffs = compare(&p, &d, &addresses());
            prop_assert!(!diffs.is_empty());
            let slot = d.waves[i].slot;
            prop_assert!(diffs.iter().all(|x| x.slot == Some(slot)), "{:#?}", diffs);
        }
    }
}

#[test]
fn a_register_wrong_in_every_wave_of_a_large_dispatch_pairs_by_identity() {
    // 600 one-wave work-groups: too many open pairs to rank by cost.
    let k = Kernel {
        user: 1 << 3 | 1 << 4,
        system: 1,
        workitem_ids: 0,
        preload: (0, 0),
        wave64: true,
    };
    let shape = Shape {
        grid: [64 * 600, 1, 1],
        workgroup: [64, 1, 1],
    };
    let p = predictions("gfx900", k, shape);
    let a = addresses();
    let mut d = p.to_dump(&a, |_, _| None);
    // Dispatch id (s[2:3]) off by one everywhere; records in reverse.
    d.waves.reverse();
    for (i, w) in d.waves.iter_mut().enumerate() {
        w.slot = i as u32;
        w.sgprs[2] += 1;
    }
    let diffs = compare(&p, &d, &a);
    assert_eq!(diffs.len(), 600);
    for x in &diffs {
        let (Some(wave), Some(slot)) = (x.wave, x.slot) else {
            panic!("{x}");
        };
        assert_eq!(wave.workgroup[0], 599 - slot, "{x}");
        assert!(matches!(&x.kind, DifferenceKind::Value { name, .. } if name == "dispatch_id"));
    }
}

fn any_field() -> impl Strategy<Value = Field> {
    (
        prop_oneof![
            (0u16..40).prop_map(Reg::Sgpr),
            (0u8..5).prop_map(Reg::Vgpr),
            Just(Reg::ExecLo),
            Just(Reg::ExecHi),
            (0u8..16).prop_map(Reg::Ttmp),
        ],
        proptest::option::of(0u8..80),
        0u8..40,
        0u8..40,
    )
        .prop_map(|(reg, lane, lsb, width)| Field {
            reg,
            lane,
            lsb,
            width,
        })
}

fn any_expectation() -> impl Strategy<Value = Expectation> {
    (
        any_field(),
        prop_oneof![
            proptest::num::u32::ANY.prop_map(|v| Expect::Exact(Value::Const(v))),
            Just(Expect::Exact(Value::AddrHi(Addr::Queue))),
            (0u32..2000, proptest::num::u32::ANY, proptest::bool::ANY).prop_map(|(m, b, u)| {
                Expect::Check(Constraint {
                    multiple_of: m,
                    bits_set: b & 0xf0,
                    uniform: u,
                    ..Constraint::unspecified("x")
                })
            }),
        ],
        proptest::bool::ANY,
    )
        .prop_map(|(field, expect, preloaded)| Expectation {
            field,
            name: "x".into(),
            expect,
            source: "s".into(),
            preloaded,
        })
}

fn any_record() -> impl Strategy<Value = WaveDump> {
    (
        proptest::num::u32::ANY,
        proptest::num::u64::ANY,
        proptest::collection::vec(proptest::num::u32::ANY, 0..40),
        proptest::num::u32::ANY,
        proptest::collection::vec(proptest::num::u32::ANY, 0..70),
    )
        .prop_map(|(slot, exec, sgprs, entry, v)| WaveDump {
            slot,
            exec,
            sgprs,
            ttmp: [1, 2, 3],
            entry: entry % 3 * 0x80,
            vgprs: [v.clone(), v.clone(), v],
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Whatever a predictions file or a dump holds, comparing, building a
    /// dump and printing do not panic.
    #[test]
    fn any_input_compares_without_panic(
        expect in proptest::collection::vec(any_expectation(), 0..20),
        entries in proptest::collection::vec(0u32..0x200, 1..4),
        recs in proptest::collection::vec(any_record(), 0..5),
        lanes in 0u32..100,
    ) {
        let p = Predictions {
            target: "gfx900".into(),
            lanes,
            captured_sgprs: 40,
            waves: entries
                .iter()
                .enumerate()
                .map(|(i, &entry)| WavePrediction {
                    workgroup: [i as u32, 0, 0],
                    wave: 0,
                    workitems: 1,
                    entry,
                    expect: expect.clone(),
                })
                .collect(),
        };
        let d = Dump { lanes: 64, waves: recs };
        for x in compare(&p, &d, &addresses()) {
            let _ = x.to_string();
        }
        let built = p.to_dump(&addresses(), |_, _| None);
        let _ = compare(&p, &built, &addresses());
    }
}
