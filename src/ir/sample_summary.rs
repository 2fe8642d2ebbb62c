//! The profile summary of a sample profile, as LLVM's `SampleProfileSummaryBuilder` computes
//! it for the writers (`computeSummaryForProfiles` with the default cutoffs).
//!
//! Counts are the body samples of every function and of every inlined callee (except callees
//! whose context says they were duplicated into their base profile); functions are the
//! top-level profiles, and their head samples are the function counts. For a
//! context-sensitive profile LLVM first merges all contexts of a function into one
//! context-less profile (`ProfileConverter::flattenProfile`), so functions are counted by
//! leaf name and the counts of equal locations are added.

use std::collections::{BTreeMap, HashMap};

use crate::ir::sample::{ContextAttributes, FunctionId, FunctionSamples, SampleProfile};
use crate::ir::summary::{Summary, SummaryBuilder};

/// The summary LLVM's sample writers store.
pub fn compute(profile: &SampleProfile) -> Summary {
    let mut b = SummaryBuilder::new();
    if profile.flags.context_sensitive {
        // Merge every context of a function into one profile (order does not matter: the
        // summary depends only on the sums). Contexts are visited in a fixed order so that
        // a checksum mismatch keeps the same profile every time.
        let mut flat: HashMap<FunctionId, FunctionSamples> = HashMap::new();
        let mut sorted: Vec<_> = profile.functions.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        for (ctx, fs) in sorted {
            let f = ctx.function();
            let into = flat
                .entry(f.clone())
                .or_insert_with(|| FunctionSamples::new(f.clone()));
            merge_into(into, fs, false);
        }
        let mut v: Vec<_> = flat.values().collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        for fs in v {
            add_record(&mut b, fs, false);
        }
    } else {
        for fs in profile.functions.values() {
            add_record(&mut b, fs, false);
        }
    }
    b.finish()
}

fn add_record(b: &mut SummaryBuilder, fs: &FunctionSamples, callsite: bool) {
    if !callsite {
        b.add_sample_function(fs.head_samples);
    } else if fs.attributes.has(ContextAttributes::DUPLICATED_INTO_BASE) {
        return;
    }
    for rec in fs.body.values() {
        b.add_sample_count(rec.samples);
    }
    for site in fs.callsites.values() {
        for callee in site.values() {
            add_record(b, callee, true);
        }
    }
}

/// `FunctionSamples::merge` with weight 1, as far as the summary needs it: a profile whose
/// checksum differs from the one already there is not merged (LLVM returns
/// `hash_mismatch` before adding anything). `fresh` is true for an inlined callee created
/// by this merge: LLVM copies the other's context, attributes included, only into such an
/// unnamed new profile (the flattened top-level profile is created with its name).
fn merge_into(into: &mut FunctionSamples, other: &FunctionSamples, fresh: bool) {
    if into.checksum == 0 {
        into.checksum = other.checksum;
    } else if into.checksum != other.checksum {
        return;
    }
    if fresh {
        into.attributes = other.attributes;
    }
    into.total_samples = into.total_samples.saturating_add(other.total_samples);
    into.head_samples = into.head_samples.saturating_add(other.head_samples);
    for (loc, rec) in &other.body {
        let r = into.body.entry(*loc).or_default();
        r.add_samples(rec.samples, 1);
        for (t, c) in &rec.call_targets {
            r.add_call_target(t.clone(), *c, 1);
        }
    }
    for (loc, site) in &other.callsites {
        let mine: &mut BTreeMap<FunctionId, FunctionSamples> =
            into.callsites.entry(*loc).or_default();
        for (callee, fs) in site {
            let fresh = !mine.contains_key(callee);
            let c = mine
                .entry(callee.clone())
                .or_insert_with(|| FunctionSamples::new(callee.clone()));
            merge_into(c, fs, fresh);
        }
    }
}
