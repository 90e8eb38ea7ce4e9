//! Every installed LLVM version is a peer of its own, and its verdicts do
//! not depend on which other versions take part: `conform` with every peer,
//! then again without each LLVM version in turn, gives every remaining peer
//! the same matrix cell (compared, same, known, different, informational,
//! not comparable and why, crashed, timed out). The `rebuild` comparison
//! has one row per LLVM version that assembles the case (the known
//! divergences of older assemblers counted as known by version range).

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_hsaco-conform");

/// A small run of every comparison: SMEM words, encodings, and objects.
const RUN: &[&str] = &[
    "conform",
    "--quiet",
    "--count",
    "4096",
    "--objects",
    "4",
    "--targets",
    "gfx900,gfx90a,gfx1030,gfx1100",
];

fn conform(json: &Path, peers: Option<&[String]>) -> Value {
    let mut cmd = Command::new(BIN);
    cmd.args(RUN).arg("--json").arg(json);
    if let Some(p) = peers {
        cmd.arg("--peers").arg(p.join(","));
    }
    let o = cmd.output().expect("run hsaco-conform");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&std::fs::read(json).expect("read JSON")).expect("parse JSON")
}

/// The verdicts of each (comparison, peer) cell: the matrix without its
/// timings.
fn verdicts(j: &Value) -> BTreeMap<(String, String), Value> {
    j["matrix"]
        .as_array()
        .expect("matrix")
        .iter()
        .map(|c| {
            let mut c = c.clone();
            let m = c.as_object_mut().expect("cell");
            m.remove("per_second");
            m.remove("seconds");
            let key = (
                m["comparison"].as_str().expect("comparison").to_owned(),
                m["peer"].as_str().expect("peer").to_owned(),
            );
            (key, c)
        })
        .collect()
}

#[test]
fn removing_one_llvm_version_changes_no_other_peers_verdicts() {
    for t in [
        "llvm-mc-19",
        "llvm-objdump-19",
        "llvm-readobj-19",
        "llvm-mc-14",
    ] {
        if support::require_tool(t).is_none() {
            return;
        }
    }
    let d = tempfile::tempdir().expect("tempdir");
    let full = conform(&d.path().join("all.json"), None);
    let all = verdicts(&full);
    // Peers by LLVM version, as the run reports them.
    let mut by_version: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    let mut ids = Vec::new();
    for p in full["peers"].as_array().expect("peers") {
        let id = p["id"].as_str().expect("id").to_owned();
        if let Some(v) = p["version"].as_u64() {
            by_version.entry(v).or_default().insert(id.clone());
        }
        ids.push(id);
    }
    assert!(by_version.len() >= 2, "two LLVM versions: {by_version:?}");
    // Each version that can assemble a case rebuilds it: LLVM 19 (V4+ text)
    // and LLVM 14 (V3, and V4-V5 text with the version as an option) both
    // compare rebuilt objects.
    for v in [14, 19] {
        let rows: Vec<&Value> = all
            .iter()
            .filter(|((c, p), _)| c == "rebuild" && by_version[&v].contains(p))
            .map(|(_, cell)| cell)
            .collect();
        assert_eq!(rows.len(), 1, "one rebuild row for LLVM {v}");
        let c = rows[0];
        let same = c["same"].as_u64().expect("same");
        assert!(same > 0, "LLVM {v} rebuilds some case the same: {c}");
        assert_eq!(c["different"], 0, "{c}");
    }
    for (v, gone) in &by_version {
        let keep: Vec<String> = ids.iter().filter(|p| !gone.contains(*p)).cloned().collect();
        let without = verdicts(&conform(&d.path().join(format!("no{v}.json")), Some(&keep)));
        let expected: BTreeMap<_, _> = all
            .iter()
            .filter(|((_, p), _)| !gone.contains(p))
            .map(|(k, c)| (k.clone(), c.clone()))
            .collect();
        assert_eq!(
            without.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            "without LLVM {v}"
        );
        for (k, c) in &expected {
            assert_eq!(&without[k], c, "without LLVM {v}: {k:?}");
        }
    }
}
