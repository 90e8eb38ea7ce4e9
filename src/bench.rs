//! The `bench` command: oracle throughput on real files, against
//! `llvm-readobj --notes` over the very same code objects.

use crate::input;
use crate::report::for_each_member;
use hsaco_oracle::check::{check_object_with, Detail};
use hsaco_oracle::container;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Figures {
    objects: usize,
    bytes: u64,
    time: Duration,
}

impl Figures {
    fn print(&self, label: &str) {
        let s = self.time.as_secs_f64().max(1e-9);
        println!(
            "{label:<28} {:>9.3} s  {:>10.1} MB/s  {:>10.0} objects/s",
            s,
            self.bytes as f64 / 1e6 / s,
            self.objects as f64 / s
        );
    }
}

/// Runs the benchmark; returns the exit status.
pub fn run(paths: &[PathBuf], readobj: Option<&str>, repeat: u32) -> u8 {
    let (inputs, errors) = input::expand(paths);
    if let Some(e) = errors.first() {
        eprintln!("hsaco-conform bench: {e}");
        return 2;
    }
    let mut files = Vec::new();
    for inp in &inputs {
        match input::map(&inp.path) {
            Ok(b) => files.push((inp.path.clone(), b)),
            Err(e) => {
                eprintln!("hsaco-conform bench: {e}");
                return 2;
            }
        }
    }
    // Count the code objects (not timed), unpacking compressed bundles one
    // at a time as `check` does.
    let (mut objects, mut bytes) = (0usize, 0u64);
    for (_, b) in &files {
        each_member(b, &mut |m| {
            objects += 1;
            bytes += m.data.len() as u64;
        });
    }
    if objects == 0 {
        eprintln!("hsaco-conform bench: no code objects in the given files");
        return 2;
    }
    let total_file_bytes: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
    println!(
        "{} file(s), {:.1} MB; {objects} code objects, {:.1} MB of code objects",
        files.len(),
        total_file_bytes as f64 / 1e6,
        bytes as f64 / 1e6
    );

    // Oracle, all cores: container scan, unpacking of compressed bundles
    // and every rule, as `check` runs in text mode (violations only, no
    // descriptor fields or metadata copies), best of `repeat`.
    let mut best = Duration::MAX;
    let mut errors_found = 0;
    for _ in 0..repeat {
        let t = Instant::now();
        let mut errs = 0;
        for (p, b) in &files {
            let path = p.display().to_string();
            let scan = container::scan(b);
            scan.for_each(container::DEFAULT_UNPACK_LIMIT, &mut |v| {
                if let container::Visit::Members(ms) = v {
                    for_each_member(&path, ms, Detail::Violations, &mut |e| {
                        if e.violations
                            .iter()
                            .any(|v| v.severity == hsaco_oracle::Severity::Error)
                        {
                            errs += 1;
                        }
                    });
                }
            });
        }
        best = best.min(t.elapsed());
        errors_found = errs;
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let ours = Figures {
        objects,
        bytes,
        time: best,
    };
    ours.print(&format!("oracle check ({threads} threads)"));

    // Oracle, one core (scan and unpacking included), for a per-core figure.
    let t = Instant::now();
    for (_, b) in &files {
        each_member(b, &mut |m| {
            std::hint::black_box(check_object_with(m.data, Detail::Violations));
        });
    }
    Figures {
        objects,
        bytes,
        time: t.elapsed(),
    }
    .print("oracle check (1 thread)");
    println!("code objects with errors: {errors_found}");

    let Some(readobj) = readobj else { return 0 };
    let dir = std::env::temp_dir().join(format!("hsaco-conform-bench-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("hsaco-conform bench: cannot create {}: {e}", dir.display());
        return 2;
    }
    let result = compare_readobj(readobj, &dir, &files, threads, repeat, &ours);
    let _ = std::fs::remove_dir_all(&dir);
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("hsaco-conform bench: {e}");
            2
        }
    }
}

fn compare_readobj(
    readobj: &str,
    dir: &Path,
    files: &[(PathBuf, input::Bytes)],
    threads: usize,
    repeat: u32,
    ours: &Figures,
) -> Result<(), String> {
    // Extract every object to its own file (not timed): llvm-readobj reads
    // files, not bundle members.
    let mut names = Vec::new();
    let mut written = Ok(());
    for (_, b) in files {
        each_member(b, &mut |m| {
            let p = dir.join(format!("{}.co", names.len()));
            if written.is_ok() {
                written = std::fs::write(&p, m.data)
                    .map_err(|e| format!("cannot write {}: {e}", p.display()));
            }
            names.push(p);
        });
    }
    written?;
    // Equal batches, four per core, run on a rolling pool of `threads`
    // processes: both sides use every core, llvm-readobj's start-up cost is
    // amortised, and no core idles while another finishes a long batch.
    // Timed like the oracle: best of `repeat` runs.
    let per = names.len().div_ceil(threads * 4).max(1);
    let chunks: Vec<&[PathBuf]> = names.chunks(per).collect();
    let mut best = Duration::MAX;
    for _ in 0..repeat {
        let t = Instant::now();
        let mut running: std::collections::VecDeque<std::process::Child> = Default::default();
        for c in &chunks {
            if running.len() == threads {
                if let Some(mut oldest) = running.pop_front() {
                    oldest
                        .wait()
                        .map_err(|e| format!("{readobj} failed: {e}"))?;
                }
            }
            let child = Command::new(readobj)
                .arg("--notes")
                .args(*c)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("cannot run {readobj}: {e}"))?;
            running.push_back(child);
        }
        for mut c in running {
            c.wait().map_err(|e| format!("{readobj} failed: {e}"))?;
        }
        best = best.min(t.elapsed());
    }
    let theirs = Figures {
        objects: ours.objects,
        bytes: ours.bytes,
        time: best,
    };
    theirs.print(&format!("{readobj} --notes ({threads} procs)"));
    println!(
        "ratio: oracle check is {:.1}x the speed of {readobj} --notes",
        theirs.time.as_secs_f64() / ours.time.as_secs_f64().max(1e-9)
    );
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
