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
    /// Supports wave64 (every amdgcn processor).
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
    /// Supports kernarg preloading into user SGPRs (gfx90a, gfx94x, gfx950).
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
    /// every amdgcn processor. AGPRs are not included (see
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
    /// Most user SGPRs the hardware initialises (16 on every amdgcn
    /// processor here; the 5-bit USER_SGPR_COUNT field could say 31, and
    /// `llvm-mc-19` accepts up to 31).
    pub max_user_sgprs: u8,
    /// Most LDS (group segment) bytes one work-group can allocate:
    /// 32 KiB on GFX6, 160 KiB on gfx950, 64 KiB elsewhere.
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
    (0x49, "gfx1250"),
    (0x50, "gfx1310"),
    (0x57, "gfx1154"),
    (0x5a, "gfx1251"),
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

/// The optional triple prefix of a full target ID.
pub const TRIPLE_PREFIX: &str = "amdgcn-amd-amdhsa--";

/// A processor plus its feature settings: what a target ID string names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TargetId {
    /// The processor.
    #[serde(serialize_with = "ser_target_name")]
    pub target: &'static Target,
    /// `xnack` setting ([`FeatureSetting::Unsupported`] if the processor
    /// lacks it).
    pub xnack: FeatureSetting,
    /// `sramecc` setting ([`FeatureSetting::Unsupported`] if the processor
    /// lacks it).
    pub sramecc: FeatureSetting,
}

fn ser_target_name<S: serde::Serializer>(t: &&'static Target, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(t.name)
}

/// Why a string is not a valid target ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetIdError {
    /// The string (after any triple prefix) is empty.
    Empty,
    /// The string is not shaped like a target ID.
    BadSyntax {
        /// The offending input.
        input: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// No processor has this name.
    UnknownProcessor {
        /// The name given.
        name: String,
        /// Known processors with a similar name (at most three), or the
        /// canonical name if `name` is a legacy alias.
        suggestions: Vec<&'static str>,
    },
    /// The processor is valid but newer than the oracle's tables (see
    /// [`UNMODELLED`]): its features cannot be checked.
    UnmodelledProcessor {
        /// Its name.
        name: &'static str,
    },
    /// The processor is r600-era and has no HSA target ID.
    NotHsa {
        /// Its name.
        name: &'static str,
    },
    /// A feature other than `xnack` and `sramecc`.
    UnknownFeature {
        /// The feature as written.
        feature: String,
    },
    /// A feature appears twice.
    DuplicateFeature {
        /// The feature.
        feature: Feature,
    },
    /// The processor does not have the feature.
    UnsupportedFeature {
        /// The processor.
        processor: &'static str,
        /// The feature.
        feature: Feature,
    },
    /// [`TargetId::new`] was given `Unsupported` for a feature the
    /// processor has.
    MissingSetting {
        /// The processor.
        processor: &'static str,
        /// The feature.
        feature: Feature,
    },
}

impl fmt::Display for TargetIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("empty target ID"),
            Self::BadSyntax { input, reason } => {
                write!(f, "malformed target ID `{input}`: {reason}")
            }
            Self::UnknownProcessor { name, suggestions } => {
                write!(f, "unknown processor `{name}`")?;
                if !suggestions.is_empty() {
                    write!(f, "; did you mean {}?", suggestions.join(", "))?;
                }
                Ok(())
            }
            Self::UnmodelledProcessor { name } => write!(
                f,
                "processor `{name}` is newer than this checker's target table, which cannot check its features"
            ),
            Self::NotHsa { name } => {
                write!(f, "processor `{name}` is r600-era and has no HSA target ID")
            }
            Self::UnknownFeature { feature } => {
                write!(
                    f,
                    "unknown target feature `{feature}` (target IDs only name xnack and sramecc)"
                )
            }
            Self::DuplicateFeature { feature } => {
                write!(f, "feature `{feature}` is given more than once")
            }
            Self::UnsupportedFeature { processor, feature } => {
                write!(f, "processor `{processor}` does not support `{feature}`")
            }
            Self::MissingSetting { processor, feature } => {
                write!(f, "processor `{processor}` supports `{feature}`, so its setting must be any, off or on")
            }
        }
    }
}

impl std::error::Error for TargetIdError {}

/// Why `e_flags` do not decode to a target ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EFlagsError {
    /// `EF_AMDGPU_MACH` is 0 (`EF_AMDGPU_MACH_NONE`).
    NoMach,
    /// The mach value is reserved or unknown.
    UnknownMach {
        /// The mach byte.
        mach: u8,
    },
    /// The mach value names a processor newer than this table (see
    /// [`UNMODELLED`]).
    UnmodelledMach {
        /// The mach byte.
        mach: u8,
        /// The processor it names.
        name: &'static str,
    },
    /// The mach value names an r600-era processor.
    NotHsa {
        /// The mach byte.
        mach: u8,
        /// The processor it names.
        name: &'static str,
    },
    /// The flags enable or set a feature the processor does not have.
    FeatureNotSupported {
        /// The processor.
        processor: &'static str,
        /// The feature.
        feature: Feature,
    },
    /// A V4+ feature field says "unsupported" (0) for a processor that has
    /// the feature.
    FeatureMissing {
        /// The processor.
        processor: &'static str,
        /// The feature.
        feature: Feature,
    },
}

impl fmt::Display for EFlagsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoMach => f.write_str("EF_AMDGPU_MACH is 0 (EF_AMDGPU_MACH_NONE) and names no processor"),
            Self::UnknownMach { mach } => write!(f, "EF_AMDGPU_MACH {mach:#04x} is reserved or unknown"),
            Self::UnmodelledMach { mach, name } => write!(
                f,
                "EF_AMDGPU_MACH {mach:#04x} names {name}, a processor newer than the oracle's target table"
            ),
            Self::NotHsa { mach, name } => {
                write!(f, "EF_AMDGPU_MACH {mach:#04x} names {name}, an r600-era processor with no HSA ABI")
            }
            Self::FeatureNotSupported { processor, feature } => {
                write!(f, "e_flags set {feature} but {processor} does not support {feature}")
            }
            Self::FeatureMissing { processor, feature } => write!(
                f,
                "e_flags say {feature} is unsupported but {processor} supports it (expected any, off or on)"
            ),
        }
    }
}

impl std::error::Error for EFlagsError {}

impl TargetId {
    /// A target ID for `target` with explicit settings; fails if a setting
    /// is `Unsupported` for a feature the processor has, or anything else
    /// for a feature it lacks.
    pub fn new(
        target: &'static Target,
        xnack: FeatureSetting,
        sramecc: FeatureSetting,
    ) -> Result<TargetId, TargetIdError> {
        if !target.hsa {
            return Err(TargetIdError::NotHsa { name: target.name });
        }
        for (feature, setting) in [(Feature::Xnack, xnack), (Feature::Sramecc, sramecc)] {
            let supported = target.supports(feature);
            if supported && setting == FeatureSetting::Unsupported {
                return Err(TargetIdError::MissingSetting {
                    processor: target.name,
                    feature,
                });
            }
            if !supported && setting != FeatureSetting::Unsupported {
                return Err(TargetIdError::UnsupportedFeature {
                    processor: target.name,
                    feature,
                });
            }
        }
        Ok(TargetId {
            target,
            xnack,
            sramecc,
        })
    }

    /// The target ID with every supported feature "any" (what a bare V4+
    /// processor name means).
    pub fn any(target: &'static Target) -> TargetId {
        let s = |yes: bool| {
            if yes {
                FeatureSetting::Any
            } else {
                FeatureSetting::Unsupported
            }
        };
        TargetId {
            target,
            xnack: s(target.xnack),
            sramecc: s(target.sramecc),
        }
    }

    /// The setting of `feature`.
    pub fn setting(&self, feature: Feature) -> FeatureSetting {
        match feature {
            Feature::Sramecc => self.sramecc,
            Feature::Xnack => self.xnack,
        }
    }

    fn set(&mut self, feature: Feature, v: FeatureSetting) {
        match feature {
            Feature::Sramecc => self.sramecc = v,
            Feature::Xnack => self.xnack = v,
        }
    }

    /// Parses a target ID in V4+ syntax (`gfx90a:sramecc+:xnack-`, features
    /// in any order) or V3 syntax (`gfx906+xnack+sram-ecc`; `+sramecc` is
    /// accepted too), optionally after `amdgcn-amd-amdhsa--`. A bare
    /// processor name is read with its V4+ meaning (every supported feature
    /// "any"); use [`TargetId::parse_v3`] to read it as V3 (features off).
    pub fn parse(s: &str) -> Result<TargetId, TargetIdError> {
        let body = strip_triple(s)?;
        match body.find([':', '+']).and_then(|i| body.get(i..i + 1)) {
            Some("+") => parse_v3_body(body),
            _ => parse_v4_body(body),
        }
    }

    /// Parses a V3 target ID (`gfx906+xnack+sram-ecc`): listed features
    /// are on, supported features not listed are off.
    pub fn parse_v3(s: &str) -> Result<TargetId, TargetIdError> {
        let body = strip_triple(s)?;
        if body.contains(':') {
            return Err(bad(body, "V3 target IDs use `+feature`, not `:feature±`"));
        }
        parse_v3_body(body)
    }

    /// The V4+ spelling: processor, then `:feature+`/`:feature-` for each
    /// feature that is on or off, sorted by name.
    pub fn to_v4_string(&self) -> String {
        let mut s = String::from(self.target.name);
        for feature in Feature::ALL {
            match self.setting(feature) {
                FeatureSetting::On => {
                    s.push(':');
                    s.push_str(feature.name());
                    s.push('+');
                }
                FeatureSetting::Off => {
                    s.push(':');
                    s.push_str(feature.name());
                    s.push('-');
                }
                FeatureSetting::Any | FeatureSetting::Unsupported => {}
            }
        }
        s
    }

    /// The V4+ spelling after the `amdgcn-amd-amdhsa--` triple, as the
    /// `amdhsa.target` metadata key holds it.
    pub fn to_full_string(&self) -> String {
        format!("{TRIPLE_PREFIX}{}", self.to_v4_string())
    }

    /// The V3 spelling LLVM 14 wrote: `+xnack` then `+sram-ecc` for each
    /// feature that is on or any (V3 cannot say "any"; LLVM wrote it as on).
    pub fn to_v3_string(&self) -> String {
        let mut s = String::from(self.target.name);
        for feature in [Feature::Xnack, Feature::Sramecc] {
            if self.setting(feature).is_on_or_any() {
                s.push('+');
                s.push_str(feature.v3_name());
            }
        }
        s
    }

    /// Decodes the processor and feature settings from `e_flags` as code
    /// object `cov` lays them out. V2 and V3: one bit each (`0x100` xnack,
    /// `0x200` sramecc), set means on, clear means off. V4+: two-bit fields
    /// (mask `0x300` xnack, `0xc00` sramecc). Bits the version does not
    /// define, including the V6 generic version, are ignored here (see
    /// [`CodeObjectVersion::defined_e_flags`] and [`generic_version`]).
    pub fn from_e_flags(e_flags: u32, cov: CodeObjectVersion) -> Result<TargetId, EFlagsError> {
        let mach = (e_flags & 0xff) as u8;
        let target = match by_mach(mach) {
            Some(t) if t.hsa => t,
            Some(t) => return Err(EFlagsError::NotHsa { mach, name: t.name }),
            None if mach == 0 => return Err(EFlagsError::NoMach),
            None => {
                if let Some(name) = unmodelled_mach(mach) {
                    return Err(EFlagsError::UnmodelledMach { mach, name });
                }
                return Err(EFlagsError::UnknownMach { mach });
            }
        };
        let mut id = TargetId::any(target);
        for feature in Feature::ALL {
            let supported = target.supports(feature);
            let setting = if cov.has_feature_fields() {
                let shift = match feature {
                    Feature::Xnack => 8,
                    Feature::Sramecc => 10,
                };
                let s = FeatureSetting::from_field(e_flags >> shift);
                if supported && s == FeatureSetting::Unsupported {
                    return Err(EFlagsError::FeatureMissing {
                        processor: target.name,
                        feature,
                    });
                }
                s
            } else {
                let bit = match feature {
                    Feature::Xnack => 0x100,
                    Feature::Sramecc => 0x200,
                };
                match (e_flags & bit != 0, supported) {
                    (true, _) => FeatureSetting::On,
                    (false, true) => FeatureSetting::Off,
                    (false, false) => FeatureSetting::Unsupported,
                }
            };
            if !supported && setting != FeatureSetting::Unsupported {
                return Err(EFlagsError::FeatureNotSupported {
                    processor: target.name,
                    feature,
                });
            }
            id.set(feature, setting);
        }
        Ok(id)
    }

    /// Encodes the mach byte and feature bits for code object `cov` (the
    /// inverse of [`TargetId::from_e_flags`]; V2/V3 record "any" as on).
    /// The V6 generic version byte is left 0 for the caller to fill in.
    pub fn to_e_flags(&self, cov: CodeObjectVersion) -> u32 {
        let mut flags = u32::from(self.target.mach);
        if cov.has_feature_fields() {
            flags |= self.xnack.field() << 8;
            flags |= self.sramecc.field() << 10;
        } else {
            if self.xnack.is_on_or_any() {
                flags |= 0x100;
            }
            if self.sramecc.is_on_or_any() {
                flags |= 0x200;
            }
        }
        flags
    }
}

impl fmt::Display for TargetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_v4_string())
    }
}

impl std::str::FromStr for TargetId {
    type Err = TargetIdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TargetId::parse(s)
    }
}

fn bad(input: &str, reason: &'static str) -> TargetIdError {
    TargetIdError::BadSyntax {
        input: input.to_owned(),
        reason,
    }
}

/// Removes the optional triple prefix; rejects other triples and empty
/// bodies.
fn strip_triple(s: &str) -> Result<&str, TargetIdError> {
    let body = s.strip_prefix(TRIPLE_PREFIX).unwrap_or(s);
    if body.is_empty() {
        return Err(TargetIdError::Empty);
    }
    if body.starts_with("amdgcn-") || body.starts_with("r600-") {
        return Err(bad(
            s,
            "the only triple a target ID may carry is `amdgcn-amd-amdhsa--`",
        ));
    }
    Ok(body)
}

/// Resolves the processor part of a target ID.
fn processor(name: &str) -> Result<&'static Target, TargetIdError> {
    if name.is_empty() {
        return Err(bad(name, "missing processor name before the features"));
    }
    if let Some(t) = by_name(name) {
        return if t.hsa {
            Ok(t)
        } else {
            Err(TargetIdError::NotHsa { name: t.name })
        };
    }
    if let Some(name) = unmodelled_name(name) {
        return Err(TargetIdError::UnmodelledProcessor { name });
    }
    let suggestions = match by_name_or_alias(name) {
        Some(canonical) => vec![canonical.name],
        None => closest_names(name),
    };
    Err(TargetIdError::UnknownProcessor {
        name: name.to_owned(),
        suggestions,
    })
}

/// Up to three HSA processor names within edit distance 2 of `name`,
/// nearest first (table order breaks ties).
fn closest_names(name: &str) -> Vec<&'static str> {
    // Names longer than any processor's cannot be within distance 2 of one;
    // skipping them also bounds the work on hostile input.
    if name.len() > 24 {
        return Vec::new();
    }
    let mut scored: Vec<(usize, &'static str)> = hsa_targets()
        .map(|t| (edit_distance(name.as_bytes(), t.name.as_bytes()), t.name))
        .filter(|(d, _)| *d <= 2)
        .collect();
    scored.sort_by_key(|(d, _)| *d);
    scored.into_iter().take(3).map(|(_, n)| n).collect()
}

/// Levenshtein distance over bytes, in O(len(b)) memory.
fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0usize; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = prev[j] + usize::from(ca != cb);
            cur[j + 1] = substitute.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

fn feature_by_name(name: &str) -> Result<Feature, TargetIdError> {
    Feature::ALL
        .into_iter()
        .find(|f| f.name() == name)
        .ok_or_else(|| TargetIdError::UnknownFeature {
            feature: name.to_owned(),
        })
}

fn parse_v4_body(body: &str) -> Result<TargetId, TargetIdError> {
    let mut parts = body.split(':');
    let target = processor(parts.next().unwrap_or(""))?;
    let mut id = TargetId::any(target);
    let mut seen: Vec<Feature> = Vec::new();
    for part in parts {
        if part.is_empty() {
            return Err(bad(body, "empty feature between `:` separators"));
        }
        let (name, setting) = if let Some(n) = part.strip_suffix('+') {
            (n, FeatureSetting::On)
        } else if let Some(n) = part.strip_suffix('-') {
            (n, FeatureSetting::Off)
        } else {
            return Err(bad(
                body,
                "each `:feature` must end in `+` (on) or `-` (off)",
            ));
        };
        if name.is_empty() || name.ends_with(['+', '-']) {
            return Err(bad(body, "a feature is a name followed by one `+` or `-`"));
        }
        let feature = feature_by_name(name)?;
        if seen.contains(&feature) {
            return Err(TargetIdError::DuplicateFeature { feature });
        }
        seen.push(feature);
        if !target.supports(feature) {
            return Err(TargetIdError::UnsupportedFeature {
                processor: target.name,
                feature,
            });
        }
        id.set(feature, setting);
    }
    Ok(id)
}

fn parse_v3_body(body: &str) -> Result<TargetId, TargetIdError> {
    let mut parts = body.split('+');
    let target = processor(parts.next().unwrap_or(""))?;
    let off = |yes: bool| {
        if yes {
            FeatureSetting::Off
        } else {
            FeatureSetting::Unsupported
        }
    };
    let mut id = TargetId {
        target,
        xnack: off(target.xnack),
        sramecc: off(target.sramecc),
    };
    let mut seen: Vec<Feature> = Vec::new();
    for part in parts {
        if part.is_empty() {
            return Err(bad(body, "empty feature after `+`"));
        }
        if part.contains(':') {
            return Err(bad(body, "mixes V3 `+feature` and V4 `:feature±` syntax"));
        }
        let feature = match part {
            "xnack" => Feature::Xnack,
            "sram-ecc" | "sramecc" => Feature::Sramecc,
            other => {
                return Err(TargetIdError::UnknownFeature {
                    feature: other.to_owned(),
                })
            }
        };
        if seen.contains(&feature) {
            return Err(TargetIdError::DuplicateFeature { feature });
        }
        seen.push(feature);
        if !target.supports(feature) {
            return Err(TargetIdError::UnsupportedFeature {
                processor: target.name,
                feature,
            });
        }
        id.set(feature, FeatureSetting::On);
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
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
        assert_eq!(unmodelled_mach(0x49), Some("gfx1250"));
        assert_eq!(unmodelled_name("gfx1250"), Some("gfx1250"));
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
                let gt =
                    by_name(g).unwrap_or_else(|| panic!("{} names unknown generic {g}", t.name));
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
            assert!(t.wave64, "{}", t.name);
            assert_eq!(t.wave32, g >= Gfx10, "{}", t.name);
            assert_eq!(t.cumode, g >= Gfx10, "{}", t.name);
            assert_eq!(t.vgpr_encoding_granule_wave32 != 0, t.wave32, "{}", t.name);
            assert_eq!(
                t.sgpr_encoding_granule,
                if g >= Gfx10 { 0 } else { 8 },
                "{}",
                t.name
            );
            assert_eq!(t.addressable_vgprs, 256, "{}", t.name);
            assert_eq!(t.max_user_sgprs, 16, "{}", t.name);
            assert_eq!(t.accum_offset, t.kernarg_preload, "{}", t.name);
            assert!(
                !t.accum_offset || (t.agprs && t.xnack && t.sramecc),
                "{}",
                t.name
            );
            assert_eq!(
                t.vgpr_encoding_granule_wave64,
                if t.accum_offset { 8 } else { 4 },
                "{}",
                t.name
            );
            assert_eq!(
                t.max_descriptor_vgprs(),
                if t.accum_offset { 512 } else { 256 }
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
            assert!(!(t.xnack && g >= Gfx11), "{}", t.name);
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
        assert_eq!(llvm19_missing, ["gfx950", "gfx1153", "gfx9-4-generic"]);
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
            TargetId::from_e_flags(0x49, V5),
            Err(EFlagsError::UnmodelledMach {
                mach: 0x49,
                name: "gfx1250"
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
            e("gfx1250:xnack+"),
            TargetIdError::UnmodelledProcessor { name: "gfx1250" }
        );
        assert!(e("gfx1251").to_string().contains("newer than"));
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
}
