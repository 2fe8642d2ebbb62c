//! Trimming iprof profiles: fewer, shallower contexts for a smaller profile.
//!
//! * **Depth** (`--max-context-depth N`, N ≥ 1): a context deeper than N frames is folded
//!   into its innermost N frames (the method and its N−1 nearest callers); payloads that land
//!   on one context are merged (summed, with the merge pass's per-section rules).
//! * **Cold contexts** (`--cold-threshold C`): an entry whose context has more than one frame
//!   and whose weight (the sum of its counts) is below the threshold is folded into the
//!   context-free base, its innermost frame alone. C is an absolute count (`100`) or a
//!   fraction of the section's total (`0.001` or `0.1%`). Entries are judged after depth
//!   folding.
//! * **Sampling stacks** are not touched by either: GraalVM defines a `samplingProfiles`
//!   context as the whole sampled call stack, so they are shortened only when asked for
//!   separately (`--max-sampling-depth N`: the innermost N frames), and never folded as cold.
//! * **Sparse** (`--sparse`): entries whose counts are all zero are dropped, and types with
//!   a zero count are dropped from histograms. Zero-count branch triples are kept: a
//!   successor recorded with count 0 and a missing successor mean different things to
//!   GraalVM.
//!
//! None of these changes the per-method totals ([`IprofProfile::method_totals`]) except
//! `--sparse`, which only removes zeros; depth folding is idempotent.

#[cfg(feature = "iprof")]
use crate::ir::iprof::{merge_branches, merge_histogram};
use std::str::FromStr;

#[cfg(feature = "iprof")]
use crate::ir::context::{ContextTree, Frame, Site};
#[cfg(feature = "iprof")]
use crate::ir::iprof::{IprofProfile, Section, SiteMap, add_counts};

/// `--cold-threshold`: absolute, or a fraction `num / den` of each section's total.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ColdThreshold {
    /// Entries with weight below this count are cold.
    Absolute(u64),
    /// Entries with weight below `num / den` of their section's total are cold.
    Fraction {
        /// Numerator.
        num: u64,
        /// Denominator.
        den: u64,
    },
}

impl ColdThreshold {
    /// The absolute threshold for a section whose total is `total` (rounded up).
    pub fn for_total(self, total: u64) -> u64 {
        match self {
            ColdThreshold::Absolute(c) => c,
            ColdThreshold::Fraction { num, den } => {
                let p = u128::from(total) * u128::from(num);
                let d = u128::from(den.max(1));
                u64::try_from(p.div_ceil(d)).unwrap_or(u64::MAX)
            }
        }
    }
}

impl FromStr for ColdThreshold {
    type Err = String;
    /// `123` (absolute), `0.001` (a fraction below 1) or `0.5%` (a percentage).
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "invalid cold threshold {s:?}: expected a count (100), a fraction below 1 (0.001) \
                 or a percentage (0.1%)"
            )
        };
        let t = s.trim();
        let (t, percent) = match t.strip_suffix('%') {
            Some(x) => (x, true),
            None => (t, false),
        };
        let (int, frac) = t.split_once('.').unwrap_or((t, ""));
        if (int.is_empty() && frac.is_empty())
            || !int.bytes().all(|b| b.is_ascii_digit())
            || !frac.bytes().all(|b| b.is_ascii_digit())
            || int.len() + frac.len() > 18
        {
            return Err(bad());
        }
        let num: u64 = format!("{int}{frac}").parse().map_err(|_| bad())?;
        let mut den = 10u64.pow(frac.len() as u32);
        if percent {
            den = den.checked_mul(100).ok_or_else(bad)?;
        }
        if !percent && frac.is_empty() {
            return Ok(ColdThreshold::Absolute(num));
        }
        if num >= den {
            return Err(format!(
                "invalid cold threshold {s:?}: a fraction must be below 1 (100%)"
            ));
        }
        Ok(ColdThreshold::Fraction { num, den })
    }
}

/// What to trim.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TrimOptions {
    /// Fold contexts deeper than this many frames (≥ 1), sampling stacks excepted.
    pub max_depth: Option<u32>,
    /// Shorten sampling stacks deeper than this many frames (≥ 1) to their innermost ones.
    pub max_sampling_depth: Option<u32>,
    /// Fold cold contexts into the context-free base.
    pub cold_threshold: Option<ColdThreshold>,
    /// Drop all-zero entries.
    pub sparse: bool,
}

impl TrimOptions {
    /// True if any trimming is asked for.
    pub fn is_active(&self) -> bool {
        self.max_depth.is_some()
            || self.max_sampling_depth.is_some()
            || self.cold_threshold.is_some()
            || self.sparse
    }
}

/// What trimming did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TrimStats {
    /// Entries whose context was shortened to the maximum depth.
    pub folded_deep: u64,
    /// Sampling stacks shortened to the maximum sampling depth.
    pub folded_sampling: u64,
    /// Cold entries folded into the context-free base.
    pub folded_cold: u64,
    /// All-zero entries dropped.
    pub dropped_zero: u64,
}

/// Rebuilds `p` with each site moved to `dest(section, site, weight)` (a frame count to
/// keep, innermost first), merging payloads that land together.
#[cfg(feature = "iprof")]
fn refold(
    p: &IprofProfile,
    mut keep_frames: impl FnMut(Section, Site, u64) -> usize,
) -> IprofProfile {
    let mut out = IprofProfile {
        version: p.version,
        symbols: p.symbols.clone(),
        contexts: ContextTree::new(),
        present: p.present,
        monitors: p.monitors.clone(),
        provenance: p.provenance.clone(),
        ..IprofProfile::default()
    };
    let mut frames: Vec<Frame> = Vec::new();
    let mut dest = |tree: &mut ContextTree, s: Section, site: Site, weight: u64| -> Option<Site> {
        frames.clear();
        frames.extend(p.contexts.frames(site));
        let keep = keep_frames(s, site, weight).max(1);
        frames.truncate(keep);
        tree.intern_innermost_first(&frames)
    };
    fn sorted<V>(m: &SiteMap<V>) -> Vec<(&Site, &V)> {
        let mut v: Vec<_> = m.iter().collect();
        v.sort_unstable_by_key(|(s, _)| **s);
        v
    }
    // Sites are visited in sorted order so that merged branch lists are built in a
    // deterministic order.
    for (site, c) in sorted(&p.call_counts) {
        if let Some(d) = dest(&mut out.contexts, Section::CallCount, *site, *c) {
            let e = out.call_counts.entry(d).or_insert(0);
            *e = add_counts(*e, *c);
        }
    }
    for (site, c) in sorted(&p.samples) {
        if let Some(d) = dest(&mut out.contexts, Section::Sampling, *site, *c) {
            let e = out.samples.entry(d).or_insert(0);
            *e = add_counts(*e, *c);
        }
    }
    for (site, bs) in sorted(&p.conditionals) {
        let w = bs.iter().fold(0, |a, b| add_counts(a, b.count));
        if let Some(d) = dest(&mut out.contexts, Section::Conditional, *site, w) {
            merge_branches(out.conditionals.entry(d).or_default(), bs);
        }
    }
    for (s, from) in [
        (Section::VirtualInvoke, &p.virtual_invokes),
        (Section::Instanceof, &p.instanceofs),
    ] {
        for (site, h) in sorted(from) {
            let w = h.iter().fold(0, |a, b| add_counts(a, b.count));
            if let Some(d) = dest(&mut out.contexts, s, *site, w) {
                let to = if s == Section::VirtualInvoke {
                    &mut out.virtual_invokes
                } else {
                    &mut out.instanceofs
                };
                merge_histogram(to.entry(d).or_default(), h.iter().copied());
            }
        }
    }
    out
}

/// Folds contexts deeper than `n` frames (n ≥ 1; 0 is treated as 1) into their innermost
/// `n` frames, and sampling stacks deeper than `sampling` frames (`None`: sampling stacks
/// are kept whole). Returns the new profile and how many entries were shortened (other
/// sections, sampling).
#[cfg(feature = "iprof")]
pub fn fold_depths(
    p: &IprofProfile,
    n: Option<u32>,
    sampling: Option<u32>,
) -> (IprofProfile, u64, u64) {
    let mut folded = (0u64, 0u64);
    let out = refold(p, |s, site, _| {
        let d = p.contexts.depth(site.node);
        let limit = if s == Section::Sampling { sampling } else { n };
        match limit.map(|l| l.max(1)) {
            Some(l) if d > l => {
                if s == Section::Sampling {
                    folded.1 += 1;
                } else {
                    folded.0 += 1;
                }
                l as usize
            }
            _ => d as usize,
        }
    });
    (out, folded.0, folded.1)
}

/// Folds contexts deeper than `n` frames (n ≥ 1; 0 is treated as 1) into their innermost
/// `n` frames, in every section (sampling stacks too). Returns the new profile and how many
/// entries were shortened.
#[cfg(feature = "iprof")]
pub fn fold_depth(p: &IprofProfile, n: u32) -> (IprofProfile, u64) {
    let (out, a, b) = fold_depths(p, Some(n), Some(n));
    (out, a + b)
}

/// Folds entries lighter than the threshold (per section) into their context-free base;
/// sampling stacks are left whole.
#[cfg(feature = "iprof")]
pub fn fold_cold(p: &IprofProfile, t: ColdThreshold) -> (IprofProfile, u64) {
    let totals = p.totals();
    let mut folded = 0u64;
    let out = refold(p, |s, site, w| {
        let d = p.contexts.depth(site.node) as usize;
        if s != Section::Sampling && d > 1 && w < t.for_total(totals.sum_of(s)) {
            folded += 1;
            1
        } else {
            d
        }
    });
    (out, folded)
}

/// Drops all-zero entries and zero-count histogram types, in place; returns entries dropped.
#[cfg(feature = "iprof")]
pub fn drop_zeros(p: &mut IprofProfile) -> u64 {
    let before = p.entry_count();
    p.call_counts.retain(|_, c| *c != 0);
    p.samples.retain(|_, c| *c != 0);
    p.conditionals
        .retain(|_, bs| bs.iter().any(|b| b.count != 0));
    for m in [&mut p.virtual_invokes, &mut p.instanceofs] {
        m.values_mut().for_each(|h| h.retain(|t| t.count != 0));
        m.retain(|_, h| !h.is_empty());
    }
    p.monitors.retain(|t| t.count != 0);
    (before - p.entry_count()) as u64
}

/// Applies all requested trimming: depth, then cold folding, then sparse.
#[cfg(feature = "iprof")]
pub fn trim(p: &IprofProfile, o: &TrimOptions) -> (IprofProfile, TrimStats) {
    let mut stats = TrimStats::default();
    let mut cur = if o.max_depth.is_some() || o.max_sampling_depth.is_some() {
        let (x, f, s) = fold_depths(p, o.max_depth, o.max_sampling_depth);
        stats.folded_deep = f;
        stats.folded_sampling = s;
        x
    } else {
        p.clone()
    };
    if let Some(t) = o.cold_threshold {
        let (x, f) = fold_cold(&cur, t);
        stats.folded_cold = f;
        cur = x;
    }
    if o.sparse {
        stats.dropped_zero = drop_zeros(&mut cur);
    }
    (cur, stats)
}

#[cfg(feature = "iprof")]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_thresholds() {
        assert_eq!("100".parse(), Ok(ColdThreshold::Absolute(100)));
        assert_eq!(
            "0.001".parse(),
            Ok(ColdThreshold::Fraction { num: 1, den: 1000 })
        );
        assert_eq!(
            "0.5%".parse(),
            Ok(ColdThreshold::Fraction { num: 5, den: 1000 })
        );
        for bad in ["", "x", "1.5", "100%", "-1", "1e3"] {
            assert!(bad.parse::<ColdThreshold>().is_err(), "{bad}");
        }
        let t: ColdThreshold = "0.1%".parse().unwrap();
        assert_eq!(t.for_total(10_000), 10);
        assert_eq!(t.for_total(10_001), 11);
    }
}
