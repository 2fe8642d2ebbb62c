//! Temporal-trace reservoir sampling, as `llvm-profdata merge` does it.
//!
//! Traces are kept in a reservoir of fixed size (default 100). Once it is full, each new trace
//! replaces a uniformly chosen slot `r ∈ [0, stream_size]` if `r` is inside the reservoir.
//! LLVM draws `r` with a default-seeded `std::mt19937` and libstdc++'s
//! `uniform_int_distribution<uint64_t>`; we reproduce both (Lemire's multiply-shift for ranges
//! below 2^32 − 1, as libstdc++ since GCC 11 does), so the same inputs in the same order give
//! the same traces as LLVM's single-threaded merge.

use rand_mt::Mt;

use crate::ir::{TemporalProfile, TemporalTrace};

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

    fn add_trace(&mut self, trace: TemporalTrace) {
        if self.profile.stream_size < self.reservoir_size {
            self.profile.traces.push(trace);
        } else {
            let r = self.uniform(self.profile.stream_size);
            if let Some(slot) = usize::try_from(r)
                .ok()
                .and_then(|i| self.profile.traces.get_mut(i))
            {
                *slot = trace;
            }
        }
        self.profile.stream_size += 1;
    }

    /// Adds the traces of one input whose own stream size was `src_stream_size`.
    pub fn add(&mut self, mut src: Vec<TemporalTrace>, mut src_stream_size: u64) {
        let max = usize::try_from(self.max_trace_length).unwrap_or(usize::MAX);
        for t in &mut src {
            t.functions.truncate(max);
        }
        src.retain(|t| !t.functions.is_empty());
        let mut dest_sampled = self.profile.stream_size > self.reservoir_size;
        let mut src_sampled = src_stream_size > self.reservoir_size;
        if !dest_sampled && src_sampled {
            std::mem::swap(&mut self.profile.traces, &mut src);
            std::mem::swap(&mut self.profile.stream_size, &mut src_stream_size);
            std::mem::swap(&mut dest_sampled, &mut src_sampled);
        }
        if !src_sampled {
            for t in src {
                self.add_trace(t);
            }
            return;
        }
        // Both sampled: find the slots the whole source stream would have replaced, then fill
        // them with a shuffled sample of the source traces.
        let mut replace: Vec<usize> = Vec::new();
        for _ in 0..src_stream_size {
            let r = self.uniform(self.profile.stream_size);
            if let Ok(i) = usize::try_from(r)
                && i < self.profile.traces.len()
                && !replace.contains(&i)
            {
                replace.push(i);
            }
            self.profile.stream_size += 1;
        }
        // llvm::shuffle: for each position, swap with a later one chosen by `g() % size`.
        let n = src.len();
        for first in 0..n {
            let size = (n - first) as u64;
            if size <= 1 {
                break;
            }
            let off = (u64::from(self.rng.next_u32()) % size) as usize;
            if off != 0 {
                src.swap(first, first + off);
            }
        }
        for (i, t) in replace.into_iter().zip(src) {
            self.profile.traces[i] = t;
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
    fn appends_until_full_then_samples() {
        let mut r = TraceReservoir::new(2, 2);
        for i in 0..4u64 {
            r.add(vec![trace(1, &[i, i + 10, i + 20])], 1);
        }
        r.add(vec![trace(1, &[])], 1);
        let p = r.finish();
        assert_eq!(p.stream_size, 4);
        assert_eq!(p.traces.len(), 2);
        assert!(p.traces.iter().all(|t| t.functions.len() == 2));
    }

    #[test]
    fn mt19937_default_seed_matches_the_standard() {
        // The C++ standard requires the 10000th output of a default mt19937 to be 4123659995.
        let mut m = Mt::new(5489);
        let mut v = 0;
        for _ in 0..10000 {
            v = m.next_u32();
        }
        assert_eq!(v, 4_123_659_995);
    }
}
