//! Helpers: the ELF bytes of a generated object, read and patched in place
//! (the one editor the mutators share; the tests keep an independent one on
//! purpose).

use super::*;
use hsaco_oracle::elf::raw::{self, from_bytes, from_bytes_mut, LE};
use object::pod::Pod;

/// A section header of the object being edited.
#[derive(Debug, Clone)]
pub(super) struct Sec {
    pub(super) index: usize,
    pub(super) name: String,
    pub(super) sh_type: u32,
    pub(super) addr: u64,
    pub(super) offset: u64,
    pub(super) size: u64,
    pub(super) link: u32,
    /// File offset of the header.
    pub(super) hdr: usize,
}

/// A symbol table entry.
#[derive(Debug, Clone)]
pub(super) struct Sym {
    /// File offset of the entry.
    pub(super) at: usize,
    pub(super) name: String,
    pub(super) info: u8,
    pub(super) shndx: u16,
    pub(super) value: u64,
    pub(super) size: u64,
}

/// A program header.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ph {
    pub(super) at: usize,
    pub(super) p_type: u32,
    pub(super) offset: u64,
    pub(super) filesz: u64,
}

/// Reads and patches the bytes of a generated object (which the ELF
/// writer made, so its tables are well-formed; reads still use `get`).
pub(super) struct Ed<'a> {
    pub(super) b: &'a mut Vec<u8>,
}

impl<'a> Ed<'a> {
    pub(super) fn new(b: &'a mut Vec<u8>) -> Self {
        Ed { b }
    }
    pub(super) fn u16(&self, at: usize) -> u16 {
        hsaco_oracle::elf::le_u16(self.b, at).unwrap_or(0)
    }
    pub(super) fn u32(&self, at: usize) -> u32 {
        hsaco_oracle::elf::le_u32(self.b, at).unwrap_or(0)
    }
    pub(super) fn u64(&self, at: usize) -> u64 {
        hsaco_oracle::elf::le_u64(self.b, at).unwrap_or(0)
    }
    pub(super) fn put(&mut self, at: usize, v: &[u8]) {
        if let Some(d) = self.b.get_mut(at..at + v.len()) {
            d.copy_from_slice(v);
        }
    }
    pub(super) fn set_u8(&mut self, at: usize, v: u8) {
        self.put(at, &[v]);
    }
    pub(super) fn set_u16(&mut self, at: usize, v: u16) {
        self.put(at, &v.to_le_bytes());
    }
    pub(super) fn set_u32(&mut self, at: usize, v: u32) {
        self.put(at, &v.to_le_bytes());
    }
    pub(super) fn set_u64(&mut self, at: usize, v: u64) {
        self.put(at, &v.to_le_bytes());
    }
    pub(super) fn len(&self) -> u64 {
        self.b.len() as u64
    }

    /// The raw structure `T` at file offset `at` (`None` past the end).
    pub(super) fn raw<T: Pod>(&self, at: usize) -> Option<&T> {
        from_bytes(self.b.get(at..)?).ok().map(|(t, _)| t)
    }

    /// The raw structure `T` at file offset `at`, to edit in place
    /// (`None` past the end).
    pub(super) fn raw_mut<T: Pod>(&mut self, at: usize) -> Option<&mut T> {
        from_bytes_mut(self.b.get_mut(at..)?).ok().map(|(t, _)| t)
    }

    /// The ELF header, to edit in place (`None` if the file is shorter).
    pub(super) fn header_mut(&mut self) -> Option<&mut raw::FileHeader> {
        self.raw_mut(0)
    }

    pub(super) fn phdrs(&self) -> Vec<Ph> {
        let Some(h) = self.raw::<raw::FileHeader>(0) else {
            return Vec::new();
        };
        let phoff = h.e_phoff.get(LE) as usize;
        (0..usize::from(h.e_phnum.get(LE)))
            .map(|i| {
                let at = phoff + raw::PHDR_SIZE * i;
                let p = self.raw::<raw::ProgramHeader>(at);
                Ph {
                    at,
                    p_type: p.map_or(0, |p| p.p_type.get(LE)),
                    offset: p.map_or(0, |p| p.p_offset.get(LE)),
                    filesz: p.map_or(0, |p| p.p_filesz.get(LE)),
                }
            })
            .collect()
    }

    pub(super) fn sections(&self) -> Vec<Sec> {
        let Some(h) = self.raw::<raw::FileHeader>(0) else {
            return Vec::new();
        };
        let shoff = h.e_shoff.get(LE) as usize;
        let shdr = |i: usize| self.raw::<raw::SectionHeader>(shoff + raw::SHDR_SIZE * i);
        let shstr = usize::from(h.e_shstrndx.get(LE));
        let str_off = shdr(shstr).map_or(0, |s| s.sh_offset.get(LE) as usize);
        (0..usize::from(h.e_shnum.get(LE)))
            .map(|i| {
                let s = shdr(i);
                let get32 = |f: fn(&raw::SectionHeader) -> u32| s.map_or(0, f);
                let get64 = |f: fn(&raw::SectionHeader) -> u64| s.map_or(0, f);
                Sec {
                    index: i,
                    name: self.cstr(str_off + get32(|s| s.sh_name.get(LE)) as usize),
                    sh_type: get32(|s| s.sh_type.get(LE)),
                    addr: get64(|s| s.sh_addr.get(LE)),
                    offset: get64(|s| s.sh_offset.get(LE)),
                    size: get64(|s| s.sh_size.get(LE)),
                    link: get32(|s| s.sh_link.get(LE)),
                    hdr: shoff + raw::SHDR_SIZE * i,
                }
            })
            .collect()
    }

    /// The section header at file offset `at` (a [`Sec::hdr`]), to edit
    /// in place.
    pub(super) fn shdr_mut(&mut self, at: usize) -> Option<&mut raw::SectionHeader> {
        self.raw_mut(at)
    }

    /// The program header at file offset `at` (a [`Ph::at`]), to edit in
    /// place.
    pub(super) fn phdr_mut(&mut self, at: usize) -> Option<&mut raw::ProgramHeader> {
        self.raw_mut(at)
    }

    pub(super) fn cstr(&self, at: usize) -> String {
        let tail = self.b.get(at..).unwrap_or(&[]);
        let end = tail.iter().position(|&c| c == 0).unwrap_or(tail.len());
        String::from_utf8_lossy(&tail[..end]).into_owned()
    }

    pub(super) fn section(&self, name: &str) -> Option<Sec> {
        self.sections().into_iter().find(|s| s.name == name)
    }

    /// The symbols of section `table` (`.symtab` or `.dynsym`), the null
    /// symbol included.
    pub(super) fn symbols(&self, table: &str) -> Vec<Sym> {
        let secs = self.sections();
        let Some(t) = secs.iter().find(|s| s.name == table) else {
            return Vec::new();
        };
        let str_off = secs.get(t.link as usize).map_or(0, |s| s.offset as usize);
        (0..t.size as usize / raw::SYM_SIZE)
            .map(|i| {
                let at = t.offset as usize + raw::SYM_SIZE * i;
                let s = self.raw::<raw::Sym>(at);
                Sym {
                    at,
                    name: self.cstr(str_off + s.map_or(0, |s| s.st_name.get(LE)) as usize),
                    info: s.map_or(0, |s| s.st_info),
                    shndx: s.map_or(0, |s| s.st_shndx.get(LE)),
                    value: s.map_or(0, |s| s.st_value.get(LE)),
                    size: s.map_or(0, |s| s.st_size.get(LE)),
                }
            })
            .collect()
    }

    /// The entries of symbol `name` in both symbol tables.
    pub(super) fn both(&self, name: &str) -> Vec<Sym> {
        [".symtab", ".dynsym"]
            .iter()
            .flat_map(|t| self.symbols(t))
            .filter(|s| s.name == name)
            .collect()
    }

    /// Applies `f` to the entries of symbol `name` in both tables.
    pub(super) fn edit_symbol(&mut self, name: &str, f: impl Fn(&mut Self, &Sym)) -> Option<()> {
        let syms = self.both(name);
        if syms.is_empty() {
            return None;
        }
        for s in &syms {
            f(self, s);
        }
        Some(())
    }

    /// Applies `f` to the raw entries of symbol `name` in both tables.
    pub(super) fn edit_sym(&mut self, name: &str, f: impl Fn(&mut raw::Sym, &Sym)) -> Option<()> {
        self.edit_symbol(name, |e, s| {
            if let Some(raw) = e.raw_mut(s.at) {
                f(raw, s);
            }
        })
    }

    /// File offset of the descriptor of kernel `name`.
    pub(super) fn kd(&self, name: &str) -> Option<usize> {
        let s = self
            .symbols(".symtab")
            .into_iter()
            .find(|s| s.name == format!("{name}.kd"))?;
        let sec = self
            .sections()
            .into_iter()
            .find(|x| x.index == usize::from(s.shndx))?;
        Some((s.value - sec.addr + sec.offset) as usize)
    }

    /// Offset, within the string table linked to `table`, of the string
    /// `name` (NUL-terminated).
    pub(super) fn str_offset(&self, table: &str, name: &str) -> Option<u32> {
        let secs = self.sections();
        let t = secs.iter().find(|s| s.name == table)?;
        let st = secs.get(t.link as usize)?;
        let data = self
            .b
            .get(st.offset as usize..(st.offset + st.size) as usize)?;
        let mut needle = name.as_bytes().to_vec();
        needle.push(0);
        data.windows(needle.len())
            .position(|w| w == needle.as_slice())
            .map(|p| p as u32)
    }
}

/// The ELF bytes of `out`, edited by `f`; `None` from `f`: not applicable.
pub(super) fn patch(mut out: Out, f: impl FnOnce(&mut Ed<'_>) -> Option<()>) -> Option<Out> {
    f(&mut Ed::new(&mut out.elf))?;
    Some(out)
}

/// The case's own bytes, edited by `f`.
pub(super) fn patch_case(c: &Ctx<'_>, f: impl FnOnce(&mut Ed<'_>) -> Option<()>) -> Option<Out> {
    patch(
        Out {
            object: c.co.clone(),
            elf: c.case.elf.clone(),
        },
        f,
    )
}

/// The descriptor's `kernel_code_entry_byte_offset`, from the oracle's
/// layout.
pub(super) const KD_ENTRY: usize =
    hsaco_oracle::layout::offsets::KERNEL_CODE_ENTRY_BYTE_OFFSET as usize;

/// Rewrites the 32-bit descriptor field at `field` of kernel `k`.
pub(super) fn kd_u32(
    e: &mut Ed<'_>,
    k: &str,
    field: usize,
    f: impl FnOnce(u32) -> u32,
) -> Option<()> {
    let at = e.kd(k)? + field;
    let v = e.u32(at);
    e.set_u32(at, f(v));
    Some(())
}

/// Rewrites the 16-bit descriptor field at `field` of kernel `k`.
pub(super) fn kd_u16(
    e: &mut Ed<'_>,
    k: &str,
    field: usize,
    f: impl FnOnce(u16) -> u16,
) -> Option<()> {
    let at = e.kd(k)? + field;
    let v = e.u16(at);
    e.set_u16(at, f(v));
    Some(())
}

/// A byte-level descriptor mutation of a drawn kernel: `f` gets the
/// kernel and returns the edit.
pub(super) fn kd_edit(
    c: &Ctx<'_>,
    u: &mut Unstructured<'_>,
    pred: impl Fn(&Kernel) -> bool,
    f: impl FnOnce(&mut Unstructured<'_>, &Kernel) -> arbitrary::Result<Option<KdEdit>>,
) -> arbitrary::Result<Option<Out>> {
    let Some(i) = kernel_where(c.co, u, pred)? else {
        return Ok(None);
    };
    let k = &c.co.kernels[i];
    let Some(edit) = f(u, k)? else {
        return Ok(None);
    };
    Ok(patch_case(c, |e| match edit {
        KdEdit::Or32(field, bits) => kd_u32(e, &k.name, field, |v| v | bits),
        KdEdit::Set32(field, mask, val) => kd_u32(e, &k.name, field, |v| v & !mask | val),
        KdEdit::Or16(field, bits) => kd_u16(e, &k.name, field, |v| v | bits),
        KdEdit::Set16(field, val) => kd_u16(e, &k.name, field, |_| val),
        KdEdit::Byte(at, val) => {
            let base = e.kd(&k.name)?;
            e.set_u8(base + at, val);
            Some(())
        }
    }))
}

/// One byte-level change to a descriptor.
pub(super) enum KdEdit {
    /// OR bits into a 32-bit field.
    Or32(usize, u32),
    /// Replace the `mask` bits of a 32-bit field with `val`.
    Set32(usize, u32, u32),
    /// OR bits into a 16-bit field.
    Or16(usize, u16),
    /// Replace a 16-bit field.
    Set16(usize, u16),
    /// Replace one byte.
    Byte(usize, u8),
}

/// A natural alignment check applies to pointer and hidden arguments of
/// size 2, 4 or 8.
pub(super) fn natural_align(a: &ArgSpec) -> u32 {
    if a.kind != ValueKind::ByValue && matches!(a.size, 2 | 4 | 8) {
        a.size
    } else {
        1
    }
}

pub(super) fn is_pointer_kind(k: ValueKind) -> bool {
    matches!(
        k,
        ValueKind::GlobalBuffer
            | ValueKind::Image
            | ValueKind::Sampler
            | ValueKind::Pipe
            | ValueKind::Queue
    )
}

/// Re-derives the metadata `.sgpr_count` and keeps `.amdhsa_next_free_sgpr`
/// above the initial SGPRs after the enables of kernel `i` changed.
pub(super) fn refit_sgprs(co: &mut CodeObject, i: usize) {
    let tc = co.target;
    let t = tc.target();
    let k = &mut co.kernels[i];
    let need = k.descriptor.enables.total_sgprs(t);
    if k.descriptor.next_free_sgpr < need {
        k.descriptor.next_free_sgpr = need;
    }
    k.metadata.sgpr_count = k.descriptor.sgpr_count(&tc).into();
}

/// The user SGPR limit with the GFX11 padding: enabled + preload must stay
/// within the target's limit (16; 32 on GFX12.5) to keep
/// `sgpr.user_sgpr_count.limit` quiet.
pub(super) fn user_room(k: &Kernel, t: &Target) -> u16 {
    crate::sgpr::max_user_sgprs(t).saturating_sub(k.descriptor.enables.implied_user_sgprs(t))
}

pub(super) type R = arbitrary::Result<Option<Out>>;
