//! The values of one map's keys after their kinds were checked, and the
//! small helpers that name keys and compare them.

use super::*;

/// A key's value after its kind was checked. `Copy`, so that storing one
/// needs no drop of the slot's old value (which made the compiler spill
/// and reload each value, stalling, in profiles).
#[derive(Clone, Copy)]
pub(super) enum Parsed<'a> {
    /// The string's bytes; turned into text (lossily, as
    /// `String::from_utf8_lossy` does) only when asked for, since most
    /// strings are only kind-checked.
    /// With the index of the value in the key's list of allowed values,
    /// if it has one and the value is in it.
    Str(&'a [u8], Option<u8>),
    UInt(u64),
    Bool(bool),
    /// Up to three integers (the longest `Shape::Ints`) and how many.
    Ints([u64; 3], u8),
    /// The array; its elements that are strings are the values.
    Strs(Node),
    /// The array; its elements that are maps are the entries.
    Maps(Node),
}

/// The known keys found in one map, by index in the level's table, and the
/// others' names. Reused from map to map ([`Fields::reset`] clears only
/// the slots that were filled): arguments are counted in millions.
pub(super) struct Fields<'a, const N: usize> {
    pub(super) found: [Option<Parsed<'a>>; N],
    /// Where each filled slot's value is.
    pub(super) nodes: Nodes<N>,
    /// Bit `k`: slot `k` is filled.
    pub(super) filled: u64,
    pub(super) other: Vec<String>,
}

impl<'a, const N: usize> Fields<'a, N> {
    pub(super) fn new() -> Self {
        Fields {
            found: std::array::from_fn(|_| None),
            nodes: Nodes([NO_NODE; N]),
            filled: 0,
            other: Vec::new(),
        }
    }
    /// Empties the slots filled by the last map.
    pub(super) fn reset(&mut self) {
        let mut bits = self.filled;
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            if let Some(slot) = self.found.get_mut(k) {
                *slot = None;
            }
            if let Some(n) = self.nodes.0.get_mut(k) {
                *n = NO_NODE;
            }
            bits &= bits - 1;
        }
        self.filled = 0;
        self.other.clear();
    }
    pub(super) fn set(&mut self, k: usize, p: Parsed<'a>, n: Node) {
        if let (Some(slot), Some(node)) = (self.found.get_mut(k), self.nodes.0.get_mut(k)) {
            *slot = Some(p);
            *node = narrow_node(n);
            self.filled |= 1u64 << (k % 64);
        }
    }
    pub(super) fn get(&self, k: usize) -> Option<&Parsed<'a>> {
        self.found.get(k)?.as_ref()
    }
    pub(super) fn node(&self, k: usize) -> Option<Node> {
        self.nodes.get(k)
    }
    pub(super) fn bytes(&self, k: usize) -> Option<&'a [u8]> {
        match self.get(k)? {
            Parsed::Str(s, _) => Some(s),
            _ => None,
        }
    }
    /// Index of a string value in its key's allowed values.
    pub(super) fn value_index(&self, k: usize) -> Option<usize> {
        match self.get(k)? {
            Parsed::Str(_, i) => i.map(usize::from),
            _ => None,
        }
    }
    pub(super) fn text(&self, k: usize) -> Option<Cow<'a, str>> {
        self.bytes(k).map(lossy)
    }
    pub(super) fn uint(&self, k: usize) -> Option<u64> {
        match self.get(k)? {
            Parsed::UInt(u) => Some(*u),
            _ => None,
        }
    }
    pub(super) fn bool(&self, k: usize) -> Option<bool> {
        match self.get(k)? {
            Parsed::Bool(b) => Some(*b),
            _ => None,
        }
    }
    pub(super) fn ints<const M: usize>(&self, k: usize) -> Option<[u64; M]> {
        match self.get(k)? {
            Parsed::Ints(v, n) if usize::from(*n) == M => v.get(..M)?.try_into().ok(),
            _ => None,
        }
    }
    /// The string elements of a `Shape::Strs` value in `doc`.
    pub(super) fn strs(&self, k: usize, doc: &Flat<'a>) -> Vec<String> {
        match self.get(k) {
            Some(Parsed::Strs(n)) => doc
                .children(*n)
                .filter_map(|e| doc.raw(e)?.as_str_bytes())
                .map(|b| lossy(b).into_owned())
                .collect(),
            _ => Vec::new(),
        }
    }
    pub(super) fn maps(&self, k: usize) -> Option<Node> {
        match self.get(k) {
            Some(Parsed::Maps(n)) => Some(*n),
            _ => None,
        }
    }
}

/// An absent entry of [`Nodes`].
pub(super) const NO_NODE: u32 = u32::MAX;

/// A node index as stored in [`Nodes`]: indices fit 32 bits, since a
/// document has at most one item per input byte and inputs are below 4 GiB.
pub(super) fn narrow_node(n: Node) -> u32 {
    u32::try_from(n).unwrap_or(NO_NODE)
}

/// Where each known key's value is, by index in the level's table, kept
/// after the parsed values are taken ([`NO_NODE`]: absent or of the wrong
/// kind).
#[derive(Clone, Copy)]
pub(super) struct Nodes<const N: usize>(pub(super) [u32; N]);

impl<const N: usize> Nodes<N> {
    pub(super) fn get(&self, k: usize) -> Option<Node> {
        self.0
            .get(k)
            .copied()
            .filter(|&n| n != NO_NODE)
            .map(|n| n as usize)
    }

    /// The nodes as offsets from `base`, an item before all of them.
    pub(super) fn relative_to(mut self, base: Node) -> Self {
        let base = narrow_node(base);
        for n in self.0.iter_mut().filter(|n| **n != NO_NODE) {
            *n = n.checked_sub(base).unwrap_or(NO_NODE);
        }
        self
    }

    /// Nodes made by [`Nodes::relative_to`], placed after `base`.
    pub(super) fn placed_at(mut self, base: Node) -> Self {
        let base = narrow_node(base);
        for n in self.0.iter_mut().filter(|n| **n != NO_NODE) {
            *n = n.checked_add(base).unwrap_or(NO_NODE);
        }
        self
    }
}

/// Names a key (or one element of its array value) in messages; written
/// out only when a message is actually made, since nearly every key is
/// fine.
#[derive(Clone, Copy)]
pub(super) struct KeyCtx<'w> {
    pub(super) what: &'w dyn fmt::Display,
    pub(super) key: &'static str,
    pub(super) index: Option<usize>,
}

impl<'w> KeyCtx<'w> {
    pub(super) fn at(self, i: usize) -> KeyCtx<'w> {
        KeyCtx {
            index: Some(i),
            ..self
        }
    }
}

impl fmt::Display for KeyCtx<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.what, self.key)?;
        if let Some(i) = self.index {
            write!(f, "[{i}]")?;
        }
        Ok(())
    }
}

/// Names argument `index` of a kernel in messages (`kernel 0 (k) arg 2`);
/// written out only when a message is made.
pub(super) struct ArgWhat<'w> {
    pub(super) kernel: &'w dyn fmt::Display,
    pub(super) index: usize,
}

impl fmt::Display for ArgWhat<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} arg {}", self.kernel, self.index)
    }
}

/// Names kernel `index` in messages (`kernel 3 (name)`); written out only
/// when a message is made.
pub(super) struct KernelWhat<'a> {
    pub(super) index: usize,
    pub(super) label: Option<Cow<'a, str>>,
}

impl fmt::Display for KernelWhat<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.label {
            Some(n) => write!(f, "kernel {} ({n})", self.index),
            None => write!(f, "kernel {}", self.index),
        }
    }
}

/// The keys of one map seen so far, for duplicate detection with the
/// equality of [`key_fingerprint`]: known keys in a bit set by table
/// index, other string keys by their bytes, other kinds by fingerprint.
/// Strings never equal non-strings, and a known key never equals an
/// unknown one, so the three sets are disjoint.
pub(super) struct SeenKeys<'a> {
    pub(super) known: u64,
    pub(super) unknown: Vec<&'a [u8]>,
    pub(super) unknown_many: HashSet<&'a [u8]>,
    pub(super) non_str: HashSet<Vec<u8>>,
}

impl<'a> SeenKeys<'a> {
    /// Beyond this many unknown keys (only hostile input has them), hash.
    pub(super) const LINEAR_MAX: usize = 64;

    pub(super) fn new() -> Self {
        SeenKeys {
            known: 0,
            unknown: Vec::new(),
            unknown_many: HashSet::new(),
            non_str: HashSet::new(),
        }
    }

    /// Records known key `di`; false if it was recorded before.
    pub(super) fn known(&mut self, di: usize) -> bool {
        let bit = 1u64 << (di % 64);
        let new = self.known & bit == 0;
        self.known |= bit;
        new
    }

    /// Records an unknown string key; false if it was recorded before.
    pub(super) fn unknown(&mut self, k: &'a [u8]) -> bool {
        if self.unknown.len() < Self::LINEAR_MAX {
            if self.unknown.contains(&k) {
                return false;
            }
            self.unknown.push(k);
            true
        } else {
            !self.unknown.contains(&k) && self.unknown_many.insert(k)
        }
    }
}

/// `String::from_utf8_lossy`, taking the faster validation path first:
/// nearly every metadata string is valid UTF-8.
pub(super) fn lossy(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(b),
    }
}

/// Index of `b` in `values`, comparing lengths and last bytes before
/// whole strings (many names share long prefixes).
pub(super) fn bytes_index(values: &[&str], b: &[u8]) -> Option<usize> {
    values.iter().position(|v| key_eq(v.as_bytes(), b))
}

/// `a == b` for the short names of the metadata (keys, enumerated values):
/// compares the first and last 8 (or 4) bytes as words, which covers the
/// whole of strings up to 16 bytes, before any byte-wise comparison; a
/// call to `memcmp` for each of them showed in profiles.
pub(super) fn key_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n >= 8 {
        let word = |x: &[u8], at: usize| x.get(at..at + 8).map_or(0, le64);
        word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8) && (n <= 16 || a == b)
    } else if n >= 4 {
        let word = |x: &[u8], at: usize| {
            x.get(at..at + 4)
                .and_then(|w| <[u8; 4]>::try_from(w).ok())
                .map_or(0, u32::from_le_bytes)
        };
        word(a, 0) == word(b, 0) && word(a, n - 4) == word(b, n - 4)
    } else {
        a == b
    }
}

/// A byte string identifying a map key the way LLVM's `msgpack::Document`
/// compares keys: by kind and value, with both float widths read as double.
pub(super) fn key_fingerprint(k: &Value) -> Vec<u8> {
    pub(super) fn widen(v: &Value) -> Value {
        match v {
            Value::F32(f) => Value::F64(f64::from(*f)),
            Value::Array(a) => Value::Array(a.iter().map(widen).collect()),
            Value::Map(m) => Value::Map(m.iter().map(|(a, b)| (widen(a), widen(b))).collect()),
            other => other.clone(),
        }
    }
    match k {
        Value::Str(s) => {
            // The common case, without cloning through `widen`.
            let mut out = vec![0xa0];
            out.extend_from_slice(s);
            out
        }
        other => msgpack::encode(&widen(other)),
    }
}

pub(super) fn show_key(k: Raw<'_>) -> String {
    match k.as_str_bytes() {
        Some(b) => format!("{:?}", String::from_utf8_lossy(b)),
        None => format!("<{}>", k.kind_name()),
    }
}
