//! Emitters: the bytes of a code object ([`elf`], with its metadata note
//! encoded by [`msgpack`]) and the LLVM assembler text that rebuilds the
//! same object ([`asm`]).

pub mod asm;
pub mod elf;
pub mod msgpack;

use crate::object::CodeObject;

/// The encoded `NT_AMDGPU_METADATA` description of `co`.
pub fn metadata_bytes(co: &CodeObject) -> Vec<u8> {
    msgpack::encode(&co.metadata_doc())
}

/// The ELF bytes of `co`.
pub fn elf_bytes(co: &CodeObject) -> Vec<u8> {
    elf::write(co, &metadata_bytes(co))
}
