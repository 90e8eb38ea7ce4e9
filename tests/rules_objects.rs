//! Rules broken in real code objects.
//!
//! Each entry of [`MUTATIONS`] takes a valid object that clang-19 built,
//! changes it so that it breaks one rule, and expects the oracle to report
//! that rule id more often than for the unmutated object (other rules may
//! fire too when one change necessarily breaks several). The unmutated
//! objects must be clean: no errors and no warnings.
//!
//! Every rule of the catalogue except the `smem.` ones (which judge
//! instruction words, not objects, and are broken in oracle/src/smem tests)
//! must have an entry here
//! (`every_rule_has_an_object_mutation`). The `kd.`, `sgpr.` and
//! `metadata.` rules also have mutation tests of their own in their
//! modules, on synthetic descriptors and documents; the entries here show
//! that the whole pipeline reaches each of them from a real object.

mod support;

use hsaco_oracle::check::check_object;
use hsaco_oracle::msgpack::{self, Value};
use hsaco_oracle::rules;
use hsaco_oracle::Severity;
use std::collections::BTreeMap;
use support::elfedit::Obj;
use support::fixtures::{self, Fixture};

/// Which valid object a mutation starts from. All are built from
/// `kernels.cl` by clang-19.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Base {
    /// gfx90a, code object V5, linked (ET_DYN); xnack and sramecc "any".
    Gfx90aV5,
    /// The same, relocatable (ET_REL).
    Gfx90aV5Rel,
    /// gfx1100 (no xnack, no sramecc, wave32), V5, ET_DYN.
    Gfx1100V5,
    /// gfx9-generic, V6, ET_DYN.
    GenericV6,
    /// gfx90a with kernarg preload, V5, ET_DYN.
    Gfx90aPreload,
    /// gfx900 V4, ET_DYN.
    Gfx900V4,
    /// gfx900 V5, ET_DYN.
    Gfx900V5,
    /// gfx803 (GFX8) V5, ET_DYN.
    Gfx803V5,
    /// gfx908 (MAI, separate AGPR file) V5, ET_DYN.
    Gfx908V5,
    /// gfx942 (architected flat scratch) V5, ET_DYN.
    Gfx942V5,
    /// gfx1030 (wave32 by default, WGP mode) V5, ET_DYN.
    Gfx1030V5,
    /// gfx1030 built with `-mwavefrontsize64`, V5, ET_DYN.
    Gfx1030Wave64V5,
    /// gfx1200 (GFX12) V5, ET_DYN.
    Gfx1200V5,
}

fn pick(all: &[Fixture], base: Base) -> Obj {
    let f = all
        .iter()
        .find(|f| {
            let src = f.name.contains("kernels.cl");
            let plain = src && f.options.is_empty();
            let linked = |cpu: &str, cov: u8| f.cpu == cpu && f.cov == cov && !f.relocatable;
            match base {
                Base::Gfx90aV5 => linked("gfx90a", 5) && plain,
                Base::Gfx90aV5Rel => f.cpu == "gfx90a" && f.cov == 5 && f.relocatable && plain,
                Base::Gfx1100V5 => linked("gfx1100", 5) && plain,
                Base::GenericV6 => linked("gfx9-generic", 6) && plain,
                Base::Gfx90aPreload => {
                    linked("gfx90a", 5)
                        && src
                        && f.options.iter().any(|o| o.contains("kernarg-preload"))
                }
                Base::Gfx900V4 => linked("gfx900", 4) && plain,
                Base::Gfx900V5 => linked("gfx900", 5) && plain,
                Base::Gfx803V5 => linked("gfx803", 5) && plain,
                Base::Gfx908V5 => linked("gfx908", 5) && plain,
                Base::Gfx942V5 => linked("gfx942", 5) && plain,
                Base::Gfx1030V5 => linked("gfx1030", 5) && plain,
                Base::Gfx1030Wave64V5 => {
                    linked("gfx1030", 5)
                        && src
                        && f.options.iter().any(|o| o == "-mwavefrontsize64")
                }
                Base::Gfx1200V5 => linked("gfx1200", 5) && plain,
            }
        })
        .unwrap_or_else(|| panic!("no fixture for {base:?}"));
    Obj::new(std::fs::read(&f.path).unwrap())
}

type Mutate = fn(&mut Obj);

/// (rule id, base object, mutation).
pub const MUTATIONS: &[(&str, Base, Mutate)] = &[
    // ---- elf
    ("elf.header.truncated", Base::Gfx90aV5, |o| {
        o.bytes.truncate(40)
    }),
    ("elf.ident.class", Base::Gfx90aV5, |o| o.set_u8(4, 1)),
    ("elf.ident.data", Base::Gfx90aV5, |o| o.set_u8(5, 2)),
    ("elf.ident.version", Base::Gfx90aV5, |o| o.set_u8(6, 0)),
    ("elf.ident.osabi", Base::Gfx90aV5, |o| o.set_u8(7, 65)),
    ("elf.ident.abi_version", Base::Gfx90aV5, |o| o.set_u8(8, 9)),
    ("elf.ident.pad", Base::Gfx90aV5, |o| o.set_u8(12, 1)),
    ("elf.type", Base::Gfx90aV5, |o| o.set_u16(16, 2)),
    ("elf.machine", Base::Gfx90aV5, |o| o.set_u16(18, 62)),
    ("elf.version", Base::Gfx90aV5, |o| o.set_u32(20, 2)),
    ("elf.entry", Base::Gfx90aV5, |o| o.set_u64(24, 0x100)),
    ("elf.header.sizes", Base::Gfx90aV5, |o| o.set_u16(52, 60)),
    ("elf.e_flags.mach", Base::Gfx90aV5, |o| {
        // 0x40 was gfx940, now retired.
        let f = o.u32(48);
        o.set_u32(48, (f & !0xff) | 0x40)
    }),
    ("elf.e_flags.mach_unmodelled", Base::Gfx90aV5, |o| {
        // 0x49 is gfx1250, which current LLVM knows and the table does not.
        let f = o.u32(48);
        o.set_u32(48, (f & !0xff) | 0x49)
    }),
    ("elf.e_flags.reserved", Base::Gfx90aV5, |o| {
        let f = o.u32(48);
        o.set_u32(48, f | 0x1000)
    }),
    ("elf.e_flags.xnack", Base::Gfx1100V5, |o| {
        let f = o.u32(48);
        o.set_u32(48, f | 0x100)
    }),
    ("elf.e_flags.sramecc", Base::Gfx1100V5, |o| {
        let f = o.u32(48);
        o.set_u32(48, f | 0x400)
    }),
    ("elf.e_flags.generic_version", Base::GenericV6, |o| {
        let f = o.u32(48);
        o.set_u32(48, f & 0x00ff_ffff)
    }),
    ("elf.e_flags.generic_needs_v6", Base::GenericV6, |o| {
        o.set_u8(8, 3)
    }),
    ("elf.phdr.bounds", Base::Gfx90aV5, |o| {
        let n = o.bytes.len() as u64;
        o.set_u64(32, n - 8)
    }),
    ("elf.phdr.sizes", Base::Gfx90aV5, |o| {
        let p = load_segment(o, 1);
        let filesz = o.u64(p + 32);
        o.set_u64(p + 40, filesz - 1)
    }),
    ("elf.phdr.align", Base::Gfx90aV5, |o| {
        let p = load_segment(o, 0);
        o.set_u64(p + 48, 3)
    }),
    ("elf.shdr.bounds", Base::Gfx90aV5, |o| {
        let s = o.section(".rodata");
        let n = o.bytes.len() as u64;
        o.set_u64(s.hdr + 24, n)
    }),
    ("elf.shdr.align", Base::Gfx90aV5, |o| {
        let s = o.section(".rodata");
        o.set_u64(s.hdr + 48, 48)
    }),
    ("elf.shstrndx", Base::Gfx90aV5, |o| o.set_u16(62, 0)),
    ("elf.load_segments", Base::Gfx90aV5, |o| {
        // Turn the PT_LOAD holding .text into PT_NULL.
        let p = load_segment(o, 1);
        o.set_u32(p, 0)
    }),
    // ---- note
    ("note.section.align", Base::Gfx90aV5, |o| {
        let s = o.section(".note");
        o.set_u64(s.hdr + 48, 16)
    }),
    ("note.truncated", Base::Gfx90aV5, |o| {
        let d = o.metadata_desc();
        let mut n = Obj::note("AMDGPU", 32, &d);
        n.extend([0u8; 4]);
        o.replace_section(".note", &n)
    }),
    ("note.name.terminator", Base::Gfx90aV5, |o| {
        let s = o.section(".note");
        // The metadata note is the first; its name NUL is byte 12 + 6.
        o.set_u8(s.offset as usize + 18, b'X')
    }),
    ("note.padding", Base::Gfx90aV5, |o| {
        let s = o.section(".note");
        o.set_u8(s.offset as usize + 19, 1)
    }),
    ("note.metadata.missing", Base::Gfx90aV5, |o| {
        let s = o.section(".note");
        o.set_u32(s.offset as usize + 8, 33)
    }),
    ("note.metadata.duplicate", Base::Gfx90aV5, |o| {
        let d = o.metadata_desc();
        let mut n = Obj::note("AMDGPU", 32, &d);
        n.extend(Obj::note("AMDGPU", 32, &d));
        o.replace_section(".note", &n)
    }),
    ("note.unknown", Base::Gfx90aV5, |o| {
        let d = o.metadata_desc();
        let mut n = Obj::note("AMDGPU", 32, &d);
        n.extend(Obj::note("GNU", 1, b"abcd"));
        o.replace_section(".note", &n)
    }),
    // ---- symbol
    ("symbol.table", Base::Gfx90aV5, |o| {
        let s = o.section(".symtab");
        o.set_u64(s.hdr + 56, 16)
    }),
    ("symbol.name", Base::Gfx90aV5, |o| {
        let s = o.symbols()[1].clone();
        o.set_u32(s.at, 0x7fff_0000)
    }),
    ("symbol.kd.type", Base::Gfx90aV5, |o| {
        let s = first_kd(o);
        o.set_u8(s.at + 4, (s.info & 0xf0) | 2)
    }),
    ("symbol.kd.size", Base::Gfx90aV5, |o| {
        let s = first_kd(o);
        o.set_u64(s.at + 16, 32)
    }),
    ("symbol.kd.align", Base::Gfx90aV5, |o| {
        let s = first_kd(o);
        o.set_u64(s.at + 8, s.value + 4)
    }),
    ("symbol.kd.section", Base::Gfx90aV5, |o| {
        let s = first_kd(o);
        let text = o.section(".text").index as u16;
        o.set_u16(s.at + 6, text)
    }),
    ("symbol.kd.duplicate", Base::Gfx90aV5, |o| {
        let kds: Vec<_> = o
            .symbols()
            .into_iter()
            .filter(|s| s.name.ends_with(".kd"))
            .collect();
        let name = o.u32(kds[0].at);
        o.set_u32(kds[1].at, name)
    }),
    ("symbol.kernel.missing", Base::Gfx90aV5, |o| {
        let k = first_kernel_sym(o);
        let name = o.u32(k.at);
        // Point the name one byte further: "add" becomes "dd".
        o.set_u32(k.at, name + 1)
    }),
    ("symbol.kernel.type", Base::Gfx90aV5, |o| {
        let k = first_kernel_sym(o);
        o.set_u8(k.at + 4, (k.info & 0xf0) | 1)
    }),
    ("symbol.entry.target", Base::Gfx90aV5, |o| {
        let kd = o.kd(&o.kernels()[0]);
        let e = o.u64(kd + 16);
        o.set_u64(kd + 16, e.wrapping_add(256))
    }),
    ("symbol.entry.align", Base::Gfx90aV5, |o| {
        let kd = o.kd(&o.kernels()[0]);
        let e = o.u64(kd + 16);
        o.set_u64(kd + 16, e.wrapping_add(4))
    }),
    ("symbol.entry.relocation", Base::Gfx90aV5Rel, |o| {
        let r = o.section(".rela.rodata");
        // Relocation type (low 32 bits of r_info) of the first entry.
        o.set_u32(r.offset as usize + 8, 1)
    }),
    ("symbol.kd.not_in_metadata", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            let ks = kernels_mut(m);
            ks.remove(0);
        })
    }),
    ("symbol.metadata_kernel.no_kd", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            let ks = kernels_mut(m);
            let extra = ks[0].clone();
            let mut extra = extra;
            set_key(&mut extra, ".symbol", Value::Str(b"ghost.kd".to_vec()));
            set_key(&mut extra, ".name", Value::Str(b"ghost".to_vec()));
            ks.push(extra);
        })
    }),
    // ---- kd: descriptor fields (offsets in the KD_* constants below)
    ("kd.reserved_bytes", Base::Gfx90aV5, |o| {
        let kd = o.kd(XYZ);
        o.set_u8(kd + 12, 1)
    }),
    ("kd.reserved_bytes", Base::Gfx1100V5, |o| {
        let kd = o.kd(LDS);
        o.set_u8(kd + 63, 0x80)
    }),
    ("kd.rsrc1.granulated_sgpr_count", Base::Gfx1030V5, |o| {
        // clang-19 writes a non-zero count for most GFX10 kernels (an info
        // on the base); take one where it wrote 0.
        let k = kernel_where(o, |o, kd| (o.u32(kd + KD_RSRC1) >> 6) & 0xf == 0);
        kd_u32(o, &k, KD_RSRC1, |v| v | 2 << 6)
    }),
    ("kd.rsrc1.priority", Base::Gfx90aV5, |o| {
        kd_u32(o, XYZ, KD_RSRC1, |v| v | 2 << 10)
    }),
    ("kd.rsrc1.priv", Base::Gfx90aV5, |o| {
        kd_u32(o, XYZ, KD_RSRC1, |v| v | 1 << 20)
    }),
    ("kd.rsrc1.priv", Base::Gfx1200V5, |o| {
        kd_u32(o, LDS, KD_RSRC1, |v| v | 1 << 20)
    }),
    ("kd.rsrc1.debug_mode", Base::Gfx803V5, |o| {
        kd_u32(o, XYZ, KD_RSRC1, |v| v | 1 << 22)
    }),
    ("kd.rsrc1.bulky", Base::Gfx1200V5, |o| {
        kd_u32(o, XYZ, KD_RSRC1, |v| v | 1 << 24)
    }),
    ("kd.rsrc1.cdbg_user", Base::Gfx1100V5, |o| {
        kd_u32(o, XYZ, KD_RSRC1, |v| v | 1 << 25)
    }),
    ("kd.rsrc1.reserved", Base::Gfx803V5, |o| {
        // FP16_OVFL (bit 26) only exists from GFX9.
        kd_u32(o, XYZ, KD_RSRC1, |v| v | 1 << 26)
    }),
    ("kd.rsrc1.reserved", Base::Gfx908V5, |o| {
        // WGP_MODE (bit 29) only exists from GFX10.
        kd_u32(o, XYZ, KD_RSRC1, |v| v | 1 << 29)
    }),
    ("kd.rsrc2.trap_handler", Base::Gfx1100V5, |o| {
        kd_u32(o, XYZ, KD_RSRC2, |v| v | 1 << 6)
    }),
    ("kd.rsrc2.exception_address_watch", Base::Gfx908V5, |o| {
        kd_u32(o, XYZ, KD_RSRC2, |v| v | 1 << 13)
    }),
    ("kd.rsrc2.exception_memory", Base::Gfx1030V5, |o| {
        kd_u32(o, XYZ, KD_RSRC2, |v| v | 1 << 14)
    }),
    ("kd.rsrc2.granulated_lds_size", Base::Gfx90aV5, |o| {
        kd_u32(o, XYZ, KD_RSRC2, |v| v | 3 << 15)
    }),
    ("kd.rsrc2.reserved", Base::Gfx1030V5, |o| {
        kd_u32(o, XYZ, KD_RSRC2, |v| v | 1 << 31)
    }),
    ("kd.rsrc3.reserved", Base::Gfx900V5, |o| {
        // GFX9 without MAI accumulation registers defines no rsrc3 bit.
        kd_u32(o, XYZ, KD_RSRC3, |_| 1)
    }),
    ("kd.rsrc3.reserved", Base::Gfx90aV5, |o| {
        // Bit 6 lies between ACCUM_OFFSET (5:0) and TG_SPLIT (16).
        kd_u32(o, XYZ, KD_RSRC3, |v| v | 1 << 6)
    }),
    ("kd.rsrc3.shared_vgpr_count_wave32", Base::Gfx1030V5, |o| {
        kd_u32(o, XYZ, KD_RSRC3, |v| v | 1)
    }),
    (
        "kd.rsrc3.shared_vgpr_count_overflow",
        Base::Gfx1030Wave64V5,
        |o| {
            // 63 granules of VGPRs plus 2 * 1 shared: 65 > 63.
            kd_u32(o, XYZ, KD_RSRC1, |v| v | 0x3f);
            kd_u32(o, XYZ, KD_RSRC3, |v| v | 1)
        },
    ),
    ("kd.rsrc3.accum_offset", Base::Gfx90aV5, |o| {
        // The kernel allocates 8 VGPRs; ACCUM_OFFSET 4 puts AGPRs at v20.
        kd_u32(o, XYZ, KD_RSRC3, |v| (v & !0x3f) | 4)
    }),
    ("kd.properties.reserved", Base::Gfx900V4, |o| {
        kd_u16(o, XYZ, KD_PROPERTIES, |v| v | 1 << 8)
    }),
    ("kd.properties.reserved", Base::Gfx1200V5, |o| {
        kd_u16(o, XYZ, KD_PROPERTIES, |v| v | 1 << 15)
    }),
    ("kd.properties.wavefront_size32", Base::Gfx90aV5, |o| {
        kd_u16(o, XYZ, KD_PROPERTIES, |v| v | 1 << 10)
    }),
    ("kd.properties.uses_dynamic_stack", Base::Gfx900V4, |o| {
        // clang-19 sets the bit in V4 only for kernels with a dynamic
        // stack; this kernel has none.
        kd_u16(o, XYZ, KD_PROPERTIES, |v| v | 1 << 11)
    }),
    ("kd.kernarg_preload.unsupported", Base::Gfx900V4, |o| {
        kd_u16(o, XYZ, KD_PRELOAD, |_| 1)
    }),
    ("kd.kernarg_preload.length", Base::Gfx90aPreload, |o| {
        kd_u16(o, XYZ, KD_PRELOAD, |_| 17)
    }),
    (
        "kd.kernarg_preload.exceeds_kernarg_size",
        Base::Gfx90aPreload,
        |o| {
            // 3 dwords from byte 0 of an 8-byte kernarg segment.
            kd_u16(o, XYZ, KD_PRELOAD, |_| 3)
        },
    ),
    // ---- kd.metadata: descriptor and metadata disagree
    (
        "kd.metadata.group_segment_fixed_size",
        Base::Gfx90aV5,
        |o| kd_u32(o, XYZ, KD_GROUP_SEGMENT, |v| v + 64),
    ),
    (
        "kd.metadata.group_segment_fixed_size",
        Base::Gfx1100V5,
        |o| set_kernel_key(o, LDS, ".group_segment_fixed_size", Value::UInt(64)),
    ),
    (
        "kd.metadata.private_segment_fixed_size",
        Base::Gfx942V5,
        |o| kd_u32(o, XYZ, KD_PRIVATE_SEGMENT, |v| v + 16),
    ),
    (
        "kd.metadata.kernarg_segment_size",
        Base::Gfx90aPreload,
        |o| kd_u32(o, XYZ, KD_KERNARG_SIZE, |v| v + 8),
    ),
    ("kd.metadata.wavefront_size", Base::Gfx1030V5, |o| {
        set_kernel_key(o, XYZ, ".wavefront_size", Value::UInt(64))
    }),
    ("kd.metadata.wavefront_size", Base::Gfx1030Wave64V5, |o| {
        kd_u16(o, XYZ, KD_PROPERTIES, |v| v | 1 << 10)
    }),
    ("kd.metadata.sgpr_count", Base::Gfx900V5, |o| {
        set_kernel_key(o, XYZ, ".sgpr_count", Value::UInt(100))
    }),
    ("kd.metadata.vgpr_count", Base::Gfx1100V5, |o| {
        set_kernel_key(o, XYZ, ".vgpr_count", Value::UInt(200))
    }),
    ("kd.metadata.vgpr_count", Base::Gfx908V5, |o| {
        set_kernel_key(o, XYZ, ".agpr_count", Value::UInt(200))
    }),
    ("kd.metadata.accum_offset", Base::Gfx90aV5, |o| {
        // 8 unified VGPRs of which 1 AGPR: 7 architectural VGPRs do not
        // fit below ACCUM_OFFSET (v4), while 4 + 1 still fits in the 8
        // allocated.
        rewrite_metadata(o, |m| {
            let k = kernel_named(m, XYZ);
            set_key(k, ".vgpr_count", Value::UInt(8));
            set_key(k, ".agpr_count", Value::UInt(1));
        })
    }),
    ("kd.metadata.uses_dynamic_stack", Base::Gfx90aV5, |o| {
        set_kernel_key(o, XYZ, ".uses_dynamic_stack", Value::Bool(true))
    }),
    (
        "kd.metadata.workgroup_processor_mode",
        Base::Gfx1030V5,
        |o| {
            // clang-19 builds gfx1030 in WGP mode: WGP_MODE set, metadata 1.
            set_kernel_key(o, XYZ, ".workgroup_processor_mode", Value::UInt(0))
        },
    ),
    // ---- sgpr: the initial register state the descriptor selects
    ("sgpr.user_sgpr_count.too_small", Base::Gfx1100V5, |o| {
        // 0 is fewer than any kernel with a kernarg segment pointer needs.
        kd_u32(o, XYZ, KD_RSRC2, |v| with_user_sgprs(v, 0))
    }),
    ("sgpr.user_sgpr_count.too_small", Base::Gfx90aPreload, |o| {
        // 6 enabled user SGPRs plus 2 preloaded dwords need 8.
        kd_u32(o, XYZ, KD_RSRC2, |v| with_user_sgprs(v, 6))
    }),
    ("sgpr.user_sgpr_count.extra", Base::Gfx90aV5, |o| {
        kd_u32(o, XYZ, KD_RSRC2, |v| with_user_sgprs(v, 8))
    }),
    ("sgpr.user_sgpr_count.limit", Base::Gfx90aV5, |o| {
        kd_u32(o, XYZ, KD_RSRC2, |v| with_user_sgprs(v, 17))
    }),
    (
        "sgpr.private_segment_buffer.unsupported",
        Base::Gfx942V5,
        |o| {
            // Enable the 4 buffer SGPRs and count them.
            kd_u16(o, XYZ, KD_PROPERTIES, |v| v | 1);
            kd_u32(o, XYZ, KD_RSRC2, |v| with_user_sgprs(v, user_sgprs(v) + 4))
        },
    ),
    ("sgpr.flat_scratch_init.unsupported", Base::Gfx1100V5, |o| {
        kd_u16(o, XYZ, KD_PROPERTIES, |v| v | 1 << 5)
    }),
    ("sgpr.flat_scratch_init.unsupported", Base::Gfx942V5, |o| {
        kd_u16(o, XYZ, KD_PROPERTIES, |v| v | 1 << 5);
        kd_u32(o, XYZ, KD_RSRC2, |v| with_user_sgprs(v, user_sgprs(v) + 2))
    }),
    ("sgpr.vgpr_workitem_id.undefined", Base::Gfx1200V5, |o| {
        kd_u32(o, XYZ, KD_RSRC2, |v| v | 3 << 11)
    }),
    ("sgpr.allocation.too_small", Base::Gfx900V5, |o| {
        // The smallest allocation (16 SGPRs on GFX9) cannot hold 14 user
        // SGPRs and the 3 work-group ids.
        kd_u32(o, XYZ, KD_RSRC1, |v| v & !(0xf << 6));
        kd_u32(o, XYZ, KD_RSRC2, |v| with_user_sgprs(v, 14))
    }),
    ("sgpr.allocation.too_small", Base::Gfx803V5, |o| {
        kd_u32(o, XYZ, KD_RSRC1, |v| v & !(0xf << 6));
        kd_u32(o, XYZ, KD_RSRC2, |v| with_user_sgprs(v, 14))
    }),
    // ---- metadata: the MessagePack note
    ("metadata.decode", Base::Gfx90aV5, |o| {
        let mut d = o.metadata_desc();
        d.truncate(d.len() / 2);
        replace_metadata_desc(o, &d)
    }),
    ("metadata.trailing_bytes", Base::Gfx90aV5, |o| {
        let mut d = o.metadata_desc();
        d.extend([0u8; 3]);
        replace_metadata_desc(o, &d)
    }),
    ("metadata.ext_type", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| set_key(m, "acme.blob", Value::Ext(1, vec![1, 2])))
    }),
    ("metadata.duplicate_key", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            map_mut(kernel_named(m, XYZ)).push((s(".name"), s(XYZ)));
        })
    }),
    ("metadata.root.not_map", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| *m = Value::Array(vec![m.clone()]))
    }),
    ("metadata.missing_key", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| del_key(m, "amdhsa.version"))
    }),
    ("metadata.value.type", Base::Gfx90aV5, |o| {
        set_kernel_key(o, XYZ, ".sgpr_count", Value::Bool(true))
    }),
    ("metadata.value.string_scalar", Base::Gfx90aV5, |o| {
        // The same count, written as a string.
        rewrite_metadata(o, |m| {
            let k = kernel_named(m, XYZ);
            let n = match get_key(k, ".sgpr_count") {
                Some(Value::UInt(n)) => *n,
                other => panic!(".sgpr_count is {other:?}"),
            };
            set_key(k, ".sgpr_count", s(&n.to_string()));
        })
    }),
    ("metadata.value.enum", Base::Gfx90aV5, |o| {
        set_kernel_key(o, XYZ, ".language", s("Fortran"))
    }),
    ("metadata.key.unknown", Base::Gfx90aV5, |o| {
        set_kernel_key(o, XYZ, ".frobnicate", Value::UInt(1))
    }),
    ("metadata.key.vendor", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            set_key(arg_mut(m, LDS, 0), "acme.note", Value::UInt(1));
        })
    }),
    ("metadata.key.unprefixed", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| set_key(m, "extra", Value::UInt(1)))
    }),
    ("metadata.key.version", Base::Gfx90aV5, |o| {
        // .cluster_dims is a V6 key; this object is V5.
        set_kernel_key(o, XYZ, ".cluster_dims", ints(&[1, 1, 1]))
    }),
    ("metadata.version.mismatch", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| set_key(m, "amdhsa.version", ints(&[1, 0])))
    }),
    ("metadata.target.missing", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| del_key(m, "amdhsa.target"))
    }),
    ("metadata.target.invalid", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            set_key(m, "amdhsa.target", s("amdgcn-amd-amdhsa--gfx9999"))
        })
    }),
    ("metadata.target.mismatch", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            set_key(m, "amdhsa.target", s("amdgcn-amd-amdhsa--gfx908"))
        })
    }),
    ("metadata.target.mismatch", Base::Gfx90aV5, |o| {
        // e_flags says xnack "any".
        rewrite_metadata(o, |m| {
            set_key(m, "amdhsa.target", s("amdgcn-amd-amdhsa--gfx90a:xnack+"))
        })
    }),
    ("metadata.printf.format", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            set_key(m, "amdhsa.printf", Value::Array(vec![s("x:1:4:%d")]))
        })
    }),
    ("metadata.kernel.missing_key", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| del_key(kernel_named(m, XYZ), ".sgpr_count"))
    }),
    ("metadata.kernel.duplicate_name", Base::Gfx90aV5, |o| {
        set_kernel_key(o, Z_ONLY, ".name", s(XYZ))
    }),
    ("metadata.kernel.duplicate_symbol", Base::Gfx90aV5, |o| {
        set_kernel_key(o, Z_ONLY, ".symbol", s(&format!("{XYZ}.kd")))
    }),
    ("metadata.kernel.symbol_name", Base::Gfx90aV5, |o| {
        set_kernel_key(o, XYZ, ".name", s("renamed"))
    }),
    (
        "metadata.kernel.kernarg_segment_align",
        Base::Gfx90aV5,
        |o| set_kernel_key(o, XYZ, ".kernarg_segment_align", Value::UInt(12)),
    ),
    ("metadata.kernel.wavefront_size", Base::Gfx90aV5, |o| {
        set_kernel_key(o, XYZ, ".wavefront_size", Value::UInt(48))
    }),
    ("metadata.kernel.wavefront_size", Base::Gfx900V5, |o| {
        // A wave32 size on a target without wave32.
        set_kernel_key(o, XYZ, ".wavefront_size", Value::UInt(32))
    }),
    (
        "metadata.kernel.max_flat_workgroup_size",
        Base::Gfx90aV5,
        |o| set_kernel_key(o, XYZ, ".max_flat_workgroup_size", Value::UInt(2048)),
    ),
    ("metadata.kernel.reqd_workgroup_size", Base::Gfx90aV5, |o| {
        set_kernel_key(o, XYZ, ".reqd_workgroup_size", ints(&[64, 0, 1]))
    }),
    (
        "metadata.kernel.reqd_workgroup_size_limit",
        Base::Gfx90aV5,
        |o| {
            // 64 * 8 = 512 work-items, above .max_flat_workgroup_size 256.
            set_kernel_key(o, XYZ, ".reqd_workgroup_size", ints(&[64, 8, 1]))
        },
    ),
    (
        "metadata.kernel.workgroup_processor_mode",
        Base::Gfx90aV5,
        |o| {
            // gfx90a has no WGP mode.
            set_kernel_key(o, XYZ, ".workgroup_processor_mode", Value::UInt(1))
        },
    ),
    (
        "metadata.kernel.uniform_work_group_size",
        Base::Gfx90aV5,
        |o| set_kernel_key(o, XYZ, ".uniform_work_group_size", Value::UInt(2)),
    ),
    ("metadata.kernel.kind", Base::Gfx90aV5, |o| {
        set_kernel_key(o, XYZ, ".kind", s("weird"))
    }),
    // ---- metadata: kernel arguments (lds_reduce: 0 and 1 global buffers
    // at 0 and 8, 2 a dynamic_shared_pointer at 16, 3 an int at 20, then
    // the hidden arguments)
    ("metadata.arg.missing_key", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| del_key(arg_mut(m, XYZ, 0), ".value_kind"))
    }),
    ("metadata.arg.value_type", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| set_key(arg_mut(m, LDS, 3), ".value_type", s("i32")))
    }),
    ("metadata.arg.key_kind", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            set_key(arg_mut(m, LDS, 0), ".pointee_align", Value::UInt(4))
        })
    }),
    ("metadata.arg.address_space", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            set_key(arg_mut(m, LDS, 2), ".address_space", s("global"))
        })
    }),
    ("metadata.arg.kind_size", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| set_key(arg_mut(m, LDS, 1), ".size", Value::UInt(4)))
    }),
    ("metadata.arg.pointee_align", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            set_key(arg_mut(m, LDS, 2), ".pointee_align", Value::UInt(3))
        })
    }),
    ("metadata.arg.misaligned", Base::Gfx90aV5, |o| {
        // Rotate the explicit arguments without overlap: the int to 0..4,
        // the two global buffers to 4..12 and 12..20 (not 8-aligned), the
        // dynamic_shared_pointer to 20..24.
        rewrite_metadata(o, |m| {
            for (i, off) in [(3, 0), (0, 4), (1, 12), (2, 20)] {
                set_key(arg_mut(m, LDS, i), ".offset", Value::UInt(off));
            }
        })
    }),
    ("metadata.arg.out_of_bounds", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            let a = arg_of_kind(m, LDS, "hidden_dynamic_lds_size");
            set_key(a, ".offset", Value::UInt(400));
        })
    }),
    ("metadata.arg.overlap", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            set_key(arg_mut(m, LDS, 1), ".offset", Value::UInt(0))
        })
    }),
    ("metadata.arg.hidden_version", Base::Gfx900V4, |o| {
        // hidden_heap_v1 (8 bytes) only exists from V5; it takes the place
        // of hidden_global_offset_x.
        rewrite_metadata(o, |m| {
            let a = arg_of_kind(m, IMPLICIT, "hidden_global_offset_x");
            set_key(a, ".value_kind", s("hidden_heap_v1"));
        })
    }),
    ("metadata.arg.hidden_layout", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            let a = arg_of_kind(m, LDS, "hidden_grid_dims");
            let off = match get_key(a, ".offset") {
                Some(Value::UInt(n)) => *n,
                other => panic!(".offset is {other:?}"),
            };
            set_key(a, ".offset", Value::UInt(off + 2));
        })
    }),
];

/// Kernels of `kernels.cl` the mutations edit.
const XYZ: &str = "group_ids_xyz";
const Z_ONLY: &str = "group_id_z_only";
const LDS: &str = "lds_reduce";
const IMPLICIT: &str = "implicit_sizes";

/// Byte offsets of kernel descriptor fields.
const KD_GROUP_SEGMENT: usize = 0;
const KD_PRIVATE_SEGMENT: usize = 4;
const KD_KERNARG_SIZE: usize = 8;
const KD_RSRC3: usize = 44;
const KD_RSRC1: usize = 48;
const KD_RSRC2: usize = 52;
const KD_PROPERTIES: usize = 56;
const KD_PRELOAD: usize = 58;

/// Rules no real object can be mutated to break, with the reason. Every
/// other rule of the catalogue must have an entry in [`MUTATIONS`].
const EXCLUDED: &[(&str, &str)] = &[];

/// File offset of the `n`th PT_LOAD program header.
fn load_segment(o: &Obj, n: usize) -> usize {
    (0..o.phnum())
        .map(|i| o.phoff() + i * 56)
        .filter(|&p| o.u32(p) == 1)
        .nth(n)
        .expect("not enough PT_LOAD segments")
}

fn first_kd(o: &Obj) -> support::elfedit::Sym {
    let k = &o.kernels()[0];
    o.symbol(&format!("{k}.kd"))
}

fn first_kernel_sym(o: &Obj) -> support::elfedit::Sym {
    let k = &o.kernels()[0];
    o.symbol(k)
}

/// Rewrites the 32-bit descriptor field at `field` of `kernel`.
fn kd_u32(o: &mut Obj, kernel: &str, field: usize, f: impl FnOnce(u32) -> u32) {
    let at = o.kd(kernel) + field;
    let v = o.u32(at);
    o.set_u32(at, f(v))
}

/// Rewrites the 16-bit descriptor field at `field` of `kernel`.
fn kd_u16(o: &mut Obj, kernel: &str, field: usize, f: impl FnOnce(u16) -> u16) {
    let at = o.kd(kernel) + field;
    let v = o.u16(at);
    o.set_u16(at, f(v))
}

/// USER_SGPR_COUNT (compute_pgm_rsrc2 bits 5:1).
fn user_sgprs(rsrc2: u32) -> u32 {
    (rsrc2 >> 1) & 0x1f
}

/// `rsrc2` with USER_SGPR_COUNT set to `n`.
fn with_user_sgprs(rsrc2: u32, n: u32) -> u32 {
    (rsrc2 & !(0x1f << 1)) | n << 1
}

/// The first kernel (in symbol order) whose descriptor, at file offset
/// `kd`, satisfies `pred`.
fn kernel_where(o: &Obj, pred: impl Fn(&Obj, usize) -> bool) -> String {
    o.kernels()
        .into_iter()
        .find(|k| pred(o, o.kd(k)))
        .expect("no kernel matches")
}

/// Replaces the metadata note with one whose description is `desc`.
fn replace_metadata_desc(o: &mut Obj, desc: &[u8]) {
    let note = Obj::note("AMDGPU", 32, desc);
    o.replace_section(".note", &note)
}

/// Decodes the metadata note, lets `f` change the MessagePack tree, and
/// writes it back in place of the note section.
pub fn rewrite_metadata(o: &mut Obj, f: impl FnOnce(&mut Value)) {
    let desc = o.metadata_desc();
    let (mut v, _) = msgpack::decode(&desc).expect("fixture metadata decodes");
    f(&mut v);
    replace_metadata_desc(o, &msgpack::encode(&v))
}

/// Sets `key` of kernel `kernel`'s metadata map to `val`.
fn set_kernel_key(o: &mut Obj, kernel: &str, key: &str, val: Value) {
    rewrite_metadata(o, |m| set_key(kernel_named(m, kernel), key, val))
}

fn s(text: &str) -> Value {
    Value::Str(text.as_bytes().to_vec())
}

fn ints(v: &[u64]) -> Value {
    Value::Array(v.iter().map(|&n| Value::UInt(n)).collect())
}

fn map_mut(v: &mut Value) -> &mut Vec<(Value, Value)> {
    match v {
        Value::Map(m) => m,
        _ => panic!("not a map"),
    }
}

fn is_key(k: &Value, key: &str) -> bool {
    matches!(k, Value::Str(s) if s == key.as_bytes())
}

/// The value of `key` in a map.
fn get_key<'a>(m: &'a Value, key: &str) -> Option<&'a Value> {
    match m {
        Value::Map(entries) => entries.iter().find(|(k, _)| is_key(k, key)).map(|e| &e.1),
        _ => None,
    }
}

/// Removes every entry for `key` from a map.
fn del_key(m: &mut Value, key: &str) {
    map_mut(m).retain(|(k, _)| !is_key(k, key))
}

/// The `amdhsa.kernels` array.
pub fn kernels_mut(m: &mut Value) -> &mut Vec<Value> {
    let entry = map_mut(m)
        .iter_mut()
        .find(|(k, _)| is_key(k, "amdhsa.kernels"))
        .expect("amdhsa.kernels");
    match &mut entry.1 {
        Value::Array(a) => a,
        _ => panic!("amdhsa.kernels is not an array"),
    }
}

/// The metadata map of the kernel whose `.name` is `name`.
fn kernel_named<'a>(m: &'a mut Value, name: &str) -> &'a mut Value {
    kernels_mut(m)
        .iter_mut()
        .find(|k| matches!(get_key(k, ".name"), Some(v) if is_key(v, name)))
        .unwrap_or_else(|| panic!("no metadata kernel {name}"))
}

/// The `.args` array of kernel `kernel`.
fn args_mut<'a>(m: &'a mut Value, kernel: &str) -> &'a mut Vec<Value> {
    let entry = map_mut(kernel_named(m, kernel))
        .iter_mut()
        .find(|(k, _)| is_key(k, ".args"))
        .unwrap_or_else(|| panic!("{kernel} has no .args"));
    match &mut entry.1 {
        Value::Array(a) => a,
        _ => panic!(".args is not an array"),
    }
}

/// Argument `i` of kernel `kernel`.
fn arg_mut<'a>(m: &'a mut Value, kernel: &str, i: usize) -> &'a mut Value {
    args_mut(m, kernel)
        .get_mut(i)
        .unwrap_or_else(|| panic!("{kernel} has no argument {i}"))
}

/// The first argument of kernel `kernel` with `.value_kind` `kind`.
fn arg_of_kind<'a>(m: &'a mut Value, kernel: &str, kind: &str) -> &'a mut Value {
    args_mut(m, kernel)
        .iter_mut()
        .find(|a| matches!(get_key(a, ".value_kind"), Some(v) if is_key(v, kind)))
        .unwrap_or_else(|| panic!("{kernel} has no {kind} argument"))
}

/// Sets (or adds) `key` in a map.
pub fn set_key(m: &mut Value, key: &str, val: Value) {
    let map = map_mut(m);
    if let Some(e) = map.iter_mut().find(|(k, _)| is_key(k, key)) {
        e.1 = val;
    } else {
        map.push((Value::Str(key.as_bytes().to_vec()), val));
    }
}

fn bases(all: &[Fixture]) -> BTreeMap<Base, Obj> {
    let mut out = BTreeMap::new();
    for (_, b, _) in MUTATIONS {
        out.entry(*b).or_insert_with(|| pick(all, *b));
    }
    out
}

/// How many times `check_object` reports rule `id` for `bytes`.
fn count(bytes: &[u8], id: &str) -> usize {
    check_object(bytes)
        .violations
        .iter()
        .filter(|v| v.rule.id == id)
        .count()
}

#[test]
fn every_rule_has_an_object_mutation() {
    // SMEM rules judge instruction words and streams, not code objects;
    // oracle/src/smem tests break each of them.
    let missing: Vec<&str> = rules::catalogue()
        .map(|r| r.id)
        .filter(|id| !id.starts_with("smem."))
        .filter(|id| !MUTATIONS.iter().any(|(m, _, _)| m == id))
        .filter(|id| !EXCLUDED.iter().any(|(x, _)| x == id))
        .collect();
    assert!(
        missing.is_empty(),
        "rules with no object-level mutation test: {missing:#?}"
    );
    for (id, _, _) in MUTATIONS {
        assert!(rules::find(id).is_some(), "mutation for unknown rule {id}");
    }
    for (id, why) in EXCLUDED {
        assert!(rules::find(id).is_some(), "exclusion of unknown rule {id}");
        assert!(!why.is_empty(), "exclusion of {id} gives no reason");
        assert!(
            !MUTATIONS.iter().any(|(m, _, _)| m == id),
            "{id} is excluded but has a mutation"
        );
    }
}

#[test]
fn mutations_break_their_rule_and_bases_are_clean() {
    let Some(all) = fixtures::all() else { return };
    let bases = bases(&all);
    for (b, o) in &bases {
        let r = check_object(&o.bytes);
        let bad: Vec<_> = r
            .violations
            .iter()
            .filter(|v| v.severity != Severity::Info)
            .collect();
        assert!(bad.is_empty(), "base {b:?} is not clean: {bad:#?}");
    }
    let mut failures = Vec::new();
    for (id, b, f) in MUTATIONS {
        let base = &bases[b];
        let mut o = base.clone();
        f(&mut o);
        // More reports than the base: an info the base already triggers
        // elsewhere does not count as the mutation's.
        if count(&o.bytes, id) <= count(&base.bytes, id) {
            let got: Vec<String> = check_object(&o.bytes)
                .violations
                .iter()
                .map(|v| format!("{}: {}", v.rule.id, v.message))
                .collect();
            failures.push(format!("{id} on {b:?}: not reported; got {got:#?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
