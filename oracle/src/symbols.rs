//! Symbols of a code object: kernel descriptor symbols (`NAME.kd`), kernel
//! entry symbols, and how a descriptor's entry offset resolves to code;
//! for code object V2, the `STT_AMDGPU_HSA_KERNEL` symbols that mark each
//! kernel's `amd_kernel_code_t` ([`v2_kernels`], [`check_entry_v2`]).
//!
//! Sources: amdgpu-usage.rst "Symbols" and "Kernel Descriptor"
//! (kernel_code_entry_byte_offset); amdgpu-usage.rst "Relocation Records"
//! (`R_AMDGPU_REL64` in relocatable objects); rocm-code-object-format.rst
//! "AMD Kernel Code Object amd_kernel_code_t" and llc-14 V2 output (in V2
//! the kernel symbol's value is the address of its `amd_kernel_code_t` in
//! `.text`, and its size covers the structure and the code after it).

use crate::elf::raw::{self, from_bytes, LE};
use crate::elf::{self, Elf, Section, ET_REL, SHT_DYNSYM, SHT_RELA, SHT_SYMTAB};
use crate::fasthash::FastHash;
use crate::rules::Sink;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

crate::declare_rules! {
    TABLE = (Error, "symbol.table",
        "A symbol table has sh_entsize 24, a size that is a multiple of 24, and sh_link naming a string table inside the file.",
        "ELF gABI: Symbol Table");
    NAME = (Error, "symbol.name",
        "Each symbol's name is a NUL-terminated UTF-8 string inside the linked string table.",
        "ELF gABI: Symbol Table");
    KD_TYPE = (Error, "symbol.kd.type",
        "A kernel descriptor symbol NAME.kd has type STT_OBJECT.",
        "amdgpu-usage.rst: Symbols");
    KD_SIZE = (Error, "symbol.kd.size",
        "A kernel descriptor symbol has size 64.",
        "amdgpu-usage.rst: Kernel Descriptor; Symbols");
    KD_ALIGN = (Error, "symbol.kd.align",
        "A kernel descriptor is 64-byte aligned.",
        "amdgpu-usage.rst: Kernel Descriptor");
    KD_SECTION = (Error, "symbol.kd.section",
        "A kernel descriptor is defined in an allocated, read-only, non-executable section (.rodata) with its 64 bytes inside the section.",
        "amdgpu-usage.rst: Symbols (NAME.kd in .rodata)");
    KD_DUPLICATE = (Error, "symbol.kd.duplicate",
        "Each kernel has exactly one descriptor symbol: NAME.kd is defined once.",
        "amdgpu-usage.rst: Symbols");
    KERNEL_MISSING = (Warning, "symbol.kernel.missing",
        "For each NAME.kd there is a kernel entry symbol NAME (tools use it to name the code; the loader does not need it).",
        "amdgpu-usage.rst: Symbols");
    KERNEL_TYPE = (Error, "symbol.kernel.type",
        "A kernel entry symbol has type STT_FUNC and is defined in an executable section (.text).",
        "amdgpu-usage.rst: Symbols");
    ENTRY_TARGET = (Error, "symbol.entry.target",
        "The descriptor's address plus kernel_code_entry_byte_offset is the address of the kernel entry symbol, inside an executable section.",
        "amdgpu-usage.rst: Kernel Descriptor (KERNEL_CODE_ENTRY_BYTE_OFFSET)");
    ENTRY_ALIGN = (Error, "symbol.entry.align",
        "A kernel's machine code entry is 256-byte aligned.",
        "amdgpu-usage.rst: Kernel Descriptor (KERNEL_CODE_ENTRY_BYTE_OFFSET must be 256 byte aligned)");
    ENTRY_RELOCATION = (Error, "symbol.entry.relocation",
        "In a relocatable object the entry offset field carries one R_AMDGPU_REL64 relocation against the kernel (addend 16 plus the kernel's offset).",
        "amdgpu-usage.rst: Relocation Records");
    KD_NOT_IN_METADATA = (Error, "symbol.kd.not_in_metadata",
        "Every kernel descriptor symbol is named by the .symbol of one kernel in the metadata.",
        "amdgpu-usage.rst: Code Object V3 Metadata (.symbol)");
    METADATA_KERNEL_NO_KD = (Error, "symbol.metadata_kernel.no_kd",
        "Every metadata kernel's .symbol names a kernel descriptor symbol in the symbol table.",
        "amdgpu-usage.rst: Code Object V3 Metadata (.symbol)");
    V2_KERNEL_SECTION = (Error, "symbol.v2.kernel.section",
        "Code object V2: a kernel symbol (STT_AMDGPU_HSA_KERNEL) is defined in an allocated, executable section with file bytes (.text), and the 256-byte amd_kernel_code_t at its value lies inside that section.",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t; ROCR-Runtime src/loader/executable.cpp (reads the amd_kernel_code_t at the STT_AMDGPU_HSA_KERNEL symbol); llc-14 --amdhsa-code-object-version=2");
    V2_KERNEL_DUPLICATE = (Error, "symbol.v2.kernel.duplicate",
        "Code object V2: each kernel symbol (STT_AMDGPU_HSA_KERNEL) name is defined once: runtimes look kernels up by it.",
        "ELF gABI: Symbol Table; ROCR-Runtime src/loader/executable.cpp");
    V2_ENTRY = (Error, "symbol.v2.entry",
        "Code object V2: the kernel's entry (the amd_kernel_code_t address plus kernel_code_entry_byte_offset) lies inside the kernel symbol's executable section; in a relocatable object that section is aligned to a multiple of 256, so linking keeps the entry 256-byte aligned.",
        "rocm-code-object-format.rst: AMD Kernel Code Object amd_kernel_code_t (kernel_code_entry_byte_offset); llc-14 --amdhsa-code-object-version=2 (.text aligned to 256)");
    V2_KERNEL_NOT_IN_METADATA = (Error, "symbol.v2.kernel.not_in_metadata",
        "Code object V2: every kernel symbol (STT_AMDGPU_HSA_KERNEL) is the Name of a kernel in the NT_AMD_HSA_METADATA metadata (the metadata is how runtimes learn the kernel's arguments).",
        "amdgpu-usage.rst: Code Object V2 Metadata (Kernels); llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp (MetadataStreamerYamlV2::emitKernel)");
    V2_METADATA_KERNEL_NO_SYMBOL = (Error, "symbol.v2.metadata_kernel.no_symbol",
        "Code object V2: every metadata kernel's Name is a kernel symbol of type STT_AMDGPU_HSA_KERNEL in the symbol table (SymbolName, Name@kd, names no ELF symbol).",
        "amdgpu-usage.rst: Code Object V2 Metadata (Kernels); llc-14 --amdhsa-code-object-version=2");
}

// Symbol types and the relocation type, declared once in the ELF layout
// layer.
pub use crate::elf::raw::{
    R_AMDGPU_REL64, STT_AMDGPU_HSA_KERNEL, STT_FUNC, STT_OBJECT, STT_SECTION,
};
const SYM_SIZE: u64 = raw::SYM_SIZE as u64;
/// [`Table`]'s name length of a symbol whose name is unreadable.
const NO_NAME: u32 = u32::MAX;
/// [`Table`]'s name length of a symbol whose name is too long to record
/// (found again when needed).
const LONG_NAME: u32 = u32::MAX - 1;
/// The suffix that makes a symbol a kernel descriptor's (`NAME.kd`).
const KD_SUFFIX: &str = ".kd";

/// The kernel name of descriptor symbol name `kd` (`NAME.kd`).
fn kd_stem(kd: &str) -> &str {
    kd.strip_suffix(KD_SUFFIX).unwrap_or(kd)
}
const RELA_SIZE: u64 = raw::RELA_SIZE as u64;

/// One symbol table entry, its name borrowed from the string table.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Symbol<'a> {
    /// Index in its table.
    pub index: usize,
    /// Name ("" if unreadable).
    pub name: &'a str,
    /// `st_value`: an address, or a section offset in a relocatable object.
    pub value: u64,
    /// `st_size`.
    pub size: u64,
    /// Type (`st_info & 0xf`).
    pub sym_type: u8,
    /// Binding (`st_info >> 4`).
    pub bind: u8,
    /// `st_shndx`.
    pub shndx: u16,
}

/// The symbols of the object's main table (`.symtab`, or `.dynsym` when the
/// object is stripped).
#[derive(Debug, Default)]
pub struct Symbols<'a> {
    /// Section index of the table.
    pub table: Option<usize>,
    /// Its entries.
    pub symbols: Vec<Symbol<'a>>,
}

/// Reads `.symtab` (or `.dynsym`), checking the table rules, and decodes
/// every entry (see [`Table`] for reading only what the check needs).
pub fn read<'a>(elf: &Elf<'a>, sink: &mut Sink) -> Symbols<'a> {
    let t = Table::read(elf, sink);
    Symbols {
        table: t.index,
        symbols: (0..t.len()).filter_map(|i| t.symbol(i)).collect(),
    }
}

/// The object's main symbol table (`.symtab`, or `.dynsym` when the
/// object is stripped), its table rules checked, with entries left in the
/// file and decoded into [`Symbol`]s on demand. Tensile objects hold
/// hundreds of thousands of local label symbols, of which the check needs
/// only each name's validity and length: decoding all of them into a
/// vector took more time (and fresh pages) than the rest of the symbol
/// checks.
#[derive(Debug, Default)]
pub struct Table<'a> {
    /// Section index of the table, if the object has one.
    pub index: Option<usize>,
    /// The entries (a multiple of 24 bytes; a partial last entry is left
    /// out).
    entries: &'a [u8],
    names: Names<'a>,
    /// Indices of the descriptor symbols: a name `NAME.kd` with `NAME` not
    /// empty, and a type other than `STT_SECTION`.
    kd: Vec<usize>,
    /// Each symbol's name length ([`NO_NAME`] for an unreadable name,
    /// [`LONG_NAME`] past what 32 bits hold), found once: with it, symbols
    /// that cannot have a kernel's name are passed over, and the others'
    /// names are not searched again.
    lens: Vec<u32>,
}

impl<'a> Table<'a> {
    /// Finds the table and checks it (`symbol.table`, and `symbol.name`
    /// for every entry).
    pub fn read(elf: &Elf<'a>, sink: &mut Sink) -> Table<'a> {
        let table = elf
            .sections
            .iter()
            .find(|s| s.sh_type == SHT_SYMTAB)
            .or_else(|| elf.sections.iter().find(|s| s.sh_type == SHT_DYNSYM));
        let Some(t) = table else {
            return Table::default();
        };
        let hdr = elf.header.shoff + t.index as u64 * 64;
        if t.entsize != SYM_SIZE || t.size % SYM_SIZE != 0 {
            sink.report_at(
                &TABLE,
                hdr,
                format!(
                    "symbol table '{}' has entsize {} and size {} (need 24 and a multiple of 24)",
                    t.name, t.entsize, t.size
                ),
            );
        }
        let (Some(data), Some(strtab)) = (
            t.data(elf.data),
            elf.sections
                .get(t.link as usize)
                .filter(|s| s.sh_type == elf::SHT_STRTAB)
                .and_then(|s| s.data(elf.data)),
        ) else {
            sink.report_at(
                &TABLE,
                hdr,
                format!(
                    "symbol table '{}' or its string table (section {}) is not readable",
                    t.name, t.link
                ),
            );
            return Table {
                index: Some(t.index),
                ..Table::default()
            };
        };
        let entries = data
            .get(..data.len() - data.len() % SYM_SIZE as usize)
            .unwrap_or_default();
        let names = Names::new(strtab);
        let mut kd = Vec::new();
        let mut lens = Vec::with_capacity(entries.len() / SYM_SIZE as usize);
        let mut bad_names = 0usize;
        for (i, e) in entries.chunks_exact(SYM_SIZE as usize).enumerate() {
            let Ok((e, _)) = from_bytes::<raw::Sym>(e) else {
                continue;
            };
            let off = e.st_name.get(LE) as usize;
            let Some(len) = names.len_at(off) else {
                bad_names += 1;
                lens.push(NO_NAME);
                continue;
            };
            lens.push(u32::try_from(len).unwrap_or(LONG_NAME).min(LONG_NAME));
            if len > KD_SUFFIX.len()
                && names.bytes.get(off + len - KD_SUFFIX.len()..off + len)
                    == Some(KD_SUFFIX.as_bytes())
                && e.st_type() != STT_SECTION
            {
                kd.push(i);
            }
        }
        if bad_names > 0 {
            sink.report_at(
                &NAME,
                t.offset,
                format!("{bad_names} symbols of '{}' have a name outside the string table or not valid UTF-8", t.name),
            );
        }
        Table {
            index: Some(t.index),
            entries,
            names,
            kd,
            lens,
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.lens.len()
    }

    /// True if the table has no entries (or there is no table).
    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }

    /// Entry `i`, decoded (its name "" if unreadable).
    pub fn symbol(&self, i: usize) -> Option<Symbol<'a>> {
        let size = SYM_SIZE as usize;
        let (e, _) = from_bytes::<raw::Sym>(self.entries.get(i.checked_mul(size)?..)?).ok()?;
        let name_off = e.st_name.get(LE) as usize;
        let name = match self.lens.get(i).copied() {
            Some(NO_NAME) => "",
            Some(len) if len < LONG_NAME => self.names.slice(name_off, len as usize),
            _ => self.names.get(name_off).unwrap_or(""),
        };
        Some(Symbol {
            index: i,
            name,
            value: e.st_value.get(LE),
            size: e.st_size.get(LE),
            sym_type: e.st_type(),
            bind: e.st_bind(),
            shndx: e.st_shndx.get(LE),
        })
    }

    /// Finds kernels (every `NAME.kd` symbol) and checks descriptor
    /// placement, as [`kernels`] does for a decoded table.
    pub fn kernels(&self, elf: &Elf<'_>, sink: &mut Sink) -> Vec<KernelSymbols<'a>> {
        let kds: Vec<Symbol<'a>> = self.kd.iter().filter_map(|&i| self.symbol(i)).collect();
        let find = |entries: &mut EntryMap<'a>, lengths: &NameLengths| {
            for (i, &l) in self.lens.iter().enumerate() {
                if !lengths.has(l as u8) {
                    continue;
                }
                let Some(e) = self.symbol(i).filter(|e| e.sym_type != STT_SECTION) else {
                    continue;
                };
                if let Some(slot @ None) = entries.get_mut(e.name) {
                    *slot = Some(e);
                }
            }
        };
        kernels_of(elf, &kds, find, sink)
    }
}

/// The NUL-terminated UTF-8 string at `off` in `table` (as
/// [`elf::cstr`]), found with the standard library's word-wise NUL search:
/// symbol names are long mangled names, and a byte loop showed in
/// profiles.
fn cstr(table: &[u8], off: usize) -> Option<&str> {
    std::ffi::CStr::from_bytes_until_nul(table.get(off..)?)
        .ok()?
        .to_str()
        .ok()
}

/// A string table's names: the table as one `str` when it is valid UTF-8
/// (a name is then a slice between a character boundary and the next NUL,
/// with nothing left to validate), else name by name with [`cstr`].
#[derive(Debug, Default)]
struct Names<'a> {
    bytes: &'a [u8],
    text: Option<&'a str>,
}

impl<'a> Names<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Names {
            bytes,
            text: std::str::from_utf8(bytes).ok(),
        }
    }

    /// The name at `off`, as [`cstr`] would give it.
    fn get(&self, off: usize) -> Option<&'a str> {
        let len = self.len_at(off)?;
        Some(self.slice(off, len))
    }

    /// The length of the name at `off`, if [`cstr`] would give one.
    /// Inlined into the loop over every symbol: the call cost as much as
    /// the search.
    #[inline(always)]
    fn len_at(&self, off: usize) -> Option<usize> {
        if self.text.is_none() {
            return cstr(self.bytes, off).map(str::len);
        }
        let rest = self.bytes.get(off..)?;
        let len = nul_at(rest)?;
        // In valid UTF-8 a name starts a character unless its first byte
        // continues one (0x80..=0xbf); the NUL ends one.
        let continues = rest.first().is_some_and(|&b| (b as i8) < -0x40);
        (!continues).then_some(len)
    }

    /// The name of `len` bytes at `off`, as [`Names::len_at`] measured it
    /// ("" for any other range).
    fn slice(&self, off: usize, len: usize) -> &'a str {
        let Some(end) = off.checked_add(len) else {
            return "";
        };
        match self.text {
            Some(text) => text.get(off..end).unwrap_or(""),
            None => self
                .bytes
                .get(off..end)
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or(""),
        }
    }
}

/// Index of the first NUL byte in `b`. Eight bytes at a time: most symbol
/// names are short local labels, for which the standard library's search
/// spends more on setting up than on searching. (A bit map of the whole
/// string table's NULs, made once, cost more: much of the table is long
/// names no symbol of interest needs.)
#[inline(always)]
fn nul_at(b: &[u8]) -> Option<usize> {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = b.chunks_exact(8);
    let mut at = 0;
    for w in words.by_ref() {
        let v = u64::from_le_bytes(w.try_into().expect("chunks of 8"));
        // The lowest set high bit marks the first zero byte (bits above it
        // may be false positives; below it there are none).
        let zero = v.wrapping_sub(LOW) & !v & HIGH;
        if zero != 0 {
            return Some(at + zero.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&c| c == 0)
        .map(|i| at + i)
}

/// A kernel as the symbol table shows it.
#[derive(Debug, Clone)]
pub struct KernelSymbols<'a> {
    /// Kernel name (the descriptor symbol without `.kd`).
    pub name: &'a str,
    /// The `NAME.kd` symbol.
    pub kd: Symbol<'a>,
    /// File offset of the 64 descriptor bytes, when they are in the file.
    pub kd_offset: Option<u64>,
    /// The entry symbol `NAME`, if present.
    pub entry: Option<Symbol<'a>>,
}

fn section_of<'e>(elf: &'e Elf, sym: &Symbol<'_>) -> Option<&'e Section> {
    // SHN_UNDEF and the reserved range (SHN_LORESERVE and up) name no section.
    if sym.shndx == 0 || sym.shndx >= 0xff00 {
        return None;
    }
    elf.sections.get(sym.shndx as usize)
}

/// Kernel entry symbols by kernel name: the first non-section symbol of
/// each name, as a linear search in table order would find.
type EntryMap<'a> = HashMap<&'a str, Option<Symbol<'a>>, FastHash>;

/// The lengths of the kernel names, modulo 256, as a bit set: symbols of
/// other name lengths (local labels, mostly) are passed over without
/// hashing their names.
struct NameLengths([u64; 4]);

impl NameLengths {
    fn add(&mut self, len: usize) {
        let l = len % 256;
        self.0[l / 64] |= 1u64 << (l % 64);
    }
    fn has(&self, len_mod: u8) -> bool {
        let l = usize::from(len_mod);
        self.0[l / 64] & (1u64 << (l % 64)) != 0
    }
}

/// Finds kernels (every `NAME.kd` symbol) and checks descriptor placement.
pub fn kernels<'a>(elf: &Elf<'_>, syms: &Symbols<'a>, sink: &mut Sink) -> Vec<KernelSymbols<'a>> {
    let kds: Vec<Symbol<'a>> = syms
        .symbols
        .iter()
        .filter(|s| {
            s.name.len() > KD_SUFFIX.len()
                && s.name.ends_with(KD_SUFFIX)
                && s.sym_type != STT_SECTION
        })
        .copied()
        .collect();
    let find = |entries: &mut EntryMap<'a>, lengths: &NameLengths| {
        for e in syms.symbols.iter().filter(|e| e.sym_type != STT_SECTION) {
            if lengths.has(e.name.len() as u8) {
                if let Some(slot @ None) = entries.get_mut(e.name) {
                    *slot = Some(*e);
                }
            }
        }
    };
    kernels_of(elf, &kds, find, sink)
}

/// The kernels of descriptor symbols `kds` (in table order); `find_entries`
/// fills the entry map for the kernel names whose lengths it is given.
fn kernels_of<'a>(
    elf: &Elf<'_>,
    kds: &[Symbol<'a>],
    find_entries: impl FnOnce(&mut EntryMap<'a>, &NameLengths),
    sink: &mut Sink,
) -> Vec<KernelSymbols<'a>> {
    let mut out: Vec<KernelSymbols<'a>> = Vec::with_capacity(kds.len());
    // Objects hold hundreds of kernels among tens of thousands of symbols:
    // look entry symbols up in a map built once, keyed by the kernel names
    // only.
    let mut entries: EntryMap<'a> = HashMap::with_capacity_and_hasher(kds.len(), FastHash);
    let mut lengths = NameLengths([0; 4]);
    // Whether each descriptor symbol repeats an earlier one's name, found
    // by the same insert (one hash per long name).
    let repeats: Vec<bool> = kds
        .iter()
        .map(|s| {
            let name = kd_stem(s.name);
            lengths.add(name.len());
            entries.insert(name, None).is_some()
        })
        .collect();
    if !entries.is_empty() {
        find_entries(&mut entries, &lengths);
    }
    for (s, &repeat) in kds.iter().zip(&repeats) {
        let name = kd_stem(s.name);
        sink.set_kernel(Some(name));
        if repeat {
            sink.report(
                &KD_DUPLICATE,
                format!("descriptor symbol {} is defined more than once", s.name),
            );
            continue;
        }
        if s.sym_type != STT_OBJECT {
            sink.report(
                &KD_TYPE,
                format!(
                    "{} has symbol type {}, expected STT_OBJECT (1)",
                    s.name, s.sym_type
                ),
            );
        }
        if s.size != 64 {
            sink.report(
                &KD_SIZE,
                format!("{} has size {}, expected 64", s.name, s.size),
            );
        }
        let sec = section_of(elf, s);
        let mut kd_offset = None;
        match sec {
            Some(sec) if sec.is_read_only_data() && sec.sh_type != elf::SHT_NOBITS => {
                kd_offset = elf.addr_to_offset(s.shndx as usize, s.value);
                let inside = kd_offset.is_some_and(|o| {
                    o.checked_add(64).is_some_and(|e| e <= sec.offset.saturating_add(sec.size))
                        && elf::range(elf.data, o, 64).is_some()
                });
                if !inside {
                    sink.report(
                        &KD_SECTION,
                        format!("{}'s 64 bytes at {:#x} are not inside section '{}'", s.name, s.value, sec.name),
                    );
                    kd_offset = None;
                }
                let align = crate::layout::KD_ALIGN;
                let aligned = s.value % align == 0 && (elf.header.e_type != ET_REL || sec.addralign % align == 0);
                if !aligned {
                    sink.report(
                        &KD_ALIGN,
                        format!(
                            "{} is at {:#x} in '{}' (alignment {}), not {align}-byte aligned",
                            s.name, s.value, sec.name, sec.addralign
                        ),
                    );
                }
            }
            Some(sec) => sink.report(
                &KD_SECTION,
                format!(
                    "{} is in section '{}' with flags {:#x}; expected an allocated, read-only, non-executable section with file bytes",
                    s.name, sec.name, sec.flags
                ),
            ),
            None => sink.report(
                &KD_SECTION,
                format!("{} is not defined in a section (st_shndx {:#x})", s.name, s.shndx),
            ),
        }
        let entry = entries.get(name).copied().flatten();
        match &entry {
            None => sink.report(
                &KERNEL_MISSING,
                format!("no kernel entry symbol '{name}' for {}", s.name),
            ),
            Some(e) => {
                let in_code = section_of(elf, e).is_some_and(|sec| sec.is_code());
                if e.sym_type != STT_FUNC || !in_code {
                    sink.report(
                        &KERNEL_TYPE,
                        format!(
                            "kernel symbol '{name}' has type {} in {}; expected STT_FUNC (2) in an executable section",
                            e.sym_type,
                            section_of(elf, e).map_or("no section".to_owned(), |s| format!("section '{}'", s.name))
                        ),
                    );
                }
            }
        }
        out.push(KernelSymbols {
            name,
            kd: *s,
            kd_offset,
            entry,
        });
    }
    sink.set_kernel(None);
    out
}

/// Checks where a descriptor's entry offset leads: to the kernel symbol,
/// 256-byte aligned, in code. `entry_offset` is the descriptor's
/// kernel_code_entry_byte_offset as stored in the file.
pub fn check_entry(
    elf: &Elf,
    syms: &Table<'_>,
    k: &KernelSymbols<'_>,
    entry_offset: i64,
    sink: &mut Sink,
) {
    sink.set_kernel(Some(k.name));
    let Some(kd_off) = k.kd_offset else { return };
    let field = kd_off + 16;
    if elf.header.e_type == ET_REL {
        check_entry_rel(elf, syms, k, field, sink);
        sink.set_kernel(None);
        return;
    }
    let target = (k.kd.value as i128) + entry_offset as i128;
    let Ok(target) = u64::try_from(target) else {
        sink.report_at(
            &ENTRY_TARGET,
            field,
            format!(
                "descriptor at {:#x} plus entry offset {entry_offset} is a negative address",
                k.kd.value
            ),
        );
        sink.set_kernel(None);
        return;
    };
    if target % 256 != 0 {
        sink.report_at(
            &ENTRY_ALIGN,
            field,
            format!("kernel entry {target:#x} is not 256-byte aligned"),
        );
    }
    let in_code = elf
        .sections
        .iter()
        .any(|s| s.is_code() && target >= s.addr && target < s.addr.saturating_add(s.size));
    match &k.entry {
        Some(e) if e.value != target || !in_code => sink.report_at(
            &ENTRY_TARGET,
            field,
            format!(
                "descriptor at {:#x} + entry offset {entry_offset:#x} = {target:#x}, but kernel symbol '{}' is at {:#x}{}",
                k.kd.value,
                k.name,
                e.value,
                if in_code { "" } else { " and the target is not in an executable section" }
            ),
        ),
        None if !in_code => sink.report_at(
            &ENTRY_TARGET,
            field,
            format!("descriptor entry {target:#x} is not inside an executable section"),
        ),
        _ => {}
    }
    let _ = syms;
    sink.set_kernel(None);
}

/// In an `ET_REL` object the field is resolved at link time by an
/// `R_AMDGPU_REL64` relocation whose value S + A - P must equal
/// kernel - descriptor, i.e. the relocation names the kernel (or its
/// section) with addend 16 + the kernel's offset from the symbol.
fn check_entry_rel(
    elf: &Elf,
    syms: &Table<'_>,
    k: &KernelSymbols<'_>,
    field: u64,
    sink: &mut Sink,
) {
    let kd_sec = k.kd.shndx as u32;
    let field_rel = k.kd.value.saturating_add(16);
    let mut found = Vec::new();
    for rs in elf
        .sections
        .iter()
        .filter(|s| s.sh_type == SHT_RELA && s.info == kd_sec)
    {
        if Some(rs.link as usize) != syms.index {
            continue;
        }
        let Some(data) = rs.data(elf.data) else {
            continue;
        };
        for e in data.chunks_exact(RELA_SIZE as usize) {
            let Ok((r, _)) = from_bytes::<raw::Rela>(e) else {
                continue;
            };
            if r.r_offset.get(LE) != field_rel {
                continue;
            }
            let info = r.r_info.get(LE);
            found.push(((info >> 32) as usize, info as u32, r.r_addend.get(LE)));
        }
    }
    let [(sym_idx, r_type, addend)] = found[..] else {
        sink.report_at(
            &ENTRY_RELOCATION,
            field,
            format!(
                "{} relocations apply to the entry offset field of {}; expected one R_AMDGPU_REL64",
                found.len(),
                k.kd.name
            ),
        );
        return;
    };
    if r_type != R_AMDGPU_REL64 {
        sink.report_at(
            &ENTRY_RELOCATION,
            field,
            format!("the entry offset relocation has type {r_type}; expected R_AMDGPU_REL64 (5)"),
        );
        return;
    }
    let Some(sym) = syms.symbol(sym_idx) else {
        sink.report_at(
            &ENTRY_RELOCATION,
            field,
            format!("the entry offset relocation names symbol {sym_idx}, which does not exist"),
        );
        return;
    };
    // Section-relative location of the entry the relocation resolves to.
    let target = (sym.value as i128) + (addend as i128) - 16;
    let in_code = section_of(elf, &sym).is_some_and(|s| s.is_code());
    let ok = match &k.entry {
        Some(e) => in_code && e.shndx == sym.shndx && e.value as i128 == target,
        None => in_code,
    };
    if !ok {
        sink.report_at(
            &ENTRY_TARGET,
            field,
            format!(
                "the entry offset relocation resolves to '{}'{:+} - 16, which is not kernel symbol '{}' in an executable section",
                sym.name, addend, k.name
            ),
        );
    } else if target % 256 != 0 {
        sink.report_at(
            &ENTRY_ALIGN,
            field,
            format!("kernel entry at section offset {target:#x} is not 256-byte aligned"),
        );
    }
}

/// A code object V2 kernel as the symbol table shows it.
#[derive(Debug, Clone)]
pub struct V2KernelSymbol<'a> {
    /// Kernel name: the symbol's name, which the metadata calls `Name`.
    pub name: &'a str,
    /// The `STT_AMDGPU_HSA_KERNEL` symbol.
    pub symbol: Symbol<'a>,
    /// File offset of the 256-byte `amd_kernel_code_t`, when it lies inside
    /// its section and the file.
    pub code_offset: Option<u64>,
}

/// Size of the `amd_kernel_code_t` the V2 kernel symbol points at.
const KERNEL_CODE_BYTES: u64 = 256;

/// Finds the kernels of a code object V2 (every `STT_AMDGPU_HSA_KERNEL`
/// symbol, first definition of each name) and checks where their
/// `amd_kernel_code_t` lies.
pub fn v2_kernels<'a>(
    elf: &Elf<'_>,
    syms: &Symbols<'a>,
    sink: &mut Sink,
) -> Vec<V2KernelSymbol<'a>> {
    let mut out = Vec::new();
    let mut seen: HashSet<&str, FastHash> = HashSet::default();
    for s in syms
        .symbols
        .iter()
        .filter(|s| s.sym_type == STT_AMDGPU_HSA_KERNEL)
    {
        sink.set_kernel(Some(s.name));
        if !seen.insert(s.name) {
            sink.report(
                &V2_KERNEL_DUPLICATE,
                format!(
                    "kernel symbol '{}' (symbol {}) is defined more than once",
                    s.name, s.index
                ),
            );
            continue;
        }
        let mut code_offset = None;
        match section_of(elf, s) {
            Some(sec) if sec.is_code() && sec.sh_type != elf::SHT_NOBITS => {
                let off = elf.addr_to_offset(s.shndx as usize, s.value);
                let inside = off.is_some_and(|o| {
                    o.checked_add(KERNEL_CODE_BYTES)
                        .is_some_and(|e| e <= sec.offset.saturating_add(sec.size))
                        && elf::range(elf.data, o, KERNEL_CODE_BYTES).is_some()
                });
                if inside {
                    code_offset = off;
                } else {
                    sink.report(
                        &V2_KERNEL_SECTION,
                        format!(
                            "the 256-byte amd_kernel_code_t of kernel symbol '{}' at {:#x} is not inside section '{}' ({:#x} bytes)",
                            s.name, s.value, sec.name, sec.size
                        ),
                    );
                }
            }
            Some(sec) => sink.report(
                &V2_KERNEL_SECTION,
                format!(
                    "kernel symbol '{}' is in section '{}' with type {} and flags {:#x}; expected an allocated, executable section with file bytes",
                    s.name, sec.name, sec.sh_type, sec.flags
                ),
            ),
            None => sink.report(
                &V2_KERNEL_SECTION,
                format!(
                    "kernel symbol '{}' is not defined in a section (st_shndx {:#x})",
                    s.name, s.shndx
                ),
            ),
        }
        out.push(V2KernelSymbol {
            name: s.name,
            symbol: *s,
            code_offset,
        });
    }
    sink.set_kernel(None);
    out
}

/// Checks where a V2 kernel's entry lies: inside its executable section
/// (and, in a relocatable object, that the section alignment keeps it
/// 256-byte aligned after linking). `entry_offset` is the
/// `amd_kernel_code_t`'s kernel_code_entry_byte_offset; the alignment of
/// the entry itself is [`crate::kernel_code::check_placement`]'s rule.
pub fn check_entry_v2(elf: &Elf, k: &V2KernelSymbol<'_>, entry_offset: i64, sink: &mut Sink) {
    let Some(off) = k.code_offset else { return };
    let Some(sec) = section_of(elf, &k.symbol) else {
        return;
    };
    sink.set_kernel(Some(k.name));
    let field = off.saturating_add(crate::kernel_code::offsets::KERNEL_CODE_ENTRY_BYTE_OFFSET);
    // Section-relative position of the entry.
    let base = if elf.header.e_type == ET_REL {
        0i128
    } else {
        i128::from(sec.addr)
    };
    let entry = i128::from(k.symbol.value) + i128::from(entry_offset) - base;
    if entry < 0 || entry >= i128::from(sec.size) {
        sink.report_at(
            &V2_ENTRY,
            field,
            format!(
                "the entry at {:#x} {entry_offset:+} lies outside section '{}' ({:#x} bytes)",
                k.symbol.value, sec.name, sec.size
            ),
        );
    }
    if elf.header.e_type == ET_REL && !(sec.addralign >= 256 && sec.addralign.is_multiple_of(256)) {
        sink.report_at(
            &V2_ENTRY,
            field,
            format!(
                "section '{}' holding the kernel is aligned to {}, not a multiple of 256: the linker may place the entry off a 256-byte boundary",
                sec.name, sec.addralign
            ),
        );
    }
    sink.set_kernel(None);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_search_agrees_with_the_standard_library() {
        let mut b = vec![b'x'; 40];
        assert_eq!(nul_at(&b), None);
        for end in 0..b.len() {
            for at in 0..end {
                b.fill(b'x');
                b[at] = 0;
                // A later NUL and bytes that look like zeros to a careless
                // word test (0x80, 0x01 after a 0x00) must not matter.
                if at + 1 < end {
                    b[at + 1] = 0x01;
                }
                if at > 0 {
                    b[at - 1] = 0x80;
                }
                let want = std::ffi::CStr::from_bytes_until_nul(&b[..end])
                    .ok()
                    .map(|c| c.count_bytes());
                assert_eq!(nul_at(&b[..end]), want, "{at} {end}");
            }
        }
    }

    #[test]
    fn names_agree_with_cstr() {
        // Valid UTF-8 (the NUL map) with multi-byte characters, whose
        // inner bytes are no name's start; and invalid (name by name).
        let tables: [&[u8]; 2] = [
            "\0kernel\0kernel.kd\0é\0xé€y\0tail".as_bytes(),
            b"\0kernel\0kernel.kd\0bad\xff\0tail",
        ];
        for table in tables {
            let names = Names::new(table);
            for off in 0..table.len() + 2 {
                assert_eq!(names.get(off), cstr(table, off), "offset {off}");
            }
        }
    }

    #[test]
    fn cstr_agrees_with_elf_cstr() {
        let table: &[u8] = b"\0kernel\0kernel.kd\0bad\xff\0tail";
        for off in 0..table.len() + 2 {
            assert_eq!(cstr(table, off), elf::cstr(table, off), "offset {off}");
        }
        assert_eq!(cstr(table, 1), Some("kernel"));
        assert_eq!(cstr(table, 18), None); // invalid UTF-8
        assert_eq!(cstr(table, 24), None); // no NUL
    }
}
