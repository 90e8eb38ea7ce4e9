//! Finding and mapping input files.
//!
//! Inputs are judged from their metadata before anything is opened: a FIFO
//! (or socket, or device) is refused with its name rather than opened, so
//! it cannot hang `check`, `explain` or `bench`; and the same file reached
//! twice (a `libX.so.N` symlink next to `libX.so.N.M`, a hard link, a path
//! named twice) is checked once.

use memmap2::Mmap;
use std::collections::HashMap;
use std::fs::{FileType, OpenOptions};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
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

impl Bytes {
    /// Tells the kernel this process is done with `range` of the file for
    /// now: its pages leave the process's resident set (they stay in the
    /// page cache; touching them again faults them back in unchanged). So
    /// resident memory follows the objects being checked, not the size of
    /// the library.
    ///
    /// The pages up to [`FAULT_AROUND`] bytes before `range` go too: a
    /// page fault maps the cached pages around the faulting one, so
    /// reading an object maps again the end of the object before it,
    /// already released. Released only range by range, a library of small
    /// objects (a few KB each) stayed resident almost whole. (Where the
    /// page cache holds the file in large folios, a fault may map a whole
    /// folio; what stays is then bounded by the folio size, not the file.)
    pub fn release(&self, range: std::ops::Range<usize>) {
        if let Bytes::Mapped(m) = self {
            let range = range.start.saturating_sub(FAULT_AROUND)..range.end;
            if range.start < range.end && range.end <= m.len() {
                // SAFETY: the map is private and read-only, so dropping its
                // pages loses nothing: the next access reads the same bytes
                // from the file again. A failure only means the pages stay.
                #[allow(unsafe_code)]
                let _ = unsafe {
                    m.unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        range.start,
                        range.end - range.start,
                    )
                };
            }
        }
    }
}

/// How far before a faulting page Linux may map cached pages of a file
/// mapping (`fault_around_bytes`, 64 KiB by default).
const FAULT_AROUND: usize = 64 << 10;

/// What kind of non-regular file a path is, for messages.
fn kind_name(t: FileType) -> &'static str {
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Opens and maps a regular file, with an error message naming it. Any
/// other kind of file is refused from its metadata, before it is opened.
pub fn map(path: &Path) -> Result<Bytes, String> {
    map_reason(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// [`map`], with an error message that does not repeat the path.
pub fn map_reason(path: &Path) -> Result<Bytes, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot stat: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "{}, not a regular file",
            kind_name(meta.file_type())
        ));
    }
    // Non-blocking, so that a regular file swapped for a FIFO between the
    // check above and this open cannot block; the opened file is checked
    // again below.
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("cannot open: {e}"))?;
    let meta = f.metadata().map_err(|e| format!("cannot stat: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "{}, not a regular file",
            kind_name(meta.file_type())
        ));
    }
    if meta.len() == 0 {
        return Ok(Bytes::Empty);
    }
    // SAFETY: the map is read-only and private to this process. If another
    // process truncates the file while we read it, the OS may raise SIGBUS;
    // that is the usual contract of tools that map their inputs (llvm-readobj
    // does the same) and is preferable to copying gigabytes.
    #[allow(unsafe_code)]
    let m = unsafe { Mmap::map(&f) }.map_err(|e| format!("cannot map: {e}"))?;
    Ok(Bytes::Mapped(m))
}

/// One file to check, and whether the user named it (an explicit file that
/// holds no code object is an error; one found in a directory is skipped).
pub struct Input {
    /// The file.
    pub path: PathBuf,
    /// True if named on the command line rather than found in a directory.
    pub explicit: bool,
}

/// A path that could not be taken as an input, and why.
pub struct Problem {
    /// The path.
    pub path: PathBuf,
    /// Why, in a few words (the path is not repeated).
    pub reason: String,
}

/// The inputs named on a command line, expanded.
#[derive(Default)]
pub struct Inputs {
    /// Regular files to check, each file once, in command-line order
    /// (directories sorted, recursively).
    pub files: Vec<Input>,
    /// Paths that could not be examined or are not regular files, in the
    /// order met.
    pub problems: Vec<Problem>,
    /// Paths skipped because the same file (device and inode) was already
    /// listed under another path.
    pub duplicates: usize,
    /// Entries found in directories that cannot hold a code object: FIFOs,
    /// sockets, devices and dangling symlinks without a code object's name.
    pub skipped: usize,
}

/// True if the file name says it holds a code object (`.hsaco`, `.co`,
/// `.o`); `strict` leaves out `.o`, which is also the host objects' name.
pub fn named_like_code_object(path: &Path, strict: bool) -> bool {
    let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
        return false;
    };
    ["hsaco", "co"]
        .iter()
        .chain(if strict { &[][..] } else { &["o"][..] })
        .any(|want| ext.eq_ignore_ascii_case(want))
}

/// A file met while expanding, before duplicates are removed.
struct Candidate {
    input: Input,
    /// Device and inode of the file (of a symlink's target).
    id: (u64, u64),
    /// Reached through a symlink.
    via_symlink: bool,
}

/// Expands directories (recursively, sorted, not following symlinked
/// directories) into regular files, each file once. A file reached under
/// several paths keeps the path the user named, else one that is not a
/// symlink (`libX.so.N.M` rather than `libX.so.N`), else the first.
pub fn expand(paths: &[PathBuf]) -> Inputs {
    let mut out = Inputs::default();
    let mut found = Vec::new();
    for p in paths {
        match std::fs::metadata(p) {
            Err(e) => out.problems.push(Problem {
                path: p.clone(),
                reason: e.to_string(),
            }),
            Ok(m) if m.is_dir() => walk(p, &mut found, &mut out),
            Ok(m) if m.is_file() => found.push(Candidate {
                input: Input {
                    path: p.clone(),
                    explicit: true,
                },
                id: (m.dev(), m.ino()),
                via_symlink: std::fs::symlink_metadata(p).is_ok_and(|l| l.is_symlink()),
            }),
            Ok(m) => out.problems.push(Problem {
                path: p.clone(),
                reason: format!("{}, not a regular file", kind_name(m.file_type())),
            }),
        }
    }
    // The best path of each file, by rank (explicit, then not a symlink,
    // then first met).
    let rank = |c: &Candidate| (!c.input.explicit, c.via_symlink);
    let mut best: HashMap<(u64, u64), usize> = HashMap::with_capacity(found.len());
    for (i, c) in found.iter().enumerate() {
        best.entry(c.id)
            .and_modify(|b| {
                if rank(c) < rank(&found[*b]) {
                    *b = i;
                }
            })
            .or_insert(i);
    }
    out.duplicates = found.len() - best.len();
    out.files = found
        .into_iter()
        .enumerate()
        .filter(|(i, c)| best.get(&c.id) == Some(i))
        .map(|(_, c)| c.input)
        .collect();
    out
}

fn walk(dir: &Path, found: &mut Vec<Candidate>, out: &mut Inputs) {
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            out.problems.push(Problem {
                path: dir.to_owned(),
                reason: format!("cannot read directory: {e}"),
            });
            return;
        }
    };
    let mut paths = Vec::new();
    for e in entries {
        match e {
            Ok(e) => paths.push(e.path()),
            Err(e) => out.problems.push(Problem {
                path: dir.to_owned(),
                reason: format!("cannot read directory: {e}"),
            }),
        }
    }
    paths.sort();
    for p in paths {
        let link = match std::fs::symlink_metadata(&p) {
            Ok(m) => m,
            Err(e) => {
                out.problems.push(Problem {
                    path: p,
                    reason: format!("cannot stat: {e}"),
                });
                continue;
            }
        };
        if link.is_dir() {
            walk(&p, found, out);
            continue;
        }
        // A symlink is judged by its target (a symlink to a directory is
        // not followed, so link cycles cannot loop).
        let via_symlink = link.is_symlink();
        let meta = if via_symlink {
            std::fs::metadata(&p)
        } else {
            Ok(link)
        };
        match meta {
            Ok(m) if m.is_file() => found.push(Candidate {
                input: Input {
                    path: p,
                    explicit: false,
                },
                id: (m.dev(), m.ino()),
                via_symlink,
            }),
            Ok(m) if m.is_dir() => {}
            // Not a file a code object can be read from: named if its
            // name says it should be one, else skipped.
            Ok(m) if named_like_code_object(&p, false) => out.problems.push(Problem {
                path: p,
                reason: format!("{}, not a regular file", kind_name(m.file_type())),
            }),
            Err(e) if named_like_code_object(&p, false) => out.problems.push(Problem {
                path: p,
                reason: format!("dangling symlink: {e}"),
            }),
            _ => out.skipped += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn names_like_code_objects() {
        for (p, strict, loose) in [
            ("a.hsaco", true, true),
            ("dir/K.CO", true, true),
            ("x.o", false, true),
            ("lib.so", false, false),
            ("TensileLibrary.dat", false, false),
            ("hsaco", false, false),
        ] {
            assert_eq!(named_like_code_object(Path::new(p), true), strict, "{p}");
            assert_eq!(named_like_code_object(Path::new(p), false), loose, "{p}");
        }
    }

    #[test]
    fn links_are_checked_once_under_the_real_name() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("libx.so.1.2");
        std::fs::write(&real, b"x").unwrap();
        symlink("libx.so.1.2", d.path().join("libx.so.1")).unwrap();
        std::fs::hard_link(&real, d.path().join("z.hsaco")).unwrap();
        std::fs::write(d.path().join("other"), b"y").unwrap();
        let got = expand(&[d.path().to_owned()]);
        let names: Vec<_> = got
            .files
            .iter()
            .map(|i| i.path.file_name().unwrap().to_str().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["libx.so.1.2", "other"]);
        assert_eq!(got.duplicates, 2);
        assert!(got.problems.is_empty());
        // A path the user names wins over the one found in the directory,
        // even through a symlink.
        let got = expand(&[d.path().to_owned(), d.path().join("libx.so.1")]);
        let paths: Vec<_> = got.files.iter().map(|i| (&i.path, i.explicit)).collect();
        assert_eq!(
            paths,
            [
                (&d.path().join("other"), false),
                (&d.path().join("libx.so.1"), true)
            ]
        );
        assert_eq!(got.duplicates, 3);
    }
}
