//! Target `smem_roundtrip`: the SMEM model's own consistency, for every
//! encoding family.
//!
//! Input: the first byte picks the family ([`SmemGen::ALL`], modulo) and
//! the mode (bit 7). Word mode: the next eight bytes (little-endian,
//! zero-padded) are a word, which must
//!
//! * decode without panicking, with a rule for every non-valid verdict;
//! * for a valid or non-canonical verdict, encode back: to the word itself
//!   when canonical, to the word without the unused bits otherwise, and
//!   that word must decode to the same instruction with a valid verdict;
//! * for an invalid verdict that names an operand (SDATA, SBASE, offset
//!   register or immediate), be refused by the encoder too;
//! * print (LLVM 19 syntax) and parse back to the same text and word
//!   (GFX9 SOE-only words parse to the plain SGPR form they print as;
//!   GFX8/GFX9 tuples reaching s102 print but are refused, as `llvm-mc`
//!   refuses them), and on GFX8–GFX10 do the same in LLVM 14's syntax.
//!
//! Text mode (bit 7 set): bit 6 picks LLVM 19 or 14 syntax and the rest of
//! the input, as UTF-8 (lossily), is parsed; whatever parses must encode,
//! print and parse back to itself.

use hsaco_oracle::smem::parse::{self, Dialect, ParseErrorKind, ParseOptions};
use hsaco_oracle::smem::{decode, encode, Instruction, InvalidReason, Offset, SmemGen, Verdict};

/// Runs one input; panics on any inconsistency.
pub fn run(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let gen = SmemGen::ALL[usize::from(sel & 0x3f) % SmemGen::ALL.len()];
    if sel & 0x80 == 0 {
        let mut w = [0u8; 8];
        for (d, s) in w.iter_mut().zip(rest) {
            *d = *s;
        }
        word(gen, u64::from_le_bytes(w));
    } else {
        let dialect = if sel & 0x40 == 0 {
            Dialect::Llvm19
        } else {
            Dialect::Llvm14
        };
        text(gen, &String::from_utf8_lossy(rest), dialect);
    }
}

/// The checks of one word.
pub fn word(gen: SmemGen, w: u64) {
    let d = decode(gen, w);
    let shown = d.to_string();
    assert_eq!(d.word, w);
    assert_eq!(d.verdict.rule().is_none(), d.verdict == Verdict::Valid);
    let Some(i) = d.instruction else {
        assert_eq!(shown, "<invalid>");
        return;
    };
    match d.verdict {
        Verdict::Invalid(r) => {
            assert_eq!(shown, "<invalid>");
            // Operands outside their class print as `<bad:N>`.
            let _ = i.to_string();
            if matches!(
                r,
                InvalidReason::SdataRegister(_)
                    | InvalidReason::SdataImmediate(_)
                    | InvalidReason::SbaseRegister(_)
                    | InvalidReason::OffsetNull
                    | InvalidReason::BufferOffsetNegative(_)
            ) {
                assert!(
                    encode(&i).is_err(),
                    "{gen:?} {w:#018x}: decode calls it invalid ({r}) but encode takes {i:?}"
                );
            }
        }
        Verdict::Valid | Verdict::NonCanonical { .. } => {
            let e = encode(&i)
                .unwrap_or_else(|err| panic!("{gen:?} {w:#018x}: {i:?} does not encode: {err}"));
            let canonical = match d.verdict {
                Verdict::NonCanonical { bits } => {
                    assert_ne!(bits, 0);
                    w & !bits
                }
                _ => w,
            };
            assert_eq!(
                e, canonical,
                "{gen:?} {w:#018x}: {i:?} encodes to {e:#018x}"
            );
            let d2 = decode(gen, e);
            assert_eq!(d2.verdict, Verdict::Valid, "{gen:?} {e:#018x}");
            assert_eq!(d2.instruction, Some(i), "{gen:?} {e:#018x}");
            print_parse(gen, &i, &shown);
        }
    }
}

/// GFX8/GFX9 SGPR tuples that reach s102/s103: `llvm-mc-19` prints them
/// (`s[100:103]`) but its assembler refuses them.
fn reaches_s102(i: &Instruction) -> bool {
    let c = i.op.class;
    let past = |first: u8, width: u8| first < 102 && u16::from(first) + u16::from(width) > 102;
    !i.gen.is_rdna()
        && ((c.has_sdata_regs() && past(i.sdata, i.op.width))
            || (c.has_sbase() && past(i.sbase, if c.buffer_base() { 4 } else { 2 })))
}

/// Display → parse → same text and word, for a valid canonical
/// instruction `i` that displays as `text`.
fn print_parse(gen: SmemGen, i: &Instruction, text: &str) {
    let parsed = parse::parse(gen, text);
    if reaches_s102(i) {
        assert!(
            matches!(&parsed, Err(e) if matches!(e.kind, ParseErrorKind::RegisterUnavailable(_))),
            "{gen:?} `{text}`: {parsed:?}"
        );
        return;
    }
    let p = parsed.unwrap_or_else(|e| panic!("{gen:?} `{text}` does not parse: {e}"));
    assert_eq!(p.to_string(), text);
    if let Offset::Soffset(r) = i.offset {
        // LLVM assembles the text of an SOE-only word to the SOE=0 word.
        assert_eq!(
            p,
            Instruction {
                offset: Offset::Sgpr(r),
                ..*i
            }
        );
    } else {
        assert_eq!(&p, i, "{gen:?} `{text}`");
        assert_eq!(encode(&p), encode(i));
    }
    if gen.is_gfx10() || matches!(gen, SmemGen::Gfx8 | SmemGen::Gfx9) {
        let t14 = parse::format(i, Dialect::Llvm14);
        let p14 = parse::parse_with(gen, &t14, ParseOptions::new(Dialect::Llvm14))
            .unwrap_or_else(|e| panic!("{gen:?} LLVM 14 `{t14}` does not parse: {e}"));
        assert_eq!(parse::format(&p14, Dialect::Llvm14), t14);
    }
}

/// The checks of one text.
pub fn text(gen: SmemGen, t: &str, dialect: Dialect) {
    let Ok(i) = parse::parse_with(gen, t, ParseOptions::new(dialect)) else {
        return;
    };
    let w = encode(&i)
        .unwrap_or_else(|e| panic!("{gen:?} `{t}` parses to {i:?}, which does not encode: {e}"));
    let d = decode(gen, w);
    assert_eq!(d.verdict, Verdict::Valid, "{gen:?} `{t}` → {w:#018x}");
    assert_eq!(d.instruction, Some(i), "{gen:?} `{t}` → {w:#018x}");
    let shown = i.to_string();
    assert_eq!(
        parse::parse(gen, &shown).as_ref(),
        Ok(&i),
        "{gen:?} `{t}` prints as `{shown}`"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smoke;
    use hsaco_oracle::smem::forms::forms;

    #[test]
    fn random_inputs() {
        for input in smoke::inputs(0x5e3e, 400, 24) {
            run(&input);
        }
    }

    #[test]
    fn every_form_roundtrips() {
        for gen in SmemGen::ALL {
            for (k, f) in forms(gen).iter().enumerate() {
                let c = f.op.class;
                let sdata = if c.has_sdata_regs() {
                    8
                } else {
                    3 * u8::from(c.has_sdata_imm())
                };
                let i = f.instruction(sdata, 4 * u8::from(c.has_sbase()), 7, 0x10);
                let w = encode(&i).expect("forms encode");
                let mut input = vec![gen_index(gen)];
                input.extend_from_slice(&w.to_le_bytes());
                run(&input);
                // The same word with a bit flipped, and its text.
                run(&[&input[..1], &(w ^ (1 << (k % 64))).to_le_bytes()[..]].concat());
                let mut t = vec![0x80 | gen_index(gen)];
                t.extend_from_slice(i.to_string().as_bytes());
                run(&t);
            }
        }
    }

    #[test]
    fn texts_in_both_dialects() {
        for (sel, t) in [
            (0xc1u8, "s_load_dword s5, s[2:3], 0x10"),
            (0x81, "S_LOAD_DWORD s5 s[2:3] 0x10 glc // comment"),
            (0x85, "s_load_b32 s5, s[2:3], s7 offset:0x10 th:TH_LOAD_NT"),
            (0x80, "s_load_dword s5, s[2:3], 1+2*3"),
            (0x82, "\u{0}s_load_dword ("),
        ] {
            let mut input = vec![sel];
            input.extend_from_slice(t.as_bytes());
            run(&input);
        }
    }

    fn gen_index(gen: SmemGen) -> u8 {
        SmemGen::ALL.iter().position(|g| *g == gen).expect("listed") as u8
    }

    #[test]
    fn selector_picks_every_family() {
        for (k, gen) in SmemGen::ALL.iter().enumerate() {
            assert_eq!(gen_index(*gen), k as u8);
        }
    }
}
