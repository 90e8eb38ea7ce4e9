//! The `bench` command: what `check` costs on real files, against
//! `llvm-readobj --notes` over the very same code objects.
//!
//! Three figures a user can compare: `check` itself, run as a child
//! process of this binary (text, default JSON, JSON with `--detail`; wall
//! time and peak resident memory from `wait4`), and `llvm-readobj --notes`
//! in two batched processes over the same code objects extracted to files.
//! Then the in-process cost of each phase on one thread, so a change to one
//! layer of the oracle can be measured on its own.

use crate::input::{self, Bytes};
use crate::report::{self, Options};
use hsaco_conform::measure::{wait_rusage, Run};
use hsaco_conform::outln;
use hsaco_oracle::check::{check_object_with, Detail};
use hsaco_oracle::{container, elf, metadata, notes, symbols, Sink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Starts every command at once and waits for all; the run's wall time,
/// the largest peak RSS, and each exit status.
fn run_all(cmds: &mut [Command]) -> Result<(Run, Vec<i32>), String> {
    let t = Instant::now();
    let mut pids = Vec::new();
    for c in cmds.iter_mut() {
        let child = c
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .stdin(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run {:?}: {e}", c.get_program()))?;
        pids.push(child.id());
        // Reaped by wait4 below; dropping a Child neither waits nor kills.
        drop(child);
    }
    let (mut cpu, mut max_rss) = (Duration::ZERO, 0);
    let mut codes = Vec::new();
    for pid in pids {
        let (code, time, rss) = wait_rusage(pid)?;
        cpu += time;
        max_rss = max_rss.max(rss);
        codes.push(code);
    }
    Ok((
        Run {
            wall: t.elapsed(),
            cpu,
            max_rss,
        },
        codes,
    ))
}

/// Best wall time (and the largest peak RSS) of `repeat` runs.
fn best_of(repeat: u32, mut make: impl FnMut() -> Vec<Command>) -> Result<(Run, Vec<i32>), String> {
    let mut best: Option<(Run, Vec<i32>)> = None;
    let mut max_rss = 0;
    for _ in 0..repeat {
        let (run, codes) = run_all(&mut make())?;
        max_rss = max_rss.max(run.max_rss);
        if best.as_ref().is_none_or(|(b, _)| run.wall < b.wall) {
            best = Some((run, codes));
        }
    }
    let (mut run, codes) = best.ok_or("no run")?;
    run.max_rss = max_rss;
    Ok((run, codes))
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// Runs the benchmark; returns the exit status.
pub fn run(paths: &[PathBuf], readobj: Option<&str>, repeat: u32) -> u8 {
    match bench(paths, readobj, repeat.max(1)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("hsaco-conform bench: {e}");
            2
        }
    }
}

fn bench(paths: &[PathBuf], readobj: Option<&str>, repeat: u32) -> Result<(), String> {
    let inputs = input::expand(paths);
    if let Some(p) = inputs.problems.first() {
        return Err(format!("{}: {}", p.path.display(), p.reason));
    }
    let mut files: Vec<(PathBuf, Bytes)> = Vec::new();
    for inp in &inputs.files {
        files.push((inp.path.clone(), input::map(&inp.path)?));
    }
    // A child's peak RSS counts this process's resident set at the time it
    // was started (Linux carries the parent's high-water mark over fork and
    // exec), so until every child has run this process touches only the
    // container headers: the scan, and extraction by reads, not the map.
    let (mut objects, mut object_bytes) = (0usize, 0u64);
    for (_, b) in &files {
        each_member(b, &mut |m| {
            objects += 1;
            object_bytes += m.data.len() as u64;
        });
    }
    if objects == 0 {
        return Err("no code objects in the given files".to_owned());
    }
    let file_bytes: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
    outln!(
        "inputs: {} file{} ({:.1} MB), {objects} code objects ({:.1} MB){}",
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        mb(file_bytes),
        mb(object_bytes),
        if inputs.duplicates > 0 {
            format!(", {} duplicate paths left out", inputs.duplicates)
        } else {
            String::new()
        }
    );

    // `check` as users run it: a child process of this very binary.
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let modes: [(&str, &[&str]); 3] = [
        ("text", &[]),
        ("json", &["--format", "json"]),
        ("json --detail", &["--format", "json", "--detail"]),
    ];
    let mut checks = Vec::new();
    for (label, args) in modes {
        let (run, codes) = best_of(repeat, || {
            let mut c = Command::new(&exe);
            c.arg("check").args(args).args(paths);
            vec![c]
        })?;
        if codes[0] > 1 {
            return Err(format!(
                "`check {}` exited with status {} (run it alone to see why)",
                args.join(" "),
                codes[0]
            ));
        }
        checks.push((label, run));
    }

    let theirs = match readobj {
        Some(tool) => Some(readobj_run(tool, &files, repeat)?),
        None => None,
    };
    outln!(
        "\n`check` as a child process ({workers} workers, output to /dev/null, best of {repeat} by wall time;\n\
         CPU is user + system time, less sensitive than wall time to other load on the machine):"
    );
    outln!(
        "  {:<40} {:>9} {:>9} {:>11}{}",
        "",
        "wall",
        "CPU",
        "peak RSS",
        if theirs.is_some() {
            "   vs llvm-readobj: wall   CPU"
        } else {
            ""
        }
    );
    let line = |label: &str, run: &Run, vs: Option<&Run>| {
        let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64().max(1e-9);
        let vs = vs.map_or(String::new(), |t| {
            format!(
                "   {:>21.1}x {:>5.1}x",
                ratio(t.wall, run.wall),
                ratio(t.cpu, run.cpu)
            )
        });
        outln!(
            "  {label:<40} {:>7.3} s {:>7.3} s {:>8.1} MB{vs}",
            run.wall.as_secs_f64(),
            run.cpu.as_secs_f64(),
            mb(run.max_rss)
        );
    };
    for (label, run) in &checks {
        line(
            &format!("check {label}"),
            run,
            theirs.as_ref().map(|(_, t)| t),
        );
    }
    if let Some((label, t)) = &theirs {
        line(label, t, None);
    }

    phases(&files, repeat, object_bytes, objects);
    Ok(())
}

/// `llvm-readobj --notes` over the same code objects, extracted to files
/// first (not timed), in two processes of half the objects each, started
/// together. Returns the row label and the best run.
pub(crate) fn readobj_run(
    tool: &str,
    files: &[(PathBuf, Bytes)],
    repeat: u32,
) -> Result<(String, Run), String> {
    let dir = tempfile_dir("readobj")?;
    let result = (|| {
        let mut names = Vec::new();
        let mut buf = vec![0u8; 1 << 20];
        for (path, b) in files {
            let f = std::fs::File::open(path)
                .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
            let mut failed = Ok(());
            each_member(b, &mut |m| {
                let name = format!("{}.co", names.len());
                let p = dir.join(&name);
                let written = match member_offset(b, m) {
                    Some(at) => copy_range(&f, at, m.data.len(), &p, &mut buf),
                    // Bytes unpacked in memory are written as they are.
                    None => std::fs::write(&p, m.data),
                };
                if let (Err(e), Ok(())) = (written, &failed) {
                    failed = Err(format!("cannot extract to {}: {e}", p.display()));
                }
                names.push(name);
            });
            failed?;
        }
        let half = names.len().div_ceil(2);
        let (run, codes) = best_of(repeat, || {
            names
                .chunks(half)
                .map(|batch| {
                    let mut c = Command::new(tool);
                    // Short relative names keep the command lines small.
                    c.arg("--notes").args(batch).current_dir(&dir);
                    c
                })
                .collect()
        })?;
        if let Some(c) = codes.iter().find(|&&c| c != 0) {
            return Err(format!("{tool} --notes exited with status {c}"));
        }
        Ok((format!("{tool} --notes (2 processes)"), run))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Where a member lies in its mapped file, if it is a slice of the map
/// (as members of a plain file or of an uncompressed bundle are).
fn member_offset(file: &[u8], m: &container::Member) -> Option<u64> {
    let start = (m.data.as_ptr() as usize).wrapping_sub(file.as_ptr() as usize);
    (start <= file.len() && m.data.len() <= file.len() - start).then_some(start as u64)
}

/// Copies `len` bytes at `offset` of `from` into a new file `to`, through
/// `buf` (reads, so the bytes never enter this process's resident set).
fn copy_range(
    from: &std::fs::File,
    mut offset: u64,
    mut len: usize,
    to: &Path,
    buf: &mut [u8],
) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::FileExt;
    let mut out = std::fs::File::create(to)?;
    while len > 0 {
        let n = len.min(buf.len());
        from.read_exact_at(&mut buf[..n], offset)?;
        out.write_all(&buf[..n])?;
        offset += n as u64;
        len -= n;
    }
    Ok(())
}

/// Hands every code object of a file to `f`, one by one, unpacking each
/// compressed bundle in turn (bundles that cannot be read are skipped:
/// `check` reports them, `bench` only measures).
fn each_member(bytes: &[u8], f: &mut dyn FnMut(&container::Member)) {
    container::scan(bytes).for_each(container::DEFAULT_UNPACK_LIMIT, &mut |v| {
        if let container::Visit::Members(ms) = v {
            ms.iter().for_each(&mut *f);
        }
    });
}

/// A fresh scratch directory of this process, named by `what`.
pub(crate) fn tempfile_dir(what: &str) -> Result<PathBuf, String> {
    let dir =
        std::env::temp_dir().join(format!("hsaco-conform-bench-{}-{what}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}

/// The in-process cost of each phase of `check` on one thread, best of
/// `repeat`: finding the code objects, the ELF layer, the symbol table, the
/// notes, the metadata (decoded with every metadata rule, full model), the
/// whole check without and with per-kernel detail, and the rendering of
/// each report format. Each row from the ELF layer on includes finding the
/// code objects (and unpacking compressed bundles), the first row's cost.
fn phases(files: &[(PathBuf, Bytes)], repeat: u32, object_bytes: u64, objects: usize) {
    let best = |f: &mut dyn FnMut()| {
        (0..repeat)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .min()
            .unwrap_or_default()
    };
    let each_member = |f: &mut dyn FnMut(&Path, &container::Member)| {
        for (p, b) in files {
            each_member(b, &mut |m| f(p, m));
        }
    };
    let scan = best(&mut || {
        each_member(&mut |_, m| {
            std::hint::black_box(m.data.len());
        })
    });
    let symbols_layer = best(&mut || {
        each_member(&mut |_, m| {
            let mut sink = Sink::new();
            if let Some(e) = elf::Elf::parse(m.data, &mut sink) {
                let syms = symbols::read(&e, &mut sink);
                std::hint::black_box(symbols::kernels(&e, &syms, &mut sink));
            }
        })
    });
    let elf_layer = best(&mut || {
        each_member(&mut |_, m| {
            std::hint::black_box(elf::Elf::parse(m.data, &mut Sink::new()));
        })
    });
    let notes_layer = best(&mut || {
        each_member(&mut |_, m| {
            let mut sink = Sink::new();
            if let Some(e) = elf::Elf::parse(m.data, &mut sink) {
                std::hint::black_box(notes::read(&e, &mut sink));
            }
        })
    });
    let metadata_layer = best(&mut || {
        each_member(&mut |_, m| {
            let mut sink = Sink::new();
            let Some(e) = elf::Elf::parse(m.data, &mut sink) else {
                return;
            };
            let Some(cov) = e.cov else { return };
            let ctx = metadata::Context::from_e_flags(cov, e.header.flags);
            for n in notes::read(&e, &mut sink)
                .iter()
                .filter(|n| n.name == "AMDGPU" && n.n_type == notes::NT_AMDGPU_METADATA)
            {
                std::hint::black_box(metadata::check(n.desc, n.desc_offset, &ctx, &mut sink));
            }
        })
    });
    let whole = |detail: Detail| {
        best(&mut || {
            each_member(&mut |_, m| {
                std::hint::black_box(check_object_with(m.data, detail));
            })
        })
    };
    let lean = whole(Detail::Violations);
    let mut kernels = 0;
    each_member(&mut |_, m| kernels += check_object_with(m.data, Detail::Violations).kernels.len());
    let full = whole(Detail::Full);
    // Rendering alone: each report is made outside the timing, rendered
    // `repeat` times, and the best time of each object summed (keeping
    // every report of a library at once would take gigabytes).
    let render = |opts: Options| {
        let mut out = report::Chunks::default();
        let (mut total, mut bytes) = (Duration::ZERO, 0usize);
        each_member(&mut |p, m| {
            let r = check_object_with(m.data, opts.oracle_detail());
            let path = p.display().to_string();
            total += (0..repeat)
                .map(|_| {
                    out.clear();
                    let t = Instant::now();
                    report::render_object(&path, m.name.as_deref(), &r, opts, &mut out);
                    t.elapsed()
                })
                .min()
                .unwrap_or_default();
            bytes += out.len();
        });
        (total, bytes)
    };
    let opts = |json: bool, detail| Options {
        format: if json {
            report::ReportFormat::Json
        } else {
            report::ReportFormat::Text
        },
        detail,
        verbose: false,
        fail_on: report::FailOn::Error,
    };
    let text = render(opts(false, false));
    let json = render(opts(true, false));
    let json_detail = render(opts(true, true));

    outln!(
        "\nphases in process, 1 thread, best of {repeat} ({objects} code objects, {:.1} MB, {kernels} kernels):",
        mb(object_bytes)
    );
    let row = |what: &str, t: Duration| {
        let s = t.as_secs_f64();
        outln!(
            "  {what:<56} {:>8.3} s {:>9.0} MB/s",
            s,
            mb(object_bytes) / s.max(1e-9)
        );
    };
    row("finding (and unpacking) the code objects", scan);
    row("ELF layer (headers, segments, sections)", elf_layer);
    row(
        "ELF layer + symbol table (entries, descriptor symbols)",
        symbols_layer,
    );
    row("ELF layer + notes", notes_layer);
    row(
        "ELF + notes + metadata (every note, full model)",
        metadata_layer,
    );
    row("whole check (every rule; text and default JSON)", lean);
    row("whole check with per-kernel detail (JSON --detail)", full);
    for (what, (t, bytes)) in [
        ("render text (without -v)", text),
        ("render default JSON", json),
        ("render JSON with --detail", json_detail),
    ] {
        row(&format!("{what}: {:.1} MB", mb(bytes as u64)), t);
    }
}
