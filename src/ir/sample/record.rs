//! One body sample: a count and the functions called from that location.

use std::collections::BTreeMap;

use super::{FunctionId, saturating_mul_add};

/// Call targets of one location: callee → number of samples of calls to it.
pub type CallTargets = BTreeMap<FunctionId, u64>;

/// The samples of one location of a function body (LLVM's `SampleRecord`).
///
/// `samples` counts the samples taken at the location; `call_targets` the calls made from
/// it, per callee (several for indirect calls). The two are independent: the targets need
/// not add up to `samples`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SampleRecord {
    /// Samples at this location.
    pub samples: u64,
    /// Samples per called function.
    pub call_targets: CallTargets,
}

impl SampleRecord {
    /// Adds `samples * weight`, saturating; true if it saturated.
    pub fn add_samples(&mut self, samples: u64, weight: u64) -> bool {
        let (v, o) = saturating_mul_add(samples, weight, self.samples);
        self.samples = v;
        o
    }

    /// Adds `samples * weight` calls to `target`, saturating; true if it saturated.
    pub fn add_call_target(&mut self, target: FunctionId, samples: u64, weight: u64) -> bool {
        let slot = self.call_targets.entry(target).or_insert(0);
        let (v, o) = saturating_mul_add(samples, weight, *slot);
        *slot = v;
        o
    }

    /// The call targets in the order LLVM writes them: most samples first, equal counts by
    /// [`FunctionId`] order.
    pub fn sorted_call_targets(&self) -> Vec<(&FunctionId, u64)> {
        let mut v: Vec<(&FunctionId, u64)> =
            self.call_targets.iter().map(|(f, c)| (f, *c)).collect();
        // The map is already in FunctionId order; a stable sort by count keeps it for ties.
        v.sort_by_key(|t| std::cmp::Reverse(t.1));
        v
    }

    /// Sum of the call-target counts, wrapping on overflow as LLVM's `getCallTargetSum` does.
    pub fn call_target_sum(&self) -> u64 {
        self.call_targets
            .values()
            .fold(0u64, |a, c| a.wrapping_add(*c))
    }
}
