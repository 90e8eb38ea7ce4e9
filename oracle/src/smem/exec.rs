//! Semantics of SMEM instruction streams: the model the hardware replay
//! compares against.
//!
//! A [`Machine`] holds the scalar register file of one wave (the 128 slots
//! the 7-bit operand fields index), a sparse byte-addressed [`Memory`], the
//! LGKM bookkeeping, two opaque time counters and a few documented inputs
//! (wave id, XNACK). [`Machine::step`] executes one [`Step`]: an SMEM
//! [`Instruction`] exactly as the seed's pseudocode defines it
//! (`gcn-smem-instructions.md`), an `s_waitcnt lgkmcnt(N)` (GFX12:
//! `s_wait_kmcnt N`), or a stand-in for a non-SMEM instruction that reads or
//! writes SGPRs. Each broken stream constraint is recorded as a
//! [`StreamViolation`] naming its rule (see [`RULES`]) and the step index;
//! the replay compares only streams without violations.
//!
//! Decisions, with their sources (errata in `docs/errata-exec.md`):
//!
//! - **Addresses.** `S_LOAD`/`S_STORE`/`S_ATOMIC`: SBASE pair as a 64-bit
//!   address plus the immediate (signed on GFX9+) plus the SGPR offset
//!   (unsigned), wrapping modulo 2^64. The seed writes
//!   `SMEM + (OFFSET & ~3)`; the model ignores the two low bits of every
//!   component (base, immediate, SGPR) of a dword access, as LLVM's GFX7
//!   operand docs and AMD's ISA guides state for offsets, and reports any
//!   such bit as `smem.address.unaligned` because generations differ in
//!   how they combine them. GFX12 sub-dword loads are byte-exact.
//! - **Scratch** (`S_SCRATCH_*`, seed): SBASE pair + immediate +
//!   64 × SGPR offset, low bits cleared per component; an immediate-only
//!   form has SGPR offset 0.
//! - **Scaled offsets** (GFX12.5 `scale_offset`, non-buffer loads): the
//!   SGPR offset is multiplied by the access size in bytes (2 for
//!   `s_load_i16`/`u16`, 4 × the dwords otherwise, 12 for `s_load_b96`),
//!   as a 64-bit value, before it is added. Source: LLVM 22's instruction
//!   selection (PR 150078, "Select scale_offset with SMEM instructions":
//!   the offset must be a multiple of the load's byte size); `llc-22
//!   -mcpu=gfx1250` selects `sN offset:0x0 scale_offset` for `p[i]` with
//!   `i` a zero-extended 32-bit index for 2-, 4-, 8-, 12-, 16-, 32- and
//!   64-byte loads, and not for a sign-extended index or an element size
//!   other than the access size (docs/errata.md SMEM 19). LLVM never
//!   selects it for byte loads (`s_load_i8`/`u8`) and no source says what
//!   the hardware does there: such a load with a nonzero SGPR offset is
//!   outside the model (`smem.scale_offset.byte_load`, destination
//!   opaque), never predicted. `nv` (GFX12.5) is a cache hint, like
//!   th/scope, and changes no result.
//! - **Buffers** (`S_BUFFER_*`): base = resource dwords 0–1 bits 47:0,
//!   range limit = dword 2 (NUM_RECORDS) as a byte count. The seed defines
//!   no range check; the model makes each unit (dword, or the sub-dword
//!   size) in range iff `offset + its position + its size <= NUM_RECORDS`.
//!   Out-of-range loads return 0, out-of-range stores are dropped, and
//!   out-of-range atomics leave memory unchanged and return 0. The stride
//!   (dword 1 bits 29:16) is ignored and reported when not 0.
//! - **Atomics** (seed pseudocode): GLC returns the pre-op value into
//!   SDATA, otherwise SDATA keeps its value. `cmpswap` takes the new value
//!   in the low half of SDATA and the compare value in the high half, and
//!   returns one datum (SDATA\[0\], or SDATA\[0:1\] for `_x2`); the compare
//!   half keeps its value but counts as written for the LGKM rules (LLVM
//!   ties the whole tuple as the destination, SMInstructions.td).
//! - **LGKM** (seed introduction): on GFX8/GFX9 an SMEM instruction adds 1,
//!   or 2 when it returns two or more dwords; results return out of order,
//!   so after `s_waitcnt lgkmcnt(N)` an instruction is complete only if its
//!   own increment exceeds N (any other subset could be the one still
//!   outstanding). `s_memtime`/`s_memrealtime` need `lgkmcnt(0)` (seed
//!   S_MEMTIME). GFX10+ are not covered by the seed; the model counts 1 per
//!   instruction there, so only a wait for 0 completes anything (LLVM's
//!   SIInsertWaitcnts.cpp trusts nothing but 0 while SMEM is pending).
//!   Results are written at issue; reading or overwriting a register that
//!   is still pending is a violation, so no stream without violations can
//!   observe the difference.
//! - **Memory** is coherent and immediate: a store is visible to the next
//!   load. Cache operations, probes and prefetches change no architectural
//!   state; `S_DCACHE_DISCARD*` reports (and otherwise ignores) discarding a
//!   line that holds stores not yet written back.
//! - **Never-written bytes** read as 0 and are listed in
//!   [`Machine::uninitialized_reads`].
//! - **Time counters** are opaque: `s_memtime` returns [`Machine::memtime`]
//!   and `s_memrealtime` [`Machine::memrealtime`]; both advance by 1 on
//!   every step, so they are monotonic and deterministic. Registers holding
//!   them are flagged ([`Machine::opaque_mask`]) for the comparator.
//! - **Registers.** `null` reads 0 and ignores writes (so does slot 125 on
//!   GFX8/GFX9, which has no register); every other slot is plain storage.
//!   Operands that run past slot 127 (only in invalid instructions) read 0
//!   and drop writes.
//!
//! Memory use is bounded by the stream: each step allocates at most two
//! 64-byte lines and one bookkeeping entry.

use std::collections::{BTreeMap, BTreeSet};

use super::table::Ext;
use super::{encode, Class, Instruction, Offset, OpInfo, SmemGen};
use crate::rules::{Rule, Sink};

/// Stream violations and uninitialised reads a [`Machine`] records (a
/// stream breaking constraints at every step says no more after this).
pub const MAX_VIOLATIONS: usize = 1000;

crate::declare_rules! {
    LGKM_READ_BEFORE_WAIT = (Error, "smem.lgkm.read_before_wait",
        "An instruction reads an SGPR that an earlier SMEM instruction writes only after an s_waitcnt lgkmcnt (GFX12: s_wait_kmcnt) that covers it: results return out of order, so a wait for N covers an instruction only if its own increment exceeds N (GFX8/GFX9: 1, or 2 when it returns two or more dwords; s_memtime/s_memrealtime and GFX10+: only N = 0).",
        "gcn-smem-instructions.md: introduction (out-of-order return, LGKM_CNT increments), S_MEMTIME; SIInsertWaitcnts.cpp (counterOutOfOrder)");
    LGKM_WRITE_BEFORE_WAIT = (Error, "smem.lgkm.write_before_wait",
        "An instruction writes an SGPR that an earlier SMEM instruction may still be writing (no covering s_waitcnt lgkmcnt in between); with out-of-order return the final value is undefined.",
        "gcn-smem-instructions.md: introduction (out-of-order return); SIInsertWaitcnts.cpp (generateWaitcntInstBefore waits on SGPR defs as well as uses)");
    GFX8_STORE_OFFSET = (Warning, "smem.gfx8.store_offset_register",
        "On GFX8, S_STORE_* and S_BUFFER_STORE_* take only M0 or an immediate as offset. llvm-mc-19 also assembles other SGPRs there (SMInstructions.td carries a TODO to forbid them), so this is a warning.",
        "gcn-smem-instructions.md: introduction, S_STORE_DWORD, S_BUFFER_STORE_DWORD; SMInstructions.td (SMEM_Real_vi TODO)");
    BUFFER_RESOURCE_HAZARD = (Warning, "smem.buffer.resource_hazard",
        "On GFX8/GFX9 at least one instruction separates a write of a buffer resource's third dword (SBASE+2, NUM_RECORDS) from an S_BUFFER_* instruction that reads the resource. LLVM enforces a related hazard only on GFX6 (any resource SGPR written by SALU, 4 wait states), so this is a warning.",
        "gcn-smem-instructions.md: introduction (NOTE on the third dword of the buffer resource); GCNHazardRecognizer.cpp (checkSMRDHazards)");
    NEGATIVE_OFFSET = (Warning, "smem.offset.negative",
        "On GFX9 and later, a non-buffer load, store or atomic whose immediate offset is negative is undefined when the immediate plus the SGPR offset (zero without one) is negative. llvm-mc-19 assembles such immediates; LLVM's code generator avoids them.",
        "AMDGPUBaseInfo.cpp (getSMRDEncodedOffset); AMDGPUISelDAGToDAG.cpp (isSOffsetLegalWithImmOffset)");
    XNACK_CLAUSE_OVERLAP = (Warning, "smem.xnack.clause_overlap",
        "With XNACK enabled, no instruction of an SMEM soft clause (consecutive SMEM instructions) writes an SGPR that an instruction of the clause, itself included, reads: the clause may be replayed after a page fault.",
        "GCNHazardRecognizer.cpp (checkSoftClauseHazards)");
    DISCARD_DIRTY = (Warning, "smem.discard.dirty",
        "S_DCACHE_DISCARD* drops dirty scalar cache lines: discarding a 64-byte line that a scalar store wrote since the last S_DCACHE_WB* leaves that memory undefined (the model keeps the stored bytes).",
        "gcn-smem-instructions.md: S_DCACHE_DISCARD, S_DCACHE_DISCARD_X2");
    ADDRESS_UNALIGNED = (Warning, "smem.address.unaligned",
        "A dword SMEM access has an address component (base, immediate, SGPR offset, buffer base) with one of its two low bits set. The hardware ignores them; the model clears them in each component, whereas the seed clears them in the offset only and later generations combine components differently.",
        "gcn-smem-instructions.md: S_LOAD_DWORD (OFFSET & ~3); llvm/docs/AMDGPU/gfx7_soffset.rst (2 lsb's are ignored)");
    BUFFER_STRIDE = (Warning, "smem.buffer.stride",
        "The model range-checks S_BUFFER_* accesses against NUM_RECORDS as a byte count and ignores the stride; a resource with a nonzero stride (dword 1 bits 29:16) is outside the model.",
        "gcn-smem-instructions.md: S_BUFFER_LOAD_DWORD (no range check defined)");
    SCALE_OFFSET_BYTE_LOAD = (Warning, "smem.scale_offset.byte_load",
        "A GFX12.5 byte load (s_load_i8, s_load_u8) with scale_offset and a nonzero SGPR offset is outside the model: LLVM scales the SGPR offset by the access size but never selects scale_offset for byte loads, and no source says how the hardware scales them, so the stream is not predicted.",
        "PR llvm/llvm-project#150078 (Select scale_offset with SMEM instructions); llc-22 -mcpu=gfx1250; docs/errata.md SMEM 19");
    INVALID_INSTRUCTION = (Error, "smem.exec.invalid_instruction",
        "Every executed SMEM instruction is a valid instruction of the machine's generation: its opcode is in that generation's table and its operands are in their register classes (an SMEM write to M0 or EXEC can hang the GPU).",
        "SMInstructions.td (SReg_32_XM0_XEXEC destinations); smem/mod.rs encode");
}

/// Number of scalar register slots: every value of a 7-bit operand field.
pub const SGPR_SLOTS: usize = 128;

/// Bytes per memory line; also the scalar cache line size that
/// `S_DCACHE_DISCARD` works on.
pub const LINE_BYTES: u64 = 64;

/// One 64-byte line of memory with a mask of the bytes ever written.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Line {
    bytes: [u8; LINE_BYTES as usize],
    written: u64,
}

/// Sparse byte-addressed memory. Addresses wrap modulo 2^64. Bytes never
/// written read as 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    lines: BTreeMap<u64, Line>,
}

impl Memory {
    /// An empty memory.
    pub fn new() -> Self {
        Self::default()
    }

    /// The byte at `addr`, or `None` when it was never written.
    pub fn byte(&self, addr: u64) -> Option<u8> {
        let line = self.lines.get(&(addr & !(LINE_BYTES - 1)))?;
        let k = (addr % LINE_BYTES) as u32;
        if line.written & (1u64 << k) == 0 {
            return None;
        }
        line.bytes.get(k as usize).copied()
    }

    /// Writes one byte.
    pub fn write_byte(&mut self, addr: u64, value: u8) {
        let line = self
            .lines
            .entry(addr & !(LINE_BYTES - 1))
            .or_insert_with(|| Line {
                bytes: [0; LINE_BYTES as usize],
                written: 0,
            });
        let k = (addr % LINE_BYTES) as u32;
        if let Some(b) = line.bytes.get_mut(k as usize) {
            *b = value;
            line.written |= 1u64 << k;
        }
    }

    /// Writes `bytes` starting at `addr` (wrapping).
    pub fn write(&mut self, addr: u64, bytes: &[u8]) {
        for (i, b) in bytes.iter().enumerate() {
            self.write_byte(addr.wrapping_add(i as u64), *b);
        }
    }

    /// Reads `out.len()` bytes at `addr` (wrapping); never-written bytes
    /// read as 0. Returns the address of the first never-written byte and
    /// how many there were, if any.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Option<(u64, u32)> {
        let mut first = None;
        let mut count = 0u32;
        for (i, o) in out.iter_mut().enumerate() {
            let a = addr.wrapping_add(i as u64);
            match self.byte(a) {
                Some(b) => *o = b,
                None => {
                    *o = 0;
                    first.get_or_insert(a);
                    count = count.saturating_add(1);
                }
            }
        }
        first.map(|a| (a, count))
    }

    /// The little-endian dword at `addr` (never-written bytes read as 0).
    pub fn read_u32(&self, addr: u64) -> u32 {
        let mut b = [0u8; 4];
        self.read(addr, &mut b);
        u32::from_le_bytes(b)
    }

    /// The little-endian qword at `addr` (never-written bytes read as 0).
    pub fn read_u64(&self, addr: u64) -> u64 {
        let mut b = [0u8; 8];
        self.read(addr, &mut b);
        u64::from_le_bytes(b)
    }

    /// Writes a little-endian dword.
    pub fn write_u32(&mut self, addr: u64, value: u32) {
        self.write(addr, &value.to_le_bytes());
    }

    /// Writes a little-endian qword.
    pub fn write_u64(&mut self, addr: u64, value: u64) {
        self.write(addr, &value.to_le_bytes());
    }

    /// Number of 64-byte lines that hold at least one written byte.
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// Every written byte as `(address, value)`, in address order.
    pub fn written_bytes(&self) -> impl Iterator<Item = (u64, u8)> + '_ {
        self.lines.iter().flat_map(|(base, line)| {
            line.bytes
                .iter()
                .enumerate()
                .filter(move |(k, _)| line.written & (1u64 << k) != 0)
                .map(move |(k, b)| (base.wrapping_add(k as u64), *b))
        })
    }
}

/// The fields of a buffer resource (V#) that SMEM uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferResource {
    /// Base address: dword 0 and dword 1 bits 15:0 (48 bits).
    pub base: u64,
    /// Stride in bytes: dword 1 bits 29:16 (ignored by the model).
    pub stride: u16,
    /// NUM_RECORDS: dword 2, the range limit in bytes.
    pub num_records: u32,
    /// Dword 3 (formats, swizzle, type), carried unchanged.
    pub dword3: u32,
}

impl BufferResource {
    /// Splits four resource dwords into fields.
    pub fn from_dwords(d: [u32; 4]) -> Self {
        let [d0, d1, d2, d3] = d;
        Self {
            base: u64::from(d0) | (u64::from(d1 & 0xffff) << 32),
            stride: ((d1 >> 16) & 0x3fff) as u16,
            num_records: d2,
            dword3: d3,
        }
    }

    /// The four dwords (dword 1 bits 31:30 zero).
    pub fn to_dwords(&self) -> [u32; 4] {
        [
            self.base as u32,
            ((self.base >> 32) as u32 & 0xffff) | (u32::from(self.stride & 0x3fff) << 16),
            self.num_records,
            self.dword3,
        ]
    }
}

/// A scalar atomic operation (seed: S_ATOMIC_* and S_BUFFER_ATOMIC_*).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `*VM = SDATA`.
    Swap,
    /// `*VM = *VM == cmp ? src : *VM` with src the low and cmp the high half.
    CmpSwap,
    /// `*VM + SDATA`, wrapping.
    Add,
    /// `*VM - SDATA`, wrapping.
    Sub,
    /// Signed minimum.
    Smin,
    /// Unsigned minimum.
    Umin,
    /// Signed maximum.
    Smax,
    /// Unsigned maximum.
    Umax,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
    /// `*VM < SDATA ? *VM + 1 : 0`.
    Inc,
    /// `*VM <= SDATA && *VM != 0 ? *VM - 1 : SDATA`.
    Dec,
}

impl AtomicOp {
    /// Applies the operation to the old memory value. `wide` selects 64-bit
    /// arithmetic; otherwise every value is taken modulo 2^32.
    pub fn apply(self, old: u64, src: u64, cmp: u64, wide: bool) -> u64 {
        let mask = if wide { u64::MAX } else { 0xffff_ffff };
        let (old, src, cmp) = (old & mask, src & mask, cmp & mask);
        let signed = |v: u64| {
            if wide {
                v as i64
            } else {
                i64::from(v as u32 as i32)
            }
        };
        let r = match self {
            Self::Swap => src,
            Self::CmpSwap => {
                if old == cmp {
                    src
                } else {
                    old
                }
            }
            Self::Add => old.wrapping_add(src),
            Self::Sub => old.wrapping_sub(src),
            Self::Smin => {
                if signed(src) < signed(old) {
                    src
                } else {
                    old
                }
            }
            Self::Umin => old.min(src),
            Self::Smax => {
                if signed(src) > signed(old) {
                    src
                } else {
                    old
                }
            }
            Self::Umax => old.max(src),
            Self::And => old & src,
            Self::Or => old | src,
            Self::Xor => old ^ src,
            // old < src, so old + 1 cannot overflow.
            Self::Inc => {
                if old < src {
                    old + 1
                } else {
                    0
                }
            }
            Self::Dec => {
                if old <= src && old != 0 {
                    old - 1
                } else {
                    src
                }
            }
        };
        r & mask
    }
}

/// A cache operation: no architectural effect except on the model's
/// record of dirty lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CacheOp {
    /// `s_dcache_inv`.
    Inv,
    /// `s_dcache_inv_vol`.
    InvVol,
    /// `s_dcache_wb`.
    Wb,
    /// `s_dcache_wb_vol`.
    WbVol,
    /// `s_gl1_inv`.
    Gl1Inv,
}

/// Which address an access uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// SBASE pair as a 64-bit address.
    Global,
    /// SBASE quad as a buffer resource.
    Buffer,
    /// SBASE pair plus 64 × SGPR offset (`S_SCRATCH_*`).
    Scratch,
}

/// What an opcode does, as the executor implements it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Semantics {
    /// SDATA ← memory.
    Load {
        /// Address space.
        space: Space,
        /// Whole dwords or an extended sub-dword.
        ext: Ext,
    },
    /// Memory ← SDATA.
    Store {
        /// Address space.
        space: Space,
    },
    /// Read-modify-write; GLC returns the old value.
    Atomic {
        /// Address space.
        space: Space,
        /// Operation.
        op: AtomicOp,
        /// 64-bit operands (`_x2`).
        wide: bool,
    },
    /// Cache maintenance.
    Cache(CacheOp),
    /// `s_memtime`.
    MemTime,
    /// `s_memrealtime`.
    MemRealTime,
    /// `s_atc_probe*`: no architectural effect.
    Probe,
    /// `s_dcache_discard*` of this many 64-byte lines.
    Discard {
        /// 1 or 2.
        lines: u8,
    },
    /// GFX12 prefetches: no architectural effect.
    Prefetch,
    /// `s_get_waveid_in_workgroup`.
    WaveId,
}

/// The semantics of a table entry, or `None` for an entry the executor does
/// not know (the tests check that no table entry is in that case).
pub fn semantics(op: &OpInfo) -> Option<Semantics> {
    let m = op.mnemonic;
    let s = match op.class {
        Class::Load => Semantics::Load {
            space: Space::Global,
            ext: op.ext,
        },
        Class::BufferLoad => Semantics::Load {
            space: Space::Buffer,
            ext: op.ext,
        },
        Class::ScratchLoad => Semantics::Load {
            space: Space::Scratch,
            ext: op.ext,
        },
        Class::Store => Semantics::Store {
            space: Space::Global,
        },
        Class::BufferStore => Semantics::Store {
            space: Space::Buffer,
        },
        Class::ScratchStore => Semantics::Store {
            space: Space::Scratch,
        },
        Class::Atomic | Class::BufferAtomic => {
            let rest = m
                .strip_prefix("s_buffer_atomic_")
                .or_else(|| m.strip_prefix("s_atomic_"))?;
            let (name, wide) = match rest.strip_suffix("_x2") {
                Some(n) => (n, true),
                None => (rest, false),
            };
            let a = match name {
                "swap" => AtomicOp::Swap,
                "cmpswap" => AtomicOp::CmpSwap,
                "add" => AtomicOp::Add,
                "sub" => AtomicOp::Sub,
                "smin" => AtomicOp::Smin,
                "umin" => AtomicOp::Umin,
                "smax" => AtomicOp::Smax,
                "umax" => AtomicOp::Umax,
                "and" => AtomicOp::And,
                "or" => AtomicOp::Or,
                "xor" => AtomicOp::Xor,
                "inc" => AtomicOp::Inc,
                "dec" => AtomicOp::Dec,
                _ => return None,
            };
            let space = if op.class.buffer_base() {
                Space::Buffer
            } else {
                Space::Global
            };
            Semantics::Atomic { space, op: a, wide }
        }
        Class::Cache => Semantics::Cache(match m {
            "s_dcache_inv" => CacheOp::Inv,
            "s_dcache_inv_vol" => CacheOp::InvVol,
            "s_dcache_wb" => CacheOp::Wb,
            "s_dcache_wb_vol" => CacheOp::WbVol,
            "s_gl1_inv" => CacheOp::Gl1Inv,
            _ => return None,
        }),
        Class::Time => match m {
            "s_memtime" => Semantics::MemTime,
            "s_memrealtime" => Semantics::MemRealTime,
            _ => return None,
        },
        Class::Probe | Class::ProbeBuffer => Semantics::Probe,
        Class::Discard => match m {
            "s_dcache_discard" => Semantics::Discard { lines: 1 },
            "s_dcache_discard_x2" => Semantics::Discard { lines: 2 },
            _ => return None,
        },
        Class::Prefetch | Class::PrefetchBuffer | Class::PrefetchPcRel => Semantics::Prefetch,
        Class::WaveId => Semantics::WaveId,
    };
    Some(s)
}

/// One step of a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// An SMEM instruction.
    Smem(Instruction),
    /// `s_waitcnt lgkmcnt(N)` (GFX12: `s_wait_kmcnt N`).
    WaitLgkm(u8),
    /// A non-SMEM instruction that writes one SGPR (e.g. `s_mov_b32`).
    WriteSgpr {
        /// Register slot.
        reg: u8,
        /// Value written.
        value: u32,
    },
    /// A non-SMEM instruction that reads SGPRs `first..first+count` (e.g.
    /// the replay harness saving results).
    ReadSgprs {
        /// First register slot.
        first: u8,
        /// Number of registers.
        count: u8,
    },
    /// Any other non-SMEM instruction (`s_nop`, a VALU op, ...): separates
    /// instructions for hazards and ends an SMEM soft clause.
    Other,
}

/// A broken stream constraint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamViolation {
    /// The rule.
    pub rule: &'static Rule,
    /// Index of the offending step (0-based, counting every [`Step`]).
    pub index: usize,
    /// What was found, for a person.
    pub message: String,
}

/// A read of never-written memory (it returned zeros).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UninitRead {
    /// Index of the step.
    pub index: usize,
    /// First never-written byte of the access.
    pub address: u64,
    /// Number of never-written bytes in the access.
    pub bytes: u32,
}

/// An SMEM instruction that may still be outstanding.
#[derive(Clone, Copy, Debug)]
struct Outstanding {
    /// Step index (also its identity).
    index: usize,
    /// Its LGKM increment.
    weight: u8,
    /// A wait for N completes it iff N < this.
    retire_above: u8,
}

/// The state of one wave as far as SMEM streams can see it.
#[derive(Clone, Debug)]
pub struct Machine {
    gen: SmemGen,
    sgpr: [u32; SGPR_SLOTS],
    /// Memory.
    pub memory: Memory,
    /// Value the next `s_memtime` returns; advances by 1 per step.
    pub memtime: u64,
    /// Value the next `s_memrealtime` returns; advances by 1 per step.
    pub memrealtime: u64,
    /// Value `s_get_waveid_in_workgroup` returns.
    pub wave_id: u32,
    /// XNACK enabled: turns on `smem.xnack.clause_overlap`.
    pub xnack: bool,
    /// Per register: the step index of the SMEM instruction that may still
    /// be writing it.
    pending: [Option<usize>; SGPR_SLOTS],
    outstanding: Vec<Outstanding>,
    lgkm_bound: u32,
    /// 64-byte lines written by scalar stores since the last write-back.
    dirty: BTreeSet<u64>,
    /// Registers the previous step wrote (for the resource hazard).
    last_written: u128,
    /// Defs and uses of the current SMEM soft clause.
    clause: (u128, u128),
    opaque: u128,
    index: usize,
    violations: Vec<StreamViolation>,
    uninit: Vec<UninitRead>,
    uninit_bytes: u64,
}

/// Bit mask of `count` register slots from `first`, clipped to 128.
fn reg_mask(first: u16, count: u16) -> u128 {
    let mut m = 0u128;
    for r in first..first.saturating_add(count) {
        if r < SGPR_SLOTS as u16 {
            m |= 1u128 << r;
        }
    }
    m
}

/// The immediate and register parts of an offset operand.
fn offset_parts(o: Offset) -> (i64, Option<u8>) {
    match o {
        Offset::None => (0, None),
        Offset::Imm(v) => (i64::from(v), None),
        Offset::Sgpr(r) | Offset::Soffset(r) => (0, Some(r)),
        Offset::SgprImm { sgpr, imm } => (i64::from(imm), Some(sgpr)),
    }
}

/// Number of dwords an instruction returns into SDATA.
fn returned_dwords(sem: Semantics, op: &OpInfo, glc: bool) -> u8 {
    match sem {
        Semantics::Load { .. } => op.width,
        Semantics::Atomic { op: a, .. } if glc => {
            if a == AtomicOp::CmpSwap {
                op.width / 2
            } else {
                op.width
            }
        }
        Semantics::MemTime | Semantics::MemRealTime => 2,
        Semantics::WaveId => 1,
        _ => 0,
    }
}

/// Where the units of an access live.
#[derive(Clone, Copy, Debug)]
enum Access {
    /// Unit `k` bytes in is at `addr + k`.
    Flat(u64),
    /// Unit `k` bytes in is at `base + offset + k`, in range iff
    /// `offset + k + size <= limit`.
    Buffer { base: u64, offset: u64, limit: u32 },
}

impl Access {
    /// Address of the unit `k` bytes in, or `None` when it is out of range.
    fn unit(self, k: u64, size: u64) -> Option<u64> {
        match self {
            Self::Flat(a) => Some(a.wrapping_add(k)),
            Self::Buffer {
                base,
                offset,
                limit,
            } => {
                let end = u128::from(offset) + u128::from(k) + u128::from(size);
                (end <= u128::from(limit)).then(|| base.wrapping_add(offset).wrapping_add(k))
            }
        }
    }
}

impl Machine {
    /// A machine with every register 0, empty memory, counters at 0, wave
    /// id 0 and XNACK off.
    pub fn new(gen: SmemGen) -> Self {
        Self {
            gen,
            sgpr: [0; SGPR_SLOTS],
            memory: Memory::new(),
            memtime: 0,
            memrealtime: 0,
            wave_id: 0,
            xnack: false,
            pending: [None; SGPR_SLOTS],
            outstanding: Vec::new(),
            lgkm_bound: 0,
            dirty: BTreeSet::new(),
            last_written: 0,
            clause: (0, 0),
            opaque: 0,
            index: 0,
            violations: Vec::new(),
            uninit: Vec::new(),
            uninit_bytes: 0,
        }
    }

    /// The generation.
    pub fn gen(&self) -> SmemGen {
        self.gen
    }

    /// True for slots that read 0 and ignore writes (`null`; slot 125 on
    /// GFX8/GFX9).
    fn is_null(&self, r: u16) -> bool {
        r == u16::from(self.gen.null()) || (!self.gen.is_rdna() && r == 125)
    }

    /// The value of register slot `r` (0 for `null` and slots above 127).
    pub fn sgpr(&self, r: u8) -> u32 {
        self.reg(u16::from(r))
    }

    fn reg(&self, r: u16) -> u32 {
        if self.is_null(r) {
            return 0;
        }
        self.sgpr.get(usize::from(r)).copied().unwrap_or(0)
    }

    /// Sets register slot `r` as initial state (not a step: no rules, no
    /// LGKM effect). Ignored for `null` and slots above 127.
    pub fn set_sgpr(&mut self, r: u8, value: u32) {
        self.write_reg(u16::from(r), value);
    }

    fn write_reg(&mut self, r: u16, value: u32) {
        if self.is_null(r) {
            return;
        }
        if let Some(s) = self.sgpr.get_mut(usize::from(r)) {
            *s = value;
            self.opaque &= !(1u128 << r);
        }
    }

    /// The whole register file.
    pub fn sgprs(&self) -> &[u32; SGPR_SLOTS] {
        &self.sgpr
    }

    /// Registers an SMEM instruction may still be writing (bit `r` = slot
    /// `r`); a comparator must not read them before a wait.
    pub fn pending_mask(&self) -> u128 {
        self.pending
            .iter()
            .enumerate()
            .filter(|(_, p)| p.is_some())
            .fold(0, |m, (r, _)| m | (1u128 << r))
    }

    /// Registers holding a time counter value: compare by monotonicity only.
    pub fn opaque_mask(&self) -> u128 {
        self.opaque
    }

    /// An upper bound of the hardware LGKM counter now.
    pub fn lgkm_bound(&self) -> u32 {
        self.lgkm_bound
    }

    /// Violations found so far, in step order.
    pub fn violations(&self) -> &[StreamViolation] {
        &self.violations
    }

    /// True when no step so far broke a constraint: only such streams are
    /// compared with the hardware (registers in [`Machine::pending_mask`]
    /// and [`Machine::opaque_mask`] excepted).
    pub fn accepted(&self) -> bool {
        self.violations.is_empty()
    }

    /// Reads of never-written memory so far (at most one entry per step,
    /// at most [`MAX_VIOLATIONS`] entries).
    pub fn uninitialized_reads(&self) -> &[UninitRead] {
        &self.uninit
    }

    /// Total never-written bytes read so far.
    pub fn uninitialized_bytes(&self) -> u64 {
        self.uninit_bytes
    }

    /// Number of steps executed.
    pub fn steps(&self) -> usize {
        self.index
    }

    /// Copies the violations into a rule sink (message prefixed by the step).
    pub fn report(&self, sink: &mut Sink) {
        for v in &self.violations {
            sink.report(v.rule, format!("step {}: {}", v.index, v.message));
        }
    }

    /// Executes every step in order.
    pub fn run<'a>(&mut self, steps: impl IntoIterator<Item = &'a Step>) {
        for s in steps {
            self.step(s);
        }
    }

    fn violate(&mut self, rule: &'static Rule, message: String) {
        if self.violations.len() < MAX_VIOLATIONS {
            self.violations.push(StreamViolation {
                rule,
                index: self.index,
                message,
            });
        }
    }

    /// Reports reads of pending registers among `mask`.
    fn check_reads(&mut self, mask: u128, what: &str) {
        if let Some((r, by)) = self.first_pending(mask) {
            self.violate(
                &LGKM_READ_BEFORE_WAIT,
                format!("{what} reads slot {r}, which the SMEM instruction at step {by} may still be writing"),
            );
        }
    }

    /// Reports writes of pending registers among `mask`.
    fn check_writes(&mut self, mask: u128, what: &str) {
        if let Some((r, by)) = self.first_pending(mask) {
            self.violate(
                &LGKM_WRITE_BEFORE_WAIT,
                format!("{what} writes slot {r}, which the SMEM instruction at step {by} may still be writing"),
            );
        }
    }

    fn first_pending(&self, mask: u128) -> Option<(usize, usize)> {
        self.pending.iter().enumerate().find_map(|(r, p)| match p {
            Some(by) if mask & (1u128 << r) != 0 => Some((r, *by)),
            _ => None,
        })
    }

    /// Executes one step.
    pub fn step(&mut self, step: &Step) {
        match *step {
            Step::Smem(ref i) => self.smem(i),
            Step::WaitLgkm(n) => {
                self.wait(n);
                self.last_written = 0;
            }
            Step::WriteSgpr { reg, value } => {
                let m = self.live_mask(u16::from(reg), 1);
                self.check_writes(m, "a non-SMEM instruction");
                self.write_reg(u16::from(reg), value);
                self.last_written = m;
            }
            Step::ReadSgprs { first, count } => {
                let m = self.live_mask(u16::from(first), u16::from(count));
                self.check_reads(m, "a non-SMEM instruction");
                self.last_written = 0;
            }
            Step::Other => self.last_written = 0,
        }
        if !matches!(step, Step::Smem(_)) {
            self.clause = (0, 0);
        }
        self.index = self.index.saturating_add(1);
        self.memtime = self.memtime.wrapping_add(1);
        self.memrealtime = self.memrealtime.wrapping_add(1);
    }

    /// Slot `k` of the tuple starting at `first`: `null` names a whole
    /// tuple (LLVM assembles `null` as an SDATA of any width and a GFX11+
    /// SBASE pair), so every dword of a null tuple is null.
    fn slot(&self, first: u16, k: u16) -> u16 {
        if self.is_null(first) {
            first
        } else {
            first.saturating_add(k)
        }
    }

    /// `reg_mask` without the null slots, which are never pending (a null
    /// tuple has none).
    fn live_mask(&self, first: u16, count: u16) -> u128 {
        if self.is_null(first) {
            return 0;
        }
        let mut m = reg_mask(first, count);
        for r in [u16::from(self.gen.null()), 125] {
            if self.is_null(r) && r < 128 {
                m &= !(1u128 << r);
            }
        }
        m
    }

    fn wait(&mut self, n: u8) {
        // Out-of-order return: any subset of the outstanding instructions
        // with increments summing to at most N may remain, so exactly those
        // whose own increment exceeds N are certainly complete.
        self.outstanding.retain(|o| n >= o.retire_above);
        let remaining: u32 = self.outstanding.iter().map(|o| u32::from(o.weight)).sum();
        self.lgkm_bound = self.lgkm_bound.min(u32::from(n)).min(remaining);
        let outstanding = &self.outstanding;
        for p in self.pending.iter_mut() {
            if let Some(by) = *p {
                if outstanding.binary_search_by_key(&by, |o| o.index).is_err() {
                    *p = None;
                }
            }
        }
    }

    fn smem(&mut self, i: &Instruction) {
        let op = i.op;
        let c = op.class;
        let sem = semantics(op);
        if i.gen != self.gen {
            self.violate(
                &INVALID_INSTRUCTION,
                format!(
                    "{} is an instruction of {:?}, not {:?}",
                    op.mnemonic, i.gen, self.gen
                ),
            );
        } else if let Err(e) = encode(i) {
            self.violate(&INVALID_INSTRUCTION, format!("{}: {e}", op.mnemonic));
        }
        let Some(sem) = sem else {
            self.violate(
                &INVALID_INSTRUCTION,
                format!("{}: no semantics for this opcode", op.mnemonic),
            );
            self.last_written = 0;
            return;
        };
        let (imm, oreg) = offset_parts(i.offset);
        let sdata = u16::from(i.sdata);
        let sbase = u16::from(i.sbase);

        // Registers read and written, for the LGKM and clause rules.
        let mut reads = 0u128;
        if c.has_sbase() {
            let w = if c.buffer_base() { 4 } else { 2 };
            reads |= self.live_mask(sbase, w);
        }
        if let Some(r) = oreg {
            reads |= self.live_mask(u16::from(r), 1);
        }
        if matches!(sem, Semantics::Store { .. } | Semantics::Atomic { .. }) {
            reads |= self.live_mask(sdata, u16::from(op.width));
        }
        let ret = returned_dwords(sem, op, i.glc);
        let writes = if ret == 0 {
            0
        } else {
            let n = match sem {
                Semantics::MemTime | Semantics::MemRealTime => 2,
                _ => u16::from(op.width.max(1)),
            };
            self.live_mask(sdata, n)
        };
        self.check_reads(reads, op.mnemonic);
        self.check_writes(writes, op.mnemonic);

        // GFX8/GFX9: resource's third dword written by the previous step.
        if matches!(self.gen, SmemGen::Gfx8 | SmemGen::Gfx9)
            && c.buffer_base()
            && self.last_written & reg_mask(sbase.saturating_add(2), 1) != 0
        {
            self.violate(
                &BUFFER_RESOURCE_HAZARD,
                format!(
                    "{} reads resource dword 2 (slot {}) written by the previous instruction",
                    op.mnemonic,
                    sbase.saturating_add(2)
                ),
            );
        }
        if self.gen == SmemGen::Gfx8 && matches!(c, Class::Store | Class::BufferStore) {
            if let Some(r) = oreg.filter(|r| *r != self.gen.m0()) {
                self.violate(
                    &GFX8_STORE_OFFSET,
                    format!("{} uses offset register slot {r}, not m0", op.mnemonic),
                );
            }
        }
        let raw_off = oreg.map_or(0, |r| self.reg(u16::from(r)));
        // GFX12.5 scale_offset: the SGPR offset counts in access sizes
        // (None: a byte load, whose scaling no source gives).
        let scale = if i.scale_offset {
            match sem {
                Semantics::Load { ext, .. } if ext.bytes(op.width) >= 2 => {
                    Some(u64::from(ext.bytes(op.width)))
                }
                _ => None,
            }
        } else {
            Some(1)
        };
        let sgpr_off = match scale {
            Some(k) => u64::from(raw_off) * k,
            None if raw_off == 0 => 0,
            None => {
                self.violate(
                    &SCALE_OFFSET_BYTE_LOAD,
                    format!(
                        "{} with scale_offset and SGPR offset {raw_off}: scaling not modelled",
                        op.mnemonic
                    ),
                );
                0
            }
        };
        if self.gen != SmemGen::Gfx8
            && matches!(c, Class::Load | Class::Store | Class::Atomic)
            && imm < 0
            && imm + (sgpr_off as i64) < 0
        {
            self.violate(
                &NEGATIVE_OFFSET,
                format!(
                    "{}: immediate {imm} plus SGPR offset {sgpr_off} is negative",
                    op.mnemonic
                ),
            );
        }
        if self.xnack {
            let (defs, uses) = self.clause;
            if defs != 0 && (defs | writes) & (uses | reads) != 0 {
                self.violate(
                    &XNACK_CLAUSE_OVERLAP,
                    format!(
                        "{} joins a soft clause in which a written SGPR is also read",
                        op.mnemonic
                    ),
                );
            }
            self.clause = (defs | writes, uses | reads);
        } else {
            self.clause = (0, 0);
        }

        self.execute(i, sem, imm, sgpr_off);
        if scale.is_none() && raw_off != 0 {
            // No prediction: what the load returned is unknown.
            self.opaque |= writes;
        }

        if writes != 0 {
            for (r, p) in self.pending.iter_mut().enumerate() {
                if writes & (1u128 << r) != 0 {
                    *p = Some(self.index);
                }
            }
        }
        // Every SMEM instruction counts (seed: "Any SMEM operation ...
        // increments LGKM_CNT").
        let weight: u8 = if self.gen.is_rdna() || ret < 2 { 1 } else { 2 };
        let retire_above = match sem {
            _ if self.gen.is_rdna() => 1,
            Semantics::MemTime | Semantics::MemRealTime => 1,
            _ => weight,
        };
        self.outstanding.push(Outstanding {
            index: self.index,
            weight,
            retire_above,
        });
        self.lgkm_bound = self.lgkm_bound.saturating_add(u32::from(weight));
        self.last_written = writes;
    }

    /// Resolves the address of a memory access; `exact` (sub-dword loads)
    /// keeps the low bits, otherwise each component's two low bits are
    /// cleared.
    fn access(
        &mut self,
        i: &Instruction,
        space: Space,
        imm: i64,
        sgpr_off: u64,
        exact: bool,
    ) -> Access {
        let sbase = u16::from(i.sbase);
        let clear = |v: u64| if exact { v } else { v & !3 };
        let imm_bits = imm as u64;
        let mut unaligned = !exact && (imm_bits & 3 != 0 || sgpr_off & 3 != 0);
        let off = clear(sgpr_off);
        let acc = match space {
            Space::Global | Space::Scratch => {
                let base =
                    u64::from(self.reg(sbase)) | (u64::from(self.reg(self.slot(sbase, 1))) << 32);
                unaligned |= !exact && base & 3 != 0;
                let off = if space == Space::Scratch {
                    off.wrapping_mul(64)
                } else {
                    off
                };
                Access::Flat(clear(base).wrapping_add(clear(imm_bits)).wrapping_add(off))
            }
            Space::Buffer => {
                let d = [0u16, 1, 2, 3].map(|k| self.reg(self.slot(sbase, k)));
                let res = BufferResource::from_dwords(d);
                unaligned |= !exact && res.base & 3 != 0;
                if res.stride != 0 {
                    self.violate(
                        &BUFFER_STRIDE,
                        format!("{}: resource stride {}", i.op.mnemonic, res.stride),
                    );
                }
                Access::Buffer {
                    base: clear(res.base),
                    offset: clear(imm_bits).wrapping_add(off),
                    limit: res.num_records,
                }
            }
        };
        if unaligned {
            self.violate(
                &ADDRESS_UNALIGNED,
                format!("{}: an address component has low bits set", i.op.mnemonic),
            );
        }
        acc
    }

    /// Reads `out.len()` bytes, recording never-written bytes.
    fn load_bytes(&mut self, addr: u64, out: &mut [u8]) {
        if let Some((address, bytes)) = self.memory.read(addr, out) {
            self.uninit_bytes = self.uninit_bytes.saturating_add(u64::from(bytes));
            let index = self.index;
            let room = self.uninit.len() < MAX_VIOLATIONS;
            match self.uninit.last_mut() {
                Some(u) if u.index == index => u.bytes = u.bytes.saturating_add(bytes),
                _ if room => self.uninit.push(UninitRead {
                    index,
                    address,
                    bytes,
                }),
                _ => {}
            }
        }
    }

    fn load_u32(&mut self, addr: u64) -> u32 {
        let mut b = [0u8; 4];
        self.load_bytes(addr, &mut b);
        u32::from_le_bytes(b)
    }

    fn load_u64(&mut self, addr: u64) -> u64 {
        let mut b = [0u8; 8];
        self.load_bytes(addr, &mut b);
        u64::from_le_bytes(b)
    }

    fn execute(&mut self, i: &Instruction, sem: Semantics, imm: i64, sgpr_off: u64) {
        let op = i.op;
        let sdata = u16::from(i.sdata);
        let width = u64::from(op.width);
        match sem {
            Semantics::Load { space, ext } => {
                let acc = self.access(i, space, imm, sgpr_off, ext != Ext::Dwords);
                if ext == Ext::Dwords {
                    for k in 0..width {
                        let v = match acc.unit(4 * k, 4) {
                            Some(a) => self.load_u32(a),
                            None => 0,
                        };
                        self.write_reg(self.slot(sdata, k as u16), v);
                    }
                } else {
                    let size = u64::from(ext.bytes(1));
                    let mut b = [0u8; 2];
                    if let (Some(a), Some(buf)) = (acc.unit(0, size), b.get_mut(..size as usize)) {
                        self.load_bytes(a, buf);
                    }
                    let v = match ext {
                        Ext::U8 => u32::from(b[0]),
                        Ext::I8 => b[0] as i8 as i32 as u32,
                        Ext::U16 => u32::from(u16::from_le_bytes(b)),
                        Ext::I16 => i16::from_le_bytes(b) as i32 as u32,
                        Ext::Dwords => 0,
                    };
                    self.write_reg(sdata, v);
                }
            }
            Semantics::Store { space } => {
                let acc = self.access(i, space, imm, sgpr_off, false);
                for k in 0..width {
                    let v = self.reg(self.slot(sdata, k as u16));
                    if let Some(a) = acc.unit(4 * k, 4) {
                        self.memory.write_u32(a, v);
                        self.dirty.insert(a & !(LINE_BYTES - 1));
                        self.dirty.insert(a.wrapping_add(3) & !(LINE_BYTES - 1));
                    }
                }
            }
            Semantics::Atomic { space, op: a, wide } => {
                let acc = self.access(i, space, imm, sgpr_off, false);
                let n = if wide { 2u16 } else { 1 };
                let get = |m: &Self, first: u16| -> u64 {
                    let lo = u64::from(m.reg(first));
                    if wide {
                        lo | (u64::from(m.reg(m.slot(first, 1))) << 32)
                    } else {
                        lo
                    }
                };
                let src = get(self, sdata);
                let cmp = if a == AtomicOp::CmpSwap {
                    get(self, self.slot(sdata, n))
                } else {
                    0
                };
                let size = 4 * u64::from(n);
                let old = match acc.unit(0, size) {
                    Some(addr) => {
                        let old = if wide {
                            self.load_u64(addr)
                        } else {
                            u64::from(self.load_u32(addr))
                        };
                        let new = a.apply(old, src, cmp, wide);
                        if wide {
                            self.memory.write_u64(addr, new);
                        } else {
                            self.memory.write_u32(addr, new as u32);
                        }
                        old
                    }
                    None => 0,
                };
                if i.glc {
                    self.write_reg(sdata, old as u32);
                    if wide {
                        self.write_reg(self.slot(sdata, 1), (old >> 32) as u32);
                    }
                }
            }
            Semantics::Cache(c) => {
                if matches!(c, CacheOp::Wb | CacheOp::WbVol) {
                    // Volatile-only write-back is treated as a full one so
                    // that a later discard is never reported falsely.
                    self.dirty.clear();
                }
            }
            Semantics::MemTime | Semantics::MemRealTime => {
                let t = if sem == Semantics::MemTime {
                    self.memtime
                } else {
                    self.memrealtime
                };
                self.write_reg(sdata, t as u32);
                self.write_reg(self.slot(sdata, 1), (t >> 32) as u32);
                self.opaque |= self.live_mask(sdata, 2);
            }
            Semantics::WaveId => self.write_reg(sdata, self.wave_id),
            Semantics::Discard { lines } => {
                // Seed: address as S_STORE_DWORD, aligned down to 64 bytes.
                // The 64-byte alignment makes the low bits irrelevant.
                let line = match self.access(i, Space::Global, imm, sgpr_off, true) {
                    Access::Flat(a) => a & !(LINE_BYTES - 1),
                    Access::Buffer { base, offset, .. } => {
                        base.wrapping_add(offset) & !(LINE_BYTES - 1)
                    }
                };
                for k in 0..u64::from(lines) {
                    let l = line.wrapping_add(k * LINE_BYTES);
                    if self.dirty.remove(&l) {
                        self.violate(
                            &DISCARD_DIRTY,
                            format!(
                                "{} discards line {l:#x}, written by a scalar store",
                                op.mnemonic
                            ),
                        );
                    }
                }
            }
            Semantics::Probe | Semantics::Prefetch => {}
        }
    }
}

#[cfg(test)]
#[path = "exec_tests.rs"]
mod tests;
