//! llvm-profdata's overlap report: the figures of `ir::overlap` as text (llvm-profdata's
//! lines, byte for byte) or as JSON (`schemas/overlap.schema.json`), both rendered from the
//! same `OverlapReport`.

use std::fmt::Write;

#[cfg(feature = "json")]
use serde_json::{Value, json};

use super::cfmt;
use crate::ir::ValueKind;
#[cfg(feature = "json")]
use crate::ir::overlap::CountSum;
use crate::ir::overlap::OverlapStats;

/// What `overlap` reports of two LLVM instrumentation profiles: the figures
/// `passes::overlap` computed, the names to print and how many differences to list.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OverlapReport<'a> {
    /// The base profile's name, as printed.
    pub base_name: &'a str,
    /// The test profile's name, as printed.
    pub test_name: &'a str,
    /// Program-level figures.
    pub program: &'a OverlapStats,
    /// Function-level figures of the selected functions, in test-profile order.
    pub functions: &'a [OverlapStats],
    /// `Some("base")` or `Some("test")` when that profile's counters sum to zero: then only
    /// that is reported (and the differences).
    pub zero_side: Option<&'a str>,
    /// (name, base share, test share) per function name, largest |difference| first.
    pub differences: &'a [(String, f64, f64)],
    /// How many of `differences` to list (0: none).
    pub top_differences: usize,
    /// Whether the comparison was of context-sensitive records (said in the JSON form).
    #[cfg(feature = "json")]
    pub context_sensitive: bool,
    /// The llvm-profdata release whose words to print (the drop-in's); None: the newest.
    /// Before 22 (14 and 19 compared) the heading says "infomation".
    pub llvm_release: Option<u32>,
}

/// The text report: llvm-profdata's lines, then (when `top_differences` > 0) ours, the
/// largest differences of share.
pub(crate) fn text(r: &OverlapReport<'_>) -> String {
    let mut out = String::new();
    if let Some(side) = r.zero_side {
        let which = if side == "base" {
            r.base_name
        } else {
            r.test_name
        };
        let _ = writeln!(out, "Sum of edge counts for profile {which} is 0.");
    } else {
        let information = if r.llvm_release.is_some_and(|v| v < 22) {
            "infomation"
        } else {
            "information"
        };
        for f in r.functions {
            dump(f, &mut out, (r.base_name, r.test_name), information);
        }
        dump(r.program, &mut out, (r.base_name, r.test_name), information);
    }
    if r.top_differences > 0 && !r.differences.is_empty() {
        out.push_str("Largest differences in each function's share of the total count:\n");
        for (name, b, t) in r.differences.iter().take(r.top_differences) {
            let _ = writeln!(
                out,
                "  {name}: base {}%, test {}%, difference {}%",
                cfmt::fixed(b * 100.0, 3),
                cfmt::fixed(t * 100.0, 3),
                cfmt::fixed((t - b) * 100.0, 3)
            );
        }
    }
    out
}

/// A ratio as a JSON number; `null` when it is not a number (never the case for figures
/// computed from profiles with counts, but JSON has no NaN).
#[cfg(feature = "json")]
fn ratio(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// A sum of counts kept as `f64` (as LLVM keeps it) written as the integer it is.
#[cfg(feature = "json")]
fn count(x: f64) -> Value {
    // Sums of u64 counts: whole numbers in [0, 2^64]; `as` saturates at the ends.
    json!(x as u64)
}

/// The figures of one kind of counts (edge counters, or the values of one value kind): the
/// overlap and the shares of mismatched and test-only functions (fractions of the test
/// profile's count), and both sides' sums.
#[cfg(feature = "json")]
fn kind_json(s: &OverlapStats, of: impl Fn(&CountSum) -> f64) -> Value {
    json!({
        "overlap": ratio(of(&s.overlap)),
        "mismatched_share": ratio(of(&s.mismatch)),
        "test_only_share": ratio(of(&s.unique)),
        "base_count": count(of(&s.base)),
        "test_count": count(of(&s.test)),
    })
}

/// One `OverlapStats` (program or function level) as JSON.
#[cfg(feature = "json")]
fn stats_json(s: &OverlapStats) -> Value {
    let mut values = serde_json::Map::new();
    for k in ValueKind::ALL {
        let i = k.index();
        let key = match k {
            ValueKind::IndirectCall => "indirect_call",
            ValueKind::MemOpSize => "memop",
            ValueKind::VTable => "vtable",
        };
        // As the text: a kind neither side has counts of is not reported.
        let v = if s.base.value_counts[i] < 1.0 && s.test.value_counts[i] < 1.0 {
            Value::Null
        } else {
            kind_json(s, |c| c.value_counts[i])
        };
        values.insert(key.into(), v);
    }
    let mut o = json!({
        // Functions at program level, edge counters at function level.
        "entries": {
            "overlap": s.overlap.num_entries,
            "mismatched": s.mismatch.num_entries,
            "test_only": s.unique.num_entries,
        },
        "edge": kind_json(s, |c| c.count_sum),
        "values": Value::Object(values),
    });
    if let (Some((name, hash)), Some(m)) = (&s.function, o.as_object_mut()) {
        m.insert("name".into(), json!(name));
        m.insert("hash".into(), json!(format!("0x{hash:016x}")));
    }
    o
}

/// The JSON document (`schemas/overlap.schema.json`, kind `llvm-instrumentation`): the
/// same figures as [`text`], ratios as fractions (1 = 100 %), counts as integers.
#[cfg(feature = "json")]
pub(crate) fn json(r: &OverlapReport<'_>) -> Value {
    let zero = r.zero_side.is_some();
    json!({
        "kind": "llvm-instrumentation",
        "base": r.base_name,
        "test": r.test_name,
        "context_sensitive": r.context_sensitive,
        "zero_count_profile": r.zero_side,
        "program": if zero { Value::Null } else { stats_json(r.program) },
        "functions": if zero {
            Vec::new()
        } else {
            r.functions.iter().map(stats_json).collect::<Vec<_>>()
        },
        "largest_differences": r
            .differences
            .iter()
            .take(r.top_differences)
            .map(|(name, b, t)| json!({
                "name": name,
                "base_share": ratio(*b),
                "test_share": ratio(*t),
                "difference": ratio(t - b),
            }))
            .collect::<Vec<_>>(),
    })
}

/// Prints the figures as llvm-profdata does (`OverlapStats::dump`), the heading of the
/// program level with `information` spelt as the release spells it.
pub fn dump(s: &OverlapStats, out: &mut String, names: (&str, &str), information: &str) {
    let (base_name, test_name) = names;
    if !s.valid {
        return;
    }
    let entry = if s.function.is_none() {
        "functions"
    } else {
        "edge counters"
    };
    match &s.function {
        None => {
            let _ = write!(
                out,
                "Profile overlap {information} for base_profile: {base_name} and test_profile: {test_name}\nProgram level:\n"
            );
        }
        Some((name, hash)) => {
            let _ = write!(out, "Function level:\n  Function: {name} (Hash={hash})\n");
        }
    }
    let _ = writeln!(out, "  # of {entry} overlap: {}", s.overlap.num_entries);
    if s.mismatch.num_entries > 0 {
        let _ = writeln!(out, "  # of {entry} mismatch: {}", s.mismatch.num_entries);
    }
    if s.unique.num_entries > 0 {
        let _ = writeln!(
            out,
            "  # of {entry} only in test_profile: {}",
            s.unique.num_entries
        );
    }
    let pct = |x: f64| format!("{}%", cfmt::fixed(x * 100.0, 3));
    let _ = writeln!(out, "  Edge profile overlap: {}", pct(s.overlap.count_sum));
    if s.mismatch.num_entries > 0 {
        let _ = writeln!(
            out,
            "  Mismatched count percentage (Edge): {}",
            pct(s.mismatch.count_sum)
        );
    }
    if s.unique.num_entries > 0 {
        let _ = writeln!(
            out,
            "  Percentage of Edge profile only in test_profile: {}",
            pct(s.unique.count_sum)
        );
    }
    let _ = writeln!(
        out,
        "  Edge profile base count sum: {}",
        cfmt::fixed(s.base.count_sum, 0)
    );
    let _ = writeln!(
        out,
        "  Edge profile test count sum: {}",
        cfmt::fixed(s.test.count_sum, 0)
    );
    for k in ValueKind::ALL {
        let i = k.index();
        if s.base.value_counts[i] < 1.0 && s.test.value_counts[i] < 1.0 {
            continue;
        }
        let n = match k {
            ValueKind::IndirectCall => "IndirectCall",
            ValueKind::MemOpSize => "MemOP",
            ValueKind::VTable => "VTable",
        };
        let _ = writeln!(
            out,
            "  {n} profile overlap: {}",
            pct(s.overlap.value_counts[i])
        );
        if s.mismatch.num_entries > 0 {
            let _ = writeln!(
                out,
                "  Mismatched count percentage ({n}): {}",
                pct(s.mismatch.value_counts[i])
            );
        }
        if s.unique.num_entries > 0 {
            let _ = writeln!(
                out,
                "  Percentage of {n} profile only in test_profile: {}",
                pct(s.unique.value_counts[i])
            );
        }
        let _ = writeln!(
            out,
            "  {n} profile base count sum: {}",
            cfmt::fixed(s.base.value_counts[i], 0)
        );
        let _ = writeln!(
            out,
            "  {n} profile test count sum: {}",
            cfmt::fixed(s.test.value_counts[i], 0)
        );
    }
}
