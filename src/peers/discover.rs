//! Peer discovery: every tool and library on this machine that the project
//! can compare with the oracle, its version, whether it works, and what it
//! can compare.
//!
//! * LLVM tools (`llvm-mc`, `llvm-objdump`, `llvm-readobj`, `ld.lld`):
//!   found on `PATH` with and without a `-NN` suffix and in
//!   `/usr/lib/llvm-NN/bin`; one entry per distinct executable (symlinks
//!   resolved), its version read from `TOOL --version` (run once, with a
//!   timeout), grouped by LLVM major version.
//! * `libLLVM` ([`super::llvm_disasm::discover`]), loaded to check that its
//!   AMDGPU disassembler initialises.
//! * comgr ([`super::comgr`]), loaded; version from its API.
//! * The HSA runtime (`libhsa-runtime64.so.1`): loaded in a child process
//!   (the runtime may hang or crash without a GPU) that reports `hsa_init`
//!   and the agents `hsa_iterate_agents` lists ([`hsa_worker`]).

use std::collections::BTreeMap;
use std::ffi::{c_int, c_void, CStr};
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::{comgr, llvm_disasm};

/// The LLVM tools looked for.
pub const LLVM_TOOLS: [&str; 4] = ["llvm-mc", "llvm-objdump", "llvm-readobj", "ld.lld"];

/// How long `TOOL --version` may take.
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the HSA probe may take.
pub const HSA_TIMEOUT: Duration = Duration::from_secs(30);

/// File name of the HSA runtime.
pub const HSA_LIBRARY: &str = "libhsa-runtime64.so.1";

/// A `conform` comparison a peer takes part in (the ids `conform --kinds`
/// takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Capability {
    /// `smem-disasm`: SMEM words decoded by libLLVM's disassembler (in
    /// process) or `llvm-mc --disassemble`.
    #[serde(rename = "smem-disasm")]
    SmemDisasm,
    /// `smem-encode`: SMEM encodings from `llvm-mc -show-encoding`.
    #[serde(rename = "smem-encode")]
    SmemEncode,
    /// `rebuild`: objects rebuilt from assembler text by `llvm-mc` and
    /// `ld.lld`.
    #[serde(rename = "rebuild")]
    Rebuild,
    /// `descriptors`: kernel descriptors decoded by `llvm-objdump`, and its
    /// directives assembled again by `llvm-mc`.
    #[serde(rename = "descriptors")]
    Descriptors,
    /// `metadata`: metadata notes printed by `llvm-readobj --notes`.
    #[serde(rename = "metadata")]
    Metadata,
    /// `comgr-metadata`: metadata, ISA name and symbols read by comgr.
    #[serde(rename = "comgr-metadata")]
    ComgrMetadata,
    /// `mutants`: whether the peer complains about objects that break a
    /// rule.
    #[serde(rename = "mutants")]
    Mutants,
}

impl Capability {
    /// Every capability, in `conform`'s order.
    pub const ALL: [Capability; 7] = [
        Self::SmemDisasm,
        Self::SmemEncode,
        Self::Rebuild,
        Self::Descriptors,
        Self::Metadata,
        Self::ComgrMetadata,
        Self::Mutants,
    ];

    /// The comparison id (as in JSON and `conform --kinds`).
    pub fn name(self) -> &'static str {
        match self {
            Self::SmemDisasm => "smem-disasm",
            Self::SmemEncode => "smem-encode",
            Self::Rebuild => "rebuild",
            Self::Descriptors => "descriptors",
            Self::Metadata => "metadata",
            Self::ComgrMetadata => "comgr-metadata",
            Self::Mutants => "mutants",
        }
    }

    /// What it means, for people.
    pub fn description(self) -> &'static str {
        match self {
            Self::SmemDisasm => "SMEM words via libLLVM (in process) or llvm-mc --disassemble",
            Self::SmemEncode => "SMEM encodings via llvm-mc -show-encoding",
            Self::Rebuild => "objects rebuilt from assembler text via llvm-mc + ld.lld",
            Self::Descriptors => "kernel descriptors via llvm-objdump, reassembled by llvm-mc",
            Self::Metadata => "metadata via llvm-readobj --notes",
            Self::ComgrMetadata => "metadata, ISA name and symbols via comgr",
            Self::Mutants => "which invalid objects the tool reads without complaint",
        }
    }
}

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
}

fn ser_status<S: serde::Serializer>(s: &Status, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(if s.is_usable() { "usable" } else { "broken" })
}

impl Peer {
    fn new(kind: Kind, name: &str, path: PathBuf) -> Self {
        Peer {
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

/// Candidate LLVM tool paths: `PATH` directories, then
/// `/usr/lib/llvm-*/bin` (sorted), each file named as [`tool_of`] accepts.
pub fn tool_candidates(path_dirs: &[PathBuf], llvm_root: &Path) -> Vec<(&'static str, PathBuf)> {
    // A directory reached twice (`/bin` linked to `/usr/bin`) is read once.
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    for d in path_dirs {
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
    out.sort_by(|a, b| (a.llvm_major, &a.name, &a.path).cmp(&(b.llvm_major, &b.name, &b.path)));
    out
}

/// Every `libLLVM` ([`llvm_disasm::discover`]), loaded to check it.
pub fn llvm_libraries() -> Vec<Peer> {
    llvm_disasm::discover()
        .into_iter()
        .map(|info| {
            let mut p = Peer::new(Kind::Library, "libLLVM", info.path.clone());
            p.llvm_major = Some(info.version);
            p.version = Some(info.version.to_string());
            p.compares = vec![Capability::SmemDisasm];
            match llvm_disasm::LlvmLib::load(&info) {
                Ok(lib) => match lib.knows_processor("gfx900") {
                    Some(true) | None => {}
                    Some(false) => p.broken("its AMDGPU target does not know gfx900"),
                },
                Err(e) => p.broken(e.to_string()),
            }
            p
        })
        .collect()
}

/// comgr, if installed.
pub fn comgr_peer() -> Option<Peer> {
    let path = comgr::find().ok()?;
    let mut p = Peer::new(Kind::Comgr, "comgr", path);
    p.compares = vec![Capability::ComgrMetadata, Capability::Mutants];
    match comgr::Comgr::open() {
        Ok(c) => {
            let (major, minor) = c.version();
            p.version = Some(format!("{major}.{minor}"));
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

type HsaInitFn = unsafe extern "C" fn() -> u32;
type HsaStatusStringFn = unsafe extern "C" fn(status: u32, text: *mut *const i8) -> u32;
type HsaAgentCallback = unsafe extern "C" fn(agent: u64, data: *mut c_void) -> u32;
type HsaIterateAgentsFn = unsafe extern "C" fn(cb: HsaAgentCallback, data: *mut c_void) -> u32;
type HsaAgentGetInfoFn =
    unsafe extern "C" fn(agent: u64, attribute: c_int, value: *mut c_void) -> u32;
type HsaSystemGetInfoFn = unsafe extern "C" fn(attribute: c_int, value: *mut c_void) -> u32;

// `hsa_agent_info_t`, `hsa_system_info_t`.
const HSA_AGENT_INFO_NAME: c_int = 0;
const HSA_AGENT_INFO_DEVICE: c_int = 17;
const HSA_SYSTEM_INFO_VERSION_MAJOR: c_int = 0;
const HSA_SYSTEM_INFO_VERSION_MINOR: c_int = 1;

struct Agents {
    get_info: HsaAgentGetInfoFn,
    list: Vec<(String, String)>,
}

unsafe extern "C" fn agent_entry(agent: u64, data: *mut c_void) -> u32 {
    // SAFETY: `data` is the `Agents` that `probe_hsa` passed to
    // hsa_iterate_agents, alive for that call. Nothing here panics.
    let a = unsafe { &mut *data.cast::<Agents>() };
    let mut name = [0u8; 64];
    let mut device: u32 = u32::MAX;
    // SAFETY: the name attribute is char[64]; the device attribute is an
    // enum (uint32).
    unsafe {
        (a.get_info)(agent, HSA_AGENT_INFO_NAME, name.as_mut_ptr().cast());
        (a.get_info)(
            agent,
            HSA_AGENT_INFO_DEVICE,
            (&mut device as *mut u32).cast(),
        );
    }
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    let kind = match device {
        0 => "cpu".to_owned(),
        1 => "gpu".to_owned(),
        2 => "dsp".to_owned(),
        n => n.to_string(),
    };
    a.list
        .push((String::from_utf8_lossy(&name[..end]).into_owned(), kind));
    0
}

/// Loads the HSA runtime at `path` and calls `hsa_init`, then (if that
/// worked) `hsa_system_get_info` and `hsa_iterate_agents`, and
/// `hsa_shut_down`. Run it in a child process: the runtime may hang or
/// crash.
pub fn probe_hsa(path: &Path) -> HsaReport {
    let mut r = HsaReport {
        library: path.display().to_string(),
        ..HsaReport::default()
    };
    // SAFETY: loading runs the runtime's initialisers; this is the child
    // process made for it.
    let lib = match unsafe { libloading::Library::new(path) } {
        Ok(l) => l,
        Err(e) => {
            r.error = Some(format!("cannot load {}: {e}", path.display()));
            return r;
        }
    };
    macro_rules! sym {
        ($t:ty, $name:expr) => {
            // SAFETY: the HSA API function `$name` has the signature `$t`.
            match unsafe { lib.get::<$t>($name.as_bytes()) } {
                Ok(s) => *s,
                Err(_) => {
                    r.error = Some(format!("{} has no function {}", path.display(), $name));
                    return r;
                }
            }
        };
    }
    let init = sym!(HsaInitFn, "hsa_init");
    let shut_down = sym!(HsaInitFn, "hsa_shut_down");
    let status_string = sym!(HsaStatusStringFn, "hsa_status_string");
    let iterate = sym!(HsaIterateAgentsFn, "hsa_iterate_agents");
    let get_info = sym!(HsaAgentGetInfoFn, "hsa_agent_get_info");
    let system_info = sym!(HsaSystemGetInfoFn, "hsa_system_get_info");
    let text = |s: u32| -> String {
        let mut p: *const i8 = std::ptr::null();
        // SAFETY: writes a pointer to a static string, or fails.
        let st = unsafe { status_string(s, &mut p) };
        if st != 0 || p.is_null() {
            return String::new();
        }
        // SAFETY: the runtime returns a NUL-terminated static string.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    };
    // SAFETY: no arguments.
    let st = unsafe { init() };
    r.init_status = format!("{st:#x}");
    r.init_message = text(st);
    if st != 0 {
        return r;
    }
    let (mut major, mut minor) = (0u16, 0u16);
    // SAFETY: the version attributes are uint16_t.
    let ok = unsafe {
        system_info(
            HSA_SYSTEM_INFO_VERSION_MAJOR,
            (&mut major as *mut u16).cast(),
        ) == 0
            && system_info(
                HSA_SYSTEM_INFO_VERSION_MINOR,
                (&mut minor as *mut u16).cast(),
            ) == 0
    };
    if ok {
        r.version = Some(format!("{major}.{minor}"));
    }
    let mut agents = Agents {
        get_info,
        list: Vec::new(),
    };
    // SAFETY: `agent_entry` matches the callback type and treats `data` as
    // the `Agents` passed here, alive across the call.
    let st = unsafe { iterate(agent_entry, (&mut agents as *mut Agents).cast()) };
    r.iterate_status = Some(format!("{st:#x}"));
    r.agents = agents.list;
    // SAFETY: balances the successful hsa_init.
    unsafe { shut_down() };
    r
}

/// The `peers-worker hsa PATH` subcommand: prints [`probe_hsa`]'s report as
/// one JSON line. Exit status 0 whenever the report was printed.
pub fn hsa_worker(path: &Path) -> u8 {
    let r = probe_hsa(path);
    match serde_json::to_string(&r) {
        Ok(s) => {
            println!("{s}");
            0
        }
        Err(e) => {
            eprintln!("hsaco-conform: cannot write the HSA report: {e}");
            2
        }
    }
}

/// Everything found: LLVM tools and libraries, comgr, the HSA runtime.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Discovery {
    /// Every peer: LLVM tools and libraries sorted by major version, then
    /// comgr and the HSA runtime.
    pub peers: Vec<Peer>,
    /// LLVM major versions with at least one usable tool or library.
    pub llvm_versions: Vec<u32>,
}

impl Discovery {
    /// The peers of one LLVM major version.
    pub fn llvm(&self, major: u32) -> impl Iterator<Item = &Peer> {
        self.peers
            .iter()
            .filter(move |p| p.llvm_major == Some(major))
    }
}

/// Discovers every peer. `exe` is the program to run the HSA probe with
/// (this program: `std::env::current_exe()`); `None` skips the probe.
pub fn discover(exe: Option<&Path>) -> Discovery {
    let path_dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    let candidates = tool_candidates(&path_dirs, Path::new("/usr/lib"));
    // The HSA probe runs while the tools answer.
    let (tools, hsa) = std::thread::scope(|s| {
        let hsa = exe.map(|e| s.spawn(move || hsa_peer(e)));
        let tools = llvm_tools(&candidates, VERSION_TIMEOUT);
        (tools, hsa.and_then(|h| h.join().ok().flatten()))
    });
    let mut peers = tools;
    // ld.lld of any version makes llvm-mc able to rebuild.
    let linker = peers
        .iter()
        .any(|p| p.name == "ld.lld" && p.status.is_usable());
    if !linker {
        for p in peers.iter_mut().filter(|p| p.name == "llvm-mc") {
            p.compares.retain(|c| *c != Capability::Rebuild);
        }
    }
    peers.extend(llvm_libraries());
    peers.sort_by(|a, b| {
        (a.llvm_major, a.kind, &a.name, &a.path).cmp(&(b.llvm_major, b.kind, &b.name, &b.path))
    });
    peers.extend(comgr_peer());
    peers.extend(hsa);
    let mut llvm_versions: Vec<u32> = peers
        .iter()
        .filter(|p| p.status.is_usable())
        .filter_map(|p| p.llvm_major)
        .collect();
    llvm_versions.sort_unstable();
    llvm_versions.dedup();
    Discovery {
        peers,
        llvm_versions,
    }
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
