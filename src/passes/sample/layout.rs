//! Profile layout conversions (`llvm-profdata merge --sample
//! --convert-sample-profile-layout=flat|nest`, LLVM's `ProfileConverter`).
//!
//! * [`flatten`]: every inlined callee becomes (or is added to) a top-level profile of its
//!   own; at its call site the parent gets a body sample and a call target of the callee's
//!   head-sample estimate, and its total loses the callee's total and gains that estimate.
//!   A context-sensitive profile is flattened by merging each context into its function's
//!   profile.
//! * [`nest`]: a context-sensitive profile becomes a nested one: each context profile is
//!   inlined at its call site into the profile of its caller context (which loses the body
//!   sample and call target of that call), and contexts without a caller profile become
//!   top-level profiles of their function.
//!
//! Both leave a profile that is not context-sensitive.

use crate::bytes::stack::deep;
use std::collections::{BTreeMap, HashMap};

use crate::codec::llvm_hash::ContextHash;
use crate::codec::unordered_order::sample_map_order;
use crate::ir::Weight;
use crate::ir::fx::FxBuildHasher;
use crate::ir::sample::{
    FunctionId, FunctionSamples, LineLocation, SampleContext, SampleProfile, saturating_mul_add,
};

/// A layout to convert to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SampleLayout {
    /// Inlined callees flattened out into top-level profiles.
    Flat,
    /// Context-sensitive profiles nested into their callers.
    Nest,
}

/// Converts `profile` to `layout`.
pub fn convert_layout(profile: &mut SampleProfile, layout: SampleLayout) {
    match layout {
        SampleLayout::Flat => flatten(profile),
        SampleLayout::Nest => nest(profile),
    }
}

/// Flattens `profile` (LLVM's `ProfileConverter::flattenProfile`).
pub fn flatten(profile: &mut SampleProfile) {
    // LLVM walks its hash map and fills a new one: the walk decides which checksum and
    // attributes a function keeps when its copies disagree, and the new map's order (that
    // of the extbinary metadata). The walk is replayed when the map's order is known, else
    // contexts are taken in order.
    let order: Option<Vec<SampleContext>> =
        sample_map_order(profile).map(|o| o.into_iter().cloned().collect());
    let mut input = std::mem::take(&mut profile.functions);
    let known = order.is_some();
    let sorted: Vec<(SampleContext, FunctionSamples)> = match order {
        Some(order) => order
            .into_iter()
            .filter_map(|c| input.remove_entry(&c))
            .collect(),
        None => {
            let mut v: Vec<(SampleContext, FunctionSamples)> = input.into_iter().collect();
            v.sort_by(|a, b| a.0.cmp(&b.0));
            v
        }
    };
    profile.insertion_order.clear();
    profile.erased.clear();
    profile.erased_after.clear();
    let cs = profile.flags.context_sensitive;
    // The flattened map is LLVM's too, keyed by the MD5 of the function: a function named
    // in one place and stored as its MD5 in another (after merging a `--use-md5` input with
    // one of names) is one profile, under the spelling met first.
    let mut by_hash: HashMap<u64, SampleContext, FxBuildHasher> = HashMap::default();
    if cs {
        for (context, samples) in sorted {
            let key = key_of(&mut by_hash, context.function());
            match profile.functions.get_mut(&key) {
                Some(f) => {
                    f.merge(&samples, Weight::ONE, false);
                }
                None => {
                    // A new profile of the name alone: no attributes (LLVM creates it from
                    // the name, so merging does not take the context's).
                    let mut f = FunctionSamples::new(key.function().clone());
                    f.merge(&samples, Weight::ONE, false);
                    profile.insertion_order.push(key.clone());
                    profile.functions.insert(key, f);
                }
            }
        }
    } else {
        for (_, samples) in sorted {
            flatten_nested(profile, &mut by_hash, &samples);
        }
    }
    if !known {
        profile.insertion_order.clear();
    }
    profile.flags.context_sensitive = false;
}

/// The key of the flattened profile of `function`: the first spelling of its hash met in
/// `by_hash`, else its own (then recorded).
fn key_of(
    by_hash: &mut HashMap<u64, SampleContext, FxBuildHasher>,
    function: &FunctionId,
) -> SampleContext {
    by_hash
        .entry(function.hash_code())
        .or_insert_with(|| SampleContext::Function(function.clone()))
        .clone()
}

/// LLVM's `flattenNestedProfile`.
fn flatten_nested(
    profile: &mut SampleProfile,
    by_hash: &mut HashMap<u64, SampleContext, FxBuildHasher>,
    fs: &FunctionSamples,
) {
    let key = key_of(by_hash, &fs.name);
    let entry = match profile.functions.entry(key) {
        std::collections::hash_map::Entry::Vacant(v) => {
            profile.insertion_order.push(v.key().clone());
            // A copy without inlinees and with a total to be recomputed (LLVM copies the
            // inlinees too and drops them: quadratic in the depth).
            let mut copy = fs.clone_shallow();
            copy.total_samples = 0;
            v.insert(copy)
        }
        std::collections::hash_map::Entry::Occupied(o) => {
            let e = o.into_mut();
            for (loc, rec) in &fs.body {
                let d = e.body.entry(*loc).or_default();
                d.add_samples(rec.samples, 1);
                for (t, c) in &rec.call_targets {
                    d.add_call_target(t.clone(), *c, 1);
                }
            }
            e
        }
    };
    let mut total = fs.total_samples;
    let mut estimates: Vec<(LineLocation, FunctionId, u64)> = Vec::new();
    for (loc, site) in &fs.callsites {
        for callee in site.values() {
            let est = callee.head_samples_estimate(false);
            estimates.push((*loc, callee.name.clone(), est));
            total = total.saturating_sub(callee.total_samples).wrapping_add(est);
        }
    }
    for (loc, name, est) in estimates {
        let d = entry.body.entry(loc).or_default();
        d.add_samples(est, 1);
        d.add_call_target(name, est, 1);
    }
    let (t, _) = saturating_mul_add(total, 1, entry.total_samples);
    entry.total_samples = t;
    entry.head_samples = entry.head_samples_estimate(false);
    for site in fs.callsites.values() {
        for callee in site.values() {
            deep(|| flatten_nested(profile, by_hash, callee));
        }
    }
}

/// One frame of the context tree `nest` builds: a function called at `loc` of its parent.
/// The tree is as deep as the longest context (tens of thousands of frames in the wild):
/// it is dropped in a loop.
#[derive(Default)]
struct Frame {
    loc: LineLocation,
    /// The profile of this context, with the context (its key in the profile map).
    samples: Option<(SampleContext, FunctionSamples)>,
    /// Children by LLVM's call-site hash (the order LLVM visits them in).
    children: BTreeMap<u64, Frame>,
}

impl Frame {
    fn at(loc: LineLocation) -> Frame {
        Frame {
            loc,
            samples: None,
            children: BTreeMap::new(),
        }
    }
}

impl Drop for Frame {
    fn drop(&mut self) {
        let mut pending: Vec<Frame> = std::mem::take(&mut self.children).into_values().collect();
        while let Some(mut f) = pending.pop() {
            pending.extend(std::mem::take(&mut f.children).into_values());
        }
    }
}

/// What the conversion does to LLVM's profile map, in order: the keys it inserts, and each
/// key it erases with the number of insertions made before.
#[derive(Default)]
struct MapLog {
    inserted: Vec<SampleContext>,
    erased: Vec<(usize, SampleContext)>,
}

/// LLVM's `FunctionSamples::getCallSiteHash`: the callee's hash plus 33 times the location.
/// The callee is hashed as the release hashes a context frame's function (`hash`): by MD5
/// in LLVM 19–22, by `std::hash` of a name in LLVM 23. So in LLVM 23 a context spelled with
/// names and the same context spelled with MD5s (a merge of a `--use-md5` input with one of
/// names) take two paths of the context tree, and in 19–22 one.
fn callsite_hash(hash: ContextHash, callee: &FunctionId, loc: LineLocation) -> u64 {
    hash.frame(
        || callee.hash_code(),
        callee.as_bytes(),
        loc.line_offset,
        loc.discriminator,
    )
}

/// Converts a context-sensitive `profile` into a nested one (LLVM's
/// `ProfileConverter::convertCSProfiles`); other profiles are left as they are.
pub fn nest(profile: &mut SampleProfile) {
    if !profile.flags.context_sensitive {
        return;
    }
    // Profiles without calling context (those of a remapped context-sensitive merge) hang
    // at the root of LLVM's context tree, which is not converted: with no context at all,
    // the profiles stay as they are.
    if profile.functions.keys().all(|k| !k.is_context()) {
        profile.flags.context_sensitive = false;
        return;
    }
    // LLVM converts its map in place: it inserts the promoted profiles and erases every
    // context, in the order of its walk; the map's order after that (the extbinary
    // metadata's) is replayed from the record of both, when the order before is known.
    let known = sample_map_order(profile).is_some();
    let mut sorted: Vec<(SampleContext, FunctionSamples)> =
        std::mem::take(&mut profile.functions).into_iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut root = Frame::default();
    for (context, samples) in sorted {
        let mut node = &mut root;
        let mut loc = LineLocation::default();
        for frame in context.frames() {
            node = node
                .children
                .entry(callsite_hash(profile.context_hash, &frame.function, loc))
                .or_insert_with(|| Frame::at(loc));
            loc = frame.location;
        }
        node.samples = Some((context, samples));
    }
    let mut log = MapLog::default();
    convert(&mut root, profile, &mut log, &mut HashMap::default());
    profile.flags.context_sensitive = false;
    if known {
        let before = profile.insertion_order.len();
        // Erasures recorded before (a profile pruned earlier) happened after all of those
        // insertions.
        let had = profile.erased.len();
        profile.erased_after.resize(had, before);
        profile.insertion_order.extend(log.inserted);
        for (after, context) in log.erased {
            profile.erased.push(context);
            profile.erased_after.push(before + after);
        }
    } else {
        profile.insertion_order.clear();
        profile.erased.clear();
        profile.erased_after.clear();
    }
}

fn convert(
    node: &mut Frame,
    out: &mut SampleProfile,
    log: &mut MapLog,
    by_hash: &mut HashMap<u64, SampleContext, FxBuildHasher>,
) {
    for child in node.children.values_mut() {
        deep(|| convert(child, out, log, by_hash));
        let Some((context, cp)) = child.samples.take() else {
            continue;
        };
        match node.samples.as_mut().map(|(_, np)| np) {
            Some(np) => {
                let total = cp.total_samples;
                let name = cp.name.clone();
                np.callsites
                    .entry(child.loc)
                    .or_default()
                    .entry(name.clone())
                    .or_insert(cp);
                np.total_samples = saturating_mul_add(total, 1, np.total_samples).0;
                let removed = remove_call(np, child.loc, &name);
                np.total_samples = np.total_samples.saturating_sub(removed);
            }
            None => {
                // Promoted into LLVM's map under the MD5 of the function: a name and its
                // MD5 meet here even where their contexts did not (LLVM 23).
                let key = key_of(by_hash, &cp.name);
                match out.functions.get_mut(&key) {
                    Some(f) => {
                        f.merge(&cp, Weight::ONE, false);
                    }
                    None => {
                        log.inserted.push(key.clone());
                        out.functions.insert(key, cp);
                    }
                }
            }
        }
        // The context's own entry goes, whether it was promoted or inlined.
        log.erased.push((log.inserted.len(), context));
    }
}

/// LLVM's `removeCalledTargetAndBodySample`: removes the call target `callee` at `loc` and
/// as many body samples (at most all); drops the location when no sample is left. Returns
/// the samples removed.
fn remove_call(f: &mut FunctionSamples, loc: LineLocation, callee: &FunctionId) -> u64 {
    let Some(rec) = f.body.get_mut(&loc) else {
        return 0;
    };
    let count = rec.call_targets.remove(callee).unwrap_or(0);
    let removed = count.min(rec.samples);
    rec.samples -= removed;
    if rec.samples == 0 {
        f.body.remove(&loc);
    }
    removed
}
