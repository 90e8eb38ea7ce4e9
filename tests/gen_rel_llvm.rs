//! The generator's relocatable objects against the assembler's: for a
//! sample of cases, `llvm-mc -filetype=obj` assembles the case's text, and
//! the object `hsaco_gen::emit::relocatable_bytes` writes must be
//! equivalent: the same sections (name, type, flags, alignment, link and
//! info by name, contents of every section but the string table), the
//! same symbols (name, type, binding, visibility, section, value, size)
//! and the same relocations (offset, type, symbol, addend).

mod support;

use hsaco_gen::arbitrary::Unstructured;
use hsaco_gen::{emit, Config, Generator, Rebuild};
use hsaco_oracle::elf::Elf;
use hsaco_oracle::{symbols, Sink};
use std::process::Command;
use support::rebuild::{seed_bytes, tools};

/// Cases compared (one llvm-mc run each).
const SAMPLE: u64 = 120;

/// What a linker sees of a relocatable object, in comparable form.
fn view(bytes: &[u8]) -> Vec<String> {
    let mut sink = Sink::new();
    let elf = Elf::parse(bytes, &mut sink).expect("an ELF object");
    let name = |i: u32| {
        elf.sections
            .get(i as usize)
            .map_or(format!("#{i}"), |s| s.name.to_string())
    };
    let mut out = vec![format!(
        "type {} machine {} flags {:#x} abi {}",
        elf.header.e_type, elf.header.machine, elf.header.flags, elf.header.abi_version
    )];
    let syms = symbols::read(&elf, &mut sink);
    let sym_name = |i: u64| {
        syms.symbols
            .iter()
            .find(|s| s.index as u64 == i)
            .map_or(format!("#{i}"), |s| s.name.to_string())
    };
    for s in &elf.sections {
        out.push(format!(
            "section {} type {} flags {:#x} align {} entsize {} link {} info {} size {}",
            s.name,
            s.sh_type,
            s.flags,
            s.addralign,
            s.entsize,
            name(s.link),
            if s.sh_type == 4 {
                name(s.info)
            } else {
                s.info.to_string()
            },
            if s.sh_type == 3 { 0 } else { s.size },
        ));
        let data = s.data(bytes).unwrap_or_default();
        match s.sh_type {
            // String tables: llvm-mc merges tails and orders its own way.
            3 => {}
            // Relocations, by symbol name.
            4 => {
                for r in data.chunks_exact(24) {
                    let le =
                        |a: usize| u64::from_le_bytes(r[a..a + 8].try_into().expect("8 bytes"));
                    let info = le(8);
                    out.push(format!(
                        "  rela offset {:#x} type {} symbol {} addend {}",
                        le(0),
                        info & 0xffff_ffff,
                        sym_name(info >> 32),
                        le(16) as i64
                    ));
                }
            }
            // The symbol table, by name (below).
            2 => {}
            _ => out.push(format!("  bytes {data:02x?}")),
        }
    }
    for s in &syms.symbols {
        out.push(format!(
            "symbol {} type {} bind {} section {} value {:#x} size {}",
            s.name,
            s.sym_type,
            s.bind,
            name(u32::from(s.shndx)),
            s.value,
            s.size
        ));
    }
    out
}

#[test]
fn relocatable_objects_match_llvm_mc() {
    let Some(tools) = tools() else { return };
    let cfg = Config::default();
    let gen = Generator::new(&cfg);
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut compared = 0;
    let mut failures = Vec::new();
    for seed in 0..SAMPLE * 2 {
        if compared == SAMPLE {
            break;
        }
        let bytes = seed_bytes(seed, 4096);
        let Ok(case) = gen.valid_case(&mut Unstructured::new(&bytes), format!("seed{seed}")) else {
            continue;
        };
        let mc = match case.rebuild {
            Rebuild::Llvm19 => tools.mc19.clone(),
            Rebuild::Llvm14 => match &tools.mc14 {
                Some(p) => p.clone(),
                None => continue,
            },
            Rebuild::Unavailable => continue,
        };
        if case.code_object_version < 3 {
            continue;
        }
        let s = dir.path().join("case.s");
        let o = dir.path().join("case.o");
        std::fs::write(&s, &case.asm).expect("write");
        let mut args = emit::asm::llvm_mc_args(&case.object);
        args.extend([
            s.to_string_lossy().into_owned(),
            "-o".into(),
            o.to_string_lossy().into_owned(),
        ]);
        let out = Command::new(&mc)
            .args(&args)
            .output()
            .expect("llvm-mc runs");
        assert!(
            out.status.success(),
            "{}: llvm-mc failed: {}",
            case.id,
            String::from_utf8_lossy(&out.stderr)
        );
        let theirs = view(&std::fs::read(&o).expect("read"));
        let relocs = theirs.iter().filter(|l| l.contains("rela offset")).count();
        assert_eq!(
            relocs,
            case.object.kernels.len(),
            "{}: llvm-mc wrote {relocs} relocations",
            case.id
        );
        let ours = view(&emit::relocatable_bytes(&case.object).0);
        if ours != theirs {
            let first = ours
                .iter()
                .zip(&theirs)
                .position(|(a, b)| a != b)
                .unwrap_or(ours.len().min(theirs.len()));
            failures.push(format!(
                "{} ({} V{}): first difference at line {first}:\n  gen    {:?}\n  llvm-mc {:?}",
                case.id,
                case.target,
                case.code_object_version,
                ours.get(first),
                theirs.get(first)
            ));
        }
        compared += 1;
    }
    assert!(compared >= SAMPLE / 2, "only {compared} cases compared");
    assert!(
        failures.is_empty(),
        "{} of {compared} relocatable objects differ from llvm-mc's; first:\n{}",
        failures.len(),
        failures[0]
    );
}
