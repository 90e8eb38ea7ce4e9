//! The code-level check: each kernel's machine code read as an SMEM
//! instruction stream, its SMEM words decoded (the `smem.*` decode rules)
//! and the stream run in the executor ([`super::exec`], the stream rules).
//!
//! [`crate::check::check_object`] never looks at kernel code; this check
//! is the part that does. It reads the code the way the generators write
//! it (`hsaco_gen::smem`):
//!
//! - `s_endpgm` ([`endpgm_word`]) ends a kernel's code;
//! - the waits the generators write ([`wait_word`]: `s_waitcnt lgkmcnt(N)`
//!   with every other counter at its maximum, GFX12 `s_wait_kmcnt N`)
//!   become [`Step::WaitLgkm`];
//! - a dword whose bits 31:26 hold the family's SMEM encoding starts an
//!   8-byte SMEM word, decoded by [`super::decode`];
//! - any other dword is one opaque instruction ([`Step::Other`]): it
//!   separates instructions (resource hazard) and ends an SMEM soft clause.
//!
//! So a word with another ENCODING is another instruction, never an SMEM
//! word with a bad encoding: `smem.encoding` is not reported here, only by
//! callers that hand [`super::decode`] a word as SMEM.
//!
//! Kernels are found as the object check finds them: from code object V3
//! on, the entry symbol `NAME` of each `NAME.kd` (the bytes it covers);
//! in V2, each `STT_AMDGPU_HSA_KERNEL` symbol, whose code follows its
//! 256-byte `amd_kernel_code_t` and ends with the symbol.
//!
//! Each kernel runs from a fresh [`exec::Machine`] (registers and memory
//! 0, as the generators assume), with the XNACK soft-clause rule on for
//! processors that support XNACK (the generators keep the rule on all of
//! them, whatever the code object's xnack setting).
//!
//! Scope: this reading is exact for the code the generators write (SMEM
//! words, those waits, `s_nop`, `s_endpgm`). It is not an instruction
//! decoder for compiler output: other 64-bit encodings (VOP3, FLAT, MUBUF,
//! DS, ...) and literal constants are read dword by dword, so a second
//! dword that happens to hold the SMEM encoding or a wait is taken for
//! one; other `s_waitcnt` forms are opaque and retire nothing. Run it on
//! generated objects; [`crate::check::check_object`] does not run it.
//!
//! Bounds: at most [`MAX_CODE`] bytes are read per kernel and
//! [`MAX_TOTAL_CODE`] bytes per object (kernels past the budget are
//! skipped and [`CodeCheck::incomplete`] is set); every step is fed to the
//! executor as it is read, so memory use is bounded by the budget.

use super::exec::{self, Step};
use super::{decode, Decoded, SmemGen};
use crate::kernel_code::KERNEL_CODE_SIZE;
use crate::rules::{Rule, Sink};
use crate::targets::CodeObjectVersion;
use crate::{elf, symbols};

/// Largest kernel code read per kernel, in bytes (the entry symbol's size
/// is also bounded by the file).
pub const MAX_CODE: u64 = 1 << 20;

/// Largest total of kernel code read per object, in bytes: kernels whose
/// code would pass it are skipped (entry symbols may all cover the same
/// bytes, so the per-kernel cap alone does not bound the work).
pub const MAX_TOTAL_CODE: u64 = 8 << 20;

/// `s_endpgm` of a family: SOPP opcode 1 before GFX11, 0x30 from GFX11
/// (`llvm-mc-19 -show-encoding`: gfx900 `0xbf810000`, gfx1100
/// `0xbfb00000`).
#[inline]
pub fn endpgm_word(gen: SmemGen) -> u32 {
    match gen {
        SmemGen::Gfx11 | SmemGen::Gfx12 | SmemGen::Gfx12_5 => 0xbfb0_0000,
        _ => 0xbf81_0000,
    }
}

/// The largest wait count the generators write: one below the counter's
/// maximum, which LLVM prints together with every other counter
/// (`s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)`). GFX8/GFX9 lgkmcnt has 4
/// bits, GFX10/GFX11 6 bits, GFX12 kmcnt 5 bits.
#[inline]
pub fn max_wait(gen: SmemGen) -> u8 {
    match gen {
        SmemGen::Gfx8 | SmemGen::Gfx9 => 14,
        SmemGen::Gfx10_1 | SmemGen::Gfx10_3 | SmemGen::Gfx11 => 62,
        SmemGen::Gfx12 | SmemGen::Gfx12_5 => 30,
    }
}

/// The word of `s_waitcnt lgkmcnt(n)` with the other counters at their
/// maximum (no wait on them), or GFX12 `s_wait_kmcnt n`; `n` is masked to
/// the field. Checked with `llvm-mc-19 -show-encoding`: gfx803
/// `0xbf8c007f | n << 8`, gfx900/gfx1010 `0xbf8cc07f | n << 8`, gfx1100
/// `0xbf89fc07 | n << 4`, gfx1200 `0xbfc70000 | n` (llvm-mc-22: the same
/// on gfx1250, as are `s_endpgm` and the 5-bit count).
#[inline]
pub fn wait_word(gen: SmemGen, n: u8) -> u32 {
    let n = u32::from(n);
    match gen {
        SmemGen::Gfx8 => 0xbf8c_007f | (n & 0xf) << 8,
        SmemGen::Gfx9 => 0xbf8c_c07f | (n & 0xf) << 8,
        SmemGen::Gfx10_1 | SmemGen::Gfx10_3 => 0xbf8c_c07f | (n & 0x3f) << 8,
        SmemGen::Gfx11 => 0xbf89_fc07 | (n & 0x3f) << 4,
        SmemGen::Gfx12 | SmemGen::Gfx12_5 => 0xbfc7_0000 | (n & 0xff),
    }
}

/// The wait count of `word` if it is a wait [`wait_word`] writes (count at
/// most [`max_wait`]); other `s_waitcnt` words are opaque instructions to
/// this check.
#[inline]
pub fn decode_wait(gen: SmemGen, word: u32) -> Option<u8> {
    let n = match gen {
        SmemGen::Gfx8 | SmemGen::Gfx9 | SmemGen::Gfx10_1 | SmemGen::Gfx10_3 => (word >> 8) & 0x3f,
        SmemGen::Gfx11 => (word >> 4) & 0x3f,
        SmemGen::Gfx12 | SmemGen::Gfx12_5 => word & 0xff,
    } as u8;
    (n <= max_wait(gen) && wait_word(gen, n) == word).then_some(n)
}

/// One item of a kernel's code, as this check reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeItem {
    /// `s_endpgm`: the code ends here.
    Endpgm,
    /// A wait [`decode_wait`] recognises, with its count.
    Wait(u8),
    /// An 8-byte word with the family's SMEM encoding, decoded.
    Smem(Decoded),
    /// Any other dword (also an SMEM-encoded dword without a second one).
    Other(u32),
}

/// The items of a kernel's code with their byte offsets, up to and
/// including the first `s_endpgm` (see [`items`]).
#[derive(Clone, Debug)]
pub struct Items<'a> {
    gen: SmemGen,
    code: &'a [u8],
    at: usize,
    done: bool,
}

impl Iterator for Items<'_> {
    type Item = (usize, CodeItem);

    fn next(&mut self) -> Option<(usize, CodeItem)> {
        if self.done {
            return None;
        }
        let at = self.at;
        let Some(w) = elf::le_u32(self.code, at) else {
            self.done = true;
            return None;
        };
        self.at = at.saturating_add(4);
        let gen = self.gen;
        let item = if w == endpgm_word(gen) {
            self.done = true;
            CodeItem::Endpgm
        } else if let Some(n) = decode_wait(gen, w) {
            CodeItem::Wait(n)
        } else if (w >> 26) as u8 == gen.encoding() {
            match elf::le_u32(self.code, self.at) {
                Some(hi) => {
                    self.at = self.at.saturating_add(4);
                    CodeItem::Smem(decode(gen, u64::from(w) | u64::from(hi) << 32))
                }
                None => CodeItem::Other(w),
            }
        } else {
            CodeItem::Other(w)
        };
        Some((at, item))
    }
}

/// Reads `code` (little-endian dwords; a trailing partial dword is
/// ignored) as the items of one kernel of family `gen`, stopping after the
/// first `s_endpgm`.
pub fn items(gen: SmemGen, code: &[u8]) -> Items<'_> {
    Items {
        gen,
        code,
        at: 0,
        done: false,
    }
}

/// The executor step of an item (`None` for `s_endpgm`): a decoded SMEM
/// word whose opcode is undefined is an opaque instruction.
pub fn step_of(item: &CodeItem) -> Option<Step> {
    match item {
        CodeItem::Endpgm => None,
        CodeItem::Wait(n) => Some(Step::WaitLgkm(*n)),
        CodeItem::Smem(d) => Some(match d.instruction {
            Some(i) => Step::Smem(i),
            None => Step::Other,
        }),
        CodeItem::Other(_) => Some(Step::Other),
    }
}

/// Reads one kernel's code (see [`items`]). Returns the executor steps,
/// the SMEM words, and the rules their decoding breaks (one entry per
/// invalid or non-canonical word, in order).
pub fn code_steps(gen: SmemGen, code: &[u8]) -> (Vec<Step>, Vec<u64>, Vec<&'static Rule>) {
    let mut steps = Vec::new();
    let mut words = Vec::new();
    let mut rules = Vec::new();
    for (_, item) in items(gen, code) {
        if let CodeItem::Smem(d) = &item {
            words.push(d.word);
            rules.extend(d.verdict.rule());
        }
        steps.extend(step_of(&item));
    }
    (steps, words, rules)
}

/// What the code-level check found in one code object.
#[derive(Debug, Default, Clone)]
pub struct CodeCheck {
    /// SMEM words, with their family, in kernel and program order.
    pub words: Vec<(SmemGen, u64)>,
    /// Rules broken, each once per kernel, in the order first found in
    /// it: decode rules of its words, then the executor's stream rules.
    pub rules: Vec<&'static Rule>,
    /// Some kernel ran at least one SMEM instruction in the executor.
    pub executed: bool,
    /// The executor ran with XNACK's soft-clause rule on.
    pub xnack: bool,
    /// Kernels whose code was read.
    pub kernels: usize,
    /// Some kernel's code was not read: [`MAX_TOTAL_CODE`] was used up.
    pub incomplete: bool,
}

impl CodeCheck {
    /// True when no rule was broken.
    pub fn is_clean(&self) -> bool {
        self.rules.is_empty()
    }

    /// True when rule `id` was broken.
    pub fn reports(&self, id: &str) -> bool {
        self.rules.iter().any(|r| r.id == id)
    }
}

/// Appends `r` unless `rules[from..]` holds it already.
fn push_once(rules: &mut Vec<&'static Rule>, from: usize, r: &'static Rule) {
    if !rules
        .get(from..)
        .unwrap_or(&[])
        .iter()
        .any(|x| x.id == r.id)
    {
        rules.push(r);
    }
}

/// File offset and size of each kernel's code: for code object V3 and
/// later the bytes the kernel's entry symbol (`NAME`, paired with
/// `NAME.kd`) covers; for V2 the bytes the `STT_AMDGPU_HSA_KERNEL` symbol
/// covers after its 256-byte `amd_kernel_code_t`. Like the V3+ entry
/// symbol, this does not follow the entry offset the descriptor or
/// `amd_kernel_code_t` holds: where that points is the object check's
/// rule (`symbol.entry.target`, `code.entry_offset.*`).
fn kernel_code_ranges(e: &elf::Elf<'_>, sink: &mut Sink) -> Vec<(u64, u64)> {
    let syms = symbols::read(e, sink);
    if e.cov == Some(CodeObjectVersion::V2) {
        let header = KERNEL_CODE_SIZE as u64;
        return symbols::v2_kernels(e, &syms, sink)
            .iter()
            .filter_map(|k| {
                Some((
                    k.code_offset?.checked_add(header)?,
                    k.symbol.size.checked_sub(header)?,
                ))
            })
            .collect();
    }
    symbols::kernels(e, &syms, sink)
        .iter()
        .filter_map(|k| {
            let s = k.entry?;
            Some((e.addr_to_offset(usize::from(s.shndx), s.value)?, s.size))
        })
        .collect()
}

/// The code-level check of a code object: each kernel's code (the bytes
/// its entry symbol covers, or for V2 those its symbol covers after the
/// `amd_kernel_code_t`; at most [`MAX_CODE`]) read by [`items`], its
/// SMEM words decoded and the stream run in a fresh [`exec::Machine`].
/// Objects that are not ELF, name no modelled SMEM family (GFX6, GFX7,
/// unknown processors) or have no kernel entry symbols give an empty
/// result. Never panics; the work is bounded by [`MAX_TOTAL_CODE`].
pub fn check_code(data: &[u8]) -> CodeCheck {
    let mut out = CodeCheck::default();
    let mut sink = Sink::new();
    let Some(elf) = elf::Elf::parse(data, &mut sink) else {
        return out;
    };
    let Some(target) = elf.target else {
        return out;
    };
    let Some(gen) = SmemGen::for_target(target) else {
        return out;
    };
    let mut budget = MAX_TOTAL_CODE;
    for (off, size) in kernel_code_ranges(&elf, &mut sink) {
        let len = size.min(MAX_CODE);
        let Some(code) = elf::range(data, off, len) else {
            continue;
        };
        if len > budget {
            out.incomplete = true;
            continue;
        }
        budget -= len;
        out.kernels += 1;
        let first = out.rules.len();
        let mut m = exec::Machine::new(gen);
        m.xnack = target.xnack;
        let mut smem = false;
        for (_, item) in items(gen, code) {
            if let CodeItem::Smem(d) = &item {
                smem = true;
                out.words.push((gen, d.word));
                if let Some(r) = d.verdict.rule() {
                    push_once(&mut out.rules, first, r);
                }
            }
            if let Some(s) = step_of(&item) {
                m.step(&s);
            }
        }
        if !smem {
            continue;
        }
        out.executed = true;
        out.xnack |= m.xnack;
        for v in m.violations() {
            push_once(&mut out.rules, first, v.rule);
        }
    }
    out
}

#[cfg(test)]
#[path = "code_tests.rs"]
mod tests;
