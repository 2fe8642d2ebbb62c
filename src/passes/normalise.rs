//! Normalisation and canonical form of iprof profiles.
//!
//! * [`scales`] computes, per input and per section, the factor that makes the inputs
//!   contribute equally before they are merged (`--normalize=total|max`), so that a long run
//!   does not drown a short one. Factors are exact ratios of totals, always ≥ 1 (every input
//!   is scaled *up* to the largest input), so a count that was not zero never becomes zero
//!   and no precision is lost to rounding down. Sections are normalised independently, since
//!   their counts are different events (calls, branch executions, samples, …).
//! * [`canonicalize`] renumbers a profile into its canonical form: types sorted by name,
//!   methods sorted by (declaring type, name, signature), context nodes in depth-first order
//!   with children sorted by (call site, method), and, unless asked to keep them, types and
//!   methods that nothing references removed. Two profiles that are equal by names have
//!   byte-identical canonical output.

#[cfg(feature = "iprof")]
use crate::ir::context::{ContextTree, NodeId, Site};
#[cfg(feature = "iprof")]
use crate::ir::iprof::{
    IprofProfile, MAX_COUNT, Section, SectionTotals, SiteMap, TypeCount, sort_branches,
    sort_histogram,
};
#[cfg(feature = "iprof")]
use crate::ir::java_symbols::{JavaSymbols, MethodId, TypeId};

/// `--normalize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum NormalizeMode {
    /// Plain (weighted) sums.
    #[default]
    None,
    /// Scale each input so its per-section total equals the largest input's.
    Total,
    /// Scale each input so its per-section largest count equals the largest input's.
    Max,
}

/// An exact scale factor `num / den`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg(feature = "iprof")]
pub struct Ratio {
    /// Numerator.
    pub num: u64,
    /// Denominator (never 0).
    pub den: u64,
}

#[cfg(feature = "iprof")]
impl Ratio {
    /// Factor 1.
    pub const ONE: Ratio = Ratio { num: 1, den: 1 };

    /// True for factor 1.
    pub fn is_one(self) -> bool {
        self.num == self.den
    }

    /// `round_half_up(c × num / den)`, capped at [`MAX_COUNT`].
    #[inline]
    pub fn apply(self, c: u64) -> u64 {
        if self.num == self.den || self.den == 0 {
            return c;
        }
        let p = u128::from(c) * u128::from(self.num);
        let q = (p + u128::from(self.den / 2)) / u128::from(self.den);
        u64::try_from(q).unwrap_or(u64::MAX).min(MAX_COUNT)
    }
}

#[cfg(feature = "iprof")]
impl Default for Ratio {
    fn default() -> Self {
        Ratio::ONE
    }
}

/// Per-section factors of one input (indexed by `Section as usize`).
#[cfg(feature = "iprof")]
pub type SectionScales = [Ratio; 6];

/// The factors that normalise inputs with the given totals (one entry per input, same
/// order). With [`NormalizeMode::None`] every factor is 1.
#[cfg(feature = "iprof")]
pub fn scales(mode: NormalizeMode, totals: &[SectionTotals]) -> Vec<SectionScales> {
    let pick = |t: &SectionTotals, s: Section| match mode {
        NormalizeMode::None => 0,
        NormalizeMode::Total => t.sum_of(s),
        NormalizeMode::Max => t.max_of(s),
    };
    let mut target = [0u64; 6];
    for t in totals {
        for s in Section::ALL {
            if let Some(x) = target.get_mut(s as usize) {
                *x = (*x).max(pick(t, s));
            }
        }
    }
    totals
        .iter()
        .map(|t| {
            let mut r = [Ratio::ONE; 6];
            for s in Section::ALL {
                let v = pick(t, s);
                let tg = target.get(s as usize).copied().unwrap_or(0);
                if v > 0
                    && tg > 0
                    && let Some(slot) = r.get_mut(s as usize)
                {
                    *slot = Ratio { num: tg, den: v };
                }
            }
            r
        })
        .collect()
}

/// Multiplies every count of `p` in place by its section's factor.
#[cfg(feature = "iprof")]
pub fn scale_in_place(p: &mut IprofProfile, f: &SectionScales) {
    let get = |s: Section| f.get(s as usize).copied().unwrap_or(Ratio::ONE);
    let r = get(Section::CallCount);
    p.call_counts.values_mut().for_each(|c| *c = r.apply(*c));
    let r = get(Section::Sampling);
    p.samples.values_mut().for_each(|c| *c = r.apply(*c));
    let r = get(Section::Conditional);
    p.conditionals
        .values_mut()
        .flatten()
        .for_each(|b| b.count = r.apply(b.count));
    let r = get(Section::VirtualInvoke);
    p.virtual_invokes
        .values_mut()
        .flatten()
        .for_each(|t| t.count = r.apply(t.count));
    let r = get(Section::Instanceof);
    p.instanceofs
        .values_mut()
        .flatten()
        .for_each(|t| t.count = r.apply(t.count));
    let r = get(Section::Monitor);
    p.monitors
        .iter_mut()
        .for_each(|t| t.count = r.apply(t.count));
}

/// Site `s` with its node translated by `node_map` (old id → new id; `None`: dropped).
#[cfg(feature = "iprof")]
fn site_in(node_map: &[Option<NodeId>], s: &Site) -> Option<Site> {
    node_map
        .get(s.node.0 as usize)
        .copied()
        .flatten()
        .map(|node| Site { node, bci: s.bci })
}

#[cfg(feature = "iprof")]
fn mark_types(h: &[TypeCount], used: &mut [bool]) {
    for tc in h {
        if let Some(u) = used.get_mut(tc.ty.0 as usize) {
            *u = true;
        }
    }
}

/// The canonical form of `p` (see the module docs). With `keep_all_symbols` no type or
/// method is removed.
#[cfg(feature = "iprof")]
pub fn canonicalize(p: &IprofProfile, keep_all_symbols: bool) -> IprofProfile {
    canonicalize_owned(p.clone(), keep_all_symbols)
}

/// [`canonicalize`], consuming `p`: its symbols and context tree are dropped once the new
/// ones are built, and each section once it is carried over, so that the peak is about
/// one profile plus one section, not two profiles (this runs at the end of every merge).
#[cfg(feature = "iprof")]
pub fn canonicalize_owned(mut p: IprofProfile, keep_all_symbols: bool) -> IprofProfile {
    let (symbols, contexts, type_map, node_map) = canonical_ids(&p, keep_all_symbols);
    p.symbols = JavaSymbols::new();
    p.contexts = ContextTree::new();
    let tmap = |t: TypeId| type_map.get(t.0 as usize).copied().flatten();
    let smap = |s: &Site| site_in(&node_map, s);
    let hist = |mut v: Vec<TypeCount>| {
        v.retain_mut(|tc| match tmap(tc.ty) {
            Some(ty) => {
                tc.ty = ty;
                true
            }
            None => false,
        });
        sort_histogram(&mut v);
        v
    };
    fn remap<V, W>(
        m: SiteMap<V>,
        smap: impl Fn(&Site) -> Option<Site>,
        f: impl Fn(V) -> W,
    ) -> SiteMap<W> {
        let mut out = SiteMap::default();
        out.reserve(m.len());
        for (s, v) in m {
            if let Some(ns) = smap(&s) {
                out.insert(ns, f(v));
            }
        }
        out
    }
    IprofProfile {
        version: p.version,
        present: p.present,
        call_counts: remap(std::mem::take(&mut p.call_counts), smap, |c| c),
        samples: remap(std::mem::take(&mut p.samples), smap, |c| c),
        conditionals: remap(std::mem::take(&mut p.conditionals), smap, |mut b| {
            sort_branches(&mut b);
            b
        }),
        virtual_invokes: remap(std::mem::take(&mut p.virtual_invokes), smap, hist),
        instanceofs: remap(std::mem::take(&mut p.instanceofs), smap, hist),
        monitors: hist(std::mem::take(&mut p.monitors)),
        symbols,
        contexts,
        provenance: p.provenance,
    }
}

/// The new ids of the canonical form of `p`: its symbol table, its context tree, and the
/// maps from old to new type ids and node ids (`None`: dropped).
#[allow(clippy::type_complexity)]
#[cfg(feature = "iprof")]
fn canonical_ids(
    p: &IprofProfile,
    keep_all_symbols: bool,
) -> (
    JavaSymbols,
    ContextTree,
    Vec<Option<TypeId>>,
    Vec<Option<NodeId>>,
) {
    let syms = &p.symbols;
    // 1. Which nodes, methods and types are referenced.
    let mut node_used = vec![false; p.contexts.len()];
    let mut mark_site = |s: &Site| {
        if let Some(u) = node_used.get_mut(s.node.0 as usize) {
            *u = true;
        }
    };
    p.call_counts.keys().for_each(&mut mark_site);
    p.samples.keys().for_each(&mut mark_site);
    p.conditionals.keys().for_each(&mut mark_site);
    p.virtual_invokes.keys().for_each(&mut mark_site);
    p.instanceofs.keys().for_each(&mut mark_site);
    // Ancestors of used nodes are used; children come after parents, so sweep backwards.
    let nodes: Vec<_> = p.contexts.nodes().map(|(_, n)| *n).collect();
    for i in (0..nodes.len()).rev() {
        if node_used.get(i).copied().unwrap_or(false)
            && let Some(parent) = nodes.get(i).and_then(|n| n.parent)
            && let Some(u) = node_used.get_mut(parent.0 as usize)
        {
            *u = true;
        }
    }
    let mut method_used = vec![keep_all_symbols; syms.method_count()];
    for (n, used) in nodes.iter().zip(&node_used) {
        if *used && let Some(u) = method_used.get_mut(n.method.0 as usize) {
            *u = true;
        }
    }
    let mut type_used = vec![keep_all_symbols; syms.type_count()];
    for (id, m) in syms.methods() {
        if method_used.get(id.0 as usize).copied().unwrap_or(false) {
            for t in m.signature {
                if let Some(u) = type_used.get_mut(t.0 as usize) {
                    *u = true;
                }
            }
        }
    }
    mark_types(&p.monitors, &mut type_used);
    p.virtual_invokes
        .values()
        .chain(p.instanceofs.values())
        .for_each(|h| mark_types(h, &mut type_used));

    // 2. New symbol table: types by name, methods by (declaring type, name, signature).
    let mut types: Vec<(TypeId, &str)> = syms
        .types()
        .filter(|(id, _)| type_used.get(id.0 as usize).copied().unwrap_or(false))
        .collect();
    types.sort_unstable_by(|a, b| a.1.cmp(b.1));
    let mut new_syms = JavaSymbols::new();
    new_syms.reserve(types.len(), 0);
    let mut type_map: Vec<Option<TypeId>> = vec![None; syms.type_count()];
    for (old, name) in &types {
        let new = new_syms.intern_type(name);
        if let Some(slot) = type_map.get_mut(old.0 as usize) {
            *slot = Some(new);
        }
    }
    let tmap = |t: TypeId| type_map.get(t.0 as usize).copied().flatten();
    let mut methods: Vec<(MethodId, &str, Vec<&str>)> = syms
        .methods()
        .filter(|(id, _)| method_used.get(id.0 as usize).copied().unwrap_or(false))
        .map(|(id, m)| (id, m.name, syms.signature_names(id)))
        .collect();
    methods.sort_unstable_by(|a, b| {
        a.2.first()
            .cmp(&b.2.first())
            .then_with(|| a.1.cmp(b.1))
            .then_with(|| a.2.cmp(&b.2))
    });
    let mut method_map: Vec<Option<MethodId>> = vec![None; syms.method_count()];
    let mut sig = Vec::new();
    for (old, name, _) in &methods {
        sig.clear();
        if let Some(m) = syms.method(*old) {
            sig.extend(m.signature.iter().filter_map(|t| tmap(*t)));
        }
        let new = new_syms.intern_method(name, &sig);
        if let Some(slot) = method_map.get_mut(old.0 as usize) {
            *slot = Some(new);
        }
    }
    let mmap = |m: MethodId| method_map.get(m.0 as usize).copied().flatten();

    // 3. Context tree in depth-first order, children sorted by (call site, new method id).
    let mut children: Vec<Vec<(i32, MethodId, NodeId)>> = vec![Vec::new(); nodes.len()];
    let mut roots: Vec<(i32, MethodId, NodeId)> = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        if !node_used.get(i).copied().unwrap_or(false) {
            continue;
        }
        let Some(m) = mmap(n.method) else { continue };
        let entry = (n.call_site, m, NodeId(i as u32));
        match n.parent {
            Some(par) => {
                if let Some(c) = children.get_mut(par.0 as usize) {
                    c.push(entry);
                }
            }
            None => roots.push(entry),
        }
    }
    let mut tree = ContextTree::new();
    tree.reserve(node_used.iter().filter(|u| **u).count());
    let mut node_map: Vec<Option<NodeId>> = vec![None; nodes.len()];
    roots.sort_unstable();
    let mut stack: Vec<(Option<NodeId>, (i32, MethodId, NodeId))> =
        roots.into_iter().rev().map(|e| (None, e)).collect();
    while let Some((parent, (cs, m, old))) = stack.pop() {
        let new = tree.intern(parent, cs, m);
        if let Some(slot) = node_map.get_mut(old.0 as usize) {
            *slot = Some(new);
        }
        if let Some(kids) = children.get_mut(old.0 as usize) {
            kids.sort_unstable();
            for k in kids.iter().rev() {
                stack.push((Some(new), *k));
            }
        }
    }
    (new_syms, tree, type_map, node_map)
}

/// `p` with its symbols renumbered: the new type ids follow `type_order` and the new method
/// ids follow `method_order` (each a permutation, or a subset: symbols left out are appended
/// in their old order). The profile is unchanged as a profile; only ids and arena order
/// differ. Tests and benchmarks use it to make inputs with shuffled ids.
#[cfg(feature = "iprof")]
pub fn renumbered(
    p: &IprofProfile,
    type_order: &[TypeId],
    method_order: &[MethodId],
) -> IprofProfile {
    let syms = &p.symbols;
    let mut new_syms = JavaSymbols::new();
    new_syms.reserve(syms.type_count(), syms.method_count());
    let mut type_map: Vec<Option<TypeId>> = vec![None; syms.type_count()];
    let all_types = syms.types().map(|(id, _)| id);
    for old in type_order.iter().copied().chain(all_types) {
        if let (Some(slot), Some(name)) = (type_map.get_mut(old.0 as usize), syms.type_name(old))
            && slot.is_none()
        {
            *slot = Some(new_syms.intern_type(name));
        }
    }
    let tmap = |t: TypeId| type_map.get(t.0 as usize).copied().flatten();
    let mut method_map: Vec<Option<MethodId>> = vec![None; syms.method_count()];
    let all_methods = syms.methods().map(|(id, _)| id);
    let mut sig = Vec::new();
    for old in method_order.iter().copied().chain(all_methods) {
        if let (Some(slot), Some(m)) = (method_map.get_mut(old.0 as usize), syms.method(old))
            && slot.is_none()
        {
            sig.clear();
            sig.extend(m.signature.iter().filter_map(|t| tmap(*t)));
            *slot = Some(new_syms.intern_method(m.name, &sig));
        }
    }
    let mmap = |m: MethodId| method_map.get(m.0 as usize).copied().flatten();
    let mut tree = ContextTree::new();
    let mut node_map: Vec<Option<NodeId>> = Vec::with_capacity(p.contexts.len());
    for (_, n) in p.contexts.nodes() {
        let parent = n
            .parent
            .and_then(|x| node_map.get(x.0 as usize).copied().flatten());
        node_map.push(mmap(n.method).map(|m| tree.intern(parent, n.call_site, m)));
    }
    let smap = |s: &Site| site_in(&node_map, s);
    let hist = |h: &[TypeCount]| -> Vec<TypeCount> {
        h.iter()
            .filter_map(|tc| {
                tmap(tc.ty).map(|ty| TypeCount {
                    ty,
                    count: tc.count,
                })
            })
            .collect()
    };
    fn remap<V, W>(
        m: &SiteMap<V>,
        smap: impl Fn(&Site) -> Option<Site>,
        f: impl Fn(&V) -> W,
    ) -> SiteMap<W> {
        m.iter()
            .filter_map(|(s, v)| smap(s).map(|ns| (ns, f(v))))
            .collect()
    }
    IprofProfile {
        version: p.version,
        present: p.present,
        provenance: p.provenance.clone(),
        call_counts: remap(&p.call_counts, smap, |c| *c),
        samples: remap(&p.samples, smap, |c| *c),
        conditionals: remap(&p.conditionals, smap, |b| b.clone()),
        virtual_invokes: remap(&p.virtual_invokes, smap, |h| hist(h)),
        instanceofs: remap(&p.instanceofs, smap, |h| hist(h)),
        monitors: hist(&p.monitors),
        symbols: new_syms,
        contexts: tree,
    }
}
