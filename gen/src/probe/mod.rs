//! Probe kernels for hardware replay: code objects whose code records the
//! state each wave starts with, so a GPU can say whether the oracle's
//! prediction holds.
//!
//! An SGPR probe ([`sgpr_probe`]) is the SGPR suite entry's code object
//! (same enables, same descriptor but for register counts and the kernarg
//! size) with code that, before touching any initial register:
//!
//! 1. on processors that preload kernel arguments, starts with two
//!    entries: byte 0 marks "first byte" and branches past byte 256, which
//!    marks "preload entry" (firmware that preloads enters 256 bytes in);
//! 2. copies every initial SGPR into a lane of v3 with `v_writelane_b32`
//!    (which writes nothing else), and EXEC and, on GFX12, TTMP6/7/9 into
//!    lanes of v4;
//! 3. turns every lane on, loads the output buffer's address from two
//!    32-bit literals the harness patches ([`hsaco_oracle::probe::Plan`]'s
//!    `patch_offsets`), takes a slot with a returning atomic add on the
//!    buffer's counter (lane 0 alone), and stores v3, v4 and VGPR0-2 of
//!    every lane as the record [`hsaco_oracle::probe`] lays out.
//!
//! Stores: MUBUF `addr64` on GFX6-7 (no FLAT on GFX6; the resource is
//! LLVM's addr64 one, base 0 and `RSRC_DATA_FORMAT`), FLAT on GFX8,
//! global with an SGPR base from GFX9. No scalar stores (GFX11+ have
//! none). VGPRs v3-v9 are the probe's own; VGPR0-2 (the work-item IDs)
//! are stored untouched.

pub mod isa;
pub mod smem;

use crate::metadata;
use crate::object::CodeObject;
use crate::sgpr::SuiteEntry;
use hsaco_oracle::elf::Elf;
use hsaco_oracle::probe::{self as contract, Plan, Shape, Special};
use hsaco_oracle::targets::{Generation, Target};
use hsaco_oracle::Sink;
use isa::{Enc, Inst, SDst, Src};

/// VGPR that collects the initial SGPRs, one per lane.
pub const CAPTURE_VGPR: u8 = 3;
/// VGPR that collects the [`Special`] values.
pub const SPECIAL_VGPR: u8 = 4;
/// VGPR holding each lane's byte offset within a row.
const LANE_VGPR: u8 = 5;
/// First of the two VGPRs holding a 64-bit address (GFX6-8).
const ADDR_VGPR: u8 = 6;
/// Atomic addend and returned slot.
const DATA_VGPR: u8 = 8;
/// Zero offset for the global atomic.
const ZERO_VGPR: u8 = 9;
/// VGPRs a probe uses.
pub const VGPRS: u16 = 10;
/// SGPRs a probe uses for itself after the capture (`s0`-`s7`: the
/// buffer address, slot, scratch and, on GFX6-7, the buffer resource).
pub const SGPRS: u16 = 8;
/// First SGPR of the MUBUF resource on GFX6-7.
const RSRC_SGPR: u8 = 4;
/// The buffer resource's fourth dword on GFX6-7: LLVM's
/// `RSRC_DATA_FORMAT` (`SIInstrInfo.h`), what its addr64 legalization
/// puts there with a zero base.
const SI_RSRC_WORD3: u32 = 0xf000;

/// What the two output-address literals hold until the harness patches
/// them: values no inline constant can stand for, so the assembler keeps
/// them as literals ("PROBE_LO", "PROBE_HI" in spirit).
pub const PATCH_PLACEHOLDER: [u32; 2] = [0x4f4c_4250, 0x4948_4250];

/// The packet's `private_segment_size` for probes: a multiple of 4 but
/// not of 16, so a prediction that rounds shows.
pub const PRIVATE_SEGMENT_SIZE: u32 = 20;
/// The probe's kernarg segment: 32 dwords, so every preload length (up
/// to 32 dwords on GFX12.5) reads defined values.
pub const KERNARG_BYTES: u32 = 128;

/// The dispatch every SGPR probe asks for: 3 dimensions, work-groups of
/// 16x4x2 (two wave64 waves or four wave32 ones), and a grid of 3x2x2
/// work-groups whose last column is half full, so partial work-groups,
/// every work-group ID and every work-item ID dimension are seen.
pub const SHAPE: Shape = Shape {
    grid: [40, 8, 4],
    workgroup: [16, 4, 2],
};

/// The kernarg bytes the harness writes: dword `i` is `0x4b41_0000 | i`
/// ("AK" and the index), so a preloaded SGPR says which dword it holds.
pub fn kernarg_bytes() -> Vec<u8> {
    (0..KERNARG_BYTES / 4)
        .flat_map(|i| (0x4b41_0000u32 | i).to_le_bytes())
        .collect()
}

/// A probe: its code object model, bytes, assembler text and dispatch
/// plan.
#[derive(Debug, Clone)]
pub struct Probe {
    /// The model it was written from.
    pub object: CodeObject,
    /// The ELF bytes (the output address literals hold
    /// [`PATCH_PLACEHOLDER`]).
    pub elf: Vec<u8>,
    /// The assembler text (`llvm-mc` plus `ld.lld -shared` give `elf`).
    pub asm: String,
    /// How to dispatch it.
    pub plan: Plan,
}

/// A probe's code as it is written: assembler lines, their words, and
/// the word indices of the two output-address literals.
pub(crate) struct Code {
    pub(crate) lines: Vec<String>,
    pub(crate) words: Vec<u32>,
    patch: [usize; 2],
}

/// A probe's object: bytes, text, and the file offsets of the
/// output-address literals.
pub(crate) struct Written {
    pub(crate) elf: Vec<u8>,
    pub(crate) asm: String,
    pub(crate) patch_offsets: [u64; 2],
}

impl Code {
    pub(crate) fn new() -> Code {
        Code {
            lines: Vec::new(),
            words: Vec::new(),
            patch: [0; 2],
        }
    }

    pub(crate) fn push(&mut self, i: Inst, e: Enc, t: &Target) {
        self.lines.push(i.text(e, t));
        self.words.extend(i.encode(e));
    }

    /// Loads the output buffer's address into `s[first:first+1]` from the
    /// two literals the harness patches ([`PATCH_PLACEHOLDER`]).
    pub(crate) fn load_output_address(&mut self, first: u8, e: Enc, t: &Target) {
        for (k, lit) in PATCH_PLACEHOLDER.into_iter().enumerate() {
            // The literal is the dword after the s_mov_b32.
            self.patch[k] = self.words.len() + 1;
            self.push(Inst::Mov32(SDst::S(first + k as u8), Src::Lit(lit)), e, t);
        }
    }

    /// Makes this the code of `co`'s first kernel and writes the object.
    pub(crate) fn install(self, co: &mut CodeObject) -> Option<Written> {
        let k = co.kernels.first_mut()?;
        k.code = self.words;
        k.text = self.lines;
        let elf = crate::emit::elf_bytes(co);
        let asm = crate::emit::asm::write(co);
        let text_offset = {
            let mut sink = Sink::new();
            Elf::parse(&elf, &mut sink)?.section(".text")?.offset
        };
        Some(Written {
            patch_offsets: self.patch.map(|w| text_offset + 4 * w as u64),
            elf,
            asm,
        })
    }
}

/// The probe code for `t` in wave `lanes`, capturing `captured` SGPRs.
fn probe_code(t: &Target, lanes: u32, captured: u16) -> Option<Code> {
    let e = Enc::of(t)?;
    let mut c = Code::new();
    let wave64 = lanes == 64;
    let special = |s: Special, src: Src| Inst::WriteLane {
        vdst: SPECIAL_VGPR,
        src,
        lane: s as u8,
    };
    let entry = |v: u32| special(Special::Entry, Src::Int(v as i8));
    if t.kernarg_preload {
        // Byte 0: mark, branch over the preload entry's mark; pad to 256.
        c.push(entry(contract::ENTRY_FIRST), e, t);
        let mark = c.words.len();
        let fill = contract::PRELOAD_ENTRY_OFFSET as usize / 4 - mark - 1;
        let after_mark = entry(contract::ENTRY_PRELOAD).encode(e).len();
        c.push(Inst::Branch((fill + after_mark) as i16), e, t);
        c.lines.push(format!(
            ".fill {fill}, 4, {:#010x}",
            crate::emit::elf::S_NOP_0
        ));
        c.words
            .extend(std::iter::repeat_n(crate::emit::elf::S_NOP_0, fill));
        c.push(entry(contract::ENTRY_PRELOAD), e, t);
    } else {
        c.push(entry(contract::ENTRY_FIRST), e, t);
    }
    for i in 0..captured.min(lanes as u16) as u8 {
        c.push(
            Inst::WriteLane {
                vdst: CAPTURE_VGPR,
                src: Src::S(i),
                lane: i,
            },
            e,
            t,
        );
    }
    c.push(special(Special::ExecLo, Src::ExecLo), e, t);
    c.push(
        special(
            Special::ExecHi,
            if wave64 { Src::ExecHi } else { Src::Int(0) },
        ),
        e,
        t,
    );
    let gfx12 = t.generation == Generation::Gfx12;
    for (s, n) in [
        (Special::Ttmp6, 6),
        (Special::Ttmp7, 7),
        (Special::Ttmp9, 9),
    ] {
        // Only GFX12 defines what the trap temporaries hold at entry.
        let src = if gfx12 { Src::Ttmp(n) } else { Src::Int(0) };
        c.push(special(s, src), e, t);
    }
    // Every SGPR is captured: s0-s7 are the probe's from here on.
    let all = |c: &mut Code, v: i8| {
        let i = if wave64 {
            Inst::Mov64(SDst::Exec, Src::Int(v))
        } else {
            Inst::Mov32(SDst::Exec, Src::Int(v))
        };
        c.push(i, e, t);
    };
    all(&mut c, -1);
    c.load_output_address(0, e, t);
    c.push(Inst::VMov(ZERO_VGPR, Src::Int(0)), e, t);
    c.push(Inst::VMov(DATA_VGPR, Src::Int(1)), e, t);
    if e == Enc::Si {
        for (k, v) in [0, 0, 0, SI_RSRC_WORD3].into_iter().enumerate() {
            let src = if v == 0 { Src::Int(0) } else { Src::Lit(v) };
            c.push(Inst::Mov32(SDst::S(RSRC_SGPR + k as u8), src), e, t);
        }
    }
    if e <= Enc::Vi {
        c.push(Inst::VMov(ADDR_VGPR, Src::S(0)), e, t);
        c.push(Inst::VMov(ADDR_VGPR + 1, Src::S(1)), e, t);
    }
    // Lane 0 alone takes the slot.
    all(&mut c, 1);
    c.push(
        match e {
            Enc::Si => Inst::BufferAtomicAdd {
                vdata: DATA_VGPR,
                vaddr: ADDR_VGPR,
                srsrc: RSRC_SGPR,
            },
            Enc::Vi => Inst::FlatAtomicAdd {
                vdst: DATA_VGPR,
                vaddr: ADDR_VGPR,
                vdata: DATA_VGPR,
            },
            _ => Inst::GlobalAtomicAdd {
                vdst: DATA_VGPR,
                vaddr: ZERO_VGPR,
                vdata: DATA_VGPR,
                saddr: 0,
            },
        },
        e,
        t,
    );
    c.push(Inst::WaitLoads, e, t);
    all(&mut c, -1);
    c.push(Inst::ReadFirstLane(2, DATA_VGPR), e, t);
    // Wait states between a VALU SGPR write and its reads on GCN.
    c.push(Inst::Nop(4), e, t);
    c.push(special(Special::Slot, Src::S(2)), e, t);
    c.push(Inst::Mov32(SDst::S(3), Src::Lit(contract::MAGIC)), e, t);
    c.push(special(Special::Magic, Src::S(3)), e, t);
    // s[0:1] += HEADER + slot * record.
    let record = contract::record_bytes(lanes) as u32;
    c.push(Inst::Mul(3, 2, Src::Lit(record)), e, t);
    c.push(Inst::Add(0, 0, Src::S(3)), e, t);
    c.push(Inst::Addc(1, 1, Src::Int(0)), e, t);
    c.push(
        Inst::Add(0, 0, Src::Int(contract::HEADER_BYTES as i8)),
        e,
        t,
    );
    c.push(Inst::Addc(1, 1, Src::Int(0)), e, t);
    c.push(Inst::MbcntLo(LANE_VGPR), e, t);
    if wave64 {
        c.push(Inst::MbcntHi(LANE_VGPR), e, t);
    }
    c.push(Inst::Shl(LANE_VGPR, 2), e, t);
    let rows = [CAPTURE_VGPR, SPECIAL_VGPR, 0, 1, 2];
    let stride = lanes as u16 * 4;
    if e <= Enc::Vi {
        c.push(Inst::VAddCo(ADDR_VGPR, Src::S(0), LANE_VGPR), e, t);
        c.push(Inst::VMov(ADDR_VGPR + 1, Src::S(1)), e, t);
        c.push(Inst::VAddcZero(ADDR_VGPR + 1), e, t);
    }
    for (r, &v) in rows.iter().enumerate() {
        let offset = r as u16 * stride;
        let store = match e {
            Enc::Si => Inst::BufferStore {
                vdata: v,
                vaddr: ADDR_VGPR,
                srsrc: RSRC_SGPR,
                offset,
            },
            Enc::Vi => {
                // FLAT on GFX8 has no offset: step the address a row.
                if r > 0 {
                    c.push(
                        Inst::VAddCo(ADDR_VGPR, Src::Lit(u32::from(stride)), ADDR_VGPR),
                        e,
                        t,
                    );
                    c.push(Inst::VAddcZero(ADDR_VGPR + 1), e, t);
                }
                Inst::FlatStore {
                    vaddr: ADDR_VGPR,
                    vdata: v,
                }
            }
            _ => Inst::GlobalStore {
                vaddr: LANE_VGPR,
                vdata: v,
                saddr: 0,
                offset,
            },
        };
        c.push(store, e, t);
    }
    c.push(Inst::EndPgm, e, t);
    Some(c)
}

/// The name of the probe of SGPR suite entry `index` of `entry`'s
/// family, built for `entry`'s processor: `probe.sgpr.CPU.INDEX`.
pub fn sgpr_probe_name(entry: &SuiteEntry, index: usize) -> String {
    format!("probe.sgpr.{}.{index}", entry.target.name)
}

/// Suite entry `index` of `t`'s family, built for `t` (any processor of
/// the family has the same entries; the layout is `t`'s). `None` for
/// processors the oracle does not model or that run no HSA code, and for
/// an index past the suite.
pub fn suite_entry_for(t: &'static Target, index: usize) -> Option<SuiteEntry> {
    // Processors the oracle does not model have no `Target` at all.
    if !t.hsa {
        return None;
    }
    let family = crate::target::Family::of(t)?;
    let mut entry = crate::sgpr::suite(family).nth(index)?;
    entry.target = t;
    entry.layout = entry.enables.layout(t);
    Some(entry)
}

/// The probe of SGPR suite entry `entry`, named `name`; `None` on
/// processors with no HSA code.
pub fn sgpr_probe(entry: &SuiteEntry, name: &str) -> Option<Probe> {
    let t = entry.target;
    let mut co = crate::suite_object(entry);
    let tc = co.target;
    let e = entry.enables;
    let lanes = if e.is_wave32(t) { 32 } else { 64 };
    // One SGPR per lane of the capture VGPR: a wave32 probe records the
    // first 32 initial SGPRs (only GFX12.5, with up to 32 user SGPRs, has
    // more; the oracle's prediction stops at the lanes too).
    let captured = e.total_sgprs(t).clamp(1, lanes as u16);
    let code = probe_code(t, lanes, captured)?;
    let k = co.kernels.first_mut()?;
    k.name = "probe".to_owned();
    k.metadata.name = k.name.clone();
    k.metadata.symbol = format!("{}.kd", k.name);
    let d = &mut k.descriptor;
    d.next_free_vgpr = d.next_free_vgpr.max(VGPRS);
    if t.accum_offset {
        d.accum_offset = d.next_free_vgpr.div_ceil(4) * 4;
    }
    d.next_free_sgpr = d.next_free_sgpr.max(captured).max(SGPRS);
    // GFX6-8 add with carry through VCC.
    d.reserve_vcc = true;
    d.kernarg_size = KERNARG_BYTES;
    k.metadata.args = (0..KERNARG_BYTES / 4)
        .map(|i| metadata::ArgSpec::new(hsaco_oracle::metadata::ValueKind::ByValue, 4 * i, 4))
        .collect();
    k.metadata.kernarg_segment_size = KERNARG_BYTES;
    k.metadata.sgpr_count = d.sgpr_count(&tc).into();
    k.metadata.vgpr_count = d.next_free_vgpr.into();
    let w = code.install(&mut co)?;
    let name_kernel = co.kernels.first()?.name.clone();
    let plan = Plan {
        case: name.to_owned(),
        object: format!("{name}.hsaco"),
        target: t.name.to_owned(),
        kernel: name_kernel,
        lanes,
        shape: SHAPE,
        captured_sgprs: captured,
        private_segment_size: PRIVATE_SEGMENT_SIZE,
        group_segment_size: 0,
        kernarg_hex: hsaco_oracle::hex::encode(&kernarg_bytes()),
        output_bytes: contract::HEADER_BYTES
            + SHAPE.max_waves(lanes) * contract::record_bytes(lanes),
        patch_offsets: w.patch_offsets,
        kind: contract::Kind::Sgpr,
        output_init_hex: String::new(),
        output_init_offset: 0,
    };
    Some(Probe {
        object: co,
        elf: w.elf,
        asm: w.asm,
        plan,
    })
}

/// The SGPR probe a [`sgpr_probe_name`] names (`probe.sgpr.gfx90a.17`,
/// with or without `.hsaco`), or `None` when the name is not one: an
/// unknown or unmodelled processor, or an index past its family's suite.
pub fn sgpr_probe_by_name(name: &str) -> Option<Probe> {
    let stem = name.strip_suffix(".hsaco").unwrap_or(name);
    let rest = stem.strip_prefix("probe.sgpr.")?;
    let (cpu, index) = rest.rsplit_once('.')?;
    let t = hsaco_oracle::targets::by_name(cpu)?;
    let entry = suite_entry_for(t, index.parse().ok()?)?;
    sgpr_probe(&entry, stem)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Family;

    #[test]
    fn names_make_the_same_probe_again() {
        for family in Family::ALL {
            let last = crate::sgpr::suite_len(family) - 1;
            let entry = crate::sgpr::suite(family).nth(last).unwrap();
            let name = sgpr_probe_name(&entry, last);
            let p = sgpr_probe(&entry, &name).unwrap();
            let again = sgpr_probe_by_name(&format!("{name}.hsaco")).unwrap();
            assert_eq!((p.elf, p.plan), (again.elf, again.plan));
        }
        let past = crate::sgpr::suite_len(Family::Gfx9);
        assert!(sgpr_probe_by_name(&format!("probe.sgpr.gfx900.{past}")).is_none());
        assert!(sgpr_probe_by_name("probe.sgpr.gfx500.0").is_none());
        assert!(sgpr_probe_by_name("probe.sgpr.gfx900.x").is_none());
        // Another processor of a family: its own layout, same enables.
        let p = sgpr_probe_by_name("probe.sgpr.gfx1101.40").unwrap();
        assert_eq!(p.plan.target, "gfx1101");
        let rep = sgpr_probe_by_name("probe.sgpr.gfx1100.40").unwrap();
        assert_eq!(
            p.object.kernels[0].descriptor.enables,
            rep.object.kernels[0].descriptor.enables
        );
    }

    #[test]
    fn plans_fit_every_wave_and_point_at_the_literals() {
        for family in Family::ALL {
            let entry = crate::sgpr::suite(family).next().unwrap();
            let p = sgpr_probe(&entry, "p").unwrap();
            let lanes = p.plan.lanes;
            assert_eq!(
                p.plan.output_bytes,
                contract::HEADER_BYTES + SHAPE.max_waves(lanes) * contract::record_bytes(lanes)
            );
            for (k, &at) in p.plan.patch_offsets.iter().enumerate() {
                let at = at as usize;
                assert_eq!(p.elf[at..at + 4], PATCH_PLACEHOLDER[k].to_le_bytes());
            }
            assert_eq!(p.plan.kernarg_hex.len() as u32, 2 * KERNARG_BYTES);
        }
    }
}
