//! The target of a code object: processor, feature settings (xnack,
//! sramecc), code object version and, for generic processors, the generic
//! version; and the target *families* the SGPR suite enumerates.
//!
//! Sources: the oracle's [`hsaco_oracle::targets`] table (which the
//! oracle's own tests check against LLVM); `llc-14 -mcpu=help` for the
//! processors LLVM 14 (the assembler that still writes code object V3)
//! knows.

use crate::config::Config;
use arbitrary::Unstructured;
use hsaco_oracle::targets::{
    self, CodeObjectVersion, FeatureSetting, Generation, Target, TargetId,
};
use serde::Serialize;

/// Processors `llc-14`/`llvm-mc-14` know (`llc-14 -mtriple=amdgcn
/// -mcpu=help`): the V3 cases an installed assembler can rebuild.
pub const LLVM14_TARGETS: &[&str] = &[
    "gfx600", "gfx601", "gfx602", "gfx700", "gfx701", "gfx702", "gfx703", "gfx704", "gfx705",
    "gfx801", "gfx802", "gfx803", "gfx805", "gfx810", "gfx900", "gfx902", "gfx904", "gfx906",
    "gfx908", "gfx909", "gfx90a", "gfx90c", "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx1030",
    "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035",
];

/// The version number (2..=6) as the oracle's enum.
pub fn cov_from_number(n: u8) -> Option<CodeObjectVersion> {
    n.checked_sub(2)
        .and_then(CodeObjectVersion::from_abi_version)
}

/// True if code object version `cov` can name `t`: generic processors need
/// V6 (NOTES.md "ELF header"); V2 only the processors LLVM 14 writes it
/// for ([`crate::v2::LLVM14_V2_TARGETS`]).
pub fn version_fits(t: &Target, cov: CodeObjectVersion) -> bool {
    if cov == CodeObjectVersion::V2 {
        return t.hsa && crate::v2::fits(t);
    }
    t.hsa && cov >= CodeObjectVersion::V3 && (!t.is_generic || cov >= CodeObjectVersion::V6)
}

/// True if an installed assembler can build `t` in `cov`: llvm-mc-19 for
/// V4 and later (it aborts on V3: "Unsupported AMDHSA Code Object Version
/// 3"), llvm-mc-14 for V3 and V2.
pub fn assembler_knows(t: &Target, cov: CodeObjectVersion) -> bool {
    if cov == CodeObjectVersion::V2 {
        return crate::v2::fits(t);
    }
    if cov == CodeObjectVersion::V3 {
        LLVM14_TARGETS.contains(&t.name)
    } else {
        t.llvm19()
    }
}

/// Every (processor, version) pair `cfg` allows, processors in table order.
pub fn allowed_pairs(cfg: &Config) -> Vec<(&'static Target, CodeObjectVersion)> {
    let mut out = Vec::new();
    for t in cfg.target_list() {
        for &n in &cfg.code_object_versions {
            let Some(cov) = cov_from_number(n) else {
                continue;
            };
            if version_fits(t, cov) && (!cfg.rebuildable_only || assembler_knows(t, cov)) {
                out.push((t, cov));
            }
        }
    }
    out
}

/// A code object's target: what `e_flags`, `EI_ABIVERSION`, the
/// `.amdgcn_target` directive and `amdhsa.target` say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TargetChoice {
    /// Processor and feature settings. In V3 the settings are on or off
    /// (V3 cannot say "any").
    pub id: TargetId,
    /// Code object version.
    pub cov: CodeObjectVersion,
    /// EF_AMDGPU_GENERIC_VERSION: at least 1 for a generic processor (V6),
    /// else 0.
    pub generic_version: u8,
}

impl TargetChoice {
    /// The processor.
    pub fn target(&self) -> &'static Target {
        self.id.target
    }

    /// `e_flags`: mach, feature fields and the generic version byte.
    pub fn e_flags(&self) -> u32 {
        self.id.to_e_flags(self.cov) | u32::from(self.generic_version) << 24
    }

    /// The target ID as `.amdgcn_target` and `amdhsa.target` spell it:
    /// `amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-` (V4+), or LLVM 14's
    /// `amdgcn-amd-amdhsa--gfx906+xnack+sram-ecc` for V3.
    pub fn target_id_string(&self) -> String {
        if self.cov == CodeObjectVersion::V3 {
            format!("{}{}", targets::TRIPLE_PREFIX, self.id.to_v3_string())
        } else {
            self.id.to_full_string()
        }
    }

    /// The `-mattr` features that select these settings in LLVM
    /// (`+xnack,-sramecc`); empty when every setting is "any".
    pub fn mattr(&self) -> String {
        let mut parts = Vec::new();
        for (name, s) in [("xnack", self.id.xnack), ("sramecc", self.id.sramecc)] {
            match s {
                FeatureSetting::On => parts.push(format!("+{name}")),
                FeatureSetting::Off => parts.push(format!("-{name}")),
                FeatureSetting::Any | FeatureSetting::Unsupported => {}
            }
        }
        parts.join(",")
    }

    /// True if XNACK replay may be on: the XNACK_MASK SGPRs are then
    /// reserved on GFX8-9 (LLVM's default for `.amdhsa_reserve_xnack_mask`,
    /// which must match the target ID).
    pub fn xnack_enabled(&self) -> bool {
        matches!(self.id.xnack, FeatureSetting::On | FeatureSetting::Any)
    }
}

fn arbitrary_setting(
    u: &mut Unstructured<'_>,
    supported: bool,
    cov: CodeObjectVersion,
) -> arbitrary::Result<FeatureSetting> {
    Ok(if !supported {
        FeatureSetting::Unsupported
    } else if cov <= CodeObjectVersion::V3 {
        // V2 and V3 have one bit per feature: on or off.
        *u.choose(&[FeatureSetting::On, FeatureSetting::Off])?
    } else {
        *u.choose(&[FeatureSetting::Any, FeatureSetting::Off, FeatureSetting::On])?
    })
}

/// Draws a target: a processor and version from `cfg` (processor first, so
/// each processor is equally likely whatever versions it allows), feature
/// settings, and the generic version. Fails only if `cfg` allows no pair.
pub fn arbitrary_target(u: &mut Unstructured<'_>, cfg: &Config) -> arbitrary::Result<TargetChoice> {
    arbitrary_target_in(u, cfg, &allowed_pairs(cfg))
}

/// [`arbitrary_target`] with the pairs of [`allowed_pairs`] computed once
/// by the caller (they are the same for every case of a configuration).
pub fn arbitrary_target_in(
    u: &mut Unstructured<'_>,
    cfg: &Config,
    pairs: &[(&'static Target, CodeObjectVersion)],
) -> arbitrary::Result<TargetChoice> {
    // The same draws as choosing from the deduplicated processor list and
    // then from that processor's versions, without collecting either list
    // (this runs once per generated object).
    let run_starts = || {
        pairs
            .iter()
            .enumerate()
            .filter(|&(i, p)| i == 0 || pairs.get(i - 1).is_none_or(|q| q.0 != p.0))
            .map(|(_, p)| p.0)
    };
    let n_procs = run_starts().count();
    if n_procs == 0 {
        return Err(arbitrary::Error::IncorrectFormat);
    }
    let t = run_starts()
        .nth(u.choose_index(n_procs)?)
        .ok_or(arbitrary::Error::IncorrectFormat)?;
    let covs = || pairs.iter().filter(|p| p.0 == t).map(|p| p.1);
    let cov = covs()
        .nth(u.choose_index(covs().count())?)
        .ok_or(arbitrary::Error::IncorrectFormat)?;
    let xnack = if cov == CodeObjectVersion::V2 {
        crate::v2::arbitrary_xnack(u, t)?
    } else {
        arbitrary_setting(u, t.xnack, cov)?
    };
    let sramecc = arbitrary_setting(u, t.sramecc, cov)?;
    let id = TargetId::new(t, xnack, sramecc).map_err(|_| arbitrary::Error::IncorrectFormat)?;
    let generic_version = if t.is_generic {
        let max = if cfg.rebuildable_only {
            1
        } else {
            cfg.max_generic_version.max(1)
        };
        u.int_in_range(1..=max)?
    } else {
        0
    };
    Ok(TargetChoice {
        id,
        cov,
        generic_version,
    })
}

/// Groups of processors whose initial register state follows the same
/// rules: which user SGPRs exist, whether the private segment wave offset
/// SGPR exists, kernarg preload, work-item ID packing, wave32 and the
/// GFX11 user SGPR padding. The SGPR suite enumerates each family on its
/// representative processor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Family {
    /// GFX6: no flat scratch init SGPRs.
    Gfx6,
    /// GFX7.
    Gfx7,
    /// GFX8.
    Gfx8,
    /// GFX9 before gfx90a (separate work-item ID VGPRs).
    Gfx9,
    /// gfx90a: kernarg preload, packed work-item IDs.
    Gfx90a,
    /// gfx94x, gfx950: kernarg preload and architected flat scratch.
    Gfx94,
    /// GFX10: wave32.
    Gfx10,
    /// GFX11 with the user SGPR init bug (gfx1100, gfx1102, gfx11-generic).
    Gfx11InitBug,
    /// Other GFX11 processors.
    Gfx11,
    /// GFX12 before GFX12.5.
    Gfx12,
    /// GFX12.5 (gfx1250, gfx1251): up to 32 user SGPRs with kernarg
    /// preload, wave32 only.
    Gfx125,
}

impl Family {
    /// Every family, oldest first.
    pub const ALL: [Family; 11] = [
        Family::Gfx6,
        Family::Gfx7,
        Family::Gfx8,
        Family::Gfx9,
        Family::Gfx90a,
        Family::Gfx94,
        Family::Gfx10,
        Family::Gfx11InitBug,
        Family::Gfx11,
        Family::Gfx12,
        Family::Gfx125,
    ];

    /// The family of `t` (`None` for r600-era processors).
    pub fn of(t: &Target) -> Option<Family> {
        Some(match t.generation {
            Generation::R600 => return None,
            Generation::Gfx6 => Family::Gfx6,
            Generation::Gfx7 => Family::Gfx7,
            Generation::Gfx8 => Family::Gfx8,
            Generation::Gfx9 if t.architected_flat_scratch => Family::Gfx94,
            Generation::Gfx9 if t.kernarg_preload => Family::Gfx90a,
            Generation::Gfx9 => Family::Gfx9,
            Generation::Gfx10 => Family::Gfx10,
            Generation::Gfx11 if t.user_sgpr_init16_bug => Family::Gfx11InitBug,
            Generation::Gfx11 => Family::Gfx11,
            Generation::Gfx12 if t.is_gfx12_5() => Family::Gfx125,
            Generation::Gfx12 => Family::Gfx12,
        })
    }

    /// The processor the SGPR suite uses for this family: one LLVM 19
    /// knows, so the suite's objects can be checked against it, except for
    /// GFX12.5, which only LLVM 21 and later know.
    pub fn representative(self) -> &'static Target {
        let name = match self {
            Family::Gfx6 => "gfx600",
            Family::Gfx7 => "gfx700",
            Family::Gfx8 => "gfx803",
            Family::Gfx9 => "gfx900",
            Family::Gfx90a => "gfx90a",
            Family::Gfx94 => "gfx942",
            Family::Gfx10 => "gfx1030",
            Family::Gfx11InitBug => "gfx1100",
            Family::Gfx11 => "gfx1151",
            Family::Gfx12 => "gfx1200",
            Family::Gfx125 => "gfx1250",
        };
        targets::by_name(name).unwrap_or(&targets::TARGETS[0])
    }

    /// Lower-case name (`gfx90a`, `gfx11-init-bug`).
    pub fn name(self) -> &'static str {
        match self {
            Family::Gfx6 => "gfx6",
            Family::Gfx7 => "gfx7",
            Family::Gfx8 => "gfx8",
            Family::Gfx9 => "gfx9",
            Family::Gfx90a => "gfx90a",
            Family::Gfx94 => "gfx94",
            Family::Gfx10 => "gfx10",
            Family::Gfx11InitBug => "gfx11-init-bug",
            Family::Gfx11 => "gfx11",
            Family::Gfx12 => "gfx12",
            Family::Gfx125 => "gfx125",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_cover_every_hsa_target() {
        for t in targets::hsa_targets() {
            let f = Family::of(t).expect("amdgcn targets have a family");
            let r = f.representative();
            assert_eq!(Family::of(r), Some(f), "{}", t.name);
            assert_eq!(
                r.architected_flat_scratch, t.architected_flat_scratch,
                "{}",
                t.name
            );
            assert_eq!(r.kernarg_preload, t.kernarg_preload, "{}", t.name);
            assert_eq!(r.work_item_ids, t.work_item_ids, "{}", t.name);
            assert_eq!(r.wave32, t.wave32, "{}", t.name);
            assert_eq!(r.wave64, t.wave64, "{}", t.name);
            assert_eq!(r.max_user_sgprs, t.max_user_sgprs, "{}", t.name);
            assert_eq!(r.user_sgpr_init16_bug, t.user_sgpr_init16_bug, "{}", t.name);
            assert!(r.llvm19() || f == Family::Gfx125, "{}", r.name);
            assert!(r.known_to_llvm(22), "{}", r.name);
        }
        for t in LLVM14_TARGETS {
            assert!(targets::by_name(t).is_some(), "{t}");
        }
    }

    #[test]
    fn pairs_respect_generic_and_rebuildable() {
        let mut cfg = Config {
            targets: vec!["gfx9-generic".into(), "gfx950".into(), "gfx1100".into()],
            ..Config::default()
        };
        let names = |cfg: &Config| -> Vec<(String, u8)> {
            allowed_pairs(cfg)
                .into_iter()
                .map(|(t, c)| (t.name.to_owned(), c.number()))
                .collect()
        };
        let all = names(&cfg);
        assert!(all.contains(&("gfx9-generic".into(), 6)));
        assert!(!all.contains(&("gfx9-generic".into(), 5)));
        assert!(all.contains(&("gfx950".into(), 3)));
        cfg.rebuildable_only = true;
        let rb = names(&cfg);
        assert_eq!(
            rb,
            [
                ("gfx9-generic".to_owned(), 6),
                ("gfx1100".to_owned(), 4),
                ("gfx1100".to_owned(), 5),
                ("gfx1100".to_owned(), 6)
            ]
        );
    }

    #[test]
    fn e_flags_and_strings() {
        let t = targets::by_name("gfx9-generic").expect("known");
        let c = TargetChoice {
            id: TargetId::any(t),
            cov: CodeObjectVersion::V6,
            generic_version: 1,
        };
        assert_eq!(c.e_flags(), 0x0100_0151);
        assert_eq!(c.target_id_string(), "amdgcn-amd-amdhsa--gfx9-generic");
        let t = targets::by_name("gfx906").expect("known");
        let c = TargetChoice {
            id: TargetId::new(t, FeatureSetting::On, FeatureSetting::Off).expect("valid"),
            cov: CodeObjectVersion::V3,
            generic_version: 0,
        };
        assert_eq!(c.e_flags(), 0x12f);
        assert_eq!(c.target_id_string(), "amdgcn-amd-amdhsa--gfx906+xnack");
        assert_eq!(c.mattr(), "+xnack,-sramecc");
    }
}
