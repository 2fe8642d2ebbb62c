//! Lightweight raw profiles (`-mllvm -profile-correlate=binary`, clang 18+): counters in the
//! profile, data records and names in the binary. Recordings in `testdata/correlate/` (made
//! by its `regenerate.sh` with clang-19): the merge with `--binary-file` is byte-identical to
//! llvm-profdata's; several binaries in one merge route each profile by build ID, as
//! llvm-profdata-22 does only through a `.build-id` tree; a profile of another binary is an
//! error, where llvm-profdata writes other functions' counts.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::common::{root, run, run_ours, succeeded as ok, tempdir, tool};

/// Every recording of `testdata/correlate`, inflated into `dir`.
fn recordings(dir: &Path) -> PathBuf {
    let src = root().join("testdata/correlate");
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "gz") {
            let mut out = Vec::new();
            let mut d = flate2::read::GzDecoder::new(std::fs::File::open(&p).unwrap());
            std::io::Read::read_to_end(&mut d, &mut out).unwrap();
            std::fs::write(dir.join(p.file_stem().unwrap()), out).unwrap();
        }
    }
    dir.to_path_buf()
}

fn os(p: &Path) -> &OsStr {
    p.as_os_str()
}

/// llvm-profdata-N and our drop-in called by that name write the same bytes (indexed and
/// text) for the runs of one binary, also with the binary stripped of its symbols.
#[test]
fn lightweight_profiles_merge_as_llvm_profdata_merges_them() {
    let d = tempdir();
    let r = recordings(d.path());
    let runs = [r.join("run-pie-1.profraw"), r.join("run-pie-2.profraw")];
    for v in [19, 22] {
        let name = format!("llvm-profdata-{v}");
        let Some(llvm) = tool(
            &name,
            "lightweight_profiles_merge_as_llvm_profdata_merges_them",
        ) else {
            continue;
        };
        let link = d.path().join(&name);
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).unwrap();
        for (binary, text) in [
            ("exe-pie-O2", false),
            ("exe-pie-O2.stripped", false),
            ("exe-pie-O2", true),
        ] {
            let flag = format!("--binary-file={}", r.join(binary).display());
            let theirs = d.path().join(format!("theirs-{v}"));
            let ours = d.path().join(format!("ours-{v}"));
            for (exe, out) in [(&llvm, &theirs), (&link, &ours)] {
                let mut args: Vec<&OsStr> = vec!["merge".as_ref(), flag.as_ref()];
                if text {
                    args.push("--text".as_ref());
                }
                args.extend(runs.iter().map(|p| os(p)));
                args.extend(["-o".as_ref(), os(out)]);
                ok(run(exe, &args), &format!("{} {binary}", exe.display()));
            }
            assert_eq!(
                std::fs::read(&ours).unwrap(),
                std::fs::read(&theirs).unwrap(),
                "{name} merge {flag} (text: {text}): our drop-in writes other bytes"
            );
        }
    }
}

/// The offsets where the raw profiles of a file start (each begins with the first's magic).
fn profile_starts(bytes: &[u8]) -> Vec<usize> {
    let magic = &bytes[..8];
    let mut v: Vec<usize> = (0..bytes.len() - 7)
        .step_by(8)
        .filter(|&i| &bytes[i..i + 8] == magic)
        .collect();
    v.dedup();
    v
}

/// The GNU build ID of an ELF file, in hex.
fn build_id(path: &Path) -> String {
    use object::Object;
    let bytes = std::fs::read(path).unwrap();
    let file = object::File::parse(&*bytes).unwrap();
    let id = file.build_id().unwrap().expect("a build ID");
    id.iter().map(|b| format!("{b:02x}")).collect()
}

/// Several binaries in one merge, each raw profile (each profile of a file an executable and
/// its shared library both wrote) routed to its binary by build ID: the same bytes as
/// llvm-profdata-22 writes through a `.build-id` tree, which needs the two-profile files
/// split first ("multiple build IDs in a profile" otherwise).
#[test]
fn several_binaries_in_one_merge_equal_a_build_id_tree() {
    let test = "several_binaries_in_one_merge_equal_a_build_id_tree";
    let Some(llvm) = tool("llvm-profdata-22", test) else {
        return;
    };
    let d = tempdir();
    let r = recordings(d.path());
    let binaries = ["exe-pie-O2", "exe-nopie-O0", "libshape.so"];
    let tree = d.path().join("tree");
    for b in binaries {
        let id = build_id(&r.join(b));
        let dir = tree.join(".build-id").join(&id[..2]);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(r.join(b), dir.join(format!("{}.debug", &id[2..]))).unwrap();
    }
    let runs = ["run-pie-1", "run-nopie-1", "run-pie-2", "run-nopie-2"];
    let mut split = Vec::new();
    for run_name in runs {
        let bytes = std::fs::read(r.join(format!("{run_name}.profraw"))).unwrap();
        let mut starts = profile_starts(&bytes);
        starts.push(bytes.len());
        for (k, w) in starts.windows(2).enumerate() {
            let p = d.path().join(format!("{run_name}.part{k}.profraw"));
            std::fs::write(&p, &bytes[w[0]..w[1]]).unwrap();
            split.push(p);
        }
    }
    assert_eq!(split.len(), 6, "the non-PIE runs hold two profiles each");
    let theirs = d.path().join("theirs.profdata");
    let dir_flag = format!("--debug-file-directory={}", tree.display());
    let mut args: Vec<&OsStr> = vec![
        "merge".as_ref(),
        "--correlate=binary".as_ref(),
        dir_flag.as_ref(),
    ];
    args.extend(split.iter().map(|p| os(p)));
    args.extend(["-o".as_ref(), os(&theirs)]);
    ok(
        run(&llvm, &args),
        "llvm-profdata-22 through a .build-id tree",
    );

    let ours = d.path().join("ours.profdata");
    let flags: Vec<String> = binaries
        .iter()
        .map(|b| format!("--binary-file={}", r.join(b).display()))
        .collect();
    let inputs: Vec<PathBuf> = runs
        .iter()
        .map(|n| r.join(format!("{n}.profraw")))
        .collect();
    let mut args: Vec<&OsStr> = vec!["--target-llvm".as_ref(), "22".as_ref()];
    args.extend(flags.iter().map(OsStr::new));
    args.extend(inputs.iter().map(|p| os(p)));
    args.extend(["-o".as_ref(), os(&ours)]);
    ok(run_ours(&args), "pgo-merge with three binaries");
    assert_eq!(
        std::fs::read(&ours).unwrap(),
        std::fs::read(&theirs).unwrap(),
        "three binaries in one merge: other bytes than llvm-profdata-22's .build-id merge"
    );

    // The same tree, looked up by our drop-in called as llvm-profdata-22 (split files, as
    // llvm-profdata needs them) and natively (whole files).
    let link = d.path().join("llvm-profdata-22");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).unwrap();
    let dropin = d.path().join("dropin.profdata");
    let mut args: Vec<&OsStr> = vec![
        "merge".as_ref(),
        "--correlate=binary".as_ref(),
        dir_flag.as_ref(),
    ];
    args.extend(split.iter().map(|p| os(p)));
    args.extend(["-o".as_ref(), os(&dropin)]);
    ok(run(&link, &args), "our drop-in through a .build-id tree");
    let native = d.path().join("native.profdata");
    let mut args: Vec<&OsStr> = vec![
        "--target-llvm".as_ref(),
        "22".as_ref(),
        "--correlate=binary".as_ref(),
        dir_flag.as_ref(),
    ];
    args.extend(inputs.iter().map(|p| os(p)));
    args.extend(["-o".as_ref(), os(&native)]);
    ok(run_ours(&args), "pgo-merge through a .build-id tree");
    for (what, out) in [("drop-in", &dropin), ("native", &native)] {
        assert_eq!(
            std::fs::read(out).unwrap(),
            std::fs::read(&theirs).unwrap(),
            "{what} merge through the .build-id tree: other bytes than llvm-profdata-22's"
        );
    }
    // A tree that lacks the binary: the error names the tree.
    let empty = d.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let flag = format!("--debug-file-directory={}", empty.display());
    let o = run_ours([
        "--correlate=binary".as_ref(),
        OsStr::new(&flag),
        os(&inputs[0]),
        "-o".as_ref(),
        os(&native),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains(empty.to_str().unwrap()),
        "{err}"
    );
}

/// A profile of another binary: llvm-profdata-22 exits 0 and writes the named binary's
/// functions with counts that are not theirs; we refuse it, naming both build IDs, and under
/// `--failure-mode=warn` skip it and merge the rest.
#[test]
fn a_profile_of_another_binary_is_an_error_naming_both_build_ids() {
    let d = tempdir();
    let r = recordings(d.path());
    let wrong = format!("--binary-file={}", r.join("exe-nopie-O0").display());
    let run1 = r.join("run-pie-1.profraw");
    let out = d.path().join("out.profdata");
    let o = run_ours([wrong.as_ref(), os(&run1), "-o".as_ref(), os(&out)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let (theirs_id, ours_id) = (
        build_id(&r.join("exe-pie-O2")),
        build_id(&r.join("exe-nopie-O0")),
    );
    assert!(
        err.contains("run-pie-1.profraw") && err.contains(&theirs_id) && err.contains(&ours_id),
        "the error names the file and both build IDs: {err}"
    );
    assert!(!out.exists(), "no output after the error");

    // Skipped under --failure-mode=warn; the input of the right binary is merged.
    let right = format!("--binary-file={}", r.join("exe-nopie-O0").display());
    let run2 = r.join("run-nopie-2.profraw");
    let lib = format!("--binary-file={}", r.join("libshape.so").display());
    let o = run_ours([
        right.as_ref(),
        lib.as_ref(),
        "--failure-mode=warn".as_ref(),
        os(&run1),
        os(&run2),
        "-o".as_ref(),
        os(&out),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("run-pie-1.profraw") && err.contains(&theirs_id),
        "{err}"
    );

    let Some(llvm) = tool(
        "llvm-profdata-22",
        "a_profile_of_another_binary_is_an_error_naming_both_build_ids",
    ) else {
        return;
    };
    let theirs = d.path().join("theirs.profdata");
    let o = run(
        &llvm,
        &[
            "merge".as_ref(),
            wrong.as_ref(),
            os(&run1),
            "-o".as_ref(),
            os(&theirs),
        ],
    );
    assert!(
        o.status.success(),
        "llvm-profdata-22 no longer accepts a binary of another build: update the docs ({})",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// What is not a binary built for correlation is refused, naming the file and what is
/// missing; a binary whose data records point outside its counters is an error naming the
/// record's offset.
#[test]
fn binaries_that_cannot_correlate_are_refused_by_name() {
    let d = tempdir();
    let r = recordings(d.path());
    let run1 = r.join("run-pie-1.profraw");
    let out = d.path().join("out.profdata");
    let merge = |binary: &Path| {
        let flag = format!("--binary-file={}", binary.display());
        let o = run_ours([flag.as_ref(), os(&run1), "-o".as_ref(), os(&out)]);
        assert!(!o.status.success() && o.status.code() != Some(101));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let err = merge(&run1);
    assert!(
        err.contains("run-pie-1.profraw") && err.contains("not an object file"),
        "{err}"
    );
    // An ELF file of an ordinary build: no __llvm_covdata.
    let plain = root().join("testdata/correlate/prog.c");
    assert!(merge(&plain).contains("not an object file"));
    let Some(cc) = tool("cc", "binaries_that_cannot_correlate_are_refused_by_name") else {
        return;
    };
    let src = d.path().join("x.c");
    std::fs::write(&src, "int main(void) { return 0; }\n").unwrap();
    let exe = d.path().join("x");
    ok(run(&cc, &[os(&src), "-o".as_ref(), os(&exe)]), "cc");
    let err = merge(&exe);
    assert!(
        err.contains("profile-correlate=binary") && err.contains(exe.to_str().unwrap()),
        "{err}"
    );

    // The first data record's counter pointer moved past the counters section.
    let mut bytes = std::fs::read(r.join("exe-pie-O2")).unwrap();
    let (at, end) = {
        use object::{Object, ObjectSection};
        let f = object::File::parse(&*bytes).unwrap();
        let cov = f.section_by_name("__llvm_covdata").unwrap();
        let cnts = f.section_by_name("__llvm_prf_cnts").unwrap();
        (
            cov.file_range().unwrap().0 as usize,
            cnts.address() + cnts.size(),
        )
    };
    bytes[at + 16..at + 24].copy_from_slice(&(end + 64).to_le_bytes());
    let bad = d.path().join("bad-exe");
    std::fs::write(&bad, bytes).unwrap();
    let err = merge(&bad);
    assert!(
        err.contains("__llvm_covdata record 0") && err.contains("outside __llvm_prf_cnts"),
        "{err}"
    );
}

/// Debug-info correlation (clang-14's `-debug-info-correlate`; clang-19's
/// `-profile-correlate=debug-info` with DWARF 4 and with zlib-compressed DWARF 5), a C++
/// program and 32-bit builds in both modes: our drop-in called as llvm-profdata-N writes
/// llvm-profdata-N's bytes, for each release that reads the raw version (14 reads clang-14's,
/// 19 and 22 clang-19's; 23 reads only its own).
#[test]
fn debug_info_cxx_and_32_bit_builds_merge_as_llvm_profdata_merges() {
    let test = "debug_info_cxx_and_32_bit_builds_merge_as_llvm_profdata_merges";
    let d = tempdir();
    let r = recordings(d.path());
    let clang19 = &[19, 22][..];
    for (flag, binary, runs, releases) in [
        ("--debug-info", "dbg14-O0", "dbg-dbg14-O0", &[14][..]),
        (
            "--debug-info",
            "dbg19-O2-dwarf4",
            "dbg-dbg19-O2-dwarf4",
            clang19,
        ),
        ("--debug-info", "dbg19-O1-gz", "dbg-dbg19-O1-gz", clang19),
        ("--binary-file", "cxx-bin-O2", "two-cxx-bin-O2", clang19),
        ("--debug-info", "cxx-dbg-O0", "two-cxx-dbg-O0", clang19),
        ("--binary-file", "m32-bin-O1", "two-m32-bin-O1", clang19),
        ("--debug-info", "m32-dbg-O1", "two-m32-dbg-O1", clang19),
    ] {
        let runs = [1, 2].map(|k| r.join(format!("{runs}-{k}.profraw")));
        for &v in releases {
            let name = format!("llvm-profdata-{v}");
            let Some(llvm) = tool(&name, test) else {
                continue;
            };
            let link = d.path().join(&name);
            if !link.exists() {
                std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).unwrap();
            }
            let flag = format!("{flag}={}", r.join(binary).display());
            let outs = [d.path().join("theirs"), d.path().join("ours")];
            for (exe, out) in [(&llvm, &outs[0]), (&link, &outs[1])] {
                let mut args: Vec<&OsStr> = vec!["merge".as_ref(), flag.as_ref()];
                args.extend(runs.iter().map(|p| os(p)));
                args.extend(["-o".as_ref(), os(out)]);
                ok(run(exe, &args), &format!("{} {binary}", exe.display()));
            }
            assert_eq!(
                std::fs::read(&outs[1]).unwrap(),
                std::fs::read(&outs[0]).unwrap(),
                "{name} merge {flag}: our drop-in writes other bytes"
            );
        }
    }
}

/// Both modes and both compilers in one merge (clang-14 debug info, clang-19 debug info,
/// clang-19 binary correlation): the same records as llvm-profdata-22 merging what each
/// llvm-profdata wrote for its own part, which takes four runs of two releases.
#[test]
fn both_modes_and_both_compilers_merge_in_one_step() {
    let test = "both_modes_and_both_compilers_merge_in_one_step";
    let (Some(l14), Some(l22)) = (
        tool("llvm-profdata-14", test),
        tool("llvm-profdata-22", test),
    ) else {
        return;
    };
    let d = tempdir();
    let r = recordings(d.path());
    let j = |n: &str| r.join(n);
    let parts = [
        (&l14, "--debug-info", "dbg14-O0", "dbg-dbg14-O0-1.profraw"),
        (
            &l22,
            "--debug-info",
            "dbg19-O1-gz",
            "dbg-dbg19-O1-gz-1.profraw",
        ),
        (&l22, "--binary-file", "exe-pie-O2", "run-pie-1.profraw"),
    ];
    let mut indexed = Vec::new();
    for (k, (llvm, flag, binary, run_name)) in parts.iter().enumerate() {
        let out = d.path().join(format!("part{k}.profdata"));
        let flag = format!("{flag}={}", j(binary).display());
        ok(
            run(
                llvm,
                &[
                    "merge".as_ref(),
                    flag.as_ref(),
                    os(&j(run_name)),
                    "-o".as_ref(),
                    os(&out),
                ],
            ),
            binary,
        );
        indexed.push(out);
    }
    let theirs = d.path().join("theirs.profdata");
    let mut args: Vec<&OsStr> = vec!["merge".as_ref()];
    args.extend(indexed.iter().map(|p| os(p)));
    args.extend(["-o".as_ref(), os(&theirs)]);
    ok(run(&l22, &args), "llvm-profdata-22 merge of the parts");

    let ours = d.path().join("ours.profdata");
    let flags: Vec<String> = parts
        .iter()
        .map(|(_, flag, binary, _)| format!("{flag}={}", j(binary).display()))
        .collect();
    let mut args: Vec<&OsStr> = vec!["--target-llvm".as_ref(), "22".as_ref()];
    args.extend(flags.iter().map(OsStr::new));
    let runs: Vec<PathBuf> = parts.iter().map(|p| j(p.3)).collect();
    args.extend(runs.iter().map(|p| os(p)));
    args.extend(["-o".as_ref(), os(&ours)]);
    ok(run_ours(&args), "pgo-merge, one step");
    // llvm-profdata-14 writes index version 7, which has no binary IDs: the parts lose the
    // clang-14 profile's build ID, so the records are compared, as llvm-profdata shows them.
    crate::common::assert_same_show_except(
        &l22,
        &ours,
        &theirs,
        "both modes and compilers, one step",
        &["--binary-ids"],
    );
}

/// rustc's lightweight mode (`-Cllvm-args=-profile-correlate=binary`; value profiling off,
/// as its binaries crash at run time on indirect calls otherwise, as clang-19's do): a small
/// program built and run here, merged with its binary as llvm-profdata of rustc's own LLVM
/// major merges it.
#[test]
fn rustc_lightweight_builds_merge_as_llvm_profdata_merges() {
    let test = "rustc_lightweight_builds_merge_as_llvm_profdata_merges";
    let Some(rustc) = tool("rustc", test) else {
        return;
    };
    let version = String::from_utf8_lossy(&run(&rustc, &["-vV".as_ref()]).stdout).into_owned();
    let Some(major) = version
        .lines()
        .find_map(|l| l.strip_prefix("LLVM version: "))
        .and_then(|v| v.split('.').next())
    else {
        panic!("rustc -vV names no LLVM version: {version}");
    };
    // rustc's own LLVM major, else llvm-profdata-22, which reads the raw version (10) of
    // LLVM 19 to 22 and correlates their builds.
    let own = format!("llvm-profdata-{major}");
    let on_path = |name: &str| {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    };
    let release = match major.parse::<u32>() {
        Ok(19..=21) if on_path(&own).is_none() => "22".to_string(),
        _ => major.to_string(),
    };
    let Some(llvm) = tool(&format!("llvm-profdata-{release}"), test) else {
        return;
    };
    let d = tempdir();
    let src = d.path().join("main.rs");
    std::fs::write(
        &src,
        "fn fib(n: u64) -> u64 { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }\n\
         fn main() {\n    let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10);\n    println!(\"{}\", fib(n));\n}\n",
    )
    .unwrap();
    let exe = d.path().join("fib");
    let generate = format!("-Cprofile-generate={}", d.path().join("prof").display());
    let args: Vec<&OsStr> = vec![
        "-O".as_ref(),
        generate.as_ref(),
        "-Cllvm-args=-profile-correlate=binary".as_ref(),
        "-Cllvm-args=-disable-vp=true".as_ref(),
        "-Clink-arg=-Wl,--build-id".as_ref(),
        os(&src),
        "-o".as_ref(),
        os(&exe),
    ];
    ok(run(&rustc, &args), "rustc, lightweight");
    ok(run(&exe, &["12".as_ref()]), "the rustc-built program");
    let raws = crate::common::files_with_extension(&d.path().join("prof"), "profraw");
    assert_eq!(raws.len(), 1, "one raw profile written");
    let flag = format!("--binary-file={}", exe.display());
    let (theirs, ours) = (d.path().join("theirs"), d.path().join("ours"));
    ok(
        run(
            &llvm,
            &[
                "merge".as_ref(),
                flag.as_ref(),
                os(&raws[0]),
                "-o".as_ref(),
                os(&theirs),
            ],
        ),
        "llvm-profdata",
    );
    let target = release.clone();
    ok(
        run_ours([
            "--target-llvm".as_ref(),
            OsStr::new(&target),
            flag.as_ref(),
            os(&raws[0]),
            "-o".as_ref(),
            os(&ours),
        ]),
        "pgo-merge",
    );
    assert_eq!(
        std::fs::read(&ours).unwrap(),
        std::fs::read(&theirs).unwrap(),
        "rustc (LLVM {major}) lightweight build: other bytes than llvm-profdata-{release}'s"
    );
}

/// `show --debug-info`: the number of functions, the names (`--show-prof-sym-list`: sorted
/// from LLVM 19, LLVM 14's `StringMap` order before), the counters section's size
/// (`--detailed-summary`) and the probes in LLVM's YAML (`--show-format=yaml`, LLVM 19+),
/// exactly as llvm-profdata-N prints them, by our drop-in called by that name.
#[test]
fn show_debug_info_prints_what_llvm_profdata_prints() {
    let test = "show_debug_info_prints_what_llvm_profdata_prints";
    let d = tempdir();
    let r = recordings(d.path());
    let text: &[&[&str]] = &[&[], &["--show-prof-sym-list", "--detailed-summary"]];
    let all: &[&[&str]] = &[
        &[],
        &["--show-prof-sym-list", "--detailed-summary"],
        &["--show-format=yaml"],
    ];
    for (binary, release, views) in [
        ("dbg14-O0", 14, text),
        ("dbg19-O1-gz", 19, all),
        ("dbg19-O2-dwarf4", 22, all),
        ("cxx-dbg-O0", 19, all),
        ("cxx-dbg-O0", 22, all),
        ("m32-dbg-O1", 22, all),
        ("c22-dbg-O1", 22, all),
        ("c22-dbg-O1", 19, all),
        ("c23-dbg-O1", 23, all),
        ("mcdc23-dbg", 23, all),
        ("mcdc23-inl-dbg", 23, all),
        ("mcdc19-dbg", 19, all),
        ("mcdc19-dbg", 22, all),
    ] {
        let name = format!("llvm-profdata-{release}");
        let Some(llvm) = tool(&name, test) else {
            continue;
        };
        let link = d.path().join(&name);
        if !link.exists() {
            std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).unwrap();
        }
        let flag = format!("--debug-info={}", r.join(binary).display());
        for view in views {
            let mut args: Vec<&OsStr> = vec!["show".as_ref(), flag.as_ref()];
            args.extend(view.iter().map(OsStr::new));
            let theirs = ok(run(&llvm, &args), &name).stdout;
            let ours = ok(run(&link, &args), "our drop-in").stdout;
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs),
                "{name} show {flag} {view:?}"
            );
        }
    }
}

/// `exe merge [flag] RUNS... -o OUT` written indexed and as text: both outputs' bytes, or
/// the failure's stderr.
fn merge_both(
    exe: &Path,
    flag: Option<&str>,
    runs: &[PathBuf],
    dir: &Path,
) -> Result<(Vec<u8>, Vec<u8>), String> {
    let mut outs = Vec::new();
    for text in [false, true] {
        let out = dir.join(if text {
            "merged.proftext"
        } else {
            "merged.profdata"
        });
        let mut args: Vec<&OsStr> = vec!["merge".as_ref()];
        args.extend(flag.map(OsStr::new));
        if text {
            args.push("--text".as_ref());
        }
        args.extend(runs.iter().map(|p| os(p)));
        args.extend(["-o".as_ref(), os(&out)]);
        let o = run(exe, &args);
        if !o.status.success() {
            return Err(String::from_utf8_lossy(&o.stderr).into_owned());
        }
        outs.push(std::fs::read(&out).unwrap());
    }
    let text = outs.pop().unwrap();
    Ok((outs.pop().unwrap(), text))
}

/// The build ID in the binary-IDs section of a big-endian raw profile of version 10 (header
/// of 16 words, then the ID's length as a word, then the ID).
fn raw_v10_build_id(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    let magics: [&[u8]; 2] = [b"\xfflprofr\x81", b"\xfflprofR\x81"];
    assert!(magics.contains(&&bytes[..8]), "a big-endian raw profile");
    assert_eq!(bytes[15], 10, "raw version 10");
    let len = u64::from_be_bytes(bytes[128..136].try_into().unwrap()) as usize;
    bytes[136..136 + len].to_vec()
}

/// `haystack` with the one occurrence of `from` replaced by `to` (same length).
fn replace_once(haystack: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let at: Vec<usize> = haystack
        .windows(from.len())
        .enumerate()
        .filter(|(_, w)| *w == from)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        at.len(),
        1,
        "the build ID occurs once in the indexed profile"
    );
    let mut out = haystack.to_vec();
    out[at[0]..at[0] + to.len()].copy_from_slice(to);
    out
}

/// Big-endian binaries (clang-19 for 64-bit s390x and 32-bit PowerPC, run under qemu-user;
/// `regenerate-be.sh`), read on this little-endian host. Binary correlation: llvm-profdata-19 and -22 refuse the
/// profiles (their correlator swaps the records' fields a second time: "number of counters
/// 50331648 is greater than the maximum"), so the truth is what the program counted: the
/// same program built with ordinary `-fprofile-generate` (records and names in its raw
/// profiles), run with the same arguments and merged by llvm-profdata-N. Our drop-in's
/// indexed output equals that byte for byte but for the build ID (the two builds differ),
/// and its text output equals it exactly. Should an llvm-profdata read the lightweight
/// profiles one day, it must write the same. Debug-info correlation: llvm-profdata reads
/// big-endian DWARF right; ours equals its merge (indexed and text) and its `show
/// --debug-info` views.
#[test]
fn big_endian_builds_merge_to_what_they_counted() {
    let test = "big_endian_builds_merge_to_what_they_counted";
    let d = tempdir();
    let r = recordings(d.path());
    let runs = |name: &str| [1, 2].map(|k| r.join(format!("be-{name}-{k}.profraw")));
    for (arch, v) in [("s390x", 19), ("s390x", 22), ("ppc32", 19), ("ppc32", 22)] {
        let full = runs(&format!("{arch}-full-O2"));
        let light = runs(&format!("{arch}-bin-O2"));
        let full_id = raw_v10_build_id(&full[0]);
        let light_id = hex_bytes(&build_id(&r.join(format!("{arch}-bin-O2"))));
        let bin = r.join(format!("{arch}-bin-O2"));
        let bin_flag = format!("--binary-file={}", bin.display());
        let dbg_flag = format!(
            "--debug-info={}",
            r.join(format!("{arch}-dbg-O1")).display()
        );
        let name = format!("llvm-profdata-{v}");
        let Some(llvm) = tool(&name, test) else {
            continue;
        };
        let work = d.path().join(format!("{arch}-{v}"));
        std::fs::create_dir_all(&work).unwrap();
        let link = work.join(&name);
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).unwrap();

        let (truth_idx, truth_text) = merge_both(&llvm, None, &full, &work).unwrap();
        let truth_idx = replace_once(&truth_idx, &full_id, &light_id);
        let (ours_idx, ours_text) = merge_both(&link, Some(&bin_flag), &light, &work).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&ours_text),
            String::from_utf8_lossy(&truth_text),
            "{name}: our text merge of the big-endian lightweight runs differs from the \
             ordinary build's counts"
        );
        assert!(
            ours_idx == truth_idx,
            "{name}: our indexed merge of the big-endian lightweight runs differs from the \
             ordinary build's (build ID aside)"
        );
        match merge_both(&llvm, Some(&bin_flag), &light, &work) {
            Ok((idx, text)) => {
                assert_eq!(
                    idx, ours_idx,
                    "{name} reads big-endian lightweight profiles now"
                );
                assert_eq!(
                    text, ours_text,
                    "{name} reads big-endian lightweight profiles now"
                );
            }
            Err(e) => eprintln!("{test}: {name} --binary-file on big-endian (known): {e}"),
        }

        let dbg_runs = runs(&format!("{arch}-dbg-O1"));
        let theirs = merge_both(&llvm, Some(&dbg_flag), &dbg_runs, &work).unwrap();
        let ours = merge_both(&link, Some(&dbg_flag), &dbg_runs, &work).unwrap();
        assert!(ours.0 == theirs.0, "{name} {dbg_flag}: other indexed bytes");
        assert_eq!(
            String::from_utf8_lossy(&ours.1),
            String::from_utf8_lossy(&theirs.1),
            "{name} {dbg_flag}: other text"
        );
        for view in [
            &[][..],
            &["--show-prof-sym-list", "--detailed-summary"],
            &["--show-format=yaml"],
        ] {
            let mut args: Vec<&OsStr> = vec!["show".as_ref(), dbg_flag.as_ref()];
            args.extend(view.iter().map(OsStr::new));
            let theirs = ok(run(&llvm, &args), &name).stdout;
            let ours = ok(run(&link, &args), "our drop-in").stdout;
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs),
                "{name} show {dbg_flag} {view:?}"
            );
        }
    }
}

/// Bytes of a hex string.
fn hex_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// clang-22 builds (raw version 10: llvm-profdata-19 and -22 correlate them), clang-23
/// builds (raw version 11, which only llvm-profdata-23 correlates) and MC/DC
/// coverage builds (`-fcoverage-mcdc`) in both modes: our drop-in called as
/// llvm-profdata-N writes the same indexed and text bytes as llvm-profdata-N. clang-19's
/// MC/DC bitmaps are dropped by llvm-profdata-19 and -22 (their correlators keep no
/// bitmap), as by ours; llvm-profdata-23 keeps clang-23's, also those of functions inlined
/// at -O2 (`mcdc.c`).
#[test]
fn clang_23_and_mcdc_builds_merge_as_llvm_profdata_merges() {
    let test = "clang_23_and_mcdc_builds_merge_as_llvm_profdata_merges";
    let d = tempdir();
    let r = recordings(d.path());
    for (flag, binary, releases) in [
        ("--binary-file", "c22-bin-O2", &[19, 22][..]),
        ("--debug-info", "c22-dbg-O1", &[19, 22][..]),
        ("--binary-file", "c23-bin-O2", &[23][..]),
        ("--debug-info", "c23-dbg-O1", &[23][..]),
        ("--binary-file", "mcdc19-bin", &[19, 22][..]),
        ("--debug-info", "mcdc19-dbg", &[19, 22][..]),
        ("--binary-file", "mcdc23-bin", &[23][..]),
        ("--debug-info", "mcdc23-dbg", &[23][..]),
        ("--binary-file", "mcdc23-inl-bin", &[23][..]),
        ("--debug-info", "mcdc23-inl-dbg", &[23][..]),
    ] {
        let runs = [1, 2].map(|k| r.join(format!("two-{binary}-{k}.profraw")));
        let flag = format!("{flag}={}", r.join(binary).display());
        for &v in releases {
            let name = format!("llvm-profdata-{v}");
            let Some(llvm) = tool(&name, test) else {
                continue;
            };
            let work = d.path().join(format!("{binary}-{v}"));
            std::fs::create_dir_all(&work).unwrap();
            let link = work.join(&name);
            std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).unwrap();
            let theirs = merge_both(&llvm, Some(&flag), &runs, &work).unwrap();
            let ours = merge_both(&link, Some(&flag), &runs, &work).unwrap();
            assert!(
                ours.0 == theirs.0,
                "{name} merge {flag}: other indexed bytes"
            );
            assert_eq!(
                String::from_utf8_lossy(&ours.1),
                String::from_utf8_lossy(&theirs.1),
                "{name} merge {flag} --text"
            );
            let bitmaps = String::from_utf8_lossy(&ours.1).contains("# Bitmap Byte Values:");
            assert_eq!(
                bitmaps,
                binary.starts_with("mcdc23"),
                "{name} merge {flag}: MC/DC bitmaps are kept for clang-23's builds only"
            );
        }
    }
}

/// A clang-23 MC/DC build whose data record puts its bitmap past `__llvm_prf_bits` is an
/// error naming the record, never bytes read from elsewhere (before bitmaps were kept, this
/// merged silently).
#[test]
fn a_bitmap_outside_its_section_is_an_error_naming_the_record() {
    let d = tempdir();
    let r = recordings(d.path());
    let mut bytes = std::fs::read(r.join("mcdc23-bin")).unwrap();
    let (at, end) = {
        use object::{Object, ObjectSection};
        let f = object::File::parse(&*bytes).unwrap();
        let cov = f.section_by_name("__llvm_covdata").unwrap();
        let bits = f.section_by_name("__llvm_prf_bits").unwrap();
        (
            cov.file_range().unwrap().0 as usize,
            bits.address() + bits.size(),
        )
    };
    // Record 1 (main) has the bitmap: its BitmapPtr is at offset 32 of the 72-byte v11 record.
    let rec = at + 72;
    assert_eq!(bytes[rec + 68], 1, "main has one bitmap byte");
    bytes[rec + 32..rec + 40].copy_from_slice(&end.to_le_bytes());
    let bad = d.path().join("bad-mcdc");
    std::fs::write(&bad, bytes).unwrap();
    let flag = format!("--binary-file={}", bad.display());
    let out = d.path().join("out.profdata");
    let run1 = r.join("two-mcdc23-bin-1.profraw");
    let o = run_ours([flag.as_ref(), os(&run1), "-o".as_ref(), os(&out)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && o.status.code() != Some(101), "{err}");
    assert!(
        err.contains("__llvm_covdata record 1") && err.contains("outside __llvm_prf_bits"),
        "{err}"
    );
    assert!(!out.exists(), "no output is written");
}

/// Raw versions 10 and 11 and both byte orders in one merge (a clang-19 x86-64 build, a
/// clang-23 build and a big-endian s390x debug-info build): the same bytes as
/// llvm-profdata-23 merging what llvm-profdata-22 and -23 wrote for their own parts (no
/// single llvm-profdata reads them all, and none reads the big-endian one with
/// `--binary-file`).
#[test]
fn raw_versions_10_and_11_and_both_byte_orders_merge_in_one_step() {
    let test = "raw_versions_10_and_11_and_both_byte_orders_merge_in_one_step";
    let (Some(l22), Some(l23)) = (
        tool("llvm-profdata-22", test),
        tool("llvm-profdata-23", test),
    ) else {
        return;
    };
    let d = tempdir();
    let r = recordings(d.path());
    let parts = [
        (&l22, "--binary-file", "exe-pie-O2", "run-pie-1.profraw"),
        (
            &l23,
            "--binary-file",
            "c23-bin-O2",
            "two-c23-bin-O2-1.profraw",
        ),
        (
            &l22,
            "--debug-info",
            "s390x-dbg-O1",
            "be-s390x-dbg-O1-1.profraw",
        ),
    ];
    let mut indexed = Vec::new();
    for (k, (llvm, flag, binary, run_name)) in parts.iter().enumerate() {
        let out = d.path().join(format!("part{k}.profdata"));
        let flag = format!("{flag}={}", r.join(binary).display());
        let input = r.join(run_name);
        let args: [&OsStr; 5] = [
            "merge".as_ref(),
            flag.as_ref(),
            os(&input),
            "-o".as_ref(),
            os(&out),
        ];
        ok(run(llvm, &args), binary);
        indexed.push(out);
    }
    let theirs = d.path().join("theirs.profdata");
    let mut args: Vec<&OsStr> = vec!["merge".as_ref()];
    args.extend(indexed.iter().map(|p| os(p)));
    args.extend(["-o".as_ref(), os(&theirs)]);
    ok(run(&l23, &args), "llvm-profdata-23 merge of the parts");

    let flags: Vec<String> = parts
        .iter()
        .map(|(_, flag, binary, _)| format!("{flag}={}", r.join(binary).display()))
        .collect();
    let runs: Vec<PathBuf> = parts.iter().map(|p| r.join(p.3)).collect();
    let ours = d.path().join("ours.profdata");
    let mut args: Vec<&OsStr> = vec!["--target-llvm".as_ref(), "23".as_ref()];
    args.extend(flags.iter().map(OsStr::new));
    args.extend(runs.iter().map(|p| os(p)));
    args.extend(["-o".as_ref(), os(&ours)]);
    ok(run_ours(&args), "pgo-merge, one step");
    assert!(
        std::fs::read(&ours).unwrap() == std::fs::read(&theirs).unwrap(),
        "raw v10 and v11, both byte orders in one merge: other bytes than llvm-profdata-23's \
         merge of the parts"
    );
}
