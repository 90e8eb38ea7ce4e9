//! A code object as a relocatable object (`ET_REL`): what `llvm-mc
//! -filetype=obj` makes of the case's assembler text, before linking.
//!
//! The layout follows llvm-mc-19's output (checked with `llvm-readelf-19
//! -S -s -r` on assembled cases): the ELF header; `.text` at offset 256
//! (each kernel 256-byte aligned, gaps filled with `s_nop 0`); `.rodata`
//! (the descriptors, 64-byte aligned, each `kernel_code_entry_byte_offset`
//! left 0); `.note` (the metadata note); `.symtab`; `.rela.rodata` (one
//! `R_AMDGPU_REL64` per descriptor, against the kernel symbol with addend
//! 16, so that S + A - P is the kernel's offset from its descriptor);
//! `.strtab` (also the section name table); the section headers in the
//! order null, `.strtab`, `.text`, `.rodata`, `.rela.rodata`, `.note`,
//! `.symtab`. llvm-mc merges string tails and orders the string table
//! its own way; this writer does not, so the files are equivalent (same
//! sections, symbols and relocations; a test compares them) rather than
//! byte-identical.

use super::elf::{kernel_text, notes_size, put_notes, text_layout};
use super::writer::{
    align, pad_to, put, put_rela, put_section_headers, put_symbols, Ehdr, Shdr, StrTab, Symbol,
};
use crate::object::CodeObject;
use hsaco_oracle::elf::raw::{
    EHDR_SIZE, ET_REL, RELA_SIZE, R_AMDGPU_REL64, SHDR_SIZE, SHF_ALLOC, SHF_EXECINSTR,
    SHF_INFO_LINK, SHT_NOTE, SHT_PROGBITS, SHT_RELA, STB_GLOBAL, STT_FUNC, STT_OBJECT,
    STV_PROTECTED, SYM_SIZE,
};

const SYM: u64 = SYM_SIZE as u64;
const RELA: u64 = RELA_SIZE as u64;

/// Section indices.
mod idx {
    pub const STRTAB: u16 = 1;
    pub const TEXT: u16 = 2;
    pub const RODATA: u16 = 3;
    pub const SYMTAB: u16 = 6;
    pub const COUNT: u16 = 7;
}

/// The section names in header order, the null section's first.
const SECTION_NAMES: [&str; idx::COUNT as usize] = [
    "",
    ".strtab",
    ".text",
    ".rodata",
    ".rela.rodata",
    ".note",
    ".symtab",
];

/// Where the relocation of kernel `i`'s entry offset field lies in the
/// bytes [`write`] returns, and the index of the kernel's symbol: what a
/// mutator needs to break it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryRelocation {
    /// File offset of the `Elf64_Rela` entry.
    pub offset: usize,
    /// Symbol table index of the kernel symbol it is against.
    pub symbol: u32,
}

/// The relocatable object of `co`; `metadata` is the encoded
/// `NT_AMDGPU_METADATA` description. Also returns where each kernel's
/// entry relocation is.
pub fn write(co: &CodeObject, metadata: &[u8]) -> (Vec<u8>, Vec<EntryRelocation>) {
    write_notes(co, &[metadata])
}

/// [`write`] with one `NT_AMDGPU_METADATA` note per description (as
/// llvm-mc writes one per `.amdgpu_metadata` block).
pub fn write_notes(co: &CodeObject, descs: &[&[u8]]) -> (Vec<u8>, Vec<EntryRelocation>) {
    let nk = co.kernels.len();
    let (text_offs, text_size) = text_layout(co);

    // String table: section names, then symbol names (kernel, then its
    // descriptor, in kernel order, as llvm-mc adds them).
    let mut strtab = StrTab::of(SECTION_NAMES.iter().copied().skip(1));
    let mut syms = vec![Symbol::NULL];
    for (i, k) in co.kernels.iter().enumerate() {
        let name = k.name.as_bytes();
        syms.push(Symbol {
            name: strtab.add(&[name]),
            info: STB_GLOBAL << 4 | STT_FUNC,
            other: STV_PROTECTED,
            shndx: idx::TEXT,
            value: text_offs[i],
            size: 4 * k.code.len() as u64,
        });
        syms.push(Symbol {
            name: strtab.add(&[name, b".kd"]),
            info: STB_GLOBAL << 4 | STT_OBJECT,
            other: STV_PROTECTED,
            shndx: idx::RODATA,
            value: 64 * i as u64,
            size: 64,
        });
    }

    let text_off = 256u64;
    let rodata_off = align(text_off + text_size, hsaco_oracle::layout::KD_ALIGN);
    let rodata_size = 64 * nk as u64;
    let note_off = align(rodata_off + rodata_size, 4);
    let note_size = notes_size(descs);
    let symtab_off = align(note_off + note_size, 8);
    let symtab_size = SYM * syms.len() as u64;
    let rela_off = symtab_off + symtab_size;
    let rela_size = RELA * nk as u64;
    let strtab_off = rela_off + rela_size;
    let shoff = align(strtab_off + strtab.len(), 8);
    let total = shoff + SHDR_SIZE as u64 * u64::from(idx::COUNT);

    let mut out = Vec::with_capacity(total as usize);
    put(
        &mut out,
        &Ehdr {
            e_type: ET_REL,
            abi_version: co.target.cov.abi_version(),
            e_flags: co.target.e_flags(),
            phoff: 0,
            phnum: 0,
            shoff,
            shnum: idx::COUNT,
            shstrndx: idx::STRTAB,
        }
        .raw(),
    );
    debug_assert_eq!(out.len(), EHDR_SIZE);

    // .text: code, gaps filled with s_nop 0.
    pad_to(&mut out, text_off);
    out.extend_from_slice(&kernel_text(co, &text_offs, text_size));

    // .rodata: the descriptors, entry offsets left to the relocations.
    pad_to(&mut out, rodata_off);
    for k in &co.kernels {
        out.extend_from_slice(&k.descriptor.encode(&co.target, 0).to_bytes());
    }

    // .note
    pad_to(&mut out, note_off);
    put_notes(&mut out, descs);
    pad_to(&mut out, note_off + note_size);

    // .symtab: the null symbol, then each kernel and its descriptor.
    pad_to(&mut out, symtab_off);
    put_symbols(&mut out, &syms);

    // .rela.rodata
    let mut relocs = Vec::with_capacity(nk);
    for i in 0..nk {
        let symbol = 1 + 2 * i as u32;
        relocs.push(EntryRelocation {
            offset: out.len(),
            symbol,
        });
        put_rela(&mut out, 64 * i as u64 + 16, symbol, R_AMDGPU_REL64, 16);
    }

    // .strtab
    out.extend_from_slice(&strtab.bytes);

    // Section headers.
    pad_to(&mut out, shoff);
    let shdrs = [
        Shdr::default(),
        Shdr::strtab(".strtab", strtab_off, strtab.len()),
        Shdr {
            name: ".text",
            sh_type: SHT_PROGBITS,
            flags: SHF_ALLOC | SHF_EXECINSTR,
            offset: text_off,
            size: text_size,
            addralign: 256,
            ..Shdr::default()
        },
        Shdr {
            name: ".rodata",
            sh_type: SHT_PROGBITS,
            flags: SHF_ALLOC,
            offset: rodata_off,
            size: rodata_size,
            addralign: 64,
            ..Shdr::default()
        },
        Shdr {
            name: ".rela.rodata",
            sh_type: SHT_RELA,
            flags: SHF_INFO_LINK,
            offset: rela_off,
            size: rela_size,
            link: idx::SYMTAB,
            info: idx::RODATA.into(),
            addralign: 8,
            entsize: RELA,
            ..Shdr::default()
        },
        Shdr {
            name: ".note",
            sh_type: SHT_NOTE,
            flags: SHF_ALLOC,
            offset: note_off,
            size: note_size,
            addralign: 4,
            ..Shdr::default()
        },
        // The first global: after the null symbol.
        Shdr::symtab(symtab_off, symtab_size, idx::STRTAB, 1),
    ];
    put_section_headers(&mut out, &shdrs, &strtab);
    debug_assert_eq!(out.len() as u64, total);
    (out, relocs)
}
