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
