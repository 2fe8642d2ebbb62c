//! LLVM's value-site semantics: merging one site's (value, count) pairs into another's,
//! LLVM's cap of 255 values per site, and the order of equal values that LLVM's
//! `std::sort` leaves (reproduced with [`crate::sys::libstdcxx`]).

use crate::bytes::limits::MAX_VALUES_PER_SITE;
use crate::ir::Weight;
use crate::ir::{ValueCount, ValueKind, ValueProfile, ValueSite};
use crate::sys::libstdcxx;

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
/// merged exactly as LLVM does, with libstdc++'s unstable sort ([`libstdcxx`]): which
/// of the repeated entries a count is added to depends on it. A site is in value order
/// exactly when its values are strictly increasing. `scratch` is reused between calls.
pub(super) fn merge_site(
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
pub(super) fn cap_in_value_order(d: &mut Vec<ValueCount>) {
    if d.len() > MAX_VALUES_PER_SITE {
        d.sort_by_key(|v| std::cmp::Reverse(v.count));
        d.truncate(MAX_VALUES_PER_SITE);
        d.sort_unstable_by_key(|v| v.value);
    }
}

/// What is known of a destination site's order before [`merge_site`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SiteOrder {
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
    libstdcxx::sort_by(d, &by_value);
    s.clear();
    s.extend_from_slice(src);
    libstdcxx::sort_by(s, &by_value);
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
}
