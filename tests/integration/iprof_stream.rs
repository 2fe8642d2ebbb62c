//! The one-pass iprof reader: it gives what lowering the whole typed model gives, whatever the
//! order of the document's keys; lowering an input straight into a profile being merged
//! equals reading it alone and merging it; reading from a file (whose pages are released as
//! the parse moves on) equals reading the same bytes from memory; and the parallel merge
//! reports the first bad input in input order, for any thread count.

use pgo_merge::frontends::iprof::{self as reader, Lowerer, ReadOptions, lower, stream};
use pgo_merge::ir::iprof::{IprofProfile, Section};
use pgo_merge::passes::iprof_merge::{InputScale, merge_profiles};
use pgo_merge::passes::normalise::Ratio;
use pgo_merge::passes::{FailureMode, Weight};
use pgo_merge::pipeline::InputSpec;
use pgo_merge::pipeline::iprof::{IprofMergeOptions, merge_iprof_files};

use crate::common::tempdir;
use crate::iprof::{REAL_020, REAL_040, gzip, iprof_data, real_data};

/// The real files (each skipped, with a SKIPPED line naming `test`, when the shared folder
/// lacks it) and our small one.
fn real_files(test: &str) -> Vec<(&'static str, Vec<u8>)> {
    let mut v: Vec<(&'static str, Vec<u8>)> = [REAL_040, REAL_020]
        .into_iter()
        .filter_map(|name| real_data(name, test).map(|d| (name, d)))
        .collect();
    v.push((
        "small-v1.1.0.iprof",
        std::fs::read(iprof_data("small-v1.1.0.iprof")).unwrap(),
    ));
    v
}

fn option_sets() -> [ReadOptions; 3] {
    [
        ReadOptions::default(),
        ReadOptions {
            referenced_symbols_only: true,
            ..Default::default()
        },
        ReadOptions {
            lenient: true,
            referenced_symbols_only: true,
        },
    ]
}

/// Reads `data` both ways and checks that everything but the order of ids agrees.
fn assert_same_both_ways(name: &str, data: &[u8], o: ReadOptions) {
    let streamed = reader::read(data, o).unwrap_or_else(|e| panic!("{name}: {e}"));
    let doc = reader::parse_document(data).unwrap();
    let whole = lower::lower(doc, o).unwrap();
    assert_eq!(
        streamed.profile.by_names(),
        whole.profile.by_names(),
        "{name} {o:?}"
    );
    assert_eq!(streamed.warnings, whole.warnings, "{name} {o:?}");
    assert_eq!(
        (
            streamed.declared_types,
            streamed.declared_methods,
            streamed.entries,
            streamed.dropped
        ),
        (
            whole.declared_types,
            whole.declared_methods,
            whole.entries,
            whole.dropped
        ),
        "{name} {o:?}"
    );
    assert_eq!(
        streamed.entries,
        streamed.profile.entry_count() as u64,
        "{name}: entries counted while lowering"
    );
    assert_eq!(
        streamed.profile.symbols.method_count(),
        whole.profile.symbols.method_count(),
        "{name} {o:?}"
    );
}

#[test]
fn streaming_equals_lowering_the_whole_document() {
    for (name, data) in real_files("streaming_equals_lowering_the_whole_document") {
        for o in option_sets() {
            assert_same_both_ways(name, &data, o);
        }
    }
}

/// Re-serialises a document with its top-level keys in the given order (keys not listed keep
/// their place after the listed ones).
fn reorder(data: &[u8], first: &[&str]) -> Vec<u8> {
    let v: serde_json::Value = serde_json::from_slice(data).unwrap();
    let serde_json::Value::Object(map) = v else {
        panic!("not an object")
    };
    let mut out = String::from("{");
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort_by_key(|k| first.iter().position(|f| f == k).unwrap_or(usize::MAX));
    for (i, k) in keys.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(k).unwrap());
        out.push(':');
        out.push_str(&serde_json::to_string(&map[k]).unwrap());
    }
    out.push('}');
    out.into_bytes()
}

#[test]
fn key_order_does_not_matter() {
    for (name, data) in real_files("key_order_does_not_matter") {
        let reference = reader::read(&data, ReadOptions::default())
            .unwrap()
            .profile
            .by_names();
        let sections = [
            "callCountProfiles",
            "conditionalProfiles",
            "virtualInvokeProfiles",
            "monitorProfiles",
            "samplingProfiles",
            "instanceofProfiles",
            "hotnessPoints",
            "conditionalPoints",
            "invokePoints",
            "monitorsProfile",
        ];
        let mut orders: Vec<Vec<&str>> = vec![
            // Sections first, then methods before types, the version last.
            sections
                .iter()
                .copied()
                .chain(["methods", "types", "version"])
                .collect(),
            // Methods before types before the version, sections last.
            ["methods", "types", "version"].to_vec(),
            // The usual order.
            ["version", "types", "methods"].to_vec(),
        ];
        orders.push(["types", "methods"].to_vec());
        // The 4 MB file only in the most unusual order (debug builds are slow).
        if name == REAL_040 {
            orders.truncate(1);
        }
        for order in &orders {
            let re = reorder(&data, order);
            for o in option_sets() {
                assert_same_both_ways(name, &re, o);
            }
            let got = reader::read(&re, ReadOptions::default()).unwrap();
            assert_eq!(got.profile.by_names(), reference, "{name}: order {order:?}");
        }
    }
}

#[test]
fn lowering_into_a_target_equals_merging() {
    let Some(data) = real_data(REAL_040, "lowering_into_a_target_equals_merging") else {
        return;
    };
    let a = reader::read_profile(&data).unwrap();
    let small =
        reader::read_profile(&std::fs::read(iprof_data("small-v1.1.0.iprof")).unwrap()).unwrap();
    let mut sections = [Ratio::ONE; 6];
    sections[Section::Conditional as usize] = Ratio { num: 5, den: 3 };
    sections[Section::CallCount as usize] = Ratio { num: 7, den: 2 };
    let scales = [
        InputScale::default(),
        InputScale::weighted("3".parse::<Weight>().unwrap()),
        InputScale {
            sections,
            weight: "0.7".parse::<Weight>().unwrap(),
        },
    ];
    for base in [&a, &small, &IprofProfile::new()] {
        for scale in scales {
            let expected = merge_profiles(&[(base, InputScale::default()), (&a, scale)]);
            let f: Option<reader::CountScale> = (!scale.is_identity())
                .then(|| Box::new(move |s, c| scale.apply(s, c)) as reader::CountScale);
            let l = Lowerer::into_target((*base).clone(), ReadOptions::default(), f);
            let got = stream::lower_json(&data, l, None).unwrap();
            assert_eq!(got.profile.by_names(), expected.by_names(), "{scale:?}");
            assert_eq!(got.entries, a.entry_count() as u64);
        }
    }
}

#[test]
fn reading_a_file_equals_reading_its_bytes() {
    let d = tempdir();
    for (name, data) in real_files("reading_a_file_equals_reading_its_bytes") {
        let p = d.path().join(format!("{name}.plain.iprof"));
        std::fs::write(&p, &data).unwrap();
        // A gzip-compressed file is parsed from the decompressor, not from a whole copy.
        let gz = d.path().join(format!("{name}.iprof.gz"));
        std::fs::write(&gz, gzip(&data)).unwrap();
        for o in option_sets() {
            let from_bytes = reader::read(&data, o).unwrap();
            for file in [&p, &gz] {
                let from_file = reader::read_file(file, o).unwrap();
                assert_eq!(
                    from_file.profile.by_names(),
                    from_bytes.profile.by_names(),
                    "{}",
                    file.display()
                );
                assert_eq!(from_file.warnings, from_bytes.warnings, "{name}");
            }
        }
    }
}

/// Errors in a gzip-compressed file read from the decompressor say what the same error in
/// the plain file says (JSON path, line and column), or what is wrong with the gzip data.
#[test]
fn errors_in_gzip_compressed_files_are_located() {
    let Some(data) = real_data(REAL_040, "errors_in_gzip_compressed_files_are_located") else {
        return;
    };
    let d = tempdir();
    let text = String::from_utf8(data.clone()).unwrap();
    let k = text.rfind("\"ctx\":\"").unwrap() + 7;
    let bad_ctx = format!("{}x{}", &text[..k], &text[k..]).into_bytes();
    let mut bad_syntax = data.clone();
    let brace = bad_syntax.len() / 2;
    bad_syntax.insert(brace, b'}');
    for (what, bytes) in [
        ("bad ctx", bad_ctx),
        ("bad syntax", bad_syntax),
        ("truncated JSON", data[..data.len() / 3].to_vec()),
        ("empty", Vec::new()),
    ] {
        let plain = d.path().join("p.iprof");
        std::fs::write(&plain, &bytes).unwrap();
        let gz = d.path().join("p.iprof.gz");
        std::fs::write(&gz, gzip(&bytes)).unwrap();
        let o = ReadOptions::default();
        let e_plain = reader::read_file(&plain, o).unwrap_err();
        let e_gz = reader::read_file(&gz, o).unwrap_err();
        let plain_msg = e_plain
            .to_string()
            .replace(&*plain.to_string_lossy(), "FILE");
        let gz_msg = e_gz.to_string().replace(&*gz.to_string_lossy(), "FILE");
        assert_eq!(gz_msg, plain_msg, "{what}");
        assert_eq!(e_gz.path(), Some(gz.as_path()), "{what}");
    }
    // Bad gzip data: cut short, and a corrupted stream.
    let z = gzip(&data);
    let gz = d.path().join("cut.iprof.gz");
    std::fs::write(&gz, &z[..z.len() / 2]).unwrap();
    let e = reader::read_file(&gz, ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("gzip"), "{e}");
    let mut z2 = z.clone();
    for b in z2.iter_mut().skip(100).take(64) {
        *b ^= 0x5a;
    }
    std::fs::write(&gz, &z2).unwrap();
    let e = reader::read_file(&gz, ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("gzip"), "{e}");
}

#[test]
fn parallel_merge_reports_the_first_bad_input_in_order() {
    let Some(data) = real_data(
        REAL_040,
        "parallel_merge_reports_the_first_bad_input_in_order",
    ) else {
        return;
    };
    let d = tempdir();
    let good = d.path().join("good.iprof");
    std::fs::write(&good, &data).unwrap();
    // Two different faults: a bad context late in the file, and truncation.
    let text = String::from_utf8(data.clone()).unwrap();
    let k = text.rfind("\"ctx\":\"").unwrap() + 7;
    let bad1 = d.path().join("bad1.iprof");
    std::fs::write(&bad1, format!("{}x{}", &text[..k], &text[k..])).unwrap();
    let bad2 = d.path().join("bad2.iprof");
    std::fs::write(&bad2, &data[..data.len() / 2]).unwrap();
    let spec = |p: &std::path::Path| InputSpec::new(p.to_path_buf(), Weight::ONE);
    let inputs = vec![
        spec(&good),
        spec(&good),
        spec(&bad1),
        spec(&good),
        spec(&bad2),
        spec(&good),
    ];
    // Up to 4 workers share one partial profile; 5 and 6 use two.
    for threads in [1, 2, 3, 4, 5, 6] {
        let mut opts = IprofMergeOptions::default();
        opts.threads = threads;
        let e = merge_iprof_files(&inputs, &opts, None).unwrap_err();
        assert_eq!(e.path(), Some(bad1.as_path()), "threads {threads}: {e}");
        // Under --failure-mode=warn both are skipped, in input order, and the rest merged.
        let mut opts = IprofMergeOptions::default();
        opts.threads = threads;
        opts.failure_mode = FailureMode::Warn;
        let out = merge_iprof_files(&inputs, &opts, None).unwrap();
        let skipped: Vec<_> = out.skipped.iter().map(|(p, _)| p.clone()).collect();
        assert_eq!(
            skipped,
            vec![bad1.clone(), bad2.clone()],
            "threads {threads}"
        );
        assert_eq!(out.inputs_merged, 4);
        let only_good = merge_iprof_files(&vec![spec(&good); 4], &opts, None).unwrap();
        assert_eq!(out.profile.by_names(), only_good.profile.by_names());
    }
}

/// Workers share partial profiles (several workers lower into one, each locking it for a
/// batch of entries): whatever the number of workers, and so of shared profiles, the bytes
/// written are the same, and equal to merging the inputs one by one in memory.
#[test]
fn any_number_of_workers_writes_the_same_bytes() {
    use pgo_merge::backends::iprof as writer;
    let Some(data) = real_data(REAL_040, "any_number_of_workers_writes_the_same_bytes") else {
        return;
    };
    let original = crate::iprof::read_all(&data);
    let d = tempdir();
    let weights = ["1", "2", "0.5", "3", "1", "1.25", "1"];
    let mut inputs = Vec::new();
    let mut copies = Vec::new();
    for (i, w) in weights.iter().enumerate() {
        let copy = crate::iprof::shuffled(&original, 40 + i as u64);
        let path = d.path().join(format!("copy{i}.iprof"));
        std::fs::write(&path, writer::to_vec(&copy)).unwrap();
        inputs.push(InputSpec::new(path, w.parse().unwrap()));
        copies.push(copy);
    }
    let run = |threads: usize| {
        let mut opts = IprofMergeOptions::default();
        opts.threads = threads;
        let out = merge_iprof_files(&inputs, &opts, None).unwrap();
        assert_eq!(out.inputs_merged, weights.len(), "threads {threads}");
        writer::to_vec(&out.profile)
    };
    let one = run(1);
    for threads in [2, 3, 5, 7] {
        assert!(
            run(threads) == one,
            "threads {threads}: output differs from 1 thread"
        );
    }
    let refs: Vec<(&IprofProfile, InputScale)> = copies
        .iter()
        .zip(&inputs)
        .map(|(c, s)| (c, InputScale::weighted(s.weight)))
        .collect();
    let in_memory = pgo_merge::passes::normalise::canonicalize(&merge_profiles(&refs), false);
    assert!(
        writer::to_vec(&in_memory) == one,
        "differs from the in-memory merge"
    );
}
