//! SMEM comparisons, where the oracle decides.
//!
//! - `smem-disasm` ([`SmemDisasm`]): SMEM words (from generated streams,
//!   and random words that are mostly invalid) decoded by the oracle and
//!   by a disassembler peer; the oracle's verdict and text are turned into
//!   what that LLVM version must print ([`smem_diff::expect`]), so LLVM
//!   must reject what the oracle rejects and print what it prints, except
//!   for the listed divergences (tagged, for the allowlist).
//! - `smem-encode` ([`SmemEncode`]): valid instructions from generated
//!   streams, printed in the peer version's dialect, assembled by the peer
//!   (`llvm-mc -show-encoding`) and compared with the oracle's encoding.

use hsaco_gen::arbitrary::Unstructured;
use hsaco_gen::Config;
use hsaco_oracle::smem::parse::Dialect;
use hsaco_oracle::smem::{self, Offset, SmemGen, Verdict as SmemVerdict};
use hsaco_oracle::targets::Target;

use crate::smem_diff::{self, Expectation, LlvmView, Outcome, Words};

use super::{Comparison, ComparisonId, Difference, Input, Peer, Piece, Verdict, View};

/// Words per chunk of `smem-disasm`.
pub const DISASM_CHUNK: u64 = 4096;
/// Instructions per chunk of `smem-encode`.
pub const ENCODE_CHUNK: u64 = 2048;

/// The SMEM family of a processor, or why it has none.
pub fn family(target: &Target) -> Result<SmemGen, String> {
    SmemGen::for_target(target).ok_or_else(|| {
        format!(
            "{} has no SMEM model (SMEM is modelled for GFX8 to GFX12)",
            target.name
        )
    })
}

/// The SMEM instruction words of streams generated for `target`: `n`
/// words of chunk `chunk` under `seed`. The streams come from
/// `hsaco_gen::smem::arbitrary_stream` fed by the seed scheme's stream
/// ([`hsaco_gen::seed`]) of the domain named by the bare processor name,
/// index chunk × 2^16 + refill (64 KiB a refill). `text_only` leaves out
/// GFX9's SOE-only offset form, which has no assembler text.
pub fn stream_words(target: &Target, seed: u64, chunk: u64, n: usize, text_only: bool) -> Vec<u64> {
    let mut out = Vec::with_capacity(n);
    if SmemGen::for_target(target).is_none() {
        return out;
    }
    let mut cfg = Config::default();
    cfg.smem_streams = true;
    cfg.smem_min_len = cfg.smem_min_len.max(1);
    cfg.smem_max_len = cfg.smem_max_len.max(cfg.smem_min_len);
    cfg.sanitize();
    let mut buf = vec![0u8; 1 << 16];
    for refill in 0..256u64 {
        let index = chunk.wrapping_mul(1 << 16).wrapping_add(refill);
        hsaco_gen::seed::fill(seed, target.name, index, &mut buf);
        let mut u = Unstructured::new(&buf);
        while out.len() < n && !u.is_empty() {
            let Ok(s) = hsaco_gen::smem::arbitrary_stream(&mut u, &cfg, target) else {
                break;
            };
            for i in s.instructions() {
                if text_only && matches!(i.offset, Offset::Soffset(_)) {
                    continue;
                }
                if let Ok(w) = smem::encode(i) {
                    out.push(w);
                    if out.len() == n {
                        break;
                    }
                }
            }
        }
        if out.len() >= n {
            break;
        }
    }
    out
}

/// Where the inputs come from.
#[derive(Clone, Debug)]
pub enum Source {
    /// Generated: `count` per processor from `seed`.
    Generated {
        /// Seed.
        seed: u64,
        /// Inputs per processor.
        count: u64,
    },
    /// Given lines (`diff words`): (line number, bytes).
    Given(Vec<(usize, Vec<u8>)>),
}

impl Source {
    fn chunks(&self, chunk: u64) -> u64 {
        match self {
            Self::Generated { count, .. } => count.div_ceil(chunk),
            Self::Given(lines) => (lines.len() as u64).div_ceil(chunk),
        }
    }

    fn given(&self, chunk: u64, size: u64) -> Vec<Input> {
        match self {
            Self::Given(lines) => line_inputs(lines, chunk, size),
            Self::Generated { .. } => Vec::new(),
        }
    }

    fn given_origin(&self, chunk: u64, size: u64, index: usize) -> Option<String> {
        match self {
            Self::Given(lines) => line_origin(lines, chunk, size, index),
            Self::Generated { .. } => None,
        }
    }
}

/// How many of `count` inputs chunk `chunk` holds, in chunks of `size`.
fn chunk_len(count: u64, chunk: u64, size: u64) -> u64 {
    count.saturating_sub(chunk.saturating_mul(size)).min(size)
}

/// The inputs of chunk `chunk` (chunks of `size`) of given lines (line
/// number, bytes): `smem-disasm` on given words and `diff words`.
pub(super) fn line_inputs(lines: &[(usize, Vec<u8>)], chunk: u64, size: u64) -> Vec<Input> {
    let start = usize::try_from(chunk.saturating_mul(size)).unwrap_or(usize::MAX);
    let end = start.saturating_add(usize::try_from(size).unwrap_or(usize::MAX));
    lines
        .get(start.min(lines.len())..end.min(lines.len()))
        .unwrap_or(&[])
        .iter()
        .map(|(_, b)| Input::bytes(b.clone()))
        .collect()
}

/// Where input `index` of chunk `chunk` of [`line_inputs`] comes from
/// (`line N`), or `None` past the end.
pub(super) fn line_origin(
    lines: &[(usize, Vec<u8>)],
    chunk: u64,
    size: u64,
    index: usize,
) -> Option<String> {
    let k = usize::try_from(chunk.saturating_mul(size))
        .ok()?
        .checked_add(index)?;
    lines.get(k).map(|(n, _)| format!("line {n}"))
}

/// `smem-disasm`: the oracle's decode against a disassembler peer's.
pub struct SmemDisasm {
    source: Source,
}

impl SmemDisasm {
    /// Over generated words: per processor and chunk of 4096, half SMEM
    /// words of generated streams ([`stream_words`]), half random words
    /// (`smem_diff::Words`: nine in ten with the SMEM encoding, two in three
    /// with a defined opcode, the rest of the bits uniform, so most are
    /// invalid).
    pub fn generated(seed: u64, count: u64) -> Self {
        Self {
            source: Source::Generated { seed, count },
        }
    }

    /// Over given 8-byte SMEM words (line number, bytes).
    pub fn given(lines: Vec<(usize, Vec<u8>)>) -> Self {
        Self {
            source: Source::Given(lines),
        }
    }

    /// True when `bytes` is one SMEM-encoded word for `target` (8 bytes,
    /// bits 31:26 the family's SMEM encoding): the oracle decides it.
    pub fn is_smem_line(target: &Target, bytes: &[u8]) -> bool {
        let Some(gen) = SmemGen::for_target(target) else {
            return false;
        };
        let Ok(b) = <[u8; 8]>::try_from(bytes) else {
            return false;
        };
        let w = u64::from_le_bytes(b);
        ((w >> 26) & 0x3f) as u8 == gen.encoding()
    }
}

/// Half of a generated chunk's words (the stream half).
fn stream_half(n: u64) -> u64 {
    n / 2
}

impl Comparison for SmemDisasm {
    fn id(&self) -> ComparisonId {
        ComparisonId::SmemDisasm
    }
    fn applies(&self, target: &Target) -> Result<(), String> {
        family(target).map(|_| ())
    }
    fn chunks(&self, _target: &Target) -> u64 {
        self.source.chunks(DISASM_CHUNK)
    }
    fn inputs(&self, target: &Target, chunk: u64) -> Vec<Input> {
        let Source::Generated { seed, count } = self.source else {
            return self.source.given(chunk, DISASM_CHUNK);
        };
        let Ok(gen) = family(target) else {
            return Vec::new();
        };
        let n = chunk_len(count, chunk, DISASM_CHUNK);
        let ns = stream_half(n);
        let nr = n - ns;
        let mut v: Vec<Input> = stream_words(target, seed, chunk, ns as usize, false)
            .into_iter()
            .map(Input::word)
            .collect();
        let random = Words::starting_at(
            gen,
            target.name,
            seed,
            chunk.saturating_mul(DISASM_CHUNK / 2),
        );
        v.extend(random.take(nr as usize).map(Input::word));
        v
    }
    fn origin(&self, target: &Target, chunk: u64, index: usize) -> String {
        if let Some(o) = self.source.given_origin(chunk, DISASM_CHUNK, index) {
            return o;
        }
        let Source::Generated { count, .. } = self.source else {
            return format!("input {index}");
        };
        let ns = stream_half(chunk_len(count, chunk, DISASM_CHUNK)) as usize;
        if index < ns {
            format!("{} chunk {chunk}: stream word {index}", target.name)
        } else {
            format!(
                "{} random word {} (smem_diff::Words)",
                target.name,
                chunk.saturating_mul(DISASM_CHUNK / 2) + (index - ns) as u64
            )
        }
    }
    fn compare(
        &self,
        peer: &dyn Peer,
        target: &Target,
        input: &Input,
        view: &View,
        _reference: Option<&View>,
    ) -> Verdict {
        let Ok(gen) = family(target) else {
            return Verdict::NotComparable(format!("{} has no SMEM model", target.name));
        };
        let Some(version) = peer.info().version else {
            return Verdict::NotComparable("the peer has no LLVM version".to_owned());
        };
        let (Some(word), Input::Bytes { bytes }) = (input.first_word(), input) else {
            return Verdict::NotComparable("not an instruction word".to_owned());
        };
        if bytes.len() != 8 {
            return Verdict::NotComparable("not an 8-byte word".to_owned());
        }
        let View::Disasm { pieces } = view else {
            return Verdict::NotComparable("not a disassembly".to_owned());
        };
        compare_word(gen, version, word, pieces)
    }
    fn shrink(&self, input: &Input) -> Vec<Input> {
        word_candidates(input)
    }
}

/// Shrink candidates of an SMEM word: bytes and bits reset, never fewer
/// than 8 bytes (the comparison is on whole words).
fn word_candidates(input: &Input) -> Vec<Input> {
    super::reduce::shrink_candidates(input)
        .into_iter()
        .filter(|c| matches!(c, Input::Bytes { bytes } if bytes.len() == 8))
        .collect()
}

/// A name for an offset form (for keys and messages).
pub fn offset_form(o: Offset) -> &'static str {
    match o {
        Offset::None => "no",
        Offset::Imm(_) => "immediate",
        Offset::Sgpr(_) => "register",
        Offset::SgprImm { .. } => "register-plus-immediate",
        Offset::Soffset(_) => "SOE-only register",
    }
}

/// The oracle's verdict on `word` against a disassembler's `pieces`
/// (LLVM `version`).
pub fn compare_word(gen: SmemGen, version: u32, word: u64, pieces: &[Piece]) -> Verdict {
    let mut e = smem_diff::expect(version, gen, word);
    let got: String;
    let llvm = match pieces.first() {
        None | Some(Piece::Invalid { at: 0 }) => LlvmView::Rejected,
        Some(Piece::Invalid { .. }) => LlvmView::Rejected,
        Some(Piece::Insn {
            size,
            text,
            comment,
        }) => {
            match comment {
                // `llvm-mc` prints no annotation comments: compare the
                // instruction only.
                None => {
                    if let Expectation::Text { comment, .. } = &mut e {
                        comment.clear();
                    }
                    got = text.clone();
                }
                Some(c) if c.is_empty() => got = text.clone(),
                Some(c) => got = format!("{text} ; {c}"),
            }
            LlvmView::Decoded {
                size: size.unwrap_or(0),
                text: &got,
            }
        }
    };
    match smem_diff::compare(gen, &e, llvm) {
        Outcome::Same => Verdict::Same,
        Outcome::Known(ds) => {
            let tags: Vec<String> = ds
                .iter()
                .map(|d| format!("divergence:{}", d.name()))
                .collect();
            Verdict::Differs(Difference {
                message: word_message(gen, word, &e, pieces),
                key: format!("known divergence {}", tags.join("+")),
                tags,
                informational: false,
            })
        }
        Outcome::Fixed(ds) => {
            // Listed for the record (a fix to report as such), never a
            // new finding: the peer's verdict is the oracle's.
            let names: Vec<String> = ds
                .iter()
                .map(|d| {
                    let v = d.versions();
                    format!("{} (LLVM {}-{})", d.name(), v.start(), v.end())
                })
                .collect();
            let past = ds.iter().all(|d| version > *d.versions().end());
            let how = if past { "fixed in" } else { "agrees in" };
            Verdict::Differs(Difference {
                message: format!(
                    "{} LLVM {version}: rejects {}, as the oracle does, where earlier LLVM printed text",
                    how,
                    word_message(gen, word, &e, pieces)
                ),
                key: format!("{how} LLVM {version}: {}", names.join(" + ")),
                tags: Vec::new(),
                informational: true,
            })
        }
        Outcome::Different => Verdict::Differs(Difference {
            message: word_message(gen, word, &e, pieces),
            key: word_key(gen, word, &e, pieces),
            tags: Vec::new(),
            informational: false,
        }),
    }
}

fn expectation_text(e: &Expectation) -> String {
    match e {
        Expectation::NotSmem => "no SMEM instruction".to_owned(),
        Expectation::Reject => "<invalid>".to_owned(),
        Expectation::Refused(_) => "<invalid> (a listed divergence)".to_owned(),
        Expectation::Unmodelled => "<invalid> (no rule predicts LLVM's text)".to_owned(),
        Expectation::Text { text, comment, .. } if comment.is_empty() => text.clone(),
        Expectation::Text { text, comment, .. } => format!("{text} ; {comment}"),
    }
}

fn pieces_text(pieces: &[Piece]) -> String {
    View::Disasm {
        pieces: pieces.to_vec(),
    }
    .display()
}

fn word_message(gen: SmemGen, word: u64, e: &Expectation, pieces: &[Piece]) -> String {
    let d = smem::decode(gen, word);
    format!(
        "word {word:#018x} ({}): oracle {} `{}`; expected from LLVM: {}; peer printed: {}",
        smem_diff::word_bytes(word),
        smem_diff::verdict_text(&d),
        d.instruction.map(|i| i.to_string()).unwrap_or_default(),
        expectation_text(e),
        pieces_text(pieces)
    )
}

/// The normalized description of a word difference: what the oracle
/// expected (its verdict class and the mnemonic) and what the peer did, so
/// that words showing one problem share it.
fn word_key(gen: SmemGen, word: u64, e: &Expectation, pieces: &[Piece]) -> String {
    let d = smem::decode(gen, word);
    let oracle = match d.verdict {
        SmemVerdict::Valid => "valid".to_owned(),
        SmemVerdict::NonCanonical { .. } => "non-canonical".to_owned(),
        SmemVerdict::Invalid(r) => {
            let k = format!("{r:?}");
            format!("invalid ({})", k.split('(').next().unwrap_or(""))
        }
    };
    let expected = match e {
        Expectation::NotSmem => "not SMEM",
        Expectation::Reject => "reject",
        Expectation::Refused(_) => "reject (listed divergence)",
        Expectation::Unmodelled => "reject (unmodelled)",
        Expectation::Text { .. } => "text",
    };
    let got = match pieces.first() {
        None | Some(Piece::Invalid { .. }) => "rejects".to_owned(),
        Some(Piece::Insn { size, text, .. }) => {
            // "SMEM" or "another instruction" rather than its name, to
            // stay stable.
            let m = if smem_diff::is_smem_text(gen, text) {
                "SMEM"
            } else {
                "another instruction"
            };
            match (e, size) {
                (Expectation::Text { text: t, .. }, Some(8)) if t == text => {
                    "same text, other comment".to_owned()
                }
                (_, Some(8)) | (_, None) => format!("prints {m}"),
                (_, Some(n)) => format!("prints {m} ({n} bytes)"),
            }
        }
    };
    // The class and offset form, not the mnemonic: one decoding problem
    // usually spans a whole class.
    let shape = d.instruction.map_or_else(
        || format!("opcode {}", d.opcode),
        |i| format!("{:?} with {} offset", i.op.class, offset_form(i.offset)),
    );
    format!("{shape}: oracle {oracle}, expected {expected}, peer {got}")
}

/// `smem-encode`: the oracle's encoding against an assembler peer's.
pub struct SmemEncode {
    seed: u64,
    count: u64,
}

impl SmemEncode {
    /// `count` valid instructions per processor from generated streams.
    pub fn generated(seed: u64, count: u64) -> Self {
        Self { seed, count }
    }
}

/// The assembler dialect of LLVM `version`.
pub fn dialect(version: u32) -> Dialect {
    if version <= 14 {
        Dialect::Llvm14
    } else {
        Dialect::Llvm19
    }
}

impl Comparison for SmemEncode {
    fn id(&self) -> ComparisonId {
        ComparisonId::SmemEncode
    }
    fn applies(&self, target: &Target) -> Result<(), String> {
        family(target).map(|_| ())
    }
    fn chunks(&self, _target: &Target) -> u64 {
        self.count.div_ceil(ENCODE_CHUNK)
    }
    fn inputs(&self, target: &Target, chunk: u64) -> Vec<Input> {
        let n = chunk_len(self.count, chunk, ENCODE_CHUNK);
        // Another stream space than smem-disasm's (chunk numbers offset).
        stream_words(target, self.seed, chunk | (1 << 40), n as usize, true)
            .into_iter()
            .map(Input::word)
            .collect()
    }
    fn origin(&self, target: &Target, chunk: u64, index: usize) -> String {
        format!("{} chunk {chunk}: stream instruction {index}", target.name)
    }
    fn render(&self, peer: &dyn Peer, target: &Target, input: &Input) -> Result<Input, String> {
        let gen = family(target)?;
        let version = peer.info().version.ok_or("the peer has no LLVM version")?;
        let word = input.first_word().ok_or("not an instruction word")?;
        let d = smem::decode(gen, word);
        let i = match (d.verdict, d.instruction) {
            (SmemVerdict::Valid, Some(i)) => i,
            _ => return Err("not a valid canonical SMEM word".to_owned()),
        };
        if matches!(i.offset, Offset::Soffset(_)) {
            return Err("GFX9's SOE-only offset form has no assembler text".to_owned());
        }
        let text = smem::parse::format(&i, dialect(version));
        // LLVM 14 has no syntax for some offset forms (GFX9's SOFFSET plus
        // immediate, GFX10's register plus immediate): its spelling then
        // names another word, and the encodings cannot be compared.
        let back = smem::parse::parse(gen, &text)
            .ok()
            .and_then(|j| smem::encode(&j).ok());
        if back != Some(word) {
            return Err(format!(
                "LLVM {version} has no syntax for this offset form ({})",
                offset_form(i.offset)
            ));
        }
        Ok(Input::Asm { text })
    }
    fn shrink(&self, input: &Input) -> Vec<Input> {
        word_candidates(input)
    }
    fn compare(
        &self,
        _peer: &dyn Peer,
        target: &Target,
        input: &Input,
        view: &View,
        _reference: Option<&View>,
    ) -> Verdict {
        let Ok(gen) = family(target) else {
            return Verdict::NotComparable(format!("{} has no SMEM model", target.name));
        };
        let Some(word) = input.first_word() else {
            return Verdict::NotComparable("not an instruction word".to_owned());
        };
        let View::Encoding { result } = view else {
            return Verdict::NotComparable("not an encoding".to_owned());
        };
        let d = smem::decode(gen, word);
        let text = d.instruction.map(|i| i.to_string()).unwrap_or_default();
        let shape = d.instruction.map_or_else(
            || "?".to_owned(),
            |i| format!("{:?} with {} offset", i.op.class, offset_form(i.offset)),
        );
        match result {
            Ok(b) if b.as_slice() == word.to_le_bytes() => Verdict::Same,
            Ok(b) => {
                let mut got = [0u8; 8];
                for (d, s) in got.iter_mut().zip(b) {
                    *d = *s;
                }
                let xor = u64::from_le_bytes(got) ^ word;
                Verdict::Differs(Difference {
                    message: format!(
                        "`{text}`: the oracle encodes {} ({word:#018x}), the peer {}",
                        smem_diff::word_bytes(word),
                        super::bytes_line(b)
                    ),
                    key: if b.len() == 8 {
                        format!("{shape}: other encoding, bits {xor:#018x} differ")
                    } else {
                        format!("{shape}: other encoding of {} bytes", b.len())
                    },
                    tags: Vec::new(),
                    informational: false,
                })
            }
            Err(e) => Verdict::Differs(Difference {
                message: format!(
                    "`{text}`: the oracle encodes {} ({word:#018x}), the peer rejects it: {e}",
                    smem_diff::word_bytes(word)
                ),
                key: format!("{shape}: rejected: {}", normalize_message(e)),
                tags: Vec::new(),
                informational: false,
            }),
        }
    }
}

/// A message with numbers replaced by `N` (for signatures).
pub fn normalize_message(m: &str) -> String {
    let mut s = String::with_capacity(m.len());
    let mut in_num = false;
    for c in m.chars() {
        if c.is_ascii_digit() {
            if !in_num {
                s.push('N');
            }
            in_num = true;
        } else {
            in_num = false;
            s.push(c);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsaco_oracle::targets::by_name;

    #[test]
    fn generated_chunks_are_deterministic_and_mostly_smem() {
        let t = by_name("gfx900").expect("gfx900");
        let c = SmemDisasm::generated(5, 10_000);
        assert_eq!(c.chunks(t), 3);
        let a = c.inputs(t, 1);
        assert_eq!(a, c.inputs(t, 1));
        assert_eq!(a.len(), 4096);
        assert_eq!(c.inputs(t, 2).len(), 10_000 - 8192);
        assert_ne!(a, c.inputs(t, 0));
        // The stream half is valid SMEM, the random half mostly not.
        let gen = SmemGen::Gfx9;
        let valid = |i: &Input| {
            !matches!(
                smem::decode(gen, i.first_word().expect("word")).verdict,
                SmemVerdict::Invalid(_)
            )
        };
        assert!(a[..2048].iter().all(valid));
        let random_valid = a[2048..].iter().filter(|i| valid(i)).count();
        assert!(random_valid < 1500, "{random_valid}");
        assert!(c.origin(t, 1, 3).contains("stream word 3"));
        assert!(c.origin(t, 1, 2048).contains("random word 2048"));
    }

    #[test]
    fn encode_inputs_render_per_dialect() {
        let t = by_name("gfx1030").expect("gfx1030");
        let c = SmemEncode::generated(1, 100);
        let v = c.inputs(t, 0);
        assert_eq!(v.len(), 100);
        for i in &v {
            let d = smem::decode(SmemGen::Gfx10_3, i.first_word().expect("word"));
            assert_eq!(d.verdict, SmemVerdict::Valid);
        }
    }

    #[test]
    fn smem_lines_are_recognised() {
        let t = by_name("gfx900").expect("gfx900");
        assert!(SmemDisasm::is_smem_line(
            t,
            &[0x41, 0x01, 0x02, 0xc0, 0x10, 0, 0, 0]
        ));
        assert!(!SmemDisasm::is_smem_line(t, &[0x41, 0x01, 0x02, 0xc0]));
        assert!(!SmemDisasm::is_smem_line(t, &[0xf9, 6, 2, 2, 2, 7, 6, 6]));
        let old = by_name("gfx700").expect("gfx700");
        assert!(!SmemDisasm::is_smem_line(
            old,
            &[0x41, 0x01, 0x02, 0xc0, 0x10, 0, 0, 0]
        ));
    }

    #[test]
    fn word_comparison_against_pieces() {
        let w = 0x0000_0010_c002_0141u64; // s_load_dword s5, s[2:3], 0x10 (gfx900)
        let insn = |t: &str, c: Option<&str>| Piece::Insn {
            size: Some(8),
            text: t.to_owned(),
            comment: c.map(str::to_owned),
        };
        let gen = SmemGen::Gfx9;
        assert_eq!(
            compare_word(gen, 19, w, &[insn("s_load_dword s5, s[2:3], 0x10", None)]),
            Verdict::Same
        );
        assert_eq!(
            compare_word(
                gen,
                19,
                w,
                &[insn("s_load_dword s5, s[2:3], 0x10", Some(""))]
            ),
            Verdict::Same
        );
        let Verdict::Differs(d) = compare_word(gen, 19, w, &[Piece::Invalid { at: 0 }]) else {
            panic!("a rejected valid word differs");
        };
        assert_eq!(
            d.key,
            "Load with immediate offset: oracle valid, expected text, peer rejects"
        );
        assert!(d.tags.is_empty());
        // Misaligned x2 destination s5: LLVM rounds down and warns.
        let m = 0x0000_0010_c006_0141u64;
        let Verdict::Differs(d) = compare_word(
            gen,
            19,
            m,
            &[insn("s_load_dwordx2 s[4:5], s[2:3], 0x10", None)],
        ) else {
            panic!("a known divergence is a tagged difference");
        };
        assert_eq!(d.tags, vec!["divergence:misaligned-tuple"]);
        assert_eq!(normalize_message("operand 12 at 0x40"), "operand N at NxN");
        // The same word rejected: LLVM 22's verdict is the oracle's. Past
        // the versions known to print it, it is a fix, listed apart and
        // never a new finding.
        let rejected = [Piece::Invalid { at: 0 }];
        let Verdict::Differs(d) = compare_word(gen, 22, m, &rejected) else {
            panic!("a fixed divergence is listed");
        };
        assert!(d.informational);
        assert!(d.tags.is_empty());
        assert_eq!(d.key, "fixed in LLVM 22: misaligned-tuple (LLVM 14-19)");
        // Within those versions a rejecting LLVM still agrees with the
        // oracle, though it was not seen to.
        let Verdict::Differs(d) = compare_word(gen, 19, m, &rejected) else {
            panic!("an agreeing verdict is listed");
        };
        assert!(d.informational);
        assert_eq!(d.key, "agrees in LLVM 19: misaligned-tuple (LLVM 14-19)");
    }

    #[test]
    fn rejecting_a_word_the_oracle_accepts_is_a_difference() {
        // GFX9 with SOE set: LLVM 14 reads it as if SOE were clear (a
        // divergence on a word the oracle calls valid). An LLVM that
        // rejects it disagrees with the oracle's verdict.
        let gen = SmemGen::Gfx9;
        let w = 0x0000_0010_c002_4141u64 | 1 << 14;
        let e = smem_diff::expect(14, gen, w);
        assert!(
            matches!(
                e,
                Expectation::Text {
                    oracle_invalid: false,
                    ..
                }
            ),
            "{e:?}"
        );
        let Verdict::Differs(d) = compare_word(gen, 14, w, &[Piece::Invalid { at: 0 }]) else {
            panic!("rejecting a valid word differs");
        };
        assert!(!d.informational);
    }
}
