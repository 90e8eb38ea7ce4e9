//! Real code objects from real compilers, built once and cached.
//!
//! The sources live in `tests/fixtures/`: OpenCL C kernels in `kernels/`
//! (built by clang-19 for code object V4, V5 and V6) and hand-written
//! LLVM 14 IR in `llvm14/` (built by llc-14 for V3 and, in [`v2`], V2,
//! which LLVM 19 can no longer emit) and in `v2/` (V2 only: the corners of
//! `amd_kernel_code_t` and the V2 initial register state). Every compiled object is linked with
//! `ld.lld-19 -shared` into a loadable `.hsaco` (ET_DYN); for one variant
//! per target the relocatable `.o` is kept as a fixture too.
//!
//! Builds are cached under `<target dir>/fixtures/<key>/` (or
//! `$HSACO_FIXTURES_DIR/<key>/`), where the key hashes the source text, the
//! full command lines and the tools' `--version` output, so a repeated test
//! run compiles nothing and a tool upgrade rebuilds everything. Each entry
//! is built in a private temporary directory and renamed into place, so
//! test binaries building at the same time never see a half-written entry.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use super::require_tool;

/// One code object built from a fixture source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixture {
    /// Unique readable name: target id, code object version, source file,
    /// extra options in brackets, and ` .o` for a relocatable object, e.g.
    /// `gfx90a:xnack+ v5 kernels.cl` or
    /// `gfx1030 v5 args.cl [-mwavefrontsize64]`.
    pub name: String,
    /// The code object file (inside the cache directory).
    pub path: PathBuf,
    /// The processor exactly as passed to `-mcpu` (a full target id such as
    /// `gfx90a:sramecc+:xnack+` for clang-19; a plain processor for llc-14,
    /// whose features are then in [`Fixture::options`]).
    pub cpu: String,
    /// Code object version (2 to 6).
    pub cov: u8,
    /// True for the compiler's relocatable output (ET_REL), false for the
    /// linked shared object (ET_DYN).
    pub relocatable: bool,
    /// Names of the kernels in the object, in source order.
    pub kernels: Vec<String>,
    /// The compiler that produced the object: `clang-19` or `llc-14`.
    pub compiler: String,
    /// Compiler options beyond target, version and optimisation level, e.g.
    /// `-mwavefrontsize64`, `-mllvm -amdgpu-kernarg-preload-count=16` or
    /// `-mattr=-xnack`.
    pub options: Vec<String>,
}

/// Options that make LLVM preload kernel arguments into SGPRs (gfx90a and
/// gfx942 only). 16 is more than the user SGPRs can hold, so LLVM's own
/// limit decides how many dwords are preloaded.
pub const KERNARG_PRELOAD: &[&str] = &["-mllvm", "-amdgpu-kernarg-preload-count=16"];

/// Code object versions clang-19 emits for a specific processor.
const V456: &[u8] = &[4, 5, 6];
/// Generic targets exist only from V6 on.
const V6: &[u8] = &[6];

/// One row of the clang-19 matrix.
struct ClangVariant {
    cpu: &'static str,
    options: &'static [&'static str],
    covs: &'static [u8],
    /// Keep the relocatable object of this version as a fixture too.
    keep_object: Option<u8>,
}

const fn clang(
    cpu: &'static str,
    options: &'static [&'static str],
    covs: &'static [u8],
    keep_object: Option<u8>,
) -> ClangVariant {
    ClangVariant {
        cpu,
        options,
        covs,
        keep_object,
    }
}

/// The clang-19 matrix: every processor family the oracle models, the
/// xnack/sramecc settings of gfx90a, kernarg preload, wave64 on a wave32
/// target, and the generic targets LLVM 19 knows (`llc-19 -mcpu=help`).
const CLANG_MATRIX: &[ClangVariant] = &[
    clang("gfx803", &[], V456, Some(5)),
    clang("gfx900", &[], V456, Some(5)),
    clang("gfx906", &[], V456, Some(5)),
    clang("gfx908", &[], V456, Some(5)),
    clang("gfx90a", &[], V456, Some(5)),
    clang("gfx90a:xnack+", &[], V456, None),
    clang("gfx90a:xnack-", &[], V456, None),
    clang("gfx90a:sramecc+", &[], V456, None),
    clang("gfx90a:sramecc-", &[], V456, None),
    clang("gfx90a:sramecc+:xnack+", &[], V456, None),
    clang("gfx90a", KERNARG_PRELOAD, V456, None),
    clang("gfx942", &[], V456, Some(5)),
    clang("gfx942", KERNARG_PRELOAD, V456, None),
    clang("gfx1010", &[], V456, Some(5)),
    clang("gfx1030", &[], V456, Some(5)),
    clang("gfx1030", &["-mwavefrontsize64"], V456, None),
    clang("gfx1100", &[], V456, Some(5)),
    clang("gfx1151", &[], V456, Some(5)),
    clang("gfx1200", &[], V456, Some(5)),
    clang("gfx1201", &[], V456, Some(5)),
    clang("gfx9-generic", &[], V6, Some(6)),
    clang("gfx10-1-generic", &[], V6, Some(6)),
    clang("gfx10-3-generic", &[], V6, Some(6)),
    clang("gfx11-generic", &[], V6, Some(6)),
    clang("gfx12-generic", &[], V6, Some(6)),
];

/// One row of the llc-14 matrix.
struct LlcVariant {
    cpu: &'static str,
    options: &'static [&'static str],
    keep_object: bool,
}

/// llc-14 builds for V3 ([`all`]). LLVM 14 writes xnack (and sramecc) as
/// "on" when the target supports them and nothing says otherwise, so the
/// `-mattr` rows give the "off" encodings.
const LLC_V3_MATRIX: &[LlcVariant] = &[
    LlcVariant {
        cpu: "gfx803",
        options: &[],
        keep_object: true,
    },
    LlcVariant {
        cpu: "gfx900",
        options: &[],
        keep_object: true,
    },
    LlcVariant {
        cpu: "gfx900",
        options: &["-mattr=-xnack"],
        keep_object: false,
    },
    LlcVariant {
        cpu: "gfx906",
        options: &[],
        keep_object: true,
    },
    LlcVariant {
        cpu: "gfx906",
        options: &["-mattr=-xnack,-sramecc"],
        keep_object: false,
    },
    LlcVariant {
        cpu: "gfx90a",
        options: &[],
        keep_object: true,
    },
];

/// llc-14 builds for V2 ([`v2`]), from the sources in `llvm14/` and `v2/`:
/// every generation LLVM 14 writes V2 for (GFX6 without flat scratch,
/// GFX7, gfx802 with the SGPR init bug, GFX8, GFX9 with and without
/// xnack). llc-14 rejects gfx908, gfx909, gfx90a and GFX10 at V2 ("AMD GPU
/// code object V2 does not support processor gfx90a").
const LLC_V2_MATRIX: &[LlcVariant] = &[
    LlcVariant {
        cpu: "gfx600",
        options: &[],
        keep_object: false,
    },
    LlcVariant {
        cpu: "gfx701",
        options: &[],
        keep_object: true,
    },
    LlcVariant {
        cpu: "gfx802",
        options: &[],
        keep_object: false,
    },
    LlcVariant {
        cpu: "gfx803",
        options: &[],
        keep_object: false,
    },
    LlcVariant {
        cpu: "gfx900",
        options: &[],
        keep_object: true,
    },
    LlcVariant {
        cpu: "gfx900",
        options: &["-mattr=-xnack"],
        keep_object: false,
    },
    LlcVariant {
        cpu: "gfx906",
        options: &[],
        keep_object: false,
    },
];

/// Source directories (under `tests/fixtures/`) of the llc-14 V2 builds.
const LLC_V2_SOURCES: &[&str] = &["llvm14", "v2"];

/// Bump when the cache layout or the way entries are built changes.
const CACHE_FORMAT: &str = "hsaco-conform fixtures 1";

/// Every fixture from clang-19 (V4–V6) and llc-14 (V3), built on first use.
/// `None` (after [`require_tool`]'s message) when a tool is missing outside
/// CI. Panics with the command and its stderr when a build fails.
pub fn all() -> Option<Vec<Fixture>> {
    static CACHE: OnceLock<Vec<Fixture>> = OnceLock::new();
    let clang = require_tool("clang-19")?;
    let llc = require_tool("llc-14")?;
    let lld = require_tool("ld.lld-19")?;
    Some(
        CACHE
            .get_or_init(|| {
                let mut jobs = clang_jobs(&clang);
                jobs.extend(llc_jobs(&llc, 3, LLC_V3_MATRIX, &["llvm14"]));
                build_all("all", &jobs, &lld)
            })
            .clone(),
    )
}

/// The plain gfx90a V5 fixture of `kernels.cl`, linked (the object tests
/// copy and mutate); same contract as [`all`].
pub fn gfx90a_v5() -> Option<Fixture> {
    let f = all()?
        .into_iter()
        .find(|f| {
            f.cpu == "gfx90a"
                && f.cov == 5
                && !f.relocatable
                && f.options.is_empty()
                && f.name.contains("kernels.cl")
        })
        .expect("gfx90a v5 fixture");
    Some(f)
}

/// Code object V2 fixtures from llc-14, built on first use; same contract
/// as [`all`].
pub fn v2() -> Option<Vec<Fixture>> {
    static CACHE: OnceLock<Vec<Fixture>> = OnceLock::new();
    let llc = require_tool("llc-14")?;
    let lld = require_tool("ld.lld-19")?;
    Some(
        CACHE
            .get_or_init(|| {
                build_all(
                    "v2",
                    &llc_jobs(&llc, 2, LLC_V2_MATRIX, LLC_V2_SOURCES),
                    &lld,
                )
            })
            .clone(),
    )
}

/// The fixture sources directory.
fn sources_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
}

/// A source file and the kernels it defines.
struct Source {
    path: PathBuf,
    file_name: String,
    text: String,
    kernels: Vec<String>,
}

/// Reads every file with extension `ext` in `tests/fixtures/<dir>`, sorted
/// by name so the fixture order is stable.
fn sources(dir: &str, ext: &str) -> Vec<Source> {
    let dir = sources_dir().join(dir);
    let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = entries
        .map(|e| {
            e.unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
                .path()
        })
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    paths.sort();
    assert!(
        !paths.is_empty(),
        "no *.{ext} fixture sources in {}",
        dir.display()
    );
    paths
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            let kernels = kernel_names(&text);
            assert!(
                !kernels.is_empty(),
                "no kernels found in {}",
                path.display()
            );
            let file_name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            Source {
                path,
                file_name,
                text,
                kernels,
            }
        })
        .collect()
}

/// Kernel names by the sources' convention: a line starting with
/// `kernel void NAME(` (OpenCL C) or `define amdgpu_kernel void @NAME(`
/// (LLVM IR).
pub fn kernel_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line
                .strip_prefix("kernel void ")
                .or_else(|| line.strip_prefix("__kernel void "))
                .or_else(|| line.strip_prefix("define amdgpu_kernel void @"))?;
            let name = &rest[..rest.find('(')?];
            let valid =
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            valid.then(|| name.to_owned())
        })
        .collect()
}

/// One compile (and link) to run.
struct Job {
    /// Fixture name without the ` .o` suffix.
    name: String,
    cpu: String,
    cov: u8,
    compiler: String,
    options: Vec<String>,
    tool: PathBuf,
    /// Compiler arguments before `<source> -o <object>`.
    args: Vec<String>,
    source_path: PathBuf,
    source_text: String,
    stem: String,
    kernels: Vec<String>,
    keep_object: bool,
}

fn fixture_name(cpu: &str, cov: u8, file: &str, options: &[&str]) -> String {
    let mut name = format!("{cpu} v{cov} {file}");
    if !options.is_empty() {
        let _ = write!(name, " [{}]", options.join(" "));
    }
    name
}

fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "fixture".to_owned())
}

fn clang_jobs(clang: &Path) -> Vec<Job> {
    let sources = sources("kernels", "cl");
    let mut jobs = Vec::new();
    for v in CLANG_MATRIX {
        for &cov in v.covs {
            for src in &sources {
                let mut args: Vec<String> =
                    super::CLANG_OPENCL.iter().map(|s| s.to_string()).collect();
                args.push(format!("-mcpu={}", v.cpu));
                args.push(format!("-mcode-object-version={cov}"));
                args.extend(v.options.iter().map(|s| s.to_string()));
                args.push("-c".to_owned());
                jobs.push(Job {
                    name: fixture_name(v.cpu, cov, &src.file_name, v.options),
                    cpu: v.cpu.to_owned(),
                    cov,
                    compiler: "clang-19".to_owned(),
                    options: v.options.iter().map(|s| s.to_string()).collect(),
                    tool: clang.to_owned(),
                    args,
                    source_path: src.path.clone(),
                    source_text: src.text.clone(),
                    stem: file_stem(&src.path),
                    kernels: src.kernels.clone(),
                    keep_object: v.keep_object == Some(cov),
                });
            }
        }
    }
    jobs
}

/// The llc-14 jobs for code object version `cov`: every row of `matrix`
/// times every `*.ll` source in the directories `dirs`.
fn llc_jobs(llc: &Path, cov: u8, matrix: &[LlcVariant], dirs: &[&str]) -> Vec<Job> {
    let sources: Vec<Source> = dirs.iter().flat_map(|d| sources(d, "ll")).collect();
    let mut jobs = Vec::new();
    for v in matrix {
        for src in &sources {
            let mut args = vec![
                "-mtriple=amdgcn-amd-amdhsa".to_owned(),
                format!("-mcpu={}", v.cpu),
                format!("--amdhsa-code-object-version={cov}"),
                "-O2".to_owned(),
            ];
            args.extend(v.options.iter().map(|s| s.to_string()));
            args.push("-filetype=obj".to_owned());
            jobs.push(Job {
                name: fixture_name(v.cpu, cov, &src.file_name, v.options),
                cpu: v.cpu.to_owned(),
                cov,
                compiler: "llc-14".to_owned(),
                options: v.options.iter().map(|s| s.to_string()).collect(),
                tool: llc.to_owned(),
                args,
                source_path: src.path.clone(),
                source_text: src.text.clone(),
                stem: file_stem(&src.path),
                kernels: src.kernels.clone(),
                keep_object: v.keep_object,
            });
        }
    }
    jobs
}

/// Where cache entries live: `$HSACO_FIXTURES_DIR`, else `fixtures/` next
/// to Cargo's `tmp/` in the target directory (so `CARGO_TARGET_DIR` is
/// honoured).
fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("HSACO_FIXTURES_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().unwrap_or(tmp).join("fixtures")
}

/// The `--version` output of a tool, part of every cache key.
fn tool_version(tool: &Path) -> String {
    let out = Command::new(tool)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("running {} --version: {e}", tool.display()));
    assert!(
        out.status.success(),
        "{} --version failed: {}",
        tool.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// 128-bit FNV-1a (two 64-bit lanes with different offset bases): stable
/// across Rust releases, unlike `DefaultHasher`, so the cache survives a
/// toolchain update. Not cryptographic; an accidental collision is what
/// matters here and 128 bits make it negligible.
fn cache_key(parts: &[&str]) -> String {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut lanes = [0xcbf2_9ce4_8422_2325_u64, 0x6c62_272e_07bb_0142_u64];
    for part in parts {
        // Length prefix so that ("ab", "c") and ("a", "bc") differ.
        let len = (part.len() as u64).to_le_bytes();
        for &b in len.iter().chain(part.as_bytes()) {
            for lane in &mut lanes {
                *lane ^= u64::from(b);
                *lane = lane.wrapping_mul(PRIME);
            }
        }
    }
    format!("{:016x}{:016x}", lanes[0], lanes[1])
}

/// Runs one command; on failure returns the full command line, status and
/// stderr.
fn run(tool: &Path, args: &[String]) -> Result<(), String> {
    let out = Command::new(tool)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", tool.display()))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "fixture build failed\ncommand: {} {}\nstatus: {}\nstderr:\n{}",
        tool.display(),
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    ))
}

/// Counts for the summary line.
#[derive(Default)]
struct Stats {
    compiled: usize,
    cached: usize,
}

/// Builds (or finds in the cache) one job; returns its cache entry.
fn build_one(
    job: &Job,
    root: &Path,
    versions: &Versions,
    lld: &Path,
    stats: &Mutex<Stats>,
) -> Result<PathBuf, String> {
    let link_args = ["-shared"];
    let compiler_version = versions.get(&job.tool);
    let key = cache_key(&[
        CACHE_FORMAT,
        &job.compiler,
        &job.args.join("\u{1f}"),
        compiler_version,
        &link_args.join("\u{1f}"),
        versions.get(lld),
        &job.stem,
        &job.source_text,
    ]);
    let entry = root.join(&key);
    let object = format!("{}.o", job.stem);
    let shared = format!("{}.hsaco", job.stem);
    if entry.join(&object).is_file() && entry.join(&shared).is_file() {
        stats.lock().map_err(|e| e.to_string())?.cached += 1;
        return Ok(entry);
    }

    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let tmp = root.join(format!(
        "tmp-{key}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    fs::create_dir_all(&tmp).map_err(|e| format!("creating {}: {e}", tmp.display()))?;
    let result = (|| {
        let obj_path = tmp.join(&object);
        let mut args = job.args.clone();
        args.push(job.source_path.to_string_lossy().into_owned());
        args.push("-o".to_owned());
        args.push(obj_path.to_string_lossy().into_owned());
        run(&job.tool, &args)?;
        let mut largs: Vec<String> = link_args.iter().map(|s| s.to_string()).collect();
        largs.push(obj_path.to_string_lossy().into_owned());
        largs.push("-o".to_owned());
        largs.push(tmp.join(&shared).to_string_lossy().into_owned());
        run(lld, &largs)
    })();
    if let Err(e) = result {
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }
    // Publishing is the rename: another process that finished first wins
    // and ours is dropped (renaming onto a non-empty directory fails).
    if let Err(e) = fs::rename(&tmp, &entry) {
        let _ = fs::remove_dir_all(&tmp);
        if !entry.join(&shared).is_file() {
            return Err(format!(
                "publishing {} as {}: {e}",
                tmp.display(),
                entry.display()
            ));
        }
    }
    stats.lock().map_err(|e| e.to_string())?.compiled += 1;
    Ok(entry)
}

/// `--version` output of each tool in use, computed once per build.
struct Versions(Vec<(PathBuf, String)>);

impl Versions {
    fn get(&self, tool: &Path) -> &str {
        self.0
            .iter()
            .find(|(t, _)| t == tool)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }
}

/// Builds every job, two (or up to four, on bigger machines) at a time, and
/// returns the fixtures in job order. Panics on the first failure.
fn build_all(what: &str, jobs: &[Job], lld: &Path) -> Vec<Fixture> {
    let start = Instant::now();
    let root = cache_root();
    fs::create_dir_all(&root).unwrap_or_else(|e| panic!("creating {}: {e}", root.display()));
    let mut tools: Vec<PathBuf> = jobs.iter().map(|j| j.tool.clone()).collect();
    tools.push(lld.to_owned());
    tools.sort();
    tools.dedup();
    let versions = Versions(
        tools
            .into_iter()
            .map(|t| {
                let v = tool_version(&t);
                (t, v)
            })
            .collect(),
    );

    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 4);
    let next = AtomicUsize::new(0);
    let stats = Mutex::new(Stats::default());
    let mut entries: Vec<Option<Result<PathBuf, String>>> = (0..jobs.len()).map(|_| None).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = jobs.get(i) else { break };
                        let r = build_one(job, &root, &versions, lld, &stats);
                        let failed = r.is_err();
                        done.push((i, r));
                        if failed {
                            // Stop handing out work so the failure shows quickly.
                            next.store(jobs.len(), Ordering::Relaxed);
                        }
                    }
                    done
                })
            })
            .collect();
        for h in handles {
            let done = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            for (i, r) in done {
                if let Some(slot) = entries.get_mut(i) {
                    *slot = Some(r);
                }
            }
        }
    });

    let mut fixtures = Vec::new();
    for (job, entry) in jobs.iter().zip(entries) {
        let entry = match entry {
            Some(Ok(e)) => e,
            Some(Err(msg)) => panic!("{} ({}):\n{msg}", job.name, job.source_path.display()),
            // Skipped after another job failed; that failure is reported.
            None => continue,
        };
        let fixture = |relocatable: bool| Fixture {
            name: if relocatable {
                format!("{} .o", job.name)
            } else {
                job.name.clone()
            },
            path: entry.join(format!(
                "{}.{}",
                job.stem,
                if relocatable { "o" } else { "hsaco" }
            )),
            cpu: job.cpu.clone(),
            cov: job.cov,
            relocatable,
            kernels: job.kernels.clone(),
            compiler: job.compiler.clone(),
            options: job.options.clone(),
        };
        fixtures.push(fixture(false));
        if job.keep_object {
            fixtures.push(fixture(true));
        }
    }
    assert_eq!(
        fixtures.iter().filter(|f| !f.relocatable).count(),
        jobs.len(),
        "fixture build stopped early without an error message"
    );
    let stats = stats
        .lock()
        .map(|s| (s.compiled, s.cached))
        .unwrap_or((0, 0));
    eprintln!(
        "fixtures ({what}): {} code objects from {} builds ({} compiled, {} cached) in {:.1} s with {workers} workers, cache {}",
        fixtures.len(),
        jobs.len(),
        stats.0,
        stats.1,
        start.elapsed().as_secs_f64(),
        root.display()
    );
    fixtures
}
