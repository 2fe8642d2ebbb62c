//! Temporal-trace reservoir sampling, as `llvm-profdata merge` does it.
//!
//! Traces are kept in a reservoir of fixed size (default 100), filled in input order; a source
//! stream larger than the room left is shuffled and sampled into it. LLVM (22 and later; the
//! algorithm changed in llvm/llvm-project#152563, LLVM 19 samples differently) draws with a
//! default-seeded `std::mt19937` and libstdc++'s `uniform_int_distribution<uint64_t>`; we
//! reproduce both (Lemire's multiply-shift for ranges below 2^32 − 1, as libstdc++ since GCC 11
//! does), so the same inputs in the same order give the same traces as `llvm-profdata` 22's
//! single-threaded merge.

use crate::ir::{TemporalProfile, TemporalTrace};
use crate::sys::mt19937::Mt;

/// Reservoir of temporal traces.
#[derive(Debug, Clone)]
pub struct TraceReservoir {
    /// Maximum traces kept.
    pub reservoir_size: u64,
    /// Longer traces are cut to this many functions.
    pub max_trace_length: u64,
    profile: TemporalProfile,
    rng: Mt,
}

impl TraceReservoir {
    /// An empty reservoir with LLVM's options.
    pub fn new(reservoir_size: u64, max_trace_length: u64) -> Self {
        TraceReservoir {
            reservoir_size,
            max_trace_length,
            profile: TemporalProfile::default(),
            rng: Mt::new(5489),
        }
    }

    /// libstdc++'s `uniform_int_distribution<uint64_t>(0, hi)` over `mt19937`.
    fn uniform(&mut self, hi: u64) -> u64 {
        const URNG_RANGE: u64 = u32::MAX as u64;
        if hi < URNG_RANGE {
            // Downscaling with Lemire's method on 32-bit words.
            let range = (hi + 1) as u32;
            let mut product = u64::from(self.rng.next_u32()) * u64::from(range);
            let mut low = product as u32;
            if low < range {
                let threshold = range.wrapping_neg() % range;
                while low < threshold {
                    product = u64::from(self.rng.next_u32()) * u64::from(range);
                    low = product as u32;
                }
            }
            product >> 32
        } else if hi == URNG_RANGE {
            u64::from(self.rng.next_u32())
        } else {
            // Upscaling: combine a draw for the high part with one 32-bit word.
            loop {
                let high = self.uniform(hi / (URNG_RANGE + 1));
                let tmp = high.wrapping_mul(URNG_RANGE + 1);
                let ret = tmp.wrapping_add(u64::from(self.rng.next_u32()));
                if ret <= hi && ret >= tmp {
                    return ret;
                }
            }
        }
    }

    /// Adds the traces of one input whose own stream size was `src_stream_size` (1 for a raw
    /// profile), as LLVM 22's `InstrProfWriter::addTemporalProfileTraces` does: fill the
    /// reservoir first, then sample the rest of the source stream.
    ///
    /// A consequence of LLVM's algorithm that we keep for compatibility: a raw input carries a
    /// stream of one trace, so once the reservoir is full, traces of further raw inputs are
    /// counted in the stream size but never sampled in.
    pub fn add(&mut self, mut src: Vec<TemporalTrace>, src_stream_size: u64) {
        let cap = usize::try_from(self.reservoir_size).unwrap_or(usize::MAX);
        if self.profile.traces.len() > cap {
            self.profile.traces.truncate(cap);
        }
        let max = usize::try_from(self.max_trace_length).unwrap_or(usize::MAX);
        for t in &mut src {
            t.functions.truncate(max);
        }
        src.retain(|t| !t.functions.is_empty());
        if src.is_empty() {
            return;
        }
        let mut rest = src.into_iter();
        while self.profile.traces.len() < cap {
            match rest.next() {
                Some(t) => self.profile.traces.push(t),
                None => break,
            }
        }
        let mut rest: Vec<TemporalTrace> = rest.collect();
        self.shuffle(&mut rest);
        let mut it = rest.into_iter().peekable();
        let mut i = self.profile.traces.len() as u64;
        while i < src_stream_size && it.peek().is_some() {
            let r = self.uniform(i);
            if let Ok(slot) = usize::try_from(r)
                && slot < self.profile.traces.len()
                && let Some(t) = it.next()
            {
                self.profile.traces[slot] = t;
            }
            i += 1;
        }
        self.profile.stream_size = self.profile.stream_size.saturating_add(src_stream_size);
    }

    /// `llvm::shuffle`: for each position, swap with a later one chosen by `g() % size`.
    fn shuffle<T>(&mut self, v: &mut [T]) {
        let n = v.len();
        for first in 0..n {
            let size = (n - first) as u64;
            if size <= 1 {
                break;
            }
            let off = (u64::from(self.rng.next_u32()) % size) as usize;
            if off != 0 {
                v.swap(first, first + off);
            }
        }
    }

    /// The sampled traces.
    pub fn finish(self) -> TemporalProfile {
        self.profile
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(w: u64, f: &[u64]) -> TemporalTrace {
        TemporalTrace {
            weight: w,
            functions: f.to_vec(),
        }
    }

    #[test]
    fn raw_traces_fill_the_reservoir_then_only_count() {
        let mut r = TraceReservoir::new(2, 2);
        for i in 0..4u64 {
            r.add(vec![trace(1, &[i, i + 10, i + 20])], 1);
        }
        // Empty traces are dropped without counting.
        r.add(vec![trace(1, &[])], 1);
        let p = r.finish();
        assert_eq!(p.stream_size, 4);
        assert_eq!(p.traces, vec![trace(1, &[0, 10]), trace(1, &[1, 11])]);
    }

    #[test]
    fn sampled_sources_replace_slots() {
        let mut r = TraceReservoir::new(2, 10);
        let src: Vec<TemporalTrace> = (0..6u64).map(|i| trace(1, &[i])).collect();
        r.add(src, 50);
        let p = r.finish();
        assert_eq!(p.stream_size, 50);
        assert_eq!(p.traces.len(), 2);
    }
}
