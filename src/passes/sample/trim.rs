//! Cold-context trimming and merging of context-sensitive profiles, as `llvm-profdata merge
//! --sample --sample-trim-cold-context --sample-merge-cold-context
//! --sample-frame-depth-for-cold-context=K` does (LLVM's `SampleContextTrimmer`).
//!
//! A top-level profile whose total is below the cold threshold (the summary's 99.9999%
//! cutoff count, see [`crate::ir::sample::summary::cold_count_threshold`]) is cold. Cold
//! profiles are removed; with merging, each is first merged into a profile keyed by the
//! last K frames of its context (K = 1: the function's base profile `[foo]`), and those
//! merged profiles are merged into the profile already there, or added — unless trimming
//! is on too and the merged profile is still cold and has no profile to join, in which case
//! it is dropped. Merged cold profiles carry no attributes, as in LLVM.

use std::collections::BTreeMap;

use crate::error::{Error, ErrorKind, Result};
use crate::ir::Weight;
use crate::ir::sample::{FunctionSamples, SampleContext, SampleProfile, summary};

/// What to do with cold contexts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColdContextOptions {
    /// Drop cold context profiles (`--sample-trim-cold-context`).
    pub trim: bool,
    /// Merge cold context profiles into their last frames (`--sample-merge-cold-context`).
    pub merge: bool,
    /// Frames kept when merging (`--sample-frame-depth-for-cold-context`, ≥ 1; 1 is the
    /// base profile).
    pub frame_depth: u32,
}

impl Default for ColdContextOptions {
    fn default() -> Self {
        ColdContextOptions {
            trim: false,
            merge: false,
            frame_depth: 1,
        }
    }
}

/// What trimming did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ColdContextStats {
    /// The cold threshold used (samples).
    pub threshold: u64,
    /// Cold profiles removed from their contexts.
    pub cold: usize,
    /// Profiles their merged remains were added to or became.
    pub merged_into: usize,
}

/// Trims and merges the cold contexts of `profile` (nothing to do with both options off or
/// a cold threshold of 0).
///
/// As in LLVM, trimming applies to profiles that are not context-sensitive too (their cold
/// functions are dropped). Merging cold profiles that have no context cannot work (LLVM
/// crashes): that is an error, raised only when there is a cold profile to merge.
pub fn trim_cold_contexts(
    profile: &mut SampleProfile,
    options: &ColdContextOptions,
) -> Result<ColdContextStats> {
    let mut stats = ColdContextStats::default();
    if !(options.trim || options.merge) {
        return Ok(stats);
    }
    // The summary of LLVM's map as it iterates (the order decides which contexts of a
    // function whose checksums disagree count).
    let order = crate::codec::unordered_order::sample_map_order(profile);
    let threshold = summary::cold_count_threshold(&summary::compute_in_order(profile, order));
    stats.threshold = threshold;
    if threshold == 0 {
        return Ok(stats);
    }
    let mut cold: Vec<SampleContext> = profile
        .functions
        .iter()
        .filter(|(_, f)| f.total_samples < threshold)
        .map(|(k, _)| k.clone())
        .collect();
    // LLVM folds in its hash map's order; the order only matters when checksums disagree.
    cold.sort();
    stats.cold = cold.len();
    if options.merge && cold.iter().any(|k| !k.is_context()) {
        return Err(Error::new(ErrorKind::Request(format!(
            "--sample-merge-cold-context merges the cold contexts of context-sensitive \
             profiles, and this profile has {} cold functions without context \
             (llvm-profdata crashes here); use --sample-trim-cold-context alone to drop them",
            cold.iter().filter(|k| !k.is_context()).count()
        ))));
    }
    let mut merged: BTreeMap<SampleContext, FunctionSamples> = BTreeMap::new();
    for key in cold {
        let Some(samples) = profile.functions.remove(&key) else {
            continue;
        };
        if !options.merge {
            continue;
        }
        let frames = key.frames();
        let depth = (options.frame_depth.max(1) as usize).min(frames.len());
        let Some(to) = SampleContext::from_frames(frames[frames.len() - depth..].to_vec()) else {
            continue;
        };
        match merged.get_mut(&to) {
            Some(m) => {
                m.merge(&samples, Weight::ONE, false);
            }
            None => {
                // A new profile of the shortened context: its name, no attributes.
                let mut m = FunctionSamples::new(to.function().clone());
                m.merge(&samples, Weight::ONE, false);
                merged.insert(to, m);
            }
        }
    }
    for (context, samples) in merged {
        let exists = profile.functions.contains_key(&context);
        if options.trim && samples.total_samples < threshold && !exists {
            continue;
        }
        stats.merged_into += 1;
        match profile.functions.get_mut(&context) {
            Some(orig) => {
                orig.merge(&samples, Weight::ONE, false);
            }
            None => {
                profile.functions.insert(context, samples);
            }
        }
    }
    Ok(stats)
}
