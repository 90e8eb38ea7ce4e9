//! Writing offload bundles and compressed offload bundles (`CCOB`) of every
//! header version and method, for tests. Written from the layout in LLVM's
//! `CompressedOffloadBundle` independently of the oracle's reader (it is a
//! check of it); `tests/container_llvm.rs` has clang-offload-bundler read
//! what this writes.

use std::io::Write;

/// A compression method, with its code in the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// zlib (code 0).
    Zlib,
    /// zstd (code 1).
    Zstd,
}

impl Method {
    /// The header's method code.
    pub fn code(self) -> u16 {
        match self {
            Method::Zlib => 0,
            Method::Zstd => 1,
        }
    }
}

/// An uncompressed offload bundle of `entries` (ID, bytes).
pub fn bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let heads: Vec<(&str, u64)> = entries
        .iter()
        .map(|(id, d)| (*id, d.len() as u64))
        .collect();
    let mut out = Vec::new();
    write_bundle(&mut out, &heads, &mut |i, w| w.write_all(entries[i].1)).unwrap();
    out
}

/// Writes an uncompressed offload bundle of `entries` (ID, size) to `w`,
/// the header first, then each entry's bytes as `body(index, w)` writes
/// them (so a large bundle need not be held in memory).
pub fn write_bundle(
    w: &mut dyn Write,
    entries: &[(&str, u64)],
    body: &mut dyn FnMut(usize, &mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    w.write_all(b"__CLANG_OFFLOAD_BUNDLE__")?;
    w.write_all(&(entries.len() as u64).to_le_bytes())?;
    let mut off = 24
        + 8
        + entries
            .iter()
            .map(|(id, _)| 24 + id.len() as u64)
            .sum::<u64>();
    for (id, size) in entries {
        w.write_all(&off.to_le_bytes())?;
        w.write_all(&size.to_le_bytes())?;
        w.write_all(&(id.len() as u64).to_le_bytes())?;
        w.write_all(id.as_bytes())?;
        off += size;
    }
    for i in 0..entries.len() {
        body(i, w)?;
    }
    Ok(())
}

/// `data` compressed as LLVM does (one zstd frame with its content size, or
/// a zlib stream).
pub fn compress(method: Method, data: &[u8]) -> Vec<u8> {
    match method {
        Method::Zstd => zstd::bulk::compress(data, 3).unwrap(),
        Method::Zlib => {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
    }
}

/// A stream decompressing to `n` zero bytes, built in pieces (never holding
/// `n` bytes) and, for zstd, without a content size in the frame header.
pub fn zeros(method: Method, n: u64) -> Vec<u8> {
    let chunk = vec![0u8; 1 << 20];
    let mut left = n;
    let mut feed = |w: &mut dyn Write| {
        while left > 0 {
            let k = left.min(chunk.len() as u64) as usize;
            w.write_all(&chunk[..k]).unwrap();
            left -= k as u64;
        }
    };
    match method {
        Method::Zstd => {
            let mut e = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
            e.include_contentsize(false).unwrap();
            feed(&mut e);
            e.finish().unwrap()
        }
        Method::Zlib => {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
            feed(&mut e);
            e.finish().unwrap()
        }
    }
}

/// A compressed bundle with the given header fields around `stream`. The
/// total size (versions 2 and 3) is `total`, or the true one when `None`;
/// widths follow the version (u32 sizes in 1 and 2, u64 in 3).
pub fn raw(
    version: u16,
    method_code: u16,
    total: Option<u64>,
    uncompressed: u64,
    stream: &[u8],
) -> Vec<u8> {
    let mut d = b"CCOB".to_vec();
    d.extend(version.to_le_bytes());
    d.extend(method_code.to_le_bytes());
    let header = match version {
        1 => 20,
        2 => 24,
        _ => 32,
    };
    let total = total.unwrap_or((header + stream.len()) as u64);
    match version {
        1 => d.extend((uncompressed as u32).to_le_bytes()),
        2 => {
            d.extend((total as u32).to_le_bytes());
            d.extend((uncompressed as u32).to_le_bytes());
        }
        _ => {
            d.extend(total.to_le_bytes());
            d.extend(uncompressed.to_le_bytes());
        }
    }
    // The truncated MD5 is not checked by LLVM's reader nor by ours.
    d.extend(0x5eed_5eed_5eed_5eedu64.to_le_bytes());
    d.extend(stream);
    d
}

/// `bundle` compressed with `method` under a version-`version` header.
pub fn ccob(version: u16, method: Method, bundle: &[u8]) -> Vec<u8> {
    raw(
        version,
        method.code(),
        None,
        bundle.len() as u64,
        &compress(method, bundle),
    )
}
