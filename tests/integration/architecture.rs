//! The layering of `src/` (docs/architecture.md): which top-level module may name which.
//! Read from the sources, so a new import across a forbidden edge fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every layer below the driver.
const BELOW_DRIVER: [&str; 8] = [
    "bytes",
    "error",
    "sys",
    "ir",
    "codec",
    "frontends",
    "passes",
    "backends",
];

/// Every layer of the library (what `lib.rs` declares).
const LIBRARY: [&str; 9] = [
    "bytes",
    "error",
    "sys",
    "ir",
    "codec",
    "frontends",
    "passes",
    "backends",
    "pipeline",
];

/// What each layer of the library may name (`crate::X`), besides itself.
fn allowed(layer: &str) -> &'static [&'static str] {
    match layer {
        "error" => &[],
        "sys" => &["error"],
        "bytes" => &["error", "sys"],
        "ir" => &["bytes", "error", "sys"],
        "codec" => &["bytes", "error", "sys", "ir"],
        "frontends" | "passes" | "backends" => &["bytes", "error", "sys", "ir", "codec"],
        "pipeline" => &BELOW_DRIVER,
        "lib" => &LIBRARY,
        _ => &[],
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without comments (doc links name modules without importing them).
fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| !l.trim_start().starts_with("//"))
}

/// Every `PREFIX::name` in `line`.
fn names_after<'a>(line: &'a str, prefix: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        out.push(&rest[..end]);
    }
    out
}

#[test]
fn layers_import_only_downwards() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut bad = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let layer = first.trim_end_matches(".rs").to_string();
        let text = std::fs::read_to_string(f).unwrap();
        if layer == "main" || layer == "cli" {
            // The binary: the driver and the public types only, never a reader, pass or
            // writer directly.
            for line in code_lines(&text) {
                assert!(
                    !line.contains("crate::") || line.contains("crate::cli"),
                    "{}: the binary names a library module through crate:: ({line})",
                    rel.display()
                );
                for name in names_after(line, "pgo_merge::") {
                    if !matches!(name, "pipeline" | "Error" | "ErrorKind" | "Warning") {
                        bad.push(format!(
                            "{}: the binary names pgo_merge::{name}",
                            rel.display()
                        ));
                    }
                }
            }
            continue;
        }
        for line in code_lines(&text) {
            for name in names_after(line, "crate::") {
                if name == layer {
                    continue;
                }
                edges
                    .entry(layer.clone())
                    .or_default()
                    .insert(name.to_string());
                if !allowed(&layer).contains(&name) {
                    bad.push(format!("{}: {layer} names crate::{name}", rel.display()));
                }
            }
        }
    }
    assert!(bad.is_empty(), "forbidden imports:\n{}", bad.join("\n"));
    // The layers that exist are the ones the rules speak of.
    for layer in edges.keys() {
        assert!(
            !allowed(layer).is_empty() || layer == "error",
            "{layer}: a top-level module the layering does not know"
        );
    }
}

#[test]
fn passes_never_see_files() {
    let passes = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/passes");
    let mut files = Vec::new();
    rust_files(&passes, &mut files);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for line in code_lines(&text) {
            for banned in [
                "std::fs::",
                "File::open",
                "InputFile",
                "frontends::",
                "backends::",
            ] {
                assert!(
                    !line.contains(banned),
                    "{}: a pass uses {banned}: {line}",
                    f.display()
                );
            }
        }
    }
}

/// rayon's global pool panics when its threads cannot start: every parallel step goes
/// through `sys::threads`, which uses only pools it built (or none), so rayon is named
/// nowhere else.
#[test]
fn rayon_only_through_sys_threads() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let allowed = src.join("sys").join("threads.rs");
    for f in files.iter().filter(|f| **f != allowed) {
        let text = std::fs::read_to_string(f).unwrap();
        for line in code_lines(&text) {
            for banned in [
                "rayon",
                "par_iter",
                "par_sort",
                "thread::scope",
                "thread::spawn",
            ] {
                assert!(
                    !line.contains(banned),
                    "{}: {banned} outside sys::threads: {line}",
                    f.display()
                );
            }
        }
    }
}

/// Functions stay short and take few arguments: `clippy::too_many_lines` (150, clippy.toml)
/// is on for the library and the binary, and neither it nor `too_many_arguments` is allowed
/// away anywhere in `src/` (group arguments in a struct; split a long function by concern).
#[test]
fn no_allows_of_long_functions_or_many_arguments() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for line in code_lines(&text) {
            let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            for lint in ["clippy::too_many_arguments", "clippy::too_many_lines"] {
                for attr in ["allow(", "expect("] {
                    assert!(
                        !(compact.contains(attr) && compact.contains(lint)),
                        "{}: {lint} is allowed away: {line}",
                        f.display()
                    );
                }
            }
        }
    }
    for root in ["lib.rs", "main.rs"] {
        let text = std::fs::read_to_string(src.join(root)).unwrap();
        assert!(
            text.contains("#![warn(clippy::too_many_lines)]"),
            "src/{root} must warn on clippy::too_many_lines"
        );
    }
    let conf =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("clippy.toml")).unwrap();
    assert!(
        conf.lines()
            .any(|l| l.replace(' ', "") == "too-many-lines-threshold=150"),
        "clippy.toml must set too-many-lines-threshold = 150"
    );
}
