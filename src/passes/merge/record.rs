//! LLVM's record semantics, alone: how one record is added to the accumulated one.
//!
//! Counter adds (weighted, saturating at [`MAX_COUNT`], pseudo counts kept apart), MC/DC
//! bitmap ORs, and the merge of value sites with LLVM's cap and its order of equal values
//! (libstdc++'s `std::sort`, [`super::super::libstdcxx_sort`]). Nothing here knows about files,
//! shards or threads; [`super::shard`] calls [`merge_into`] once per (record, input).

use super::super::libstdcxx_sort;
use super::super::weight::Weight;
use crate::bytes::limits::MAX_VALUES_PER_SITE;
use crate::codec::value_prof_data::FlatValues;
use crate::ir::{Counters, FunctionKey, ValueCount, ValueKind, ValueProfile, ValueSite};

/// LLVM's largest stored count: `u64::MAX − 1` and `u64::MAX` mark pseudo counts.
pub const MAX_COUNT: u64 = u64::MAX - 2;
/// First counter value LLVM uses to mark a pseudo-hot function.
pub const PSEUDO_HOT: u64 = u64::MAX;
/// First counter value LLVM uses to mark a pseudo-warm function.
pub const PSEUDO_WARM: u64 = u64::MAX - 1;

/// What merging one record into another found wrong.
#[derive(Debug, Clone)]
pub(super) enum EventKind {
    Overflow,
    Mismatch {
        what: &'static str,
        first_input: u32,
        first_value: u64,
        value: u64,
    },
}

#[derive(Debug)]
pub(super) struct AccRecord {
    pub(super) key: FunctionKey,
    pub(super) first_seen: (u32, u32),
    /// Where its counters are in the shard's arena: `start..start + len`.
    pub(super) counters: (usize, usize),
    pub(super) bitmap: Vec<u8>,
    pub(super) values: Option<Box<ValueProfile>>,
    /// The kinds (a bit per [`ValueKind::index`]) whose sites are held sorted by value, their
    /// count order deferred to the end of the merge (see [`merge_site`]).
    pub(super) values_by_value: u8,
    /// The kinds (a bit per [`ValueKind::index`]) with a site that holds a value several
    /// times, kept in LLVM's order (see [`merge_site`]); the other sites of a kind in
    /// `values_by_value` are in value order with distinct values.
    pub(super) values_repeated: u8,
}

/// The part of a record that merging reads.
pub(super) struct SrcRecord<'s, 'a> {
    pub(super) counters: &'s Counters<'a>,
    pub(super) bitmap: &'s [u8],
    pub(super) values: SrcValues<'s>,
}

/// A record's value sites: a front-end's [`ValueProfile`], or a raw file's flat blocks
/// (translated, each site in its file's order).
#[derive(Clone, Copy)]
pub(super) enum SrcValues<'s> {
    Tree(Option<&'s ValueProfile>),
    Flat(&'s FlatValues, Option<u32>),
}

impl<'s> SrcValues<'s> {
    fn num_sites(self, kind: ValueKind) -> usize {
        match self {
            SrcValues::Tree(v) => v.map_or(0, |v| v.kind(kind).len()),
            SrcValues::Flat(f, Some(b)) => f.num_sites(b, kind),
            SrcValues::Flat(_, None) => 0,
        }
    }

    fn site(self, kind: ValueKind, i: usize) -> &'s [ValueCount] {
        match self {
            SrcValues::Tree(v) => v
                .and_then(|v| v.kind(kind).get(i))
                .map_or(&[], |s| s.values.as_slice()),
            SrcValues::Flat(f, Some(b)) => f.site(b, kind, i),
            SrcValues::Flat(_, None) => &[],
        }
    }
}

/// LLVM's `InstrProfRecord::merge` followed by `sortValueData`.
#[allow(clippy::too_many_arguments)]
pub(super) fn merge_into(
    dst: &mut AccRecord,
    counters: &mut [u64],
    src: &SrcRecord<'_, '_>,
    w: Weight,
    weight_all: bool,
    scratch: &mut [Vec<ValueCount>; 2],
    report: &mut dyn FnMut(EventKind),
) {
    let first_input = dst.first_seen.0;
    if counters.len() != src.counters.len() {
        report(EventKind::Mismatch {
            what: "the number of counters differs (the function changed between the runs, or the \
                   profiles come from different binaries)",
            first_input,
            first_value: counters.len() as u64,
            value: src.counters.len() as u64,
        });
        return;
    }
    // Pseudo counts (first counter u64::MAX / u64::MAX-1) only merge with each other.
    let pseudo = |c: Option<u64>| matches!(c, Some(PSEUDO_HOT) | Some(PSEUDO_WARM));
    let dst_first = counters.first().copied();
    let src_first = src.counters.get(0);
    if pseudo(dst_first) || pseudo(src_first) {
        if !(pseudo(dst_first) && pseudo(src_first)) {
            report(EventKind::Mismatch {
                what: "a pseudo count (from sample-profile supplementation) meets a real count",
                first_input,
                first_value: dst_first.unwrap_or(0),
                value: src_first.unwrap_or(0),
            });
            return;
        }
        if let Some(c0) = counters.first_mut() {
            *c0 = if dst_first == Some(PSEUDO_HOT) || src_first == Some(PSEUDO_HOT) {
                PSEUDO_HOT
            } else {
                PSEUDO_WARM
            };
        }
        return;
    }
    if add_counters(counters, src.counters, w) {
        report(EventKind::Overflow);
    }
    if dst.bitmap.len() != src.bitmap.len() {
        report(EventKind::Mismatch {
            what: "the number of MC/DC bitmap bytes differs",
            first_input,
            first_value: dst.bitmap.len() as u64,
            value: src.bitmap.len() as u64,
        });
        return;
    }
    for (d, s) in dst.bitmap.iter_mut().zip(src.bitmap.iter()) {
        *d |= *s;
    }
    let mut overflow = false;
    for kind in ValueKind::ALL {
        let ns = src.values.num_sites(kind);
        let nd = dst.values.as_deref().map_or(0, |v| v.kind(kind).len());
        if ns != nd {
            report(EventKind::Mismatch {
                what: match kind {
                    ValueKind::IndirectCall => "the number of indirect-call sites differs",
                    ValueKind::MemOpSize => "the number of memory-operation sites differs",
                    ValueKind::VTable => "the number of vtable sites differs",
                },
                first_input,
                first_value: nd as u64,
                value: ns as u64,
            });
            continue;
        }
        if ns == 0 {
            continue;
        }
        let Some(dv) = dst.values.as_deref_mut() else {
            continue;
        };
        let bit = 1u8 << kind.index();
        let order = if dst.values_by_value & bit == 0 {
            SiteOrder::ByCount
        } else if dst.values_repeated & bit != 0 {
            SiteOrder::Check
        } else {
            SiteOrder::ByValue
        };
        let mut repeated = false;
        for (i, dsite) in dv.kind_mut(kind).iter_mut().enumerate() {
            let ssite = src.values.site(kind, i);
            let (o, r) = merge_site(dsite, ssite, order, w, weight_all, scratch);
            overflow |= o;
            repeated |= r;
        }
        dst.values_by_value |= bit;
        if repeated {
            dst.values_repeated |= bit;
        } else {
            dst.values_repeated &= !bit;
        }
    }
    if overflow {
        report(EventKind::Overflow);
    }
}

/// `dst[i] = min(dst[i] + src[i] × w, MAX_COUNT)`; returns true on saturation.
fn add_counters(dst: &mut [u64], src: &Counters<'_>, w: Weight) -> bool {
    if w.is_one()
        && let Counters::Raw64 { bytes, endian } = src
    {
        return match endian {
            crate::bytes::Endian::Little => add_raw(dst, bytes, u64::from_le_bytes),
            crate::bytes::Endian::Big => add_raw(dst, bytes, u64::from_be_bytes),
        };
    }
    let mut overflow = false;
    let mut step = |d: &mut u64, s: u64| {
        let (v, o) = w.scale_add(s, *d);
        let v = if v > MAX_COUNT {
            overflow = true;
            MAX_COUNT
        } else {
            v
        };
        overflow |= o;
        *d = v;
    };
    match src {
        Counters::Owned(_) | Counters::Shared { .. } => {
            for (d, s) in dst.iter_mut().zip(src.in_memory().unwrap_or(&[])) {
                step(d, *s);
            }
        }
        Counters::Raw64 { bytes, endian } => {
            for (d, b) in dst.iter_mut().zip(bytes.chunks_exact(8)) {
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                step(d, endian.u64(a));
            }
        }
        Counters::Coverage(b) => {
            for (d, s) in dst.iter_mut().zip(b.iter()) {
                step(d, u64::from(*s == 0));
            }
        }
    }
    overflow
}

/// `dst[i] = min(dst[i] + src[i], MAX_COUNT)` for 8-byte counters in `bytes`, decoded by
/// `decode`; returns true on saturation. Kept branch-free for the compiler: this loop is where
/// most bytes of a merge go.
#[inline(always)]
fn add_raw(dst: &mut [u64], bytes: &[u8], decode: fn([u8; 8]) -> u64) -> bool {
    let (src, _) = bytes.as_chunks::<8>();
    let mut sat = false;
    for (d, s) in dst.iter_mut().zip(src) {
        let (v, o) = d.overflowing_add(decode(*s));
        let over = o | (v > MAX_COUNT);
        sat |= over;
        *d = if over { MAX_COUNT } else { v };
    }
    sat
}

/// LLVM's `InstrProfValueSiteRecord::merge`: both sides sorted by value (`llvm::sort`), then
/// a sorted union where a value of `src` adds `w × count` to the first equal value of `dst` not
/// matched yet, or is inserted (with its unweighted count unless `weight_all`); then
/// `sortByCount`: a stable sort by descending count, cut to 255 values. Returns (saturated,
/// the site is left in LLVM's order because it holds a value several times).
///
/// Unlike LLVM, a site of distinct values stays sorted by value between merges (`dst_by_value`
/// is false the first time, when the site is in the count order of its first record): LLVM's
/// count sort is deferred to [`finish_value_order`], which gives the same order because after
/// a merge ties are always in value order. A merge then costs a binary search per value of
/// `src` instead of two sorts of the whole site. A site that holds one value several times
/// (indirect-call targets outside the profile all become 0) is kept in LLVM's own order and
/// merged exactly as LLVM does, with libstdc++'s unstable sort ([`libstdcxx_sort`]): which
/// of the repeated entries a count is added to depends on it. A site is in value order
/// exactly when its values are strictly increasing. `scratch` is reused between calls.
fn merge_site(
    dst: &mut ValueSite,
    src: &[ValueCount],
    order: SiteOrder,
    w: Weight,
    weight_all: bool,
    scratch: &mut [Vec<ValueCount>; 2],
) -> (bool, bool) {
    let distinct = |v: &[ValueCount]| v.windows(2).all(|p| p[0].value < p[1].value);
    let in_value_order = match order {
        SiteOrder::ByCount => false,
        SiteOrder::Check => distinct(&dst.values),
        SiteOrder::ByValue => true,
    };
    if !in_value_order {
        return merge_site_as_llvm(dst, src, w, weight_all, scratch);
    }
    if src.is_empty() {
        return (false, false);
    }
    let [sorted_src, new] = scratch;
    let src = if distinct(src) {
        src
    } else {
        sorted_src.clear();
        sorted_src.extend_from_slice(src);
        sorted_src.sort_unstable_by_key(|v| v.value);
        if !distinct(sorted_src) {
            return merge_site_as_llvm(dst, src, w, weight_all, scratch);
        }
        &sorted_src[..]
    };
    let mut overflow = false;
    let insert = |j: ValueCount, overflow: &mut bool| -> ValueCount {
        if weight_all {
            let (c, o) = w.scale(j.count);
            *overflow |= o;
            ValueCount { count: c, ..j }
        } else {
            j
        }
    };
    // Each value of `src` meets its equal in `dst`, found by binary search; the values new
    // to the site are inserted in one backward pass.
    let d = &mut dst.values;
    new.clear();
    let mut from = 0;
    for &j in src {
        let at = from + d[from..].partition_point(|x| x.value < j.value);
        match d.get_mut(at) {
            Some(x) if x.value == j.value => {
                let (c, o) = w.scale_add(j.count, x.count);
                overflow |= o;
                x.count = c;
                from = at + 1;
            }
            _ => {
                new.push(insert(j, &mut overflow));
                from = at;
            }
        }
    }
    if !new.is_empty() {
        let (old, added) = (d.len(), new.len());
        d.resize(old + added, ValueCount::default());
        let (mut i, mut k, mut out) = (old, added, old + added);
        while k > 0 {
            if i > 0 && d[i - 1].value > new[k - 1].value {
                d[out - 1] = d[i - 1];
                i -= 1;
            } else {
                d[out - 1] = new[k - 1];
                k -= 1;
            }
            out -= 1;
        }
    }
    cap_in_value_order(d);
    (overflow, false)
}

/// LLVM's cap for a site of distinct values held in value order: a stable sort by count,
/// cut to 255, and (for the next merge) back to value order. Only sites past the cap pay.
fn cap_in_value_order(d: &mut Vec<ValueCount>) {
    if d.len() > MAX_VALUES_PER_SITE {
        d.sort_by_key(|v| std::cmp::Reverse(v.count));
        d.truncate(MAX_VALUES_PER_SITE);
        d.sort_unstable_by_key(|v| v.value);
    }
}

/// What is known of a destination site's order before [`merge_site`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SiteOrder {
    /// The count order of its first record: never merged.
    ByCount,
    /// Value order if its values are distinct, else LLVM's order: to be looked at.
    Check,
    /// Value order, distinct values.
    ByValue,
}

/// [`merge_site`] step by step as LLVM does it, for sites in LLVM's order (by count) and
/// sites with repeated values: `dst` is in LLVM's order before; after, it is in value order
/// if its values are distinct (so that the next merge takes the fast way), else in LLVM's
/// order. `src` is in its input's order.
fn merge_site_as_llvm(
    dst: &mut ValueSite,
    src: &[ValueCount],
    w: Weight,
    weight_all: bool,
    scratch: &mut [Vec<ValueCount>; 2],
) -> (bool, bool) {
    let by_value = |a: &ValueCount, b: &ValueCount| a.value < b.value;
    let [s, merged] = scratch;
    let d = &mut dst.values;
    libstdcxx_sort::sort_by(d, &by_value);
    s.clear();
    s.extend_from_slice(src);
    libstdcxx_sort::sort_by(s, &by_value);
    let mut overflow = false;
    merged.clear();
    let mut i = 0;
    for &j in s.iter() {
        while i < d.len() && d[i].value < j.value {
            merged.push(d[i]);
            i += 1;
        }
        if i < d.len() && d[i].value == j.value {
            let mut x = d[i];
            let (c, o) = w.scale_add(j.count, x.count);
            overflow |= o;
            x.count = c;
            merged.push(x);
            i += 1;
            continue;
        }
        let mut j = j;
        if weight_all {
            let (c, o) = w.scale(j.count);
            overflow |= o;
            j.count = c;
        }
        merged.push(j);
    }
    merged.extend_from_slice(&d[i..]);
    d.clear();
    d.extend_from_slice(merged);
    if d.windows(2).all(|p| p[0].value < p[1].value) {
        // Distinct values: value order.
        cap_in_value_order(d);
        (overflow, false)
    } else {
        dst.sort_and_cap();
        (overflow, true)
    }
}

/// Puts the sites of the kinds held in value order (`by_value`, a bit per
/// [`ValueKind::index`]) into LLVM's order: descending count, ties in value order.
pub(super) fn finish_value_order(values: &mut ValueProfile, by_value: u8) {
    for kind in ValueKind::ALL {
        if by_value & (1 << kind.index()) != 0 {
            for site in values.sites[kind.index()].iter_mut() {
                site.sort_and_cap();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ValueCount;

    fn vc(value: u64, count: u64) -> ValueCount {
        ValueCount { value, count }
    }

    #[test]
    fn llvm_weighted_site_quirk() {
        // Format reference §8.3: A {bar:7} then B (W=3) {bar:1, qux:9} gives bar:10, qux:9.
        let mut dst = ValueSite {
            values: vec![vc(1, 7)],
        };
        let src = ValueSite {
            values: vec![vc(1, 1), vc(2, 9)],
        };
        merge_site(
            &mut dst,
            &src.values,
            SiteOrder::ByCount,
            Weight::integer(3).unwrap(),
            false,
            &mut Default::default(),
        );
        dst.sort_and_cap();
        assert_eq!(dst.values, vec![vc(1, 10), vc(2, 9)]);
        let mut dst = ValueSite {
            values: vec![vc(1, 7)],
        };
        merge_site(
            &mut dst,
            &src.values,
            SiteOrder::ByCount,
            Weight::integer(3).unwrap(),
            true,
            &mut Default::default(),
        );
        dst.sort_and_cap();
        assert_eq!(dst.values, vec![vc(2, 27), vc(1, 10)]);
    }

    /// Merges `inputs` into one site the way the accumulator does (first site sorted by count,
    /// then [`merge_site`] with the order tracked, then [`finish_value_order`]), and the way
    /// LLVM does (every merge by [`merge_site_as_llvm`]).
    fn both_ways(inputs: &[Vec<ValueCount>], w: Weight) -> (Vec<ValueCount>, Vec<ValueCount>) {
        let first = |v: &Vec<ValueCount>| {
            let mut s = ValueSite { values: v.clone() };
            s.sort_and_cap();
            s
        };
        let mut ours = first(&inputs[0]);
        let mut theirs = first(&inputs[0]);
        let mut scratch = Default::default();
        let (mut by_value, mut repeated) = (false, false);
        for src in &inputs[1..] {
            let order = if !by_value {
                SiteOrder::ByCount
            } else if repeated {
                SiteOrder::Check
            } else {
                SiteOrder::ByValue
            };
            repeated = merge_site(&mut ours, src, order, w, false, &mut scratch).1;
            by_value = true;
            merge_site_as_llvm(&mut theirs, src, w, false, &mut scratch);
            theirs.sort_and_cap();
        }
        let mut p = ValueProfile::default();
        p.sites[0].push(ours);
        finish_value_order(&mut p, if by_value { 1 } else { 0 });
        (p.sites[0][0].values.clone(), theirs.values)
    }

    proptest::proptest! {
        #[test]
        fn value_order_merges_equal_llvm_merges(
            inputs in proptest::collection::vec(
                (proptest::bool::weighted(0.2),
                 proptest::collection::vec((0u64..40, 0u64..20), 0..30)), 1..8),
            weight in 1u64..4,
        ) {
            // Most inputs with distinct values (the fast way), some with repeats.
            let inputs: Vec<Vec<ValueCount>> = inputs
                .iter()
                .map(|(repeats, v)| {
                    let mut out: Vec<ValueCount> = Vec::new();
                    for &(value, count) in v {
                        if *repeats || !out.iter().any(|x| x.value == value) {
                            out.push(vc(value, count));
                        }
                    }
                    out
                })
                .collect();
            let w = Weight::integer(weight).unwrap();
            let (ours, theirs) = both_ways(&inputs, w);
            proptest::prop_assert_eq!(ours, theirs);
        }
    }

    #[test]
    fn sites_past_the_cap_are_cut_as_llvm_cuts() {
        let inputs: Vec<Vec<ValueCount>> = (0..4u64)
            .map(|f| {
                (0..200u64)
                    .map(|v| vc(v * 4 + f % 3, 1 + (v * 7 + f) % 5))
                    .collect()
            })
            .collect();
        let (ours, theirs) = both_ways(&inputs, Weight::ONE);
        assert_eq!(ours.len(), MAX_VALUES_PER_SITE);
        assert_eq!(ours, theirs);
    }

    #[test]
    fn ties_after_a_merge_are_in_value_order() {
        let mut dst = ValueSite {
            values: vec![vc(9, 5), vc(3, 5)],
        };
        let src = ValueSite {
            values: vec![vc(7, 5)],
        };
        merge_site(
            &mut dst,
            &src.values,
            SiteOrder::ByCount,
            Weight::ONE,
            false,
            &mut Default::default(),
        );
        dst.sort_and_cap();
        assert_eq!(dst.values, vec![vc(3, 5), vc(7, 5), vc(9, 5)]);
    }

    #[test]
    fn counters_saturate_at_llvm_max() {
        let mut d = vec![MAX_COUNT - 1, 5];
        let src = Counters::Owned(vec![10, 1]);
        assert!(add_counters(&mut d, &src, Weight::ONE));
        assert_eq!(d, vec![MAX_COUNT, 6]);
    }
}
