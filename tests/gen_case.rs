//! `gen --case NAME` writes exactly the object a `conform` comparison
//! gave its peers under that name: the seed scheme is one, so a finding's
//! input can be made again by `gen` from its name alone.

use std::fs;
use std::process::Command;

use hsaco_conform::conform::mutants::MutantsCmp;
use hsaco_conform::conform::object_cmp::ObjectCmp;
use hsaco_conform::conform::ComparisonId;
use hsaco_conform::conform::{Comparison, Input};
use hsaco_oracle::targets;

fn gen_cases(names: &[String]) -> (tempfile::TempDir, std::process::Output) {
    let d = tempfile::tempdir().expect("tmp");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hsaco-conform"));
    cmd.arg("gen").arg("--out").arg(d.path().join("out"));
    for n in names {
        cmd.arg("--case").arg(n);
    }
    let o = cmd.output().expect("run gen");
    (d, o)
}

/// The inputs of `cmp`'s first two chunks on `cpu`.
fn inputs(cmp: &dyn Comparison, cpu: &str) -> Vec<(String, Vec<u8>)> {
    let t = targets::by_name(cpu).expect("processor");
    (0..2)
        .flat_map(|chunk| cmp.inputs(t, chunk))
        .map(|i| match i {
            Input::File { name, bytes } => (name, bytes),
            other => panic!("not an object: {other:?}"),
        })
        .collect()
}

#[test]
fn gen_writes_the_objects_conform_compared() {
    let mut want = Vec::new();
    for (kind, cpu) in [
        (ComparisonId::Descriptors, "gfx90a"),
        (ComparisonId::Rebuild, "gfx1100"),
        (ComparisonId::Metadata, "gfx803"),
    ] {
        want.extend(inputs(&ObjectCmp::new(kind, 3, 8), cpu));
    }
    want.extend(inputs(&MutantsCmp::new(3, 8), "gfx1030"));
    assert!(want.len() >= 28, "{} inputs", want.len());
    let names: Vec<String> = want.iter().map(|(n, _)| n.clone()).collect();
    let (d, o) = gen_cases(&names);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let manifest = fs::read_to_string(d.path().join("out/manifest.jsonl")).expect("manifest");
    let lines: Vec<serde_json::Value> = manifest
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(lines.len(), want.len());
    for ((name, bytes), m) in want.iter().zip(&lines) {
        let stem = name.strip_suffix(".hsaco").expect("name");
        assert_eq!(m["id"], stem, "{m}");
        let got = fs::read(d.path().join("out").join(format!("{stem}.elf"))).expect("ELF");
        assert!(
            got == *bytes,
            "{name}: gen wrote other bytes than conform compared"
        );
        // The manifest's seed and index are the name's.
        let parts: Vec<&str> = stem.split('@').next().unwrap_or("").split('.').collect();
        assert_eq!(m["seed"], 3, "{m}");
        assert_eq!(m["index"].to_string(), parts[3], "{m}");
        let mutant = name.starts_with("mutants.");
        assert_eq!(m["kind"], if mutant { "mutant" } else { "valid" }, "{m}");
        if mutant {
            assert_eq!(
                m["expect"].as_str(),
                name.split('@').nth(1).map(|r| r.trim_end_matches(".hsaco"))
            );
        }
    }
}

#[test]
fn names_that_name_no_case_are_refused_with_the_reason() {
    for (name, says) in [
        ("descriptors.gfx90a.1", "not the name of a conform case"),
        (
            "descriptors.gfx90a.x.1.hsaco",
            "not the name of a conform case",
        ),
        ("descriptors.gfx9999.1.0.hsaco", "names no case"),
        ("mutants.gfx900.1.0@no.such-rule.hsaco", "names no case"),
    ] {
        let (_d, o) = gen_cases(&[name.to_owned()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains(says) && err.contains(name), "{name}: {err}");
        if name.starts_with("mutants.") {
            // The rule the mutant at those coordinates does break.
            assert!(err.contains("; mutants.gfx900.1.0 breaks "), "{err}");
        }
    }
}
