//! SMEM stream generation: every stream is valid for the oracle (canonical
//! words that decode to the drawn instructions, accepted by the executor),
//! the generator reaches every opcode and form of every family, the knobs
//! do what they say, and kernels embed streams consistently.

use hsaco_gen::arbitrary::{Arbitrary, Unstructured};
use hsaco_gen::config::SmemWaits;
use hsaco_gen::smem::{self, Stream};
use hsaco_gen::{valid_case, Config};
use hsaco_oracle::smem::exec::{Machine, Step};
use hsaco_oracle::smem::forms::{self, Form, OffsetForm};
use hsaco_oracle::smem::{self as osmem, Class, Offset, SmemGen, Verdict};
use hsaco_oracle::targets::{by_name, Target};
use proptest::prelude::*;
use std::collections::HashSet;

mod common;
use common::seed_bytes;

/// The family representatives the issue names.
const FAMILIES: [&str; 7] = [
    "gfx803", "gfx900", "gfx90a", "gfx1010", "gfx1030", "gfx1100", "gfx1200",
];

fn target(name: &str) -> &'static Target {
    by_name(name).unwrap_or_else(|| panic!("{name}"))
}

fn stream(cfg: &Config, t: &Target, bytes: &[u8]) -> Stream {
    smem::arbitrary_stream(&mut Unstructured::new(bytes), cfg, t).expect("SMEM target")
}

/// Deterministic xorshift64* for initial register values.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Every property a stream must have; panics with `ctx` on the first
/// failure.
fn check_stream(s: &Stream, t: &Target, ctx: &str) {
    let gen = s.gen;
    // Words: each step's, in order; each SMEM word canonical, decoding to
    // the drawn instruction, equal to the oracle's encoding.
    let mut k = 0;
    let mut smem_seen = 0;
    for step in &s.steps {
        match step {
            Step::Smem(i) => {
                let w = u64::from(s.words[k]) | u64::from(s.words[k + 1]) << 32;
                k += 2;
                smem_seen += 1;
                assert_eq!(osmem::encode(i), Ok(w), "{ctx}: `{i}`");
                let d = osmem::decode(gen, w);
                assert_eq!(d.verdict, Verdict::Valid, "{ctx}: `{i}` {w:#018x}");
                assert_eq!(d.instruction, Some(*i), "{ctx}: `{i}` {w:#018x}");
                // Write roles: nothing read as an address is written.
                let c = i.op.class;
                if c.has_sbase() {
                    let n = if c.buffer_base() { 4 } else { 2 };
                    for r in i.sbase..i.sbase + n {
                        assert!(s.address_registers >> r & 1 == 1, "{ctx}: `{i}` base");
                    }
                }
                if let Offset::Sgpr(r) | Offset::Soffset(r) | Offset::SgprImm { sgpr: r, .. } =
                    i.offset
                {
                    assert!(
                        r == gen.null() || s.address_registers >> r & 1 == 1,
                        "{ctx}: `{i}` offset"
                    );
                }
                if c.has_sdata_regs() {
                    let n = i.op.width.max(1);
                    for r in i.sdata..i.sdata + n {
                        assert!(
                            s.address_registers >> r & 1 == 0,
                            "{ctx}: `{i}` writes an address register"
                        );
                    }
                }
            }
            Step::WaitLgkm(n) => {
                assert!(*n <= smem::max_wait(gen), "{ctx}");
                assert_eq!(s.words[k], smem::wait_word(gen, *n), "{ctx}");
                k += 1;
            }
            other => panic!("{ctx}: unexpected step {other:?}"),
        }
    }
    assert_eq!(k, s.words.len(), "{ctx}");
    assert_eq!(smem_seen, s.smem_count, "{ctx}");

    // The executor accepts the stream on a fresh machine ...
    let mut m = Machine::new(gen);
    m.xnack = t.xnack;
    m.run(&s.steps);
    assert!(m.accepted(), "{ctx}: {:?}\n{}", m.violations(), s.text());
    m.step(&Step::WaitLgkm(0));
    assert_eq!(m.pending_mask(), 0, "{ctx}");

    // ... and on one with random data registers and memory, and address
    // registers holding any value with the two low bits and the stride
    // bits clear (what a harness must set up), with XNACK on.
    let mut rng =
        Rng(0x9e37_79b9 ^ s.words.len() as u64 ^ u64::from(s.words.first().copied().unwrap_or(7)));
    let mut m = Machine::new(gen);
    m.xnack = t.xnack;
    for r in 0..128u8 {
        let v = rng.next() as u32;
        let v = if s.address_registers >> r & 1 == 1 {
            v & !3 & !(0x3fff << 16)
        } else {
            v
        };
        m.set_sgpr(r, v);
    }
    for k in 0..64u64 {
        m.memory.write_u64(rng.next() & !7, rng.next() ^ k);
    }
    m.run(&s.steps);
    assert!(
        m.accepted(),
        "{ctx} (random state): {:?}\n{}",
        m.violations(),
        s.text()
    );
}

#[test]
fn streams_are_valid_for_every_family() {
    let cfgs = [
        Config::default(),
        Config {
            smem_waits: SmemWaits::Minimal,
            smem_max_len: 64,
            ..Config::default()
        },
        Config {
            smem_waits: SmemWaits::Zero,
            smem_special_registers: false,
            ..Config::default()
        },
        Config {
            rebuildable_only: true,
            smem_min_len: 40,
            smem_max_len: 80,
            ..Config::default()
        },
    ];
    let mut total = 0usize;
    for name in FAMILIES {
        let t = target(name);
        let mut count = 0usize;
        for seed in 0..3000u64 {
            let cfg = &cfgs[(seed % 4) as usize];
            let bytes = seed_bytes(seed, 2048);
            let s = stream(cfg, t, &bytes);
            assert!(
                s.smem_count >= cfg.smem_min_len.min(1) && s.smem_count <= cfg.smem_max_len,
                "{name} seed {seed}: {} instructions",
                s.smem_count
            );
            check_stream(&s, t, &format!("{name} seed {seed}"));
            count += s.smem_count;
        }
        eprintln!("{name}: 3000 streams, {count} SMEM instructions, all accepted");
        total += count;
    }
    assert!(total > 200_000, "{total}");
}

#[test]
fn every_smem_target_gets_valid_streams() {
    // Every HSA processor with an SMEM model, not only the representatives.
    for t in hsaco_oracle::targets::hsa_targets() {
        if SmemGen::for_target(t).is_none() {
            let mut u = Unstructured::new(&[]);
            assert!(smem::arbitrary_stream(&mut u, &Config::default(), t).is_err());
            continue;
        }
        for seed in 0..100u64 {
            let s = stream(&Config::default(), t, &seed_bytes(seed ^ 0xabc, 1024));
            check_stream(&s, t, &format!("{} seed {seed}", t.name));
        }
    }
}

#[test]
fn swarm_configs_give_valid_streams() {
    for seed in 0..2000u64 {
        let bytes = seed_bytes(seed, 3000);
        let mut u = Unstructured::new(&bytes);
        let cfg = Config::arbitrary(&mut u).expect("configs always draw");
        let t = target(FAMILIES[(seed % 7) as usize]);
        let s = smem::arbitrary_stream(&mut u, &cfg, t).expect("SMEM target");
        check_stream(&s, t, &format!("swarm seed {seed}"));
        for i in s.instructions() {
            let c = i.op.class;
            let on = match c {
                Class::Load => cfg.smem_loads,
                Class::BufferLoad => cfg.smem_buffer_loads,
                Class::Store | Class::BufferStore => cfg.smem_stores,
                Class::ScratchLoad | Class::ScratchStore => cfg.smem_scratch,
                Class::Atomic | Class::BufferAtomic => cfg.smem_atomics,
                Class::Cache | Class::Discard => cfg.smem_cache_ops,
                Class::Time | Class::WaveId => cfg.smem_time,
                Class::Probe | Class::ProbeBuffer => cfg.smem_probes,
                Class::Prefetch | Class::PrefetchBuffer | Class::PrefetchPcRel => {
                    cfg.smem_prefetches
                }
            };
            assert!(on, "swarm seed {seed}: `{i}` drawn with its class off");
            if !cfg.smem_modifiers {
                assert!(!i.glc && !i.dlc && i.th == 0 && i.scope == 0, "`{i}`");
            }
            if !cfg.smem_sgpr_offsets {
                let sgpr = match i.offset {
                    Offset::Sgpr(_) | Offset::Soffset(_) => true,
                    Offset::SgprImm { sgpr, .. } => sgpr != i.gen.null(),
                    Offset::None | Offset::Imm(_) => false,
                };
                assert!(!sgpr, "swarm seed {seed}: `{i}` has an SGPR offset");
            }
            if cfg.rebuildable_only {
                assert!(!matches!(i.offset, Offset::Soffset(_)), "`{i}`");
            }
        }
        if cfg.smem_waits == SmemWaits::Zero {
            assert!(s
                .steps
                .iter()
                .all(|st| !matches!(st, Step::WaitLgkm(n) if *n != 0)));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any bytes give a valid stream on any family.
    #[test]
    fn any_bytes_give_valid_streams(
        bytes in proptest::collection::vec(any::<u8>(), 0..2000),
        fam in 0usize..7,
    ) {
        let t = target(FAMILIES[fam]);
        let s = stream(&Config::default(), t, &bytes);
        check_stream(&s, t, "proptest");
    }

    /// Waits: word and count round-trip for every count the generator
    /// writes; nothing else is taken for one.
    #[test]
    fn wait_words_round_trip(n in 0u8..=255, g in 0usize..6, junk in any::<u32>()) {
        let gen = SmemGen::ALL[g];
        let w = smem::wait_word(gen, n);
        if n <= smem::max_wait(gen) {
            prop_assert_eq!(smem::decode_wait(gen, w), Some(n));
        }
        if let Some(k) = smem::decode_wait(gen, junk) {
            prop_assert_eq!(smem::wait_word(gen, k), junk);
        }
    }
}

/// Draws streams until every opcode and form of `gen` has appeared (or the
/// seed budget runs out); returns the forms missed.
fn missed_forms(t: &Target, cfg: &Config, seeds: u64) -> (Vec<Form>, usize, u64) {
    let gen = SmemGen::for_target(t).expect("SMEM target");
    let all = forms::forms(gen);
    let key = |f: &Form| (f.op.opcode, f.offset, f.glc, f.dlc, f.th, f.scope);
    let mut seen = HashSet::new();
    let mut instructions = 0usize;
    let mut used = 0;
    for seed in 0..seeds {
        used = seed + 1;
        let s = stream(cfg, t, &seed_bytes(seed, 4096));
        for i in s.instructions() {
            seen.insert(key(&smem::form_of(i)));
            instructions += 1;
        }
        if all.iter().all(|f| seen.contains(&key(f))) {
            break;
        }
    }
    let missed = all
        .into_iter()
        .filter(|f| !seen.contains(&key(f)))
        .collect();
    (missed, instructions, used)
}

#[test]
fn reaches_every_opcode_and_form() {
    let cfg = Config {
        smem_min_len: 64,
        smem_max_len: 64,
        ..Config::default()
    };
    for name in [
        "gfx803", "gfx900", "gfx1010", "gfx1030", "gfx1100", "gfx1200",
    ] {
        let t = target(name);
        let gen = SmemGen::for_target(t).expect("gen");
        let (missed, n, seeds) = missed_forms(t, &cfg, 3000);
        let names: Vec<String> = missed
            .iter()
            .map(|f| {
                format!(
                    "{} {:?} {:?}",
                    f.op.mnemonic,
                    f.offset,
                    (f.glc, f.dlc, f.th, f.scope)
                )
            })
            .collect();
        assert!(names.is_empty(), "{name}: never drawn: {names:?}");
        eprintln!(
            "{name}: all {} forms of {} opcodes reached in {seeds} streams ({n} instructions)",
            forms::forms(gen).len(),
            gen.table().len()
        );
    }
    // Without SOE-only words when the text must rebuild them.
    let cfg = Config {
        rebuildable_only: true,
        ..cfg
    };
    let (missed, _, _) = missed_forms(target("gfx900"), &cfg, 400);
    assert!(!missed.is_empty() && missed.iter().all(|f| f.offset == OffsetForm::Soffset));
}

#[test]
fn registers_stay_in_the_budget() {
    let cfg = Config {
        smem_special_registers: false,
        ..Config::default()
    };
    for name in FAMILIES {
        let t = target(name);
        let gen = SmemGen::for_target(t).expect("gen");
        for seed in 0..300u64 {
            let bytes = seed_bytes(seed, 2048);
            let mut u = Unstructured::new(&bytes);
            let regs = smem::Registers {
                sgprs: (seed % 40) as u8,
                ..smem::Registers::all(t, false)
            };
            let s = smem::arbitrary_stream_with(&mut u, &cfg, gen, &regs, t.xnack).expect("draws");
            check_stream(&s, t, &format!("{name} budget seed {seed}"));
            let allowed = if regs.sgprs == 0 {
                0
            } else {
                (1u128 << regs.sgprs) - 1
            };
            let m0 = 1u128 << gen.m0();
            assert_eq!(
                s.registers_used() & !allowed & !m0,
                0,
                "{name} seed {seed}: {:#x}\n{}",
                s.registers_used(),
                s.text()
            );
            if let Some(top) = s.max_sgpr() {
                assert!(top < regs.sgprs.max(1), "{name} seed {seed}");
            }
        }
    }
}

#[test]
fn text_and_code_lines_agree() {
    for name in FAMILIES {
        let t = target(name);
        for seed in 0..300u64 {
            let s = stream(&Config::default(), t, &seed_bytes(seed ^ 0x77, 2048));
            let lines = s.lines();
            let text_s = s.text();
            let text: Vec<&str> = text_s.lines().collect();
            assert_eq!(lines.len(), text.len());
            let code = s.kernel_code();
            assert_eq!(code.len(), s.words.len() + 2);
            assert_eq!(code[code.len() - 2], smem::wait_word(s.gen, 0));
            let asm = smem::code_lines(t, &code);
            // The kernel's assembler lines: the stream's text with each
            // SOE-only word as two `.long` lines, then the wait and
            // s_endpgm.
            let mut expect = Vec::new();
            for (step, line) in s.steps.iter().zip(&text) {
                match step {
                    Step::Smem(i) if matches!(i.offset, Offset::Soffset(_)) => {
                        let w = osmem::encode(i).expect("encodes");
                        expect.push(format!(".long {:#010x}", w as u32));
                        expect.push(format!(".long {:#010x}", (w >> 32) as u32));
                        assert!(line.starts_with(".long "));
                    }
                    _ => expect.push((*line).to_owned()),
                }
            }
            expect.push(smem::wait_text(s.gen, 0));
            expect.push("s_endpgm".to_owned());
            assert_eq!(asm, expect, "{name} seed {seed}");
            // Lines are the disassembler's text: the oracle's decode.
            for (step, line) in s.steps.iter().zip(&lines) {
                if let Step::Smem(i) = step {
                    assert_eq!(line, &i.to_string());
                }
            }
        }
    }
    // Words that are no SMEM instruction or wait stay data.
    let gfx900 = target("gfx900");
    assert_eq!(
        smem::code_lines(gfx900, &[0x1234_5678, 0xc002_0041, 0xbf81_0000]),
        [".long 0x12345678", ".long 0xc0020041", "s_endpgm"]
    );
    assert_eq!(
        smem::code_lines(target("gfx700"), &[0xbf8c_c07f, 0xbf81_0000]),
        [".long 0xbf8cc07f", "s_endpgm"]
    );
    // Valid words whose text llvm-mc-19 refuses stay data: s[100:103] on
    // GFX9, xnack_mask on gfx803 (not on gfx801). Register 125 as GFX9
    // SDATA (`null`, which GFX9 lacks) is invalid and stays data too.
    let word = |w: u64| [w as u32, (w >> 32) as u32];
    let null_sdata = osmem::decode(SmemGen::Gfx9, 0xc002_1f40);
    assert!(matches!(null_sdata.verdict, Verdict::Invalid(_)));
    assert_eq!(
        smem::code_lines(target("gfx900"), &word(0xc002_1f40)),
        [".long 0xc0021f40", ".long 0x00000000"]
    );
    for (t, w, text) in [
        ("gfx900", 0xc00a_1900u64, None),
        ("gfx803", 0xc002_1a00, None),
        (
            "gfx801",
            0xc002_1a00,
            Some("s_load_dword xnack_mask_lo, s[0:1], 0x0"),
        ),
        (
            "gfx900",
            0xc002_1940,
            Some("s_load_dword s101, s[0:1], 0x0"),
        ),
    ] {
        let t = target(t);
        let gen = SmemGen::for_target(t).expect("gen");
        let d = osmem::decode(gen, w);
        assert_eq!(d.verdict, Verdict::Valid, "{w:#x} {d}");
        let lines = smem::code_lines(t, &word(w));
        match text {
            Some(s) => assert_eq!(lines, [s], "{w:#x}"),
            None => assert!(
                lines.iter().all(|l| l.starts_with(".long")),
                "{w:#x}: {lines:?}"
            ),
        }
    }
}

#[test]
fn kernels_embed_streams() {
    let cfg = Config::default();
    let mut with_stream = 0;
    let mut families = HashSet::new();
    for seed in 0..400u64 {
        let bytes = seed_bytes(seed, 4096);
        let Ok(case) = valid_case(&mut Unstructured::new(&bytes), &cfg, format!("s{seed}")) else {
            continue;
        };
        let tc = &case.object.target;
        let t = tc.target();
        let Some(gen) = SmemGen::for_target(t) else {
            for k in &case.object.kernels {
                assert_eq!(k.code, [hsaco_gen::object::s_endpgm(t)]);
            }
            continue;
        };
        for k in &case.object.kernels {
            let code = &k.code;
            assert_eq!(code.last(), Some(&hsaco_gen::object::s_endpgm(t)));
            if code.len() == 1 {
                continue;
            }
            with_stream += 1;
            families.insert(gen as usize);
            assert_eq!(code[code.len() - 2], smem::wait_word(gen, 0));
            // Re-decode the stream from the words; the descriptor covers
            // the highest SGPR named, and the assembler text has its lines.
            let mut steps = Vec::new();
            let mut top: Option<u8> = None;
            let mut i = 0;
            let body = &code[..code.len() - 2];
            while i < body.len() {
                if let Some(n) = smem::decode_wait(gen, body[i]) {
                    steps.push(Step::WaitLgkm(n));
                    i += 1;
                    continue;
                }
                let w = u64::from(body[i]) | u64::from(body[i + 1]) << 32;
                let d = osmem::decode(gen, w);
                assert_eq!(d.verdict, Verdict::Valid, "seed {seed}");
                let ins = d.instruction.expect("instruction");
                let plain = if gen.is_rdna() { 106 } else { 102 };
                let c = ins.op.class;
                let mut regs = Vec::new();
                if c.has_sdata_regs() {
                    regs.extend(ins.sdata..ins.sdata + ins.op.width.max(1));
                }
                if c.has_sbase() {
                    regs.extend(ins.sbase..ins.sbase + if c.buffer_base() { 4 } else { 2 });
                }
                if let Offset::Sgpr(r) | Offset::Soffset(r) | Offset::SgprImm { sgpr: r, .. } =
                    ins.offset
                {
                    regs.push(r);
                }
                for r in regs {
                    if r < plain {
                        top = top.max(Some(r));
                    }
                    if r == 106 || r == 107 {
                        assert!(k.descriptor.reserve_vcc, "seed {seed}: vcc without reserve");
                    }
                }
                steps.push(Step::Smem(ins));
                i += 2;
            }
            if let Some(top) = top {
                assert!(
                    k.descriptor.next_free_sgpr > u16::from(top),
                    "seed {seed}: s{top} used, next_free_sgpr {}",
                    k.descriptor.next_free_sgpr
                );
            }
            let mut m = Machine::new(gen);
            m.xnack = t.xnack;
            m.run(&steps);
            assert!(m.accepted(), "seed {seed}: {:?}", m.violations());
            if tc.cov > hsaco_oracle::targets::CodeObjectVersion::V3 {
                for st in &steps {
                    if let Step::Smem(ins) = st {
                        if !matches!(ins.offset, Offset::Soffset(_)) {
                            assert!(
                                case.asm.contains(&format!("\t{ins}\n")),
                                "seed {seed}: `{ins}` not in the text"
                            );
                        }
                    }
                }
            }
        }
    }
    assert!(with_stream > 300, "{with_stream} kernels with streams");
    assert_eq!(families.len(), 7, "every SMEM family embedded");
}

#[test]
fn streams_off_leaves_kernels_alone() {
    let cfg = Config {
        smem_streams: false,
        ..Config::default()
    };
    for seed in 0..100u64 {
        let bytes = seed_bytes(seed, 4096);
        if let Ok(case) = valid_case(&mut Unstructured::new(&bytes), &cfg, "x".into()) {
            let t = case.object.target.target();
            for k in &case.object.kernels {
                assert_eq!(k.code, [hsaco_gen::object::s_endpgm(t)]);
            }
        }
    }
}

#[test]
fn config_knobs_parse() {
    let mut c = Config::default();
    c.set("smem_waits", "zero").expect("enum by name");
    assert_eq!(c.smem_waits, SmemWaits::Zero);
    c.set("smem_max_len", "3").expect("number");
    assert_eq!(c.smem_max_len, 3);
    assert!(c.set("smem_waits", "sometimes").is_err());
    let j = Config::from_json(r#"{"smem_waits": "minimal", "smem_atomics": false}"#).expect("json");
    assert_eq!((j.smem_waits, j.smem_atomics), (SmemWaits::Minimal, false));
    let mut s = Config {
        smem_min_len: 9,
        smem_max_len: usize::MAX,
        ..Config::default()
    };
    s.sanitize();
    assert_eq!(
        (s.smem_min_len, s.smem_max_len),
        (9, hsaco_gen::config::MAX_SMEM_LEN)
    );
    let mut s = Config {
        smem_min_len: 9,
        smem_max_len: 4,
        ..Config::default()
    };
    s.sanitize();
    assert_eq!((s.smem_min_len, s.smem_max_len), (4, 4));
}
