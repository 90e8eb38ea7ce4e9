//! The `conform` and `diff words` commands (and the hidden `worker` that
//! runs in-process peers for them): the CLI over `hsaco_conform::conform`.

use hsaco_conform::outln;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use hsaco_conform::args::{parse_secs, parse_shard};
use hsaco_conform::conform::allowlist::Allowlist;
use hsaco_conform::conform::engine::{self, Plan, Settings};
use hsaco_conform::conform::findings::{self, Store};
use hsaco_conform::conform::registry::{self, Generated};
use hsaco_conform::conform::smem::{self as csmem, SmemDisasm};
use hsaco_conform::conform::words::{self, WordsCmp};
use hsaco_conform::conform::{self, isolate, report, Comparison, ComparisonId, Peer};
use hsaco_conform::files::write_durable;
use hsaco_conform::peers::discover::{self, Named};
use hsaco_conform::peers::llvm_disasm::LlvmLib;
use hsaco_conform::smem_diff::{self, DEFAULT_TARGETS};
use hsaco_oracle::smem::SmemGen;
use hsaco_oracle::targets::Target;
use serde_json::json;

use crate::conform_inputs::{self, Found};

/// Words per processor of the default batch.
pub const DEFAULT_COUNT: u64 = 131_072;

/// Long help of `conform`.
pub const CONFORM_HELP: &str = "\
What runs: every comparison (--kinds) on every processor (--targets) with
every peer found on this machine (--peers):

  smem-disasm  SMEM words, half from generated instruction streams, half
               random (most of them invalid), decoded by the oracle and by
               each disassembler: libLLVM-NN.so in-process (one worker
               process per LLVM version, batched) and llvm-mc-NN
               --disassemble. LLVM must reject what the oracle rejects and
               print what it prints, except for the known divergences.
  smem-encode  valid SMEM instructions from generated streams, printed in
               each LLVM version's syntax, assembled by llvm-mc-NN
               -show-encoding and compared with the oracle's encoding
               (--count / 4 per processor).
  rebuild      generated valid code objects (--objects per processor):
               their assembler text (LLVM 19's) rebuilt by every
               llvm-mc-NN that knows the processor and the code object
               version (V2-V3 before LLVM 19, V6 from LLVM 18; older
               ones get the version as an option) and ld.lld -shared,
               one peer per version, must give the same loaded image and
               the same oracle verdict. What older assemblers refuse in
               LLVM 19's text (directives and metadata kinds added later,
               LLVM 19's SMEM offset spelling) counts as known by version
               range (corpus/allowlist.toml, rebuild.*).
  descriptors  generated code objects (V3+), each kernel descriptor
               decoded by llvm-objdump-NN -D --disassemble-symbols=K.kd
               (every version that knows the processor) against the
               oracle's decode, field by field; and (peer
               llvm-objdump-NN+llvm-mc-NN) the printed .amdhsa_kernel
               blocks assembled again by llvm-mc-NN, whose K.kd bytes must
               equal the original descriptor (LLVM's known round-trip
               limits count as known).
  metadata     generated code objects (V3+), the metadata note printed by
               llvm-readobj-NN --notes against the oracle's metadata model,
               key by key (top level, kernels, arguments).
  comgr-metadata
               generated code objects (every version, V2 included) read by
               ROCm comgr (libamd_comgr.so.2, peer comgr-MAJOR.MINOR, in
               crash-isolated worker processes, batched): its metadata tree,
               ISA name and symbol list against the oracle. Differences
               comgr is known for (the ISA names comgr 2.4 cannot give,
               LLVM 15 MessagePack reader quirks, ...) count as known.
  mutants      single-rule mutants of generated objects (--objects per
               processor, each breaking one error rule of the oracle) given
               to llvm-readobj-NN --notes, llvm-objdump-NN (descriptors)
               and comgr, each for the rules about what it reads. A peer
               that reads a mutant without complaint is an INFORMATIONAL
               finding (\"peer X accepts objects breaking rule R\", one per
               peer, version and rule): listed in every report, never
               counted as new, never changing the exit status. A crash or
               hang on a mutant is an ordinary finding.

Your own code objects: `conform INPUT...` compares code objects you name
instead of generated ones. INPUTs are read as `check` reads them: code
objects (.hsaco, .co, .o), offload bundles (compressed or not), host
binaries and libraries with a .hip_fatbin section or embedded images, and
directories, searched recursively (each file once however many paths
reach it; FIFOs and devices refused unopened). Each object is compared on
the processor its e_flags name (--targets, if given, keeps only the
objects of those processors) by every comparison that reads an existing
object: descriptors (llvm-objdump-NN and llvm-objdump-NN+llvm-mc-NN of
every installed LLVM), metadata (llvm-readobj-NN) and comgr-metadata.
rebuild and mutants need the generator's source and model, smem-disasm
and smem-encode draw instruction words (`diff words` takes your own): they
are listed as not applicable. Findings name the file and the bundle entry
(PATH [MEMBER]); their folder holds the object (FILE@MEMBER.hsaco) and the
script that runs the peer alone on it; given objects are not reduced.
Files in directories that hold no code object are skipped and counted;
an input that cannot be read (a missing path, a FIFO, a named file that
holds no code object, a truncated code object, a broken bundle) is named
on its own line and makes the exit status 2 unless there are new findings
(as for `check`); objects whose e_flags name no processor the oracle
models are listed as not compared. With no code object to compare at all,
the run stops at once (one line, exit 2). --out resumes only a run on the
same inputs (paths, sizes, modification times). --seed, --count, --objects
and --bench are for generated runs and are refused with INPUTs.

Peers are those `hsaco-conform peers` lists (the same finder): every
LLVM tool and libLLVM with the AMDGPU target on PATH, in /usr/lib/llvm-NN
and the library folders (not those of a Rust toolchain or cargo target
folder, which `cargo run` adds to LD_LIBRARY_PATH), comgr, and your own,
named with --peer NAME=PATH: an LLVM install folder (reported as
NAME:llvm-mc, NAME:libllvm, NAME:llvm-objdump, ...), one tool or a library
(reported as NAME). A named peer's LLVM version is probed, so the known
divergences of that version apply to it; a named peer that is the same
file as one found replaces it; --peers NAME selects its peers.

Object findings are reduced on the generator's model (kernels dropped,
code, arguments and optional metadata fields reset, printf emptied) while
the signature holds; the folder holds the reduced object (its name records
the edits) and a script running the peer alone on it (for comgr, a
library, the script builds a small C reader of comgr's API with cc).

Every comparison is same, different, or not comparable (a peer that does
not know the processor); a peer that crashes or hangs (no progress within
--timeout) is recorded with its signal or exit status and the last lines
of its standard error, and the run goes on with the next input.

Known, understood differences are listed with their reasons in the
allowlist (built in: corpus/allowlist.toml); they are counted, not
reported. Everything else is a finding: deduplicated by signature (kind,
peer component, normalized message or crash site; one bug in LLVM 14 and
19 is one finding), reduced (fewer bytes, bytes and bits reset to zero
while the signature holds), and with --out written as a folder with the
reproducer, the command that shows it with the peer alone, and a
manifest.jsonl line. Reproducers name every program by its absolute path
(for a libLLVM: this program's `diff words`, with the same --peer), so
they run outside cargo too.

Progress goes to standard error every 5 s. The table (peer x comparison:
compared, same, known, different, not comparable, crashed, timed out,
comparisons per second) goes to standard output.

Output folder (--out DIR): a new folder, an empty one, or one an earlier
run of hsaco-conform wrote (it holds DIR/state.json); any other folder is
refused before any work, and nothing is written into it. The folder is
locked while a run uses it (flock on DIR/.lock, released when the run ends
however it ends): a second run on the same folder fails at once, naming
the PID that holds it.

Resuming: finished units are saved in DIR/state.json; the same command
with the same options run again (after Ctrl-C or a kill) resumes. Another
command or other options start afresh in the folder: what the earlier run
wrote (manifest.jsonl, the finding folders state.json names) is replaced.
Files hsaco-conform did not write are never removed or replaced. Files are
written to a temporary name and renamed, so no half-written file is ever
left under its final name.

Reports (--json, --junit, --html) are checked before any work (their
folder must exist and take a new file; a report path must not be a
folder) and written at the end, each to a temporary name and renamed:
an existing report is replaced only by a finished run's.

Benchmark: --bench measures, on one processor (the first of --targets,
default gfx900) and --count words (default 200000), comparisons per second
of every peer through this pipeline, and libLLVM-19's own single-thread
disassembly rate on the same words in this process, and prints the ratio.
Build with --release.

Exit status: 0 no new finding (informational ones do not count), 1 new
findings, 2 could not run (bad option, unknown processor, no peer found,
a report or output folder that cannot be written, an output folder that
is not this tool's or is in use; with INPUTs, no code object to compare,
or, without new findings, an input that could not be read).

Examples:
  hsaco-conform conform
  hsaco-conform conform build/kernels/ app.hipfb /opt/rocm/lib/librocfft.so --json objects.json
  hsaco-conform conform --targets gfx90a --kinds descriptors --out found /opt/rocm/lib/rocblas/library
  hsaco-conform conform --targets gfx900,gfx1100 --count 100000 --peers libllvm-19,llvm-mc-19
  hsaco-conform conform --shard 0/4 --out findings --json conform.json --junit conform.xml
  hsaco-conform conform --kinds smem-encode --html report.html
  hsaco-conform conform --peer mine=$HOME/llvm-project/build --peers mine
  cargo run --release -- conform --bench";

/// Long help of `diff words`.
pub const WORDS_HELP: &str = "\
FILE holds instruction words in llvm-mc's byte syntax, one instruction per
line, any encoding (not only SMEM):

  0x41 0x01 0x02 0xc0 0x10 0x00 0x00 0x00     # s_load_dword on gfx900
  [0xf9,0x06,0x02,0x02,0x02,0x07,0x06,0x06]   # commas and [ ] allowed

Blank lines and comments (#, ;, //) are skipped. An 8-byte SMEM word (the
processor's SMEM encoding in bits 31:26) is decided by the oracle, as in
`conform`'s smem-disasm. For every other line the oracle has no decoder:
each peer's disassembly is compared with the reference peer's (the newest
libLLVM, else the newest llvm-mc): the same instructions accepted and
rejected, the same sizes, the same text (comments aside). Crashes and
hangs of any peer on any line are findings; the run goes on after them,
and a crash is reduced to the smallest word sequence that still crashes
the peer and deduplicated across LLVM versions and peers.

Reports, exit status and --out folder as for `conform` (see
`hsaco-conform conform --help`).

Examples:
  hsaco-conform diff words --target gfx900 words.txt
  hsaco-conform diff words --target gfx1030 --peers llvm-mc-19,libllvm-14 --out found words.txt";

fn parse_u64(s: &str) -> Result<u64, String> {
    let t = s.replace('_', "");
    let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse(),
    };
    r.map_err(|e| format!("{s:?} is not a number: {e}"))
}

/// Options shared by `conform` and `diff words`.
#[derive(Args, Debug, Clone)]
pub struct Common {
    /// Peers to run, comma-separated: ids (libllvm-19, llvm-mc-14,
    /// llvm-readobj-19, comgr-2.4, mine:llvm-mc), families (libllvm,
    /// llvm-mc, rebuild, llvm-objdump, llvm-readobj, comgr) or the NAME of
    /// a --peer (its peers NAME and NAME:TOOL); default: every peer found
    /// and named (`hsaco-conform peers` lists them).
    #[arg(long, value_delimiter = ',')]
    pub peers: Vec<String>,
    /// A peer of your own, NAME=PATH (repeatable): an LLVM install folder
    /// (bin/llvm-mc, bin/llvm-objdump, bin/llvm-readobj, bin/ld.lld,
    /// lib/libLLVM*.so), one of those tools, a libLLVM*.so or a
    /// libamd_comgr.so. Reported as NAME (one file) or NAME:TOOL (a
    /// folder); its version is probed, so known divergences of that LLVM
    /// version apply; reproducers name its path.
    #[arg(long = "peer", value_name = "NAME=PATH")]
    pub peer: Vec<String>,
    /// Write findings, reproducers and manifest.jsonl to this folder (and
    /// resume from it): a new or empty folder, or an earlier run's; locked
    /// while the run lasts.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write the JSON report to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report to this file (a test suite per comparison,
    /// a test case per peer).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write one self-contained HTML page (matrix and findings).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Use this allowlist instead of the built-in corpus/allowlist.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "no_allowlist")]
    pub allowlist: Option<PathBuf>,
    /// Use no allowlist: every difference and crash is new.
    #[arg(long)]
    pub no_allowlist: bool,
    /// Seconds a peer may spend on one input before it counts as hung.
    #[arg(long, default_value = "30", value_parser = parse_secs, value_name = "SECONDS")]
    pub timeout: Duration,
    /// Threads (default: the number of cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Do not reduce findings.
    #[arg(long)]
    pub no_reduce: bool,
    /// No progress on standard error.
    #[arg(long)]
    pub quiet: bool,
}

/// `hsaco-conform conform`.
#[derive(Args, Debug)]
pub struct ConformArgs {
    /// Code objects to compare instead of generated ones: files (code
    /// objects, offload bundles, compressed bundles, host binaries with a
    /// .hip_fatbin section) or directories, searched recursively, as
    /// `check` reads them (see below).
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Seed of the generated inputs (decimal or 0x-hex; default 1). Not
    /// with INPUTs.
    #[arg(long, value_parser = parse_u64)]
    pub seed: Option<u64>,
    /// SMEM words per processor (smem-encode takes a quarter as many
    /// instructions). Default 131072 (200000 with --bench). Not with
    /// INPUTs.
    #[arg(long)]
    pub count: Option<u64>,
    /// Comparisons, comma-separated: smem-disasm, smem-encode, rebuild,
    /// descriptors, metadata, comgr-metadata, mutants (default: every one
    /// a selected peer takes part in).
    #[arg(long, value_delimiter = ',')]
    pub kinds: Vec<String>,
    /// Generated code objects per processor for each object comparison
    /// (rebuild, descriptors, metadata, comgr-metadata, mutants; default
    /// 4). Not with INPUTs.
    #[arg(long)]
    pub objects: Option<u64>,
    /// Processors, comma-separated (default: gfx803, gfx900, gfx90a,
    /// gfx1010, gfx1030, gfx1100, gfx1200). With INPUTs: compare only the
    /// objects of these processors (default: every object, each on the
    /// processor its e_flags name).
    #[arg(long, value_delimiter = ',')]
    pub targets: Vec<String>,
    /// Run shard I of N (0-based): units whose number is I modulo N.
    #[arg(long, value_parser = parse_shard, value_name = "I/N")]
    pub shard: Option<(u64, u64)>,
    /// Measure comparisons per second per peer and libLLVM-19's own rate.
    /// Not with INPUTs.
    #[arg(long)]
    pub bench: bool,
    #[command(flatten)]
    pub common: Common,
}

/// `hsaco-conform diff ...`.
#[derive(Subcommand, Debug)]
pub enum DiffCommand {
    /// Feed instruction words (any encoding) to the oracle and the peers;
    /// report disagreements, crashes and hangs.
    #[command(after_long_help = WORDS_HELP)]
    Words(WordsArgs),
}

/// `hsaco-conform diff words`.
#[derive(Args, Debug)]
pub struct WordsArgs {
    /// Processor (gfx803, gfx900, gfx1030, gfx1100...).
    #[arg(long)]
    pub target: String,
    /// The words, one instruction per line in llvm-mc byte syntax.
    pub file: PathBuf,
    #[command(flatten)]
    pub common: Common,
}

/// `hsaco-conform worker` (internal).
#[derive(Args, Debug)]
pub struct WorkerArgs {
    /// Task name.
    #[arg(long)]
    pub task: String,
    /// Task argument.
    #[arg(long, default_value = "")]
    pub arg: String,
    /// Breadcrumb file.
    #[arg(long)]
    pub breadcrumb: PathBuf,
}

/// Runs a worker until its standard input closes.
pub fn run_worker(a: &WorkerArgs) -> u8 {
    let mut task = match registry::worker_task(&a.task, &a.arg) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("hsaco-conform worker: {e}");
            return 2;
        }
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    match isolate::serve(task.as_mut(), &a.breadcrumb, stdin.lock(), stdout.lock()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("hsaco-conform worker: {e}");
            2
        }
    }
}

/// The peers `spec` names among those found and `named` (`--peer`);
/// with `objects`, the object-level peers (rebuild, llvm-objdump,
/// llvm-readobj, comgr) too.
fn select_peers(
    spec: &[String],
    named: &[Named],
    objects: bool,
) -> Result<Vec<Box<dyn Peer>>, String> {
    let d = discover::discover_with(&discover::Options {
        hsa: None,
        load: false,
        named,
    })?;
    let all = registry::peers(&d, objects);
    let spec: Vec<&str> = spec
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect();
    if spec.is_empty() || spec == ["all"] {
        if all.is_empty() {
            return Err(
                "no peer found: install LLVM (libLLVM-NN.so or llvm-mc-NN; Debian: llvm-19, llvm-14), or name one with --peer NAME=PATH"
                    .to_owned(),
            );
        }
        return Ok(all);
    }
    // `--peers mine` selects the peers of `--peer mine=...`: `mine` and
    // `mine:TOOL` (and composites made from them).
    let matches = |p: &dyn Peer, s: &str| {
        p.id() == s
            || p.info().family == s
            || p.id()
                .split_once(':')
                .is_some_and(|(name, _)| name == s && named.iter().any(|n| n.name == s))
    };
    let names: Vec<String> = all.iter().map(|p| p.id().to_owned()).collect();
    for s in &spec {
        if !all.iter().any(|p| matches(p.as_ref(), s)) {
            return Err(format!(
                "--peers: no peer {s:?} on this machine (found: {})",
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ));
        }
    }
    Ok(all
        .into_iter()
        .filter(|p| spec.iter().any(|s| matches(p.as_ref(), s)))
        .collect())
}

fn load_allowlist(c: &Common) -> Result<Allowlist, String> {
    if c.no_allowlist {
        return Ok(Allowlist::empty());
    }
    match &c.allowlist {
        Some(p) => Allowlist::load(p),
        None => {
            let a = Allowlist::builtin();
            if a.entries.is_empty() {
                return Err(format!("the built-in allowlist is broken: {}", a.source));
            }
            Ok(a)
        }
    }
}

fn resolve_target(name: &str) -> Result<&'static Target, String> {
    hsaco_conform::smem_diff::resolve_processor(name)
}

fn settings(c: &Common, label: &str, key: serde_json::Value) -> Result<Settings, String> {
    let program =
        std::env::current_exe().map_err(|e| format!("cannot find own executable: {e}"))?;
    let jobs = c.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
    });
    Ok(Settings {
        jobs: jobs.max(1),
        shard: (0, 1),
        timeout: c.timeout,
        out: c.out.clone(),
        reduce: !c.no_reduce,
        reduce_budget: 300,
        progress: !c.quiet,
        resume_key: key.to_string(),
        program,
        label: label.to_owned(),
    })
}

/// Writes the reports a run asked for; an error names the file.
fn write_reports(
    command: &str,
    c: &Common,
    options: serde_json::Value,
    plan: &Plan,
    r: &engine::RunResult,
    inputs: Option<(&Found, u8)>,
) -> Result<(), String> {
    let w = |p: &Path, s: &[u8]| {
        write_durable(p, s).map_err(|e| format!("{}: cannot write: {e}", p.display()))
    };
    if let Some(p) = &c.json {
        let mut doc = report::json(command, options, &plan.peers, &plan.allowlist, r);
        if let Some((f, code)) = inputs {
            doc["inputs"] = f.json();
            // The status counts the inputs that could not be read too.
            doc["summary"]["exit"] = json!(code);
        }
        let mut s = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        s.push('\n');
        w(p, s.as_bytes())?;
    }
    if let Some(p) = &c.junit {
        w(p, report::junit(command, r).as_bytes())?;
    }
    if let Some(p) = &c.html {
        w(p, report::html(command, r, &plan.allowlist).as_bytes())?;
    }
    Ok(())
}

/// Checks every output path before any work starts (a report's folder
/// must take a new file, and a report is not a folder; nothing is created
/// or truncated), then claims and locks `--out`. The error is one line
/// naming the path and why.
fn claim_outputs(c: &Common, bench: bool) -> Result<Option<Store>, String> {
    for (flag, p) in [
        ("--json", &c.json),
        ("--junit", &c.junit),
        ("--html", &c.html),
    ] {
        let Some(p) = p else { continue };
        // A report inside a new --out folder: that folder is checked below
        // and made before the report is written.
        let in_new_out = c
            .out
            .as_deref()
            .is_some_and(|o| engine::parent_dir(p) == o && !o.exists());
        if !in_new_out || bench {
            findings::check_writable(p).map_err(|e| format!("{flag} {e}"))?;
        }
    }
    if bench {
        return Ok(None);
    }
    c.out.as_deref().map(Store::claim).transpose()
}

fn finish(
    command: &str,
    c: &Common,
    options: serde_json::Value,
    plan: &Plan,
    s: &Settings,
    store: Option<Store>,
    inputs: Option<&Found>,
) -> u8 {
    let r = match engine::run_in(plan, s, store) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("hsaco-conform {command}: {e}");
            return 2;
        }
    };
    let mut out = std::io::stdout().lock();
    let written = inputs
        .map_or(Ok(()), |f| out.write_all(f.text().as_bytes()))
        .and_then(|()| out.write_all(report::text(&r, &plan.allowlist).as_bytes()))
        .and_then(|()| match &c.out {
            Some(d) => writeln!(out, "findings folder: {}", d.display()),
            None => Ok(()),
        })
        .and_then(|()| out.flush());
    drop(out);
    let code = match report::exit_code(&r) {
        // As `check`: new findings first, then inputs that could not be read.
        0 if inputs.is_some_and(Found::incomplete) => 2,
        code => code,
    };
    // The report files are written even when standard output is gone: they
    // are what a run in a pipeline is usually for.
    if let Err(e) = write_reports(command, c, options, plan, &r, inputs.map(|f| (f, code))) {
        eprintln!("hsaco-conform {command}: {e}");
        return 2;
    }
    match written {
        Ok(()) => code,
        Err(e) => hsaco_conform::output::write_failed(command, &e),
    }
}

/// Runs `conform`; returns the exit status.
pub fn run_conform(a: &ConformArgs) -> u8 {
    let planned = Named::parse_all(&a.common.peer).and_then(|named| {
        // The inputs are scanned before the output folder is claimed, so
        // that inputs without a code object leave nothing behind.
        let found = if a.inputs.is_empty() {
            None
        } else {
            Some(scan_inputs(a)?)
        };
        let store = claim_outputs(&a.common, a.bench)?;
        let plan = match &found {
            Some(f) => inputs_plan(a, &named, f)?,
            None => conform_plan(a, &named)?,
        };
        Ok((plan, store, found))
    });
    match planned {
        Ok(((plan, options, settings), store, found)) => {
            if a.bench {
                return run_bench(a, &plan, &settings);
            }
            finish(
                "conform",
                &a.common,
                options,
                &plan,
                &settings,
                store,
                found.as_ref(),
            )
        }
        Err(e) => {
            eprintln!("hsaco-conform conform: {e}");
            2
        }
    }
}

/// Seed of generated inputs when `--seed` is not given.
const DEFAULT_SEED: u64 = 1;
/// Generated objects per processor when `--objects` is not given.
const DEFAULT_OBJECTS: u64 = 4;

/// The code objects of `conform INPUT...` (options that only generated
/// runs take are refused first); `Err` when none can be compared.
fn scan_inputs(a: &ConformArgs) -> Result<Found, String> {
    for (flag, given) in [
        ("--seed", a.seed.is_some()),
        ("--count", a.count.is_some()),
        ("--objects", a.objects.is_some()),
        ("--bench", a.bench),
    ] {
        if given {
            return Err(format!(
                "{flag} is for generated inputs, not for INPUT paths"
            ));
        }
    }
    let keep = if a.targets.iter().all(|t| t.trim().is_empty()) {
        None
    } else {
        let mut v: Vec<&'static Target> = Vec::new();
        for n in a.targets.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
            let t = hsaco_oracle::targets::by_name(n)
                .ok_or_else(|| format!("--targets: unknown processor {n:?}"))?;
            v.push(t);
        }
        Some(v)
    };
    let found = conform_inputs::scan(&a.inputs, keep.as_deref());
    if found.objects.is_empty() {
        let mut why = found.text();
        why.pop();
        return Err(format!(
            "no code object to compare in the inputs ({})",
            why.replace('\n', "; ")
        ));
    }
    if !a.common.quiet {
        eprintln!(
            "conform: {} code objects in {} files",
            found.objects.len(),
            found.files
        );
    }
    Ok(found)
}

/// The comparisons `--kinds` names (in the order given, each once), or
/// every one when none is named.
fn parse_kinds(a: &ConformArgs) -> Result<Vec<ComparisonId>, String> {
    let mut kinds: Vec<ComparisonId> = Vec::new();
    for k in a.kinds.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let Some(known) = ComparisonId::KINDS.into_iter().find(|x| x.as_str() == k) else {
            let names: Vec<&str> = ComparisonId::KINDS.iter().map(|c| c.as_str()).collect();
            return Err(format!(
                "--kinds: unknown comparison {k:?} (known: {})",
                names.join(", ")
            ));
        };
        if !kinds.contains(&known) {
            kinds.push(known);
        }
    }
    Ok(kinds)
}

/// The plan of `conform INPUT...`: the object comparisons that read an
/// existing object, on the processors of the objects found.
fn inputs_plan(
    a: &ConformArgs,
    named: &[Named],
    found: &Found,
) -> Result<(Plan, serde_json::Value, Settings), String> {
    let mut kinds = parse_kinds(a)?;
    let allowlist = load_allowlist(&a.common)?;
    let peers = select_peers(&a.common.peers, named, true)?;
    if kinds.is_empty() {
        // By default, every comparison a selected peer takes part in (the
        // ones that do not apply are listed as such).
        kinds = ComparisonId::KINDS.to_vec();
        kinds.retain(|k| peers.iter().any(|p| p.info().takes_part(*k)));
    }
    if kinds.iter().all(|k| k.not_for_given().is_some()) {
        let names: Vec<&str> = kinds.iter().map(|c| c.as_str()).collect();
        return Err(format!(
            "--kinds: none of {} applies to given objects (descriptors, metadata and comgr-metadata do)",
            names.join(", ")
        ));
    }
    let set = conform_inputs::given_set(found);
    let comparisons: Vec<Box<dyn Comparison>> =
        kinds.iter().map(|k| registry::given(*k, &set)).collect();
    let own = json!({
        "inputs": a.inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    });
    let plan = Plan {
        comparisons,
        targets: set.targets(),
        peers,
        allowlist,
    };
    conform_settings(a, named, &kinds, plan, own, Some(&found.digest))
}

/// What `conform` with and without INPUTs share: the options the reports
/// show (`own`, the mode's options, plus the common ones), the resume key
/// (the options, the tool version, the allowlist and, for INPUTs, their
/// digest) and the settings.
fn conform_settings(
    a: &ConformArgs,
    named: &[Named],
    kinds: &[ComparisonId],
    plan: Plan,
    own: serde_json::Value,
    inputs: Option<&str>,
) -> Result<(Plan, serde_json::Value, Settings), String> {
    let shard = a.shard.unwrap_or((0, 1));
    let mut options = own;
    if let Some(m) = options.as_object_mut() {
        let common = json!({
            "kinds": kinds,
            "targets": plan.targets.iter().map(|t| t.name).collect::<Vec<_>>(),
            "peers": plan.peers.iter().map(|p| p.id().to_owned()).collect::<Vec<_>>(),
            "named": named.iter().map(Named::spec).collect::<Vec<_>>(),
            "shard": format!("{}/{}", shard.0, shard.1),
            "timeout": a.common.timeout.as_secs_f64(),
            "reduce": !a.common.no_reduce,
        });
        if let Some(c) = common.as_object() {
            m.extend(c.clone());
        }
    }
    let mut key = json!({
        "command": "conform",
        "tool_version": env!("CARGO_PKG_VERSION"),
        "options": options,
        "allowlist": plan.allowlist.digest(),
    });
    if let (Some(d), Some(k)) = (inputs, key.as_object_mut()) {
        k.insert("inputs".to_owned(), json!(d));
    }
    let mut settings = settings(&a.common, "conform", key)?;
    settings.shard = shard;
    Ok((plan, options, settings))
}

fn conform_plan(
    a: &ConformArgs,
    named: &[Named],
) -> Result<(Plan, serde_json::Value, Settings), String> {
    let count = a
        .count
        .unwrap_or(if a.bench { 200_000 } else { DEFAULT_COUNT });
    let seed = a.seed.unwrap_or(DEFAULT_SEED);
    let n_objects = a.objects.unwrap_or(DEFAULT_OBJECTS);
    let mut kinds = parse_kinds(a)?;
    if kinds.is_empty() || a.bench {
        kinds = if a.bench {
            vec![ComparisonId::SmemDisasm]
        } else {
            ComparisonId::KINDS.to_vec()
        };
    }
    let names: Vec<String> = if a.targets.is_empty() {
        if a.bench {
            vec!["gfx900".to_owned()]
        } else {
            DEFAULT_TARGETS.iter().map(|s| (*s).to_owned()).collect()
        }
    } else {
        a.targets.clone()
    };
    let mut tlist: Vec<&'static Target> = Vec::new();
    for n in names.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let t = resolve_target(n)?;
        csmem::family(t)?;
        if !tlist.iter().any(|x| x.name == t.name) {
            tlist.push(t);
        }
    }
    if a.bench {
        tlist.truncate(1);
    }
    if tlist.is_empty() {
        return Err("--targets names no processor".to_owned());
    }
    let allowlist = load_allowlist(&a.common)?;
    let peers = select_peers(&a.common.peers, named, !a.bench)?;
    if a.kinds.iter().all(|k| k.trim().is_empty()) && !a.bench {
        // By default, only the comparisons a selected peer takes part in.
        kinds.retain(|k| peers.iter().any(|p| p.info().takes_part(*k)));
    }
    let generated = Generated {
        seed,
        count,
        objects: n_objects,
    };
    let comparisons: Vec<Box<dyn Comparison>> = kinds
        .iter()
        .map(|k| registry::generated(*k, &generated))
        .collect();
    let own = json!({
        "seed": seed,
        "count": count,
        "objects": n_objects,
    });
    let plan = Plan {
        comparisons,
        targets: tlist,
        peers,
        allowlist,
    };
    conform_settings(a, named, &kinds, plan, own, None)
}

/// Runs `diff ...`; returns the exit status.
pub fn run_diff(cmd: &DiffCommand) -> u8 {
    match cmd {
        DiffCommand::Words(a) => match Named::parse_all(&a.common.peer).and_then(|named| {
            let store = claim_outputs(&a.common, false)?;
            words_plan(a, &named).map(|p| (p, store))
        }) {
            Ok(((plan, options, settings), store)) => finish(
                "diff words",
                &a.common,
                options,
                &plan,
                &settings,
                store,
                None,
            ),
            Err(e) => {
                eprintln!("hsaco-conform diff words: {e}");
                2
            }
        },
    }
}

fn words_plan(
    a: &WordsArgs,
    named: &[Named],
) -> Result<(Plan, serde_json::Value, Settings), String> {
    let t = resolve_target(&a.target)?;
    let bytes =
        std::fs::read(&a.file).map_err(|e| format!("{}: cannot read: {e}", a.file.display()))?;
    let text =
        String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", a.file.display()))?;
    let lines =
        words::parse_lines(&text).map_err(|(n, why)| format!("{}:{n}: {why}", a.file.display()))?;
    let lines: Vec<(usize, Vec<u8>)> = lines.into_iter().filter(|(_, b)| !b.is_empty()).collect();
    let (smem, other): (Vec<_>, Vec<_>) = lines
        .into_iter()
        .partition(|(_, b)| SmemDisasm::is_smem_line(t, b));
    let allowlist = load_allowlist(&a.common)?;
    let peers = select_peers(&a.common.peers, named, false)?;
    let mut comparisons: Vec<Box<dyn Comparison>> = Vec::new();
    let (n_smem, n_other) = (smem.len(), other.len());
    if !smem.is_empty() {
        comparisons.push(Box::new(SmemDisasm::given(smem)));
    }
    if !other.is_empty() {
        comparisons.push(Box::new(WordsCmp::new(other)));
    }
    use sha2::Digest;
    let digest = conform::hex_bytes::encode(
        sha2::Sha256::digest(text.as_bytes())
            .get(..8)
            .unwrap_or(&[]),
    );
    let options = json!({
        "target": t.name,
        "file": a.file.display().to_string(),
        "smem_lines": n_smem,
        "other_lines": n_other,
        "peers": peers.iter().map(|p| p.id().to_owned()).collect::<Vec<_>>(),
        "named": named.iter().map(Named::spec).collect::<Vec<_>>(),
        "timeout": a.common.timeout.as_secs_f64(),
        "reduce": !a.common.no_reduce,
    });
    let key = json!({
        "command": "diff words",
        "tool_version": env!("CARGO_PKG_VERSION"),
        "options": options,
        "input": digest,
        "allowlist": allowlist.digest(),
    });
    let settings = settings(&a.common, "diff words", key)?;
    let plan = Plan {
        comparisons,
        targets: vec![t],
        peers,
        allowlist,
    };
    Ok((plan, options, settings))
}

// ------------------------------------------------------------------ bench

/// libLLVM-19's own single-thread rate on `words` (first instruction of
/// each, words it is known to crash on left out): (words, seconds).
fn direct_rate(cpu: &str, gen: SmemGen, words: &[u64]) -> Result<(u64, f64), String> {
    let lib = LlvmLib::open(19).map_err(|e| e.to_string())?;
    let mut dis = lib.disassembler(cpu).map_err(|e| e.to_string())?;
    let mut n = 0u64;
    let t = Instant::now();
    for &w in words {
        if smem_diff::known_llvm_crash(gen, w) {
            continue;
        }
        std::hint::black_box(dis.disassemble(&w.to_le_bytes()));
        n += 1;
    }
    Ok((n, t.elapsed().as_secs_f64()))
}

fn run_bench(a: &ConformArgs, plan: &Plan, s: &Settings) -> u8 {
    let Some(&target) = plan.targets.first() else {
        return 2;
    };
    let Some(comparison) = plan.comparisons.first() else {
        return 2;
    };
    let Ok(gen) = csmem::family(target) else {
        return 2;
    };
    let scratch = match engine::Scratch::new() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("hsaco-conform conform --bench: {e}");
            return 2;
        }
    };
    let ctx = conform::Ctx::new(s.program.clone(), s.timeout, scratch.0.clone());
    let chunks = comparison.chunks(target);
    let units: Vec<engine::Unit> = (0..chunks)
        .map(|chunk| engine::Unit {
            id: chunk,
            comparison: 0,
            target,
            chunk,
        })
        .collect();
    // The inputs are made beforehand: the benchmark times comparisons.
    let inputs: Vec<Vec<conform::Input>> =
        (0..chunks).map(|k| comparison.inputs(target, k)).collect();
    let words: Vec<u64> = inputs
        .iter()
        .flatten()
        .filter_map(conform::Input::first_word)
        .collect();
    outln!(
        "conform bench: smem-disasm on {} ({} words, seed {:#x}); one thread{}",
        target.name,
        words.len(),
        a.seed.unwrap_or(DEFAULT_SEED),
        if cfg!(debug_assertions) {
            " (debug build: use --release for real figures)"
        } else {
            ""
        }
    );
    let mut rows = Vec::new();
    let mut llvm19_rate = None;
    let mut direct: Option<f64> = None;
    let mut direct_error: Option<String> = None;
    for peer in &plan.peers {
        if !peer.info().takes_part(comparison.id()) {
            continue;
        }
        let only = |p: &dyn Peer| p.id() == peer.id();
        if let Err(why) = peer.supports(&ctx, comparison.id(), target.name) {
            outln!("  {:<14} not comparable: {why}", peer.id());
            continue;
        }
        // Warm-up: start the worker, load the library.
        if let (Some(u), Some(i)) = (units.first(), inputs.first()) {
            let _ = engine::run_inputs(plan, &ctx, u, i, &only);
        }
        // Best of several passes (the machine may be busy); libLLVM-19's
        // own rate is measured between them, so both see the same load.
        let mut best = f64::MAX;
        let mut compared = 0;
        let rounds = if peer.info().family == "libllvm" {
            5
        } else {
            1
        };
        for _ in 0..rounds {
            let t = Instant::now();
            let mut c = 0;
            for (u, i) in units.iter().zip(&inputs) {
                let r = engine::run_inputs(plan, &ctx, u, i, &only);
                c += r.cells.values().map(|k| k.compared).sum::<u64>();
            }
            best = best.min(t.elapsed().as_secs_f64());
            compared = c;
            if peer.id() == "libllvm-19" {
                match direct_rate(target.name, gen, &words) {
                    Ok((n, secs)) => {
                        let r = n as f64 / secs.max(1e-9);
                        direct = Some(direct.map_or(r, |d: f64| d.max(r)));
                    }
                    Err(e) => direct_error = Some(e),
                }
            }
        }
        let rate = compared as f64 / best.max(1e-9);
        outln!(
            "  {:<14} {compared:>9} comparisons in {best:>7.3} s  {:>12.0} /s",
            peer.id(),
            rate
        );
        if peer.id() == "libllvm-19" {
            llvm19_rate = Some(rate);
        }
        rows.push(
            json!({"peer": peer.id(), "compared": compared, "seconds": best, "per_second": rate}),
        );
    }
    ctx.shutdown();
    if let Some(e) = direct_error {
        outln!("  libLLVM-19 in-process: not measured: {e}");
    }
    let mut doc = json!({"target": target.name, "words": words.len(), "peers": rows});
    if let Some(d) = direct {
        outln!("  libLLVM-19 alone, in this process: {d:>12.0} words/s (LLVMDisasmInstruction)");
        if let Some(p) = llvm19_rate {
            let ratio = p / d;
            outln!(
                "  ratio: smem-disasm against libllvm-19 runs at {ratio:.2} of libLLVM-19's own rate (target >= 0.40)"
            );
            doc["ratio"] = json!(ratio);
        }
        doc["libllvm19_direct_per_second"] = json!(d);
    }
    if let Some(p) = &a.common.json {
        let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
        s.push('\n');
        if let Err(e) = write_durable(p, s.as_bytes()) {
            eprintln!("hsaco-conform conform --bench: {}: {e}", p.display());
            return 2;
        }
    }
    0
}
