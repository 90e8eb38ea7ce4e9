//! GFX12.5 (gfx1250, gfx1251): `nv` and `scale_offset` in decode, text,
//! encode and parse. The words and texts were checked with `llvm-mc-22
//! -triple=amdgcn-amd-amdhsa -mcpu=gfx1250` (and gfx1251, which gives the
//! same bytes) `-show-encoding` and `--disassemble` (Debian 22.1.8);
//! `tests/smem_gfx1250_llvm.rs` checks the same behaviour live.

use super::forms::{self, Modifiers};
use super::parse::{self, ParseErrorKind};
use super::*;
use crate::targets::by_name;
use proptest::prelude::*;

const G: SmemGen = SmemGen::Gfx12_5;

/// (text as llvm-mc-22 prints it, its word), both directions checked.
const KNOWN: &[(&str, u64)] = &[
    ("s_load_b32 s4, s[2:3], 0x10 nv", 0xf800_0010_f410_0101),
    (
        "s_load_b32 s4, s[2:3], s5 offset:0x10 scale_offset",
        0x0b00_0010_f400_0101,
    ),
    (
        "s_load_b32 s4, s[2:3], 0x10 scale_offset",
        0xf900_0010_f400_0101,
    ),
    (
        "s_load_b32 s4, s[2:3], s5 offset:0x10 scale_offset th:TH_LOAD_HT scope:SCOPE_DEV nv",
        0x0b00_0010_f550_0101,
    ),
    (
        "s_load_b64 s[4:5], s[2:3], m0 offset:0x20 scale_offset",
        0xfb00_0020_f400_2101,
    ),
    (
        "s_load_b96 s[8:10], s[2:3], s7 offset:0x0 scale_offset nv",
        0x0f00_0000_f410_a201,
    ),
    (
        "s_load_b512 s[16:31], s[4:5], -0x800000 th:TH_LOAD_BYPASS scope:SCOPE_SYS nv",
        0xf880_0000_f5f0_8402,
    ),
    (
        "s_load_u16 s1, s[6:7], s3 offset:0x2 scale_offset",
        0x0700_0002_f401_6043,
    ),
    (
        "s_load_i8 s1, s[6:7], s3 offset:0x3 scale_offset nv",
        0x0700_0003_f411_0043,
    ),
    (
        "s_buffer_load_b32 s4, s[4:7], 0x10 nv",
        0xf800_0010_f412_0102,
    ),
    (
        "s_buffer_load_i8 s5, s[4:7], s0 offset:0x0 nv",
        0x0000_0000_f413_0142,
    ),
    (
        "s_buffer_load_b128 s[8:11], s[12:15], 0x7fffff th:TH_LOAD_NT nv",
        0xf87f_ffff_f492_4206,
    ),
];

#[test]
fn gfx1250_and_gfx1251_are_gfx12_5() {
    for name in ["gfx1250", "gfx1251"] {
        let t = by_name(name).expect(name);
        assert_eq!(SmemGen::for_target(t), Some(G), "{name}");
    }
    let t = by_name("gfx1200").expect("gfx1200");
    assert_eq!(SmemGen::for_target(t), Some(SmemGen::Gfx12));
    // Same opcodes, fields and registers as GFX12; only the modifiers differ.
    assert_eq!(G.table(), SmemGen::Gfx12.table());
    assert_eq!(G.opcode_field(), SmemGen::Gfx12.opcode_field());
    assert_eq!((G.null(), G.m0()), (124, 125));
    assert_eq!(SmemGen::Gfx12.nv_bit(), None);
    assert_eq!(SmemGen::Gfx12.scale_offset_bit(), None);
    assert_eq!((G.nv_bit(), G.scale_offset_bit()), (Some(20), Some(56)));
}

#[test]
fn known_words_decode_print_and_encode() {
    for &(text, word) in KNOWN {
        let d = decode(G, word);
        assert_eq!(d.verdict, Verdict::Valid, "{text}");
        let i = d.instruction.expect("decoded");
        assert_eq!(i.to_string(), text);
        assert_eq!(encode(&i), Ok(word), "{text}");
        assert_eq!(parse::parse(G, text), Ok(i), "{text}");
    }
}

/// Which classes take which modifier: the bits of the others are unused
/// (LLVM 22's gfx1250 disassembler ignores NV on probes, prefetches and
/// `s_dcache_inv`), and `encode` refuses them.
#[test]
fn modifiers_only_where_llvm_takes_them() {
    for op in G.table() {
        let c = op.class;
        let nv = G.has_nv(c);
        let scale = G.has_scale_offset(c);
        assert_eq!(
            nv,
            matches!(c, Class::Load | Class::BufferLoad),
            "{}",
            op.mnemonic
        );
        assert_eq!(scale, c == Class::Load, "{}", op.mnemonic);
        let sdata = if c.has_sdata_regs() { 8 } else { 0 };
        let sbase = if c.has_sbase() { 4 } else { 0 };
        let offset = if c.prefetch() {
            Offset::SgprImm {
                sgpr: G.null(),
                imm: 0,
            }
        } else if c.has_offset() {
            Offset::Imm(0x10)
        } else {
            Offset::None
        };
        let plain = Instruction::new(G, op, sdata, sbase, offset);
        let w = encode(&plain).expect("plain form encodes");
        for (bit, on, flag) in [(20, nv, 0), (56, scale, 1)] {
            let d = decode(G, w | 1 << bit);
            let i = d.instruction.expect("decoded");
            let set = if flag == 0 { i.nv } else { i.scale_offset };
            assert_eq!(set, on, "{} bit {bit}", op.mnemonic);
            let want = if on {
                Verdict::Valid
            } else {
                Verdict::NonCanonical { bits: 1 << bit }
            };
            assert_eq!(d.verdict, want, "{} bit {bit}", op.mnemonic);
            let with = if flag == 0 {
                Instruction { nv: true, ..plain }
            } else {
                Instruction {
                    scale_offset: true,
                    ..plain
                }
            };
            let err = if flag == 0 {
                EncodeError::Nv
            } else {
                EncodeError::ScaleOffset
            };
            match encode(&with) {
                Ok(x) => assert!(on && x == w | 1 << bit, "{}", op.mnemonic),
                Err(e) => assert!(!on && e == err, "{}", op.mnemonic),
            }
        }
    }
}

/// GFX12 (gfx1200) keeps the bits unused and refuses the modifiers.
#[test]
fn gfx12_has_neither_modifier() {
    let g = SmemGen::Gfx12;
    let op = g.op_by_name("s_load_b32").expect("op");
    let i = Instruction::new(g, op, 4, 2, Offset::Imm(0x10));
    assert_eq!(encode(&Instruction { nv: true, ..i }), Err(EncodeError::Nv));
    assert_eq!(
        encode(&Instruction {
            scale_offset: true,
            ..i
        }),
        Err(EncodeError::ScaleOffset)
    );
    let w = encode(&i).expect("encodes");
    let d = decode(g, w | 1 << 20 | 1 << 56);
    assert_eq!(d.instruction, Some(i));
    assert_eq!(
        d.verdict,
        Verdict::NonCanonical {
            bits: 1 << 20 | 1 << 56
        }
    );
    let e = parse::parse(g, "s_load_b32 s4, s[2:3], 0x10 nv").expect_err("gfx1200 has no nv");
    assert_eq!(e.kind, ParseErrorKind::TrailingInput);
}

/// What llvm-mc-22 -mcpu=gfx1250 accepts and refuses around the modifiers.
#[test]
fn parse_follows_llvm_mc_22() {
    let ok: &[(&str, &str)] = &[
        (
            "s_load_b32 s4, s[2:3], 0x10 nv scale_offset",
            "s_load_b32 s4, s[2:3], 0x10 scale_offset nv",
        ),
        (
            "s_load_b32 s4, s[2:3], 0x10 th:TH_LOAD_NT nv scope:SCOPE_SYS scale_offset",
            "s_load_b32 s4, s[2:3], 0x10 scale_offset th:TH_LOAD_NT scope:SCOPE_SYS nv",
        ),
        (
            "s_load_b32 s4, s[2:3], 0x10 nonv",
            "s_load_b32 s4, s[2:3], 0x10",
        ),
        (
            "s_load_b32 s4, s[2:3], 0x10 noscale_offset",
            "s_load_b32 s4, s[2:3], 0x10",
        ),
        (
            "s_buffer_load_b32 s4, s[4:7], 0x10 noscale_offset",
            "s_buffer_load_b32 s4, s[4:7], 0x10",
        ),
        (
            "s_load_b32 s4, s[2:3], scale_offset",
            "s_load_b32 s4, s[2:3], 0x0 scale_offset",
        ),
        ("s_load_b32 s4, s[2:3] nv", "s_load_b32 s4, s[2:3], 0x0 nv"),
        (
            "s_load_b32 s4, s[2:3], 0x10, nv",
            "s_load_b32 s4, s[2:3], 0x10 nv",
        ),
        (
            "s_load_b32 s4, s[2:3], 0x10 nv,",
            "s_load_b32 s4, s[2:3], 0x10 nv",
        ),
        (
            "s_load_b32 s4, s[2:3], s5, offset:0x10 scale_offset",
            "s_load_b32 s4, s[2:3], s5 offset:0x10 scale_offset",
        ),
        (
            "s_load_b32 s4, s[2:3], null scale_offset",
            "s_load_b32 s4, s[2:3], 0x0 scale_offset",
        ),
        (
            "s_load_dword s4, s[2:3], 0x10 nv",
            "s_load_b32 s4, s[2:3], 0x10 nv",
        ),
        (
            "s_load_b32 s4, s[2:3], -0x10 scale_offset",
            "s_load_b32 s4, s[2:3], -0x10 scale_offset",
        ),
    ];
    for (src, printed) in ok {
        let i = parse::parse(G, src).unwrap_or_else(|e| panic!("`{src}`: {e}"));
        assert_eq!(i.to_string(), *printed, "`{src}`");
    }
    let modifier = |w: &str| ParseErrorKind::Modifier(w.to_owned());
    let dup = |w: &str| ParseErrorKind::DuplicateModifier(w.to_owned());
    let bad: &[(&str, ParseErrorKind)] = &[
        (
            "s_buffer_load_b32 s4, s[4:7], s5 offset:0x10 scale_offset",
            modifier("scale_offset"),
        ),
        (
            "s_prefetch_data s[2:3], 0x10, s5, 0 nv",
            ParseErrorKind::TrailingInput,
        ),
        ("s_atc_probe 7, s[2:3], 0x10 nv", modifier("nv")),
        (
            "s_atc_probe 7, s[2:3], 0x10 noscale_offset",
            modifier("noscale_offset"),
        ),
        ("s_dcache_inv nv", modifier("nv")),
        ("s_load_b32 s4, s[2:3], 0x10 nv nv", dup("nv")),
        ("s_load_b32 s4, s[2:3], 0x10 nonv nv", dup("nv")),
        (
            "s_load_b32 s4, s[2:3], 0x10 scale_offset noscale_offset",
            dup("noscale_offset"),
        ),
        (
            "s_load_b32 s4, s[2:3], 0x10 NV",
            ParseErrorKind::TrailingInput,
        ),
        (
            "s_load_b32 s4, s[2:3], 0x10 nv, th:TH_LOAD_HT",
            ParseErrorKind::Expected("no `,` between modifiers"),
        ),
        (
            "s_load_b32 s4, s[2:3], s5 scale_offset offset:0x10",
            ParseErrorKind::TrailingInput,
        ),
    ];
    for (src, kind) in bad {
        let e = parse::parse(G, src).expect_err(src);
        assert_eq!(&e.kind, kind, "`{src}`");
    }
}

/// A valid GFX12.5 instruction of any opcode, with any modifier set its
/// class takes.
fn any_instruction() -> impl Strategy<Value = Instruction> {
    let n = G.table().len();
    (
        0..n,
        any::<u64>(),
        any::<prop::sample::Index>(),
        any::<i32>(),
    )
        .prop_map(|(k, r, m, imm)| {
            let op = &G.table()[k];
            let c = op.class;
            let regs = |w: u8, base: bool| -> Vec<u8> {
                (0..128u8)
                    .filter(|&v| tuple_name(G, v, w, base).is_some())
                    .collect()
            };
            let pick = |v: &[u8], s: u32| v.get((r >> s) as usize % v.len().max(1)).copied();
            let sdata = if c.has_sdata_regs() {
                pick(&regs(op.width, false), 0).unwrap_or(0)
            } else if c.has_sdata_imm() {
                (r & 31) as u8
            } else {
                0
            };
            let sbase = if c.has_sbase() {
                pick(&regs(if c.buffer_base() { 4 } else { 2 }, true), 8).unwrap_or(0)
            } else {
                0
            };
            let (lo, hi) = G.offset_range(c);
            let span = i64::from(hi) - i64::from(lo) + 1;
            let v = (i64::from(lo) + i64::from(imm).rem_euclid(span)) as i32;
            let reg = (r >> 16) as u8 % 106;
            let forms = forms::offset_forms(G, c);
            let offset = match forms[(r >> 24) as usize % forms.len()] {
                forms::OffsetForm::Imm => Offset::Imm(v),
                forms::OffsetForm::SgprImm => Offset::SgprImm { sgpr: reg, imm: v },
                _ => Offset::None,
            };
            let mods = forms::modifier_sets(G, c);
            let m: Modifiers = mods[m.index(mods.len())];
            m.apply(Instruction::new(G, op, sdata, sbase, offset))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Encode, decode, print and parse round trips with the modifiers:
    /// every instruction encodes to a canonical word that decodes to it,
    /// and its text parses back to it.
    #[test]
    fn modifiers_round_trip(i in any_instruction()) {
        let w = encode(&i).map_err(|e| TestCaseError::fail(format!("{i}: {e}")))?;
        let d = decode(G, w);
        prop_assert_eq!(d.verdict, Verdict::Valid, "{}", i);
        prop_assert_eq!(d.instruction, Some(i));
        let bit = |b: Option<u32>| b.is_some_and(|b| w >> b & 1 == 1);
        prop_assert_eq!(bit(G.nv_bit()), i.nv);
        prop_assert_eq!(bit(G.scale_offset_bit()), i.scale_offset);
        let text = i.to_string();
        prop_assert_eq!(parse::parse(G, &text), Ok(i), "{}", text);
    }

    /// Any word: the fast decoder agrees with the field-by-field one, a
    /// valid word re-encodes to itself, and the NV and SCALE_OFFSET bits
    /// of a decoded load are exactly its modifiers.
    #[test]
    fn any_word_decodes_consistently(w in any::<u64>(), op in 0usize..28) {
        // Half the words with a GFX12.5 opcode and the SMEM encoding.
        let w = if op % 2 == 0 {
            let o = &G.table()[op];
            (w & !(0x3f << 26 | 0x3f << 13)) | 0x3d << 26 | u64::from(o.opcode) << 13
        } else {
            w
        };
        let d = decode(G, w);
        prop_assert_eq!(d, decode_reference(G, w));
        if let Some(i) = d.instruction {
            let c = i.op.class;
            prop_assert_eq!(i.nv, G.has_nv(c) && w >> 20 & 1 == 1);
            prop_assert_eq!(i.scale_offset, G.has_scale_offset(c) && w >> 56 & 1 == 1);
            match d.verdict {
                Verdict::Valid => prop_assert_eq!(encode(&i), Ok(w)),
                Verdict::NonCanonical { bits } => prop_assert_eq!(encode(&i), Ok(w & !bits)),
                Verdict::Invalid(_) => {}
            }
        }
    }
}

#[test]
fn every_gfx12_5_form_round_trips() {
    let fs = forms::forms(G);
    // 20 loads: 16 th/scope × nv, and × scale_offset for the 10
    // non-buffer ones; two offset forms each; the other 8 opcodes have
    // one or two plain forms.
    let with_nv = fs.iter().filter(|f| f.nv).count();
    let with_scale = fs.iter().filter(|f| f.scale_offset).count();
    assert_eq!(with_nv, 2 * (10 * 32 + 10 * 16));
    assert_eq!(with_scale, 2 * 10 * 32);
    for f in fs {
        let c = f.op.class;
        let sdata = if c.has_sdata_regs() {
            8
        } else {
            3 * u8::from(c.has_sdata_imm())
        };
        let i = f.instruction(sdata, if c.has_sbase() { 4 } else { 0 }, 7, 0x10);
        let w = encode(&i).unwrap_or_else(|e| panic!("{f:?}: {e}"));
        assert_eq!(decode(G, w).instruction, Some(i), "{f:?}");
        assert_eq!(forms::Modifiers::of(&i), f.modifiers());
    }
}

// ---- the executor ---------------------------------------------------------

mod exec {
    use super::G;
    use crate::smem::exec::{Machine, Step, NEGATIVE_OFFSET, SCALE_OFFSET_BYTE_LOAD};
    use crate::smem::{Instruction, Offset};

    const BASE: u64 = 0x0000_4321_0000_1000;

    /// Bytes each load reads, from its mnemonic (the ISA's names, not the
    /// opcode table's widths).
    fn access_bytes(mnemonic: &str) -> u64 {
        match mnemonic {
            "s_load_i8" | "s_load_u8" => 1,
            "s_load_i16" | "s_load_u16" => 2,
            "s_load_b32" => 4,
            "s_load_b64" => 8,
            "s_load_b96" => 12,
            "s_load_b128" => 16,
            "s_load_b256" => 32,
            "s_load_b512" => 64,
            m => panic!("not a GFX12.5 load: {m}"),
        }
    }

    fn pat(a: u64) -> u8 {
        (a.wrapping_mul(13) ^ (a >> 7)) as u8
    }

    /// s[2:3] = BASE, s5 = `soff`, memory around BASE patterned.
    fn machine(soff: u32) -> Machine {
        let mut m = Machine::new(G);
        m.set_sgpr(2, BASE as u32);
        m.set_sgpr(3, (BASE >> 32) as u32);
        m.set_sgpr(5, soff);
        for a in BASE..BASE + 0x1000 {
            m.memory.write_byte(a, pat(a));
        }
        m
    }

    fn load(name: &str, offset: Offset, scale_offset: bool, nv: bool) -> Instruction {
        let op = G.op_by_name(name).expect("op");
        Instruction {
            scale_offset,
            nv,
            ..Instruction::new(G, op, 16, 2, offset)
        }
    }

    /// The bytes an `n`-byte load at `addr` puts in s16.. (little-endian,
    /// zero-extended), as dwords.
    fn expected(addr: u64, n: u64) -> Vec<u32> {
        let bytes: Vec<u8> = (0..n).map(|k| pat(addr + k)).collect();
        bytes
            .chunks(4)
            .map(|c| {
                let mut d = [0u8; 4];
                d[..c.len()].copy_from_slice(c);
                u32::from_le_bytes(d)
            })
            .collect()
    }

    /// `scale_offset` multiplies the SGPR offset by the access size (2 to
    /// 64 bytes); without it the offset counts in bytes.
    #[test]
    fn scale_offset_scales_by_the_access_size() {
        for op in G.table().iter().filter(|o| G.has_scale_offset(o.class)) {
            let n = access_bytes(op.mnemonic);
            if n == 1 {
                continue;
            }
            for scale in [false, true] {
                let mut m = machine(4);
                let i = load(
                    op.mnemonic,
                    Offset::SgprImm { sgpr: 5, imm: 0x10 },
                    scale,
                    false,
                );
                m.step(&Step::Smem(i));
                m.step(&Step::WaitLgkm(0));
                assert!(m.accepted(), "{i}: {:?}", m.violations());
                let addr = BASE + 0x10 + 4 * if scale { n } else { 1 };
                let want = expected(addr, n);
                let got: Vec<u32> = (0..want.len() as u8).map(|k| m.sgpr(16 + k)).collect();
                // Sub-dword loads: only the low bytes are the data (the
                // sign extension of i16 is checked by the executor's own
                // tests), so compare those.
                if n == 2 {
                    assert_eq!(got[0] & 0xffff, want[0], "{i}");
                } else {
                    assert_eq!(got, want, "{i}");
                }
            }
        }
    }

    /// Byte loads: no source gives their scaling, so a nonzero SGPR offset
    /// is not predicted (a violation, the destination opaque); a zero or
    /// null one needs no scaling.
    #[test]
    fn byte_loads_with_scale_offset_are_not_predicted() {
        for name in ["s_load_i8", "s_load_u8"] {
            let mut m = machine(4);
            m.step(&Step::Smem(load(
                name,
                Offset::SgprImm { sgpr: 5, imm: 3 },
                true,
                false,
            )));
            let ids: Vec<&str> = m.violations().iter().map(|v| v.rule.id).collect();
            assert_eq!(ids, [SCALE_OFFSET_BYTE_LOAD.id], "{name}");
            assert_eq!(m.opaque_mask(), 1 << 16, "{name}");
            for offset in [Offset::SgprImm { sgpr: 6, imm: 3 }, Offset::Imm(3)] {
                let mut m = machine(4);
                m.step(&Step::Smem(load(name, offset, true, false)));
                assert!(m.accepted(), "{name} {offset:?}: {:?}", m.violations());
                assert_eq!(m.opaque_mask(), 0);
                let b = pat(BASE + 3);
                let want = if name == "s_load_i8" {
                    b as i8 as i32 as u32
                } else {
                    u32::from(b)
                };
                assert_eq!(m.sgpr(16), want, "{name} {offset:?}");
            }
        }
    }

    /// `nv` is a hint: the same state with and without it.
    #[test]
    fn nv_changes_nothing() {
        for op in G.table().iter().filter(|o| G.has_nv(o.class)) {
            let base = if op.class.buffer_base() { 4 } else { 2 };
            let i = Instruction::new(G, op, 16, base, Offset::SgprImm { sgpr: 5, imm: 8 });
            let run = |i: Instruction| {
                let mut m = machine(4);
                m.step(&Step::Smem(i));
                m.step(&Step::WaitLgkm(0));
                (m.sgprs().to_vec(), m.violations().to_vec(), m.opaque_mask())
            };
            assert_eq!(run(i), run(Instruction { nv: true, ..i }), "{i}");
        }
    }

    /// The negative-offset rule adds the scaled SGPR offset.
    #[test]
    fn negative_offset_counts_the_scaled_offset() {
        let cases = [
            ("s_load_b32", true, true),   // -8 + 1 * 4 < 0
            ("s_load_b64", true, false),  // -8 + 1 * 8 = 0
            ("s_load_b64", false, true),  // -8 + 1 < 0
            ("s_load_b128", true, false), // -8 + 16 > 0
        ];
        for (name, scale, negative) in cases {
            let mut m = machine(1);
            m.step(&Step::Smem(load(
                name,
                Offset::SgprImm { sgpr: 5, imm: -8 },
                scale,
                false,
            )));
            let hit = m
                .violations()
                .iter()
                .any(|v| v.rule.id == NEGATIVE_OFFSET.id);
            assert_eq!(hit, negative, "{name} scale_offset={scale}");
        }
    }
}
