//! The command-line contract: exit codes, error messages, text and JSON
//! reports (golden files in tests/snapshots/), on real code objects built
//! by clang-19 (HIP host objects with `.hip_fatbin`, offload bundles) and on
//! a real object with a broken rule.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::elfedit::Obj;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hsaco-conform"))
}

fn run(dir: &Path, args: &[&str]) -> Output {
    bin()
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

/// Builds, in a fresh temporary directory, `host.o` (an x86-64 object whose
/// `.hip_fatbin` holds gfx900 and gfx90a:xnack+ code objects) and
/// `device.bundle` (a gfx1100 offload bundle) from the HIP fixture.
fn hip_objects() -> Option<tempfile::TempDir> {
    let clang = support::require_tool("clang-19")?;
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hip/kernels.hip");
    let common = ["-x", "hip", "-nogpulib", "-nogpuinc", "-O2", "-c"];
    let builds: [(&[&str], &str); 2] = [
        (
            &["--offload-arch=gfx900", "--offload-arch=gfx90a:xnack+"],
            "host.o",
        ),
        (
            &["--offload-arch=gfx1100", "--cuda-device-only"],
            "device.bundle",
        ),
    ];
    for (extra, out) in builds {
        let o = Command::new(&clang)
            .args(common)
            .args(extra)
            .arg(&src)
            .arg("-o")
            .arg(dir.path().join(out))
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "clang-19 failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    Some(dir)
}

/// A gfx90a V5 fixture copied to `dir/name`, optionally mutated.
fn fixture_copy(dir: &Path, name: &str, mutate: impl FnOnce(&mut Obj)) -> Option<PathBuf> {
    let all = support::fixtures::all()?;
    let f = all
        .iter()
        .find(|f| {
            f.cpu == "gfx90a"
                && f.cov == 5
                && !f.relocatable
                && f.options.is_empty()
                && f.name.contains("kernels.cl")
        })
        .expect("gfx90a v5 fixture");
    let mut o = Obj::new(std::fs::read(&f.path).unwrap());
    mutate(&mut o);
    let p = dir.join(name);
    std::fs::write(&p, &o.bytes).unwrap();
    Some(p)
}

#[test]
fn host_binary_and_bundle_members_are_checked_and_named() {
    let Some(dir) = hip_objects() else { return };
    let o = run(
        dir.path(),
        &["check", "--format", "json", "host.o", "device.bundle"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let members: Vec<(String, String)> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_owned(),
                f["member"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(members.len(), 3, "{members:?}");
    assert!(
        members[0].1.starts_with(".hip_fatbin@0x")
            && members[0].1.ends_with("hipv4-amdgcn-amd-amdhsa--gfx900")
    );
    assert!(members[1]
        .1
        .ends_with("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"));
    assert_eq!(
        members[2],
        (
            "device.bundle".to_owned(),
            "hipv4-amdgcn-amd-amdhsa--gfx1100".to_owned()
        )
    );
    assert_eq!(v["summary"]["code_objects"], 3);
    assert_eq!(v["summary"]["kernels"], 6);
    assert_eq!(v["files"][1]["target"], "gfx90a:xnack+");
}

#[test]
fn json_report_of_a_bundle() {
    let Some(dir) = hip_objects() else { return };
    let o = run(dir.path(), &["check", "--format", "json", "device.bundle"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    insta::assert_json_snapshot!("check_json_gfx1100_bundle", v);
}

#[test]
fn explain_shows_descriptor_metadata_and_registers() {
    let Some(dir) = hip_objects() else { return };
    let o = run(dir.path(), &["explain", "--member", "gfx90a", "host.o"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    // The fatbin offset depends on the host object layout, not on us.
    let text = text
        .lines()
        .map(|l| {
            if l.starts_with("host.o [") {
                "host.o [MEMBER]"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("explain_gfx90a_xnack_on", text);
}

#[test]
fn explain_shows_v2_kernel_code_yaml_metadata_and_registers() {
    let Some(v2) = support::fixtures::v2() else {
        return;
    };
    // llc-14's gfx900 with xnack: the ISA note says 9.0.1 (gfx901),
    // amd_kernel_code_t 9.0.0.
    let f = v2
        .iter()
        .find(|f| {
            f.cpu == "gfx900"
                && !f.relocatable
                && f.options.is_empty()
                && f.name.contains("kernels.ll")
        })
        .expect("gfx900 V2 fixture");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&f.path, dir.path().join("gfx900_v2.hsaco")).unwrap();
    let o = run(dir.path(), &["explain", "gfx900_v2.hsaco"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("explain_gfx900_v2", stdout(&o));
}

#[test]
fn broken_object_text_report_and_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let Some(_) = fixture_copy(dir.path(), "bad.hsaco", |o| {
        let k = o.kernels()[0].clone();
        let kd = o.kd(&k);
        let rsrc1 = o.u32(kd + 48);
        o.set_u32(kd + 48, rsrc1 | 1 << 20); // PRIV
        let flags = o.u32(48);
        o.set_u32(48, flags | 0x1000); // undefined e_flags bit
    }) else {
        return;
    };
    let o = run(dir.path(), &["check", "bad.hsaco"]);
    assert_eq!(o.status.code(), Some(1));
    insta::assert_snapshot!("check_text_broken", stdout(&o));
}

#[test]
fn clean_object_exits_zero_and_prints_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let Some(_) = fixture_copy(dir.path(), "good.hsaco", |_| {}) else {
        return;
    };
    let o = run(dir.path(), &["check", "good.hsaco"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(
        stdout(&o),
        "checked 1 code object (10 kernels) in 1 file: 0 errors, 0 warnings, 0 infos\n"
    );
}

#[test]
fn directories_are_searched_and_unrelated_files_skipped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/readme.txt"), "not a code object").unwrap();
    let Some(_) = fixture_copy(&dir.path().join("sub"), "a.hsaco", |_| {}) else {
        return;
    };
    let o = run(dir.path(), &["check", "."]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o)
            .ends_with("in 2 files: 0 errors, 0 warnings, 0 infos, 1 skipped (no code object)\n"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn unreadable_inputs_exit_two_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    std::fs::write(dir.path().join("empty.o"), "").unwrap();
    let o = run(
        dir.path(),
        &["check", "missing.hsaco", "notes.txt", "empty.o"],
    );
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert!(
        out.contains("missing.hsaco: No such file or directory"),
        "{out}"
    );
    assert!(
        out.contains("notes.txt: could not check: not a code object"),
        "{out}"
    );
    assert!(
        out.contains("empty.o: could not check: not a code object"),
        "{out}"
    );

    let o = run(dir.path(), &["explain", "notes.txt"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("notes.txt: not a code object"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn truncated_bundle_is_reported() {
    let Some(dir) = hip_objects() else { return };
    let full = std::fs::read(dir.path().join("device.bundle")).unwrap();
    std::fs::write(dir.path().join("cut.bundle"), &full[..full.len() / 2]).unwrap();
    let o = run(dir.path(), &["check", "cut.bundle"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).contains("runs past the end"), "{}", stdout(&o));
}

#[test]
fn rules_catalogue_text_and_json_agree() {
    let dir = tempfile::tempdir().unwrap();
    let text = stdout(&run(dir.path(), &["rules"]));
    insta::assert_snapshot!("rules_text", text);
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&run(dir.path(), &["rules", "--format", "json"]))).unwrap();
    let rules = json["rules"].as_array().unwrap();
    assert_eq!(rules.len(), hsaco_oracle::rules::catalogue().count());
    assert!(text.ends_with(&format!("\n{} rules\n", rules.len())));
    for r in rules {
        assert!(text.contains(r["id"].as_str().unwrap()));
    }
}

#[test]
fn uri_command_prints_canonical_form_and_rejects_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(
        dir.path(),
        &[
            "uri",
            "file:///tmp/a%20b.co#offset=0x10&size=16",
            "memory://1234#offset=4096&size=32",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("canonical: file:///tmp/a%20b.co#offset=16&size=16"),
        "{out}"
    );
    assert!(
        out.contains("canonical: memory://1234#offset=0x1000&size=32"),
        "{out}"
    );
    let o = run(dir.path(), &["uri", "http://x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("invalid code object URI"),
        "{}",
        stderr(&o)
    );
}
