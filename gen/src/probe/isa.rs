//! The few instructions a probe kernel needs, encoded for every GCN/RDNA
//! instruction encoding and written as LLVM assembler text.
//!
//! Each [`Inst`] gives its words ([`Inst::encode`]) and its text
//! ([`Inst::text`]) for an [`Enc`]; `tests/probe_llvm.rs` assembles the
//! text of every probe with llvm-mc-19 and llvm-mc-22 and checks that the
//! bytes are these words. Opcodes and field positions were read off
//! `llvm-mc -show-encoding` for gfx600, gfx700, gfx803, gfx900, gfx90a,
//! gfx942, gfx1030, gfx1100 and gfx1200 (and agree with LLVM's
//! `SIInstrInfo.td`, `SOPInstructions.td`, `VOP*Instructions.td`,
//! `BUFInstructions.td` and `FLATInstructions.td`).

use hsaco_oracle::targets::{Generation, Target};

/// An instruction encoding family: the generations that share opcodes and
/// field layouts for the probe's instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Enc {
    /// GFX6 and GFX7 (SI/CI): MUBUF with `addr64`, V_WRITELANE as VOP2.
    Si,
    /// GFX8 (VI): FLAT, no global instructions.
    Vi,
    /// GFX9, including gfx90a and gfx94x.
    Gfx9,
    /// GFX10.
    Gfx10,
    /// GFX11.
    Gfx11,
    /// GFX12: 96-bit VGLOBAL, split wait counters.
    Gfx12,
}

impl Enc {
    /// The family of `t`, or `None` for processors with no HSA code
    /// (r600).
    pub fn of(t: &Target) -> Option<Enc> {
        Some(match t.generation {
            Generation::R600 => return None,
            Generation::Gfx6 | Generation::Gfx7 => Enc::Si,
            Generation::Gfx8 => Enc::Vi,
            Generation::Gfx9 => Enc::Gfx9,
            Generation::Gfx10 => Enc::Gfx10,
            Generation::Gfx11 => Enc::Gfx11,
            Generation::Gfx12 => Enc::Gfx12,
        })
    }

    /// Trap temporary `ttmp0`'s operand number (SI/VI number them from
    /// 112, GFX9 on from 108).
    fn ttmp0(self) -> u32 {
        if self <= Enc::Vi {
            112
        } else {
            108
        }
    }
}

/// A scalar (or, where the instruction allows, vector) source operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    /// `sN`.
    S(u8),
    /// `vN` (VOP sources only).
    V(u8),
    /// `exec_lo`.
    ExecLo,
    /// `exec_hi`.
    ExecHi,
    /// `ttmpN`.
    Ttmp(u8),
    /// An inline integer constant, -16..=64.
    Int(i8),
    /// A 32-bit literal (the dword after the instruction).
    Lit(u32),
}

impl Src {
    /// The operand's 9-bit source number on `e` (VGPRs from 256).
    fn code(self, e: Enc) -> u32 {
        match self {
            Src::S(n) => u32::from(n),
            Src::V(n) => 256 + u32::from(n),
            Src::ExecLo => 126,
            Src::ExecHi => 127,
            Src::Ttmp(n) => e.ttmp0() + u32::from(n),
            Src::Int(n) if n >= 0 => 128 + n as u32,
            Src::Int(n) => 192 + n.unsigned_abs() as u32,
            Src::Lit(_) => 255,
        }
    }

    fn literal(self) -> Option<u32> {
        match self {
            Src::Lit(v) => Some(v),
            _ => None,
        }
    }

    fn text(self) -> String {
        match self {
            Src::S(n) => format!("s{n}"),
            Src::V(n) => format!("v{n}"),
            Src::ExecLo => "exec_lo".into(),
            Src::ExecHi => "exec_hi".into(),
            Src::Ttmp(n) => format!("ttmp{n}"),
            Src::Int(n) => n.to_string(),
            Src::Lit(v) => format!("{v:#x}"),
        }
    }
}

/// A scalar destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SDst {
    /// `sN` (`s[N:N+1]` for 64-bit moves).
    S(u8),
    /// `exec_lo` (`exec` for 64-bit moves).
    Exec,
}

impl SDst {
    fn code(self) -> u32 {
        match self {
            SDst::S(n) => u32::from(n),
            SDst::Exec => 126,
        }
    }
}

/// A probe instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inst {
    /// `v_writelane_b32 vD, SRC, LANE` (lane an inline constant).
    WriteLane {
        /// Destination VGPR.
        vdst: u8,
        /// The value.
        src: Src,
        /// The lane written.
        lane: u8,
    },
    /// `s_mov_b32 DST, SRC`.
    Mov32(SDst, Src),
    /// `s_mov_b64 DST, SRC`.
    Mov64(SDst, Src),
    /// `s_mul_i32 sD, sA, SRC`.
    Mul(u8, u8, Src),
    /// `s_add_u32 sD, sA, SRC` (sets SCC to the carry).
    Add(u8, u8, Src),
    /// `s_addc_u32 sD, sA, SRC` (adds SCC).
    Addc(u8, u8, Src),
    /// `v_mov_b32 vD, SRC`.
    VMov(u8, Src),
    /// `v_readfirstlane_b32 sD, vS`.
    ReadFirstLane(u8, u8),
    /// `v_mbcnt_lo_u32_b32 vD, -1, 0`: the lane's index among lanes 0-31.
    MbcntLo(u8),
    /// `v_mbcnt_hi_u32_b32 vD, -1, vD`: plus the lanes 32-63 below it.
    MbcntHi(u8),
    /// `v_lshlrev_b32 vD, SHIFT, vD`.
    Shl(u8, u8),
    /// `v_add_{i,u}32 vD, vcc, SRC, vS` (GFX6-8, carry out to VCC).
    VAddCo(u8, Src, u8),
    /// `v_addc_u32 vD, vcc, 0, vD, vcc` (GFX6-8).
    VAddcZero(u8),
    /// `s_nop N`.
    Nop(u8),
    /// `s_branch` by this many dwords past the next instruction.
    Branch(i16),
    /// Wait until every vector memory load and atomic has returned.
    WaitLoads,
    /// `s_endpgm`.
    EndPgm,
    /// `buffer_atomic_add vD, v[A:A+1], s[R:R+3], 0 addr64 glc` (GFX6-7).
    BufferAtomicAdd {
        /// Data in, old value out.
        vdata: u8,
        /// The 64-bit address pair.
        vaddr: u8,
        /// First SGPR of the buffer resource.
        srsrc: u8,
    },
    /// `buffer_store_dword vD, v[A:A+1], s[R:R+3], 0 addr64 offset:O`
    /// (GFX6-7).
    BufferStore {
        /// The data.
        vdata: u8,
        /// The 64-bit address pair.
        vaddr: u8,
        /// First SGPR of the buffer resource.
        srsrc: u8,
        /// Byte offset, below 4096.
        offset: u16,
    },
    /// `flat_atomic_add vD, v[A:A+1], vS glc` (GFX8).
    FlatAtomicAdd {
        /// The old value.
        vdst: u8,
        /// The 64-bit address pair.
        vaddr: u8,
        /// The addend.
        vdata: u8,
    },
    /// `flat_store_dword v[A:A+1], vD` (GFX8).
    FlatStore {
        /// The 64-bit address pair.
        vaddr: u8,
        /// The data.
        vdata: u8,
    },
    /// `global_atomic_add vD, vA, vS, s[B:B+1]` returning (GFX9+).
    GlobalAtomicAdd {
        /// The old value.
        vdst: u8,
        /// The 32-bit offset.
        vaddr: u8,
        /// The addend.
        vdata: u8,
        /// First SGPR of the 64-bit base.
        saddr: u8,
    },
    /// `global_store_dword vA, vD, s[B:B+1] offset:O` (GFX9+).
    GlobalStore {
        /// The 32-bit offset.
        vaddr: u8,
        /// The data.
        vdata: u8,
        /// First SGPR of the 64-bit base.
        saddr: u8,
        /// Byte offset, below 2048.
        offset: u16,
    },
    /// `s_mov_b32 m0, SRC` (`m0` is slot 124 before GFX11, 125 from
    /// GFX11).
    MovToM0(Src),
    /// `s_mov_b32 sD, m0`.
    MovFromM0(u8),
}

/// SOP1 opcodes of `s_mov_b32` and `s_mov_b64`.
fn sop1_mov(e: Enc, b64: bool) -> u32 {
    let base = match e {
        Enc::Si | Enc::Gfx10 => 3,
        Enc::Vi | Enc::Gfx9 | Enc::Gfx11 | Enc::Gfx12 => 0,
    };
    base + u32::from(b64)
}

fn sop1(e: Enc, b64: bool, d: SDst, s: Src) -> Vec<u32> {
    let w = 0xbe80_0000 | d.code() << 16 | sop1_mov(e, b64) << 8 | s.code(e);
    with_literal(w, s)
}

fn sop2(op: u32, d: u8, a: u8, b: Src, e: Enc) -> Vec<u32> {
    let w = 0x8000_0000 | op << 23 | u32::from(d) << 16 | b.code(e) << 8 | u32::from(a);
    with_literal(w, b)
}

fn sopp(op: u32, simm: u16) -> u32 {
    0xbf80_0000 | op << 16 | u32::from(simm)
}

fn with_literal(w: u32, s: Src) -> Vec<u32> {
    let mut v = vec![w];
    v.extend(s.literal());
    v
}

fn vop1(op: u32, d: u8, s: Src, e: Enc) -> Vec<u32> {
    with_literal(0x7e00_0000 | u32::from(d) << 17 | op << 9 | s.code(e), s)
}

fn vop2(op: u32, d: u8, s0: Src, s1: u32, e: Enc) -> Vec<u32> {
    with_literal(op << 25 | u32::from(d) << 17 | s1 << 9 | s0.code(e), s0)
}

/// A VOP3 instruction with two sources (no modifiers).
fn vop3(op: u32, d: u8, s0: Src, s1: Src, e: Enc) -> Vec<u32> {
    let w0 = match e {
        // SI/CI: 9-bit opcode at 25:17.
        Enc::Si => 0xd000_0000 | op << 17 | u32::from(d),
        // VI/GFX9: 10-bit opcode at 25:16.
        Enc::Vi | Enc::Gfx9 => 0xd000_0000 | op << 16 | u32::from(d),
        Enc::Gfx10 | Enc::Gfx11 | Enc::Gfx12 => 0xd400_0000 | op << 16 | u32::from(d),
    };
    vec![w0, s0.code(e) | s1.code(e) << 9]
}

impl Inst {
    /// The instruction's words on `e`.
    pub fn encode(&self, e: Enc) -> Vec<u32> {
        use Enc::*;
        match *self {
            Inst::WriteLane { vdst, src, lane } => {
                let lane = Src::Int(lane as i8);
                match e {
                    // VOP2 on SI/CI, the lane select in the VSRC1 field.
                    Si => vop2(0x02, vdst, src, lane.code(e), e),
                    Vi | Gfx9 => vop3(0x28a, vdst, src, lane, e),
                    Gfx10 | Gfx11 | Gfx12 => vop3(0x361, vdst, src, lane, e),
                }
            }
            Inst::Mov32(d, s) => sop1(e, false, d, s),
            Inst::Mov64(d, s) => sop1(e, true, d, s),
            Inst::Mul(d, a, b) => {
                let op = match e {
                    Si | Gfx10 => 0x26,
                    Vi | Gfx9 => 0x24,
                    Gfx11 | Gfx12 => 0x2c,
                };
                sop2(op, d, a, b, e)
            }
            Inst::Add(d, a, b) => sop2(0, d, a, b, e),
            Inst::Addc(d, a, b) => sop2(4, d, a, b, e),
            Inst::VMov(d, s) => vop1(1, d, s, e),
            Inst::ReadFirstLane(d, v) => vop1(2, d, Src::V(v), e),
            Inst::MbcntLo(d) => {
                let op = match e {
                    Si => 0x123,
                    Vi | Gfx9 => 0x28c,
                    Gfx10 => 0x365,
                    Gfx11 | Gfx12 => 0x31f,
                };
                vop3(op, d, Src::Int(-1), Src::Int(0), e)
            }
            Inst::MbcntHi(d) => match e {
                // SI/CI have a VOP2 form, which the assembler prefers.
                Si => vop2(0x24, d, Src::Int(-1), u32::from(d), e),
                Vi | Gfx9 => vop3(0x28d, d, Src::Int(-1), Src::V(d), e),
                Gfx10 => vop3(0x366, d, Src::Int(-1), Src::V(d), e),
                Gfx11 | Gfx12 => vop3(0x320, d, Src::Int(-1), Src::V(d), e),
            },
            Inst::Shl(d, n) => {
                let op = match e {
                    Si | Gfx10 => 0x1a,
                    Vi | Gfx9 => 0x12,
                    Gfx11 | Gfx12 => 0x18,
                };
                vop2(op, d, Src::Int(n as i8), u32::from(d), e)
            }
            Inst::VAddCo(d, s, v) => {
                let op = if e == Si { 0x25 } else { 0x19 };
                vop2(op, d, s, u32::from(v), e)
            }
            Inst::VAddcZero(d) => {
                let op = if e == Si { 0x28 } else { 0x1c };
                vop2(op, d, Src::Int(0), u32::from(d), e)
            }
            Inst::Nop(n) => vec![sopp(0, u16::from(n))],
            Inst::Branch(off) => vec![sopp(if e >= Gfx11 { 0x20 } else { 2 }, off as u16)],
            Inst::EndPgm => vec![sopp(if e >= Gfx11 { 0x30 } else { 1 }, 0)],
            Inst::WaitLoads => vec![match e {
                // vmcnt(0), every other counter at its maximum.
                Si | Gfx9 => sopp(0xc, 0x0f70),
                // vmcnt(0) lgkmcnt(0): FLAT returns count on both.
                Vi => sopp(0xc, 0x0070),
                Gfx10 => sopp(0xc, 0x3f70),
                Gfx11 => sopp(0x9, 0x03f7),
                // s_wait_loadcnt 0.
                Gfx12 => sopp(0x40, 0),
            }],
            Inst::BufferAtomicAdd {
                vdata,
                vaddr,
                srsrc,
            } => vec![
                // MUBUF, op 0x32, addr64 (bit 15), glc (bit 14).
                0xe000_0000 | 0x32 << 18 | 1 << 15 | 1 << 14,
                mubuf1(vaddr, vdata, srsrc),
            ],
            Inst::BufferStore {
                vdata,
                vaddr,
                srsrc,
                offset,
            } => vec![
                0xe000_0000 | 0x1c << 18 | 1 << 15 | u32::from(offset & 0xfff),
                mubuf1(vaddr, vdata, srsrc),
            ],
            Inst::FlatAtomicAdd { vdst, vaddr, vdata } => vec![
                // FLAT, op 0x42, glc (bit 16).
                0xdc00_0000 | 0x42 << 18 | 1 << 16,
                u32::from(vaddr) | u32::from(vdata) << 8 | u32::from(vdst) << 24,
            ],
            Inst::FlatStore { vaddr, vdata } => vec![
                0xdc00_0000 | 0x1c << 18,
                u32::from(vaddr) | u32::from(vdata) << 8,
            ],
            Inst::GlobalAtomicAdd {
                vdst,
                vaddr,
                vdata,
                saddr,
            } => global(e, true, vdst, vaddr, vdata, saddr, 0),
            Inst::GlobalStore {
                vaddr,
                vdata,
                saddr,
                offset,
            } => global(e, false, 0, vaddr, vdata, saddr, offset),
            Inst::MovToM0(s) => {
                let w = 0xbe80_0000 | m0(e) << 16 | sop1_mov(e, false) << 8 | s.code(e);
                with_literal(w, s)
            }
            Inst::MovFromM0(d) => {
                vec![0xbe80_0000 | u32::from(d) << 16 | sop1_mov(e, false) << 8 | m0(e)]
            }
        }
    }

    /// The instruction's assembler text on `t` (family `e`).
    pub fn text(&self, e: Enc, t: &Target) -> String {
        use Enc::*;
        let gfx94 = t.generation == Generation::Gfx9 && t.architected_flat_scratch;
        match *self {
            Inst::WriteLane { vdst, src, lane } => {
                format!("v_writelane_b32 v{vdst}, {}, {lane}", src.text())
            }
            Inst::Mov32(d, s) => format!("s_mov_b32 {}, {}", sdst32(d), s.text()),
            Inst::Mov64(d, s) => format!("s_mov_b64 {}, {}", sdst64(d), s.text()),
            Inst::Mul(d, a, b) => format!("s_mul_i32 s{d}, s{a}, {}", b.text()),
            Inst::Add(d, a, b) => {
                let m = if e == Gfx12 {
                    "s_add_co_u32"
                } else {
                    "s_add_u32"
                };
                format!("{m} s{d}, s{a}, {}", b.text())
            }
            Inst::Addc(d, a, b) => {
                let m = if e == Gfx12 {
                    "s_add_co_ci_u32"
                } else {
                    "s_addc_u32"
                };
                format!("{m} s{d}, s{a}, {}", b.text())
            }
            Inst::VMov(d, s) => format!("v_mov_b32 v{d}, {}", s.text()),
            Inst::ReadFirstLane(d, v) => format!("v_readfirstlane_b32 s{d}, v{v}"),
            Inst::MbcntLo(d) => format!("v_mbcnt_lo_u32_b32 v{d}, -1, 0"),
            Inst::MbcntHi(d) => format!("v_mbcnt_hi_u32_b32 v{d}, -1, v{d}"),
            Inst::Shl(d, n) => format!("v_lshlrev_b32 v{d}, {n}, v{d}"),
            Inst::VAddCo(d, s, v) => {
                let m = if e == Si { "v_add_i32" } else { "v_add_u32" };
                format!("{m} v{d}, vcc, {}, v{v}", s.text())
            }
            Inst::VAddcZero(d) => format!("v_addc_u32 v{d}, vcc, 0, v{d}, vcc"),
            Inst::Nop(n) => format!("s_nop {n}"),
            Inst::Branch(off) => format!("s_branch {off}"),
            Inst::EndPgm => "s_endpgm".into(),
            Inst::WaitLoads => match e {
                Vi => "s_waitcnt vmcnt(0) lgkmcnt(0)".into(),
                Gfx12 => "s_wait_loadcnt 0x0".into(),
                _ => "s_waitcnt vmcnt(0)".into(),
            },
            Inst::BufferAtomicAdd {
                vdata,
                vaddr,
                srsrc,
            } => format!(
                "buffer_atomic_add v{vdata}, v[{vaddr}:{}], s[{srsrc}:{}], 0 addr64 glc",
                vaddr + 1,
                srsrc + 3
            ),
            Inst::BufferStore {
                vdata,
                vaddr,
                srsrc,
                offset,
            } => format!(
                "buffer_store_dword v{vdata}, v[{vaddr}:{}], s[{srsrc}:{}], 0 addr64{}",
                vaddr + 1,
                srsrc + 3,
                offset_text(offset)
            ),
            Inst::FlatAtomicAdd { vdst, vaddr, vdata } => {
                format!(
                    "flat_atomic_add v{vdst}, v[{vaddr}:{}], v{vdata} glc",
                    vaddr + 1
                )
            }
            Inst::FlatStore { vaddr, vdata } => {
                format!("flat_store_dword v[{vaddr}:{}], v{vdata}", vaddr + 1)
            }
            Inst::GlobalAtomicAdd {
                vdst,
                vaddr,
                vdata,
                saddr,
            } => {
                let (m, ret) = match e {
                    Gfx11 => ("global_atomic_add_u32", "glc"),
                    Gfx12 => ("global_atomic_add_u32", "th:TH_ATOMIC_RETURN"),
                    _ if gfx94 => ("global_atomic_add", "sc0"),
                    _ => ("global_atomic_add", "glc"),
                };
                format!(
                    "{m} v{vdst}, v{vaddr}, v{vdata}, s[{saddr}:{}] {ret}",
                    saddr + 1
                )
            }
            Inst::GlobalStore {
                vaddr,
                vdata,
                saddr,
                offset,
            } => {
                let m = if e >= Gfx11 {
                    "global_store_b32"
                } else {
                    "global_store_dword"
                };
                format!(
                    "{m} v{vaddr}, v{vdata}, s[{saddr}:{}]{}",
                    saddr + 1,
                    offset_text(offset)
                )
            }
            Inst::MovToM0(s) => format!("s_mov_b32 m0, {}", s.text()),
            Inst::MovFromM0(d) => format!("s_mov_b32 s{d}, m0"),
        }
    }
}

/// `m0`'s operand number on `e`: 124 before GFX11, 125 from GFX11 (where
/// 124 is `null`).
fn m0(e: Enc) -> u32 {
    if e >= Enc::Gfx11 {
        125
    } else {
        124
    }
}

fn offset_text(offset: u16) -> String {
    if offset == 0 {
        String::new()
    } else {
        format!(" offset:{offset}")
    }
}

fn sdst32(d: SDst) -> String {
    match d {
        SDst::S(n) => format!("s{n}"),
        SDst::Exec => "exec_lo".into(),
    }
}

fn sdst64(d: SDst) -> String {
    match d {
        SDst::S(n) => format!("s[{n}:{}]", n + 1),
        SDst::Exec => "exec".into(),
    }
}

/// MUBUF's second dword: address, data, resource (in units of 4 SGPRs)
/// and an inline-zero SOFFSET.
fn mubuf1(vaddr: u8, vdata: u8, srsrc: u8) -> u32 {
    u32::from(vaddr) | u32::from(vdata) << 8 | u32::from(srsrc / 4) << 16 | 0x80 << 24
}

/// A global (FLAT segment 2) store or returning atomic add.
fn global(
    e: Enc,
    atomic: bool,
    vdst: u8,
    vaddr: u8,
    vdata: u8,
    saddr: u8,
    offset: u16,
) -> Vec<u32> {
    let (vdst, vaddr, vdata, saddr) = (
        u32::from(vdst),
        u32::from(vaddr),
        u32::from(vdata),
        u32::from(saddr),
    );
    let off = u32::from(offset);
    match e {
        // GFX6-8 have no global instructions; the probe writer uses MUBUF
        // or FLAT there and never asks for these.
        Enc::Si | Enc::Vi | Enc::Gfx9 | Enc::Gfx10 => {
            debug_assert!(e >= Enc::Gfx9, "no global instructions before GFX9");
            let op = match (e, atomic) {
                (_, false) => 0x1c,
                (Enc::Gfx9, true) => 0x42,
                _ => 0x32,
            };
            // Segment 2 (global) at 15:14, glc at 16.
            let w0 = 0xdc00_0000 | op << 18 | u32::from(atomic) << 16 | 2 << 14 | off;
            vec![w0, vaddr | vdata << 8 | saddr << 16 | vdst << 24]
        }
        Enc::Gfx11 => {
            let op = if atomic { 0x35 } else { 0x1a };
            // Segment 2 at 17:16, glc at 14.
            let w0 = 0xdc00_0000 | op << 18 | 2 << 16 | u32::from(atomic) << 14 | off;
            vec![w0, vaddr | vdata << 8 | saddr << 16 | vdst << 24]
        }
        Enc::Gfx12 => {
            let op = if atomic { 0x35 } else { 0x1a };
            // VGLOBAL: op at 21:14, SADDR at 6:0; VDST 7:0, TH 22:20,
            // VDATA 30:23; VADDR 7:0, 24-bit offset 31:8.
            let w0 = 0xee00_0000 | op << 14 | saddr;
            let w1 = vdst | u32::from(atomic) << 20 | vdata << 23;
            vec![w0, w1, vaddr | off << 8]
        }
    }
}
