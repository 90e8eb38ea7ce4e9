//! Target `smem_vs_libllvm`: the SMEM model against LLVM's disassembler,
//! in process (libLLVM-19, and libLLVM-14 where it knows the processor),
//! word by word, with inputs shaped like SMEM instructions.
//!
//! Input: byte 0 picks the processor ([`processors`], modulo; bit 7 asks
//! for LLVM 14, used when installed and the processor is one it knows);
//! byte 1 the shape of the word:
//!
//! * low nibble 0: the next eight bytes are the word, as is;
//! * otherwise a form from [`forms`] (opcode × offset form × modifiers;
//!   next two bytes), then raw SDATA, SBASE, offset register and
//!   immediate fields (bit 6 of the shape byte aligns the register
//!   fields to their tuple size, so most words are valid), and, when bit
//!   4 is set, eight more bytes XORed over the word (any extra bits).
//!
//! The oracle's view becomes what LLVM should print
//! ([`smem_diff::expect`]); an outcome of [`Outcome::Different`] — a
//! difference that no listed divergence explains — panics with the word,
//! both views and the `llvm-mc` command that shows LLVM's side. Words of
//! a known LLVM crash ([`crate::libllvm_disasm::KNOWN_CRASHES`]) are
//! skipped.
//!
//! Finds: SMEM model bugs (decode, verdict, text) and new LLVM behaviour
//! the divergence list does not know.

use std::sync::{Mutex, OnceLock};

use hsaco_conform::peers::llvm_disasm::LlvmLib;
use hsaco_conform::smem_diff::{self, LlvmView, Outcome};
use hsaco_oracle::smem::forms::{forms, Form, OffsetForm};
use hsaco_oracle::smem::{self, encode, SmemGen};
use hsaco_oracle::targets::by_name;

use crate::peer;

/// A processor the target compares on, with its SMEM family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Processor {
    /// LLVM processor name.
    pub name: &'static str,
    /// Its SMEM encoding family.
    pub gen: SmemGen,
}

/// The processors of [`peer::processors`] whose SMEM family the oracle
/// models, for `lib` (computed once per version).
pub fn processors(lib: &'static LlvmLib) -> &'static [Processor] {
    type Lists = Mutex<Vec<(u32, &'static [Processor])>>;
    static LISTS: OnceLock<Lists> = OnceLock::new();
    let mut lists = LISTS
        .get_or_init(|| Mutex::new(Vec::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some((_, l)) = lists.iter().find(|(v, _)| *v == lib.version()) {
        return l;
    }
    let list: Vec<Processor> = peer::processors(lib)
        .iter()
        .filter_map(|&name| {
            let gen = SmemGen::for_target(by_name(name)?)?;
            Some(Processor { name, gen })
        })
        .collect();
    let list: &'static [Processor] = Box::leak(list.into_boxed_slice());
    lists.push((lib.version(), list));
    list
}

/// Every form of every family, built once.
fn all_forms(gen: SmemGen) -> &'static [Form] {
    static FORMS: OnceLock<Vec<Vec<Form>>> = OnceLock::new();
    let all = FORMS.get_or_init(|| SmemGen::ALL.iter().map(|&g| forms(g)).collect());
    let k = SmemGen::ALL.iter().position(|g| *g == gen).unwrap_or(0);
    all.get(k).map_or(&[], Vec::as_slice)
}

/// Sets bits `lo..lo+width` of `w` to the low bits of `v`.
fn put(w: &mut u64, lo: u32, width: u32, v: u64) {
    let m = ((1u64 << width) - 1) << lo;
    *w = (*w & !m) | ((v << lo) & m);
}

/// Reads bytes from the input, zero when it runs out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }
}

/// The word an input describes for family `gen` (see the module docs).
fn word(gen: SmemGen, shape: u8, b: &mut Bytes<'_>) -> u64 {
    if shape & 0x0f == 0 {
        return b.u64();
    }
    let fs = all_forms(gen);
    let Some(f) = fs.get(usize::from(b.u16()) % fs.len().max(1)) else {
        return b.u64();
    };
    let c = f.op.class;
    let (mut sdata, mut sbase, reg, imm) = (b.u8() & 0x7f, b.u8() & 0x7e, b.u8() & 0x7f, b.u32());
    if shape & 0x40 != 0 {
        let align = smem::tuple_align(f.op.width);
        sdata -= sdata % align;
        if c.buffer_base() {
            sbase -= sbase % 4;
        }
    }
    // A word of the form with in-class operands gives the encoding, the
    // opcode, the modifiers and the offset-form bits; the operand fields
    // are then overwritten with the drawn values, in range or not.
    let sd = if c.has_sdata_regs() { 8 } else { 0 };
    let Ok(mut w) = encode(&f.instruction(sd, 4 * u8::from(c.has_sbase()), 7, 0x10)) else {
        return b.u64();
    };
    if c.has_sdata_regs() || c.has_sdata_imm() {
        put(&mut w, 6, 7, u64::from(sdata));
    }
    if c.has_sbase() {
        put(&mut w, 0, 6, u64::from(sbase >> 1));
    }
    let (reg, imm) = (u64::from(reg), u64::from(imm));
    let imm_bits = match gen {
        SmemGen::Gfx8 => 20,
        SmemGen::Gfx12 | SmemGen::Gfx12_5 => 24,
        _ => 21,
    };
    match (gen, f.offset) {
        (_, OffsetForm::None) => {}
        (SmemGen::Gfx8 | SmemGen::Gfx9, OffsetForm::Sgpr) => put(&mut w, 32, 7, reg),
        (SmemGen::Gfx9, OffsetForm::Soffset) => put(&mut w, 57, 7, reg),
        (_, OffsetForm::Imm) => put(&mut w, 32, imm_bits, imm),
        (_, OffsetForm::Sgpr) => {
            put(&mut w, 32, imm_bits, 0);
            put(&mut w, 57, 7, reg);
        }
        (_, OffsetForm::SgprImm | OffsetForm::Soffset) => {
            put(&mut w, 32, imm_bits, imm);
            put(&mut w, 57, 7, reg);
        }
    }
    if shape & 0x10 != 0 {
        w ^= b.u64();
    }
    w
}

/// The LLVM library an input asks for: 14 when bit 7 of `sel` is set and
/// libLLVM-14 is installed, otherwise 19. Panics when libLLVM-19 is
/// missing: the target has nothing to compare with.
fn library(sel: u8) -> &'static LlvmLib {
    if sel & 0x80 != 0 {
        if let Ok(l) = peer::llvm(14) {
            return l;
        }
    }
    peer::llvm(19).unwrap_or_else(|e| panic!("smem_vs_libllvm needs libLLVM-19: {e}"))
}

/// Runs one input; panics on an unexplained difference.
pub fn run(data: &[u8]) {
    let mut b = Bytes(data);
    let sel = b.u8();
    let shape = b.u8();
    let mut lib = library(sel);
    let mut procs = processors(lib);
    if procs.is_empty() {
        // LLVM 14 knows none of them (or cannot be asked): use 19.
        lib = library(0);
        procs = processors(lib);
    }
    let Some(&p) = procs.get(usize::from(sel & 0x7f) % procs.len().max(1)) else {
        panic!("libLLVM-{} knows no SMEM processor", lib.version());
    };
    let w = word(p.gen, shape, &mut b);
    compare(lib, p, w);
}

/// Compares the oracle and LLVM on one word; panics on an unexplained
/// difference. Words of a known LLVM crash
/// ([`crate::libllvm_disasm::KNOWN_CRASHES`], which include
/// [`smem_diff::known_llvm_crash`]'s) are not given to LLVM.
pub fn compare(lib: &'static LlvmLib, p: Processor, w: u64) {
    let bytes = w.to_le_bytes();
    let version = lib.version();
    if crate::libllvm_disasm::known_crash(version, p.name, &bytes).is_some() {
        return;
    }
    let e = smem_diff::expect(version, p.gen, w);
    let done = peer::with_disassembler(lib, p.name, |dis| {
        let got = dis.disassemble(&bytes);
        let view = match got {
            None => LlvmView::Rejected,
            Some((size, text)) => LlvmView::Decoded { size, text },
        };
        if smem_diff::compare(p.gen, &e, view) == Outcome::Different {
            let d = smem::decode(p.gen, w);
            panic!(
                "oracle and LLVM {version} differ on {} word {w:#018x}\n  oracle: {} `{}`\n  expected from LLVM: {e:?}\n  LLVM: {got:?}\n  {}",
                p.name,
                smem_diff::verdict_text(&d),
                d.instruction.map(|i| i.to_string()).unwrap_or_default(),
                peer::llvm_mc_command(version, p.name, &bytes),
            );
        }
    });
    if let Err(err) = done {
        panic!("no LLVM {version} disassembler for {}: {err}", p.name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smoke;

    #[test]
    fn shaped_words_agree_with_libllvm() {
        let Some(l19) = peer::require_llvm(19) else {
            return;
        };
        let has14 = peer::require_llvm(14).is_some();
        let procs = processors(l19);
        assert!(procs.len() >= 7, "{procs:?}");
        for (k, mut input) in smoke::inputs(0x005e_3e11, 600, 24).into_iter().enumerate() {
            if input.len() < 2 {
                continue;
            }
            // Cover every processor and every shape flag.
            input[0] = (k % 256) as u8;
            if !has14 {
                input[0] &= 0x7f;
            }
            run(&input);
        }
    }

    #[test]
    fn every_form_in_class_agrees() {
        let Some(l19) = peer::require_llvm(19) else {
            return;
        };
        for &p in processors(l19) {
            for (k, f) in all_forms(p.gen).iter().enumerate() {
                let c = f.op.class;
                let sd = if c.has_sdata_regs() {
                    4
                } else {
                    u8::from(c.has_sdata_imm())
                };
                let i = f.instruction(sd, 4 * u8::from(c.has_sbase()), 5, 0x24);
                let w = encode(&i).expect("forms encode");
                assert_eq!(smem::decode(p.gen, w).verdict, smem::Verdict::Valid);
                compare(l19, p, w);
                // A shaped input naming this form reproduces its word.
                let mut input = vec![0x01, 0x41];
                input.extend_from_slice(&(k as u16).to_le_bytes());
                input.extend_from_slice(&[sd, 4 * u8::from(c.has_sbase()), 5]);
                input.extend_from_slice(&0x24u32.to_le_bytes());
                let mut b = Bytes(&input[2..]);
                let got = word(p.gen, 0x41, &mut b);
                assert_eq!(got, w, "{} {f:?}: {got:#018x} vs {w:#018x}", p.name);
            }
        }
    }

    #[test]
    fn known_crash_words_are_not_given_to_llvm() {
        let Some(l19) = peer::require_llvm(19) else {
            return;
        };
        let p = *processors(l19)
            .iter()
            .find(|p| p.name == "gfx1030")
            .expect("gfx1030");
        // VOP1 SDWA with DST_SEL 7: crashes LLVM, so it must be skipped.
        compare(
            l19,
            p,
            u64::from_le_bytes([0xf9, 0xc0, 0x00, 0x7f, 0x21, 0xbf, 0x12, 0x00]),
        );
    }

    #[test]
    fn raw_words_use_eight_bytes() {
        let mut b = Bytes(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(word(SmemGen::Gfx9, 0x20, &mut b), 0x0807_0605_0403_0201);
        assert_eq!(b.0, &[9]);
    }
}
