//! `diff words`: instruction lines of any encoding. SMEM words go to the
//! oracle ([`super::smem::SmemDisasm`]); for everything else the oracle
//! has no decoder, so the `words` comparison ([`WordsCmp`]) holds each
//! peer's view against a reference peer's (the newest LLVM): the same
//! instructions accepted and rejected, the same sizes and the same text
//! (annotation comments aside), plus crash and hang detection.

use hsaco_oracle::targets::Target;

use super::smem::{line_inputs, line_origin};
use super::{Comparison, ComparisonId, Difference, Input, Peer, Piece, Verdict, View};

/// Lines per chunk.
pub const CHUNK: u64 = 4096;

/// Instruction lines: (line number, bytes).
pub type Lines = Vec<(usize, Vec<u8>)>;

/// Reads `diff words` input: one instruction per line in `llvm-mc` byte
/// syntax (`0x41 0x01 0x02 0xc0`, commas allowed, optionally inside
/// `[...]`, decimal bytes too). Blank lines and comments (`#`, `;`, `//`,
/// also after the bytes) are skipped. Returns (line number, bytes), or the
/// first bad line's number and why.
pub fn parse_lines(text: &str) -> Result<Lines, (usize, String)> {
    let mut out = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let n = n + 1;
        let mut line = raw;
        for c in ["#", ";", "//"] {
            if let Some(p) = line.find(c) {
                line = line.get(..p).unwrap_or("");
            }
        }
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let inner = line
            .strip_prefix('[')
            .map(|l| {
                l.strip_suffix(']')
                    .ok_or("a `[` group is not closed by `]`")
            })
            .transpose()
            .map_err(|e| (n, e.to_owned()))?
            .unwrap_or(line);
        let mut bytes = Vec::new();
        for tok in inner
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
        {
            let v = match tok.strip_prefix("0x").or_else(|| tok.strip_prefix("0X")) {
                Some(h) => u8::from_str_radix(h, 16),
                None => tok.parse::<u8>(),
            }
            .map_err(|_| (n, format!("{tok:?} is not a byte (0x00-0xff or 0-255)")))?;
            bytes.push(v);
        }
        if bytes.len() > 64 {
            return Err((
                n,
                format!(
                    "{} bytes on one line; one instruction is at most 64",
                    bytes.len()
                ),
            ));
        }
        out.push((n, bytes));
    }
    Ok(out)
}

/// `words`: each peer's disassembly against the reference peer's.
pub struct WordsCmp {
    lines: Vec<(usize, Vec<u8>)>,
}

impl WordsCmp {
    /// Over these lines (line number, bytes).
    pub fn new(lines: Vec<(usize, Vec<u8>)>) -> Self {
        Self { lines }
    }
}

/// The reference among peers: the first (newest) libLLVM, else the first
/// peer taking part in `words`.
pub fn reference_index(peers: &[&dyn Peer]) -> Option<usize> {
    let words = |p: &&&dyn Peer| p.info().takes_part(ComparisonId::Words);
    peers
        .iter()
        .position(|p| p.info().family == "libllvm" && words(&p))
        .or_else(|| peers.iter().position(|p| words(&p)))
}

/// A piece as compared between peers: size when known, text without
/// comment.
fn normal(p: &Piece) -> (Option<usize>, Option<&str>, usize) {
    match p {
        Piece::Insn { size, text, .. } => (*size, Some(text.as_str()), 0),
        Piece::Invalid { at } => (None, None, *at),
    }
}

fn mnemonic(p: Option<&Piece>) -> String {
    match p {
        Some(Piece::Insn { text, .. }) => text.split_whitespace().next().unwrap_or("").to_owned(),
        _ => "<invalid>".to_owned(),
    }
}

/// Compares two disassemblies of one line: `None` when they agree, else a
/// normalized key of the first disagreement.
pub fn diff_pieces(reference: &[Piece], view: &[Piece]) -> Option<String> {
    for k in 0..reference.len().max(view.len()) {
        let (r, v) = (reference.get(k), view.get(k));
        let place = if k == 0 {
            String::new()
        } else {
            format!("instruction {}: ", k + 1)
        };
        match (r.map(normal), v.map(normal)) {
            (Some((rs, rt, ra)), Some((vs, vt, va))) => match (rt, vt) {
                (Some(a), Some(b)) => {
                    if a != b {
                        return Some(format!("{place}text differs ({})", mnemonic(r)));
                    }
                    if let (Some(x), Some(y)) = (rs, vs) {
                        if x != y {
                            return Some(format!("{place}size differs ({})", mnemonic(r)));
                        }
                    }
                }
                (Some(_), None) => {
                    return Some(format!(
                        "{place}reference decodes {}, peer rejects",
                        mnemonic(r)
                    ))
                }
                (None, Some(_)) => {
                    return Some(format!(
                        "{place}reference rejects, peer decodes {}",
                        mnemonic(v)
                    ))
                }
                (None, None) => {
                    if ra != va {
                        return Some(format!("{place}rejected at other offsets"));
                    }
                }
            },
            (Some(_), None) | (None, Some(_)) => {
                return Some(format!("{place}number of instructions differs"));
            }
            (None, None) => {}
        }
    }
    None
}

impl Comparison for WordsCmp {
    fn id(&self) -> ComparisonId {
        ComparisonId::Words
    }
    fn applies(&self, _target: &Target) -> Result<(), String> {
        Ok(())
    }
    fn chunks(&self, _target: &Target) -> u64 {
        (self.lines.len() as u64).div_ceil(CHUNK)
    }
    fn inputs(&self, _target: &Target, chunk: u64) -> Vec<Input> {
        line_inputs(&self.lines, chunk, CHUNK)
    }
    fn origin(&self, _target: &Target, chunk: u64, index: usize) -> String {
        line_origin(&self.lines, chunk, CHUNK, index).unwrap_or_else(|| format!("input {index}"))
    }
    fn needs_reference(&self) -> bool {
        true
    }
    fn reference(&self, peers: &[&dyn Peer]) -> Option<usize> {
        reference_index(peers)
    }
    fn compare(
        &self,
        _peer: &dyn Peer,
        _target: &Target,
        input: &Input,
        view: &View,
        reference: Option<&View>,
    ) -> Verdict {
        let Some(reference) = reference else {
            return Verdict::NotComparable(
                "the reference peer has no view of this line".to_owned(),
            );
        };
        let (View::Disasm { pieces: r }, View::Disasm { pieces: v }) = (reference, view) else {
            return Verdict::NotComparable("not a disassembly".to_owned());
        };
        match diff_pieces(r, v) {
            None => Verdict::Same,
            Some(key) => Verdict::Differs(Difference {
                message: format!(
                    "{}: reference printed {}; peer printed {}",
                    input.display(),
                    reference.display(),
                    view.display()
                ),
                key,
                tags: Vec::new(),
                informational: false,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_in_llvm_mc_syntax() {
        let text = "# comment\n0x41 0x01 0x02 0xc0\n\n[0xf9,0x06 ,0x02] ; why\n65 1 2 192 // x\n";
        let v = parse_lines(text).expect("parses");
        assert_eq!(
            v,
            vec![
                (2, vec![0x41, 1, 2, 0xc0]),
                (4, vec![0xf9, 6, 2]),
                (5, vec![65, 1, 2, 192])
            ]
        );
        assert_eq!(parse_lines("0x41\n0x100\n").unwrap_err().0, 2);
        assert!(parse_lines("[0x41\n").unwrap_err().1.contains("not closed"));
        assert!(parse_lines("s_nop 0\n").is_err());
    }

    #[test]
    fn pieces_compare_by_text_size_and_acceptance() {
        let i = |s: Option<usize>, t: &str, c: Option<&str>| Piece::Insn {
            size: s,
            text: t.to_owned(),
            comment: c.map(str::to_owned),
        };
        let a = vec![i(Some(8), "v_add_f32_sdwa v0, v1, v2", Some("x"))];
        let b = vec![i(None, "v_add_f32_sdwa v0, v1, v2", None)];
        assert_eq!(diff_pieces(&a, &b), None);
        let c = vec![i(Some(4), "v_add_f32_sdwa v0, v1, v2", None)];
        assert_eq!(
            diff_pieces(&a, &c).as_deref(),
            Some("size differs (v_add_f32_sdwa)")
        );
        let d = vec![Piece::Invalid { at: 0 }];
        assert_eq!(
            diff_pieces(&a, &d).as_deref(),
            Some("reference decodes v_add_f32_sdwa, peer rejects")
        );
        assert_eq!(
            diff_pieces(&d, &a).as_deref(),
            Some("reference rejects, peer decodes v_add_f32_sdwa")
        );
        let e = vec![i(Some(8), "v_add_f32_sdwa v0, v1, v3", None)];
        assert_eq!(
            diff_pieces(&a, &e).as_deref(),
            Some("text differs (v_add_f32_sdwa)")
        );
    }
}
