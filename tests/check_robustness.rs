//! `check` on hostile input: random bytes, and real code objects with bytes
//! flipped, fields set to extreme values, and truncations. The oracle must
//! never panic, and the memory it allocates for one input must stay within
//! a fixed multiple of the input's size (measured by a counting allocator).

mod support;

use hsaco_oracle::check::check_object;
use hsaco_oracle::container;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged; only counts bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        CURRENT.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Tests in this binary run one at a time, so the peak belongs to the
/// input being measured.
static SERIAL: Mutex<()> = Mutex::new(());

/// Allowed peak allocation for checking `n` bytes: the typed model holds at
/// most a few copies of what the file holds, plus a fixed allowance for
/// the rule catalogue, messages and small tables.
fn budget(n: usize) -> usize {
    16 * n + (1 << 20)
}

/// Ceiling on one compressed bundle's uncompressed size in these tests
/// (the API's override of [`container::DEFAULT_UNPACK_LIMIT`]).
const LIMIT: u64 = 1 << 16;

/// Allowance for an input holding compressed bundles: the one decompressed
/// bundle alive (at most `limit`) and the check of its members (within
/// [`budget`] of its size).
fn unpack_allowance(limit: u64) -> usize {
    17 * limit as usize
}

/// Checks `bytes` as `check` does (container scan, then every member, each
/// compressed bundle unpacked in turn with ceiling `limit`) and returns
/// the peak extra allocation and whether a compressed bundle was found.
fn measured_check(bytes: &[u8], limit: u64) -> (usize, bool) {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let scan = container::scan(bytes);
    scan.for_each(limit, &mut |v| {
        if let container::Visit::Members(ms) = v {
            for m in ms {
                assert_counted(&check_object(m.data));
            }
        }
    });
    let unpacks = !scan.compressed.is_empty();
    drop(scan);
    (PEAK.load(Ordering::Relaxed).saturating_sub(base), unpacks)
}

/// Info findings are kept up to the cap per rule; whatever is left out
/// (past the cap, or past the bound on kept findings that hostile input
/// reaches) is counted under its rule and severity.
fn assert_counted(r: &hsaco_oracle::check::ObjectReport) {
    for o in &r.omitted {
        assert!(o.count > 0, "{}", o.rule.id);
        assert_eq!(o.severity, o.rule.severity, "{}", o.rule.id);
    }
    let mut infos = std::collections::HashMap::new();
    for v in r
        .violations
        .iter()
        .filter(|v| v.severity == hsaco_oracle::Severity::Info)
    {
        *infos.entry(v.rule.id).or_insert(0usize) += 1;
    }
    for (rule, n) in infos {
        assert!(
            n <= hsaco_oracle::rules::MAX_INFOS_PER_RULE,
            "{rule}: {n} kept"
        );
    }
}

fn assert_bounded(bytes: &[u8]) {
    let (peak, unpacks) = measured_check(bytes, LIMIT);
    let allowed = budget(bytes.len()) + if unpacks { unpack_allowance(LIMIT) } else { 0 };
    assert!(
        peak <= allowed,
        "checking {} bytes allocated {peak} bytes at peak (budget {allowed})",
        bytes.len(),
    );
}

/// A few real objects to mutate: V3 (llc-14), V5, V6 generic, relocatable,
/// and code object V2 (llc-14; amd_kernel_code_t, YAML metadata), linked
/// and relocatable.
fn seeds() -> Vec<Vec<u8>> {
    let (Some(mut all), Some(v2)) = (support::fixtures::all(), support::fixtures::v2()) else {
        return Vec::new();
    };
    all.extend(v2);
    let want: [fn(&support::fixtures::Fixture) -> bool; 6] = [
        |f| f.cov == 3 && !f.relocatable,
        |f| f.cpu == "gfx90a" && f.cov == 5 && !f.relocatable && f.options.is_empty(),
        |f| f.cpu == "gfx11-generic" && !f.relocatable,
        |f| f.cpu == "gfx1030" && f.relocatable,
        |f| {
            f.cov == 2
                && f.cpu == "gfx900"
                && !f.relocatable
                && f.options.is_empty()
                && f.name.contains("kernels.ll")
        },
        |f| f.cov == 2 && f.cpu == "gfx701" && f.relocatable && f.name.contains("initial_state"),
    ];
    want.iter()
        .map(|p| std::fs::read(&all.iter().find(|f| p(f)).expect("seed fixture").path).unwrap())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(mut bytes in proptest::collection::vec(any::<u8>(), 0..4096), elf in any::<bool>()) {
        let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        if elf && bytes.len() >= 64 {
            // Make the header plausible so deeper layers are reached.
            bytes[..4].copy_from_slice(b"\x7fELF");
            bytes[4] = 2;
            bytes[5] = 1;
            bytes[7] = 64;
            bytes[8] %= 5;
            bytes[18] = 224;
            bytes[19] = 0;
        }
        assert_bounded(&bytes);
    }
}

#[test]
fn mutated_real_objects_never_panic_and_stay_bounded() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let seeds = seeds();
    if seeds.is_empty() {
        return;
    }
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let extremes = [0u64, 1, 0x7f, 0xff, 0xffff, 0xffff_ffff, u64::MAX, 1 << 62];
    for seed in &seeds {
        // Every truncation point in the header area and a spread beyond.
        for cut in (0..seed.len())
            .step_by(1.max(seed.len() / 512))
            .chain(0..256)
        {
            assert_bounded(&seed[..cut.min(seed.len())]);
        }
        // Extreme values written at every 8-byte-aligned offset of the
        // headers, notes, symbol tables and descriptors region.
        for off in (0..seed.len().min(1 << 16)).step_by(8) {
            for v in extremes {
                let mut m = seed.clone();
                let end = (off + 8).min(m.len());
                m[off..end].copy_from_slice(&v.to_le_bytes()[..end - off]);
                assert_bounded(&m);
            }
        }
        // Random byte flips.
        for _ in 0..2000 {
            let mut m = seed.clone();
            let flips = proptest::collection::vec((0..m.len(), any::<u8>()), 1..8)
                .new_tree(&mut runner)
                .unwrap()
                .current();
            for (i, b) in flips {
                m[i] ^= b | 1;
            }
            assert_bounded(&m);
        }
    }
}

use support::ccob::{self as cb, Method};

const METHODS: [Method; 2] = [Method::Zlib, Method::Zstd];

/// Problems `check` would report for `bytes`: the scan's structural errors
/// and the compressed bundles that could not be unpacked or read.
fn problems(bytes: &[u8], limit: u64) -> Vec<String> {
    let scan = container::scan(bytes);
    let mut out = scan.errors.clone();
    scan.for_each(limit, &mut |v| {
        if let container::Visit::Failed { error, .. } = v {
            out.push(error);
        }
    });
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Any bytes after the magic, with a known or unknown version and method.
    #[test]
    fn bytes_after_a_ccob_magic_never_panic_and_stay_bounded(
        version in prop_oneof![1u16..=3, any::<u16>()],
        method in prop_oneof![0u16..=1, any::<u16>()],
        rest in proptest::collection::vec(any::<u8>(), 0..600),
    ) {
        let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let mut d = b"CCOB".to_vec();
        d.extend(version.to_le_bytes());
        d.extend(method.to_le_bytes());
        d.extend(rest);
        assert_bounded(&d);
    }

    /// A well-formed compressed bundle of every version and method with a
    /// few bytes overwritten anywhere (header fields, stream).
    #[test]
    fn damaged_compressed_bundles_never_panic_and_stay_bounded(
        version in 1u16..=3,
        zstd in any::<bool>(),
        payload in proptest::collection::vec(any::<u8>(), 0..2000),
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6),
    ) {
        let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let method = if zstd { Method::Zstd } else { Method::Zlib };
        let mut d = cb::ccob(version, method, &cb::bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx90a", &payload)]));
        let n = d.len();
        for (i, b) in flips {
            d[i % n] ^= b | 1;
        }
        assert_bounded(&d);
    }
}

#[test]
fn compressed_real_object_truncations_and_extreme_fields_are_errors_and_bounded() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let seeds = seeds();
    let Some(object) = seeds.get(1) else { return };
    let inner = cb::bundle(&[
        ("host-x86_64-unknown-linux-gnu-", b""),
        ("hipv4-amdgcn-amd-amdhsa--gfx90a", object),
    ]);
    let limit = inner.len() as u64;
    let extremes = [0u64, 1, 0x7f, 0xffff, 0xffff_ffff, u64::MAX, 1 << 63];
    for version in 1..=3 {
        for method in METHODS {
            let good = cb::ccob(version, method, &inner);
            let ctx = format!("v{version} {method:?}");
            assert!(problems(&good, limit).is_empty(), "{ctx}");
            // Every truncation point is reported, never a panic or a
            // silently shorter list.
            for cut in 4..good.len() {
                let p = problems(&good[..cut], limit);
                assert!(!p.is_empty(), "{ctx} cut at {cut} went unreported");
                assert!(p.iter().all(|e| !e.contains('\n')), "{ctx}: {p:?}");
                let (peak, _) = measured_check(&good[..cut], limit);
                assert!(
                    peak <= budget(cut) + unpack_allowance(limit),
                    "{ctx} cut {cut}: {peak}"
                );
            }
            // Extreme values over every header field.
            for off in 4..32 {
                for v in extremes {
                    let mut m = good.clone();
                    m[off..off + 8].copy_from_slice(&v.to_le_bytes());
                    let (peak, _) = measured_check(&m, limit);
                    assert!(
                        peak <= budget(m.len()) + unpack_allowance(limit),
                        "{ctx} {off} {v:#x}: {peak}"
                    );
                }
            }
        }
    }
}

#[test]
fn decompression_bombs_stop_at_the_ceiling() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // 32 MiB of zeros in a few KiB: 512 times the ceiling.
    let big = 32u64 << 20;
    for method in METHODS {
        let stream = cb::zeros(method, big);
        assert!(stream.len() < (64 << 10), "{method:?}: {}", stream.len());
        // The header tells the truth: refused before decompressing.
        let honest = cb::raw(3, method.code(), None, big, &stream);
        // The header declares at most the ceiling, the stream says more
        // (no content size in the frame, so only decompressing finds out).
        let lying = cb::raw(3, method.code(), None, LIMIT, &stream);
        // A version-3 uncompressed size of 2^63.
        let huge = cb::raw(3, method.code(), None, 1 << 63, &stream);
        for (name, d, want) in [
            ("honest", &honest, "above the 65536-byte limit"),
            (
                "lying",
                &lying,
                "stream decompresses to more than the declared 65536 bytes",
            ),
            (
                "huge",
                &huge,
                "declares 9223372036854775808 bytes uncompressed, above",
            ),
        ] {
            let p = problems(d, LIMIT);
            assert_eq!(p.len(), 1, "{method:?} {name}: {p:?}");
            assert!(p[0].contains(want), "{method:?} {name}: {}", p[0]);
            let (peak, _) = measured_check(d, LIMIT);
            // The output buffer is the declared size at most; nothing grows.
            assert!(
                peak <= budget(d.len()) + LIMIT as usize,
                "{method:?} {name}: {peak} bytes at peak"
            );
        }
        // The default ceiling refuses 2^63 just the same, allocating nothing.
        let p = problems(&huge, container::DEFAULT_UNPACK_LIMIT);
        assert!(p[0].contains("above the 1073741824-byte limit"), "{}", p[0]);
    }
    // A frame that states its content size is refused before the output
    // buffer exists.
    let framed = cb::raw(
        3,
        Method::Zstd.code(),
        None,
        LIMIT,
        &cb::compress(Method::Zstd, &vec![0u8; 1 << 20]),
    );
    let p = problems(&framed, LIMIT);
    assert!(
        p[0].contains("zstd frames declare at least 1048576 bytes"),
        "{}",
        p[0]
    );
    let (peak, _) = measured_check(&framed, LIMIT);
    assert!(peak <= budget(framed.len()), "{peak}");
}

/// The gfx90a V5 fixture (linked), to build hostile variants from.
fn gfx90a() -> Option<support::elfedit::Obj> {
    let f = support::fixtures::gfx90a_v5()?;
    Some(support::elfedit::Obj::new(std::fs::read(&f.path).unwrap()))
}

/// Peak allocation of checking `bytes`, and the report, for a test that
/// also wants the findings.
fn checked(bytes: &[u8]) -> (usize, hsaco_oracle::check::ObjectReport) {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let r = check_object(bytes);
    (PEAK.load(Ordering::Relaxed).saturating_sub(base), r)
}

/// Findings of `rule`, kept and omitted.
fn count(r: &hsaco_oracle::check::ObjectReport, rule: &str) -> usize {
    r.violations.iter().filter(|v| v.rule.id == rule).count()
        + r.omitted
            .iter()
            .filter(|o| o.rule.id == rule)
            .map(|o| o.count)
            .sum::<usize>()
}

/// Errors are not capped, so one 24-byte symbol per error must not cost
/// kilobytes: thousands of duplicate descriptor symbols sharing one long
/// name give one error each, every one kept, within the memory bound.
#[test]
fn thousands_of_errors_from_one_long_name_stay_bounded() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mut o) = gfx90a() else { return };
    let symtab = o.section(".symtab");
    let strtab = o.sections()[symtab.link as usize].clone();
    let kd = o
        .symbols()
        .into_iter()
        .find(|s| s.name.ends_with(".kd"))
        .unwrap();
    let mut strs = o.bytes[strtab.offset as usize..(strtab.offset + strtab.size) as usize].to_vec();
    let long_at = strs.len() as u32;
    strs.extend(std::iter::repeat_n(b'k', 4000));
    strs.extend(b".kd\0");
    let mut syms = o.bytes[symtab.offset as usize..(symtab.offset + symtab.size) as usize].to_vec();
    let entry: Vec<u8> = o.bytes[kd.at..kd.at + 24].to_vec();
    let copies = 4000;
    for _ in 0..copies {
        let mut e = entry.clone();
        e[..4].copy_from_slice(&long_at.to_le_bytes());
        syms.extend(e);
    }
    o.replace_section(".strtab", &strs);
    o.replace_section(".symtab", &syms);
    let (peak, r) = checked(&o.bytes);
    assert_eq!(count(&r, "symbol.kd.duplicate"), copies - 1);
    assert!(
        peak <= budget(o.bytes.len()),
        "{} bytes: peak {peak}, budget {}",
        o.bytes.len(),
        budget(o.bytes.len())
    );
}

/// A metadata note whose one kernel has 100,000 argument maps of one byte
/// each (`{}`, three required keys missing in each): all 300,000 errors
/// are counted, and the ones kept fit the sink's bound for the object's
/// size. (The decoded metadata model itself takes about 300 bytes per such
/// argument, beyond `budget`; that is the metadata layer's to bound, so
/// this test measures the findings only.)
#[test]
fn a_hundred_thousand_empty_arguments_are_all_counted() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mut o) = gfx90a() else { return };
    let kernel = o.kernels()[0].clone();
    let args = 100_000u32;
    let mut md = vec![0x82]; // map of 2
    md.extend(msgpack_str("amdhsa.version"));
    md.extend([0x92, 1, 2]);
    md.extend(msgpack_str("amdhsa.kernels"));
    md.push(0x91); // one kernel
    md.push(0x83); // map of 3
    md.extend(msgpack_str(".name"));
    md.extend(msgpack_str(&kernel));
    md.extend(msgpack_str(".symbol"));
    md.extend(msgpack_str(&format!("{kernel}.kd")));
    md.extend(msgpack_str(".args"));
    md.push(0xdd);
    md.extend(args.to_be_bytes());
    md.extend(std::iter::repeat_n(0x80u8, args as usize));
    let note = support::elfedit::Obj::note("AMDGPU", 32, &md);
    let sec = o
        .sections()
        .into_iter()
        .find(|s| s.sh_type == 7)
        .expect("note section");
    o.replace_section(&sec.name, &note);
    let r = check_object(&o.bytes);
    assert_eq!(count(&r, "metadata.arg.missing_key"), 3 * args as usize);
    let kept_bytes: usize = r
        .violations
        .iter()
        .map(|v| {
            std::mem::size_of_val(v)
                + v.message.capacity()
                + v.kernel.as_ref().map_or(0, String::len)
        })
        .sum();
    // Past the bound, each rule may still keep its first finding.
    let rules: std::collections::HashSet<&str> = r.violations.iter().map(|v| v.rule.id).collect();
    let bound = o.bytes.len() * hsaco_oracle::rules::KEPT_BYTES_PER_INPUT_BYTE
        + hsaco_oracle::rules::KEPT_BYTES_BASE
        + rules.len() * hsaco_oracle::rules::FIRST_OF_RULE_BYTES;
    assert!(kept_bytes <= bound, "{kept_bytes} > {bound}");
    let omitted = r
        .omitted
        .iter()
        .find(|o| o.rule.id == "metadata.arg.missing_key")
        .expect("omitted errors counted");
    assert_eq!(omitted.severity, hsaco_oracle::Severity::Error);
    assert!(omitted.count > 2 * args as usize, "{}", omitted.count);
}

fn msgpack_str(s: &str) -> Vec<u8> {
    assert!(s.len() < 256);
    let mut v = if s.len() < 32 {
        vec![0xa0 | s.len() as u8]
    } else {
        vec![0xd9, s.len() as u8]
    };
    v.extend(s.as_bytes());
    v
}
