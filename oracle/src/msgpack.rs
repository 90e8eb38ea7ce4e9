//! A small MessagePack decoder and encoder, enough for code object
//! metadata (`NT_AMDGPU_METADATA`).
//!
//! The decoder takes untrusted bytes: it never panics, limits nesting to
//! [`MAX_DEPTH`], and never reserves room for more elements than the
//! remaining input could hold (every element takes at least one byte), so a
//! header claiming 2^32 elements costs nothing until the bytes are there.
//!
//! The model keeps what the wire format says: signed and unsigned integer
//! formats stay apart ([`Value::Int`] vs [`Value::UInt`]), 32- and 64-bit
//! floats stay apart, strings are bytes (not necessarily UTF-8), and maps
//! keep their entries in order, duplicates included, so a checker can see
//! exactly what a producer wrote.
//!
//! The encoder picks the smallest form for each value, as LLVM's
//! `msgpack::Writer` does (`llvm/lib/BinaryFormat/MsgPackWriter.cpp`): it
//! writes non-negative integers in the unsigned formats, `str8` for strings
//! of 32..=255 bytes, fixext forms for ext payloads of 1, 2, 4, 8 and 16
//! bytes. Because non-negative integers from LLVM decode as
//! [`Value::UInt`], `encode(decode(b))` gives back `b` byte for byte for
//! anything LLVM writes. A non-negative [`Value::Int`] is encoded in the
//! smallest *signed* format so that it decodes as `Int` again.

use std::fmt;

/// Deepest nesting of arrays and maps [`decode`] accepts. Metadata nests
/// five levels (root map, kernel list, kernel map, argument list, argument
/// map); the limit only keeps recursion bounded on hostile input.
pub const MAX_DEPTH: usize = 64;

/// One MessagePack value.
#[derive(Debug, Clone)]
pub enum Value {
    /// `nil` (0xc0).
    Nil,
    /// `false` / `true` (0xc2 / 0xc3).
    Bool(bool),
    /// A signed format: negative fixint, int8, int16, int32 or int64.
    Int(i64),
    /// An unsigned format: positive fixint, uint8, uint16, uint32 or uint64.
    UInt(u64),
    /// float32.
    F32(f32),
    /// float64.
    F64(f64),
    /// A string (fixstr, str8/16/32); the bytes need not be UTF-8.
    Str(Vec<u8>),
    /// Binary data (bin8/16/32).
    Bin(Vec<u8>),
    /// An array.
    Array(Vec<Value>),
    /// A map, entries in wire order, duplicate keys kept.
    Map(Vec<(Value, Value)>),
    /// An extension value: type tag and payload.
    Ext(i8, Vec<u8>),
}

/// Values compare by wire meaning; floats compare by bit pattern, so a NaN
/// equals itself and `decode(encode(v)) == v` holds for every `v`.
impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Nil, Value::Nil) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::UInt(a), Value::UInt(b)) => a == b,
            (Value::F32(a), Value::F32(b)) => a.to_bits() == b.to_bits(),
            (Value::F64(a), Value::F64(b)) => a.to_bits() == b.to_bits(),
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Bin(a), Value::Bin(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => a == b,
            (Value::Map(a), Value::Map(b)) => a == b,
            (Value::Ext(ta, a), Value::Ext(tb, b)) => ta == tb && a == b,
            _ => false,
        }
    }
}
impl Eq for Value {}

impl Value {
    /// A string value from text.
    pub fn str(s: &str) -> Value {
        Value::Str(s.as_bytes().to_vec())
    }

    /// The string bytes, if this is a string.
    pub fn as_str_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The string as UTF-8 text, if this is a string holding valid UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        self.as_str_bytes()
            .and_then(|b| std::str::from_utf8(b).ok())
    }

    /// The value as an unsigned integer, if it is an integer of either
    /// signedness holding a non-negative value.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::UInt(u) => Some(u),
            Value::Int(i) => u64::try_from(i).ok(),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The entries, if this is a map.
    pub fn as_map(&self) -> Option<&[(Value, Value)]> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The value of the first entry whose key is the string `key`, if this
    /// is a map.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str_bytes() == Some(key.as_bytes()))
            .map(|(_, v)| v)
    }

    /// A short name of the value's kind, for messages (the names are
    /// [`Raw::kind_name`]'s, so both kinds of value say the same).
    pub fn kind_name(&self) -> &'static str {
        self.raw().kind_name()
    }

    /// This value as [`Raw`] has it: arrays and maps by their length.
    fn raw(&self) -> Raw<'_> {
        match self {
            Value::Nil => Raw::Nil,
            Value::Bool(b) => Raw::Bool(*b),
            Value::Int(i) => Raw::Int(*i),
            Value::UInt(u) => Raw::UInt(*u),
            Value::F32(f) => Raw::F32(*f),
            Value::F64(f) => Raw::F64(*f),
            Value::Str(s) => Raw::Str(s),
            Value::Bin(b) => Raw::Bin(b),
            Value::Array(a) => Raw::Array(a.len()),
            Value::Map(m) => Raw::Map(m.len()),
            Value::Ext(t, d) => Raw::Ext(*t, d),
        }
    }
}

/// Where each value of a decoded tree starts, mirroring the tree's shape:
/// for an array, one child per element; for a map, two children per entry
/// (key, then value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// Byte offset of the value's first (format) byte in the input.
    pub offset: usize,
    /// Spans of the elements (arrays) or of keys and values interleaved
    /// (maps); empty for scalars.
    pub children: Vec<Span>,
}

impl Span {
    /// Span of array element `i`.
    pub fn element(&self, i: usize) -> Option<&Span> {
        self.children.get(i)
    }

    /// Span of the key of map entry `i`.
    pub fn key(&self, i: usize) -> Option<&Span> {
        self.children.get(i.checked_mul(2)?)
    }

    /// Span of the value of map entry `i`.
    pub fn value(&self, i: usize) -> Option<&Span> {
        self.children.get(i.checked_mul(2)?.checked_add(1)?)
    }
}

/// What went wrong while decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeErrorKind {
    /// The input ended inside a value.
    Truncated,
    /// The byte 0xc1, which MessagePack never uses.
    InvalidByte(u8),
    /// Arrays and maps nest deeper than [`MAX_DEPTH`].
    TooDeep,
}

/// A decoding failure and the offset of the value where it happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeError {
    /// Offset of the byte at which decoding could not go on.
    pub offset: usize,
    /// What went wrong.
    pub kind: DecodeErrorKind,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            DecodeErrorKind::Truncated => {
                write!(f, "input ends inside a value at offset {}", self.offset)
            }
            DecodeErrorKind::InvalidByte(b) => {
                write!(f, "invalid format byte {b:#04x} at offset {}", self.offset)
            }
            DecodeErrorKind::TooDeep => write!(
                f,
                "arrays and maps nest deeper than {MAX_DEPTH} levels at offset {}",
                self.offset
            ),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Decodes the first value in `bytes`; returns it and the number of bytes
/// it took (the caller decides what trailing bytes mean).
pub fn decode(bytes: &[u8]) -> Result<(Value, usize), DecodeError> {
    let mut d = Decoder::new(bytes, false);
    let (v, _) = d.value(0)?;
    Ok((v, d.pos))
}

/// Like [`decode`], and also returns where every value starts.
pub fn decode_spanned(bytes: &[u8]) -> Result<(Value, Span, usize), DecodeError> {
    let mut d = Decoder::new(bytes, true);
    let (v, s) = d.value(0)?;
    Ok((v, s, d.pos))
}

/// One value as the wire has it, without copying: strings, binary data and
/// extension payloads borrow the input; arrays and maps carry only their
/// element (entry) count, their contents following in a [`Flat`] document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Raw<'a> {
    /// `nil`.
    Nil,
    /// `false` / `true`.
    Bool(bool),
    /// A signed integer format.
    Int(i64),
    /// An unsigned integer format.
    UInt(u64),
    /// float32.
    F32(f32),
    /// float64.
    F64(f64),
    /// A string's bytes (not necessarily UTF-8).
    Str(&'a [u8]),
    /// Binary data.
    Bin(&'a [u8]),
    /// An array of this many elements.
    Array(usize),
    /// A map of this many entries.
    Map(usize),
    /// An extension value: type tag and payload.
    Ext(i8, &'a [u8]),
}

impl<'a> Raw<'a> {
    /// The string bytes, if this is a string.
    pub fn as_str_bytes(&self) -> Option<&'a [u8]> {
        match *self {
            Raw::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A short name of the value's kind, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Raw::Nil => "nil",
            Raw::Bool(_) => "boolean",
            Raw::Int(_) => "signed integer",
            Raw::UInt(_) => "unsigned integer",
            Raw::F32(_) => "float32",
            Raw::F64(_) => "float64",
            Raw::Str(_) => "string",
            Raw::Bin(_) => "binary",
            Raw::Array(_) => "array",
            Raw::Map(_) => "map",
            Raw::Ext(..) => "extension",
        }
    }

    /// The owned [`Value`] of a scalar; `None` for arrays and maps.
    fn scalar(&self) -> Option<Value> {
        Some(match *self {
            Raw::Nil => Value::Nil,
            Raw::Bool(b) => Value::Bool(b),
            Raw::Int(i) => Value::Int(i),
            Raw::UInt(u) => Value::UInt(u),
            Raw::F32(f) => Value::F32(f),
            Raw::F64(f) => Value::F64(f),
            Raw::Str(s) => Value::Str(s.to_vec()),
            Raw::Bin(b) => Value::Bin(b.to_vec()),
            Raw::Ext(t, d) => Value::Ext(t, d.to_vec()),
            Raw::Array(_) | Raw::Map(_) => return None,
        })
    }
}

/// What kind of value an [`Item`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Nil,
    Bool,
    Int,
    UInt,
    F32,
    F64,
    Str,
    Bin,
    Array,
    Map,
    Ext,
}

/// One value of a [`Flat`] document, packed into 16 bytes (the walk over
/// a large document is bound by memory traffic): strings, binary data and
/// extension payloads are kept as a position in the input, and only
/// arrays and maps store where their subtree ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item {
    /// Scalars: the value's bits; strings, binary data, extensions: the
    /// payload's start (low half) and length (high half); arrays and maps:
    /// the element (entry) count (low half) and the index just past the
    /// subtree (high half).
    val: u64,
    offset: u32,
    kind: Kind,
    /// Extension type tag.
    tag: i8,
}

const _: () = assert!(std::mem::size_of::<Item>() == 16);

impl Item {
    /// Byte offset of the value's first (format) byte in the input.
    pub fn offset(&self) -> usize {
        self.offset as usize
    }

    /// Index just past this value's subtree, this item being item `index`:
    /// the next sibling's index (a scalar's is its own index plus one).
    pub fn end(&self, index: usize) -> usize {
        match self.kind {
            Kind::Array | Kind::Map => (self.val >> 32) as usize,
            _ => index.saturating_add(1),
        }
    }
}

/// A decoded value tree kept flat, in pre-order (a map's key comes before
/// its value), borrowing from the input. Decoding allocates one vector
/// instead of a node per value (and reuses the previous document's vector
/// on the same thread), and walking it needs no recursion: the children of
/// item `i` start at `i + 1` and each one's `end` is the index of the next.
#[derive(Debug, Clone, Default)]
pub struct Flat<'a> {
    bytes: &'a [u8],
    items: Vec<Item>,
    first_ext: Option<usize>,
    /// Bytes the value took.
    used: usize,
    /// How many items are maps.
    maps: usize,
}

thread_local! {
    /// The item vector of the last dropped [`Flat`] on this thread, kept
    /// for the next decode: fresh multi-megabyte vectors cost page faults.
    static SPARE: std::cell::Cell<Vec<Item>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Largest item vector kept for reuse (in items; 24 MiB).
const SPARE_MAX: usize = 1 << 20;

impl Drop for Flat<'_> {
    fn drop(&mut self) {
        let mine = std::mem::take(&mut self.items);
        if mine.capacity() > SPARE_MAX {
            return;
        }
        // `try_with`: the thread-local may already be gone at thread exit.
        let _ = SPARE.try_with(|s| {
            let other = s.take();
            s.set(if mine.capacity() >= other.capacity() {
                mine
            } else {
                other
            });
        });
    }
}

/// Decodes the first value in `bytes` into a [`Flat`] document; returns it
/// and the number of bytes it took. Accepts and rejects exactly what
/// [`decode`] does, with the same errors, for inputs up to `u32::MAX`
/// bytes (item offsets are 32-bit); of a longer input only that prefix is
/// read, so a value reaching past it is truncated. ELF note descriptions,
/// whose size field is 32-bit, always fit.
pub fn decode_flat(bytes: &[u8]) -> Result<(Flat<'_>, usize), DecodeError> {
    decode_flat_with(bytes, &[])
}

/// [`decode_flat`], taking each array or map whose encoding is one of
/// `templates` (decoded before, from any input) from the template rather
/// than decoding it again. The result is the same: an encoding is one
/// value, prefix-free, so bytes that start with a template's bytes start
/// with that very value. Tensile libraries carry one metadata note per
/// kernel with a handful of argument lists between thousands of notes.
pub fn decode_flat_with<'a>(
    bytes: &'a [u8],
    templates: &[Template<'_>],
) -> Result<(Flat<'a>, usize), DecodeError> {
    let bytes = bytes.get(..u32::MAX as usize).unwrap_or(bytes);
    let mut d = Decoder::new(bytes, false);
    let mut items = SPARE.try_with(|s| s.take()).unwrap_or_default();
    items.clear();
    // Metadata averages about eight bytes per value; reserving for that
    // (bounded by the input length) saves most of the growth copies. A
    // spare vector too small is dropped rather than grown: growing would
    // copy its whole old capacity.
    let want = bytes.len() / 8 + 1;
    if items.capacity() < want {
        items = Vec::with_capacity(want);
    }
    // The innermost open array or map: item index and values still to
    // come, kept in locals (a count in memory, decremented per value, made
    // a dependency chain through the store). Before the first container it
    // is the document itself, one value long, marked by index `usize::MAX`.
    let (mut cur, mut left) = (usize::MAX, 1usize);
    // The enclosing ones, outermost first (the document's marker at the
    // bottom), so `depth` is the number of open containers: a fixed
    // array, as the depth is bounded, saves an allocation per document.
    let mut open = [(usize::MAX, 1usize); MAX_DEPTH];
    let mut depth = 0usize;
    // Offsets and indices fit u32: the input does, and every item takes at
    // least one byte of it.
    let narrow = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
    let mut maps = 0usize;
    loop {
        let start = d.pos;
        let idx = items.len();
        if let Some(t) = template_at(bytes, start, depth, templates) {
            // The value, placed here; then it is complete (below).
            let (at, first) = (narrow(start), narrow(idx));
            items.extend(t.items.iter().map(|it| it.placed(at, first)));
            maps += t.maps;
            d.pos = start + t.bytes.len();
        } else {
            // The formats metadata is made of, decoded inline; everything else
            // (and any truncated value) goes through `head`.
            let fast = match bytes.get(start).copied() {
                Some(b @ 0x00..=0x7f) => Some((Kind::UInt, u64::from(b), None, 1)),
                Some(b @ 0xa0..=0xbf) => {
                    let len = usize::from(b & 0x1f);
                    (start + 1 + len <= bytes.len()).then(|| {
                        let val = (start + 1) as u64 | (len as u64) << 32;
                        (Kind::Str, val, None, 1 + len)
                    })
                }
                Some(0xd9) => bytes.get(start + 1).and_then(|&l| {
                    let len = usize::from(l);
                    (start + 2 + len <= bytes.len()).then(|| {
                        let val = (start + 2) as u64 | (len as u64) << 32;
                        (Kind::Str, val, None, 2 + len)
                    })
                }),
                Some(b @ 0x80..=0x8f) => {
                    let n = usize::from(b & 0x0f);
                    Some((Kind::Map, n as u64, Some(2 * n), 1))
                }
                Some(b @ 0x90..=0x9f) => {
                    let n = usize::from(b & 0x0f);
                    Some((Kind::Array, n as u64, Some(n), 1))
                }
                Some(b @ (0xc2 | 0xc3)) => Some((Kind::Bool, u64::from(b & 1), None, 1)),
                _ => None,
            };
            let (kind, val, tag, children) = if let Some((kind, val, children, len)) = fast {
                d.pos = start + len;
                (kind, val, 0, children)
            } else {
                let raw = d.head()?;
                let payload = |p: &[u8]| (d.pos - p.len()) as u64 | (p.len() as u64) << 32;
                match raw {
                    Raw::Nil => (Kind::Nil, 0, 0, None),
                    Raw::Bool(b) => (Kind::Bool, u64::from(b), 0, None),
                    Raw::Int(i) => (Kind::Int, i as u64, 0, None),
                    Raw::UInt(u) => (Kind::UInt, u, 0, None),
                    Raw::F32(f) => (Kind::F32, u64::from(f.to_bits()), 0, None),
                    Raw::F64(f) => (Kind::F64, f.to_bits(), 0, None),
                    Raw::Str(p) => (Kind::Str, payload(p), 0, None),
                    Raw::Bin(p) => (Kind::Bin, payload(p), 0, None),
                    Raw::Ext(t, p) => (Kind::Ext, payload(p), t, None),
                    Raw::Array(n) => (Kind::Array, n as u64, 0, Some(n)),
                    Raw::Map(n) => (Kind::Map, n as u64, 0, Some(n.saturating_mul(2))),
                }
            };
            if children.is_some() && depth >= MAX_DEPTH {
                return Err(d.err(start, DecodeErrorKind::TooDeep));
            }
            // A container's end starts as its own index plus one (right for an
            // empty one) and is set when its last value is read.
            let val = match children {
                Some(_) => (val & 0xffff_ffff) | u64::from(narrow(idx + 1)) << 32,
                None => val,
            };
            items.push(Item {
                val,
                offset: narrow(start),
                kind,
                tag,
            });
            maps += usize::from(kind == Kind::Map);
            if let Some(n) = children.filter(|&n| n > 0) {
                if let Some(slot) = open.get_mut(depth) {
                    *slot = (cur, left);
                }
                depth += 1;
                (cur, left) = (idx, n);
                continue;
            }
        }
        // A value is complete: count it against the open containers,
        // closing each one whose last value this was.
        loop {
            left -= 1;
            if left > 0 {
                break;
            }
            if cur == usize::MAX {
                return Ok((
                    Flat {
                        bytes,
                        items,
                        first_ext: d.first_ext,
                        used: d.pos,
                        maps,
                    },
                    d.pos,
                ));
            }
            let end = u64::from(narrow(items.len()));
            if let Some(it) = items.get_mut(cur) {
                it.val = (it.val & 0xffff_ffff) | end << 32;
            }
            // The document's marker is always below an open container.
            depth = depth.saturating_sub(1);
            (cur, left) = open.get(depth).copied().unwrap_or((usize::MAX, 1));
        }
    }
}

/// An array or map decoded before, kept for [`decode_flat_with`]: its
/// encoding, and its items placed as if it were a whole document (offsets
/// from its first byte, indices from its first item).
#[derive(Debug, Clone)]
pub struct Template<'a> {
    bytes: &'a [u8],
    items: Vec<Item>,
    /// How many of the items are maps.
    maps: usize,
    /// Containers open at its deepest point, itself included.
    depth: usize,
}

/// The template whose encoding starts at `start`, if one can be placed at
/// nesting `depth` within [`MAX_DEPTH`] (else the value is decoded, and
/// refused, as usual).
#[inline]
fn template_at<'t, 'b>(
    bytes: &[u8],
    start: usize,
    depth: usize,
    templates: &'t [Template<'b>],
) -> Option<&'t Template<'b>> {
    if templates.is_empty() {
        return None;
    }
    // Only arrays and maps are templates: most values are passed over on
    // their first byte.
    let first = *bytes.get(start)?;
    if !matches!(first, 0x80..=0x9f | 0xdc..=0xdf) {
        return None;
    }
    let rest = bytes.get(start..)?;
    templates
        .iter()
        .find(|t| rest.starts_with(t.bytes) && depth + t.depth <= MAX_DEPTH)
}

impl Item {
    /// This item of a [`Template`], placed at byte offset `at` and item
    /// index `first`.
    #[inline]
    fn placed(self, at: u32, first: u32) -> Item {
        let low = self.val & 0xffff_ffff;
        let high = self.val >> 32;
        let val = match self.kind {
            Kind::Str | Kind::Bin | Kind::Ext => (low + u64::from(at)) | high << 32,
            Kind::Array | Kind::Map => low | (high + u64::from(first)) << 32,
            _ => self.val,
        };
        Item {
            val,
            offset: self.offset + at,
            ..self
        }
    }

    /// The inverse of [`Item::placed`].
    fn unplaced(self, at: u32, first: u32) -> Option<Item> {
        let low = self.val & 0xffff_ffff;
        let high = self.val >> 32;
        let val = match self.kind {
            Kind::Str | Kind::Bin | Kind::Ext => low.checked_sub(u64::from(at))? | high << 32,
            Kind::Array | Kind::Map => low | high.checked_sub(u64::from(first))? << 32,
            _ => self.val,
        };
        Some(Item {
            val,
            offset: self.offset.checked_sub(at)?,
            ..self
        })
    }
}

impl<'a> Flat<'a> {
    /// Item `i` and its subtree as a [`Template`], if it is an array or a
    /// map with no extension value in it (a document's first extension is
    /// recorded while decoding; metadata has none).
    pub fn template(&self, i: usize) -> Option<Template<'a>> {
        let root = self.items.get(i)?;
        if !matches!(root.kind, Kind::Array | Kind::Map) {
            return None;
        }
        let bytes = self.subtree_bytes(i)?;
        let sub = self.items.get(i..root.end(i))?;
        let (at, first) = (root.offset, u32::try_from(i).ok()?);
        // Ends of the containers open at each item, to find the depth.
        let mut ends: Vec<usize> = Vec::new();
        let (mut maps, mut depth) = (0, 0);
        let mut items = Vec::with_capacity(sub.len());
        for (j, it) in sub.iter().enumerate() {
            while ends.last().is_some_and(|&e| e <= i + j) {
                ends.pop();
            }
            match it.kind {
                Kind::Ext => return None,
                Kind::Array | Kind::Map => {
                    ends.push(it.end(i + j));
                    depth = depth.max(ends.len());
                    maps += usize::from(it.kind == Kind::Map);
                }
                _ => {}
            }
            items.push(it.unplaced(at, first)?);
        }
        Some(Template {
            bytes,
            items,
            maps,
            depth,
        })
    }

    /// Every value, in pre-order; the root is item 0.
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// Item `i`.
    pub fn get(&self, i: usize) -> Option<&Item> {
        self.items.get(i)
    }

    /// The value of item `i`.
    #[inline]
    pub fn raw(&self, i: usize) -> Option<Raw<'a>> {
        let it = self.items.get(i)?;
        let payload = || {
            let start = (it.val & 0xffff_ffff) as usize;
            let len = (it.val >> 32) as usize;
            self.bytes.get(start..start.checked_add(len)?)
        };
        Some(match it.kind {
            Kind::Nil => Raw::Nil,
            Kind::Bool => Raw::Bool(it.val != 0),
            Kind::Int => Raw::Int(it.val as i64),
            Kind::UInt => Raw::UInt(it.val),
            Kind::F32 => Raw::F32(f32::from_bits(it.val as u32)),
            Kind::F64 => Raw::F64(f64::from_bits(it.val)),
            Kind::Str => Raw::Str(payload()?),
            Kind::Bin => Raw::Bin(payload()?),
            Kind::Ext => Raw::Ext(it.tag, payload()?),
            Kind::Array => Raw::Array((it.val & 0xffff_ffff) as usize),
            Kind::Map => Raw::Map((it.val & 0xffff_ffff) as usize),
        })
    }

    /// Whether item `i` is a map.
    pub fn is_map(&self, i: usize) -> bool {
        self.items.get(i).is_some_and(|it| it.kind == Kind::Map)
    }

    /// Byte offset of item `i` in the input.
    pub fn offset(&self, i: usize) -> Option<usize> {
        self.items.get(i).map(Item::offset)
    }

    /// Offset of the format byte of the first extension value in pre-order.
    pub fn first_ext(&self) -> Option<usize> {
        self.first_ext
    }

    /// How many items are maps.
    pub fn map_count(&self) -> usize {
        self.maps
    }

    /// The encoded bytes of item `i` and its subtree. Two subtrees with
    /// the same bytes decode to the same items, in the same order.
    pub fn subtree_bytes(&self, i: usize) -> Option<&'a [u8]> {
        let start = self.items.get(i)?.offset();
        let end = match self.items.get(self.items.get(i)?.end(i)) {
            Some(next) => next.offset(),
            None => self.used,
        };
        self.bytes.get(start..end)
    }

    /// Indices of the direct children of item `i`: array elements, or map
    /// keys and values interleaved. Empty for scalars.
    pub fn children(&self, i: usize) -> Children<'_> {
        let (next, end) = match self.items.get(i) {
            Some(it) => (i.saturating_add(1), it.end(i)),
            None => (0, 0),
        };
        Children {
            items: &self.items,
            next,
            end,
        }
    }

    /// (key, value) index pairs of the map at item `i`; empty if it is no map.
    pub fn entries(&self, i: usize) -> Entries<'_> {
        let mut c = self.children(i);
        if !self.is_map(i) {
            c.end = 0;
        }
        Entries(c)
    }

    /// The value index of the first entry of map `i` whose key is the
    /// string `key`.
    pub fn map_get(&self, i: usize, key: &str) -> Option<usize> {
        self.entries(i)
            .find(|&(k, _)| self.raw(k).and_then(|r| r.as_str_bytes()) == Some(key.as_bytes()))
            .map(|(_, v)| v)
    }

    /// Item `i` and its subtree as an owned [`Value`] and its [`Span`].
    pub fn to_value(&self, i: usize) -> Option<(Value, Span)> {
        let offset = self.offset(i)?;
        let mut children = Vec::new();
        let v = match self.raw(i)? {
            Raw::Array(_) => {
                let mut elems = Vec::new();
                for c in self.children(i) {
                    let (v, s) = self.to_value(c)?;
                    elems.push(v);
                    children.push(s);
                }
                Value::Array(elems)
            }
            Raw::Map(_) => {
                let mut entries = Vec::new();
                for (k, v) in self.entries(i) {
                    let (kv, ks) = self.to_value(k)?;
                    let (vv, vs) = self.to_value(v)?;
                    entries.push((kv, vv));
                    children.push(ks);
                    children.push(vs);
                }
                Value::Map(entries)
            }
            r => r.scalar()?,
        };
        Some((v, Span { offset, children }))
    }
}

/// Iterator over the children of one [`Flat`] item.
#[derive(Debug, Clone)]
pub struct Children<'f> {
    items: &'f [Item],
    next: usize,
    end: usize,
}

impl Iterator for Children<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        if self.next >= self.end {
            return None;
        }
        let i = self.next;
        // `end` always lies past the item itself; `max` only guards the
        // loop against a malformed document.
        self.next = self.items.get(i)?.end(i).max(i.saturating_add(1));
        Some(i)
    }
}

/// Iterator over the (key, value) index pairs of one [`Flat`] map.
#[derive(Debug, Clone)]
pub struct Entries<'f>(Children<'f>);

impl Iterator for Entries<'_> {
    type Item = (usize, usize);
    fn next(&mut self) -> Option<(usize, usize)> {
        let k = self.0.next()?;
        let v = self.0.next()?;
        Some((k, v))
    }
}

struct Decoder<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Whether to build [`Span`]s (skipped by plain [`decode`]).
    spans: bool,
    /// Offset of the first extension value decoded so far.
    first_ext: Option<usize>,
}

impl<'a> Decoder<'a> {
    fn new(bytes: &'a [u8], spans: bool) -> Self {
        Decoder {
            bytes,
            pos: 0,
            spans,
            first_ext: None,
        }
    }

    fn err(&self, offset: usize, kind: DecodeErrorKind) -> DecodeError {
        DecodeError { offset, kind }
    }

    fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let bytes = self.bytes;
        let s = self
            .pos
            .checked_add(n)
            .and_then(|e| bytes.get(self.pos..e))
            .ok_or(DecodeError {
                offset: self.pos,
                kind: DecodeErrorKind::Truncated,
            })?;
        self.pos += n;
        Ok(s)
    }

    fn be<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let s = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.be::<1>()?[0])
    }
    fn u16(&mut self) -> Result<u16, DecodeError> {
        Ok(u16::from_be_bytes(self.be()?))
    }
    fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.be()?))
    }
    fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_be_bytes(self.be()?))
    }

    fn ext(&mut self, start: usize, len: usize) -> Result<Raw<'a>, DecodeError> {
        if self.first_ext.is_none() {
            // The format byte (and any length) precede the tag; values are
            // decoded in pre-order, so the first one seen is the first.
            self.first_ext = Some(start);
        }
        let tag = self.u8()? as i8;
        Ok(Raw::Ext(tag, self.take(len)?))
    }

    /// Reads one value's format byte and, for a scalar, its payload; for an
    /// array or map, only its header (the elements follow).
    fn head(&mut self) -> Result<Raw<'a>, DecodeError> {
        let start = self.pos;
        let b = self.u8()?;
        Ok(match b {
            0x00..=0x7f => Raw::UInt(u64::from(b)),
            0x80..=0x8f => Raw::Map(usize::from(b & 0x0f)),
            0x90..=0x9f => Raw::Array(usize::from(b & 0x0f)),
            0xa0..=0xbf => Raw::Str(self.take(usize::from(b & 0x1f))?),
            0xc0 => Raw::Nil,
            0xc1 => return Err(self.err(start, DecodeErrorKind::InvalidByte(b))),
            0xc2 => Raw::Bool(false),
            0xc3 => Raw::Bool(true),
            0xc4 => {
                let n = usize::from(self.u8()?);
                Raw::Bin(self.take(n)?)
            }
            0xc5 => {
                let n = usize::from(self.u16()?);
                Raw::Bin(self.take(n)?)
            }
            0xc6 => {
                let n = self.len32()?;
                Raw::Bin(self.take(n)?)
            }
            0xc7 => {
                let n = usize::from(self.u8()?);
                self.ext(start, n)?
            }
            0xc8 => {
                let n = usize::from(self.u16()?);
                self.ext(start, n)?
            }
            0xc9 => {
                let n = self.len32()?;
                self.ext(start, n)?
            }
            0xca => Raw::F32(f32::from_bits(self.u32()?)),
            0xcb => Raw::F64(f64::from_bits(self.u64()?)),
            0xcc => Raw::UInt(u64::from(self.u8()?)),
            0xcd => Raw::UInt(u64::from(self.u16()?)),
            0xce => Raw::UInt(u64::from(self.u32()?)),
            0xcf => Raw::UInt(self.u64()?),
            0xd0 => Raw::Int(i64::from(self.u8()? as i8)),
            0xd1 => Raw::Int(i64::from(self.u16()? as i16)),
            0xd2 => Raw::Int(i64::from(self.u32()? as i32)),
            0xd3 => Raw::Int(self.u64()? as i64),
            0xd4 => self.ext(start, 1)?,
            0xd5 => self.ext(start, 2)?,
            0xd6 => self.ext(start, 4)?,
            0xd7 => self.ext(start, 8)?,
            0xd8 => self.ext(start, 16)?,
            0xd9 => {
                let n = usize::from(self.u8()?);
                Raw::Str(self.take(n)?)
            }
            0xda => {
                let n = usize::from(self.u16()?);
                Raw::Str(self.take(n)?)
            }
            0xdb => {
                let n = self.len32()?;
                Raw::Str(self.take(n)?)
            }
            0xdc => Raw::Array(usize::from(self.u16()?)),
            0xdd => Raw::Array(self.len32()?),
            0xde => Raw::Map(usize::from(self.u16()?)),
            0xdf => Raw::Map(self.len32()?),
            0xe0..=0xff => Raw::Int(i64::from(b as i8)),
        })
    }

    fn value(&mut self, depth: usize) -> Result<(Value, Span), DecodeError> {
        let start = self.pos;
        let v = match self.head()? {
            Raw::Array(n) => return self.array(n, start, depth),
            Raw::Map(n) => return self.map(n, start, depth),
            r => r.scalar().unwrap_or(Value::Nil),
        };
        Ok((
            v,
            Span {
                offset: start,
                children: Vec::new(),
            },
        ))
    }

    fn len32(&mut self) -> Result<usize, DecodeError> {
        // On a 32-bit host a length that does not fit usize cannot fit the
        // input either.
        let at = self.pos;
        usize::try_from(self.u32()?).map_err(|_| self.err(at, DecodeErrorKind::Truncated))
    }

    fn enter(&self, depth: usize, start: usize) -> Result<usize, DecodeError> {
        if depth >= MAX_DEPTH {
            return Err(self.err(start, DecodeErrorKind::TooDeep));
        }
        Ok(depth + 1)
    }

    fn array(
        &mut self,
        n: usize,
        start: usize,
        depth: usize,
    ) -> Result<(Value, Span), DecodeError> {
        let depth = self.enter(depth, start)?;
        // Each element takes at least one byte.
        let cap = n.min(self.remaining());
        let mut items = Vec::with_capacity(cap);
        let mut spans = Vec::with_capacity(if self.spans { cap } else { 0 });
        for _ in 0..n {
            let (v, s) = self.value(depth)?;
            items.push(v);
            if self.spans {
                spans.push(s);
            }
        }
        Ok((
            Value::Array(items),
            Span {
                offset: start,
                children: spans,
            },
        ))
    }

    fn map(&mut self, n: usize, start: usize, depth: usize) -> Result<(Value, Span), DecodeError> {
        let depth = self.enter(depth, start)?;
        // Each entry takes at least two bytes.
        let cap = n.min(self.remaining() / 2);
        let mut entries = Vec::with_capacity(cap);
        let mut spans = Vec::with_capacity(if self.spans { cap.saturating_mul(2) } else { 0 });
        for _ in 0..n {
            let (k, ks) = self.value(depth)?;
            let (v, vs) = self.value(depth)?;
            entries.push((k, v));
            if self.spans {
                spans.push(ks);
                spans.push(vs);
            }
        }
        Ok((
            Value::Map(entries),
            Span {
                offset: start,
                children: spans,
            },
        ))
    }
}

/// Encodes `v` in the smallest form for each value (see the module docs).
///
/// Lengths above `u32::MAX` cannot be expressed in MessagePack; such a
/// string, array or map is written with its length truncated to 32 bits
/// (no real input can produce one: the decoder only builds what fits in
/// the bytes it was given).
pub fn encode(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    encode_into(v, &mut out);
    out
}

/// Appends the encoding of `v` to `out`.
pub fn encode_into(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Nil => out.push(0xc0),
        Value::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
        Value::UInt(u) => put_uint(*u, out),
        Value::Int(i) => put_int(*i, out),
        Value::F32(f) => {
            out.push(0xca);
            out.extend_from_slice(&f.to_bits().to_be_bytes());
        }
        Value::F64(f) => {
            out.push(0xcb);
            out.extend_from_slice(&f.to_bits().to_be_bytes());
        }
        Value::Str(s) => {
            let n = s.len();
            if n <= 31 {
                out.push(0xa0 | n as u8);
            } else {
                put_len(n, [None, Some(0xd9), Some(0xda), Some(0xdb)], out);
            }
            out.extend_from_slice(s);
        }
        Value::Bin(b) => {
            put_len(b.len(), [None, Some(0xc4), Some(0xc5), Some(0xc6)], out);
            out.extend_from_slice(b);
        }
        Value::Array(a) => {
            if a.len() <= 15 {
                out.push(0x90 | a.len() as u8);
            } else {
                put_len(a.len(), [None, None, Some(0xdc), Some(0xdd)], out);
            }
            for e in a {
                encode_into(e, out);
            }
        }
        Value::Map(m) => {
            if m.len() <= 15 {
                out.push(0x80 | m.len() as u8);
            } else {
                put_len(m.len(), [None, None, Some(0xde), Some(0xdf)], out);
            }
            for (k, e) in m {
                encode_into(k, out);
                encode_into(e, out);
            }
        }
        Value::Ext(tag, data) => {
            match data.len() {
                1 => out.push(0xd4),
                2 => out.push(0xd5),
                4 => out.push(0xd6),
                8 => out.push(0xd7),
                16 => out.push(0xd8),
                n => put_len(n, [None, Some(0xc7), Some(0xc8), Some(0xc9)], out),
            }
            out.push(*tag as u8);
            out.extend_from_slice(data);
        }
    }
}

/// Writes a length header using the first format (8-, 16- or 32-bit
/// length; index 1, 2, 3 of `formats`) that exists and holds `n`.
fn put_len(n: usize, formats: [Option<u8>; 4], out: &mut Vec<u8>) {
    if let (Some(f), Ok(b)) = (formats[1], u8::try_from(n)) {
        out.push(f);
        out.push(b);
    } else if let (Some(f), Ok(h)) = (formats[2], u16::try_from(n)) {
        out.push(f);
        out.extend_from_slice(&h.to_be_bytes());
    } else if let Some(f) = formats[3] {
        out.push(f);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
}

fn put_uint(u: u64, out: &mut Vec<u8>) {
    if u <= 0x7f {
        out.push(u as u8);
    } else if let Ok(b) = u8::try_from(u) {
        out.extend_from_slice(&[0xcc, b]);
    } else if let Ok(h) = u16::try_from(u) {
        out.push(0xcd);
        out.extend_from_slice(&h.to_be_bytes());
    } else if let Ok(w) = u32::try_from(u) {
        out.push(0xce);
        out.extend_from_slice(&w.to_be_bytes());
    } else {
        out.push(0xcf);
        out.extend_from_slice(&u.to_be_bytes());
    }
}

fn put_int(i: i64, out: &mut Vec<u8>) {
    if (-32..0).contains(&i) {
        out.push(i as i8 as u8);
    } else if let Ok(b) = i8::try_from(i) {
        out.extend_from_slice(&[0xd0, b as u8]);
    } else if let Ok(h) = i16::try_from(i) {
        out.push(0xd1);
        out.extend_from_slice(&h.to_be_bytes());
    } else if let Ok(w) = i32::try_from(i) {
        out.push(0xd2);
        out.extend_from_slice(&w.to_be_bytes());
    } else {
        out.push(0xd3);
        out.extend_from_slice(&i.to_be_bytes());
    }
}

#[cfg(test)]
#[path = "msgpack_tests.rs"]
mod tests;
