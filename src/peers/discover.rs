//! Peer discovery, the one finder of the project's peers: every tool and
//! library on this machine that can be compared with the oracle, and the
//! ones the user names (`--peer NAME=PATH`), with their versions, whether
//! they work, what they can compare, and the id `conform` knows them by.
//!
//! * LLVM tools (`llvm-mc`, `llvm-objdump`, `llvm-readobj`, `ld.lld`):
//!   found on `PATH` with and without a `-NN` suffix and in
//!   `/usr/lib/llvm-NN/bin`; one entry per distinct executable (symlinks
//!   resolved: a plain `llvm-mc` that is `llvm-mc-14` is one peer, a plain
//!   `llvm-mc` of its own is another), its version read from `TOOL
//!   --version` (run once, with a timeout), grouped by LLVM major version.
//!   Id: `TOOL-MAJOR` (`llvm-mc-19`); a second distinct executable of the
//!   same tool and version is `TOOL-MAJOR-2`.
//! * `libLLVM` ([`super::llvm_disasm::scan`]): one per major version, only
//!   libraries built with the AMDGPU target (their dynamic symbol table
//!   defines [`llvm_disasm::AMDGPU_SYMBOL`]); with [`Options::load`],
//!   loaded to check that its AMDGPU disassembler initialises. Id:
//!   `libllvm-MAJOR`.
//! * comgr ([`super::comgr`]), loaded; version from its API. Id:
//!   `comgr-MAJOR.MINOR`.
//! * The HSA runtime (`libhsa-runtime64.so.1`): loaded in a child process
//!   (the runtime may hang or crash without a GPU) that reports `hsa_init`
//!   and the agents `hsa_iterate_agents` lists ([`hsa_worker`]).
//!
//! Folders of a Rust toolchain or a cargo target folder in
//! `LD_LIBRARY_PATH` or `PATH` ([`llvm_disasm::toolchain_private`]; `cargo
//! run` adds them) are not searched: their libraries are listed as not
//! peers ([`Discovery::not_peers`]), so `cargo run -- conform` and the
//! installed program find the same peers.
//!
//! # Named peers (`--peer NAME=PATH`)
//!
//! PATH is an LLVM install folder (its `bin/` tools, `lib/libLLVM*.so`,
//! and a comgr library there), one tool, a `libLLVM*.so` or a
//! `libamd_comgr.so`. Its version is probed (`TOOL --version`; a library's
//! symbol versions, `LLVM_19.1`, or its file name; comgr's API), so
//! version-dependent knowledge (the allowlist's version ranges) applies to
//! it as to the peers found. Its id is NAME for a single file and
//! `NAME:TOOL` for a folder (`mine:llvm-mc`, `mine:libllvm`,
//! `mine:comgr`). A named peer that is the same file as one found
//! (canonical paths) replaces it. A bad value is an error of one line.

use crate::outln;
use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::{comgr, llvm_disasm};
use crate::conform::id::ComparisonId;
use crate::replay::hsa::{self, Hsa};

/// The LLVM tools looked for.
pub const LLVM_TOOLS: [&str; 4] = ["llvm-mc", "llvm-objdump", "llvm-readobj", "ld.lld"];

/// How long `TOOL --version` may take.
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the HSA probe may take.
pub const HSA_TIMEOUT: Duration = Duration::from_secs(30);

/// File name of the HSA runtime.
pub const HSA_LIBRARY: &str = "libhsa-runtime64.so.1";

/// A `conform` comparison a peer takes part in: a [`ComparisonId`], so
/// that a peer's `compares` list and `conform --kinds` read one list of
/// ids (no peer lists `words`).
pub type Capability = ComparisonId;

/// What kind of peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// An LLVM command-line tool.
    Tool,
    /// `libLLVM-NN.so`.
    Library,
    /// ROCm's code object manager.
    Comgr,
    /// ROCm's HSA runtime.
    HsaRuntime,
}

/// Whether a peer can be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// It works.
    Usable,
    /// It is there but does not work, and why.
    Broken(String),
}

impl Status {
    /// True for [`Status::Usable`].
    pub fn is_usable(&self) -> bool {
        matches!(self, Status::Usable)
    }
}

/// One peer found on the machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Peer {
    /// The id `conform --peers` takes and reports show (`llvm-mc-19`,
    /// `libllvm-19`, `comgr-2.4`; NAME or `NAME:TOOL` for a named peer).
    pub id: String,
    /// The `--peer NAME=PATH` that named it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub named: Option<Named>,
    /// What kind.
    pub kind: Kind,
    /// Name: the tool name without version suffix (`llvm-mc`), `libLLVM`,
    /// `comgr`, `hsa-runtime`.
    pub name: String,
    /// Version as the peer reports it (`19.1.7`, comgr's interface
    /// `2.4`), if known.
    pub version: Option<String>,
    /// LLVM major version (tools and libLLVM).
    pub llvm_major: Option<u32>,
    /// Where it was found (as found, before resolving symlinks).
    pub path: PathBuf,
    /// Other names of the same executable found (e.g. `/usr/bin/llvm-mc-19`
    /// and `/usr/lib/llvm-19/bin/llvm-mc`).
    pub aliases: Vec<PathBuf>,
    /// Usable or broken.
    #[serde(serialize_with = "ser_status")]
    pub status: Status,
    /// Why it is broken (JSON only; `None` when usable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What it can compare (empty when broken).
    pub compares: Vec<Capability>,
    /// Extra facts (HSA: the `hsa_init` status and the agents).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub details: BTreeMap<String, String>,
    /// The canonical path (what makes two names one peer).
    #[serde(skip)]
    real: PathBuf,
}

fn ser_status<S: serde::Serializer>(s: &Status, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(if s.is_usable() { "usable" } else { "broken" })
}

impl Peer {
    fn new(kind: Kind, name: &str, path: PathBuf) -> Self {
        Peer {
            id: name.to_owned(),
            named: None,
            real: std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone()),
            kind,
            name: name.to_owned(),
            version: None,
            llvm_major: None,
            path,
            aliases: Vec::new(),
            status: Status::Usable,
            reason: None,
            compares: Vec::new(),
            details: BTreeMap::new(),
        }
    }

    fn broken(&mut self, why: impl Into<String>) {
        let why = why.into();
        self.reason = Some(why.clone());
        self.status = Status::Broken(why);
        self.compares.clear();
    }
}

/// The major version in a `--version` output: the first number of the
/// first token shaped `N.N` or `N.N.N` (`Debian LLVM version 19.1.7`,
/// `Debian LLD 19.1.7 (compatible with GNU linkers)`, `LLVM version
/// 14.0.6`).
pub fn parse_version(output: &str) -> Option<(String, u32)> {
    output.split_whitespace().find_map(|tok| {
        let tok = tok.trim_end_matches([',', ';', ')']);
        let parts: Vec<&str> = tok.split('.').collect();
        let numeric = parts.len() >= 2
            && parts.len() <= 4
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
        if !numeric {
            return None;
        }
        Some((tok.to_owned(), parts.first()?.parse().ok()?))
    })
}

/// `TOOL-NN` or `TOOL`: the tool name, if `file` is one of [`LLVM_TOOLS`]
/// with an optional all-digit suffix.
pub fn tool_of(file: &str) -> Option<&'static str> {
    LLVM_TOOLS.iter().copied().find(|t| {
        file == *t
            || file
                .strip_prefix(t)
                .and_then(|r| r.strip_prefix('-'))
                .is_some_and(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()))
    })
}

/// Candidate LLVM tool paths: `PATH` directories (made absolute; those
/// of a Rust toolchain or cargo target folder left out), then
/// `/usr/lib/llvm-*/bin` (sorted), each file named as [`tool_of`] accepts.
pub fn tool_candidates(path_dirs: &[PathBuf], llvm_root: &Path) -> Vec<(&'static str, PathBuf)> {
    // A directory reached twice (`/bin` linked to `/usr/bin`) is read once.
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    for d in path_dirs {
        if d.as_os_str().is_empty() || llvm_disasm::toolchain_private(d).is_some() {
            continue;
        }
        // Absolute, so that reproducers name the program they ran.
        let d = &std::path::absolute(d).unwrap_or_else(|_| d.clone());
        let real = std::fs::canonicalize(d).unwrap_or_else(|_| d.clone());
        if !seen.contains(&real) {
            seen.push(real);
            dirs.push(d.clone());
        }
    }
    if let Ok(rd) = std::fs::read_dir(llvm_root) {
        let mut v: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .filter(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|n| n.starts_with("llvm-"))
            })
            .map(|e| e.path().join("bin"))
            .collect();
        v.sort();
        dirs.extend(v);
    }
    let mut out = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut here: Vec<(&'static str, PathBuf)> = rd
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name();
                let tool = tool_of(name.to_str()?)?;
                let p = e.path();
                p.is_file().then_some((tool, p))
            })
            .collect();
        here.sort_by(|a, b| a.1.cmp(&b.1));
        out.extend(here);
    }
    out
}

/// Runs `cmd`, killing it after `timeout`: its standard output and error
/// and exit status, or why it could not be run.
pub fn run_with_timeout(
    cmd: &mut Command,
    timeout: Duration,
) -> Result<(String, String, std::process::ExitStatus), String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run: {e}"))?;
    // Read both pipes on threads so a chatty child cannot block on a full
    // pipe while we wait.
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let t_out = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(o) = out.as_mut() {
            let _ = o.read_to_end(&mut s);
        }
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(e) = err.as_mut() {
            let _ = e.read_to_end(&mut s);
        }
        s
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() >= timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {} s", timeout.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("cannot wait: {e}")),
        }
    };
    let o = t_out.join().unwrap_or_default();
    let e = t_err.join().unwrap_or_default();
    Ok((
        String::from_utf8_lossy(&o).into_owned(),
        String::from_utf8_lossy(&e).into_owned(),
        status,
    ))
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("killed by signal {sig}");
        }
    }
    match status.code() {
        Some(c) => format!("exit status {c}"),
        None => "no exit status".into(),
    }
}

fn tool_capabilities(tool: &str) -> Vec<Capability> {
    match tool {
        "llvm-mc" => vec![
            Capability::SmemDisasm,
            Capability::SmemEncode,
            Capability::Rebuild,
            Capability::Descriptors,
        ],
        "llvm-objdump" => vec![Capability::Descriptors, Capability::Mutants],
        "llvm-readobj" => vec![Capability::Metadata, Capability::Mutants],
        "ld.lld" => vec![Capability::Rebuild],
        _ => Vec::new(),
    }
}

/// Every LLVM tool in `candidates`, one entry per distinct executable,
/// each with its `--version` (run in parallel, `timeout` each).
pub fn llvm_tools(candidates: &[(&'static str, PathBuf)], timeout: Duration) -> Vec<Peer> {
    // Distinct executables, first name found first.
    let mut peers: Vec<(Peer, PathBuf)> = Vec::new();
    for (tool, p) in candidates {
        let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
        if let Some((peer, _)) = peers.iter_mut().find(|(_, r)| *r == real) {
            if peer.path != *p && !peer.aliases.contains(p) {
                peer.aliases.push(p.clone());
            }
            continue;
        }
        let mut peer = Peer::new(Kind::Tool, tool, p.clone());
        peer.compares = tool_capabilities(tool);
        peers.push((peer, real));
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = peers
            .iter_mut()
            .map(|(peer, _)| {
                s.spawn(move || {
                    match run_with_timeout(Command::new(&peer.path).arg("--version"), timeout) {
                        Ok((out, err, status)) => {
                            let text = format!("{out}\n{err}");
                            match parse_version(&text) {
                                Some((v, major)) if status.success() => {
                                    peer.version = Some(v);
                                    peer.llvm_major = Some(major);
                                }
                                Some((v, major)) => {
                                    peer.version = Some(v);
                                    peer.llvm_major = Some(major);
                                    peer.broken(format!("--version: {}", describe_exit(status)));
                                }
                                None => peer.broken(format!(
                                    "--version ({}) names no version: {:?}",
                                    describe_exit(status),
                                    text.trim().chars().take(120).collect::<String>()
                                )),
                            }
                        }
                        Err(e) => peer.broken(format!("--version: {e}")),
                    }
                })
            })
            .collect();
        for h in handles {
            let _ = h.join();
        }
    });
    let mut out: Vec<Peer> = peers.into_iter().map(|(p, _)| p).collect();
    for p in &mut out {
        // `llvm-mc-14` rather than a plain `llvm-mc` that is the same
        // file: the name says the version in reproducers.
        let versioned = |q: &Path| {
            q.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n != p.name && tool_of(n).is_some())
        };
        if !versioned(&p.path) {
            if let Some(k) = p.aliases.iter().position(|a| versioned(a)) {
                std::mem::swap(&mut p.path, &mut p.aliases[k]);
            }
        }
    }
    // Ids: `TOOL-MAJOR` for the first executable (in PATH order) found
    // under a versioned name (`llvm-mc-19` is what that name runs), then
    // the others in the order found, numbered when taken (a plain
    // `llvm-mc` of its own next to `llvm-mc-19` is `llvm-mc-19-2`).
    let mut taken: Vec<String> = Vec::new();
    for versioned_name in [true, false] {
        for p in &mut out {
            let versioned = std::iter::once(&p.path)
                .chain(&p.aliases)
                .any(|q| q.file_name().and_then(|n| n.to_str()) != Some(p.name.as_str()));
            if versioned != versioned_name {
                continue;
            }
            let base = match p.llvm_major {
                Some(m) => format!("{}-{m}", p.name),
                None => p.name.clone(),
            };
            p.id = unique_id(&base, &taken);
            taken.push(p.id.clone());
        }
    }
    out.sort_by(|a, b| (a.llvm_major, &a.name, &a.path).cmp(&(b.llvm_major, &b.name, &b.path)));
    out
}

/// `base`, or `base-2`, `base-3`, ... when taken.
fn unique_id(base: &str, taken: &[String]) -> String {
    let mut id = base.to_owned();
    let mut n = 2;
    while taken.contains(&id) {
        id = format!("{base}-{n}");
        n += 1;
    }
    id
}

/// The peer of one libLLVM (`libllvm-MAJOR`); with `load`, loaded to
/// check that its disassembler initialises and knows gfx900.
fn library_peer(info: &llvm_disasm::LibInfo, load: bool) -> Peer {
    let mut p = Peer::new(Kind::Library, "libLLVM", info.path.clone());
    p.id = format!("libllvm-{}", info.version);
    p.llvm_major = Some(info.version);
    p.version = Some(info.version.to_string());
    p.compares = vec![Capability::SmemDisasm];
    if load {
        match llvm_disasm::LlvmLib::load(info) {
            Ok(lib) => match lib.knows_processor("gfx900") {
                Some(true) | None => {}
                Some(false) => p.broken("its AMDGPU target does not know gfx900"),
            },
            Err(e) => p.broken(e.to_string()),
        }
    }
    p
}

/// comgr at `path` (named), else the one installed, if any: loaded for its
/// interface version.
pub fn comgr_peer(path: Option<&Path>) -> Option<Peer> {
    let named = path.is_some();
    let path = match path {
        Some(p) => p.to_path_buf(),
        None => comgr::find().ok()?,
    };
    let mut p = Peer::new(Kind::Comgr, "comgr", path.clone());
    p.compares = vec![Capability::ComgrMetadata, Capability::Mutants];
    let lib = if named {
        comgr::Comgr::load(&path)
    } else {
        comgr::Comgr::open()
    };
    match lib {
        Ok(c) => {
            let (major, minor) = c.version();
            p.version = Some(format!("{major}.{minor}"));
            p.id = format!("comgr-{major}.{minor}");
            if major != 2 {
                p.broken(format!(
                    "interface {major}.{minor}: the binding is written for interface 2"
                ));
            }
        }
        Err(e) => p.broken(e.to_string()),
    }
    Some(p)
}

/// The HSA runtime library on this machine, if any.
pub fn find_hsa() -> Option<PathBuf> {
    let mut dirs = llvm_disasm::default_dirs();
    dirs.push(PathBuf::from("/opt/rocm/lib"));
    dirs.into_iter()
        .map(|d| d.join(HSA_LIBRARY))
        .find(|p| p.is_file())
}

/// What the HSA worker reports (one JSON line on standard output).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct HsaReport {
    /// The library loaded.
    pub library: String,
    /// `hsa_init`'s status, e.g. `0x0` or `0x1008`.
    pub init_status: String,
    /// Its text (`hsa_status_string`), when the runtime gives one.
    pub init_message: String,
    /// `hsa_iterate_agents`' status, when `hsa_init` succeeded.
    pub iterate_status: Option<String>,
    /// Each agent: name and device type (`cpu`, `gpu`, `dsp` or a number).
    pub agents: Vec<(String, String)>,
    /// `major.minor` from `hsa_system_get_info`, when initialised.
    pub version: Option<String>,
    /// An error before any call (loading, a missing function).
    pub error: Option<String>,
}

/// The version in a library's real file name
/// (`libhsa-runtime64.so.1.5.0` gives `1.5.0`).
pub fn so_version(path: &Path) -> Option<String> {
    let real = std::fs::canonicalize(path).ok()?;
    let name = real.file_name()?.to_str()?;
    let v = name.split_once(".so.")?.1;
    (!v.is_empty()).then(|| v.to_owned())
}

/// The HSA runtime peer: probed in a child process (`exe peers-worker
/// hsa`), so that a runtime that hangs or crashes without a GPU is
/// reported, not fatal.
pub fn hsa_peer(exe: &Path) -> Option<Peer> {
    let path = find_hsa()?;
    let mut p = Peer::new(Kind::HsaRuntime, "hsa-runtime", path.clone());
    p.version = so_version(&path);
    // Nothing to compare until the hardware replay harness exists: the
    // runtime is listed with its status.
    match run_with_timeout(
        Command::new(exe).args(["peers-worker", "hsa"]).arg(&path),
        HSA_TIMEOUT,
    ) {
        Err(e) => p.broken(format!("HSA probe: {e}")),
        Ok((out, err, status)) => {
            let report = out
                .lines()
                .rev()
                .find_map(|l| serde_json::from_str::<HsaReport>(l).ok());
            match report {
                None => {
                    let tail: String = err.lines().rev().take(3).collect::<Vec<_>>().join(" | ");
                    p.broken(format!(
                        "HSA probe {} without a report: {tail}",
                        describe_exit(status)
                    ));
                }
                Some(r) => hsa_status(&mut p, &r),
            }
        }
    }
    Some(p)
}

fn hsa_status(p: &mut Peer, r: &HsaReport) {
    p.details.insert(
        "hsa_init".into(),
        format!("{} {}", r.init_status, r.init_message)
            .trim()
            .to_owned(),
    );
    if let Some(v) = &r.version {
        p.version = Some(v.clone());
    }
    if let Some(e) = &r.error {
        p.broken(e.clone());
        return;
    }
    if r.init_status != "0x0" {
        let hint = if r.init_status == "0x1008" && !Path::new("/dev/kfd").exists() {
            " (no /dev/kfd: no AMD GPU driver)"
        } else {
            ""
        };
        p.broken(format!(
            "hsa_init returned {} {}{hint}",
            r.init_status, r.init_message
        ));
        return;
    }
    p.details.insert(
        "agents".into(),
        r.agents
            .iter()
            .map(|(n, t)| format!("{n} ({t})"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    if r.iterate_status.as_deref() != Some("0x0") {
        p.broken(format!(
            "hsa_iterate_agents returned {}",
            r.iterate_status.as_deref().unwrap_or("nothing")
        ));
    } else if !r.agents.iter().any(|(_, t)| t == "gpu") {
        p.broken("no GPU agent");
    }
}

/// Loads the HSA runtime at `path` (through the replay bindings,
/// `crate::replay::hsa`) and calls `hsa_init`, then (if that worked)
/// `hsa_system_get_info` and `hsa_iterate_agents`, and `hsa_shut_down`.
/// Run it in a child process: the runtime may hang or crash.
pub fn probe_hsa(path: &Path) -> HsaReport {
    let mut r = HsaReport {
        library: path.display().to_string(),
        ..HsaReport::default()
    };
    let hsa = match Hsa::load(Some(path)) {
        Ok(h) => h,
        Err(e) => {
            r.error = Some(e.to_string());
            return r;
        }
    };
    let rt = match hsa.init() {
        Ok(rt) => rt,
        Err(e) => {
            r.init_status = format!("{:#x}", e.status.0);
            r.init_message = e.text;
            return r;
        }
    };
    r.init_status = "0x0".into();
    r.init_message = hsa.status_text(hsa::Status::SUCCESS);
    if let Ok(v) = rt.version() {
        r.version = Some(format!("{}.{}", v.hsa.0, v.hsa.1));
    }
    match rt.agents() {
        Ok(agents) => {
            r.iterate_status = Some("0x0".into());
            r.agents = agents
                .into_iter()
                .map(|a| {
                    let kind = match rt.agent_device(a) {
                        Ok(hsa::HSA_DEVICE_TYPE_CPU) => "cpu".to_owned(),
                        Ok(hsa::HSA_DEVICE_TYPE_GPU) => "gpu".to_owned(),
                        Ok(hsa::HSA_DEVICE_TYPE_DSP) => "dsp".to_owned(),
                        Ok(n) => n.to_string(),
                        Err(e) => e.to_string(),
                    };
                    (rt.agent_name(a).unwrap_or_default(), kind)
                })
                .collect();
        }
        Err(e) => r.iterate_status = Some(format!("{:#x}", e.status.0)),
    }
    r
}

/// The `peers-worker hsa PATH` subcommand: prints [`probe_hsa`]'s report as
/// one JSON line. Exit status 0 whenever the report was printed.
pub fn hsa_worker(path: &Path) -> u8 {
    let r = probe_hsa(path);
    match serde_json::to_string(&r) {
        Ok(s) => {
            outln!("{s}");
            0
        }
        Err(e) => {
            eprintln!("hsaco-conform: cannot write the HSA report: {e}");
            2
        }
    }
}

/// A peer the user names: `--peer NAME=PATH`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Named {
    /// The user's name for it (used instead of `llvm-mc-19` in reports).
    pub name: String,
    /// The path as given, made absolute (not resolved: reproducers name
    /// it as the user did).
    pub path: PathBuf,
}

impl Named {
    /// Parses one `NAME=PATH`; NAME holds letters, digits, `.`, `_` and
    /// `-`, and PATH must exist. The error is one line.
    pub fn parse(spec: &str) -> Result<Named, String> {
        let Some((name, path)) = spec.split_once('=') else {
            return Err(format!(
                "--peer {spec:?}: expected NAME=PATH (e.g. mine=/opt/llvm-20)"
            ));
        };
        let name_ok = !name.is_empty()
            && !name.starts_with('-')
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if !name_ok {
            return Err(format!(
                "--peer {spec:?}: NAME must be letters, digits, '.', '_' or '-' (not starting with '-')"
            ));
        }
        if path.is_empty() {
            return Err(format!("--peer {spec:?}: no PATH after '='"));
        }
        let path = std::path::absolute(path).map_err(|e| format!("--peer {spec}: {e}"))?;
        std::fs::metadata(&path).map_err(|e| format!("--peer {spec}: {e}"))?;
        Ok(Named {
            name: name.to_owned(),
            path,
        })
    }

    /// Parses every `--peer` value; the same NAME twice is an error.
    pub fn parse_all(specs: &[String]) -> Result<Vec<Named>, String> {
        let mut v: Vec<Named> = Vec::new();
        for s in specs {
            let n = Named::parse(s)?;
            if v.iter().any(|m| m.name == n.name) {
                return Err(format!("--peer {s}: the name {:?} is given twice", n.name));
            }
            v.push(n);
        }
        Ok(v)
    }

    /// `--peer NAME=PATH` as the user wrote it (for messages and
    /// reproducers).
    pub fn spec(&self) -> String {
        format!("{}={}", self.name, self.path.display())
    }
}

/// What a file of a named peer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Tool(&'static str),
    Library,
    Comgr,
}

fn classify(file: &str) -> Option<Item> {
    if let Some(t) = tool_of(file) {
        return Some(Item::Tool(t));
    }
    if llvm_disasm::is_llvm_library_name(file) {
        return Some(Item::Library);
    }
    (file.starts_with("libamd_comgr") && file.contains(".so")).then_some(Item::Comgr)
}

/// The files of a named peer: one file, or an install folder's tools
/// (`bin/` or the folder itself), libLLVM and comgr (`lib/` or the folder
/// itself).
fn named_items(n: &Named) -> Result<Vec<(Item, PathBuf)>, String> {
    let shown = format!("--peer {}", n.spec());
    if !n.path.is_dir() {
        let file = |p: &Path| p.file_name().and_then(|f| f.to_str()).map(str::to_owned);
        let real = std::fs::canonicalize(&n.path).ok();
        let item = file(&n.path)
            .as_deref()
            .and_then(classify)
            .or_else(|| real.as_deref().and_then(file).as_deref().and_then(classify));
        return match item {
            Some(i) => Ok(vec![(i, n.path.clone())]),
            None => Err(format!(
                "{shown}: not an LLVM tool ({}), a libLLVM*.so, a libamd_comgr.so or an LLVM install folder",
                LLVM_TOOLS.join(", ")
            )),
        };
    }
    let mut items: Vec<(Item, PathBuf)> = Vec::new();
    for d in [n.path.join("bin"), n.path.clone()] {
        for t in LLVM_TOOLS {
            let p = d.join(t);
            if p.is_file() && !items.iter().any(|(i, _)| *i == Item::Tool(t)) {
                items.push((Item::Tool(t), p));
            }
        }
    }
    for d in [n.path.join("lib"), n.path.clone()] {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut files: Vec<(Item, PathBuf)> = rd
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_owned();
                let item = classify(&name).filter(|i| !matches!(i, Item::Tool(_)))?;
                e.path().is_file().then(|| (item, e.path()))
            })
            .collect();
        // The shortest name of each (`libLLVM.so` before its versions).
        files.sort_by_key(|(_, p)| (p.as_os_str().len(), p.clone()));
        for (i, p) in files {
            if !items.iter().any(|(j, _)| *j == i) {
                items.push((i, p));
            }
        }
    }
    if items.is_empty() {
        return Err(format!(
            "{shown}: no LLVM tool (bin/llvm-mc, bin/llvm-objdump, bin/llvm-readobj, bin/ld.lld), lib/libLLVM*.so or libamd_comgr.so in this folder"
        ));
    }
    Ok(items)
}

/// The peers `n` names, probed; the error is one line.
fn resolve(n: &Named, load: bool) -> Result<Vec<Peer>, String> {
    let shown = format!("--peer {}", n.spec());
    let items = named_items(n)?;
    let single = items.len() == 1 && !n.path.is_dir();
    let mut out = Vec::new();
    for (item, path) in items {
        let mut p = match item {
            Item::Tool(t) => {
                let mut v = llvm_tools(&[(t, path.clone())], VERSION_TIMEOUT);
                let p = v
                    .pop()
                    .ok_or_else(|| format!("{shown}: {} is missing", path.display()))?;
                if let Status::Broken(why) = &p.status {
                    return Err(format!(
                        "{shown}: {} is not a working LLVM tool: {why}",
                        path.display()
                    ));
                }
                p
            }
            Item::Library => {
                let facts = llvm_disasm::probe_library(&path)
                    .map_err(|why| format!("{shown}: {}: {why}", path.display()))?;
                if !facts.amdgpu {
                    return Err(format!(
                        "{shown}: {} is a library without the AMDGPU target (no {})",
                        path.display(),
                        llvm_disasm::AMDGPU_SYMBOL
                    ));
                }
                let name_version = |p: &Path| {
                    p.file_name()
                        .and_then(|f| f.to_str())
                        .and_then(llvm_disasm::version_of)
                };
                let version = facts
                    .version
                    .or_else(|| name_version(&path))
                    .or_else(|| std::fs::canonicalize(&path).ok().as_deref().and_then(name_version))
                    .ok_or_else(|| {
                        format!(
                            "{shown}: {}: cannot tell its LLVM version (no LLVM_NN symbol versions, no version in its name)",
                            path.display()
                        )
                    })?;
                let info = llvm_disasm::LibInfo {
                    version,
                    path: path.clone(),
                };
                let p = library_peer(&info, load);
                if let Status::Broken(why) = &p.status {
                    return Err(format!("{shown}: {why}"));
                }
                p
            }
            Item::Comgr => {
                let p = comgr_peer(Some(&path))
                    .ok_or_else(|| format!("{shown}: {} is missing", path.display()))?;
                if let Status::Broken(why) = &p.status {
                    return Err(format!("{shown}: {why}"));
                }
                p
            }
        };
        let short = match item {
            Item::Tool(t) => t,
            Item::Library => "libllvm",
            Item::Comgr => "comgr",
        };
        p.id = if single {
            n.name.clone()
        } else {
            format!("{}:{short}", n.name)
        };
        p.named = Some(n.clone());
        out.push(p);
    }
    Ok(out)
}

/// Adds `found` to `peers` unless it is the same file as one of them
/// (named peers come first): then its paths become that one's aliases.
fn merge(peers: &mut Vec<Peer>, found: Vec<Peer>) {
    for f in found {
        match peers
            .iter_mut()
            .find(|p| p.kind == f.kind && p.real == f.real)
        {
            Some(p) => {
                for a in std::iter::once(f.path).chain(f.aliases) {
                    if a != p.path && !p.aliases.contains(&a) {
                        p.aliases.push(a);
                    }
                }
            }
            None => peers.push(f),
        }
    }
}

/// A library that is not a peer, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NotPeer {
    /// The file.
    pub path: PathBuf,
    /// Why it is not a peer.
    pub reason: String,
}

/// Everything found: LLVM tools and libraries, comgr, the HSA runtime.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Discovery {
    /// Every peer: LLVM tools and libraries sorted by major version, then
    /// comgr and the HSA runtime.
    pub peers: Vec<Peer>,
    /// LLVM major versions with at least one usable tool or library.
    pub llvm_versions: Vec<u32>,
    /// LLVM libraries that were found and are not peers: in a Rust
    /// toolchain's or cargo's folder of `LD_LIBRARY_PATH`, or without the
    /// AMDGPU target.
    pub not_peers: Vec<NotPeer>,
}

impl Discovery {
    /// The peers of one LLVM major version.
    pub fn llvm(&self, major: u32) -> impl Iterator<Item = &Peer> {
        self.peers
            .iter()
            .filter(move |p| p.llvm_major == Some(major))
    }
}

/// What [`discover_with`] looks for.
#[derive(Clone, Debug, Default)]
pub struct Options<'a> {
    /// The program to run the HSA probe with (this program); `None` skips
    /// the probe.
    pub hsa: Option<&'a Path>,
    /// Load each libLLVM to check that its disassembler works (`peers`;
    /// `conform` loads them in its worker processes only).
    pub load: bool,
    /// The peers the user names (`--peer`), first.
    pub named: &'a [Named],
}

/// Discovers every peer. `exe` is the program to run the HSA probe with
/// (this program: `std::env::current_exe()`); `None` skips the probe.
pub fn discover(exe: Option<&Path>) -> Discovery {
    discover_with(&Options {
        hsa: exe,
        load: true,
        named: &[],
    })
    .unwrap_or_else(|_| Discovery {
        peers: Vec::new(),
        llvm_versions: Vec::new(),
        not_peers: Vec::new(),
    })
}

/// Discovers every peer, the named ones first (a named peer that is the
/// same file as one found replaces it). `Err` (one line) for a named
/// peer that is not what `--peer` takes or does not work.
pub fn discover_with(o: &Options<'_>) -> Result<Discovery, String> {
    let mut named: Vec<Peer> = Vec::new();
    for n in o.named {
        named.extend(resolve(n, o.load)?);
    }
    let path_dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    let candidates = tool_candidates(&path_dirs, Path::new("/usr/lib"));
    // The HSA probe runs while the tools answer.
    let (tools, hsa) = std::thread::scope(|s| {
        let hsa = o.hsa.map(|e| s.spawn(move || hsa_peer(e)));
        let tools = llvm_tools(&candidates, VERSION_TIMEOUT);
        (tools, hsa.and_then(|h| h.join().ok().flatten()))
    });
    let mut found = tools;
    let (libs, passed_over) = llvm_disasm::scan(&llvm_disasm::default_dirs());
    found.extend(libs.iter().map(|info| library_peer(info, o.load)));
    found.extend(comgr_peer(None));
    for f in &found {
        if let Some(n) = named.iter().find(|n| n.id == f.id && n.real != f.real) {
            return Err(format!(
                "--peer {}: {:?} is the id of {}, found on this machine; choose another NAME",
                n.named.as_ref().map(Named::spec).unwrap_or_default(),
                n.id,
                f.path.display()
            ));
        }
    }
    let mut peers = named;
    merge(&mut peers, found);
    // ld.lld of any version makes llvm-mc able to rebuild.
    let linker = peers
        .iter()
        .any(|p| p.name == "ld.lld" && p.status.is_usable());
    if !linker {
        for p in peers.iter_mut().filter(|p| p.name == "llvm-mc") {
            p.compares.retain(|c| *c != Capability::Rebuild);
        }
    }
    let (mut llvm, mut rest): (Vec<Peer>, Vec<Peer>) = peers
        .into_iter()
        .partition(|p| matches!(p.kind, Kind::Tool | Kind::Library));
    llvm.sort_by(|a, b| {
        (a.llvm_major, a.kind, &a.name, &a.id).cmp(&(b.llvm_major, b.kind, &b.name, &b.id))
    });
    rest.extend(hsa);
    llvm.extend(rest);
    let peers = llvm;
    let mut llvm_versions: Vec<u32> = peers
        .iter()
        .filter(|p| p.status.is_usable())
        .filter_map(|p| p.llvm_major)
        .collect();
    llvm_versions.sort_unstable();
    llvm_versions.dedup();
    let not_peers = llvm_disasm::toolchain_libraries()
        .into_iter()
        .chain(passed_over)
        .map(|s| NotPeer {
            path: s.path,
            reason: s.reason,
        })
        .collect();
    Ok(Discovery {
        peers,
        llvm_versions,
        not_peers,
    })
}

impl fmt::Display for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {}",
            self.name,
            self.version.as_deref().unwrap_or("?"),
            self.path.display()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        assert_eq!(
            parse_version("Debian LLVM version 19.1.7\n  Optimized build."),
            Some(("19.1.7".into(), 19))
        );
        assert_eq!(
            parse_version("Debian LLD 19.1.7 (compatible with GNU linkers)"),
            Some(("19.1.7".into(), 19))
        );
        assert_eq!(
            parse_version("LLVM (http://llvm.org/):\n  LLVM version 14.0.6"),
            Some(("14.0.6".into(), 14))
        );
        assert_eq!(parse_version("no version here 1."), None);
    }

    #[test]
    fn tool_names() {
        assert_eq!(tool_of("llvm-mc"), Some("llvm-mc"));
        assert_eq!(tool_of("llvm-mc-19"), Some("llvm-mc"));
        assert_eq!(tool_of("ld.lld-14"), Some("ld.lld"));
        assert_eq!(tool_of("llvm-mca"), None);
        assert_eq!(tool_of("llvm-mc-"), None);
        assert_eq!(tool_of("llvm-mc-x"), None);
        assert_eq!(tool_of("llvm-objdump-19.1"), None);
    }

    #[test]
    fn candidates_and_dedup() {
        let d = tempfile::tempdir().expect("tempdir");
        let bin = d.path().join("bin");
        let root = d.path().join("lib");
        let l19 = root.join("llvm-19").join("bin");
        std::fs::create_dir_all(&bin).expect("mkdir");
        std::fs::create_dir_all(&l19).expect("mkdir");
        let script = "#!/bin/sh\necho 'Fake LLVM version 19.0.1'\n";
        let real = l19.join("llvm-mc");
        std::fs::write(&real, script).expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o755)).expect("chmod");
            std::os::unix::fs::symlink(&real, bin.join("llvm-mc-19")).expect("link");
        }
        std::fs::write(bin.join("llvm-mca"), "").expect("write");
        let c = tool_candidates(std::slice::from_ref(&bin), &root);
        assert_eq!(
            c,
            vec![
                ("llvm-mc", bin.join("llvm-mc-19")),
                ("llvm-mc", real.clone())
            ]
        );
        let peers = llvm_tools(&c, VERSION_TIMEOUT);
        assert_eq!(peers.len(), 1);
        assert_eq!(peers[0].path, bin.join("llvm-mc-19"));
        assert_eq!(peers[0].aliases, vec![real]);
        assert_eq!(peers[0].version.as_deref(), Some("19.0.1"));
        assert_eq!(peers[0].llvm_major, Some(19));
        assert!(peers[0].status.is_usable());
    }

    #[test]
    fn timeouts_are_reported() {
        let r = run_with_timeout(
            Command::new("sh").args(["-c", "sleep 5"]),
            Duration::from_millis(200),
        );
        assert_eq!(r.map(|_| ()), Err("timed out after 0 s".into()));
    }

    #[test]
    fn hsa_reports_become_statuses() {
        let mut p = Peer::new(Kind::HsaRuntime, "hsa-runtime", PathBuf::from("/x"));
        let r = HsaReport {
            init_status: "0x1008".into(),
            init_message: "HSA_STATUS_ERROR_OUT_OF_RESOURCES".into(),
            ..HsaReport::default()
        };
        hsa_status(&mut p, &r);
        assert!(!p.status.is_usable());
        assert!(p.compares.is_empty());
        assert!(p
            .reason
            .as_deref()
            .is_some_and(|s| s.starts_with("hsa_init returned 0x1008")));
        let mut q = Peer::new(Kind::HsaRuntime, "hsa-runtime", PathBuf::from("/x"));
        let ok = HsaReport {
            init_status: "0x0".into(),
            iterate_status: Some("0x0".into()),
            agents: vec![("gfx90a".into(), "gpu".into())],
            ..HsaReport::default()
        };
        hsa_status(&mut q, &ok);
        assert!(q.status.is_usable());
        assert_eq!(
            q.details.get("agents").map(String::as_str),
            Some("gfx90a (gpu)")
        );
    }
}
