//! The libLLVM peer as the fuzz targets use it: loading a version once,
//! the processors its disassembler takes, one disassembler per processor
//! and thread, and the CI rule for a missing library.

use std::cell::RefCell;
use std::sync::{Mutex, OnceLock};

use hsaco_conform::peers::llvm_disasm::{Disassembler, LlvmLib, PeerError};
use hsaco_oracle::targets::{self, Generation};

/// True when running under CI (`CI` set and not `0`/`false`, as
/// `.ci/run` does): a missing peer then fails the smoke tests instead of
/// skipping them (the rule of `tests/support/mod.rs`).
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// The library of LLVM `version`, looked up and loaded once per process
/// ([`LlvmLib::open`] searches the library directories on every call,
/// which would dominate a fuzz target's time).
pub fn llvm(version: u32) -> Result<&'static LlvmLib, PeerError> {
    type Opened = Mutex<Vec<(u32, Result<&'static LlvmLib, PeerError>)>>;
    static OPENED: OnceLock<Opened> = OnceLock::new();
    let mut opened = OPENED
        .get_or_init(|| Mutex::new(Vec::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some((_, r)) = opened.iter().find(|(v, _)| *v == version) {
        return r.clone();
    }
    let r = LlvmLib::open(version);
    opened.push((version, r.clone()));
    r
}

/// The library of LLVM `version` for a smoke test: `None` (after printing
/// why) when it is missing outside CI; a panic when it is missing in CI.
pub fn require_llvm(version: u32) -> Option<&'static LlvmLib> {
    match llvm(version) {
        Ok(l) => Some(l),
        Err(e) => {
            let msg = format!("libLLVM-{version}: {e}");
            if in_ci() {
                panic!("{msg}");
            }
            eprintln!("SKIPPED: {msg}");
            None
        }
    }
}

/// Every processor name worth giving a disassembler: the oracle's GFX8
/// and later processors (generic targets included) and the retired
/// gfx940/gfx941, in the oracle's table order. GFX6/GFX7 are left out:
/// LLVM's disassembler aborts the process for them.
pub fn candidate_processors() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = targets::TARGETS
        .iter()
        .filter(|t| t.generation >= Generation::Gfx8)
        .map(|t| t.name)
        .collect();
    v.extend(targets::RETIRED.iter().map(|t| t.name));
    v
}

/// The processors of [`candidate_processors`] that `lib` knows and can
/// disassemble for (ISA major 8 or later), computed once per version.
/// Empty when the library cannot be asked (see
/// [`LlvmLib::knows_processor`]): guessing could abort the process.
pub fn processors(lib: &'static LlvmLib) -> &'static [&'static str] {
    type Lists = Mutex<Vec<(u32, &'static [&'static str])>>;
    static LISTS: OnceLock<Lists> = OnceLock::new();
    let mut lists = LISTS
        .get_or_init(|| Mutex::new(Vec::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some((_, l)) = lists.iter().find(|(v, _)| *v == lib.version()) {
        return l;
    }
    let list: Vec<&'static str> = candidate_processors()
        .into_iter()
        .filter(|cpu| matches!(lib.isa_version(cpu), Some(Some((major, _, _))) if major >= 8))
        .collect();
    let list: &'static [&'static str] = Box::leak(list.into_boxed_slice());
    lists.push((lib.version(), list));
    list
}

thread_local! {
    static DISASSEMBLERS: RefCell<Vec<Disassembler>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's disassembler of `lib` for `cpu`, made on
/// first use and kept (making one costs far more than decoding a word).
pub fn with_disassembler<R>(
    lib: &'static LlvmLib,
    cpu: &str,
    f: impl FnOnce(&mut Disassembler) -> R,
) -> Result<R, PeerError> {
    DISASSEMBLERS.with(|cell| {
        let mut all = cell.borrow_mut();
        let at = match all
            .iter()
            .position(|d| d.version() == lib.version() && d.cpu() == cpu)
        {
            Some(k) => k,
            None => {
                all.push(lib.disassembler(cpu)?);
                all.len() - 1
            }
        };
        let d = all.get_mut(at).ok_or_else(|| PeerError::Create {
            version: lib.version(),
            cpu: cpu.to_owned(),
        })?;
        Ok(f(d))
    })
}

/// The `llvm-mc` command that disassembles `bytes` for `cpu` with LLVM
/// `version`'s command-line tools, for reports and reproducers.
pub fn llvm_mc_command(version: u32, cpu: &str, bytes: &[u8]) -> String {
    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:#04x}")).collect();
    format!(
        "echo '{}' | llvm-mc-{version} -triple=amdgcn-amd-amdhsa -mcpu={cpu} --disassemble",
        hex.join(" ")
    )
}
