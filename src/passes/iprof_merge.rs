//! Merging GraalVM iprof profiles (IR → IR). The file-level iprof merge (read → normalise →
//! merge → trim → canonical form, in parallel) is the driver's: `pipeline::iprof`.
//!
//! # Semantics
//! * Identity is by name: a type is its name, a method its (name, signature type names), a
//!   context its path of (method, BCI) frames. Ids of the inputs are never compared.
//! * Dictionaries are united; the output gets fresh dense ids.
//! * Counts are summed per (section, context), each input's counts first normalised
//!   ([`super::normalise`]) and then multiplied by its weight (fractions rounded half up),
//!   saturating at [`MAX_COUNT`]:
//!   call counts and samples add; type histograms (virtual invoke, instanceof, monitor) add
//!   per type, keeping the union of types; conditional triples are matched by
//!   `(target BCI, branch index)` — the k-th occurrence of a pair in one input with the k-th
//!   in the other, since real files repeat pairs within a site — and unmatched triples are
//!   kept.
//! * The sections present in any input are present in the output.
//!
//! Merging is commutative and associative (as profiles: [`IprofProfile::by_names`]), so the
//! result does not depend on input order or on how inputs were grouped; the canonical output
//! ([`super::normalise::canonicalize`]) is then byte-identical for any order.
//!

use super::normalise::{self, Ratio, SectionScales};
use crate::ir::Weight;
use crate::ir::context::{NodeId, Site};
use crate::ir::iprof::{
    Branch, IprofProfile, MAX_COUNT, Section, SiteMap, TypeCount, add_counts, merge_branches,
    merge_histogram,
};
use crate::ir::java_symbols::{MethodId, TypeId};

/// How one input's counts are scaled: normalisation factors per section, then the weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InputScale {
    /// Per-section normalisation factors (see [`normalise::scales`]).
    pub sections: SectionScales,
    /// The input's weight (`--weighted-input`).
    pub weight: Weight,
}

impl InputScale {
    /// Weight only.
    pub fn weighted(weight: Weight) -> Self {
        InputScale {
            sections: [Ratio::ONE; 6],
            weight,
        }
    }

    /// True if no count changes.
    pub fn is_identity(&self) -> bool {
        self.weight.is_one() && self.sections.iter().all(|r| r.is_one())
    }

    /// Scales count `c` of section `s`.
    #[inline]
    pub fn apply(&self, s: Section, c: u64) -> u64 {
        let r = self.sections.get(s as usize).copied().unwrap_or(Ratio::ONE);
        let c = r.apply(c);
        self.weight.scale(c).0.min(MAX_COUNT)
    }
}

fn is_empty_profile(p: &IprofProfile) -> bool {
    p.symbols.type_count() == 0
        && p.symbols.method_count() == 0
        && p.contexts.is_empty()
        && p.entry_count() == 0
}

/// Merges `other`, scaled by `scale`, into `acc`, taking `other` over when `acc` is empty.
pub fn merge_owned(acc: &mut IprofProfile, mut other: IprofProfile, scale: &InputScale) {
    if !is_empty_profile(acc) {
        merge_into(acc, &other, scale);
        return;
    }
    other.version = acc.version.max(other.version);
    other.present = acc.present.union(other.present);
    other.provenance = acc.provenance.clone();
    if !scale.is_identity() {
        scale_profile(&mut other, scale);
    }
    *acc = other;
}

/// Merges `other`, scaled by `scale`, into `acc`.
pub fn merge_into(acc: &mut IprofProfile, other: &IprofProfile, scale: &InputScale) {
    if is_empty_profile(acc) {
        // Fast path: the first input becomes the accumulator.
        let keep_version = acc.version.max(other.version);
        let present = acc.present.union(other.present);
        let provenance = acc.provenance.clone();
        *acc = other.clone();
        acc.version = keep_version;
        acc.present = present;
        acc.provenance = provenance;
        if !scale.is_identity() {
            scale_profile(acc, scale);
        }
        return;
    }
    acc.version = acc.version.max(other.version);
    acc.present = acc.present.union(other.present);
    let os = &other.symbols;
    acc.symbols.reserve(os.type_count(), os.method_count());
    let type_map: Vec<TypeId> = os
        .types()
        .map(|(_, name)| acc.symbols.intern_type(name))
        .collect();
    let tmap = |t: TypeId| type_map.get(t.0 as usize).copied();
    let mut sig: Vec<TypeId> = Vec::new();
    let mut method_map: Vec<MethodId> = Vec::with_capacity(os.method_count());
    for (_, m) in os.methods() {
        sig.clear();
        sig.extend(m.signature.iter().filter_map(|t| tmap(*t)));
        method_map.push(acc.symbols.intern_method(m.name, &sig));
    }
    acc.contexts.reserve(other.contexts.len());
    let mut node_map: Vec<NodeId> = Vec::with_capacity(other.contexts.len());
    for (_, n) in other.contexts.nodes() {
        // Parents come before children, so the parent is already translated.
        let parent = n.parent.and_then(|p| node_map.get(p.0 as usize).copied());
        let method = method_map
            .get(n.method.0 as usize)
            .copied()
            .unwrap_or(MethodId(0));
        node_map.push(acc.contexts.intern(parent, n.call_site, method));
    }
    let smap = |s: &Site| {
        node_map
            .get(s.node.0 as usize)
            .map(|&node| Site { node, bci: s.bci })
    };
    fn fold<V>(
        acc: &mut SiteMap<V>,
        other: &SiteMap<V>,
        smap: impl Fn(&Site) -> Option<Site>,
        mut f: impl FnMut(Option<&mut V>, &V) -> Option<V>,
    ) {
        acc.reserve(other.len());
        for (s, v) in other {
            let Some(ns) = smap(s) else { continue };
            match acc.get_mut(&ns) {
                Some(a) => {
                    f(Some(a), v);
                }
                None => {
                    if let Some(nv) = f(None, v) {
                        acc.insert(ns, nv);
                    }
                }
            }
        }
    }
    let sc = *scale;
    fold(&mut acc.call_counts, &other.call_counts, smap, |a, c| {
        let c = sc.apply(Section::CallCount, *c);
        match a {
            Some(a) => {
                *a = add_counts(*a, c);
                None
            }
            None => Some(c),
        }
    });
    fold(&mut acc.samples, &other.samples, smap, |a, c| {
        let c = sc.apply(Section::Sampling, *c);
        match a {
            Some(a) => {
                *a = add_counts(*a, c);
                None
            }
            None => Some(c),
        }
    });
    fold(&mut acc.conditionals, &other.conditionals, smap, |a, bs| {
        let scaled: Vec<Branch> = bs
            .iter()
            .map(|b| Branch {
                count: sc.apply(Section::Conditional, b.count),
                ..*b
            })
            .collect();
        match a {
            Some(a) => {
                merge_branches(a, &scaled);
                None
            }
            None => Some(scaled),
        }
    });
    let hist = |s: Section, h: &[TypeCount]| -> Vec<TypeCount> {
        h.iter()
            .filter_map(|tc| {
                tmap(tc.ty).map(|ty| TypeCount {
                    ty,
                    count: sc.apply(s, tc.count),
                })
            })
            .collect()
    };
    for (s, acc_map, other_map) in [
        (
            Section::VirtualInvoke,
            &mut acc.virtual_invokes,
            &other.virtual_invokes,
        ),
        (
            Section::Instanceof,
            &mut acc.instanceofs,
            &other.instanceofs,
        ),
    ] {
        fold(acc_map, other_map, smap, |a, h| {
            let h = hist(s, h);
            match a {
                Some(a) => {
                    merge_histogram(a, h);
                    None
                }
                None => Some(h),
            }
        });
    }
    let mon = hist(Section::Monitor, &other.monitors);
    merge_histogram(&mut acc.monitors, mon);
}

/// Scales every count of `p` in place.
pub fn scale_profile(p: &mut IprofProfile, scale: &InputScale) {
    normalise::scale_in_place(p, &scale.sections);
    if scale.weight.is_one() {
        return;
    }
    let w = |c: &mut u64| *c = scale.weight.scale(*c).0.min(MAX_COUNT);
    p.call_counts.values_mut().for_each(w);
    p.samples.values_mut().for_each(w);
    p.conditionals
        .values_mut()
        .flatten()
        .for_each(|b| w(&mut b.count));
    p.virtual_invokes
        .values_mut()
        .chain(p.instanceofs.values_mut())
        .flatten()
        .for_each(|t| w(&mut t.count));
    p.monitors.iter_mut().for_each(|t| w(&mut t.count));
}

/// Merges profiles in memory, in order (the result is the same for any order).
pub fn merge_profiles(inputs: &[(&IprofProfile, InputScale)]) -> IprofProfile {
    let mut acc = IprofProfile::new();
    for (p, s) in inputs {
        merge_into(&mut acc, p, s);
    }
    acc
}
