//! `hsaco-conform replay` from the outside: what it says without a GPU,
//! with a library that cannot be loaded, and on bad bundles and dumps
//! folders. (Dispatching needs an AMD GPU; the packet, patch and agent
//! matching are unit-tested in `src/replay/run.rs`.)

mod support;

use hsaco_conform::replay::bundle::{write_bundle, HEADER, PLANS};
use hsaco_conform::replay::dumps::{runs_text, Record, RUNS};
use hsaco_conform::replay::hsa::Status;
use hsaco_conform::replay::run::{Outcome, Unavailable};
use hsaco_oracle::probe::{Plan, Shape};
use std::path::Path;
use std::process::{Command, Output};

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_hsaco-conform")
}

fn replay(args: &[&str]) -> Output {
    Command::new(exe())
        .arg("replay")
        .args(args)
        .output()
        .expect("run hsaco-conform")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn plan(case: &str) -> Plan {
    Plan {
        case: case.into(),
        object: format!("{case}.hsaco"),
        target: "gfx90a".into(),
        kernel: "probe".into(),
        lanes: 64,
        shape: Shape {
            grid: [64, 1, 1],
            workgroup: [64, 1, 1],
        },
        captured_sgprs: 16,
        private_segment_size: 0,
        group_segment_size: 0,
        kernarg_hex: String::new(),
        output_bytes: 64 + 5 * 64 * 4,
        patch_offsets: [0, 4],
        kind: Default::default(),
        output_init_hex: String::new(),
        output_init_offset: 0,
    }
}

fn bundle(dir: &Path) {
    write_bundle(
        dir,
        &[
            (plan("a"), b"\x7fELF....".to_vec()),
            (plan("b"), vec![0; 8]),
        ],
    )
    .expect("write bundle");
}

/// One line on stderr, exit status 2.
fn one_line_exit_2(o: &Output) -> String {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    e.trim_end().to_owned()
}

#[test]
fn without_a_gpu_replay_says_so_in_one_line() {
    if Path::new("/dev/kfd").exists() {
        eprintln!("SKIPPED: this machine has /dev/kfd (a GPU driver)");
        return;
    }
    if hsaco_conform::peers::discover::find_hsa().is_none() {
        assert!(
            !support::in_ci(),
            "libhsa-runtime64.so.1 missing (package libhsa-runtime64-1)"
        );
        eprintln!("SKIPPED: libhsa-runtime64.so.1 missing (package libhsa-runtime64-1)");
        return;
    }
    let d = tempfile::tempdir().expect("tmp");
    bundle(d.path());
    let o = replay(&["--bundle", &d.path().display().to_string()]);
    let line = one_line_exit_2(&o);
    // The text, and the same line as the status table makes it.
    assert_eq!(
        line,
        "no GPU agent: hsa_init returned HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008); is /dev/kfd present?"
    );
    assert_eq!(line, Unavailable::InitFailed(Status(0x1008)).to_string());
    // Nothing was recorded: the cases did not run.
    let runs = std::fs::read_to_string(d.path().join("dumps").join(RUNS)).expect("runs");
    assert_eq!(runs, "");
    // `replay` alone (plan for this machine's GPUs, run, compare) stops at
    // the same line before it plans anything.
    let out = d.path().join("direct");
    let o = replay(&["--out", &out.display().to_string()]);
    assert_eq!(one_line_exit_2(&o), line);
    assert!(!out.exists(), "nothing is planned without a GPU");
}

#[test]
fn a_library_that_cannot_load_is_no_hsa_runtime() {
    let d = tempfile::tempdir().expect("tmp");
    bundle(d.path());
    let bogus = d.path().join("libhsa-runtime64.so.1");
    std::fs::write(&bogus, b"not a library").expect("write");
    let o = replay(&[
        "--bundle",
        &d.path().display().to_string(),
        "--hsa-runtime",
        &bogus.display().to_string(),
    ]);
    let line = one_line_exit_2(&o);
    assert!(
        line.starts_with(&format!(
            "no HSA runtime: cannot load {}: ",
            bogus.display()
        )),
        "{line}"
    );
    let o = replay(&[
        "--bundle",
        &d.path().display().to_string(),
        "--hsa-runtime",
        "/nonexistent/libhsa-runtime64.so.1",
    ]);
    let line = one_line_exit_2(&o);
    assert!(
        line.starts_with("no HSA runtime: cannot load /nonexistent/"),
        "{line}"
    );
    assert!(line.contains("No such file"), "{line}");
}

#[test]
fn bad_bundles_and_dumps_are_one_line_errors() {
    let d = tempfile::tempdir().expect("tmp");
    let dir = d.path().join("b");
    let arg = dir.display().to_string();

    let line = one_line_exit_2(&replay(&["--bundle", &arg]));
    assert_eq!(
        line,
        format!("hsaco-conform replay: cannot read {arg}: no such folder")
    );

    bundle(&dir);
    let plans = dir.join(PLANS);
    let good = std::fs::read_to_string(&plans).expect("plans");
    std::fs::write(&plans, format!("{good}not json\n")).expect("edit");
    let line = one_line_exit_2(&replay(&["--bundle", &arg]));
    assert!(
        line.contains("plans.jsonl line 3: not a probe plan"),
        "{line}"
    );

    std::fs::write(&plans, &good).expect("edit");
    std::fs::remove_file(dir.join("b.hsaco")).expect("rm");
    let line = one_line_exit_2(&replay(&["--bundle", &arg]));
    assert!(line.contains("case b: code object "), "{line}");
    assert!(line.ends_with("b.hsaco is missing"), "{line}");
    std::fs::write(dir.join("b.hsaco"), [0u8; 8]).expect("restore");

    std::fs::write(dir.join(HEADER), "{}").expect("edit");
    let line = one_line_exit_2(&replay(&["--bundle", &arg]));
    assert!(line.contains("bundle.json: not a bundle header"), "{line}");
    bundle(&dir);

    // --out under a regular file cannot be created.
    let file = d.path().join("file");
    std::fs::write(&file, b"x").expect("write");
    let out = file.join("dumps").display().to_string();
    let line = one_line_exit_2(&replay(&["--bundle", &arg, "--out", &out]));
    assert!(
        line.starts_with(&format!("hsaco-conform replay: cannot write to {out}: ")),
        "{line}"
    );

    // A runs.jsonl that is not records names its line.
    let dumps = d.path().join("dumps");
    std::fs::create_dir(&dumps).expect("mkdir");
    std::fs::write(dumps.join(RUNS), "{\"case\":\"a\",\"status\":\"ok\"}\n[]\n").expect("write");
    let line = one_line_exit_2(&replay(&[
        "--bundle",
        &arg,
        "--out",
        &dumps.display().to_string(),
    ]));
    assert!(
        line.contains("runs.jsonl line 2: not a replay record"),
        "{line}"
    );
}

#[test]
fn recorded_cases_are_not_run_again() {
    let d = tempfile::tempdir().expect("tmp");
    bundle(d.path());
    let dumps = d.path().join("dumps");
    std::fs::create_dir(&dumps).expect("mkdir");
    let records: Vec<Record> = ["a", "b"]
        .iter()
        .map(|c| Record {
            case: (*c).into(),
            status: Outcome::NotComparable,
            text: Some("no agent for gfx90a".into()),
            addresses: None,
            signature: None,
            output: None,
        })
        .collect();
    std::fs::write(dumps.join(RUNS), runs_text(&records)).expect("write");
    // Every case is done: no runtime is needed, nothing changes.
    let o = replay(&["--bundle", &d.path().display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("nothing to run (2 cases in the bundle, 2 already in"));
    assert_eq!(
        std::fs::read_to_string(dumps.join(RUNS)).expect("runs"),
        runs_text(&records)
    );
    // A target no plan has selects nothing either.
    std::fs::write(dumps.join(RUNS), "").expect("reset");
    let o = replay(&[
        "--bundle",
        &d.path().display().to_string(),
        "--targets",
        "gfx1100",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn help_teaches_the_formats() {
    let o = Command::new(exe())
        .args(["replay", "--help"])
        .output()
        .expect("run");
    assert!(o.status.success());
    let h = String::from_utf8_lossy(&o.stdout);
    for needle in [
        "--bundle <DIR>",
        "--out <DUMPS>",
        "--targets <TARGET>",
        "--shard <I/N>",
        "--timeout <SECS>",
        "plans.jsonl",
        "runs.jsonl",
        "loader_rejected",
        "no GPU agent: hsa_init returned",
        "Exit status",
    ] {
        assert!(h.contains(needle), "{needle} not in:\n{h}");
    }
}
