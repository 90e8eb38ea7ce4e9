//! The one ELF writer under the three layouts ([`super::lld`] for the
//! linked shared objects of [`super::elf`] and [`super::v2`], and
//! [`super::rel`]): it appends the `object` crate's raw little-endian
//! structs (`hsaco_oracle::elf::raw`) where a layout says.
//!
//! Why not `object::write::elf::Writer`: it chooses the file layout
//! itself (it reserves offsets and aligns as it goes) and its string
//! tables merge string tails and sort strings, which changes `.dynstr`'s
//! size and with it every later address; ld.lld's and llvm-mc's layouts
//! must be matched byte for byte (the rebuild tests compare descriptors,
//! and the golden manifest every byte), so the layouts compute each
//! offset and this writer only lays the structures down.

use hsaco_oracle::elf::raw::{
    bytes_of, Dyn, FileHeader, Ident, ProgramHeader, Rela, SectionHeader, Sym, EHDR_SIZE,
    ELFCLASS64, ELFDATA2LSB, ELFMAG, ELFOSABI_AMDGPU_HSA, EM_AMDGPU, EV_CURRENT, LE, NHDR_SIZE,
    PHDR_SIZE, SHDR_SIZE, SHT_STRTAB, SHT_SYMTAB, SYM_SIZE,
};
use object::endian::{I64, U16, U32, U64};
use object::pod::Pod;

/// `v` rounded up to a multiple of `a`.
pub(crate) fn align(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

/// Zero bytes up to file offset `off`.
pub(crate) fn pad_to(out: &mut Vec<u8>, off: u64) {
    if (out.len() as u64) < off {
        out.resize(off as usize, 0);
    }
}

/// Appends the bytes of a raw structure.
pub(crate) fn put<T: Pod>(out: &mut Vec<u8>, v: &T) {
    out.extend_from_slice(bytes_of(v));
}

/// The ELF header fields a layout chooses; the rest are fixed for an
/// AMDGPU HSA code object (ELF64, little-endian, `EM_AMDGPU`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ehdr {
    /// `e_type`.
    pub e_type: u16,
    /// `e_ident[EI_ABIVERSION]`.
    pub abi_version: u8,
    /// `e_flags`.
    pub e_flags: u32,
    /// `e_phoff` (0 without program headers).
    pub phoff: u64,
    /// `e_phnum`.
    pub phnum: u16,
    /// `e_shoff`.
    pub shoff: u64,
    /// `e_shnum`.
    pub shnum: u16,
    /// `e_shstrndx`.
    pub shstrndx: u16,
}

impl Ehdr {
    /// The raw header.
    pub(crate) fn raw(&self) -> FileHeader {
        let u16 = |v: usize| U16::new(LE, v as u16);
        FileHeader {
            e_ident: Ident {
                magic: ELFMAG,
                class: ELFCLASS64,
                data: ELFDATA2LSB,
                version: EV_CURRENT,
                os_abi: ELFOSABI_AMDGPU_HSA,
                abi_version: self.abi_version,
                padding: [0; 7],
            },
            e_type: U16::new(LE, self.e_type),
            e_machine: U16::new(LE, EM_AMDGPU),
            e_version: U32::new(LE, EV_CURRENT.into()),
            e_entry: U64::new(LE, 0),
            e_phoff: U64::new(LE, self.phoff),
            e_shoff: U64::new(LE, self.shoff),
            e_flags: U32::new(LE, self.e_flags),
            e_ehsize: u16(EHDR_SIZE),
            // A file without program headers (llvm-mc's) says 0.
            e_phentsize: u16(if self.phnum == 0 { 0 } else { PHDR_SIZE }),
            e_phnum: U16::new(LE, self.phnum),
            e_shentsize: u16(SHDR_SIZE),
            e_shnum: U16::new(LE, self.shnum),
            e_shstrndx: U16::new(LE, self.shstrndx),
        }
    }
}

/// A program header (`p_paddr` = `p_vaddr`, as lld writes them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Phdr {
    /// `p_type`.
    pub p_type: u32,
    /// `p_flags`.
    pub flags: u32,
    /// `p_offset`.
    pub offset: u64,
    /// `p_vaddr` and `p_paddr`.
    pub addr: u64,
    /// `p_filesz`.
    pub filesz: u64,
    /// `p_memsz`.
    pub memsz: u64,
    /// `p_align`.
    pub align: u64,
}

impl Phdr {
    /// The raw header.
    pub(crate) fn raw(&self) -> ProgramHeader {
        ProgramHeader {
            p_type: U32::new(LE, self.p_type),
            p_flags: U32::new(LE, self.flags),
            p_offset: U64::new(LE, self.offset),
            p_vaddr: U64::new(LE, self.addr),
            p_paddr: U64::new(LE, self.addr),
            p_filesz: U64::new(LE, self.filesz),
            p_memsz: U64::new(LE, self.memsz),
            p_align: U64::new(LE, self.align),
        }
    }
}

/// A section: its name and header fields (`sh_name` is filled in by
/// [`put_section_headers`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Shdr {
    /// The name.
    pub name: &'static str,
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
    pub link: u16,
    /// `sh_info`.
    pub info: u32,
    /// `sh_addralign`.
    pub addralign: u64,
    /// `sh_entsize`.
    pub entsize: u64,
}

impl Shdr {
    /// A string table that is not loaded.
    pub(crate) fn strtab(name: &'static str, offset: u64, size: u64) -> Shdr {
        Shdr {
            name,
            sh_type: SHT_STRTAB,
            offset,
            size,
            addralign: 1,
            ..Shdr::default()
        }
    }

    /// `.symtab` at `offset`, linked to string table `link`, its first
    /// global symbol `first_global`.
    pub(crate) fn symtab(offset: u64, size: u64, link: u16, first_global: u32) -> Shdr {
        Shdr {
            name: ".symtab",
            sh_type: SHT_SYMTAB,
            offset,
            size,
            link,
            info: first_global,
            addralign: 8,
            entsize: SYM_SIZE as u64,
            ..Shdr::default()
        }
    }

    /// The raw header, named by offset `name` in the name table.
    pub(crate) fn raw(&self, name: u32) -> SectionHeader {
        SectionHeader {
            sh_name: U32::new(LE, name),
            sh_type: U32::new(LE, self.sh_type),
            sh_flags: U64::new(LE, self.flags),
            sh_addr: U64::new(LE, self.addr),
            sh_offset: U64::new(LE, self.offset),
            sh_size: U64::new(LE, self.size),
            sh_link: U32::new(LE, self.link.into()),
            sh_info: U32::new(LE, self.info),
            sh_addralign: U64::new(LE, self.addralign),
            sh_entsize: U64::new(LE, self.entsize),
        }
    }
}

/// Appends the section header table, each header named by the offset of
/// the first string of `names` equal to its name (a nameless one by 0).
pub(crate) fn put_section_headers(out: &mut Vec<u8>, shdrs: &[Shdr], names: &StrTab) {
    for s in shdrs {
        let name = if s.name.is_empty() {
            0
        } else {
            names.find(s.name)
        };
        put(out, &s.raw(name));
    }
}

/// A string table in the order strings are added (no tail merging).
#[derive(Debug, Clone)]
pub(crate) struct StrTab {
    /// The bytes: a NUL, then each string and its NUL.
    pub bytes: Vec<u8>,
    /// Where each added string starts, in order.
    offsets: Vec<u32>,
}

impl StrTab {
    /// The table with only its leading NUL.
    pub(crate) fn new() -> StrTab {
        StrTab {
            bytes: vec![0],
            offsets: Vec::new(),
        }
    }

    /// Adds `parts` concatenated as one string; returns its offset.
    pub(crate) fn add(&mut self, parts: &[&[u8]]) -> u32 {
        let off = self.bytes.len() as u32;
        for p in parts {
            self.bytes.extend_from_slice(p);
        }
        self.bytes.push(0);
        self.offsets.push(off);
        off
    }

    /// The table of `names`, in order.
    pub(crate) fn of<'a>(names: impl IntoIterator<Item = &'a str>) -> StrTab {
        let mut t = StrTab::new();
        for n in names {
            t.add(&[n.as_bytes()]);
        }
        t
    }

    /// The offset of the first added string equal to `name` (0 if none).
    fn find(&self, name: &str) -> u32 {
        self.offsets
            .iter()
            .copied()
            .find(|&o| {
                let s = &self.bytes[o as usize..];
                s.starts_with(name.as_bytes()) && s.get(name.len()) == Some(&0)
            })
            .unwrap_or(0)
    }

    /// Size in bytes.
    pub(crate) fn len(&self) -> u64 {
        self.bytes.len() as u64
    }
}

/// A symbol table entry.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Symbol {
    /// `st_name`.
    pub name: u32,
    /// `st_info` (binding << 4 | type).
    pub info: u8,
    /// `st_other` (visibility).
    pub other: u8,
    /// `st_shndx`.
    pub shndx: u16,
    /// `st_value`.
    pub value: u64,
    /// `st_size`.
    pub size: u64,
}

impl Symbol {
    /// The null symbol every table starts with.
    pub(crate) const NULL: Symbol = Symbol {
        name: 0,
        info: 0,
        other: 0,
        shndx: 0,
        value: 0,
        size: 0,
    };

    /// The raw entry.
    pub(crate) fn raw(&self) -> Sym {
        Sym {
            st_name: U32::new(LE, self.name),
            st_info: self.info,
            st_other: self.other,
            st_shndx: U16::new(LE, self.shndx),
            st_value: U64::new(LE, self.value),
            st_size: U64::new(LE, self.size),
        }
    }
}

/// Appends `syms` as symbol table entries.
pub(crate) fn put_symbols<'a>(out: &mut Vec<u8>, syms: impl IntoIterator<Item = &'a Symbol>) {
    for s in syms {
        put(out, &s.raw());
    }
}

/// Appends an `Elf64_Rela`.
pub(crate) fn put_rela(out: &mut Vec<u8>, offset: u64, sym: u32, r_type: u32, addend: i64) {
    put(
        out,
        &Rela {
            r_offset: U64::new(LE, offset),
            r_info: Rela::r_info(LE, false, sym, r_type),
            r_addend: I64::new(LE, addend),
        },
    );
}

/// Appends `.dynamic` entries (tag, value).
pub(crate) fn put_dynamic(out: &mut Vec<u8>, entries: &[(i64, u64)]) {
    for &(tag, val) in entries {
        put(
            out,
            &Dyn {
                d_tag: I64::new(LE, tag),
                d_val: U64::new(LE, val),
            },
        );
    }
}

/// The size of a note record with a `name_len`-byte owner name (without
/// its NUL) and a `desc_len`-byte description, each padded to 4.
pub(crate) fn note_size(name_len: usize, desc_len: usize) -> u64 {
    (NHDR_SIZE as u64) + align(name_len as u64 + 1, 4) + align(desc_len as u64, 4)
}

/// Appends a note record: header, `name` and its NUL, `desc`, each of
/// the last two padded to 4 (`out` holds whole records).
pub(crate) fn put_note(out: &mut Vec<u8>, name: &[u8], n_type: u32, desc: &[u8]) {
    put(
        out,
        &hsaco_oracle::elf::raw::NoteHeader {
            n_namesz: U32::new(LE, name.len() as u32 + 1),
            n_descsz: U32::new(LE, desc.len() as u32),
            n_type: U32::new(LE, n_type),
        },
    );
    out.extend_from_slice(name);
    out.push(0);
    out.resize(out.len().div_ceil(4) * 4, 0);
    out.extend_from_slice(desc);
    out.resize(out.len().div_ceil(4) * 4, 0);
}
