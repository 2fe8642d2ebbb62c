//! The reports of `show` and `overlap` for BOLT profiles, as text and as JSON
//! (`schemas/show.schema.json`, `schemas/bolt-overlap.schema.json`), from the figures of
//! `passes::bolt_report`.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::backends::cfmt;
use crate::ir::bolt_report::{
    BoltFormat, BoltFunctionOverlap, BoltOverlap, BoltRecord, BoltRecordKind, BoltSummary,
    BranchProfile,
};

/// A share as a percentage with three decimals (`12.345%`).
fn pct(x: f64) -> String {
    format!("{}%", cfmt::fixed(x * 100.0, 3))
}

/// `count / total` (0 when the total is 0).
fn share(count: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        count as f64 / total as f64
    }
}

/// The format and mode, as the first line of a report says it (`fdata, LBR`).
fn describe(p: &BranchProfile) -> String {
    format!("{}, {}", p.format.name(), p.mode())
}

/// A record's places: `from -> to`, or the sampled place alone.
fn places(p: &BranchProfile, r: &BoltRecord) -> String {
    match r.kind {
        BoltRecordKind::Sample => p.from(r).to_string(),
        BoltRecordKind::Branch => format!("{} -> {}", p.from(r), p.to(r)),
        BoltRecordKind::Call => format!("{} -> {} (call)", p.from(r), p.to(r)),
    }
}

/// `show`'s text report of `p`.
pub fn show_text(p: &BranchProfile, s: &BoltSummary) -> String {
    let mut out = String::new();
    let t = &s.totals;
    let _ = writeln!(out, "BOLT profile: {}", describe(p));
    if p.format == BoltFormat::Yaml && !(p.binary.0.is_empty() && p.binary.1.is_empty()) {
        let _ = writeln!(out, "Binary: {} (build id {})", p.binary.0, p.binary.1);
    }
    if !p.events.is_empty() {
        let _ = writeln!(out, "Events: {}", p.events);
    }
    let _ = writeln!(out, "Functions: {}", t.functions);
    if p.sampled {
        let _ = writeln!(out, "Samples: {}", t.samples);
    } else {
        let _ = write!(out, "Branches: {}", t.branches + t.calls);
        if p.format == BoltFormat::Yaml {
            let _ = write!(out, " ({} successor edges, {} calls)", t.branches, t.calls);
        }
        out.push('\n');
    }
    let _ = writeln!(out, "Total count: {}", t.count);
    if !p.sampled {
        let _ = writeln!(out, "Mispredictions: {}", t.mispreds);
    }
    if t.memory_events > 0 {
        let _ = writeln!(
            out,
            "Memory events: {} (count {})",
            t.memory_events, t.memory_count
        );
    }
    show_functions(&mut out, p, s);
    show_records(&mut out, p, s);
    out
}

/// The function table of `show`.
fn show_functions(out: &mut String, p: &BranchProfile, s: &BoltSummary) {
    let _ = writeln!(
        out,
        "Hottest functions ({} of {}):",
        s.functions.len(),
        s.functions_selected
    );
    if s.functions.is_empty() {
        return;
    }
    let exec = p.format == BoltFormat::Yaml;
    let _ = writeln!(
        out,
        "  {:>14} {:>8} {:>9}{} function",
        "count",
        "share",
        p.records_noun(),
        if exec { "           exec" } else { "" }
    );
    for f in &s.functions {
        let _ = write!(
            out,
            "  {:>14} {:>8} {:>9}",
            f.count,
            pct(share(f.count, s.totals.count)),
            f.records
        );
        if exec {
            let _ = write!(out, " {:>14}", f.exec.unwrap_or(0));
        }
        let _ = writeln!(out, " {}", f.name);
    }
}

/// The record table of `show`.
fn show_records(out: &mut String, p: &BranchProfile, s: &BoltSummary) {
    let _ = writeln!(
        out,
        "Hottest {} ({} of {}):",
        p.records_noun(),
        s.records.len(),
        s.records_selected
    );
    if s.records.is_empty() {
        return;
    }
    if p.sampled {
        let _ = writeln!(out, "  {:>14} {:>8} address", "count", "share");
    } else {
        let _ = writeln!(
            out,
            "  {:>14} {:>8} {:>10} from -> to",
            "count", "share", "mispreds"
        );
    }
    for &i in &s.records {
        let Some(r) = p.records.get(i) else { continue };
        let _ = write!(
            out,
            "  {:>14} {:>8}",
            r.count,
            pct(share(r.count, s.totals.count))
        );
        if !p.sampled {
            let _ = write!(out, " {:>10}", r.mispreds);
        }
        let _ = writeln!(out, " {}", places(p, r));
    }
}

/// `show --json`'s document of `p` (named `file`).
pub fn show_json(p: &BranchProfile, s: &BoltSummary, file: &str) -> Value {
    let t = &s.totals;
    let functions: Vec<Value> = s
        .functions
        .iter()
        .map(|f| {
            json!({
                "name": f.name,
                "count": f.count,
                "share": share(f.count, t.count),
                "mispredictions": f.mispreds,
                "records": f.records,
                "exec": f.exec,
            })
        })
        .collect();
    let records: Vec<Value> = s
        .records
        .iter()
        .filter_map(|&i| p.records.get(i))
        .map(|r| {
            json!({
                "kind": r.kind.name(),
                "function": p.function(r),
                "from": p.from(r),
                "to": if r.kind == BoltRecordKind::Sample { Value::Null } else { json!(p.to(r)) },
                "count": r.count,
                "share": share(r.count, t.count),
                "mispredictions": r.mispreds,
            })
        })
        .collect();
    json!({
        "file": file,
        "format": format_name(p.format),
        "sampled": p.sampled,
        "boltedcollection": p.bolted,
        "events": p.events,
        "binary": binary(p),
        "totals": {
            "functions": t.functions,
            "branches": t.branches,
            "calls": t.calls,
            "samples": t.samples,
            "count": t.count,
            "mispredictions": t.mispreds,
            "memory_events": t.memory_events,
            "memory_count": t.memory_count,
        },
        "functions_selected": s.functions_selected,
        "functions": functions,
        "records_selected": s.records_selected,
        "records": records,
    })
}

/// The JSON name of a format.
fn format_name(f: BoltFormat) -> &'static str {
    match f {
        BoltFormat::Fdata => "bolt-fdata",
        BoltFormat::Yaml => "bolt-yaml",
    }
}

/// YAML's binary name and build id, `null` for fdata.
fn binary(p: &BranchProfile) -> Value {
    match p.format {
        BoltFormat::Fdata => Value::Null,
        BoltFormat::Yaml => json!({ "name": p.binary.0, "build_id": p.binary.1 }),
    }
}

/// The names of the two profiles compared.
#[derive(Debug, Clone, Copy)]
pub struct OverlapNames<'a> {
    /// The base profile.
    pub base: &'a str,
    /// The test profile.
    pub test: &'a str,
}

/// `overlap`'s text report of `base` and `test` (of the same format and mode).
pub fn overlap_text(base: &BranchProfile, o: &BoltOverlap, names: OverlapNames<'_>) -> String {
    let mut out = String::new();
    let noun = base.records_noun();
    let _ = writeln!(
        out,
        "BOLT profile overlap ({}) of base_profile: {} and test_profile: {}",
        describe(base),
        names.base,
        names.test
    );
    for (total, name) in [(o.base_count, names.base), (o.test_count, names.test)] {
        if total == 0 {
            let _ = writeln!(out, "Sum of {noun} counts for profile {name} is 0.");
        }
    }
    let _ = writeln!(out, "Program level:");
    let _ = writeln!(out, "  Profile overlap: {}", pct(o.overlap));
    let [both, b_only, t_only] = o.records;
    let _ = writeln!(
        out,
        "  {}: {both} in both, {b_only} only in base_profile, {t_only} only in test_profile",
        capitalised(noun)
    );
    let [both, b_only, t_only] = o.functions;
    let _ = writeln!(
        out,
        "  Functions: {both} in both, {b_only} only in base_profile, {t_only} only in test_profile"
    );
    let _ = writeln!(
        out,
        "  Share of the base count only in base_profile: {}",
        pct(o.base_only_share)
    );
    let _ = writeln!(
        out,
        "  Share of the test count only in test_profile: {}",
        pct(o.test_only_share)
    );
    let _ = writeln!(out, "  Base count sum: {}", o.base_count);
    let _ = writeln!(out, "  Test count sum: {}", o.test_count);
    if o.listed.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "Function level, largest difference in share of the total count first ({} of {}):",
        o.listed.len(),
        o.functions_selected
    );
    for f in &o.listed {
        let _ = writeln!(
            out,
            "  {}: overlap {}, base {} (count {}), test {} (count {}), difference {}",
            f.name,
            pct(f.overlap),
            pct(f.base_share),
            f.base_count,
            pct(f.test_share),
            f.test_count,
            pct(f.test_share - f.base_share)
        );
    }
    out
}

/// `branches` → `Branches`.
fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// `overlap --json`'s document (`schemas/bolt-overlap.schema.json`).
pub fn overlap_json(base: &BranchProfile, o: &BoltOverlap, names: OverlapNames<'_>) -> Value {
    let sides = |v: [u64; 3]| json!({ "both": v[0], "base_only": v[1], "test_only": v[2] });
    let function = |f: &BoltFunctionOverlap| {
        json!({
            "name": f.name,
            "overlap": f.overlap,
            "base_count": f.base_count,
            "test_count": f.test_count,
            "base_share": f.base_share,
            "test_share": f.test_share,
            "records": sides(f.records),
        })
    };
    json!({
        "base": names.base,
        "test": names.test,
        "format": format_name(base.format),
        "sampled": base.sampled,
        "overlap": o.overlap,
        "base_count": o.base_count,
        "test_count": o.test_count,
        "records": sides(o.records),
        "functions": sides(o.functions),
        "base_only_share": o.base_only_share,
        "test_only_share": o.test_only_share,
        "functions_selected": o.functions_selected,
        "listed": o.listed.iter().map(function).collect::<Vec<_>>(),
    })
}
