//! The ELF container of a code object: header, `e_flags`, program headers
//! and section headers, every size and offset bounds-checked against the
//! file before use.
//!
//! Sources: amdgpu-usage.rst "ELF Code Object" / "Header" / "Sections";
//! NOTES.md "ELF header"; LLVM `llvm/include/llvm/BinaryFormat/ELF.h`.

use crate::rules::{Rule, Sink};
use crate::targets::{self, CodeObjectVersion, Generation, Target};
use serde::Serialize;

crate::declare_rules! {
    HEADER_TRUNCATED = (Error, "elf.header.truncated",
        "The file holds a complete 64-byte ELF64 header.",
        "ELF gABI; amdgpu-usage.rst: Header");
    IDENT_CLASS = (Error, "elf.ident.class",
        "EI_CLASS is ELFCLASS64 (2): amdgcn code objects are 64-bit.",
        "amdgpu-usage.rst: Header (e_ident[EI_CLASS])");
    IDENT_DATA = (Error, "elf.ident.data",
        "EI_DATA is ELFDATA2LSB (1): all AMDGPU targets are little-endian.",
        "amdgpu-usage.rst: Header (e_ident[EI_DATA])");
    IDENT_VERSION = (Error, "elf.ident.version",
        "EI_VERSION is EV_CURRENT (1).",
        "ELF gABI");
    IDENT_OSABI = (Error, "elf.ident.osabi",
        "EI_OSABI is ELFOSABI_AMDGPU_HSA (64) for an HSA code object.",
        "amdgpu-usage.rst: Header (e_ident[EI_OSABI]); NOTES.md: ELF header");
    IDENT_ABI_VERSION = (Error, "elf.ident.abi_version",
        "EI_ABIVERSION names a known HSA code object version (0-4 for V2-V6).",
        "NOTES.md: ELF header; llvm/include/llvm/BinaryFormat/ELF.h");
    IDENT_PAD = (Warning, "elf.ident.pad",
        "The e_ident padding bytes (9-15) are zero.",
        "ELF gABI");
    TYPE = (Error, "elf.type",
        "e_type is ET_REL (1) or ET_DYN (3); the HSA loader needs ET_DYN.",
        "amdgpu-usage.rst: Header (e_type)");
    MACHINE = (Error, "elf.machine",
        "e_machine is EM_AMDGPU (224).",
        "amdgpu-usage.rst: Header (e_machine)");
    VERSION = (Error, "elf.version",
        "e_version is EV_CURRENT (1).",
        "ELF gABI");
    ENTRY = (Error, "elf.entry",
        "e_entry is 0: kernels are entered through their descriptors.",
        "amdgpu-usage.rst: Header (e_entry)");
    HEADER_SIZES = (Error, "elf.header.sizes",
        "e_ehsize is 64, e_phentsize is 56 when there are program headers, e_shentsize is 64 when there are section headers.",
        "ELF gABI (ELF64)");
    E_FLAGS_MACH = (Error, "elf.e_flags.mach",
        "EF_AMDGPU_MACH names a known amdgcn processor (not none, r600-era or reserved).",
        "amdgpu-usage.rst: EF_AMDGPU_MACH values; NOTES.md: ELF header");
    E_FLAGS_MACH_RETIRED = (Info, "elf.e_flags.mach_retired",
        "EF_AMDGPU_MACH names a processor later LLVM releases removed (gfx940, gfx941): the object is checked as the last LLVM that built it did, but current toolchains reject the processor.",
        "NOTES.md: ELF header (0x40, 0x4B); LLVM commit 8615f9a (removal, first in LLVM 21); llvm-mc-19 and llvm-mc-22 -mcpu=gfx940");
    E_FLAGS_MACH_UNMODELLED = (Warning, "elf.e_flags.mach_unmodelled",
        "EF_AMDGPU_MACH names a processor that current LLVM knows but this checker does not model yet; its target-specific rules are skipped.",
        "llvm/include/llvm/BinaryFormat/ELF.h (EF_AMDGPU_MACH values)");
    E_FLAGS_RESERVED = (Error, "elf.e_flags.reserved",
        "e_flags bits outside the fields defined for the code object version are zero.",
        "amdgpu-usage.rst: e_flags; NOTES.md: ELF header");
    E_FLAGS_XNACK = (Error, "elf.e_flags.xnack",
        "The xnack field of e_flags is 'unsupported' (0) exactly when the processor lacks xnack.",
        "amdgpu-usage.rst: e_flags (EF_AMDGPU_XNACK); NOTES.md: ELF header");
    E_FLAGS_SRAMECC = (Error, "elf.e_flags.sramecc",
        "The sramecc field of e_flags is 'unsupported' (0) exactly when the processor lacks sramecc.",
        "amdgpu-usage.rst: e_flags (EF_AMDGPU_SRAM_ECC); NOTES.md: ELF header");
    E_FLAGS_GENERIC_VERSION = (Error, "elf.e_flags.generic_version",
        "EF_AMDGPU_GENERIC_VERSION (bits 31:24) is at least 1 for a generic target and 0 for any other.",
        "NOTES.md: ELF header (V6)");
    GENERIC_NEEDS_V6 = (Error, "elf.e_flags.generic_needs_v6",
        "A generic target (gfx9-generic, ...) is only valid in code object V6 or later.",
        "NOTES.md: ELF header (V6); llvm/lib/Target/AMDGPU/AMDGPUTargetStreamer.cpp");
    PHDR_BOUNDS = (Error, "elf.phdr.bounds",
        "The program header table and each segment's file bytes lie inside the file.",
        "ELF gABI");
    PHDR_SIZES = (Error, "elf.phdr.sizes",
        "A segment's p_filesz is not larger than its p_memsz.",
        "ELF gABI");
    PHDR_ALIGN = (Error, "elf.phdr.align",
        "p_align is 0 or a power of two, and a PT_LOAD segment has p_offset = p_vaddr modulo p_align.",
        "ELF gABI");
    SHDR_BOUNDS = (Error, "elf.shdr.bounds",
        "The section header table and each section's file bytes (except SHT_NOBITS) lie inside the file.",
        "ELF gABI");
    SHDR_ALIGN = (Error, "elf.shdr.align",
        "sh_addralign is 0 or a power of two, and an allocated section's address is a multiple of it.",
        "ELF gABI");
    SHSTRNDX = (Error, "elf.shstrndx",
        "e_shstrndx names a SHT_STRTAB section, and every section name is a NUL-terminated string inside it.",
        "ELF gABI");
    LOAD_SEGMENTS = (Error, "elf.load_segments",
        "A shared code object (ET_DYN) has PT_LOAD segments covering its allocated sections.",
        "amdgpu-usage.rst: ELF Code Object (lld produces a loadable shared object)");
}

pub mod raw;

// The constants other modules and crates name through `elf::` (one
// declaration each, in `raw`: the `object` crate's or, for AMDGPU values
// it lacks, ours).
use raw::{at, from_bytes, FileHeader, ProgramHeader, SectionHeader, LE};
pub use raw::{
    EHDR_SIZE, ELFCLASS64, ELFDATA2LSB, ELFOSABI_AMDGPU_HSA, ELFOSABI_AMDGPU_MESA3D,
    ELFOSABI_AMDGPU_PAL, EM_AMDGPU, ET_DYN, ET_REL, EV_CURRENT, PHDR_SIZE, PT_LOAD, PT_NOTE,
    SHDR_SIZE, SHF_ALLOC, SHF_EXECINSTR, SHF_WRITE, SHT_DYNSYM, SHT_NOBITS, SHT_NOTE, SHT_PROGBITS,
    SHT_RELA, SHT_STRTAB, SHT_SYMTAB,
};

/// Reads a little-endian `u16` at `off`, or `None` past the end.
pub fn le_u16(d: &[u8], off: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        d.get(off..off.checked_add(2)?)?.try_into().ok()?,
    ))
}
/// Reads a little-endian `u32` at `off`, or `None` past the end.
pub fn le_u32(d: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        d.get(off..off.checked_add(4)?)?.try_into().ok()?,
    ))
}
/// Reads a little-endian `u64` at `off`, or `None` past the end.
pub fn le_u64(d: &[u8], off: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        d.get(off..off.checked_add(8)?)?.try_into().ok()?,
    ))
}

/// Returns `d[off..off+len]` when the whole range is inside `d`.
pub fn range(d: &[u8], off: u64, len: u64) -> Option<&[u8]> {
    let start = usize::try_from(off).ok()?;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    d.get(start..end)
}

/// The ELF64 file header fields the ABI constrains.
#[derive(Debug, Clone, Serialize)]
pub struct Header {
    /// `e_ident[EI_CLASS]`.
    pub class: u8,
    /// `e_ident[EI_DATA]`.
    pub data: u8,
    /// `e_ident[EI_VERSION]`.
    pub ident_version: u8,
    /// `e_ident[EI_OSABI]`.
    pub osabi: u8,
    /// `e_ident[EI_ABIVERSION]`.
    pub abi_version: u8,
    /// `e_type`.
    pub e_type: u16,
    /// `e_machine`.
    pub machine: u16,
    /// `e_version`.
    pub version: u32,
    /// `e_entry`.
    pub entry: u64,
    /// `e_phoff`.
    pub phoff: u64,
    /// `e_shoff`.
    pub shoff: u64,
    /// `e_flags`.
    pub flags: u32,
    /// `e_ehsize`.
    pub ehsize: u16,
    /// `e_phentsize`.
    pub phentsize: u16,
    /// `e_phnum`.
    pub phnum: u16,
    /// `e_shentsize`.
    pub shentsize: u16,
    /// `e_shnum`.
    pub shnum: u16,
    /// `e_shstrndx`.
    pub shstrndx: u16,
}

/// One program header.
#[derive(Debug, Clone, Serialize)]
pub struct Segment {
    /// `p_type`.
    pub p_type: u32,
    /// `p_flags`.
    pub flags: u32,
    /// `p_offset`.
    pub offset: u64,
    /// `p_vaddr`.
    pub vaddr: u64,
    /// `p_filesz`.
    pub filesz: u64,
    /// `p_memsz`.
    pub memsz: u64,
    /// `p_align`.
    pub align: u64,
}

/// One section header, with its name resolved.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    /// Index in the section header table.
    pub index: usize,
    /// Name from the section name string table ("" if unreadable).
    pub name: String,
    /// `sh_type`.
    pub sh_type: u32,
    /// `sh_flags`.
    pub flags: u64,
    /// `sh_addr`.
    pub addr: u64,
    /// `sh_offset`.
    pub offset: u64,
    /// `sh_size`.
    pub size: u64,
    /// `sh_link`.
    pub link: u32,
    /// `sh_info`.
    pub info: u32,
    /// `sh_addralign`.
    pub addralign: u64,
    /// `sh_entsize`.
    pub entsize: u64,
}

impl Section {
    /// The section's bytes in the file, if it has file bytes in range.
    pub fn data<'a>(&self, file: &'a [u8]) -> Option<&'a [u8]> {
        if self.sh_type == SHT_NOBITS {
            return Some(&[]);
        }
        range(file, self.offset, self.size)
    }

    /// True if the section is allocated, not writable and not executable.
    pub fn is_read_only_data(&self) -> bool {
        self.flags & SHF_ALLOC != 0 && self.flags & (SHF_WRITE | SHF_EXECINSTR) == 0
    }

    /// True if the section is allocated and executable.
    pub fn is_code(&self) -> bool {
        self.flags & SHF_ALLOC != 0 && self.flags & SHF_EXECINSTR != 0
    }
}

/// A parsed ELF64 code object.
#[derive(Debug)]
pub struct Elf<'a> {
    /// The whole file.
    pub data: &'a [u8],
    /// The file header.
    pub header: Header,
    /// Program headers that lie inside the file.
    pub segments: Vec<Segment>,
    /// Section headers that lie inside the file.
    pub sections: Vec<Section>,
    /// Code object version, when the OS ABI is HSA and the ABI version known.
    pub cov: Option<CodeObjectVersion>,
    /// The processor named by `EF_AMDGPU_MACH`, when known and amdgcn.
    pub target: Option<&'static Target>,
}

/// Why a file could not be read as an AMDGPU ELF code object at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotElf {
    /// The file does not start with `\x7fELF`.
    NoMagic,
}

/// True if `d` starts with the ELF magic.
pub fn has_magic(d: &[u8]) -> bool {
    d.starts_with(b"\x7fELF")
}

/// Reads a header without checking it; `None` if the file is too short.
pub fn read_header(d: &[u8]) -> Option<Header> {
    let (h, _) = from_bytes::<FileHeader>(d).ok()?;
    let id = &h.e_ident;
    Some(Header {
        class: id.class,
        data: id.data,
        ident_version: id.version,
        osabi: id.os_abi,
        abi_version: id.abi_version,
        e_type: h.e_type.get(LE),
        machine: h.e_machine.get(LE),
        version: h.e_version.get(LE),
        entry: h.e_entry.get(LE),
        phoff: h.e_phoff.get(LE),
        shoff: h.e_shoff.get(LE),
        flags: h.e_flags.get(LE),
        ehsize: h.e_ehsize.get(LE),
        phentsize: h.e_phentsize.get(LE),
        phnum: h.e_phnum.get(LE),
        shentsize: h.e_shentsize.get(LE),
        shnum: h.e_shnum.get(LE),
        shstrndx: h.e_shstrndx.get(LE),
    })
}

/// Reads the section headers of any little-endian ELF64 file (also host
/// binaries), keeping those inside the file; used to find `.hip_fatbin`.
pub fn read_sections(d: &[u8], h: &Header) -> Vec<Section> {
    let mut out = Vec::new();
    if h.shentsize as usize != SHDR_SIZE || h.shnum == 0 {
        return out;
    }
    for i in 0..h.shnum as usize {
        let Some(off) = (i as u64)
            .checked_mul(SHDR_SIZE as u64)
            .and_then(|o| o.checked_add(h.shoff))
        else {
            break;
        };
        let Some((s, _)) =
            range(d, off, SHDR_SIZE as u64).and_then(|b| from_bytes::<SectionHeader>(b).ok())
        else {
            break;
        };
        out.push(Section {
            index: i,
            // The raw name offset, until names are resolved.
            name: s.sh_name.get(LE).to_string(),
            sh_type: s.sh_type.get(LE),
            flags: s.sh_flags.get(LE),
            addr: s.sh_addr.get(LE),
            offset: s.sh_offset.get(LE),
            size: s.sh_size.get(LE),
            link: s.sh_link.get(LE),
            info: s.sh_info.get(LE),
            addralign: s.sh_addralign.get(LE),
            entsize: s.sh_entsize.get(LE),
        });
    }
    resolve_names(d, h, &mut out);
    out
}

/// Replaces the raw name offsets stashed in `name` by the names; returns
/// false if the string table or a name is out of bounds.
fn resolve_names(d: &[u8], h: &Header, secs: &mut [Section]) -> bool {
    let strtab = secs
        .get(h.shstrndx as usize)
        .filter(|s| s.sh_type == SHT_STRTAB)
        .and_then(|s| s.data(d));
    let mut ok = strtab.is_some();
    for s in secs.iter_mut() {
        let off: usize = s.name.parse().unwrap_or(usize::MAX);
        s.name = match strtab.and_then(|t| cstr(t, off)) {
            Some(n) => n.to_owned(),
            None => {
                ok = false;
                String::new()
            }
        };
    }
    ok
}

/// Whether a header table is there to read: (kind, where the header
/// says where it is, its offset, entries, entry size) with entries of
/// the size `entsize` says and inside the file; reports `rule` if it
/// runs past the end.
fn table_fits(
    d: &[u8],
    sink: &mut Sink,
    rule: &'static Rule,
    entsize: u16,
    (kind, at, off, n, size): (&str, usize, u64, u16, usize),
) -> bool {
    if n == 0 || usize::from(entsize) != size {
        return false;
    }
    if range(d, off, u64::from(n) * size as u64).is_none() {
        sink.report_at(
            rule,
            at as u64,
            format!(
                "{kind} header table at {off:#x} with {n} entries ends past the end of the {}-byte file",
                d.len()
            ),
        );
        return false;
    }
    true
}

/// Reads the NUL-terminated string at `off` in `table` (lossy UTF-8 is not
/// needed: names that are not UTF-8 come back as `None`).
pub fn cstr(table: &[u8], off: usize) -> Option<&str> {
    let rest = table.get(off..)?;
    let end = rest.iter().position(|&b| b == 0)?;
    std::str::from_utf8(&rest[..end]).ok()
}

fn is_pow2_or_zero(v: u64) -> bool {
    v & v.wrapping_sub(1) == 0
}

impl<'a> Elf<'a> {
    /// Parses and checks the container. Returns `None` when the header is
    /// unusable (too short, not ELF64 little-endian, not AMDGPU); the reason
    /// is in `sink`.
    pub fn parse(d: &'a [u8], sink: &mut Sink) -> Option<Elf<'a>> {
        let Some(h) = read_header(d) else {
            sink.report_at(
                &HEADER_TRUNCATED,
                0,
                format!(
                    "file is {} bytes, shorter than the 64-byte ELF64 header",
                    d.len()
                ),
            );
            return None;
        };
        // The fields without which nothing else can be read: (rule,
        // offset, field, value, expected, the expected value's name).
        #[rustfmt::skip]
        let fatal: [(&'static Rule, usize, &str, u64, u64, &str); 3] = [
            (&IDENT_CLASS, at::CLASS, "EI_CLASS", h.class.into(), ELFCLASS64.into(), " (ELFCLASS64)"),
            (&IDENT_DATA, at::DATA, "EI_DATA", h.data.into(), ELFDATA2LSB.into(), " (ELFDATA2LSB)"),
            (&MACHINE, at::MACHINE, "e_machine", h.machine.into(), EM_AMDGPU.into(), " (EM_AMDGPU)"),
        ];
        if !fatal
            .into_iter()
            .all(|(rule, at, field, is, want, name)| expect(sink, rule, at, field, is, want, name))
        {
            return None;
        }
        let ev = u64::from(EV_CURRENT);
        #[rustfmt::skip]
        let _ = expect(sink, &IDENT_VERSION, at::IDENT_VERSION, "EI_VERSION", h.ident_version.into(), ev, "");
        let mut cov = None;
        match h.osabi {
            ELFOSABI_AMDGPU_HSA => {
                cov = CodeObjectVersion::from_abi_version(h.abi_version);
                if cov.is_none() {
                    sink.report_at(
                        &IDENT_ABI_VERSION,
                        at::ABI_VERSION as u64,
                        format!(
                            "EI_ABIVERSION is {}, which names no HSA code object version (0-4 are V2-V6)",
                            h.abi_version
                        ),
                    );
                }
            }
            other => {
                let what = match other {
                    0 => "ELFOSABI_NONE",
                    ELFOSABI_AMDGPU_PAL => "ELFOSABI_AMDGPU_PAL",
                    ELFOSABI_AMDGPU_MESA3D => "ELFOSABI_AMDGPU_MESA3D",
                    _ => "an unknown OS ABI",
                };
                sink.report_at(
                    &IDENT_OSABI,
                    at::OSABI as u64,
                    format!("EI_OSABI is {other} ({what}), expected 64 (ELFOSABI_AMDGPU_HSA); HSA rules are not checked"),
                );
            }
        }
        if let Some(i) = d[at::PAD..at::TYPE].iter().position(|&b| b != 0) {
            let i = at::PAD + i;
            sink.report_at(
                &IDENT_PAD,
                i as u64,
                format!("e_ident[{i}] is {:#x}, expected 0", d[i]),
            );
        }
        if h.e_type != ET_REL && h.e_type != ET_DYN {
            sink.report_at(
                &TYPE,
                at::TYPE as u64,
                format!("e_type is {}, expected 1 (ET_REL) or 3 (ET_DYN)", h.e_type),
            );
        }
        #[rustfmt::skip]
        let _ = expect(sink, &VERSION, at::VERSION, "e_version", h.version.into(), ev, "");
        if h.entry != 0 {
            sink.report_at(
                &ENTRY,
                at::ENTRY as u64,
                format!("e_entry is {:#x}, expected 0", h.entry),
            );
        }
        let mut sizes = Vec::new();
        if h.ehsize as usize != EHDR_SIZE {
            sizes.push(format!("e_ehsize is {}, expected 64", h.ehsize));
        }
        if h.phnum > 0 && h.phentsize as usize != PHDR_SIZE {
            sizes.push(format!("e_phentsize is {}, expected 56", h.phentsize));
        }
        if h.shnum > 0 && h.shentsize as usize != SHDR_SIZE {
            sizes.push(format!("e_shentsize is {}, expected 64", h.shentsize));
        }
        if !sizes.is_empty() {
            sink.report_at(&HEADER_SIZES, at::EHSIZE as u64, sizes.join("; "));
        }

        let target = cov.and_then(|cov| check_e_flags(h.flags, cov, sink));
        let segments = Self::read_segments(d, &h, sink);
        let sections = Self::read_checked_sections(d, &h, sink);
        let elf = Elf {
            data: d,
            header: h,
            segments,
            sections,
            cov,
            target,
        };
        elf.check_layout(sink);
        Some(elf)
    }

    fn read_segments(d: &[u8], h: &Header, sink: &mut Sink) -> Vec<Segment> {
        let mut out = Vec::new();
        let table = ("program", at::PHOFF, h.phoff, h.phnum, PHDR_SIZE);
        if !table_fits(d, sink, &PHDR_BOUNDS, h.phentsize, table) {
            return out;
        }
        for i in 0..h.phnum as u64 {
            let off = h.phoff + i * PHDR_SIZE as u64;
            let Some((p, _)) =
                range(d, off, PHDR_SIZE as u64).and_then(|b| from_bytes::<ProgramHeader>(b).ok())
            else {
                break;
            };
            let s = Segment {
                p_type: p.p_type.get(LE),
                flags: p.p_flags.get(LE),
                offset: p.p_offset.get(LE),
                vaddr: p.p_vaddr.get(LE),
                filesz: p.p_filesz.get(LE),
                memsz: p.p_memsz.get(LE),
                align: p.p_align.get(LE),
            };
            if range(d, s.offset, s.filesz).is_none() {
                sink.report_at(
                    &PHDR_BOUNDS,
                    off,
                    format!(
                        "segment {i} (type {:#x}) file bytes {:#x}+{:#x} end past the end of the {}-byte file",
                        s.p_type,
                        s.offset,
                        s.filesz,
                        d.len()
                    ),
                );
            }
            if s.filesz > s.memsz {
                sink.report_at(
                    &PHDR_SIZES,
                    off,
                    format!(
                        "segment {i}: p_filesz {:#x} is larger than p_memsz {:#x}",
                        s.filesz, s.memsz
                    ),
                );
            }
            if !is_pow2_or_zero(s.align) {
                sink.report_at(
                    &PHDR_ALIGN,
                    off,
                    format!("segment {i}: p_align {:#x} is not a power of two", s.align),
                );
            } else if s.p_type == PT_LOAD && s.align > 1 && s.offset % s.align != s.vaddr % s.align
            {
                sink.report_at(
                    &PHDR_ALIGN,
                    off,
                    format!(
                        "PT_LOAD segment {i}: p_offset {:#x} and p_vaddr {:#x} differ modulo p_align {:#x}",
                        s.offset, s.vaddr, s.align
                    ),
                );
            }
            out.push(s);
        }
        out
    }

    fn read_checked_sections(d: &[u8], h: &Header, sink: &mut Sink) -> Vec<Section> {
        let table = ("section", at::SHOFF, h.shoff, h.shnum, SHDR_SIZE);
        if !table_fits(d, sink, &SHDR_BOUNDS, h.shentsize, table) {
            return Vec::new();
        }
        let mut secs = read_sections(d, h);
        let names_ok = secs
            .get(h.shstrndx as usize)
            .is_some_and(|s| s.sh_type == SHT_STRTAB && s.data(d).is_some());
        if !names_ok {
            sink.report_at(
                &SHSTRNDX,
                at::SHSTRNDX as u64,
                format!(
                    "e_shstrndx {} does not name a SHT_STRTAB section with its bytes inside the file",
                    h.shstrndx
                ),
            );
        } else if secs.iter().skip(1).any(|s| s.name.is_empty()) {
            // Section 0 is the null section and is nameless by definition.
            let bad: Vec<String> = secs
                .iter()
                .skip(1)
                .filter(|s| s.name.is_empty())
                .map(|s| s.index.to_string())
                .collect();
            sink.report_at(
                &SHSTRNDX,
                h.shoff,
                format!("sections {} have a name offset outside the string table or an unterminated name", bad.join(", ")),
            );
        }
        for s in &mut secs {
            let hdr_off = h.shoff + s.index as u64 * SHDR_SIZE as u64;
            if s.sh_type != SHT_NOBITS && s.sh_type != 0 && range(d, s.offset, s.size).is_none() {
                sink.report_at(
                    &SHDR_BOUNDS,
                    hdr_off,
                    format!(
                        "section {} '{}' bytes {:#x}+{:#x} end past the end of the {}-byte file",
                        s.index,
                        s.name,
                        s.offset,
                        s.size,
                        d.len()
                    ),
                );
            }
            if !is_pow2_or_zero(s.addralign) {
                sink.report_at(
                    &SHDR_ALIGN,
                    hdr_off,
                    format!(
                        "section '{}': sh_addralign {:#x} is not a power of two",
                        s.name, s.addralign
                    ),
                );
            } else if s.flags & SHF_ALLOC != 0 && s.addralign > 1 && s.addr % s.addralign != 0 {
                sink.report_at(
                    &SHDR_ALIGN,
                    hdr_off,
                    format!(
                        "section '{}': address {:#x} is not a multiple of sh_addralign {:#x}",
                        s.name, s.addr, s.addralign
                    ),
                );
            }
        }
        secs
    }

    fn check_layout(&self, sink: &mut Sink) {
        if self.header.e_type != ET_DYN {
            return;
        }
        let loads: Vec<&Segment> = self
            .segments
            .iter()
            .filter(|s| s.p_type == PT_LOAD)
            .collect();
        for s in &self.sections {
            if s.flags & SHF_ALLOC == 0 || s.size == 0 {
                continue;
            }
            let end = s.addr.saturating_add(s.size);
            let covered = loads
                .iter()
                .any(|l| s.addr >= l.vaddr && end <= l.vaddr.saturating_add(l.memsz));
            if !covered {
                sink.report(
                    &LOAD_SEGMENTS,
                    format!(
                        "allocated section '{}' at {:#x}+{:#x} is not inside any PT_LOAD segment",
                        s.name, s.addr, s.size
                    ),
                );
            }
        }
    }

    /// The first section with this name.
    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// Maps a virtual address (or, in a relocatable object, a
    /// section-relative value) in section `shndx` to a file offset.
    pub fn addr_to_offset(&self, shndx: usize, addr: u64) -> Option<u64> {
        let s = self.sections.get(shndx)?;
        let rel = if self.header.e_type == ET_REL {
            addr
        } else {
            addr.checked_sub(s.addr)?
        };
        if rel > s.size {
            return None;
        }
        s.offset.checked_add(rel)
    }
}

/// Reports `rule` at header offset `at` unless header field `field` is
/// `want` (named `name` in the message); true if it is.
fn expect(
    sink: &mut Sink,
    rule: &'static Rule,
    at: usize,
    field: &str,
    is: u64,
    want: u64,
    name: &str,
) -> bool {
    if is != want {
        sink.report_at(
            rule,
            at as u64,
            format!("{field} is {is}, expected {want}{name}"),
        );
    }
    is == want
}

/// Where the `e_flags` rules point.
const FLAGS_AT: u64 = at::FLAGS as u64;

/// Checks `e_flags` for the given code object version; returns the target
/// when the mach value names a known amdgcn processor.
pub fn check_e_flags(
    flags: u32,
    cov: CodeObjectVersion,
    sink: &mut Sink,
) -> Option<&'static Target> {
    let mach = (flags & raw::EF_AMDGPU_MACH) as u8;
    let target = targets::by_mach(mach);
    match target {
        None => {
            if let Some(name) = targets::unmodelled_mach(mach) {
                sink.report_at(
                    &E_FLAGS_MACH_UNMODELLED,
                    FLAGS_AT,
                    format!("EF_AMDGPU_MACH {mach:#04x} is {name}, a processor newer than this checker's table; target-specific rules were not checked"),
                );
                return None;
            }
            let why = if mach == 0 {
                "0 (EF_AMDGPU_MACH_NONE) names no processor".to_owned()
            } else {
                format!("{mach:#04x} is reserved or unknown")
            };
            sink.report_at(&E_FLAGS_MACH, FLAGS_AT, format!("EF_AMDGPU_MACH {why}"));
            return None;
        }
        Some(t) if !t.hsa || t.generation == Generation::R600 => {
            sink.report_at(
                &E_FLAGS_MACH,
                FLAGS_AT,
                format!(
                    "EF_AMDGPU_MACH {mach:#04x} is {}, an r600-era processor that HSA cannot run",
                    t.name
                ),
            );
            return None;
        }
        Some(t) => {
            if let Some(removed) = t.llvm_removed {
                sink.report_at(
                    &E_FLAGS_MACH_RETIRED,
                    FLAGS_AT,
                    format!(
                        "EF_AMDGPU_MACH {mach:#04x} is {}, which LLVM {}-{} build but LLVM {removed} and later reject",
                        t.name,
                        t.llvm_first,
                        removed - 1
                    ),
                );
            }
        }
    }
    let t = target?;
    let defined = cov.defined_e_flags();
    if flags & !defined != 0 {
        sink.report_at(
            &E_FLAGS_RESERVED,
            FLAGS_AT,
            format!(
                "e_flags {flags:#010x} sets bits {:#010x} that code object {cov} does not define",
                flags & !defined
            ),
        );
    }
    // The feature fields: (rule, the V2/V3 bit, the V4+ field's shift,
    // name, whether the processor has the feature).
    let features: [(&'static Rule, u32, u32, &str, bool); 2] = [
        (&E_FLAGS_XNACK, 0x100, 8, "xnack", t.xnack),
        (&E_FLAGS_SRAMECC, 0x200, 10, "sramecc", t.sramecc),
    ];
    match cov {
        CodeObjectVersion::V2 | CodeObjectVersion::V3 => {
            // One bit each: set means on.
            for (rule, bit, _, name, has) in features {
                if flags & bit != 0 && !has {
                    let what = name.to_uppercase();
                    sink.report_at(
                        rule,
                        FLAGS_AT,
                        format!(
                            "EF_AMDGPU_{what} ({bit:#x}) is set but {} has no {name}",
                            t.name
                        ),
                    );
                }
            }
        }
        _ => {
            // Two bits each: unsupported, any, off, on.
            const NAMES: [&str; 4] = ["unsupported", "any", "off", "on"];
            for (rule, _, shift, name, has) in features {
                let v = (flags >> shift) & 3;
                if (v == 0) == has {
                    let want = if has { "any, off or on" } else { "unsupported" };
                    sink.report_at(
                        rule,
                        FLAGS_AT,
                        format!(
                            "{name} field is {} ({:#x}) but {} needs {want}",
                            NAMES[v as usize],
                            v << shift,
                            t.name
                        ),
                    );
                }
            }
        }
    }
    if t.is_generic && cov < CodeObjectVersion::V6 {
        sink.report_at(
            &GENERIC_NEEDS_V6,
            at::ABI_VERSION as u64,
            format!(
                "{} is a generic target, which needs code object V6; this is {cov}",
                t.name
            ),
        );
    }
    if cov >= CodeObjectVersion::V6 {
        let gv = flags >> 24;
        if t.is_generic && gv == 0 {
            sink.report_at(
                &E_FLAGS_GENERIC_VERSION,
                FLAGS_AT,
                format!("{} is a generic target but EF_AMDGPU_GENERIC_VERSION is 0 (must be at least 1)", t.name),
            );
        } else if !t.is_generic && gv != 0 {
            sink.report_at(
                &E_FLAGS_GENERIC_VERSION,
                FLAGS_AT,
                format!(
                    "{} is not a generic target but EF_AMDGPU_GENERIC_VERSION is {gv} (must be 0)",
                    t.name
                ),
            );
        }
    }
    Some(t)
}
