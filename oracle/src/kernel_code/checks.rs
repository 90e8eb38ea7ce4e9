//! The rules on an `amd_kernel_code_t` and on where it sits.

use super::*;
use crate::kd::checks::{
    check_rsrc1_cp_and_reserved, expect_no_reserved_bit31, expect_no_trap_handler, expect_zero,
};
use crate::layout::{describe_set_bits, v2::CONTROL_DIRECTIVES_RESERVED_RANGES};

/// Checks every rule that needs only the `amd_kernel_code_t`, the
/// processor it is for and the xnack setting of `e_flags`
/// ([`FeatureSetting::Any`] skips the xnack comparison). `offset` is the
/// structure's file offset; violations point at the offending field. The
/// initial-state rules are in [`crate::sgpr::v2::check`], the placement
/// rules in [`check_placement`].
pub fn check(
    code: &KernelCode,
    target: &Target,
    xnack: FeatureSetting,
    offset: u64,
    sink: &mut Sink,
) {
    let gen = target.generation;
    let at = |field: u64| offset.saturating_add(field);

    if code.amd_kernel_code_version_major != VERSION_MAJOR_VALUE {
        sink.report_at(
            &VERSION_MAJOR,
            at(offsets::VERSION_MAJOR),
            format!(
                "amd_kernel_code_version_major is {}, expected {VERSION_MAJOR_VALUE}",
                code.amd_kernel_code_version_major
            ),
        );
    }
    if code.amd_machine_kind != MACHINE_KIND_AMDGPU {
        sink.report_at(
            &MACHINE_KIND,
            at(offsets::MACHINE_KIND),
            format!(
                "amd_machine_kind is {}, expected {MACHINE_KIND_AMDGPU} (AMDGPU)",
                code.amd_machine_kind
            ),
        );
    }
    let got = [
        code.amd_machine_version_major,
        code.amd_machine_version_minor,
        code.amd_machine_version_stepping,
    ];
    let want = target.isa_version.map(u16::from);
    if got != want {
        let field = if got[0] != want[0] {
            offsets::MACHINE_VERSION_MAJOR
        } else if got[1] != want[1] {
            offsets::MACHINE_VERSION_MINOR
        } else {
            offsets::MACHINE_VERSION_STEPPING
        };
        sink.report_at(
            &MACHINE_VERSION,
            at(field),
            format!(
                "amd_machine_version is {}.{}.{}, but {target} has ISA version {}.{}.{}",
                got[0], got[1], got[2], want[0], want[1], want[2]
            ),
        );
    }
    let entry = code.kernel_code_entry_byte_offset;
    if (0..KERNEL_CODE_SIZE as i64).contains(&entry) {
        sink.report_at(
            &ENTRY_OFFSET_INSIDE,
            at(offsets::KERNEL_CODE_ENTRY_BYTE_OFFSET),
            format!("kernel_code_entry_byte_offset is {entry}: the entry would lie inside the 256-byte amd_kernel_code_t"),
        );
    }
    let uses_scratch = code.workitem_private_segment_byte_size > 0 || code.is_dynamic_callstack();
    if code.max_scratch_backing_memory_byte_size != 0 && !uses_scratch {
        sink.report_at(
            &MAX_SCRATCH_BACKING_MEMORY,
            at(offsets::MAX_SCRATCH_BACKING_MEMORY_BYTE_SIZE),
            format!(
                "max_scratch_backing_memory_byte_size is {}, but the kernel uses no scratch",
                code.max_scratch_backing_memory_byte_size
            ),
        );
    }

    check_rsrc1(code, target, at(offsets::COMPUTE_PGM_RSRC1), sink);
    check_rsrc2(code, target, at(offsets::COMPUTE_PGM_RSRC2), sink);

    // code_properties
    let props_at = at(offsets::CODE_PROPERTIES);
    let reserved = code.properties_reserved();
    if reserved != 0 {
        sink.report_at(
            &PROPERTIES_RESERVED,
            props_at,
            format!(
                "code_properties {:#010x} has reserved {} set",
                code.code_properties,
                describe_set_bits(reserved)
            ),
        );
    }
    if code.enable_wavefront_size32() && (gen < Generation::Gfx10 || !target.wave32) {
        sink.report_at(
            &PROPERTIES_WAVEFRONT_SIZE32,
            props_at,
            format!("ENABLE_WAVEFRONT_SIZE32 is set, but {target} has no wave32 mode"),
        );
    }
    if code.private_element_size() != 1 {
        sink.report_at(
            &PRIVATE_ELEMENT_SIZE,
            props_at,
            format!(
                "private_element_size is {} ({} bytes); the runtime configures 4-byte elements",
                code.private_element_size(),
                code.private_element_size_bytes()
            ),
        );
    }
    if !code.is_ptr64() {
        sink.report_at(
            &IS_PTR64,
            props_at,
            "is_ptr64 is 0, but amdgcn HSA code uses 64-bit global addresses",
        );
    }
    let x = code.is_xnack_enabled();
    let xnack_problem = if !target.xnack || xnack == FeatureSetting::Unsupported {
        x.then(|| format!("is_xnack_enabled is 1, but {target} has no XNACK"))
    } else {
        match xnack {
            FeatureSetting::On if !x => {
                Some("is_xnack_enabled is 0, but e_flags says xnack is on".to_owned())
            }
            FeatureSetting::Off if x => {
                Some("is_xnack_enabled is 1, but e_flags says xnack is off".to_owned())
            }
            _ => None,
        }
    };
    if let Some(msg) = xnack_problem {
        sink.report_at(&XNACK, props_at, msg);
    }
    if uses_scratch && !code.enable_sgpr_private_segment_wave_byte_offset() {
        sink.report_at(
            &SCRATCH_EN,
            at(offsets::COMPUTE_PGM_RSRC2),
            format!(
                "the kernel uses scratch (workitem_private_segment_byte_size {}, is_dynamic_callstack {}), but compute_pgm_rsrc2 bit 0 (SCRATCH_EN) is clear",
                code.workitem_private_segment_byte_size,
                u8::from(code.is_dynamic_callstack())
            ),
        );
    }

    // Registers.
    if !code.is_debug_enabled() {
        for (field, name, v) in [
            (
                offsets::DEBUG_WAVEFRONT_PRIVATE_SEGMENT_OFFSET_SGPR,
                "debug_wavefront_private_segment_offset_sgpr",
                code.debug_wavefront_private_segment_offset_sgpr,
            ),
            (
                offsets::DEBUG_PRIVATE_SEGMENT_BUFFER_SGPR,
                "debug_private_segment_buffer_sgpr",
                code.debug_private_segment_buffer_sgpr,
            ),
        ] {
            if v != 0 {
                sink.report_at(
                    &DEBUG_SGPRS,
                    at(field),
                    format!("{name} is {v}, but is_debug_enabled is 0"),
                );
            }
        }
    }
    if code.reserved_vgpr_count == 0 && code.reserved_vgpr_first != 0 {
        sink.report_at(
            &RESERVED_VGPR_FIRST,
            at(offsets::RESERVED_VGPR_FIRST),
            format!(
                "reserved_vgpr_first is {}, but reserved_vgpr_count is 0",
                code.reserved_vgpr_first
            ),
        );
    }
    if code.reserved_sgpr_count == 0 && code.reserved_sgpr_first != 0 {
        sink.report_at(
            &RESERVED_SGPR_FIRST,
            at(offsets::RESERVED_SGPR_FIRST),
            format!(
                "reserved_sgpr_first is {}, but reserved_sgpr_count is 0",
                code.reserved_sgpr_first
            ),
        );
    }
    if let Some(alloc) = code.allocated_sgprs(target) {
        let used = u32::from(code.wavefront_sgpr_count);
        if used > alloc {
            sink.report_at(
                &GRANULATED_SGPR_COUNT,
                at(offsets::COMPUTE_PGM_RSRC1),
                format!(
                    "GRANULATED_WAVEFRONT_SGPR_COUNT {} allocates {alloc} SGPRs, but wavefront_sgpr_count is {used}",
                    code.granulated_wavefront_sgpr_count()
                ),
            );
        }
    }
    let alloc_v = code.allocated_vgprs(target);
    if u32::from(code.workitem_vgpr_count) > alloc_v {
        sink.report_at(
            &GRANULATED_VGPR_COUNT,
            at(offsets::COMPUTE_PGM_RSRC1),
            format!(
                "GRANULATED_WORKITEM_VGPR_COUNT {} allocates {alloc_v} VGPRs, but workitem_vgpr_count is {}",
                code.granulated_workitem_vgpr_count(),
                code.workitem_vgpr_count
            ),
        );
    }

    // Segments.
    for (field, name, v) in [
        (
            offsets::KERNARG_SEGMENT_ALIGNMENT,
            "kernarg_segment_alignment",
            code.kernarg_segment_alignment,
        ),
        (
            offsets::GROUP_SEGMENT_ALIGNMENT,
            "group_segment_alignment",
            code.group_segment_alignment,
        ),
        (
            offsets::PRIVATE_SEGMENT_ALIGNMENT,
            "private_segment_alignment",
            code.private_segment_alignment,
        ),
    ] {
        if v < 4 {
            sink.report_at(
                &SEGMENT_ALIGNMENT,
                at(field),
                format!(
                    "{name} is {v} ({} bytes), below the minimum 4 (16 bytes)",
                    1u32 << v
                ),
            );
        }
    }
    if target.lds_bytes > 0 && code.workgroup_group_segment_byte_size > target.lds_bytes {
        sink.report_at(
            &GROUP_SEGMENT_SIZE,
            at(offsets::WORKGROUP_GROUP_SEGMENT_BYTE_SIZE),
            format!(
                "workgroup_group_segment_byte_size is {}, but {target} has {} bytes of LDS",
                code.workgroup_group_segment_byte_size, target.lds_bytes
            ),
        );
    }
    let want_wave = if code.wave32(target) { 5 } else { 6 };
    if code.wavefront_size != want_wave {
        sink.report_at(
            &WAVEFRONT_SIZE,
            at(offsets::WAVEFRONT_SIZE),
            format!(
                "wavefront_size is {}, expected {want_wave} (wave{})",
                code.wavefront_size,
                1u32 << want_wave
            ),
        );
    }

    // Loader field and reserved ranges.
    if code.runtime_loader_kernel_symbol != 0 {
        sink.report_at(
            &RUNTIME_LOADER_KERNEL_SYMBOL,
            at(offsets::RUNTIME_LOADER_KERNEL_SYMBOL),
            format!(
                "runtime_loader_kernel_symbol is {:#x}, expected 0 in a code object",
                code.runtime_loader_kernel_symbol
            ),
        );
    }
    if let Some(i) = code.reserved3.iter().position(|&b| b != 0) {
        let first = offsets::RESERVED3 + i as u64;
        sink.report_at(
            &RESERVED_BYTES,
            at(first),
            format!(
                "reserved bytes 108..120 are not zero (byte {first} is {:#04x})",
                code.reserved3.get(i).copied().unwrap_or(0)
            ),
        );
    }
    for (lo, hi) in CONTROL_DIRECTIVES_RESERVED_RANGES {
        let range = code.control_directives.get(lo..hi).unwrap_or(&[]);
        if let Some(i) = range.iter().position(|&b| b != 0) {
            let first = offsets::CONTROL_DIRECTIVES + (lo + i) as u64;
            let (a, b) = (
                offsets::CONTROL_DIRECTIVES + lo as u64,
                offsets::CONTROL_DIRECTIVES + hi as u64,
            );
            sink.report_at(
                &CONTROL_DIRECTIVES_RESERVED,
                at(first),
                format!(
                    "reserved control directive bytes {a}..{b} are not zero (byte {first} is {:#04x})",
                    range.get(i).copied().unwrap_or(0)
                ),
            );
        }
    }
}

fn check_rsrc1(code: &KernelCode, target: &Target, at: u64, sink: &mut Sink) {
    let rules = [
        &RSRC1_PRIORITY,
        &RSRC1_PRIV,
        &RSRC1_DEBUG_MODE,
        &RSRC1_BULKY,
        &RSRC1_CDBG_USER,
        &RSRC1_RESERVED,
    ];
    // V2's reserved rsrc1 bits are the descriptor's (26 before GFX9, 31:29
    // before GFX10, 28:27 always).
    check_rsrc1_cp_and_reserved(code.compute_pgm_rsrc1, rules, target, at, sink);
}

fn check_rsrc2(code: &KernelCode, target: &Target, at: u64, sink: &mut Sink) {
    let r2 = code.compute_pgm_rsrc2;
    expect_no_trap_handler(&RSRC2_TRAP_HANDLER, r2, at, sink);
    expect_zero(
        r2,
        &[(&RSRC2_GRANULATED_LDS_SIZE, &layout::GRANULATED_LDS_SIZE)],
        at,
        sink,
    );
    expect_no_reserved_bit31(&RSRC2_RESERVED, r2, target, at, sink);
}

/// Checks where the `amd_kernel_code_t` and its code sit: `address` is the
/// kernel symbol's value (a virtual address in a linked object, a section
/// offset in a relocatable one, whose `.text` is 256-byte aligned), and
/// `offset` its file offset for the report.
pub fn check_placement(code: &KernelCode, address: u64, offset: u64, sink: &mut Sink) {
    if !address.is_multiple_of(ALIGNMENT_BYTES) {
        sink.report_at(
            &ADDRESS_ALIGNMENT,
            offset,
            format!("the amd_kernel_code_t is at {address:#x}, not {ALIGNMENT_BYTES}-byte aligned"),
        );
    }
    // Wrapping arithmetic keeps the residue modulo 256 exact.
    let entry = address.wrapping_add(code.kernel_code_entry_byte_offset as u64);
    if !entry.is_multiple_of(ENTRY_ALIGNMENT_BYTES) {
        sink.report_at(
            &ENTRY_ALIGNMENT,
            offset.saturating_add(offsets::KERNEL_CODE_ENTRY_BYTE_OFFSET),
            format!(
                "the entry is at {entry:#x} ({address:#x} {:+}), not {ENTRY_ALIGNMENT_BYTES}-byte aligned",
                code.kernel_code_entry_byte_offset
            ),
        );
    }
}
