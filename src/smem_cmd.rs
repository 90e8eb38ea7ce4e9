//! The `smem` command: decode and encode SMEM instructions, compare the
//! oracle with LLVM's disassembler over random words (`diff`), and
//! measure throughput (`bench`).

use hsaco_conform::outln;
use hsaco_conform::output::write_failed;
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use clap::{Subcommand, ValueEnum};
use hsaco_conform::peers::llvm_disasm::{self, Breadcrumb, LibInfo, LlvmLib};
use hsaco_conform::smem_diff::{self, Divergence, Example, Tally, Words, DEFAULT_TARGETS};
use hsaco_oracle::smem::{self, Decoded, Offset, SmemGen, Verdict};
use hsaco_oracle::targets::Target;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Output format of `smem decode`.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum SmemFormat {
    /// One instruction per line, in LLVM syntax (`<invalid>` when invalid).
    Text,
    /// One JSON object per line: the decoded fields, verdict and reasons.
    Json,
}

const DECODE_HELP: &str = "\
Input: one instruction per line, as the bytes llvm-mc --disassemble reads
(lowest address first; commas allowed):
  0x41 0x01 0x02 0xc0 0x10 0x00 0x00 0x00
  0x41,0x01,0x02,0xc0,0x10,0x00,0x00,0x00
Blank lines and comment lines (starting with #, ; or //) are copied as
they are, so output line N always belongs to input line N. A line that is
not eight bytes prints `error: <why>` in its place.

Exit status: 0 every line decoded to a valid instruction (non-canonical
encodings included), 1 some line was invalid or malformed, 2 could not
run (unknown or unmodelled processor, unreadable file).

Examples:
  echo '0x41 0x01 0x02 0xc0 0x10 0x00 0x00 0x00' | hsaco-conform smem decode --target gfx900
      s_load_dword s5, s[2:3], 0x10
  hsaco-conform smem decode --target gfx1100 --format json words.txt";

const ENCODE_HELP: &str = "\
Input: one instruction per line in LLVM 19 assembler syntax. Output: its
canonical encoding as bytes, lowest address first, or `error: <why>`.
Blank lines and comment lines (#, ; or //) are copied as they are.

Exit status: 0 every line encoded, 1 some line could not be encoded, 2
could not run (unknown or unmodelled processor, unreadable file).

Examples:
  echo 's_load_dword s5, s[2:3], 0x10' | hsaco-conform smem encode --target gfx900
      0x41,0x01,0x02,0xc0,0x10,0x00,0x00,0x00
  hsaco-conform smem encode --target gfx1200 program.s";

const DIFF_HELP: &str = "\
Random 64-bit words (nine in ten with the SMEM encoding, two in three with
a defined opcode; the stream is fixed by --seed and the processor name)
go through the oracle and, one instruction at a time, through LLVM's
disassembler in libLLVM-NN.so, loaded in-process. Each (processor, LLVM
version) runs in a worker process, two at a time by default, so a crash
inside LLVM is reported with the word that caused it and the run goes on
(after the word); a worker stuck on one word for 30 s is killed and the
word reported as a hang. Progress goes to standard error every 10 s.

Every word either agrees (valid/invalid and identical text), or differs
exactly as one of the listed known divergences predicts, or is an
unexplained difference. Words LLVM is known to crash on are reported as
known crashes. Words that begin a non-SMEM instruction longer than 8 bytes
(LLVM decodes them, followed by zero bytes, as such) are not given to LLVM
alone and are counted apart: the 8 bytes are not a whole instruction, and
LLVM 22 crashes on some of them. An LLVM version that does not know a
processor is reported as not comparable.

Exit status: 0 no unexplained difference and no unknown crash, 1 some,
2 could not run (unknown processor, libLLVM of a requested version not
installed).

Examples:
  hsaco-conform smem diff
  hsaco-conform smem diff --target gfx900,gfx1100 --count 100000 --llvm all
  hsaco-conform smem diff --llvm 14 --seed 0x5eed";

const BENCH_HELP: &str = "\
Measures, on one core and on the same random words as `smem diff`:
oracle decode alone, decode plus text, encode of the decoded valid
instructions, and libLLVM-19's disassembler (words LLVM is known to crash
on are left out of its pass). Build with --release for meaningful figures.

Examples:
  cargo run --release -- smem bench --target gfx900
  hsaco-conform smem bench --target gfx1200 --count 5000000 --no-llvm";

/// `hsaco-conform smem ...`.
#[derive(Subcommand)]
pub enum SmemCommand {
    /// Decode SMEM instructions given as bytes; print them in LLVM syntax
    /// or as JSON.
    #[command(after_help = DECODE_HELP)]
    Decode {
        /// Processor (gfx803, gfx900, gfx90a, gfx1030, gfx1100, gfx1200...).
        #[arg(long)]
        target: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = SmemFormat::Text)]
        format: SmemFormat,
        /// Input file (default: standard input).
        file: Option<PathBuf>,
    },
    /// Encode SMEM instructions written in LLVM syntax; print their bytes.
    #[command(after_help = ENCODE_HELP)]
    Encode {
        /// Processor.
        #[arg(long)]
        target: String,
        /// Input file (default: standard input).
        file: Option<PathBuf>,
    },
    /// Compare the oracle with LLVM's disassembler (libLLVM, in-process)
    /// over random words.
    #[command(after_help = DIFF_HELP)]
    Diff {
        /// Processors, comma-separated.
        #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_TARGETS.map(String::from))]
        target: Vec<String>,
        /// Words per processor.
        #[arg(long, default_value_t = 1_000_000)]
        count: u64,
        /// Seed of the word stream (decimal or 0x-hex).
        #[arg(long, default_value = "1", value_parser = parse_u64)]
        seed: u64,
        /// LLVM versions: a major version, a comma-separated list, or
        /// `all` (every libLLVM found).
        #[arg(long, default_value = "19")]
        llvm: String,
        /// Worker processes at a time.
        #[arg(long, default_value_t = 2)]
        jobs: usize,
        /// Unexplained differences shown per comparison.
        #[arg(long, default_value_t = 5)]
        examples: usize,
    },
    /// Measure decode and encode throughput against libLLVM-19's
    /// disassembler on the same words.
    #[command(after_help = BENCH_HELP)]
    Bench {
        /// Processor.
        #[arg(long, default_value = "gfx900")]
        target: String,
        /// Words.
        #[arg(long, default_value_t = 1_000_000)]
        count: u64,
        /// Seed of the word stream (decimal or 0x-hex).
        #[arg(long, default_value = "1", value_parser = parse_u64)]
        seed: u64,
        /// Timed repetitions of each oracle pass (the best is reported).
        #[arg(long, default_value_t = 5)]
        repeat: u32,
        /// Skip the libLLVM pass.
        #[arg(long)]
        no_llvm: bool,
    },
    /// Worker process of `smem diff` (internal).
    #[command(hide = true)]
    Worker {
        #[arg(long)]
        target: String,
        #[arg(long)]
        llvm: u32,
        #[arg(long, value_parser = parse_u64)]
        seed: u64,
        #[arg(long)]
        start: u64,
        #[arg(long)]
        count: u64,
        #[arg(long)]
        breadcrumb: PathBuf,
        #[arg(long)]
        examples: usize,
        /// Word indexes not to give to LLVM (they crashed it before).
        #[arg(long, value_delimiter = ',')]
        skip: Vec<u64>,
    },
}

fn parse_u64(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(&h.replace('_', ""), 16),
        None => s.replace('_', "").parse(),
    };
    r.map_err(|e| format!("{s:?} is not a number: {e}"))
}

/// Runs an `smem` command; returns the exit status.
pub fn run(cmd: SmemCommand) -> u8 {
    match cmd {
        SmemCommand::Decode {
            target,
            format,
            file,
        } => run_decode(&target, format, file.as_deref()),
        SmemCommand::Encode { target, file } => run_encode(&target, file.as_deref()),
        SmemCommand::Diff {
            target,
            count,
            seed,
            llvm,
            jobs,
            examples,
        } => run_diff(&target, count, seed, &llvm, jobs.max(1), examples),
        SmemCommand::Bench {
            target,
            count,
            seed,
            repeat,
            no_llvm,
        } => run_bench(&target, count.max(1), seed, repeat.max(1), !no_llvm),
        SmemCommand::Worker {
            target,
            llvm,
            seed,
            start,
            count,
            breadcrumb,
            examples,
            skip,
        } => run_worker(
            &target,
            llvm,
            seed,
            start,
            count,
            &breadcrumb,
            examples,
            &skip,
        ),
    }
}

/// A processor and its SMEM family, or a message saying why not.
fn resolve(name: &str) -> Result<(&'static Target, SmemGen), String> {
    let t = hsaco_conform::smem_diff::resolve_processor(name)?;
    let gen = SmemGen::for_target(t).ok_or_else(|| {
        format!(
            "{} ({:?}) has no SMEM model: SMEM is modelled for GFX8 to GFX12 (gfx801 and later)",
            t.name, t.generation
        )
    })?;
    Ok((t, gen))
}

fn read_input(file: Option<&Path>) -> Result<String, String> {
    let mut s = String::new();
    match file {
        Some(p) => {
            let bytes =
                std::fs::read(p).map_err(|e| format!("{}: cannot read: {e}", p.display()))?;
            s = String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", p.display()))?;
        }
        None => {
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| format!("standard input: {e}"))?;
        }
    }
    Ok(s)
}

/// True for lines copied through unchanged (blank or comment).
fn passthrough(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#') || t.starts_with(';') || t.starts_with("//")
}

/// Parses one line of bytes into a word.
fn parse_bytes(line: &str) -> Result<u64, String> {
    let mut bytes = Vec::new();
    for tok in line
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
    {
        let v = match tok.strip_prefix("0x").or_else(|| tok.strip_prefix("0X")) {
            Some(h) => u8::from_str_radix(h, 16),
            None => tok.parse::<u8>(),
        }
        .map_err(|_| format!("{tok:?} is not a byte (0x00-0xff or 0-255)"))?;
        bytes.push(v);
    }
    let arr: [u8; 8] = bytes.as_slice().try_into().map_err(|_| {
        format!(
            "expected 8 bytes (an SMEM instruction is 64 bits), found {}",
            bytes.len()
        )
    })?;
    Ok(u64::from_le_bytes(arr))
}

fn run_decode(target: &str, format: SmemFormat, file: Option<&Path>) -> u8 {
    let (t, gen) = match resolve(target) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("hsaco-conform smem decode: {e}");
            return 2;
        }
    };
    let input = match read_input(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("hsaco-conform smem decode: {e}");
            return 2;
        }
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut code = 0;
    for (n, line) in input.lines().enumerate() {
        let n = n + 1;
        let text = if passthrough(line) && format == SmemFormat::Text {
            line.to_owned()
        } else if passthrough(line) {
            json!({ "line": n, "input": line }).to_string()
        } else {
            match parse_bytes(line) {
                Err(e) => {
                    code = 1;
                    match format {
                        SmemFormat::Text => format!("error: {e}"),
                        SmemFormat::Json => {
                            json!({ "line": n, "input": line.trim(), "error": e }).to_string()
                        }
                    }
                }
                Ok(word) => {
                    let d = smem::decode(gen, word);
                    if matches!(d.verdict, Verdict::Invalid(_)) {
                        code = 1;
                    }
                    match format {
                        SmemFormat::Text => d.to_string(),
                        SmemFormat::Json => decoded_json(n, line.trim(), t, &d).to_string(),
                    }
                }
            }
        };
        if let Err(e) = writeln!(out, "{text}") {
            return write_failed("smem decode", &e);
        }
    }
    if let Err(e) = out.flush() {
        return write_failed("smem decode", &e);
    }
    code
}

fn offset_json(o: Offset) -> serde_json::Value {
    match o {
        Offset::None => serde_json::Value::Null,
        Offset::Imm(v) => json!({ "form": "imm", "imm": v }),
        Offset::Sgpr(r) => json!({ "form": "sgpr", "sgpr": r }),
        Offset::SgprImm { sgpr, imm } => json!({ "form": "sgpr_imm", "sgpr": sgpr, "imm": imm }),
        Offset::Soffset(r) => json!({ "form": "soffset", "sgpr": r }),
    }
}

/// The JSON view of a decoded word (stable field names).
fn decoded_json(line: usize, input: &str, t: &Target, d: &Decoded) -> serde_json::Value {
    let (verdict, reason, reason_kind, bits) = match d.verdict {
        Verdict::Valid => ("valid", None, None, None),
        Verdict::NonCanonical { bits } => (
            "non-canonical",
            Some(format!("bits {bits:#018x} are set but unused")),
            None,
            Some(format!("{bits:#018x}")),
        ),
        Verdict::Invalid(r) => {
            let kind = format!("{r:?}");
            let kind = kind.split('(').next().unwrap_or("").to_owned();
            ("invalid", Some(r.to_string()), Some(kind), None)
        }
    };
    let mut v = json!({
        "line": line,
        "input": input,
        "target": t.name,
        "word": format!("{:#018x}", d.word),
        "opcode": d.opcode,
        "verdict": verdict,
        "text": d.to_string(),
    });
    if let Some(obj) = v.as_object_mut() {
        if let Some(r) = reason {
            obj.insert("reason".into(), json!(r));
        }
        if let Some(k) = reason_kind {
            obj.insert("reason_kind".into(), json!(k));
        }
        if let Some(b) = bits {
            obj.insert("unused_bits".into(), json!(b));
        }
        // The catalogue rule the word breaks (`hsaco-conform rules`).
        if let Some(rule) = d.verdict.rule() {
            obj.insert("rule".into(), json!(rule.id));
        }
        if let Some(i) = d.instruction {
            let mut ins = json!({
                "mnemonic": i.op.mnemonic,
                "class": format!("{:?}", i.op.class),
                "sdata_dwords": i.op.width,
                "sdata": i.sdata,
                "sbase": i.sbase,
                "offset": offset_json(i.offset),
                "glc": i.glc,
                "dlc": i.dlc,
                "th": i.th,
                "scope": i.scope,
                "llvm_text": i.to_string(),
            });
            // Only families with the GFX12.5 modifiers report them, so the
            // objects of the others are what they were.
            if let (Some(m), Some(_)) = (ins.as_object_mut(), i.gen.nv_bit()) {
                m.insert("nv".into(), json!(i.nv));
                m.insert("scale_offset".into(), json!(i.scale_offset));
            }
            obj.insert("instruction".into(), ins);
        }
    }
    v
}

fn run_encode(target: &str, file: Option<&Path>) -> u8 {
    let (_, gen) = match resolve(target) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("hsaco-conform smem encode: {e}");
            return 2;
        }
    };
    let input = match read_input(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("hsaco-conform smem encode: {e}");
            return 2;
        }
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut code = 0;
    for line in input.lines() {
        let text = if passthrough(line) {
            line.to_owned()
        } else {
            match encode_line(gen, line.trim()) {
                Ok(word) => {
                    let mut s = String::with_capacity(40);
                    for (k, b) in word.to_le_bytes().iter().enumerate() {
                        if k > 0 {
                            s.push(',');
                        }
                        let _ = write!(s, "{b:#04x}");
                    }
                    s
                }
                Err(e) => {
                    code = 1;
                    format!("error: {e}")
                }
            }
        };
        if let Err(e) = writeln!(out, "{text}") {
            return write_failed("smem encode", &e);
        }
    }
    if let Err(e) = out.flush() {
        return write_failed("smem encode", &e);
    }
    code
}

fn encode_line(gen: SmemGen, line: &str) -> Result<u64, String> {
    let i = smem::parse::parse(gen, line).map_err(|e| e.to_string())?;
    smem::encode(&i).map_err(|e| e.to_string())
}

// ---------------------------------------------------------------- diff

/// What a worker prints on standard output: one line per finished chunk
/// of words, then a final line.
#[derive(Serialize, Deserialize, Debug)]
#[serde(tag = "kind", rename_all = "kebab-case")]
enum WorkerLine {
    /// Words `start..end` are compared.
    Chunk { start: u64, end: u64, tally: Tally },
    /// LLVM cannot be compared for this processor.
    NotComparable { reason: String },
    /// All words are done.
    Done,
}

const CHUNK: u64 = 1 << 16;

#[allow(clippy::too_many_arguments)]
fn run_worker(
    target: &str,
    version: u32,
    seed: u64,
    start: u64,
    count: u64,
    breadcrumb: &Path,
    examples: usize,
    skip: &[u64],
) -> u8 {
    let emit = |l: &WorkerLine| {
        let mut out = std::io::stdout().lock();
        let _ = serde_json::to_writer(&mut out, l);
        let _ = writeln!(out);
        let _ = out.flush();
    };
    let (t, gen) = match resolve(target) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let mut crumb = match Breadcrumb::create(breadcrumb) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{}: {e}", breadcrumb.display());
            return 2;
        }
    };
    let lib = match LlvmLib::open(version) {
        Ok(l) => l,
        Err(e) => {
            emit(&WorkerLine::NotComparable {
                reason: e.to_string(),
            });
            crumb.finish();
            return 0;
        }
    };
    let mut dis = match lib.disassembler(t.name) {
        Ok(d) => d,
        Err(e) => {
            emit(&WorkerLine::NotComparable {
                reason: e.to_string(),
            });
            crumb.finish();
            return 0;
        }
    };
    let end = start.saturating_add(count);
    let mut at = start;
    while at < end {
        let n = (end - at).min(CHUNK);
        let tally = smem_diff::run(
            &mut dis,
            gen,
            seed,
            at,
            n,
            examples,
            &|i, _| skip.contains(&i),
            |i, w| crumb.set(i, w),
        );
        emit(&WorkerLine::Chunk {
            start: at,
            end: at + n,
            tally,
        });
        at += n;
    }
    crumb.finish();
    emit(&WorkerLine::Done);
    0
}

/// A crash of LLVM inside a worker.
struct Crash {
    index: u64,
    word: u64,
    status: String,
    known: bool,
    stderr: Vec<String>,
}

/// One (processor, LLVM version) comparison.
struct Job {
    cpu: &'static str,
    gen: SmemGen,
    lib: LibInfo,
    end: u64,
    /// Words `0..next` are accounted for (compared, skipped or crashed).
    next: u64,
    tally: Tally,
    crashes: Vec<Crash>,
    not_comparable: Option<String>,
    failure: Option<String>,
    done: bool,
    started: Option<Instant>,
    wall: Duration,
}

struct Running {
    job: usize,
    child: Child,
    breadcrumb: PathBuf,
    stdout: JoinHandle<String>,
    stderr: JoinHandle<Vec<String>>,
    /// The word the worker was at when last looked at, and since when.
    seen: Option<(u64, Instant)>,
    /// Set when the worker was killed for making no progress.
    hung: bool,
}

/// A worker that stays on one word this long is taken as hung in LLVM,
/// killed, and the word recorded (LLVM takes microseconds per word).
const HANG: Duration = Duration::from_secs(30);

/// Most crashes tolerated in one comparison before it is abandoned.
const MAX_CRASHES: usize = 100;

fn signal_text(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                4 => "SIGILL",
                6 => "SIGABRT",
                7 => "SIGBUS",
                8 => "SIGFPE",
                9 => "SIGKILL",
                11 => "SIGSEGV",
                _ => "signal",
            };
            return format!("{name} ({sig})");
        }
    }
    match status.code() {
        Some(c) => format!("exit status {c}"),
        None => "killed".to_owned(),
    }
}

/// The LLVM versions `spec` names, with their libraries; an error names
/// what is missing.
fn resolve_versions(spec: &str) -> Result<Vec<LibInfo>, String> {
    let found = llvm_disasm::discover();
    if spec.trim() == "all" {
        if found.is_empty() {
            return Err(format!(
                "no libLLVM found (searched {})",
                llvm_disasm::default_dirs()
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
        return Ok(found);
    }
    let mut libs = Vec::new();
    for v in spec.split(',').map(str::trim).filter(|v| !v.is_empty()) {
        let n: u32 = v
            .parse()
            .map_err(|_| format!("--llvm {v:?}: expected a major version such as 19, or all"))?;
        let lib = llvm_disasm::find(n).map_err(|e| e.to_string())?;
        if !libs.contains(&lib) {
            libs.push(lib);
        }
    }
    if libs.is_empty() {
        return Err("--llvm names no version".to_owned());
    }
    Ok(libs)
}

fn spawn_worker(
    jobs: &[Job],
    job: usize,
    seed: u64,
    examples: usize,
    dir: &Path,
) -> Result<Running, String> {
    let j = jobs.get(job).ok_or("no such job")?;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find own executable: {e}"))?;
    let breadcrumb = dir.join(format!("{}-llvm{}-{}.crumb", j.cpu, j.lib.version, j.next));
    let skip: Vec<String> = j.crashes.iter().map(|c| c.index.to_string()).collect();
    let mut cmd = Command::new(exe);
    cmd.args(["smem", "worker", "--target", j.cpu])
        .args(["--llvm", &j.lib.version.to_string()])
        .args(["--seed", &seed.to_string()])
        .args(["--start", &j.next.to_string()])
        .args(["--count", &(j.end - j.next).to_string()])
        .arg("--breadcrumb")
        .arg(&breadcrumb)
        .args(["--examples", &examples.to_string()]);
    if !skip.is_empty() {
        cmd.arg("--skip").arg(skip.join(","));
    }
    // The worker finds the same libLLVM the parent found.
    if let Some(dir) = j.lib.path.parent() {
        let mut paths = vec![dir.to_path_buf()];
        if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
            paths.extend(std::env::split_paths(&old));
        }
        if let Ok(joined) = std::env::join_paths(paths) {
            cmd.env("LD_LIBRARY_PATH", joined);
        }
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start worker: {e}"))?;
    let mut out = child.stdout.take().ok_or("no worker stdout")?;
    let err = child.stderr.take().ok_or("no worker stderr")?;
    let stdout = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    // Keep only the last lines: LLVM's crash reports can be long.
    let stderr = std::thread::spawn(move || {
        let mut tail: VecDeque<String> = VecDeque::new();
        for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
            if tail.len() == 8 {
                tail.pop_front();
            }
            tail.push_back(line);
        }
        tail.into_iter().collect()
    });
    Ok(Running {
        job,
        child,
        breadcrumb,
        stdout,
        stderr,
        seen: None,
        hung: false,
    })
}

/// Takes a finished worker's output into its job: complete chunks are
/// counted; after a crash, the word named by the breadcrumb is recorded
/// and the job resumes after the last complete chunk, skipping it.
fn absorb(job: &mut Job, r: Running, status: ExitStatus, max_examples: usize) {
    let out = r.stdout.join().unwrap_or_default();
    let err = r.stderr.join().unwrap_or_default();
    let crumb = Breadcrumb::read(&r.breadcrumb);
    let _ = std::fs::remove_file(&r.breadcrumb);
    let mut finished = false;
    for line in out.lines() {
        match serde_json::from_str::<WorkerLine>(line) {
            Ok(WorkerLine::Chunk { start, end, tally }) if start == job.next => {
                job.tally.merge(&tally, max_examples);
                job.next = end;
            }
            Ok(WorkerLine::NotComparable { reason }) => {
                job.not_comparable = Some(reason);
                finished = true;
            }
            Ok(WorkerLine::Done) => finished = true,
            _ => {}
        }
    }
    if finished && status.success() {
        job.done = true;
        return;
    }
    let crashed_at = crumb.filter(|c| !c.done && c.index >= job.next && c.index < job.end);
    match crashed_at {
        Some(c) if !job.crashes.iter().any(|k| k.index == c.index) => {
            job.crashes.push(Crash {
                index: c.index,
                word: c.word,
                status: if r.hung {
                    format!("hang, killed after {} s", HANG.as_secs())
                } else {
                    signal_text(status)
                },
                known: smem_diff::known_llvm_crash(job.gen, c.word),
                stderr: err,
            });
            if job.crashes.len() >= MAX_CRASHES {
                job.failure = Some(format!(
                    "abandoned after {MAX_CRASHES} crashes of LLVM, at word {}",
                    c.index
                ));
                job.done = true;
            }
        }
        _ => {
            job.failure = Some(format!(
                "worker ended with {} before finishing{}",
                signal_text(status),
                if err.is_empty() {
                    String::new()
                } else {
                    format!(": {}", err.join(" | "))
                }
            ));
            job.done = true;
        }
    }
}

fn run_diff(
    targets: &[String],
    count: u64,
    seed: u64,
    llvm: &str,
    jobs_at_once: usize,
    examples: usize,
) -> u8 {
    let mut cpus = Vec::new();
    for t in targets {
        match resolve(t) {
            Ok((t, gen)) => cpus.push((t.name, gen)),
            Err(e) => {
                eprintln!("hsaco-conform smem diff: {e}");
                return 2;
            }
        }
    }
    let libs = match resolve_versions(llvm) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("hsaco-conform smem diff: {e}");
            return 2;
        }
    };
    let dir = match tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("hsaco-conform smem diff: cannot create a temporary directory: {e}");
            return 2;
        }
    };
    let mut jobs: Vec<Job> = Vec::new();
    for lib in &libs {
        for &(cpu, gen) in &cpus {
            jobs.push(Job {
                cpu,
                gen,
                lib: lib.clone(),
                end: count,
                next: 0,
                tally: Tally::default(),
                crashes: Vec::new(),
                not_comparable: None,
                failure: None,
                done: false,
                started: None,
                wall: Duration::ZERO,
            });
        }
    }
    outln!(
        "smem diff: {count} words per processor, seed {seed:#x}, {} worker(s) at a time",
        jobs_at_once
    );
    for lib in &libs {
        outln!("  LLVM {}: {}", lib.version, lib.path.display());
    }
    let t0 = Instant::now();
    let mut pending: VecDeque<usize> = (0..jobs.len()).collect();
    let mut running: Vec<Running> = Vec::new();
    let mut last_progress = Instant::now();
    while !pending.is_empty() || !running.is_empty() {
        while running.len() < jobs_at_once {
            let Some(j) = pending.pop_front() else { break };
            match spawn_worker(&jobs, j, seed, examples, &dir.0) {
                Ok(r) => {
                    if let Some(job) = jobs.get_mut(j) {
                        job.started.get_or_insert_with(Instant::now);
                    }
                    running.push(r);
                }
                Err(e) => {
                    eprintln!("hsaco-conform smem diff: {e}");
                    return 2;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
        let mut k = 0;
        while k < running.len() {
            let status = running
                .get_mut(k)
                .and_then(|r| r.child.try_wait().ok().flatten());
            let Some(status) = status else {
                k += 1;
                continue;
            };
            let r = running.swap_remove(k);
            let j = r.job;
            if let Some(job) = jobs.get_mut(j) {
                absorb(job, r, status, examples);
                if !job.done && job.next < job.end {
                    // Resume after the crash.
                    pending.push_front(j);
                } else {
                    job.done = true;
                    job.wall = job.started.map_or(Duration::ZERO, |s| s.elapsed());
                    report_job(job, examples);
                }
            }
        }
        for r in &mut running {
            let Some(c) = Breadcrumb::read(&r.breadcrumb) else {
                continue;
            };
            match r.seen {
                Some((i, since)) if i == c.index && !c.done => {
                    if since.elapsed() >= HANG && !r.hung {
                        r.hung = true;
                        let _ = r.child.kill();
                    }
                }
                _ => r.seen = Some((c.index, Instant::now())),
            }
        }
        if last_progress.elapsed() >= Duration::from_secs(10) {
            last_progress = Instant::now();
            for r in &running {
                if let (Some(job), Some(c)) = (jobs.get(r.job), Breadcrumb::read(&r.breadcrumb)) {
                    eprintln!(
                        "smem diff: {} LLVM {}: word {} of {} ({:.0} s)",
                        job.cpu,
                        job.lib.version,
                        c.index,
                        job.end,
                        t0.elapsed().as_secs_f64()
                    );
                }
            }
        }
    }
    summary(&jobs, t0.elapsed())
}

/// A private temporary directory, removed on drop.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempdir() -> std::io::Result<TempDir> {
    let base = std::env::temp_dir();
    for k in 0..1000u32 {
        let p = base.join(format!("hsaco-smem-diff-{}-{k}", std::process::id()));
        match std::fs::create_dir(&p) {
            Ok(()) => return Ok(TempDir(p)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free temporary directory name"))
}

fn example_lines(e: &Example) -> String {
    format!(
        "    word {:#018x} ({})\n      oracle: {} `{}`\n      expected from LLVM: {}\n      LLVM:   {}",
        e.word,
        smem_diff::word_bytes(e.word),
        e.oracle,
        e.oracle_text,
        e.expected,
        e.llvm.as_deref().unwrap_or("<invalid>")
    )
}

fn report_job(job: &Job, examples: usize) {
    let head = format!("{} LLVM {}", job.cpu, job.lib.version);
    if let Some(r) = &job.not_comparable {
        outln!("{head}: not comparable: {r}");
        return;
    }
    let t = &job.tally;
    outln!(
        "{head}: {} words: {} agree ({} outside SMEM), {} known divergence, {} different; LLVM {:.0} words/s, {:.1} s",
        t.compared,
        t.same,
        t.non_smem,
        t.known_words,
        t.different,
        t.llvm_words_per_second(),
        job.wall.as_secs_f64()
    );
    for &(d, n) in &t.known {
        outln!("  known {}: {n}", d.name());
    }
    if t.truncated > 0 {
        println!(
            "  not given to LLVM: {} words that begin an instruction longer than 8 bytes (truncated input; LLVM 22 crashes on some: llvm.crash.llvm22-input-ends-in-instruction)",
            t.truncated
        );
    }
    for &(d, n) in &t.fixed {
        let v = d.versions();
        outln!(
            "  agrees where LLVM {}-{} showed {}: {n} (rejected, as the oracle does)",
            v.start(),
            v.end(),
            d.name()
        );
    }
    for e in t.examples.iter().take(examples) {
        outln!("  DIFFERENT:\n{}", example_lines(e));
    }
    for c in &job.crashes {
        outln!(
            "  LLVM {} ({}) on word {} {:#018x} ({}): {}",
            if c.status.starts_with("hang") {
                "hung"
            } else {
                "crashed"
            },
            c.status,
            c.index,
            c.word,
            smem_diff::word_bytes(c.word),
            if c.known {
                smem_diff::KNOWN_CRASH
            } else {
                "UNKNOWN: not a known crash"
            }
        );
        if !c.known {
            for l in &c.stderr {
                outln!("    | {l}");
            }
        }
    }
    if let Some(f) = &job.failure {
        outln!("  FAILED: {f}");
    }
}

fn summary(jobs: &[Job], wall: Duration) -> u8 {
    let compared: u64 = jobs.iter().map(|j| j.tally.compared).sum();
    let different: u64 = jobs.iter().map(|j| j.tally.different).sum();
    let crashes = jobs.iter().map(|j| j.crashes.len()).sum::<usize>();
    let unknown_crashes = jobs
        .iter()
        .flat_map(|j| &j.crashes)
        .filter(|c| !c.known)
        .count();
    let failures = jobs.iter().filter(|j| j.failure.is_some()).count();
    let not_comparable = jobs.iter().filter(|j| j.not_comparable.is_some()).count();
    let mut seen: Vec<Divergence> = jobs
        .iter()
        .flat_map(|j| j.tally.known.iter().map(|(d, _)| *d))
        .collect();
    seen.sort();
    seen.dedup();
    if !seen.is_empty() {
        outln!("known divergences:");
        for d in seen {
            outln!("  {}: {}", d.name(), d.reason());
        }
    }
    outln!(
        "summary: {} comparisons ({not_comparable} not comparable), {compared} words, {different} unexplained differences, {crashes} LLVM crashes ({unknown_crashes} unknown), {failures} failed; {:.1} s",
        jobs.len(),
        wall.as_secs_f64()
    );
    if different > 0 || unknown_crashes > 0 || failures > 0 {
        1
    } else {
        0
    }
}

// ---------------------------------------------------------------- bench

/// Best time of `repeat` runs of `f`.
fn best_of(repeat: u32, mut f: impl FnMut()) -> Duration {
    (0..repeat)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or(Duration::ZERO)
}

fn rate_line(label: &str, n: u64, d: Duration) -> f64 {
    let s = d.as_secs_f64().max(1e-9);
    let rate = n as f64 / s;
    outln!(
        "  {label:<34} {n:>10} in {s:>8.4} s  {:>9.2} M/s",
        rate / 1e6
    );
    rate
}

fn run_bench(target: &str, count: u64, seed: u64, repeat: u32, with_llvm: bool) -> u8 {
    use std::hint::black_box;
    let (t, gen) = match resolve(target) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("hsaco-conform smem bench: {e}");
            return 2;
        }
    };
    let Ok(n) = usize::try_from(count) else {
        eprintln!("hsaco-conform smem bench: --count {count} is too large");
        return 2;
    };
    let words: Vec<u64> = Words::new(gen, t.name, seed).take(n).collect();
    let valid: Vec<smem::Instruction> = words
        .iter()
        .filter_map(|&w| {
            let d = smem::decode(gen, w);
            match d.verdict {
                Verdict::Invalid(_) => None,
                _ => d.instruction,
            }
        })
        .collect();
    outln!(
        "smem bench: {} ({gen:?}), {count} random words (seed {seed:#x}), {} valid; one core, best of {repeat}",
        t.name,
        valid.len()
    );
    if cfg!(debug_assertions) {
        outln!("  (debug build: run with cargo run --release for real figures)");
    }
    let d_decode = best_of(repeat, || {
        for &w in &words {
            black_box(smem::decode(gen, black_box(w)));
        }
    });
    let decode_rate = rate_line("oracle decode", count, d_decode);
    let mut buf = String::with_capacity(128);
    let d_text = best_of(repeat, || {
        for &w in &words {
            buf.clear();
            let _ = write!(buf, "{}", smem::decode(gen, black_box(w)));
            black_box(&buf);
        }
    });
    rate_line("oracle decode + LLVM text", count, d_text);
    let d_encode = best_of(repeat, || {
        for i in &valid {
            let _ = black_box(smem::encode(black_box(i)));
        }
    });
    rate_line(
        "oracle encode (valid instructions)",
        valid.len() as u64,
        d_encode,
    );
    if !with_llvm {
        return 0;
    }
    let lib = match LlvmLib::open(19) {
        Ok(l) => l,
        Err(e) => {
            outln!("  libLLVM-19: not measured: {e}");
            return 0;
        }
    };
    let mut dis = match lib.disassembler(t.name) {
        Ok(d) => d,
        Err(e) => {
            outln!("  libLLVM-19: not measured: {e}");
            return 0;
        }
    };
    let mut n_llvm = 0u64;
    let t_llvm = Instant::now();
    for &w in &words {
        if smem_diff::known_llvm_crash(gen, w) {
            continue;
        }
        black_box(dis.disassemble(&w.to_le_bytes()));
        n_llvm += 1;
    }
    let d_llvm = t_llvm.elapsed();
    let llvm_rate = rate_line("libLLVM-19 LLVMDisasmInstruction", n_llvm, d_llvm);
    outln!(
        "  oracle decode is {:.0}x libLLVM-19's disassembler ({} words LLVM crashes on left out)",
        decode_rate / llvm_rate.max(1e-9),
        count - n_llvm
    );
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_lines() {
        assert_eq!(
            parse_bytes("0x41 0x01 0x02 0xc0 0x10 0x00 0x00 0x00"),
            Ok(0x0000_0010_c002_0141)
        );
        assert_eq!(
            parse_bytes("0x41,0x01,0x02,0xc0,0x10,0x00,0x00,0x00"),
            Ok(0x0000_0010_c002_0141)
        );
        assert_eq!(
            parse_bytes("65 1 2 192 16 0 0 0"),
            Ok(0x0000_0010_c002_0141)
        );
        assert!(parse_bytes("0x41 0x01").is_err());
        assert!(parse_bytes("0x141 0 0 0 0 0 0 0").is_err());
        assert!(parse_bytes("s_nop 0").is_err());
    }

    #[test]
    fn seeds() {
        assert_eq!(parse_u64("0x5eed"), Ok(0x5eed));
        assert_eq!(parse_u64("1_000"), Ok(1000));
        assert!(parse_u64("x").is_err());
    }
}
