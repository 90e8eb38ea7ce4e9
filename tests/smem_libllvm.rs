//! The SMEM model against LLVM's disassembler, in-process through
//! libLLVM-19.so and libLLVM-14.so (one instruction at a time): 20,000
//! random words per processor (gfx803, gfx900, gfx90a, gfx1010, gfx1030,
//! gfx1100, gfx1200) agree on valid/invalid and text, except for the
//! listed known divergences, each of which must still occur exactly as its
//! rule in `hsaco_conform::smem_diff` predicts (character for character)
//! on the processors where it exists, and nowhere else.
//!
//! `hsaco-conform smem diff` runs the same comparison over a million words
//! per processor in crash-isolated workers.

mod support;

use hsaco_conform::peers::llvm_disasm::{self, Disassembler, LlvmLib, PeerError};
use hsaco_conform::smem_diff::{self, Divergence, Tally, Words};
use hsaco_oracle::smem::{self, SmemGen};
use hsaco_oracle::targets::by_name;

const WORDS: u64 = 20_000;
const SEED: u64 = 0x5eed_2024;

/// The library of LLVM `version`, or `None` (after printing why) when it
/// is not installed outside CI; in CI a missing library fails the test.
fn require_lib(version: u32) -> Option<&'static LlvmLib> {
    match LlvmLib::open(version) {
        Ok(l) => Some(l),
        Err(e) => {
            let msg = format!("libLLVM-{version}: {e}");
            if support::in_ci() {
                panic!("{msg}");
            }
            eprintln!("SKIPPED: {msg}");
            None
        }
    }
}

fn gen_of(cpu: &str) -> SmemGen {
    SmemGen::for_target(by_name(cpu).expect("known processor")).expect("modelled")
}

/// Runs the comparison for one processor, skipping the words LLVM is
/// known to crash on (a crash would end the test process).
fn compare(dis: &mut Disassembler, cpu: &str) -> Tally {
    let gen = gen_of(cpu);
    smem_diff::run(
        dis,
        gen,
        SEED,
        0,
        WORDS,
        10,
        &|_, w| smem_diff::known_llvm_crash(gen, w),
        |_, _| {},
    )
}

fn show(t: &Tally) -> String {
    let mut s = String::new();
    for e in &t.examples {
        s += &format!(
            "\n  word {:#018x} ({}): oracle {} `{}`; expected {}; LLVM {:?}",
            e.word,
            smem_diff::word_bytes(e.word),
            e.oracle,
            e.oracle_text,
            e.expected,
            e.llvm
        );
    }
    s
}

/// Checks a run: no unexplained difference, most words agree outright,
/// and exactly the expected divergences occur.
fn check(cpu: &str, version: u32, t: &Tally, expected: &[Divergence]) {
    assert_eq!(t.compared + t.skipped, WORDS, "{cpu} LLVM {version}");
    assert_eq!(
        t.different,
        0,
        "{cpu} LLVM {version}: unexplained differences:{}",
        show(t)
    );
    let seen: Vec<Divergence> = t.known.iter().map(|(d, _)| *d).collect();
    assert_eq!(
        seen, expected,
        "{cpu} LLVM {version}: divergences seen (counts {:?})",
        t.known
    );
    // The words outside SMEM are about a tenth of the stream; the rest
    // splits between agreement and divergences.
    assert!(t.non_smem > WORDS / 20, "{cpu}: {} non-SMEM", t.non_smem);
    assert!(t.same > WORDS / 4, "{cpu}: only {} agree", t.same);
    eprintln!(
        "{cpu} LLVM {version}: {} agree, {} known {:?}, {} skipped",
        t.same, t.known_words, t.known, t.skipped
    );
}

use Divergence::*;

/// Divergences LLVM 19 shows per processor on these words.
fn expected_19(cpu: &str) -> Vec<Divergence> {
    match cpu {
        "gfx803" => vec![
            MisalignedTuple,
            OutOfClassRegister,
            NullTuple,
            Gfx8TtmpPast11,
            Gfx9OffsetNull,
        ],
        "gfx900" | "gfx90a" => vec![
            MisalignedTuple,
            OutOfClassRegister,
            NullTuple,
            Gfx9OffsetNull,
            BufferOffsetNegative,
        ],
        // GFX10: null is valid SDATA of any width (errata SMEM 17), and
        // the SBASE field cannot name it.
        "gfx1010" | "gfx1030" => vec![MisalignedTuple, OutOfClassRegister, BufferOffsetNegative],
        // GFX11+: null as a buffer resource prints.
        "gfx1100" => vec![
            MisalignedTuple,
            OutOfClassRegister,
            NullTuple,
            BufferOffsetNegative,
        ],
        // GFX12: LLVM 19 still takes negative buffer offsets (errata SMEM 11).
        _ => vec![
            MisalignedTuple,
            OutOfClassRegister,
            NullTuple,
            BufferOffsetNegative,
        ],
    }
}

#[test]
fn libllvm19_agrees_except_known_divergences() {
    let Some(lib) = require_lib(19) else {
        return;
    };
    // GFX12.5 postdates LLVM 19 (tests/smem_gfx1250_llvm.rs is its own).
    for cpu in smem_diff::DEFAULT_TARGETS
        .iter()
        .copied()
        .filter(|c| *c != "gfx1250")
    {
        let mut dis = lib.disassembler(cpu).expect("LLVM 19 knows the processor");
        let t = compare(&mut dis, cpu);
        check(cpu, 19, &t, &expected_19(cpu));
    }
}

#[test]
fn libllvm14_agrees_except_known_divergences() {
    let Some(lib) = require_lib(14) else {
        return;
    };
    for cpu in smem_diff::DEFAULT_TARGETS {
        let expected: Vec<Divergence> = match cpu {
            "gfx803" => expected_19(cpu),
            "gfx900" | "gfx90a" => vec![
                MisalignedTuple,
                OutOfClassRegister,
                NullTuple,
                Gfx9OffsetNull,
                BufferOffsetNegative,
                Llvm14Gfx9IgnoresSoe,
            ],
            "gfx1010" | "gfx1030" => vec![
                MisalignedTuple,
                OutOfClassRegister,
                BufferOffsetNegative,
                Llvm14Gfx10DropsOffset,
                Llvm16NullWideSdata,
            ],
            // GFX11 and GFX12 postdate LLVM 14: asking its disassembler
            // for them would abort the process, so the binding refuses.
            _ => {
                let e = lib.disassembler(cpu).expect_err("LLVM 14 lacks GFX11+");
                assert_eq!(
                    e,
                    PeerError::UnknownProcessor {
                        version: 14,
                        cpu: cpu.to_owned()
                    }
                );
                continue;
            }
        };
        let mut dis = lib.disassembler(cpu).expect("LLVM 14 knows the processor");
        let t = compare(&mut dis, cpu);
        check(cpu, 14, &t, &expected);
    }
}

/// Each divergence, on one word chosen to show it, gives exactly the text
/// its rule describes (the rules are also what the random runs use).
#[test]
fn divergence_examples_print_as_described() {
    let Some(lib) = require_lib(19) else {
        return;
    };
    // (processor, bytes, LLVM 19's text, divergence)
    let cases: &[(&str, u64, &str, Divergence)] = &[
        // s_load_dwordx2 with SDATA s[5:6]: rounded down, with a warning.
        (
            "gfx900",
            0x0000_0010_c006_0141,
            "s_load_dwordx2 s[4:5], s[2:3], 0x10 ; Warning: SGPR_64: scalar reg isn't aligned 5",
            MisalignedTuple,
        ),
        // s_load_dword into m0.
        (
            "gfx900",
            0x0000_0010_c002_1f01,
            "s_load_dword m0/*Invalid register, operand has 'SReg_32_XM0_XEXEC' register class*/, s[2:3], 0x10",
            OutOfClassRegister,
        ),
        // GFX11 s_buffer_load_b32 with null as the buffer resource.
        (
            "gfx1100",
            0xf800_0010_f420_003e,
            "s_buffer_load_b32 s0, null, 0x10",
            NullTuple,
        ),
        // GFX8 s_load_dwordx8 into ttmp[8:15] (GFX8 has ttmp0-ttmp11).
        (
            "gfx803",
            0x0000_0010_c00e_1e01,
            "s_load_dwordx8 ttmp[8:15], s[2:3], 0x10",
            Gfx8TtmpPast11,
        ),
        // GFX9 offset register 125.
        (
            "gfx900",
            0x0000_007d_c000_0141,
            "s_load_dword s5, s[2:3], null",
            Gfx9OffsetNull,
        ),
        // Negative buffer offset.
        (
            "gfx900",
            0x001f_fff0_c022_0142,
            "s_buffer_load_dword s5, s[4:7], -0x10",
            BufferOffsetNegative,
        ),
    ];
    for &(cpu, word, text, d) in cases {
        let gen = gen_of(cpu);
        let mut dis = lib.disassembler(cpu).expect("disassembler");
        let got = dis
            .disassemble(&word.to_le_bytes())
            .map(|(n, t)| (n, t.to_owned()));
        assert_eq!(got, Some((8, text.to_owned())), "{cpu} {word:#018x}");
        // The oracle calls the word invalid ...
        assert!(
            matches!(smem::decode(gen, word).verdict, smem::Verdict::Invalid(_)),
            "{cpu} {word:#018x}"
        );
        // ... and the model explains LLVM's text by exactly this rule.
        let e = smem_diff::expect(19, gen, word);
        let view = smem_diff::LlvmView::Decoded { size: 8, text };
        let outcome = smem_diff::compare(gen, &e, view);
        let smem_diff::Outcome::Known(ds) = outcome else {
            panic!("{cpu} {word:#018x}: {outcome:?} ({e:?})");
        };
        assert_eq!(ds.iter().collect::<Vec<_>>(), vec![d], "{cpu} {word:#018x}");
    }
}

/// LLVM 14's two offset bugs, on one word each.
#[test]
fn llvm14_offset_bugs_print_as_described() {
    let Some(lib) = require_lib(14) else {
        return;
    };
    let cases: &[(&str, u64, &str, &str, Divergence)] = &[
        // GFX9 IMM=1 SOE=1: s7 offset:0x10; LLVM 14 drops s7.
        (
            "gfx900",
            0x0e00_0010_c002_4141,
            "s_load_dword s5, s[2:3], s7 offset:0x10",
            "s_load_dword s5, s[2:3], 0x10",
            Llvm14Gfx9IgnoresSoe,
        ),
        // GFX10 SOFFSET=s7, OFFSET=0x10: LLVM 14 drops the immediate.
        (
            "gfx1030",
            0x0e00_0010_f400_0141,
            "s_load_dword s5, s[2:3], s7 offset:0x10",
            "s_load_dword s5, s[2:3], s7",
            Llvm14Gfx10DropsOffset,
        ),
    ];
    for &(cpu, word, oracle, llvm14, d) in cases {
        let gen = gen_of(cpu);
        let dec = smem::decode(gen, word);
        assert_eq!(dec.verdict, smem::Verdict::Valid, "{cpu} {word:#018x}");
        assert_eq!(dec.to_string(), oracle);
        let mut dis = lib.disassembler(cpu).expect("disassembler");
        let got = dis
            .disassemble(&word.to_le_bytes())
            .map(|(n, t)| (n, t.to_owned()));
        assert_eq!(got, Some((8, llvm14.to_owned())), "{cpu} {word:#018x}");
        let e = smem_diff::expect(14, gen, word);
        let outcome = smem_diff::compare(
            gen,
            &e,
            smem_diff::LlvmView::Decoded {
                size: 8,
                text: llvm14,
            },
        );
        let smem_diff::Outcome::Known(ds) = outcome else {
            panic!("{cpu} {word:#018x}: {outcome:?} ({e:?})");
        };
        assert_eq!(ds.iter().collect::<Vec<_>>(), vec![d]);
    }
    // A spelling difference, not a divergence: with SOFFSET = null and
    // OFFSET = 0, LLVM 19 prints `null` and LLVM 14 `0x0`; the LLVM 14
    // dialect of `smem::parse::format` says so.
    let gen = gen_of("gfx1030");
    let word = 0xfa00_0000_f400_0141;
    assert_eq!(
        smem::decode(gen, word).to_string(),
        "s_load_dword s5, s[2:3], null"
    );
    let mut dis = lib.disassembler("gfx1030").expect("disassembler");
    let text = "s_load_dword s5, s[2:3], 0x0";
    assert_eq!(dis.disassemble(&word.to_le_bytes()), Some((8, text)));
    let e = smem_diff::expect(14, gen, word);
    let view = smem_diff::LlvmView::Decoded { size: 8, text };
    assert_eq!(smem_diff::compare(gen, &e, view), smem_diff::Outcome::Same);
}

/// The binding: discovery, refusal of processors that would abort LLVM,
/// and one instruction at a time.
#[test]
fn binding_discovers_and_refuses_what_would_abort() {
    assert_eq!(llvm_disasm::version_of("libLLVM-19.so"), Some(19));
    assert_eq!(llvm_disasm::version_of("libLLVM-14.so.1"), Some(14));
    assert_eq!(llvm_disasm::version_of("libLLVM.so.19.1"), Some(19));
    assert_eq!(llvm_disasm::version_of("libLLVM-17git.so"), Some(17));
    assert_eq!(llvm_disasm::version_of("libLLVM.so.1"), None);
    assert_eq!(
        llvm_disasm::version_of("libLLVM-22-rust-1.95.0-stable.so"),
        None
    );
    assert_eq!(llvm_disasm::version_of("libLLVMCore.a"), None);
    // rustup's private library under its other name is not LLVM 22's.
    assert_eq!(
        llvm_disasm::version_of("libLLVM.so.22.1-rust-1.95.0-stable"),
        None
    );
    assert_eq!(llvm_disasm::version_of("libLLVM.so.20.0git"), Some(20));
    let Some(lib) = require_lib(19) else {
        return;
    };
    assert!(llvm_disasm::discover().iter().any(|l| l.version == 19));
    // The library's own symbol table says AMDGPU and LLVM 19, without
    // loading it; another ELF file (this test) has no AMDGPU target.
    assert_eq!(
        llvm_disasm::probe_library(&lib.info().path),
        Ok(llvm_disasm::LibFacts {
            amdgpu: true,
            version: Some(19)
        })
    );
    let me = std::env::current_exe().expect("this test");
    assert_eq!(llvm_disasm::probe_library(&me).map(|f| f.amdgpu), Ok(false));
    let text = std::env::temp_dir().join(format!("not-elf-{}", std::process::id()));
    std::fs::write(&text, "hello").expect("write");
    assert!(llvm_disasm::probe_library(&text).is_err());
    let _ = std::fs::remove_file(&text);
    assert_eq!(lib.isa_version("gfx90a"), Some(Some((9, 0, 10))));
    assert_eq!(lib.isa_version("gfx9999"), Some(None));
    assert_eq!(
        lib.disassembler("gfx9999").expect_err("unknown"),
        PeerError::UnknownProcessor {
            version: 19,
            cpu: "gfx9999".into()
        }
    );
    assert_eq!(
        lib.disassembler("gfx700").expect_err("GFX7"),
        PeerError::Unsupported {
            version: 19,
            cpu: "gfx700".into(),
            major: 7
        }
    );
    let mut dis = lib.disassembler("gfx900").expect("gfx900");
    // s_load_dword s5, s[2:3], 0x10 followed by junk: one instruction only.
    let mut bytes = 0x0000_0010_c002_0141u64.to_le_bytes().to_vec();
    bytes.extend([0xff; 8]);
    assert_eq!(
        dis.disassemble(&bytes),
        Some((8, "s_load_dword s5, s[2:3], 0x10"))
    );
    assert_eq!(dis.disassemble(&[0xff; 8]), None);
    // The stream and the crash predicate are deterministic.
    let gen = gen_of("gfx900");
    let a: Vec<u64> = Words::new(gen, "gfx900", 7).take(5).collect();
    let b: Vec<u64> = Words::starting_at(gen, "gfx900", 7, 2).take(3).collect();
    assert_eq!(a.get(2..), Some(b.as_slice()));
    assert!(smem_diff::known_llvm_crash(gen, 0x0606_0702_0202_06f9));
    assert!(!smem_diff::known_llvm_crash(gen, 0x0606_0602_0202_06f9));
    assert!(!smem_diff::known_llvm_crash(
        gen_of("gfx1100"),
        0x0606_0702_0202_06f9
    ));
}

/// `smem_diff::known_llvm_crash` against `llvm-mc --disassemble` of LLVM 19
/// and 14: SDWA words of VOP1, VOP2 and VOPC with a selector of 7 in each
/// selector field, and the same words with 6, on a GFX8, a GFX9 and a GFX10
/// processor; the predicate says "crash" exactly when llvm-mc dies by a
/// signal, and never on GFX11 (LLVM 19 only: LLVM 14 has no gfx1100).
#[test]
fn known_llvm_crash_matches_llvm_mc() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let tools: Vec<_> = ["llvm-mc-19", "llvm-mc-14"]
        .iter()
        .filter_map(|t| support::require_tool(t))
        .collect();
    if tools.is_empty() {
        return;
    }
    // Words LLVM decodes (bits 31:25, an opcode, SRC0 = 0xF9) with every
    // selector 6 (WORD_1, valid); v_cmp_eq_f32 is VOPC opcode 0x42 on GFX8
    // and GFX9 but 0x02 on GFX10.
    let bases = |cpu: &str| -> [(&str, u64); 3] {
        let vopc = if cpu.starts_with("gfx10") {
            0x0606_0000_7c04_00f9
        } else {
            0x0606_0000_7c84_00f9
        };
        [
            ("vop1 v_mov_b32", 0x0006_0600_7e00_02f9),
            ("vop2 opcode 1", 0x0606_0602_0202_06f9),
            ("vopc v_cmp_eq_f32", vopc),
        ]
    };
    let mut crashes = 0;
    for tool in &tools {
        // LLVM 14 does not know gfx1100 (it aborts on any input).
        let cpus: &[&str] = if tool.ends_with("llvm-mc-14") {
            &["gfx803", "gfx900", "gfx1030"]
        } else {
            &["gfx803", "gfx900", "gfx1030", "gfx1100"]
        };
        for &cpu in cpus {
            let gen = SmemGen::for_target(by_name(cpu).unwrap()).unwrap();
            for (what, base) in bases(cpu) {
                for shift in [40u32, 48, 56] {
                    for sel in [6u64, 7] {
                        let w = (base & !(7 << shift)) | (sel << shift);
                        let text: Vec<String> = w
                            .to_le_bytes()
                            .iter()
                            .map(|b| format!("{b:#04x}"))
                            .collect();
                        let mut child = Command::new(tool)
                            .args(["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={cpu}")])
                            .arg("--disassemble")
                            .stdin(Stdio::piped())
                            .stdout(Stdio::null())
                            .stderr(Stdio::null())
                            .spawn()
                            .expect("run llvm-mc");
                        {
                            use std::io::Write;
                            let mut stdin = child.stdin.take().unwrap();
                            writeln!(stdin, "{}", text.join(" ")).unwrap();
                        }
                        let status = child.wait().unwrap();
                        let crashed = status.signal().is_some();
                        crashes += u32::from(crashed);
                        assert_eq!(
                            crashed,
                            smem_diff::known_llvm_crash(gen, w),
                            "{} {cpu} {what} bits {shift}+ = {sel}: {w:#018x}",
                            tool.display()
                        );
                    }
                }
            }
        }
    }
    assert!(crashes > 0);
}

/// LLVM 22 prints GFX12 load bits 56 and 20 as `scale_offset` and `nv`
/// (gfx1250 modifiers its gfx1200 assembler refuses: errata SMEM 15); the
/// divergence predicts the text exactly, and LLVM 19 ignores the bits.
#[test]
fn llvm22_gfx12_modifiers_print_as_described() {
    let (Some(lib22), Some(lib19)) = (require_lib(22), require_lib(19)) else {
        return;
    };
    let gen = gen_of("gfx1200");
    let words: [(u64, &[Divergence]); 4] = [
        // s_load_b32 s0, s[0:1], s0 offset:0x0 nv
        (0x0000_0000_f410_0000, &[Llvm22Gfx12Gfx1250Modifiers]),
        // s_buffer_load_b32 s0, s[0:3], 0x0 scale_offset
        (0xf900_0000_f402_0000, &[Llvm22Gfx12Gfx1250Modifiers]),
        // both, around th/scope
        (0xf900_0000_f570_0000, &[Llvm22Gfx12Gfx1250Modifiers]),
        // with a misaligned destination (LLVM's warning comment)
        (
            0x0100_0000_f400_8040,
            &[MisalignedTuple, Llvm22Gfx12Gfx1250Modifiers],
        ),
    ];
    let mut dis22 = lib22.disassembler("gfx1200").expect("disassembler");
    let mut dis19 = lib19.disassembler("gfx1200").expect("disassembler");
    for (word, want) in words {
        let bytes = word.to_le_bytes();
        let (size, text) = dis22.disassemble(&bytes).expect("LLVM 22 decodes it");
        let e = smem_diff::expect(22, gen, word);
        let view = smem_diff::LlvmView::Decoded { size, text };
        let outcome = smem_diff::compare(gen, &e, view);
        let smem_diff::Outcome::Known(ds) = outcome else {
            panic!("{word:#018x}: LLVM 22 printed {text:?}; {outcome:?} ({e:?})");
        };
        assert_eq!(ds.iter().collect::<Vec<_>>(), want, "{word:#018x}");
        // LLVM 19 shows none of it.
        let (size, text) = dis19.disassemble(&bytes).expect("LLVM 19 decodes it");
        let e = smem_diff::expect(19, gen, word);
        let view = smem_diff::LlvmView::Decoded { size, text };
        let outcome = smem_diff::compare(gen, &e, view);
        assert!(
            match outcome {
                smem_diff::Outcome::Same => true,
                smem_diff::Outcome::Known(ds) => !ds.contains(Llvm22Gfx12Gfx1250Modifiers),
                _ => false,
            },
            "{word:#018x}: LLVM 19 printed {text:?}; {outcome:?}"
        );
    }
}

/// The oracle calls invalid only what LLVM's own assembler refuses: over
/// the random words, every word the oracle calls invalid that LLVM 19 or
/// 22 prints is given back to that version's `llvm-mc` as text, and every
/// word it assembles must be valid in the oracle (printing an invalid word
/// as text the assembler takes is LLVM accepting it; a misaligned tuple
/// printed rounded down assembles to another, valid word).
/// The one settled exception is LLVM 19's negative GFX12 buffer offsets
/// (errata SMEM 11: AMD's rule, which LLVM 22 follows); llvm-mc-22 must
/// refuse each of those texts.
#[test]
fn no_word_llvm_prints_and_assembles_is_invalid_in_the_oracle() {
    let mc22 = support::require_tool("llvm-mc-22");
    for version in [19u32, 22] {
        let Some(lib) = require_lib(version) else {
            continue;
        };
        let Some(mc) = support::require_tool(&format!("llvm-mc-{version}")) else {
            continue;
        };
        for cpu in smem_diff::DEFAULT_TARGETS {
            if !by_name(cpu)
                .expect("a processor")
                .known_to_llvm(version as u8)
            {
                continue;
            }
            let gen = gen_of(cpu);
            let mut dis = lib.disassembler(cpu).expect("LLVM knows the processor");
            let mut words = Words::new(gen, cpu, SEED);
            let mut printed: std::collections::BTreeMap<String, u64> = Default::default();
            for _ in 0..WORDS {
                let word = words.next_word();
                // Only a word of the SMEM encoding can print as SMEM text;
                // the others are not given to LLVM in-process (LLVM 22
                // crashes on a VOP3 word whose literal is cut off by the
                // word's end: allowlist llvm.crash.llvm22-input-ends-in-
                // instruction, llvm/llvm-project#170318).
                if (word >> 26) & 0x3f != u64::from(gen.encoding())
                    || smem_diff::known_llvm_crash(gen, word)
                    || !matches!(smem::decode(gen, word).verdict, smem::Verdict::Invalid(_))
                {
                    continue;
                }
                if let Some((8, text)) = dis.disassemble(&word.to_le_bytes()) {
                    let (insn, _) = smem_diff::split_comment(text);
                    if smem_diff::is_smem_text(gen, insn) {
                        printed.entry(insn.to_owned()).or_insert(word);
                    }
                }
            }
            assert!(
                printed.len() > 100,
                "{cpu} LLVM {version}: only {} printed invalid words",
                printed.len()
            );
            let texts: Vec<&String> = printed.keys().collect();
            // A label before each line ties llvm-mc's output to its input
            // whatever errors it reports.
            let input: String = texts
                .iter()
                .enumerate()
                .map(|(k, t)| format!("L{k}:\n{t}\n"))
                .collect();
            let (out, _) = support::mc::mc(&mc, cpu, &["-show-encoding"], &input);
            let mut encoded: Vec<Option<u64>> = vec![None; texts.len()];
            let mut at = None;
            for l in out.lines() {
                if let Some(k) = l.strip_prefix('L').and_then(|r| r.strip_suffix(':')) {
                    at = k.parse::<usize>().ok();
                } else if let (Some(k), Some((_, b))) = (at, l.split_once("encoding: [")) {
                    let bytes = b.split_once(']').map_or("", |(b, _)| b);
                    let word = bytes
                        .split(',')
                        .enumerate()
                        .map(|(n, x)| {
                            let v = u64::from_str_radix(x.trim().trim_start_matches("0x"), 16)
                                .expect("hex byte");
                            v << (8 * n)
                        })
                        .sum();
                    encoded[k] = Some(word);
                }
            }
            let assembled: Vec<(&&String, u64)> = texts
                .iter()
                .zip(&encoded)
                .filter_map(|(t, e)| Some((t, (*e)?)))
                .collect();
            let (mut settled, mut accepted) = (Vec::new(), Vec::new());
            for (t, e) in &assembled {
                let smem::Verdict::Invalid(reason) = smem::decode(gen, *e).verdict else {
                    continue;
                };
                let errata_11 = version == 19
                    && gen == SmemGen::Gfx12
                    && matches!(reason, smem::InvalidReason::BufferOffsetNegative(_));
                if errata_11 {
                    settled.push((**t).clone());
                } else {
                    accepted.push(format!("{t} ({reason})"));
                }
            }
            if !settled.is_empty() {
                let mc22 = mc22.as_ref().expect("llvm-mc-22 settles errata SMEM 11");
                let input: String = settled.iter().map(|t| format!("{t}\n")).collect();
                let (out, err) = support::mc::mc(mc22, cpu, &["-show-encoding"], &input);
                assert_eq!(
                    support::mc::reported_lines(&err, "error:").len(),
                    settled.len(),
                    "{cpu}: llvm-mc-22 takes negative GFX12 buffer offsets:\n{out}"
                );
            }
            assert!(
                accepted.is_empty(),
                "{cpu} LLVM {version}: LLVM prints and assembles {} word(s) the oracle calls \
                 invalid:\n  {}",
                accepted.len(),
                accepted.join("\n  ")
            );
            eprintln!(
                "{cpu} LLVM {version}: {} invalid words printed, {} assemble, all to words the \
                 oracle calls valid but {} negative GFX12 buffer offsets (llvm-mc-22 refuses)",
                texts.len(),
                assembled.len(),
                settled.len()
            );
        }
    }
}

/// The null operands LLVM's assembler takes (errata SMEM 17): valid in
/// the oracle, parsed and encoded by it to llvm-mc's bytes, in every
/// version that takes them.
#[test]
fn null_operands_llvm_assembles_are_valid() {
    // (processor, text, the LLVM versions whose llvm-mc assembles it)
    let cases: &[(&str, &str, &[u32])] = &[
        ("gfx1010", "s_load_dword null, s[0:1], 0x0", &[19, 22]),
        ("gfx1030", "s_load_dwordx2 null, s[0:1], 0x0", &[19, 22]),
        ("gfx1030", "s_load_dwordx4 null, s[0:1], 0x0", &[22]),
        ("gfx1030", "s_buffer_load_dwordx16 null, s[0:3], 0x0", &[22]),
        ("gfx1010", "s_store_dwordx2 null, s[0:1], 0x0", &[19, 22]),
        (
            "gfx1100",
            "s_load_b64 null, s[74:75], s0 offset:0x10",
            &[19, 22],
        ),
        ("gfx1100", "s_load_b512 null, s[0:1], 0x0", &[22]),
        ("gfx1100", "s_load_b32 s0, null, 0x0", &[19, 22]),
        (
            "gfx1100",
            "s_atc_probe 10, null, s0 offset:0x5266b",
            &[19, 22],
        ),
        ("gfx1200", "s_load_b96 null, s[0:1], 0x0", &[22]),
        ("gfx1200", "s_load_b32 s0, null, 0x0", &[19, 22]),
        ("gfx1200", "s_prefetch_data null, 0x0, null, 0", &[19, 22]),
    ];
    for version in [19u32, 22] {
        let Some(mc) = support::require_tool(&format!("llvm-mc-{version}")) else {
            continue;
        };
        for &(cpu, text, takes) in cases {
            let gen = gen_of(cpu);
            let i = smem::parse::parse(gen, text).unwrap_or_else(|e| panic!("{cpu} {text}: {e}"));
            let word = smem::encode(&i).unwrap_or_else(|e| panic!("{cpu} {text}: {e}"));
            assert_eq!(
                smem::decode(gen, word).verdict,
                smem::Verdict::Valid,
                "{cpu} {text}"
            );
            // The oracle's own text of the word parses back to it.
            let again = smem::parse::parse(gen, &smem::decode(gen, word).to_string())
                .map(|i| smem::encode(&i).expect("encodes"));
            assert_eq!(again, Ok(word), "{cpu} {text}");
            let (out, err) = support::mc::mc(&mc, cpu, &["-show-encoding"], &format!("{text}\n"));
            if takes.contains(&version) {
                let bytes: Vec<String> = word
                    .to_le_bytes()
                    .iter()
                    .map(|b| format!("{b:#04x}"))
                    .collect();
                let want = format!("encoding: [{}]", bytes.join(","));
                assert!(
                    out.contains(&want),
                    "{cpu} LLVM {version} {text}: {out}{err}"
                );
            } else {
                assert!(err.contains("error:"), "{cpu} LLVM {version} {text}: {out}");
            }
        }
    }
    // GFX10's null (125) has no SBASE encoding: LLVM's assembler writes
    // field 62 (m0), which its own disassembler and the oracle refuse (an
    // LLVM finding, README "LLVM findings").
    for version in [19u32, 22] {
        let Some(mc) = support::require_tool(&format!("llvm-mc-{version}")) else {
            continue;
        };
        let (out, _) = support::mc::mc(
            &mc,
            "gfx1030",
            &["-show-encoding"],
            "s_load_dword s0, null, 0x0\n",
        );
        let bytes = "0x3e,0x00,0x00,0xf4,0x00,0x00,0x00,0xfa";
        assert!(
            out.contains(&format!("encoding: [{bytes}]")),
            "LLVM {version}: {out}"
        );
        let (_, err) = support::mc::mc(&mc, "gfx1030", &["--disassemble"], &format!("{bytes}\n"));
        assert!(
            err.contains("invalid instruction encoding"),
            "LLVM {version}: {err}"
        );
    }
    let gen = gen_of("gfx1030");
    assert!(smem::parse::parse(gen, "s_load_dword s0, null, 0x0").is_err());
    assert!(matches!(
        smem::decode(gen, 0xfa00_0000_f400_003e).verdict,
        smem::Verdict::Invalid(smem::InvalidReason::SbaseRegister(124))
    ));
}
