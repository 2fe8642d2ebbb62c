//! `overlap`: how similar two profiles are, with the figures `llvm-profdata overlap` prints
//! (computed the same way, so the numbers agree), plus a list of the functions whose share of
//! the total count differs most.
//!
//! The score of one counter is `min(base / base_total, test / test_total)`; summed over all
//! counters of matching records it is the "edge profile overlap" (1.0 = identical shapes).
//! Value sites are scored the same way per matching value. Test functions absent from the base
//! are "unique", present with another structure "mismatched".

use std::collections::{HashMap, HashSet};

pub use crate::ir::overlap::{CountSum, OverlapStats};
use crate::ir::{FunctionKey, FunctionRecord, Profile, ValueKind, ValueSite};

impl CountSum {
    fn add_record(&mut self, r: &FunctionRecord<'_>) {
        self.num_entries += r.counters.len() as u64;
        let s = r.counters.iter().fold(0u64, |a, c| a.wrapping_add(c));
        self.count_sum += s as f64;
        if let Some(v) = &r.values {
            for k in ValueKind::ALL {
                let ks = v
                    .kind(k)
                    .iter()
                    .flat_map(|s| s.values.iter())
                    .fold(0u64, |a, x| a.wrapping_add(x.count));
                self.value_counts[k.index()] += ks as f64;
            }
        }
    }
}

fn score(v1: u64, v2: u64, s1: f64, s2: f64) -> f64 {
    if s1 < 1.0 || s2 < 1.0 {
        return 0.0;
    }
    (v1 as f64 / s1).min(v2 as f64 / s2)
}

impl OverlapStats {
    fn add_one(dst: &mut CountSum, f: &CountSum, test: &CountSum) {
        dst.num_entries += 1;
        dst.count_sum += f.count_sum / test.count_sum;
        for i in 0..3 {
            if test.value_counts[i] >= 1.0 {
                dst.value_counts[i] += f.value_counts[i] / test.value_counts[i];
            }
        }
    }
}

/// Options of [`overlap`].
#[non_exhaustive]
#[derive(Debug, Clone)]
pub struct OverlapOptions {
    /// Compare context-sensitive records (for the program-level sums).
    pub cs: bool,
    /// Function-level figures for functions whose largest test counter is at least this.
    pub value_cutoff: u64,
    /// Function-level figures for functions whose name contains this.
    pub name_filter: Option<String>,
}

impl Default for OverlapOptions {
    fn default() -> Self {
        OverlapOptions {
            cs: false,
            value_cutoff: u64::MAX,
            name_filter: None,
        }
    }
}

/// The result of [`overlap`].
#[derive(Debug, Clone)]
pub struct OverlapResult {
    /// Program-level figures.
    pub program: OverlapStats,
    /// Function-level figures, in test-profile order, for the functions selected by the
    /// options.
    pub functions: Vec<OverlapStats>,
    /// Set when one side's counters sum to zero: the name of that profile's side ("base" or
    /// "test"); nothing else is computed then.
    pub zero_side: Option<&'static str>,
    /// (name, base share, test share) per function name, largest |difference| first.
    pub differences: Vec<(String, f64, f64)>,
}

fn sums(p: &Profile<'_>, cs: bool) -> CountSum {
    let mut s = CountSum::default();
    let mut n = 0;
    for r in &p.records {
        if p.kind.is_ir() && r.key.is_context_sensitive() != cs {
            continue;
        }
        let e = s.num_entries;
        s.add_record(r);
        s.num_entries = e;
        n += 1;
    }
    s.num_entries = n;
    s
}

fn name_of(p: &Profile<'_>, h: u64) -> String {
    p.names
        .get(h)
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .unwrap_or_default()
}

fn site_overlap(
    base: &ValueSite,
    test: &ValueSite,
    k: usize,
    prog: &mut OverlapStats,
    func: &mut OverlapStats,
) {
    let mut b = base.values.clone();
    let mut t = test.values.clone();
    b.sort_by_key(|v| v.value);
    t.sort_by_key(|v| v.value);
    let (mut i, mut j) = (0, 0);
    let (mut s, mut fs) = (0.0, 0.0);
    while i < b.len() && j < t.len() {
        if b[i].value == t[j].value {
            s += score(
                b[i].count,
                t[j].count,
                prog.base.value_counts[k],
                prog.test.value_counts[k],
            );
            fs += score(
                b[i].count,
                t[j].count,
                func.base.value_counts[k],
                func.test.value_counts[k],
            );
            i += 1;
        } else if b[i].value < t[j].value {
            i += 1;
            continue;
        }
        j += 1;
    }
    prog.overlap.value_counts[k] += s;
    func.overlap.value_counts[k] += fs;
}

/// Compares `test` against `base` as `llvm-profdata overlap` does. `base` must already have
/// records sharing a key merged (it is what llvm-profdata loads into its writer).
pub fn overlap(base: &Profile<'_>, test: &Profile<'_>, o: &OverlapOptions) -> OverlapResult {
    let mut prog = OverlapStats {
        base: sums(base, o.cs),
        test: sums(test, o.cs),
        valid: true,
        ..OverlapStats::default()
    };
    let differences = differences(base, test);
    if prog.base.count_sum < 1.0 || prog.test.count_sum < 1.0 {
        return OverlapResult {
            zero_side: Some(if prog.base.count_sum < 1.0 {
                "base"
            } else {
                "test"
            }),
            program: prog,
            functions: Vec::new(),
            differences,
        };
    }
    let mut by_key: HashMap<FunctionKey, &FunctionRecord<'_>> = HashMap::new();
    let mut names: HashSet<u64> = HashSet::new();
    for r in &base.records {
        by_key.entry(r.key).or_insert(r);
        names.insert(r.key.name);
    }
    // Keys looked up without a base record: llvm-profdata inserts an empty record for them.
    let mut missing: HashSet<FunctionKey> = HashSet::new();
    let mut functions = Vec::new();
    let empty = crate::ir::ValueProfile::default();
    for t in &test.records {
        let name = name_of(test, t.key.name);
        let mut f = OverlapStats {
            function: Some((name.clone(), t.key.cfg)),
            ..OverlapStats::default()
        };
        f.test.add_record(t);
        if !names.contains(&t.key.name) {
            let fs = f.test;
            OverlapStats::add_one(&mut prog.unique, &fs, &prog.test);
            continue;
        }
        if f.test.count_sum < 1.0 {
            prog.overlap.num_entries += 1;
            continue;
        }
        let Some(b) = by_key.get(&t.key).filter(|_| !missing.contains(&t.key)) else {
            missing.insert(t.key);
            let fs = f.test;
            OverlapStats::add_one(&mut prog.mismatch, &fs, &prog.test);
            continue;
        };
        let cutoff = match &o.name_filter {
            Some(s) if !s.is_empty() && name.contains(s.as_str()) => 0,
            _ => o.value_cutoff,
        };
        f.base.add_record(b);
        let bv = b.values.as_deref().unwrap_or(&empty);
        let tv = t.values.as_deref().unwrap_or(&empty);
        let mismatch = b.counters.len() != t.counters.len()
            || ValueKind::ALL
                .iter()
                .any(|k| bv.kind(*k).len() != tv.kind(*k).len());
        if mismatch {
            let fs = f.test;
            OverlapStats::add_one(&mut prog.mismatch, &fs, &prog.test);
            continue;
        }
        for k in ValueKind::ALL {
            for (bs, ts) in bv.kind(k).iter().zip(tv.kind(k)) {
                site_overlap(bs, ts, k.index(), &mut prog, &mut f);
            }
        }
        let mut s = 0.0;
        let mut max = 0u64;
        for (bc, tc) in b.counters.iter().zip(t.counters.iter()) {
            s += score(bc, tc, prog.base.count_sum, prog.test.count_sum);
            max = max.max(tc);
        }
        prog.overlap.count_sum += s;
        prog.overlap.num_entries += 1;
        if max >= cutoff {
            let mut fs = 0.0;
            for (bc, tc) in b.counters.iter().zip(t.counters.iter()) {
                fs += score(bc, tc, f.base.count_sum, f.test.count_sum);
            }
            f.overlap.count_sum = fs;
            f.overlap.num_entries = t.counters.len() as u64;
            f.valid = true;
            functions.push(f);
        }
    }
    OverlapResult {
        program: prog,
        functions,
        zero_side: None,
        differences,
    }
}

/// Per function name: share of each profile's total count, largest difference first (ties by
/// name).
fn differences(base: &Profile<'_>, test: &Profile<'_>) -> Vec<(String, f64, f64)> {
    let mut per: HashMap<u64, (f64, f64)> = HashMap::new();
    let total = |p: &Profile<'_>| {
        p.records
            .iter()
            .flat_map(|r| r.counters.iter())
            .map(|c| c as f64)
            .sum::<f64>()
    };
    let (tb, tt) = (total(base), total(test));
    for r in &base.records {
        let s: f64 = r.counters.iter().map(|c| c as f64).sum();
        per.entry(r.key.name).or_default().0 += if tb > 0.0 { s / tb } else { 0.0 };
    }
    for r in &test.records {
        let s: f64 = r.counters.iter().map(|c| c as f64).sum();
        per.entry(r.key.name).or_default().1 += if tt > 0.0 { s / tt } else { 0.0 };
    }
    let mut v: Vec<(String, f64, f64)> = per
        .into_iter()
        .map(|(h, (b, t))| {
            let n = base.names.get(h).or_else(|| test.names.get(h));
            (
                n.map(|n| String::from_utf8_lossy(n).into_owned())
                    .unwrap_or_else(|| format!("{h:#018x}")),
                b,
                t,
            )
        })
        .collect();
    v.sort_by(|a, b| {
        (b.1 - b.2)
            .abs()
            .total_cmp(&(a.1 - a.2).abs())
            .then_with(|| a.0.cmp(&b.0))
    });
    v
}
