//! Findings: what the run reports as new, deduplicated by signature, with
//! a reproducer; and the output folder they are written to.
//!
//! # Output folder (`--out DIR`)
//!
//! ```text
//! DIR/manifest.jsonl           one JSON object per finding (below)
//! DIR/findings/ID/finding.json the whole finding
//! DIR/findings/ID/input.txt    the reduced reproducer, in the peer's format
//!                              (input-PEER.txt when a peer reads another form)
//! DIR/findings/ID/original.txt the input as first seen, before reduction
//! DIR/state.json               the run's record: command, resume key,
//!                              finished units, finding folders written
//! DIR/.lock                    locked (flock) while a run uses the folder
//! ```
//!
//! [`Store`] owns the folder. Before any work ([`Store::claim`]) it takes
//! a new folder, an empty one, or one that holds a `state.json` of this
//! tool (an earlier run); any other folder is refused, and nothing is
//! written into it. The folder is locked for the whole run (`flock` on
//! `DIR/.lock`: the kernel releases it when the process ends, however it
//! ends, so no stale lock blocks the next run); a second run on the same
//! folder fails at once, naming the PID that holds it.
//!
//! [`Store::begin`] then compares the earlier run's resume key (command,
//! options, tool version, allowlist) with this run's: the same key resumes
//! (its finished units are kept); another key (other options, or `diff
//! words` in a `conform` folder) starts afresh, removing only what the
//! earlier run wrote: `manifest.jsonl` and the finding folders its record
//! names. Files this tool did not write (a README next to the findings, a
//! folder of one's own under `findings/`) are never removed or replaced;
//! a finding whose folder name is taken by such a folder is not written
//! (a warning says so).
//!
//! Every file is written to a temporary name in the same folder and
//! renamed, and a finding's folder is built under a temporary name and
//! renamed into place, so an interrupted run (SIGINT, SIGKILL) leaves no
//! half-written file under a final name; leftovers (`.tmp-NAME-PID-N`
//! named after this tool's own files) are removed by the next run in the
//! folder.
//!
//! A manifest line:
//!
//! ```json
//! {"id": "crash-llvm-5c1d0e2a9f3b", "kind": "crash", "comparison": "words",
//!  "component": "llvm", "key": "SIGSEGV (11) disassembling 0xf9 0x00 ...",
//!  "message": "...", "peers": ["libllvm-14", "llvm-mc-19"], "versions": [14, 19],
//!  "targets": ["gfx900"], "count": 4, "dir": "findings/crash-llvm-5c1d0e2a9f3b",
//!  "input": "findings/crash-llvm-5c1d0e2a9f3b/input.txt",
//!  "command": "llvm-mc-19 --disassemble -triple=amdgcn-amd-amdhsa -mcpu=gfx900 input.txt"}
//! ```

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Crash, Hang, Input};

/// What makes two problems the same: the comparison (or, for crashes and
/// hangs, the way the peer was used), the component of the peer, the kind
/// and the normalized message or crash site. The peer's version is not
/// part of it: one bug in LLVM 14 and 19 is one finding listing both.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Signature {
    /// `different`, `crash`, `hang` or `informational`.
    pub kind: String,
    /// Comparison id (`different`), or the way the peer was used
    /// (`disassemble`, `assemble`, `read`) for crashes and hangs.
    pub scope: String,
    /// The peer's component (`llvm`).
    pub component: String,
    /// The normalized message (`different`), or the crash site: the
    /// reduced input (`crash`, `hang`).
    pub key: String,
}

impl Signature {
    /// A stable id: `KIND-COMPONENT-` and 12 hex digits of a SHA-256 of the
    /// signature.
    pub fn id(&self) -> String {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        for part in [&self.kind, &self.scope, &self.component, &self.key] {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        let d = h.finalize();
        format!(
            "{}-{}-{}",
            self.kind,
            sanitize(&self.component),
            super::hex_bytes::encode(d.get(..6).unwrap_or(&[]))
        )
    }
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A command that shows the problem with one peer alone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Repro {
    /// The peer.
    pub peer: String,
    /// The processor.
    pub target: String,
    /// Program and arguments; the reproducer file is named relative to the
    /// finding's folder.
    pub argv: Vec<String>,
    /// The command as one shell line.
    pub shell: String,
    /// For crashes and hangs: whether running it showed the problem again
    /// (`None`: not checked).
    pub reproduces: Option<bool>,
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// [`Signature::id`].
    pub id: String,
    /// The signature.
    pub signature: Signature,
    /// The comparison it came from.
    pub comparison: String,
    /// For people: what differed, or how the peer crashed or hung.
    pub message: String,
    /// Peers that showed it.
    pub peers: BTreeSet<String>,
    /// Their major versions.
    pub versions: BTreeSet<u32>,
    /// Processors it was seen on.
    pub targets: BTreeSet<String>,
    /// Events merged into it.
    pub count: u64,
    /// Where the first event's input came from (`line 12`, `word 4100`).
    pub origin: String,
    /// The input as first seen.
    pub original: Vec<Input>,
    /// The reduced input.
    pub reduced: Vec<Input>,
    /// Peer calls the reduction made.
    pub reduction_tests: usize,
    /// The crash (kind `crash`): the first one seen.
    pub crash: Option<Crash>,
    /// The first crash of each peer (with its status and the last lines
    /// of its standard error).
    #[serde(default)]
    pub crashes: std::collections::BTreeMap<String, Crash>,
    /// Every way it crashed (`SIGSEGV (11)`, `SIGILL (4)`: one wild jump
    /// ends differently in different builds).
    #[serde(default)]
    pub statuses: BTreeSet<String>,
    /// Crash sites reported by peers that print a stack dump
    /// ([`Crash::site`]); findings sharing a site are merged.
    #[serde(default)]
    pub sites: BTreeSet<String>,
    /// Other reduced inputs that were merged into this finding because
    /// they crash at the same site.
    #[serde(default)]
    pub also: Vec<Input>,
    /// The hang (kind `hang`).
    pub hang: Option<Hang>,
    /// Commands that show it with one peer alone.
    pub commands: Vec<Repro>,
    /// Folder of the finding, relative to the output folder (set when
    /// written).
    pub dir: Option<String>,
    /// The reproducer files in that folder: (peer, file name).
    pub files: Vec<(String, String)>,
    /// Informational (kind `informational`: a peer that accepts an
    /// invalid object): listed, but not a new finding for the exit status.
    #[serde(default)]
    pub informational: bool,
}

impl Finding {
    /// The manifest line.
    pub fn manifest_line(&self) -> serde_json::Value {
        serde_json::json!({
            "id": self.id,
            "kind": self.signature.kind,
            "informational": self.informational,
            "comparison": self.comparison,
            "component": self.signature.component,
            "key": self.signature.key,
            "message": self.message,
            "peers": self.peers,
            "versions": self.versions,
            "targets": self.targets,
            "count": self.count,
            "dir": self.dir,
            "input": self.dir.as_ref().and_then(|d| self.files.first().map(|(_, f)| format!("{d}/{f}"))),
            "command": self.commands.first().map(|c| c.shell.clone()),
            "status": self.crash.as_ref().map(|c| c.status.clone()),
            "statuses": self.statuses,
            "sites": self.sites,
        })
    }
}

/// Quotes a word for a POSIX shell when needed.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=./:,+@%".contains(c))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// A command line for a shell.
pub fn shell_line(argv: &[String]) -> String {
    argv.iter()
        .map(|a| shell_quote(a))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Checks, before any work, that [`crate::files::write_durable`] can write `path`: it is
/// not a folder, and a file can be created next to it (a probe file is
/// created and removed; `path` itself is neither created nor truncated).
/// The error is one line naming the path and the system's reason.
pub fn check_writable(path: &Path) -> Result<(), String> {
    if path.as_os_str().is_empty() {
        return Err("an empty path".to_owned());
    }
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(format!(
            "{}: cannot write: {}",
            path.display(),
            std::io::Error::from_raw_os_error(libc::EISDIR)
        ));
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    probe_dir(dir).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

/// Creates and removes a probe file in `dir`.
fn probe_dir(dir: &Path) -> std::io::Result<()> {
    let probe = crate::files::temp_path(&dir.join("probe"));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?;
    std::fs::remove_file(&probe)
}

/// The file that marks a folder as an `--out` folder of this tool and
/// records its run: the command, its resume key, the finished units and
/// the finding folders it wrote.
pub const STATE_FILE: &str = "state.json";
/// The lock file of an output folder (`flock`, held while a run uses it;
/// it holds the PID of the run that took it last).
pub const LOCK_FILE: &str = ".lock";
const MANIFEST_FILE: &str = "manifest.jsonl";
const FINDINGS_DIR: &str = "findings";

/// What `state.json` holds.
#[derive(Serialize, Deserialize)]
struct Record {
    /// Always `hsaco-conform` (older folders lack it).
    #[serde(default = "tool_name")]
    tool: String,
    /// The command that wrote the folder (`conform`, `diff words`).
    #[serde(default)]
    command: String,
    /// The resume key: command, options, tool and allowlist versions.
    key: String,
    /// Finished units (the engine's format).
    units: serde_json::Map<String, serde_json::Value>,
    /// Finding folders (ids under `findings/`) this tool wrote here.
    #[serde(default)]
    findings: BTreeSet<String>,
}

fn tool_name() -> String {
    "hsaco-conform".to_owned()
}

impl Record {
    fn read(dir: &Path) -> Result<Option<Record>, String> {
        let p = dir.join(STATE_FILE);
        let bytes = match std::fs::read(&p) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read {STATE_FILE}: {e}")),
        };
        let r: Record = serde_json::from_slice(&bytes)
            .map_err(|e| format!("{STATE_FILE} is not a run record of this tool ({e})"))?;
        if r.tool != tool_name() {
            return Err(format!("{STATE_FILE} was written by {:?}", r.tool));
        }
        Ok(Some(r))
    }
}

/// How a run starts in its output folder ([`Store::begin`]).
#[derive(Debug, PartialEq)]
pub enum Begin {
    /// The folder held no earlier run.
    Fresh,
    /// The folder holds an earlier run of the same command and options:
    /// its finished units.
    Resumed(serde_json::Map<String, serde_json::Value>),
    /// The folder held a run of another command or other options
    /// (named): its files were removed, the run starts afresh.
    Restarted {
        /// The earlier run's command.
        command: String,
    },
}

/// The output folder (`--out DIR`) of one run: checked before any work
/// ([`Store::claim`]), locked while the run lasts, and written only where
/// this tool's own records say (see the module docs).
pub struct Store {
    dir: PathBuf,
    /// The locked `.lock` file (the lock ends when it is closed, or when
    /// the process dies); `None` until the folder exists.
    lock: Option<std::fs::File>,
    record: std::sync::Mutex<Option<Record>>,
}

/// True for a temporary name [`crate::files::temp_path`] makes:
/// `.tmp-STEM-PID-N` with a stem `stem_ok` accepts.
fn our_tmp(name: &str, stem_ok: impl Fn(&str) -> bool) -> bool {
    let Some(rest) = name.strip_prefix(".tmp-") else {
        return false;
    };
    let mut parts = rest.rsplitn(3, '-');
    let digits =
        |s: Option<&str>| s.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
    let (n, pid, stem) = (parts.next(), parts.next(), parts.next());
    digits(n) && digits(pid) && stem.is_some_and(stem_ok)
}

/// True for a name shaped like [`Signature::id`]: `KIND-COMPONENT-` and
/// 12 lowercase hex digits.
fn is_finding_id(s: &str) -> bool {
    let Some((head, hex)) = s.rsplit_once('-') else {
        return false;
    };
    hex.len() == 12
        && hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && head.contains('-')
        && head
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Takes the lock of `dir` (creating `.lock`), or says which run holds it.
fn lock(dir: &Path) -> Result<std::fs::File, String> {
    use std::io::Seek;
    let p = dir.join(LOCK_FILE);
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&p)
        .map_err(|e| format!("--out {}: cannot create {LOCK_FILE}: {e}", dir.display()))?;
    match try_flock_after_dead_holder(&mut f) {
        Ok(true) => {}
        Ok(false) => {
            let who = match lock_holder(&mut f) {
                Some(pid) => format!(" (PID {pid})"),
                None => String::new(),
            };
            return Err(format!(
                "--out {}: in use by another hsaco-conform run{who}; wait for it to end or give another folder",
                dir.display()
            ));
        }
        Err(e) => {
            return Err(format!(
                "--out {}: cannot lock {LOCK_FILE}: {e}",
                dir.display()
            ))
        }
    }
    // The PID is for the message above only: the lock itself is the
    // kernel's, released when the process ends however it ends.
    let _ = f.set_len(0);
    let _ = f.rewind();
    let _ = writeln!(f, "{}", std::process::id());
    Ok(f)
}

/// The PID the lock file names (the run that took the lock last).
fn lock_holder(f: &mut std::fs::File) -> Option<u32> {
    use std::io::{Read, Seek};
    let mut s = String::new();
    f.rewind().ok()?;
    f.read_to_string(&mut s).ok()?;
    s.trim().parse().ok()
}

/// [`try_flock`], waiting up to 3 s when the run the lock file names is
/// gone: a run killed with SIGKILL may leave a child between `fork` and
/// `exec` that holds the lock for a moment longer (the kernel releases it
/// when the last copy of the descriptor closes).
fn try_flock_after_dead_holder(f: &mut std::fs::File) -> std::io::Result<bool> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    loop {
        if try_flock(f)? {
            return Ok(true);
        }
        let dead = lock_holder(f).is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists());
        if !dead || std::time::Instant::now() >= deadline {
            return Ok(false);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// `flock(LOCK_EX | LOCK_NB)`: `Ok(false)` when another open file holds it.
#[allow(unsafe_code)]
fn try_flock(f: &std::fs::File) -> std::io::Result<bool> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock takes a descriptor, which `f` keeps open for the call.
    let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(e)
    }
}

impl Store {
    /// Checks `dir` before any work, without writing anything into a
    /// folder that is not this tool's: it must be a new folder (whose
    /// nearest existing parent is writable), an empty folder, or an
    /// earlier run's folder (it holds a readable `state.json`). An
    /// existing folder is locked at once, so a second run on it fails
    /// here. The error is one line naming `dir`, why, and what to do.
    pub fn claim(dir: &Path) -> Result<Store, String> {
        let shown = dir.display();
        let store = |lock| Store {
            dir: dir.to_path_buf(),
            lock,
            record: std::sync::Mutex::new(None),
        };
        match std::fs::metadata(dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // Created by `begin`: the nearest existing parent must take it.
                let parent = dir
                    .ancestors()
                    .skip(1)
                    .map(|a| {
                        if a.as_os_str().is_empty() {
                            Path::new(".")
                        } else {
                            a
                        }
                    })
                    .find(|a| std::fs::symlink_metadata(a).is_ok())
                    .unwrap_or(Path::new("."));
                probe_dir(parent).map_err(|e| format!("--out {shown}: cannot create it: {e}"))?;
                Ok(store(None))
            }
            Err(e) => Err(format!("--out {shown}: cannot use it: {e}")),
            Ok(m) if !m.is_dir() => Err(format!(
                "--out {shown}: not a folder; give a new or empty folder"
            )),
            Ok(_) => {
                match Record::read(dir) {
                    Ok(Some(_)) => {}
                    Ok(None) => {
                        let strangers = Self::strangers(dir)
                            .map_err(|e| format!("--out {shown}: cannot read it: {e}"))?;
                        if let Some(first) = strangers.first() {
                            return Err(format!(
                                "--out {shown}: the folder holds files that are not an earlier hsaco-conform run's (no {STATE_FILE}; e.g. {first}); give a new or empty folder"
                            ));
                        }
                    }
                    Err(why) => {
                        return Err(format!("--out {shown}: {why}; give a new or empty folder"))
                    }
                }
                Ok(store(Some(lock(dir)?)))
            }
        }
    }

    /// Entries of a folder without a record that this tool did not write:
    /// anything but the lock, an empty `findings/` and temporary files.
    fn strangers(dir: &Path) -> std::io::Result<Vec<String>> {
        let mut v = Vec::new();
        for e in std::fs::read_dir(dir)? {
            let name = e?.file_name().to_string_lossy().into_owned();
            let ours = name == LOCK_FILE
                || (name == FINDINGS_DIR
                    && std::fs::read_dir(dir.join(FINDINGS_DIR))
                        .is_ok_and(|mut d| d.next().is_none()))
                || our_tmp(&name, |s| s == STATE_FILE || s == MANIFEST_FILE);
            if !ours {
                v.push(name);
            }
        }
        v.sort();
        Ok(v)
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Starts the run of `command` identified by `key` (its options):
    /// creates and locks the folder if `claim` did not, removes this
    /// tool's temporary leftovers, and resumes an earlier run of the same
    /// key or, for another key, removes what the earlier run wrote (its
    /// manifest and the finding folders its record names: nothing else)
    /// and starts afresh. `state.json` is written before this returns, so
    /// the folder is marked as this tool's from the start.
    pub fn begin(&mut self, command: &str, key: &str) -> Result<Begin, String> {
        let shown = self.dir.display().to_string();
        if self.lock.is_none() {
            std::fs::create_dir_all(&self.dir)
                .map_err(|e| format!("--out {shown}: cannot create it: {e}"))?;
            // Another run may have made it meanwhile: check again.
            let again = Store::claim(&self.dir)?;
            self.lock = again.lock;
            if self.lock.is_none() {
                self.lock = Some(lock(&self.dir)?);
            }
        }
        let findings = self.dir.join(FINDINGS_DIR);
        std::fs::create_dir_all(&findings)
            .map_err(|e| format!("--out {shown}: cannot create {FINDINGS_DIR}/: {e}"))?;
        let clean = |d: &Path, stem_ok: &dyn Fn(&str) -> bool| -> std::io::Result<()> {
            for e in std::fs::read_dir(d)?.flatten() {
                if !our_tmp(&e.file_name().to_string_lossy(), stem_ok) {
                    continue;
                }
                let p = e.path();
                if p.is_dir() {
                    std::fs::remove_dir_all(&p)?;
                } else {
                    std::fs::remove_file(&p)?;
                }
            }
            Ok(())
        };
        clean(&self.dir, &|s| s == STATE_FILE || s == MANIFEST_FILE)
            .and_then(|()| clean(&findings, &is_finding_id))
            .map_err(|e| format!("--out {shown}: cannot remove temporary files: {e}"))?;
        let old = Record::read(&self.dir).map_err(|why| format!("--out {shown}: {why}"))?;
        let (begin, record) = match old {
            Some(r) if r.key == key => {
                let units = r.units.clone();
                (
                    Begin::Resumed(units),
                    Record {
                        command: command.to_owned(),
                        ..r
                    },
                )
            }
            Some(r) => {
                let mut ids = r.findings.clone();
                ids.extend(self.manifest_ids());
                for id in &ids {
                    let p = findings.join(id);
                    if p.is_dir() {
                        std::fs::remove_dir_all(&p).map_err(|e| {
                            format!("--out {shown}: cannot remove {FINDINGS_DIR}/{id}: {e}")
                        })?;
                    }
                }
                let m = self.dir.join(MANIFEST_FILE);
                if m.is_file() {
                    std::fs::remove_file(&m).map_err(|e| {
                        format!("--out {shown}: cannot remove {MANIFEST_FILE}: {e}")
                    })?;
                }
                let was = if r.command.is_empty() {
                    "an earlier version".to_owned()
                } else {
                    r.command
                };
                (Begin::Restarted { command: was }, Record::new(command, key))
            }
            None => (Begin::Fresh, Record::new(command, key)),
        };
        *self.record.lock().unwrap_or_else(|e| e.into_inner()) = Some(record);
        self.write_record()
            .map_err(|e| format!("--out {shown}: cannot write {STATE_FILE}: {e}"))?;
        Ok(begin)
    }

    /// Finding ids the manifest names (folders of older records).
    fn manifest_ids(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.join(MANIFEST_FILE))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v.get("id")?.as_str().map(str::to_owned))
            .filter(|id| is_finding_id(id))
            .collect()
    }

    fn write_record(&self) -> std::io::Result<()> {
        let guard = self.record.lock().unwrap_or_else(|e| e.into_inner());
        let Some(r) = guard.as_ref() else {
            return Err(std::io::Error::other("the run has not begun"));
        };
        let bytes = serde_json::to_vec(r).map_err(std::io::Error::other)?;
        crate::files::write_durable(&self.dir.join(STATE_FILE), &bytes)
    }

    /// Saves the finished units (the engine's map, serialized) in
    /// `state.json`.
    pub fn save_units(&self, units: &impl Serialize) -> std::io::Result<()> {
        let v = serde_json::to_value(units).map_err(std::io::Error::other)?;
        let serde_json::Value::Object(m) = v else {
            return Err(std::io::Error::other("units are not a map"));
        };
        if let Some(r) = self
            .record
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
        {
            r.units = m;
        }
        self.write_record()
    }

    /// Writes one finding's folder (replacing an older one of the same id
    /// that this tool wrote; a folder of that name it did not write is
    /// left alone and the finding is not written) with `files` (name,
    /// contents); sets `f.dir` and `f.files`.
    pub fn write_finding(
        &self,
        f: &mut Finding,
        files: &[(String, String, String)],
    ) -> std::io::Result<()> {
        let rel = format!("{FINDINGS_DIR}/{}", f.id);
        let final_dir = self.dir.join(&rel);
        {
            let mut guard = self.record.lock().unwrap_or_else(|e| e.into_inner());
            let Some(r) = guard.as_mut() else {
                return Err(std::io::Error::other("the run has not begun"));
            };
            if std::fs::symlink_metadata(&final_dir).is_ok() && !r.findings.contains(&f.id) {
                return Err(std::io::Error::other(format!(
                    "{rel} exists and was not written by hsaco-conform (left alone)"
                )));
            }
            // Recorded before the folder appears: a folder this tool made
            // is always one its record names.
            r.findings.insert(f.id.clone());
        }
        self.write_record()?;
        f.dir = Some(rel.clone());
        f.files = files
            .iter()
            .filter(|(_, name, _)| name.starts_with("input"))
            .map(|(peer, name, _)| (peer.clone(), name.clone()))
            .collect();
        let tmp = crate::files::temp_path(&self.dir.join(FINDINGS_DIR).join(&f.id));
        std::fs::create_dir_all(&tmp)?;
        let r = (|| {
            for (_, name, contents) in files {
                std::fs::write(tmp.join(name), contents)?;
            }
            let json = serde_json::to_vec_pretty(&*f).map_err(std::io::Error::other)?;
            std::fs::write(tmp.join("finding.json"), json)?;
            if final_dir.exists() {
                std::fs::remove_dir_all(&final_dir)?;
            }
            std::fs::rename(&tmp, &final_dir)
        })();
        if r.is_err() {
            let _ = std::fs::remove_dir_all(&tmp);
        }
        r
    }

    /// Rewrites `manifest.jsonl` with these findings.
    pub fn write_manifest(&self, findings: &[Finding]) -> std::io::Result<()> {
        let mut s = String::new();
        for f in findings {
            s.push_str(&f.manifest_line().to_string());
            s.push('\n');
        }
        crate::files::write_durable(&self.dir.join(MANIFEST_FILE), s.as_bytes())
    }

    /// Removes the finding folders this tool wrote here that are not in
    /// `keep` (left by an earlier run of the same command whose findings
    /// changed); folders it did not write are left alone.
    pub fn prune(&self, keep: &[Finding]) -> std::io::Result<()> {
        let ids: BTreeSet<&str> = keep.iter().map(|f| f.id.as_str()).collect();
        let gone: Vec<String> = {
            let guard = self.record.lock().unwrap_or_else(|e| e.into_inner());
            guard
                .as_ref()
                .map(|r| {
                    r.findings
                        .iter()
                        .filter(|id| !ids.contains(id.as_str()))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default()
        };
        for id in &gone {
            let p = self.dir.join(FINDINGS_DIR).join(id);
            if p.is_dir() {
                std::fs::remove_dir_all(&p)?;
            }
            if let Some(r) = self
                .record
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_mut()
            {
                r.findings.remove(id);
            }
        }
        if gone.is_empty() {
            return Ok(());
        }
        self.write_record()
    }
}

impl Record {
    fn new(command: &str, key: &str) -> Record {
        Record {
            tool: tool_name(),
            command: command.to_owned(),
            key: key.to_owned(),
            units: serde_json::Map::new(),
            findings: BTreeSet::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_distinct() {
        let s = Signature {
            kind: "crash".into(),
            scope: "disassemble".into(),
            component: "llvm".into(),
            key: "SIGSEGV (11) on 0xf9".into(),
        };
        let id = s.id();
        assert!(id.starts_with("crash-llvm-"), "{id}");
        assert_eq!(id.len(), "crash-llvm-".len() + 12);
        assert_eq!(id, s.clone().id());
        let t = Signature {
            key: "SIGSEGV (11) on 0xfa".into(),
            ..s
        };
        assert_ne!(t.id(), id);
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("-mcpu=gfx900"), "-mcpu=gfx900");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_line(&["x".into(), "".into()]), "x ''");
    }

    #[test]
    fn atomic_writes_leave_no_temporary_files() {
        let d = std::env::temp_dir().join(format!("hsaco-conform-atomic-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("dir");
        crate::files::write_durable(&d.join("a.json"), b"{}").expect("write");
        crate::files::write_durable(&d.join("a.json"), b"[1]").expect("rewrite");
        let names: Vec<String> = std::fs::read_dir(&d)
            .expect("read")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["a.json"]);
        assert_eq!(std::fs::read(d.join("a.json")).expect("read"), b"[1]");
        // Leftovers of an interrupted run are removed when a run begins;
        // a stranger's file in a recognised folder is left alone.
        std::fs::write(d.join(".tmp-state.json-1-2"), b"partial").expect("leftover");
        std::fs::write(d.join(".tmp-notes-x"), b"theirs").expect("stranger");
        std::fs::create_dir_all(d.join("findings/.tmp-crash-llvm-000000000001-3-4"))
            .expect("leftover dir");
        std::fs::create_dir_all(d.join("findings/mine")).expect("stranger dir");
        std::fs::write(d.join("state.json"), br#"{"key": "k", "units": {}}"#)
            .expect("an earlier run's record");
        let mut store = Store::claim(&d).expect("claim");
        assert_eq!(
            store.begin("test", "k").expect("begin"),
            Begin::Resumed(serde_json::Map::new())
        );
        assert!(!d.join(".tmp-state.json-1-2").exists());
        assert!(!d.join("findings/.tmp-crash-llvm-000000000001-3-4").exists());
        assert!(d.join(".tmp-notes-x").is_file());
        assert!(d.join("findings/mine").is_dir());
        // The folder is locked while `store` lives.
        let busy = Store::claim(&d).err().expect("locked");
        assert!(
            busy.contains(&format!(
                "in use by another hsaco-conform run (PID {})",
                std::process::id()
            )),
            "{busy}"
        );
        let mut f = Finding {
            id: "crash-llvm-000000000000".into(),
            signature: Signature {
                kind: "crash".into(),
                scope: "disassemble".into(),
                component: "llvm".into(),
                key: "k".into(),
            },
            comparison: "words".into(),
            message: "m".into(),
            peers: BTreeSet::new(),
            versions: BTreeSet::new(),
            targets: BTreeSet::new(),
            count: 1,
            origin: "line 1".into(),
            original: vec![],
            reduced: vec![],
            reduction_tests: 0,
            crash: None,
            crashes: Default::default(),
            statuses: BTreeSet::new(),
            sites: BTreeSet::new(),
            also: vec![],
            hang: None,
            commands: vec![],
            dir: None,
            files: vec![],
            informational: false,
        };
        store
            .write_finding(&mut f, &[("p".into(), "input.txt".into(), "0x00\n".into())])
            .expect("finding");
        assert_eq!(f.dir.as_deref(), Some("findings/crash-llvm-000000000000"));
        assert!(d
            .join("findings/crash-llvm-000000000000/finding.json")
            .is_file());
        store
            .write_manifest(std::slice::from_ref(&f))
            .expect("manifest");
        // A folder of that name this tool did not write is not replaced.
        let mut g = f.clone();
        g.id = "crash-llvm-0000000000ff".into();
        std::fs::create_dir_all(d.join("findings").join(&g.id)).expect("stranger");
        std::fs::write(d.join("findings").join(&g.id).join("theirs.txt"), b"x").expect("theirs");
        assert!(store.write_finding(&mut g, &[]).is_err());
        assert!(d.join("findings").join(&g.id).join("theirs.txt").is_file());
        store.prune(&[]).expect("prune");
        assert!(!d.join("findings/crash-llvm-000000000000").exists());
        assert!(d.join("findings").join(&g.id).join("theirs.txt").is_file());
        assert!(d.join("findings/mine").is_dir());
        // Another key starts afresh, removing only what the record names.
        store.write_finding(&mut f, &[]).expect("finding again");
        drop(store);
        let mut again = Store::claim(&d).expect("claim after the lock is gone");
        assert_eq!(
            again.begin("other", "k2").expect("begin"),
            Begin::Restarted {
                command: "test".into()
            }
        );
        assert!(!d.join("findings/crash-llvm-000000000000").exists());
        assert!(d.join("findings").join(&g.id).join("theirs.txt").is_file());
        assert!(d.join(".tmp-notes-x").is_file());
        drop(again);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn folders_of_others_are_refused_untouched() {
        let d = tempfile::tempdir().expect("tmp");
        let theirs = d.path().join("theirs");
        std::fs::create_dir_all(&theirs).expect("dir");
        std::fs::write(theirs.join("thesis.tex"), b"x").expect("file");
        let e = Store::claim(&theirs).err().expect("refused");
        assert!(
            e.contains("not an earlier hsaco-conform run") && e.contains("thesis.tex"),
            "{e}"
        );
        let names: Vec<_> = std::fs::read_dir(&theirs)
            .expect("read")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, ["thesis.tex"], "nothing written");
        // A state.json of something else is not a record.
        std::fs::write(theirs.join("state.json"), b"{\"game\": 1}").expect("file");
        let e = Store::claim(&theirs).err().expect("refused");
        assert!(e.contains("state.json is not a run record"), "{e}");
        // A file is not a folder; a new folder under a file cannot be made.
        let f = theirs.join("thesis.tex");
        assert!(Store::claim(&f)
            .err()
            .expect("file")
            .contains("not a folder"));
        let under = f.join("out");
        let e = Store::claim(&under).err().expect("under a file");
        assert!(e.contains("Not a directory"), "{e}");
        // An empty folder and a new one are fine.
        let empty = d.path().join("empty");
        std::fs::create_dir_all(&empty).expect("dir");
        let mut s = Store::claim(&empty).expect("empty");
        assert_eq!(s.begin("c", "k").expect("begin"), Begin::Fresh);
        drop(s);
        let mut s = Store::claim(&d.path().join("new/deeper")).expect("new");
        assert_eq!(s.begin("c", "k").expect("begin"), Begin::Fresh);
        assert!(d.path().join("new/deeper/state.json").is_file());
    }

    #[test]
    fn report_paths_are_checked_without_touching_them() {
        let d = tempfile::tempdir().expect("tmp");
        let file = d.path().join("f.json");
        std::fs::write(&file, b"keep").expect("file");
        check_writable(&file).expect("writable");
        assert_eq!(
            std::fs::read(&file).expect("read"),
            b"keep",
            "not truncated"
        );
        let e = check_writable(d.path()).expect_err("a folder");
        assert!(e.contains("Is a directory"), "{e}");
        let e = check_writable(&file.join("x.json")).expect_err("under a file");
        assert!(e.contains("Not a directory"), "{e}");
        let e = check_writable(&d.path().join("no/x.json")).expect_err("no folder");
        assert!(e.contains("No such file"), "{e}");
        let names: Vec<_> = std::fs::read_dir(d.path())
            .expect("read")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, ["f.json"], "no probe left");
    }
}
