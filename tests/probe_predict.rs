//! The three halves of hardware replay agree with each other without a
//! GPU: for SGPR probes of every family, the oracle predicts every wave of
//! the probe's own plan from the descriptor it reads out of the probe's
//! bytes; the output buffer a GPU would fill if every prediction held,
//! written in the probe's record layout and read back by
//! `probe::Dump::parse` with the plan's lane and SGPR counts, compares
//! with no difference; and a buffer with one initial SGPR changed in one
//! wave is exactly one difference naming that SGPR.

use hsaco_gen::probe;
use hsaco_gen::sgpr;
use hsaco_gen::target::Family;
use hsaco_oracle::check::check_object;
use hsaco_oracle::probe::{Addresses, Dump};
use hsaco_oracle::targets::by_name;
use hsaco_oracle::wave::{self, Expect, Reg};

/// Addresses a runtime could pick: 4 KiB-aligned queue, a packet inside
/// its ring, a 64-byte aligned kernarg segment.
const ADDRESSES: Addresses = Addresses {
    packet: 0x7f00_1234_5000 + 3 * 64,
    queue: 0x7f00_1234_0000,
    kernarg: 0x7f00_2000_0040,
    output: 0x7f00_3000_0000,
    packet_index: 3,
};

#[test]
fn predictions_of_probe_plans_round_trip_through_the_buffer_layout() {
    let mut checked = 0;
    for family in Family::ALL {
        let n = sgpr::suite_len(family);
        for index in [0, n / 3, n / 2, n - 1] {
            let entry = sgpr::suite(family).nth(index).unwrap();
            let name = probe::sgpr_probe_name(&entry, index);
            let p = probe::sgpr_probe(&entry, &name).unwrap();
            let report = check_object(&p.elf);
            let kd = report.kernels[0].descriptor.expect("a descriptor");
            let t = by_name(&p.plan.target).unwrap();
            let pred = wave::predict(&kd, t, &p.plan).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            assert_eq!(pred.lanes, p.plan.lanes, "{name}");
            assert_eq!(pred.captured_sgprs, p.plan.captured_sgprs, "{name}");
            assert!(
                pred.waves.len() as u64 <= probe::SHAPE.max_waves(p.plan.lanes),
                "{name}: more waves than the buffer holds"
            );
            let dump = pred.to_dump(&ADDRESSES, |_, _| None);
            let bytes = dump.to_bytes(p.plan.records());
            assert_eq!(bytes.len() as u64, p.plan.output_bytes, "{name}");
            let read = Dump::parse(&bytes, p.plan.lanes, p.plan.captured_sgprs).unwrap();
            let diffs = wave::compare(&pred, &read, &ADDRESSES);
            assert!(diffs.is_empty(), "{name}: {diffs:#?}");

            // One exact SGPR of the last wave changed: one difference.
            let last = pred.waves.len() - 1;
            let sgpr = pred.waves[last].expect.iter().find(|e| {
                matches!(e.field.reg, Reg::Sgpr(_)) && matches!(e.expect, Expect::Exact(_))
            });
            if let Some(target) = sgpr {
                let field = target.field;
                let mut k = 0;
                let bad = pred.to_dump(&ADDRESSES, |w, e| {
                    let hit = w.id() == pred.waves[last].id() && e.field == field;
                    k += usize::from(hit);
                    hit.then(|| match &e.expect {
                        Expect::Exact(v) => v.resolve(&ADDRESSES) ^ 0x10,
                        Expect::Check(_) => 0,
                    })
                });
                assert_eq!(k, 1);
                let bytes = bad.to_bytes(p.plan.records());
                let read = Dump::parse(&bytes, p.plan.lanes, p.plan.captured_sgprs).unwrap();
                let diffs = wave::compare(&pred, &read, &ADDRESSES);
                assert_eq!(diffs.len(), 1, "{name}: {diffs:#?}");
                let line = diffs[0].to_string();
                assert!(line.contains(&field.to_string()), "{name}: {line}");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, Family::ALL.len() * 4);
}
