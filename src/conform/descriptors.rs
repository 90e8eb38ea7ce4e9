//! The `descriptors` comparison: `llvm-objdump -D
//! --disassemble-symbols=K.kd` of an object ([`super::objdump`]),
//! directive by directive, against the oracle's decode of each kernel
//! descriptor (every installed LLVM version that knows the processor).
//! The same comparison has a second peer per LLVM version, the
//! reassembly ([`super::reassembly`]).

use std::collections::BTreeSet;

use hsaco_oracle::check::check_object;
use hsaco_oracle::kd::{self, KernelDescriptor};
use hsaco_oracle::layout;
use hsaco_oracle::targets::{Generation, Target};
use serde_json::{json, Map, Value};

use super::Verdict;

/// The reason llvm-objdump-19 refuses a GFX10+ descriptor whose
/// GRANULATED_WAVEFRONT_SGPR_COUNT is not zero (clang-19 writes it; the
/// field is reserved there).
const SGPR_GRANULE_REFUSAL: &str = "COMPUTE_PGM_RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT reserved bits in range (9:6) set, must be zero on gfx10+";

/// The reason llvm-objdump-19 refuses a GFX12 descriptor with rsrc2 bit
/// 31 (WGP_TAKEOVER on GFX12, reserved before) set.
const WGP_TAKEOVER_REFUSAL: &str = "COMPUTE_PGM_RSRC2 reserved bit (31) set";

/// The oracle's value for llvm-objdump's directive (lowercase) or comment
/// field (uppercase) `d`; `None` when the oracle has no such field. (The
/// LLVM tests of the descriptor decoder use it too.)
pub fn oracle_value(desc: &KernelDescriptor, target: &Target, d: &str) -> Option<u64> {
    let b = |x: bool| Some(u64::from(x));
    let v: u64 = match d {
        "group_segment_fixed_size" => desc.group_segment_fixed_size.into(),
        "private_segment_fixed_size" => desc.private_segment_fixed_size.into(),
        "kernarg_size" => desc.kernarg_size.into(),
        "next_free_vgpr" => kd::max_vgprs_for_granulated(
            target,
            desc.wave32(target),
            desc.granulated_workitem_vgpr_count(),
        )
        .into(),
        "next_free_sgpr" => {
            kd::max_sgprs_for_granulated(target, desc.granulated_wavefront_sgpr_count()).into()
        }
        // Not recoverable from a descriptor: the decoder prints 0, and
        // llvm-objdump-22 prints `.amdhsa_reserve_xnack_mask 1` for every
        // GFX12.5 descriptor, whatever the xnack setting (gfx1250,
        // gfx1250:xnack-, gfx1250:xnack+ alike).
        "reserve_xnack_mask" => u64::from(target.is_gfx12_5()),
        "reserve_vcc" | "reserve_flat_scratch" => 0,
        "system_sgpr_private_segment_wavefront_offset" | "enable_private_segment" => {
            return b(desc.enable_private_segment())
        }
        // The field holds the first AGPR / 4 - 1; the directive the index.
        "accum_offset" => desc.accum_offset().into(),
        // Every other bit field, by its directive or the name llvm-objdump
        // prints it under (a directive, or a comment: `; INST_PREF_SIZE 38`,
        // SHARED_VGPR_COUNT of wave32 kernels), from the oracle's layout
        // table: the row the target defines, else any row of that name.
        _ => {
            let named = |f: &&&layout::BitField| {
                f.directive == Ok(d)
                    || f.name == d
                    || matches!(f.printed, layout::Printed::Directive(n) | layout::Printed::Comment(n) if n == d)
            };
            let f = layout::FIELDS
                .iter()
                .filter(named)
                .find(|f| (f.defined)(target))
                .or_else(|| layout::FIELDS.iter().find(named))?;
            desc.field(f).into()
        }
    };
    Some(v)
}

/// Directives llvm-objdump leaves out when the value is zero.
pub const PRINTED_IF_NONZERO: &[&str] = &[
    "user_sgpr_kernarg_preload_length",
    "user_sgpr_kernarg_preload_offset",
];

/// Directives or comment fields printed exactly when the target's
/// descriptor has the oracle field (any of the names, oracle field name).
pub const PRESENCE: &[(&[&str], &str)] = &[
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
    (
        &["inst_pref_size", "INST_PREF_SIZE"],
        "compute_pgm_rsrc3.inst_pref_size",
    ),
    (&["TRAP_ON_START"], "compute_pgm_rsrc3.trap_on_start"),
    (&["TRAP_ON_END"], "compute_pgm_rsrc3.trap_on_end"),
    (&["GLG_EN"], "compute_pgm_rsrc3.glg_en"),
    (&["IMAGE_OP"], "compute_pgm_rsrc3.image_op"),
];

/// One disagreement: normalized key, message, allowlist tags.
pub(super) type Mismatch = (String, String, Vec<String>);

/// Each disagreement between llvm-objdump `version`'s decode `dirs` of
/// `kernel` and the oracle's. Which fields are printed (and which only
/// when not zero) is LLVM 19's behaviour: older decoders print another
/// set, so for them only the values they print are compared.
fn field_mismatches(
    kernel: &str,
    dirs: &Map<String, Value>,
    desc: &KernelDescriptor,
    target: &Target,
    version: u32,
) -> Vec<Mismatch> {
    let mut out = Vec::new();
    for (d, v) in dirs {
        let v = v.as_u64();
        match oracle_value(desc, target, d) {
            None => out.push((
                format!("descriptors: field {d} unknown to the oracle"),
                format!("{kernel}: llvm-objdump prints {d} = {v:?}, unknown to the oracle"),
                Vec::new(),
            )),
            Some(mine) if Some(mine) != v => {
                // LLVM 14 decodes the VGPR granule of GFX10+ wave64
                // kernels with the wave32 encoding granule (8 instead
                // of 4): twice the oracle's count.
                let granule = version < 19
                    && d == "next_free_vgpr"
                    && target.generation >= Generation::Gfx10
                    && !desc.wave32(target)
                    && v == Some(mine.saturating_mul(2));
                out.push((
                    format!("descriptors: field {d} differs"),
                    format!("{kernel}: {d}: llvm-objdump {v:?}, oracle {mine}"),
                    if granule {
                        vec!["quirk:llvm14-wave64-vgpr-granule".to_owned()]
                    } else {
                        Vec::new()
                    },
                ))
            }
            Some(_) => {}
        }
    }
    if version < 19 {
        return out;
    }
    for &d in PRINTED_IF_NONZERO {
        let mine = oracle_value(desc, target, d).unwrap_or(0);
        if !dirs.contains_key(d) && mine != 0 {
            out.push((
                format!("descriptors: field {d} omitted"),
                format!("{kernel}: {d}: llvm-objdump omits it (0), oracle {mine}"),
                Vec::new(),
            ));
        }
    }
    let names: BTreeSet<&str> = desc.fields(target).iter().map(|f| f.name).collect();
    for &(ds, field) in PRESENCE {
        let printed = ds.iter().any(|d| dirs.contains_key(*d));
        let has = names.contains(field);
        if printed != has {
            out.push((
                format!("descriptors: presence of {field} differs"),
                format!(
                    "{kernel}: llvm-objdump {} {ds:?}, the oracle {} {field}",
                    if printed { "prints" } else { "does not print" },
                    if has { "has" } else { "lacks" }
                ),
                Vec::new(),
            ));
        }
    }
    out
}

pub(super) fn compare_descriptors(
    target: &Target,
    bytes: &[u8],
    value: &Value,
    version: u32,
) -> Verdict {
    if let Some(e) = value.get("tool_error").and_then(Value::as_str) {
        return Verdict::differs(
            format!("llvm-objdump fails on a valid object: {e}"),
            "descriptors: llvm-objdump fails",
            Vec::new(),
        );
    }
    let Some(kernels) = value.get("kernels").and_then(Value::as_object) else {
        return Verdict::NotComparable("the peer returned no descriptors".to_owned());
    };
    let report = check_object(bytes);
    let mut found: Vec<Mismatch> = Vec::new();
    let mut compared = 0usize;
    for k in &report.kernels {
        let Some(desc) = &k.descriptor else { continue };
        compared += 1;
        let Some(view) = kernels.get(&k.name) else {
            found.push((
                "descriptors: kernel not decoded".to_owned(),
                format!("{}: llvm-objdump prints no descriptor", k.name),
                Vec::new(),
            ));
            continue;
        };
        if let Some(reason) = view.get("error").and_then(Value::as_str) {
            if reason.ends_with(SGPR_GRANULE_REFUSAL)
                && target.generation >= Generation::Gfx10
                && desc.granulated_wavefront_sgpr_count() != 0
            {
                found.push((
                    "descriptors: refuses a GFX10+ SGPR granule".to_owned(),
                    format!("{}: llvm-objdump refuses: {reason}", k.name),
                    vec!["quirk:sgpr-granule".to_owned()],
                ));
            } else if reason.ends_with(WGP_TAKEOVER_REFUSAL)
                && target.generation >= Generation::Gfx12
                && desc.wgp_takeover()
            {
                found.push((
                    "descriptors: refuses GFX12 WGP_TAKEOVER".to_owned(),
                    format!("{}: llvm-objdump refuses: {reason}", k.name),
                    vec!["quirk:gfx12-wgp-takeover".to_owned()],
                ));
            } else {
                found.push((
                    "descriptors: llvm-objdump refuses the descriptor".to_owned(),
                    format!("{}: llvm-objdump refuses: {reason}", k.name),
                    Vec::new(),
                ));
            }
            continue;
        }
        let Some(dirs) = view.get("fields").and_then(Value::as_object) else {
            continue;
        };
        found.extend(field_mismatches(&k.name, dirs, desc, target, version));
    }
    if compared == 0 {
        return Verdict::NotComparable("the object has no kernel descriptors".to_owned());
    }
    mismatch_verdict(found, |message| format!("{target}: {message}"))
}

/// The verdict on a list of disagreements: the same when there is none;
/// else the first one no tag explains names the finding, the message
/// (`message` of the joined list) lists them all, and the tags are kept
/// only when every disagreement has one (then the allowlist may know it).
pub(super) fn mismatch_verdict(
    mut found: Vec<Mismatch>,
    message: impl FnOnce(String) -> String,
) -> Verdict {
    found.sort_by_key(|(_, _, tags)| !tags.is_empty());
    let Some((key, _, _)) = found.first() else {
        return Verdict::Same;
    };
    let key = key.clone();
    let mut tags: Vec<String> = if found.iter().all(|f| !f.2.is_empty()) {
        found.iter().flat_map(|f| f.2.clone()).collect()
    } else {
        Vec::new()
    };
    tags.sort();
    tags.dedup();
    let list = found
        .iter()
        .map(|f| f.1.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    Verdict::differs(message(list), key, tags)
}

/// One `NAME.kd` block being read: its directives, or the refusal.
type Block = (String, Result<Map<String, Value>, String>);

/// Parses llvm-objdump's `-D` output: kernel name → `{"fields": {...}}`
/// or `{"error": reason}`.
pub fn parse_objdump(out: &str) -> Map<String, Value> {
    let mut result = Map::new();
    let mut current: Option<Block> = None;
    let flush = |c: Option<Block>, r: &mut Map<String, Value>| {
        if let Some((n, s)) = c {
            let v = match s {
                Ok(m) => json!({ "fields": m }),
                Err(e) => json!({ "error": e }),
            };
            r.insert(n, v);
        }
    };
    for line in out.lines() {
        if let Some(rest) = line.strip_suffix(".kd>:") {
            if let Some((_, name)) = rest.rsplit_once('<') {
                flush(current.take(), &mut result);
                current = Some((name.to_owned(), Ok(Map::new())));
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
        let Ok(map) = state.as_mut() else { continue };
        let entry = l.strip_prefix(".amdhsa_").or_else(|| {
            l.strip_prefix("; ")
                .filter(|c| c.starts_with(|ch: char| ch.is_ascii_uppercase()))
        });
        let Some(entry) = entry else { continue };
        let mut it = entry.split_whitespace();
        let (Some(key), Some(val), None) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        if key == "kernel" {
            continue;
        }
        let v = match val.parse::<u64>() {
            Ok(n) => Value::from(n),
            Err(_) => Value::from(val),
        };
        map.insert(key.to_owned(), v);
    }
    flush(current.take(), &mut result);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objdump_blocks_parse() {
        let out = "\n0000000000001000 <a.kd>:\n\t.amdhsa_kernel a\n\t\t.amdhsa_next_free_vgpr 8\n\t\t; SHARED_VGPR_COUNT 0\n\t.end_amdhsa_kernel\n0000000000001040 <b.kd>:\n; error decoding b.kd: bad bits\n";
        let m = parse_objdump(out);
        assert_eq!(
            Value::Object(m),
            json!({"a": {"fields": {"next_free_vgpr": 8, "SHARED_VGPR_COUNT": 0}}, "b": {"error": "bad bits"}})
        );
    }
}
