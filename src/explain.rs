//! The `explain` command: the ABI view of a code object, for people.

use crate::input;
use hsaco_oracle::check::{check_object, KernelReport, ObjectReport};
use hsaco_oracle::container;
use hsaco_oracle::metadata::{Kernel, Metadata};
use hsaco_oracle::sgpr::InitialState;
use hsaco_oracle::targets::TargetId;
use std::fmt::Write as _;
use std::path::Path;

/// Runs `explain`; returns the exit status (0, or 2 if the file could not
/// be read or holds no code object).
pub fn run(path: &Path, member: Option<&str>) -> u8 {
    let bytes = match input::map(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("hsaco-conform explain: {e}");
            return 2;
        }
    };
    let scan = container::scan(&bytes);
    for e in &scan.errors {
        eprintln!("hsaco-conform explain: {}: {e}", path.display());
    }
    if scan.not_a_code_object {
        eprintln!(
            "hsaco-conform explain: {}: not a code object, offload bundle, or ELF file with a .hip_fatbin section",
            path.display()
        );
        return 2;
    }
    let chosen: Vec<_> = scan
        .members
        .iter()
        .filter(|m| member.is_none_or(|want| m.name.as_deref().is_some_and(|n| n.contains(want))))
        .collect();
    if chosen.is_empty() {
        eprintln!(
            "hsaco-conform explain: {}: no code object matches",
            path.display()
        );
        if !scan.members.is_empty() {
            eprintln!("members are:");
            for m in &scan.members {
                eprintln!("  {}", m.name.as_deref().unwrap_or("(plain code object)"));
            }
        }
        return 2;
    }
    let mut out = String::new();
    for m in chosen {
        let title = match &m.name {
            Some(n) => format!("{} [{n}]", path.display()),
            None => path.display().to_string(),
        };
        let r = check_object(m.data);
        render(&mut out, &title, &r);
    }
    print!("{out}");
    if scan.errors.is_empty() {
        0
    } else {
        2
    }
}

/// Renders one object's view.
pub fn render(out: &mut String, title: &str, r: &ObjectReport) {
    let _ = writeln!(out, "{title}");
    let _ = writeln!(out, "{}", "=".repeat(title.chars().count().min(100)));
    let cov = r
        .code_object_version
        .map_or("unknown".to_owned(), |v| format!("V{v}"));
    let _ = writeln!(
        out,
        "code object {cov}, {}, target {}",
        r.elf_type.as_deref().unwrap_or("unreadable"),
        r.target.as_deref().unwrap_or("unknown")
    );
    if let Some(id) = r.target.as_deref().and_then(|t| TargetId::parse(t).ok()) {
        target_line(out, &id);
    }
    if r.code_object_version == Some(2) {
        let _ = writeln!(
            out,
            "code object V2 (amd_kernel_code_t, YAML metadata) is not modelled yet: only the ELF and note rules were checked"
        );
    }
    if let Some(md) = &r.metadata {
        metadata_line(out, md);
    }
    for k in &r.kernels {
        kernel(out, k);
    }
    let _ = writeln!(out);
    if r.violations.is_empty() {
        let _ = writeln!(out, "no violations");
    } else {
        let _ = writeln!(out, "violations:");
        for v in &r.violations {
            let k = v
                .kernel
                .as_deref()
                .map_or(String::new(), |k| format!(" [{k}]"));
            let _ = writeln!(
                out,
                "  {:<7} {}{k}: {}",
                v.severity.to_string(),
                v.rule.id,
                v.message
            );
        }
    }
    let _ = writeln!(out);
}

fn target_line(out: &mut String, id: &TargetId) {
    let t = id.target;
    let mut feats = Vec::new();
    feats.push(format!("mach {:#04x}", t.mach));
    feats.push(format!("{:?}", t.generation).to_uppercase());
    let waves = match (t.wave32, t.wave64) {
        (true, true) => "wave32 and wave64",
        (true, false) => "wave32",
        _ => "wave64",
    };
    feats.push(waves.to_owned());
    feats.push(format!("xnack {}", id.xnack));
    feats.push(format!("sramecc {}", id.sramecc));
    if t.architected_flat_scratch {
        feats.push("architected flat scratch".to_owned());
    }
    if t.kernarg_preload {
        feats.push("kernarg preload".to_owned());
    }
    if let Some(g) = t.generic {
        feats.push(format!("covered by {g}"));
    }
    if t.is_generic {
        feats.push("generic target".to_owned());
    }
    let _ = writeln!(out, "  {}", feats.join(", "));
}

fn metadata_line(out: &mut String, md: &Metadata) {
    let v = md
        .version
        .map_or("missing".to_owned(), |[a, b]| format!("{a}.{b}"));
    let _ = writeln!(
        out,
        "metadata: amdhsa.version {v}, amdhsa.target {}, {} kernel(s){}",
        md.target.as_deref().unwrap_or("(absent)"),
        md.kernels.len(),
        if md.printf.is_empty() {
            String::new()
        } else {
            format!(", {} printf format(s)", md.printf.len())
        }
    );
}

fn kernel(out: &mut String, k: &KernelReport) {
    let _ = writeln!(out);
    let at = k.descriptor_offset.map_or("not readable".to_owned(), |o| {
        format!("at file offset {o:#x}")
    });
    let _ = writeln!(out, "kernel {} (descriptor {at})", k.name);
    if !k.fields.is_empty() {
        let _ = writeln!(out, "  descriptor:");
        let w = k.fields.iter().map(|f| f.name.len()).max().unwrap_or(0);
        for f in &k.fields {
            let _ = writeln!(out, "    {:<w$}  {:>10}  {}", f.name, f.value, f.meaning);
        }
    }
    if let Some(m) = &k.metadata {
        kernel_metadata(out, m);
    }
    if let Some(s) = &k.initial_state {
        initial_state(out, s);
    }
}

fn kernel_metadata(out: &mut String, m: &Kernel) {
    let _ = writeln!(out, "  metadata:");
    let mut line = |key: &str, v: Option<String>| {
        if let Some(v) = v {
            let _ = writeln!(out, "    {key:<28} {v}");
        }
    };
    line(".symbol", m.symbol.clone());
    line(".language", m.language.clone());
    line(
        ".kernarg_segment_size",
        m.kernarg_segment_size.map(|v| v.to_string()),
    );
    line(
        ".kernarg_segment_align",
        m.kernarg_segment_align.map(|v| v.to_string()),
    );
    line(
        ".group_segment_fixed_size",
        m.group_segment_fixed_size.map(|v| v.to_string()),
    );
    line(
        ".private_segment_fixed_size",
        m.private_segment_fixed_size.map(|v| v.to_string()),
    );
    line(".wavefront_size", m.wavefront_size.map(|v| v.to_string()));
    line(".sgpr_count", m.sgpr_count.map(|v| v.to_string()));
    line(".vgpr_count", m.vgpr_count.map(|v| v.to_string()));
    line(".agpr_count", m.agpr_count.map(|v| v.to_string()));
    line(
        ".max_flat_workgroup_size",
        m.max_flat_workgroup_size.map(|v| v.to_string()),
    );
    line(
        ".uses_dynamic_stack",
        m.uses_dynamic_stack.map(|v| v.to_string()),
    );
    line(
        ".workgroup_processor_mode",
        m.workgroup_processor_mode.map(|v| v.to_string()),
    );
    if !m.args.is_empty() {
        let _ = writeln!(out, "    arguments:");
        let _ = writeln!(out, "      offset  size  {:<28} name", "kind");
        for a in &m.args {
            let _ = writeln!(
                out,
                "      {:>6} {:>5}  {:<28} {}",
                a.offset.map_or("?".to_owned(), |v| v.to_string()),
                a.size.map_or("?".to_owned(), |v| v.to_string()),
                a.value_kind.as_deref().unwrap_or("?"),
                a.name.as_deref().unwrap_or("")
            );
        }
    }
}

fn initial_state(out: &mut String, s: &InitialState) {
    let _ = writeln!(
        out,
        "  initial state ({}; {} user SGPRs, {} system SGPRs):",
        if s.wave32 { "wave32" } else { "wave64" },
        s.user_sgpr_count,
        s.system_sgpr_count
    );
    for g in &s.sgprs {
        let regs = if g.count == 1 {
            format!("s{}", g.first)
        } else {
            format!("s[{}:{}]", g.first, g.first + g.count - 1)
        };
        let _ = writeln!(
            out,
            "    {regs:<10} {}{}",
            g.name,
            if g.user { " (user)" } else { "" }
        );
    }
    for v in &s.vgprs {
        let _ = writeln!(
            out,
            "    v{:<9} {} (bits {}..{})",
            v.vgpr,
            v.name,
            v.lsb,
            v.lsb + v.width - 1
        );
    }
}
