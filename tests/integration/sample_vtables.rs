//! Vtable type counts in extbinary sample profiles (`-extbinary-write-vtable-type-prof`,
//! LLVM 22 and later) against the real tools: our drop-in (named `llvm-profdata-22` /
//! `-23`) and the real llvm-profdata of that release run with the same arguments, outputs
//! compared byte for byte. Writing: text inputs with `vtables` lines at every depth (and at
//! locations without a body line, which only the extbinary keeps), context-sensitive and
//! probe-based ones, a generated one, with every extbinary option. Reading: LLVM's own
//! extbinary files with type counts merged, weighted, into every output encoding, and shown;
//! a vtable repeated at one location keeps its first count, as in LLVM.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::common::*;
use crate::sample_options::{compare, dropin_named, external_inputs, merge, os, sample_dir};

/// A text profile of `n` functions with vtable lines at every depth, some at locations
/// with no body line, into `dir`.
fn generated(dir: &Path, n: usize) -> PathBuf {
    let mut s = String::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |m: u64| {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d) % m
    };
    for f in 0..n {
        let total = 1000 + next(100_000);
        s += &format!("_Z1f{f}v:{total}:{}\n", next(500));
        for line in 1..=(1 + next(5)) {
            s += &format!(" {line}: {}\n", next(5000));
            if next(3) == 0 {
                s += &format!(
                    " {line}: vtables _ZTV1T{}:{} _ZTV1U{}:{}\n",
                    next(9),
                    1 + next(90),
                    next(9),
                    1 + next(90)
                );
            }
        }
        if next(2) == 0 {
            s += &format!(" 9: _Z1g{}v:{}\n  1: {}\n", next(50), next(900), next(900));
            s += &format!("  2: vtables _ZTV1V{}:{}\n", next(4), 1 + next(50));
            s += &format!(" 9.{}: vtables _ZTV1W:{}\n", next(3), 1 + next(50));
        }
    }
    let p = dir.join("generated-vtables.prof.txt");
    std::fs::write(&p, s).expect("write");
    p
}

/// Small hand-made inputs: context-sensitive and probe-based profiles with type counts.
fn special(dir: &Path) -> Vec<PathBuf> {
    let cs = concat!(
        "[_Z4mainv:5 @ _Z6helperv]:500:50\n",
        " 1: 250\n",
        " 2: 250 _ZN1A1fEv:250\n",
        " 2: vtables _ZTV1A:240 _ZTV1B:10\n",
        "[_Z4mainv]:300:300\n",
        " 1: 300\n",
        " 3: vtables _ZTV1B:7\n",
    );
    let probe = concat!(
        "_Z3barv:700:70\n",
        " 1: 400\n",
        " 2: 300 _ZN1A1fEv:300\n",
        " 2: vtables _ZTV1A:300\n",
        " 3: _Z3bazv:0\n",
        "  4: vtables _ZTV1C:2\n",
        "  !CFGChecksum: 17\n",
        " !CFGChecksum: 99\n",
    );
    let mut v = Vec::new();
    for (name, text) in [
        ("cs-vtables.prof.txt", cs),
        ("probe-vtables.prof.txt", probe),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, text).expect("write");
        v.push(p);
    }
    v
}

fn check_writing(version: &str) {
    let test = format!("vtable_type_counts_written_as_llvm_profdata_{version}");
    let Some(real) = tool(&format!("llvm-profdata-{version}"), &test) else {
        return;
    };
    let (_guard, ours) = dropin_named(&format!("llvm-profdata-{version}"));
    let dir = tempdir();
    let mut inputs = vec![
        sample_dir().join("vtables.prof.txt"),
        sample_dir().join("flat.prof.txt"),
        generated(dir.path(), 300),
    ];
    inputs.extend(special(dir.path()));
    inputs.extend(external_inputs(
        &test,
        &["llvm-vtable-prof-fs-discriminator.prof"],
    ));
    let options: &[&[&str]] = &[
        &[],
        &["--use-md5"],
        &["--compress-all-sections"],
        &["--split-layout"],
        &["--gen-partial-profile"],
        &["--output-size-limit=2000"],
        &["--convert-sample-profile-layout=flat"],
        &["--extbinary-write-vtable-type-prof=0"],
    ];
    let mut failures = Vec::new();
    let mut compared = 0;
    for input in &inputs {
        let mut a = os(&["--sample", "--extbinary-write-vtable-type-prof"]);
        a.push(input.into());
        if let Err(e) = merge(&real, &a, &dir.path().join("check.afdo")) {
            panic!("llvm-profdata-{version} refuses {}: {e}", input.display());
        }
        for extra in options {
            // Refused on purpose: LLVM writes a file it cannot read back (sample_options).
            if extra == &["--split-layout"] && input.ends_with("cs-vtables.prof.txt") {
                continue;
            }
            let mut a = os(&["--sample", "--extbinary-write-vtable-type-prof"]);
            a.extend(extra.iter().map(OsString::from));
            a.push(input.into());
            failures.extend(compare(&real, &ours, &a, dir.path()));
            compared += 1;
        }
    }
    // The first three together, weighted, in one merge.
    let mut a = os(&["--sample", "--extbinary-write-vtable-type-prof"]);
    a.push(OsString::from(format!(
        "--weighted-input=3,{}",
        inputs[0].display()
    )));
    a.extend(inputs[1..3].iter().map(OsString::from));
    failures.extend(compare(&real, &ours, &a, dir.path()));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // 5 inputs of ours × 8 option sets, less the refused split layout (and 8 more with the
    // third-party profile).
    assert!(compared >= 39, "{compared} cases");
}

#[test]
fn vtable_type_counts_written_as_llvm_profdata_22() {
    check_writing("22");
}

#[test]
fn vtable_type_counts_written_as_llvm_profdata_23() {
    check_writing("23");
}

/// LLVM's own extbinary files with type counts (written by the real tool), read back: merged
/// with weights into text, binary and extbinary (with and without type counts), and shown.
fn check_reading(version: &str) {
    let test = format!("vtable_type_counts_read_as_llvm_profdata_{version}");
    let Some(real) = tool(&format!("llvm-profdata-{version}"), &test) else {
        return;
    };
    let (_guard, ours) = dropin_named(&format!("llvm-profdata-{version}"));
    let dir = tempdir();
    let d = dir.path();
    let mut texts = vec![sample_dir().join("vtables.prof.txt"), generated(d, 200)];
    texts.extend(special(d));
    texts.extend(external_inputs(
        &test,
        &["llvm-vtable-prof-fs-discriminator.prof"],
    ));
    let mut theirs = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        for extra in [&[][..], &["--use-md5", "--compress-all-sections"][..]] {
            let out = d.join(format!("llvm-{i}-{}.afdo", extra.len()));
            let mut a = os(&["--sample", "--extbinary-write-vtable-type-prof"]);
            a.extend(extra.iter().map(OsString::from));
            a.push(t.into());
            merge(&real, &a, &out).unwrap_or_else(|e| panic!("llvm-profdata-{version}: {e}"));
            theirs.push(out);
        }
    }
    let mut failures = Vec::new();
    let outputs: &[&[&str]] = &[
        &["--text"],
        &["--binary"],
        &["--extbinary"],
        &["--extbinary", "--extbinary-write-vtable-type-prof"],
    ];
    for f in &theirs {
        for o in outputs {
            let mut a = os(&["--sample"]);
            a.extend(o.iter().map(OsString::from));
            a.push(f.into());
            failures.extend(compare(&real, &ours, &a, d));
        }
        let show = |tool: &Path| run(tool, &["show".as_ref(), "--sample".as_ref(), f.as_os_str()]);
        let (t, m) = (show(&real), show(&ours));
        if (t.status.success(), &t.stdout) != (m.status.success(), &m.stdout) {
            failures.push(format!("show --sample {}: outputs differ", f.display()));
        }
    }
    // Plain-name files merged, one weighted, with the type counts kept.
    let plain: Vec<&PathBuf> = theirs.iter().step_by(2).collect();
    for o in outputs {
        let mut a = os(&["--sample"]);
        a.extend(o.iter().map(OsString::from));
        a.push(OsString::from(format!(
            "--weighted-input=5,{}",
            plain[0].display()
        )));
        a.extend(plain[1..].iter().map(OsString::from));
        failures.extend(compare(&real, &ours, &a, d));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn vtable_type_counts_read_as_llvm_profdata_22() {
    check_reading("22");
}

#[test]
fn vtable_type_counts_read_as_llvm_profdata_23() {
    check_reading("23");
}

/// A vtable named twice at one location of an extbinary file (LLVM's writers never do it;
/// its reader keeps the first count and warns): the first count is kept, as llvm-profdata
/// keeps it. The file is LLVM's own output with one name index changed.
#[test]
fn repeated_vtable_keeps_its_first_count() {
    let test = "repeated_vtable_keeps_its_first_count";
    let Some(real) = tool("llvm-profdata-22", test) else {
        return;
    };
    let (_guard, ours) = dropin_named("llvm-profdata-22");
    let dir = tempdir();
    let d = dir.path();
    let text = d.join("t.prof.txt");
    std::fs::write(&text, "f:10:1\n 3: 10\n 3: vtables A:4 B:6\n").expect("write");
    let good = d.join("good.afdo");
    let a = os(&["--sample", "--extbinary-write-vtable-type-prof"]);
    let mut args = a.clone();
    args.push(text.into());
    let mut bytes = merge(&real, &args, &good).expect("llvm-profdata-22 writes it");
    // Names sort A, B, f: the type counts of `f` are 1 location (3, 0) with 2 types,
    // (0: A, 4) then (1: B, 6). Make the second one A.
    let counts = [1u8, 3, 0, 2, 0, 4, 1, 6];
    let at = bytes
        .windows(counts.len())
        .position(|w| w == counts)
        .expect("the type counts as LLVM writes them");
    bytes[at + 6] = 0;
    let bad = d.join("repeated.afdo");
    std::fs::write(&bad, &bytes).expect("write");
    for out in ["--text", "--extbinary"] {
        let mut args = a.clone();
        args.push(out.into());
        args.push(bad.clone().into());
        assert_eq!(compare(&real, &ours, &args, d), None);
    }
    let shown = run(
        &ours,
        &["show".as_ref(), "--sample".as_ref(), bad.as_os_str()],
    );
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("3: vtables: A:4 \n"), "{text}");
}

/// LLVM 19 does not know the summary flag of type counts and misreads such a file ("Truncated
/// function name table"); the drop-in of 19 refuses it with a message that says why.
#[test]
fn llvm_19_refuses_type_counts_as_llvm_profdata_19_does() {
    let test = "llvm_19_refuses_type_counts_as_llvm_profdata_19_does";
    let file = sample_dir().join("llvm22/vtables.vtables.afdo");
    let (_guard, ours) = dropin_named("llvm-profdata-19");
    let dir = tempdir();
    let mut args = os(&["--sample"]);
    args.push(file.clone().into());
    let err = merge(&ours, &args, &dir.path().join("o.afdo")).expect_err("refused as 19");
    assert!(
        err.contains("SecFlagHasVTableTypeProf") && err.contains("LLVM 22 or later"),
        "{err}"
    );
    if let Some(real) = tool("llvm-profdata-19", test) {
        assert!(merge(&real, &args, &dir.path().join("r.afdo")).is_err());
    }
}
