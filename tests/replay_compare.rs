//! `replay --plan` and `replay --compare` without a GPU: a bundle planned
//! by the command, dumps written as a GPU would write them if every
//! prediction held (from the bundle's own predictions, and for SMEM probes
//! from the oracle's executor), and the command's verdicts and reports:
//! no finding when the dumps are as predicted; exactly the one finding a
//! single perturbation makes (a wrong work-group id in one wave, one SMEM
//! data dword, a loader refusal); one-line errors for bad input.

use std::path::Path;
use std::process::Command;

use hsaco_conform::replay::dumps::{output_name, runs_text, Record};
use hsaco_conform::replay::plan::read_predictions;
use hsaco_conform::replay::run::{Firmware, Outcome, Signature};
use hsaco_oracle::probe::{Addresses, Kind, Plan};
use hsaco_oracle::wave::{Expect, Reg};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hsaco-conform"))
}

fn plans(dir: &Path) -> Vec<Plan> {
    std::fs::read_to_string(dir.join("plans.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Addresses a runtime could pick for case `i`.
fn addresses(i: u64) -> Addresses {
    Addresses {
        packet: 0x7f10_0000_0000 + i * 64,
        queue: 0x7f0f_ffff_f000,
        kernarg: 0x7f20_0000_0000 + i * 4096,
        output: 0x7f30_0000_0000 + i * (1 << 20),
        packet_index: i,
    }
}

fn signature(target: &str) -> Signature {
    Signature {
        agent: target.into(),
        product: "test rig".into(),
        isa: format!("amdgcn-amd-amdhsa--{target}"),
        runtime: "6.4.0".into(),
        hsa: "1.1".into(),
        firmware: Firmware {
            cp: Some(1),
            sdma: Some(2),
        },
    }
}

/// Writes the dumps a GPU that does what the oracle predicts would write;
/// `perturb(case, bytes)` may change a case's buffer.
fn write_dumps(dir: &Path, dumps: &Path, perturb: impl Fn(&Plan, &Addresses, &mut Vec<u8>)) {
    std::fs::create_dir_all(dumps).unwrap();
    let mut records = Vec::new();
    for (i, plan) in plans(dir).iter().enumerate() {
        let a = addresses(i as u64);
        let mut bytes = match plan.kind {
            Kind::Sgpr => {
                let pred = read_predictions(dir, &plan.case).unwrap();
                pred.to_dump(&a, |_, _| None).to_bytes(plan.records())
            }
            Kind::Smem => {
                let p = hsaco_gen::probe::smem::smem_probe_by_name(&plan.case).unwrap();
                p.predict(a.output).dump.to_bytes(&p.plan.layout)
            }
        };
        perturb(plan, &a, &mut bytes);
        let name = output_name(&plan.case);
        std::fs::write(dumps.join(&name), &bytes).unwrap();
        records.push(Record {
            case: plan.case.clone(),
            status: Outcome::Ok,
            text: None,
            addresses: Some(a),
            signature: Some(signature(&plan.target)),
            output: Some(name),
        });
    }
    std::fs::write(dumps.join("runs.jsonl"), runs_text(&records)).unwrap();
}

fn compare(dir: &Path, dumps: &Path, json: &Path) -> (i32, serde_json::Value, String) {
    let (code, report, stderr, _) = compare_text(dir, dumps, json);
    (code, report, stderr)
}

/// As [`compare`], with the text report too.
fn compare_text(dir: &Path, dumps: &Path, json: &Path) -> (i32, serde_json::Value, String, String) {
    let out = bin()
        .args(["replay", "--compare"])
        .arg(dir)
        .arg(dumps)
        .arg("--json")
        .arg(json)
        .output()
        .unwrap();
    let code = out.status.code().unwrap_or(-1);
    let report = std::fs::read_to_string(json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (code, report, stderr, stdout)
}

#[test]
fn planned_bundles_compare_clean_and_single_perturbations_are_single_findings() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("bundle");
    let st = bin()
        .args(["replay", "--plan"])
        .arg(&dir)
        .args([
            "--targets",
            "gfx803,gfx90a,gfx1100,gfx1200",
            "--sample",
            "3",
            "--smem",
            "2",
            "--quiet",
        ])
        .status()
        .unwrap();
    assert!(st.success());
    let all = plans(&dir);
    let smem = all.iter().filter(|p| p.kind == Kind::Smem).count();
    assert_eq!(all.len() - smem, 4 * 3, "3 SGPR probes per processor");
    assert!(
        smem >= 4,
        "SMEM probes on every processor with SMEM: {smem}"
    );

    // As predicted: no finding, every case the same.
    let dumps = tmp.path().join("dumps");
    write_dumps(&dir, &dumps, |_, _, _| {});
    let (code, r, err) = compare(&dir, &dumps, &tmp.path().join("clean.json"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(r["summary"]["compared"], all.len());
    assert_eq!(r["summary"]["same"], all.len());
    assert_eq!(r["findings"].as_array().unwrap().len(), 0);

    // One wave of one SGPR probe with a wrong work-group id X.
    let victim = all
        .iter()
        .find(|p| {
            p.kind == Kind::Sgpr && {
                let pred = read_predictions(&dir, &p.case).unwrap();
                pred.waves[0]
                    .expect
                    .iter()
                    .any(|e| e.name == "workgroup_id_x" && matches!(e.field.reg, Reg::Sgpr(_)))
            }
        })
        .expect("a probe with work-group id X")
        .clone();
    let dumps = tmp.path().join("dumps-wgid");
    let v = victim.case.clone();
    let d = dir.clone();
    write_dumps(&dir, &dumps, move |plan, a, bytes| {
        if plan.case != v {
            return;
        }
        let pred = read_predictions(&d, &plan.case).unwrap();
        let last = pred.waves.len() - 1;
        let id = pred.waves[last].id();
        let dump = pred.to_dump(a, |w, e| {
            (w.id() == id && e.name == "workgroup_id_x").then(|| match &e.expect {
                Expect::Exact(v) => v.resolve(a) + 7,
                Expect::Check(_) => 0,
            })
        });
        *bytes = dump.to_bytes(plan.records());
    });
    let (code, r, err, text) = compare_text(&dir, &dumps, &tmp.path().join("wgid.json"));
    assert_eq!(code, 1, "{err}");
    // The finding as people read it (the table and the timing line vary
    // with the run; the finding does not).
    let finding: String = text
        .lines()
        .skip_while(|l| !l.contains("new finding(s):"))
        .take_while(|l| !l.starts_with("summary:"))
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("replay_compare_wrong_workgroup_id", finding);
    let f = r["findings"].as_array().unwrap();
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0]["comparison"], "replay.sgpr");
    assert_eq!(f[0]["signature"]["key"], "value workgroup_id_x");
    assert_eq!(f[0]["origin"], victim.case.as_str());
    assert_eq!(r["summary"]["different"], 1);

    // One data dword of one SMEM probe.
    let s = all
        .iter()
        .find(|p| p.kind == Kind::Smem)
        .unwrap()
        .case
        .clone();
    let dumps = tmp.path().join("dumps-smem");
    write_dumps(&dir, &dumps, move |plan, _, bytes| {
        if plan.case == s {
            let at = plan.output_init_offset as usize;
            bytes[at] ^= 0x5a;
        }
    });
    let (code, r, err) = compare(&dir, &dumps, &tmp.path().join("smem.json"));
    assert_eq!(code, 1, "{err}");
    let f = r["findings"].as_array().unwrap();
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0]["comparison"], "replay.smem");
    assert_eq!(f[0]["signature"]["key"], "data region");

    // A loader refusal is a finding of its own.
    let dumps = tmp.path().join("dumps-load");
    write_dumps(&dir, &dumps, |_, _, _| {});
    let runs = std::fs::read_to_string(dumps.join("runs.jsonl")).unwrap();
    let mut recs: Vec<Record> = runs
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    recs[0].status = Outcome::LoaderRejected;
    recs[0].text = Some("HSA_STATUS_ERROR_INVALID_CODE_OBJECT (0x1010)".into());
    recs[0].output = None;
    std::fs::write(dumps.join("runs.jsonl"), runs_text(&recs)).unwrap();
    let (code, r, err) = compare(&dir, &dumps, &tmp.path().join("load.json"));
    assert_eq!(code, 1, "{err}");
    let f = r["findings"].as_array().unwrap();
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0]["comparison"], "replay.load");
}

#[test]
fn bad_inputs_are_one_line_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = bin().args(args).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let dir = tmp.path().join("b");
    let d = dir.to_str().unwrap();
    let (code, err) = run(&["replay", "--plan", d]);
    assert_eq!(code, 2);
    assert!(err.contains("--plan needs --targets"), "{err}");
    let (code, err) = run(&["replay", "--plan", d, "--targets", "gfx9999"]);
    assert_eq!(
        (code, err.trim()),
        (
            2,
            "hsaco-conform replay: --targets: gfx9999 is not a processor the oracle models"
        )
    );
    let (code, _) = run(&[
        "replay",
        "--plan",
        d,
        "--targets",
        "gfx900",
        "--sample",
        "1",
        "--smem",
        "0",
    ]);
    assert_eq!(code, 0);
    let (code, err) = run(&["replay", "--plan", d, "--targets", "gfx900"]);
    assert_eq!(code, 2);
    assert!(err.contains("is not empty"), "{err}");
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let (code, err) = run(&["replay", "--compare", d, empty.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("has no runs.jsonl"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let (code, err) = run(&[
        "replay",
        "--compare",
        "/nonexistent/b",
        empty.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
}
