//! Mutators for the `smem.*` rules: a valid case whose kernel code is an
//! SMEM stream, changed so that the oracle's code-level check
//! ([`hsaco_oracle::smem::code::check_code`]) reports one rule, while the
//! object check stays as clean as the case was.
//!
//! Preparation: a kernel whose code holds SMEM words is drawn; if the
//! case has none, a kernel gets a generated stream first
//! ([`crate::smem::arbitrary_kernel_stream`], default knobs), with its
//! `.amdhsa_next_free_sgpr` and metadata `.sgpr_count` raised as the
//! stream needs; that object is valid under both checks.
//!
//! Breaks come in two kinds:
//!
//! - **In place**, where the change keeps what the instruction reads and
//!   writes (an undefined opcode makes it an opaque instruction, which
//!   only removes reads, writes and clause members; unused bits, IMM or
//!   GLC/DLC where the instruction has no offset or cache policy): one
//!   word of the stream is edited.
//! - **In a tail** after the stream's final `s_waitcnt lgkmcnt(0)` and
//!   before `s_endpgm`, where nothing is pending, no soft clause is open
//!   and nothing reads a register afterwards: one to seven instructions
//!   (copies of stream instructions with one field changed, or built from
//!   the opcode table), then another wait for 0.
//!
//! Register values are known without running anything: the code-level
//! check starts every register at 0, so a register no instruction of the
//! kernel writes (its *fresh* registers; the generator never writes the
//! registers it reads as addresses) holds 0 throughout. Tail instructions
//! take bases, offset registers and resources from fresh registers, so
//! their addresses are the immediates. Registers past the descriptor's
//! `.amdhsa_next_free_sgpr` raise it (and `.sgpr_count`) as the generator
//! does for its streams.
//!
//! The code is written as `.long` words where it is not a valid canonical
//! assemblable instruction ([`crate::smem::write_code`]), so the mutant's
//! assembler text rebuilds it.

use super::{any_kernel, int, pick, remodel, Ctx, MutantAsm, Mutator, Out, R};
use crate::config::Config;
use crate::emit::elf::S_NOP_0;
use crate::kd::{self, DescriptorSpec};
use crate::object::CodeObject;
use crate::target::TargetChoice;
use arbitrary::Unstructured;
use hsaco_oracle as oracle;
use hsaco_oracle::rules::Rule;
use hsaco_oracle::smem::code::{self, CodeItem};
use hsaco_oracle::smem::table::Ext;
use hsaco_oracle::smem::{
    encode, tuple_align, tuple_name, Class, Decoded, Instruction, Offset, OpInfo, SmemGen, Verdict,
};
use hsaco_oracle::targets::CodeObjectVersion;

const INVALID: &Rule = &oracle::smem::exec::INVALID_INSTRUCTION;

/// The SMEM mutators. `mutate::arbitrary_mutant` tries mutators in list
/// order from a drawn start, so a case the mutators before this list skip
/// (the V2 ones, on V3+ cases) falls to the first of these that applies.
/// The first five each take one family's share: GFX12, GFX11, GFX8, GFX9
/// (through the three before it) and gfx1010-gfx1013; the rules every
/// family reaches come last.
pub(super) static MUTATORS: &[Mutator] = &[
    Mutator {
        rule: &oracle::smem::SDATA_IMMEDIATE,
        how: "GFX12, GFX12.5: a probe or prefetch immediate above 31",
        also: &[INVALID],
        asm: MutantAsm::Rebuilds,
        apply: smem_sdata_immediate,
    },
    Mutator {
        rule: &oracle::smem::CPOL_UNSUPPORTED,
        how: "GFX11: GLC or DLC set on a probe or cache operation",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: smem_cpol_unsupported,
    },
    Mutator {
        rule: &oracle::smem::exec::GFX8_STORE_OFFSET,
        how: "GFX8: tail store with an SGPR offset other than m0",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: smem_gfx8_store_offset_register,
    },
    Mutator {
        rule: &oracle::smem::exec::BUFFER_RESOURCE_HAZARD,
        how: "GFX8/GFX9: tail load into a resource's third dword, then a buffer instruction on it",
        also: &[&oracle::smem::exec::LGKM_READ_BEFORE_WAIT, &oracle::smem::exec::XNACK_CLAUSE_OVERLAP],
        asm: MutantAsm::Rebuilds,
        apply: smem_buffer_resource_hazard,
    },
    Mutator {
        rule: &oracle::smem::exec::BUFFER_STRIDE,
        how: "GFX9, gfx101x: tail s_memtime, s_atomic_sub and a load make a resource stride, then a buffer access",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: smem_buffer_stride,
    },
    Mutator {
        rule: &oracle::smem::OFFSET_BUFFER_NEGATIVE,
        how: "GFX9-GFX11: a tail copy of a buffer instruction with a negative immediate",
        also: &[INVALID],
        asm: MutantAsm::Rebuilds,
        apply: smem_offset_buffer_negative,
    },
    Mutator {
        rule: &oracle::smem::OFFSET_NULL,
        how: "GFX8/GFX9: a tail copy of an SMEM instruction with offset register 125",
        also: &[INVALID],
        asm: MutantAsm::Rebuilds,
        apply: smem_offset_null,
    },
    Mutator {
        rule: &oracle::smem::IMM_WITHOUT_OFFSET,
        how: "GFX8/GFX9: IMM set on an instruction without an offset",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: smem_imm_without_offset,
    },
    Mutator {
        rule: &oracle::smem::exec::DISCARD_DIRTY,
        how: "GFX9, gfx101x: tail store, then s_dcache_discard of its line",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: smem_discard_dirty,
    },
    Mutator {
        rule: &oracle::smem::exec::XNACK_CLAUSE_OVERLAP,
        how: "XNACK processors: tail clause of a load and a load overwriting its base",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: smem_xnack_clause_overlap,
    },
    Mutator {
        rule: &oracle::smem::exec::NEGATIVE_OFFSET,
        how: "GFX9+: a tail copy of a load, store or atomic with a negative immediate",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: smem_offset_negative,
    },
    Mutator {
        rule: &oracle::smem::OPCODE,
        how: "an SMEM word's OPCODE set to one the family lacks",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: smem_opcode,
    },
    Mutator {
        rule: &oracle::smem::SDATA_CLASS,
        how: "a tail copy of an SMEM instruction with SDATA m0/exec/null or a misaligned tuple",
        also: &[INVALID],
        asm: MutantAsm::Rebuilds,
        apply: smem_sdata_class,
    },
    Mutator {
        rule: &oracle::smem::SBASE_CLASS,
        how: "a tail copy of an SMEM instruction with SBASE m0 or a misaligned quad",
        also: &[INVALID],
        asm: MutantAsm::Rebuilds,
        apply: smem_sbase_class,
    },
    Mutator {
        rule: &oracle::smem::NONCANONICAL,
        how: "a bit the SMEM instruction does not use set",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: smem_noncanonical,
    },
    Mutator {
        rule: &oracle::smem::exec::LGKM_READ_BEFORE_WAIT,
        how: "tail: a load, s_nop, and a probe based on the loaded pair without a wait",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: smem_lgkm_read_before_wait,
    },
    Mutator {
        rule: &oracle::smem::exec::LGKM_WRITE_BEFORE_WAIT,
        how: "tail: two loads into one register without a wait",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: smem_lgkm_write_before_wait,
    },
    Mutator {
        rule: &oracle::smem::exec::ADDRESS_UNALIGNED,
        how: "a tail copy of a dword access with an immediate offset not a multiple of 4",
        also: &[],
        asm: MutantAsm::Rebuilds,
        apply: smem_address_unaligned,
    },
    Mutator {
        rule: &oracle::smem::exec::INVALID_INSTRUCTION,
        how: "a tail copy of an SMEM instruction with SDATA or SBASE outside its class",
        also: &[&oracle::smem::SDATA_CLASS, &oracle::smem::SBASE_CLASS],
        asm: MutantAsm::Rebuilds,
        apply: smem_exec_invalid_instruction,
    },
];

/// SMEM rules no mutation of a generated object breaks, with the reason.
pub(super) static UNMUTABLE: &[(&Rule, &str)] = &[
    (
        &oracle::smem::ENCODING,
        "no kernel code can break it: the code-level check (hsaco_oracle::smem::code) takes a kernel \
         word for SMEM by its ENCODING field (bits 31:26), so a word with another encoding is another, \
         opaque instruction, never an SMEM word with a bad encoding; only callers that hand the decoder \
         a word as SMEM reach the rule (`hsaco-conform smem decode`, the smem_roundtrip fuzz target)",
    ),
    (
        &oracle::smem::exec::SCALE_OFFSET_BYTE_LOAD,
        "no kernel code can break it: the rule needs a nonzero SGPR offset, and in the code-level \
         check every register starts at 0 and GFX12.5 has no SMEM instruction that makes another \
         value (loads read never-written memory, which is 0; no stores, atomics or time counters); \
         only an executor given initial registers reaches it (the replay's SMEM probes, \
         hsaco_oracle::smem::exec tests)",
    ),
];

// ---------------------------------------------------------------------------
// Preparation.

/// One kernel's code, ready to be broken.
struct Prep {
    co: CodeObject,
    /// The kernel.
    k: usize,
    gen: SmemGen,
    /// SMEM words of the code: word index and decoding.
    smem: Vec<(usize, Decoded)>,
    /// Word index of the first `s_endpgm`.
    end: usize,
    /// The word before it is a wait for 0.
    waited: bool,
    /// Slots no instruction of the code writes (0 in the code-level check).
    fresh: u128,
    /// Plain SGPRs the tail may name: `s0..s{cap-1}`.
    cap: u8,
    /// Slots the tail already named.
    taken: u128,
    /// One past the highest SGPR the tail names.
    top: u16,
}

/// The items of kernel code words, with word indices.
fn items(gen: SmemGen, words: &[u32]) -> Vec<(usize, CodeItem)> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    code::items(gen, &bytes)
        .map(|(at, i)| (at / 4, i))
        .collect()
}

/// Bit mask of `count` slots from `first`, clipped to 128.
fn mask(first: u8, count: u8) -> u128 {
    (u16::from(first)..u16::from(first) + u16::from(count))
        .filter(|&r| r < 128)
        .fold(0, |m, r| m | 1u128 << r)
}

/// The slots an instruction's SDATA registers name (written or read).
fn sdata_mask(i: &Instruction) -> u128 {
    let c = i.op.class;
    if !c.has_sdata_regs() {
        return 0;
    }
    let w = if c == Class::Time {
        2
    } else {
        i.op.width.max(1)
    };
    mask(i.sdata, w)
}

/// The slots an instruction reads as base or offset register.
fn address_mask(i: &Instruction) -> u128 {
    let c = i.op.class;
    let mut m = 0;
    if c.has_sbase() {
        m |= mask(i.sbase, if c.buffer_base() { 4 } else { 2 });
    }
    if let Offset::Sgpr(r) | Offset::Soffset(r) | Offset::SgprImm { sgpr: r, .. } = i.offset {
        m |= mask(r, 1);
    }
    m
}

fn has_smem(gen: SmemGen, words: &[u32]) -> bool {
    items(gen, words)
        .iter()
        .any(|(_, i)| matches!(i, CodeItem::Smem(_)))
}

/// Draws the kernel to break (one with SMEM words, else one given a
/// generated stream); `None` on processors without an SMEM family.
fn prepare(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> arbitrary::Result<Option<Prep>> {
    let Some(gen) = SmemGen::for_target(c.t) else {
        return Ok(None);
    };
    if c.co.kernels.is_empty() {
        return Ok(None);
    }
    let with: Vec<usize> = (0..c.co.kernels.len())
        .filter(|&i| has_smem(gen, &c.co.kernels[i].code))
        .collect();
    let mut co = c.co.clone();
    let k = if with.is_empty() {
        let k = any_kernel(&co, u)?;
        if !give_stream(&mut co, k, u)? {
            return Ok(None);
        }
        k
    } else {
        pick(u, &with)?
    };
    Ok(Prep::new(co, k, gen))
}

/// Gives kernel `k` a generated SMEM stream (default knobs, at least one
/// instruction), raising its SGPR count as the generator does.
fn give_stream(co: &mut CodeObject, k: usize, u: &mut Unstructured<'_>) -> arbitrary::Result<bool> {
    let tc = co.target;
    let cfg = Config {
        smem_streams: true,
        smem_min_len: 1,
        ..Config::default()
    };
    let kern = &mut co.kernels[k];
    let mut d = kern.descriptor.clone();
    let Some(s) = crate::smem::arbitrary_kernel_stream(u, &cfg, &tc, &mut d)? else {
        return Ok(false);
    };
    kern.code = s.kernel_code();
    kern.metadata.sgpr_count = metadata_sgprs(&tc, &d);
    kern.descriptor = d;
    Ok(true)
}

/// The metadata SGPR count of a kernel with descriptor `d`: `.sgpr_count`
/// as LLVM writes it, or in V2 `NumSGPRs` (LLVM 14's fixed 96 on
/// processors with the SGPR init bug).
fn metadata_sgprs(tc: &TargetChoice, d: &DescriptorSpec) -> u32 {
    if tc.cov == CodeObjectVersion::V2 {
        crate::v2::sgpr_count(tc, d).into()
    } else {
        d.sgpr_count(tc).into()
    }
}

impl Prep {
    fn new(co: CodeObject, k: usize, gen: SmemGen) -> Option<Prep> {
        let kern = co.kernels.get(k)?;
        let its = items(gen, &kern.code);
        let (end, _) = its
            .iter()
            .find(|(_, i)| matches!(i, CodeItem::Endpgm))
            .copied()?;
        let waited = its
            .iter()
            .rev()
            .nth(1)
            .is_some_and(|(_, i)| *i == CodeItem::Wait(0));
        let smem: Vec<(usize, Decoded)> = its
            .iter()
            .filter_map(|(at, i)| match i {
                CodeItem::Smem(d) => Some((*at, *d)),
                _ => None,
            })
            .collect();
        let written = smem
            .iter()
            .filter_map(|(_, d)| d.instruction)
            .fold(0, |m, i| m | sdata_mask(&i));
        let tc = co.target;
        let t = tc.target();
        let plain: u16 = if gen.is_rdna() { 106 } else { 102 };
        let cap = kd::max_next_free_sgpr(t, kern.descriptor.extra_sgprs(&tc)).min(plain) as u8;
        Some(Prep {
            co,
            k,
            gen,
            smem,
            end,
            waited,
            fresh: !written,
            cap,
            taken: 0,
            top: 0,
        })
    }

    fn code(&mut self) -> &mut Vec<u32> {
        &mut self.co.kernels[self.k].code
    }

    /// The 64-bit word at word index `at`.
    fn word(&self, at: usize) -> u64 {
        let c = &self.co.kernels[self.k].code;
        let lo = c.get(at).copied().unwrap_or(0);
        let hi = c.get(at + 1).copied().unwrap_or(0);
        u64::from(lo) | u64::from(hi) << 32
    }

    fn set_word(&mut self, at: usize, w: u64) {
        let c = self.code();
        if let Some(s) = c.get_mut(at..at + 2) {
            s.copy_from_slice(&[w as u32, (w >> 32) as u32]);
        }
    }

    /// Valid instructions of the stream with their word index, whose base
    /// and offset registers hold 0 (fresh), satisfying `pred`.
    fn templates(&self, pred: impl Fn(&Instruction) -> bool) -> Vec<(usize, Instruction)> {
        self.smem
            .iter()
            .filter(|(_, d)| d.verdict == Verdict::Valid)
            .filter_map(|(at, d)| d.instruction.map(|i| (*at, i)))
            .filter(|(_, i)| address_mask(i) & !self.fresh == 0 && pred(i))
            .collect()
    }

    /// Word indices of valid words whose instruction satisfies `pred`.
    fn words_where(&self, pred: impl Fn(&Instruction) -> bool) -> Vec<usize> {
        self.smem
            .iter()
            .filter(|(_, d)| d.verdict == Verdict::Valid)
            .filter(|(_, d)| d.instruction.is_some_and(|i| pred(&i)))
            .map(|(at, _)| *at)
            .collect()
    }

    /// A tuple of `width` plain SGPRs aligned to `align`, not named by the
    /// tail yet; fresh (holding 0) when `zero`. Prefers registers below
    /// the descriptor's `.amdhsa_next_free_sgpr`.
    fn alloc(
        &mut self,
        u: &mut Unstructured<'_>,
        width: u8,
        align: u8,
        zero: bool,
    ) -> arbitrary::Result<Option<u8>> {
        let pool = if zero { self.fresh } else { u128::MAX } & !self.taken;
        let width = width.max(1);
        let cands: Vec<u8> = (0..self.cap)
            .step_by(usize::from(align.max(1)))
            .filter(|&v| u16::from(v) + u16::from(width) <= u16::from(self.cap))
            .filter(|&v| mask(v, width) & !pool == 0)
            .collect();
        let nfs = self.co.kernels[self.k].descriptor.next_free_sgpr;
        let below: Vec<u8> = cands
            .iter()
            .copied()
            .filter(|&v| u16::from(v) + u16::from(width) <= nfs)
            .collect();
        let from = if below.is_empty() { &cands } else { &below };
        if from.is_empty() {
            return Ok(None);
        }
        let v = pick(u, from)?;
        self.taken |= mask(v, width);
        self.top = self.top.max(u16::from(v) + u16::from(width));
        Ok(Some(v))
    }

    /// A tuple for SDATA of `op` (any values).
    fn alloc_sdata(
        &mut self,
        u: &mut Unstructured<'_>,
        op: &OpInfo,
    ) -> arbitrary::Result<Option<u8>> {
        if !op.class.has_sdata_regs() {
            return Ok(Some(0));
        }
        let w = if op.class == Class::Time {
            2
        } else {
            op.width.max(1)
        };
        self.alloc(u, w, tuple_align(w), false)
    }

    /// A base holding 0 for `op` (a pair, or a quad for buffer forms).
    fn alloc_base(
        &mut self,
        u: &mut Unstructured<'_>,
        op: &OpInfo,
    ) -> arbitrary::Result<Option<u8>> {
        if !op.class.has_sbase() {
            return Ok(Some(0));
        }
        let w = if op.class.buffer_base() { 4 } else { 2 };
        self.alloc(u, w, w, true)
    }

    /// Inserts `words` before `s_endpgm`, after a wait for 0 (added when
    /// the stream does not end with one) and followed by one.
    fn tail(&mut self, words: &[u32]) {
        let w0 = code::wait_word(self.gen, 0);
        let mut v = Vec::with_capacity(words.len() + 2);
        if !self.waited {
            v.push(w0);
        }
        v.extend_from_slice(words);
        v.push(w0);
        let end = self.end;
        self.code().splice(end..end, v);
    }

    /// The mutated object, with the SGPR count raised to cover the tail.
    fn finish(mut self) -> Option<Out> {
        let tc = self.co.target;
        let kern = &mut self.co.kernels[self.k];
        if self.top > kern.descriptor.next_free_sgpr {
            kern.descriptor.next_free_sgpr = self.top;
            kern.metadata.sgpr_count = metadata_sgprs(&tc, &kern.descriptor);
        }
        Some(remodel(self.co))
    }
}

// ---------------------------------------------------------------------------
// Words.

/// `w` with `width` bits at `lo` replaced by `v`.
fn set_field(w: u64, lo: u32, width: u32, v: u64) -> u64 {
    let m = ((1u64 << width) - 1) << lo;
    w & !m | (v << lo) & m
}

fn push(v: &mut Vec<u32>, w: u64) {
    v.push(w as u32);
    v.push((w >> 32) as u32);
}

/// Opcodes of `gen` satisfying `pred`.
fn ops(gen: SmemGen, pred: impl Fn(&'static OpInfo) -> bool) -> Vec<&'static OpInfo> {
    gen.table().iter().filter(|&o| pred(o)).collect()
}

/// A drawn opcode of `gen` satisfying `pred`.
fn op_where(
    gen: SmemGen,
    u: &mut Unstructured<'_>,
    pred: impl Fn(&'static OpInfo) -> bool,
) -> arbitrary::Result<Option<&'static OpInfo>> {
    let v = ops(gen, pred);
    if v.is_empty() {
        return Ok(None);
    }
    Ok(Some(pick(u, &v)?))
}

/// A whole-dword load of at least `min` dwords.
fn is_load(o: &OpInfo, min: u8) -> bool {
    o.class == Class::Load && o.ext == Ext::Dwords && o.width >= min
}

/// The simplest offset of `op`: none, or immediate 0 (GFX12 prefetches:
/// `null` plus 0).
fn zero_offset(gen: SmemGen, op: &OpInfo) -> Offset {
    if !op.class.has_offset() {
        Offset::None
    } else if op.class.prefetch() {
        Offset::SgprImm {
            sgpr: gen.null(),
            imm: 0,
        }
    } else {
        Offset::Imm(0)
    }
}

/// A valid instruction of `op` on fresh registers with offset 0 (GLC,
/// DLC, th and scope clear, SDATA immediate 0; on GFX12.5 `nv` and
/// `scale_offset` drawn where the opcode takes them), or `None` when
/// registers run out.
fn build(
    p: &mut Prep,
    u: &mut Unstructured<'_>,
    op: &'static OpInfo,
) -> arbitrary::Result<Option<Instruction>> {
    let Some(sdata) = p.alloc_sdata(u, op)? else {
        return Ok(None);
    };
    let Some(sbase) = p.alloc_base(u, op)? else {
        return Ok(None);
    };
    let gen = p.gen;
    let c = op.class;
    let i = Instruction::new(gen, op, sdata, sbase, zero_offset(gen, op));
    // Only families with the modifiers draw them, so that the draws (and
    // mutants) of the others stay what they were.
    let nv = gen.has_nv(c) && u.arbitrary::<bool>()?;
    let scale_offset = gen.has_scale_offset(c) && u.arbitrary::<bool>()?;
    Ok(Some(Instruction {
        nv,
        scale_offset,
        ..i
    }))
}

/// A stream instruction satisfying `pred` (as a tail copy), or else one
/// built from an opcode satisfying `pred`.
fn template(
    p: &mut Prep,
    u: &mut Unstructured<'_>,
    pred: impl Fn(&Instruction) -> bool,
) -> arbitrary::Result<Option<Instruction>> {
    let ts: Vec<Instruction> = p.templates(&pred).into_iter().map(|(_, i)| i).collect();
    if !ts.is_empty() && u.arbitrary::<bool>()? {
        let i = pick(u, &ts)?;
        // Its address registers hold 0; its SDATA stays off the tail's.
        p.taken |= address_mask(&i) | sdata_mask(&i);
        return Ok(Some(i));
    }
    let gen = p.gen;
    let cands = ops(gen, |o| {
        pred(&Instruction::new(gen, o, 0, 0, zero_offset(gen, o)))
    });
    if cands.is_empty() {
        return Ok(ts.first().copied());
    }
    let op = pick(u, &cands)?;
    build(p, u, op)
}

// ---------------------------------------------------------------------------
// Decode rules.

/// The opcode field set to one `gen` does not define, in a stream word
/// (not a write-back, whose removal could expose a later discard).
fn smem_opcode(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some(mut p) = prepare(c, u)? else {
        return Ok(None);
    };
    let at = p.words_where(|i| !matches!(i.op.mnemonic, "s_dcache_wb" | "s_dcache_wb_vol"));
    if at.is_empty() {
        return Ok(None);
    }
    let at = pick(u, &at)?;
    let gen = p.gen;
    let (lo, width) = gen.opcode_field();
    let undefined: Vec<u64> = (0..1u64 << width)
        .filter(|&o| gen.op(o as u8).is_none())
        .collect();
    let o = pick(u, &undefined)?;
    let w = set_field(p.word(at), lo, width, o);
    p.set_word(at, w);
    Ok(p.finish())
}

/// Bits no instruction of class `c` uses on `gen` (the decoder ignores
/// them): GFX8 13-15, GFX9 13 and 15 (NV), GFX10 13, 15 and 17 (no IMM),
/// GFX11 15-17, GFX12 and GFX12.5 19, 20 and 25; above the 21-bit (GFX12
/// 24-bit) immediate where there is an offset, and all of 32-63 where
/// there is none; GFX12 th/scope on everything but loads. GFX12.5 uses
/// bit 20 (NV) on loads and bit 56 (SCALE_OFFSET) on non-buffer loads.
fn unused_bits(gen: SmemGen, c: Class) -> Vec<u32> {
    let mut v: Vec<u32> = match gen {
        SmemGen::Gfx8 => vec![13, 14, 15],
        SmemGen::Gfx9 => vec![13, 15],
        SmemGen::Gfx10_1 | SmemGen::Gfx10_3 => vec![13, 15, 17],
        SmemGen::Gfx11 => vec![15, 16, 17],
        SmemGen::Gfx12 | SmemGen::Gfx12_5 => vec![19, 20, 25],
    };
    if !c.has_offset() {
        v.extend(32..64);
    } else if gen.is_gfx12() {
        v.push(56);
    } else if gen.is_rdna() {
        v.extend(53..57);
    }
    if gen.is_gfx12() && !matches!(c, Class::Load | Class::BufferLoad) {
        v.extend(21..25);
    }
    let used = [
        gen.nv_bit().filter(|_| gen.has_nv(c)),
        gen.scale_offset_bit().filter(|_| gen.has_scale_offset(c)),
    ];
    v.retain(|b| !used.contains(&Some(*b)));
    v
}

/// An unused bit set in a stream word (the instruction is unchanged).
fn smem_noncanonical(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some(mut p) = prepare(c, u)? else {
        return Ok(None);
    };
    let at = p.words_where(|_| true);
    if at.is_empty() {
        return Ok(None);
    }
    let at = pick(u, &at)?;
    let w = p.word(at);
    let Some(i) = hsaco_oracle::smem::decode(p.gen, w).instruction else {
        return Ok(None);
    };
    let b = pick(u, &unused_bits(p.gen, i.op.class))?;
    p.set_word(at, w | 1 << b);
    Ok(p.finish())
}

/// Sets `bits` in a stream word whose instruction satisfies `pred`, or
/// else in a tail instruction of an opcode satisfying it.
fn set_bits_on(
    c: &Ctx<'_>,
    u: &mut Unstructured<'_>,
    gens: &[SmemGen],
    pred: impl Fn(&Instruction) -> bool,
    bits: &[u64],
) -> R {
    let Some(gen) = SmemGen::for_target(c.t) else {
        return Ok(None);
    };
    if !gens.contains(&gen) {
        return Ok(None);
    }
    let Some(mut p) = prepare(c, u)? else {
        return Ok(None);
    };
    let bits = pick(u, bits)?;
    let at = p.words_where(&pred);
    if !at.is_empty() && u.arbitrary::<bool>()? {
        let at = pick(u, &at)?;
        let w = p.word(at);
        p.set_word(at, w | bits);
        return Ok(p.finish());
    }
    let cands = ops(gen, |o| pred(&Instruction::new(gen, o, 0, 0, Offset::None)));
    if cands.is_empty() {
        return Ok(None);
    }
    let op = pick(u, &cands)?;
    let Some(i) = build(&mut p, u, op)? else {
        return Ok(None);
    };
    let Ok(w) = encode(&i) else {
        return Ok(None);
    };
    let mut t = Vec::new();
    push(&mut t, w | bits);
    p.tail(&t);
    Ok(p.finish())
}

fn smem_imm_without_offset(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    set_bits_on(
        c,
        u,
        &[SmemGen::Gfx8, SmemGen::Gfx9],
        |i| !i.op.class.has_offset(),
        &[1 << 17],
    )
}

fn smem_cpol_unsupported(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    set_bits_on(
        c,
        u,
        &[SmemGen::Gfx11],
        |i| !i.op.class.has_glc(),
        &[1 << 13, 1 << 14, 3 << 13],
    )
}

/// A probe or prefetch immediate of 32-127 (GFX12), in a stream word or
/// a tail probe.
fn smem_sdata_immediate(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if !SmemGen::for_target(c.t).is_some_and(SmemGen::is_gfx12) {
        return Ok(None);
    }
    let Some(mut p) = prepare(c, u)? else {
        return Ok(None);
    };
    let v = int(u, 32u64, 127)?;
    let at = p.words_where(|i| i.op.class.has_sdata_imm());
    if !at.is_empty() && u.arbitrary::<bool>()? {
        let at = pick(u, &at)?;
        let w = set_field(p.word(at), 6, 7, v);
        p.set_word(at, w);
        return Ok(p.finish());
    }
    let Some(i) = template(&mut p, u, |i| {
        matches!(i.op.class, Class::Probe | Class::ProbeBuffer)
    })?
    else {
        return Ok(None);
    };
    let Ok(w) = encode(&i) else {
        return Ok(None);
    };
    let mut t = Vec::new();
    push(&mut t, set_field(w, 6, 7, v));
    p.tail(&t);
    Ok(p.finish())
}

/// An SDATA value outside the class of `i`'s operand: `m0`, `exec_lo`,
/// `exec_hi` (GFX8/GFX9 also slot 125) for one dword, a misaligned tuple
/// for more (not GFX10's null, 125, which names a tuple of any width).
fn bad_sdata(u: &mut Unstructured<'_>, i: &Instruction) -> arbitrary::Result<u64> {
    let gen = i.gen;
    let w = if i.op.class == Class::Time {
        2
    } else {
        i.op.width.max(1)
    };
    if w == 1 {
        let mut v = vec![gen.m0(), 126, 127];
        if !gen.is_rdna() {
            v.push(125);
        }
        return Ok(u64::from(pick(u, &v)?));
    }
    let a = tuple_align(w);
    let v: Vec<u8> = (0..128u8)
        .filter(|&v| v % a != 0 && tuple_name(gen, v, w, false).is_none())
        .collect();
    Ok(u64::from(pick(u, &v)?))
}

/// A tail copy of an instruction with SDATA registers (not a discard),
/// SDATA outside its class.
fn sdata_break(p: &mut Prep, u: &mut Unstructured<'_>) -> arbitrary::Result<Option<()>> {
    let Some(i) = template(p, u, |i| i.op.class.has_sdata_regs())? else {
        return Ok(None);
    };
    let Ok(w) = encode(&i) else {
        return Ok(None);
    };
    let v = bad_sdata(u, &i)?;
    let mut t = Vec::new();
    push(&mut t, set_field(w, 6, 7, v));
    p.tail(&t);
    Ok(Some(()))
}

/// A tail copy of an instruction with a base (not a discard, whose line
/// could hold a store), SBASE slot 124 (field 62: `m0` on GFX8-GFX10,
/// `null` after, which is an address but no buffer resource) or a
/// misaligned quad of fresh registers. Every GFX11+ address pair is valid,
/// so there only buffer forms break.
fn sbase_break(p: &mut Prep, u: &mut Unstructured<'_>) -> arbitrary::Result<Option<()>> {
    let Some(i) = template(p, u, |i| {
        let c = i.op.class;
        c.has_sbase()
            && c != Class::Discard
            && (c.buffer_base() || tuple_name(i.gen, 124, 2, true).is_none())
    })?
    else {
        return Ok(None);
    };
    let Ok(w) = encode(&i) else {
        return Ok(None);
    };
    let mut bases = vec![124u8];
    if i.op.class.buffer_base() {
        let free = p.fresh & !p.taken;
        bases.extend(
            (2..p.cap.saturating_sub(4))
                .step_by(4)
                .filter(|&v| mask(v, 4) & !free == 0),
        );
    }
    let b = pick(u, &bases)?;
    if b < 124 {
        p.taken |= mask(b, 4);
        p.top = p.top.max(u16::from(b) + 4);
    }
    let mut t = Vec::new();
    push(&mut t, set_field(w, 0, 6, u64::from(b >> 1)));
    p.tail(&t);
    Ok(Some(()))
}

fn with_prep(
    c: &Ctx<'_>,
    u: &mut Unstructured<'_>,
    f: impl FnOnce(&mut Prep, &mut Unstructured<'_>) -> arbitrary::Result<Option<()>>,
) -> R {
    let Some(mut p) = prepare(c, u)? else {
        return Ok(None);
    };
    if f(&mut p, u)?.is_none() {
        return Ok(None);
    }
    Ok(p.finish())
}

fn smem_sdata_class(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    with_prep(c, u, sdata_break)
}

fn smem_sbase_class(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    with_prep(c, u, sbase_break)
}

fn smem_exec_invalid_instruction(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if u.arbitrary::<bool>()? {
        with_prep(c, u, sdata_break)
    } else {
        with_prep(c, u, sbase_break)
    }
}

/// Offset register 125 (GFX8/GFX9) in a tail copy of an instruction with a
/// base and an offset (not a discard, not a GFX8 store, whose offset must
/// be m0), in any SGPR offset form the family has.
fn smem_offset_null(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some(gen) = SmemGen::for_target(c.t) else {
        return Ok(None);
    };
    if gen.is_rdna() {
        return Ok(None);
    }
    with_prep(c, u, |p, u| {
        let Some(i) = template(p, u, |i| {
            let cl = i.op.class;
            cl.has_sbase()
                && cl != Class::Discard
                && !(gen == SmemGen::Gfx8 && matches!(cl, Class::Store | Class::BufferStore))
        })?
        else {
            return Ok(None);
        };
        let imm = match i.offset {
            Offset::Imm(v) | Offset::SgprImm { imm: v, .. } => v.max(0),
            _ => 0,
        };
        let forms = if gen == SmemGen::Gfx9 {
            vec![
                Offset::Sgpr(0),
                Offset::SgprImm { sgpr: 0, imm },
                Offset::Soffset(0),
            ]
        } else {
            vec![Offset::Sgpr(0)]
        };
        let offset = pick(u, &forms)?;
        let Ok(w) = encode(&Instruction { offset, ..i }) else {
            return Ok(None);
        };
        let w = match offset {
            Offset::Sgpr(_) => set_field(w, 32, 7, 125),
            _ => set_field(w, 57, 7, 125),
        };
        let mut t = Vec::new();
        push(&mut t, w);
        p.tail(&t);
        Ok(Some(()))
    })
}

/// A negative immediate (21-bit field, sign set) in a tail copy of a
/// buffer instruction (GFX9-GFX11), as the immediate or SGPR-plus-
/// immediate form.
fn smem_offset_buffer_negative(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some(gen) = SmemGen::for_target(c.t) else {
        return Ok(None);
    };
    if gen == SmemGen::Gfx8 || gen.is_gfx12() {
        return Ok(None);
    }
    with_prep(c, u, |p, u| {
        let Some(i) = template(p, u, |i| i.op.class.buffer_base())? else {
            return Ok(None);
        };
        let reg = match i.offset {
            Offset::Sgpr(r) | Offset::Soffset(r) | Offset::SgprImm { sgpr: r, .. }
                if r != gen.null() =>
            {
                Some(r)
            }
            _ => p.alloc(u, 1, 1, true)?,
        };
        let offset = match reg {
            Some(sgpr) if u.arbitrary::<bool>()? => Offset::SgprImm { sgpr, imm: 4 },
            _ => Offset::Imm(4),
        };
        let Ok(w) = encode(&Instruction { offset, ..i }) else {
            return Ok(None);
        };
        let neg = -4 * int(u, 1i64, 1 << 18)?;
        let mut t = Vec::new();
        push(&mut t, set_field(w, 32, 21, neg as u64));
        p.tail(&t);
        Ok(Some(()))
    })
}

// ---------------------------------------------------------------------------
// Stream rules.

/// Encodes `is` into tail words, with `S_NOP_0` where `None`.
fn words_of(is: &[Option<Instruction>]) -> Option<Vec<u32>> {
    let mut t = Vec::new();
    for i in is {
        match i {
            Some(i) => push(&mut t, encode(i).ok()?),
            None => t.push(S_NOP_0),
        }
    }
    Some(t)
}

/// Appends the tail `is` (see [`words_of`]).
fn tail_of(p: &mut Prep, is: &[Option<Instruction>]) -> Option<()> {
    let t = words_of(is)?;
    p.tail(&t);
    Some(())
}

/// A load of two or more dwords, `s_nop 0` (ending the soft clause) and
/// `s_atc_probe` based on the first two loaded registers: the probe reads
/// them before any wait.
fn smem_lgkm_read_before_wait(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    with_prep(c, u, |p, u| {
        let gen = p.gen;
        let (Some(load), Some(probe)) = (
            op_where(gen, u, |o| is_load(o, 2))?,
            gen.op_by_name("s_atc_probe"),
        ) else {
            return Ok(None);
        };
        let Some(w) = build(p, u, load)? else {
            return Ok(None);
        };
        let r = Instruction::new(gen, probe, 0, w.sdata, zero_offset(gen, probe));
        Ok(tail_of(p, &[Some(w), None, Some(r)]))
    })
}

/// Two loads from one fresh base, the second writing registers the first
/// still loads (same first register, drawn widths).
fn smem_lgkm_write_before_wait(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    with_prep(c, u, |p, u| {
        let gen = p.gen;
        let (Some(a), Some(b)) = (
            op_where(gen, u, |o| is_load(o, 1))?,
            op_where(gen, u, |o| is_load(o, 1))?,
        ) else {
            return Ok(None);
        };
        let w = a.width.max(b.width);
        let align = tuple_align(a.width).max(tuple_align(b.width));
        let (Some(d), Some(base)) = (p.alloc(u, w, align, false)?, p.alloc(u, 2, 2, true)?) else {
            return Ok(None);
        };
        let i = |op| Instruction::new(gen, op, d, base, Offset::Imm(0));
        Ok(tail_of(p, &[Some(i(a)), Some(i(b))]))
    })
}

/// GFX8: a store whose offset is a fresh SGPR (holding 0) rather than m0.
fn smem_gfx8_store_offset_register(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if SmemGen::for_target(c.t) != Some(SmemGen::Gfx8) {
        return Ok(None);
    }
    with_prep(c, u, |p, u| {
        let Some(op) = op_where(p.gen, u, |o| {
            matches!(o.class, Class::Store | Class::BufferStore)
        })?
        else {
            return Ok(None);
        };
        let (Some(i), Some(r)) = (build(p, u, op)?, p.alloc(u, 1, 1, true)?) else {
            return Ok(None);
        };
        Ok(tail_of(
            p,
            &[Some(Instruction {
                offset: Offset::Sgpr(r),
                ..i
            })],
        ))
    })
}

/// GFX8/GFX9: a load into the third dword of a fresh resource quad, then
/// at once a buffer instruction on the quad (which also reads the loading
/// register, and on XNACK processors joins the load's soft clause).
fn smem_buffer_resource_hazard(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some(gen) = SmemGen::for_target(c.t) else {
        return Ok(None);
    };
    if gen.is_rdna() {
        return Ok(None);
    }
    with_prep(c, u, |p, u| {
        let (Some(load), Some(op)) = (
            op_where(gen, u, |o| o.class == Class::Load && o.width <= 2)?,
            op_where(gen, u, |o| o.class.buffer_base())?,
        ) else {
            return Ok(None);
        };
        let Some(b) = build(p, u, op)? else {
            return Ok(None);
        };
        let Some(base) = p.alloc(u, 2, 2, true)? else {
            return Ok(None);
        };
        let w = Instruction::new(gen, load, b.sbase + 2, base, Offset::Imm(0));
        Ok(tail_of(p, &[Some(w), Some(b)]))
    })
}

/// GFX9+: a tail copy of a load, store or atomic through an address, with
/// a negative immediate (plus an SGPR holding 0).
fn smem_offset_negative(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    let Some(gen) = SmemGen::for_target(c.t) else {
        return Ok(None);
    };
    if gen == SmemGen::Gfx8 {
        return Ok(None);
    }
    with_prep(c, u, |p, u| {
        let Some(i) = template(p, u, |i| {
            matches!(i.op.class, Class::Load | Class::Store | Class::Atomic)
        })?
        else {
            return Ok(None);
        };
        let imm = -4 * int(u, 1i32, 1 << 18)?;
        let reg = match i.offset {
            Offset::Sgpr(r) | Offset::Soffset(r) | Offset::SgprImm { sgpr: r, .. }
                if r != gen.null() =>
            {
                Some(r)
            }
            _ => p.alloc(u, 1, 1, true)?,
        };
        let offset = match reg {
            Some(sgpr) if u.arbitrary::<bool>()? => Offset::SgprImm { sgpr, imm },
            _ => Offset::Imm(imm),
        };
        Ok(tail_of(p, &[Some(Instruction { offset, ..i })]))
    })
}

/// XNACK processors: a load, then a load that overwrites the first one's
/// base: one soft clause writes a register it reads.
fn smem_xnack_clause_overlap(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    if !c.t.xnack {
        return Ok(None);
    }
    with_prep(c, u, |p, u| {
        let gen = p.gen;
        let (Some(a), Some(b)) = (
            op_where(gen, u, |o| is_load(o, 1))?,
            op_where(gen, u, |o| is_load(o, 2) && o.width == 2)?,
        ) else {
            return Ok(None);
        };
        let Some(first) = build(p, u, a)? else {
            return Ok(None);
        };
        let Some(base) = p.alloc(u, 2, 2, true)? else {
            return Ok(None);
        };
        let second = Instruction::new(gen, b, first.sbase, base, Offset::Imm(0));
        Ok(tail_of(p, &[Some(first), Some(second)]))
    })
}

/// A store to a fresh base plus an immediate, then `s_dcache_discard*` of
/// an address in the stored line (GFX9, gfx1010-gfx1013).
fn smem_discard_dirty(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    with_prep(c, u, |p, u| {
        let gen = p.gen;
        let (Some(store), Some(discard)) = (
            op_where(gen, u, |o| o.class == Class::Store)?,
            op_where(gen, u, |o| o.class == Class::Discard)?,
        ) else {
            return Ok(None);
        };
        let Some(s) = build(p, u, store)? else {
            return Ok(None);
        };
        let x = 4 * int(u, 0i32, (1 << 18) - 16)?;
        let y = (x & !63) + int(u, 0i32, 63)?;
        let d = Instruction::new(gen, discard, 0, s.sbase, Offset::Imm(y));
        Ok(tail_of(
            p,
            &[
                Some(Instruction {
                    offset: Offset::Imm(x),
                    ..s
                }),
                Some(d),
            ],
        ))
    })
}

/// A tail copy of a whole-dword access with an immediate whose low two
/// bits are not 0 (positive, so no negative-offset rule).
fn smem_address_unaligned(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    with_prep(c, u, |p, u| {
        let Some(i) = template(p, u, |i| {
            matches!(
                i.op.class,
                Class::Load
                    | Class::BufferLoad
                    | Class::Store
                    | Class::BufferStore
                    | Class::ScratchLoad
                    | Class::ScratchStore
                    | Class::Atomic
                    | Class::BufferAtomic
            ) && i.op.ext == Ext::Dwords
        })?
        else {
            return Ok(None);
        };
        let imm = 4 * int(u, 0i32, (1 << 18) - 1)? + int(u, 1i32, 3)?;
        let offset = match i.offset {
            Offset::SgprImm { sgpr, .. } => Offset::SgprImm { sgpr, imm },
            _ => Offset::Imm(imm),
        };
        Ok(tail_of(p, &[Some(Instruction { offset, ..i })]))
    })
}

/// GFX9, gfx1010-gfx1013: a resource whose second dword has stride bits,
/// made from the only non-zero values a stream can produce, time counts:
/// `s_store_dword` 0 to a fresh address, `s_memtime` (n >= 1), wait,
/// `s_atomic_sub` n there (memory holds -n), `s_load_dword` it into the
/// resource's dword 1 (bits 29:16 of -n are set), wait, then a buffer
/// access through the resource.
fn smem_buffer_stride(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> R {
    with_prep(c, u, |p, u| {
        let gen = p.gen;
        let by = |n: &str| gen.op_by_name(n);
        let (Some(store), Some(time), Some(sub), Some(load)) = (
            by("s_store_dword"),
            by("s_memtime"),
            by("s_atomic_sub"),
            by("s_load_dword"),
        ) else {
            return Ok(None);
        };
        let Some(op) = op_where(gen, u, |o| {
            matches!(
                o.class,
                Class::BufferLoad | Class::BufferStore | Class::BufferAtomic
            )
        })?
        else {
            return Ok(None);
        };
        let Some(b) = build(p, u, op)? else {
            return Ok(None);
        };
        let (Some(z), Some(t), Some(base)) = (
            p.alloc(u, 1, 1, true)?,
            p.alloc(u, 2, 2, false)?,
            p.alloc(u, 2, 2, true)?,
        ) else {
            return Ok(None);
        };
        let x = Offset::Imm(4 * int(u, 0i32, (1 << 18) - 1)?);
        let wait = code::wait_word(gen, 0);
        let mut words = Vec::new();
        for (i, then_wait) in [
            (Instruction::new(gen, store, z, base, x), false),
            (Instruction::new(gen, time, t, 0, Offset::None), true),
            (Instruction::new(gen, sub, t, base, x), false),
            (Instruction::new(gen, load, b.sbase + 1, base, x), true),
            (b, false),
        ] {
            let Ok(w) = encode(&i) else {
                return Ok(None);
            };
            push(&mut words, w);
            if then_wait {
                words.push(wait);
            }
        }
        p.tail(&words);
        Ok(Some(()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unmutable_and_mutators_cover_every_smem_rule_once() {
        let mut ids: Vec<&str> = MUTATORS
            .iter()
            .map(|m| m.rule.id)
            .chain(UNMUTABLE.iter().map(|(r, _)| r.id))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let mut want: Vec<&str> = hsaco_oracle::rules::catalogue()
            .map(|r| r.id)
            .filter(|id| id.starts_with("smem."))
            .collect();
        want.sort_unstable();
        assert_eq!(ids, want);
    }

    #[test]
    fn set_field_replaces_only_the_field() {
        assert_eq!(set_field(0xffff_ffff, 6, 7, 0), 0xffff_e03f);
        assert_eq!(set_field(0, 32, 21, -4i64 as u64), 0x1f_fffc << 32);
        assert_eq!(set_field(0, 0, 6, 62), 62);
        assert_eq!(mask(126, 4), 3 << 126);
        assert_eq!(mask(2, 2), 0b1100);
    }
}
