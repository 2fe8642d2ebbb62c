//! The report of `llvm-profdata overlap --sample`, byte for byte: program-level figures,
//! hot functions and blocks, then the per-function table (columns padded as LLVM's
//! `formatted_raw_ostream` pads them).

use std::io::Write as _;

use crate::backends::cfmt;
use crate::ir::sample::{SampleOverlap, SampleOverlapFigures, SampleOverlapStats};

/// Pads the line being written in `out` with spaces to column `col`, at least one space
/// (LLVM's `PadToColumn`). Columns count bytes since the last newline: everything padded
/// here is ASCII.
pub(crate) fn pad_to(out: &mut Vec<u8>, col: usize) {
    let line_start = out.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let at = out.len() - line_start;
    let n = col.saturating_sub(at).max(1);
    out.extend(std::iter::repeat_n(b' ', n));
}

/// `x` as `printf("%.{prec}f%%", x * 100)`.
fn percent(x: f64, prec: usize) -> String {
    format!("{}%", cfmt::fixed(x * 100.0, prec))
}

/// `a / b` as LLVM divides two counts (a count of 0 by 0 is NaN, printed `-nan` on x86).
fn ratio(a: u64, b: u64) -> f64 {
    a as f64 / b as f64
}

/// The report comparing `test` (named `test_name`) with `base` (named `base_name`), as
/// llvm-profdata of LLVM release `llvm` prints it; the names are printed as given.
pub fn report(r: &SampleOverlap, base_name: &[u8], test_name: &[u8], llvm: u32) -> Vec<u8> {
    let mut out = Vec::new();
    match r {
        SampleOverlap::ZeroSamples { base, test } => {
            for (zero, name) in [(*base, base_name), (*test, test_name)] {
                if zero {
                    out.extend_from_slice(b"Sum of sample counts for profile ");
                    out.extend_from_slice(name);
                    out.extend_from_slice(b" is 0.\n");
                }
            }
        }
        SampleOverlap::Compared(f) => {
            program(&mut out, &f.program, base_name, test_name, llvm);
            hot(&mut out, f);
            functions(&mut out, &f.functions);
        }
    }
    out
}

fn program(
    out: &mut Vec<u8>,
    p: &SampleOverlapStats,
    base_name: &[u8],
    test_name: &[u8],
    llvm: u32,
) {
    // LLVM 21 and earlier spell it "infomation" (21.1.8 checked); 22 has the fix.
    out.extend_from_slice(if llvm <= 21 {
        b"Profile overlap infomation for base_profile: "
    } else {
        b"Profile overlap information for base_profile: "
    });
    out.extend_from_slice(base_name);
    out.extend_from_slice(b" and test_profile: ");
    out.extend_from_slice(test_name);
    out.extend_from_slice(b"\nProgram level:\n");
    let _ = writeln!(
        out,
        "  Whole program profile similarity: {}",
        percent(p.similarity, 3)
    );
    let _ = writeln!(
        out,
        "  Whole program sample overlap: {}",
        percent(ratio(p.overlap_sample, p.union_sample), 3)
    );
    let _ = writeln!(
        out,
        "    percentage of samples unique in base profile: {}",
        percent(ratio(p.base_unique_sample, p.base_sample), 3)
    );
    let _ = writeln!(
        out,
        "    percentage of samples unique in test profile: {}",
        percent(ratio(p.test_unique_sample, p.test_sample), 3)
    );
    let _ = writeln!(out, "    total samples in base profile: {}", p.base_sample);
    let _ = writeln!(out, "    total samples in test profile: {}", p.test_sample);
    let _ = writeln!(
        out,
        "  Function overlap: {}",
        percent(ratio(p.overlap_count, p.union_count), 3)
    );
    let _ = writeln!(out, "    overlap functions: {}", p.overlap_count);
    let _ = writeln!(
        out,
        "    functions unique in base profile: {}",
        p.base_unique_count
    );
    let _ = writeln!(
        out,
        "    functions unique in test profile: {}",
        p.test_unique_count
    );
}

fn hot(out: &mut Vec<u8>, f: &SampleOverlapFigures) {
    for (what, s) in [("function", &f.hot_functions), ("block", &f.hot_blocks)] {
        let _ = writeln!(
            out,
            "  Hot-{what} overlap: {}%",
            cfmt::fixed(ratio(s.overlap_count, s.union_count) * 100.0, 3)
        );
        let _ = writeln!(out, "    overlap hot {what}s: {}", s.overlap_count);
        let _ = writeln!(
            out,
            "    hot {what}s unique in base profile: {}",
            s.base_count.wrapping_sub(s.overlap_count)
        );
        let _ = writeln!(
            out,
            "    hot {what}s unique in test profile: {}",
            s.test_count.wrapping_sub(s.overlap_count)
        );
    }
}

/// Column starts of the per-function table.
const COLUMNS: [usize; 8] = [15, 30, 43, 53, 67, 81, 96, 111];

fn functions(out: &mut Vec<u8>, listed: &[SampleOverlapStats]) {
    if listed.is_empty() {
        return;
    }
    out.extend_from_slice(b"Function-level details:\n");
    let titles = [
        "Base weight",
        "Test weight",
        "Similarity",
        "Overlap",
        "Base unique",
        "Test unique",
        "Base samples",
        "Test samples",
        "Function name",
    ];
    out.extend_from_slice(titles[0].as_bytes());
    for (col, title) in COLUMNS.iter().zip(&titles[1..]) {
        pad_to(out, *col);
        out.extend_from_slice(title.as_bytes());
    }
    out.push(b'\n');
    for f in listed {
        let share = |a: u64, b: u64| if b > 0 { ratio(a, b) } else { 0.0 };
        let cells = [
            percent(f.test_weight, 2),
            percent(f.similarity, 2),
            percent(share(f.overlap_sample, f.union_sample), 2),
            percent(share(f.base_unique_sample, f.base_sample), 2),
            percent(share(f.test_unique_sample, f.test_sample), 2),
            f.base_sample.to_string(),
            f.test_sample.to_string(),
        ];
        out.extend_from_slice(percent(f.base_weight, 2).as_bytes());
        for (col, cell) in COLUMNS.iter().zip(&cells) {
            pad_to(out, *col);
            out.extend_from_slice(cell.as_bytes());
        }
        pad_to(out, COLUMNS[7]);
        if let Some(name) = &f.test_name {
            name.write_to(out);
        }
        out.push(b'\n');
    }
}

/// A fraction as a JSON number, `null` where the text prints `nan` (0 of 0).
fn fraction(x: f64) -> serde_json::Value {
    serde_json::Number::from_f64(x).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

/// The whole-program figures of the text report, as fractions and integer counts.
fn program_json(p: &SampleOverlapStats) -> serde_json::Value {
    serde_json::json!({
        "similarity": fraction(p.similarity),
        "sample_overlap": fraction(ratio(p.overlap_sample, p.union_sample)),
        "base_unique_sample_share": fraction(ratio(p.base_unique_sample, p.base_sample)),
        "test_unique_sample_share": fraction(ratio(p.test_unique_sample, p.test_sample)),
        "base_samples": p.base_sample,
        "test_samples": p.test_sample,
        "function_overlap": fraction(ratio(p.overlap_count, p.union_count)),
        "overlap_functions": p.overlap_count,
        "base_unique_functions": p.base_unique_count,
        "test_unique_functions": p.test_unique_count,
    })
}

/// Hot functions or hot blocks: the overlap and the counts of the text report.
fn hot_json(s: &SampleOverlapStats) -> serde_json::Value {
    serde_json::json!({
        "overlap": fraction(ratio(s.overlap_count, s.union_count)),
        "both": s.overlap_count,
        "base_only": s.base_count.wrapping_sub(s.overlap_count),
        "test_only": s.test_count.wrapping_sub(s.overlap_count),
    })
}

/// One row of the per-function table.
fn function_json(f: &SampleOverlapStats) -> serde_json::Value {
    let share = |a: u64, b: u64| if b > 0 { ratio(a, b) } else { 0.0 };
    serde_json::json!({
        "name": f.test_name.as_ref().map(ToString::to_string).unwrap_or_default(),
        "base_weight": fraction(f.base_weight),
        "test_weight": fraction(f.test_weight),
        "similarity": fraction(f.similarity),
        "overlap": fraction(share(f.overlap_sample, f.union_sample)),
        "base_unique": fraction(share(f.base_unique_sample, f.base_sample)),
        "test_unique": fraction(share(f.test_unique_sample, f.test_sample)),
        "base_samples": f.base_sample,
        "test_samples": f.test_sample,
    })
}

/// `overlap --sample --json`'s document (`schemas/overlap.schema.json`, kind
/// `llvm-sample`): the figures of [`report`], fractions as numbers (1 = 100 %), counts as
/// integers. Names that are not UTF-8 are written with U+FFFD in place of bad bytes.
pub(crate) fn json(r: &SampleOverlap, base_name: &[u8], test_name: &[u8]) -> serde_json::Value {
    let (zero, figures) = match r {
        SampleOverlap::ZeroSamples { base, test } => {
            let sides = [(*base, "base"), (*test, "test")];
            let zero: Vec<&str> = sides.iter().filter(|s| s.0).map(|s| s.1).collect();
            (zero, None)
        }
        SampleOverlap::Compared(f) => (Vec::new(), Some(f)),
    };
    serde_json::json!({
        "kind": "llvm-sample",
        "base": String::from_utf8_lossy(base_name),
        "test": String::from_utf8_lossy(test_name),
        "zero_sample_profiles": zero,
        "program": figures.map(|f| program_json(&f.program)),
        "hot_functions": figures.map(|f| hot_json(&f.hot_functions)),
        "hot_blocks": figures.map(|f| hot_json(&f.hot_blocks)),
        "functions": figures.map_or_else(Vec::new, |f| f.functions.iter().map(function_json).collect()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_like_formatted_raw_ostream() {
        let mut v = b"abc\nBase weight".to_vec();
        pad_to(&mut v, 15);
        assert_eq!(&v[4..], b"Base weight    ");
        pad_to(&mut v, 3);
        assert!(v.ends_with(b"    "), "at least one space past the column");
        let mut w = Vec::new();
        pad_to(&mut w, 0);
        assert_eq!(w, b" ");
    }

    #[test]
    fn zero_sample_profiles_are_named() {
        let r = SampleOverlap::ZeroSamples {
            base: true,
            test: true,
        };
        assert_eq!(
            report(&r, b"a.txt", b"b.txt", 22),
            b"Sum of sample counts for profile a.txt is 0.\nSum of sample counts for profile b.txt is 0.\n"
        );
    }
}
