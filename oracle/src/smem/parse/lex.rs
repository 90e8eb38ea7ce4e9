//! The lexer: tokens, LLVM's integer and character literals, comments.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Punct {
    Comma,
    LBrac,
    RBrac,
    Colon,
    LParen,
    RParen,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Shl,
    Shr,
    Amp,
    AmpAmp,
    Pipe,
    PipePipe,
    Caret,
    Tilde,
    Excl,
    EqEq,
    Ne,
    LessGreater,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tok<'a> {
    Ident(&'a str),
    /// An integer or character literal (two's complement).
    Int(u64),
    Real,
    Str,
    Punct(Punct),
    /// A newline (comments are skipped).
    Eol,
    End,
    Other(char),
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Token<'a> {
    pub(super) tok: Tok<'a>,
    /// Byte offset of the first character.
    pub(super) start: usize,
}

/// Line and column (1-based, columns in characters) of a byte offset.
pub(super) fn position(text: &str, byte: usize) -> (usize, usize) {
    let before = text.get(..byte).unwrap_or("");
    let line_start = before.rfind('\n').map_or(0, |k| k + 1);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

pub(super) fn error_at(text: &str, byte: usize, kind: ParseErrorKind) -> ParseError {
    let (line, column) = position(text, byte);
    ParseError { line, column, kind }
}

pub(super) fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || matches!(c, b'_' | b'.' | b'$' | b'@' | b'?')
}

pub(super) fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'@' | b'?')
}

/// Splits `text` into tokens; the token list is at most one longer than
/// the text.
pub(super) fn lex(text: &str, dialect: Dialect) -> Result<Vec<Token<'_>>, ParseError> {
    let b = text.as_bytes();
    let err = |at: usize, kind| error_at(text, at, kind);
    let mut toks = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let start = i;
        let at = |k: usize| b.get(k).copied().unwrap_or(0);
        let punct = |p: Punct, len: usize| (Tok::Punct(p), start + len);
        let (tok, end) = match c {
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                i += 1;
                continue;
            }
            b'\n' => (Tok::Eol, i + 1),
            b';' => {
                // LLVM's AMDGPU comment character: the rest of the line.
                while b.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
                continue;
            }
            b'/' if at(i + 1) == b'/' => {
                while b.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
                continue;
            }
            b'/' if at(i + 1) == b'*' => {
                let rest = text.get(i + 2..).unwrap_or("");
                match rest.find("*/") {
                    Some(k) => {
                        i += 2 + k + 2;
                        continue;
                    }
                    None => return Err(err(start, ParseErrorKind::Unterminated("comment"))),
                }
            }
            b'0'..=b'9' => lex_number(b, i, dialect).map_err(|(at, k)| err(at, k))?,
            b'\'' => lex_char(b, i).map_err(|(at, k)| err(at, k))?,
            b'"' => {
                let mut k = i + 1;
                loop {
                    match b.get(k) {
                        None | Some(b'\n') => {
                            return Err(err(start, ParseErrorKind::Unterminated("string")))
                        }
                        Some(b'\\') => k += 2,
                        Some(b'"') => break (Tok::Str, k + 1),
                        Some(_) => k += 1,
                    }
                }
            }
            c if is_ident_start(c) => {
                let mut k = i + 1;
                while b.get(k).is_some_and(|&c| is_ident_char(c)) {
                    k += 1;
                }
                (Tok::Ident(text.get(i..k).unwrap_or("")), k)
            }
            b',' => punct(Punct::Comma, 1),
            b'[' => punct(Punct::LBrac, 1),
            b']' => punct(Punct::RBrac, 1),
            b':' => punct(Punct::Colon, 1),
            b'(' => punct(Punct::LParen, 1),
            b')' => punct(Punct::RParen, 1),
            b'+' => punct(Punct::Plus, 1),
            b'-' => punct(Punct::Minus, 1),
            b'*' => punct(Punct::Star, 1),
            b'/' => punct(Punct::Slash, 1),
            b'%' => punct(Punct::Percent, 1),
            b'^' => punct(Punct::Caret, 1),
            b'~' => punct(Punct::Tilde, 1),
            b'<' => match at(i + 1) {
                b'<' => punct(Punct::Shl, 2),
                b'=' => punct(Punct::Le, 2),
                b'>' => punct(Punct::LessGreater, 2),
                _ => punct(Punct::Lt, 1),
            },
            b'>' => match at(i + 1) {
                b'>' => punct(Punct::Shr, 2),
                b'=' => punct(Punct::Ge, 2),
                _ => punct(Punct::Gt, 1),
            },
            b'&' if at(i + 1) == b'&' => punct(Punct::AmpAmp, 2),
            b'&' => punct(Punct::Amp, 1),
            b'|' if at(i + 1) == b'|' => punct(Punct::PipePipe, 2),
            b'|' => punct(Punct::Pipe, 1),
            b'!' if at(i + 1) == b'=' => punct(Punct::Ne, 2),
            b'!' => punct(Punct::Excl, 1),
            b'=' if at(i + 1) == b'=' => punct(Punct::EqEq, 2),
            _ => {
                let ch = text.get(i..).and_then(|s| s.chars().next()).unwrap_or('?');
                (Tok::Other(ch), i + ch.len_utf8())
            }
        };
        toks.push(Token { tok, start });
        i = end;
    }
    toks.push(Token {
        tok: Tok::End,
        start: b.len(),
    });
    Ok(toks)
}

pub(super) type LexResult<'a> = Result<(Tok<'a>, usize), (usize, ParseErrorKind)>;

/// Accumulates digits of `radix`; `None` when the value passes 64 bits.
pub(super) fn digits_value(digits: &[u8], radix: u64) -> Option<u64> {
    digits.iter().try_fold(0u64, |acc, &d| {
        let v = u64::from(char::from(d).to_digit(36)?);
        acc.checked_mul(radix)?.checked_add(v)
    })
}

/// Skips LLVM's ignored integer suffixes: `U`, `L`, `LL`, `UL`, `ULL`;
/// LLVM 19 takes them in any case, LLVM 14 upper case only.
pub(super) fn skip_suffix(b: &[u8], mut i: usize, dialect: Dialect) -> usize {
    let is = |c: Option<&u8>, up: u8| match (c, dialect) {
        (Some(&c), Dialect::Llvm19) => c.to_ascii_uppercase() == up,
        (Some(&c), Dialect::Llvm14) => c == up,
        (None, _) => false,
    };
    if is(b.get(i), b'U') {
        i += 1;
    }
    for _ in 0..2 {
        if is(b.get(i), b'L') {
            i += 1;
        }
    }
    i
}

pub(super) fn lex_number(b: &[u8], start: usize, dialect: Dialect) -> LexResult<'static> {
    let at = |k: usize| b.get(k).copied().unwrap_or(0);
    let run = |mut k: usize, f: fn(&u8) -> bool| {
        while b.get(k).is_some_and(f) {
            k += 1;
        }
        k
    };
    let real_end = |k: usize| {
        run(k, |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-')
        })
    };
    let value = |digits: &[u8], radix: u64, end: usize| match digits_value(digits, radix) {
        Some(v) => Ok((Tok::Int(v), skip_suffix(b, end, dialect))),
        None => Err((start, ParseErrorKind::LiteralTooLarge)),
    };
    let first = at(start);
    let second = at(start + 1);
    if first == b'0' && matches!(second, b'x' | b'X') {
        let ds = start + 2;
        let de = run(ds, u8::is_ascii_hexdigit);
        if matches!(at(de), b'.' | b'p' | b'P') {
            return Ok((Tok::Real, real_end(de)));
        }
        if de == ds {
            return Err((start, ParseErrorKind::BadLiteral("hexadecimal")));
        }
        return value(b.get(ds..de).unwrap_or(&[]), 16, de);
    }
    if first == b'0' && matches!(second, b'b' | b'B') {
        let ds = start + 2;
        let de = run(ds, |c| matches!(c, b'0' | b'1'));
        if de == ds {
            return Err((start, ParseErrorKind::BadLiteral("binary")));
        }
        return value(b.get(ds..de).unwrap_or(&[]), 2, de);
    }
    let de = run(start, u8::is_ascii_digit);
    if first != b'0' || at(de) == b'.' {
        if matches!(at(de), b'.' | b'e' | b'E') {
            return Ok((Tok::Real, real_end(de)));
        }
        return value(b.get(start..de).unwrap_or(&[]), 10, de);
    }
    // A leading 0: octal, as in C.
    let digits = b.get(start..de).unwrap_or(&[]);
    if digits.iter().any(|&d| d > b'7') {
        return Err((start, ParseErrorKind::BadLiteral("octal")));
    }
    value(digits, 8, de)
}

/// `'c'` and `'\c'` as LLVM reads them (`\t \n \b \f \r`, otherwise the
/// character itself). Only ASCII characters are accepted.
pub(super) fn lex_char(b: &[u8], start: usize) -> LexResult<'static> {
    let mut k = start + 1;
    let mut c = b.get(k).copied();
    let escaped = c == Some(b'\\');
    if escaped {
        k += 1;
        c = b.get(k).copied();
    }
    let Some(c) = c.filter(|&c| c != b'\n') else {
        return Err((start, ParseErrorKind::Unterminated("character literal")));
    };
    if b.get(k + 1) != Some(&b'\'') || !c.is_ascii() {
        return Err((start, ParseErrorKind::BadLiteral("character")));
    }
    let v = match (escaped, c) {
        (true, b't') => b'\t',
        (true, b'n') => b'\n',
        (true, b'b') => 8,
        (true, b'f') => 12,
        (true, b'r') => b'\r',
        (_, c) => c,
    };
    Ok((Tok::Int(u64::from(v)), k + 2))
}
