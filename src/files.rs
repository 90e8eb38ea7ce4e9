//! Writing files so that a reader never sees one half-written: through a
//! temporary file next to the target and a rename. The one place that
//! names temporary files (`.tmp-NAME-PID-N`), which `conform --out`
//! recognises as its own when it cleans up.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The temporary file [`write_atomic`] and [`write_durable`] use for
/// `path`: `.tmp-NAME-PID-N` in the same folder (a rename within one file
/// system is atomic), unique within this process.
pub fn temp_path(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    dir.join(format!(
        ".tmp-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Writes `bytes` to `path` so that `path` is absent, old or complete, but
/// without waiting for the disk: for files a run can write again (the
/// cases `gen` writes by the thousand).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write(path, bytes, false)
}

/// [`write_atomic`], and the data reaches the disk before the rename: for
/// files a later run relies on after a crash (`conform --out` state,
/// findings and reports).
pub fn write_durable(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write(path, bytes, true)
}

fn write(path: &Path, bytes: &[u8], sync: bool) -> std::io::Result<()> {
    let tmp = temp_path(path);
    let r = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        if sync {
            f.sync_all()?;
        }
        std::fs::rename(&tmp, path)
    })();
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_whole_files_and_leave_no_temporary() {
        let d = tempfile::tempdir().expect("temporary folder");
        let p = d.path().join("a.json");
        write_atomic(&p, b"{}").expect("write");
        write_durable(&p, b"[1]").expect("rewrite");
        assert_eq!(std::fs::read(&p).expect("read"), b"[1]");
        let names: Vec<_> = std::fs::read_dir(d.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("a.json")]);
        // A folder where the file should be: the error names no temporary
        // left behind.
        let dirp = d.path().join("sub");
        std::fs::create_dir(&dirp).expect("mkdir");
        assert!(write_atomic(&dirp, b"x").is_err());
        assert_eq!(std::fs::read_dir(d.path()).expect("list").count(), 2);
    }

    #[test]
    fn temporary_names_are_unique_and_shaped_for_cleanup() {
        let a = temp_path(Path::new("out/x.json"));
        let b = temp_path(Path::new("out/x.json"));
        assert_ne!(a, b);
        let name = a.file_name().and_then(|n| n.to_str()).expect("name");
        let pid = std::process::id().to_string();
        assert!(name.starts_with(&format!(".tmp-x.json-{pid}-")), "{name}");
        assert_eq!(a.parent(), Some(Path::new("out")));
    }
}
