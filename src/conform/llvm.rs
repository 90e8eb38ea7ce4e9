//! LLVM peers: the AMDGPU disassembler of every libLLVM discovery finds
//! (in-process, in a worker subprocess: [`LibLlvm`]) and every `llvm-mc`
//! (`--disassemble`, and `-show-encoding` as an assembler: [`LlvmMc`]),
//! named ones (`--peer`) included ([`super::registry::peers`]); and the
//! `llvm-mc` probe of a processor the object-level peers share
//! ([`knows`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::peers::discover::Named;
use crate::peers::llvm_disasm::{self, Disassembler, LibInfo, LlvmLib};
use crate::smem_diff::{self, LlvmView, Outcome};
use hsaco_oracle::smem::SmemGen;

use super::isolate::{self, Reply, Task};
use super::run::{from_reply, unreadable, worker_payloads};
use super::{
    bytes_line, ComparisonId, Crash, Ctx, Hang, Input, NotComparable, Peer, PeerInfo, PeerResult,
    Piece, View,
};

/// The comparisons a disassembler takes part in.
const DISASM_COMPARISONS: &[ComparisonId] = &[ComparisonId::SmemDisasm, ComparisonId::Words];
/// The comparisons `llvm-mc` takes part in.
const MC_COMPARISONS: &[ComparisonId] = &[
    ComparisonId::SmemDisasm,
    ComparisonId::Words,
    ComparisonId::SmemEncode,
];

/// The triple every LLVM peer is run with.
pub const TRIPLE: &str = llvm_disasm::TRIPLE;

// ---------------------------------------------------------------- libLLVM

/// The worker task `libllvm-disasm`: LLVM's disassembler, loaded in the
/// worker process. Context: the processor, and ` smem-disasm` after it
/// when the oracle decides. Payload: hex bytes of one instruction line.
/// Reply: the pieces ([`encode_pieces`]); in `smem-disasm` context, `=`
/// for an 8-byte word on which LLVM agrees with the oracle
/// ([`super::smem::compare_word`] run here, so that the parent, which
/// would run the same function, receives only the words that need it).
pub struct DisasmTask {
    info: LibInfo,
    lib: Option<Result<&'static LlvmLib, String>>,
    dis: HashMap<String, Result<Disassembler, String>>,
    family: HashMap<String, Option<SmemGen>>,
}

/// Context suffix asking the worker to check SMEM words itself.
pub const ORACLE_CONTEXT: &str = " smem-disasm";

/// The reply of a word the worker found in agreement with the oracle.
pub const AGREES: &str = "=";

impl DisasmTask {
    /// The task for one library (loaded at the first item).
    pub fn new(info: LibInfo) -> Self {
        Self {
            info,
            lib: None,
            dis: HashMap::new(),
            family: HashMap::new(),
        }
    }
}

impl Task for DisasmTask {
    fn call(&mut self, context: &str, payload: &str, out: &mut String) -> Result<(), String> {
        let version = self.info.version;
        let (cpu, oracle) = match context.strip_suffix(ORACLE_CONTEXT) {
            Some(c) => (c, true),
            None => (context, false),
        };
        let info = &self.info;
        let lib = self
            .lib
            .get_or_insert_with(|| LlvmLib::load(info).map_err(|e| e.to_string()))
            .clone()?;
        let dis = self
            .dis
            .entry(cpu.to_owned())
            .or_insert_with(|| lib.disassembler(cpu).map_err(|e| e.to_string()));
        let dis = dis.as_mut().map_err(|e| e.clone())?;
        // Hex into a stack buffer: this runs once per word.
        let mut buf = [0u8; 64];
        let hex = payload.as_bytes();
        let n = hex.len() / 2;
        if !hex.len().is_multiple_of(2) || n > buf.len() {
            return Err("payload is not hex bytes (at most 64)".to_owned());
        }
        for (k, b) in buf.iter_mut().take(n).enumerate() {
            let digit = |c: u8| -> Option<u8> {
                char::from(c)
                    .to_digit(16)
                    .and_then(|d| u8::try_from(d).ok())
            };
            let (hi, lo) = (hex.get(2 * k).copied(), hex.get(2 * k + 1).copied());
            *b = match (hi.and_then(digit), lo.and_then(digit)) {
                (Some(h), Some(l)) => h << 4 | l,
                _ => return Err("payload is not hex bytes".to_owned()),
            };
        }
        let bytes = buf.get(..n).unwrap_or(&[]);
        walk_into(dis, bytes, out);
        if oracle && n == 8 {
            let gen = *self.family.entry(cpu.to_owned()).or_insert_with(|| {
                hsaco_oracle::targets::by_name_or_alias(cpu).and_then(SmemGen::for_target)
            });
            let word = bytes.try_into().ok().map(u64::from_le_bytes);
            // What `smem::compare_word` does with the first piece, read
            // straight from the reply (LLVM's text keeps its comment, which
            // `smem_diff::compare` splits off itself).
            let first = out.split('\u{1e}').next().unwrap_or("");
            let view = if first.starts_with('!') {
                Some(LlvmView::Rejected)
            } else {
                first.split_once(':').map(|(size, text)| LlvmView::Decoded {
                    size: size.parse().unwrap_or(0),
                    text: text.trim(),
                })
            };
            if let (Some(gen), Some(word), Some(view)) = (gen, word, view) {
                let e = smem_diff::expect(version, gen, word);
                if smem_diff::compare(gen, &e, view) == Outcome::Same {
                    out.clear();
                    out.push_str(AGREES);
                }
            }
        }
        Ok(())
    }
}

/// Decodes `bytes` as `llvm-mc --disassemble` walks a `[...]` group
/// (instruction after instruction; an invalid one ends the line), straight
/// into [`encode_pieces`]'s format, without allocating.
fn walk_into(dis: &mut Disassembler, bytes: &[u8], out: &mut String) {
    let mut at = 0usize;
    let mut first = true;
    while let Some(rest) = bytes.get(at..).filter(|r| !r.is_empty()) {
        if !first {
            out.push('\u{1e}');
        }
        first = false;
        match dis.disassemble(rest) {
            Some((size, text)) if size > 0 && size <= rest.len() => {
                isolate::push_u64(out, size as u64);
                out.push(':');
                out.push_str(text);
                at += size;
            }
            _ => {
                out.push('!');
                isolate::push_u64(out, at as u64);
                break;
            }
        }
    }
}

/// Reply format of [`DisasmTask`]: pieces separated by U+001E; a decoded
/// instruction is `SIZE:TEXT` (LLVM's text with its comment), a rejected
/// one `!OFFSET`.
pub fn encode_pieces(pieces: &[(usize, Option<String>)], out: &mut String) {
    for (k, (n, text)) in pieces.iter().enumerate() {
        if k > 0 {
            out.push('\u{1e}');
        }
        match text {
            Some(t) => {
                out.push_str(&n.to_string());
                out.push(':');
                out.push_str(t);
            }
            None => {
                out.push('!');
                out.push_str(&n.to_string());
            }
        }
    }
}

/// Parses [`encode_pieces`]'s format into pieces (the comment split off).
pub fn decode_pieces(s: &str) -> Option<Vec<Piece>> {
    if s.is_empty() {
        return Some(Vec::new());
    }
    s.split('\u{1e}')
        .map(|p| {
            if let Some(at) = p.strip_prefix('!') {
                return Some(Piece::Invalid {
                    at: at.parse().ok()?,
                });
            }
            let (n, text) = p.split_once(':')?;
            let (main, comment) = smem_diff::split_comment(text.trim());
            Some(Piece::Insn {
                size: Some(n.parse().ok()?),
                text: main.to_owned(),
                comment: Some(comment.to_owned()),
            })
        })
        .collect()
}

/// LLVM's disassembler in `libLLVM-NN.so`, run in worker processes.
pub struct LibLlvm {
    lib: LibInfo,
    info: PeerInfo,
}

impl LibLlvm {
    /// The peer for one library, known as `id` (`libllvm-19`, or a name
    /// given with `--peer`).
    pub fn new(lib: LibInfo, id: &str, named: Option<Named>) -> Self {
        Self {
            info: PeerInfo {
                named,
                ..PeerInfo::llvm(
                    id.to_owned(),
                    "libllvm",
                    lib.version,
                    lib.path.display().to_string(),
                    DISASM_COMPARISONS,
                )
            },
            lib,
        }
    }

    /// The worker's argument: `VERSION@PATH` ([`super::worker_task`]),
    /// so that the worker loads the very library the parent chose.
    pub fn worker_arg(&self) -> String {
        format!("{}@{}", self.lib.version, self.lib.path.display())
    }

    fn run_payloads(
        &self,
        ctx: &Ctx,
        cpu: &str,
        payloads: &[String],
        each: &mut dyn FnMut(usize, Reply),
    ) {
        ctx.with_worker("libllvm-disasm", &self.worker_arg(), &[], |w| {
            w.run(cpu, payloads, each);
        });
    }
}

impl Peer for LibLlvm {
    fn info(&self) -> &PeerInfo {
        &self.info
    }

    fn supports(
        &self,
        ctx: &Ctx,
        _comparison: ComparisonId,
        cpu: &str,
    ) -> Result<(), NotComparable> {
        ctx.cached_support(&format!("{}/{cpu}", self.info.id), || {
            // One harmless word through a worker: LLVM answers for the
            // processor without risking the parent.
            let mut r = Err(NotComparable::Worker("no reply".to_owned()));
            self.run_payloads(ctx, cpu, &["000080bf".to_owned()], &mut |_, reply| {
                r = match reply {
                    Reply::Ok(_) => Ok(()),
                    Reply::NotComparable(why) => Err(NotComparable::Processor(why)),
                    Reply::Crashed(c) => Err(NotComparable::Processor(format!(
                        "LLVM crashed on s_nop 0 ({})",
                        c.status
                    ))),
                    Reply::TimedOut(_) => {
                        Err(NotComparable::Processor("LLVM hung on s_nop 0".to_owned()))
                    }
                };
            });
            r
        })
    }

    fn run(
        &self,
        ctx: &Ctx,
        comparison: ComparisonId,
        cpu: &str,
        inputs: &[Input],
        each: &mut dyn FnMut(usize, PeerResult),
    ) {
        let bytes_of: fn(&Input) -> Option<&[u8]> = |i| match i {
            Input::Bytes { bytes } => Some(bytes),
            _ => None,
        };
        let (payloads, index) = worker_payloads(inputs, bytes_of, READS_BYTES, each);
        let context = if comparison == ComparisonId::SmemDisasm {
            format!("{cpu}{ORACLE_CONTEXT}")
        } else {
            cpu.to_owned()
        };
        self.run_payloads(ctx, &context, &payloads, &mut |j, reply| {
            let Some(&k) = index.get(j) else { return };
            let r = from_reply(reply, |s| {
                if s == AGREES {
                    return PeerResult::Same;
                }
                match decode_pieces(&s) {
                    Some(pieces) => PeerResult::View(View::Disasm { pieces }),
                    None => unreadable(&s),
                }
            });
            each(k, r);
        });
    }

    fn reproducer(&self, _comparison: ComparisonId, inputs: &[Input]) -> String {
        disasm_file(inputs)
    }

    fn command(&self, _comparison: ComparisonId, _cpu: &str, _file: &str) -> Option<Vec<String>> {
        None
    }
}

/// What a disassembler peer reads.
const READS_BYTES: &str = "a disassembler reads instruction bytes";

/// Instruction lines in `llvm-mc --disassemble` syntax, one per line.
pub fn disasm_file(inputs: &[Input]) -> String {
    let mut s = String::new();
    for i in inputs {
        s.push_str(&i.display());
        s.push('\n');
    }
    s
}

// ---------------------------------------------------------------- llvm-mc

/// `llvm-mc`, run once per batch: `--disassemble` for the disassembler
/// comparisons, `-show-encoding` for the assembler one.
pub struct LlvmMc {
    info: PeerInfo,
    path: PathBuf,
}

/// The lines that follow every instruction line in a batch: `s_nop 7` and
/// `s_nop 6` in one group, so each line's output is found between them.
const MARKER: [u8; 8] = [0x07, 0x00, 0x80, 0xbf, 0x06, 0x00, 0x80, 0xbf];
const MARKER_TEXT: [&str; 2] = ["s_nop 7", "s_nop 6"];

impl LlvmMc {
    /// The peer for one program (its absolute path: reproducers name
    /// it), known as `id` (`llvm-mc-19`, or a name given with `--peer`).
    pub fn new(version: u32, path: PathBuf, id: &str) -> Self {
        Self {
            info: PeerInfo::llvm(
                id.to_owned(),
                "llvm-mc",
                version,
                path.display().to_string(),
                MC_COMPARISONS,
            ),
            path,
        }
    }

    fn version(&self) -> u32 {
        self.info.version.unwrap_or(0)
    }

    /// Runs one batch's `text` through llvm-mc; `Err` with the batch's
    /// outcome when it could not run, crashed or hung.
    fn run_batch(
        &self,
        ctx: &Ctx,
        cpu: &str,
        assemble: bool,
        text: &str,
        n: usize,
    ) -> Result<isolate::ToolRun, Batch> {
        let limit = Self::limit(ctx, n);
        let run = isolate::run_tool(self.command_for(cpu, assemble), text.as_bytes(), limit)
            .map_err(|e| Batch::Failed(format!("cannot run {}: {e}", self.path.display())))?;
        if run.timed_out {
            return Err(Batch::Hung(Hang {
                seconds: limit.as_secs_f64(),
                stderr: isolate::tail(&run.stderr, isolate::STDERR_LINES),
            }));
        }
        if let Some(c) = isolate::crash_of(&run) {
            return Err(Batch::Crashed(c));
        }
        Ok(run)
    }

    /// The batch outcome when llvm-mc's output does not fit the lines.
    fn unmatched(&self) -> Batch {
        Batch::Failed(format!(
            "cannot match {}'s output to its input lines",
            self.info.id
        ))
    }

    fn command_for(&self, cpu: &str, assemble: bool) -> Command {
        let mut c = Command::new(&self.path);
        c.arg(format!("-triple={TRIPLE}"))
            .arg(format!("-mcpu={cpu}"));
        if assemble {
            c.arg("-show-encoding");
        } else {
            c.arg("--disassemble");
        }
        c
    }

    /// Time limit of a batch of `n` lines: the per-input limit for one
    /// line; a shorter one for many (a time-out there only steers the
    /// bisection, the final verdict is on single lines).
    fn limit(ctx: &Ctx, n: usize) -> Duration {
        if n <= 1 {
            return ctx.timeout;
        }
        let scaled = Duration::from_secs(5)
            + Duration::from_millis(2) * u32::try_from(n).unwrap_or(u32::MAX);
        scaled.min(ctx.timeout)
    }

    /// Runs one batch; `Err` when it crashed or hung (the caller bisects),
    /// otherwise one result per line.
    fn disasm_batch(&self, ctx: &Ctx, cpu: &str, lines: &[&[u8]]) -> Batch {
        let mut text = String::with_capacity(lines.len() * 90);
        for l in lines {
            text.push('[');
            text.push_str(&bytes_line(l));
            text.push_str("]\n[");
            text.push_str(&bytes_line(&MARKER));
            text.push_str("]\n");
        }
        let run = match self.run_batch(ctx, cpu, false, &text, lines.len()) {
            Ok(r) => r,
            Err(b) => return b,
        };
        match parse_disasm(&run.stdout, &run.stderr, lines) {
            Some(v) => Batch::Done(
                v.into_iter()
                    .map(|pieces| View::Disasm { pieces })
                    .collect(),
            ),
            None => self.unmatched(),
        }
    }

    fn asm_batch(&self, ctx: &Ctx, cpu: &str, lines: &[&str]) -> Batch {
        let mut text = String::with_capacity(lines.len() * 48);
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        let run = match self.run_batch(ctx, cpu, true, &text, lines.len()) {
            Ok(r) => r,
            Err(b) => return b,
        };
        match parse_asm(&run.stdout, &run.stderr, lines.len()) {
            Some(v) => Batch::Done(
                v.into_iter()
                    .map(|result| View::Encoding { result })
                    .collect(),
            ),
            None => self.unmatched(),
        }
    }

    /// Runs `run` on `items`; when the batch crashes or hangs, halves it
    /// until the lines that do are alone (a crash loses all of llvm-mc's
    /// buffered output, so single lines are the only attribution).
    fn bisect<T: Copy>(
        &self,
        items: &[(usize, T)],
        run: &dyn Fn(&[T]) -> Batch,
        each: &mut dyn FnMut(usize, PeerResult),
    ) {
        if items.is_empty() {
            return;
        }
        let lines: Vec<T> = items.iter().map(|(_, t)| *t).collect();
        match run(&lines) {
            Batch::Done(v) => {
                for ((k, _), view) in items.iter().zip(v) {
                    each(*k, PeerResult::View(view));
                }
            }
            Batch::Crashed(c) if items.len() == 1 => each(items[0].0, PeerResult::Crashed(c)),
            Batch::Hung(h) if items.len() == 1 => each(items[0].0, PeerResult::TimedOut(h)),
            Batch::Failed(why) if items.len() == 1 => each(
                items[0].0,
                PeerResult::NotComparable(NotComparable::Failed(why)),
            ),
            Batch::Crashed(_) | Batch::Hung(_) | Batch::Failed(_) => {
                let (a, b) = items.split_at(items.len() / 2);
                self.bisect(a, run, each);
                self.bisect(b, run, each);
            }
        }
    }

    fn probe(&self, cpu: &str, assemble: bool) -> Result<(), NotComparable> {
        let input: &[u8] = if assemble { PROBE_ASM } else { PROBE_BYTES };
        let run = isolate::run_tool(
            self.command_for(cpu, assemble),
            input,
            Duration::from_secs(60),
        )
        .map_err(|e| NotComparable::Failed(format!("cannot run {}: {e}", self.path.display())))?;
        let id = &self.info.id;
        let why = if let Some(why) = refusal(&run.stderr, self.version(), cpu) {
            why
        } else if run.timed_out {
            format!("{id} hung on s_nop 0 for {cpu}")
        } else if let Some(c) = isolate::crash_of(&run) {
            format!("{id} crashed on s_nop 0 for {cpu} ({})", c.status)
        } else {
            return Ok(());
        };
        Err(NotComparable::Processor(why))
    }
}

/// A batch's outcome.
enum Batch {
    Done(Vec<View>),
    Crashed(Crash),
    Hung(Hang),
    Failed(String),
}

/// True for output lines that are not instructions (section directives,
/// comment lines).
fn not_insn(l: &str) -> bool {
    l.is_empty()
        || l.starts_with('.')
        || l.starts_with(';')
        || l.starts_with('#')
        || l.starts_with("//")
}

/// `<stdin>:LINE:COL: KIND: message` lines of llvm-mc's standard error:
/// (line, column, message) of the first of `kind` on each line.
fn diagnostics(stderr: &str, kind: &str) -> HashMap<usize, (usize, String)> {
    let mut m = HashMap::new();
    let pat = format!(" {kind}: ");
    for l in stderr.lines() {
        let Some(rest) = l.strip_prefix("<stdin>:") else {
            continue;
        };
        let Some(p) = rest.find(&pat) else { continue };
        let mut nums = rest.get(..p).unwrap_or("").split(':');
        let (Some(line), Some(col)) = (
            nums.next().and_then(|s| s.parse::<usize>().ok()),
            nums.next().and_then(|s| s.parse::<usize>().ok()),
        ) else {
            continue;
        };
        let msg = rest.get(p + pat.len()..).unwrap_or("").to_owned();
        m.entry(line).or_insert((col, msg));
    }
    m
}

/// Splits `llvm-mc --disassemble` output of a batch (each line in its own
/// `[...]` group, followed by the marker group) into per-line pieces.
fn parse_disasm(stdout: &str, stderr: &str, lines: &[&[u8]]) -> Option<Vec<Vec<Piece>>> {
    let warnings = diagnostics(stderr, "warning");
    let rejects: HashMap<usize, usize> = warnings
        .iter()
        .filter(|(_, (_, m))| m.contains("invalid instruction encoding"))
        .map(|(l, (c, _))| (*l, *c))
        .collect();
    let out: Vec<&str> = stdout
        .lines()
        .map(str::trim)
        .filter(|l| !not_insn(l))
        .collect();
    let mut at = 0usize;
    let mut result = Vec::with_capacity(lines.len());
    for (j, bytes) in lines.iter().enumerate() {
        let line_no = 2 * j + 1;
        if rejects.contains_key(&(line_no + 1)) {
            return None;
        }
        // A reject column points at the group's byte: '[' is column 1,
        // byte k starts at column 2 + 5k.
        let reject = rejects.get(&line_no).map(|c| c.saturating_sub(2) / 5);
        let end = if lines.len() == 1 {
            out.len().checked_sub(2)?
        } else {
            let mut m = at;
            loop {
                if out.get(m) == Some(&MARKER_TEXT[0]) && out.get(m + 1) == Some(&MARKER_TEXT[1]) {
                    break m;
                }
                if m >= out.len() {
                    return None;
                }
                m += 1;
            }
        };
        if out.get(end..end + 2) != Some(&MARKER_TEXT[..]) {
            return None;
        }
        let texts = out.get(at..end)?;
        at = end + 2;
        let decoded_len = reject.unwrap_or(bytes.len());
        if reject == Some(0) && !texts.is_empty() {
            return None;
        }
        let n = texts.len();
        let mut pieces: Vec<Piece> = texts
            .iter()
            .map(|t| Piece::Insn {
                // Sizes are known when one instruction took the bytes, or
                // when every instruction must be 4 bytes long.
                size: if n == 1 {
                    Some(decoded_len)
                } else if n * 4 == decoded_len {
                    Some(4)
                } else {
                    None
                },
                text: (*t).to_owned(),
                comment: None,
            })
            .collect();
        if let Some(r) = reject {
            pieces.push(Piece::Invalid { at: r });
        }
        result.push(pieces);
    }
    (at == out.len()).then_some(result)
}

/// Splits `llvm-mc -show-encoding` output into per-line encodings or the
/// line's first error.
fn parse_asm(stdout: &str, stderr: &str, n: usize) -> Option<Vec<Result<Vec<u8>, String>>> {
    let errors = diagnostics(stderr, "error");
    let mut encodings = stdout.lines().filter_map(|l| {
        let p = l.find("; encoding: [")?;
        let list = l.get(p + "; encoding: [".len()..)?;
        let list = list.get(..list.find(']')?)?;
        Some(
            list.split(',')
                .map(|b| {
                    let b = b.trim();
                    u8::from_str_radix(b.strip_prefix("0x").unwrap_or(b), 16).ok()
                })
                .collect::<Option<Vec<u8>>>(),
        )
    });
    let mut out = Vec::with_capacity(n);
    for j in 0..n {
        match errors.get(&(j + 1)) {
            Some((_, msg)) => out.push(Err(msg.clone())),
            None => out.push(Ok(encodings.next()??)),
        }
    }
    encodings.next().is_none().then_some(out)
}

/// What `llvm-mc` assembles to ask whether it knows a processor.
pub(super) const PROBE_ASM: &[u8] = b"s_nop 0\n";
/// What `llvm-mc --disassemble` reads to ask whether LLVM can disassemble
/// for a processor (`s_nop 0`).
pub(super) const PROBE_BYTES: &[u8] = b"[0x00 0x00 0x80 0xbf]\n";

/// Why LLVM `version` cannot be compared on `cpu`, from the standard error
/// of a probe: it does not know the processor, or its disassembler refuses
/// the subtarget (LLVM disassembles GFX8 and later only; llvm-objdump
/// stops with the same fatal error on such objects).
pub(super) fn refusal(stderr: &str, version: u32, cpu: &str) -> Option<String> {
    if stderr.contains("is not a recognized processor") {
        return Some(format!("LLVM {version} does not know {cpu}"));
    }
    if stderr.contains("not yet supported") {
        return Some(format!(
            "LLVM {version} cannot disassemble for {cpu} (its disassembler starts at GFX8)"
        ));
    }
    None
}

/// Whether LLVM `version`'s assembler (`mc`, an `llvm-mc` of that version)
/// knows `cpu`, and with `disassemble`, whether its disassembler takes the
/// processor too (llvm-objdump stops with a fatal error on GFX6-GFX7
/// objects); cached per context. Without an assembler, every processor is
/// tried.
pub(super) fn knows(
    ctx: &Ctx,
    mc: Option<&Path>,
    version: u32,
    cpu: &str,
    disassemble: bool,
) -> Result<(), NotComparable> {
    let Some(mc) = mc else {
        return Ok(());
    };
    let probe = |disassemble: bool| {
        let mut cmd = Command::new(mc);
        cmd.arg(format!("-triple={}", TRIPLE))
            .arg(format!("-mcpu={cpu}"));
        let input = if disassemble {
            cmd.arg("--disassemble");
            PROBE_BYTES
        } else {
            PROBE_ASM
        };
        let run = isolate::run_tool(cmd, input, Duration::from_secs(60))
            .map_err(|e| NotComparable::Failed(format!("cannot run {}: {e}", mc.display())))?;
        refusal(&run.stderr, version, cpu).map_or(Ok(()), |why| Err(NotComparable::Processor(why)))
    };
    ctx.cached_support(&format!("objects/{}/{cpu}", mc.display()), || probe(false))?;
    if disassemble {
        ctx.cached_support(&format!("objects-disasm/{}/{cpu}", mc.display()), || {
            probe(true)
        })?;
    }
    Ok(())
}

impl Peer for LlvmMc {
    fn info(&self) -> &PeerInfo {
        &self.info
    }

    fn supports(
        &self,
        ctx: &Ctx,
        comparison: ComparisonId,
        cpu: &str,
    ) -> Result<(), NotComparable> {
        let assemble = comparison == ComparisonId::SmemEncode;
        ctx.cached_support(
            &format!(
                "{}/{cpu}/{}",
                self.info.id,
                if assemble { "asm" } else { "disasm" }
            ),
            || self.probe(cpu, assemble),
        )
    }

    fn run(
        &self,
        ctx: &Ctx,
        comparison: ComparisonId,
        cpu: &str,
        inputs: &[Input],
        each: &mut dyn FnMut(usize, PeerResult),
    ) {
        if comparison == ComparisonId::SmemEncode {
            let mut items: Vec<(usize, &str)> = Vec::with_capacity(inputs.len());
            for (k, i) in inputs.iter().enumerate() {
                match i {
                    Input::Asm { text } if !text.contains('\n') => items.push((k, text.as_str())),
                    _ => each(
                        k,
                        PeerResult::NotComparable(NotComparable::Reads(
                            "the assembler reads one line of text",
                        )),
                    ),
                }
            }
            for chunk in items.chunks(4096) {
                self.bisect(
                    chunk,
                    &|lines: &[&str]| self.asm_batch(ctx, cpu, lines),
                    each,
                );
            }
            return;
        }
        let mut items: Vec<(usize, &[u8])> = Vec::with_capacity(inputs.len());
        let mut alone: Vec<(usize, &[u8])> = Vec::new();
        for (k, i) in inputs.iter().enumerate() {
            match i {
                Input::Bytes { bytes } if !bytes.is_empty() => {
                    // A line holding the marker's bytes would be read as
                    // the marker: such lines run on their own.
                    if bytes.windows(8).step_by(4).any(|w| w == MARKER) {
                        alone.push((k, bytes.as_slice()));
                    } else {
                        items.push((k, bytes.as_slice()));
                    }
                }
                _ => each(
                    k,
                    PeerResult::NotComparable(NotComparable::Reads(READS_BYTES)),
                ),
            }
        }
        let run = |lines: &[&[u8]]| self.disasm_batch(ctx, cpu, lines);
        for chunk in items.chunks(4096) {
            self.bisect(chunk, &run, each);
        }
        for one in alone {
            self.bisect(&[one], &run, each);
        }
    }

    fn reproducer(&self, comparison: ComparisonId, inputs: &[Input]) -> String {
        if comparison == ComparisonId::SmemEncode {
            let mut s = String::new();
            for i in inputs {
                if let Input::Asm { text } = i {
                    s.push_str(text);
                    s.push('\n');
                }
            }
            return s;
        }
        disasm_file(inputs)
    }

    fn command(&self, comparison: ComparisonId, cpu: &str, file: &str) -> Option<Vec<String>> {
        let mut v = vec![self.path.display().to_string()];
        if comparison == ComparisonId::SmemEncode {
            v.push("-show-encoding".to_owned());
        } else {
            v.push("--disassemble".to_owned());
        }
        v.push(format!("-triple={TRIPLE}"));
        v.push(format!("-mcpu={cpu}"));
        v.push(file.to_owned());
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_round_trip() {
        let mut s = String::new();
        encode_pieces(&[(4, Some("s_nop 0".to_owned())), (4, None)], &mut s);
        assert_eq!(s, "4:s_nop 0\u{1e}!4");
        assert_eq!(
            decode_pieces(&s),
            Some(vec![
                Piece::Insn {
                    size: Some(4),
                    text: "s_nop 0".to_owned(),
                    comment: Some(String::new())
                },
                Piece::Invalid { at: 4 }
            ])
        );
        let mut s = String::new();
        encode_pieces(
            &[(
                8,
                Some("s_load_dwordx2 s[4:5], s[2:3], 0x10 ; Warning: x".to_owned()),
            )],
            &mut s,
        );
        let p = decode_pieces(&s).expect("pieces");
        assert_eq!(
            p,
            vec![Piece::Insn {
                size: Some(8),
                text: "s_load_dwordx2 s[4:5], s[2:3], 0x10".to_owned(),
                comment: Some("Warning: x".to_owned())
            }]
        );
        assert_eq!(decode_pieces(""), Some(vec![]));
        assert_eq!(decode_pieces("x:y"), None);
    }

    #[test]
    fn disasm_output_is_split_per_line() {
        let a: &[u8] = &[0x41, 0x01, 0x02, 0xc0, 0x10, 0, 0, 0];
        let b: &[u8] = &[0xff; 8];
        let c: &[u8] = &[0, 0, 0x80, 0xbf, 7, 0, 0x80, 0xbf];
        let d: &[u8] = &[0, 0, 0x80, 0xbf, 0xff, 0xff, 0xff, 0xff];
        let stdout = "\t.text\n\ts_load_dword s5, s[2:3], 0x10\n\ts_nop 7\n\ts_nop 6\n\
                      \ts_nop 7\n\ts_nop 6\n\
                      \ts_nop 0\n\ts_nop 7\n\ts_nop 7\n\ts_nop 6\n\
                      \ts_nop 0\n\ts_nop 7\n\ts_nop 6\n";
        let stderr = "<stdin>:3:2: warning: invalid instruction encoding\n[0xff ...]\n ^\n\
                      <stdin>:7:22: warning: invalid instruction encoding\n";
        let v = parse_disasm(stdout, stderr, &[a, b, c, d]).expect("parsed");
        let insn = |size, t: &str| Piece::Insn {
            size,
            text: t.to_owned(),
            comment: None,
        };
        assert_eq!(v[0], vec![insn(Some(8), "s_load_dword s5, s[2:3], 0x10")]);
        assert_eq!(v[1], vec![Piece::Invalid { at: 0 }]);
        assert_eq!(
            v[2],
            vec![insn(Some(4), "s_nop 0"), insn(Some(4), "s_nop 7")]
        );
        assert_eq!(
            v[3],
            vec![insn(Some(4), "s_nop 0"), Piece::Invalid { at: 4 }]
        );
        // Output that does not fit the lines is refused, not guessed.
        assert!(parse_disasm("\ts_nop 0\n", "", &[a, b]).is_none());
    }

    #[test]
    fn asm_output_is_split_per_line() {
        let stdout = "\t.text\n\ts_nop 0 ; encoding: [0x00,0x00,0x80,0xbf]\n\
                      \ts_load_dword s5, s[2:3], 0x10 ; encoding: [0x41,0x01,0x02,0xc0,0x10,0x00,0x00,0x00]\n";
        let stderr = "<stdin>:2:1: error: invalid instruction\nfoo\n^\n";
        let v = parse_asm(stdout, stderr, 3).expect("parsed");
        assert_eq!(v[0], Ok(vec![0, 0, 0x80, 0xbf]));
        assert_eq!(v[1], Err("invalid instruction".to_owned()));
        assert_eq!(v[2], Ok(vec![0x41, 1, 2, 0xc0, 0x10, 0, 0, 0]));
        assert!(parse_asm(stdout, "", 1).is_none());
    }
}
