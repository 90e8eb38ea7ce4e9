//! SMEM instruction streams: drawn from the oracle's instruction forms
//! ([`hsaco_oracle::smem::forms`]), with the waits that make them valid
//! streams for the oracle's executor ([`hsaco_oracle::smem::exec`]).
//!
//! A [`Stream`] is valid by construction: every word is the canonical
//! encoding of a valid instruction of the family, decodes back to the
//! instruction drawn, and prints (in [`Stream::lines`]) exactly as
//! `llvm-mc-19 --disassemble` prints it; and the steps run in an
//! [`exec::Machine`] without a violation. The generator never draws and
//! then rejects: each choice is made among the candidates that are valid
//! at that point, and a wait is inserted where an instruction would
//! otherwise read or overwrite a register that is still being loaded.
//!
//! How the executor's value-dependent rules are kept (design decisions):
//!
//! - **Address registers are never written.** Each stream splits the
//!   registers it may name into *address* registers (SBASE and SGPR
//!   offsets) and *data* registers (SDATA). So a base or offset holds its
//!   initial value throughout, never waits on a load, and no write can
//!   create the GFX8/GFX9 buffer-resource hazard. [`Stream::address_registers`]
//!   names them: with initial values whose two low bits (and, for a buffer
//!   resource's second dword, the stride bits 29:16) are clear, as in a
//!   fresh [`exec::Machine`], no address is unaligned and no stride is set.
//!   A replay harness must set them up the same way.
//! - **Immediate offsets** of dword accesses are multiples of 4
//!   (`smem.address.unaligned`); GFX12 sub-dword loads, probes, prefetches
//!   and discards take any value. Loads, stores and atomics through an
//!   address (not buffer or scratch) take no negative immediate on GFX9 and
//!   later (`smem.offset.negative` depends on the SGPR offset's value).
//! - **Discards** follow an `s_dcache_wb` whenever a scalar store may have
//!   dirtied a line since the last write-back (`smem.discard.dirty`).
//! - **GFX8 stores** take `m0` or an immediate as offset
//!   (`smem.gfx8.store_offset_register`).
//! - **XNACK soft clauses**: on processors that support XNACK, a wait
//!   ends an SMEM clause before an instruction that would make a written
//!   register also read in it (`smem.xnack.clause_overlap`), whether or not
//!   the code object turns XNACK on.
//! - **Canonical operands**: where two spellings share a word (GFX10/GFX11
//!   `Imm(0)` is `null`; an SGPR plus immediate 0 is the SGPR alone; GFX12
//!   `null` plus an immediate is the immediate alone), the generator draws
//!   only the spelling the decoder returns, so each drawn [`Form`] is the
//!   form its word decodes to.
//!
//! GFX9's SOE-only form ([`OffsetForm::Soffset`]) has no assembler text
//! (LLVM assembles its text to the IMM=0 word): [`Stream::text`] writes it
//! as `.long` data, and `rebuildable_only` keeps it out of streams.

use crate::config::{Config, SmemWaits};
use crate::kd::{self, DescriptorSpec};
use crate::target::TargetChoice;
use arbitrary::Unstructured;
use hsaco_oracle::probe::smem::{self as contract, Init, Value};
use hsaco_oracle::smem::exec::{self, AtomicOp, Semantics, Step};
use hsaco_oracle::smem::forms::{self, Form, Modifiers, OffsetForm};
use hsaco_oracle::smem::table::Ext;
use hsaco_oracle::smem::{self, Class, Instruction, Offset, OpInfo, SmemGen};
use hsaco_oracle::targets::{Generation, Target};
use std::fmt::Write as _;
use std::sync::OnceLock;

/// The registers a stream may name, besides `m0` (always allowed as an
/// offset register).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Registers {
    /// Plain SGPRs `s0..s{sgprs-1}` (clamped to 102 on GFX8/GFX9, 106 later).
    pub sgprs: u8,
    /// `vcc` (`vcc_lo`, `vcc_hi`).
    pub vcc: bool,
    /// GFX8/GFX9 `flat_scratch`.
    pub flat_scratch: bool,
    /// GFX8/GFX9 `xnack_mask` (only on processors with XNACK).
    pub xnack_mask: bool,
    /// Trap temporaries, and GFX8 `tba`/`tma`.
    pub trap: bool,
    /// `exec` as a base address.
    pub exec: bool,
    /// `null` (GFX10 and later) as an offset register or a discarded
    /// single-dword destination.
    pub null: bool,
}

impl Registers {
    /// Every register `target` has, the special ones only when `special`.
    pub fn all(target: &Target, special: bool) -> Registers {
        let pre_rdna = matches!(target.generation, Generation::Gfx8 | Generation::Gfx9);
        Registers {
            sgprs: if pre_rdna { 102 } else { 106 },
            vcc: special,
            flat_scratch: special && pre_rdna,
            xnack_mask: special && target.has_xnack_mask_sgprs(),
            trap: special,
            exec: special,
            null: special && !pre_rdna,
        }
    }
}

/// A generated SMEM stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stream {
    /// The encoding family.
    pub gen: SmemGen,
    /// The steps: SMEM instructions and waits, in order.
    pub steps: Vec<Step>,
    /// The code words of the steps (an SMEM instruction is two words, low
    /// dword first; a wait is one).
    pub words: Vec<u32>,
    /// Register slots read as base or offset (never written by the stream).
    pub address_registers: u128,
    /// Register slots the stream names as SDATA (loaded, stored, swapped).
    pub data_registers: u128,
    /// Number of SMEM instructions (waits not counted).
    pub smem_count: usize,
    /// Every register slot the stream names (`null` excepted).
    pub registers: u128,
}

/// The largest wait count the generator writes (the oracle's
/// [`smem::code::max_wait`]: one below the counter's maximum, which LLVM
/// prints together with every other counter).
pub fn max_wait(gen: SmemGen) -> u8 {
    smem::code::max_wait(gen)
}

/// The word of `s_waitcnt lgkmcnt(n)` with the other counters at their
/// maximum, or GFX12 `s_wait_kmcnt n` (the oracle's
/// [`smem::code::wait_word`], which the code-level check reads back).
pub fn wait_word(gen: SmemGen, n: u8) -> u32 {
    smem::code::wait_word(gen, n)
}

/// The wait count of `word` if it is a wait [`wait_word`] writes (count
/// at most [`max_wait`]; the oracle's [`smem::code::decode_wait`]).
pub fn decode_wait(gen: SmemGen, word: u32) -> Option<u8> {
    smem::code::decode_wait(gen, word)
}

/// A wait as `llvm-mc-19` prints it: `s_waitcnt lgkmcnt(N)`, or GFX12
/// `s_wait_kmcnt 0xN`.
pub fn wait_text(gen: SmemGen, n: u8) -> String {
    if gen.is_gfx12() {
        format!("s_wait_kmcnt {n:#x}")
    } else {
        format!("s_waitcnt lgkmcnt({n})")
    }
}

/// `s_endpgm` of a family (the oracle's [`smem::code::endpgm_word`]).
pub fn endpgm_word(gen: SmemGen) -> u32 {
    smem::code::endpgm_word(gen)
}

/// The form of an instruction: its opcode, offset form and modifiers.
pub fn form_of(i: &Instruction) -> Form {
    Form {
        gen: i.gen,
        op: i.op,
        offset: match i.offset {
            Offset::None => OffsetForm::None,
            Offset::Imm(_) => OffsetForm::Imm,
            Offset::Sgpr(_) => OffsetForm::Sgpr,
            Offset::SgprImm { .. } => OffsetForm::SgprImm,
            Offset::Soffset(_) => OffsetForm::Soffset,
        },
        glc: i.glc,
        dlc: i.dlc,
        th: i.th,
        scope: i.scope,
        nv: i.nv,
        scale_offset: i.scale_offset,
    }
}

impl Stream {
    /// The SMEM instructions, in order.
    pub fn instructions(&self) -> impl Iterator<Item = &Instruction> + '_ {
        self.steps.iter().filter_map(|s| match s {
            Step::Smem(i) => Some(i),
            _ => None,
        })
    }

    /// Each step as `llvm-mc-19 --disassemble` prints it (GFX9 SOE-only
    /// words included, which print like the SGPR form).
    pub fn lines(&self) -> Vec<String> {
        self.steps.iter().map(|s| step_text(self.gen, s)).collect()
    }

    /// Assembler text that rebuilds [`Stream::words`] exactly: one line
    /// per step, the SMEM instructions in the oracle's (LLVM's) syntax,
    /// GFX9 SOE-only words as `.long` data.
    pub fn text(&self) -> String {
        let mut s = String::with_capacity(48 * self.steps.len());
        for step in &self.steps {
            match step {
                Step::Smem(i) if is_soffset(i) => {
                    let w = fast_encode(i);
                    let _ = writeln!(s, ".long {:#010x}, {:#010x}", w as u32, (w >> 32) as u32);
                }
                _ => {
                    s.push_str(&step_text(self.gen, step));
                    s.push('\n');
                }
            }
        }
        s
    }

    /// The words as little-endian bytes.
    pub fn bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// A kernel's code: the stream, a wait for 0 and `s_endpgm`.
    pub fn kernel_code(&self) -> Vec<u32> {
        let mut v = Vec::with_capacity(self.words.len() + 2);
        v.extend_from_slice(&self.words);
        v.push(wait_word(self.gen, 0));
        v.push(endpgm_word(self.gen));
        v
    }

    /// Every register slot the stream names (`null` excepted).
    pub fn registers_used(&self) -> u128 {
        self.registers
    }

    /// The highest plain SGPR (`s0`..`s105`, below `vcc`) the stream names.
    pub fn max_sgpr(&self) -> Option<u8> {
        let plain_top: u32 = if self.gen.is_rdna() { 106 } else { 102 };
        let m = self.registers_used() & ((1u128 << plain_top) - 1);
        (m != 0).then(|| (127 - m.leading_zeros()) as u8)
    }
}

/// True for GFX9's SOE-only offset, which has no assembler text.
fn is_soffset(i: &Instruction) -> bool {
    matches!(i.offset, Offset::Soffset(_))
}

fn step_text(gen: SmemGen, s: &Step) -> String {
    match s {
        Step::Smem(i) => i.to_string(),
        Step::WaitLgkm(n) => wait_text(gen, *n),
        // The generator writes no other steps.
        Step::WriteSgpr { .. } | Step::ReadSgprs { .. } | Step::Other => String::new(),
    }
}

/// Assembler lines for the code words of a kernel on `target`:
/// `s_endpgm`, the waits [`wait_word`] writes, and every valid canonical
/// SMEM word whose text `llvm-mc-19` assembles back (operands the
/// generator could have drawn) in LLVM syntax; anything else (GFX9
/// SOE-only words, the disassembler-only operands of [`assemblable`]) as
/// `.long`. Each line assembles to exactly its words, so the text
/// rebuilds the code whatever it holds.
pub fn code_lines(target: &Target, code: &[u32]) -> Vec<String> {
    let mut s = String::new();
    write_code(&mut s, target, code);
    s.lines()
        .map(|l| l.strip_prefix('\t').unwrap_or(l).to_owned())
        .collect()
}

/// Appends [`code_lines`] to `out`, each line indented by a tab and ended
/// by a newline (the assembler emitter's layout), without building a
/// string per line.
pub fn write_code(out: &mut String, target: &Target, code: &[u32]) {
    let gen = SmemGen::for_target(target);
    let endpgm = crate::object::s_endpgm(target);
    let mut k = 0;
    while let Some(&w) = code.get(k) {
        k += 1;
        if w == endpgm {
            out.push_str("\ts_endpgm\n");
            continue;
        }
        if let Some(gen) = gen {
            if let Some(n) = decode_wait(gen, w) {
                let _ = if gen.is_gfx12() {
                    writeln!(out, "\ts_wait_kmcnt {n:#x}")
                } else {
                    writeln!(out, "\ts_waitcnt lgkmcnt({n})")
                };
                continue;
            }
            if (w >> 26) as u8 == gen.encoding() {
                if let Some(&hi) = code.get(k) {
                    let d = smem::decode(gen, u64::from(w) | u64::from(hi) << 32);
                    if let (smem::Verdict::Valid, Some(i)) = (d.verdict, d.instruction) {
                        if assemblable(&i, target) {
                            let _ = writeln!(out, "\t{i}");
                            k += 1;
                            continue;
                        }
                    }
                }
            }
        }
        let _ = writeln!(out, "\t.long {w:#010x}");
    }
}

/// True when `llvm-mc-19` assembles the text of a valid instruction back
/// to its word on `target`: not GFX9's SOE-only form, and every register
/// operand one the generator may draw. LLVM 19's disassembler prints, and
/// the oracle accepts, a few operands its assembler refuses ("register not
/// available on this GPU"): GFX8/GFX9 SGPR tuples running into s102/s103,
/// slot 125 (`null`) as SDATA, and `xnack_mask` on processors without XNACK
/// (docs/errata.md, SMEM parser notes 7 and 8).
pub fn assemblable(i: &Instruction, target: &Target) -> bool {
    let gen = i.gen;
    let valid = validity(gen);
    let c = i.op.class;
    let no_xnack = !gen.is_rdna() && !target.has_xnack_mask_sgprs();
    let clear = |first: u8, w: u8| !(no_xnack && reg_mask(first, w) & reg_mask(104, 2) != 0);
    let has = |m: u128, v: u8| m >> v & 1 == 1;
    if c.has_sdata_regs() {
        let k = WIDTHS.iter().position(|&w| w == i.op.width.max(1));
        let ok = k
            .and_then(|k| valid.sdata.get(k))
            .is_some_and(|m| has(*m, i.sdata));
        if !ok || !clear(i.sdata, i.op.width.max(1)) {
            return false;
        }
    }
    if c.has_sbase() {
        let (m, w) = if c.buffer_base() {
            (valid.quads, 4)
        } else {
            (valid.pairs, 2)
        };
        if !has(m, i.sbase) || !clear(i.sbase, w) {
            return false;
        }
    }
    match i.offset {
        Offset::Soffset(_) => false,
        Offset::Sgpr(r) | Offset::SgprImm { sgpr: r, .. } => has(valid.offsets, r) && clear(r, 1),
        Offset::None | Offset::Imm(_) => true,
    }
}

/// Which configuration knob switches an instruction class on.
fn class_enabled(cfg: &Config, c: Class) -> bool {
    match c {
        Class::Load => cfg.smem_loads,
        Class::BufferLoad => cfg.smem_buffer_loads,
        Class::Store | Class::BufferStore => cfg.smem_stores,
        Class::ScratchLoad | Class::ScratchStore => cfg.smem_scratch,
        Class::Atomic | Class::BufferAtomic => cfg.smem_atomics,
        Class::Cache | Class::Discard => cfg.smem_cache_ops,
        Class::Time | Class::WaveId => cfg.smem_time,
        Class::Probe | Class::ProbeBuffer => cfg.smem_probes,
        Class::Prefetch | Class::PrefetchBuffer | Class::PrefetchPcRel => cfg.smem_prefetches,
    }
}

/// A modifier set with its word bits.
type ModSet = (Modifiers, u64);

/// What the generator needs to know of one opcode, computed once per
/// family.
#[derive(Debug)]
struct OpPlan {
    op: &'static OpInfo,
    offsets: &'static [OffsetForm],
    /// Modifier sets with their word bits (the first is "none").
    mods: Vec<ModSet>,
    /// A scalar store (may dirty a cache line).
    store: bool,
    /// `s_dcache_wb`/`s_dcache_wb_vol` (clean every line).
    writeback: bool,
    /// `s_dcache_discard*`.
    discard: bool,
    /// Immediate offsets must be multiples of 4.
    dword: bool,
    /// Immediate offsets must not be negative.
    nonnegative: bool,
    /// Largest SDATA immediate (probes, prefetches).
    imm_max: u8,
    /// A GFX12.5 byte load: with `scale_offset` it takes only the
    /// immediate form, because the executor predicts no scaled nonzero
    /// SGPR offset of a byte load (`smem.scale_offset.byte_load`).
    scale_needs_imm: bool,
    /// ENCODING and OPCODE bits of the word.
    template: u64,
    /// Registers of SBASE (0, 2 or 4) as a mask at register 0 (shifted
    /// to the operand when drawn: one variable shift instead of two).
    base_m: u128,
    /// Registers of SDATA read (stores, atomics), else 0, as a mask.
    read_m: u128,
    /// Registers of SDATA written, without and with GLC, as masks.
    write_m: [u128; 2],
    /// GFX8/GFX9, without and with GLC: a wait for 1 retires the
    /// instruction (its LGKM increment is 2: two or more dwords returned,
    /// time counters excepted).
    retires_at_1: [bool; 2],
}

fn plans(gen: SmemGen) -> &'static [OpPlan] {
    static PLANS: [OnceLock<Vec<OpPlan>>; SmemGen::ALL.len()] =
        [const { OnceLock::new() }; SmemGen::ALL.len()];
    // In class order (stable), so that a stream's opcodes group by class
    // without sorting.
    PLANS[gen as usize].get_or_init(|| {
        let mut v: Vec<OpPlan> = gen.table().iter().map(|op| plan(gen, op)).collect();
        v.sort_by_key(|p| p.op.class as u8);
        v
    })
}

fn plan(gen: SmemGen, op: &'static OpInfo) -> OpPlan {
    let c = op.class;
    let sem = exec::semantics(op);
    let (reads_sdata, ret, time, store) = match sem {
        Some(Semantics::Load { .. }) => (false, [op.width; 2], false, false),
        Some(Semantics::Store { .. }) => (true, [0; 2], false, true),
        Some(Semantics::Atomic { op: a, .. }) => {
            let back = if a == AtomicOp::CmpSwap {
                op.width / 2
            } else {
                op.width
            };
            (true, [0, back], false, false)
        }
        Some(Semantics::MemTime | Semantics::MemRealTime) => (false, [2; 2], true, false),
        Some(Semantics::WaveId) => (false, [1; 2], false, false),
        _ => (false, [0; 2], false, false),
    };
    let writeback = matches!(op.mnemonic, "s_dcache_wb" | "s_dcache_wb_vol");
    let write_width = if time { 2 } else { op.width.max(1) };
    let dword = matches!(
        c,
        Class::Load
            | Class::BufferLoad
            | Class::Store
            | Class::BufferStore
            | Class::ScratchLoad
            | Class::ScratchStore
            | Class::Atomic
            | Class::BufferAtomic
    ) && op.ext == Ext::Dwords;
    OpPlan {
        op,
        offsets: forms::offset_forms(gen, c),
        mods: forms::modifier_sets(gen, c)
            .into_iter()
            .map(|m| {
                (
                    m,
                    encode_rest(&m.apply(Instruction::new(gen, op, 0, 0, Offset::None))),
                )
            })
            .collect(),
        store,
        writeback,
        discard: c == Class::Discard,
        dword,
        nonnegative: gen != SmemGen::Gfx8
            && matches!(c, Class::Load | Class::Store | Class::Atomic),
        imm_max: if gen.is_gfx12() { 31 } else { 127 },
        scale_needs_imm: gen.has_scale_offset(c) && matches!(op.ext, Ext::I8 | Ext::U8),
        template: (u64::from(gen.encoding()) << 26)
            | (u64::from(op.opcode) << gen.opcode_field().0),
        base_m: reg_mask(
            0,
            match (c.has_sbase(), c.buffer_base()) {
                (false, _) => 0,
                (true, false) => 2,
                (true, true) => 4,
            },
        ),
        read_m: reg_mask(0, if reads_sdata { op.width } else { 0 }),
        write_m: ret.map(|n| reg_mask(0, if n == 0 { 0 } else { write_width })),
        retires_at_1: ret.map(|n| !gen.is_rdna() && !time && n >= 2),
    }
}

/// The canonical word of a valid instruction (as [`smem::encode`] gives
/// it; the generator builds words while drawing, and the tests compare
/// both with the oracle's encoder).
fn fast_encode(i: &Instruction) -> u64 {
    let gen = i.gen;
    let c = i.op.class;
    let (lo, _) = gen.opcode_field();
    let mut w = (u64::from(gen.encoding()) << 26) | (u64::from(i.op.opcode) << lo);
    if c.has_sdata_regs() || c.has_sdata_imm() {
        w |= u64::from(i.sdata) << 6;
    }
    if c.has_sbase() {
        w |= u64::from(i.sbase >> 1);
    }
    w |= encode_rest(i);
    w
}

/// Modifier and offset bits of an instruction's word.
fn encode_rest(i: &Instruction) -> u64 {
    let gen = i.gen;
    let mut w = 0u64;
    if let (true, Some(b)) = (i.glc, gen.glc_bit()) {
        w |= 1 << b;
    }
    if let (true, Some(b)) = (i.dlc, gen.dlc_bit()) {
        w |= 1 << b;
    }
    w |= (u64::from(i.th) << 23) | (u64::from(i.scope) << 21);
    if let (true, Some(b)) = (i.nv, gen.nv_bit()) {
        w |= 1 << b;
    }
    if let (true, Some(b)) = (i.scale_offset, gen.scale_offset_bit()) {
        w |= 1 << b;
    }
    let imm_mask: u64 = if gen.is_gfx12() {
        (1 << 24) - 1
    } else {
        (1 << 21) - 1
    };
    let imm = |v: i32| (u64::from(v as u32) & imm_mask) << 32;
    let reg = |r: u8| u64::from(r) << 57;
    if gen.is_rdna() {
        match i.offset {
            Offset::None => {}
            Offset::Imm(v) => w |= imm(v) | reg(gen.null()),
            Offset::Sgpr(r) | Offset::Soffset(r) => w |= reg(r),
            Offset::SgprImm { sgpr, imm: v } => w |= imm(v) | reg(sgpr),
        }
    } else {
        match i.offset {
            Offset::None => {}
            Offset::Imm(v) => w |= (1 << 17) | imm(v),
            Offset::Sgpr(r) => w |= u64::from(r) << 32,
            Offset::SgprImm { sgpr, imm: v } => w |= (1 << 17) | (1 << 14) | imm(v) | reg(sgpr),
            Offset::Soffset(r) => w |= (1 << 14) | reg(r),
        }
    }
    w
}

/// Bit mask of `count` slots from `first`, clipped to 128.
#[inline]
fn reg_mask(first: u8, count: u8) -> u128 {
    // Bits past slot 127 drop out.
    let ones = match 1u128.checked_shl(u32::from(count)) {
        Some(b) => b - 1,
        None => u128::MAX,
    };
    ones.checked_shl(u32::from(first)).unwrap_or(0)
}

/// The slots that read 0 and ignore writes (never pending in the
/// executor): `null`, and slot 125 on GFX8/GFX9.
fn null_slots(gen: SmemGen) -> u128 {
    let mut m = 1u128 << gen.null();
    if !gen.is_rdna() {
        m |= 1 << 125;
    }
    m
}

/// `mask` (a [`reg_mask`] from register 0) moved to register `first`
/// (below 128).
#[inline]
fn at(mask: u128, first: u8) -> u128 {
    mask.wrapping_shl(u32::from(first))
}

/// SDATA widths of the tables.
const WIDTHS: [u8; 6] = [1, 2, 3, 4, 8, 16];

/// Which register numbers start a valid operand of a family (bit `v` for
/// register `v`), from the oracle's register classes, computed once.
struct Validity {
    /// SBASE pairs.
    pairs: u128,
    /// SBASE quads.
    quads: u128,
    /// Offset registers (`null` included where it exists).
    offsets: u128,
    /// SDATA tuples by width, in [`WIDTHS`] order.
    sdata: [u128; 6],
}

fn validity(gen: SmemGen) -> &'static Validity {
    static VALIDITY: [OnceLock<Validity>; SmemGen::ALL.len()] =
        [const { OnceLock::new() }; SmemGen::ALL.len()];
    VALIDITY[gen as usize].get_or_init(|| {
        let pre_rdna = !gen.is_rdna();
        // GFX8/GFX9 tuples of SGPRs stop at s101: llvm-mc-19 rejects
        // `s[100:103]` ("register not available on this GPU") although
        // its disassembler prints it.
        let straddles =
            |v: u8, w: u8| pre_rdna && w > 1 && v < 102 && u32::from(v) + u32::from(w) > 102;
        let mut out = Validity {
            pairs: 0,
            quads: 0,
            offsets: 0,
            sdata: [0; 6],
        };
        for v in 0..128u8 {
            let bit = 1u128 << v;
            if smem::tuple_name(gen, v, 2, true).is_some() && !straddles(v, 2) {
                out.pairs |= bit;
            }
            if smem::tuple_name(gen, v, 4, true).is_some() && !straddles(v, 4) {
                out.quads |= bit;
            }
            if gen.is_rdna() || v != 125 {
                out.offsets |= bit;
            }
            for (k, w) in WIDTHS.iter().enumerate() {
                // Slot 125 is `null` from GFX10 only: llvm-mc-19 refuses
                // it as SDATA before ("'null' operand is not supported").
                let null_before_gfx10 = pre_rdna && v == 125;
                // llvm-mc-19 takes null as SDATA of one or two dwords
                // only (LLVM 22 of any width; errata SMEM 17).
                let wide_null = !pre_rdna && v == gen.null() && *w > 2;
                if smem::tuple_name(gen, v, *w, false).is_some()
                    && !straddles(v, *w)
                    && !null_before_gfx10
                    && !wide_null
                {
                    if let Some(m) = out.sdata.get_mut(k) {
                        *m |= bit;
                    }
                }
            }
        }
        out
    })
}

/// Bit `v` set when registers `v..v+w` all lie in `m`.
fn starts(m: u128, w: u8) -> u128 {
    let mut out = m;
    for j in 1..u32::from(w) {
        out &= m.checked_shr(j).unwrap_or(0);
    }
    out
}

/// Per-stream candidates: which registers play which role, and the
/// operands each role offers.
struct Pools {
    address: u128,
    pairs: List,
    quads: List,
    /// Offset registers, `null` excluded.
    offsets: List,
    /// Offset registers with `null` (when allowed), for the forms where
    /// `null` keeps its own word.
    offsets_null: List,
    /// Valid SDATA tuple starts, by width in [`WIDTHS`] order.
    data_tuples: [List; 6],
}

/// The empty list.
static EMPTY: List = List { v: [0; 128], n: 0 };
/// SDATA/SBASE of an instruction without that field: 0.
static ZERO: List = List::seq(1);
/// Probe immediates before GFX12 (7 bits).
static IMM7: List = List::seq(128);
/// GFX12 probe and prefetch immediates (5 bits).
static IMM5: List = List::seq(32);

/// A list of register numbers held inline (streams are drawn per kernel,
/// so the per-stream setup avoids the heap).
#[derive(Clone, Copy)]
struct List {
    v: [u8; 128],
    n: usize,
}

impl List {
    /// `0..n` (n at most 128).
    const fn seq(n: usize) -> List {
        let mut l = List { v: [0; 128], n: 0 };
        while l.n < n && l.n < 128 {
            l.v[l.n] = l.n as u8;
            l.n += 1;
        }
        l
    }

    /// The set bits of `m`, lowest first.
    fn of(mut m: u128) -> List {
        let mut l = List { v: [0; 128], n: 0 };
        while m != 0 {
            if let Some(d) = l.v.get_mut(l.n) {
                *d = m.trailing_zeros() as u8;
                l.n += 1;
            }
            m &= m - 1;
        }
        l
    }
}

impl std::ops::Deref for List {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.v.get(..self.n).unwrap_or(&[])
    }
}

impl Pools {
    fn draw(u: &mut Unstructured<'_>, gen: SmemGen, regs: &Registers) -> arbitrary::Result<Pools> {
        let pre_rdna = !gen.is_rdna();
        let n = regs.sgprs.min(if pre_rdna { 102 } else { 106 });
        let blocks = n / 4;
        let k = u.int_in_range(0..=blocks)?;
        let (address, data) = if u.arbitrary::<bool>()? {
            (reg_mask(0, 4 * k), reg_mask(4 * k, n - 4 * k))
        } else {
            let d = 4 * (blocks - k);
            (reg_mask(d, n - d), reg_mask(0, d))
        };
        let (mut address, mut data) = (address, data);
        let mut group = |u: &mut Unstructured<'_>, on: bool, m: u128| -> arbitrary::Result<()> {
            if on {
                if u.arbitrary::<bool>()? {
                    address |= m;
                } else {
                    data |= m;
                }
            }
            Ok(())
        };
        group(u, regs.vcc, reg_mask(106, 2))?;
        group(u, regs.flat_scratch && pre_rdna, reg_mask(102, 2))?;
        group(u, regs.xnack_mask && pre_rdna, reg_mask(104, 2))?;
        if gen == SmemGen::Gfx8 {
            group(u, regs.trap, reg_mask(108, 2))?;
            group(u, regs.trap, reg_mask(110, 2))?;
            group(u, regs.trap, reg_mask(112, 4))?;
            group(u, regs.trap, reg_mask(116, 8))?;
        } else {
            group(u, regs.trap, reg_mask(108, 8))?;
            group(u, regs.trap, reg_mask(116, 8))?;
        }
        if regs.exec {
            address |= reg_mask(126, 2);
        }
        address |= reg_mask(gen.m0(), 1);
        let null = 1u128 << gen.null();
        if regs.null && !pre_rdna {
            address |= null;
            data |= null;
        }
        let valid = validity(gen);
        let singles = starts(address, 1) & valid.offsets;
        let mut data_tuples = [List { v: [0; 128], n: 0 }; 6];
        for ((dst, ok), w) in data_tuples.iter_mut().zip(&valid.sdata).zip(WIDTHS) {
            *dst = List::of(ok & starts(data, w));
        }
        Ok(Pools {
            address,
            // Not null as an address: a stream's accesses must land in
            // the harness buffers its bases point into.
            pairs: List::of(valid.pairs & starts(address, 2) & !null),
            quads: List::of(valid.quads & starts(address, 4)),
            offsets: List::of(singles & !(1u128 << gen.null())),
            offsets_null: List::of(singles),
            data_tuples,
        })
    }
}

/// One opcode as a stream may use it: its allowed offset forms and
/// modifier sets, and what drawing its operands needs, computed once per
/// stream.
struct Usable {
    plan: &'static OpPlan,
    /// SDATA candidates: register tuples, immediates, or just 0.
    sdata: Src,
    /// SBASE candidates (just 0 without SBASE).
    sbase: Src,
    /// SGPR offsets allowed (else prefetches name `null`).
    sgpr_offsets: bool,
    /// Allowed offset forms (the first `n_offsets`).
    offsets: [OffsetForm; 4],
    n_offsets: usize,
    /// Modifier sets with their word bits.
    mods: &'static [ModSet],
    /// Immediate offset range (after the no-negative rule).
    range: (i32, i32),
    /// 4 for dword accesses, else 1.
    align: i32,
    /// GFX10/GFX11: immediates of the immediate and SGPR+immediate forms
    /// are not 0 (0 would be another form's word).
    nonzero: bool,
    /// GFX8 store: the SGPR offset is `m0`.
    m0_only: bool,
}

/// Where an operand's candidates come from: a list of the stream's
/// [`Pools`] (which differ from stream to stream) or a fixed list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Src {
    /// SDATA tuple starts of the width at this index of [`WIDTHS`].
    Tuples(u8),
    /// SGPR pairs (SBASE of a memory access).
    Pairs,
    /// SGPR quads (SBASE of a buffer access).
    Quads,
    /// 5-bit immediates (GFX12 probes and prefetches).
    Imm5,
    /// 7-bit immediates (probes before GFX12).
    Imm7,
    /// Just 0 (no such field).
    Zero,
}

impl Src {
    fn list(self, pools: &Pools) -> &List {
        match self {
            Src::Tuples(k) => pools.data_tuples.get(usize::from(k)).unwrap_or(&EMPTY),
            Src::Pairs => &pools.pairs,
            Src::Quads => &pools.quads,
            Src::Imm5 => &IMM5,
            Src::Imm7 => &IMM7,
            Src::Zero => &ZERO,
        }
    }
}

/// The opcodes of `gen` that `cfg`'s offset and modifier settings leave
/// usable, whatever the stream's register pools: computed once per
/// family and setting (eight settings in all) rather than per stream,
/// which made stream setup a tenth of code object generation.
fn usable_plans(gen: SmemGen, cfg: &Config) -> &'static [Usable] {
    static CACHE: [[OnceLock<Vec<Usable>>; 8]; SmemGen::ALL.len()] =
        [const { [const { OnceLock::new() }; 8] }; SmemGen::ALL.len()];
    let sgpr_offsets = cfg.smem_sgpr_offsets;
    let soffset = sgpr_offsets && !cfg.rebuildable_only;
    let all_mods = cfg.smem_modifiers;
    let key = usize::from(sgpr_offsets) | usize::from(soffset) << 1 | usize::from(all_mods) << 2;
    CACHE[gen as usize][key].get_or_init(|| {
        let mut v = Vec::with_capacity(plans(gen).len());
        for p in plans(gen) {
            let c = p.op.class;
            let mut offsets = [OffsetForm::None; 4];
            let mut n_offsets = 0;
            for f in p.offsets {
                let ok = match f {
                    OffsetForm::None | OffsetForm::Imm => true,
                    // Prefetches always name SOFFSET; without SGPR offsets
                    // it is `null`.
                    OffsetForm::SgprImm if c.prefetch() => true,
                    OffsetForm::Soffset => soffset,
                    OffsetForm::Sgpr | OffsetForm::SgprImm => sgpr_offsets,
                };
                if let (true, Some(d)) = (ok, offsets.get_mut(n_offsets)) {
                    *d = *f;
                    n_offsets += 1;
                }
            }
            if n_offsets == 0 {
                continue;
            }
            let mods = if all_mods {
                &p.mods[..]
            } else {
                p.mods.get(..1).unwrap_or(&[])
            };
            if mods.is_empty() {
                continue;
            }
            let (lo, hi) = gen.offset_range(c);
            let sdata = if c.has_sdata_regs() {
                match WIDTHS.iter().position(|&w| w == p.op.width) {
                    Some(k) => Src::Tuples(k as u8),
                    None => continue,
                }
            } else if c.has_sdata_imm() && p.imm_max == 31 {
                Src::Imm5
            } else if c.has_sdata_imm() {
                Src::Imm7
            } else {
                Src::Zero
            };
            let sbase = match (c.has_sbase(), c.buffer_base()) {
                (false, _) => Src::Zero,
                (true, false) => Src::Pairs,
                (true, true) => Src::Quads,
            };
            v.push(Usable {
                plan: p,
                sdata,
                sbase,
                sgpr_offsets,
                offsets,
                n_offsets,
                mods,
                range: (if p.nonnegative { lo.max(0) } else { lo }, hi),
                align: if p.dword { 4 } else { 1 },
                nonzero: gen.is_rdna() && !gen.is_gfx12(),
                m0_only: gen == SmemGen::Gfx8 && matches!(c, Class::Store | Class::BufferStore),
            });
        }
        v
    })
}

/// One usable opcode with its operand candidates resolved against the
/// stream's pools (once per stream, not per instruction).
#[derive(Clone, Copy)]
struct Op<'p> {
    u: &'static Usable,
    sdata: &'p List,
    sbase: &'p List,
}

/// The opcodes usable in one stream: those of [`usable_plans`] whose
/// class `cfg` enables and whose register operands `pools` can supply,
/// in class order, with the runs of each class as (start, length).
struct UsableOps<'p> {
    ops: Vec<Op<'p>>,
    classes: Vec<(usize, usize)>,
}

fn usable_ops<'p>(gen: SmemGen, cfg: &Config, pools: &'p Pools) -> UsableOps<'p> {
    let all = usable_plans(gen, cfg);
    let mut ops: Vec<Op<'p>> = Vec::with_capacity(all.len());
    let mut classes: Vec<(usize, usize)> = Vec::with_capacity(16);
    let mut last = None;
    for u in all {
        let c = u.plan.op.class;
        let (sdata, sbase) = (u.sdata.list(pools), u.sbase.list(pools));
        if !class_enabled(cfg, c) || sdata.is_empty() || sbase.is_empty() {
            continue;
        }
        match classes.last_mut() {
            Some((_, len)) if last == Some(c) => *len += 1,
            _ => classes.push((ops.len(), 1)),
        }
        last = Some(c);
        ops.push(Op { u, sdata, sbase });
    }
    UsableOps { ops, classes }
}

/// The generator's state while it writes one stream: what the executor
/// will know at the same point.
struct Writer {
    gen: SmemGen,
    xnack: bool,
    waits: SmemWaits,
    max_wait: u8,
    /// Registers pending on instructions a wait for 0 retires (and, from
    /// GFX10, every pending register).
    pend0: u128,
    /// GFX8/GFX9: registers pending on instructions a wait for 1 retires
    /// (those returning two or more dwords, time counters excepted).
    pend1: u128,
    /// Defs and uses of the current SMEM soft clause.
    clause: (u128, u128),
    /// A scalar store may have dirtied a line since the last write-back.
    dirty: bool,
    steps: Vec<Step>,
    words: Vec<u32>,
    /// Registers read or written (null slots excluded).
    touched: u128,
    smem: usize,
}

impl Writer {
    fn wait(&mut self, n: u8) {
        self.steps.push(Step::WaitLgkm(n));
        self.words.push(wait_word(self.gen, n));
        if n == 0 {
            self.pend0 = 0;
            self.pend1 = 0;
        } else if n == 1 && !self.gen.is_rdna() {
            self.pend1 = 0;
        }
        self.clause = (0, 0);
    }

    /// Writes `i` (reading `r`, writing `w`), with the waits it needs first.
    /// `choice` (the instruction's choice bytes) picks the counts of the
    /// waits: byte 7 bit 4 between the sufficient counts of a needed wait,
    /// byte 10 a clause-ending wait's.
    // Always inlined: as a call, moving its by-value arguments cost more
    // than the body (callgrind).
    #[inline(always)]
    fn emit(&mut self, p: &OpPlan, i: Instruction, word: u64, (r, w): (u128, u128), choice: u128) {
        let conflict = (r | w) & (self.pend0 | self.pend1);
        if conflict != 0 {
            // A wait for N retires (GFX8/GFX9) instructions whose own
            // increment exceeds N: a wait for 1 retires the two-dword ones.
            let most = if self.gen.is_rdna() || conflict & self.pend0 != 0 {
                0
            } else {
                1
            };
            let n = match self.waits {
                SmemWaits::Zero => 0,
                SmemWaits::Minimal => most,
                SmemWaits::Random => most & ((choice >> 60) as u8 & 1),
            };
            self.wait(n);
        }
        if self.xnack {
            let (defs, uses) = self.clause;
            if defs != 0 && (defs | w) & (uses | r) != 0 {
                // Any non-SMEM step ends the clause.
                let n = match self.waits {
                    SmemWaits::Zero => 0,
                    SmemWaits::Minimal => self.max_wait,
                    SmemWaits::Random => sel(choice, 10, usize::from(self.max_wait) + 1) as u8,
                };
                self.wait(n);
            }
            self.clause = (self.clause.0 | w, self.clause.1 | r);
        }
        self.words
            .extend_from_slice(&[word as u32, (word >> 32) as u32]);
        self.steps.push(Step::Smem(i));
        self.smem += 1;
        self.touched |= r | w;
        if p.retires_at_1[usize::from(i.glc)] {
            self.pend1 |= w;
        } else {
            self.pend0 |= w;
        }
        if p.store {
            self.dirty = true;
        }
        if p.writeback {
            self.dirty = false;
        }
    }
}

/// The next 8 bytes of `u` as a little-endian word (zero-padded at the
/// end of the data). Reads through `bytes` with a fixed-size copy, which is
/// markedly faster here than `u64::arbitrary`.
/// The next `N` bytes of `u`, zero-padded at the end of the data.
#[inline]
fn next_bytes<const N: usize>(u: &mut Unstructured<'_>) -> [u8; N] {
    if u.len() >= N {
        if let Ok(Ok(a)) = u.bytes(N).map(<[u8; N]>::try_from) {
            return a;
        }
    }
    let mut a = [0u8; N];
    let n = u.len().min(N);
    if let (Ok(b), Some(dst)) = (u.bytes(n), a.get_mut(..n)) {
        dst.copy_from_slice(b);
    }
    a
}

/// A value in `lo..=hi` from `x` (multiply-shift range reduction: every
/// value reachable when the range is below 2^32).
#[inline]
fn in_range(x: u32, lo: i32, hi: i32) -> i32 {
    let span = (i64::from(hi) - i64::from(lo) + 1).max(1) as u64;
    (i64::from(lo) + ((u64::from(x) * span) >> 32) as i64) as i32
}

/// An index below `n` (1 to 256) from byte `k` of `r`: `(byte * n) >> 8`,
/// which reaches every index. One 16-byte draw per instruction feeds all
/// its choices: several times faster than a draw per choice.
#[inline]
fn sel(r: u128, k: u32, n: usize) -> usize {
    ((((r >> (8 * k)) & 0xff) as usize) * n) >> 8
}

/// Element `sel(r, k, len)` of a non-empty candidate list (0 if empty,
/// which the callers rule out: an opcode is usable only when its lists
/// are not).
#[inline]
fn pick(r: u128, k: u32, l: &List) -> u8 {
    // sel(..) < n <= 128: the mask only tells the compiler so.
    l.v[sel(r, k, l.n) & 127]
}

/// An immediate offset in `lo..=hi`, a multiple of `align` (1 or 4),
/// often at an edge or small (`kind` chooses), else from `x`; not 0 when
/// `nonzero`.
#[inline]
fn draw_imm(x: u32, kind: u8, (lo, hi): (i32, i32), align: i32, nonzero: bool) -> i32 {
    let m = !(align - 1);
    let lo_a = lo.saturating_add(align - 1) & m;
    let small = i32::from(kind >> 3);
    let any = (in_range(x, lo, hi) & m).max(lo_a);
    let neg = if lo < 0 { -(small + 1) * align } else { any };
    // A table rather than a match: `kind` is random, a branch on it would
    // mostly mispredict.
    let table = [
        lo_a,
        hi & m,
        small * align,
        small * align,
        neg,
        any,
        any,
        any,
    ];
    let v = table[usize::from(kind & 7)];
    if nonzero && v == 0 {
        align
    } else {
        v
    }
}

/// Draws a stream for `target` under `cfg`, naming every register the
/// processor has (special ones per `smem_special_registers`), with XNACK
/// soft clauses respected where the processor supports XNACK. Fails only
/// when the processor has no modelled SMEM family (GFX6, GFX7, r600).
pub fn arbitrary_stream(
    u: &mut Unstructured<'_>,
    cfg: &Config,
    target: &Target,
) -> arbitrary::Result<Stream> {
    let gen = SmemGen::for_target(target).ok_or(arbitrary::Error::IncorrectFormat)?;
    let regs = Registers::all(target, cfg.smem_special_registers);
    arbitrary_stream_with(u, cfg, gen, &regs, target.xnack)
}

/// Draws a stream of `gen` naming only `regs` (and `m0`), of
/// `cfg.smem_min_len..=cfg.smem_max_len` SMEM instructions (fewer only
/// when the configuration and registers allow no instruction at all).
/// `xnack`: keep the XNACK soft-clause rule.
pub fn arbitrary_stream_with(
    u: &mut Unstructured<'_>,
    cfg: &Config,
    gen: SmemGen,
    regs: &Registers,
    xnack: bool,
) -> arbitrary::Result<Stream> {
    let len = u.int_in_range(cfg.smem_min_len..=cfg.smem_max_len.max(cfg.smem_min_len))?;
    let pools = Pools::draw(u, gen, regs)?;
    // Classes are drawn first, then an opcode of the class: GFX9 and
    // gfx1010 have 52 atomics among 84 opcodes, which would otherwise
    // crowd out loads. The plans come in class order.
    let UsableOps { ops, classes } = usable_ops(gen, cfg, &pools);
    let wb = plans(gen)
        .iter()
        .find(|p| p.writeback && p.op.mnemonic == "s_dcache_wb");
    let mut wr = Writer {
        gen,
        xnack,
        waits: cfg.smem_waits,
        max_wait: max_wait(gen),
        pend0: 0,
        pend1: 0,
        clause: (0, 0),
        dirty: false,
        steps: Vec::with_capacity(2 * len),
        words: Vec::with_capacity(3 * len),
        touched: 0,
        smem: 0,
    };
    if ops.is_empty() {
        return Ok(wr.finish(&pools));
    }
    while wr.smem < len {
        // One 16-byte draw per instruction: bytes 0-6 and 12-15 choose the
        // instruction (see draw_instruction), 8 the opcode within the
        // class; byte 7 an extra wait (low 4 bits 0, count from byte 9)
        // and, with byte 10, the counts of needed waits.
        let r = u128::from_le_bytes(next_bytes(u));
        let top = (r >> 56) as u8;
        if cfg.smem_waits == SmemWaits::Random && top & 0xf == 0 {
            wr.wait(sel(r, 9, usize::from(wr.max_wait) + 1) as u8);
        }
        let (start, n) = classes
            .get(sel(r, 0, classes.len()))
            .copied()
            .unwrap_or((0, 1));
        let Some(&op) = ops.get(start + sel(r, 8, n)) else {
            break;
        };
        let (i, word, masks) = draw_instruction(r, gen, op, &pools);
        let p = op.u.plan;
        if p.discard && wr.dirty {
            // A discard after a store could drop its line: write back
            // first (s_dcache_wb exists wherever discards do).
            if let Some(wbp) = wb {
                let wbi = Instruction::new(gen, wbp.op, 0, 0, Offset::None);
                wr.emit(wbp, wbi, wbp.template, (0, 0), r);
            }
            if wr.smem >= len {
                break;
            }
        }
        wr.emit(p, i, word, masks, r);
    }
    Ok(wr.finish(&pools))
}

impl Writer {
    fn finish(self, pools: &Pools) -> Stream {
        Stream {
            gen: self.gen,
            steps: self.steps,
            words: self.words,
            address_registers: pools.address & !null_slots(self.gen),
            data_registers: self.touched & !pools.address,
            registers: self.touched,
            smem_count: self.smem,
        }
    }
}

/// Draws one instruction of `o`'s opcode from the choice bytes of `r`:
/// byte 1 the offset form, 2 the modifiers, 3 SDATA, 4 SBASE, 5 the
/// offset register, 6 the immediate's kind (and, for prefetches, `null`),
/// 12-15 an immediate anywhere in range. Returns it with its word, built
/// from the opcode's template.
#[inline]
fn draw_instruction(
    r: u128,
    gen: SmemGen,
    uo: Op<'_>,
    pools: &Pools,
) -> (Instruction, u64, (u128, u128)) {
    let o = uo.u;
    let p = o.plan;
    let op = p.op;
    let (mods, mod_bits) = o
        .mods
        .get(sel(r, 2, o.mods.len()))
        .copied()
        .unwrap_or_default();
    let glc = mods.glc;
    let offset = match o.offsets.get(sel(r, 1, o.n_offsets)).copied() {
        Some(OffsetForm::SgprImm) if p.scale_needs_imm && mods.scale_offset => OffsetForm::Imm,
        f => f.unwrap_or(OffsetForm::None),
    };
    // Operands from per-opcode candidate lists, without branching on the
    // class (the class changes at random from one instruction to the
    // next, so branches on it would mostly mispredict).
    let sdata = pick(r, 3, uo.sdata);
    let sbase = pick(r, 4, uo.sbase);
    let mut word = p.template | mod_bits | u64::from(sdata) << 6 | u64::from(sbase >> 1);
    let mut reads = at(p.base_m, sbase) | at(p.read_m, sdata);
    let writes = at(p.write_m[usize::from(glc)], sdata);
    let kind = (r >> 48) as u8;
    let x = (r >> 96) as u32;
    let (range, align) = (o.range, o.align);
    let imm_mask: u64 = if gen.is_gfx12() {
        (1 << 24) - 1
    } else {
        (1 << 21) - 1
    };
    let imm_bits = |v: i32| (u64::from(v as u32) & imm_mask) << 32;
    let reg_bits = |r: u8| u64::from(r) << 57;
    let rdna = gen.is_rdna();
    let null = gen.null();
    let offset = match offset {
        OffsetForm::None => Offset::None,
        // GFX10/GFX11: an immediate of 0 is the `null` SGPR form.
        OffsetForm::Imm => {
            let v = draw_imm(x, kind, range, align, o.nonzero);
            word |= imm_bits(v) | if rdna { reg_bits(null) } else { 1 << 17 };
            Offset::Imm(v)
        }
        // GFX10/GFX11 `null` is the same word as `Imm(0)`, which decodes
        // as this form.
        OffsetForm::Sgpr => {
            let reg = if o.m0_only {
                gen.m0()
            } else {
                pick(r, 5, &pools.offsets_null)
            };
            word |= if rdna {
                reg_bits(reg)
            } else {
                u64::from(reg) << 32
            };
            reads |= 1u128.wrapping_shl(u32::from(reg));
            Offset::Sgpr(reg)
        }
        OffsetForm::Soffset => {
            let reg = pick(r, 5, &pools.offsets);
            word |= (1 << 14) | reg_bits(reg);
            reads |= 1u128.wrapping_shl(u32::from(reg));
            Offset::Soffset(reg)
        }
        OffsetForm::SgprImm => {
            let (sgpr, imm) = if op.class.prefetch() {
                // `null` is the prefetch's "no SGPR", allowed whatever
                // `smem_special_registers` says; a quarter of the time.
                let reg = if !o.sgpr_offsets || kind >> 6 == 0 {
                    null
                } else {
                    pick(r, 5, &pools.offsets)
                };
                (reg, draw_imm(x, kind & 0x3f, range, align, false))
            } else {
                // GFX10/GFX11: immediate 0 would be the SGPR form; `null`
                // (GFX10 and later) would be the immediate form.
                (
                    pick(r, 5, &pools.offsets),
                    draw_imm(x, kind, range, align, o.nonzero),
                )
            };
            word |= imm_bits(imm) | reg_bits(sgpr) | if rdna { 0 } else { (1 << 17) | (1 << 14) };
            reads |= 1u128.wrapping_shl(u32::from(sgpr));
            Offset::SgprImm { sgpr, imm }
        }
    };
    let i = mods.apply(Instruction::new(gen, op, sdata, sbase, offset));
    let live = !null_slots(gen);
    (i, word, (reads & live, writes & live))
}

/// Draws the SMEM stream of a kernel on `tc` whose descriptor is `d`, if
/// `cfg` asks for streams and the processor has SMEM: the stream names at
/// most the SGPRs the descriptor may allocate (`vcc` only if reserved,
/// `flat_scratch` and `xnack_mask` only if counted), and `d`'s
/// `.amdhsa_next_free_sgpr` is raised to cover the highest SGPR it names.
/// `None` for no stream (the kernel stays a lone `s_endpgm`).
pub fn arbitrary_kernel_stream(
    u: &mut Unstructured<'_>,
    cfg: &Config,
    tc: &TargetChoice,
    d: &mut DescriptorSpec,
) -> arbitrary::Result<Option<Stream>> {
    let t = tc.target();
    let Some(gen) = SmemGen::for_target(t) else {
        return Ok(None);
    };
    if !cfg.smem_streams {
        return Ok(None);
    }
    let extra = d.extra_sgprs(tc);
    let limit = kd::max_next_free_sgpr(t, extra)
        .min(cfg.max_next_free_sgpr)
        .max(d.next_free_sgpr);
    let budget = if u.arbitrary::<bool>()? {
        d.next_free_sgpr
    } else {
        limit
    };
    let special = cfg.smem_special_registers;
    let pre_rdna = !gen.is_rdna();
    let flat_scratch_counted = d.reserve_flat_scratch || !kd::has_reserve_flat_scratch(t);
    let regs = Registers {
        sgprs: budget.min(106) as u8,
        vcc: special && d.reserve_vcc,
        flat_scratch: special && pre_rdna && flat_scratch_counted,
        xnack_mask: special && t.has_xnack_mask_sgprs() && tc.xnack_enabled(),
        trap: special,
        exec: special,
        null: special && !pre_rdna,
    };
    let s = arbitrary_stream_with(u, cfg, gen, &regs, t.xnack)?;
    if s.smem_count == 0 {
        return Ok(None);
    }
    if let Some(top) = s.max_sgpr() {
        d.next_free_sgpr = d.next_free_sgpr.max(u16::from(top) + 1);
    }
    Ok(Some(s))
}

// Constrained streams: what a hardware probe can run and the executor
// predict (`crate::probe::smem`).

/// Where a constrained stream's accesses may land and which registers it
/// may name: the harness of an SMEM probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Harness {
    /// The stream names `s0..s{sgprs-1}` and `m0` only: a multiple of 4
    /// from 32 to 96 (100 from GFX10); the probe keeps the four SGPRs
    /// above for itself.
    pub sgprs: u8,
    /// Bytes at the data region's start that loads and stores use (a
    /// multiple of 64, at least 256).
    pub cached_bytes: u32,
    /// Bytes after them that atomics use (a multiple of 64; 0 for no
    /// atomics). Both regions together are at most [`MAX_REGION_BYTES`].
    pub atomic_bytes: u32,
    /// SMEM instructions, at least.
    pub min_len: usize,
    /// SMEM instructions, at most.
    pub max_len: usize,
    /// How waits are drawn.
    pub waits: SmemWaits,
    /// Keep the XNACK soft-clause rule (processors that support XNACK).
    pub xnack: bool,
}

impl Harness {
    /// The SMEM probe's harness on `target`: 64 stream SGPRs, 512 bytes
    /// for loads and stores, 256 for atomics, 1 to 24 instructions, waits
    /// drawn at random.
    pub fn for_target(target: &Target) -> Harness {
        Harness {
            sgprs: 64,
            cached_bytes: 512,
            atomic_bytes: 256,
            min_len: 1,
            max_len: 24,
            waits: SmemWaits::Random,
            xnack: target.xnack,
        }
    }
}

/// The largest data region a [`Harness`] may ask for: 1 MiB, so that no
/// offset sum overflows (immediates are also kept within each family's
/// range).
pub const MAX_REGION_BYTES: u64 = 1 << 20;

/// A constrained stream with the initial registers it assumes.
///
/// Every access lands in the data region: loads and stores (through base
/// pairs or buffer resources) in its first [`Harness::cached_bytes`],
/// atomics in the [`Harness::atomic_bytes`] after them, which nothing else
/// touches (atomics bypass the scalar cache, so a cached load of an atomic
/// result could be stale). Its instructions are loads, stores, atomics and
/// `s_get_waveid_in_workgroup` only: no time counters, cache operations,
/// probes, prefetches or scratch accesses, and no special registers but
/// `m0` (read as an offset, set by the prologue). Loads and stores carry no
/// cache-policy modifiers (a GLC load may read past a cache that holds stores
/// not yet written back); atomics take GLC or not. Immediate offsets are
/// never negative; a 64-bit atomic's address is a multiple of 8.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Constrained {
    /// The stream ([`Stream::address_registers`] includes `m0`).
    pub stream: Stream,
    /// Every register the stream may name, with its initial value: base
    /// pairs and resources as addresses in the data region, offsets as
    /// small multiples of 8, everything else
    /// [`contract::sgpr_pattern`].
    pub init: Vec<Init>,
    /// The stream has scalar stores (the probe writes the cache back).
    pub stores: bool,
    /// The harness it was drawn for.
    pub harness: Harness,
}

/// A base a constrained stream may use: its first register, and the
/// window of the data region its accesses stay in.
#[derive(Debug, Clone, Copy)]
struct Window {
    reg: u8,
    buffer: bool,
    atomic: bool,
    /// Offset of the base in the data region.
    start: u32,
    /// Bytes from the base to the window's end.
    len: u32,
}

/// The fourth dword of the buffer resources a constrained stream uses:
/// a raw 32-bit buffer as Mesa's radeonsi and radv write it (DST_SEL
/// X, Y, Z, W; format 32 float; from GFX10 raw out-of-bounds checking,
/// and on GFX10 RESOURCE_LEVEL 1). Scalar buffer loads read no format;
/// the value only keeps the resource one a driver would write.
pub fn constrained_srd_dword3(gen: SmemGen) -> u32 {
    // DST_SEL_X/Y/Z/W = SQ_SEL_X/Y/Z/W (4, 5, 6, 7) at bits 11:0.
    let dst_sel = 4 | 5 << 3 | 6 << 6 | 7 << 9;
    match gen {
        // NUM_FORMAT float (7) at 14:12, DATA_FORMAT 32 (4) at 18:15.
        SmemGen::Gfx8 | SmemGen::Gfx9 => dst_sel | 7 << 12 | 4 << 15,
        // FORMAT 32_FLOAT (22) at 18:12, RESOURCE_LEVEL at 24,
        // OOB_SELECT raw (3) at 29:28.
        SmemGen::Gfx10_1 | SmemGen::Gfx10_3 => dst_sel | 22 << 12 | 1 << 24 | 3 << 28,
        // GFX12.5: assumed as GFX12 (no GFX12.5 driver source at hand);
        // only the hardware replay's probes use the value.
        SmemGen::Gfx11 | SmemGen::Gfx12 | SmemGen::Gfx12_5 => dst_sel | 22 << 12 | 3 << 28,
    }
}

/// True for the classes a constrained stream draws from.
fn constrained_class(c: Class) -> bool {
    matches!(
        c,
        Class::Load
            | Class::BufferLoad
            | Class::Store
            | Class::BufferStore
            | Class::Atomic
            | Class::BufferAtomic
            | Class::WaveId
    )
}

/// Bytes an instruction of `op` accesses and the alignment its address
/// keeps (0 bytes for no access).
fn access_size(op: &OpInfo) -> (u32, u32) {
    match exec::semantics(op) {
        Some(Semantics::Load { ext, .. }) => {
            let n = ext.bytes(op.width);
            (n, n.min(4))
        }
        Some(Semantics::Store { .. }) => (4 * u32::from(op.width), 4),
        Some(Semantics::Atomic { wide, .. }) => {
            let n = if wide { 8 } else { 4 };
            (n, n)
        }
        _ => (0, 1),
    }
}

/// Draws a constrained stream of `gen` for `h` (see [`Constrained`]).
/// Fails only when `h` leaves no room (too few SGPRs or too small a
/// cached region).
pub fn arbitrary_constrained_stream(
    u: &mut Unstructured<'_>,
    gen: SmemGen,
    h: &Harness,
) -> arbitrary::Result<Constrained> {
    // Four SGPRs above the stream's are the probe's: s101 (GFX8/GFX9) or
    // s105 is the last plain SGPR.
    let top = if gen.is_rdna() { 100 } else { 96 };
    let lines = |b: u32| b.is_multiple_of(contract::REGION_GRANULE);
    if h.sgprs < 32
        || !h.sgprs.is_multiple_of(4)
        || h.sgprs > top
        || h.cached_bytes < 256
        || !lines(h.cached_bytes)
        || !lines(h.atomic_bytes)
        || u64::from(h.cached_bytes) + u64::from(h.atomic_bytes) > MAX_REGION_BYTES
    {
        return Err(arbitrary::Error::IncorrectFormat);
    }
    let len = u.int_in_range(h.min_len..=h.max_len.max(h.min_len))?;
    let has_atomics = h.atomic_bytes >= 64
        && gen
            .table()
            .iter()
            .any(|o| matches!(o.class, Class::Atomic | Class::BufferAtomic));
    // Address registers: 2 to 4 blocks of four at the start or the end,
    // each two base pairs, a buffer resource, or four offset registers;
    // the first block holds pairs, so loads always have a base.
    let blocks = h.sgprs / 4;
    let n_addr = u.int_in_range(2..=4u8)?;
    let first = if u.arbitrary::<bool>()? {
        0
    } else {
        blocks - n_addr
    };
    let mut windows: Vec<Window> = Vec::new();
    let mut offsets: Vec<(u8, u32)> = Vec::new();
    let mut init: Vec<Init> = Vec::new();
    let mut window = |u: &mut Unstructured<'_>, reg: u8, buffer: bool, cached_only: bool| {
        let atomic = has_atomics && !cached_only && u.arbitrary::<bool>()?;
        let (region, size) = if atomic {
            (h.cached_bytes, h.atomic_bytes)
        } else {
            (0, h.cached_bytes)
        };
        // A multiple of 8 in the region's first half: room for any access.
        let start = 8 * u.int_in_range(0..=size / 16)?;
        let w = Window {
            reg,
            buffer,
            atomic,
            start: region + start,
            len: size - start,
        };
        windows.push(w);
        arbitrary::Result::Ok(w)
    };
    let mut address = 0u128;
    for b in first..first + n_addr {
        let reg = 4 * b;
        address |= reg_mask(reg, 4);
        let kind = if b == first {
            0
        } else {
            u.int_in_range(0..=2u8)?
        };
        match kind {
            0 => {
                for k in [0, 2] {
                    let w = window(u, reg + k, false, b == first && k == 0)?;
                    init.push(Init {
                        reg: reg + k,
                        value: Value::DataLo(w.start),
                    });
                    init.push(Init {
                        reg: reg + k + 1,
                        value: Value::DataHi(w.start),
                    });
                }
            }
            1 => {
                let w = window(u, reg, true, false)?;
                init.extend([
                    Init {
                        reg,
                        value: Value::DataLo(w.start),
                    },
                    Init {
                        reg: reg + 1,
                        value: Value::DataHi(w.start),
                    },
                    Init {
                        reg: reg + 2,
                        value: Value::Const(w.len),
                    },
                    Init {
                        reg: reg + 3,
                        value: Value::Const(constrained_srd_dword3(gen)),
                    },
                ]);
            }
            _ => {
                for k in 0..4 {
                    let v = 8 * u.int_in_range(0..=15u32)?;
                    offsets.push((reg + k, v));
                    init.push(Init {
                        reg: reg + k,
                        value: Value::Const(v),
                    });
                }
            }
        }
    }
    let data = reg_mask(0, h.sgprs) & !address;
    for r in 0..h.sgprs {
        if data >> r & 1 == 1 {
            init.push(Init {
                reg: r,
                value: Value::Const(contract::sgpr_pattern(r)),
            });
        }
    }
    init.sort_by_key(|i| i.reg);
    let m0 = gen.m0();
    let m0_value = 8 * u.int_in_range(0..=15u32)?;
    offsets.push((m0, m0_value));
    init.push(Init {
        reg: m0,
        value: Value::Const(m0_value),
    });
    address |= 1u128 << m0;

    let valid = validity(gen);
    let tuples: [List; 6] =
        std::array::from_fn(|k| List::of(valid.sdata[k] & starts(data, WIDTHS[k])));
    // Usable opcodes in class order, with the runs of each class.
    let mut ops: Vec<(&'static OpPlan, &List, Vec<Window>, Vec<ModSet>)> = Vec::new();
    let mut classes: Vec<(usize, usize)> = Vec::new();
    for p in plans(gen) {
        let c = p.op.class;
        if !constrained_class(c) {
            continue;
        }
        let Some(k) = WIDTHS.iter().position(|&w| w == p.op.width.max(1)) else {
            continue;
        };
        let sdata = &tuples[k];
        let atomic = matches!(c, Class::Atomic | Class::BufferAtomic);
        let bases: Vec<Window> = windows
            .iter()
            .copied()
            .filter(|w| w.buffer == c.buffer_base() && w.atomic == atomic)
            .collect();
        if sdata.is_empty() || (c.has_sbase() && bases.is_empty()) {
            continue;
        }
        let mods: Vec<ModSet> = if atomic {
            p.mods.iter().copied().filter(|m| !m.0.dlc).collect()
        } else {
            p.mods.iter().take(1).copied().collect()
        };
        match classes.last_mut() {
            Some((s, n)) if ops.get(*s).is_some_and(|o| o.0.op.class == c) => *n += 1,
            _ => classes.push((ops.len(), 1)),
        }
        ops.push((p, sdata, bases, mods));
    }
    let mut wr = Writer {
        gen,
        xnack: h.xnack,
        waits: h.waits,
        max_wait: max_wait(gen),
        pend0: 0,
        pend1: 0,
        clause: (0, 0),
        dirty: false,
        steps: Vec::with_capacity(2 * len),
        words: Vec::with_capacity(3 * len),
        touched: 0,
        smem: 0,
    };
    let mut stores = false;
    let live = !null_slots(gen);
    let nonzero = matches!(gen, SmemGen::Gfx10_1 | SmemGen::Gfx10_3 | SmemGen::Gfx11);
    // Each draw yields an instruction (every window has room for every
    // access); the bound only guards against a harness that has none.
    let mut tries = 0;
    while wr.smem < len && !ops.is_empty() && tries < 4 * len + 16 {
        tries += 1;
        let r = u128::from_le_bytes(next_bytes(u));
        if h.waits == SmemWaits::Random && (r >> 56) as u8 & 0xf == 0 {
            wr.wait(sel(r, 9, usize::from(wr.max_wait) + 1) as u8);
        }
        let (start, n) = classes
            .get(sel(r, 0, classes.len()))
            .copied()
            .unwrap_or((0, 1));
        let Some((p, sdata_list, bases, mods)) = ops.get(start + sel(r, 8, n)) else {
            break;
        };
        let p: &OpPlan = p;
        let c = p.op.class;
        let (m, _) = mods.get(sel(r, 2, mods.len())).copied().unwrap_or_default();
        let glc = m.glc;
        let sdata = pick(r, 3, sdata_list);
        let (size, align) = access_size(p.op);
        let base = if c.has_sbase() {
            bases.get(sel(r, 4, bases.len())).copied()
        } else {
            None
        };
        let sbase = base.map_or(0, |w| w.reg);
        let room = base.map_or(0, |w| w.len).saturating_sub(size);
        let (_, imm_hi) = gen.offset_range(c);
        let imm_hi = (imm_hi.max(0) as u32).min(room);
        let lo = if nonzero { align } else { 0 };
        let x = (r >> 96) as u32;
        let imm = |hi: u32| -> Option<i32> {
            (lo <= hi).then(|| {
                let v = in_range(x, lo as i32, hi as i32) as u32;
                (v / align * align).max(lo) as i32
            })
        };
        // Offset registers whose value leaves room (GFX8 stores: m0 only).
        let m0_only = gen == SmemGen::Gfx8 && matches!(c, Class::Store | Class::BufferStore);
        let regs: Vec<(u8, u32)> = offsets
            .iter()
            .copied()
            .filter(|&(reg, v)| (!m0_only || reg == m0) && v <= room)
            .collect();
        let forms: Vec<OffsetForm> = forms::offset_forms(gen, c)
            .iter()
            .copied()
            .filter(|f| match f {
                OffsetForm::None => true,
                OffsetForm::Imm => imm(imm_hi).is_some(),
                OffsetForm::Sgpr => !regs.is_empty(),
                OffsetForm::SgprImm => regs
                    .iter()
                    .any(|&(_, v)| imm((room - v).min(imm_hi)).is_some()),
                OffsetForm::Soffset => false,
            })
            .collect();
        let Some(&form) = forms.get(sel(r, 1, forms.len())) else {
            continue;
        };
        let (oreg, oval) = regs
            .get(sel(r, 5, regs.len()))
            .copied()
            .unwrap_or((m0, m0_value));
        let offset = match form {
            OffsetForm::Imm => imm(imm_hi).map(Offset::Imm),
            OffsetForm::Sgpr => Some(Offset::Sgpr(oreg)),
            OffsetForm::SgprImm => {
                // A register with room for the smallest immediate.
                let fits: Vec<(u8, u32)> = regs
                    .iter()
                    .copied()
                    .filter(|&(_, v)| imm((room - v).min(imm_hi)).is_some())
                    .collect();
                let (reg, v) = fits
                    .get(sel(r, 5, fits.len()))
                    .copied()
                    .unwrap_or((oreg, oval));
                imm((room - v.min(room)).min(imm_hi)).map(|i| Offset::SgprImm { sgpr: reg, imm: i })
            }
            OffsetForm::None | OffsetForm::Soffset => Some(Offset::None),
        };
        let Some(offset) = offset else { continue };
        let i = m.apply(Instruction::new(gen, p.op, sdata, sbase, offset));
        let Ok(word) = smem::encode(&i) else { continue };
        let mut reads = at(p.base_m, sbase) | at(p.read_m, sdata);
        if let Offset::Sgpr(reg) | Offset::SgprImm { sgpr: reg, .. } = offset {
            reads |= 1u128 << reg;
        }
        let writes = at(p.write_m[usize::from(glc)], sdata);
        stores |= p.store;
        wr.emit(p, i, word, (reads & live, writes & live), r);
    }
    let stream = Stream {
        gen,
        address_registers: address,
        data_registers: wr.touched & !address,
        registers: wr.touched,
        smem_count: wr.smem,
        steps: wr.steps,
        words: wr.words,
    };
    Ok(Constrained {
        stream,
        init,
        stores,
        harness: *h,
    })
}

#[cfg(test)]
mod constrained_tests {
    use super::*;
    use hsaco_oracle::smem::exec::Machine;
    use proptest::prelude::*;

    /// Where the data region is in these tests: 256-byte aligned, high
    /// enough that an address computed from a wrong register shows.
    const DATA: u64 = 0x0000_7ff3_2100_0000;

    /// The bytes instruction `i` accesses, computed independently of the
    /// executor from the register file before it runs: `(first, bytes)`,
    /// or `None` for no access, or `Err` for an access the buffer's range
    /// check would drop.
    fn access(m: &Machine, i: &Instruction) -> Result<Option<(u64, u64)>, String> {
        let (size, _) = access_size(i.op);
        if size == 0 {
            return Ok(None);
        }
        let (imm, reg) = match i.offset {
            Offset::None => (0, None),
            Offset::Imm(v) => (v, None),
            Offset::Sgpr(r) | Offset::Soffset(r) => (0, Some(r)),
            Offset::SgprImm { sgpr, imm } => (imm, Some(sgpr)),
        };
        if imm < 0 {
            return Err(format!("{i}: negative immediate"));
        }
        let off = u64::from(imm as u32) + reg.map_or(0, |r| u64::from(m.sgpr(r)));
        let lo = u64::from(m.sgpr(i.sbase));
        let hi = u64::from(m.sgpr(i.sbase + 1));
        if i.op.class.buffer_base() {
            let base = lo | (hi & 0xffff) << 32;
            let records = u64::from(m.sgpr(i.sbase + 2));
            if hi >> 16 != 0 {
                return Err(format!("{i}: resource stride or high bits set"));
            }
            if off + u64::from(size) > records {
                return Err(format!("{i}: offset {off} + {size} past {records} records"));
            }
            Ok(Some((base + off, u64::from(size))))
        } else {
            Ok(Some(((lo | hi << 32) + off, u64::from(size))))
        }
    }

    fn check(gen: SmemGen, bytes: &[u8]) -> Result<(), TestCaseError> {
        let t = hsaco_oracle::targets::TARGETS
            .iter()
            .find(|t| SmemGen::for_target(t) == Some(gen))
            .expect("a processor of the family");
        let h = Harness::for_target(t);
        let mut u = Unstructured::new(bytes);
        let Ok(c) = arbitrary_constrained_stream(&mut u, gen, &h) else {
            return Ok(());
        };
        prop_assert!(c.stream.smem_count >= h.min_len.min(1));
        let mut m = Machine::new(gen);
        m.xnack = h.xnack;
        for i in &c.init {
            m.set_sgpr(i.reg, i.value.resolve(DATA));
        }
        let cached = DATA..DATA + u64::from(h.cached_bytes);
        let atomic = cached.end..cached.end + u64::from(h.atomic_bytes);
        let mut k = 0;
        for s in &c.stream.steps {
            if let Step::Smem(i) = s {
                // Each word is the canonical encoding of the instruction.
                let w = u64::from(c.stream.words[k]) | u64::from(c.stream.words[k + 1]) << 32;
                k += 2;
                let d = smem::decode(gen, w);
                prop_assert_eq!(d.verdict, smem::Verdict::Valid, "{}", i);
                prop_assert_eq!(d.instruction.as_ref(), Some(i));
                prop_assert!(assemblable(i, t), "{}", i);
                let a = access(&m, i).map_err(TestCaseError::fail)?;
                if let Some((first, n)) = a {
                    let is_atomic = matches!(i.op.class, Class::Atomic | Class::BufferAtomic);
                    let region = if is_atomic { &atomic } else { &cached };
                    prop_assert!(
                        region.start <= first && first + n <= region.end,
                        "{} accesses {:#x}+{} outside {:#x?}",
                        i,
                        first,
                        n,
                        region
                    );
                    if is_atomic && n == 8 {
                        prop_assert_eq!(first % 8, 0, "{}", i);
                    }
                }
            } else {
                k += 1;
            }
            m.step(s);
        }
        prop_assert_eq!(k, c.stream.words.len());
        m.step(&Step::WaitLgkm(0));
        prop_assert!(m.accepted(), "{:?}", m.violations());
        // Stores and atomics wrote inside the region only.
        for (a, _) in m.memory.written_bytes() {
            prop_assert!(cached.start <= a && a < atomic.end, "wrote {:#x}", a);
        }
        // Only plain SGPRs below the harness's and m0 are named.
        let allowed = reg_mask(0, h.sgprs) | 1u128 << gen.m0();
        prop_assert_eq!(c.stream.registers & !allowed, 0);
        prop_assert_eq!(c.stream.data_registers & c.stream.address_registers, 0);
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Every access of a constrained stream lands inside its part of
        /// the data region, every word is canonical and assemblable, and
        /// the executor runs the stream without a violation.
        #[test]
        fn constrained_accesses_stay_in_the_region(
            g in 0usize..6,
            bytes in proptest::collection::vec(any::<u8>(), 0..2048),
        ) {
            check(SmemGen::ALL[g], &bytes)?;
        }
    }

    #[test]
    fn srd_dword3_is_mesas() {
        assert_eq!(constrained_srd_dword3(SmemGen::Gfx9), 0x0002_7fac);
        assert_eq!(constrained_srd_dword3(SmemGen::Gfx10_3), 0x3101_6fac);
        assert_eq!(constrained_srd_dword3(SmemGen::Gfx12), 0x3001_6fac);
    }

    /// Constrained streams of every family use every class they may: a
    /// sample of seeds finds loads, buffer loads and (where the family
    /// has them) stores and atomics.
    #[test]
    fn constrained_streams_cover_their_classes() {
        for gen in SmemGen::ALL {
            let t = hsaco_oracle::targets::TARGETS
                .iter()
                .find(|t| SmemGen::for_target(t) == Some(gen))
                .expect("a processor of the family");
            let h = Harness::for_target(t);
            let mut seen = std::collections::BTreeSet::new();
            for seed in 0..64 {
                let bytes = crate::seed::bytes(seed, "test", 0, 4096);
                let c = arbitrary_constrained_stream(&mut Unstructured::new(&bytes), gen, &h)
                    .expect("a stream");
                seen.extend(c.stream.instructions().map(|i| format!("{:?}", i.op.class)));
            }
            let want: Vec<&str> = [
                "Load",
                "BufferLoad",
                "Store",
                "BufferStore",
                "Atomic",
                "BufferAtomic",
            ]
            .into_iter()
            .filter(|c| gen.table().iter().any(|o| format!("{:?}", o.class) == *c))
            .collect();
            for c in want {
                assert!(seen.contains(c), "{gen:?}: no {c} in 64 streams: {seen:?}");
            }
        }
    }
}
