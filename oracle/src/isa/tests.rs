//! Properties of the instruction layer's decoder and printer. The
//! layer's agreement with LLVM is `tests/isa_libllvm.rs` (libLLVM 19 and
//! 22 on every row and on random words); these check what holds whatever
//! LLVM says.

use proptest::prelude::*;

use super::operand::{write_literal, write_literal64, OpType};
use super::{decode, Decoder, Dialect, Invalid, Verdict};
use crate::targets::{self, by_name};

/// Processors the layer decodes.
fn decoded() -> Vec<&'static crate::targets::Target> {
    targets::all_targets()
        .filter(|t| Decoder::for_target(t).is_some())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Any bytes on any processor: a verdict, never a panic; the length
    /// is at most 16 and never more than the bytes there are, unless the
    /// verdict says the instruction is truncated.
    #[test]
    fn any_bytes_decode_to_a_verdict(
        bytes in proptest::collection::vec(any::<u8>(), 0..20),
        which in any::<proptest::sample::Index>(),
    ) {
        let ts = decoded();
        let t = ts[which.index(ts.len())];
        let d = decode(t, &bytes).expect("decoded processor");
        prop_assert!(d.len <= 16);
        match d.verdict {
            Verdict::Invalid(Invalid::Truncated { need }) => {
                prop_assert!(usize::from(need) > bytes.len());
                prop_assert_eq!(usize::from(d.len), bytes.len().min(usize::from(need)));
            }
            _ => prop_assert!(usize::from(d.len) <= bytes.len()),
        }
        // Text never fails to print.
        let _ = d.text();
    }

    /// An instruction is a function of its own bytes: decoding them
    /// alone, or followed by anything, gives the same result.
    #[test]
    fn an_instruction_depends_on_its_own_bytes_only(
        bytes in proptest::collection::vec(any::<u8>(), 4..16),
        tail in proptest::collection::vec(any::<u8>(), 0..8),
        which in any::<proptest::sample::Index>(),
    ) {
        let ts = decoded();
        let t = ts[which.index(ts.len())];
        let d = decode(t, &bytes).expect("decoded processor");
        if !matches!(d.verdict, Verdict::Invalid(Invalid::Truncated { .. })) {
            let own = decode(t, &bytes[..usize::from(d.len)]).expect("decoded");
            prop_assert_eq!(own, d);
            let mut longer = bytes.clone();
            longer.extend(&tail);
            let more = decode(t, &longer).expect("decoded");
            prop_assert_eq!(more, d);
        }
    }

    /// A valid instruction's operands are each allowed in their slot
    /// (the verdict and the operand check are one rule).
    #[test]
    fn valid_means_every_operand_allowed(
        bytes in proptest::collection::vec(any::<u8>(), 16),
        which in any::<proptest::sample::Index>(),
    ) {
        let ts = decoded();
        let t = ts[which.index(ts.len())];
        let d = decode(t, &bytes).expect("decoded processor");
        if d.verdict == Verdict::Valid {
            let insn = d.insn.expect("a valid word has an instruction");
            for (slot, op) in insn.operands() {
                prop_assert!(super::decode::operand_allowed(d.gen, t, slot, op), "{slot:?} {op:?}");
            }
        }
    }
}

/// The literal forms measured with llvm-mc-19 and -22 (`s_mov_b32`,
/// `s_mov_b64`, `s_add_f16`, `s_cmp_lt_f16` on gfx1150; errata ISA 2).
#[test]
fn literals_print_as_each_llvm_prints_them() {
    let text = |v: u32, ty: OpType, d: Dialect| {
        let mut s = String::new();
        write_literal(&mut s, v, ty, d).expect("write");
        s
    };
    let cases: &[(u32, OpType, &str, &str)] = &[
        (0x12, OpType::B32, "18", "lit(0x12)"),
        (0xffff_fff0, OpType::B32, "-16", "lit(0xfffffff0)"),
        (0x3f00_0000, OpType::B32, "0.5", "lit(0x3f000000)"),
        (0x3e22_f983, OpType::B32, "0.15915494", "lit(0x3e22f983)"),
        (0x41, OpType::B32, "0x41", "0x41"),
        (0x12, OpType::I64, "18", "lit(0x12)"),
        (0xffff_fff0, OpType::I64, "0xfffffff0", "0xfffffff0"),
        (0x3f00_0000, OpType::I64, "0x3f000000", "0x3f000000"),
        (0x0001_0012, OpType::F16, "18", "lit(0x10012)"),
        (0x3f00_0000, OpType::F16, "0", "lit(0x3f000000)"),
        (0xffff_3800, OpType::F16, "0.5", "lit(0xffff3800)"),
        (0x3e22_f983, OpType::F16, "0xf983", "0xf983"),
        (0x0001_0012, OpType::F16Bits, "0x12", "0x12"),
        (0xffff_fff0, OpType::F16Bits, "-16", "lit(0xfffffff0)"),
        (0x3f00_0000, OpType::F16Bits, "0.5", "lit(0x3f000000)"),
        (0x3800, OpType::F16Bits, "0x3800", "0x3800"),
        (0x1234_5678, OpType::F16Bits, "0x5678", "0x5678"),
    ];
    for &(v, ty, l19, l22) in cases {
        assert_eq!(text(v, ty, Dialect::Llvm19), l19, "{v:#x} {ty:?} LLVM 19");
        assert_eq!(text(v, ty, Dialect::Llvm22), l22, "{v:#x} {ty:?} LLVM 22");
    }
}

/// GFX12.5's 64-bit literal, as llvm-mc-22 prints it for gfx1250
/// `s_mov_b64` and `s_mov_b32` (errata ISA 2).
#[test]
fn literal64_prints_as_llvm22_prints_it() {
    let text = |v: u64, ty: OpType| {
        let mut s = String::new();
        write_literal64(&mut s, v, ty).expect("write");
        s
    };
    let cases: &[(u64, &str, &str)] = &[
        (0, "lit64(0x0)", "lit64(0x0)"),
        (0x12, "lit64(0x12)", "lit64(0x12)"),
        (0xffff_ffff, "lit64(0xffffffff)", "lit64(0xffffffff)"),
        (0x1_0000_0000, "0x100000000", "0"),
        (0x1_0000_0012, "0x100000012", "18"),
        (0xffff_ffff_ffff_fffe, "-2", "-2"),
        (0xffff_ffff_8000_0000, "0xffffffff80000000", "0x80000000"),
        (0xffff_ffff_ffff_ffc0, "0xffffffffffffffc0", "0xffffffc0"),
        (0x3ff0_0000_0000_0000, "1.0", "0"),
    ];
    for &(v, b64, b32) in cases {
        assert_eq!(text(v, OpType::I64), b64, "{v:#x} b64");
        assert_eq!(text(v, OpType::B32), b32, "{v:#x} b32");
    }
}

/// A GFX12.5 word with the 64-bit literal code is 12 bytes long on a
/// 64-bit source and invalid on a 32-bit one; other processors read
/// code 254 as `src_lds_direct`, which a scalar source never takes.
#[test]
fn the_64_bit_literal_is_gfx12_5_and_64_bit_operands_only() {
    let gfx1250 = by_name("gfx1250").expect("gfx1250");
    let gfx1200 = by_name("gfx1200").expect("gfx1200");
    // s_mov_b64 s[0:1], lit64(0x100000000)
    let b64 = [0xfe, 0x01, 0x80, 0xbe, 0, 0, 0, 0, 1, 0, 0, 0];
    let d = decode(gfx1250, &b64).expect("decoded");
    assert_eq!((d.verdict, d.len), (Verdict::Valid, 12));
    assert_eq!(d.text(), "s_mov_b64 s[0:1], 0x100000000");
    let d = decode(gfx1200, &b64).expect("decoded");
    assert!(matches!(
        d.verdict,
        Verdict::Invalid(Invalid::Operand { .. })
    ));
    // s_mov_b32 s0, <code 254>
    let b32 = [0xfe, 0x00, 0x80, 0xbe, 0x12, 0, 0, 0, 0, 0, 0, 0];
    let d = decode(gfx1250, &b32).expect("decoded");
    assert_eq!(d.len, 12);
    assert!(matches!(
        d.verdict,
        Verdict::Invalid(Invalid::Operand { .. })
    ));
    // Truncated: the literal's second dword is missing.
    let d = decode(gfx1250, &b64[..8]).expect("decoded");
    assert_eq!(d.verdict, Verdict::Invalid(Invalid::Truncated { need: 12 }));
}
