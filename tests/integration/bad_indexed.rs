//! Malformed indexed and text inputs fail with the file and the byte offset (or line), never
//! a panic.

use pgo_merge::frontends::{self, profraw::NameCache};

use crate::common::*;

fn read(data: &[u8]) -> Result<(), pgo_merge::Error> {
    let cache = NameCache::new();
    frontends::read(data, &cache).map(|_| ())
}

#[test]
fn every_truncation_of_real_indexed_files_fails_with_an_offset() {
    let pd = root().join("testdata/profdata");
    for name in [
        "clang22-ir-llvm22.profdata",
        "clang22-cs-llvm22.profdata",
        "clang22-temporal-llvm22.profdata",
        "clang22-mcdc-llvm19.profdata",
        "clang14-ir-llvm14.profdata",
        "clang23-mcdc-llvm23.profdata",
        "clang22-ir-prev-llvm22.profdata",
    ] {
        let data = std::fs::read(pd.join(name)).unwrap();
        assert!(read(&data).is_ok(), "{name} itself must read");
        for n in 0..data.len() {
            let r = std::panic::catch_unwind(|| read(&data[..n]));
            let r = r.unwrap_or_else(|_| panic!("{name}: panic reading the first {n} bytes"));
            // Short prefixes that still start with printable bytes are not indexed files at all;
            // every error must carry an offset or a line.
            match r {
                Ok(()) => panic!(
                    "{name}: the first {n} of {} bytes read without error",
                    data.len()
                ),
                Err(e) => assert!(
                    e.offset().is_some() || e.line().is_some(),
                    "{name}: prefix {n}: error without location: {e}"
                ),
            }
        }
    }
}

fn patched(data: &[u8], at: usize, v: u64) -> Vec<u8> {
    let mut d = data.to_vec();
    d[at..at + 8].copy_from_slice(&v.to_le_bytes());
    d
}

#[test]
fn corrupt_indexed_fields_are_named() {
    let data = std::fs::read(root().join("testdata/profdata/clang22-ir-llvm22.profdata")).unwrap();
    let hash_offset = u64::from_le_bytes(data[32..40].try_into().unwrap()) as usize;
    let first_bucket = (0..)
        .map(|b| hash_offset + 16 + 8 * b)
        .find(|&at| u64::from_le_bytes(data[at..at + 8].try_into().unwrap()) != 0)
        .unwrap();
    let payload = 72 + 448; // header + summary of a v13 file
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "version 15",
            patched(&data, 8, 15 | (1 << 56)),
            "version 15",
        ),
        ("hash type", patched(&data, 24, 1), "hash type"),
        (
            "hash offset past end",
            patched(&data, 32, 1 << 40),
            "past the end",
        ),
        (
            "binary ID offset 0",
            patched(&data, 48, 0),
            "binary ID offset",
        ),
        (
            "bucket count not a power of two",
            patched(&data, hash_offset, 3),
            "power of two",
        ),
        (
            "huge bucket count",
            patched(&data, hash_offset, 1 << 60),
            "bucket offsets",
        ),
        (
            "huge entry count",
            patched(&data, hash_offset + 8, u64::MAX),
            "",
        ),
        (
            "bucket past the end",
            patched(&data, first_bucket, 1 << 40),
            "bucket",
        ),
        (
            "summary field count",
            patched(&data, 72, u64::MAX / 4),
            "summary",
        ),
        (
            "key length overflow",
            patched(&data, payload + 2 + 8, u64::MAX),
            "key",
        ),
        (
            "data length not a multiple of 8",
            patched(&data, payload + 2 + 16, 13),
            "multiple of 8",
        ),
        (
            "data length overflow",
            patched(&data, payload + 2 + 16, u64::MAX - 3),
            "data",
        ),
    ];
    for (what, bytes, needle) in cases {
        let r =
            std::panic::catch_unwind(|| read(&bytes)).unwrap_or_else(|_| panic!("{what}: panic"));
        match r {
            // The bucket array is only checked, not used, when walking: a bad bucket offset
            // is a warning there; everything else must fail.
            Ok(()) => assert!(what == "bucket past the end", "{what}: accepted"),
            Err(e) => {
                assert!(e.offset().is_some(), "{what}: no offset: {e}");
                assert!(e.to_string().contains(needle), "{what}: {e}");
            }
        }
    }
    // Through the CLI: file name, offset, exit 1, no output.
    let dir = tempdir();
    let bad = dir.path().join("bad.profdata");
    std::fs::write(&bad, patched(&data, 32, 1 << 40)).unwrap();
    let out = dir.path().join("out.profdata");
    let o = run_ours([bad.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&bad.display().to_string()) && err.contains("at offset 0x"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn bad_text_lines_are_named() {
    let cases: &[(&str, u64, &str)] = &[
        (":ir\n:bogus\n", 2, "header"),
        (":ir\nf\nnotanumber\n", 3, "function hash"),
        (":ir\nf\n1\n0\n", 4, "zero"),
        (":ir\nf\n1\n2\n5\n", 6, "counter"),
        (":ir\nf\n1\n1\nx\n", 5, "counter"),
        (":ir\nf\n1\n1\n5\n$1\n0x1ff\n", 7, "bitmap byte"),
        (":ir\nf\n1\n1\n5\n1\n7\n1\n", 7, "value kind"),
        (":ir\nf\n1\n1\n5\n1\n1\n1\n1\nnocolon\n", 10, "VALUE:COUNT"),
        (":ir\nf\n1\n1\n5\n4\n", 6, "value kinds"),
        (":temporal_prof_traces\nx\n", 2, "temporal"),
    ];
    for (text, line, needle) in cases {
        let e = read(text.as_bytes()).expect_err(text);
        assert_eq!(e.line(), Some(*line), "{text:?}: {e}");
        assert!(e.to_string().contains(needle), "{text:?}: {e}");
    }
    // Every line-prefix of a real text profile reads or fails with a line number, no panic.
    let real =
        std::fs::read_to_string(root().join("testdata/profdata/clang22-vtable-llvm22.proftext"))
            .unwrap();
    let lines: Vec<&str> = real.lines().collect();
    for n in 0..lines.len() {
        let t = lines[..n].join("\n");
        let r = std::panic::catch_unwind(|| read(t.as_bytes()))
            .unwrap_or_else(|_| panic!("panic at line prefix {n}"));
        if let Err(e) = r {
            assert!(
                e.line().is_some() || e.offset().is_some(),
                "prefix {n}: {e}"
            );
        }
    }
}
