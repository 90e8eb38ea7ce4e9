//! The linked shared object as `ld.lld-19 -shared` lays out a code
//! object, for code object V3+ ([`super::elf`], with `.rodata` holding
//! the descriptors) and V2 ([`super::v2`], without): one layout, written
//! with [`super::writer`].
//!
//! The layout (observed with `ld.lld-19 -shared` on llvm-mc-19 and
//! llc-14 output): ELF header; eight program headers (PHDR, LOAD r, LOAD
//! rx, LOAD rw, DYNAMIC, GNU_RELRO, GNU_STACK, NOTE); `.note`; `.dynsym`,
//! `.gnu.hash`, `.hash`, `.dynstr` (every exported symbol); `.rodata` if
//! any (64-byte aligned) ending the first segment; `.text` (256-byte
//! aligned) starting a new page at the same page offset; `.dynamic` and
//! `.relro_padding` (up to the page end) in the writable segment; then
//! `.symtab`, `.shstrtab`, `.strtab` and the section headers. lld's
//! `.comment` section (its version string) is not written.

use super::writer::{
    align, pad_to, put, put_dynamic, put_section_headers, put_symbols, Ehdr, Phdr, Shdr, StrTab,
    Symbol,
};
use hsaco_oracle::elf::raw::{
    gnu_hash, sysv_hash, DT_GNU_HASH, DT_HASH, DT_NULL, DT_STRSZ, DT_STRTAB, DT_SYMENT, DT_SYMTAB,
    DYN_SIZE, EHDR_SIZE, ET_DYN, PF_R, PF_W, PF_X, PHDR_SIZE, PT_DYNAMIC, PT_GNU_RELRO,
    PT_GNU_STACK, PT_LOAD, PT_NOTE, PT_PHDR, SHDR_SIZE, SHF_ALLOC, SHF_EXECINSTR, SHF_WRITE,
    SHT_DYNAMIC, SHT_DYNSYM, SHT_GNU_HASH, SHT_HASH, SHT_NOBITS, SHT_NOTE, SHT_PROGBITS,
    SHT_STRTAB, STB_LOCAL, STT_NOTYPE, STV_HIDDEN, SYM_SIZE,
};

/// lld's page size for AMDGPU.
pub(crate) const PAGE: u64 = 0x1000;
/// The program headers lld writes.
pub(crate) const PHNUM: u16 = 8;
/// lld's GNU hash Bloom filter second shift.
const GNU_HASH_SHIFT2: u32 = 26;
const SYM: u64 = SYM_SIZE as u64;
/// `.dynamic`: DT_SYMTAB, DT_SYMENT, DT_STRTAB, DT_STRSZ, DT_GNU_HASH,
/// DT_HASH, DT_NULL.
const DYNAMIC_SIZE: u64 = 7 * DYN_SIZE as u64;

/// The section indices of the layout, with or without `.rodata`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Index {
    /// `.note`.
    pub note: u16,
    /// `.dynsym`.
    pub dynsym: u16,
    /// `.gnu.hash`.
    pub gnu_hash: u16,
    /// `.hash`.
    pub hash: u16,
    /// `.dynstr`.
    pub dynstr: u16,
    /// `.rodata` (where it would be: the section after `.dynstr`).
    pub rodata: u16,
    /// `.text`.
    pub text: u16,
    /// `.dynamic`.
    pub dynamic: u16,
    /// `.relro_padding`.
    pub relro_padding: u16,
    /// `.symtab`.
    pub symtab: u16,
    /// `.shstrtab`.
    pub shstrtab: u16,
    /// `.strtab`.
    pub strtab: u16,
    /// Number of sections.
    pub count: u16,
}

impl Index {
    /// The indices when the layout has `.rodata` (`rodata`) or not.
    pub(crate) const fn new(rodata: bool) -> Index {
        let r = rodata as u16;
        Index {
            note: 1,
            dynsym: 2,
            gnu_hash: 3,
            hash: 4,
            dynstr: 5,
            rodata: 6,
            text: 6 + r,
            dynamic: 7 + r,
            relro_padding: 8 + r,
            symtab: 9 + r,
            shstrtab: 10 + r,
            strtab: 11 + r,
            count: 12 + r,
        }
    }
}

/// An exported (dynamic) symbol, defined in `.text` or `.rodata`.
#[derive(Debug, Clone)]
pub(crate) struct Export<'a> {
    /// The name.
    pub name: &'a str,
    /// `st_info` (binding << 4 | type).
    pub info: u8,
    /// `st_other` (visibility).
    pub other: u8,
    /// Defined in `.rodata` (else `.text`).
    pub in_rodata: bool,
    /// Offset from the start of its section.
    pub offset: u64,
    /// `st_size`.
    pub size: u64,
}

/// What the layout places: everything but the `.rodata` and `.text`
/// bytes, which [`SharedObject::write`] takes once [`Addresses`] are known.
#[derive(Debug, Clone)]
pub(crate) struct SharedObject<'a> {
    /// `e_ident[EI_ABIVERSION]`.
    pub abi_version: u8,
    /// `e_flags`.
    pub e_flags: u32,
    /// The `.note` section's bytes.
    pub notes: &'a [u8],
    /// The exported symbols, in input order.
    pub exports: Vec<Export<'a>>,
    /// The size of `.rodata`, or `None` for a layout without it.
    pub rodata_size: Option<u64>,
    /// The size of `.text`.
    pub text_size: u64,
    /// Exports (by index) that `.symtab` holds a second time (a
    /// duplicate definition, for mutants).
    pub symtab_repeats: &'a [usize],
}

/// The addresses the section contents depend on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Addresses {
    /// `.rodata` (where it would start when there is none).
    pub rodata: u64,
    /// `.text`.
    pub text: u64,
}

/// Every offset and address of the layout.
struct Layout {
    nsyms: u64,
    nbuckets: u64,
    mask_words: u64,
    note: u64,
    dynsym: u64,
    gnu_hash: u64,
    hash: u64,
    dynstr: u64,
    dynstr_size: u64,
    rodata: u64,
    seg0_end: u64,
    text_addr: u64,
    text_off: u64,
    dynamic_addr: u64,
    dynamic_off: u64,
    relro_pad: u64,
}

impl Layout {
    fn gnu_hash_size(&self) -> u64 {
        16 + 8 * self.mask_words + 4 * self.nbuckets + 4 * self.nsyms
    }
    fn hash_size(&self) -> u64 {
        4 * (2 + 2 * (1 + self.nsyms))
    }
    fn after_alloc(&self) -> u64 {
        self.dynamic_off + DYNAMIC_SIZE
    }
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

/// LLVM's `NextPowerOf2`: the smallest power of two strictly above `v`.
pub(crate) fn next_power_of_2(v: u64) -> u64 {
    1u64 << (64 - v.leading_zeros())
}

impl SharedObject<'_> {
    fn dynstr_size(&self) -> u64 {
        1 + self
            .exports
            .iter()
            .map(|e| e.name.len() as u64 + 1)
            .sum::<u64>()
    }

    fn layout(&self) -> Layout {
        let nsyms = self.exports.len() as u64;
        let nbuckets = (nsyms / 4).max(1);
        let mask_words = if nsyms == 0 {
            1
        } else {
            next_power_of_2(nsyms * 12 / 64)
        };
        let dynstr_size = self.dynstr_size();
        let mut l = Layout {
            nsyms,
            nbuckets,
            mask_words,
            note: align(EHDR_SIZE as u64 + u64::from(PHNUM) * PHDR_SIZE as u64, 4),
            dynsym: 0,
            gnu_hash: 0,
            hash: 0,
            dynstr: 0,
            dynstr_size,
            rodata: 0,
            seg0_end: 0,
            text_addr: 0,
            text_off: 0,
            dynamic_addr: 0,
            dynamic_off: 0,
            relro_pad: 0,
        };
        // Addresses are file offsets in the first segment.
        l.dynsym = align(l.note + self.notes.len() as u64, 8);
        l.gnu_hash = align(l.dynsym + SYM * (1 + nsyms), 8);
        l.hash = align(l.gnu_hash + l.gnu_hash_size(), 4);
        l.dynstr = l.hash + l.hash_size();
        let dynstr_end = l.dynstr + dynstr_size;
        l.rodata = align(dynstr_end, hsaco_oracle::layout::KD_ALIGN);
        l.seg0_end = match self.rodata_size {
            Some(size) => l.rodata + size,
            None => dynstr_end,
        };
        l.text_addr = new_segment_addr(l.seg0_end, 256);
        l.text_off = congruent_offset(l.seg0_end, l.text_addr);
        l.dynamic_addr = new_segment_addr(l.text_addr + self.text_size, 8);
        l.dynamic_off = congruent_offset(l.text_off + self.text_size, l.dynamic_addr);
        let dynamic_end = l.dynamic_addr + DYNAMIC_SIZE;
        l.relro_pad = align(dynamic_end, PAGE) - dynamic_end;
        l
    }

    /// Where `.rodata` and `.text` go.
    pub(crate) fn addresses(&self) -> Addresses {
        let l = self.layout();
        Addresses {
            rodata: l.rodata,
            text: l.text_addr,
        }
    }

    /// The file, with `rodata` and `text` (of the sizes given) as the
    /// sections' bytes.
    pub(crate) fn write(&self, rodata: &[u8], text: &[u8]) -> Vec<u8> {
        let l = self.layout();
        let ix = Index::new(self.rodata_size.is_some());
        debug_assert_eq!(rodata.len() as u64, self.rodata_size.unwrap_or(0));
        debug_assert_eq!(text.len() as u64, self.text_size);
        let sec_names = [
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
        let shstrtab = StrTab::of(
            sec_names
                .iter()
                .copied()
                .skip(1)
                .filter(|&n| n != ".rodata" || self.rodata_size.is_some()),
        );

        // .dynstr in input order (lld adds names as symbols are added);
        // .gnu.hash order: lld stable-sorts the symbols by bucket.
        let dynstr = StrTab::of(self.exports.iter().map(|e| e.name));
        let hashes: Vec<u32> = self
            .exports
            .iter()
            .map(|e| gnu_hash(e.name.as_bytes()))
            .collect();
        let mut order: Vec<usize> = (0..self.exports.len()).collect();
        order.sort_by_key(|&i| u64::from(hashes[i]) % l.nbuckets);
        let symbol = |e: &Export<'_>, name: u32| Symbol {
            name,
            info: e.info,
            other: e.other,
            shndx: if e.in_rodata { ix.rodata } else { ix.text },
            value: e.offset + if e.in_rodata { l.rodata } else { l.text_addr },
            size: e.size,
        };
        // The name offsets .dynstr and .strtab (after "\0_DYNAMIC\0") give
        // each export.
        let mut name_offs = Vec::with_capacity(self.exports.len());
        let mut off = 1u32;
        for e in &self.exports {
            name_offs.push(off);
            off += e.name.len() as u32 + 1;
        }

        // .symtab: the null symbol, lld's local hidden _DYNAMIC, the
        // exports in input order, then any repeats; .strtab: NUL,
        // "_DYNAMIC", the names as in .dynstr.
        let dynamic_sym = Symbol {
            name: 1,
            info: STB_LOCAL << 4 | STT_NOTYPE,
            other: STV_HIDDEN,
            shndx: ix.dynamic,
            value: l.dynamic_addr,
            size: 0,
        };
        let strtab_name = |j: usize| name_offs[j] + "_DYNAMIC".len() as u32 + 1;
        let symtab: Vec<Symbol> = [Symbol::NULL, dynamic_sym]
            .into_iter()
            .chain((0..self.exports.len()).map(|j| symbol(&self.exports[j], strtab_name(j))))
            .chain(
                self.symtab_repeats
                    .iter()
                    .filter(|&&j| j < self.exports.len())
                    .map(|&j| symbol(&self.exports[j], strtab_name(j))),
            )
            .collect();

        // The exact file size, so the buffer never moves.
        let strtab_size = 9 + l.dynstr_size;
        let symtab_off = align(l.after_alloc(), 8);
        let symtab_size = SYM * symtab.len() as u64;
        let shstrtab_off = symtab_off + symtab_size;
        let strtab_off = shstrtab_off + shstrtab.len();
        let shoff = align(strtab_off + strtab_size, 8);
        let total = shoff + SHDR_SIZE as u64 * u64::from(ix.count);
        let mut out: Vec<u8> = Vec::with_capacity(total as usize);

        put(
            &mut out,
            &Ehdr {
                e_type: ET_DYN,
                abi_version: self.abi_version,
                e_flags: self.e_flags,
                phoff: EHDR_SIZE as u64,
                phnum: PHNUM,
                shoff,
                shnum: ix.count,
                shstrndx: ix.shstrtab,
            }
            .raw(),
        );

        let phdrs_size = u64::from(PHNUM) * PHDR_SIZE as u64;
        let note_size = self.notes.len() as u64;
        let (dyn_off, dyn_addr) = (l.dynamic_off, l.dynamic_addr);
        let dyn_mem = DYNAMIC_SIZE + l.relro_pad;
        let (text_off, text_addr, text_size) = (l.text_off, l.text_addr, self.text_size);
        #[rustfmt::skip]
        let phdrs = [
            (PT_PHDR, PF_R, EHDR_SIZE as u64, EHDR_SIZE as u64, phdrs_size, phdrs_size, 8),
            (PT_LOAD, PF_R, 0, 0, l.seg0_end, l.seg0_end, PAGE),
            (PT_LOAD, PF_R | PF_X, text_off, text_addr, text_size, text_size, PAGE),
            (PT_LOAD, PF_R | PF_W, dyn_off, dyn_addr, DYNAMIC_SIZE, dyn_mem, PAGE),
            (PT_DYNAMIC, PF_R | PF_W, dyn_off, dyn_addr, DYNAMIC_SIZE, DYNAMIC_SIZE, 8),
            (PT_GNU_RELRO, PF_R, dyn_off, dyn_addr, DYNAMIC_SIZE, dyn_mem, 1),
            (PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 0),
            (PT_NOTE, PF_R, l.note, l.note, note_size, note_size, 4),
        ];
        for (p_type, flags, offset, addr, filesz, memsz, align) in phdrs {
            let p = Phdr {
                p_type,
                flags,
                offset,
                addr,
                filesz,
                memsz,
                align,
            };
            put(&mut out, &p.raw());
        }

        pad_to(&mut out, l.note);
        out.extend_from_slice(self.notes);

        pad_to(&mut out, l.dynsym);
        let dynsym: Vec<Symbol> = std::iter::once(Symbol::NULL)
            .chain(
                order
                    .iter()
                    .map(|&j| symbol(&self.exports[j], name_offs[j])),
            )
            .collect();
        put_symbols(&mut out, &dynsym);

        pad_to(&mut out, l.gnu_hash);
        put_gnu_hash(&mut out, &hashes, &order, l.nbuckets, l.mask_words);

        // .hash (SysV): nbucket = nchain = number of dynamic symbols.
        pad_to(&mut out, l.hash);
        put_sysv_hash(
            &mut out,
            order.iter().map(|&j| self.exports[j].name.as_bytes()),
            1 + l.nsyms,
        );

        pad_to(&mut out, l.dynstr);
        out.extend_from_slice(&dynstr.bytes);

        if self.rodata_size.is_some() {
            pad_to(&mut out, l.rodata);
            out.extend_from_slice(rodata);
        }

        pad_to(&mut out, l.text_off);
        out.extend_from_slice(text);

        pad_to(&mut out, l.dynamic_off);
        put_dynamic(
            &mut out,
            &[
                (DT_SYMTAB, l.dynsym),
                (DT_SYMENT, SYM),
                (DT_STRTAB, l.dynstr),
                (DT_STRSZ, l.dynstr_size),
                (DT_GNU_HASH, l.gnu_hash),
                (DT_HASH, l.hash),
                (DT_NULL, 0),
            ],
        );

        pad_to(&mut out, symtab_off);
        put_symbols(&mut out, &symtab);
        out.extend_from_slice(&shstrtab.bytes);
        out.extend_from_slice(b"\0_DYNAMIC");
        out.extend_from_slice(&dynstr.bytes);
        pad_to(&mut out, shoff);

        let a = SHF_ALLOC;
        let dynamic_end = l.dynamic_addr + DYNAMIC_SIZE;
        let mut shdrs = vec![
            Shdr::default(),
            Shdr {
                name: ".note",
                sh_type: SHT_NOTE,
                flags: a,
                addr: l.note,
                offset: l.note,
                size: note_size,
                addralign: 4,
                ..Shdr::default()
            },
            Shdr {
                name: ".dynsym",
                sh_type: SHT_DYNSYM,
                flags: a,
                addr: l.dynsym,
                offset: l.dynsym,
                size: SYM * (1 + l.nsyms),
                link: ix.dynstr,
                info: 1,
                addralign: 8,
                entsize: SYM,
            },
            Shdr {
                name: ".gnu.hash",
                sh_type: SHT_GNU_HASH,
                flags: a,
                addr: l.gnu_hash,
                offset: l.gnu_hash,
                size: l.gnu_hash_size(),
                link: ix.dynsym,
                addralign: 8,
                ..Shdr::default()
            },
            Shdr {
                name: ".hash",
                sh_type: SHT_HASH,
                flags: a,
                addr: l.hash,
                offset: l.hash,
                size: l.hash_size(),
                link: ix.dynsym,
                addralign: 4,
                entsize: 4,
                ..Shdr::default()
            },
            Shdr {
                name: ".dynstr",
                sh_type: SHT_STRTAB,
                flags: a,
                addr: l.dynstr,
                offset: l.dynstr,
                size: l.dynstr_size,
                addralign: 1,
                ..Shdr::default()
            },
        ];
        if let Some(size) = self.rodata_size {
            shdrs.push(Shdr {
                name: ".rodata",
                sh_type: SHT_PROGBITS,
                flags: a,
                addr: l.rodata,
                offset: l.rodata,
                size,
                addralign: 64,
                ..Shdr::default()
            });
        }
        shdrs.extend([
            Shdr {
                name: ".text",
                sh_type: SHT_PROGBITS,
                flags: a | SHF_EXECINSTR,
                addr: l.text_addr,
                offset: l.text_off,
                size: self.text_size,
                addralign: 256,
                ..Shdr::default()
            },
            Shdr {
                name: ".dynamic",
                sh_type: SHT_DYNAMIC,
                flags: a | SHF_WRITE,
                addr: l.dynamic_addr,
                offset: l.dynamic_off,
                size: DYNAMIC_SIZE,
                link: ix.dynstr,
                addralign: 8,
                entsize: DYN_SIZE as u64,
                ..Shdr::default()
            },
            Shdr {
                name: ".relro_padding",
                sh_type: SHT_NOBITS,
                flags: a | SHF_WRITE,
                addr: dynamic_end,
                offset: l.after_alloc(),
                size: l.relro_pad,
                addralign: 1,
                ..Shdr::default()
            },
            // The first global: after the null symbol and _DYNAMIC.
            Shdr::symtab(symtab_off, symtab_size, ix.strtab, 2),
            Shdr::strtab(".shstrtab", shstrtab_off, shstrtab.len()),
            Shdr::strtab(".strtab", strtab_off, strtab_size),
        ]);
        debug_assert_eq!(shdrs.len(), usize::from(ix.count));
        put_section_headers(&mut out, &shdrs, &shstrtab);
        debug_assert_eq!(out.len() as u64, total);
        out
    }
}

/// Writes `.gnu.hash` as lld does for the dynamic symbols after the null
/// one, in `order` (indices into `hashes`, stable-sorted by bucket).
fn put_gnu_hash(
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
fn put_sysv_hash<'a>(out: &mut Vec<u8>, names: impl Iterator<Item = &'a [u8]>, entries: u64) {
    let mut sbuckets = vec![0u32; entries as usize];
    let mut chains = vec![0u32; entries as usize];
    for (pos, name) in names.enumerate() {
        let i = pos + 1;
        let b = (sysv_hash(name) as u64 % entries) as usize;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes() {
        // Known values (the ELF gABI and GNU examples): the `object`
        // crate's hash functions are the ones lld uses.
        assert_eq!(sysv_hash(b""), 0);
        assert_eq!(gnu_hash(b""), 5381);
        assert_eq!(gnu_hash(b"printf"), 0x156b_2bb8);
        assert_eq!(sysv_hash(b"printf"), 0x077_905a6);
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
