//! Pruning a sample profile to an output size (`merge --sample --output-size-limit=N`), as
//! LLVM's `SampleProfileWriter::writeWithSizeLimit` does with its default strategy
//! (`DefaultFunctionPruningStrategy`).
//!
//! The driver writes the profile; while the bytes written are more than the limit, it asks
//! [`SizeLimitPruner::prune`] to drop the coldest top-level profiles and writes again. The
//! order of coldness is fixed once, before the first write: the order LLVM writes profiles
//! in (most total samples first, equal totals by context), coldest last. Each round keeps
//! `round(n × (limit / size)²)` of the `n` profiles left (at least one fewer), computed in
//! double precision as LLVM computes it. When no profile is left the limit cannot be met
//! (LLVM's "Too much profile data").
//!
//! Dropped profiles are recorded in [`SampleProfile::erased`], so that a writer replaying
//! the iteration order of LLVM's map sees the map as LLVM left it after erasing them.

use crate::ir::sample::{SampleContext, SampleProfile};

/// The profiles of a size-limited write, hottest first, and the limit.
#[derive(Debug, Clone)]
pub struct SizeLimitPruner {
    /// Top-level contexts still in the profile, in LLVM's writing order (coldest last).
    sorted: Vec<SampleContext>,
    limit: u64,
}

impl SizeLimitPruner {
    /// A pruner of `profile` for a limit of `limit` bytes (> 0).
    pub fn new(profile: &SampleProfile, limit: u64) -> Self {
        SizeLimitPruner {
            sorted: profile
                .sorted()
                .into_iter()
                .map(|(c, _)| c.clone())
                .collect(),
            limit,
        }
    }

    /// How many of `n` profiles LLVM drops after a write of `written` bytes (> limit).
    pub fn to_remove(n: usize, limit: u64, written: u64) -> usize {
        let d = limit as f64 / written as f64;
        // LLVM: (size_t)round(ProfileMap.size() * D * D), evaluated left to right.
        let keep = ((n as f64) * d * d).round() as usize;
        n.saturating_sub(keep).max(1)
    }

    /// Drops the coldest profiles of `profile` after a write of `written` bytes that was
    /// over the limit; returns how many were dropped.
    pub fn prune(&mut self, profile: &mut SampleProfile, written: u64) -> usize {
        let remove =
            Self::to_remove(profile.functions.len(), self.limit, written).min(self.sorted.len());
        let cut = self.sorted.len() - remove;
        for context in self.sorted.drain(cut..) {
            profile.functions.remove(&context);
            profile.erased.push(context);
        }
        remove
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::sample::FunctionId;

    fn profile(totals: &[(&str, u64)]) -> SampleProfile {
        let mut p = SampleProfile::new();
        for (name, total) in totals {
            let ctx = SampleContext::Function(FunctionId::name(name.as_bytes()));
            p.insertion_order.push(ctx.clone());
            p.entry(ctx).total_samples = *total;
        }
        p
    }

    #[test]
    fn removes_as_llvm_computes() {
        // 10 profiles, half the size: keep round(10 * 0.25) = round(2.5) = 3.
        assert_eq!(SizeLimitPruner::to_remove(10, 50, 100), 7);
        // Nearly fitting: at least one goes.
        assert_eq!(SizeLimitPruner::to_remove(10, 99, 100), 1);
        assert_eq!(SizeLimitPruner::to_remove(1, 1, 1000), 1);
    }

    #[test]
    fn drops_the_coldest_first_ties_by_name() {
        let mut p = profile(&[("a", 5), ("b", 9), ("c", 5), ("d", 1)]);
        let mut pruner = SizeLimitPruner::new(&p, 99);
        assert_eq!(pruner.prune(&mut p, 100), 1);
        assert!(
            !p.functions
                .contains_key(&SampleContext::Function(FunctionId::name(b"d")))
        );
        // 3 left, 200 bytes for 99: keep round(3 × 0.495²) = round(0.735) = 1; "a", "c" go.
        assert_eq!(pruner.prune(&mut p, 200), 2);
        let left: Vec<String> = p.functions.keys().map(|k| k.to_string()).collect();
        assert_eq!(left, ["b"]);
        let erased: Vec<String> = p.erased.iter().map(|k| k.to_string()).collect();
        assert_eq!(erased, ["d", "a", "c"]);
    }
}
