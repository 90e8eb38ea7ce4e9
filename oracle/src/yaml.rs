//! A small YAML reader for code object V2 metadata (the text of the
//! `NT_AMD_HSA_METADATA` note).
//!
//! It reads what LLVM's YAML writer produces (`llvm/lib/Support/YAMLTraits.cpp`
//! output as used by `HSAMD::toString`) and the hand-written YAML people put
//! in `.amd_amdgpu_hsa_metadata` blocks: block mappings and sequences
//! (including sequences indented like their parent key), flow sequences
//! and mappings that may span lines, plain, single-quoted and double-quoted
//! scalars on one line, comments, a `%YAML` directive and the `---` / `...`
//! document markers.
//!
//! It rejects, with an [`Error`] of kind [`ErrorKind::Unsupported`], valid
//! YAML it does not read: anchors, aliases and tags (so no "billion laughs"
//! expansion can happen), block scalars (`|`, `>`), scalars continued on
//! the next line, complex keys (`?`), collections as keys, more than one
//! document, and nesting deeper than [`MAX_DEPTH`]. Input that is not YAML
//! at all gets [`ErrorKind::Syntax`].
//!
//! Guarantees: it never panics, its recursion is bounded by [`MAX_DEPTH`],
//! and its time and memory are linear in the input length (every line is
//! scanned a bounded number of times, every node consumes input).

use std::fmt;

/// Deepest nesting of collections the reader accepts (the root counts as
/// level 1). LLVM's V2 metadata nests four levels deep.
pub const MAX_DEPTH: usize = 64;

/// One node of the document, with the byte offset where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Byte offset of the node's first character in the input (for an
    /// empty value: where the value would have been).
    pub offset: usize,
    /// The node's content.
    pub value: Value,
}

/// The content of a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// No value at all (`key:` with nothing after it, or an empty
    /// document). A plain `~` or `null` is a [`Value::Scalar`]; whether it
    /// means "null" depends on what the reader expects.
    Empty,
    /// A scalar.
    Scalar(Scalar),
    /// A block or flow sequence.
    Seq(Vec<Node>),
    /// A block or flow mapping, entries in input order (duplicates kept).
    Map(Vec<Entry>),
}

/// A scalar and how it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scalar {
    /// The value after unquoting and unescaping.
    pub text: String,
    /// How it was written.
    pub style: Style,
}

impl Scalar {
    /// True for a plain scalar that YAML reads as null (`~`, `null`,
    /// `Null`, `NULL`).
    pub fn is_plain_null(&self) -> bool {
        self.style == Style::Plain && matches!(self.text.as_str(), "~" | "null" | "Null" | "NULL")
    }
}

/// The style of a scalar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Unquoted.
    Plain,
    /// `'...'`.
    SingleQuoted,
    /// `"..."`.
    DoubleQuoted,
}

/// One mapping entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The key (always a scalar).
    pub key: Scalar,
    /// Byte offset of the key.
    pub key_offset: usize,
    /// The value.
    pub value: Node,
}

impl Node {
    /// The entries, if this is a mapping.
    pub fn as_map(&self) -> Option<&[Entry]> {
        match &self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The scalar, if this is one.
    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.value {
            Value::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// A short name of the node's kind, for messages.
    pub fn kind_name(&self) -> &'static str {
        match &self.value {
            Value::Empty => "empty value",
            Value::Scalar(_) => "scalar",
            Value::Seq(_) => "sequence",
            Value::Map(_) => "mapping",
        }
    }
}

/// Why the reader gave up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input is not well-formed YAML.
    Syntax,
    /// Well-formed YAML that this reader does not support.
    Unsupported,
}

/// A reader error: where, what kind, and a message for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// Byte offset of the problem in the input.
    pub offset: usize,
    /// Syntax error or unsupported feature.
    pub kind: ErrorKind,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.message, self.offset)
    }
}

type Result<T> = std::result::Result<T, Error>;

fn syntax<T>(offset: usize, message: impl Into<String>) -> Result<T> {
    Err(Error {
        offset,
        kind: ErrorKind::Syntax,
        message: message.into(),
    })
}

fn unsupported<T>(offset: usize, message: impl Into<String>) -> Result<T> {
    Err(Error {
        offset,
        kind: ErrorKind::Unsupported,
        message: message.into(),
    })
}

/// Parses one YAML document. The whole input must be that document
/// (comments, blank lines and a final `...` may follow it).
pub fn parse(input: &[u8]) -> Result<Node> {
    let text = match std::str::from_utf8(input) {
        Ok(t) => t,
        Err(e) => return syntax(e.valid_up_to(), "not valid UTF-8"),
    };
    if let Some(at) = input
        .iter()
        .position(|&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f)
    {
        return syntax(at, "control character (YAML allows only tab, LF and CR)");
    }
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
        depth: 0,
    };
    p.document()
}

/// A content line found by [`Parser::peek`].
#[derive(Debug, Clone, Copy)]
enum Line {
    /// A line with content: its indentation (columns) and where the
    /// content starts.
    Content { indent: usize, at: usize },
    /// `---` at column 0.
    DocStart { at: usize },
    /// `...` at column 0.
    DocEnd { at: usize },
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    /// Always at the start of a line between block constructs.
    pos: usize,
    depth: usize,
}

fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn is_break(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// True for a plain scalar (which the next, deeper line could continue).
fn is_plain_scalar(n: &Node) -> bool {
    matches!(&n.value, Value::Scalar(s) if s.style == Style::Plain)
}

impl<'a> Parser<'a> {
    fn byte(&self, i: usize) -> Option<u8> {
        self.s.get(i).copied()
    }

    /// True if `i` is at the end of a line (or of the input).
    fn at_eol(&self, i: usize) -> bool {
        self.byte(i).is_none_or(is_break)
    }

    /// Skips blanks within the line.
    fn skip_ws(&self, mut i: usize) -> usize {
        while self.byte(i).is_some_and(is_ws) {
            i += 1;
        }
        i
    }

    /// True if only blanks and perhaps a comment (which must follow a
    /// blank) remain on the line at `i`.
    fn rest_is_blank(&self, i: usize) -> bool {
        let j = self.skip_ws(i);
        self.at_eol(j) || (self.byte(j) == Some(b'#') && j > i)
    }

    /// The start of the line after the one containing `i`.
    fn next_line(&self, mut i: usize) -> usize {
        while let Some(b) = self.byte(i) {
            i += 1;
            if b == b'\n' {
                return i;
            }
            if b == b'\r' {
                if self.byte(i) == Some(b'\n') {
                    i += 1;
                }
                return i;
            }
        }
        i
    }

    /// The column of byte `i` (bytes since the start of its line).
    fn column(&self, i: usize) -> usize {
        let head = self.s.get(..i).unwrap_or(self.s);
        match head.iter().rposition(|&b| is_break(b)) {
            Some(nl) => i - nl - 1,
            None => i,
        }
    }

    /// Finds the next content line from `self.pos` (a line start), moving
    /// `self.pos` past blank and comment-only lines. `None` at the end.
    fn peek(&mut self) -> Result<Option<Line>> {
        loop {
            let start = self.pos;
            if start >= self.s.len() {
                return Ok(None);
            }
            let mut i = start;
            while self.byte(i) == Some(b' ') {
                i += 1;
            }
            let first = self.byte(i);
            if first.is_none_or(is_break) || first == Some(b'#') {
                self.pos = self.next_line(start);
                continue;
            }
            if first == Some(b'\t') {
                let j = self.skip_ws(i);
                if self.at_eol(j) || self.byte(j) == Some(b'#') {
                    self.pos = self.next_line(start);
                    continue;
                }
                return syntax(i, "tab character in indentation");
            }
            if i == start {
                for (marker, doc_start) in [(b"---", true), (b"...", false)] {
                    if self.s.get(start..start + 3) == Some(marker.as_slice())
                        && self.byte(start + 3).is_none_or(|b| is_ws(b) || is_break(b))
                    {
                        return Ok(Some(if doc_start {
                            Line::DocStart { at: start }
                        } else {
                            Line::DocEnd { at: start }
                        }));
                    }
                }
            }
            return Ok(Some(Line::Content {
                indent: i - start,
                at: i,
            }));
        }
    }

    /// Requires the rest of the line at `i` to be blank or a comment, then
    /// moves to the next line.
    fn finish_line(&mut self, i: usize) -> Result<()> {
        let j = self.skip_ws(i);
        if !(self.at_eol(j) || (self.byte(j) == Some(b'#') && j > i)) {
            return syntax(j, "unexpected text after a value");
        }
        self.pos = self.next_line(j);
        Ok(())
    }

    fn enter(&mut self, at: usize) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return unsupported(at, format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn document(&mut self) -> Result<Node> {
        if self.text.starts_with('\u{feff}') {
            self.pos = '\u{feff}'.len_utf8();
        }
        // Directives, then an optional `---`.
        let mut line = self.peek()?;
        let mut directives = false;
        while let Some(Line::Content { indent: 0, at }) = line {
            if self.byte(at) != Some(b'%') {
                break;
            }
            let rest = self.s.get(at..).unwrap_or_default();
            if !(rest.starts_with(b"%YAML") && rest.get(5).is_some_and(|&b| is_ws(b))) {
                return unsupported(at, "directives other than %YAML (tags) are not supported");
            }
            directives = true;
            self.pos = self.next_line(at);
            line = self.peek()?;
        }
        match line {
            Some(Line::DocStart { at }) => {
                if !self.rest_is_blank(at + 3) {
                    return unsupported(at + 3, "content on the --- line is not supported");
                }
                self.pos = self.next_line(at + 3);
            }
            _ if directives => {
                let at = self.pos;
                return syntax(at, "a directive must be followed by ---");
            }
            _ => {}
        }
        let root = match self.peek()? {
            None | Some(Line::DocStart { .. }) | Some(Line::DocEnd { .. }) => Node {
                offset: self.pos,
                value: Value::Empty,
            },
            Some(Line::Content { indent, at }) => self.block_node(at, indent)?,
        };
        match self.peek()? {
            None => Ok(root),
            Some(Line::DocEnd { at }) => {
                if !self.rest_is_blank(at + 3) {
                    return syntax(at + 3, "unexpected text after ...");
                }
                self.pos = self.next_line(at + 3);
                match self.peek()? {
                    None => Ok(root),
                    Some(Line::DocStart { at }) => {
                        unsupported(at, "more than one document is not supported")
                    }
                    Some(Line::DocEnd { at }) | Some(Line::Content { at, .. }) => {
                        syntax(at, "content after the end of the document")
                    }
                }
            }
            Some(Line::DocStart { at }) => {
                unsupported(at, "more than one document is not supported")
            }
            Some(Line::Content { at, .. }) => syntax(at, "unexpected indentation"),
        }
    }

    /// Rejects node starts this reader does not support.
    fn check_node_start(&self, at: usize) -> Result<()> {
        let next_is_space = self.byte(at + 1).is_none_or(|b| is_ws(b) || is_break(b));
        match self.byte(at) {
            Some(b'&') => unsupported(at, "anchors are not supported"),
            Some(b'*') => unsupported(at, "aliases are not supported"),
            Some(b'!') => unsupported(at, "tags are not supported"),
            Some(b'|') | Some(b'>') => unsupported(at, "block scalars are not supported"),
            Some(b'?') if next_is_space => unsupported(at, "complex keys (?) are not supported"),
            Some(b'@') | Some(b'`') => syntax(at, "reserved indicator at the start of a scalar"),
            Some(b'%') => syntax(at, "directive indicator inside the document"),
            _ => Ok(()),
        }
    }

    /// A node in block context starting at byte `at`, at column `indent`
    /// (`at` may be in the middle of a line, after `- `). Leaves `self.pos`
    /// at the start of the next unconsumed line.
    fn block_node(&mut self, at: usize, indent: usize) -> Result<Node> {
        self.check_node_start(at)?;
        let b = self.byte(at);
        if b == Some(b'-') && self.byte(at + 1).is_none_or(|c| is_ws(c) || is_break(c)) {
            return self.block_seq(at, indent);
        }
        if matches!(b, Some(b'[') | Some(b'{')) {
            let (node, end) = self.flow_node(at)?;
            let j = self.skip_ws(end);
            if self.byte(j) == Some(b':') {
                return unsupported(at, "a collection as a mapping key is not supported");
            }
            self.finish_line(end)?;
            return Ok(node);
        }
        let (scalar, end) = self.inline_scalar(at, false)?;
        let j = self.skip_ws(end);
        if self.byte(j) == Some(b':') && self.byte(j + 1).is_none_or(|c| is_ws(c) || is_break(c)) {
            return self.block_map(at, indent, scalar, j + 1);
        }
        self.finish_line(end)?;
        Ok(Node {
            offset: at,
            value: Value::Scalar(scalar),
        })
    }

    fn block_seq(&mut self, at: usize, indent: usize) -> Result<Node> {
        self.enter(at)?;
        let mut items = Vec::new();
        let mut dash = at;
        loop {
            let after = self.skip_ws(dash + 1);
            let item = if self.at_eol(after) || (self.byte(after) == Some(b'#') && after > dash + 1)
            {
                self.pos = self.next_line(after);
                match self.peek()? {
                    Some(Line::Content { indent: i, at: a }) if i > indent => {
                        self.block_node(a, i)?
                    }
                    _ => Node {
                        offset: dash + 1,
                        value: Value::Empty,
                    },
                }
            } else {
                let col = self.column(after);
                self.block_node(after, col)?
            };
            items.push(item);
            match self.peek()? {
                Some(Line::Content { indent: i, at: a }) if i == indent => {
                    if self.byte(a) == Some(b'-')
                        && self.byte(a + 1).is_none_or(|c| is_ws(c) || is_break(c))
                    {
                        dash = a;
                        continue;
                    }
                    break;
                }
                Some(Line::Content { indent: i, at: a }) if i > indent => {
                    return if items.last().is_some_and(is_plain_scalar) {
                        unsupported(
                            a,
                            "plain scalars continued on the next line are not supported",
                        )
                    } else {
                        syntax(a, "unexpected indentation in a sequence")
                    };
                }
                _ => break,
            }
        }
        self.leave();
        Ok(Node {
            offset: at,
            value: Value::Seq(items),
        })
    }

    /// A block mapping whose first key (`key`, at `at`) was already read;
    /// `colon_end` is just after its `:`.
    fn block_map(
        &mut self,
        at: usize,
        indent: usize,
        first_key: Scalar,
        colon_end: usize,
    ) -> Result<Node> {
        self.enter(at)?;
        let mut entries = Vec::new();
        let mut key = first_key;
        let mut key_at = at;
        let mut after = colon_end;
        loop {
            let v = self.skip_ws(after);
            let value = if self.at_eol(v) || (self.byte(v) == Some(b'#') && v > after) {
                self.pos = self.next_line(v);
                match self.peek()? {
                    Some(Line::Content { indent: i, at: a }) if i > indent => {
                        self.block_node(a, i)?
                    }
                    Some(Line::Content { indent: i, at: a })
                        if i == indent
                            && self.byte(a) == Some(b'-')
                            && self.byte(a + 1).is_none_or(|c| is_ws(c) || is_break(c)) =>
                    {
                        // A sequence indented like its key.
                        self.block_seq(a, i)?
                    }
                    _ => Node {
                        offset: after,
                        value: Value::Empty,
                    },
                }
            } else {
                self.inline_value(v)?
            };
            entries.push(Entry {
                key,
                key_offset: key_at,
                value,
            });
            match self.peek()? {
                Some(Line::Content { indent: i, at: a }) if i == indent => {
                    self.check_node_start(a)?;
                    if matches!(self.byte(a), Some(b'[') | Some(b'{')) {
                        return unsupported(a, "a collection as a mapping key is not supported");
                    }
                    if self.byte(a) == Some(b'-')
                        && self.byte(a + 1).is_none_or(|c| is_ws(c) || is_break(c))
                    {
                        return syntax(a, "a sequence entry where a mapping key was expected");
                    }
                    let (k, end) = self.inline_scalar(a, false)?;
                    let j = self.skip_ws(end);
                    if !(self.byte(j) == Some(b':')
                        && self.byte(j + 1).is_none_or(|c| is_ws(c) || is_break(c)))
                    {
                        return syntax(a, "expected a mapping key followed by ':'");
                    }
                    key = k;
                    key_at = a;
                    after = j + 1;
                }
                Some(Line::Content { indent: i, at: a }) if i > indent => {
                    let continued = entries
                        .last()
                        .is_some_and(|e: &Entry| is_plain_scalar(&e.value));
                    return if continued {
                        unsupported(
                            a,
                            "plain scalars continued on the next line are not supported",
                        )
                    } else {
                        syntax(a, "unexpected indentation in a mapping")
                    };
                }
                _ => break,
            }
        }
        self.leave();
        Ok(Node {
            offset: at,
            value: Value::Map(entries),
        })
    }

    /// A value on the same line as its key: a scalar or a flow collection.
    fn inline_value(&mut self, at: usize) -> Result<Node> {
        self.check_node_start(at)?;
        if self.byte(at) == Some(b'-') && self.byte(at + 1).is_none_or(|c| is_ws(c) || is_break(c))
        {
            return syntax(at, "a block sequence cannot start on the line of its key");
        }
        let (node, end) = if matches!(self.byte(at), Some(b'[') | Some(b'{')) {
            self.flow_node(at)?
        } else {
            let (s, end) = self.inline_scalar(at, false)?;
            let j = self.skip_ws(end);
            if self.byte(j) == Some(b':')
                && self.byte(j + 1).is_none_or(|c| is_ws(c) || is_break(c))
            {
                return syntax(j, "a mapping value is not allowed here");
            }
            (
                Node {
                    offset: at,
                    value: Value::Scalar(s),
                },
                end,
            )
        };
        self.finish_line(end)?;
        Ok(node)
    }

    /// A scalar on one line starting at `at`: quoted, or plain up to a
    /// comment, a `: ` or the end of the line (in flow context also up to
    /// `,[]{}`). Returns the scalar and the byte after it.
    fn inline_scalar(&self, at: usize, flow: bool) -> Result<(Scalar, usize)> {
        match self.byte(at) {
            Some(b'\'') => self.single_quoted(at),
            Some(b'"') => self.double_quoted(at),
            _ => self.plain(at, flow),
        }
    }

    fn plain(&self, at: usize, flow: bool) -> Result<(Scalar, usize)> {
        let first = self.byte(at);
        let indicator_ok = |c: Option<u8>| {
            c.is_some_and(|c| !(is_ws(c) || is_break(c) || (flow && b",[]{}".contains(&c))))
        };
        match first {
            None => return syntax(at, "expected a value"),
            Some(b) if is_break(b) => return syntax(at, "expected a value"),
            Some(b',') | Some(b'[') | Some(b']') | Some(b'{') | Some(b'}') | Some(b'#') => {
                return syntax(at, "unexpected indicator at the start of a scalar");
            }
            Some(b'-') | Some(b'?') | Some(b':') if !indicator_ok(self.byte(at + 1)) => {
                return syntax(at, "unexpected indicator at the start of a scalar");
            }
            _ => {}
        }
        let mut i = at;
        let mut end = at;
        while let Some(b) = self.byte(i) {
            if is_break(b) {
                break;
            }
            if b == b':' {
                let next = self.byte(i + 1);
                if next.is_none_or(|c| is_ws(c) || is_break(c) || (flow && b",[]{}".contains(&c))) {
                    break;
                }
            }
            if flow && b",[]{}".contains(&b) {
                break;
            }
            if b == b'#' && i > at && self.byte(i - 1).is_some_and(is_ws) {
                break;
            }
            i += 1;
            if !is_ws(b) {
                end = i;
            }
        }
        let text = self.text.get(at..end).unwrap_or_default().to_owned();
        Ok((
            Scalar {
                text,
                style: Style::Plain,
            },
            end,
        ))
    }

    fn single_quoted(&self, at: usize) -> Result<(Scalar, usize)> {
        let mut out = String::new();
        let mut i = at + 1;
        let mut run = i;
        loop {
            match self.byte(i) {
                None => return syntax(at, "unterminated single-quoted scalar"),
                Some(b) if is_break(b) => {
                    return unsupported(at, "quoted scalars spanning lines are not supported")
                }
                Some(b'\'') => {
                    out.push_str(self.text.get(run..i).unwrap_or_default());
                    if self.byte(i + 1) == Some(b'\'') {
                        out.push('\'');
                        i += 2;
                        run = i;
                    } else {
                        return Ok((
                            Scalar {
                                text: out,
                                style: Style::SingleQuoted,
                            },
                            i + 1,
                        ));
                    }
                }
                Some(_) => i += 1,
            }
        }
    }

    fn double_quoted(&self, at: usize) -> Result<(Scalar, usize)> {
        let mut out = String::new();
        let mut i = at + 1;
        let mut run = i;
        loop {
            match self.byte(i) {
                None => return syntax(at, "unterminated double-quoted scalar"),
                Some(b) if is_break(b) => {
                    return unsupported(at, "quoted scalars spanning lines are not supported")
                }
                Some(b'"') => {
                    out.push_str(self.text.get(run..i).unwrap_or_default());
                    return Ok((
                        Scalar {
                            text: out,
                            style: Style::DoubleQuoted,
                        },
                        i + 1,
                    ));
                }
                Some(b'\\') => {
                    out.push_str(self.text.get(run..i).unwrap_or_default());
                    let (c, len) = self.escape(i)?;
                    out.push(c);
                    i += len;
                    run = i;
                }
                Some(_) => i += 1,
            }
        }
    }

    /// The character a `\` escape at `at` stands for, and the escape's
    /// length in bytes.
    fn escape(&self, at: usize) -> Result<(char, usize)> {
        let c = match self.byte(at + 1) {
            None => return syntax(at, "unterminated double-quoted scalar"),
            Some(b) if is_break(b) => {
                return unsupported(
                    at,
                    "escaped line breaks (multi-line scalars) are not supported",
                )
            }
            Some(b) => b,
        };
        let simple = match c {
            b'0' => Some('\0'),
            b'a' => Some('\u{07}'),
            b'b' => Some('\u{08}'),
            b't' | b'\t' => Some('\t'),
            b'n' => Some('\n'),
            b'v' => Some('\u{0b}'),
            b'f' => Some('\u{0c}'),
            b'r' => Some('\r'),
            b'e' => Some('\u{1b}'),
            b' ' => Some(' '),
            b'"' => Some('"'),
            b'/' => Some('/'),
            b'\\' => Some('\\'),
            b'N' => Some('\u{85}'),
            b'_' => Some('\u{a0}'),
            b'L' => Some('\u{2028}'),
            b'P' => Some('\u{2029}'),
            _ => None,
        };
        if let Some(ch) = simple {
            return Ok((ch, 2));
        }
        let digits = match c {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => return syntax(at, format!("unknown escape \\{}", char::from(c))),
        };
        let hex = self
            .s
            .get(at + 2..at + 2 + digits)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok());
        match hex.and_then(char::from_u32) {
            Some(ch) => Ok((ch, 2 + digits)),
            None => syntax(at, "invalid hexadecimal escape"),
        }
    }

    /// Skips blanks, line breaks and comments inside a flow collection.
    fn flow_skip(&self, mut i: usize) -> Result<usize> {
        loop {
            match self.byte(i) {
                Some(b) if is_ws(b) => i += 1,
                Some(b) if is_break(b) => {
                    i = self.next_line(i);
                    for marker in [b"---", b"..."] {
                        if self.s.get(i..i + 3) == Some(marker.as_slice())
                            && self.byte(i + 3).is_none_or(|b| is_ws(b) || is_break(b))
                        {
                            return syntax(i, "document marker inside a flow collection");
                        }
                    }
                }
                Some(b'#') => {
                    let prev = i.checked_sub(1).and_then(|p| self.byte(p));
                    if prev.is_some_and(|b| !is_ws(b) && !is_break(b)) {
                        return syntax(i, "a comment must be separated by a space");
                    }
                    while self.byte(i).is_some_and(|b| !is_break(b)) {
                        i += 1;
                    }
                }
                _ => return Ok(i),
            }
        }
    }

    /// A node in flow context at `at`: a flow collection (possibly spanning
    /// lines) or a scalar. Returns it and the byte after it.
    fn flow_node(&mut self, at: usize) -> Result<(Node, usize)> {
        self.check_node_start(at)?;
        match self.byte(at) {
            Some(b'[') => self.flow_seq(at),
            Some(b'{') => self.flow_map(at),
            _ => {
                let (s, end) = self.inline_scalar(at, true)?;
                Ok((
                    Node {
                        offset: at,
                        value: Value::Scalar(s),
                    },
                    end,
                ))
            }
        }
    }

    fn flow_seq(&mut self, at: usize) -> Result<(Node, usize)> {
        self.enter(at)?;
        let mut items = Vec::new();
        let mut i = self.flow_skip(at + 1)?;
        loop {
            match self.byte(i) {
                None => return syntax(at, "unterminated flow sequence"),
                Some(b']') => {
                    i += 1;
                    break;
                }
                Some(b',') => return syntax(i, "empty entry in a flow sequence"),
                Some(_) => {}
            }
            let (node, end) = self.flow_node(i)?;
            items.push(node);
            i = self.flow_skip(end)?;
            match self.byte(i) {
                Some(b',') => i = self.flow_skip(i + 1)?,
                Some(b']') => {}
                Some(b':') => {
                    return unsupported(
                        i,
                        "mapping entries inside a flow sequence are not supported",
                    )
                }
                None => return syntax(at, "unterminated flow sequence"),
                Some(_) => return syntax(i, "expected ',' or ']' in a flow sequence"),
            }
        }
        self.leave();
        Ok((
            Node {
                offset: at,
                value: Value::Seq(items),
            },
            i,
        ))
    }

    fn flow_map(&mut self, at: usize) -> Result<(Node, usize)> {
        self.enter(at)?;
        let mut entries = Vec::new();
        let mut i = self.flow_skip(at + 1)?;
        loop {
            match self.byte(i) {
                None => return syntax(at, "unterminated flow mapping"),
                Some(b'}') => {
                    i += 1;
                    break;
                }
                Some(b',') => return syntax(i, "empty entry in a flow mapping"),
                Some(b'[') | Some(b'{') => {
                    return unsupported(i, "a collection as a mapping key is not supported")
                }
                Some(_) => {}
            }
            self.check_node_start(i)?;
            let key_at = i;
            let (key, end) = self.inline_scalar(i, true)?;
            i = self.flow_skip(end)?;
            let value = if self.byte(i) == Some(b':') {
                i = self.flow_skip(i + 1)?;
                if matches!(self.byte(i), Some(b',') | Some(b'}')) {
                    Node {
                        offset: i,
                        value: Value::Empty,
                    }
                } else {
                    let (node, end) = self.flow_node(i)?;
                    i = self.flow_skip(end)?;
                    node
                }
            } else {
                // `{ a, b: 1 }`: a key without a value.
                Node {
                    offset: i,
                    value: Value::Empty,
                }
            };
            entries.push(Entry {
                key,
                key_offset: key_at,
                value,
            });
            match self.byte(i) {
                Some(b',') => i = self.flow_skip(i + 1)?,
                Some(b'}') => {}
                None => return syntax(at, "unterminated flow mapping"),
                Some(_) => return syntax(i, "expected ',' or '}' in a flow mapping"),
            }
        }
        self.leave();
        Ok((
            Node {
                offset: at,
                value: Value::Map(entries),
            },
            i,
        ))
    }
}

/// An unsigned integer scalar as LLVM's YAML reader takes it
/// (`StringRef::getAsInteger` with radix 0): decimal, `0x` hex, `0b`
/// binary, `0o` or leading-zero octal; no sign, no spaces. `None` for
/// anything else, or a value beyond 64 bits. Both metadata checkers, and
/// whoever compares metadata with LLVM's, read integers with it.
pub fn parse_uint(s: &str) -> Option<u64> {
    let (digits, radix) = if let Some(r) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (r, 16)
    } else if let Some(r) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        (r, 2)
    } else if let Some(r) = s.strip_prefix("0o") {
        (r, 8)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// A boolean scalar in one of LLVM's YAML spellings (`llvm::yaml::parseBool`:
/// `y`, `yes`, `true`, `on` and their capitalised forms, and the negatives).
pub fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Some(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Some(false)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Value {
        Value::Scalar(Scalar {
            text: text.to_owned(),
            style: Style::Plain,
        })
    }

    /// The node tree without offsets and styles, for comparisons.
    #[derive(Debug, PartialEq)]
    enum T {
        E,
        S(String),
        L(Vec<T>),
        M(Vec<(String, T)>),
    }

    fn strip(n: &Node) -> T {
        match &n.value {
            Value::Empty => T::E,
            Value::Scalar(s) => T::S(s.text.clone()),
            Value::Seq(v) => T::L(v.iter().map(strip).collect()),
            Value::Map(m) => T::M(
                m.iter()
                    .map(|e| (e.key.text.clone(), strip(&e.value)))
                    .collect(),
            ),
        }
    }

    fn sc(x: &str) -> T {
        T::S(x.to_owned())
    }

    fn parse_str(text: &str) -> Result<Node> {
        parse(text.as_bytes())
    }

    fn err(text: &str) -> Error {
        match parse_str(text) {
            Ok(n) => panic!("{text:?} parsed: {n:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn reads_llvm_output() {
        let text = "---\nVersion:         [ 1, 0 ]\nPrintf:\n  - '1:1:4:%d\\n'\nKernels:\n  - Name:            k\n    SymbolName:      'k@kd'\n    Args:\n      - Name:            out\n        Size:            8\n        ValueKind:       GlobalBuffer\n    CodeProps:\n      KernargSegmentSize: 8\n...\n";
        let root = parse_str(text).unwrap();
        assert_eq!(
            strip(&root),
            T::M(vec![
                ("Version".into(), T::L(vec![sc("1"), sc("0")])),
                ("Printf".into(), T::L(vec![sc("1:1:4:%d\\n")])),
                (
                    "Kernels".into(),
                    T::L(vec![T::M(vec![
                        ("Name".into(), sc("k")),
                        ("SymbolName".into(), sc("k@kd")),
                        (
                            "Args".into(),
                            T::L(vec![T::M(vec![
                                ("Name".into(), sc("out")),
                                ("Size".into(), sc("8")),
                                ("ValueKind".into(), sc("GlobalBuffer")),
                            ])])
                        ),
                        (
                            "CodeProps".into(),
                            T::M(vec![("KernargSegmentSize".into(), sc("8"))])
                        ),
                    ])])
                ),
            ])
        );
        // Offsets point at the text.
        let m = root.as_map().unwrap();
        assert_eq!(m[0].key_offset, 4);
        assert_eq!(&text[m[0].value.offset..m[0].value.offset + 1], "[");
        let version = match &m[0].value.value {
            Value::Seq(v) => v,
            other => panic!("{other:?}"),
        };
        assert_eq!(&text[version[1].offset..version[1].offset + 1], "0");
        let kernels = match &m[2].value.value {
            Value::Seq(v) => v,
            other => panic!("{other:?}"),
        };
        let k = kernels[0].as_map().unwrap();
        assert_eq!(&text[k[1].value.offset..k[1].value.offset + 6], "'k@kd'");
        assert_eq!(k[1].value.as_scalar().unwrap().style, Style::SingleQuoted);
    }

    #[test]
    fn block_forms() {
        // Sequences indented like their key, compact nested sequences,
        // empty values, comments, CRLF line ends, no document markers.
        let text = "a:\n- x\n- - y\n  - z\n-\n- k: 1 # c\n  l:\nb: 'it''s' # comment\r\nc: \"\\x41\\u00e9\\t\\\"\"\n# end\n";
        assert_eq!(
            strip(&parse_str(text).unwrap()),
            T::M(vec![
                (
                    "a".into(),
                    T::L(vec![
                        sc("x"),
                        T::L(vec![sc("y"), sc("z")]),
                        T::E,
                        T::M(vec![("k".into(), sc("1")), ("l".into(), T::E)]),
                    ])
                ),
                ("b".into(), sc("it's")),
                ("c".into(), sc("A\u{e9}\t\"")),
            ])
        );
        // Plain scalars keep inner punctuation, and `:` not followed by a
        // blank does not end them.
        let root = parse_str("t: int __attribute__((ext_vector_type(3)))\nu: a:b#c\n").unwrap();
        assert_eq!(
            strip(&root),
            T::M(vec![
                ("t".into(), sc("int __attribute__((ext_vector_type(3)))")),
                ("u".into(), sc("a:b#c")),
            ])
        );
    }

    #[test]
    fn flow_forms() {
        let text = "a: [ 1, [2, 3], {x: 4, y: [ ] }, 'q', \"r\" ,]\nb: { k: v,\n  # comment\n  l: [ 1,\n 2 ] }\nc: {}\nd: { e }\n";
        assert_eq!(
            strip(&parse_str(text).unwrap()),
            T::M(vec![
                (
                    "a".into(),
                    T::L(vec![
                        sc("1"),
                        T::L(vec![sc("2"), sc("3")]),
                        T::M(vec![("x".into(), sc("4")), ("y".into(), T::L(vec![]))]),
                        sc("q"),
                        sc("r"),
                    ])
                ),
                (
                    "b".into(),
                    T::M(vec![
                        ("k".into(), sc("v")),
                        ("l".into(), T::L(vec![sc("1"), sc("2")])),
                    ])
                ),
                ("c".into(), T::M(vec![])),
                ("d".into(), T::M(vec![("e".into(), T::E)])),
            ])
        );
    }

    #[test]
    fn documents_and_markers() {
        assert_eq!(parse_str("").unwrap().value, Value::Empty);
        assert_eq!(
            parse_str("# only a comment\n\n").unwrap().value,
            Value::Empty
        );
        assert_eq!(parse_str("---\n...\n").unwrap().value, Value::Empty);
        assert_eq!(
            parse_str("--- # c\nx\n...\n# after\n").unwrap().value,
            s("x")
        );
        assert_eq!(parse_str("%YAML 1.2\n---\nx\n").unwrap().value, s("x"));
        assert_eq!(parse_str("\u{feff}---\nx\n").unwrap().value, s("x"));
        // Duplicate keys are kept, in order, for the caller to judge.
        let m = parse_str("a: 1\na: 2\n").unwrap();
        assert_eq!(
            strip(&m),
            T::M(vec![("a".into(), sc("1")), ("a".into(), sc("2"))])
        );
        assert!(Scalar {
            text: "~".into(),
            style: Style::Plain
        }
        .is_plain_null());
        assert!(!Scalar {
            text: "~".into(),
            style: Style::SingleQuoted
        }
        .is_plain_null());
    }

    #[test]
    fn rejects_with_the_right_kind() {
        use ErrorKind::{Syntax, Unsupported};
        let cases: &[(&str, ErrorKind, usize)] = &[
            ("a: &x 1\n", Unsupported, 3),
            ("a: *x\n", Unsupported, 3),
            ("a: !!str 1\n", Unsupported, 3),
            ("a: |\n  x\n", Unsupported, 3),
            ("a: >\n  x\n", Unsupported, 3),
            ("? a\n: b\n", Unsupported, 0),
            ("a: b\n  c\n", Unsupported, 7),
            ("a: 'b\n  c'\n", Unsupported, 3),
            ("a: \"b\\\n  c\"\n", Unsupported, 5),
            ("---\na\n---\nb\n", Unsupported, 6),
            ("a\n...\n---\nb\n", Unsupported, 6),
            ("--- a\n", Unsupported, 3),
            ("%TAG ! x\n---\na\n", Unsupported, 0),
            ("[a]: b\n", Unsupported, 0),
            ("a: [b: c]\n", Unsupported, 5),
            ("a:\n\t- b\n", Syntax, 3),
            ("a: 'b\n", Unsupported, 3),
            ("a: 'b", Syntax, 3),
            ("a: \"b", Syntax, 3),
            ("a: \"\\q\"\n", Syntax, 4),
            ("a: \"\\uD800\"\n", Syntax, 4),
            ("a: b: c\n", Syntax, 4),
            ("a: - b\n", Syntax, 3),
            ("a: 1\n - b\n", Unsupported, 6),
            ("a: 1\nb\n", Syntax, 5),
            ("- a\nb: 1\n", Syntax, 4),
            ("a:\n  - b\n  c: 1\n", Syntax, 11),
            ("a:\n  b: 'x'\n    c\n", Syntax, 16),
            ("- a\n  b\n", Unsupported, 6),
            ("- 'a'\n  b\n", Syntax, 8),
            ("a: [1, 2\n", Syntax, 3),
            ("a: [1,, 2]\n", Syntax, 6),
            ("a: {b: 'x' c}\n", Syntax, 11),
            ("a: ['1' 2]\n", Syntax, 8),
            ("a: @x\n", Syntax, 3),
            ("a: 'x' 1\n", Syntax, 7),
            ("a\u{1}: 1\n", Syntax, 1),
            ("a: x\n...\nb\n", Syntax, 9),
            ("  a: 1\nb: 2\n", Syntax, 7),
            ("a: [1,\n---\n]\n", Syntax, 7),
        ];
        for &(text, kind, offset) in cases {
            let e = err(text);
            assert_eq!((e.kind, e.offset), (kind, offset), "{text:?}: {e}");
        }
        let e = parse(b"a: \xff\n").unwrap_err();
        assert_eq!((e.kind, e.offset), (Syntax, 3));
    }

    #[test]
    fn depth_is_limited() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse_str(&ok).is_ok());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(err(&deep).kind, ErrorKind::Unsupported);
        // Block nesting, one level per line, far past the limit: an error,
        // not a stack overflow.
        let mut block = String::new();
        for i in 0..10_000 {
            block.push_str(&" ".repeat(i));
            block.push_str("k:\n");
        }
        assert_eq!(err(&block).kind, ErrorKind::Unsupported);
        let huge = "[".repeat(1_000_000);
        assert_eq!(err(&huge).kind, ErrorKind::Unsupported);
        let dashes = "- ".repeat(100_000);
        assert_eq!(err(&dashes).kind, ErrorKind::Unsupported);
    }

    #[test]
    fn large_documents_parse_in_linear_time() {
        // 100k mapping entries and a 100k-element flow sequence: linear
        // work finishes far below the limit even in debug builds.
        let mut text = String::from("seq: [");
        for i in 0..100_000 {
            text.push_str(&format!("{i}, "));
        }
        text.push_str("]\n");
        for i in 0..100_000 {
            text.push_str(&format!("k{i}: v\n"));
        }
        let start = std::time::Instant::now();
        let root = parse_str(&text).unwrap();
        assert_eq!(root.as_map().unwrap().len(), 100_001);
        assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    }

    /// A writer in LLVM's style for round trips: block mappings and
    /// sequences, flow sequences of scalars, scalars quoted when needed.
    fn emit(n: &T, indent: usize, out: &mut String) {
        match n {
            T::E => out.push('\n'),
            T::S(s) => {
                out.push_str(&quote(s));
                out.push('\n');
            }
            T::L(items) if items.iter().all(|i| matches!(i, T::S(_))) && !items.is_empty() => {
                let parts: Vec<String> = items
                    .iter()
                    .map(|i| match i {
                        T::S(s) => quote(s),
                        _ => String::new(),
                    })
                    .collect();
                out.push_str(&format!("[ {} ]\n", parts.join(", ")));
            }
            T::L(items) if items.is_empty() => out.push_str("[ ]\n"),
            T::L(items) => {
                out.push('\n');
                for i in items {
                    out.push_str(&" ".repeat(indent));
                    out.push_str("- ");
                    emit_inline(i, indent + 2, out);
                }
            }
            T::M(entries) if entries.is_empty() => out.push_str("{ }\n"),
            T::M(entries) => {
                out.push('\n');
                for (k, v) in entries {
                    out.push_str(&" ".repeat(indent));
                    out.push_str(&quote(k));
                    out.push(':');
                    if !matches!(v, T::M(_) | T::L(_) | T::E) {
                        out.push(' ');
                    }
                    if matches!(v, T::L(_) | T::M(_)) && !is_flow(v) {
                        emit(v, indent + 2, out);
                    } else {
                        if is_flow(v) {
                            out.push(' ');
                        }
                        emit(v, indent + 2, out);
                    }
                }
            }
        }
    }

    fn is_flow(n: &T) -> bool {
        match n {
            T::L(items) => items.is_empty() || items.iter().all(|i| matches!(i, T::S(_))),
            T::M(entries) => entries.is_empty(),
            _ => false,
        }
    }

    /// An entry of a block sequence, whose first line follows the `- `.
    fn emit_inline(n: &T, indent: usize, out: &mut String) {
        match n {
            T::M(entries) if !entries.is_empty() => {
                let mut first = String::new();
                emit(n, indent, &mut first);
                // Drop the newline and the indentation of the first key.
                out.push_str(&first[1 + indent..]);
            }
            T::L(items) if !is_flow(n) => {
                let mut first = String::new();
                emit(
                    &T::L(items.iter().map(clone_t).collect()),
                    indent,
                    &mut first,
                );
                out.push_str(&first[1 + indent..]);
            }
            T::E => out.push('\n'),
            _ => emit(n, indent, out),
        }
    }

    fn clone_t(n: &T) -> T {
        match n {
            T::E => T::E,
            T::S(s) => T::S(s.clone()),
            T::L(v) => T::L(v.iter().map(clone_t).collect()),
            T::M(m) => T::M(m.iter().map(|(k, v)| (k.clone(), clone_t(v))).collect()),
        }
    }

    /// Plain when safe, else single-quoted, or double-quoted with escapes
    /// when it holds control characters (as LLVM's writer decides).
    fn quote(s: &str) -> String {
        let plain_ok = !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.@%$()/".contains(c))
            && !matches!(s, "~" | "null" | "Null" | "NULL")
            && !s.starts_with(['@', '%']);
        if plain_ok {
            s.to_owned()
        } else if s.chars().any(|c| c.is_control()) {
            let mut out = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        } else {
            format!("'{}'", s.replace('\'', "''"))
        }
    }

    fn tree() -> impl proptest::strategy::Strategy<Value = T> {
        use proptest::prelude::*;
        let scalar = prop_oneof![
            "[a-zA-Z0-9_.]{1,8}".prop_map(T::S),
            "[ -~\t\n]{0,12}".prop_map(T::S),
            "[\\PC]{0,6}".prop_map(T::S),
        ];
        scalar.prop_recursive(5, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(T::L),
                proptest::collection::vec(("[A-Za-z][A-Za-z0-9]{0,8}", inner), 1..5).prop_map(
                    |mut v| {
                        // Unique keys.
                        let mut seen = std::collections::HashSet::new();
                        v.retain(|(k, _)| seen.insert(k.clone()));
                        T::M(v)
                    }
                ),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn never_panics(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
            let _ = parse(&bytes);
        }

        #[test]
        fn never_panics_on_yamlish_text(text in "[-:\\[\\]{}#'\" \\t\\n\\r,a-c0-9&*!|>?%@~.\\\\]{0,200}") {
            let _ = parse(text.as_bytes());
        }

        #[test]
        fn round_trips_in_llvm_style(t in tree()) {
            // The root must be a collection for block output.
            let root = T::M(vec![("root".to_owned(), t)]);
            let mut text = String::from("---");
            emit(&root, 0, &mut text);
            text.push_str("...\n");
            let parsed = parse(text.as_bytes());
            proptest::prop_assert!(parsed.is_ok(), "{:?}\n{}", parsed, text);
            let got = strip(&parsed.unwrap());
            // An empty scalar comes back as an empty value only when plain;
            // quote() never writes one plain.
            proptest::prop_assert_eq!(got, root, "{}", text);
        }
    }
}
