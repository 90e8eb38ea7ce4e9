//! The instruction layer against LLVM's disassembler: how the oracle's
//! decode of a word and LLVM's text compare, with every known, understood
//! difference as a named [`Divergence`] whose exact text is predicted.
//!
//! A comparison has four outcomes: both call the word invalid, or both
//! print the same instruction of the same length ([`Outcome::Agree`]);
//! LLVM prints what a divergence predicts character for character
//! ([`Outcome::Known`]); anything else is a difference
//! ([`Outcome::Different`]). LLVM's own `/*Invalid immediate*/` and
//! `/*Invalid register...*/` comments are LLVM saying the word is
//! invalid: they agree with an oracle verdict of invalid.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use hsaco_gen::isa::WORD_BYTES;
use hsaco_oracle::isa::{
    encoding, operand, Decoded, Decoder, Field, File, Invalid, IsaGen, Operand, Verdict,
};
use hsaco_oracle::targets::Target;

use crate::conform::allowlist::{Allowlist, Subject};
use crate::conform::isolate::{Isolated, Reply, WorkerSpec, PAST_END_PAD};
use crate::conform::llvm::decode_pieces;
use crate::conform::Piece;
use crate::peers::llvm_disasm::LibInfo;

/// A known, understood difference between the oracle and LLVM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Divergence {
    /// LLVM rounds a misaligned SGPR or trap-temporary tuple down and only
    /// warns (`; Warning: SGPR_64: scalar reg isn't aligned 77`); its
    /// assembler refuses the register ("invalid register alignment") and
    /// the oracle calls the word invalid.
    MisalignedTuple,
    /// GFX8/GFX9 operand code 125: LLVM's disassembler prints `null`,
    /// which these processors do not have ("'null' operand is not
    /// supported on this GPU"); the oracle calls the word invalid.
    NullBeforeGfx10,
    /// LLVM prints a read-only source value (`src_scc`, `src_vccz`,
    /// `src_shared_base`, ...) in an operand its assembler refuses it for:
    /// a register-only operand (`s_setpc_b64 src_scc`), or on GFX12, where
    /// `src_vccz`, `src_execz` and `src_pops_exiting_wave_id` are gone,
    /// or `src_lds_direct` as a GFX12 barrier operand (`s_barrier_init
    /// src_lds_direct`: "invalid operand for instruction"); the oracle
    /// calls the word invalid.
    SourceNotAccepted,
    /// LLVM 22 prints operand codes 230 and 231 as
    /// `src_flat_scratch_base_lo/hi` on every processor, and its assembler
    /// refuses them everywhere but GFX12.5 ("register not available on
    /// this GPU"); the oracle calls the word invalid there.
    Llvm22SrcFlatScratchBase,
    /// GFX12.5 operand code 254 (a 64-bit literal) in a 32- or 16-bit
    /// source: LLVM 22 decodes and prints it (`s_mov_b32 s0,
    /// lit64(0x12)`), yet its assembler encodes that text with a 32-bit
    /// literal (another length) or refuses it (16-bit operands), and its
    /// decoder asserts that only 64-bit operands take one; the oracle
    /// calls the word invalid.
    Llvm22Lit64NarrowOperand,
    /// GFX12.5: one operand with the 32-bit literal code (or a
    /// literal-only operand such as `s_fmamk_f32`'s K) and another with
    /// the 64-bit one: LLVM 22 reads a single literal, as long as the
    /// first of them in operand order wants, and prints it for both
    /// (`s_add_co_u32 s0, 0x12345678, lit64(0x12345678)`); its assembler
    /// writes one code for both. The oracle calls the word invalid.
    Llvm22MixedLiterals,
    /// LLVM 19 decodes another set of opcodes than LLVM 22 on this
    /// processor: an instruction LLVM 22 dropped (`s_singleuse_vdst` on
    /// GFX11.5 and GFX12, `s_wakeup_barrier` on gfx1200) or one it added
    /// (`s_alloc_vgpr` on GFX12). The oracle follows LLVM 22; LLVM 19
    /// prints what its own rows (table `Llvm::Until19`) predict.
    Llvm19OpcodeSet,
}

impl Divergence {
    /// Every divergence.
    pub const ALL: [Divergence; 7] = [
        Self::MisalignedTuple,
        Self::NullBeforeGfx10,
        Self::SourceNotAccepted,
        Self::Llvm22SrcFlatScratchBase,
        Self::Llvm22Lit64NarrowOperand,
        Self::Llvm22MixedLiterals,
        Self::Llvm19OpcodeSet,
    ];

    /// Stable kebab-case name (the allowlist tag is `isa:` + it).
    pub fn name(self) -> &'static str {
        match self {
            Self::MisalignedTuple => "misaligned-tuple",
            Self::NullBeforeGfx10 => "null-before-gfx10",
            Self::SourceNotAccepted => "source-not-accepted",
            Self::Llvm22SrcFlatScratchBase => "llvm22-src-flat-scratch-base",
            Self::Llvm22Lit64NarrowOperand => "llvm22-lit64-narrow-operand",
            Self::Llvm22MixedLiterals => "llvm22-mixed-literals",
            Self::Llvm19OpcodeSet => "llvm19-opcode-set",
        }
    }

    /// The LLVM major versions known to show it.
    pub fn versions(self) -> std::ops::RangeInclusive<u32> {
        match self {
            Self::Llvm22SrcFlatScratchBase
            | Self::Llvm22Lit64NarrowOperand
            | Self::Llvm22MixedLiterals => 22..=22,
            Self::MisalignedTuple | Self::NullBeforeGfx10 | Self::SourceNotAccepted => 14..=22,
            Self::Llvm19OpcodeSet => 14..=19,
        }
    }
}

/// How one word compares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Same verdict, and for valid words the same length and text.
    Agree,
    /// LLVM prints exactly what these divergences predict.
    Known(Vec<Divergence>),
    /// A difference no divergence explains.
    Different {
        /// The oracle's view: length and text, or the reason it is invalid.
        oracle: String,
        /// LLVM's: length and text, or "invalid".
        llvm: String,
    },
}

/// True if LLVM's text marks the word invalid itself.
pub fn llvm_marks_invalid(text: &str) -> bool {
    text.contains("/*Invalid")
}

/// The register class name LLVM's alignment warning gives a tuple.
fn class_name(file: File, count: u8) -> String {
    let f = match file {
        File::Ttmp => "TTMP",
        _ => "SGPR",
    };
    format!("{f}_{}", u32::from(count) * 32)
}

/// What LLVM prints for `d` when the only reasons it is invalid are
/// divergences: the text and the divergences it shows, or `None`.
fn predict(t: &Target, version: u32, d: &Decoded) -> Option<(String, Vec<Divergence>)> {
    let insn = d.insn?;
    let gen = d.gen;
    let mut divs = Vec::new();
    match d.verdict {
        Verdict::Invalid(Invalid::Operand { .. }) => {}
        Verdict::Invalid(Invalid::MixedLiterals) => divs.push(Divergence::Llvm22MixedLiterals),
        _ => return None,
    }
    if insn
        .operands()
        .any(|(_, op)| matches!(op, Operand::Literal(_)))
        && insn
            .operands()
            .any(|(_, op)| matches!(op, Operand::Literal64(_)))
        && !divs.contains(&Divergence::Llvm22MixedLiterals)
    {
        divs.push(Divergence::Llvm22MixedLiterals);
    }
    let mut warnings = String::new();
    let mut mapped = Vec::with_capacity(insn.row.slots.len());
    for (slot, op) in insn.operands() {
        let good = hsaco_oracle::isa::decode::operand_allowed(gen, t, slot, op);
        let op = if good {
            op
        } else {
            match op {
                Operand::Reg { file, first, count }
                    if matches!(file, File::Sgpr | File::Ttmp) && count >= 2 =>
                {
                    let align = if count == 2 { 2 } else { 4 };
                    let down = first - first % align;
                    let rounded = Operand::Reg {
                        file,
                        first: down,
                        count,
                    };
                    if down == first
                        || !hsaco_oracle::isa::decode::operand_allowed(gen, t, slot, rounded)
                    {
                        return None;
                    }
                    let _ = write!(
                        warnings,
                        "Warning: {}: scalar reg isn't aligned {first}",
                        class_name(file, count)
                    );
                    divs.push(Divergence::MisalignedTuple);
                    rounded
                }
                Operand::Null if gen < IsaGen::Gfx10 => {
                    divs.push(Divergence::NullBeforeGfx10);
                    op
                }
                Operand::Source(230 | 231) if version >= 22 && !t.is_gfx12_5() => {
                    divs.push(Divergence::Llvm22SrcFlatScratchBase);
                    op
                }
                // GFX12.5 has them, but not in every operand.
                Operand::Source(230 | 231) if version >= 22 => {
                    divs.push(Divergence::SourceNotAccepted);
                    op
                }
                Operand::Literal64(_) if version >= 22 => {
                    divs.push(Divergence::Llvm22Lit64NarrowOperand);
                    op
                }
                Operand::Source(235..=239 | 251..=254) => {
                    divs.push(Divergence::SourceNotAccepted);
                    op
                }
                _ => return None,
            }
        };
        mapped.push(op);
    }
    let mut text = String::new();
    let dialect = if version < 22 {
        hsaco_oracle::isa::Dialect::Llvm19
    } else {
        hsaco_oracle::isa::Dialect::Llvm22
    };
    // Mixed literal sizes without a literal-only operand: LLVM reads a
    // 64-bit literal and shows it whole in the 32-bit-code operands too.
    let mixed64 = divs.contains(&Divergence::Llvm22MixedLiterals)
        && !insn
            .row
            .slots
            .iter()
            .any(|s| s.field == hsaco_oracle::isa::Field::Literal);
    let value = insn.literal.unwrap_or(0);
    insn.write_text_over(
        t,
        gen,
        dialect,
        &mut text,
        |i, _| mapped[i],
        |i, op| match op {
            Operand::Literal(_) if mixed64 => {
                let ty = insn.row.slots.get(i)?.ty;
                Some(mixed_literal_text(value, ty))
            }
            _ => None,
        },
    )
    .ok()?;
    if !warnings.is_empty() {
        text.push_str(" ; ");
        text.push_str(&warnings);
    }
    divs.sort();
    divs.dedup();
    let _ = operand::File::Sgpr;
    Some((text, divs))
}

/// How LLVM 22 prints a 32-bit-literal-code operand of type `ty` when
/// the instruction's literal is the 64-bit `v` (errata ISA 3): a value
/// an inline constant could encode as `lit(0x...)` with all 64 bits,
/// else the value (64-bit operands) or its low dword, in hex.
fn mixed_literal_text(v: u64, ty: hsaco_oracle::isa::OpType) -> String {
    use hsaco_oracle::isa::OpType;
    let wide = ty.dwords() == 2;
    let half = matches!(ty, OpType::F16 | OpType::F16Bits);
    let inline = if wide {
        (-16..=64).contains(&(v as i64)) || operand::float_code64(v).is_some()
    } else if ty == OpType::F16 {
        (-16..=64).contains(&(v as u16 as i16)) || operand::float16_code(v as u16).is_some()
    } else {
        (-16..=64).contains(&(v as u32 as i32)) || operand::float32_code(v as u32).is_some()
    };
    match (inline, wide, half) {
        (true, _, _) => format!("lit({v:#x})"),
        (false, true, _) => format!("{v:#x}"),
        (false, false, true) => format!("{:#x}", v as u16),
        (false, false, false) => format!("{:#x}", v as u32),
    }
}

/// The oracle's text of `d` in the syntax of LLVM `version`.
pub fn text_in(d: &Decoded, version: u32) -> String {
    let dialect = if version < 22 {
        hsaco_oracle::isa::Dialect::Llvm19
    } else {
        hsaco_oracle::isa::Dialect::Llvm22
    };
    let mut s = String::new();
    let _ = d.write_text_in(dialect, &mut s);
    s
}

/// Compares the oracle's decode `d` of a word on `t` with LLVM
/// `version`'s disassembly of it (`None`: invalid).
pub fn compare(t: &Target, version: u32, d: &Decoded, llvm: Option<(usize, &str)>) -> Outcome {
    let llvm = llvm.filter(|(_, text)| !llvm_marks_invalid(text));
    match (d.verdict, llvm) {
        (Verdict::Invalid(_), None) => Outcome::Agree,
        (Verdict::Valid, Some((n, text)))
            if n == usize::from(d.len) && text_in(d, version) == text =>
        {
            Outcome::Agree
        }
        (Verdict::Invalid(_), Some((n, text))) => match predict(t, version, d) {
            Some((p, divs))
                if p == text
                    && !divs.is_empty()
                    && n == usize::from(d.len)
                    && divs.iter().all(|v| v.versions().contains(&version)) =>
            {
                Outcome::Known(divs)
            }
            _ => Outcome::Different {
                oracle: format!("invalid: {:?}", d.verdict),
                llvm: format!("{n} bytes: {text}"),
            },
        },
        (_, llvm) => Outcome::Different {
            oracle: match d.verdict {
                Verdict::Valid => format!("{} bytes: {}", d.len, text_in(d, version)),
                v => format!("invalid: {v:?}"),
            },
            llvm: match llvm {
                Some((n, t)) => format!("{n} bytes: {t}"),
                None => "invalid".to_owned(),
            },
        },
    }
}

/// A word LLVM crashed or hung on.
#[derive(Clone, Debug)]
pub struct CrashedWord {
    /// The word's first 8 bytes, little-endian.
    pub word: u64,
    /// How: `SIGSEGV (11)`, or `hang`.
    pub status: String,
    /// The known crash it is (allowlist ids), or `None` when it is new.
    pub known: Option<Vec<String>>,
}

/// One kind of unexplained difference, with a first example.
#[derive(Clone, Debug, Default)]
pub struct Group {
    /// Words of this kind.
    pub count: u64,
    /// The first word's bytes and both views.
    pub example: String,
}

/// What a run of words through one LLVM on one processor found.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Words compared (crashes excluded).
    pub compared: u64,
    /// Words where the oracle and LLVM agree.
    pub agree: u64,
    /// Words LLVM prints as the named divergences predict, by the
    /// divergences' names joined with `+`.
    pub known: BTreeMap<String, u64>,
    /// Unexplained differences, grouped by family, instruction and the
    /// two verdicts.
    pub different: BTreeMap<String, Group>,
    /// Words LLVM crashed or hung on.
    pub crashed: Vec<CrashedWord>,
}

impl Tally {
    /// Unexplained differences.
    pub fn different_count(&self) -> u64 {
        self.different.values().map(|g| g.count).sum()
    }

    /// Words LLVM printed as a divergence predicts.
    pub fn known_count(&self) -> u64 {
        self.known.values().sum()
    }

    /// Adds `other`'s counts to these.
    pub fn merge(&mut self, other: Tally) {
        self.compared += other.compared;
        self.agree += other.agree;
        for (k, n) in other.known {
            *self.known.entry(k).or_default() += n;
        }
        for (k, g) in other.different {
            let e = self.different.entry(k).or_default();
            e.count += g.count;
            if e.example.is_empty() {
                e.example = g.example;
            }
        }
        self.crashed.extend(other.crashed);
    }
}

/// The worker that runs libLLVM `info`'s disassembler for these
/// comparisons: the `hsaco-conform` binary `program`, crash-isolated.
pub fn libllvm_worker(program: PathBuf, info: &LibInfo, scratch: PathBuf) -> Isolated {
    Isolated::new(WorkerSpec {
        program,
        task: "libllvm-disasm".to_owned(),
        arg: format!("{}@{}", info.version, info.path.display()),
        env: Vec::new(),
        timeout: Duration::from_secs(30),
        scratch,
    })
}

/// Compares the oracle's decode of each of `words` (an instruction, the
/// bytes a literal would take, padding) on `t` with LLVM `version`'s, run
/// in `worker`. Only the first instruction of each word is compared; it
/// is given to LLVM followed by zero bytes, so that whatever its literal
/// bytes start decodes whole (LLVM 22 crashes on a missing literal,
/// errata SMEM 16). Crashes are matched against `allowlist`.
pub fn diff_words(
    worker: &mut Isolated,
    allowlist: &Allowlist,
    t: &'static Target,
    version: u32,
    words: &[[u8; WORD_BYTES]],
) -> Tally {
    let mut tally = Tally::default();
    let Some(dec) = Decoder::for_target(t) else {
        return tally;
    };
    // What LLVM `version` itself decodes, where its opcodes differ.
    let as_llvm = (version < 22)
        .then(|| Decoder::as_llvm(t, version))
        .flatten();
    let payloads: Vec<String> = words
        .iter()
        .map(|b| {
            let mut s = String::with_capacity(2 * (b.len() + PAST_END_PAD));
            for x in b.iter().chain([0u8; PAST_END_PAD].iter()) {
                let _ = write!(s, "{x:02x}");
            }
            s
        })
        .collect();
    let mut replies: Vec<Option<Reply>> = vec![None; words.len()];
    worker.run(t.name, &payloads, &mut |k, r| {
        if let Some(slot) = replies.get_mut(k) {
            *slot = Some(r);
        }
    });
    let peer = format!("libllvm-{version}");
    for (bytes, reply) in words.iter().zip(replies) {
        let mut w8 = [0u8; 8];
        w8.copy_from_slice(&bytes[..8]);
        let word = u64::from_le_bytes(w8);
        let theirs = match reply {
            Some(Reply::Ok(s)) => match decode_pieces(&s).and_then(|p| p.into_iter().next()) {
                Some(Piece::Insn {
                    size,
                    text,
                    comment,
                }) => {
                    let text = match comment.filter(|c| !c.is_empty()) {
                        Some(c) => format!("{text} ; {c}"),
                        None => text,
                    };
                    Some((size.unwrap_or(0), text))
                }
                _ => None,
            },
            Some(r @ (Reply::Crashed(_) | Reply::TimedOut(_))) => {
                let (kind, status) = match r {
                    Reply::Crashed(c) => ("crash", c.status),
                    _ => ("hang", "hang".to_owned()),
                };
                // The crash may be in an instruction the word's literal
                // bytes start: each 4-byte offset's word is asked.
                let mut padded = bytes.to_vec();
                padded.extend([0u8; PAST_END_PAD]);
                let known = (0..WORD_BYTES).step_by(4).find_map(|at| {
                    let mut w = [0u8; 8];
                    w.copy_from_slice(padded.get(at..at + 8)?);
                    let subject = Subject {
                        kind,
                        comparison: "isa-disasm",
                        component: "llvm",
                        peer: &peer,
                        family: "libllvm",
                        version: Some(version),
                        generation: t.generation,
                        tags: &[],
                        message: "",
                        word: Some(u64::from_le_bytes(w)),
                    };
                    allowlist
                        .classify(&subject)
                        .map(|ids| ids.into_iter().map(str::to_owned).collect::<Vec<_>>())
                });
                tally.crashed.push(CrashedWord {
                    word,
                    status,
                    known,
                });
                continue;
            }
            _ => None,
        };
        let ours = dec.decode(&bytes[..]);
        tally.compared += 1;
        let llvm = theirs.as_ref().map(|(n, s)| (*n, s.as_str()));
        let mut outcome = compare(t, version, &ours, llvm);
        if let (Outcome::Different { .. }, Some(v)) = (&outcome, &as_llvm) {
            let (o, i) = (ours.insn.map(|i| i.row), v.decode(&bytes[..]));
            if o != i.insn.map(|i| i.row) {
                match compare(t, version, &i, llvm) {
                    Outcome::Agree => outcome = Outcome::Known(vec![Divergence::Llvm19OpcodeSet]),
                    Outcome::Known(mut d) => {
                        d.push(Divergence::Llvm19OpcodeSet);
                        outcome = Outcome::Known(d);
                    }
                    Outcome::Different { .. } => {}
                }
            }
        }
        match outcome {
            Outcome::Agree => tally.agree += 1,
            Outcome::Known(d) => {
                let k: Vec<&str> = d.iter().map(|d| d.name()).collect();
                *tally.known.entry(k.join("+")).or_default() += 1;
            }
            Outcome::Different { oracle, llvm } => {
                let family =
                    encoding::identify(ours.gen, ours.word).map_or("?", |f| f.family.name());
                let name = ours.insn.map_or("?", |i| i.row.name);
                let key = format!(
                    "{family} {name} | oracle {} | LLVM {}",
                    oracle.split(':').next().unwrap_or(""),
                    if llvm == "invalid" {
                        "invalid"
                    } else {
                        "valid"
                    }
                );
                let g = tally.different.entry(key).or_default();
                g.count += 1;
                if g.example.is_empty() {
                    g.example =
                        format!("{word:#018x} on {}: oracle {oracle} / LLVM {llvm}", t.name);
                }
            }
        }
    }
    tally
}

/// One word per opcode row `t` has: the opcode, registers in the
/// register fields (s16 for a destination, s8 and s24 for sources:
/// aligned for any tuple), 0x1234 in a 16-bit immediate, and the literal
/// 0x4000 after it.
pub fn row_words(t: &'static Target) -> Vec<[u8; WORD_BYTES]> {
    let Some(gen) = IsaGen::of(t) else {
        return Vec::new();
    };
    let Some(dec) = Decoder::for_target(t) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for fmt in encoding::formats(gen) {
        for op in 0..(1u32 << fmt.opcode.width) {
            let Some(row) = dec.row(fmt.family, op as u16) else {
                continue;
            };
            let mut w = fmt.opcode.set(fmt.base(), u64::from(op));
            for slot in row.slots {
                let Some(bits) = fmt.field(slot.field) else {
                    continue;
                };
                let v = match slot.field {
                    Field::Sdst => 16,
                    Field::Ssrc0 => 8,
                    Field::Ssrc1 => 24,
                    Field::Simm16 => 0x1234,
                    Field::Literal => 0,
                };
                w = bits.set(w, v);
            }
            if encoding::identify(gen, w as u32).map(|f| f.family) != Some(fmt.family) {
                continue;
            }
            let mut b = [0u8; WORD_BYTES];
            let size = usize::from(fmt.size).min(8);
            b[..size].copy_from_slice(&w.to_le_bytes()[..size]);
            b[size..size + 4].copy_from_slice(&0x4000u32.to_le_bytes());
            out.push(b);
        }
    }
    out
}
