//! GFX12.5 (gfx1250, gfx1251) SMEM streams and mutants: streams reach
//! every form with `nv` and `scale_offset` (but the one the generator
//! keeps out on purpose), stay valid for the oracle and its executor, and
//! the SMEM mutators' tail instructions carry the modifiers there; no
//! other family ever gets them.

use hsaco_gen::arbitrary::Unstructured;
use hsaco_gen::smem::{self, Stream};
use hsaco_gen::{mutate, valid_case, Config};
use hsaco_oracle::smem::code::check_code;
use hsaco_oracle::smem::exec::{Machine, Step};
use hsaco_oracle::smem::forms::{self, Form, OffsetForm};
use hsaco_oracle::smem::table::Ext;
use hsaco_oracle::smem::{self as osmem, Offset, SmemGen, Verdict};
use hsaco_oracle::targets::{by_name, hsa_targets, Target};
use std::collections::HashSet;

mod common;
use common::seed_bytes;

fn target(name: &str) -> &'static Target {
    by_name(name).unwrap_or_else(|| panic!("{name}"))
}

fn stream(cfg: &Config, t: &Target, seed: u64) -> Stream {
    let bytes = seed_bytes(seed, 4096);
    smem::arbitrary_stream(&mut Unstructured::new(&bytes), cfg, t).expect("SMEM target")
}

/// The words decode to the drawn instructions, canonically, and the
/// executor accepts the stream with address registers at 0 and at large
/// values (scaled offsets included).
fn check(s: &Stream, t: &Target, ctx: &str) {
    let mut k = 0;
    for step in &s.steps {
        match step {
            Step::Smem(i) => {
                let w = u64::from(s.words[k]) | u64::from(s.words[k + 1]) << 32;
                k += 2;
                assert_eq!(osmem::encode(i), Ok(w), "{ctx}: `{i}`");
                let d = osmem::decode(s.gen, w);
                assert_eq!(d.verdict, Verdict::Valid, "{ctx}: `{i}`");
                assert_eq!(d.instruction.as_ref(), Some(i), "{ctx}");
            }
            _ => k += 1,
        }
    }
    assert_eq!(k, s.words.len(), "{ctx}");
    for fill in [0u32, 0x7fff_fff0] {
        let mut m = Machine::new(s.gen);
        m.xnack = t.xnack;
        for r in 0..128u8 {
            if s.address_registers >> r & 1 == 1 {
                m.set_sgpr(
                    r,
                    fill.wrapping_add(u32::from(r) << 4) & !3 & !(0x3fff << 16),
                );
            }
        }
        m.run(&s.steps);
        assert!(
            m.accepted(),
            "{ctx} ({fill:#x}): {:?}\n{}",
            m.violations(),
            s.text()
        );
    }
}

/// A byte load with `scale_offset` and an SGPR offset: the executor does
/// not predict it with a nonzero offset, so the generator never draws it.
fn kept_out(f: &Form) -> bool {
    f.scale_offset && f.offset == OffsetForm::SgprImm && matches!(f.op.ext, Ext::I8 | Ext::U8)
}

#[test]
fn gfx12_5_streams_reach_every_form_with_the_modifiers() {
    let cfg = Config {
        smem_min_len: 64,
        smem_max_len: 64,
        ..Config::default()
    };
    for name in ["gfx1250", "gfx1251"] {
        let t = target(name);
        let gen = SmemGen::for_target(t).expect("modelled");
        assert_eq!(gen, SmemGen::Gfx12_5);
        let all: Vec<Form> = forms::forms(gen)
            .into_iter()
            .filter(|f| !kept_out(f))
            .collect();
        let key = |f: &Form| (f.op.opcode, f.offset, f.modifiers());
        let want: HashSet<_> = all.iter().map(key).collect();
        let mut seen = HashSet::new();
        let mut seeds = 0;
        for seed in 0..6000u64 {
            seeds = seed + 1;
            let s = stream(&cfg, t, seed);
            check(&s, t, &format!("{name} seed {seed}"));
            for i in s.instructions() {
                let f = smem::form_of(i);
                assert!(!kept_out(&f), "{name} seed {seed}: `{i}`");
                seen.insert(key(&f));
            }
            if want.is_subset(&seen) {
                break;
            }
        }
        let missed: Vec<String> = all
            .iter()
            .filter(|f| !seen.contains(&key(f)))
            .map(|f| format!("{} {:?} {:?}", f.op.mnemonic, f.offset, f.modifiers()))
            .collect();
        assert!(missed.is_empty(), "{name}: never drawn: {missed:?}");
        eprintln!(
            "{name}: all {} forms reached in {seeds} streams",
            want.len()
        );
    }
}

#[test]
fn only_gfx12_5_streams_carry_the_modifiers() {
    let cfg = Config::default();
    for t in hsa_targets() {
        let Some(gen) = SmemGen::for_target(t) else {
            continue;
        };
        let mut with = 0usize;
        for seed in 0..60u64 {
            for i in stream(&cfg, t, seed ^ 0x1250).instructions() {
                with += usize::from(i.nv || i.scale_offset);
            }
        }
        if gen == SmemGen::Gfx12_5 {
            assert!(with > 0, "{}: no nv or scale_offset in 60 streams", t.name);
        } else {
            assert_eq!(with, 0, "{}", t.name);
        }
    }
}

/// GFX12.5 byte loads take `scale_offset` only with the immediate form
/// (SOFFSET `null`), which every executor state predicts.
#[test]
fn byte_loads_scale_only_immediates() {
    let t = target("gfx1250");
    let mut seen = 0;
    for seed in 0..400u64 {
        for i in stream(&Config::default(), t, seed).instructions() {
            if i.scale_offset && matches!(i.op.ext, Ext::I8 | Ext::U8) {
                assert!(matches!(i.offset, Offset::Imm(_)), "`{i}`");
                seen += 1;
            }
        }
    }
    assert!(seen > 0, "no byte load with scale_offset in 400 streams");
}

/// The SMEM mutators' tail instructions (built from the opcode table) and
/// tail copies carry `nv`/`scale_offset` on GFX12.5 and never elsewhere.
#[test]
fn smem_mutants_carry_the_modifiers_only_on_gfx12_5() {
    let rules = [
        "smem.sdata.class",
        "smem.sbase.class",
        "smem.lgkm.read_before_wait",
        "smem.lgkm.write_before_wait",
        "smem.address.unaligned",
        "smem.exec.invalid_instruction",
    ];
    for name in ["gfx1250", "gfx1251", "gfx1200", "gfx1100"] {
        let cfg = Config {
            targets: vec![name.into()],
            code_object_versions: vec![5],
            ..Config::default()
        };
        let mut with = 0usize;
        let mut mutants = 0usize;
        for seed in 0..40u64 {
            let bytes = seed_bytes(seed ^ 0x5eed, 8192);
            let mut u = Unstructured::new(&bytes);
            let Ok(base) = valid_case(&mut u, &cfg, format!("s{seed}")) else {
                continue;
            };
            for (k, rule) in rules.iter().enumerate() {
                let choice = seed_bytes(seed * 16 + k as u64, 512);
                let Some(m) = mutate::mutate(&base, rule, &mut Unstructured::new(&choice)) else {
                    continue;
                };
                mutants += 1;
                let code = check_code(&m.elf);
                assert!(
                    code.reports(rule),
                    "{name} seed {seed}: {rule} not reported"
                );
                for &(g, w) in &code.words {
                    if let Some(i) = osmem::decode(g, w).instruction {
                        with += usize::from(i.nv || i.scale_offset);
                    }
                }
            }
        }
        assert!(mutants > 100, "{name}: {mutants} mutants");
        if name.starts_with("gfx125") {
            assert!(with > 0, "{name}: no mutant word with nv or scale_offset");
        } else {
            assert_eq!(with, 0, "{name}");
        }
    }
}
