//! Emitters: the bytes of a code object ([`elf`], with its metadata note
//! encoded by [`msgpack`]) and the LLVM assembler text that rebuilds the
//! same object ([`asm`]).

pub mod asm;
pub mod elf;
pub mod msgpack;
pub mod rel;
pub mod v2;

use crate::object::CodeObject;
use hsaco_oracle::targets::CodeObjectVersion;

/// The encoded `NT_AMDGPU_METADATA` description of `co` (for code object
/// V2 the `NT_AMD_HSA_METADATA` YAML, see [`v2`]).
pub fn metadata_bytes(co: &CodeObject) -> Vec<u8> {
    if co.target.cov == CodeObjectVersion::V2 {
        return v2::metadata_bytes(co);
    }
    let cov = co.target.cov;
    let target = (cov >= CodeObjectVersion::V4).then(|| co.target.target_id_string());
    msgpack::encode_metadata(
        co.metadata_version(),
        target.as_deref(),
        &co.printf,
        co.kernels.iter().map(|k| &k.metadata),
    )
}

/// The ELF bytes of `co`.
pub fn elf_bytes(co: &CodeObject) -> Vec<u8> {
    if co.target.cov == CodeObjectVersion::V2 {
        return v2::elf_bytes(co);
    }
    elf::write(co, &metadata_bytes(co))
}

/// The relocatable object (`ET_REL`, as `llvm-mc -filetype=obj` makes it)
/// of `co`, a code object V3 or later, with where each kernel's entry
/// relocation is.
pub fn relocatable_bytes(co: &CodeObject) -> (Vec<u8>, Vec<rel::EntryRelocation>) {
    rel::write(co, &metadata_bytes(co))
}
