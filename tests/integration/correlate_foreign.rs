//! COFF and Mach-O binaries of lightweight builds (clang-19 `-fprofile-generate -mllvm
//! -profile-correlate=binary`, objects and linked images built at test time with lld-link-19
//! and ld64.lld-19) are refused naming the file and the format, by `--binary-file`,
//! `--debug-info`, `--binary-for` and `show --debug-info`, with the exit code of the other
//! refusals of a binary (2). Correlation is implemented for ELF only: no Windows or macOS run
//! could be checked here.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{root, run, run_ours, tempdir, tool};

const SRC: &str = "int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }\n\
int entry(void) { return work(10); }\n";

fn ok(out: Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Compiles `c` for `target` into the object `out` with lightweight instrumentation.
fn compile(clang: &Path, target: &str, c: &Path, out: &Path) {
    let target = format!("--target={target}");
    let args: Vec<&OsStr> = [
        target.as_str(),
        "-O1",
        "-fprofile-generate",
        "-mllvm",
        "-profile-correlate=binary",
        "-c",
    ]
    .into_iter()
    .map(OsStr::new)
    .chain([c.as_os_str(), OsStr::new("-o"), out.as_os_str()])
    .collect();
    ok(run(clang, &args), &format!("clang-19 {target}"));
}

/// The COFF object, PE image, Mach-O object and Mach-O dylib, with the format each error
/// must name; the linked ones only if the linker is installed.
fn foreign_binaries(dir: &Path, test: &str) -> Option<Vec<(PathBuf, &'static str)>> {
    let clang = tool("clang-19", test)?;
    let c = dir.join("f.c");
    std::fs::write(&c, SRC).unwrap();
    let obj = dir.join("f.obj");
    let o = dir.join("f.o");
    compile(&clang, "x86_64-pc-windows-msvc", &c, &obj);
    compile(&clang, "x86_64-apple-macosx11", &c, &o);
    let mut out = vec![(obj.clone(), "COFF"), (o.clone(), "Mach-O")];
    if let Some(link) = tool("lld-link-19", test) {
        let exe = dir.join("f.exe");
        let to = format!("/out:{}", exe.display());
        // No Windows SDK: no C library, and the profile runtime's hook left undefined.
        let args: Vec<&OsStr> = ["/nodefaultlib", "/entry:entry", "/subsystem:console"]
            .into_iter()
            .chain(["/force:unresolved", to.as_str()])
            .map(OsStr::new)
            .chain([obj.as_os_str()])
            .collect();
        ok(run(&link, &args), "lld-link-19");
        out.push((exe, "PE/COFF"));
    }
    if let Some(ld64) = tool("ld64.lld-19", test) {
        let dylib = dir.join("f.dylib");
        let args: Vec<&OsStr> = ["-arch", "x86_64", "-platform_version", "macos", "11.0"]
            .into_iter()
            .chain(["11.0", "-dylib", "-undefined", "dynamic_lookup", "-o"])
            .map(OsStr::new)
            .chain([dylib.as_os_str(), o.as_os_str()])
            .collect();
        ok(run(&ld64, &args), "ld64.lld-19");
        out.push((dylib, "Mach-O"));
    }
    Some(out)
}

/// The raw profile of a lightweight ELF build (a recording of `testdata/correlate`).
fn lightweight_run(dir: &Path) -> PathBuf {
    let gz = root().join("testdata/correlate/run-pie-1.profraw.gz");
    let mut bytes = Vec::new();
    let mut d = flate2::read::GzDecoder::new(std::fs::File::open(gz).unwrap());
    std::io::Read::read_to_end(&mut d, &mut bytes).unwrap();
    let raw = dir.join("run.profraw");
    std::fs::write(&raw, bytes).unwrap();
    raw
}

#[test]
fn coff_and_macho_binaries_are_refused_naming_the_format() {
    let test = "coff_and_macho_binaries_are_refused_naming_the_format";
    let d = tempdir();
    let Some(binaries) = foreign_binaries(d.path(), test) else {
        return;
    };
    let raw = lightweight_run(d.path());
    let out = d.path().join("out.profdata");
    let refused = |args: &[&OsStr]| {
        let o = run_ours(args);
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    // The exit code of the other refusals of a binary: a file that is no object file.
    let (usual, _) = refused(&[
        OsStr::new("--binary-file"),
        raw.as_os_str(),
        raw.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
    ]);
    assert_eq!(usual, Some(2));
    for (binary, format) in &binaries {
        for option in ["--binary-file", "--debug-info"] {
            let flag = format!("{option}={}", binary.display());
            let (code, err) = refused(&[
                OsStr::new(&flag),
                raw.as_os_str(),
                OsStr::new("-o"),
                out.as_os_str(),
            ]);
            assert_eq!(code, usual, "{flag}: {err}");
            let named = format!("{}: a {format}", binary.display());
            assert!(
                err.contains(&named) && err.contains("ELF only"),
                "{flag}: {named:?} not in {err}"
            );
        }
        let (code, err) = refused(&[
            OsStr::new("--binary-for"),
            OsStr::new("*.profraw"),
            binary.as_os_str(),
            raw.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ]);
        assert_eq!(code, usual, "--binary-for: {err}");
        assert!(
            err.contains(format) && err.contains(binary.to_str().unwrap()),
            "{err}"
        );
        let flag = format!("--debug-info={}", binary.display());
        let (code, err) = refused(&[OsStr::new("show"), OsStr::new(&flag)]);
        assert_eq!(code, usual, "show {flag}: {err}");
        assert!(err.contains(format), "show {flag}: {err}");
    }
    assert!(!out.exists(), "no output is written");
}
