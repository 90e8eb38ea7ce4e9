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

/// Checks `bytes` as `check` does (container scan, then every member) and
/// returns the peak extra allocation.
fn measured_check(bytes: &[u8]) -> usize {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let scan = container::scan(bytes);
    for m in &scan.members {
        let r = check_object(m.data);
        assert!(r.violations.len() <= hsaco_oracle::rules::MAX_VIOLATIONS);
        drop(r);
    }
    drop(scan);
    PEAK.load(Ordering::Relaxed).saturating_sub(base)
}

fn assert_bounded(bytes: &[u8]) {
    let peak = measured_check(bytes);
    assert!(
        peak <= budget(bytes.len()),
        "checking {} bytes allocated {peak} bytes at peak (budget {})",
        bytes.len(),
        budget(bytes.len())
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
