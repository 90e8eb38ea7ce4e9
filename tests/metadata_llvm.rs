//! The metadata model against real compilers: clang-19 output (and the
//! shared fixtures, which add llc-14's V3) must raise no error or warning,
//! and the oracle's model must agree exactly with `llvm-readobj-19 --notes`
//! on every key it prints for the top level, every kernel and every
//! argument. Also checks that LLVM writes the canonical (smallest)
//! MessagePack forms the oracle's encoder produces.

mod support;

use hsaco_oracle::metadata::{self, Context, Metadata};
use hsaco_oracle::msgpack;
use hsaco_oracle::rules::{Severity, Sink};
use hsaco_oracle::targets::{CodeObjectVersion, TargetId};
use std::path::Path;
use std::process::Command;

/// Kernels with every argument kind OpenCL C can express, printf, a
/// device-side enqueue (which adds a block-invoke kernel with
/// `.device_enqueue_symbol`), attributes, and an empty struct by value.
const SOURCE: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef struct { int a; char b; double c; } S;
typedef struct {} E;

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
__attribute__((vec_type_hint(float4)))
void scalars(__global float *restrict out, __global const int *in,
             __local float *tmp, __constant int *c, S s, char ch, short sh,
             double d, float4 v, uchar3 u3, volatile __global int *vol,
             long l, half2 h, E e, int3 i3) {
  size_t g = get_global_id(0);
  tmp[get_local_id(0)] = in[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[g] = tmp[0] + c[0] + s.a + s.b + s.c + ch + sh + d + v.x + u3.y + *vol
         + l + (float)h.x + i3.z;
  printf("value %d %f\n", ch, d);
}

__kernel __attribute__((work_group_size_hint(8, 8, 1)))
void images(read_only image2d_t img, sampler_t smp, __global float4 *o,
            write_only image2d_t wimg, read_write image3d_t rw) {
  o[0] = read_imagef(img, smp, (int2)(0, 0));
  write_imagef(wimg, (int2)(0, 0), o[1]);
  o[2] = read_imagef(rw, (int4)(0, 0, 0, 0));
}

__kernel void pipes(read_only pipe int in, write_only pipe int outp,
                    __global int *p, __local const float *restrict lr,
                    __global const int *restrict gr) {
  int x;
  read_pipe(in, &x);
  write_pipe(outp, &x);
  p[0] = x + lr[0] + gr[0];
}

__kernel void enqueue(__global int *p, queue_t q) {
  ndrange_t nd = ndrange_1D(1);
  enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, nd, ^{ p[0] = 1; });
}

__kernel void one_int(int x, __global int *p) { p[get_global_id(0)] = x; }

__kernel void empty(void) {}
"#;

/// `(processor, extra options)`; every row is built for V4, V5 and V6.
const MATRIX: &[(&str, &[&str])] = &[
    ("gfx90a", &[]),
    ("gfx90a:xnack+", &[]),
    ("gfx942", &[]),
    ("gfx1100", &[]),
    ("gfx1100", &["-cl-uniform-work-group-size"]),
    ("gfx1030", &["-mwavefrontsize64"]),
    ("gfx803", &[]),
    ("gfx906:sramecc-:xnack-", &[]),
];

/// A tiny reader for the subset of YAML `llvm-readobj` prints for
/// metadata: block maps, block sequences (also of maps, `- key: value`),
/// `[]`, plain, single- and double-quoted scalars.
#[derive(Debug, Clone, PartialEq)]
enum Yaml {
    Scalar(String),
    Seq(Vec<Yaml>),
    Map(Vec<(String, Yaml)>),
}

impl Yaml {
    fn get(&self, key: &str) -> Option<&Yaml> {
        match self {
            Yaml::Map(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

struct Lines<'a> {
    lines: Vec<(usize, &'a str)>,
    pos: usize,
}

fn parse_yaml(text: &str) -> Yaml {
    let lines = text
        .lines()
        .filter(|l| !l.trim().is_empty() && l.trim() != "---" && l.trim() != "...")
        .map(|l| (l.len() - l.trim_start().len(), l.trim_start()))
        .collect();
    let mut p = Lines { lines, pos: 0 };
    let indent = p.lines.first().map_or(0, |l| l.0);
    let y = p.block(indent);
    assert_eq!(p.pos, p.lines.len(), "unparsed YAML from line {}", p.pos);
    y
}

impl Lines<'_> {
    /// A block (map or sequence) whose lines start at `indent`.
    fn block(&mut self, indent: usize) -> Yaml {
        let Some(&(_, first)) = self.lines.get(self.pos) else {
            return Yaml::Map(vec![]);
        };
        if first.starts_with("- ") || first == "-" {
            let mut items = Vec::new();
            while let Some(&(ind, line)) = self.lines.get(self.pos) {
                if ind != indent || !line.starts_with('-') {
                    break;
                }
                let rest = line[1..].trim_start();
                let inner = ind + (line.len() - rest.len());
                if !rest.starts_with(['\'', '"']) && (rest.contains(": ") || rest.ends_with(':')) {
                    // A map whose first key is on the dash line.
                    self.lines[self.pos] = (inner, rest);
                    items.push(self.map(inner));
                } else {
                    self.pos += 1;
                    items.push(scalar(rest));
                }
            }
            Yaml::Seq(items)
        } else {
            self.map(indent)
        }
    }

    fn map(&mut self, indent: usize) -> Yaml {
        let mut entries = Vec::new();
        while let Some(&(ind, line)) = self.lines.get(self.pos) {
            if ind != indent || line.starts_with("- ") {
                break;
            }
            let (key, rest) = match line.find(": ") {
                Some(i) if !line.starts_with('\'') => (&line[..i], line[i + 2..].trim()),
                _ => (line.strip_suffix(':').expect("map line"), ""),
            };
            self.pos += 1;
            let value = if rest.is_empty() {
                match self.lines.get(self.pos) {
                    // Sequences may sit at the key's indentation.
                    Some(&(ni, nl)) if ni > indent || (ni == indent && nl.starts_with("- ")) => {
                        self.block(ni)
                    }
                    _ => Yaml::Scalar(String::new()),
                }
            } else if rest == "[]" {
                Yaml::Seq(vec![])
            } else {
                scalar(rest)
            };
            entries.push((key.to_owned(), value));
        }
        Yaml::Map(entries)
    }
}

fn scalar(s: &str) -> Yaml {
    let v = if let Some(q) = s.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        q.replace("''", "'")
    } else if let Some(q) = s.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        let mut out = String::new();
        let mut it = q.chars();
        while let Some(c) = it.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match it.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('0') => out.push('\0'),
                Some('x') => {
                    let h: String = it.by_ref().take(2).collect();
                    out.push(char::from(u8::from_str_radix(&h, 16).expect("\\x escape")));
                }
                Some(other) => out.push(other),
                None => {}
            }
        }
        out
    } else {
        s.to_owned()
    };
    Yaml::Scalar(v)
}

/// The model as the same tree: keys are the model's field names with the
/// metadata's leading dot, absent fields left out. Integer-valued flags
/// (which LLVM writes as 0/1) render as integers.
fn model_tree(v: &serde_json::Value, prefix: &str) -> Yaml {
    match v {
        serde_json::Value::Object(o) => Yaml::Map(
            o.iter()
                .filter(|(k, v)| !v.is_null() && *k != "other_keys")
                .map(|(k, v)| {
                    let flag = k == "workgroup_processor_mode" || k == "uniform_work_group_size";
                    let v = match v {
                        serde_json::Value::Bool(b) if flag => {
                            Yaml::Scalar(u8::from(*b).to_string())
                        }
                        other => model_tree(other, "."),
                    };
                    (format!("{prefix}{k}"), v)
                })
                .collect(),
        ),
        serde_json::Value::Array(a) => Yaml::Seq(a.iter().map(|e| model_tree(e, ".")).collect()),
        serde_json::Value::String(s) => Yaml::Scalar(s.clone()),
        serde_json::Value::Bool(b) => Yaml::Scalar(b.to_string()),
        serde_json::Value::Number(n) => Yaml::Scalar(n.to_string()),
        serde_json::Value::Null => Yaml::Scalar(String::new()),
    }
}

fn sorted(y: &Yaml) -> Yaml {
    match y {
        Yaml::Map(m) => {
            let mut m: Vec<_> = m.iter().map(|(k, v)| (k.clone(), sorted(v))).collect();
            m.sort_by(|a, b| a.0.cmp(&b.0));
            Yaml::Map(m)
        }
        Yaml::Seq(s) => Yaml::Seq(s.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The metadata YAML of `llvm-readobj-19 --notes`.
fn readobj_yaml(readobj: &Path, file: &Path) -> String {
    let out = Command::new(readobj)
        .arg("--notes")
        .arg(file)
        .output()
        .expect("run llvm-readobj");
    assert!(
        out.status.success(),
        "llvm-readobj failed on {}",
        file.display()
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let start =
        text.find("AMDGPU Metadata: ---").expect("metadata YAML") + "AMDGPU Metadata: ".len();
    let end = start + text[start..].find("\n...").expect("YAML end");
    text[start..end].to_owned()
}

/// Checks one object; returns the model for extra assertions.
fn check_object(readobj: &Path, file: &Path, label: &str) -> Metadata {
    let elf = std::fs::read(file).expect("read object");
    let cov = CodeObjectVersion::from_abi_version(elf[8]).expect("EI_ABIVERSION");
    let e_flags = u32::from_le_bytes(elf[0x30..0x34].try_into().unwrap());
    let target_id = TargetId::from_e_flags(e_flags, cov).ok();
    assert!(
        target_id.is_some(),
        "{label}: e_flags {e_flags:#x} do not decode"
    );
    let ctx = Context::from_e_flags(cov, e_flags);
    let notes = support::elfedit::Obj::new(elf.clone()).notes("AMDGPU", 32);
    assert_eq!(notes.len(), 1, "{label}: metadata notes");
    let (at, len) = notes[0];
    let desc = &elf[at..at + len];
    let at = at as u64;

    // LLVM writes the smallest forms, so the oracle re-encodes it exactly.
    let (value, used) = msgpack::decode(desc).expect("decodes");
    assert_eq!(used, desc.len(), "{label}");
    assert!(
        msgpack::encode(&value) == desc,
        "{label}: LLVM's MessagePack is not canonical"
    );

    let mut sink = Sink::new();
    let md = metadata::check(desc, at, &ctx, &mut sink).expect("model");
    let bad: Vec<_> = sink
        .violations
        .iter()
        .filter(|v| v.severity >= Severity::Warning)
        .collect();
    assert!(bad.is_empty(), "{label}: {bad:#?}");

    let yaml = sorted(&parse_yaml(&readobj_yaml(readobj, file)));
    let json = serde_json::to_value(&md).expect("model serialises");
    let model = sorted(&model_tree(&json, "amdhsa."));
    // Top level: amdhsa.version, .target, .printf (absent ones left out).
    for key in ["amdhsa.version", "amdhsa.target", "amdhsa.printf"] {
        let m = model.get(key).filter(|v| **v != Yaml::Seq(vec![]));
        assert_eq!(m, yaml.get(key), "{label}: {key}");
    }
    let (Some(Yaml::Seq(yk)), Some(Yaml::Seq(mk))) =
        (yaml.get("amdhsa.kernels"), model.get("amdhsa.kernels"))
    else {
        panic!("{label}: kernels missing");
    };
    assert_eq!(yk.len(), mk.len(), "{label}: kernel count");
    for (y, m) in yk.iter().zip(mk) {
        let (Yaml::Map(ym), Yaml::Map(mm)) = (y, m) else {
            panic!("{label}: kernel not a map")
        };
        let name = y.get(".name");
        // Every key on both sides, with equal values; args compared one by one.
        let ykeys: Vec<&String> = ym.iter().map(|(k, _)| k).collect();
        let mkeys: Vec<&String> = mm
            .iter()
            .filter(|(k, v)| !(k == ".args" && *v == Yaml::Seq(vec![]) && y.get(".args").is_none()))
            .map(|(k, _)| k)
            .collect();
        assert_eq!(ykeys, mkeys, "{label} {name:?}: kernel keys");
        for (k, yv) in ym {
            assert_eq!(m.get(k), Some(yv), "{label} {name:?}: {k}");
        }
    }
    md
}

fn build(clang: &Path, dir: &Path, cpu: &str, cov: u8, opts: &[&str]) -> std::path::PathBuf {
    let src = dir.join("k.cl");
    let tag: String = format!("{cpu}-{cov}-{}", opts.join("_"))
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect();
    let out = dir.join(format!("{tag}.o"));
    let o = Command::new(clang)
        .args(support::CLANG_OPENCL)
        .arg("-c")
        .arg(format!("-mcpu={cpu}"))
        .arg(format!("-mcode-object-version={cov}"))
        .args(opts)
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("run clang-19");
    assert!(
        o.status.success(),
        "clang-19 {cpu} v{cov} {opts:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

#[test]
fn clang19_metadata_matches_readobj() {
    let (Some(clang), Some(readobj)) = (
        support::require_tool("clang-19"),
        support::require_tool("llvm-readobj-19"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("k.cl"), SOURCE).expect("write source");
    let mut seen_kinds = std::collections::BTreeSet::new();
    let mut seen_kernel_keys = std::collections::BTreeSet::new();
    for (cpu, opts) in MATRIX {
        for cov in [4u8, 5, 6] {
            let obj = build(&clang, dir.path(), cpu, cov, opts);
            let label = format!("{cpu} v{cov} {opts:?}");
            let md = check_object(&readobj, &obj, &label);
            assert_eq!(md.kernels.len(), 7, "{label}");
            for k in &md.kernels {
                for a in &k.args {
                    seen_kinds.insert(a.value_kind.clone().unwrap_or_default());
                }
                let json = serde_json::to_value(k).unwrap();
                for (key, v) in json.as_object().unwrap() {
                    if !v.is_null() {
                        seen_kernel_keys.insert(key.clone());
                    }
                }
            }
            // The hidden block starts at the explicit end rounded up to 8.
            let one_int = md
                .kernels
                .iter()
                .find(|k| k.name.as_deref() == Some("one_int"))
                .unwrap();
            let first_hidden = one_int
                .args
                .iter()
                .find(|a| a.kind().is_some_and(|k| k.is_hidden()))
                .unwrap();
            assert_eq!(first_hidden.offset, Some(16), "{label}");
        }
    }
    // The matrix reaches every explicit kind and most hidden ones.
    for kind in [
        "by_value",
        "global_buffer",
        "dynamic_shared_pointer",
        "image",
        "sampler",
        "pipe",
        "queue",
        "hidden_printf_buffer",
        "hidden_hostcall_buffer",
        "hidden_default_queue",
        "hidden_completion_action",
        "hidden_multigrid_sync_arg",
        "hidden_block_count_x",
        "hidden_heap_v1",
        "hidden_dynamic_lds_size",
        "hidden_private_base",
        "hidden_shared_base",
        "hidden_queue_ptr",
    ] {
        assert!(
            seen_kinds.contains(kind),
            "no {kind} in the matrix: {seen_kinds:?}"
        );
    }
    for key in [
        "reqd_workgroup_size",
        "workgroup_size_hint",
        "vec_type_hint",
        "device_enqueue_symbol",
        "agpr_count",
        "uses_dynamic_stack",
        "workgroup_processor_mode",
        "uniform_work_group_size",
    ] {
        assert!(seen_kernel_keys.contains(key), "no {key} in the matrix");
    }
}

#[test]
fn fixtures_metadata_matches_readobj() {
    let Some(readobj) = support::require_tool("llvm-readobj-19") else {
        return;
    };
    let Some(fixtures) = support::fixtures::all() else {
        return;
    };
    assert!(!fixtures.is_empty());
    let mut covs = std::collections::BTreeSet::new();
    for f in &fixtures {
        let md = check_object(&readobj, &f.path, &f.name);
        let names: Vec<_> = md.kernels.iter().filter_map(|k| k.name.clone()).collect();
        for k in &f.kernels {
            assert!(names.contains(k), "{}: kernel {k} not in metadata", f.name);
        }
        covs.insert(f.cov);
    }
    assert!(covs.contains(&3) && covs.contains(&6), "{covs:?}");
}
