//! GFX12.5 SMEM (gfx1250, gfx1251: `nv` and `scale_offset`) against LLVM
//! 22, the only LLVM here that knows these processors:
//!
//! (a) every GFX12.5 instruction form, with random in-class operands,
//!     prints as `llvm-mc-22 -show-encoding` prints the text the oracle
//!     writes, encodes to the same word, and parses back;
//! (b) the parser accepts and refuses modifier spellings (every opcode ×
//!     `nv`, `nonv`, `scale_offset`, `noscale_offset`; orders, duplicates,
//!     commas, case) exactly as llvm-mc-22 does, and gfx1200 refuses the
//!     modifiers in both;
//! (c) random SMEM words with the NV and SCALE_OFFSET bits set decode as
//!     `llvm-mc-22 --disassemble` prints them (the buffer-load
//!     `scale_offset` LLVM prints but refuses to assemble is the
//!     divergence `llvm22-gfx1250-buffer-scale-offset`, checked both ways);
//! (d) libLLVM-22 in process agrees with `smem_diff`'s model of it on
//!     random words: no unexplained difference, and the gfx1200 modifier
//!     divergence never applies.

mod support;

use support::mc::{insn_lines, mc, reported_lines};

use hsaco_conform::peers::llvm_disasm::LlvmLib;
use hsaco_conform::smem_diff::{self, Divergence, Expectation};
use hsaco_oracle::smem::forms;
use hsaco_oracle::smem::parse;
use hsaco_oracle::smem::{self, tuple_name, Class, Instruction, Offset, SmemGen, Verdict};
use hsaco_oracle::targets::by_name;
use std::path::Path;

const CPUS: [&str; 2] = ["gfx1250", "gfx1251"];

fn gen_of(cpu: &str) -> SmemGen {
    SmemGen::for_target(by_name(cpu).expect("known processor")).expect("modelled")
}

/// Deterministic xorshift64*.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[(self.next() % v.len() as u64) as usize]
    }
}

fn parse_encoding(line: &str) -> Option<u64> {
    let (_, enc) = line.split_once("; encoding: [")?;
    let bytes: Vec<u8> = enc
        .trim_end_matches(']')
        .split(',')
        .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16))
        .collect::<Result<_, _>>()
        .ok()?;
    Some(u64::from_le_bytes(bytes.try_into().ok()?))
}

/// What `llvm-mc-22 -show-encoding` made of each text: `None` when it
/// reported an error for it (it may print an encoding all the same, as
/// for the refused buffer-load `scale_offset`), else the printed text and
/// the word. Each text is followed by a marker `s_nop` so that output
/// lines map to texts whatever llvm-mc prints.
fn assemble(tool: &Path, cpu: &str, texts: &[String]) -> Vec<Option<(String, u64)>> {
    assert!(texts.len() < 0xff00, "too many texts for the markers");
    let marker = |k: usize| format!("s_nop {:#x}", 0x100 + k);
    let input: String = texts
        .iter()
        .enumerate()
        .map(|(k, t)| format!("{t}\n{}\n", marker(k)))
        .collect();
    let (out, err) = mc(tool, cpu, &["-show-encoding"], &input);
    let errors = reported_lines(&err, "error:");
    let mut lines = insn_lines(&out).into_iter();
    let mut got = Vec::with_capacity(texts.len());
    for (k, text) in texts.iter().enumerate() {
        let mut mine = Vec::new();
        for l in lines.by_ref() {
            if l.split(';').next().map(str::trim) == Some(marker(k).as_str()) {
                break;
            }
            mine.push(l);
        }
        if errors.contains(&(2 * k + 1)) {
            got.push(None);
            continue;
        }
        assert_eq!(mine.len(), 1, "{cpu}: `{text}` gave {mine:?}");
        let line = &mine[0];
        let word = parse_encoding(line).unwrap_or_else(|| panic!("{cpu}: `{line}`"));
        let printed = line.split(';').next().unwrap_or("").trim().to_owned();
        got.push(Some((printed, word)));
    }
    assert!(lines.next().is_none(), "{cpu}: unconsumed llvm-mc output");
    got
}

/// Register numbers that start a valid tuple of `width` dwords.
fn tuples(gen: SmemGen, width: u8, base: bool) -> Vec<u8> {
    (0..128u8)
        .filter(|&v| tuple_name(gen, v, width, base).is_some())
        .collect()
}

/// A random valid instruction of form `f`.
fn instance(gen: SmemGen, f: &forms::Form, r: &mut Rng) -> Instruction {
    let c = f.op.class;
    let sdata = if c.has_sdata_regs() {
        r.pick(&tuples(gen, f.op.width, false))
    } else if c.has_sdata_imm() {
        (r.next() % 32) as u8
    } else {
        0
    };
    let sbase = if c.has_sbase() {
        r.pick(&tuples(gen, if c.buffer_base() { 4 } else { 2 }, true))
    } else {
        0
    };
    let (lo, hi) = gen.offset_range(c);
    let span = (i64::from(hi) - i64::from(lo) + 1) as u64;
    let imm = (i64::from(lo) + (r.next() % span) as i64) as i32;
    // Plain SGPRs, vcc halves, ttmps and m0: not null (the immediate form's
    // word) unless the form needs SOFFSET (prefetches).
    let regs: Vec<u8> = (0..106)
        .chain(106..108)
        .chain(108..124)
        .chain([125])
        .collect();
    let reg = if c.prefetch() && r.next().is_multiple_of(4) {
        gen.null()
    } else {
        r.pick(&regs)
    };
    f.instruction(sdata, sbase, reg, imm)
}

#[test]
fn every_form_encodes_prints_and_parses_like_llvm_mc_22() {
    let Some(tool) = support::require_tool("llvm-mc-22") else {
        return;
    };
    for (n, cpu) in CPUS.iter().enumerate() {
        let gen = gen_of(cpu);
        assert_eq!(gen, SmemGen::Gfx12_5);
        let mut r = Rng(0x1250 + n as u64);
        let mut insts = Vec::new();
        for f in forms::forms(gen) {
            for _ in 0..3 {
                insts.push(instance(gen, &f, &mut r));
            }
        }
        let texts: Vec<String> = insts.iter().map(|i| i.to_string()).collect();
        let got = assemble(&tool, cpu, &texts);
        let mut with = [0usize; 2];
        for ((i, text), g) in insts.iter().zip(&texts).zip(&got) {
            let (printed, word) = g
                .as_ref()
                .unwrap_or_else(|| panic!("{cpu}: llvm-mc-22 refuses `{text}`"));
            assert_eq!(printed, text, "{cpu}");
            assert_eq!(smem::encode(i), Ok(*word), "{cpu}: `{text}`");
            let d = smem::decode(gen, *word);
            assert_eq!(d.verdict, Verdict::Valid, "{cpu}: `{text}`");
            assert_eq!(d.instruction.as_ref(), Some(i), "{cpu}: `{text}`");
            assert_eq!(
                parse::parse(gen, printed).as_ref(),
                Ok(i),
                "{cpu}: `{text}`"
            );
            with[0] += usize::from(i.nv);
            with[1] += usize::from(i.scale_offset);
        }
        assert!(with[0] > 1000 && with[1] > 1000, "{cpu}: {with:?}");
        eprintln!(
            "{cpu}: {} instructions agree ({} with nv, {} with scale_offset)",
            texts.len(),
            with[0],
            with[1]
        );
    }
}

/// Texts around the modifiers for every opcode of `gen`.
fn modifier_texts(gen: SmemGen, r: &mut Rng) -> Vec<String> {
    let mut v = Vec::new();
    let words = ["nv", "nonv", "scale_offset", "noscale_offset"];
    for op in gen.table() {
        let f = forms::forms(gen)
            .into_iter()
            .find(|f| f.op == op && f.modifiers() == forms::Modifiers::default())
            .expect("a plain form");
        let plain = instance(gen, &f, r).to_string();
        for w in words {
            v.push(format!("{plain} {w}"));
        }
        v.push(format!("{plain} NV"));
        if matches!(op.class, Class::Load | Class::BufferLoad) {
            let th = "th:TH_LOAD_NT scope:SCOPE_SE";
            for (a, b) in [
                ("nv", "scale_offset"),
                ("scale_offset", "nv"),
                ("nv", "nv"),
                ("nonv", "nv"),
                ("scale_offset", "noscale_offset"),
                ("noscale_offset", "nv"),
            ] {
                v.push(format!("{plain} {a} {b}"));
                v.push(format!("{plain} {a}, {b}"));
                v.push(format!("{plain} {a} {th} {b}"));
                v.push(format!("{plain} {th} {a}"));
                v.push(format!("{plain} {a} {b},"));
            }
            // The offset left out, or given as a register alone.
            let head = plain.split(", ").take(2).collect::<Vec<_>>().join(", ");
            v.push(format!("{head}, scale_offset"));
            v.push(format!("{head}, nv"));
            v.push(format!("{head} nv"));
            v.push(format!("{head}, s7 scale_offset"));
            v.push(format!("{head}, m0 nv scale_offset"));
            v.push(format!("{head}, s7 scale_offset offset:0x10"));
            v.push(format!("{head}, s7, offset:0x10 scale_offset"));
            v.push(format!("{head}, null scale_offset"));
        }
    }
    v
}

#[test]
fn parser_takes_the_modifiers_as_llvm_mc_22_does() {
    let Some(tool) = support::require_tool("llvm-mc-22") else {
        return;
    };
    for (n, cpu) in CPUS.iter().enumerate() {
        let gen = gen_of(cpu);
        let texts = modifier_texts(gen, &mut Rng(0x5ca1e + n as u64));
        let got = assemble(&tool, cpu, &texts);
        let (mut accepted, mut refused) = (0, 0);
        for (text, g) in texts.iter().zip(&got) {
            let ours = parse::parse(gen, text);
            match (g, &ours) {
                (Some((_, word)), Ok(i)) => {
                    assert_eq!(smem::encode(i), Ok(*word), "{cpu}: `{text}`");
                    accepted += 1;
                }
                (None, Err(_)) => refused += 1,
                (Some((p, _)), Err(e)) => {
                    panic!("{cpu}: llvm-mc-22 takes `{text}` ({p}), parse: {e}")
                }
                (None, Ok(i)) => panic!("{cpu}: llvm-mc-22 refuses `{text}`, parse gives `{i}`"),
            }
        }
        assert!(
            accepted > 300 && refused > 300,
            "{cpu}: {accepted} {refused}"
        );
        eprintln!("{cpu}: {accepted} texts accepted alike, {refused} refused by both");
    }
    // gfx1200 has neither modifier: llvm-mc-22 ("not supported on this
    // GPU") and the parser refuse both.
    let g12 = SmemGen::Gfx12;
    let texts: Vec<String> = modifier_texts(g12, &mut Rng(0x1200))
        .into_iter()
        .filter(|t| t.ends_with(" nv") || t.ends_with(" scale_offset"))
        .filter(|t| !t.contains("nonv") && !t.contains("noscale_offset"))
        .collect();
    let got = assemble(&tool, "gfx1200", &texts);
    for (text, g) in texts.iter().zip(&got) {
        assert!(g.is_none(), "gfx1200: llvm-mc-22 takes `{text}`");
        assert!(
            parse::parse(g12, text).is_err(),
            "gfx1200: parse takes `{text}`"
        );
    }
}

/// `s_nop 5`, `s_nop 6`, `s_nop 7` after every word, so that nothing LLVM
/// makes of one word runs into the next; `s_nop 7` ends each word's output.
const SEP: &str = "0x05 0x00 0x80 0xbf\n0x06 0x00 0x80 0xbf\n0x07 0x00 0x80 0xbf\n";

#[test]
fn disassembler_prints_the_modifiers_as_the_oracle_expects() {
    let Some(tool) = support::require_tool("llvm-mc-22") else {
        return;
    };
    for (n, cpu) in CPUS.iter().enumerate() {
        let gen = gen_of(cpu);
        let mut r = Rng(0xd15 + n as u64);
        // SMEM words of the table's opcodes with NV and SCALE_OFFSET set
        // half the time each; other bits random.
        let words: Vec<u64> = (0..6000)
            .map(|_| {
                let op = r.pick(gen.table());
                let (lo, width) = gen.opcode_field();
                let mut w = r.next() & !(0x3f << 26) & !(((1 << width) - 1) << lo);
                w |= u64::from(gen.encoding()) << 26 | u64::from(op.opcode) << lo;
                for b in [20, 56] {
                    w = w & !(1 << b) | (r.next() & 1) << b;
                }
                w
            })
            .collect();
        let input: String = words
            .iter()
            .map(|w| format!("{}\n{SEP}", smem_diff::word_bytes(*w)))
            .collect();
        let (out, err) = mc(&tool, cpu, &["--disassemble"], &input);
        let invalid = reported_lines(&err, "invalid instruction encoding");
        let lines = insn_lines(&out);
        let mut at = 0;
        let (mut texts, mut rejected, mut diverged) = (0, 0, 0);
        for (k, &w) in words.iter().enumerate() {
            let mut mine = Vec::new();
            while let Some(l) = lines.get(at) {
                at += 1;
                if l == "s_nop 7" {
                    break;
                }
                mine.push(l.split(" ; ").next().unwrap_or("").trim().to_owned());
            }
            while mine
                .last()
                .is_some_and(|l| l == "s_nop 5" || l == "s_nop 6")
            {
                mine.pop();
            }
            let llvm_invalid = invalid.contains(&(4 * k + 1));
            let ctx = format!("{cpu} {w:#018x}: llvm {mine:?}");
            match smem_diff::expect(22, gen, w) {
                Expectation::Reject => {
                    assert!(llvm_invalid, "{ctx}");
                    rejected += 1;
                }
                Expectation::Text {
                    text,
                    divergences,
                    oracle_invalid: false,
                    ..
                } => {
                    assert!(!llvm_invalid, "{ctx}");
                    assert_eq!(mine.first(), Some(&text), "{ctx}");
                    assert!(
                        divergences
                            .iter()
                            .all(|d| d == Divergence::Llvm22Gfx1250BufferScaleOffset),
                        "{ctx}: {divergences:?}"
                    );
                    if divergences.is_empty() {
                        texts += 1;
                    } else {
                        diverged += 1;
                    }
                }
                // Operands outside their class: the in-process test below
                // checks LLVM's spelling of them.
                _ => {}
            }
        }
        assert_eq!(at, lines.len(), "{cpu}: unconsumed llvm-mc output");
        assert!(
            texts > 1000 && rejected > 100 && diverged > 100,
            "{cpu}: {texts} {rejected} {diverged}"
        );
        eprintln!("{cpu}: {texts} texts agree, {rejected} rejected by both, {diverged} buffer-load scale_offset divergences");
    }
}

/// The divergence both ways: LLVM 22 prints bit 56 of a gfx1250 buffer
/// load as `scale_offset` and refuses that text; the oracle calls the bit
/// unused there.
#[test]
fn buffer_load_scale_offset_prints_but_does_not_assemble() {
    let Some(tool) = support::require_tool("llvm-mc-22") else {
        return;
    };
    let gen = SmemGen::Gfx12_5;
    let mut words = Vec::new();
    for op in gen.table().iter().filter(|o| o.class == Class::BufferLoad) {
        for offset in [Offset::Imm(0x10), Offset::SgprImm { sgpr: 5, imm: 0 }] {
            let i = Instruction::new(gen, op, 8, 4, offset);
            let w = smem::encode(&i).expect("encodes") | 1 << 56;
            let d = smem::decode(gen, w);
            assert_eq!(d.instruction, Some(i));
            assert_eq!(d.verdict, Verdict::NonCanonical { bits: 1 << 56 });
            words.push(w);
        }
    }
    let input: String = words
        .iter()
        .map(|w| format!("{}\n", smem_diff::word_bytes(*w)))
        .collect();
    let (out, _) = mc(&tool, "gfx1250", &["--disassemble"], &input);
    let printed = insn_lines(&out);
    assert_eq!(printed.len(), words.len());
    for (w, p) in words.iter().zip(&printed) {
        assert!(p.contains(" scale_offset"), "{w:#018x}: {p}");
        match smem_diff::expect(22, gen, *w) {
            Expectation::Text {
                text, divergences, ..
            } => {
                assert_eq!(&text, p);
                assert!(divergences.contains(Divergence::Llvm22Gfx1250BufferScaleOffset));
            }
            e => panic!("{w:#018x}: {e:?}"),
        }
    }
    let (_, err) = mc(
        &tool,
        "gfx1250",
        &["-show-encoding"],
        &(printed.join("\n") + "\n"),
    );
    let refused = reported_lines(&err, "scale_offset is not supported for this instruction");
    assert_eq!(refused.len(), printed.len(), "{err}");
}

#[test]
fn libllvm22_agrees_except_listed_divergences() {
    let lib = match LlvmLib::open(22) {
        Ok(l) => l,
        Err(e) => {
            let msg = format!("libLLVM-22: {e}");
            if support::in_ci() {
                panic!("{msg}");
            }
            eprintln!("SKIPPED: {msg}");
            return;
        }
    };
    for cpu in CPUS {
        let gen = gen_of(cpu);
        let mut dis = lib.disassembler(cpu).expect("LLVM 22 knows the processor");
        let t = smem_diff::run(
            &mut dis,
            gen,
            0x1250,
            0,
            20_000,
            5,
            &|_, w| smem_diff::known_llvm_crash(gen, w),
            |_, _| {},
        );
        assert_eq!(t.compared + t.skipped, 20_000, "{cpu}");
        assert_eq!(t.different, 0, "{cpu}: {:#?}", t.examples);
        let seen: Vec<Divergence> = t.known.iter().map(|(d, _)| *d).collect();
        assert!(
            seen.contains(&Divergence::Llvm22Gfx1250BufferScaleOffset),
            "{cpu}: {seen:?}"
        );
        assert!(
            !seen.contains(&Divergence::Llvm22Gfx12Gfx1250Modifiers),
            "{cpu}: {seen:?}"
        );
        assert!(t.same > 10_000, "{cpu}: {} agree", t.same);
        eprintln!(
            "{cpu} LLVM 22: {} agree, known {:?}, {} skipped",
            t.same, t.known, t.skipped
        );
    }
    // The same modifiers on gfx1200 are the divergence of LLVM 22's
    // gfx1200 disassembler.
    let mut dis = lib.disassembler("gfx1200").expect("gfx1200");
    let t = smem_diff::run(
        &mut dis,
        SmemGen::Gfx12,
        0x1250,
        0,
        20_000,
        5,
        &|_, _| false,
        |_, _| {},
    );
    assert_eq!(t.different, 0);
    assert!(t.count(Divergence::Llvm22Gfx12Gfx1250Modifiers) > 0);
    assert_eq!(t.count(Divergence::Llvm22Gfx1250BufferScaleOffset), 0);
}
