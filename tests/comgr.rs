//! comgr (`libamd_comgr.so.2`) against the oracle on real code objects and
//! on hand-made metadata notes.
//!
//! Every fixture (`support::fixtures::all()` and `v2()`: clang-19 V4-V6,
//! llc-14 V2 and V3, relocatable and linked) must give no unexplained
//! difference in metadata, ISA name and symbols; the fixtures whose ISA
//! name comgr refuses are exactly those of code object V5/V6 or of a
//! processor missing from comgr 2.4's table, and it refuses no fixture's
//! metadata or symbols. Hand-made notes check the model of LLVM's reader
//! (`compare_meta::llvm_model`) quirk by quirk against comgr itself.
//!
//! Without comgr the tests skip with a printed reason, except in CI.

mod support;

use std::collections::BTreeMap;

use hsaco_conform::peers::comgr::{self, Comgr, ComgrMeta, DataKind};
use hsaco_conform::peers::compare_meta::{
    self, compare, llvm_model, Aspect, Known, Model, Outcome, COMGR_2_4_MACHS, ISA_UNSUPPORTED,
    ISA_V2_NOTE, MD_BINARY, MD_CONTAINER_KEY, MD_TRUNCATED_ZERO, MD_V2_YAML_SCALARS,
};
use hsaco_gen::arbitrary::Unstructured;
use hsaco_oracle::msgpack::{encode, Value};

/// comgr, or `None` after a printed skip (a panic in CI).
fn require_comgr() -> Option<&'static Comgr> {
    match Comgr::open() {
        Ok(c) => Some(c),
        Err(e) => {
            let msg = format!("comgr: {e}");
            assert!(!support::in_ci(), "{msg}");
            eprintln!("SKIPPED: {msg}");
            None
        }
    }
}

/// Processors comgr 2.4 names (ROCm 5.2's table), written out by name:
/// independent of `COMGR_2_4_MACHS`, which the library uses.
const COMGR_2_4_PROCESSORS: &[&str] = &[
    "gfx600", "gfx601", "gfx602", "gfx700", "gfx701", "gfx702", "gfx703", "gfx704", "gfx705",
    "gfx801", "gfx802", "gfx803", "gfx805", "gfx810", "gfx900", "gfx902", "gfx904", "gfx906",
    "gfx908", "gfx909", "gfx90a", "gfx90c", "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx1030",
    "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036",
];

fn processor(cpu: &str) -> &str {
    cpu.split(':').next().unwrap_or(cpu)
}

#[test]
fn every_fixture_agrees_with_the_oracle() {
    let Some(lib) = require_comgr() else { return };
    let (Some(mut fixtures), Some(v2)) = (support::fixtures::all(), support::fixtures::v2()) else {
        return;
    };
    fixtures.extend(v2);
    assert!(fixtures.len() >= 150, "{} fixtures", fixtures.len());
    let mut findings = Vec::new();
    let mut isa_refused = Vec::new();
    let mut expected_refused = Vec::new();
    let mut known: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut v2_sramecc = Vec::new();
    for f in &fixtures {
        let bytes = std::fs::read(&f.path).expect("read fixture");
        let view = comgr::view(lib, &bytes).expect("comgr takes the object");
        let report = compare(&view, &bytes);
        for d in report.findings() {
            findings.push(format!("{}: {d}", f.name));
        }
        for d in &report.differences {
            if let Some(k) = d.known {
                known.entry(k.id).or_default().push(f.name.clone());
            }
        }
        // comgr reads the metadata and symbols of every fixture, the same
        // as the oracle: known differences are only about the ISA name.
        assert!(view.metadata.is_ok(), "{}: {:?}", f.name, view.metadata);
        assert!(view.symbols.is_ok(), "{}: {:?}", f.name, view.symbols);
        let want_md = if f.cov == 2 && has_yaml_bool_word(&bytes) {
            Outcome::Known
        } else {
            Outcome::Same
        };
        assert_eq!(report.metadata, want_md, "{}:\n{report}", f.name);
        assert_eq!(report.symbols, Outcome::Same, "{}:\n{report}", f.name);
        let kind = if f.relocatable {
            DataKind::Relocatable
        } else {
            DataKind::Executable
        };
        assert_eq!(DataKind::of(&bytes), kind, "{}", f.name);
        if view.isa_name.is_err() {
            isa_refused.push(f.name.clone());
        }
        // EF_AMDGPU_FEATURE_SRAMECC in a V2 header.
        if f.cov == 2 && bytes[49] & 0x02 != 0 {
            v2_sramecc.push(f.name.clone());
        }
        if f.cov >= 5 || !COMGR_2_4_PROCESSORS.contains(&processor(&f.cpu)) {
            expected_refused.push(f.name.clone());
        }
    }
    assert!(
        findings.is_empty(),
        "{} findings:\n{}",
        findings.len(),
        findings.join("\n")
    );
    assert_eq!(isa_refused, expected_refused);
    // Refusals are all explained by the one known entry, and the V2
    // objects built with sramecc are the only other known differences.
    assert_eq!(
        known.get(ISA_UNSUPPORTED.id).map(Vec::len),
        Some(isa_refused.len())
    );
    assert!(!v2_sramecc.is_empty());
    assert_eq!(known.get(ISA_V2_NOTE.id), Some(&v2_sramecc));
    // LLVM's YAML reader turns the V2 argument named `n` into `false`.
    let yaml_words = known.get(MD_V2_YAML_SCALARS.id).map_or(0, Vec::len);
    assert!(yaml_words > 0, "{known:#?}");
    assert_eq!(known.len(), 3, "{known:#?}");
    eprintln!(
        "{} fixtures: ISA name refused for {}, V2 sramecc named from the note for {}",
        fixtures.len(),
        isa_refused.len(),
        v2_sramecc.len()
    );
}

/// True when the V2 YAML metadata of `elf` has a scalar that YAML 1.1
/// reads as a boolean other than `true`/`false` (`n`, `yes`, `off`, ...).
fn has_yaml_bool_word(elf: &[u8]) -> bool {
    use hsaco_oracle::{elf::Elf, notes, rules::Sink, yaml};
    fn walk(n: &yaml::Node) -> bool {
        const WORDS: &[&str] = &[
            "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off",
            "Off", "OFF",
        ];
        match &n.value {
            yaml::Value::Scalar(s) => WORDS.contains(&s.text.as_str()),
            yaml::Value::Seq(v) => v.iter().any(walk),
            yaml::Value::Map(m) => m
                .iter()
                .any(|e| WORDS.contains(&e.key.text.as_str()) || walk(&e.value)),
            yaml::Value::Empty => false,
        }
    }
    let mut sink = Sink::new();
    let Some(e) = Elf::parse(elf, &mut sink) else {
        return false;
    };
    let all = notes::read(&e, &mut sink);
    let v2 = notes::check_v2(&all, e.header.flags, &mut sink);
    v2.metadata
        .and_then(|n| yaml::parse(n.desc).ok())
        .is_some_and(|n| walk(&n))
}

#[test]
fn comgr_mach_table_is_the_documented_one() {
    let Some(lib) = require_comgr() else { return };
    if lib.version() != (2, 4) {
        eprintln!(
            "SKIPPED: the table is comgr 2.4's; this is {:?}",
            lib.version()
        );
        return;
    }
    let Some(all) = support::fixtures::all() else {
        return;
    };
    let base = all.iter().find(|f| f.cov == 4).expect("a V4 fixture");
    let bytes = std::fs::read(&base.path).expect("read");
    for abi in [1u8, 2] {
        let mut named = Vec::new();
        for mach in 0u8..=255 {
            let mut b = bytes.clone();
            b[8] = abi;
            b[48] = mach;
            let d = lib.code_object(&b).expect("data object");
            if d.isa_name().is_ok() {
                named.push(mach);
            }
        }
        assert_eq!(named, COMGR_2_4_MACHS, "EI_ABIVERSION {abi}");
    }
    // Code object V5 and V6 are never named.
    for abi in [3u8, 4] {
        let mut b = bytes.clone();
        b[8] = abi;
        let d = lib.code_object(&b).expect("data object");
        assert!(d.isa_name().is_err(), "EI_ABIVERSION {abi}");
    }
}

/// A valid generated code object to carry hand-made notes.
fn carrier() -> hsaco_gen::Case {
    let bytes: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let mut u = Unstructured::new(&bytes);
    hsaco_gen::valid_case(
        &mut u,
        &hsaco_gen::Config::default(),
        "comgr-carrier".into(),
    )
    .expect("valid case")
}

/// The carrier's metadata root map.
fn carrier_root(case: &hsaco_gen::Case) -> Vec<(Value, Value)> {
    let md = hsaco_gen::emit::metadata_bytes(&case.object);
    match hsaco_oracle::msgpack::decode(&md).expect("decodes").0 {
        Value::Map(m) => m,
        other => panic!("root {other:?}"),
    }
}

fn with_entry(root: &[(Value, Value)], k: Value, v: Value) -> Vec<u8> {
    let mut m = root.to_vec();
    m.push((k, v));
    encode(&Value::Map(m))
}

/// What the metadata comparison must conclude.
#[derive(Debug)]
enum Want {
    Same,
    Known(&'static Known),
}

#[test]
fn llvm_model_matches_comgr_on_hand_made_notes() {
    let Some(lib) = require_comgr() else { return };
    let case = carrier();
    let root = carrier_root(&case);
    let key = || Value::str("vendor.test");
    let full = encode(&Value::Map(root.clone()));
    let cases: Vec<(&str, Vec<u8>, Want)> = vec![
        ("as generated", full.clone(), Want::Same),
        ("nil", with_entry(&root, key(), Value::Nil), Want::Same),
        (
            "booleans",
            with_entry(
                &root,
                key(),
                Value::Array(vec![Value::Bool(true), Value::Bool(false)]),
            ),
            Want::Same,
        ),
        (
            "signed",
            with_entry(
                &root,
                key(),
                Value::Array(vec![Value::Int(-5), Value::Int(7), Value::Int(i64::MIN)]),
            ),
            Want::Same,
        ),
        (
            "unsigned",
            with_entry(&root, key(), Value::UInt(u64::MAX)),
            Want::Same,
        ),
        (
            "floats",
            with_entry(
                &root,
                key(),
                Value::Array(vec![
                    Value::F32(1.5),
                    Value::F64(0.1),
                    Value::F64(-2.5e-300),
                    Value::F64(f64::NAN),
                    Value::F64(f64::INFINITY),
                ]),
            ),
            Want::Same,
        ),
        (
            "string with NUL",
            with_entry(&root, key(), Value::Str(b"a\0b".to_vec())),
            Want::Same,
        ),
        (
            "string not UTF-8",
            with_entry(&root, key(), Value::Str(vec![0xff, 0xfe])),
            Want::Same,
        ),
        (
            "scalar keys",
            with_entry(
                &root,
                key(),
                Value::Map(vec![
                    (Value::UInt(5), Value::str("x")),
                    (Value::Nil, Value::UInt(1)),
                    (Value::Bool(true), Value::UInt(2)),
                    (Value::F64(1.0), Value::UInt(3)),
                ]),
            ),
            Want::Same,
        ),
        (
            "keys that print alike",
            with_entry(
                &root,
                key(),
                Value::Map(vec![
                    (Value::UInt(1), Value::str("u")),
                    (Value::Bool(true), Value::str("b")),
                    (Value::Int(1), Value::str("i")),
                ]),
            ),
            Want::Same,
        ),
        (
            "trailing bytes",
            {
                let mut b = full.clone();
                b.extend_from_slice(&[0xc1, 0x00]);
                b
            },
            Want::Same,
        ),
        (
            "repeat after nil",
            with_entry(&with_root(&root, key(), Value::Nil), key(), Value::UInt(3)),
            Want::Same,
        ),
        (
            "nested repeat",
            with_entry(
                &root,
                key(),
                Value::Map(vec![
                    (Value::str("a"), Value::UInt(1)),
                    (Value::str("a"), Value::UInt(2)),
                ]),
            ),
            Want::Same,
        ),
        (
            "root repeat",
            with_entry(
                &with_root(&root, key(), Value::UInt(1)),
                key(),
                Value::UInt(2),
            ),
            Want::Same,
        ),
        (
            "array key",
            with_entry(&root, Value::Array(vec![Value::UInt(1)]), Value::str("x")),
            Want::Known(&MD_CONTAINER_KEY),
        ),
        (
            "cut one value",
            cut_last(&root, 1),
            Want::Known(&MD_TRUNCATED_ZERO),
        ),
        (
            "cut two values",
            cut_last(&root, 2),
            Want::Known(&MD_TRUNCATED_ZERO),
        ),
        (
            "cut inside a string",
            {
                let mut b = with_entry(&root, key(), Value::str("abcdef"));
                b.truncate(b.len() - 2);
                b
            },
            Want::Same,
        ),
        (
            "bin",
            with_entry(&root, key(), Value::Bin(b"xy".to_vec())),
            Want::Known(&MD_BINARY),
        ),
        (
            "ext",
            with_entry(&root, key(), Value::Ext(3, vec![1, 2])),
            Want::Same,
        ),
        ("root array", encode(&Value::Array(vec![])), Want::Same),
        ("empty note", Vec::new(), Want::Same),
    ];
    let mut failures = Vec::new();
    for (name, desc, want) in cases {
        let elf = hsaco_gen::emit::elf::write(&case.object, &desc);
        let view = comgr::view(lib, &elf).expect("comgr takes the object");
        let report = compare(&view, &elf);
        let ok = match want {
            Want::Same => report.metadata == Outcome::Same,
            Want::Known(k) => {
                report.metadata == Outcome::Known
                    && report
                        .differences
                        .iter()
                        .filter(|d| d.aspect == Aspect::Metadata)
                        .all(|d| d.known == Some(k))
            }
        };
        if !ok || report.has_findings() {
            failures.push(format!(
                "{name}: want {want:?}, model {:?}\n{report}",
                short(&llvm_model(&desc))
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn short(m: &Model) -> String {
    let s = format!("{m:?}");
    s.chars().take(300).collect()
}

fn with_root(root: &[(Value, Value)], k: Value, v: Value) -> Vec<(Value, Value)> {
    let mut m = root.to_vec();
    m.push((k, v));
    m
}

/// The root map with a final `vendor.version: [1, 2, 3]`, cut by `n` bytes
/// (each a one-byte value).
fn cut_last(root: &[(Value, Value)], n: usize) -> Vec<u8> {
    let mut b = with_entry(
        root,
        Value::str("vendor.version"),
        Value::Array(vec![Value::UInt(1), Value::UInt(2), Value::UInt(3)]),
    );
    b.truncate(b.len() - n);
    b
}

#[test]
fn lookups_and_errors() {
    let Some(lib) = require_comgr() else { return };
    let case = carrier();
    let d = lib.code_object(&case.elf).expect("data object");
    assert_eq!(d.kind(), DataKind::Executable);
    let first = case.object.kernels.first().expect("a kernel");
    let sym = d.symbol(&first.name).expect("lookup").expect("found");
    assert_eq!(sym.name, first.name.as_bytes());
    assert_eq!(sym.sym_type, 2);
    assert!(!sym.is_undefined);
    assert_eq!(d.symbol("no such symbol").expect("lookup"), None);
    let version = d
        .metadata_get("amdhsa.version")
        .expect("lookup")
        .expect("found");
    let want = ["1", "0", "1", "1", "1", "2", "1", "2"];
    let cov = usize::from(case.code_object_version) - 3;
    assert_eq!(
        version,
        ComgrMeta::List(vec![
            ComgrMeta::String(want[2 * cov].as_bytes().to_vec()),
            ComgrMeta::String(want[2 * cov + 1].as_bytes().to_vec()),
        ])
    );
    assert_eq!(d.metadata_get("no.such.key").expect("lookup"), None);
    // Not ELF: comgr takes the bytes but reads nothing from them.
    let junk = lib.code_object(b"not an object").expect("data object");
    let e = junk.metadata().expect_err("no metadata");
    assert_eq!(
        e.to_string(),
        "amd_comgr_get_data_metadata returned ERROR_INVALID_ARGUMENT (2)"
    );
    assert!(junk.isa_name().is_err());
    assert!(junk.symbols().is_err());
    // The comparison names every known entry it can give.
    assert_eq!(compare_meta::KNOWN.len(), 7);
}
