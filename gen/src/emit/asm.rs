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

use crate::kd::{self, DescriptorSpec, EXCEPTION_DIRECTIVES};
use crate::metadata::Doc;
use crate::object::{s_endpgm, CodeObject, Kernel};
use crate::target::TargetChoice;
use hsaco_oracle::targets::{CodeObjectVersion, Generation};
use std::fmt::Write as _;

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
fn directives(s: &mut String, tc: &TargetChoice, d: &DescriptorSpec) {
    let t = tc.target();
    let gen = t.generation;
    let v3 = tc.cov == CodeObjectVersion::V3;
    let afs = t.architected_flat_scratch;
    let e = &d.enables;
    let mut dir = |name: &str, v: u64| {
        let _ = writeln!(s, "\t\t{name} {v}");
    };
    let b = u64::from;
    dir(
        ".amdhsa_group_segment_fixed_size",
        d.group_segment_fixed_size.into(),
    );
    dir(
        ".amdhsa_private_segment_fixed_size",
        d.private_segment_fixed_size.into(),
    );
    dir(".amdhsa_kernarg_size", d.kernarg_size.into());
    dir(".amdhsa_user_sgpr_count", e.user_sgpr_count(t).into());
    if !afs {
        dir(".amdhsa_user_sgpr_private_segment_buffer", b(e.user_bit(0)));
    }
    dir(".amdhsa_user_sgpr_dispatch_ptr", b(e.user_bit(1)));
    dir(".amdhsa_user_sgpr_queue_ptr", b(e.user_bit(2)));
    dir(".amdhsa_user_sgpr_kernarg_segment_ptr", b(e.user_bit(3)));
    dir(".amdhsa_user_sgpr_dispatch_id", b(e.user_bit(4)));
    if !afs {
        dir(".amdhsa_user_sgpr_flat_scratch_init", b(e.user_bit(5)));
    }
    if t.kernarg_preload && (!v3 || e.preload_length != 0) {
        dir(
            ".amdhsa_user_sgpr_kernarg_preload_length",
            e.preload_length.into(),
        );
        dir(
            ".amdhsa_user_sgpr_kernarg_preload_offset",
            e.preload_offset.into(),
        );
    }
    dir(".amdhsa_user_sgpr_private_segment_size", b(e.user_bit(6)));
    if gen >= Generation::Gfx10 {
        dir(".amdhsa_wavefront_size32", b(e.is_wave32(t)));
    }
    if !v3 || d.uses_dynamic_stack {
        dir(".amdhsa_uses_dynamic_stack", b(d.uses_dynamic_stack));
    }
    if afs {
        dir(".amdhsa_enable_private_segment", b(e.private_segment));
    } else {
        dir(
            ".amdhsa_system_sgpr_private_segment_wavefront_offset",
            b(e.private_segment),
        );
    }
    dir(
        ".amdhsa_system_sgpr_workgroup_id_x",
        b(e.workgroup_ids & 1 != 0),
    );
    dir(
        ".amdhsa_system_sgpr_workgroup_id_y",
        b(e.workgroup_ids & 2 != 0),
    );
    dir(
        ".amdhsa_system_sgpr_workgroup_id_z",
        b(e.workgroup_ids & 4 != 0),
    );
    dir(".amdhsa_system_sgpr_workgroup_info", b(e.workgroup_info));
    dir(".amdhsa_system_vgpr_workitem_id", e.workitem_id.into());
    dir(".amdhsa_next_free_vgpr", d.next_free_vgpr.into());
    dir(".amdhsa_next_free_sgpr", d.next_free_sgpr.into());
    if t.accum_offset {
        dir(".amdhsa_accum_offset", d.accum_offset.into());
    }
    dir(".amdhsa_reserve_vcc", b(d.reserve_vcc));
    if kd::has_reserve_flat_scratch(t) {
        dir(".amdhsa_reserve_flat_scratch", b(d.reserve_flat_scratch));
    }
    dir(".amdhsa_float_round_mode_32", d.float_round_mode_32.into());
    dir(
        ".amdhsa_float_round_mode_16_64",
        d.float_round_mode_16_64.into(),
    );
    dir(
        ".amdhsa_float_denorm_mode_32",
        d.float_denorm_mode_32.into(),
    );
    dir(
        ".amdhsa_float_denorm_mode_16_64",
        d.float_denorm_mode_16_64.into(),
    );
    if gen <= Generation::Gfx11 {
        dir(".amdhsa_dx10_clamp", b(d.dx10_clamp));
        dir(".amdhsa_ieee_mode", b(d.ieee_mode));
    }
    if gen >= Generation::Gfx9 {
        dir(".amdhsa_fp16_overflow", b(d.fp16_overflow));
    }
    if t.accum_offset {
        dir(".amdhsa_tg_split", b(d.tg_split));
    }
    if gen >= Generation::Gfx10 {
        dir(
            ".amdhsa_workgroup_processor_mode",
            b(d.workgroup_processor_mode),
        );
        dir(".amdhsa_memory_ordered", b(d.memory_ordered));
        dir(".amdhsa_forward_progress", b(d.forward_progress));
    }
    if matches!(gen, Generation::Gfx10 | Generation::Gfx11)
        && !e.is_wave32(t)
        && (!v3 || d.shared_vgpr_count != 0)
    {
        dir(".amdhsa_shared_vgpr_count", d.shared_vgpr_count.into());
    }
    if gen >= Generation::Gfx11 && d.inst_pref_size != 0 {
        dir(".amdhsa_inst_pref_size", d.inst_pref_size.into());
    }
    if gen >= Generation::Gfx12 {
        dir(
            ".amdhsa_round_robin_scheduling",
            b(d.round_robin_scheduling),
        );
    }
    for (i, name) in EXCEPTION_DIRECTIVES.iter().enumerate() {
        dir(name, b(d.exceptions >> i & 1 != 0));
    }
    if d.uses_fields_without_directives() {
        let _ = writeln!(
            s,
            "\t\t; no directive sets: trap_on_start {} trap_on_end {} glg_en {} image_op {} disable_perf {} wgp_takeover {}",
            b(d.trap_on_start),
            b(d.trap_on_end),
            b(d.glg_en),
            b(d.image_op),
            b(d.disable_perf),
            b(d.wgp_takeover)
        );
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
