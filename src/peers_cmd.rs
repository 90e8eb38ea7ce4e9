//! `hsaco-conform peers`: the tools and libraries on this machine that can
//! be compared with the oracle (see `hsaco_conform::peers::discover`).

use hsaco_conform::peers::discover::{self, Capability, Discovery, Kind, Peer, Status};

/// Help text after the options.
pub const HELP: &str = "\
What is looked for:
  LLVM tools    llvm-mc, llvm-objdump, llvm-readobj, ld.lld, on PATH with
                or without a -NN suffix and in /usr/lib/llvm-NN/bin; each
                distinct executable once, its version from `TOOL --version`
                (10 s timeout), grouped by LLVM major version
  libLLVM       libLLVM-NN.so in LD_LIBRARY_PATH and the system library
                directories, loaded to check its AMDGPU disassembler
  comgr         libamd_comgr.so.2 (ROCm code object manager), loaded; its
                interface version from amd_comgr_get_version
  HSA runtime   libhsa-runtime64.so.1, probed in a child process (hsa_init,
                hsa_iterate_agents; 30 s timeout): without a GPU driver
                (/dev/kfd) it is listed as broken with hsa_init's status

What each can compare with the oracle (conform's comparison ids, for
`conform --kinds`):
  smem-disasm     SMEM words via libLLVM (in process) or llvm-mc --disassemble
  smem-encode     SMEM encodings via llvm-mc -show-encoding
  rebuild         objects rebuilt from assembler text via llvm-mc + ld.lld
  descriptors     kernel descriptors via llvm-objdump, reassembled by llvm-mc
  metadata        metadata via llvm-readobj --notes
  comgr-metadata  metadata, ISA name and symbols via comgr
  mutants         which invalid objects the tool reads without complaint
The HSA runtime compares nothing yet (hardware replay is not built): it is
listed with its status.

Exit status: 0 (the list was printed, whatever it holds), 2 could not run.

Examples:
  hsaco-conform peers
  hsaco-conform peers --format json | jq '.peers[] | select(.status == \"usable\") | .path'";

fn compares(p: &Peer) -> String {
    if p.compares.is_empty() {
        return "-".into();
    }
    p.compares
        .iter()
        .map(|c| c.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn status(p: &Peer) -> String {
    match &p.status {
        Status::Usable => "usable".into(),
        Status::Broken(why) => format!("broken: {why}"),
    }
}

fn row(p: &Peer) -> String {
    let mut s = format!(
        "  {:<13} {:<9} {:<7} {:<40} {}",
        p.name,
        p.version.as_deref().unwrap_or("?"),
        if p.status.is_usable() {
            "usable"
        } else {
            "broken"
        },
        compares(p),
        p.path.display()
    );
    for a in &p.aliases {
        s.push_str(&format!(
            "\n  {:<13} {:<9} {:<7} {:<40} {}",
            "",
            "",
            "",
            "(same)",
            a.display()
        ));
    }
    if let Status::Broken(_) = p.status {
        // The reason says what the details would.
        s.push_str(&format!("\n  {:<13} {}", "", status(p)));
    } else {
        for (k, v) in &p.details {
            s.push_str(&format!("\n  {:<13} {k}: {v}", ""));
        }
    }
    s
}

/// The text table.
pub fn text(d: &Discovery) -> String {
    let mut out = String::new();
    let mut majors: Vec<u32> = d.peers.iter().filter_map(|p| p.llvm_major).collect();
    majors.sort_unstable();
    majors.dedup();
    out.push_str(&format!(
        "  {:<13} {:<9} {:<7} {:<40} {}\n",
        "NAME", "VERSION", "STATUS", "COMPARES", "PATH"
    ));
    for m in majors {
        out.push_str(&format!("LLVM {m}\n"));
        for p in d.llvm(m) {
            out.push_str(&row(p));
            out.push('\n');
        }
    }
    let unversioned: Vec<&Peer> = d
        .peers
        .iter()
        .filter(|p| p.llvm_major.is_none() && matches!(p.kind, Kind::Tool | Kind::Library))
        .collect();
    if !unversioned.is_empty() {
        out.push_str("LLVM, version unknown\n");
        for p in unversioned {
            out.push_str(&row(p));
            out.push('\n');
        }
    }
    for (kind, title) in [(Kind::Comgr, "comgr"), (Kind::HsaRuntime, "HSA runtime")] {
        out.push_str(&format!("{title}\n"));
        let mut any = false;
        for p in d.peers.iter().filter(|p| p.kind == kind) {
            out.push_str(&row(p));
            out.push('\n');
            any = true;
        }
        if !any {
            out.push_str("  (not found)\n");
        }
    }
    let usable: Vec<&str> = Capability::ALL
        .into_iter()
        .filter(|c| d.peers.iter().any(|p| p.compares.contains(c)))
        .map(Capability::name)
        .collect();
    out.push_str(&format!(
        "\n{} peers, {} usable; comparisons available: {}\n",
        d.peers.len(),
        d.peers.iter().filter(|p| p.status.is_usable()).count(),
        if usable.is_empty() {
            "none".to_owned()
        } else {
            usable.join(", ")
        }
    ));
    out
}

/// Runs `peers`; returns the exit status.
pub fn run(json: bool) -> u8 {
    let exe = std::env::current_exe().ok();
    let d = discover::discover(exe.as_deref());
    if json {
        match serde_json::to_string_pretty(&d) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("hsaco-conform: cannot write JSON: {e}");
                return 2;
            }
        }
    } else {
        print!("{}", text(&d));
    }
    0
}

/// The hidden `peers-worker` subcommand (the HSA probe's child process).
pub fn worker(what: &str, path: &std::path::Path) -> u8 {
    match what {
        "hsa" => discover::hsa_worker(path),
        other => {
            eprintln!("hsaco-conform: unknown peers worker {other:?}");
            2
        }
    }
}
