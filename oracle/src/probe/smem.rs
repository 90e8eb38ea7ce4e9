//! The contract of SMEM probes: kernels that set up the scalar registers,
//! run one generated SMEM stream (`hsaco_gen::smem`'s constrained mode)
//! against a data region of the output buffer, and store what the stream
//! left, so a GPU's result can be compared with the prediction of the
//! oracle's SMEM executor ([`crate::smem::exec::Machine`]).
//!
//! One wave runs ([`Layout::lanes`] work-items in one work-group). The
//! harness allocates one output buffer of [`Layout::output_bytes`] bytes,
//! fills it with zeros, copies [`SmemPlan::data_hex`] to
//! [`Layout::data_offset`], patches the buffer's address into the code
//! ([`SmemPlan::patch_offsets`], as for SGPR probes) and dispatches. The
//! data region's address is the buffer's plus [`Layout::data_offset`]:
//! one allocation and one patch pair serve both. The buffer must be
//! 256-byte aligned (every runtime allocation is), so that base addresses
//! keep their two low bits clear and the regions start on scalar cache
//! lines.
//!
//! The buffer afterwards ([`SmemDump`]), in rows of one dword per lane:
//!
//! | bytes | holds |
//! |---|---|
//! | row 0 | lane `k`: [`Special`] `k` ([`MAGIC`], final `m0`); other lanes 0 |
//! | rows 1.. | lane `i` of row `1 + j`: final `s[j * lanes + i]`, for the [`Layout::captured_sgprs`] SGPRs; other lanes 0 |
//! | [`Layout::data_offset`].. | the data region as the stream left it: [`Layout::cached_bytes`] for loads and stores, then [`Layout::atomic_bytes`] for atomics |
//!
//! Loads and stores go through the scalar cache; atomics are performed
//! past it, so the two kinds never share bytes (a load after an atomic on
//! the same line could hit a stale cached copy, which the executor's
//! coherent memory cannot model). Both region sizes are multiples of 64
//! bytes (a scalar cache line).
//!
//! [`predict`] runs the executor from the same initial registers and data
//! and gives the dump the hardware should write; [`Prediction::compare`]
//! lists the dwords that differ.

use super::{DumpError, Shape};
use crate::smem::exec::{Machine, Step};
use crate::smem::{Class, SmemGen};
use serde::{Deserialize, Serialize};

/// Lane 0 of row 0 once the probe finished (`"HPSM"` little-endian): a
/// dump without it was not written by a probe that ran to the end.
pub const MAGIC: u32 = 0x4d53_5048;

/// Alignment of the data region within the buffer (and of the buffer).
pub const DATA_ALIGN: u64 = 256;

/// Granule of the region sizes: a scalar cache line.
pub const REGION_GRANULE: u32 = 64;

/// The lanes of row 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// [`MAGIC`].
    Magic = 0,
    /// `m0` after the stream (the stream only reads it).
    M0 = 1,
}

/// Lanes of row 0 in use.
pub const SPECIALS: u32 = 2;

/// Where everything is in an SMEM probe's output buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// Lanes per wave: 32 or 64.
    pub lanes: u32,
    /// SGPRs `s0` up whose final values are stored.
    pub captured_sgprs: u16,
    /// Bytes of the data region for loads and stores (a multiple of
    /// [`REGION_GRANULE`]).
    pub cached_bytes: u32,
    /// Bytes of the data region for atomics, after the cached part (a
    /// multiple of [`REGION_GRANULE`]).
    pub atomic_bytes: u32,
}

impl Layout {
    /// Bytes of one row.
    pub fn row_bytes(&self) -> u64 {
        u64::from(self.lanes) * 4
    }

    /// Rows of SGPRs.
    pub fn sgpr_rows(&self) -> u64 {
        u64::from(self.captured_sgprs).div_ceil(u64::from(self.lanes.max(1)))
    }

    /// Byte offset of row `row` (0: the specials).
    pub fn row_offset(&self, row: u64) -> u64 {
        row * self.row_bytes()
    }

    /// Byte offset of special `s`.
    pub fn special_offset(&self, s: Special) -> u64 {
        s as u64 * 4
    }

    /// Byte offset of the final value of `s[r]`.
    pub fn sgpr_offset(&self, r: u16) -> u64 {
        let lanes = u64::from(self.lanes.max(1));
        self.row_offset(1 + u64::from(r) / lanes) + u64::from(r) % lanes * 4
    }

    /// Byte offset of the data region.
    pub fn data_offset(&self) -> u64 {
        self.row_offset(1 + self.sgpr_rows())
            .next_multiple_of(DATA_ALIGN)
    }

    /// Bytes of the data region.
    pub fn data_bytes(&self) -> u64 {
        u64::from(self.cached_bytes) + u64::from(self.atomic_bytes)
    }

    /// Bytes of the whole buffer.
    pub fn output_bytes(&self) -> u64 {
        self.data_offset() + self.data_bytes()
    }

    /// Why the layout cannot describe a probe's buffer, if it cannot.
    pub fn check(&self) -> Result<(), DumpError> {
        if self.lanes != 32 && self.lanes != 64 {
            return Err(DumpError::Lanes(self.lanes));
        }
        let granular = |b: u32| b.is_multiple_of(REGION_GRANULE);
        if !granular(self.cached_bytes) || !granular(self.atomic_bytes) {
            return Err(DumpError::Record {
                slot: 0,
                what: "data region sizes are not multiples of 64 bytes",
            });
        }
        Ok(())
    }
}

/// The initial value the probe's prologue gives a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Value {
    /// This value.
    Const(u32),
    /// The low dword of the data region's address plus this offset.
    DataLo(u32),
    /// The high dword of the data region's address plus this offset (the
    /// carry of the [`Value::DataLo`] in the register below).
    DataHi(u32),
}

impl Value {
    /// The value when the data region is at `data`.
    pub fn resolve(self, data: u64) -> u32 {
        match self {
            Value::Const(v) => v,
            Value::DataLo(off) => data.wrapping_add(u64::from(off)) as u32,
            Value::DataHi(off) => (data.wrapping_add(u64::from(off)) >> 32) as u32,
        }
    }
}

/// One register the prologue sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Init {
    /// Register slot (the SMEM operand number: `m0` is 124 before GFX11,
    /// 125 from GFX11).
    pub reg: u8,
    /// Its value.
    pub value: Value,
}

/// The initial value of data register `s[r]`: `"SG"`, then `r` twice, so
/// a dump shows which register a value came from.
pub fn sgpr_pattern(r: u8) -> u32 {
    0x5347_0000 | u32::from(r) << 8 | u32::from(r)
}

/// Dword `k` of the data region's initial contents: a multiplicative
/// hash of `k`, so neighbouring dwords differ in every byte and both
/// signs occur (for the signed min/max atomics).
pub fn data_dword(k: u32) -> u32 {
    k.wrapping_mul(0x9e37_79b9) ^ 0x5344_4154
}

/// The data region's initial contents: `bytes` bytes of [`data_dword`]s.
pub fn initial_data(bytes: u64) -> Vec<u8> {
    (0..bytes.div_ceil(4) as u32)
        .flat_map(|k| data_dword(k).to_le_bytes())
        .take(bytes as usize)
        .collect()
}

/// What the harness needs to dispatch one SMEM probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmemPlan {
    /// The case name (`probe.smem.TARGET.SEED.INDEX`).
    pub case: String,
    /// The code object file, relative to the plan's directory.
    pub object: String,
    /// The processor (`gfx90a`).
    pub target: String,
    /// The kernel's symbol; its descriptor is `KERNEL.kd`.
    pub kernel: String,
    /// The packet's grid: one wave of [`Layout::lanes`] work-items.
    pub shape: Shape,
    /// The output buffer's layout.
    pub layout: Layout,
    /// Every register the prologue sets, in the order it sets them.
    pub init: Vec<Init>,
    /// The data region's initial contents, hex ([`initial_data`]).
    pub data_hex: String,
    /// [`Layout::output_bytes`].
    pub output_bytes: u64,
    /// File offsets in the code object of the low and the high dword of
    /// the output buffer's address.
    pub patch_offsets: [u64; 2],
}

/// An SMEM probe's output buffer, decoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmemDump {
    /// `m0` after the stream.
    pub m0: u32,
    /// `s0` up after the stream.
    pub sgprs: Vec<u32>,
    /// The data region after the stream.
    pub data: Vec<u8>,
}

fn dword(b: &[u8], at: u64) -> u32 {
    let at = at as usize;
    match b.get(at..at + 4) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

impl SmemDump {
    /// Reads an output buffer laid out as `layout`.
    pub fn parse(b: &[u8], layout: &Layout) -> Result<SmemDump, DumpError> {
        layout.check()?;
        let len = b.len() as u64;
        if len < layout.output_bytes() {
            return Err(DumpError::Truncated(len));
        }
        if dword(b, layout.special_offset(Special::Magic)) != MAGIC {
            return Err(DumpError::Record {
                slot: 0,
                what: "no probe magic: the probe did not run to its end",
            });
        }
        let data = layout.data_offset() as usize;
        Ok(SmemDump {
            m0: dword(b, layout.special_offset(Special::M0)),
            sgprs: (0..layout.captured_sgprs)
                .map(|r| dword(b, layout.sgpr_offset(r)))
                .collect(),
            data: b
                .get(data..data + layout.data_bytes() as usize)
                .unwrap_or_default()
                .to_vec(),
        })
    }

    /// The output buffer holding this dump (the inverse of
    /// [`SmemDump::parse`]: unused lanes 0, missing values 0).
    pub fn to_bytes(&self, layout: &Layout) -> Vec<u8> {
        let mut b = vec![0u8; layout.output_bytes() as usize];
        let mut put = |at: u64, v: u32| {
            if let Some(d) = b.get_mut(at as usize..at as usize + 4) {
                d.copy_from_slice(&v.to_le_bytes());
            }
        };
        put(layout.special_offset(Special::Magic), MAGIC);
        put(layout.special_offset(Special::M0), self.m0);
        for (r, &v) in self
            .sgprs
            .iter()
            .enumerate()
            .take(layout.captured_sgprs.into())
        {
            put(layout.sgpr_offset(r as u16), v);
        }
        let at = layout.data_offset() as usize;
        let n = self.data.len().min(layout.data_bytes() as usize);
        if let (Some(d), Some(s)) = (b.get_mut(at..at + n), self.data.get(..n)) {
            d.copy_from_slice(s);
        }
        b
    }
}

/// What [`predict`] expects an SMEM probe to leave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prediction {
    /// The expected dump.
    pub dump: SmemDump,
    /// Captured SGPRs (bit `r` for `s[r]`) whose value the executor cannot
    /// predict: time counters, and registers still being loaded.
    pub unknown_sgprs: u128,
    /// Why the prediction is not to be trusted at all (stream violations,
    /// accesses outside the data region, instructions whose effect on
    /// memory the executor does not track); empty for a full prediction.
    pub problems: Vec<String>,
}

/// Which value of a dump differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Field {
    /// `m0`.
    M0,
    /// `s[r]`.
    Sgpr(u16),
    /// The dword at this byte offset of the data region.
    Data(u64),
}

/// One dword of a dump that is not what the prediction says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    /// Where.
    pub field: Field,
    /// The prediction.
    pub expected: u32,
    /// The dump.
    pub got: u32,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.field {
            Field::M0 => write!(f, "m0")?,
            Field::Sgpr(r) => write!(f, "s{r}")?,
            Field::Data(at) => write!(f, "data+{at:#x}")?,
        }
        write!(
            f,
            ": expected {:#010x}, got {:#010x}",
            self.expected, self.got
        )
    }
}

impl Prediction {
    /// True when every value is predicted and the stream is one the
    /// executor models without reservation.
    pub fn is_full(&self) -> bool {
        self.problems.is_empty() && self.unknown_sgprs == 0
    }

    /// Every dword of `got` that differs from the prediction, `m0` first,
    /// then SGPRs, then data in address order; registers in
    /// [`Prediction::unknown_sgprs`] are skipped. A register or data dword
    /// missing from either side counts as 0.
    pub fn compare(&self, got: &SmemDump) -> Vec<Difference> {
        let mut out = Vec::new();
        let want = &self.dump;
        if want.m0 != got.m0 {
            out.push(Difference {
                field: Field::M0,
                expected: want.m0,
                got: got.m0,
            });
        }
        let n = want.sgprs.len().max(got.sgprs.len());
        for r in 0..n {
            if r < 128 && self.unknown_sgprs >> r & 1 == 1 {
                continue;
            }
            let (e, g) = (
                want.sgprs.get(r).copied().unwrap_or(0),
                got.sgprs.get(r).copied().unwrap_or(0),
            );
            if e != g {
                out.push(Difference {
                    field: Field::Sgpr(r as u16),
                    expected: e,
                    got: g,
                });
            }
        }
        // Missing bytes (a short buffer) read as 0.
        let at = |d: &[u8], k: u64| {
            let mut b = [0u8; 4];
            for (i, x) in b.iter_mut().enumerate() {
                *x = d.get(4 * k as usize + i).copied().unwrap_or(0);
            }
            u32::from_le_bytes(b)
        };
        let n = want.data.len().max(got.data.len()).div_ceil(4) as u64;
        for k in 0..n {
            let (e, g) = (at(&want.data, k), at(&got.data, k));
            if e != g {
                out.push(Difference {
                    field: Field::Data(4 * k),
                    expected: e,
                    got: g,
                });
            }
        }
        out
    }
}

/// Predicts an SMEM probe's dump: a fresh [`Machine`] of `gen` (XNACK
/// soft clauses checked when `xnack`) gets the data region
/// [`initial_data`] and runs the prologue's writes of `init` (in order),
/// with the buffer at `output` (the address the harness patched in), then
/// `steps` (what the probe executes between its prologue and the capture,
/// its final waits included); the probe then reads the captured
/// registers.
///
/// A problem is reported for a stream violation, a read of memory outside
/// the data region (never written, so unknown), a write outside it, a
/// register still pending at the capture, and for instructions whose
/// effect on memory the executor does not track (time counters, which a
/// store could copy to memory; discards).
pub fn predict(
    gen: SmemGen,
    xnack: bool,
    layout: &Layout,
    init: &[Init],
    steps: &[Step],
    output: u64,
) -> Prediction {
    let data = output.wrapping_add(layout.data_offset());
    let mut m = Machine::new(gen);
    m.xnack = xnack;
    // The prologue's SALU writes, as steps: the executor then checks the
    // hazards between them and the stream (a resource's third dword
    // written just before an `s_buffer_*`).
    for i in init {
        m.step(&Step::WriteSgpr {
            reg: i.reg,
            value: i.value.resolve(data),
        });
    }
    let bytes = initial_data(layout.data_bytes());
    m.memory.write(data, &bytes);
    m.run(steps);
    let mut problems = Vec::new();
    for s in steps {
        if let Step::Smem(i) = s {
            if matches!(i.op.class, Class::Time | Class::Discard) {
                problems.push(format!("{}: effect on memory not tracked", i.op.mnemonic));
            }
        }
    }
    let captured = layout.captured_sgprs.min(128);
    let pending = m.pending_mask();
    m.step(&Step::ReadSgprs {
        first: 0,
        count: captured as u8,
    });
    m.step(&Step::ReadSgprs {
        first: gen.m0(),
        count: 1,
    });
    for v in m.violations() {
        problems.push(format!("step {}: {} {}", v.index, v.rule.id, v.message));
    }
    for u in m.uninitialized_reads() {
        problems.push(format!(
            "step {}: reads {} bytes outside the data region at {:#x}",
            u.index, u.bytes, u.address
        ));
    }
    let end = data.wrapping_add(layout.data_bytes());
    let outside = m
        .memory
        .written_bytes()
        .filter(|&(a, _)| a.wrapping_sub(data) >= end.wrapping_sub(data))
        .count();
    if outside != 0 {
        problems.push(format!("{outside} bytes written outside the data region"));
    }
    let mut region = vec![0u8; bytes.len()];
    m.memory.read(data, &mut region);
    let captured_mask = if captured >= 128 {
        u128::MAX
    } else {
        (1u128 << captured) - 1
    };
    let dump = SmemDump {
        m0: m.sgpr(gen.m0()),
        sgprs: (0..captured as u8).map(|r| m.sgpr(r)).collect(),
        data: region,
    };
    Prediction {
        dump,
        unknown_sgprs: (m.opaque_mask() | pending) & captured_mask,
        problems,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smem::exec::Step;
    use crate::smem::{Instruction, Offset};
    use proptest::prelude::*;

    fn layout(lanes: u32, captured: u16) -> Layout {
        Layout {
            lanes,
            captured_sgprs: captured,
            cached_bytes: 512,
            atomic_bytes: 256,
        }
    }

    #[test]
    fn layout_places_rows_then_aligned_data() {
        let l = layout(64, 64);
        assert_eq!(l.sgpr_rows(), 1);
        assert_eq!(l.sgpr_offset(0), 256);
        assert_eq!(l.sgpr_offset(63), 256 + 63 * 4);
        assert_eq!(l.data_offset(), 512);
        assert_eq!(l.output_bytes(), 512 + 768);
        let l = layout(32, 40);
        assert_eq!(l.sgpr_rows(), 2);
        assert_eq!(l.sgpr_offset(33), 2 * 128 + 4);
        assert_eq!(l.data_offset(), 512);
    }

    proptest! {
        /// Any dump survives to_bytes then parse.
        #[test]
        fn dump_round_trips(
            wave64 in any::<bool>(),
            captured in 0u16..=100,
            m0 in any::<u32>(),
            seed in any::<u32>(),
        ) {
            let l = layout(if wave64 { 64 } else { 32 }, captured);
            let d = SmemDump {
                m0,
                sgprs: (0..captured).map(|r| seed.rotate_left(u32::from(r)) ^ u32::from(r)).collect(),
                data: (0..l.data_bytes()).map(|k| (k as u32 ^ seed) as u8).collect(),
            };
            let b = d.to_bytes(&l);
            prop_assert_eq!(b.len() as u64, l.output_bytes());
            prop_assert_eq!(SmemDump::parse(&b, &l), Ok(d));
        }
    }

    #[test]
    fn bad_buffers_are_errors() {
        let l = layout(64, 8);
        assert_eq!(SmemDump::parse(&[0; 10], &l), Err(DumpError::Truncated(10)));
        assert_eq!(
            SmemDump::parse(&[0; 4096], &Layout { lanes: 48, ..l }),
            Err(DumpError::Lanes(48))
        );
        assert!(matches!(
            SmemDump::parse(&vec![0; l.output_bytes() as usize], &l),
            Err(DumpError::Record { slot: 0, .. })
        ));
    }

    #[test]
    fn values_resolve_with_carry() {
        let data = 0x0000_7fff_ffff_fff0;
        assert_eq!(Value::DataLo(0x20).resolve(data), 0x10);
        assert_eq!(Value::DataHi(0x20).resolve(data), 0x8000);
        assert_eq!(Value::Const(7).resolve(data), 7);
        assert_eq!(initial_data(6).len(), 6);
        assert_eq!(&initial_data(8)[4..8], &data_dword(1).to_le_bytes());
    }

    /// A load and a store through a base pair: predicted in full; the dump
    /// built from the prediction compares equal, and a one-dword change is
    /// exactly one difference.
    #[test]
    fn prediction_of_a_small_stream() {
        let gen = SmemGen::Gfx9;
        let l = layout(64, 16);
        let load = gen.op_by_name("s_load_dwordx2").expect("in the table");
        let store = gen.op_by_name("s_store_dword").expect("in the table");
        let init = [
            Init {
                reg: 0,
                value: Value::DataLo(64),
            },
            Init {
                reg: 1,
                value: Value::DataHi(64),
            },
            Init {
                reg: 5,
                value: Value::Const(0x1234_5678),
            },
        ];
        let steps = [
            Step::Smem(Instruction::new(gen, load, 8, 0, Offset::Imm(8))),
            Step::Smem(Instruction::new(gen, store, 5, 0, Offset::Imm(0))),
            Step::WaitLgkm(0),
        ];
        let output = 0x7f00_1234_5600;
        let p = predict(gen, false, &l, &init, &steps, output);
        assert!(p.is_full(), "{:?}", p.problems);
        let data = initial_data(l.data_bytes());
        assert_eq!(
            p.dump.sgprs[8],
            u32::from_le_bytes(data[72..76].try_into().unwrap())
        );
        assert_eq!(p.dump.sgprs[0], (output + l.data_offset() + 64) as u32);
        assert_eq!(&p.dump.data[64..68], &0x1234_5678u32.to_le_bytes());
        let got = SmemDump::parse(&p.dump.to_bytes(&l), &l).expect("a dump");
        assert!(p.compare(&got).is_empty());
        let mut bad = got.clone();
        bad.data[300] ^= 0x40;
        let d = p.compare(&bad);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].field, Field::Data(300 & !3));
        let mut bad = got;
        bad.sgprs[9] ^= 1;
        assert_eq!(p.compare(&bad).len(), 1);
    }

    /// Registers the prediction does not know are not compared; the
    /// prologue's last write of a resource's third dword right before an
    /// `s_buffer_*` is a problem (the GFX9 hazard).
    #[test]
    fn unknown_registers_and_prologue_hazards() {
        let gen = SmemGen::Gfx9;
        let l = layout(64, 16);
        let memtime = gen.op_by_name("s_memtime").expect("in the table");
        let steps = [
            Step::Smem(Instruction::new(gen, memtime, 2, 0, Offset::None)),
            Step::WaitLgkm(0),
        ];
        let p = predict(gen, false, &l, &[], &steps, 0x1000_0000);
        assert_eq!(p.unknown_sgprs, 0b1100);
        assert!(!p.is_full());
        let mut got = p.dump.clone();
        got.sgprs[2] ^= 0xffff;
        got.sgprs[3] ^= 1;
        assert!(p.compare(&got).is_empty());
        got.sgprs[4] ^= 1;
        assert_eq!(p.compare(&got).len(), 1);

        let load = gen.op_by_name("s_buffer_load_dword").expect("in the table");
        // Dword 2 (NUM_RECORDS) written last.
        let init: Vec<Init> = [
            (0, Value::DataLo(0)),
            (1, Value::DataHi(0)),
            (3, Value::Const(0x27000)),
            (2, Value::Const(64)),
        ]
        .into_iter()
        .map(|(reg, value)| Init { reg, value })
        .collect();
        let run = |steps: &[Step]| predict(gen, false, &l, &init, steps, 0x1000_0000);
        let i = Step::Smem(Instruction::new(gen, load, 8, 0, Offset::Imm(4)));
        let hazard = run(&[i, Step::WaitLgkm(0)]);
        assert!(
            hazard
                .problems
                .iter()
                .any(|p| p.contains("smem.buffer.resource_hazard")),
            "{:?}",
            hazard.problems
        );
        assert!(run(&[Step::Other, i, Step::WaitLgkm(0)]).is_full());
    }

    #[test]
    fn accesses_outside_the_region_are_problems() {
        let gen = SmemGen::Gfx9;
        let l = layout(64, 16);
        let load = gen.op_by_name("s_load_dword").expect("in the table");
        // s[0:1] = 0: the load reads address 0, outside the region.
        let steps = [
            Step::Smem(Instruction::new(gen, load, 8, 0, Offset::Imm(0))),
            Step::WaitLgkm(0),
        ];
        let p = predict(gen, false, &l, &[], &steps, 0x1000_0000);
        assert!(!p.is_full());
        // A pending register at the capture.
        let steps = [Step::Smem(Instruction::new(
            gen,
            load,
            8,
            0,
            Offset::Imm(0),
        ))];
        let init = [
            Init {
                reg: 0,
                value: Value::DataLo(0),
            },
            Init {
                reg: 1,
                value: Value::DataHi(0),
            },
        ];
        let p = predict(gen, false, &l, &init, &steps, 0x1000_0000);
        assert_eq!(p.unknown_sgprs, 1 << 8);
        assert!(!p.is_full());
    }
}
