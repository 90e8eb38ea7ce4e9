//! Code object V2 through the whole pipeline (issue 4's done-when): every
//! V2 object llc-14 builds from the fixtures (`support::fixtures::v2`:
//! gfx600, gfx701, gfx802, gfx803, gfx900 with and without xnack, gfx906;
//! linked, and relocatable for gfx701 and gfx900) passes `check_object`
//! with no error and no warning, every kernel symbol comes out with its
//! `amd_kernel_code_t` decoded, its YAML metadata and its initial register
//! state, and `hsaco-conform check` exits 0 on them.
//!
//! The fixture kernels cover what the issue asks for: scratch
//! (`scratch_index`, `all_inputs`, a dynamic call stack in `recursive`),
//! work-group ids X, Y and Z (`group_ids_yz`, `group_id_z_only`,
//! `all_inputs`), and the dispatch and queue pointers (`many_args`,
//! `all_inputs`); [`fixtures_reach_the_features`] checks that they do.

mod support;

use hsaco_oracle::check::{check_object, ObjectReport};
use hsaco_oracle::Severity;
use std::collections::BTreeSet;
use std::process::Command;
use support::fixtures::Fixture;

/// The processors the issue names; the fixtures must include each.
const REQUIRED_CPUS: &[&str] = &["gfx701", "gfx803", "gfx900", "gfx906"];

fn reports(fixtures: &[Fixture]) -> Vec<(&Fixture, ObjectReport)> {
    fixtures
        .iter()
        .map(|f| (f, check_object(&std::fs::read(&f.path).unwrap())))
        .collect()
}

#[test]
fn llc14_v2_objects_are_clean_and_fully_modelled() {
    let Some(fixtures) = support::fixtures::v2() else {
        return;
    };
    let cpus: BTreeSet<&str> = fixtures.iter().map(|f| f.cpu.as_str()).collect();
    for cpu in REQUIRED_CPUS {
        assert!(cpus.contains(cpu), "no V2 fixture for {cpu}: {cpus:?}");
    }
    assert!(fixtures.iter().any(|f| f.relocatable));
    let mut problems = Vec::new();
    let mut kernels = 0usize;
    let mut infos = 0usize;
    for (f, r) in reports(&fixtures) {
        assert_eq!(r.code_object_version, Some(2), "{}", f.name);
        let want_type = if f.relocatable { "ET_REL" } else { "ET_DYN" };
        assert_eq!(r.elf_type.as_deref(), Some(want_type), "{}", f.name);
        // The target ID in V4+ syntax: LLVM 14 sets xnack (and on gfx906
        // sramecc) unless built with -xnack.
        let target = r.target.clone().unwrap_or_default();
        let off = f.options.iter().any(|o| o.contains("-xnack"));
        let want_target = match f.cpu.as_str() {
            "gfx900" if off => "gfx900:xnack-",
            "gfx900" => "gfx900:xnack+",
            "gfx906" => "gfx906:sramecc+:xnack+",
            cpu => cpu,
        };
        assert_eq!(target, want_target, "{}", f.name);
        for v in &r.violations {
            if v.severity == Severity::Info {
                infos += 1;
            } else {
                problems.push(format!(
                    "{}: {} {} [{}]: {}",
                    f.name,
                    v.severity,
                    v.rule.id,
                    v.kernel.as_deref().unwrap_or("-"),
                    v.message
                ));
            }
        }
        let names: Vec<&str> = r.kernels.iter().map(|k| k.name.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        let mut want: Vec<&str> = f.kernels.iter().map(String::as_str).collect();
        want.sort_unstable();
        assert_eq!(sorted, want, "{}: kernels", f.name);
        let md = r.metadata_v2.as_ref().expect("V2 metadata decoded");
        assert_eq!(md.kernels.len(), f.kernels.len(), "{}", f.name);
        let notes = r.v2_notes.as_ref().expect("V2 notes decoded");
        assert_eq!(notes.code_object_version, Some([2, 1]), "{}", f.name);
        assert!(notes.isa_version.is_some() && notes.isa_name.is_some());
        for k in &r.kernels {
            kernels += 1;
            let what = format!("{} {}", f.name, k.name);
            let code = k.kernel_code.as_ref().expect("amd_kernel_code_t read");
            assert!(k.descriptor.is_none(), "{what}");
            assert!(k.descriptor_offset.is_some(), "{what}");
            // Every field, named, with a meaning.
            assert!(
                k.fields.len() > 60 && k.fields.iter().all(|x| !x.meaning.is_empty()),
                "{what}: {} fields",
                k.fields.len()
            );
            let m = k.metadata_v2.as_ref().expect("kernel metadata");
            assert_eq!(m.name.as_deref(), Some(k.name.as_str()), "{what}");
            let st = k.initial_state.as_ref().expect("initial state");
            assert_eq!(
                u32::from(st.declared_user_sgpr_count),
                code.user_sgpr_count(),
                "{what}"
            );
        }
    }
    eprintln!(
        "V2: {} code objects, {kernels} kernels checked: {} errors or warnings, {infos} infos",
        fixtures.len(),
        problems.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(infos, 0, "llc-14 V2 objects should draw no info either");
}

#[test]
fn fixtures_reach_the_features() {
    let Some(fixtures) = support::fixtures::v2() else {
        return;
    };
    for cpu in REQUIRED_CPUS {
        let mut seen = BTreeSet::new();
        for (f, r) in reports(&fixtures) {
            if f.cpu != *cpu {
                continue;
            }
            for k in &r.kernels {
                let Some(c) = &k.kernel_code else { continue };
                let features = [
                    ("scratch", c.workitem_private_segment_byte_size > 0),
                    ("dynamic call stack", c.is_dynamic_callstack()),
                    ("work-group id x", c.enable_sgpr_workgroup_id_x()),
                    ("work-group id y", c.enable_sgpr_workgroup_id_y()),
                    ("work-group id z", c.enable_sgpr_workgroup_id_z()),
                    ("dispatch ptr", c.enable_sgpr_dispatch_ptr()),
                    ("queue ptr", c.enable_sgpr_queue_ptr()),
                    ("kernarg ptr", c.enable_sgpr_kernarg_segment_ptr()),
                    ("work-item id z", c.enable_vgpr_workitem_id() == 2),
                    ("group segment", c.workgroup_group_segment_byte_size > 0),
                ];
                seen.extend(features.iter().filter(|x| x.1).map(|x| x.0));
            }
        }
        assert_eq!(seen.len(), 10, "{cpu}: the V2 fixtures reach only {seen:?}");
    }
}

#[test]
fn cli_check_exits_zero_on_v2_objects() {
    let Some(fixtures) = support::fixtures::v2() else {
        return;
    };
    let kernels: usize = fixtures.iter().map(|f| f.kernels.len()).sum();
    let out = Command::new(env!("CARGO_BIN_EXE_hsaco-conform"))
        .arg("check")
        .args(fixtures.iter().map(|f| &f.path))
        .output()
        .expect("run hsaco-conform");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let n = fixtures.len();
    assert_eq!(
        stdout,
        format!(
            "checked {n} code objects ({kernels} kernels) in {n} files: 0 errors, 0 warnings, 0 infos\n"
        )
    );
}
