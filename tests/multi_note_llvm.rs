//! Objects with several `NT_AMDGPU_METADATA` notes, made the way real
//! builds make them: kernels compiled separately by clang-19 and linked by
//! ld.lld-19 into one code object (ld.lld keeps each input's note).
//!
//! For code object V4, V5 and V6 (gfx90a, and gfx1100 for wave32): the
//! linked object is clean, every kernel is matched with the metadata of
//! its own note, and a descriptor edited in a kernel of the second note is
//! reported against that note's metadata. comgr (which HIP's runtime reads
//! metadata through) merges the notes into the tree the oracle's merged
//! model predicts.

mod support;

use hsaco_conform::peers::comgr::{self, Comgr};
use hsaco_conform::peers::compare_meta::{compare, Outcome};
use hsaco_oracle::check::check_object;
use hsaco_oracle::Severity;
use std::path::Path;
use std::process::Command;
use support::elfedit::Obj;

const ONE: &str =
    "__kernel void ka(__global int *p) { p[__builtin_amdgcn_workitem_id_x()] = 1; }\n";
const TWO: &str = "__kernel void kb(__global int *p, int x) { p[__builtin_amdgcn_workitem_id_x()] = x; }\n\
__kernel void kc(__global float *p) { __local float t[64]; t[__builtin_amdgcn_workitem_id_x() & 63] = 1.0f; \
__builtin_amdgcn_s_barrier(); p[0] = t[3]; }\n";

fn run(cmd: &mut Command) {
    let out = cmd.output().expect("run tool");
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Compiles the two sources separately for `cpu` and code object `cov`
/// and links them into one shared object; returns its bytes.
fn linked(dir: &Path, clang: &Path, lld: &Path, cpu: &str, cov: u8) -> Vec<u8> {
    let mut objs = Vec::new();
    for (name, src) in [("one", ONE), ("two", TWO)] {
        let cl = dir.join(format!("{name}.cl"));
        std::fs::write(&cl, src).expect("write source");
        let o = dir.join(format!("{name}-{cpu}-{cov}.o"));
        run(Command::new(clang)
            .args(["-target", "amdgcn-amd-amdhsa", "-nogpulib", "-O1", "-c"])
            .arg(format!("-mcpu={cpu}"))
            .arg(format!("-mcode-object-version={cov}"))
            .arg(&cl)
            .arg("-o")
            .arg(&o));
        objs.push(o);
    }
    let out = dir.join(format!("linked-{cpu}-{cov}.hsaco"));
    run(Command::new(lld)
        .arg("-shared")
        .args(&objs)
        .arg("-o")
        .arg(&out));
    std::fs::read(&out).expect("read linked object")
}

fn serious(bytes: &[u8]) -> Vec<String> {
    check_object(bytes)
        .violations
        .iter()
        .filter(|v| v.severity != Severity::Info)
        .map(|v| format!("{}: {}", v.rule.id, v.message))
        .collect()
}

#[test]
fn separately_compiled_kernels_linked_by_lld_are_merged_and_checked() {
    let (Some(clang), Some(lld)) = (
        support::require_tool("clang-19"),
        support::require_tool("ld.lld-19"),
    ) else {
        return;
    };
    let comgr = match Comgr::open() {
        Ok(c) => Some(c),
        Err(e) => {
            assert!(!support::in_ci(), "comgr: {e}");
            eprintln!("SKIPPED (comgr part): {e}");
            None
        }
    };
    let dir = tempfile::tempdir().expect("tmp");
    for cpu in ["gfx90a", "gfx1100"] {
        for cov in [4u8, 5, 6] {
            let what = format!("{cpu} V{cov}");
            let bytes = linked(dir.path(), &clang, &lld, cpu, cov);
            let r = check_object(&bytes);
            assert_eq!(serious(&bytes), Vec::<String>::new(), "{what}");
            assert_eq!(r.metadata_notes.len(), 2, "{what}: one note per input");
            assert_eq!(
                r.metadata_notes
                    .iter()
                    .map(|n| n.kernels)
                    .collect::<Vec<_>>(),
                vec![1, 2],
                "{what}"
            );
            let mut notes: Vec<(String, Option<u32>)> = r
                .kernels
                .iter()
                .map(|k| {
                    assert!(k.metadata.is_some(), "{what}: {} has no metadata", k.name);
                    (k.name.clone(), k.metadata_note)
                })
                .collect();
            notes.sort();
            assert_eq!(
                notes,
                vec![
                    ("ka".to_owned(), Some(0)),
                    ("kb".to_owned(), Some(1)),
                    ("kc".to_owned(), Some(1)),
                ],
                "{what}"
            );

            // kc, described by the second note, uses LDS: a descriptor
            // that disagrees with its metadata is found.
            let mut o = Obj::new(bytes.clone());
            let kd = o.kd("kc");
            let lds = o.u32(kd);
            assert!(lds > 0, "{what}: kc uses LDS");
            o.set_u32(kd, lds + 256);
            let found: Vec<(String, Option<String>)> = check_object(&o.bytes)
                .violations
                .iter()
                .filter(|v| v.severity == Severity::Error)
                .map(|v| (v.rule.id.to_owned(), v.kernel.clone()))
                .collect();
            assert_eq!(
                found,
                vec![(
                    "kd.metadata.group_segment_fixed_size".to_owned(),
                    Some("kc".to_owned())
                )],
                "{what}"
            );

            if let Some(lib) = comgr {
                let view = comgr::view(lib, &bytes).expect("comgr takes the object");
                let report = compare(&view, &bytes);
                assert_eq!(
                    report.findings().map(|d| d.to_string()).collect::<Vec<_>>(),
                    Vec::<String>::new(),
                    "{what}: comgr's merged metadata"
                );
                assert!(
                    matches!(report.metadata, Outcome::Same),
                    "{what}: the merged notes are compared: {:?}",
                    report.metadata
                );
            }
        }
    }
}
