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

use super::library::{self, symbol, LibraryError};

/// The target triple used for every disassembler.
pub const TRIPLE: &str = "amdgcn-amd-amdhsa";

/// Why a library or disassembler could not be had.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PeerError {
    /// The library could not be found or loaded, or lacks a function.
    Library(LibraryError),
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
            Self::Library(e) => e.fmt(f),
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

impl From<LibraryError> for PeerError {
    fn from(e: LibraryError) -> Self {
        Self::Library(e)
    }
}

/// An installed LLVM shared library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibInfo {
    /// LLVM major version, from the file name.
    pub version: u32,
    /// Path of the library.
    pub path: PathBuf,
}

/// Why a folder named in `LD_LIBRARY_PATH` or `PATH` is not searched
/// for peers: it belongs to a Rust toolchain (`~/.rustup/toolchains/*/lib`,
/// which holds rustc's private `libLLVM`, and its `rustlib` folders) or
/// to a cargo target folder. `cargo run` puts these in `LD_LIBRARY_PATH`;
/// skipping them makes `cargo run -- conform` find the peers the installed
/// program finds. Such a library is a peer only when named (`--peer`).
pub fn toolchain_private(dir: &Path) -> Option<&'static str> {
    let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    for d in [dir, real.as_path()] {
        let names: Vec<&str> = d
            .components()
            .filter_map(|c| c.as_os_str().to_str())
            .collect();
        if names.contains(&"rustlib")
            || names.windows(2).any(|w| w == [".rustup", "toolchains"])
            || d.join("rustlib").is_dir()
        {
            return Some("a Rust toolchain's folder");
        }
        let rustc_driver = std::fs::read_dir(d).is_ok_and(|rd| {
            rd.flatten().any(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|n| n.starts_with("librustc_driver-"))
            })
        });
        if rustc_driver {
            return Some("a Rust toolchain's folder");
        }
        // target/, target/debug, target/debug/deps: cargo writes
        // .rustc_info.json at the top of its target folder.
        if d.ancestors()
            .take(3)
            .any(|a| a.join(".rustc_info.json").is_file())
        {
            return Some("a cargo target folder");
        }
    }
    None
}

/// `LD_LIBRARY_PATH`'s folders, split into those searched and those
/// skipped ([`toolchain_private`], with why).
fn library_path() -> (Vec<PathBuf>, Vec<(PathBuf, &'static str)>) {
    let mut kept = Vec::new();
    let mut skipped = Vec::new();
    for d in std::env::var_os("LD_LIBRARY_PATH")
        .map(|v| std::env::split_paths(&v).collect::<Vec<_>>())
        .unwrap_or_default()
    {
        if d.as_os_str().is_empty() {
            continue;
        }
        // Absolute, so that reproducers name the library they used.
        let d = std::path::absolute(&d).unwrap_or(d);
        match toolchain_private(&d) {
            Some(why) => skipped.push((d, why)),
            None => kept.push(d),
        }
    }
    (kept, skipped)
}

/// Directories searched for `libLLVM`: `LD_LIBRARY_PATH` (without the
/// folders [`toolchain_private`] names), then the usual system library
/// directories (Debian's multiarch directory first).
pub fn default_dirs() -> Vec<PathBuf> {
    let mut dirs = library_path().0;
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

/// True for a file name of an LLVM shared library, versioned or not
/// (`libLLVM.so`, `libLLVM-19.so.1`, `libLLVM.so.22.1-rust-...`), not of
/// a component archive or library (`libLLVMCore.a`, `libLLVMSupport.so`).
pub fn is_llvm_library_name(file_name: &str) -> bool {
    file_name
        .strip_prefix("libLLVM")
        .is_some_and(|r| (r.starts_with('-') || r.starts_with(".so")) && r.contains(".so"))
}

/// The LLVM major version a library file name carries: `libLLVM-19.so`,
/// `libLLVM-14.so.1`, `libLLVM.so.19.1`, `libLLVM-17git.so`,
/// `libLLVM.so.20.0git`. Other names (`libLLVM.so.1`, which says nothing
/// about the version, or a toolchain's private `libLLVM-22-rust-1.95.0-
/// stable.so` and `libLLVM.so.22.1-rust-1.95.0-stable`) give `None`.
pub fn version_of(file_name: &str) -> Option<u32> {
    fn split(s: &str) -> Option<(u32, &str)> {
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let v = s.get(..end).filter(|d| !d.is_empty())?.parse().ok()?;
        Some((v, s.get(end..)?))
    }
    // `.1`, `.19.1`, `.0git`: dot-separated numbers, a development
    // build's `git` at the end.
    fn numbers(t: &str) -> bool {
        let t = t.strip_suffix("git").unwrap_or(t);
        t.split('.')
            .skip(1)
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            && (t.is_empty() || t.starts_with('.'))
    }
    if let Some(rest) = file_name.strip_prefix("libLLVM-") {
        let (v, tail) = split(rest)?;
        let tail = tail.strip_prefix("git").unwrap_or(tail);
        return numbers(tail.strip_prefix(".so")?).then_some(v);
    }
    // `libLLVM.so.MAJOR.MINOR`: at least two components, so that the
    // bare `libLLVM.so.1` soname link is not read as LLVM 1.
    let (v, tail) = split(file_name.strip_prefix("libLLVM.so.")?)?;
    (tail.starts_with('.') && numbers(tail)).then_some(v)
}

/// What a library's dynamic symbol table says about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibFacts {
    /// It defines `LLVMInitializeAMDGPUTargetInfo`: LLVM built with the
    /// AMDGPU target.
    pub amdgpu: bool,
    /// The LLVM major version of its symbol version definitions
    /// (`LLVM_19.1`, `LLVM_14`), when it has them.
    pub version: Option<u32>,
}

/// The symbol whose definition says a libLLVM has the AMDGPU target.
pub const AMDGPU_SYMBOL: &str = "LLVMInitializeAMDGPUTargetInfo";

/// Reads a shared library's dynamic symbol table and version definitions
/// (from the file, without loading it: loading would run its
/// initialisers): [`LibFacts`]. `Err` when it is not a 64-bit
/// little-endian ELF shared library with a dynamic symbol table.
pub fn probe_library(path: &Path) -> Result<LibFacts, String> {
    use hsaco_oracle::elf::{le_u16, le_u32, le_u64};
    use std::os::unix::fs::FileExt;
    let f = File::open(path).map_err(|e| e.to_string())?;
    let len = f.metadata().map_err(|e| e.to_string())?.len();
    let read = |off: u64, n: u64| -> Result<Vec<u8>, String> {
        // Tables of real libraries are a few MB; a bound keeps a hostile
        // header from asking for more than the file holds.
        if off.checked_add(n).is_none_or(|end| end > len) || n > 1 << 30 {
            return Err("not an ELF shared library (a table past the end of the file)".into());
        }
        let mut b = vec![0u8; usize::try_from(n).map_err(|e| e.to_string())?];
        f.read_exact_at(&mut b, off).map_err(|e| e.to_string())?;
        Ok(b)
    };
    let h = read(0, 64).map_err(|_| "not an ELF file (too short)".to_owned())?;
    if !h.starts_with(b"\x7fELF") || h.get(4) != Some(&2) || h.get(5) != Some(&1) {
        return Err("not a 64-bit little-endian ELF file".to_owned());
    }
    let bad = || "not an ELF shared library (unreadable header)".to_owned();
    let shoff = le_u64(&h, 40).ok_or_else(bad)?;
    let shnum = u64::from(le_u16(&h, 60).ok_or_else(bad)?);
    let shdrs = read(shoff, shnum * 64)?;
    // (type, offset, size, link) of each section.
    let sections: Vec<(u32, u64, u64, u32)> = shdrs
        .chunks_exact(64)
        .map(|c| {
            (
                le_u32(c, 4).unwrap_or(0),
                le_u64(c, 24).unwrap_or(0),
                le_u64(c, 32).unwrap_or(0),
                le_u32(c, 40).unwrap_or(0),
            )
        })
        .collect();
    const SHT_DYNSYM: u32 = 11;
    const SHT_GNU_VERDEF: u32 = 0x6fff_fffd;
    // A section's bytes and those of the string table it links to.
    type Table = (Vec<u8>, Vec<u8>);
    let table = |kind: u32| -> Result<Option<Table>, String> {
        let Some(&(_, off, size, link)) = sections.iter().find(|s| s.0 == kind) else {
            return Ok(None);
        };
        let &(_, soff, ssize, _) = sections
            .get(usize::try_from(link).unwrap_or(usize::MAX))
            .ok_or_else(bad)?;
        Ok(Some((read(off, size)?, read(soff, ssize)?)))
    };
    let (syms, strs) = table(SHT_DYNSYM)?.ok_or("no dynamic symbol table")?;
    let name = |t: &[u8], off: u32| -> Option<Vec<u8>> {
        let rest = t.get(usize::try_from(off).ok()?..)?;
        Some(rest.get(..rest.iter().position(|&b| b == 0)?)?.to_vec())
    };
    let amdgpu = syms.chunks_exact(24).any(|e| {
        // A defined symbol (st_shndx != SHN_UNDEF) of that name.
        le_u16(e, 6).is_some_and(|x| x != 0)
            && le_u32(e, 0).and_then(|n| name(&strs, n)).as_deref()
                == Some(AMDGPU_SYMBOL.as_bytes())
    });
    // Verdef entries: vd_flags (1: the file's own name), vd_aux, vd_next;
    // the first aux entry names the version.
    let mut version = None;
    if let Some((defs, strs)) = table(SHT_GNU_VERDEF)? {
        let mut at = 0usize;
        for _ in 0..4096 {
            let (Some(flags), Some(aux), Some(next)) = (
                le_u16(&defs, at + 2),
                le_u32(&defs, at + 12),
                le_u32(&defs, at + 16),
            ) else {
                break;
            };
            let text = le_u32(&defs, at + usize::try_from(aux).unwrap_or(usize::MAX))
                .and_then(|n| name(&strs, n))
                .and_then(|b| String::from_utf8(b).ok());
            let major = text
                .as_deref()
                .and_then(|t| t.strip_prefix("LLVM_"))
                .and_then(|t| t.split('.').next())
                .and_then(|m| m.parse::<u32>().ok());
            if flags & 1 == 0 && major.is_some() {
                version = major;
                break;
            }
            if next == 0 {
                break;
            }
            at += usize::try_from(next).unwrap_or(usize::MAX);
        }
    }
    Ok(LibFacts { amdgpu, version })
}

/// A library file that is not a peer, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The file.
    pub path: PathBuf,
    /// Why it is not a peer.
    pub reason: String,
}

/// Every LLVM shared library in `dirs` with the AMDGPU target, one per
/// major version (the first found wins), sorted by version; and the
/// versioned libraries passed over for lacking the AMDGPU target
/// ([`probe_library`]), which are not peers.
pub fn scan(dirs: &[PathBuf]) -> (Vec<LibInfo>, Vec<Skipped>) {
    let mut found: Vec<LibInfo> = Vec::new();
    let mut skipped: Vec<Skipped> = Vec::new();
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
            if found.iter().any(|f| f.version == l.version) {
                continue;
            }
            match probe_library(&l.path) {
                Ok(f) if f.amdgpu => found.push(l),
                Ok(_) => skipped.push(Skipped {
                    path: l.path,
                    reason: format!("no AMDGPU target (no {AMDGPU_SYMBOL})"),
                }),
                Err(why) => skipped.push(Skipped {
                    path: l.path,
                    reason: why,
                }),
            }
        }
    }
    found.sort_by_key(|l| l.version);
    (found, skipped)
}

/// Every LLVM shared library with the AMDGPU target in `dirs` ([`scan`]).
pub fn discover_in(dirs: &[PathBuf]) -> Vec<LibInfo> {
    scan(dirs).0
}

/// Every LLVM shared library with the AMDGPU target on this machine
/// ([`default_dirs`]).
pub fn discover() -> Vec<LibInfo> {
    discover_in(&default_dirs())
}

/// The LLVM libraries in the `LD_LIBRARY_PATH` folders
/// [`toolchain_private`] names: not peers unless named.
pub fn toolchain_libraries() -> Vec<Skipped> {
    let mut v = Vec::new();
    for (d, why) in library_path().1 {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut here: Vec<PathBuf> = rd
            .flatten()
            .filter(|e| e.file_name().to_str().is_some_and(is_llvm_library_name))
            .map(|e| e.path())
            .collect();
        here.sort();
        v.extend(here.into_iter().map(|path| Skipped {
            path,
            reason: format!(
                "found through LD_LIBRARY_PATH in {why} (not a peer unless named with --peer)"
            ),
        }));
    }
    v
}

/// The library of one LLVM major version.
pub fn find(version: u32) -> Result<LibInfo, PeerError> {
    let dirs = default_dirs();
    discover_in(&dirs)
        .into_iter()
        .find(|l| l.version == version)
        .ok_or(PeerError::Library(LibraryError::NotFound {
            name: format!("libLLVM-{version}.so"),
            install: format!("install Debian's libllvm{version} (or llvm-{version})"),
            searched: dirs,
        }))
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
    real: PathBuf,
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
        // One load per file: two builds of one LLVM version are two peers.
        let real = std::fs::canonicalize(&info.path).unwrap_or_else(|_| info.path.clone());
        if let Some(l) = loaded.iter().find(|l| l.real == real) {
            return Ok(l);
        }
        let path = &info.path;
        // SAFETY: loading runs the library's initialisers; libLLVM's only
        // register LLVM's own global tables.
        let lib = unsafe { library::load(path) }?;
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
            real,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolchain_and_cargo_folders_are_private() {
        let d = tempfile::tempdir().expect("tmp");
        let sysroot = d.path().join("toolchain");
        std::fs::create_dir_all(sysroot.join("lib/rustlib/x86_64-unknown-linux-gnu/lib"))
            .expect("mkdir");
        let target = d.path().join("proj/target");
        std::fs::create_dir_all(target.join("debug/deps")).expect("mkdir");
        std::fs::write(target.join(".rustc_info.json"), "{}").expect("write");
        let plain = d.path().join("opt/llvm/lib");
        std::fs::create_dir_all(&plain).expect("mkdir");
        for (dir, want) in [
            (sysroot.join("lib"), Some("a Rust toolchain's folder")),
            (
                sysroot.join("lib/rustlib/x86_64-unknown-linux-gnu/lib"),
                Some("a Rust toolchain's folder"),
            ),
            (target.join("debug"), Some("a cargo target folder")),
            (target.join("debug/deps"), Some("a cargo target folder")),
            (plain.clone(), None),
        ] {
            assert_eq!(toolchain_private(&dir), want, "{}", dir.display());
        }
        assert!(is_llvm_library_name("libLLVM.so"));
        assert!(is_llvm_library_name("libLLVM-22-rust-1.95.0-stable.so"));
        assert!(!is_llvm_library_name("libLLVMCore.a"));
        assert!(!is_llvm_library_name("libLLVMSupport.so"));
    }
}
