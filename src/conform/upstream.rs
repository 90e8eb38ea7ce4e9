//! Upstream-ready files for a finding's folder: `report.md`, a short text
//! naming what differs and the LLVM versions that show it, and for
//! instruction-word findings reproduced by `llvm-mc --disassemble`, a lit
//! test (`test.s`, RUN and CHECK lines in the form of LLVM's
//! `llvm/test/MC/Disassembler/AMDGPU` tests) that fails on the affected
//! versions.

use super::findings::Finding;
use super::Input;

/// The files (name, contents) to add to `f`'s folder.
pub fn files(f: &Finding) -> Vec<(String, String)> {
    let lit = lit_test(f);
    let mut out = vec![("report.md".to_owned(), report(f, lit.is_some()))];
    if let Some(t) = lit {
        out.push(("test.s".to_owned(), t));
    }
    out
}

fn versions(f: &Finding) -> String {
    let v: Vec<String> = f.versions.iter().map(u32::to_string).collect();
    match v.len() {
        0 => "no LLVM version recorded".to_owned(),
        1 => format!("LLVM {}", v[0]),
        _ => format!("LLVM {}", v.join(", ")),
    }
}

/// A short report: what, where, which versions, how to reproduce; `lit`:
/// the folder has a lit test.
pub fn report(f: &Finding, lit: bool) -> String {
    let mut s = format!("# {} ({})\n\n", f.id, f.signature.kind);
    s.push_str(&format!(
        "Shown by {} ({}), on {}; seen {} time(s) in the run.\n\n",
        versions(f),
        f.peers.iter().cloned().collect::<Vec<_>>().join(", "),
        f.targets.iter().cloned().collect::<Vec<_>>().join(", "),
        f.count
    ));
    s.push_str(&format!("{}\n\n", f.message));
    if let Some(c) = &f.crash {
        s.push_str(&format!("Crash: {}", c.status));
        if let Some(site) = &c.site {
            s.push_str(&format!(" at {site}"));
        }
        s.push_str(".\n\n");
    }
    let inputs: Vec<String> = f.reduced.iter().map(Input::display).collect();
    if !inputs.is_empty() {
        s.push_str(&format!("Input: {}\n\n", inputs.join(" / ")));
    }
    s.push_str("Reproduce (in this folder):\n\n");
    for c in &f.commands {
        s.push_str(&format!("    {}\n", c.shell));
    }
    if lit {
        s.push_str("\nA lit test for LLVM's test suite is in test.s.\n");
    }
    s
}

/// A lit test for an instruction-word finding with an `llvm-mc
/// --disassemble` reproducer: the reduced bytes, RUN with the processor,
/// and CHECK lines for what LLVM should do. A crash: nothing but not
/// crashing (lit runs pipelines with pipefail); a word the oracle calls
/// invalid: LLVM's "invalid instruction encoding"; a valid word: the
/// oracle's text. `None` for other findings.
pub fn lit_test(f: &Finding) -> Option<String> {
    let cmd = f
        .commands
        .iter()
        .find(|c| c.argv.first().is_some_and(|p| is_llvm_mc(p)))?;
    if !cmd.argv.iter().any(|a| a == "--disassemble") {
        return None;
    }
    let bytes: Vec<String> = f
        .reduced
        .iter()
        .map(|i| match i {
            Input::Bytes { bytes } => Some(super::bytes_line(bytes)),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let check: Vec<String> = match f.signature.kind.as_str() {
        "crash" | "hang" => vec!["# CHECK-NOT: PLEASE submit a bug report".to_owned()],
        _ if f.message.contains("oracle invalid") => {
            vec!["# CHECK: warning: invalid instruction encoding".to_owned()]
        }
        _ => {
            let expected = f
                .message
                .split_once("expected from LLVM: ")
                .and_then(|(_, r)| r.split_once("; peer printed"))
                .map(|(e, _)| e.trim())?;
            vec![format!("# CHECK: {expected}")]
        }
    };
    let mut s = format!(
        "# Found by hsaco-conform ({}, {}): {}; fails with {}.\n",
        f.id,
        f.comparison,
        first_line(&f.message),
        versions(f)
    );
    s.push_str(&format!(
        "# RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu={} --disassemble %s 2>&1 | FileCheck %s\n\n",
        cmd.target
    ));
    for c in &check {
        s.push_str(c);
        s.push('\n');
    }
    for b in &bytes {
        s.push_str(b);
        s.push('\n');
    }
    Some(s)
}

/// Reproducers name programs by absolute path; the tool is the file name.
fn is_llvm_mc(program: &str) -> bool {
    std::path::Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("llvm-mc"))
}

fn first_line(s: &str) -> String {
    let l = s.lines().next().unwrap_or("");
    let cut: String = l.chars().take(160).collect();
    if cut.len() < l.len() {
        format!("{cut}...")
    } else {
        cut
    }
}
