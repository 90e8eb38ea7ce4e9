//! A small ELF64 editor for mutation tests: read sections and symbols of a
//! real code object, patch bytes, and replace a section's contents.
//!
//! It is written independently of the oracle's ELF reader on purpose, so a
//! bug in one does not hide the same bug in the other.

#![allow(dead_code)]

/// One section header, with where it sits in the file.
#[derive(Debug, Clone)]
pub struct Sec {
    pub index: usize,
    pub name: String,
    pub sh_type: u32,
    pub flags: u64,
    pub addr: u64,
    pub offset: u64,
    pub size: u64,
    pub link: u32,
    pub info: u32,
    pub align: u64,
    pub entsize: u64,
    /// File offset of this section's header.
    pub hdr: usize,
}

/// One symbol table entry, with where it sits in the file.
#[derive(Debug, Clone)]
pub struct Sym {
    pub index: usize,
    pub name: String,
    pub value: u64,
    pub size: u64,
    pub info: u8,
    pub shndx: u16,
    /// File offset of this symbol's entry.
    pub at: usize,
}

/// An ELF64 little-endian file being edited.
#[derive(Clone)]
pub struct Obj {
    pub bytes: Vec<u8>,
}

impl Obj {
    pub fn new(bytes: Vec<u8>) -> Self {
        Obj { bytes }
    }

    pub fn u8(&self, off: usize) -> u8 {
        self.bytes[off]
    }
    pub fn u16(&self, off: usize) -> u16 {
        u16::from_le_bytes(self.bytes[off..off + 2].try_into().unwrap())
    }
    pub fn u32(&self, off: usize) -> u32 {
        u32::from_le_bytes(self.bytes[off..off + 4].try_into().unwrap())
    }
    pub fn u64(&self, off: usize) -> u64 {
        u64::from_le_bytes(self.bytes[off..off + 8].try_into().unwrap())
    }
    pub fn set_u8(&mut self, off: usize, v: u8) {
        self.bytes[off] = v;
    }
    pub fn set_u16(&mut self, off: usize, v: u16) {
        self.bytes[off..off + 2].copy_from_slice(&v.to_le_bytes());
    }
    pub fn set_u32(&mut self, off: usize, v: u32) {
        self.bytes[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }
    pub fn set_u64(&mut self, off: usize, v: u64) {
        self.bytes[off..off + 8].copy_from_slice(&v.to_le_bytes());
    }

    pub fn e_type(&self) -> u16 {
        self.u16(16)
    }
    pub fn phoff(&self) -> usize {
        self.u64(32) as usize
    }
    pub fn phnum(&self) -> usize {
        self.u16(56) as usize
    }

    pub fn sections(&self) -> Vec<Sec> {
        let shoff = self.u64(40) as usize;
        let shnum = self.u16(60) as usize;
        let shstrndx = self.u16(62) as usize;
        let raw: Vec<Sec> = (0..shnum)
            .map(|i| {
                let h = shoff + i * 64;
                Sec {
                    index: i,
                    name: self.u32(h).to_string(),
                    sh_type: self.u32(h + 4),
                    flags: self.u64(h + 8),
                    addr: self.u64(h + 16),
                    offset: self.u64(h + 24),
                    size: self.u64(h + 32),
                    link: self.u32(h + 40),
                    info: self.u32(h + 44),
                    align: self.u64(h + 48),
                    entsize: self.u64(h + 56),
                    hdr: h,
                }
            })
            .collect();
        let strtab = raw[shstrndx].offset as usize;
        raw.into_iter()
            .map(|mut s| {
                let off: usize = s.name.parse().unwrap();
                s.name = self.cstr(strtab + off);
                s
            })
            .collect()
    }

    fn cstr(&self, off: usize) -> String {
        let end = self.bytes[off..].iter().position(|&b| b == 0).unwrap();
        String::from_utf8(self.bytes[off..off + end].to_vec()).unwrap()
    }

    pub fn section(&self, name: &str) -> Sec {
        self.sections()
            .into_iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no section {name}"))
    }

    /// Symbols of `.symtab`.
    pub fn symbols(&self) -> Vec<Sym> {
        let secs = self.sections();
        let t = secs.iter().find(|s| s.sh_type == 2).expect("no .symtab");
        let str_off = secs[t.link as usize].offset as usize;
        (0..(t.size / 24) as usize)
            .map(|i| {
                let at = t.offset as usize + i * 24;
                Sym {
                    index: i,
                    name: self.cstr(str_off + self.u32(at) as usize),
                    info: self.u8(at + 4),
                    shndx: self.u16(at + 6),
                    value: self.u64(at + 8),
                    size: self.u64(at + 16),
                    at,
                }
            })
            .collect()
    }

    pub fn symbol(&self, name: &str) -> Sym {
        self.symbols()
            .into_iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no symbol {name}"))
    }

    /// File offset of a symbol's first byte.
    pub fn sym_offset(&self, s: &Sym) -> usize {
        let sec = &self.sections()[s.shndx as usize];
        if self.e_type() == 1 {
            (sec.offset + s.value) as usize
        } else {
            (sec.offset + s.value - sec.addr) as usize
        }
    }

    /// File offset of kernel `name`'s 64-byte descriptor.
    pub fn kd(&self, kernel: &str) -> usize {
        let s = self.symbol(&format!("{kernel}.kd"));
        self.sym_offset(&s)
    }

    /// The names of all kernels (symbols ending in `.kd`).
    pub fn kernels(&self) -> Vec<String> {
        self.symbols()
            .into_iter()
            .filter_map(|s| s.name.strip_suffix(".kd").map(str::to_owned))
            .collect()
    }

    /// Replaces a section's bytes: the new bytes go at the end of the file
    /// (8-aligned) and the section header, any PT_NOTE segment that covered
    /// the old bytes, and (if the section grew) the PT_LOAD that holds its
    /// address are updated. Addresses of other sections do not move.
    pub fn replace_section(&mut self, name: &str, new: &[u8]) {
        let s = self.section(name);
        while !self.bytes.len().is_multiple_of(8) {
            self.bytes.push(0);
        }
        let off = self.bytes.len() as u64;
        self.bytes.extend_from_slice(new);
        self.set_u64(s.hdr + 24, off);
        self.set_u64(s.hdr + 32, new.len() as u64);
        for i in 0..self.phnum() {
            let p = self.phoff() + i * 56;
            let p_type = self.u32(p);
            if p_type == 4 && self.u64(p + 8) == s.offset {
                self.set_u64(p + 8, off);
                self.set_u64(p + 32, new.len() as u64);
                self.set_u64(p + 40, new.len() as u64);
            }
            let vaddr = self.u64(p + 16);
            let memsz = self.u64(p + 40);
            if p_type == 1 && s.flags & 2 != 0 && s.addr >= vaddr && s.addr < vaddr + memsz {
                let need = s.addr + new.len() as u64 - vaddr;
                if need > memsz {
                    self.set_u64(p + 40, need);
                }
            }
        }
    }

    /// Builds a note section body holding one note.
    pub fn note(name: &str, n_type: u32, desc: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend((name.len() as u32 + 1).to_le_bytes());
        v.extend((desc.len() as u32).to_le_bytes());
        v.extend(n_type.to_le_bytes());
        v.extend(name.as_bytes());
        v.push(0);
        while !v.len().is_multiple_of(4) {
            v.push(0);
        }
        v.extend(desc);
        while !v.len().is_multiple_of(4) {
            v.push(0);
        }
        v
    }

    /// Every note of type `n_type` with owner `name`, over all SHT_NOTE
    /// sections: (file offset of the description, its size).
    pub fn notes(&self, name: &str, n_type: u32) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for s in self.sections().into_iter().filter(|s| s.sh_type == 7) {
            let mut pos = s.offset as usize;
            let end = pos + s.size as usize;
            while pos + 12 <= end {
                let namesz = self.u32(pos) as usize;
                let descsz = self.u32(pos + 4) as usize;
                let ty = self.u32(pos + 8);
                let owner = &self.bytes[pos + 12..pos + 12 + namesz];
                let d = pos + 12 + namesz.div_ceil(4) * 4;
                if ty == n_type && owner.strip_suffix(b"\0") == Some(name.as_bytes()) {
                    out.push((d, descsz));
                }
                pos = d + descsz.div_ceil(4) * 4;
            }
        }
        out
    }

    /// The description of the first NT_AMDGPU_METADATA note.
    pub fn metadata_desc(&self) -> Vec<u8> {
        let (at, len) = *self.notes("AMDGPU", 32).first().expect("no metadata note");
        self.bytes[at..at + len].to_vec()
    }
}
