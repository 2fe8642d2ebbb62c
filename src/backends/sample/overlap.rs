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
    // LLVM 19 and earlier spell it "infomation"; the typo was fixed in November 2024,
    // before LLVM 20 branched.
    out.extend_from_slice(if llvm <= 19 {
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
