//! `hsaco-conform peers`: the tools and libraries on this machine that can
//! be compared with the oracle (see `hsaco_conform::peers::discover`).

use hsaco_conform::peers::discover::{self, Capability, Discovery, Kind, Named, Peer, Status};
use hsaco_conform::{out, outln};

/// Help text after the options.
pub const HELP: &str = "\
What is looked for:
  LLVM tools    llvm-mc, llvm-objdump, llvm-readobj, ld.lld, on PATH with
                or without a -NN suffix and in /usr/lib/llvm-NN/bin; each
                distinct executable once (a plain llvm-mc that is the same
                file as llvm-mc-14 is llvm-mc-14; one of its own is a peer
                of its own, llvm-mc-NN-2), its version from `TOOL
                --version` (10 s timeout), grouped by LLVM major version
  libLLVM       libLLVM-NN.so in LD_LIBRARY_PATH and the system library
                directories, one per version, only if built with the
                AMDGPU target; loaded to check its AMDGPU disassembler
  comgr         libamd_comgr.so.2 (ROCm code object manager), loaded; its
                interface version from amd_comgr_get_version
  HSA runtime   libhsa-runtime64.so.1, probed in a child process (hsa_init,
                hsa_iterate_agents; 30 s timeout): without a GPU driver
                (/dev/kfd) it is listed as broken with hsa_init's status

Not peers: folders of a Rust toolchain (~/.rustup/toolchains/*/lib, which
holds rustc's own libLLVM) or of a cargo target folder, in LD_LIBRARY_PATH
or PATH (`cargo run` adds them), are not searched, and a libLLVM without
the AMDGPU target is passed over; both are listed under Not peers.

Named peers: --peer NAME=PATH (repeatable; also on conform and diff
words) adds a peer of your own, under your name. PATH is an LLVM install
folder (bin/llvm-mc, bin/llvm-objdump, bin/llvm-readobj, bin/ld.lld,
lib/libLLVM*.so), one of those tools, a libLLVM*.so or a libamd_comgr.so.
Its version is probed (TOOL --version, the library's symbol versions or
file name, comgr's API). Its id is NAME for one file, NAME:TOOL for a
folder (mine:llvm-mc, mine:libllvm, mine:llvm-objdump, ...); a named peer
that is the same file as one found replaces it. A bad value (no '=', a
missing path, not an LLVM tool, a library without AMDGPU) is an error
before anything runs.

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
  hsaco-conform peers --peer mine=$HOME/llvm-project/build
  hsaco-conform peers --format json | jq '.peers[] | select(.status == \"usable\") | .path'";

fn compares(p: &Peer) -> String {
    if p.compares.is_empty() {
        return "-".into();
    }
    p.compares
        .iter()
        .map(|c| c.as_str())
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
        "  {:<18} {:<13} {:<9} {:<7} {:<40} {}",
        p.id,
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
            "\n  {:<18} {:<13} {:<9} {:<7} {:<40} {}",
            "",
            "",
            "",
            "",
            "(same)",
            a.display()
        ));
    }
    if let Status::Broken(_) = p.status {
        // The reason says what the details would.
        s.push_str(&format!("\n  {:<32} {}", "", status(p)));
    } else {
        for (k, v) in &p.details {
            s.push_str(&format!("\n  {:<32} {k}: {v}", ""));
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
        "  {:<18} {:<13} {:<9} {:<7} {:<40} {}\n",
        "ID", "NAME", "VERSION", "STATUS", "COMPARES", "PATH"
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
    if !d.not_peers.is_empty() {
        out.push_str("Not peers\n");
        for n in &d.not_peers {
            out.push_str(&format!("  {}: {}\n", n.path.display(), n.reason));
        }
    }
    let usable: Vec<&str> = Capability::KINDS
        .into_iter()
        .filter(|c| d.peers.iter().any(|p| p.compares.contains(c)))
        .map(Capability::as_str)
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

/// Runs `peers` (with the `--peer NAME=PATH` values `named`); returns
/// the exit status.
pub fn run(json: bool, named: &[String]) -> u8 {
    let exe = std::env::current_exe().ok();
    let d = Named::parse_all(named).and_then(|named| {
        discover::discover_with(&discover::Options {
            hsa: exe.as_deref(),
            load: true,
            named: &named,
        })
    });
    let d = match d {
        Ok(d) => d,
        Err(e) => {
            eprintln!("hsaco-conform peers: {e}");
            return 2;
        }
    };
    if json {
        match serde_json::to_string_pretty(&d) {
            Ok(s) => outln!("{s}"),
            Err(e) => {
                eprintln!("hsaco-conform: cannot write JSON: {e}");
                return 2;
            }
        }
    } else {
        out!("{}", text(&d));
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
