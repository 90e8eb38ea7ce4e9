//! Rules broken in real code objects.
//!
//! Each entry of [`MUTATIONS`] takes a valid object that clang-19 built,
//! changes it so that it breaks one rule, and expects the oracle to report
//! that rule id (other rules may fire too when one change necessarily
//! breaks several). The unmutated objects must be clean.
//!
//! Every `elf.`, `note.` and `symbol.` rule must have an entry here
//! (`every_container_rule_has_an_object_mutation`). The `kd.`, `sgpr.` and
//! `metadata.` rules each have a mutation test in their module (with a
//! coverage test of its own); here a sample of them is also broken in real
//! objects, to show the whole pipeline reaches them.

mod support;

use hsaco_oracle::check::check_object;
use hsaco_oracle::msgpack::{self, Value};
use hsaco_oracle::rules;
use hsaco_oracle::Severity;
use std::collections::BTreeMap;
use support::elfedit::Obj;
use support::fixtures::{self, Fixture};

/// Which valid object a mutation starts from.
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
}

fn pick(all: &[Fixture], base: Base) -> Obj {
    let f = all
        .iter()
        .find(|f| {
            let plain = f.name.contains("kernels.cl") && f.options.is_empty();
            match base {
                Base::Gfx90aV5 => f.cpu == "gfx90a" && f.cov == 5 && !f.relocatable && plain,
                Base::Gfx90aV5Rel => f.cpu == "gfx90a" && f.cov == 5 && f.relocatable && plain,
                Base::Gfx1100V5 => f.cpu == "gfx1100" && f.cov == 5 && !f.relocatable && plain,
                Base::GenericV6 => f.cpu == "gfx9-generic" && f.cov == 6 && !f.relocatable && plain,
                Base::Gfx90aPreload => {
                    f.cpu == "gfx90a"
                        && f.cov == 5
                        && !f.relocatable
                        && f.name.contains("kernels.cl")
                        && f.options.iter().any(|o| o.contains("kernarg-preload"))
                }
                Base::Gfx900V4 => f.cpu == "gfx900" && f.cov == 4 && !f.relocatable && plain,
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
    // ---- samples of the descriptor, SGPR and metadata rules
    ("kd.reserved_bytes", Base::Gfx90aV5, |o| {
        let kd = o.kd(&o.kernels()[0]);
        o.set_u8(kd + 12, 1)
    }),
    ("kd.rsrc1.priv", Base::Gfx90aV5, |o| {
        let kd = o.kd(&o.kernels()[0]);
        let v = o.u32(kd + 48);
        o.set_u32(kd + 48, v | 1 << 20)
    }),
    ("kd.rsrc2.granulated_lds_size", Base::Gfx90aV5, |o| {
        let kd = o.kd(&o.kernels()[0]);
        let v = o.u32(kd + 52);
        o.set_u32(kd + 52, v | 3 << 15)
    }),
    ("kd.properties.reserved", Base::Gfx900V4, |o| {
        let kd = o.kd(&o.kernels()[0]);
        let v = o.u16(kd + 56);
        o.set_u16(kd + 56, v | 1 << 8)
    }),
    ("kd.properties.wavefront_size32", Base::Gfx90aV5, |o| {
        let kd = o.kd(&o.kernels()[0]);
        let v = o.u16(kd + 56);
        o.set_u16(kd + 56, v | 1 << 10)
    }),
    ("kd.kernarg_preload.unsupported", Base::Gfx900V4, |o| {
        let kd = o.kd(&o.kernels()[0]);
        o.set_u16(kd + 58, 1)
    }),
    (
        "kd.metadata.group_segment_fixed_size",
        Base::Gfx90aV5,
        |o| {
            let kd = o.kd(&o.kernels()[0]);
            let v = o.u32(kd);
            o.set_u32(kd, v + 64)
        },
    ),
    (
        "kd.metadata.kernarg_segment_size",
        Base::Gfx90aPreload,
        |o| {
            let kd = o.kd(&o.kernels()[0]);
            let v = o.u32(kd + 8);
            o.set_u32(kd + 8, v + 8)
        },
    ),
    ("sgpr.user_sgpr_count.too_small", Base::Gfx1100V5, |o| {
        // USER_SGPR_COUNT is rsrc2 bits 5:1; 0 is fewer than any kernel
        // with a kernarg segment pointer needs.
        let kd = o.kd(&o.kernels()[0]);
        let v = o.u32(kd + 52);
        o.set_u32(kd + 52, v & !(0x1f << 1))
    }),
    ("metadata.version.mismatch", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            set_key(
                m,
                "amdhsa.version",
                Value::Array(vec![Value::UInt(1), Value::UInt(0)]),
            )
        })
    }),
    ("metadata.target.mismatch", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            set_key(
                m,
                "amdhsa.target",
                Value::Str(b"amdgcn-amd-amdhsa--gfx908".to_vec()),
            )
        })
    }),
    ("metadata.kernel.missing_key", Base::Gfx90aV5, |o| {
        rewrite_metadata(o, |m| {
            if let Value::Map(entries) = &mut kernels_mut(m)[0] {
                entries.retain(|(k, _)| !matches!(k, Value::Str(s) if s == b".sgpr_count"));
            }
        })
    }),
    ("metadata.decode", Base::Gfx90aV5, |o| {
        let mut d = o.metadata_desc();
        d.truncate(d.len() / 2);
        let note = Obj::note("AMDGPU", 32, &d);
        o.replace_section(".note", &note)
    }),
];

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

/// Decodes the metadata note, lets `f` change the MessagePack tree, and
/// writes it back in place of the note section.
pub fn rewrite_metadata(o: &mut Obj, f: impl FnOnce(&mut Value)) {
    let desc = o.metadata_desc();
    let (mut v, _) = msgpack::decode(&desc).expect("fixture metadata decodes");
    f(&mut v);
    let note = Obj::note("AMDGPU", 32, &msgpack::encode(&v));
    o.replace_section(".note", &note);
}

fn map_mut(v: &mut Value) -> &mut Vec<(Value, Value)> {
    match v {
        Value::Map(m) => m,
        _ => panic!("not a map"),
    }
}

/// The `amdhsa.kernels` array.
pub fn kernels_mut(m: &mut Value) -> &mut Vec<Value> {
    let entry = map_mut(m)
        .iter_mut()
        .find(|(k, _)| matches!(k, Value::Str(s) if s == b"amdhsa.kernels"))
        .expect("amdhsa.kernels");
    match &mut entry.1 {
        Value::Array(a) => a,
        _ => panic!("amdhsa.kernels is not an array"),
    }
}

/// Sets (or adds) `key` in a map.
pub fn set_key(m: &mut Value, key: &str, val: Value) {
    let map = map_mut(m);
    if let Some(e) = map
        .iter_mut()
        .find(|(k, _)| matches!(k, Value::Str(s) if s == key.as_bytes()))
    {
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

#[test]
fn every_container_rule_has_an_object_mutation() {
    let missing: Vec<&str> = rules::catalogue()
        .map(|r| r.id)
        .filter(|id| id.starts_with("elf.") || id.starts_with("note.") || id.starts_with("symbol."))
        .filter(|id| !MUTATIONS.iter().any(|(m, _, _)| m == id))
        .collect();
    assert!(
        missing.is_empty(),
        "rules with no object-level mutation test: {missing:#?}"
    );
    for (id, _, _) in MUTATIONS {
        assert!(rules::find(id).is_some(), "mutation for unknown rule {id}");
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
        let mut o = bases[b].clone();
        f(&mut o);
        let r = check_object(&o.bytes);
        if !r.violations.iter().any(|v| v.rule.id == *id) {
            let got: Vec<String> = r
                .violations
                .iter()
                .map(|v| format!("{}: {}", v.rule.id, v.message))
                .collect();
            failures.push(format!("{id} on {b:?}: not reported; got {got:#?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
