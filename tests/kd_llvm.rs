//! The kernel descriptor and initial-state model against real LLVM 19.
//!
//! (a) `.amdhsa_kernel` blocks over many targets and directive
//! combinations, assembled with `llvm-mc-19` and linked with `ld.lld-19`:
//! the oracle finds nothing wrong, and its user SGPR count equals the
//! USER_SGPR_COUNT LLVM computed.
//! (b) OpenCL kernels compiled by `clang-19` for gfx803 to gfx1200: the
//! oracle accepts them (with the known LLVM 19 quirks as warnings or info
//! only), agrees with their metadata, and decodes every field as
//! `llvm-objdump-19` prints it.

mod support;

use hsaco_oracle::kd::{self, KernelDescriptor, MetadataFacts, KD_SIZE};
use hsaco_oracle::rules::{Rule, Severity, Sink};
use hsaco_oracle::sgpr;
use hsaco_oracle::targets::{by_name, CodeObjectVersion, Generation, Target};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

struct Tools {
    mc: PathBuf,
    lld: PathBuf,
    objdump: PathBuf,
    readobj: PathBuf,
    clang: PathBuf,
}

fn tools() -> Option<Tools> {
    Some(Tools {
        mc: support::require_tool("llvm-mc-19")?,
        lld: support::require_tool("ld.lld-19")?,
        objdump: support::require_tool("llvm-objdump-19")?,
        readobj: support::require_tool("llvm-readobj-19")?,
        clang: support::require_tool("clang-19")?,
    })
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

// ---- kernel descriptors by symbol ----------------------------------------

struct Descriptor {
    /// Kernel name (the symbol without `.kd`).
    name: String,
    /// File offset of the 64 bytes.
    file_offset: usize,
    kd: KernelDescriptor,
}

struct Object {
    bytes: Vec<u8>,
    cov: CodeObjectVersion,
    kds: Vec<Descriptor>,
}

fn read_object(path: &Path) -> Object {
    let o = support::elfedit::Obj::new(std::fs::read(path).unwrap());
    let cov = CodeObjectVersion::from_abi_version(o.u8(8)).expect("HSA ABI version");
    let mut kds: Vec<Descriptor> = o
        .kernels()
        .into_iter()
        .map(|name| {
            assert_eq!(o.symbol(&format!("{name}.kd")).size, 64, "{name}.kd size");
            let file_offset = o.kd(&name);
            let kd =
                KernelDescriptor::from_slice(&o.bytes[file_offset..file_offset + KD_SIZE]).unwrap();
            Descriptor {
                name,
                file_offset,
                kd,
            }
        })
        .collect();
    kds.sort_by(|a, b| a.name.cmp(&b.name));
    Object {
        bytes: o.bytes,
        cov,
        kds,
    }
}

// ---- llvm-objdump's `.amdhsa_` lines --------------------------------------

/// Compares llvm-objdump's decode with the oracle's; returns the number of
/// directives compared.
fn compare(
    kernel: &str,
    dirs: &BTreeMap<String, u64>,
    kd: &KernelDescriptor,
    target: &Target,
) -> usize {
    let bad = support::objdump::mismatches(kernel, dirs, kd, target);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    dirs.len()
}

/// Decodes with llvm-objdump-19 and compares. When LLVM 19's decoder
/// refuses a descriptor because of the non-zero GFX10+ SGPR granule that
/// clang-19 writes (and the oracle warns about), compares against a copy
/// with that field cleared instead.
fn objdump_and_compare(t: &Tools, dir: &Path, file: &Path, obj: &Object, target: &Target) -> usize {
    let names: Vec<&str> = obj.kds.iter().map(|d| d.name.as_str()).collect();
    let decoded = support::objdump::decode(&t.objdump, file, &names);
    let mut patched = obj.bytes.clone();
    let mut retry = Vec::new();
    let mut compared = 0;
    for d in &obj.kds {
        match decoded
            .get(&d.name)
            .unwrap_or_else(|| panic!("objdump skipped {}", d.name))
        {
            Ok(dirs) => compared += compare(&d.name, dirs, &d.kd, target),
            Err(e) => {
                assert!(
                    support::objdump::is_sgpr_granule_quirk(e, target, &d.kd),
                    "{target} {}: llvm-objdump rejects the descriptor: {e}",
                    d.name
                );
                let mut sink = Sink::new();
                d.kd.check(target, obj.cov, 0, &mut sink);
                assert!(
                    sink.has(&kd::RSRC1_GRANULATED_SGPR_COUNT),
                    "{target} {}: oracle silent on {e}",
                    d.name
                );
                support::objdump::clear_sgpr_granule(&mut patched, d.file_offset);
                retry.push(d);
            }
        }
    }
    if !retry.is_empty() {
        let copy = dir.join(format!(
            "{}-sgpr0",
            file.file_name().unwrap().to_string_lossy()
        ));
        std::fs::write(&copy, &patched).unwrap();
        let names: Vec<&str> = retry.iter().map(|d| d.name.as_str()).collect();
        let decoded = support::objdump::decode(&t.objdump, &copy, &names);
        for d in retry {
            let kd = KernelDescriptor::from_slice(&patched[d.file_offset..]).unwrap();
            assert_eq!(kd.granulated_wavefront_sgpr_count(), 0);
            match decoded.get(&d.name) {
                Some(Ok(dirs)) => compared += compare(&d.name, dirs, &kd, target),
                other => panic!("{target} {}: still not decodable: {other:?}", d.name),
            }
        }
    }
    compared
}

// ---- (a) llvm-mc over directive combinations ------------------------------

struct Kernel {
    name: String,
    directives: Vec<String>,
    /// User SGPRs the enables imply.
    implied: u16,
    /// `.amdhsa_user_sgpr_count` given explicitly.
    explicit_count: Option<u16>,
    /// Rules the oracle reports although llvm-mc accepts the block.
    expected: Vec<&'static Rule>,
}

fn kernels_for(target: &Target, cov: CodeObjectVersion) -> Vec<Kernel> {
    let gen = target.generation;
    let arch = target.architected_flat_scratch;
    let mut user: Vec<(&str, u16)> = vec![
        ("dispatch_ptr", 2),
        ("queue_ptr", 2),
        ("kernarg_segment_ptr", 2),
        ("dispatch_id", 2),
    ];
    if !arch {
        user.insert(0, ("private_segment_buffer", 4));
        user.push(("flat_scratch_init", 2));
    }
    user.push(("private_segment_size", 1));

    let mut ks = Vec::new();
    let mut add = |name: &str, d: Vec<String>, implied: u16, explicit_count: Option<u16>| {
        let mut expected = Vec::new();
        if explicit_count.is_some_and(|c| c > implied) {
            expected.push(&sgpr::USER_SGPR_COUNT_EXTRA);
        }
        // llvm-mc sets the bit on GFX6, which has no flat scratch (the
        // documents call it unsupported there).
        if gen == Generation::Gfx6 && d.iter().any(|x| x.contains("flat_scratch_init 1")) {
            expected.push(&sgpr::FLAT_SCRATCH_INIT_UNSUPPORTED);
        }
        ks.push(Kernel {
            name: name.to_owned(),
            directives: d,
            implied,
            explicit_count,
            expected,
        });
    };
    add("k_min", vec![], 0, None);
    for (e, n) in &user {
        add(
            &format!("k_user_{e}"),
            vec![format!(".amdhsa_user_sgpr_{e} 1")],
            *n,
            None,
        );
    }
    add(
        "k_user_all",
        user.iter()
            .map(|(e, _)| format!(".amdhsa_user_sgpr_{e} 1"))
            .collect(),
        user.iter().map(|u| u.1).sum(),
        None,
    );
    let private = if arch {
        ".amdhsa_enable_private_segment 1"
    } else {
        ".amdhsa_system_sgpr_private_segment_wavefront_offset 1"
    };
    add(
        "k_system",
        vec![
            ".amdhsa_system_sgpr_workgroup_id_x 1".into(),
            ".amdhsa_system_sgpr_workgroup_id_y 1".into(),
            ".amdhsa_system_sgpr_workgroup_id_z 1".into(),
            ".amdhsa_system_sgpr_workgroup_info 1".into(),
            ".amdhsa_system_vgpr_workitem_id 2".into(),
            ".amdhsa_user_sgpr_kernarg_segment_ptr 1".into(),
            private.into(),
            ".amdhsa_private_segment_fixed_size 48".into(),
            ".amdhsa_group_segment_fixed_size 4096".into(),
            ".amdhsa_kernarg_size 24".into(),
        ],
        2,
        None,
    );
    add(
        "k_ids_xz",
        vec![
            ".amdhsa_system_sgpr_workgroup_id_x 0".into(),
            ".amdhsa_system_sgpr_workgroup_id_z 1".into(),
            ".amdhsa_system_vgpr_workitem_id 1".into(),
        ],
        0,
        None,
    );
    let mut modes: Vec<String> = vec![
        ".amdhsa_float_round_mode_32 2".into(),
        ".amdhsa_float_round_mode_16_64 1".into(),
        ".amdhsa_float_denorm_mode_32 1".into(),
        ".amdhsa_float_denorm_mode_16_64 2".into(),
        ".amdhsa_exception_fp_ieee_invalid_op 1".into(),
        ".amdhsa_exception_fp_denorm_src 1".into(),
        ".amdhsa_exception_fp_ieee_div_zero 1".into(),
        ".amdhsa_exception_fp_ieee_overflow 1".into(),
        ".amdhsa_exception_fp_ieee_underflow 1".into(),
        ".amdhsa_exception_fp_ieee_inexact 1".into(),
        ".amdhsa_exception_int_div_zero 1".into(),
    ];
    if gen < Generation::Gfx12 {
        modes.push(".amdhsa_dx10_clamp 0".into());
        modes.push(".amdhsa_ieee_mode 0".into());
    } else {
        modes.push(".amdhsa_round_robin_scheduling 1".into());
    }
    if gen >= Generation::Gfx9 {
        modes.push(".amdhsa_fp16_overflow 1".into());
    }
    if gen >= Generation::Gfx10 {
        modes.push(".amdhsa_memory_ordered 0".into());
        modes.push(".amdhsa_forward_progress 1".into());
        if target.cumode {
            modes.push(".amdhsa_workgroup_processor_mode 0".into());
        }
    }
    if target.accum_offset {
        modes.push(".amdhsa_tg_split 1".into());
    }
    add("k_modes", modes, 0, None);
    add(
        "k_big",
        vec![
            ".amdhsa_next_free_vgpr 97".into(),
            ".amdhsa_next_free_sgpr 61".into(),
        ],
        0,
        None,
    );
    add(
        "k_count",
        vec![
            ".amdhsa_user_sgpr_kernarg_segment_ptr 1".into(),
            ".amdhsa_user_sgpr_count 10".into(),
        ],
        2,
        Some(10),
    );
    if cov >= CodeObjectVersion::V5 {
        add(
            "k_dynstack",
            vec![".amdhsa_uses_dynamic_stack 1".into()],
            0,
            None,
        );
    }
    if gen >= Generation::Gfx10 {
        add(
            "k_wave64",
            vec![
                ".amdhsa_wavefront_size32 0".into(),
                ".amdhsa_next_free_vgpr 37".into(),
            ],
            0,
            None,
        );
        add(
            "k_wave32",
            vec![
                ".amdhsa_wavefront_size32 1".into(),
                ".amdhsa_next_free_vgpr 37".into(),
            ],
            0,
            None,
        );
    }
    if matches!(gen, Generation::Gfx10 | Generation::Gfx11) {
        add(
            "k_shared",
            vec![
                ".amdhsa_wavefront_size32 0".into(),
                ".amdhsa_shared_vgpr_count 3".into(),
            ],
            0,
            None,
        );
    }
    if target.kernarg_preload {
        add(
            "k_preload",
            vec![
                ".amdhsa_user_sgpr_kernarg_segment_ptr 1".into(),
                ".amdhsa_user_sgpr_kernarg_preload_length 4".into(),
                ".amdhsa_user_sgpr_kernarg_preload_offset 1".into(),
                ".amdhsa_kernarg_size 64".into(),
            ],
            6,
            None,
        );
        add(
            "k_preload14",
            vec![
                ".amdhsa_user_sgpr_kernarg_segment_ptr 1".into(),
                ".amdhsa_user_sgpr_kernarg_preload_length 14".into(),
            ],
            16,
            None,
        );
    }
    ks
}

fn assemble_block(k: &Kernel, target: &Target) -> String {
    let has = |d: &str| k.directives.iter().any(|x| x.starts_with(d));
    let mut s = format!(
        ".text\n.p2align 8\n.type {n},@function\n{n}:\n  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel {n}\n",
        n = k.name
    );
    for d in &k.directives {
        s += &format!("  {d}\n");
    }
    if !has(".amdhsa_next_free_vgpr") {
        s += "  .amdhsa_next_free_vgpr 8\n";
    }
    if !has(".amdhsa_next_free_sgpr") {
        // Enough for 16 user and 5 system SGPRs.
        s += "  .amdhsa_next_free_sgpr 24\n";
    }
    if target.accum_offset {
        s += "  .amdhsa_accum_offset 8\n";
    }
    s += ".end_amdhsa_kernel\n";
    s
}

#[test]
fn llvm_mc_descriptors() {
    let Some(t) = tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let configs: &[(&str, &[CodeObjectVersion])] = &[
        ("gfx600", &[CodeObjectVersion::V4, CodeObjectVersion::V5]),
        ("gfx700", &[CodeObjectVersion::V5]),
        ("gfx803", &[CodeObjectVersion::V4, CodeObjectVersion::V5]),
        ("gfx802", &[CodeObjectVersion::V5]),
        ("gfx900", &[CodeObjectVersion::V4, CodeObjectVersion::V5]),
        ("gfx906", &[CodeObjectVersion::V5]),
        ("gfx908", &[CodeObjectVersion::V5]),
        ("gfx90a", &[CodeObjectVersion::V4, CodeObjectVersion::V5]),
        ("gfx942", &[CodeObjectVersion::V5]),
        ("gfx1010", &[CodeObjectVersion::V5]),
        ("gfx1030", &[CodeObjectVersion::V4, CodeObjectVersion::V5]),
        ("gfx1100", &[CodeObjectVersion::V5]),
        ("gfx1151", &[CodeObjectVersion::V5]),
        ("gfx1200", &[CodeObjectVersion::V5]),
        ("gfx1201", &[CodeObjectVersion::V5]),
        ("gfx9-generic", &[CodeObjectVersion::V6]),
        ("gfx10-3-generic", &[CodeObjectVersion::V6]),
        ("gfx11-generic", &[CodeObjectVersion::V6]),
        ("gfx12-generic", &[CodeObjectVersion::V6]),
    ];
    let mut kernels_checked = 0;
    let mut directives_compared = 0;
    for &(cpu, covs) in configs {
        let target = by_name(cpu).unwrap_or_else(|| panic!("{cpu} not in the target table"));
        for &cov in covs {
            let ks = kernels_for(target, cov);
            let mut src = format!(".amdhsa_code_object_version {}\n", cov.number());
            for k in &ks {
                src += &assemble_block(k, target);
            }
            let stem = dir.path().join(format!("{cpu}-{cov}"));
            let s = stem.with_extension("s");
            let o = stem.with_extension("o");
            let so = stem.with_extension("so");
            std::fs::write(&s, &src).unwrap();
            run(Command::new(&t.mc)
                .args([
                    "-triple=amdgcn-amd-amdhsa",
                    &format!("-mcpu={cpu}"),
                    "-filetype=obj",
                    "-o",
                ])
                .arg(&o)
                .arg(&s));
            run(Command::new(&t.lld)
                .arg("-shared")
                .arg("-o")
                .arg(&so)
                .arg(&o));
            let obj = read_object(&so);
            assert_eq!(obj.cov, cov);
            assert_eq!(obj.kds.len(), ks.len(), "{cpu} {cov}");
            for k in &ks {
                let d = obj.kds.iter().find(|d| d.name == k.name).unwrap();
                let mut sink = Sink::new();
                d.kd.check(target, cov, d.file_offset as u64, &mut sink);
                sgpr::check(&d.kd, target, d.file_offset as u64, &mut sink);
                let got: BTreeSet<&str> = sink.violations.iter().map(|v| v.rule.id).collect();
                let want: BTreeSet<&str> = k.expected.iter().map(|r| r.id).collect();
                assert_eq!(
                    got,
                    want,
                    "{cpu} {cov} {}: {:?}\n{}",
                    k.name,
                    sink.violations,
                    assemble_block(k, target)
                );
                assert!(sink.violations.iter().all(|v| v.severity < Severity::Error));
                let st = sgpr::initial_state(&d.kd, target);
                assert_eq!(
                    st.user_sgpr_count, k.implied,
                    "{cpu} {cov} {}: implied user SGPRs",
                    k.name
                );
                let declared = k.explicit_count.unwrap_or(k.implied);
                assert_eq!(
                    d.kd.user_sgpr_count(target),
                    u32::from(declared),
                    "{cpu} {cov} {}: LLVM's USER_SGPR_COUNT",
                    k.name
                );
                assert_eq!(st.declared_user_sgpr_count, declared);
                kernels_checked += 1;
            }
            // llvm-objdump-19 aborts on GFX6 and GFX7 ("Disassembly not yet supported
            // for subtarget").
            if target.generation >= Generation::Gfx8 {
                directives_compared += objdump_and_compare(&t, dir.path(), &so, &obj, target);
            }
        }
    }
    assert!(kernels_checked > 300, "{kernels_checked}");
    assert!(directives_compared > 10_000, "{directives_compared}");
}

// ---- (b) clang-19 OpenCL kernels -------------------------------------------

const KERNELS_CL: &str = r#"
#define WIX __builtin_amdgcn_workitem_id_x()
#define WIY __builtin_amdgcn_workitem_id_y()
#define WIZ __builtin_amdgcn_workitem_id_z()
#define WGX __builtin_amdgcn_workgroup_id_x()
#define WGY __builtin_amdgcn_workgroup_id_y()
#define WGZ __builtin_amdgcn_workgroup_id_z()
__kernel void simple(__global int *p) { p[WIX + WGX * 64] = 1; }
__kernel void ids3(__global int *p, int n) { p[WIX + WIY * n + WIZ * n * n] = WGZ + WGY * 7; }
__kernel void lds(__global float *p) {
  __local float t[256];
  t[WIX] = p[WIX + WGX * 256];
  __builtin_amdgcn_s_barrier();
  p[WIX] = t[255 - WIX];
}
__kernel void priv(__global int *p, int i) {
  volatile int a[64];
  for (int j = 0; j < 64; j++) a[j] = p[j];
  p[0] = a[i & 63];
}
int ext_fn(__global int *p, int n);
__kernel void extcall(__global int *p, int n) { p[1] = ext_fn(p, n); }
__kernel void heavy(__global float4 *p) {
  float4 acc[24];
  for (int j = 0; j < 24; j++) acc[j] = p[WIX + j];
  for (int k = 0; k < 8; k++)
    for (int j = 0; j < 24; j++) acc[j] = acc[j] * acc[(j + k) % 24] + (float4)(k);
  float4 s = 0;
  for (int j = 0; j < 24; j++) s += acc[j];
  p[WIX] = s;
}
__kernel void nothing(void) {}
__kernel void disp(__global int *p) {
  __constant char *d = __builtin_amdgcn_dispatch_ptr();
  p[0] = *(__constant int *)(d + 12);
}
__kernel void queue(__global long *p) { p[0] = (long)__builtin_amdgcn_queue_ptr(); }
__kernel void args(__global int *p, int a, int b, int c, int d, long e, int f) { p[WIX] = a + b + c + d + e + f; }
"#;

const EXT_CL: &str = "int ext_fn(__global int *p, int n) { return p[n] + n; }\n";

const MFMA_CL: &str = r#"
typedef float float32 __attribute__((ext_vector_type(32)));
__kernel void mfma(__global float32 *p, __global float *a) {
  float32 acc = p[__builtin_amdgcn_workitem_id_x()];
  for (int i = 0; i < 4; i++) acc = __builtin_amdgcn_mfma_f32_32x32x1f32(a[i], a[i + 1], acc, 0, 0, 0);
  p[__builtin_amdgcn_workitem_id_x()] = acc;
}
__kernel void mfma3(__global float32 *p, __global float *a) {
  float32 x = p[__builtin_amdgcn_workitem_id_x()];
  float32 y = p[__builtin_amdgcn_workitem_id_x() + 1];
  float32 z = p[__builtin_amdgcn_workitem_id_x() + 2];
  for (int i = 0; i < 4; i++) {
    x = __builtin_amdgcn_mfma_f32_32x32x1f32(a[i], a[i + 1], x, 0, 0, 0);
    y = __builtin_amdgcn_mfma_f32_32x32x1f32(a[i], a[i + 2], y, 0, 0, 0);
    z = __builtin_amdgcn_mfma_f32_32x32x1f32(a[i], a[i + 3], z, 0, 0, 0);
  }
  p[__builtin_amdgcn_workitem_id_x()] = x + y + z;
}
"#;

/// The metadata keys of every kernel, parsed from llvm-readobj's YAML.
fn metadata_facts(t: &Tools, file: &Path) -> BTreeMap<String, MetadataFacts> {
    let out = run(Command::new(&t.readobj).arg("--notes").arg(file));
    let mut all = BTreeMap::new();
    let mut cur: Option<(String, MetadataFacts)> = None;
    let mut finish = |cur: &mut Option<(String, MetadataFacts)>| {
        if let Some((n, f)) = cur.take() {
            assert!(!n.is_empty(), "kernel without .name in {file:?}");
            all.insert(n, f);
        }
    };
    for line in out.lines() {
        let kv = if let Some(rest) = line.strip_prefix("  - ").filter(|r| r.starts_with('.')) {
            finish(&mut cur);
            cur = Some((String::new(), MetadataFacts::default()));
            rest
        } else if let Some(rest) = line.strip_prefix("    ") {
            rest
        } else {
            if !line.starts_with(' ') {
                finish(&mut cur);
            }
            continue;
        };
        let Some((key, val)) = kv.split_once(':') else {
            continue;
        };
        let Some((name, f)) = cur.as_mut() else {
            continue;
        };
        let val = val.trim();
        let num = || val.parse::<u64>().ok();
        let flag = || match val {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        };
        match key {
            ".name" => *name = val.to_owned(),
            ".sgpr_count" => f.sgpr_count = num(),
            ".vgpr_count" => f.vgpr_count = num(),
            ".agpr_count" => f.agpr_count = num(),
            ".wavefront_size" => f.wavefront_size = num(),
            ".group_segment_fixed_size" => f.group_segment_fixed_size = num(),
            ".private_segment_fixed_size" => f.private_segment_fixed_size = num(),
            ".kernarg_segment_size" => f.kernarg_segment_size = num(),
            ".uses_dynamic_stack" => f.uses_dynamic_stack = flag(),
            ".workgroup_processor_mode" => f.workgroup_processor_mode = flag(),
            _ => {}
        }
    }
    finish(&mut cur);
    all
}

#[test]
fn clang_descriptors() {
    let Some(t) = tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let k_cl = dir.path().join("k.cl");
    let km_cl = dir.path().join("km.cl");
    let ext_cl = dir.path().join("ext.cl");
    std::fs::write(&k_cl, KERNELS_CL).unwrap();
    // One translation unit: llvm-objdump sizes a descriptor by the distance
    // to the next symbol, so a second object's anonymous .rodata bytes
    // (its discarded weak __oclc_ABI_version) after a descriptor would make
    // it refuse that descriptor.
    std::fs::write(&km_cl, format!("{KERNELS_CL}{MFMA_CL}")).unwrap();
    std::fs::write(&ext_cl, EXT_CL).unwrap();
    // (tag, -mcpu, extra clang arguments, with MFMA kernels)
    let configs: &[(&str, &str, &[&str], bool)] = &[
        ("gfx803", "gfx803", &[], false),
        ("gfx900", "gfx900", &[], false),
        ("gfx900-v4", "gfx900", &["-mcode-object-version=4"], false),
        ("gfx908", "gfx908", &[], true),
        ("gfx90a", "gfx90a", &[], true),
        (
            "gfx90a-preload",
            "gfx90a",
            &["-mllvm", "-amdgpu-kernarg-preload-count=16"],
            false,
        ),
        ("gfx942", "gfx942", &[], true),
        (
            "gfx942-preload",
            "gfx942",
            &["-mllvm", "-amdgpu-kernarg-preload-count=4"],
            false,
        ),
        ("gfx1010", "gfx1010", &[], false),
        ("gfx1030", "gfx1030", &[], false),
        ("gfx1030-w64", "gfx1030", &["-mwavefrontsize64"], false),
        (
            "gfx1030-cu-v4",
            "gfx1030",
            &["-mcumode", "-mcode-object-version=4"],
            false,
        ),
        ("gfx1100", "gfx1100", &[], false),
        ("gfx1100-w64", "gfx1100", &["-mwavefrontsize64"], false),
        ("gfx1200", "gfx1200", &[], false),
    ];
    let mut sgpr_quirk = 0;
    let mut padded = 0;
    let mut directives_compared = 0;
    for &(tag, cpu, extra, mfma) in configs {
        let target = by_name(cpu).unwrap();
        let compile = |src: &Path, out: &Path| {
            run(Command::new(&t.clang)
                .args(support::CLANG_OPENCL)
                .arg("-c")
                .arg(format!("-mcpu={cpu}"))
                .args(extra)
                .arg(src)
                .arg("-o")
                .arg(out));
        };
        let mut objs = Vec::new();
        for (src, stem) in [(if mfma { &km_cl } else { &k_cl }, "k"), (&ext_cl, "ext")] {
            let o = dir.path().join(format!("{stem}-{tag}.o"));
            compile(src, &o);
            objs.push(o);
        }
        let so = dir.path().join(format!("{tag}.so"));
        run(Command::new(&t.lld)
            .arg("-shared")
            .arg("-o")
            .arg(&so)
            .args(&objs));
        let obj = read_object(&so);
        let facts = metadata_facts(&t, &so);
        assert_eq!(
            obj.kds.len(),
            facts.len(),
            "{tag}: descriptors vs metadata kernels"
        );
        assert!(obj.kds.len() >= 10);
        for d in &obj.kds {
            let f = facts
                .get(&d.name)
                .unwrap_or_else(|| panic!("{tag}: no metadata for {}", d.name));
            let mut sink = Sink::new();
            d.kd.check(target, obj.cov, d.file_offset as u64, &mut sink);
            sgpr::check(&d.kd, target, d.file_offset as u64, &mut sink);
            for v in &sink.violations {
                let known = (v.rule == &kd::RSRC1_GRANULATED_SGPR_COUNT
                    && target.generation >= Generation::Gfx10)
                    || (v.rule == &kd::PROPERTIES_USES_DYNAMIC_STACK
                        && obj.cov < CodeObjectVersion::V5)
                    || (v.rule == &sgpr::USER_SGPR_COUNT_EXTRA && target.user_sgpr_init16_bug);
                assert!(known, "{tag} {}: {v:?}", d.name);
                if v.rule == &kd::RSRC1_GRANULATED_SGPR_COUNT {
                    sgpr_quirk += 1;
                }
                if v.rule == &sgpr::USER_SGPR_COUNT_EXTRA {
                    padded += 1;
                    // LLVM pads so that user + work-group SGPRs make 16.
                    let st = sgpr::initial_state(&d.kd, target);
                    let wg = [
                        d.kd.enable_sgpr_workgroup_id_x(),
                        d.kd.enable_sgpr_workgroup_id_y(),
                        d.kd.enable_sgpr_workgroup_id_z(),
                        d.kd.enable_sgpr_workgroup_info(),
                    ];
                    let wg = wg.iter().filter(|&&b| b).count() as u16;
                    assert_eq!(st.declared_user_sgpr_count + wg, 16, "{tag} {}", d.name);
                }
            }
            let mut meta = Sink::new();
            d.kd.check_against_metadata(f, target, obj.cov, d.file_offset as u64, &mut meta);
            assert!(
                meta.violations.is_empty(),
                "{tag} {}: {:?} vs {f:?}",
                d.name,
                meta.violations
            );
            // The granules reproduce LLVM's encoding from the metadata
            // counts (GFX10+ SGPRs aside, where LLVM 19 writes a value).
            let w32 = d.kd.wave32(target);
            let (v, a) = (
                f.vgpr_count.unwrap() as u32,
                f.agpr_count.unwrap_or(0) as u32,
            );
            let arch = if target.accum_offset {
                v.saturating_sub(a)
            } else {
                v
            };
            assert_eq!(
                kd::granulated_vgpr_count(target, w32, arch, a),
                d.kd.granulated_workitem_vgpr_count(),
                "{tag} {}: VGPR granule for {f:?}",
                d.name
            );
            if target.generation < Generation::Gfx10 {
                assert_eq!(
                    kd::granulated_sgpr_count(target, f.sgpr_count.unwrap() as u32),
                    d.kd.granulated_wavefront_sgpr_count(),
                    "{tag} {}: SGPR granule for {f:?}",
                    d.name
                );
            }
        }
        directives_compared += objdump_and_compare(&t, dir.path(), &so, &obj, target);
    }
    // LLVM 19 quirks this test depends on being exercised.
    assert!(
        sgpr_quirk > 0 && padded > 0,
        "quirks not seen: {sgpr_quirk} {padded}"
    );
    assert!(directives_compared > 4000, "{directives_compared}");
}
