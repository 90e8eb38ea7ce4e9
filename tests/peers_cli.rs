//! `hsaco-conform peers`: what it lists is checked against what is on disk,
//! found and versioned independently here (directory listings, `TOOL
//! --version` parsed by this test's own reader).
//!
//! On the CI machine (llvm-19, lld-19, clang-19, llvm-14, libamd-comgr2,
//! libhsa-runtime64-1) the JSON must list LLVM 14 and 19 tools and
//! libraries, comgr 2.x usable, and the HSA runtime with a status. Missing
//! tools skip the parts that need them, except in CI.

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
