//! The `conform` engine: the oracle and its peers (other tools) look at the
//! same inputs, every comparison has three outcomes (the same, different,
//! not comparable) plus the two ways a peer can fail (it crashed, it hung),
//! and whatever is new becomes a deduplicated, reduced finding with a
//! reproducer.
//!
//! # Pieces
//!
//! - [`Peer`]: one external tool at one version (`libllvm-19`, in-process
//!   in a worker process; `llvm-mc-14`, run as a program). A peer turns
//!   [`Input`]s into [`View`]s and must survive its own crashes and hangs:
//!   [`isolate`] runs in-process libraries in worker subprocesses (the
//!   `hsaco-conform` binary re-executed with its hidden `worker`
//!   subcommand) and external programs with a time limit, and attributes a
//!   crash to the input that caused it.
//! - [`Comparison`]: what is compared (`smem-disasm`, `smem-encode`,
//!   `words`, and the object-level `rebuild`, `descriptors`, `metadata`,
//!   `comgr-metadata`, `mutants`): it makes the inputs for a processor and a chunk number, tells
//!   a peer's view of an input apart from the oracle's (or a reference
//!   peer's), and knows how to shrink an input for the reducer.
//! - [`engine`]: splits the work into units (comparison × processor ×
//!   chunk), runs them on a few threads, tallies a peer × comparison
//!   matrix, keeps the events that are not in the [`allowlist`], and at the
//!   end reduces ([`reduce`]) and deduplicates them into [`findings`].
//! - [`report`]: the summary table, JSON, JUnit XML and a self-contained
//!   HTML page.
//!
//! # Adding object-level comparisons (the extension point)
//!
//! Descriptors via `llvm-objdump`, metadata via `llvm-readobj` and comgr,
//! rebuilds via `llvm-mc` + `ld.lld`, and mutant acceptance plug in the same
//! way the SMEM comparisons do:
//!
//! 1. Inputs: a code object is [`Input::File`] (its bytes and a file name);
//!    a whole assembler source is [`Input::Asm`].
//! 2. Views: a peer that reads objects returns [`View::Json`] (descriptor
//!    fields, a metadata tree, an accept/reject verdict with its message,
//!    or a rebuilt object's digest), whatever the comparison can compare.
//! 3. A new [`Comparison`] (id such as `descriptors`, `metadata`,
//!    `rebuild`, `mutants`) generates its inputs from `hsaco_gen` (for
//!    example `Generator::valid_case` or `mutate::arbitrary_mutation` with
//!    the seed and chunk), compares a peer's view with the oracle's
//!    (`hsaco_oracle::check`), and returns [`Verdict::Differs`] with a
//!    normalized `key` (it becomes the finding's signature) and `tags` for
//!    the allowlist. Its [`Comparison::shrink`] proposes smaller objects
//!    (fewer kernels, fields reset to defaults) for the reducer.
//! 4. A new [`Peer`] (or a new comparison id accepted by an existing one)
//!    runs the tool: programs through [`isolate::run_tool`] (time limit,
//!    crash detection), in-process libraries (comgr) through
//!    [`isolate::Isolated`] with a worker [`isolate::Task`] registered in
//!    [`registry::worker_task`].
//! 5. Give the comparison a [`ComparisonId`] and build it in
//!    [`registry::generated`] (and [`registry::given`]); make the peer
//!    from what [`crate::peers::discover`] (the one finder of tools and
//!    libraries, named `--peer`s included) found, in [`registry::peers`];
//!    seed reviewed known differences in `corpus/allowlist.toml`.
//!
//! Everything else (units, sharding, resume, time-outs, allowlist,
//! reduction, findings, reports) is shared.

pub mod allowlist;
pub mod cases;
pub mod comgr;
pub mod descriptors;
pub mod engine;
pub mod findings;
pub mod given;
pub mod id;
pub mod isolate;
pub mod llvm;
pub mod mutants;
pub mod objdump;
pub mod object_cmp;
pub mod objects_meta;
pub mod readobj;
pub mod reassembly;
pub mod rebuild;
pub mod reduce;
pub mod registry;
pub mod report;
pub mod run;
pub mod smem;
pub mod upstream;
pub mod words;

use std::fmt::{self, Write as _};

use hsaco_oracle::targets::Target;
use serde::{Deserialize, Serialize};

pub use id::ComparisonId;
pub use isolate::{Crash, Hang};

/// One thing a peer is asked about.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Input {
    /// Instruction bytes: one instruction line, lowest address first (what
    /// one line of `llvm-mc --disassemble` input holds).
    Bytes {
        /// The bytes.
        #[serde(with = "hex_bytes")]
        bytes: Vec<u8>,
    },
    /// Assembler text (one instruction, or a whole source file).
    Asm {
        /// The text.
        text: String,
    },
    /// A file, such as a code object (object-level comparisons).
    File {
        /// A file name for reproducers (`case.hsaco`).
        name: String,
        /// The contents.
        #[serde(with = "hex_bytes")]
        bytes: Vec<u8>,
    },
}

impl Input {
    /// Instruction bytes.
    pub fn bytes(bytes: Vec<u8>) -> Self {
        Self::Bytes { bytes }
    }

    /// One SMEM word as 8 bytes, lowest address first.
    pub fn word(word: u64) -> Self {
        Self::Bytes {
            bytes: word.to_le_bytes().to_vec(),
        }
    }

    /// The first 8 bytes as a little-endian word (zero-padded), for bytes
    /// inputs.
    pub fn first_word(&self) -> Option<u64> {
        match self {
            Self::Bytes { bytes } => {
                let mut b = [0u8; 8];
                for (d, s) in b.iter_mut().zip(bytes) {
                    *d = *s;
                }
                Some(u64::from_le_bytes(b))
            }
            _ => None,
        }
    }

    /// One line for people: bytes in `llvm-mc` syntax, the text, or the
    /// file's name and size.
    pub fn display(&self) -> String {
        match self {
            Self::Bytes { bytes } => bytes_line(bytes),
            Self::Asm { text } => text.clone(),
            Self::File { name, bytes } => format!("{name} ({} bytes)", bytes.len()),
        }
    }
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

/// Bytes in `llvm-mc --disassemble` syntax: `0x41 0x01 0x02 0xc0`.
pub fn bytes_line(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 5);
    for (k, b) in bytes.iter().enumerate() {
        if k > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{b:#04x}");
    }
    s
}

/// Serde helper: bytes as a lowercase hex string.
pub mod hex_bytes {
    use serde::{Deserialize, Deserializer, Serializer};

    pub use hsaco_oracle::hex::{decode, encode};

    /// Serializes bytes as hex.
    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&encode(bytes))
    }

    /// Deserializes hex bytes.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let s = String::deserialize(d)?;
        decode(&s).ok_or_else(|| serde::de::Error::custom("expected hex bytes"))
    }
}

/// One instruction of a disassembler's output, or the place where it
/// stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "piece", rename_all = "kebab-case")]
pub enum Piece {
    /// A decoded instruction.
    Insn {
        /// Bytes it took, when the peer says (`llvm-mc` does not).
        size: Option<usize>,
        /// The instruction text, whitespace-trimmed, without comment.
        text: String,
        /// The annotation comment (after `; `), `None` when the peer does
        /// not print comments.
        comment: Option<String>,
    },
    /// The bytes from this offset on were rejected as invalid.
    Invalid {
        /// Offset of the rejected instruction in the line.
        at: usize,
    },
}

/// A peer's view of one input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "view", rename_all = "kebab-case")]
pub enum View {
    /// A disassembler's reading of an instruction line, instruction by
    /// instruction, as `llvm-mc --disassemble` walks a `[...]` group: after
    /// an invalid instruction the rest of the line is skipped.
    Disasm {
        /// The pieces, in order.
        pieces: Vec<Piece>,
    },
    /// An assembler's encoding of one line, or its error message.
    Encoding {
        /// The bytes, or the first error message.
        result: Result<Vec<u8>, String>,
    },
    /// Structured data (object-level peers: descriptor fields, metadata,
    /// accept/reject verdicts).
    Json {
        /// The value.
        value: serde_json::Value,
    },
}

impl View {
    /// One line for people.
    pub fn display(&self) -> String {
        match self {
            Self::Disasm { pieces } => {
                if pieces.is_empty() {
                    return "<nothing>".to_owned();
                }
                let parts: Vec<String> = pieces
                    .iter()
                    .map(|p| match p {
                        Piece::Insn {
                            text,
                            comment: Some(c),
                            ..
                        } if !c.is_empty() => format!("{text} ; {c}"),
                        Piece::Insn { text, .. } => text.clone(),
                        Piece::Invalid { at: 0 } => "<invalid>".to_owned(),
                        Piece::Invalid { at } => format!("<invalid at byte {at}>"),
                    })
                    .collect();
                parts.join(" | ")
            }
            Self::Encoding { result: Ok(b) } => format!("[{}]", bytes_line(b).replace(' ', ",")),
            Self::Encoding { result: Err(e) } => format!("error: {e}"),
            Self::Json { value } => value.to_string(),
        }
    }
}

/// What happened when a peer looked at one input.
#[derive(Clone, Debug, PartialEq)]
pub enum PeerResult {
    /// The peer's view.
    View(View),
    /// The peer's view agreed with the oracle's: checked where the view
    /// was made (in the worker process, with the comparison's own code),
    /// so that agreeing inputs need not travel back. Only for comparisons
    /// where the oracle decides (`smem-disasm`).
    Same,
    /// The peer cannot be compared on this input (it does not know the
    /// processor, the input has no form it reads, ...).
    NotComparable(NotComparable),
    /// The peer crashed on the input.
    Crashed(Crash),
    /// The peer hung on the input and was killed.
    TimedOut(Hang),
}

/// A difference found by a [`Comparison`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    /// For people: what the oracle (or reference) expected and what the
    /// peer did.
    pub message: String,
    /// Normalized description, stable across inputs showing the same
    /// problem (no register numbers or offsets): with the comparison and
    /// the peer's component it is the finding's signature.
    pub key: String,
    /// Labels the allowlist can match (`divergence:misaligned-tuple`).
    /// When there are tags, the difference is known only if every tag is
    /// covered by an allowlist entry.
    pub tags: Vec<String>,
    /// Informational (for vendors, not a problem of the run: a peer that
    /// accepts an invalid object, `mutants`): listed apart from the new
    /// findings, and it does not change the exit status.
    #[serde(default)]
    pub informational: bool,
}

/// A comparison's verdict on one input for one peer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The peer agrees.
    Same,
    /// The peer differs.
    Differs(Difference),
    /// This input cannot be compared for this peer (why).
    NotComparable(String),
}

impl Verdict {
    /// A difference that is not informational.
    pub fn differs(message: String, key: impl Into<String>, tags: Vec<String>) -> Self {
        Self::Differs(Difference {
            message,
            key: key.into(),
            tags,
            informational: false,
        })
    }
}

/// The views of the reference peer, for comparisons between peers
/// (`words`): index = input index.
pub type References<'a> = Option<&'a [Option<View>]>;

/// What a peer is (reports, the allowlist, `--peers`): one value each
/// peer makes once, instead of one getter per fact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerInfo {
    /// Stable id, used by `--peers` and in reports: `libllvm-19`,
    /// `llvm-mc-14`.
    pub id: String,
    /// The family `--peers` also accepts (`libllvm`, `llvm-mc`).
    pub family: &'static str,
    /// The code its bugs belong to (`llvm`): findings of peers with the
    /// same component and signature are one finding.
    pub component: &'static str,
    /// Major version, when the tool has one.
    pub version: Option<u32>,
    /// Where it lives (a library or program path).
    pub location: String,
    /// The comparisons it takes part in.
    pub comparisons: &'static [ComparisonId],
    /// The `--peer NAME=PATH` that made this peer, for reproducers that
    /// run `hsaco-conform` again (`None`: found on the machine).
    pub named: Option<crate::peers::discover::Named>,
}

impl PeerInfo {
    /// An LLVM program or library found on the machine (`component` is
    /// `llvm`, no `--peer` behind it).
    pub fn llvm(
        id: String,
        family: &'static str,
        version: u32,
        location: String,
        comparisons: &'static [ComparisonId],
    ) -> Self {
        Self {
            id,
            family,
            component: "llvm",
            version: Some(version),
            location,
            comparisons,
            named: None,
        }
    }

    /// Two LLVM programs of a discovery run one after the other, known as
    /// `A-ID+B-ID` and found at `A-PATH + B-PATH`.
    pub fn llvm_pair(
        a: &crate::peers::discover::Peer,
        b: &crate::peers::discover::Peer,
        family: &'static str,
        version: u32,
        comparisons: &'static [ComparisonId],
    ) -> Self {
        let id = format!("{}+{}", a.id, b.id);
        let location = format!("{} + {}", a.path.display(), b.path.display());
        Self::llvm(id, family, version, location, comparisons)
    }

    /// Whether the peer takes part in `comparison`.
    pub fn takes_part(&self, comparison: ComparisonId) -> bool {
        self.comparisons.contains(&comparison)
    }
}

/// Why a peer cannot be compared on an input or a processor; it prints as
/// the reason reports count (`not_comparable_reasons`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotComparable {
    /// The input is not of the kind the peer reads (the text says what it
    /// reads: "llvm-objdump reads code objects").
    Reads(&'static str),
    /// The tool does not take the processor (what its probe said).
    Processor(String),
    /// The object holds nothing the peer's view can be made of, or the
    /// tool's output of it is not what is read here.
    Object(String),
    /// The tool could not be run, or its scratch files not be written or
    /// read.
    Failed(String),
    /// The worker process running an in-process peer said so.
    Worker(String),
}

impl fmt::Display for NotComparable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Reads(why) => f.write_str(why),
            Self::Processor(why) | Self::Object(why) | Self::Failed(why) | Self::Worker(why) => {
                f.write_str(why)
            }
        }
    }
}

/// A peer: one external tool, at one version, that reads the inputs of
/// some comparisons.
///
/// Implementations must not let the tool's crash or hang reach the caller:
/// run it in another process ([`isolate`]) and report
/// [`PeerResult::Crashed`] or [`PeerResult::TimedOut`] for the input that
/// caused it, then go on with the next.
pub trait Peer: Send + Sync {
    /// What the peer is.
    fn info(&self) -> &PeerInfo;
    /// [`PeerInfo::id`].
    fn id(&self) -> &str {
        &self.info().id
    }
    /// Whether it can be compared for `comparison` (one it takes part
    /// in: callers ask no other) on processor `cpu` (the default: every
    /// processor, for tools that read any object).
    fn supports(
        &self,
        _ctx: &Ctx,
        _comparison: ComparisonId,
        _cpu: &str,
    ) -> Result<(), NotComparable> {
        Ok(())
    }
    /// Runs the peer on `inputs` and calls `each` once per input (in any
    /// order) with its result.
    fn run(
        &self,
        ctx: &Ctx,
        comparison: ComparisonId,
        cpu: &str,
        inputs: &[Input],
        each: &mut dyn FnMut(usize, PeerResult),
    );
    /// The contents of a reproducer file holding `inputs`, as
    /// [`Peer::command`] reads it.
    fn reproducer(&self, comparison: ComparisonId, inputs: &[Input]) -> String;
    /// The command line (program and arguments) that shows the peer's
    /// behaviour on a reproducer file alone, or `None` when the peer has
    /// no standalone program (then the `hsaco-conform diff` command is the
    /// reproducer). The default: the reproducer is a shell script.
    fn command(&self, _comparison: ComparisonId, _cpu: &str, file: &str) -> Option<Vec<String>> {
        Some(vec!["sh".to_owned(), file.to_owned()])
    }
}

/// What is compared: inputs, and how a peer's view is judged.
pub trait Comparison: Send + Sync {
    /// Stable id (`--kinds`).
    fn id(&self) -> ComparisonId;
    /// One line for people (the default: the id's).
    fn description(&self) -> &'static str {
        self.id().description()
    }
    /// Whether the comparison can run on `target` at all; `Err` says why
    /// not (all its peers count the target as not comparable).
    fn applies(&self, target: &Target) -> Result<(), String>;
    /// Number of chunks of inputs for `target`.
    fn chunks(&self, target: &Target) -> u64;
    /// The inputs of one chunk (deterministic: a function of the seed,
    /// processor and chunk number only).
    fn inputs(&self, target: &Target, chunk: u64) -> Vec<Input>;
    /// Where input `index` of `chunk` comes from (`line 12`, `word 4100`).
    fn origin(&self, target: &Target, chunk: u64, index: usize) -> String;
    /// The input as `peer` must be given it (e.g. assembler text in the
    /// dialect of the peer's version), or `Err` (not comparable).
    fn render(&self, _peer: &dyn Peer, _target: &Target, input: &Input) -> Result<Input, String> {
        Ok(input.clone())
    }
    /// True when views are compared with a reference peer's
    /// ([`Comparison::reference`]) instead of the oracle's.
    fn needs_reference(&self) -> bool {
        false
    }
    /// The id of the reference peer among `peers` (in their order), for
    /// comparisons between peers.
    fn reference(&self, _peers: &[&dyn Peer]) -> Option<usize> {
        None
    }
    /// Judges `peer`'s view of `input`. `reference` is the reference
    /// peer's view of the same input, for comparisons between peers.
    fn compare(
        &self,
        peer: &dyn Peer,
        target: &Target,
        input: &Input,
        view: &View,
        reference: Option<&View>,
    ) -> Verdict;
    /// Smaller variants of `input` for the reducer, most aggressive first
    /// (the default: [`reduce::shrink_candidates`]).
    fn shrink(&self, input: &Input) -> Vec<Input> {
        reduce::shrink_candidates(input)
    }
}

/// What the engine shares with peers while running: the worker program,
/// time limits, a scratch directory and the pool of worker processes.
pub struct Ctx {
    /// The program re-executed as a worker (`hsaco-conform`).
    pub worker_program: std::path::PathBuf,
    /// Per-input time limit.
    pub timeout: std::time::Duration,
    /// Scratch directory (breadcrumb files).
    pub scratch: std::path::PathBuf,
    workers: std::sync::Mutex<Vec<(String, isolate::Isolated)>>,
    support: std::sync::Mutex<std::collections::HashMap<String, Result<(), NotComparable>>>,
}

impl Ctx {
    /// A context that re-executes `worker_program` for workers.
    pub fn new(
        worker_program: std::path::PathBuf,
        timeout: std::time::Duration,
        scratch: std::path::PathBuf,
    ) -> Self {
        Self {
            worker_program,
            timeout,
            scratch,
            workers: std::sync::Mutex::new(Vec::new()),
            support: std::sync::Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// Runs `f` with an idle worker for `task`/`arg` (started when none is
    /// idle); the worker goes back to the pool afterwards, so a unit after
    /// the first does not pay for starting a process and loading a library.
    pub fn with_worker<T>(
        &self,
        task: &str,
        arg: &str,
        env: &[(String, std::ffi::OsString)],
        f: impl FnOnce(&mut isolate::Isolated) -> T,
    ) -> T {
        let key = format!("{task}\u{1f}{arg}");
        let taken = {
            let mut pool = self.workers.lock().unwrap_or_else(|e| e.into_inner());
            pool.iter()
                .position(|(k, _)| *k == key)
                .map(|p| pool.swap_remove(p).1)
        };
        let mut w = taken.unwrap_or_else(|| {
            isolate::Isolated::new(isolate::WorkerSpec {
                program: self.worker_program.clone(),
                task: task.to_owned(),
                arg: arg.to_owned(),
                env: env.to_vec(),
                timeout: self.timeout,
                scratch: self.scratch.clone(),
            })
        });
        let r = f(&mut w);
        self.workers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((key, w));
        r
    }

    /// A cached answer of `probe` for `key` (peers use it for "does this
    /// tool know this processor").
    pub fn cached_support(
        &self,
        key: &str,
        probe: impl FnOnce() -> Result<(), NotComparable>,
    ) -> Result<(), NotComparable> {
        if let Some(r) = self
            .support
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
        {
            return r.clone();
        }
        let r = probe();
        self.support
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.to_owned(), r.clone());
        r
    }

    /// Stops every pooled worker.
    pub fn shutdown(&self) {
        let pool = std::mem::take(&mut *self.workers.lock().unwrap_or_else(|e| e.into_inner()));
        drop(pool);
    }
}
