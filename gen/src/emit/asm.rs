//! LLVM assembler text for a code object: `.amdgcn_target`,
//! `.amdhsa_code_object_version`, each kernel's code and a full
//! `.amdhsa_kernel` block, and the metadata as `.amdgpu_metadata` YAML.
//!
//! `llvm-mc` assembles the text and `ld.lld -shared` links it into the
//! object [`crate::emit::elf`] writes directly (see [`llvm_mc_args`] for the
//! command line, and `tests/gen_llvm.rs`). V4 to V6 text is for
//! `llvm-mc-19`; V3 text is for `llvm-mc-14` (LLVM 19 aborts on V3), which
//! takes the version on the command line and lacks the newer directives,
//! so those are written only when they carry a non-default value.

use crate::kd::{self, DescriptorSpec};
use crate::metadata::Doc;
use crate::object::{s_endpgm, CodeObject, Kernel};
use crate::target::TargetChoice;
use hsaco_oracle::kd::KernelDescriptor;
use hsaco_oracle::layout::{self as l, BitField};
use hsaco_oracle::targets::{CodeObjectVersion, Generation, Target};
use std::fmt::{Display, Write as _};

/// Arguments for `llvm-mc` that assemble the text of `co` into an object
/// file (append the input and `-o OUTPUT`): triple, processor, features,
/// and for V3 the version flag LLVM 14 needs.
pub fn llvm_mc_args(co: &CodeObject) -> Vec<String> {
    if co.target.cov == CodeObjectVersion::V2 {
        return super::v2::llvm_mc_args(co);
    }
    let t = &co.target;
    let mut v = vec![
        "-triple=amdgcn-amd-amdhsa".to_owned(),
        format!("-mcpu={}", t.target().name),
    ];
    let mattr = t.mattr();
    if !mattr.is_empty() {
        v.push(format!("-mattr={mattr}"));
    }
    if t.cov == CodeObjectVersion::V3 {
        v.push("--amdhsa-code-object-version=3".to_owned());
    }
    v.push("-filetype=obj".to_owned());
    v
}

/// The assembler text of `co`.
pub fn write(co: &CodeObject) -> String {
    if co.target.cov == CodeObjectVersion::V2 {
        return super::v2::asm(co);
    }
    let mut s = String::with_capacity(4096);
    let tc = &co.target;
    let _ = writeln!(s, "\t.amdgcn_target \"{}\"", tc.target_id_string());
    if tc.cov >= CodeObjectVersion::V4 {
        let _ = writeln!(s, "\t.amdhsa_code_object_version {}", tc.cov.number());
    }
    for (i, k) in co.kernels.iter().enumerate() {
        kernel(&mut s, tc, k, i);
    }
    // One block per metadata note: llvm-mc writes a note for each.
    for i in 0..co.note_ranges().len() {
        s.push_str("\t.amdgpu_metadata\n---\n");
        yaml_root(&mut s, &co.note_doc(i));
        s.push_str("...\n\t.end_amdgpu_metadata\n");
    }
    s
}

fn kernel(s: &mut String, tc: &TargetChoice, k: &Kernel, index: usize) {
    let t = tc.target();
    let n = &k.name;
    let _ = write!(
        s,
        "\t.text\n\t.protected\t{n}\n\t.globl\t{n}\n\t.p2align\t8\n\t.type\t{n},@function\n{n}:\n"
    );
    if tc.cov == CodeObjectVersion::V3 {
        // V3 text is for llvm-mc-14, whose SMEM syntax differs (no SGPR
        // plus immediate offsets): only s_endpgm is written as text.
        for &w in &k.code {
            if w == s_endpgm(t) {
                s.push_str("\ts_endpgm\n");
            } else {
                let _ = writeln!(s, "\t.long\t{w:#010x}");
            }
        }
    } else if !k.text.is_empty() {
        for line in &k.text {
            let _ = writeln!(s, "\t{line}");
        }
    } else {
        crate::smem::write_code(s, t, &k.code);
    }
    let _ = write!(
        s,
        ".Lfunc_end{index}:\n\t.size\t{n}, .Lfunc_end{index}-{n}\n\t.rodata\n\t.p2align\t6\n\t.amdhsa_kernel {n}\n"
    );
    directives(s, tc, &k.descriptor);
    s.push_str("\t.end_amdhsa_kernel\n");
}

/// The `.amdhsa_*` directives of one descriptor, in the order clang writes
/// them, each only on processors whose assembler accepts it (checked with
/// llvm-mc-19: e.g. `.amdhsa_reserve_flat_scratch` "directive requires
/// gfx7+" and "is not supported with architected flat scratch").
///
/// A directive that sets a bit field takes its name from the field's row
/// in the oracle's layout table ([`layout::FIELDS`]), its value from the
/// field's bits in the descriptor [`DescriptorSpec::encode`] builds, and is
/// written only on targets that define the field; the conditions below
/// are the assembler's on top of that. The directives whose value is no
/// bit field (segment sizes, register counts the assembler granulates,
/// reserves) are written from the spec.
fn directives(s: &mut String, tc: &TargetChoice, d: &DescriptorSpec) {
    let t = tc.target();
    let v3 = tc.cov == CodeObjectVersion::V3;
    let afs = t.architected_flat_scratch;
    let mut w = Block {
        s,
        t,
        kd: d.encode(tc, 0),
    };
    w.line("group_segment_fixed_size", d.group_segment_fixed_size);
    w.line("private_segment_fixed_size", d.private_segment_fixed_size);
    w.line("kernarg_size", d.kernarg_size);
    w.field(l::user_sgpr_count_field(t));
    let [buffer, dispatch_ptr, queue_ptr, kernarg_ptr, dispatch_id, flat_scratch_init, private_size] =
        l::USER_SGPR_ENABLES;
    // Architected flat scratch has neither SGPRs, and no directive for them.
    if !afs {
        w.field(buffer);
    }
    for f in [dispatch_ptr, queue_ptr, kernarg_ptr, dispatch_id] {
        w.field(f);
    }
    if !afs {
        w.field(flat_scratch_init);
    }
    // LLVM 14 (V3 text) lacks the newer directives: written there only
    // when they carry a value.
    if !v3 || d.enables.preload_length != 0 {
        w.field(&l::KERNARG_PRELOAD_SPEC_LENGTH);
        w.field(&l::KERNARG_PRELOAD_SPEC_OFFSET);
    }
    w.field(private_size);
    // The bit exists on every target (a rule forbids it before GFX10), the
    // directive only from GFX10.
    if t.generation >= Generation::Gfx10 {
        w.field(&l::ENABLE_WAVEFRONT_SIZE32);
    }
    if !v3 || d.uses_dynamic_stack {
        w.field(&l::USES_DYNAMIC_STACK);
    }
    if afs {
        // The same bit, under the name LLVM gives it with architected
        // flat scratch (there is no wave offset SGPR).
        let v = w.kd.field(&l::ENABLE_PRIVATE_SEGMENT);
        w.line("enable_private_segment", v);
    } else {
        w.field(&l::ENABLE_PRIVATE_SEGMENT);
    }
    for f in l::WORKGROUP_IDS {
        w.field(f);
    }
    w.field(&l::ENABLE_SGPR_WORKGROUP_INFO);
    w.field(&l::ENABLE_VGPR_WORKITEM_ID);
    // The directives of the granulated fields take the register counts
    // the assembler granulates, not the fields' values.
    w.named(&l::GRANULATED_WORKITEM_VGPR_COUNT, d.next_free_vgpr);
    w.named(&l::GRANULATED_WAVEFRONT_SGPR_COUNT, d.next_free_sgpr);
    w.named(&l::ACCUM_OFFSET, d.accum_offset);
    w.line("reserve_vcc", u8::from(d.reserve_vcc));
    if kd::has_reserve_flat_scratch(t) {
        w.line("reserve_flat_scratch", u8::from(d.reserve_flat_scratch));
    }
    for f in [
        &l::FLOAT_ROUND_MODE_32,
        &l::FLOAT_ROUND_MODE_16_64,
        &l::FLOAT_DENORM_MODE_32,
        &l::FLOAT_DENORM_MODE_16_64,
        &l::ENABLE_DX10_CLAMP,
        &l::ENABLE_IEEE_MODE,
        &l::FP16_OVFL,
        &l::TG_SPLIT,
    ] {
        w.field(f);
    }
    // GFX12.5 keeps the bit (AMDHSAKernelDescriptor.h: GFX10+) but
    // llvm-mc-22 refuses the directive there ("directive unsupported on
    // gfx1250").
    if t.has_wgp_mode() {
        w.field(&l::WGP_MODE);
    }
    for f in [&l::MEM_ORDERED, &l::FWD_PROGRESS] {
        w.field(f);
    }
    // A wave32 kernel shares no VGPRs (a rule of its own).
    let shared = w.kd.field(&l::SHARED_VGPR_COUNT);
    if !d.enables.is_wave32(t) && (!v3 || shared != 0) {
        w.field(&l::SHARED_VGPR_COUNT);
    }
    // LLVM 19 lacks the directive: written only when it carries a value.
    for f in [&l::INST_PREF_SIZE_GFX11, &l::INST_PREF_SIZE_GFX12] {
        if w.kd.field(f) != 0 {
            w.field(f);
        }
    }
    w.field(&l::ENABLE_WG_RR_EN);
    for f in l::EXCEPTIONS {
        w.field(f);
    }
    if d.uses_fields_without_directives() {
        w.s.push_str("\t\t; no directive sets:");
        for f in kd::WITHOUT_DIRECTIVES {
            // 0 where the target does not define the field: its bits are
            // another field's there (DISABLE_PERF is IEEE_MODE before GFX12).
            let v = if (f.defined)(t) { w.kd.field(f) } else { 0 };
            let _ = write!(w.s, " {} {v}", f.name.to_ascii_lowercase());
        }
        w.s.push('\n');
    }
}

/// Writes the lines of one `.amdhsa_kernel` block.
struct Block<'a> {
    s: &'a mut String,
    t: &'static Target,
    /// The descriptor the block describes, as the assembler encodes it.
    kd: KernelDescriptor,
}

impl Block<'_> {
    /// `.amdhsa_NAME VALUE`.
    fn line(&mut self, name: &str, v: impl Display) {
        let _ = writeln!(self.s, "\t\t.amdhsa_{name} {v}");
    }

    /// The directive of field `f` with value `v`, on targets that define
    /// `f` (a field without a directive is never written).
    fn named(&mut self, f: &BitField, v: impl Display) {
        if let (true, Ok(name)) = ((f.defined)(self.t), f.directive) {
            self.line(name, v);
        }
    }

    /// The directive of field `f` with the value the descriptor holds in
    /// it.
    fn field(&mut self, f: &BitField) {
        let v = self.kd.field(f);
        self.named(f, v);
    }
}

/// True if LLVM's YAML reader could take `s` for a number or boolean, so
/// the string needs the `!str` tag. Quoting does not help: LLVM 19's
/// `DocNode::fromString` ignores it and tries an integer, a YAML 1.1
/// boolean (`y`, `n`, `yes`, `no`, `on`, `off`, `true`, `false` in any of
/// their capitalisations: llvm-mc-19 rejects a kernel named `n` as
/// "invalid HSA metadata") and then `strtod`. Conservative: anything
/// starting like a number, or like `inf`/`nan`, is tagged too.
fn needs_str_tag(s: &str) -> bool {
    let l = s.to_ascii_lowercase();
    let first = l.bytes().next();
    matches!(first, Some(b'0'..=b'9' | b'+' | b'-' | b'.'))
        || matches!(
            l.as_str(),
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false"
        )
        || l.starts_with("inf")
        || l.starts_with("nan")
        || s.trim() != s
}

fn yaml_str(out: &mut String, s: &str) {
    if needs_str_tag(s) {
        out.push_str("!str ");
    }
    out.push('\'');
    if s.contains('\'') {
        out.push_str(&s.replace('\'', "''"));
    } else {
        out.push_str(s);
    }
    out.push('\'');
}

fn yaml_scalar(out: &mut String, d: &Doc<'_>) {
    match d {
        Doc::Str(s) => yaml_str(out, s),
        Doc::Owned(s) => yaml_str(out, s),
        Doc::UInt(v) => {
            let _ = write!(out, "{v}");
        }
        Doc::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Doc::Map(m) if m.is_empty() => out.push_str("{}"),
        Doc::Array(a) if a.is_empty() => out.push_str("[]"),
        // Non-empty collections are written by yaml_value.
        Doc::Map(_) | Doc::Array(_) => {}
    }
}

fn is_block(d: &Doc<'_>) -> bool {
    match d {
        Doc::Map(m) => !m.is_empty(),
        Doc::Array(a) => !a.is_empty(),
        _ => false,
    }
}

fn indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

/// Writes the value of a key whose key starts at column `col`.
fn yaml_value(out: &mut String, d: &Doc<'_>, col: usize) {
    if !is_block(d) {
        out.push(' ');
        yaml_scalar(out, d);
        out.push('\n');
        return;
    }
    out.push('\n');
    match d {
        Doc::Map(m) => {
            for (k, v) in m {
                indent(out, col + 2);
                out.push_str(k);
                out.push(':');
                yaml_value(out, v, col + 2);
            }
        }
        Doc::Array(a) => {
            for item in a {
                indent(out, col + 2);
                out.push('-');
                yaml_item(out, item, col + 2);
            }
        }
        _ => {}
    }
}

/// Writes a sequence item whose `-` is at column `col`.
fn yaml_item(out: &mut String, d: &Doc<'_>, col: usize) {
    match d {
        Doc::Map(m) if !m.is_empty() => {
            for (i, (k, v)) in m.iter().enumerate() {
                if i == 0 {
                    out.push(' ');
                } else {
                    indent(out, col + 2);
                }
                out.push_str(k);
                out.push(':');
                yaml_value(out, v, col + 2);
            }
        }
        Doc::Array(a) if !a.is_empty() => {
            // A nested sequence: each element on its own line.
            out.push('\n');
            for item in a {
                indent(out, col + 2);
                out.push('-');
                yaml_item(out, item, col + 2);
            }
        }
        _ => {
            out.push(' ');
            yaml_scalar(out, d);
            out.push('\n');
        }
    }
}

fn yaml_root(out: &mut String, d: &Doc<'_>) {
    if let Doc::Map(m) = d {
        for (k, v) in m {
            out.push_str(k);
            out.push(':');
            yaml_value(out, v, 0);
        }
    }
}

/// The metadata document as YAML (what goes between `.amdgpu_metadata`
/// and `.end_amdgpu_metadata`), without the document markers.
pub fn yaml(d: &Doc<'_>) -> String {
    let mut s = String::with_capacity(2048);
    yaml_root(&mut s, d);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_layout() {
        let d = Doc::Map(vec![
            (
                "amdhsa.kernels",
                Doc::Array(vec![Doc::Map(vec![
                    (
                        ".args",
                        Doc::Array(vec![Doc::Map(vec![
                            (".offset", Doc::UInt(0)),
                            (".type_name", Doc::Str("int*")),
                        ])]),
                    ),
                    (".name", Doc::Str("k")),
                    (
                        ".reqd_workgroup_size",
                        Doc::Array(vec![Doc::UInt(1), Doc::UInt(2)]),
                    ),
                    (".uses_dynamic_stack", Doc::Bool(false)),
                ])]),
            ),
            ("amdhsa.printf", Doc::Array(vec![Doc::Str("1:0:it's")])),
            ("amdhsa.version", Doc::Array(vec![])),
        ]);
        let expected = "amdhsa.kernels:
  - .args:
      - .offset: 0
        .type_name: 'int*'
    .name: 'k'
    .reqd_workgroup_size:
      - 1
      - 2
    .uses_dynamic_stack: false
amdhsa.printf:
  - !str '1:0:it''s'
amdhsa.version: []
";
        assert_eq!(yaml(&d), expected);
    }

    #[test]
    fn str_tags() {
        for s in [
            "1", "1:0:%d", "true", "inf", "NaN", "-x", ".5", " a", "n", "Y", "OFF", "no",
        ] {
            assert!(needs_str_tag(s), "{s}");
        }
        for s in ["a", "int*", "OpenCL C", "k_inf", "struct S", "nn", "null"] {
            assert!(!needs_str_tag(s), "{s}");
        }
    }
}
