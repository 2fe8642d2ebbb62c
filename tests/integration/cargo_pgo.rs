//! Acceptance: the real `cargo pgo` (cargo-pgo from crates.io, installed by `.ci/run`) builds a
//! small real crate with our drop-in first on PATH.
//!
//! The crate is a tiny binary written here that exercises `memchr` — a real crates.io library
//! with SIMD-heavy hot loops that PGO has something to say about. Its version is the one in
//! this repository's Cargo.lock, so cargo takes it from its own registry cache (it downloaded
//! it for pgo-merge) and the build runs offline and always sees the same code.
//!
//! How cargo-pgo 0.3 finds llvm-profdata: first `$(rustc --print target-libdir)/../bin/
//! llvm-profdata` (rustup's `llvm-tools` component), then `llvm-profdata` on PATH. When that
//! component is installed, the test puts a `rustc` first on PATH that answers only `--print
//! target-libdir` differently (cargo itself gets the real rustc through `RUSTC`), so that
//! cargo-pgo falls back to PATH; users with the component replace its llvm-profdata with a
//! link to pgo-merge instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;

/// The version of `name` in this repository's Cargo.lock.
fn locked_version(name: &str) -> String {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).expect("Cargo.lock");
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l == format!("name = \"{name}\"")
            && let Some(v) = lines.next().and_then(|v| v.strip_prefix("version = \""))
        {
            return v.trim_end_matches('"').to_string();
        }
    }
    panic!("{name} is not in Cargo.lock");
}

const MAIN_RS: &str = r#"
// Counts a needle, the lines and some digits of a generated text with memchr.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let needle = args.get(1).map(String::as_str).unwrap_or("needle");
    let mut hay = String::new();
    for i in 0..n {
        hay.push_str(if i % 7 == 0 { needle } else { "hay " });
        hay.push_str(&i.to_string());
        hay.push('\n');
    }
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let found = finder.find_iter(hay.as_bytes()).count();
    let lines = memchr::memchr_iter(b'\n', hay.as_bytes()).count();
    let digits = memchr::memchr3_iter(b'1', b'2', b'3', hay.as_bytes()).count();
    println!("{found} {lines} {digits}");
}
"#;

fn text(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Files under `dir` (recursively) whose name is `name`, executable.
fn find_executable(dir: &Path, name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    for entry in std::fs::read_dir(dir).ok()? {
        let p = entry.ok()?.path();
        if p.is_dir() {
            if let Some(f) = find_executable(&p, name) {
                return Some(f);
            }
        } else if p.file_name().is_some_and(|n| n == name)
            && p.parent().is_some_and(|d| d.ends_with("release"))
            && std::fs::metadata(&p).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
        {
            return Some(p);
        }
    }
    None
}

fn write_script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `cargo pgo build`, three runs, an empty `.profraw` among the profiles (a process killed
/// before it wrote anything), `cargo pgo optimize build`: the build succeeds through our
/// drop-in, and the profile it merged is byte-identical to llvm-profdata-22's of the same
/// profiles without the empty file.
#[test]
fn cargo_pgo_optimize_build_through_the_dropin_with_an_empty_profraw() {
    let test = "cargo pgo through the drop-in";
    let Some(cargo_pgo) = tool("cargo-pgo", test) else {
        return;
    };
    let Some(p22) = tool("llvm-profdata-22", test) else {
        return;
    };
    let Some(rustc) = tool("rustc", test) else {
        return;
    };
    let cargo = std::env::var_os("CARGO")
        .map(PathBuf::from)
        .or_else(|| tool("cargo", test))
        .expect("cargo");
    let dir = tempdir();
    let d = dir.path();

    // The crate.
    let krate = d.join("pgo-demo");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        format!(
            "[package]\nname = \"pgo-demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dependencies]\nmemchr = \"={}\"\n\n[workspace]\n",
            locked_version("memchr")
        ),
    )
    .unwrap();
    std::fs::write(krate.join("src/main.rs"), MAIN_RS).unwrap();

    // Our drop-in, first on PATH: a script that notes each call and runs pgo-merge under the
    // name llvm-profdata.
    let bin = d.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let calls = d.join("dropin-calls.log");
    write_script(
        &bin.join("llvm-profdata"),
        &format!(
            "#!/bin/bash\necho \"$*\" >> '{}'\nexec -a llvm-profdata '{}' \"$@\"\n",
            calls.display(),
            env!("CARGO_BIN_EXE_pgo-merge")
        ),
    );
    let libdir = Command::new(&rustc)
        .args(["--print", "target-libdir"])
        .output()
        .unwrap();
    let libdir = PathBuf::from(String::from_utf8_lossy(&libdir.stdout).trim());
    let rustup_profdata = libdir.parent().map(|p| p.join("bin/llvm-profdata"));
    if rustup_profdata.as_ref().is_some_and(|p| p.exists()) {
        // cargo-pgo would take rustup's llvm-profdata: hide it from cargo-pgo only.
        let fake = d.join("no-llvm-tools/lib");
        std::fs::create_dir_all(&fake).unwrap();
        write_script(
            &bin.join("rustc"),
            &format!(
                "#!/bin/bash\nif [ \"$*\" = \"--print target-libdir\" ]; then echo '{}'; exit 0; fi\n\
                 exec '{}' \"$@\"\n",
                fake.display(),
                rustc.display()
            ),
        );
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let cargo_pgo_cmd = |args: &[&str]| {
        let mut c = Command::new(&cargo_pgo);
        c.arg("pgo")
            .args(args)
            .current_dir(&krate)
            .env("PATH", &path)
            .env("CARGO", &cargo)
            .env("RUSTC", &rustc)
            .env("CARGO_NET_OFFLINE", "true")
            .env("CARGO_TARGET_DIR", krate.join("target"))
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("CARGO_BUILD_RUSTFLAGS")
            .env_remove("CARGO_BUILD_TARGET")
            .env_remove("RUSTC_WRAPPER")
            .env_remove("PGO_MERGE_TARGET_LLVM");
        c
    };

    // Instrumented build and runs.
    let out = cargo_pgo_cmd(&["build"]).output().unwrap();
    assert!(out.status.success(), "cargo pgo build: {}", text(&out));
    let exe = find_executable(&krate.join("target"), "pgo-demo").expect("the instrumented binary");
    let profiles = krate.join("target/pgo-profiles");
    // Two runs into cargo-pgo's default file (the runtime merges them), one into a file of its
    // own, as cargo-pgo suggests for more precise profiles.
    for (args, expected, file) in [
        (&["1000"][..], "143 1000 ", None),
        (&["5000", "xyzzy"][..], "715 5000 ", None),
        (
            &["20000", "n"][..],
            "2858 20000 ",
            Some("run3_%m_%p.profraw"),
        ),
    ] {
        let mut run = Command::new(&exe);
        if let Some(f) = file {
            run.env("LLVM_PROFILE_FILE", profiles.join(f));
        }
        let out = run.args(args).current_dir(&krate).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        assert!(String::from_utf8_lossy(&out.stdout).starts_with(expected));
    }
    let mut raws: Vec<PathBuf> = std::fs::read_dir(&profiles)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "profraw"))
        .collect();
    raws.sort();
    assert_eq!(raws.len(), 2, "{raws:?}");
    std::fs::write(profiles.join("killed-before-writing.profraw"), b"").unwrap();

    // The optimised build.
    let out = cargo_pgo_cmd(&["optimize", "build"]).output().unwrap();
    if !out.status.success() {
        // Say whether the drop-in alone refuses these profiles.
        let alone = Command::new(bin.join("llvm-profdata"))
            .arg("merge")
            .arg("-o")
            .arg(d.join("alone.profdata"))
            .arg(&profiles)
            .output()
            .unwrap();
        panic!(
            "cargo pgo optimize build failed: {}\n\nthe drop-in alone on {}: {}",
            text(&out),
            profiles.display(),
            text(&alone)
        );
    }
    let log = std::fs::read_to_string(&calls).unwrap_or_default();
    assert!(
        log.starts_with("merge -o "),
        "cargo-pgo did not run our drop-in: {log:?}"
    );
    let merged: Vec<PathBuf> = std::fs::read_dir(&profiles)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "profdata"))
        .collect();
    assert_eq!(merged.len(), 1, "{merged:?}");

    // llvm-profdata-22 on the same profiles, without the empty file.
    let reference = d.join("llvm22.profdata");
    let out = Command::new(&p22)
        .arg("merge")
        .arg("-o")
        .arg(&reference)
        .args(&raws)
        .output()
        .unwrap();
    assert!(out.status.success(), "llvm-profdata-22: {}", text(&out));
    assert!(
        std::fs::read(&merged[0]).unwrap() == std::fs::read(&reference).unwrap(),
        "the profile cargo pgo merged through the drop-in differs from llvm-profdata-22's"
    );
    eprintln!(
        "cargo pgo optimize build through the drop-in: {} profiles + 1 empty, merged profile \
         identical to llvm-profdata-22's",
        raws.len()
    );
}
