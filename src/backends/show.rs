//! `show`: a human-readable (or JSON) description of a profile.
//!
//! The text form is, line for line, what `llvm-profdata show` (LLVM 22) prints for the same
//! options — per-function hash, counters, value sites with target names, the summary computed
//! from the shown records, the detailed summary, binary IDs, temporal traces — so that scripts
//! written against llvm-profdata keep working and the two can be compared. The JSON form
//! (`schemas/show.schema.json`) carries the same information for tools; llvm-profdata refuses
//! JSON for instrumentation profiles.

use std::fmt::Write as _;

use super::cfmt;
use super::proftext;
use crate::ir::summary::{DEFAULT_CUTOFFS, Summary, SummaryBuilder};
use crate::ir::{FunctionRecord, Profile, ProfileKind, ValueKind, ValueSite};
use crate::sys::libstdcxx::{pop_heap, push_heap};

/// Which functions a `--function` filter selects.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum FunctionFilter {
    /// Names containing the string (llvm-profdata's `show --function`).
    Substring(String),
    /// Names matching the regular expression anywhere.
    #[cfg(feature = "regex")]
    Regex(regex::Regex),
}

impl FunctionFilter {
    /// True if `name` is selected.
    pub fn matches(&self, name: &str) -> bool {
        match self {
            FunctionFilter::Substring(s) => name.contains(s.as_str()),
            #[cfg(feature = "regex")]
            FunctionFilter::Regex(r) => r.is_match(name),
        }
    }
}

/// Options of `show`, named after llvm-profdata's.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ShowOptions {
    /// `--all-functions`: details for every function.
    pub all_functions: bool,
    /// `--counts`: counter values of shown functions.
    pub counts: bool,
    /// `--ic-targets`: indirect-call target values.
    pub ic_targets: bool,
    /// `--show-vtables`: vtable values.
    pub vtables: bool,
    /// `--memop-sizes`: memory-operation sizes.
    pub memop_sizes: bool,
    /// `--detailed-summary`.
    pub detailed_summary: bool,
    /// `--detailed-summary-cutoffs` (parts per million); empty means LLVM's defaults.
    pub detailed_cutoffs: Vec<u32>,
    /// `--showcs`: show context-sensitive records instead of the others (IR profiles).
    pub showcs: bool,
    /// `--text`: dump the shown records in text-profile form.
    pub text: bool,
    /// `--binary-ids`: the `Binary IDs:` header and one line per ID. (llvm-profdata prints
    /// nothing for a raw profile without binary IDs; the driver leaves this off for those.)
    pub binary_ids: bool,
    /// `--temporal-profile-traces`.
    pub temporal_traces: bool,
    /// `--topn N`: the N functions with the largest counter.
    pub topn: u32,
    /// `--function`: functions to show.
    pub function: Option<FunctionFilter>,
    /// `--value-cutoff N`: skip functions whose largest counter is below N.
    pub value_cutoff: u64,
    /// `--list-below-cutoff`: only list the functions below the cutoff.
    pub list_below_cutoff: bool,
    /// `--covered`: only print the names of functions with a non-zero counter.
    pub covered: bool,
    /// `--hot-func-list`.
    pub hot_func_list: bool,
    /// `--profile-version`: print this version line.
    pub profile_version: Option<u64>,
    /// The profile was read from a text file: llvm-profdata prints no binary-ID header for
    /// those.
    pub text_input: bool,
    /// The llvm-profdata release whose text to print (the drop-in's); None for the newest.
    /// Before LLVM 22 (as far as the releases compared, 14 and 19, tell) the instrumentation
    /// level has no `instrument_loop_entries` and the summary no block count and total.
    pub llvm_release: Option<u32>,
}

/// Name of a function, lossily decoded ("" if unknown, as LLVM prints).
fn name_of(p: &Profile<'_>, h: u64) -> String {
    p.names
        .get(h)
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .unwrap_or_default()
}

/// LLVM's `getFuncOrVarName`: function or vtable name, "" if neither.
fn target_name(p: &Profile<'_>, h: u64) -> String {
    p.names
        .get(h)
        .or_else(|| p.vtable_names.get(h))
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .unwrap_or_default()
}

#[derive(Default)]
struct SiteStats {
    sites: u64,
    with_values: u64,
    values: u64,
    histogram: Vec<u64>,
}

fn traverse_sites(
    out: &mut String,
    p: &Profile<'_>,
    kind: ValueKind,
    sites: &[ValueSite],
    stats: &mut SiteStats,
) {
    stats.sites += sites.len() as u64;
    for (i, s) in sites.iter().enumerate() {
        let n = s.values.len();
        if n == 0 {
            continue;
        }
        stats.values += n as u64;
        stats.with_values += 1;
        if n > stats.histogram.len() {
            stats.histogram.resize(n, 0);
        }
        stats.histogram[n - 1] += 1;
        let mut sum: u64 = s.values.iter().fold(0u64, |a, v| a.wrapping_add(v.count));
        if sum == 0 {
            sum = 1;
        }
        for v in &s.values {
            let value = if kind == ValueKind::MemOpSize {
                format!("{:4}", v.value)
            } else {
                target_name(p, v.value)
            };
            // `%10" PRId64`: the count printed as a signed number, as LLVM does.
            let _ = writeln!(
                out,
                "\t[ {i:2}, {value}, {:10} ] ({}%)",
                v.count as i64,
                cfmt::fixed(v.count as f64 * 100.0 / sum as f64, 2)
            );
        }
    }
}

fn site_stats(out: &mut String, s: &SiteStats) {
    let _ = writeln!(out, "  Total number of sites: {}", s.sites);
    let _ = writeln!(
        out,
        "  Total number of sites with values: {}",
        s.with_values
    );
    let _ = writeln!(out, "  Total number of profiled values: {}", s.values);
    out.push_str("  Value sites histogram:\n\tNumTargets, SiteCount\n");
    for (i, n) in s.histogram.iter().enumerate() {
        if *n > 0 {
            let _ = writeln!(out, "\t{}, {n}", i + 1);
        }
    }
}

/// True if a record's first counter marks it pseudo-hot/warm.
fn pseudo(r: &FunctionRecord<'_>) -> Option<&'static str> {
    match r.counters.get(0) {
        Some(u64::MAX) => Some("<PseudoHot>"),
        Some(x) if x == u64::MAX - 1 => Some("<PseudoWarm>"),
        _ => None,
    }
}

/// What `render_text` gathers while walking the records, for the totals after them.
#[derive(Default)]
struct Walk {
    /// The summary of the records counted (all but those dumped with `--text`).
    builder: SummaryBuilder,
    /// Functions whose details were shown.
    shown: usize,
    /// Functions whose maximum counter is below `--value-cutoff`.
    below: u64,
    /// Value-site statistics: indirect calls, memory-operation sizes, vtables.
    stats: [SiteStats; 3],
    /// (name, maximum counter) for `--topn` and `--hot-func-list`.
    name_max: Vec<(String, u64)>,
}

/// Renders `show` as llvm-profdata does.
pub fn render_text(p: &Profile<'_>, o: &ShowOptions) -> String {
    let mut out = String::new();
    let is_ir = p.kind.is_ir();
    let mut walk = Walk {
        builder: SummaryBuilder::new(),
        ..Walk::default()
    };
    if !o.text && o.list_below_cutoff {
        let _ = writeln!(
            out,
            "The list of functions with the maximum counter less than {}:",
            o.value_cutoff
        );
    }
    if o.text && is_ir {
        out.push_str(":ir\n");
    }
    for r in &p.records {
        if is_ir && r.key.is_context_sensitive() != o.showcs {
            continue;
        }
        render_record(&mut out, p, o, r, &mut walk);
    }
    if o.text || o.covered {
        return out;
    }
    render_totals(&mut out, p, o, &mut walk);
    render_sections(&mut out, p, o);
    out
}

/// One record of `show`'s text: dumped (`--text`), listed (`--covered`,
/// `--list-below-cutoff`), or counted and, if selected, described.
fn render_record(
    out: &mut String,
    p: &Profile<'_>,
    o: &ShowOptions,
    r: &FunctionRecord<'_>,
    walk: &mut Walk,
) {
    let name = name_of(p, r.key.name);
    let show = o.all_functions || o.function.as_ref().is_some_and(|f| f.matches(&name));
    if show && o.text {
        let text_name = |_: ValueKind, v: u64| -> Option<String> {
            let n = target_name(p, v);
            (!n.is_empty()).then_some(n)
        };
        proftext::write_record(out, &name, r, &text_name);
        return;
    }
    walk.builder.add_record(r.counters.iter());
    if o.covered {
        if r.counters.iter().any(|c| c != 0) {
            let _ = writeln!(out, "{name}");
        }
        return;
    }
    if let Some(tag) = pseudo(r) {
        if show {
            if walk.shown == 0 {
                out.push_str("Counters:\n");
            }
            walk.shown += 1;
            let _ = writeln!(
                out,
                "  {name}:\n    Hash: 0x{:016x}\n    Counters: {}    {tag}",
                r.key.cfg,
                r.counters.len()
            );
        }
        return;
    }
    let (max, sum) = r
        .counters
        .iter()
        .fold((0u64, 0u64), |(m, s), c| (m.max(c), s.wrapping_add(c)));
    if max < o.value_cutoff {
        walk.below += 1;
        if o.list_below_cutoff {
            let _ = writeln!(out, "  {name}: (Max = {max} Sum = {sum})");
        }
        return;
    } else if o.list_below_cutoff {
        return;
    }
    if o.topn > 0 || o.hot_func_list {
        walk.name_max.push((name.clone(), max));
    }
    if !show {
        return;
    }
    if walk.shown == 0 {
        out.push_str("Counters:\n");
    }
    walk.shown += 1;
    render_details(out, p, o, r, &name, &mut walk.stats);
}

/// The description of one selected record: hash, counters, value sites.
fn render_details(
    out: &mut String,
    p: &Profile<'_>,
    o: &ShowOptions,
    r: &FunctionRecord<'_>,
    name: &str,
    stats: &mut [SiteStats; 3],
) {
    let is_ir = p.kind.is_ir();
    let _ = write!(
        out,
        "  {name}:\n    Hash: 0x{:016x}\n    Counters: {}\n",
        r.key.cfg,
        r.counters.len()
    );
    if !is_ir {
        let _ = writeln!(
            out,
            "    Function count: {}",
            r.counters.get(0).unwrap_or(0)
        );
    }
    let empty = crate::ir::ValueProfile::default();
    let v = r.values.as_deref().unwrap_or(&empty);
    if o.ic_targets {
        let _ = writeln!(
            out,
            "    Indirect Call Site Count: {}",
            v.kind(ValueKind::IndirectCall).len()
        );
    }
    if o.vtables {
        let _ = writeln!(
            out,
            "    Number of instrumented vtables: {}",
            v.kind(ValueKind::VTable).len()
        );
    }
    let memops = v.kind(ValueKind::MemOpSize).len();
    if o.memop_sizes && memops > 0 {
        let _ = writeln!(out, "    Number of Memory Intrinsics Calls: {memops}");
    }
    if o.counts {
        out.push_str("    Block counts: [");
        let start = if is_ir { 0 } else { 1 };
        for (i, c) in r.counters.iter().enumerate().skip(start) {
            if i != start {
                out.push_str(", ");
            }
            let _ = write!(out, "{c}");
        }
        out.push_str("]\n");
    }
    let sites = [
        (
            o.ic_targets,
            "Indirect Target Results",
            ValueKind::IndirectCall,
            0,
        ),
        (o.vtables, "VTable Results", ValueKind::VTable, 2),
        (
            o.memop_sizes && memops > 0,
            "Memory Intrinsic Size Results",
            ValueKind::MemOpSize,
            1,
        ),
    ];
    for (on, title, kind, s) in sites {
        if on {
            let _ = writeln!(out, "    {title}:");
            traverse_sites(out, p, kind, v.kind(kind), &mut stats[s]);
        }
    }
}

/// What follows the records: instrumentation level, summary, counts against the cutoff,
/// top and hot functions, value-site statistics, detailed summary.
fn render_totals(out: &mut String, p: &Profile<'_>, o: &ShowOptions, walk: &mut Walk) {
    let is_ir = p.kind.is_ir();
    let cutoffs: Vec<u32> = if !o.detailed_cutoffs.is_empty() {
        o.detailed_cutoffs.clone()
    } else if o.detailed_summary || o.hot_func_list {
        DEFAULT_CUTOFFS.to_vec()
    } else {
        Vec::new()
    };
    let cutoffs = match o.llvm_release {
        Some(r) if r <= 14 && o.detailed_cutoffs.is_empty() && !cutoffs.is_empty() => {
            CUTOFFS_14.to_vec()
        }
        _ => cutoffs,
    };
    let s = walk.builder.finish_with(&cutoffs);
    let _ = write!(
        out,
        "Instrumentation level: {}",
        if is_ir { "IR" } else { "Front-end" }
    );
    if o.llvm_release.is_some_and(|r| r < 21) {
        return render_totals_before_21(out, p, o, walk, &s);
    }
    if is_ir {
        let _ = write!(
            out,
            "  entry_first = {}  instrument_loop_entries = {}",
            u8::from(p.kind.contains(ProfileKind::ENTRY_FIRST)),
            u8::from(p.kind.contains(ProfileKind::LOOP_ENTRIES))
        );
    }
    out.push('\n');
    if o.all_functions || o.function.is_some() {
        let _ = writeln!(out, "Functions shown: {}", walk.shown);
    }
    print_summary(out, &s);
    value_cutoff_counts(out, o, &s, walk.below);
    // Hot functions of instrumentation profiles are listed from LLVM 22 (21 lists none).
    let hot_list = o.hot_func_list && o.llvm_release.is_none_or(|r| r >= 22);
    render_top(out, o, &s, &mut walk.name_max, hot_list);
    statistics(
        out,
        walk,
        &[
            (o.ic_targets, "indirect call sites profile", 0),
            (o.vtables, "vtable profile", 2),
            (o.memop_sizes, "memory intrinsic calls sizes profile", 1),
        ],
    );
    if o.detailed_summary {
        print_detailed(out, &s);
    }
}

/// The value-site statistics asked for, when functions were shown: per (asked, what the
/// sites are called, index into `walk.stats`), in the order given.
fn statistics(out: &mut String, walk: &Walk, kinds: &[(bool, &str, usize)]) {
    for &(on, what, i) in kinds {
        if walk.shown > 0 && on {
            let _ = writeln!(out, "Statistics for {what}:");
            site_stats(out, &walk.stats[i]);
        }
    }
}

/// With `--value-cutoff N`: how many functions' largest counter is below N (`below`) and
/// how many not.
fn value_cutoff_counts(out: &mut String, o: &ShowOptions, s: &Summary, below: u64) {
    if o.value_cutoff == 0 {
        return;
    }
    let _ = writeln!(
        out,
        "Number of functions with maximum count (< {}): {below}",
        o.value_cutoff
    );
    let _ = writeln!(
        out,
        "Number of functions with maximum count (>= {}): {}",
        o.value_cutoff,
        s.num_functions.wrapping_sub(below)
    );
}

/// LLVM 14's default detailed-summary cutoffs, in parts per million.
const CUTOFFS_14: [u32; 7] = [800000, 900000, 950000, 990000, 999000, 999900, 999990];

/// [`render_totals`] as llvm-profdata 20 and earlier print them (14 and 19 compared; 21
/// prints them as 22 does, 20 is taken to be 19's): no
/// `instrument_loop_entries`; the value-cutoff counts after the number of functions; the
/// block count, the total and the detailed summary, in its older wording, only with
/// `--detailed-summary`; no `--hot-func-list` (sample profiles only). Called with the instrumentation level's name written.
fn render_totals_before_21(
    out: &mut String,
    p: &Profile<'_>,
    o: &ShowOptions,
    walk: &mut Walk,
    s: &Summary,
) {
    if p.kind.is_ir() {
        let _ = write!(
            out,
            "  entry_first = {}",
            u8::from(p.kind.contains(ProfileKind::ENTRY_FIRST))
        );
    }
    out.push('\n');
    if o.all_functions || o.function.is_some() {
        let _ = writeln!(out, "Functions shown: {}", walk.shown);
    }
    let _ = writeln!(out, "Total functions: {}", s.num_functions);
    value_cutoff_counts(out, o, s, walk.below);
    let _ = writeln!(out, "Maximum function count: {}", s.max_function_count);
    let _ = writeln!(
        out,
        "Maximum internal block count: {}",
        s.max_internal_count
    );
    if o.topn > 0 {
        let _ = writeln!(
            out,
            "Top {} functions with the largest internal block counts: ",
            o.topn
        );
        for (n, m) in hottest_by_heap(&walk.name_max, o.topn as usize) {
            let _ = writeln!(out, "  {n}, max count = {m}");
        }
    }
    // These releases list hot functions of sample profiles only.
    statistics(
        out,
        walk,
        &[
            (o.ic_targets, "indirect call sites profile", 0),
            (o.memop_sizes, "memory intrinsic calls sizes profile", 1),
        ],
    );
    if o.detailed_summary {
        let _ = writeln!(out, "Total number of blocks: {}", s.num_counts);
        let _ = writeln!(out, "Total count: {}", s.total_count);
        out.push_str("Detailed summary:\n");
        for e in &s.detailed {
            let cut = 100.0f32 * e.cutoff as f32 / 1_000_000.0;
            let _ = writeln!(
                out,
                "{} blocks with count >= {} account for {} percentage of the total counts.",
                e.num_counts,
                e.min_count,
                cfmt::general(f64::from(cut), 6)
            );
        }
    }
}

/// `--topn`'s functions as llvm-profdata 19 and earlier find and print them: a
/// `std::priority_queue` (libstdc++'s binary heap, smallest count on top) of at most `n`
/// (name, max count) pairs, fed in the order functions are met, a pair replacing the top
/// only when its count is larger; then popped and printed in reverse. Equal counts come out
/// in the heap's order, not the order met.
fn hottest_by_heap(funcs: &[(String, u64)], n: usize) -> Vec<&(String, u64)> {
    // `comp(a, b)`: a's count is larger (the queue's `MinCmp`).
    let comp = |a: &&(String, u64), b: &&(String, u64)| a.1 > b.1;
    let mut heap: Vec<&(String, u64)> = Vec::with_capacity(n.min(funcs.len()));
    for f in funcs {
        if heap.len() == n {
            if heap.first().is_some_and(|top| top.1 < f.1) {
                pop_heap(&mut heap, &comp);
                push_heap(&mut heap, f, &comp);
            }
        } else {
            push_heap(&mut heap, f, &comp);
        }
    }
    let mut popped = Vec::with_capacity(heap.len());
    while let Some(&top) = heap.first() {
        popped.push(top);
        pop_heap(&mut heap, &comp);
    }
    popped.reverse();
    popped
}

/// `--topn`'s functions with the largest counters and `--hot-func-list`'s hot functions.
fn render_top(
    out: &mut String,
    o: &ShowOptions,
    s: &Summary,
    name_max: &mut [(String, u64)],
    hot_func_list: bool,
) {
    name_max.sort_by_key(|x| std::cmp::Reverse(x.1));
    if o.topn > 0 {
        let _ = writeln!(
            out,
            "Top {} functions with the largest internal block counts: ",
            o.topn
        );
        for (n, m) in name_max.iter().take(o.topn as usize) {
            let _ = writeln!(out, "  {n}, max count = {m}");
        }
    }
    if hot_func_list {
        let threshold = hot_count_threshold(s);
        let _ = writeln!(out, "# Hot count threshold: {threshold}");
        for (n, m) in name_max.iter() {
            if *m < threshold {
                break;
            }
            let _ = writeln!(out, "{n}");
        }
    }
}

/// The binary IDs, the profile version and the temporal traces, as asked for.
fn render_sections(out: &mut String, p: &Profile<'_>, o: &ShowOptions) {
    if o.binary_ids && !o.text_input {
        out.push_str("Binary IDs: \n");
        for id in &p.binary_ids {
            for b in id {
                let _ = write!(out, "{b:02x}");
            }
            out.push('\n');
        }
    }
    if let Some(v) = o.profile_version {
        let _ = writeln!(out, "Profile version: {v}");
    }
    if o.temporal_traces {
        let t = &p.temporal;
        let _ = writeln!(
            out,
            "Temporal Profile Traces (samples={} seen={}):",
            t.traces.len(),
            t.stream_size
        );
        for (i, tr) in t.traces.iter().enumerate() {
            let _ = writeln!(
                out,
                "  Temporal Profile Trace {i} (weight={} count={}):",
                tr.weight,
                tr.functions.len()
            );
            for f in &tr.functions {
                let _ = writeln!(out, "    {}", target_name(p, *f));
            }
        }
    }
}

/// `ProfileSummary::printSummary`.
pub fn print_summary(out: &mut String, s: &Summary) {
    let _ = writeln!(out, "Total functions: {}", s.num_functions);
    let _ = writeln!(out, "Maximum function count: {}", s.max_function_count);
    let _ = writeln!(
        out,
        "Maximum internal block count: {}",
        s.max_internal_count
    );
    let _ = writeln!(out, "Total number of blocks: {}", s.num_counts);
    let _ = writeln!(out, "Total count: {}", s.total_count);
}

/// `ProfileSummary::printDetailedSummary` (LLVM 22 wording; percentages in `float`).
pub fn print_detailed(out: &mut String, s: &Summary) {
    out.push_str("Detailed summary:\n");
    for e in &s.detailed {
        let pct = if s.num_counts != 0 {
            100.0f32 * e.num_counts as f32 / s.num_counts as f32
        } else {
            0.0
        };
        let cut = 100.0f32 * e.cutoff as f32 / 1_000_000.0;
        let _ = writeln!(
            out,
            "{} blocks ({}%) with count >= {} account for {}% of the total counts.",
            e.num_counts,
            cfmt::fixed(f64::from(pct), 2),
            e.min_count,
            cfmt::general(f64::from(cut), 6)
        );
    }
}

/// LLVM's hot-count threshold: the minimum count of the 99% (990000) cutoff entry.
pub fn hot_count_threshold(s: &Summary) -> u64 {
    s.detailed
        .iter()
        .find(|e| e.cutoff >= 990_000)
        .map(|e| e.min_count)
        .unwrap_or(0)
}

/// A reader's warning in a JSON report: its message, and where it is (a byte offset, a
/// 1-based line or a JSON path; `null` for the others) and which function it concerns.
#[cfg(feature = "iprof")]
pub(crate) fn warning_json(w: &crate::error::Warning) -> serde_json::Value {
    use crate::error::Location;
    let loc = w.location.as_ref();
    serde_json::json!({
        "message": w.message,
        "offset": loc.and_then(|l| match l { Location::Offset(o) => Some(*o), _ => None }),
        "line": loc.and_then(|l| match l { Location::Line(n) => Some(*n), _ => None }),
        "json_path": loc.and_then(|l| match l { Location::JsonPath(p) => Some(p.as_str()), _ => None }),
        "function": w.function,
    })
}

/// The JSON form: everything the text form shows, for every record (filters apply).
#[cfg(feature = "json")]
pub fn render_json(
    p: &Profile<'_>,
    o: &ShowOptions,
    file: &str,
    format: &str,
) -> serde_json::Value {
    use serde_json::{Value, json};
    let hex = |h: u64| Value::String(format!("0x{h:016x}"));
    let mut functions = Vec::new();
    let mut builder = SummaryBuilder::new();
    let mut cs_builder = SummaryBuilder::new();
    for r in &p.records {
        if r.key.is_context_sensitive() {
            cs_builder.add_record(r.counters.iter());
        } else {
            builder.add_record(r.counters.iter());
        }
        let name = name_of(p, r.key.name);
        if let Some(f) = &o.function
            && !f.matches(&name)
        {
            continue;
        }
        let max = r.counters.iter().max().unwrap_or(0);
        if max < o.value_cutoff {
            continue;
        }
        let mut sites = serde_json::Map::new();
        if let Some(v) = &r.values {
            for kind in ValueKind::ALL {
                let ss = v.kind(kind);
                if ss.is_empty() {
                    continue;
                }
                let arr: Vec<Value> = ss
                    .iter()
                    .map(|s| {
                        Value::Array(
                            s.values
                                .iter()
                                .map(|vc| {
                                    if kind.values_are_names() {
                                        let n = target_name(p, vc.value);
                                        json!({"value": hex(vc.value), "name": if n.is_empty() { Value::Null } else { Value::String(n) }, "count": vc.count})
                                    } else {
                                        json!({"value": vc.value, "count": vc.count})
                                    }
                                })
                                .collect(),
                        )
                    })
                    .collect();
                let key = match kind {
                    ValueKind::IndirectCall => "indirect_call_targets",
                    ValueKind::MemOpSize => "memop_sizes",
                    ValueKind::VTable => "vtable_targets",
                };
                sites.insert(key.into(), Value::Array(arr));
            }
        }
        functions.push(json!({
            "name": name,
            "name_hash": hex(r.key.name),
            "hash": hex(r.key.cfg),
            "context_sensitive": r.key.is_context_sensitive(),
            "counters": r.counters.to_vec(),
            "bitmap": r.bitmap.to_vec(),
            "value_sites": Value::Object(sites),
        }));
    }
    let summary = |s: &Summary| {
        json!({
            "total_functions": s.num_functions,
            "total_blocks": s.num_counts,
            "max_function_count": s.max_function_count,
            "max_block_count": s.max_count,
            "max_internal_block_count": s.max_internal_count,
            "total_count": s.total_count,
            "detailed": s.detailed.iter().map(|e| json!({"cutoff": e.cutoff, "min_count": e.min_count, "num_blocks": e.num_counts})).collect::<Vec<_>>(),
        })
    };
    let traces: Vec<Value> = p
        .temporal
        .traces
        .iter()
        .map(|t| json!({"weight": t.weight, "functions": t.functions.iter().map(|f| target_name(p, *f)).collect::<Vec<_>>()}))
        .collect();
    json!({
        "file": file,
        "format": format,
        "instrumentation": if p.kind.is_ir() { "ir" } else { "front-end" },
        "flags": p.kind.names(),
        "functions": functions,
        "summary": summary(&builder.finish()),
        "cs_summary": if p.kind.contains(ProfileKind::CONTEXT_SENSITIVE) { summary(&cs_builder.finish()) } else { Value::Null },
        "binary_ids": p.binary_ids.iter().map(|b| b.iter().map(|x| format!("{x:02x}")).collect::<String>()).collect::<Vec<_>>(),
        "temporal": { "stream_size": p.temporal.stream_size, "traces": traces },
        "uncorrelated_counters": p.uncorrelated_counters,
    })
}
