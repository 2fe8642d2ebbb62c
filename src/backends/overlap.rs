//! llvm-profdata's overlap report: the figures of `ir::overlap` as text.

use std::fmt::Write;

use super::cfmt;
use crate::ir::ValueKind;
use crate::ir::overlap::OverlapStats;

/// Prints the figures as llvm-profdata does (`OverlapStats::dump`).
pub fn dump(s: &OverlapStats, out: &mut String, base_name: &str, test_name: &str) {
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
                "Profile overlap information for base_profile: {base_name} and test_profile: {test_name}\nProgram level:\n"
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
