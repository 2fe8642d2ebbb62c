//! The flat fast path of sample merges (the binary readers' flat form, the text reader's,
//! `SampleMerger::add_flat`) against the map form it stands in for: every binary,
//! extbinary and text file of testdata/sample
//! (and the third-party ones, when present) merged both ways, alone, with itself under
//! weights that saturate, with the other files of its kind, and with a copy whose checksums
//! differ, gives the same profile and the same problems; inputs the flat form cannot hold
//! are refused without a panic, and damaged files that read canonical merge alike both ways.

use std::path::{Path, PathBuf};

use pgo_merge::backends::sample::extbinary::{self as ext_out, ExtBinaryOptions};
use pgo_merge::bytes::leb128::write_uleb;
use pgo_merge::codec::sample_binary::SampleMagic;
use pgo_merge::frontends::sample::{self as readers, ReadOptions};
use pgo_merge::frontends::sample::{SampleEncoding, text};
use pgo_merge::ir::Weight;
use pgo_merge::ir::sample::{FlatSampleProfile, FunctionSamples, SampleProfile};
use pgo_merge::passes::sample::{IssueKind, MergeIssue, SampleMerger};

use crate::common::{external_dir, root};

/// Reads `data` flat as the pipeline does: text with the text reader's flat form, the
/// binary encodings with their one reader. True if the merge may fold it flat (it read, and
/// is canonical).
fn read_flat(data: &[u8], out: &mut FlatSampleProfile) -> bool {
    if SampleEncoding::sniff(data) == SampleEncoding::Text {
        text::read_for_merge(data, ReadOptions::default().text, out).is_ok_and(|t| t.is_none())
    } else {
        readers::read_binary_flat(data, &ReadOptions::default(), out).unwrap_or(false)
            && out.canonical
    }
}

/// Binary and extbinary files: ours, then third-party ones.
fn binary_files() -> Vec<PathBuf> {
    let ours = root().join("testdata/sample");
    let mut v: Vec<PathBuf> = [ours.join("llvm22"), ours.join("llvm19"), ours.clone()]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "afdo"))
        .collect();
    match std::fs::read_dir(external_dir().join("llvm-sample")) {
        Ok(rd) => v.extend(rd.flatten().map(|e| e.path()).filter(|p| {
            std::fs::read(p).is_ok_and(|d| {
                SampleMagic::sniff(&d).is_some_and(|m| m != SampleMagic::CompactBinary)
            })
        })),
        Err(_) => eprintln!("SKIPPED sample_flat (third-party part): llvm-sample/ is absent"),
    }
    v.sort();
    v
}

/// A whole weight.
fn w(n: u64) -> Weight {
    Weight::integer(n).unwrap()
}

/// A weight written as a decimal (`0.5`).
fn frac(s: &str) -> Weight {
    s.parse().unwrap()
}

/// The merged profile and problems of `inputs`, each added in map form.
fn merge_maps(inputs: &[(&[u8], Weight)]) -> Result<(SampleProfile, Vec<MergeIssue>), String> {
    let mut m = SampleMerger::new();
    for (data, w) in inputs {
        let p = readers::read(data, &ReadOptions::default()).map_err(|e| e.to_string())?;
        m.add(p, *w).map_err(|e| e.to_string())?;
    }
    Ok(m.finish())
}

/// The same, each input added flat when it reads flat (as the pipeline does); also the
/// number of inputs that took the flat path.
fn merge_flat(
    inputs: &[(&[u8], Weight)],
) -> Result<(SampleProfile, Vec<MergeIssue>, usize), String> {
    let mut m = SampleMerger::new();
    let mut flat = FlatSampleProfile::new();
    let mut fast = 0;
    for (data, w) in inputs {
        if read_flat(data, &mut flat) && m.add_flat(&flat, *w).map_err(|e| e.to_string())? {
            fast += 1;
            continue;
        }
        let p = readers::read(data, &ReadOptions::default()).map_err(|e| e.to_string())?;
        m.add(p, *w).map_err(|e| e.to_string())?;
    }
    let (p, i) = m.finish();
    Ok((p, i, fast))
}

fn assert_same(
    what: &str,
    a: &(SampleProfile, Vec<MergeIssue>),
    b: &(SampleProfile, Vec<MergeIssue>),
) {
    assert_eq!(a.0.functions, b.0.functions, "{what}: profiles");
    assert_eq!(
        a.0.insertion_order, b.0.insertion_order,
        "{what}: insertion order"
    );
    assert_eq!(a.0.flags, b.0.flags, "{what}: flags");
    assert_eq!(a.0.symbol_list, b.0.symbol_list, "{what}: symbol list");
    assert_eq!(a.0.format, b.0.format, "{what}: format");
    assert_eq!(a.1, b.1, "{what}: problems");
}

/// Merges `inputs` both ways and checks they agree; returns how many took the flat path
/// and the problems met.
fn check_issues(what: &str, inputs: &[(&[u8], Weight)]) -> (usize, Vec<IssueKind>) {
    match (merge_maps(inputs), merge_flat(inputs)) {
        (Ok(a), Ok((p, i, fast))) => {
            assert_same(what, &a, &(p, i));
            (fast, a.1.iter().map(|i| i.kind).collect())
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "{what}: errors");
            (0, Vec::new())
        }
        (a, b) => panic!("{what}: map form {:?}, flat {:?}", a.err(), b.err()),
    }
}

/// [`check_issues`] without the problems.
fn check(what: &str, inputs: &[(&[u8], Weight)]) -> usize {
    check_issues(what, inputs).0
}

/// A copy of `profile` with other checksums for every other function and inlined callee.
fn with_other_checksums(profile: &SampleProfile) -> SampleProfile {
    fn bump(f: &mut FunctionSamples, k: &mut u64) {
        *k += 1;
        if k.is_multiple_of(2) {
            f.checksum = f.checksum.wrapping_add(1).max(1);
        }
        for site in f.callsites.values_mut() {
            for c in site.values_mut() {
                bump(c, k);
            }
        }
    }
    let mut p = profile.clone();
    let mut k = 0;
    let mut keys: Vec<_> = p.functions.keys().cloned().collect();
    keys.sort();
    for key in keys {
        bump(p.functions.get_mut(&key).unwrap(), &mut k);
    }
    p
}

#[test]
fn flat_merges_are_map_merges() {
    let files = binary_files();
    assert!(files.len() >= 10, "testdata/sample has binary profiles");
    let data: Vec<(PathBuf, Vec<u8>)> = files
        .iter()
        .map(|f| (f.clone(), std::fs::read(f).unwrap()))
        .collect();
    let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
    let mut flat_files = 0;
    // Merges on the flat path that met saturated counts, and checksum mismatches.
    let (mut overflows, mut mismatches) = (0, 0);
    for (path, d) in &data {
        let what = name(path);
        let mut flat = FlatSampleProfile::new();
        let reads_flat = read_flat(d, &mut flat);
        // What LLVM writes reads flat whenever it reads at all (LLVM 22 writes a
        // context-sensitive profile with --split-layout that no reader reads), unless it has
        // vtable type counts (they fold through the tree form).
        let reads = readers::read(d, &ReadOptions::default()).is_ok() && flat.type_sites.is_empty();
        if reads
            && path
                .parent()
                .is_some_and(|p| p.ends_with("llvm22") || p.ends_with("llvm19"))
        {
            assert!(reads_flat, "{what}: LLVM's output reads flat");
        }
        flat_files += usize::from(reads_flat);
        let fast = check(&what, &[(d, w(1))]);
        assert_eq!(fast, usize::from(reads_flat), "{what}");
        check(&format!("{what} x3"), &[(d, w(1)), (d, w(3)), (d, w(2))]);
        // Fractional weights round each count on its own, the same on both paths.
        check(
            &format!("{what} fractions"),
            &[
                (d, frac("0.5")),
                (d, frac("2.75")),
                (d, frac("0.001")),
                (d, w(1)),
            ],
        );
        let (fast, issues) = check_issues(
            &format!("{what} saturated"),
            &[(d, w(u64::MAX / 3)), (d, w(5)), (d, w(1))],
        );
        if fast == 3 && issues.contains(&IssueKind::CounterOverflow) {
            overflows += 1;
        }
        check(
            &format!("{what} saturated first"),
            &[(d, w(u64::MAX)), (d, w(1))],
        );
        // Checksums that differ (probe-based profiles): hash mismatches at every level.
        if let Ok(p) = readers::read(d, &ReadOptions::default())
            && p.flags.probe_based
        {
            let mut other = with_other_checksums(&p);
            other.insertion_order =
                pgo_merge::codec::unordered_order::merged_insertion_order([&other]);
            let bytes = ext_out::write(&other, &ExtBinaryOptions::default()).unwrap();
            let (fast, issues) = check_issues(
                &format!("{what} mismatched"),
                &[(d, w(1)), (&bytes, w(2)), (d, w(1))],
            );
            if fast == 3 && issues.contains(&IssueKind::HashMismatch) {
                mismatches += 1;
            }
            check(
                &format!("{what} mismatched first"),
                &[(&bytes, w(1)), (d, w(1))],
            );
        }
    }
    assert!(flat_files * 2 >= data.len(), "most files read flat");
    assert!(overflows > 0 && mismatches > 0, "{overflows} {mismatches}");
    // Pairs of files: of the same kind they merge, of different kinds they fail alike.
    for (i, (pa, a)) in data.iter().enumerate() {
        for (pb, b) in data.iter().skip(i + 1).step_by(3) {
            check(
                &format!("{} + {}", name(pa), name(pb)),
                &[(a, w(2)), (b, w(1)), (a, w(1))],
            );
        }
    }
}

/// A binary profile (`SPF_Binary`) of the given name table and raw function profiles.
fn binary(names: &[&str], functions: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    write_uleb(&mut v, SampleMagic::Binary.value());
    write_uleb(&mut v, 103);
    for _ in 0..6 {
        write_uleb(&mut v, 0);
    }
    write_uleb(&mut v, names.len() as u64);
    for n in names {
        v.extend_from_slice(n.as_bytes());
        v.push(0);
    }
    v.extend_from_slice(functions);
    v
}

#[test]
fn what_the_flat_form_cannot_hold_is_merged_in_map_form() {
    // head, name, total, #records, (line, disc, samples, #calls), #sites
    let one = |name: u8, line: u8| [1, name, 5, 1, line, 0, 5, 0, 0];
    let cases: Vec<(&str, Vec<u8>, bool)> = vec![
        // One name under two indices: reads flat, refused by the merge.
        (
            "a name twice",
            binary(&["a", "a"], &[one(0, 1), one(1, 1)].concat()),
            true,
        ),
        (
            "a function twice",
            binary(&["a"], &[one(0, 1), one(0, 2)].concat()),
            false,
        ),
        (
            "a line twice",
            binary(&["a"], &[1, 0, 5, 2, 1, 0, 2, 0, 1, 0, 3, 0, 0]),
            false,
        ),
        (
            "lines out of order",
            binary(&["a"], &[1, 0, 5, 2, 2, 0, 2, 0, 1, 0, 3, 0, 0]),
            false,
        ),
        (
            "a call target twice",
            binary(&["a", "b"], &[1, 0, 5, 1, 1, 0, 2, 2, 1, 1, 1, 1, 0]),
            false,
        ),
        (
            "a call site twice",
            binary(
                &["a", "b"],
                &[1, 0, 5, 0, 2, 1, 0, 1, 2, 0, 0, 1, 0, 1, 3, 0, 0],
            ),
            false,
        ),
    ];
    for (what, data, reads_flat) in &cases {
        let mut flat = FlatSampleProfile::new();
        assert_eq!(read_flat(data, &mut flat), *reads_flat, "{what}");
        let fast = check(what, &[(data, w(1)), (data, w(2))]);
        assert_eq!(fast, 0, "{what}: merged in map form");
    }
}

#[test]
fn damaged_files_that_read_canonical_merge_alike_both_ways() {
    for name in [
        "llvm22/flat.binary.afdo",
        "llvm22/flat.symlist-compress.afdo",
        "llvm22/cs-probe.md5.afdo",
        "llvm22/preinlined.split.afdo",
        "llvm22/probe.extbinary.afdo",
    ] {
        let path = root().join("testdata/sample").join(name);
        let Ok(data) = std::fs::read(&path) else {
            panic!("{} is missing", path.display());
        };
        let mut flat = FlatSampleProfile::new();
        let mut damaged: Vec<Vec<u8>> = (0..data.len()).map(|n| data[..n].to_vec()).collect();
        for i in 0..data.len() {
            for bit in [0, 3, 7] {
                let mut d = data.clone();
                d[i] ^= 1 << bit;
                damaged.push(d);
            }
        }
        for d in &damaged {
            if read_flat(d, &mut flat) {
                let what = format!("{name}, damaged");
                readers::read(d, &ReadOptions::default())
                    .unwrap_or_else(|e| panic!("{what}: read flat, but the map reader says {e}"));
                check(&what, &[(d, w(1)), (d, w(2))]);
            }
        }
    }
}

/// Text files: ours (hand-written, so many are not in LLVM's order and take the map form),
/// third-party ones, and what llvm-profdata-22 writes as text for each (LLVM's order: these
/// must read flat).
fn text_files(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let ours = root().join("testdata/sample");
    let mut v: Vec<PathBuf> = [ours.clone(), ours.join("fs"), ours.join("options")]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && std::fs::read(p).is_ok_and(|d| SampleEncoding::sniff(&d) == SampleEncoding::Text)
        })
        .collect();
    match std::fs::read_dir(external_dir().join("llvm-sample")) {
        Ok(rd) => v.extend(rd.flatten().map(|e| e.path()).filter(|p| {
            std::fs::read(p).is_ok_and(|d| SampleEncoding::sniff(&d) == SampleEncoding::Text)
        })),
        Err(_) => eprintln!("SKIPPED sample_flat text (third-party part): llvm-sample/ is absent"),
    }
    v.sort();
    let mut written = Vec::new();
    if let Some(tool) = crate::common::tool("llvm-profdata-22", "sample_flat text") {
        for (i, f) in v.iter().enumerate() {
            let out = dir.join(format!("w{i}.txt"));
            let ok = std::process::Command::new(&tool)
                .args(["merge", "--sample", "--text"])
                .arg(f)
                .arg("-o")
                .arg(&out)
                .output()
                .is_ok_and(|o| o.status.success());
            if ok {
                written.push(out);
            }
        }
    }
    (v, written)
}

#[test]
fn text_flat_merges_are_map_merges() {
    let dir = crate::common::tempdir();
    let (files, written) = text_files(dir.path());
    assert!(files.len() >= 10, "testdata/sample has text profiles");
    let mut flat_files = 0;
    for path in files.iter().chain(&written) {
        let d = std::fs::read(path).unwrap();
        let what = path.display().to_string();
        let mut flat = FlatSampleProfile::new();
        let reads_flat = read_flat(&d, &mut flat);
        if written.contains(path) {
            // LLVM's text writer's output reads flat, unless it holds vtable lines.
            let vtables = String::from_utf8_lossy(&d).contains(" vtables ");
            assert!(
                reads_flat || vtables,
                "{what}: LLVM's text output reads flat"
            );
        }
        flat_files += usize::from(reads_flat);
        let fast = check(&what, &[(&d, w(1))]);
        if reads_flat {
            assert!(fast <= 1, "{what}");
        }
        check(
            &format!("{what} x3"),
            &[(&d, w(1)), (&d, w(3)), (&d, frac("0.5"))],
        );
        check(
            &format!("{what} saturated"),
            &[(&d, w(u64::MAX / 3)), (&d, w(5)), (&d, w(1))],
        );
    }
    assert!(
        flat_files * 2 >= written.len(),
        "{flat_files} text files read flat"
    );
    // Pairs of written files: of the same kind they merge, of different kinds they fail
    // alike (or merge alike, where llvm-profdata's kind check lets them).
    for (i, a) in written.iter().enumerate() {
        for b in written.iter().skip(i + 1).step_by(4) {
            let (x, y) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
            check(
                &format!("{} + {}", a.display(), b.display()),
                &[(&x, w(2)), (&y, w(1)), (&x, w(1))],
            );
        }
    }
}

#[test]
fn damaged_text_never_reads_flat_where_the_map_reader_fails() {
    for name in [
        "cs-probe.prof.txt",
        "preinlined.prof.txt",
        "real-probe.prof.txt",
    ] {
        let path = root().join("testdata/sample").join(name);
        let data = std::fs::read(&path).unwrap();
        let mut flat = FlatSampleProfile::new();
        let mut damaged: Vec<Vec<u8>> = (0..data.len())
            .step_by(3)
            .map(|n| data[..n].to_vec())
            .collect();
        for i in (0..data.len()).step_by(2) {
            for b in [b' ', b':', b'1', b'\n', b'['] {
                let mut d = data.clone();
                d[i] = b;
                damaged.push(d);
            }
        }
        for d in &damaged {
            if read_flat(d, &mut flat) {
                let what = format!("{name}, damaged");
                readers::read(d, &ReadOptions::default())
                    .unwrap_or_else(|e| panic!("{what}: read flat, but the map reader says {e}"));
                check(&what, &[(d, w(1)), (d, w(2))]);
            }
        }
    }
}
