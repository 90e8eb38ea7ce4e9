//! SMEM probes: kernels that run one constrained SMEM stream
//! ([`crate::smem::arbitrary_constrained_stream`]) on a GPU and store what
//! it left, laid out as [`hsaco_oracle::probe::smem`] describes; the
//! oracle's executor predicts the result ([`SmemProbe::predict`]).
//!
//! One wave of 64 lanes runs (wave64 on every generation, so one VGPR
//! holds 64 SGPRs). The code:
//!
//! 1. loads the output buffer's address into `s[P:P+1]` (`P` =
//!    [`Harness::sgprs`], the first SGPR the stream does not name) from two
//!    32-bit literals the harness patches ([`SmemPlan::patch_offsets`]);
//! 2. sets every register the stream may name ([`Constrained::init`]):
//!    base pairs and resource bases to the data region's address plus
//!    their offset (`s_add_u32`/`s_addc_u32` from `s[P:P+1]`, the data
//!    region being [`Layout::data_offset`] bytes into the output buffer),
//!    everything else, `m0` included, to a constant;
//! 3. `s_nop 0` (so no SALU write of a resource's third dword directly
//!    precedes an `s_buffer_*`: the GFX8/GFX9 hazard), then the stream;
//! 4. waits for every SMEM result (`s_waitcnt lgkmcnt(0)`, GFX12
//!    `s_wait_kmcnt 0`) and, after scalar stores, writes the scalar cache
//!    back (`s_dcache_wb`, then waits again), as LLVM does before
//!    `s_endpgm` in kernels with scalar stores;
//! 5. turns every lane on, zeroes the capture VGPRs, copies `s0` up into
//!    their lanes with `v_writelane_b32`, `m0` (through `s[P+2]`) and the
//!    magic (`s[P+3]`) into the special row, and stores the rows with
//!    FLAT (GFX8) or global stores (GFX9 on) to the buffer's start.
//!
//! The stream never names `s[P]` up, `vcc`, `exec` or trap registers;
//! `v0` (work-item ID X) is left alone.

use super::isa::{Enc, Inst, SDst, Src};
use super::Code;
use crate::object::CodeObject;
use crate::sgpr::{Enables, SuiteEntry};
use crate::smem::{self, Constrained, Harness};
use crate::target::Family;
use hsaco_oracle::probe::smem::{self as contract, Layout, Prediction, SmemPlan, Special, Value};
use hsaco_oracle::probe::Shape;
use hsaco_oracle::smem::exec::Step;
use hsaco_oracle::smem::{Instruction, Offset, SmemGen};
use hsaco_oracle::targets::Target;

/// Lanes of the probe's one wave.
pub const LANES: u32 = 64;
/// The dispatch: one work-group of one wave.
pub const SHAPE: Shape = Shape {
    grid: [LANES, 1, 1],
    workgroup: [LANES as u16, 1, 1],
};
/// VGPR of the special row.
pub const SPECIAL_VGPR: u8 = 1;
/// First VGPR of the SGPR rows (one per 64 SGPRs).
pub const CAPTURE_VGPR: u8 = 2;
/// Probe SGPRs past `P`: the address pair, the `m0` copy, the magic.
pub const OWN_SGPRS: u8 = 4;

/// A probe: its stream, code object model, bytes, assembler text and plan.
#[derive(Debug, Clone)]
pub struct SmemProbe {
    /// The stream and its initial registers.
    pub constrained: Constrained,
    /// The model the object was written from.
    pub object: CodeObject,
    /// The ELF bytes (the address literals hold [`super::PATCH_PLACEHOLDER`]).
    pub elf: Vec<u8>,
    /// The assembler text (`llvm-mc` plus `ld.lld -shared` give `elf`).
    pub asm: String,
    /// How to dispatch it and what the buffer holds.
    pub plan: SmemPlan,
    /// What the probe runs between its prologue and the capture: `s_nop`,
    /// the stream, the final waits and write-back (the executor's input).
    pub steps: Vec<Step>,
}

impl SmemProbe {
    /// The SMEM family.
    pub fn gen(&self) -> SmemGen {
        self.constrained.stream.gen
    }

    /// The dispatch plan `replay` runs: one wave, no kernel arguments, the
    /// data region written into the output buffer before the dispatch.
    pub fn replay_plan(&self) -> hsaco_oracle::probe::Plan {
        let p = &self.plan;
        hsaco_oracle::probe::Plan {
            case: p.case.clone(),
            object: p.object.clone(),
            target: p.target.clone(),
            kernel: p.kernel.clone(),
            lanes: p.layout.lanes,
            shape: p.shape,
            captured_sgprs: p.layout.captured_sgprs,
            private_segment_size: 0,
            group_segment_size: 0,
            kernarg_hex: String::new(),
            output_bytes: p.output_bytes,
            patch_offsets: p.patch_offsets,
            kind: hsaco_oracle::probe::Kind::Smem,
            output_init_hex: p.data_hex.clone(),
            output_init_offset: p.layout.data_offset(),
        }
    }

    /// The dump the hardware should write when the output buffer is at
    /// `output` (the address the harness patched in).
    pub fn predict(&self, output: u64) -> Prediction {
        contract::predict(
            self.gen(),
            self.constrained.harness.xnack,
            &self.plan.layout,
            &self.plan.init,
            &self.steps,
            output,
        )
    }
}

impl Code {
    /// An SMEM instruction (encoded by the oracle's encoder).
    fn smem(&mut self, i: &Instruction) -> Option<()> {
        let w = hsaco_oracle::smem::encode(i).ok()?;
        self.lines.push(i.to_string());
        self.words.extend([w as u32, (w >> 32) as u32]);
        Some(())
    }

    fn wait0(&mut self, gen: SmemGen) {
        self.lines.push(smem::wait_text(gen, 0));
        self.words.push(smem::wait_word(gen, 0));
    }
}

/// A constant as an inline integer when one stands for it, else a literal.
fn src(v: u32) -> Src {
    match v as i32 {
        n @ -16..=64 => Src::Int(n as i8),
        _ => Src::Lit(v),
    }
}

/// The write-back instruction of `gen`, if it has scalar stores.
fn writeback(gen: SmemGen) -> Option<Instruction> {
    let op = gen.op_by_name("s_dcache_wb")?;
    Some(Instruction::new(gen, op, 0, 0, Offset::None))
}

/// The probe code for `c` on `t`; `None` where the processor has no SMEM
/// family or `c` is malformed (a high address half without its low one).
fn probe_code(t: &Target, c: &Constrained, layout: &Layout) -> Option<Code> {
    let e = Enc::of(t)?;
    let gen = c.stream.gen;
    let p = c.harness.sgprs;
    let mut code = Code::new();
    code.load_output_address(p, e, t);
    let data = u32::try_from(layout.data_offset()).ok()?;
    let mut low: Option<(u8, u32)> = None;
    for i in &c.init {
        match i.value {
            Value::DataLo(off) => {
                code.push(Inst::Add(i.reg, p, src(data.checked_add(off)?)), e, t);
                low = Some((i.reg, off));
            }
            // The carry of the low half, set just before.
            Value::DataHi(off) => {
                if low != Some((i.reg.wrapping_sub(1), off)) {
                    return None;
                }
                code.push(Inst::Addc(i.reg, p + 1, Src::Int(0)), e, t);
            }
            Value::Const(v) if i.reg == gen.m0() => code.push(Inst::MovToM0(src(v)), e, t),
            Value::Const(v) => code.push(Inst::Mov32(SDst::S(i.reg), src(v)), e, t),
        }
        if !matches!(i.value, Value::DataLo(_)) {
            low = None;
        }
    }
    code.push(Inst::Nop(0), e, t);
    code.lines
        .extend(c.stream.text().lines().map(str::to_owned));
    code.words.extend_from_slice(&c.stream.words);
    code.wait0(gen);
    if c.stores {
        code.smem(&writeback(gen)?)?;
        code.wait0(gen);
    }
    code.push(Inst::Mov64(SDst::Exec, Src::Int(-1)), e, t);
    let rows = layout.sgpr_rows() as u8;
    // Each lane's byte offset within a row, then the GFX8 address pair.
    let lane_vgpr = CAPTURE_VGPR + rows;
    let addr_vgpr = lane_vgpr + 1;
    code.push(Inst::VMov(SPECIAL_VGPR, Src::Int(0)), e, t);
    for k in 0..rows {
        code.push(Inst::VMov(CAPTURE_VGPR + k, Src::Int(0)), e, t);
    }
    let lanes = LANES as u8;
    for r in 0..p {
        code.push(
            Inst::WriteLane {
                vdst: CAPTURE_VGPR + r / lanes,
                src: Src::S(r),
                lane: r % lanes,
            },
            e,
            t,
        );
    }
    code.push(Inst::MovFromM0(p + 2), e, t);
    code.push(Inst::Mov32(SDst::S(p + 3), Src::Lit(contract::MAGIC)), e, t);
    for (s, reg) in [(Special::Magic, p + 3), (Special::M0, p + 2)] {
        code.push(
            Inst::WriteLane {
                vdst: SPECIAL_VGPR,
                src: Src::S(reg),
                lane: s as u8,
            },
            e,
            t,
        );
    }
    code.push(Inst::MbcntLo(lane_vgpr), e, t);
    code.push(Inst::MbcntHi(lane_vgpr), e, t);
    code.push(Inst::Shl(lane_vgpr, 2), e, t);
    let stride = u16::try_from(layout.row_bytes()).ok()?;
    if e == Enc::Vi {
        code.push(Inst::VAddCo(addr_vgpr, Src::S(p), lane_vgpr), e, t);
        code.push(Inst::VMov(addr_vgpr + 1, Src::S(p + 1)), e, t);
        code.push(Inst::VAddcZero(addr_vgpr + 1), e, t);
    }
    let row_vgprs = std::iter::once(SPECIAL_VGPR).chain((0..rows).map(|k| CAPTURE_VGPR + k));
    for (r, v) in row_vgprs.enumerate() {
        let store = if e == Enc::Vi {
            // FLAT on GFX8 has no offset: step the address a row.
            if r > 0 {
                code.push(
                    Inst::VAddCo(addr_vgpr, Src::Lit(u32::from(stride)), addr_vgpr),
                    e,
                    t,
                );
                code.push(Inst::VAddcZero(addr_vgpr + 1), e, t);
            }
            Inst::FlatStore {
                vaddr: addr_vgpr,
                vdata: v,
            }
        } else {
            Inst::GlobalStore {
                vaddr: lane_vgpr,
                vdata: v,
                saddr: p,
                offset: r as u16 * stride,
            }
        };
        code.push(store, e, t);
    }
    code.push(Inst::EndPgm, e, t);
    Some(code)
}

/// The name of probe `index` of `seed` on `t`: `probe.smem.TARGET.SEED.INDEX`.
pub fn smem_probe_name(t: &Target, seed: u64, index: u64) -> String {
    format!("probe.smem.{}.{seed}.{index}", t.name)
}

/// The SMEM probe a [`smem_probe_name`] names (with or without
/// `.hsaco`), or `None` when the name is not one or its seed draws no
/// stream.
pub fn smem_probe_by_name(name: &str) -> Option<SmemProbe> {
    let stem = name.strip_suffix(".hsaco").unwrap_or(name);
    let rest = stem.strip_prefix("probe.smem.")?;
    let mut parts = rest.rsplitn(3, '.');
    let index = parts.next()?.parse().ok()?;
    let seed = parts.next()?.parse().ok()?;
    let t = hsaco_oracle::targets::by_name(parts.next()?)?;
    seeded_smem_probe(t, seed, index)
}

/// The seed domain of SMEM probes on `t` (see [`crate::seed`]).
pub fn seed_domain(t: &Target) -> String {
    format!("probe-smem.{}", t.name)
}

/// Probe `index` of `seed` on `t`: a constrained stream drawn from the
/// case's bytes in [`seed_domain`] with [`Harness::for_target`]; `None`
/// where `t` has no SMEM family.
pub fn seeded_smem_probe(t: &'static Target, seed: u64, index: u64) -> Option<SmemProbe> {
    seeded_smem_probe_with(t, &Harness::for_target(t), seed, index)
}

/// As [`seeded_smem_probe`] with the harness `h` (`None` also when `h`
/// leaves no room: see [`smem::arbitrary_constrained_stream`]).
pub fn seeded_smem_probe_with(
    t: &'static Target,
    h: &Harness,
    seed: u64,
    index: u64,
) -> Option<SmemProbe> {
    let gen = SmemGen::for_target(t)?;
    let h = *h;
    let mut buf = Vec::new();
    let c = crate::seed::with_bytes(seed, &seed_domain(t), index, &mut buf, |u| {
        smem::arbitrary_constrained_stream(u, gen, &h)
    })
    .ok()?;
    smem_probe(t, c, &smem_probe_name(t, seed, index))
}

/// The probe of `c` on `t`, named `name`; `None` where `t` has no SMEM
/// family or `c` was not drawn for it.
pub fn smem_probe(t: &'static Target, c: Constrained, name: &str) -> Option<SmemProbe> {
    if SmemGen::for_target(t) != Some(c.stream.gen) {
        return None;
    }
    let h = c.harness;
    let enables = Enables::default();
    let entry = SuiteEntry {
        family: Family::of(t)?,
        target: t,
        enables,
        layout: enables.layout(t),
    };
    let mut co = crate::suite_object(&entry);
    let tc = co.target;
    let layout = Layout {
        lanes: LANES,
        captured_sgprs: u16::from(h.sgprs),
        cached_bytes: h.cached_bytes,
        atomic_bytes: h.atomic_bytes,
    };
    let code = probe_code(t, &c, &layout)?;
    let k = co.kernels.first_mut()?;
    k.name = "probe".to_owned();
    k.metadata.name = k.name.clone();
    k.metadata.symbol = format!("{}.kd", k.name);
    let d = &mut k.descriptor;
    // The rows, the lane offset and the GFX8 address pair.
    let vgprs = u16::from(CAPTURE_VGPR) + layout.sgpr_rows() as u16 + 3;
    d.next_free_vgpr = d.next_free_vgpr.max(vgprs);
    if t.accum_offset {
        d.accum_offset = d.next_free_vgpr.div_ceil(4) * 4;
    }
    d.next_free_sgpr = d
        .next_free_sgpr
        .max(u16::from(h.sgprs) + u16::from(OWN_SGPRS));
    // GFX8 adds with carry through VCC.
    d.reserve_vcc = true;
    k.metadata.sgpr_count = d.sgpr_count(&tc).into();
    k.metadata.vgpr_count = d.next_free_vgpr.into();
    let w = code.install(&mut co)?;
    let kernel = co.kernels.first()?.name.clone();
    let mut steps = Vec::with_capacity(c.stream.steps.len() + 4);
    steps.push(Step::Other);
    steps.extend_from_slice(&c.stream.steps);
    steps.push(Step::WaitLgkm(0));
    if c.stores {
        steps.push(Step::Smem(writeback(c.stream.gen)?));
        steps.push(Step::WaitLgkm(0));
    }
    let plan = SmemPlan {
        case: name.to_owned(),
        object: format!("{name}.hsaco"),
        target: t.name.to_owned(),
        kernel,
        shape: SHAPE,
        layout,
        init: c.init.clone(),
        data_hex: hsaco_oracle::hex::encode(&contract::initial_data(layout.data_bytes())),
        output_bytes: layout.output_bytes(),
        patch_offsets: w.patch_offsets,
    };
    Some(SmemProbe {
        constrained: c,
        object: co,
        elf: w.elf,
        asm: w.asm,
        plan,
        steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arbitrary::Unstructured;
    use crate::probe::PATCH_PLACEHOLDER;
    use hsaco_oracle::targets;

    fn target(name: &str) -> &'static Target {
        targets::by_name(name).expect("a known processor")
    }

    fn unhex(s: &str) -> Vec<u8> {
        hsaco_oracle::hex::decode(s).expect("hex")
    }

    /// The plan says what the probe does: placeholders at the patch sites,
    /// the stream's words in the code, the registers and data it starts
    /// from, a buffer that holds the layout, and SGPRs for the probe's own.
    #[test]
    fn plan_matches_the_probe() {
        for name in [
            "gfx803", "gfx900", "gfx90a", "gfx1010", "gfx1030", "gfx1100", "gfx1200",
        ] {
            let t = target(name);
            for i in 0..3 {
                let p = seeded_smem_probe(t, 7, i).expect("an SMEM processor");
                let plan = &p.plan;
                assert_eq!(plan.case, smem_probe_name(t, 7, i));
                for (k, &at) in plan.patch_offsets.iter().enumerate() {
                    let at = at as usize;
                    assert_eq!(p.elf[at..at + 4], PATCH_PLACEHOLDER[k].to_le_bytes());
                }
                let code = &p.object.kernels[0].code;
                let words = &p.constrained.stream.words;
                assert!(code.windows(words.len()).any(|w| w == &words[..]), "{name}");
                assert_eq!(plan.init, p.constrained.init);
                assert_eq!(
                    unhex(&plan.data_hex),
                    contract::initial_data(plan.layout.data_bytes())
                );
                assert_eq!(plan.output_bytes, plan.layout.output_bytes());
                assert_eq!(
                    plan.layout.captured_sgprs,
                    u16::from(p.constrained.harness.sgprs)
                );
                let d = &p.object.kernels[0].descriptor;
                assert!(d.next_free_sgpr >= plan.layout.captured_sgprs + u16::from(OWN_SGPRS));
                // Every register the stream names is set by the prologue.
                let set = plan.init.iter().fold(0u128, |m, i| m | 1 << i.reg);
                assert_eq!(p.constrained.stream.registers & !set, 0, "{name}");
                // A store is followed by the write-back.
                let wb = p
                    .steps
                    .iter()
                    .any(|s| matches!(s, Step::Smem(i) if i.op.mnemonic == "s_dcache_wb"));
                assert_eq!(wb, p.constrained.stores, "{name}");
                // The plan is what the harness reads: it survives JSON.
                let json = serde_json::to_string(plan).expect("serializable");
                let back: SmemPlan = serde_json::from_str(&json).expect("deserializable");
                assert_eq!(&back, plan);
            }
        }
    }

    /// A high address half without its low half, a stream of another
    /// family and processors without SMEM give no probe.
    #[test]
    fn malformed_inputs_give_no_probe() {
        let t = target("gfx900");
        let p = seeded_smem_probe(t, 0, 0).expect("a probe");
        let mut c = p.constrained.clone();
        let hi = c
            .init
            .iter()
            .position(|i| matches!(i.value, Value::DataHi(_)))
            .expect("a base");
        c.init.remove(hi - 1);
        assert!(smem_probe(t, c, "bad").is_none());
        assert!(smem_probe(target("gfx1100"), p.constrained.clone(), "bad").is_none());
        assert!(seeded_smem_probe(target("gfx700"), 0, 0).is_none());
    }

    /// Harnesses that leave no room for the probe's own SGPRs or for
    /// accesses are refused.
    #[test]
    fn harness_limits() {
        let bytes = crate::seed::bytes(0, "test", 0, 1024);
        for (name, sgprs, ok) in [
            ("gfx900", 96, true),
            ("gfx900", 100, false),
            ("gfx1100", 100, true),
            ("gfx1100", 104, false),
            ("gfx1100", 28, false),
            ("gfx1100", 34, false),
        ] {
            let t = target(name);
            let h = Harness {
                sgprs,
                ..Harness::for_target(t)
            };
            let gen = SmemGen::for_target(t).expect("SMEM");
            let r = smem::arbitrary_constrained_stream(&mut Unstructured::new(&bytes), gen, &h);
            assert_eq!(r.is_ok(), ok, "{name} {sgprs}");
        }
        let t = target("gfx90a");
        let gen = SmemGen::for_target(t).expect("SMEM");
        for (cached, atomic) in [(128, 256), (512, 100), (300, 256)] {
            let h = Harness {
                cached_bytes: cached,
                atomic_bytes: atomic,
                ..Harness::for_target(t)
            };
            let r = smem::arbitrary_constrained_stream(&mut Unstructured::new(&bytes), gen, &h);
            assert!(r.is_err(), "{cached} {atomic}");
        }
    }
}
