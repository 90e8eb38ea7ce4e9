//! Value prediction of the initial register state of every wave of a
//! concrete dispatch, and the comparator of hardware dumps against it
//! (issue 16, hardware replay).
//!
//! [`crate::sgpr`] says *where* each initial value goes; this module says
//! *what* it is for one dispatch: the probe's [`Plan`] gives the grid, the
//! work-group size, the kernarg bytes and the packet's private segment
//! size, and [`predict`] walks the work-groups (X fastest) and the waves of
//! each, giving every captured SGPR, every VGPR0..2 lane, EXEC and (GFX12)
//! the trap temporaries an [`Expect`]:
//!
//! - an exact [`Value`], symbolic where the runtime picks it
//!   ([`Value::AddrLo`]/[`Value::AddrHi`] of an [`Addr`]), so predictions
//!   can be written to a bundle before the addresses are known and
//!   resolved against [`Addresses`] afterwards;
//! - or a [`Constraint`] for what the runtime chooses (the scratch V#, flat
//!   scratch init, the wave's scratch offset, unspecified SGPRs): checked
//!   with [`Constraint::holds`], not just listed.
//!
//! Every [`Expectation`] names its source. [`compare`] pairs the records
//! of a [`Dump`] (which come in arbitrary order) with the predicted waves
//! and reports each [`Difference`] once.
//!
//! Where the documents disagree or are silent, the prediction says which
//! reading it follows; docs/errata.md "Initial wave state (replay)" (WAVE
//! 1, WAVE 2, ...) records why.

use crate::kd::{max_user_sgprs, KernelDescriptor};
use crate::kernel_code::KernelCode;
use crate::layout;
use crate::probe::{self, Addresses, Dump, Plan, WaveDump};
use crate::sgpr::{self, InitialState, VgprSlot};
use crate::targets::{Generation, Target, WorkItemIdLayout};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

mod compare;
#[cfg(test)]
mod tests;

pub use compare::{compare, Difference, DifferenceKind, LaneValue, WaveId};

/// Text that is usually a `&'static str` of this crate but may come from a
/// predictions file.
pub type Text = Cow<'static, str>;

/// Most waves [`predict`] lays out (a probe dispatch is small; the bound
/// keeps memory and the comparator's pairing in check).
pub const MAX_WAVES: u64 = 1024;

/// Where the predictions come from, cited by every [`Expectation`].
pub mod sources {
    /// The user and system SGPR table.
    pub const SGPR_ORDER: &str =
        "amdgpu-usage.rst Initial Kernel Execution State (SGPR Register Set Up Order)";
    /// Dispatch Ptr.
    pub const DISPATCH_PTR: &str =
        "amdgpu-usage.rst Initial Kernel Execution State: Dispatch Ptr, the AQL packet's address";
    /// Queue Ptr.
    pub const QUEUE_PTR: &str =
        "amdgpu-usage.rst Initial Kernel Execution State: Queue Ptr, the amd_queue_t's address";
    /// Kernarg Segment Ptr.
    pub const KERNARG_PTR: &str =
        "amdgpu-usage.rst Initial Kernel Execution State: Kernarg Segment Ptr, copied from the packet's kernarg_address";
    /// Dispatch Id (docs/errata.md WAVE 1).
    pub const DISPATCH_ID: &str =
        "amdgpu-usage.rst Dispatch Id; value: the packet's queue index, as amd_queue_t read_dispatch_id/write_dispatch_id count packets (ROCR-Runtime amd_aql_queue.cpp; errata WAVE 1)";
    /// Private Segment Size.
    pub const PRIVATE_SEGMENT_SIZE: &str =
        "amdgpu-usage.rst Initial Kernel Execution State: Private Segment Size, the packet's private_segment_size rounded up by CP to a multiple of DWORD";
    /// The private segment buffer V#.
    pub const PRIVATE_SEGMENT_BUFFER: &str =
        "hsa-code-object-abi-v0.40.txt Private Segment Buffer (CP copies amd_queue_t.scratch_resource_descriptor); ROCR-Runtime amd_aql_queue.cpp FillBufRsrcWord0-3";
    /// ADD_TID_ENABLE in the scratch V#.
    pub const PRIVATE_SEGMENT_BUFFER_TID: &str =
        "ROCR-Runtime amd_aql_queue.cpp FillBufRsrcWord3 (ADD_TID_ENABLE = 1); LLVM SIInstrInfo.h RSRC_TID_ENABLE (bit 55 of words 2-3: word 3 bit 23)";
    /// Flat scratch init, offset flat scratch (GFX7-GFX8).
    pub const FLAT_SCRATCH_INIT_OFFSET: &str =
        "amdgpu-usage.rst Kernel Prolog, Flat Scratch (Offset flat scratch, GFX7-GFX8; errata WAVE 2)";
    /// Flat scratch init, absolute flat scratch (GFX9-GFX10).
    pub const FLAT_SCRATCH_INIT_ABSOLUTE: &str =
        "amdgpu-usage.rst Kernel Prolog, Flat Scratch (Absolute flat scratch: 64-bit address of the queue's scratch, from the runtime)";
    /// Preloaded kernel arguments.
    pub const KERNARG_PRELOAD: &str =
        "amdgpu-usage.rst Preloaded Kernel Arguments (kernarg dwords from kernarg_preload_spec_offset, at the entry 256 bytes in)";
    /// CP loads at most 16 user SGPRs.
    pub const USER_SGPR_LIMIT: &str =
        "amdgpu-usage.rst Initial Kernel Execution State (only the first 16 user SGPRs are initialized)";
    /// USER_SGPR_COUNT beyond the enables.
    pub const RESERVED_USER_SGPRS: &str =
        "amdgpu-usage.rst Kernel Descriptor (USER_SGPR_COUNT); nothing defines the extra user SGPRs";
    /// Code object V2 grid work-group counts.
    pub const GRID_WORKGROUP_COUNT: &str =
        "rocm-code-object-format.rst Initial kernel register state (enableGridWorkGroupCount* is not implemented in CP)";
    /// Work-group ids.
    pub const WORKGROUP_ID: &str =
        "amdgpu-usage.rst Initial Kernel Execution State: Work-Group Id X/Y/Z, set by ADC per wave";
    /// Work-group ids in system SGPRs on GFX12, where LLVM expects none.
    pub const WORKGROUP_ID_GFX12: &str =
        "amdgpu-usage.rst Initial Kernel Execution State: Work-Group Id X/Y/Z as system SGPRs (LLVM allocates none with architected SGPRs on GFX12: errata WAVE 4)";
    /// Work-group info on GFX12, whose place LLVM and the document put
    /// differently when work-group ids are enabled.
    pub const WORKGROUP_INFO_GFX12: &str =
        "amdgpu-usage.rst Initial Kernel Execution State: Work-Group Info after the work-group id SGPRs (on GFX12 LLVM puts it first: errata WAVE 4)";
    /// Work-group info.
    pub const WORKGROUP_INFO: &str =
        "amdgpu-usage.rst Initial Kernel Execution State: Work-Group Info {first_wavefront, 14'b0000, ordered_append_term[10:0], threadgroup_size_in_wavefronts[5:0]}";
    /// The wave's scratch offset.
    pub const WAVE_OFFSET: &str =
        "amdgpu-usage.rst Scratch Wavefront Offset (set by SPI per wave); ROCR-Runtime amd_aql_queue.cpp (COMPUTE_TMPRING_SIZE.WAVESIZE in mem_alignment_size units: 1024 bytes before GFX11, 256 from GFX11)";
    /// Work-item ids in separate VGPRs.
    pub const WORKITEM_ID_SEPARATE: &str =
        "amdgpu-usage.rst VGPR Register Set Up Order for Unpacked Work-Item ID Method; ids in flattened order, X fastest (HSA PRM work-item flattened id)";
    /// Packed work-item ids.
    pub const WORKITEM_ID_PACKED: &str =
        "amdgpu-usage.rst Register Layout for Packed Work-Item ID Method (disabled fields and bits 31:30 are 0); ids in flattened order, X fastest (HSA PRM work-item flattened id)";
    /// EXEC.
    pub const EXEC: &str =
        "HSA PRM work-groups and wavefronts: work-items fill a work-group's waves in flattened-id order, one lane each; the lanes without a work-item are off";
    /// GFX12 architected SGPRs.
    pub const ARCHITECTED_SGPRS: &str =
        "LLVM SIISelLowering.cpp getPreloadedValue with architected SGPRs (GFX12): TTMP9 work-group id X, TTMP7[15:0] Y, TTMP7[31:16] Z; test workgroup-id-in-arch-sgprs.ll (errata WAVE 3)";
    /// GFX12: TTMP7's high half without Z.
    pub const ARCHITECTED_SGPRS_NO_Z: &str =
        "LLVM SIISelLowering.cpp getPreloadedValue: if work-group id Z is not programmed the hardware sets TTMP7[31:16] to 0";
}

/// An address the runtime picks, known once the harness has dispatched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Addr {
    /// The AQL dispatch packet ([`Addresses::packet`]).
    Packet,
    /// The `amd_queue_t` ([`Addresses::queue`]).
    Queue,
    /// The packet's `kernarg_address` ([`Addresses::kernarg`]).
    Kernarg,
    /// The packet's index in the queue ([`Addresses::packet_index`]).
    DispatchId,
}

impl Addr {
    /// The value in `a`.
    pub fn resolve(self, a: &Addresses) -> u64 {
        match self {
            Addr::Packet => a.packet,
            Addr::Queue => a.queue,
            Addr::Kernarg => a.kernarg,
            Addr::DispatchId => a.packet_index,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Addr::Packet => "packet",
            Addr::Queue => "queue",
            Addr::Kernarg => "kernarg",
            Addr::DispatchId => "dispatch_id",
        }
    }
}

/// An exact 32-bit value, possibly symbolic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Value {
    /// Known now.
    Const(u32),
    /// Bits 31:0 of an address.
    AddrLo(Addr),
    /// Bits 63:32 of an address.
    AddrHi(Addr),
}

impl Value {
    /// The value once the addresses are known.
    pub fn resolve(&self, a: &Addresses) -> u32 {
        match *self {
            Value::Const(v) => v,
            Value::AddrLo(x) => x.resolve(a) as u32,
            Value::AddrHi(x) => (x.resolve(a) >> 32) as u32,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Const(v) => write!(f, "{v:#010x}"),
            Value::AddrLo(a) => write!(f, "lo({})", a.name()),
            Value::AddrHi(a) => write!(f, "hi({})", a.name()),
        }
    }
}

/// What the runtime or hardware may choose, as checks on the value. A
/// value holds the constraint if it is a multiple of `multiple_of`, at
/// least `at_least`, has every bit of `bits_set` and none of `bits_clear`.
/// `uniform` asks the comparator, in addition, for the same value in every
/// wave of the dispatch (CP's user SGPRs "apply to all wavefronts of the
/// grid").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Constraint {
    /// The value is a multiple of this (1: any).
    pub multiple_of: u32,
    /// The least value.
    pub at_least: u32,
    /// Bits that must be set.
    pub bits_set: u32,
    /// Bits that must be clear.
    pub bits_clear: u32,
    /// The value is the same in every wave.
    pub uniform: bool,
    /// What the constraint says, for reports.
    pub text: Text,
}

impl Constraint {
    /// Any value: the ABI leaves it unspecified.
    pub fn unspecified(text: &'static str) -> Self {
        Constraint {
            multiple_of: 1,
            at_least: 0,
            bits_set: 0,
            bits_clear: 0,
            uniform: false,
            text: Cow::Borrowed(text),
        }
    }

    /// Any value, the same in every wave.
    pub fn uniform(text: &'static str) -> Self {
        Constraint {
            uniform: true,
            ..Constraint::unspecified(text)
        }
    }

    /// True if `v` meets the per-wave checks (`uniform` is checked across
    /// waves by the comparator).
    pub fn holds(&self, v: u32) -> bool {
        v.is_multiple_of(self.multiple_of.max(1))
            && v >= self.at_least
            && v & self.bits_set == self.bits_set
            && v & self.bits_clear == 0
    }

    /// True if every value holds (nothing is checked per wave).
    pub fn is_unspecified(&self) -> bool {
        self.multiple_of <= 1 && self.at_least == 0 && self.bits_set == 0 && self.bits_clear == 0
    }

    /// The least value that holds, if one is found (tests build dumps
    /// with it).
    pub fn witness(&self) -> Option<u32> {
        let m = self.multiple_of.max(1);
        let start = self.at_least.max(self.bits_set);
        let mut v = start.checked_next_multiple_of(m)?;
        // Constraints here are a multiple plus a few bits; a short walk
        // finds a value or shows there is none near.
        for _ in 0..(1u32 << 16) {
            if self.holds(v) {
                return Some(v);
            }
            v = v.checked_add(m)?;
        }
        None
    }
}

/// A prediction: an exact value or a constraint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Expect {
    /// Exactly this value.
    Exact(Value),
    /// Any value that meets this.
    Check(Constraint),
}

/// A register the probe captures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Reg {
    /// SGPR `n` at entry.
    Sgpr(u16),
    /// VGPR `n` (0..=2) at entry, one value per lane.
    Vgpr(u8),
    /// EXEC bits 31:0.
    ExecLo,
    /// EXEC bits 63:32 (wave64).
    ExecHi,
    /// A trap temporary (6, 7 or 9: what the probe captures on GFX12).
    Ttmp(u8),
}

/// A bit field of a register (of one lane, for a VGPR).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Field {
    /// The register.
    pub reg: Reg,
    /// The lane, for a VGPR.
    pub lane: Option<u8>,
    /// Lowest bit.
    pub lsb: u8,
    /// Width in bits (1..=32).
    pub width: u8,
}

impl Field {
    /// The whole register `reg`.
    pub fn whole(reg: Reg) -> Field {
        Field {
            reg,
            lane: None,
            lsb: 0,
            width: 32,
        }
    }

    /// The field's bits, right-aligned.
    pub fn mask(&self) -> u32 {
        layout::bit_mask(0, u32::from(self.width.min(32)))
    }

    /// The field's value in `word`.
    pub fn get(&self, word: u32) -> u32 {
        word.checked_shr(u32::from(self.lsb)).unwrap_or(0) & self.mask()
    }

    /// `word` with the field set to `value`.
    pub fn set(&self, word: u32, value: u32) -> u32 {
        if self.lsb >= 32 {
            // No such bits (a field read from a damaged predictions file).
            return word;
        }
        let m = layout::bit_mask(u32::from(self.lsb), u32::from(self.width.min(32)));
        let v = (value & self.mask())
            .checked_shl(u32::from(self.lsb))
            .unwrap_or(0);
        (word & !m) | (v & m)
    }

    /// The register and bits without the lane: `s7`, `v0[19:10]`,
    /// `ttmp7[15:0]`, `exec_lo`.
    pub fn register(&self) -> String {
        let base = match self.reg {
            Reg::Sgpr(n) => format!("s{n}"),
            Reg::Vgpr(n) => format!("v{n}"),
            Reg::ExecLo => "exec_lo".to_string(),
            Reg::ExecHi => "exec_hi".to_string(),
            Reg::Ttmp(n) => format!("ttmp{n}"),
        };
        if self.lsb == 0 && self.width >= 32 {
            base
        } else {
            let hi = u32::from(self.lsb) + u32::from(self.width.max(1)) - 1;
            format!("{base}[{hi}:{}]", self.lsb)
        }
    }
}

impl fmt::Display for Field {
    /// `s7`, `v0 lane 12`, `v0[19:10] lane 12`, `ttmp9`, `exec_lo`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.register())?;
        if let Some(l) = self.lane {
            write!(f, " lane {l}")?;
        }
        Ok(())
    }
}

/// What one register field of one wave should hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expectation {
    /// Where.
    pub field: Field,
    /// What it is, as the initial-state tables name it
    /// (`workgroup_id_x`, `workitem_id_y`, `dispatch_ptr`,
    /// `workgroup_info.threadgroup_size_in_waves`).
    pub name: Text,
    /// The prediction.
    pub expect: Expect,
    /// Where the prediction comes from.
    pub source: Text,
    /// A preloaded kernel argument: compared only if the wave entered at
    /// the preload entry.
    pub preloaded: bool,
}

/// Every prediction for one wave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WavePrediction {
    /// The wave's work-group id.
    pub workgroup: [u32; 3],
    /// The wave's index within its work-group.
    pub wave: u32,
    /// The work-items it holds (its active lanes).
    pub workitems: u32,
    /// The entry the probe should report: [`probe::ENTRY_FIRST`] or
    /// [`probe::ENTRY_PRELOAD`].
    pub entry: u32,
    /// The predictions, SGPRs first, then EXEC, the trap temporaries and
    /// the VGPR lanes.
    pub expect: Vec<Expectation>,
}

impl WavePrediction {
    /// The wave's identity in reports.
    pub fn id(&self) -> WaveId {
        WaveId {
            workgroup: self.workgroup,
            wave: self.wave,
        }
    }
}

/// The predicted initial state of every wave of one dispatch, in dispatch
/// order (work-groups X fastest, then the waves of each).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Predictions {
    /// The processor.
    pub target: String,
    /// Lanes per wave.
    pub lanes: u32,
    /// SGPRs the probe captures (at most one per lane).
    pub captured_sgprs: u16,
    /// The waves.
    pub waves: Vec<WavePrediction>,
}

/// Why a plan cannot be predicted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PredictError {
    /// The plan's lanes per wave disagree with the kernel's wave size.
    Lanes {
        /// The plan's.
        plan: u32,
        /// The kernel's on the target.
        kernel: u32,
    },
    /// A work-group dimension of 0 with a non-empty grid.
    EmptyWorkgroup {
        /// The dimension (0 = X).
        dim: usize,
    },
    /// More waves than [`MAX_WAVES`].
    TooManyWaves {
        /// At least this many.
        waves: u64,
    },
    /// The plan's kernarg bytes are not hex.
    KernargHex,
}

impl fmt::Display for PredictError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PredictError::Lanes { plan, kernel } => write!(
                f,
                "the plan dispatches {plan}-lane waves but the kernel runs {kernel}-lane waves"
            ),
            PredictError::EmptyWorkgroup { dim } => write!(
                f,
                "work-group size {} is 0 for a non-empty grid",
                ["X", "Y", "Z"][(*dim).min(2)]
            ),
            PredictError::TooManyWaves { waves } => write!(
                f,
                "the dispatch has at least {waves} waves; predictions stop at {MAX_WAVES}"
            ),
            PredictError::KernargHex => {
                f.write_str("kernarg_hex is not an even number of hex digits")
            }
        }
    }
}

impl std::error::Error for PredictError {}

/// Descriptor facts the prediction needs beyond the layout.
struct Facts {
    /// First preloaded kernarg dword, when the firmware preloads.
    preload_offset: Option<u32>,
    /// ENABLE_SGPR_WORKGROUP_ID_X/Y/Z.
    workgroup_id_enabled: [bool; 3],
    /// The work-item id VGPR fields with all three ids enabled (on packed
    /// targets the disabled fields are 0).
    all_workitem_fields: Vec<VgprSlot>,
}

/// Predicts every wave of `plan`'s dispatch of the V3+ kernel `kd` on
/// `target`.
pub fn predict(
    kd: &KernelDescriptor,
    target: &Target,
    plan: &Plan,
) -> Result<Predictions, PredictError> {
    let state = sgpr::initial_state(kd, target);
    let facts = facts(kd, target, true);
    predict_state(&state, &facts, target, plan)
}

/// Predicts every wave of `plan`'s dispatch of the code object V2 kernel
/// `code` on `target`.
pub fn predict_v2(
    code: &KernelCode,
    target: &Target,
    plan: &Plan,
) -> Result<Predictions, PredictError> {
    let state = sgpr::v2::initial_state(code, target);
    // V2 has no kernarg preload; the rest reads the same rsrc2 bits.
    let facts = facts(&code.as_descriptor(), target, false);
    predict_state(&state, &facts, target, plan)
}

fn facts(kd: &KernelDescriptor, target: &Target, v3: bool) -> Facts {
    let preload = v3 && target.kernarg_preload && kd.kernarg_preload_length() > 0;
    // The field positions of all three ids come from the layout model, so
    // nothing here re-states them.
    let mut all = *kd;
    all.compute_pgm_rsrc2 = layout::ENABLE_VGPR_WORKITEM_ID.set(all.compute_pgm_rsrc2, 2);
    Facts {
        preload_offset: preload.then(|| kd.kernarg_preload_offset()),
        workgroup_id_enabled: [
            kd.enable_sgpr_workgroup_id_x(),
            kd.enable_sgpr_workgroup_id_y(),
            kd.enable_sgpr_workgroup_id_z(),
        ],
        all_workitem_fields: sgpr::initial_state(&all, target).vgprs,
    }
}

/// Decodes the plan's kernarg bytes.
fn kernarg_bytes(hex: &str) -> Result<Vec<u8>, PredictError> {
    let b = hex.as_bytes();
    if !b.len().is_multiple_of(2) {
        return Err(PredictError::KernargHex);
    }
    let digit = |c: u8| (c as char).to_digit(16).ok_or(PredictError::KernargHex);
    b.chunks(2)
        .map(|p| Ok((digit(p[0])? << 4 | digit(p[1])?) as u8))
        .collect()
}

/// One SGPR field prediction before it is placed.
struct Part {
    lsb: u8,
    width: u8,
    name: &'static str,
    expect: Expect,
    source: &'static str,
    preloaded: bool,
}

fn part(name: &'static str, expect: Expect, source: &'static str) -> Part {
    Part {
        lsb: 0,
        width: 32,
        name,
        expect,
        source,
        preloaded: false,
    }
}

fn exact(v: Value) -> Expect {
    Expect::Exact(v)
}

fn any(text: &'static str) -> Expect {
    Expect::Check(Constraint::unspecified(text))
}

fn uniform(text: &'static str) -> Expect {
    Expect::Check(Constraint::uniform(text))
}

/// What the per-wave predictions depend on.
struct WaveCtx {
    workgroup: [u32; 3],
    waves_in_group: u32,
}

struct Predictor<'a> {
    target: &'a Target,
    facts: &'a Facts,
    kernarg: Vec<u8>,
    private_segment_size: u32,
}

impl Predictor<'_> {
    /// The user SGPR `index` of the run `name` (index within the run).
    fn user(&self, name: &'static str, index: u16) -> Vec<Part> {
        let t = self.target;
        let half = |a: Addr, src| {
            let v = if index == 0 {
                Value::AddrLo(a)
            } else {
                Value::AddrHi(a)
            };
            vec![part(name, exact(v), src)]
        };
        match name {
            "private_segment_buffer" => {
                if t.architected_flat_scratch {
                    return vec![part(
                        name,
                        any("no private segment buffer with architected flat scratch"),
                        sources::PRIVATE_SEGMENT_BUFFER,
                    )];
                }
                let e = match index {
                    0 => uniform("V# word 0: scratch base address bits 31:0, chosen by the runtime, the same in every wave"),
                    1 => uniform("V# word 1: base address bits 47:32, stride and swizzle, chosen by the runtime, the same in every wave"),
                    2 => uniform("V# word 2: NUM_RECORDS, chosen by the runtime, the same in every wave"),
                    _ => {
                        return vec![part(
                            name,
                            Expect::Check(Constraint {
                                bits_set: 1 << 23,
                                ..Constraint::uniform(
                                    "V# word 3 with ADD_TID_ENABLE (bit 23) set, the same in every wave",
                                )
                            }),
                            sources::PRIVATE_SEGMENT_BUFFER_TID,
                        )]
                    }
                };
                vec![part(name, e, sources::PRIVATE_SEGMENT_BUFFER)]
            }
            "dispatch_ptr" => half(Addr::Packet, sources::DISPATCH_PTR),
            "queue_ptr" => half(Addr::Queue, sources::QUEUE_PTR),
            "kernarg_segment_ptr" => half(Addr::Kernarg, sources::KERNARG_PTR),
            "dispatch_id" => half(Addr::DispatchId, sources::DISPATCH_ID),
            "flat_scratch_init" => {
                if t.architected_flat_scratch || t.generation <= Generation::Gfx6 {
                    return vec![part(
                        name,
                        any("no flat scratch init on this target"),
                        sources::SGPR_ORDER,
                    )];
                }
                if t.generation <= Generation::Gfx8 {
                    if index == 0 {
                        return vec![part(
                            name,
                            uniform("offset of the queue's scratch from SH_HIDDEN_PRIVATE_BASE_VIMID, chosen by the runtime, the same in every wave"),
                            sources::FLAT_SCRATCH_INIT_OFFSET,
                        )];
                    }
                    // The runtime's per-work-item size: a multiple of 4 and
                    // at least the packet's (both readings of errata WAVE 2
                    // satisfy this).
                    let least = round_up_dword(self.private_segment_size).unwrap_or(u32::MAX);
                    return vec![part(
                        name,
                        Expect::Check(Constraint {
                            multiple_of: 4,
                            at_least: least,
                            ..Constraint::uniform(
                                "per-work-item scratch bytes: a multiple of 4, at least the packet's private_segment_size rounded up, the same in every wave",
                            )
                        }),
                        sources::FLAT_SCRATCH_INIT_OFFSET,
                    )];
                }
                vec![part(
                    name,
                    uniform("64-bit address of the queue's scratch backing memory, chosen by the runtime, the same in every wave"),
                    sources::FLAT_SCRATCH_INIT_ABSOLUTE,
                )]
            }
            "private_segment_size" => {
                let e = match round_up_dword(self.private_segment_size) {
                    Some(v) => exact(Value::Const(v)),
                    None => {
                        any("the packet's private_segment_size rounded up does not fit 32 bits")
                    }
                };
                vec![part(name, e, sources::PRIVATE_SEGMENT_SIZE)]
            }
            "kernarg_preload" => {
                let mut p = match self.facts.preload_offset {
                    Some(off) => {
                        let at = (u64::from(off) + u64::from(index)) * 4;
                        let bytes = usize::try_from(at)
                            .ok()
                            .and_then(|at| self.kernarg.get(at..at.checked_add(4)?));
                        match bytes {
                            Some(b) => part(
                                name,
                                exact(Value::Const(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))),
                                sources::KERNARG_PRELOAD,
                            ),
                            None => part(
                                name,
                                any("past the kernarg bytes the harness writes"),
                                sources::KERNARG_PRELOAD,
                            ),
                        }
                    }
                    None => part(name, any("not preloaded"), sources::KERNARG_PRELOAD),
                };
                p.preloaded = true;
                vec![p]
            }
            "reserved_user_sgprs" => vec![part(
                name,
                any("USER_SGPR_COUNT exceeds the enabled user SGPRs; nothing defines these"),
                sources::RESERVED_USER_SGPRS,
            )],
            n if n.starts_with("grid_workgroup_count") => vec![part(
                name,
                any("CP does not implement the grid work-group counts"),
                sources::GRID_WORKGROUP_COUNT,
            )],
            _ => vec![part(name, any("no prediction"), sources::SGPR_ORDER)],
        }
    }

    /// The system SGPR `name` of a wave.
    fn system(&self, name: &'static str, w: &WaveCtx) -> Vec<Part> {
        // The layout follows the document on every target; on GFX12 the
        // sources say that LLVM reads it otherwise.
        let gfx12 = architected_sgprs(self.target);
        let (id_src, info_src) = if gfx12 {
            (sources::WORKGROUP_ID_GFX12, sources::WORKGROUP_INFO_GFX12)
        } else {
            (sources::WORKGROUP_ID, sources::WORKGROUP_INFO)
        };
        let wg = |d: usize| vec![part(name, exact(Value::Const(w.workgroup[d])), id_src)];
        match name {
            "workgroup_id_x" => wg(0),
            "workgroup_id_y" => wg(1),
            "workgroup_id_z" => wg(2),
            "workgroup_info" => vec![
                Part {
                    lsb: 0,
                    width: 6,
                    ..part(
                        "workgroup_info.threadgroup_size_in_waves",
                        exact(Value::Const(w.waves_in_group & 0x3f)),
                        info_src,
                    )
                },
                Part {
                    lsb: 6,
                    width: 11,
                    ..part(
                        "workgroup_info.ordered_append_term",
                        any("ordered append term: only defined with ordered append, which the probe does not use"),
                        info_src,
                    )
                },
                Part {
                    lsb: 17,
                    width: 14,
                    ..part(
                        "workgroup_info.zero",
                        exact(Value::Const(0)),
                        info_src,
                    )
                },
                Part {
                    lsb: 31,
                    width: 1,
                    ..part(
                        "workgroup_info.first_wave",
                        any("first_wavefront: the documents do not say which wave has it"),
                        info_src,
                    )
                },
            ],
            "private_segment_wave_byte_offset" => {
                let granule = if self.target.generation >= Generation::Gfx11 {
                    256
                } else {
                    1024
                };
                let text = if granule == 256 {
                    "the wave's scratch offset: a multiple of the 256-byte WAVESIZE unit"
                } else {
                    "the wave's scratch offset: a multiple of the 1024-byte WAVESIZE unit"
                };
                vec![part(
                    name,
                    Expect::Check(Constraint {
                        multiple_of: granule,
                        ..Constraint::unspecified(text)
                    }),
                    sources::WAVE_OFFSET,
                )]
            }
            _ => vec![part(name, any("no prediction"), sources::SGPR_ORDER)],
        }
    }
}

/// `v` rounded up to a multiple of 4, if that fits.
fn round_up_dword(v: u32) -> Option<u32> {
    v.checked_next_multiple_of(4)
}

/// GFX12 delivers the work-group ids in trap temporaries ("architected
/// SGPRs"; LLVM's FeatureArchitectedSGPRs is part of GFX12).
fn architected_sgprs(t: &Target) -> bool {
    t.generation >= Generation::Gfx12
}

fn predict_state(
    state: &InitialState,
    facts: &Facts,
    target: &Target,
    plan: &Plan,
) -> Result<Predictions, PredictError> {
    let lanes: u32 = if state.wave32 { 32 } else { 64 };
    if plan.lanes != lanes {
        return Err(PredictError::Lanes {
            plan: plan.lanes,
            kernel: lanes,
        });
    }
    let shape = plan.shape;
    for d in 0..3 {
        if shape.workgroup[d] == 0 && shape.grid[d] != 0 {
            return Err(PredictError::EmptyWorkgroup { dim: d });
        }
    }
    let groups = shape.workgroups();
    let total_groups = groups[0]
        .saturating_mul(groups[1])
        .saturating_mul(groups[2]);
    // Every work-group has at least one wave.
    if total_groups > MAX_WAVES {
        return Err(PredictError::TooManyWaves {
            waves: total_groups,
        });
    }
    let p = Predictor {
        target,
        facts,
        kernarg: kernarg_bytes(&plan.kernarg_hex)?,
        private_segment_size: plan.private_segment_size,
    };
    // The probe writes one SGPR per lane.
    let captured = plan.captured_sgprs.min(lanes as u16);
    let max_user = u16::try_from(max_user_sgprs(target)).unwrap_or(u16::MAX);
    let declared = state.declared_user_sgpr_count;
    let entry = if facts.preload_offset.is_some() {
        probe::ENTRY_PRELOAD
    } else {
        probe::ENTRY_FIRST
    };

    let mut waves = Vec::new();
    let mut count: u64 = 0;
    for gz in 0..groups[2] {
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                let id = [gx, gy, gz];
                let size = shape.workgroup_size(id);
                let items = size[0] * size[1] * size[2];
                let n = items.div_ceil(u64::from(lanes));
                count += n;
                if count > MAX_WAVES {
                    return Err(PredictError::TooManyWaves { waves: count });
                }
                // Ids and sizes are below 2^32 (the grid is 32-bit).
                let ctx = WaveCtx {
                    workgroup: id.map(|v| v as u32),
                    waves_in_group: n as u32,
                };
                for w in 0..n {
                    let active = (items - w * u64::from(lanes)).min(u64::from(lanes)) as u32;
                    let mut expect = Vec::new();
                    sgpr_expectations(&p, state, &ctx, captured, declared, max_user, &mut expect);
                    exec_expectations(lanes, active, &mut expect);
                    if architected_sgprs(target) {
                        ttmp_expectations(facts, &ctx, &mut expect);
                    }
                    vgpr_expectations(state, facts, target, size, w, lanes, active, &mut expect);
                    waves.push(WavePrediction {
                        workgroup: ctx.workgroup,
                        wave: w as u32,
                        workitems: active,
                        entry,
                        expect,
                    });
                }
            }
        }
    }
    Ok(Predictions {
        target: target.name.to_string(),
        lanes,
        captured_sgprs: captured,
        waves,
    })
}

fn place(out: &mut Vec<Expectation>, field: Field, p: Part) {
    out.push(Expectation {
        field: Field {
            lsb: p.lsb,
            width: p.width,
            ..field
        },
        name: Cow::Borrowed(p.name),
        expect: p.expect,
        source: Cow::Borrowed(p.source),
        preloaded: p.preloaded,
    });
}

fn sgpr_expectations(
    p: &Predictor<'_>,
    state: &InitialState,
    w: &WaveCtx,
    captured: u16,
    declared: u16,
    max_user: u16,
    out: &mut Vec<Expectation>,
) {
    // What each SGPR holds. User runs come first in `state.sgprs`; a
    // system run at the same place replaces them (CP loads only
    // USER_SGPR_COUNT user SGPRs, the system SGPRs start there).
    let mut at: Vec<Option<Vec<Part>>> = (0..captured).map(|_| None).collect();
    for slot in &state.sgprs {
        for k in 0..slot.count {
            let n = slot.first.saturating_add(k);
            let Some(cell) = at.get_mut(usize::from(n)) else {
                continue;
            };
            if slot.user {
                if n >= declared {
                    continue;
                }
                *cell = Some(if n >= max_user {
                    vec![part(
                        slot.name,
                        any("CP initializes only the first 16 user SGPRs"),
                        sources::USER_SGPR_LIMIT,
                    )]
                } else {
                    p.user(slot.name, k)
                });
            } else {
                *cell = Some(p.system(slot.name, w));
            }
        }
    }
    for (n, parts) in at.into_iter().enumerate() {
        for part in parts.into_iter().flatten() {
            place(out, Field::whole(Reg::Sgpr(n as u16)), part);
        }
    }
}

fn exec_expectations(lanes: u32, active: u32, out: &mut Vec<Expectation>) {
    let mask = if active >= 64 {
        u64::MAX
    } else {
        (1u64 << active) - 1
    };
    place(
        out,
        Field::whole(Reg::ExecLo),
        part("exec", exact(Value::Const(mask as u32)), sources::EXEC),
    );
    if lanes == 64 {
        place(
            out,
            Field::whole(Reg::ExecHi),
            part(
                "exec",
                exact(Value::Const((mask >> 32) as u32)),
                sources::EXEC,
            ),
        );
    }
}

fn ttmp_expectations(facts: &Facts, w: &WaveCtx, out: &mut Vec<Expectation>) {
    let [x, y, z] = facts.workgroup_id_enabled;
    // Listed so the predictions say it is not checked, not forgotten.
    place(
        out,
        Field::whole(Reg::Ttmp(6)),
        part(
            "ttmp6",
            any("nothing public says what GFX12 puts in TTMP6 at wave start (errata WAVE 3)"),
            sources::ARCHITECTED_SGPRS,
        ),
    );
    if x {
        place(
            out,
            Field::whole(Reg::Ttmp(9)),
            part(
                "workgroup_id_x",
                exact(Value::Const(w.workgroup[0])),
                sources::ARCHITECTED_SGPRS,
            ),
        );
    }
    let ttmp7 = Field::whole(Reg::Ttmp(7));
    if y {
        place(
            out,
            ttmp7,
            Part {
                lsb: 0,
                width: 16,
                ..part(
                    "workgroup_id_y",
                    exact(Value::Const(w.workgroup[1] & 0xffff)),
                    sources::ARCHITECTED_SGPRS,
                )
            },
        );
    }
    let hi = if z {
        part(
            "workgroup_id_z",
            exact(Value::Const(w.workgroup[2] & 0xffff)),
            sources::ARCHITECTED_SGPRS,
        )
    } else {
        part(
            "workgroup_id_z (not enabled)",
            exact(Value::Const(0)),
            sources::ARCHITECTED_SGPRS_NO_Z,
        )
    };
    place(
        out,
        ttmp7,
        Part {
            lsb: 16,
            width: 16,
            ..hi
        },
    );
}

#[allow(clippy::too_many_arguments)]
fn vgpr_expectations(
    state: &InitialState,
    facts: &Facts,
    target: &Target,
    size: [u64; 3],
    wave: u64,
    lanes: u32,
    active: u32,
    out: &mut Vec<Expectation>,
) {
    let packed = target.work_item_ids == WorkItemIdLayout::Packed;
    let (src, zero_src) = if packed {
        (sources::WORKITEM_ID_PACKED, sources::WORKITEM_ID_PACKED)
    } else {
        (sources::WORKITEM_ID_SEPARATE, sources::WORKITEM_ID_SEPARATE)
    };
    // Packed: the fields of disabled ids and the bits above the last field
    // are 0.
    let disabled: Vec<&VgprSlot> = if packed {
        facts
            .all_workitem_fields
            .iter()
            .filter(|f| !state.vgprs.iter().any(|e| e.name == f.name))
            .collect()
    } else {
        Vec::new()
    };
    let top = facts
        .all_workitem_fields
        .iter()
        .filter(|f| f.vgpr == 0)
        .map(|f| u32::from(f.lsb) + u32::from(f.width))
        .max()
        .unwrap_or(32);
    let (sx, sy) = (size[0].max(1), size[1].max(1));
    for lane in 0..active {
        let flat = wave * u64::from(lanes) + u64::from(lane);
        let ids = [flat % sx, (flat / sx) % sy, flat / (sx * sy)];
        let lane8 = lane as u8;
        let field = |v: &VgprSlot| Field {
            reg: Reg::Vgpr(v.vgpr as u8),
            lane: Some(lane8),
            lsb: v.lsb,
            width: v.width,
        };
        for v in &state.vgprs {
            let d = match v.name {
                "workitem_id_x" => 0,
                "workitem_id_y" => 1,
                _ => 2,
            };
            let value = (ids[d] as u32) & field(v).mask();
            out.push(Expectation {
                field: field(v),
                name: Cow::Borrowed(v.name),
                expect: exact(Value::Const(value)),
                source: Cow::Borrowed(src),
                preloaded: false,
            });
        }
        for v in &disabled {
            out.push(Expectation {
                field: field(v),
                name: Cow::Owned(format!("{} (not enabled)", v.name)),
                expect: exact(Value::Const(0)),
                source: Cow::Borrowed(zero_src),
                preloaded: false,
            });
        }
        if packed && top < 32 {
            out.push(Expectation {
                field: Field {
                    reg: Reg::Vgpr(0),
                    lane: Some(lane8),
                    lsb: top as u8,
                    width: (32 - top) as u8,
                },
                name: Cow::Borrowed("workitem_id.reserved"),
                expect: exact(Value::Const(0)),
                source: Cow::Borrowed(zero_src),
                preloaded: false,
            });
        }
    }
}

impl Predictions {
    /// The dump a probe would write if every prediction held: each exact
    /// value resolved against `addresses`, each constraint given
    /// `choose(wave, expectation)` or else its [`Constraint::witness`].
    /// `choose` may also override exact values (tests perturb with it).
    /// Records are in prediction order, slot `i` for wave `i`; registers
    /// nothing predicts are 0.
    pub fn to_dump(
        &self,
        addresses: &Addresses,
        mut choose: impl FnMut(&WavePrediction, &Expectation) -> Option<u32>,
    ) -> Dump {
        let lanes = self.lanes;
        // A probe record has at most 64 lanes, whatever a file says.
        let row = (lanes as usize).min(64);
        let captured = usize::from(self.captured_sgprs).min(row);
        let waves = self
            .waves
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let mut d = WaveDump {
                    slot: i as u32,
                    exec: 0,
                    sgprs: vec![0; captured],
                    ttmp: [0; 3],
                    entry: w.entry,
                    vgprs: std::array::from_fn(|_| vec![0; row]),
                };
                for e in &w.expect {
                    let v = choose(w, e).unwrap_or_else(|| match &e.expect {
                        Expect::Exact(v) => v.resolve(addresses),
                        Expect::Check(c) => c.witness().unwrap_or(0),
                    });
                    if let Some(word) = word_mut(&mut d, &e.field) {
                        *word = e.field.set(*word, v);
                    } else if matches!(e.field.reg, Reg::ExecLo | Reg::ExecHi) {
                        let shift = if e.field.reg == Reg::ExecHi { 32 } else { 0 };
                        let old = (d.exec >> shift) as u32;
                        let new = u64::from(e.field.set(old, v));
                        d.exec = (d.exec & !(0xffff_ffffu64 << shift)) | new << shift;
                    }
                }
                d
            })
            .collect();
        Dump { lanes, waves }
    }
}

/// The dumped word that holds `f`, if the record has it (EXEC is handled
/// by the callers: it is one 64-bit value).
fn word_mut<'a>(d: &'a mut WaveDump, f: &Field) -> Option<&'a mut u32> {
    match f.reg {
        Reg::Sgpr(n) => d.sgprs.get_mut(usize::from(n)),
        Reg::Vgpr(n) => d
            .vgprs
            .get_mut(usize::from(n))?
            .get_mut(usize::from(f.lane?)),
        Reg::Ttmp(6) => Some(&mut d.ttmp[0]),
        Reg::Ttmp(7) => Some(&mut d.ttmp[1]),
        Reg::Ttmp(9) => Some(&mut d.ttmp[2]),
        _ => None,
    }
}

/// The dumped word that holds `f`, if the record has it.
pub(crate) fn word(d: &WaveDump, f: &Field) -> Option<u32> {
    match f.reg {
        Reg::Sgpr(n) => d.sgprs.get(usize::from(n)).copied(),
        Reg::Vgpr(n) => d
            .vgprs
            .get(usize::from(n))?
            .get(usize::from(f.lane?))
            .copied(),
        Reg::ExecLo => Some(d.exec as u32),
        Reg::ExecHi => Some((d.exec >> 32) as u32),
        Reg::Ttmp(6) => Some(d.ttmp[0]),
        Reg::Ttmp(7) => Some(d.ttmp[1]),
        Reg::Ttmp(9) => Some(d.ttmp[2]),
        Reg::Ttmp(_) => None,
    }
}
