//! Code object V2 notes and YAML metadata against real LLVM 14 output.
//!
//! LLVM 14 IR kernels (the shared `tests/fixtures/llvm14/kernels.ll` and
//! the OpenCL-style modules below: images, samplers, pipes, queues,
//! by-value structs and vectors, byref structs, local pointers, every
//! hidden argument kind, printf, attributes) are compiled by `llc-14
//! --amdhsa-code-object-version=2` for the processors LLVM 14 supports at
//! V2, with and without xnack, and linked by `ld.lld-19`. For every object:
//!
//! - the oracle's V2 note and metadata checks report no error and no
//!   warning;
//! - every note's owner, size and type, and the decoded code object
//!   version, ISA version and ISA name, equal what `llvm-readobj-19
//!   --notes` prints;
//! - the typed metadata model agrees key by key with the YAML text
//!   `llvm-readobj-19` prints, read here by an independent line-based
//!   reader of LLVM's output format.

mod support;

use hsaco_oracle::elf::Elf;
use hsaco_oracle::metadata_v2::{self, MetadataV2};
use hsaco_oracle::notes::{self, Note};
use hsaco_oracle::rules::{Severity, Sink};
use hsaco_oracle::targets::{CodeObjectVersion, TargetId};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// OpenCL-style kernels: every explicit argument kind LLVM's V2 streamer
/// distinguishes, with the OpenCL metadata clang 14 attaches.
const KINDS_LL: &str = r#"
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7"
target triple = "amdgcn-amd-amdhsa"

%struct.S = type { i32, double, i8 }
%opencl.image2d_ro_t = type opaque
%opencl.image3d_wo_t = type opaque
%opencl.sampler_t = type opaque
%opencl.pipe_ro_t = type opaque
%opencl.queue_t = type opaque

define amdgpu_kernel void @kinds(%opencl.image2d_ro_t addrspace(4)* %img, %opencl.sampler_t addrspace(4)* %smp, %opencl.image3d_wo_t addrspace(4)* %img3, %opencl.pipe_ro_t addrspace(1)* %p, %opencl.queue_t addrspace(1)* %q, i32 addrspace(1)* noalias readonly %ro, float addrspace(3)* align 16 %lds, %struct.S %s, i8 %c, <3 x i32> %v3, half %h, %struct.S addrspace(4)* byref(%struct.S) align 16 %br) #0 !kernel_arg_addr_space !1 !kernel_arg_access_qual !2 !kernel_arg_type !3 !kernel_arg_base_type !4 !kernel_arg_type_qual !5 !reqd_work_group_size !6 !work_group_size_hint !7 !vec_type_hint !8 {
  ret void
}

define amdgpu_kernel void @quals(i32 addrspace(1)* %out, i8 %b) #1 !kernel_arg_addr_space !11 !kernel_arg_access_qual !12 !kernel_arg_type !13 !kernel_arg_base_type !13 !kernel_arg_type_qual !14 {
  store i32 1, i32 addrspace(1)* %out
  ret void
}

define amdgpu_kernel void @empty() #1 {
  ret void
}

attributes #0 = { nounwind "runtime-handle"="kinds.runtime_handle" "amdgpu-flat-work-group-size"="1,256" }
attributes #1 = { nounwind }

!opencl.ocl.version = !{!0}
!0 = !{i32 2, i32 0}
!1 = !{i32 2, i32 2, i32 2, i32 1, i32 1, i32 1, i32 3, i32 0, i32 0, i32 0, i32 0, i32 0}
!2 = !{!"read_only", !"none", !"write_only", !"read_only", !"none", !"none", !"none", !"none", !"none", !"none", !"none", !"none"}
!3 = !{!"image2d_t", !"sampler_t", !"image3d_t", !"int", !"queue_t", !"int*", !"float*", !"struct S", !"char", !"int3", !"half", !"struct S"}
!4 = !{!"image2d_t", !"sampler_t", !"image3d_t", !"int", !"queue_t", !"int*", !"float*", !"struct S", !"char", !"int __attribute__((ext_vector_type(3)))", !"half", !"struct S"}
!5 = !{!"", !"", !"", !"pipe", !"", !"const restrict", !"volatile", !"", !"", !"", !"", !""}
!6 = !{i32 64, i32 2, i32 1}
!7 = !{i32 32, i32 4, i32 2}
!8 = !{<4 x float> undef, i32 0}
!11 = !{i32 1, i32 0}
!12 = !{!"none", !"none"}
!13 = !{!"int*", !"uchar"}
!14 = !{!"", !""}
"#;

/// Hidden arguments with a printf buffer (and a printf format holding a
/// real newline, which LLVM writes double-quoted).
const PRINTF_LL: &str = r#"
target triple = "amdgcn-amd-amdhsa"
declare i8 addrspace(4)* @llvm.amdgcn.implicitarg.ptr()
define amdgpu_kernel void @with_printf(i32 addrspace(1)* %out, i8 %b) #0 {
  %p = call i8 addrspace(4)* @llvm.amdgcn.implicitarg.ptr()
  %v = load i8, i8 addrspace(4)* %p
  %z = zext i8 %v to i32
  store i32 %z, i32 addrspace(1)* %out
  ret void
}
define amdgpu_kernel void @no_hidden(i16 %b) #1 {
  ret void
}
attributes #0 = { nounwind "amdgpu-implicitarg-num-bytes"="56" }
attributes #1 = { nounwind "amdgpu-implicitarg-num-bytes"="48" }
!llvm.printf.fmts = !{!0, !1}
!0 = !{!"1:1:4:%d\0A"}
!1 = !{!"2:2:4:8:it's %d, \22%s\22"}
"#;

/// Hostcall, device enqueue and a 32-byte hidden block.
const HOSTCALL_LL: &str = r#"
target triple = "amdgcn-amd-amdhsa"
declare i8 addrspace(4)* @llvm.amdgcn.implicitarg.ptr()
declare void @__ockl_hostcall_internal()
define amdgpu_kernel void @hostcall(i32 addrspace(1)* %out) #0 {
  %p = call i8 addrspace(4)* @llvm.amdgcn.implicitarg.ptr()
  %v = load i8, i8 addrspace(4)* %p
  %z = zext i8 %v to i32
  store i32 %z, i32 addrspace(1)* %out
  ret void
}
define amdgpu_kernel void @enqueue(i64 %x, i8 %y) #1 {
  %p = call i8 addrspace(4)* @llvm.amdgcn.implicitarg.ptr()
  %v = load volatile i8, i8 addrspace(4)* %p
  ret void
}
define amdgpu_kernel void @hidden32(i16 %x) #2 {
  %p = call i8 addrspace(4)* @llvm.amdgcn.implicitarg.ptr()
  %v = load volatile i8, i8 addrspace(4)* %p
  ret void
}
attributes #0 = { nounwind "amdgpu-implicitarg-num-bytes"="56" }
attributes #1 = { nounwind "amdgpu-implicitarg-num-bytes"="56" "calls-enqueue-kernel" }
attributes #2 = { nounwind "amdgpu-implicitarg-num-bytes"="32" }
"#;

/// No kernel at all: LLVM then writes no `Kernels` key.
const NO_KERNELS_LL: &str = r#"
target triple = "amdgcn-amd-amdhsa"
define void @helper() {
  ret void
}
"#;

/// Processors and options: every family LLVM 14 compiles V2 for, xnack on
/// and off where it can be chosen, and xnack forced on gfx803 (which has
/// no xnack bit, yet LLVM writes IsXNACKEnabled).
const MATRIX: &[(&str, &[&str])] = &[
    ("gfx600", &[]),
    ("gfx701", &[]),
    ("gfx801", &[]),
    ("gfx803", &[]),
    ("gfx803", &["-mattr=+xnack"]),
    ("gfx810", &[]),
    ("gfx900", &[]),
    ("gfx900", &["-mattr=-xnack"]),
    ("gfx906", &[]),
    ("gfx906", &["-mattr=-xnack,-sramecc"]),
    ("gfx90c", &["-mattr=-xnack"]),
];

struct Tools {
    llc: PathBuf,
    lld: PathBuf,
    readobj: PathBuf,
}

fn tools() -> Option<Tools> {
    Some(Tools {
        llc: support::require_tool("llc-14")?,
        lld: support::require_tool("ld.lld-19")?,
        readobj: support::require_tool("llvm-readobj-19")?,
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

/// One object to check, with the kernels its source defines.
struct Object {
    name: String,
    path: PathBuf,
    kernels: Vec<String>,
}

/// Compiles every source for every matrix row into `dir`; links each
/// object into a shared object as well.
fn build(t: &Tools, dir: &Path) -> Vec<Object> {
    let shared = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llvm14/kernels.ll"),
    )
    .expect("tests/fixtures/llvm14/kernels.ll");
    let sources: [(&str, &str); 5] = [
        ("kernels", &shared),
        ("kinds", KINDS_LL),
        ("printf", PRINTF_LL),
        ("hostcall", HOSTCALL_LL),
        ("nokernels", NO_KERNELS_LL),
    ];
    let mut out = Vec::new();
    for (stem, text) in sources {
        let src = dir.join(format!("{stem}.ll"));
        std::fs::write(&src, text).unwrap();
        let kernels = support::fixtures::kernel_names(text);
        for (i, (cpu, opts)) in MATRIX.iter().enumerate() {
            let obj = dir.join(format!("{stem}-{i}-{cpu}.o"));
            run(Command::new(&t.llc)
                .arg("-mtriple=amdgcn-amd-amdhsa")
                .arg(format!("-mcpu={cpu}"))
                .arg("--amdhsa-code-object-version=2")
                .arg("-O2")
                .args(*opts)
                .arg("-filetype=obj")
                .arg(&src)
                .arg("-o")
                .arg(&obj));
            let so = obj.with_extension("hsaco");
            run(Command::new(&t.lld)
                .arg("-shared")
                .arg(&obj)
                .arg("-o")
                .arg(&so));
            for path in [obj, so] {
                out.push(Object {
                    name: format!("{cpu} {} {}", opts.join(" "), path.display()),
                    path,
                    kernels: kernels.clone(),
                });
            }
        }
    }
    out
}

/// What the oracle's V2 checks see in one object.
struct Oracle {
    sink: Sink,
    notes: Vec<(String, u32, Vec<u8>)>,
    code_object_version: Option<(u32, u32)>,
    isa: Option<(String, String, [u32; 3])>,
    isa_name: Option<String>,
    metadata_text: Option<Vec<u8>>,
    metadata: Option<MetadataV2>,
}

fn oracle(data: &[u8]) -> Oracle {
    let mut sink = Sink::new();
    let elf = Elf::parse(data, &mut sink).expect("ELF");
    assert_eq!(elf.cov, Some(CodeObjectVersion::V2));
    let all: Vec<Note> = notes::read(&elf, &mut sink);
    let _ = notes::check_set(&all, CodeObjectVersion::V2, &mut sink);
    let v2 = notes::check_v2(&all, elf.header.flags, &mut sink);
    let ctx = metadata_v2::Context {
        target_id: TargetId::from_e_flags(elf.header.flags, CodeObjectVersion::V2).ok(),
    };
    let metadata = v2
        .metadata
        .and_then(|n| metadata_v2::check(n.desc, n.desc_offset, &ctx, &mut sink));
    Oracle {
        notes: all
            .iter()
            .map(|n| (n.name.clone(), n.n_type, n.desc.to_vec()))
            .collect(),
        code_object_version: v2.code_object_version.map(|v| (v.major, v.minor)),
        isa: v2
            .isa_version
            .as_ref()
            .map(|i| (i.vendor_name(), i.architecture_name(), i.version())),
        isa_name: v2.isa_name.clone(),
        metadata_text: v2.metadata.map(|n| n.desc.to_vec()),
        metadata,
        sink,
    }
}

/// One note as `llvm-readobj --notes` prints it.
#[derive(Debug)]
struct ReadobjNote {
    owner: String,
    size: usize,
    type_name: String,
    /// The decoded value: the text after `<Description>: `, with the
    /// following lines of a multi-line value.
    value: String,
}

fn readobj_notes(text: &str) -> Vec<ReadobjNote> {
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() != "{" {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let close = format!("{}}}", " ".repeat(indent));
        let mut fields: Vec<String> = Vec::new();
        for l in lines.by_ref() {
            if l == close {
                break;
            }
            fields.push(l.to_owned());
        }
        let field = |name: &str| {
            fields
                .iter()
                .find_map(|f| f.trim_start().strip_prefix(name))
                .unwrap_or_default()
                .to_owned()
        };
        let owner = field("Owner: ");
        let size = usize::from_str_radix(field("Data size: 0x").as_str(), 16).unwrap();
        let type_line = field("Type: ");
        let type_name = type_line.split(' ').next().unwrap_or_default().to_owned();
        // The value starts on the fourth line, after "<Description>: ".
        let value = match fields.get(3) {
            Some(first) => {
                let desc = type_line
                    .split_once(" (")
                    .map(|(_, d)| d.trim_end_matches(')'))
                    .unwrap_or_default();
                let head = first
                    .trim_start()
                    .strip_prefix(&format!("{desc}: "))
                    .unwrap_or_else(|| panic!("unexpected value line {first:?}"));
                let mut v = head.to_owned();
                for l in &fields[4..] {
                    v.push('\n');
                    v.push_str(l);
                }
                v
            }
            None => String::new(),
        };
        out.push(ReadobjNote {
            owner,
            size,
            type_name,
            value,
        });
    }
    out
}

fn type_name(t: u32) -> &'static str {
    match t {
        1 => "NT_AMD_HSA_CODE_OBJECT_VERSION",
        2 => "NT_AMD_HSA_HSAIL",
        3 => "NT_AMD_HSA_ISA_VERSION",
        10 => "NT_AMD_HSA_METADATA",
        11 => "NT_AMD_HSA_ISA_NAME",
        12 => "NT_AMD_PAL_METADATA",
        _ => "?",
    }
}

// ---- LLVM's YAML output, read line by line --------------------------------

/// A scalar as LLVM's YAML writer prints it: plain, single-quoted, or
/// double-quoted with backslash escapes; flow sequences become their
/// elements joined by commas.
fn llvm_scalar(v: &str) -> String {
    let v = v.trim();
    if let Some(inner) = v.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        return inner
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(llvm_scalar)
            .collect::<Vec<_>>()
            .join(",");
    }
    if let Some(inner) = v.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return inner.replace("''", "'");
    }
    if let Some(inner) = v.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                other => panic!("escape {other:?} in {v:?}"),
            }
        }
        return out;
    }
    v.to_owned()
}

#[derive(Debug)]
enum Frame {
    Map {
        col: usize,
        path: String,
    },
    Seq {
        col: usize,
        path: String,
        next: usize,
    },
}

/// Flattens LLVM-written YAML into `path = value` pairs, paths like
/// `Kernels/0/Args/2/ValueKind`. Handles exactly LLVM's output shape:
/// block mappings, `- ` sequence items indented under their key, flow
/// sequences of scalars, one scalar per line.
fn flatten_llvm_yaml(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![Frame::Map {
        col: 0,
        path: String::new(),
    }];
    let mut pending: Option<String> = None;
    for line in text.lines() {
        if line == "---" || line == "..." || line.trim().is_empty() {
            continue;
        }
        let col = line.len() - line.trim_start().len();
        let mut rest = line.trim_start();
        let mut key_col = col;
        if rest == "-" || rest.starts_with("- ") {
            if let Some(p) = pending.take() {
                stack.push(Frame::Seq {
                    col,
                    path: p,
                    next: 0,
                });
            }
            while matches!(stack.last(), Some(Frame::Map { col: c, .. }) if *c > col)
                || matches!(stack.last(), Some(Frame::Seq { col: c, .. }) if *c > col)
            {
                stack.pop();
            }
            let item = match stack.last_mut() {
                Some(Frame::Seq { col: c, path, next }) if *c == col => {
                    let item = format!("{path}/{next}");
                    *next += 1;
                    item
                }
                other => panic!("sequence item without a sequence: {other:?} at {line:?}"),
            };
            rest = rest.get(2..).unwrap_or_default();
            key_col = col + 2;
            match rest.split_once(':') {
                Some((k, _)) if !rest.starts_with(['\'', '"']) && !k.contains(' ') => {
                    stack.push(Frame::Map {
                        col: key_col,
                        path: item,
                    });
                }
                _ => {
                    out.insert(item, llvm_scalar(rest));
                    continue;
                }
            }
        } else if let Some(p) = pending.take() {
            stack.push(Frame::Map { col, path: p });
        }
        while matches!(stack.last(), Some(Frame::Map { col: c, .. }) | Some(Frame::Seq { col: c, .. }) if *c > key_col)
        {
            stack.pop();
        }
        let (key, value) = rest
            .split_once(':')
            .unwrap_or_else(|| panic!("not a key line: {line:?}"));
        let path = match stack.last() {
            Some(Frame::Map { col: c, path }) if *c == key_col => {
                if path.is_empty() {
                    key.to_owned()
                } else {
                    format!("{path}/{key}")
                }
            }
            other => panic!("key without a mapping: {other:?} at {line:?}"),
        };
        if value.trim().is_empty() {
            pending = Some(path);
        } else {
            out.insert(path, llvm_scalar(value));
        }
    }
    out
}

/// The typed model as `path = value` pairs, with LLVM's key names.
fn flatten_model(md: &MetadataV2) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let ints = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    if let Some(v) = &md.version {
        out.insert("Version".to_owned(), ints(v));
    }
    for (i, p) in md.printf.iter().enumerate() {
        out.insert(format!("Printf/{i}"), p.clone());
    }
    for (ki, k) in md.kernels.iter().enumerate() {
        let kp = format!("Kernels/{ki}");
        let mut put = |key: &str, v: Option<String>| {
            if let Some(v) = v {
                out.insert(format!("{kp}/{key}"), v);
            }
        };
        put("Name", k.name.clone());
        put("SymbolName", k.symbol_name.clone());
        put("Language", k.language.clone());
        put("LanguageVersion", k.language_version.as_deref().map(ints));
        if let Some(a) = &k.attrs {
            put(
                "Attrs/ReqdWorkGroupSize",
                a.reqd_work_group_size.as_deref().map(ints),
            );
            put(
                "Attrs/WorkGroupSizeHint",
                a.work_group_size_hint.as_deref().map(ints),
            );
            put("Attrs/VecTypeHint", a.vec_type_hint.clone());
            put("Attrs/RuntimeHandle", a.runtime_handle.clone());
        }
        for (ai, a) in k.args.iter().enumerate() {
            let s = |x: Option<u64>| x.map(|v| v.to_string());
            let b = |x: Option<bool>| x.map(|v| v.to_string());
            let ap = format!("Args/{ai}");
            put(&format!("{ap}/Name"), a.name.clone());
            put(&format!("{ap}/TypeName"), a.type_name.clone());
            put(&format!("{ap}/Size"), s(a.size));
            put(&format!("{ap}/Align"), s(a.align));
            put(&format!("{ap}/ValueKind"), a.value_kind.clone());
            put(&format!("{ap}/ValueType"), a.value_type.clone());
            put(&format!("{ap}/PointeeAlign"), s(a.pointee_align));
            put(&format!("{ap}/AddrSpaceQual"), a.addr_space_qual.clone());
            put(&format!("{ap}/AccQual"), a.acc_qual.clone());
            put(&format!("{ap}/ActualAccQual"), a.actual_acc_qual.clone());
            put(&format!("{ap}/IsConst"), b(a.is_const));
            put(&format!("{ap}/IsRestrict"), b(a.is_restrict));
            put(&format!("{ap}/IsVolatile"), b(a.is_volatile));
            put(&format!("{ap}/IsPipe"), b(a.is_pipe));
        }
        if let Some(c) = &k.code_props {
            let s = |x: Option<u64>| x.map(|v| v.to_string());
            let b = |x: Option<bool>| x.map(|v| v.to_string());
            put("CodeProps/KernargSegmentSize", s(c.kernarg_segment_size));
            put(
                "CodeProps/GroupSegmentFixedSize",
                s(c.group_segment_fixed_size),
            );
            put(
                "CodeProps/PrivateSegmentFixedSize",
                s(c.private_segment_fixed_size),
            );
            put("CodeProps/KernargSegmentAlign", s(c.kernarg_segment_align));
            put("CodeProps/WavefrontSize", s(c.wavefront_size));
            put("CodeProps/NumSGPRs", s(c.num_sgprs));
            put("CodeProps/NumVGPRs", s(c.num_vgprs));
            put(
                "CodeProps/MaxFlatWorkGroupSize",
                s(c.max_flat_work_group_size),
            );
            put("CodeProps/IsDynamicCallStack", b(c.is_dynamic_call_stack));
            put("CodeProps/IsXNACKEnabled", b(c.is_xnack_enabled));
            put("CodeProps/NumSpilledSGPRs", s(c.num_spilled_sgprs));
            put("CodeProps/NumSpilledVGPRs", s(c.num_spilled_vgprs));
        }
        if let Some(d) = &k.debug_props {
            let s = |x: Option<u64>| x.map(|v| v.to_string());
            put(
                "DebugProps/DebuggerABIVersion",
                d.debugger_abi_version.as_deref().map(ints),
            );
            put("DebugProps/ReservedNumVGPRs", s(d.reserved_num_vgprs));
            put("DebugProps/ReservedFirstVGPR", s(d.reserved_first_vgpr));
            put(
                "DebugProps/PrivateSegmentBufferSGPR",
                s(d.private_segment_buffer_sgpr),
            );
            put(
                "DebugProps/WavefrontPrivateSegmentOffsetSGPR",
                s(d.wavefront_private_segment_offset_sgpr),
            );
        }
    }
    out
}

#[test]
fn llc14_v2_objects_are_clean_and_agree_with_readobj() {
    let Some(t) = tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut objects = build(&t, dir.path());
    // The shared V2 fixtures (built elsewhere) too, when available.
    if let Some(fixtures) = support::fixtures::v2() {
        objects.extend(fixtures.into_iter().map(|f| Object {
            name: f.name,
            path: f.path,
            kernels: f.kernels,
        }));
    }
    let mut checked = 0;
    let mut args_seen = std::collections::BTreeSet::new();
    let mut keys_seen = std::collections::BTreeSet::new();
    for obj in &objects {
        let data = std::fs::read(&obj.path).unwrap();
        let o = oracle(&data);
        let bad: Vec<_> = o
            .sink
            .violations
            .iter()
            .filter(|v| v.severity >= Severity::Warning)
            .collect();
        assert!(bad.is_empty(), "{}: {bad:#?}", obj.name);

        let listing = run(Command::new(&t.readobj).arg("--notes").arg(&obj.path));
        let ro = readobj_notes(&listing);
        assert_eq!(ro.len(), o.notes.len(), "{}: {listing}", obj.name);
        for (r, (owner, n_type, desc)) in ro.iter().zip(&o.notes) {
            assert_eq!(&r.owner, owner, "{}", obj.name);
            assert_eq!(r.size, desc.len(), "{}", obj.name);
            assert_eq!(r.type_name, type_name(*n_type), "{}", obj.name);
            let expect = match *n_type {
                1 => {
                    let (major, minor) = o.code_object_version.unwrap();
                    format!("[Major: {major}, Minor: {minor}]")
                }
                3 => {
                    let (vendor, arch, v) = o.isa.clone().unwrap();
                    format!(
                        "[Vendor: {vendor}, Architecture: {arch}, Major: {}, Minor: {}, Stepping: {}]",
                        v[0], v[1], v[2]
                    )
                }
                11 => o.isa_name.clone().unwrap(),
                // readobj prints all but the last byte (it assumes a NUL;
                // LLVM ends the text with a newline instead).
                10 => {
                    let text = o.metadata_text.clone().unwrap();
                    assert_eq!(text.last(), Some(&b'\n'), "{}", obj.name);
                    String::from_utf8(text[..text.len() - 1].to_vec()).unwrap()
                }
                other => panic!("{}: unexpected note type {other}", obj.name),
            };
            assert_eq!(r.value, expect, "{}", obj.name);
        }

        let md = o.metadata.as_ref().expect("metadata model");
        let names: Vec<_> = md.kernels.iter().filter_map(|k| k.name.clone()).collect();
        assert_eq!(names, obj.kernels, "{}", obj.name);
        let yaml_text = &ro
            .iter()
            .find(|r| r.type_name == "NT_AMD_HSA_METADATA")
            .unwrap()
            .value;
        let from_readobj = flatten_llvm_yaml(yaml_text);
        let from_model = flatten_model(md);
        assert_eq!(from_model, from_readobj, "{}", obj.name);
        for k in &md.kernels {
            for a in &k.args {
                args_seen.insert(a.value_kind.clone().unwrap_or_default());
            }
        }
        keys_seen.extend(from_readobj.keys().map(|k| {
            k.split('/')
                .filter(|p| !p.chars().all(|c| c.is_ascii_digit()))
                .collect::<Vec<_>>()
                .join("/")
        }));
        checked += 1;
    }
    // The matrix reaches every value kind LLVM 14 writes, and the keys
    // beyond the basics.
    let kinds: Vec<&str> = metadata_v2::VALUE_KINDS.iter().map(|(n, _)| *n).collect();
    for k in kinds {
        assert!(args_seen.contains(k), "no object has a {k} argument");
    }
    for key in [
        "Printf",
        "Kernels/Language",
        "Kernels/LanguageVersion",
        "Kernels/Attrs/ReqdWorkGroupSize",
        "Kernels/Attrs/WorkGroupSizeHint",
        "Kernels/Attrs/VecTypeHint",
        "Kernels/Attrs/RuntimeHandle",
        "Kernels/Args/TypeName",
        "Kernels/Args/PointeeAlign",
        "Kernels/Args/AddrSpaceQual",
        "Kernels/Args/AccQual",
        "Kernels/Args/IsConst",
        "Kernels/Args/IsRestrict",
        "Kernels/Args/IsVolatile",
        "Kernels/Args/IsPipe",
        "Kernels/CodeProps/NumSGPRs",
        "Kernels/CodeProps/IsXNACKEnabled",
    ] {
        assert!(keys_seen.contains(key), "no object has {key}");
    }
    assert!(checked >= MATRIX.len() * 10, "{checked}");
    eprintln!("checked {checked} code objects V2");
}

#[test]
fn computed_offsets_match_the_kernarg_segment_llvm_allocates() {
    let Some(t) = tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("kinds.ll");
    std::fs::write(&src, KINDS_LL).unwrap();
    let obj = dir.path().join("kinds.o");
    run(Command::new(&t.llc)
        .args([
            "-mtriple=amdgcn-amd-amdhsa",
            "-mcpu=gfx803",
            "--amdhsa-code-object-version=2",
            "-filetype=obj",
        ])
        .arg(&src)
        .arg("-o")
        .arg(&obj));
    let o = oracle(&std::fs::read(&obj).unwrap());
    let md = o.metadata.unwrap();
    let k = md.kernel_for_symbol("kinds").unwrap();
    let offsets: Vec<u64> = k.args.iter().map(|a| a.offset.unwrap()).collect();
    // image, sampler, image, pipe, queue, global, local (4 bytes), struct
    // (align 8), char, int3 (align 16), half, byref struct (align 16).
    assert_eq!(offsets, [0, 8, 16, 24, 32, 40, 48, 56, 80, 96, 112, 128]);
    let end = offsets.last().unwrap() + k.args.last().unwrap().size.unwrap();
    assert_eq!(k.effective_code_props().kernarg_segment_size, end);
    assert_eq!(k.effective_code_props().kernarg_segment_align, 16);
}
