//! `replay --bundle` end to end against a simulated GPU: a stand-in for
//! `libhsa-runtime64.so.1` (`tests/fake_hsa/fake_hsa.c`, compiled here
//! against ROCm's headers and passed with `--hsa-runtime`) whose packet
//! processor runs the packet the harness wrote into its ring when the
//! doorbell rings. Proves, without an AMD GPU, the whole path but the
//! hardware: the bindings' calls, the ring slot and doorbell, the
//! header written last, the patched output address, the kernel
//! arguments, the completion wait, a queue error, a time-out, a worker
//! killed by abort (the run goes on), loader refusals, the agent match,
//! the dumps and resume.
//!
//! The fake "kernel" writes one wave's record whose SGPRs are what the
//! packet processor saw (packet, queue and kernarg addresses, the first
//! kernarg dword, header|setup, sizes, dispatch id), so the dump must
//! agree with the addresses `runs.jsonl` records.

mod support;

use hsaco_conform::replay::bundle::write_bundle;
use hsaco_conform::replay::dumps::{read_dump, read_runs};
use hsaco_conform::replay::run::Outcome;
use hsaco_oracle::probe::{Plan, Shape, ENTRY_FIRST};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Builds the fake runtime as `libhsa-runtime64.so.1.5.0` in `dir` (the
/// file name gives the library version the harness keys its loader
/// table by); `None` when there is no C compiler or no HSA headers.
fn fake_runtime(dir: &Path) -> Option<PathBuf> {
    fake_runtime_with(dir, &[])
}

/// [`fake_runtime`] built with extra C compiler arguments (`-DFAKE_...`).
fn fake_runtime_with(dir: &Path, defines: &[&str]) -> Option<PathBuf> {
    let cc = support::require_tool("cc")?;
    if !Path::new("/usr/include/hsa/hsa_ext_amd.h").exists() {
        assert!(
            !support::in_ci(),
            "HSA headers missing (libhsa-runtime-dev)"
        );
        eprintln!("SKIPPED: HSA headers missing (libhsa-runtime-dev)");
        return None;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_hsa/fake_hsa.c");
    let lib = dir.join("libhsa-runtime64.so.1.5.0");
    let o = Command::new(cc)
        .args(["-std=c11", "-O1", "-shared", "-fPIC"])
        .args(defines)
        .arg("-o")
        .arg(&lib)
        .arg(&src)
        .output()
        .expect("run cc");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Some(lib)
}

fn plan(case: &str, target: &str) -> Plan {
    Plan {
        case: case.into(),
        object: format!("{case}.co"),
        target: target.into(),
        kernel: "probe".into(),
        lanes: 64,
        shape: Shape {
            grid: [64, 1, 1],
            workgroup: [64, 1, 1],
        },
        captured_sgprs: 11,
        private_segment_size: 0,
        group_segment_size: 0,
        kernarg_hex: "efbeadde01000000".into(),
        output_bytes: 64 + 5 * 64 * 4,
        patch_offsets: [8, 12],
    }
}

/// A fake object: the kernel's four-byte name, padding, the two patch
/// dwords at 8 and 12 (holding junk the harness must overwrite).
fn object(kernel: &[u8; 4]) -> Vec<u8> {
    let mut b = kernel.to_vec();
    b.extend([0u8; 4]);
    b.extend([0xEE; 8]);
    b.extend([0u8; 16]);
    b
}

#[test]
fn replay_runs_a_bundle_on_a_simulated_gpu() {
    let d = tempfile::tempdir().expect("tmp");
    let Some(lib) = fake_runtime(d.path()) else {
        return;
    };
    let mut v5 = object(b"OKAY");
    v5[..4].copy_from_slice(b"\x7fELF");
    v5[7] = 64; // ELFOSABI_AMDGPU_HSA
    v5[8] = 3; // code object V5, which a 1.5 loader predates
    let cases = vec![
        (plan("ok", "gfx90a"), object(b"OKAY")),
        (plan("rejected", "gfx90a"), object(b"BAD!")),
        (
            // Its patch dwords elsewhere: EI_ABIVERSION is byte 8.
            Plan {
                patch_offsets: [16, 20],
                ..plan("newer", "gfx90a:xnack-")
            },
            v5,
        ),
        (plan("elsewhere", "gfx1100"), object(b"OKAY")),
        (plan("fault", "gfx90a"), object(b"FALT")),
        (plan("hang", "gfx90a"), object(b"HANG")),
        (plan("abort", "gfx90a"), object(b"ABRT")),
        (plan("after", "gfx90a"), object(b"OKAY")),
    ];
    let bundle = d.path().join("bundle");
    write_bundle(&bundle, &cases).expect("bundle");
    let dumps = d.path().join("dumps");
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_hsaco-conform"))
            .args(["replay", "--timeout", "1", "--bundle"])
            .arg(&bundle)
            .arg("--out")
            .arg(&dumps)
            .arg("--hsa-runtime")
            .arg(&lib)
            .output()
            .expect("run replay")
    };
    let o = run();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("on gfx90a (Fake GPU), runtime 1.5.0-fake"),
        "{err}"
    );
    assert!(err.contains("[8/8] after: ok"), "{err}");

    let runs = read_runs(&dumps).expect("runs");
    let by = |c: &str| {
        runs.iter()
            .find(|r| r.case == c)
            .unwrap_or_else(|| panic!("{c} not in runs.jsonl: {runs:?}"))
    };
    assert_eq!(runs.len(), 8);
    let status = |c: &str| by(c).status;
    let text = |c: &str| by(c).text.clone().unwrap_or_default();
    assert_eq!(status("ok"), Outcome::Ok, "{}", text("ok"));
    assert_eq!(status("after"), Outcome::Ok, "{}", text("after"));
    assert_eq!(status("rejected"), Outcome::LoaderRejected);
    assert!(
        text("rejected").contains("HSA_STATUS_ERROR_INVALID_CODE_OBJECT (0x1010)"),
        "{}",
        text("rejected")
    );
    assert_eq!(status("newer"), Outcome::NotComparable, "{}", text("newer"));
    assert!(text("newer").contains("code object V5 is newer than libhsa-runtime64 1.5"));
    assert_eq!(status("elsewhere"), Outcome::NotComparable);
    assert!(text("elsewhere").contains("no agent for gfx1100"));
    assert_eq!(status("fault"), Outcome::Error);
    assert!(
        text("fault").contains("HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION (0x2a)"),
        "{}",
        text("fault")
    );
    assert_eq!(status("hang"), Outcome::Timeout);
    assert_eq!(status("abort"), Outcome::Crashed);
    assert!(text("abort").contains("SIGABRT"), "{}", text("abort"));

    // What the packet processor saw is what runs.jsonl says the harness
    // used.
    let plans: Vec<&Plan> = cases.iter().map(|(p, _)| p).collect();
    for case in ["ok", "after"] {
        let r = by(case);
        let a = r.addresses.expect("addresses");
        let dump = read_dump(&dumps, plans[0], r).expect("dump");
        assert_eq!(dump.waves.len(), 1);
        let w = &dump.waves[0];
        assert_eq!(w.exec, u64::MAX);
        assert_eq!(w.entry, ENTRY_FIRST);
        let s = &w.sgprs;
        let pair = |i: usize| u64::from(s[i]) | u64::from(s[i + 1]) << 32;
        assert_eq!(pair(0), a.packet, "{case}: Dispatch Ptr");
        assert_eq!(pair(2), a.queue, "{case}: Queue Ptr");
        assert_eq!(pair(4), a.kernarg, "{case}: Kernarg Segment Ptr");
        assert_eq!(s[6], 0xdead_beef, "{case}: first kernarg dword");
        assert_eq!(s[7], 0x1502 | 1 << 16, "{case}: header and setup");
        assert_eq!((s[8], s[9]), (64, 64), "{case}: grid and work-group X");
        assert_eq!(u64::from(s[10]), a.packet_index, "{case}: dispatch id");
        assert_eq!(a.packet % 64, 0);
        let sig = r.signature.as_ref().expect("signature");
        assert_eq!(sig.agent, "gfx90a");
        assert_eq!(sig.product, "Fake GPU");
        assert_eq!(sig.isa, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
        assert_eq!(sig.runtime, "1.5.0-fake");
        assert_eq!(sig.hsa, "1.1");
        assert_eq!((sig.firmware.cp, sig.firmware.sdma), (Some(42), None));
        let out = std::fs::read(dumps.join(r.output.as_deref().expect("output"))).expect("out");
        assert_eq!(out.len() as u64, plans[0].output_bytes);
        // The patched dwords pointed at the buffer (it holds the record).
        assert_eq!(u32::from_le_bytes([out[0], out[1], out[2], out[3]]), 1);
    }
    for case in ["rejected", "hang", "abort"] {
        assert!(by(case).output.is_none(), "{case}");
    }

    // A second run has nothing left to do.
    let o = run();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("nothing to run (8 cases in the bundle, 8 already in"),
        "{err}"
    );
}

#[test]
fn a_runtime_without_a_gpu_stops_replay_in_one_line() {
    let d = tempfile::tempdir().expect("tmp");
    let bundle = d.path().join("bundle");
    write_bundle(&bundle, &[(plan("ok", "gfx90a"), object(b"OKAY"))]).expect("bundle");
    for (defines, want) in [
        (
            &["-DFAKE_INIT_STATUS=0x1008"][..],
            "no GPU agent: hsa_init returned HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008); is /dev/kfd present?",
        ),
        (
            &["-DFAKE_INIT_STATUS=0x100B"][..],
            "no GPU agent: hsa_init returned HSA_STATUS_ERROR_NOT_INITIALIZED (0x100b); is /dev/kfd present?",
        ),
        (
            &["-DFAKE_NO_GPU"][..],
            "no GPU agent: hsa_init succeeded but the runtime lists no GPU among its 1 agent (Fake CPU (cpu)); is /dev/kfd present?",
        ),
    ] {
        let dir = d.path().join(defines[0].trim_start_matches("-D"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let Some(lib) = fake_runtime_with(&dir, defines) else {
            return;
        };
        let o = Command::new(env!("CARGO_BIN_EXE_hsaco-conform"))
            .args(["replay", "--bundle"])
            .arg(&bundle)
            .arg("--hsa-runtime")
            .arg(&lib)
            .output()
            .expect("run replay");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err, format!("{want}\n"));
    }
}
