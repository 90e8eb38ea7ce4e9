use super::*;
use crate::smem::{encode, Instruction, Offset};
use proptest::prelude::*;

const GFX900: u8 = 0x2c;
const GFX803: u8 = 0x2a;
const GFX1100: u8 = 0x41;
const GFX1200: u8 = 0x48;
const GFX700: u8 = 0x22;
const S_NOP_0: u32 = 0xbf80_0000;

/// A minimal linked (ET_DYN) V5 code object for processor `mach`: one
/// 64-byte descriptor in `.rodata` and one entry symbol in `.text` per
/// entry of `kernels`, each `(offset into code, size)` of `code`.
fn object(mach: u8, code: &[u8], kernels: &[(u64, u64)]) -> Vec<u8> {
    build(mach, code, kernels, false)
}

/// [`object`], or with `v2` a code object V2 whose kernels are
/// `STT_AMDGPU_HSA_KERNEL` symbols (no descriptors) at `(offset, size)`.
fn build(mach: u8, code: &[u8], kernels: &[(u64, u64)], v2: bool) -> Vec<u8> {
    let mut strtab = vec![0u8];
    let mut names = Vec::new();
    for i in 0..kernels.len() {
        let kd = strtab.len() as u32;
        strtab.extend_from_slice(format!("k{i}.kd\0").as_bytes());
        let f = strtab.len() as u32;
        strtab.extend_from_slice(format!("k{i}\0").as_bytes());
        names.push((kd, f));
    }
    let shstrtab = b"\0.rodata\0.text\0.symtab\0.strtab\0.shstrtab\0".to_vec();
    let rodata_off = 64u64;
    let rodata_len = 64 * kernels.len() as u64;
    let text_off = (rodata_off + rodata_len).div_ceil(256) * 256;
    let mut syms = vec![0u8; 24];
    for (i, ((kd, f), (off, size))) in names.iter().zip(kernels).enumerate() {
        let mut e = Vec::new();
        if !v2 {
            e.extend_from_slice(&kd.to_le_bytes());
            e.extend_from_slice(&[0x11, 0]);
            e.extend_from_slice(&1u16.to_le_bytes());
            e.extend_from_slice(&(rodata_off + 64 * i as u64).to_le_bytes());
            e.extend_from_slice(&64u64.to_le_bytes());
        }
        e.extend_from_slice(&f.to_le_bytes());
        e.extend_from_slice(&[if v2 { 0x1a } else { 0x12 }, 0]);
        e.extend_from_slice(&2u16.to_le_bytes());
        e.extend_from_slice(&(text_off + off).to_le_bytes());
        e.extend_from_slice(&size.to_le_bytes());
        syms.extend_from_slice(&e);
    }
    let mut d = vec![0u8; text_off as usize];
    d.extend_from_slice(code);
    let place = |d: &mut Vec<u8>, bytes: &[u8]| {
        let at = d.len().div_ceil(8) * 8;
        d.resize(at, 0);
        d.extend_from_slice(bytes);
        at as u64
    };
    let sym_off = place(&mut d, &syms);
    let str_off = place(&mut d, &strtab);
    let shstr_off = place(&mut d, &shstrtab);
    let shoff = d.len().div_ceil(8) as u64 * 8;
    d.resize(shoff as usize, 0);
    // (name, type, flags, offset, size, link, entsize)
    let secs: [(u32, u32, u64, u64, u64, u32, u64); 6] = [
        (0, 0, 0, 0, 0, 0, 0),
        (1, 1, 2, rodata_off, rodata_len, 0, 0),
        (9, 1, 6, text_off, code.len() as u64, 0, 0),
        (15, 2, 0, sym_off, syms.len() as u64, 4, 24),
        (23, 3, 0, str_off, strtab.len() as u64, 0, 0),
        (31, 3, 0, shstr_off, shstrtab.len() as u64, 0, 0),
    ];
    for (name, ty, flags, off, size, link, entsize) in secs {
        d.extend_from_slice(&name.to_le_bytes());
        d.extend_from_slice(&ty.to_le_bytes());
        d.extend_from_slice(&flags.to_le_bytes());
        let addr = if flags & 2 != 0 { off } else { 0 };
        d.extend_from_slice(&addr.to_le_bytes());
        d.extend_from_slice(&off.to_le_bytes());
        d.extend_from_slice(&size.to_le_bytes());
        d.extend_from_slice(&link.to_le_bytes());
        d.extend_from_slice(&0u32.to_le_bytes());
        d.extend_from_slice(&8u64.to_le_bytes());
        d.extend_from_slice(&entsize.to_le_bytes());
    }
    let abi = if v2 { 0 } else { 3 };
    let mut h = vec![
        0x7f, b'E', b'L', b'F', 2, 1, 1, 64, abi, 0, 0, 0, 0, 0, 0, 0,
    ];
    h.extend_from_slice(&3u16.to_le_bytes());
    h.extend_from_slice(&224u16.to_le_bytes());
    h.extend_from_slice(&1u32.to_le_bytes());
    h.extend_from_slice(&0u64.to_le_bytes());
    h.extend_from_slice(&0u64.to_le_bytes());
    h.extend_from_slice(&shoff.to_le_bytes());
    h.extend_from_slice(&u32::from(mach).to_le_bytes());
    for v in [64u16, 56, 0, 64, 6, 5] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    d[..64].copy_from_slice(&h);
    d
}

/// One kernel holding all of `code`.
fn one_kernel(mach: u8, code: &[u32]) -> Vec<u8> {
    let bytes = bytes(code);
    object(mach, &bytes, &[(0, bytes.len() as u64)])
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The two dwords of an instruction's canonical word.
fn inst(gen: SmemGen, name: &str, sdata: u8, sbase: u8, offset: Offset) -> [u32; 2] {
    let op = gen.op_by_name(name).expect("opcode");
    let w = encode(&Instruction::new(gen, op, sdata, sbase, offset)).expect("encodes");
    [w as u32, (w >> 32) as u32]
}

fn ids(c: &CodeCheck) -> Vec<&'static str> {
    c.rules.iter().map(|r| r.id).collect()
}

/// `words` then a wait for 0 and `s_endpgm`.
fn stream(gen: SmemGen, words: &[[u32; 2]]) -> Vec<u32> {
    let mut v: Vec<u32> = words.iter().flatten().copied().collect();
    v.push(wait_word(gen, 0));
    v.push(endpgm_word(gen));
    v
}

#[test]
fn waits_and_endpgm_round_trip() {
    for gen in SmemGen::ALL {
        for n in 0..=max_wait(gen) {
            assert_eq!(decode_wait(gen, wait_word(gen, n)), Some(n), "{gen:?} {n}");
        }
        let over = max_wait(gen) + 1;
        assert_eq!(decode_wait(gen, wait_word(gen, over)), None, "{gen:?}");
        assert_eq!(decode_wait(gen, endpgm_word(gen)), None);
        assert_eq!(decode_wait(gen, S_NOP_0), None);
        assert_ne!((endpgm_word(gen) >> 26) as u8, gen.encoding());
    }
    assert_eq!(wait_word(SmemGen::Gfx9, 0), 0xbf8c_c07f);
    assert_eq!(wait_word(SmemGen::Gfx8, 3), 0xbf8c_037f);
    assert_eq!(wait_word(SmemGen::Gfx11, 1), 0xbf89_fc17);
    assert_eq!(wait_word(SmemGen::Gfx12, 5), 0xbfc7_0005);
    assert_eq!(endpgm_word(SmemGen::Gfx10_3), 0xbf81_0000);
    assert_eq!(endpgm_word(SmemGen::Gfx12), 0xbfb0_0000);
}

#[test]
fn items_read_words_waits_and_stop_at_endpgm() {
    let g = SmemGen::Gfx9;
    let load = inst(g, "s_load_dword", 4, 0, Offset::Imm(8));
    let mut code = vec![S_NOP_0, load[0], load[1], wait_word(g, 2), endpgm_word(g)];
    code.extend(load);
    let b = bytes(&code);
    let got: Vec<(usize, CodeItem)> = items(g, &b).collect();
    let w = u64::from(load[0]) | u64::from(load[1]) << 32;
    assert_eq!(
        got,
        vec![
            (0, CodeItem::Other(S_NOP_0)),
            (4, CodeItem::Smem(decode(g, w))),
            (12, CodeItem::Wait(2)),
            (16, CodeItem::Endpgm),
        ]
    );
    let (steps, words, rules) = code_steps(g, &b);
    assert_eq!(words, vec![w]);
    assert!(rules.is_empty());
    let i = decode(g, w).instruction.expect("valid");
    assert_eq!(steps, vec![Step::Other, Step::Smem(i), Step::WaitLgkm(2)]);
    // An SMEM-encoded last dword has no second dword: one opaque word;
    // a trailing partial dword is not read.
    let mut b = bytes(&[S_NOP_0, load[0]]);
    b.push(0xff);
    let got: Vec<CodeItem> = items(g, &b).map(|(_, i)| i).collect();
    assert_eq!(
        got,
        vec![CodeItem::Other(S_NOP_0), CodeItem::Other(load[0])]
    );
}

#[test]
fn undefined_opcode_is_an_opaque_step() {
    let g = SmemGen::Gfx9;
    let load = inst(g, "s_load_dword", 4, 0, Offset::Imm(0));
    // Opcode 0x30 is not in the GFX9 table.
    let bad = load[0] & !(0xff << 18) | 0x30 << 18;
    let (steps, words, rules) = code_steps(g, &bytes(&[bad, load[1]]));
    assert_eq!(steps, vec![Step::Other]);
    assert_eq!(words.len(), 1);
    assert_eq!(
        rules.iter().map(|r| r.id).collect::<Vec<_>>(),
        ["smem.opcode"]
    );
    let c = check_code(&one_kernel(GFX900, &stream(g, &[[bad, load[1]]])));
    assert_eq!(ids(&c), ["smem.opcode"]);
}

#[test]
fn a_clean_stream_is_clean() {
    let g = SmemGen::Gfx9;
    let code = stream(
        g,
        &[
            inst(g, "s_load_dwordx2", 4, 0, Offset::Imm(0)),
            inst(g, "s_load_dword", 6, 2, Offset::Sgpr(8)),
        ],
    );
    let c = check_code(&one_kernel(GFX900, &code));
    assert!(c.is_clean(), "{:?}", ids(&c));
    assert!(c.executed);
    assert!(c.xnack, "gfx900 supports XNACK");
    assert_eq!(c.kernels, 1);
    assert!(!c.incomplete);
    assert_eq!(c.words.len(), 2);
    assert!(c.words.iter().all(|(gen, _)| *gen == g));
    // gfx803 has no XNACK.
    let g8 = SmemGen::Gfx8;
    let code = stream(g8, &[inst(g8, "s_load_dword", 4, 0, Offset::Imm(0))]);
    let c = check_code(&one_kernel(GFX803, &code));
    assert!(c.is_clean() && c.executed && !c.xnack);
}

#[test]
fn stream_rules_are_reported_exactly() {
    let g = SmemGen::Gfx9;
    let pair = inst(g, "s_load_dwordx2", 4, 0, Offset::Imm(0));
    // A read of s[4:5] before the wait; s_nop ends the XNACK soft clause.
    let read = [pair[0], pair[1], S_NOP_0];
    let mut code = read.to_vec();
    code.extend(stream(g, &[inst(g, "s_load_dword", 6, 4, Offset::Imm(0))]));
    let c = check_code(&one_kernel(GFX900, &code));
    assert_eq!(ids(&c), ["smem.lgkm.read_before_wait"]);
    assert!(c.reports("smem.lgkm.read_before_wait") && !c.is_clean());
    // Without the s_nop the clause also writes what it reads.
    let code = stream(g, &[pair, inst(g, "s_load_dword", 6, 4, Offset::Imm(0))]);
    let c = check_code(&one_kernel(GFX900, &code));
    assert_eq!(
        ids(&c),
        ["smem.lgkm.read_before_wait", "smem.xnack.clause_overlap"]
    );
    // The same on gfx803 (no XNACK): the read only.
    let g8 = SmemGen::Gfx8;
    let code = stream(
        g8,
        &[
            inst(g8, "s_load_dwordx2", 4, 0, Offset::Imm(0)),
            inst(g8, "s_load_dword", 6, 4, Offset::Imm(0)),
        ],
    );
    let c = check_code(&one_kernel(GFX803, &code));
    assert_eq!(ids(&c), ["smem.lgkm.read_before_wait"]);
    // Two loads into one register without a wait.
    let code = stream(g, &[pair, pair]);
    let c = check_code(&one_kernel(GFX900, &code));
    assert_eq!(ids(&c), ["smem.lgkm.write_before_wait"]);
    // An unaligned immediate offset.
    let code = stream(g, &[inst(g, "s_load_dword", 4, 0, Offset::Imm(2))]);
    let c = check_code(&one_kernel(GFX900, &code));
    assert_eq!(ids(&c), ["smem.address.unaligned"]);
    // GFX8 store with an SGPR offset other than m0.
    let code = stream(g8, &[inst(g8, "s_store_dword", 4, 0, Offset::Sgpr(8))]);
    let c = check_code(&one_kernel(GFX803, &code));
    assert_eq!(ids(&c), ["smem.gfx8.store_offset_register"]);
}

#[test]
fn decode_rules_are_reported_with_the_executor_rule() {
    let g = SmemGen::Gfx9;
    let load = inst(g, "s_load_dword", 4, 0, Offset::Imm(0));
    // SDATA m0 (124): outside SReg_32_XM0_XEXEC, and executed anyway.
    let bad = load[0] & !(0x7f << 6) | 124 << 6;
    let c = check_code(&one_kernel(GFX900, &stream(g, &[[bad, load[1]]])));
    assert_eq!(
        ids(&c),
        ["smem.sdata.class", "smem.exec.invalid_instruction"]
    );
    // Bit 15 (NV) set: valid but not canonical, nothing else.
    let c = check_code(&one_kernel(
        GFX900,
        &stream(g, &[[load[0] | 1 << 15, load[1]]]),
    ));
    assert_eq!(ids(&c), ["smem.noncanonical"]);
    // GFX11: GLC on s_dcache_inv.
    let g11 = SmemGen::Gfx11;
    let inv = inst(g11, "s_dcache_inv", 0, 0, Offset::None);
    let c = check_code(&one_kernel(
        GFX1100,
        &stream(g11, &[[inv[0] | 1 << 14, inv[1]]]),
    ));
    assert_eq!(ids(&c), ["smem.cpol.unsupported"]);
    // GFX12: probe immediate above 31.
    let g12 = SmemGen::Gfx12;
    let probe = inst(g12, "s_atc_probe", 3, 0, Offset::Imm(0));
    let bad = probe[0] & !(0x7f << 6) | 40 << 6;
    let c = check_code(&one_kernel(GFX1200, &stream(g12, &[[bad, probe[1]]])));
    assert_eq!(
        ids(&c),
        ["smem.sdata.immediate", "smem.exec.invalid_instruction"]
    );
}

#[test]
fn rules_are_listed_once_per_kernel() {
    let g = SmemGen::Gfx9;
    let inv = inst(g, "s_dcache_inv", 0, 0, Offset::None);
    let bad = [inv[0] | 1 << 15, inv[1]];
    let a = bytes(&stream(g, &[bad, bad, bad]));
    let b = bytes(&stream(g, &[inst(g, "s_load_dword", 4, 0, Offset::Imm(1))]));
    let mut code = a.clone();
    code.extend_from_slice(&b);
    let kernels = [
        (0, a.len() as u64),
        (a.len() as u64, b.len() as u64),
        (0, a.len() as u64),
    ];
    let c = check_code(&object(GFX900, &code, &kernels));
    assert_eq!(
        ids(&c),
        [
            "smem.noncanonical",
            "smem.address.unaligned",
            "smem.noncanonical"
        ]
    );
    assert_eq!(c.kernels, 3);
    assert_eq!(c.words.len(), 3 + 1 + 3);
}

#[test]
fn objects_without_a_modelled_family_give_nothing() {
    assert!(check_code(&[]).words.is_empty());
    assert_eq!(check_code(b"\x7fELF").kernels, 0);
    let g = SmemGen::Gfx9;
    let code = stream(g, &[inst(g, "s_load_dword", 4, 0, Offset::Imm(2))]);
    let c = check_code(&one_kernel(GFX700, &code));
    assert!(c.is_clean() && !c.executed && c.kernels == 0);
    // A kernel without SMEM words runs nothing.
    let c = check_code(&one_kernel(GFX900, &[S_NOP_0, endpgm_word(g)]));
    assert!(c.is_clean() && !c.executed);
    assert_eq!(c.kernels, 1);
}

#[test]
fn code_object_v2_kernels_follow_their_header() {
    let g = SmemGen::Gfx9;
    // amd_kernel_code_t (entry byte offset 256 at byte 16), then the code.
    let mut header = vec![0u8; 256];
    header[16..24].copy_from_slice(&256i64.to_le_bytes());
    let code = stream(g, &[inst(g, "s_load_dword", 4, 0, Offset::Imm(1))]);
    let mut text = header.clone();
    text.extend(bytes(&code));
    let c = check_code(&build(GFX900, &text, &[(0, text.len() as u64)], true));
    assert_eq!(c.kernels, 1);
    assert_eq!(ids(&c), ["smem.address.unaligned"]);
    // The entry offset field is the object check's: the code read is the
    // same whatever it says.
    text[16..24].copy_from_slice(&(-8i64).to_le_bytes());
    let c = check_code(&build(GFX900, &text, &[(0, text.len() as u64)], true));
    assert_eq!(ids(&c), ["smem.address.unaligned"]);
    // A symbol no longer than its header has no code.
    let c = check_code(&build(GFX900, &text, &[(0, 256)], true));
    assert_eq!((c.kernels, c.executed), (1, false));
    let c = check_code(&build(GFX900, &text, &[(0, 100)], true));
    assert_eq!(c.kernels, 0);
}

#[test]
fn the_total_budget_bounds_the_work() {
    let code = vec![0u8; MAX_CODE as usize + 64];
    let n = (MAX_TOTAL_CODE / MAX_CODE) as usize;
    let kernels = vec![(0, MAX_CODE + 64); n + 2];
    let c = check_code(&object(GFX900, &code, &kernels));
    assert_eq!(c.kernels, n);
    assert!(c.incomplete);
    assert!(c.is_clean());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any bytes: no panic.
    #[test]
    fn any_bytes(data in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let c = check_code(&data);
        prop_assert!(c.rules.iter().all(|r| r.id.starts_with("smem.")));
    }

    /// Any code in a well-formed object: no panic; every finding is an
    /// `smem.*` rule other than `smem.encoding`, and a kernel with SMEM
    /// words is executed.
    #[test]
    fn any_code(
        words in proptest::collection::vec(any::<u32>(), 0..256),
        smem in proptest::collection::vec(0usize..4, 0..256),
        mach in proptest::sample::select(vec![GFX803, GFX900, 0x33, 0x36, GFX1100, GFX1200]),
        size in 0u64..1200,
    ) {
        // Bias toward SMEM words: set the family's encoding on some.
        let t = crate::targets::by_mach(mach).expect("known");
        let gen = SmemGen::for_target(t).expect("modelled");
        let words: Vec<u32> = words
            .iter()
            .zip(smem.iter().chain(std::iter::repeat(&1)))
            .map(|(&w, &k)| if k == 0 { w & 0x03ff_ffff | u32::from(gen.encoding()) << 26 } else { w })
            .collect();
        let b = bytes(&words);
        let c = check_code(&object(mach, &b, &[(0, size.min(b.len() as u64))]));
        // The same bytes as a V2 kernel (header and code): no panic.
        let v2 = check_code(&build(mach, &b, &[(0, size)], true));
        prop_assert!(v2.rules.iter().all(|r| r.id.starts_with("smem.")));
        prop_assert!(c.rules.iter().all(|r| r.id.starts_with("smem.") && r.id != "smem.encoding"));
        prop_assert_eq!(c.executed, !c.words.is_empty());
        let (steps, ws, _) = code_steps(gen, b.get(..size.min(b.len() as u64) as usize).unwrap_or(&[]));
        prop_assert_eq!(ws.len(), c.words.len());
        prop_assert!(steps.len() <= words.len());
    }
}
