//! Merging function samples: LLVM's `FunctionSamples::merge` and `SampleRecord::merge`.
//!
//! Every count of the source is multiplied by the weight and added, saturating at
//! `u64::MAX`. A fractional weight (ours; llvm-profdata takes whole weights only) scales each
//! stored count on its own, rounded half up, as [`Weight::scale`]: a total is scaled as
//! stored, not recomputed from the scaled body. The first profile merged into an empty one sets its checksum (if non-zero)
//! and attributes; a source whose checksum differs from a non-zero one already there is not
//! merged at all (LLVM's "Function hash mismatch") — for an inlined callee, only that callee.

use crate::bytes::stack::deep;
use std::collections::btree_map;

use super::flat::FlatRecord;
use super::{FlatSampleProfile, FunctionId, FunctionSamples, SampleRecord};
use crate::ir::Weight;

/// What went wrong merging a function.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeIssueKind {
    /// A count saturated at `u64::MAX` (LLVM: "Counter overflow").
    CounterOverflow,
    /// Checksums differ: the function (or one inlined callee) of this input was not merged
    /// (LLVM: "Function hash mismatch").
    HashMismatch,
}

impl MergeIssueKind {
    /// LLVM's wording.
    pub fn message(self) -> &'static str {
        match self {
            MergeIssueKind::CounterOverflow => "Counter overflow",
            MergeIssueKind::HashMismatch => "Function hash mismatch",
        }
    }
}

/// Result of merging one function: the first problem met, as LLVM keeps the first error.
type Outcome = Option<MergeIssueKind>;

fn first(acc: &mut Outcome, r: Outcome) {
    if acc.is_none() {
        *acc = r;
    }
}

impl FunctionSamples {
    /// Merges `src * weight` into `self` (LLVM's `FunctionSamples::merge`). `fresh` is true
    /// when `self` has never been merged into (it then takes `src`'s name and attributes, as
    /// LLVM's empty profile takes its first input's context). Returns the first problem met.
    pub fn merge(
        &mut self,
        src: &FunctionSamples,
        weight: Weight,
        fresh: bool,
    ) -> Option<MergeIssueKind> {
        merge_function(self, src, weight, fresh)
    }

    /// As [`FunctionSamples::merge`], consuming `src`: what `self` lacks is moved over
    /// (scaled) instead of copied. The result, and the first problem reported, are the same.
    pub fn merge_from(
        &mut self,
        src: FunctionSamples,
        weight: Weight,
        fresh: bool,
    ) -> Option<MergeIssueKind> {
        merge_owned(self, src, weight, fresh)
    }

    /// Multiplies every count by `weight` in place (saturating); true if one saturated.
    /// Merging into an empty profile is exactly this, without copying.
    pub fn scale(&mut self, weight: Weight) -> bool {
        scale(self, weight)
    }
}

fn merge_function(
    dst: &mut FunctionSamples,
    src: &FunctionSamples,
    weight: Weight,
    fresh: bool,
) -> Option<MergeIssueKind> {
    // LLVM's merge takes the source's context when its own function is empty: a fresh
    // profile, or one its reader made without a name.
    if fresh || dst.name.is_empty() {
        dst.name = src.name.clone();
        dst.attributes = src.attributes;
    }
    if dst.checksum == 0 {
        dst.checksum = src.checksum;
    } else if dst.checksum != src.checksum {
        return Some(MergeIssueKind::HashMismatch);
    }
    let mut out: Outcome = None;
    let add = |slot: &mut u64, v: u64, out: &mut Outcome| {
        let (s, o) = weight.scale_add(v, *slot);
        *slot = s;
        if o {
            first(out, Some(MergeIssueKind::CounterOverflow));
        }
    };
    add(&mut dst.total_samples, src.total_samples, &mut out);
    add(&mut dst.head_samples, src.head_samples, &mut out);
    for (loc, rec) in &src.body {
        let d = dst.body.entry(*loc).or_default();
        add(&mut d.samples, rec.samples, &mut out);
        for (t, c) in &rec.call_targets {
            let slot = match d.call_targets.get_mut(t) {
                Some(s) => s,
                None => d.call_targets.entry(t.clone()).or_insert(0),
            };
            add(slot, *c, &mut out);
        }
    }
    for (loc, types) in &src.type_counts {
        let d = dst.type_counts.entry(*loc).or_default();
        for (t, c) in types {
            add(d.entry(t.clone()).or_insert(0), *c, &mut out);
        }
    }
    for (loc, site) in &src.callsites {
        let d = dst.callsites.entry(*loc).or_default();
        for (name, callee) in site {
            let r = match d.entry(name.clone()) {
                btree_map::Entry::Occupied(mut e) => {
                    deep(|| merge_function(e.get_mut(), callee, weight, false))
                }
                btree_map::Entry::Vacant(e) => {
                    let slot = e.insert(FunctionSamples::default());
                    deep(|| merge_function(slot, callee, weight, true))
                }
            };
            first(&mut out, r);
        }
    }
    out
}

fn merge_owned(
    dst: &mut FunctionSamples,
    src: FunctionSamples,
    weight: Weight,
    fresh: bool,
) -> Option<MergeIssueKind> {
    if fresh || dst.name.is_empty() {
        dst.name = src.name;
        dst.attributes = src.attributes;
    }
    if dst.checksum == 0 {
        dst.checksum = src.checksum;
    } else if dst.checksum != src.checksum {
        return Some(MergeIssueKind::HashMismatch);
    }
    let mut out: Outcome = None;
    let overflow = |o: bool, out: &mut Outcome| {
        if o {
            first(out, Some(MergeIssueKind::CounterOverflow));
        }
    };
    let add = |slot: &mut u64, v: u64, out: &mut Outcome| {
        let (s, o) = weight.scale_add(v, *slot);
        *slot = s;
        overflow(o, out);
    };
    add(&mut dst.total_samples, src.total_samples, &mut out);
    add(&mut dst.head_samples, src.head_samples, &mut out);
    for (loc, mut rec) in src.body {
        match dst.body.entry(loc) {
            btree_map::Entry::Vacant(v) => {
                let mut o = false;
                if !weight.is_one() {
                    let (s, so) = weight.scale_add(rec.samples, 0);
                    rec.samples = s;
                    o |= so;
                    for c in rec.call_targets.values_mut() {
                        let (s, co) = weight.scale_add(*c, 0);
                        *c = s;
                        o |= co;
                    }
                }
                overflow(o, &mut out);
                v.insert(rec);
            }
            btree_map::Entry::Occupied(e) => {
                let d = e.into_mut();
                add(&mut d.samples, rec.samples, &mut out);
                for (t, c) in rec.call_targets {
                    add(d.call_targets.entry(t).or_insert(0), c, &mut out);
                }
            }
        }
    }
    for (loc, types) in src.type_counts {
        let d = dst.type_counts.entry(loc).or_default();
        for (t, c) in types {
            add(d.entry(t).or_insert(0), c, &mut out);
        }
    }
    for (loc, site) in src.callsites {
        let d = dst.callsites.entry(loc).or_default();
        for (name, mut callee) in site {
            let r = match d.entry(name) {
                btree_map::Entry::Occupied(mut e) => {
                    deep(|| merge_owned(e.get_mut(), callee, weight, false))
                }
                btree_map::Entry::Vacant(e) => {
                    let o = deep(|| scale(&mut callee, weight));
                    e.insert(callee);
                    o.then_some(MergeIssueKind::CounterOverflow)
                }
            };
            first(&mut out, r);
        }
    }
    out
}

fn scale(f: &mut FunctionSamples, weight: Weight) -> bool {
    if weight.is_one() {
        return false;
    }
    let mut o = false;
    let mut mul = |v: &mut u64| {
        let (s, over) = weight.scale_add(*v, 0);
        *v = s;
        o |= over;
    };
    mul(&mut f.total_samples);
    mul(&mut f.head_samples);
    for rec in f.body.values_mut() {
        mul(&mut rec.samples);
        rec.call_targets.values_mut().for_each(&mut mul);
    }
    for types in f.type_counts.values_mut() {
        types.values_mut().for_each(&mut mul);
    }
    for site in f.callsites.values_mut() {
        for callee in site.values_mut() {
            o |= deep(|| scale(callee, weight));
        }
    }
    o
}

/// Merging one body of a flat profile ([`FlatSampleProfile`]) into the map form: the same
/// result, and the same first problem, as reading that body into a [`FunctionSamples`] and
/// merging it with [`FunctionSamples::merge_from`] (the flat form's orders are the maps'), without
/// building the maps of the input.
impl FunctionSamples {
    /// Merges node `node` of `src` times `weight` into `self`, as
    /// [`FunctionSamples::merge_from`] with `fresh` false. `ids` maps `src`'s name indices to
    /// function identities.
    pub fn merge_flat(
        &mut self,
        src: &FlatSampleProfile,
        node: u32,
        ids: &[FunctionId],
        weight: Weight,
    ) -> Option<MergeIssueKind> {
        merge_flat(self, src, node, ids, weight)
    }

    /// The samples of node `node` of `src` times `weight` (what merging it into an empty
    /// profile gives, as [`FunctionSamples::scale`] of its map form), and whether a count
    /// saturated. `ids` maps `src`'s name indices to function identities.
    pub fn from_flat(
        src: &FlatSampleProfile,
        node: u32,
        ids: &[FunctionId],
        weight: Weight,
    ) -> (FunctionSamples, bool) {
        let mut over = false;
        let f = from_flat(src, node, ids, weight, &mut over);
        (f, over)
    }
}

fn scaled(v: u64, weight: Weight, over: &mut bool) -> u64 {
    if weight.is_one() {
        return v;
    }
    let (s, o) = weight.scale_add(v, 0);
    *over |= o;
    s
}

fn record_from_flat(
    src: &FlatSampleProfile,
    rec: &FlatRecord,
    ids: &[FunctionId],
    weight: Weight,
    over: &mut bool,
) -> SampleRecord {
    SampleRecord {
        samples: scaled(rec.samples, weight, over),
        call_targets: src
            .targets_of(rec)
            .iter()
            .map(|t| {
                (
                    ids[t.name as usize].clone(),
                    scaled(t.samples, weight, over),
                )
            })
            .collect(),
    }
}

fn from_flat(
    src: &FlatSampleProfile,
    node: u32,
    ids: &[FunctionId],
    weight: Weight,
    over: &mut bool,
) -> FunctionSamples {
    let n = &src.nodes[node as usize];
    let mut f = FunctionSamples::new(ids[n.name as usize].clone());
    f.total_samples = scaled(n.total_samples, weight, over);
    f.head_samples = scaled(n.head_samples, weight, over);
    f.checksum = n.checksum;
    f.attributes = n.attributes;
    f.body = src
        .records_of(n)
        .iter()
        .map(|r| (r.location, record_from_flat(src, r, ids, weight, over)))
        .collect();
    for c in src.children(node) {
        let callee = deep(|| from_flat(src, c, ids, weight, over));
        let loc = src.nodes[c as usize].location;
        f.callsites
            .entry(loc)
            .or_default()
            .insert(callee.name.clone(), callee);
    }
    f
}

fn merge_flat(
    dst: &mut FunctionSamples,
    src: &FlatSampleProfile,
    node: u32,
    ids: &[FunctionId],
    weight: Weight,
) -> Option<MergeIssueKind> {
    let n = &src.nodes[node as usize];
    if dst.name.is_empty() {
        dst.name = ids[n.name as usize].clone();
        dst.attributes = n.attributes;
    }
    if dst.checksum == 0 {
        dst.checksum = n.checksum;
    } else if dst.checksum != n.checksum {
        return Some(MergeIssueKind::HashMismatch);
    }
    let mut out: Outcome = None;
    let mut over = false;
    let add = |slot: &mut u64, v: u64, over: &mut bool| {
        let (s, o) = weight.scale_add(v, *slot);
        *slot = s;
        *over |= o;
    };
    add(&mut dst.total_samples, n.total_samples, &mut over);
    add(&mut dst.head_samples, n.head_samples, &mut over);
    for rec in src.records_of(n) {
        match dst.body.entry(rec.location) {
            btree_map::Entry::Vacant(v) => {
                v.insert(record_from_flat(src, rec, ids, weight, &mut over));
            }
            btree_map::Entry::Occupied(e) => {
                let d = e.into_mut();
                add(&mut d.samples, rec.samples, &mut over);
                for t in src.targets_of(rec) {
                    let id = &ids[t.name as usize];
                    let slot = match d.call_targets.get_mut(id) {
                        Some(s) => s,
                        None => d.call_targets.entry(id.clone()).or_insert(0),
                    };
                    add(slot, t.samples, &mut over);
                }
            }
        }
    }
    if over {
        first(&mut out, Some(MergeIssueKind::CounterOverflow));
    }
    for c in src.children(node) {
        let cn = &src.nodes[c as usize];
        let site = dst.callsites.entry(cn.location).or_default();
        let id = &ids[cn.name as usize];
        let r = match site.get_mut(id) {
            Some(d) => deep(|| merge_flat(d, src, c, ids, weight)),
            None => {
                let mut o = false;
                let callee = deep(|| from_flat(src, c, ids, weight, &mut o));
                site.insert(id.clone(), callee);
                o.then_some(MergeIssueKind::CounterOverflow)
            }
        };
        first(&mut out, r);
    }
    out
}
