//! `explain` streams: its peak memory does not grow with the number of
//! code objects it explains (issue 30: on a whole ROCm library it held
//! every object's text, 680 MB, until the end).

mod support;

use std::io::Write;
use std::process::{Command, Stdio};

use hsaco_conform::measure::run_one;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hsaco-conform"))
}

/// Peak resident set of `explain FILE`, output discarded.
fn explain_rss(file: &std::path::Path) -> u64 {
    let mut c = bin();
    c.arg("explain")
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let (run, code) = run_one(&mut c).unwrap();
    assert_eq!(code, 0, "explain {}", file.display());
    run.max_rss
}

/// This process's own peak resident set, in bytes (`VmHWM`).
fn own_peak() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb * 1024
}

#[test]
fn explain_memory_does_not_grow_with_the_input() {
    const SMALL: usize = 50;
    const LARGE: usize = 3000;
    let dir = tempfile::tempdir().unwrap();
    let o = bin()
        .args(["gen", "--seed", "1", "--count", &LARGE.to_string(), "--out"])
        .arg(dir.path().join("gen"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let objects: Vec<(String, std::path::PathBuf)> = (0..LARGE)
        .map(|i| {
            (
                format!("hipv4-amdgcn-amd-amdhsa--gfx900-{i}"),
                dir.path().join(format!("gen/1-{i:06}.elf")),
            )
        })
        .collect();
    // The bundles are written object by object, and the text goes to a
    // file: a child's peak RSS starts at its parent's (Linux copies the
    // high-water mark at exec), so this process must stay small.
    let bundle = |n: usize| {
        let heads: Vec<(&str, u64)> = objects[..n]
            .iter()
            .map(|(id, p)| (id.as_str(), std::fs::metadata(p).unwrap().len()))
            .collect();
        let path = dir.path().join(format!("{n}.bundle"));
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        support::ccob::write_bundle(&mut f, &heads, &mut |i, w| {
            w.write_all(&std::fs::read(&objects[i].1)?)
        })
        .unwrap();
        f.flush().unwrap();
        path
    };
    let (small, large) = (bundle(SMALL), bundle(LARGE));
    let text = dir.path().join("large.txt");
    let st = bin()
        .arg("explain")
        .arg(&large)
        .stdout(std::fs::File::create(&text).unwrap())
        .status()
        .unwrap();
    assert!(st.success());
    let text_len = std::fs::metadata(&text).unwrap().len();
    let input_len = std::fs::metadata(&large).unwrap().len();
    let (small_rss, large_rss) = (explain_rss(&small), explain_rss(&large));
    let parent = own_peak();
    assert!(
        small_rss > parent,
        "explain's figure ({small_rss} bytes) is this test's own peak ({parent}), not explain's"
    );
    // Sixty times the objects may cost a little more (allocator arenas, the
    // member list, the file's pages around the one being read: up to a
    // large folio of the page cache either side), but not the text (held
    // until the end, the peak grew by more than its size) nor the input.
    let growth = large_rss.saturating_sub(small_rss);
    assert!(
        growth < input_len / 2,
        "explain's peak RSS grew from {small_rss} bytes ({SMALL} objects) to {large_rss} \
         ({LARGE} objects; a {input_len}-byte bundle, {text_len} bytes of text)"
    );
}
