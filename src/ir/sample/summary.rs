//! The profile summary of a sample profile, as LLVM's `SampleProfileSummaryBuilder` computes
//! it (stored by the binary and extbinary writers; its cold threshold drives cold-context
//! trimming).
//!
//! Every top-level profile is a function (its head samples are its entry count); every body
//! sample of it and of its inlined callees is a count, except under an inlined callee whose
//! context was duplicated into its base profile. The detailed summary uses LLVM's default
//! cutoffs. A context-sensitive profile is first merged into one profile per function
//! (LLVM's context-less summary, its default for CS profiles), in context order. Functions
//! are told apart there as LLVM's map tells them apart, by the MD5 of the name: a leaf named
//! in one context and stored as its MD5 in another (a merge of a `--use-md5` profile with
//! one of names) is one function, in every release (LLVM 23 keys *contexts* by another hash,
//! but this map is keyed by the leaf function alone).

use crate::bytes::stack::deep;
use std::collections::BTreeMap;

use super::{ContextAttributes, FunctionSamples, SampleContext, SampleProfile};
use crate::ir::Weight;
use crate::ir::summary::{Summary, SummaryBuilder};

/// The summary of `profile` (`max_internal_count` is 0, as in sample summaries), contexts
/// taken in context order; see [`compute_in_order`].
pub fn compute(profile: &SampleProfile) -> Summary {
    compute_in_order(profile, None)
}

/// The summary of `profile`, the contexts of a context-sensitive profile merged per
/// function in `order` when it lists each of them once (LLVM merges them in its map's
/// iteration order, which callers replay), else in context order. The order matters only
/// when contexts of one function disagree on the checksum: the first merged sets it, and
/// the ones that disagree are left out, as LLVM leaves them out.
pub fn compute_in_order(profile: &SampleProfile, order: Option<Vec<&SampleContext>>) -> Summary {
    let mut b = SummaryBuilder::new();
    if profile.flags.context_sensitive {
        let ordered: Option<Vec<(&SampleContext, &FunctionSamples)>> = order
            .filter(|o| o.len() == profile.functions.len())
            .and_then(|o| {
                o.into_iter()
                    .map(|c| profile.functions.get_key_value(c))
                    .collect()
            });
        let ordered = ordered.unwrap_or_else(|| sorted_by_context(profile));
        let mut flat: BTreeMap<u64, FunctionSamples> = BTreeMap::new();
        for (context, samples) in ordered {
            let key = context.function().hash_code();
            match flat.get_mut(&key) {
                Some(f) => {
                    f.merge(samples, Weight::ONE, false);
                }
                None => {
                    let mut f = FunctionSamples::default();
                    f.merge(samples, Weight::ONE, true);
                    flat.insert(key, f);
                }
            }
        }
        for f in flat.values() {
            add(&mut b, f, false);
        }
    } else {
        for f in profile.functions.values() {
            add(&mut b, f, false);
        }
    }
    let mut s = b.finish();
    s.max_internal_count = 0;
    s
}

/// The summary LLVM's reader of `profile` has: the one stored in the file for binary and
/// extbinary inputs ([`SampleProfile::stored_summary`]), else the one it computes
/// ([`compute`]) as it reads a text profile.
pub fn of_reader(profile: &SampleProfile) -> std::borrow::Cow<'_, Summary> {
    match &profile.stored_summary {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(compute(profile)),
    }
}

fn sorted_by_context(profile: &SampleProfile) -> Vec<(&SampleContext, &FunctionSamples)> {
    let mut v: Vec<_> = profile.functions.iter().collect();
    v.sort_by(|a, b| a.0.cmp(b.0));
    v
}

fn add(b: &mut SummaryBuilder, f: &FunctionSamples, callsite: bool) {
    if !callsite {
        b.add_function(f.head_samples);
    } else if f.attributes.has(ContextAttributes::DUPLICATED_INTO_BASE) {
        return;
    }
    for rec in f.body.values() {
        b.add_count(rec.samples);
    }
    for site in f.callsites.values() {
        for callee in site.values() {
            deep(|| add(b, callee, true));
        }
    }
}

/// LLVM's `ProfileSummaryBuilder::getColdCountThreshold`: the minimum count of the detailed
/// entry at the cold cutoff (999999 parts per million, `-profile-summary-cutoff-cold`), 0 if
/// there is none.
pub fn cold_count_threshold(summary: &Summary) -> u64 {
    threshold_at(summary, 999_999)
}

/// LLVM's `getHotCountThreshold` (cutoff 990000, `-profile-summary-cutoff-hot`).
pub fn hot_count_threshold(summary: &Summary) -> u64 {
    threshold_at(summary, 990_000)
}

fn threshold_at(summary: &Summary, cutoff: u32) -> u64 {
    summary
        .detailed
        .iter()
        .find(|e| e.cutoff >= cutoff)
        .map_or(0, |e| e.min_count)
}
