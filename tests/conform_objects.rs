//! `hsaco-conform conform` object-level comparisons against the real tools:
//! `rebuild` (llvm-mc 19 and 14, each on every case it can assemble, + the
//! newest ld.lld), `descriptors` (llvm-objdump
//! 19 and 14) and `metadata` (llvm-readobj 19 and 14) on a few generated
//! objects per processor.
//! Every difference must be explained by the built-in allowlist, and a
//! finding's folder holds the object and a script running the peer alone.
//! Also: comgr (`comgr-metadata`, in worker processes; a comgr crash is a
//! finding and the run goes on), the `mutants` comparison (informational
//! findings that leave the exit status at 0), and the reduction of object
//! findings on the generator's model.

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

/// The cell of `comparison` whose peer name starts with `prefix`: the
/// rebuild peers pair llvm-mc with the newest ld.lld installed
/// (`llvm-mc-19+ld.lld-22` where lld-22 is, as CI installs it).
fn cell_prefix<'a>(j: &'a Value, comparison: &str, prefix: &str) -> &'a Value {
    j["matrix"]
        .as_array()
        .expect("matrix")
        .iter()
        .find(|c| {
            c["comparison"] == comparison
                && c["peer"].as_str().is_some_and(|p| p.starts_with(prefix))
        })
        .unwrap_or_else(|| panic!("no cell {comparison} {prefix}* in {}", j["matrix"]))
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
        ("rebuild", "llvm-mc-19+ld.lld-"),
        ("rebuild", "llvm-mc-14+ld.lld-"),
        ("descriptors", "llvm-objdump-19"),
        ("descriptors", "llvm-objdump-14"),
        ("metadata", "llvm-readobj-19"),
        ("metadata", "llvm-readobj-14"),
    ] {
        let c = if peer.ends_with("ld.lld-") {
            cell_prefix(&j, comparison, peer)
        } else {
            cell(&j, comparison, peer)
        };
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
    // LLVM 14 does not know gfx1200; V3 cases go to LLVM before 19 only
    // (every version that can assemble a case rebuilds it).
    let c = cell(&j, "descriptors", "llvm-objdump-14");
    assert_eq!(
        u(&c["not_comparable_reasons"]["LLVM 14 does not know gfx1200"]),
        8,
        "{c}"
    );
    let c = cell_prefix(&j, "rebuild", "llvm-mc-19+ld.lld-");
    assert!(
        c["not_comparable_reasons"]["LLVM 19 cannot assemble code object V3"].is_u64(),
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

/// comgr, or `None` after a printed skip (a panic in CI).
fn require_comgr() -> Option<()> {
    match hsaco_conform::peers::comgr::Comgr::open() {
        Ok(_) => Some(()),
        Err(e) => {
            let msg = format!("comgr: {e}");
            assert!(!support::in_ci(), "{msg}");
            eprintln!("SKIPPED: {msg}");
            None
        }
    }
}

/// The comgr peer's id in a run's JSON.
fn comgr_id(j: &Value) -> String {
    j["peers"]
        .as_array()
        .expect("peers")
        .iter()
        .find(|p| p["family"] == "comgr")
        .and_then(|p| p["id"].as_str())
        .unwrap_or_else(|| panic!("no comgr peer in {}", j["peers"]))
        .to_owned()
}

#[test]
fn comgr_and_mutants_run_and_informational_findings_do_not_fail_the_run() {
    if tools().is_none() || require_comgr().is_none() {
        return;
    }
    let d = tempfile::tempdir().expect("tmp");
    let (jp, xp, hp, out) = (
        d.path().join("o.json"),
        d.path().join("o.xml"),
        d.path().join("o.html"),
        d.path().join("found"),
    );
    let (code, text, j) = conform(
        &[
            "--kinds",
            "comgr-metadata,mutants",
            "--targets",
            "gfx900,gfx1100",
            "--objects",
            "8",
            "--junit",
            xp.to_str().expect("UTF-8"),
            "--html",
            hp.to_str().expect("UTF-8"),
            "--out",
            out.to_str().expect("UTF-8"),
        ],
        &jp,
    );
    let comgr = comgr_id(&j);
    // comgr read every generated object (V2 ones too) in its workers.
    let c = cell(&j, "comgr-metadata", &comgr);
    assert_eq!(u(&c["compared"]), 16, "{c}");
    assert_eq!(
        (u(&c["different"]), u(&c["crashed"]), u(&c["timed_out"])),
        (0, 0, 0),
        "{text}"
    );
    assert!(u(&c["same"]) > 0, "{c}");
    // gfx1100 is past comgr 2.4's table: a known difference.
    assert!(u(&c["known"]) > 0, "{c}");
    let known = j["known"].as_array().expect("known");
    let hits = known
        .iter()
        .find(|k| k["id"] == "comgr.isa_name.unsupported")
        .expect("entry");
    assert!(u(&hits["count"]) > 0, "{hits}");
    // Every known comgr-metadata difference is counted under a comgr entry
    // of the allowlist (the ISA name one, and e.g. V2 YAML scalars).
    let comgr_known: u64 = known
        .iter()
        .filter(|k| k["id"].as_str().is_some_and(|id| id.starts_with("comgr.")))
        .map(|k| u(&k["count"]))
        .sum();
    assert_eq!(comgr_known, u(&c["known"]), "{known:?}");
    // Mutants: every peer that reads objects takes part; some read an
    // invalid object without complaint (informational), which does not
    // change the exit status.
    for peer in [comgr.as_str(), "llvm-readobj-19", "llvm-objdump-19"] {
        let m = cell(&j, "mutants", peer);
        assert_eq!(u(&m["compared"]), 16, "{m}");
        assert_eq!(u(&m["different"]), 0, "{m}");
    }
    let info: Vec<&Value> = j["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["informational"] == true)
        .collect();
    assert!(!info.is_empty(), "{text}");
    assert_eq!(j["summary"]["new_findings"], 0, "{text}");
    assert_eq!(j["summary"]["informational_findings"], info.len(), "{text}");
    assert_eq!(code, Some(0), "{text}");
    for f in &info {
        assert_eq!(f["signature"]["kind"], "informational", "{f}");
        assert_eq!(f["comparison"], "mutants", "{f}");
        assert_eq!(f["peers"].as_array().map(Vec::len), Some(1), "{f}");
        // One per peer, version and rule.
        let key = f["signature"]["key"].as_str().expect("key");
        let peer = f["peers"][0].as_str().expect("peer");
        assert!(
            key.starts_with(&format!("mutants: {peer} accepts objects breaking ")),
            "{key}"
        );
    }
    let keys: std::collections::BTreeSet<&str> = info
        .iter()
        .filter_map(|f| f["signature"]["key"].as_str())
        .collect();
    assert_eq!(keys.len(), info.len());
    assert!(text.contains("informational finding(s)"), "{text}");
    // The JUnit file parses with a real consumer: no failures, the
    // informational findings in the passing test cases' output.
    let x = junit_parser::from_reader(std::io::BufReader::new(
        std::fs::File::open(&xp).expect("junit"),
    ))
    .expect("JUnit parses");
    assert_eq!((x.failures, x.errors), (0, 0));
    let names: Vec<&str> = x.suites.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["comgr-metadata", "mutants"]);
    let outs: String = x.suites[1]
        .cases
        .iter()
        .filter_map(|c| c.system_out.clone())
        .collect();
    assert!(outs.contains("informational:   informational-"), "{outs}");
    assert!(
        outs.contains("without complaint, though it breaks"),
        "{outs}"
    );
    let html = std::fs::read_to_string(&hp).expect("html");
    assert!(html.contains("<h2>Informational ("), "{html}");
    // The output folder has them too, marked.
    let manifest = std::fs::read_to_string(out.join("manifest.jsonl")).expect("manifest");
    assert_eq!(manifest.lines().count(), info.len());
    assert!(manifest
        .lines()
        .all(|l| l.contains("\"informational\":true")));
}

#[test]
fn a_comgr_crash_is_a_finding_and_the_run_goes_on() {
    use hsaco_conform::conform::cases::case_of;
    use hsaco_conform::conform::comgr::ComgrPeer;
    use hsaco_conform::conform::engine::{self, Plan, Settings};
    use hsaco_conform::conform::object_cmp::ObjectCmp;
    use hsaco_conform::conform::ComparisonId;
    use hsaco_conform::conform::{allowlist::Allowlist, Input};
    use hsaco_oracle::msgpack::{self, Value as Mp};

    if require_comgr().is_none() {
        return;
    }
    // corpus/regressions/comgr_metadata/two-array-keys: a metadata map
    // with two keys that are both arrays crashes comgr 2.4 (LLVM 15's
    // msgpack::Document reader).
    let base = case_of("metadata.gfx900.1.0.hsaco").expect("a generated case");
    let md = hsaco_gen::emit::metadata_bytes(&base.object);
    let Mp::Map(mut root) = msgpack::decode(&md).expect("decodes").0 else {
        panic!("root is not a map")
    };
    // As the regression input does: the keys of the first two root
    // entries renamed to the arrays [0] and [1].
    for (k, entry) in root.iter_mut().take(2).enumerate() {
        entry.0 = Mp::Array(vec![Mp::UInt(k as u64)]);
    }
    let desc = msgpack::encode(&Mp::Map(root));
    assert!(
        matches!(
            hsaco_conform::peers::compare_meta::llvm_model(&desc),
            hsaco_conform::peers::compare_meta::Model::Crash(_)
        ),
        "not the known crash shape"
    );
    let crash = hsaco_gen::emit::elf::write(&base.object, &desc);
    let valid = |n: &str| {
        let c = case_of(n).expect("case");
        Input::File {
            name: n.to_owned(),
            bytes: c.elf,
        }
    };
    let inputs = vec![
        valid("metadata.gfx900.1.1.hsaco"),
        Input::File {
            name: "two-array-keys.hsaco".to_owned(),
            bytes: crash,
        },
        valid("metadata.gfx900.1.2.hsaco"),
        valid("metadata.gfx900.1.3.hsaco"),
    ];
    let peer = ComgrPeer::discover().expect("comgr peer");
    let id = hsaco_conform::conform::Peer::id(&peer).to_owned();
    let plan = Plan {
        comparisons: vec![Box::new(ObjectCmp::given(
            ComparisonId::ComgrMetadata,
            inputs,
        ))],
        targets: vec![hsaco_oracle::targets::by_name("gfx900").expect("gfx900")],
        peers: vec![Box::new(peer)],
        allowlist: Allowlist::builtin(),
    };
    let d = tempfile::tempdir().expect("tmp");
    let settings = Settings {
        jobs: 1,
        shard: (0, 1),
        timeout: std::time::Duration::from_secs(60),
        out: Some(d.path().join("found")),
        reduce: true,
        reduce_budget: 50,
        progress: false,
        resume_key: "comgr-crash-test".to_owned(),
        program: BIN.into(),
        label: "test".to_owned(),
    };
    let r = engine::run(&plan, &settings).expect("runs");
    let c = &r.cells[&(ComparisonId::ComgrMetadata.as_str().to_owned(), id.clone())];
    // The crash took one input; the worker was replaced and the other
    // three were compared.
    assert_eq!((c.compared, c.crashed), (4, 1), "{c:?}");
    assert_eq!(c.same + c.known, 3, "{c:?}");
    assert_eq!(r.new_findings(), 1, "{:#?}", r.findings);
    let f = &r.findings[0];
    assert_eq!(f.signature.kind, "crash");
    assert_eq!(f.signature.component, "comgr");
    assert_eq!(f.comparison, ComparisonId::ComgrMetadata.as_str());
    assert!(!f.informational);
    let crash = f.crash.as_ref().expect("crash details");
    assert!(crash.signal.is_some(), "{crash:?}");
    assert!(f.peers.contains(&id));
    // The folder holds the object and a script that builds a small C
    // reader of comgr's API: comgr alone crashes on the object (checked
    // when the finding was made, and again here).
    let dir = d.path().join("found").join(f.dir.as_deref().expect("dir"));
    assert!(dir.join("two-array-keys.hsaco").is_file());
    let text = std::fs::read_to_string(dir.join("input.txt")).expect("reproducer");
    assert!(text.contains("amd_comgr_get_data_metadata"), "{text}");
    assert_eq!(f.commands.len(), 1, "{:?}", f.commands);
    assert_eq!(f.commands[0].argv, ["sh", "input.txt"]);

    if support::which("cc").is_some() {
        assert_eq!(f.commands[0].reproduces, Some(true), "{:?}", f.commands);
        let o = Command::new("sh")
            .arg("input.txt")
            .current_dir(&dir)
            .output()
            .expect("sh");
        use std::os::unix::process::ExitStatusExt;
        assert!(o.status.signal().is_some(), "{o:?}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("create_data 0, set_data 0"), "{out}");
    }
}

#[test]
fn object_findings_are_reduced_on_the_generator_model() {
    if tools().is_none() {
        return;
    }
    // llvm-objdump-14's wave64 VGPR granule on gfx1010 (a real, known
    // difference; without the allowlist a finding): seed 1's first object
    // has two kernels; the reducer keeps one and resets the rest while
    // llvm-objdump-14 still prints the doubled count.
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
    let original = f["original"][0]["name"].as_str().expect("name");
    let reduced = f["reduced"][0]["name"].as_str().expect("name");
    assert_eq!(original, "descriptors.gfx1010.1.0.hsaco", "{f}");
    assert_eq!(reduced, "descriptors.gfx1010.1.0.d0_c0_a0_o0.hsaco", "{f}");
    assert!(u(&f["reduction_tests"]) >= 4, "{f}");
    let kernels = |name: &str| {
        let c = hsaco_conform::conform::cases::case_of(name).expect("made again");
        hsaco_oracle::check::check_object(&c.elf).kernels.len()
    };
    assert_eq!(kernels(original), 2);
    assert_eq!(kernels(reduced), 1);
    // The reduced object is what the folder holds, made again from its
    // name, and it still shows the difference with the peer alone.
    let dir = out.join(f["dir"].as_str().expect("dir"));
    let bytes = std::fs::read(dir.join(reduced)).expect("reduced object");
    let again = hsaco_conform::conform::cases::case_of(reduced).expect("case");
    assert_eq!(bytes, again.elf);
    assert!(
        bytes.len()
            < hsaco_conform::conform::cases::case_of(original)
                .expect("case")
                .elf
                .len()
    );
    let o = Command::new("sh")
        .arg("input.txt")
        .current_dir(&dir)
        .output()
        .expect("sh");
    let stdout = String::from_utf8_lossy(&o.stdout);
    // llvm-objdump-14 prints the wave64 kernel's VGPR count with the
    // wave32 granule: (granule + 1) × 8, twice the oracle's count.
    let kd = hsaco_oracle::check::check_object(&bytes).kernels[0]
        .descriptor
        .expect("a descriptor");
    let doubled = (kd.granulated_workitem_vgpr_count() + 1) * 8;
    assert!(
        stdout.contains(&format!(".amdhsa_next_free_vgpr {doubled}\n")),
        "{stdout}"
    );
    assert!(stdout.contains(".amdhsa_wavefront_size32 0"), "{stdout}");
}

#[test]
fn reassembled_descriptors_give_the_original_bytes_up_to_known_llvm_limits() {
    if tools().is_none() {
        return;
    }
    let d = tempfile::tempdir().expect("tmp");
    let jp = d.path().join("o.json");
    let peers = ["llvm-objdump-19+llvm-mc-19", "llvm-objdump-14+llvm-mc-14"];
    let (code, text, j) = conform(
        &[
            "--kinds",
            "descriptors",
            "--targets",
            "gfx803,gfx900,gfx90a,gfx1030,gfx1100",
            "--objects",
            "12",
            "--peers",
            &peers.join(","),
        ],
        &jp,
    );
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(j["findings"].as_array().map(Vec::len), Some(0), "{text}");
    let mut known = 0;
    for peer in peers {
        let c = cell(&j, "descriptors", peer);
        // 5 processors × 12 objects, each disassembled and reassembled.
        assert_eq!(u(&c["compared"]), 60, "{c}");
        assert_eq!(
            (u(&c["different"]), u(&c["crashed"]), u(&c["timed_out"])),
            (0, 0, 0),
            "{c}"
        );
        assert_eq!(
            u(&c["same"]) + u(&c["known"]) + u(&c["not_comparable"]),
            60,
            "{c}"
        );
        known += u(&c["known"]);
    }
    // Objects whose every printed descriptor reassembled to its own bytes.
    let c = cell(&j, "descriptors", "llvm-objdump-19+llvm-mc-19");
    assert!(u(&c["same"]) >= 10, "{c}");
    // llvm-mc-19 aborts on code object V3, so those are not comparable.
    assert!(
        c["not_comparable_reasons"]["LLVM 19 cannot assemble code object V3"].is_u64(),
        "{c}"
    );
    let c = cell(&j, "descriptors", "llvm-objdump-14+llvm-mc-14");
    assert!(u(&c["same"]) >= 1, "{c}");
    assert_eq!(
        u(&c["not_comparable_reasons"]["LLVM 14 does not know gfx1100"]),
        12,
        "{c}"
    );
    // Every known difference is explained by reviewed reassembly entries
    // only (a difference with several tags counts for each entry).
    let (mut ours, mut others) = (0, 0);
    for k in j["known"].as_array().expect("known") {
        if k["id"]
            .as_str()
            .is_some_and(|i| i.starts_with("reassembly."))
        {
            ours += u(&k["count"]);
        } else {
            others += u(&k["count"]);
        }
    }
    assert_eq!(others, 0, "{}", j["known"]);
    assert!(known > 0 && ours >= known, "{known} {}", j["known"]);
}

#[test]
fn a_reassembly_difference_is_a_finding_shown_by_llvm_alone() {
    if tools().is_none() {
        return;
    }
    // Without the allowlist, the first gfx1100 objects of seed 1 lose
    // USER_SGPR_COUNT or the comment-only INST_PREF_SIZE on the way
    // through llvm-objdump-19 and llvm-mc-19.
    let d = tempfile::tempdir().expect("tmp");
    let (jp, out) = (d.path().join("o.json"), d.path().join("found"));
    let (code, text, j) = conform(
        &[
            "--kinds",
            "descriptors",
            "--targets",
            "gfx1100",
            "--peers",
            "llvm-objdump-19+llvm-mc-19",
            "--no-allowlist",
            "--no-reduce",
            "--out",
            out.to_str().expect("UTF-8"),
        ],
        &jp,
    );
    assert_eq!(code, Some(1), "{text}");
    let f = &j["findings"][0];
    assert_eq!(f["comparison"], "descriptors", "{f}");
    let key = f["signature"]["key"].as_str().expect("key");
    assert!(key.starts_with("descriptors: reassembly changes "), "{f}");
    let message = f["message"].as_str().expect("message");
    assert!(
        message.contains("original") && message.contains("reassembled"),
        "{f}"
    );
    // The script runs llvm-objdump, llvm-mc and llvm-objdump -s alone.
    let dir = out.join(f["dir"].as_str().expect("finding folder"));
    let o = Command::new("sh")
        .arg("input.txt")
        .current_dir(&dir)
        .output()
        .expect("sh");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        stdout.contains("== original") && stdout.contains("== reassembled"),
        "{stdout}"
    );
    assert_eq!(
        stdout.matches("Contents of section .rodata:").count(),
        2,
        "{stdout}"
    );
    let source = std::fs::read_dir(&dir)
        .expect("folder")
        .filter_map(|e| e.ok())
        .find(|e| e.file_name().to_string_lossy().ends_with(".hsaco.s"))
        .expect("the reassembled source");
    let s = std::fs::read_to_string(source.path()).expect("source");
    assert!(
        s.starts_with(".amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\"\n"),
        "{s}"
    );
    assert!(
        s.contains("\n.amdhsa_kernel ") && s.contains(".end_amdhsa_kernel"),
        "{s}"
    );
}
