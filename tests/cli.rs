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
    let f = support::fixtures::gfx90a_v5()?;
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

/// The reports of one small real object (a gfx1100 bundle entry with two
/// kernels and info findings): text with `-v`, default JSON, and JSON with
/// per-kernel detail. The default document is the detailed one without
/// the per-kernel detail.
#[test]
fn text_json_and_detail_reports_of_a_bundle() {
    let Some(dir) = hip_objects() else { return };
    let o = run(dir.path(), &["check", "-v", "device.bundle"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("check_text_verbose_gfx1100_bundle", stdout(&o));

    let o = run(dir.path(), &["check", "--format", "json", "device.bundle"]);
    assert_eq!(o.status.code(), Some(0));
    let brief: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    insta::assert_json_snapshot!("check_json_gfx1100_bundle", brief);

    let o = run(
        dir.path(),
        &["check", "--format", "json", "--detail", "device.bundle"],
    );
    assert_eq!(o.status.code(), Some(0));
    let detail: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    insta::assert_json_snapshot!("check_json_detail_gfx1100_bundle", detail);

    // Detail belongs to JSON.
    let o = run(dir.path(), &["check", "--detail", "device.bundle"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--detail is for --format json"),
        "{}",
        stderr(&o)
    );

    let mut stripped = detail.clone();
    for k in stripped["files"][0]["kernels"].as_array_mut().unwrap() {
        let k = k.as_object_mut().unwrap();
        assert!(k.contains_key("fields") && k.contains_key("initial_state"));
        k.retain(|key, _| key == "name" || key == "descriptor_offset");
    }
    assert_eq!(stripped, brief);
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
        out.contains("missing.hsaco: could not check: No such file or directory"),
        "{out}"
    );
    assert!(
        out.contains("notes.txt: could not check: not a code object"),
        "{out}"
    );
    assert!(
        out.contains("empty.o: could not check: empty file"),
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

/// The `check --format json` document of `args`, with its exit status.
fn json_check(dir: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let o = run(dir, &[&["check", "--format", "json"][..], args].concat());
    let v = serde_json::from_str(&stdout(&o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&o)));
    (o.status.code(), v)
}

/// (member, error) of each entry of a `check` JSON document.
fn entries(v: &serde_json::Value) -> Vec<(String, String)> {
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap_or("").to_owned();
            (s("member"), s("error"))
        })
        .collect()
}

/// A host binary cut short (a partial download or copy) loses its section
/// headers, which sit at its end: `check` says so, and still finds the
/// bundles in the part of its loaded segments that is there (issue 30:
/// it said "not a code object ... nor an ELF file with a .hip_fatbin
/// section"). A `.hip_fatbin` section running past the end of the file is
/// read as far as it goes.
#[test]
fn truncated_host_binaries_say_why_and_what_is_there_is_checked() {
    let Some(dir) = hip_objects() else { return };
    let Some(lld) = support::require_tool("ld.lld-19") else {
        return;
    };
    let d = dir.path();
    let st = Command::new(lld)
        .args(["-shared", "host.o", "-o", "host.so"])
        .current_dir(d)
        .status()
        .unwrap();
    assert!(st.success());
    let so = Obj::new(std::fs::read(d.join("host.so")).unwrap());
    let fatbin = so.section(".hip_fatbin");
    let fatbin_end = (fatbin.offset + fatbin.size) as usize;
    let shoff = so.u64(40);
    assert!(
        shoff as usize >= fatbin_end,
        "ld.lld puts section headers last"
    );
    let lost = |len: usize| {
        format!("ELF section headers at offset {shoff:#x} past the end of the {len}-byte file")
    };

    // Cut right after .hip_fatbin: both bundle entries are whole.
    std::fs::write(d.join("cut.so"), &so.bytes[..fatbin_end]).unwrap();
    let (code, v) = json_check(d, &["cut.so"]);
    assert_eq!(code, Some(2), "{v}");
    let got = entries(&v);
    let members: Vec<&str> = got
        .iter()
        .filter(|(_, e)| e.is_empty())
        .map(|(m, _)| m.as_str())
        .collect();
    assert_eq!(members.len(), 2, "{got:?}");
    assert!(
        members.iter().all(|m| m.starts_with("PT_LOAD@0x")),
        "{got:?}"
    );
    assert!(
        members[0].ends_with("hipv4-amdgcn-amd-amdhsa--gfx900"),
        "{got:?}"
    );
    assert!(
        members[1].ends_with("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"),
        "{got:?}"
    );
    let errors: Vec<&str> = got
        .iter()
        .filter(|(_, e)| !e.is_empty())
        .map(|(_, e)| e.as_str())
        .collect();
    assert_eq!(errors, [lost(fatbin_end)], "{got:?}");
    assert_eq!(v["summary"]["code_objects"], 2);
    assert_eq!(v["summary"]["kernels"], 4);
    // explain shows the same objects, and the problem on stderr.
    let o = run(d, &["explain", "cut.so"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&lost(fatbin_end)), "{}", stderr(&o));
    assert_eq!(stdout(&o).matches("cut.so [PT_LOAD@0x").count(), 2);

    // Cut inside the last entry: the first is checked, the second named.
    let len = fatbin_end - 16;
    std::fs::write(d.join("cut2.so"), &so.bytes[..len]).unwrap();
    let (code, v) = json_check(d, &["cut2.so"]);
    assert_eq!(code, Some(2), "{v}");
    let got = entries(&v);
    assert!(
        got[0].0.ends_with("--gfx900") && got[0].1.is_empty(),
        "{got:?}"
    );
    assert!(
        got.iter()
            .any(|(_, e)| e.contains("gfx90a:xnack+") && e.contains("runs past the end")),
        "{got:?}"
    );
    assert!(got.iter().any(|(_, e)| *e == lost(len)), "{got:?}");

    // A relocatable object has no program headers: only the why.
    let obj = Obj::new(std::fs::read(d.join("host.o")).unwrap());
    let obj_shoff = obj.u64(40);
    let len = obj.section(".hip_fatbin").offset as usize + 64;
    assert!(obj_shoff as usize > len);
    std::fs::write(d.join("cut.o"), &obj.bytes[..len]).unwrap();
    let o = run(d, &["check", "cut.o"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stdout(&o).contains(&format!(
            "cut.o: could not check: ELF section headers at offset {obj_shoff:#x} past the end of the {len}-byte file"
        )),
        "{}",
        stdout(&o)
    );

    // Section headers whole, .hip_fatbin said to run past the end: the
    // bundles present are read.
    let mut long = so.clone();
    long.set_u64(fatbin.hdr + 32, so.bytes.len() as u64);
    std::fs::write(d.join("long.so"), &long.bytes).unwrap();
    let (code, v) = json_check(d, &["long.so"]);
    assert_eq!(code, Some(2), "{v}");
    let got = entries(&v);
    assert_eq!(
        got.iter()
            .filter(|(m, e)| m.starts_with(".hip_fatbin@0x") && e.is_empty())
            .count(),
        2,
        "{got:?}"
    );
    assert!(
        got.iter()
            .any(|(_, e)| e.contains(".hip_fatbin section bytes") && e.contains("outside")),
        "{got:?}"
    );
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
    // The parts in words, not Rust's debug form.
    assert!(
        out.contains("  path:      /tmp/a b.co\n  offset:    16\n"),
        "{out}"
    );
    assert!(
        out.contains("  process:   1234\n  address:   0x1000\n  size:      32 bytes"),
        "{out}"
    );
    assert!(!out.contains("Some("), "{out}");
    let o = run(dir.path(), &["uri", "http://x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("invalid code object URI"),
        "{}",
        stderr(&o)
    );
}

/// Runs hsaco-conform and kills it (failing the test) if it has not
/// finished in `secs` seconds: for inputs that could make it hang.
fn run_with_timeout(dir: &Path, args: &[&str], secs: u64) -> Output {
    use std::time::{Duration, Instant};
    let mut child = bin()
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run hsaco-conform");
    let deadline = Instant::now() + Duration::from_secs(secs);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("hsaco-conform {args:?} did not finish in {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn mkfifo(p: &Path) {
    let o = Command::new("mkfifo").arg(p).output().expect("mkfifo");
    assert!(o.status.success(), "mkfifo {}", p.display());
}

#[test]
fn fifos_are_refused_without_being_opened() {
    let dir = tempfile::tempdir().unwrap();
    mkfifo(&dir.path().join("pipe.hsaco"));
    for args in [
        &["check", "pipe.hsaco"][..],
        &["check", "--format", "json", "pipe.hsaco"],
        &["explain", "pipe.hsaco"],
        &["bench", "--no-readobj", "pipe.hsaco"],
    ] {
        let o = run_with_timeout(dir.path(), args, 20);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let all = stdout(&o) + &stderr(&o);
        assert!(
            all.contains("pipe.hsaco") && all.contains("a FIFO, not a regular file"),
            "{args:?}: {all}"
        );
    }
    // Found in a directory, a FIFO with a code object's name is named; one
    // without is skipped; neither is opened.
    mkfifo(&dir.path().join("other-pipe"));
    let o = run_with_timeout(dir.path(), &["check", "."], 20);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stdout(&o),
        "./pipe.hsaco: could not check: a FIFO, not a regular file\n\
         checked 0 code objects (0 kernels) in 2 files: 0 errors, 0 warnings, 0 infos, \
         1 could not be checked, 1 skipped (no code object)\n"
    );
}

#[test]
fn each_file_is_checked_once_whatever_the_paths_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let Some(good) = fixture_copy(dir.path(), "libk.so.1.0", |_| {}) else {
        return;
    };
    std::os::unix::fs::symlink("libk.so.1.0", dir.path().join("libk.so.1")).unwrap();
    std::fs::hard_link(&good, dir.path().join("copy.hsaco")).unwrap();
    let o = run(dir.path(), &["check", ".", "libk.so.1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(
        stdout(&o),
        "checked 1 code object (10 kernels) in 1 file: 0 errors, 0 warnings, 0 infos, \
         3 duplicate paths skipped (same file)\n"
    );
    // The path the user named is the one reported.
    let o = run(dir.path(), &["check", "--format", "json", ".", "libk.so.1"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["files"].as_array().unwrap().len(), 1);
    assert_eq!(v["files"][0]["path"], "libk.so.1");
    assert_eq!(v["summary"]["duplicates"], 3);
}

/// In a directory, an empty or truncated file whose name or first bytes
/// say it is a code object is named with the reason (exit 2 when nothing
/// else is wrong, 1 when an error is found too); files that are simply
/// something else stay skipped.
#[test]
fn broken_code_objects_in_directories_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(good) = fixture_copy(d, "good.hsaco", |_| {}) else {
        return;
    };
    let bytes = std::fs::read(&good).unwrap();
    std::fs::write(d.join("empty.co"), b"").unwrap();
    std::fs::write(d.join("garbage.o"), b"not an object at all").unwrap();
    // ELF magic, too short to say which machine.
    std::fs::write(d.join("short.bin"), &bytes[..16]).unwrap();
    std::fs::write(d.join("TensileLibrary.dat"), b"\x82\xa1a\x01").unwrap();
    std::fs::write(d.join("empty.dat"), b"").unwrap();
    let o = run(d, &["check", "."]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert_eq!(
        stdout(&o),
        "./empty.co: could not check: empty file\n\
         ./garbage.o: could not check: named like a code object, but its 20 bytes are neither an ELF file nor an offload bundle\n\
         ./short.bin: could not check: truncated ELF file: 16 bytes, shorter than an ELF64 header (64 bytes)\n\
         checked 1 code object (10 kernels) in 6 files: 0 errors, 0 warnings, 0 infos, \
         3 could not be checked, 2 skipped (no code object)\n"
    );

    let o = run(d, &["check", "--format", "json", "."]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let errors: Vec<(&str, &str)> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| Some((f["path"].as_str()?, f["error"].as_str()?)))
        .collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert_eq!(errors[0], ("./empty.co", "empty file"));
    assert_eq!(v["summary"]["unreadable"], 3);
    assert_eq!(v["summary"]["skipped"], 2);

    // An error anywhere makes the status 1, even with unreadable inputs.
    fixture_copy(d, "bad.hsaco", |o| {
        let k = o.kernels()[0].clone();
        let kd = o.kd(&k);
        o.set_u8(kd + 12, 1);
    });
    let o = run(d, &["check", "."]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).ends_with(
            "1 error, 0 warnings, 0 infos, 3 could not be checked, 2 skipped (no code object)\n"
        ),
        "{}",
        stdout(&o)
    );
}

/// Writes `count` small OpenCL kernels that each use enough SGPRs for
/// clang-19 to write a non-zero GRANULATED_WAVEFRONT_SGPR_COUNT on gfx1030
/// (an info finding each), compiles and links them.
fn many_kernels(dir: &Path, count: usize) -> Option<PathBuf> {
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
    let o = Command::new(clang)
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
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new(lld)
        .args(["-shared", "many.o", "-o", "many.hsaco"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Some(dir.join("many.hsaco"))
}

/// More info findings than the per-rule cap, and one reserved descriptor
/// bit in the last kernel: the error is reported and the status is 1; the
/// infos past the cap are counted, said, and in the summary.
#[test]
fn an_error_after_more_infos_than_the_cap_is_reported() {
    let cap = hsaco_oracle::rules::MAX_INFOS_PER_RULE;
    let count = cap + 50;
    let dir = tempfile::tempdir().unwrap();
    let Some(path) = many_kernels(dir.path(), count) else {
        return;
    };
    let mut obj = Obj::new(std::fs::read(&path).unwrap());
    let kernels = obj.kernels();
    assert_eq!(kernels.len(), count);
    let last = kernels.last().unwrap().clone();
    let kd = obj.kd(&last);
    obj.set_u8(kd + 12, 0x01); // reserved byte 12 of the descriptor
    std::fs::write(&path, &obj.bytes).unwrap();

    let o = run(dir.path(), &["check", "many.hsaco"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert_eq!(
        lines[0],
        format!("many.hsaco: gfx1030, code object V5, {count} kernels")
    );
    assert_eq!(lines[1], format!("  kernel {last}:"));
    assert!(
        lines[2].starts_with("    error   kd.reserved_bytes: ")
            && lines[2].ends_with(&format!(" (at {:#x})", kd + 12)),
        "{text}"
    );
    assert_eq!(
        lines[3],
        format!(
            "checked 1 code object ({count} kernels) in 1 file: 1 error, 0 warnings, {count} infos"
        )
    );
    let o = run(dir.path(), &["check", "-v", "many.hsaco"]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    let infos = text
        .matches("info    kd.rsrc1.granulated_sgpr_count")
        .count();
    assert_eq!(infos, cap, "{text}");
    assert!(
        text.contains(&format!(
            "  \u{2026} and {} more info findings of kd.rsrc1.granulated_sgpr_count not shown\n",
            count - cap
        )),
        "{text}"
    );
    assert!(text.contains("error   kd.reserved_bytes"), "{text}");

    let o = run(dir.path(), &["check", "--format", "json", "many.hsaco"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let f = &v["files"][0];
    assert_eq!(
        f["omitted"],
        serde_json::json!([{"rule": "kd.rsrc1.granulated_sgpr_count", "severity": "info", "count": count - cap}])
    );
    let errors: Vec<&serde_json::Value> = f["violations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["rule"], "kd.reserved_bytes");
    assert_eq!(errors[0]["kernel"], last.as_str());
    assert_eq!(v["summary"]["infos"], count);
    assert_eq!(v["summary"]["errors"], 1);
    assert_eq!(v["summary"]["clean"], 0);

    // explain lists the same findings and says what it leaves out.
    let o = run(dir.path(), &["explain", "many.hsaco"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains(&format!(
            "  \u{2026} and {} more info findings of kd.rsrc1.granulated_sgpr_count not shown\n",
            count - cap
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("  error   kd.reserved_bytes [{last}]: ")),
        "{text}"
    );
}
