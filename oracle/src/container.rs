//! Finding code objects inside files: a plain code object, a clang offload
//! bundle (`__CLANG_OFFLOAD_BUNDLE__`), or a host ELF file whose
//! `.hip_fatbin` section holds one or more bundles.
//!
//! Bundle layout (clang `clang-offload-bundler` documentation): the 24-byte
//! magic, a u64 entry count, then per entry a u64 offset (from the bundle
//! start), u64 size, u64 ID length and the ID (e.g.
//! `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+`). All little-endian.

use crate::elf;

/// Magic at the start of an uncompressed offload bundle.
pub const BUNDLE_MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
/// Magic at the start of a compressed offload bundle.
pub const COMPRESSED_BUNDLE_MAGIC: &[u8; 4] = b"CCOB";

/// One code object found in a file.
#[derive(Debug, Clone)]
pub struct Member<'a> {
    /// How to find it in the container: `None` for a plain code object,
    /// else the bundle entry ID, prefixed by `.hip_fatbin@OFFSET:` when the
    /// bundle sits inside a host binary.
    pub name: Option<String>,
    /// File offset of the code object's first byte.
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
    /// A compressed offload bundle (not unpacked by this version).
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
        if d.len() >= 20 && elf::le_u16(d, 18) == Some(elf::EM_AMDGPU) {
            Kind::CodeObject
        } else {
            Kind::HostElf
        }
    } else {
        Kind::Other
    }
}

/// The code objects of a file, and the problems met while finding them.
#[derive(Debug, Default)]
pub struct Scan<'a> {
    /// Code objects, in file order.
    pub members: Vec<Member<'a>>,
    /// Structural problems of the container (a bad bundle header, ...).
    /// The members found before and after a problem are still listed.
    pub errors: Vec<String>,
    /// True when the file holds no code object by its nature (a host ELF
    /// without `.hip_fatbin`, or an unrelated file).
    pub not_a_code_object: bool,
}

/// Finds every code object in `d`.
pub fn scan(d: &[u8]) -> Scan<'_> {
    let mut out = Scan::default();
    match kind(d) {
        Kind::CodeObject => out.members.push(Member { name: None, offset: 0, data: d }),
        Kind::Bundle => {
            if let Err(e) = read_bundle(d, 0, None, &mut out.members) {
                out.errors.push(e);
            }
        }
        Kind::CompressedBundle => out.errors.push(
            "compressed offload bundle (CCOB): unpack it with `clang-offload-bundler --unbundle` first; this version reads uncompressed bundles".to_owned(),
        ),
        Kind::HostElf => scan_host(d, &mut out),
        Kind::Other => out.not_a_code_object = true,
    }
    out
}

fn scan_host<'a>(d: &'a [u8], out: &mut Scan<'a>) {
    let fatbin = elf::read_header(d)
        .filter(|h| h.class == 2 && h.data == 1)
        .map(|h| elf::read_sections(d, &h))
        .and_then(|secs| secs.into_iter().find(|s| s.name == ".hip_fatbin"));
    let Some(sec) = fatbin else {
        out.not_a_code_object = true;
        return;
    };
    let Some(bytes) = sec.data(d) else {
        out.errors.push(format!(
            ".hip_fatbin section bytes {:#x}+{:#x} lie outside the {}-byte file",
            sec.offset,
            sec.size,
            d.len()
        ));
        return;
    };
    let mut pos = 0usize;
    let mut found_any = false;
    while let Some(rel) = find(&bytes[pos..], BUNDLE_MAGIC) {
        let start = pos + rel;
        let base = sec.offset + start as u64;
        let prefix = format!(".hip_fatbin@{base:#x}:");
        match read_bundle(&bytes[start..], base, Some(&prefix), &mut out.members) {
            Ok(len) => pos = start + len.max(BUNDLE_MAGIC.len()),
            Err(e) => {
                out.errors
                    .push(format!("bundle at file offset {base:#x}: {e}"));
                pos = start + BUNDLE_MAGIC.len();
            }
        }
        found_any = true;
    }
    if !found_any {
        let compressed = find(bytes, COMPRESSED_BUNDLE_MAGIC).is_some();
        out.errors.push(if compressed {
            ".hip_fatbin holds compressed offload bundles (CCOB), which this version does not unpack".to_owned()
        } else {
            ".hip_fatbin holds no offload bundle".to_owned()
        });
    }
}

/// Finds `needle` in `hay`. The first byte is located with a fast scan,
/// then the rest compared; bundles are far apart, so this stays linear.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        let p = hay[i..hay.len() - rest.len()]
            .iter()
            .position(|&b| b == first)?;
        let at = i + p;
        if &hay[at + 1..at + needle.len()] == rest {
            return Some(at);
        }
        i = at + 1;
    }
    None
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

    #[test]
    fn bundle_entries_are_found_and_host_entries_skipped() {
        let b = bundle(&[
            ("host-x86_64-unknown-linux-gnu-", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx900", b"\x7fELFabc"),
        ]);
        let s = scan(&b);
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.members.len(), 1);
        assert_eq!(
            s.members[0].name.as_deref(),
            Some("hipv4-amdgcn-amd-amdhsa--gfx900")
        );
        assert_eq!(s.members[0].data, b"\x7fELFabc");
    }

    #[test]
    fn huge_counts_and_truncation_are_errors_not_panics() {
        let mut b = BUNDLE_MAGIC.to_vec();
        b.extend(u64::MAX.to_le_bytes());
        assert!(scan(&b).errors[0].contains("entries"));
        let good = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx900", b"0123456789")]);
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
    fn find_locates_needles() {
        assert_eq!(find(b"xxabcxx", b"abc"), Some(2));
        assert_eq!(find(b"ab", b"abc"), None);
        assert_eq!(find(b"aababc", b"abc"), Some(3));
    }
}
