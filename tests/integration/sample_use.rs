//! Our merged sample profiles used by a real compiler: clang-19 `-fprofile-sample-use` on
//! the program the real profiles of testdata/sample/ were recorded from (`src/work.c`). The
//! same merge by us and by llvm-profdata-19 must give clang the same IR and the same
//! diagnostics (none), and the profile must change the IR (else nothing was tested).

use std::path::Path;
use std::process::Command;

use crate::common::{assert_ok, pgo_merge, root, tempdir, tool};

/// Compiles `work.c` to IR with `profile` (if any) at one fixed path: (IR, stderr).
fn compile(clang: &Path, dir: &Path, profile: Option<&[u8]>, probes: bool) -> (String, String) {
    let src = root().join("testdata/sample/src/work.c");
    let p = dir.join("use.prof");
    let ll = dir.join("work.ll");
    let mut c = Command::new(clang);
    c.args([
        "-O2",
        "-g",
        "-fdebug-info-for-profiling",
        "-S",
        "-emit-llvm",
    ]);
    if probes {
        c.arg("-fpseudo-probe-for-profiling");
    }
    if let Some(bytes) = profile {
        std::fs::write(&p, bytes).unwrap();
        c.arg(format!("-fprofile-sample-use={}", p.display()));
    }
    let out = c
        .arg("-o")
        .arg(&ll)
        .arg(&src)
        .output()
        .expect("run clang-19");
    assert_ok(&out, "clang-19 -fprofile-sample-use");
    (
        std::fs::read_to_string(&ll).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn clang_uses_merged(kind: &str, probes: bool) {
    let test = format!("real use: clang-19 -fprofile-sample-use, {kind} profile");
    let (Some(clang), Some(llvm)) = (tool("clang-19", &test), tool("llvm-profdata-19", &test))
    else {
        return;
    };
    let d = tempdir();
    let dir = d.path();
    let sample = root().join("testdata/sample");
    let text = sample.join(format!("real-{kind}.prof.txt"));
    let ext = sample.join(format!("real-{kind}.profgen.extbinary.afdo"));
    let (plain, plain_stderr) = compile(&clang, dir, None, probes);
    assert_eq!(
        plain_stderr, "",
        "clang-19 without a profile printed diagnostics"
    );
    for format in ["--extbinary", "--text", "--binary"] {
        if probes && format == "--binary" {
            // Neither tool writes probe-based profiles as `binary`.
            continue;
        }
        let what = format!("{kind} {format}");
        let merged = |prog: Command, name: &str| {
            let out_path = dir.join(name);
            let mut c = prog;
            c.args(["merge", "--sample", format])
                .arg(format!("--weighted-input=3,{}", text.display()))
                .arg(&ext)
                .arg("-o")
                .arg(&out_path);
            let out = c.output().expect("run the merge");
            assert_ok(&out, &format!("{what}: {name}"));
            std::fs::read(&out_path).unwrap()
        };
        let ours = merged(pgo_merge(), "ours.prof");
        let theirs = merged(Command::new(&llvm), "llvm.prof");
        let (ir_ours, err_ours) = compile(&clang, dir, Some(&ours), probes);
        let (ir_theirs, err_theirs) = compile(&clang, dir, Some(&theirs), probes);
        assert_eq!(
            err_ours, "",
            "{what}: clang-19 printed diagnostics with our profile"
        );
        assert_eq!(err_ours, err_theirs, "{what}: diagnostics differ");
        assert!(
            ir_ours == ir_theirs,
            "{what}: clang-19 made other IR from our profile than from llvm-profdata-19's"
        );
        assert!(
            ir_ours.contains("!\"ProfileFormat\", !\"SampleProfile\"")
                && ir_ours.contains("function_entry_count")
                && ir_ours != plain,
            "{what}: the profile was not applied"
        );
    }
}

#[test]
fn clang19_uses_our_merged_autofdo_profile_as_llvm_profdatas() {
    clang_uses_merged("autofdo", false);
}

#[test]
fn clang19_uses_our_merged_probe_profile_as_llvm_profdatas() {
    clang_uses_merged("probe", true);
}
