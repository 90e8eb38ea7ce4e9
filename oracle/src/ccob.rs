//! Compressed offload bundles (`CCOB`), as `clang-offload-bundler
//! --compress` and clang's `--offload-compress` write them: a header, then
//! one compressed stream whose content is an ordinary offload bundle.
//!
//! Header (LLVM `clang/lib/Driver/OffloadBundler.cpp`, class
//! `CompressedOffloadBundle`; little-endian, no padding): the magic `CCOB`,
//! a u16 version, a u16 method (`llvm::compression::Format`: 0 zlib, 1
//! zstd), then by version:
//!
//! | version | fields after the method                        | size |
//! |---------|------------------------------------------------|------|
//! | 1       | u32 uncompressed size, u64 hash                | 20   |
//! | 2       | u32 total size, u32 uncompressed size, u64 hash | 24   |
//! | 3       | u64 total size, u64 uncompressed size, u64 hash | 32   |
//!
//! The total size counts the whole compressed bundle, header included.
//! Version 1 has none, so its end is where the compressed stream ends.
//! clang-offload-bundler-19 writes version 2 only; -22 writes 3, or 2 when
//! `COMPRESSED_BUNDLE_FORMAT_VERSION=2` (it refuses 1); both pick zstd
//! whenever LLVM was built with it and zlib otherwise. -22 reads all three
//! versions, -19 versions 1 and 2, both with either method.
//!
//! The hash (low 64 bits of the MD5 of the uncompressed bundle) is not
//! verified: LLVM's reader only prints it, and hashing gigabytes of
//! libraries would cost more than decompressing them.
//!
//! Decompression is bounded: the declared uncompressed size must be at
//! most a caller-given limit before anything is allocated, the output
//! buffer is exactly that size and never grows, and the stream must fill
//! it exactly.

use crate::elf;
use flate2::{Decompress, FlushDecompress, Status};
// zstd goes through libzstd (the `zstd` crate), not a Rust port: hipBLASLt
// alone ships ~5 GB of zstd-compressed bundles, and the reference decoder
// is the fastest well-kept one. Its one-shot API decompresses into a
// buffer we size, so no window buffer or streaming state is allocated.
use zstd::zstd_safe;

/// Magic at the start of a compressed offload bundle.
pub const MAGIC: &[u8; 4] = b"CCOB";

/// Default ceiling on one bundle's declared uncompressed size, bounding
/// what a hostile header can make us allocate. Real ones reach past it:
/// rocWMMA 7.2.4's test program `load_store_matrix_coop_sync_test`
/// (package librocwmma-tests) holds bundles of up to 300 MB, but RCCL
/// 7.2.4's `librccl.so.1.0` one of 1,198,137,312 bytes, which is refused.
pub const DEFAULT_UNPACK_LIMIT: u64 = 1 << 30;

/// The compression method of a compressed bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// zlib (RFC 1950) stream.
    Zlib,
    /// zstd frames.
    Zstd,
}

impl Method {
    /// Every method, with its code in the header (`llvm::compression::Format`).
    pub const ALL: [(Method, u16); 2] = [(Method::Zlib, 0), (Method::Zstd, 1)];

    /// The method's code in the header.
    pub fn code(self) -> u16 {
        Self::ALL
            .iter()
            .find(|(m, _)| *m == self)
            .map_or(0, |p| p.1)
    }

    /// The method with header code `code`.
    pub fn from_code(code: u16) -> Option<Method> {
        Self::ALL.iter().find(|p| p.1 == code).map(|p| p.0)
    }

    /// Lower-case name, as LLVM prints it.
    pub fn name(self) -> &'static str {
        match self {
            Method::Zlib => "zlib",
            Method::Zstd => "zstd",
        }
    }
}

/// Position and width (4 or 8 bytes) of a little-endian header field.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// Byte offset from the magic.
    pub at: usize,
    /// Width in bytes.
    pub width: usize,
}

impl Field {
    fn read(self, d: &[u8]) -> Option<u64> {
        match self.width {
            4 => elf::le_u32(d, self.at).map(u64::from),
            _ => elf::le_u64(d, self.at),
        }
    }

    /// Writes `v` into `d` (which must hold the field); for building
    /// headers in tests and generators.
    pub fn write(self, d: &mut [u8], v: u64) {
        d[self.at..self.at + self.width].copy_from_slice(&v.to_le_bytes()[..self.width]);
    }
}

/// One header version's layout.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// The version number.
    pub version: u16,
    /// Header size in bytes; the compressed stream follows.
    pub size: usize,
    /// The total size of the compressed bundle, if this version has one.
    pub total_size: Option<Field>,
    /// The size of the bundle once decompressed.
    pub uncompressed_size: Field,
    /// The truncated MD5 of the uncompressed bundle.
    pub hash: Field,
}

/// Offset of the u16 version.
pub const VERSION_AT: usize = 4;
/// Offset of the u16 method.
pub const METHOD_AT: usize = 6;
/// Bytes common to every version: magic, version, method.
const COMMON_SIZE: usize = 8;

/// The header layouts, by version.
pub const LAYOUTS: [Layout; 3] = [
    Layout {
        version: 1,
        size: 20,
        total_size: None,
        uncompressed_size: Field { at: 8, width: 4 },
        hash: Field { at: 12, width: 8 },
    },
    Layout {
        version: 2,
        size: 24,
        total_size: Some(Field { at: 8, width: 4 }),
        uncompressed_size: Field { at: 12, width: 4 },
        hash: Field { at: 16, width: 8 },
    },
    Layout {
        version: 3,
        size: 32,
        total_size: Some(Field { at: 8, width: 8 }),
        uncompressed_size: Field { at: 16, width: 8 },
        hash: Field { at: 24, width: 8 },
    },
];

/// The layout of header version `version`.
pub fn layout(version: u16) -> Option<&'static Layout> {
    LAYOUTS.iter().find(|l| l.version == version)
}

/// A decoded compressed-bundle header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Format version (1, 2 or 3).
    pub version: u16,
    /// Compression method.
    pub method: Method,
    /// Header size in bytes.
    pub size: usize,
    /// Declared size of the whole compressed bundle (versions 2 and 3).
    pub total_size: Option<u64>,
    /// Declared size of the bundle once decompressed.
    pub uncompressed_size: u64,
    /// Truncated MD5 of the decompressed bundle (not verified).
    pub hash: u64,
}

impl Header {
    /// Decodes the header at the start of `d`, which starts with [`MAGIC`].
    pub fn parse(d: &[u8]) -> Result<Header, String> {
        let (Some(version), Some(code)) = (elf::le_u16(d, VERSION_AT), elf::le_u16(d, METHOD_AT))
        else {
            return Err(format!(
                "header is truncated: {} bytes, fewer than the {COMMON_SIZE} of magic, version and method",
                d.len()
            ));
        };
        let l = layout(version).ok_or_else(|| {
            format!(
                "unknown format version {version} (known: {})",
                LAYOUTS.map(|l| l.version.to_string()).join(", ")
            )
        })?;
        let method = Method::from_code(code).ok_or_else(|| {
            format!(
                "unknown compression method {code} (known: {})",
                Method::ALL
                    .map(|(m, c)| format!("{c} {}", m.name()))
                    .join(", ")
            )
        })?;
        let truncated = || {
            format!(
                "header is truncated: {} bytes, version {version} needs {}",
                d.len(),
                l.size
            )
        };
        let total_size = match l.total_size {
            Some(f) => Some(f.read(d).ok_or_else(truncated)?),
            None => None,
        };
        Ok(Header {
            version,
            method,
            size: l.size,
            total_size,
            uncompressed_size: l.uncompressed_size.read(d).ok_or_else(truncated)?,
            hash: l.hash.read(d).ok_or_else(truncated)?,
        })
    }
}

/// A compressed bundle found at the start of some bytes.
#[derive(Debug, Clone)]
pub struct Located<'a> {
    /// Its header.
    pub header: Header,
    /// The compressed stream (after the header).
    pub stream: &'a [u8],
    /// Bytes from the magic to the end of the stream.
    pub size: usize,
}

/// Reads the compressed bundle at the start of `d` (which starts with
/// [`MAGIC`] and runs to the end of the enclosing file or section) and
/// finds where it ends: at its declared total size, or for version 1 where
/// its compressed stream ends. Nothing is allocated beyond a few bytes,
/// except that finding the end of a version-1 zlib stream inflates it into
/// a small scratch buffer.
pub fn locate(d: &[u8]) -> Result<Located<'_>, String> {
    let header = Header::parse(d)?;
    let hs = header.size;
    let end = match header.total_size {
        Some(total) => {
            if total < hs as u64 {
                return Err(format!(
                    "declares a total size of {total} bytes, smaller than its {hs}-byte header"
                ));
            }
            if total > d.len() as u64 {
                return Err(format!(
                    "declares a total size of {total} bytes, but only {} bytes remain",
                    d.len()
                ));
            }
            total as usize
        }
        None => {
            let rest = &d[hs..];
            hs + match header.method {
                Method::Zstd => zstd_frames_len(rest)?,
                Method::Zlib => {
                    let declared = usize::try_from(header.uncompressed_size).map_err(|_| {
                        "declared uncompressed size does not fit in memory".to_owned()
                    })?;
                    inflate(rest, declared, None)?
                }
            }
        }
    };
    Ok(Located {
        stream: &d[hs..end],
        size: end,
        header,
    })
}

/// Length of the run of zstd frames (and skippable frames) at the start of
/// `d`: where a version-1 bundle's stream ends.
fn zstd_frames_len(d: &[u8]) -> Result<usize, String> {
    let mut pos = 0;
    while let Some(magic) = elf::le_u32(d, pos) {
        let skippable = magic & zstd_safe::zstd_sys::ZSTD_MAGIC_SKIPPABLE_MASK
            == zstd_safe::zstd_sys::ZSTD_MAGIC_SKIPPABLE_START;
        if magic != zstd_safe::zstd_sys::ZSTD_MAGICNUMBER && !skippable {
            break;
        }
        let n = zstd_safe::find_frame_compressed_size(&d[pos..]).map_err(|code| {
            format!(
                "zstd frame at stream offset {pos:#x}: {}",
                zstd_safe::get_error_name(code)
            )
        })?;
        pos += n;
    }
    if pos == 0 {
        return Err("no zstd frame follows the header".to_owned());
    }
    Ok(pos)
}

/// Decompresses `stream` (a compressed bundle's stream with header `h`),
/// refusing first a declared uncompressed size above `limit`. The result is
/// exactly the declared size or an error; a stream that would produce more
/// stops as soon as the declared size is exceeded.
pub fn decompress(h: &Header, stream: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    let declared = h.uncompressed_size;
    if declared > limit {
        return Err(format!(
            "declares {declared} bytes uncompressed, above the {limit}-byte limit for one bundle"
        ));
    }
    let n = usize::try_from(declared)
        .map_err(|_| format!("declares {declared} bytes uncompressed, more than fit in memory"))?;
    let out = match h.method {
        Method::Zstd => unzstd(stream, n)?,
        Method::Zlib => {
            let mut out = Vec::with_capacity(n);
            inflate(stream, n, Some(&mut out))?;
            out
        }
    };
    if out.len() != n {
        return Err(format!(
            "{} stream decompresses to {} bytes, not the declared {n}",
            h.method.name(),
            out.len()
        ));
    }
    Ok(out)
}

fn unzstd(stream: &[u8], n: usize) -> Result<Vec<u8>, String> {
    // The frames' own content sizes (LLVM's one-shot compressor always
    // writes them) reveal a lying header before the buffer is allocated.
    let mut pos = 0;
    let mut content = 0u64;
    while pos < stream.len() {
        let Ok(Some(size)) = zstd_safe::get_frame_content_size(&stream[pos..]) else {
            break;
        };
        content = content.saturating_add(size);
        if content > n as u64 {
            return Err(format!(
                "zstd frames declare at least {content} bytes, more than the {n} the header declares"
            ));
        }
        match zstd_safe::find_frame_compressed_size(&stream[pos..]) {
            Ok(len) => pos += len,
            Err(_) => break,
        }
    }
    let mut out = Vec::with_capacity(n);
    // The output buffer never grows: a stream producing more than `n`
    // bytes stops with dstSize_tooSmall (zstd returns error E as -E).
    let too_small = 0usize
        .wrapping_sub(zstd_safe::zstd_sys::ZSTD_ErrorCode::ZSTD_error_dstSize_tooSmall as usize);
    zstd_safe::decompress(&mut out, stream).map_err(|code| {
        if code == too_small {
            format!("zstd stream decompresses to more than the declared {n} bytes")
        } else {
            format!("zstd: {}", zstd_safe::get_error_name(code))
        }
    })?;
    Ok(out)
}

/// Inflates the zlib stream at the start of `stream`, which must produce
/// exactly `declared` bytes; keeps them in `keep` (whose capacity is
/// `declared`) or discards them through a small scratch buffer. Returns
/// the length of the zlib stream.
fn inflate(
    stream: &[u8],
    declared: usize,
    mut keep: Option<&mut Vec<u8>>,
) -> Result<usize, String> {
    let mut z = Decompress::new(true);
    let mut scratch = [0u8; 1 << 14];
    loop {
        let (was_in, was_out) = (z.total_in(), z.total_out());
        let input = &stream[was_in as usize..];
        let room = declared - was_out as usize;
        let status = match keep.as_deref_mut() {
            Some(v) if room > 0 => z.decompress_vec(input, v, FlushDecompress::None),
            // Ask for at most one byte past the declared size, so that a
            // stream producing more stops right there.
            _ => {
                let cap = (room + 1).min(scratch.len());
                z.decompress(input, &mut scratch[..cap], FlushDecompress::None)
            }
        }
        .map_err(|e| format!("zlib: {e}"))?;
        if z.total_out() > declared as u64 {
            return Err(format!(
                "zlib stream decompresses to more than the declared {declared} bytes"
            ));
        }
        if status == Status::StreamEnd {
            if z.total_out() != declared as u64 {
                return Err(format!(
                    "zlib stream decompresses to {} bytes, not the declared {declared}",
                    z.total_out()
                ));
            }
            return Ok(z.total_in() as usize);
        }
        if (z.total_in(), z.total_out()) == (was_in, was_out) {
            return Err(format!(
                "zlib stream is truncated: it ends after {} of the declared {declared} bytes",
                z.total_out()
            ));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;

    /// A compressed bundle of `payload` with header `version` and `method`,
    /// laid out from [`LAYOUTS`].
    pub(crate) fn build(version: u16, method: Method, payload: &[u8]) -> Vec<u8> {
        let stream = match method {
            Method::Zstd => zstd::bulk::compress(payload, 3).unwrap(),
            Method::Zlib => {
                let mut e =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(payload).unwrap();
                e.finish().unwrap()
            }
        };
        let l = layout(version).unwrap();
        let mut d = vec![0u8; l.size];
        d[..4].copy_from_slice(MAGIC);
        d[VERSION_AT..VERSION_AT + 2].copy_from_slice(&version.to_le_bytes());
        d[METHOD_AT..METHOD_AT + 2].copy_from_slice(&method.code().to_le_bytes());
        if let Some(f) = l.total_size {
            f.write(&mut d, (l.size + stream.len()) as u64);
        }
        l.uncompressed_size.write(&mut d, payload.len() as u64);
        l.hash.write(&mut d, 0x0123_4567_89ab_cdef);
        d.extend(stream);
        d
    }

    #[test]
    fn headers_of_every_version_decode() {
        // Bytes as clang-offload-bundler-19 (v2) and -22 (v3) wrote them
        // for one 8148-byte bundle (zstd): see tests/container_llvm.rs for
        // the live comparison.
        let v2 = [
            0x43, 0x43, 0x4f, 0x42, 0x02, 0x00, 0x01, 0x00, 0x92, 0x04, 0x00, 0x00, 0xd4, 0x1f,
            0x00, 0x00, 0x37, 0x24, 0xc3, 0x63, 0x15, 0xb4, 0x50, 0x07,
        ];
        let h = Header::parse(&v2).unwrap();
        assert_eq!(
            h,
            Header {
                version: 2,
                method: Method::Zstd,
                size: 24,
                total_size: Some(1170),
                uncompressed_size: 8148,
                hash: 0x0750_b415_63c3_2437,
            }
        );
        let mut v3 = b"CCOB\x03\x00\x01\x00".to_vec();
        v3.extend(1178u64.to_le_bytes());
        v3.extend(8148u64.to_le_bytes());
        v3.extend(0x0750_b415_63c3_2437u64.to_le_bytes());
        let h = Header::parse(&v3).unwrap();
        assert_eq!(
            (h.version, h.size, h.total_size, h.uncompressed_size),
            (3, 32, Some(1178), 8148)
        );
        let mut v1 = b"CCOB\x01\x00\x00\x00".to_vec();
        v1.extend(99u32.to_le_bytes());
        v1.extend(7u64.to_le_bytes());
        let h = Header::parse(&v1).unwrap();
        assert_eq!(
            (
                h.version,
                h.method,
                h.size,
                h.total_size,
                h.uncompressed_size,
                h.hash
            ),
            (1, Method::Zlib, 20, None, 99, 7)
        );
    }

    #[test]
    fn bad_headers_are_one_line_errors() {
        let e = Header::parse(b"CCOB\x04\x00\x01\x00").unwrap_err();
        assert_eq!(e, "unknown format version 4 (known: 1, 2, 3)");
        let e = Header::parse(b"CCOB\x02\x00\x02\x00").unwrap_err();
        assert_eq!(e, "unknown compression method 2 (known: 0 zlib, 1 zstd)");
        let e = Header::parse(b"CCOB\x02").unwrap_err();
        assert!(e.starts_with("header is truncated: 5 bytes"), "{e}");
        let e = Header::parse(b"CCOB\x03\x00\x01\x00\0\0\0\0").unwrap_err();
        assert_eq!(e, "header is truncated: 12 bytes, version 3 needs 32");
    }

    #[test]
    fn every_version_and_method_round_trips() {
        let payload: Vec<u8> = (0..5000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        for l in LAYOUTS {
            for (m, _) in Method::ALL {
                let mut d = build(l.version, m, &payload);
                let full = d.len();
                // Trailing bytes (padding in a section) are not part of it.
                d.extend([0u8; 64]);
                let loc = locate(&d).unwrap();
                assert_eq!(loc.size, full, "v{} {m:?}", l.version);
                let out = decompress(&loc.header, loc.stream, DEFAULT_UNPACK_LIMIT).unwrap();
                assert_eq!(out, payload);
            }
        }
    }

    #[test]
    fn sizes_are_checked_before_allocating() {
        let payload = vec![7u8; 1000];
        for l in LAYOUTS {
            for (m, _) in Method::ALL {
                let good = build(l.version, m, &payload);
                let ctx = format!("v{} {m:?}", l.version);
                // Above the limit.
                let loc = locate(&good).unwrap();
                let e = decompress(&loc.header, loc.stream, 999).unwrap_err();
                assert_eq!(
                    e, "declares 1000 bytes uncompressed, above the 999-byte limit for one bundle",
                    "{ctx}"
                );
                // A lying uncompressed size, smaller or larger.
                for (lie, want) in [(999u64, "more than"), (1001, "not the declared")] {
                    let mut bad = good.clone();
                    l.uncompressed_size.write(&mut bad, lie);
                    let r =
                        locate(&bad).and_then(|loc| decompress(&loc.header, loc.stream, 1 << 20));
                    let e = r.unwrap_err();
                    assert!(e.contains(want), "{ctx} {lie}: {e}");
                }
                // A total size past the end.
                if let Some(f) = l.total_size {
                    let mut bad = good.clone();
                    f.write(&mut bad, good.len() as u64 + 1);
                    let e = locate(&bad).unwrap_err();
                    assert_eq!(
                        e,
                        format!(
                            "declares a total size of {} bytes, but only {} bytes remain",
                            good.len() + 1,
                            good.len()
                        ),
                        "{ctx}"
                    );
                }
                // Every truncation is an error, never a panic.
                for cut in 0..good.len() {
                    let r = locate(&good[..cut])
                        .and_then(|loc| decompress(&loc.header, loc.stream, 1 << 20));
                    assert!(r.is_err(), "{ctx} cut {cut}");
                }
            }
        }
    }

    #[test]
    fn a_bomb_stops_at_the_declared_size() {
        // 64 MiB of zeros compress to a few KiB; the header declares 4 KiB.
        let big = vec![0u8; 64 << 20];
        for (m, _) in Method::ALL {
            let mut d = build(3, m, &big);
            LAYOUTS[2].uncompressed_size.write(&mut d, 4096);
            let loc = locate(&d).unwrap();
            let e = decompress(&loc.header, loc.stream, 1 << 20).unwrap_err();
            assert!(e.contains("more than"), "{m:?}: {e}");
        }
        // A zstd frame without its content size is stopped by the buffer.
        let mut enc = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
        enc.include_contentsize(false).unwrap();
        enc.write_all(&big).unwrap();
        let stream = enc.finish().unwrap();
        assert!(matches!(
            zstd_safe::get_frame_content_size(&stream),
            Ok(None)
        ));
        let h = Header {
            version: 3,
            method: Method::Zstd,
            size: 32,
            total_size: Some(32 + stream.len() as u64),
            uncompressed_size: 4096,
            hash: 0,
        };
        let e = decompress(&h, &stream, 1 << 20).unwrap_err();
        assert_eq!(
            e,
            "zstd stream decompresses to more than the declared 4096 bytes"
        );
    }
}
