//! Processors (targets) the AMDGPU ABI knows, their features and limits,
//! and target ID strings.
//!
//! One table, [`TARGETS`], holds every processor LLVM knows today: its
//! `EF_AMDGPU_MACH` value, generation, supported features and register
//! limits; [`RETIRED`] holds, in the same form, the processors LLVM once
//! built and later removed (gfx940, gfx941: LLVM 19 builds them and ROCm
//! 6.1 ships objects for them). Every processor records the LLVM releases
//! that know its name. Everything else in the oracle asks these tables
//! (through [`by_mach`] and [`by_name`]) instead of hard-coding processor
//! lists.
//!
//! Sources: amdgpu-usage.rst "Processors" and "EF_AMDGPU_MACH values";
//! NOTES.md "ELF header"; LLVM `llvm/include/llvm/BinaryFormat/ELF.h`,
//! `llvm/docs/AMDGPUUsage.rst`, `llvm/lib/Target/AMDGPU/GCNProcessors.td`,
//! `llvm/lib/Target/AMDGPU/AMDGPU.td`,
//! `llvm/lib/TargetParser/TargetParser.cpp`,
//! `llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp`. Every value LLVM 19
//! can show is also checked against `clang-19`/`llvm-mc-19`, and the
//! processor lists, mach values and feature support against every
//! installed LLVM (14, 15, 16, 19, 22), by `tests/targets_llvm.rs`.
//!
//! Target IDs come in two spellings:
//!
//! - code object V4 and later: `gfx90a:sramecc+:xnack-` — each feature
//!   `:name+` (on) or `:name-` (off), sorted by name; an absent feature is
//!   "any" (the code runs with the feature on or off);
//! - code object V3 (LLVM up to 14): `gfx906+xnack+sram-ecc` — an enabled
//!   feature is listed, an absent one is off. LLVM writes `+xnack` before
//!   `+sram-ecc` (note the hyphen); "any" is written as on.
//!
//! Either may carry the triple prefix `amdgcn-amd-amdhsa--`.

use serde::Serialize;
use std::fmt;

mod id;

pub use id::{EFlagsError, TargetId, TargetIdError, TRIPLE_PREFIX};

/// Code object version, as selected by `EI_ABIVERSION` for the HSA OS ABI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum CodeObjectVersion {
    /// `EI_ABIVERSION` 0: `amd_kernel_code_t`, "AMD" notes, YAML metadata.
    V2,
    /// `EI_ABIVERSION` 1: 64-byte descriptor, MessagePack metadata [1,0].
    V3,
    /// `EI_ABIVERSION` 2: 2-bit feature fields in `e_flags`, metadata [1,1].
    V4,
    /// `EI_ABIVERSION` 3: hidden arguments, dynamic stack, metadata [1,2].
    V5,
    /// `EI_ABIVERSION` 4: generic targets with a generic version.
    V6,
}

impl CodeObjectVersion {
    /// Every version, oldest first.
    pub const ALL: [CodeObjectVersion; 5] = [Self::V2, Self::V3, Self::V4, Self::V5, Self::V6];

    /// Maps `EI_ABIVERSION` (with `EI_OSABI` = HSA) to a version.
    pub fn from_abi_version(v: u8) -> Option<Self> {
        Some(match v {
            0 => Self::V2,
            1 => Self::V3,
            2 => Self::V4,
            3 => Self::V5,
            4 => Self::V6,
            _ => return None,
        })
    }

    /// The `EI_ABIVERSION` byte for this version.
    pub fn abi_version(self) -> u8 {
        self as u8
    }

    /// The version number (2..=6).
    pub fn number(self) -> u8 {
        self as u8 + 2
    }

    /// The `amdhsa.version` metadata value LLVM writes for this version
    /// (none for V2, which uses YAML with its own `Version` key).
    pub fn metadata_version(self) -> Option<[u64; 2]> {
        Some(match self {
            Self::V2 => return None,
            Self::V3 => [1, 0],
            Self::V4 => [1, 1],
            // V6 did not bump the metadata version: a bump to [1,3] was
            // reverted in LLVM (NOTES.md "Metadata").
            Self::V5 | Self::V6 => [1, 2],
        })
    }

    /// True if `e_flags` holds the V4+ 2-bit xnack/sramecc fields (rather
    /// than the one-bit V2/V3 flags).
    pub fn has_feature_fields(self) -> bool {
        self >= Self::V4
    }

    /// The `e_flags` bits this version defines: the mach byte and the
    /// feature bits, plus the generic version byte from V6 on. Any other
    /// bit set is reserved.
    ///
    /// V2 uses the V3 layout: LLVM 14 writes the mach byte with `0x100`
    /// xnack and `0x200` sramecc for V2 exactly as for V3 (`llc-14
    /// --amdhsa-code-object-version=2 -mcpu=gfx906` gives `e_flags` 0x32f).
    /// The `EF_AMDGPU_FEATURE_XNACK_V2` (0x01) and `..._TRAP_HANDLER_V2`
    /// (0x02) constants of `ELF.h` would collide with the mach byte.
    pub fn defined_e_flags(self) -> u32 {
        match self {
            Self::V2 | Self::V3 => 0x0000_03ff,
            Self::V4 | Self::V5 => 0x0000_0fff,
            Self::V6 => 0xff00_0fff,
        }
    }
}

impl fmt::Display for CodeObjectVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "V{}", self.number())
    }
}

/// GPU generation (the major version of the ISA), ordered oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Generation {
    /// Pre-GCN (`r600` architecture): known, but not an HSA target.
    R600,
    /// GCN GFX6 (Southern Islands).
    Gfx6,
    /// GCN GFX7 (Sea Islands).
    Gfx7,
    /// GCN GFX8 (Volcanic Islands).
    Gfx8,
    /// GCN GFX9 (Vega, CDNA).
    Gfx9,
    /// RDNA 1 and 2.
    Gfx10,
    /// RDNA 3.
    Gfx11,
    /// RDNA 4.
    Gfx12,
}

impl Generation {
    /// The ISA major version (6..=12), or 0 for r600.
    pub fn major(self) -> u8 {
        match self {
            Self::R600 => 0,
            Self::Gfx6 => 6,
            Self::Gfx7 => 7,
            Self::Gfx8 => 8,
            Self::Gfx9 => 9,
            Self::Gfx10 => 10,
            Self::Gfx11 => 11,
            Self::Gfx12 => 12,
        }
    }
}

/// Support and setting of a target feature such as `xnack` or `sramecc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FeatureSetting {
    /// The processor does not have the feature.
    Unsupported,
    /// The code works with the feature on or off (target ID omits it).
    Any,
    /// The code requires the feature off (`feature-`).
    Off,
    /// The code requires the feature on (`feature+`).
    On,
}

impl FeatureSetting {
    /// Decodes a V4+ two-bit `e_flags` field (0 unsupported, 1 any, 2 off,
    /// 3 on); only the low two bits of `v` are read.
    pub fn from_field(v: u32) -> Self {
        match v & 3 {
            0 => Self::Unsupported,
            1 => Self::Any,
            2 => Self::Off,
            _ => Self::On,
        }
    }

    /// The V4+ two-bit `e_flags` field value.
    pub fn field(self) -> u32 {
        match self {
            Self::Unsupported => 0,
            Self::Any => 1,
            Self::Off => 2,
            Self::On => 3,
        }
    }

    /// True for `On` and `Any`: what V2/V3 (which cannot say "any") record
    /// as enabled.
    pub fn is_on_or_any(self) -> bool {
        matches!(self, Self::On | Self::Any)
    }
}

impl fmt::Display for FeatureSetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Unsupported => "unsupported",
            Self::Any => "any",
            Self::Off => "off",
            Self::On => "on",
        })
    }
}

/// A feature that a target ID can name. Declared in the alphabetical order
/// V4+ target IDs print them in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Feature {
    /// SRAM ECC (`sramecc`; `sram-ecc` in V2/V3 target IDs).
    Sramecc,
    /// XNACK replay (`xnack`).
    Xnack,
}

impl Feature {
    /// Both features, in target ID order.
    pub const ALL: [Feature; 2] = [Feature::Sramecc, Feature::Xnack];

    /// The V4+ spelling.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sramecc => "sramecc",
            Self::Xnack => "xnack",
        }
    }

    /// The spelling LLVM 14 wrote in V3 target IDs (`sram-ecc`).
    pub fn v3_name(self) -> &'static str {
        match self {
            Self::Sramecc => "sram-ecc",
            Self::Xnack => "xnack",
        }
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the hardware delivers work-item IDs in VGPRs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WorkItemIdLayout {
    /// X, Y and Z in VGPR0, VGPR1 and VGPR2 (as enabled).
    Separate,
    /// All in VGPR0: X bits 9:0, Y bits 19:10, Z bits 29:20.
    Packed,
}

/// One processor, as the ABI sees it.
///
/// r600-era entries (`hsa == false`) carry only their name, mach value and
/// generation: every feature flag is false and every count is 0, because
/// none of the HSA rules apply to them.
#[derive(Debug, Serialize)]
pub struct Target {
    /// LLVM processor name, e.g. `gfx90a` or `gfx9-generic`.
    pub name: &'static str,
    /// `EF_AMDGPU_MACH` value.
    pub mach: u8,
    /// Generation.
    pub generation: Generation,
    /// False for r600-era processors, which HSA code objects cannot name.
    pub hsa: bool,
    /// True if this is a generic target (`gfx9-generic`, ...), which needs
    /// code object V6 and a non-zero `EF_AMDGPU_GENERIC_VERSION`.
    pub is_generic: bool,
    /// The generic target that covers this processor, if any.
    pub generic: Option<&'static str>,
    /// Supports the `xnack` feature.
    pub xnack: bool,
    /// Supports the `sramecc` feature.
    pub sramecc: bool,
    /// Supports wave32 (GFX10+). Where both sizes exist, wave32 is what
    /// clang uses unless told `-mwavefrontsize64`.
    pub wave32: bool,
    /// Supports wave64 (every amdgcn processor but GFX12.5).
    pub wave64: bool,
    /// Has CU/WGP mode (`cumode` feature, GFX10+): rsrc1 WGP_MODE,
    /// MEM_ORDERED and FWD_PROGRESS exist.
    pub cumode: bool,
    /// Has architected flat scratch (gfx94x, gfx950, gfx9-4-generic, all
    /// of GFX11 and GFX12): the hardware sets up FLAT_SCRATCH, so the
    /// private segment buffer and flat scratch init user SGPRs do not exist
    /// (`llvm-mc-19` rejects `.amdhsa_user_sgpr_private_segment_buffer` and
    /// `.amdhsa_user_sgpr_flat_scratch_init` there, and accepts
    /// `.amdhsa_enable_private_segment` only there). On these processors
    /// rsrc2 bit 0 enables the private segment without adding a wave
    /// offset system SGPR (`clang-19 -mcpu=gfx1100` pads USER_SGPR_COUNT
    /// to 13 next to bit 0 and the three work-group ID bits).
    pub architected_flat_scratch: bool,
    /// Supports kernarg preloading into user SGPRs (gfx90a, gfx94x, gfx950,
    /// GFX12.5).
    pub kernarg_preload: bool,
    /// Has scalar stores (GFX8, GFX9, gfx1010-1013).
    pub scalar_stores: bool,
    /// Has accumulation VGPRs addressed through `compute_pgm_rsrc3`
    /// ACCUM_OFFSET (gfx90a, gfx94x, gfx950).
    pub accum_offset: bool,
    /// How work-item IDs arrive in VGPRs.
    pub work_item_ids: WorkItemIdLayout,
    /// Number of SGPRs a kernel can address, as LLVM checks
    /// `.amdhsa_next_free_sgpr`: GFX6-7 104 *including* the VCC and
    /// FLAT_SCRATCH SGPRs the kernel reserves; GFX8-9 102 *excluding* VCC,
    /// FLAT_SCRATCH and XNACK_MASK; on `sgpr_init_bug` processors 96
    /// *including* them (and LLVM then always encodes 96); GFX10+ 106
    /// (VCC is separate).
    pub addressable_sgprs: u16,
    /// Number of architectural VGPRs (v0..) a wave can address: 256 on
    /// every amdgcn processor but GFX12.5, whose wave32 waves address 1024
    /// (512 in wave64). AGPRs are not included (see
    /// [`Target::max_descriptor_vgprs`]).
    pub addressable_vgprs: u16,
    /// Granule of GRANULATED_WAVEFRONT_SGPR_COUNT: the field holds
    /// `ceil(max(1, n) / granule) - 1` for `n` SGPRs including the reserved
    /// ones. 8 on GFX6-9 (GFX9 too: `llvm-mc-19` encodes 14 SGPRs as 1).
    /// 0 on GFX10+, meaning the hardware ignores the field and any value
    /// is valid: `llvm-mc-19` writes 0 there but `clang-19` writes the
    /// granule-8 count (4 for a kernel using 38 SGPRs).
    pub sgpr_encoding_granule: u16,
    /// Granule of GRANULATED_WORKITEM_VGPR_COUNT in wave64 mode (4; 8 on
    /// the gfx90a family, where it counts arch and acc VGPRs together).
    pub vgpr_encoding_granule_wave64: u16,
    /// Granule of GRANULATED_WORKITEM_VGPR_COUNT in wave32 mode (8; 0 if
    /// the target has no wave32).
    pub vgpr_encoding_granule_wave32: u16,
    /// ISA version `[major, minor, stepping]` as LLVM's `getIsaVersion`
    /// gives it: the V2 `NT_AMD_HSA_ISA_VERSION` note and the
    /// `amd_machine_version_*` fields of `amd_kernel_code_t` hold it.
    /// All zero for r600.
    pub isa_version: [u8; 3],
    /// The first LLVM major release that knows the processor name;
    /// [`OLDEST_TRACKED_LLVM`] (14) stands for "LLVM 14 or earlier". See
    /// [`Target::known_to_llvm`].
    pub llvm_first: u8,
    /// The first LLVM major release that no longer knows the name (21 for
    /// the retired gfx940 and gfx941), `None` while current LLVM knows it.
    pub llvm_removed: Option<u8>,
    /// Has accumulation VGPRs (AGPRs, for MFMA): gfx908 (a separate file
    /// of 256) and the gfx90a family (sharing the 512-entry file with the
    /// architectural VGPRs, split by ACCUM_OFFSET).
    pub agprs: bool,
    /// Has the GFX8 SGPR initialisation bug (gfx802, gfx805): LLVM always
    /// allocates a fixed 96 SGPRs, so GRANULATED_WAVEFRONT_SGPR_COUNT is 11
    /// whatever the kernel uses.
    pub sgpr_init_bug: bool,
    /// Needs at least 16 user plus system SGPRs enabled in wave32 mode
    /// (gfx1100, gfx1102, gfx11-generic): for wave32 kernels LLVM raises
    /// USER_SGPR_COUNT so that it plus the enabled system SGPRs reach 16,
    /// so the count can exceed the user SGPRs the enable bits select
    /// (`clang-19 -mcpu=gfx1100` writes 13 where 6 are enabled, and 6 for
    /// a wave64 kernel).
    pub user_sgpr_init16_bug: bool,
    /// Most user SGPRs the hardware initialises: 16, and 32 on GFX12.5
    /// (LLVM PR 192579; `llc-22 -mcpu=gfx1250` preloads 24 kernel-argument
    /// dwords after 8 other user SGPRs). The 5-bit USER_SGPR_COUNT field
    /// could say 31 (`llvm-mc-19` accepts up to 31), GFX12.5's 6-bit one 63.
    pub max_user_sgprs: u8,
    /// Most LDS (group segment) bytes one work-group can allocate:
    /// 32 KiB on GFX6, 160 KiB on gfx950, 320 KiB on GFX12.5, 64 KiB
    /// elsewhere.
    pub lds_bytes: u32,
}

impl Target {
    /// A GCN/RDNA processor with the facts every member of `generation`
    /// shares; the builder methods below add the per-processor ones.
    /// Public so that tests elsewhere can build a `Target` without listing
    /// every field.
    pub const fn gcn(
        name: &'static str,
        mach: u8,
        generation: Generation,
        isa_version: [u8; 3],
    ) -> Target {
        let gfx10_plus = matches!(
            generation,
            Generation::Gfx10 | Generation::Gfx11 | Generation::Gfx12
        );
        let gfx11_plus = matches!(generation, Generation::Gfx11 | Generation::Gfx12);
        let gfx6_7 = matches!(generation, Generation::Gfx6 | Generation::Gfx7);
        Target {
            name,
            mach,
            generation,
            hsa: true,
            is_generic: false,
            generic: None,
            xnack: false,
            sramecc: false,
            wave32: gfx10_plus,
            wave64: true,
            cumode: gfx10_plus,
            architected_flat_scratch: gfx11_plus,
            kernarg_preload: false,
            scalar_stores: matches!(generation, Generation::Gfx8 | Generation::Gfx9),
            accum_offset: false,
            work_item_ids: if gfx11_plus {
                WorkItemIdLayout::Packed
            } else {
                WorkItemIdLayout::Separate
            },
            addressable_sgprs: if gfx10_plus {
                106
            } else if gfx6_7 {
                104
            } else {
                102
            },
            addressable_vgprs: 256,
            sgpr_encoding_granule: if gfx10_plus { 0 } else { 8 },
            vgpr_encoding_granule_wave64: 4,
            vgpr_encoding_granule_wave32: if gfx10_plus { 8 } else { 0 },
            isa_version,
            llvm_first: OLDEST_TRACKED_LLVM,
            llvm_removed: None,
            agprs: false,
            sgpr_init_bug: false,
            user_sgpr_init16_bug: false,
            max_user_sgprs: 16,
            lds_bytes: if matches!(generation, Generation::Gfx6) {
                32768
            } else {
                65536
            },
        }
    }

    /// An r600-era processor: name and mach only.
    pub const fn r600(name: &'static str, mach: u8) -> Target {
        Target {
            name,
            mach,
            generation: Generation::R600,
            hsa: false,
            is_generic: false,
            generic: None,
            xnack: false,
            sramecc: false,
            wave32: false,
            wave64: false,
            cumode: false,
            architected_flat_scratch: false,
            kernarg_preload: false,
            scalar_stores: false,
            accum_offset: false,
            work_item_ids: WorkItemIdLayout::Separate,
            addressable_sgprs: 0,
            addressable_vgprs: 0,
            sgpr_encoding_granule: 0,
            vgpr_encoding_granule_wave64: 0,
            vgpr_encoding_granule_wave32: 0,
            isa_version: [0, 0, 0],
            llvm_first: OLDEST_TRACKED_LLVM,
            llvm_removed: None,
            agprs: false,
            sgpr_init_bug: false,
            user_sgpr_init16_bug: false,
            max_user_sgprs: 0,
            lds_bytes: 0,
        }
    }

    /// Builder: supports `xnack`.
    pub const fn with_xnack(mut self) -> Target {
        self.xnack = true;
        self
    }

    /// Builder: supports `sramecc`.
    pub const fn with_sramecc(mut self) -> Target {
        self.sramecc = true;
        self
    }

    /// Builder: covered by generic target `generic`.
    pub const fn in_generic(mut self, generic: &'static str) -> Target {
        self.generic = Some(generic);
        self
    }

    /// Builder: is a generic target.
    pub const fn as_generic(mut self) -> Target {
        self.is_generic = true;
        self
    }

    /// Builder: gfx101x scalar stores and xnack.
    const fn gfx10_1(mut self) -> Target {
        self.scalar_stores = true;
        self.xnack = true;
        self
    }

    /// Builder: the gfx90a family (gfx90a, gfx94x, gfx950): unified
    /// arch/acc VGPR file with ACCUM_OFFSET, kernarg preload, packed
    /// work-item IDs, xnack and sramecc.
    const fn gfx90a_family(mut self) -> Target {
        self.xnack = true;
        self.sramecc = true;
        self.agprs = true;
        self.accum_offset = true;
        self.kernarg_preload = true;
        self.work_item_ids = WorkItemIdLayout::Packed;
        self.vgpr_encoding_granule_wave64 = 8;
        self
    }

    /// Builder: the gfx94x additions on top of [`Self::gfx90a_family`].
    const fn gfx94x(mut self) -> Target {
        self = self.gfx90a_family();
        self.architected_flat_scratch = true;
        self
    }

    /// Builder: GFX12.5 (gfx1250, gfx1251): wave32 only (`clang-22
    /// -mwavefrontsize64` refuses: "option 'wavefrontsize64' cannot be
    /// specified on this target"; `llvm-mc-22` still assembles a wave64
    /// descriptor, errata GFX12.5 2), xnack and sramecc (LLVM 22
    /// writes both `e_flags` fields as "any"), no WGP mode (`llvm-mc-22`
    /// refuses `.amdhsa_workgroup_processor_mode`: "directive unsupported
    /// on gfx1250", and `llc-22` writes no `.workgroup_processor_mode`),
    /// kernarg preload into up to 32 user SGPRs (USER_SGPR_COUNT grows to
    /// bits 6:1), 1024 VGPRs in wave32 with a VGPR granule of 16 (8 in
    /// wave64, where 512 is the most), and 320 KiB of LDS (`llc-22`:
    /// "local memory (400000) exceeds limit (327680)").
    const fn gfx12_5(mut self) -> Target {
        self.wave64 = false;
        self.xnack = true;
        self.sramecc = true;
        self.cumode = false;
        self.kernarg_preload = true;
        self.max_user_sgprs = 32;
        self.addressable_vgprs = 1024;
        self.vgpr_encoding_granule_wave32 = 16;
        self.vgpr_encoding_granule_wave64 = 8;
        self.lds_bytes = 327680;
        self
    }

    /// Builder: has separate AGPRs (gfx908).
    const fn with_agprs(mut self) -> Target {
        self.agprs = true;
        self
    }

    /// Builder: has the GFX8 SGPR init bug (96 fixed SGPRs).
    const fn with_sgpr_init_bug(mut self) -> Target {
        self.sgpr_init_bug = true;
        self.addressable_sgprs = 96;
        self
    }

    /// Builder: has the GFX11 16-user+system-SGPR bug.
    const fn with_user_sgpr_init16_bug(mut self) -> Target {
        self.user_sgpr_init16_bug = true;
        self
    }

    /// Builder: LDS bytes per work-group.
    const fn with_lds(mut self, bytes: u32) -> Target {
        self.lds_bytes = bytes;
        self
    }

    /// Builder: first known to LLVM release `major`.
    const fn since_llvm(mut self, major: u8) -> Target {
        self.llvm_first = major;
        self
    }

    /// Builder: removed in LLVM release `major`.
    const fn removed_in_llvm(mut self, major: u8) -> Target {
        self.llvm_removed = Some(major);
        self
    }

    /// True if LLVM major release `major` knows this processor name (its
    /// `-mcpu` list has it). Releases before [`OLDEST_TRACKED_LLVM`] are not
    /// tracked and answer as that release does.
    pub fn known_to_llvm(&self, major: u8) -> bool {
        major.max(OLDEST_TRACKED_LLVM) >= self.llvm_first
            && self.llvm_removed.is_none_or(|r| major < r)
    }

    /// True if LLVM 19 (the installed peer the generators rebuild with)
    /// knows this processor.
    pub fn llvm19(&self) -> bool {
        self.known_to_llvm(19)
    }

    /// True for a processor later LLVM removed (see [`RETIRED`]).
    pub fn is_retired(&self) -> bool {
        self.llvm_removed.is_some()
    }

    /// True for gfx90a, gfx94x, gfx950 (and their generic).
    pub fn is_gfx90a_family(&self) -> bool {
        self.accum_offset
    }

    /// Which feature bits this target may set, as `(xnack, sramecc)`.
    pub fn feature_support(&self) -> (bool, bool) {
        (self.xnack, self.sramecc)
    }

    /// True if the processor has `feature`.
    pub fn supports(&self, feature: Feature) -> bool {
        match feature {
            Feature::Sramecc => self.sramecc,
            Feature::Xnack => self.xnack,
        }
    }

    /// True for GFX12.5 (gfx1250, gfx1251: ISA version 12.5 and later of
    /// GFX12), which adds descriptor fields (rsrc1 FLAT_SCRATCH_IS_NV,
    /// rsrc3 NAMED_BAR_CNT, ...) and widens USER_SGPR_COUNT to 6 bits.
    pub fn is_gfx12_5(&self) -> bool {
        self.generation == Generation::Gfx12 && self.isa_version[1] >= 5
    }

    /// True if rsrc1 bit 21 is DX10_CLAMP and bit 23 IEEE_MODE (GFX6-11);
    /// on GFX12 they are WG_RR_EN and DISABLE_PERF.
    pub fn has_dx10_clamp_and_ieee(&self) -> bool {
        self.hsa && self.generation <= Generation::Gfx11
    }

    /// True if rsrc1 bit 26 is FP16_OVFL (GFX9+).
    pub fn has_fp16_ovfl(&self) -> bool {
        self.hsa && self.generation >= Generation::Gfx9
    }

    /// True if rsrc1 bits 29-31 are WGP_MODE, MEM_ORDERED and FWD_PROGRESS
    /// and kernel_code_properties bit 10 (wave32) exists (GFX10+).
    pub fn has_wgp_mode(&self) -> bool {
        self.cumode
    }

    /// True if the XNACK_MASK SGPR pair exists (GFX8-9 processors with
    /// xnack); `.amdhsa_reserve_xnack_mask` is meaningful only there.
    pub fn has_xnack_mask_sgprs(&self) -> bool {
        self.xnack && matches!(self.generation, Generation::Gfx8 | Generation::Gfx9)
    }

    /// The LDS allocation granule in bytes that the dispatch rounds the
    /// group segment size up to: 256 on GFX6, 512 on GFX7+ (LLVM's
    /// `LDSAlignShift`). `None` for r600 and for processors with more than
    /// 64 KiB of LDS (gfx950), whose granule this table does not model.
    pub fn lds_alloc_granule_bytes(&self) -> Option<u32> {
        if !self.hsa || self.lds_bytes > 65536 {
            None
        } else if self.generation == Generation::Gfx6 {
            Some(256)
        } else {
            Some(512)
        }
    }

    /// The most VGPRs (architectural plus accumulation) the descriptor's
    /// VGPR count can describe for a valid kernel: 512 on the gfx90a family
    /// (unified file), else [`Target::addressable_vgprs`] (on gfx908 the
    /// count is the larger of the VGPR and AGPR counts, each at most 256).
    pub fn max_descriptor_vgprs(&self) -> u16 {
        if self.accum_offset {
            512
        } else {
            self.addressable_vgprs
        }
    }

    /// The most dwords of kernel arguments that can be preloaded into user
    /// SGPRs: bounded by [`Target::max_user_sgprs`] (the other enabled user
    /// SGPRs take their share of it); 0 without kernarg preload.
    pub fn max_kernarg_preload_dwords(&self) -> u8 {
        if self.kernarg_preload {
            self.max_user_sgprs
        } else {
            0
        }
    }

    /// The generic target covering this processor.
    pub fn generic_target(&self) -> Option<&'static Target> {
        self.generic.and_then(by_name)
    }

    /// For a generic target, the processors it covers: current ones in
    /// mach order, then retired ones.
    pub fn generic_members(&self) -> impl Iterator<Item = &'static Target> + '_ {
        all_targets().filter(move |t| self.is_generic && t.generic == Some(self.name))
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl PartialEq for Target {
    fn eq(&self, other: &Self) -> bool {
        self.mach == other.mach
    }
}
impl Eq for Target {}

use Generation::{Gfx10, Gfx11, Gfx12, Gfx6, Gfx7, Gfx8, Gfx9};

const G9: &str = "gfx9-generic";
const G94: &str = "gfx9-4-generic";
const G101: &str = "gfx10-1-generic";
const G103: &str = "gfx10-3-generic";
const G11: &str = "gfx11-generic";
const G12: &str = "gfx12-generic";

/// The oldest LLVM release the tables track: [`Target::llvm_first`] is
/// this value for every processor LLVM 14 already knew (the oldest
/// installed peer; earlier releases are not distinguished).
pub const OLDEST_TRACKED_LLVM: u8 = 14;

/// Every processor current LLVM knows, ordered by mach value.
///
/// Mach values: `ELF.h` and the `EF_AMDGPU_MACH` table of AMDGPUUsage.rst.
/// Features: `TargetParser.cpp` (xnack, sramecc, wave32, WGP), AMDGPU.td /
/// GCNProcessors.td (architected flat scratch, kernarg preload, packed
/// TID, scalar stores, SGPR init bugs, LDS size), checked with `clang-19`
/// and `llvm-mc-19` where LLVM 19 knows the processor. ISA versions:
/// `getIsaVersion` (read from `amd_kernel_code_t` assembled by
/// `llvm-mc-19`; gfx950 and gfx1153 from their `amdgpu9.50`/`amdgpu11.53`
/// triples, gfx9-4-generic from ROCm device-libs' ISA version 9402).
/// First LLVM releases ([`Target::llvm_first`]): the `-mcpu=help` lists of
/// LLVM 14, 15, 16, 19 and 22 (checked by `tests/targets_llvm.rs`); where a
/// processor appeared between two of those, the release whose branch
/// followed the commit that added it (gfx941, gfx942, gfx1150, gfx1151:
/// 17; gfx1200, gfx1201: 18; gfx950, gfx1153, gfx9-4-generic: 20).
pub static TARGETS: &[Target] = &[
    Target::r600("r600", 0x01),
    Target::r600("r630", 0x02),
    Target::r600("rs880", 0x03),
    Target::r600("rv670", 0x04),
    Target::r600("rv710", 0x05),
    Target::r600("rv730", 0x06),
    Target::r600("rv770", 0x07),
    Target::r600("cedar", 0x08),
    Target::r600("cypress", 0x09),
    Target::r600("juniper", 0x0a),
    Target::r600("redwood", 0x0b),
    Target::r600("sumo", 0x0c),
    Target::r600("barts", 0x0d),
    Target::r600("caicos", 0x0e),
    Target::r600("cayman", 0x0f),
    Target::r600("turks", 0x10),
    Target::gcn("gfx600", 0x20, Gfx6, [6, 0, 0]),
    Target::gcn("gfx601", 0x21, Gfx6, [6, 0, 1]),
    Target::gcn("gfx700", 0x22, Gfx7, [7, 0, 0]),
    Target::gcn("gfx701", 0x23, Gfx7, [7, 0, 1]),
    Target::gcn("gfx702", 0x24, Gfx7, [7, 0, 2]),
    Target::gcn("gfx703", 0x25, Gfx7, [7, 0, 3]),
    Target::gcn("gfx704", 0x26, Gfx7, [7, 0, 4]),
    Target::gcn("gfx801", 0x28, Gfx8, [8, 0, 1]).with_xnack(),
    Target::gcn("gfx802", 0x29, Gfx8, [8, 0, 2]).with_sgpr_init_bug(),
    Target::gcn("gfx803", 0x2a, Gfx8, [8, 0, 3]),
    Target::gcn("gfx810", 0x2b, Gfx8, [8, 1, 0]).with_xnack(),
    Target::gcn("gfx900", 0x2c, Gfx9, [9, 0, 0])
        .with_xnack()
        .in_generic(G9),
    Target::gcn("gfx902", 0x2d, Gfx9, [9, 0, 2])
        .with_xnack()
        .in_generic(G9),
    Target::gcn("gfx904", 0x2e, Gfx9, [9, 0, 4])
        .with_xnack()
        .in_generic(G9),
    Target::gcn("gfx906", 0x2f, Gfx9, [9, 0, 6])
        .with_xnack()
        .with_sramecc()
        .in_generic(G9),
    Target::gcn("gfx908", 0x30, Gfx9, [9, 0, 8])
        .with_xnack()
        .with_sramecc()
        .with_agprs(),
    Target::gcn("gfx909", 0x31, Gfx9, [9, 0, 9])
        .with_xnack()
        .in_generic(G9),
    Target::gcn("gfx90c", 0x32, Gfx9, [9, 0, 12])
        .with_xnack()
        .in_generic(G9),
    Target::gcn("gfx1010", 0x33, Gfx10, [10, 1, 0])
        .gfx10_1()
        .in_generic(G101),
    Target::gcn("gfx1011", 0x34, Gfx10, [10, 1, 1])
        .gfx10_1()
        .in_generic(G101),
    Target::gcn("gfx1012", 0x35, Gfx10, [10, 1, 2])
        .gfx10_1()
        .in_generic(G101),
    Target::gcn("gfx1030", 0x36, Gfx10, [10, 3, 0]).in_generic(G103),
    Target::gcn("gfx1031", 0x37, Gfx10, [10, 3, 1]).in_generic(G103),
    Target::gcn("gfx1032", 0x38, Gfx10, [10, 3, 2]).in_generic(G103),
    Target::gcn("gfx1033", 0x39, Gfx10, [10, 3, 3]).in_generic(G103),
    Target::gcn("gfx602", 0x3a, Gfx6, [6, 0, 2]),
    Target::gcn("gfx705", 0x3b, Gfx7, [7, 0, 5]),
    Target::gcn("gfx805", 0x3c, Gfx8, [8, 0, 5]).with_sgpr_init_bug(),
    Target::gcn("gfx1035", 0x3d, Gfx10, [10, 3, 5]).in_generic(G103),
    Target::gcn("gfx1034", 0x3e, Gfx10, [10, 3, 4]).in_generic(G103),
    Target::gcn("gfx90a", 0x3f, Gfx9, [9, 0, 10]).gfx90a_family(),
    Target::gcn("gfx1100", 0x41, Gfx11, [11, 0, 0])
        .with_user_sgpr_init16_bug()
        .in_generic(G11)
        .since_llvm(15),
    Target::gcn("gfx1013", 0x42, Gfx10, [10, 1, 3])
        .gfx10_1()
        .in_generic(G101),
    Target::gcn("gfx1150", 0x43, Gfx11, [11, 5, 0])
        .in_generic(G11)
        .since_llvm(17),
    Target::gcn("gfx1103", 0x44, Gfx11, [11, 0, 3])
        .in_generic(G11)
        .since_llvm(15),
    Target::gcn("gfx1036", 0x45, Gfx10, [10, 3, 6])
        .in_generic(G103)
        .since_llvm(15),
    Target::gcn("gfx1101", 0x46, Gfx11, [11, 0, 1])
        .in_generic(G11)
        .since_llvm(15),
    Target::gcn("gfx1102", 0x47, Gfx11, [11, 0, 2])
        .with_user_sgpr_init16_bug()
        .in_generic(G11)
        .since_llvm(15),
    Target::gcn("gfx1200", 0x48, Gfx12, [12, 0, 0])
        .in_generic(G12)
        .since_llvm(18),
    Target::gcn("gfx1250", 0x49, Gfx12, [12, 5, 0])
        .gfx12_5()
        .since_llvm(21),
    Target::gcn("gfx1151", 0x4a, Gfx11, [11, 5, 1])
        .in_generic(G11)
        .since_llvm(17),
    Target::gcn("gfx942", 0x4c, Gfx9, [9, 4, 2])
        .gfx94x()
        .in_generic(G94)
        .since_llvm(17),
    Target::gcn("gfx1201", 0x4e, Gfx12, [12, 0, 1])
        .in_generic(G12)
        .since_llvm(18),
    Target::gcn("gfx950", 0x4f, Gfx9, [9, 5, 0])
        .gfx94x()
        .with_lds(163840)
        .in_generic(G94)
        .since_llvm(20),
    Target::gcn(G9, 0x51, Gfx9, [9, 0, 0])
        .with_xnack()
        .as_generic()
        .since_llvm(19),
    Target::gcn(G101, 0x52, Gfx10, [10, 1, 0])
        .gfx10_1()
        .as_generic()
        .since_llvm(19),
    Target::gcn(G103, 0x53, Gfx10, [10, 3, 0])
        .as_generic()
        .since_llvm(19),
    Target::gcn(G11, 0x54, Gfx11, [11, 0, 3])
        .with_user_sgpr_init16_bug()
        .as_generic()
        .since_llvm(19),
    Target::gcn("gfx1152", 0x55, Gfx11, [11, 5, 2])
        .in_generic(G11)
        .since_llvm(19),
    Target::gcn("gfx1153", 0x58, Gfx11, [11, 5, 3])
        .in_generic(G11)
        .since_llvm(20),
    Target::gcn(G12, 0x59, Gfx12, [12, 0, 0])
        .as_generic()
        .since_llvm(19),
    Target::gcn("gfx1251", 0x5a, Gfx12, [12, 5, 1])
        .gfx12_5()
        .since_llvm(22),
    Target::gcn(G94, 0x5f, Gfx9, [9, 4, 2])
        .gfx94x()
        .as_generic()
        .since_llvm(20),
];

/// Processors LLVM once built and has since removed, ordered by mach
/// value, modelled as the last installed LLVM that builds them (LLVM 19)
/// does. Current `ELF.h` calls their mach values `RESERVED_0X40`/`0X4B`,
/// but LLVM 15-20 write them and ROCm 6.1 ships objects for them (the ROCr
/// blit kernels), so they are valid targets for old objects; `check` adds
/// an info finding (`elf.e_flags.mach_retired`) that later LLVM rejects
/// them.
///
/// Facts: LLVM 19 `GCNProcessors.td` / `AMDGPU.td` give gfx940 and gfx941
/// the gfx94x feature set of gfx942 (`FeatureISAVersion9_4_Common`: xnack,
/// sramecc, MAI with ACCUM_OFFSET, packed work-item IDs, architected flat
/// scratch, kernarg preload; 64 KiB LDS) plus codegen-only features;
/// LLVM 20 listed both in gfx9-4-generic. Removed from LLVM's `main` in
/// February 2025 (commit 8615f9a, "Replace gfx940 and gfx941 with gfx942"),
/// after the LLVM 20 branch: LLVM 21 is the first release that rejects
/// them (`llvm-mc-22 -mcpu=gfx940` "is not a recognized processor").
pub static RETIRED: &[Target] = &[
    Target::gcn("gfx940", 0x40, Gfx9, [9, 4, 0])
        .gfx94x()
        .in_generic(G94)
        .since_llvm(15)
        .removed_in_llvm(21),
    Target::gcn("gfx941", 0x4b, Gfx9, [9, 4, 1])
        .gfx94x()
        .in_generic(G94)
        .since_llvm(17)
        .removed_in_llvm(21),
];

/// Mach values that LLVM added after the snapshot this table models
/// (from LLVM's `test/CodeGen/AMDGPU/elf-header-flags-mach.ll`): valid
/// processors whose ABI facts (register limits, user SGPRs, features) the
/// oracle does not know, so it cannot check their code objects in depth.
pub static UNMODELLED: &[(u8, &str)] = &[
    (0x50, "gfx1310"),
    (0x57, "gfx1154"),
    (0x5b, "gfx12-5-generic"),
    (0x5c, "gfx1172"),
    (0x5d, "gfx1170"),
    (0x5e, "gfx1171"),
    (0x62, "gfx11-7-generic"),
    (0x63, "gfx13-generic"),
];

/// Legacy processor names LLVM accepts, with the processor they mean
/// (`TargetParser.cpp`): the amdgcn ones appear in `llc -march=amdgcn
/// -mcpu=help`; the r600 ones only clang's `-mcpu` accepts (`llc -march=r600`
/// rejects them). Code objects and target IDs always use the canonical
/// name.
pub static ALIASES: &[(&str, &str)] = &[
    ("rv630", "r600"),
    ("rv635", "r600"),
    ("rs780", "rs880"),
    ("rv610", "rs880"),
    ("rv620", "rs880"),
    ("rv740", "rv770"),
    ("palm", "cedar"),
    ("hemlock", "cypress"),
    ("sumo2", "sumo"),
    ("aruba", "cayman"),
    ("tahiti", "gfx600"),
    ("pitcairn", "gfx601"),
    ("verde", "gfx601"),
    ("hainan", "gfx602"),
    ("oland", "gfx602"),
    ("kaveri", "gfx700"),
    ("hawaii", "gfx701"),
    ("kabini", "gfx703"),
    ("mullins", "gfx703"),
    ("bonaire", "gfx704"),
    ("carrizo", "gfx801"),
    ("iceland", "gfx802"),
    ("tonga", "gfx802"),
    ("fiji", "gfx803"),
    ("polaris10", "gfx803"),
    ("polaris11", "gfx803"),
    ("tongapro", "gfx805"),
    ("stoney", "gfx810"),
];

/// Every processor the oracle models: [`TARGETS`], then [`RETIRED`].
pub fn all_targets() -> impl Iterator<Item = &'static Target> {
    TARGETS.iter().chain(RETIRED)
}

/// Looks a target (current or retired) up by `EF_AMDGPU_MACH` value.
pub fn by_mach(mach: u8) -> Option<&'static Target> {
    all_targets().find(|t| t.mach == mach)
}

/// Looks a target (current or retired) up by processor name.
pub fn by_name(name: &str) -> Option<&'static Target> {
    all_targets().find(|t| t.name == name)
}

/// The canonical processor for a name or legacy alias (`fiji` → `gfx803`).
pub fn by_name_or_alias(name: &str) -> Option<&'static Target> {
    by_name(name).or_else(|| {
        ALIASES
            .iter()
            .find(|(alias, _)| *alias == name)
            .and_then(|(_, canonical)| by_name(canonical))
    })
}

/// The processor a user means by `s`: a processor name, a legacy alias
/// (`fiji`), or a target ID (`gfx90a:xnack+`,
/// `amdgcn-amd-amdhsa--gfx90a:sramecc-`), whose features do not change the
/// processor.
pub fn processor_named(s: &str) -> Option<&'static Target> {
    by_name_or_alias(s).or_else(|| TargetId::parse(s).ok().map(|t| t.target))
}

/// The processor a newer-LLVM mach value names (see [`UNMODELLED`]).
pub fn unmodelled_mach(mach: u8) -> Option<&'static str> {
    UNMODELLED.iter().find(|(m, _)| *m == mach).map(|(_, n)| *n)
}

/// The processors current LLVM knows that HSA code objects can name
/// (everything in [`TARGETS`] but r600): what the generators draw from.
/// The retired ones are in [`RETIRED`].
pub fn hsa_targets() -> impl Iterator<Item = &'static Target> {
    TARGETS.iter().filter(|t| t.hsa)
}

/// The processor a newer-LLVM name denotes (see [`UNMODELLED`]).
pub fn unmodelled_name(name: &str) -> Option<&'static str> {
    UNMODELLED.iter().find(|(_, n)| *n == name).map(|(_, n)| *n)
}

/// The `EF_AMDGPU_GENERIC_VERSION` byte (bits 31:24 of `e_flags`).
pub fn generic_version(e_flags: u32) -> u8 {
    (e_flags >> 24) as u8
}

/// The lowest `EF_AMDGPU_GENERIC_VERSION` a code object for `generic`
/// must carry to run on `processor`, or `None` if `generic` does not cover
/// `processor`. Every processor current LLVM lists joined its generic
/// target at version 1 (`GenericVersion::*` = 1 in `AMDGPUBaseInfo.h`),
/// and LLVM writes 1.
pub fn generic_version_required(processor: &Target, generic: &Target) -> Option<u8> {
    (generic.is_generic && processor.generic == Some(generic.name)).then_some(1)
}

#[cfg(test)]
#[path = "targets_tests.rs"]
mod tests;
