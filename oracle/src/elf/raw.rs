//! The bottom layer: ELF64 layout facts as data, nothing that reads,
//! checks or writes a file. The structures and the generic constants are
//! the `object` crate's (re-exported here, so each has one declaration);
//! the AMDGPU values `object` does not have (it declares `EM_AMDGPU`
//! only) are declared here, once for the project.
//!
//! The structures are `object`'s raw little-endian `elf` structs with
//! its `unaligned` feature, so [`from_bytes`] reads them at any offset;
//! [`bytes_of`] gives the bytes a writer appends.
//!
//! Sources: LLVM `llvm/include/llvm/BinaryFormat/ELF.h`; amdgpu-usage.rst
//! "ELF Code Object"; ROCR-Runtime `src/inc/amd_hsa_elf.h`.

use std::mem::{offset_of, size_of};

pub use object::elf::{
    gnu_hash, hash as sysv_hash, Ident, DT_GNU_HASH, DT_HASH, DT_NULL, DT_STRSZ, DT_STRTAB,
    DT_SYMENT, DT_SYMTAB, ELFCLASS64, ELFDATA2LSB, ELFMAG, EM_AMDGPU, ET_DYN, ET_REL, EV_CURRENT,
    PF_R, PF_W, PF_X, PT_DYNAMIC, PT_GNU_RELRO, PT_GNU_STACK, PT_LOAD, PT_NOTE, PT_NULL, PT_PHDR,
    SHN_ABS, SHN_UNDEF, SHT_DYNAMIC, SHT_DYNSYM, SHT_GNU_HASH, SHT_HASH, SHT_NOBITS, SHT_NOTE,
    SHT_PROGBITS, SHT_RELA, SHT_STRTAB, SHT_SYMTAB, STB_GLOBAL, STB_LOCAL, STT_FUNC, STT_NOTYPE,
    STT_OBJECT, STT_SECTION, STV_DEFAULT, STV_HIDDEN, STV_PROTECTED,
};
pub use object::endian::LittleEndian;
pub use object::pod::{bytes_of, from_bytes, from_bytes_mut};

/// The byte order of every AMDGPU code object.
pub const LE: LittleEndian = LittleEndian;

/// `Elf64_Ehdr`, little-endian.
pub type FileHeader = object::elf::FileHeader64<LittleEndian>;
/// `Elf64_Phdr`, little-endian.
pub type ProgramHeader = object::elf::ProgramHeader64<LittleEndian>;
/// `Elf64_Shdr`, little-endian.
pub type SectionHeader = object::elf::SectionHeader64<LittleEndian>;
/// `Elf64_Sym`, little-endian.
pub type Sym = object::elf::Sym64<LittleEndian>;
/// `Elf64_Rela`, little-endian.
pub type Rela = object::elf::Rela64<LittleEndian>;
/// `Elf64_Dyn`, little-endian.
pub type Dyn = object::elf::Dyn64<LittleEndian>;
/// `Elf64_Nhdr`, little-endian.
pub type NoteHeader = object::elf::NoteHeader64<LittleEndian>;

/// Size of an ELF64 file header.
pub const EHDR_SIZE: usize = size_of::<FileHeader>();
/// Size of an ELF64 program header.
pub const PHDR_SIZE: usize = size_of::<ProgramHeader>();
/// Size of an ELF64 section header.
pub const SHDR_SIZE: usize = size_of::<SectionHeader>();
/// Size of an ELF64 symbol.
pub const SYM_SIZE: usize = size_of::<Sym>();
/// Size of an ELF64 relocation with addend.
pub const RELA_SIZE: usize = size_of::<Rela>();
/// Size of an ELF64 dynamic entry.
pub const DYN_SIZE: usize = size_of::<Dyn>();
/// Size of a note header.
pub const NHDR_SIZE: usize = size_of::<NoteHeader>();

// `sh_flags` is 64 bits wide in ELF64; `object` declares the flags as
// `u32`, so they are widened here once.
/// `SHF_WRITE`.
pub const SHF_WRITE: u64 = object::elf::SHF_WRITE as u64;
/// `SHF_ALLOC`.
pub const SHF_ALLOC: u64 = object::elf::SHF_ALLOC as u64;
/// `SHF_EXECINSTR`.
pub const SHF_EXECINSTR: u64 = object::elf::SHF_EXECINSTR as u64;
/// `SHF_INFO_LINK`.
pub const SHF_INFO_LINK: u64 = object::elf::SHF_INFO_LINK as u64;

/// File offsets of the ELF64 header fields (rules and mutators point at
/// them; taken from the structure, not written out by hand).
pub mod at {
    use super::{offset_of, FileHeader, Ident};

    const IDENT: usize = offset_of!(FileHeader, e_ident);
    /// `e_ident[EI_CLASS]`.
    pub const CLASS: usize = IDENT + offset_of!(Ident, class);
    /// `e_ident[EI_DATA]`.
    pub const DATA: usize = IDENT + offset_of!(Ident, data);
    /// `e_ident[EI_VERSION]`.
    pub const IDENT_VERSION: usize = IDENT + offset_of!(Ident, version);
    /// `e_ident[EI_OSABI]`.
    pub const OSABI: usize = IDENT + offset_of!(Ident, os_abi);
    /// `e_ident[EI_ABIVERSION]`.
    pub const ABI_VERSION: usize = IDENT + offset_of!(Ident, abi_version);
    /// `e_ident[EI_PAD]`, the first padding byte.
    pub const PAD: usize = IDENT + offset_of!(Ident, padding);
    /// `e_type`.
    pub const TYPE: usize = offset_of!(FileHeader, e_type);
    /// `e_machine`.
    pub const MACHINE: usize = offset_of!(FileHeader, e_machine);
    /// `e_version`.
    pub const VERSION: usize = offset_of!(FileHeader, e_version);
    /// `e_entry`.
    pub const ENTRY: usize = offset_of!(FileHeader, e_entry);
    /// `e_phoff`.
    pub const PHOFF: usize = offset_of!(FileHeader, e_phoff);
    /// `e_shoff`.
    pub const SHOFF: usize = offset_of!(FileHeader, e_shoff);
    /// `e_flags`.
    pub const FLAGS: usize = offset_of!(FileHeader, e_flags);
    /// `e_ehsize`.
    pub const EHSIZE: usize = offset_of!(FileHeader, e_ehsize);
    /// `e_shstrndx`.
    pub const SHSTRNDX: usize = offset_of!(FileHeader, e_shstrndx);
}

/// `EF_AMDGPU_MACH`: the processor field of `e_flags`.
pub const EF_AMDGPU_MACH: u32 = 0xff;
/// `ELFOSABI_AMDGPU_HSA`.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// `ELFOSABI_AMDGPU_PAL`.
pub const ELFOSABI_AMDGPU_PAL: u8 = 65;
/// `ELFOSABI_AMDGPU_MESA3D`.
pub const ELFOSABI_AMDGPU_MESA3D: u8 = 66;
/// `STT_AMDGPU_HSA_KERNEL` (code object V2 kernel symbols).
pub const STT_AMDGPU_HSA_KERNEL: u8 = 10;
/// `R_AMDGPU_REL64`.
pub const R_AMDGPU_REL64: u32 = 5;
/// `NT_AMDGPU_METADATA`: MessagePack metadata (code object V3+).
pub const NT_AMDGPU_METADATA: u32 = 32;
/// `NT_AMD_HSA_CODE_OBJECT_VERSION` (V2, owner "AMD").
pub const NT_AMD_HSA_CODE_OBJECT_VERSION: u32 = 1;
/// `NT_AMD_HSA_HSAIL` (V2, owner "AMD").
pub const NT_AMD_HSA_HSAIL: u32 = 2;
/// `NT_AMD_HSA_ISA_VERSION` (V2, owner "AMD").
pub const NT_AMD_HSA_ISA_VERSION: u32 = 3;
/// `NT_AMD_HSA_METADATA`: YAML metadata (V2, owner "AMD").
pub const NT_AMD_HSA_METADATA: u32 = 10;
/// `NT_AMD_HSA_ISA_NAME` (V2, owner "AMD").
pub const NT_AMD_HSA_ISA_NAME: u32 = 11;
/// `NT_AMD_PAL_METADATA` (owner "AMD").
pub const NT_AMD_PAL_METADATA: u32 = 12;
