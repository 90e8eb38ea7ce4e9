//! `hsaco-conform conform` object-level comparisons against the real tools:
//! `rebuild` (llvm-mc 19 and 14 + ld.lld-19), `descriptors` (llvm-objdump
//! 19 and 14) and `metadata` (llvm-readobj 19 and 14) on a few generated
//! objects per processor.
//! Every difference must be explained by the built-in allowlist, and a
//! finding's folder holds the object and a script running the peer alone.

mod support;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_hsaco-conform");

fn tools() -> Option<()> {
    for t in [
        "llvm-mc-19",
        "llvm-mc-14",
        "ld.lld-19",
        "llvm-objdump-19",
        "llvm-objdump-14",
        "llvm-readobj-19",
        "llvm-readobj-14",
    ] {
        support::require_tool(t)?;
    }
    Some(())
}

fn conform(args: &[&str], json: &Path) -> (Option<i32>, String, Value) {
    let o = Command::new(BIN)
        .arg("conform")
        .args(args)
        .arg("--quiet")
        .arg("--json")
        .arg(json)
        .output()
        .expect("run hsaco-conform");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let j = serde_json::from_slice(&std::fs::read(json).unwrap_or_default()).unwrap_or(Value::Null);
    (o.status.code(), text, j)
}

fn cell<'a>(j: &'a Value, comparison: &str, peer: &str) -> &'a Value {
    j["matrix"]
        .as_array()
        .expect("matrix")
        .iter()
        .find(|c| c["comparison"] == comparison && c["peer"] == peer)
        .unwrap_or_else(|| panic!("no cell {comparison} {peer} in {}", j["matrix"]))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

#[test]
fn object_comparisons_agree_with_llvm_up_to_known_differences() {
    if tools().is_none() {
        return;
    }
    let d = tempfile::tempdir().expect("tmp");
    let jp = d.path().join("o.json");
    let (code, text, j) = conform(
        &[
            "--kinds",
            "rebuild,descriptors,metadata",
            "--targets",
            "gfx803,gfx90a,gfx1030,gfx1200",
            "--objects",
            "8",
            "--peers",
            "rebuild,llvm-objdump,llvm-readobj",
        ],
        &jp,
    );
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(j["options"]["objects"], 8, "{text}");
    assert_eq!(
        j["options"]["kinds"],
        serde_json::json!(["rebuild", "descriptors", "metadata"])
    );
    for (comparison, peer) in [
        ("rebuild", "llvm-mc-19+ld.lld-19"),
        ("rebuild", "llvm-mc-14+ld.lld-19"),
        ("descriptors", "llvm-objdump-19"),
        ("descriptors", "llvm-objdump-14"),
        ("metadata", "llvm-readobj-19"),
        ("metadata", "llvm-readobj-14"),
    ] {
        let c = cell(&j, comparison, peer);
        // 4 processors × 8 objects, each given to every peer.
        assert_eq!(u(&c["compared"]), 32, "{c}");
        assert_eq!(
            (u(&c["different"]), u(&c["crashed"]), u(&c["timed_out"])),
            (0, 0, 0),
            "{c}"
        );
        assert_eq!(
            u(&c["same"]) + u(&c["known"]) + u(&c["not_comparable"]),
            32,
            "{c}"
        );
        assert!(u(&c["same"]) > 0, "{c}");
    }
    // LLVM 14 does not know gfx1200; V3 cases go to llvm-mc-14 only.
    let c = cell(&j, "descriptors", "llvm-objdump-14");
    assert_eq!(
        u(&c["not_comparable_reasons"]["LLVM 14 does not know gfx1200"]),
        8,
        "{c}"
    );
    let c = cell(&j, "rebuild", "llvm-mc-19+ld.lld-19");
    assert!(
        c["not_comparable_reasons"]["rebuilt by LLVM 14"].is_u64(),
        "{c}"
    );
    // llvm-readobj-19 reads every generated metadata note.
    let c = cell(&j, "metadata", "llvm-readobj-19");
    assert_eq!(u(&c["same"]), 32, "{c}");
    assert_eq!(j["findings"].as_array().map(Vec::len), Some(0));
}

#[test]
fn an_unexplained_descriptor_difference_is_a_finding_with_the_object() {
    if tools().is_none() {
        return;
    }
    // Without the allowlist, llvm-objdump-14's wave64 VGPR granule on
    // gfx1010 (seed 1 makes wave64 kernels there) is a new finding.
    let d = tempfile::tempdir().expect("tmp");
    let (jp, out) = (d.path().join("o.json"), d.path().join("found"));
    let (code, text, j) = conform(
        &[
            "--kinds",
            "descriptors",
            "--targets",
            "gfx1010",
            "--peers",
            "llvm-objdump-14",
            "--no-allowlist",
            "--out",
            out.to_str().expect("UTF-8"),
        ],
        &jp,
    );
    assert_eq!(code, Some(1), "{text}");
    let f = &j["findings"][0];
    assert_eq!(f["comparison"], "descriptors", "{f}");
    let dir = out.join(f["dir"].as_str().expect("finding folder"));
    let objects: Vec<_> = std::fs::read_dir(&dir)
        .expect("folder")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".hsaco"))
        .collect();
    assert_eq!(objects.len(), 1, "{}", dir.display());
    // The script shows the peer alone: it prints the doubled count.
    let o = Command::new("sh")
        .arg("input.txt")
        .current_dir(&dir)
        .output()
        .expect("sh");
    assert!(o.status.success());
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains(".amdhsa_next_free_vgpr"), "{stdout}");
    assert!(stdout.contains(".amdhsa_wavefront_size32 0"), "{stdout}");
}
