//! The descriptor's rules: reserved bits, CP-set fields, wave size,
//! kernarg preload, and agreement with the kernel's metadata.

use super::*;
use crate::layout::BitField;
use crate::rules::Rule;

impl KernelDescriptor {
    /// Checks every field rule that needs only the descriptor, the target
    /// and the code object version. `offset` is the descriptor's file
    /// offset; violations point at the offending field.
    pub fn check(&self, target: &Target, cov: CodeObjectVersion, offset: u64, sink: &mut Sink) {
        let gen = target.generation;
        let at = |field: u64| offset.saturating_add(field);

        for (start, bytes) in [
            (offsets::RESERVED0, &self.reserved0[..]),
            (offsets::RESERVED1, &self.reserved1[..]),
            (offsets::RESERVED3, &self.reserved3[..]),
        ] {
            if let Some(i) = bytes.iter().position(|&b| b != 0) {
                let first = start + i as u64;
                sink.report_at(
                    &RESERVED_BYTES,
                    at(first),
                    format!(
                        "reserved descriptor bytes {start}..{} are not zero (byte {first} is {:#04x})",
                        start + bytes.len() as u64,
                        bytes.get(i).copied().unwrap_or(0)
                    ),
                );
            }
        }

        self.check_rsrc1(target, at(offsets::COMPUTE_PGM_RSRC1), sink);
        self.check_rsrc2(target, at(offsets::COMPUTE_PGM_RSRC2), sink);
        self.check_rsrc3(target, at(offsets::COMPUTE_PGM_RSRC3), sink);

        // kernel_code_properties
        let props = u32::from(self.kernel_code_properties);
        let reserved = props & reserved_mask(Word::Properties, target);
        if reserved != 0 {
            sink.report_at(
                &PROPERTIES_RESERVED,
                at(offsets::KERNEL_CODE_PROPERTIES),
                format!(
                    "kernel_code_properties {:#06x} has reserved {} set",
                    self.kernel_code_properties,
                    describe_set_bits(reserved)
                ),
            );
        }
        let w32 = self.enable_wavefront_size32();
        if gen < Generation::Gfx10 {
            if w32 {
                sink.report_at(
                    &PROPERTIES_WAVEFRONT_SIZE32,
                    at(offsets::KERNEL_CODE_PROPERTIES),
                    format!(
                        "ENABLE_WAVEFRONT_SIZE32 is set, but {target} ({gen:?}) has no wave32 mode"
                    ),
                );
            }
        } else if w32 && !target.wave32 {
            sink.report_at(
                &PROPERTIES_WAVEFRONT_SIZE32,
                at(offsets::KERNEL_CODE_PROPERTIES),
                format!("ENABLE_WAVEFRONT_SIZE32 is set, but {target} does not support wave32"),
            );
        } else if !w32 && !target.wave64 {
            sink.report_at(
                &PROPERTIES_WAVEFRONT_SIZE32,
                at(offsets::KERNEL_CODE_PROPERTIES),
                format!("ENABLE_WAVEFRONT_SIZE32 is clear (wave64), but {target} does not support wave64"),
            );
        }
        if self.uses_dynamic_stack() && cov < CodeObjectVersion::V5 {
            sink.report_at(
                &PROPERTIES_USES_DYNAMIC_STACK,
                at(offsets::KERNEL_CODE_PROPERTIES),
                format!("USES_DYNAMIC_STACK is set in a code object {cov} descriptor, where the bit is not defined"),
            );
        }

        // kernarg_preload
        if self.kernarg_preload != 0 {
            if !target.kernarg_preload {
                sink.report_at(
                    &KERNARG_PRELOAD_UNSUPPORTED,
                    at(offsets::KERNARG_PRELOAD),
                    format!(
                        "kernarg_preload is {:#06x}, but {target} cannot preload kernel arguments",
                        self.kernarg_preload
                    ),
                );
            } else {
                let len = self.kernarg_preload_length();
                let off = self.kernarg_preload_offset();
                let max = max_user_sgprs(target);
                if len > max {
                    sink.report_at(
                        &KERNARG_PRELOAD_LENGTH,
                        at(offsets::KERNARG_PRELOAD),
                        format!("kernarg preload length is {len} dwords; at most {max} SGPRs can be preloaded"),
                    );
                }
                let end = u64::from(len + off) * 4;
                if len != 0 && self.kernarg_size != 0 && end > u64::from(self.kernarg_size) {
                    sink.report_at(
                        &KERNARG_PRELOAD_EXCEEDS_KERNARG_SIZE,
                        at(offsets::KERNARG_PRELOAD),
                        format!(
                            "kernarg preload covers bytes {}..{end}, past kernarg_size {}",
                            u64::from(off) * 4,
                            self.kernarg_size
                        ),
                    );
                }
            }
        }
    }

    fn check_rsrc1(&self, target: &Target, at: u64, sink: &mut Sink) {
        if target.generation >= Generation::Gfx10 && self.granulated_wavefront_sgpr_count() != 0 {
            sink.report_lazy(&RSRC1_GRANULATED_SGPR_COUNT, Some(at), || {
                format!(
                    "GRANULATED_WAVEFRONT_SGPR_COUNT is {} on {target}, where it is reserved (must be 0)",
                    self.granulated_wavefront_sgpr_count()
                )
            });
        }
        let rules = [
            &RSRC1_PRIORITY,
            &RSRC1_PRIV,
            &RSRC1_DEBUG_MODE,
            &RSRC1_BULKY,
            &RSRC1_CDBG_USER,
            &RSRC1_RESERVED,
        ];
        check_rsrc1_cp_and_reserved(self.compute_pgm_rsrc1, rules, target, at, sink);
    }

    fn check_rsrc2(&self, target: &Target, at: u64, sink: &mut Sink) {
        let r2 = self.compute_pgm_rsrc2;
        if target.generation < Generation::Gfx12 {
            expect_no_trap_handler(&RSRC2_TRAP_HANDLER, r2, at, sink);
        }
        let cp_set = [
            (
                &RSRC2_EXCEPTION_ADDRESS_WATCH,
                &layout::ENABLE_EXCEPTION_ADDRESS_WATCH,
            ),
            (&RSRC2_EXCEPTION_MEMORY, &layout::ENABLE_EXCEPTION_MEMORY),
            (&RSRC2_GRANULATED_LDS_SIZE, &layout::GRANULATED_LDS_SIZE),
        ];
        expect_zero(r2, &cp_set, at, sink);
        expect_no_reserved_bit31(&RSRC2_RESERVED, r2, target, at, sink);
    }

    fn check_rsrc3(&self, target: &Target, at: u64, sink: &mut Sink) {
        let gen = target.generation;
        let r3 = self.compute_pgm_rsrc3;
        expect_no_reserved(&RSRC3_RESERVED, Word::Rsrc3, r3, target, at, sink);
        if matches!(gen, Generation::Gfx10 | Generation::Gfx11) {
            let shared = self.shared_vgpr_count();
            if shared != 0 && self.wave32(target) {
                sink.report_at(
                    &RSRC3_SHARED_VGPR_COUNT_WAVE32,
                    at,
                    format!("SHARED_VGPR_COUNT is {shared} in a wave32 kernel"),
                );
            }
            let total = shared * 2 + self.granulated_workitem_vgpr_count();
            if total > 63 {
                sink.report_at(
                    &RSRC3_SHARED_VGPR_COUNT_OVERFLOW,
                    at,
                    format!(
                        "2 * SHARED_VGPR_COUNT ({shared}) + GRANULATED_WORKITEM_VGPR_COUNT ({}) = {total} exceeds 63",
                        self.granulated_workitem_vgpr_count()
                    ),
                );
            }
        }
        if target.accum_offset {
            let acc = self.accum_offset();
            let alloc = self.allocated_vgprs(target);
            if acc > alloc {
                sink.report_at(
                    &RSRC3_ACCUM_OFFSET,
                    at,
                    format!("ACCUM_OFFSET puts the first AGPR at v{acc}, beyond the {alloc} VGPRs allocated"),
                );
            }
        }
    }

    /// Checks the descriptor against facts from the kernel's metadata.
    /// Facts that are `None` (key absent) are not compared; the metadata
    /// module reports missing keys.
    pub fn check_against_metadata(
        &self,
        facts: &MetadataFacts,
        target: &Target,
        cov: CodeObjectVersion,
        offset: u64,
        sink: &mut Sink,
    ) {
        let gen = target.generation;
        let at = |field: u64| offset.saturating_add(field);
        if let Some(v) = facts.group_segment_fixed_size {
            if v != u64::from(self.group_segment_fixed_size) {
                sink.report_at(
                    &METADATA_GROUP_SEGMENT_FIXED_SIZE,
                    at(offsets::GROUP_SEGMENT_FIXED_SIZE),
                    format!(
                        "descriptor group_segment_fixed_size is {}, metadata .group_segment_fixed_size is {v}",
                        self.group_segment_fixed_size
                    ),
                );
            }
        }
        if let Some(v) = facts.private_segment_fixed_size {
            if v != u64::from(self.private_segment_fixed_size) {
                sink.report_at(
                    &METADATA_PRIVATE_SEGMENT_FIXED_SIZE,
                    at(offsets::PRIVATE_SEGMENT_FIXED_SIZE),
                    format!(
                        "descriptor private_segment_fixed_size is {}, metadata .private_segment_fixed_size is {v}",
                        self.private_segment_fixed_size
                    ),
                );
            }
        }
        if let Some(v) = facts.kernarg_segment_size {
            if self.kernarg_size != 0 && v != u64::from(self.kernarg_size) {
                sink.report_at(
                    &METADATA_KERNARG_SEGMENT_SIZE,
                    at(offsets::KERNARG_SIZE),
                    format!(
                        "descriptor kernarg_size is {}, metadata .kernarg_segment_size is {v}",
                        self.kernarg_size
                    ),
                );
            }
        }
        let wave32 = self.wave32(target);
        if let Some(w) = facts.wavefront_size {
            let expected = if wave32 { 32 } else { 64 };
            if w != expected {
                sink.report_at(
                    &METADATA_WAVEFRONT_SIZE,
                    at(offsets::KERNEL_CODE_PROPERTIES),
                    format!("descriptor selects wave{expected}, metadata .wavefront_size is {w}"),
                );
            }
        }
        if let (Some(s), Some(alloc)) = (facts.sgpr_count, self.allocated_sgprs(target)) {
            if s > u64::from(alloc) {
                sink.report_at(
                    &METADATA_SGPR_COUNT,
                    at(offsets::COMPUTE_PGM_RSRC1),
                    format!(
                        "GRANULATED_WAVEFRONT_SGPR_COUNT {} allocates {alloc} SGPRs, metadata .sgpr_count is {s}",
                        self.granulated_wavefront_sgpr_count()
                    ),
                );
            }
        }
        let alloc_v = u64::from(self.allocated_vgprs(target));
        let agprs = facts.agpr_count.unwrap_or(0);
        if let Some(v) = facts.vgpr_count {
            // gfx90a family: .vgpr_count already counts AGPRs (unified file);
            // elsewhere AGPRs are a separate file of the same size.
            let needed = if target.accum_offset {
                let acc_end = if agprs > 0 {
                    u64::from(self.accum_offset()).saturating_add(agprs)
                } else {
                    0
                };
                v.max(acc_end)
            } else {
                v.max(agprs)
            };
            if needed > alloc_v {
                sink.report_at(
                    &METADATA_VGPR_COUNT,
                    at(offsets::COMPUTE_PGM_RSRC1),
                    format!(
                        "GRANULATED_WORKITEM_VGPR_COUNT {} allocates {alloc_v} VGPRs ({}), but the metadata needs {needed} (.vgpr_count {v}, .agpr_count {agprs})",
                        self.granulated_workitem_vgpr_count(),
                        if wave32 { "wave32" } else { "wave64" }
                    ),
                );
            }
            if target.accum_offset && agprs > 0 {
                let arch = v.saturating_sub(agprs);
                if arch > u64::from(self.accum_offset()) {
                    sink.report_at(
                        &METADATA_ACCUM_OFFSET,
                        at(offsets::COMPUTE_PGM_RSRC3),
                        format!(
                            "ACCUM_OFFSET is {}, but .vgpr_count {v} - .agpr_count {agprs} = {arch} architectural VGPRs",
                            self.accum_offset()
                        ),
                    );
                }
            }
        } else if agprs > alloc_v && !target.accum_offset {
            sink.report_at(
                &METADATA_VGPR_COUNT,
                at(offsets::COMPUTE_PGM_RSRC1),
                format!("descriptor allocates {alloc_v} VGPRs, metadata .agpr_count is {agprs}"),
            );
        }
        if let Some(d) = facts.uses_dynamic_stack {
            if cov >= CodeObjectVersion::V5 && d != self.uses_dynamic_stack() {
                sink.report_at(
                    &METADATA_USES_DYNAMIC_STACK,
                    at(offsets::KERNEL_CODE_PROPERTIES),
                    format!(
                        "descriptor USES_DYNAMIC_STACK is {}, metadata .uses_dynamic_stack is {d}",
                        self.uses_dynamic_stack()
                    ),
                );
            }
        }
        if let Some(m) = facts.workgroup_processor_mode {
            if gen >= Generation::Gfx10 && target.cumode && m != self.wgp_mode() {
                sink.report_at(
                    &METADATA_WORKGROUP_PROCESSOR_MODE,
                    at(offsets::COMPUTE_PGM_RSRC1),
                    format!(
                        "descriptor WGP_MODE is {}, metadata .workgroup_processor_mode is {m}",
                        self.wgp_mode()
                    ),
                );
            }
        }
    }
}

/// The rsrc1 checks V3+ and V2 share, under `rules` (PRIORITY, PRIV,
/// DEBUG_MODE, BULKY, CDBG_USER, then the reserved bits): the fields CP
/// fills in are 0, and so are the bits no field defines.
pub(crate) fn check_rsrc1_cp_and_reserved(
    r1: u32,
    rules: [&'static Rule; 6],
    target: &Target,
    at: u64,
    sink: &mut Sink,
) {
    let [priority, priv_, debug_mode, bulky, cdbg_user, reserved] = rules;
    let cp_set = [
        (priority, &layout::PRIORITY),
        (priv_, &layout::PRIV),
        (debug_mode, &layout::DEBUG_MODE),
        (bulky, &layout::BULKY),
        (cdbg_user, &layout::CDBG_USER),
    ];
    expect_zero(r1, &cp_set, at, sink);
    expect_no_reserved(reserved, Word::Rsrc1, r1, target, at, sink);
}

/// Reports each CP-set field of `fields` that is not 0 in `word`, at `at`,
/// under its rule (V3+ and V2 share the fields, not the rule ids).
pub(crate) fn expect_zero(
    word: u32,
    fields: &[(&'static Rule, &BitField)],
    at: u64,
    sink: &mut Sink,
) {
    for (rule, f) in fields {
        match f.get(word) {
            0 => {}
            _ if f.width == 1 => sink.report_at(rule, at, format!("{} is set, expected 0", f.name)),
            v => sink.report_at(rule, at, format!("{} is {v}, expected 0", f.name)),
        }
    }
}

/// Reports `rule` when `value` of `word` sets bits no field defines on
/// `target`.
pub(crate) fn expect_no_reserved(
    rule: &'static Rule,
    word: Word,
    value: u32,
    target: &Target,
    at: u64,
    sink: &mut Sink,
) {
    let reserved = value & reserved_mask(word, target);
    if reserved != 0 {
        sink.report_at(
            rule,
            at,
            format!(
                "{} {value:#010x} has {} set, reserved on {target}",
                word.name(),
                describe_set_bits(reserved)
            ),
        );
    }
}

/// Reports `rule` when rsrc2 bit 31 is set where it is reserved (before
/// GFX12); the other reserved-looking rsrc2 bits have rules of their own.
pub(crate) fn expect_no_reserved_bit31(
    rule: &'static Rule,
    r2: u32,
    target: &Target,
    at: u64,
    sink: &mut Sink,
) {
    if r2 & reserved_mask(Word::Rsrc2, target) & 1 << 31 != 0 {
        sink.report_at(
            rule,
            at,
            format!("compute_pgm_rsrc2 bit 31 is set, reserved on {target}"),
        );
    }
}

/// Reports `rule` when rsrc2 ENABLE_TRAP_HANDLER is set.
pub(crate) fn expect_no_trap_handler(rule: &'static Rule, r2: u32, at: u64, sink: &mut Sink) {
    if layout::ENABLE_TRAP_HANDLER.get(r2) != 0 {
        sink.report_at(
            rule,
            at,
            "ENABLE_TRAP_HANDLER is set; CP sets the trap bit itself",
        );
    }
}
