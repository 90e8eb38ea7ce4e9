//! Gating CI on `check`: `--fail-on`, `--baseline` and `--format sarif`,
//! on real clang-19 code objects edited to break one rule each (an error:
//! a reserved descriptor byte; a warning: e_ident padding), also inside an
//! offload bundle and a compressed one.
//!
//! The SARIF report is validated against the SARIF 2.1.0 JSON schema by
//! the `jsonschema` crate. The schema file,
//! `tests/fixtures/sarif-schema-2.1.0.json`, is the OASIS TC's draft-07
//! rendition of the SARIF 2.1.0 schema (its `$id` is the sarif-spec
//! repository's `Schemata/` path), copied unchanged from the crates.io
//! package serde-sarif 0.8.0 (`src/schema.json`). [`errata01`] makes it the
//! published errata 01 schema: compared with that (draft-04) file, with
//! descriptions and ids left out, the two differ in exactly the four edits
//! it makes.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::ccob;
use support::elfedit::Obj;

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hsaco-conform"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run hsaco-conform")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn json(o: &Output) -> Value {
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

/// The gfx90a V5 fixture, mutated, with its first kernel's name and the
/// file offset of that kernel's descriptor.
fn object(mutate: impl FnOnce(&mut Obj, usize)) -> Option<(Vec<u8>, String, usize)> {
    let f = support::fixtures::gfx90a_v5()?;
    let mut o = Obj::new(std::fs::read(&f.path).unwrap());
    let k = o.kernels()[0].clone();
    let kd = o.kd(&k);
    mutate(&mut o, kd);
    Some((o.bytes, k, kd))
}

/// A descriptor reserved byte set: one error (`kd.reserved_bytes`).
fn break_reserved(o: &mut Obj, kd: usize) {
    o.set_u8(kd + 12, 1);
}

/// An e_ident padding byte set: one warning (`elf.ident.pad`).
fn break_padding(o: &mut Obj) {
    o.set_u8(9, 1);
}

/// `dir/bad.hsaco` (one error and one warning) and `dir/warn.hsaco` (one
/// warning); the error's kernel and descriptor offset.
fn bad_and_warn(dir: &Path) -> Option<(String, usize)> {
    let (bad, k, kd) = object(|o, kd| {
        break_reserved(o, kd);
        break_padding(o);
    })?;
    std::fs::write(dir.join("bad.hsaco"), bad).unwrap();
    let (warn, _, _) = object(|o, _| break_padding(o))?;
    std::fs::write(dir.join("warn.hsaco"), warn).unwrap();
    Some((k, kd))
}

#[test]
fn fail_on_decides_which_findings_fail() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(_) = bad_and_warn(d) else { return };
    let status = |args: &[&str]| run(d, args).status.code();

    // A warning alone fails only under --fail-on warning.
    let o = run(d, &["check", "warn.hsaco"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("warning elf.ident.pad: "),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).ends_with(": 0 errors, 1 warning, 0 infos\n"));
    assert_eq!(
        status(&["check", "--fail-on", "error", "warn.hsaco"]),
        Some(0)
    );
    assert_eq!(
        status(&["check", "--fail-on", "warning", "warn.hsaco"]),
        Some(1)
    );
    assert_eq!(
        status(&["check", "--fail-on", "never", "warn.hsaco"]),
        Some(0)
    );
    assert_eq!(
        status(&[
            "check",
            "--format",
            "json",
            "--fail-on",
            "warning",
            "warn.hsaco"
        ]),
        Some(1)
    );

    // An error fails unless --fail-on never.
    assert_eq!(status(&["check", "bad.hsaco"]), Some(1));
    assert_eq!(
        status(&["check", "--fail-on", "warning", "bad.hsaco"]),
        Some(1)
    );
    let o = run(d, &["check", "--fail-on", "never", "bad.hsaco"]);
    assert_eq!(o.status.code(), Some(0));
    // The report is the same whatever fails the run.
    assert_eq!(stdout(&o), stdout(&run(d, &["check", "bad.hsaco"])));

    // An input that could not be checked still exits 2 under never, and
    // under warning when no warning is found.
    std::fs::write(d.join("empty.hsaco"), b"").unwrap();
    assert_eq!(
        status(&["check", "--fail-on", "never", "bad.hsaco", "empty.hsaco"]),
        Some(2)
    );
    assert_eq!(
        status(&["check", "--fail-on", "warning", "warn.hsaco", "empty.hsaco"]),
        Some(1)
    );
    assert_eq!(status(&["check", "warn.hsaco", "empty.hsaco"]), Some(2));

    let o = run(d, &["check", "--fail-on", "info", "warn.hsaco"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("invalid value 'info'"),
        "{}",
        stderr(&o)
    );
}

/// `summary.clean` counts the code objects with neither an error nor a
/// warning (issue 30: it counted those with warnings too).
#[test]
fn clean_objects_have_no_error_and_no_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(_) = bad_and_warn(d) else { return };
    let (good, _, _) = object(|_, _| {}).unwrap();
    std::fs::write(d.join("good.hsaco"), good).unwrap();
    let o = run(d, &["check", "--format", "json", "good.hsaco"]);
    let v = json(&o);
    assert_eq!(
        (&v["summary"]["errors"], &v["summary"]["warnings"]),
        (&Value::from(0), &Value::from(0)),
        "{v}"
    );
    assert_eq!(v["summary"]["clean"], 1);
    for (file, clean) in [("bad.hsaco", 0), ("warn.hsaco", 0)] {
        let v = json(&run(d, &["check", "--format", "json", file]));
        assert_eq!(v["summary"]["clean"], clean, "{file}: {v}");
    }
    let o = run(
        d,
        &[
            "check",
            "--format",
            "json",
            "bad.hsaco",
            "warn.hsaco",
            "good.hsaco",
        ],
    );
    let v = json(&o);
    assert_eq!(v["summary"]["code_objects"], 3);
    assert_eq!(v["summary"]["clean"], 1);
}

fn write_baseline(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("base.toml");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn baseline_suppresses_counts_and_reports_stale_entries() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some((k, kd)) = bad_and_warn(d) else {
        return;
    };
    // Entry 1 accepts the error of bad.hsaco's kernel (named by a trailing
    // part of the path the report gives: `./bad.hsaco`); entry 2 every
    // elf.ident.pad warning; entry 3 names no file that is checked, entry
    // 4 only a part of a name (not after a `/`), entry 5 a rule that is
    // not broken: all three are stale.
    write_baseline(
        d,
        &format!(
            "[[suppress]]\nrule = \"kd.reserved_bytes\"\nfile = \"bad.hsaco\"\nkernel = \"{k}\"\n\
             reason = \"reserved byte written by our packer (issue 7)\"\n\n\
             [[suppress]]\nrule = \"elf.ident.pad\"\nreason = \"old linker\"\n\n\
             [[suppress]]\nrule = \"kd.reserved_bytes\"\nfile = \"other.hsaco\"\nreason = \"x\"\n\n\
             [[suppress]]\nrule = \"kd.reserved_bytes\"\nfile = \"ad.hsaco\"\nreason = \"x\"\n\n\
             [[suppress]]\nrule = \"kd.rsrc1.priv\"\nmember = \"m\"\nkernel = \"k\"\nreason = \"x\"\n"
        ),
    );
    let o = run(d, &["check", "--baseline", "base.toml", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(
        stdout(&o),
        "baseline base.toml: entry 3 at line 12 (rule kd.reserved_bytes, file other.hsaco) matched nothing\n\
         baseline base.toml: entry 4 at line 17 (rule kd.reserved_bytes, file ad.hsaco) matched nothing\n\
         baseline base.toml: entry 5 at line 22 (rule kd.rsrc1.priv, member m, kernel k) matched nothing\n\
         checked 2 code objects (20 kernels) in 3 files: 0 errors, 0 warnings, 0 infos, \
         1 skipped (no code object), 3 suppressed by baseline base.toml\n"
    );
    // Stale entries do not fail the run, even under --fail-on warning.
    let o = run(
        d,
        &[
            "check",
            "--fail-on",
            "warning",
            "--baseline",
            "base.toml",
            ".",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));

    let o = run(
        d,
        &["check", "--format", "json", "--baseline", "base.toml", "."],
    );
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    assert_eq!(v["summary"]["errors"], 0);
    assert_eq!(v["summary"]["warnings"], 0);
    assert_eq!(v["summary"]["clean"], 2);
    assert_eq!(v["baseline"]["path"], "base.toml");
    assert_eq!(v["baseline"]["suppressed"], 3);
    let stale: Vec<u64> = v["baseline"]["stale"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["entry"].as_u64().unwrap())
        .collect();
    assert_eq!(stale, [3, 4, 5]);
    assert_eq!(
        v["baseline"]["stale"][2],
        serde_json::json!({"entry": 5, "line": 22, "rule": "kd.rsrc1.priv", "member": "m",
                           "kernel": "k", "reason": "x"})
    );
    let bad = &v["files"][0];
    assert_eq!(bad["path"], "./bad.hsaco");
    assert_eq!(bad["violations"], serde_json::json!([]));
    // In the order found, each with the entry that accepted it.
    let s = &bad["suppressed"]["violations"];
    assert_eq!(s.as_array().unwrap().len(), 2, "{bad}");
    assert_eq!(s[0]["rule"], "elf.ident.pad");
    assert_eq!(s[0]["baseline_entry"], 2);
    assert_eq!(s[0]["reason"], "old linker");
    assert_eq!(s[1]["rule"], "kd.reserved_bytes");
    assert_eq!(s[1]["kernel"], k.as_str());
    assert_eq!(s[1]["offset"], kd + 12);
    assert_eq!(s[1]["baseline_entry"], 1);
    assert_eq!(
        s[1]["reason"],
        "reserved byte written by our packer (issue 7)"
    );
    assert_eq!(bad["suppressed"]["omitted"], serde_json::json!([]));

    // Without entry 1 the error counts again and fails the run; the
    // summary still counts what was suppressed.
    let text = std::fs::read_to_string(d.join("base.toml")).unwrap();
    let without_first = &text[text.find("\n\n").unwrap() + 2..];
    write_baseline(d, without_first);
    let o = run(d, &["check", "--baseline", "base.toml", "bad.hsaco"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains(&format!("  kernel {k}:\n    error   kd.reserved_bytes: ")),
        "{}",
        stdout(&o)
    );
    assert!(!stdout(&o).contains("elf.ident.pad: "), "{}", stdout(&o));
    assert!(
        stdout(&o)
            .ends_with(": 1 error, 0 warnings, 0 infos, 1 suppressed by baseline base.toml\n"),
        "{}",
        stdout(&o)
    );
}

/// `count` small OpenCL kernels that each use enough SGPRs for clang-19
/// to write a non-zero GRANULATED_WAVEFRONT_SGPR_COUNT on gfx1030 (an info
/// finding each), compiled and linked into `dir/many.hsaco`.
fn many_kernels(dir: &Path, count: usize) -> Option<()> {
    let clang = support::require_tool("clang-19")?;
    let lld = support::require_tool("ld.lld-19")?;
    let mut src = String::new();
    for i in 0..count {
        src += &format!(
            "kernel void k{i:04}(global int *a, global int *b, global int *c, global int *d, int n) {{\n\
             int g = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 64;\n\
             a[g] = b[g] * n + c[g] - d[g + {i}];\n}}\n"
        );
    }
    std::fs::write(dir.join("many.cl"), src).unwrap();
    let ok = |o: Output| assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    ok(Command::new(clang)
        .args(support::CLANG_OPENCL)
        .args([
            "-mcpu=gfx1030",
            "-mcode-object-version=5",
            "-c",
            "many.cl",
            "-o",
            "many.o",
        ])
        .current_dir(dir)
        .output()
        .unwrap());
    ok(Command::new(lld)
        .args(["-shared", "many.o", "-o", "many.hsaco"])
        .current_dir(dir)
        .output()
        .unwrap());
    Some(())
}

/// Findings counted but not kept (info findings past the per-rule cap)
/// carry no kernel: entries without `kernel` suppress them, and they are
/// counted; entries with one do not.
#[test]
fn baseline_suppresses_findings_past_the_cap() {
    let cap = hsaco_oracle::rules::MAX_INFOS_PER_RULE;
    let count = cap + 20;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(()) = many_kernels(d, count) else {
        return;
    };
    let rule = "kd.rsrc1.granulated_sgpr_count";
    let report = |baseline: &str| {
        write_baseline(d, baseline);
        json(&run(
            d,
            &[
                "check",
                "--format",
                "json",
                "--baseline",
                "base.toml",
                "many.hsaco",
            ],
        ))
    };
    let v = report(&format!(
        "[[suppress]]\nrule = \"{rule}\"\nkernel = \"k0003\"\nreason = \"one kernel\"\n\n\
         [[suppress]]\nrule = \"{rule}\"\nfile = \"many.hsaco\"\nreason = \"all of them\"\n"
    ));
    let f = &v["files"][0];
    assert_eq!(f["violations"], serde_json::json!([]));
    assert_eq!(f["omitted"], serde_json::json!([]));
    let kept = f["suppressed"]["violations"].as_array().unwrap();
    assert_eq!(kept.len(), cap);
    assert_eq!(kept.iter().filter(|s| s["baseline_entry"] == 1).count(), 1);
    assert_eq!(
        f["suppressed"]["omitted"],
        serde_json::json!([{"rule": rule, "severity": "info", "count": count - cap,
                            "baseline_entry": 2, "reason": "all of them"}])
    );
    assert_eq!(v["summary"]["infos"], 0);
    assert_eq!(v["baseline"]["suppressed"], count);

    // A kernel-scoped entry alone leaves the uncounted rest in the report.
    let v = report(&format!(
        "[[suppress]]\nrule = \"{rule}\"\nkernel = \"k0003\"\nreason = \"one kernel\"\n"
    ));
    assert_eq!(v["summary"]["infos"], count - 1);
    assert_eq!(v["files"][0]["omitted"][0]["count"], count - cap);
    assert_eq!(v["baseline"]["suppressed"], 1);
}

#[test]
fn bad_baselines_are_one_line_errors_before_any_check() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A clean input: any output or status 0/1 would mean it was checked.
    let Some((good, _, _)) = object(|_, _| {}) else {
        return;
    };
    std::fs::write(d.join("good.hsaco"), good).unwrap();
    std::fs::create_dir(d.join("dir.toml")).unwrap();
    std::fs::write(d.join("latin1.toml"), b"reason = \"caf\xe9\"\n").unwrap();
    let cases: &[(&str, Option<&str>, &str)] = &[
        ("missing.toml", None, "baseline missing.toml: cannot stat: No such file or directory"),
        ("dir.toml", None, "baseline dir.toml: a directory, not a regular file"),
        ("latin1.toml", None, "baseline latin1.toml: not UTF-8 text"),
        ("b.toml", Some("[[suppress]\n"), "baseline b.toml: line 1: "),
        (
            "b.toml",
            Some("[[suppress]]\nrule = \"elf.ident.pad\"\nreason = \"x\"\nfiles = \"a\"\n"),
            "baseline b.toml: line 4: unknown field `files`, expected one of",
        ),
        (
            "b.toml",
            Some("[[suppress]]\nrule = \"elf.ident.pad\"\n"),
            "baseline b.toml: line 1: missing field `reason`",
        ),
        (
            "b.toml",
            Some("[[suppress]]\nrule = \"elf.ident.pad\"\nreason = \"\"\n"),
            "baseline b.toml: line 3: empty reason: say why the finding is accepted",
        ),
        (
            "b.toml",
            Some("[[suppress]]\nreason = \"x\"\nrule = \"kd.no_such_rule\"\n"),
            "baseline b.toml: line 3: unknown rule id \"kd.no_such_rule\" (`hsaco-conform rules` lists them)",
        ),
        (
            "b.toml",
            Some("[[suppress]]\nrule = \"elf.ident.pad\"\nkernel = \"\"\nreason = \"x\"\n"),
            "baseline b.toml: line 3: empty kernel",
        ),
        (
            "b.toml",
            Some("[[suppress]]\nrule = 3\nreason = \"x\"\n"),
            "baseline b.toml: line 2: invalid type: integer `3`, expected a string",
        ),
    ];
    for (name, text, want) in cases {
        if let Some(t) = text {
            std::fs::write(d.join(name), t).unwrap();
        }
        for format in ["text", "json", "sarif"] {
            let o = run(
                d,
                &[
                    "check",
                    "--format",
                    format,
                    "--baseline",
                    name,
                    "good.hsaco",
                ],
            );
            assert_eq!(o.status.code(), Some(2), "{name} {text:?}");
            assert_eq!(stdout(&o), "", "{name} {text:?}: nothing is checked");
            let err = stderr(&o);
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(
                err.starts_with(&format!("hsaco-conform check: {want}")),
                "{text:?}: {err}"
            );
        }
    }
    // The same input with a good baseline is checked.
    std::fs::write(d.join("b.toml"), "").unwrap();
    let o = run(d, &["check", "--baseline", "b.toml", "good.hsaco"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).ends_with(", 0 suppressed by baseline b.toml\n"));
}

/// What the SARIF 2.1.0 errata 01 schema changed in the vendored one: a
/// `region` must give where it starts, string enumerations say they are
/// strings, the `language` pattern is a valid regular expression (the
/// vendored one has a stray `]`), and `runs` may be null.
fn errata01(schema: &mut Value) {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(m) => {
                let strings = m
                    .get("enum")
                    .and_then(Value::as_array)
                    .is_some_and(|e| e.iter().all(Value::is_string));
                if strings && !m.contains_key("type") {
                    m.insert("type".into(), "string".into());
                }
                if m.get("pattern").and_then(Value::as_str)
                    == Some("^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$")
                {
                    m.insert("pattern".into(), "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$".into());
                }
                m.values_mut().for_each(walk);
            }
            Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(schema);
    schema["definitions"]["region"]["anyOf"] = serde_json::json!([
        {"required": ["startLine"]}, {"required": ["charOffset"]}, {"required": ["byteOffset"]}
    ]);
    schema["properties"]["runs"]["type"] = serde_json::json!(["array", "null"]);
}

fn schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sarif-schema-2.1.0.json");
    let mut schema: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    errata01(&mut schema);
    jsonschema::validator_for(&schema).expect("the SARIF schema compiles")
}

/// Asserts that `doc` is valid SARIF 2.1.0, listing every schema error.
fn assert_valid_sarif(doc: &Value) {
    let v = schema();
    let errors: Vec<String> = v
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "not valid SARIF 2.1.0:\n{}",
        errors.join("\n")
    );
}

#[test]
fn sarif_report_is_valid_and_carries_every_finding() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some((k, kd)) = bad_and_warn(d) else {
        return;
    };
    // The erroneous object again as a bundle entry (a part of the file on
    // disk) and in a compressed bundle (unpacked: no file offset).
    let bad = std::fs::read(d.join("bad.hsaco")).unwrap();
    let id = "hipv4-amdgcn-amd-amdhsa--gfx90a";
    let bundle = ccob::bundle(&[(id, &bad)]);
    let entry_at = bundle.len() - bad.len();
    std::fs::write(d.join("b.bundle"), &bundle).unwrap();
    std::fs::write(d.join("c.ccob"), ccob::ccob(3, ccob::Method::Zstd, &bundle)).unwrap();
    std::fs::write(d.join("dir name#1.hsaco"), &bad).unwrap();
    write_baseline(
        d,
        "[[suppress]]\nrule = \"elf.ident.pad\"\nfile = \"warn.hsaco\"\nreason = \"old linker\"\n\n\
         [[suppress]]\nrule = \"kd.rsrc1.priv\"\nreason = \"x\"\n",
    );
    let files = [
        "bad.hsaco",
        "warn.hsaco",
        "b.bundle",
        "c.ccob",
        "dir name#1.hsaco",
        "missing.hsaco",
    ];
    let mut args = vec!["check", "--format", "sarif", "--baseline", "base.toml"];
    args.extend(files);
    let o = run(d, &args);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).ends_with("}\n") && stdout(&o).lines().count() == 1);
    let doc = json(&o);
    assert_valid_sarif(&doc);

    assert_eq!(doc["version"], "2.1.0");
    assert!(doc["$schema"]
        .as_str()
        .unwrap()
        .ends_with("sarif-schema-2.1.0.json"));
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let run0 = &runs[0];
    let driver = &run0["tool"]["driver"];
    assert_eq!(driver["name"], "hsaco-conform");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    // The rules are the catalogue, in order, with their levels and sources.
    let rules = driver["rules"].as_array().unwrap();
    let catalogue: Vec<_> = hsaco_oracle::rules::catalogue().collect();
    assert_eq!(rules.len(), catalogue.len());
    for (r, c) in rules.iter().zip(&catalogue) {
        assert_eq!(r["id"], c.id);
        assert_eq!(r["fullDescription"]["text"], c.statement);
        assert_eq!(r["properties"]["source"], c.reference);
        let level = match c.severity {
            hsaco_oracle::Severity::Error => "error",
            hsaco_oracle::Severity::Warning => "warning",
            hsaco_oracle::Severity::Info => "note",
        };
        assert_eq!(r["defaultConfiguration"]["level"], level, "{}", c.id);
    }

    let results = run0["results"].as_array().unwrap();
    for r in results {
        let i = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[i]["id"], r["ruleId"], "{r}");
        assert_eq!(rules[i]["defaultConfiguration"]["level"], r["level"], "{r}");
    }
    let of = |uri: &str, rule: &str| -> Vec<&Value> {
        results
            .iter()
            .filter(|r| {
                r["ruleId"] == rule
                    && r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == uri
            })
            .collect()
    };
    // The plain file: the error at the descriptor's byte, in its kernel.
    let e = of("bad.hsaco", "kd.reserved_bytes");
    assert_eq!(e.len(), 1);
    let loc = &e[0]["locations"][0];
    assert_eq!(loc["physicalLocation"]["region"]["byteOffset"], kd + 12);
    assert_eq!(
        loc["logicalLocations"],
        serde_json::json!([{"name": k, "kind": "function"}])
    );
    assert_eq!(e[0]["level"], "error");
    assert!(e[0].get("suppressions").is_none());
    assert_eq!(of("bad.hsaco", "elf.ident.pad")[0]["level"], "warning");
    // The suppressed warning: a result with the baseline's reason.
    let w = of("warn.hsaco", "elf.ident.pad");
    assert_eq!(w.len(), 1);
    assert_eq!(w[0]["suppressions"][0]["kind"], "external");
    assert_eq!(w[0]["suppressions"][0]["justification"], "old linker");
    assert_eq!(
        w[0]["suppressions"][0]["location"]["physicalLocation"]["region"]["startLine"],
        2
    );
    // In a bundle: the containing file, the offset in it, the entry named.
    let b = of("b.bundle", "kd.reserved_bytes");
    assert_eq!(b.len(), 1);
    assert_eq!(
        b[0]["locations"][0]["physicalLocation"]["region"]["byteOffset"],
        entry_at + kd + 12
    );
    assert_eq!(b[0]["properties"]["member"], id);
    assert_eq!(b[0]["properties"]["codeObjectOffset"], kd + 12);
    assert!(b[0]["message"]["text"]
        .as_str()
        .unwrap()
        .ends_with(&format!(" [member {id}]")));
    // Compressed: no offset in the file; the message gives the object's.
    let c = of("c.ccob", "kd.reserved_bytes");
    assert_eq!(c.len(), 1);
    assert!(c[0]["locations"][0]["physicalLocation"]
        .get("region")
        .is_none());
    assert!(
        c[0]["message"]["text"]
            .as_str()
            .unwrap()
            .ends_with(&format!(" (at {:#x} in the code object)", kd + 12)),
        "{}",
        c[0]["message"]
    );
    assert_eq!(c[0]["properties"]["member"], format!("ccob@0x0:{id}"));
    // A path that is not a plain URI is encoded.
    assert_eq!(of("dir%20name%231.hsaco", "kd.reserved_bytes").len(), 1);
    assert_eq!(results.len(), 2 + 1 + 2 + 2 + 2);

    // The input that could not be checked; the stale entry.
    let inv = &run0["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    assert_eq!(inv["exitCode"], 1);
    let notes = inv["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0]["level"], "error");
    assert!(notes[0]["message"]["text"]
        .as_str()
        .unwrap()
        .starts_with("missing.hsaco: could not check: "));
    assert_eq!(
        notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "missing.hsaco"
    );
    let config = inv["toolConfigurationNotifications"].as_array().unwrap();
    assert_eq!(config.len(), 1);
    assert_eq!(
        config[0]["message"]["text"],
        "baseline base.toml: entry 2 at line 7 (rule kd.rsrc1.priv) matched nothing"
    );
    assert_eq!(run0["properties"]["summary"]["errors"], 4);
    assert_eq!(run0["properties"]["summary"]["warnings"], 4);
    assert_eq!(run0["properties"]["summary"]["unreadable"], 1);
    assert_eq!(run0["properties"]["baseline"]["suppressed"], 1);

    // Without the missing input, the run succeeded.
    let o = run(d, &["check", "--format", "sarif", "warn.hsaco"]);
    assert_eq!(o.status.code(), Some(0));
    let doc = json(&o);
    assert_valid_sarif(&doc);
    assert_eq!(
        doc["runs"][0]["invocations"][0]["executionSuccessful"],
        true
    );
    assert_eq!(doc["runs"][0]["invocations"][0]["exitCode"], 0);
    assert_eq!(doc["runs"][0]["results"].as_array().unwrap().len(), 1);

    // --detail belongs to JSON.
    let o = run(d, &["check", "--format", "sarif", "--detail", "warn.hsaco"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--detail is for --format json"));
}

/// The schema check can fail: documents broken in ways `check` could
/// break them are refused.
#[test]
fn the_schema_refuses_broken_sarif() {
    let v = schema();
    let good = serde_json::json!({
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "hsaco-conform"}},
                  "results": [{"ruleId": "elf.ident.pad", "level": "warning",
                               "message": {"text": "m"},
                               "locations": [{"physicalLocation": {
                                   "artifactLocation": {"uri": "a.hsaco"},
                                   "region": {"byteOffset": 9}}}]}]}]
    });
    assert!(
        v.is_valid(&good),
        "{:?}",
        v.iter_errors(&good)
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
    );
    let broken: [(&str, Value); 6] = [
        ("/version", "2.0.0".into()),
        ("/runs/0/results/0/level", "info".into()),
        ("/runs/0/results/0/message", serde_json::json!({"txt": "m"})),
        (
            "/runs/0/results/0/locations/0/physicalLocation/region/byteOffset",
            (-2).into(),
        ),
        ("/runs/0/tool/driver", serde_json::json!({"version": "1"})),
        // Errata 01: a region says where it starts.
        (
            "/runs/0/results/0/locations/0/physicalLocation/region",
            serde_json::json!({"byteLength": 4}),
        ),
    ];
    for (at, value) in broken {
        let mut doc = good.clone();
        *doc.pointer_mut(at).unwrap() = value;
        assert!(!v.is_valid(&doc), "{at} accepted");
    }
}

/// A small SARIF report, whole (the rule catalogue and the version
/// reduced to what changes with neither): one object with an error and a
/// warning, the warning suppressed.
#[test]
fn sarif_report_of_one_object() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(_) = bad_and_warn(d) else { return };
    write_baseline(
        d,
        "[[suppress]]\nrule = \"elf.ident.pad\"\nreason = \"written by an old linker\"\n",
    );
    let o = run(
        d,
        &[
            "check",
            "--format",
            "sarif",
            "--baseline",
            "base.toml",
            "bad.hsaco",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let mut doc = json(&o);
    assert_valid_sarif(&doc);
    let driver = &mut doc["runs"][0]["tool"]["driver"];
    assert!(driver["rules"].is_array());
    driver["rules"] = "the catalogue".into();
    driver["version"] = "VERSION".into();
    insta::assert_json_snapshot!("sarif_bad_object", doc);
}
