//! The README's commands work: every ```` ```sh ```` block of README.md is run here with
//! `bash -e` (in a temporary directory holding sample inputs named as in the README, with our
//! binary first on `PATH` and the real compilers, make and cmake where a block needs them), or
//! is run by `.ci/run` (checked: every line of the block appears there verbatim). The
//! Makefile and CMake snippets are run by make and cmake, and the library example is compiled
//! into this file and run. [`COVERAGE`] says which test runs which block; a README block that
//! no entry names, an entry whose block is gone, a shell block not marked `sh`, a link that
//! leaves the repository or points at a missing file, and a README over 250 lines fail
//! [`readme_every_block_is_covered`].

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;

/// Where each README block (language, first line) is exercised: the name of a test in this
/// file that runs it, or `CI` for blocks that `.ci/run` runs verbatim.
const COVERAGE: &[(&str, &str, &str)] = &[
    ("sh", "cargo install --locked --path .", CI),
    (
        "sh",
        "cargo run --release -- testdata/profraw/clang22/ir-*.profraw -o target/demo.profdata",
        "readme_sample_merge",
    ),
    ("sh", "cargo test", CI),
    (
        "sh",
        "pgo-merge run1.profraw run2.profraw -o merged.profdata",
        "readme_llvm_merge",
    ),
    (
        "sh",
        "clang -O2 -fprofile-generate=prof -o app app.c",
        "readme_build_step",
    ),
    ("make", "CC = clang", "readme_make_rule"),
    (
        "cmake",
        "file(GLOB PROFRAW CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/prof/*.profraw)",
        "readme_cmake_rule",
    ),
    ("sh", "cargo pgo build", "readme_cargo_pgo"),
    ("sh", "mkdir -p ~/.local/pgo-merge-dropin", "readme_dropin"),
    (
        "sh",
        "ln -sf \"$(command -v pgo-merge)\" ~/.local/pgo-merge-dropin/llvm-profdata-19",
        "readme_dropin",
    ),
    (
        "sh",
        "pgo-merge bolt-profiles/*.fdata -o merged.fdata",
        "readme_bolt",
    ),
    (
        "sh",
        "pgo-merge run1.iprof run2.iprof -o merged.iprof",
        "readme_graalvm",
    ),
    (
        "sh",
        "pgo-merge symbolize --jitdump jit-*.dump --perf-script samples.txt -o app.folded",
        "readme_jit",
    ),
    ("rust", "use std::path::Path;", "readme_library_example"),
];

/// Blocks run by `.ci/run`.
const CI: &str = ".ci/run";

/// Languages a README block may have. `text` blocks show output and must not hold commands.
const LANGUAGES: &[&str] = &["sh", "text", "make", "cmake", "rust"];

/// One fenced block of a Markdown file.
#[derive(Debug, Clone)]
struct Block {
    lang: String,
    text: String,
    /// 1-based line of the opening fence.
    line: usize,
}

impl Block {
    fn first_line(&self) -> &str {
        self.text.lines().next().unwrap_or("")
    }
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).expect("read README.md")
}

/// The fenced blocks of `md` (fences at the start of a line).
fn blocks(md: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in md.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(lang)) => {
                open = Some(Block {
                    lang: lang.trim().to_string(),
                    text: String::new(),
                    line: i + 1,
                })
            }
            (Some(_), Some(rest)) if rest.trim().is_empty() => out.push(open.take().unwrap()),
            (Some(b), _) => {
                b.text.push_str(line);
                b.text.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "README.md: a code block is not closed");
    out
}

/// The README block of `lang` whose first line is `first`.
fn block(lang: &str, first: &str) -> Block {
    let all = blocks(&readme());
    let found: Vec<&Block> = all
        .iter()
        .filter(|b| b.lang == lang && b.first_line() == first)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "README.md should have exactly one ```{lang} block starting with {first:?}"
    );
    found[0].clone()
}

/// The README block that [`COVERAGE`] assigns to `test` (the `n`-th of them).
fn block_of(test: &str, n: usize) -> Block {
    let (lang, first, _) = COVERAGE
        .iter()
        .filter(|(_, _, t)| *t == test)
        .nth(n)
        .unwrap_or_else(|| panic!("COVERAGE names no block #{n} for {test}"));
    block(lang, first)
}

/// True if a test function `name` exists in `tests/integration/`.
fn test_exists(name: &str) -> bool {
    let pattern = format!("fn {name}(");
    std::fs::read_dir(root().join("tests/integration"))
        .expect("tests/integration")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .any(|e| std::fs::read_to_string(e.path()).is_ok_and(|s| s.contains(&pattern)))
}

/// Markdown link targets `[..](target)` of `md`, outside code blocks.
fn links(md: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut in_code = false;
    for line in md.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    let mut out = Vec::new();
    let mut rest = prose.as_str();
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        match after.find(')') {
            Some(j) => {
                out.push(after[..j].to_string());
                rest = &after[j..];
            }
            None => break,
        }
    }
    out
}

/// GitHub's anchor of a heading: lower case, spaces to hyphens, punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of the headings of `md` (outside code blocks).
fn anchors(md: &str) -> Vec<String> {
    let mut in_code = false;
    let mut out = Vec::new();
    for line in md.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// Checks that every link of the Markdown file `file` stays in the repository and points at
/// a file (and heading) that exists.
fn check_links(file: &Path) -> Vec<String> {
    let md = std::fs::read_to_string(file).unwrap();
    let mut bad = Vec::new();
    for target in links(&md) {
        if target.contains("://") || target.starts_with("mailto:") {
            bad.push(format!(
                "{}: link outside the repository: {target}",
                file.display()
            ));
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let dest = if path.is_empty() {
            file.to_path_buf()
        } else {
            file.parent().unwrap().join(path)
        };
        if !dest.exists() {
            bad.push(format!(
                "{}: link to a missing file: {target}",
                file.display()
            ));
            continue;
        }
        if let Some(a) = anchor {
            let text = std::fs::read_to_string(&dest).unwrap_or_default();
            if !anchors(&text).iter().any(|h| h == a) {
                bad.push(format!(
                    "{}: link to a missing heading: {target}",
                    file.display()
                ));
            }
        }
    }
    bad
}

#[test]
fn readme_every_block_is_covered() {
    let md = readme();
    let lines = md.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines; the front page stays at 250 or fewer (reference goes to docs/)"
    );
    let all = blocks(&md);
    let ci = std::fs::read_to_string(root().join(".ci/run")).expect("read .ci/run");
    let ci_lines: Vec<&str> = ci.lines().map(str::trim).collect();
    let command_words = [
        "$ ",
        "pgo-merge ",
        "cargo ",
        "llvm-profdata",
        "clang ",
        "ln ",
        "export ",
    ];
    let mut problems = Vec::new();
    for b in &all {
        let at = format!("README.md line {}", b.line);
        if !LANGUAGES.contains(&b.lang.as_str()) {
            problems.push(format!(
                "{at}: code block language {:?}; shell commands go in ```sh blocks (run by this test), output in ```text",
                b.lang
            ));
            continue;
        }
        if b.lang == "text" {
            if let Some(l) = b
                .text
                .lines()
                .find(|l| command_words.iter().any(|w| l.starts_with(w)))
            {
                problems.push(format!(
                    "{at}: a ```text block holds a command ({l:?}); put it in a ```sh block"
                ));
            }
            continue;
        }
        let entries: Vec<_> = COVERAGE
            .iter()
            .filter(|(lang, first, _)| *lang == b.lang && *first == b.first_line())
            .collect();
        match entries.as_slice() {
            [] => problems.push(format!(
                "{at}: the ```{} block starting {:?} is run by no test: add it to COVERAGE in tests/integration/readme.rs",
                b.lang,
                b.first_line()
            )),
            [(_, _, CI)] => {
                for l in b.text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                    if !ci_lines.contains(&l) {
                        problems.push(format!("{at}: {l:?} is not run by .ci/run"));
                    }
                }
            }
            [(_, _, test)] => {
                if !test_exists(test) {
                    problems.push(format!("{at}: COVERAGE names the missing test {test}"));
                }
            }
            _ => problems.push(format!("{at}: COVERAGE names this block twice")),
        }
    }
    for (lang, first, _) in COVERAGE {
        if !all
            .iter()
            .any(|b| b.lang == *lang && b.first_line() == *first)
        {
            problems.push(format!(
                "COVERAGE names a ```{lang} block starting {first:?} that README.md no longer has"
            ));
        }
    }
    let mut docs = vec![root().join("README.md")];
    if let Ok(dir) = std::fs::read_dir(root().join("docs")) {
        docs.extend(
            dir.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "md")),
        );
    }
    docs.push(root().join("CHANGELOG.md"));
    for d in &docs {
        problems.extend(check_links(d));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A temporary directory to run README blocks in: `bin/` holds `pgo-merge` (our binary) and
/// comes first on `PATH`, `home/` is `HOME`, and the README's input names are created on
/// request.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempdir();
        let s = Sandbox { dir };
        std::fs::create_dir_all(s.path().join("bin")).unwrap();
        std::fs::create_dir_all(s.path().join("home")).unwrap();
        s.link_tool("pgo-merge", Path::new(env!("CARGO_BIN_EXE_pgo-merge")));
        s
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Makes `bin/NAME` a symlink to `target`.
    fn link_tool(&self, name: &str, target: &Path) {
        std::os::unix::fs::symlink(target, self.path().join("bin").join(name)).unwrap();
    }

    /// Copies `testdata/<from>` to `<to>` in the sandbox (creating directories).
    fn copy(&self, from: &str, to: &str) {
        let dest = self.path().join(to);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(root().join("testdata").join(from), &dest)
            .unwrap_or_else(|e| panic!("copy testdata/{from}: {e}"));
    }

    /// Writes the gzip-compressed `testdata/<from>` decompressed to `<to>`.
    fn gunzip(&self, from: &str, to: &str) {
        use std::io::Read;
        let f = std::fs::File::open(root().join("testdata").join(from)).unwrap();
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(f)
            .read_to_end(&mut bytes)
            .unwrap();
        std::fs::write(self.path().join(to), bytes).unwrap();
    }

    /// The raw profiles the LLVM examples name.
    fn llvm_inputs(&self) {
        self.copy("profraw/clang22/ir-basic-run1.profraw", "run1.profraw");
        self.copy("profraw/clang22/ir-basic-run2.profraw", "run2.profraw");
        self.copy("profraw/clang22/ir-basic-run2.profraw", "hot.profraw");
        self.copy(
            "profraw/clang22/ir-basic-run1.profraw",
            "profiles/a.profraw",
        );
        self.copy(
            "profraw/clang22/ir-basic-run2.profraw",
            "profiles/b.profraw",
        );
    }

    /// Runs `script` with bash (`-e -u -o pipefail`) in the sandbox, `dir` relative to it.
    fn bash_in(&self, dir: &str, script: &str, env: &[(&str, &str)]) -> Output {
        let path = match std::env::var_os("PATH") {
            Some(p) => {
                let mut dirs = vec![self.path().join("bin")];
                dirs.extend(std::env::split_paths(&p));
                std::env::join_paths(dirs).unwrap()
            }
            None => self.path().join("bin").into_os_string(),
        };
        // HOME moves into the sandbox; rustup and cargo keep finding their own homes.
        let real_home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default();
        let rustup_home = std::env::var_os("RUSTUP_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| real_home.join(".rustup"));
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| real_home.join(".cargo"));
        let mut cmd = Command::new("bash");
        cmd.args(["-euo", "pipefail", "-c", script])
            .current_dir(self.path().join(dir))
            .env("PATH", path)
            .env("HOME", self.path().join("home"))
            .env("RUSTUP_HOME", rustup_home)
            .env("CARGO_HOME", cargo_home)
            .env_remove("LLVM_PROFILE_FILE")
            .env_remove("PGO_MERGE_TARGET_LLVM");
        for (k, v) in env {
            cmd.env(k, v);
        }
        // Nothing to read: a block's tools (cargo asks `rustc -` about the target) must not
        // read whatever the test runner's standard input holds.
        cmd.stdin(std::process::Stdio::null());
        cmd.output().expect("run bash")
    }

    fn bash(&self, script: &str) -> Output {
        self.bash_in(".", script, &[])
    }

    fn file(&self, rel: &str) -> PathBuf {
        let p = self.path().join(rel);
        assert!(
            p.is_file() && std::fs::metadata(&p).unwrap().len() > 0,
            "{rel} was not written"
        );
        p
    }
}

/// Asserts that a README block ran, showing it and its output otherwise.
fn assert_block_ok(out: &Output, b: &Block) {
    assert!(
        out.status.success(),
        "README.md line {}: the block failed ({:?}):\n{}\nstdout:\n{}\nstderr:\n{}",
        b.line,
        out.status,
        b.text,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An LLVM indexed profile: its magic, and `pgo-merge show` reads it.
fn assert_indexed(p: &Path) {
    let bytes = std::fs::read(p).unwrap();
    assert!(
        bytes.starts_with(b"\xfflprofi\x81"),
        "{} is not an indexed profile",
        p.display()
    );
    assert_ok(
        &run_ours(["show".as_ref(), p.as_os_str()]),
        "pgo-merge show",
    );
}

#[test]
fn readme_sample_merge() {
    // The README's first command, with `cargo run --release --` being our binary (cargo
    // itself is exercised by .ci/run, which runs the command verbatim).
    let b = block_of("readme_sample_merge", 0);
    let sb = Sandbox::new();
    std::os::unix::fs::symlink(root().join("testdata"), sb.path().join("testdata")).unwrap();
    std::fs::create_dir(sb.path().join("target")).unwrap();
    let script = b.text.replace("cargo run --release --", "pgo-merge");
    assert!(script.starts_with("pgo-merge "), "{script}");
    let out = sb.bash(&script);
    assert_block_ok(&out, &b);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("pgo-merge: wrote target/demo.profdata ("),
        "the README says what the command prints: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_indexed(&sb.file("target/demo.profdata"));
}

#[test]
fn readme_llvm_merge() {
    let b = block_of("readme_llvm_merge", 0);
    let sb = Sandbox::new();
    sb.llvm_inputs();
    let out = sb.bash(&b.text);
    assert_block_ok(&out, &b);
    assert_indexed(&sb.file("merged.profdata"));
    assert_indexed(&sb.file("weighted.profdata"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Total functions: "));
    // `--target-llvm 19` writes index version 12 (the version word's low 32 bits).
    let w = std::fs::read(sb.file("weighted.profdata")).unwrap();
    assert_eq!(u32::from_le_bytes(w[8..12].try_into().unwrap()), 12);
}

#[test]
fn readme_build_step() {
    let test = "README: build step before -fprofile-use";
    // The README says `clang`; CI has clang-19 (clang-14 would do as well).
    let Some(clang) = tool("clang-19", test) else {
        return;
    };
    let b = block_of("readme_build_step", 0);
    let sb = Sandbox::new();
    sb.link_tool("clang", &clang);
    sb.copy("src/basic.c", "app.c");
    let out = sb.bash(&b.text);
    assert_block_ok(&out, &b);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("warning") && !stderr.contains("error"),
        "the build with the merged profile printed diagnostics:\n{stderr}"
    );
    assert_indexed(&sb.file("app.profdata"));
    // The rebuilt program runs.
    assert_ok(&sb.bash("./app 3 x"), "the optimised app");
}

/// `prof/` with two raw profiles, as an instrumented program leaves it.
fn prof_dir(sb: &Sandbox, under: &str) {
    sb.copy(
        "profraw/clang22/ir-basic-run1.profraw",
        &format!("{under}prof/default_1.profraw"),
    );
    sb.copy(
        "profraw/clang22/ir-basic-run2.profraw",
        &format!("{under}prof/default_2.profraw"),
    );
}

/// The Makefile builds the program with clang 19 from profiles clang 19's instrumented
/// build wrote: the merge is for the LLVM of the compiler named (`CC`), which reads it
/// without a diagnostic (without `--target-llvm` it writes index version 13, which clang 19
/// refuses).
#[test]
fn readme_make_rule() {
    let test = "README: Makefile rule";
    let Some(make) = tool("make", test) else {
        return;
    };
    let Some(clang) = tool("clang-19", test) else {
        return;
    };
    let b = block_of("readme_make_rule", 0);
    assert!(
        b.text.contains("\n\tpgo-merge"),
        "a make recipe starts with a tab"
    );
    let sb = Sandbox::new();
    sb.link_tool("clang", &clang);
    sb.copy("src/basic.c", "app.c");
    let instrumented = sb.bash(
        "clang -O2 -fprofile-generate=prof -o app-instrumented app.c && ./app-instrumented 3 x \
         && ./app-instrumented 5 y",
    );
    assert_ok(&instrumented, "the instrumented build and its runs");
    std::fs::write(sb.path().join("Makefile"), &b.text).unwrap();
    let out = sb.bash(&make.display().to_string());
    assert_block_ok(&out, &b);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("warning") && !stderr.contains("error"),
        "the build with the merged profile printed diagnostics:\n{stderr}"
    );
    assert_indexed(&sb.file("app.profdata"));
    let w = std::fs::read(sb.file("app.profdata")).unwrap();
    assert_eq!(
        u32::from_le_bytes(w[8..12].try_into().unwrap()),
        12,
        "LLVM 19's version"
    );
    assert_ok(&sb.bash("./app 3 x"), "the optimised app");
}

#[test]
fn readme_cmake_rule() {
    let Some(cmake) = tool("cmake", "README: CMake rule") else {
        return;
    };
    if tool("make", "README: CMake rule").is_none() {
        return;
    }
    let Some(clang) = tool("clang-19", "README: CMake rule") else {
        return;
    };
    let b = block_of("readme_cmake_rule", 0);
    let sb = Sandbox::new();
    prof_dir(&sb, "src/");
    std::fs::write(
        sb.path().join("src/CMakeLists.txt"),
        format!(
            "cmake_minimum_required(VERSION 3.16)\nproject(app C)\n{}",
            b.text
        ),
    )
    .unwrap();
    let c = cmake.display();
    let out = sb.bash(&format!(
        "CC={} {c} -S src -B build && {c} --build build",
        clang.display()
    ));
    assert_block_ok(&out, &b);
    assert_indexed(&sb.file("build/app.profdata"));
    // For the C compiler's LLVM: clang 19 reads index version 12.
    let w = std::fs::read(sb.file("build/app.profdata")).unwrap();
    assert_eq!(
        u32::from_le_bytes(w[8..12].try_into().unwrap()),
        12,
        "LLVM 19's version"
    );
}

#[test]
fn readme_dropin() {
    let first = block_of("readme_dropin", 0);
    let second = block_of("readme_dropin", 1);
    let sb = Sandbox::new();
    sb.llvm_inputs();
    // After the first block, `llvm-profdata` is the drop-in.
    let out = sb.bash(&format!("{}command -v llvm-profdata\n", first.text));
    assert_block_ok(&out, &first);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .trim_end()
            .ends_with("home/.local/pgo-merge-dropin/llvm-profdata"),
        "`llvm-profdata` is not the drop-in after the README's setup:\n{stdout}"
    );
    // The second block follows the first in the same shell (it relies on its PATH).
    let out = sb.bash(&format!("{}{}", first.text, second.text));
    assert_block_ok(&out, &second);
    assert_indexed(&sb.file("for-llvm19.profdata"));
    assert!(
        sb.path()
            .join("home/.local/pgo-merge-dropin/llvm-profdata-19")
            .is_symlink()
    );
}

#[test]
fn readme_bolt() {
    let dropin = block_of("readme_dropin", 0);
    let b = block_of("readme_bolt", 0);
    let sb = Sandbox::new();
    for n in 1..=3 {
        sb.copy(
            &format!("bolt/run{n}.fdata"),
            &format!("bolt-profiles/run{n}.fdata"),
        );
    }
    // The drop-in directory of the llvm-profdata block comes first on PATH.
    let out = sb.bash(&format!("{}{}", dropin.text, b.text));
    assert_block_ok(&out, &b);
    let merged = std::fs::read_to_string(sb.path().join("merged.fdata")).unwrap();
    assert!(merged.lines().count() > 10, "{merged}");
    assert!(
        sb.path()
            .join("home/.local/pgo-merge-dropin/merge-fdata")
            .is_symlink()
    );
}

#[test]
fn readme_graalvm() {
    let b = block_of("readme_graalvm", 0);
    let sb = Sandbox::new();
    for to in [
        "run1.iprof",
        "run2.iprof",
        "iprof-runs/a.iprof",
        "iprof-runs/b.iprof",
    ] {
        sb.copy("iprof/small-v1.1.0.iprof", to);
    }
    let out = sb.bash(&b.text);
    assert_block_ok(&out, &b);
    for f in ["merged.iprof", "trimmed.iprof"] {
        let text = std::fs::read_to_string(sb.file(f)).unwrap();
        assert!(text.starts_with('{'), "{f} is not JSON");
    }
    assert!(String::from_utf8_lossy(&out.stdout).contains("iprof format version"));
    assert_indexed(&sb.file("java.profdata"));
}

#[test]
fn readme_jit() {
    let b = block_of("readme_jit", 0);
    let sb = Sandbox::new();
    sb.gunzip("jit/node-work/jit.dump.gz", "jit-3579.dump");
    sb.gunzip("jit/node-work/perf-script.raw.txt.gz", "samples.txt");
    let out = sb.bash(&b.text);
    assert_block_ok(&out, &b);
    let folded = std::fs::read_to_string(sb.file("app.folded")).unwrap();
    assert!(
        folded.lines().any(|l| l.contains(";JS:")),
        "no resolved JavaScript frame in app.folded"
    );
    sb.file("app.iprof");
    assert!(
        !out.stdout.is_empty(),
        "`pgo-merge show app.iprof` printed nothing"
    );
}

#[test]
fn readme_cargo_pgo() {
    let test = "README: cargo-pgo";
    let b = block_of("readme_cargo_pgo", 0);
    let on_path = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("cargo-pgo"))
            .find(|p| p.is_file())
    });
    if on_path.is_none() {
        // Where cargo-pgo is not installed here, another test must run the flow with it.
        let others: Vec<String> = std::fs::read_dir(root().join("tests/integration"))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.file_name().is_some_and(|n| n != "readme.rs"))
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .flat_map(|s| {
                s.split("fn ")
                    .skip(1)
                    .filter_map(|f| f.split('(').next().map(str::to_string))
                    .filter(|n| n.contains("cargo_pgo"))
                    .collect::<Vec<_>>()
            })
            .collect();
        if others.is_empty() {
            // Prints SKIPPED, or fails when tools are required.
            tool("cargo-pgo", test);
        } else {
            eprintln!("{test}: cargo-pgo is not installed; the flow is run by {others:?}");
        }
        return;
    }
    // A small crate, and the drop-in first on PATH as the README sets it up.
    let sb = Sandbox::new();
    let krate = sb.path().join("app");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("src/main.rs"),
        "fn main() {\n    let n: u64 = std::env::args().count() as u64 * 1000;\n    let mut s = 0u64;\n    for i in 0..n {\n        if i % 3 == 0 { s += i } else { s ^= i }\n    }\n    println!(\"{s}\");\n}\n",
    )
    .unwrap();
    let dropin = sb.path().join("home/.local/pgo-merge-dropin");
    std::fs::create_dir_all(&dropin).unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_pgo-merge"),
        dropin.join("llvm-profdata"),
    )
    .unwrap();
    // The LLVM version of this rustc, as the README tells cargo-pgo users to set it.
    let rustc = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc -vV");
    let llvm = String::from_utf8_lossy(&rustc.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("LLVM version: "))
        .and_then(|v| v.split('.').next())
        .unwrap_or("22")
        .to_string();
    let script = format!(
        "export PATH=\"$HOME/.local/pgo-merge-dropin:$PATH\"\n{}command -v llvm-profdata\n",
        b.text
    );
    let out = sb.bash_in(
        "app",
        &script,
        &[
            ("PGO_MERGE_TARGET_LLVM", llvm.as_str()),
            ("CARGO_TARGET_DIR", krate.join("target").to_str().unwrap()),
        ],
    );
    assert_block_ok(&out, &b);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .trim_end()
            .ends_with("home/.local/pgo-merge-dropin/llvm-profdata"),
        "cargo-pgo did not run with the drop-in first on PATH:\n{stdout}"
    );
    // cargo-pgo names its merged profile `merged.profdata` or `merged-HASH.profdata`.
    let merged: Vec<PathBuf> = std::fs::read_dir(krate.join("target/pgo-profiles"))
        .expect("target/pgo-profiles")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("merged") && n.ends_with(".profdata"))
        })
        .collect();
    assert_eq!(
        merged.len(),
        1,
        "cargo pgo optimize merged no profile: {merged:?}"
    );
    assert_indexed(&merged[0]);
}

// The README's library example, verbatim between the markers (readme_library_example checks
// that), compiled here.
// BEGIN README EXAMPLE
use pgo_merge::pipeline::{self, MergeRequest};

/// Merges two runs and a run that counts three times into one profile for LLVM 19.
fn merge_runs(dir: &Path) -> pgo_merge::Result<()> {
    let mut request = MergeRequest::new(dir.join("merged.profdata"))
        .input(dir.join("run1.profraw"))
        .input(dir.join("run2.profraw"))
        .weighted_input("3".parse().unwrap(), dir.join("hot.profraw"));
    // The request is #[non_exhaustive]: options are set on it, not in a struct literal.
    request.target_llvm = Some(19);
    let outcome = pipeline::merge(&request, &pipeline::NoProgress)?;
    for message in &outcome.messages {
        eprintln!("{message}");
    }
    println!(
        "{} records from {} inputs",
        outcome.records, outcome.inputs_merged
    );
    Ok(())
}
// END README EXAMPLE

#[test]
fn readme_library_example() {
    let b = block_of("readme_library_example", 0);
    let this = include_str!("readme.rs");
    let example = this
        .split("// BEGIN README EXAMPLE\n")
        .nth(1)
        .and_then(|s| s.split("// END README EXAMPLE\n").next())
        .expect("markers");
    // The README adds the `use std::path::Path;` that this file has at its top.
    let readme_example = b
        .text
        .strip_prefix("use std::path::Path;\n\n")
        .expect("the README example starts with `use std::path::Path;` and a blank line");
    assert_eq!(
        readme_example, example,
        "the README's library example differs from the copy compiled in tests/integration/readme.rs"
    );
    let sb = Sandbox::new();
    sb.llvm_inputs();
    merge_runs(sb.path()).expect("the README's library example");
    assert_indexed(&sb.file("merged.profdata"));
}

/// What a newcomer needs before the first command: the build time, the man page and the
/// completions; and the byte-identity claim, wherever the README makes it, with its
/// condition (the same inputs in the same order).
#[test]
fn readme_tells_build_time_manual_completions_and_the_order_condition() {
    let md = readme();
    let flat = md.split_whitespace().collect::<Vec<_>>().join(" ");
    for needed in [
        "CPU-minutes of compiling",
        "pgo-merge man",
        "pgo-merge completions bash",
    ] {
        assert!(flat.contains(needed), "the README does not say {needed:?}");
    }
    let mut claims = 0;
    for (i, _) in flat.match_indices("byte for byte") {
        claims += 1;
        let after = &flat[i..(i + 200).min(flat.len())];
        assert!(
            after.contains("same order"),
            "a byte-identity claim without its condition: {after:?}"
        );
    }
    assert!(claims >= 2, "the README's byte-identity claims: {claims}");
}
