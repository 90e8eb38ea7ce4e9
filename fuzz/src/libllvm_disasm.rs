//! Target `libllvm_disasm`: LLVM's AMDGPU disassembler on arbitrary
//! bytes, in process, to find inputs that crash LLVM.
//!
//! Input: byte 0 picks the library and processor: bits 7:6 the LLVM
//! version ([`LIBRARIES`]: 19, 22, 14, 16; skipped when that library is
//! not installed, except LLVM 19, which the target needs), bits 5:0 the
//! processor among [`peer::processors`] of that library (modulo). The
//! rest is decoded one instruction at a time from the start, as
//! `llvm-mc --disassemble` walks a byte string: after an instruction its
//! size, after bytes LLVM rejects four bytes (one dword, what `llvm-mc`
//! skips for AMDGPU).
//!
//! This target is expected to crash: every crash is a bug in LLVM. The
//! walk stops before an instruction that matches one of the
//! [`KNOWN_CRASHES`], so that a fuzzing run finds new crashes instead of
//! rediscovering known ones within seconds; set `HSACO_FUZZ_KNOWN_CRASHES=run`
//! to give them to LLVM too. Reproducers live in
//! `corpus/regressions/libllvm_disasm/` with a signature file each and are
//! replayed in a child process (`fuzz/tests/corpus.rs`, with known crashes
//! run). The only check of its own: LLVM must not claim more bytes than it
//! was given.

use hsaco_conform::conform::isolate::PAST_END_PAD;
use hsaco_conform::peers::llvm_disasm::{Disassembler, LlvmLib};
use hsaco_oracle::smem::SmemGen;
use hsaco_oracle::targets::by_name;

use crate::peer;

/// The LLVM version each value of selector bits 7:6 picks. 19 is 0 and
/// 14 is 2, so selectors written when bit 7 alone chose LLVM 14 keep
/// their meaning.
pub const LIBRARIES: [u32; 4] = [19, 22, 14, 16];

/// The selector byte for LLVM `version` and processor index `idx`, if
/// [`LIBRARIES`] has the version and the index fits in six bits.
pub fn selector(version: u32, idx: usize) -> Option<u8> {
    let v = LIBRARIES.iter().position(|&l| l == version)?;
    let idx = u8::try_from(idx).ok().filter(|i| *i < 64)?;
    Some(((v as u8) << 6) | idx)
}

/// The library and processor byte 0 of an input selects, or `None` when
/// that library is not installed (or knows no processor). Panics when
/// libLLVM-19 is missing: the target has nothing to run.
pub fn select(sel: u8) -> Option<(&'static LlvmLib, &'static str)> {
    let version = LIBRARIES[usize::from(sel >> 6)];
    let lib = if version == 19 {
        peer::llvm(19).unwrap_or_else(|e| panic!("libllvm_disasm needs libLLVM-19: {e}"))
    } else {
        peer::llvm(version).ok()?
    };
    let procs = peer::processors(lib);
    let cpu = procs.get(usize::from(sel & 0x3f) % procs.len().max(1))?;
    Some((lib, cpu))
}

/// An LLVM disassembler crash the target knows, with a rule that
/// recognises the instruction that triggers it.
#[derive(Clone, Debug)]
pub struct KnownCrash {
    /// Stable name; the reproducers in `corpus/regressions/libllvm_disasm/`
    /// start with it.
    pub name: &'static str,
    /// The LLVM versions that crash (measured on Debian's 14, 15, 16, 19
    /// and 22).
    pub versions: std::ops::RangeInclusive<u32>,
    /// True when an instruction starting with `bytes` (up to 16 bytes,
    /// zero-padded) triggers the crash on `cpu`.
    pub matches: fn(cpu: &str, bytes: &[u8; 16]) -> bool,
}

/// Every known crash whose trigger the instruction's bits show
/// (reproducers and signatures in `corpus/regressions/libllvm_disasm/`).
/// The first three are LLVM printing an SDWA selector of 7, a value SDWA
/// leaves undefined: the printer jumps through a table with it (a wild
/// jump, SIGSEGV), in every version. The fourth is LLVM 22 failing to
/// print its own error for a MUBUF/MTBUF SOFFSET of 0xff (the literal
/// code); the fifth LLVM 22 printing a literal SSRC0 of a GFX12 barrier
/// instruction; the same failure when the input ends before an instruction's
/// literal is [`PAST_END`], which takes a decode to recognise.
pub const KNOWN_CRASHES: &[KnownCrash] = &[
    KnownCrash {
        name: "vop2-sdwa-sel7",
        versions: 14..=22,
        matches: |cpu, b| sdwa_sel7(cpu, b, SdwaKind::Vop2),
    },
    KnownCrash {
        name: "vop1-sdwa-sel7",
        versions: 14..=22,
        matches: |cpu, b| sdwa_sel7(cpu, b, SdwaKind::Vop1),
    },
    KnownCrash {
        name: "vopc-sdwa-sel7",
        versions: 14..=22,
        matches: |cpu, b| sdwa_sel7(cpu, b, SdwaKind::Vopc),
    },
    KnownCrash {
        name: "buffer-soffset-literal",
        versions: 22..=22,
        matches: buffer_soffset_literal,
    },
    KnownCrash {
        name: "barrier-literal",
        versions: 22..=22,
        matches: barrier_literal,
    },
];

/// LLVM 22's crash on an input that ends inside an instruction whose
/// literal it lacks (`0x00 0xff 0x00 0x80` on gfx803): no bit rule shows
/// it; [`ends_in_instruction`] recognises it by a decode.
pub const PAST_END: PastEnd = PastEnd {
    name: "truncated-literal",
    versions: 22..=22,
};

/// A known crash recognised by decoding, not by bits (see [`PAST_END`]).
#[derive(Clone, Debug)]
pub struct PastEnd {
    /// Stable name; the reproducers start with it.
    pub name: &'static str,
    /// The LLVM versions that crash.
    pub versions: std::ops::RangeInclusive<u32>,
}

/// GFX8-GFX11 MUBUF (bits 31:26 = 0x38) or MTBUF (0x3a) word with SOFFSET
/// (bits 63:56) = 0xff. Checked with `llvm-mc-22 --disassemble` on gfx803,
/// gfx900, gfx90a, gfx942, gfx1010, gfx1030 and gfx1100 (GFX12 is not
/// affected; 0xfe is printed).
fn buffer_soffset_literal(cpu: &str, b: &[u8; 16]) -> bool {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    let word = u64::from_le_bytes(w);
    matches!(
        family(cpu),
        Some(SmemGen::Gfx8 | SmemGen::Gfx9 | SmemGen::Gfx10_1 | SmemGen::Gfx10_3 | SmemGen::Gfx11)
    ) && matches!(word & 0xfc00_0000, 0xe000_0000 | 0xe800_0000)
        && word >> 56 == 0xff
}

/// GFX12 SOP1 word (bits 31:23 = 0x17d) of a barrier instruction
/// (opcodes 0x4e-0x52; on GFX12.5 also 0x57, s_wakeup_barrier) with
/// SSRC0 (bits 7:0) = 0xff, a literal. Checked with `llvm-mc-22
/// --disassemble` on gfx1200, gfx1201, gfx12-generic, gfx1250 and
/// gfx1251; gfx1100 and gfx1150 decode the same words.
fn barrier_literal(cpu: &str, b: &[u8; 16]) -> bool {
    let word = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let gen = family(cpu);
    let op = (word >> 8) & 0xff;
    let barrier = (0x4e..=0x52).contains(&op) || (op == 0x57 && gen == Some(SmemGen::Gfx12_5));
    matches!(gen, Some(SmemGen::Gfx12 | SmemGen::Gfx12_5))
        && word & 0xff80_0000 == 0xbe80_0000
        && word & 0xff == 0xff
        && barrier
}

/// The VALU encodings with an SDWA form.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SdwaKind {
    Vop1,
    Vop2,
    Vopc,
}

/// GFX8-GFX10 SDWA word (SRC0 = 0xF9) of `kind` with a selector of 7 in
/// a field LLVM prints for that kind: DST_SEL (bits 42:40; not VOPC,
/// whose bits 47:40 are SDST), SRC0_SEL (50:48), SRC1_SEL (58:56; not
/// VOP1, which LLVM rejects when it is not 0). Checked with `llvm-mc-19`
/// and `llvm-mc-14 --disassemble` on gfx803, gfx900, gfx1010 and gfx1030;
/// GFX11 and GFX12 have no SDWA.
fn sdwa_sel7(cpu: &str, b: &[u8; 16], kind: SdwaKind) -> bool {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    let word = u64::from_le_bytes(w);
    let top7 = (word >> 25) & 0x7f;
    let this = match top7 {
        0x3f => SdwaKind::Vop1,
        0x3e => SdwaKind::Vopc,
        t if t < 0x40 => SdwaKind::Vop2,
        _ => return false,
    };
    let fields: &[u32] = match kind {
        SdwaKind::Vop1 => &[40, 48],
        SdwaKind::Vop2 => &[40, 48, 56],
        SdwaKind::Vopc => &[48, 56],
    };
    this == kind
        && matches!(
            family(cpu),
            Some(SmemGen::Gfx8 | SmemGen::Gfx9 | SmemGen::Gfx10_1 | SmemGen::Gfx10_3)
        )
        && word & 0x1ff == 0xf9
        && fields.iter().any(|&f| (word >> f) & 7 == 7)
}

/// The known crash an instruction starting with `bytes` triggers on
/// `cpu` in LLVM `version`, if its bits show one.
pub fn known_crash(version: u32, cpu: &str, bytes: &[u8]) -> Option<&'static KnownCrash> {
    let mut b = [0u8; 16];
    for (d, s) in b.iter_mut().zip(bytes) {
        *d = *s;
    }
    KNOWN_CRASHES
        .iter()
        .find(|k| k.versions.contains(&version) && (k.matches)(cpu, &b))
}

/// True when `rest`, the end of an input, starts an instruction longer
/// than itself: `dis` decodes `rest` followed by zero bytes (which LLVM
/// 22 survives; the probe `conform` makes, with the same padding) into
/// more bytes than `rest` has. Only worth asking for a
/// short `rest` and a library with the [`PAST_END`] crash.
pub fn ends_in_instruction(dis: &mut Disassembler, rest: &[u8]) -> bool {
    let mut padded = rest.to_vec();
    padded.resize(rest.len() + PAST_END_PAD, 0);
    dis.disassemble(&padded)
        .is_some_and(|(n, _)| n > rest.len())
}

/// True unless `HSACO_FUZZ_KNOWN_CRASHES=run` asks for known crashes to
/// be given to LLVM.
fn skip_known_crashes() -> bool {
    static SKIP: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SKIP.get_or_init(
        || !matches!(std::env::var_os("HSACO_FUZZ_KNOWN_CRASHES"), Some(v) if v == "run"),
    )
}

/// Decodes `code` for `cpu`, instruction by instruction; calls `each`
/// with the offset and size (0: rejected) of every step. Stops before an
/// instruction of a [`KnownCrash`] unless `HSACO_FUZZ_KNOWN_CRASHES=run`.
pub fn walk(lib: &'static LlvmLib, cpu: &str, code: &[u8], mut each: impl FnMut(usize, usize)) {
    let skip = skip_known_crashes();
    let version = lib.version();
    let past_end = PAST_END.versions.contains(&version);
    let done = peer::with_disassembler(lib, cpu, |dis| {
        let mut at = 0usize;
        while let Some(rest) = code.get(at..).filter(|r| !r.is_empty()) {
            if skip && known_crash(version, cpu, rest).is_some() {
                break;
            }
            // Only an input shorter than the longest instruction can end
            // inside one.
            if skip && past_end && rest.len() < PAST_END_PAD && ends_in_instruction(dis, rest) {
                break;
            }
            let given = rest.len().min(16);
            let size = dis.disassemble(rest).map_or(0, |(n, _)| n);
            assert!(
                size <= given,
                "LLVM {} ({cpu}) claims {size} bytes of {given} at offset {at}",
                lib.version()
            );
            each(at, size);
            at += if size == 0 { 4 } else { size };
        }
    });
    if let Err(e) = done {
        panic!("no LLVM {} disassembler for {cpu}: {e}", lib.version());
    }
}

/// Runs one input (LLVM may crash the process: that is the finding).
pub fn run(data: &[u8]) {
    let Some((&sel, code)) = data.split_first() else {
        return;
    };
    if let Some((lib, cpu)) = select(sel) {
        walk(lib, cpu, code, |_, _| {});
    }
}

/// The SMEM family LLVM's decoder uses for `cpu`, for the known-crash rule
/// (the retired gfx940/gfx941 are GFX9).
fn family(cpu: &str) -> Option<SmemGen> {
    match by_name(cpu) {
        Some(t) => SmemGen::for_target(t),
        None if cpu.starts_with("gfx94") => Some(SmemGen::Gfx9),
        None => None,
    }
}

/// True when an instruction starting at some 4-byte-aligned offset of
/// `code` (a superset of where the walk starts instructions) matches a
/// [`KnownCrash`] of LLVM `version` for `cpu`: such inputs crash LLVM when
/// known crashes are run ([`PAST_END`] aside).
pub fn may_hit_known_crash(version: u32, cpu: &str, code: &[u8]) -> bool {
    (0..code.len())
        .step_by(4)
        .any(|k| known_crash(version, cpu, code.get(k..).unwrap_or(&[])).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smoke;

    #[test]
    fn processors_cover_every_generation() {
        let Some(l19) = peer::require_llvm(19) else {
            return;
        };
        let procs = peer::processors(l19);
        for cpu in [
            "gfx801", "gfx900", "gfx90a", "gfx942", "gfx1010", "gfx1030", "gfx1100", "gfx1200",
        ] {
            assert!(procs.contains(&cpu), "LLVM 19 list lacks {cpu}: {procs:?}");
        }
        assert!(
            !procs.contains(&"gfx700"),
            "GFX7 aborts LLVM's disassembler"
        );
        if let Some(l14) = peer::require_llvm(14) {
            let p14 = peer::processors(l14);
            assert!(
                p14.contains(&"gfx1030") && !p14.contains(&"gfx1100"),
                "{p14:?}"
            );
        }
    }

    #[test]
    fn walks_instruction_by_instruction() {
        let Some(l19) = peer::require_llvm(19) else {
            return;
        };
        // s_load_dword s5, s[2:3], 0x10 (8 bytes), then s_nop 0 (4), then a
        // dword LLVM rejects on gfx900 (SMEM encoding, opcode 0xff).
        let code = [
            0x41, 0x01, 0x02, 0xc0, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0xbf, 0x00, 0x00,
            0xfc, 0xc3,
        ];
        let mut steps = Vec::new();
        walk(l19, "gfx900", &code, |at, n| steps.push((at, n)));
        assert_eq!(steps, [(0, 8), (8, 4), (12, 0)]);
    }

    #[test]
    fn sdwa_rules_are_smem_diffs() {
        // `smem_diff` skips the words of all three rules in its own runs.
        for k in 0..20_000u64 {
            let mut b = [0u8; 16];
            b[..8].copy_from_slice(&smoke::bytes(k, 8));
            // Mostly SDWA words with small selectors.
            b[0] = if k % 4 == 0 { b[0] } else { 0xf9 };
            b[1] &= if k % 3 == 0 { 0xff } else { 0xfe };
            for cpu in ["gfx803", "gfx900", "gfx1030", "gfx1100"] {
                let gen = family(cpu).expect("modelled");
                let w = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
                let any = [SdwaKind::Vop1, SdwaKind::Vop2, SdwaKind::Vopc]
                    .iter()
                    .any(|&kind| sdwa_sel7(cpu, &b, kind));
                assert_eq!(
                    any,
                    hsaco_conform::smem_diff::known_llvm_crash(gen, w),
                    "{cpu} {w:#018x}"
                );
            }
        }
    }

    #[test]
    fn sdwa_rules_by_kind() {
        let rule = |cpu: &str, bytes: &[u8]| known_crash(19, cpu, bytes).map(|k| k.name);
        // v_mov_b32_sdwa (VOP1) with DST_SEL 7, then SRC0_SEL 7; SRC1_SEL 7
        // is rejected by LLVM, not a crash.
        assert_eq!(
            rule("gfx900", &[0xf9, 0x02, 0x00, 0x7e, 0x00, 0x07, 0x06, 0x00]),
            Some("vop1-sdwa-sel7")
        );
        assert_eq!(
            rule("gfx1030", &[0xf9, 0x02, 0x00, 0x7e, 0x00, 0x06, 0x07, 0x00]),
            Some("vop1-sdwa-sel7")
        );
        assert_eq!(
            rule("gfx900", &[0xf9, 0x02, 0x00, 0x7e, 0x00, 0x06, 0x06, 0x07]),
            None
        );
        // v_cmp_eq_f32_sdwa (VOPC): SRC0_SEL or SRC1_SEL 7; bits 42:40 are
        // part of SDST there.
        assert_eq!(
            rule("gfx803", &[0xf9, 0x00, 0x84, 0x7c, 0x00, 0x00, 0x07, 0x06]),
            Some("vopc-sdwa-sel7")
        );
        assert_eq!(
            rule("gfx1010", &[0xf9, 0x00, 0x04, 0x7c, 0x00, 0x00, 0x06, 0x07]),
            Some("vopc-sdwa-sel7")
        );
        assert_eq!(
            rule("gfx1010", &[0xf9, 0x00, 0x04, 0x7c, 0x00, 0x07, 0x06, 0x06]),
            None
        );
        // No SDWA on GFX11.
        assert_eq!(
            rule("gfx1100", &[0xf9, 0x02, 0x00, 0x7e, 0x00, 0x07, 0x06, 0x00]),
            None
        );
    }

    #[test]
    fn known_crash_rule_spots_the_sdwa_word() {
        let crash = [0xf9, 0x06, 0x02, 0x02, 0x02, 0x07, 0x06, 0x06];
        assert!(may_hit_known_crash(19, "gfx900", &crash));
        assert!(may_hit_known_crash(
            19,
            "gfx940",
            &[&[0, 0, 0, 0][..], &crash[..]].concat()
        ));
        assert!(!may_hit_known_crash(19, "gfx1100", &crash));
        let mut ok = crash;
        ok[5] = 0x06;
        assert!(!may_hit_known_crash(19, "gfx900", &ok));
        // MUBUF with SOFFSET 0xff: LLVM 22 only, GFX8-GFX11.
        let mubuf = [0x00, 0x00, 0x00, 0xe0, 0x00, 0x00, 0x00, 0xff];
        assert!(may_hit_known_crash(22, "gfx90a", &mubuf));
        assert!(may_hit_known_crash(22, "gfx1100", &mubuf));
        assert!(!may_hit_known_crash(19, "gfx90a", &mubuf));
        assert!(!may_hit_known_crash(22, "gfx1200", &mubuf));
    }

    #[test]
    fn known_crashes_stop_the_walk() {
        let Some(l19) = peer::require_llvm(19) else {
            return;
        };
        // s_nop 0, then the SDWA word: the walk decodes the first and stops.
        let code = [
            0x00, 0x00, 0x80, 0xbf, 0xf9, 0x06, 0x02, 0x02, 0x02, 0x07, 0x06, 0x06,
        ];
        assert!(skip_known_crashes(), "tests run with known crashes skipped");
        let mut steps = Vec::new();
        walk(l19, "gfx900", &code, |at, n| steps.push((at, n)));
        assert_eq!(steps, [(0, 4)]);
        assert_eq!(
            known_crash(19, "gfx900", &code[4..]).map(|k| k.name),
            Some("vop2-sdwa-sel7")
        );
        assert!(known_crash(19, "gfx900", &code).is_none());
    }

    #[test]
    fn random_code_in_process() {
        if peer::require_llvm(19).is_none() {
            return;
        }
        let mut ran = 0;
        for (k, mut input) in smoke::inputs(0xd15a, 400, 96).into_iter().enumerate() {
            if input.is_empty() {
                continue;
            }
            // LLVM 19 and 14 (selector bit 6 clear): this process must
            // survive, and LLVM 22 has crashes no bit rule recognises.
            input[0] = (k % 256) as u8 & !0x40;
            let Some((lib, cpu)) = select(input[0]) else {
                continue;
            };
            if may_hit_known_crash(lib.version(), cpu, &input[1..]) {
                continue;
            }
            run(&input);
            ran += 1;
        }
        assert!(ran >= 150, "{ran}");
    }
}
