//! Probe kernels (`hsaco_gen::probe`) against the real toolchain, for a
//! sample of SGPR suite entries of every family: their assembler text,
//! assembled by llvm-mc-19 and llvm-mc-22 and linked by ld.lld-19 and
//! ld.lld-22, loads exactly as what `gen` wrote (the same program headers
//! and allocated sections, byte for byte: code, descriptor, notes,
//! dynamic symbols; lld adds only an unallocated `.comment`);
//! llvm-objdump-19 and -22
//! decode their descriptors as the oracle does; the oracle finds them
//! clean; and the output-address patch sites hold the placeholders.
//!
//! The sample is the first and last entry of each family and 6 drawn from
//! the `test` seed domain. `HSACO_PROBES=all cargo test --test probe_llvm`
//! checks every entry of every family instead (hours: the suite has
//! 328,704 entries).

mod support;

use hsaco_gen::probe;
use hsaco_gen::sgpr;
use hsaco_gen::target::Family;
use support::probe::{problems, toolchains, Probe};

/// Entries drawn per family besides the first and the last.
const DRAWN: usize = 6;

/// The suite indices of `family` this run checks.
fn sample(family: Family) -> Vec<usize> {
    let n = sgpr::suite_len(family);
    if std::env::var("HSACO_PROBES").is_ok_and(|v| v == "all") {
        return (0..n).collect();
    }
    let bytes = hsaco_gen::seed::bytes(family as u64, "test", 0, 8 * DRAWN);
    let mut v: Vec<usize> = bytes
        .chunks(8)
        .map(|c| (u64::from_le_bytes(c.try_into().unwrap()) % n as u64) as usize)
        .collect();
    v.push(0);
    v.push(n - 1);
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn probes_rebuild_to_the_same_bytes_and_are_clean() {
    let Some(tcs) = toolchains() else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut bad = Vec::new();
    let mut checked = 0;
    for family in Family::ALL {
        let wanted = sample(family);
        let mut next = wanted.iter().peekable();
        for (i, entry) in sgpr::suite(family).enumerate() {
            if next.peek() != Some(&&i) {
                continue;
            }
            next.next();
            let name = probe::sgpr_probe_name(&entry, i);
            let p = probe::sgpr_probe(&entry, &name).expect("every family has probes");
            bad.extend(problems(
                &tcs,
                &Probe {
                    name: &p.plan.case,
                    object: &p.object,
                    elf: &p.elf,
                    asm: &p.asm,
                    kernel: &p.plan.kernel,
                    target: &p.plan.target,
                    patch_offsets: p.plan.patch_offsets,
                },
                dir.path(),
            ));
            checked += 1;
            if next.peek().is_none() {
                break;
            }
        }
    }
    assert!(
        checked >= Family::ALL.len() * 2,
        "checked only {checked} probes"
    );
    assert!(
        bad.is_empty(),
        "{} problems:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
