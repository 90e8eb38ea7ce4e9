//! Target `oracle_check`: any bytes through the oracle's whole check, as
//! `hsaco-conform check` runs it (container scan, then every code object
//! found with [`Detail::Full`], then the JSON report).
//!
//! Finds: panics (slice indexing, arithmetic overflow, unwraps on input
//! data) anywhere in the container (bundles, compressed bundles, host
//! binaries), ELF, note, MessagePack/YAML metadata, descriptor and
//! initial-state layers, and memory use beyond the bound of
//! `tests/check_robustness.rs` (peak at most 16 × input + 1 MiB, plus, when
//! the input holds a compressed bundle, 17 × [`UNPACK_LIMIT`] for the one
//! decompressed bundle alive and the check of its members), checked on
//! every input when [`crate::alloc::Counting`] is the global allocator (as
//! in the fuzz target and the crate's tests).

use hsaco_oracle::check::{check_object_with, Detail, ObjectReport};
use hsaco_oracle::container::{self, Visit};
use hsaco_oracle::rules::MAX_INFOS_PER_RULE;
use hsaco_oracle::Severity;

/// Ceiling on one compressed bundle's uncompressed size while fuzzing:
/// small, so that hostile headers are refused early and the memory bound
/// stays tight.
pub const UNPACK_LIMIT: u64 = 1 << 16;

/// Most bytes checking an input of `n` bytes may hold at once; `unpacks`
/// says whether it holds a compressed bundle.
pub fn budget(n: usize, unpacks: bool) -> usize {
    let base = n.saturating_mul(16).saturating_add(1 << 20);
    if unpacks {
        base.saturating_add(17 * UNPACK_LIMIT as usize)
    } else {
        base
    }
}

/// Checks `data`; panics if the oracle panics, leaves out a finding it
/// does not count, or breaks its memory bound.
pub fn run(data: &[u8]) {
    let mut unpacks = false;
    let ((), peak) = crate::alloc::measure(|| {
        let scan = container::scan(data);
        unpacks = !scan.compressed.is_empty();
        // Each report is judged and dropped at once, as `check` streams
        // them: only one decompressed bundle is alive at a time.
        scan.for_each(UNPACK_LIMIT, &mut |v| {
            if let Visit::Members(ms) = v {
                for m in ms {
                    judge(&check_object_with(m.data, Detail::Full));
                }
            }
        });
        if scan.members.is_empty() && scan.compressed.is_empty() {
            // The oracle's contract covers any bytes, not only what the
            // scan calls a code object.
            judge(&check_object_with(data, Detail::Full));
        }
    });
    assert!(
        peak <= budget(data.len(), unpacks),
        "checking {} bytes held {peak} bytes at peak (budget {})",
        data.len(),
        budget(data.len(), unpacks)
    );
}

fn judge(r: &ObjectReport) {
    // Info findings are kept up to the cap per rule; whatever is left out
    // (past the cap, or past the bound on kept findings that hostile input
    // can reach) is counted under its rule and severity.
    for o in &r.omitted {
        assert!(o.count > 0, "{}", o.rule.id);
        assert_eq!(o.severity, o.rule.severity, "{}", o.rule.id);
    }
    let infos = r.violations.iter().filter(|v| v.severity == Severity::Info);
    let mut per_rule = std::collections::HashMap::new();
    for v in infos {
        *per_rule.entry(v.rule.id).or_insert(0usize) += 1;
    }
    for (rule, n) in per_rule {
        assert!(n <= MAX_INFOS_PER_RULE, "{rule}: {n} kept");
    }
    // The JSON report is the scripts' interface: it must serialise
    // whatever the object holds (written to a sink, so the text costs no
    // memory).
    let json = serde_json::to_writer(std::io::sink(), r);
    assert!(json.is_ok(), "report does not serialise: {json:?}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smoke;

    #[test]
    fn random_and_elf_like_inputs() {
        assert!(crate::alloc::installed(), "the test binary counts");
        for (k, mut input) in smoke::inputs(0x000c_4ec4, 300, 2048)
            .into_iter()
            .enumerate()
        {
            if k % 2 == 0 && input.len() >= 64 {
                // An ELF64 AMDGPU header, so deeper layers are reached.
                input[..4].copy_from_slice(b"\x7fELF");
                input[4] = 2;
                input[5] = 1;
                input[7] = 64;
                input[18] = 224;
                input[19] = 0;
            }
            run(&input);
        }
    }

    #[test]
    fn generated_objects_and_their_truncations() {
        let cases = smoke::generated_cases(8);
        assert_eq!(cases.len(), 8);
        for c in &cases {
            run(&c.elf);
            for cut in (0..c.elf.len()).step_by(97) {
                run(&c.elf[..cut]);
            }
        }
    }

    #[test]
    fn over_budget_is_caught() {
        // The bound is real: a check that held more would fail. Measure an
        // allocation the size of the budget for a small input.
        let ((), peak) = crate::alloc::measure(|| {
            std::hint::black_box(vec![0u8; budget(10, false) + 1]);
        });
        assert!(peak > budget(10, false));
    }
}
