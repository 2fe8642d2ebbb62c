//! BOLT fdata and YAML profiles: merges compared with the live `merge-fdata` 19, 22 and 23
//! (fdata as sorted lines, since its order varies from run to run; YAML byte for byte), our
//! side called as the drop-in `merge-fdata-N` and as `pgo-merge --target-llvm N`; LLVM 20
//! semantics, determinism, failure modes, and `llvm-bolt-19` reading our output.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{assert_ok, root, run_full, tempdir, tool};

/// The recorded profiles (`testdata/bolt/regenerate.sh`) whose names start with `prefix`.
fn recorded(prefix: &str) -> Vec<PathBuf> {
    let dir = root().join("testdata/bolt");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("testdata/bolt")
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with(prefix) && n.ends_with(".fdata")
        })
        .collect();
    v.sort();
    v
}

/// A directory with our binary linked as `name` (a drop-in), kept alive by the guard.
fn linked_as(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempdir();
    let link = dir.path().join(name);
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).expect("symlink");
    (dir, link)
}

/// Runs `exe` on `files` (stdout is the merged profile): (exit code, stdout, stderr).
fn merge_with(exe: &Path, files: &[PathBuf]) -> (i32, String, String) {
    run_full(Command::new(exe).args(files))
}

/// The lines of `s`, sorted.
fn sorted(s: &str) -> Vec<&str> {
    let mut v: Vec<&str> = s.lines().collect();
    v.sort_unstable();
    v
}

/// The LLVM releases whose `merge-fdata` our merges are compared with, live: Debian
/// bookworm's `bolt-19` and Debian sid's `bolt-22` and `bolt-23` (`.ci/install-llvm-sid.sh`).
const LIVE_RELEASES: [u32; 3] = [19, 22, 23];

/// Every `merge-fdata-N` of [`LIVE_RELEASES`] that is on PATH, with its release N; each
/// missing one prints SKIPPED (a failure under `PGO_MERGE_REQUIRE_TOOLS=1`).
fn live_merge_fdata(test: &str) -> Vec<(u32, PathBuf)> {
    LIVE_RELEASES
        .iter()
        .filter_map(|&n| tool(&format!("merge-fdata-{n}"), test).map(|p| (n, p)))
        .collect()
}

/// Runs our binary natively, `pgo-merge --target-llvm N FILES -o DIR/native.EXT`, and
/// returns the output file's bytes.
fn native_merge(n: u32, files: &[PathBuf], ext: &str, what: &str) -> String {
    let dir = tempdir();
    let out = dir.path().join(format!("native.{ext}"));
    let r = crate::common::run_ours(
        ["--target-llvm".into(), n.to_string().into()]
            .into_iter()
            .chain(files.iter().map(|p| p.as_os_str().to_owned()))
            .chain(["-o".into(), out.clone().into_os_string()]),
    );
    assert_ok(&r, &format!("{what}: pgo-merge --target-llvm {n}"));
    std::fs::read_to_string(out).unwrap()
}

/// Asserts that our `merge-fdata-N` (the drop-in) and LLVM N's (`theirs`) give the same lines
/// on `files`, that ours are in our documented order, and that `pgo-merge --target-llvm N`
/// writes the drop-in's bytes.
fn assert_same_as(n: u32, theirs: &Path, files: &[PathBuf], what: &str) {
    let (_g, ours) = linked_as(&format!("merge-fdata-{n}"));
    let (tc, tout, terr) = merge_with(theirs, files);
    assert_eq!(tc, 0, "{what}: merge-fdata-{n} failed: {terr}");
    let (oc, oout, oerr) = merge_with(&ours, files);
    assert_eq!(oc, 0, "{what}: our merge-fdata-{n} failed: {oerr}");
    assert_eq!(
        sorted(&oout),
        sorted(&tout),
        "{what}: lines differ from merge-fdata-{n}'s"
    );
    // Ours is sorted already: the same bytes however often it runs.
    let mut want: Vec<&str> = oout.lines().collect();
    let body = want
        .iter()
        .take_while(|l| **l == "boltedcollection" || l.starts_with("no_lbr"))
        .count();
    want[body..].sort_unstable();
    assert_eq!(
        oout.lines().collect::<Vec<_>>(),
        want,
        "{what}: our order (as merge-fdata-{n})"
    );
    assert_eq!(
        native_merge(n, files, "fdata", what),
        oout,
        "{what}: --target-llvm {n}"
    );
}

/// [`assert_same_as`] for every live `merge-fdata-N`.
fn assert_same_as_live(live: &[(u32, PathBuf)], files: &[PathBuf], what: &str) {
    for (n, theirs) in live {
        assert_same_as(*n, theirs, files, what);
    }
}

#[test]
fn recorded_profiles_merge_as_live_merge_fdata() {
    let live = live_merge_fdata("recorded_profiles_merge_as_live_merge_fdata");
    let runs = recorded("run");
    assert!(runs.len() >= 5, "{runs:?}");
    assert_same_as_live(&live, &runs, "all runs");
    assert_same_as_live(&live, &runs[..1], "one run");
    assert_same_as_live(&live, &[runs[1].clone(), runs[3].clone()], "two runs");
    // A run twice: every count doubles.
    assert_same_as_live(&live, &[runs[0].clone(), runs[0].clone()], "a run twice");
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A generated fdata profile: branches among a few functions (mispredictions that vary, so
/// LLVM 19 keeps the same branch on several lines), then memory events.
fn generated(rng: &mut Rng, bolted: bool) -> String {
    let names = ["main", "f/1", "_ZN3foo3barEv", "g.cold.1", "[unknown]"];
    let mut s = String::new();
    if bolted {
        s.push_str("boltedcollection\n");
    }
    for _ in 0..200 {
        let t = |r: &mut Rng| ["0", "1", "2"][r.below(3) as usize];
        let (a, b) = (rng.below(5) as usize, rng.below(5) as usize);
        s.push_str(&format!(
            "{} {} {:x} {} {} {:x} {} {}\n",
            t(rng),
            names[a],
            rng.below(8),
            t(rng),
            names[b],
            rng.below(8),
            rng.below(3),
            rng.below(1000)
        ));
    }
    for _ in 0..20 {
        s.push_str(&format!(
            "4 {} {:x} 3 [heap] {} {}\n",
            names[rng.below(4) as usize],
            rng.below(8),
            rng.below(4),
            rng.below(50)
        ));
    }
    s
}

#[test]
fn generated_profiles_merge_as_live_merge_fdata() {
    let live = live_merge_fdata("generated_profiles_merge_as_live_merge_fdata");
    let dir = tempdir();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for bolted in [false, true] {
        let files: Vec<PathBuf> = (0..12)
            .map(|i| {
                let p = dir.path().join(format!("g{bolted}{i}.fdata"));
                std::fs::write(&p, generated(&mut rng, bolted)).unwrap();
                p
            })
            .collect();
        assert_same_as_live(&live, &files, &format!("generated, bolted {bolted}"));
    }
}

#[test]
fn duplicate_branches_as_llvm_19_and_summed_after() {
    let dir = tempdir();
    let a = dir.path().join("a.fdata");
    std::fs::write(
        &a,
        "1 main 1 1 main 2 0 5\n1 main 1 1 main 2 1 5\n\n1 main 1 1 main 2 0 7\n",
    )
    .unwrap();
    let (_g, m19) = linked_as("merge-fdata-19");
    let (c, out, err) = merge_with(&m19, std::slice::from_ref(&a));
    assert_eq!(c, 0, "{err}");
    assert_eq!(out, "1 main 1 1 main 2 0 12\n1 main 1 1 main 2 1 5\n");
    let (_g2, m) = linked_as("merge-fdata");
    let (c, out, err) = run_full(Command::new(&m).arg(&a).env_remove("PGO_MERGE_TARGET_LLVM"));
    assert_eq!(c, 0, "{err}");
    assert_eq!(out, "1 main 1 1 main 2 1 17\n");
    let (c, out, _) = run_full(Command::new(&m).arg(&a).env("PGO_MERGE_TARGET_LLVM", "19"));
    assert_eq!((c, out.lines().count()), (0, 2));
    if let Some(theirs) = tool(
        "merge-fdata-19",
        "duplicate_branches_as_llvm_19_and_summed_after",
    ) {
        let (_, t, _) = merge_with(&theirs, &[a]);
        assert_eq!(
            sorted(&t),
            vec!["1 main 1 1 main 2 0 12", "1 main 1 1 main 2 1 5"]
        );
    }
}

#[test]
fn duplicate_branches_and_memory_events_as_live_merge_fdata() {
    let test = "duplicate_branches_and_memory_events_as_live_merge_fdata";
    let dir = tempdir();
    // No blank line: merge-fdata-22 rejects one (19 and 23 skip it, as we do).
    let a = dir.path().join("a.fdata");
    std::fs::write(
        &a,
        "1 main 1 1 main 2 0 5\n1 main 1 1 main 2 1 5\n1 main 1 1 main 2 0 7\n\
         4 main 1a 3 [heap] 40 9\n4 main 1a 3 [heap] 4f 2\n4 main 1a 3 [heap] 40 9\n",
    )
    .unwrap();
    for (n, theirs) in live_merge_fdata(test) {
        assert_same_as(n, &theirs, std::slice::from_ref(&a), "duplicates");
        let (_, t, _) = merge_with(&theirs, std::slice::from_ref(&a));
        // Memory events are keyed by both locations, hex letters in the address included.
        assert!(
            t.contains("4 main 1a 3 [heap] 40 18\n"),
            "merge-fdata-{n}: {t}"
        );
        let summed = t.contains("1 main 1 1 main 2 1 17\n");
        assert_eq!(summed, n >= 20, "merge-fdata-{n}: {t}");
    }
}

#[test]
fn no_lbr_profiles_merge_with_a_bare_header() {
    // merge-fdata-19 cannot merge them at all (the no_lbr line is no record); LLVM 20 and
    // later write a bare `no_lbr` header and add the samples.
    let files = recorded("nolbr");
    assert!(files.len() >= 3);
    let (_g, m) = linked_as("merge-fdata");
    let (c, out, err) = merge_with(&m, &files);
    assert_eq!(c, 0, "{err}");
    assert!(out.starts_with("no_lbr\n"), "{out}");
    let total = |s: &str| -> u64 {
        s.lines()
            .filter(|l| !l.starts_with("no_lbr"))
            .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
            .sum()
    };
    let inputs: u64 = files
        .iter()
        .map(|f| total(&std::fs::read_to_string(f).unwrap()))
        .sum();
    assert_eq!(total(&out), inputs);
    assert!(
        out.lines()
            .all(|l| l.split(' ').count() == 4 || l == "no_lbr")
    );
}

#[test]
fn no_lbr_profiles_merge_as_live_merge_fdata_22() {
    // merge-fdata-19 cannot merge them; merge-fdata-23 keeps the event names (below).
    let Some(theirs) = tool(
        "merge-fdata-22",
        "no_lbr_profiles_merge_as_live_merge_fdata_22",
    ) else {
        return;
    };
    assert_same_as(22, &theirs, &recorded("nolbr"), "no_lbr samples");
}

/// LLVM 23's `merge-fdata` writes the `no_lbr` header with the event names of its inputs
/// (each once, sorted by bytes; names separated by tabs too; an input of header lines alone
/// counts), where 20 to 22 write a bare `no_lbr`. Seen failing before the change (ours wrote a
/// bare `no_lbr` for every release).
#[test]
fn no_lbr_header_keeps_the_event_names_as_llvm_23() {
    let dir = tempdir();
    let files: Vec<PathBuf> = [
        ("d.fdata", "no_lbr zz:u aa:u\n1 main 1 5\n"),
        ("a.fdata", "no_lbr cycles:u\n1 main 1 5\n"),
        ("h.fdata", "no_lbr\tbb:u  cc:u\n"),
    ]
    .iter()
    .map(|(name, text)| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    })
    .collect();
    let (_g, ours) = linked_as("merge-fdata-23");
    let (c, out, err) = merge_with(&ours, &files);
    assert_eq!(c, 0, "{err}");
    assert_eq!(out, "no_lbr aa:u bb:u cc:u cycles:u zz:u\n1 main 1 10\n");
    let (_g, ours22) = linked_as("merge-fdata-22");
    assert_eq!(merge_with(&ours22, &files).1, "no_lbr\n1 main 1 10\n");
    let test = "no_lbr_header_keeps_the_event_names_as_llvm_23";
    if let Some(theirs) = tool("merge-fdata-23", test) {
        assert_same_as(23, &theirs, &files, "event names");
        assert_same_as(23, &theirs, &recorded("nolbr"), "no_lbr samples");
    }
}

#[test]
fn same_bytes_for_any_threads_and_order() {
    let dir = tempdir();
    let mut rng = Rng(42);
    let mut files: Vec<PathBuf> = (0..9)
        .map(|i| {
            let p = dir.path().join(format!("{i}.fdata"));
            std::fs::write(&p, generated(&mut rng, false)).unwrap();
            p
        })
        .collect();
    let run = |files: &[PathBuf], j: &str, out: &str| -> Vec<u8> {
        let o = dir.path().join(out);
        let r = crate::common::run_ours(files.iter().map(|p| p.as_os_str().to_owned()).chain([
            "-j".into(),
            j.into(),
            "-o".into(),
            o.clone().into(),
        ]));
        assert_ok(&r, "merge");
        std::fs::read(o).unwrap()
    };
    let one = run(&files, "1", "m1.fdata");
    files.reverse();
    assert_eq!(run(&files, "4", "m4.fdata"), one);
    files.swap(0, 5);
    assert_eq!(run(&files, "3", "m3.fdata"), one);
}

#[test]
fn weights_scale_counts() {
    let run1 = recorded("run")[0].clone();
    let dir = tempdir();
    let (w, twice) = (dir.path().join("w.fdata"), dir.path().join("t.fdata"));
    let mut weighted = std::ffi::OsString::from("2,");
    weighted.push(&run1);
    assert_ok(
        &crate::common::run_ours([
            "-w".into(),
            weighted,
            "-o".into(),
            w.clone().into_os_string(),
        ]),
        "weighted",
    );
    assert_ok(
        &crate::common::run_ours([
            run1.as_os_str(),
            run1.as_os_str(),
            "-o".as_ref(),
            twice.as_os_str(),
        ]),
        "twice",
    );
    assert_eq!(std::fs::read(w).unwrap(), std::fs::read(twice).unwrap());
}

#[test]
fn bad_files_name_file_and_line_and_warn_skips_them() {
    let dir = tempdir();
    let good = recorded("run")[0].clone();
    let cases = [
        (
            "truncated.fdata",
            "1 main 1 1 main 2 0 5\n1 main 1 1 ma",
            "line 2: ",
        ),
        (
            "garbled.fdata",
            "1 main 1 1 main 2 0 5\n1 main 1 1 main 2 0 5x\n",
            "\"5x\"",
        ),
        (
            "bolted.fdata",
            "boltedcollection\n1 main 1 1 main 2 0 5\n",
            "boltedcollection",
        ),
        ("nolbr.fdata", "no_lbr cycles\n1 main 1 5\n", "no_lbr"),
        ("yaml.fdata", "---\nheader:\n", "YAML"),
    ];
    let out = dir.path().join("out.fdata");
    let alone = dir.path().join("alone.fdata");
    assert_ok(
        &crate::common::run_ours([good.as_os_str(), "-o".as_ref(), alone.as_os_str()]),
        "good alone",
    );
    for (name, text, want) in cases {
        let bad = dir.path().join(name);
        std::fs::write(&bad, text).unwrap();
        let args = |mode: &str| -> Vec<std::ffi::OsString> {
            vec![
                good.clone().into(),
                bad.clone().into(),
                "-o".into(),
                out.clone().into(),
                format!("--failure-mode={mode}").into(),
            ]
        };
        let _ = std::fs::remove_file(&out);
        let (c, _, err) = run_full(crate::common::pgo_merge().args(args("any")));
        assert_eq!(c, 1, "{name}: {err}");
        assert!(err.contains(name) && err.contains(want), "{name}: {err}");
        assert!(!out.exists(), "{name}: an output was written");
        let (c, _, err) = run_full(crate::common::pgo_merge().args(args("warn")));
        assert_eq!(c, 0, "{name}: {err}");
        assert!(
            err.contains("skipped") && err.contains(name),
            "{name}: {err}"
        );
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(&alone).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn llvm_bolt_reads_our_profile_as_merge_fdatas() {
    let test = "llvm_bolt_reads_our_profile_as_merge_fdatas";
    let (Some(bolt), Some(theirs)) = (tool("llvm-bolt-19", test), tool("merge-fdata-19", test))
    else {
        return;
    };
    let dir = tempdir();
    let prog = dir.path().join("prog");
    let gz = std::fs::read(root().join("testdata/bolt/prog.gz")).unwrap();
    let mut bin = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut bin).unwrap();
    std::fs::write(&prog, bin).unwrap();
    std::fs::set_permissions(&prog, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let runs = recorded("run");
    let (_g, ours) = linked_as("merge-fdata-19");
    let stats = |merger: &Path, tag: &str| -> Vec<String> {
        let (c, out, err) = merge_with(merger, &runs);
        assert_eq!(c, 0, "{err}");
        let fdata = dir.path().join(format!("{tag}.fdata"));
        std::fs::write(&fdata, out).unwrap();
        let opt = dir.path().join(format!("{tag}.bolt"));
        let o = Command::new(&bolt)
            .arg(&prog)
            .arg("-o")
            .arg(&opt)
            .arg("-data")
            .arg(&fdata)
            .args(["-reorder-blocks=ext-tsp", "-reorder-functions=hfsort"])
            .output()
            .unwrap();
        assert_ok(&o, "llvm-bolt-19");
        let r = Command::new(&opt).args(["mixed", "100"]).output().unwrap();
        assert_ok(&r, "the optimised binary");
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .chain(String::from_utf8_lossy(&o.stderr).lines())
            .filter(|l| l.contains("profile") || l.contains("stale"))
            .map(str::to_string)
            .collect()
    };
    let t = stats(&theirs, "theirs");
    let o = stats(&ours, "ours");
    assert!(
        t.iter()
            .any(|l| l.contains("have non-empty execution profile")),
        "{t:?}"
    );
    assert_eq!(o, t);
}

/// The recorded YAML profiles whose names start with `prefix`.
fn recorded_yaml(prefix: &str) -> Vec<PathBuf> {
    let dir = root().join("testdata/bolt");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("testdata/bolt")
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with(prefix) && n.ends_with(".yaml")
        })
        .collect();
    v.sort();
    v
}

/// Asserts that our `merge-fdata-N` writes merge-fdata-N's bytes on `files` and the same
/// messages and `--print=exec|branches` lists, and that `pgo-merge --target-llvm N` writes
/// the same bytes.
fn assert_yaml_same_as(n: u32, theirs: &Path, files: &[PathBuf], what: &str) {
    let (_g, ours) = linked_as(&format!("merge-fdata-{n}"));
    let theirs_name = format!("merge-fdata-{n}");
    for print in ["--print=none", "--print=exec", "--print=branches"] {
        let run = |exe: &Path| run_full(Command::new(exe).arg(print).args(files));
        let (tc, tout, terr) = run(theirs);
        let (oc, oout, oerr) = run(&ours);
        assert_eq!(
            (oc, tc),
            (0, 0),
            "{what} (N = {n}): ours: {oerr}\ntheirs: {terr}"
        );
        assert!(
            oout == tout,
            "{what}: YAML differs from {theirs_name}'s:\n{}",
            crate::common::differing_lines(&oout, &tout, 8, "ours", &theirs_name)
        );
        assert_eq!(oerr, terr, "{what} {print}: messages of {theirs_name}");
        if print == "--print=none" {
            assert!(
                native_merge(n, files, "yaml", what) == tout,
                "{what}: pgo-merge --target-llvm {n} differs from {theirs_name}"
            );
        }
    }
}

/// [`assert_yaml_same_as`] for every live `merge-fdata-N`.
fn assert_yaml_same_as_live(live: &[(u32, PathBuf)], files: &[PathBuf], what: &str) {
    for (n, theirs) in live {
        assert_yaml_same_as(*n, theirs, files, what);
    }
}

#[test]
fn recorded_yaml_byte_identical_to_live_merge_fdata() {
    let live = live_merge_fdata("recorded_yaml_byte_identical_to_live_merge_fdata");
    let runs = recorded_yaml("run");
    assert!(runs.len() >= 5);
    assert_yaml_same_as_live(&live, &runs, "all runs");
    assert_yaml_same_as_live(&live, &runs[..1], "one run");
    let mut rev = runs.clone();
    rev.reverse();
    assert_yaml_same_as_live(&live, &rev, "runs reversed");
    assert_yaml_same_as_live(&live, &recorded_yaml("nolbr"), "no_lbr samples");
}

#[test]
fn yaml_hash_functions_mix_under_llvm_19_only() {
    let test = "yaml_hash_functions_mix_under_llvm_19_only";
    let live = live_merge_fdata(test);
    let dir = tempdir();
    let xxh3 = recorded_yaml("run")[0].clone();
    let text = std::fs::read_to_string(&xxh3).unwrap();
    assert!(text.contains("hash-func:       xxh3\n"));
    let std_hash = dir.path().join("std.yaml");
    std::fs::write(
        &std_hash,
        text.replace("hash-func:       xxh3", "hash-func:       std-hash"),
    )
    .unwrap();
    let files = [xxh3, std_hash];
    for (n, theirs) in live {
        if n == 19 {
            assert_yaml_same_as(n, &theirs, &files, "two hash functions");
            continue;
        }
        let (_g, ours) = linked_as(&format!("merge-fdata-{n}"));
        let (tc, _, terr) = merge_with(&theirs, &files);
        let (oc, _, oerr) = merge_with(&ours, &files);
        assert_eq!((oc, tc), (1, 1), "N = {n}: ours: {oerr}\ntheirs: {terr}");
        let want = "cannot merge profiles with different hash functions";
        assert!(terr.contains(want) && oerr.contains(want), "{oerr}");
        assert!(oerr.contains("std.yaml"), "{oerr}");
    }
}

/// A generated YAML profile of one binary: functions with fixed shapes (names that need
/// quotes among them), each file a random subset of blocks in random order, successors with
/// mispredictions, call sites sharing offsets (indirect calls), long flow sequences.
fn generated_yaml(rng: &mut Rng, origin: &str) -> String {
    let names = [
        "main",
        "f/1",
        "g.cold.1",
        "snprintf@PLT",
        "it's",
        "_ZN3foo3barEv",
        "123",
    ];
    let mut s = format!(
        "---\nheader:\n  profile-version: 1\n  binary-name: 'bin'\n  binary-build-id: abc\n  \
         profile-flags: [ lbr ]\n  profile-origin: {origin}\n  profile-events: ''\n  \
         dfs-order: false\n  hash-func: xxh3\nfunctions:\n"
    );
    for (i, name) in names.iter().enumerate() {
        if rng.below(4) == 0 {
            continue;
        }
        let nblocks = 3 + i as u64 * 2;
        s.push_str(&format!(
            "  - name: \"{}\"\n    fid: {}\n    hash: 0x{:X}\n    exec: {}\n    nblocks: {nblocks}\n    blocks:\n",
            name.replace('"', "\\\""),
            10 - i,
            0xABC0 + i as u64,
            rng.below(100)
        ));
        let mut ids: Vec<u64> = (0..nblocks).filter(|_| rng.below(3) != 0).collect();
        for k in (1..ids.len()).rev() {
            ids.swap(k, rng.below(k as u64 + 1) as usize);
        }
        for b in ids {
            s.push_str(&format!(
                "      - bid: {b}\n        insns: {}\n        hash: 0x{:X}\n        exec: {}\n",
                b + 1,
                b * 7 + i as u64,
                rng.below(5000)
            ));
            let calls: Vec<String> = (0..rng.below(4))
                .map(|_| {
                    let mis = rng.below(3);
                    format!(
                        "{{ off: 0x{:X}, fid: {}, cnt: {}{} }}",
                        rng.below(3) * 4,
                        rng.below(4),
                        rng.below(700),
                        if mis > 0 {
                            format!(", mis: {mis}")
                        } else {
                            String::new()
                        }
                    )
                })
                .collect();
            if !calls.is_empty() {
                s.push_str(&format!("        calls: [ {} ]\n", calls.join(", ")));
            }
            let succ: Vec<String> = (0..rng.below(5))
                .map(|_| {
                    format!(
                        "{{ bid: {}, cnt: {}, mis: {} }}",
                        rng.below(nblocks),
                        rng.below(100_000),
                        rng.below(2)
                    )
                })
                .collect();
            if !succ.is_empty() {
                s.push_str(&format!("        succ: [ {} ]\n", succ.join(", ")));
            }
        }
    }
    s.push_str("...\n");
    s
}

#[test]
fn generated_yaml_byte_identical_to_live_merge_fdata() {
    let live = live_merge_fdata("generated_yaml_byte_identical_to_live_merge_fdata");
    let dir = tempdir();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for set in 0..4 {
        let files: Vec<PathBuf> = (0..6)
            .map(|i| {
                let p = dir.path().join(format!("s{set}-{i}.yaml"));
                let origin = ["perf data aggregator", "other; origin"][i % 2];
                std::fs::write(&p, generated_yaml(&mut rng, origin)).unwrap();
                p
            })
            .collect();
        assert_yaml_same_as_live(&live, &files, &format!("generated set {set}"));
    }
}

#[test]
fn yaml_errors_name_file_and_line_and_warn_skips_them() {
    let dir = tempdir();
    let good = recorded_yaml("run")[0].clone();
    let text = std::fs::read_to_string(&good).unwrap();
    // The second function's hash changed: the merge refuses it, naming the function.
    let at = text.match_indices("\n    hash:").nth(1).unwrap().0 + 1;
    let end = at + text[at..].find('\n').unwrap();
    let mut mismatch = text.clone();
    mismatch.replace_range(at..end, "    hash:            0x1");
    let garbled = text.replacen("exec:            1\n", "exec:            1x\n", 1);
    let cases = [
        ("hash.yaml", mismatch, "hash mismatch"),
        ("garbled.yaml", garbled, "'1x'"),
        (
            "legacy.yaml",
            "1 main 1 1 main 2 0 5\n".to_string(),
            "cannot mix",
        ),
        (
            "sample.yaml",
            text.replace("[ lbr ]", "[ sample ]"),
            "cannot merge LBR profile with non-LBR profile",
        ),
    ];
    let out = dir.path().join("out.yaml");
    let alone = dir.path().join("alone.yaml");
    assert_ok(
        &crate::common::run_ours([good.as_os_str(), "-o".as_ref(), alone.as_os_str()]),
        "good alone",
    );
    for (name, body, want) in cases {
        let bad = dir.path().join(name);
        std::fs::write(&bad, body).unwrap();
        let args = |mode: &str| -> Vec<std::ffi::OsString> {
            vec![
                good.clone().into(),
                bad.clone().into(),
                "-o".into(),
                out.clone().into(),
                format!("--failure-mode={mode}").into(),
            ]
        };
        let _ = std::fs::remove_file(&out);
        let (c, _, err) = run_full(crate::common::pgo_merge().args(args("any")));
        assert_eq!(c, 1, "{name}: {err}");
        assert!(err.contains(name) && err.contains(want), "{name}: {err}");
        if name != "legacy.yaml" && name != "sample.yaml" {
            assert!(err.contains("line "), "{name}: {err}");
        }
        assert!(!out.exists(), "{name}: an output was written");
        let (c, _, err) = run_full(crate::common::pgo_merge().args(args("warn")));
        assert_eq!(c, 0, "{name}: {err}");
        assert!(
            err.contains("skipped") && err.contains(name),
            "{name}: {err}"
        );
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(&alone).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn rust_profiles_merge_as_live_merge_fdata() {
    let live = live_merge_fdata("rust_profiles_merge_as_live_merge_fdata");
    let dir = tempdir();
    let unpack = |ext: &str| -> Vec<PathBuf> {
        (1..=3)
            .map(|n| {
                let name = format!("rust{n}.{ext}");
                let gz =
                    std::fs::read(root().join(format!("testdata/bolt/rust/{name}.gz"))).unwrap();
                let mut text = Vec::new();
                std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut text)
                    .unwrap();
                let p = dir.path().join(name);
                std::fs::write(&p, text).unwrap();
                p
            })
            .collect()
    };
    assert_same_as_live(&live, &unpack("fdata"), "Rust runs (fdata)");
    assert_yaml_same_as_live(&live, &unpack("yaml"), "Rust runs (YAML)");
}

/// Writes an executable script.
fn write_script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// cargo-pgo's BOLT flow with PGO, end to end, with our drop-ins first on PATH (logging
/// wrappers prove they ran): `cargo pgo build`, a run, `cargo pgo bolt build --with-pgo`,
/// three runs of the instrumented binary, `cargo pgo bolt optimize --with-pgo`. The
/// optimised binary runs, and the profile our `merge-fdata` merged has merge-fdata-19's
/// lines. Debian's llvm-bolt-19 looks for its instrumentation runtime under /usr/lib: a
/// wrapper named `llvm-bolt` passes its path.
#[test]
fn cargo_pgo_bolt_flow_through_the_dropins() {
    let test = "cargo_pgo_bolt_flow_through_the_dropins";
    let (Some(cargo_pgo), Some(bolt), Some(theirs), Some(rustc)) = (
        tool("cargo-pgo", test),
        tool("llvm-bolt-19", test),
        tool("merge-fdata-19", test),
        tool("rustc", test),
    ) else {
        return;
    };
    let cargo = std::env::var_os("CARGO")
        .map(PathBuf::from)
        .or_else(|| tool("cargo", test))
        .expect("cargo");
    let dir = tempdir();
    let d = dir.path();
    let krate = d.join("bolt-demo");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
    let memchr = lock
        .split("name = \"memchr\"\nversion = \"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("memchr in Cargo.lock");
    std::fs::write(
        krate.join("Cargo.toml"),
        format!(
            "[package]\nname = \"bolt-demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dependencies]\nmemchr = \"={memchr}\"\n\n[workspace]\n"
        ),
    )
    .unwrap();
    std::fs::write(
        krate.join("src/main.rs"),
        "fn main() {\n    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100);\n    \
         let mut hay = String::new();\n    for i in 0..n {\n        hay.push_str(if i % 7 == 0 { \"needle\" } else { \"hay \" });\n        \
         hay.push_str(&i.to_string());\n    }\n    \
         println!(\"{}\", memchr::memmem::Finder::new(b\"needle\").find_iter(hay.as_bytes()).count());\n}\n",
    )
    .unwrap();
    let bin = d.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let calls = d.join("calls.log");
    for name in ["merge-fdata", "llvm-profdata"] {
        write_script(
            &bin.join(name),
            &format!(
                "#!/bin/bash\necho \"{name} $*\" >> '{}'\nexec -a {name} '{}' \"$@\"\n",
                calls.display(),
                env!("CARGO_BIN_EXE_pgo-merge")
            ),
        );
    }
    write_script(
        &bin.join("llvm-bolt"),
        &format!(
            "#!/bin/bash\nfor a in \"$@\"; do [ \"$a\" = -instrument ] && set -- \"$@\" \
             -runtime-instrumentation-lib=llvm-19/lib/libbolt_rt_instr.a; done\nexec '{}' \"$@\"\n",
            bolt.display()
        ),
    );
    // cargo-pgo takes rustup's llvm-profdata when the llvm-tools component is there: hide it.
    let libdir = Command::new(&rustc)
        .args(["--print", "target-libdir"])
        .output()
        .unwrap();
    let libdir = PathBuf::from(String::from_utf8_lossy(&libdir.stdout).trim());
    if libdir
        .parent()
        .is_some_and(|p| p.join("bin/llvm-profdata").exists())
    {
        let fake = d.join("no-llvm-tools/lib");
        std::fs::create_dir_all(&fake).unwrap();
        write_script(
            &bin.join("rustc"),
            &format!(
                "#!/bin/bash\nif [ \"$*\" = \"--print target-libdir\" ]; then echo '{}'; exit 0; fi\n\
                 exec '{}' \"$@\"\n",
                fake.display(),
                rustc.display()
            ),
        );
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let cargo_pgo_cmd = |args: &[&str]| {
        let mut c = Command::new(&cargo_pgo);
        c.arg("pgo")
            .args(args)
            .current_dir(&krate)
            .env("PATH", &path)
            .env("CARGO", &cargo)
            .env("RUSTC", &rustc)
            .env("CARGO_NET_OFFLINE", "true")
            .env("CARGO_TARGET_DIR", krate.join("target"))
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("CARGO_BUILD_RUSTFLAGS")
            .env_remove("CARGO_BUILD_TARGET")
            .env_remove("RUSTC_WRAPPER")
            .env_remove("PGO_MERGE_TARGET_LLVM");
        let out = c.output().unwrap();
        assert_ok(&out, &format!("cargo pgo {}", args.join(" ")));
    };
    let release = |name: &str| -> PathBuf {
        let mut found = None;
        let mut stack = vec![krate.join("target")];
        while let Some(p) = stack.pop() {
            for e in std::fs::read_dir(&p).unwrap() {
                let e = e.unwrap().path();
                if e.is_dir() {
                    stack.push(e);
                } else if e.file_name().is_some_and(|n| n == name)
                    && e.parent().is_some_and(|p| p.ends_with("release"))
                {
                    found = Some(e);
                }
            }
        }
        found.unwrap_or_else(|| panic!("{name} was not built"))
    };
    cargo_pgo_cmd(&["build"]);
    assert_ok(
        &Command::new(release("bolt-demo"))
            .arg("500")
            .output()
            .unwrap(),
        "PGO run",
    );
    cargo_pgo_cmd(&["bolt", "build", "--with-pgo"]);
    let instrumented = release("bolt-demo-bolt-instrumented");
    for n in ["100", "5000", "20000"] {
        assert_ok(
            &Command::new(&instrumented).arg(n).output().unwrap(),
            "BOLT run",
        );
    }
    cargo_pgo_cmd(&["bolt", "optimize", "--with-pgo"]);
    let log = std::fs::read_to_string(&calls).unwrap_or_default();
    assert!(
        log.lines().any(|l| l.starts_with("merge-fdata ")),
        "our merge-fdata never ran: {log}"
    );
    assert!(
        log.lines().any(|l| l.starts_with("llvm-profdata ")),
        "our llvm-profdata never ran: {log}"
    );
    let out = Command::new(release("bolt-demo-bolt-optimized"))
        .arg("700")
        .output()
        .unwrap();
    assert_ok(&out, "the optimised binary");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "100");
    // The profile merged, against merge-fdata-19's of the same files.
    let profiles = krate.join("target/bolt-profiles/bolt-demo");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&profiles)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("profile."))
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "{files:?}");
    let merged = std::fs::read_to_string(profiles.join("merged.profdata")).unwrap();
    let (c, t, e) = merge_with(&theirs, &files);
    assert_eq!(c, 0, "{e}");
    assert_eq!(sorted(&merged), sorted(&t));
}
