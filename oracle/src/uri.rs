//! Loaded code object path URIs (amdgpu-usage.rst: "Loaded Code Object Path
//! Uniform Resource Identifier (URI)").
//!
//! The loader names every loaded code object with a URI:
//!
//! ```text
//! code_object_uri ::== file_uri | memory_uri
//! file_uri        ::== "file://" file_path [ range_specifier ]
//! memory_uri      ::== "memory://" process_id range_specifier
//! range_specifier ::== [ "#" | "?" ] "offset=" number "&" "size=" number
//! ```
//!
//! [`parse`] accepts the document's grammar and rejects everything else
//! with a [`UriError`] naming what is wrong and at which byte. The grammar
//! is loose in places and its prose disagrees with it in others; the
//! reading taken here is listed below, and the evidence for each choice
//! (ROCr, ROCgdb, HIP runtime sources) is in `docs/errata-uri.md`:
//!
//! - The scheme is `file://` or `memory://`, in lowercase.
//! - The range delimiter is required and is `#` or `?`; the printed form
//!   uses `#`, as every producer does.
//! - Parameters come in the grammar's order, `offset` then `size`, each at
//!   most once, and no others. A file URI may give either alone (the prose
//!   gives each a default); a memory URI must give both.
//! - A number is a C literal without sign or suffix: decimal, `0x`/`0X`
//!   hexadecimal, or octal with a leading `0`. The process id is decimal
//!   without leading zeros. Values must fit in 64 bits.
//! - `size` is not 0, and `offset + size` does not exceed 2^64.
//! - The path is the percent-encoding of a non-empty UTF-8 string: bytes in
//!   `[A-Za-z0-9/_.~-]` appear as themselves, every other byte as `%XX`
//!   with uppercase hexadecimal digits; `%00` is rejected.
//!
//! [`CodeObjectUri`]'s `Display` prints the canonical form, which is the
//! form ROCr's loader produces: file offsets and all sizes in decimal, the
//! memory address in `0x` lowercase hexadecimal, every byte outside the
//! unreserved set encoded.

use std::fmt;
use std::str::FromStr;

/// A parsed loaded code object URI.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CodeObjectUri {
    /// `file://` URI: the code object is a byte range of a file.
    File {
        /// The decoded OS file path (absolute or relative; the grammar has
        /// no host part, so everything after `file://` is the path).
        path: String,
        /// Byte offset of the code object in the file; absent means 0.
        offset: Option<u64>,
        /// Size of the code object in bytes; absent means "to the end of
        /// the file".
        size: Option<u64>,
    },
    /// `memory://` URI: the code object is in the memory of a process.
    Memory {
        /// The process owning the memory (on Linux, the PID).
        pid: u64,
        /// Address of the code object in that process (the URI's `offset`).
        address: u64,
        /// Size of the code object in bytes.
        size: u64,
    },
}

/// Which number of the URI an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// The process id of a memory URI.
    ProcessId,
    /// The `offset` parameter.
    Offset,
    /// The `size` parameter.
    Size,
}

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::ProcessId => "process id",
            Field::Offset => "offset",
            Field::Size => "size",
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The base of a number, as its C prefix selects it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Radix {
    /// No prefix, first digit 1-9.
    Decimal,
    /// `0x` or `0X` prefix.
    Hexadecimal,
    /// Leading `0`.
    Octal,
}

impl Radix {
    fn base(self) -> u64 {
        match self {
            Radix::Decimal => 10,
            Radix::Hexadecimal => 16,
            Radix::Octal => 8,
        }
    }
}

impl fmt::Display for Radix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Radix::Decimal => "decimal",
            Radix::Hexadecimal => "hexadecimal",
            Radix::Octal => "octal",
        })
    }
}

/// What is wrong with a URI.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum UriErrorKind {
    /// The input does not start with `scheme:`.
    MissingScheme,
    /// The scheme is neither `file` nor `memory`.
    UnknownScheme(String),
    /// The scheme is `file` or `memory` with an uppercase letter; some
    /// consumers (the HIP runtime's URI decoder, LLDB) compare it exactly.
    SchemeNotLowercase(String),
    /// `file:` or `memory:` is not followed by `//`.
    MissingSlashes(String),
    /// Nothing between `file://` and the range delimiter or the end.
    EmptyPath,
    /// A character outside `[A-Za-z0-9/_.~-]` appears unencoded in the path.
    UnencodedCharacter(char),
    /// `%` not followed by two hexadecimal digits; holds what follows the
    /// `%` in the path (at most two characters).
    MalformedEscape(String),
    /// A percent-escape with lowercase hexadecimal digits (the document
    /// requires uppercase); holds the escape as written.
    LowercaseEscape(String),
    /// `%00`: no OS file path contains a NUL byte.
    NulInPath,
    /// The decoded path bytes are not UTF-8.
    InvalidUtf8,
    /// A number is expected but nothing is there.
    EmptyNumber(Field),
    /// `0x` or `0X` with no digit after it.
    MissingHexDigits(Field),
    /// A character that is not a digit of the number's radix.
    InvalidDigit {
        /// The number being read.
        field: Field,
        /// Its radix, as its prefix selected it.
        radix: Radix,
        /// The offending character.
        ch: char,
    },
    /// The value does not fit in 64 bits.
    Overflow(Field),
    /// The process id has a leading zero (it is decimal, and a C reader
    /// would take a leading zero as octal).
    ProcessIdLeadingZero,
    /// A memory URI has no range specifier.
    MissingRange,
    /// The range delimiter is the last character.
    EmptyRange,
    /// An empty parameter: a stray `&`.
    EmptyParameter,
    /// A parameter other than `offset` and `size` (names are
    /// case-sensitive).
    UnknownParameter(String),
    /// `offset` or `size` without `=value`.
    MissingValue(Field),
    /// `offset` or `size` given twice.
    DuplicateParameter(Field),
    /// `offset` after `size`.
    ParameterOrder,
    /// A memory URI lacks `offset` or `size`.
    MissingParameter(Field),
    /// `size=0`: a code object has at least one byte.
    ZeroSize,
    /// `offset + size` is beyond 2^64.
    RangeOverflow,
}

impl fmt::Display for UriErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UriErrorKind::MissingScheme => {
                f.write_str("expected the URI to start with 'file://' or 'memory://'")
            }
            UriErrorKind::UnknownScheme(s) => {
                write!(f, "unknown scheme {s:?} (expected 'file' or 'memory')")
            }
            UriErrorKind::SchemeNotLowercase(s) => write!(
                f,
                "scheme {s:?} must be written in lowercase, as {:?}",
                s.to_ascii_lowercase()
            ),
            UriErrorKind::MissingSlashes(s) => write!(f, "expected '//' after '{s}:'"),
            UriErrorKind::EmptyPath => f.write_str("the file path is empty"),
            UriErrorKind::UnencodedCharacter(c) => {
                let mut buf = [0u8; 4];
                write!(
                    f,
                    "character {c:?} must be percent-encoded in a file path, as {:?}",
                    encode_path(c.encode_utf8(&mut buf))
                )
            }
            UriErrorKind::MalformedEscape(found) => {
                if found.is_empty() {
                    f.write_str(
                        "'%' must be followed by two hexadecimal digits, found the end of the path",
                    )
                } else {
                    write!(
                        f,
                        "'%' must be followed by two hexadecimal digits, found {found:?}"
                    )
                }
            }
            UriErrorKind::LowercaseEscape(e) => write!(
                f,
                "percent-escape {e:?} must use uppercase hexadecimal digits, as {:?}",
                e.to_ascii_uppercase()
            ),
            UriErrorKind::NulInPath => f.write_str(
                "percent-escape \"%00\" encodes a NUL byte, which no OS file path can contain",
            ),
            UriErrorKind::InvalidUtf8 => {
                f.write_str("the percent-escapes from here on decode to bytes that are not UTF-8")
            }
            UriErrorKind::EmptyNumber(field) => write!(f, "expected a number for {field}"),
            UriErrorKind::MissingHexDigits(field) => {
                write!(f, "{field}: expected hexadecimal digits after '0x'")
            }
            UriErrorKind::InvalidDigit { field, radix, ch } => {
                let article = if *radix == Radix::Octal { "an" } else { "a" };
                write!(f, "{field}: {ch:?} is not {article} {radix} digit")?;
                if *radix == Radix::Octal && ch.is_ascii_digit() {
                    f.write_str(" (a leading '0' makes a number octal)")?;
                }
                Ok(())
            }
            UriErrorKind::Overflow(field) => write!(f, "{field} does not fit in 64 bits"),
            UriErrorKind::ProcessIdLeadingZero => {
                f.write_str("the process id is a decimal number and must not have a leading zero")
            }
            UriErrorKind::MissingRange => {
                f.write_str("a memory URI needs a range specifier, '#offset=ADDRESS&size=BYTES'")
            }
            UriErrorKind::EmptyRange => {
                f.write_str("expected 'offset=' or 'size=' after the range delimiter")
            }
            UriErrorKind::EmptyParameter => f.write_str("empty parameter (stray '&')"),
            UriErrorKind::UnknownParameter(p) => {
                write!(f, "unknown parameter {p:?} (expected 'offset' or 'size')")
            }
            UriErrorKind::MissingValue(field) => {
                write!(f, "parameter '{field}' has no '=' and value")
            }
            UriErrorKind::DuplicateParameter(field) => {
                write!(f, "parameter '{field}' appears more than once")
            }
            UriErrorKind::ParameterOrder => f.write_str("'offset' must come before 'size'"),
            UriErrorKind::MissingParameter(field) => {
                write!(f, "a memory URI needs the '{field}' parameter")
            }
            UriErrorKind::ZeroSize => {
                f.write_str("size must not be 0 (a code object has at least one byte)")
            }
            UriErrorKind::RangeOverflow => f.write_str("offset + size is beyond 2^64"),
        }
    }
}

/// A URI that does not follow the grammar: what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct UriError {
    /// Byte offset in the input of the offending character, or of the place
    /// where something is missing (the input's length when it ends early).
    /// Always a char boundary of the input.
    pub pos: usize,
    /// What is wrong.
    pub kind: UriErrorKind,
}

impl fmt::Display for UriError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.pos, self.kind)
    }
}

impl std::error::Error for UriError {}

fn err<T>(pos: usize, kind: UriErrorKind) -> Result<T, UriError> {
    Err(UriError { pos, kind })
}

const FILE_SCHEME: &str = "file";
const MEMORY_SCHEME: &str = "memory";

/// Whether a path byte stands for itself: the document's
/// `[a-zA-Z0-9/_.~-]`.
fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'/' | b'_' | b'.' | b'~' | b'-')
}

const UPPER_HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Percent-encodes a path as the document requires: every UTF-8 byte
/// outside `[A-Za-z0-9/_.~-]` becomes `%XX` with uppercase digits.
pub fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if is_unreserved(b) {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(UPPER_HEX[usize::from(b >> 4)]));
            out.push(char::from(UPPER_HEX[usize::from(b & 0xf)]));
        }
    }
    out
}

/// The character starting at byte `pos` of `s` (a char boundary by
/// construction of every caller); U+FFFD if it is not.
fn char_at(s: &str, pos: usize) -> char {
    s.get(pos..)
        .and_then(|rest| rest.chars().next())
        .unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// Index of the first `#` or `?` at or after `from`, or `s.len()`.
fn range_delimiter(s: &str, from: usize) -> usize {
    s.get(from..)
        .and_then(|rest| rest.find(['#', '?']))
        .map_or(s.len(), |i| from.saturating_add(i))
}

#[derive(Clone, Copy)]
enum Scheme {
    File,
    Memory,
}

/// Reads `scheme://` and returns the scheme and the index after `//`.
fn parse_scheme(s: &str) -> Result<(Scheme, usize), UriError> {
    // RFC 3986 scheme characters, so that "http://" is reported as an
    // unknown scheme rather than as a missing one.
    let name_len = s
        .bytes()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))
        .unwrap_or(s.len());
    let name = s.get(..name_len).unwrap_or("");
    if name.is_empty() || s.as_bytes().get(name_len) != Some(&b':') {
        return err(0, UriErrorKind::MissingScheme);
    }
    let scheme = if name.eq_ignore_ascii_case(FILE_SCHEME) {
        Scheme::File
    } else if name.eq_ignore_ascii_case(MEMORY_SCHEME) {
        Scheme::Memory
    } else {
        return err(0, UriErrorKind::UnknownScheme(name.to_owned()));
    };
    if name != FILE_SCHEME && name != MEMORY_SCHEME {
        return err(0, UriErrorKind::SchemeNotLowercase(name.to_owned()));
    }
    let after_colon = name_len.saturating_add(1);
    if !s.get(after_colon..).unwrap_or("").starts_with("//") {
        return err(after_colon, UriErrorKind::MissingSlashes(name.to_owned()));
    }
    Ok((scheme, after_colon.saturating_add(2)))
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'A'..=b'F' => Some(b - b'A' + 10),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

/// Decodes the path `s[start..end]`.
fn decode_path(s: &str, start: usize, end: usize) -> Result<String, UriError> {
    if start >= end {
        return err(start, UriErrorKind::EmptyPath);
    }
    let bytes = s.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(end - start);
    // Input position of each decoded byte, to place a UTF-8 error.
    let mut origin: Vec<usize> = Vec::with_capacity(end - start);
    let mut i = start;
    while i < end {
        let Some(&b) = bytes.get(i) else { break };
        if is_unreserved(b) {
            out.push(b);
            origin.push(i);
            i += 1;
        } else if b == b'%' {
            // Only the path's own bytes count; '#' and '?' end it and are
            // not hex digits anyway.
            let hi = bytes.get(i + 1).copied().filter(|_| i + 1 < end);
            let lo = bytes.get(i + 2).copied().filter(|_| i + 2 < end);
            let (Some(h), Some(l)) = (hi.and_then(hex_value), lo.and_then(hex_value)) else {
                // What follows '%' (at most two characters) for the message.
                let found: String = s.get(i + 1..end).unwrap_or("").chars().take(2).collect();
                return err(i, UriErrorKind::MalformedEscape(found));
            };
            if hi.is_some_and(|c| c.is_ascii_lowercase())
                || lo.is_some_and(|c| c.is_ascii_lowercase())
            {
                let escape = s.get(i..i + 3).unwrap_or("%").to_owned();
                return err(i, UriErrorKind::LowercaseEscape(escape));
            }
            let value = (h << 4) | l;
            if value == 0 {
                return err(i, UriErrorKind::NulInPath);
            }
            out.push(value);
            origin.push(i);
            i += 3;
        } else {
            // Every earlier step crossed ASCII only, so `i` is a char
            // boundary and this names the whole character.
            return err(i, UriErrorKind::UnencodedCharacter(char_at(s, i)));
        }
    }
    String::from_utf8(out).map_err(|e| {
        let bad = e.utf8_error().valid_up_to();
        UriError {
            pos: origin.get(bad).copied().unwrap_or(start),
            kind: UriErrorKind::InvalidUtf8,
        }
    })
}

/// Reads the number `s[start..end]` as a C literal (decimal, `0x`/`0X`
/// hexadecimal, octal with a leading `0`), or as decimal only for the
/// process id.
fn parse_number(s: &str, start: usize, end: usize, field: Field) -> Result<u64, UriError> {
    let text = s.as_bytes().get(start..end).unwrap_or(&[]);
    let Some(&first) = text.first() else {
        return err(start, UriErrorKind::EmptyNumber(field));
    };
    let (radix, digits_start) = if field == Field::ProcessId || first != b'0' {
        (Radix::Decimal, 0)
    } else if matches!(text.get(1), Some(b'x' | b'X')) {
        (Radix::Hexadecimal, 2)
    } else {
        // "0" alone is the octal literal zero with no further digits.
        (Radix::Octal, 1)
    };
    let digits = text.get(digits_start..).unwrap_or(&[]);
    if radix == Radix::Hexadecimal && digits.is_empty() {
        return err(
            start.saturating_add(2),
            UriErrorKind::MissingHexDigits(field),
        );
    }
    let base = radix.base();
    // All digits are checked before the value, so that a bad character is
    // reported even when the number would also overflow.
    for (k, &b) in digits.iter().enumerate() {
        if !matches!(hex_value(b), Some(d) if u64::from(d) < base) {
            let pos = start.saturating_add(digits_start).saturating_add(k);
            let ch = char_at(s, pos);
            return err(pos, UriErrorKind::InvalidDigit { field, radix, ch });
        }
    }
    if field == Field::ProcessId && first == b'0' && text.len() > 1 {
        return err(start, UriErrorKind::ProcessIdLeadingZero);
    }
    let mut value: u64 = 0;
    for &b in digits {
        let d = u64::from(hex_value(b).unwrap_or(0));
        value = match value.checked_mul(base).and_then(|v| v.checked_add(d)) {
            Some(v) => v,
            None => return err(start, UriErrorKind::Overflow(field)),
        };
    }
    Ok(value)
}

/// The parameters of a range specifier, with the input position of the
/// size value (for a range error).
struct Range {
    offset: Option<u64>,
    size: Option<u64>,
    size_pos: usize,
}

/// Reads the parameters from `start` (just after the delimiter) to the end.
fn parse_range(s: &str, start: usize) -> Result<Range, UriError> {
    if start >= s.len() {
        return err(start, UriErrorKind::EmptyRange);
    }
    let mut range = Range {
        offset: None,
        size: None,
        size_pos: start,
    };
    let mut seg_start = start;
    loop {
        let rest = s.get(seg_start..).unwrap_or("");
        let seg_end = rest
            .find('&')
            .map_or(s.len(), |i| seg_start.saturating_add(i));
        let segment = s.get(seg_start..seg_end).unwrap_or("");
        if segment.is_empty() {
            return err(seg_start, UriErrorKind::EmptyParameter);
        }
        let (name, value_start) = match segment.find('=') {
            Some(eq) => (
                segment.get(..eq).unwrap_or(""),
                seg_start.saturating_add(eq).saturating_add(1),
            ),
            None => {
                let kind = match segment {
                    "offset" => UriErrorKind::MissingValue(Field::Offset),
                    "size" => UriErrorKind::MissingValue(Field::Size),
                    other => UriErrorKind::UnknownParameter(other.to_owned()),
                };
                let pos = if matches!(kind, UriErrorKind::MissingValue(_)) {
                    seg_end
                } else {
                    seg_start
                };
                return err(pos, kind);
            }
        };
        match name {
            "offset" => {
                if range.offset.is_some() {
                    return err(seg_start, UriErrorKind::DuplicateParameter(Field::Offset));
                }
                if range.size.is_some() {
                    return err(seg_start, UriErrorKind::ParameterOrder);
                }
                range.offset = Some(parse_number(s, value_start, seg_end, Field::Offset)?);
            }
            "size" => {
                if range.size.is_some() {
                    return err(seg_start, UriErrorKind::DuplicateParameter(Field::Size));
                }
                let size = parse_number(s, value_start, seg_end, Field::Size)?;
                if size == 0 {
                    return err(value_start, UriErrorKind::ZeroSize);
                }
                range.size = Some(size);
                range.size_pos = value_start;
            }
            other => return err(seg_start, UriErrorKind::UnknownParameter(other.to_owned())),
        }
        if seg_end >= s.len() {
            break;
        }
        seg_start = seg_end.saturating_add(1);
    }
    if let (Some(offset), Some(size)) = (range.offset, range.size) {
        // The range [offset, offset + size) may end exactly at 2^64.
        if offset.checked_add(size - 1).is_none() {
            return err(range.size_pos, UriErrorKind::RangeOverflow);
        }
    }
    Ok(range)
}

/// Parses a loaded code object URI, accepting exactly the document's
/// grammar (with the readings listed in the module documentation).
///
/// Never panics. The error names the first problem from the left.
pub fn parse(s: &str) -> Result<CodeObjectUri, UriError> {
    let (scheme, body) = parse_scheme(s)?;
    let delimiter = range_delimiter(s, body);
    match scheme {
        Scheme::File => {
            let path = decode_path(s, body, delimiter)?;
            if delimiter >= s.len() {
                return Ok(CodeObjectUri::File {
                    path,
                    offset: None,
                    size: None,
                });
            }
            let range = parse_range(s, delimiter.saturating_add(1))?;
            Ok(CodeObjectUri::File {
                path,
                offset: range.offset,
                size: range.size,
            })
        }
        Scheme::Memory => {
            let pid = parse_number(s, body, delimiter, Field::ProcessId)?;
            if delimiter >= s.len() {
                return err(s.len(), UriErrorKind::MissingRange);
            }
            let range = parse_range(s, delimiter.saturating_add(1))?;
            let Some(address) = range.offset else {
                return err(s.len(), UriErrorKind::MissingParameter(Field::Offset));
            };
            let Some(size) = range.size else {
                return err(s.len(), UriErrorKind::MissingParameter(Field::Size));
            };
            Ok(CodeObjectUri::Memory { pid, address, size })
        }
    }
}

impl FromStr for CodeObjectUri {
    type Err = UriError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse(s)
    }
}

/// The canonical form, as ROCr's loader writes it. A value that [`parse`]
/// would reject (an empty path or one holding NUL, a size of 0, a range
/// beyond 2^64) is still printed, and the printed text is rejected.
impl fmt::Display for CodeObjectUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodeObjectUri::File { path, offset, size } => {
                write!(f, "file://{}", encode_path(path))?;
                match (offset, size) {
                    (None, None) => Ok(()),
                    (Some(o), None) => write!(f, "#offset={o}"),
                    (None, Some(z)) => write!(f, "#size={z}"),
                    (Some(o), Some(z)) => write!(f, "#offset={o}&size={z}"),
                }
            }
            CodeObjectUri::Memory { pid, address, size } => {
                write!(f, "memory://{pid}#offset={address:#x}&size={size}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn file(path: &str, offset: Option<u64>, size: Option<u64>) -> CodeObjectUri {
        CodeObjectUri::File {
            path: path.to_owned(),
            offset,
            size,
        }
    }

    fn memory(pid: u64, address: u64, size: u64) -> CodeObjectUri {
        CodeObjectUri::Memory { pid, address, size }
    }

    /// (input, parsed value, canonical form)
    fn accepted() -> Vec<(&'static str, CodeObjectUri, &'static str)> {
        vec![
            // The three examples of amdgpu-usage.rst.
            (
                "file:///dir1/dir2/file1",
                file("/dir1/dir2/file1", None, None),
                "file:///dir1/dir2/file1",
            ),
            (
                "file:///dir3/dir4/file2#offset=0x2000&size=3000",
                file("/dir3/dir4/file2", Some(0x2000), Some(3000)),
                "file:///dir3/dir4/file2#offset=8192&size=3000",
            ),
            (
                "memory://1234#offset=0x20000&size=3000",
                memory(1234, 0x20000, 3000),
                "memory://1234#offset=0x20000&size=3000",
            ),
            // HIP's obj_tooling.md example: a relative path, no host part.
            (
                "file://dir1/dir2/hello_world#offset=133&size=14472",
                file("dir1/dir2/hello_world", Some(133), Some(14472)),
                "file://dir1/dir2/hello_world#offset=133&size=14472",
            ),
            // ROCr's forms: memory address in 0x lowercase hex, file
            // offsets and sizes in decimal.
            (
                "memory://4242#offset=0x7f3a1c000000&size=14472",
                memory(4242, 0x7f3a_1c00_0000, 14472),
                "memory://4242#offset=0x7f3a1c000000&size=14472",
            ),
            (
                "file:///opt/rocm/lib/libfoo.so#offset=24576&size=46816",
                file("/opt/rocm/lib/libfoo.so", Some(24576), Some(46816)),
                "file:///opt/rocm/lib/libfoo.so#offset=24576&size=46816",
            ),
            // '?' delimiter; printed with '#'.
            (
                "file:///a?offset=1&size=2",
                file("/a", Some(1), Some(2)),
                "file:///a#offset=1&size=2",
            ),
            (
                "memory://1?offset=0X1F&size=010",
                memory(1, 0x1f, 8),
                "memory://1#offset=0x1f&size=8",
            ),
            // Octal, zero, mixed-case hex digits, maximum values.
            (
                "file:///x#offset=017&size=0xAbC",
                file("/x", Some(15), Some(0xabc)),
                "file:///x#offset=15&size=2748",
            ),
            (
                "file:///x#offset=0&size=1",
                file("/x", Some(0), Some(1)),
                "file:///x#offset=0&size=1",
            ),
            (
                "file:///x#offset=00",
                file("/x", Some(0), None),
                "file:///x#offset=0",
            ),
            (
                "memory://18446744073709551615#offset=0&size=0xffffffffffffffff",
                memory(u64::MAX, 0, u64::MAX),
                "memory://18446744073709551615#offset=0x0&size=18446744073709551615",
            ),
            (
                "memory://0#offset=01777777777777777777777&size=1",
                memory(0, u64::MAX, 1),
                "memory://0#offset=0xffffffffffffffff&size=1",
            ),
            // A range ending exactly at 2^64.
            (
                "file:///x#offset=0xfffffffffffff000&size=0x1000",
                file("/x", Some(0xffff_ffff_ffff_f000), Some(0x1000)),
                "file:///x#offset=18446744073709547520&size=4096",
            ),
            // Either parameter alone in a file URI (the prose's defaults).
            (
                "file:///x#size=10",
                file("/x", None, Some(10)),
                "file:///x#size=10",
            ),
            // Percent-escapes: reserved ASCII, UTF-8, an escaped
            // unreserved character (accepted, printed bare).
            (
                "file:///my%20dir/a%23b%3Fc%26d%3De%25f%3Ag",
                file("/my dir/a#b?c&d=e%f:g", None, None),
                "file:///my%20dir/a%23b%3Fc%26d%3De%25f%3Ag",
            ),
            (
                "file:///caf%C3%A9/%E6%97%A5/%F0%9F%98%80",
                file("/café/日/😀", None, None),
                "file:///caf%C3%A9/%E6%97%A5/%F0%9F%98%80",
            ),
            ("file:///%41%7E", file("/A~", None, None), "file:///A~"),
            (
                "file://~user/a_b-c.d",
                file("~user/a_b-c.d", None, None),
                "file://~user/a_b-c.d",
            ),
        ]
    }

    #[test]
    fn accepted_table() {
        for (input, value, canonical) in accepted() {
            assert_eq!(parse(input), Ok(value.clone()), "{input}");
            assert_eq!(value.to_string(), canonical, "{input}");
            assert_eq!(parse(canonical), Ok(value), "{canonical}");
        }
    }

    /// (input, byte position, message)
    fn rejected() -> Vec<(&'static str, usize, &'static str)> {
        vec![
            // Schemes.
            (
                "",
                0,
                "expected the URI to start with 'file://' or 'memory://'",
            ),
            (
                "/dir/file",
                0,
                "expected the URI to start with 'file://' or 'memory://'",
            ),
            (
                "://x",
                0,
                "expected the URI to start with 'file://' or 'memory://'",
            ),
            (
                "http://host/x",
                0,
                "unknown scheme \"http\" (expected 'file' or 'memory')",
            ),
            (
                "files:///x",
                0,
                "unknown scheme \"files\" (expected 'file' or 'memory')",
            ),
            (
                "FILE:///x",
                0,
                "scheme \"FILE\" must be written in lowercase, as \"file\"",
            ),
            (
                "Memory://1#offset=0&size=1",
                0,
                "scheme \"Memory\" must be written in lowercase, as \"memory\"",
            ),
            ("file:/x", 5, "expected '//' after 'file:'"),
            ("memory:", 7, "expected '//' after 'memory:'"),
            // Paths.
            ("file://", 7, "the file path is empty"),
            ("file://#offset=1&size=2", 7, "the file path is empty"),
            (
                "file:///a b",
                9,
                "character ' ' must be percent-encoded in a file path, as \"%20\"",
            ),
            (
                "file:///C:/x",
                9,
                "character ':' must be percent-encoded in a file path, as \"%3A\"",
            ),
            (
                "file:///é",
                8,
                "character 'é' must be percent-encoded in a file path, as \"%C3%A9\"",
            ),
            (
                "file:///x\n",
                9,
                "character '\\n' must be percent-encoded in a file path, as \"%0A\"",
            ),
            // A missing delimiter leaves '=' and '&' in the path.
            (
                "file:///xoffset=1&size=2",
                15,
                "character '=' must be percent-encoded in a file path, as \"%3D\"",
            ),
            (
                "file:///a%",
                9,
                "'%' must be followed by two hexadecimal digits, found the end of the path",
            ),
            (
                "file:///a%2",
                9,
                "'%' must be followed by two hexadecimal digits, found \"2\"",
            ),
            (
                "file:///a%2#offset=1",
                9,
                "'%' must be followed by two hexadecimal digits, found \"2\"",
            ),
            (
                "file:///a%G1",
                9,
                "'%' must be followed by two hexadecimal digits, found \"G1\"",
            ),
            (
                "file:///a%1é",
                9,
                "'%' must be followed by two hexadecimal digits, found \"1é\"",
            ),
            (
                "file:///a%2f",
                9,
                "percent-escape \"%2f\" must use uppercase hexadecimal digits, as \"%2F\"",
            ),
            (
                "file:///a%00",
                9,
                "percent-escape \"%00\" encodes a NUL byte, which no OS file path can contain",
            ),
            (
                "file:///a%FF",
                9,
                "the percent-escapes from here on decode to bytes that are not UTF-8",
            ),
            (
                "file:///ab%C3%28",
                10,
                "the percent-escapes from here on decode to bytes that are not UTF-8",
            ),
            (
                "file:///ab%C3",
                10,
                "the percent-escapes from here on decode to bytes that are not UTF-8",
            ),
            // Range specifiers.
            (
                "file:///x#",
                10,
                "expected 'offset=' or 'size=' after the range delimiter",
            ),
            ("file:///x#offset=1&", 19, "empty parameter (stray '&')"),
            ("file:///x#&offset=1", 10, "empty parameter (stray '&')"),
            (
                "file:///x#offset=1&&size=2",
                19,
                "empty parameter (stray '&')",
            ),
            (
                "file:///x#offset",
                16,
                "parameter 'offset' has no '=' and value",
            ),
            (
                "file:///x#offset=1&size",
                23,
                "parameter 'size' has no '=' and value",
            ),
            (
                "file:///x#length=1",
                10,
                "unknown parameter \"length\" (expected 'offset' or 'size')",
            ),
            (
                "file:///x#Offset=1",
                10,
                "unknown parameter \"Offset\" (expected 'offset' or 'size')",
            ),
            (
                "file:///x#offset=1&size=2&x=3",
                26,
                "unknown parameter \"x\" (expected 'offset' or 'size')",
            ),
            (
                "file:///x#offset=1&offset=2",
                19,
                "parameter 'offset' appears more than once",
            ),
            (
                "file:///x#size=1&size=2",
                17,
                "parameter 'size' appears more than once",
            ),
            (
                "file:///x#size=2&offset=1",
                17,
                "'offset' must come before 'size'",
            ),
            (
                "file:///x#offset=1#size=2",
                18,
                "offset: '#' is not a decimal digit",
            ),
            (
                "file:///x#offset=1?size=2",
                18,
                "offset: '?' is not a decimal digit",
            ),
            (
                "file:///x#size=0",
                15,
                "size must not be 0 (a code object has at least one byte)",
            ),
            (
                "memory://1#offset=0&size=0x0",
                25,
                "size must not be 0 (a code object has at least one byte)",
            ),
            (
                "file:///x#offset=0xfffffffffffff001&size=0x1000",
                41,
                "offset + size is beyond 2^64",
            ),
            (
                "memory://1#offset=0xffffffffffffffff&size=2",
                42,
                "offset + size is beyond 2^64",
            ),
            // Numbers.
            ("file:///x#offset=", 17, "expected a number for offset"),
            (
                "file:///x#offset=&size=1",
                17,
                "expected a number for offset",
            ),
            ("file:///x#offset=1&size=", 24, "expected a number for size"),
            (
                "file:///x#offset=0x",
                19,
                "offset: expected hexadecimal digits after '0x'",
            ),
            (
                "file:///x#offset=0X&size=1",
                19,
                "offset: expected hexadecimal digits after '0x'",
            ),
            (
                "file:///x#offset=0x1g",
                20,
                "offset: 'g' is not a hexadecimal digit",
            ),
            (
                "file:///x#offset=08",
                18,
                "offset: '8' is not an octal digit (a leading '0' makes a number octal)",
            ),
            (
                "file:///x#size=3000u",
                19,
                "size: 'u' is not a decimal digit",
            ),
            (
                "file:///x#size=3000UL",
                19,
                "size: 'U' is not a decimal digit",
            ),
            ("file:///x#size=+1", 15, "size: '+' is not a decimal digit"),
            ("file:///x#size=-1", 15, "size: '-' is not a decimal digit"),
            ("file:///x#size= 1", 15, "size: ' ' is not a decimal digit"),
            (
                "file:///x#size=1'000",
                16,
                "size: '\\'' is not a decimal digit",
            ),
            (
                "file:///x#size=0b101",
                16,
                "size: 'b' is not an octal digit",
            ),
            ("file:///x#size=1é", 16, "size: 'é' is not a decimal digit"),
            (
                "file:///x#size=18446744073709551616",
                15,
                "size does not fit in 64 bits",
            ),
            (
                "file:///x#offset=0x10000000000000000",
                17,
                "offset does not fit in 64 bits",
            ),
            (
                "file:///x#offset=02000000000000000000000",
                17,
                "offset does not fit in 64 bits",
            ),
            // A bad digit is reported even where the value also overflows.
            (
                "file:///x#size=99999999999999999999999z",
                38,
                "size: 'z' is not a decimal digit",
            ),
            // Memory URIs.
            ("memory://", 9, "expected a number for process id"),
            (
                "memory://#offset=0&size=1",
                9,
                "expected a number for process id",
            ),
            (
                "memory://0x10#offset=0&size=1",
                10,
                "process id: 'x' is not a decimal digit",
            ),
            (
                "memory://12a#offset=0&size=1",
                11,
                "process id: 'a' is not a decimal digit",
            ),
            (
                "memory://1234/#offset=0&size=1",
                13,
                "process id: '/' is not a decimal digit",
            ),
            (
                "memory://0123#offset=0&size=1",
                9,
                "the process id is a decimal number and must not have a leading zero",
            ),
            (
                "memory://18446744073709551616#offset=0&size=1",
                9,
                "process id does not fit in 64 bits",
            ),
            (
                "memory://1234",
                13,
                "a memory URI needs a range specifier, '#offset=ADDRESS&size=BYTES'",
            ),
            (
                "memory://1234offset=0x20000&size=3000",
                13,
                "process id: 'o' is not a decimal digit",
            ),
            (
                "memory://1234#",
                14,
                "expected 'offset=' or 'size=' after the range delimiter",
            ),
            (
                "memory://1234#offset=0x20000",
                28,
                "a memory URI needs the 'size' parameter",
            ),
            (
                "memory://1234#size=3000",
                23,
                "a memory URI needs the 'offset' parameter",
            ),
            (
                "memory://1234#size=3000&offset=0x20000",
                24,
                "'offset' must come before 'size'",
            ),
        ]
    }

    #[test]
    fn rejected_table() {
        for (input, pos, message) in rejected() {
            let e = parse(input).expect_err(input);
            assert_eq!(e.pos, pos, "{input}: {e}");
            assert_eq!(e.kind.to_string(), message, "{input}");
            assert_eq!(e.to_string(), format!("byte {pos}: {message}"), "{input}");
        }
    }

    #[test]
    fn error_kinds() {
        // The structured kinds behind a few messages, for callers that match.
        let kind = |s: &str| parse(s).map(|_| ()).unwrap_err().kind;
        assert_eq!(
            kind("file:///x#offset=09"),
            UriErrorKind::InvalidDigit {
                field: Field::Offset,
                radix: Radix::Octal,
                ch: '9'
            }
        );
        assert_eq!(
            kind("memory://1#offset=1"),
            UriErrorKind::MissingParameter(Field::Size)
        );
        assert_eq!(
            kind("file:///x#size=1&size=1"),
            UriErrorKind::DuplicateParameter(Field::Size)
        );
        assert_eq!(
            kind("file:///x#offset=0x"),
            UriErrorKind::MissingHexDigits(Field::Offset)
        );
        assert_eq!(
            kind("file:///%e9"),
            UriErrorKind::LowercaseEscape("%e9".to_owned())
        );
        assert_eq!(
            kind("file:///%Z"),
            UriErrorKind::MalformedEscape("Z".to_owned())
        );
        assert_eq!(
            kind("gopher://x"),
            UriErrorKind::UnknownScheme("gopher".to_owned())
        );
    }

    #[test]
    fn encode_path_exact() {
        assert_eq!(encode_path(""), "");
        assert_eq!(encode_path("AZaz09/_.~-"), "AZaz09/_.~-");
        assert_eq!(
            encode_path(" !\"#$%&'()*+,:;<=>?@[\\]^`{|}"),
            "%20%21%22%23%24%25%26%27%28%29%2A%2B%2C%3A%3B%3C%3D%3E%3F%40%5B%5C%5D%5E%60%7B%7C%7D"
        );
        assert_eq!(encode_path("\u{1}\u{7f}\u{80}"), "%01%7F%C2%80");
        assert_eq!(encode_path("\u{10FFFF}"), "%F4%8F%BF%BF");
    }

    #[test]
    fn from_str_matches_parse() {
        let s = "memory://7#offset=0x10&size=16";
        assert_eq!(s.parse::<CodeObjectUri>(), parse(s));
        assert_eq!("file://".parse::<CodeObjectUri>(), parse("file://"));
    }

    #[test]
    fn display_of_values_parse_rejects() {
        // Printing is total; these print but do not read back.
        assert_eq!(file("", None, None).to_string(), "file://");
        assert_eq!(file("a\0b", None, None).to_string(), "file://a%00b");
        assert_eq!(memory(1, 0, 0).to_string(), "memory://1#offset=0x0&size=0");
        assert_eq!(
            file("/x", Some(u64::MAX), Some(2)).to_string(),
            "file:///x#offset=18446744073709551615&size=2"
        );
        for v in [
            file("", None, None),
            file("a\0b", None, None),
            memory(1, 0, 0),
            file("/x", Some(u64::MAX), Some(2)),
        ] {
            assert!(parse(&v.to_string()).is_err(), "{v}");
        }
    }

    /// Paths from the whole of Unicode and from a reserved-heavy alphabet;
    /// non-empty and without NUL, the domain `parse` accepts.
    fn path_strategy() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            "[/%#?&=:;@ ~._a-zA-Z0-9\u{e9}\u{65e5}\u{1f600}-]{1,24}",
        ]
        .prop_filter("parse accepts non-empty paths without NUL", |p| {
            !p.is_empty() && !p.contains('\0')
        })
    }

    /// A size and an offset such that the range does not pass 2^64.
    fn range_strategy() -> impl Strategy<Value = (u64, u64)> {
        prop_oneof![1u64..=u64::MAX, 1u64..=0x10_0000, Just(u64::MAX)].prop_flat_map(|size| {
            let max_offset = u64::MAX - (size - 1);
            (
                prop_oneof![0..=max_offset, Just(max_offset), Just(0)],
                Just(size),
            )
        })
    }

    fn uri_strategy() -> impl Strategy<Value = CodeObjectUri> {
        prop_oneof![
            (
                path_strategy(),
                range_strategy(),
                any::<bool>(),
                any::<bool>()
            )
                .prop_map(|(path, (offset, size), has_offset, has_size)| {
                    CodeObjectUri::File {
                        path,
                        offset: has_offset.then_some(offset),
                        size: has_size.then_some(size),
                    }
                }),
            (any::<u64>(), range_strategy()).prop_map(|(pid, (address, size))| {
                CodeObjectUri::Memory { pid, address, size }
            }),
        ]
    }

    /// A number as text: valid in every radix, or near-valid.
    fn number_text_strategy() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<u64>().prop_map(|v| v.to_string()),
            any::<u64>().prop_map(|v| format!("{v:#x}")),
            any::<u64>().prop_map(|v| format!("0{v:o}")),
            (0u64..5).prop_map(|v| v.to_string()),
            "0[xX]?[0-9a-fA-F]{0,18}",
            "[0-9]{1,22}",
            "[0-9a-zA-Z+ '-]{0,6}",
        ]
    }

    /// Text near the grammar, to reach deep into the parser.
    fn uri_like_strategy() -> impl Strategy<Value = String> {
        let scheme = prop_oneof![
            4 => Just("file://"),
            4 => Just("memory://"),
            1 => Just("FILE://"),
            1 => Just("file:/"),
            1 => Just("http://"),
            1 => Just(""),
        ];
        let body = prop_oneof![
            "[a-zA-Z0-9/._~-]{0,8}",
            "(/|[a-z]|%[0-9A-F]{2}|%[0-9a-fG]{0,2}|[ :=&\u{e9}])*",
            "[1-9][0-9]{0,6}",
            "0[0-9]{0,3}",
            "[0-9]{19,21}",
        ];
        let delimiter = prop_oneof![4 => Just("#"), 1 => Just("?"), 1 => Just("")];
        let param = (
            prop_oneof![
                4 => Just("offset"),
                4 => Just("size"),
                1 => Just("Offset"),
                1 => Just("x"),
                1 => Just(""),
            ],
            prop_oneof![8 => Just("="), 1 => Just("")],
            number_text_strategy(),
        )
            .prop_map(|(name, eq, number)| format!("{name}{eq}{number}"));
        let params = prop::collection::vec(param, 0..4).prop_map(|p| p.join("&"));
        let tail = prop_oneof![8 => Just(""), 1 => Just("&")];
        prop_oneof![
            any::<String>(),
            (scheme, body, delimiter, params, tail)
                .prop_map(|(s, b, d, p, t)| format!("{s}{b}{d}{p}{t}")),
            ("[0-9]{1,4}", number_text_strategy(), number_text_strategy())
                .prop_map(|(pid, o, z)| format!("memory://{pid}#offset={o}&size={z}")),
        ]
    }

    /// The fuzzing strategy reaches deep into the grammar: accepted URIs of
    /// both kinds and most error kinds, so `parse_never_panics` is not only
    /// exercising the scheme check.
    #[test]
    fn uri_like_strategy_reaches_the_grammar() {
        use proptest::strategy::ValueTree;
        use proptest::test_runner::TestRunner;
        use std::collections::HashSet;
        let mut runner = TestRunner::deterministic();
        let strategy = uri_like_strategy();
        let (mut files, mut memories) = (0, 0);
        let mut kinds = HashSet::new();
        for _ in 0..3_000 {
            let s = strategy.new_tree(&mut runner).expect("strategy").current();
            match parse(&s) {
                Ok(CodeObjectUri::File { .. }) => files += 1,
                Ok(CodeObjectUri::Memory { .. }) => memories += 1,
                Err(e) => {
                    kinds.insert(std::mem::discriminant(&e.kind));
                }
            }
        }
        assert!(
            files > 0 && memories > 0,
            "files {files}, memories {memories}"
        );
        assert!(
            kinds.len() >= 22,
            "only {} error kinds reached",
            kinds.len()
        );
    }

    proptest! {
        #[test]
        fn print_parse_round_trip(uri in uri_strategy()) {
            let text = uri.to_string();
            prop_assert_eq!(parse(&text), Ok(uri.clone()), "{}", text);
            // Every byte of the canonical path part is unreserved or in an
            // escape, and the text is ASCII.
            prop_assert!(text.is_ascii());
            if let CodeObjectUri::File { path, .. } = &uri {
                let encoded = encode_path(path);
                prop_assert!(encoded
                    .bytes()
                    .all(|b| is_unreserved(b) || b == b'%' || b.is_ascii_hexdigit()));
            }
        }

        #[test]
        fn parse_never_panics(s in uri_like_strategy()) {
            match parse(&s) {
                Ok(uri) => {
                    // Anything accepted reads back as itself from its
                    // canonical form.
                    let canonical = uri.to_string();
                    prop_assert_eq!(parse(&canonical), Ok(uri));
                }
                Err(e) => {
                    prop_assert!(e.pos <= s.len(), "{} > {}", e.pos, s.len());
                    prop_assert!(s.is_char_boundary(e.pos));
                    prop_assert!(!e.to_string().is_empty());
                }
            }
        }

        #[test]
        fn numbers_in_every_radix(v in any::<u64>(), pid in any::<u64>()) {
            // A size of 1 keeps every address in range.
            for text in [format!("{v}"), format!("{v:#x}"), format!("0X{v:X}"), format!("0{v:o}")] {
                let s = format!("memory://{pid}#offset={text}&size=1");
                prop_assert_eq!(parse(&s), Ok(memory(pid, v, 1)), "{}", s);
            }
        }
    }
}
