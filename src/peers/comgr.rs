//! ROCm's code object manager (comgr, `libamd_comgr.so.2`), loaded at run
//! time through its documented C API (no ROCm headers or link step, so the
//! project builds on machines without ROCm).
//!
//! Use: [`Comgr::open`] loads the library once per process,
//! [`Comgr::code_object`] copies an object's bytes into a comgr data
//! object ([`Data`]), and [`Data::isa_name`], [`Data::metadata`],
//! [`Data::metadata_get`], [`Data::symbols`] and [`Data::symbol`] read
//! it. Every handle comgr gives out is released by a `Drop`, and every
//! status is checked: a failure becomes [`ComgrError::Call`] naming the
//! C function.
//!
//! # Conventions of the comgr this was written against
//!
//! Debian's `libamd-comgr2` 5.2.3 (interface version 2.4), which is built
//! on Debian's `libLLVM-15.so.1` (its ELF and MessagePack readers are
//! LLVM 15's). What it does, checked on the test fixtures
//! (`tests/comgr.rs`) and on hand-made notes (`fuzz/src/comgr_metadata.rs`):
//!
//! * Metadata nodes are maps, lists or strings: every scalar comes back as
//!   a string ([`ComgrMeta::String`]). Integers print in decimal;
//!   MessagePack booleans print as `1` / `0` (comgr's "integer booleans"
//!   rule for MessagePack notes), YAML booleans of code object V2 as
//!   `true` / `false`; `nil` prints as the empty string; floats print in
//!   LLVM's `raw_ostream` double format (`%e`).
//!   [`super::compare_meta::expected_scalar`] encodes these rules.
//! * Map entries come back sorted (LLVM's `msgpack::Document` keeps maps
//!   in a `std::map`), not in wire order; a repeated key makes the
//!   document unreadable.
//! * Several `NT_AMDGPU_METADATA` notes are merged (their `amdhsa.kernels`
//!   are concatenated) when their `amdhsa.version` agree (comgr's source;
//!   [`super::compare_meta`] does not compare such objects).
//! * A relocatable object's symbols are those of `.symtab`, an
//!   executable's those of `.dynsym`; the null symbol is left out.
//! * The ISA name is built from `e_flags` with a mach table frozen at
//!   ROCm 5.2 (see `tests/comgr.rs` for which objects it names).

use std::ffi::{c_char, c_int, c_void};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libloading::Library;

use super::library::{self, symbol, LibraryError};

/// File names tried, in order: the interface 2 library this binding was
/// written for, then the unversioned development link.
pub const LIBRARY_NAMES: [&str; 2] = ["libamd_comgr.so.2", "libamd_comgr.so"];

/// Deepest metadata nesting converted ([`ComgrError::TooDeep`] beyond):
/// real metadata nests five levels; the bound keeps the recursion of the
/// conversion finite on hostile notes.
pub const MAX_DEPTH: usize = 256;

/// A comgr status code (`amd_comgr_status_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Status(pub u32);

impl Status {
    /// `AMD_COMGR_STATUS_SUCCESS`.
    pub const SUCCESS: Status = Status(0);
    /// `AMD_COMGR_STATUS_ERROR`: a generic error (also "no such key" or
    /// "no such symbol" for the lookups).
    pub const ERROR: Status = Status(1);
    /// `AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT`.
    pub const INVALID_ARGUMENT: Status = Status(2);
    /// `AMD_COMGR_STATUS_ERROR_OUT_OF_RESOURCES`.
    pub const OUT_OF_RESOURCES: Status = Status(3);

    /// The status's name as the header spells it, without the
    /// `AMD_COMGR_STATUS_` prefix.
    pub fn name(self) -> &'static str {
        match self.0 {
            0 => "SUCCESS",
            1 => "ERROR",
            2 => "ERROR_INVALID_ARGUMENT",
            3 => "ERROR_OUT_OF_RESOURCES",
            _ => "unknown status",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.0)
    }
}

/// Why comgr could not be had, or what a call into it reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ComgrError {
    /// The library could not be found or loaded, or lacks a function.
    Library(LibraryError),
    /// A C API call returned a status other than success.
    Call {
        /// The C function.
        call: &'static str,
        /// What it returned.
        status: Status,
    },
    /// comgr reported a size larger than anything the input could produce
    /// (the binding does not allocate it).
    TooLarge {
        /// The C function that reported it.
        call: &'static str,
        /// The size.
        size: u64,
    },
    /// The metadata nests deeper than [`MAX_DEPTH`], or holds more nodes
    /// than the object has bytes.
    TooDeep {
        /// The depth or node count reached.
        at: usize,
    },
    /// A metadata node of a kind the API does not define.
    UnknownKind {
        /// The kind number comgr returned.
        kind: u32,
    },
}

impl fmt::Display for ComgrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Library(e) => e.fmt(f),
            Self::Call { call, status } => write!(f, "{call} returned {status}"),
            Self::TooLarge { call, size } => {
                write!(f, "{call} reported an implausible size {size}")
            }
            Self::TooDeep { at } => write!(
                f,
                "metadata nests deeper than {MAX_DEPTH} levels or has more nodes than the object has bytes (at {at})"
            ),
            Self::UnknownKind { kind } => write!(f, "metadata node of unknown kind {kind}"),
        }
    }
}

impl std::error::Error for ComgrError {}

impl From<LibraryError> for ComgrError {
    fn from(e: LibraryError) -> Self {
        Self::Library(e)
    }
}

/// The kind of a data object (`amd_comgr_data_kind_t`), for the kinds this
/// binding creates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataKind {
    /// `AMD_COMGR_DATA_KIND_RELOCATABLE` (7): an `ET_REL` object.
    Relocatable,
    /// `AMD_COMGR_DATA_KIND_EXECUTABLE` (8): a loadable (`ET_DYN`) object.
    Executable,
}

impl DataKind {
    fn raw(self) -> c_int {
        match self {
            DataKind::Relocatable => 7,
            DataKind::Executable => 8,
        }
    }

    /// The kind for an object's bytes: relocatable when `e_type` (bytes
    /// 16-17, little-endian) is `ET_REL`, executable otherwise.
    pub fn of(bytes: &[u8]) -> DataKind {
        match bytes.get(16..18) {
            Some([1, 0]) => DataKind::Relocatable,
            _ => DataKind::Executable,
        }
    }
}

/// A metadata tree as comgr presents it: maps, lists and strings (every
/// scalar is a string; see the module docs for how values print).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ComgrMeta {
    /// `AMD_COMGR_METADATA_KIND_NULL`.
    Null,
    /// `AMD_COMGR_METADATA_KIND_STRING`: the bytes, without the
    /// terminating NUL comgr adds.
    String(Vec<u8>),
    /// `AMD_COMGR_METADATA_KIND_LIST`.
    List(Vec<ComgrMeta>),
    /// `AMD_COMGR_METADATA_KIND_MAP`, entries in the order comgr iterates
    /// them (sorted by key).
    Map(Vec<(ComgrMeta, ComgrMeta)>),
}

impl ComgrMeta {
    /// The string, if this is a string node holding UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            ComgrMeta::String(s) => std::str::from_utf8(s).ok(),
            _ => None,
        }
    }

    /// The value of the first entry whose key is the string `key`, if
    /// this is a map.
    pub fn get(&self, key: &str) -> Option<&ComgrMeta> {
        match self {
            ComgrMeta::Map(m) => m
                .iter()
                .find(|(k, _)| matches!(k, ComgrMeta::String(s) if s == key.as_bytes()))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// A short name of the node's kind, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ComgrMeta::Null => "null",
            ComgrMeta::String(_) => "string",
            ComgrMeta::List(_) => "list",
            ComgrMeta::Map(_) => "map",
        }
    }
}

/// Compact text form: strings quoted (lossy UTF-8), lists in brackets,
/// maps in braces.
impl fmt::Display for ComgrMeta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ComgrMeta::Null => write!(f, "null"),
            ComgrMeta::String(s) => write!(f, "{:?}", String::from_utf8_lossy(s)),
            ComgrMeta::List(l) => {
                write!(f, "[")?;
                for (i, e) in l.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{e}")?;
                }
                write!(f, "]")
            }
            ComgrMeta::Map(m) => {
                write!(f, "{{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                write!(f, "}}")
            }
        }
    }
}

/// One symbol of a code object, as `amd_comgr_symbol_get_info` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolInfo {
    /// `AMD_COMGR_SYMBOL_INFO_NAME` (bytes; ELF names need not be UTF-8).
    pub name: Vec<u8>,
    /// `AMD_COMGR_SYMBOL_INFO_TYPE`: `amd_comgr_symbol_type_t` (-1
    /// unknown, 0 notype, 1 object, 2 func, 3 section, 4 file, 5 common,
    /// 10 `STT_AMDGPU_HSA_KERNEL`).
    pub sym_type: i32,
    /// `AMD_COMGR_SYMBOL_INFO_SIZE`.
    pub size: u64,
    /// `AMD_COMGR_SYMBOL_INFO_IS_UNDEFINED`.
    pub is_undefined: bool,
    /// `AMD_COMGR_SYMBOL_INFO_VALUE`.
    pub value: u64,
}

impl SymbolInfo {
    /// The name as text (lossy UTF-8).
    pub fn name_lossy(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }
}

/// `amd_comgr_data_t`, `amd_comgr_metadata_node_t`, `amd_comgr_symbol_t`:
/// each a struct of one `uint64_t`, passed and returned by value.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct Handle {
    handle: u64,
}

type RawStatus = u32;
type GetVersionFn = unsafe extern "C" fn(major: *mut usize, minor: *mut usize);
type CreateDataFn = unsafe extern "C" fn(kind: c_int, data: *mut Handle) -> RawStatus;
type ReleaseDataFn = unsafe extern "C" fn(data: Handle) -> RawStatus;
type SetDataFn = unsafe extern "C" fn(data: Handle, size: usize, bytes: *const c_char) -> RawStatus;
type GetIsaNameFn =
    unsafe extern "C" fn(data: Handle, size: *mut usize, name: *mut c_char) -> RawStatus;
type GetDataMetadataFn = unsafe extern "C" fn(data: Handle, node: *mut Handle) -> RawStatus;
type DestroyMetadataFn = unsafe extern "C" fn(node: Handle) -> RawStatus;
type GetMetadataKindFn = unsafe extern "C" fn(node: Handle, kind: *mut c_int) -> RawStatus;
type GetMetadataStringFn =
    unsafe extern "C" fn(node: Handle, size: *mut usize, string: *mut c_char) -> RawStatus;
type GetSizeFn = unsafe extern "C" fn(node: Handle, size: *mut usize) -> RawStatus;
type MapCallback =
    unsafe extern "C" fn(key: Handle, value: Handle, user_data: *mut c_void) -> RawStatus;
type IterateMapFn =
    unsafe extern "C" fn(node: Handle, callback: MapCallback, user_data: *mut c_void) -> RawStatus;
type MetadataLookupFn =
    unsafe extern "C" fn(node: Handle, key: *const c_char, value: *mut Handle) -> RawStatus;
type IndexListFn =
    unsafe extern "C" fn(node: Handle, index: usize, value: *mut Handle) -> RawStatus;
type SymbolCallback = unsafe extern "C" fn(symbol: Handle, user_data: *mut c_void) -> RawStatus;
type IterateSymbolsFn = unsafe extern "C" fn(
    data: Handle,
    callback: SymbolCallback,
    user_data: *mut c_void,
) -> RawStatus;
type SymbolLookupFn =
    unsafe extern "C" fn(data: Handle, name: *const c_char, symbol: *mut Handle) -> RawStatus;
type SymbolGetInfoFn =
    unsafe extern "C" fn(symbol: Handle, attribute: c_int, value: *mut c_void) -> RawStatus;

// `amd_comgr_metadata_kind_t`.
const KIND_NULL: c_int = 0;
const KIND_STRING: c_int = 1;
const KIND_MAP: c_int = 2;
const KIND_LIST: c_int = 3;

// `amd_comgr_symbol_info_t`.
const INFO_NAME_LENGTH: c_int = 0;
const INFO_NAME: c_int = 1;
const INFO_TYPE: c_int = 2;
const INFO_SIZE: c_int = 3;
const INFO_IS_UNDEFINED: c_int = 4;
const INFO_VALUE: c_int = 5;

/// The loaded library.
pub struct Comgr {
    path: PathBuf,
    version: (usize, usize),
    create_data: CreateDataFn,
    release_data: ReleaseDataFn,
    set_data: SetDataFn,
    get_isa_name: GetIsaNameFn,
    get_data_metadata: GetDataMetadataFn,
    destroy_metadata: DestroyMetadataFn,
    get_metadata_kind: GetMetadataKindFn,
    get_metadata_string: GetMetadataStringFn,
    get_map_size: GetSizeFn,
    iterate_map: IterateMapFn,
    metadata_lookup: MetadataLookupFn,
    get_list_size: GetSizeFn,
    index_list: IndexListFn,
    iterate_symbols: IterateSymbolsFn,
    symbol_lookup: SymbolLookupFn,
    symbol_get_info: SymbolGetInfoFn,
    // Kept so the functions above stay valid; never dropped (the value
    // lives in a leaked box: comgr, like the LLVM it is built on, keeps
    // global state that does not survive `dlclose`).
    _lib: Library,
}

impl fmt::Debug for Comgr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Comgr")
            .field("path", &self.path)
            .field("version", &self.version)
            .finish()
    }
}

/// Directories searched for comgr: those of [`super::llvm_disasm::default_dirs`]
/// (`LD_LIBRARY_PATH`, the system library directories) and ROCm's
/// `/opt/rocm/lib`.
pub fn default_dirs() -> Vec<PathBuf> {
    let mut dirs = super::llvm_disasm::default_dirs();
    dirs.push(PathBuf::from("/opt/rocm/lib"));
    dirs
}

/// The comgr library in `dirs`: the first directory holding one of
/// [`LIBRARY_NAMES`] (in that order of preference).
pub fn find_in(dirs: &[PathBuf]) -> Result<PathBuf, ComgrError> {
    for d in dirs {
        for n in LIBRARY_NAMES {
            let p = d.join(n);
            if p.is_file() {
                return Ok(p);
            }
        }
    }
    Err(ComgrError::Library(LibraryError::NotFound {
        name: LIBRARY_NAMES[0].into(),
        install: "install Debian's libamd-comgr2 or ROCm".into(),
        searched: dirs.to_vec(),
    }))
}

/// The comgr library on this machine ([`default_dirs`]).
pub fn find() -> Result<PathBuf, ComgrError> {
    find_in(&default_dirs())
}

fn check(call: &'static str, status: RawStatus) -> Result<(), ComgrError> {
    if status == Status::SUCCESS.0 {
        Ok(())
    } else {
        Err(ComgrError::Call {
            call,
            status: Status(status),
        })
    }
}

impl Comgr {
    /// Loads the comgr found by [`find`], once per process.
    pub fn open() -> Result<&'static Comgr, ComgrError> {
        static OPENED: OnceLock<Result<&'static Comgr, ComgrError>> = OnceLock::new();
        OPENED.get_or_init(|| Self::load_new(&find()?)).clone()
    }

    /// Loads the library at `path` (a new load each call: use [`open`]
    /// for the shared one).
    ///
    /// [`open`]: Comgr::open
    pub fn load(path: &Path) -> Result<&'static Comgr, ComgrError> {
        Self::load_new(path)
    }

    fn load_new(path: &Path) -> Result<&'static Comgr, ComgrError> {
        // SAFETY: loading runs the library's initialisers, which only set
        // up comgr's and LLVM's own global tables.
        let lib = unsafe { library::load(path) }?;
        let get_version: GetVersionFn = symbol(&lib, path, "amd_comgr_get_version")?;
        let (mut major, mut minor) = (0usize, 0usize);
        // SAFETY: writes two size_t through valid pointers.
        unsafe { get_version(&mut major, &mut minor) };
        let c = Comgr {
            path: path.to_owned(),
            version: (major, minor),
            create_data: symbol(&lib, path, "amd_comgr_create_data")?,
            release_data: symbol(&lib, path, "amd_comgr_release_data")?,
            set_data: symbol(&lib, path, "amd_comgr_set_data")?,
            get_isa_name: symbol(&lib, path, "amd_comgr_get_data_isa_name")?,
            get_data_metadata: symbol(&lib, path, "amd_comgr_get_data_metadata")?,
            destroy_metadata: symbol(&lib, path, "amd_comgr_destroy_metadata")?,
            get_metadata_kind: symbol(&lib, path, "amd_comgr_get_metadata_kind")?,
            get_metadata_string: symbol(&lib, path, "amd_comgr_get_metadata_string")?,
            get_map_size: symbol(&lib, path, "amd_comgr_get_metadata_map_size")?,
            iterate_map: symbol(&lib, path, "amd_comgr_iterate_map_metadata")?,
            metadata_lookup: symbol(&lib, path, "amd_comgr_metadata_lookup")?,
            get_list_size: symbol(&lib, path, "amd_comgr_get_metadata_list_size")?,
            index_list: symbol(&lib, path, "amd_comgr_index_list_metadata")?,
            iterate_symbols: symbol(&lib, path, "amd_comgr_iterate_symbols")?,
            symbol_lookup: symbol(&lib, path, "amd_comgr_symbol_lookup")?,
            symbol_get_info: symbol(&lib, path, "amd_comgr_symbol_get_info")?,
            _lib: lib,
        };
        Ok(Box::leak(Box::new(c)))
    }

    /// Path of the loaded library.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The interface version (`amd_comgr_get_version`): (major, minor).
    pub fn version(&self) -> (usize, usize) {
        self.version
    }

    /// A data object of `kind` holding a copy of `bytes`.
    pub fn data(&'static self, kind: DataKind, bytes: &[u8]) -> Result<Data, ComgrError> {
        let mut h = Handle::default();
        // SAFETY: writes one handle through a valid pointer.
        check("amd_comgr_create_data", unsafe {
            (self.create_data)(kind.raw(), &mut h)
        })?;
        // From here the handle is released by `Data`'s drop, also on error.
        let d = Data {
            lib: self,
            handle: h,
            kind,
            len: bytes.len(),
        };
        // SAFETY: `bytes` is readable for its length; comgr copies it.
        check("amd_comgr_set_data", unsafe {
            (self.set_data)(h, bytes.len(), bytes.as_ptr().cast())
        })?;
        Ok(d)
    }

    /// A data object for a code object, its kind chosen from `e_type`
    /// ([`DataKind::of`]).
    pub fn code_object(&'static self, bytes: &[u8]) -> Result<Data, ComgrError> {
        self.data(DataKind::of(bytes), bytes)
    }
}

/// A comgr data object; released on drop.
pub struct Data {
    lib: &'static Comgr,
    handle: Handle,
    kind: DataKind,
    /// Length of the bytes given: bounds every size comgr reports back.
    len: usize,
}

impl fmt::Debug for Data {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Data")
            .field("kind", &self.kind)
            .field("len", &self.len)
            .finish()
    }
}

impl Drop for Data {
    fn drop(&mut self) {
        // SAFETY: the handle came from amd_comgr_create_data of the same
        // library and is released once. A failure cannot be reported from
        // a drop and leaves nothing to clean up.
        let _ = unsafe { (self.lib.release_data)(self.handle) };
    }
}

/// A metadata node handle this binding owns; destroyed on drop.
struct Node<'c> {
    lib: &'c Comgr,
    handle: Handle,
}

impl Drop for Node<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle came from the same library, is owned by us
        // (not one lent to a map-iteration callback) and destroyed once.
        let _ = unsafe { (self.lib.destroy_metadata)(self.handle) };
    }
}

/// State of a metadata conversion: the node budget left and the first
/// error (callbacks cannot return one).
struct Walk<'c> {
    lib: &'c Comgr,
    budget: usize,
    error: Option<ComgrError>,
}

/// State of one map iteration.
struct MapState<'w, 'c> {
    walk: &'w mut Walk<'c>,
    depth: usize,
    entries: Vec<(ComgrMeta, ComgrMeta)>,
}

unsafe extern "C" fn map_entry(key: Handle, value: Handle, user_data: *mut c_void) -> RawStatus {
    // SAFETY: `user_data` is the `MapState` that `convert_map` passed to
    // amd_comgr_iterate_map_metadata, alive and not otherwise borrowed for
    // the duration of that call. Nothing here panics (no unwinding across
    // the C frame).
    let st = unsafe { &mut *user_data.cast::<MapState<'_, '_>>() };
    let k = st.walk.convert(key, st.depth);
    let v = k.and_then(|k| Some((k, st.walk.convert(value, st.depth)?)));
    match v {
        Some(e) => {
            st.entries.push(e);
            Status::SUCCESS.0
        }
        // Stop the iteration; the error is in `walk.error`.
        None => Status::ERROR.0,
    }
}

impl<'c> Walk<'c> {
    fn fail(&mut self, e: ComgrError) -> Option<ComgrMeta> {
        if self.error.is_none() {
            self.error = Some(e);
        }
        None
    }

    /// Converts the node `h` (not taking ownership of it) and everything
    /// below it. `None` after recording an error in `self.error`.
    fn convert(&mut self, h: Handle, depth: usize) -> Option<ComgrMeta> {
        if depth > MAX_DEPTH || self.budget == 0 {
            return self.fail(ComgrError::TooDeep { at: depth });
        }
        self.budget -= 1;
        let lib = self.lib;
        let mut kind: c_int = -1;
        // SAFETY: valid node handle; writes one int.
        let st = unsafe { (lib.get_metadata_kind)(h, &mut kind) };
        if let Err(e) = check("amd_comgr_get_metadata_kind", st) {
            return self.fail(e);
        }
        match kind {
            KIND_NULL => Some(ComgrMeta::Null),
            KIND_STRING => {
                let mut size = 0usize;
                // SAFETY: a null buffer asks for the size only.
                let st = unsafe { (lib.get_metadata_string)(h, &mut size, std::ptr::null_mut()) };
                if let Err(e) = check("amd_comgr_get_metadata_string", st) {
                    return self.fail(e);
                }
                if size > self.budget.saturating_add(4096) {
                    return self.fail(ComgrError::TooLarge {
                        call: "amd_comgr_get_metadata_string",
                        size: size as u64,
                    });
                }
                let mut buf = vec![0u8; size];
                // SAFETY: `buf` is writable for `size` bytes, the size comgr
                // asked for; it copies at most that many.
                let st =
                    unsafe { (lib.get_metadata_string)(h, &mut size, buf.as_mut_ptr().cast()) };
                if let Err(e) = check("amd_comgr_get_metadata_string", st) {
                    return self.fail(e);
                }
                // The size counts the terminating NUL; embedded NULs stay.
                if buf.last() == Some(&0) {
                    buf.pop();
                }
                Some(ComgrMeta::String(buf))
            }
            KIND_LIST => {
                let mut n = 0usize;
                // SAFETY: valid node; writes one size_t.
                let st = unsafe { (lib.get_list_size)(h, &mut n) };
                if let Err(e) = check("amd_comgr_get_metadata_list_size", st) {
                    return self.fail(e);
                }
                if n > self.budget {
                    return self.fail(ComgrError::TooLarge {
                        call: "amd_comgr_get_metadata_list_size",
                        size: n as u64,
                    });
                }
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    let mut e = Handle::default();
                    // SAFETY: valid node, index below its size; writes one
                    // handle, which we then own.
                    let st = unsafe { (lib.index_list)(h, i, &mut e) };
                    if let Err(err) = check("amd_comgr_index_list_metadata", st) {
                        return self.fail(err);
                    }
                    let owned = Node { lib, handle: e };
                    out.push(self.convert(owned.handle, depth + 1)?);
                }
                Some(ComgrMeta::List(out))
            }
            KIND_MAP => {
                let mut n = 0usize;
                // SAFETY: valid node; writes one size_t.
                let st = unsafe { (lib.get_map_size)(h, &mut n) };
                if let Err(e) = check("amd_comgr_get_metadata_map_size", st) {
                    return self.fail(e);
                }
                let mut state = MapState {
                    walk: self,
                    depth: depth + 1,
                    entries: Vec::with_capacity(n.min(64)),
                };
                // SAFETY: `map_entry` matches the callback type and treats
                // `user_data` as the `MapState` passed here, which lives
                // across the call.
                let st = unsafe {
                    (lib.iterate_map)(h, map_entry, (&mut state as *mut MapState<'_, '_>).cast())
                };
                let entries = state.entries;
                if self.error.is_some() {
                    return None;
                }
                if let Err(e) = check("amd_comgr_iterate_map_metadata", st) {
                    return self.fail(e);
                }
                Some(ComgrMeta::Map(entries))
            }
            other => self.fail(ComgrError::UnknownKind { kind: other as u32 }),
        }
    }
}

/// State of a symbol iteration.
struct SymState<'c> {
    lib: &'c Comgr,
    limit: usize,
    symbols: Vec<SymbolInfo>,
    error: Option<ComgrError>,
}

unsafe extern "C" fn symbol_entry(sym: Handle, user_data: *mut c_void) -> RawStatus {
    // SAFETY: `user_data` is the `SymState` that `Data::symbols` passed to
    // amd_comgr_iterate_symbols, alive for that call. Nothing here panics.
    let st = unsafe { &mut *user_data.cast::<SymState<'_>>() };
    match symbol_info(st.lib, sym, st.limit) {
        Ok(i) => {
            st.symbols.push(i);
            Status::SUCCESS.0
        }
        Err(e) => {
            st.error = Some(e);
            Status::ERROR.0
        }
    }
}

/// Reads every attribute of a symbol; `limit` bounds the name length.
fn symbol_info(lib: &Comgr, sym: Handle, limit: usize) -> Result<SymbolInfo, ComgrError> {
    const CALL: &str = "amd_comgr_symbol_get_info";
    let get_u64 = |attr: c_int| -> Result<u64, ComgrError> {
        let mut v = 0u64;
        // SAFETY: these attributes are uint64_t; `v` has room for one.
        check(CALL, unsafe {
            (lib.symbol_get_info)(sym, attr, (&mut v as *mut u64).cast())
        })?;
        Ok(v)
    };
    let len = get_u64(INFO_NAME_LENGTH)?;
    if len > limit as u64 {
        return Err(ComgrError::TooLarge {
            call: CALL,
            size: len,
        });
    }
    // The name attribute is written with its terminating NUL.
    let mut name = vec![0u8; len as usize + 1];
    // SAFETY: `name` has room for the name and its NUL.
    check(CALL, unsafe {
        (lib.symbol_get_info)(sym, INFO_NAME, name.as_mut_ptr().cast())
    })?;
    name.truncate(len as usize);
    let mut ty: c_int = 0;
    // SAFETY: the type attribute is an enum (int).
    check(CALL, unsafe {
        (lib.symbol_get_info)(sym, INFO_TYPE, (&mut ty as *mut c_int).cast())
    })?;
    // The undefined flag is a C bool (one byte); a zeroed u64 leaves room
    // to spare and reads back its first byte.
    let mut undef = [0u8; 8];
    // SAFETY: `undef` has room for a bool.
    check(CALL, unsafe {
        (lib.symbol_get_info)(sym, INFO_IS_UNDEFINED, undef.as_mut_ptr().cast())
    })?;
    Ok(SymbolInfo {
        name,
        sym_type: ty,
        size: get_u64(INFO_SIZE)?,
        is_undefined: undef[0] != 0,
        value: get_u64(INFO_VALUE)?,
    })
}

impl Data {
    /// The kind the object was created with.
    pub fn kind(&self) -> DataKind {
        self.kind
    }

    /// `amd_comgr_get_data_isa_name`: the ISA name comgr derives (from
    /// `e_flags` for V3+, from the ISA note for V2).
    pub fn isa_name(&self) -> Result<String, ComgrError> {
        const CALL: &str = "amd_comgr_get_data_isa_name";
        let mut size = 0usize;
        // SAFETY: a null buffer asks for the size only.
        check(CALL, unsafe {
            (self.lib.get_isa_name)(self.handle, &mut size, std::ptr::null_mut())
        })?;
        if size > 4096 {
            return Err(ComgrError::TooLarge {
                call: CALL,
                size: size as u64,
            });
        }
        let mut buf = vec![0u8; size];
        // SAFETY: `buf` is writable for `size` bytes.
        check(CALL, unsafe {
            (self.lib.get_isa_name)(self.handle, &mut size, buf.as_mut_ptr().cast())
        })?;
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        buf.truncate(end);
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }

    fn root(&self) -> Result<Node<'static>, ComgrError> {
        let mut h = Handle::default();
        // SAFETY: writes one handle, which we then own.
        check("amd_comgr_get_data_metadata", unsafe {
            (self.lib.get_data_metadata)(self.handle, &mut h)
        })?;
        Ok(Node {
            lib: self.lib,
            handle: h,
        })
    }

    fn walk(&self) -> Walk<'static> {
        Walk {
            lib: self.lib,
            // Every MessagePack or YAML node takes at least one byte of
            // the object, except the zeros LLVM reads past the end of a
            // truncated note (`compare_meta::MD_TRUNCATED_ZERO`; the model
            // gives up after 65,536 of them).
            budget: self.len.saturating_add(70_000),
            error: None,
        }
    }

    /// `amd_comgr_get_data_metadata`: the whole metadata tree.
    pub fn metadata(&self) -> Result<ComgrMeta, ComgrError> {
        let root = self.root()?;
        let mut w = self.walk();
        match w.convert(root.handle, 0) {
            Some(m) => Ok(m),
            None => Err(w.error.unwrap_or(ComgrError::TooDeep { at: 0 })),
        }
    }

    /// `amd_comgr_metadata_lookup` on the root map: the value of `key`, or
    /// `None` when comgr says the map has no such key (status `ERROR`).
    pub fn metadata_get(&self, key: &str) -> Result<Option<ComgrMeta>, ComgrError> {
        const CALL: &str = "amd_comgr_metadata_lookup";
        let root = self.root()?;
        let Ok(c_key) = std::ffi::CString::new(key) else {
            return Ok(None);
        };
        let mut h = Handle::default();
        // SAFETY: valid node, NUL-terminated key; writes one handle.
        let st = unsafe { (self.lib.metadata_lookup)(root.handle, c_key.as_ptr(), &mut h) };
        if st == Status::ERROR.0 {
            return Ok(None);
        }
        check(CALL, st)?;
        let node = Node {
            lib: self.lib,
            handle: h,
        };
        let mut w = self.walk();
        match w.convert(node.handle, 1) {
            Some(m) => Ok(Some(m)),
            None => Err(w.error.unwrap_or(ComgrError::TooDeep { at: 1 })),
        }
    }

    /// `amd_comgr_iterate_symbols`: every symbol, in comgr's order.
    pub fn symbols(&self) -> Result<Vec<SymbolInfo>, ComgrError> {
        let mut st = SymState {
            lib: self.lib,
            limit: self.len,
            symbols: Vec::new(),
            error: None,
        };
        // SAFETY: `symbol_entry` matches the callback type and treats
        // `user_data` as the `SymState` passed here, which lives across the
        // call.
        let status = unsafe {
            (self.lib.iterate_symbols)(
                self.handle,
                symbol_entry,
                (&mut st as *mut SymState<'_>).cast(),
            )
        };
        if let Some(e) = st.error {
            return Err(e);
        }
        check("amd_comgr_iterate_symbols", status)?;
        Ok(st.symbols)
    }

    /// `amd_comgr_symbol_lookup`: the symbol named `name`, or `None` when
    /// comgr has none (status `ERROR`).
    pub fn symbol(&self, name: &str) -> Result<Option<SymbolInfo>, ComgrError> {
        let Ok(c_name) = std::ffi::CString::new(name) else {
            return Ok(None);
        };
        let mut h = Handle::default();
        // SAFETY: NUL-terminated name; writes one symbol handle (owned by
        // the data object, which outlives this call).
        let st = unsafe { (self.lib.symbol_lookup)(self.handle, c_name.as_ptr(), &mut h) };
        if st == Status::ERROR.0 {
            return Ok(None);
        }
        check("amd_comgr_symbol_lookup", st)?;
        symbol_info(self.lib, h, self.len).map(Some)
    }
}

/// Everything comgr says about one code object, each part with its own
/// success or error (comgr refusing one part does not hide the others).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComgrView {
    /// [`Data::isa_name`].
    pub isa_name: Result<String, ComgrError>,
    /// [`Data::metadata`].
    pub metadata: Result<ComgrMeta, ComgrError>,
    /// [`Data::symbols`].
    pub symbols: Result<Vec<SymbolInfo>, ComgrError>,
    /// For every symbol [`Data::symbols`] listed, what [`Data::symbol`]
    /// finds under its name (in the same order).
    pub lookups: Vec<Result<Option<SymbolInfo>, ComgrError>>,
    /// What [`Data::metadata_get`] finds for each key of the root map
    /// (in the order of [`ComgrView::metadata`]'s root entries), so that
    /// lookup and iteration can be compared.
    pub root_lookups: Vec<(String, Result<Option<ComgrMeta>, ComgrError>)>,
}

/// Reads everything comgr offers about `bytes` (a code object). `Err` only
/// when comgr will not even create the data object.
pub fn view(lib: &'static Comgr, bytes: &[u8]) -> Result<ComgrView, ComgrError> {
    let d = lib.code_object(bytes)?;
    let metadata = d.metadata();
    let symbols = d.symbols();
    let lookups = match &symbols {
        Ok(s) => s
            .iter()
            .map(|s| match std::str::from_utf8(&s.name) {
                Ok(n) => d.symbol(n),
                // The lookup takes a C string: names that are not UTF-8 or
                // hold a NUL are looked up as bytes would not round-trip.
                Err(_) => Ok(None),
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    let root_lookups = match &metadata {
        Ok(ComgrMeta::Map(m)) => m
            .iter()
            .filter_map(|(k, _)| {
                let k = k.as_str()?;
                (!k.contains('\0')).then(|| (k.to_owned(), d.metadata_get(k)))
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(ComgrView {
        isa_name: d.isa_name(),
        metadata,
        symbols,
        lookups,
        root_lookups,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_kind_follows_e_type() {
        let mut b = vec![0u8; 64];
        b[16] = 1;
        assert_eq!(DataKind::of(&b), DataKind::Relocatable);
        b[16] = 3;
        assert_eq!(DataKind::of(&b), DataKind::Executable);
        assert_eq!(DataKind::of(&[]), DataKind::Executable);
    }

    #[test]
    fn statuses_are_named() {
        assert_eq!(Status(2).to_string(), "ERROR_INVALID_ARGUMENT (2)");
        assert_eq!(Status(9).name(), "unknown status");
        let e = ComgrError::Call {
            call: "amd_comgr_get_data_isa_name",
            status: Status::INVALID_ARGUMENT,
        };
        assert_eq!(
            e.to_string(),
            "amd_comgr_get_data_isa_name returned ERROR_INVALID_ARGUMENT (2)"
        );
    }

    #[test]
    fn find_in_prefers_the_versioned_name() {
        let d = tempfile::tempdir().expect("tempdir");
        let dirs = vec![d.path().to_path_buf()];
        assert!(matches!(
            find_in(&dirs),
            Err(ComgrError::Library(LibraryError::NotFound { .. }))
        ));
        std::fs::write(d.path().join("libamd_comgr.so"), b"").expect("write");
        assert_eq!(find_in(&dirs), Ok(d.path().join("libamd_comgr.so")));
        std::fs::write(d.path().join("libamd_comgr.so.2"), b"").expect("write");
        assert_eq!(find_in(&dirs), Ok(d.path().join("libamd_comgr.so.2")));
    }

    #[test]
    fn meta_display_and_get() {
        let m = ComgrMeta::Map(vec![
            (
                ComgrMeta::String(b"a".to_vec()),
                ComgrMeta::List(vec![ComgrMeta::String(b"1".to_vec()), ComgrMeta::Null]),
            ),
            (ComgrMeta::String(b"b".to_vec()), ComgrMeta::Map(Vec::new())),
        ]);
        assert_eq!(m.to_string(), r#"{"a": ["1", null], "b": {}}"#);
        assert_eq!(m.get("b"), Some(&ComgrMeta::Map(Vec::new())));
        assert_eq!(m.get("c"), None);
        assert_eq!(m.get("a").map(ComgrMeta::kind_name), Some("list"));
    }
}
