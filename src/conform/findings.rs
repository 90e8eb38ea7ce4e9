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
//! DIR/state.json               progress, for resuming the same command
//! ```
//!
//! Every file is written to a temporary name in the same folder and
//! renamed, and a finding's folder is built under a temporary name and
//! renamed into place, so an interrupted run (SIGINT, SIGKILL) leaves no
//! half-written file under a final name; leftovers (`.tmp-*`) are removed
//! by the next run in the folder.
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

/// Writes `bytes` to `path` through a temporary file in the same folder
/// and a rename, so that `path` is never seen half-written.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(
        ".tmp-{name}-{}-{}",
        std::process::id(),
        super::isolate::unique()
    ));
    let r = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}

/// The output folder.
pub struct Store {
    dir: PathBuf,
}

/// Files and folders of the output folder that this module owns (a
/// restart removes them, and nothing else).
const OWNED: &[&str] = &["manifest.jsonl", "findings", "state.json"];

impl Store {
    /// Opens (creates) the folder and removes leftovers of an interrupted
    /// run (`.tmp-*` files and folders).
    pub fn open(dir: &Path) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir.join("findings"))?;
        for d in [dir.to_path_buf(), dir.join("findings")] {
            for e in std::fs::read_dir(&d)?.flatten() {
                if e.file_name().to_string_lossy().starts_with(".tmp-") {
                    let p = e.path();
                    if p.is_dir() {
                        std::fs::remove_dir_all(&p)?;
                    } else {
                        std::fs::remove_file(&p)?;
                    }
                }
            }
        }
        Ok(Self {
            dir: dir.to_path_buf(),
        })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Removes what an earlier, different run wrote (the files this module
    /// owns), for a clean restart.
    pub fn clear(&self) -> std::io::Result<()> {
        for name in OWNED {
            let p = self.dir.join(name);
            if p.is_dir() {
                std::fs::remove_dir_all(&p)?;
            } else if p.exists() {
                std::fs::remove_file(&p)?;
            }
        }
        std::fs::create_dir_all(self.dir.join("findings"))
    }

    /// Writes one finding's folder (replacing an older one of the same id)
    /// with `files` (name, contents); sets `f.dir` and `f.files`.
    pub fn write_finding(
        &self,
        f: &mut Finding,
        files: &[(String, String, String)],
    ) -> std::io::Result<()> {
        let rel = format!("findings/{}", f.id);
        f.dir = Some(rel.clone());
        f.files = files
            .iter()
            .filter(|(_, name, _)| name.starts_with("input"))
            .map(|(peer, name, _)| (peer.clone(), name.clone()))
            .collect();
        let tmp = self.dir.join("findings").join(format!(
            ".tmp-{}-{}-{}",
            f.id,
            std::process::id(),
            super::isolate::unique()
        ));
        std::fs::create_dir_all(&tmp)?;
        let r = (|| {
            for (_, name, contents) in files {
                std::fs::write(tmp.join(name), contents)?;
            }
            let json = serde_json::to_vec_pretty(&*f).map_err(std::io::Error::other)?;
            std::fs::write(tmp.join("finding.json"), json)?;
            let final_dir = self.dir.join(&rel);
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
        atomic_write(&self.dir.join("manifest.jsonl"), s.as_bytes())
    }

    /// Removes finding folders that are not in `keep` (left by an earlier
    /// run of the same command whose findings changed).
    pub fn prune(&self, keep: &[Finding]) -> std::io::Result<()> {
        let ids: BTreeSet<&str> = keep.iter().map(|f| f.id.as_str()).collect();
        for e in std::fs::read_dir(self.dir.join("findings"))?.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !ids.contains(name.as_str()) && e.path().is_dir() {
                std::fs::remove_dir_all(e.path())?;
            }
        }
        Ok(())
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
        atomic_write(&d.join("a.json"), b"{}").expect("write");
        atomic_write(&d.join("a.json"), b"[1]").expect("rewrite");
        let names: Vec<String> = std::fs::read_dir(&d)
            .expect("read")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["a.json"]);
        assert_eq!(std::fs::read(d.join("a.json")).expect("read"), b"[1]");
        // Leftovers of an interrupted run are removed when the folder opens.
        std::fs::write(d.join(".tmp-x-1-2"), b"partial").expect("leftover");
        std::fs::create_dir_all(d.join("findings/.tmp-y")).expect("leftover dir");
        let store = Store::open(&d).expect("open");
        assert!(!d.join(".tmp-x-1-2").exists());
        assert!(!d.join("findings/.tmp-y").exists());
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
        store.write_manifest(&[f]).expect("manifest");
        store.prune(&[]).expect("prune");
        assert!(!d.join("findings/crash-llvm-000000000000").exists());
        let _ = std::fs::remove_dir_all(&d);
    }
}
