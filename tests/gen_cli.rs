//! The `gen` and `coverage` command lines: help, the manifest of a small
//! run (golden file), determinism (same arguments, same bytes), atomic
//! output, errors with exit status 2, and the coverage report of a
//! generated tree. Golden files in tests/snapshots/.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hsaco-conform"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run hsaco-conform")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("UTF-8")
}

/// Every file under `dir` (relative name → bytes).
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in fs::read_dir(dir).expect("read dir") {
        let e = e.expect("entry");
        let name = e.file_name().to_string_lossy().into_owned();
        out.insert(name, fs::read(e.path()).expect("read file"));
    }
    out
}

fn manifest(dir: &Path) -> Vec<serde_json::Value> {
    fs::read_to_string(dir.join("manifest.jsonl"))
        .expect("manifest")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

#[test]
fn help_teaches() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(tmp.path(), &["gen", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    insta::assert_snapshot!("gen_help", stdout(&o));
}

#[test]
fn list_knobs_names_every_knob() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(tmp.path(), &["gen", "--list-knobs"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    let listed: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_once(" = ").map(|(k, _)| k))
        .collect();
    let knobs: Vec<&str> = hsaco_gen::Config::KNOBS.iter().map(|(n, _)| *n).collect();
    assert_eq!(listed, knobs);
}

/// A small run's manifest: id, kind, target, expect and the ELF's SHA-256
/// of each case. The hashes pin the bytes: a change here means seed 3
/// names different cases than before.
#[test]
fn small_run_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(
        tmp.path(),
        &["gen", "--seed", "3", "--count", "12", "--out", "out"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "",
        "no progress line when stderr is not a terminal"
    );
    let lines: Vec<String> = manifest(&tmp.path().join("out"))
        .iter()
        .map(|e| {
            format!(
                "{} {} {} {} {}",
                e["id"].as_str().unwrap(),
                e["kind"].as_str().unwrap(),
                e["target"].as_str().unwrap(),
                e["expect"].as_str().unwrap(),
                e["sha256"].as_str().unwrap()
            )
        })
        .collect();
    insta::assert_snapshot!("small_manifest", lines.join("\n"));
}

/// Same arguments, same tree; the order of --kinds does not matter; a
/// shorter run is a prefix of a longer one; the manifest describes the
/// files; no temporary file is left.
#[test]
fn runs_are_deterministic_and_atomic() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let args = |out: &'static str, kinds: &'static str, count: &'static str| {
        vec![
            "gen", "--seed", "11", "--count", count, "--kinds", kinds, "--out", out,
        ]
    };
    for (out, kinds, count) in [
        ("a", "valid,sgpr-suite,smem,mutant", "40"),
        ("b", "valid,sgpr-suite,smem,mutant", "40"),
        ("c", "mutant,smem,sgpr-suite,valid", "40"),
        ("d", "valid,sgpr-suite,smem,mutant", "15"),
    ] {
        let o = run(d, &args(out, kinds, count));
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let a = tree(&d.join("a"));
    assert_eq!(a, tree(&d.join("b")), "two runs differ");
    assert_eq!(a, tree(&d.join("c")), "the order of --kinds matters");
    assert!(
        a.keys().all(|k| !k.contains(".tmp")),
        "temporary files left"
    );

    let m = manifest(&d.join("a"));
    assert_eq!(m.len(), 40);
    assert_eq!(
        manifest(&d.join("d")),
        m[..15],
        "a shorter run is not a prefix"
    );
    let mut kinds = std::collections::BTreeSet::new();
    for (i, e) in m.iter().enumerate() {
        assert_eq!(e["id"], format!("11-{i:06}"));
        assert_eq!(
            (e["seed"].as_u64(), e["index"].as_u64()),
            (Some(11), Some(i as u64))
        );
        let elf = &a[e["elf"].as_str().unwrap()];
        let digest = sha2_hex(elf);
        assert_eq!(e["sha256"].as_str(), Some(digest.as_str()));
        if let Some(asm) = e["asm"].as_str() {
            assert!(!a[asm].is_empty());
        }
        let kind = e["kind"].as_str().unwrap().to_owned();
        assert_eq!(e["expect"] == "valid", kind != "mutant", "{e}");
        kinds.insert(kind);
    }
    assert_eq!(kinds.len(), 4, "every kind in 40 cases: {kinds:?}");
    let run_json: serde_json::Value =
        serde_json::from_slice(&a["run.json"]).expect("run.json is JSON");
    assert_eq!(run_json["seed"], 11);
    assert_eq!(run_json["config"]["max_kernels"], 4);
}

fn sha2_hex(b: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

#[test]
fn progress_line_on_request() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(
        tmp.path(),
        &[
            "gen",
            "--count",
            "3",
            "--kinds",
            "valid",
            "--progress",
            "--out",
            "p",
        ],
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("gen: 3/3 cases (100%)"),
        "{}",
        stderr(&o)
    );
}

/// Bad invocations: each exits 2 with a message naming the problem, and
/// writes nothing.
#[test]
fn errors() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    fs::write(d.join("bad.json"), r#"{"max_kernels": "three"}"#).unwrap();
    fs::write(d.join("bad.toml"), "max_kernels = 2\nwave33 = true\n").unwrap();
    fs::write(d.join("file"), "not a directory").unwrap();
    fs::create_dir(d.join("full")).unwrap();
    fs::write(d.join("full/x"), "").unwrap();
    let cases: &[&[&str]] = &[
        &["--config", "bad.json", "--out", "o"],
        &["--config", "bad.toml", "--out", "o"],
        &["--config", "missing.json", "--out", "o"],
        &["--set", "max_kernel=2", "--out", "o"],
        &["--set", "max_kernels", "--out", "o"],
        &["--set", "max_kernels=many", "--out", "o"],
        &["--targets", "gfx9000", "--out", "o"],
        &["--targets", "r600", "--out", "o"],
        &["--targets", "gfx6", "--kinds", "smem", "--out", "o"],
        &["--mutants", "1.5", "--out", "o"],
        &["--out", "file/o"],
        &["--out", "file"],
        &["--out", "full"],
    ];
    let mut report = String::new();
    for args in cases {
        let mut full = vec!["gen"];
        full.extend_from_slice(args);
        let o = run(d, &full);
        report.push_str(&format!(
            "$ hsaco-conform {}\nexit {:?}\n{}\n",
            full.join(" "),
            o.status.code(),
            elide_lists(&stderr(&o))
        ));
        assert_eq!(o.status.code(), Some(2), "{full:?}");
        assert!(!d.join("o").exists(), "{full:?} wrote output");
    }
    insta::assert_snapshot!("errors", report);
}

/// Cuts the knob and processor lists out of messages (they grow with the
/// generators; the lists themselves are tested elsewhere).
fn elide_lists(msg: &str) -> String {
    msg.lines()
        .map(|l| {
            for marker in ["knobs are: ", "processors: "] {
                if let Some(i) = l.find(marker) {
                    return format!("{}{marker}...", &l[..i]);
                }
            }
            l.to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `coverage DIR` reads a generated tree: every catalogue rule has a line,
/// the valid and mutant counts match the manifest, and a changed ELF is a
/// disagreement (exit 1).
#[test]
fn coverage_of_a_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let o = run(
        d,
        &[
            "gen",
            "--seed",
            "2",
            "--count",
            "30",
            "--out",
            "t",
            "--coverage",
            "gen-cov.json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("coverage of 30 cases"),
        "{}",
        stdout(&o)
    );
    let o = run(d, &["coverage", "--json", "cov.json", "t"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("coverage of 30 cases"), "{text}");
    let cov: serde_json::Value =
        serde_json::from_slice(&fs::read(d.join("cov.json")).unwrap()).unwrap();
    let gen_cov: serde_json::Value =
        serde_json::from_slice(&fs::read(d.join("gen-cov.json")).unwrap()).unwrap();
    assert_eq!(cov, gen_cov, "gen --coverage and coverage DIR agree");
    let rules = cov["rules"].as_array().unwrap();
    assert_eq!(rules.len(), hsaco_oracle::rules::catalogue().count());
    assert_eq!(cov["disagreement_count"], 0);
    let m = manifest(&d.join("t"));
    let mutants = m.iter().filter(|e| e["expect"] != "valid").count() as u64;
    let counted: u64 = rules.iter().map(|r| r["mutants"].as_u64().unwrap()).sum();
    assert_eq!(counted, mutants);
    let elf_header = rules
        .iter()
        .find(|r| r["id"] == "elf.header.truncated")
        .unwrap();
    // The header rules' scope is code object V3+ (V2 cases are judged by
    // the V2 rules).
    let valid_v3 = m
        .iter()
        .filter(|e| e["expect"] == "valid" && e["code_object_version"].as_u64() >= Some(3))
        .count() as u64;
    assert_eq!(elf_header["valid_cases"].as_u64(), Some(valid_v3));
    // V2 rules can be touched by V2 cases: none says a valid case cannot.
    assert!(rules
        .iter()
        .filter(|r| r["id"].as_str().unwrap().starts_with("code."))
        .all(|r| !r["reason"]
            .as_str()
            .is_some_and(|why| why.contains("no valid case"))));

    // Change one byte of the first ELF: its hash no longer matches.
    let first = m[0]["elf"].as_str().unwrap();
    let p = d.join("t").join(first);
    let mut b = fs::read(&p).unwrap();
    b[0] ^= 1;
    fs::write(&p, b).unwrap();
    let o = run(d, &["coverage", "t"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("SHA-256 differs from the manifest"),
        "{}",
        stdout(&o)
    );

    let o = run(d, &["coverage", "nowhere"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot read nowhere/manifest.jsonl"),
        "{}",
        stderr(&o)
    );
}

/// `gen --suite`: every entry of the family's SGPR suite once, in suite
/// order, and each manifest layout equal to what the oracle's full check
/// of the written ELF predicts for its kernel (computed here from the
/// bytes, independently of the generator).
#[test]
fn suite_writes_every_entry_with_the_oracles_layout() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("s");
    let o = run(
        tmp.path(),
        &["gen", "--suite", "--targets", "gfx12", "--out", "s"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let family = hsaco_gen::target::Family::ALL
        .iter()
        .copied()
        .find(|f| f.name() == "gfx12")
        .unwrap();
    let n = hsaco_gen::sgpr::suite_len(family);
    let lines = manifest(&out);
    assert_eq!(lines.len(), n);
    assert_eq!(
        stdout(&o).lines().next().unwrap(),
        format!("wrote {n} cases to s ({n} sgpr-suite)")
    );
    let run_json: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(run_json["families"][0]["entries"], n);
    let expected: Vec<_> = hsaco_gen::sgpr::suite(family).collect();
    for (i, (l, e)) in lines.iter().zip(&expected).enumerate() {
        assert_eq!(l["id"], format!("sgpr-gfx12-{i}"));
        assert_eq!(l["kind"], "sgpr-suite");
        assert_eq!(l["sgpr_enables"], serde_json::to_value(e.enables).unwrap());
        if i % 61 == 0 {
            let elf = fs::read(out.join(l["elf"].as_str().unwrap())).unwrap();
            let r = hsaco_oracle::check::check_object(&elf);
            assert!(!r.has_errors(), "{i}: {:?}", r.violations);
            let state = r.kernels[0].initial_state.as_ref().expect("initial state");
            assert_eq!(
                l["layout"],
                serde_json::to_value(state).unwrap(),
                "entry {i}"
            );
        }
    }
}
