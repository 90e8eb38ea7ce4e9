//! Processors (targets) the AMDGPU ABI knows, their features and limits,
//! and target ID strings.
//!
//! One table, [`TARGETS`], holds every processor LLVM knows today: its
//! `EF_AMDGPU_MACH` value, generation, supported features and register
//! limits. Everything else in the oracle asks this table instead of
//! hard-coding processor lists.
//!
//! Sources: amdgpu-usage.rst "Processors" and "EF_AMDGPU_MACH values";
//! NOTES.md "ELF header"; LLVM `llvm/include/llvm/BinaryFormat/ELF.h`,
//! `llvm/lib/Target/AMDGPU/GCNProcessors.td`,
//! `llvm/lib/TargetParser/TargetParser.cpp`,
//! `llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp`.

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
    /// Supports wave32 (GFX10+).
    pub wave32: bool,
    /// Supports wave64.
    pub wave64: bool,
    /// Has CU/WGP mode (`cumode` feature, GFX10+).
    pub cumode: bool,
    /// Has architected flat scratch (gfx940 family, GFX12): no flat scratch
    /// init and no private segment buffer user SGPRs.
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
    /// Number of SGPRs a kernel can address (excluding VCC, FLAT_SCRATCH,
    /// XNACK_MASK and trap registers).
    pub addressable_sgprs: u16,
    /// Number of architectural VGPRs a wave can use (per wave64 lane view;
    /// AGPRs not included).
    pub addressable_vgprs: u16,
    /// Granule of GRANULATED_WAVEFRONT_SGPR_COUNT (0 if the field is
    /// ignored, GFX10+).
    pub sgpr_encoding_granule: u16,
    /// Granule of GRANULATED_WORKITEM_VGPR_COUNT in wave64 mode.
    pub vgpr_encoding_granule_wave64: u16,
    /// Granule of GRANULATED_WORKITEM_VGPR_COUNT in wave32 mode (0 if the
    /// target has no wave32).
    pub vgpr_encoding_granule_wave32: u16,
}

impl Target {
    /// True for gfx90a, gfx94x, gfx950 (and their generic).
    pub fn is_gfx90a_family(&self) -> bool {
        self.accum_offset
    }

    /// Which feature bits this target may set, as `(xnack, sramecc)`.
    pub fn feature_support(&self) -> (bool, bool) {
        (self.xnack, self.sramecc)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// Every processor LLVM knows, ordered by mach value.
pub static TARGETS: &[Target] = &[];

/// Looks a target up by `EF_AMDGPU_MACH` value.
pub fn by_mach(mach: u8) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.mach == mach)
}

/// Looks a target up by processor name.
pub fn by_name(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

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

impl PartialEq for Target {
    fn eq(&self, other: &Self) -> bool {
        self.mach == other.mach
    }
}
impl Eq for Target {}
