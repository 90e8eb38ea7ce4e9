//! Rules broken in real code objects.
//!
//! Each entry of [`MUTATIONS`] takes a valid object that clang-19 built
//! (or, for code object V2, llc-14), changes it so that it breaks one rule,
//! and expects the oracle to report that rule id more often than for the
//! unmutated object (other rules may fire too when one change necessarily
//! breaks several). The unmutated objects must be clean: no errors and no
//! warnings.
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

/// Which valid object a mutation starts from: built from `kernels.cl` by
/// clang-19, or (the `V2` bases) from `llvm14/kernels.ll` by llc-14.
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
    /// Code object V2 from llc-14 (`tests/fixtures/llvm14/kernels.ll`):
    /// gfx900 with xnack (e_flags 0x12c), ET_DYN.
    V2Gfx900,
    /// The same, relocatable (ET_REL).
    V2Gfx900Rel,
    /// Code object V2, gfx701 (GFX7, no xnack), ET_DYN.
    V2Gfx701,
}

fn pick(all: &[Fixture], base: Base) -> Obj {
    let f = all
        .iter()
        .find(|f| {
            let src = f.name.contains("kernels.cl");
            let plain = src && f.options.is_empty();
            let linked = |cpu: &str, cov: u8| f.cpu == cpu && f.cov == cov && !f.relocatable;
            let v2 = |cpu: &str, rel: bool| {
                f.cpu == cpu
                    && f.cov == 2
                    && f.relocatable == rel
                    && f.options.is_empty()
                    && f.name.contains("kernels.ll")
            };
            match base {
                Base::V2Gfx900 => v2("gfx900", false),
                Base::V2Gfx900Rel => v2("gfx900", true),
                Base::V2Gfx701 => v2("gfx701", false),
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
        // 0x27 is reserved.
        let f = o.u32(48);
        o.set_u32(48, (f & !0xff) | 0x27)
    }),
    ("elf.e_flags.mach_retired", Base::Gfx942V5, |o| {
        // 0x40 is gfx940, which LLVM 21 removed (same facts as gfx942).
        let f = o.u32(48);
        o.set_u32(48, (f & !0xff) | 0x40)
    }),
    ("elf.e_flags.mach_unmodelled", Base::Gfx90aV5, |o| {
        // 0x50 is gfx1310, which LLVM's main branch knows and the table
        // does not.
        let f = o.u32(48);
        o.set_u32(48, (f & !0xff) | 0x50)
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
    // Several metadata notes, as ld.lld writes them: the fixture's kernels
    // split between two notes is clean (checked by
    // `split_metadata_notes_are_clean`); each entry breaks one merge rule.
    ("note.metadata.version_conflict", Base::Gfx90aV5, |o| {
        split_notes(o, |_, second| {
            set_key(second, "amdhsa.version", ints(&[1, 1]))
        })
    }),
    ("note.metadata.target_conflict", Base::Gfx90aV5, |o| {
        split_notes(o, |_, second| {
            set_key(
                second,
                "amdhsa.target",
                s("amdgcn-amd-amdhsa--gfx90a:xnack+"),
            )
        })
    }),
    ("note.metadata.printf_conflict", Base::Gfx90aV5, |o| {
        split_notes(o, |first, second| {
            set_key(first, "amdhsa.printf", Value::Array(vec![s("1:1:4:%d\\n")]));
            set_key(
                second,
                "amdhsa.printf",
                Value::Array(vec![s("1:1:4:%u\\n")]),
            );
        })
    }),
    ("note.metadata.printf_repeated", Base::Gfx90aV5, |o| {
        split_notes(o, |first, second| {
            let list = Value::Array(vec![s("1:1:4:%d\\n")]);
            set_key(first, "amdhsa.printf", list.clone());
            set_key(second, "amdhsa.printf", list);
        })
    }),
    ("note.code_object_v1", Base::V2Gfx900, |o| {
        // NT_AMD_HSA_CODE_OBJECT_VERSION 1.0: the HSAIL finalizer's V1.
        let (at, _) = o.notes("AMD", 1)[0];
        o.set_u32(at, 1);
        o.set_u32(at + 4, 0)
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
    // ---- code object V2 (llc-14 objects; amd_kernel_code_t, "AMD" notes,
    // YAML metadata)
    ("note.v2.missing", Base::V2Gfx900, |o| {
        rewrite_v2_notes(o, |n| n.retain(|r| r.1 != NT_AMD_HSA_CODE_OBJECT_VERSION))
    }),
    ("note.v2.isa_name.missing", Base::V2Gfx900, |o| {
        rewrite_v2_notes(o, |n| n.retain(|r| r.1 != NT_AMD_HSA_ISA_NAME))
    }),
    ("note.v2.duplicate", Base::V2Gfx900, |o| {
        rewrite_v2_notes(o, |n| {
            let first = n[0].clone();
            n.push(first)
        })
    }),
    ("note.v2.desc_size", Base::V2Gfx900, |o| {
        rewrite_v2_notes(o, |n| {
            let r = n
                .iter_mut()
                .find(|r| r.1 == NT_AMD_HSA_CODE_OBJECT_VERSION)
                .unwrap();
            r.2.extend([0u8; 4])
        })
    }),
    ("note.v2.code_object_version", Base::V2Gfx900, |o| {
        v2_note_u32(o, NT_AMD_HSA_CODE_OBJECT_VERSION, 0, 3)
    }),
    ("note.v2.hsail", Base::V2Gfx900, |o| {
        // HSAIL 1.0, profile 3 (no such profile).
        let mut desc = Vec::new();
        desc.extend(1u32.to_le_bytes());
        desc.extend(0u32.to_le_bytes());
        desc.extend([3, 1, 0, 0]);
        rewrite_v2_notes(o, |n| n.insert(1, ("AMD".to_owned(), 2, desc)))
    }),
    ("note.v2.isa_version.names", Base::V2Gfx900, |o| {
        // Vendor "AMD\0" becomes "AMX\0".
        let (at, _) = o.notes("AMD", NT_AMD_HSA_ISA_VERSION)[0];
        o.set_u8(at + 18, b'X')
    }),
    ("note.v2.isa_version.mach", Base::V2Gfx900, |o| {
        // 9.0.1 (gfx900 with xnack) becomes 9.0.0 (without).
        v2_note_u32(o, NT_AMD_HSA_ISA_VERSION, 12, 0)
    }),
    ("note.v2.isa_name.mach", Base::V2Gfx900, |o| {
        rewrite_v2_notes(o, |n| {
            let r = n.iter_mut().find(|r| r.1 == NT_AMD_HSA_ISA_NAME).unwrap();
            r.2 = b"amdgcn-amd-amdhsa--gfx900".to_vec()
        })
    }),
    ("note.v2.pal_metadata", Base::V2Gfx900, |o| {
        rewrite_v2_notes(o, |n| n.push(("AMD".to_owned(), 12, vec![0u8; 12])))
    }),
    ("metadata.v2.decode", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| yaml_one(t, "[ 1, 0 ]", "[ 1, 0"))
    }),
    ("metadata.v2.yaml_unsupported", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(
                t,
                "Name:            group_ids_yz\n",
                "Name:            &a group_ids_yz\n",
            )
        })
    }),
    ("metadata.v2.nul_terminated", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| format!("{t}\0\0"))
    }),
    ("metadata.v2.root_not_map", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |_| "---\n- a\n...\n".to_owned())
    }),
    ("metadata.v2.missing_key", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| yaml_one(t, "Version:         [ 1, 0 ]\n", ""))
    }),
    ("metadata.v2.kernel.missing_key", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(t, "    SymbolName:      'lds_sum@kd'\n", "")
        })
    }),
    ("metadata.v2.arg.missing_key", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| yaml_one(t, "        Align:           1\n", ""))
    }),
    ("metadata.v2.code_props.missing_key", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| yaml_nth(t, "      WavefrontSize:   64\n", 0, ""))
    }),
    (
        "metadata.v2.kernel.code_props_missing",
        Base::V2Gfx900,
        |o| {
            rewrite_yaml(o, |t| {
                let at = t.rfind("    CodeProps:").unwrap();
                format!("{}...\n", &t[..at])
            })
        },
    ),
    ("metadata.v2.value.type", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(t, "NumSGPRs:        23", "NumSGPRs:        [ 23 ]")
        })
    }),
    ("metadata.v2.value.range", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(t, "NumSGPRs:        23", "NumSGPRs:        65536")
        })
    }),
    ("metadata.v2.value.enum", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(t, "AddrSpaceQual:   Constant", "AddrSpaceQual:   constant")
        })
    }),
    ("metadata.v2.value.scalar_style", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(t, "NumVGPRs:        9", "NumVGPRs:        '9'")
        })
    }),
    ("metadata.v2.value.length", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(
                t,
                "    SymbolName:      'group_ids_yz@kd'\n",
                "    SymbolName:      'group_ids_yz@kd'\n    LanguageVersion: [ 2 ]\n",
            )
        })
    }),
    ("metadata.v2.duplicate_key", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(
                t,
                "NumSGPRs:        9\n",
                "NumSGPRs:        9\n      NumSGPRs:        9\n",
            )
        })
    }),
    ("metadata.v2.key.unknown", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(
                t,
                "Version:         [ 1, 0 ]\n",
                "Version:         [ 1, 0 ]\nFoo:             1\n",
            )
        })
    }),
    ("metadata.v2.version", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| yaml_one(t, "[ 1, 0 ]", "[ 1, 1 ]"))
    }),
    ("metadata.v2.printf.format", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(
                t,
                "Version:         [ 1, 0 ]\n",
                "Version:         [ 1, 0 ]\nPrintf:\n  - 'x:1:4:%d'\n",
            )
        })
    }),
    ("metadata.v2.kernel.duplicate", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(
                t,
                "Name:            lds_sum\n    SymbolName:      'lds_sum@kd'",
                "Name:            group_ids_yz\n    SymbolName:      'group_ids_yz@kd'",
            )
        })
    }),
    ("metadata.v2.kernel.symbol_name", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| yaml_one(t, "'lds_sum@kd'", "lds_sum"))
    }),
    (
        "metadata.v2.kernel.reqd_work_group_size",
        Base::V2Gfx900,
        |o| rewrite_yaml(o, |t| insert_attrs(t, "[ 64, 0, 1 ]")),
    ),
    (
        "metadata.v2.kernel.reqd_work_group_size_limit",
        Base::V2Gfx900,
        |o| {
            // 512 work-items, but MaxFlatWorkGroupSize is 256.
            rewrite_yaml(o, |t| insert_attrs(t, "[ 64, 8, 1 ]"))
        },
    ),
    (
        "metadata.v2.code_props.kernarg_segment_align",
        Base::V2Gfx900,
        |o| {
            rewrite_yaml(o, |t| {
                yaml_one(t, "KernargSegmentAlign: 16", "KernargSegmentAlign: 12")
            })
        },
    ),
    (
        "metadata.v2.code_props.wavefront_size",
        Base::V2Gfx900,
        |o| {
            rewrite_yaml(o, |t| {
                yaml_nth(t, "WavefrontSize:   64", 0, "WavefrontSize:   48")
            })
        },
    ),
    (
        "metadata.v2.code_props.max_flat_work_group_size",
        Base::V2Gfx900,
        |o| {
            rewrite_yaml(o, |t| {
                yaml_nth(
                    t,
                    "MaxFlatWorkGroupSize: 256",
                    0,
                    "MaxFlatWorkGroupSize: 2048",
                )
            })
        },
    ),
    ("metadata.v2.code_props.xnack", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_nth(t, "IsXNACKEnabled:  true", 0, "IsXNACKEnabled:  false")
        })
    }),
    ("metadata.v2.arg.align", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(
                t,
                "        Align:           1\n",
                "        Align:           3\n",
            )
        })
    }),
    (
        "metadata.v2.arg.align_exceeds_segment",
        Base::V2Gfx900,
        |o| {
            rewrite_yaml(o, |t| {
                yaml_one(t, "Align:           16", "Align:           32")
            })
        },
    ),
    ("metadata.v2.arg.pointee_align", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(t, "PointeeAlign:    1", "PointeeAlign:    3")
        })
    }),
    ("metadata.v2.arg.value_type", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_nth(
                t,
                "        ValueKind:       ByValue\n",
                0,
                "        ValueKind:       ByValue\n        ValueType:       I8\n",
            )
        })
    }),
    ("metadata.v2.arg.key_kind", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_nth(
                t,
                "        ValueKind:       GlobalBuffer\n",
                0,
                "        ValueKind:       GlobalBuffer\n        PointeeAlign:    4\n",
            )
        })
    }),
    ("metadata.v2.arg.address_space", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(t, "AddrSpaceQual:   Local", "AddrSpaceQual:   Global")
        })
    }),
    ("metadata.v2.arg.kind_size", Base::V2Gfx900, |o| {
        // group_ids_yz's global buffer `out` shrinks to 4 bytes.
        rewrite_yaml(o, |t| {
            yaml_nth(
                t,
                "        Size:            8\n        Align:           8\n        ValueKind:       GlobalBuffer\n",
                0,
                "        Size:            4\n        Align:           8\n        ValueKind:       GlobalBuffer\n",
            )
        })
    }),
    ("metadata.v2.arg.misaligned", Base::V2Gfx900, |o| {
        // A 4-byte argument before lds_sum's first global buffer, whose
        // Align becomes 4: the buffer lands at offset 4.
        rewrite_yaml(o, |t| {
            yaml_one(
                t,
                "      - Name:            in\n        Size:            8\n        Align:           8\n",
                "      - Name:            pad\n        Size:            4\n        Align:           4\n        ValueKind:       ByValue\n      - Name:            in\n        Size:            8\n        Align:           4\n",
            )
        })
    }),
    ("metadata.v2.arg.out_of_bounds", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(t, "KernargSegmentSize: 20", "KernargSegmentSize: 16")
        })
    }),
    ("metadata.v2.arg.hidden_layout", Base::V2Gfx900, |o| {
        // group_ids_yz gets one hidden argument, HiddenGlobalOffsetY where
        // LLVM puts HiddenGlobalOffsetX first.
        rewrite_yaml(o, |t| {
            yaml_one(
                t,
                "        AddrSpaceQual:   Global\n    CodeProps:\n      KernargSegmentSize: 8\n      ",
                "        AddrSpaceQual:   Global\n      - Size:            8\n        Align:           8\n        ValueKind:       HiddenGlobalOffsetY\n    CodeProps:\n      KernargSegmentSize: 16\n      ",
            )
        })
    }),
    ("symbol.v2.kernel.section", Base::V2Gfx900, |o| {
        let note = o.section(".note").index as u16;
        let s = o.symbol(V2_LDS);
        o.set_u16(s.at + 6, note)
    }),
    ("symbol.v2.kernel.duplicate", Base::V2Gfx900, |o| {
        let name = o.u32(o.symbol(V2_YZ).at);
        let s = o.symbol(V2_LDS);
        o.set_u32(s.at, name)
    }),
    ("symbol.v2.entry", Base::V2Gfx900, |o| {
        // 64 KiB past the amd_kernel_code_t: 256-byte aligned, but past
        // the end of .text.
        kc_u64(o, V2_ARGS, KC_ENTRY_OFFSET, 0x10000)
    }),
    ("symbol.v2.entry", Base::V2Gfx900Rel, |o| {
        let t = o.section(".text");
        o.set_u64(t.hdr + 48, 16)
    }),
    ("symbol.v2.kernel.not_in_metadata", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(
                t,
                "Name:            lds_sum\n    SymbolName:      'lds_sum@kd'",
                "Name:            lds_sum2\n    SymbolName:      'lds_sum2@kd'",
            )
        })
    }),
    ("symbol.v2.metadata_kernel.no_symbol", Base::V2Gfx900, |o| {
        // lds_sum becomes an STT_FUNC symbol.
        let s = o.symbol(V2_LDS);
        o.set_u8(s.at + 4, (s.info & 0xf0) | 2)
    }),
    ("code.version_major", Base::V2Gfx900, |o| {
        kc_u32(o, V2_YZ, KC_VERSION_MAJOR, |_| 2)
    }),
    ("code.machine_kind", Base::V2Gfx900, |o| {
        kc_u16(o, V2_YZ, KC_MACHINE_KIND, |_| 0)
    }),
    ("code.machine_version", Base::V2Gfx900, |o| {
        // The stepping of the ISA note (9.0.1), which amd_kernel_code_t
        // does not take.
        kc_u16(o, V2_YZ, KC_MACHINE_STEPPING, |_| 1)
    }),
    ("code.entry_offset.inside", Base::V2Gfx900, |o| {
        kc_u64(o, V2_YZ, KC_ENTRY_OFFSET, 0)
    }),
    ("code.entry_offset.alignment", Base::V2Gfx900, |o| {
        kc_u64(o, V2_YZ, KC_ENTRY_OFFSET, 0x180)
    }),
    ("code.address_alignment", Base::V2Gfx900, |o| {
        // The symbol moves 16 bytes into its amd_kernel_code_t.
        let s = o.symbol(V2_LDS);
        o.set_u64(s.at + 8, s.value + 16)
    }),
    ("code.max_scratch_backing_memory", Base::V2Gfx900, |o| {
        kc_u64(o, V2_YZ, KC_MAX_SCRATCH, 4096)
    }),
    ("code.rsrc1.priority", Base::V2Gfx900, |o| {
        kc_u32(o, V2_YZ, KC_RSRC1, |v| v | 1 << 10)
    }),
    ("code.rsrc1.priv", Base::V2Gfx900, |o| {
        kc_u32(o, V2_YZ, KC_RSRC1, |v| v | 1 << 20)
    }),
    ("code.rsrc1.debug_mode", Base::V2Gfx900, |o| {
        kc_u32(o, V2_YZ, KC_RSRC1, |v| v | 1 << 22)
    }),
    ("code.rsrc1.bulky", Base::V2Gfx900, |o| {
        kc_u32(o, V2_YZ, KC_RSRC1, |v| v | 1 << 24)
    }),
    ("code.rsrc1.cdbg_user", Base::V2Gfx900, |o| {
        kc_u32(o, V2_YZ, KC_RSRC1, |v| v | 1 << 25)
    }),
    ("code.rsrc1.reserved", Base::V2Gfx900, |o| {
        kc_u32(o, V2_YZ, KC_RSRC1, |v| v | 1 << 27)
    }),
    ("code.rsrc1.reserved", Base::V2Gfx701, |o| {
        // FP16_OVFL is reserved before GFX9.
        kc_u32(o, V2_YZ, KC_RSRC1, |v| v | 1 << 26)
    }),
    ("code.rsrc2.trap_handler", Base::V2Gfx900, |o| {
        kc_u32(o, V2_YZ, KC_RSRC2, |v| v | 1 << 6)
    }),
    ("code.rsrc2.granulated_lds_size", Base::V2Gfx900, |o| {
        kc_u32(o, V2_LDS, KC_RSRC2, |v| v | 1 << 15)
    }),
    ("code.rsrc2.reserved", Base::V2Gfx900, |o| {
        kc_u32(o, V2_YZ, KC_RSRC2, |v| v | 1 << 31)
    }),
    ("code.properties.reserved", Base::V2Gfx900, |o| {
        kc_u32(o, V2_YZ, KC_PROPERTIES, |v| v | 1 << 11)
    }),
    ("code.properties.wavefront_size32", Base::V2Gfx900, |o| {
        kc_u32(o, V2_YZ, KC_PROPERTIES, |v| v | 1 << 10)
    }),
    ("code.private_element_size", Base::V2Gfx900, |o| {
        // 4 bytes (1) becomes 8 (2).
        kc_u32(o, V2_YZ, KC_PROPERTIES, |v| (v & !(3 << 17)) | 2 << 17)
    }),
    ("code.is_ptr64", Base::V2Gfx900, |o| {
        kc_u32(o, V2_YZ, KC_PROPERTIES, |v| v & !(1 << 19))
    }),
    ("code.xnack", Base::V2Gfx900, |o| {
        kc_u32(o, V2_YZ, KC_PROPERTIES, |v| v & !(1 << 22))
    }),
    ("code.xnack", Base::V2Gfx701, |o| {
        kc_u32(o, V2_YZ, KC_PROPERTIES, |v| v | 1 << 22)
    }),
    ("code.debug_sgprs", Base::V2Gfx900, |o| {
        kc_u16(o, V2_YZ, KC_DEBUG_PRIVATE_SEGMENT_BUFFER_SGPR, |_| 8)
    }),
    ("code.reserved_vgpr_first", Base::V2Gfx900, |o| {
        kc_u16(o, V2_YZ, KC_RESERVED_VGPR_FIRST, |_| 3)
    }),
    ("code.reserved_sgpr_first", Base::V2Gfx900, |o| {
        kc_u16(o, V2_YZ, KC_RESERVED_SGPR_FIRST, |_| 3)
    }),
    ("code.segment_alignment", Base::V2Gfx900, |o| {
        kc_u8(o, V2_YZ, KC_GROUP_SEGMENT_ALIGNMENT, 2)
    }),
    ("code.wavefront_size", Base::V2Gfx900, |o| {
        kc_u8(o, V2_YZ, KC_WAVEFRONT_SIZE, 5)
    }),
    ("code.granulated_sgpr_count", Base::V2Gfx900, |o| {
        kc_u16(o, V2_YZ, KC_SGPR_COUNT, |_| 200)
    }),
    ("code.granulated_vgpr_count", Base::V2Gfx900, |o| {
        kc_u16(o, V2_YZ, KC_VGPR_COUNT, |_| 250)
    }),
    ("code.scratch_en", Base::V2Gfx900, |o| {
        kc_u32(o, V2_SCRATCH, KC_RSRC2, |v| v & !1)
    }),
    ("code.group_segment_size", Base::V2Gfx900, |o| {
        kc_u32(o, V2_LDS, KC_GROUP_SEGMENT_SIZE, |_| 0x20000)
    }),
    ("code.runtime_loader_kernel_symbol", Base::V2Gfx900, |o| {
        kc_u64(o, V2_YZ, KC_RUNTIME_LOADER_KERNEL_SYMBOL, 0x1000)
    }),
    ("code.reserved_bytes", Base::V2Gfx900, |o| {
        kc_u8(o, V2_YZ, KC_RESERVED3 + 2, 1)
    }),
    ("code.control_directives.reserved", Base::V2Gfx900, |o| {
        kc_u8(o, V2_YZ, KC_CONTROL_DIRECTIVES + 72, 1)
    }),
    ("code.metadata.kernarg_segment_size", Base::V2Gfx900, |o| {
        kc_u64(o, V2_YZ, KC_KERNARG_SEGMENT_SIZE, 24)
    }),
    ("code.metadata.kernarg_segment_align", Base::V2Gfx900, |o| {
        // many_args: 16 in both; the metadata now asks for 32.
        rewrite_yaml(o, |t| {
            yaml_one(t, "KernargSegmentAlign: 16", "KernargSegmentAlign: 32")
        })
    }),
    (
        "code.metadata.group_segment_fixed_size",
        Base::V2Gfx900,
        |o| kc_u32(o, V2_LDS, KC_GROUP_SEGMENT_SIZE, |_| 2048),
    ),
    (
        "code.metadata.private_segment_fixed_size",
        Base::V2Gfx900,
        |o| kc_u32(o, V2_SCRATCH, KC_PRIVATE_SEGMENT_SIZE, |_| 300),
    ),
    ("code.metadata.wavefront_size", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_nth(t, "WavefrontSize:   64", 0, "WavefrontSize:   32")
        })
    }),
    ("code.metadata.sgpr_count", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(t, "NumSGPRs:        9\n", "NumSGPRs:        10\n")
        })
    }),
    ("code.metadata.vgpr_count", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_one(t, "NumVGPRs:        3\n", "NumVGPRs:        4\n")
        })
    }),
    ("code.metadata.dynamic_call_stack", Base::V2Gfx900, |o| {
        rewrite_yaml(o, |t| {
            yaml_nth(
                t,
                "      IsXNACKEnabled:  true\n",
                0,
                "      IsDynamicCallStack: true\n      IsXNACKEnabled:  true\n",
            )
        })
    }),
    ("code.metadata.xnack", Base::V2Gfx701, |o| {
        rewrite_yaml(o, |t| {
            yaml_nth(
                t,
                "      MaxFlatWorkGroupSize: 256\n",
                0,
                "      MaxFlatWorkGroupSize: 256\n      IsXNACKEnabled:  true\n",
            )
        })
    }),
    ("code.note.isa_version", Base::V2Gfx900, |o| {
        // No processor in e_flags; the ISA note still names gfx900 (9.0.1,
        // with xnack), and amd_kernel_code_t now says 9.0.2.
        let f = o.u32(48);
        o.set_u32(48, f & !0xff);
        kc_u16(o, V2_YZ, KC_MACHINE_STEPPING, |_| 2)
    }),
    (
        "sgpr.grid_workgroup_count.unsupported",
        Base::V2Gfx900,
        |o| {
            // Grid work-group count X, with USER_SGPR_COUNT raised to match.
            kc_u32(o, V2_YZ, KC_PROPERTIES, |v| v | 1 << 7);
            kc_u32(o, V2_YZ, KC_RSRC2, |v| {
                with_user_sgprs(v, user_sgprs(v) + 1)
            })
        },
    ),
    (
        "sgpr.grid_workgroup_count.not_initialized",
        Base::V2Gfx900,
        |o| {
            // Every user SGPR enable: 18 requested, 16 initialized.
            kc_u32(o, V2_YZ, KC_PROPERTIES, |v| v | 0x3ff);
            kc_u32(o, V2_YZ, KC_RSRC2, |v| with_user_sgprs(v, 16))
        },
    ),
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
/// Kernels of `tests/fixtures/llvm14/kernels.ll` (llc-14 V2 objects) the
/// mutations edit.
const V2_YZ: &str = "group_ids_yz";
const V2_LDS: &str = "lds_sum";
const V2_SCRATCH: &str = "scratch_index";
const V2_ARGS: &str = "many_args";

/// Byte offsets of `amd_kernel_code_t` fields.
const KC_VERSION_MAJOR: usize = 0;
const KC_MACHINE_KIND: usize = 8;
const KC_MACHINE_STEPPING: usize = 14;
const KC_ENTRY_OFFSET: usize = 16;
const KC_MAX_SCRATCH: usize = 40;
const KC_RSRC1: usize = 48;
const KC_RSRC2: usize = 52;
const KC_PROPERTIES: usize = 56;
const KC_PRIVATE_SEGMENT_SIZE: usize = 60;
const KC_GROUP_SEGMENT_SIZE: usize = 64;
const KC_KERNARG_SEGMENT_SIZE: usize = 72;
const KC_SGPR_COUNT: usize = 84;
const KC_VGPR_COUNT: usize = 86;
const KC_RESERVED_VGPR_FIRST: usize = 88;
const KC_RESERVED_SGPR_FIRST: usize = 92;
const KC_DEBUG_PRIVATE_SEGMENT_BUFFER_SGPR: usize = 98;
const KC_GROUP_SEGMENT_ALIGNMENT: usize = 101;
const KC_WAVEFRONT_SIZE: usize = 103;
const KC_RESERVED3: usize = 108;
const KC_RUNTIME_LOADER_KERNEL_SYMBOL: usize = 120;
const KC_CONTROL_DIRECTIVES: usize = 128;

/// V2 note types (owner "AMD").
const NT_AMD_HSA_CODE_OBJECT_VERSION: u32 = 1;
const NT_AMD_HSA_ISA_VERSION: u32 = 3;
const NT_AMD_HSA_METADATA: u32 = 10;
const NT_AMD_HSA_ISA_NAME: u32 = 11;

/// File offset of V2 kernel `kernel`'s `amd_kernel_code_t` (the value of
/// its `STT_AMDGPU_HSA_KERNEL` symbol).
fn code_at(o: &Obj, kernel: &str) -> usize {
    let s = o.symbol(kernel);
    assert_eq!(s.info & 0xf, 10, "{kernel} is not STT_AMDGPU_HSA_KERNEL");
    o.sym_offset(&s)
}

fn kc_u32(o: &mut Obj, kernel: &str, field: usize, f: impl FnOnce(u32) -> u32) {
    let at = code_at(o, kernel) + field;
    let v = o.u32(at);
    o.set_u32(at, f(v))
}

fn kc_u16(o: &mut Obj, kernel: &str, field: usize, f: impl FnOnce(u16) -> u16) {
    let at = code_at(o, kernel) + field;
    let v = o.u16(at);
    o.set_u16(at, f(v))
}

fn kc_u8(o: &mut Obj, kernel: &str, field: usize, v: u8) {
    let at = code_at(o, kernel) + field;
    o.set_u8(at, v)
}

fn kc_u64(o: &mut Obj, kernel: &str, field: usize, v: u64) {
    let at = code_at(o, kernel) + field;
    o.set_u64(at, v)
}

/// One note record: owner, type, description.
type NoteRecord = (String, u32, Vec<u8>);

/// The records of the `.note` section, in order.
fn note_records(o: &Obj) -> Vec<NoteRecord> {
    let s = o.section(".note");
    let mut out = Vec::new();
    let mut pos = s.offset as usize;
    let end = pos + s.size as usize;
    while pos + 12 <= end {
        let namesz = o.u32(pos) as usize;
        let descsz = o.u32(pos + 4) as usize;
        let n_type = o.u32(pos + 8);
        let name = &o.bytes[pos + 12..pos + 12 + namesz];
        let name = String::from_utf8(name.strip_suffix(b"\0").unwrap_or(name).to_vec()).unwrap();
        let d = pos + 12 + namesz.div_ceil(4) * 4;
        out.push((name, n_type, o.bytes[d..d + descsz].to_vec()));
        pos = d + descsz.div_ceil(4) * 4;
    }
    out
}

/// Lets `f` change the note records and writes them back as the `.note`
/// section.
fn rewrite_v2_notes(o: &mut Obj, f: impl FnOnce(&mut Vec<NoteRecord>)) {
    let mut notes = note_records(o);
    f(&mut notes);
    let mut section = Vec::new();
    for (name, n_type, desc) in &notes {
        section.extend(Obj::note(name, *n_type, desc));
    }
    o.replace_section(".note", &section)
}

/// Rewrites the 32-bit word at byte `at` of the first "AMD" note of
/// type `n_type`, in place.
fn v2_note_u32(o: &mut Obj, n_type: u32, at: usize, v: u32) {
    let (desc, _) = o.notes("AMD", n_type)[0];
    o.set_u32(desc + at, v)
}

/// Lets `f` rewrite the YAML text of the V2 metadata note.
fn rewrite_yaml(o: &mut Obj, f: impl FnOnce(&str) -> String) {
    rewrite_v2_notes(o, |notes| {
        let r = notes
            .iter_mut()
            .find(|r| r.0 == "AMD" && r.1 == NT_AMD_HSA_METADATA)
            .expect("V2 metadata note");
        let text = String::from_utf8(r.2.clone()).expect("YAML is UTF-8");
        r.2 = f(&text).into_bytes();
    })
}

/// `text` with occurrence `n` (0-based) of `pat`, which must exist,
/// replaced by `with`.
fn yaml_nth(text: &str, pat: &str, n: usize, with: &str) -> String {
    let (at, _) = text
        .match_indices(pat)
        .nth(n)
        .unwrap_or_else(|| panic!("no occurrence {n} of {pat:?} in the V2 metadata"));
    format!("{}{with}{}", &text[..at], &text[at + pat.len()..])
}

/// `text` with the only occurrence of `pat` replaced by `with`.
fn yaml_one(text: &str, pat: &str, with: &str) -> String {
    assert_eq!(text.matches(pat).count(), 1, "{pat:?} is not unique");
    yaml_nth(text, pat, 0, with)
}

/// Gives group_ids_yz an `Attrs` map with `ReqdWorkGroupSize: size`.
fn insert_attrs(text: &str, size: &str) -> String {
    let line = "    SymbolName:      'group_ids_yz@kd'\n";
    yaml_one(
        text,
        line,
        &format!("{line}    Attrs:\n      ReqdWorkGroupSize: {size}\n"),
    )
}

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

/// Splits the metadata note into two, as ld.lld writes an object linked
/// from two inputs: the first kernel in the first note, the rest in the
/// second, each note with the whole root map; `f` then edits the two roots.
pub fn split_notes(o: &mut Obj, f: impl FnOnce(&mut Value, &mut Value)) {
    let desc = o.metadata_desc();
    let (mut first, _) = msgpack::decode(&desc).expect("fixture metadata decodes");
    let mut second = first.clone();
    let n = kernels_mut(&mut first).len();
    assert!(n >= 2, "the fixture needs two kernels to split");
    kernels_mut(&mut first).truncate(1);
    kernels_mut(&mut second).remove(0);
    // The printf list, if any, stays with the first note: two lists are
    // rules of their own.
    del_key(&mut second, "amdhsa.printf");
    f(&mut first, &mut second);
    let mut note = Obj::note("AMDGPU", 32, &msgpack::encode(&first));
    note.extend(Obj::note("AMDGPU", 32, &msgpack::encode(&second)));
    o.replace_section(".note", &note)
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
    // SMEM rules judge instruction words and streams, dispatch rules a
    // dispatch packet, not code objects; oracle/src/smem and
    // oracle/src/dispatch tests break each of them.
    let missing: Vec<&str> = rules::catalogue()
        .map(|r| r.id)
        .filter(|id| !id.starts_with("smem.") && !id.starts_with("dispatch."))
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
    let (Some(mut all), Some(v2)) = (fixtures::all(), fixtures::v2()) else {
        return;
    };
    all.extend(v2);
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

/// The fixture's kernels split between two metadata notes (as ld.lld
/// links two objects) are clean, every kernel is matched with its note's
/// metadata, and one kernel described in both notes is
/// `metadata.kernel.duplicate_symbol`.
#[test]
fn split_metadata_notes_are_clean_and_a_kernel_in_both_is_a_duplicate() {
    let Some(all) = fixtures::all() else {
        return;
    };
    let base = pick(&all, Base::Gfx90aV5);
    let mut o = base.clone();
    split_notes(&mut o, |_, _| {});
    let r = check_object(&o.bytes);
    let bad: Vec<_> = r
        .violations
        .iter()
        .filter(|v| v.severity != Severity::Info)
        .collect();
    assert!(bad.is_empty(), "split notes are not clean: {bad:#?}");
    assert_eq!(r.metadata_notes.len(), 2);
    assert_eq!(r.metadata_notes[0].kernels, 1);
    for (i, k) in r.kernels.iter().enumerate() {
        assert!(k.metadata.is_some(), "kernel {} has no metadata", k.name);
        let want = u32::from(
            k.metadata.as_ref().and_then(|m| m.symbol.as_deref())
                != Some(
                    r.kernels[0]
                        .metadata
                        .as_ref()
                        .unwrap()
                        .symbol
                        .as_deref()
                        .unwrap(),
                ),
        );
        assert_eq!(k.metadata_note, Some(want), "kernel {i} {}", k.name);
    }

    let mut dup = base.clone();
    split_notes(&mut dup, |first, second| {
        let k = kernels_mut(first)[0].clone();
        kernels_mut(second).push(k);
    });
    assert!(
        count(&dup.bytes, "metadata.kernel.duplicate_symbol") > 0,
        "{:#?}",
        check_object(&dup.bytes).violations
    );
}
