//! LLVM's AMDGPU disassembler, in-process, through the LLVM C API of an
//! installed `libLLVM-NN.so` loaded at run time (no LLVM headers or link
//! step, so the project builds on machines without LLVM).
//!
//! Use: [`discover`] lists the libraries on the machine, [`LlvmLib::open`]
//! loads one version (once per process; it is never unloaded, as LLVM's
//! global state does not survive `dlclose`), [`LlvmLib::disassembler`]
//! makes a [`Disassembler`] for one processor, and
//! [`Disassembler::disassemble`] decodes one instruction at a time.
//!
//! LLVM aborts the whole process (`report_fatal_error`, "Disassembly not
//! yet supported for subtarget") when asked for a disassembler for a
//! processor it does not know or for GFX6/GFX7, so
//! [`LlvmLib::disassembler`] first asks the library's own target parser
//! (`llvm::AMDGPU::getIsaVersion`) and refuses those processors. Anything
//! else that crashes LLVM still takes the process down: callers that must
//! survive run the disassembler in a child process and leave a
//! [`Breadcrumb`] saying which word was being decoded.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::{Mutex, OnceLock};

use libloading::Library;

/// The target triple used for every disassembler.
pub const TRIPLE: &str = "amdgcn-amd-amdhsa";

/// Why a library or disassembler could not be had.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PeerError {
    /// No `libLLVM-NN.so` of that version was found.
    NotFound {
        /// LLVM major version asked for.
        version: u32,
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
    /// The library does not know the processor (LLVM would abort).
    UnknownProcessor {
        /// LLVM major version.
        version: u32,
        /// The processor.
        cpu: String,
    },
    /// The processor predates GFX8, which LLVM's disassembler does not
    /// support (it aborts).
    Unsupported {
        /// LLVM major version.
        version: u32,
        /// The processor.
        cpu: String,
        /// Its ISA major version as LLVM reports it.
        major: u32,
    },
    /// `LLVMCreateDisasmCPU` returned null.
    Create {
        /// LLVM major version.
        version: u32,
        /// The processor.
        cpu: String,
    },
}

impl fmt::Display for PeerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFound { version, searched } => {
                write!(f, "libLLVM-{version}.so not found (searched")?;
                for d in searched {
                    write!(f, " {}", d.display())?;
                }
                write!(
                    f,
                    "); install Debian's libllvm{version} (or llvm-{version}), or add its directory to LD_LIBRARY_PATH"
                )
            }
            Self::Load { path, message } => write!(f, "cannot load {}: {message}", path.display()),
            Self::Symbol { path, symbol } => {
                write!(f, "{} has no function {symbol}", path.display())
            }
            Self::UnknownProcessor { version, cpu } => {
                write!(f, "LLVM {version} does not know the processor {cpu}")
            }
            Self::Unsupported {
                version,
                cpu,
                major,
            } => write!(
                f,
                "LLVM {version} cannot disassemble for {cpu} (GFX{major}; its disassembler starts at GFX8)"
            ),
            Self::Create { version, cpu } => {
                write!(f, "LLVM {version}: LLVMCreateDisasmCPU failed for {cpu}")
            }
        }
    }
}

impl std::error::Error for PeerError {}

/// An installed LLVM shared library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibInfo {
    /// LLVM major version, from the file name.
    pub version: u32,
    /// Path of the library.
    pub path: PathBuf,
}

/// Directories searched for `libLLVM`: `LD_LIBRARY_PATH`, then the usual
/// system library directories (Debian's multiarch directory first).
pub fn default_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("LD_LIBRARY_PATH")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    for d in [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
        "/usr/local/lib",
    ] {
        dirs.push(PathBuf::from(d));
    }
    // /usr/lib/llvm-NN/lib, newest last (sorted by name is enough: the
    // version is read from each file's name anyway).
    if let Ok(rd) = std::fs::read_dir("/usr/lib") {
        let mut llvm: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("llvm-"))
            })
            .map(|p| p.join("lib"))
            .collect();
        llvm.sort();
        dirs.extend(llvm);
    }
    dirs
}

/// The LLVM major version a library file name carries: `libLLVM-19.so`,
/// `libLLVM-14.so.1`, `libLLVM.so.19.1`, `libLLVM-17git.so`. Other names
/// (`libLLVM.so.1`, which says nothing about the version, or a
/// toolchain's private `libLLVM-22-rust-1.95.0-stable.so`) give `None`.
pub fn version_of(file_name: &str) -> Option<u32> {
    fn split(s: &str) -> Option<(u32, &str)> {
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let v = s.get(..end).filter(|d| !d.is_empty())?.parse().ok()?;
        Some((v, s.get(end..)?))
    }
    if let Some(rest) = file_name.strip_prefix("libLLVM-") {
        let (v, tail) = split(rest)?;
        let tail = tail.strip_prefix("git").unwrap_or(tail);
        return (tail == ".so" || tail.starts_with(".so.")).then_some(v);
    }
    // `libLLVM.so.MAJOR.MINOR`: at least two components, so that the
    // bare `libLLVM.so.1` soname link is not read as LLVM 1.
    let (v, tail) = split(file_name.strip_prefix("libLLVM.so.")?)?;
    tail.starts_with('.').then_some(v)
}

/// Every LLVM shared library in `dirs`, one per major version (the first
/// found wins), sorted by version.
pub fn discover_in(dirs: &[PathBuf]) -> Vec<LibInfo> {
    let mut found: Vec<LibInfo> = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else {
            continue;
        };
        let mut here: Vec<LibInfo> = rd
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name();
                let version = version_of(name.to_str()?)?;
                Some(LibInfo {
                    version,
                    path: e.path(),
                })
            })
            .collect();
        // Shortest name first: `libLLVM-19.so` before `libLLVM-19.so.1`.
        here.sort_by_key(|l| (l.version, l.path.as_os_str().len()));
        for l in here {
            if !found.iter().any(|f| f.version == l.version) {
                found.push(l);
            }
        }
    }
    found.sort_by_key(|l| l.version);
    found
}

/// Every LLVM shared library on this machine ([`default_dirs`]).
pub fn discover() -> Vec<LibInfo> {
    discover_in(&default_dirs())
}

/// The library of one LLVM major version.
pub fn find(version: u32) -> Result<LibInfo, PeerError> {
    let dirs = default_dirs();
    discover_in(&dirs)
        .into_iter()
        .find(|l| l.version == version)
        .ok_or(PeerError::NotFound {
            version,
            searched: dirs,
        })
}

type InitFn = unsafe extern "C" fn();
type CreateFn = unsafe extern "C" fn(
    triple: *const c_char,
    cpu: *const c_char,
    dis_info: *mut c_void,
    tag_type: c_int,
    get_op_info: *const c_void,
    symbol_lookup: *const c_void,
) -> *mut c_void;
type DisposeFn = unsafe extern "C" fn(dc: *mut c_void);
type DisasmFn = unsafe extern "C" fn(
    dc: *mut c_void,
    bytes: *mut u8,
    size: u64,
    pc: u64,
    out: *mut c_char,
    out_size: usize,
) -> usize;

/// `llvm::AMDGPU::IsaVersion`.
#[repr(C)]
#[derive(Clone, Copy)]
struct IsaVersion {
    major: u32,
    minor: u32,
    stepping: u32,
}

/// `llvm::AMDGPU::getIsaVersion(StringRef)`: a C++ function taking a
/// 16-byte trivially copyable struct (pointer, length) by value, which the
/// x86-64 System V and AArch64 procedure call standards pass exactly like
/// two integer arguments, and returning a 12-byte struct in registers.
type IsaVersionFn = unsafe extern "C" fn(data: *const c_char, len: usize) -> IsaVersion;
const ISA_VERSION_SYMBOL: &str = "_ZN4llvm6AMDGPU13getIsaVersionENS_9StringRefE";

/// One loaded LLVM library with the AMDGPU target initialised.
pub struct LlvmLib {
    info: LibInfo,
    create: CreateFn,
    dispose: DisposeFn,
    disasm: DisasmFn,
    isa_version: Option<IsaVersionFn>,
    // Kept so the symbols above stay valid; never dropped (the value lives
    // in a leaked box).
    _lib: Library,
}

impl fmt::Debug for LlvmLib {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlvmLib").field("info", &self.info).finish()
    }
}

fn symbol<T: Copy>(lib: &Library, path: &Path, name: &'static str) -> Result<T, PeerError> {
    // SAFETY: every caller names a function of the LLVM C API (or the one
    // C++ function above) with the signature given by `T`.
    unsafe { lib.get::<T>(name.as_bytes()) }
        .map(|s| *s)
        .map_err(|_| PeerError::Symbol {
            path: path.to_owned(),
            symbol: name,
        })
}

impl LlvmLib {
    /// Loads the library of LLVM `version` (found with [`find`]), once
    /// per process.
    pub fn open(version: u32) -> Result<&'static LlvmLib, PeerError> {
        Self::load(&find(version)?)
    }

    /// Loads a library (once per process and version) and initialises
    /// LLVM's AMDGPU target, its MC layer and its disassembler.
    pub fn load(info: &LibInfo) -> Result<&'static LlvmLib, PeerError> {
        static LOADED: OnceLock<Mutex<Vec<&'static LlvmLib>>> = OnceLock::new();
        let mut loaded = LOADED
            .get_or_init(|| Mutex::new(Vec::new()))
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(l) = loaded.iter().find(|l| l.info.version == info.version) {
            return Ok(l);
        }
        let path = &info.path;
        // SAFETY: loading runs the library's initialisers; libLLVM's only
        // register LLVM's own global tables.
        let lib = unsafe { Library::new(path) }.map_err(|e| PeerError::Load {
            path: path.clone(),
            message: e.to_string(),
        })?;
        for name in [
            "LLVMInitializeAMDGPUTargetInfo",
            "LLVMInitializeAMDGPUTargetMC",
            "LLVMInitializeAMDGPUDisassembler",
        ] {
            let init: InitFn = symbol(&lib, path, name)?;
            // SAFETY: these take no arguments and only register the target
            // in LLVM's registry; we hold the loader lock, so no other
            // thread initialises the same library at once.
            unsafe { init() };
        }
        let l = LlvmLib {
            info: info.clone(),
            create: symbol(&lib, path, "LLVMCreateDisasmCPU")?,
            dispose: symbol(&lib, path, "LLVMDisasmDispose")?,
            disasm: symbol(&lib, path, "LLVMDisasmInstruction")?,
            isa_version: if cfg!(all(
                unix,
                any(target_arch = "x86_64", target_arch = "aarch64")
            )) {
                symbol(&lib, path, ISA_VERSION_SYMBOL).ok()
            } else {
                None
            },
            _lib: lib,
        };
        let l: &'static LlvmLib = Box::leak(Box::new(l));
        loaded.push(l);
        Ok(l)
    }

    /// The library's version and path.
    pub fn info(&self) -> &LibInfo {
        &self.info
    }

    /// LLVM major version.
    pub fn version(&self) -> u32 {
        self.info.version
    }

    /// The ISA version (major, minor, stepping) LLVM gives the processor:
    /// `Some(None)` when it does not know the name, `None` when this
    /// library cannot be asked (no `getIsaVersion`, or a platform whose
    /// calling convention the binding does not cover).
    pub fn isa_version(&self, cpu: &str) -> Option<Option<(u32, u32, u32)>> {
        let f = self.isa_version?;
        // SAFETY: `getIsaVersion` reads `len` bytes at `data` and returns
        // a value; see `IsaVersionFn` for the calling convention.
        let v = unsafe { f(cpu.as_ptr().cast(), cpu.len()) };
        Some((v.major != 0).then_some((v.major, v.minor, v.stepping)))
    }

    /// True when LLVM knows the processor; `None` when it cannot be asked.
    pub fn knows_processor(&self, cpu: &str) -> Option<bool> {
        self.isa_version(cpu).map(|v| v.is_some())
    }

    /// A disassembler for `cpu`. Refuses processors LLVM does not know
    /// and GFX6/GFX7, for which LLVM would abort the process. When the
    /// library cannot be asked ([`LlvmLib::isa_version`] is `None`), it
    /// goes ahead; an unknown processor then aborts the process.
    pub fn disassembler(&'static self, cpu: &str) -> Result<Disassembler, PeerError> {
        let version = self.info.version;
        match self.isa_version(cpu) {
            Some(None) => {
                return Err(PeerError::UnknownProcessor {
                    version,
                    cpu: cpu.to_owned(),
                })
            }
            Some(Some((major, _, _))) if major < 8 => {
                return Err(PeerError::Unsupported {
                    version,
                    cpu: cpu.to_owned(),
                    major,
                })
            }
            _ => {}
        }
        let create_err = || PeerError::Create {
            version,
            cpu: cpu.to_owned(),
        };
        let triple = CString::new(TRIPLE).map_err(|_| create_err())?;
        let c_cpu = CString::new(cpu).map_err(|_| create_err())?;
        // SAFETY: NUL-terminated strings that outlive the call; no
        // callbacks (null), which LLVM allows.
        let dc = unsafe {
            (self.create)(
                triple.as_ptr(),
                c_cpu.as_ptr(),
                std::ptr::null_mut(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        let ctx = NonNull::new(dc).ok_or_else(create_err)?;
        Ok(Disassembler {
            lib: self,
            ctx,
            cpu: cpu.to_owned(),
            buf: vec![0; 1024].into_boxed_slice(),
        })
    }
}

/// LLVM's disassembler for one processor. Not shared between threads
/// (LLVM's context is not thread-safe); make one per thread.
pub struct Disassembler {
    lib: &'static LlvmLib,
    ctx: NonNull<c_void>,
    cpu: String,
    buf: Box<[u8]>,
}

// SAFETY: an LLVM disassembler context may move to another thread; it is
// only ever used by one thread at a time (`disassemble` takes `&mut self`).
unsafe impl Send for Disassembler {}

impl fmt::Debug for Disassembler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Disassembler")
            .field("llvm", &self.lib.info.version)
            .field("cpu", &self.cpu)
            .finish()
    }
}

impl Disassembler {
    /// The processor.
    pub fn cpu(&self) -> &str {
        &self.cpu
    }

    /// LLVM major version.
    pub fn version(&self) -> u32 {
        self.lib.info.version
    }

    /// Disassembles the first instruction in `bytes` (address 0): its
    /// size and text (leading and trailing whitespace removed), or `None`
    /// when LLVM calls the bytes invalid.
    pub fn disassemble(&mut self, bytes: &[u8]) -> Option<(usize, &str)> {
        // LLVM takes a mutable pointer but only reads; copy to be sure.
        let mut input = [0u8; 16];
        let n = bytes.len().min(input.len());
        input.get_mut(..n)?.copy_from_slice(bytes.get(..n)?);
        // SAFETY: `input` holds `n` readable bytes, `buf` is writable for
        // its whole length and LLVM writes at most `buf.len()` bytes
        // including the terminating NUL.
        let size = unsafe {
            (self.lib.disasm)(
                self.ctx.as_ptr(),
                input.as_mut_ptr(),
                n as u64,
                0,
                self.buf.as_mut_ptr().cast(),
                self.buf.len(),
            )
        };
        if size == 0 {
            return None;
        }
        let text = CStr::from_bytes_until_nul(&self.buf).ok()?.to_str().ok()?;
        Some((size, text.trim()))
    }
}

impl Drop for Disassembler {
    fn drop(&mut self) {
        // SAFETY: the context came from LLVMCreateDisasmCPU of the same
        // library and is disposed once.
        unsafe { (self.lib.dispose)(self.ctx.as_ptr()) };
    }
}

/// A file-backed record of the word being decoded, updated without a
/// system call before each call into LLVM, so that the parent of a
/// worker that crashed inside LLVM can say which word did it.
///
/// Layout (little-endian u64s): magic, index, word, done flag.
pub struct Breadcrumb {
    map: memmap2::MmapMut,
}

const BREADCRUMB_MAGIC: u64 = 0x6872_756d_6263_7262; // "brcbmurh"
const BREADCRUMB_LEN: usize = 32;

/// What a [`Breadcrumb`] file says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crumb {
    /// Index of the word (0-based) last handed to LLVM.
    pub index: u64,
    /// The word.
    pub word: u64,
    /// True once the worker has finished.
    pub done: bool,
}

impl Breadcrumb {
    /// Creates (or truncates) the file and maps it.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let f = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        f.set_len(BREADCRUMB_LEN as u64)?;
        // SAFETY: the file was just created by us at a fixed size; other
        // processes only read it (see `read`), so the mapping never
        // shrinks under us.
        let mut map = unsafe { memmap2::MmapMut::map_mut(&f) }?;
        if let Some(m) = map.get_mut(0..8) {
            m.copy_from_slice(&BREADCRUMB_MAGIC.to_le_bytes());
        }
        Ok(Self { map })
    }

    /// Records that word number `index` is about to be decoded.
    #[inline]
    pub fn set(&mut self, index: u64, word: u64) {
        if let Some(m) = self.map.get_mut(8..24) {
            let (a, b) = m.split_at_mut(8);
            a.copy_from_slice(&index.to_le_bytes());
            b.copy_from_slice(&word.to_le_bytes());
        }
        // Keep the stores before the call into LLVM that may crash.
        std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
    }

    /// Records that the worker finished.
    pub fn finish(&mut self) {
        if let Some(m) = self.map.get_mut(24..32) {
            m.copy_from_slice(&1u64.to_le_bytes());
        }
        let _ = self.map.flush();
    }

    /// Reads a breadcrumb file written by another process.
    pub fn read(path: &Path) -> Option<Crumb> {
        let b = std::fs::read(path).ok()?;
        let u = |k: usize| -> Option<u64> {
            Some(u64::from_le_bytes(b.get(k..k + 8)?.try_into().ok()?))
        };
        (u(0)? == BREADCRUMB_MAGIC).then_some(())?;
        Some(Crumb {
            index: u(8)?,
            word: u(16)?,
            done: u(24)? == 1,
        })
    }
}
