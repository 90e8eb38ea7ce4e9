//! The contract between a probe kernel (made by `gen`), the harness that
//! dispatches it (`hsaco-conform replay`) and the comparator: the dispatch
//! a probe asks for ([`Plan`]), the addresses the harness used
//! ([`Addresses`]) and the layout of what every wave writes to the output
//! buffer ([`Dump`]).
//!
//! A probe's first instructions copy every initial SGPR into the lanes of
//! one VGPR (`v_writelane_b32`, which touches nothing else), so nothing is
//! clobbered before it is seen. A wave then takes a slot with an atomic
//! add on the buffer's counter and stores its record there; each record
//! is [`ROWS`] rows of one dword per lane:
//!
//! | row | lane `i` holds |
//! |---|---|
//! | [`Row::Sgprs`] | initial SGPR `s[i]` (for `i` below the captured count) |
//! | [`Row::Special`] | the values [`Special`] names (EXEC, trap temporaries, slot, magic, entry) |
//! | [`Row::V0`], [`Row::V1`], [`Row::V2`] | VGPR0..2 of lane `i` as the wave started |
//!
//! The stores run with every lane on, so inactive lanes store too; the
//! captured EXEC says which lanes are real.

use serde::{Deserialize, Serialize};

pub mod smem;

/// Bytes before the first record: the slot counter and room to grow.
pub const HEADER_BYTES: u64 = 64;
/// Byte offset of the `u32` counter the waves increment to take a slot.
pub const COUNTER_OFFSET: u64 = 0;
/// Written by every wave in [`Special::Magic`]: a record without it was
/// not written by the probe.
pub const MAGIC: u32 = 0x4250_5348; // "HSPB" little-endian
/// [`Special::Entry`] when the wave started at the kernel's first byte
/// (the entry marks are inline constants, so every encoding can write
/// them without a literal).
pub const ENTRY_FIRST: u32 = 0x0000_0001;
/// [`Special::Entry`] when the wave started 256 bytes in, where firmware
/// that preloads kernel arguments enters (AMDGPUUsage "Preloaded Kernel
/// Arguments": the first 256 bytes are for firmware that does not).
pub const ENTRY_PRELOAD: u32 = 0x0000_0002;
/// Byte offset of the preload entry from the kernel's first byte.
pub const PRELOAD_ENTRY_OFFSET: u64 = 256;

/// The rows of a record, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// The initial SGPRs, one per lane.
    Sgprs = 0,
    /// The [`Special`] values.
    Special = 1,
    /// VGPR0 per lane.
    V0 = 2,
    /// VGPR1 per lane.
    V1 = 3,
    /// VGPR2 per lane.
    V2 = 4,
}

/// Rows in a record.
pub const ROWS: u64 = 5;

/// The lanes of [`Row::Special`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// EXEC bits 31:0 at entry.
    ExecLo = 0,
    /// EXEC bits 63:32 at entry (wave64; 0 in wave32).
    ExecHi = 1,
    /// TTMP6 at entry (GFX12; 0 where not captured).
    Ttmp6 = 2,
    /// TTMP7 at entry: work-group IDs Y and Z on GFX12.
    Ttmp7 = 3,
    /// TTMP9 at entry: work-group ID X on GFX12.
    Ttmp9 = 4,
    /// The slot the wave took (the counter's old value).
    Slot = 5,
    /// [`MAGIC`].
    Magic = 6,
    /// [`ENTRY_FIRST`] or [`ENTRY_PRELOAD`].
    Entry = 7,
}

/// Lanes of [`Row::Special`] in use.
pub const SPECIALS: u32 = 8;

/// Bytes of one wave's record.
pub fn record_bytes(lanes: u32) -> u64 {
    ROWS * u64::from(lanes) * 4
}

/// Byte offset of row `row` of slot `slot`'s record.
pub fn row_offset(slot: u64, row: Row, lanes: u32) -> u64 {
    HEADER_BYTES + slot * record_bytes(lanes) + row as u64 * u64::from(lanes) * 4
}

/// A grid and its work-groups, as the packet gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shape {
    /// Grid size in work-items per dimension (the packet's `grid_size_*`).
    pub grid: [u32; 3],
    /// Work-group size per dimension (the packet's `workgroup_size_*`).
    pub workgroup: [u16; 3],
}

impl Shape {
    /// Work-groups per dimension (the last one of a dimension may be
    /// partial).
    pub fn workgroups(&self) -> [u64; 3] {
        std::array::from_fn(|i| {
            let w = u64::from(self.workgroup[i].max(1));
            u64::from(self.grid[i]).div_ceil(w)
        })
    }

    /// The size of work-group `id`: the packet's size, clipped where the
    /// grid ends (a partial work-group).
    pub fn workgroup_size(&self, id: [u64; 3]) -> [u64; 3] {
        std::array::from_fn(|i| {
            let w = u64::from(self.workgroup[i]);
            (u64::from(self.grid[i]) - id[i] * w).min(w)
        })
    }

    /// Every wave of the dispatch, at most: each work-group's work-items
    /// in `lanes`-wide waves.
    pub fn max_waves(&self, lanes: u32) -> u64 {
        let [x, y, z] = self.workgroups();
        let per = (u64::from(self.workgroup[0])
            * u64::from(self.workgroup[1])
            * u64::from(self.workgroup[2]))
        .div_ceil(u64::from(lanes.max(1)));
        x * y * z * per
    }
}

/// Which probe a plan dispatches, and so how its output buffer reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// An SGPR probe: one record per wave ([`Dump`]).
    #[default]
    Sgpr,
    /// An SMEM stream probe: one wave's registers and data region
    /// ([`smem::SmemDump`]).
    Smem,
}

/// What the harness needs to dispatch one probe: everything but the
/// addresses the runtime picks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// The case name (`gen --case` makes the probe again from it).
    pub case: String,
    /// The code object file, relative to the plan's directory.
    pub object: String,
    /// The processor the probe is for (`gfx90a`).
    pub target: String,
    /// The kernel's symbol; its descriptor is `KERNEL.kd`.
    pub kernel: String,
    /// Lanes per wave: 32 or 64.
    pub lanes: u32,
    /// The grid and work-group sizes of the packet.
    pub shape: Shape,
    /// Initial SGPRs the probe captures (`s0` up).
    pub captured_sgprs: u16,
    /// The packet's `private_segment_size`.
    pub private_segment_size: u32,
    /// The packet's `group_segment_size`.
    pub group_segment_size: u32,
    /// Kernarg segment contents the harness copies in, hex.
    pub kernarg_hex: String,
    /// Bytes of the output buffer: header plus a record per wave.
    pub output_bytes: u64,
    /// File offsets in the code object of the low and the high dword of
    /// the output buffer's address (two 32-bit literals the harness
    /// overwrites before loading).
    pub patch_offsets: [u64; 2],
    /// The kind of probe (SGPR when absent).
    #[serde(default)]
    pub kind: Kind,
    /// Bytes the harness writes into the zeroed output buffer before the
    /// dispatch, hex (an SMEM probe's data region), at
    /// [`Plan::output_init_offset`].
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub output_init_hex: String,
    /// Where in the output buffer [`Plan::output_init_hex`] goes.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub output_init_offset: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl Plan {
    /// Records the output buffer has room for.
    pub fn records(&self) -> u64 {
        self.output_bytes.saturating_sub(HEADER_BYTES) / record_bytes(self.lanes).max(1)
    }
}

/// What the harness chose for one dispatch: the values the pointer SGPRs
/// predict from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Addresses {
    /// The dispatch packet's address (Dispatch Ptr).
    pub packet: u64,
    /// The `amd_queue_t` (Queue Ptr).
    pub queue: u64,
    /// The packet's `kernarg_address` (Kernarg Segment Ptr).
    pub kernarg: u64,
    /// The output buffer.
    pub output: u64,
    /// The packet's 64-bit index in the queue (the write index it was
    /// reserved at): the Dispatch Id the runtime's CP programs.
    pub packet_index: u64,
}

/// One wave's record, decoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaveDump {
    /// The slot it took.
    pub slot: u32,
    /// EXEC at entry.
    pub exec: u64,
    /// The captured SGPRs, `s0` first.
    pub sgprs: Vec<u32>,
    /// TTMP6, TTMP7 and TTMP9 at entry.
    pub ttmp: [u32; 3],
    /// [`ENTRY_FIRST`] or [`ENTRY_PRELOAD`] (anything else is kept as read).
    pub entry: u32,
    /// VGPR0, VGPR1 and VGPR2 per lane.
    pub vgprs: [Vec<u32>; 3],
}

/// Every wave's record of one dispatch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dump {
    /// Lanes per wave.
    pub lanes: u32,
    /// Records in slot order.
    pub waves: Vec<WaveDump>,
}

/// Why an output buffer cannot be read as a dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DumpError {
    /// Lanes is neither 32 nor 64.
    Lanes(u32),
    /// The buffer is shorter than its header.
    Truncated(u64),
    /// The counter says more waves wrote than the buffer has room for.
    Overflow {
        /// The counter.
        counter: u32,
        /// Records that fit.
        room: u64,
    },
    /// A claimed record lacks [`MAGIC`] or names another slot.
    Record {
        /// The slot.
        slot: u64,
        /// What is wrong.
        what: &'static str,
    },
}

impl std::fmt::Display for DumpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DumpError::Lanes(n) => write!(f, "a wave has 32 or 64 lanes, not {n}"),
            DumpError::Truncated(n) => {
                write!(
                    f,
                    "output buffer of {n} bytes is shorter than its {HEADER_BYTES}-byte header"
                )
            }
            DumpError::Overflow { counter, room } => write!(
                f,
                "{counter} waves took a slot but the buffer holds {room} records"
            ),
            DumpError::Record { slot, what } => write!(f, "record {slot}: {what}"),
        }
    }
}

impl std::error::Error for DumpError {}

fn dword(b: &[u8], at: u64) -> u32 {
    let at = at as usize;
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl Dump {
    /// Reads the output buffer `b` of a probe with `lanes`-wide waves that
    /// captured `captured_sgprs` SGPRs.
    pub fn parse(b: &[u8], lanes: u32, captured_sgprs: u16) -> Result<Dump, DumpError> {
        if lanes != 32 && lanes != 64 {
            return Err(DumpError::Lanes(lanes));
        }
        let len = b.len() as u64;
        if len < HEADER_BYTES {
            return Err(DumpError::Truncated(len));
        }
        let counter = dword(b, COUNTER_OFFSET);
        let room = (len - HEADER_BYTES) / record_bytes(lanes);
        if u64::from(counter) > room {
            return Err(DumpError::Overflow { counter, room });
        }
        let captured = u32::from(captured_sgprs).min(lanes) as u64;
        let mut waves = Vec::with_capacity(counter as usize);
        for slot in 0..u64::from(counter) {
            let lane = |row: Row, i: u64| dword(b, row_offset(slot, row, lanes) + i * 4);
            let sp = |s: Special| lane(Row::Special, s as u64);
            if sp(Special::Magic) != MAGIC {
                return Err(DumpError::Record {
                    slot,
                    what: "no probe magic: the wave did not write it",
                });
            }
            if u64::from(sp(Special::Slot)) != slot {
                return Err(DumpError::Record {
                    slot,
                    what: "the slot it names is not its own",
                });
            }
            let row = |r: Row| (0..u64::from(lanes)).map(|i| lane(r, i)).collect();
            waves.push(WaveDump {
                slot: slot as u32,
                exec: u64::from(sp(Special::ExecLo)) | u64::from(sp(Special::ExecHi)) << 32,
                sgprs: (0..captured).map(|i| lane(Row::Sgprs, i)).collect(),
                ttmp: [sp(Special::Ttmp6), sp(Special::Ttmp7), sp(Special::Ttmp9)],
                entry: sp(Special::Entry),
                vgprs: [row(Row::V0), row(Row::V1), row(Row::V2)],
            });
        }
        Ok(Dump { lanes, waves })
    }

    /// The output buffer that holds this dump (the inverse of
    /// [`Dump::parse`]; the comparator's tests build dumps with it).
    pub fn to_bytes(&self, capacity: u64) -> Vec<u8> {
        let lanes = self.lanes;
        let size = HEADER_BYTES + capacity.max(self.waves.len() as u64) * record_bytes(lanes);
        let mut b = vec![0u8; size as usize];
        let mut put = |at: u64, v: u32| {
            b[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
        };
        put(COUNTER_OFFSET, self.waves.len() as u32);
        for (slot, w) in self.waves.iter().enumerate() {
            let slot = slot as u64;
            let at = |row: Row, i: u64| row_offset(slot, row, lanes) + i * 4;
            for (i, &v) in w.sgprs.iter().enumerate().take(lanes as usize) {
                put(at(Row::Sgprs, i as u64), v);
            }
            let specials = [
                (Special::ExecLo, w.exec as u32),
                (Special::ExecHi, (w.exec >> 32) as u32),
                (Special::Ttmp6, w.ttmp[0]),
                (Special::Ttmp7, w.ttmp[1]),
                (Special::Ttmp9, w.ttmp[2]),
                (Special::Slot, slot as u32),
                (Special::Magic, MAGIC),
                (Special::Entry, w.entry),
            ];
            for (s, v) in specials {
                put(at(Row::Special, s as u64), v);
            }
            for (r, row) in [Row::V0, Row::V1, Row::V2].into_iter().zip(&w.vgprs) {
                for (i, &v) in row.iter().enumerate().take(lanes as usize) {
                    put(at(r, i as u64), v);
                }
            }
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wave(slot: u32, lanes: u32) -> WaveDump {
        WaveDump {
            slot,
            exec: if lanes == 64 { u64::MAX } else { 0xffff_ffff },
            sgprs: (0..7).map(|i| 0x1000 * slot + i).collect(),
            ttmp: [1, 2, 3],
            entry: ENTRY_FIRST,
            vgprs: std::array::from_fn(|r| (0..lanes).map(|l| (r as u32) << 16 | l).collect()),
        }
    }

    #[test]
    fn round_trip() {
        for lanes in [32, 64] {
            let d = Dump {
                lanes,
                waves: (0..3).map(|s| wave(s, lanes)).collect(),
            };
            let b = d.to_bytes(5);
            assert_eq!(b.len() as u64, HEADER_BYTES + 5 * record_bytes(lanes));
            assert_eq!(Dump::parse(&b, lanes, 7), Ok(d));
        }
    }

    #[test]
    fn bad_buffers_are_errors() {
        assert_eq!(Dump::parse(&[0; 10], 64, 4), Err(DumpError::Truncated(10)));
        assert_eq!(Dump::parse(&[0; 64], 48, 4), Err(DumpError::Lanes(48)));
        let d = Dump {
            lanes: 32,
            waves: vec![wave(0, 32), wave(1, 32)],
        };
        let mut b = d.to_bytes(2);
        b[0] = 3;
        assert_eq!(
            Dump::parse(&b, 32, 7),
            Err(DumpError::Overflow {
                counter: 3,
                room: 2
            })
        );
        let mut b = d.to_bytes(2);
        let magic = row_offset(1, Row::Special, 32) + Special::Magic as u64 * 4;
        b[magic as usize] ^= 1;
        assert!(matches!(
            Dump::parse(&b, 32, 7),
            Err(DumpError::Record { slot: 1, .. })
        ));
    }

    #[test]
    fn shape_counts_partial_workgroups() {
        let s = Shape {
            grid: [40, 8, 4],
            workgroup: [16, 4, 2],
        };
        assert_eq!(s.workgroups(), [3, 2, 2]);
        assert_eq!(s.workgroup_size([2, 1, 1]), [8, 4, 2]);
        assert_eq!(s.max_waves(64), 12 * 2);
        assert_eq!(s.max_waves(32), 12 * 4);
    }
}
