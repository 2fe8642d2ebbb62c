//! Outputs when the system misbehaves (docs/usage.md, "Outputs under faults"): a process
//! killed mid-write, two runs writing one output, symbolic links, directories, read-only files
//! and directories, a file-size limit, a full device and a full file system. Each case ends
//! with a clear error or a complete file; an existing output is never half-written or
//! replaced by a partial one, and no temporary file is left behind. Real processes and
//! signals; nothing here is timed (random kill delays are drawn from the length of one run).
//!
//! Also the two inputs that once amplified memory (issue 15): a gzip-compressed iprof with an
//! error near its end, and a perf map of nested regions, each under 64 MB of peak RSS.

use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::*;

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A text profile of `n` IR functions with 8 counters each, the counts offset by `salt`.
fn proftext(n: usize, salt: u64) -> String {
    let mut s = String::from("# IR level Instrumentation Flag\n:ir\n");
    for i in 0..n {
        s.push_str(&format!(
            "fn_{i}\n# Func Hash:\n{}\n# Num Counters:\n8\n# Counter Values:\n",
            1000 + i
        ));
        for c in 0..8u64 {
            s.push_str(&format!("{}\n", i as u64 * 7 + c + salt));
        }
        s.push('\n');
    }
    s
}

/// Names in `dir` other than `keep`, sorted.
fn others(dir: &Path, keep: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect();
    v.sort();
    v
}

/// A small deterministic generator (xorshift), seeded from the clock; the seed is printed.
struct Rng(u64);

impl Rng {
    fn from_clock(test: &str) -> Rng {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
            | 1;
        eprintln!("{test}: seed {seed:#x}");
        Rng(seed)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// `SIGKILL` at random points of a large merge: the existing output stays byte-identical
/// (or, if the kill came after the rename, is the complete new output), and nothing else is
/// left in the directory. The only name a complete new file ever has before the rename lives
/// between two system calls; if a kill lands there, that file must be complete.
#[cfg(target_os = "linux")]
#[test]
fn sigkill_mid_merge_never_leaves_a_partial_output() {
    let dir = tempdir();
    let d = dir.path();
    let input = d.join("big.proftext");
    std::fs::write(&input, proftext(60_000, 0)).unwrap();
    let out_dir = d.join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let output = out_dir.join("merged.profdata");

    // The complete output, and how long one run takes (to spread the kills over it).
    let reference = d.join("reference.profdata");
    let started = std::time::Instant::now();
    let r = run_ours([
        "merge".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        reference.as_os_str(),
    ]);
    assert_ok(&r, "reference merge");
    let span = started.elapsed().as_millis().max(50) as u64;
    let complete = std::fs::read(&reference).unwrap();

    let old = b"the previous output, which must survive".to_vec();
    let mut rng = Rng::from_clock("sigkill_mid_merge_never_leaves_a_partial_output");
    let mut outcomes = (0, 0);
    for round in 0..8 {
        std::fs::write(&output, &old).unwrap();
        let mut child = pgo_merge()
            .args([
                "merge".as_ref(),
                input.as_os_str(),
                "-o".as_ref(),
                output.as_os_str(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Most kills in the second half, where the output is written.
        let delay = if round == 0 {
            0
        } else {
            span / 3 + rng.next() % (span * 3 / 4)
        };
        std::thread::sleep(std::time::Duration::from_millis(delay));
        let _ = child.kill(); // SIGKILL
        let status = child.wait().unwrap();
        let now = std::fs::read(&output).unwrap();
        if now == old {
            outcomes.0 += 1;
        } else {
            assert!(
                now == complete,
                "round {round} (kill after {delay} ms, {status:?}): the output is neither the \
                 old one nor the complete new one ({} bytes)",
                now.len()
            );
            outcomes.1 += 1;
        }
        for name in others(&out_dir, &["merged.profdata"]) {
            let left = out_dir.join(&name);
            assert!(
                name.starts_with(".pgo-merge-") && std::fs::read(&left).unwrap() == complete,
                "round {round} (kill after {delay} ms): {name} left behind, and it is not \
                 the complete output"
            );
            std::fs::remove_file(left).unwrap();
        }
    }
    eprintln!(
        "sigkill_mid_merge_never_leaves_a_partial_output: {} kills kept the old output, {} came \
         after the new one was in place",
        outcomes.0, outcomes.1
    );
}

/// Four runs writing one output at once, each from a different input: all succeed, and the
/// output is exactly one run's complete result; no temporary file is left.
#[test]
fn concurrent_writers_leave_one_complete_output() {
    let dir = tempdir();
    let d = dir.path();
    let mut expected = Vec::new();
    let mut inputs = Vec::new();
    for k in 0..4u64 {
        let input = d.join(format!("in{k}.proftext"));
        std::fs::write(&input, proftext(20_000, k * 1000)).unwrap();
        let alone = d.join(format!("alone{k}.profdata"));
        assert_ok(
            &run_ours([
                "merge".as_ref(),
                input.as_os_str(),
                "-o".as_ref(),
                alone.as_os_str(),
            ]),
            "single merge",
        );
        expected.push(std::fs::read(&alone).unwrap());
        inputs.push(input);
    }
    let out_dir = d.join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let output = out_dir.join("shared.profdata");
    for round in 0..3 {
        let children: Vec<_> = inputs
            .iter()
            .map(|input| {
                pgo_merge()
                    .args([
                        "merge".as_ref(),
                        input.as_os_str(),
                        "-o".as_ref(),
                        output.as_os_str(),
                    ])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for c in children {
            let out = c.wait_with_output().unwrap();
            assert_eq!(code(&out), 0, "round {round}: {}", stderr(&out));
        }
        let got = std::fs::read(&output).unwrap();
        assert!(
            expected.contains(&got),
            "round {round}: the output is not one run's complete result ({} bytes)",
            got.len()
        );
        assert_eq!(others(&out_dir, &["shared.profdata"]), Vec::<String>::new());
    }
}

/// Outputs are synced to disk only when `PGO_MERGE_SYNC_OUTPUT=1` asks for it: the system
/// calls of both runs are traced (`strace`), and the outputs are the same bytes.
#[test]
fn outputs_are_synced_only_when_asked() {
    let test = "outputs_are_synced_only_when_asked";
    let Some(strace) = tool("strace", test) else {
        return;
    };
    let dir = tempdir();
    let d = dir.path();
    let input = d.join("in.proftext");
    std::fs::write(&input, proftext(200, 7)).unwrap();
    let mut outputs = Vec::new();
    for (sync, env) in [(false, None), (false, Some("0")), (true, Some("1"))] {
        let output = d.join(format!("out-{}.profdata", env.unwrap_or("unset")));
        let trace = d.join(format!("trace-{}", env.unwrap_or("unset")));
        let mut cmd = Command::new(&strace);
        cmd.args(["-f", "-e", "trace=fsync,fdatasync,syncfs,sync", "-o"])
            .arg(&trace)
            .arg(env!("CARGO_BIN_EXE_pgo-merge"))
            .args([
                "merge".as_ref(),
                input.as_os_str(),
                "-o".as_ref(),
                output.as_os_str(),
            ])
            .env_remove("PGO_MERGE_SYNC_OUTPUT");
        if let Some(v) = env {
            cmd.env("PGO_MERGE_SYNC_OUTPUT", v);
        }
        let out = cmd.output().unwrap();
        assert_eq!(
            code(&out),
            0,
            "PGO_MERGE_SYNC_OUTPUT={env:?}: {}",
            stderr(&out)
        );
        let calls = std::fs::read_to_string(&trace).unwrap();
        let syncs = calls.lines().filter(|l| l.contains("sync(")).count();
        if sync {
            // The file before the rename, its directory after.
            assert!(
                syncs >= 2,
                "PGO_MERGE_SYNC_OUTPUT=1 synced {syncs} times:\n{calls}"
            );
        } else {
            assert_eq!(syncs, 0, "PGO_MERGE_SYNC_OUTPUT={env:?} synced:\n{calls}");
        }
        outputs.push(std::fs::read(&output).unwrap());
    }
    assert!(outputs.windows(2).all(|w| w[0] == w[1]));
}

/// An output that is a symbolic link is written through: the link stays and its target gets
/// the new contents (as llvm-profdata writes it), however many links lead there. A dangling
/// link, a loop of links and a link to a directory are errors naming the output; nothing is
/// created.
#[cfg(unix)]
#[test]
fn symbolic_link_outputs() {
    use std::os::unix::fs::symlink;
    let dir = tempdir();
    let d = dir.path();
    let input = raw("clang22/ir-basic-run1.profraw");
    let reference = d.join("reference.profdata");
    assert_ok(
        &run_ours([
            "merge".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            reference.as_os_str(),
        ]),
        "reference",
    );
    let complete = std::fs::read(&reference).unwrap();
    let work = d.join("work");
    let profiles = d.join("profiles");
    std::fs::create_dir(&work).unwrap();
    std::fs::create_dir(&profiles).unwrap();
    let target = profiles.join("x.profdata");
    std::fs::write(&target, "old").unwrap();
    // default.profdata -> ../profiles/x.profdata, and a second link to that link.
    symlink("../profiles/x.profdata", work.join("default.profdata")).unwrap();
    symlink("default.profdata", work.join("again.profdata")).unwrap();
    for link in ["default.profdata", "again.profdata"] {
        std::fs::write(&target, "old").unwrap();
        let out = run_ours([
            "merge".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            work.join(link).as_os_str(),
        ]);
        assert_eq!(code(&out), 0, "{link}: {}", stderr(&out));
        assert_eq!(std::fs::read(&target).unwrap(), complete, "{link}");
        assert!(
            std::fs::symlink_metadata(work.join(link))
                .unwrap()
                .file_type()
                .is_symlink(),
            "{link}: the link was replaced"
        );
        assert_eq!(others(&profiles, &["x.profdata"]), Vec::<String>::new());
        assert_eq!(
            others(&work, &["default.profdata", "again.profdata"]),
            Vec::<String>::new()
        );
    }

    symlink("../nowhere/y.profdata", work.join("dangling.profdata")).unwrap();
    symlink("loop-b", work.join("loop-a")).unwrap();
    symlink("loop-a", work.join("loop-b")).unwrap();
    symlink("../profiles", work.join("to-dir")).unwrap();
    for (link, expected) in [
        (
            "dangling.profdata",
            "cannot write the output: it is a symbolic link to ../nowhere/y.profdata, which \
             does not exist",
        ),
        ("loop-a", "in a loop of links that never reaches a file"),
        ("to-dir", "the output is a directory"),
    ] {
        let o = work.join(link);
        let out = run_ours([
            "merge".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            o.as_os_str(),
        ]);
        let err = stderr(&out);
        assert_eq!(code(&out), 1, "{link}: {err}");
        assert!(
            err.starts_with(&format!("pgo-merge: error: {}: ", o.display()))
                && err.contains(expected),
            "{link}: expected {expected:?}:\n{err}"
        );
        assert_eq!(err.lines().count(), 1, "{link}: {err}");
    }
    assert!(!d.join("nowhere").exists());
    assert_eq!(
        others(
            &work,
            &[
                "default.profdata",
                "again.profdata",
                "dangling.profdata",
                "loop-a",
                "loop-b",
                "to-dir"
            ]
        ),
        Vec::<String>::new()
    );
    assert_eq!(others(&profiles, &["x.profdata"]), Vec::<String>::new());
}

/// Our binary as the unprivileged user 65534 when the tests run as root (through `setpriv`),
/// so that permissions apply; `None` as root without `setpriv`.
#[cfg(unix)]
fn unprivileged(test: &str) -> Option<Command> {
    let bin = env!("CARGO_BIN_EXE_pgo-merge");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some(Command::new(bin));
    }
    let setpriv = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("setpriv"))
            .find(|p| p.is_file())
    });
    match setpriv {
        Some(sp) => {
            let mut c = Command::new(sp);
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", bin]);
            Some(c)
        }
        None => {
            eprintln!("SKIPPED {test}: running as root without setpriv");
            None
        }
    }
}

/// An existing output the user may not write is not replaced (an error, as with
/// llvm-profdata and cp); root may write it, so root replaces it and it keeps its mode. An
/// output whose directory is read-only cannot be written even when the file itself is
/// writable (the new file is made next to it): an error, the file untouched.
#[cfg(unix)]
#[test]
fn read_only_outputs_and_directories() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir();
    let d = dir.path();
    std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o777)).unwrap();
    let input = raw("clang22/ir-basic-run1.profraw");
    let ro_file = d.join("read-only.profdata");
    std::fs::write(&ro_file, "old").unwrap();
    std::fs::set_permissions(&ro_file, std::fs::Permissions::from_mode(0o444)).unwrap();
    let ro_dir = d.join("read-only-dir");
    std::fs::create_dir(&ro_dir).unwrap();
    let in_ro_dir = ro_dir.join("writable.profdata");
    std::fs::write(&in_ro_dir, "old").unwrap();
    std::fs::set_permissions(&in_ro_dir, std::fs::Permissions::from_mode(0o666)).unwrap();
    std::fs::set_permissions(&ro_dir, std::fs::Permissions::from_mode(0o555)).unwrap();

    if let Some(mut cmd) = unprivileged("read_only_outputs_and_directories") {
        let out = cmd
            .args(["merge".as_ref(), input.as_os_str(), "-o".as_ref()])
            .arg(&ro_file)
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(code(&out), 1, "{err}");
        assert!(
            err.starts_with(&format!(
                "pgo-merge: error: {}: cannot write the output: the file exists and is \
                 read-only",
                ro_file.display()
            )),
            "{err}"
        );
        assert_eq!(std::fs::read(&ro_file).unwrap(), b"old");
        if let Some(mut cmd) = unprivileged("read_only_outputs_and_directories") {
            let out = cmd
                .args(["merge".as_ref(), input.as_os_str(), "-o".as_ref()])
                .arg(&in_ro_dir)
                .output()
                .unwrap();
            let err = stderr(&out);
            assert_eq!(code(&out), 1, "{err}");
            assert!(
                err.contains(&format!(
                    "{}: cannot write the output: no permission to create files in the \
                     directory {}",
                    in_ro_dir.display(),
                    ro_dir.display()
                )),
                "{err}"
            );
            assert_eq!(std::fs::read(&in_ro_dir).unwrap(), b"old");
        }
    }
    // Root (or the owner, after chmod) may write the file: it is replaced, mode kept.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        let out = run_ours([
            "merge".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            ro_file.as_os_str(),
        ]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_ne!(std::fs::read(&ro_file).unwrap(), b"old");
        let mode = std::fs::metadata(&ro_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o444);
    }
    std::fs::set_permissions(&ro_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(
        others(&ro_dir, &["writable.profdata"]),
        Vec::<String>::new()
    );
    assert_eq!(
        others(d, &["read-only.profdata", "read-only-dir"]),
        Vec::<String>::new()
    );
}

/// A file-size limit (`ulimit -f`, here `setrlimit` in the child) below the output's size:
/// the binary ignores SIGXFSZ, so the write fails with EFBIG and the error says so; the
/// existing output is untouched and no temporary file is left. The same for every writer
/// (indexed, text, iprof).
#[cfg(target_os = "linux")]
#[test]
fn file_size_limit_is_a_clear_error() {
    use std::os::unix::process::CommandExt;
    let dir = tempdir();
    let d = dir.path();
    let input = d.join("in.proftext");
    std::fs::write(&input, proftext(5_000, 0)).unwrap();
    let iprof = root().join("testdata/iprof/small-v1.1.0.iprof");
    let cases: [(&Path, &str, &[&str]); 3] = [
        (&input, "out.profdata", &[]),
        (&input, "out.proftext", &["--text"]),
        (&iprof, "out.iprof", &[]),
    ];
    for (input, name, extra) in cases {
        let output = d.join(name);
        std::fs::write(&output, "old").unwrap();
        let mut cmd = pgo_merge();
        cmd.arg("merge")
            .args(extra)
            .arg(input)
            .arg("-o")
            .arg(&output);
        // SAFETY: setrlimit is async-signal-safe; the closure touches no shared state.
        unsafe {
            cmd.pre_exec(|| {
                let limit = libc::rlimit {
                    rlim_cur: 300,
                    rlim_max: 300,
                };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let out = cmd.output().unwrap();
        let err = stderr(&out);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{name}: killed or wrong exit ({:?}): {err}",
            out.status
        );
        assert!(
            err.starts_with(&format!(
                "pgo-merge: error: {}: cannot write the output: File too large",
                output.display()
            )) && err.contains("file-size limit"),
            "{name}: {err}"
        );
        assert_eq!(std::fs::read(&output).unwrap(), b"old", "{name}");
    }
    assert_eq!(
        others(
            d,
            &["in.proftext", "out.profdata", "out.proftext", "out.iprof"]
        ),
        Vec::<String>::new()
    );
}

/// A device that is full (`/dev/full`, written in place as any non-regular output is): a
/// clear error naming it, exit 1.
#[cfg(target_os = "linux")]
#[test]
fn a_full_device_is_a_clear_error() {
    if !Path::new("/dev/full").exists() {
        eprintln!("SKIPPED a_full_device_is_a_clear_error: no /dev/full");
        return;
    }
    let input = raw("clang22/ir-basic-run1.profraw");
    for extra in [&[][..], &["--text"][..]] {
        let out = pgo_merge()
            .arg("merge")
            .args(extra)
            .arg(&input)
            .args(["-o", "/dev/full"])
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(code(&out), 1, "{extra:?}: {err}");
        assert!(
            err.starts_with("pgo-merge: error: /dev/full: cannot write the output: No space left"),
            "{extra:?}: {err}"
        );
    }
}

/// A file system that fills up while the output is written (a 1 MiB tmpfs, mounted in a
/// private mount namespace by `unshare`, holding an old output of 200 KB; the new one is
/// larger than what is left): a clear error, the old output intact, nothing else left.
#[cfg(target_os = "linux")]
#[test]
fn a_full_file_system_keeps_the_old_output() {
    let dir = tempdir();
    let d = dir.path();
    let input = d.join("in.proftext");
    std::fs::write(&input, proftext(20_000, 0)).unwrap();
    let mnt = d.join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let old = d.join("old");
    std::fs::write(&old, vec![b'o'; 200 << 10]).unwrap();
    // Runs inside the namespace; reports what it saw on stdout.
    let script = r#"
        set -u
        mount -t tmpfs -o size=1m none "$MNT" || { echo NOMOUNT; exit 0; }
        cp "$OLD" "$MNT/out.profdata"
        "$BIN" merge "$IN" -o "$MNT/out.profdata" 2>"$ERR"
        echo "rc=$?"
        if cmp -s "$OLD" "$MNT/out.profdata"; then echo SAME; fi
        ls -A "$MNT" | sed 's/^/file=/'
    "#;
    // SAFETY: geteuid has no preconditions.
    let flags = if unsafe { libc::geteuid() } == 0 {
        "-m"
    } else {
        "-Urm"
    };
    let err_file = d.join("stderr");
    let run = Command::new("unshare")
        .args([flags, "sh", "-c", script])
        .env("MNT", &mnt)
        .env("OLD", &old)
        .env("IN", &input)
        .env("ERR", &err_file)
        .env("BIN", env!("CARGO_BIN_EXE_pgo-merge"))
        .output();
    let report = match run {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        other => {
            eprintln!("SKIPPED a_full_file_system_keeps_the_old_output: unshare failed: {other:?}");
            return;
        }
    };
    if report.contains("NOMOUNT") {
        eprintln!("SKIPPED a_full_file_system_keeps_the_old_output: cannot mount a tmpfs");
        return;
    }
    let err = std::fs::read_to_string(&err_file).unwrap();
    assert!(report.contains("rc=1\n"), "{report}\n{err}");
    assert!(
        report.contains("SAME\n"),
        "the old output changed: {report}"
    );
    assert_eq!(
        report
            .lines()
            .filter(|l| l.starts_with("file="))
            .collect::<Vec<_>>(),
        vec!["file=out.profdata"],
        "{report}"
    );
    assert!(
        err.contains("out.profdata: cannot write the output: No space left on device"),
        "{err}"
    );
}

/// Peak resident memory (KiB) of our binary run with `args`, its exit code and stderr,
/// measured by GNU time (`time -f %M`), which forks the binary itself. (The rusage of a child
/// this test spawns directly would not do: a child's peak includes the RSS its parent had
/// when it was forked, and this test process runs other tests' threads.) `None`: no `time`.
#[cfg(target_os = "linux")]
fn peak_rss_kib(args: &[&OsStr], test: &str) -> Option<(i32, u64, String)> {
    let time = tool("time", test)?;
    let dir = tempdir();
    let rss = dir.path().join("rss");
    let out = Command::new(time)
        .args(["-f", "%M", "-o"])
        .arg(&rss)
        .arg(env!("CARGO_BIN_EXE_pgo-merge"))
        .args(args)
        .stdout(Stdio::null())
        .output()
        .unwrap();
    let kib = std::fs::read_to_string(&rss).unwrap();
    // GNU time writes "Command exited with non-zero status N" before the figure.
    let kib = kib.lines().last().unwrap_or("").trim().parse().unwrap();
    Some((code(&out), kib, stderr(&out)))
}

/// A gzip-compressed iprof whose error is near its end: 69 MB of JSON (mostly whitespace
/// between 45,000 entries) in about 250 KB. Placing the error once inflated it again whole
/// (about 100 MB of peak RSS); now the peak stays under 64 MB and the error still names the JSON path, line and
/// column.
#[cfg(target_os = "linux")]
#[test]
fn gzip_iprof_error_placement_uses_little_memory() {
    let dir = tempdir();
    let small = std::fs::read_to_string(root().join("testdata/iprof/small-v1.1.0.iprof")).unwrap();
    let key = "\"callCountProfiles\": [";
    let at = small.find(key).unwrap() + key.len();
    let gz = dir.path().join("hostile.iprof.gz");
    let mut e = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::best(),
    );
    e.write_all(&small.as_bytes()[..at]).unwrap();
    let pad = " ".repeat(1500);
    let n = 45_000;
    for k in 0..n {
        write!(
            e,
            "\n    {{\"ctx\": \"2:0<1:{}\", \"records\": [1]}},{pad}",
            k + 100
        )
        .unwrap();
    }
    // The error: a brace where the records array should close.
    e.write_all(b"\n    {\"ctx\": \"1:0\", \"records\": [1}},")
        .unwrap();
    e.write_all(&small.as_bytes()[at..]).unwrap();
    e.finish().unwrap();
    let size = std::fs::metadata(&gz).unwrap().len();
    let out = dir.path().join("out.iprof");
    let Some((code, kib, err)) = peak_rss_kib(
        &[
            "merge".as_ref(),
            gz.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ],
        "gzip_iprof_error_placement_uses_little_memory",
    ) else {
        return;
    };
    eprintln!(
        "gzip_iprof_error_placement_uses_little_memory: {size} bytes compressed, peak RSS {kib} KiB"
    );
    assert_eq!(code, 1, "{err}");
    let line = small[..at].lines().count() + n + 1;
    assert!(
        err.contains(&format!(
            "hostile.iprof.gz: callCountProfiles[{n}].records: invalid JSON: expected `,` or `]` \
             (line {line}, column 33)"
        )),
        "{err}"
    );
    assert!(kib < 64 << 10, "peak RSS {kib} KiB, the limit is 64 MiB");
    assert!(!out.exists());
}

/// A perf map of 25,000 nested regions (each inside the one before) and as many identical
/// ones: symbolisation builds its index in memory linear in the regions (it used 1.06 GB and
/// then refused the map), stays under 64 MB, and resolves to the innermost (latest) line.
#[cfg(target_os = "linux")]
#[test]
fn nested_perf_map_regions_use_little_memory() {
    let dir = tempdir();
    let d = dir.path();
    let n = 25_000u64;
    let mut nested = String::new();
    for i in 0..n {
        nested.push_str(&format!(
            "{:x} {:x} nested_{i}\n",
            0x10000 + i,
            2 * (n - i) + 100
        ));
    }
    for i in 0..n {
        nested.push_str(&format!("{:x} {:x} same_{i}\n", 0x100000, 0x1000));
    }
    let map = d.join("perf-7.map");
    std::fs::write(&map, &nested).unwrap();
    let script = d.join("script.txt");
    std::fs::write(
        &script,
        format!(
            "app  7/7   1.000001: \n\t{:x} [unknown] ([unknown])\n\napp  7/7   1.000002: \
             \n\t{:x} [unknown] ([unknown])\n\n",
            0x10000 + n - 1,
            0x100010
        ),
    )
    .unwrap();
    let out = d.join("out.folded");
    let Some((code, kib, err)) = peak_rss_kib(
        &[
            "symbolize".as_ref(),
            "--perf-map".as_ref(),
            map.as_os_str(),
            "--perf-script".as_ref(),
            script.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ],
        "nested_perf_map_regions_use_little_memory",
    ) else {
        return;
    };
    eprintln!("nested_perf_map_regions_use_little_memory: peak RSS {kib} KiB");
    assert_eq!(code, 0, "{err}");
    let folded = std::fs::read_to_string(&out).unwrap();
    assert!(
        folded.contains(&format!("nested_{}", n - 1))
            && folded.contains(&format!("same_{}", n - 1)),
        "{folded}"
    );
    assert!(kib < 64 << 10, "peak RSS {kib} KiB, the limit is 64 MiB");
}

/// A jitdump of 4,000 nested code loads, each inside the one before and loaded later (the
/// index would list every older load under every segment of a newer one: 8 million entries,
/// over 128 MB): symbolisation keeps a load history instead, stays under 64 MB, and
/// resolves each sample to the load that was current at its time.
#[cfg(target_os = "linux")]
#[test]
fn nested_jitdump_loads_use_little_memory() {
    let dir = tempdir();
    let d = dir.path();
    let n = 4_000u64;
    let (pid, base) = (7u32, 0x40_0000u64);
    let mut dump = Vec::new();
    // Header: magic, version 1, header size 40, x86-64, padding, pid, timestamp, flags.
    for w in [0x4A69_5444u32, 1, 40, 62, 0, pid] {
        dump.extend_from_slice(&w.to_le_bytes());
    }
    dump.extend_from_slice(&0u64.to_le_bytes());
    dump.extend_from_slice(&0u64.to_le_bytes());
    for i in 0..n {
        let name = format!("nested_{i}\0");
        let (addr, size) = (base + i, 2 * (n - i) + 16);
        let total = 16 + 40 + name.len() as u64 + size;
        dump.extend_from_slice(&0u32.to_le_bytes()); // JIT_CODE_LOAD
        dump.extend_from_slice(&(total as u32).to_le_bytes());
        dump.extend_from_slice(&(1_000 + 10 * i).to_le_bytes()); // load time, ns
        dump.extend_from_slice(&pid.to_le_bytes());
        dump.extend_from_slice(&pid.to_le_bytes());
        for w in [addr, addr, size, i] {
            dump.extend_from_slice(&w.to_le_bytes());
        }
        dump.extend_from_slice(name.as_bytes());
        dump.resize(dump.len() + size as usize, 0xc3);
    }
    let jit = d.join("jit-7.dump");
    std::fs::write(&jit, &dump).unwrap();
    // Samples at the centre, which every load covers: at 0.000002005 s (after load 100,
    // before load 101) and after the last load; and near the outer edge, which only the
    // first loads cover, late.
    let script = d.join("script.txt");
    let sample = |ns: u64, addr: u64| {
        format!("app  7/7   0.{ns:09}: \n\t{addr:x} [unknown] ([unknown])\n\n")
    };
    let centre = base + n;
    let text = [
        sample(2_005, centre),
        sample(1_000_000, centre),
        sample(1_000_000, base + 3),
    ]
    .concat();
    std::fs::write(&script, text).unwrap();
    let out = d.join("out.folded");
    let Some((code, kib, err)) = peak_rss_kib(
        &[
            "symbolize".as_ref(),
            "--jitdump".as_ref(),
            jit.as_os_str(),
            "--perf-script".as_ref(),
            script.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ],
        "nested_jitdump_loads_use_little_memory",
    ) else {
        return;
    };
    eprintln!("nested_jitdump_loads_use_little_memory: peak RSS {kib} KiB");
    assert_eq!(code, 0, "{err}");
    let folded = std::fs::read_to_string(&out).unwrap();
    for name in ["nested_100", &format!("nested_{}", n - 1), "nested_3"] {
        assert!(
            folded.lines().any(|l| l.ends_with(&format!("{name} 1"))),
            "{name}: {folded}"
        );
    }
    assert!(kib < 64 << 10, "peak RSS {kib} KiB, the limit is 64 MiB");
}
