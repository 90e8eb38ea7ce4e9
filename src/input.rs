//! Finding and mapping input files.

use memmap2::Mmap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// A file's bytes: memory-mapped, so a 1.3 GB host library costs no copy.
pub enum Bytes {
    /// A mapped file.
    Mapped(Mmap),
    /// An empty file (which cannot be mapped).
    Empty,
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Empty => &[],
        }
    }
}

/// Opens and maps a file, with an error message naming it.
pub fn map(path: &Path) -> Result<Bytes, String> {
    let f = File::open(path).map_err(|e| format!("{}: cannot open: {e}", path.display()))?;
    let meta = f
        .metadata()
        .map_err(|e| format!("{}: cannot stat: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{}: not a regular file", path.display()));
    }
    if meta.len() == 0 {
        return Ok(Bytes::Empty);
    }
    // SAFETY: the map is read-only and private to this process. If another
    // process truncates the file while we read it, the OS may raise SIGBUS;
    // that is the usual contract of tools that map their inputs (llvm-readobj
    // does the same) and is preferable to copying gigabytes.
    #[allow(unsafe_code)]
    let m = unsafe { Mmap::map(&f) }.map_err(|e| format!("{}: cannot map: {e}", path.display()))?;
    Ok(Bytes::Mapped(m))
}

/// One path to check, and whether the user named it (an explicit file that
/// holds no code object is an error; one found in a directory is skipped).
pub struct Input {
    /// The file.
    pub path: PathBuf,
    /// True if named on the command line rather than found in a directory.
    pub explicit: bool,
}

/// Expands directories (recursively, sorted, not following symlinked
/// directories) into files. Errors name the path that could not be read.
pub fn expand(paths: &[PathBuf]) -> (Vec<Input>, Vec<String>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        match std::fs::metadata(p) {
            Err(e) => errors.push(format!("{}: {e}", p.display())),
            Ok(m) if m.is_dir() => walk(p, &mut out, &mut errors),
            Ok(_) => out.push(Input {
                path: p.clone(),
                explicit: true,
            }),
        }
    }
    (out, errors)
}

fn walk(dir: &Path, out: &mut Vec<Input>, errors: &mut Vec<String>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            errors.push(format!("{}: cannot read directory: {e}", dir.display()));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.is_dir() => walk(&p, out, errors),
            Ok(m) if m.is_file() => out.push(Input {
                path: p,
                explicit: false,
            }),
            // A symlink to a file is checked; one to a directory is not
            // followed, so link cycles cannot loop.
            Ok(m)
                if m.file_type().is_symlink()
                    && std::fs::metadata(&p).is_ok_and(|t| t.is_file()) =>
            {
                out.push(Input {
                    path: p,
                    explicit: false,
                })
            }
            _ => {}
        }
    }
}
