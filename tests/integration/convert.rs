//! Converting between iprof and LLVM profiles (issue 5): the real 0.4.0 iprof as profdata read
//! by the real llvm-profdata with matching numbers; iprof → LLVM → iprof round trips (folded
//! and with contexts); LLVM → iprof → LLVM round trips of real clang and rustc profiles; one
//! report line per lossy part; mixed runs.

use std::collections::BTreeMap;
use std::path::Path;

use pgo_merge::backends::{iprof as iprof_writer, profdata, proftext};
use pgo_merge::frontends::{self, iprof as iprof_reader, profraw::NameCache};
use pgo_merge::ir::iprof::{IprofProfile, NamedProfile, sort_branches};
use pgo_merge::ir::{Profile, ValueKind};
use pgo_merge::passes::convert::{ToLlvmOptions, iprof_to_llvm, llvm_to_iprof};
use pgo_merge::passes::normalise::canonicalize;
use pgo_merge::passes::trim::{self, TrimOptions};

use crate::common::{profdata_files, run, run_ours, tempdir, tool};
use crate::iprof::{REAL_040, real_data};

/// The real 0.4.0 profile (from the shared third-party folder), canonical; None after a
/// SKIPPED line naming `test` when it is absent.
fn real_iprof(test: &str) -> Option<IprofProfile> {
    real_data(REAL_040, test).map(|data| canonical(&data))
}

/// The profile in `data`, canonical.
fn canonical(data: &[u8]) -> IprofProfile {
    canonicalize(&iprof_reader::read_profile(data).unwrap(), false)
}

fn depth1(p: &IprofProfile) -> IprofProfile {
    let mut options = TrimOptions::default();
    options.max_depth = Some(1);
    let (t, _) = trim::trim(p, &options);
    canonicalize(&t, false)
}

/// What the LLVM side can carry: the profile without monitor, instanceof and sampling
/// profiles and without the section-presence flags.
fn representable(p: &IprofProfile) -> NamedProfile {
    let mut q = p.clone();
    q.monitors.clear();
    q.instanceofs.clear();
    q.samples.clear();
    let q = canonicalize(&q, false);
    let mut n = q.by_names();
    n.present.clear();
    n
}

fn write_and_read_profdata(p: &Profile<'_>) -> Profile<'static> {
    let mut options = profdata::ProfdataOptions::default();
    options.keep_vtable_symbols = true;
    let (bytes, _) = profdata::write(p, &options).unwrap();
    frontends::read(&bytes, &NameCache::new())
        .unwrap()
        .profile
        .into_owned()
}

fn write_and_read_proftext(p: &Profile<'_>) -> Profile<'static> {
    let text = proftext::write(p, &proftext::ProftextOptions::default());
    frontends::read(text.as_bytes(), &NameCache::new())
        .unwrap()
        .profile
        .into_owned()
}

#[test]
fn iprof_to_llvm_and_back_equals_the_depth_1_profile() {
    let Some(p) = real_iprof("iprof_to_llvm_and_back_equals_the_depth_1_profile") else {
        return;
    };
    let (llvm, report) = iprof_to_llvm(&p, &ToLlvmOptions::default());
    assert!(
        report.lines.iter().any(|l| l.starts_with("contexts: ")),
        "{report}"
    );
    let expected = representable(&depth1(&p));
    for (what, back) in [
        ("profdata", write_and_read_profdata(&llvm)),
        ("proftext", write_and_read_proftext(&llvm)),
    ] {
        let (ip, r) = llvm_to_iprof(&back);
        assert!(r.is_empty(), "{what}: {r}");
        assert_eq!(representable(&ip), expected, "{what}");
    }
}

#[test]
fn keep_contexts_round_trips_the_input_itself() {
    let Some(p) = real_iprof("keep_contexts_round_trips_the_input_itself") else {
        return;
    };
    let mut options = ToLlvmOptions::default();
    options.keep_contexts = true;
    let (llvm, report) = iprof_to_llvm(&p, &options);
    assert!(
        !report.lines.iter().any(|l| l.starts_with("contexts: ")),
        "{report}"
    );
    let back = write_and_read_profdata(&llvm);
    let (ip, r) = llvm_to_iprof(&back);
    assert!(r.is_empty(), "{r}");
    assert_eq!(representable(&ip), representable(&p));
    // Deep contexts really are there.
    assert!(ip.contexts.nodes().any(|(_, n)| n.depth > 2));
}

#[test]
fn lossy_parts_are_reported_one_line_each() {
    let Some(data) = real_data(REAL_040, "lossy_parts_are_reported_one_line_each") else {
        return;
    };
    let p = canonical(&data);
    let (_, report) = iprof_to_llvm(&p, &ToLlvmOptions::default());
    let lines = report.lines.join("\n");
    assert!(
        lines.contains(
            "monitorProfiles: 1 histogram of 24 types not representable in profdata, dropped"
        ),
        "{lines}"
    );
    assert!(
        // Sampling stacks are not folded by the conversion's depth trim: all 8 are dropped.
        lines.contains("samplingProfiles: 8 entries not representable in profdata, dropped"),
        "{lines}"
    );
    // Through the command line, each on its own line of stderr.
    let d = tempdir();
    let input = d.path().join("in.iprof");
    std::fs::write(&input, &data).unwrap();
    let out = d.path().join("out.profdata");
    let o = run_ours([input.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    for l in &report.lines {
        assert_eq!(
            stderr.matches(l.as_str()).count(),
            1,
            "{l} not printed once:\n{stderr}"
        );
    }
}

/// Per function of `llvm-profdata show --all-functions --counts`: its block counts.
fn shown_counts(text: &str) -> BTreeMap<String, Vec<u64>> {
    let mut out = BTreeMap::new();
    let mut name: Option<String> = None;
    for line in text.lines() {
        if line.starts_with("  ") && !line.starts_with("    ") && line.ends_with(':') {
            name = Some(line.trim().trim_end_matches(':').to_string());
        } else if let Some(rest) = line.trim().strip_prefix("Block counts: [") {
            let v = rest
                .trim_end_matches(']')
                .split(", ")
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect();
            out.insert(name.take().expect("function name"), v);
        }
    }
    out
}

#[test]
fn llvm_profdata_22_reads_the_converted_real_file_with_the_same_numbers() {
    let Some(lp) = tool("llvm-profdata-22", "convert::llvm_profdata_22_reads") else {
        return;
    };
    let test = "llvm_profdata_22_reads_the_converted_real_file_with_the_same_numbers";
    let Some(data) = real_data(REAL_040, test) else {
        return;
    };
    let real = canonical(&data);
    let d = tempdir();
    let input = d.path().join("in.iprof");
    std::fs::write(&input, &data).unwrap();
    let out = d.path().join("out.profdata");
    let o = run_ours([input.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let shown = run(
        &lp,
        &[
            "show".as_ref(),
            "--all-functions".as_ref(),
            "--counts".as_ref(),
            "--ic-targets".as_ref(),
            out.as_os_str(),
        ],
    );
    assert!(shown.status.success());
    let shown = shown_counts(&String::from_utf8_lossy(&shown.stdout));

    // The numbers the iprof file says, per method (contexts folded): call count, then the
    // successors of each branch site by BCI, in (branch index, target BCI) order.
    let p = depth1(&real);
    let mut expected: BTreeMap<String, (u64, BTreeMap<i32, Vec<u64>>)> = BTreeMap::new();
    let name = |site: pgo_merge::ir::context::Site| {
        let f = p.contexts.frames(site).next().unwrap();
        let m = p.symbols.method(f.method).unwrap();
        let sig: Vec<&str> = p.symbols.signature_names(f.method);
        let mut s = String::new();
        pgo_merge::passes::convert::spelling::method(m.name, &sig, &mut s);
        s
    };
    for (site, c) in &p.call_counts {
        expected.entry(name(*site)).or_default().0 = *c;
    }
    for (site, b) in &p.conditionals {
        let mut b = b.clone();
        sort_branches(&mut b);
        expected
            .entry(name(*site))
            .or_default()
            .1
            .insert(site.bci, b.iter().map(|x| x.count).collect());
    }
    for site in p.virtual_invokes.keys() {
        expected.entry(name(*site)).or_default();
    }
    assert_eq!(shown.len(), expected.len(), "number of functions");
    let mut checked_branches = 0;
    for (method, (calls, sites)) in &expected {
        let got = shown
            .get(method)
            .unwrap_or_else(|| panic!("{method} not shown"));
        let mut want = vec![*calls];
        for counts in sites.values() {
            want.extend(counts);
            checked_branches += counts.len();
        }
        assert_eq!(got, &want, "{method}");
    }
    assert!(checked_branches > 5000, "{checked_branches}");
}

/// A record's value sites as (kind, per site: sorted (value, count) pairs; a site may list a
/// value more than once).
type Sites = Vec<(ValueKind, Vec<Vec<(u64, u64)>>)>;

fn sites(r: &pgo_merge::ir::FunctionRecord<'_>) -> Sites {
    ValueKind::ALL
        .iter()
        .map(|&k| {
            let s = r
                .values
                .as_deref()
                .map(|v| {
                    v.kind(k)
                        .iter()
                        .map(|s| {
                            let mut v: Vec<(u64, u64)> =
                                s.values.iter().map(|x| (x.value, x.count)).collect();
                            v.sort_unstable();
                            v
                        })
                        .collect()
                })
                .unwrap_or_default();
            (k, s)
        })
        .collect()
}

#[test]
fn llvm_to_iprof_to_llvm_keeps_every_counter_and_value_site() {
    let d = tempdir();
    let mut checked = 0;
    for path in profdata_files("profdata") {
        let data = std::fs::read(&path).unwrap();
        let orig = frontends::read(&data, &NameCache::new()).unwrap().profile;
        let (ip, report) = llvm_to_iprof(&orig);
        // Through a real .iprof file.
        let file = d.path().join("x.iprof");
        std::fs::write(&file, iprof_writer::to_vec(&canonicalize(&ip, false))).unwrap();
        let ip2 = iprof_reader::read_file(&file, Default::default())
            .unwrap()
            .profile;
        let (back, r2) = iprof_to_llvm(&ip2, &ToLlvmOptions::default());
        assert!(r2.is_empty(), "{}: {r2}", path.display());
        let name = path.display().to_string();
        assert_eq!(back.kind, orig.kind, "{name}");
        assert_eq!(back.records.len(), orig.records.len(), "{name}");
        let by_key: BTreeMap<_, _> = back.records.iter().map(|r| (r.key, r)).collect();
        for r in &orig.records {
            let b = by_key
                .get(&r.key)
                .unwrap_or_else(|| panic!("{name}: {:?} lost", r.key));
            assert_eq!(b.counters.to_vec(), r.counters.to_vec(), "{name}");
            assert_eq!(b.bitmap, r.bitmap, "{name}");
            assert_eq!(sites(b), sites(r), "{name}");
            assert_eq!(
                back.names.get(r.key.name),
                orig.names.get(r.key.name),
                "{name}"
            );
            checked += 1;
        }
        if !orig.temporal.traces.is_empty() {
            assert!(
                report.lines.iter().any(|l| l.starts_with("temporal")),
                "{name}: {report}"
            );
        }
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn cli_converts_both_ways_and_mixes() {
    let Some(data) = real_data(REAL_040, "cli_converts_both_ways_and_mixes") else {
        return;
    };
    let d = tempdir();
    let iprof_in = d.path().join("in.iprof");
    std::fs::write(&iprof_in, &data).unwrap();
    let clang = crate::common::root().join("testdata/profdata/clang22-ir-llvm22.profdata");
    let ok = |args: &[&Path]| {
        let o = run_ours(args.iter().map(|p| p.as_os_str()));
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        o
    };
    let dash_o = Path::new("-o");
    // iprof → proftext by extension; → profdata by --output-format.
    let txt = d.path().join("out.proftext");
    ok(&[&iprof_in, dash_o, &txt]);
    assert!(
        std::fs::read_to_string(&txt)
            .unwrap()
            .starts_with("# IR level")
    );
    // LLVM → iprof.
    let ip = d.path().join("clang.iprof");
    ok(&[&clang, dash_o, &ip]);
    let back = d.path().join("clang.profdata");
    ok(&[&ip, dash_o, &back]);
    // Mixed inputs into either output.
    let mixed = d.path().join("mixed.profdata");
    ok(&[&iprof_in, &clang, dash_o, &mixed]);
    let (mb, cb) = (
        std::fs::read(&mixed).unwrap(),
        std::fs::read(&clang).unwrap(),
    );
    let m = frontends::read(&mb, &NameCache::new()).unwrap().profile;
    let c = frontends::read(&cb, &NameCache::new()).unwrap().profile;
    for r in &c.records {
        assert!(m.records.iter().any(|x| x.key == r.key));
    }
    let mixed_ip = d.path().join("mixed.iprof");
    ok(&[&iprof_in, &clang, dash_o, &mixed_ip]);
    let mp = iprof_reader::read_file(&mixed_ip, Default::default())
        .unwrap()
        .profile;
    assert!(mp.call_counts.len() > 3000);
    // Mixed inputs without an output format are refused.
    let o = run_ours([
        iprof_in.as_os_str(),
        clang.as_os_str(),
        "-o".as_ref(),
        d.path().join("out").as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("mix"));
}

/// Every LLVM profile in testdata/ (raw, indexed and text), converted to iprof and back by
/// the command line, shows exactly as the profile itself written directly (which the
/// llvm_identity and older_llvm tests compare with llvm-profdata's own output):
/// `llvm-profdata show --all-functions --counts --ic-targets --memop-sizes`, value sites
/// included, so values of equal count come back in their order (the compiler promotes the
/// first of equal indirect-call targets).
#[test]
fn llvm_to_iprof_to_llvm_shows_identically() {
    let test = "LLVM to iprof to LLVM, shown";
    let Some(p23) = tool("llvm-profdata-23", test) else {
        return;
    };
    let root = crate::common::root();
    let mut files = Vec::new();
    for dir in std::fs::read_dir(root.join("testdata/profraw"))
        .unwrap()
        .flatten()
    {
        files.extend(crate::common::raws_of(&dir.file_name().to_string_lossy()));
    }
    files.extend(profdata_files("profdata"));
    files.extend(profdata_files("proftext"));
    let d = tempdir();
    let (direct, ip, back) = (
        d.path().join("direct.profdata"),
        d.path().join("x.iprof"),
        d.path().join("back.profdata"),
    );
    // The view, of the ordinary records and then of the context-sensitive ones.
    let show = |f: &Path| {
        let mut text = String::new();
        for cs in [false, true] {
            let mut args: Vec<&std::ffi::OsStr> = vec![
                "show".as_ref(),
                "--all-functions".as_ref(),
                "--counts".as_ref(),
                "--ic-targets".as_ref(),
                "--memop-sizes".as_ref(),
            ];
            if cs {
                args.push("--showcs".as_ref());
            }
            args.push(f.as_os_str());
            let o = run(&p23, &args);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            text.push_str(&String::from_utf8_lossy(&o.stdout));
        }
        text.replace(&f.display().to_string(), "FILE")
    };
    let (mut same, mut empty) = (0, 0);
    for f in &files {
        let name = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        let ok = |args: &[&Path]| {
            let o = run_ours(args.iter().map(|p| p.as_os_str()));
            assert!(
                o.status.success(),
                "{name}: {args:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        };
        let t = Path::new("--target-llvm=23");
        let dash_o = Path::new("-o");
        ok(&[f, t, dash_o, &direct]);
        ok(&[f, dash_o, &ip]);
        ok(&[&ip, t, dash_o, &back]);
        let (a, b) = (show(&direct), show(&back));
        if a.matches("Total functions: 0\n").count() == 2 {
            // Correlation-mode raw files: no records, so no method carries the profile's
            // flags through the iprof file; nothing else to compare.
            empty += 1;
            continue;
        }
        if a != b {
            let diff = crate::common::differing_lines(&a, &b, 8, "direct", "round trip");
            panic!("{name}: the round trip shows differently\n{}", diff);
        }
        same += 1;
    }
    eprintln!(
        "{test}: {same} profiles show identically after the round trip; {empty} without records"
    );
    assert!(same > 150, "{same}");
}

/// A GraalVM profile left in a directory of LLVM profiles is not converted into the LLVM
/// output unasked (issue: a C build's profile grew from 275 to 4,308 records with a note
/// only): the directory adds its LLVM profiles, the other file is named in a warning, and
/// `--dump-input-file-list` lists what the merge reads. Named on its own, the same file is
/// converted; into an .iprof output the directory adds its GraalVM profiles instead; the
/// drop-in, as llvm-profdata, reads every file as an LLVM profile and refuses it.
#[test]
fn a_directory_adds_the_profiles_of_the_runs_family_only() {
    let root = crate::common::root();
    let d = tempdir();
    let dir = d.path().join("profiles");
    std::fs::create_dir(&dir).unwrap();
    let raw = dir.join("a.profraw");
    std::fs::copy(
        root.join("testdata/profraw/clang19/ir-basic-run1.profraw"),
        &raw,
    )
    .unwrap();
    let stray = dir.join("stray.iprof");
    std::fs::copy(root.join("testdata/iprof/small-v1.1.0.iprof"), &stray).unwrap();
    let ours = |args: &[&std::ffi::OsStr]| {
        let o = run_ours(args);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{args:?}: {err}");
        (String::from_utf8_lossy(&o.stdout).into_owned(), err)
    };
    let (alone, from_dir) = (
        d.path().join("alone.profdata"),
        d.path().join("dir.profdata"),
    );
    ours(&[raw.as_os_str(), "-o".as_ref(), alone.as_os_str()]);
    let (_, err) = ours(&[dir.as_os_str(), "-o".as_ref(), from_dir.as_os_str()]);
    assert_eq!(
        std::fs::read(&alone).unwrap(),
        std::fs::read(&from_dir).unwrap()
    );
    assert!(
        err.contains(&format!(
            "{}: left out 1 file of GraalVM profiles",
            dir.display()
        )),
        "{err}"
    );
    assert!(!err.contains("mixing"), "{err}");
    let listed = |extra: &[&std::ffi::OsStr]| {
        let mut args = vec![dir.as_os_str(), "-o".as_ref(), from_dir.as_os_str()];
        args.extend_from_slice(extra);
        args.push("--dump-input-file-list".as_ref());
        ours(&args).0
    };
    assert_eq!(listed(&[]), format!("1,{}\n", raw.display()));
    // Named, it is asked for: converted, and listed as merged (after the LLVM inputs).
    assert_eq!(
        listed(&[stray.as_os_str()]),
        format!("1,{}\n1,{}\n", raw.display(), stray.display())
    );
    let (_, err) = ours(&[
        dir.as_os_str(),
        stray.as_os_str(),
        "-o".as_ref(),
        from_dir.as_os_str(),
    ]);
    assert!(err.contains("mixing 1 GraalVM"), "{err}");
    assert!(err.contains("from 2 of 2 inputs"), "{err}");
    // Into an .iprof output, the directory adds its GraalVM profiles.
    let ip = d.path().join("out.iprof");
    let (_, err) = ours(&[dir.as_os_str(), "-o".as_ref(), ip.as_os_str()]);
    assert!(
        err.contains("left out 1 file of LLVM profiles") && !err.contains("mixing"),
        "{err}"
    );
    // The drop-in reads the .iprof as llvm-profdata does: as an LLVM profile, and fails.
    let (_bin, dropin) = crate::common::dropin();
    let o = std::process::Command::new(&dropin)
        .args([
            "merge".as_ref(),
            dir.as_os_str(),
            "-o".as_ref(),
            from_dir.as_os_str(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("stray.iprof"), "{err}");
}
