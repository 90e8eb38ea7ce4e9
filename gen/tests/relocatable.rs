//! Relocatable objects (`ET_REL`) written from generated cases: the
//! oracle finds them as clean as the linked object of the same case, reads
//! the same metadata and the same descriptors (but for the entry offset,
//! which the relocation supplies), and resolves every kernel's entry
//! through its relocation.

use arbitrary::Unstructured;
use hsaco_gen::{emit, Config, Generator};
use hsaco_oracle::check::check_object;
use hsaco_oracle::targets::CodeObjectVersion;
use hsaco_oracle::Severity;
use std::collections::BTreeSet;

mod common;
use common::seed_bytes;

fn seeds() -> u64 {
    if cfg!(debug_assertions) {
        300
    } else {
        3000
    }
}

#[test]
fn relocatable_objects_are_clean_and_equivalent() {
    let cfg = Config::default();
    let gen = Generator::new(&cfg);
    let mut checked = 0;
    for seed in 0..seeds() {
        let bytes = seed_bytes(seed, 4096);
        let Ok(co) = gen.code_object(&mut Unstructured::new(&bytes)) else {
            continue;
        };
        if co.target.cov < CodeObjectVersion::V3 {
            continue;
        }
        let linked = check_object(&emit::elf_bytes(&co));
        let (rel, relocs) = emit::relocatable_bytes(&co);
        assert_eq!(relocs.len(), co.kernels.len());
        let report = check_object(&rel);
        let not_info = |r: &hsaco_oracle::check::ObjectReport| -> BTreeSet<String> {
            r.violations
                .iter()
                .filter(|v| v.severity != Severity::Info)
                .map(|v| format!("{} {}", v.rule.id, v.message))
                .collect()
        };
        assert!(
            not_info(&report).is_empty(),
            "seed {seed}: {:#?}",
            not_info(&report)
        );
        let ids = |r: &hsaco_oracle::check::ObjectReport| -> BTreeSet<&str> {
            r.violations.iter().map(|v| v.rule.id).collect()
        };
        assert_eq!(ids(&report), ids(&linked), "seed {seed}: infos differ");
        assert_eq!(report.elf_type.as_deref(), Some("ET_REL"));
        assert_eq!(report.target, linked.target);
        assert_eq!(report.metadata, linked.metadata, "seed {seed}");
        assert_eq!(report.kernels.len(), linked.kernels.len());
        for (a, b) in report.kernels.iter().zip(&linked.kernels) {
            assert_eq!(a.name, b.name);
            let (mut da, db) = (
                a.descriptor.expect("descriptor read").to_bytes(),
                b.descriptor.expect("descriptor read").to_bytes(),
            );
            assert_eq!(&da[16..24], &[0; 8], "seed {seed}: entry offset left 0");
            da[16..24].copy_from_slice(&db[16..24]);
            assert_eq!(da, db, "seed {seed}: kernel {}", a.name);
            assert_eq!(a.initial_state, b.initial_state);
        }
        checked += 1;
    }
    assert!(checked > seeds() / 2, "only {checked} cases checked");
}
