//! Loading a shared library and its C functions, for the peers that run
//! in this process (comgr, libLLVM): one error type, so that both say
//! "not found", "cannot load" and "has no function" the same way.

use std::fmt;
use std::path::{Path, PathBuf};

use libloading::Library;

/// Why a shared library or one of its functions could not be had.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LibraryError {
    /// No file of that name was found.
    NotFound {
        /// The file looked for (`libamd_comgr.so.2`, `libLLVM-18.so`).
        name: String,
        /// What to install to have it (`install Debian's ...`).
        install: String,
        /// Directories searched.
        searched: Vec<PathBuf>,
    },
    /// The library exists but could not be loaded.
    Load {
        /// The library.
        path: PathBuf,
        /// The loader's message.
        message: String,
    },
    /// A C API function is missing from the library.
    Symbol {
        /// The library.
        path: PathBuf,
        /// The missing function.
        symbol: &'static str,
    },
}

impl fmt::Display for LibraryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFound {
                name,
                install,
                searched,
            } => {
                write!(f, "{name} not found (searched")?;
                for d in searched {
                    write!(f, " {}", d.display())?;
                }
                write!(f, "); {install}, or add its directory to LD_LIBRARY_PATH")
            }
            Self::Load { path, message } => write!(f, "cannot load {}: {message}", path.display()),
            Self::Symbol { path, symbol } => {
                write!(f, "{} has no function {symbol}", path.display())
            }
        }
    }
}

impl std::error::Error for LibraryError {}

/// Loads the library at `path`.
///
/// # Safety
///
/// Loading runs the library's initialisers: the caller vouches that they
/// are safe to run in this process.
pub(crate) unsafe fn load(path: &Path) -> Result<Library, LibraryError> {
    // SAFETY: the caller's contract above.
    unsafe { Library::new(path) }.map_err(|e| LibraryError::Load {
        path: path.to_owned(),
        message: e.to_string(),
    })
}

/// The function `name` of `lib` (loaded from `path`), as the function
/// pointer type `T`, which must be the function's C signature: calling
/// the pointer is `unsafe` and relies on that.
pub(crate) fn symbol<T: Copy>(
    lib: &Library,
    path: &Path,
    name: &'static str,
) -> Result<T, LibraryError> {
    // SAFETY: `T` is the caller's declaration of the C function's type
    // (see above); only copying the pointer happens here.
    unsafe { lib.get::<T>(name.as_bytes()) }
        .map(|s| *s)
        .map_err(|_| LibraryError::Symbol {
            path: path.to_owned(),
            symbol: name,
        })
}
