//! The published package: `cargo package` has nothing to warn about, the licence files the
//! manifest declares are in it, and so are the sources and what the README's demo merges; the
//! test data, CI scripts and fuzzing harness the test suite needs (it runs in a checkout) are
//! not.

use crate::common::root;

#[test]
fn the_package_is_complete_and_cargo_has_nothing_to_warn_about() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target = crate::common::tempdir();
    let package = |args: &[&str]| {
        let out = std::process::Command::new(&cargo)
            .arg("package")
            .args(args)
            .args(["--locked", "--allow-dirty", "--offline", "--target-dir"])
            .arg(target.path())
            .current_dir(root())
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run cargo package");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{args:?}: {err}");
        assert!(
            !err.contains("warning"),
            "cargo package {args:?} warns:\n{err}"
        );
        out
    };
    // Packing (`cargo package` without its build) is where cargo warns about targets whose
    // files are not packaged.
    package(&["--no-verify"]);
    let out = package(&["--list"]);
    let list = String::from_utf8_lossy(&out.stdout);
    let files: Vec<&str> = list.lines().collect();
    for needed in [
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "README.md",
        "Cargo.lock",
        "testdata/profraw/clang22/ir-basic-run1.profraw",
        "testdata/profraw/clang22/ir-basic-run2.profraw",
        "src/main.rs",
        "docs/usage.md",
        "schemas/show.schema.json",
    ] {
        assert!(files.contains(&needed), "{needed} is not packaged");
    }
    for left_out in [
        "fuzz/",
        "benches/gen-profraw/",
        "testdata/profdata/",
        "testdata/jit/",
        ".ci/",
    ] {
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

/// The benchmarks' raw-profile generator is a crate of its own: building it takes the
/// library without its default features and none of the main crate's dev-dependencies
/// (criterion, proptest, jsonschema...), so a benchmark run does not rebuild them.
#[test]
fn the_benchmark_generator_builds_without_the_dev_dependencies() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = root().join("benches/gen-profraw/Cargo.toml");
    let out = std::process::Command::new(&cargo)
        .args([
            "tree",
            "--locked",
            "--offline",
            "--prefix",
            "none",
            "-e",
            "normal,build",
        ])
        .arg("--manifest-path")
        .arg(&manifest)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run cargo tree");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let tree = String::from_utf8_lossy(&out.stdout);
    for dev_only in ["criterion", "proptest", "jsonschema", "clap ", "rayon "] {
        assert!(
            !tree.lines().any(|l| l.starts_with(dev_only)),
            "the generator builds {dev_only}:\n{tree}"
        );
    }
    assert!(tree.lines().any(|l| l.starts_with("pgo-merge ")), "{tree}");
}

/// The packages of a library build with `features` on top of no default features (itself
/// included), by name, from `cargo tree -e normal` (build-dependencies and dev-dependencies
/// are not part of the library).
fn library_packages(features: &[&str]) -> std::collections::BTreeSet<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = std::process::Command::new(&cargo);
    cmd.args(["tree", "--offline", "--locked", "--no-default-features"])
        .args(["-e", "normal", "--prefix", "none"]);
    if !features.is_empty() {
        cmd.args(["--features", &features.join(",")]);
    }
    let out = cmd
        .current_dir(root())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// Reading, merging and writing LLVM instrumentation profiles (the library without default
/// features) needs a handful of packages: no thread pool, command line, pattern matching,
/// JSON or proc-macro stack, and nothing beyond the list below (docs/architecture.md,
/// "Cargo features", says what each is for).
#[test]
fn the_core_library_needs_few_packages() {
    let core = library_packages(&[]);
    let allowed = [
        "pgo-merge",
        "flate2",
        "crc32fast",
        "cfg-if",
        "libz-sys",
        "libc",
        "memchr",
        "memmap2",
        "md5",
        "hashbrown",
        "rustc-hash",
        "self_cell",
    ];
    let extra: Vec<&String> = core
        .iter()
        .filter(|p| !allowed.contains(&p.as_str()))
        .collect();
    assert!(
        extra.is_empty(),
        "the core library needs more packages: {extra:?}"
    );
    for absent in [
        "rayon",
        "clap",
        "regex",
        "serde",
        "serde_json",
        "syn",
        "tempfile",
    ] {
        assert!(!core.contains(absent), "{absent} in the core library");
    }
}

/// Each feature brings what its comment in Cargo.toml says, and the rest stays out: the
/// format families do not pull in the command line, and `parallel` only rayon's packages.
#[test]
fn each_feature_brings_only_its_own_packages() {
    let core = library_packages(&[]);
    for (feature, brings, absent) in [
        ("parallel", &["rayon"][..], &["clap", "regex", "serde"][..]),
        ("json", &["serde_json"], &["clap", "regex", "rayon"]),
        ("regex", &["regex"], &["clap", "serde", "rayon"]),
        ("sample", &["stacker", "xxhash-rust"], &["clap", "rayon"]),
        (
            "iprof",
            &["serde_path_to_error"],
            &["clap", "regex", "rayon"],
        ),
        ("bolt", &["saphyr-parser"], &["clap", "regex", "rayon"]),
        (
            "correlate",
            &["object", "gimli"],
            &["clap", "regex", "rayon", "serde"],
        ),
        ("cli", &["clap", "object", "gimli"], &[]),
    ] {
        let with = library_packages(&[feature]);
        assert!(
            with.is_superset(&core),
            "{feature}: the core's packages are kept"
        );
        for p in brings {
            assert!(with.contains(*p), "--features {feature} brings {p}");
        }
        for p in absent {
            assert!(!with.contains(*p), "--features {feature} brings {p} too");
        }
    }
}
