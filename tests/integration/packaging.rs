//! The published package: `cargo package` has nothing to warn about, the licence files the
//! manifest declares are in it, and so is what the README's two commands need (the demo's
//! raw profiles, the test suite and its data), but not the fuzzing harness or the
//! benchmark generator, which are crates of their own.

use crate::common::root;

#[test]
fn the_package_is_complete_and_cargo_has_nothing_to_warn_about() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "package",
            "--list",
            "--locked",
            "--allow-dirty",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .expect("run cargo package");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("warning"), "cargo package warns:\n{err}");
    let list = String::from_utf8_lossy(&out.stdout);
    let files: Vec<&str> = list.lines().collect();
    for needed in [
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "README.md",
        "Cargo.lock",
        "testdata/profraw/clang22/ir-basic-run1.profraw",
        "tests/integration/main.rs",
    ] {
        assert!(files.contains(&needed), "{needed} is not packaged");
    }
    for left_out in ["fuzz/", "benches/gen-profraw/"] {
        assert!(
            !files.iter().any(|f| f.starts_with(left_out)),
            "{left_out} is packaged"
        );
    }
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let description = manifest
        .lines()
        .find(|l| l.starts_with("description = "))
        .unwrap();
    for family in ["LLVM", "BOLT", "GraalVM", "JIT"] {
        assert!(description.contains(family), "{description}");
    }
}
