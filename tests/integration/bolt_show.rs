//! `show` and `overlap` of BOLT profiles (fdata and YAML): the recorded profiles of
//! testdata/bolt/ shown as text and as JSON valid against the schemas, totals checked against
//! sums taken from the files independently, a profile's overlap with itself, small cases
//! computed by hand, option handling, and errors naming the file and line.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{assert_ok, root, run_ours, tempdir};

/// Every recorded BOLT profile, the Rust ones unpacked into `dir`.
fn recorded(dir: &Path) -> Vec<PathBuf> {
    let bolt = root().join("testdata/bolt");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&bolt)
        .expect("testdata/bolt")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "fdata" || e == "yaml"))
        .collect();
    v.sort();
    for n in 1..=3 {
        for ext in ["fdata", "yaml"] {
            let name = format!("rust{n}.{ext}");
            let gz = std::fs::read(bolt.join(format!("rust/{name}.gz"))).unwrap();
            let mut text = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut text)
                .unwrap();
            let p = dir.join(name);
            std::fs::write(&p, text).unwrap();
            v.push(p);
        }
    }
    v
}

/// A JSON-schema validator of `schemas/NAME`.
fn validator(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("schemas").join(name)).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).expect("schema compiles")
}

/// Asserts that `v` is valid against `validator`.
fn assert_valid(validator: &jsonschema::Validator, v: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(v)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:?}");
}

/// Runs ours with `args`; asserts success; its standard output.
fn ok(args: &[&std::ffi::OsStr], what: &str) -> String {
    let out = run_ours(args);
    assert_ok(&out, what);
    String::from_utf8(out.stdout).unwrap()
}

/// `show --json FILE`'s document.
fn show_json(file: &Path, extra: &[&str]) -> Value {
    let mut args: Vec<&std::ffi::OsStr> = vec!["show".as_ref(), "--json".as_ref()];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    args.push(file.as_os_str());
    serde_json::from_str(&ok(&args, "show --json")).expect("JSON")
}

/// The total count and the number of records of a profile, summed from its text without
/// our readers: fdata, the last field of every branch or sample line (memory events apart);
/// YAML, every `cnt:` value (successors and calls) of an LBR profile.
fn sums_by_hand(path: &Path) -> (u64, u64) {
    let text = std::fs::read_to_string(path).unwrap();
    if path.extension().is_some_and(|e| e == "fdata") {
        text.lines()
            .filter(|l| matches!(l.as_bytes().first(), Some(b'0'..=b'2')))
            .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
            .fold((0, 0), |(c, n), x| (c + x, n + 1))
    } else {
        let re = regex::Regex::new(r"cnt: *(\d+)").unwrap();
        re.captures_iter(&text)
            .map(|c| c[1].parse::<u64>().unwrap())
            .fold((0, 0), |(c, n), x| (c + x, n + 1))
    }
}

#[test]
fn recorded_profiles_show_as_text_and_schema_valid_json() {
    let dir = tempdir();
    let files = recorded(dir.path());
    assert!(files.len() >= 19, "{files:?}");
    let v = validator("show.schema.json");
    for f in &files {
        let text = ok(&["show".as_ref(), f.as_os_str()], "show");
        assert!(text.starts_with("BOLT profile: "), "{f:?}: {text}");
        assert!(text.contains("Hottest functions ("), "{f:?}: {text}");
        let doc = show_json(f, &[]);
        assert_valid(&v, &doc, &f.display().to_string());
        let t = &doc["totals"];
        let records = t["branches"].as_u64().unwrap()
            + t["calls"].as_u64().unwrap()
            + t["samples"].as_u64().unwrap();
        assert!(doc["records"].as_array().unwrap().len() <= 10, "{f:?}");
        // Totals agree with sums taken from the file's text (duplicate lines of a key are
        // one record, so records can only be fewer).
        if !doc["sampled"].as_bool().unwrap() || f.extension().is_some_and(|e| e == "fdata") {
            let (count, lines) = sums_by_hand(f);
            assert_eq!(t["count"].as_u64(), Some(count), "{f:?}");
            assert!(records <= lines && (records > 0) == (lines > 0), "{f:?}");
        }
        // The hottest record first, and the function counts add up to the total.
        let all = show_json(f, &["--all-functions"]);
        let fsum: u64 = all["functions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["count"].as_u64().unwrap())
            .sum();
        assert_eq!(Some(fsum), t["count"].as_u64(), "{f:?}");
        assert_eq!(all["records"].as_array().unwrap().len() as u64, records);
        let counts: Vec<u64> = all["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["count"].as_u64().unwrap())
            .collect();
        assert!(
            counts.windows(2).all(|w| w[0] >= w[1]),
            "{f:?}: not hottest first"
        );
    }
    // Several files, BOLT and LLVM together: an array valid against the schema.
    let llvm = root().join("testdata/profdata/clang14-ir-llvm14.proftext");
    let out = ok(
        &[
            "show".as_ref(),
            "--json".as_ref(),
            files[0].as_os_str(),
            llvm.as_os_str(),
            files[files.len() - 1].as_os_str(),
        ],
        "show --json, three files",
    );
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc.as_array().map(Vec::len), Some(3));
    assert_valid(&v, &doc, "three files");
    // Not vacuous: a BOLT document with a field missing fails.
    let mut bad = show_json(&files[0], &[]);
    bad.as_object_mut().unwrap().remove("totals");
    assert!(!v.is_valid(&bad));
}

#[test]
fn overlap_of_a_profile_with_itself_is_100_percent() {
    let dir = tempdir();
    let v = validator("bolt-overlap.schema.json");
    for f in recorded(dir.path()) {
        let text = ok(
            &["overlap".as_ref(), f.as_os_str(), f.as_os_str()],
            "overlap",
        );
        let (count, _) = sums_by_hand(&f);
        if count == 0 {
            // perf2bolt-19's YAML of a no_lbr profile has no blocks: nothing to compare.
            assert!(text.contains("counts for profile"), "{f:?}: {text}");
            continue;
        }
        assert!(
            text.contains("  Profile overlap: 100.000%\n"),
            "{f:?}: {text}"
        );
        let out = ok(
            &[
                "overlap".as_ref(),
                "--json".as_ref(),
                f.as_os_str(),
                f.as_os_str(),
            ],
            "overlap --json",
        );
        let doc: Value = serde_json::from_str(&out).unwrap();
        assert_valid(&v, &doc, &f.display().to_string());
        assert!(
            (doc["overlap"].as_f64().unwrap() - 1.0).abs() < 1e-9,
            "{f:?}"
        );
        assert_eq!(doc["records"]["base_only"], 0);
        assert_eq!(doc["records"]["test_only"], 0);
        // Functions of a zero count have an overlap of 0, as LLVM scores them.
        for g in doc["listed"].as_array().unwrap() {
            if g["base_count"] == 0 {
                assert_eq!(g["overlap"], 0.0, "{f:?}: {g}");
                continue;
            }
            assert!(
                (g["overlap"].as_f64().unwrap() - 1.0).abs() < 1e-9,
                "{f:?}: {g}"
            );
        }
    }
    let bad = serde_json::json!({"overlap": 2});
    assert!(!v.is_valid(&bad));
}

/// Base: B = 100, function f 40 (two branches), g 60 (one branch, one misprediction).
const BASE: &str = "1 f 0 1 f 10 0 30\n1 f 4 1 g 0 0 10\n1 g 8 1 g c 1 60\n";
/// Test: T = 100, f 20, g 60, h 20 (a function only here).
const TEST: &str = "1 g 8 1 g c 0 60\n1 h 0 1 h 4 0 20\n1 f 0 1 f 10 0 20\n";

#[test]
fn a_small_case_computed_by_hand() {
    let dir = tempdir();
    let base = dir.path().join("base.fdata");
    let test = dir.path().join("test.fdata");
    std::fs::write(&base, BASE).unwrap();
    std::fs::write(&test, TEST).unwrap();
    let shown = ok(&["show".as_ref(), base.as_os_str()], "show");
    let want = "\
BOLT profile: fdata, LBR
Functions: 2
Branches: 3
Total count: 100
Mispredictions: 1
Hottest functions (2 of 2):
           count    share  branches function
              60  60.000%         1 g
              40  40.000%         2 f
Hottest branches (3 of 3):
           count    share   mispreds from -> to
              60  60.000%          1 g+0x8 -> g+0xc
              30  30.000%          0 f+0x0 -> f+0x10
              10  10.000%          0 f+0x4 -> g+0x0
";
    assert_eq!(shown, want);
    // Overlap: min(.3, .2) for f+0x0 -> f+0x10, min(.6, .6) for g's branch: 80 %. f alone:
    // min(30/40, 20/20) = 75 %. |difference| 20 % for f and h, 0 for g (ties by name).
    let text = ok(
        &["overlap".as_ref(), base.as_os_str(), test.as_os_str()],
        "overlap",
    );
    let (b, t) = (base.display(), test.display());
    let want = format!(
        "\
BOLT profile overlap (fdata, LBR) of base_profile: {b} and test_profile: {t}
Program level:
  Profile overlap: 80.000%
  Branches: 2 in both, 1 only in base_profile, 1 only in test_profile
  Functions: 2 in both, 0 only in base_profile, 1 only in test_profile
  Share of the base count only in base_profile: 10.000%
  Share of the test count only in test_profile: 20.000%
  Base count sum: 100
  Test count sum: 100
Function level, largest difference in share of the total count first (3 of 3):
  f: overlap 75.000%, base 40.000% (count 40), test 20.000% (count 20), difference -20.000%
  h: overlap 0.000%, base 0.000% (count 0), test 20.000% (count 20), difference 20.000%
  g: overlap 100.000%, base 60.000% (count 60), test 60.000% (count 60), difference 0.000%
"
    );
    assert_eq!(text, want);
    // --function and --top-differences select; --value-cutoff on the test count.
    let only_g = ok(
        &[
            "overlap".as_ref(),
            "--function".as_ref(),
            "g".as_ref(),
            base.as_os_str(),
            test.as_os_str(),
        ],
        "overlap --function",
    );
    assert!(only_g.ends_with("(1 of 1):\n  g: overlap 100.000%, base 60.000% (count 60), test 60.000% (count 60), difference 0.000%\n"), "{only_g}");
    let top1 = ok(
        &[
            "overlap".as_ref(),
            "--top-differences".as_ref(),
            "1".as_ref(),
            base.as_os_str(),
            test.as_os_str(),
        ],
        "overlap --top-differences 1",
    );
    assert!(top1.contains("(1 of 3):\n  f: "), "{top1}");
    let cut = ok(
        &[
            "overlap".as_ref(),
            "--value-cutoff".as_ref(),
            "50".as_ref(),
            "--json".as_ref(),
            base.as_os_str(),
            test.as_os_str(),
        ],
        "overlap --value-cutoff",
    );
    let doc: Value = serde_json::from_str(&cut).unwrap();
    assert_eq!(doc["functions_selected"], 1);
    assert_eq!(doc["listed"][0]["name"], "g");
    assert!((doc["overlap"].as_f64().unwrap() - 0.8).abs() < 1e-12);
    assert!((doc["listed"][0]["overlap"].as_f64().unwrap() - 1.0).abs() < 1e-12);
}

#[test]
fn show_options_select_and_order_is_independent_of_line_order() {
    let dir = tempdir();
    let base = dir.path().join("base.fdata");
    std::fs::write(&base, BASE).unwrap();
    // The same lines in another order, one branch split over two lines: the same report.
    let other = dir.path().join("other.fdata");
    std::fs::write(
        &other,
        "1 g 8 1 g c 1 60\n1 f 4 1 g 0 0 10\n1 f 0 1 f 10 0 12\n\n1 f 00 1 f 010 0 18\n",
    )
    .unwrap();
    let a = ok(&["show".as_ref(), base.as_os_str()], "show");
    let b = ok(&["show".as_ref(), other.as_os_str()], "show");
    assert_eq!(a, b);
    let f = show_json(&base, &["--function", "^f$"]);
    assert_eq!(f["functions_selected"], 1);
    assert_eq!(f["records_selected"], 2);
    assert_eq!(f["totals"]["count"], 100, "totals stay the whole profile's");
    let top = show_json(&base, &["--topn", "1"]);
    assert_eq!(top["functions"].as_array().unwrap().len(), 1);
    assert_eq!(top["functions"][0]["name"], "g");
    assert_eq!(top["records"][0]["from"], "g+0x8");
    let cut = show_json(&base, &["--value-cutoff", "30"]);
    assert_eq!(cut["records_selected"], 2);
    // An option of LLVM profiles is refused, not ignored.
    let out = run_ours(["show".as_ref(), "--counts".as_ref(), base.as_os_str()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--counts applies to LLVM profiles"), "{err}");
}

#[test]
fn a_small_yaml_profile_by_hand() {
    let dir = tempdir();
    let p = dir.path().join("p.yaml");
    std::fs::write(
        &p,
        "---\nheader:\n  profile-version: 1\n  binary-name: 'x'\n  binary-build-id: ab\n  \
         profile-flags: [ lbr ]\n  profile-origin: test\n  profile-events: ''\n  \
         dfs-order: false\nfunctions:\n  - name: main\n    fid: 1\n    hash: 0x1\n    \
         exec: 3\n    nblocks: 2\n    blocks:\n      - bid: 0\n        insns: 1\n        \
         hash: 0x2\n        exec: 3\n        calls: [ { off: 0x4, fid: 2, cnt: 3 }, \
         { off: 0x8, fid: 9, cnt: 1 } ]\n        succ: [ { bid: 1, cnt: 2, mis: 1 } ]\n  \
         - name: callee\n    fid: 2\n    hash: 0x3\n    exec: 3\n    nblocks: 1\n...\n",
    )
    .unwrap();
    let shown = ok(&["show".as_ref(), p.as_os_str()], "show");
    let want = "\
BOLT profile: YAML, LBR
Binary: x (build id ab)
Functions: 2
Branches: 3 (1 successor edges, 2 calls)
Total count: 6
Mispredictions: 1
Hottest functions (2 of 2):
           count    share  branches           exec function
               6 100.000%         3              3 main
               0   0.000%         0              3 callee
Hottest branches (3 of 3):
           count    share   mispreds from -> to
               3  50.000%          0 main:bb0+0x4 -> callee (call)
               2  33.333%          1 main:bb0 -> main:bb1
               1  16.667%          0 main:bb0+0x8 -> <fid 9> (call)
";
    assert_eq!(shown, want);
    assert_valid(
        &validator("show.schema.json"),
        &show_json(&p, &[]),
        "small YAML",
    );
}

#[test]
fn bad_inputs_name_file_and_line() {
    let dir = tempdir();
    let good = dir.path().join("good.fdata");
    std::fs::write(&good, BASE).unwrap();
    let bad = dir.path().join("bad.fdata");
    std::fs::write(
        &bad,
        "1 f 0 1 f 10 0 30\n1 f 4 1 g 0 0 10\n1 g 8 1 g c 1 6x0\n",
    )
    .unwrap();
    let yaml = dir.path().join("bad.yaml");
    std::fs::write(
        &yaml,
        "---\nheader:\n  profile-version: 1\n  binary-name: 'x'\n  binary-build-id: ab\n  \
         profile-flags: [ lbr ]\n  profile-origin: test\n  profile-events: ''\n\
         functions:\n  - name: main\n    fid: 1\n    hash: 0x1\n    exec: x3\n    nblocks: 2\n",
    )
    .unwrap();
    let cases: [(&[&std::ffi::OsStr], &Path, &str); 4] = [
        (&["show".as_ref(), bad.as_os_str()], &bad, "line 3"),
        (
            &["show".as_ref(), "--json".as_ref(), yaml.as_os_str()],
            &yaml,
            "line 13",
        ),
        (
            &["overlap".as_ref(), good.as_os_str(), bad.as_os_str()],
            &bad,
            "line 3",
        ),
        (
            &["overlap".as_ref(), yaml.as_os_str(), yaml.as_os_str()],
            &yaml,
            "functions[0].exec",
        ),
    ];
    for (args, file, want) in cases {
        let out = run_ours(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&*file.display().to_string()) && err.contains(want),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: no half report");
    }
}

#[test]
fn overlap_refuses_to_mix_bolt_with_other_profiles() {
    let dir = tempdir();
    let fdata = dir.path().join("a.fdata");
    std::fs::write(&fdata, BASE).unwrap();
    let nolbr = dir.path().join("n.fdata");
    std::fs::write(&nolbr, "no_lbr cycles\n1 f 0 5\n").unwrap();
    let yaml = root().join("testdata/bolt/run1.yaml");
    let llvm = root().join("testdata/profdata/clang14-ir-llvm14.proftext");
    let cases: [(&Path, &Path, &str); 4] = [
        (&fdata, &llvm, "is a BOLT profile and"),
        (&llvm, &fdata, "is a BOLT profile and"),
        (
            &fdata,
            &yaml,
            "only profiles of one format and mode compare",
        ),
        (
            &fdata,
            &nolbr,
            "only profiles of one format and mode compare",
        ),
    ];
    for (b, t, want) in cases {
        let out = run_ours(["overlap".as_ref(), b.as_os_str(), t.as_os_str()]);
        assert_eq!(out.status.code(), Some(1), "{b:?} {t:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{b:?} {t:?}: {err}");
    }
    // --json applies to both families, each with its document; --cs to LLVM profiles only.
    let out = run_ours([
        "overlap".as_ref(),
        "--json".as_ref(),
        llvm.as_os_str(),
        llvm.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["kind"], "llvm-instrumentation", "{doc}");
    let out = run_ours([
        "overlap".as_ref(),
        "--cs".as_ref(),
        fdata.as_os_str(),
        fdata.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// Memory the system refuses (`prlimit --as`) while a large profile is read: an error naming
/// what the memory was for and how much, exit 1 — not an abort. The names of the profile are
/// long and not UTF-8 (each byte shown as a 3-byte replacement character), so that the text
/// of its records, three times the file, outgrows the room left above the mapped file long
/// before anything else grows.
#[test]
fn refused_memory_is_an_error_not_an_abort() {
    let Some(prlimit) = crate::common::tool("prlimit", "refused_memory_is_an_error_not_an_abort")
    else {
        return;
    };
    let dir = tempdir();
    let big = dir.path().join("big.fdata");
    let name = vec![0xffu8; 1000];
    let mut bytes = Vec::new();
    for i in 0..32_000u32 {
        bytes.extend_from_slice(b"1 ");
        bytes.extend_from_slice(&name);
        bytes.extend_from_slice(format!("{} {i:x} 1 ", i % 100).as_bytes());
        bytes.extend_from_slice(&name);
        bytes.extend_from_slice(b" 0 0 1\n");
    }
    std::fs::write(&big, &bytes).unwrap();
    let exe = std::path::Path::new(env!("CARGO_BIN_EXE_pgo-merge"));
    // The file mapped and 160 MiB more: the records' text needs about 190.
    let limit = bytes.len() as u64 + (160 << 20);
    for cmd in ["show", "overlap"] {
        let mut c = std::process::Command::new(&prlimit);
        c.arg(format!("--as={limit}")).arg(exe).arg(cmd).arg(&big);
        if cmd == "overlap" {
            c.arg(&big);
        }
        let out = c.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{cmd}: {:?} {err}", out.status);
        assert!(
            err.contains("cannot allocate") && err.contains("the records of a BOLT profile"),
            "{cmd}: {err}"
        );
    }
}
