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

/// The LLVM instrumentation formats whose reading for a merge goes through the read side's
/// one entry point, `frontends::merge_input` (`MergeReader::read` → `MergeInput`).
const LLVM_FORMATS: [&str; 3] = ["profraw", "profdata", "proftext"];

/// Every module path that follows `frontends::` in `code`, a group (`frontends::{a, b::C}`)
/// giving each of its items.
fn paths_after_frontends(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("frontends::") {
        rest = &rest[i + "frontends::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Up to the matching brace.
            let mut depth = 1;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .map_or(group.len(), |(k, _)| k);
            out.extend(
                group[..end]
                    .split([',', '{', '}'])
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty()),
            );
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            out.push(rest[..end].to_string());
        }
    }
    out
}

/// The driver keeps windows, threads and outputs: it reads LLVM profiles only through the
/// read side's entry point and names no type of the raw, indexed or text readers (nor the
/// raw layout cache), so format knowledge stays on the read side.
#[test]
fn pipeline_names_no_llvm_reader_type() {
    let pipeline = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/pipeline");
    let mut files = Vec::new();
    rust_files(&pipeline, &mut files);
    let mut bad = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let code: Vec<&str> = code_lines(&text).collect();
        let code = code.join("\n");
        for path in paths_after_frontends(&code) {
            if LLVM_FORMATS
                .iter()
                .any(|m| path == *m || path.starts_with(&format!("{m}::")))
            {
                bad.push(format!("{}: frontends::{path}", f.display()));
            }
        }
        for name in [
            "RawLayout",
            "IndexedScan",
            "TextScan",
            "IndexedNameCache",
            "TextNameCache",
        ] {
            if code.contains(name) {
                bad.push(format!("{}: {name}", f.display()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "the driver names LLVM reader types (go through frontends::MergeReader):\n{}",
        bad.join("\n")
    );
}

/// The read side's one entry point for the driver (`src/frontends/open/`): the only module
/// of `frontends` that `src/pipeline/` may name.
const ENTRY_POINT: &str = "open";

/// The driver opens and reads inputs of every family (LLVM instrumentation and sample
/// profiles, GraalVM profiles, code regions and sampled stacks) only through the read side's
/// entry point, [`ENTRY_POINT`]: it names no format's reader, options or detection types, so
/// what a format is stays on the read side, as `object::read::File::parse` hides formats
/// behind one value.
#[test]
fn pipeline_names_only_the_read_entry_point() {
    let pipeline = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/pipeline");
    let mut files = Vec::new();
    rust_files(&pipeline, &mut files);
    files.sort();
    let mut bad = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let code: Vec<&str> = code_lines(&text).collect();
        let code = code.join("\n");
        // An alias (`use crate::frontends as fe;`) would hide the paths checked below.
        if code.contains("frontends as") || code.contains("frontends;") {
            bad.push(format!("{}: frontends named without a path", f.display()));
        }
        for path in paths_after_frontends(&code) {
            let first = path.split("::").next().unwrap_or_default();
            if first != ENTRY_POINT {
                bad.push(format!("{}: frontends::{path}", f.display()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "the driver names front-end modules other than frontends::{ENTRY_POINT}:\n{}",
        bad.join("\n")
    );
}

/// The entry point stays an entry point: it hands on values and functions, never a whole
/// format module (`pub use super::sample;`) or a glob, which would let the driver reach every
/// reader through it.
#[test]
fn the_read_entry_point_re_exports_no_format_module() {
    let open = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/frontends")
        .join(ENTRY_POINT);
    let mut files = Vec::new();
    rust_files(&open, &mut files);
    let formats = [
        "profraw",
        "profdata",
        "proftext",
        "sample",
        "iprof",
        "jitdump",
        "perfmap",
        "perf_script",
        "code_regions",
        "bolt",
        "merge_input",
    ];
    let mut bad = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let code: Vec<&str> = code_lines(&text).collect();
        // `pub use` items end at `;` and may span lines.
        for item in code.join("\n").split(';') {
            let Some(at) = item.find("pub use ") else {
                continue;
            };
            let item = &item[at + "pub use ".len()..];
            let names = item
                .split([',', '{', '}', '\n'])
                .map(|n| n.trim())
                .filter(|n| !n.is_empty());
            for name in names {
                let last = name
                    .split(" as ")
                    .next()
                    .unwrap_or(name)
                    .rsplit("::")
                    .next();
                if name.ends_with('*') || last.is_some_and(|l| formats.contains(&l)) {
                    bad.push(format!("{}: pub use {name}", f.display()));
                }
            }
        }
    }
    assert!(!files.is_empty(), "{} has no sources", open.display());
    assert!(
        bad.is_empty(),
        "the entry point re-exports format modules:\n{}",
        bad.join("\n")
    );
}

/// Counter bytes reach the merge pass as typed values (`ir::CounterBytes`): no pass decodes
/// bytes in a file's byte order.
#[test]
fn passes_never_name_a_byte_order() {
    let passes = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/passes");
    let mut files = Vec::new();
    rust_files(&passes, &mut files);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            assert!(
                !line.contains("Endian"),
                "{}:{}: a pass names a byte order: {line}",
                f.display(),
                n + 1
            );
        }
    }
}

#[test]
fn frontends_paths_are_found_in_groups() {
    let code = "use crate::frontends::{self, InputFile, profraw::NameCache};\n\
                let c = crate::frontends::profdata::scan(b);";
    assert_eq!(
        paths_after_frontends(code),
        ["self", "InputFile", "profraw::NameCache", "profdata::scan"]
    );
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

/// The `pub mod` lines of `file` (relative to `src/`) and whether `#[doc(hidden)]` (or another
/// attribute line) directly above includes it.
fn public_modules(file: &str) -> Vec<(String, bool)> {
    let text = std::fs::read_to_string(Path::new("src").join(file)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = line
            .strip_prefix("pub mod ")
            .and_then(|r| r.strip_suffix(';'))
        else {
            continue;
        };
        let hidden = lines[..i]
            .iter()
            .rev()
            .take_while(|l| l.starts_with("#["))
            .any(|l| l.contains("doc(hidden)"));
        out.push((name.to_string(), hidden));
    }
    out
}

/// `cargo doc` shows the curated API of docs/architecture.md ("The library's API"): the
/// modules below are documented, every other public module is `#[doc(hidden)]`.
#[test]
fn only_the_curated_modules_are_documented() {
    let documented: [(&str, &[&str]); 3] = [
        (
            "lib.rs",
            &["backends", "error", "frontends", "ir", "passes", "pipeline"],
        ),
        ("frontends/mod.rs", &["open"]),
        (
            "backends/mod.rs",
            &[
                "bolt",
                "debug_info",
                "iprof",
                "iprof_show",
                "jit_show",
                "order",
                "overlap",
                "profdata",
                "proftext",
                "sample",
                "show",
            ],
        ),
    ];
    for (file, shown) in documented {
        for (module, hidden) in public_modules(file) {
            let want_hidden = !shown.contains(&module.as_str());
            assert_eq!(
                hidden,
                want_hidden,
                "src/{file}: `pub mod {module}` should {}be #[doc(hidden)] (docs/architecture.md, \"The library's API\")",
                if want_hidden { "" } else { "not " }
            );
        }
    }
}

/// Enums of the documented layers that are a data representation, matched exhaustively by
/// design; every other public enum there may gain a variant and is `#[non_exhaustive]`.
const EXHAUSTIVE_ENUMS: [&str; 6] = [
    "Counters",
    "FunctionId",
    "SampleContext",
    "ContextHash",
    "FlatName",
    "FlatKey",
];

#[test]
fn public_enums_and_options_of_the_api_are_non_exhaustive() {
    let mut files = Vec::new();
    for dir in [
        "src/pipeline",
        "src/ir",
        "src/passes",
        "src/backends",
        "src/frontends/open",
    ] {
        rust_files(Path::new(dir), &mut files);
    }
    files.extend(
        [
            "src/error.rs",
            "src/frontends/detect.rs",
            "src/frontends/merge_input.rs",
        ]
        .map(PathBuf::from),
    );
    let mut missing = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let rest = line.strip_prefix("pub enum ").map(|r| ("enum", r));
            let rest = rest.or_else(|| line.strip_prefix("pub struct ").map(|r| ("struct", r)));
            let Some((what, rest)) = rest else { continue };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let options = what == "struct" && name.ends_with("Options");
            if (what == "struct" && !options) || EXHAUSTIVE_ENUMS.contains(&name.as_str()) {
                continue;
            }
            let marked = lines[..i]
                .iter()
                .rev()
                .take_while(|l| l.starts_with("#[") || l.trim_start().starts_with("///"))
                .any(|l| l.contains("non_exhaustive"));
            if !marked {
                missing.push(format!("{}: {what} {name}", file.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not #[non_exhaustive]:\n{}",
        missing.join("\n")
    );
}
