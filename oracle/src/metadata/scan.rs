//! The walk over one map: duplicate keys, key classification, value
//! kinds and required keys.

use super::*;

pub(super) struct Checker<'s, 'a> {
    pub(super) base: u64,
    pub(super) ctx: &'s Context,
    pub(super) sink: &'s mut Sink,
    pub(super) doc: &'s Flat<'a>,
    /// Whether to build the owned [`Metadata`] model.
    pub(super) full: bool,
    /// Per [`Level`], per entry position: the table index of the known key
    /// last found there.
    pub(super) hints: [[u8; HINTS]; 3],
    /// Argument lists checked before in the object.
    pub(super) memo: &'s mut Memo<'a>,
    /// Findings reported so far (kept or not).
    pub(super) reports: usize,
}

/// Map entry positions with a key hint (more than any level has keys).
pub(super) const HINTS: usize = 40;

impl<'a> Checker<'_, 'a> {
    pub(super) fn raw(&self, n: Node) -> Raw<'a> {
        self.doc.raw(n).unwrap_or(Raw::Nil)
    }

    pub(super) fn report(&mut self, rule: &'static Rule, node: Option<Node>, msg: String) {
        self.report_lazy(rule, node, || msg);
    }

    /// [`Checker::report`] with a message made only if the sink keeps the
    /// finding (for info rules that fire on every argument).
    pub(super) fn report_lazy(
        &mut self,
        rule: &'static Rule,
        node: Option<Node>,
        msg: impl FnOnce() -> String,
    ) {
        let at = node
            .and_then(|n| self.doc.offset(n))
            .and_then(|o| u64::try_from(o).ok())
            .and_then(|o| self.base.checked_add(o));
        self.reports += 1;
        self.sink.report_lazy(rule, at, msg);
    }

    /// Walks one map: duplicate keys, key classification, value kinds,
    /// required keys. `what` names the map in messages.
    pub(super) fn scan<const N: usize>(
        &mut self,
        map: Node,
        level: Level,
        what: &dyn fmt::Display,
        fields: &mut Fields<'a, N>,
    ) {
        fields.reset();
        if !matches!(self.raw(map), Raw::Map(_)) {
            return;
        }
        let doc = self.doc;
        let mut seen = SeenKeys::new();
        let defs = level.defs();
        let mut present = 0u64;
        for (pos, (kn, vn)) in doc.entries(map).enumerate() {
            let k = self.raw(kn);
            let Some(kb) = k.as_str_bytes() else {
                // A non-string key: compare by fingerprint (rare).
                let fp = doc
                    .to_value(kn)
                    .map(|(v, _)| key_fingerprint(&v))
                    .unwrap_or_default();
                if !seen.non_str.insert(fp) {
                    self.report(
                        &DUPLICATE_KEY,
                        Some(kn),
                        format!("{what}: key {} appears again", show_key(k)),
                    );
                    continue;
                }
                self.report(
                    &KEY_UNPREFIXED,
                    Some(kn),
                    format!("{what}: key is a {}, not a string", k.kind_name()),
                );
                fields.other.push(show_key(k));
                continue;
            };
            // LLVM writes keys in a fixed order: try the key found at this
            // position of the previous map of the level first.
            let slot = self
                .hints
                .get_mut(level as usize)
                .and_then(|h| h.get_mut(pos));
            let hinted = slot
                .as_deref()
                .map(|&h| usize::from(h))
                .filter(|&h| defs.get(h).is_some_and(|d| key_eq(d.key.as_bytes(), kb)));
            let di = hinted.or_else(|| {
                let di = defs.iter().position(|d| key_eq(d.key.as_bytes(), kb))?;
                if let (Some(slot), Ok(h)) = (slot, u8::try_from(di)) {
                    *slot = h;
                }
                Some(di)
            });
            let new = match di {
                Some(di) => seen.known(di),
                None => seen.unknown(kb),
            };
            if !new {
                self.report(
                    &DUPLICATE_KEY,
                    Some(kn),
                    format!("{what}: key {} appears again", show_key(k)),
                );
                continue;
            }
            let Some((di, def)) = di.and_then(|di| Some((di, defs.get(di)?))) else {
                let text = String::from_utf8_lossy(kb).into_owned();
                self.classify_unknown(kn, level, what, &text);
                fields.other.push(text);
                continue;
            };
            present |= 1u64 << (di % 64);
            if self.ctx.cov < def.since {
                self.report(
                    &KEY_VERSION,
                    Some(kn),
                    format!(
                        "{what}: {} is defined from code object {}, this object is {}",
                        def.key, def.since, self.ctx.cov
                    ),
                );
            }
            let _ = self.parse(def, vn, what, fields, di);
        }
        let mut missing = level.required() & !present;
        while missing != 0 {
            let di = missing.trailing_zeros() as usize;
            missing &= missing - 1;
            if let Some(def) = defs.get(di) {
                self.report(
                    level.missing_rule(),
                    Some(map),
                    format!("{what}: required key {} is missing", def.key),
                );
            }
        }
    }

    pub(super) fn classify_unknown(
        &mut self,
        kn: Node,
        level: Level,
        what: &dyn fmt::Display,
        text: &str,
    ) {
        if text.starts_with(level.namespace()) {
            self.report(
                &KEY_UNKNOWN,
                Some(kn),
                format!("{what}: unknown key {text:?}"),
            );
        } else if text.find('.').is_some_and(|dot| dot > 0) {
            self.report(
                &KEY_VENDOR,
                Some(kn),
                format!("{what}: vendor key {text:?}"),
            );
        } else {
            self.report(
                &KEY_UNPREFIXED,
                Some(kn),
                format!("{what}: key {text:?} has no vendor prefix"),
            );
        }
    }

    /// Checks a value against its key's shape and stores it in slot `di`
    /// of `fields`; reports and returns `None` if it does not fit. (Storing
    /// here rather than returning the value saves a trip through memory
    /// per key, which showed in profiles.)
    pub(super) fn parse<const N: usize>(
        &mut self,
        def: &KeyDef,
        n: Node,
        what: &dyn fmt::Display,
        fields: &mut Fields<'a, N>,
        di: usize,
    ) -> Option<()> {
        let ctx = KeyCtx {
            what,
            key: def.key,
            index: None,
        };
        let doc = self.doc;
        let mut p = match def.shape {
            Shape::Str => Parsed::Str(self.str_bytes(n, &ctx)?, None),
            Shape::UInt => Parsed::UInt(self.uint(n, &ctx)?),
            Shape::Bool => Parsed::Bool(self.boolean(n, &ctx)?),
            Shape::Ints(len) => {
                let count = self.array(n, &ctx)?;
                if count != len {
                    self.report(
                        &VALUE_TYPE,
                        Some(n),
                        format!("{ctx}: expected {len} integers, found {count}"),
                    );
                    return None;
                }
                let mut out = [0u64; 3];
                for (i, e) in doc.children(n).enumerate() {
                    let u = self.uint(e, &ctx.at(i))?;
                    if let Some(slot) = out.get_mut(i) {
                        *slot = u;
                    }
                }
                Parsed::Ints(out, u8::try_from(len).unwrap_or(u8::MAX))
            }
            Shape::Strs => {
                self.array(n, &ctx)?;
                // Elements that are no strings are reported here and left
                // out by `Fields::strs`.
                for (i, e) in doc.children(n).enumerate() {
                    let _ = self.str_bytes(e, &ctx.at(i));
                }
                Parsed::Strs(n)
            }
            Shape::Maps => {
                self.array(n, &ctx)?;
                for (i, e) in doc.children(n).enumerate() {
                    let r = self.raw(e);
                    if !matches!(r, Raw::Map(_)) {
                        self.report(
                            &VALUE_TYPE,
                            Some(e),
                            format!("{ctx}[{i}]: expected a map, found a {}", r.kind_name()),
                        );
                    }
                }
                Parsed::Maps(n)
            }
        };
        if let (Some(values), Parsed::Str(b, index)) = (def.values, &mut p) {
            // The values are ASCII: bytes that match are valid UTF-8, and
            // invalid UTF-8 matches none before or after lossy decoding.
            match bytes_index(values, b) {
                Some(i) => *index = u8::try_from(i).ok(),
                None => self.report(
                    &VALUE_ENUM,
                    Some(n),
                    format!("{ctx}: {:?} is not one of {values:?}", lossy(b)),
                ),
            }
        }
        fields.set(di, p, n);
        Some(())
    }

    /// The element count, if `n` is an array.
    pub(super) fn array(&mut self, n: Node, ctx: &KeyCtx<'_>) -> Option<usize> {
        match self.raw(n) {
            Raw::Array(len) => Some(len),
            other => {
                self.report(
                    &VALUE_TYPE,
                    Some(n),
                    format!("{ctx}: expected an array, found a {}", other.kind_name()),
                );
                None
            }
        }
    }

    /// The bytes of a string value (reported if `n` is no string).
    #[inline]
    pub(super) fn str_bytes(&mut self, n: Node, ctx: &KeyCtx<'_>) -> Option<&'a [u8]> {
        match self.raw(n) {
            Raw::Str(b) => Some(b),
            other => self.not_str(n, other, ctx),
        }
    }

    /// The uncommon half of [`Checker::str_bytes`], kept out of line.
    #[inline(never)]
    pub(super) fn not_str(
        &mut self,
        n: Node,
        other: Raw<'a>,
        ctx: &KeyCtx<'_>,
    ) -> Option<&'a [u8]> {
        match other {
            Raw::Str(b) => Some(b),
            other => {
                self.report(
                    &VALUE_TYPE,
                    Some(n),
                    format!("{ctx}: expected a string, found a {}", other.kind_name()),
                );
                None
            }
        }
    }

    #[inline]
    pub(super) fn uint(&mut self, n: Node, ctx: &KeyCtx<'_>) -> Option<u64> {
        match self.raw(n) {
            Raw::UInt(u) => Some(u),
            other => self.uint_other(n, other, ctx),
        }
    }

    /// The uncommon half of [`Checker::uint`], kept out of line.
    #[inline(never)]
    pub(super) fn uint_other(&mut self, n: Node, other: Raw<'a>, ctx: &KeyCtx<'_>) -> Option<u64> {
        match other {
            Raw::UInt(u) => Some(u),
            Raw::Int(i) => match u64::try_from(i) {
                Ok(u) => Some(u),
                Err(_) => {
                    self.report(&VALUE_TYPE, Some(n), format!("{ctx}: negative value {i}"));
                    None
                }
            },
            Raw::Str(b) => match std::str::from_utf8(b).ok().and_then(parse_yaml_uint) {
                Some(u) => {
                    self.report(
                        &STRING_SCALAR,
                        Some(n),
                        format!("{ctx}: integer {u} written as a string"),
                    );
                    Some(u)
                }
                None => {
                    self.report(
                        &VALUE_TYPE,
                        Some(n),
                        format!(
                            "{ctx}: expected an integer, found the string {:?}",
                            String::from_utf8_lossy(b)
                        ),
                    );
                    None
                }
            },
            other => {
                self.report(
                    &VALUE_TYPE,
                    Some(n),
                    format!("{ctx}: expected an integer, found a {}", other.kind_name()),
                );
                None
            }
        }
    }

    pub(super) fn boolean(&mut self, n: Node, ctx: &KeyCtx<'_>) -> Option<bool> {
        match self.raw(n) {
            Raw::Bool(b) => Some(b),
            Raw::Str(s) => match std::str::from_utf8(s).ok().and_then(parse_yaml_bool) {
                Some(b) => {
                    self.report(
                        &STRING_SCALAR,
                        Some(n),
                        format!("{ctx}: boolean {b} written as a string"),
                    );
                    Some(b)
                }
                None => {
                    self.report(
                        &VALUE_TYPE,
                        Some(n),
                        format!(
                            "{ctx}: expected a boolean, found the string {:?}",
                            String::from_utf8_lossy(s)
                        ),
                    );
                    None
                }
            },
            other => {
                self.report(
                    &VALUE_TYPE,
                    Some(n),
                    format!("{ctx}: expected a boolean, found a {}", other.kind_name()),
                );
                None
            }
        }
    }
}

impl Checker<'_, '_> {
    /// `metadata.duplicate_key` in the maps the schema walk does not visit
    /// (vendor extensions and values nested in them): LLVM's reader, and
    /// comgr's with it, rejects a repeated key in any map, not only in the
    /// root, kernel and argument maps.
    pub(super) fn nested_duplicate_keys(&mut self) {
        let doc = self.doc;
        // The schema walk descends only into arrays of maps: a kernel list
        // or argument list of another kind (a map of maps, say) is reported
        // as the wrong type and its maps are left to this walk.
        let is_array = |n: Node| matches!(doc.raw(n), Some(Raw::Array(_)));
        let walk = |visit: &mut dyn FnMut(Node)| {
            visit(0);
            if let Some(ks) = doc
                .map_get(0, kname!(root "amdhsa.kernels"))
                .filter(|&n| is_array(n))
            {
                for k in doc.children(ks).filter(|&k| doc.is_map(k)) {
                    visit(k);
                    if let Some(args) = doc
                        .map_get(k, kname!(kernel ".args"))
                        .filter(|&n| is_array(n))
                    {
                        doc.children(args)
                            .filter(|&a| doc.is_map(a))
                            .for_each(&mut *visit);
                    }
                }
            }
        };
        // The walked maps are distinct: when they are all the maps, as in
        // what LLVM writes, there is nothing else to look at.
        let mut count = 0;
        walk(&mut |_| count += 1);
        if count == doc.map_count() {
            return;
        }
        let mut walked: Vec<Node> = Vec::with_capacity(count);
        walk(&mut |m| walked.push(m));
        walked.sort_unstable();
        let mut seen: HashSet<Vec<u8>> = HashSet::new();
        for map in (0..doc.items().len()).filter(|&i| doc.is_map(i)) {
            if walked.binary_search(&map).is_ok() {
                continue;
            }
            seen.clear();
            for (kn, _) in doc.entries(map) {
                // Strings by their bytes, anything else by the value.
                let key = match doc.raw(kn) {
                    Some(r) => match r.as_str_bytes() {
                        Some(b) => [b"s".as_slice(), b].concat(),
                        None => [
                            b"v".as_slice(),
                            &doc.to_value(kn)
                                .map(|(v, _)| key_fingerprint(&v))
                                .unwrap_or_default(),
                        ]
                        .concat(),
                    },
                    None => continue,
                };
                if !seen.insert(key) {
                    let shown = doc.raw(kn).map(show_key).unwrap_or_default();
                    self.report(
                        &DUPLICATE_KEY,
                        Some(kn),
                        format!("a nested map: key {shown} appears again"),
                    );
                }
            }
        }
    }
}
