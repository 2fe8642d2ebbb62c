//! Fractional weights on sample profiles, checked against what the real llvm-profdata writes.
//!
//! llvm-profdata takes whole weights only, so no real tool writes a profile scaled by 0.5.
//! It can write the profiles on either side of one, though: for a profile Q it writes `Q`
//! (weight 1), `2Q` and `3Q` in every encoding, structured alike (the same functions in the
//! same order; only the counts differ). Then ours must give
//!
//! * `0.5 × 2Q` = llvm-profdata's `Q`, and `1.5 × 2Q` = its `3Q`, every count exact;
//! * `Q + 0.5 × 2Q` = its `2Q` (a fractional weight next to a whole one),
//!
//! byte for byte, for text and extbinary inputs (the map reader and the flat fast path) and
//! text, binary and extbinary outputs, for LLVM 19, 22 and 23. Rounding of odd counts (half
//! up) is checked by the unit tests of the merge.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

/// Our own sample profiles of every kind (flat, inlined, CS, probe-based, pre-inlined,
/// flow-sensitive discriminators, recorded AutoFDO and probe profiles).
fn inputs() -> Vec<PathBuf> {
    let dir = root().join("testdata/sample");
    let v: Vec<PathBuf> = [
        "flat.prof.txt",
        "cs.prof.txt",
        "cs-probe.prof.txt",
        "probe.prof.txt",
        "preinlined.prof.txt",
        "fs-discriminators.prof.txt",
        "real-autofdo.prof.txt",
        "real-probe.prof.txt",
    ]
    .iter()
    .map(|f| dir.join(f))
    .collect();
    for p in &v {
        assert!(p.is_file(), "{} is missing", p.display());
    }
    v
}

/// Weighted inputs: `(weight, file)`.
type Inputs<'a> = &'a [(&'a str, &'a Path)];

fn llvm(tool: &Path, args: &[String]) -> Vec<u8> {
    let out = Command::new(tool)
        .args(args)
        .output()
        .expect("run llvm-profdata");
    assert_ok(&out, &format!("{} {args:?}", tool.display()));
    out.stdout
}

/// `merge --sample ENCODING` of `inputs` (each `(weight, file)`) written to `out`.
fn merge_args(encoding: &str, inputs: &[(&str, &Path)], out: &Path) -> Vec<String> {
    let mut a = vec!["merge".to_string(), "--sample".into(), encoding.into()];
    for (w, f) in inputs {
        a.push(format!("--weighted-input={w},{}", f.display()));
    }
    a.extend(["-o".into(), out.display().to_string()]);
    a
}

#[test]
fn fractional_weights_give_what_llvm_writes_for_the_whole_multiples() {
    let dir = tempdir();
    let files = inputs();
    let mut compared = 0usize;
    let mut diffs = Vec::new();
    for release in [19u32, 22, 23] {
        let Some(tool) = tool(
            &format!("llvm-profdata-{release}"),
            "sample fractional weights",
        ) else {
            continue;
        };
        for (n, q) in files.iter().enumerate() {
            // Q, 2Q and 3Q as llvm-profdata writes them, in text and extbinary.
            let made = |w: &str, enc: &str| {
                let p = dir.path().join(format!("{release}-{n}-{w}{enc}"));
                llvm(&tool, &merge_args(enc, &[(w, q)], &p));
                p
            };
            for input_enc in ["--text", "--extbinary"] {
                let q1 = made("1", input_enc);
                let q2 = made("2", input_enc);
                for out_enc in ["--text", "--binary", "--extbinary"] {
                    let cases: [(Inputs, Inputs); 3] = [
                        (&[("0.5", &q2)], &[("1", &q1)]),
                        (&[("1.5", &q2)], &[("3", &q1)]),
                        (&[("1", &q1), ("0.5", &q2)], &[("2", &q1)]),
                    ];
                    for (ours_in, theirs_in) in cases {
                        let o = dir.path().join("ours");
                        let t = dir.path().join("theirs");
                        let theirs = Command::new(&tool)
                            .args(merge_args(out_enc, theirs_in, &t))
                            .output()
                            .expect("run llvm-profdata");
                        let mut args = merge_args(out_enc, ours_in, &o);
                        args.insert(1, format!("--target-llvm={release}"));
                        let out = run_ours(&args);
                        if !theirs.status.success() {
                            // LLVM writes no context-sensitive profile as binary: neither
                            // do we.
                            assert!(!out.status.success(), "pgo-merge {args:?} succeeded");
                            continue;
                        }
                        assert_ok(&out, &format!("pgo-merge {args:?}"));
                        let (a, b) = (std::fs::read(&t).unwrap(), std::fs::read(&o).unwrap());
                        compared += 1;
                        if a != b {
                            let show = |p: &Path| {
                                String::from_utf8_lossy(&llvm(
                                    &tool,
                                    &["show".into(), "--sample".into(), p.display().to_string()],
                                ))
                                .into_owned()
                            };
                            diffs.push(format!(
                                "llvm-profdata-{release}: {} {input_enc} -> {out_enc}, ours {:?} vs theirs {:?}:\n{}",
                                q.display(),
                                ours_in.iter().map(|x| x.0).collect::<Vec<_>>(),
                                theirs_in.iter().map(|x| x.0).collect::<Vec<_>>(),
                                differing_lines(&show(&t), &show(&o), 6, "llvm", "ours")
                            ));
                        }
                    }
                }
            }
        }
    }
    if compared == 0 {
        return;
    }
    assert_no_differences(compared, 100, &diffs, "llvm-profdata");
}

#[test]
fn native_merge_takes_fractional_sample_weights() {
    let dir = tempdir();
    let Some(tool) = tool("llvm-profdata-22", "native sample fractional weights") else {
        return;
    };
    let q = root().join("testdata/sample/cs-probe.prof.txt");
    let q1 = dir.path().join("q1.afdo");
    let q2 = dir.path().join("q2.afdo");
    llvm(&tool, &merge_args("--extbinary", &[("1", &q)], &q1));
    llvm(&tool, &merge_args("--extbinary", &[("2", &q)], &q2));
    let t = dir.path().join("theirs.txt");
    llvm(&tool, &merge_args("--text", &[("1", &q1)], &t));
    let o = dir.path().join("ours.txt");
    let out = run_ours([
        "--sample".as_ref(),
        "--text".as_ref(),
        "--target-llvm=22".as_ref(),
        "-w".as_ref(),
        format!("0.5,{}", q2.display()).as_ref(),
        "-o".as_ref(),
        o.as_os_str(),
    ] as [&std::ffi::OsStr; 7]);
    assert_ok(&out, "pgo-merge --sample -w 0.5,FILE");
    assert_eq!(
        std::fs::read_to_string(&t).unwrap(),
        std::fs::read_to_string(&o).unwrap()
    );
}
