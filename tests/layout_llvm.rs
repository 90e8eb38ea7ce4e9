//! The descriptor layout table against LLVM 22 on processors that add
//! fields to their generation (GFX12.5 over gfx1200): every bit field the
//! newer processor defines and the generation's first does not (a row its
//! `defined` holds for and not for the other) is where llvm-objdump-22
//! reads it, and is printed under the row's name; a row llvm-objdump does
//! not print (USER_SGPR_COUNT) is where llvm-mc-22 writes its directive's
//! value. A field row added to `oracle/src/layout.rs` for such a processor
//! is tested here without a line of its own.

mod support;

use hsaco_oracle::elf::{read_header, read_sections};
use hsaco_oracle::kd::KernelDescriptor;
use hsaco_oracle::layout::{self, BitField, Printed, Word, KD_SIZE};
use hsaco_oracle::targets::by_name;
use std::path::Path;
use std::process::Command;

/// Processors that add fields to their generation, and the generation's
/// first processor.
const NEWER: &[(&str, &str)] = &[("gfx1250", "gfx1200"), ("gfx1251", "gfx1200")];

/// A relocatable object with one minimal kernel, by llvm-mc-22, and the
/// file offset of its descriptor.
fn object(mc: &Path, dir: &Path, cpu: &str) -> (Vec<u8>, usize) {
    object_with(mc, dir, cpu, "")
}

/// [`object`] with more `.amdhsa_*` directives in the kernel block.
fn object_with(mc: &Path, dir: &Path, cpu: &str, directives: &str) -> (Vec<u8>, usize) {
    let src = dir.join(format!("{cpu}.s"));
    let obj = dir.join(format!("{cpu}.o"));
    std::fs::write(
        &src,
        format!(
            ".amdgcn_target \"amdgcn-amd-amdhsa--{cpu}\"\n.amdhsa_code_object_version 6\n\
             .text\nk:\n s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n\
             .amdhsa_next_free_vgpr 4\n.amdhsa_next_free_sgpr 8\n{directives}.end_amdhsa_kernel\n"
        ),
    )
    .expect("write source");
    let o = Command::new(mc)
        .args([
            "-triple=amdgcn-amd-amdhsa",
            &format!("-mcpu={cpu}"),
            "-filetype=obj",
        ])
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .output()
        .expect("run llvm-mc-22");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&obj).expect("read object");
    let h = read_header(&bytes).expect("ELF header");
    let rodata = read_sections(&bytes, &h)
        .into_iter()
        .find(|s| s.name == ".rodata")
        .expect(".rodata");
    let at = usize::try_from(rodata.offset).expect("offset");
    (bytes, at)
}

/// What llvm-objdump-22 prints for the descriptor: `name value` pairs of
/// its directives and comment fields, or its complaint.
fn printed(objdump: &Path, path: &Path) -> Result<Vec<(String, u64)>, String> {
    let o = Command::new(objdump)
        .args(["-D", "--disassemble-symbols=k.kd"])
        .arg(path)
        .output()
        .expect("run llvm-objdump-22");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    if !o.status.success() || !out.contains(".end_amdhsa_kernel") || out.contains("reserved") {
        return Err(format!("{out}{err}"));
    }
    Ok(out
        .lines()
        .filter_map(|l| {
            let l = l
                .trim()
                .trim_start_matches("; ")
                .trim_start_matches(".amdhsa_");
            let (name, value) = l.rsplit_once(' ')?;
            Some((name.to_owned(), value.parse().ok()?))
        })
        .collect())
}

#[test]
fn fields_newer_processors_add_are_where_llvm_objdump_22_reads_them() {
    let (Some(mc), Some(objdump)) = (
        support::require_tool("llvm-mc-22"),
        support::require_tool("llvm-objdump-22"),
    ) else {
        return;
    };
    let d = tempfile::tempdir().expect("tmp");
    let mut checked = 0;
    for (newer, base) in NEWER {
        let newer = by_name(newer).expect("modelled processor");
        let base = by_name(base).expect("modelled processor");
        let added: Vec<&BitField> = layout::FIELDS
            .iter()
            .copied()
            .filter(|f| (f.defined)(newer) && !(f.defined)(base))
            .collect();
        assert!(!added.is_empty(), "{}: no row for it", newer.name);
        let (bytes, kd) = object(&mc, d.path(), newer.name);
        let path = d.path().join("probe.o");
        std::fs::write(&path, &bytes).expect("write");
        let before = printed(&objdump, &path).expect("the unchanged object");
        for f in added {
            let name = match (f.printed, f.directive) {
                (Printed::Directive(n) | Printed::Comment(n), _) => n,
                (Printed::Not(_), Ok(directive)) => {
                    // Not printed: the assembler writes the directive's
                    // value where the row says.
                    let max = (1u32 << f.width) - 1;
                    for value in [1, max] {
                        let (b, kd) = object_with(
                            &mc,
                            d.path(),
                            newer.name,
                            &format!(".amdhsa_{directive} {value}\n"),
                        );
                        let bytes: &[u8; KD_SIZE] =
                            b[kd..kd + KD_SIZE].try_into().expect("64 bytes");
                        let desc = KernelDescriptor::parse(bytes);
                        assert_eq!(
                            desc.field(f),
                            value,
                            "{} {}: .amdhsa_{directive} {value}",
                            newer.name,
                            f.name
                        );
                        checked += 1;
                    }
                    continue;
                }
                (Printed::Not(why), Err(_)) => {
                    panic!("{}: neither printed nor set ({why})", f.name)
                }
            };
            let at = kd + usize::try_from(f.word.offset()).expect("small offset");
            let max = (1u32 << f.width) - 1;
            for value in [1, max] {
                let mut b = bytes.clone();
                let w = u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"));
                let w = if f.word == Word::Properties || f.word == Word::KernargPreload {
                    // 16-bit words: keep the neighbouring word as it was.
                    (w & 0xffff_0000) | (f.set(w, value) & 0xffff)
                } else {
                    f.set(w, value)
                };
                b[at..at + 4].copy_from_slice(&w.to_le_bytes());
                std::fs::write(&path, &b).expect("write");
                let after = printed(&objdump, &path).unwrap_or_else(|e| {
                    panic!("{} = {value}: llvm-objdump-22 refuses: {e}", f.name)
                });
                let changed: Vec<&(String, u64)> =
                    after.iter().filter(|p| !before.contains(p)).collect();
                assert_eq!(
                    changed,
                    [&(name.to_owned(), u64::from(value))],
                    "{} {} = {value}",
                    newer.name,
                    f.name
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "{checked}");
}
