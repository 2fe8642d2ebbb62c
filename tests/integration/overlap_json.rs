//! `overlap --json` of LLVM instrumentation profiles and of sample profiles (`--sample`):
//! documents valid against schemas/overlap.schema.json, figures as the text report of the
//! same comparison prints them, `-o FILE` as standard output.

use std::ffi::OsStr;
use std::path::PathBuf;

use serde_json::Value;

use crate::common::*;
use crate::show_json::{assert_valid, stdout_of, validator};

/// `overlap ARGS` as text and `overlap --json ARGS` as a document valid against the schema.
fn text_and_json(v: &jsonschema::Validator, args: &[&OsStr]) -> (String, Value) {
    let mut text_args: Vec<&OsStr> = vec!["overlap".as_ref()];
    text_args.extend_from_slice(args);
    let text = stdout_of(&text_args, "overlap");
    let mut json_args = text_args.clone();
    json_args.insert(1, "--json".as_ref());
    let doc: Value = serde_json::from_str(&stdout_of(&json_args, "overlap --json")).unwrap();
    assert_valid(v, &doc, &format!("{args:?}"));
    (text, doc)
}

/// `x` (a fraction) as the text prints it: a percentage with `prec` decimals.
fn pct(x: &Value, prec: usize) -> String {
    format!("{:.prec$}%", x.as_f64().unwrap() * 100.0)
}

/// Asserts that `text` has the line `line`.
fn has_line(text: &str, line: &str) {
    assert!(text.lines().any(|l| l == line), "{line:?} not in\n{text}");
}

/// The program- or function-level lines of the text that the JSON figures give.
fn check_stats(text: &str, s: &Value, entry: &str) {
    has_line(
        text,
        &format!("  # of {entry} overlap: {}", s["entries"]["overlap"]),
    );
    let e = &s["edge"];
    has_line(
        text,
        &format!("  Edge profile overlap: {}", pct(&e["overlap"], 3)),
    );
    has_line(
        text,
        &format!("  Edge profile base count sum: {}", e["base_count"]),
    );
    has_line(
        text,
        &format!("  Edge profile test count sum: {}", e["test_count"]),
    );
    if s["entries"]["mismatched"].as_u64().unwrap() > 0 {
        has_line(
            text,
            &format!("  # of {entry} mismatch: {}", s["entries"]["mismatched"]),
        );
        let share = pct(&e["mismatched_share"], 3);
        has_line(
            text,
            &format!("  Mismatched count percentage (Edge): {share}"),
        );
    }
    for (key, name) in [
        ("indirect_call", "IndirectCall"),
        ("memop", "MemOP"),
        ("vtable", "VTable"),
    ] {
        let k = &s["values"][key];
        let line = format!("  {name} profile overlap: ");
        if k.is_null() {
            continue;
        }
        has_line(text, &format!("{line}{}", pct(&k["overlap"], 3)));
        has_line(
            text,
            &format!("  {name} profile base count sum: {}", k["base_count"]),
        );
    }
}

/// LLVM instrumentation profiles (indexed, raw, text; context-sensitive; with value
/// profiles; with mismatched and test-only functions): the document says what the text says.
#[test]
fn overlap_json_of_instrumentation_profiles() {
    let v = validator("overlap.schema.json");
    let pd = root().join("testdata/profdata");
    let cases: Vec<(Vec<PathBuf>, Vec<&str>)> = vec![
        (
            vec![
                pd.join("clang22-vtable-llvm22.profdata"),
                pd.join("clang22-ir-llvm22.profdata"),
            ],
            vec![],
        ),
        (
            vec![
                raw("clang22/vtable-run1.profraw"),
                raw("clang22/vtable-run2.profraw"),
            ],
            vec!["--value-cutoff", "1"],
        ),
        (
            vec![
                pd.join("clang22-cs-llvm22.profdata"),
                pd.join("clang22-cs-llvm19.proftext"),
            ],
            vec!["--cs", "--value-cutoff", "1"],
        ),
        (
            vec![
                pd.join("clang22-ir-llvm22.profdata"),
                pd.join("clang19-ir-llvm19.profdata"),
            ],
            vec!["--function", "main", "--top-differences", "3"],
        ),
        (
            vec![
                raw("clang22/ir-basic-run1.profraw"),
                pd.join("clang22-ir-llvm22.proftext"),
            ],
            vec!["--top-differences", "0"],
        ),
    ];
    for (files, opts) in &cases {
        let mut args: Vec<&OsStr> = opts.iter().map(OsStr::new).collect();
        args.extend(files.iter().map(|f| f.as_os_str()));
        let (text, doc) = text_and_json(&v, &args);
        assert_eq!(doc["kind"], "llvm-instrumentation");
        assert_eq!(doc["base"], files[0].display().to_string());
        assert_eq!(doc["context_sensitive"], opts.contains(&"--cs"));
        check_stats(&text, &doc["program"], "functions");
        let functions = doc["functions"].as_array().unwrap();
        assert_eq!(
            functions.len(),
            text.matches("Function level:").count(),
            "{text}"
        );
        for f in functions {
            let hash = u64::from_str_radix(&f["hash"].as_str().unwrap()[2..], 16).unwrap();
            has_line(
                &text,
                &format!("  Function: {} (Hash={hash})", f["name"].as_str().unwrap()),
            );
            check_stats(&text, f, "edge counters");
        }
        let diffs = doc["largest_differences"].as_array().unwrap();
        let listed = text
            .lines()
            .skip_while(|l| !l.starts_with("Largest differences"))
            .skip(1)
            .count();
        assert_eq!(diffs.len(), listed, "{text}");
        if let Some(d) = diffs.first() {
            has_line(
                &text,
                &format!(
                    "  {}: base {}, test {}, difference {}",
                    d["name"].as_str().unwrap(),
                    pct(&d["base_share"], 3),
                    pct(&d["test_share"], 3),
                    pct(&d["difference"], 3)
                ),
            );
        }
    }
    // The vtable case has every value kind, and mismatched and test-only functions.
    let (_, doc) = text_and_json(&v, &[cases[0].0[0].as_os_str(), cases[0].0[1].as_os_str()]);
    let p = &doc["program"];
    assert!(
        p["entries"]["mismatched"].as_u64().unwrap() > 0
            && p["entries"]["test_only"].as_u64().unwrap() > 0
    );
    assert!(p["values"]["indirect_call"].is_object() && p["values"]["vtable"].is_object());
}

/// A profile whose counts sum to zero: the text's one line, the document's
/// `zero_count_profile`, and no figures.
#[test]
fn overlap_json_of_a_profile_without_counts() {
    let v = validator("overlap.schema.json");
    let dir = tempdir();
    let zero = dir.path().join("zero.proftext");
    std::fs::write(
        &zero,
        ":ir\nf\n# Func Hash:\n1\n# Num Counters:\n2\n# Counter Values:\n0\n0\n",
    )
    .unwrap();
    let other = root().join("testdata/profdata/clang22-ir-llvm22.proftext");
    let (text, doc) = text_and_json(&v, &[zero.as_os_str(), other.as_os_str()]);
    assert!(
        text.starts_with(&format!(
            "Sum of edge counts for profile {} is 0.\n",
            zero.display()
        )),
        "{text}"
    );
    assert_eq!(doc["zero_count_profile"], "base");
    assert!(doc["program"].is_null());
}

/// Sample profiles (text, binary, extbinary; flat and context-sensitive): the document says
/// what `overlap --sample` prints.
#[test]
fn overlap_json_of_sample_profiles() {
    let v = validator("overlap.schema.json");
    let s = root().join("testdata/sample");
    let cases: Vec<(PathBuf, PathBuf, Vec<&str>)> = vec![
        (
            s.join("flat.prof.txt"),
            s.join("flat-second.prof.txt"),
            vec!["--value-cutoff", "1"],
        ),
        (
            s.join("llvm22/flat.extbinary.afdo"),
            s.join("llvm22/flat-second.binary.afdo"),
            vec![],
        ),
        (
            s.join("llvm22/cs.extbinary.afdo"),
            s.join("llvm22/cs.compress.afdo"),
            vec!["--similarity-cutoff", "999999"],
        ),
        (
            s.join("flat.prof.txt"),
            s.join("flat-second.prof.txt"),
            vec!["--function", "hash_step"],
        ),
    ];
    for (base, test, opts) in &cases {
        let mut args: Vec<&OsStr> = vec!["--sample".as_ref()];
        args.extend(opts.iter().map(OsStr::new));
        args.extend([base.as_os_str(), test.as_os_str()]);
        let (text, doc) = text_and_json(&v, &args);
        assert_eq!(doc["kind"], "llvm-sample");
        let p = &doc["program"];
        has_line(
            &text,
            &format!(
                "  Whole program profile similarity: {}",
                pct(&p["similarity"], 3)
            ),
        );
        has_line(
            &text,
            &format!(
                "  Whole program sample overlap: {}",
                pct(&p["sample_overlap"], 3)
            ),
        );
        has_line(
            &text,
            &format!("    total samples in base profile: {}", p["base_samples"]),
        );
        has_line(
            &text,
            &format!("    overlap functions: {}", p["overlap_functions"]),
        );
        has_line(
            &text,
            &format!("  Function overlap: {}", pct(&p["function_overlap"], 3)),
        );
        let h = &doc["hot_blocks"];
        has_line(
            &text,
            &format!("    hot blocks unique in base profile: {}", h["base_only"]),
        );
        let rows = doc["functions"].as_array().unwrap();
        let table = text
            .lines()
            .skip_while(|l| !l.starts_with("Base weight"))
            .skip(1)
            .count();
        assert_eq!(rows.len(), table, "{text}");
        for r in rows {
            let line = text
                .lines()
                .find(|l| l.ends_with(&format!(" {}", r["name"].as_str().unwrap())))
                .unwrap_or_else(|| panic!("{r} not in\n{text}"));
            assert!(line.starts_with(&pct(&r["base_weight"], 2)), "{line} / {r}");
            assert!(
                line.contains(&format!(" {} ", r["base_samples"])),
                "{line} / {r}"
            );
        }
    }
    // Profiles without samples: named, nothing compared.
    let dir = tempdir();
    let zero = dir.path().join("zero.prof.txt");
    std::fs::write(&zero, "f:0:0\n 1: 0\n").unwrap();
    let (text, doc) = text_and_json(
        &v,
        &["--sample".as_ref(), zero.as_os_str(), zero.as_os_str()],
    );
    assert_eq!(text.matches("is 0.").count(), 2, "{text}");
    assert_eq!(
        doc["zero_sample_profiles"],
        serde_json::json!(["base", "test"])
    );
    assert!(doc["program"].is_null() && doc["functions"].as_array().unwrap().is_empty());
}

/// `overlap --json -o FILE` writes the document standard output gets; the schema is not
/// vacuous: documents broken in their kind, a ratio or a count fail.
#[test]
fn overlap_json_to_a_file_and_broken_documents() {
    let v = validator("overlap.schema.json");
    let dir = tempdir();
    let pd = root().join("testdata/profdata");
    let s = root().join("testdata/sample");
    let pairs: [(&[&str], PathBuf, PathBuf); 2] = [
        (
            &[],
            pd.join("clang22-vtable-llvm22.profdata"),
            pd.join("clang22-ir-llvm22.profdata"),
        ),
        (
            &["--sample"],
            s.join("flat.prof.txt"),
            s.join("flat-second.prof.txt"),
        ),
    ];
    for (i, (opts, base, test)) in pairs.iter().enumerate() {
        let out = dir.path().join(format!("overlap{i}.json"));
        let mut args: Vec<&OsStr> = vec!["overlap".as_ref(), "--json".as_ref()];
        args.extend(opts.iter().map(OsStr::new));
        args.extend([base.as_os_str(), test.as_os_str()]);
        let stdout = stdout_of(&args, "overlap --json");
        args.extend(["-o".as_ref(), out.as_os_str()]);
        assert!(stdout_of(&args, "overlap --json -o").is_empty());
        assert_eq!(std::fs::read_to_string(&out).unwrap(), stdout);
        let doc: Value = serde_json::from_str(&stdout).unwrap();
        assert_valid(&v, &doc, &out.display().to_string());
        let program = &doc["program"];
        let ratio_key = if i == 0 {
            "/program/edge/overlap"
        } else {
            "/program/similarity"
        };
        let count_key = if i == 0 {
            "/program/edge/base_count"
        } else {
            "/program/base_samples"
        };
        assert!(program.is_object());
        for (pointer, bad) in [
            ("/kind", serde_json::json!("bolt-fdata")),
            (ratio_key, serde_json::json!("45.570%")),
            (ratio_key, serde_json::json!(-0.5)),
            (count_key, serde_json::json!(1.5)),
            (count_key, serde_json::json!(-1)),
        ] {
            let mut broken = doc.clone();
            *broken.pointer_mut(pointer).unwrap() = bad.clone();
            assert!(!v.is_valid(&broken), "{pointer} = {bad} still valid");
        }
    }
}
