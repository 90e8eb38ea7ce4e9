//! Finding code objects inside files: a plain code object, a clang offload
//! bundle (`__CLANG_OFFLOAD_BUNDLE__`), a compressed offload bundle
//! (`CCOB`, see [`crate::ccob`]), one or more of those concatenated, or a
//! host ELF file whose `.hip_fatbin` section holds bundles (compressed or
//! not, possibly padded to an alignment) or whose other data sections
//! embed raw AMDGPU ELF images (as the HSA runtime embeds its blit
//! kernels).
//!
//! Bundle layout (clang `clang-offload-bundler` documentation): the 24-byte
//! magic, a u64 entry count, then per entry a u64 offset (from the bundle
//! start), u64 size, u64 ID length and the ID (e.g.
//! `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+`). All little-endian.
//!
//! Compressed bundles are listed by [`scan`] but unpacked only on demand,
//! one at a time ([`Compressed::unpack`], or [`Scan::for_each`], which
//! drops each decompressed bundle before unpacking the next): a host
//! library can hold gigabytes of them.

use crate::ccob;
use crate::elf;
use crate::elf::raw::{at, from_bytes, ProgramHeader, SectionHeader, LE, PF_X};

/// Magic at the start of an uncompressed offload bundle.
pub const BUNDLE_MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
pub use crate::ccob::DEFAULT_UNPACK_LIMIT;
pub use crate::ccob::MAGIC as COMPRESSED_BUNDLE_MAGIC;

/// The section of a host binary that holds offload bundles.
pub const FATBIN_SECTION: &str = ".hip_fatbin";

/// One code object found in a file.
#[derive(Debug, Clone)]
pub struct Member<'a> {
    /// Where it came from: `None` for a plain code object; else the bundle
    /// entry ID, prefixed by its container: `ccob@OFFSET:` for a compressed
    /// bundle in a file of its own, `.hip_fatbin@OFFSET:` for a bundle in
    /// a host binary (`.hip_fatbin@OFFSET:ccob:` if compressed; `PT_LOAD@`
    /// instead of `.hip_fatbin@` in a host binary whose section headers
    /// are lost, where bundles are found in its loaded segments); or
    /// `SECTION@OFFSET` for a raw image embedded in a host binary's data
    /// section. OFFSET is the file offset of the bundle or image.
    pub name: Option<String>,
    /// Offset of the code object's first byte: in the file, or for a member
    /// of a compressed bundle, in the decompressed bundle.
    pub offset: u64,
    /// The code object's bytes.
    pub data: &'a [u8],
}

/// What kind of file this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An AMDGPU ELF code object.
    CodeObject,
    /// An offload bundle.
    Bundle,
    /// A compressed offload bundle (possibly several concatenated).
    CompressedBundle,
    /// Another ELF file (a host binary or library).
    HostElf,
    /// None of the above.
    Other,
}

/// Classifies a file by its first bytes.
pub fn kind(d: &[u8]) -> Kind {
    if d.starts_with(BUNDLE_MAGIC) {
        Kind::Bundle
    } else if d.starts_with(COMPRESSED_BUNDLE_MAGIC) {
        Kind::CompressedBundle
    } else if elf::has_magic(d) {
        if elf::le_u16(d, at::MACHINE) == Some(elf::EM_AMDGPU) {
            Kind::CodeObject
        } else {
            Kind::HostElf
        }
    } else {
        Kind::Other
    }
}

/// A compressed offload bundle found by [`scan`], not yet decompressed.
#[derive(Debug, Clone)]
pub struct Compressed<'a> {
    /// Where it is, the prefix of its members' names: `ccob@OFFSET` in a
    /// file of its own, `.hip_fatbin@OFFSET:ccob` in a host binary.
    pub name: String,
    /// File offset of its magic.
    pub offset: u64,
    /// Its header.
    pub header: ccob::Header,
    /// The compressed stream.
    pub stream: &'a [u8],
    /// How many of the scan's direct members come before it in the file.
    before: usize,
}

impl Compressed<'_> {
    /// Decompresses the bundle, refusing a declared uncompressed size above
    /// `limit` bytes before allocating ([`DEFAULT_UNPACK_LIMIT`] is the
    /// default ceiling). Errors name the bundle's file offset.
    pub fn unpack(&self, limit: u64) -> Result<Unpacked, String> {
        let bytes = ccob::decompress(&self.header, self.stream, limit).map_err(|e| {
            format!(
                "compressed offload bundle at file offset {:#x}: {e}",
                self.offset
            )
        })?;
        Ok(Unpacked {
            name: self.name.clone(),
            offset: self.offset,
            bytes,
        })
    }
}

/// A decompressed bundle: owns the bytes its members borrow.
#[derive(Debug)]
pub struct Unpacked {
    name: String,
    offset: u64,
    bytes: Vec<u8>,
}

/// The code objects of a decompressed bundle.
#[derive(Debug, Default)]
pub struct Entries<'a> {
    /// Code objects, in bundle order.
    pub members: Vec<Member<'a>>,
    /// Why reading the bundle stopped early, if it did (naming the
    /// compressed bundle's file offset).
    pub error: Option<String>,
}

impl Unpacked {
    /// The decompressed bundle.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Reads the bundle's code objects.
    pub fn entries(&self) -> Entries<'_> {
        let mut out = Entries::default();
        let problem = if !self.bytes.starts_with(BUNDLE_MAGIC) {
            Some(
                "decompressed data is not an offload bundle (no __CLANG_OFFLOAD_BUNDLE__ magic)"
                    .to_owned(),
            )
        } else {
            let prefix = format!("{}:", self.name);
            read_bundle(&self.bytes, 0, Some(&prefix), &mut out.members)
                .err()
                .map(|e| format!("decompressed bundle: {e}"))
        };
        out.error = problem.map(|e| {
            format!(
                "compressed offload bundle at file offset {:#x}: {e}",
                self.offset
            )
        });
        out
    }
}

/// The code objects of a file, and the problems met while finding them.
#[derive(Debug, Default)]
pub struct Scan<'a> {
    /// Code objects readable in place, in file order.
    pub members: Vec<Member<'a>>,
    /// Compressed bundles, in file order; their code objects are read by
    /// unpacking them ([`Scan::for_each`] does, in file order with
    /// `members`).
    pub compressed: Vec<Compressed<'a>>,
    /// Structural problems of the container (a bad bundle header, ...).
    /// The members found before and after a problem are still listed.
    pub errors: Vec<String>,
    /// True when the file holds no code object by its nature (a host ELF
    /// without `.hip_fatbin` or embedded code object, or an unrelated
    /// file).
    pub not_a_code_object: bool,
}

/// What [`Scan::for_each`] hands over, in file order.
#[derive(Debug)]
pub enum Visit<'s, 'm> {
    /// Some code objects.
    Members(&'s [Member<'m>]),
    /// A compressed bundle that could not be unpacked or read.
    Failed {
        /// The bundle's name ([`Compressed::name`]).
        at: String,
        /// The problem, naming the bundle's file offset.
        error: String,
    },
}

impl Scan<'_> {
    /// Hands every code object to `f`, in file order: runs of direct
    /// members, and each compressed bundle's members once it is unpacked
    /// with [`Compressed::unpack`]`(limit)`. Only one decompressed bundle
    /// is alive at a time: each is dropped before the next is unpacked.
    pub fn for_each(&self, limit: u64, f: &mut dyn FnMut(Visit<'_, '_>)) {
        let mut done = 0;
        for c in &self.compressed {
            let before = c.before.min(self.members.len());
            if before > done {
                f(Visit::Members(&self.members[done..before]));
                done = before;
            }
            match c.unpack(limit) {
                Ok(u) => {
                    let e = u.entries();
                    if !e.members.is_empty() {
                        f(Visit::Members(&e.members));
                    }
                    if let Some(error) = e.error {
                        f(Visit::Failed {
                            at: c.name.clone(),
                            error,
                        });
                    }
                }
                Err(error) => f(Visit::Failed {
                    at: c.name.clone(),
                    error,
                }),
            }
        }
        if done < self.members.len() {
            f(Visit::Members(&self.members[done..]));
        }
    }
}

/// Finds every code object in `d`. Compressed bundles are located and
/// their headers checked against the bytes present, but not decompressed.
pub fn scan(d: &[u8]) -> Scan<'_> {
    let mut out = Scan::default();
    match kind(d) {
        Kind::CodeObject => out.members.push(Member {
            name: None,
            offset: 0,
            data: d,
        }),
        Kind::Bundle => {
            if let Err(e) = read_bundle(d, 0, None, &mut out.members) {
                out.errors.push(e);
            }
        }
        // clang-offload-bundler reads a file of concatenated compressed
        // bundles one after another; so do we.
        Kind::CompressedBundle => {
            scan_bundles(d, 0, None, &mut out);
        }
        Kind::HostElf => scan_host(d, &mut out),
        Kind::Other => out.not_a_code_object = true,
    }
    out
}

fn scan_host<'a>(d: &'a [u8], out: &mut Scan<'a>) {
    let Some(h) =
        elf::read_header(d).filter(|h| h.class == elf::ELFCLASS64 && h.data == elf::ELFDATA2LSB)
    else {
        out.not_a_code_object = true;
        return;
    };
    if let Some(e) = section_headers_lost(d, &h) {
        // A file cut short (a partial download or copy) loses its section
        // headers first: they come last. `.hip_fatbin` cannot be found by
        // name then, but its bytes are loaded, so bundles are looked for in
        // the part of the loaded segments that is present.
        out.errors.push(e);
        scan_segments(d, &h, out);
        return;
    }
    let mut fatbin = false;
    for sec in elf::read_sections(d, &h) {
        if sec.name == FATBIN_SECTION {
            fatbin = true;
            scan_fatbin(d, &sec, out);
        } else if sec.sh_type == elf::SHT_PROGBITS
            && sec.flags & elf::SHF_ALLOC != 0
            && sec.flags & elf::SHF_EXECINSTR == 0
        {
            // Loaded data (.rodata, .data, ...): where a runtime keeps code
            // objects it embeds as arrays. Code, debug and other
            // non-loaded sections are not searched.
            if let Some(bytes) = sec.data(d) {
                scan_embedded(&sec.name, sec.offset, bytes, out);
            }
        }
    }
    if !fatbin && out.members.is_empty() && out.errors.is_empty() {
        out.not_a_code_object = true;
    }
}

fn scan_fatbin<'a>(d: &'a [u8], sec: &elf::Section, out: &mut Scan<'a>) {
    let bytes = match sec.data(d) {
        Some(b) => b,
        None => {
            out.errors.push(format!(
                "{FATBIN_SECTION} section bytes {:#x}+{:#x} lie outside the {}-byte file",
                sec.offset,
                sec.size,
                d.len()
            ));
            // The bundles in the part that is there are still read (one cut
            // off is reported as running past the end).
            match usize::try_from(sec.offset).ok().and_then(|o| d.get(o..)) {
                Some(present) if !present.is_empty() => present,
                _ => return,
            }
        }
    };
    if !scan_bundles(bytes, sec.offset, Some(FATBIN_SECTION), out) {
        out.errors.push(format!(
            "{FATBIN_SECTION} holds no offload bundle (neither __CLANG_OFFLOAD_BUNDLE__ nor CCOB)"
        ));
    }
}

/// Reads the bundles, compressed or not, that follow one another in
/// `region` (file offset `base`), skipping padding between them; names
/// their members as inside `host`, the part of a host binary the region is
/// (`.hip_fatbin`, or `PT_LOAD` for a loaded segment), if given. Returns
/// false if there is none.
fn scan_bundles<'a>(region: &'a [u8], base: u64, host: Option<&str>, out: &mut Scan<'a>) -> bool {
    let mut pos = 0usize;
    let mut found = false;
    while let Some(start) = next_bundle(region, pos) {
        found = true;
        let at = base + start as u64;
        let here = &region[start..];
        if here.starts_with(BUNDLE_MAGIC) {
            let prefix = host.map(|h| format!("{h}@{at:#x}:"));
            match read_bundle(here, at, prefix.as_deref(), &mut out.members) {
                Ok(len) => pos = start + len.max(BUNDLE_MAGIC.len()),
                Err(e) => {
                    out.errors
                        .push(format!("bundle at file offset {at:#x}: {e}"));
                    pos = start + BUNDLE_MAGIC.len();
                }
            }
            continue;
        }
        match ccob::locate(here) {
            Ok(loc) => {
                out.compressed.push(Compressed {
                    name: match host {
                        Some(h) => format!("{h}@{at:#x}:ccob"),
                        None => format!("ccob@{at:#x}"),
                    },
                    offset: at,
                    header: loc.header,
                    stream: loc.stream,
                    before: out.members.len(),
                });
                pos = start + loc.size;
            }
            Err(e) => {
                // Without a readable header its end is unknown, and its
                // stream may hold anything (even a raw-stored bundle
                // magic): searching on would report noise.
                let rest = region.len() - start;
                let place = host.unwrap_or("file");
                out.errors.push(format!(
                    "compressed offload bundle at file offset {at:#x}: {e}; the remaining {rest} bytes of the {place} are not searched"
                ));
                break;
            }
        }
    }
    found
}

/// Why the section headers of host ELF file `d` cannot be read, if they lie
/// (wholly or partly) past its end.
fn section_headers_lost(d: &[u8], h: &elf::Header) -> Option<String> {
    // e_shnum 0 with a table means more than 0xff00 sections (the count is
    // then in the first header): at least one header is there to read.
    let n = u64::from(h.shnum.max(1));
    let end = h.shoff.saturating_add(n * elf::SHDR_SIZE as u64);
    (h.shoff != 0 && end > d.len() as u64).then(|| {
        format!(
            "ELF section headers at offset {:#x} past the end of the {}-byte file",
            h.shoff,
            d.len()
        )
    })
}

/// Looks for bundles in the loaded, non-executable segments of host ELF
/// file `d` (where `.hip_fatbin` is loaded), as far as their bytes are in
/// the file; each byte of the file is searched once.
fn scan_segments<'a>(d: &'a [u8], h: &elf::Header, out: &mut Scan<'a>) {
    if usize::from(h.phentsize) != elf::PHDR_SIZE {
        return;
    }
    let mut loads: Vec<(u64, u64)> = (0..u64::from(h.phnum))
        .map_while(|i| {
            let off = h.phoff.checked_add(i * elf::PHDR_SIZE as u64)?;
            let b = elf::range(d, off, elf::PHDR_SIZE as u64)?;
            from_bytes::<ProgramHeader>(b).ok().map(|(p, _)| *p)
        })
        .filter(|p| p.p_type.get(LE) == elf::PT_LOAD && p.p_flags.get(LE) & PF_X == 0)
        .map(|p| (p.p_offset.get(LE), p.p_filesz.get(LE)))
        .collect();
    loads.sort_unstable();
    let mut searched = 0u64;
    for (off, size) in loads {
        let start = off.max(searched);
        let end = off.saturating_add(size).min(d.len() as u64);
        if start >= end {
            continue;
        }
        searched = end;
        // In range: both ends are at most d.len().
        let region = &d[start as usize..end as usize];
        scan_bundles(region, start, Some("PT_LOAD"), out);
    }
}

/// Where the next bundle magic (either kind) starts at or after `pos`.
/// Between bundles lies only padding, so this scans little.
fn next_bundle(region: &[u8], pos: usize) -> Option<usize> {
    let rest = region.get(pos..)?;
    memchr::memchr2_iter(BUNDLE_MAGIC[0], COMPRESSED_BUNDLE_MAGIC[0], rest)
        .find(|&i| {
            rest[i..].starts_with(BUNDLE_MAGIC) || rest[i..].starts_with(COMPRESSED_BUNDLE_MAGIC)
        })
        .map(|i| pos + i)
}

/// What an ELF magic found inside a host data section turned out to be.
enum Embedded {
    /// Not an AMDGPU ELF64 image (or only a header with no section table).
    No,
    /// An image of this many bytes.
    Image(usize),
    /// An AMDGPU ELF64 header whose image does not fit in the section;
    /// scanning resumes this many bytes further.
    Broken(String, usize),
}

/// Lists the raw AMDGPU ELF images embedded in a host data section
/// (`name`, at file offset `base`). Linear in the section size: each
/// image's tables are read once and the scan resumes after them.
fn scan_embedded<'a>(name: &str, base: u64, bytes: &'a [u8], out: &mut Scan<'a>) {
    let finder = memchr::memmem::Finder::new(b"\x7fELF");
    let mut pos = 0;
    while let Some(rel) = finder.find(&bytes[pos..]) {
        let at = pos + rel;
        let file_off = base + at as u64;
        match embedded_image(&bytes[at..]) {
            Embedded::No => pos = at + 1,
            Embedded::Image(len) => {
                out.members.push(Member {
                    name: Some(format!("{name}@{file_off:#x}")),
                    offset: file_off,
                    data: &bytes[at..at + len],
                });
                pos = at + len;
            }
            Embedded::Broken(e, skip) => {
                out.errors.push(format!(
                    "AMDGPU ELF image in {name} at file offset {file_off:#x}: {e}"
                ));
                pos = at + skip;
            }
        }
    }
}

/// Decides whether `d` starts with an AMDGPU ELF64 image and how long it
/// is: the furthest of its header, program and section header tables,
/// section bytes and segment file bytes, all of which must lie in `d`.
fn embedded_image(d: &[u8]) -> Embedded {
    let Some(h) = elf::read_header(d) else {
        return Embedded::No;
    };
    let plausible = h.class == elf::ELFCLASS64
        && h.data == elf::ELFDATA2LSB
        && h.ident_version == elf::EV_CURRENT
        && h.version == u32::from(elf::EV_CURRENT)
        && h.machine == elf::EM_AMDGPU
        && usize::from(h.ehsize) == elf::EHDR_SIZE
        // Every code object has sections; a lone header (a template in
        // a loader, say) is not an image.
        && h.shnum != 0
        && usize::from(h.shentsize) == elf::SHDR_SIZE
        && (h.phnum == 0 || usize::from(h.phentsize) == elf::PHDR_SIZE);
    if !plausible {
        return Embedded::No;
    }
    let len = d.len() as u64;
    let table_end = |off: u64, n: u16, size: usize| off.saturating_add(u64::from(n) * size as u64);
    let sh_end = table_end(h.shoff, h.shnum, elf::SHDR_SIZE);
    let ph_end = if h.phnum == 0 {
        0
    } else {
        table_end(h.phoff, h.phnum, elf::PHDR_SIZE)
    };
    let magic_len = 4;
    let bounds = [
        ("section", sh_end, h.shnum, h.shoff),
        ("program", ph_end, h.phnum, h.phoff),
    ];
    for (kind, end, n, off) in bounds {
        if end > len {
            return Embedded::Broken(
                format!(
                    "its {kind} header table ({n} entries at +{off:#x}) runs past the end of the section ({len} bytes from the image)"
                ),
                magic_len,
            );
        }
    }
    // Both tables lie in `d`, so the loops below read at most their bytes,
    // and the scan resumes after them whatever the verdict.
    let tables = (elf::EHDR_SIZE as u64).max(sh_end).max(ph_end) as usize;
    let mut end = tables as u64;
    let shoff = h.shoff as usize;
    for i in 0..usize::from(h.shnum) {
        let s = shoff + i * elf::SHDR_SIZE;
        let Some((sh, _)) = d.get(s..).and_then(|b| from_bytes::<SectionHeader>(b).ok()) else {
            break;
        };
        let (ty, off, size) = (sh.sh_type.get(LE), sh.sh_offset.get(LE), sh.sh_size.get(LE));
        if ty == elf::SHT_NOBITS || size == 0 {
            continue;
        }
        let e = off.saturating_add(size);
        if e > len {
            return Embedded::Broken(
                format!("section {i} (+{off:#x}, {size} bytes) runs past the end of the section"),
                tables,
            );
        }
        end = end.max(e);
    }
    let phoff = h.phoff as usize;
    for i in 0..usize::from(h.phnum) {
        let p = phoff + i * elf::PHDR_SIZE;
        let Some((ph, _)) = d.get(p..).and_then(|b| from_bytes::<ProgramHeader>(b).ok()) else {
            break;
        };
        let (off, size) = (ph.p_offset.get(LE), ph.p_filesz.get(LE));
        let e = off.saturating_add(size);
        if size != 0 && e > len {
            return Embedded::Broken(
                format!(
                    "segment {i} (+{off:#x}, {size} file bytes) runs past the end of the section"
                ),
                tables,
            );
        }
        end = end.max(if size == 0 { 0 } else { e });
    }
    Embedded::Image(end as usize)
}

/// Reads one bundle starting at `d[0]` (file offset `base`); pushes its
/// amdgcn entries and returns the bundle's extent in bytes.
fn read_bundle<'a>(
    d: &'a [u8],
    base: u64,
    prefix: Option<&str>,
    out: &mut Vec<Member<'a>>,
) -> Result<usize, String> {
    let count = elf::le_u64(d, 24).ok_or("bundle header is truncated (no entry count)")?;
    // Each entry needs at least 24 bytes of header: bound the count by the
    // bytes present before trusting it.
    if count > (d.len() as u64) / 24 {
        return Err(format!(
            "bundle claims {count} entries, more than its {} bytes can hold",
            d.len()
        ));
    }
    let mut pos = 32usize;
    let mut extent = 0usize;
    for i in 0..count {
        let (Some(off), Some(size), Some(id_len)) = (
            elf::le_u64(d, pos),
            elf::le_u64(d, pos + 8),
            elf::le_u64(d, pos + 16),
        ) else {
            return Err(format!("entry {i} header is truncated"));
        };
        let id_bytes = elf::range(d, pos as u64 + 24, id_len)
            .ok_or_else(|| format!("entry {i} ID ({id_len} bytes) runs past the end"))?;
        let id = String::from_utf8_lossy(id_bytes).into_owned();
        pos += 24 + id_bytes.len();
        let body = elf::range(d, off, size).ok_or_else(|| {
            format!("entry {i} '{id}' at {off:#x}+{size:#x} runs past the end of the data")
        })?;
        extent = extent.max((off + size) as usize);
        if size == 0 || !id.contains("amdgcn") {
            continue;
        }
        out.push(Member {
            name: Some(format!("{}{}", prefix.unwrap_or(""), id)),
            offset: base + off,
            data: body,
        });
    }
    Ok(extent.max(pos))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ccob::tests::build as ccob;
    use crate::ccob::Method;

    const GFX900: &str = "hipv4-amdgcn-amd-amdhsa--gfx900";
    const GFX942: &str = "hipv4-amdgcn-amd-amdhsa--gfx942";
    const HOST: &str = "host-x86_64-unknown-linux-gnu-";

    fn bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut hdr = BUNDLE_MAGIC.to_vec();
        hdr.extend((entries.len() as u64).to_le_bytes());
        let hdr_len: usize = hdr.len() + entries.iter().map(|(id, _)| 24 + id.len()).sum::<usize>();
        let mut body: Vec<u8> = Vec::new();
        let mut off = hdr_len;
        for (id, data) in entries {
            hdr.extend((off as u64).to_le_bytes());
            hdr.extend((data.len() as u64).to_le_bytes());
            hdr.extend((id.len() as u64).to_le_bytes());
            hdr.extend(id.as_bytes());
            body.extend(*data);
            off += data.len();
        }
        hdr.extend(body);
        hdr
    }

    /// Every member `for_each` hands over, as (name, bytes), and every
    /// failure, in order.
    fn visit(s: &Scan, limit: u64) -> (Vec<(String, Vec<u8>)>, Vec<String>) {
        let (mut members, mut failures) = (Vec::new(), Vec::new());
        s.for_each(limit, &mut |v| match v {
            Visit::Members(ms) => members.extend(
                ms.iter()
                    .map(|m| (m.name.clone().unwrap_or_default(), m.data.to_vec())),
            ),
            Visit::Failed { at, error } => failures.push(format!("{at}: {error}")),
        });
        (members, failures)
    }

    /// A minimal AMDGPU ELF64 image: header, one 16-byte section of
    /// `fill`, and its section header table (null entry + the section).
    fn amdgpu_image(fill: u8) -> Vec<u8> {
        let mut d = vec![0u8; 64];
        d[..4].copy_from_slice(b"\x7fELF");
        d[4] = elf::ELFCLASS64;
        d[5] = elf::ELFDATA2LSB;
        d[6] = elf::EV_CURRENT;
        d[7] = elf::ELFOSABI_AMDGPU_HSA;
        d[16..18].copy_from_slice(&elf::ET_DYN.to_le_bytes());
        d[18..20].copy_from_slice(&elf::EM_AMDGPU.to_le_bytes());
        d[20..24].copy_from_slice(&1u32.to_le_bytes());
        d[40..48].copy_from_slice(&80u64.to_le_bytes()); // e_shoff
        d[52..54].copy_from_slice(&64u16.to_le_bytes());
        d[58..60].copy_from_slice(&64u16.to_le_bytes());
        d[60..62].copy_from_slice(&2u16.to_le_bytes());
        d.extend([fill; 16]);
        d.extend([0u8; 64]);
        let mut sh = [0u8; 64];
        sh[4..8].copy_from_slice(&elf::SHT_PROGBITS.to_le_bytes());
        sh[24..32].copy_from_slice(&64u64.to_le_bytes());
        sh[32..40].copy_from_slice(&16u64.to_le_bytes());
        d.extend(sh);
        d
    }

    /// A little-endian ELF64 x86-64 file with the given (name, flags,
    /// bytes) sections, each aligned to 16.
    fn host_elf(sections: &[(&str, u64, &[u8])]) -> Vec<u8> {
        let mut d = vec![0u8; 64];
        d[..4].copy_from_slice(b"\x7fELF");
        d[4] = elf::ELFCLASS64;
        d[5] = elf::ELFDATA2LSB;
        d[6] = elf::EV_CURRENT;
        d[16..18].copy_from_slice(&elf::ET_DYN.to_le_bytes());
        d[18..20].copy_from_slice(&62u16.to_le_bytes());
        let mut names = vec![0u8];
        let mut headers = vec![[0u8; 64]];
        for (name, flags, bytes) in sections.iter().chain([&(".shstrtab", 0, &[][..])]) {
            d.resize(d.len().next_multiple_of(16), 0);
            let mut sh = [0u8; 64];
            sh[..4].copy_from_slice(&(names.len() as u32).to_le_bytes());
            names.extend(name.as_bytes());
            names.push(0);
            let (ty, body) = if *name == ".shstrtab" {
                (elf::SHT_STRTAB, names.clone())
            } else {
                (elf::SHT_PROGBITS, bytes.to_vec())
            };
            sh[4..8].copy_from_slice(&ty.to_le_bytes());
            sh[8..16].copy_from_slice(&flags.to_le_bytes());
            sh[24..32].copy_from_slice(&(d.len() as u64).to_le_bytes());
            sh[32..40].copy_from_slice(&(body.len() as u64).to_le_bytes());
            d.extend(body);
            headers.push(sh);
        }
        d.resize(d.len().next_multiple_of(8), 0);
        let shoff = d.len() as u64;
        d[40..48].copy_from_slice(&shoff.to_le_bytes());
        d[52..54].copy_from_slice(&64u16.to_le_bytes());
        d[58..60].copy_from_slice(&64u16.to_le_bytes());
        d[60..62].copy_from_slice(&(headers.len() as u16).to_le_bytes());
        d[62..64].copy_from_slice(&((headers.len() - 1) as u16).to_le_bytes());
        for h in headers {
            d.extend(h);
        }
        d
    }

    #[test]
    fn bundle_entries_are_found_and_host_entries_skipped() {
        let b = bundle(&[(HOST, b""), (GFX900, b"\x7fELFabc")]);
        let s = scan(&b);
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.members.len(), 1);
        assert_eq!(s.members[0].name.as_deref(), Some(GFX900));
        assert_eq!(s.members[0].data, b"\x7fELFabc");
    }

    #[test]
    fn huge_counts_and_truncation_are_errors_not_panics() {
        let mut b = BUNDLE_MAGIC.to_vec();
        b.extend(u64::MAX.to_le_bytes());
        assert!(scan(&b).errors[0].contains("entries"));
        let good = bundle(&[(GFX900, b"0123456789")]);
        for cut in 0..good.len() {
            let s = scan(&good[..cut]);
            if cut < BUNDLE_MAGIC.len() {
                assert!(s.not_a_code_object, "cut {cut}");
            } else {
                assert_eq!(s.errors.len(), 1, "cut {cut}: {:?}", s.errors);
                assert!(s.members.is_empty(), "cut {cut}");
            }
        }
    }

    #[test]
    fn a_compressed_bundle_is_listed_then_unpacked_on_demand() {
        let inner = bundle(&[(HOST, b""), (GFX900, b"first"), (GFX942, b"second")]);
        let file = ccob(2, Method::Zstd, &inner);
        let s = scan(&file);
        assert_eq!(kind(&file), Kind::CompressedBundle);
        assert!(s.members.is_empty() && s.errors.is_empty() && !s.not_a_code_object);
        assert_eq!(s.compressed.len(), 1);
        let c = &s.compressed[0];
        assert_eq!((c.name.as_str(), c.offset), ("ccob@0x0", 0));
        assert_eq!(c.header.uncompressed_size, inner.len() as u64);
        let u = c.unpack(DEFAULT_UNPACK_LIMIT).unwrap();
        assert_eq!(u.bytes(), &inner[..]);
        let e = u.entries();
        assert!(e.error.is_none());
        let got: Vec<_> = e
            .members
            .iter()
            .map(|m| (m.name.clone().unwrap(), m.data))
            .collect();
        assert_eq!(
            got,
            [
                (format!("ccob@0x0:{GFX900}"), &b"first"[..]),
                (format!("ccob@0x0:{GFX942}"), &b"second"[..])
            ]
        );
        // The limit is checked before anything is decompressed.
        let e = c.unpack(inner.len() as u64 - 1).unwrap_err();
        assert_eq!(
            e,
            format!(
                "compressed offload bundle at file offset 0x0: declares {} bytes uncompressed, above the {}-byte limit for one bundle",
                inner.len(),
                inner.len() - 1
            )
        );
    }

    #[test]
    fn concatenated_and_padded_compressed_bundles_of_every_kind_are_read() {
        let mut file = Vec::new();
        let mut offsets = Vec::new();
        let mut want = Vec::new();
        for (i, l) in ccob::LAYOUTS.iter().enumerate() {
            for (m, _) in Method::ALL {
                let body = format!("object {i} {m:?}").into_bytes();
                offsets.push(file.len());
                want.push((format!("ccob@{:#x}:{GFX942}", file.len()), body.clone()));
                file.extend(ccob(l.version, m, &bundle(&[(HOST, b""), (GFX942, &body)])));
                // Padding as a linker aligns sections.
                file.resize(file.len().next_multiple_of(64), 0);
            }
        }
        let s = scan(&file);
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        let at: Vec<usize> = s.compressed.iter().map(|c| c.offset as usize).collect();
        assert_eq!(at, offsets);
        let (members, failures) = visit(&s, DEFAULT_UNPACK_LIMIT);
        assert!(failures.is_empty(), "{failures:?}");
        assert_eq!(members, want);
    }

    #[test]
    fn host_binary_fatbin_with_mixed_bundles_and_embedded_images() {
        // .hip_fatbin: an uncompressed bundle, then (4 KiB aligned) a
        // version-1 zstd CCOB (no total size: its end is the stream's),
        // then a version-3 zlib CCOB.
        let mut fatbin = bundle(&[(HOST, b""), (GFX900, b"plain")]);
        fatbin.resize(4096, 0);
        fatbin.extend(ccob(1, Method::Zstd, &bundle(&[(GFX942, b"packed v1")])));
        fatbin.resize(8192, 0);
        fatbin.extend(ccob(3, Method::Zlib, &bundle(&[(GFX900, b"packed v3")])));
        let image = amdgpu_image(0xab);
        let mut rodata = b"some constant data \x7fELF but no header".to_vec();
        let image_at = rodata.len();
        rodata.extend(&image);
        rodata.extend(b"tail");
        let alloc = elf::SHF_ALLOC;
        let d = host_elf(&[
            (".rodata", alloc, &rodata),
            (".text", alloc | elf::SHF_EXECINSTR, &image),
            (".comment", 0, &image),
            (FATBIN_SECTION, alloc, &fatbin),
        ]);
        let secs = elf::read_sections(&d, &elf::read_header(&d).unwrap());
        let off = |n: &str| secs.iter().find(|s| s.name == n).unwrap().offset;
        let (ro, fb) = (off(".rodata"), off(FATBIN_SECTION));
        let s = scan(&d);
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        let (members, failures) = visit(&s, DEFAULT_UNPACK_LIMIT);
        assert!(failures.is_empty(), "{failures:?}");
        let names: Vec<&str> = members.iter().map(|m| m.0.as_str()).collect();
        assert_eq!(
            names,
            [
                format!(".rodata@{:#x}", ro + image_at as u64),
                format!(".hip_fatbin@{fb:#x}:{GFX900}"),
                format!(".hip_fatbin@{:#x}:ccob:{GFX942}", fb + 4096),
                format!(".hip_fatbin@{:#x}:ccob:{GFX900}", fb + 8192),
            ]
        );
        assert_eq!(
            members[0].1, image,
            "the image's extent is its section table's end"
        );
        assert_eq!(members[3].1, b"packed v3");
    }

    #[test]
    fn embedded_images_that_do_not_fit_are_errors_and_lone_headers_ignored() {
        let mut image = amdgpu_image(1);
        image.truncate(image.len() - 1);
        let mut lone = amdgpu_image(2);
        lone[60..62].copy_from_slice(&0u16.to_le_bytes());
        lone.truncate(64);
        let mut data = lone.clone();
        data.extend(&image);
        let d = host_elf(&[(".data", elf::SHF_ALLOC | elf::SHF_WRITE, &data)]);
        let s = scan(&d);
        assert!(s.members.is_empty());
        assert_eq!(s.errors.len(), 1, "{:?}", s.errors);
        assert!(
            s.errors[0].starts_with("AMDGPU ELF image in .data at file offset 0x")
                && s.errors[0].ends_with("its section header table (2 entries at +0x50) runs past the end of the section (207 bytes from the image)"),
            "{}",
            s.errors[0]
        );
        // A host binary with neither is not a code object.
        let d = host_elf(&[(".data", elf::SHF_ALLOC, &lone)]);
        assert!(scan(&d).not_a_code_object);
    }

    #[test]
    fn bad_compressed_bundles_name_their_offset() {
        let inner = bundle(&[(GFX900, b"x")]);
        let mut fatbin = ccob(2, Method::Zstd, &inner);
        fatbin[4] = 9; // version 9
        fatbin.resize(256, 0);
        let not_a_bundle = ccob(3, Method::Zstd, b"plain bytes, not a bundle");
        fatbin.extend(&not_a_bundle);
        let d = host_elf(&[(FATBIN_SECTION, elf::SHF_ALLOC, &fatbin)]);
        let s = scan(&d);
        // Its end unknown, the rest of the section is not searched (its
        // stream holds the small bundle's magic stored raw).
        assert_eq!(s.errors.len(), 1, "{:?}", s.errors);
        let want = format!(
            ": unknown format version 9 (known: 1, 2, 3); the remaining {} bytes of the .hip_fatbin are not searched",
            fatbin.len()
        );
        assert!(
            s.errors[0].ends_with(&want)
                && s.errors[0].starts_with("compressed offload bundle at file offset 0x"),
            "{}",
            s.errors[0]
        );
        assert!(s.compressed.is_empty());
        // A good header over bytes that are not a bundle.
        let d = host_elf(&[(FATBIN_SECTION, elf::SHF_ALLOC, &not_a_bundle)]);
        let s = scan(&d);
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        let (members, failures) = visit(&s, DEFAULT_UNPACK_LIMIT);
        assert!(members.is_empty());
        let fb = s.compressed[0].offset;
        assert_eq!(
            failures,
            [format!(".hip_fatbin@{fb:#x}:ccob: compressed offload bundle at file offset {fb:#x}: decompressed data is not an offload bundle (no __CLANG_OFFLOAD_BUNDLE__ magic)")]
        );
    }

    #[test]
    fn for_each_keeps_file_order_between_plain_and_compressed_bundles() {
        let mut file = ccob(2, Method::Zstd, &bundle(&[(GFX900, b"a")]));
        file.extend(bundle(&[(GFX942, b"b")]));
        file.extend(ccob(3, Method::Zstd, &bundle(&[(GFX900, b"c")])));
        let s = scan(&file);
        assert_eq!((s.members.len(), s.compressed.len()), (1, 2));
        let (members, _) = visit(&s, DEFAULT_UNPACK_LIMIT);
        let bodies: Vec<&[u8]> = members.iter().map(|m| &m.1[..]).collect();
        assert_eq!(bodies, [b"a", b"b", b"c"]);
    }
}
