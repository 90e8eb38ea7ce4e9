use super::*;
use crate::smem::{decode, Instruction, Offset, SmemGen};
use proptest::prelude::*;

const BASE: u64 = 0x0000_1234_5678_0000;
const RBASE: u64 = 0x0000_7777_0000_0100;
const NUM_RECORDS: u32 = 0x100;

fn op(gen: SmemGen, name: &str) -> &'static OpInfo {
    gen.op_by_name(name)
        .unwrap_or_else(|| panic!("{name} not in {gen:?}"))
}

fn ins(gen: SmemGen, name: &str, sdata: u8, sbase: u8, offset: Offset) -> Instruction {
    Instruction::new(gen, op(gen, name), sdata, sbase, offset)
}

fn glc(mut i: Instruction) -> Instruction {
    i.glc = true;
    i
}

fn s(i: Instruction) -> Step {
    Step::Smem(i)
}

/// Rule ids reported by the machine, in order.
fn ids(m: &Machine) -> Vec<&'static str> {
    m.violations().iter().map(|v| v.rule.id).collect()
}

/// The byte the fixtures put at `addr`.
fn pat(addr: u64) -> u8 {
    (addr.wrapping_mul(7) ^ (addr >> 8)) as u8
}

fn pat32(addr: u64) -> u32 {
    u32::from_le_bytes([0, 1, 2, 3].map(|k| pat(addr + k)))
}

/// A machine with SBASE pair s[2:3] = BASE, a resource at s[4:7] (base
/// RBASE, NUM_RECORDS 0x100), data s16.. = 0xC0DE_0000 + k, s20 = 4, and
/// memory around BASE and RBASE filled with `pat`.
fn fixture(gen: SmemGen) -> Machine {
    let mut m = Machine::new(gen);
    m.set_sgpr(2, BASE as u32);
    m.set_sgpr(3, (BASE >> 32) as u32);
    let r = BufferResource {
        base: RBASE,
        stride: 0,
        num_records: NUM_RECORDS,
        dword3: 0x0002_7fac,
    }
    .to_dwords();
    for (k, d) in r.iter().enumerate() {
        m.set_sgpr(4 + k as u8, *d);
    }
    for k in 0..16u8 {
        m.set_sgpr(16 + k, 0xC0DE_0000 + u32::from(k));
    }
    m.set_sgpr(20, 4);
    for a in (BASE..BASE + 0x200).chain(RBASE..RBASE + 0x200) {
        m.memory.write_byte(a, pat(a));
    }
    m
}

/// A valid instruction for any table entry: SDATA s16, SBASE s[2:3] or
/// s[4:7], offset 8 (scratch: s20 + 8), GLC on atomics.
fn build(gen: SmemGen, o: &'static OpInfo) -> Instruction {
    let c = o.class;
    let sdata = if c.has_sdata_regs() { 16 } else { 0 };
    let sbase = match (c.has_sbase(), c.buffer_base()) {
        (false, _) => 0,
        (true, true) => 4,
        (true, false) => 2,
    };
    let offset = if !c.has_offset() {
        Offset::None
    } else if c.prefetch() {
        Offset::SgprImm {
            sgpr: gen.null(),
            imm: 8,
        }
    } else if c.scratch() {
        Offset::SgprImm { sgpr: 20, imm: 8 }
    } else {
        Offset::Imm(8)
    };
    let mut i = Instruction::new(gen, o, sdata, sbase, offset);
    i.glc = matches!(c, Class::Atomic | Class::BufferAtomic);
    i
}

/// Every entry of every generation's table has semantics, runs without an
/// invalid-instruction report, and does what its class says, with the
/// expected values computed here from the seed's pseudocode.
#[test]
fn every_table_entry_executes() {
    let mut count = 0;
    for gen in SmemGen::ALL {
        for o in gen.table() {
            count += 1;
            let sem = semantics(o).unwrap_or_else(|| panic!("{} has no semantics", o.mnemonic));
            let i = build(gen, o);
            assert!(encode(&i).is_ok(), "{} {:?}", o.mnemonic, encode(&i));
            let mut m = fixture(gen);
            m.wave_id = 0x33;
            let before = m.clone();
            m.step(&s(i));
            assert!(
                !ids(&m).contains(&"smem.exec.invalid_instruction"),
                "{}: {:?}",
                o.mnemonic,
                m.violations()
            );
            // Address the seed's pseudocode gives for this fixture.
            let addr = match o.class {
                Class::BufferLoad | Class::BufferStore | Class::BufferAtomic => RBASE + 8,
                // Seed: (OFFSET & ~3) + (SGPROFFSET & ~3) * 64.
                Class::ScratchLoad | Class::ScratchStore => BASE + 8 + 4 * 64,
                _ => BASE + 8,
            };
            let reg = |k: u8| m.sgpr(16 + k);
            match sem {
                Semantics::Load { ext, .. } => {
                    match ext {
                        Ext::Dwords => {
                            for k in 0..o.width {
                                assert_eq!(
                                    reg(k),
                                    pat32(addr + 4 * u64::from(k)),
                                    "{} dword {k}",
                                    o.mnemonic
                                );
                            }
                        }
                        Ext::U8 => assert_eq!(reg(0), u32::from(pat(addr))),
                        Ext::I8 => assert_eq!(reg(0), pat(addr) as i8 as i32 as u32),
                        Ext::U16 => assert_eq!(reg(0), pat32(addr) & 0xffff),
                        Ext::I16 => assert_eq!(reg(0), pat32(addr) as u16 as i16 as i32 as u32),
                    }
                    assert_eq!(m.memory, before.memory, "{}", o.mnemonic);
                }
                Semantics::Store { .. } => {
                    for k in 0..o.width {
                        assert_eq!(
                            m.memory.read_u32(addr + 4 * u64::from(k)),
                            0xC0DE_0000 + u32::from(k),
                            "{}",
                            o.mnemonic
                        );
                    }
                    assert_eq!(m.sgprs(), before.sgprs());
                }
                Semantics::Atomic { wide, .. } => {
                    // GLC returns the old value; only the target changes.
                    assert_eq!(reg(0), pat32(addr), "{}", o.mnemonic);
                    if wide {
                        assert_eq!(reg(1), pat32(addr + 4), "{}", o.mnemonic);
                    }
                    let size = if wide { 8 } else { 4 };
                    for (a, b) in before.memory.written_bytes() {
                        if !(addr..addr + size).contains(&a) {
                            assert_eq!(m.memory.byte(a), Some(b), "{} at {a:#x}", o.mnemonic);
                        }
                    }
                }
                Semantics::MemTime | Semantics::MemRealTime => {
                    assert_eq!((reg(0), reg(1)), (0, 0), "{}", o.mnemonic);
                    assert_eq!(m.opaque_mask(), 0b11 << 16);
                }
                Semantics::WaveId => assert_eq!(reg(0), 0x33),
                Semantics::Cache(_)
                | Semantics::Probe
                | Semantics::Prefetch
                | Semantics::Discard { .. } => {
                    assert_eq!(m.sgprs(), before.sgprs(), "{}", o.mnemonic);
                    assert_eq!(m.memory, before.memory, "{}", o.mnemonic);
                    assert!(m.accepted(), "{}: {:?}", o.mnemonic, m.violations());
                }
            }
            // Classes and semantics agree on the address space.
            let space = match sem {
                Semantics::Load { space, .. }
                | Semantics::Store { space }
                | Semantics::Atomic { space, .. } => Some(space),
                _ => None,
            };
            if let Some(space) = space {
                let want = if o.class.buffer_base() {
                    Space::Buffer
                } else if o.class.scratch() {
                    Space::Scratch
                } else {
                    Space::Global
                };
                assert_eq!(space, want, "{}", o.mnemonic);
            }
        }
    }
    // GFX8, GFX9, gfx1010, gfx1030, GFX11, GFX12, GFX12.5 table sizes.
    assert_eq!(count, 24 + 84 + 84 + 16 + 14 + 28 + 28);
}

/// Atomic cases: (operation, old, data, compare, new memory value), from
/// the seed's pseudocode worked by hand.
const ATOMIC32: &[(&str, u32, u32, u32, u32)] = &[
    ("swap", 0x1111_1111, 0x2222_2222, 0, 0x2222_2222),
    ("cmpswap", 5, 9, 5, 9),
    ("cmpswap", 5, 9, 6, 5),
    ("add", 0xFFFF_FFFE, 3, 0, 1),
    ("sub", 1, 3, 0, 0xFFFF_FFFE),
    ("smin", 0xFFFF_FFFF, 1, 0, 0xFFFF_FFFF),
    ("umin", 0xFFFF_FFFF, 1, 0, 1),
    ("smax", 0xFFFF_FFFF, 1, 0, 1),
    ("umax", 0xFFFF_FFFF, 1, 0, 0xFFFF_FFFF),
    ("and", 0xF0F0_F0F0, 0xFF00_FF00, 0, 0xF000_F000),
    ("or", 0xF0F0_F0F0, 0x0F00_0F00, 0, 0xFFF0_FFF0),
    ("xor", 0xF0F0_F0F0, 0xFFFF_0000, 0, 0x0F0F_F0F0),
    ("inc", 4, 5, 0, 5),
    ("inc", 5, 5, 0, 0),
    ("inc", 0xFFFF_FFFF, 0xFFFF_FFFF, 0, 0),
    ("dec", 4, 5, 0, 3),
    ("dec", 0, 5, 0, 5),
    ("dec", 6, 5, 0, 5),
];

const ATOMIC64: &[(&str, u64, u64, u64, u64)] = &[
    (
        "swap",
        0x1111_1111_2222_2222,
        0x3333_3333_4444_4444,
        0,
        0x3333_3333_4444_4444,
    ),
    ("cmpswap", 0x1_0000_0005, 9, 0x1_0000_0005, 9),
    ("cmpswap", 0x1_0000_0005, 9, 5, 0x1_0000_0005),
    ("add", u64::MAX, 2, 0, 1),
    ("add", 0xFFFF_FFFF, 1, 0, 0x1_0000_0000),
    ("sub", 0, 1, 0, u64::MAX),
    ("smin", u64::MAX, 1, 0, u64::MAX),
    ("umin", u64::MAX, 1, 0, 1),
    ("smax", u64::MAX, 1, 0, 1),
    ("umax", u64::MAX, 1, 0, u64::MAX),
    (
        "and",
        0xFF00_0000_F0F0_F0F0,
        0xF000_0000_FF00_FF00,
        0,
        0xF000_0000_F000_F000,
    ),
    (
        "or",
        0xFF00_0000_0000_0000,
        0x00FF,
        0,
        0xFF00_0000_0000_00FF,
    ),
    ("xor", u64::MAX, 0xFFFF_FFFF, 0, 0xFFFF_FFFF_0000_0000),
    ("inc", 0xFFFF_FFFF, 0x1_0000_0000, 0, 0x1_0000_0000),
    ("inc", 0x1_0000_0000, 0x1_0000_0000, 0, 0),
    ("dec", 0x1_0000_0000, u64::MAX, 0, 0xFFFF_FFFF),
    ("dec", 0, 7, 0, 7),
    ("dec", 8, 7, 0, 7),
];

/// Runs one atomic of `gen` on a value at BASE (or RBASE for buffers)
/// with and without GLC and checks memory and SDATA.
fn check_atomic(gen: SmemGen, buffer: bool, wide: bool, case: (&str, u64, u64, u64, u64)) {
    let (name, old, data, cmp, new) = case;
    let prefix = if buffer {
        "s_buffer_atomic_"
    } else {
        "s_atomic_"
    };
    let suffix = if wide { "_x2" } else { "" };
    let mnemonic = format!("{prefix}{name}{suffix}");
    let (sbase, addr) = if buffer {
        (4, RBASE + 0x10)
    } else {
        (2, BASE + 0x10)
    };
    let n: u8 = if wide { 2 } else { 1 };
    for with_glc in [false, true] {
        let mut m = fixture(gen);
        if wide {
            m.memory.write_u64(addr, old);
        } else {
            m.memory.write_u32(addr, old as u32);
        }
        m.set_sgpr(16, data as u32);
        m.set_sgpr(17, (data >> 32) as u32);
        if name == "cmpswap" {
            m.set_sgpr(16 + n, cmp as u32);
            if wide {
                m.set_sgpr(17 + n, (cmp >> 32) as u32);
            }
        }
        let regs_before = *m.sgprs();
        let mut i = ins(gen, &mnemonic, 16, sbase, Offset::Imm(0x10));
        i.glc = with_glc;
        m.step(&s(i));
        m.step(&Step::WaitLgkm(0));
        assert!(m.accepted(), "{mnemonic}: {:?}", m.violations());
        let got = if wide {
            m.memory.read_u64(addr)
        } else {
            u64::from(m.memory.read_u32(addr))
        };
        assert_eq!(got, new, "{gen:?} {mnemonic} glc={with_glc}");
        if with_glc {
            assert_eq!(m.sgpr(16), old as u32, "{mnemonic} returned");
            if wide {
                assert_eq!(m.sgpr(17), (old >> 32) as u32, "{mnemonic} returned hi");
            }
            // cmpswap: the compare half keeps its value.
            for r in 16 + n..24 {
                assert_eq!(m.sgpr(r), regs_before[usize::from(r)], "{mnemonic} s{r}");
            }
        } else {
            assert_eq!(m.sgprs(), &regs_before, "{mnemonic} without glc");
        }
    }
}

#[test]
fn atomics_follow_the_pseudocode() {
    for gen in [SmemGen::Gfx9, SmemGen::Gfx10_1] {
        for buffer in [false, true] {
            for c in ATOMIC32 {
                check_atomic(
                    gen,
                    buffer,
                    false,
                    (
                        c.0,
                        u64::from(c.1),
                        u64::from(c.2),
                        u64::from(c.3),
                        u64::from(c.4),
                    ),
                );
            }
            for c in ATOMIC64 {
                check_atomic(gen, buffer, true, *c);
            }
        }
    }
}

#[test]
fn atomic_op_apply_masks_to_width() {
    // 32-bit operations ignore the upper halves of their inputs.
    assert_eq!(
        AtomicOp::Add.apply(0x5_FFFF_FFFF, 0x7_0000_0001, 0, false),
        0
    );
    assert_eq!(
        AtomicOp::Smin.apply(0x1_0000_0000, 0x8000_0000, 0, false),
        0x8000_0000
    );
    assert_eq!(
        AtomicOp::Umin.apply(0x1_0000_0000, 0x8000_0000, 0, false),
        0
    );
    assert_eq!(AtomicOp::CmpSwap.apply(0x1_0000_0005, 9, 5, false), 9);
}

#[test]
fn gfx12_sub_dword_loads_extend() {
    let gen = SmemGen::Gfx12;
    let mut m = Machine::new(gen);
    m.set_sgpr(2, 0x1000);
    m.memory
        .write(0x1000, &[0x80, 0x7f, 0x01, 0x80, 0xff, 0x7f]);
    let steps = [
        s(ins(gen, "s_load_i8", 10, 2, Offset::Imm(0))),
        s(ins(gen, "s_load_u8", 11, 2, Offset::Imm(0))),
        s(ins(gen, "s_load_i8", 12, 2, Offset::Imm(1))),
        s(ins(gen, "s_load_i16", 13, 2, Offset::Imm(2))),
        s(ins(gen, "s_load_u16", 14, 2, Offset::Imm(2))),
        // Byte-exact: an odd address is used as is.
        s(ins(gen, "s_load_i16", 15, 2, Offset::Imm(3))),
        s(ins(gen, "s_load_u16", 16, 2, Offset::Imm(4))),
        Step::WaitLgkm(0),
    ];
    m.run(&steps);
    assert!(m.accepted(), "{:?}", m.violations());
    assert_eq!(m.sgpr(10), 0xFFFF_FF80);
    assert_eq!(m.sgpr(11), 0x0000_0080);
    assert_eq!(m.sgpr(12), 0x0000_007F);
    assert_eq!(m.sgpr(13), 0xFFFF_8001);
    assert_eq!(m.sgpr(14), 0x0000_8001);
    assert_eq!(m.sgpr(15), 0xFFFF_FF80);
    assert_eq!(m.sgpr(16), 0x0000_7FFF);
}

#[test]
fn gfx12_b96_and_buffer_sub_dword() {
    let gen = SmemGen::Gfx12;
    let mut m = fixture(gen);
    m.run(&[
        s(ins(gen, "s_load_b96", 8, 2, Offset::Imm(4))),
        s(ins(gen, "s_buffer_load_b96", 12, 4, Offset::Imm(0))),
        s(ins(gen, "s_buffer_load_i8", 15, 4, Offset::Imm(0xff))),
        // 0x100 + 1 > NUM_RECORDS: out of range, reads 0.
        s(ins(gen, "s_buffer_load_u8", 16, 4, Offset::Imm(0x100))),
        // 0xff + 2 > NUM_RECORDS.
        s(ins(gen, "s_buffer_load_u16", 17, 4, Offset::Imm(0xff))),
        Step::WaitLgkm(0),
    ]);
    assert!(m.accepted(), "{:?}", m.violations());
    for k in 0..3u8 {
        assert_eq!(m.sgpr(8 + k), pat32(BASE + 4 + 4 * u64::from(k)));
        assert_eq!(m.sgpr(12 + k), pat32(RBASE + 4 * u64::from(k)));
    }
    assert_eq!(m.sgpr(15), pat(RBASE + 0xff) as i8 as i32 as u32);
    assert_eq!(m.sgpr(16), 0);
    assert_eq!(m.sgpr(17), 0);
}

#[test]
fn buffer_range_check() {
    let gen = SmemGen::Gfx9;
    let mut m = fixture(gen);
    m.set_sgpr(6, 8); // NUM_RECORDS = 8 bytes
    m.memory.write_u32(RBASE + 8, 0x5555_5555);
    m.run(&[
        // Dword 0 at offset 4 is in range, dwords 1-3 (8..20) are not.
        s(ins(gen, "s_buffer_load_dwordx4", 8, 4, Offset::Imm(4))),
        // The second dword (offset 8) is dropped.
        s(ins(gen, "s_buffer_store_dwordx2", 16, 4, Offset::Imm(4))),
        // Out of range: memory unchanged, returns 0.
        s(glc(ins(gen, "s_buffer_atomic_add", 20, 4, Offset::Imm(8)))),
        Step::WaitLgkm(0),
    ]);
    assert!(m.accepted(), "{:?}", m.violations());
    assert_eq!(m.sgpr(8), pat32(RBASE + 4));
    assert_eq!((m.sgpr(9), m.sgpr(10), m.sgpr(11)), (0, 0, 0));
    assert_eq!(m.memory.read_u32(RBASE + 4), 0xC0DE_0000);
    assert_eq!(m.memory.read_u32(RBASE + 8), 0x5555_5555);
    assert_eq!(m.sgpr(20), 0);
}

#[test]
fn buffer_resource_fields() {
    let r = BufferResource::from_dwords([0x8765_4321, 0xC123_4567, 0x100, 0xabc]);
    assert_eq!(r.base, 0x4567_8765_4321);
    assert_eq!(r.stride, 0x0123);
    assert_eq!(r.num_records, 0x100);
    assert_eq!(r.to_dwords(), [0x8765_4321, 0x0123_4567, 0x100, 0xabc]);
}

#[test]
fn offset_forms() {
    // GFX8: SGPR offset in bytes; m0 as offset register.
    let gen = SmemGen::Gfx8;
    let mut m = fixture(gen);
    m.set_sgpr(9, 0x20);
    m.set_sgpr(gen.m0(), 0x24);
    m.run(&[
        s(ins(gen, "s_load_dword", 10, 2, Offset::Sgpr(9))),
        s(ins(gen, "s_load_dword", 11, 2, Offset::Sgpr(gen.m0()))),
        s(ins(gen, "s_load_dword", 12, 2, Offset::Imm(0xfff00))),
        Step::WaitLgkm(0),
    ]);
    assert!(m.accepted(), "{:?}", m.violations());
    assert_eq!(m.sgpr(10), pat32(BASE + 0x20));
    assert_eq!(m.sgpr(11), pat32(BASE + 0x24));
    assert_eq!(m.sgpr(12), 0, "never written");
    assert_eq!(
        m.uninitialized_reads(),
        &[UninitRead {
            index: 2,
            address: BASE + 0xfff00,
            bytes: 4
        }]
    );

    // GFX9: SGPR + immediate, SOFFSET-only, signed immediate.
    let gen = SmemGen::Gfx9;
    let mut m = fixture(gen);
    m.set_sgpr(9, 0x40);
    m.run(&[
        s(ins(
            gen,
            "s_load_dword",
            10,
            2,
            Offset::SgprImm { sgpr: 9, imm: 0x8 },
        )),
        s(ins(gen, "s_load_dword", 11, 2, Offset::Soffset(9))),
        // -0x10 + 0x40 >= 0: defined.
        s(ins(
            gen,
            "s_load_dword",
            12,
            2,
            Offset::SgprImm {
                sgpr: 9,
                imm: -0x10,
            },
        )),
        Step::WaitLgkm(0),
    ]);
    assert!(m.accepted(), "{:?}", m.violations());
    assert_eq!(m.sgpr(10), pat32(BASE + 0x48));
    assert_eq!(m.sgpr(11), pat32(BASE + 0x40));
    assert_eq!(m.sgpr(12), pat32(BASE + 0x30));

    // GFX10/11/12: SGPR + immediate.
    for gen in [SmemGen::Gfx10_3, SmemGen::Gfx11, SmemGen::Gfx12] {
        let mut m = fixture(gen);
        m.set_sgpr(9, 0x40);
        m.run(&[
            s(ins(
                gen,
                gen.table()[0].mnemonic,
                10,
                2,
                Offset::SgprImm { sgpr: 9, imm: 0x4 },
            )),
            Step::WaitLgkm(0),
        ]);
        assert!(m.accepted(), "{:?}", m.violations());
        assert_eq!(m.sgpr(10), pat32(BASE + 0x44), "{gen:?}");
    }
}

#[test]
fn low_address_bits_are_ignored_per_component() {
    let gen = SmemGen::Gfx9;
    let mut m = fixture(gen);
    m.set_sgpr(2, BASE as u32 | 1);
    m.set_sgpr(9, 0x23);
    m.step(&s(ins(
        gen,
        "s_load_dword",
        10,
        2,
        Offset::SgprImm { sgpr: 9, imm: 0x7 },
    )));
    // (BASE|1)&~3 + 7&~3 + 0x23&~3 = BASE + 4 + 0x20.
    assert_eq!(m.sgpr(10), pat32(BASE + 0x24));
    assert_eq!(ids(&m), ["smem.address.unaligned"]);

    // Aligned components: no report.
    let mut m = fixture(gen);
    m.step(&s(ins(gen, "s_load_dword", 10, 2, Offset::Imm(4))));
    assert!(m.accepted());
}

#[test]
fn scratch_offset_is_scaled_by_64() {
    for gen in [SmemGen::Gfx9, SmemGen::Gfx10_1] {
        let mut m = fixture(gen);
        m.set_sgpr(20, 4);
        m.run(&[
            s(ins(
                gen,
                "s_scratch_load_dword",
                10,
                2,
                Offset::SgprImm { sgpr: 20, imm: 4 },
            )),
            s(ins(
                gen,
                "s_scratch_store_dword",
                16,
                2,
                Offset::SgprImm { sgpr: 20, imm: 8 },
            )),
            Step::WaitLgkm(0),
        ]);
        assert!(m.accepted(), "{:?}", m.violations());
        assert_eq!(m.sgpr(10), pat32(BASE + 4 + 4 * 64));
        assert_eq!(m.memory.read_u32(BASE + 8 + 4 * 64), 0xC0DE_0000);
        // The SGPR's two low bits are dropped before the scaling.
        let mut m = fixture(gen);
        m.set_sgpr(20, 7);
        m.step(&s(ins(
            gen,
            "s_scratch_load_dword",
            10,
            2,
            Offset::SgprImm { sgpr: 20, imm: 4 },
        )));
        assert_eq!(m.sgpr(10), pat32(BASE + 4 + 4 * 64));
        assert_eq!(ids(&m), ["smem.address.unaligned"]);
    }
}

#[test]
fn store_then_load_sees_the_store() {
    let gen = SmemGen::Gfx9;
    let mut m = fixture(gen);
    m.run(&[
        s(ins(gen, "s_store_dwordx4", 16, 2, Offset::Imm(0x100))),
        s(ins(gen, "s_load_dwordx4", 8, 2, Offset::Imm(0x104))),
        Step::WaitLgkm(0),
    ]);
    assert!(m.accepted(), "{:?}", m.violations());
    assert_eq!(
        [m.sgpr(8), m.sgpr(9), m.sgpr(10), m.sgpr(11)],
        [0xC0DE_0001, 0xC0DE_0002, 0xC0DE_0003, pat32(BASE + 0x110)]
    );
}

#[test]
fn lgkm_wait_covers_by_increment() {
    let gen = SmemGen::Gfx9;
    let read = |r| Step::ReadSgprs { first: r, count: 1 };
    let run = |steps: &[Step]| {
        let mut m = fixture(gen);
        m.run(steps);
        m
    };
    let x1 = s(ins(gen, "s_load_dword", 10, 2, Offset::Imm(0)));
    let x2 = s(ins(gen, "s_load_dwordx2", 10, 2, Offset::Imm(0)));
    let y1 = s(ins(gen, "s_load_dword", 11, 2, Offset::Imm(0)));
    let time = s(ins(gen, "s_memtime", 10, 0, Offset::None));

    // No wait: the read is too early.
    let m = run(&[x1, read(10)]);
    assert_eq!(ids(&m), ["smem.lgkm.read_before_wait"]);
    assert_eq!(m.violations()[0].index, 1);
    assert!(run(&[x1, Step::WaitLgkm(0), read(10)]).accepted());
    // A two-dword load adds 2, so lgkmcnt(1) proves it done.
    assert!(run(&[x2, Step::WaitLgkm(1), read(10), read(11)]).accepted());
    assert_eq!(
        ids(&run(&[x2, Step::WaitLgkm(2), read(11)])),
        ["smem.lgkm.read_before_wait"]
    );
    assert_eq!(
        ids(&run(&[x1, Step::WaitLgkm(1), read(10)])),
        ["smem.lgkm.read_before_wait"]
    );
    // Out of order: after two one-dword loads and lgkmcnt(1) either may
    // remain.
    let m = run(&[x1, y1, Step::WaitLgkm(1), read(10), read(11)]);
    assert_eq!(
        ids(&m),
        ["smem.lgkm.read_before_wait", "smem.lgkm.read_before_wait"]
    );
    // s_memtime needs lgkmcnt(0) (seed, S_MEMTIME).
    assert_eq!(
        ids(&run(&[time, Step::WaitLgkm(1), read(10)])),
        ["smem.lgkm.read_before_wait"]
    );
    assert!(run(&[time, Step::WaitLgkm(0), read(10), read(11)]).accepted());

    // GFX10 and later: only a wait for 0 covers.
    for gen in [SmemGen::Gfx10_3, SmemGen::Gfx11, SmemGen::Gfx12] {
        let x2 = s(ins(gen, gen.table()[1].mnemonic, 10, 2, Offset::Imm(0)));
        let mut m = fixture(gen);
        m.run(&[x2, Step::WaitLgkm(1), read(10)]);
        assert_eq!(ids(&m), ["smem.lgkm.read_before_wait"], "{gen:?}");
        let mut m = fixture(gen);
        m.run(&[x2, Step::WaitLgkm(0), read(10), read(11)]);
        assert!(m.accepted(), "{gen:?}");
    }
}

#[test]
fn lgkm_counter_bound() {
    let gen = SmemGen::Gfx9;
    let mut m = fixture(gen);
    m.step(&s(ins(gen, "s_load_dwordx2", 10, 2, Offset::Imm(0))));
    assert_eq!(m.lgkm_bound(), 2);
    m.step(&s(ins(gen, "s_load_dword", 12, 2, Offset::Imm(0))));
    m.step(&s(ins(gen, "s_store_dwordx4", 16, 2, Offset::Imm(0x100))));
    assert_eq!(m.lgkm_bound(), 4);
    assert_eq!(m.pending_mask(), 0b111 << 10);
    m.step(&Step::WaitLgkm(1));
    // The x2 load is done; the x1 load or the store may remain.
    assert_eq!(m.lgkm_bound(), 1);
    assert_eq!(m.pending_mask(), 1 << 12);
    m.step(&Step::WaitLgkm(0));
    assert_eq!((m.lgkm_bound(), m.pending_mask()), (0, 0));
}

#[test]
fn pending_uses_by_smem_instructions() {
    let gen = SmemGen::Gfx9;
    let load_base = s(ins(gen, "s_load_dwordx2", 8, 2, Offset::Imm(0)));
    // SBASE read before the wait.
    let mut m = fixture(gen);
    m.run(&[
        load_base,
        s(ins(gen, "s_load_dword", 10, 8, Offset::Imm(0))),
    ]);
    assert_eq!(ids(&m), ["smem.lgkm.read_before_wait"]);
    // Offset register read before the wait.
    let mut m = fixture(gen);
    m.run(&[
        load_base,
        s(ins(gen, "s_load_dword", 10, 2, Offset::Sgpr(9))),
    ]);
    assert_eq!(ids(&m), ["smem.lgkm.read_before_wait"]);
    // Store data read before the wait.
    let mut m = fixture(gen);
    m.run(&[
        load_base,
        s(ins(gen, "s_store_dword", 8, 2, Offset::Imm(0x100))),
    ]);
    assert_eq!(ids(&m), ["smem.lgkm.read_before_wait"]);
    // All fine after the wait.
    let mut m = fixture(gen);
    m.run(&[
        load_base,
        Step::WaitLgkm(0),
        s(ins(gen, "s_store_dword", 8, 2, Offset::Imm(0x100))),
        Step::ReadSgprs { first: 8, count: 2 },
    ]);
    assert!(m.accepted(), "{:?}", m.violations());
}

#[test]
fn write_before_wait() {
    let gen = SmemGen::Gfx9;
    let x1 = s(ins(gen, "s_load_dword", 10, 2, Offset::Imm(0)));
    let mut m = fixture(gen);
    m.run(&[x1, Step::WriteSgpr { reg: 10, value: 1 }]);
    assert_eq!(ids(&m), ["smem.lgkm.write_before_wait"]);
    let mut m = fixture(gen);
    m.run(&[x1, x1]);
    assert_eq!(ids(&m), ["smem.lgkm.write_before_wait"]);
    let mut m = fixture(gen);
    m.run(&[
        x1,
        Step::WaitLgkm(0),
        Step::WriteSgpr { reg: 10, value: 1 },
        x1,
    ]);
    assert!(m.accepted(), "{:?}", m.violations());
}

#[test]
fn atomic_return_makes_sdata_pending() {
    let gen = SmemGen::Gfx9;
    let read = |r| Step::ReadSgprs { first: r, count: 1 };
    let cas = ins(gen, "s_atomic_cmpswap", 16, 2, Offset::Imm(0));
    // Without GLC nothing is returned: SDATA may be read at once.
    let mut m = fixture(gen);
    m.run(&[s(cas), read(16), read(17)]);
    assert!(m.accepted(), "{:?}", m.violations());
    // With GLC both halves count as written (LLVM ties the tuple).
    let mut m = fixture(gen);
    m.run(&[s(glc(cas)), read(17)]);
    assert_eq!(ids(&m), ["smem.lgkm.read_before_wait"]);
}

#[test]
fn gfx8_store_offset_register() {
    let gen = SmemGen::Gfx8;
    let run = |o| {
        let mut m = fixture(gen);
        m.run(&[
            s(ins(gen, "s_store_dword", 16, 2, o)),
            s(ins(gen, "s_buffer_store_dword", 16, 4, o)),
        ]);
        ids(&m)
    };
    assert_eq!(
        run(Offset::Sgpr(9)),
        [
            "smem.gfx8.store_offset_register",
            "smem.gfx8.store_offset_register"
        ]
    );
    assert!(run(Offset::Sgpr(gen.m0())).is_empty());
    assert!(run(Offset::Imm(0x10)).is_empty());
    // GFX9 takes any SGPR.
    let mut m = fixture(SmemGen::Gfx9);
    m.step(&s(ins(
        SmemGen::Gfx9,
        "s_store_dword",
        16,
        2,
        Offset::Sgpr(9),
    )));
    assert!(m.accepted());
}

#[test]
fn buffer_resource_third_dword_hazard() {
    let write = |reg| Step::WriteSgpr {
        reg,
        value: NUM_RECORDS,
    };
    for gen in [SmemGen::Gfx8, SmemGen::Gfx9] {
        let load = s(ins(gen, "s_buffer_load_dword", 10, 4, Offset::Imm(0)));
        let mut m = fixture(gen);
        m.run(&[write(6), load]);
        assert_eq!(ids(&m), ["smem.buffer.resource_hazard"], "{gen:?}");
        let mut m = fixture(gen);
        m.run(&[write(6), Step::Other, load]);
        assert!(m.accepted(), "{gen:?}");
        // Only the third dword (SBASE+2) counts.
        let mut m = fixture(gen);
        m.run(&[write(7), load]);
        assert!(m.accepted(), "{gen:?}");
    }
    // Not a rule after GFX9.
    let gen = SmemGen::Gfx10_3;
    let mut m = fixture(gen);
    m.run(&[
        write(6),
        s(ins(gen, "s_buffer_load_dword", 10, 4, Offset::Imm(0))),
    ]);
    assert!(m.accepted());
}

#[test]
fn negative_immediate_offset() {
    let gen = SmemGen::Gfx9;
    let mut m = fixture(gen);
    m.set_sgpr(2, (BASE + 0x100) as u32);
    m.set_sgpr(9, 0x8);
    m.run(&[
        s(ins(gen, "s_load_dword", 10, 2, Offset::Imm(-0x10))),
        s(ins(
            gen,
            "s_load_dword",
            11,
            2,
            Offset::SgprImm {
                sgpr: 9,
                imm: -0x10,
            },
        )),
        s(ins(
            gen,
            "s_load_dword",
            12,
            2,
            Offset::SgprImm { sgpr: 9, imm: -0x8 },
        )),
        Step::WaitLgkm(0),
    ]);
    let v = m.violations();
    assert_eq!(ids(&m), ["smem.offset.negative", "smem.offset.negative"]);
    assert_eq!((v[0].index, v[1].index), (0, 1));
    // The model still computes the wrapped address.
    assert_eq!(m.sgpr(10), pat32(BASE + 0xf0));
    assert_eq!(m.sgpr(12), pat32(BASE + 0x100));
}

#[test]
fn xnack_soft_clause() {
    let gen = SmemGen::Gfx9;
    let a = s(ins(gen, "s_load_dword", 20, 2, Offset::Imm(0)));
    // Writes s2, which the previous clause member reads as SBASE.
    let b = s(ins(gen, "s_load_dword", 2, 4 + 4, Offset::Imm(0)));
    let run = |xnack: bool, steps: &[Step]| {
        let mut m = fixture(gen);
        m.set_sgpr(8, BASE as u32);
        m.set_sgpr(9, (BASE >> 32) as u32);
        m.xnack = xnack;
        m.run(steps);
        ids(&m)
    };
    assert_eq!(run(true, &[a, b]), ["smem.xnack.clause_overlap"]);
    assert!(run(false, &[a, b]).is_empty());
    assert!(run(true, &[a, Step::Other, b]).is_empty());
    // A lone instruction may overlap itself; a second one joining it may not.
    let own = s(ins(gen, "s_load_dwordx2", 2, 2, Offset::Imm(0)));
    assert!(run(true, &[own]).is_empty());
    let other = s(ins(gen, "s_load_dword", 21, 8, Offset::Imm(0)));
    assert_eq!(run(true, &[own, other]), ["smem.xnack.clause_overlap"]);
}

#[test]
fn discard_of_dirty_line() {
    let gen = SmemGen::Gfx9;
    let store = s(ins(gen, "s_store_dword", 16, 2, Offset::Imm(0x48)));
    let wb = s(ins(gen, "s_dcache_wb", 0, 0, Offset::None));
    let discard = |name, off| s(ins(gen, name, 0, 2, Offset::Imm(off)));
    let run = |steps: &[Step]| {
        let mut m = fixture(gen);
        m.run(steps);
        (ids(&m), m.memory.read_u32(BASE + 0x48))
    };
    // The line 0x40..0x80 holds the store.
    let (v, stored) = run(&[store, discard("s_dcache_discard", 0x7c)]);
    assert_eq!(v, ["smem.discard.dirty"]);
    assert_eq!(stored, 0xC0DE_0000, "the model keeps the bytes");
    assert!(run(&[store, wb, discard("s_dcache_discard", 0x40)])
        .0
        .is_empty());
    assert!(run(&[store, discard("s_dcache_discard", 0x80)])
        .0
        .is_empty());
    assert_eq!(
        run(&[store, discard("s_dcache_discard_x2", 0x0)]).0,
        ["smem.discard.dirty"]
    );
}

#[test]
fn invalid_instructions_are_reported() {
    let mut m = fixture(SmemGen::Gfx8);
    m.step(&s(ins(
        SmemGen::Gfx9,
        "s_load_dword",
        10,
        2,
        Offset::Imm(0),
    )));
    assert_eq!(ids(&m), ["smem.exec.invalid_instruction"]);
    // m0 as a load destination.
    let gen = SmemGen::Gfx9;
    let mut m = fixture(gen);
    m.step(&s(ins(gen, "s_load_dword", gen.m0(), 2, Offset::Imm(0))));
    assert_eq!(ids(&m), ["smem.exec.invalid_instruction"]);
    assert!(!m.report_is_empty());
}

impl Machine {
    fn report_is_empty(&self) -> bool {
        let mut sink = Sink::new();
        self.report(&mut sink);
        sink.violations.is_empty()
    }
}

#[test]
fn buffer_stride_is_reported() {
    let gen = SmemGen::Gfx9;
    let mut m = fixture(gen);
    m.set_sgpr(5, m.sgpr(5) | (16 << 16));
    m.step(&s(ins(gen, "s_buffer_load_dword", 10, 4, Offset::Imm(0))));
    assert_eq!(ids(&m), ["smem.buffer.stride"]);
}

#[test]
fn time_counters_are_monotonic_and_opaque() {
    let gen = SmemGen::Gfx9;
    let mut m = Machine::new(gen);
    m.memtime = 0xFFFF_FFFF;
    m.memrealtime = 1000;
    m.run(&[
        s(ins(gen, "s_memtime", 10, 0, Offset::None)),
        s(ins(gen, "s_memrealtime", 12, 0, Offset::None)),
        Step::WaitLgkm(0),
        s(ins(gen, "s_memtime", 14, 0, Offset::None)),
        Step::WaitLgkm(0),
    ]);
    assert!(m.accepted(), "{:?}", m.violations());
    assert_eq!((m.sgpr(10), m.sgpr(11)), (0xFFFF_FFFF, 0));
    assert_eq!((m.sgpr(12), m.sgpr(13)), (1001, 0));
    assert_eq!((m.sgpr(14), m.sgpr(15)), (2, 1));
    assert_eq!(m.opaque_mask(), 0b11_1111 << 10);
    m.step(&Step::WriteSgpr { reg: 10, value: 0 });
    assert_eq!(m.opaque_mask(), 0b11_1110 << 10);
}

#[test]
fn wave_id_and_null() {
    let gen = SmemGen::Gfx10_1;
    let mut m = Machine::new(gen);
    m.wave_id = 7;
    m.set_sgpr(gen.null(), 5);
    assert_eq!(m.sgpr(gen.null()), 0);
    m.run(&[
        s(ins(gen, "s_get_waveid_in_workgroup", 3, 0, Offset::None)),
        Step::WaitLgkm(0),
    ]);
    assert!(m.accepted());
    assert_eq!(m.sgpr(3), 7);
}

#[test]
fn rules_are_declared_in_the_smem_namespace() {
    let mut seen = std::collections::HashSet::new();
    for r in RULES {
        assert!(r.id.starts_with("smem."), "{}", r.id);
        assert!(seen.insert(r.id), "{}", r.id);
        assert!(!r.statement.is_empty() && !r.reference.is_empty());
    }
    assert_eq!(RULES.len(), 11);
}

#[test]
fn memory_reads_default_to_zero_and_track_bytes() {
    let mut mem = Memory::new();
    mem.write(u64::MAX - 1, &[1, 2, 3]);
    assert_eq!(mem.byte(u64::MAX - 1), Some(1));
    assert_eq!(mem.byte(0), Some(3));
    let mut b = [9u8; 4];
    assert_eq!(mem.read(u64::MAX - 2, &mut b), Some((u64::MAX - 2, 1)));
    assert_eq!(b, [0, 1, 2, 3]);
    assert_eq!(mem.line_count(), 2);
    assert_eq!(
        mem.written_bytes().collect::<Vec<_>>(),
        [(0, 3), (u64::MAX - 1, 1), (u64::MAX, 2)]
    );
}

fn any_gen() -> impl Strategy<Value = SmemGen> {
    (0..SmemGen::ALL.len()).prop_map(|k| SmemGen::ALL[k])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any stream of decodable instructions (and pseudo-steps) runs without
    /// panicking and allocates at most two lines and one record per step.
    #[test]
    fn any_stream_is_safe(
        gen in any_gen(),
        regs in proptest::collection::vec(any::<u32>(), SGPR_SLOTS),
        words in proptest::collection::vec((any::<u64>(), 0u8..8, any::<u8>(), any::<u32>()), 0..64),
        xnack in any::<bool>(),
    ) {
        let mut m = Machine::new(gen);
        m.xnack = xnack;
        for (r, v) in regs.iter().enumerate() {
            m.set_sgpr(r as u8, *v);
        }
        let mut steps = Vec::new();
        for (w, kind, r, v) in words {
            let step = match kind {
                0 => Step::WaitLgkm(r % 4),
                1 => Step::WriteSgpr { reg: r, value: v },
                2 => Step::ReadSgprs { first: r, count: (v % 20) as u8 },
                3 => Step::Other,
                _ => match decode(gen, (w & !(0x3f << 26)) | (u64::from(gen.encoding()) << 26)).instruction {
                    Some(i) => Step::Smem(i),
                    None => continue,
                },
            };
            steps.push(step);
        }
        m.run(&steps);
        prop_assert_eq!(m.steps(), steps.len());
        prop_assert!(m.memory.line_count() <= 2 * steps.len());
        prop_assert!(m.violations().len() <= 11 * steps.len());
        prop_assert!(m.uninitialized_reads().len() <= steps.len());
        prop_assert!(m.outstanding.len() <= steps.len());
    }

    /// Forcing the opcode field to every table entry and random operands:
    /// the executor runs them all.
    #[test]
    fn table_entries_with_random_operands(
        gen in any_gen(),
        k in any::<usize>(),
        w in any::<u64>(),
        regs in proptest::collection::vec(any::<u32>(), SGPR_SLOTS),
    ) {
        let table = gen.table();
        let o = &table[k % table.len()];
        let (lo, width) = gen.opcode_field();
        let mask = ((1u64 << width) - 1) << lo;
        let word = (w & !mask & !(0x3f << 26))
            | (u64::from(o.opcode) << lo)
            | (u64::from(gen.encoding()) << 26);
        let d = decode(gen, word);
        let i = d.instruction.expect("known opcode decodes");
        prop_assert_eq!(i.op, o);
        let mut m = Machine::new(gen);
        for (r, v) in regs.iter().enumerate() {
            m.set_sgpr(r as u8, *v);
        }
        m.step(&Step::Smem(i));
        prop_assert!(m.memory.line_count() <= 2);
    }
}

/// `null` names a whole tuple (errata SMEM 17): a wide null destination
/// changes no register (not even the m0 or exec slots after it), and a
/// GFX11+ null address pair reads 0 in both halves (m0 after it is not the
/// high half), so the access lands at the offset alone.
#[test]
fn null_tuples_are_null_in_every_dword() {
    for gen in [SmemGen::Gfx10_3, SmemGen::Gfx11, SmemGen::Gfx12] {
        let name = if gen == SmemGen::Gfx10_3 {
            "s_load_dwordx16"
        } else {
            "s_load_b512"
        };
        let mut m = fixture(gen);
        m.set_sgpr(gen.m0(), 0x1111_2222);
        m.set_sgpr(126, 0xffff_ffff);
        m.set_sgpr(127, 0x0000_ffff);
        let before = m.sgprs().to_owned();
        let i = ins(gen, name, gen.null(), 2, Offset::Imm(8));
        assert!(encode(&i).is_ok(), "{gen:?}");
        m.step(&s(i));
        m.step(&Step::WaitLgkm(0));
        assert_eq!(m.sgprs(), &before, "{gen:?}");
        assert!(ids(&m).is_empty(), "{gen:?}: {:?}", ids(&m));
    }
    for gen in [SmemGen::Gfx11, SmemGen::Gfx12] {
        let mut m = fixture(gen);
        m.set_sgpr(gen.m0(), 0x1111_2222);
        let addr = 0x40u64;
        m.memory.write_u32(addr, 0xfeed_f00d);
        let i = ins(gen, "s_load_b32", 30, gen.null(), Offset::Imm(addr as i32));
        assert!(encode(&i).is_ok(), "{gen:?}");
        m.step(&s(i));
        m.step(&Step::WaitLgkm(0));
        assert_eq!(m.sgpr(30), 0xfeed_f00d, "{gen:?}");
    }
}
