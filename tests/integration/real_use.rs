//! Our profiles used by real compilers: clang-19 and clang-14 (`-fprofile-use`) and rustc
//! (`-Cprofile-use`) build the profiled program with no profile warnings, and the profile is
//! really applied (branch weights appear in the IR).

use std::path::Path;
use std::process::Command;

use crate::common::*;

fn run_in(dir: &Path, prog: &Path, args: &[&str], profile_file: &str) {
    let out = Command::new(prog)
        .args(args)
        .current_dir(dir)
        .env("LLVM_PROFILE_FILE", profile_file)
        .output()
        .unwrap();
    assert_ok(&out, &format!("run {}", prog.display()));
}

/// Builds testdata/src/basic.c with `clang -fprofile-generate`, runs it twice, merges the two
/// raw profiles with pgo-merge `extra` options, and rebuilds with `-fprofile-use`.
fn clang_round_trip(clang_name: &str, extra: &[&str]) {
    let test = format!("real use: {clang_name} -fprofile-use");
    let Some(clang) = tool(clang_name, &test) else {
        return;
    };
    let dir = tempdir();
    let d = dir.path();
    let src = root().join("testdata/src/basic.c");
    let instrumented = d.join("basic-instrumented");
    let out = Command::new(&clang)
        .args(["-O2", "-fprofile-generate"])
        .arg(&src)
        .arg("-o")
        .arg(&instrumented)
        .output()
        .unwrap();
    assert_ok(&out, "instrumented build");
    run_in(d, &instrumented, &["10", "alpha"], "run1.profraw");
    run_in(
        d,
        &instrumented,
        &["37", "hello-world", "2024", "ouija"],
        "run2.profraw",
    );
    let prof = d.join("ours.profdata");
    let mut args: Vec<&std::ffi::OsStr> = extra.iter().map(|s| s.as_ref()).collect();
    let r1 = d.join("run1.profraw");
    let r2 = d.join("run2.profraw");
    args.extend([
        r1.as_os_str(),
        r2.as_os_str(),
        "-o".as_ref(),
        prof.as_os_str(),
    ]);
    assert_ok(&run_ours(&args), "pgo-merge");

    let ll = d.join("basic.ll");
    let use_flag = format!("-fprofile-use={}", prof.display());
    let warn = [
        "-Wprofile-instr-out-of-date",
        "-Wprofile-instr-unprofiled",
        "-Wprofile-instr-missing",
    ];
    let out = Command::new(&clang)
        .args(["-O2", "-S", "-emit-llvm", &use_flag])
        .args(warn)
        .arg(&src)
        .arg("-o")
        .arg(&ll)
        .output()
        .unwrap();
    assert_ok(&out, "clang -fprofile-use");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.trim().is_empty(),
        "{clang_name} printed diagnostics with our profile:\n{stderr}"
    );
    let ir = std::fs::read_to_string(&ll).unwrap();
    assert!(
        ir.contains("branch_weights"),
        "{clang_name}: no branch weights, the profile was not applied"
    );
    assert!(
        ir.contains("function_entry_count"),
        "{clang_name}: no entry counts, the profile was not applied"
    );
    // And the optimised program still links and runs.
    let exe = d.join("basic-opt");
    let out = Command::new(&clang)
        .args(["-O2", &use_flag])
        .args(warn)
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert_ok(&out, "clang -fprofile-use link");
    assert!(String::from_utf8_lossy(&out.stderr).trim().is_empty());
    run_in(d, &exe, &["3", "x"], "unused.profraw");

    // Negative control: the same profile with a changed `main` must make clang warn, so the
    // silence above means something.
    let changed = d.join("basic-changed.c");
    let text = std::fs::read_to_string(&src).unwrap().replacen(
        "int main(int argc, char **argv)\n{",
        "static volatile int pgo_merge_extra;\nint main(int argc, char **argv)\n{\n    if (pgo_merge_extra) pgo_merge_extra++;",
        1,
    );
    assert!(
        text.contains("pgo_merge_extra++"),
        "basic.c changed shape; update the control"
    );
    std::fs::write(&changed, text).unwrap();
    let out = Command::new(&clang)
        .args(["-O2", "-S", "-emit-llvm", &use_flag])
        .args(warn)
        .arg(&changed)
        .arg("-o")
        .arg(d.join("changed.ll"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("hash mismatch") || stderr.contains("out of date"),
        "{clang_name} did not warn about a changed function:\n{stderr}"
    );
}

#[test]
fn clang19_uses_our_profile() {
    clang_round_trip("clang-19", &["--target-llvm", "19"]);
}

#[test]
fn clang14_uses_our_profile() {
    clang_round_trip("clang-14", &["--target-llvm", "14"]);
}

#[test]
fn rustc_uses_our_profile() {
    let test = "real use: rustc -Cprofile-use";
    let Some(rustc) = tool("rustc", test) else {
        return;
    };
    let dir = tempdir();
    let d = dir.path();
    let src = root().join("testdata/src/rust/pgo.rs");
    let instrumented = d.join("pgo-instrumented");
    let data = d.join("pgo-data");
    let out = Command::new(&rustc)
        .args(["-O", "--edition=2021", "-Ccodegen-units=1"])
        .arg(format!("-Cprofile-generate={}", data.display()))
        .arg(&src)
        .arg("-o")
        .arg(&instrumented)
        .output()
        .unwrap();
    assert_ok(&out, "rustc -Cprofile-generate");
    for args in [
        &["5"][..],
        &["9", "circle", "rect", "tri", "rect", "dot"][..],
    ] {
        let out = Command::new(&instrumented)
            .args(args)
            .current_dir(d)
            .output()
            .unwrap();
        assert_ok(&out, "run instrumented rust program");
    }
    let prof = d.join("ours.profdata");
    // The directory is walked for .profraw files, as `cargo pgo` passes it.
    assert_ok(
        &run_ours([data.as_os_str(), "-o".as_ref(), prof.as_os_str()]),
        "pgo-merge",
    );
    let ll = d.join("pgo.ll");
    let out = Command::new(&rustc)
        .args(["-O", "--edition=2021", "-Ccodegen-units=1"])
        .arg(format!(
            "--emit=llvm-ir={},link={}",
            ll.display(),
            d.join("pgo-opt").display()
        ))
        .arg(format!("-Cprofile-use={}", prof.display()))
        .arg("-Cllvm-args=-pgo-warn-missing-function")
        .arg(&src)
        .output()
        .unwrap();
    assert_ok(&out, "rustc -Cprofile-use");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.trim().is_empty(),
        "rustc printed diagnostics with our profile:\n{stderr}"
    );
    let ir = std::fs::read_to_string(&ll).unwrap();
    assert!(
        ir.contains("branch_weights"),
        "rustc: no branch weights, the profile was not applied"
    );

    // Negative control: a changed `main` must make rustc warn with the same profile.
    let changed = d.join("changed.rs");
    let text = std::fs::read_to_string(&src).unwrap().replacen(
        "fn main() {",
        "fn main() {\n    if std::env::args().count() > 100 { println!(\"many\"); }",
        1,
    );
    std::fs::write(&changed, text).unwrap();
    let out = Command::new(&rustc)
        .args(["-O", "--edition=2021", "-Ccodegen-units=1"])
        .arg(format!("-Cprofile-use={}", prof.display()))
        .arg("-Cllvm-args=-pgo-warn-missing-function")
        .arg(&changed)
        .arg("-o")
        .arg(d.join("changed"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning"),
        "rustc did not warn about a changed function:\n{stderr}"
    );
}

/// The C++ vtable program of testdata (`testdata/src/vtable.cpp`), profiled by clang 22 with
/// vtable value profiling (testdata/profraw/clang22/vtable-run*.profraw, made by
/// testdata/regenerate.sh), merged for LLVM 14 (vtable sites left out, with a warning) and
/// for LLVM 19 (vtable sites kept), is used by clang-14 and clang-19 with no profile warnings;
/// clang-19 attaches the vtable value profiles (`!"VP", i32 2`).
fn clang_uses_vtable_profile(clang_name: &str, target: &str) {
    let test = format!("real use: {clang_name} -fprofile-use, C++ vtable profile");
    let Some(clang) = tool(clang_name, &test) else {
        return;
    };
    let dir = tempdir();
    let d = dir.path();
    let prof = d.join("vtable.profdata");
    let (r1, r2) = (
        raw("clang22/vtable-run1.profraw"),
        raw("clang22/vtable-run2.profraw"),
    );
    let out = run_ours([
        "--target-llvm".as_ref(),
        target.as_ref(),
        r1.as_os_str(),
        r2.as_os_str(),
        "-o".as_ref(),
        prof.as_os_str(),
    ]);
    assert_ok(&out, "pgo-merge");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.contains("cannot hold vtable value profiles"),
        target == "14",
        "{stderr}"
    );
    let ll = d.join("vtable.ll");
    let out = Command::new(&clang)
        .args(["-x", "c++", "-O2", "-S", "-emit-llvm"])
        .args(["-fno-rtti", "-fno-exceptions", "-nostdinc++", "-nostdlib++"])
        .arg(format!("-fprofile-use={}", prof.display()))
        .args([
            "-Wprofile-instr-out-of-date",
            "-Wprofile-instr-unprofiled",
            "-Wprofile-instr-missing",
        ])
        .arg(root().join("testdata/src/vtable.cpp"))
        .arg("-o")
        .arg(&ll)
        .output()
        .unwrap();
    assert_ok(&out, &format!("{clang_name} -fprofile-use"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.trim().is_empty(),
        "{clang_name} printed diagnostics with our profile:\n{stderr}"
    );
    let ir = std::fs::read_to_string(&ll).unwrap();
    assert!(
        ir.contains("branch_weights"),
        "{clang_name}: no branch weights, the profile was not applied"
    );
    assert_eq!(
        ir.contains("!\"VP\", i32 2"),
        target == "19",
        "{clang_name}: vtable value profiles attached only for LLVM 19"
    );
}

#[test]
fn clang14_uses_our_vtable_profile() {
    clang_uses_vtable_profile("clang-14", "14");
}

#[test]
fn clang19_uses_our_vtable_profile() {
    clang_uses_vtable_profile("clang-19", "19");
}
