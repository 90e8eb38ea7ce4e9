//! Hand-written bindings to ROCm's HSA runtime (`libhsa-runtime64.so.1`),
//! loaded at run time with `libloading`: the functions a probe dispatch
//! needs (initialisation, agents and their ISAs, memory pools, a queue, a
//! completion signal, the code object loader) and nothing else.
//!
//! Every function the bindings call is one row of [`SYMBOLS`] (written
//! once, in the `api!` invocation below, with its C signature as Rust
//! types); [`Hsa::load`] resolves them all or says which one is missing.
//! Every enum value is one row of [`CONSTANTS`], every status code one row
//! of [`STATUS_NAMES`]; `tests/replay_hsa_abi.rs` compiles a C program
//! against `/usr/include/hsa/*.h` that checks the values, the handle
//! sizes and every function's signature against these tables.
//!
//! The safe types own what they create and free it on drop in the order
//! the runtime needs: a [`Runtime`] (one `hsa_init`) outlives the
//! [`Allocation`]s, [`Queue`]s, [`Signal`]s and [`Executable`]s made from
//! it (they borrow it), and calls `hsa_shut_down` last.
//!
//! This is the only module of the replay harness with `unsafe` code.

use std::ffi::{c_char, c_void, CStr, CString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use hsaco_oracle::layout::dispatch::{self as layout, KernelDispatchPacket, PACKET_SIZE};
use libloading::Library;

use crate::peers::discover::{find_hsa, HSA_LIBRARY};
use crate::peers::library::{self, LibraryError};

// ---------------------------------------------------------------- handles

macro_rules! handles {
    ($($(#[$m:meta])* $name:ident => $c:literal;)*) => {
        $(
            $(#[$m])*
            #[doc = concat!("\n\nC type `", $c, "` (a struct of one `uint64_t handle`).")]
            #[repr(transparent)]
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub struct $name(pub u64);
        )*
        /// Each handle type: its Rust name and its C type (each is one
        /// `uint64_t`, passed by value like one).
        pub static HANDLE_TYPES: &[(&str, &str)] = &[$((stringify!($name), $c)),*];
    };
}

handles! {
    /// An agent (a CPU or a GPU).
    Agent => "hsa_agent_t";
    /// A signal.
    SignalHandle => "hsa_signal_t";
    /// An instruction set architecture.
    Isa => "hsa_isa_t";
    /// An AMD memory pool.
    MemoryPool => "hsa_amd_memory_pool_t";
    /// An executable.
    ExecutableHandle => "hsa_executable_t";
    /// A code object reader.
    CodeObjectReader => "hsa_code_object_reader_t";
    /// A symbol of an executable.
    ExecutableSymbol => "hsa_executable_symbol_t";
    /// A loaded code object.
    LoadedCodeObject => "hsa_loaded_code_object_t";
}

/// `hsa_queue_t`, only ever behind a pointer (its layout is
/// `hsaco_oracle::layout::dispatch::HSA_QUEUE`).
#[repr(C)]
pub struct HsaQueue {
    _opaque: [u8; 0],
}

// ------------------------------------------------------------- callbacks

macro_rules! callbacks {
    ($($(#[$m:meta])* $name:ident = fn($($arg:ty),*) $(-> $ret:ty)?;)*) => {
        $(
            $(#[$m])*
            pub type $name = unsafe extern "C" fn($($arg),*) $(-> $ret)?;
        )*
        /// Each callback type the functions take, as its Rust spelling
        /// (for the signature check against the headers).
        pub static CALLBACK_TYPES: &[(&str, &str)] = &[
            $((stringify!($name), stringify!(fn($($arg),*) $(-> $ret)?))),*
        ];
    };
}

callbacks! {
    /// `hsa_iterate_agents`' callback.
    AgentCallback = fn(Agent, *mut c_void) -> u32;
    /// `hsa_agent_iterate_isas`' callback.
    IsaCallback = fn(Isa, *mut c_void) -> u32;
    /// `hsa_amd_agent_iterate_memory_pools`' callback.
    PoolCallback = fn(MemoryPool, *mut c_void) -> u32;
    /// `hsa_queue_create`'s error callback.
    QueueCallback = fn(u32, *mut HsaQueue, *mut c_void);
}

// ------------------------------------------------------------- functions

macro_rules! api {
    ($(fn $name:ident($($arg:ty),*) $(-> $ret:ty)?;)*) => {
        /// The runtime's functions, resolved.
        #[allow(non_snake_case)]
        struct Fns {
            $($name: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
        }

        /// Every function of the runtime the bindings use, by its C name.
        pub static SYMBOLS: &[&str] = &[$(stringify!($name)),*];

        /// Every function with its signature as Rust types (the C
        /// program of `tests/replay_hsa_abi.rs` checks each against the
        /// headers' declaration).
        pub static SIGNATURES: &[(&str, &str)] = &[
            $((stringify!($name), stringify!(fn($($arg),*) $(-> $ret)?))),*
        ];

        impl Fns {
            fn resolve(lib: &Library, path: &Path) -> Result<Fns, LibraryError> {
                Ok(Fns {
                    $($name: library::symbol(lib, path, stringify!($name))?,)*
                })
            }
        }
    };
}

api! {
    fn hsa_status_string(u32, *mut *const c_char) -> u32;
    fn hsa_init() -> u32;
    fn hsa_shut_down() -> u32;
    fn hsa_system_get_info(u32, *mut c_void) -> u32;
    fn hsa_iterate_agents(AgentCallback, *mut c_void) -> u32;
    fn hsa_agent_get_info(Agent, u32, *mut c_void) -> u32;
    fn hsa_agent_iterate_isas(Agent, IsaCallback, *mut c_void) -> u32;
    fn hsa_isa_get_info_alt(Isa, u32, *mut c_void) -> u32;
    fn hsa_amd_agent_iterate_memory_pools(Agent, PoolCallback, *mut c_void) -> u32;
    fn hsa_amd_memory_pool_get_info(MemoryPool, u32, *mut c_void) -> u32;
    fn hsa_amd_memory_pool_allocate(MemoryPool, usize, u32, *mut *mut c_void) -> u32;
    fn hsa_amd_memory_pool_free(*mut c_void) -> u32;
    fn hsa_amd_agents_allow_access(u32, *const Agent, *const u32, *const c_void) -> u32;
    fn hsa_queue_create(
        Agent,
        u32,
        u32,
        Option<QueueCallback>,
        *mut c_void,
        u32,
        u32,
        *mut *mut HsaQueue
    ) -> u32;
    fn hsa_queue_destroy(*mut HsaQueue) -> u32;
    fn hsa_queue_add_write_index_scacq_screl(*const HsaQueue, u64) -> u64;
    fn hsa_queue_load_read_index_scacquire(*const HsaQueue) -> u64;
    fn hsa_signal_create(i64, u32, *const Agent, *mut SignalHandle) -> u32;
    fn hsa_signal_destroy(SignalHandle) -> u32;
    fn hsa_signal_store_screlease(SignalHandle, i64);
    fn hsa_signal_load_scacquire(SignalHandle) -> i64;
    fn hsa_signal_wait_scacquire(SignalHandle, u32, i64, u64, u32) -> i64;
    fn hsa_code_object_reader_create_from_memory(
        *const c_void,
        usize,
        *mut CodeObjectReader
    ) -> u32;
    fn hsa_code_object_reader_destroy(CodeObjectReader) -> u32;
    fn hsa_executable_create_alt(u32, u32, *const c_char, *mut ExecutableHandle) -> u32;
    fn hsa_executable_load_agent_code_object(
        ExecutableHandle,
        Agent,
        CodeObjectReader,
        *const c_char,
        *mut LoadedCodeObject
    ) -> u32;
    fn hsa_executable_freeze(ExecutableHandle, *const c_char) -> u32;
    fn hsa_executable_validate(ExecutableHandle, *mut u32) -> u32;
    fn hsa_executable_get_symbol_by_name(
        ExecutableHandle,
        *const c_char,
        *const Agent,
        *mut ExecutableSymbol
    ) -> u32;
    fn hsa_executable_symbol_get_info(ExecutableSymbol, u32, *mut c_void) -> u32;
    fn hsa_executable_destroy(ExecutableHandle) -> u32;
}

// ------------------------------------------------------------- constants

macro_rules! constants {
    ($($(#[$m:meta])* $name:ident: $ty:ty = $v:expr;)*) => {
        $(
            $(#[$m])*
            pub const $name: $ty = $v;
        )*
        /// Every enum value the bindings use, by its name in the headers.
        pub static CONSTANTS: &[(&str, i64)] = &[$((stringify!($name), $v as i64)),*];
    };
}

constants! {
    /// `hsa_system_info_t`: major version of the HSA specification (uint16_t).
    HSA_SYSTEM_INFO_VERSION_MAJOR: u32 = 0;
    /// `hsa_system_info_t`: minor version (uint16_t).
    HSA_SYSTEM_INFO_VERSION_MINOR: u32 = 1;
    /// `hsa_system_info_t`: timestamp frequency in Hz (uint64_t), the unit
    /// of `hsa_signal_wait_*`'s timeout hint.
    HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY: u32 = 3;
    /// `hsa_system_info_t`: ROCr's build identifier (const char*).
    HSA_AMD_SYSTEM_INFO_BUILD_VERSION: u32 = 0x200;
    /// `hsa_agent_info_t`: name (`char[64]`), the processor (`gfx90a`).
    HSA_AGENT_INFO_NAME: u32 = 0;
    /// `hsa_agent_info_t`: profile (`hsa_profile_t`).
    HSA_AGENT_INFO_PROFILE: u32 = 4;
    /// `hsa_agent_info_t`: smallest queue size (uint32_t).
    HSA_AGENT_INFO_QUEUE_MIN_SIZE: u32 = 13;
    /// `hsa_agent_info_t`: largest queue size (uint32_t).
    HSA_AGENT_INFO_QUEUE_MAX_SIZE: u32 = 14;
    /// `hsa_agent_info_t`: device type (`hsa_device_type_t`).
    HSA_AGENT_INFO_DEVICE: u32 = 17;
    /// `hsa_amd_agent_info_t`: marketing name (`char[64]`).
    HSA_AMD_AGENT_INFO_PRODUCT_NAME: u32 = 0xA009;
    /// `hsa_amd_agent_info_t`: command processor (CP) firmware version
    /// (uint32_t). ROCm 5.5 and later; older runtimes refuse the query.
    HSA_AMD_AGENT_INFO_UCODE_VERSION: u32 = 0xA108;
    /// `hsa_amd_agent_info_t`: SDMA engine firmware version (uint32_t).
    /// ROCm 5.5 and later.
    HSA_AMD_AGENT_INFO_SDMA_UCODE_VERSION: u32 = 0xA109;
    /// `hsa_device_type_t`: CPU.
    HSA_DEVICE_TYPE_CPU: u32 = 0;
    /// `hsa_device_type_t`: GPU.
    HSA_DEVICE_TYPE_GPU: u32 = 1;
    /// `hsa_device_type_t`: DSP.
    HSA_DEVICE_TYPE_DSP: u32 = 2;
    /// `hsa_isa_info_t`: length of the ISA name (uint32_t).
    HSA_ISA_INFO_NAME_LENGTH: u32 = 0;
    /// `hsa_isa_info_t`: the ISA name (`char[NAME_LENGTH]`).
    HSA_ISA_INFO_NAME: u32 = 1;
    /// `hsa_amd_memory_pool_info_t`: segment (`hsa_amd_segment_t`).
    HSA_AMD_MEMORY_POOL_INFO_SEGMENT: u32 = 0;
    /// `hsa_amd_memory_pool_info_t`: global flags (uint32_t).
    HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS: u32 = 1;
    /// `hsa_amd_memory_pool_info_t`: size in bytes (size_t).
    HSA_AMD_MEMORY_POOL_INFO_SIZE: u32 = 2;
    /// `hsa_amd_memory_pool_info_t`: the runtime may allocate from it (bool).
    HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED: u32 = 5;
    /// `hsa_amd_segment_t`: global.
    HSA_AMD_SEGMENT_GLOBAL: u32 = 0;
    /// `hsa_amd_memory_pool_global_flag_t`: kernel arguments may live here.
    HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT: u32 = 1;
    /// `hsa_amd_memory_pool_global_flag_t`: fine-grained (coherent between
    /// host and agents while a kernel runs).
    HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED: u32 = 2;
    /// `hsa_amd_memory_pool_global_flag_t`: coarse-grained.
    HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED: u32 = 4;
    /// `hsa_queue_type_t`: one producer.
    HSA_QUEUE_TYPE_SINGLE: u32 = 1;
    /// `hsa_signal_condition_t`: wait while the value is not less than the
    /// compare value.
    HSA_SIGNAL_CONDITION_LT: u32 = 2;
    /// `hsa_wait_state_t`: the waiting thread may sleep.
    HSA_WAIT_STATE_BLOCKED: u32 = 0;
    /// `hsa_default_float_rounding_mode_t`: the default.
    HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT: u32 = 0;
    /// `hsa_executable_symbol_info_t`: kernel descriptor address (uint64_t).
    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT: u32 = 22;
    /// `hsa_executable_symbol_info_t`: kernarg segment size (uint32_t).
    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE: u32 = 11;
    /// `hsa_executable_symbol_info_t`: group segment size (uint32_t).
    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE: u32 = 13;
    /// `hsa_executable_symbol_info_t`: private segment size (uint32_t).
    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE: u32 = 14;
}

/// Constants of [`CONSTANTS`] that Debian's ROCm 5.2 headers lack: newer
/// `hsa_ext_amd.h` (ROCm 5.5 and later) declares them. The header check
/// compares them only where the installed headers have them.
pub static NEWER_CONSTANTS: &[&str] = &[
    "HSA_AMD_AGENT_INFO_UCODE_VERSION",
    "HSA_AMD_AGENT_INFO_SDMA_UCODE_VERSION",
];

/// `hsa_status_t` (hsa.h) and its additions in hsa_ext_amd.h: every code
/// and its name.
pub static STATUS_NAMES: &[(u32, &str)] = &[
    (0x0, "HSA_STATUS_SUCCESS"),
    (0x1, "HSA_STATUS_INFO_BREAK"),
    (0x1000, "HSA_STATUS_ERROR"),
    (0x1001, "HSA_STATUS_ERROR_INVALID_ARGUMENT"),
    (0x1002, "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION"),
    (0x1003, "HSA_STATUS_ERROR_INVALID_ALLOCATION"),
    (0x1004, "HSA_STATUS_ERROR_INVALID_AGENT"),
    (0x1005, "HSA_STATUS_ERROR_INVALID_REGION"),
    (0x1006, "HSA_STATUS_ERROR_INVALID_SIGNAL"),
    (0x1007, "HSA_STATUS_ERROR_INVALID_QUEUE"),
    (0x1008, "HSA_STATUS_ERROR_OUT_OF_RESOURCES"),
    (0x1009, "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT"),
    (0x100A, "HSA_STATUS_ERROR_RESOURCE_FREE"),
    (0x100B, "HSA_STATUS_ERROR_NOT_INITIALIZED"),
    (0x100C, "HSA_STATUS_ERROR_REFCOUNT_OVERFLOW"),
    (0x100D, "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS"),
    (0x100E, "HSA_STATUS_ERROR_INVALID_INDEX"),
    (0x100F, "HSA_STATUS_ERROR_INVALID_ISA"),
    (0x1017, "HSA_STATUS_ERROR_INVALID_ISA_NAME"),
    (0x1010, "HSA_STATUS_ERROR_INVALID_CODE_OBJECT"),
    (0x1011, "HSA_STATUS_ERROR_INVALID_EXECUTABLE"),
    (0x1012, "HSA_STATUS_ERROR_FROZEN_EXECUTABLE"),
    (0x1013, "HSA_STATUS_ERROR_INVALID_SYMBOL_NAME"),
    (0x1014, "HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED"),
    (0x1015, "HSA_STATUS_ERROR_VARIABLE_UNDEFINED"),
    (0x1016, "HSA_STATUS_ERROR_EXCEPTION"),
    (0x1018, "HSA_STATUS_ERROR_INVALID_CODE_SYMBOL"),
    (0x1019, "HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL"),
    (0x1020, "HSA_STATUS_ERROR_INVALID_FILE"),
    (0x1021, "HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER"),
    (0x1022, "HSA_STATUS_ERROR_INVALID_CACHE"),
    (0x1023, "HSA_STATUS_ERROR_INVALID_WAVEFRONT"),
    (0x1024, "HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP"),
    (0x1025, "HSA_STATUS_ERROR_INVALID_RUNTIME_STATE"),
    (0x1026, "HSA_STATUS_ERROR_FATAL"),
    (40, "HSA_STATUS_ERROR_INVALID_MEMORY_POOL"),
    (41, "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION"),
    (42, "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION"),
    (43, "HSA_STATUS_ERROR_MEMORY_FAULT"),
    (44, "HSA_STATUS_CU_MASK_REDUCED"),
];

/// A status an HSA function returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Status(pub u32);

impl Status {
    /// `HSA_STATUS_SUCCESS`.
    pub const SUCCESS: Status = Status(0);

    /// Its name in the headers, when it has one.
    pub fn name(self) -> Option<&'static str> {
        STATUS_NAMES
            .iter()
            .find(|(v, _)| *v == self.0)
            .map(|(_, n)| *n)
    }

    fn check(code: u32) -> Result<(), Status> {
        if code == 0 {
            Ok(())
        } else {
            Err(Status(code))
        }
    }
}

impl fmt::Display for Status {
    /// `HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008)`, or `unknown status
    /// (0x1234)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({:#x})",
            self.name().unwrap_or("unknown status"),
            self.0
        )
    }
}

/// A runtime call that failed: which function and its status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallError {
    /// The function (`hsa_queue_create`).
    pub function: &'static str,
    /// What it returned.
    pub status: Status,
    /// The runtime's text for the status (`hsa_status_string`), if any.
    pub text: String,
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} returned {}", self.function, self.status)?;
        if !self.text.is_empty() {
            write!(f, ": {}", self.text)?;
        }
        Ok(())
    }
}

impl std::error::Error for CallError {}

// ---------------------------------------------------------------- library

/// The loaded runtime library and its functions.
pub struct Hsa {
    fns: Fns,
    path: PathBuf,
    // Last: the functions point into it.
    _lib: Library,
}

impl Hsa {
    /// Loads the runtime: `path` if given, else `libhsa-runtime64.so.1`
    /// from the usual library folders (or `/opt/rocm/lib`), else by name
    /// through the dynamic loader's own search (`LD_LIBRARY_PATH`,
    /// `ld.so.cache`). Resolves every function of [`SYMBOLS`].
    pub fn load(path: Option<&Path>) -> Result<Hsa, LibraryError> {
        let path = path
            .map(Path::to_owned)
            .or_else(find_hsa)
            .unwrap_or_else(|| PathBuf::from(HSA_LIBRARY));
        // SAFETY: loading runs the runtime's initialisers (no GPU work:
        // that starts at hsa_init); the replay worker is the process made
        // for it.
        let lib = unsafe { library::load(&path) }?;
        let fns = Fns::resolve(&lib, &path)?;
        Ok(Hsa {
            fns,
            path,
            _lib: lib,
        })
    }

    /// The library's path (as given or found).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The runtime's text for `status` (`hsa_status_string`), or empty.
    pub fn status_text(&self, status: Status) -> String {
        let mut p: *const c_char = std::ptr::null();
        // SAFETY: the function writes a pointer to a static string or
        // fails; `p` is a valid place for the pointer.
        let st = unsafe { (self.fns.hsa_status_string)(status.0, &mut p) };
        if st != 0 || p.is_null() {
            return String::new();
        }
        // SAFETY: the runtime returned a NUL-terminated static string.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    fn call(&self, function: &'static str, code: u32) -> Result<(), CallError> {
        Status::check(code).map_err(|status| CallError {
            function,
            status,
            text: self.status_text(status),
        })
    }

    /// `hsa_init`: the initialised runtime, or the status `hsa_init`
    /// returned (`HSA_STATUS_ERROR_OUT_OF_RESOURCES` without `/dev/kfd`).
    pub fn init(&self) -> Result<Runtime<'_>, CallError> {
        // SAFETY: hsa_init takes no arguments; it may be called from any
        // thread.
        let st = unsafe { (self.fns.hsa_init)() };
        self.call("hsa_init", st)?;
        Ok(Runtime { hsa: self })
    }
}

// ---------------------------------------------------------------- runtime

/// The initialised runtime: `hsa_shut_down` on drop.
pub struct Runtime<'h> {
    hsa: &'h Hsa,
}

impl Drop for Runtime<'_> {
    fn drop(&mut self) {
        // SAFETY: this runtime's hsa_init succeeded; every object made
        // from it borrowed it and is gone.
        let _ = unsafe { (self.hsa.fns.hsa_shut_down)() };
    }
}

unsafe extern "C" fn push_handle(handle: u64, data: *mut c_void) -> u32 {
    // SAFETY: `data` is the `Vec<u64>` the iterating method passed, alive
    // for the iteration; pushing does not unwind into C (allocation
    // failure aborts).
    let v = unsafe { &mut *data.cast::<Vec<u64>>() };
    v.push(handle);
    0
}

unsafe extern "C" fn push_agent(agent: Agent, data: *mut c_void) -> u32 {
    // SAFETY: as `push_handle`.
    unsafe { push_handle(agent.0, data) }
}

unsafe extern "C" fn push_isa(isa: Isa, data: *mut c_void) -> u32 {
    // SAFETY: as `push_handle`.
    unsafe { push_handle(isa.0, data) }
}

unsafe extern "C" fn push_pool(pool: MemoryPool, data: *mut c_void) -> u32 {
    // SAFETY: as `push_handle`.
    unsafe { push_handle(pool.0, data) }
}

/// A NUL-terminated byte buffer as text.
fn c_text(b: &[u8]) -> String {
    let end = b.iter().position(|&x| x == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// The runtime's version: the HSA specification version it implements
/// and ROCr's build identifier (`1.14.0-...`), when it gives one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeVersion {
    /// `HSA_SYSTEM_INFO_VERSION_MAJOR` and `_MINOR` (1.1).
    pub hsa: (u16, u16),
    /// `HSA_AMD_SYSTEM_INFO_BUILD_VERSION`.
    pub build: Option<String>,
}

impl<'h> Runtime<'h> {
    fn call(&self, function: &'static str, code: u32) -> Result<(), CallError> {
        self.hsa.call(function, code)
    }

    /// The library this runtime was loaded from.
    pub fn hsa(&self) -> &'h Hsa {
        self.hsa
    }

    /// The HSA version and ROCr's build identifier.
    pub fn version(&self) -> Result<RuntimeVersion, CallError> {
        let (mut major, mut minor) = (0u16, 0u16);
        // SAFETY: both attributes are uint16_t.
        let st = unsafe {
            (self.hsa.fns.hsa_system_get_info)(
                HSA_SYSTEM_INFO_VERSION_MAJOR,
                (&mut major as *mut u16).cast(),
            )
        };
        self.call("hsa_system_get_info", st)?;
        // SAFETY: as above.
        let st = unsafe {
            (self.hsa.fns.hsa_system_get_info)(
                HSA_SYSTEM_INFO_VERSION_MINOR,
                (&mut minor as *mut u16).cast(),
            )
        };
        self.call("hsa_system_get_info", st)?;
        let mut build: *const c_char = std::ptr::null();
        // SAFETY: the attribute is a `const char*` to a static string.
        let st = unsafe {
            (self.hsa.fns.hsa_system_get_info)(
                HSA_AMD_SYSTEM_INFO_BUILD_VERSION,
                (&mut build as *mut *const c_char).cast(),
            )
        };
        let build = (st == 0 && !build.is_null()).then(|| {
            // SAFETY: a NUL-terminated static string from the runtime.
            unsafe { CStr::from_ptr(build) }
                .to_string_lossy()
                .into_owned()
        });
        Ok(RuntimeVersion {
            hsa: (major, minor),
            build,
        })
    }

    /// Ticks per second of the system timestamp (the unit of signal wait
    /// timeouts).
    pub fn timestamp_frequency(&self) -> Result<u64, CallError> {
        let mut hz = 0u64;
        // SAFETY: the attribute is uint64_t.
        let st = unsafe {
            (self.hsa.fns.hsa_system_get_info)(
                HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY,
                (&mut hz as *mut u64).cast(),
            )
        };
        self.call("hsa_system_get_info", st)?;
        Ok(hz)
    }

    /// Every agent, in the runtime's order.
    pub fn agents(&self) -> Result<Vec<Agent>, CallError> {
        let mut v: Vec<u64> = Vec::new();
        // SAFETY: the callback pushes into `v`, which outlives the call.
        let st = unsafe {
            (self.hsa.fns.hsa_iterate_agents)(push_agent, (&mut v as *mut Vec<u64>).cast())
        };
        self.call("hsa_iterate_agents", st)?;
        Ok(v.into_iter().map(Agent).collect())
    }

    fn agent_bytes64(&self, agent: Agent, attribute: u32) -> Result<String, CallError> {
        let mut b = [0u8; 64];
        // SAFETY: the attributes read with this are char[64].
        let st =
            unsafe { (self.hsa.fns.hsa_agent_get_info)(agent, attribute, b.as_mut_ptr().cast()) };
        self.call("hsa_agent_get_info", st)?;
        Ok(c_text(&b))
    }

    /// An agent's attribute of type `uint32_t` (or an enum).
    pub fn agent_u32(&self, agent: Agent, attribute: u32) -> Result<u32, CallError> {
        let mut v = 0u32;
        // SAFETY: the caller names a 32-bit attribute; `v` has room for it.
        let st = unsafe {
            (self.hsa.fns.hsa_agent_get_info)(agent, attribute, (&mut v as *mut u32).cast())
        };
        self.call("hsa_agent_get_info", st)?;
        Ok(v)
    }

    /// `HSA_AGENT_INFO_NAME`: the processor (`gfx90a`) for a GPU.
    pub fn agent_name(&self, agent: Agent) -> Result<String, CallError> {
        self.agent_bytes64(agent, HSA_AGENT_INFO_NAME)
    }

    /// `HSA_AMD_AGENT_INFO_PRODUCT_NAME` (`AMD Instinct MI210`).
    pub fn agent_product_name(&self, agent: Agent) -> Result<String, CallError> {
        self.agent_bytes64(agent, HSA_AMD_AGENT_INFO_PRODUCT_NAME)
    }

    /// `HSA_AGENT_INFO_DEVICE` (`HSA_DEVICE_TYPE_*`).
    pub fn agent_device(&self, agent: Agent) -> Result<u32, CallError> {
        self.agent_u32(agent, HSA_AGENT_INFO_DEVICE)
    }

    /// The agent's ISAs, in the runtime's order.
    pub fn agent_isas(&self, agent: Agent) -> Result<Vec<Isa>, CallError> {
        let mut v: Vec<u64> = Vec::new();
        // SAFETY: the callback pushes into `v`, which outlives the call.
        let st = unsafe {
            (self.hsa.fns.hsa_agent_iterate_isas)(agent, push_isa, (&mut v as *mut Vec<u64>).cast())
        };
        self.call("hsa_agent_iterate_isas", st)?;
        Ok(v.into_iter().map(Isa).collect())
    }

    /// An ISA's name (`amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`).
    pub fn isa_name(&self, isa: Isa) -> Result<String, CallError> {
        let mut len = 0u32;
        // SAFETY: NAME_LENGTH is uint32_t.
        let st = unsafe {
            (self.hsa.fns.hsa_isa_get_info_alt)(
                isa,
                HSA_ISA_INFO_NAME_LENGTH,
                (&mut len as *mut u32).cast(),
            )
        };
        self.call("hsa_isa_get_info_alt", st)?;
        // Room for the name, a NUL the length may leave out, and no more
        // than a name can sensibly need.
        let mut b = vec![0u8; (len as usize).min(4096) + 1];
        // SAFETY: NAME is char[NAME_LENGTH]; `b` is longer.
        let st = unsafe {
            (self.hsa.fns.hsa_isa_get_info_alt)(isa, HSA_ISA_INFO_NAME, b.as_mut_ptr().cast())
        };
        self.call("hsa_isa_get_info_alt", st)?;
        Ok(c_text(&b))
    }

    /// The agent's memory pools.
    pub fn memory_pools(&self, agent: Agent) -> Result<Vec<MemoryPool>, CallError> {
        let mut v: Vec<u64> = Vec::new();
        // SAFETY: the callback pushes into `v`, which outlives the call.
        let st = unsafe {
            (self.hsa.fns.hsa_amd_agent_iterate_memory_pools)(
                agent,
                push_pool,
                (&mut v as *mut Vec<u64>).cast(),
            )
        };
        self.call("hsa_amd_agent_iterate_memory_pools", st)?;
        Ok(v.into_iter().map(MemoryPool).collect())
    }

    /// What a pool is: segment, global flags, whether the runtime may
    /// allocate from it, size.
    pub fn pool_info(&self, pool: MemoryPool) -> Result<PoolInfo, CallError> {
        let (mut segment, mut flags, mut alloc, mut size) = (0u32, 0u32, false, 0usize);
        // SAFETY: SEGMENT is an enum (32 bits), GLOBAL_FLAGS uint32_t,
        // RUNTIME_ALLOC_ALLOWED bool, SIZE size_t; each place has that type.
        unsafe {
            let f = self.hsa.fns.hsa_amd_memory_pool_get_info;
            self.call(
                "hsa_amd_memory_pool_get_info",
                f(
                    pool,
                    HSA_AMD_MEMORY_POOL_INFO_SEGMENT,
                    (&mut segment as *mut u32).cast(),
                ),
            )?;
            if segment == HSA_AMD_SEGMENT_GLOBAL {
                self.call(
                    "hsa_amd_memory_pool_get_info",
                    f(
                        pool,
                        HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS,
                        (&mut flags as *mut u32).cast(),
                    ),
                )?;
            }
            self.call(
                "hsa_amd_memory_pool_get_info",
                f(
                    pool,
                    HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED,
                    (&mut alloc as *mut bool).cast(),
                ),
            )?;
            self.call(
                "hsa_amd_memory_pool_get_info",
                f(
                    pool,
                    HSA_AMD_MEMORY_POOL_INFO_SIZE,
                    (&mut size as *mut usize).cast(),
                ),
            )?;
        }
        Ok(PoolInfo {
            pool,
            segment,
            global_flags: flags,
            alloc_allowed: alloc,
            size: size as u64,
        })
    }

    /// The memory pools of the CPU agents (system memory, which the host
    /// reads and writes directly), with their properties.
    pub fn host_pools(&self) -> Result<Vec<HostPool>, CallError> {
        let mut v = Vec::new();
        for a in self.agents()? {
            if self.agent_device(a)? == HSA_DEVICE_TYPE_CPU {
                for p in self.memory_pools(a)? {
                    v.push(HostPool(self.pool_info(p)?));
                }
            }
        }
        Ok(v)
    }

    /// Allocates `size` bytes (at least one) from the system memory pool
    /// `pool`, zeroed, and lets `agents` access them.
    pub fn allocate(
        &self,
        pool: &HostPool,
        size: u64,
        agents: &[Agent],
    ) -> Result<Allocation<'_, 'h>, CallError> {
        let pool = pool.0.pool;
        let size = usize::try_from(size.max(1)).map_err(|_| CallError {
            function: "hsa_amd_memory_pool_allocate",
            status: Status(HSA_STATUS_ERROR_INVALID_ALLOCATION),
            text: format!("{size} bytes do not fit this machine's address space"),
        })?;
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: `p` is a valid place for the returned pointer; flags 0.
        let st = unsafe { (self.hsa.fns.hsa_amd_memory_pool_allocate)(pool, size, 0, &mut p) };
        self.call("hsa_amd_memory_pool_allocate", st)?;
        let a = Allocation {
            rt: self,
            ptr: p.cast(),
            size,
        };
        if !agents.is_empty() {
            // SAFETY: `agents` is a valid array of that length; flags may
            // be null; `p` is the allocation just made.
            let st = unsafe {
                (self.hsa.fns.hsa_amd_agents_allow_access)(
                    agents.len() as u32,
                    agents.as_ptr(),
                    std::ptr::null(),
                    p,
                )
            };
            self.call("hsa_amd_agents_allow_access", st)?;
        }
        // SAFETY: the allocation is `size` bytes of system memory (a CPU
        // agent's pool: `HostPool`), which the host may write, owned by `a`.
        unsafe { std::ptr::write_bytes(a.ptr, 0, size) };
        Ok(a)
    }

    /// A signal with `initial` as its value, any agent may wait on it.
    pub fn signal(&self, initial: i64) -> Result<Signal<'_, 'h>, CallError> {
        let mut s = SignalHandle(0);
        // SAFETY: no consumers listed (null with count 0); `s` receives
        // the handle.
        let st = unsafe { (self.hsa.fns.hsa_signal_create)(initial, 0, std::ptr::null(), &mut s) };
        self.call("hsa_signal_create", st)?;
        Ok(Signal {
            rt: self,
            handle: s,
        })
    }

    /// A single-producer queue of `size` packets on `agent`, with an error
    /// callback that records the first error the runtime reports.
    pub fn queue(&self, agent: Agent, size: u32) -> Result<Queue<'_, 'h>, CallError> {
        let error = Box::new(AtomicU32::new(0));
        let mut q: *mut HsaQueue = std::ptr::null_mut();
        // SAFETY: `error` is boxed, so its address is stable for the
        // queue's life (the `Queue` owns both and destroys the queue
        // first); segment size hints u32::MAX mean none.
        let st = unsafe {
            (self.hsa.fns.hsa_queue_create)(
                agent,
                size,
                HSA_QUEUE_TYPE_SINGLE,
                Some(queue_error),
                (&*error as *const AtomicU32).cast_mut().cast(),
                u32::MAX,
                u32::MAX,
                &mut q,
            )
        };
        self.call("hsa_queue_create", st)?;
        if q.is_null() {
            return Err(CallError {
                function: "hsa_queue_create",
                status: Status(HSA_STATUS_ERROR_INVALID_QUEUE),
                text: "the runtime returned no queue".into(),
            });
        }
        Ok(Queue {
            rt: self,
            queue: q,
            error,
        })
    }

    /// Reads `bytes` as a code object, loads it for `agent` into a new
    /// executable, freezes and validates it. A failure names the step.
    pub fn load(&self, agent: Agent, bytes: &[u8]) -> Result<Executable<'_, 'h>, CallError> {
        let profile = self.agent_u32(agent, HSA_AGENT_INFO_PROFILE)?;
        let mut exe = ExecutableHandle(0);
        // SAFETY: null options; `exe` receives the handle.
        let st = unsafe {
            (self.hsa.fns.hsa_executable_create_alt)(
                profile,
                HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                std::ptr::null(),
                &mut exe,
            )
        };
        self.call("hsa_executable_create_alt", st)?;
        let exe = Executable {
            rt: self,
            handle: exe,
        };
        let mut reader = CodeObjectReader(0);
        // SAFETY: `bytes` stays alive and unchanged until the reader is
        // destroyed below (the reader refers to the memory).
        let st = unsafe {
            (self.hsa.fns.hsa_code_object_reader_create_from_memory)(
                bytes.as_ptr().cast(),
                bytes.len(),
                &mut reader,
            )
        };
        self.call("hsa_code_object_reader_create_from_memory", st)?;
        // SAFETY: handles made above; null options; the loaded code object
        // handle is not wanted (null).
        let st = unsafe {
            (self.hsa.fns.hsa_executable_load_agent_code_object)(
                exe.handle,
                agent,
                reader,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        let loaded = self.call("hsa_executable_load_agent_code_object", st);
        // SAFETY: the reader made above; the executable no longer needs it
        // once loading returned.
        let _ = unsafe { (self.hsa.fns.hsa_code_object_reader_destroy)(reader) };
        loaded?;
        // SAFETY: a valid executable; null options.
        let st = unsafe { (self.hsa.fns.hsa_executable_freeze)(exe.handle, std::ptr::null()) };
        self.call("hsa_executable_freeze", st)?;
        let mut result = 0u32;
        // SAFETY: `result` receives the validation result.
        let st = unsafe { (self.hsa.fns.hsa_executable_validate)(exe.handle, &mut result) };
        self.call("hsa_executable_validate", st)?;
        if result != 0 {
            return Err(CallError {
                function: "hsa_executable_validate",
                status: Status::SUCCESS,
                text: format!("the executable is not valid (result {result})"),
            });
        }
        Ok(exe)
    }
}

/// Status codes the bindings make up errors with.
const HSA_STATUS_ERROR_INVALID_ALLOCATION: u32 = 0x1003;
const HSA_STATUS_ERROR_INVALID_QUEUE: u32 = 0x1007;

/// A memory pool of a CPU agent ([`Runtime::host_pools`]): system memory
/// the host can read and write, the only kind [`Runtime::allocate`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostPool(PoolInfo);

impl HostPool {
    /// Its properties.
    pub fn info(&self) -> &PoolInfo {
        &self.0
    }
}

/// A memory pool's properties ([`Runtime::pool_info`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolInfo {
    /// The pool.
    pub pool: MemoryPool,
    /// `hsa_amd_segment_t`.
    pub segment: u32,
    /// `hsa_amd_memory_pool_global_flag_t` bits (global segment only).
    pub global_flags: u32,
    /// The runtime may allocate from it.
    pub alloc_allowed: bool,
    /// Its size in bytes.
    pub size: u64,
}

// ------------------------------------------------------------- allocation

/// Memory from a pool, freed on drop.
pub struct Allocation<'r, 'h> {
    rt: &'r Runtime<'h>,
    ptr: *mut u8,
    size: usize,
}

impl Allocation<'_, '_> {
    /// The address (the same for the host and the agents).
    pub fn address(&self) -> u64 {
        self.ptr as u64
    }

    /// Its size in bytes.
    pub fn len(&self) -> usize {
        self.size
    }

    /// True for an empty allocation (never: allocations have a byte).
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// Copies `bytes` in at `offset`; false when they do not fit.
    pub fn write(&self, offset: usize, bytes: &[u8]) -> bool {
        let Some(end) = offset.checked_add(bytes.len()) else {
            return false;
        };
        if end > self.size {
            return false;
        }
        // SAFETY: the range is inside this allocation of system memory the
        // host may write; no Rust value lives in it.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr.add(offset), bytes.len()) };
        true
    }

    /// Copies the whole allocation out.
    pub fn read(&self) -> Vec<u8> {
        let mut v = vec![0u8; self.size];
        // SAFETY: the allocation is `size` bytes of system memory the host
        // may read; no Rust value lives in it (a kernel still writing it
        // would make the copy torn, never touch Rust-owned memory). The
        // harness reads after the completion signal's acquire.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr, v.as_mut_ptr(), self.size) };
        v
    }
}

impl Drop for Allocation<'_, '_> {
    fn drop(&mut self) {
        // SAFETY: the pointer the pool allocated, freed once.
        let _ = unsafe { (self.rt.hsa.fns.hsa_amd_memory_pool_free)(self.ptr.cast()) };
    }
}

// ------------------------------------------------------------------ signal

/// A signal, destroyed on drop.
pub struct Signal<'r, 'h> {
    rt: &'r Runtime<'h>,
    handle: SignalHandle,
}

/// How a wait on a signal ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// The value went below the compare value: it is this.
    Done(i64),
    /// The time ran out with this value.
    TimedOut(i64),
    /// The caller's `give_up` said so, at this value.
    GaveUp(i64),
}

impl Signal<'_, '_> {
    /// The handle (an `amd_signal_t` address), for a packet's
    /// `completion_signal`.
    pub fn handle(&self) -> SignalHandle {
        self.handle
    }

    /// Waits (with acquire semantics) until the value is below `below`,
    /// `timeout` has passed or `give_up` (asked every 100 ms) says so;
    /// `hz` is the timestamp frequency ([`Runtime::timestamp_frequency`])
    /// that the runtime's timeout hint counts in. The runtime may return
    /// early (the wait is re-entered) or late (its hint is a hint); the
    /// deadline is this function's.
    pub fn wait_below(
        &self,
        below: i64,
        timeout: Duration,
        hz: u64,
        give_up: impl Fn() -> bool,
    ) -> Wait {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            // Short slices so the deadline holds even if the hint is not.
            let slice = left.min(Duration::from_millis(100));
            let ticks = (slice.as_secs_f64() * hz as f64) as u64;
            // SAFETY: a live signal; the arguments are plain values.
            let v = unsafe {
                (self.rt.hsa.fns.hsa_signal_wait_scacquire)(
                    self.handle,
                    HSA_SIGNAL_CONDITION_LT,
                    below,
                    ticks.max(1),
                    HSA_WAIT_STATE_BLOCKED,
                )
            };
            if v < below {
                return Wait::Done(v);
            }
            if give_up() {
                return Wait::GaveUp(v);
            }
            if left.is_zero() {
                // SAFETY: a live signal.
                let v = unsafe { (self.rt.hsa.fns.hsa_signal_load_scacquire)(self.handle) };
                return if v < below {
                    Wait::Done(v)
                } else {
                    Wait::TimedOut(v)
                };
            }
        }
    }
}

impl Drop for Signal<'_, '_> {
    fn drop(&mut self) {
        // SAFETY: the signal this object created, destroyed once, after
        // every packet naming it completed or its queue was destroyed.
        let _ = unsafe { (self.rt.hsa.fns.hsa_signal_destroy)(self.handle) };
    }
}

// ------------------------------------------------------------------- queue

unsafe extern "C" fn queue_error(status: u32, _queue: *mut HsaQueue, data: *mut c_void) {
    // SAFETY: `data` is the queue's boxed `AtomicU32`, alive until the
    // queue is destroyed (after which the runtime calls nothing).
    let cell = unsafe { &*data.cast::<AtomicU32>() };
    let _ = cell.compare_exchange(0, status, Ordering::AcqRel, Ordering::Acquire);
}

/// A queue, destroyed on drop.
pub struct Queue<'r, 'h> {
    rt: &'r Runtime<'h>,
    queue: *mut HsaQueue,
    error: Box<AtomicU32>,
}

/// Where a packet went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Submitted {
    /// The write index it was reserved at.
    pub index: u64,
    /// Its address in the ring.
    pub packet: u64,
}

/// The byte offset of `hsa_queue_t.name` (from the oracle's layout).
fn queue_field(name: &str) -> usize {
    // Every name asked for is a member of the table (a unit test reads them).
    layout::find(layout::HSA_QUEUE, name).map_or(0, |s| s.offset)
}

impl Queue<'_, '_> {
    /// The `hsa_queue_t` address (the start of `amd_queue_t`: Queue Ptr).
    pub fn address(&self) -> u64 {
        self.queue as u64
    }

    fn read_u64(&self, field: &str) -> u64 {
        // SAFETY: the runtime's live hsa_queue_t; the offset is a member's
        // (the oracle's layout, checked against hsa.h).
        unsafe {
            std::ptr::read_unaligned(
                self.queue
                    .cast::<u8>()
                    .add(queue_field(field))
                    .cast::<u64>(),
            )
        }
    }

    fn read_u32(&self, field: &str) -> u32 {
        // SAFETY: as `read_u64`.
        unsafe {
            std::ptr::read_unaligned(
                self.queue
                    .cast::<u8>()
                    .add(queue_field(field))
                    .cast::<u32>(),
            )
        }
    }

    /// The first error the runtime reported for this queue, if any.
    pub fn error(&self) -> Option<Status> {
        match self.error.load(Ordering::Acquire) {
            0 => None,
            s => Some(Status(s)),
        }
    }

    /// Writes `packet` into the next slot and rings the doorbell: the
    /// body first, then the header and setup as one 32-bit release store
    /// (so the packet processor never sees a valid header before the
    /// body), then the doorbell with the packet's index. `packet` must
    /// not depend on its own slot. Waits at most `timeout` for a free
    /// slot.
    pub fn submit(
        &self,
        packet: &KernelDispatchPacket,
        timeout: Duration,
    ) -> Result<Submitted, CallError> {
        let size = u64::from(self.read_u32("size"));
        let base = self.read_u64("base_address");
        let doorbell = SignalHandle(self.read_u64("doorbell_signal"));
        if size == 0 || base == 0 {
            return Err(CallError {
                function: "hsa_queue_create",
                status: Status(HSA_STATUS_ERROR_INVALID_QUEUE),
                text: "the queue has no ring".into(),
            });
        }
        // SAFETY: a live queue.
        let index =
            unsafe { (self.rt.hsa.fns.hsa_queue_add_write_index_scacq_screl)(self.queue, 1) };
        let deadline = Instant::now() + timeout;
        // SAFETY: a live queue (each iteration).
        while index - unsafe { (self.rt.hsa.fns.hsa_queue_load_read_index_scacquire)(self.queue) }
            >= size
        {
            if Instant::now() >= deadline {
                return Err(CallError {
                    function: "hsa_queue_load_read_index_scacquire",
                    status: Status(HSA_STATUS_ERROR_INVALID_QUEUE),
                    text: "the queue stayed full".into(),
                });
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let slot = base + (index % size) * PACKET_SIZE as u64;
        let bytes = packet.to_bytes();
        let ptr = slot as *mut u8;
        // SAFETY: `slot` is the packet slot this thread reserved in the
        // runtime's ring (64-byte aligned, 64 bytes long); the packet
        // processor ignores it until the header below says otherwise.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr().add(4), ptr.add(4), PACKET_SIZE - 4)
        };
        let word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        // SAFETY: the slot's first 4 bytes, 4-byte aligned, shared with the
        // packet processor only through atomic accesses.
        let header = unsafe { AtomicU32::from_ptr(ptr.cast::<u32>()) };
        header.store(word, Ordering::Release);
        // SAFETY: the queue's doorbell signal; the value is the index.
        unsafe { (self.rt.hsa.fns.hsa_signal_store_screlease)(doorbell, index as i64) };
        Ok(Submitted {
            index,
            packet: slot,
        })
    }
}

impl Drop for Queue<'_, '_> {
    fn drop(&mut self) {
        // SAFETY: the queue this object created, destroyed once; the error
        // cell (dropped after this) outlives it.
        let _ = unsafe { (self.rt.hsa.fns.hsa_queue_destroy)(self.queue) };
    }
}

// -------------------------------------------------------------- executable

/// A frozen executable, destroyed on drop.
pub struct Executable<'r, 'h> {
    rt: &'r Runtime<'h>,
    handle: ExecutableHandle,
}

/// A kernel symbol's properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    /// The kernel descriptor's address (the packet's `kernel_object`).
    pub kernel_object: u64,
    /// Kernarg segment size.
    pub kernarg_segment_size: u32,
    /// Group segment size.
    pub group_segment_size: u32,
    /// Private segment size.
    pub private_segment_size: u32,
}

impl Executable<'_, '_> {
    /// The kernel symbol `name` (`KERNEL.kd` for V3+, `KERNEL` for V2)
    /// loaded for `agent`.
    pub fn kernel(&self, name: &str, agent: Agent) -> Result<KernelInfo, CallError> {
        let c = CString::new(name).map_err(|_| CallError {
            function: "hsa_executable_get_symbol_by_name",
            status: Status(0x1013),
            text: format!("{name:?} holds a NUL byte"),
        })?;
        let mut sym = ExecutableSymbol(0);
        // SAFETY: a NUL-terminated name, a valid agent, `sym` receives the
        // handle.
        let st = unsafe {
            (self.rt.hsa.fns.hsa_executable_get_symbol_by_name)(
                self.handle,
                c.as_ptr(),
                &agent,
                &mut sym,
            )
        };
        self.rt.call("hsa_executable_get_symbol_by_name", st)?;
        let mut object = 0u64;
        let (mut kernarg, mut group, mut private) = (0u32, 0u32, 0u32);
        // SAFETY: KERNEL_OBJECT is uint64_t, the segment sizes uint32_t.
        unsafe {
            let f = self.rt.hsa.fns.hsa_executable_symbol_get_info;
            for (attr, place) in [
                (
                    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT,
                    (&mut object as *mut u64).cast::<c_void>(),
                ),
                (
                    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                    (&mut kernarg as *mut u32).cast(),
                ),
                (
                    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
                    (&mut group as *mut u32).cast(),
                ),
                (
                    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
                    (&mut private as *mut u32).cast(),
                ),
            ] {
                self.rt
                    .call("hsa_executable_symbol_get_info", f(sym, attr, place))?;
            }
        }
        Ok(KernelInfo {
            kernel_object: object,
            kernarg_segment_size: kernarg,
            group_segment_size: group,
            private_segment_size: private,
        })
    }
}

impl Drop for Executable<'_, '_> {
    fn drop(&mut self) {
        // SAFETY: the executable this object created, destroyed once, after
        // the dispatch that used it finished (or its queue was destroyed).
        let _ = unsafe { (self.rt.hsa.fns.hsa_executable_destroy)(self.handle) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_have_no_duplicates() {
        let mut s: Vec<&str> = SYMBOLS.to_vec();
        s.sort_unstable();
        s.dedup();
        assert_eq!(s.len(), SYMBOLS.len());
        let mut c: Vec<&str> = CONSTANTS.iter().map(|(n, _)| *n).collect();
        c.sort_unstable();
        c.dedup();
        assert_eq!(c.len(), CONSTANTS.len());
        let mut v: Vec<u32> = STATUS_NAMES.iter().map(|(v, _)| *v).collect();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), STATUS_NAMES.len());
        for n in NEWER_CONSTANTS {
            assert!(CONSTANTS.iter().any(|(c, _)| c == n), "{n}");
        }
        assert_eq!(SIGNATURES.len(), SYMBOLS.len());
    }

    #[test]
    fn statuses_print_name_and_hex() {
        assert_eq!(
            Status(0x1008).to_string(),
            "HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008)"
        );
        assert_eq!(
            Status(43).to_string(),
            "HSA_STATUS_ERROR_MEMORY_FAULT (0x2b)"
        );
        assert_eq!(Status(0x7777).to_string(), "unknown status (0x7777)");
    }

    #[test]
    fn queue_fields_are_in_the_layout() {
        for f in ["size", "base_address", "doorbell_signal"] {
            assert!(layout::find(layout::HSA_QUEUE, f).is_some(), "{f}");
        }
        assert_eq!(queue_field("base_address"), 8);
    }

    #[test]
    fn a_missing_library_is_a_load_error() {
        let e = Hsa::load(Some(Path::new("/nonexistent/libhsa-runtime64.so.1")))
            .err()
            .expect("no such library");
        assert!(matches!(e, LibraryError::Load { .. }), "{e}");
    }
}
