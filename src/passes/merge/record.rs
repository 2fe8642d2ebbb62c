//! LLVM's record semantics, alone: how one record is added to the accumulated one.
//!
//! Counter adds (weighted, saturating at [`MAX_COUNT`], pseudo counts kept apart), MC/DC
//! bitmap ORs, and the merge of value sites with LLVM's cap and its order of equal values
//! (libstdc++'s `std::sort`; the value sites themselves are in [`super::value_site`]). Nothing here knows about files,
//! shards or threads; [`super::shard`] calls [`merge_into`] once per (record, input).

use super::value_site::{SiteOrder, merge_site};
use crate::codec::value_prof_data::FlatValues;
use crate::ir::Weight;
use crate::ir::{Counters, FunctionKey, ValueCount, ValueKind, ValueProfile, ValueSite};

pub use crate::ir::function::{MAX_COUNT, PSEUDO_HOT, PSEUDO_WARM};

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
    /// The sites as a value profile of their own (`None` if no kind has a site), for a
    /// record seen for the first time.
    pub(super) fn to_profile(self) -> Option<Box<ValueProfile>> {
        match self {
            SrcValues::Tree(v) => v.map(|v| Box::new(v.clone())),
            SrcValues::Flat(_, None) => None,
            SrcValues::Flat(_, Some(_)) => {
                let mut out = ValueProfile::default();
                for kind in ValueKind::ALL {
                    let n = self.num_sites(kind);
                    *out.kind_mut(kind) = (0..n)
                        .map(|i| ValueSite {
                            values: self.site(kind, i).to_vec(),
                        })
                        .collect();
                }
                (!out.is_empty()).then(|| Box::new(out))
            }
        }
    }

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

/// How a record is merged: its input's weight and the merge's options.
#[derive(Clone, Copy)]
pub(super) struct MergeHow {
    /// The input's weight.
    pub(super) weight: Weight,
    /// [`super::MergeOptions::weight_all_values`].
    pub(super) weight_all: bool,
}

/// The accumulated record and its counters (a run of the shard's arena).
pub(super) struct Dst<'d> {
    pub(super) rec: &'d mut AccRecord,
    pub(super) counters: &'d mut [u64],
}

/// LLVM's `InstrProfRecord::merge` followed by `sortValueData`.
// Inlined into its two callers (built records, and records a file's layout describes), so
// that each is specialised to its kind of counters.
#[inline(always)]
pub(super) fn merge_into(
    dst: Dst<'_>,
    src: &SrcRecord<'_, '_>,
    how: MergeHow,
    scratch: &mut [Vec<ValueCount>; 2],
    report: &mut dyn FnMut(EventKind),
) {
    let Dst { rec: dst, counters } = dst;
    let (w, weight_all) = (how.weight, how.weight_all);
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
        match src.values {
            // The common case of a merge: a file's flat sites into sites held in value
            // order, most of them empty in the file. An empty site merged into one in value
            // order changes nothing (`merge_site` returns at once), so it is skipped here
            // without the call.
            SrcValues::Flat(f, Some(b)) if order == SiteOrder::ByValue => {
                let ranges = f.site_ranges(b, kind);
                for (dsite, &range) in dv.kind_mut(kind).iter_mut().zip(ranges) {
                    if range.1 == 0 {
                        continue;
                    }
                    let (o, r) = merge_site(dsite, f.values(range), order, w, weight_all, scratch);
                    overflow |= o;
                    repeated |= r;
                }
            }
            _ => {
                for (i, dsite) in dv.kind_mut(kind).iter_mut().enumerate() {
                    let ssite = src.values.site(kind, i);
                    let (o, r) = merge_site(dsite, ssite, order, w, weight_all, scratch);
                    overflow |= o;
                    repeated |= r;
                }
            }
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
    if let Some(raw) = src.raw() {
        return raw.add_to(dst, w);
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
        Counters::Raw64 { .. } => {
            for (d, s) in dst.iter_mut().zip(src.iter()) {
                step(d, s);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_saturate_at_llvm_max() {
        let mut d = vec![MAX_COUNT - 1, 5];
        let src = Counters::Owned(vec![10, 1]);
        assert!(add_counters(&mut d, &src, Weight::ONE));
        assert_eq!(d, vec![MAX_COUNT, 6]);
    }
}
