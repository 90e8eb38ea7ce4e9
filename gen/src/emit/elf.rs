//! ELF bytes for a code object, laid out as `ld.lld-19 -shared` lays out
//! what `llvm-mc` assembles from the same case's assembler text.
//!
//! The writer is hand-written rather than built on the `object` crate:
//! `object::write::Object` only writes relocatable objects (the HSA loader
//! needs `ET_DYN` with program headers and dynamic symbols), and the
//! lower-level `object::write::elf::Writer` merges string-table tails and
//! reorders strings, which changes `.dynstr`'s size and with it every
//! following address, so `kernel_code_entry_byte_offset` would differ from
//! the linker's. Matching lld's layout exactly is what lets the rebuild
//! test compare descriptors byte for byte.
//!
//! The layout (observed with `ld.lld-19 -shared` on llvm-mc-19 output):
//! ELF header; eight program headers (PHDR, LOAD r, LOAD rx, LOAD rw,
//! DYNAMIC, GNU_RELRO, GNU_STACK, NOTE); `.note` (the one
//! `NT_AMDGPU_METADATA` note); `.dynsym`, `.gnu.hash`, `.hash`, `.dynstr`
//! (every kernel and descriptor symbol is exported, protected); `.rodata`
//! (the descriptors, 64-byte aligned) ending the first segment; `.text`
//! (each kernel 256-byte aligned, gaps filled with `s_nop 0` as the
//! assembler pads code) starting a new page at the same page offset;
//! `.dynamic` and `.relro_padding` (up to the page end) in the writable
//! segment; then `.symtab`, `.shstrtab`, `.strtab` and the section headers.
//! lld's `.comment` section (its version string) is not written.

use crate::object::CodeObject;
use hsaco_oracle::elf::{EHDR_SIZE, ELFOSABI_AMDGPU_HSA, EM_AMDGPU, ET_DYN};

pub(crate) const PAGE: u64 = 0x1000;
pub(crate) const PHDR_SIZE: u64 = 56;
pub(crate) const PHNUM: u64 = 8;
pub(crate) const SYM_SIZE: u64 = 24;
/// `s_nop 0`, the assembler's padding between kernels.
pub const S_NOP_0: u32 = 0xbf80_0000;

const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;
const PT_NOTE: u32 = 4;
const PT_PHDR: u32 = 6;
const PT_GNU_STACK: u32 = 0x6474_e551;
const PT_GNU_RELRO: u32 = 0x6474_e552;
const PF_X: u32 = 1;
const PF_W: u32 = 2;
const PF_R: u32 = 4;

const SHT_PROGBITS: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHT_HASH: u32 = 5;
const SHT_DYNAMIC: u32 = 6;
const SHT_NOTE: u32 = 7;
const SHT_NOBITS: u32 = 8;
const SHT_DYNSYM: u32 = 11;
const SHT_GNU_HASH: u32 = 0x6fff_fff6;
const SHF_WRITE: u64 = 1;
const SHF_ALLOC: u64 = 2;
const SHF_EXECINSTR: u64 = 4;

const STB_LOCAL: u8 = 0;
const STB_GLOBAL: u8 = 1;
const STT_NOTYPE: u8 = 0;
const STT_OBJECT: u8 = 1;
const STT_FUNC: u8 = 2;
const STV_HIDDEN: u8 = 2;
const STV_PROTECTED: u8 = 3;

use hsaco_oracle::notes::NT_AMDGPU_METADATA;
/// lld's GNU hash Bloom filter second shift.
const GNU_HASH_SHIFT2: u32 = 26;

/// Section indices in the output.
mod idx {
    pub const NOTE: u16 = 1;
    pub const DYNSYM: u16 = 2;
    pub const GNU_HASH: u16 = 3;
    pub const HASH: u16 = 4;
    pub const DYNSTR: u16 = 5;
    pub const RODATA: u16 = 6;
    pub const TEXT: u16 = 7;
    pub const DYNAMIC: u16 = 8;
    pub const RELRO_PADDING: u16 = 9;
    pub const SYMTAB: u16 = 10;
    pub const SHSTRTAB: u16 = 11;
    pub const STRTAB: u16 = 12;
    pub const COUNT: u16 = 13;
}

const SECTION_NAMES: [&str; idx::COUNT as usize] = [
    "",
    ".note",
    ".dynsym",
    ".gnu.hash",
    ".hash",
    ".dynstr",
    ".rodata",
    ".text",
    ".dynamic",
    ".relro_padding",
    ".symtab",
    ".shstrtab",
    ".strtab",
];

/// `v` rounded up to a multiple of `a`.
pub(crate) fn align(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

/// The address lld gives the first section of a new PT_LOAD: the next page
/// at the same offset within the page, then the section's alignment.
pub(crate) fn new_segment_addr(dot: u64, sec_align: u64) -> u64 {
    align(align(dot, PAGE) + dot % PAGE, sec_align)
}

/// The first file offset at or after `off` congruent to `addr` modulo the
/// page size.
pub(crate) fn congruent_offset(off: u64, addr: u64) -> u64 {
    off + (addr % PAGE + PAGE - off % PAGE) % PAGE
}

/// The GNU hash of a symbol name.
pub fn gnu_hash(name: &[u8]) -> u32 {
    name.iter().fold(5381u32, |h, &c| {
        h.wrapping_mul(33).wrapping_add(u32::from(c))
    })
}

/// The SysV ELF hash of a symbol name.
pub fn elf_hash(name: &[u8]) -> u32 {
    let mut h = 0u32;
    for &c in name {
        h = (h << 4).wrapping_add(u32::from(c));
        let g = h & 0xf000_0000;
        if g != 0 {
            h ^= g >> 24;
        }
        h &= !g;
    }
    h
}

/// LLVM's `NextPowerOf2`: the smallest power of two strictly above `v`.
pub(crate) fn next_power_of_2(v: u64) -> u64 {
    1u64 << (64 - v.leading_zeros())
}

struct Sym<'a> {
    name: &'a str,
    name_off: u32,
    info: u8,
    other: u8,
    shndx: u16,
    value: u64,
    size: u64,
}

fn put_sym(out: &mut Vec<u8>, s: &Sym<'_>) {
    out.extend_from_slice(&s.name_off.to_le_bytes());
    out.push(s.info);
    out.push(s.other);
    out.extend_from_slice(&s.shndx.to_le_bytes());
    out.extend_from_slice(&s.value.to_le_bytes());
    out.extend_from_slice(&s.size.to_le_bytes());
}

/// Writes `.dynamic` as lld does for a code object: DT_SYMTAB, DT_SYMENT,
/// DT_STRTAB, DT_STRSZ, DT_GNU_HASH, DT_HASH, DT_NULL.
pub(crate) fn put_dynamic(
    out: &mut Vec<u8>,
    dynsym_addr: u64,
    dynstr_addr: u64,
    dynstr_size: u64,
    gnu_hash_addr: u64,
    hash_addr: u64,
) {
    for (tag, val) in [
        (6u64, dynsym_addr),
        (11, SYM_SIZE),
        (5, dynstr_addr),
        (10, dynstr_size),
        (0x6fff_fef5, gnu_hash_addr),
        (4, hash_addr),
        (0, 0),
    ] {
        out.extend_from_slice(&tag.to_le_bytes());
        out.extend_from_slice(&val.to_le_bytes());
    }
}

/// Zero bytes up to file offset `off`.
pub(crate) fn pad_to(out: &mut Vec<u8>, off: u64) {
    if (out.len() as u64) < off {
        out.resize(off as usize, 0);
    }
}

struct Shdr {
    name: u32,
    sh_type: u32,
    flags: u64,
    addr: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
}

/// Writes `.gnu.hash` as lld does for the dynamic symbols after the null
/// one, in `order` (indices into `hashes`, stable-sorted by bucket).
pub(crate) fn put_gnu_hash(
    out: &mut Vec<u8>,
    hashes: &[u32],
    order: &[usize],
    nbuckets: u64,
    mask_words: u64,
) {
    let symndx = 1u32;
    for v in [nbuckets as u32, symndx, mask_words as u32, GNU_HASH_SHIFT2] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let mut bloom = vec![0u64; mask_words as usize];
    for &h in hashes {
        let w = (u64::from(h) / 64 % mask_words) as usize;
        bloom[w] |= 1u64 << (h % 64) | 1u64 << ((h >> GNU_HASH_SHIFT2) % 64);
    }
    for w in bloom {
        out.extend_from_slice(&w.to_le_bytes());
    }
    let mut buckets = vec![0u32; nbuckets as usize];
    let mut values = vec![0u32; order.len()];
    for (pos, &j) in order.iter().enumerate() {
        let b = (u64::from(hashes[j]) % nbuckets) as usize;
        let first = pos == 0 || (u64::from(hashes[order[pos - 1]]) % nbuckets) as usize != b;
        if first {
            buckets[b] = symndx + pos as u32;
        }
        let last =
            pos + 1 == order.len() || (u64::from(hashes[order[pos + 1]]) % nbuckets) as usize != b;
        values[pos] = hashes[j] & !1 | u32::from(last);
    }
    for v in buckets.into_iter().chain(values) {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Writes the SysV `.hash` (nbucket = nchain = `entries`, the dynamic
/// symbols with the null one) for the symbols named `names`, in
/// `.dynsym` order after the null symbol.
pub(crate) fn put_sysv_hash<'a>(
    out: &mut Vec<u8>,
    names: impl Iterator<Item = &'a [u8]>,
    entries: u64,
) {
    let mut sbuckets = vec![0u32; entries as usize];
    let mut chains = vec![0u32; entries as usize];
    for (pos, name) in names.enumerate() {
        let i = pos + 1;
        let b = (elf_hash(name) as u64 % entries) as usize;
        chains[i] = sbuckets[b];
        sbuckets[b] = i as u32;
    }
    for v in [entries as u32, entries as u32]
        .into_iter()
        .chain(sbuckets)
        .chain(chains)
    {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Where each kernel's code starts within `.text` (256-byte aligned, in
/// kernel order) and the section's size.
pub fn text_layout(co: &CodeObject) -> (Vec<u64>, u64) {
    let mut offs = Vec::with_capacity(co.kernels.len());
    let mut end = 0u64;
    for k in &co.kernels {
        let start = align(end, 256);
        offs.push(start);
        end = start + 4 * k.code.len() as u64;
    }
    (offs, end)
}

/// Writes the code object: the linked shared object lld would make of the
/// assembler text, with one `NT_AMDGPU_METADATA` note whose description
/// is `metadata`.
pub fn write(co: &CodeObject, metadata: &[u8]) -> Vec<u8> {
    write_notes(co, &[metadata])
}

/// The size of the `.note` section holding one `NT_AMDGPU_METADATA` note
/// per description (each record 4-aligned, as llvm-mc writes them and
/// ld.lld concatenates them).
pub fn notes_size(descs: &[&[u8]]) -> u64 {
    descs
        .iter()
        .map(|d| 12 + 8 + align(d.len() as u64, 4))
        .sum()
}

/// Appends the `.note` records of `descs` to `out`.
pub fn put_notes(out: &mut Vec<u8>, descs: &[&[u8]]) {
    for d in descs {
        out.extend_from_slice(&7u32.to_le_bytes());
        out.extend_from_slice(&(d.len() as u32).to_le_bytes());
        out.extend_from_slice(&NT_AMDGPU_METADATA.to_le_bytes());
        out.extend_from_slice(b"AMDGPU\0\0");
        out.extend_from_slice(d);
        out.resize(out.len().div_ceil(4) * 4, 0);
    }
}

/// [`write`] with one `NT_AMDGPU_METADATA` note per description, in order
/// (the object ld.lld links from several, each with its own note).
pub fn write_notes(co: &CodeObject, descs: &[&[u8]]) -> Vec<u8> {
    let nk = co.kernels.len();
    // Exported symbols in input order: each kernel, then its descriptor.
    let mut exported: Vec<(String, bool, usize)> = Vec::with_capacity(2 * nk);
    for (i, k) in co.kernels.iter().enumerate() {
        exported.push((k.name.clone(), false, i));
        exported.push((format!("{}.kd", k.name), true, i));
    }
    // .dynstr in input order (lld adds names as symbols are added).
    let mut dynstr = vec![0u8];
    let mut dyn_name_off = Vec::with_capacity(exported.len());
    for (n, _, _) in &exported {
        dyn_name_off.push(dynstr.len() as u32);
        dynstr.extend_from_slice(n.as_bytes());
        dynstr.push(0);
    }
    // .gnu.hash ordering: lld stable-sorts the hashed symbols by bucket.
    let nsyms = exported.len() as u64;
    let nbuckets = (nsyms / 4).max(1);
    let hashes: Vec<u32> = exported
        .iter()
        .map(|(n, _, _)| gnu_hash(n.as_bytes()))
        .collect();
    let mut order: Vec<usize> = (0..exported.len()).collect();
    order.sort_by_key(|&i| u64::from(hashes[i]) % nbuckets);
    let mask_words = if nsyms == 0 {
        1
    } else {
        next_power_of_2(nsyms * 12 / 64)
    };

    // Sizes.
    let note_size = notes_size(descs);
    let dynsym_size = SYM_SIZE * (1 + nsyms);
    let gnu_hash_size = 16 + 8 * mask_words + 4 * nbuckets + 4 * nsyms;
    let hash_entries = 1 + nsyms;
    let hash_size = 4 * (2 + 2 * hash_entries);
    let dynstr_size = dynstr.len() as u64;
    let rodata_size = 64 * nk as u64;
    let (text_offs, text_size) = text_layout(co);
    let dynamic_size = 7 * 16;

    // Addresses (= file offsets in the first segment).
    let phdr_off = EHDR_SIZE as u64;
    let note_addr = align(phdr_off + PHNUM * PHDR_SIZE, 4);
    let dynsym_addr = align(note_addr + note_size, 8);
    let gnu_hash_addr = align(dynsym_addr + dynsym_size, 8);
    let hash_addr = align(gnu_hash_addr + gnu_hash_size, 4);
    let dynstr_addr = hash_addr + hash_size;
    let rodata_addr = align(dynstr_addr + dynstr_size, 64);
    let seg0_end = rodata_addr + rodata_size;
    let text_addr = new_segment_addr(seg0_end, 256);
    let text_off = congruent_offset(seg0_end, text_addr);
    let dynamic_addr = new_segment_addr(text_addr + text_size, 8);
    let dynamic_off = congruent_offset(text_off + text_size, dynamic_addr);
    let relro_end = align(dynamic_addr + dynamic_size, PAGE);
    let relro_pad = relro_end - (dynamic_addr + dynamic_size);
    let after_alloc = dynamic_off + dynamic_size;

    // Symbol values.
    let sym_value = |is_kd: bool, i: usize| {
        if is_kd {
            rodata_addr + 64 * i as u64
        } else {
            text_addr + text_offs[i]
        }
    };
    let sym_of = |j: usize, name_off: u32| {
        let (n, is_kd, i) = &exported[j];
        Sym {
            name: n,
            name_off,
            info: STB_GLOBAL << 4 | if *is_kd { STT_OBJECT } else { STT_FUNC },
            other: STV_PROTECTED,
            shndx: if *is_kd { idx::RODATA } else { idx::TEXT },
            value: sym_value(*is_kd, *i),
            size: if *is_kd {
                64
            } else {
                4 * co.kernels[*i].code.len() as u64
            },
        }
    };

    // The exact file size, so the buffer never moves: the non-allocated
    // tail is .symtab (null, _DYNAMIC, the exported symbols), .shstrtab,
    // .strtab (NUL, "_DYNAMIC", the names as in .dynstr) and the headers.
    let shstrtab_len: u64 = SECTION_NAMES.iter().map(|n| n.len() as u64 + 1).sum();
    let tail = SYM_SIZE * (2 + nsyms) + shstrtab_len + 9 + dynstr_size;
    let total = align(align(after_alloc, 8) + tail, 8) + 64 * u64::from(idx::COUNT);
    let mut out: Vec<u8> = Vec::with_capacity(total as usize);
    out.resize(EHDR_SIZE, 0);
    // Program headers.
    let phdr = |out: &mut Vec<u8>,
                ty: u32,
                flags: u32,
                off: u64,
                addr: u64,
                filesz: u64,
                memsz: u64,
                al: u64| {
        out.extend_from_slice(&ty.to_le_bytes());
        out.extend_from_slice(&flags.to_le_bytes());
        for v in [off, addr, addr, filesz, memsz, al] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    };
    let phdrs_size = PHNUM * PHDR_SIZE;
    let dyn_mem = dynamic_size + relro_pad;
    phdr(
        &mut out, PT_PHDR, PF_R, phdr_off, phdr_off, phdrs_size, phdrs_size, 8,
    );
    phdr(&mut out, PT_LOAD, PF_R, 0, 0, seg0_end, seg0_end, PAGE);
    phdr(
        &mut out,
        PT_LOAD,
        PF_R | PF_X,
        text_off,
        text_addr,
        text_size,
        text_size,
        PAGE,
    );
    phdr(
        &mut out,
        PT_LOAD,
        PF_R | PF_W,
        dynamic_off,
        dynamic_addr,
        dynamic_size,
        dyn_mem,
        PAGE,
    );
    phdr(
        &mut out,
        PT_DYNAMIC,
        PF_R | PF_W,
        dynamic_off,
        dynamic_addr,
        dynamic_size,
        dynamic_size,
        8,
    );
    phdr(
        &mut out,
        PT_GNU_RELRO,
        PF_R,
        dynamic_off,
        dynamic_addr,
        dynamic_size,
        dyn_mem,
        1,
    );
    phdr(&mut out, PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 0);
    phdr(
        &mut out, PT_NOTE, PF_R, note_addr, note_addr, note_size, note_size, 4,
    );

    // .note
    pad_to(&mut out, note_addr);
    put_notes(&mut out, descs);
    pad_to(&mut out, note_addr + note_size);

    // .dynsym
    pad_to(&mut out, dynsym_addr);
    out.extend_from_slice(&[0u8; SYM_SIZE as usize]);
    for &j in &order {
        put_sym(&mut out, &sym_of(j, dyn_name_off[j]));
    }

    // .gnu.hash
    pad_to(&mut out, gnu_hash_addr);
    put_gnu_hash(&mut out, &hashes, &order, nbuckets, mask_words);

    // .hash (SysV): nbucket = nchain = number of dynamic symbols.
    pad_to(&mut out, hash_addr);
    put_sysv_hash(
        &mut out,
        order.iter().map(|&j| exported[j].0.as_bytes()),
        hash_entries,
    );

    // .dynstr
    pad_to(&mut out, dynstr_addr);
    out.extend_from_slice(&dynstr);

    // .rodata: the descriptors.
    pad_to(&mut out, rodata_addr);
    for (i, k) in co.kernels.iter().enumerate() {
        let kd_addr = rodata_addr + 64 * i as u64;
        let entry = (text_addr + text_offs[i]) as i64 - kd_addr as i64;
        out.extend_from_slice(&k.descriptor.encode(&co.target, entry).to_bytes());
    }

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

    // .dynamic
    pad_to(&mut out, dynamic_off);
    put_dynamic(
        &mut out,
        dynsym_addr,
        dynstr_addr,
        dynstr_size,
        gnu_hash_addr,
        hash_addr,
    );

    // .symtab and .strtab: the null symbol, lld's local _DYNAMIC, then the
    // exported symbols in input order.
    let mut strtab = vec![0u8];
    let mut add_str = |s: &str| {
        let off = strtab.len() as u32;
        strtab.extend_from_slice(s.as_bytes());
        strtab.push(0);
        off
    };
    let dyn_sym = Sym {
        name: "_DYNAMIC",
        name_off: add_str("_DYNAMIC"),
        info: STB_LOCAL << 4 | STT_NOTYPE,
        other: STV_HIDDEN,
        shndx: idx::DYNAMIC,
        value: dynamic_addr,
        size: 0,
    };
    let mut symtab_syms = vec![dyn_sym];
    for (j, (name, _, _)) in exported.iter().enumerate() {
        let off = add_str(name);
        symtab_syms.push(sym_of(j, off));
    }
    let symtab_off = align(after_alloc, 8);
    pad_to(&mut out, symtab_off);
    out.extend_from_slice(&[0u8; SYM_SIZE as usize]);
    for s in &symtab_syms {
        debug_assert!(!s.name.is_empty());
        put_sym(&mut out, s);
    }
    let symtab_size = SYM_SIZE * (1 + symtab_syms.len() as u64);

    let mut shstrtab = vec![0u8];
    let mut sh_name = [0u32; idx::COUNT as usize];
    for (i, n) in SECTION_NAMES.iter().enumerate().skip(1) {
        sh_name[i] = shstrtab.len() as u32;
        shstrtab.extend_from_slice(n.as_bytes());
        shstrtab.push(0);
    }
    let shstrtab_off = symtab_off + symtab_size;
    out.extend_from_slice(&shstrtab);
    let strtab_off = shstrtab_off + shstrtab.len() as u64;
    out.extend_from_slice(&strtab);
    let shoff = align(strtab_off + strtab.len() as u64, 8);
    pad_to(&mut out, shoff);

    let sh = |i: u16, sh_type, flags, addr, offset, size, link: u16, info, al, entsize| Shdr {
        name: sh_name[usize::from(i)],
        sh_type,
        flags,
        addr,
        offset,
        size,
        link: link.into(),
        info,
        align: al,
        entsize,
    };
    let a = SHF_ALLOC;
    let shdrs = [
        sh(0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        sh(
            idx::NOTE,
            SHT_NOTE,
            a,
            note_addr,
            note_addr,
            note_size,
            0,
            0,
            4,
            0,
        ),
        sh(
            idx::DYNSYM,
            SHT_DYNSYM,
            a,
            dynsym_addr,
            dynsym_addr,
            dynsym_size,
            idx::DYNSTR,
            1,
            8,
            SYM_SIZE,
        ),
        sh(
            idx::GNU_HASH,
            SHT_GNU_HASH,
            a,
            gnu_hash_addr,
            gnu_hash_addr,
            gnu_hash_size,
            idx::DYNSYM,
            0,
            8,
            0,
        ),
        sh(
            idx::HASH,
            SHT_HASH,
            a,
            hash_addr,
            hash_addr,
            hash_size,
            idx::DYNSYM,
            0,
            4,
            4,
        ),
        sh(
            idx::DYNSTR,
            SHT_STRTAB,
            a,
            dynstr_addr,
            dynstr_addr,
            dynstr_size,
            0,
            0,
            1,
            0,
        ),
        sh(
            idx::RODATA,
            SHT_PROGBITS,
            a,
            rodata_addr,
            rodata_addr,
            rodata_size,
            0,
            0,
            64,
            0,
        ),
        sh(
            idx::TEXT,
            SHT_PROGBITS,
            a | SHF_EXECINSTR,
            text_addr,
            text_off,
            text_size,
            0,
            0,
            256,
            0,
        ),
        sh(
            idx::DYNAMIC,
            SHT_DYNAMIC,
            a | SHF_WRITE,
            dynamic_addr,
            dynamic_off,
            dynamic_size,
            idx::DYNSTR,
            0,
            8,
            16,
        ),
        sh(
            idx::RELRO_PADDING,
            SHT_NOBITS,
            a | SHF_WRITE,
            dynamic_addr + dynamic_size,
            after_alloc,
            relro_pad,
            0,
            0,
            1,
            0,
        ),
        sh(
            idx::SYMTAB,
            SHT_SYMTAB,
            0,
            0,
            symtab_off,
            symtab_size,
            idx::STRTAB,
            2,
            8,
            SYM_SIZE,
        ),
        sh(
            idx::SHSTRTAB,
            SHT_STRTAB,
            0,
            0,
            shstrtab_off,
            shstrtab.len() as u64,
            0,
            0,
            1,
            0,
        ),
        sh(
            idx::STRTAB,
            SHT_STRTAB,
            0,
            0,
            strtab_off,
            strtab.len() as u64,
            0,
            0,
            1,
            0,
        ),
    ];
    for s in &shdrs {
        out.extend_from_slice(&s.name.to_le_bytes());
        out.extend_from_slice(&s.sh_type.to_le_bytes());
        for v in [s.flags, s.addr, s.offset, s.size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&s.link.to_le_bytes());
        out.extend_from_slice(&s.info.to_le_bytes());
        out.extend_from_slice(&s.align.to_le_bytes());
        out.extend_from_slice(&s.entsize.to_le_bytes());
    }

    // ELF header.
    let t = &co.target;
    let mut h = [0u8; EHDR_SIZE];
    h[..4].copy_from_slice(b"\x7fELF");
    h[4] = 2; // ELFCLASS64
    h[5] = 1; // little-endian
    h[6] = 1; // EV_CURRENT
    h[7] = ELFOSABI_AMDGPU_HSA;
    h[8] = t.cov.abi_version();
    h[16..18].copy_from_slice(&ET_DYN.to_le_bytes());
    h[18..20].copy_from_slice(&EM_AMDGPU.to_le_bytes());
    h[20..24].copy_from_slice(&1u32.to_le_bytes());
    h[32..40].copy_from_slice(&phdr_off.to_le_bytes());
    h[40..48].copy_from_slice(&shoff.to_le_bytes());
    h[48..52].copy_from_slice(&t.e_flags().to_le_bytes());
    h[52..54].copy_from_slice(&(EHDR_SIZE as u16).to_le_bytes());
    h[54..56].copy_from_slice(&(PHDR_SIZE as u16).to_le_bytes());
    h[56..58].copy_from_slice(&(PHNUM as u16).to_le_bytes());
    h[58..60].copy_from_slice(&64u16.to_le_bytes());
    h[60..62].copy_from_slice(&idx::COUNT.to_le_bytes());
    h[62..64].copy_from_slice(&idx::SHSTRTAB.to_le_bytes());
    out[..EHDR_SIZE].copy_from_slice(&h);
    debug_assert_eq!(out.len() as u64, total);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes() {
        // Known values (the ELF gABI and GNU examples).
        assert_eq!(elf_hash(b""), 0);
        assert_eq!(gnu_hash(b""), 5381);
        assert_eq!(gnu_hash(b"printf"), 0x156b_2bb8);
        assert_eq!(elf_hash(b"printf"), 0x077_905a6);
        assert_eq!(next_power_of_2(0), 1);
        assert_eq!(next_power_of_2(1), 2);
        assert_eq!(next_power_of_2(4), 8);
    }

    #[test]
    fn lld_addresses() {
        // ld.lld-19 -shared on one llvm-mc kernel: first segment ends at
        // 0x440, .text at 0x1500 (offset 0x500), .dynamic at 0x2508.
        assert_eq!(new_segment_addr(0x440, 256), 0x1500);
        assert_eq!(congruent_offset(0x440, 0x1500), 0x500);
        assert_eq!(new_segment_addr(0x1504, 8), 0x2508);
        assert_eq!(congruent_offset(0x504, 0x2508), 0x508);
        // Two clang kernels: first segment ends at 0x7c4.
        assert_eq!(new_segment_addr(0x7c4, 256), 0x1800);
        assert_eq!(new_segment_addr(0x1d40, 8), 0x2d40);
    }
}
