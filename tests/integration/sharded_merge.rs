//! Sharded merging: the inputs merged in K contiguous groups, then the K partial `.profdata`
//! merged in group order, give the same bytes as one merge of all inputs, in the cases
//! docs/sharded-merging.md lists; and the cases where LLVM's semantics make the result depend
//! on the grouping, each with the difference it makes (and, where llvm-profdata-22 is
//! installed, the same difference from llvm-profdata itself, so that it is LLVM's semantics
//! and not ours).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::common::*;

/// One input of a merge: a file and its weight (`None`: a plain input).
#[derive(Clone)]
struct In {
    path: PathBuf,
    weight: Option<&'static str>,
}

fn plain(paths: &[PathBuf]) -> Vec<In> {
    paths
        .iter()
        .map(|p| In {
            path: p.clone(),
            weight: None,
        })
        .collect()
}

/// `paths` with the weights of `weights`, cycled.
fn weighted(paths: &[PathBuf], weights: &[&'static str]) -> Vec<In> {
    paths
        .iter()
        .enumerate()
        .map(|(i, p)| In {
            path: p.clone(),
            weight: Some(weights[i % weights.len()]),
        })
        .collect()
}

/// How weighted inputs are given on the command line.
#[derive(Clone, Copy, Debug)]
enum Form {
    /// `-w W,FILE` and `--weighted-input=W,FILE`, alternately.
    Args,
    /// A `-f` list of `W,FILE` lines.
    List,
}

/// Merges `inputs` in order into `out` with `tool` (our binary, or an llvm-profdata given
/// `--num-threads=1`: with several threads llvm-profdata merges per-thread partial results,
/// which is itself a sharded merge). Plain and weighted inputs are never mixed on one
/// command line, because plain inputs are merged before weighted ones there.
fn merge_with(
    tool: Option<&Path>,
    out: &Path,
    inputs: &[In],
    extra: &[&str],
    form: Form,
) -> Vec<u8> {
    let mut args: Vec<OsString> = vec!["merge".into(), "-o".into(), out.into()];
    if tool.is_some() {
        args.push("--num-threads=1".into());
    }
    args.extend(extra.iter().map(OsString::from));
    let any_weight = inputs.iter().any(|i| i.weight.is_some());
    let entry = |i: &In| format!("{},{}", i.weight.unwrap_or("1"), i.path.display());
    match (any_weight, form) {
        (false, _) => args.extend(inputs.iter().map(|i| i.path.clone().into_os_string())),
        (true, Form::Args) => {
            for (n, i) in inputs.iter().enumerate() {
                // llvm-profdata has no `-w`.
                if n % 2 == 0 && tool.is_none() {
                    args.push("-w".into());
                    args.push(entry(i).into());
                } else {
                    args.push(format!("--weighted-input={}", entry(i)).into());
                }
            }
        }
        (true, Form::List) => {
            let list = out.with_extension("list");
            let text: String = inputs.iter().map(|i| entry(i) + "\n").collect();
            std::fs::write(&list, text).unwrap();
            args.push("-f".into());
            args.push(list.into_os_string());
        }
    }
    let output = match tool {
        Some(t) => run(t, &args.iter().map(|a| a.as_os_str()).collect::<Vec<_>>()),
        None => run_ours(&args),
    };
    assert_ok(&output, &format!("merge into {}", out.display()));
    std::fs::read(out).unwrap()
}

fn merge(out: &Path, inputs: &[In], extra: &[&str], form: Form) -> Vec<u8> {
    merge_with(None, out, inputs, extra, form)
}

/// The groups of `n` inputs cut at `cuts` (ascending, inside 1..n).
fn groups(n: usize, cuts: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(n);
    bounds.windows(2).map(|w| w[0]..w[1]).collect()
}

/// K even contiguous groups.
fn even_cuts(n: usize, k: usize) -> Vec<usize> {
    (1..k).map(|g| g * n / k).collect()
}

/// Merges each group of `inputs` (weights and `extra` at this level), then the partials
/// in group order with weight 1 and the same `extra`; returns the final bytes.
fn sharded_with(
    tool: Option<&Path>,
    dir: &Path,
    tag: &str,
    inputs: &[In],
    cuts: &[usize],
    extra: &[&str],
    form: Form,
) -> Vec<u8> {
    let mut partials = Vec::new();
    for (g, range) in groups(inputs.len(), cuts).into_iter().enumerate() {
        let p = dir.join(format!("{tag}-part{g}.profdata"));
        merge_with(tool, &p, &inputs[range], extra, form);
        partials.push(p);
    }
    let fin = dir.join(format!("{tag}-final.profdata"));
    merge_with(tool, &fin, &plain(&partials), extra, form)
}

fn sharded(
    dir: &Path,
    tag: &str,
    inputs: &[In],
    cuts: &[usize],
    extra: &[&str],
    form: Form,
) -> Vec<u8> {
    sharded_with(None, dir, tag, inputs, cuts, extra, form)
}

/// Every grouping checked for exactness: K = 2..=5 even groups, a lone first or last input,
/// and a first group holding most inputs.
fn groupings(n: usize) -> Vec<Vec<usize>> {
    let mut v: Vec<Vec<usize>> = (2..=5.min(n)).map(|k| even_cuts(n, k)).collect();
    v.push(vec![1]);
    v.push(vec![n - 1]);
    v.push(vec![n - 2, n - 1]);
    v
}

/// Asserts that every grouping of `inputs` gives `single`'s bytes.
fn assert_exact(dir: &Path, what: &str, inputs: &[In], extra: &[&str], form: Form) {
    let single = merge(&dir.join("single.profdata"), inputs, extra, form);
    for (n, cuts) in groupings(inputs.len()).iter().enumerate() {
        let got = sharded(dir, &format!("g{n}"), inputs, cuts, extra, form);
        assert!(
            got == single,
            "{what}: groups cut at {cuts:?} of {} inputs ({form:?}, {extra:?}) differ from one merge",
            inputs.len()
        );
    }
}

/// IR raw profiles of three producers, with indirect-call, memory-size and vtable value
/// sites (some holding several targets unknown to the profile, all value 0), merge pools and
/// records that share a name: the set the determinism test merges.
fn ir_set() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for p in ["clang22", "clang19", "rustc"] {
        for f in raws_of(p) {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("ir-")
                || name.starts_with("vtable-")
                || name.starts_with("two-tu")
                || name.starts_with("merge-pool")
            {
                v.push(f);
            }
        }
    }
    assert!(v.len() >= 16, "testdata/profraw is incomplete: {v:?}");
    v
}

/// `two-tu` from every producer: IR profiles without value sites (raw versions 4 to 11).
fn no_value_set() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for p in [
        "clang9", "clang11", "clang13", "clang14", "clang18", "clang19", "clang22", "clang23",
    ] {
        let f = raw(&format!("{p}/two-tu.profraw"));
        if f.is_file() {
            v.push(f);
        }
    }
    assert!(v.len() >= 6, "testdata/profraw is incomplete: {v:?}");
    v
}

/// Front-end profiles (clang -fprofile-instr-generate) of clang 22 and 23, 64- and 32-bit,
/// with MC/DC bitmaps and no value sites.
fn mcdc_set() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for p in ["clang22", "clang23"] {
        for f in ["mcdc", "mcdc-m32", "fe-basic", "fe-basic-m32"] {
            v.push(raw(&format!("{p}/{f}.profraw")));
        }
    }
    v
}

/// The temporal raw profiles (one trace each) of clang 18, 19, 22 and 23.
fn temporal_set() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for p in ["clang18", "clang19", "clang22", "clang23"] {
        for run in ["run1", "run2"] {
            v.push(raw(&format!("{p}/temporal-{run}.profraw")));
        }
    }
    v
}

/// Each of `paths` converted on its own to an indexed profile in `dir`.
fn indexed(dir: &Path, paths: &[PathBuf]) -> Vec<PathBuf> {
    paths
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let out = dir.join(format!("in{i:02}.profdata"));
            merge(&out, &plain(std::slice::from_ref(p)), &[], Form::Args);
            out
        })
        .collect()
}

#[test]
fn raw_inputs_shard_exactly() {
    let dir = tempdir();
    assert_exact(dir.path(), "raw", &plain(&ir_set()), &[], Form::Args);
    // --sparse at both levels: a function all zero in one group is dropped there and comes
    // back from the group where it ran, as in one merge.
    assert_exact(
        dir.path(),
        "raw --sparse",
        &plain(&ir_set()),
        &["--sparse"],
        Form::Args,
    );
}

#[test]
fn indexed_and_mixed_inputs_shard_exactly() {
    let dir = tempdir();
    let raws = ir_set();
    let idx = indexed(dir.path(), &raws);
    assert_exact(dir.path(), "indexed", &plain(&idx), &[], Form::Args);
    // Raw and indexed inputs alternately: the same records, so the same output as raw only.
    let mixed: Vec<PathBuf> = (0..raws.len())
        .map(|i| {
            if i % 2 == 0 {
                raws[i].clone()
            } else {
                idx[i].clone()
            }
        })
        .collect();
    assert_exact(dir.path(), "mixed", &plain(&mixed), &[], Form::Args);
    let a = merge(
        &dir.path().join("a.profdata"),
        &plain(&raws),
        &[],
        Form::Args,
    );
    let b = merge(
        &dir.path().join("b.profdata"),
        &plain(&mixed),
        &[],
        Form::Args,
    );
    assert!(
        a == b,
        "raw and mixed inputs of the same records give different outputs"
    );
}

#[test]
fn weighted_inputs_without_value_sites_shard_exactly() {
    // Counters add and MC/DC bitmaps OR: weights applied once, in the groups, commute with
    // grouping, fractional weights included (each input's counts are rounded on their own).
    let dir = tempdir();
    let set = no_value_set();
    let idx = indexed(dir.path(), &set);
    let mcdc = mcdc_set();
    for (what, files) in [("raw", &set), ("indexed", &idx), ("MC/DC", &mcdc)] {
        for form in [Form::Args, Form::List] {
            let w = weighted(files, &["2", "1", "3", "0.5", "2.25"]);
            assert_exact(dir.path(), &format!("weighted {what}"), &w, &[], form);
        }
    }
}

#[test]
fn weighted_inputs_shard_exactly_with_weight_all_values() {
    // With --weight-all-values every value count is weight × count wherever it lands, so value
    // sites add like counters and weighted merges shard exactly, value profiles included.
    let dir = tempdir();
    let set = ir_set();
    let idx = indexed(dir.path(), &set);
    for (what, files) in [("raw", &set), ("indexed", &idx)] {
        let w = weighted(files, &["2", "1", "3", "0.5"]);
        assert_exact(
            dir.path(),
            &format!("weighted {what}"),
            &w,
            &["--weight-all-values"],
            Form::Args,
        );
    }
}

#[test]
fn llvm_profdata_shards_the_same_way() {
    // llvm-profdata-22 (one thread) run on the same groups writes the same partials and the
    // same final file as we do: our sharded merge is LLVM's sharded merge.
    let Some(llvm) = tool("llvm-profdata-22", "llvm_profdata_shards_the_same_way") else {
        return;
    };
    let dir = tempdir();
    // Raw version 10 only (llvm-profdata-22 reads no other).
    let set: Vec<PathBuf> = ir_set()
        .into_iter()
        .filter(|p| raw_version(p) == 10)
        .collect();
    let inputs = plain(&set);
    let cuts = even_cuts(set.len(), 3);
    let ours = sharded(dir.path(), "ours", &inputs, &cuts, &[], Form::Args);
    let theirs = sharded_with(
        Some(&llvm),
        dir.path(),
        "llvm",
        &inputs,
        &cuts,
        &[],
        Form::Args,
    );
    for g in 0..3 {
        let a = std::fs::read(dir.path().join(format!("ours-part{g}.profdata"))).unwrap();
        let b = std::fs::read(dir.path().join(format!("llvm-part{g}.profdata"))).unwrap();
        assert!(a == b, "partial {g} differs from llvm-profdata's");
    }
    assert!(ours == theirs, "final merge differs from llvm-profdata's");
    let single = merge(
        &dir.path().join("single.profdata"),
        &inputs,
        &[],
        Form::Args,
    );
    assert!(single == ours, "sharded differs from one merge");
}

/// The raw profiles of the sqlite benchmark (`benches/sqlite-workload.sh`: 198 runs of the
/// sqlite shell built by clang 22, 2,050 functions with indirect-call and memory-size sites),
/// from `PGO_MERGE_SQLITE_PROFILES` or the script's default folder; None (and a SKIPPED
/// line) if they have not been made.
fn sqlite_profiles(test: &str) -> Option<Vec<PathBuf>> {
    let dir = std::env::var_os("PGO_MERGE_SQLITE_PROFILES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/pgo-merge-bench/sqlite"));
    let v = crate::common::files_with_extension(&dir, "profraw");
    if v.len() < 20 {
        eprintln!(
            "SKIPPED {test}: no sqlite benchmark profiles in {} (make them with \
             `bash benches/sqlite-workload.sh`, or point PGO_MERGE_SQLITE_PROFILES at them)",
            dir.display()
        );
        return None;
    }
    Some(v)
}

#[test]
fn sqlite_profiles_shard_exactly() {
    let Some(files) = sqlite_profiles("sqlite_profiles_shard_exactly") else {
        return;
    };
    let dir = tempdir();
    let d = dir.path();
    let inputs = plain(&files);
    let single = merge(&d.join("single.profdata"), &inputs, &[], Form::Args);
    let cuts = even_cuts(files.len(), 3);
    assert!(sharded(d, "k3", &inputs, &cuts, &[], Form::Args) == single);
    // Weighted: exact with --weight-all-values; without it only value counts differ.
    let w = weighted(&files, &["1", "2", "3"]);
    let extra = ["--weight-all-values"];
    let one = merge(&d.join("w.profdata"), &w, &extra, Form::List);
    assert!(sharded(d, "wk2", &w, &[files.len() / 2], &extra, Form::List) == one);
}

/// `show --temporal-profile-traces` of `file`: the header and each trace's header line.
fn traces(file: &Path) -> Vec<String> {
    let out = run_ours([
        OsString::from("show"),
        "--temporal-profile-traces".into(),
        file.into(),
    ]);
    assert_ok(&out, "show --temporal-profile-traces");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("Temporal Profile Trace"))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn temporal_traces_shard_exactly_while_no_group_overflows_the_reservoir() {
    let dir = tempdir();
    // Distinct weights tell the traces apart (all eight runs record the same function
    // order); --weight-all-values keeps their memory-size sites exact under weights.
    let inputs = weighted(&temporal_set(), &["1", "2", "3", "4", "5", "6", "7", "8"]);
    let d = dir.path();
    // Eight traces fit the default reservoir of 100: kept in input order, any grouping.
    assert_exact(d, "temporal", &inputs, &["--weight-all-values"], Form::Args);
    // A reservoir of 2: one merge keeps the first two traces (a raw input's stream is one
    // trace, so once the reservoir is full later raw traces are only counted) ...
    let extra = [
        "--weight-all-values",
        "--temporal-profile-trace-reservoir-size=2",
    ];
    let single = merge(&d.join("r2.profdata"), &inputs, &extra, Form::Args);
    assert_eq!(
        traces(&d.join("r2.profdata")),
        [
            "Temporal Profile Traces (samples=2 seen=8):",
            "Temporal Profile Trace 0 (weight=1 count=8):",
            "Temporal Profile Trace 1 (weight=2 count=8):"
        ]
    );
    // ... and so does every grouping whose groups hold at most 2 traces: each partial keeps
    // all its traces, and a partial whose traces do not fit has a stream no longer than the
    // reservoir, so nothing is sampled.
    for cuts in [vec![2, 4, 6], vec![1, 2, 3, 4, 5, 6, 7]] {
        let got = sharded(d, "r2", &inputs, &cuts, &extra, Form::Args);
        assert!(got == single, "reservoir 2, cuts {cuts:?}: differs");
    }
}

// ------------------------------------------------------------------------------------------
// Where grouping changes the result.

/// The records of an LLVM text profile: (name, hash) → (counters, value sites: per kind line
/// and site, the `value:count` entries in order; MC/DC bitmap bytes).
type Records = BTreeMap<(String, u64), (Vec<u64>, Vec<Vec<(String, u64)>>, Vec<String>)>;

/// Our text dump of `file`, parsed.
fn records(file: &Path) -> Records {
    let out = run_ours([
        OsString::from("merge"),
        "--text".into(),
        "-o".into(),
        "-".into(),
        file.into(),
    ]);
    assert_ok(&out, "merge --text");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut recs = Records::new();
    // Skip the temporal-trace section (up to its blank line), comments and flags.
    let mut in_traces = false;
    let data: Vec<&str> = text
        .lines()
        .filter(|l| {
            if *l == ":temporal_prof_traces" {
                in_traces = true;
            } else if in_traces && l.is_empty() {
                in_traces = false;
                return false;
            }
            !in_traces && !l.starts_with('#') && !l.starts_with(':')
        })
        .collect();
    let mut i = 0;
    let num = |s: &str| -> u64 { s.trim().parse().unwrap_or_else(|_| panic!("number: {s:?}")) };
    while i < data.len() {
        if data[i].is_empty() {
            i += 1;
            continue;
        }
        let name = data[i].to_string();
        let hash = num(data[i + 1]);
        let n = num(data[i + 2]) as usize;
        let counters: Vec<u64> = data[i + 3..i + 3 + n].iter().map(|s| num(s)).collect();
        i += 3 + n;
        let mut bitmap = Vec::new();
        if let Some(nb) = data.get(i).and_then(|l| l.strip_prefix('$')) {
            let nb = num(nb) as usize;
            bitmap = data[i + 1..i + 1 + nb]
                .iter()
                .map(|l| l.to_string())
                .collect();
            i += 1 + nb;
        }
        let mut sites = Vec::new();
        if i < data.len() && !data[i].is_empty() {
            let kinds = num(data[i]);
            i += 1;
            for _ in 0..kinds {
                i += 1; // the kind
                let nsites = num(data[i]);
                i += 1;
                for _ in 0..nsites {
                    let nv = num(data[i]) as usize;
                    let site = data[i + 1..i + 1 + nv]
                        .iter()
                        .map(|l| {
                            let (v, c) = l.rsplit_once(':').unwrap();
                            (v.to_string(), num(c))
                        })
                        .collect();
                    sites.push(site);
                    i += 1 + nv;
                }
            }
        }
        recs.insert((name, hash), (counters, sites, bitmap));
    }
    recs
}

#[test]
fn weighted_value_counts_depend_on_the_grouping() {
    // LLVM weights a value count only if the value is already in the site (or the record is
    // the function's first): a value that run 2 adds to a site is unweighted in one merge
    // after run 1, but weighted when run 2 is alone in its group, where its record is first.
    let dir = tempdir();
    let d = dir.path();
    let (run1, run2) = (
        raw("clang22/temporal-run1.profraw"),
        raw("clang22/temporal-run2.profraw"),
    );
    let inputs = vec![
        In {
            path: run1.clone(),
            weight: Some("1"),
        },
        In {
            path: run2.clone(),
            weight: Some("3"),
        },
    ];
    merge(&d.join("single.profdata"), &inputs, &[], Form::Args);
    sharded(d, "s", &inputs, &[1], &[], Form::Args);
    let (single, split) = (
        records(&d.join("single.profdata")),
        records(&d.join("s-final.profdata")),
    );
    let (r1, r2) = (records(&run1), records(&run2));
    let mut new_values = 0;
    assert!(single.keys().eq(split.keys()), "not the same functions");
    for (key, (counters, sites, _)) in &single {
        let (c2, s2, _) = &split[key];
        assert_eq!(counters, c2, "{key:?}: counters differ");
        let Some(rec2) = r2.get(key) else {
            // Only in run 1: nothing weighted.
            assert_eq!(sites, s2, "{key:?}");
            continue;
        };
        let empty = Vec::new();
        let sites1 = r1.get(key).map_or(&empty, |r| &r.1);
        for (si, site) in sites.iter().enumerate() {
            let count = |s: &[(String, u64)], v: &str| s.iter().find(|e| e.0 == v).map(|e| e.1);
            for (v, c) in &rec2.1[si] {
                let in_run1 = sites1.get(si).and_then(|s| count(s, v));
                let (one, two) = (count(site, v).unwrap(), count(&s2[si], v).unwrap());
                match in_run1 {
                    // In both runs: weighted either way.
                    Some(c1) => assert_eq!((one, two), (c1 + 3 * c, c1 + 3 * c), "{key:?} {v}"),
                    // New to the site: unweighted after run 1, weighted alone.
                    None => {
                        assert_eq!((one, two), (*c, 3 * c), "{key:?} {v}");
                        new_values += 1;
                    }
                }
            }
        }
    }
    assert!(new_values > 0, "run 2 adds no value to a site of run 1");
    if let Some(llvm) = tool(
        "llvm-profdata-22",
        "weighted_value_counts_depend_on_the_grouping",
    ) {
        let a = merge_with(Some(&llvm), &d.join("l.profdata"), &inputs, &[], Form::Args);
        let b = sharded_with(Some(&llvm), d, "l", &inputs, &[1], &[], Form::Args);
        assert!(a == std::fs::read(d.join("single.profdata")).unwrap());
        assert!(b == std::fs::read(d.join("s-final.profdata")).unwrap());
    }
}

#[test]
fn weights_belong_on_the_inputs_not_on_the_partials() {
    let dir = tempdir();
    let d = dir.path();
    let files = [
        raw("clang22/temporal-run1.profraw"),
        raw("clang22/temporal-run2.profraw"),
    ];
    // Both inputs weighted 3 in one merge, against their unweighted partial weighted 3.
    let at_leaves = merge(
        &d.join("w.profdata"),
        &weighted(&files, &["3"]),
        &[],
        Form::Args,
    );
    merge(&d.join("p.profdata"), &plain(&files), &[], Form::Args);
    let p = In {
        path: d.join("p.profdata"),
        weight: Some("3"),
    };
    let on_partial = merge(&d.join("pw.profdata"), &[p], &[], Form::Args);
    assert!(at_leaves != on_partial);
    let (a, b) = (
        records(&d.join("w.profdata")),
        records(&d.join("pw.profdata")),
    );
    // Counters are linear: the same.
    for (key, (c, _, _)) in &a {
        assert_eq!(c, &b[key].0, "{key:?}");
    }
    // Temporal traces: a raw input's trace takes its input's weight, an indexed input's
    // traces keep theirs. And the partial's record is the first of its function, so all its
    // values are weighted, where run 2's values new to a site were not.
    assert_eq!(
        traces(&d.join("w.profdata"))[1..],
        [
            "Temporal Profile Trace 0 (weight=3 count=8):",
            "Temporal Profile Trace 1 (weight=3 count=8):"
        ]
    );
    assert_eq!(
        traces(&d.join("pw.profdata"))[1..],
        [
            "Temporal Profile Trace 0 (weight=1 count=8):",
            "Temporal Profile Trace 1 (weight=1 count=8):"
        ]
    );
    assert!(
        a.iter().any(|(k, r)| r.1 != b[k].1),
        "no value count differs"
    );
    // Weighting both the inputs and the partial applies the weight twice.
    let q = In {
        path: d.join("w.profdata"),
        weight: Some("3"),
    };
    merge(&d.join("ww.profdata"), &[q], &[], Form::Args);
    for (key, (c, _, _)) in &records(&d.join("ww.profdata")) {
        let times3: Vec<u64> = a[key].0.iter().map(|x| x * 3).collect();
        assert_eq!(c, &times3, "{key:?}");
    }
}

#[test]
fn temporal_sampling_depends_on_the_grouping_when_a_group_overflows_the_reservoir() {
    // Reservoir 2, groups of 4 traces: the first partial keeps traces 1 and 2 with a stream of
    // 4; the second partial then arrives as one input of stream 4 whose traces do not fit,
    // and LLVM samples them into the full reservoir with its random draws, where one merge
    // of raw inputs never replaces a trace once the reservoir is full.
    let dir = tempdir();
    let d = dir.path();
    let inputs = weighted(&temporal_set(), &["1", "2", "3", "4", "5", "6", "7", "8"]);
    let extra = [
        "--weight-all-values",
        "--temporal-profile-trace-reservoir-size=2",
    ];
    merge(&d.join("single.profdata"), &inputs, &extra, Form::Args);
    sharded(d, "s", &inputs, &[4], &extra, Form::Args);
    assert_eq!(
        traces(&d.join("single.profdata")),
        [
            "Temporal Profile Traces (samples=2 seen=8):",
            "Temporal Profile Trace 0 (weight=1 count=8):",
            "Temporal Profile Trace 1 (weight=2 count=8):"
        ]
    );
    assert_eq!(
        traces(&d.join("s-final.profdata")),
        [
            "Temporal Profile Traces (samples=2 seen=8):",
            "Temporal Profile Trace 0 (weight=5 count=8):",
            "Temporal Profile Trace 1 (weight=2 count=8):"
        ]
    );
    // Everything else is the same.
    assert_eq!(
        records(&d.join("single.profdata")),
        records(&d.join("s-final.profdata"))
    );
}

/// Writes an IR text profile of one function `name` (hash 1) with `counters` and, if `site`
/// is given, one value site of its kind (`IPVK_…`) holding its values.
fn text_profile(path: &Path, name: &str, counters: &[u64], site: Option<(&str, &[(String, u64)])>) {
    let mut s = format!(
        ":ir\n{name}\n# Func Hash:\n1\n# Num Counters:\n{}\n# Counter Values:\n",
        counters.len()
    );
    for c in counters {
        s += &format!("{c}\n");
    }
    if let Some((kind, values)) = site {
        let k = if kind == "IPVK_IndirectCallTarget" {
            0
        } else {
            1
        };
        s += &format!(
            "# Num Value Kinds:\n1\n# ValueKind = {kind}:\n{k}\n# NumValueSites:\n1\n{}\n",
            values.len()
        );
        for (v, c) in values {
            s += &format!("{v}:{c}\n");
        }
    }
    std::fs::write(path, s + "\n").unwrap();
}

/// One merge of `files` and the groups cut at `cuts`, by us and (if installed) by
/// llvm-profdata-22, which must agree with us at every step; returns our two outputs' records.
fn single_and_sharded(
    d: &Path,
    files: &[PathBuf],
    cuts: &[usize],
    extra: &[&str],
) -> (Records, Records) {
    let inputs = plain(files);
    let a = merge(&d.join("single.profdata"), &inputs, extra, Form::Args);
    let b = sharded(d, "s", &inputs, cuts, extra, Form::Args);
    assert!(a != b, "the grouping made no difference");
    if let Some(llvm) = tool("llvm-profdata-22", "single_and_sharded") {
        let la = merge_with(
            Some(&llvm),
            &d.join("l.profdata"),
            &inputs,
            extra,
            Form::Args,
        );
        let lb = sharded_with(Some(&llvm), d, "l", &inputs, cuts, extra, Form::Args);
        assert!(la == a, "one merge differs from llvm-profdata's");
        assert!(lb == b, "the sharded merge differs from llvm-profdata's");
    }
    (
        records(&d.join("single.profdata")),
        records(&d.join("s-final.profdata")),
    )
}

fn value_count(r: &Records, name: &str, value: &str) -> Option<u64> {
    r[&(name.to_string(), 1)].1[0]
        .iter()
        .find(|e| e.0 == value)
        .map(|e| e.1)
}

#[test]
fn value_sites_past_the_cap_depend_on_the_grouping() {
    // A site keeps at most 255 values after each merge (the lowest counts are cut). Synthetic,
    // as no real profile at hand reaches 255 values at a site: A fills a memory-size site
    // with 255 sizes of count 2; B adds size 1001 with count 1, C with count 5. One merge cuts
    // 1001 after B (the lowest count) and C brings it back with 5; merging B and C first gives
    // 1001 a count of 6 that survives the cut against A.
    let dir = tempdir();
    let d = dir.path();
    let a: Vec<(String, u64)> = (1..=255).map(|v| ((v * 2).to_string(), 2)).collect();
    let files: Vec<PathBuf> = ["a", "b", "c"]
        .iter()
        .map(|n| d.join(format!("{n}.proftext")))
        .collect();
    let mem = "IPVK_MemOPSize";
    text_profile(&files[0], "f", &[10], Some((mem, &a)));
    text_profile(&files[1], "f", &[10], Some((mem, &[("1001".into(), 1)])));
    text_profile(&files[2], "f", &[10], Some((mem, &[("1001".into(), 5)])));
    let (one, split) = single_and_sharded(d, &files, &[1], &[]);
    assert_eq!(value_count(&one, "f", "1001"), Some(5));
    assert_eq!(value_count(&split, "f", "1001"), Some(6));
    // Both cut one size of count 2 to make room: the largest (ties are in value order).
    assert_eq!(value_count(&one, "f", "510"), None);
    assert_eq!(value_count(&split, "f", "510"), None);
}

#[test]
fn repeated_values_pair_up_depending_on_the_grouping() {
    // Indirect-call targets outside the profile all read as value 0, so a site can hold 0
    // several times. LLVM pairs the entries of equal value in the order its sort leaves them:
    // a later input's site in its file order, a group's first record sorted by count first.
    // A: zeros with counts 10, 9; B: zeros with counts 1, 5 (file order). One merge pairs
    // 10+1 and 9+5; B alone in its group is sorted to 5, 1 first, giving 10+5 and 9+1.
    let dir = tempdir();
    let d = dir.path();
    let ext = |c: u64| ("** External Symbol **".to_string(), c);
    let ic = "IPVK_IndirectCallTarget";
    let files = [d.join("a.proftext"), d.join("b.proftext")];
    text_profile(&files[0], "g", &[10], Some((ic, &[ext(10), ext(9)])));
    text_profile(&files[1], "g", &[10], Some((ic, &[ext(1), ext(5)])));
    let (one, split) = single_and_sharded(d, &files, &[1], &[]);
    let key = ("g".to_string(), 1);
    assert_eq!(one[&key].1[0], [ext(14), ext(11)]);
    assert_eq!(split[&key].1[0], [ext(15), ext(10)]);
}

#[test]
fn conflicting_records_under_failure_mode_warn_depend_on_the_grouping() {
    // Under --failure-mode=warn (or all) a record whose counter count differs from the
    // first one's is dropped. With A (2 counters), B (3), C (2): one merge keeps A and C;
    // B starts its group, so C is dropped there, and then B against A in the final merge.
    let dir = tempdir();
    let d = dir.path();
    let files = [
        d.join("a.proftext"),
        d.join("b.proftext"),
        d.join("c.proftext"),
    ];
    text_profile(&files[0], "h", &[1, 2], None);
    text_profile(&files[1], "h", &[1, 2, 3], None);
    text_profile(&files[2], "h", &[10, 20], None);
    let (one, split) = single_and_sharded(d, &files, &[1], &["--failure-mode=warn"]);
    let key = ("h".to_string(), 1);
    assert_eq!(one[&key].0, [11, 22]);
    assert_eq!(split[&key].0, [1, 2]);
    // Under the default (any), both ways fail: one merge, and the second group's merge.
    let out = run_ours([
        OsString::from("merge"),
        "-o".into(),
        d.join("x.profdata").into(),
        files[0].clone().into(),
        files[1].clone().into(),
        files[2].clone().into(),
    ]);
    assert!(!out.status.success());
    let out = run_ours([
        OsString::from("merge"),
        "-o".into(),
        d.join("y.profdata").into(),
        files[1].clone().into(),
        files[2].clone().into(),
    ]);
    assert!(!out.status.success());
}

/// The structural hashes of `file`'s records in the order it stores them.
fn stored_hashes(file: &Path) -> Vec<String> {
    let out = run_ours([
        OsString::from("show"),
        "--all-functions".into(),
        file.into(),
    ]);
    assert_ok(&out, "show --all-functions");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Hash: ").map(str::to_string))
        .collect()
}

#[test]
fn records_sharing_a_name_can_be_stored_in_another_order() {
    // LLVM keeps a name's records in a hash map of 4 slots and writes them in slot order.
    // Structural hashes 1 and 6 both hash to the last slot, so the second one inserted wraps
    // around to slot 0 and is written first. One merge inserts 1 then 6 and writes 6, 1; the
    // partial of the first group is written 6, 1 too, so the final merge reads and inserts
    // 6 then 1, and writes 1, 6. Same records and counts, other bytes. (A function's CS and
    // non-CS records share its name, so CSPGO profiles meet this for about one such name in
    // sixteen.)
    let dir = tempdir();
    let d = dir.path();
    let rec = |h: u64, c: u64| {
        format!("f\n# Func Hash:\n{h}\n# Num Counters:\n1\n# Counter Values:\n{c}\n\n")
    };
    let files = [d.join("a.proftext"), d.join("b.proftext")];
    std::fs::write(&files[0], format!(":ir\n{}{}", rec(1, 1), rec(6, 2))).unwrap();
    std::fs::write(&files[1], format!(":ir\n{}", rec(1, 3))).unwrap();
    let (one, split) = single_and_sharded(d, &files, &[1], &[]);
    assert_eq!(one, split);
    let h = |s: &str| s.to_string();
    assert_eq!(
        stored_hashes(&d.join("single.profdata")),
        [h("0x0000000000000006"), h("0x0000000000000001")]
    );
    assert_eq!(
        stored_hashes(&d.join("s-final.profdata")),
        [h("0x0000000000000001"), h("0x0000000000000006")]
    );
}

#[test]
fn records_sharing_a_name_in_real_profiles_can_be_stored_in_another_order() {
    // The same, met in real profiles: clang 19 and clang 22 give `check4` of the MC/DC test
    // program structural hashes that differ in the top bits only (0xb71d… and 0x071d…), and
    // the two collide at the last slot. One merge of [clang 19, clang 22, clang 19] stores
    // clang 22's record first; the groups {19, 22} {19} store clang 19's first.
    let dir = tempdir();
    let d = dir.path();
    let (c19, c22) = (raw("clang19/mcdc.profraw"), raw("clang22/mcdc.profraw"));
    let files = [c19.clone(), c22, c19];
    let (one, split) = single_and_sharded(d, &files, &[2], &[]);
    assert_eq!(one, split);
    let check4 = |f: &str| -> Vec<String> {
        stored_hashes(&d.join(f))
            .into_iter()
            .filter(|h| h.ends_with("1d87d921fa9e43"))
            .collect()
    };
    let (a, b) = ("0x071d87d921fa9e43", "0xb71d87d921fa9e43");
    assert_eq!(check4("single.profdata"), [a, b]);
    assert_eq!(check4("s-final.profdata"), [b, a]);
}
