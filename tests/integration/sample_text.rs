//! Sample profiles (AutoFDO, CSSPGO) in LLVM's text format: every public text sample
//! profile in `../shared/testdata-external/llvm-sample/` read and merged — alone, in pairs,
//! with weights — by us and by `llvm-profdata-19` and `-22` (`merge --sample --text`): the
//! outputs must be the same bytes, and an input LLVM refuses must be refused. Bad inputs get
//! our exact messages (and LLVM refuses them too).

use std::path::{Path, PathBuf};
use std::process::Command;

use pgo_merge::frontends::sample::{SampleEncoding, TextDialect, text};
use pgo_merge::pipeline::sample::{SampleMergeRequest, encode, merge_sample_profiles};
use pgo_merge::pipeline::{NoProgress, SampleFormat};

use crate::common::*;

/// The releases compared.
const RELEASES: [u32; 2] = [19, 22];

/// The text sample profiles of the third-party folder (sorted), or None (SKIPPED) if absent.
pub(crate) fn text_profiles(test: &str) -> Option<Vec<PathBuf>> {
    let dir = external_dir().join("llvm-sample");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!(
            "SKIPPED {test}: third-party folder {} is absent (it lives in shared/testdata-external/ beside the repository)",
            dir.display()
        );
        return None;
    };
    let mut v: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            std::fs::read(p).is_ok_and(|b| SampleEncoding::sniff(&b) == SampleEncoding::Text)
        })
        .collect();
    v.sort();
    // The folder's README lists 32 text sample profiles; a much smaller count means files
    // went missing and the test would prove little.
    assert!(
        v.len() >= 30,
        "only {} text sample profiles in {}",
        v.len(),
        dir.display()
    );
    Some(v)
}

/// `llvm-profdata-V merge --sample --text ARGS -o -`: Ok(stdout) or Err(stderr).
fn llvm_merge(tool: &Path, args: &[String]) -> Result<Vec<u8>, String> {
    let out = Command::new(tool)
        .args(["merge", "--sample", "--text"])
        .args(args)
        .args(["-o", "-"])
        .output()
        .expect("run llvm-profdata");
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Our merge of weighted inputs (weight 1 inputs first, as on llvm-profdata's command line),
/// through the library: Ok(text) or Err(message).
fn our_merge(release: u32, plain: &[&Path], weighted: &[(u64, &Path)]) -> Result<Vec<u8>, String> {
    let mut req = SampleMergeRequest::default();
    req.inputs = plain.iter().map(|p| p.to_path_buf()).collect();
    req.weighted_inputs = weighted
        .iter()
        .map(|(w, p)| {
            (
                pgo_merge::passes::Weight::integer(*w).unwrap(),
                p.to_path_buf(),
            )
        })
        .collect();
    req.output_format = SampleFormat::Text;
    req.target_llvm = Some(release);
    req.threads = 1;
    let merged = merge_sample_profiles(&req, &NoProgress).map_err(|e| e.to_string())?;
    encode(&merged.profile, SampleFormat::Text).map_err(|e| e.to_string())
}

fn args_of(plain: &[&Path], weighted: &[(u64, &Path)]) -> Vec<String> {
    let mut a: Vec<String> = plain.iter().map(|p| p.display().to_string()).collect();
    a.extend(
        weighted
            .iter()
            .map(|(w, p)| format!("--weighted-input={w},{}", p.display())),
    );
    a
}

/// Compares one merge; returns a description of the difference, if any.
fn compare(
    tool: &Path,
    release: u32,
    plain: &[&Path],
    weighted: &[(u64, &Path)],
) -> Option<String> {
    let theirs = llvm_merge(tool, &args_of(plain, weighted));
    let ours = our_merge(release, plain, weighted);
    let what = format!("llvm-profdata-{release} {:?}", args_of(plain, weighted));
    match (theirs, ours) {
        (Ok(a), Ok(b)) if a == b => None,
        (Ok(a), Ok(b)) => Some(format!(
            "{what}: outputs differ\n{}",
            differing_lines(
                &String::from_utf8_lossy(&a),
                &String::from_utf8_lossy(&b),
                5,
                "llvm",
                "ours"
            )
        )),
        (Err(_), Err(_)) => None,
        (Ok(_), Err(e)) => Some(format!("{what}: LLVM merges it, we fail: {e}")),
        (Err(e), Ok(_)) => Some(format!("{what}: LLVM fails ({}), we merge it", e.trim())),
    }
}

#[test]
fn every_text_profile_alone_and_weighted_is_llvms_bytes() {
    let Some(files) = text_profiles("sample text alone") else {
        return;
    };
    for release in RELEASES {
        let Some(tool) = tool(&format!("llvm-profdata-{release}"), "sample text alone") else {
            continue;
        };
        let mut diffs = Vec::new();
        let mut merged = 0;
        for f in &files {
            for (plain, weighted) in [
                (vec![f.as_path()], vec![]),
                (vec![], vec![(3, f.as_path())]),
            ] {
                if let Some(d) = compare(&tool, release, &plain, &weighted) {
                    diffs.push(d);
                }
                merged += 1;
            }
            // Every file alone is a profile LLVM reads.
            assert!(
                llvm_merge(&tool, &args_of(&[f], &[])).is_ok(),
                "llvm-profdata-{release} cannot read {}",
                f.display()
            );
        }
        assert!(
            diffs.is_empty(),
            "{} of {merged} differ:\n{}",
            diffs.len(),
            diffs.join("\n")
        );
    }
}

#[test]
fn every_pair_of_text_profiles_merges_as_llvm_does() {
    let Some(files) = text_profiles("sample text pairs") else {
        return;
    };
    for release in RELEASES {
        let Some(tool) = tool(&format!("llvm-profdata-{release}"), "sample text pairs") else {
            continue;
        };
        let mut diffs = Vec::new();
        let mut n = 0;
        for (i, f) in files.iter().enumerate() {
            // Each file with itself (counts double; saturating for the overflow profile),
            // and with every later file, the later one weighted 2.
            for g in &files[i..] {
                n += 1;
                if let Some(d) = compare(&tool, release, &[f], &[(2, g)]) {
                    diffs.push(d);
                }
            }
        }
        assert!(n > 500, "{n} pairs");
        assert!(
            diffs.is_empty(),
            "{} of {n} pairs differ:\n{}",
            diffs.len(),
            diffs.join("\n")
        );
    }
}

#[test]
fn merges_of_many_inputs_and_kinds_match() {
    let Some(files) = text_profiles("sample text many") else {
        return;
    };
    let by_name = |n: &str| files.iter().find(|p| p.ends_with(n)).expect(n).clone();
    let flat = [
        by_name("profparser-sample-profile.proftext"),
        by_name("profparser-sample-overlap-0.proftext"),
        by_name("profparser-sample-overlap-1.proftext"),
        by_name("profparser-sample-remap.proftext"),
        by_name("autofdo-throttle_inline_instances.textprof"),
    ];
    let cs = [
        by_name("profparser-cs-sample.proftext"),
        by_name("profparser-cs-sample-preinline.proftext"),
        by_name("llvm-profile-mismatch-cs.prof"),
        by_name("profparser-sample-flatten-profile-cs.proftext"),
    ];
    let probe = [
        by_name("profparser-pseudo-probe-profile.proftext"),
        by_name("llvm-pseudo-probe-profile.prof"),
        by_name("llvm-pseudo-probe-stale-profile-renaming.prof"),
        by_name("profparser-sample-flatten-profile.proftext"),
    ];
    for release in RELEASES {
        let Some(tool) = tool(&format!("llvm-profdata-{release}"), "sample text many") else {
            continue;
        };
        for group in [&flat[..], &cs[..], &probe[..]] {
            let plain: Vec<&Path> = group.iter().map(PathBuf::as_path).collect();
            let weighted: Vec<(u64, &Path)> = group
                .iter()
                .rev()
                .zip(2..)
                .map(|(p, w)| (w, p.as_path()))
                .collect();
            if let Some(d) = compare(&tool, release, &plain, &weighted) {
                panic!("{d}");
            }
        }
    }
}

#[test]
fn dropin_named_for_a_release_merges_sample_text_as_that_release() {
    let Some(files) = text_profiles("sample drop-in") else {
        return;
    };
    let vt = files
        .iter()
        .find(|p| p.ends_with("llvm-vtable-prof-fs-discriminator.prof"))
        .expect("vtable profile")
        .clone();
    let other = files
        .iter()
        .find(|p| p.ends_with("profparser-sample-fs.proftext"))
        .expect("fs profile")
        .clone();
    let dir = tempdir();
    for release in RELEASES {
        let Some(tool) = tool(&format!("llvm-profdata-{release}"), "sample drop-in") else {
            continue;
        };
        // The vtable lines read differently in 19 and 22: the drop-in's name decides.
        let link = dir.path().join(format!("llvm-profdata-{release}"));
        #[cfg(unix)]
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).expect("symlink");
        let args = [
            "merge".to_string(),
            "-sample".into(),
            "-text".into(),
            format!("-weighted-input=5,{}", vt.display()),
            other.display().to_string(),
        ];
        let (c1, o1, e1) = run_full(Command::new(&tool).args(&args));
        let (c2, o2, e2) = run_full(Command::new(&link).args(&args));
        assert_eq!((c1, c2), (0, 0), "llvm: {e1}\nours: {e2}");
        assert_eq!(o1, o2, "drop-in {release}: outputs differ");
    }
}

/// Writes `text` to a file and returns our error and whether llvm-profdata-22 refuses it.
fn bad(dir: &Path, name: &str, text: &[u8]) -> (String, Option<bool>) {
    let f = dir.join(name);
    std::fs::write(&f, text).unwrap();
    let out = run_ours([
        "--sample".as_ref(),
        "--text".as_ref(),
        f.as_os_str(),
        "-o".as_ref(),
        "-".as_ref(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{name}: exit code ({})",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "{name}: no output expected");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let llvm_refuses = which("llvm-profdata-22").map(|t| {
        !Command::new(t)
            .args(["merge", "--sample", "--text"])
            .arg(&f)
            .args(["-o", "/dev/null"])
            .output()
            .unwrap()
            .status
            .success()
    });
    (err, llvm_refuses)
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

#[test]
fn bad_text_inputs_have_exact_messages() {
    let dir = tempdir();
    let d = dir.path();
    let cases: &[(&str, &[u8], &str)] = &[
        (
            "no-colon.txt",
            b"foo:10:1\n 1 10\n",
            "line 2: sample profile line: expected 'NUM[.NUM]: NUM[ mangled_name:NUM]*', found ' 1 10'",
        ),
        (
            "offset.txt",
            b"foo:10:1\n 70000: 10\n",
            "line 2: sample profile line: expected 'NUM[.NUM]: NUM[ mangled_name:NUM]*', found ' 70000: 10'",
        ),
        (
            "count.txt",
            b"foo:10:1\n\n 2: bar:x\n",
            "line 3: sample profile line: expected 'NUM[.NUM]: NUM[ mangled_name:NUM]*', found ' 2: bar:x'",
        ),
        (
            "trailing.txt",
            b"foo:10:1\n 1: 10 a:1 \n",
            "line 2: sample profile line: expected 'NUM[.NUM]: NUM[ mangled_name:NUM]*', found ' 1: 10 a:1 '",
        ),
        (
            "metadata.txt",
            b"foo:10:1\n !CFGChecksum: x\n",
            "line 2: metadata line: expected '!CFGChecksum: NUM' or '!Attributes: NUM', found ' !CFGChecksum: x'",
        ),
        (
            "after-metadata.txt",
            b"foo:10:1\n !CFGChecksum: 1\n 1: 5\n",
            "line 3: sample profile line: found ' 1: 5' after the metadata ('!…' lines) of its function; metadata comes last",
        ),
        (
            "header.txt",
            b"foo:10:1\n\t1: 10\n",
            "line 2: function header: expected 'mangled_name:NUM:NUM', found '\t1: 10'",
        ),
        (
            "vtables.txt",
            b"foo:10:1\n 3: 1\n 3: vtables A:1 A:2\n",
            "line 3: vtable line: expected 'vtables [mangled_vtable:NUM]+' (distinct names), found ' 3: vtables A:1 A:2'",
        ),
        (
            "overflow.txt",
            b"foo:10:1\n 1: 18446744073709551615\n 1: 5\n",
            "line 3: sample count: counter overflow: a body sample or call-target count exceeds 2^64-1 (18446744073709551615)",
        ),
        (
            "not-text.txt",
            b"foo:10\n 1: 5\n",
            "at offset 0x0: sample profile: unrecognised sample profile encoding: expected LLVM's binary or extbinary magic, GCC's `adcg*704`, or a text profile whose first line is a function header 'mangled_name:NUM:NUM'",
        ),
    ];
    for (name, text, msg) in cases {
        let (err, llvm_refuses) = bad(d, name, text);
        let path = d.join(name);
        let expected = format!("pgo-merge: error: {}: {msg}\n", path.display());
        assert_eq!(err, expected, "{name}");
        assert_ne!(
            llvm_refuses,
            Some(false),
            "{name}: llvm-profdata-22 accepts it"
        );
    }
    // An empty calling context makes llvm-profdata crash; we refuse it with a message.
    let (err, _) = bad(d, "empty-context.txt", b"[]:10:1\n 1: 10\n");
    assert!(
        err.ends_with(
            "line 1: function header: expected a calling context '[name:NUM @ … @ name]', found an empty one in '[]:10:1'\n"
        ),
        "{err}"
    );
}

#[test]
fn binary_outputs_are_written() {
    // The byte-for-byte comparisons with llvm-profdata are in sample_binary.rs; here the
    // command line writes each encoding with its magic.
    let Some(files) = text_profiles("sample outputs") else {
        return;
    };
    let dir = tempdir();
    for (flag, first) in [("--binary", 0xff_u8), ("--extbinary", 0x84)] {
        let out = dir.path().join("x.afdo");
        let o = run_ours([
            "--sample".as_ref(),
            flag.as_ref(),
            files[0].as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{flag}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(std::fs::read(&out).unwrap().first(), Some(&first), "{flag}");
    }
}

#[test]
fn text_dialects_differ_only_where_llvm_releases_do() {
    let vt = b"foo:1000:100\n 3: 100\n 3: vtables _ZTVB:5 _ZTVA:7\n";
    let new = text::read(vt, TextDialect::for_llvm(22)).unwrap();
    let old = text::read(vt, TextDialect::for_llvm(19)).unwrap();
    let f22 = new.functions.values().next().unwrap();
    let f19 = old.functions.values().next().unwrap();
    assert_eq!(f22.type_counts.len(), 1);
    assert!(f22.callsites.is_empty());
    // 19 splits the line at its last colon: an inlined callee `vtables _ZTVB:5 _ZTVA`, 7.
    assert!(f19.type_counts.is_empty());
    let site = f19.callsites.values().next().unwrap();
    let (name, callee) = site.iter().next().unwrap();
    assert_eq!(name.to_string(), "vtables _ZTVB:5 _ZTVA");
    assert_eq!(callee.total_samples, 7);
}

/// The figures of a printed summary, whatever the release's wording: the totals, then
/// (blocks, minimum count) per cutoff.
fn essentials(summary: &str) -> Vec<String> {
    summary
        .lines()
        .filter_map(|l| {
            for key in [
                "Total functions:",
                "Maximum function count:",
                "Total number of blocks:",
                "Total count:",
            ] {
                if l.starts_with(key) {
                    return Some(l.to_string());
                }
            }
            let (blocks, rest) = l.split_once(" blocks")?;
            let min = rest.split(">= ").nth(1)?.split(' ').next()?;
            Some(format!("{blocks} {min}"))
        })
        .collect()
}

#[test]
fn summaries_are_llvms() {
    // LLVM computes a text profile's summary when it reads it; `show --sample
    // --detailed-summary` prints it last. Context-sensitive profiles are summarised per
    // function (their contexts merged), the others as they are.
    let Some(files) = text_profiles("sample summary") else {
        return;
    };
    for release in RELEASES {
        let Some(tool) = tool(&format!("llvm-profdata-{release}"), "sample summary") else {
            continue;
        };
        for f in &files {
            let out = Command::new(&tool)
                .args(["show", "--sample", "--detailed-summary"])
                .arg(f)
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", f.display());
            let text = String::from_utf8_lossy(&out.stdout);
            let theirs = &text[text.find("Total functions:").expect("summary")..];
            let bytes = std::fs::read(f).unwrap();
            let p = text::read(&bytes, TextDialect::for_llvm(release)).unwrap();
            let s = pgo_merge::ir::sample::summary::compute(&p);
            let mut ours = String::new();
            pgo_merge::backends::show::print_summary(&mut ours, &s);
            pgo_merge::backends::show::print_detailed(&mut ours, &s);
            assert_eq!(
                essentials(&ours),
                essentials(theirs),
                "llvm-profdata-{release}: {}",
                f.display()
            );
            if release >= 22 {
                assert_eq!(ours, theirs, "llvm-profdata-{release}: {}", f.display());
            }
        }
    }
}

#[test]
fn show_sample_is_llvms() {
    let Some(files) = text_profiles("sample show") else {
        return;
    };
    let views: [&[&str]; 5] = [
        &[],
        &["--detailed-summary"],
        &["--show-format=json"],
        &["--function=main"],
        &["--function=_Z3bari"],
    ];
    for release in RELEASES {
        let Some(tool) = tool(&format!("llvm-profdata-{release}"), "sample show") else {
            continue;
        };
        let mut diffs = Vec::new();
        for f in &files {
            for view in views {
                let (c1, o1, e1) = run_full(
                    Command::new(&tool)
                        .args(["show", "--sample"])
                        .args(view)
                        .arg(f),
                );
                let (c2, o2, e2) = run_full(
                    pgo_merge()
                        .args(["show", "--sample", &format!("--target-llvm={release}")])
                        .args(view)
                        .arg(f),
                );
                if (c1, &o1) != (c2, &o2) {
                    diffs.push(format!(
                        "llvm-profdata-{release} show --sample {view:?} {}: exit {c1}/{c2}\n{}{e1}{e2}",
                        f.display(),
                        differing_lines(&o1, &o2, 4, "llvm", "ours")
                    ));
                }
            }
        }
        assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    }
}
