//! `hsaco-conform peers`: what it lists is checked against what is on disk,
//! found and versioned independently here (directory listings, `TOOL
//! --version` parsed by this test's own reader).
//!
//! On the CI machine (llvm-19, lld-19, clang-19, llvm-14, libamd-comgr2,
//! libhsa-runtime64-1) the JSON must list LLVM 14 and 19 tools and
//! libraries, comgr 2.x usable, and the HSA runtime with a status. Missing
//! tools skip the parts that need them, except in CI.
//!
//! Also: peers the user names (`--peer NAME=PATH`: an install folder made
//! of links to LLVM 19, one tool) listed and used by `conform` under their
//! names, with reproducers that name their paths; bad `--peer` values; a
//! plain `llvm-mc` of its own on `PATH` used as a peer of its own; and
//! `cargo run`'s `LD_LIBRARY_PATH` (the Rust toolchain's private libLLVM,
//! cargo's target folders) changing nothing.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const TOOLS: [&str; 4] = ["llvm-mc", "llvm-objdump", "llvm-readobj", "ld.lld"];

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_hsaco-conform")
}

fn peers_json() -> Value {
    let out = Command::new(exe())
        .args(["peers", "--format", "json"])
        .output()
        .expect("run hsaco-conform");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn peers(j: &Value) -> &[Value] {
    j["peers"].as_array().expect("peers array")
}

fn canon(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// A shared library in the system directories, or `None` after a printed
/// skip (a panic in CI).
fn require_lib(name: &str) -> Option<PathBuf> {
    let dirs = [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
        "/opt/rocm/lib",
    ];
    if let Some(p) = dirs
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
    {
        return Some(p);
    }
    let msg = format!("library {name} not found (install the Debian packages listed in .ci/run)");
    assert!(!support::in_ci(), "{msg}");
    eprintln!("SKIPPED: {msg}");
    None
}

/// Every executable named TOOL or TOOL-NN in PATH and /usr/lib/llvm-*/bin,
/// by canonical path, with the tool name.
fn tools_on_disk() -> BTreeMap<PathBuf, &'static str> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    if let Ok(rd) = std::fs::read_dir("/usr/lib") {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with("llvm-") {
                dirs.push(e.path().join("bin"));
            }
        }
    }
    let mut out = BTreeMap::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            for t in TOOLS {
                let suffix_ok = name == t
                    || name
                        .strip_prefix(t)
                        .and_then(|r| r.strip_prefix('-'))
                        .is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()));
                if suffix_ok && e.path().is_file() {
                    out.insert(canon(&e.path()), t);
                }
            }
        }
    }
    out
}

/// `X.Y.Z` after "version" or "LLD" in `TOOL --version`.
fn version_of(tool: &Path) -> Option<String> {
    let out = Command::new(tool).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(2)
        .find(|w| w[0] == "version" || w[0] == "LLD")
        .map(|w| w[1].to_owned())
}

#[test]
fn tools_match_the_disk() {
    let (Some(_), Some(_)) = (
        support::require_tool("llvm-mc-19"),
        support::require_tool("llvm-mc-14"),
    ) else {
        return;
    };
    let j = peers_json();
    let on_disk = tools_on_disk();
    let mut listed: BTreeMap<PathBuf, &str> = BTreeMap::new();
    for p in peers(&j).iter().filter(|p| p["kind"] == "tool") {
        let name = p["name"].as_str().expect("name");
        let path = PathBuf::from(p["path"].as_str().expect("path"));
        assert!(path.is_file(), "{}", path.display());
        let real = canon(&path);
        for a in p["aliases"].as_array().expect("aliases") {
            let a = PathBuf::from(a.as_str().expect("alias"));
            assert!(a.is_file(), "{}", a.display());
            assert_eq!(
                canon(&a),
                real,
                "alias {} of {}",
                a.display(),
                path.display()
            );
        }
        assert!(
            listed.insert(real.clone(), name).is_none(),
            "{} listed twice",
            real.display()
        );
        // The version, read here independently.
        let v = version_of(&path).expect("a version");
        assert_eq!(
            p["version"].as_str(),
            Some(v.as_str()),
            "{}",
            path.display()
        );
        let major: u64 = v
            .split('.')
            .next()
            .and_then(|m| m.parse().ok())
            .expect("major");
        assert_eq!(p["llvm_major"].as_u64(), Some(major), "{}", path.display());
        assert_eq!(p["status"], "usable", "{p}");
        let want: &[&str] = match name {
            "llvm-mc" => &["smem-disasm", "smem-encode", "rebuild", "descriptors"],
            "llvm-objdump" => &["descriptors", "mutants"],
            "llvm-readobj" => &["metadata", "mutants"],
            "ld.lld" => &["rebuild"],
            other => panic!("unexpected tool {other}"),
        };
        let got: Vec<&str> = p["compares"]
            .as_array()
            .expect("compares")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(got, want, "{}", path.display());
    }
    assert_eq!(
        listed,
        on_disk.iter().map(|(k, v)| (k.clone(), *v)).collect()
    );
    // Both LLVM versions have all three tools; 19 also has the linker.
    let versions: BTreeSet<u64> = j["llvm_versions"]
        .as_array()
        .expect("llvm_versions")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    assert!(
        versions.contains(&14) && versions.contains(&19),
        "{versions:?}"
    );
    for (major, tools) in [(14, &TOOLS[..3]), (19, &TOOLS[..])] {
        for t in tools {
            assert!(
                peers(&j)
                    .iter()
                    .any(|p| p["name"] == *t && p["llvm_major"] == major),
                "no {t} of LLVM {major}"
            );
        }
    }
}

#[test]
fn libraries_comgr_and_hsa() {
    let j = peers_json();
    // libLLVM: every libLLVM-NN.so of the system directory, by version.
    if let (Some(l14), Some(l19)) = (require_lib("libLLVM-14.so"), require_lib("libLLVM-19.so")) {
        for (major, lib) in [(14, l14), (19, l19)] {
            let p = peers(&j)
                .iter()
                .find(|p| p["kind"] == "library" && p["llvm_major"] == major)
                .unwrap_or_else(|| panic!("no libLLVM {major}"));
            let path = PathBuf::from(p["path"].as_str().expect("path"));
            assert_eq!(canon(&path), canon(&lib));
            assert_eq!(p["status"], "usable", "{p}");
            assert_eq!(p["compares"], serde_json::json!(["smem-disasm"]));
        }
    }
    // comgr: interface 2.x, usable.
    if let Some(lib) = require_lib("libamd_comgr.so.2") {
        let c: Vec<&Value> = peers(&j).iter().filter(|p| p["kind"] == "comgr").collect();
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(
            canon(Path::new(c[0]["path"].as_str().expect("path"))),
            canon(&lib)
        );
        let v = c[0]["version"].as_str().expect("version");
        assert!(v.starts_with("2."), "{v}");
        assert_eq!(c[0]["status"], "usable", "{}", c[0]);
        assert_eq!(
            c[0]["compares"],
            serde_json::json!(["comgr-metadata", "mutants"])
        );
    }
    // HSA runtime: listed with a status; its version is the real file's.
    if let Some(lib) = require_lib("libhsa-runtime64.so.1") {
        let h: Vec<&Value> = peers(&j)
            .iter()
            .filter(|p| p["kind"] == "hsa_runtime")
            .collect();
        assert_eq!(h.len(), 1, "{h:?}");
        let h = h[0];
        assert_eq!(
            canon(Path::new(h["path"].as_str().expect("path"))),
            canon(&lib)
        );
        let real = canon(&lib);
        let file = real
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let want = file.split_once(".so.").expect(".so.").1;
        let init = h["details"]["hsa_init"].as_str().expect("hsa_init detail");
        if Path::new("/dev/kfd").exists() {
            assert!(h["status"] == "usable" || h["status"] == "broken", "{h}");
        } else {
            // No GPU driver: the runtime refuses to start, as NOTES.md says.
            assert_eq!(h["status"], "broken", "{h}");
            assert!(init.starts_with("0x1008"), "{init}");
            assert!(
                h["reason"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("hsa_init returned 0x1008")),
                "{h}"
            );
            assert_eq!(h["version"].as_str(), Some(want));
            assert_eq!(h["compares"], serde_json::json!([]));
        }
    }
}

#[test]
fn text_table_and_help() {
    let out = Command::new(exe()).arg("peers").output().expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().expect("a header");
    for col in ["NAME", "VERSION", "STATUS", "COMPARES", "PATH"] {
        assert!(first.contains(col), "{first}");
    }
    let j = peers_json();
    for m in j["llvm_versions"].as_array().expect("versions") {
        assert!(text.contains(&format!("\nLLVM {m}\n")), "{text}");
    }
    assert!(
        text.contains("\ncomgr\n") && text.contains("\nHSA runtime\n"),
        "{text}"
    );
    let n = peers(&j).len();
    assert!(text.contains(&format!("\n{n} peers, ")), "{text}");
    let help = Command::new(exe())
        .args(["peers", "--help"])
        .output()
        .expect("run");
    let help = String::from_utf8_lossy(&help.stdout);
    for w in ["--peer <NAME=PATH>", "Not peers", "Rust toolchain"] {
        assert!(help.contains(w), "{w} missing from --help");
    }
    for cap in [
        "smem-disasm",
        "smem-encode",
        "rebuild",
        "descriptors",
        "metadata",
        "comgr-metadata",
        "mutants",
    ] {
        assert!(help.contains(cap), "{cap} missing from --help");
    }
    // The worker is internal.
    let top = Command::new(exe()).arg("--help").output().expect("run");
    let top = String::from_utf8_lossy(&top.stdout);
    assert!(
        top.contains("peers") && !top.contains("peers-worker"),
        "{top}"
    );
}

fn peers_json_with(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Value {
    let mut cmd = Command::new(exe());
    cmd.args(["peers", "--format", "json"]).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run hsaco-conform");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// An LLVM 19 install folder of links (bin/ tools, lib/libLLVM.so), as a
/// user's own build would be laid out; `None` after a printed skip.
fn llvm19_folder(root: &Path) -> Option<PathBuf> {
    support::require_tool("llvm-mc-19")?;
    support::require_tool("ld.lld-19")?;
    let lib = require_lib("libLLVM-19.so")?;
    let dir = root.join("my-llvm");
    std::fs::create_dir_all(dir.join("bin")).expect("mkdir");
    std::fs::create_dir_all(dir.join("lib")).expect("mkdir");
    for t in TOOLS {
        let real = support::which(&format!("{t}-19")).expect("found above");
        std::os::unix::fs::symlink(canon(&real), dir.join("bin").join(t)).expect("link");
    }
    // No version in the name: the version comes from the library itself.
    std::os::unix::fs::symlink(canon(&lib), dir.join("lib/libLLVM.so")).expect("link");
    Some(dir)
}

fn by_id<'a>(j: &'a Value, id: &str) -> Option<&'a Value> {
    peers(j).iter().find(|p| p["id"] == id)
}

#[test]
fn a_named_install_folder_is_listed_under_its_name() {
    let d = tempfile::tempdir().expect("tmp");
    let Some(dir) = llvm19_folder(d.path()) else {
        return;
    };
    let spec = format!("mine={}", dir.display());
    let j = peers_json_with(&["--peer", &spec], &[]);
    let mine: Vec<&Value> = peers(&j)
        .iter()
        .filter(|p| p["named"]["name"] == "mine")
        .collect();
    let ids: BTreeSet<&str> = mine.iter().filter_map(|p| p["id"].as_str()).collect();
    assert_eq!(
        ids,
        BTreeSet::from([
            "mine:llvm-mc",
            "mine:llvm-objdump",
            "mine:llvm-readobj",
            "mine:ld.lld",
            "mine:libllvm"
        ]),
        "{mine:?}"
    );
    for p in &mine {
        assert_eq!(p["llvm_major"], 19, "{p}");
        assert_eq!(p["status"], "usable", "{p}");
        let path = PathBuf::from(p["path"].as_str().expect("path"));
        assert!(path.starts_with(&dir), "the path as named: {p}");
    }
    // The same files found on the machine are these peers, not others.
    for gone in [
        "llvm-mc-19",
        "llvm-objdump-19",
        "llvm-readobj-19",
        "ld.lld-19",
        "libllvm-19",
    ] {
        assert!(by_id(&j, gone).is_none(), "{gone} is mine's now");
    }
    let mc = by_id(&j, "mine:llvm-mc").expect("mine:llvm-mc");
    let mc19 = canon(&support::which("llvm-mc-19").expect("found above"));
    assert!(
        mc["aliases"]
            .as_array()
            .expect("aliases")
            .iter()
            .any(|a| canon(Path::new(a.as_str().expect("alias"))) == mc19),
        "{mc}"
    );
    assert_eq!(
        mc["version"],
        by_id(&peers_json(), "llvm-mc-19").expect("llvm-mc-19")["version"]
    );
    // Other versions are untouched.
    if support::which("llvm-mc-14").is_some() {
        assert!(by_id(&j, "llvm-mc-14").is_some());
    }
    // The text table too.
    let out = Command::new(exe())
        .args(["peers", "--peer", &spec])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\n  mine:llvm-mc ") && text.contains("\n  mine:libllvm "),
        "{text}"
    );
    // One tool: its NAME is its id.
    let one = format!("mymc={}", dir.join("bin/llvm-mc").display());
    let j = peers_json_with(&["--peer", &one], &[]);
    let p = by_id(&j, "mymc").expect("mymc");
    assert_eq!(
        (p["name"].as_str(), p["llvm_major"].as_u64()),
        (Some("llvm-mc"), Some(19))
    );
}

#[test]
fn conform_runs_a_named_peer_under_its_name_and_reproducers_name_its_path() {
    let d = tempfile::tempdir().expect("tmp");
    let Some(dir) = llvm19_folder(d.path()) else {
        return;
    };
    let spec = format!("mine={}", dir.display());
    let (jp, out) = (d.path().join("c.json"), d.path().join("found"));
    // Without the allowlist the known divergences are findings, each with
    // a reproducer.
    let o = Command::new(exe())
        .args([
            "conform",
            "--peer",
            &spec,
            "--peers",
            "mine",
            "--targets",
            "gfx900",
            "--kinds",
            "smem-disasm,smem-encode,descriptors",
            "--count",
            "512",
            "--objects",
            "1",
            "--no-allowlist",
            "--no-reduce",
            "--quiet",
            "--json",
        ])
        .arg(&jp)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("run");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(1), "{text}");
    for row in [
        "smem-disasm  mine:libllvm ",
        "smem-disasm  mine:llvm-mc ",
        "smem-encode  mine:llvm-mc ",
        "descriptors  mine:llvm-objdump+mine:llvm-mc ",
    ] {
        assert!(text.contains(row), "{row}: {text}");
    }
    let j: Value = serde_json::from_slice(&std::fs::read(&jp).expect("json")).expect("JSON");
    let ids: BTreeSet<&str> = j["peers"]
        .as_array()
        .expect("peers")
        .iter()
        .filter_map(|p| p["id"].as_str())
        .collect();
    assert!(ids.iter().all(|i| i.starts_with("mine:")), "{ids:?}");
    assert_eq!(j["options"]["named"], serde_json::json!([spec]));
    // The version was probed: LLVM 19's known divergences are tagged as
    // such (findings list version 19).
    let findings = j["findings"].as_array().expect("findings");
    assert!(!findings.is_empty());
    let mut shown = 0;
    for f in findings {
        assert_eq!(f["versions"], serde_json::json!([19]), "{f}");
        for c in f["commands"].as_array().expect("commands") {
            let argv: Vec<&str> = c["argv"]
                .as_array()
                .expect("argv")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            match c["peer"].as_str() {
                Some("mine:llvm-mc") => {
                    assert_eq!(argv[0], dir.join("bin/llvm-mc").to_str().expect("UTF-8"));
                    shown += 1;
                }
                Some("mine:libllvm") => {
                    // This program again, by path, with the same --peer.
                    assert_eq!(canon(Path::new(argv[0])), canon(Path::new(exe())), "{c}");
                    assert_eq!(argv[1..3], ["diff", "words"]);
                    let at = argv.iter().position(|a| *a == "--peer").expect("--peer");
                    assert_eq!(argv[at + 1], spec);
                    shown += 1;
                }
                _ => {}
            }
        }
    }
    assert!(shown > 0, "{findings:?}");
    // A reproducer run where the finding's folder is: the same view.
    let f = findings
        .iter()
        .find(|f| {
            f["peers"]
                .as_array()
                .is_some_and(|p| p.iter().any(|x| x == "mine:llvm-mc"))
        })
        .expect("an llvm-mc finding");
    let c = f["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .find(|c| c["peer"] == "mine:llvm-mc")
        .expect("command");
    let argv: Vec<&str> = c["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let r = Command::new(argv[0])
        .args(&argv[1..])
        .current_dir(out.join(f["dir"].as_str().expect("dir")))
        .output()
        .expect("run the reproducer");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(!r.stdout.is_empty());
}

#[test]
fn bad_peer_values_are_one_line_and_exit_2_before_work() {
    let d = tempfile::tempdir().expect("tmp");
    let notes = d.path().join("notes.txt");
    std::fs::write(&notes, "not a tool").expect("write");
    let fake = d.path().join("fake/bin");
    std::fs::create_dir_all(&fake).expect("mkdir");
    let fake_mc = fake.join("llvm-mc");
    std::fs::write(&fake_mc, "#!/bin/sh\necho hello\n").expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake_mc, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    // An ELF shared object without the AMDGPU target, named as a libLLVM:
    // this very program (a position-independent executable with a dynamic
    // symbol table).
    let no_amdgpu = d.path().join("libLLVM-19.so");
    std::fs::copy(exe(), &no_amdgpu).expect("copy");
    let empty = d.path().join("empty");
    std::fs::create_dir_all(&empty).expect("mkdir");
    let s = |p: &Path| p.display().to_string();
    let cases: Vec<(String, String)> = vec![
        ("nonsense".into(), "expected NAME=PATH".into()),
        ("x=".into(), "no PATH after '='".into()),
        ("bad/name=/usr".into(), "NAME must be letters".into()),
        (
            "x=/nonexistent/llvm".into(),
            "No such file or directory".into(),
        ),
        (format!("x={}", s(&notes)), "not an LLVM tool".into()),
        (
            format!("x={}", s(&fake_mc)),
            "is not a working LLVM tool".into(),
        ),
        (
            format!("x={}", s(&no_amdgpu)),
            "without the AMDGPU target".into(),
        ),
        (
            format!("x={}", s(&empty)),
            "no LLVM tool (bin/llvm-mc".into(),
        ),
    ];
    let words = d.path().join("w.txt");
    std::fs::write(&words, "0x00 0x00 0x80 0xbf\n").expect("write");
    for (value, why) in &cases {
        for cmd in [
            vec!["peers"],
            vec!["conform", "--targets", "gfx900"],
            vec![
                "diff",
                "words",
                "--target",
                "gfx900",
                words.to_str().expect("UTF-8"),
            ],
        ] {
            let t0 = std::time::Instant::now();
            let o = Command::new(exe())
                .args(&cmd)
                .args(["--peer", value])
                .output()
                .expect("run");
            let err = String::from_utf8_lossy(&o.stderr).into_owned();
            assert_eq!(o.status.code(), Some(2), "{cmd:?} --peer {value}: {err}");
            assert_eq!(err.lines().count(), 1, "one line: {err}");
            assert!(
                err.contains("--peer") && err.contains(why.as_str()),
                "{cmd:?} --peer {value}: {err}"
            );
            assert!(
                o.stdout.is_empty(),
                "nothing ran: {}",
                String::from_utf8_lossy(&o.stdout)
            );
            assert!(t0.elapsed() < std::time::Duration::from_secs(30));
        }
    }
    // The same NAME twice.
    let o = Command::new(exe())
        .args([
            "peers",
            "--peer",
            &format!("a={}", s(&fake_mc)),
            "--peer",
            &format!("a={}", s(&notes)),
        ])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("given twice"));
}

#[test]
fn a_plain_llvm_mc_of_its_own_is_a_peer_of_its_own() {
    let Some(mc19) = support::require_tool("llvm-mc-19") else {
        return;
    };
    let d = tempfile::tempdir().expect("tmp");
    // A copy, not a link: another executable, first on PATH.
    std::fs::copy(canon(&mc19), d.path().join("llvm-mc")).expect("copy");
    let path = std::env::join_paths(std::iter::once(d.path().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    let j = peers_json_with(&[], &[("PATH", path.as_os_str())]);
    // llvm-mc-19 keeps its id; the plain one is used too, numbered.
    let own = by_id(&j, "llvm-mc-19-2").expect("the plain llvm-mc is a peer");
    assert_eq!(own["path"].as_str(), d.path().join("llvm-mc").to_str());
    assert_eq!(own["status"], "usable");
    let versioned = by_id(&j, "llvm-mc-19").expect("llvm-mc-19");
    assert_eq!(
        canon(Path::new(versioned["path"].as_str().expect("path"))),
        canon(&mc19)
    );
    // conform uses it under that id.
    let o = Command::new(exe())
        .env("PATH", &path)
        .args([
            "conform",
            "--peers",
            "llvm-mc-19-2,llvm-mc-19",
            "--kinds",
            "smem-disasm",
            "--targets",
            "gfx900",
            "--count",
            "512",
            "--quiet",
        ])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        text.contains("smem-disasm  llvm-mc-19-2 ") && text.contains("smem-disasm  llvm-mc-19 "),
        "{text}"
    );
}

/// (id, kind, path, version) of the LLVM tools and libraries listed.
fn llvm_peers(j: &Value) -> Vec<(String, String, String, String)> {
    peers(j)
        .iter()
        .filter(|p| p["kind"] == "tool" || p["kind"] == "library")
        .map(|p| {
            let f = |k: &str| p[k].as_str().unwrap_or("").to_owned();
            (f("id"), f("kind"), f("path"), f("version"))
        })
        .collect()
}

#[test]
fn cargo_runs_library_path_changes_no_peer() {
    // The sysroot of the toolchain that built this test.
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let sysroot = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let Some(sysroot) = sysroot else {
        let msg = "rustc --print sysroot failed";
        assert!(!support::in_ci(), "{msg}");
        eprintln!("SKIPPED: {msg}");
        return;
    };
    let lib = sysroot.join("lib");
    let private: Vec<PathBuf> = std::fs::read_dir(&lib)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("libLLVM"))
                })
                .collect()
        })
        .unwrap_or_default();
    if private.is_empty() {
        let msg = format!(
            "{} holds no libLLVM (not a rustup toolchain?)",
            lib.display()
        );
        assert!(!support::in_ci(), "{msg}");
        eprintln!("SKIPPED: {msg}");
        return;
    }
    // What `cargo run` sets: the target folders and the toolchain's.
    let target = Path::new(exe())
        .parent()
        .expect("target/debug")
        .to_path_buf();
    let host_lib = std::fs::read_dir(sysroot.join("lib/rustlib"))
        .ok()
        .and_then(|rd| {
            rd.flatten()
                .map(|e| e.path().join("lib"))
                .find(|p| p.is_dir())
        });
    let dirs: Vec<PathBuf> = [target.clone(), target.join("deps")]
        .into_iter()
        .chain(host_lib)
        .chain([lib.clone()])
        .collect();
    let ldp = std::env::join_paths(&dirs).expect("LD_LIBRARY_PATH");
    let with = peers_json_with(&[], &[("LD_LIBRARY_PATH", ldp.as_os_str())]);
    let without = peers_json_with(&[], &[("LD_LIBRARY_PATH", std::ffi::OsStr::new(""))]);
    assert_eq!(llvm_peers(&with), llvm_peers(&without));
    // The toolchain's libraries are named as not peers, with why.
    let not: Vec<&Value> = with["not_peers"]
        .as_array()
        .expect("not_peers")
        .iter()
        .collect();
    for p in &private {
        let n = not
            .iter()
            .find(|n| n["path"].as_str() == p.to_str())
            .unwrap_or_else(|| panic!("{} not listed in {not:?}", p.display()));
        assert!(
            n["reason"]
                .as_str()
                .is_some_and(|r| r.contains("Rust toolchain")),
            "{n}"
        );
    }
    // conform sees the same peers either way.
    let ids = |ldp: &std::ffi::OsStr| {
        let o = Command::new(exe())
            .env("LD_LIBRARY_PATH", ldp)
            .args([
                "conform",
                "--peers",
                "libllvm",
                "--kinds",
                "smem-disasm",
                "--targets",
                "gfx900",
                "--count",
                "512",
                "--quiet",
            ])
            .output()
            .expect("run");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let (a, b) = (ids(ldp.as_os_str()), ids(std::ffi::OsStr::new("")));
    let peer_ids = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.starts_with("smem-disasm  "))
            .filter_map(|l| l.split_whitespace().nth(1).map(str::to_owned))
            .collect()
    };
    assert!(!peer_ids(&b).is_empty(), "{b}");
    assert_eq!(peer_ids(&a), peer_ids(&b), "{a}\n{b}");
}
