//! `overlap --sample`: how similar two sample profiles are, computed as `llvm-profdata
//! overlap --sample` computes it, so that every printed figure is the same.
//!
//! Per function (a top-level profile: a function, or a context in a CS profile), its
//! samples are the sum of its body samples and those of every inlined callee, at any depth.
//! A function in both profiles is compared line by line (body locations, then inlined
//! callees matched by call site and name, recursively): each unit scores
//! `1 - |base/base_sum - test/test_sum|` with the function's sums, and the function's
//! internal similarity is `(2 - Σ(1 - score)) / 2`, weighted by how close the function's
//! shares of the two profiles are. The whole-program similarity adds those, each weighted by
//! the function's mean share. A block (body location) is hot at or above the 99th-percentile
//! count of its profile's summary (cutoff 990000), a function when its largest block is.
//!
//! Floating-point figures are accumulated in LLVM's order (the test profile's functions in
//! the iteration order of LLVM's profile map, lines and callees in location and name order),
//! so that the last digit printed is the same.

use crate::bytes::stack::deep;
use std::collections::{HashMap, HashSet};

use crate::codec::unordered_order::sample_map_order;
use crate::error::{Error, ErrorKind, Result};
use crate::ir::sample::summary::{hot_count_threshold, of_reader};
use crate::ir::sample::{
    FunctionSamples, SampleContext, SampleOverlap, SampleOverlapFigures, SampleOverlapStats,
    SampleProfile,
};

/// What to list in the per-function table.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SampleOverlapOptions {
    /// List functions of both profiles whose similarity is below this many parts per
    /// million (`--similarity-cutoff`; 0 lists none).
    pub similarity_cutoff: u64,
    /// List functions of the test profile whose largest block count is at least this
    /// (`--value-cutoff`; `u64::MAX` lists none but those of that count).
    pub value_cutoff: u64,
    /// List functions of both profiles whose base name (a context as `a:1 @ b`) contains
    /// this (`--function`; empty lists none).
    pub function: String,
}

impl Default for SampleOverlapOptions {
    fn default() -> Self {
        SampleOverlapOptions {
            similarity_cutoff: 0,
            value_cutoff: u64::MAX,
            function: String::new(),
        }
    }
}

/// Results below this distance from 0 or 1 are rounded to it: the report prints 2–3
/// decimals of percentages, and sums of fractions drift by a few ulps.
const EPSILON: f64 = 0.000005;

/// Per function: the sum and largest of its block counts (inlined callees included) and how
/// many blocks are hot.
#[derive(Debug, Clone, Copy, Default)]
struct FuncStats {
    sum: u64,
    max: u64,
    hot_blocks: u64,
}

fn func_stats(f: &FunctionSamples, hot: u64, acc: &mut FuncStats) {
    for rec in f.body.values() {
        acc.sum = acc.sum.wrapping_add(rec.samples);
        acc.max = acc.max.max(rec.samples);
        acc.hot_blocks += u64::from(rec.samples >= hot);
    }
    for site in f.callsites.values() {
        for callee in site.values() {
            deep(|| func_stats(callee, hot, acc));
        }
    }
}

fn stats_of(f: &FunctionSamples, hot: u64) -> FuncStats {
    let mut s = FuncStats::default();
    func_stats(f, hot, &mut s);
    s
}

/// Which side(s) of a sorted join hold the current key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Both,
    BaseOnly,
    TestOnly,
}

/// Walks two maps sorted by key side by side, yielding each key once with the values it
/// has on each side.
fn join<'a, K: Ord, V>(
    base: &'a std::collections::BTreeMap<K, V>,
    test: &'a std::collections::BTreeMap<K, V>,
) -> impl Iterator<Item = (Side, Option<&'a V>, Option<&'a V>)> {
    let mut b = base.iter().peekable();
    let mut t = test.iter().peekable();
    std::iter::from_fn(move || {
        let side = match (b.peek(), t.peek()) {
            (None, None) => return None,
            (Some(_), None) => Side::BaseOnly,
            (None, Some(_)) => Side::TestOnly,
            (Some((kb, _)), Some((kt, _))) => match kb.cmp(kt) {
                std::cmp::Ordering::Less => Side::BaseOnly,
                std::cmp::Ordering::Greater => Side::TestOnly,
                std::cmp::Ordering::Equal => Side::Both,
            },
        };
        Some(match side {
            Side::Both => (side, b.next().map(|x| x.1), t.next().map(|x| x.1)),
            Side::BaseOnly => (side, b.next().map(|x| x.1), None),
            Side::TestOnly => (side, None, t.next().map(|x| x.1)),
        })
    })
}

/// The state of one comparison.
struct Aggregator {
    program: SampleOverlapStats,
    hot_blocks: SampleOverlapStats,
    base_hot: u64,
    test_hot: u64,
}

impl Aggregator {
    /// Adds a function only the base profile has (its similarity is 0).
    fn base_only(&mut self, s: FuncStats) {
        let p = &mut self.program;
        p.base_unique_count += 1;
        p.base_unique_sample = p.base_unique_sample.wrapping_add(s.sum);
        self.hot_block(s.sum, 0, s.hot_blocks);
        let sim = self.function_similarity(None, None, s.sum, 0);
        self.program.similarity += self.weigh_importance(sim, s.sum, 0);
        self.program.union_sample = self.program.union_sample.wrapping_add(s.sum);
    }

    /// Counts a unit of `count` blocks with these samples in the hot-block figures.
    fn hot_block(&mut self, base: u64, test: u64, count: u64) {
        let base_hot = base >= self.base_hot;
        let test_hot = test >= self.test_hot;
        if !base_hot && !test_hot {
            return;
        }
        let h = &mut self.hot_blocks;
        h.union_count += count;
        if base_hot {
            h.base_count += count;
        }
        if test_hot {
            h.test_count += count;
        }
        if base_hot && test_hot {
            h.overlap_count += count;
        }
    }

    /// One unit of a function both profiles have: its counts go into the function's figures
    /// and its dissimilarity into `difference`.
    fn unit(
        &mut self,
        mut base: u64,
        mut test: u64,
        hot_blocks: u64,
        side: Side,
        f: &mut SampleOverlapStats,
        difference: &mut f64,
    ) {
        match side {
            Side::BaseOnly => {
                test = 0;
                f.base_unique_sample = f.base_unique_sample.wrapping_add(base);
            }
            Side::TestOnly => {
                base = 0;
                f.test_unique_sample = f.test_unique_sample.wrapping_add(test);
            }
            Side::Both => f.overlap_count += 1,
        }
        f.union_sample = f.union_sample.wrapping_add(base.max(test));
        f.overlap_sample = f.overlap_sample.wrapping_add(base.min(test));
        *difference += 1.0 - block_similarity(base, test, f);
        self.hot_block(base, test, hot_blocks);
    }

    /// An inlined callee only one side has, as one unit of all its samples.
    fn unmatched_callee(
        &mut self,
        callee: &FunctionSamples,
        side: Side,
        f: &mut SampleOverlapStats,
        difference: &mut f64,
    ) {
        if side == Side::BaseOnly {
            let s = stats_of(callee, self.base_hot);
            self.unit(s.sum, 0, s.hot_blocks, side, f, difference);
        } else {
            let s = stats_of(callee, self.test_hot);
            self.unit(0, s.sum, s.hot_blocks, side, f, difference);
        }
    }

    /// The internal similarity of one function (or inlined instance) both profiles have,
    /// 0 to 1; `f` collects the counts.
    fn internal(
        &mut self,
        base: &FunctionSamples,
        test: &FunctionSamples,
        f: &mut SampleOverlapStats,
    ) -> f64 {
        let mut difference = 0.0f64;
        for (side, b, t) in join(&base.body, &test.body) {
            let bs = b.map_or(0, |r| r.samples);
            let ts = t.map_or(0, |r| r.samples);
            self.unit(bs, ts, 1, side, f, &mut difference);
        }
        for (side, b, t) in join(&base.callsites, &test.callsites) {
            match (b, t) {
                (Some(b), Some(t)) => {
                    for (side, bc, tc) in join(b, t) {
                        match (bc, tc) {
                            (Some(bc), Some(tc)) => {
                                difference += 2.0 - 2.0 * deep(|| self.internal(bc, tc, f));
                            }
                            (Some(c), None) | (None, Some(c)) => {
                                self.unmatched_callee(c, side, f, &mut difference);
                            }
                            (None, None) => {}
                        }
                    }
                }
                (Some(site), None) | (None, Some(site)) => {
                    for callee in site.values() {
                        self.unmatched_callee(callee, side, f, &mut difference);
                    }
                }
                (None, None) => {}
            }
        }
        (2.0 - difference) / 2.0
    }

    /// A function's internal similarity weighted by how far apart its shares of the two
    /// profiles are.
    fn weigh_function(&self, internal: f64, base: u64, test: u64) -> f64 {
        let b = base as f64 / self.program.base_sample as f64;
        let t = test as f64 / self.program.test_sample as f64;
        internal * (1.0 - (b - t).abs())
    }

    /// A function's similarity weighted by its mean share of the two profiles.
    fn weigh_importance(&self, similarity: f64, base: u64, test: u64) -> f64 {
        let b = base as f64 / self.program.base_sample as f64 / 2.0;
        let t = test as f64 / self.program.test_sample as f64 / 2.0;
        similarity * (b + t)
    }

    /// The similarity of a function: 0 unless both profiles have it.
    fn function_similarity(
        &mut self,
        pair: Option<(&FunctionSamples, &FunctionSamples)>,
        f: Option<&mut SampleOverlapStats>,
        base: u64,
        test: u64,
    ) -> f64 {
        let internal = match (pair, f) {
            (Some((b, t)), Some(f)) => {
                let x = self.internal(b, t, f);
                if (x - 0.0).abs() < EPSILON { 0.0 } else { x }
            }
            _ => 0.0,
        };
        self.weigh_function(internal, base, test)
    }
}

/// One unit's similarity within a function: 1 minus the distance between its shares of the
/// function's samples in the two profiles.
fn block_similarity(base: u64, test: u64, f: &SampleOverlapStats) -> f64 {
    let b = if f.base_sample > 0 {
        base as f64 / f.base_sample as f64
    } else {
        0.0
    };
    let t = if f.test_sample > 0 {
        test as f64 / f.test_sample as f64
    } else {
        0.0
    };
    1.0 - (b - t).abs()
}

/// True if the text form of `ctx` (`a:1 @ b` for a context) contains `needle`, byte for
/// byte.
fn contains(ctx: &SampleContext, needle: &[u8]) -> bool {
    let mut text = Vec::new();
    ctx.write_to(&mut text);
    needle.is_empty() || text.windows(needle.len()).any(|w| w == needle)
}

/// The top-level contexts of `p` in the order LLVM's profile map iterates them (when that
/// order is known; else sorted).
fn map_order(p: &SampleProfile) -> Vec<&SampleContext> {
    sample_map_order(p).unwrap_or_else(|| {
        let mut v: Vec<&SampleContext> = p.functions.keys().collect();
        v.sort();
        v
    })
}

/// The hot-function figures: functions whose largest block is at or above their
/// profile's hot threshold, in either profile, in both, and in their union.
fn hot_function_stats<'p>(
    base_stats: &HashMap<&'p SampleContext, FuncStats>,
    base_hot: u64,
    test_stats: &HashMap<&'p SampleContext, FuncStats>,
    test_hot: u64,
) -> SampleOverlapStats {
    fn hot<'p>(
        stats: &HashMap<&'p SampleContext, FuncStats>,
        threshold: u64,
    ) -> HashSet<&'p SampleContext> {
        stats
            .iter()
            .filter(|(_, s)| s.max >= threshold)
            .map(|(c, _)| *c)
            .collect()
    }
    let (base_hot_funcs, test_hot_funcs) = (hot(base_stats, base_hot), hot(test_stats, test_hot));
    let mut hot_functions = SampleOverlapStats {
        base_count: base_hot_funcs.len() as u64,
        test_count: test_hot_funcs.len() as u64,
        union_count: test_hot_funcs.len() as u64,
        ..SampleOverlapStats::default()
    };
    for c in &base_hot_funcs {
        if test_hot_funcs.contains(c) {
            hot_functions.overlap_count += 1;
        } else {
            hot_functions.union_count += 1;
        }
    }
    hot_functions
}

/// Compares `test` with `base`. Errors when one is context-sensitive (or probe-based) and
/// the other is not, as llvm-profdata refuses to compare them.
pub fn overlap(
    base: &SampleProfile,
    test: &SampleProfile,
    opts: &SampleOverlapOptions,
) -> Result<SampleOverlap> {
    if base.flags.probe_based != test.flags.probe_based {
        return Err(Error::new(ErrorKind::KindConflict(
            "cannot compare probe-based profile with non-probe-based profile".into(),
        )));
    }
    if base.flags.context_sensitive != test.flags.context_sensitive {
        return Err(Error::new(ErrorKind::KindConflict(
            "cannot compare CS profile with non-CS profile".into(),
        )));
    }
    let base_hot = hot_count_threshold(&of_reader(base));
    let test_hot = hot_count_threshold(&of_reader(test));
    let mut agg = Aggregator {
        program: SampleOverlapStats::default(),
        hot_blocks: SampleOverlapStats::default(),
        base_hot,
        test_hot,
    };
    let mut base_stats: HashMap<&SampleContext, FuncStats> = HashMap::new();
    for (ctx, f) in &base.functions {
        let s = stats_of(f, base_hot);
        agg.program.base_count += 1;
        agg.program.base_sample = agg.program.base_sample.wrapping_add(s.sum);
        base_stats.insert(ctx, s);
    }
    let mut test_stats: HashMap<&SampleContext, FuncStats> = HashMap::new();
    for (ctx, f) in &test.functions {
        let s = stats_of(f, test_hot);
        agg.program.test_count += 1;
        agg.program.test_sample = agg.program.test_sample.wrapping_add(s.sum);
        test_stats.insert(ctx, s);
    }
    if agg.program.base_sample == 0 || agg.program.test_sample == 0 {
        return Ok(SampleOverlap::ZeroSamples {
            base: agg.program.base_sample == 0,
            test: agg.program.test_sample == 0,
        });
    }
    let low_similarity = opts.similarity_cutoff as f64 / 1_000_000.0;
    let mut unmatched_base: HashSet<&SampleContext> = base.functions.keys().collect();
    agg.program.union_count = base.functions.len() as u64;
    let mut listed: Vec<SampleOverlapStats> = Vec::new();
    for ctx in map_order(test) {
        let ts = test_stats[ctx];
        let mut f = SampleOverlapStats {
            test_name: Some(ctx.clone()),
            test_sample: ts.sum,
            ..SampleOverlapStats::default()
        };
        let matched = match base.functions.get(ctx) {
            None => {
                let p = &mut agg.program;
                p.test_unique_count += 1;
                p.test_unique_sample = p.test_unique_sample.wrapping_add(ts.sum);
                f.test_unique_sample = ts.sum;
                agg.hot_block(0, ts.sum, ts.hot_blocks);
                let s = agg.function_similarity(None, None, 0, ts.sum);
                agg.program.similarity += agg.weigh_importance(s, 0, ts.sum);
                agg.program.union_count += 1;
                agg.program.union_sample = agg.program.union_sample.wrapping_add(ts.sum);
                false
            }
            Some(bf) => {
                agg.program.overlap_count += 1;
                f.base_name = Some(ctx.clone());
                f.base_sample = base_stats[ctx].sum;
                let (bs, tsum) = (f.base_sample, f.test_sample);
                f.similarity = agg.function_similarity(
                    Some((bf, &test.functions[ctx])),
                    Some(&mut f),
                    bs,
                    tsum,
                );
                agg.program.similarity += agg.weigh_importance(f.similarity, bs, tsum);
                let p = &mut agg.program;
                p.overlap_sample = p.overlap_sample.wrapping_add(f.overlap_sample);
                p.union_sample = p.union_sample.wrapping_add(f.union_sample);
                p.base_unique_sample = p.base_unique_sample.wrapping_add(f.base_unique_sample);
                p.test_unique_sample = p.test_unique_sample.wrapping_add(f.test_unique_sample);
                unmatched_base.remove(ctx);
                true
            }
        };
        let by_name = matched
            && !opts.function.is_empty()
            && f.base_name
                .as_ref()
                .is_some_and(|n| contains(n, opts.function.as_bytes()));
        if ts.max >= opts.value_cutoff || (matched && f.similarity < low_similarity) || by_name {
            f.base_weight = f.base_sample as f64 / agg.program.base_sample as f64;
            f.test_weight = f.test_sample as f64 / agg.program.test_sample as f64;
            listed.push(f);
        }
    }
    // Functions only in the base profile: their similarity is 0, so adding their weighted
    // similarity leaves the sum as it is, in any order.
    for ctx in unmatched_base {
        agg.base_only(base_stats[ctx]);
    }
    if (agg.program.similarity - 1.0).abs() < EPSILON {
        agg.program.similarity = 1.0;
    }
    let hot_functions = hot_function_stats(&base_stats, base_hot, &test_stats, test_hot);
    agg.program.base_name = None;
    agg.program.test_name = None;
    // Largest base weight first; equal weights keep the order they were met in.
    listed.sort_by(|a, b| {
        b.base_weight
            .partial_cmp(&a.base_weight)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    Ok(SampleOverlap::Compared(Box::new(SampleOverlapFigures {
        program: agg.program,
        hot_functions,
        hot_blocks: agg.hot_blocks,
        functions: listed,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::sample::{FunctionId, LineLocation, SampleRecord};

    fn function(name: &str, head: u64, lines: &[(u32, u64)]) -> (SampleContext, FunctionSamples) {
        let id = FunctionId::name(name.as_bytes());
        let mut f = FunctionSamples::new(id.clone());
        f.head_samples = head;
        for &(line, samples) in lines {
            f.total_samples += samples;
            f.body.insert(
                LineLocation::new(line, 0),
                SampleRecord {
                    samples,
                    ..SampleRecord::default()
                },
            );
        }
        (SampleContext::Function(id), f)
    }

    fn profile(functions: Vec<(SampleContext, FunctionSamples)>) -> SampleProfile {
        let mut p = SampleProfile::new();
        for (c, f) in functions {
            p.insertion_order.push(c.clone());
            p.functions.insert(c, f);
        }
        p
    }

    #[test]
    fn figures_of_a_small_pair_are_llvms() {
        // llvm-profdata-19 and -22 overlap --sample of these two profiles print a similarity
        // of 46.485%, an overlap of 32.258%, 50.000% and 33.333% unique samples, and hot
        // blocks 1 in both, 1 only in the base, 2 only in the test.
        let base = profile(vec![function("foo", 10, &[(1, 50), (2, 50)])]);
        let test = profile(vec![
            function("foo", 10, &[(1, 70), (3, 30)]),
            function("bar", 1, &[(1, 5)]),
        ]);
        let SampleOverlap::Compared(f) =
            overlap(&base, &test, &SampleOverlapOptions::default()).unwrap()
        else {
            panic!("both profiles have samples");
        };
        let p = &f.program;
        assert_eq!(format!("{:.3}", p.similarity * 100.0), "46.485");
        assert_eq!((p.overlap_sample, p.union_sample), (50, 155));
        assert_eq!((p.base_sample, p.test_sample), (100, 105));
        assert_eq!((p.base_unique_sample, p.test_unique_sample), (50, 35));
        assert_eq!(
            (p.overlap_count, p.base_unique_count, p.test_unique_count),
            (1, 0, 1)
        );
        let h = &f.hot_blocks;
        assert_eq!((h.overlap_count, h.base_count, h.test_count), (1, 2, 3));
        assert!(f.functions.is_empty(), "no table without cutoffs or names");
    }

    #[test]
    fn table_lists_by_base_weight_and_zero_profiles_stop() {
        let base = profile(vec![
            function("a", 1, &[(1, 10)]),
            function("b", 1, &[(1, 30)]),
        ]);
        let test = profile(vec![
            function("a", 1, &[(1, 10)]),
            function("b", 1, &[(1, 30)]),
            function("c", 1, &[(1, 5)]),
        ]);
        let opts = SampleOverlapOptions {
            value_cutoff: 0,
            ..SampleOverlapOptions::default()
        };
        let SampleOverlap::Compared(f) = overlap(&base, &test, &opts).unwrap() else {
            panic!("both profiles have samples");
        };
        let names: Vec<String> = f
            .functions
            .iter()
            .map(|s| s.test_name.as_ref().unwrap().to_string())
            .collect();
        assert_eq!(names, ["b", "a", "c"]);
        let empty = profile(vec![function("a", 1, &[])]);
        assert_eq!(
            overlap(&empty, &test, &opts).unwrap(),
            SampleOverlap::ZeroSamples {
                base: true,
                test: false
            }
        );
    }

    #[test]
    fn kinds_must_agree() {
        let flat = profile(vec![function("a", 1, &[(1, 10)])]);
        let mut probe = flat.clone();
        probe.flags.probe_based = true;
        let e = overlap(&flat, &probe, &SampleOverlapOptions::default()).unwrap_err();
        assert!(e.to_string().contains("probe-based"), "{e}");
        let mut cs = flat.clone();
        cs.flags.context_sensitive = true;
        let e = overlap(&cs, &flat, &SampleOverlapOptions::default()).unwrap_err();
        assert!(e.to_string().contains("CS profile"), "{e}");
    }
}
