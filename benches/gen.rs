//! Generation speed on one core: valid code objects per second (model and
//! ELF bytes, and with the assembler text as `gen` writes it), SMEM
//! instructions per second (streams of 4096 instructions with their waits,
//! words encoded), and the cost of the seeded byte stream itself. Targets
//! (issue 5): at least 50 thousand code objects and 20 million SMEM
//! instructions per second.
//!
//! `cargo bench --bench gen`; criterion prints the throughput in
//! elements per second: one element is one code object, or one SMEM
//! instruction in the `smem_*` benchmarks.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use hsaco_gen::arbitrary::Unstructured;
use hsaco_gen::{emit, smem, Config, Generator};
use hsaco_oracle::targets;

/// The stream `hsaco-conform gen` feeds case `index` of `seed`.
fn fill(seed: u64, index: u64, buf: &mut [u8]) {
    hsaco_gen::seed::fill(seed, hsaco_gen::seed::GEN, index, buf);
}

fn bench(c: &mut Criterion) {
    let cfg = Config::default();
    let gen = Generator::new(&cfg);
    let mut g = c.benchmark_group("gen");
    g.throughput(Throughput::Elements(1));
    g.sample_size(20);
    g.measurement_time(std::time::Duration::from_secs(3));

    let mut buf = vec![0u8; 4096];
    let mut i = 0u64;
    g.bench_function("stream_4k", |b| {
        b.iter(|| {
            i += 1;
            fill(1, i, &mut buf);
            buf[0]
        })
    });

    let mut i = 0u64;
    g.bench_function("code_object_elf", |b| {
        b.iter_batched_ref(
            || {
                i += 1;
                fill(1, i, &mut buf);
                buf.clone()
            },
            |bytes| {
                let mut u = Unstructured::new(bytes);
                let co = gen.code_object(&mut u).expect("default config generates");
                emit::elf_bytes(&co).len()
            },
            BatchSize::SmallInput,
        )
    });

    let mut i = 0u64;
    g.bench_function("valid_case_elf_asm_with_stream", |b| {
        b.iter(|| {
            i += 1;
            fill(1, i, &mut buf);
            let mut u = Unstructured::new(&buf);
            let case = gen
                .valid_case(&mut u, String::new())
                .expect("default config generates");
            case.elf.len() + case.asm.len()
        })
    });
    g.finish();

    // SMEM streams: fixed-length streams, so the throughput is exact.
    const LEN: usize = 4096;
    let cfg = Config {
        smem_min_len: LEN,
        smem_max_len: LEN,
        ..Config::default()
    };
    let mut g = c.benchmark_group("gen");
    g.throughput(Throughput::Elements(LEN as u64));
    g.sample_size(20);
    g.measurement_time(std::time::Duration::from_secs(3));
    for name in ["gfx803", "gfx900", "gfx1030", "gfx1100", "gfx1200"] {
        let t = targets::by_name(name).expect("known processor");
        let mut bytes = vec![0u8; 1 << 17];
        // The stream draws from these bytes without running out, so the
        // figure is not that of a degenerate all-zero tail.
        fill(2, 0, &mut bytes);
        let mut u = Unstructured::new(&bytes);
        let s = smem::arbitrary_stream(&mut u, &cfg, t).expect("SMEM family");
        assert_eq!(s.smem_count, LEN);
        assert!(
            !u.is_empty(),
            "{name}: 128 KiB do not suffice for {LEN} instructions"
        );
        let mut i = 0u64;
        g.bench_function(format!("smem_{name}"), |b| {
            b.iter_batched_ref(
                || {
                    i += 1;
                    fill(2, i, &mut bytes);
                    bytes.clone()
                },
                |bytes| {
                    let mut u = Unstructured::new(bytes);
                    smem::arbitrary_stream(&mut u, &cfg, t)
                        .expect("SMEM family")
                        .smem_count
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
