//! A counting global allocator, so that a target can check the oracle's
//! memory bound on every input (DESIGN.md: never unbounded memory; the
//! bound itself is `tests/check_robustness.rs`'s).
//!
//! Counts are kept per thread, so that tests running in parallel threads
//! each measure their own input. The fuzz targets and the crate's own
//! test binary install [`Counting`] as the global allocator; when it is
//! not installed, [`measure`] reports 0 and [`installed`] says so.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting the bytes each thread holds.
pub struct Counting;

thread_local! {
    // Const-initialised cells without destructors: safe to touch from
    // inside the allocator (no lazy initialisation that would allocate).
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn grow(n: usize) {
    let _ = CURRENT.try_with(|c| {
        let now = c.get().wrapping_add(n as isize);
        c.set(now);
        let _ = PEAK.try_with(|p| {
            if now > p.get() {
                p.set(now);
            }
        });
    });
}

fn shrink(n: usize) {
    let _ = CURRENT.try_with(|c| c.set(c.get().wrapping_sub(n as isize)));
}

// SAFETY: every method forwards to the system allocator with the same
// arguments; the bookkeeping touches only thread-local cells.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        grow(l.size());
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        grow(l.size());
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        shrink(l.size());
        // SAFETY: as above.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        // Count the old and the new block at once, as a copying realloc
        // holds both (this is what `tests/check_robustness.rs` measures).
        grow(new);
        shrink(l.size());
        // SAFETY: as above.
        unsafe { System.realloc(p, l, new) }
    }
}

/// Runs `f` and returns its result with the most bytes this thread held
/// at once during `f`, beyond what it held before.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let base = CURRENT.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let r = f();
    let peak = PEAK.with(Cell::get);
    (r, usize::try_from(peak.wrapping_sub(base)).unwrap_or(0))
}

/// True when [`Counting`] is the global allocator of this program.
pub fn installed() -> bool {
    let (b, n) = measure(|| std::hint::black_box(Box::new([0u8; 64])));
    drop(b);
    n >= 64
}
