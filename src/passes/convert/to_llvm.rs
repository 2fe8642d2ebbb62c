//! iprof → LLVM (see the module docs of [`super`] for the mapping).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::shape::{ShapeItem, structural_hash};
use super::{
    BITMAP_BCI, COUNTERS_BCI, ConvertReport, HASH_TYPE_PREFIX, KIND_TYPE_PREFIX,
    LLVM_FUNCTION_TYPE, MD5_TYPE_PREFIX, NAME_TYPE_PREFIX, ORDER_TYPE_PREFIX, SIZE_TYPE_PREFIX,
    canonical_order, spelling,
};
use crate::bytes::limits::MAX_VALUES_PER_SITE;
use crate::ir::context::NodeId;
use crate::ir::iprof::{Branch, IprofProfile, TypeCount, sort_branches};
use crate::ir::java_symbols::MethodId;
use crate::ir::{
    Counters, FunctionKey, FunctionRecord, Profile, ProfileKind, SymbolTable, ValueCount,
    ValueKind, ValueProfile, ValueSite,
};
use crate::passes::trim::{self, TrimOptions};

/// Options of [`iprof_to_llvm`].
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToLlvmOptions {
    /// Keep calling contexts as records of their own instead of folding them into their
    /// methods.
    pub keep_contexts: bool,
}

/// What one method in one context has.
#[derive(Default)]
struct Entries {
    call_count: Option<u64>,
    conditionals: BTreeMap<i32, Vec<Branch>>,
    virtual_invokes: BTreeMap<i32, Vec<TypeCount>>,
}

/// Converts an iprof profile into an LLVM profile, with what could not be carried.
pub fn iprof_to_llvm(p: &IprofProfile, o: &ToLlvmOptions) -> (Profile<'static>, ConvertReport) {
    let mut report = ConvertReport::default();
    let folded;
    let p = if o.keep_contexts {
        p
    } else {
        folded = fold_contexts(p, &mut report);
        &folded
    };
    report_dropped(p, &mut report);
    let by_node = entries_by_node(p);
    let mut built = Built::default();
    built.records.reserve(by_node.len());
    for (node, e) in by_node {
        built.add(p, node, &e);
    }
    report.add(built.unencodable, |n| {
        format!(
            "methods: {n} with BCIs or branch indices beyond what a record can encode \
             (±131071, ±32767), dropped"
        )
    });
    report.add(built.capped, |n| {
        format!(
            "virtualInvokeProfiles: {n} histograms of more than {MAX_VALUES_PER_SITE} types \
             cut to the {MAX_VALUES_PER_SITE} most frequent (LLVM's limit per site)"
        )
    });
    report.add(built.foreign_bad, |n| {
        format!("{LLVM_FUNCTION_TYPE}: {n} methods whose encoding is damaged, dropped")
    });
    let mut kind = built.kind;
    if kind == ProfileKind::empty() {
        kind = ProfileKind::IR.union(ProfileKind::ENTRY_FIRST);
    }
    if kind.contains(ProfileKind::FRONTEND) && kind.is_ir() {
        report.lines.push(
            "kind: front-end LLVM functions and IR-level records in one profile; written as \
             IR-level"
                .into(),
        );
        kind.remove(ProfileKind::FRONTEND);
    }
    let profile = Profile {
        kind,
        records: built.records,
        names: Arc::new(built.names),
        vtable_names: Arc::new(built.vtable_names),
        provenance: crate::ir::Provenance {
            path: None,
            format: "converted from iprof".into(),
        },
        ..Default::default()
    };
    (profile, report)
}

/// `p` with every calling context folded into its method (what `--keep-contexts` keeps).
fn fold_contexts(p: &IprofProfile, report: &mut ConvertReport) -> IprofProfile {
    let (t, stats) = trim::trim(
        p,
        &TrimOptions {
            max_depth: Some(1),
            ..Default::default()
        },
    );
    report.add(stats.folded_deep, |n| {
        format!(
            "contexts: {n} entries in calling contexts folded into their methods \
             (--keep-contexts keeps them as records of their own)"
        )
    });
    t
}

/// Reports the sections an LLVM profile cannot carry.
fn report_dropped(p: &IprofProfile, report: &mut ConvertReport) {
    report.add(u64::from(!p.monitors.is_empty()), |_| {
        format!(
            "monitorProfiles: 1 histogram of {} types not representable in profdata, dropped",
            p.monitors.len()
        )
    });
    report.add(p.instanceofs.len() as u64, |n| {
        format!("instanceofProfiles: {n} entries not representable in profdata, dropped")
    });
    report.add(p.samples.len() as u64, |n| {
        format!("samplingProfiles: {n} entries not representable in profdata, dropped")
    });
}

/// What each context node has, in node order.
fn entries_by_node(p: &IprofProfile) -> BTreeMap<NodeId, Entries> {
    let mut by_node: BTreeMap<NodeId, Entries> = BTreeMap::new();
    for (s, c) in &p.call_counts {
        by_node.entry(s.node).or_default().call_count = Some(*c);
    }
    for (s, b) in &p.conditionals {
        by_node
            .entry(s.node)
            .or_default()
            .conditionals
            .insert(s.bci, b.clone());
    }
    for (s, h) in &p.virtual_invokes {
        by_node
            .entry(s.node)
            .or_default()
            .virtual_invokes
            .insert(s.bci, h.clone());
    }
    by_node
}

/// The records built so far, their names and kind, and what could not be built.
#[derive(Default)]
struct Built {
    records: Vec<FunctionRecord<'static>>,
    names: SymbolTable,
    vtable_names: SymbolTable,
    kind: ProfileKind,
    /// Methods with BCIs or branch indices a record cannot encode.
    unencodable: u64,
    /// Histograms cut to LLVM's limit of values per site.
    capped: u64,
    /// LLVM functions whose encoding is damaged.
    foreign_bad: u64,
}

impl Built {
    /// Adds the record of context node `node`, which has `e`: an LLVM function carried
    /// through iprof, or a Java method.
    fn add(&mut self, p: &IprofProfile, node: NodeId, e: &Entries) {
        let Some(n) = p.contexts.get(node) else {
            return;
        };
        let llvm_function = n.parent.is_none()
            && p.symbols
                .method(n.method)
                .and_then(|m| m.signature.first().copied())
                .and_then(|t| p.symbols.type_name(t))
                == Some(LLVM_FUNCTION_TYPE);
        if llvm_function {
            match llvm_function_record(p, n.method, e, &mut self.names, &mut self.vtable_names) {
                Some((r, k)) => {
                    self.kind.insert(k);
                    self.records.push(r);
                }
                None => self.foreign_bad += 1,
            }
            return;
        }
        let name = record_name(p, node);
        match method_record(e, p, &mut self.vtable_names, &mut self.capped) {
            Some(mut r) => {
                r.key.name = self.names.insert(name.as_bytes());
                self.kind
                    .insert(ProfileKind::IR.union(ProfileKind::ENTRY_FIRST));
                self.records.push(r);
            }
            None => self.unencodable += 1,
        }
    }
}

/// Spells method `m` (see [`spelling`]).
fn spell_method(p: &IprofProfile, m: MethodId, out: &mut String) {
    let m = p.symbols.method(m);
    let sig: Vec<&str> = m
        .map(|m| {
            m.signature
                .iter()
                .map(|t| p.symbols.type_name(*t).unwrap_or(""))
                .collect()
        })
        .unwrap_or_default();
    spelling::method(m.map_or("", |m| m.name), &sig, out);
}

/// The PGO name of the record of `node`: its method, then each caller with the BCI of the
/// call in it (`m<caller:12<outer:3`).
fn record_name(p: &IprofProfile, node: NodeId) -> String {
    let mut out = String::new();
    let Some(n) = p.contexts.get(node) else {
        return out;
    };
    spell_method(p, n.method, &mut out);
    let (mut call_site, mut parent) = (n.call_site, n.parent);
    while let Some(pn) = parent.and_then(|id| p.contexts.get(id)) {
        out.push('<');
        spell_method(p, pn.method, &mut out);
        out.push(':');
        out.push_str(&call_site.to_string());
        call_site = pn.call_site;
        parent = pn.parent;
    }
    out
}

/// The record of one method (in one context); `None` if its shape cannot be encoded.
fn method_record(
    e: &Entries,
    p: &IprofProfile,
    vtable_names: &mut SymbolTable,
    capped: &mut u64,
) -> Option<FunctionRecord<'static>> {
    let mut shape: Vec<u64> = Vec::new();
    let mut counters = vec![e.call_count.unwrap_or(0)];
    if e.call_count.is_some() {
        shape.push(ShapeItem::CallCount.encode()?);
    }
    for (&bci, branches) in &e.conditionals {
        shape.push(ShapeItem::Conditional { bci }.encode()?);
        let mut b = branches.clone();
        sort_branches(&mut b);
        let mut occ: BTreeMap<(i32, i32), u8> = BTreeMap::new();
        for x in &b {
            let k = occ.entry((x.target_bci, x.index)).or_insert(0);
            shape.push(
                ShapeItem::Successor {
                    site: bci,
                    target: x.target_bci,
                    index: x.index,
                    occurrence: *k,
                }
                .encode()?,
            );
            *k = k.checked_add(1)?;
            counters.push(x.count);
        }
    }
    let mut vsites = Vec::with_capacity(e.virtual_invokes.len());
    for (&bci, h) in &e.virtual_invokes {
        shape.push(ShapeItem::VirtualInvoke { bci }.encode()?);
        let mut site = ValueSite::default();
        for tc in h {
            let tn = p.symbols.type_name(tc.ty).unwrap_or("");
            site.values.push(ValueCount {
                value: vtable_names.insert(tn.as_bytes()),
                count: tc.count,
            });
        }
        if site.values.len() > MAX_VALUES_PER_SITE {
            *capped += 1;
        }
        site.sort_and_cap();
        vsites.push(site);
    }
    shape.sort_unstable();
    let cfg = structural_hash(&shape);
    let mut values = ValueProfile::default();
    *values.kind_mut(ValueKind::VTable) = vsites;
    *values.kind_mut(ValueKind::MemOpSize) = shape
        .chunks(MAX_VALUES_PER_SITE)
        .map(|c| ValueSite {
            values: c
                .iter()
                .map(|&v| ValueCount { value: v, count: 1 })
                .collect(),
        })
        .collect();
    Some(FunctionRecord {
        key: FunctionKey { name: 0, cfg },
        counters: Counters::Owned(counters),
        bitmap: Cow::Owned(Vec::new()),
        values: Some(Box::new(values)),
    })
}

/// Inverts the `llvm.profile.Function` encoding of an LLVM function (see [`super`]):
/// the record and the profile kind it carried. `None` if the encoding is damaged.
fn llvm_function_record(
    p: &IprofProfile,
    method: MethodId,
    e: &Entries,
    names: &mut SymbolTable,
    vtable_names: &mut SymbolTable,
) -> Option<(FunctionRecord<'static>, ProfileKind)> {
    let m = p.symbols.method(method)?;
    let sig: Vec<&str> = m
        .signature
        .iter()
        .map(|t| p.symbols.type_name(*t))
        .collect::<Option<_>>()?;
    let mut cfg = None;
    let mut kind = None;
    let mut name_hash = None;
    for t in sig.iter().skip(1) {
        if let Some(h) = t.strip_prefix(HASH_TYPE_PREFIX) {
            cfg = Some(u64::from_str_radix(h, 16).ok()?);
        } else if let Some(k) = t.strip_prefix(KIND_TYPE_PREFIX) {
            let bits = u64::from_str_radix(k.strip_prefix("0x")?, 16).ok()?;
            kind = Some(ProfileKind::from_version_word(bits << 32).0);
        } else if let Some(h) = t.strip_prefix(NAME_TYPE_PREFIX) {
            name_hash = Some(u64::from_str_radix(h, 16).ok()?);
        } else {
            return None;
        }
    }
    let name = match name_hash {
        Some(h) => h,
        None => names.insert(m.name.as_bytes()),
    };
    let mut counters = vec![e.call_count.unwrap_or(0)];
    let by_target = |b: &[Branch]| -> Option<Vec<u64>> {
        let mut v: Vec<&Branch> = b.iter().collect();
        v.sort_by_key(|x| x.target_bci);
        v.iter()
            .enumerate()
            .map(|(i, x)| (x.target_bci == i as i32 + 1).then_some(x.count))
            .collect()
    };
    if let Some(b) = e.conditionals.get(&COUNTERS_BCI) {
        counters.extend(by_target(b)?);
    }
    let bitmap = match e.conditionals.get(&BITMAP_BCI) {
        Some(b) => by_target(b)?
            .into_iter()
            .map(|c| u8::try_from(c).ok())
            .collect::<Option<Vec<u8>>>()?,
        None => Vec::new(),
    };
    let mut values = ValueProfile::default();
    for (&bci, h) in &e.virtual_invokes {
        let k = (bci >> 20) - 1;
        let site = (bci & ((1 << 20) - 1)) as usize;
        let kind_v = ValueKind::from_u32(u32::try_from(k).ok()?)?;
        let sites = values.kind_mut(kind_v);
        if sites.len() != site {
            return None;
        }
        let mut vs = ValueSite::default();
        let mut order: Option<&str> = None;
        let mut entries: Vec<(&str, u64)> = Vec::with_capacity(h.len());
        for tc in h {
            let tn = p.symbols.type_name(tc.ty)?;
            if let Some(o) = tn.strip_prefix(ORDER_TYPE_PREFIX) {
                // Two markers (iprof profiles merged from differently ordered sites): the
                // order is not known, the canonical one stands.
                order = Some(if order.is_none() { o } else { "" });
                continue;
            }
            entries.push((tn, tc.count));
            // Placeholders of repeated values end in `#k`.
            let placeholder = |prefix: &str| {
                tn.strip_prefix(prefix)
                    .map(|v| v.split_once('#').map_or(v, |(v, _)| v))
            };
            let value = if let Some(hex) = placeholder(MD5_TYPE_PREFIX) {
                u64::from_str_radix(hex, 16).ok()?
            } else if kind_v == ValueKind::MemOpSize {
                placeholder(SIZE_TYPE_PREFIX)?.parse().ok()?
            } else if kind_v == ValueKind::VTable {
                vtable_names.insert(tn.as_bytes())
            } else {
                names.insert(tn.as_bytes())
            };
            vs.values.push(ValueCount {
                value,
                count: tc.count,
            });
        }
        vs.values = restore_order(&vs.values, &entries, order);
        vs.sort_and_cap();
        sites.push(vs);
    }
    Some((
        FunctionRecord {
            key: FunctionKey { name, cfg: cfg? },
            counters: Counters::Owned(counters),
            bitmap: Cow::Owned(bitmap),
            values: (!values.is_empty()).then(|| Box::new(values)),
        },
        kind?,
    ))
}

/// A site's `values` (parallel to `entries`, their (type name, count)) in the order of the
/// site's [`ORDER_TYPE_PREFIX`] marker (`order`: each value's rank among the canonically
/// sorted values, in site order), or in the canonical order (descending count, then type
/// name) when there is no marker or it does not fit: a marker may only reorder values of
/// equal count.
fn restore_order(
    values: &[ValueCount],
    entries: &[(&str, u64)],
    order: Option<&str>,
) -> Vec<ValueCount> {
    let by_canonical: Vec<ValueCount> = canonical_order(entries)
        .into_iter()
        .map(|i| values[i])
        .collect();
    let ranks: Option<Vec<usize>> =
        order.and_then(|o| o.split('.').map(|r| r.parse().ok()).collect());
    let Some(ranks) = ranks else {
        return by_canonical;
    };
    let mut used = vec![false; by_canonical.len()];
    let fits = ranks.len() == by_canonical.len()
        && ranks
            .iter()
            .all(|&r| r < used.len() && !std::mem::replace(&mut used[r], true));
    if !fits {
        return by_canonical;
    }
    let restored: Vec<ValueCount> = ranks.iter().map(|&r| by_canonical[r]).collect();
    if restored.windows(2).any(|w| w[0].count < w[1].count) {
        return by_canonical;
    }
    restored
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vc(value: u64, count: u64) -> ValueCount {
        ValueCount { value, count }
    }

    #[test]
    fn order_markers_reorder_only_equal_counts() {
        // Histogram order (count descending, then name): b(5) c(5) a(2); the LLVM site had
        // c, b, a — ranks 1, 0, 2.
        let values = [vc(2, 5), vc(3, 5), vc(1, 2)];
        let entries = [("b", 5), ("c", 5), ("a", 2)];
        let ranked = |o: Option<&str>| -> Vec<u64> {
            restore_order(&values, &entries, o)
                .iter()
                .map(|v| v.value)
                .collect()
        };
        assert_eq!(ranked(Some("1.0.2")), vec![3, 2, 1]);
        // No marker, or one that does not fit (wrong length, repeated rank, or an order that
        // would put a smaller count first): the canonical order.
        for bad in [
            None,
            Some(""),
            Some("1.0"),
            Some("0.0.1"),
            Some("2.0.1"),
            Some("x.y.z"),
        ] {
            assert_eq!(ranked(bad), vec![2, 3, 1], "{bad:?}");
        }
    }
}
