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

use std::collections::HashMap;

use crate::codec::unordered_order::{iteration_order, sample_map_key, sample_map_order};
use crate::error::{Error, ErrorKind, Result};
use crate::ir::Weight;
use crate::ir::sample::{FunctionSamples, SampleContext, SampleProfile, summary};

/// What to do with cold contexts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
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
    // LLVM's map order (when it can be replayed): the summary merges the contexts of a
    // function in it, the cold profiles are taken in it, and the map's order after trimming
    // (that of the extbinary metadata) follows from it.
    let order: Option<Vec<SampleContext>> =
        sample_map_order(profile).map(|o| o.into_iter().cloned().collect());
    let threshold = summary::cold_count_threshold(&summary::compute_in_order(
        profile,
        order.as_ref().map(|o| o.iter().collect()),
    ));
    stats.threshold = threshold;
    if threshold == 0 {
        return Ok(stats);
    }
    let is_cold =
        |k: &SampleContext, profile: &SampleProfile| profile.functions[k].total_samples < threshold;
    let known = order.is_some();
    let cold: Vec<SampleContext> = match order {
        Some(order) => order.into_iter().filter(|k| is_cold(k, profile)).collect(),
        None => {
            let mut cold: Vec<SampleContext> = profile
                .functions
                .keys()
                .filter(|k| is_cold(k, profile))
                .cloned()
                .collect();
            cold.sort();
            cold
        }
    };
    stats.cold = cold.len();
    if options.merge && cold.iter().any(|k| !k.is_context()) {
        return Err(Error::new(ErrorKind::Request(format!(
            "--sample-merge-cold-context merges the cold contexts of context-sensitive \
             profiles, and this profile has {} cold functions without context \
             (llvm-profdata crashes here); use --sample-trim-cold-context alone to drop them",
            cold.iter().filter(|k| !k.is_context()).count()
        ))));
    }
    // Erasures recorded before happened after all the insertions made so far.
    let before = profile.insertion_order.len();
    let had = profile.erased.len();
    profile.erased_after.resize(had, before);
    // LLVM erases each cold profile from its map, in that order, after merging it into a
    // map of merged profiles (keyed the same way, filled in the same order)...
    let mut merged: HashMap<SampleContext, FunctionSamples> = HashMap::new();
    let mut merged_order: Vec<SampleContext> = Vec::new();
    for key in cold {
        let Some(samples) = profile.functions.remove(&key) else {
            continue;
        };
        profile.erased.push(key.clone());
        profile.erased_after.push(before);
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
                merged_order.push(to.clone());
                merged.insert(to, m);
            }
        }
    }
    // ... then walks that map, inserting into its own the merged profiles it keeps (a
    // context it erased a moment ago comes back as a new entry).
    if known {
        let keys: Vec<u64> = merged_order
            .iter()
            .map(|c| sample_map_key(c, profile.context_hash))
            .collect();
        merged_order = iteration_order(&keys)
            .into_iter()
            .map(|i| merged_order[i].clone())
            .collect();
    } else {
        merged_order.sort();
    }
    for context in merged_order {
        let Some(samples) = merged.remove(&context) else {
            continue;
        };
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
                profile.insertion_order.push(context.clone());
                profile.functions.insert(context, samples);
            }
        }
    }
    if !known {
        profile.insertion_order.clear();
        profile.erased.clear();
        profile.erased_after.clear();
    }
    Ok(stats)
}
