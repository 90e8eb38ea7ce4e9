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

// Which value the oracle gives for each directive, and which directives
// are printed when: the same tables `conform`'s descriptor comparison uses.
pub use hsaco_conform::conform::descriptors::{oracle_value, PRESENCE, PRINTED_IF_NONZERO};

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
