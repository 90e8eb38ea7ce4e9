//! ELF bytes for a code object, laid out as `ld.lld-19 -shared` lays out
//! what `llvm-mc` assembles from the same case's assembler text: the
//! shared-object layout of [`super::lld`] (where the layout and the
//! reason for a writer of our own are) with `.note` holding one
//! `NT_AMDGPU_METADATA` note per description, every kernel and
//! descriptor symbol exported (global, protected) and `.rodata` holding
//! the descriptors, 64-byte aligned; `.text` has each kernel 256-byte
//! aligned, gaps filled with `s_nop 0` as the assembler pads code.

use super::lld::{Export, SharedObject};
use super::writer::{note_size, put_note};
use crate::object::CodeObject;
use hsaco_oracle::elf::raw::{NT_AMDGPU_METADATA, STB_GLOBAL, STT_FUNC, STT_OBJECT, STV_PROTECTED};

// The hash functions lld uses, as the `object` crate defines them.
pub use hsaco_oracle::elf::raw::{gnu_hash, sysv_hash as elf_hash};

/// `s_nop 0`, the assembler's padding between kernels.
pub const S_NOP_0: u32 = 0xbf80_0000;

/// Where each kernel's code starts within `.text` (256-byte aligned, in
/// kernel order) and the section's size.
pub fn text_layout(co: &CodeObject) -> (Vec<u64>, u64) {
    let mut offs = Vec::with_capacity(co.kernels.len());
    let mut end = 0u64;
    for k in &co.kernels {
        let start = super::writer::align(end, 256);
        offs.push(start);
        end = start + 4 * k.code.len() as u64;
    }
    (offs, end)
}

/// The `.text` bytes of `co`: each kernel's code at its offset in
/// `offs` (from [`text_layout`]), gaps filled with `s_nop 0`.
pub(crate) fn kernel_text(co: &CodeObject, offs: &[u64], size: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(size as usize);
    for (k, &start) in co.kernels.iter().zip(offs) {
        while (out.len() as u64) < start {
            out.extend_from_slice(&S_NOP_0.to_le_bytes());
        }
        for w in &k.code {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    out
}

/// Writes the code object: the linked shared object lld would make of the
/// assembler text, with one `NT_AMDGPU_METADATA` note whose description
/// is `metadata`.
pub fn write(co: &CodeObject, metadata: &[u8]) -> Vec<u8> {
    write_notes(co, &[metadata])
}

/// The owner name of the metadata notes.
const AMDGPU: &[u8] = b"AMDGPU";

/// The size of the `.note` section holding one `NT_AMDGPU_METADATA` note
/// per description (each record 4-aligned, as llvm-mc writes them and
/// ld.lld concatenates them).
pub fn notes_size(descs: &[&[u8]]) -> u64 {
    descs.iter().map(|d| note_size(AMDGPU.len(), d.len())).sum()
}

/// Appends the `.note` records of `descs` to `out`.
pub fn put_notes(out: &mut Vec<u8>, descs: &[&[u8]]) {
    for d in descs {
        put_note(out, AMDGPU, NT_AMDGPU_METADATA, d);
    }
}

/// [`write`] with one `NT_AMDGPU_METADATA` note per description, in order
/// (the object ld.lld links from several, each with its own note).
pub fn write_notes(co: &CodeObject, descs: &[&[u8]]) -> Vec<u8> {
    let nk = co.kernels.len();
    let mut notes = Vec::with_capacity(notes_size(descs) as usize);
    put_notes(&mut notes, descs);
    let (text_offs, text_size) = text_layout(co);
    // Exported symbols in input order: each kernel, then its descriptor.
    let kd_names: Vec<String> = co
        .kernels
        .iter()
        .map(|k| format!("{}.kd", k.name))
        .collect();
    let mut exports = Vec::with_capacity(2 * nk);
    for (i, k) in co.kernels.iter().enumerate() {
        exports.push(Export {
            name: &k.name,
            info: STB_GLOBAL << 4 | STT_FUNC,
            other: STV_PROTECTED,
            in_rodata: false,
            offset: text_offs[i],
            size: 4 * k.code.len() as u64,
        });
        exports.push(Export {
            name: &kd_names[i],
            info: STB_GLOBAL << 4 | STT_OBJECT,
            other: STV_PROTECTED,
            in_rodata: true,
            offset: 64 * i as u64,
            size: 64,
        });
    }
    let so = SharedObject {
        abi_version: co.target.cov.abi_version(),
        e_flags: co.target.e_flags(),
        notes: &notes,
        exports,
        rodata_size: Some(64 * nk as u64),
        text_size,
        symtab_repeats: &[],
    };
    // The descriptors: each entry offset is from the descriptor to its
    // kernel's code.
    let at = so.addresses();
    let mut rodata = Vec::with_capacity(64 * nk);
    for (i, k) in co.kernels.iter().enumerate() {
        let kd_addr = at.rodata + 64 * i as u64;
        let entry = (at.text + text_offs[i]) as i64 - kd_addr as i64;
        rodata.extend_from_slice(&k.descriptor.encode(&co.target, entry).to_bytes());
    }
    so.write(&rodata, &kernel_text(co, &text_offs, text_size))
}
