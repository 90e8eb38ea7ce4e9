//! `check_object_with(.., Detail::Violations)` (the text-mode path) must
//! find exactly what the full check finds: every rule runs in both modes,
//! only the typed view differs. Compared over every fixture and a sample of
//! the code objects in Debian's librocsparse, when installed.

mod support;

use hsaco_oracle::check::{check_object_with, Detail};
use hsaco_oracle::container;

/// Checks `data` both ways and compares everything the cheap mode keeps.
fn same_in_both_modes(what: &str, data: &[u8]) -> usize {
    let full = check_object_with(data, Detail::Full);
    let lean = check_object_with(data, Detail::Violations);
    assert_eq!(
        format!("{:?}", full.violations),
        format!("{:?}", lean.violations),
        "{what}: violations differ"
    );
    assert_eq!(full.omitted, lean.omitted, "{what}: omitted counts differ");
    assert_eq!(full.target, lean.target, "{what}");
    assert_eq!(full.code_object_version, lean.code_object_version, "{what}");
    assert_eq!(full.elf_type, lean.elf_type, "{what}");
    assert_eq!(full.kernels.len(), lean.kernels.len(), "{what}");
    for (f, l) in full.kernels.iter().zip(&lean.kernels) {
        assert_eq!(f.name, l.name, "{what}");
        assert_eq!(f.descriptor_offset, l.descriptor_offset, "{what}");
        assert_eq!(f.descriptor, l.descriptor, "{what}");
        assert!(l.fields.is_empty() && l.initial_state.is_none() && l.metadata.is_none());
        assert!(l.dispatch_packet.is_none());
        // The packet HIP builds for a real kernel at explain's shape keeps
        // every dispatch rule.
        if let Some(p) = &f.dispatch_packet {
            assert!(
                p.violations.is_empty(),
                "{what} {}: {:?}",
                f.name,
                p.violations
            );
        }
    }
    assert!(lean.metadata.is_none());
    full.kernels.len()
}

#[test]
fn fixtures_check_the_same_in_both_modes() {
    let (Some(all), Some(v2)) = (support::fixtures::all(), support::fixtures::v2()) else {
        return;
    };
    let mut kernels = 0;
    let mut with_metadata = 0;
    for f in all.iter().chain(&v2) {
        let data = std::fs::read(&f.path).unwrap();
        kernels += same_in_both_modes(&f.path.display().to_string(), &data);
        with_metadata += usize::from(hsaco_oracle::check::check_object(&data).metadata.is_some());
    }
    // The comparison covered real kernels and metadata.
    assert!(
        kernels > 0 && with_metadata > 0,
        "{kernels} {with_metadata}"
    );
}

#[test]
fn librocsparse_sample_checks_the_same_in_both_modes() {
    // HSACO_LIBROCSPARSE names a copy unpacked elsewhere.
    let path = std::env::var("HSACO_LIBROCSPARSE")
        .unwrap_or_else(|_| "/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1".to_owned());
    let path = path.as_str();
    let Ok(bytes) = std::fs::read(path) else {
        println!("skipped: {path} is not installed (Debian librocsparse0)");
        return;
    };
    let scan = container::scan(&bytes);
    assert!(!scan.members.is_empty());
    // Every 16th member keeps the test quick while covering each target.
    let mut kernels = 0;
    for m in scan.members.iter().step_by(16) {
        kernels += same_in_both_modes(m.name.as_deref().unwrap_or(path), m.data);
    }
    assert!(kernels > 0);
}
