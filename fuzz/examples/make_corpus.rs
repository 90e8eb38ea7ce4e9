//! Writes the seed corpora of the fuzz targets into `corpus/seeds/`:
//!
//! ```text
//! cargo run -p hsaco-fuzz --example make_corpus -- [OBJECT...]
//! ```
//!
//! Generated seeds (the same bytes on every machine with the same
//! libLLVM-19 and -14, which decide the processor selector bytes): valid
//! code objects from `hsaco_gen` for `oracle_check`, generator byte streams
//! for `gen_check`, SMEM words and texts of every family for
//! `smem_roundtrip`, shaped SMEM inputs for `smem_vs_libllvm`. Each OBJECT
//! (a real code object, e.g. the test fixtures that clang-19 and llc-14
//! build under `<target dir>/fixtures/`) is copied into `oracle_check`'s
//! seeds, and its `.text` becomes a `libllvm_disasm` seed for its
//! processor (with LLVM 19, and with LLVM 14 when it knows the processor).
//! An OBJECT that is a container (an offload bundle, compressed or not, or
//! a host binary) is copied into `oracle_check`'s seeds as
//! `container-FILE`.
//! Existing files of the same name are overwritten; nothing is deleted.

use std::path::{Path, PathBuf};

use hsaco_conform::peers::llvm_disasm::LlvmLib;
use hsaco_fuzz::{peer, replay, smem_vs_libllvm, smoke};
use hsaco_oracle::check::check_object;
use hsaco_oracle::container;
use hsaco_oracle::elf::Elf;
use hsaco_oracle::rules::Sink;
use hsaco_oracle::smem::forms::forms;
use hsaco_oracle::smem::parse::{format, Dialect};
use hsaco_oracle::smem::{encode, tuple_align, SmemGen};

fn write(dir: &Path, name: &str, data: &[u8]) {
    std::fs::create_dir_all(dir).expect("create seed directory");
    std::fs::write(dir.join(name), data).expect("write seed");
}

fn gen_name(gen: SmemGen) -> String {
    format!("{gen:?}").to_lowercase()
}

/// In-class operands for form number `k`, varied with `k`.
fn operands(gen: SmemGen, f: &hsaco_oracle::smem::forms::Form, k: usize) -> (u8, u8, u8, i32) {
    let r = smoke::bytes(k as u64 ^ 0x5eed, 8);
    let c = f.op.class;
    let align = tuple_align(f.op.width);
    let sdata = if c.has_sdata_regs() {
        let v = r[0] % 96;
        v - v % align
    } else if c.has_sdata_imm() {
        r[0] % 32
    } else {
        0
    };
    let sbase = if c.has_sbase() {
        let v = (r[1] % 96) & !1;
        if c.buffer_base() {
            v - v % 4
        } else {
            v
        }
    } else {
        0
    };
    let reg = r[2] % 100;
    let (lo, hi) = gen.offset_range(c);
    let span = i64::from(hi) - i64::from(lo) + 1;
    let pick = i64::from(u32::from_le_bytes([r[3], r[4], r[5], r[6]])) % span;
    let imm = if r[7] & 1 == 0 {
        i32::try_from(i64::from(lo) + pick).unwrap_or(0)
    } else {
        i32::from(r[7]) * 4
    };
    (sdata, sbase, reg, imm.clamp(lo, hi))
}

fn smem_roundtrip(root: &Path) {
    let dir = root.join("smem_roundtrip");
    for (g, &gen) in SmemGen::ALL.iter().enumerate() {
        let fs = forms(gen);
        let step = (fs.len() / 40).max(1);
        for (n, k) in (0..fs.len()).step_by(step).take(40).enumerate() {
            let f = &fs[k];
            let (sdata, sbase, reg, imm) = operands(gen, f, k);
            let i = f.instruction(sdata, sbase, reg, imm);
            let Ok(w) = encode(&i) else { continue };
            let mut input = vec![g as u8];
            input.extend_from_slice(&w.to_le_bytes());
            write(&dir, &format!("{}-word-{n:02}", gen_name(gen)), &input);
            if n % 5 == 0 {
                // The same word with an unused or out-of-class bit set.
                let mut bad = vec![g as u8];
                bad.extend_from_slice(&(w ^ (1 << (n % 64))).to_le_bytes());
                write(&dir, &format!("{}-flip-{n:02}", gen_name(gen)), &bad);
            }
            if n % 4 == 0 {
                let mut t = vec![0x80 | g as u8];
                t.extend_from_slice(i.to_string().as_bytes());
                write(&dir, &format!("{}-text-{n:02}", gen_name(gen)), &t);
                if gen.is_gfx10() || matches!(gen, SmemGen::Gfx8 | SmemGen::Gfx9) {
                    let mut t14 = vec![0xc0 | g as u8];
                    t14.extend_from_slice(format(&i, Dialect::Llvm14).as_bytes());
                    write(&dir, &format!("{}-text14-{n:02}", gen_name(gen)), &t14);
                }
            }
        }
    }
}

fn smem_vs_libllvm(root: &Path, l19: &'static LlvmLib, l14: Option<&'static LlvmLib>) {
    let dir = root.join("smem_vs_libllvm");
    let reps = [
        "gfx803", "gfx900", "gfx90a", "gfx942", "gfx1010", "gfx1030", "gfx1100", "gfx1200",
    ];
    let mut libs = vec![(l19, 0u8, 30usize)];
    libs.extend(l14.map(|l| (l, 0x80, 10)));
    for (lib, flag, per) in libs {
        let procs = smem_vs_libllvm::processors(lib);
        for cpu in reps {
            let Some(idx) = procs.iter().position(|p| p.name == cpu) else {
                continue;
            };
            let gen = procs[idx].gen;
            let fs = forms(gen);
            let step = (fs.len() / per).max(1);
            for (n, k) in (0..fs.len()).step_by(step).take(per).enumerate() {
                let (sdata, sbase, reg, imm) = operands(gen, &fs[k], k);
                // Shape 0x41: aligned operands from the form's fields;
                // every third seed also XORs extra bits (shape 0x51).
                let shape = if n % 3 == 2 { 0x51u8 } else { 0x41 };
                let mut input = vec![flag | idx as u8, shape];
                input.extend_from_slice(&(k as u16).to_le_bytes());
                input.extend_from_slice(&[sdata, sbase, reg]);
                input.extend_from_slice(&(imm as u32).to_le_bytes());
                if shape == 0x51 {
                    input.extend_from_slice(&(1u64 << (7 * n % 64)).to_le_bytes());
                }
                write(&dir, &format!("llvm{}-{cpu}-{n:02}", lib.version()), &input);
            }
            // One raw word outside the shaped forms.
            let mut raw = vec![flag | idx as u8, 0x00];
            raw.extend_from_slice(&smoke::bytes(idx as u64, 8));
            write(&dir, &format!("llvm{}-{cpu}-raw", lib.version()), &raw);
        }
    }
}

fn generated(root: &Path) {
    let dir = root.join("oracle_check");
    for (k, c) in smoke::generated_cases(10).iter().enumerate() {
        let t = c.target.replace(':', "_");
        write(
            &dir,
            &format!("gen-{k:02}-{t}-v{}.hsaco", c.code_object_version),
            &c.elf,
        );
    }
    let dir = root.join("gen_check");
    for seed in 0..24u64 {
        write(
            &dir,
            &format!("stream-{seed:02}"),
            &smoke::bytes(seed, 2048),
        );
    }
}

fn real_objects(
    root: &Path,
    objects: &[PathBuf],
    l19: &'static LlvmLib,
    l14: Option<&'static LlvmLib>,
) {
    for p in objects {
        let data = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        if container::kind(&data) != container::Kind::CodeObject {
            // A bundle (compressed or not) or a host binary: a seed of the
            // container layer, named after its file.
            let file = p.file_name().and_then(|s| s.to_str()).unwrap_or("file");
            write(
                &root.join("oracle_check"),
                &format!("container-{file}"),
                &data,
            );
            continue;
        }
        let report = check_object(&data);
        let (Some(target), Some(cov)) = (report.target.clone(), report.code_object_version) else {
            eprintln!(
                "{}: not a code object the oracle names; skipped",
                p.display()
            );
            continue;
        };
        let rel = report.elf_type.as_deref() == Some("ET_REL");
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("object");
        let t = target.replace(':', "_");
        let name = format!(
            "real-{t}-v{cov}-{stem}{}",
            if rel { ".o" } else { ".hsaco" }
        );
        write(&root.join("oracle_check"), &name, &data);
        let mut sink = Sink::new();
        let Some(elf) = Elf::parse(&data, &mut sink) else {
            continue;
        };
        let Some(text) = elf
            .sections
            .iter()
            .find(|s| s.name == ".text")
            .and_then(|s| s.data(&data))
        else {
            continue;
        };
        let cpu = target.split(':').next().unwrap_or("");
        let mut libs = vec![l19];
        libs.extend(l14);
        for lib in libs {
            let procs = peer::processors(lib);
            let Some(sel) = procs
                .iter()
                .position(|c| *c == cpu)
                .and_then(|idx| hsaco_fuzz::libllvm_disasm::selector(lib.version(), idx))
            else {
                continue;
            };
            let mut input = vec![sel];
            // Keep seeds short: the first 2 KiB of code.
            input.extend_from_slice(&text[..text.len().min(2048)]);
            if hsaco_fuzz::libllvm_disasm::may_hit_known_crash(lib.version(), cpu, &input[1..]) {
                continue;
            }
            write(
                &root.join("libllvm_disasm"),
                &format!("llvm{}-{t}-v{cov}-{stem}", lib.version()),
                &input,
            );
        }
    }
}

/// Writes `fuzz/dicts/smem_roundtrip.dict`: every SMEM mnemonic of every
/// family and the tokens of LLVM's SMEM syntax.
fn smem_dict(path: &Path) {
    let mut mnemonics: Vec<&str> = SmemGen::ALL
        .iter()
        .flat_map(|g| g.table().iter().map(|o| o.mnemonic))
        .collect();
    mnemonics.sort_unstable();
    mnemonics.dedup();
    let tokens = [
        "s",
        "s[",
        ":",
        "]",
        ",",
        "ttmp",
        "ttmp[",
        "vcc",
        "vcc_lo",
        "vcc_hi",
        "exec",
        "exec_lo",
        "exec_hi",
        "m0",
        "null",
        "flat_scratch",
        "flat_scratch_lo",
        "xnack_mask",
        "xnack_mask_hi",
        "tba",
        "tma_lo",
        "src_scc",
        "offset:",
        "glc",
        "dlc",
        "noglc",
        "nodlc",
        "noslc",
        "noscc",
        "th:",
        "scope:",
        "TH_LOAD_RT",
        "TH_LOAD_NT",
        "TH_LOAD_HT",
        "TH_LOAD_LU",
        "TH_LOAD_BYPASS",
        "SCOPE_CU",
        "SCOPE_SE",
        "SCOPE_DEV",
        "SCOPE_SYS",
        "lit(",
        "0x",
        "0b",
        "-0x",
        "_e32",
        "_e64",
        "//",
        "/*",
        "*/",
        ";",
        "<<",
        ">>",
        "&&",
        "||",
        "==",
        "!=",
        "<=",
        "'a'",
        "1048575",
        "-1048576",
        "8388607",
        "-8388608",
        "0xfffff",
        "0x1fffff",
        "0xffffff",
        "4294967296",
    ];
    let mut out = String::from(
        "# libFuzzer dictionary for smem_roundtrip's text mode (written by\n\
         # `cargo run -p hsaco-fuzz --example make_corpus`). Use: cargo fuzz run\n\
         # smem_roundtrip -- -dict=fuzz/dicts/smem_roundtrip.dict\n",
    );
    for t in mnemonics.iter().chain(tokens.iter()) {
        out.push('"');
        for c in t.chars() {
            match c {
                '"' | '\\' => out.push_str(&format!("\\x{:02x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push_str("\"\n");
    }
    std::fs::write(path, out).expect("write dictionary");
}

fn main() {
    let objects: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let root = replay::repo_root().join("corpus").join("seeds");
    let l19 = LlvmLib::open(19).unwrap_or_else(|e| panic!("make_corpus needs libLLVM-19: {e}"));
    let l14 = LlvmLib::open(14).ok();
    generated(&root);
    smem_roundtrip(&root);
    smem_vs_libllvm(&root, l19, l14);
    real_objects(&root, &objects, l19, l14);
    smem_dict(
        &replay::repo_root()
            .join("fuzz")
            .join("dicts")
            .join("smem_roundtrip.dict"),
    );
    eprintln!("seeds written under {}", root.display());
}
