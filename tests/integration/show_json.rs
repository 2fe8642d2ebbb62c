//! `show --json` output validates against schemas/show.schema.json.

use crate::common::*;

#[test]
fn show_json_validates_against_the_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/show.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let pd = root().join("testdata/profdata");
    let sets: Vec<Vec<std::path::PathBuf>> = vec![
        vec![raw("clang22/vtable-run1.profraw")],
        vec![raw("clang22/mcdc.profraw")],
        vec![raw("clang22/temporal-run1.profraw")],
        vec![pd.join("clang22-cs-llvm22.profdata")],
        vec![pd.join("clang22-ir-llvm22.proftext")],
        vec![
            raw("rustc/ir-run1.profraw"),
            pd.join("clang23-ir-llvm23.profdata"),
        ],
    ];
    for files in sets {
        let mut args: Vec<&std::ffi::OsStr> = vec!["show".as_ref(), "--json".as_ref()];
        args.extend(files.iter().map(|f| f.as_os_str()));
        let out = run_ours(&args);
        assert_ok(&out, "show --json");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
        let errors: Vec<String> = validator
            .iter_errors(&v)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{files:?}: {errors:?}");
    }
    // The schema is not vacuous: a broken document fails.
    let bad = serde_json::json!({"file": 1});
    assert!(!validator.is_valid(&bad));
}

/// A JSON-schema validator of `schemas/NAME`.
pub fn validator(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("schemas").join(name)).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).expect("schema compiles")
}

/// Asserts that `v` is valid against `validator`.
pub fn assert_valid(validator: &jsonschema::Validator, v: &serde_json::Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(v)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:?}\n{v:#}");
}

/// Runs ours with `args`; asserts success; its standard output.
pub fn stdout_of(args: &[&std::ffi::OsStr], what: &str) -> String {
    let out = run_ours(args);
    assert_ok(&out, what);
    String::from_utf8(out.stdout).unwrap()
}

/// `show FILE` as text and `show --json FILE` as a document valid against the schema.
fn text_and_json(v: &jsonschema::Validator, file: &std::path::Path) -> (String, serde_json::Value) {
    let text = stdout_of(&["show".as_ref(), file.as_os_str()], "show");
    let json = stdout_of(
        &["show".as_ref(), "--json".as_ref(), file.as_os_str()],
        "show --json",
    );
    let doc: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    assert_valid(v, &doc, &file.display().to_string());
    assert_eq!(doc["file"], file.display().to_string());
    (text, doc)
}

/// The number after `prefix` on the line of `text` that starts with it.
fn number_after(text: &str, prefix: &str) -> u64 {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no line {prefix:?} in\n{text}"));
    let digits: String = line
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap()
}

/// `show --json` of GraalVM profiles (plain and gzip'd): valid against the schema, with the
/// figures of the text report of the same file.
#[test]
fn show_json_of_iprof_files() {
    let v = validator("show.schema.json");
    let dir = tempdir();
    let small = root().join("testdata/iprof/small-v1.1.0.iprof");
    let gz = dir.path().join("small.iprof.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut enc, &std::fs::read(&small).unwrap()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let mut files = vec![small, gz];
    files.extend(
        ["krisfoster-binary-tree.default.iprof"]
            .iter()
            .filter_map(|n| external(&format!("iprof/{n}"), "show_json_of_iprof_files")),
    );
    for f in &files {
        let (text, doc) = text_and_json(&v, f);
        assert_eq!(doc["format"], "iprof");
        assert_eq!(doc["input"]["types"], number_after(&text, "types:"));
        assert_eq!(doc["input"]["methods"], number_after(&text, "methods:"));
        assert_eq!(
            doc["input"]["context_nodes"],
            number_after(&text, "context nodes:")
        );
        let sampled = doc["sampled_methods"].as_u64().unwrap();
        if sampled > 0 {
            assert_eq!(sampled, number_after(&text, "sampled methods:"));
            let first = &doc["sampled_methods_listed"][0];
            let row = format!(
                "  {:>10} {:>10}  {}",
                first["self_samples"].as_u64().unwrap(),
                first["total_samples"].as_u64().unwrap(),
                first["method"].as_str().unwrap()
            );
            assert!(text.contains(&row), "{row:?} not in\n{text}");
        }
        let c = &doc["canonical"];
        let line = format!(
            "  types {}, methods {}, context nodes {}, entries {}",
            c["summary"]["types"],
            c["summary"]["methods"],
            c["summary"]["context_nodes"],
            c["entries"]
        );
        assert!(text.contains(&line), "{line:?} not in\n{text}");
        let pct = doc["reduction"]["output_fraction"].as_f64().unwrap() * 100.0;
        assert!(
            text.contains(&format!("({pct:.1}% of the input)")),
            "{pct}\n{text}"
        );
    }
    // The small profile's sections, as the file has them.
    let (_, doc) = text_and_json(&v, &files[0]);
    let sections: Vec<&str> = doc["input"]["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(sections.contains(&"samplingProfiles"), "{sections:?}");
    assert_eq!(doc["input"]["version"], "1.1.0");
    // The reader's warnings: in the document with their JSON path, and on standard error
    // (the text report has no line for them; they were dropped before).
    let mut with_unknown: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    with_unknown["futureKey"] = serde_json::json!(1);
    let unknown = dir.path().join("unknown-key.iprof");
    std::fs::write(&unknown, with_unknown.to_string()).unwrap();
    let (_, doc) = text_and_json(&v, &unknown);
    assert_eq!(doc["warnings"][0]["json_path"], "futureKey", "{doc}");
    let out = run_ours(["show".as_ref(), unknown.as_os_str()]);
    assert_ok(&out, "show");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("futureKey: unknown key"), "{err}");
}

/// A recorded jitdump, perf map or map of ours gunzipped into `dir`.
fn gunzipped(dir: &std::path::Path, rel: &str, name: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, crate::jitdump::jit_gz(rel)).unwrap();
    p
}

/// `show --json` of the inputs of JIT symbolisation — recorded jitdumps and perf maps, a
/// .NET r2rmap (third-party, when present, and one written here), maps with bad lines —:
/// valid against the schema, with the figures of the text report.
#[test]
fn show_json_of_jitdumps_perf_maps_and_r2rmaps() {
    let v = validator("show.schema.json");
    let dir = tempdir();
    let d = dir.path();
    for (i, scenario) in [
        "cpython313",
        "node-work",
        "wasmtime-jitdump",
        "dotnet8-work",
    ]
    .iter()
    .enumerate()
    {
        let f = gunzipped(d, &format!("{scenario}/jit.dump"), &format!("jit-{i}.dump"));
        let (text, doc) = text_and_json(&v, &f);
        assert_eq!(doc["format"], "jitdump");
        assert_eq!(doc["functions"], number_after(&text, "functions:"));
        let loads = format!("distinct names in {} loads", doc["loads"]);
        assert!(text.contains(&loads), "{loads:?}\n{text}");
        assert_eq!(doc["file_size"], number_after(&text, "size:"));
        let first = &doc["records_by_type"][0];
        let row = format!(
            "  {:<22} {:>10}",
            first["type"].as_str().unwrap(),
            first["count"].as_u64().unwrap()
        );
        assert!(text.contains(&row), "{row:?}\n{text}");
    }
    for (i, scenario) in ["node-perfmap", "jvm21-lambdas", "dotnet8-work"]
        .iter()
        .enumerate()
    {
        let f = gunzipped(
            d,
            &format!("{scenario}/perf.map"),
            &format!("perf-{}.map", 100 + i),
        );
        let (text, doc) = text_and_json(&v, &f);
        assert_eq!(doc["format"], "perf-map");
        assert_eq!(doc["summary"]["entries"], number_after(&text, "perf map:"));
        let range = &doc["summary"]["address_range"];
        let line = format!(
            "address range: {}..{}",
            range["start"].as_str().unwrap(),
            range["end"].as_str().unwrap()
        );
        assert!(text.contains(&line), "{line:?}\n{text}");
    }
    // Maps with a bad line: the warning with its line number, in the document too.
    let map = d.join("perf-7.map");
    std::fs::write(&map, "1000 10 a\nnot a map line\n1010 0 b\n").unwrap();
    let (text, doc) = text_and_json(&v, &map);
    assert_eq!(doc["lines_skipped"], 1);
    assert_eq!(doc["warnings"][0]["line"], 2);
    assert_eq!(doc["summary"]["zero_size"], 1);
    assert!(text.contains("warnings: 1"), "{text}");
    let r2r = d.join("x.ni.r2rmap");
    std::fs::write(
        &r2r,
        "FFFFFFFF 00 734D59D6DE0E96AA3C77B3E2ED498097\nFFFFFFFE 00 1\nFFFFFFFD 00 2\n\
         FFFFFFFC 00 3\nFFFFFFFB 00 1\n000115D0 0D A::.ctor()\n000115E0 3F B::M()\n",
    )
    .unwrap();
    let mut r2rmaps = vec![r2r];
    r2rmaps.extend(external(
        "perfmap/System.ComponentModel.EventBasedAsync.ni.r2rmap",
        "show_json_of_jitdumps_perf_maps_and_r2rmaps",
    ));
    for f in &r2rmaps {
        let (text, doc) = text_and_json(&v, f);
        assert_eq!(doc["format"], "r2rmap");
        assert_eq!(
            doc["summary"]["entries"],
            number_after(&text, "method entries:")
        );
        let sig = format!("signature: {}", doc["signature"].as_str().unwrap());
        assert!(text.contains(&sig), "{sig:?}\n{text}");
        assert_eq!(doc["arch"]["name"], "X64");
    }
    // Several files of several kinds: an array, each element valid.
    let all = [
        &map,
        &r2rmaps[0],
        &root().join("testdata/iprof/small-v1.1.0.iprof"),
    ];
    let mut args: Vec<&std::ffi::OsStr> = vec!["show".as_ref(), "--json".as_ref()];
    args.extend(all.iter().map(|p| p.as_os_str()));
    let doc: serde_json::Value = serde_json::from_str(&stdout_of(&args, "show --json")).unwrap();
    assert_valid(&v, &doc, "several files");
    let formats: Vec<&str> = doc
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats, ["perf-map", "r2rmap", "iprof"]);
}

/// The new kinds of document are not vacuous: a document that breaks each fails.
#[test]
fn show_schema_rejects_broken_documents() {
    let v = validator("show.schema.json");
    let dir = tempdir();
    let map = dir.path().join("perf-9.map");
    std::fs::write(&map, "1000 10 a\n").unwrap();
    let iprof = root().join("testdata/iprof/small-v1.1.0.iprof");
    let jit = gunzipped(dir.path(), "cpython313/jit.dump", "jit-9.dump");
    for f in [&map, &iprof, &jit] {
        let (_, doc) = text_and_json(&v, f);
        let breakers: [(&str, serde_json::Value); 3] = [
            ("format", serde_json::json!("profile")),
            ("warnings", serde_json::json!([{"message": 1}])),
            ("file", serde_json::json!(null)),
        ];
        for (key, bad) in breakers {
            let mut broken = doc.clone();
            broken[key] = bad;
            assert!(
                !v.is_valid(&broken),
                "{}: {key} broken still valid",
                f.display()
            );
        }
        let mut missing = doc.clone();
        missing.as_object_mut().unwrap().remove("warnings");
        assert!(
            !v.is_valid(&missing),
            "{}: no warnings still valid",
            f.display()
        );
    }
}

/// `show --sample --json` (llvm-profdata's JSON of a sample profile, flat and
/// context-sensitive, with discriminators, inlined callees and call targets) is valid against
/// the schema's `sample_functions`, and a broken function fails.
#[test]
fn show_sample_json_validates_against_the_schema() {
    let v = validator("show.schema.json");
    let s = root().join("testdata/sample");
    let mut files: Vec<std::path::PathBuf> = files_with_extension(&s, "txt");
    files.extend(files_with_extension(&s.join("llvm22"), "afdo"));
    files.extend(files_with_extension(&s.join("gcov"), "afdo"));
    let mut functions = 0;
    let mut shown = 0;
    for f in &files {
        let out = run_ours([
            "show".as_ref(),
            "--sample".as_ref(),
            "--json".as_ref(),
            f.as_os_str(),
        ]);
        if !out.status.success() {
            // Profiles llvm-profdata refuses to show (e.g. some sizes of partial profiles).
            continue;
        }
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
        assert_valid(&v, &doc, &f.display().to_string());
        shown += 1;
        functions += doc.as_array().map_or(0, Vec::len);
        if let Some(first) = doc.get(0) {
            let mut broken = serde_json::Value::Array(vec![first.clone()]);
            broken[0]["total"] = serde_json::json!("many");
            assert!(!v.is_valid(&broken), "{}", f.display());
        }
    }
    assert!(
        shown > 40 && functions > 100,
        "{shown} files, {functions} functions"
    );
}
