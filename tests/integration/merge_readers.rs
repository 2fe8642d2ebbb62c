//! The merge's reader of indexed profiles (`profdata::scan`) against the records it builds
//! (`profdata::read`): the same records, names, warnings and errors, on every real file in
//! testdata/profdata and on damaged copies, and with the name cache warm (a second input of
//! the same program); and repeat text inputs of one program merged as llvm-profdata merges
//! them.

use pgo_merge::codec::value_prof_data::FlatValues;
use pgo_merge::frontends::profdata;
use pgo_merge::ir::{
    Counters, FunctionRecord, LayoutRecord, SymbolTable, ValueKind, ValueProfile, ValueSite,
};

use crate::common::*;

fn files(ext: &str) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(root().join("testdata/profdata"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    assert!(!v.is_empty());
    v
}

fn names(t: &SymbolTable) -> Vec<(u64, Vec<u8>)> {
    let mut v: Vec<_> = t.iter().map(|(h, n)| (h, n.to_vec())).collect();
    v.sort();
    v
}

/// The record a layout record of a scanned file stands for.
fn record_of<'a>(data: &'a [u8], r: &LayoutRecord, values: &FlatValues) -> FunctionRecord<'a> {
    let v = r.values.and_then(|b| {
        let mut out = ValueProfile::default();
        for kind in ValueKind::ALL {
            *out.kind_mut(kind) = (0..values.num_sites(b, kind))
                .map(|i| ValueSite {
                    values: values.site(b, kind, i).to_vec(),
                })
                .collect();
        }
        (!out.is_empty()).then(|| Box::new(out))
    });
    FunctionRecord {
        key: r.key,
        counters: Counters::Raw64 {
            bytes: &data[r.counters..r.counters + 8 * r.num_counters],
            endian: pgo_merge::bytes::Endian::Little,
        },
        bitmap: data[r.bitmap..r.bitmap + r.bitmap_len].to_vec().into(),
        values: v,
    }
}

/// `scan` (cold and warm cache) reads `data` as `read` does, or hands it back.
fn assert_scan_like_read(data: &[u8], what: &str, cache: &profdata::IndexedNameCache) {
    let full = profdata::read(data);
    let scanned = profdata::scan(data, cache);
    match (full, scanned) {
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}"),
        (Ok(_), Ok(None)) => {}
        (Ok(a), Ok(Some(b))) => {
            let warn =
                |w: &[pgo_merge::Warning]| w.iter().map(|w| w.to_string()).collect::<Vec<_>>();
            assert_eq!(warn(&a.warnings), warn(&b.warnings), "{what}: warnings");
            assert_eq!(a.version, b.version, "{what}");
            assert_eq!(a.profile.kind, b.profile.kind, "{what}");
            assert_eq!(names(&a.profile.names), names(&b.profile.names), "{what}");
            assert_eq!(
                names(&a.profile.vtable_names),
                names(&b.profile.vtable_names),
                "{what}"
            );
            assert_eq!(a.profile.binary_ids, b.profile.binary_ids, "{what}");
            assert_eq!(a.profile.temporal, b.profile.temporal, "{what}");
            assert_eq!(a.profile.layout, b.profile.layout, "{what}");
            assert_eq!(a.profile.records.len(), b.layout.records.len(), "{what}");
            for (x, r) in a.profile.records.iter().zip(&b.layout.records) {
                assert_eq!(*x, record_of(data, r, &b.values), "{what}: {:?}", r.key);
            }
        }
        (a, b) => panic!("{what}: read {:?}, scan {:?}", a.err(), b.err()),
    }
}

#[test]
fn indexed_scan_reads_every_real_file_as_the_full_reader() {
    for f in files("profdata") {
        let data = std::fs::read(&f).unwrap();
        let cache = profdata::IndexedNameCache::new();
        // Cold, then warm: the second read takes the names from the cache.
        assert_scan_like_read(&data, &f.display().to_string(), &cache);
        assert_scan_like_read(&data, &f.display().to_string(), &cache);
    }
}

#[test]
fn indexed_scan_fails_and_warns_as_the_full_reader_on_damaged_files() {
    let data = std::fs::read(root().join("testdata/profdata/clang22-ir-llvm22.profdata")).unwrap();
    let cache = profdata::IndexedNameCache::new();
    assert_scan_like_read(&data, "intact", &cache);
    for cut in (0..data.len()).step_by(7) {
        assert_scan_like_read(&data[..cut], &format!("cut at {cut}"), &cache);
    }
    for at in 0..data.len() {
        let mut d = data.clone();
        d[at] ^= 0x5a;
        assert_scan_like_read(&d, &format!("byte {at} changed"), &cache);
    }
}

#[test]
fn a_name_that_is_not_its_stored_hash_is_reported_with_the_cache_warm() {
    let data = std::fs::read(root().join("testdata/profdata/clang22-ir-llvm22.profdata")).unwrap();
    let cache = profdata::IndexedNameCache::new();
    let good = profdata::scan(&data, &cache).unwrap().unwrap();
    assert!(good.warnings.is_empty());
    // Change the last byte of the first name: its stored hash no longer matches.
    let (name, _) = good.profile.names.iter().next().unwrap();
    let name = good.profile.names.get(name).unwrap().to_vec();
    let at = data
        .windows(name.len())
        .position(|w| w == name.as_slice())
        .unwrap()
        + name.len()
        - 1;
    let mut bad = data.clone();
    bad[at] ^= 1;
    for _ in 0..2 {
        let s = profdata::scan(&bad, &cache).unwrap().unwrap();
        assert!(
            s.warnings
                .iter()
                .any(|w| w.to_string().contains("is not the MD5 hash of its name")),
            "{:?}",
            s.warnings
        );
    }
}

/// A text profile of functions `f` (`nf` counters, two indirect-call sites) and `g`, in the
/// order given.
fn text_profile(order: &[&str], nf: usize, base: u64) -> String {
    let mut s = String::from(":ir\n");
    for name in order {
        if *name == "f" {
            s += &format!("f\n11\n{nf}\n");
            for i in 0..nf as u64 {
                s += &format!("{}\n", base + i);
            }
            s += &format!("1\n0\n2\n2\ng:{base}\nh:3\n1\nh:{}\n", base + 1);
        } else {
            s += &format!("g\n22\n1\n{base}\n");
        }
    }
    s
}

/// Files of one program after the first take the merge's slot cache (the same keys in the
/// same order), others the look-ups: the output is llvm-profdata's either way, and a record
/// whose counter count changed under the same keys is still a conflict.
#[test]
fn repeat_inputs_of_one_program_merge_as_llvm_profdata_does() {
    let Some(llvm) = tool("llvm-profdata-22", "slot cache vs llvm-profdata-22") else {
        return;
    };
    let dir = tempdir();
    let write = |name: &str, text: String| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let a = write("a.proftext", text_profile(&["f", "g"], 2, 5));
    let b = write("b.proftext", text_profile(&["f", "g"], 2, 7));
    let c = write("c.proftext", text_profile(&["g", "f"], 2, 9));
    let conflict = write("d.proftext", text_profile(&["f", "g"], 3, 1));
    let inputs = [&a, &b, &b, &c, &a, &b, &c, &c, &a, &a];
    let ours = dir.path().join("ours.profdata");
    let theirs = dir.path().join("theirs.profdata");
    for threads in ["1", "2"] {
        let mut args: Vec<std::ffi::OsString> = vec!["-j".into(), threads.into(), "-o".into()];
        args.push(ours.clone().into());
        args.extend(inputs.iter().map(|p| p.as_os_str().to_owned()));
        assert_ok(&run_ours(&args), "pgo-merge of repeat text inputs");
        let mut l: Vec<&std::ffi::OsStr> =
            vec!["merge".as_ref(), "--num-threads=1".as_ref(), "-o".as_ref()];
        l.push(theirs.as_os_str());
        l.extend(inputs.iter().map(|p| p.as_os_str()));
        assert_ok(&run(&llvm, &l), "llvm-profdata merge");
        assert_eq!(
            std::fs::read(&ours).unwrap(),
            std::fs::read(&theirs).unwrap(),
            "-j {threads}"
        );
    }
    let out = run_ours([
        "-o".as_ref(),
        ours.as_os_str(),
        a.as_os_str(),
        b.as_os_str(),
        a.as_os_str(),
        conflict.as_os_str(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("number of counters differs"), "{err}");
    assert!(err.contains("d.proftext"), "{err}");
}
