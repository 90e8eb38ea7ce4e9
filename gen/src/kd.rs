//! Kernel descriptors (code object V3 and later), generated at the level
//! of LLVM's `.amdhsa_kernel` directives and encoded to the 64 bytes
//! exactly as `llvm-mc` encodes those directives.
//!
//! [`DescriptorSpec`] holds one value per directive (plus the few
//! descriptor bits no directive sets). [`DescriptorSpec::encode`] applies
//! LLVM's rules for the derived fields: the granulated VGPR count
//! (`getNumVGPRBlocks`, the oracle's `kd::granulated_vgpr_count` over the
//! targets table's granules), the granulated SGPR count (`getNumSGPRBlocks` after adding the extra
//! SGPRs of `getNumExtraSGPRs`; 0 from GFX10; a fixed 96 SGPRs on
//! processors with the SGPR init bug) and ACCUM_OFFSET. The assembler text
//! emitter ([`crate::emit::asm`]) writes the same directives, so
//! `llvm-mc` rebuilds identical bytes (`tests/gen_llvm.rs` checks that).
//!
//! Sources: amdgpu-usage.rst "Kernel Descriptor" and the
//! compute_pgm_rsrc1/2/3 tables; NOTES.md "Kernel descriptor"; LLVM
//! `AMDGPUAsmParser.cpp` (ParseDirectiveAMDHSAKernel, calculateGPRBlocks)
//! and `AMDGPUBaseInfo.cpp` (getNumExtraSGPRs), checked with llvm-mc-19
//! (see docs/errata.md, "Errata found while building the generators", for
//! what differs from the documents).

use crate::config::Config;
use crate::sgpr::Enables;
use crate::target::TargetChoice;
use arbitrary::Unstructured;
use hsaco_oracle::kd::KernelDescriptor;
use hsaco_oracle::layout::{self as l, BitField};
use hsaco_oracle::targets::{CodeObjectVersion, Generation, Target};
use serde::Serialize;

/// One kernel's descriptor, one field per `.amdhsa_*` directive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DescriptorSpec {
    /// `.amdhsa_group_segment_fixed_size`.
    pub group_segment_fixed_size: u32,
    /// `.amdhsa_private_segment_fixed_size`.
    pub private_segment_fixed_size: u32,
    /// `.amdhsa_kernarg_size` (0: not given).
    pub kernarg_size: u32,
    /// The user SGPR, system SGPR, work-item ID, preload and wave size
    /// enables (`.amdhsa_user_sgpr_*`, `.amdhsa_system_*`,
    /// `.amdhsa_enable_private_segment`, `.amdhsa_wavefront_size32`).
    pub enables: Enables,
    /// `.amdhsa_uses_dynamic_stack` (set only in V5 and later).
    pub uses_dynamic_stack: bool,
    /// `.amdhsa_next_free_vgpr` (architectural plus accumulation VGPRs on
    /// the gfx90a family; the larger of the two counts on gfx908).
    pub next_free_vgpr: u16,
    /// `.amdhsa_next_free_sgpr` (without VCC, FLAT_SCRATCH, XNACK_MASK).
    pub next_free_sgpr: u16,
    /// `.amdhsa_reserve_vcc`.
    pub reserve_vcc: bool,
    /// `.amdhsa_reserve_flat_scratch` (GFX7+ without architected flat
    /// scratch; LLVM reserves it on GFX6, where the directive is missing).
    pub reserve_flat_scratch: bool,
    /// `.amdhsa_accum_offset` (gfx90a family; 0 elsewhere).
    pub accum_offset: u16,
    /// `.amdhsa_float_round_mode_32`.
    pub float_round_mode_32: u8,
    /// `.amdhsa_float_round_mode_16_64`.
    pub float_round_mode_16_64: u8,
    /// `.amdhsa_float_denorm_mode_32`.
    pub float_denorm_mode_32: u8,
    /// `.amdhsa_float_denorm_mode_16_64`.
    pub float_denorm_mode_16_64: u8,
    /// `.amdhsa_dx10_clamp` (GFX6-GFX11).
    pub dx10_clamp: bool,
    /// `.amdhsa_ieee_mode` (GFX6-GFX11).
    pub ieee_mode: bool,
    /// `.amdhsa_round_robin_scheduling` (GFX12: rsrc1 bit 21).
    pub round_robin_scheduling: bool,
    /// rsrc1 bit 23 DISABLE_PERF (GFX12; no directive).
    pub disable_perf: bool,
    /// `.amdhsa_fp16_overflow` (GFX9+).
    pub fp16_overflow: bool,
    /// `.amdhsa_workgroup_processor_mode` (GFX10+ but GFX12.5, whose
    /// assembler refuses the directive).
    pub workgroup_processor_mode: bool,
    /// `.amdhsa_memory_ordered` (GFX10+).
    pub memory_ordered: bool,
    /// `.amdhsa_forward_progress` (GFX10+).
    pub forward_progress: bool,
    /// `.amdhsa_tg_split` (gfx90a family).
    pub tg_split: bool,
    /// `.amdhsa_shared_vgpr_count` (GFX10-GFX11, wave64).
    pub shared_vgpr_count: u8,
    /// `.amdhsa_inst_pref_size` (GFX11+; LLVM 19 lacks the directive).
    pub inst_pref_size: u8,
    /// rsrc3 TRAP_ON_START (GFX11; no directive).
    pub trap_on_start: bool,
    /// rsrc3 TRAP_ON_END (GFX11; no directive).
    pub trap_on_end: bool,
    /// rsrc3 GLG_EN (GFX12; no directive).
    pub glg_en: bool,
    /// rsrc3 IMAGE_OP (GFX11+; no directive).
    pub image_op: bool,
    /// rsrc2 bit 31 WGP_TAKEOVER (GFX12; no directive).
    pub wgp_takeover: bool,
    /// The seven `.amdhsa_exception_*` enables, rsrc2 bits 24-30 as bits 0-6.
    pub exceptions: u8,
}

/// The descriptor fields [`DescriptorSpec`] models that no directive sets,
/// in the order the assembler text's comment names them (lower-case).
pub static WITHOUT_DIRECTIVES: [&BitField; 6] = [
    &l::TRAP_ON_START,
    &l::TRAP_ON_END,
    &l::GLG_EN,
    &l::IMAGE_OP,
    &l::DISABLE_PERF,
    &l::WGP_TAKEOVER,
];

/// The most SHARED_VGPR_COUNT LLVM accepts beside GRANULATED_WORKITEM_VGPR_COUNT
/// `granulated`: 2 * SHARED_VGPR_COUNT + GRANULATED_WORKITEM_VGPR_COUNT
/// is at most the latter's largest value (63), and SHARED_VGPR_COUNT at
/// most its own.
pub fn shared_vgpr_room(granulated: u32) -> u32 {
    let vgpr_max = field_max(&l::GRANULATED_WORKITEM_VGPR_COUNT);
    ((vgpr_max - granulated.min(vgpr_max)) / 2).min(field_max(&l::SHARED_VGPR_COUNT))
}

/// The largest value field `f` holds.
pub fn field_max(f: &BitField) -> u32 {
    f.mask() >> f.shift
}

/// True if `.amdhsa_reserve_flat_scratch` exists on `t` (GFX7 and later
/// without architected flat scratch; llvm-mc-19 rejects it elsewhere).
pub fn has_reserve_flat_scratch(t: &Target) -> bool {
    t.generation >= Generation::Gfx7 && !t.architected_flat_scratch
}

/// The most SGPRs LLVM accepts in `.amdhsa_next_free_sgpr` on `tc` with the
/// given extra SGPRs: GFX6-7 and SGPR-init-bug processors count the extra
/// SGPRs against the limit (104, 96), GFX8-9 do not (102), GFX10+ take 106.
pub fn max_next_free_sgpr(t: &Target, extra: u16) -> u16 {
    match t.generation {
        Generation::Gfx6 | Generation::Gfx7 => t.addressable_sgprs.saturating_sub(extra),
        Generation::Gfx8 | Generation::Gfx9 if t.sgpr_init_bug => {
            t.addressable_sgprs.saturating_sub(extra)
        }
        _ => t.addressable_sgprs,
    }
}

impl DescriptorSpec {
    /// A descriptor with LLVM's defaults for `tc` (what `llvm-mc` writes
    /// for a `.amdhsa_kernel` block with only the required directives) and
    /// the given enables.
    pub fn llvm_defaults(tc: &TargetChoice, enables: Enables) -> DescriptorSpec {
        let t = tc.target();
        let gen = t.generation;
        DescriptorSpec {
            group_segment_fixed_size: 0,
            private_segment_fixed_size: 0,
            kernarg_size: 0,
            enables,
            uses_dynamic_stack: false,
            next_free_vgpr: enables.workitem_vgprs(t),
            next_free_sgpr: enables.total_sgprs(t),
            reserve_vcc: true,
            reserve_flat_scratch: true,
            accum_offset: if t.accum_offset { 4 } else { 0 },
            float_round_mode_32: 0,
            float_round_mode_16_64: 0,
            float_denorm_mode_32: 0,
            float_denorm_mode_16_64: 3,
            dx10_clamp: gen <= Generation::Gfx11,
            ieee_mode: gen <= Generation::Gfx11,
            round_robin_scheduling: false,
            disable_perf: false,
            fp16_overflow: false,
            workgroup_processor_mode: t.has_wgp_mode(),
            memory_ordered: gen >= Generation::Gfx10,
            forward_progress: false,
            tg_split: false,
            shared_vgpr_count: 0,
            inst_pref_size: 0,
            trap_on_start: false,
            trap_on_end: false,
            glg_en: false,
            image_op: false,
            wgp_takeover: false,
            exceptions: 0,
        }
    }

    /// The extra SGPRs LLVM adds to `.amdhsa_next_free_sgpr`
    /// (`getNumExtraSGPRs`): 2 for VCC; before GFX8, 4 with flat scratch
    /// (always on GFX6); GFX8-9, 4 with XNACK_MASK and 6 with flat scratch
    /// (always with architected flat scratch); none counted from GFX10
    /// except VCC.
    pub fn extra_sgprs(&self, tc: &TargetChoice) -> u16 {
        let t = tc.target();
        let mut extra = if self.reserve_vcc { 2 } else { 0 };
        if t.generation >= Generation::Gfx10 {
            return extra;
        }
        let flat_scratch = self.reserve_flat_scratch || !has_reserve_flat_scratch(t);
        if t.generation < Generation::Gfx8 {
            if flat_scratch {
                extra = 4;
            }
        } else {
            if t.has_xnack_mask_sgprs() && tc.xnack_enabled() {
                extra = 4;
            }
            if flat_scratch {
                extra = 6;
            }
        }
        extra
    }

    /// The `.sgpr_count` metadata LLVM writes: the next free SGPR plus the
    /// extra SGPRs.
    pub fn sgpr_count(&self, tc: &TargetChoice) -> u16 {
        self.next_free_sgpr + self.extra_sgprs(tc)
    }

    /// GRANULATED_WAVEFRONT_SGPR_COUNT as LLVM computes it (the oracle's
    /// formula; processors with the SGPR init bug always encode 96).
    pub fn granulated_sgpr_count(&self, tc: &TargetChoice) -> u32 {
        let t = tc.target();
        let sgprs = if t.sgpr_init_bug && t.generation < Generation::Gfx10 {
            u32::from(t.addressable_sgprs)
        } else {
            u32::from(self.sgpr_count(tc))
        };
        hsaco_oracle::kd::granulated_sgpr_count(t, sgprs)
    }

    /// GRANULATED_WORKITEM_VGPR_COUNT as LLVM computes it (the oracle's
    /// formula over the table's granules).
    pub fn granulated_vgpr_count(&self, t: &Target) -> u32 {
        hsaco_oracle::kd::granulated_vgpr_count(
            t,
            self.enables.is_wave32(t),
            u32::from(self.next_free_vgpr),
            0,
        )
    }

    /// The VGPRs the descriptor allocates.
    pub fn allocated_vgprs(&self, t: &Target) -> u32 {
        hsaco_oracle::kd::max_vgprs_for_granulated(
            t,
            self.enables.is_wave32(t),
            self.granulated_vgpr_count(t),
        )
    }

    /// True if a field no LLVM directive sets is non-zero (the assembler
    /// text then cannot reproduce the descriptor).
    pub fn uses_fields_without_directives(&self) -> bool {
        self.trap_on_start
            || self.trap_on_end
            || self.glg_en
            || self.image_op
            || self.disable_perf
            || self.wgp_takeover
    }

    /// True if a directive LLVM 19 lacks is needed (`.amdhsa_inst_pref_size`).
    pub fn needs_newer_than_llvm19(&self) -> bool {
        self.inst_pref_size != 0
    }

    /// True if a directive LLVM 14 lacks is needed, for V3 assembler text
    /// (LLVM 14 has no preload, dynamic stack, shared VGPR count or
    /// instruction prefetch directives).
    pub fn needs_newer_than_llvm14(&self) -> bool {
        self.enables.preload_length != 0
            || self.uses_dynamic_stack
            || self.shared_vgpr_count != 0
            || self.inst_pref_size != 0
    }

    /// The 64 bytes as `llvm-mc` writes them, with the given
    /// kernel_code_entry_byte_offset.
    pub fn encode(&self, tc: &TargetChoice, entry_offset: i64) -> KernelDescriptor {
        let t = tc.target();
        // Each field where the oracle's layout table puts it, and only on
        // the targets that define it.
        let put = |word: &mut u32, f: &BitField, v: u32| {
            if (f.defined)(t) {
                *word = f.set(*word, v);
            }
        };
        let b = u32::from;
        let mut r1 = 0;
        put(
            &mut r1,
            &l::GRANULATED_WORKITEM_VGPR_COUNT,
            self.granulated_vgpr_count(t),
        );
        put(
            &mut r1,
            &l::GRANULATED_WAVEFRONT_SGPR_COUNT,
            self.granulated_sgpr_count(tc),
        );
        put(
            &mut r1,
            &l::FLOAT_ROUND_MODE_32,
            self.float_round_mode_32.into(),
        );
        put(
            &mut r1,
            &l::FLOAT_ROUND_MODE_16_64,
            self.float_round_mode_16_64.into(),
        );
        put(
            &mut r1,
            &l::FLOAT_DENORM_MODE_32,
            self.float_denorm_mode_32.into(),
        );
        put(
            &mut r1,
            &l::FLOAT_DENORM_MODE_16_64,
            self.float_denorm_mode_16_64.into(),
        );
        put(&mut r1, &l::ENABLE_DX10_CLAMP, b(self.dx10_clamp));
        put(&mut r1, &l::ENABLE_IEEE_MODE, b(self.ieee_mode));
        put(&mut r1, &l::ENABLE_WG_RR_EN, b(self.round_robin_scheduling));
        put(&mut r1, &l::DISABLE_PERF, b(self.disable_perf));
        put(&mut r1, &l::FP16_OVFL, b(self.fp16_overflow));
        put(&mut r1, &l::WGP_MODE, b(self.workgroup_processor_mode));
        put(&mut r1, &l::MEM_ORDERED, b(self.memory_ordered));
        put(&mut r1, &l::FWD_PROGRESS, b(self.forward_progress));
        let mut r2 = self.enables.rsrc2(t);
        for (k, f) in l::EXCEPTIONS.iter().enumerate() {
            put(&mut r2, f, u32::from(self.exceptions >> k & 1));
        }
        put(&mut r2, &l::WGP_TAKEOVER, b(self.wgp_takeover));
        let mut r3 = 0;
        put(
            &mut r3,
            &l::ACCUM_OFFSET,
            u32::from(self.accum_offset.max(4)) / 4 - 1,
        );
        put(&mut r3, &l::TG_SPLIT, b(self.tg_split));
        put(
            &mut r3,
            &l::SHARED_VGPR_COUNT,
            self.shared_vgpr_count.into(),
        );
        put(
            &mut r3,
            &l::INST_PREF_SIZE_GFX11,
            self.inst_pref_size.into(),
        );
        put(
            &mut r3,
            &l::INST_PREF_SIZE_GFX12,
            self.inst_pref_size.into(),
        );
        put(&mut r3, &l::TRAP_ON_START, b(self.trap_on_start));
        put(&mut r3, &l::TRAP_ON_END, b(self.trap_on_end));
        put(&mut r3, &l::GLG_EN, b(self.glg_en));
        put(&mut r3, &l::IMAGE_OP, b(self.image_op));
        let mut props = u32::from(self.enables.properties(t));
        put(
            &mut props,
            &l::USES_DYNAMIC_STACK,
            b(self.uses_dynamic_stack),
        );
        let props = u16::try_from(props).unwrap_or(u16::MAX);
        KernelDescriptor {
            group_segment_fixed_size: self.group_segment_fixed_size,
            private_segment_fixed_size: self.private_segment_fixed_size,
            kernarg_size: self.kernarg_size,
            kernel_code_entry_byte_offset: entry_offset,
            compute_pgm_rsrc3: r3,
            compute_pgm_rsrc1: r1,
            compute_pgm_rsrc2: r2,
            kernel_code_properties: props,
            kernarg_preload: if t.kernarg_preload {
                self.enables.kernarg_preload()
            } else {
                0
            },
            ..KernelDescriptor::default()
        }
    }
}

/// Register counts a kernel uses, for its descriptor and metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct VgprUse {
    /// `.amdhsa_next_free_vgpr`.
    pub next_free_vgpr: u16,
    /// `.amdhsa_accum_offset` (gfx90a family) or 0.
    pub accum_offset: u16,
    /// `.vgpr_count` metadata.
    pub vgpr_count: u16,
    /// `.agpr_count` metadata (targets with AGPRs).
    pub agpr_count: Option<u16>,
}

/// Draws VGPR and AGPR use the way clang reports it: on the gfx90a family
/// the AGPRs follow the architectural VGPRs at ACCUM_OFFSET and
/// `.vgpr_count` counts both; on gfx908 the files are separate and the
/// descriptor covers the larger.
pub fn arbitrary_vgprs(
    u: &mut Unstructured<'_>,
    cfg: &Config,
    t: &Target,
    min_arch: u16,
) -> arbitrary::Result<VgprUse> {
    let max = cfg
        .max_next_free_vgpr
        .clamp(1, t.addressable_vgprs)
        .max(min_arch);
    let arch = small_or_any(u, min_arch, max)?;
    let agprs = if t.agprs && cfg.agprs && u.arbitrary::<bool>()? {
        small_or_any(u, 0, max)?
    } else {
        0
    };
    let align4 = |v: u16| v.max(1).div_ceil(4) * 4;
    Ok(if t.accum_offset {
        if agprs > 0 {
            let acc = align4(arch);
            VgprUse {
                next_free_vgpr: acc + agprs,
                accum_offset: acc,
                vgpr_count: acc + agprs,
                agpr_count: Some(agprs),
            }
        } else {
            // Without AGPRs any ACCUM_OFFSET up to the allocation is valid.
            let top = align4(arch) / 4;
            let acc = if u.ratio(1u8, 4)? {
                u.int_in_range(1..=top)? * 4
            } else {
                top * 4
            };
            VgprUse {
                next_free_vgpr: arch,
                accum_offset: acc,
                vgpr_count: arch,
                agpr_count: Some(0),
            }
        }
    } else {
        VgprUse {
            next_free_vgpr: arch.max(agprs),
            accum_offset: 0,
            vgpr_count: arch,
            agpr_count: t.agprs.then_some(agprs),
        }
    })
}

/// A value in `lo..=hi`, small (up to `lo + 16`) half of the time: kernels
/// mostly use few registers, and the edges matter most.
fn small_or_any(u: &mut Unstructured<'_>, lo: u16, hi: u16) -> arbitrary::Result<u16> {
    let hi = hi.max(lo);
    if u.arbitrary::<bool>()? {
        u.int_in_range(lo..=hi.min(lo.saturating_add(16)))
    } else {
        u.int_in_range(lo..=hi)
    }
}

/// A size in `0..=max`: zero half of the time.
fn size_or_zero(u: &mut Unstructured<'_>, max: u32) -> arbitrary::Result<u32> {
    if u.arbitrary::<bool>()? {
        Ok(0)
    } else {
        u.int_in_range(0..=max)
    }
}

/// Draws a descriptor for a kernel on `tc` with the given enables, kernarg
/// segment size and VGPR use: every field takes a value LLVM's assembler
/// accepts for the target, and the SGPRs cover the initial SGPRs.
pub fn arbitrary_descriptor(
    u: &mut Unstructured<'_>,
    cfg: &Config,
    tc: &TargetChoice,
    enables: Enables,
    kernarg_segment_size: u32,
    vgprs: VgprUse,
) -> arbitrary::Result<DescriptorSpec> {
    let t = tc.target();
    let gen = t.generation;
    let mut d = DescriptorSpec::llvm_defaults(tc, enables);
    d.next_free_vgpr = vgprs.next_free_vgpr;
    d.accum_offset = vgprs.accum_offset;

    d.group_segment_fixed_size =
        size_or_zero(u, cfg.max_group_segment_fixed_size.min(t.lds_bytes))?;
    d.private_segment_fixed_size = size_or_zero(u, cfg.max_private_segment_fixed_size)?;
    let preload = enables.preload_length != 0 && t.kernarg_preload;
    d.kernarg_size = if cfg.kernarg_size_zero && !preload && u.ratio(1u8, 8)? {
        0
    } else {
        kernarg_segment_size
    };
    d.uses_dynamic_stack = tc.cov >= CodeObjectVersion::V5 && cfg.dynamic_stack && u.arbitrary()?;

    d.reserve_vcc = u.arbitrary()?;
    d.reserve_flat_scratch = !has_reserve_flat_scratch(t) || u.arbitrary()?;
    let extra = d.extra_sgprs(tc);
    let need = enables.total_sgprs(t);
    let max = max_next_free_sgpr(t, extra)
        .min(cfg.max_next_free_sgpr)
        .max(need);
    d.next_free_sgpr = small_or_any(u, need, max)?;

    if cfg.float_modes {
        d.float_round_mode_32 = u.int_in_range(0..=3)?;
        d.float_round_mode_16_64 = u.int_in_range(0..=3)?;
        d.float_denorm_mode_32 = u.int_in_range(0..=3)?;
        d.float_denorm_mode_16_64 = u.int_in_range(0..=3)?;
    }
    if cfg.mode_bits {
        if gen <= Generation::Gfx11 {
            d.dx10_clamp = u.arbitrary()?;
            d.ieee_mode = u.arbitrary()?;
        } else {
            d.round_robin_scheduling = u.arbitrary()?;
        }
        if gen >= Generation::Gfx9 {
            d.fp16_overflow = u.arbitrary()?;
        }
        if t.has_wgp_mode() {
            d.workgroup_processor_mode = u.arbitrary()?;
        }
        if gen >= Generation::Gfx10 {
            d.memory_ordered = u.arbitrary()?;
            d.forward_progress = u.arbitrary()?;
        }
        if t.accum_offset {
            d.tg_split = u.arbitrary()?;
        }
    }
    if cfg.exceptions {
        d.exceptions = u.int_in_range(0..=0x7f)?;
    }
    let wave32 = enables.is_wave32(t);
    if cfg.rsrc3_fields {
        if matches!(gen, Generation::Gfx10 | Generation::Gfx11) && !wave32 {
            let max = shared_vgpr_room(d.granulated_vgpr_count(t)) as u8;
            let v3_ok = tc.cov != CodeObjectVersion::V3 || !cfg.rebuildable_only;
            if v3_ok && u.ratio(1u8, 3)? {
                d.shared_vgpr_count = u.int_in_range(0..=max)?;
            }
        }
        if gen >= Generation::Gfx11 && !cfg.rebuildable_only && u.ratio(1u8, 3)? {
            let f = if gen == Generation::Gfx11 {
                &l::INST_PREF_SIZE_GFX11
            } else {
                &l::INST_PREF_SIZE_GFX12
            };
            let max = field_max(f) as u8;
            d.inst_pref_size = u.int_in_range(0..=max)?;
        }
    }
    if cfg.fields_without_directives && !cfg.rebuildable_only && u.ratio(1u8, 4)? {
        match gen {
            Generation::Gfx11 => {
                d.trap_on_start = u.arbitrary()?;
                d.trap_on_end = u.arbitrary()?;
                d.image_op = u.arbitrary()?;
            }
            Generation::Gfx12 => {
                d.glg_en = u.arbitrary()?;
                d.image_op = u.arbitrary()?;
                d.disable_perf = u.arbitrary()?;
                d.wgp_takeover = u.arbitrary()?;
            }
            _ => {}
        }
    }
    if tc.cov == CodeObjectVersion::V3 && cfg.rebuildable_only {
        // LLVM 14 (the V3 assembler) has none of these directives.
        d.uses_dynamic_stack = false;
        d.shared_vgpr_count = 0;
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsaco_oracle::targets::{by_name, FeatureSetting, TargetId};

    fn tc(name: &str, xnack: FeatureSetting) -> TargetChoice {
        let t = by_name(name).unwrap_or_else(|| panic!("{name}"));
        let mut id = TargetId::any(t);
        if t.xnack {
            id.xnack = xnack;
        }
        TargetChoice {
            id,
            cov: CodeObjectVersion::V5,
            generic_version: 0,
        }
    }

    /// Values observed with llvm-mc-19: `.amdhsa_next_free_sgpr N` with
    /// `.amdhsa_reserve_vcc 0` and `.amdhsa_reserve_flat_scratch 0` (where
    /// it exists), xnack off.
    #[test]
    fn sgpr_blocks_match_llvm_mc() {
        use FeatureSetting::Off;
        let cases: &[(&str, &[(u16, u32)])] = &[
            (
                "gfx600",
                &[(0, 0), (8, 1), (9, 1), (90, 11), (96, 12), (100, 12)],
            ),
            (
                "gfx700",
                &[(0, 0), (8, 0), (9, 1), (96, 11), (97, 12), (104, 12)],
            ),
            ("gfx803", &[(8, 0), (9, 1), (102, 12)]),
            ("gfx802", &[(0, 11), (96, 11)]),
            ("gfx900", &[(1, 0), (9, 1), (102, 12)]),
            ("gfx942", &[(1, 0), (8, 1), (96, 12), (100, 13), (102, 13)]),
            ("gfx1010", &[(0, 0), (102, 0)]),
        ];
        for (name, pairs) in cases {
            let c = tc(name, Off);
            let mut d = DescriptorSpec::llvm_defaults(&c, Enables::default());
            d.reserve_vcc = false;
            d.reserve_flat_scratch = false;
            for &(n, g) in *pairs {
                d.next_free_sgpr = n;
                assert_eq!(d.granulated_sgpr_count(&c), g, "{name} next_free_sgpr {n}");
            }
            assert!(
                pairs
                    .iter()
                    .all(|&(n, _)| n <= max_next_free_sgpr(c.target(), d.extra_sgprs(&c))),
                "{name}"
            );
        }
        // Limits: gfx600 101 and gfx700 105 and gfx900 103 are rejected.
        assert_eq!(max_next_free_sgpr(by_name("gfx600").expect("t"), 4), 100);
        assert_eq!(max_next_free_sgpr(by_name("gfx700").expect("t"), 0), 104);
        assert_eq!(max_next_free_sgpr(by_name("gfx900").expect("t"), 6), 102);
        assert_eq!(max_next_free_sgpr(by_name("gfx802").expect("t"), 0), 96);
    }

    #[test]
    fn clang_gfx90a_example_encodes_like_llvm_mc() {
        // The directives of a clang-19 gfx90a V5 kernel (next_free_vgpr 32,
        // next_free_sgpr 36, accum_offset 32, reserves on, xnack any) with
        // llvm-mc-19's default float modes give rsrc1 0x00ac0143: 42 SGPRs
        // -> 5 blocks, 32 VGPRs -> 3 blocks; clang's .sgpr_count is 42.
        let c = tc("gfx90a", FeatureSetting::Any);
        let e = Enables {
            user: 0x3b,
            private_segment: true,
            workgroup_ids: 7,
            workitem_id: 2,
            ..Enables::default()
        };
        let mut d = DescriptorSpec::llvm_defaults(&c, e);
        d.next_free_vgpr = 32;
        d.next_free_sgpr = 36;
        d.accum_offset = 32;
        assert_eq!(d.sgpr_count(&c), 42);
        let kd = d.encode(&c, 0x1100);
        assert_eq!(kd.compute_pgm_rsrc1, 0x00ac_0143);
        assert_eq!(kd.compute_pgm_rsrc3, 7);
        assert_eq!(kd.kernel_code_entry_byte_offset, 0x1100);
    }

    #[test]
    fn defaults_match_llvm_mc() {
        // `.amdhsa_next_free_vgpr 8`, `.amdhsa_next_free_sgpr 8` and
        // nothing else (plus accum_offset 4 on gfx90a), from llvm-mc-19.
        for (name, r1, r2, props) in [
            ("gfx900", 0x00ac_0041u32, 0x80u32, 0u16),
            ("gfx90a", 0x00ac_0040, 0x80, 0),
            ("gfx1010", 0x60ac_0000, 0x80, 0x400),
        ] {
            let c = tc(name, FeatureSetting::Any);
            let e = Enables {
                workgroup_ids: 1,
                wave32: c.target().wave32,
                ..Enables::default()
            };
            let mut d = DescriptorSpec::llvm_defaults(&c, e);
            d.next_free_vgpr = 8;
            d.next_free_sgpr = 8;
            let kd = d.encode(&c, 0);
            assert_eq!(
                (
                    kd.compute_pgm_rsrc1,
                    kd.compute_pgm_rsrc2,
                    kd.kernel_code_properties
                ),
                (r1, r2, props),
                "{name}"
            );
        }
    }
}
