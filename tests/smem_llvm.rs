//! The SMEM model (`hsaco_oracle::smem`) against `llvm-mc-19`.
//!
//! (a) Every form the generators draw from (`smem::forms`: opcode × offset
//! form × modifier set) with representative and boundary operands, on
//! gfx803, gfx900, gfx90a, gfx1010, gfx1030, gfx1100 and gfx1200: `encode`
//! and `hsaco-conform smem encode` equal `llvm-mc-19 -show-encoding`, and
//! `Display` equals the text it prints; what LLVM rejects, both reject.
//! (b) Random words (fixed seed) through `llvm-mc-19 --disassemble`:
//! valid/invalid agreement and identical text, except for the documented
//! known divergences, which are checked to stay exactly as described.
//!
//! All lines of one target go through one llvm-mc process.

mod support;

use support::mc::{insn_lines, mc, reported_lines, run_with_input};

use hsaco_conform::smem_diff::Divergence;
use hsaco_oracle::smem::forms::{self, OffsetForm};
use hsaco_oracle::smem::{self, EncodeError, Instruction, InvalidReason, SmemGen, Verdict};
use hsaco_oracle::targets::by_name;
use std::process::Command;

const TARGETS: &[&str] = &[
    "gfx803", "gfx900", "gfx90a", "gfx1010", "gfx1030", "gfx1100", "gfx1200",
];

/// Every form of `gen` (opcode × offset form × modifier set, the shapes
/// the generators draw from) with representative operands: SGPRs and trap
/// temporaries, boundary immediates and one past them, and the registers
/// 124/125 (m0/null) as offsets.
fn instructions(gen: SmemGen) -> Vec<Instruction> {
    let ttmp4 = match gen {
        SmemGen::Gfx8 => 116,
        _ => 112,
    };
    let mut v = Vec::new();
    for f in forms::forms(gen) {
        if !f.offset.has_text() {
            continue;
        }
        let op = f.op;
        let c = op.class;
        let sdatas: Vec<u8> = if c.has_sdata_regs() {
            if op.width <= 4 && op.width != 3 {
                vec![8, ttmp4]
            } else {
                vec![8]
            }
        } else if gen == SmemGen::Gfx12 && c.has_sdata_imm() {
            vec![0, 7, 31]
        } else if c.has_sdata_imm() {
            vec![7, 64, 65, 127]
        } else {
            vec![0]
        };
        let sbases: Vec<u8> = if !c.has_sbase() {
            vec![0]
        } else if c.buffer_base() {
            vec![4, ttmp4]
        } else {
            vec![4, 106, ttmp4]
        };
        let (lo, hi) = gen.offset_range(c);
        let imms = [0, 0x10, -0x10, lo, hi, lo - 1, hi + 1];
        let offsets: Vec<(u8, i32)> = match f.offset {
            OffsetForm::None => vec![(0, 0)],
            OffsetForm::Imm => imms.iter().map(|&i| (0, i)).collect(),
            OffsetForm::Sgpr | OffsetForm::Soffset => vec![(7, 0), (124, 0), (125, 0)],
            OffsetForm::SgprImm => [7, 124, 125]
                .iter()
                .flat_map(|&r| [(r, 0x10), (r, -0x10), (r, hi)])
                .collect(),
        };
        for &sdata in &sdatas {
            for &sbase in &sbases {
                for &(reg, imm) in &offsets {
                    v.push(f.instruction(sdata, sbase, reg, imm));
                }
            }
        }
    }
    v
}

fn parse_encoding(line: &str) -> Option<(String, u64)> {
    let (text, enc) = line.split_once("; encoding: [")?;
    let bytes: Vec<u8> = enc
        .trim_end_matches(']')
        .split(',')
        .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16))
        .collect::<Result<_, _>>()
        .ok()?;
    let arr: [u8; 8] = bytes.try_into().ok()?;
    Some((text.trim().to_owned(), u64::from_le_bytes(arr)))
}

/// True where LLVM `version`'s assembler is known to accept what the
/// oracle refuses: before LLVM 22, negative GFX12 buffer offsets (LLVM 22
/// and AMD's rule make them 23-bit unsigned; errata SMEM 11).
fn older_llvm_accepts(
    version: u32,
    gen: SmemGen,
    i: &Instruction,
    ours: &Result<u64, EncodeError>,
) -> bool {
    signed_gfx12_buffer_offsets(version)
        && gen == SmemGen::Gfx12
        && i.op.class.buffer_base()
        && matches!(ours, Err(EncodeError::OffsetRange(v)) if *v < 0)
}

/// The LLVM releases that take GFX12 buffer offsets as signed: those the
/// `buffer-offset-negative` divergence is known in.
fn signed_gfx12_buffer_offsets(version: u32) -> bool {
    version <= *Divergence::BufferOffsetNegative.versions().end()
}

#[test]
fn encode_and_print_match_llvm_mc() {
    // LLVM 19 (required) and LLVM 22 where it is installed.
    let Some(tool19) = support::require_tool("llvm-mc-19") else {
        return;
    };
    let mut tools = vec![(19, tool19)];
    tools.extend(support::which("llvm-mc-22").map(|t| (22, t)));
    for (version, tool) in tools {
        encode_and_print_match(version, &tool);
    }
}

fn encode_and_print_match(version: u32, tool: &std::path::Path) {
    let mut total = 0;
    let mut known = 0;
    for cpu in TARGETS {
        let target = by_name(cpu).expect("target");
        let gen = SmemGen::for_target(target).expect("modelled");
        let insns = instructions(gen);
        let input: String = insns.iter().map(|i| format!("{i}\n")).collect();
        let (out, err) = mc(tool, cpu, &["-show-encoding"], &input);
        let errors = reported_lines(&err, "error:");
        let mut lines = insn_lines(&out).into_iter();
        // The same lines through `hsaco-conform smem encode`: one output
        // line per input line.
        let cli = smem_encode_cli(cpu, &input);
        assert_eq!(cli.len(), insns.len(), "{cpu}: smem encode output lines");
        let (mut accepted, mut rejected) = (0, 0);
        for (k, i) in insns.iter().enumerate() {
            let ours = smem::encode(i);
            // The command must print exactly the library's verdict.
            match ours {
                Ok(w) => assert_eq!(cli[k], bytes_line(w), "{cpu}: smem encode `{i}`"),
                Err(_) => assert!(
                    cli[k].starts_with("error: "),
                    "{cpu}: smem encode `{i}` gave {}",
                    cli[k]
                ),
            }
            if errors.contains(&(k + 1)) {
                rejected += 1;
                // LLVM rejects only out-of-range immediates (GFX8 negative,
                // buffer negative) and, before GFX10, `null`; the oracle
                // must refuse exactly those, for those reasons.
                assert!(
                    matches!(
                        ours,
                        Err(EncodeError::OffsetRange(_) | EncodeError::OffsetRegister(125))
                    ),
                    "{cpu}: llvm-mc rejects `{i}`, oracle gives {ours:?}"
                );
                continue;
            }
            let line = lines.next().expect("one output line per accepted input");
            let (text, word) = parse_encoding(&line).expect("encoding line");
            if older_llvm_accepts(version, gen, i, &ours) {
                known += 1;
                continue;
            }
            assert_eq!(text, i.to_string(), "LLVM {version} {cpu}");
            assert_eq!(ours, Ok(word), "LLVM {version} {cpu}: `{i}`");
            accepted += 1;
        }
        eprintln!(
            "LLVM {version} {cpu}: {accepted} lines encoded identically, {rejected} rejected by both"
        );
        total += accepted;
    }
    eprintln!("LLVM {version}: {known} negative GFX12 buffer offsets accepted (errata SMEM 11)");
    assert!(total > 1000, "LLVM {version}: compared {total}");
    // LLVM 19 must show the known difference (else the rule is stale);
    // LLVM 22 none.
    assert_eq!(
        known > 0,
        signed_gfx12_buffer_offsets(version),
        "LLVM {version}: {known}"
    );
}

/// Runs `hsaco-conform smem encode --target cpu` on `input`; its lines.
fn smem_encode_cli(cpu: &str, input: &str) -> Vec<String> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hsaco-conform"));
    cmd.args(["smem", "encode", "--target", cpu]);
    let (out, _) = run_with_input(cmd, input);
    out.lines().map(str::to_owned).collect()
}

/// A word as `smem encode` prints it: eight little-endian bytes.
fn bytes_line(w: u64) -> String {
    w.to_le_bytes()
        .iter()
        .map(|b| format!("{b:#04x}"))
        .collect::<Vec<_>>()
        .join(",")
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
}

const WORDS: usize = 4000;
/// `s_nop 5`, `s_nop 6`, `s_nop 7` after every word: whatever LLVM makes of
/// the second dword of an invalid word (at most 12 bytes with the GFX10+
/// literal, so it can swallow `s_nop 5` and `s_nop 6`) cannot run into the
/// next word, and
/// `s_nop 7` always ends the word's output.
const SEP: &str = "0x05 0x00 0x80 0xbf\n0x06 0x00 0x80 0xbf\n0x07 0x00 0x80 0xbf\n";
const SEP_END: &str = "s_nop 7";

fn random_words(gen: SmemGen, seed: u64) -> Vec<u64> {
    let mut r = Rng(seed);
    let table = gen.table();
    (0..WORDS)
        .map(|_| {
            let mut w = r.next();
            let sel = r.next();
            if !sel.is_multiple_of(10) {
                w = (w & !(0x3f << 26)) | (u64::from(gen.encoding()) << 26);
            }
            if !sel.is_multiple_of(3) {
                let n = table.len() as u64;
                let op = table[((sel >> 8) % n) as usize].opcode;
                let (lo, width) = gen.opcode_field();
                w = (w & !(((1 << width) - 1) << lo)) | (u64::from(op) << lo);
            }
            w
        })
        .collect()
}

/// The instruction with SDATA and SBASE rounded down to their alignment, as
/// LLVM's disassembler prints misaligned tuples.
fn rounded_down(i: &Instruction) -> Instruction {
    let align = smem::tuple_align(i.op.width);
    let base_align = if i.op.class.buffer_base() { 4 } else { 2 };
    let sdata = if i.op.class.has_sdata_regs() {
        i.sdata - i.sdata % align
    } else {
        i.sdata
    };
    Instruction {
        sdata,
        sbase: i.sbase - i.sbase % base_align,
        ..*i
    }
}

/// On GFX8, the name LLVM gives an SDATA tuple that starts at a trap
/// temporary and runs past ttmp11, up to ttmp15.
fn gfx8_ttmp_past_11(i: &Instruction) -> Option<String> {
    let w = i.op.width;
    let first = i.sdata.checked_sub(112)?;
    let last = first + w.max(1) - 1;
    (i.gen == SmemGen::Gfx8 && w > 1 && first.is_multiple_of(w.min(4)) && last > 11 && last <= 15)
        .then(|| format!("ttmp[{first}:{last}]"))
}

#[test]
fn decode_matches_llvm_mc_disassembler() {
    let Some(tool) = support::require_tool("llvm-mc-19") else {
        return;
    };
    for (t, cpu) in TARGETS.iter().enumerate() {
        let gen = SmemGen::for_target(by_name(cpu).expect("target")).expect("modelled");
        let words = random_words(gen, 0x5eed_0000 + t as u64);
        let mut input = String::new();
        for w in &words {
            let b = w.to_le_bytes();
            let hex: Vec<String> = b.iter().map(|x| format!("{x:#04x}")).collect();
            input.push_str(&hex.join(" "));
            input.push('\n');
            input.push_str(SEP);
        }
        let (out, err) = mc(&tool, cpu, &["--disassemble"], &input);
        let invalid = reported_lines(&err, "invalid instruction encoding");
        let lines = insn_lines(&out);
        let mut at = 0;
        let (mut same, mut div_class, mut div_neg, mut div_null) = (0, 0, 0, 0);
        for (k, &w) in words.iter().enumerate() {
            let llvm_invalid = invalid.contains(&(4 * k + 1));
            // Output of this word: lines up to the separator run.
            let mut mine = Vec::new();
            while let Some(l) = lines.get(at) {
                at += 1;
                if l == SEP_END {
                    break;
                }
                mine.push(l.clone());
            }
            while mine
                .last()
                .is_some_and(|l| l == "s_nop 5" || l == "s_nop 6")
            {
                mine.pop();
            }
            let d = smem::decode(gen, w);
            let ctx = format!(
                "{cpu} word {w:#018x}: oracle {:?} `{d}`, llvm {mine:?}",
                d.verdict
            );
            match d.verdict {
                Verdict::Valid | Verdict::NonCanonical { .. } => {
                    assert!(!llvm_invalid, "{ctx}");
                    assert_eq!(
                        mine.first().map(String::as_str),
                        Some(d.to_string().as_str()),
                        "{ctx}"
                    );
                    same += 1;
                }
                Verdict::Invalid(
                    InvalidReason::Encoding(_)
                    | InvalidReason::Opcode(_)
                    | InvalidReason::ImmWithoutOffset
                    | InvalidReason::CpolWithoutModifiers
                    | InvalidReason::SdataImmediate(_),
                ) => {
                    // Words outside SMEM may be other valid instructions.
                    if !matches!(d.verdict, Verdict::Invalid(InvalidReason::Encoding(_))) {
                        assert!(llvm_invalid, "{ctx}");
                    }
                    same += 1;
                }
                // Known divergence 1: LLVM decodes SDATA/SBASE registers
                // outside the operand's class (m0/exec as a load
                // destination, misaligned tuples, tuples past the last
                // SGPR) instead of rejecting the word; it prints them with
                // an `/*Invalid register...*/` comment, rounded down, as
                // `v0`, or (SDATA or SBASE equal to the null register, of
                // any width) as `null`; some it
                // rejects. On GFX8 (12 trap temporaries) it names SDATA
                // tuples reaching ttmp12..ttmp15 (`ttmp[8:15]`). The oracle
                // calls all of them invalid.
                Verdict::Invalid(
                    InvalidReason::SdataRegister(_) | InvalidReason::SbaseRegister(_),
                ) => {
                    let i = d.instruction.expect("instruction");
                    let first = mine.first().map(String::as_str).unwrap_or("");
                    let explained = llvm_invalid
                        || first.contains("/*Invalid register")
                        || first.contains("v0")
                        || (i.sdata == i.gen.null()
                            && (first == format!("{} null", i.op.mnemonic)
                                || first.starts_with(&format!("{} null,", i.op.mnemonic))))
                        || (i.sbase == i.gen.null()
                            && (first.contains(", null, ")
                                || first.starts_with(&format!("{} null,", i.op.mnemonic))))
                        || first == rounded_down(&i).to_string()
                        || gfx8_ttmp_past_11(&rounded_down(&i)).is_some_and(|n| first.contains(&n));
                    assert!(explained, "{ctx}");
                    div_class += 1;
                }
                // Known divergence 3: GFX8/GFX9 offset register 125. LLVM's
                // disassembler prints `null`, its assembler rejects `null`
                // there ("'null' operand is not supported on this GPU").
                Verdict::Invalid(InvalidReason::OffsetNull) => {
                    assert!(!llvm_invalid, "{ctx}");
                    let i = d.instruction.expect("instruction");
                    let text = i.to_string();
                    assert!(text.contains("null"), "{ctx}");
                    assert_eq!(mine.first(), Some(&text), "{ctx}");
                    div_null += 1;
                }
                // Known divergence 2: a negative immediate on a buffer
                // instruction (GFX9 bit 52). LLVM's assembler refuses it
                // (20-bit unsigned), its disassembler prints it as a
                // negative offset, exactly as the oracle's text.
                Verdict::Invalid(InvalidReason::BufferOffsetNegative(_)) => {
                    assert!(!llvm_invalid, "{ctx}");
                    let i = d.instruction.expect("instruction");
                    assert_eq!(mine.first(), Some(&i.to_string()), "{ctx}");
                    div_neg += 1;
                }
            }
        }
        assert_eq!(at, lines.len(), "{cpu}: unconsumed llvm-mc output");
        eprintln!("{cpu}: {same} agree, {div_class} register-class, {div_neg} negative buffer offset, {div_null} null-offset divergences");
        assert!(same > WORDS / 2, "{cpu}: {same}");
    }
}
