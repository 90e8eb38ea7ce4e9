//! Emitters: the bytes of a code object ([`elf`], with its metadata note
//! encoded by [`msgpack`]) and the LLVM assembler text that rebuilds the
//! same object ([`asm`]).

pub mod asm;
pub mod elf;
mod lld;
pub mod msgpack;
pub mod rel;
pub mod v2;
mod writer;

use crate::object::CodeObject;
use hsaco_oracle::targets::CodeObjectVersion;

/// The encoded `NT_AMDGPU_METADATA` description of `co` as one note, every
/// kernel in it (for code object V2 the `NT_AMD_HSA_METADATA` YAML, see
/// [`v2`]); [`metadata_note_descs`] gives the notes `co` is split into.
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

/// The `NT_AMDGPU_METADATA` description of each metadata note of `co`
/// (V3+; see [`CodeObject::note_ranges`]): each note the root keys with
/// its kernels, the printf list in [`CodeObject::printf_note`].
pub fn metadata_note_descs(co: &CodeObject) -> Vec<Vec<u8>> {
    if co.note_starts.is_empty() || co.target.cov == CodeObjectVersion::V2 {
        return vec![metadata_bytes(co)];
    }
    let cov = co.target.cov;
    let target = (cov >= CodeObjectVersion::V4).then(|| co.target.target_id_string());
    let printf_note = co.printf_index();
    co.note_ranges()
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let printf: &[String] = if i == printf_note { &co.printf } else { &[] };
            msgpack::encode_metadata(
                co.metadata_version(),
                target.as_deref(),
                printf,
                co.kernels[r].iter().map(|k| &k.metadata),
            )
        })
        .collect()
}

/// The ELF bytes of `co`.
pub fn elf_bytes(co: &CodeObject) -> Vec<u8> {
    if co.target.cov == CodeObjectVersion::V2 {
        return v2::elf_bytes(co);
    }
    let descs = metadata_note_descs(co);
    let refs: Vec<&[u8]> = descs.iter().map(Vec::as_slice).collect();
    elf::write_notes(co, &refs)
}

/// The relocatable object (`ET_REL`, as `llvm-mc -filetype=obj` makes it)
/// of `co`, a code object V3 or later, with where each kernel's entry
/// relocation is.
pub fn relocatable_bytes(co: &CodeObject) -> (Vec<u8>, Vec<rel::EntryRelocation>) {
    let descs = metadata_note_descs(co);
    let refs: Vec<&[u8]> = descs.iter().map(Vec::as_slice).collect();
    rel::write_notes(co, &refs)
}
