//! Generated SMEM streams (`hsaco_gen::smem`) against `llvm-mc-19`.
//!
//! For a sample of seeds per family (gfx803, gfx900, gfx90a, gfx1010,
//! gfx1030, gfx1100, gfx1200), and a few seeds on every other SMEM
//! processor LLVM 19 knows:
//!
//! (a) `llvm-mc-19 -show-encoding` assembles the stream's text
//! ([`Stream::text`]) to exactly the stream's bytes, with no diagnostic,
//! and prints each instruction exactly as the text writes it;
//! (b) `llvm-mc-19 --disassemble` of the stream's bytes prints exactly
//! [`Stream::lines`] (GFX9 SOE-only words included, which print like the
//! SGPR form), one line per step.
//!
//! All streams of one processor go through one llvm-mc process each way.

mod support;

use support::mc::mc;

use hsaco_gen::arbitrary::Unstructured;
use hsaco_gen::config::SmemWaits;
use hsaco_gen::smem::{self, Stream};
use hsaco_gen::Config;
use hsaco_oracle::smem::exec::Step;
use hsaco_oracle::smem::{Offset, SmemGen};
use hsaco_oracle::targets::{by_name, hsa_targets, Target};
use std::path::Path;

const FAMILIES: [&str; 7] = [
    "gfx803", "gfx900", "gfx90a", "gfx1010", "gfx1030", "gfx1100", "gfx1200",
];

/// Seeds per family representative, and per other processor.
const SEEDS: u64 = 400;
const OTHER_SEEDS: u64 = 25;

/// The byte stream of a seed for these tests: the seed domain `test`.
fn seed_bytes(seed: u64, len: usize) -> Vec<u8> {
    hsaco_gen::seed::bytes(seed, "test", 0, len)
}

/// The configurations sampled: the default, long streams with minimal
/// waits, no special registers with waits for 0, and rebuildable-only.
fn configs() -> [Config; 4] {
    [
        Config::default(),
        Config {
            smem_min_len: 48,
            smem_max_len: 96,
            smem_waits: SmemWaits::Minimal,
            ..Config::default()
        },
        Config {
            smem_special_registers: false,
            smem_waits: SmemWaits::Zero,
            ..Config::default()
        },
        Config {
            rebuildable_only: true,
            smem_max_len: 48,
            ..Config::default()
        },
    ]
}

fn streams(t: &Target, seeds: u64) -> Vec<Stream> {
    let cfgs = configs();
    (0..seeds)
        .map(|seed| {
            let bytes = seed_bytes(seed ^ 0x51ed, 4096);
            let cfg = &cfgs[(seed % 4) as usize];
            smem::arbitrary_stream(&mut Unstructured::new(&bytes), cfg, t).expect("SMEM target")
        })
        .collect()
}

/// Bytes and instruction texts from `llvm-mc -show-encoding` output.
fn assembled(out: &str) -> (Vec<u8>, Vec<String>) {
    let mut bytes = Vec::new();
    let mut texts = Vec::new();
    for line in out.lines().map(str::trim) {
        if let Some(v) = line.strip_prefix(".long") {
            let v: u32 = v.trim().parse().expect(".long value");
            bytes.extend_from_slice(&v.to_le_bytes());
        } else if let Some((text, enc)) = line.split_once("; encoding: [") {
            texts.push(text.trim().to_owned());
            for b in enc.trim_end_matches(']').split(',') {
                bytes.push(u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect("hex"));
            }
        }
    }
    (bytes, texts)
}

/// Checks the streams of one processor; returns the SMEM instructions
/// compared.
fn check_target(tool: &Path, t: &Target, seeds: u64) -> usize {
    let cpu = t.name;
    let all = streams(t, seeds);
    let mut text = String::new();
    let mut hex = String::new();
    let mut want_bytes = Vec::new();
    let mut want_texts = Vec::new();
    let mut want_lines = Vec::new();
    let mut count = 0;
    for s in &all {
        text.push_str(&s.text());
        want_bytes.extend(s.bytes());
        for (step, line) in s.steps.iter().zip(s.lines()) {
            if !matches!(step, Step::Smem(i) if matches!(i.offset, Offset::Soffset(_))) {
                want_texts.push(line.clone());
            }
            want_lines.push(line);
        }
        let mut k = 0;
        for step in &s.steps {
            let n = if matches!(step, Step::Smem(_)) { 2 } else { 1 };
            let b: Vec<String> = s.words[k..k + n]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .map(|x| format!("{x:#04x}"))
                .collect();
            hex.push_str(&b.join(" "));
            hex.push('\n');
            k += n;
        }
        count += s.smem_count;
    }

    // (a) text -> bytes.
    let (out, err) = mc(tool, cpu, &["-show-encoding"], &text);
    assert!(
        err.trim().is_empty(),
        "{cpu}: llvm-mc-19 diagnostics:\n{err}"
    );
    let (bytes, texts) = assembled(&out);
    if bytes != want_bytes {
        let at = bytes.iter().zip(&want_bytes).position(|(a, b)| a != b);
        panic!(
            "{cpu}: assembled bytes differ at byte {at:?} ({} vs {} bytes)",
            bytes.len(),
            want_bytes.len()
        );
    }
    for (k, (a, b)) in texts.iter().zip(&want_texts).enumerate() {
        assert_eq!(a, b, "{cpu}: instruction {k} prints differently");
    }
    assert_eq!(texts.len(), want_texts.len(), "{cpu}");

    // (b) bytes -> text.
    let (out, err) = mc(tool, cpu, &["--disassemble"], &hex);
    assert!(
        err.trim().is_empty(),
        "{cpu}: llvm-mc-19 --disassemble:\n{err}"
    );
    let lines: Vec<&str> = out
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('.'))
        .collect();
    for (k, (a, b)) in lines.iter().zip(&want_lines).enumerate() {
        assert_eq!(a, b, "{cpu}: step {k} disassembles differently");
    }
    assert_eq!(lines.len(), want_lines.len(), "{cpu}");
    count
}

#[test]
fn family_streams_match_llvm_mc() {
    let Some(tool) = support::require_tool("llvm-mc-19") else {
        return;
    };
    let mut total = 0;
    for cpu in FAMILIES {
        let t = by_name(cpu).expect("target");
        let n = check_target(&tool, t, SEEDS);
        eprintln!("{cpu}: {SEEDS} streams, {n} SMEM instructions: bytes and text match llvm-mc-19");
        total += n;
    }
    assert!(total > 30_000, "compared {total}");
}

#[test]
fn other_processor_streams_match_llvm_mc() {
    let Some(tool) = support::require_tool("llvm-mc-19") else {
        return;
    };
    let mut done = 0;
    for t in hsa_targets() {
        if !t.llvm19() || SmemGen::for_target(t).is_none() || FAMILIES.contains(&t.name) {
            continue;
        }
        check_target(&tool, t, OTHER_SEEDS);
        done += 1;
    }
    eprintln!("{done} other processors match llvm-mc-19");
    assert!(done > 20, "{done}");
}

/// The waits the generator writes, every count, against llvm-mc-19: the
/// text assembles to `wait_word` and the word disassembles to the text.
#[test]
fn wait_encodings_match_llvm_mc() {
    let Some(tool) = support::require_tool("llvm-mc-19") else {
        return;
    };
    for cpu in FAMILIES {
        let gen = SmemGen::for_target(by_name(cpu).expect("target")).expect("gen");
        let counts = 0..=smem::max_wait(gen);
        let text: String = counts
            .clone()
            .map(|n| smem::wait_text(gen, n) + "\n")
            .collect();
        let (out, err) = mc(&tool, cpu, &["-show-encoding"], &text);
        assert!(err.trim().is_empty(), "{cpu}: {err}");
        let (bytes, texts) = assembled(&out);
        let want: Vec<u8> = counts
            .clone()
            .flat_map(|n| smem::wait_word(gen, n).to_le_bytes())
            .collect();
        assert_eq!(bytes, want, "{cpu}");
        let want_texts: Vec<String> = counts.clone().map(|n| smem::wait_text(gen, n)).collect();
        assert_eq!(texts, want_texts, "{cpu}");
        let hex: String = counts
            .map(|n| {
                let b = smem::wait_word(gen, n).to_le_bytes();
                format!("{:#04x} {:#04x} {:#04x} {:#04x}\n", b[0], b[1], b[2], b[3])
            })
            .collect();
        let (out, err) = mc(&tool, cpu, &["--disassemble"], &hex);
        assert!(err.trim().is_empty(), "{cpu}: {err}");
        let lines: Vec<&str> = out
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('.'))
            .collect();
        assert_eq!(lines, want_texts, "{cpu}");
        // s_endpgm.
        let (out, _) = mc(&tool, cpu, &["-show-encoding"], "s_endpgm\n");
        let (bytes, _) = assembled(&out);
        assert_eq!(bytes, smem::endpgm_word(gen).to_le_bytes(), "{cpu}");
    }
}
