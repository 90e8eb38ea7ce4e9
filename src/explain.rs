//! The `explain` command: the ABI view of a code object, for people.

use crate::input;
use crate::report;
use hsaco_conform::output;
use hsaco_oracle::check::{check_object, KernelReport, ObjectReport, V2NoteSummary};
use hsaco_oracle::container;
use hsaco_oracle::dispatch::PacketView;
use hsaco_oracle::metadata::{Kernel, Metadata};
use hsaco_oracle::metadata_v2::{KernelV2, MetadataV2};
use hsaco_oracle::notes;
use hsaco_oracle::sgpr::InitialState;
use hsaco_oracle::targets::TargetId;
use std::fmt::Write as _;
use std::io::Write as _;
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
    let mut failed = !scan.errors.is_empty();
    for e in &scan.errors {
        eprintln!("hsaco-conform explain: {}: {e}", path.display());
    }
    if scan.not_a_code_object {
        eprintln!(
            "hsaco-conform explain: {}: not a code object, offload bundle (compressed or not), or ELF file with a .hip_fatbin section or an embedded AMDGPU ELF image",
            path.display()
        );
        return 2;
    }
    // Each object's view is written as soon as it is rendered, and the
    // pages of the file it was read from are let go (as `check` does), so
    // memory follows the largest object, not the library. Compressed
    // bundles are unpacked one at a time. Members' names are kept until
    // one matches, so that a filter matching nothing can list them.
    let mut out = output::buffered();
    let mut write_error = None;
    let mut text = String::new();
    let mut names = Vec::new();
    let mut shown = 0;
    scan.for_each(container::DEFAULT_UNPACK_LIMIT, &mut |v| match v {
        container::Visit::Members(ms) => {
            for m in ms {
                if write_error.is_some() {
                    return;
                }
                let name = m.name.as_deref();
                if !member.is_none_or(|want| name.is_some_and(|n| n.contains(want))) {
                    if shown == 0 {
                        names.push(name.unwrap_or("(plain code object)").to_owned());
                    }
                    continue;
                }
                let title = match name {
                    Some(n) => format!("{} [{n}]", path.display()),
                    None => path.display().to_string(),
                };
                text.clear();
                render(&mut text, &title, &check_object(m.data));
                if let Some(at) = report::offset_in(&bytes, m.data) {
                    let at = at as usize;
                    bytes.release(at..at + m.data.len());
                }
                shown += 1;
                names = Vec::new();
                if let Err(e) = out.write_all(text.as_bytes()) {
                    write_error = Some(e);
                }
            }
        }
        container::Visit::Failed { error, .. } => {
            failed = true;
            eprintln!("hsaco-conform explain: {}: {error}", path.display());
        }
    });
    if let Some(e) = write_error.or_else(|| out.flush().err()) {
        return output::write_failed("explain", &e);
    }
    if shown == 0 {
        eprintln!(
            "hsaco-conform explain: {}: no code object matches",
            path.display()
        );
        if !names.is_empty() {
            eprintln!("members are:");
            for n in &names {
                eprintln!("  {n}");
            }
        }
        return 2;
    }
    if failed {
        2
    } else {
        0
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
    if let Some(n) = &r.v2_notes {
        v2_notes_line(out, n);
    }
    if let Some(md) = &r.metadata {
        metadata_line(out, md);
    }
    if r.metadata_notes.len() > 1 {
        // ld.lld keeps one note per linked object; comgr merges them.
        let list: Vec<String> = r
            .metadata_notes
            .iter()
            .enumerate()
            .map(|(i, n)| format!("#{} at {:#x} ({} kernel(s))", i + 1, n.offset, n.kernels))
            .collect();
        let _ = writeln!(
            out,
            "metadata notes: {}, merged: {}",
            r.metadata_notes.len(),
            list.join(", ")
        );
    }
    if let Some(md) = &r.metadata_v2 {
        metadata_v2_line(out, md);
    }
    for k in &r.kernels {
        kernel(out, r, k);
    }
    let _ = writeln!(out);
    if r.violations.is_empty() && r.omitted.is_empty() {
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
        for o in &r.omitted {
            let _ = writeln!(out, "  {}", crate::report::omitted_line(o));
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

/// Code object V2: what the "AMD" notes say.
fn v2_notes_line(out: &mut String, n: &V2NoteSummary) {
    let mut parts = Vec::new();
    parts.push(match n.code_object_version {
        Some([a, b]) => format!("code object version {a}.{b}"),
        None => "no code object version note".to_owned(),
    });
    parts.push(match (&n.isa_string, n.isa_version) {
        (Some(isa), Some(v)) => match notes::isa_version_target(v) {
            // LLVM 14 raises the stepping for xnack (gfx901 is gfx900 with
            // xnack); amd_kernel_code_t keeps the processor's own version.
            Some((t, true)) => format!("ISA {isa} ({} with xnack)", t.name),
            Some((t, false)) => format!("ISA {isa} ({})", t.name),
            None => format!("ISA {isa} (no known processor)"),
        },
        _ => "no ISA version note".to_owned(),
    });
    parts.push(match &n.isa_name {
        Some(name) => format!("ISA name {name}"),
        None => "no ISA name note".to_owned(),
    });
    if n.hsail {
        parts.push("HSAIL note".to_owned());
    }
    if let Some(p) = n.pal_metadata_pairs {
        parts.push(format!("{p} PAL metadata pair(s)"));
    }
    let _ = writeln!(out, "notes (AMD): {}", parts.join(", "));
}

/// Code object V2: the YAML metadata's header.
fn metadata_v2_line(out: &mut String, md: &MetadataV2) {
    let v = md.version.as_ref().map_or("missing".to_owned(), |v| {
        v.iter().map(u64::to_string).collect::<Vec<_>>().join(".")
    });
    let _ = writeln!(
        out,
        "metadata (YAML): Version {v}, {} kernel(s){}",
        md.kernels.len(),
        if md.printf.is_empty() {
            String::new()
        } else {
            format!(", {} printf format(s)", md.printf.len())
        }
    );
}

fn kernel(out: &mut String, r: &ObjectReport, k: &KernelReport) {
    let _ = writeln!(out);
    let at = k.descriptor_offset.map_or("not readable".to_owned(), |o| {
        format!("at file offset {o:#x}")
    });
    // A V2 kernel's "descriptor" is its amd_kernel_code_t.
    let what = if k.kernel_code.is_some() || k.metadata_v2.is_some() {
        "amd_kernel_code_t"
    } else {
        "descriptor"
    };
    let _ = writeln!(out, "kernel {} ({what} {at})", k.name);
    if !k.fields.is_empty() {
        let _ = writeln!(out, "  {what}:");
        let w = k.fields.iter().map(|f| f.name.len()).max().unwrap_or(0);
        for f in &k.fields {
            let _ = writeln!(out, "    {:<w$}  {:>10}  {}", f.name, f.value, f.meaning);
        }
    }
    if let Some(m) = &k.metadata {
        let note = k
            .metadata_note
            .and_then(|i| Some((i, r.metadata_notes.get(i as usize)?)));
        let from = match note {
            Some((i, n)) => format!(
                " (from metadata note #{} of {}, at {:#x})",
                i + 1,
                r.metadata_notes.len(),
                n.offset
            ),
            None => String::new(),
        };
        let _ = writeln!(out, "  metadata{from}:");
        kernel_metadata(out, m);
    } else if k.metadata_v2.is_none() && !r.metadata_notes.is_empty() {
        let _ = writeln!(out, "  metadata: no metadata note describes this kernel");
    }
    if let Some(m) = &k.metadata_v2 {
        kernel_metadata_v2(out, m);
    }
    if let Some(s) = &k.initial_state {
        initial_state(out, s);
    }
    if let Some(p) = &k.dispatch_packet {
        dispatch_packet(out, p);
    }
}

/// The packet HIP would build for the kernel, member by member as the
/// layout table names them.
fn dispatch_packet(out: &mut String, p: &PacketView) {
    let dims = |v: [u64; 3]| format!("{} x {} x {}", v[0], v[1], v[2]);
    let _ = writeln!(
        out,
        "  dispatch packet (as HIP builds it; {}: grid {}, work-group {}):",
        p.shape_reason,
        dims(p.shape.grid.map(u64::from)),
        dims(p.shape.workgroup.map(u64::from))
    );
    let w = p.fields.iter().map(|f| f.name.len()).max().unwrap_or(0);
    for f in &p.fields {
        // The header reads best in hex (type in the low byte, flags above).
        let v = match f.value {
            None => "(runtime)".to_owned(),
            Some(v) if f.name == "header" => format!("{v:#06x}"),
            Some(v) => v.to_string(),
        };
        let _ = writeln!(out, "    {:<w$}  {v:>10}  {}", f.name, f.meaning);
    }
    if !p.violations.is_empty() {
        let _ = writeln!(out, "    the kernel cannot be dispatched so:");
        for v in &p.violations {
            let _ = writeln!(out, "      {v}");
        }
    }
}

fn kernel_metadata(out: &mut String, m: &Kernel) {
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

/// A V2 kernel's YAML metadata, keys as the YAML names them.
fn kernel_metadata_v2(out: &mut String, m: &KernelV2) {
    let _ = writeln!(out, "  metadata (YAML):");
    let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    let mut line = |key: &str, v: Option<String>| {
        if let Some(v) = v {
            let _ = writeln!(out, "    {key:<28} {v}");
        }
    };
    line("SymbolName", m.symbol_name.clone());
    line("Language", m.language.clone());
    line(
        "LanguageVersion",
        m.language_version
            .as_deref()
            .map(|v| format!("[{}]", list(v))),
    );
    if let Some(a) = &m.attrs {
        line(
            "Attrs.ReqdWorkGroupSize",
            a.reqd_work_group_size
                .as_deref()
                .map(|v| format!("[{}]", list(v))),
        );
        line(
            "Attrs.WorkGroupSizeHint",
            a.work_group_size_hint
                .as_deref()
                .map(|v| format!("[{}]", list(v))),
        );
        line("Attrs.VecTypeHint", a.vec_type_hint.clone());
        line("Attrs.RuntimeHandle", a.runtime_handle.clone());
    }
    if let Some(p) = &m.code_props {
        let num = |v: Option<u64>| v.map(|n| n.to_string());
        let flag = |v: Option<bool>| v.map(|b| b.to_string());
        line("KernargSegmentSize", num(p.kernarg_segment_size));
        line("KernargSegmentAlign", num(p.kernarg_segment_align));
        line("GroupSegmentFixedSize", num(p.group_segment_fixed_size));
        line("PrivateSegmentFixedSize", num(p.private_segment_fixed_size));
        line("WavefrontSize", num(p.wavefront_size));
        line("NumSGPRs", num(p.num_sgprs));
        line("NumVGPRs", num(p.num_vgprs));
        line("NumSpilledSGPRs", num(p.num_spilled_sgprs));
        line("NumSpilledVGPRs", num(p.num_spilled_vgprs));
        line("MaxFlatWorkGroupSize", num(p.max_flat_work_group_size));
        line("IsDynamicCallStack", flag(p.is_dynamic_call_stack));
        line("IsXNACKEnabled", flag(p.is_xnack_enabled));
    } else {
        line("CodeProps", Some("(absent)".to_owned()));
    }
    if !m.args.is_empty() {
        // V2 arguments carry no offsets: these are computed, each at the
        // previous end rounded up to its Align.
        let _ = writeln!(out, "    arguments (offsets computed):");
        let _ = writeln!(out, "      offset  size align  {:<24} name", "kind");
        let n = |v: Option<u64>| v.map_or("?".to_owned(), |v| v.to_string());
        for a in &m.args {
            let _ = writeln!(
                out,
                "      {:>6} {:>5} {:>5}  {:<24} {}",
                n(a.offset),
                n(a.size),
                n(a.align),
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
