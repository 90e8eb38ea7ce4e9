//! In-process cost of `check`'s layers on real code objects, one thread,
//! best of N runs: the symbol table (read and kernels found), the metadata
//! notes (every rule, owned model or not) and the whole check without
//! per-kernel detail. For measuring a change to one layer of the oracle
//! without the process, thread pool and report of `hsaco-conform bench`.
//!
//! ```sh
//! cargo bench --bench check -- [--repeat N] [--only PHASE] PATH...
//! ```
//!
//! PATH is a code object, a container `check` reads (offload bundle, host
//! binary) or a directory, searched recursively; every code object found
//! is read into memory before timing. PHASE is one of `symbols`,
//! `metadata`, `check`. Without a PATH the rocBLAS Tensile library that
//! `scripts/realworld` unpacks is used when present. Wall time on a busy
//! machine varies; for exact comparisons count instructions instead
//! (`valgrind --tool=callgrind target/release/deps/check-* --only check
//! --repeat 1 PATH`).

use hsaco_oracle::check::{check_object_with, Detail};
use hsaco_oracle::targets::TargetId;
use hsaco_oracle::{container, elf, metadata, notes, symbols, Sink};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The rocBLAS Tensile library as `scripts/realworld` unpacks it by
/// default (970 standalone code objects, one metadata note per kernel).
const DEFAULT_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/target/realworld/root/librocblas4_6.4.4-4_amd64/usr/lib/x86_64-linux-gnu/rocblas/4.4.1/library"
);

fn files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let Ok(rd) = std::fs::read_dir(path) else {
            return;
        };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| Some(e.ok()?.path())).collect();
        entries.sort();
        for e in entries {
            files(&e, out);
        }
    } else if path.is_file() {
        out.push(path.to_owned());
    }
}

/// Every code object in `paths`, its bytes owned (compressed bundles
/// unpacked).
fn objects(paths: &[PathBuf]) -> Vec<Vec<u8>> {
    let mut all = Vec::new();
    for p in paths {
        files(p, &mut all);
    }
    let mut out = Vec::new();
    for f in all {
        let Ok(bytes) = std::fs::read(&f) else {
            continue;
        };
        container::scan(&bytes).for_each(container::DEFAULT_UNPACK_LIMIT, &mut |v| {
            if let container::Visit::Members(ms) = v {
                out.extend(ms.iter().map(|m| m.data.to_vec()));
            }
        });
    }
    out
}

fn best(repeat: u32, f: &mut dyn FnMut()) -> Duration {
    (0..repeat)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let mut repeat = 5u32;
    let mut only: Option<String> = None;
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--repeat" => repeat = args.next().and_then(|n| n.parse().ok()).unwrap_or(repeat),
            "--only" => only = args.next(),
            // Passed by `cargo bench`.
            "--bench" => {}
            _ => paths.push(PathBuf::from(a)),
        }
    }
    if paths.is_empty() {
        if !Path::new(DEFAULT_PATH).is_dir() {
            println!(
                "no PATH given and {DEFAULT_PATH} is absent (scripts/realworld unpacks it): nothing to measure"
            );
            return;
        }
        paths.push(PathBuf::from(DEFAULT_PATH));
    }
    let objs = objects(&paths);
    let bytes: usize = objs.iter().map(Vec::len).sum();
    println!(
        "{} code objects, {:.1} MB, best of {repeat}",
        objs.len(),
        bytes as f64 / 1e6
    );
    let run = |name: &str| only.as_deref().is_none_or(|o| o == name);
    if run("symbols") {
        let t = best(repeat, &mut || {
            for o in &objs {
                let mut sink = Sink::new();
                if let Some(e) = elf::Elf::parse(o, &mut sink) {
                    let table = symbols::Table::read(&e, &mut sink);
                    std::hint::black_box(table.kernels(&e, &mut sink));
                }
            }
        });
        println!(
            "  symbol table (read, kernels)        {:8.3} s",
            t.as_secs_f64()
        );
    }
    if run("metadata") {
        let t = best(repeat, &mut || {
            for o in &objs {
                let mut sink = Sink::new();
                let Some(e) = elf::Elf::parse(o, &mut sink) else {
                    continue;
                };
                let Some(cov) = e.cov else { continue };
                let ctx = metadata::Context {
                    cov,
                    target_id: TargetId::from_e_flags(e.header.flags, cov).ok(),
                };
                for n in notes::read(&e, &mut sink)
                    .iter()
                    .filter(|n| n.name == "AMDGPU" && n.n_type == notes::NT_AMDGPU_METADATA)
                {
                    std::hint::black_box(metadata::check(n.desc, n.desc_offset, &ctx, &mut sink));
                }
            }
        });
        println!(
            "  metadata notes (owned model)        {:8.3} s",
            t.as_secs_f64()
        );
    }
    if run("check") {
        let t = best(repeat, &mut || {
            for o in &objs {
                std::hint::black_box(check_object_with(o, Detail::Violations));
            }
        });
        println!(
            "  whole check (without detail)        {:8.3} s",
            t.as_secs_f64()
        );
    }
}
