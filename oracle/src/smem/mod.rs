//! SMEM (scalar memory) instructions of GFX8 to GFX12.5: opcode tables,
//! decode with a verdict, encode, and text exactly as `llvm-mc-19` prints
//! (GFX12.5, which LLVM 19 does not know: as `llvm-mc-22` prints).
//!
//! Scope: the 64-bit SMEM encodings of GFX8 (gfx801–gfx810), GFX9
//! (gfx900–gfx950), GFX10 (gfx1010–gfx1013 with scalar stores and atomics,
//! gfx1030 and later without), GFX11, GFX12 and GFX12.5 (gfx1250,
//! gfx1251: GFX12's opcodes plus the `nv` and `scale_offset` modifiers).
//!
//! LLVM's disassembler accepts many words whose operands lie outside the
//! register class (it prints them with a comment, rounded down, or as
//! `v0`); this model calls them invalid, with a reason. Bits LLVM ignores
//! (GFX9 NV, unused offset bits, ...) make a word valid but non-canonical.
//! `tests/smem_llvm.rs` lists each such difference as a known divergence.

use std::fmt;

use crate::targets::{Generation, Target};

pub mod code;
pub mod exec;
pub mod forms;
pub mod parse;
pub mod table;

pub use table::{Class, OpInfo};

crate::declare_rules! {
    ENCODING = (Error, "smem.encoding",
        "Bits 31:26 of an SMEM word hold the family's SMEM encoding: 0x30 on GFX8/GFX9, 0x3D on GFX10-GFX12.",
        "gcn-smem-instructions.md: SMEM microcode format; NOTES.md: SMEM encodings after GFX9");
    OPCODE = (Error, "smem.opcode",
        "The OPCODE field names an instruction the processor's family defines (GFX12: bits 18:13; earlier: 25:18).",
        "gcn-smem-instructions.md: opcode table; NOTES.md: SMEM encodings after GFX9; llvm-mc-19 (instruction not supported on this GPU)");
    SDATA_CLASS = (Error, "smem.sdata.class",
        "SDATA names a register tuple of the instruction's width in its class: SGPRs, VCC, trap temporaries, aligned to 2 for pairs and 4 for wider tuples, or null (GFX10+, any width); never M0 or EXEC as a destination.",
        "gcn-smem-instructions.md: SDATA field; SMInstructions.td (SReg_32_XM0_XEXEC, SReg_64_XEXEC, SReg_96..SReg_512); docs/errata.md SMEM 17 (null, llvm-mc-22 -mcpu=gfx1030)");
    SDATA_IMMEDIATE = (Error, "smem.sdata.immediate",
        "On GFX12 the probe and prefetch immediate held in SDATA is at most 31 (LLVM's disassembler rejects larger values).",
        "llvm-mc-19 -mcpu=gfx1200 --disassemble; docs/errata.md SMEM 13");
    SBASE_CLASS = (Error, "smem.sbase.class",
        "SBASE names an SGPR pair (address) or an SGPR quad aligned to 4 (buffer resource), VCC, EXEC or a trap-temporary tuple, or null as a GFX11+ address (not a buffer resource); never M0.",
        "gcn-smem-instructions.md: SBASE field; SMInstructions.td (SReg_64, SReg_128); docs/errata.md SMEM 17 (null, llvm-mc-19 -mcpu=gfx1100)");
    IMM_WITHOUT_OFFSET = (Error, "smem.imm_without_offset",
        "GFX8/GFX9 instructions without an offset operand (s_memtime, s_memrealtime, s_dcache_*) have IMM (bit 17) clear.",
        "llvm-mc-19 -mcpu=gfx803 --disassemble; docs/errata.md SMEM 6");
    CPOL_UNSUPPORTED = (Error, "smem.cpol.unsupported",
        "On GFX11, DLC and GLC (bits 13 and 14) are clear on instructions that have no cache-policy modifiers (probes, cache operations).",
        "llvm-mc-19 -mcpu=gfx1100 --disassemble");
    OFFSET_NULL = (Error, "smem.offset.null",
        "GFX8/GFX9 SGPR offsets do not name register 125, which is the null register only from GFX10 (LLVM's assembler rejects null there).",
        "llvm-mc-19 -mcpu=gfx900 ('null' operand is not supported on this GPU)");
    OFFSET_BUFFER_NEGATIVE = (Error, "smem.offset.buffer_negative",
        "The immediate offset of a buffer instruction is unsigned: 20 bits before GFX12, 23 bits on GFX12 (a set bit 23 of the 24-bit field is a negative offset the hardware does not allow); such a word has no assembler form.",
        "gcn-smem-instructions.md: OFFSET field; llvm-mc-22 -mcpu=gfx1200 (expected a 23-bit unsigned offset for buffer ops); docs/errata.md SMEM 5 and 11");
    NONCANONICAL = (Warning, "smem.noncanonical",
        "Bits the instruction does not use are 0 (LLVM ignores them, e.g. GFX9 NV, unused OFFSET bits, GFX12 th/scope on probes).",
        "gcn-smem-instructions.md: SMEM microcode format; docs/errata.md SMEM 4 and 12");
}

impl InvalidReason {
    /// The catalogue rule this reason breaks.
    pub fn rule(&self) -> &'static crate::rules::Rule {
        match self {
            Self::Encoding(_) => &ENCODING,
            Self::Opcode(_) => &OPCODE,
            Self::SdataRegister(_) => &SDATA_CLASS,
            Self::SdataImmediate(_) => &SDATA_IMMEDIATE,
            Self::SbaseRegister(_) => &SBASE_CLASS,
            Self::ImmWithoutOffset => &IMM_WITHOUT_OFFSET,
            Self::CpolWithoutModifiers => &CPOL_UNSUPPORTED,
            Self::OffsetNull => &OFFSET_NULL,
            Self::BufferOffsetNegative(_) => &OFFSET_BUFFER_NEGATIVE,
        }
    }
}

impl Verdict {
    /// The catalogue rule the word breaks, if any.
    pub fn rule(&self) -> Option<&'static crate::rules::Rule> {
        match self {
            Self::Valid => None,
            Self::NonCanonical { .. } => Some(&NONCANONICAL),
            Self::Invalid(r) => Some(r.rule()),
        }
    }
}

/// The SMEM encoding family of a processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SmemGen {
    /// GFX8: 20-bit unsigned immediate, no SOE/soffset.
    Gfx8,
    /// GFX9: 21-bit signed immediate, SOE and soffset, scalar atomics.
    Gfx9,
    /// gfx1010–gfx1013: encoding 0x3D, DLC, SOFFSET always present (null
    /// when unused), scalar stores and atomics.
    Gfx10_1,
    /// gfx1030 and later GFX10: as [`SmemGen::Gfx10_1`] without stores,
    /// atomics, scratch and discard.
    Gfx10_3,
    /// GFX11: GFX10's layout with DLC at bit 13, GLC at bit 14, null = 124
    /// and m0 = 125, `_bNN` mnemonics, loads/probes/cache ops only.
    Gfx11,
    /// GFX12: opcode at bits 18:13, scope (22:21) and temporal hint
    /// (24:23) instead of GLC/DLC, 24-bit signed offset, sub-dword and
    /// 96-bit loads, prefetches.
    Gfx12,
    /// GFX12.5 (gfx1250, gfx1251): GFX12's layout and opcodes, plus NV
    /// ([`SmemGen::nv_bit`]) on loads and SCALE_OFFSET
    /// ([`SmemGen::scale_offset_bit`]) on non-buffer loads (llvm-mc-22;
    /// docs/errata.md SMEM 18).
    Gfx12_5,
}

impl SmemGen {
    /// The SMEM family of a target, or `None` when it is not modelled.
    pub fn for_target(t: &Target) -> Option<Self> {
        match t.generation {
            Generation::Gfx8 => Some(Self::Gfx8),
            Generation::Gfx9 => Some(Self::Gfx9),
            Generation::Gfx10 if t.name.starts_with("gfx101") || t.name == "gfx10-1-generic" => {
                Some(Self::Gfx10_1)
            }
            Generation::Gfx10 => Some(Self::Gfx10_3),
            Generation::Gfx11 => Some(Self::Gfx11),
            Generation::Gfx12 if t.is_gfx12_5() => Some(Self::Gfx12_5),
            Generation::Gfx12 => Some(Self::Gfx12),
            _ => None,
        }
    }
    /// True for the GFX10 encodings.
    pub fn is_gfx10(self) -> bool {
        matches!(self, Self::Gfx10_1 | Self::Gfx10_3)
    }
    /// True for the GFX10–GFX12.5 layout: no IMM/SOE, SOFFSET always
    /// present (null when unused).
    pub fn is_rdna(self) -> bool {
        matches!(
            self,
            Self::Gfx10_1 | Self::Gfx10_3 | Self::Gfx11 | Self::Gfx12 | Self::Gfx12_5
        )
    }
    /// True for the GFX12 layout (GFX12 and GFX12.5): opcode at bits
    /// 18:13, th/scope instead of GLC/DLC, a 24-bit offset, 5-bit probe
    /// and prefetch immediates.
    pub fn is_gfx12(self) -> bool {
        matches!(self, Self::Gfx12 | Self::Gfx12_5)
    }
    /// Register number of `null`.
    pub fn null(self) -> u8 {
        if matches!(self, Self::Gfx11 | Self::Gfx12 | Self::Gfx12_5) {
            124
        } else {
            125
        }
    }
    /// Register number of `m0`.
    pub fn m0(self) -> u8 {
        if matches!(self, Self::Gfx11 | Self::Gfx12 | Self::Gfx12_5) {
            125
        } else {
            124
        }
    }
    /// Bit position of GLC (none on GFX12, which has scope and th).
    pub fn glc_bit(self) -> Option<u32> {
        match self {
            Self::Gfx8 | Self::Gfx9 | Self::Gfx10_1 | Self::Gfx10_3 => Some(16),
            Self::Gfx11 => Some(14),
            Self::Gfx12 | Self::Gfx12_5 => None,
        }
    }
    /// Bit position of DLC (GFX10 and GFX11 only).
    pub fn dlc_bit(self) -> Option<u32> {
        match self {
            Self::Gfx10_1 | Self::Gfx10_3 => Some(14),
            Self::Gfx11 => Some(13),
            Self::Gfx8 | Self::Gfx9 | Self::Gfx12 | Self::Gfx12_5 => None,
        }
    }
    /// Bit position of NV, the non-volatile hint (GFX12.5 only:
    /// `s_load_b32 s4, s[2:3], 0x10 nv` is
    /// `[0x01,0x01,0x10,0xf4,0x10,0x00,0x00,0xf8]` with llvm-mc-22
    /// -mcpu=gfx1250). [`SmemGen::has_nv`] says which instructions take it.
    pub fn nv_bit(self) -> Option<u32> {
        match self {
            Self::Gfx12_5 => Some(20),
            _ => None,
        }
    }
    /// Bit position of SCALE_OFFSET (GFX12.5 only: `s_load_b32 s4, s[2:3],
    /// s5 offset:0x10 scale_offset` is
    /// `[0x01,0x01,0x00,0xf4,0x10,0x00,0x00,0x0b]` with llvm-mc-22
    /// -mcpu=gfx1250). [`SmemGen::has_scale_offset`] says which
    /// instructions take it.
    pub fn scale_offset_bit(self) -> Option<u32> {
        match self {
            Self::Gfx12_5 => Some(56),
            _ => None,
        }
    }
    /// True when instructions of class `c` take `nv` on this family: loads
    /// and buffer loads of GFX12.5 (llvm-mc-22 -mcpu=gfx1250 refuses it
    /// on probes, prefetches and `s_dcache_inv`, "invalid operand for
    /// instruction", and its disassembler ignores the bit there).
    pub fn has_nv(self, c: Class) -> bool {
        self.nv_bit().is_some() && matches!(c, Class::Load | Class::BufferLoad)
    }
    /// True when instructions of class `c` take `scale_offset` on this
    /// family: non-buffer loads of GFX12.5 (llvm-mc-22 -mcpu=gfx1250
    /// refuses it on `s_buffer_load_*`, "scale_offset is not supported for
    /// this instruction", and on probes and prefetches).
    pub fn has_scale_offset(self, c: Class) -> bool {
        self.scale_offset_bit().is_some() && c == Class::Load
    }
    /// The OPCODE field's position and width.
    pub fn opcode_field(self) -> (u32, u32) {
        if self.is_gfx12() {
            (13, 6)
        } else {
            (18, 8)
        }
    }
    /// Immediate offset range (inclusive) LLVM accepts for an instruction
    /// of class `c`: GFX8 20-bit unsigned; GFX9–GFX11 21-bit signed, but
    /// buffer forms 20-bit unsigned; GFX12 24-bit signed, but buffer forms
    /// 23-bit unsigned (LLVM 22; LLVM 19 took them signed: errata SMEM 11).
    pub fn offset_range(self, c: Class) -> (i32, i32) {
        match self {
            Self::Gfx12 | Self::Gfx12_5 if c.buffer_base() => (0, (1 << 23) - 1),
            Self::Gfx12 | Self::Gfx12_5 => (-(1 << 23), (1 << 23) - 1),
            Self::Gfx8 => (0, (1 << 20) - 1),
            _ if c.buffer_base() => (0, (1 << 20) - 1),
            _ => (-(1 << 20), (1 << 20) - 1),
        }
    }
    /// The value of ENCODING (bits 31:26) that marks an SMEM word.
    pub fn encoding(self) -> u8 {
        if self.is_rdna() {
            0x3d
        } else {
            0x30
        }
    }
    /// The opcode table of this family.
    pub fn table(self) -> &'static [OpInfo] {
        match self {
            Self::Gfx8 => table::GFX8,
            Self::Gfx9 => table::GFX9,
            Self::Gfx10_1 => table::GFX10_1,
            Self::Gfx10_3 => table::GFX10_3,
            Self::Gfx11 => table::GFX11,
            Self::Gfx12 | Self::Gfx12_5 => table::GFX12,
        }
    }
    /// Looks up an opcode.
    pub fn op(self, opcode: u8) -> Option<&'static OpInfo> {
        let i = self.tables().index[usize::from(opcode)];
        self.table().get(usize::from(i))
    }
    /// Per-family lookup tables, built once, so that decoding neither
    /// searches the opcode table nor walks the register-class rules.
    fn tables(self) -> &'static GenTables {
        use std::sync::OnceLock;
        static TABLES: [OnceLock<GenTables>; SmemGen::ALL.len()] =
            [const { OnceLock::new() }; SmemGen::ALL.len()];
        TABLES[self as usize].get_or_init(|| {
            let mut t = GenTables {
                index: [255; 256],
                plans: [NO_PLAN; 256],
                sdata_ok: [0; 17],
                base_ok: [0; 2],
            };
            for (k, o) in self.table().iter().enumerate() {
                t.index[usize::from(o.opcode)] = k as u8;
            }
            for v in 0..128u8 {
                for width in [1u8, 2, 3, 4, 8, 16] {
                    if tuple_name(self, v, width, false).is_some() {
                        t.sdata_ok[usize::from(width)] |= 1 << v;
                    }
                }
                for (k, width) in [2u8, 4].into_iter().enumerate() {
                    if tuple_name(self, v, width, true).is_some() {
                        t.base_ok[k] |= 1 << v;
                    }
                }
            }
            for (k, o) in self.table().iter().enumerate() {
                t.plans[usize::from(o.opcode)] = self.plan(&self.table()[k], &t);
            }
            t
        })
    }
    /// The decoding plan of one opcode entry.
    fn plan(self, op: &'static OpInfo, t: &GenTables) -> Plan {
        let c = op.class;
        let (op_lo, op_width) = self.opcode_field();
        let mut used = mask(26, 6) | mask(op_lo, op_width);
        let reads_sdata = c.has_sdata_regs() || c.has_sdata_imm();
        if reads_sdata {
            used |= mask(6, 7);
        }
        if c.has_sbase() {
            used |= mask(0, 6);
        }
        let glc = c.has_glc() && self.glc_bit().is_some();
        if glc {
            used |= self.glc_bit().map_or(0, |b| mask(b, 1));
            used |= self.dlc_bit().map_or(0, |b| mask(b, 1));
        }
        let cpol = self.is_gfx12() && matches!(c, Class::Load | Class::BufferLoad);
        if cpol {
            used |= mask(21, 4);
        }
        let nv_mask = match self.nv_bit() {
            Some(b) if self.has_nv(c) => mask(b, 1),
            _ => 0,
        };
        let scale_mask = match self.scale_offset_bit() {
            Some(b) if self.has_scale_offset(c) => mask(b, 1),
            _ => 0,
        };
        used |= nv_mask | scale_mask;
        let sdata_valid = if c.has_sdata_regs() {
            t.sdata_ok.get(usize::from(op.width)).copied().unwrap_or(0)
        } else if c.has_sdata_imm() && self.is_gfx12() {
            (1 << 32) - 1
        } else {
            u128::MAX
        };
        let base_valid = if c.has_sbase() {
            t.base_ok[usize::from(c.buffer_base())]
        } else {
            u128::MAX
        };
        let mut forbidden = 0;
        if !self.is_rdna() && !c.has_offset() {
            forbidden |= mask(17, 1);
        }
        if self == Self::Gfx11 && !c.has_glc() {
            forbidden |= mask(13, 2);
        }
        Plan {
            op: Some(op),
            used,
            sdata_keep: if reads_sdata { 0x7f } else { 0 },
            sbase_keep: if c.has_sbase() { 0x7e } else { 0 },
            glc_on: u64::from(glc),
            cpol_on: u64::from(cpol),
            nv_mask,
            scale_mask,
            sdata_valid,
            base_valid,
            forbidden,
            has_offset: c.has_offset(),
            buffer: c.buffer_base(),
        }
    }
    /// Every family, oldest first.
    pub const ALL: [SmemGen; 7] = [
        Self::Gfx8,
        Self::Gfx9,
        Self::Gfx10_1,
        Self::Gfx10_3,
        Self::Gfx11,
        Self::Gfx12,
        Self::Gfx12_5,
    ];
    /// Looks up a mnemonic (LLVM 19 spelling).
    pub fn op_by_name(self, name: &str) -> Option<&'static OpInfo> {
        self.table().iter().find(|o| o.mnemonic == name)
    }
    /// First register number of the trap temporaries (`ttmp0`).
    fn ttmp_base(self) -> u8 {
        match self {
            Self::Gfx8 => 112,
            _ => 108,
        }
    }
    /// Number of trap temporaries.
    fn ttmp_count(self) -> u8 {
        match self {
            Self::Gfx8 => 12,
            _ => 16,
        }
    }
}

/// Lookup tables of one family (see [`SmemGen::tables`]).
struct GenTables {
    /// Opcode → table position, 255 when undefined.
    index: [u8; 256],
    /// Opcode → decoding plan.
    plans: [Plan; 256],
    /// By width in dwords: bit `v` set when SDATA `v` is a valid tuple.
    sdata_ok: [u128; 17],
    /// Valid SBASE registers: [pair, quad].
    base_ok: [u128; 2],
}

/// What the fast decoder needs to know about one opcode, precomputed so
/// that decoding a word takes few data-dependent branches.
#[derive(Clone, Copy)]
struct Plan {
    /// The opcode entry, `None` when undefined.
    op: Option<&'static OpInfo>,
    /// Bits used whatever the offset form: ENCODING, OPCODE, and SDATA,
    /// SBASE and cache-policy fields where the instruction has them.
    used: u64,
    /// 0x7f when SDATA is read, else 0.
    sdata_keep: u8,
    /// 0x7e (applied to SBASE << 1) when SBASE is read, else 0.
    sbase_keep: u8,
    /// 1 when the instruction has GLC (and DLC where the family has it).
    glc_on: u64,
    /// 1 when GFX12 th/scope apply.
    cpol_on: u64,
    /// The NV bit when the instruction takes `nv` (GFX12.5), else 0.
    nv_mask: u64,
    /// The SCALE_OFFSET bit when the instruction takes `scale_offset`
    /// (GFX12.5), else 0.
    scale_mask: u64,
    /// Bit `v` set when SDATA `v` is allowed (all set when unconstrained).
    sdata_valid: u128,
    /// Bit `v` set when SBASE `v` is allowed (all set when unread).
    base_valid: u128,
    /// Bits whose being set makes the word invalid (IMM without an offset
    /// on GFX8/GFX9; GFX11 GLC/DLC on an instruction without them).
    forbidden: u64,
    /// The instruction has an offset operand.
    has_offset: bool,
    /// Buffer form (quad base).
    buffer: bool,
}

const NO_PLAN: Plan = Plan {
    op: None,
    used: 0,
    sdata_keep: 0,
    sbase_keep: 0,
    glc_on: 0,
    cpol_on: 0,
    nv_mask: 0,
    scale_mask: 0,
    sdata_valid: 0,
    base_valid: 0,
    forbidden: 0,
    has_offset: false,
    buffer: false,
};

/// Register-class lookups of the reference decoder (the fast path reads
/// the per-opcode plans instead).
#[cfg(test)]
impl GenTables {
    /// True when SDATA `v` names a tuple of `width` dwords.
    fn sdata_ok(&self, v: u8, width: u8) -> bool {
        let m = self.sdata_ok.get(usize::from(width)).copied().unwrap_or(0);
        v < 128 && (m >> v) & 1 == 1
    }
    /// True when SBASE `v` names a pair (or a quad for buffer forms).
    fn sbase_ok(&self, v: u8, c: Class) -> bool {
        let m = self.base_ok[usize::from(c.buffer_base())];
        v < 128 && (m >> v) & 1 == 1
    }
}

/// The offset operand and how it is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Offset {
    /// The instruction has no offset operand.
    None,
    /// IMM=1 (and SOE=0 on GFX9; SOFFSET=null on GFX10/GFX11): a byte
    /// offset.
    Imm(i32),
    /// IMM=0, SOE=0: OFFSET holds an SGPR number. On GFX10/GFX11: SOFFSET holds
    /// it and OFFSET is 0 (`null` here is the same word as `Imm(0)`; LLVM
    /// prints it as `null`).
    Sgpr(u8),
    /// GFX9 IMM=1, SOE=1, or GFX10/GFX11 SOFFSET not null and OFFSET not
    /// 0: SGPR in SOFFSET plus an immediate.
    SgprImm {
        /// SOFFSET register.
        sgpr: u8,
        /// Immediate byte offset.
        imm: i32,
    },
    /// GFX9 IMM=0, SOE=1: SGPR in SOFFSET, OFFSET unused. Prints like
    /// [`Offset::Sgpr`].
    Soffset(u8),
}

/// One SMEM instruction with its operands as register numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// Encoding family.
    pub gen: SmemGen,
    /// Opcode entry.
    pub op: &'static OpInfo,
    /// SDATA register number (first of the tuple), or the 7-bit immediate
    /// of `s_atc_probe*`; 0 when unused.
    pub sdata: u8,
    /// SBASE register number (even); 0 when unused.
    pub sbase: u8,
    /// Offset operand.
    pub offset: Offset,
    /// GLC modifier (GFX8–GFX11).
    pub glc: bool,
    /// DLC modifier (GFX10, GFX11).
    pub dlc: bool,
    /// GFX12 temporal hint (`th:`, 0–3) of loads; 0 elsewhere.
    pub th: u8,
    /// GFX12 scope (`scope:`, 0–3) of loads; 0 elsewhere.
    pub scope: u8,
    /// GFX12.5 `nv` (non-volatile) of loads and buffer loads
    /// ([`SmemGen::has_nv`]); false elsewhere.
    pub nv: bool,
    /// GFX12.5 `scale_offset` of non-buffer loads
    /// ([`SmemGen::has_scale_offset`]): the SGPR offset counts in units of
    /// the access size (see [`exec`]); false elsewhere.
    pub scale_offset: bool,
}

impl Instruction {
    /// An instruction with no modifiers set.
    pub fn new(gen: SmemGen, op: &'static OpInfo, sdata: u8, sbase: u8, offset: Offset) -> Self {
        Self {
            gen,
            op,
            sdata,
            sbase,
            offset,
            glc: false,
            dlc: false,
            th: 0,
            scope: 0,
            nv: false,
            scale_offset: false,
        }
    }
}

/// Why a word is not a valid SMEM instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InvalidReason {
    /// Bits 31:26 are not the generation's SMEM encoding.
    Encoding(u8),
    /// The opcode is not defined on this generation.
    Opcode(u8),
    /// SDATA is outside the register class for the width (register
    /// number given), e.g. `m0`/`exec` as a load destination or a
    /// misaligned tuple.
    SdataRegister(u8),
    /// SBASE is outside the register class (misaligned quad, `m0`...).
    SbaseRegister(u8),
    /// IMM (bit 17) is set on an instruction without an offset
    /// (`s_memtime`, `s_dcache_inv`, ...); LLVM fixes the bit to 0 there.
    ImmWithoutOffset,
    /// GFX11 bit 13 or 14 (DLC/GLC) is set on an instruction without
    /// cache-policy modifiers (probes, cache ops); LLVM fixes them to 0.
    CpolWithoutModifiers,
    /// GFX8/GFX9 offset register 125 (`null` on later generations), which
    /// these generations do not have; LLVM's assembler rejects `null`.
    OffsetNull,
    /// A buffer instruction has a negative immediate offset, which LLVM
    /// refuses to assemble (buffer offsets are 20-bit unsigned before
    /// GFX12, 23-bit unsigned on GFX12 since LLVM 22).
    BufferOffsetNegative(i32),
    /// GFX12 probe or prefetch immediate above 31, which LLVM's
    /// disassembler rejects (its assembler keeps only the low 5 bits).
    SdataImmediate(u8),
}

impl fmt::Display for InvalidReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Encoding(e) => write!(f, "encoding field {e:#x} is not SMEM"),
            Self::Opcode(o) => write!(f, "opcode {o} is not defined on this generation"),
            Self::SdataRegister(r) => write!(f, "SDATA register {r} is not allowed here"),
            Self::SbaseRegister(r) => write!(f, "SBASE register {r} is not allowed here"),
            Self::CpolWithoutModifiers => {
                f.write_str("GLC/DLC bits set on an instruction without them")
            }
            Self::OffsetNull => f.write_str("offset register 125 (null) does not exist here"),
            Self::ImmWithoutOffset => f.write_str("IMM is set but the instruction has no offset"),
            Self::BufferOffsetNegative(v) => {
                write!(
                    f,
                    "buffer offset {v} is negative (buffer offsets are unsigned)"
                )
            }
            Self::SdataImmediate(v) => {
                write!(f, "probe/prefetch immediate {v} is above 31")
            }
        }
    }
}

/// Verdict on a decoded word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A canonical encoding of a valid instruction.
    Valid,
    /// A valid instruction, but bits it does not use are set.
    NonCanonical {
        /// The set bits the instruction does not use.
        bits: u64,
    },
    /// Not a valid instruction.
    Invalid(InvalidReason),
}

/// A decoded word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The word (bits 31:0 are the first dword in memory).
    pub word: u64,
    /// OPCODE field.
    pub opcode: u8,
    /// The instruction, when the opcode is known (also for some invalid
    /// words, whose operands are then outside their class).
    pub instruction: Option<Instruction>,
    /// Verdict.
    pub verdict: Verdict,
}

impl fmt::Display for Decoded {
    /// LLVM syntax, or `<invalid>` when the verdict is invalid.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.verdict, &self.instruction) {
            (Verdict::Invalid(_), _) | (_, None) => f.write_str("<invalid>"),
            (_, Some(i)) => i.fmt(f),
        }
    }
}

/// Why an [`Instruction`] cannot be encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// The opcode entry is not in this generation's table.
    Opcode,
    /// SDATA register or immediate not allowed.
    Sdata(u8),
    /// SBASE register not allowed.
    Sbase(u8),
    /// This offset form is not available for the instruction.
    OffsetForm,
    /// Immediate offset out of range.
    OffsetRange(i32),
    /// Offset register number above 127.
    OffsetRegister(u8),
    /// GLC given to an instruction that has no GLC.
    Glc,
    /// DLC given to an instruction or generation that has no DLC.
    Dlc,
    /// GFX12 `th`/`scope` on an instruction without them, or above 3.
    Cpol,
    /// `nv` on an instruction or family without it.
    Nv,
    /// `scale_offset` on an instruction or family without it.
    ScaleOffset,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Opcode => f.write_str("instruction not supported on this generation"),
            Self::Sdata(r) => write!(f, "SDATA {r} not allowed"),
            Self::Sbase(r) => write!(f, "SBASE {r} not allowed"),
            Self::OffsetForm => f.write_str("offset form not allowed"),
            Self::OffsetRange(v) => write!(f, "offset {v} out of range"),
            Self::OffsetRegister(r) => write!(f, "offset register {r} out of range"),
            Self::Glc => f.write_str("glc not allowed"),
            Self::Dlc => f.write_str("dlc not allowed"),
            Self::Cpol => f.write_str("th/scope not allowed"),
            Self::Nv => f.write_str("nv not allowed"),
            Self::ScaleOffset => f.write_str("scale_offset not allowed"),
        }
    }
}

impl std::error::Error for EncodeError {}

/// A scalar register operand as LLVM names it; built without allocating
/// so that decoding stays cheap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegName {
    /// `sN`.
    Sgpr(u8),
    /// `ttmpN`.
    Ttmp(u8),
    /// `s[a:b]`.
    SgprRange(u8, u8),
    /// `ttmp[a:b]`.
    TtmpRange(u8, u8),
    /// A named register or pair (`vcc`, `m0`, `null`, `exec_lo`, ...).
    Named(&'static str),
}

impl fmt::Display for RegName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Sgpr(n) => write!(f, "s{n}"),
            Self::Ttmp(n) => write!(f, "ttmp{n}"),
            Self::SgprRange(a, b) => write!(f, "s[{a}:{b}]"),
            Self::TtmpRange(a, b) => write!(f, "ttmp[{a}:{b}]"),
            Self::Named(n) => f.write_str(n),
        }
    }
}

/// Name of a single 32-bit scalar operand, as LLVM prints it.
pub fn single_name(gen: SmemGen, v: u8) -> RegName {
    let tb = gen.ttmp_base();
    let named = RegName::Named;
    match v {
        0..=101 => RegName::Sgpr(v),
        102..=105 if gen.is_rdna() => RegName::Sgpr(v),
        102 => named("flat_scratch_lo"),
        103 => named("flat_scratch_hi"),
        104 => named("xnack_mask_lo"),
        105 => named("xnack_mask_hi"),
        106 => named("vcc_lo"),
        107 => named("vcc_hi"),
        108 if gen == SmemGen::Gfx8 => named("tba_lo"),
        109 if gen == SmemGen::Gfx8 => named("tba_hi"),
        110 if gen == SmemGen::Gfx8 => named("tma_lo"),
        111 if gen == SmemGen::Gfx8 => named("tma_hi"),
        124 | 125 if v == gen.m0() => named("m0"),
        124 | 125 => named("null"),
        126 => named("exec_lo"),
        127 => named("exec_hi"),
        _ => RegName::Ttmp(v.saturating_sub(tb)),
    }
}

/// Alignment (in registers) LLVM requires of an SGPR tuple of `width`
/// dwords: pairs 2, everything wider 4 (96-bit tuples too).
pub fn tuple_align(width: u8) -> u8 {
    match width {
        0 | 1 => 1,
        2 => 2,
        _ => 4,
    }
}

/// Name of a register tuple of `width` dwords starting at `v`, or `None`
/// when the class has no such tuple. `allow_exec` adds `exec` for pairs
/// (SBASE takes it, SDATA does not).
pub fn tuple_name(gen: SmemGen, v: u8, width: u8, allow_exec: bool) -> Option<RegName> {
    if width == 1 {
        // GFX8/GFX9 have no null register: LLVM's assembler rejects `null`
        // there, although its disassembler prints register 125 so.
        let no_null = !gen.is_rdna() && v == 125;
        return (v != gen.m0() && v < 126 && !no_null).then(|| single_name(gen, v));
    }
    // `null` stands for a tuple of any width from GFX10 (LLVM 22 assembles
    // it as SDATA of every width, LLVM 19 up to two dwords; both print it),
    // and for an SBASE address pair where the halved SBASE field can name
    // it: GFX11+ (124). GFX10's null is 125, which SBASE cannot encode
    // (errata SMEM 17).
    if gen.is_rdna() && v == gen.null() && width > 1 && (!allow_exec || width == 2) {
        return (!allow_exec || v.is_multiple_of(2)).then_some(RegName::Named("null"));
    }
    if width == 0 || !v.is_multiple_of(tuple_align(width)) {
        return None;
    }
    let end = u16::from(v) + u16::from(width);
    // SGPR tuples: pairs stop below flat_scratch, wider tuples may reach
    // s103 (LLVM prints `s[100:103]`).
    let s_limit = match (gen.is_rdna(), width) {
        (false, 2) => 102,
        (false, _) => 104,
        (true, _) => 106,
    };
    if end <= s_limit {
        return Some(RegName::SgprRange(v, (end - 1) as u8));
    }
    let tb = u16::from(gen.ttmp_base());
    let tend = tb + u16::from(gen.ttmp_count());
    // LLVM 19 has no 96-bit trap-temporary tuples (SReg_96 is SGPRs only).
    if u16::from(v) >= tb && end <= tend && width != 3 {
        let first = u16::from(v) - tb;
        return Some(RegName::TtmpRange(
            first as u8,
            (first + u16::from(width) - 1) as u8,
        ));
    }
    if width != 2 {
        return None;
    }
    let name = match (v, gen) {
        (102, SmemGen::Gfx8 | SmemGen::Gfx9) => "flat_scratch",
        (104, SmemGen::Gfx8 | SmemGen::Gfx9) => "xnack_mask",
        (106, _) => "vcc",
        (108, SmemGen::Gfx8) => "tba",
        (110, SmemGen::Gfx8) => "tma",
        (126, _) if allow_exec => "exec",
        _ => return None,
    };
    Some(RegName::Named(name))
}

/// An immediate offset as LLVM prints it: hex, with a leading minus for
/// negative values.
struct Imm(i32);

impl fmt::Display for Imm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 < 0 {
            write!(f, "-{:#x}", self.0.unsigned_abs())
        } else {
            write!(f, "{:#x}", self.0)
        }
    }
}

impl fmt::Display for Instruction {
    /// The instruction as `llvm-mc-19` prints it. Operands outside their
    /// class print as `<bad:N>`; only valid instructions match LLVM.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.op.class;
        let gen = self.gen;
        f.write_str(self.op.mnemonic)?;
        let mut sep = " ";
        let mut next = |f: &mut fmt::Formatter<'_>| -> fmt::Result {
            f.write_str(sep)?;
            sep = ", ";
            Ok(())
        };
        let base = |f: &mut fmt::Formatter<'_>| match tuple_name(
            gen,
            self.sbase,
            if c.buffer_base() { 4 } else { 2 },
            true,
        ) {
            Some(r) => write!(f, "{r}"),
            None => write!(f, "<bad:{}>", self.sbase),
        };
        if c.prefetch() {
            // GFX12 prefetch: [base,] offset, soffset, length.
            if c.has_sbase() {
                next(f)?;
                base(f)?;
            }
            let (reg, imm) = match self.offset {
                Offset::Imm(v) => (gen.null(), v),
                Offset::Sgpr(r) | Offset::Soffset(r) => (r, 0),
                Offset::SgprImm { sgpr, imm } => (sgpr, imm),
                Offset::None => (gen.null(), 0),
            };
            next(f)?;
            write!(f, "{}", Imm(imm))?;
            next(f)?;
            write!(f, "{}", single_name(gen, reg))?;
            next(f)?;
            return write!(f, "{}", self.sdata);
        }
        if c.has_sdata_regs() {
            next(f)?;
            match tuple_name(gen, self.sdata, self.op.width, false) {
                Some(r) => write!(f, "{r}")?,
                None => write!(f, "<bad:{}>", self.sdata)?,
            }
        } else if c.has_sdata_imm() {
            next(f)?;
            // LLVM prints the probe immediate in decimal up to 64 (the
            // inline-constant range) and in hex above.
            if self.sdata <= 64 {
                write!(f, "{}", self.sdata)?;
            } else {
                write!(f, "{:#x}", self.sdata)?;
            }
        }
        if c.has_sbase() {
            next(f)?;
            base(f)?;
        }
        match (self.offset, gen) {
            (Offset::None, _) => {}
            (Offset::Imm(v), _) => {
                next(f)?;
                write!(f, "{}", Imm(v))?;
            }
            // GFX12 always prints the immediate next to a register.
            (Offset::Sgpr(r) | Offset::Soffset(r), SmemGen::Gfx12 | SmemGen::Gfx12_5) => {
                next(f)?;
                write!(f, "{} offset:0x0", single_name(gen, r))?;
            }
            (Offset::Sgpr(r) | Offset::Soffset(r), _) => {
                next(f)?;
                write!(f, "{}", single_name(gen, r))?;
            }
            (Offset::SgprImm { sgpr, imm }, _) => {
                next(f)?;
                write!(f, "{} offset:{}", single_name(gen, sgpr), Imm(imm))?;
            }
        }
        // llvm-mc-22 (gfx1250) prints `scale_offset` right after the
        // offset and `nv` after th/scope, whatever order the source had.
        if self.scale_offset {
            f.write_str(" scale_offset")?;
        }
        if self.glc {
            f.write_str(" glc")?;
        }
        if self.dlc {
            f.write_str(" dlc")?;
        }
        if self.th != 0 {
            f.write_str(match (self.th, self.scope) {
                (1, _) => " th:TH_LOAD_NT",
                (2, _) => " th:TH_LOAD_HT",
                (3, 3) => " th:TH_LOAD_BYPASS",
                (3, _) => " th:TH_LOAD_LU",
                _ => " th:<bad>",
            })?;
        }
        if self.scope != 0 {
            f.write_str(match self.scope {
                1 => " scope:SCOPE_SE",
                2 => " scope:SCOPE_DEV",
                3 => " scope:SCOPE_SYS",
                _ => " scope:<bad>",
            })?;
        }
        if self.nv {
            f.write_str(" nv")?;
        }
        Ok(())
    }
}

const fn field(word: u64, lo: u32, width: u32) -> u64 {
    (word >> lo) & ((1u64 << width) - 1)
}

const fn mask(lo: u32, width: u32) -> u64 {
    ((1u64 << width) - 1) << lo
}

fn sext(v: u64, bits: u32) -> i32 {
    let shift = 64 - bits;
    // Sign-extend through i64 so no value can overflow.
    (((v << shift) as i64) >> shift) as i32
}

fn base_width(c: Class) -> u8 {
    if c.buffer_base() {
        4
    } else {
        2
    }
}

/// Decodes one 64-bit word (first dword in bits 31:0). Never panics.
pub fn decode(gen: SmemGen, word: u64) -> Decoded {
    let (op_lo, op_width) = gen.opcode_field();
    let opcode = field(word, op_lo, op_width) as u8;
    let enc = field(word, 26, 6) as u8;
    if enc != gen.encoding() {
        return Decoded {
            word,
            opcode,
            instruction: None,
            verdict: Verdict::Invalid(InvalidReason::Encoding(enc)),
        };
    }
    let t = gen.tables();
    let p = &t.plans[usize::from(opcode)];
    let Some(op) = p.op else {
        return Decoded {
            word,
            opcode,
            instruction: None,
            verdict: Verdict::Invalid(InvalidReason::Opcode(opcode)),
        };
    };
    let sdata = (field(word, 6, 7) as u8) & p.sdata_keep;
    let sbase = ((field(word, 0, 6) as u8) << 1) & p.sbase_keep;
    let mut used = p.used;
    let soffset = field(word, 57, 7) as u8;
    let (mut glc, mut dlc, mut th, mut scope) = (false, false, 0, 0);
    let offset = match gen {
        SmemGen::Gfx12 | SmemGen::Gfx12_5 => {
            th = (field(word, 23, 2) & (p.cpol_on * 3)) as u8;
            scope = (field(word, 21, 2) & (p.cpol_on * 3)) as u8;
            if !p.has_offset {
                Offset::None
            } else {
                used |= mask(32, 24) | mask(57, 7);
                let imm = sext(field(word, 32, 24), 24);
                if soffset == 124 && !op.class.prefetch() {
                    Offset::Imm(imm)
                } else {
                    Offset::SgprImm { sgpr: soffset, imm }
                }
            }
        }
        SmemGen::Gfx10_1 | SmemGen::Gfx10_3 | SmemGen::Gfx11 => {
            let (gb, db) = if gen == SmemGen::Gfx11 {
                (14, 13)
            } else {
                (16, 14)
            };
            glc = (word >> gb) & p.glc_on != 0;
            dlc = (word >> db) & p.glc_on != 0;
            if !p.has_offset {
                Offset::None
            } else {
                used |= mask(32, 21) | mask(57, 7);
                let imm = sext(field(word, 32, 21), 21);
                if imm == 0 {
                    Offset::Sgpr(soffset)
                } else if soffset == gen.null() {
                    Offset::Imm(imm)
                } else {
                    Offset::SgprImm { sgpr: soffset, imm }
                }
            }
        }
        SmemGen::Gfx8 | SmemGen::Gfx9 => {
            glc = (word >> 16) & p.glc_on != 0;
            if !p.has_offset {
                Offset::None
            } else {
                used |= mask(17, 1);
                let gfx9 = gen == SmemGen::Gfx9;
                if gfx9 {
                    used |= mask(14, 1);
                }
                let imm = field(word, 17, 1) == 1;
                let soe = gfx9 && field(word, 14, 1) == 1;
                match (imm, soe) {
                    (true, false) if !gfx9 => {
                        used |= mask(32, 20);
                        Offset::Imm(field(word, 32, 20) as i32)
                    }
                    (false, false) => {
                        used |= mask(32, 7);
                        Offset::Sgpr(field(word, 32, 7) as u8)
                    }
                    (true, false) => {
                        used |= mask(32, 21);
                        Offset::Imm(sext(field(word, 32, 21), 21))
                    }
                    (true, true) => {
                        used |= mask(32, 21) | mask(57, 7);
                        Offset::SgprImm {
                            sgpr: soffset,
                            imm: sext(field(word, 32, 21), 21),
                        }
                    }
                    (false, true) => {
                        used |= mask(57, 7);
                        Offset::Soffset(soffset)
                    }
                }
            }
        }
    };
    let instruction = Instruction {
        gen,
        op,
        sdata,
        sbase,
        offset,
        glc,
        dlc,
        th,
        scope,
        nv: word & p.nv_mask != 0,
        scale_offset: word & p.scale_mask != 0,
    };
    let regs_ok = ((p.sdata_valid >> sdata) & (p.base_valid >> sbase) & 1) == 1;
    let (offset_reg, imm) = match offset {
        Offset::Sgpr(r) | Offset::Soffset(r) => (r, 0),
        Offset::SgprImm { sgpr, imm } => (sgpr, imm),
        Offset::Imm(v) => (0, v),
        Offset::None => (0, 0),
    };
    let pre_rdna = !gen.is_rdna();
    let null_reg = pre_rdna && offset_reg == 125;
    let neg_buffer = p.buffer && imm < 0;
    let verdict = if regs_ok && word & p.forbidden == 0 && !null_reg && !neg_buffer {
        canonical(word, used)
    } else if word & p.forbidden & mask(17, 1) != 0 {
        Verdict::Invalid(InvalidReason::ImmWithoutOffset)
    } else if word & p.forbidden != 0 {
        Verdict::Invalid(InvalidReason::CpolWithoutModifiers)
    } else if (p.sdata_valid >> sdata) & 1 == 0 {
        Verdict::Invalid(if op.class.has_sdata_regs() {
            InvalidReason::SdataRegister(sdata)
        } else {
            InvalidReason::SdataImmediate(sdata)
        })
    } else if (p.base_valid >> sbase) & 1 == 0 {
        Verdict::Invalid(InvalidReason::SbaseRegister(sbase))
    } else if null_reg {
        Verdict::Invalid(InvalidReason::OffsetNull)
    } else {
        Verdict::Invalid(InvalidReason::BufferOffsetNegative(imm))
    };
    Decoded {
        word,
        opcode,
        instruction: Some(instruction),
        verdict,
    }
}

/// The decoder written field by field, as the documents describe the
/// encoding; [`decode`] is the table-driven fast path and must agree with
/// it on every word (a property test checks).
#[cfg(test)]
fn decode_reference(gen: SmemGen, word: u64) -> Decoded {
    let (op_lo, op_width) = gen.opcode_field();
    let opcode = field(word, op_lo, op_width) as u8;
    let enc = field(word, 26, 6) as u8;
    let invalid = |r| Decoded {
        word,
        opcode,
        instruction: None,
        verdict: Verdict::Invalid(r),
    };
    if enc != gen.encoding() {
        return invalid(InvalidReason::Encoding(enc));
    }
    let t = gen.tables();
    let Some(op) = gen.table().get(usize::from(t.index[usize::from(opcode)])) else {
        return invalid(InvalidReason::Opcode(opcode));
    };
    if gen.is_gfx12() {
        return decode_gfx12(gen, t, word, opcode, op);
    }
    let c = op.class;
    let gfx10 = gen.is_rdna();
    let null = gen.null();
    let imm = field(word, 17, 1) == 1;
    let soe = gen == SmemGen::Gfx9 && field(word, 14, 1) == 1;
    let mut used = mask(26, 6) | mask(18, 8);
    let sdata = if c.has_sdata_regs() || c.has_sdata_imm() {
        used |= mask(6, 7);
        field(word, 6, 7) as u8
    } else {
        0
    };
    let sbase = if c.has_sbase() {
        used |= mask(0, 6);
        (field(word, 0, 6) as u8) << 1
    } else {
        0
    };
    let (mut glc, mut dlc) = (false, false);
    if c.has_glc() {
        if let Some(b) = gen.glc_bit() {
            used |= mask(b, 1);
            glc = field(word, b, 1) == 1;
        }
        if let Some(b) = gen.dlc_bit() {
            used |= mask(b, 1);
            dlc = field(word, b, 1) == 1;
        }
    }
    let soffset = field(word, 57, 7) as u8;
    let offset = if !c.has_offset() {
        Offset::None
    } else if gfx10 {
        // GFX10 has no IMM/SOE: SOFFSET=null means "no register", and LLVM
        // picks the SGPR form whenever OFFSET is 0.
        used |= mask(32, 21) | mask(57, 7);
        let imm = sext(field(word, 32, 21), 21);
        match (soffset, imm) {
            (_, 0) => Offset::Sgpr(soffset),
            (r, v) if r == null => Offset::Imm(v),
            (r, v) => Offset::SgprImm { sgpr: r, imm: v },
        }
    } else {
        used |= mask(17, 1);
        if gen == SmemGen::Gfx9 {
            used |= mask(14, 1);
        }
        match (gen, imm, soe) {
            (SmemGen::Gfx8, true, _) => {
                used |= mask(32, 20);
                Offset::Imm(field(word, 32, 20) as i32)
            }
            (_, false, false) => {
                used |= mask(32, 7);
                Offset::Sgpr(field(word, 32, 7) as u8)
            }
            (_, true, false) => {
                used |= mask(32, 21);
                Offset::Imm(sext(field(word, 32, 21), 21))
            }
            (_, true, true) => {
                used |= mask(32, 21) | mask(57, 7);
                Offset::SgprImm {
                    sgpr: soffset,
                    imm: sext(field(word, 32, 21), 21),
                }
            }
            (_, false, true) => {
                used |= mask(57, 7);
                Offset::Soffset(soffset)
            }
        }
    };
    let instruction = Instruction {
        gen,
        op,
        sdata,
        sbase,
        offset,
        glc,
        dlc,
        th: 0,
        scope: 0,
        nv: false,
        scale_offset: false,
    };
    // GFX8/GFX9 fix IMM to 0 where there is no offset; GFX10 has no IMM.
    let offset_reg = match offset {
        Offset::Sgpr(r) | Offset::Soffset(r) | Offset::SgprImm { sgpr: r, .. } => Some(r),
        Offset::None | Offset::Imm(_) => None,
    };
    let verdict = if imm && !c.has_offset() && !gfx10 {
        Verdict::Invalid(InvalidReason::ImmWithoutOffset)
    } else if gen == SmemGen::Gfx11 && !c.has_glc() && field(word, 13, 2) != 0 {
        Verdict::Invalid(InvalidReason::CpolWithoutModifiers)
    } else if c.has_sdata_regs() && !t.sdata_ok(sdata, op.width) {
        Verdict::Invalid(InvalidReason::SdataRegister(sdata))
    } else if c.has_sbase() && !t.sbase_ok(sbase, c) {
        Verdict::Invalid(InvalidReason::SbaseRegister(sbase))
    } else if !gfx10 && offset_reg == Some(125) {
        Verdict::Invalid(InvalidReason::OffsetNull)
    } else if let (true, Offset::Imm(v) | Offset::SgprImm { imm: v, .. }) =
        (c.buffer_base(), offset)
    {
        if v < 0 {
            Verdict::Invalid(InvalidReason::BufferOffsetNegative(v))
        } else {
            canonical(word, used)
        }
    } else {
        canonical(word, used)
    };
    Decoded {
        word,
        opcode,
        instruction: Some(instruction),
        verdict,
    }
}

/// GFX12 and GFX12.5: fields at their own positions; LLVM ignores bits
/// 20:19, 25 and 56, and th/scope on everything but loads, except that
/// GFX12.5 loads take NV and non-buffer loads SCALE_OFFSET.
#[cfg(test)]
fn decode_gfx12(
    gen: SmemGen,
    t: &GenTables,
    word: u64,
    opcode: u8,
    op: &'static OpInfo,
) -> Decoded {
    let c = op.class;
    let mut used = mask(26, 6) | mask(13, 6);
    let sdata = if c.has_sdata_regs() || c.has_sdata_imm() {
        used |= mask(6, 7);
        field(word, 6, 7) as u8
    } else {
        0
    };
    let sbase = if c.has_sbase() {
        used |= mask(0, 6);
        (field(word, 0, 6) as u8) << 1
    } else {
        0
    };
    let (th, scope) = if matches!(c, Class::Load | Class::BufferLoad) {
        used |= mask(21, 4);
        (field(word, 23, 2) as u8, field(word, 21, 2) as u8)
    } else {
        (0, 0)
    };
    let mut modifier = |on: bool, bit: Option<u32>| match bit {
        Some(b) if on => {
            used |= mask(b, 1);
            field(word, b, 1) == 1
        }
        _ => false,
    };
    let nv = modifier(gen.has_nv(c), gen.nv_bit());
    let scale_offset = modifier(gen.has_scale_offset(c), gen.scale_offset_bit());
    let offset = if c.has_offset() {
        used |= mask(32, 24) | mask(57, 7);
        let imm = sext(field(word, 32, 24), 24);
        let soffset = field(word, 57, 7) as u8;
        if soffset == gen.null() && !c.prefetch() {
            Offset::Imm(imm)
        } else {
            Offset::SgprImm { sgpr: soffset, imm }
        }
    } else {
        Offset::None
    };
    let instruction = Instruction {
        gen,
        op,
        sdata,
        sbase,
        offset,
        glc: false,
        dlc: false,
        th,
        scope,
        nv,
        scale_offset,
    };
    let verdict = if c.has_sdata_regs() && !t.sdata_ok(sdata, op.width) {
        Verdict::Invalid(InvalidReason::SdataRegister(sdata))
    } else if c.has_sdata_imm() && sdata > 31 {
        Verdict::Invalid(InvalidReason::SdataImmediate(sdata))
    } else if c.has_sbase() && !t.sbase_ok(sbase, c) {
        Verdict::Invalid(InvalidReason::SbaseRegister(sbase))
    } else if let (true, Offset::Imm(v) | Offset::SgprImm { imm: v, .. }) =
        (c.buffer_base(), offset)
    {
        if v < 0 {
            Verdict::Invalid(InvalidReason::BufferOffsetNegative(v))
        } else {
            canonical(word, used)
        }
    } else {
        canonical(word, used)
    };
    Decoded {
        word,
        opcode,
        instruction: Some(instruction),
        verdict,
    }
}

fn canonical(word: u64, used: u64) -> Verdict {
    let extra = word & !used;
    if extra == 0 {
        Verdict::Valid
    } else {
        Verdict::NonCanonical { bits: extra }
    }
}

/// Encodes an instruction into its canonical word.
pub fn encode(i: &Instruction) -> Result<u64, EncodeError> {
    let gen = i.gen;
    let op = i.op;
    let c = op.class;
    if gen.op(op.opcode) != Some(op) {
        return Err(EncodeError::Opcode);
    }
    let (op_lo, _) = gen.opcode_field();
    let mut w = (u64::from(gen.encoding()) << 26) | (u64::from(op.opcode) << op_lo);
    if c.has_sdata_regs() {
        if tuple_name(gen, i.sdata, op.width, false).is_none() {
            return Err(EncodeError::Sdata(i.sdata));
        }
        w |= u64::from(i.sdata) << 6;
    } else if c.has_sdata_imm() {
        let max = if gen.is_gfx12() { 31 } else { 127 };
        if i.sdata > max {
            return Err(EncodeError::Sdata(i.sdata));
        }
        w |= u64::from(i.sdata) << 6;
    }
    if c.has_sbase() {
        if tuple_name(gen, i.sbase, base_width(c), true).is_none() {
            return Err(EncodeError::Sbase(i.sbase));
        }
        w |= u64::from(i.sbase >> 1);
    }
    if i.glc {
        match gen.glc_bit() {
            Some(b) if c.has_glc() => w |= 1 << b,
            _ => return Err(EncodeError::Glc),
        }
    }
    if i.dlc {
        match gen.dlc_bit() {
            Some(b) if c.has_glc() => w |= 1 << b,
            _ => return Err(EncodeError::Dlc),
        }
    }
    if i.th != 0 || i.scope != 0 {
        let loads = matches!(c, Class::Load | Class::BufferLoad);
        if !gen.is_gfx12() || !loads || i.th > 3 || i.scope > 3 {
            return Err(EncodeError::Cpol);
        }
        w |= (u64::from(i.th) << 23) | (u64::from(i.scope) << 21);
    }
    if i.nv {
        match gen.nv_bit() {
            Some(b) if gen.has_nv(c) => w |= 1 << b,
            _ => return Err(EncodeError::Nv),
        }
    }
    if i.scale_offset {
        match gen.scale_offset_bit() {
            Some(b) if gen.has_scale_offset(c) => w |= 1 << b,
            _ => return Err(EncodeError::ScaleOffset),
        }
    }
    let (lo, hi) = gen.offset_range(c);
    let imm_bits = if gen.is_gfx12() { 24 } else { 21 };
    let check_imm = |v: i32| -> Result<u64, EncodeError> {
        if (lo..=hi).contains(&v) {
            Ok(u64::from(v as u32) & ((1 << imm_bits) - 1))
        } else {
            Err(EncodeError::OffsetRange(v))
        }
    };
    let check_reg = |r: u8| {
        if r > 127 || (!gen.is_rdna() && r == 125) {
            Err(EncodeError::OffsetRegister(r))
        } else {
            Ok(u64::from(r))
        }
    };
    let null = u64::from(gen.null()) << 57;
    match (i.offset, c.has_offset(), gen) {
        (Offset::None, false, _) => {}
        (Offset::Imm(v), true, g) if g.is_rdna() => w |= (check_imm(v)? << 32) | null,
        (Offset::Sgpr(r), true, g) if g.is_rdna() => w |= check_reg(r)? << 57,
        // With null as the register or 0 as the immediate this is the word
        // of another form (decode picks that one, as LLVM prints it); LLVM
        // assembles these spellings too (`null offset:0x10`).
        (Offset::SgprImm { sgpr, imm }, true, g) if g.is_rdna() => {
            w |= (check_imm(imm)? << 32) | (check_reg(sgpr)? << 57)
        }
        (Offset::Imm(v), true, _) => w |= (1 << 17) | (check_imm(v)? << 32),
        (Offset::Sgpr(r), true, _) => w |= check_reg(r)? << 32,
        (Offset::SgprImm { sgpr, imm }, true, SmemGen::Gfx9) => {
            w |= (1 << 17) | (1 << 14) | (check_imm(imm)? << 32) | (check_reg(sgpr)? << 57)
        }
        (Offset::Soffset(r), true, SmemGen::Gfx9) => w |= (1 << 14) | (check_reg(r)? << 57),
        _ => return Err(EncodeError::OffsetForm),
    }
    Ok(w)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod gfx12_5_tests;
