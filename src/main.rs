//! `hsaco-conform`: conformance checker for the AMDGPU HSA code object ABI.
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod baseline;
mod bench;
mod conform_cmd;
mod conform_inputs;
mod coverage;
mod explain;
mod gen_cmd;
mod input;
mod manifest;
mod peers_cmd;
mod realworld;
mod report;
mod sarif;
mod smem_cmd;

use clap::{Parser, Subcommand, ValueEnum};
use hsaco_conform::outln;
use std::path::PathBuf;
use std::process::ExitCode;

/// Conformance checker for AMDGPU HSA code objects (ELF kernels for AMD GPUs).
///
/// Checks code objects against a reference model of the ABI: the ELF
/// header and e_flags, notes, MessagePack metadata, 64-byte kernel
/// descriptors and the initial SGPR/VGPR state their enable bits select.
/// Every finding names a rule from `hsaco-conform rules`.
#[derive(Parser)]
#[command(name = "hsaco-conform", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Output format.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    /// For people (each command's `--format` says how it is laid out).
    Text,
    /// For scripts: one JSON document with stable field names.
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Check code objects against the ABI and report every broken rule.
    ///
    /// PATH may be a code object (.hsaco, .co, .o), a clang offload bundle,
    /// a host binary or library with a .hip_fatbin section (each embedded
    /// code object is checked and named by its bundle entry), or a
    /// directory, searched recursively. In directories, files that hold no
    /// code object are skipped and counted; a file whose name (.hsaco, .co,
    /// .o) or first bytes say it should be a code object but that cannot be
    /// read as one (empty, truncated) is named as not checked. Symlinks to
    /// files are followed, and each file (device and inode) is checked once
    /// however many paths reach it. FIFOs, sockets and devices are refused
    /// without being opened.
    ///
    /// Every error and warning is reported. Info findings are listed up to
    /// 100 per rule and code object, and the rest counted ("... and N more
    /// info findings of RULE not shown"); summary counts include every
    /// finding but those a --baseline suppresses, which are counted apart.
    ///
    /// Exit status: 1 if a finding that --fail-on names was found (by
    /// default an error; findings a --baseline suppresses never count);
    /// else 2 if some input could not be checked (missing or unreadable
    /// path, not a regular file, a named file that holds no code object, an
    /// empty or truncated code object, a malformed bundle; each is named in
    /// the report); else 0. A bad --baseline file is one line on stderr and
    /// exit 2, before anything is checked.
    #[command(
        after_help = "Examples:\n  hsaco-conform check kernel.hsaco\n  hsaco-conform check --format json build/ > report.json\n  hsaco-conform check --format json --detail kernel.hsaco\n  hsaco-conform check --fail-on warning --baseline hsaco-baseline.toml --format sarif build/ > check.sarif\n  hsaco-conform check /usr/lib/x86_64-linux-gnu/librocsparse.so.0.1"
    )]
    Check {
        /// Output format: text groups the findings by file and kernel;
        /// json is one document (see the README); sarif is SARIF 2.1.0, one
        /// result per finding (suppressed ones with their baseline reason),
        /// inputs not checked as notifications.
        #[arg(long, value_enum, default_value_t = report::ReportFormat::Text)]
        format: report::ReportFormat,
        /// Which findings make the exit status 1: error (the default),
        /// warning (errors and warnings), or never (findings never fail;
        /// an input that could not be checked still exits 2). Info
        /// findings never fail a run.
        #[arg(long, value_enum, value_name = "LEVEL", default_value_t = report::FailOn::Error)]
        fail_on: report::FailOn,
        /// Suppress the findings this TOML file accepts: [[suppress]]
        /// tables with rule (a rule id), optional file (the report's path,
        /// or a trailing part of it after a /), optional member (a bundle
        /// entry's name) and kernel (a kernel's name), both exact, and a
        /// non-empty reason. Suppressed findings
        /// neither show nor count toward the exit status; the summary counts
        /// them, and JSON and SARIF list them with their reason. Entries
        /// that matched nothing are reported as stale (exit status
        /// unchanged).
        #[arg(long, value_name = "FILE")]
        baseline: Option<PathBuf>,
        /// In text output, also list info-level findings (counted in the
        /// summary either way; JSON and SARIF always list them).
        #[arg(short, long)]
        verbose: bool,
        /// With --format json, give each kernel's descriptor fields with
        /// their meaning, initial SGPR/VGPR state and metadata (as `explain`
        /// shows them); without it each kernel is its name and descriptor
        /// offset.
        #[arg(long)]
        detail: bool,
        /// Files or directories to check.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Show the ABI view of a code object: target, kernels, descriptor
    /// fields by name, metadata, and the initial SGPR/VGPR layout.
    Explain {
        /// Only members (bundle entries) whose name contains this text.
        #[arg(long)]
        member: Option<String>,
        /// The code object, bundle or host binary.
        file: PathBuf,
    },
    /// List the rule catalogue: every check, its severity and its source.
    Rules {
        /// Output format: text lists the rules by section, each with its
        /// severity, id and what it requires.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Parse loaded code object URIs (file:// and memory://) and print
    /// their parts and canonical form.
    Uri {
        /// URIs to parse.
        #[arg(required = true)]
        uris: Vec<String>,
    },
    /// Measure `check` throughput on real files and compare it with
    /// `llvm-readobj --notes` over the same code objects.
    ///
    /// Prints MB/s and objects/s for the oracle and for llvm-readobj, and
    /// their ratio. Not part of the test suite: run it by hand, e.g. on
    /// /usr/lib/x86_64-linux-gnu/librocsparse.so.0.1 (Debian librocsparse0).
    Bench {
        /// llvm-readobj executable to compare against.
        #[arg(long, default_value = "llvm-readobj-19")]
        readobj: String,
        /// Skip the llvm-readobj comparison.
        #[arg(long)]
        no_readobj: bool,
        /// Times to repeat the oracle pass (the best run is reported).
        #[arg(long, default_value_t = 3)]
        repeat: u32,
        /// Each PATH is one unpacked package (a directory): print one row
        /// per package, as a Markdown table, with its objects, kernels,
        /// targets, code object versions, findings by severity and rule,
        /// inputs not checked, and the time of `check --format json`
        /// against llvm-readobj. `scripts/realworld` runs this over ROCm's
        /// Debian packages.
        #[arg(long)]
        packages: bool,
        /// Files to measure (same kinds as `check`), or with --packages one
        /// directory per package.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// SMEM (scalar memory) instructions of GFX8-GFX12: decode, encode,
    /// compare with LLVM's disassembler, measure.
    Smem {
        #[command(subcommand)]
        command: smem_cmd::SmemCommand,
    },
    /// Generate test cases: valid code objects, SGPR suite entries, SMEM
    /// streams and single-rule mutants, with a manifest of the verdict
    /// each must get.
    #[command(after_long_help = gen_cmd::GEN_HELP)]
    Gen(gen_cmd::GenArgs),
    /// List the peers on this machine: LLVM tools and libraries of every
    /// version, comgr and the HSA runtime, whether each works, and what
    /// each can compare with the oracle.
    #[command(after_long_help = peers_cmd::HELP)]
    Peers {
        /// Output format: text is a table of peers by LLVM version (name,
        /// version, whether usable, the comparisons it takes part in, path).
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// A peer of your own, NAME=PATH (repeatable): an LLVM install
        /// folder, one LLVM tool, a libLLVM*.so or a libamd_comgr.so,
        /// listed under NAME (see below).
        #[arg(long = "peer", value_name = "NAME=PATH")]
        peer: Vec<String>,
    },
    /// Worker process of `peers` (internal): probes the HSA runtime.
    #[command(hide = true, name = "peers-worker")]
    PeersWorker {
        /// What to probe (`hsa`).
        what: String,
        /// The library.
        path: PathBuf,
    },
    /// Compare the oracle with its peers (every LLVM and ROCm comgr on this
    /// machine): SMEM words against libLLVM and llvm-mc's disassemblers,
    /// encodings against llvm-mc's assembler, generated code objects'
    /// descriptors, metadata and rebuilds against llvm-objdump,
    /// llvm-readobj, comgr, llvm-mc and ld.lld, and which peers accept
    /// invalid objects; crashes and hangs survive as findings. With INPUT
    /// paths, compares your own code objects, bundles, host binaries and
    /// folders instead (`conform build/ lib.so x.hsaco`).
    ///
    /// With no options, runs a default batch of about two minutes on 2 cores
    /// with whatever peers are present and prints the peer x comparison
    /// table. Exit status: 0 no new finding (informational findings do not
    /// count), 1 new findings, 2 could not run.
    #[command(after_long_help = conform_cmd::CONFORM_HELP)]
    Conform(conform_cmd::ConformArgs),
    /// Compare given inputs with the oracle and the peers (`diff words
    /// FILE`: instruction words of any encoding).
    Diff {
        #[command(subcommand)]
        command: conform_cmd::DiffCommand,
    },
    /// Dispatch probe kernels on a GPU through the HSA runtime and compare
    /// what each wave saw with the oracle's prediction (hardware replay).
    ///
    /// `replay` alone plans probes for this machine's GPUs (or --targets),
    /// runs them and reports findings as `conform` does. The expensive part
    /// can run elsewhere: `replay --plan DIR --targets gfx90a` writes a
    /// self-contained bundle (probe objects, dispatch plans, predictions)
    /// on any machine; `replay --bundle DIR` runs it on a GPU machine, each
    /// case in a worker process so that a GPU fault or hang is recorded and
    /// the run goes on, and compares; `replay --compare DIR DUMPS` compares
    /// dumps gathered elsewhere. Exit status: 0 no new finding, 1 new
    /// findings, 2 could not run (no runtime or GPU, bad input).
    #[command(after_long_help = hsaco_conform::replay::HELP)]
    Replay(hsaco_conform::replay::ReplayArgs),
    /// Worker process of `conform`, `diff` and `replay` (internal): runs
    /// an in-process peer (libLLVM) or the HSA runtime so that its
    /// crashes cannot take the run down.
    #[command(hide = true)]
    Worker(conform_cmd::WorkerArgs),
    /// Measure what a generated tree (`gen --out DIR`) covers: rules
    /// exercised by valid cases and broken by mutants, descriptor fields
    /// and values, enable combinations, SMEM forms.
    ///
    /// Exit status: 0 every case got the verdict its manifest names, 1
    /// some did not (listed as disagreements), 2 could not run.
    #[command(
        after_help = "Examples:\n  hsaco-conform coverage cases/\n  hsaco-conform coverage --json cov.json cases/",
        after_long_help = coverage::HELP
    )]
    Coverage {
        /// Also write the report as JSON to this file.
        #[arg(long, value_name = "FILE.json")]
        json: Option<PathBuf>,
        /// The directory `gen --out` wrote.
        dir: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Check {
            format,
            fail_on,
            baseline,
            verbose,
            detail,
            paths,
        } => run_check(
            format,
            fail_on,
            baseline.as_deref(),
            verbose,
            detail,
            &paths,
        ),
        Command::Explain { member, file } => explain::run(&file, member.as_deref()),
        Command::Rules { format } => report::run_rules(format == Format::Json),
        Command::Uri { uris } => run_uri(&uris),
        Command::Bench {
            readobj,
            no_readobj,
            repeat,
            packages,
            paths,
        } => {
            let readobj = (!no_readobj).then_some(readobj.as_str());
            if packages {
                realworld::run(&paths, readobj, repeat.max(1))
            } else {
                bench::run(&paths, readobj, repeat.max(1))
            }
        }
        Command::Smem { command } => smem_cmd::run(command),
        Command::Gen(args) => gen_cmd::run(&args),
        Command::Coverage { json, dir } => coverage::run(&dir, json.as_deref()),
        Command::Peers { format, peer } => peers_cmd::run(format == Format::Json, &peer),
        Command::PeersWorker { what, path } => peers_cmd::worker(&what, &path),
        Command::Conform(args) => conform_cmd::run_conform(&args),
        Command::Diff { command } => conform_cmd::run_diff(&command),
        Command::Worker(args) => conform_cmd::run_worker(&args),
        Command::Replay(args) => hsaco_conform::replay::run(&args),
    };
    ExitCode::from(code)
}

/// `check`: refuses options that do not go together and a bad baseline
/// before checking anything.
fn run_check(
    format: report::ReportFormat,
    fail_on: report::FailOn,
    baseline: Option<&std::path::Path>,
    verbose: bool,
    detail: bool,
    paths: &[PathBuf],
) -> u8 {
    if detail && format != report::ReportFormat::Json {
        eprintln!("hsaco-conform check: --detail is for --format json (text and SARIF reports list findings only)");
        return 2;
    }
    let baseline = match baseline.map(baseline::Baseline::load).transpose() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("hsaco-conform check: {e}");
            return 2;
        }
    };
    let opts = report::Options {
        format,
        detail,
        verbose,
        fail_on,
    };
    report::run_check(paths, opts, baseline.as_ref())
}

fn run_uri(uris: &[String]) -> u8 {
    let mut code = 0;
    for u in uris {
        match hsaco_oracle::uri::parse(u) {
            Ok(parsed) => {
                outln!("{u}");
                outln!("  canonical: {parsed}");
                match parsed {
                    hsaco_oracle::uri::CodeObjectUri::File { path, offset, size } => {
                        outln!("  kind:      file");
                        outln!("  path:      {path}");
                        outln!("  offset:    {}", offset.unwrap_or(0));
                        match size {
                            Some(n) => outln!("  size:      {n} bytes"),
                            None => outln!("  size:      to the end of the file"),
                        }
                    }
                    hsaco_oracle::uri::CodeObjectUri::Memory { pid, address, size } => {
                        outln!("  kind:      memory");
                        outln!("  process:   {pid}");
                        outln!("  address:   {address:#x}");
                        outln!("  size:      {size} bytes");
                    }
                }
            }
            Err(e) => {
                eprintln!("hsaco-conform: invalid code object URI {u:?}: {e}");
                code = 2;
            }
        }
    }
    code
}
