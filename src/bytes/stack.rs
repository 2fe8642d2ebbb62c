//! Recursion over input-shaped data without a depth limit of the thread's stack.
//!
//! Sample profiles nest inlined callees (and `--convert-sample-profile-layout=nest` nests
//! calling contexts) as deep as their input: llvm-profdata reads and writes 20,000 levels,
//! so a fixed depth limit either refuses what LLVM accepts or has to be small enough for
//! the smallest thread stack. The recursive walks over such trees call [`deep`] at each
//! level instead: when less than [`RED_ZONE`] bytes of the current stack are left it runs
//! the rest on a new stack segment of [`SEGMENT`] bytes, allocated from the heap (the
//! `stacker` crate, which rustc uses for the same purpose). Depth is then bounded by
//! memory, in proportion to the tree being walked (which is itself in memory), on every
//! thread: the main one under an 8 MiB limit, the pool's, a reader's.

/// Stack bytes left below which [`deep`] switches to a new segment: more than one level of
/// any walk uses between two calls, debug builds and formatting included.
pub const RED_ZONE: usize = 256 * 1024;

/// Size of each new stack segment (bytes); its pages are touched only as it is used, but
/// the whole is mapped (and counts against an address-space limit), so it is kept small.
pub const SEGMENT: usize = 1024 * 1024;

/// Runs `f`, on a new stack segment if this one is nearly used up. Call it around each
/// recursive step of a walk whose depth the input decides.
#[inline]
pub fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        // A frame of a few KiB, so that a thread of 256 KiB could not hold 100,000 of them.
        let pad = std::hint::black_box([n as u8; 2048]);
        deep(|| depth(n - 1)) + u64::from(pad[0] != 0)
    }

    #[test]
    fn recursion_outgrows_a_small_thread_stack() {
        let t = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| depth(100_000))
            .unwrap();
        assert!(t.join().unwrap() > 0);
    }
}
