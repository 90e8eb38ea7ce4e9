//! The walk over one V2 mapping: duplicate and unknown keys, value types
//! and required keys.

use super::*;

/// A value whose type was checked.
#[derive(Debug, Clone)]
pub(super) enum Parsed<'d> {
    Str(&'d str),
    UInt(u64),
    Bool(bool),
    Ints(Vec<u64>),
    Strs(Vec<&'d str>),
    Map(&'d [Entry]),
    Maps(Vec<&'d [Entry]>),
}

/// The known keys of one mapping (by index in its table), with the offset
/// of each value, and the names of the other keys.
pub(super) struct Fields<'d> {
    pub(super) vals: Vec<Option<(Parsed<'d>, usize)>>,
    pub(super) other: Vec<String>,
}

impl<'d> Fields<'d> {
    pub(super) fn find(&self, defs: &[KeyDef], key: &str) -> Option<&(Parsed<'d>, usize)> {
        let i = defs.iter().position(|d| d.key == key)?;
        self.vals.get(i)?.as_ref()
    }
}

/// Looks a key up in a [`Fields`] by name; the tables are small.
pub(super) struct Get<'f, 'd> {
    pub(super) f: &'f Fields<'d>,
    pub(super) defs: &'static [KeyDef],
}

impl<'d> Get<'_, 'd> {
    pub(super) fn str(&self, key: &str) -> Option<&'d str> {
        match self.f.find(self.defs, key)? {
            (Parsed::Str(s), _) => Some(s),
            _ => None,
        }
    }
    pub(super) fn string(&self, key: &str) -> Option<String> {
        self.str(key).map(str::to_owned)
    }
    pub(super) fn uint(&self, key: &str) -> Option<u64> {
        match self.f.find(self.defs, key)? {
            (Parsed::UInt(u), _) => Some(*u),
            _ => None,
        }
    }
    pub(super) fn bool(&self, key: &str) -> Option<bool> {
        match self.f.find(self.defs, key)? {
            (Parsed::Bool(b), _) => Some(*b),
            _ => None,
        }
    }
    pub(super) fn ints(&self, key: &str) -> Option<Vec<u64>> {
        match self.f.find(self.defs, key)? {
            (Parsed::Ints(v), _) => Some(v.clone()),
            _ => None,
        }
    }
    pub(super) fn strs(&self, key: &str) -> Vec<&'d str> {
        match self.f.find(self.defs, key) {
            Some((Parsed::Strs(v), _)) => v.clone(),
            _ => Vec::new(),
        }
    }
    pub(super) fn map(&self, key: &str) -> Option<&'d [Entry]> {
        match self.f.find(self.defs, key)? {
            (Parsed::Map(m), _) => Some(m),
            _ => None,
        }
    }
    pub(super) fn maps(&self, key: &str) -> Vec<&'d [Entry]> {
        match self.f.find(self.defs, key) {
            Some((Parsed::Maps(v), _)) => v.clone(),
            _ => Vec::new(),
        }
    }
    /// Offset of the key's value in the YAML text.
    pub(super) fn at(&self, key: &str) -> Option<usize> {
        self.f.find(self.defs, key).map(|(_, o)| *o)
    }
}

pub(super) struct Checker<'s> {
    pub(super) base: u64,
    pub(super) ctx: &'s Context,
    pub(super) sink: &'s mut Sink,
}

/// Where one argument's fields are in the text, for messages.
pub(super) struct ArgAt {
    pub(super) size: Option<usize>,
    pub(super) align: Option<usize>,
    pub(super) value_type: Option<usize>,
    pub(super) pointee_align: Option<usize>,
    pub(super) addr_space_qual: Option<usize>,
    pub(super) is_pipe: Option<usize>,
    pub(super) map: usize,
}

impl Checker<'_> {
    pub(super) fn report(&mut self, rule: &'static Rule, at: Option<usize>, msg: String) {
        let off = at
            .and_then(|o| u64::try_from(o).ok())
            .and_then(|o| self.base.checked_add(o));
        match off {
            Some(o) => self.sink.report_at(rule, o, msg),
            None => self.sink.report(rule, msg),
        }
    }

    /// Walks one mapping: duplicate and unknown keys, value types, required
    /// keys. `what` names the mapping in messages.
    pub(super) fn scan<'d>(
        &mut self,
        entries: &'d [Entry],
        map_at: usize,
        defs: &'static [KeyDef],
        what: &str,
        missing: &'static Rule,
    ) -> Fields<'d> {
        let mut f = Fields {
            vals: defs.iter().map(|_| None).collect(),
            other: Vec::new(),
        };
        let mut seen: HashSet<&str> = HashSet::with_capacity(entries.len().min(64));
        for e in entries {
            let key = e.key.text.as_str();
            let first = seen.insert(key);
            if !first {
                self.report(
                    &DUPLICATE_KEY,
                    Some(e.key_offset),
                    format!("{what}: key {key:?} appears again (the last value counts)"),
                );
            }
            let Some(di) = defs.iter().position(|d| d.key == key) else {
                let vendor = key.find('.').is_some_and(|dot| dot > 0);
                self.report(
                    &KEY_UNKNOWN,
                    Some(e.key_offset),
                    if vendor {
                        format!("{what}: vendor key {key:?} (LLVM's reader rejects it)")
                    } else {
                        format!("{what}: unknown key {key:?}")
                    },
                );
                if first {
                    f.other.push(key.to_owned());
                }
                continue;
            };
            let Some(def) = defs.get(di) else { continue };
            let parsed = self.value(def, &e.value, what);
            if let Some(slot) = f.vals.get_mut(di) {
                // A badly typed repeat leaves the earlier good value; LLVM
                // would reject the document anyway.
                if let Some(p) = parsed {
                    *slot = Some((p, e.value.offset));
                }
            }
        }
        for def in defs {
            if def.required && !entries.iter().any(|e| e.key.text == def.key) {
                self.report(
                    missing,
                    Some(map_at),
                    format!("{what}: required key {} is missing", def.key),
                );
            }
        }
        f
    }

    /// Checks a value against its key's type.
    pub(super) fn value<'d>(
        &mut self,
        def: &KeyDef,
        node: &'d Node,
        what: &str,
    ) -> Option<Parsed<'d>> {
        let key = def.key;
        let at = Some(node.offset);
        let empty_ok = |n: &Node| match &n.value {
            Value::Empty => true,
            Value::Scalar(s) => s.is_plain_null(),
            _ => false,
        };
        match def.ty {
            Ty::Str | Ty::Enum(_) => {
                let s = self.scalar(node, what, key)?;
                if let Ty::Enum(values) = def.ty {
                    if !values.contains(&s) {
                        self.report(
                            &VALUE_ENUM,
                            at,
                            format!("{what}: {key} {s:?} is not one of {values:?}"),
                        );
                        return None;
                    }
                }
                Some(Parsed::Str(s))
            }
            Ty::UInt(max) => self.uint(node, what, key, max).map(Parsed::UInt),
            Ty::Bool => self.boolean(node, what, key).map(Parsed::Bool),
            Ty::Ints => {
                if empty_ok(node) {
                    return Some(Parsed::Ints(Vec::new()));
                }
                let Value::Seq(items) = &node.value else {
                    self.type_error(node, what, key, "a sequence of integers");
                    return None;
                };
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let k = format!("{key}[{i}]");
                    out.push(self.uint(item, what, &k, u64::from(u32::MAX))?);
                }
                Some(Parsed::Ints(out))
            }
            Ty::Strs => {
                if empty_ok(node) {
                    return Some(Parsed::Strs(Vec::new()));
                }
                let Value::Seq(items) = &node.value else {
                    self.type_error(node, what, key, "a sequence of strings");
                    return None;
                };
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    if let Some(s) = self.scalar(item, what, &format!("{key}[{i}]")) {
                        out.push(s);
                    }
                }
                Some(Parsed::Strs(out))
            }
            Ty::Map => {
                if empty_ok(node) {
                    return Some(Parsed::Map(&[]));
                }
                match &node.value {
                    Value::Map(m) => Some(Parsed::Map(m)),
                    _ => {
                        self.type_error(node, what, key, "a mapping");
                        None
                    }
                }
            }
            Ty::Maps => {
                if empty_ok(node) {
                    return Some(Parsed::Maps(Vec::new()));
                }
                let Value::Seq(items) = &node.value else {
                    self.type_error(node, what, key, "a sequence of mappings");
                    return None;
                };
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match &item.value {
                        Value::Map(m) => out.push(m.as_slice()),
                        _ => self.type_error(item, what, &format!("{key}[{i}]"), "a mapping"),
                    }
                }
                Some(Parsed::Maps(out))
            }
        }
    }

    pub(super) fn type_error(&mut self, node: &Node, what: &str, key: &str, want: &str) {
        self.report(
            &VALUE_TYPE,
            Some(node.offset),
            format!(
                "{what}: {key} should be {want}, found a {}",
                node.kind_name()
            ),
        );
    }

    /// The text of a non-empty scalar.
    pub(super) fn scalar<'d>(&mut self, node: &'d Node, what: &str, key: &str) -> Option<&'d str> {
        match &node.value {
            Value::Scalar(s) => Some(s.text.as_str()),
            _ => {
                self.type_error(node, what, key, "a scalar");
                None
            }
        }
    }

    pub(super) fn uint(&mut self, node: &Node, what: &str, key: &str, max: u64) -> Option<u64> {
        let Value::Scalar(s) = &node.value else {
            self.type_error(node, what, key, "an unsigned integer");
            return None;
        };
        let Some(v) = parse_yaml_uint(&s.text) else {
            self.report(
                &VALUE_TYPE,
                Some(node.offset),
                format!(
                    "{what}: {key} should be an unsigned integer, found {:?}",
                    s.text
                ),
            );
            return None;
        };
        if v > max {
            self.report(
                &VALUE_RANGE,
                Some(node.offset),
                format!("{what}: {key} {v} is larger than {max}, the most its field holds"),
            );
            return None;
        }
        if s.style != Style::Plain {
            self.report(
                &SCALAR_STYLE,
                Some(node.offset),
                format!("{what}: {key}: integer {v} written as a quoted string"),
            );
        }
        Some(v)
    }

    pub(super) fn boolean(&mut self, node: &Node, what: &str, key: &str) -> Option<bool> {
        let Value::Scalar(s) = &node.value else {
            self.type_error(node, what, key, "a boolean");
            return None;
        };
        let Some(b) = parse_yaml_bool(&s.text) else {
            self.report(
                &VALUE_TYPE,
                Some(node.offset),
                format!("{what}: {key} should be a boolean, found {:?}", s.text),
            );
            return None;
        };
        if s.style != Style::Plain || !matches!(s.text.as_str(), "true" | "false") {
            self.report(
                &SCALAR_STYLE,
                Some(node.offset),
                format!(
                    "{what}: {key}: boolean written as {:?}{}, not {b}",
                    s.text,
                    if s.style == Style::Plain {
                        ""
                    } else {
                        " (quoted)"
                    }
                ),
            );
        }
        Some(b)
    }

    pub(super) fn length(
        &mut self,
        v: &Option<Vec<u64>>,
        want: usize,
        at: Option<usize>,
        what: &str,
        key: &str,
    ) {
        if let Some(v) = v {
            if v.len() != want {
                self.report(
                    &VALUE_LENGTH,
                    at,
                    format!("{what}: {key} has {} integers, expected {want}", v.len()),
                );
            }
        }
    }
}
