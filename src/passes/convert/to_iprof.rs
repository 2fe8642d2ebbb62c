//! LLVM → iprof (see the module docs of [`super`] for the mapping).

use super::shape::{ShapeItem, structural_hash};
use super::spelling::{self, SpelledMethod, SpelledRecord};
use super::{
    BITMAP_BCI, COUNTERS_BCI, ConvertReport, HASH_TYPE_PREFIX, KIND_TYPE_PREFIX,
    LLVM_FUNCTION_TYPE, MD5_TYPE_PREFIX, NAME_TYPE_PREFIX, ORDER_TYPE_PREFIX, SIZE_TYPE_PREFIX,
    UNKNOWN_NAME_PREFIX, canonical_order, value_site_bci,
};
use crate::ir::context::{Frame, Site};
use crate::ir::iprof::{Branch, IprofProfile, MAX_COUNT, Section, TypeCount};
use crate::ir::java_symbols::{JavaSymbols, MethodId, TypeId};
use crate::ir::{FunctionRecord, Profile, ValueKind};

/// Counts over `i64::MAX` seen while converting.
#[derive(Default)]
struct Caps {
    counts: u64,
    unnamed_types: u64,
}

impl Caps {
    fn count(&mut self, c: u64) -> u64 {
        if c > MAX_COUNT {
            self.counts += 1;
            MAX_COUNT
        } else {
            c
        }
    }
}

/// Converts an LLVM profile into an iprof profile, with what could not be carried.
pub fn llvm_to_iprof(p: &Profile<'_>) -> (IprofProfile, ConvertReport) {
    let mut out = IprofProfile::new();
    let mut report = ConvertReport::default();
    let mut caps = Caps::default();
    let mut foreign = 0u64;
    let mut unencodable = 0u64;
    for r in &p.records {
        match decode_iprof_record(p, r) {
            Some(d) => add_iprof_record(&mut out, p, r, &d, &mut caps),
            None => {
                if add_llvm_function(&mut out, p, r, &mut caps).is_none() {
                    unencodable += 1;
                } else {
                    foreign += 1;
                }
            }
        }
    }
    for s in [
        Section::CallCount,
        Section::Conditional,
        Section::VirtualInvoke,
    ] {
        let has = match s {
            Section::CallCount => !out.call_counts.is_empty(),
            Section::Conditional => !out.conditionals.is_empty(),
            _ => !out.virtual_invokes.is_empty(),
        };
        if has {
            out.present.insert(s);
        }
    }
    report.add(foreign, |n| {
        format!(
            "functions: {n} LLVM functions that did not come from iprof kept as methods of \
             the synthetic type {LLVM_FUNCTION_TYPE}"
        )
    });
    report.add(unencodable, |n| {
        format!("functions: {n} with more value sites than can be encoded (2^20), dropped")
    });
    report.add(caps.counts, |n| {
        format!("counts: {n} above the largest Java long (2^63 - 1), capped")
    });
    report.add(caps.unnamed_types, |n| {
        format!(
            "vtable names: {n} receiver types known only by their MD5 (the profile has no \
             vtable-names section), written as {MD5_TYPE_PREFIX}<hash>"
        )
    });
    report.add(p.temporal.traces.len() as u64, |n| {
        format!("temporal profile traces: {n} not representable in iprof, dropped")
    });
    report.add(p.binary_ids.len() as u64, |n| {
        format!("binary IDs: {n} not representable in iprof, dropped")
    });
    out.provenance.format = format!("converted from LLVM ({})", p.provenance.format);
    (out, report)
}

/// A record made by the iprof → LLVM mapping, read back.
struct Decoded {
    record: SpelledRecord,
    items: Vec<ShapeItem>,
}

/// Reads `r` as a record of the iprof → LLVM mapping, or `None` if it is not one (its name
/// does not read as a spelling, or its shape is missing or inconsistent).
fn decode_iprof_record(p: &Profile<'_>, r: &FunctionRecord<'_>) -> Option<Decoded> {
    let name = std::str::from_utf8(p.names.get(r.key.name)?).ok()?;
    let record = spelling::parse_record(name)?;
    let values = r.values.as_deref()?;
    if !values.kind(ValueKind::IndirectCall).is_empty() || !r.bitmap.is_empty() {
        return None;
    }
    let mut raw: Vec<u64> = values
        .kind(ValueKind::MemOpSize)
        .iter()
        .flat_map(|s| s.values.iter().map(|v| v.value))
        .collect();
    raw.sort_unstable();
    raw.dedup();
    if raw.is_empty() || structural_hash(&raw) != r.key.cfg {
        return None;
    }
    let items: Vec<ShapeItem> = raw
        .iter()
        .map(|&v| ShapeItem::decode(v))
        .collect::<Option<_>>()?;
    let successors = items
        .iter()
        .filter(|i| matches!(i, ShapeItem::Successor { .. }))
        .count();
    let vsites = items
        .iter()
        .filter(|i| matches!(i, ShapeItem::VirtualInvoke { .. }))
        .count();
    let has_call_count = items.contains(&ShapeItem::CallCount);
    if r.counters.len() != 1 + successors
        || values.kind(ValueKind::VTable).len() != vsites
        || (!has_call_count && r.counters.get(0) != Some(0))
    {
        return None;
    }
    Some(Decoded { record, items })
}

fn intern_method(out: &mut IprofProfile, m: &SpelledMethod) -> MethodId {
    let sig: Vec<TypeId> = m
        .signature
        .iter()
        .map(|t| out.symbols.intern_type(t))
        .collect();
    out.symbols.intern_method(&m.name, &sig)
}

/// Adds the entries of a decoded record.
fn add_iprof_record(
    out: &mut IprofProfile,
    p: &Profile<'_>,
    r: &FunctionRecord<'_>,
    d: &Decoded,
    caps: &mut Caps,
) {
    let method = intern_method(out, &d.record.method);
    let mut frames = vec![Frame { method, bci: 0 }];
    for (caller, bci) in &d.record.callers {
        let m = intern_method(out, caller);
        frames.push(Frame {
            method: m,
            bci: *bci,
        });
    }
    let mut site_at = |out: &mut IprofProfile, bci: i32| -> Option<Site> {
        if let Some(f) = frames.first_mut() {
            f.bci = bci;
        }
        out.contexts.intern_innermost_first(&frames)
    };
    // Items are sorted: successors (tag 1) by (site, target, index, occurrence) — counters
    // follow (site, index, target, occurrence), so order them that way.
    let mut succ: Vec<(i32, i32, i32, u8)> = Vec::new();
    for it in &d.items {
        match *it {
            ShapeItem::CallCount => {
                if let Some(s) = site_at(out, 0) {
                    let c = caps.count(r.counters.get(0).unwrap_or(0));
                    out.call_counts.insert(s, c);
                }
            }
            ShapeItem::Conditional { bci } => {
                if let Some(s) = site_at(out, bci) {
                    out.conditionals.entry(s).or_default();
                }
            }
            ShapeItem::Successor {
                site,
                target,
                index,
                occurrence,
            } => succ.push((site, index, target, occurrence)),
            ShapeItem::VirtualInvoke { .. } => {}
        }
    }
    succ.sort_unstable();
    for (k, (site, index, target, _)) in succ.into_iter().enumerate() {
        let count = caps.count(r.counters.get(k + 1).unwrap_or(0));
        if let Some(s) = site_at(out, site) {
            out.conditionals.entry(s).or_default().push(Branch {
                target_bci: target,
                index,
                count,
            });
        }
    }
    let vbcis = d.items.iter().filter_map(|i| match i {
        ShapeItem::VirtualInvoke { bci } => Some(*bci),
        _ => None,
    });
    let vsites = r
        .values
        .as_deref()
        .map(|v| v.kind(ValueKind::VTable))
        .unwrap_or_default();
    for (bci, vs) in vbcis.zip(vsites) {
        let mut h = Vec::with_capacity(vs.values.len());
        for v in &vs.values {
            let ty = match p.vtable_names.get(v.value) {
                Some(n) => out.symbols.intern_type(&String::from_utf8_lossy(n)),
                None => {
                    caps.unnamed_types += 1;
                    out.symbols
                        .intern_type(&format!("{MD5_TYPE_PREFIX}{:016x}", v.value))
                }
            };
            h.push(TypeCount {
                ty,
                count: caps.count(v.count),
            });
        }
        if let Some(s) = site_at(out, bci) {
            out.virtual_invokes.insert(s, h);
        }
    }
}

/// Adds an LLVM function as a method of [`LLVM_FUNCTION_TYPE`]; `None` if it has more value
/// sites than BCIs can stand for.
fn add_llvm_function(
    out: &mut IprofProfile,
    p: &Profile<'_>,
    r: &FunctionRecord<'_>,
    caps: &mut Caps,
) -> Option<()> {
    let name = p
        .names
        .get(r.key.name)
        .and_then(|n| std::str::from_utf8(n).ok())
        .filter(|n| !n.starts_with(UNKNOWN_NAME_PREFIX));
    let syms: &mut JavaSymbols = &mut out.symbols;
    let mut sig = vec![
        syms.intern_type(LLVM_FUNCTION_TYPE),
        syms.intern_type(&format!("{HASH_TYPE_PREFIX}{:016x}", r.key.cfg)),
        syms.intern_type(&format!(
            "{KIND_TYPE_PREFIX}0x{:x}",
            p.kind.indexed_variant_bits() >> 32
        )),
    ];
    let method_name = match name {
        Some(n) => n.to_string(),
        None => {
            sig.push(syms.intern_type(&format!("{NAME_TYPE_PREFIX}{:016x}", r.key.name)));
            format!("{UNKNOWN_NAME_PREFIX}{:016x}", r.key.name)
        }
    };
    // Every value site must have a BCI before anything is added.
    if let Some(v) = r.values.as_deref() {
        for k in ValueKind::ALL {
            let n = v.kind(k).len();
            if n > 0 {
                value_site_bci(k.index(), n - 1)?;
            }
        }
    }
    let method = out.symbols.intern_method(&method_name, &sig);
    let site = |out: &mut IprofProfile, bci: i32| {
        out.contexts
            .intern_innermost_first(&[Frame { method, bci }])
    };
    if let Some(s) = site(out, 0) {
        let c = caps.count(r.counters.get(0).unwrap_or(0));
        out.call_counts.insert(s, c);
    }
    let triples = |caps: &mut Caps, it: &mut dyn Iterator<Item = u64>| -> Vec<Branch> {
        it.enumerate()
            .map(|(i, c)| Branch {
                target_bci: i as i32 + 1,
                index: 0,
                count: caps.count(c),
            })
            .collect()
    };
    if r.counters.len() > 1 {
        let b = triples(caps, &mut r.counters.iter().skip(1));
        if let Some(s) = site(out, COUNTERS_BCI) {
            out.conditionals.insert(s, b);
        }
    }
    if !r.bitmap.is_empty() {
        let b = triples(caps, &mut r.bitmap.iter().map(|&x| u64::from(x)));
        if let Some(s) = site(out, BITMAP_BCI) {
            out.conditionals.insert(s, b);
        }
    }
    if let Some(v) = r.values.as_deref() {
        for k in ValueKind::ALL {
            for (i, vs) in v.kind(k).iter().enumerate() {
                let bci = value_site_bci(k.index(), i)?;
                let mut h = Vec::with_capacity(vs.values.len() + 1);
                let mut type_names: Vec<(String, u64)> = Vec::with_capacity(vs.values.len());
                let mut seen: std::collections::HashMap<u64, u32> = Default::default();
                for x in &vs.values {
                    // A site may list a value more than once (unresolved indirect-call targets
                    // all read as 0); later occurrences get a `#k` suffix so that the
                    // histogram keeps them apart.
                    let n = seen.entry(x.value).or_insert(0);
                    *n += 1;
                    let tn = match (k, *n) {
                        (ValueKind::MemOpSize, 1) => format!("{SIZE_TYPE_PREFIX}{}", x.value),
                        (ValueKind::MemOpSize, n) => {
                            format!("{SIZE_TYPE_PREFIX}{}#{}", x.value, n - 1)
                        }
                        (_, n) if n > 1 => format!("{MD5_TYPE_PREFIX}{:016x}#{}", x.value, n - 1),
                        (ValueKind::IndirectCall, _) => named(p.names.get(x.value), x.value),
                        (ValueKind::VTable, _) => named(p.vtable_names.get(x.value), x.value),
                    };
                    let count = caps.count(x.count);
                    h.push(TypeCount {
                        ty: out.symbols.intern_type(&tn),
                        count,
                    });
                    type_names.push((tn, count));
                }
                if let Some(marker) = order_marker(&type_names) {
                    h.push(TypeCount {
                        ty: out.symbols.intern_type(&marker),
                        count: 0,
                    });
                }
                if let Some(s) = site(out, bci) {
                    out.virtual_invokes.insert(s, h);
                }
            }
        }
    }
    Some(())
}

/// The [`ORDER_TYPE_PREFIX`] type recording the order of `entries` ((type name, count), in
/// site order), or None when the order is the canonical one already.
fn order_marker(entries: &[(String, u64)]) -> Option<String> {
    let view: Vec<(&str, u64)> = entries.iter().map(|(t, c)| (t.as_str(), *c)).collect();
    let canonical = canonical_order(&view);
    if canonical.iter().enumerate().all(|(i, &j)| i == j) {
        return None;
    }
    let mut rank = vec![0usize; entries.len()];
    for (r, &i) in canonical.iter().enumerate() {
        rank[i] = r;
    }
    let mut m = String::from(ORDER_TYPE_PREFIX);
    for (i, r) in rank.iter().enumerate() {
        if i > 0 {
            m.push('.');
        }
        m.push_str(&r.to_string());
    }
    Some(m)
}

/// The type name standing for a function or vtable value: its name if known and UTF-8 (and
/// not itself spelled like an MD5 placeholder), else the placeholder.
fn named(name: Option<&crate::ir::Name>, hash: u64) -> String {
    match name.and_then(|n| std::str::from_utf8(n).ok()) {
        Some(n) if !n.starts_with(MD5_TYPE_PREFIX) && !n.starts_with(SIZE_TYPE_PREFIX) => {
            n.to_string()
        }
        _ => format!("{MD5_TYPE_PREFIX}{hash:016x}"),
    }
}
