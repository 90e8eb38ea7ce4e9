//! The enable bits that select a wave's initial registers, drawn at random
//! or enumerated exhaustively (the SGPR suite), and the layout they imply.
//!
//! [`Enables`] holds the kernel descriptor bits of "Initial Kernel
//! Execution State" (amdgpu-usage.rst): the seven user SGPR enables of
//! kernel_code_properties, the kernarg preload length and offset, the
//! system SGPR enables and ENABLE_VGPR_WORKITEM_ID of compute_pgm_rsrc2,
//! and the wave size. [`Enables::layout`] predicts the initial SGPRs and
//! VGPRs from the documents, independently of the oracle's `sgpr` module,
//! so that the suite's tests compare two implementations.
//!
//! USER_SGPR_COUNT is what LLVM writes: the user SGPRs the enables and the
//! preload imply, raised on processors with the GFX11 user SGPR init bug in
//! wave32 until user plus work-group SGPRs reach 16 (LLVM
//! `SIISelLowering.cpp` allocateSystemSGPRs; clang-19 writes 13 for a
//! gfx1100 kernel with the kernarg pointer and three work-group IDs).

use crate::config::Config;
use crate::kd::field_max;
use crate::target::Family;
use arbitrary::Unstructured;
use hsaco_oracle::layout as l;
use hsaco_oracle::sgpr::{InitialState, SgprSlot, VgprSlot};
use hsaco_oracle::targets::{Generation, Target, WorkItemIdLayout};
use serde::Serialize;

/// User plus work-group SGPRs that LLVM pads USER_SGPR_COUNT to in wave32
/// on processors with the GFX11 user SGPR init bug.
const INIT16_BUG_SGPRS: u16 = 16;

/// The most user SGPRs the hardware initialises on `target` (16; 32 on
/// GFX12.5), from the targets table.
pub fn max_user_sgprs(target: &Target) -> u16 {
    u16::from(target.max_user_sgprs)
}

/// The wave sizes `target` has, as values of [`Enables::wave32`]: wave64
/// first.
pub fn wave_sizes(target: &Target) -> &'static [bool] {
    match (target.wave64, target.wave32) {
        (true, true) => &[false, true],
        (false, true) => &[true],
        _ => &[false],
    }
}

/// The user SGPR enables in load order: name, kernel_code_properties bit,
/// SGPR count.
pub const USER_SGPRS: [(&str, u16, u16); 7] = [
    ("private_segment_buffer", 0, 4),
    ("dispatch_ptr", 1, 2),
    ("queue_ptr", 2, 2),
    ("kernarg_segment_ptr", 3, 2),
    ("dispatch_id", 4, 2),
    ("flat_scratch_init", 5, 2),
    ("private_segment_size", 6, 1),
];

/// Which initial registers a kernel asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct Enables {
    /// kernel_code_properties bits 0-6, one bit per entry of [`USER_SGPRS`].
    pub user: u8,
    /// KERNARG_PRELOAD_SPEC_LENGTH: kernarg dwords preloaded into SGPRs.
    pub preload_length: u8,
    /// KERNARG_PRELOAD_SPEC_OFFSET: first preloaded kernarg dword.
    pub preload_offset: u16,
    /// rsrc2 ENABLE_PRIVATE_SEGMENT (bit 0).
    pub private_segment: bool,
    /// rsrc2 ENABLE_SGPR_WORKGROUP_ID_X/Y/Z (bits 7-9) as bits 0-2.
    pub workgroup_ids: u8,
    /// rsrc2 ENABLE_SGPR_WORKGROUP_INFO (bit 10).
    pub workgroup_info: bool,
    /// rsrc2 ENABLE_VGPR_WORKITEM_ID: 0 X, 1 X Y, 2 X Y Z.
    pub workitem_id: u8,
    /// kernel_code_properties ENABLE_WAVEFRONT_SIZE32.
    pub wave32: bool,
}

/// The user SGPR enables `target` has, as a kernel_code_properties mask:
/// no private segment buffer or flat scratch init with architected flat
/// scratch, no flat scratch init on GFX6 (the oracle's
/// `sgpr.*.unsupported` rules; LLVM's assembler rejects the directives).
pub fn supported_user_mask(target: &Target) -> u8 {
    let buffer = l::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER.mask();
    let flat_scratch_init = l::ENABLE_SGPR_FLAT_SCRATCH_INIT.mask();
    let mut m = l::USER_SGPR_ENABLES.iter().fold(0, |m, f| m | f.mask());
    if target.architected_flat_scratch {
        m &= !(buffer | flat_scratch_init);
    }
    if target.generation <= Generation::Gfx6 {
        m &= !flat_scratch_init;
    }
    // The enables are kernel_code_properties bits 0-6.
    m as u8
}

impl Enables {
    /// True if user SGPR enable `bit` (0-6) is set.
    pub fn user_bit(&self, bit: u16) -> bool {
        self.user >> bit & 1 != 0
    }

    /// User SGPRs the enables select (without preloaded arguments).
    pub fn enabled_user_sgprs(&self) -> u16 {
        USER_SGPRS
            .iter()
            .filter(|(_, b, _)| self.user_bit(*b))
            .map(|(_, _, n)| n)
            .sum()
    }

    /// User SGPRs implied by the enables and the preload (what LLVM's
    /// assembler derives when `.amdhsa_user_sgpr_count` is absent).
    pub fn implied_user_sgprs(&self, target: &Target) -> u16 {
        let preload = if target.kernarg_preload {
            u16::from(self.preload_length)
        } else {
            0
        };
        self.enabled_user_sgprs() + preload
    }

    /// Work-group ID and info SGPRs (the ones the GFX11 padding counts).
    pub fn workgroup_sgprs(&self) -> u16 {
        self.workgroup_ids.count_ones() as u16 + u16::from(self.workgroup_info)
    }

    /// System SGPRs: work-group IDs and info, and the private segment wave
    /// offset where the target has no architected flat scratch.
    pub fn system_sgprs(&self, target: &Target) -> u16 {
        self.workgroup_sgprs() + u16::from(self.private_segment && !target.architected_flat_scratch)
    }

    /// True if the wave runs in wave32 on `target`.
    pub fn is_wave32(&self, target: &Target) -> bool {
        self.wave32 && target.generation >= Generation::Gfx10
    }

    /// The USER_SGPR_COUNT LLVM writes: the implied count, padded on
    /// processors with the user SGPR init bug in wave32 so that user plus
    /// work-group SGPRs reach 16.
    pub fn user_sgpr_count(&self, target: &Target) -> u16 {
        let implied = self.implied_user_sgprs(target);
        if target.user_sgpr_init16_bug && self.is_wave32(target) {
            implied.max(INIT16_BUG_SGPRS.saturating_sub(self.workgroup_sgprs()))
        } else {
            implied
        }
    }

    /// Initial SGPRs in total: USER_SGPR_COUNT plus the system SGPRs.
    pub fn total_sgprs(&self, target: &Target) -> u16 {
        self.user_sgpr_count(target) + self.system_sgprs(target)
    }

    /// VGPRs the work-item IDs occupy (one when packed).
    pub fn workitem_vgprs(&self, target: &Target) -> u16 {
        match target.work_item_ids {
            WorkItemIdLayout::Packed => 1,
            WorkItemIdLayout::Separate => u16::from(self.workitem_id.min(2)) + 1,
        }
    }

    /// kernel_code_properties bits the enables set (user SGPRs and wave32).
    pub fn properties(&self, target: &Target) -> u16 {
        let mut p = 0;
        for (k, f) in l::USER_SGPR_ENABLES.iter().enumerate() {
            p = f.set(p, u32::from(self.user >> k & 1));
        }
        p = l::ENABLE_WAVEFRONT_SIZE32.set(p, u32::from(self.is_wave32(target)));
        u16::try_from(p).unwrap_or(u16::MAX)
    }

    /// compute_pgm_rsrc2 bits the enables set, USER_SGPR_COUNT included.
    pub fn rsrc2(&self, target: &Target) -> u32 {
        let mut r = l::ENABLE_PRIVATE_SEGMENT.set(0, u32::from(self.private_segment));
        r = l::user_sgpr_count_field(target).set(r, u32::from(self.user_sgpr_count(target)));
        for (k, f) in l::WORKGROUP_IDS.iter().enumerate() {
            r = f.set(r, u32::from(self.workgroup_ids >> k & 1));
        }
        r = l::ENABLE_SGPR_WORKGROUP_INFO.set(r, u32::from(self.workgroup_info));
        l::ENABLE_VGPR_WORKITEM_ID.set(r, u32::from(self.workitem_id.min(2)))
    }

    /// The kernarg_preload field.
    pub fn kernarg_preload(&self) -> u16 {
        let p = l::KERNARG_PRELOAD_SPEC_LENGTH.set(0, self.preload_length.into());
        let p = l::KERNARG_PRELOAD_SPEC_OFFSET.set(p, self.preload_offset.into());
        p as u16
    }

    /// The enable sets one step smaller than this one, for reducing a
    /// hardware difference to the fewest enables that still show it: each
    /// user SGPR enable cleared, the preload one dword shorter, the
    /// private segment off, each work-group ID cleared, work-group info
    /// off, one work-item ID dimension fewer, and wave64 for wave32. Each
    /// is a [`suite`] entry when this one is.
    pub fn smaller(&self) -> Vec<Enables> {
        let mut out = Vec::new();
        for bit in 0..7 {
            if self.user_bit(bit) {
                out.push(Enables {
                    user: self.user & !(1 << bit),
                    ..*self
                });
            }
        }
        if self.preload_length > 0 {
            out.push(Enables {
                preload_length: self.preload_length - 1,
                ..*self
            });
        }
        if self.private_segment {
            out.push(Enables {
                private_segment: false,
                ..*self
            });
        }
        for bit in 0..3 {
            if self.workgroup_ids >> bit & 1 != 0 {
                out.push(Enables {
                    workgroup_ids: self.workgroup_ids & !(1 << bit),
                    ..*self
                });
            }
        }
        if self.workgroup_info {
            out.push(Enables {
                workgroup_info: false,
                ..*self
            });
        }
        if self.workitem_id > 0 {
            out.push(Enables {
                workitem_id: self.workitem_id - 1,
                ..*self
            });
        }
        if self.wave32 {
            out.push(Enables {
                wave32: false,
                ..*self
            });
        }
        out
    }

    /// The initial register state, computed from the documents
    /// (amdgpu-usage.rst "Initial Kernel Execution State"): user SGPRs
    /// dense from s0 in enable order, then the preloaded arguments, then
    /// any padding up to USER_SGPR_COUNT, then the system SGPRs; work-item
    /// IDs in v0..v2 or packed in v0 (10 bits each).
    pub fn layout(&self, target: &Target) -> InitialState {
        let mut sgprs = Vec::new();
        let mut next = 0u16;
        for (name, bit, n) in USER_SGPRS {
            if self.user_bit(bit) {
                sgprs.push(SgprSlot {
                    name,
                    first: next,
                    count: n,
                    user: true,
                });
                next += n;
            }
        }
        let implied = self.implied_user_sgprs(target);
        if implied > next {
            sgprs.push(SgprSlot {
                name: "kernarg_preload",
                first: next,
                count: implied - next,
                user: true,
            });
        }
        let declared = self.user_sgpr_count(target);
        if declared > implied {
            sgprs.push(SgprSlot {
                name: "reserved_user_sgprs",
                first: implied,
                count: declared - implied,
                user: true,
            });
        }
        let mut sys = declared;
        let system = [
            ("workgroup_id_x", self.workgroup_ids & 1 != 0),
            ("workgroup_id_y", self.workgroup_ids & 2 != 0),
            ("workgroup_id_z", self.workgroup_ids & 4 != 0),
            ("workgroup_info", self.workgroup_info),
            (
                "private_segment_wave_byte_offset",
                self.private_segment && !target.architected_flat_scratch,
            ),
        ];
        for (name, on) in system {
            if on {
                sgprs.push(SgprSlot {
                    name,
                    first: sys,
                    count: 1,
                    user: false,
                });
                sys += 1;
            }
        }
        let names = ["workitem_id_x", "workitem_id_y", "workitem_id_z"];
        let vgprs = (0..=usize::from(self.workitem_id.min(2)))
            .map(|i| match target.work_item_ids {
                WorkItemIdLayout::Separate => VgprSlot {
                    name: names[i],
                    vgpr: i as u16,
                    lsb: 0,
                    width: 32,
                },
                WorkItemIdLayout::Packed => VgprSlot {
                    name: names[i],
                    vgpr: 0,
                    lsb: (i * 10) as u8,
                    width: 10,
                },
            })
            .collect();
        InitialState {
            user_sgpr_count: implied,
            declared_user_sgpr_count: declared,
            system_sgpr_count: self.system_sgprs(target),
            sgprs,
            vgprs,
            wave32: self.is_wave32(target),
        }
    }
}

/// The wave sizes `cfg` allows on `target`: `[false]` (wave64) before
/// GFX10, `[true]` on GFX12.5 (wave32 only); elsewhere wave32 and/or
/// wave64 as configured (wave64 if the configuration allows neither).
pub fn wave32_choices(cfg: &Config, target: &Target) -> Vec<bool> {
    let mut v = Vec::new();
    if target.wave64 && (cfg.wave64 || !(cfg.wave32 && target.wave32)) {
        v.push(false);
    }
    if target.wave32 && (cfg.wave32 || !target.wave64) {
        v.push(true);
    }
    v
}

/// Draws enable bits for a kernel on `target` whose kernarg segment is
/// `kernarg_size` bytes: only enables `cfg` allows and `target` has, at
/// most the target's user SGPRs (16; 32 on GFX12.5), and a preload inside the kernarg segment (only if
/// `preload_ok`: LLVM 14, the V3 assembler, cannot preload).
pub fn arbitrary_enables(
    u: &mut Unstructured<'_>,
    cfg: &Config,
    target: &Target,
    kernarg_size: u32,
    preload_ok: bool,
) -> arbitrary::Result<Enables> {
    let allowed_user = supported_user_mask(target)
        & [
            cfg.user_sgpr_private_segment_buffer,
            cfg.user_sgpr_dispatch_ptr,
            cfg.user_sgpr_queue_ptr,
            cfg.user_sgpr_kernarg_segment_ptr,
            cfg.user_sgpr_dispatch_id,
            cfg.user_sgpr_flat_scratch_init,
            cfg.user_sgpr_private_segment_size,
        ]
        .iter()
        .enumerate()
        .fold(0u8, |m, (i, &on)| m | u8::from(on) << i);
    let mut e = Enables {
        user: u.arbitrary::<u8>()? & allowed_user,
        ..Enables::default()
    };
    let dwords = kernarg_size / 4;
    if preload_ok
        && target.kernarg_preload
        && cfg.kernarg_preload
        && dwords > 0
        && u.arbitrary::<bool>()?
    {
        let room = max_user_sgprs(target) - e.enabled_user_sgprs();
        let max_len = u32::from(room)
            .min(dwords)
            .min(field_max(&l::KERNARG_PRELOAD_SPEC_LENGTH));
        let len = u.int_in_range(1..=max_len)?;
        let max_off = (dwords - len).min(field_max(&l::KERNARG_PRELOAD_SPEC_OFFSET));
        // LLVM preloads from the first argument; other offsets are valid
        // descriptors too.
        let off = if u.ratio(1u8, 4)? {
            u.int_in_range(0..=max_off)?
        } else {
            0
        };
        e.preload_length = len as u8;
        e.preload_offset = off as u16;
    }
    e.private_segment = cfg.private_segment && u.arbitrary()?;
    e.workgroup_ids = if cfg.workgroup_ids {
        u.int_in_range(0..=7)?
    } else {
        0
    };
    e.workgroup_info = cfg.workgroup_info && u.arbitrary()?;
    e.workitem_id = u.int_in_range(0..=cfg.max_workitem_id.min(2))?;
    e.wave32 = *u.choose(&wave32_choices(cfg, target))?;
    Ok(e)
}

/// One entry of the SGPR suite: a family, its representative processor,
/// enable bits, and the layout they imply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SuiteEntry {
    /// The family enumerated.
    pub family: Family,
    /// The processor the entry is built for.
    #[serde(serialize_with = "ser_target")]
    pub target: &'static Target,
    /// The enable bits.
    pub enables: Enables,
    /// The initial state they imply ([`Enables::layout`]).
    pub layout: InitialState,
}

fn ser_target<S: serde::Serializer>(t: &&'static Target, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(t.name)
}

/// Every enable combination of `family`, in a fixed order: each subset of
/// the user SGPR enables the family has; each preload length that keeps
/// the user SGPRs within the target's limit (16, 32 on GFX12.5; families
/// with kernarg preload; offset 0); private segment off and on; each of the
/// eight work-group ID subsets; work-group info off and on;
/// ENABLE_VGPR_WORKITEM_ID 0, 1, 2; and each wave size the family has.
pub fn suite(family: Family) -> impl Iterator<Item = SuiteEntry> {
    let target = family.representative();
    let mask = supported_user_mask(target);
    let waves = wave_sizes(target);
    (0u8..=0x7f)
        .filter(move |u| u & !mask == 0)
        .flat_map(move |user| {
            let base = Enables {
                user,
                ..Enables::default()
            };
            let max_len = if target.kernarg_preload {
                max_user_sgprs(target) - base.enabled_user_sgprs()
            } else {
                0
            };
            (0..=max_len).map(move |len| Enables {
                preload_length: len as u8,
                ..base
            })
        })
        .flat_map(|e| {
            [false, true].into_iter().map(move |p| Enables {
                private_segment: p,
                ..e
            })
        })
        .flat_map(|e| {
            (0u8..8).map(move |w| Enables {
                workgroup_ids: w,
                ..e
            })
        })
        .flat_map(|e| {
            [false, true].into_iter().map(move |i| Enables {
                workgroup_info: i,
                ..e
            })
        })
        .flat_map(|e| {
            (0u8..=2).map(move |v| Enables {
                workitem_id: v,
                ..e
            })
        })
        .flat_map(move |e| waves.iter().map(move |&w| Enables { wave32: w, ..e }))
        .map(move |enables| SuiteEntry {
            family,
            target,
            layout: enables.layout(target),
            enables,
        })
}

/// The position of `enables` in [`suite`]`(family)`, if it is an entry.
pub fn suite_index(family: Family, enables: &Enables) -> Option<usize> {
    suite(family).position(|e| e.enables == *enables)
}

/// The number of entries [`suite`] yields for `family`, by formula: the
/// user SGPR subsets (each with its preload lengths) times 2 (private
/// segment) times 8 (work-group IDs) times 2 (info) times 3 (work-item IDs)
/// times the wave sizes.
pub fn suite_len(family: Family) -> usize {
    let target = family.representative();
    let mask = supported_user_mask(target);
    let subsets: usize = (0u8..=0x7f)
        .filter(|u| u & !mask == 0)
        .map(|user| {
            if target.kernarg_preload {
                let e = Enables {
                    user,
                    ..Enables::default()
                };
                usize::from(max_user_sgprs(target) - e.enabled_user_sgprs()) + 1
            } else {
                1
            }
        })
        .sum();
    subsets * 2 * 8 * 2 * 3 * wave_sizes(target).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsaco_oracle::targets::by_name;

    fn t(n: &str) -> &'static Target {
        by_name(n).unwrap_or_else(|| panic!("{n}"))
    }

    #[test]
    fn smaller_enables_are_suite_entries_one_step_down() {
        for family in [Family::Gfx90a, Family::Gfx11InitBug] {
            let last = suite(family).last().unwrap();
            let smaller = last.enables.smaller();
            assert!(!smaller.is_empty());
            for e in smaller {
                assert!(suite_index(family, &e).is_some(), "{family:?} {e:?}");
                assert_ne!(e, last.enables);
            }
        }
        assert!(Enables::default().smaller().is_empty());
    }

    #[test]
    fn counts_match_known_values() {
        // gfx900: 128 user subsets, no preload, wave64 only.
        assert_eq!(suite_len(Family::Gfx9), 128 * 96);
        // gfx600: no flat scratch init: 64 subsets.
        assert_eq!(suite_len(Family::Gfx6), 64 * 96);
        // gfx1100: architected flat scratch (32 subsets), two wave sizes.
        assert_eq!(suite_len(Family::Gfx11InitBug), 32 * 96 * 2);
        for f in Family::ALL {
            assert_eq!(suite(f).count(), suite_len(f), "{f:?}");
        }
    }

    #[test]
    fn gfx1100_padding_like_clang() {
        // clang-19 gfx1100 "ids3": kernarg pointer and three work-group IDs
        // in wave32 give USER_SGPR_COUNT 13 (rsrc2 0x139a).
        let e = Enables {
            user: 1 << 3,
            workgroup_ids: 7,
            workitem_id: 2,
            wave32: true,
            ..Enables::default()
        };
        let g = t("gfx1100");
        assert_eq!(e.user_sgpr_count(g), 13);
        assert_eq!(e.rsrc2(g), 0x139a);
        assert_eq!(e.properties(g), 0x408);
        // Wave64 and processors without the bug are not padded.
        assert_eq!(Enables { wave32: false, ..e }.user_sgpr_count(g), 2);
        assert_eq!(e.user_sgpr_count(t("gfx1151")), 2);
    }

    #[test]
    fn gfx900_all_inputs_like_clang() {
        // clang-19 gfx900 "extcall": properties 0x3b, rsrc2 0x1399.
        let e = Enables {
            user: 0x3b,
            private_segment: true,
            workgroup_ids: 7,
            workitem_id: 2,
            ..Enables::default()
        };
        let g = t("gfx900");
        assert_eq!(e.rsrc2(g), 0x1399);
        assert_eq!(e.total_sgprs(g), 16);
        let l = e.layout(g);
        assert_eq!(
            l.sgpr("private_segment_wave_byte_offset").map(|s| s.first),
            Some(15)
        );
        assert_eq!(l.vgprs.len(), 3);
    }

    #[test]
    fn preload_is_counted_and_laid_out() {
        let g = t("gfx90a");
        let e = Enables {
            user: 0x9,
            preload_length: 9,
            ..Enables::default()
        };
        assert_eq!(e.implied_user_sgprs(g), 15);
        let l = e.layout(g);
        assert_eq!(
            l.sgpr("kernarg_preload").map(|s| (s.first, s.count)),
            Some((6, 9))
        );
        // Processors without preload ignore the field.
        assert_eq!(e.implied_user_sgprs(t("gfx900")), 6);
        assert_eq!(
            Enables {
                preload_length: 3,
                preload_offset: 2,
                ..Enables::default()
            }
            .kernarg_preload(),
            3 | 2 << 7
        );
    }

    #[test]
    fn user_masks() {
        assert_eq!(supported_user_mask(t("gfx900")), 0x7f);
        assert_eq!(supported_user_mask(t("gfx600")), 0x5f);
        assert_eq!(supported_user_mask(t("gfx942")), 0x5e);
        assert_eq!(supported_user_mask(t("gfx1200")), 0x5e);
    }

    #[test]
    fn wave_choices() {
        let mut cfg = Config::default();
        assert_eq!(wave32_choices(&cfg, t("gfx900")), [false]);
        assert_eq!(wave32_choices(&cfg, t("gfx1030")), [false, true]);
        cfg.wave64 = false;
        assert_eq!(wave32_choices(&cfg, t("gfx1030")), [true]);
        assert_eq!(wave32_choices(&cfg, t("gfx900")), [false]);
        cfg.wave32 = false;
        assert_eq!(wave32_choices(&cfg, t("gfx1030")), [false]);
    }
}
