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

use super::elf::{align, pad_to, S_NOP_0};
use crate::object::CodeObject;
use hsaco_oracle::elf::{EHDR_SIZE, ELFOSABI_AMDGPU_HSA, EM_AMDGPU, ET_REL};
use hsaco_oracle::symbols::R_AMDGPU_REL64;

const SYM_SIZE: u64 = 24;
const RELA_SIZE: u64 = 24;
const SHDR_SIZE: u64 = 64;

/// A section header: index, type, flags, offset, size, link, info,
/// alignment, entry size.
type Shdr = (u16, u32, u64, u64, u64, u16, u32, u64, u64);

/// Section indices.
mod idx {
    pub const STRTAB: u16 = 1;
    pub const TEXT: u16 = 2;
    pub const RODATA: u16 = 3;
    pub const RELA_RODATA: u16 = 4;
    pub const NOTE: u16 = 5;
    pub const SYMTAB: u16 = 6;
    pub const COUNT: u16 = 7;
}

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
    let (text_offs, text_size) = super::elf::text_layout(co);

    // String table: section names, then symbol names (kernel, then its
    // descriptor, in kernel order, as llvm-mc adds them).
    let mut strtab = vec![0u8];
    let mut sh_name = [0u32; idx::COUNT as usize];
    for (i, n) in SECTION_NAMES.iter().enumerate().skip(1) {
        sh_name[i] = strtab.len() as u32;
        strtab.extend_from_slice(n.as_bytes());
        strtab.push(0);
    }
    let mut sym_names = Vec::with_capacity(2 * nk);
    for k in &co.kernels {
        sym_names.push(strtab.len() as u32);
        strtab.extend_from_slice(k.name.as_bytes());
        strtab.push(0);
        sym_names.push(strtab.len() as u32);
        strtab.extend_from_slice(k.name.as_bytes());
        strtab.extend_from_slice(b".kd\0");
    }

    let text_off = 256u64;
    let rodata_off = align(text_off + text_size, 64);
    let rodata_size = 64 * nk as u64;
    let note_off = align(rodata_off + rodata_size, 4);
    let note_size = super::elf::notes_size(descs);
    let symtab_off = align(note_off + note_size, 8);
    let nsyms = 1 + 2 * nk as u64;
    let symtab_size = SYM_SIZE * nsyms;
    let rela_off = symtab_off + symtab_size;
    let rela_size = RELA_SIZE * nk as u64;
    let strtab_off = rela_off + rela_size;
    let shoff = align(strtab_off + strtab.len() as u64, 8);
    let total = shoff + SHDR_SIZE * u64::from(idx::COUNT);

    let mut out = Vec::with_capacity(total as usize);
    out.resize(EHDR_SIZE, 0);

    // .text: code, gaps filled with s_nop 0.
    pad_to(&mut out, text_off);
    for (i, k) in co.kernels.iter().enumerate() {
        while (out.len() as u64) < text_off + text_offs[i] {
            out.extend_from_slice(&S_NOP_0.to_le_bytes());
        }
        for w in &k.code {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }

    // .rodata: the descriptors, entry offsets left to the relocations.
    pad_to(&mut out, rodata_off);
    for k in &co.kernels {
        out.extend_from_slice(&k.descriptor.encode(&co.target, 0).to_bytes());
    }

    // .note
    pad_to(&mut out, note_off);
    super::elf::put_notes(&mut out, descs);
    pad_to(&mut out, note_off + note_size);

    // .symtab: the null symbol, then each kernel and its descriptor.
    pad_to(&mut out, symtab_off);
    out.extend_from_slice(&[0u8; SYM_SIZE as usize]);
    const GLOBAL_FUNC: u8 = 1 << 4 | 2;
    const GLOBAL_OBJECT: u8 = 1 << 4 | 1;
    const PROTECTED: u8 = 3;
    for (i, k) in co.kernels.iter().enumerate() {
        let syms = [
            (
                sym_names[2 * i],
                GLOBAL_FUNC,
                idx::TEXT,
                text_offs[i],
                4 * k.code.len() as u64,
            ),
            (
                sym_names[2 * i + 1],
                GLOBAL_OBJECT,
                idx::RODATA,
                64 * i as u64,
                64,
            ),
        ];
        for (name, info, shndx, value, size) in syms {
            out.extend_from_slice(&name.to_le_bytes());
            out.push(info);
            out.push(PROTECTED);
            out.extend_from_slice(&shndx.to_le_bytes());
            out.extend_from_slice(&value.to_le_bytes());
            out.extend_from_slice(&size.to_le_bytes());
        }
    }

    // .rela.rodata
    let mut relocs = Vec::with_capacity(nk);
    for i in 0..nk {
        let symbol = 1 + 2 * i as u32;
        relocs.push(EntryRelocation {
            offset: out.len(),
            symbol,
        });
        out.extend_from_slice(&(64 * i as u64 + 16).to_le_bytes());
        out.extend_from_slice(&(u64::from(symbol) << 32 | u64::from(R_AMDGPU_REL64)).to_le_bytes());
        out.extend_from_slice(&16i64.to_le_bytes());
    }

    // .strtab
    out.extend_from_slice(&strtab);

    // Section headers.
    pad_to(&mut out, shoff);
    const SHT_PROGBITS: u32 = 1;
    const SHT_SYMTAB: u32 = 2;
    const SHT_STRTAB: u32 = 3;
    const SHT_RELA: u32 = 4;
    const SHT_NOTE: u32 = 7;
    const SHF_ALLOC: u64 = 2;
    const SHF_EXECINSTR: u64 = 4;
    const SHF_INFO_LINK: u64 = 0x40;
    let shdrs: [Shdr; idx::COUNT as usize] = [
        (0, 0, 0, 0, 0, 0, 0, 0, 0),
        (
            idx::STRTAB,
            SHT_STRTAB,
            0,
            strtab_off,
            strtab.len() as u64,
            0,
            0,
            1,
            0,
        ),
        (
            idx::TEXT,
            SHT_PROGBITS,
            SHF_ALLOC | SHF_EXECINSTR,
            text_off,
            text_size,
            0,
            0,
            256,
            0,
        ),
        (
            idx::RODATA,
            SHT_PROGBITS,
            SHF_ALLOC,
            rodata_off,
            rodata_size,
            0,
            0,
            64,
            0,
        ),
        (
            idx::RELA_RODATA,
            SHT_RELA,
            SHF_INFO_LINK,
            rela_off,
            rela_size,
            idx::SYMTAB,
            idx::RODATA.into(),
            8,
            RELA_SIZE,
        ),
        (
            idx::NOTE,
            SHT_NOTE,
            SHF_ALLOC,
            note_off,
            note_size,
            0,
            0,
            4,
            0,
        ),
        (
            idx::SYMTAB,
            SHT_SYMTAB,
            0,
            symtab_off,
            symtab_size,
            idx::STRTAB,
            1,
            8,
            SYM_SIZE,
        ),
    ];
    for (i, ty, flags, off, size, link, info, al, entsize) in shdrs {
        out.extend_from_slice(&sh_name[usize::from(i)].to_le_bytes());
        out.extend_from_slice(&ty.to_le_bytes());
        for v in [flags, 0, off, size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&u32::from(link).to_le_bytes());
        out.extend_from_slice(&info.to_le_bytes());
        out.extend_from_slice(&al.to_le_bytes());
        out.extend_from_slice(&entsize.to_le_bytes());
    }

    // ELF header.
    let t = &co.target;
    let h = &mut out[..EHDR_SIZE];
    h[..4].copy_from_slice(b"\x7fELF");
    h[4] = 2; // ELFCLASS64
    h[5] = 1; // little-endian
    h[6] = 1; // EV_CURRENT
    h[7] = ELFOSABI_AMDGPU_HSA;
    h[8] = t.cov.abi_version();
    h[16..18].copy_from_slice(&ET_REL.to_le_bytes());
    h[18..20].copy_from_slice(&EM_AMDGPU.to_le_bytes());
    h[20..24].copy_from_slice(&1u32.to_le_bytes());
    h[40..48].copy_from_slice(&shoff.to_le_bytes());
    h[48..52].copy_from_slice(&t.e_flags().to_le_bytes());
    h[52..54].copy_from_slice(&(EHDR_SIZE as u16).to_le_bytes());
    h[58..60].copy_from_slice(&(SHDR_SIZE as u16).to_le_bytes());
    h[60..62].copy_from_slice(&idx::COUNT.to_le_bytes());
    h[62..64].copy_from_slice(&idx::STRTAB.to_le_bytes());
    debug_assert_eq!(out.len() as u64, total);
    (out, relocs)
}
