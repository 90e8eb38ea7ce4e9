use super::id::edit_distance;
use super::*;
use proptest::prelude::*;
use std::collections::HashSet;

#[test]
fn machs_are_unique_and_sorted() {
    for table in [TARGETS, RETIRED] {
        let machs: Vec<u8> = table.iter().map(|t| t.mach).collect();
        let mut sorted = machs.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(machs, sorted, "each table must be strictly ordered by mach");
    }
    let mut all: Vec<u8> = all_targets().map(|t| t.mach).collect();
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), n, "a mach value is both current and retired");
}

#[test]
fn names_are_unique_and_not_aliases() {
    let mut seen = HashSet::new();
    for t in all_targets() {
        assert!(seen.insert(t.name), "duplicate name {}", t.name);
    }
    for (alias, canonical) in ALIASES {
        assert!(
            by_name(alias).is_none(),
            "alias {alias} is also a table name"
        );
        assert!(
            by_name(canonical).is_some(),
            "alias {alias} points to unknown {canonical}"
        );
    }
}

#[test]
fn unmodelled_machs_are_not_targets() {
    for &(mach, name) in UNMODELLED {
        assert!(
            by_mach(mach).is_none(),
            "{mach:#x} is both a target and {name}"
        );
        assert!(by_name(name).is_none());
        assert_eq!(unmodelled_name(name), Some(name));
    }
    assert_eq!(unmodelled_mach(0x50), Some("gfx1310"));
    assert_eq!(unmodelled_name("gfx1310"), Some("gfx1310"));
    assert_eq!(unmodelled_name("gfx1250"), None);
    assert_eq!(unmodelled_name("gfx942"), None);
}

#[test]
fn retired_targets_are_found_and_marked() {
    let names: Vec<&str> = RETIRED.iter().map(|t| t.name).collect();
    assert_eq!(names, ["gfx940", "gfx941"]);
    for t in RETIRED {
        assert!(t.is_retired() && t.hsa, "{}", t.name);
        assert_eq!(by_mach(t.mach).map(|b| b.name), Some(t.name));
        assert_eq!(by_name(t.name).map(|b| b.mach), Some(t.mach));
        assert!(hsa_targets().all(|h| h.name != t.name));
        assert!(t.known_to_llvm(19) && t.llvm19(), "{}", t.name);
        assert!(!t.known_to_llvm(21) && !t.known_to_llvm(22), "{}", t.name);
        // Same ABI facts as gfx942, the processor that replaced them.
        let g = by_name("gfx942").expect("gfx942");
        assert_eq!(
            (
                t.feature_support(),
                t.architected_flat_scratch,
                t.kernarg_preload,
                t.accum_offset,
                t.work_item_ids,
                t.lds_bytes,
                t.generic
            ),
            (
                g.feature_support(),
                g.architected_flat_scratch,
                g.kernarg_preload,
                g.accum_offset,
                g.work_item_ids,
                g.lds_bytes,
                g.generic
            ),
            "{}",
            t.name
        );
    }
    assert!(TARGETS.iter().all(|t| !t.is_retired()));
    let t = |n| by_name(n).unwrap_or_else(|| panic!("{n}"));
    assert_eq!((t("gfx940").mach, t("gfx941").mach), (0x40, 0x4b));
    assert_eq!(t("gfx940").isa_version, [9, 4, 0]);
    assert_eq!(t("gfx941").isa_version, [9, 4, 1]);
    assert!(t("gfx940").known_to_llvm(15) && !t("gfx940").known_to_llvm(14));
    assert!(t("gfx941").known_to_llvm(17) && !t("gfx941").known_to_llvm(16));
    assert!(t("gfx600").known_to_llvm(3) && t("gfx600").known_to_llvm(22));
}

#[test]
fn mach_ranges_match_architecture() {
    // ELF.h: 0x01-0x10 r600 (0x11-0x1f reserved for r600), 0x20+ amdgcn.
    for t in all_targets() {
        if t.hsa {
            assert!(t.mach >= 0x20, "{}", t.name);
            assert_ne!(t.generation, Generation::R600);
        } else {
            assert!((0x01..=0x10).contains(&t.mach), "{}", t.name);
            assert_eq!(t.generation, Generation::R600);
        }
    }
    assert_eq!(TARGETS.iter().filter(|t| !t.hsa).count(), 16);
}

#[test]
fn generation_matches_name_and_isa_version() {
    for t in all_targets().filter(|t| t.hsa) {
        let major = t.generation.major();
        assert_eq!(t.isa_version[0], major, "{}", t.name);
        let digits = t
            .name
            .strip_prefix("gfx")
            .expect("amdgcn names start with gfx");
        let lead: String = digits.chars().take_while(|c| c.is_ascii_digit()).collect();
        if t.is_generic {
            // gfx9-generic, gfx10-1-generic, ...: the number before '-'.
            assert_eq!(lead, major.to_string(), "{}", t.name);
            assert!(t.name.ends_with("-generic"));
        } else {
            // gfx906 → 9, gfx1030 → 10: all but the last two characters.
            let n = digits
                .len()
                .checked_sub(2)
                .expect("gfx names have a minor and stepping");
            assert_eq!(
                digits.get(..n),
                Some(major.to_string().as_str()),
                "{}",
                t.name
            );
            // Non-generic names spell the ISA version: minor then the
            // stepping as one hex digit (gfx90a = 9.0.10, gfx90c = 9.0.12).
            let [_, minor, stepping] = t.isa_version;
            let tail = format!("{minor}{stepping:x}");
            assert_eq!(digits.get(n..), Some(tail.as_str()), "{}", t.name);
        }
    }
}

#[test]
fn generic_links_are_consistent() {
    for t in all_targets().filter(|t| t.hsa) {
        if let Some(g) = t.generic {
            let gt = by_name(g).unwrap_or_else(|| panic!("{} names unknown generic {g}", t.name));
            assert!(gt.is_generic, "{} names non-generic {g}", t.name);
            assert!(
                !t.is_generic,
                "generic {} cannot itself have a generic",
                t.name
            );
            assert_eq!(gt.generation, t.generation, "{} vs {g}", t.name);
            // A generic target runs on its members, so it cannot claim
            // what a member lacks.
            for (what, g_has, t_has) in [
                ("xnack", gt.xnack, t.xnack),
                ("sramecc", gt.sramecc, t.sramecc),
                ("wave32", gt.wave32, t.wave32),
                ("scalar stores", gt.scalar_stores, t.scalar_stores),
                ("kernarg preload", gt.kernarg_preload, t.kernarg_preload),
                ("accum offset", gt.accum_offset, t.accum_offset),
            ] {
                assert!(
                    !g_has || t_has,
                    "{g} has {what} but member {} lacks it",
                    t.name
                );
            }
            // ABI layout facts must agree exactly.
            assert_eq!(
                gt.architected_flat_scratch, t.architected_flat_scratch,
                "{}",
                t.name
            );
            assert_eq!(gt.work_item_ids, t.work_item_ids, "{}", t.name);
            assert_eq!(
                gt.vgpr_encoding_granule_wave64,
                t.vgpr_encoding_granule_wave64
            );
            assert_eq!(gt.addressable_sgprs, t.addressable_sgprs, "{}", t.name);
            assert_eq!(generic_version_required(t, gt), Some(1));
        }
        if t.is_generic {
            assert!(
                t.generic_members().count() >= 2,
                "{} covers too few",
                t.name
            );
            assert!(t.name.ends_with("-generic"));
        } else {
            assert!(!t.name.ends_with("-generic"));
            assert_eq!(t.generic_members().count(), 0);
        }
    }
    let g9 = by_name("gfx9-generic").expect("gfx9-generic");
    let members: Vec<&str> = g9.generic_members().map(|t| t.name).collect();
    assert_eq!(
        members,
        ["gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"]
    );
    let g94 = by_name("gfx9-4-generic").expect("gfx9-4-generic");
    let members: Vec<&str> = g94.generic_members().map(|t| t.name).collect();
    assert_eq!(members, ["gfx942", "gfx950", "gfx940", "gfx941"]);
    assert_eq!(
        generic_version_required(by_name("gfx908").expect("gfx908"), g9),
        None
    );
    assert_eq!(
        generic_version_required(by_name("gfx1030").expect("gfx1030"), g9),
        None
    );
}

#[test]
fn feature_facts_follow_generation() {
    for t in all_targets() {
        if !t.hsa {
            assert!(
                !(t.xnack || t.sramecc || t.wave32 || t.wave64 || t.cumode),
                "{}",
                t.name
            );
            assert_eq!(
                (t.addressable_sgprs, t.addressable_vgprs, t.max_user_sgprs),
                (0, 0, 0)
            );
            assert_eq!(t.isa_version, [0, 0, 0]);
            continue;
        }
        let g = t.generation;
        let g125 = t.is_gfx12_5();
        assert_eq!(g125, t.isa_version[..2] == [12, 5], "{}", t.name);
        assert_eq!(t.wave64, !g125, "{}", t.name);
        assert_eq!(t.wave32, g >= Gfx10, "{}", t.name);
        assert_eq!(t.cumode, g >= Gfx10 && !g125, "{}", t.name);
        assert_eq!(t.vgpr_encoding_granule_wave32 != 0, t.wave32, "{}", t.name);
        assert_eq!(
            t.sgpr_encoding_granule,
            if g >= Gfx10 { 0 } else { 8 },
            "{}",
            t.name
        );
        assert_eq!(
            t.addressable_vgprs,
            if g125 { 1024 } else { 256 },
            "{}",
            t.name
        );
        assert_eq!(t.max_user_sgprs, if g125 { 32 } else { 16 }, "{}", t.name);
        assert_eq!(t.accum_offset || g125, t.kernarg_preload, "{}", t.name);
        assert_eq!(
            t.vgpr_encoding_granule_wave32,
            match (g >= Gfx10, g125) {
                (false, _) => 0,
                (true, false) => 8,
                (true, true) => 16,
            },
            "{}",
            t.name
        );
        assert!(
            !t.accum_offset || (t.agprs && t.xnack && t.sramecc),
            "{}",
            t.name
        );
        assert_eq!(
            t.vgpr_encoding_granule_wave64,
            if t.accum_offset || g125 { 8 } else { 4 },
            "{}",
            t.name
        );
        assert_eq!(
            t.max_descriptor_vgprs(),
            if t.accum_offset {
                512
            } else {
                t.addressable_vgprs
            }
        );
        let packed = t.accum_offset || g >= Gfx11;
        assert_eq!(
            t.work_item_ids == WorkItemIdLayout::Packed,
            packed,
            "{}",
            t.name
        );
        let afs = (t.accum_offset && t.name != "gfx90a") || g >= Gfx11;
        assert_eq!(t.architected_flat_scratch, afs, "{}", t.name);
        assert!(
            !t.sramecc || t.xnack,
            "{}: every sramecc processor also has xnack",
            t.name
        );
        // GFX11 and GFX12 have no xnack, but GFX12.5 does (LLVM 22 writes
        // both e_flags fields of gfx1250 and gfx1251 as "any").
        assert_eq!(t.xnack && g >= Gfx11, g125, "{}", t.name);
        let scalar = matches!(g, Gfx8 | Gfx9) || (g == Gfx10 && t.isa_version[1] == 1);
        assert_eq!(t.scalar_stores, scalar, "{}", t.name);
        assert_eq!(t.sgpr_init_bug, t.addressable_sgprs == 96, "{}", t.name);
        let sgprs = match g {
            Gfx6 | Gfx7 => 104,
            Gfx8 | Gfx9 if t.sgpr_init_bug => 96,
            Gfx8 | Gfx9 => 102,
            _ => 106,
        };
        assert_eq!(t.addressable_sgprs, sgprs, "{}", t.name);
        assert!(!t.user_sgpr_init16_bug || g == Gfx11, "{}", t.name);
        assert_eq!(t.has_dx10_clamp_and_ieee(), g <= Gfx11);
        assert_eq!(t.has_fp16_ovfl(), g >= Gfx9);
    }
}

#[test]
fn spot_checks() {
    let t = |n| by_name(n).unwrap_or_else(|| panic!("{n}"));
    assert_eq!(t("gfx90a").mach, 0x3f);
    assert_eq!(t("gfx90c").mach, 0x32);
    assert_eq!(t("gfx942").mach, 0x4c);
    assert_eq!(t("gfx950").mach, 0x4f);
    assert_eq!(t("gfx9-generic").mach, 0x51);
    assert_eq!(t("gfx9-4-generic").mach, 0x5f);
    assert_eq!(t("gfx12-generic").mach, 0x59);
    assert_eq!(t("gfx1201").mach, 0x4e);
    // llc-22: e_flags 0x549 for gfx1250 at V6 (xnack and sramecc "any").
    assert_eq!(t("gfx1250").mach, 0x49);
    assert_eq!(t("gfx1251").mach, 0x5a);
    assert_eq!(t("gfx1250").feature_support(), (true, true));
    assert_eq!(t("gfx1250").max_kernarg_preload_dwords(), 32);
    assert_eq!(t("gfx1250").lds_bytes, 327680);
    assert_eq!(by_mach(0x2f).map(|t| t.name), Some("gfx906"));
    assert!(by_mach(0x27).is_none() && by_mach(0x00).is_none() && by_mach(0x11).is_none());
    assert_eq!(t("gfx906").feature_support(), (true, true));
    assert_eq!(t("gfx9-generic").feature_support(), (true, false));
    assert_eq!(t("gfx1030").feature_support(), (false, false));
    assert_eq!(by_name_or_alias("fiji").map(|t| t.name), Some("gfx803"));
    assert_eq!(by_name_or_alias("gfx803").map(|t| t.name), Some("gfx803"));
    // What a user types for a processor: a name, an alias, a target ID.
    for (s, want) in [
        ("gfx90a", Some("gfx90a")),
        ("fiji", Some("gfx803")),
        ("gfx90a:xnack+", Some("gfx90a")),
        ("gfx906:sramecc-:xnack+", Some("gfx906")),
        ("amdgcn-amd-amdhsa--gfx90a:sramecc-", Some("gfx90a")),
        ("gfx9000", None),
        ("gfx90a:xnack", None),
    ] {
        assert_eq!(processor_named(s).map(|t| t.name), want, "{s}");
    }
    assert_eq!(t("gfx600").lds_alloc_granule_bytes(), Some(256));
    assert_eq!(t("gfx1100").lds_alloc_granule_bytes(), Some(512));
    assert_eq!(t("gfx950").lds_alloc_granule_bytes(), None);
    assert_eq!(t("gfx90a").max_kernarg_preload_dwords(), 16);
    assert_eq!(t("gfx908").max_kernarg_preload_dwords(), 0);
    assert!(t("gfx906").has_xnack_mask_sgprs());
    assert!(!t("gfx1010").has_xnack_mask_sgprs());
    let llvm19_missing: Vec<&str> = all_targets()
        .filter(|t| !t.llvm19())
        .map(|t| t.name)
        .collect();
    assert_eq!(
        llvm19_missing,
        ["gfx1250", "gfx950", "gfx1153", "gfx1251", "gfx9-4-generic"]
    );
    let llvm14_known = all_targets().filter(|t| t.known_to_llvm(14)).count();
    // 16 r600 processors and the 32 amdgcn ones of `llc-14 -mcpu=help`.
    assert_eq!(llvm14_known, 16 + 32);
    let llvm22_missing: Vec<&str> = all_targets()
        .filter(|t| !t.known_to_llvm(22))
        .map(|t| t.name)
        .collect();
    assert_eq!(llvm22_missing, ["gfx940", "gfx941"]);
}

#[test]
fn e_flags_examples() {
    use CodeObjectVersion::*;
    let id = |s| TargetId::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    // NOTES.md: gfx9-generic at V6 gives 0x01000151 (version byte aside).
    assert_eq!(id("gfx9-generic").to_e_flags(V6), 0x151);
    assert_eq!(generic_version(0x0100_0151), 1);
    // clang-19 defaults (tests/targets_llvm.rs checks these for real).
    assert_eq!(id("gfx90a").to_e_flags(V5), 0x53f);
    assert_eq!(id("gfx1010").to_e_flags(V5), 0x133);
    assert_eq!(id("gfx1030").to_e_flags(V5), 0x036);
    assert_eq!(id("gfx90a:sramecc+:xnack-").to_e_flags(V4), 0xe3f);
    // llc-14 V3: gfx906 default 0x32f, -xnack 0x22f.
    assert_eq!(id("gfx906+xnack+sram-ecc").to_e_flags(V3), 0x32f);
    assert_eq!(
        TargetId::parse_v3("gfx906+sram-ecc").map(|i| i.to_e_flags(V3)),
        Ok(0x22f)
    );
    assert_eq!(
        TargetId::from_e_flags(0x22f, V2).map(|i| i.to_v3_string()),
        Ok("gfx906+sram-ecc".into())
    );
    assert_eq!(
        TargetId::from_e_flags(0x0100_0151, V6).map(|i| i.to_v4_string()),
        Ok("gfx9-generic".into())
    );
}

#[test]
fn e_flags_errors() {
    use CodeObjectVersion::*;
    assert_eq!(TargetId::from_e_flags(0, V5), Err(EFlagsError::NoMach));
    assert_eq!(
        TargetId::from_e_flags(0x27, V5),
        Err(EFlagsError::UnknownMach { mach: 0x27 })
    );
    // Retired processors decode like any other (clang-19 -mcpu=gfx940).
    assert_eq!(
        TargetId::from_e_flags(0x540, V5).map(|i| i.to_v4_string()),
        Ok("gfx940".into())
    );
    assert_eq!(
        TargetId::from_e_flags(0xb4b, V4).map(|i| i.to_v4_string()),
        Ok("gfx941:sramecc-:xnack+".into())
    );
    assert_eq!(
        TargetId::from_e_flags(0x50, V5),
        Err(EFlagsError::UnmodelledMach {
            mach: 0x50,
            name: "gfx1310"
        })
    );
    assert_eq!(
        TargetId::from_e_flags(0x0f, V5),
        Err(EFlagsError::NotHsa {
            mach: 0x0f,
            name: "cayman"
        })
    );
    // gfx1030 has neither feature: any non-zero field is wrong.
    assert_eq!(
        TargetId::from_e_flags(0x136, V5),
        Err(EFlagsError::FeatureNotSupported {
            processor: "gfx1030",
            feature: Feature::Xnack
        })
    );
    assert_eq!(
        TargetId::from_e_flags(0x236, V3),
        Err(EFlagsError::FeatureNotSupported {
            processor: "gfx1030",
            feature: Feature::Sramecc
        })
    );
    // gfx906 has both: a zero field in V4+ is wrong.
    assert_eq!(
        TargetId::from_e_flags(0x12f, V4),
        Err(EFlagsError::FeatureMissing {
            processor: "gfx906",
            feature: Feature::Sramecc
        })
    );
    assert_eq!(V4.defined_e_flags() & 0x1000, 0);
    assert_eq!(V6.defined_e_flags() >> 24, 0xff);
    for e in [
        EFlagsError::NoMach,
        EFlagsError::UnknownMach { mach: 0x27 },
        EFlagsError::FeatureMissing {
            processor: "gfx906",
            feature: Feature::Xnack,
        },
    ] {
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn parse_accepts_both_spellings() {
    let p = |s| TargetId::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    let a = p("gfx90a:xnack-:sramecc+");
    assert_eq!(a.to_v4_string(), "gfx90a:sramecc+:xnack-");
    assert_eq!(
        (a.xnack, a.sramecc),
        (FeatureSetting::Off, FeatureSetting::On)
    );
    assert_eq!(p("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"), a);
    assert_eq!(
        a.to_full_string(),
        "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"
    );
    let bare = p("gfx906");
    assert_eq!(
        (bare.xnack, bare.sramecc),
        (FeatureSetting::Any, FeatureSetting::Any)
    );
    assert_eq!(bare.to_v3_string(), "gfx906+xnack+sram-ecc");
    let v3 = p("gfx902+xnack");
    assert_eq!(
        (v3.xnack, v3.sramecc),
        (FeatureSetting::On, FeatureSetting::Unsupported)
    );
    let v3 = p("gfx906+sramecc");
    assert_eq!(
        (v3.xnack, v3.sramecc),
        (FeatureSetting::Off, FeatureSetting::On)
    );
    assert_eq!(p("amdgcn-amd-amdhsa--gfx906+sram-ecc"), v3);
    assert_eq!(v3.to_v3_string(), "gfx906+sram-ecc");
    assert_eq!(v3.to_v4_string(), "gfx906:sramecc+:xnack-");
    let v3bare = TargetId::parse_v3("gfx906").expect("bare V3");
    assert_eq!(
        (v3bare.xnack, v3bare.sramecc),
        (FeatureSetting::Off, FeatureSetting::Off)
    );
    assert_eq!(p("gfx1030").to_v4_string(), "gfx1030");
    assert_eq!(p("gfx10-3-generic").to_string(), "gfx10-3-generic");
    assert_eq!(
        "gfx9-4-generic:xnack+".parse::<TargetId>().map(|i| i.xnack),
        Ok(FeatureSetting::On)
    );
}

#[test]
fn parse_errors() {
    let e = |s: &str| TargetId::parse(s).expect_err(s);
    assert_eq!(e(""), TargetIdError::Empty);
    assert_eq!(e("amdgcn-amd-amdhsa--"), TargetIdError::Empty);
    assert!(matches!(e("gfx90a:xnack"), TargetIdError::BadSyntax { .. }));
    assert!(matches!(
        e("gfx90a::xnack+"),
        TargetIdError::BadSyntax { .. }
    ));
    assert!(matches!(e("gfx90a:"), TargetIdError::BadSyntax { .. }));
    assert!(matches!(
        e("gfx90a:xnack+-"),
        TargetIdError::BadSyntax { .. }
    ));
    assert!(matches!(e("gfx906+"), TargetIdError::BadSyntax { .. }));
    assert!(matches!(
        e("gfx906+xnack:sramecc+"),
        TargetIdError::BadSyntax { .. }
    ));
    assert!(matches!(e(":xnack+"), TargetIdError::BadSyntax { .. }));
    assert!(matches!(
        e("amdgcn-amd-amdpal--gfx906"),
        TargetIdError::BadSyntax { .. }
    ));
    assert_eq!(
        e("gfx90a:xnack+:xnack-"),
        TargetIdError::DuplicateFeature {
            feature: Feature::Xnack
        }
    );
    assert_eq!(
        e("gfx906+sram-ecc+sramecc"),
        TargetIdError::DuplicateFeature {
            feature: Feature::Sramecc
        }
    );
    assert_eq!(
        e("gfx1030:xnack+"),
        TargetIdError::UnsupportedFeature {
            processor: "gfx1030",
            feature: Feature::Xnack
        }
    );
    assert_eq!(
        e("gfx9-generic:sramecc-"),
        TargetIdError::UnsupportedFeature {
            processor: "gfx9-generic",
            feature: Feature::Sramecc
        }
    );
    assert_eq!(
        e("gfx90a:tgsplit+"),
        TargetIdError::UnknownFeature {
            feature: "tgsplit".into()
        }
    );
    assert_eq!(
        e("gfx906:sram-ecc+"),
        TargetIdError::UnknownFeature {
            feature: "sram-ecc".into()
        }
    );
    assert_eq!(
        e("gfx1310:xnack+"),
        TargetIdError::UnmodelledProcessor { name: "gfx1310" }
    );
    assert!(e("gfx1154").to_string().contains("newer than"));
    assert_eq!(
        TargetId::parse("amdgcn-amd-amdhsa--gfx941:sramecc+").map(|i| i.to_full_string()),
        Ok("amdgcn-amd-amdhsa--gfx941:sramecc+".into())
    );
    assert_eq!(e("cayman"), TargetIdError::NotHsa { name: "cayman" });
    assert_eq!(
        e("fiji"),
        TargetIdError::UnknownProcessor {
            name: "fiji".into(),
            suggestions: vec!["gfx803"]
        }
    );
    match e("gfx9000:xnack+") {
        TargetIdError::UnknownProcessor { name, suggestions } => {
            assert_eq!(name, "gfx9000");
            assert_eq!(suggestions.first(), Some(&"gfx900"));
            assert!(suggestions.len() <= 3);
        }
        other => panic!("{other:?}"),
    }
    let msg = e("gfx9000").to_string();
    assert!(
        msg.contains("unknown processor `gfx9000`") && msg.contains("gfx900"),
        "{msg}"
    );
    assert_eq!(
        e("GFX906"),
        TargetIdError::UnknownProcessor {
            name: "GFX906".into(),
            suggestions: vec![]
        }
    );
    assert!(e(&"x".repeat(10_000))
        .to_string()
        .starts_with("unknown processor"));
}

#[test]
fn new_validates_settings() {
    let t = by_name("gfx1030").expect("gfx1030");
    assert!(TargetId::new(t, FeatureSetting::Unsupported, FeatureSetting::Unsupported).is_ok());
    assert!(TargetId::new(t, FeatureSetting::On, FeatureSetting::Unsupported).is_err());
    let t = by_name("gfx906").expect("gfx906");
    assert!(TargetId::new(t, FeatureSetting::Unsupported, FeatureSetting::Any).is_err());
    assert!(TargetId::new(
        by_name("r600").expect("r600"),
        FeatureSetting::Unsupported,
        FeatureSetting::Unsupported
    )
    .is_err());
}

#[test]
fn edit_distance_is_levenshtein() {
    assert_eq!(edit_distance(b"", b""), 0);
    assert_eq!(edit_distance(b"gfx900", b"gfx900"), 0);
    assert_eq!(edit_distance(b"gfx9000", b"gfx900"), 1);
    assert_eq!(edit_distance(b"gfx090", b"gfx900"), 2);
    assert_eq!(edit_distance(b"kitten", b"sitting"), 3);
    assert_eq!(edit_distance(b"", b"abc"), 3);
}

/// The settings a feature can take on `t`.
fn settings(supported: bool) -> Vec<FeatureSetting> {
    use FeatureSetting::*;
    if supported {
        vec![Any, Off, On]
    } else {
        vec![Unsupported]
    }
}

/// Every valid target ID: each HSA target (retired ones too) × each
/// feature combination.
fn all_ids() -> Vec<TargetId> {
    let mut out = Vec::new();
    for t in all_targets().filter(|t| t.hsa) {
        for x in settings(t.xnack) {
            for s in settings(t.sramecc) {
                out.push(TargetId::new(t, x, s).expect("valid combination"));
            }
        }
    }
    out
}

#[test]
fn every_id_round_trips() {
    use CodeObjectVersion::*;
    let ids = all_ids();
    assert!(ids.len() > 60);
    for id in ids {
        assert_eq!(TargetId::parse(&id.to_v4_string()), Ok(id));
        assert_eq!(TargetId::parse(&id.to_full_string()), Ok(id));
        for cov in [V4, V5, V6] {
            assert_eq!(
                TargetId::from_e_flags(id.to_e_flags(cov), cov),
                Ok(id),
                "{id} {cov}"
            );
        }
        // V2/V3 cannot say "any": it comes back as on.
        let on = |s: FeatureSetting| {
            if s == FeatureSetting::Any {
                FeatureSetting::On
            } else {
                s
            }
        };
        let lossy = TargetId {
            xnack: on(id.xnack),
            sramecc: on(id.sramecc),
            ..id
        };
        for cov in [V2, V3] {
            assert_eq!(
                TargetId::from_e_flags(id.to_e_flags(cov), cov),
                Ok(lossy),
                "{id} {cov}"
            );
        }
        assert_eq!(TargetId::parse_v3(&id.to_v3_string()), Ok(lossy), "{id}");
    }
}

proptest! {
    #[test]
    fn parse_print_round_trip(i in 0usize..1000, shuffle in any::<bool>(), prefix in any::<bool>()) {
        let ids = all_ids();
        let id = ids[i % ids.len()];
        let mut text = id.to_v4_string();
        if shuffle {
            // Features may come in any order on input.
            let mut parts: Vec<&str> = text.split(':').collect();
            parts[1..].reverse();
            text = parts.join(":");
        }
        if prefix {
            text.insert_str(0, TRIPLE_PREFIX);
        }
        prop_assert_eq!(TargetId::parse(&text), Ok(id));
    }

    #[test]
    fn e_flags_decode_encode(flags in any::<u32>(), v in 0u8..5) {
        let cov = CodeObjectVersion::from_abi_version(v).expect("0..5 are versions");
        if let Ok(id) = TargetId::from_e_flags(flags, cov) {
            prop_assert_eq!(id.to_e_flags(cov), flags & cov.defined_e_flags() & 0xfff);
            prop_assert_eq!(TargetId::from_e_flags(id.to_e_flags(cov), cov), Ok(id));
        }
    }

    #[test]
    fn e_flags_known_machs_decode(i in 0usize..1000, x in 0u32..4, s in 0u32..4, v in 2u8..5) {
        let cov = CodeObjectVersion::from_abi_version(v).expect("2..5 are versions");
        let targets: Vec<&Target> = hsa_targets().collect();
        let t = targets[i % targets.len()];
        let flags = u32::from(t.mach) | x << 8 | s << 10;
        let ok = (x != 0) == t.xnack && (s != 0) == t.sramecc;
        prop_assert_eq!(TargetId::from_e_flags(flags, cov).is_ok(), ok);
    }

    #[test]
    fn parse_never_panics(s in "\\PC{0,40}") {
        if let Err(e) = TargetId::parse(&s) {
            prop_assert!(!e.to_string().is_empty());
        }
        let _ = TargetId::parse_v3(&s);
    }

    #[test]
    fn parse_never_panics_on_near_misses(
        name in "(gfx[0-9a-c]{3,4}|gfx9-4-generic|amdgcn-amd-amdhsa--gfx906)",
        feats in proptest::collection::vec("(xnack|sramecc|sram-ecc|tgsplit|)[+-]?", 0..4),
        sep in "[:+]",
    ) {
        let s = format!("{name}{}{}", if feats.is_empty() { "" } else { sep.as_str() }, feats.join(&sep));
        if let Ok(id) = TargetId::parse(&s) {
            // Whatever parses prints back to something that parses the same.
            prop_assert_eq!(TargetId::parse(&id.to_v4_string()), Ok(id));
        }
    }
}
