//! Immediates with a meaning of their own: hardware registers
//! (`hwreg`), messages (`sendmsg`), wait counters (`s_waitcnt`), the GFX10+
//! dependency counters (`s_waitcnt_depctr`), the GFX11+ ALU delays
//! (`s_delay_alu`), VGPR index modes (`gpr_idx`) and `s_version`; how each
//! decodes on a processor and how LLVM prints it.
//!
//! Sources: the ISA references' SOPP/SOPK chapters (S_WAITCNT, S_SENDMSG,
//! S_GETREG_B32 tables); LLVM's `AMDGPUInstPrinter.cpp` (printHwreg,
//! printSendMsg, printWaitFlag, printDepCtr, printDelayFlag,
//! printVGPRIndexMode) and `AMDGPUAsmUtils.cpp`/`AMDGPUBaseInfo.cpp` (the
//! name tables and field layouts), checked value by value against
//! libLLVM 19 and 22 (`tests/isa_libllvm.rs`).

use std::fmt::{self, Write};

use super::gen::IsaGen;
use crate::targets::{Generation, Target};

/// Whose syntax to print: LLVM 22's, or LLVM 19's where it differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// LLVM 22 (the default everywhere).
    Llvm22,
    /// LLVM 19.
    Llvm19,
}

fn gfx9_10(t: &Target) -> bool {
    matches!(t.generation, Generation::Gfx9 | Generation::Gfx10)
}
fn gfx9_11(t: &Target) -> bool {
    matches!(
        t.generation,
        Generation::Gfx9 | Generation::Gfx10 | Generation::Gfx11
    )
}
fn gfx10_11(t: &Target) -> bool {
    matches!(t.generation, Generation::Gfx10 | Generation::Gfx11)
}
fn before_gfx10(t: &Target) -> bool {
    t.generation < Generation::Gfx10
}
fn before_gfx12(t: &Target) -> bool {
    t.generation < Generation::Gfx12
}
fn gfx10_plus(t: &Target) -> bool {
    t.generation >= Generation::Gfx10
}
fn gfx10_1(t: &Target) -> bool {
    t.generation == Generation::Gfx10 && t.scalar_stores
}
fn gfx10_3_11(t: &Target) -> bool {
    (t.generation == Generation::Gfx10 && !t.scalar_stores) || t.generation == Generation::Gfx11
}
fn gfx10(t: &Target) -> bool {
    t.generation == Generation::Gfx10
}
fn gfx11(t: &Target) -> bool {
    t.generation == Generation::Gfx11
}
fn gfx12_plus(t: &Target) -> bool {
    t.generation >= Generation::Gfx12
}
fn gfx12_5(t: &Target) -> bool {
    t.is_gfx12_5()
}
/// The gfx94x family (gfx940, gfx941, gfx942, gfx950, gfx9-4-generic):
/// GFX9 with architected flat scratch.
fn gfx94x(t: &Target) -> bool {
    t.generation == Generation::Gfx9 && t.architected_flat_scratch
}

/// A hardware register name: its id, LLVM 22's name, LLVM 19's where it
/// differs (the empty string: LLVM 19 has no name, it prints the id),
/// and the processors that have it.
struct Hwreg {
    id: u8,
    name: &'static str,
    name19: Option<&'static str>,
    on: fn(&Target) -> bool,
}

/// A name LLVM 19 does not have (it prints the number).
const fn hw22(id: u8, name: &'static str, on: fn(&Target) -> bool) -> Hwreg {
    hw19(id, name, "", on)
}

const fn hw(id: u8, name: &'static str, on: fn(&Target) -> bool) -> Hwreg {
    Hwreg {
        id,
        name,
        name19: None,
        on,
    }
}

const fn hw19(id: u8, name: &'static str, name19: &'static str, on: fn(&Target) -> bool) -> Hwreg {
    Hwreg {
        id,
        name,
        name19: Some(name19),
        on,
    }
}

/// The hardware register names, as LLVM 22 and 19 print them (a
/// processor has at most one name per id).
static HWREGS: &[Hwreg] = &[
    hw(1, "HW_REG_MODE", before_gfx12),
    hw19(1, "HW_REG_WAVE_MODE", "HW_REG_MODE", gfx12_plus),
    hw(2, "HW_REG_STATUS", before_gfx12),
    hw19(2, "HW_REG_WAVE_STATUS", "HW_REG_STATUS", gfx12_plus),
    hw(3, "HW_REG_TRAPSTS", before_gfx12),
    hw(4, "HW_REG_HW_ID", before_gfx10),
    hw19(4, "HW_REG_WAVE_STATE_PRIV", "HW_REG_STATE_PRIV", gfx12_plus),
    hw(5, "HW_REG_GPR_ALLOC", before_gfx12),
    hw19(5, "HW_REG_WAVE_GPR_ALLOC", "HW_REG_GPR_ALLOC", gfx12_plus),
    hw(6, "HW_REG_LDS_ALLOC", before_gfx12),
    hw19(6, "HW_REG_WAVE_LDS_ALLOC", "HW_REG_LDS_ALLOC", gfx12_plus),
    hw(7, "HW_REG_IB_STS", |_| true),
    hw(10, "HW_REG_PERF_SNAPSHOT_DATA", gfx12_plus),
    hw(11, "HW_REG_PERF_SNAPSHOT_PC_LO", gfx12_plus),
    hw(12, "HW_REG_PERF_SNAPSHOT_PC_HI", gfx12_plus),
    hw(15, "HW_REG_SH_MEM_BASES", gfx9_11),
    hw(15, "HW_REG_PERF_SNAPSHOT_DATA1", gfx12_plus),
    hw(16, "HW_REG_TBA_LO", gfx9_10),
    hw(16, "HW_REG_PERF_SNAPSHOT_DATA2", gfx12_plus),
    hw(17, "HW_REG_TBA_HI", gfx9_10),
    hw19(
        17,
        "HW_REG_WAVE_EXCP_FLAG_PRIV",
        "HW_REG_EXCP_FLAG_PRIV",
        gfx12_plus,
    ),
    hw(18, "HW_REG_TMA_LO", gfx9_10),
    hw(18, "HW_REG_PERF_SNAPSHOT_PC_LO", gfx11),
    hw19(
        18,
        "HW_REG_WAVE_EXCP_FLAG_USER",
        "HW_REG_EXCP_FLAG_USER",
        gfx12_plus,
    ),
    hw(19, "HW_REG_TMA_HI", gfx9_10),
    hw(19, "HW_REG_PERF_SNAPSHOT_PC_HI", gfx11),
    hw19(19, "HW_REG_WAVE_TRAP_CTRL", "HW_REG_TRAP_CTRL", gfx12_plus),
    hw(20, "HW_REG_XCC_ID", gfx94x),
    hw(20, "HW_REG_FLAT_SCR_LO", gfx10_11),
    hw19(
        20,
        "HW_REG_WAVE_SCRATCH_BASE_LO",
        "HW_REG_SCRATCH_BASE_LO",
        gfx12_plus,
    ),
    hw(21, "HW_REG_SQ_PERF_SNAPSHOT_DATA", gfx94x),
    hw(21, "HW_REG_FLAT_SCR_HI", gfx10_11),
    hw19(
        21,
        "HW_REG_WAVE_SCRATCH_BASE_HI",
        "HW_REG_SCRATCH_BASE_HI",
        gfx12_plus,
    ),
    hw(22, "HW_REG_SQ_PERF_SNAPSHOT_DATA1", gfx94x),
    hw(22, "HW_REG_XNACK_MASK", gfx10_1),
    hw(23, "HW_REG_SQ_PERF_SNAPSHOT_PC_LO", gfx94x),
    hw(23, "HW_REG_HW_ID1", gfx10_11),
    hw19(23, "HW_REG_WAVE_HW_ID1", "HW_REG_HW_ID1", gfx12_plus),
    hw(24, "HW_REG_SQ_PERF_SNAPSHOT_PC_HI", gfx94x),
    hw(24, "HW_REG_HW_ID2", gfx10_11),
    hw19(24, "HW_REG_WAVE_HW_ID2", "HW_REG_HW_ID2", gfx12_plus),
    hw(25, "HW_REG_POPS_PACKER", gfx10),
    hw22(26, "HW_REG_WAVE_SCHED_MODE", gfx12_plus),
    hw(27, "HW_REG_PERF_SNAPSHOT_DATA", gfx11),
    hw(28, "HW_REG_IB_STS2", gfx12_5),
    hw(29, "HW_REG_SHADER_CYCLES", gfx10_3_11),
    hw(29, "HW_REG_SHADER_CYCLES_LO", gfx12_plus),
    hw(30, "HW_REG_SHADER_CYCLES_HI", gfx12_plus),
    hw19(
        31,
        "HW_REG_WAVE_DVGPR_ALLOC_LO",
        "HW_REG_DVGPR_ALLOC_LO",
        gfx12_plus,
    ),
    hw19(
        32,
        "HW_REG_WAVE_DVGPR_ALLOC_HI",
        "HW_REG_DVGPR_ALLOC_HI",
        gfx12_plus,
    ),
    hw(33, "HW_REG_XNACK_STATE_PRIV", gfx12_5),
    hw(34, "HW_REG_XNACK_MASK", gfx12_5),
];

/// The name of hardware register `id` on `t`, if it has one.
pub fn hwreg_name(t: &Target, id: u8, d: Dialect) -> Option<&'static str> {
    let h = HWREGS.iter().find(|h| h.id == id && (h.on)(t))?;
    match d {
        Dialect::Llvm19 => Some(h.name19.unwrap_or(h.name)).filter(|n| !n.is_empty()),
        Dialect::Llvm22 => Some(h.name),
    }
}

/// `hwreg(ID_OR_NAME[, OFFSET, SIZE])`: id in bits 5:0, offset in 10:6,
/// size minus 1 in 15:11; offset and size are left out when they are 0
/// and 32.
pub fn write_hwreg(out: &mut impl Write, t: &Target, v: u16, d: Dialect) -> fmt::Result {
    let id = (v & 0x3f) as u8;
    let offset = (v >> 6) & 0x1f;
    let size = ((v >> 11) & 0x1f) + 1;
    out.write_str("hwreg(")?;
    match hwreg_name(t, id, d) {
        Some(n) => out.write_str(n)?,
        None => write!(out, "{id}")?,
    }
    if offset != 0 || size != 32 {
        write!(out, ", {offset}, {size}")?;
    }
    out.write_str(")")
}

/// The `s_waitcnt` counters of a generation: (name, the bit fields that
/// hold it, low part first).
fn waitcnt_fields(gen: IsaGen) -> [(&'static str, &'static [(u8, u8)]); 3] {
    match gen {
        IsaGen::Gfx8 => [
            ("vmcnt", &[(0, 4)]),
            ("expcnt", &[(4, 3)]),
            ("lgkmcnt", &[(8, 4)]),
        ],
        IsaGen::Gfx9 => [
            ("vmcnt", &[(0, 4), (14, 2)]),
            ("expcnt", &[(4, 3)]),
            ("lgkmcnt", &[(8, 4)]),
        ],
        IsaGen::Gfx10 => [
            ("vmcnt", &[(0, 4), (14, 2)]),
            ("expcnt", &[(4, 3)]),
            ("lgkmcnt", &[(8, 6)]),
        ],
        IsaGen::Gfx11 | IsaGen::Gfx12 => [
            ("vmcnt", &[(10, 6)]),
            ("expcnt", &[(0, 3)]),
            ("lgkmcnt", &[(4, 6)]),
        ],
    }
}

/// `vmcnt(N) expcnt(N) lgkmcnt(N)`: the counters that are not at their
/// maximum (no wait), or all three when every one is.
pub fn write_waitcnt(out: &mut impl Write, gen: IsaGen, v: u16) -> fmt::Result {
    let fields = waitcnt_fields(gen);
    let vals: Vec<(&str, u32, u32)> = fields
        .iter()
        .map(|(name, parts)| {
            let mut val = 0u32;
            let mut max = 0u32;
            let mut at = 0;
            for &(lo, w) in *parts {
                val |= ((u32::from(v) >> lo) & ((1 << w) - 1)) << at;
                max |= ((1 << w) - 1) << at;
                at += w;
            }
            (*name, val, max)
        })
        .collect();
    let all = vals.iter().all(|(_, v, m)| v == m);
    let mut sep = "";
    for (name, val, max) in vals {
        if all || val != max {
            write!(out, "{sep}{name}({val})")?;
            sep = " ";
        }
    }
    Ok(())
}

/// A `s_waitcnt_depctr` field: name, bit offset, width, and whether the
/// processor has it.
struct DepField {
    name: &'static str,
    lo: u8,
    width: u8,
    on: fn(&Target) -> bool,
}

/// The dependency counter fields, in the order LLVM prints them.
static DEPCTR: &[DepField] = &[
    DepField {
        name: "depctr_hold_cnt",
        lo: 7,
        width: 1,
        on: |t| t.generation >= Generation::Gfx10 && !gfx10_1(t),
    },
    DepField {
        name: "depctr_sa_sdst",
        lo: 0,
        width: 1,
        on: gfx10_plus,
    },
    DepField {
        name: "depctr_va_vdst",
        lo: 12,
        width: 4,
        on: gfx10_plus,
    },
    DepField {
        name: "depctr_va_sdst",
        lo: 9,
        width: 3,
        on: gfx10_plus,
    },
    DepField {
        name: "depctr_va_ssrc",
        lo: 8,
        width: 1,
        on: gfx10_plus,
    },
    DepField {
        name: "depctr_va_vcc",
        lo: 1,
        width: 1,
        on: gfx10_plus,
    },
    DepField {
        name: "depctr_vm_vsrc",
        lo: 2,
        width: 3,
        on: gfx10_plus,
    },
];

/// `depctr_NAME(N) ...`: the fields that are not at their default (all
/// ones), or all of them when none is; hex when bits outside the
/// processor's fields are set.
pub fn write_depctr(out: &mut impl Write, t: &Target, v: u16) -> fmt::Result {
    let fields: Vec<&DepField> = DEPCTR.iter().filter(|f| (f.on)(t)).collect();
    let used = fields
        .iter()
        .fold(0u16, |m, f| m | (((1u16 << f.width) - 1) << f.lo));
    if v & !used != 0 {
        return write!(out, "{v:#x}");
    }
    let val = |f: &DepField| (v >> f.lo) & ((1 << f.width) - 1);
    let dflt = |f: &DepField| (1u16 << f.width) - 1;
    let any = fields.iter().any(|f| val(f) != dflt(f));
    let mut sep = "";
    for f in fields {
        if val(f) != dflt(f) || !any {
            write!(out, "{sep}{}({})", f.name, val(f))?;
            sep = " ";
        }
    }
    Ok(())
}

/// `instid0(...) | instskip(...) | instid1(...)` of `s_delay_alu`, or `0`.
pub fn write_delay_alu(out: &mut impl Write, v: u16) -> fmt::Result {
    const IDS: [&str; 12] = [
        "NO_DEP",
        "VALU_DEP_1",
        "VALU_DEP_2",
        "VALU_DEP_3",
        "VALU_DEP_4",
        "TRANS32_DEP_1",
        "TRANS32_DEP_2",
        "TRANS32_DEP_3",
        "FMA_ACCUM_CYCLE_1",
        "SALU_CYCLE_1",
        "SALU_CYCLE_2",
        "SALU_CYCLE_3",
    ];
    const SKIPS: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];
    let mut sep = "";
    for (name, x, table) in [
        ("instid0", v & 0xf, &IDS[..]),
        ("instskip", (v >> 4) & 7, &SKIPS[..]),
        ("instid1", (v >> 7) & 0xf, &IDS[..]),
    ] {
        if x != 0 {
            let n = table.get(usize::from(x)).copied();
            match n {
                Some(n) => write!(out, "{sep}{name}({n})")?,
                None if name == "instskip" => {
                    write!(out, "{sep}{name}(/* invalid instskip value */)")?
                }
                None => write!(out, "{sep}{name}(/* invalid instid value */)")?,
            }
            sep = " | ";
        }
    }
    if sep.is_empty() {
        out.write_str("0")?;
    }
    Ok(())
}

/// `gpr_idx(SRC0,SRC1,SRC2,DST)` for the enable bits 3:0, hex when other
/// bits are set.
pub fn write_gpr_idx(out: &mut impl Write, v: u16) -> fmt::Result {
    if v & !0xf != 0 {
        return write!(out, "{v:#x}");
    }
    out.write_str("gpr_idx(")?;
    let mut sep = "";
    for (i, n) in ["SRC0", "SRC1", "SRC2", "DST"].iter().enumerate() {
        if v >> i & 1 == 1 {
            write!(out, "{sep}{n}")?;
            sep = ",";
        }
    }
    out.write_str(")")
}

/// `s_version`: the version (bits 7:0) by name where it has one, then
/// `|UC_VERSION_W64_BIT` (13), `|UC_VERSION_W32_BIT` (14) and
/// `|UC_VERSION_MDP_BIT` (15) as LLVM prints an OR expression (each
/// earlier part in parentheses); hex when bits 12:8 are set.
pub fn write_version(out: &mut impl Write, v: u16) -> fmt::Result {
    if v & 0x1f00 != 0 {
        return write!(out, "{v:#x}");
    }
    let mut text = match v & 0xff {
        0 => "UC_VERSION_GFX7".to_owned(),
        4 => "UC_VERSION_GFX10".to_owned(),
        6 => "UC_VERSION_GFX11".to_owned(),
        9 => "UC_VERSION_GFX12".to_owned(),
        n => n.to_string(),
    };
    let mut binary = false;
    for (bit, name) in [
        (13, "UC_VERSION_W64_BIT"),
        (14, "UC_VERSION_W32_BIT"),
        (15, "UC_VERSION_MDP_BIT"),
    ] {
        if v >> bit & 1 == 1 {
            text = if binary {
                format!("({text})|{name}")
            } else {
                format!("{text}|{name}")
            };
            binary = true;
        }
    }
    out.write_str(&text)
}

/// A message name and the processors that have it.
struct Msg {
    id: u8,
    name: &'static str,
    on: fn(&Target) -> bool,
}

/// The message names (LLVM `AMDGPUAsmUtils.cpp` MsgOperands).
static MSGS: &[Msg] = &[
    Msg {
        id: 1,
        name: "MSG_INTERRUPT",
        on: |_| true,
    },
    Msg {
        id: 2,
        name: "MSG_GS",
        on: |t| t.generation < Generation::Gfx11,
    },
    Msg {
        id: 3,
        name: "MSG_GS_DONE",
        on: |t| t.generation < Generation::Gfx11,
    },
    Msg {
        id: 4,
        name: "MSG_SAVEWAVE",
        on: |t| t.generation <= Generation::Gfx10,
    },
    Msg {
        id: 5,
        name: "MSG_STALL_WAVE_GEN",
        on: gfx9_11,
    },
    Msg {
        id: 6,
        name: "MSG_HALT_WAVES",
        on: gfx9_11,
    },
    Msg {
        id: 7,
        name: "MSG_ORDERED_PS_DONE",
        on: gfx9_10,
    },
    Msg {
        id: 8,
        name: "MSG_EARLY_PRIM_DEALLOC",
        on: gfx9_10,
    },
    Msg {
        id: 9,
        name: "MSG_GS_ALLOC_REQ",
        on: |t| t.generation >= Generation::Gfx9,
    },
    Msg {
        id: 10,
        name: "MSG_GET_DOORBELL",
        on: gfx9_10,
    },
    Msg {
        id: 11,
        name: "MSG_GET_DDID",
        on: gfx10,
    },
    Msg {
        id: 2,
        name: "MSG_HS_TESSFACTOR",
        on: |t| t.generation >= Generation::Gfx11,
    },
    Msg {
        id: 3,
        name: "MSG_DEALLOC_VGPRS",
        on: |t| t.generation >= Generation::Gfx11,
    },
    Msg {
        id: 15,
        name: "MSG_SYSMSG",
        on: |_| true,
    },
    Msg {
        id: 128,
        name: "MSG_RTN_GET_DOORBELL",
        on: |t| t.generation >= Generation::Gfx11,
    },
    Msg {
        id: 129,
        name: "MSG_RTN_GET_DDID",
        on: |t| t.generation >= Generation::Gfx11,
    },
    Msg {
        id: 130,
        name: "MSG_RTN_GET_TMA",
        on: |t| t.generation >= Generation::Gfx11,
    },
    Msg {
        id: 131,
        name: "MSG_RTN_GET_REALTIME",
        on: |t| t.generation >= Generation::Gfx11,
    },
    Msg {
        id: 132,
        name: "MSG_RTN_SAVE_WAVE",
        on: |t| t.generation >= Generation::Gfx11,
    },
    Msg {
        id: 133,
        name: "MSG_RTN_GET_TBA",
        on: |t| t.generation >= Generation::Gfx11,
    },
    Msg {
        id: 134,
        name: "MSG_RTN_GET_TBA_TO_PC",
        on: |t| t.generation >= Generation::Gfx11,
    },
    Msg {
        id: 135,
        name: "MSG_RTN_GET_SE_AID_ID",
        on: gfx12_plus,
    },
    // GFX12.5 (llvm-mc-22 -mcpu=gfx1250 prints them; gfx1200 the numbers).
    Msg {
        id: 10,
        name: "MSG_SAVEWAVE_HAS_TDM",
        on: |t| t.is_gfx12_5(),
    },
    Msg {
        id: 136,
        name: "MSG_RTN_GET_CLUSTER_BARRIER_STATE",
        on: |t| t.is_gfx12_5(),
    },
];

const MSG_GS: u16 = 2;
const MSG_GS_DONE: u16 = 3;
const MSG_SYSMSG: u16 = 15;

/// `sendmsg(NAME[, OP[, STREAM]])` for a message, operation and stream the
/// processor names, `sendmsg(ID, OP, STREAM)` for other values the
/// fields hold exactly, else the decimal value.
///
/// Fields: the message in bits 3:0 (7:0 from GFX11), the operation in
/// 6:4, the GS stream in 9:8.
pub fn write_sendmsg(out: &mut impl Write, t: &Target, v: u16) -> fmt::Result {
    let gfx11 = t.generation >= Generation::Gfx11;
    let id_mask: u16 = if gfx11 { 0xff } else { 0xf };
    let id = v & id_mask;
    let op = (v >> 4) & 7;
    let stream = (v >> 8) & 3;
    let name = MSGS
        .iter()
        .find(|m| u16::from(m.id) == id && (m.on)(t))
        .map(|m| m.name);
    let gs = !gfx11 && (id == MSG_GS || id == MSG_GS_DONE);
    let requires_op = id == MSG_SYSMSG || gs;
    let op_name = if id == MSG_SYSMSG {
        match op {
            1 => Some("SYSMSG_OP_ECC_ERR_INTERRUPT"),
            2 => Some("SYSMSG_OP_REG_RD"),
            3 if t.generation < Generation::Gfx9 => Some("SYSMSG_OP_HOST_TRAP_ACK"),
            4 => Some("SYSMSG_OP_TTRACE_PC"),
            _ => None,
        }
    } else if gs {
        ["GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"]
            .get(usize::from(op))
            .copied()
    } else {
        None
    };
    // On GFX11+ the operation and stream bits overlap the message id.
    let (op, stream) = if gfx11 { (0, 0) } else { (op, stream) };
    let valid_op = if requires_op {
        !(id == MSG_GS && op == 0) && op_name.is_some()
    } else {
        op == 0
    };
    let valid_stream = if !gfx11 && id == MSG_GS {
        stream < 4
    } else if !gfx11 && id == MSG_GS_DONE {
        if op == 0 {
            stream == 0
        } else {
            stream < 4
        }
    } else {
        stream == 0
    };
    let encoded = if gfx11 {
        id
    } else {
        id | op << 4 | stream << 8
    };
    match name {
        Some(n) if valid_op && valid_stream => {
            write!(out, "sendmsg({n}")?;
            if requires_op {
                write!(out, ", {}", op_name.unwrap_or(""))?;
                if gs && op != 0 {
                    write!(out, ", {stream}")?;
                }
            }
            out.write_str(")")
        }
        _ if encoded == v => write!(out, "sendmsg({id}, {op}, {stream})"),
        _ => write!(out, "{v}"),
    }
}
