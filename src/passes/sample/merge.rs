//! Weighted merge of sample profiles, as `llvm-profdata merge --sample` merges them.
//!
//! Inputs are folded in order into one profile ([`SampleMerger`]): each top-level profile
//! is merged into the profile of the same context
//! ([`crate::ir::sample::FunctionSamples::merge_from`], LLVM's `FunctionSamples::merge`):
//! every count is multiplied by the input's weight and added,
//! saturating at `u64::MAX`. The first input to bring a function sets its checksum (if
//! non-zero) and attributes; a later one whose checksum differs is not merged at all (LLVM's
//! "Function hash mismatch"), at top level or for one inlined callee. Both cases are
//! reported and the merge goes on, as in LLVM.
//!
//! A context-sensitive input cannot be merged with a flat or nested one, nor a probe-based
//! input with one that is not: that is an error, as in LLVM.

use crate::codec::unordered_order::merged_insertion_order;
use std::collections::hash_map::Entry;

use crate::error::{Error, ErrorKind, Result};
pub use crate::ir::sample::MergeIssueKind as IssueKind;
use crate::ir::sample::{SampleContext, SampleProfile};

/// A problem met while merging one function, reported as LLVM reports it
/// (`INPUT: FUNCTION: message`) and not fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeIssue {
    /// Index of the input in the order inputs were added.
    pub input: usize,
    /// The top-level context concerned.
    pub context: SampleContext,
    /// What happened.
    pub kind: IssueKind,
}

/// Folds weighted sample profiles, in order, into one.
#[derive(Debug, Default)]
pub struct SampleMerger {
    profile: SampleProfile,
    inputs: usize,
    issues: Vec<MergeIssue>,
}

impl SampleMerger {
    /// An empty merge.
    pub fn new() -> Self {
        Self::default()
    }

    /// Merges `input`, every count multiplied by `weight` (≥ 1). Errors if the input's kind
    /// (context-sensitive, probe-based) differs from the earlier inputs'.
    pub fn add(&mut self, mut input: SampleProfile, weight: u64) -> Result<()> {
        let index = self.inputs;
        if index > 0 {
            let (had, new) = (self.profile.flags, input.flags);
            if had.probe_based != new.probe_based {
                return Err(Error::new(ErrorKind::KindConflict(
                    "cannot merge probe-based profile with non-probe-based profile".into(),
                )));
            }
            if had.context_sensitive != new.context_sensitive {
                return Err(Error::new(ErrorKind::KindConflict(
                    "cannot merge CS profile with non-CS profile".into(),
                )));
            }
        }
        self.inputs += 1;
        // Profile-level flags are those of the last input read, as LLVM's statics are.
        let flags = input.flags;
        self.profile.flags = flags;
        if let Some(list) = input.symbol_list.take() {
            let dst = self
                .profile
                .symbol_list
                .get_or_insert_with(Default::default);
            dst.names.extend(list.names);
            dst.compress |= list.compress;
        }
        // LLVM fills its merged map in each input map's iteration order; the extbinary
        // writer replays that map's order from this record.
        for context in merged_insertion_order([&input]) {
            if !self.profile.functions.contains_key(&context) {
                self.profile.insertion_order.push(context);
            }
        }
        for (context, mut samples) in input.functions {
            let issue = match self.profile.functions.entry(context) {
                Entry::Vacant(e) => {
                    let over = samples.scale(weight);
                    let context = e.key().clone();
                    e.insert(samples);
                    over.then_some((context, IssueKind::CounterOverflow))
                }
                Entry::Occupied(mut e) => e
                    .get_mut()
                    .merge_from(samples, weight, false)
                    .map(|k| (e.key().clone(), k)),
            };
            if let Some((context, kind)) = issue {
                self.issues.push(MergeIssue {
                    input: index,
                    context,
                    kind,
                });
            }
        }
        Ok(())
    }

    /// Inputs merged so far.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// The merged profile and the problems met, in the order met.
    pub fn finish(self) -> (SampleProfile, Vec<MergeIssue>) {
        (self.profile, self.issues)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::sample::{FunctionId, FunctionSamples, LineLocation};

    fn fs(total: u64, checksum: u64) -> FunctionSamples {
        let mut f = FunctionSamples::new(FunctionId::name(b"f"));
        f.total_samples = total;
        f.checksum = checksum;
        let r = f.body.entry(LineLocation::new(1, 0)).or_default();
        r.samples = total;
        r.call_targets.insert(FunctionId::name(b"g"), 2);
        f
    }

    #[test]
    fn weights_multiply_and_saturate() {
        let mut d = fs(10, 0);
        assert_eq!(d.merge(&fs(5, 0), 3, false), None);
        assert_eq!(d.total_samples, 25);
        assert_eq!(
            d.body[&LineLocation::new(1, 0)].call_targets[&FunctionId::name(b"g")],
            8
        );
        assert_eq!(
            d.merge(&fs(u64::MAX, 0), 2, false),
            Some(IssueKind::CounterOverflow)
        );
        assert_eq!(d.total_samples, u64::MAX);
    }

    #[test]
    fn checksum_mismatch_merges_nothing() {
        let mut d = fs(10, 7);
        assert_eq!(d.merge(&fs(5, 8), 1, false), Some(IssueKind::HashMismatch));
        assert_eq!(d.total_samples, 10);
        // A missing checksum against a present one is a mismatch too, as in LLVM.
        assert_eq!(d.merge(&fs(5, 0), 1, false), Some(IssueKind::HashMismatch));
        let mut z = fs(1, 0);
        assert_eq!(z.merge(&fs(1, 9), 1, false), None);
        assert_eq!(z.checksum, 9);
    }
}

#[cfg(test)]
mod owned {
    use crate::ir::sample::{FunctionId, FunctionSamples, LineLocation};

    /// A function with inlined callees, some counts near saturation.
    fn tree(seed: u64) -> FunctionSamples {
        let mut f = FunctionSamples::new(FunctionId::name(b"f"));
        f.total_samples = seed * 1000;
        f.checksum = if seed.is_multiple_of(3) { 0 } else { 7 };
        for i in 0..4 {
            let r = f
                .body
                .entry(LineLocation::new((i * seed % 5) as u32, 0))
                .or_default();
            r.samples = if i == 3 { u64::MAX / 2 } else { seed + i };
            r.call_targets.insert(
                FunctionId::name(format!("t{}", (i + seed) % 3).as_bytes()),
                i,
            );
        }
        let c = f.callee_mut(
            LineLocation::new((seed % 3) as u32, 1),
            &FunctionId::name(b"g"),
        );
        c.total_samples = seed;
        c.checksum = seed % 2;
        c.body.entry(LineLocation::new(1, 0)).or_default().samples = seed;
        f
    }

    #[test]
    fn owned_merge_is_the_borrowed_merge() {
        for w in [1, 2, 3] {
            for a in 1..7 {
                for b in 1..7 {
                    let mut x = tree(a);
                    let mut y = tree(a);
                    let rx = x.merge(&tree(b), w, false);
                    let ry = y.merge_from(tree(b), w, false);
                    assert_eq!((rx, &x), (ry, &y), "w {w} a {a} b {b}");
                }
            }
        }
    }
}
