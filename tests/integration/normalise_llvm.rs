//! `--normalize=total|max` on LLVM profiles: every input brought up to the largest one, by
//! exact ratios, checked against counts computed here from the inputs' own counters; the
//! result is read by the real llvm-profdata.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{assert_ok, raw, run, run_ours, tempdir, tool};

/// (function name, structural hash) → counters, from a text profile.
type Counts = BTreeMap<(String, u64), Vec<u64>>;

fn parse_proftext(text: &str) -> Counts {
    let mut out = Counts::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim();
        if l.is_empty() || l.starts_with('#') || l.starts_with(':') {
            i += 1;
            continue;
        }
        // NAME, # Func Hash:, HASH, # Num Counters:, N, # Counter Values:, N values, ...
        let name = l.to_string();
        let hash: u64 = lines[i + 2].trim().parse().unwrap();
        let n: usize = lines[i + 4].trim().parse().unwrap();
        let counters = (0..n)
            .map(|k| lines[i + 6 + k].trim().parse().unwrap())
            .collect();
        out.insert((name, hash), counters);
        i += 6 + n;
        // Skip value sites and bitmaps up to the blank line that ends the record.
        while i < lines.len() && !lines[i].trim().is_empty() {
            i += 1;
        }
    }
    out
}

fn counts_of(input: &Path, dir: &Path, name: &str) -> Counts {
    let out = dir.join(name);
    let r = run_ours([
        input.as_os_str(),
        "--text".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_ok(&r, "text dump of an input");
    parse_proftext(&std::fs::read_to_string(&out).unwrap())
}

/// `round_half_up(c × num / den)`, the scaling of fractional weights.
fn scale(c: u64, num: u128, den: u128) -> u64 {
    u64::try_from((u128::from(c) * num + den / 2) / den).unwrap()
}

fn check(mode: &str, measure: fn(&Counts) -> u128) {
    let dir = tempdir();
    // Two runs of one program with different workloads (and so different totals).
    let a = raw("clang22/ir-basic-run1.profraw");
    let b = raw("clang22/ir-basic-run2.profraw");
    let ca = counts_of(&a, dir.path(), "a.proftext");
    let cb = counts_of(&b, dir.path(), "b.proftext");
    let (ta, tb) = (measure(&ca), measure(&cb));
    assert_ne!(ta, tb, "the two inputs should differ in size");
    let m = ta.max(tb);
    // Expected: every record's counters scaled by largest/own, then added in input order.
    let mut want = Counts::new();
    for (counts, t) in [(&ca, ta), (&cb, tb)] {
        for (k, v) in counts {
            let e = want.entry(k.clone()).or_insert_with(|| vec![0; v.len()]);
            for (d, c) in e.iter_mut().zip(v) {
                *d += scale(*c, m, t);
            }
        }
    }
    let out = dir.path().join("n.proftext");
    let r = run_ours([
        format!("--normalize={mode}").as_ref(),
        a.as_os_str(),
        b.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_ok(&r, "normalised merge");
    let got = parse_proftext(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(got, want, "--normalize={mode}");
    // A count that was not zero stays non-zero.
    for (k, v) in &got {
        let before = ca
            .get(k)
            .into_iter()
            .chain(cb.get(k))
            .flatten()
            .any(|&c| c > 0);
        assert_eq!(before, v.iter().any(|&c| c > 0), "{k:?}");
    }
    // The same for any thread count, and as an indexed profile the real tool reads.
    let p1 = dir.path().join("j1.profdata");
    let p2 = dir.path().join("j2.profdata");
    for (j, p) in [("1", &p1), ("2", &p2)] {
        let r = run_ours([
            format!("--normalize={mode}").as_ref(),
            "-j".as_ref(),
            j.as_ref(),
            a.as_os_str(),
            b.as_os_str(),
            "-o".as_ref(),
            p.as_os_str(),
        ]);
        assert_ok(&r, "normalised merge to .profdata");
    }
    assert_eq!(std::fs::read(&p1).unwrap(), std::fs::read(&p2).unwrap());
    if let Some(llvm) = tool("llvm-profdata-22", "normalise_llvm") {
        let shown = run(
            &llvm,
            &[
                "show".as_ref(),
                "--all-functions".as_ref(),
                "--counts".as_ref(),
                p1.as_os_str(),
            ],
        );
        assert!(
            shown.status.success(),
            "{}",
            String::from_utf8_lossy(&shown.stderr)
        );
        let text = String::from_utf8_lossy(&shown.stdout);
        let sum: u128 = want.values().flatten().map(|&c| u128::from(c)).sum();
        assert!(
            text.contains(&format!("Total functions: {}", want.len())),
            "{text}"
        );
        assert!(sum > 0);
    }
}

#[test]
fn normalize_total_scales_inputs_to_the_largest_total() {
    check("total", |c| {
        c.values().flatten().map(|&x| u128::from(x)).sum()
    });
}

#[test]
fn normalize_max_scales_inputs_to_the_largest_count() {
    check("max", |c| {
        c.values()
            .flatten()
            .map(|&x| u128::from(x))
            .max()
            .unwrap_or(0)
    });
}
