//! Kernel descriptors as `llvm-objdump-19 -D` decodes them, compared with
//! the oracle's decode.
//!
//! llvm-objdump prints each descriptor symbol `NAME.kd` as an
//! `.amdhsa_kernel NAME` block of `.amdhsa_*` directives, plus `; FIELD n`
//! comments for fields that have no directive (GFX10+ COMPUTE_PGM_RSRC3
//! bits), or a `; error decoding NAME.kd: REASON` line when it refuses the
//! descriptor. The register counts it prints are the granules' inverses
//! (`(granule + 1) * encoding granule`), which the oracle computes with
//! [`kd::max_sgprs_for_granulated`] and [`kd::max_vgprs_for_granulated`].

use hsaco_oracle::kd::{self, KernelDescriptor};
use hsaco_oracle::targets::{Generation, Target};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// One descriptor as llvm-objdump decodes it: directive (without
/// `.amdhsa_`, lowercase) or comment field (uppercase, as printed) to value,
/// or the decoder's refusal reason.
pub type Decoded = Result<BTreeMap<String, u64>, String>;

/// The reason llvm-objdump-19 gives for refusing a GFX10+ descriptor whose
/// GRANULATED_WAVEFRONT_SGPR_COUNT is not zero, which clang-19 writes (the
/// field is reserved there; LLVM stopped writing it after PR 154666).
pub const SGPR_GRANULE_QUIRK: &str = "kernel descriptor COMPUTE_PGM_RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT reserved bits in range (9:6) set, must be zero on gfx10+";

/// True if `reason` is exactly the refusal of the GFX10+ SGPR granule
/// quirk and the quirk can apply to `target` and `desc`.
pub fn is_sgpr_granule_quirk(reason: &str, target: &Target, desc: &KernelDescriptor) -> bool {
    reason == SGPR_GRANULE_QUIRK
        && target.generation >= Generation::Gfx10
        && desc.granulated_wavefront_sgpr_count() != 0
}

/// Clears GRANULATED_WAVEFRONT_SGPR_COUNT (rsrc1 bits 9:6) of the
/// descriptor at `file_offset` in `bytes`, so llvm-objdump-19 decodes the
/// rest of a descriptor it refuses for [`SGPR_GRANULE_QUIRK`].
pub fn clear_sgpr_granule(bytes: &mut [u8], file_offset: usize) {
    let at = file_offset + kd::offsets::COMPUTE_PGM_RSRC1 as usize;
    let word = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) & !(0xF << 6);
    bytes[at..at + 4].copy_from_slice(&word.to_le_bytes());
}

/// Decodes the descriptors of `kernels` in `file` with one llvm-objdump
/// process (`--disassemble-symbols=a.kd,b.kd,...`); the result maps kernel
/// name to its decode. Output blocks are told apart by their
/// `ADDRESS <NAME.kd>:` header lines.
pub fn decode(objdump: &Path, file: &Path, kernels: &[&str]) -> BTreeMap<String, Decoded> {
    let syms: Vec<String> = kernels.iter().map(|k| format!("{k}.kd")).collect();
    let mut cmd = Command::new(objdump);
    cmd.arg("-D")
        .arg(format!("--disassemble-symbols={}", syms.join(",")))
        .arg(file);
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    parse(&String::from_utf8_lossy(&out.stdout))
}

/// Parses llvm-objdump's output into one [`Decoded`] per `.kd` symbol.
pub fn parse(out: &str) -> BTreeMap<String, Decoded> {
    let mut result = BTreeMap::new();
    let mut current: Option<(String, Decoded)> = None;
    for line in out.lines() {
        // "0000000000001000 <name.kd>:" starts a descriptor.
        if let Some(rest) = line.strip_suffix(".kd>:") {
            if let Some((_, name)) = rest.rsplit_once('<') {
                if let Some((n, r)) = current.take() {
                    assert!(result.insert(n, r).is_none(), "symbol decoded twice");
                }
                current = Some((name.to_owned(), Ok(BTreeMap::new())));
                continue;
            }
        }
        let Some((name, state)) = current.as_mut() else {
            continue;
        };
        let l = line.trim();
        if let Some(reason) = l
            .strip_prefix("; error decoding ")
            .and_then(|r| r.strip_prefix(name.as_str()))
            .and_then(|r| r.strip_prefix(".kd: "))
        {
            *state = Err(reason.to_owned());
            continue;
        }
        let Ok(map) = state.as_mut() else {
            continue;
        };
        // `.amdhsa_NAME VALUE`, or `; FIELD VALUE` for a field without a
        // directive (the field names are uppercase, directives lowercase).
        let entry = if let Some(d) = l.strip_prefix(".amdhsa_") {
            Some(d)
        } else {
            l.strip_prefix("; ")
                .filter(|c| c.starts_with(|ch: char| ch.is_ascii_uppercase()))
        };
        let Some(entry) = entry else { continue };
        let mut it = entry.split_whitespace();
        let (Some(key), Some(val), None) = (it.next(), it.next(), it.next()) else {
            panic!("unexpected line {l:?}");
        };
        if key == "kernel" {
            continue;
        }
        let v: u64 = val.parse().unwrap_or_else(|_| panic!("bad value in {l:?}"));
        assert!(
            map.insert(key.to_owned(), v).is_none(),
            "{key} printed twice for {name}"
        );
    }
    if let Some((n, r)) = current.take() {
        assert!(result.insert(n, r).is_none(), "symbol decoded twice");
    }
    result
}

/// The value the oracle's decode gives for llvm-objdump's directive or
/// comment field `d`, or `None` if the oracle has no such field.
pub fn oracle_value(desc: &KernelDescriptor, target: &Target, d: &str) -> Option<u64> {
    let b = |x: bool| Some(u64::from(x));
    let w32 = desc.wave32(target);
    Some(match d {
        "group_segment_fixed_size" => desc.group_segment_fixed_size.into(),
        "private_segment_fixed_size" => desc.private_segment_fixed_size.into(),
        "kernarg_size" => desc.kernarg_size.into(),
        "next_free_vgpr" => {
            kd::max_vgprs_for_granulated(target, w32, desc.granulated_workitem_vgpr_count()).into()
        }
        "next_free_sgpr" => {
            kd::max_sgprs_for_granulated(target, desc.granulated_wavefront_sgpr_count()).into()
        }
        // The decoder cannot recover these and prints 0.
        "reserve_vcc" | "reserve_flat_scratch" | "reserve_xnack_mask" => 0,
        "float_round_mode_32" => desc.float_round_mode_32().into(),
        "float_round_mode_16_64" => desc.float_round_mode_16_64().into(),
        "float_denorm_mode_32" => desc.float_denorm_mode_32().into(),
        "float_denorm_mode_16_64" => desc.float_denorm_mode_16_64().into(),
        "dx10_clamp" => return b(desc.enable_dx10_clamp()),
        "ieee_mode" => return b(desc.enable_ieee_mode()),
        "round_robin_scheduling" => return b(desc.enable_wg_rr_en()),
        "fp16_overflow" => return b(desc.fp16_ovfl()),
        "workgroup_processor_mode" => return b(desc.wgp_mode()),
        "memory_ordered" => return b(desc.mem_ordered()),
        "forward_progress" => return b(desc.fwd_progress()),
        "system_sgpr_private_segment_wavefront_offset" | "enable_private_segment" => {
            return b(desc.enable_private_segment())
        }
        "system_sgpr_workgroup_id_x" => return b(desc.enable_sgpr_workgroup_id_x()),
        "system_sgpr_workgroup_id_y" => return b(desc.enable_sgpr_workgroup_id_y()),
        "system_sgpr_workgroup_id_z" => return b(desc.enable_sgpr_workgroup_id_z()),
        "system_sgpr_workgroup_info" => return b(desc.enable_sgpr_workgroup_info()),
        "system_vgpr_workitem_id" => desc.enable_vgpr_workitem_id().into(),
        "exception_fp_ieee_invalid_op" => {
            return b(desc.enable_exception_ieee_754_fp_invalid_operation())
        }
        "exception_fp_denorm_src" => return b(desc.enable_exception_fp_denormal_source()),
        "exception_fp_ieee_div_zero" => {
            return b(desc.enable_exception_ieee_754_fp_division_by_zero())
        }
        "exception_fp_ieee_overflow" => return b(desc.enable_exception_ieee_754_fp_overflow()),
        "exception_fp_ieee_underflow" => return b(desc.enable_exception_ieee_754_fp_underflow()),
        "exception_fp_ieee_inexact" => return b(desc.enable_exception_ieee_754_fp_inexact()),
        "exception_int_div_zero" => return b(desc.enable_exception_int_divide_by_zero()),
        "user_sgpr_private_segment_buffer" => return b(desc.enable_sgpr_private_segment_buffer()),
        "user_sgpr_dispatch_ptr" => return b(desc.enable_sgpr_dispatch_ptr()),
        "user_sgpr_queue_ptr" => return b(desc.enable_sgpr_queue_ptr()),
        "user_sgpr_kernarg_segment_ptr" => return b(desc.enable_sgpr_kernarg_segment_ptr()),
        "user_sgpr_dispatch_id" => return b(desc.enable_sgpr_dispatch_id()),
        "user_sgpr_flat_scratch_init" => return b(desc.enable_sgpr_flat_scratch_init()),
        "user_sgpr_private_segment_size" => return b(desc.enable_sgpr_private_segment_size()),
        "user_sgpr_kernarg_preload_length" => desc.kernarg_preload_length().into(),
        "user_sgpr_kernarg_preload_offset" => desc.kernarg_preload_offset().into(),
        "wavefront_size32" => return b(desc.enable_wavefront_size32()),
        "uses_dynamic_stack" => return b(desc.uses_dynamic_stack()),
        "accum_offset" => desc.accum_offset().into(),
        "tg_split" => return b(desc.tg_split()),
        // A directive in wave64, a comment in wave32.
        "shared_vgpr_count" | "SHARED_VGPR_COUNT" => desc.shared_vgpr_count().into(),
        "INST_PREF_SIZE" => desc.inst_pref_size(target.generation).into(),
        "TRAP_ON_START" => return b(desc.trap_on_start()),
        "TRAP_ON_END" => return b(desc.trap_on_end()),
        "GLG_EN" => return b(desc.glg_en()),
        "IMAGE_OP" => return b(desc.image_op()),
        "WGP_TAKEOVER" => return b(desc.wgp_takeover()),
        _ => return None,
    })
}

/// Directives llvm-objdump prints only when the value is non-zero.
const PRINTED_IF_NONZERO: &[&str] = &[
    "user_sgpr_kernarg_preload_length",
    "user_sgpr_kernarg_preload_offset",
];

/// Directives and comment fields that llvm-objdump prints exactly for the
/// targets whose descriptor has the oracle field (any of the names).
const PRESENCE: &[(&[&str], &str)] = &[
    (&["fp16_overflow"], "compute_pgm_rsrc1.fp16_ovfl"),
    (&["dx10_clamp"], "compute_pgm_rsrc1.enable_dx10_clamp"),
    (&["ieee_mode"], "compute_pgm_rsrc1.enable_ieee_mode"),
    (
        &["round_robin_scheduling"],
        "compute_pgm_rsrc1.enable_wg_rr_en",
    ),
    (&["workgroup_processor_mode"], "compute_pgm_rsrc1.wgp_mode"),
    (&["memory_ordered"], "compute_pgm_rsrc1.mem_ordered"),
    (&["forward_progress"], "compute_pgm_rsrc1.fwd_progress"),
    (
        &["wavefront_size32"],
        "kernel_code_properties.enable_wavefront_size32",
    ),
    (&["accum_offset"], "compute_pgm_rsrc3.accum_offset"),
    (&["tg_split"], "compute_pgm_rsrc3.tg_split"),
    (
        &["shared_vgpr_count", "SHARED_VGPR_COUNT"],
        "compute_pgm_rsrc3.shared_vgpr_count",
    ),
    (&["INST_PREF_SIZE"], "compute_pgm_rsrc3.inst_pref_size"),
    (&["TRAP_ON_START"], "compute_pgm_rsrc3.trap_on_start"),
    (&["TRAP_ON_END"], "compute_pgm_rsrc3.trap_on_end"),
    (&["GLG_EN"], "compute_pgm_rsrc3.glg_en"),
    (&["IMAGE_OP"], "compute_pgm_rsrc3.image_op"),
];

/// Compares llvm-objdump's decode `dirs` of one descriptor with the
/// oracle's: every printed value, the values llvm-objdump leaves out
/// because they are zero, and which fields exist on the target. Returns
/// one line per disagreement (empty when they agree).
pub fn mismatches(
    kernel: &str,
    dirs: &BTreeMap<String, u64>,
    desc: &KernelDescriptor,
    target: &Target,
) -> Vec<String> {
    let mut out = Vec::new();
    for (d, &v) in dirs {
        match oracle_value(desc, target, d) {
            None => out.push(format!(
                "{target} {kernel}: llvm-objdump printed {d} = {v}, unknown to the oracle"
            )),
            Some(mine) if mine != v => out.push(format!(
                "{target} {kernel}: {d}: llvm-objdump {v}, oracle {mine}"
            )),
            Some(_) => {}
        }
    }
    for &d in PRINTED_IF_NONZERO {
        if !dirs.contains_key(d) {
            let mine = oracle_value(desc, target, d).unwrap_or(0);
            if mine != 0 {
                out.push(format!(
                    "{target} {kernel}: {d}: llvm-objdump omits it (0), oracle {mine}"
                ));
            }
        }
    }
    let names: BTreeSet<&str> = desc.fields(target).iter().map(|f| f.name).collect();
    for &(ds, field) in PRESENCE {
        let printed = ds.iter().any(|d| dirs.contains_key(*d));
        if printed != names.contains(field) {
            out.push(format!(
                "{target} {kernel}: llvm-objdump {} {ds:?}, oracle {} field {field}",
                if printed { "prints" } else { "does not print" },
                if names.contains(field) {
                    "has"
                } else {
                    "lacks"
                },
            ));
        }
    }
    // Architected flat scratch renames the private segment enable and
    // drops the flat scratch and private segment buffer user SGPRs.
    let arch = [
        "enable_private_segment",
        "reserve_flat_scratch",
        "user_sgpr_private_segment_buffer",
        "user_sgpr_flat_scratch_init",
    ]
    .map(|d| dirs.contains_key(d));
    let want = [
        target.architected_flat_scratch,
        !target.architected_flat_scratch,
        !target.architected_flat_scratch,
        !target.architected_flat_scratch,
    ];
    if arch != want {
        out.push(format!(
            "{target} {kernel}: llvm-objdump's directives {arch:?} (enable_private_segment, \
             reserve_flat_scratch, user_sgpr_private_segment_buffer, \
             user_sgpr_flat_scratch_init) disagree with architected_flat_scratch = {}",
            target.architected_flat_scratch
        ));
    }
    out
}
