//! LLVM's own output must check clean: kernels compiled by `llc-19` and
//! `llc-22` straight from IR, as compilers that drive code generation
//! themselves do (no `opt` pipeline, so no AMDGPU attributor: every
//! implicit input stays enabled), for every processor each LLVM lists, and
//! the same kernels after `opt -passes=amdgpu-attributor`. Every object
//! must be free of errors and warnings (issue 29: `llc` output drew false
//! `sgpr.allocation.too_small` errors and gfx1250 "unmodelled" warnings;
//! docs/errata.md "Errata from LLVM's own output without the attributor").
//!
//! A finding the oracle is right about is a defect of that LLVM: each is
//! in [`KNOWN_DEFECTS`] (with its errata entry), is let through, and fails
//! the test once it no longer occurs (the LLVM was fixed: remove it).
//!
//! The kernels: an empty one, one that stores through the work-item ID,
//! one with calls (a defined helper and an external function, so the
//! stack size is unknown: a dynamic stack), one with a dynamic `alloca`
//! (LLVM 22; LLVM 19 refuses it), and two with `inreg` arguments that the
//! processors with kernarg preload load into user SGPRs (3 arguments, and
//! 36 dwords: more than any processor preloads).

mod support;

use hsaco_oracle::check::check_object;
use hsaco_oracle::targets;
use hsaco_oracle::Severity;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use support::llc::cpu_list;

/// The LLVM releases the test compiles with (both are CI peers).
const RELEASES: [u8; 2] = [19, 22];

/// Names `-mcpu=help` lists that are LLVM's test-only models, not
/// processors (`EF_AMDGPU_MACH_NONE`; `tests/targets_llvm.rs`).
const NOT_PROCESSORS: [&str; 2] = ["generic", "generic-hsa"];

const EMPTY: &str = "define amdgpu_kernel void @k() {\n  ret void\n}\n";

const STORE: &str = "\
define amdgpu_kernel void @k(ptr addrspace(1) %p, i32 %v) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %g = getelementptr i32, ptr addrspace(1) %p, i32 %id
  store i32 %v, ptr addrspace(1) %g
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
";

const CALLS: &str = "\
declare void @ext(i32)
define void @helper(ptr addrspace(1) %p, i32 %v) noinline {
  store i32 %v, ptr addrspace(1) %p
  ret void
}
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %a) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %id
  call void @helper(ptr addrspace(1) %p, i32 %a)
  call void @ext(i32 %a)
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
";

const DYNAMIC_ALLOCA: &str = "\
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %n) {
  %buf = alloca i32, i32 %n, align 4, addrspace(5)
  store volatile i32 %n, ptr addrspace(5) %buf
  %v = load volatile i32, ptr addrspace(5) %buf
  store i32 %v, ptr addrspace(1) %out
  ret void
}
";

const PRELOAD: &str = "\
define amdgpu_kernel void @k(ptr addrspace(1) inreg %out, i32 inreg %a, i32 inreg %b) {
  %s = add i32 %a, %b
  store i32 %s, ptr addrspace(1) %out
  ret void
}
";

/// A kernel with 36 `inreg` dword arguments that sums them all.
fn many_preloaded() -> String {
    let args: Vec<String> = (0..36).map(|i| format!("i32 inreg %a{i}")).collect();
    let mut body = String::from("  %s0 = add i32 %a0, 0\n");
    for i in 1..36 {
        body.push_str(&format!("  %s{i} = add i32 %s{}, %a{i}\n", i - 1));
    }
    format!(
        "define amdgpu_kernel void @k(ptr addrspace(1) inreg %out, {}) {{\n{body}  store i32 %s35, ptr addrspace(1) %out\n  ret void\n}}\n",
        args.join(", ")
    )
}

/// An error the oracle rightly reports on an LLVM's output.
struct KnownDefect {
    release: u8,
    processor: fn(&targets::Target) -> bool,
    kernel: &'static str,
    rule: &'static str,
}

/// The LLVM defects this test meets (docs/errata.md, "Errata from LLVM's
/// own output without the attributor").
const KNOWN_DEFECTS: &[KnownDefect] = &[
    // GFX12.5 1: LLVM 22.1 writes 32 user SGPRs (8 implicit + 24 preloaded
    // dwords) into USER_SGPR_COUNT with the 5-bit mask of other targets,
    // so the field says 0; llvm-mc-22 rejects llc-22's own assembly of it.
    KnownDefect {
        release: 22,
        processor: targets::Target::is_gfx12_5,
        kernel: "preload36",
        rule: "sgpr.user_sgpr_count.too_small",
    },
];

/// The kernels LLVM `v` compiles, by name.
fn kernels(v: u8) -> Vec<(&'static str, String)> {
    let mut k = vec![
        ("empty", EMPTY.to_owned()),
        ("store", STORE.to_owned()),
        ("calls", CALLS.to_owned()),
        ("preload", PRELOAD.to_owned()),
        ("preload36", many_preloaded()),
    ];
    // LLVM 19 refuses it: "unsupported dynamic alloca".
    if v >= 22 {
        k.push(("dynamic-alloca", DYNAMIC_ALLOCA.to_owned()));
    }
    k
}

/// One compilation: a processor, a kernel, with or without the attributor.
struct Job {
    cpu: String,
    kernel: &'static str,
    ir: String,
    attributor: bool,
}

struct Tools {
    v: u8,
    llc: PathBuf,
    opt: PathBuf,
}

fn run(cmd: &mut Command, input: Option<&Path>) -> Result<Vec<u8>, String> {
    if let Some(i) = input {
        cmd.arg(i);
    }
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(format!(
            "{cmd:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .take(3)
                .collect::<Vec<_>>()
                .join(" | ")
        ))
    }
}

/// Compiles one job into a code object; returns its bytes.
fn compile(tools: &Tools, dir: &Path, n: usize, job: &Job) -> Result<Vec<u8>, String> {
    let ll = dir.join(format!("{n}.ll"));
    std::fs::write(&ll, &job.ir).map_err(|e| e.to_string())?;
    let input = if job.attributor {
        let attributed = dir.join(format!("{n}.attr.ll"));
        run(
            Command::new(&tools.opt)
                .args(["-mtriple=amdgcn-amd-amdhsa", &format!("-mcpu={}", job.cpu)])
                .args(["-passes=amdgpu-attributor", "-S", "-o"])
                .arg(&attributed),
            Some(&ll),
        )?;
        attributed
    } else {
        ll
    };
    let obj = dir.join(format!("{n}.o"));
    let mut llc = Command::new(&tools.llc);
    llc.args(["-mtriple=amdgcn-amd-amdhsa", &format!("-mcpu={}", job.cpu)])
        .args(["-filetype=obj", "-o"])
        .arg(&obj);
    // LLVM 19 writes code object V5 by default, which generic
    // processors do not allow (they need V6).
    if job.cpu.ends_with("-generic") {
        llc.arg("--amdhsa-code-object-version=6");
    }
    run(&mut llc, Some(&input))?;
    std::fs::read(&obj).map_err(|e| e.to_string())
}

/// Every processor `llc` lists, every kernel, with and without the
/// attributor; returns (objects checked, problems); `known` counts the
/// [`KNOWN_DEFECTS`] met.
fn check_release(tools: &Tools, known: &[AtomicUsize]) -> (usize, Vec<String>) {
    let mut bad = Vec::new();
    let cpus = match cpu_list(&tools.llc, "amdgcn") {
        Ok(c) => c,
        Err(e) => return (0, vec![e]),
    };
    let mut jobs = Vec::new();
    for cpu in cpus
        .iter()
        .filter(|c| !NOT_PROCESSORS.contains(&c.as_str()))
    {
        if targets::by_name_or_alias(cpu).is_none() {
            bad.push(format!(
                "LLVM {} lists {cpu}, which the oracle does not model",
                tools.v
            ));
            continue;
        }
        for (kernel, ir) in kernels(tools.v) {
            for attributor in [false, true] {
                jobs.push(Job {
                    cpu: cpu.clone(),
                    kernel,
                    ir: ir.clone(),
                    attributor,
                });
            }
        }
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let next = AtomicUsize::new(0);
    let checked = AtomicUsize::new(0);
    let problems = Mutex::new(bad);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(n) else { break };
                let what = format!(
                    "llc-{} -mcpu={} {}{}",
                    tools.v,
                    job.cpu,
                    job.kernel,
                    if job.attributor {
                        " (after amdgpu-attributor)"
                    } else {
                        ""
                    }
                );
                let found: Vec<String> = match compile(tools, dir.path(), n, job) {
                    Err(e) => vec![format!("{what}: {e}")],
                    Ok(bytes) => {
                        checked.fetch_add(1, Ordering::Relaxed);
                        let report = check_object(&bytes);
                        let t = targets::by_name_or_alias(&job.cpu);
                        let mut f = Vec::new();
                        for v in &report.violations {
                            if v.severity < Severity::Warning {
                                continue;
                            }
                            let defect = KNOWN_DEFECTS.iter().position(|d| {
                                d.release == tools.v
                                    && d.kernel == job.kernel
                                    && d.rule == v.rule.id
                                    && t.is_some_and(|t| (d.processor)(t))
                            });
                            match defect {
                                Some(d) => {
                                    known[d].fetch_add(1, Ordering::Relaxed);
                                }
                                None => f.push(format!(
                                    "{what}: {} {}: {}",
                                    v.severity, v.rule.id, v.message
                                )),
                            }
                        }
                        if report.kernels.is_empty() {
                            f.push(format!("{what}: no kernel found"));
                        }
                        f
                    }
                };
                if !found.is_empty() {
                    problems.lock().expect("not poisoned").extend(found);
                }
            });
        }
    });
    (
        checked.into_inner(),
        problems.into_inner().expect("not poisoned"),
    )
}

#[test]
fn llc_output_is_clean_with_and_without_the_attributor() {
    let mut bad = Vec::new();
    let known: Vec<AtomicUsize> = KNOWN_DEFECTS.iter().map(|_| AtomicUsize::new(0)).collect();
    let mut ran = Vec::new();
    for v in RELEASES {
        let (Some(llc), Some(opt)) = (
            support::require_tool(&format!("llc-{v}")),
            support::require_tool(&format!("opt-{v}")),
        ) else {
            continue;
        };
        let (n, b) = check_release(&Tools { v, llc, opt }, &known);
        ran.push(v);
        eprintln!(
            "llc_clean: LLVM {v}: {n} objects checked, {} problems",
            b.len()
        );
        bad.extend(b);
    }
    for (d, hits) in KNOWN_DEFECTS.iter().zip(&known) {
        let hits = hits.load(Ordering::Relaxed);
        eprintln!(
            "llc_clean: known LLVM {} defect {} on {}: {hits} objects",
            d.release, d.rule, d.kernel
        );
        if hits == 0 && ran.contains(&d.release) {
            bad.push(format!(
                "known LLVM {} defect {} on {} no longer occurs: remove it from KNOWN_DEFECTS",
                d.release, d.rule, d.kernel
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} objects from llc are not clean:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
