//! Gzip-compressed inputs: Bazel's coverage collection hands over raw profiles compressed.
//! Whatever the name, a compressed LLVM or sample profile is read as the profile it holds
//! (it used to be taken for a GraalVM profile and refused as "invalid JSON"); a compressed
//! GraalVM profile is still one; a damaged stream is an error naming the file.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::common::{root, run_ours, tempdir};

fn gzip_to(src: &Path, dst: &Path) {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut e, &std::fs::read(src).unwrap()).unwrap();
    std::fs::write(dst, e.finish().unwrap()).unwrap();
}

fn ok(args: &[&OsStr]) -> Vec<u8> {
    let o = run_ours(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

#[test]
fn compressed_llvm_profiles_read_as_what_they_hold() {
    let d = tempdir();
    let raw = root().join("testdata/profraw/clang19/ir-basic-run1.profraw");
    let other = root().join("testdata/profraw/clang19/ir-basic-run2.profraw");
    let indexed = root().join("testdata/profdata/clang19-ir-llvm19.profdata");
    let plain = d.path().join("plain.profdata");
    ok(&[
        raw.as_os_str(),
        other.as_os_str(),
        "-o".as_ref(),
        plain.as_os_str(),
    ]);
    // Under its own name, and under the plain format's name (as Bazel keeps it).
    for name in ["run2.profraw.gz", "run2.profraw"] {
        let gz = d.path().join(name);
        gzip_to(&other, &gz);
        let out = d.path().join(format!("{name}.profdata"));
        ok(&[
            raw.as_os_str(),
            gz.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
            "-j2".as_ref(),
        ]);
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(&plain).unwrap(),
            "{name}"
        );
        let shown = ok(&["show".as_ref(), "--counts".as_ref(), gz.as_os_str()]);
        assert_eq!(
            shown,
            ok(&["show".as_ref(), "--counts".as_ref(), other.as_os_str()])
        );
    }
    let gz: PathBuf = d.path().join("indexed.profdata.gz");
    gzip_to(&indexed, &gz);
    let out = d.path().join("from-indexed.profdata");
    let again = d.path().join("indexed-again.profdata");
    ok(&[gz.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    ok(&[indexed.as_os_str(), "-o".as_ref(), again.as_os_str()]);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
    let overlap = ok(&["overlap".as_ref(), gz.as_os_str(), indexed.as_os_str()]);
    assert!(
        String::from_utf8_lossy(&overlap).contains("100"),
        "overlap with itself"
    );
}

#[test]
fn compressed_graalvm_profiles_stay_graalvm_profiles() {
    let d = tempdir();
    let gz = d.path().join("small.iprof.gz");
    gzip_to(&root().join("testdata/iprof/small-v1.1.0.iprof"), &gz);
    let shown = ok(&["show".as_ref(), gz.as_os_str()]);
    assert!(String::from_utf8_lossy(&shown).starts_with("iprof format version"));
    let out = d.path().join("out.iprof");
    ok(&[gz.as_os_str(), "-o".as_ref(), out.as_os_str()]);
}

#[test]
fn a_damaged_stream_names_the_file() {
    let d = tempdir();
    let gz = d.path().join("cut.profraw");
    gzip_to(
        &root().join("testdata/profraw/clang19/ir-basic-run1.profraw"),
        &gz,
    );
    let bytes = std::fs::read(&gz).unwrap();
    std::fs::write(&gz, &bytes[..bytes.len() / 2]).unwrap();
    let out = d.path().join("out.profdata");
    let o = run_ours([gz.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("cut.profraw") && err.contains("gzip"), "{err}");
    assert!(!err.contains("JSON") && !err.contains("GraalVM"), "{err}");
    assert!(!out.exists());
}

#[test]
fn directory_walks_take_compressed_llvm_profiles_by_their_names() {
    let d = tempdir();
    let dir = d.path().join("profiles");
    std::fs::create_dir(&dir).unwrap();
    let raw = root().join("testdata/profraw/clang19/ir-basic-run1.profraw");
    let other = root().join("testdata/profraw/clang19/ir-basic-run2.profraw");
    std::fs::copy(&raw, dir.join("a.profraw")).unwrap();
    gzip_to(&other, &dir.join("b.profraw.gz"));
    // Compressed, but under a name no walk takes: left out.
    gzip_to(&other, &dir.join("c.bin.gz"));
    let plain = d.path().join("plain.profdata");
    ok(&[
        raw.as_os_str(),
        other.as_os_str(),
        "-o".as_ref(),
        plain.as_os_str(),
    ]);
    let walked = d.path().join("walked.profdata");
    ok(&[dir.as_os_str(), "-o".as_ref(), walked.as_os_str()]);
    assert_eq!(
        std::fs::read(&walked).unwrap(),
        std::fs::read(&plain).unwrap()
    );
    let listed = ok(&[
        "merge".as_ref(),
        "--dump-input-file-list".as_ref(),
        dir.as_os_str(),
    ]);
    let listed = String::from_utf8_lossy(&listed);
    assert!(listed.contains("b.profraw.gz"), "{listed}");
    assert!(!listed.contains("c.bin.gz"), "{listed}");
}
