//! The figures of `show` and `overlap` for BOLT profiles ([`BranchProfile`]): totals, the
//! hottest functions and records, and the overlap of two profiles, defined on record counts
//! as LLVM's `overlap` defines it on counters (docs/bolt.md, "show and overlap").
//!
//! Every order is total (count, then name or key), and sums are taken in record order, so the
//! figures do not depend on anything but the profiles.

use std::cmp::Reverse;

pub use crate::ir::bolt_report::{
    BoltFunctionOverlap, BoltFunctionTotal, BoltOverlap, BoltRecord, BoltRecordKind, BoltSummary,
    BoltTotals, BranchProfile,
};

/// What `show` lists.
#[non_exhaustive]
pub struct SummaryOptions<'a> {
    /// At most this many functions and this many records (`None`: all).
    pub limit: Option<usize>,
    /// Functions to list (and whose records to list); `None`: all.
    pub function: Option<&'a dyn Fn(&str) -> bool>,
    /// List only functions whose count is at least this, and records of at least this.
    pub value_cutoff: u64,
}

/// Each function's figures, sorted by name (YAML functions without records included).
pub fn function_totals(p: &BranchProfile) -> Vec<BoltFunctionTotal> {
    let mut out: Vec<BoltFunctionTotal> = Vec::new();
    // Records are sorted by function first: one run per function.
    for r in &p.records {
        let name = p.function(r);
        match out.last_mut() {
            Some(f) if f.name == name => {
                f.count = f.count.saturating_add(r.count);
                f.mispreds = f.mispreds.saturating_add(r.mispreds);
                f.records += 1;
            }
            _ => out.push(BoltFunctionTotal {
                name: name.to_string(),
                count: r.count,
                mispreds: r.mispreds,
                records: 1,
                exec: None,
            }),
        }
    }
    if p.entries.is_empty() {
        return out;
    }
    // YAML: every function of the profile, with its entry count.
    let mut merged = Vec::with_capacity(p.entries.len().max(out.len()));
    let mut with_records = out.into_iter().peekable();
    for (name, exec) in &p.entries {
        while let Some(f) = with_records.next_if(|f| f.name < *name) {
            merged.push(f);
        }
        let mut f = match with_records.next_if(|f| f.name == *name) {
            Some(f) => f,
            None => BoltFunctionTotal {
                name: name.clone(),
                count: 0,
                mispreds: 0,
                records: 0,
                exec: None,
            },
        };
        f.exec = Some(*exec);
        merged.push(f);
    }
    merged.extend(with_records);
    merged
}

/// The totals of `p`.
pub fn totals(p: &BranchProfile, functions: u64) -> BoltTotals {
    let mut t = BoltTotals {
        functions,
        memory_events: p.memory.0,
        memory_count: p.memory.1,
        ..BoltTotals::default()
    };
    for r in &p.records {
        match r.kind {
            BoltRecordKind::Branch => t.branches += 1,
            BoltRecordKind::Call => t.calls += 1,
            BoltRecordKind::Sample => t.samples += 1,
        }
        t.count = t.count.saturating_add(r.count);
        t.mispreds = t.mispreds.saturating_add(r.mispreds);
    }
    t
}

/// What `show` reports of `p` under `o`: the totals, then the selected functions and records,
/// hottest first (ties: functions by name, records by key), at most `o.limit` of each.
pub fn summarise(p: &BranchProfile, o: &SummaryOptions<'_>) -> BoltSummary {
    let all = function_totals(p);
    let totals = totals(p, all.len() as u64);
    let selected = |name: &str| o.function.is_none_or(|f| f(name));
    let mut functions: Vec<BoltFunctionTotal> = all
        .into_iter()
        .filter(|f| f.count >= o.value_cutoff && selected(&f.name))
        .collect();
    // Sorted by name already: a stable sort by count keeps names in order among equals.
    functions.sort_by_key(|f| Reverse(f.count));
    let functions_selected = functions.len() as u64;
    let limit = o.limit.unwrap_or(usize::MAX);
    functions.truncate(limit);
    let mut records: Vec<usize> = (0..p.records.len())
        .filter(|&i| {
            let r = &p.records[i];
            r.count >= o.value_cutoff && selected(p.function(r))
        })
        .collect();
    records.sort_by_key(|&i| Reverse(p.records[i].count));
    let records_selected = records.len() as u64;
    records.truncate(limit);
    BoltSummary {
        totals,
        functions,
        functions_selected,
        records,
        records_selected,
    }
}

/// What `overlap` lists.
#[non_exhaustive]
pub struct OverlapOptions<'a> {
    /// List at most this many functions (`None`: all selected).
    pub limit: Option<usize>,
    /// Functions to list; `None`: all.
    pub function: Option<&'a dyn Fn(&str) -> bool>,
    /// List only functions whose test count is at least this.
    pub value_cutoff: u64,
}

/// `min(b / bt, t / tt)`, 0 when a total is 0 (LLVM's `score` without its `< 1` guard,
/// which for integer totals is the same).
fn score(b: u64, t: u64, bt: u64, tt: u64) -> f64 {
    if bt == 0 || tt == 0 {
        return 0.0;
    }
    (b as f64 / bt as f64).min(t as f64 / tt as f64)
}

/// A share `x / total`, 0 when the total is 0.
fn share(x: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        x as f64 / total as f64
    }
}

/// The records of two profiles side by side: for each key in either, the base record and
/// the test record (`None` where absent), in key order.
fn pairs<'a>(base: &'a BranchProfile, test: &'a BranchProfile) -> Vec<Pair<'a>> {
    let (b, t) = (&base.records, &test.records);
    let mut out = Vec::with_capacity(b.len().max(t.len()));
    let (mut i, mut j) = (0, 0);
    while i < b.len() || j < t.len() {
        let ord = match (b.get(i), t.get(j)) {
            (Some(x), Some(y)) => base.key(x).cmp(&test.key(y)),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match ord {
            std::cmp::Ordering::Less => {
                out.push((b.get(i), None));
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push((None, t.get(j)));
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push((b.get(i), t.get(j)));
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// Compares `base` and `test` (of one format and mode: the driver checks): the program's
/// overlap, and per function, listed by the largest difference of share first.
pub fn overlap(base: &BranchProfile, test: &BranchProfile, o: &OverlapOptions<'_>) -> BoltOverlap {
    let bt = totals(base, 0).count;
    let tt = totals(test, 0).count;
    let mut res = BoltOverlap {
        base_count: bt,
        test_count: tt,
        overlap: 0.0,
        records: [0; 3],
        functions: [0; 3],
        base_only_share: 0.0,
        test_only_share: 0.0,
        listed: Vec::new(),
        functions_selected: 0,
    };
    let mut funcs: Vec<BoltFunctionOverlap> = Vec::new();
    // Per function: the pairs of its records, then its figures (records sort by function
    // first, so each function's pairs are one run).
    let all = pairs(base, test);
    let function_of = |p: &Pair<'_>| match p {
        (Some(r), _) => base.function(r),
        (None, Some(r)) => test.function(r),
        (None, None) => "",
    };
    let mut start = 0;
    while start < all.len() {
        let name = function_of(&all[start]);
        let end = start + all[start..].partition_point(|p| function_of(p) == name);
        funcs.push(function_overlap(name, &all[start..end], (bt, tt), &mut res));
        start = end;
    }
    for f in &funcs {
        let side = match (
            f.records[0] + f.records[1] > 0,
            f.records[0] + f.records[2] > 0,
        ) {
            (true, true) => 0,
            (true, false) => 1,
            _ => 2,
        };
        res.functions[side] += 1;
    }
    let selected = |f: &BoltFunctionOverlap| {
        f.test_count >= o.value_cutoff && o.function.is_none_or(|m| m(&f.name))
    };
    funcs.retain(selected);
    // Sorted by name already: a stable sort keeps names in order among equal differences.
    funcs.sort_by(|a, b| {
        let d = |f: &BoltFunctionOverlap| (f.test_share - f.base_share).abs();
        d(b).total_cmp(&d(a))
    });
    res.functions_selected = funcs.len() as u64;
    funcs.truncate(o.limit.unwrap_or(usize::MAX));
    res.listed = funcs;
    res
}

/// A base record and a test record of one key (`None` where absent).
type Pair<'a> = (Option<&'a BoltRecord>, Option<&'a BoltRecord>);

/// One function's figures from its pairs; adds its records to the program's figures.
fn function_overlap(
    name: &str,
    pairs: &[Pair<'_>],
    (bt, tt): (u64, u64),
    prog: &mut BoltOverlap,
) -> BoltFunctionOverlap {
    let count = |side: usize| {
        pairs.iter().fold(0u64, |a, p| {
            let r = if side == 0 { p.0 } else { p.1 };
            a.saturating_add(r.map_or(0, |r| r.count))
        })
    };
    let (fb, ft) = (count(0), count(1));
    let mut f = BoltFunctionOverlap {
        name: name.to_string(),
        base_count: fb,
        test_count: ft,
        base_share: share(fb, bt),
        test_share: share(ft, tt),
        overlap: 0.0,
        records: [0; 3],
    };
    for p in pairs {
        match p {
            (Some(b), Some(t)) => {
                f.records[0] += 1;
                f.overlap += score(b.count, t.count, fb, ft);
                prog.overlap += score(b.count, t.count, bt, tt);
            }
            (Some(b), None) => {
                f.records[1] += 1;
                prog.base_only_share += share(b.count, bt);
            }
            (None, Some(t)) => {
                f.records[2] += 1;
                prog.test_only_share += share(t.count, tt);
            }
            (None, None) => {}
        }
    }
    for i in 0..3 {
        prog.records[i] += f.records[i];
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::bolt_report::BoltFormat;

    fn profile(records: &[(&str, &str, u64)], entries: &[(&str, u64)]) -> BranchProfile {
        let mut p = BranchProfile::new(BoltFormat::Yaml);
        let mut span = |s: &str| {
            let start = p.text.len();
            p.text.push_str(s);
            crate::ir::bolt_report::Span {
                start,
                end: p.text.len(),
            }
        };
        let records: Vec<BoltRecord> = records
            .iter()
            .map(|&(f, from, count)| BoltRecord {
                function: span(f),
                kind: BoltRecordKind::Branch,
                from: span(from),
                to: span("x"),
                count,
                mispreds: 1,
            })
            .collect();
        p.records = records;
        p.entries = entries.iter().map(|&(n, e)| (n.into(), e)).collect();
        p.memory = (2, 7);
        p.normalise();
        p
    }

    #[test]
    fn totals_and_functions_with_entries() {
        let p = profile(
            &[("b", "1", 5), ("a", "1", 2), ("b", "2", 5)],
            &[("c", 4), ("a", 1)],
        );
        let s = summarise(
            &p,
            &SummaryOptions {
                limit: Some(2),
                function: None,
                value_cutoff: 0,
            },
        );
        assert_eq!(
            (
                s.totals.functions,
                s.totals.branches,
                s.totals.count,
                s.totals.mispreds
            ),
            (3, 3, 12, 3)
        );
        assert_eq!((s.totals.memory_events, s.totals.memory_count), (2, 7));
        let names: Vec<(&str, u64, Option<u64>)> = s
            .functions
            .iter()
            .map(|f| (&*f.name, f.count, f.exec))
            .collect();
        assert_eq!(names, [("b", 10, None), ("a", 2, Some(1))]);
        assert_eq!(s.functions_selected, 3);
        // Equal counts: by key.
        assert_eq!(s.records, [1, 2]);
    }

    #[test]
    fn overlap_is_llvms_formula_and_symmetric_in_shape() {
        let b = profile(&[("f", "1", 30), ("f", "2", 10), ("g", "1", 60)], &[]);
        let t = profile(&[("f", "1", 2), ("g", "1", 6), ("h", "1", 2)], &[]);
        let o = overlap(
            &b,
            &t,
            &OverlapOptions {
                limit: None,
                function: None,
                value_cutoff: 0,
            },
        );
        assert!((o.overlap - 0.8).abs() < 1e-12, "{}", o.overlap);
        assert_eq!((o.records, o.functions), ([2, 1, 1], [2, 0, 1]));
        assert!((o.base_only_share - 0.1).abs() < 1e-12);
        assert!((o.test_only_share - 0.2).abs() < 1e-12);
        let names: Vec<&str> = o.listed.iter().map(|f| &*f.name).collect();
        assert_eq!(names, ["f", "h", "g"]);
        assert!((o.listed[0].overlap - 0.75).abs() < 1e-12);
        // A profile against a multiple of itself: the same shape, 100 %.
        let twice = profile(&[("f", "1", 60), ("f", "2", 20), ("g", "1", 120)], &[]);
        let o = overlap(
            &b,
            &twice,
            &OverlapOptions {
                limit: Some(0),
                function: None,
                value_cutoff: 0,
            },
        );
        assert!((o.overlap - 1.0).abs() < 1e-12);
        assert!(o.listed.is_empty() && o.functions_selected == 2);
        // A zero total: nothing overlaps, no division by zero.
        let zero = profile(&[("f", "1", 0)], &[]);
        let o = overlap(
            &zero,
            &b,
            &OverlapOptions {
                limit: None,
                function: None,
                value_cutoff: 0,
            },
        );
        assert_eq!(o.overlap, 0.0);
        assert!(
            o.listed
                .iter()
                .all(|f| f.overlap == 0.0 && f.base_share == 0.0)
        );
    }
}
