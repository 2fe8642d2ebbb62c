//! The raw-layout fast path (later raw files of a binary already seen are checked byte for
//! byte against the first and merged where their counters lie) gives exactly what the full
//! reader gives: the same output bytes, the same warnings, the same errors — for real files,
//! for every single-byte corruption and truncation of a later input, and for a later input
//! written at another load address.

use std::path::{Path, PathBuf};

use pgo_merge::frontends::profraw::NameCache;
use pgo_merge::frontends::profraw::layout::RawLayout;
use pgo_merge::passes::{FailureMode, MergeOptions};

use pgo_merge::pipeline::{InputSpec, ReadOptions, merge_files_with};

use crate::common::*;

/// Output bytes and messages of a merge, or its error.
type Outcome = Result<(Vec<u8>, Vec<String>), String>;

fn merge(inputs: &[InputSpec], fast: bool, threads: usize, mode: FailureMode) -> Outcome {
    // One input per window: a layout is learned from the first input and used from the
    // second on (with larger windows, the inputs read alongside the first take the full
    // reader).
    let mut opts = MergeOptions::default();
    opts.threads = threads;
    opts.failure_mode = mode;
    let mut read = ReadOptions::default();
    read.raw_layouts = fast;
    read.window = 1;
    let m = merge_files_with(inputs, &opts, &read, None).map_err(|e| e.to_string())?;
    let mut msgs: Vec<String> = m.warnings.iter().map(|w| w.to_string()).collect();
    msgs.extend(
        m.skipped
            .iter()
            .map(|(p, e)| format!("{}: {e}", p.display())),
    );
    msgs.push(format!("merged {}", m.inputs_merged));
    let bytes = pgo_merge::backends::profdata::write(&m.profile, &Default::default())
        .map_err(|e| e.to_string())?
        .0;
    Ok((bytes, msgs))
}

fn spec(path: &Path, w: &str) -> InputSpec {
    InputSpec::new(path.to_path_buf(), w.parse().expect("weight"))
}

fn same(what: &str, inputs: &[InputSpec], threads: usize, mode: FailureMode) {
    let slow = merge(inputs, false, threads, mode);
    let fast = merge(inputs, true, threads, mode);
    assert!(
        slow == fast,
        "{what}: fast path differs from the full reader\nfull: {:?}\nfast: {:?}",
        slow.as_ref().map(|x| &x.1),
        fast.as_ref().map(|x| &x.1)
    );
}

#[test]
fn same_output_on_real_files() {
    for producer in [
        "clang13", "clang14", "clang18", "clang19", "clang22", "clang23", "rustc",
    ] {
        let files = raws_of(producer);
        for f in &files {
            // The same file many times, with weights: every later copy takes the fast path.
            let inputs: Vec<InputSpec> = ["1", "2", "1", "0.5", "1", "3"]
                .iter()
                .map(|w| spec(f, w))
                .collect();
            for threads in [1, 3] {
                for mode in [FailureMode::Any, FailureMode::Warn] {
                    same(&format!("{}", f.display()), &inputs, threads, mode);
                }
            }
        }
        // All files of the producer, twice over: several layouts, kind conflicts skipped.
        let mut inputs: Vec<InputSpec> = files.iter().map(|f| spec(f, "1")).collect();
        inputs.extend(files.iter().rev().map(|f| spec(f, "2")));
        same(producer, &inputs, 2, FailureMode::Warn);
    }
}

/// Real files with value profiles, of the raw versions and widths the fast path takes.
fn mutation_sources() -> Vec<PathBuf> {
    [
        "clang22/ir-basic-run1.profraw",
        "clang23/ir-basic-m32-run2.profraw",
    ]
    .iter()
    .map(|r| raw(r))
    .filter(|p| p.exists())
    .collect()
}

#[test]
fn corrupted_and_truncated_later_inputs_give_the_same_result() {
    let dir = tempdir();
    let bad = dir.path().join("bad.profraw");
    for good in mutation_sources() {
        let bytes = std::fs::read(&good).expect("read");
        let inputs = [spec(&good, "1"), spec(&bad, "1"), spec(&good, "2")];
        let mut variants: Vec<Vec<u8>> = Vec::new();
        for k in 0..bytes.len() {
            let mut b = bytes.clone();
            b[k] ^= if k % 2 == 0 { 0xa5 } else { 0x01 };
            variants.push(b);
        }
        for n in 0..bytes.len() {
            variants.push(bytes[..n].to_vec());
        }
        // Trailing bytes after the profile.
        let mut longer = bytes.clone();
        longer.extend_from_slice(&[0; 16]);
        variants.push(longer.clone());
        longer.push(7);
        variants.push(longer);
        for (i, v) in variants.iter().enumerate() {
            std::fs::write(&bad, v).expect("write");
            for mode in [FailureMode::Any, FailureMode::Warn] {
                same(&format!("{} variant {i}", good.display()), &inputs, 1, mode);
            }
        }
    }
}

fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn add64(b: &mut [u8], at: usize, d: u64) {
    let v = le64(b, at).wrapping_add(d);
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn pad8(n: usize) -> usize {
    (8 - n % 8) % 8
}

/// The file as the same binary loaded `delta` bytes higher would write it: every
/// FunctionPointer and every indirect-call target moved (raw v10, 64-bit little-endian).
fn relocate_v10(b: &[u8], delta: u64) -> Vec<u8> {
    let mut out = b.to_vec();
    let w = |i: usize| le64(b, 8 * i) as usize;
    assert_eq!(w(1) & 0xffff_ffff, 10, "a raw v10 file");
    let data = 128 + w(2);
    let nd = w(3);
    let mut value_records = Vec::new();
    for i in 0..nd {
        let r = data + 64 * i;
        if le64(b, r + 32) != 0 {
            add64(&mut out, r + 32, delta);
        }
        let sites = [0, 2, 4].map(|k| u16::from_le_bytes([b[r + 52 + k], b[r + 53 + k]]));
        if sites.iter().any(|&s| s != 0) {
            value_records.push(i);
        }
    }
    let mut pos = data + 64 * nd + w(4) + 8 * w(5) + w(6) + w(7) + w(8);
    pos += w(9) + pad8(w(9));
    pos += 24 * w(13) + pad8(24 * w(13));
    pos += w(14) + pad8(w(14));
    for _ in value_records {
        let total = le32(b, pos) as usize;
        let kinds = le32(b, pos + 4);
        let mut p = pos + 8;
        for _ in 0..kinds {
            let kind = le32(b, p);
            let nsites = le32(b, p + 4) as usize;
            let counts: Vec<usize> = b[p + 8..p + 8 + nsites]
                .iter()
                .map(|&c| c as usize)
                .collect();
            p += 8 + nsites + pad8(8 + nsites);
            for _ in 0..counts.iter().sum::<usize>() {
                if kind == 0 {
                    add64(&mut out, p, delta);
                }
                p += 16;
            }
        }
        pos += total;
    }
    out
}

#[test]
fn another_load_address_translates_the_same_targets() {
    let good = raw("clang22/ir-basic-run1.profraw");
    let bytes = std::fs::read(&good).expect("read");
    let dir = tempdir();
    let moved = dir.path().join("moved.profraw");
    for delta in [0x1000u64, 0x7f00_0000_0000, 0u64.wrapping_sub(0x2000)] {
        std::fs::write(&moved, relocate_v10(&bytes, delta)).expect("write");
        let twice = [spec(&good, "1"), spec(&good, "2")];
        let shifted = [spec(&good, "1"), spec(&moved, "2")];
        for fast in [false, true] {
            let a = merge(&twice, fast, 1, FailureMode::Any).expect("merge");
            let b = merge(&shifted, fast, 1, FailureMode::Any).expect("merge");
            assert!(
                a == b,
                "delta {delta:#x}, fast {fast}: targets translated differently"
            );
        }
    }
}

/// The layout learned from `first` (read by the full reader, as the merge does).
fn layout_of(first: &[u8]) -> RawLayout {
    let cache = NameCache::new();
    let r = pgo_merge::frontends::read(first, &cache).expect("read");
    assert!(r.warnings.is_empty(), "a file that may teach a layout");
    RawLayout::learn(first, r.profile.kind, r.profile.names.clone()).expect("a layout")
}

/// Offset of BitmapDelta in a raw v9/v10 header.
const BITMAP_DELTA_AT: usize = 88;

/// Two runs of one position-independent executable without MC/DC bitmaps have different
/// BitmapDelta words (the distance from the data records to a bitmap section that does not
/// exist, which moves with the load address): the later run is still read through the first
/// one's layout, and merges as the full reader merges it.
#[test]
fn later_runs_of_a_pie_without_bitmaps_take_the_layout() {
    let pairs = [
        (
            "clang22/ir-basic-run1.profraw",
            "clang22/ir-basic-run2.profraw",
        ),
        (
            "clang22/ir-basic-m32-run1.profraw",
            "clang22/ir-basic-m32-run2.profraw",
        ),
        (
            "rustc-nightly/ir-run1.profraw",
            "rustc-nightly/ir-run2.profraw",
        ),
    ];
    let mut differing = 0;
    for (a, b) in pairs {
        let (pa, pb) = (raw(a), raw(b));
        if !pa.exists() || !pb.exists() {
            eprintln!("SKIPPED: {a} or {b} is not in testdata");
            continue;
        }
        let (one, two) = (
            std::fs::read(&pa).expect("read"),
            std::fs::read(&pb).expect("read"),
        );
        if one[BITMAP_DELTA_AT..BITMAP_DELTA_AT + 8] != two[BITMAP_DELTA_AT..BITMAP_DELTA_AT + 8] {
            differing += 1;
        }
        let layout = layout_of(&one);
        assert!(
            layout.header_matches(&two),
            "{b}: header not matched by {a}'s layout"
        );
        assert!(
            layout.scan(&two).is_some(),
            "{b}: not read through {a}'s layout"
        );
        same(
            b,
            &[spec(&pa, "1"), spec(&pb, "2"), spec(&pb, "1")],
            1,
            FailureMode::Any,
        );
    }
    assert!(
        differing > 0,
        "no pair of runs with different BitmapDelta words in testdata"
    );
}

/// When records do have bitmap bytes, BitmapDelta locates them: a file whose BitmapDelta
/// differs is not the same layout (the full reader decides what it is).
#[test]
fn bitmap_delta_is_compared_when_there_are_bitmaps() {
    let p = raw("clang22/mcdc.profraw");
    let bytes = std::fs::read(&p).expect("read");
    let layout = layout_of(&bytes);
    assert!(
        layout.scan(&bytes).is_some(),
        "the file itself is of its layout"
    );
    let mut moved = bytes.clone();
    add64(&mut moved, BITMAP_DELTA_AT, 8);
    assert!(!layout.header_matches(&moved) && layout.scan(&moved).is_none());
    let dir = tempdir();
    let other = dir.path().join("moved.profraw");
    std::fs::write(&other, &moved).expect("write");
    for mode in [FailureMode::Any, FailureMode::Warn] {
        same(
            "mcdc, BitmapDelta moved",
            &[spec(&p, "1"), spec(&other, "1")],
            1,
            mode,
        );
    }
}
