//! `--normalize` for LLVM profiles: every input contributes as much as the largest one.
//!
//! A short workload merged with a long one is otherwise drowned by it; people hand-tune
//! `--weighted-input` for this. With `--normalize=total` each input's *total* — the sum of
//! all its counters (pseudo counts left out), in counts — is brought to the largest input's
//! total; with `--normalize=max` each input's largest counter to the largest input's. The
//! factor of input *i* is the exact ratio `largest / own` (≥ 1, so a count that was not zero
//! never becomes zero), multiplied into the input's weight; the merge then scales counters
//! and value counts by it exactly as for any fractional weight (rounded half up, saturating).
//! Value counts a site sees for the first time are scaled too (LLVM leaves them unweighted;
//! normalising them is the point). An input whose total is zero, or that cannot be read,
//! keeps factor 1. The factors depend only on the inputs, so the output is the same for any
//! thread count.

use super::merge::MAX_COUNT;
use super::normalise::NormalizeMode;
use crate::ir::Profile;

/// The quantity `mode` equalises, of one input: the sum of its counters (`Total`) or its
/// largest counter (`Max`); 0 for [`NormalizeMode::None`]. Pseudo counts (above
/// [`MAX_COUNT`]) are not counts and are left out.
pub fn total(p: &Profile<'_>, mode: NormalizeMode) -> u128 {
    let counts = p
        .records
        .iter()
        .flat_map(|r| r.counters.iter())
        .filter(|&c| c <= MAX_COUNT);
    match mode {
        NormalizeMode::None => 0,
        NormalizeMode::Total => counts.map(u128::from).sum(),
        NormalizeMode::Max => counts.max().map_or(0, u128::from),
    }
}

/// The factor `(num, den)` of each input: the largest total over its own; `(1, 1)` for an
/// input with no total (unreadable) or a zero one.
pub fn factors(totals: &[Option<u128>]) -> Vec<(u128, u128)> {
    let largest = totals.iter().flatten().copied().max().unwrap_or(0);
    totals
        .iter()
        .map(|t| match t {
            Some(t) if *t > 0 && largest > 0 => (largest, *t),
            _ => (1, 1),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::Weight;

    #[test]
    fn factors_bring_every_input_up_to_the_largest() {
        let f = factors(&[Some(10), Some(40), None, Some(0), Some(30)]);
        assert_eq!(f, vec![(40, 10), (40, 40), (1, 1), (1, 1), (40, 30)]);
        let (w, exact) = Weight::ONE.times(40, 30);
        assert!(exact);
        // 3 × 4/3 = 4; 1 × 4/3 = 1.33 → 1: never zero for a non-zero count.
        assert_eq!(w.scale(3).0, 4);
        assert_eq!(w.scale(1).0, 1);
        let (w2, _) = "0.5".parse::<Weight>().unwrap().times(40, 10);
        assert_eq!(w2.scale(5).0, 10);
    }
}
