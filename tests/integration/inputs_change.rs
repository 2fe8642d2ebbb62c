//! Inputs that change under a running merge, and inputs that are not regular files.
//!
//! A large raw profile is truncated by this test while a `pgo-merge` process has it mapped:
//! the child is stopped (`SIGSTOP`) once the file shows in its `/proc/PID/maps`, the file is
//! truncated, the child continues. It must end with an exit code, never a signal: an error
//! naming the file under `--failure-mode=any`, a warning and the merge of the other inputs
//! under `warn`. `/dev/zero` and never-ending FIFOs as inputs must fail soon with a small
//! peak memory (the child's own `ru_maxrss`, from `wait4`). Nothing here is timed; the
//! deadlines only keep a broken build from hanging the suite.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::common::{assert_ok, pgo_merge, run_ours, tempdir};

#[allow(dead_code)]
#[path = "../../benches/gen-profraw/src/main.rs"]
pub(crate) mod gen_profraw;

/// A synthetic raw profile of 470,000 functions (about 102 MB), made once per test run.
fn big_profile() -> &'static [u8] {
    static BIG: OnceLock<Vec<u8>> = OnceLock::new();
    BIG.get_or_init(|| {
        let b = gen_profraw::Binary::new(470_000, 1);
        let mut buf = Vec::new();
        gen_profraw::write_run(&b, 0, 1, &mut buf);
        assert!(buf.len() >= 100_000_000, "{} bytes", buf.len());
        buf
    })
}

/// Two small raw profiles of another program.
fn small_profiles(dir: &Path) -> (PathBuf, PathBuf) {
    let b = gen_profraw::Binary::new(2_000, 7);
    let mut paths = Vec::new();
    for run in [1, 2] {
        let mut buf = Vec::new();
        gen_profraw::write_run(&b, run, 7, &mut buf);
        let p = dir.join(format!("small-{run}.profraw"));
        std::fs::write(&p, &buf).unwrap();
        paths.push(p);
    }
    (paths[0].clone(), paths[1].clone())
}

/// Sends `sig` (`STOP`, `CONT`, `KILL`) to `pid`.
fn signal(pid: u32, sig: &str) {
    let _ = Command::new("kill")
        .args([format!("-{sig}"), pid.to_string()])
        .status();
}

/// True while `pid` has `path` mapped.
fn has_mapped(pid: u32, path: &Path) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/maps"))
        .is_ok_and(|m| m.lines().any(|l| l.ends_with(&*path.to_string_lossy())))
}

/// Waits until `pid` is stopped (state `T`), or gone.
fn wait_stopped(pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(s) => {
                let state = s
                    .rsplit(')')
                    .next()
                    .and_then(|r| r.split_whitespace().next());
                if matches!(state, Some("T" | "t" | "Z")) {
                    return;
                }
            }
            Err(_) => return,
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// What happened to a child: its exit code (`None`: killed by a signal), its stderr.
struct Ended {
    code: Option<i32>,
    signal: Option<i32>,
    stderr: String,
}

/// Waits for `child` (its stderr piped), killing it after `limit`.
fn wait_child(mut child: Child, limit: Duration) -> Ended {
    let pid = child.id();
    let mut stderr = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            let start = Instant::now();
            while start.elapsed() < limit {
                if done.load(std::sync::atomic::Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            signal(pid, "KILL");
        })
    };
    let status = child.wait().expect("wait");
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = watchdog.join();
    let stderr = reader.join().unwrap_or_default();
    Ended {
        code: status.code(),
        signal: std::os::unix::process::ExitStatusExt::signal(&status),
        stderr,
    }
}

/// GNU time, which reports the peak memory of a child it forks itself. (The `ru_maxrss`
/// of a child of the test process counts the test process's own memory at the fork, and
/// this process holds a 100 MB profile.)
const GNU_TIME: &str = "/usr/bin/time";

/// A merge of `input` (options `extra`, environment `env`) whose peak resident memory is
/// measured: the command, and the file GNU time writes the peak to (KiB), if it is there.
fn measured_merge(input: &Path, out: &Path, env: &[(&str, &str)]) -> (Command, Option<PathBuf>) {
    let peak = out.with_extension("peak");
    let mut c = if Path::new(GNU_TIME).exists() {
        let mut c = Command::new(GNU_TIME);
        c.args(["-f", "%M", "-o"])
            .arg(&peak)
            .arg(env!("CARGO_BIN_EXE_pgo-merge"));
        c
    } else {
        if crate::common::tools_required() {
            panic!("the peak memory check needs {GNU_TIME} (PGO_MERGE_REQUIRE_TOOLS=1)");
        }
        eprintln!("SKIPPED: the peak memory check ({GNU_TIME} is not installed)");
        pgo_merge()
    };
    c.envs(env.iter().copied())
        .arg("merge")
        .arg(input)
        .arg("-o")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    (c, Path::new(GNU_TIME).exists().then_some(peak))
}

/// Runs a merge of never-ending `input` and checks that it failed with exit code 1 and
/// `expected` in its messages, using less than [`SMALL_KIB`].
fn fails_small(input: &Path, env: &[(&str, &str)], expected: &str) {
    let dir = tempdir();
    let out = dir.path().join("out.profdata");
    let (mut c, peak) = measured_merge(input, &out, env);
    let ended = wait_child(c.spawn().expect("start"), Duration::from_secs(120));
    assert!(ended.signal.is_none(), "signal {:?}", ended.signal);
    // GNU time passes the exit code on.
    assert_eq!(ended.code, Some(1), "{}", ended.stderr);
    assert!(
        ended.stderr.contains(expected),
        "expected {expected:?} in:\n{}",
        ended.stderr
    );
    if let Some(peak) = peak {
        let text = std::fs::read_to_string(&peak).unwrap_or_default();
        let kib: i64 = text
            .lines()
            .last()
            .and_then(|l| l.trim().parse().ok())
            .unwrap_or_else(|| panic!("no peak memory in {text:?}"));
        assert!(kib < SMALL_KIB, "peak {kib} KiB");
    }
    assert!(!out.exists());
}

/// Starts a merge of `inputs` into `out` with `extra` options.
fn start_merge(inputs: &[&Path], out: &Path, extra: &[&str]) -> Child {
    let mut c = pgo_merge();
    c.arg("merge").args(extra);
    for i in inputs {
        c.arg(i);
    }
    c.arg("-o")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start pgo-merge")
}

/// Starts a merge, stops it once it has `victim` mapped and `delay` has passed, truncates
/// `victim` to `keep` bytes and lets the merge go on. Returns how it ended and whether the
/// file was still mapped when it was truncated.
fn truncate_under(
    inputs: &[&Path],
    victim: &Path,
    out: &Path,
    extra: &[&str],
    delay: Duration,
    keep: u64,
) -> (Ended, bool) {
    let child = start_merge(inputs, out, extra);
    let pid = child.id();
    let deadline = Instant::now() + Duration::from_secs(300);
    while !has_mapped(pid, victim) && Instant::now() < deadline {
        if std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| s.contains(") Z"))
        {
            break;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    std::thread::sleep(delay);
    signal(pid, "STOP");
    wait_stopped(pid);
    let mapped = has_mapped(pid, victim);
    std::fs::OpenOptions::new()
        .write(true)
        .open(victim)
        .unwrap()
        .set_len(keep)
        .unwrap();
    signal(pid, "CONT");
    (wait_child(child, Duration::from_secs(600)), mapped)
}

#[test]
fn truncating_an_input_during_a_merge_is_an_error_naming_it() {
    let dir = tempdir();
    let d = dir.path();
    let big = big_profile();
    let len = big.len() as u64;
    let victim = d.join("big.profraw");
    let out = d.join("out.profdata");
    let mut reference: Option<Vec<u8>> = None;
    let mut detected = 0;
    // Points: right after mapping, to nothing, to one page, to half, to all but the last
    // page; and while the merge has been reading it for a while.
    let points = [
        (Duration::ZERO, 0),
        (Duration::ZERO, 4096),
        (Duration::ZERO, len / 2),
        (Duration::ZERO, len / 4096 * 4096 - 4096),
        (Duration::from_millis(300), len / 3),
        (Duration::from_millis(1500), 0),
    ];
    for (delay, keep) in points {
        std::fs::write(&victim, big).unwrap();
        let _ = std::fs::remove_file(&out);
        let (ended, mapped) = truncate_under(&[&victim], &victim, &out, &[], delay, keep);
        let what = format!("truncated to {keep} after {delay:?} (mapped: {mapped})");
        assert!(
            ended.signal.is_none(),
            "{what}: killed by signal {:?}; stderr:\n{}",
            ended.signal,
            ended.stderr
        );
        if ended.code == Some(0) {
            // Read whole before the truncation: the output must be the whole file's.
            let want = reference.get_or_insert_with(|| {
                std::fs::write(&victim, big).unwrap();
                let r = d.join("reference.profdata");
                assert_ok(
                    &run_ours([victim.as_os_str(), "-o".as_ref(), r.as_os_str()]),
                    "reference merge",
                );
                std::fs::read(r).unwrap()
            });
            assert!(
                std::fs::read(&out).unwrap() == *want,
                "{what}: a merge that succeeded wrote something else than the whole file's"
            );
            continue;
        }
        assert_eq!(ended.code, Some(1), "{what}: {}", ended.stderr);
        assert!(
            ended.stderr.contains(&format!(
                "{}: the file changed while it was being read",
                victim.display()
            )),
            "{what}: the error must name the file and say it changed:\n{}",
            ended.stderr
        );
        assert!(!out.exists(), "{what}: no output after an error");
        detected += 1;
    }
    assert!(
        detected >= 4,
        "the truncation must have hit the merge while it read the file at most points \
         ({detected} of {})",
        points.len()
    );
}

#[test]
fn under_failure_mode_warn_a_truncated_input_is_left_out() {
    let dir = tempdir();
    let d = dir.path();
    let (s1, s2) = small_profiles(d);
    let victim = d.join("big.profraw");
    let rest = d.join("rest.profdata");
    assert_ok(
        &run_ours([
            s1.as_os_str(),
            s2.as_os_str(),
            "-o".as_ref(),
            rest.as_os_str(),
        ]),
        "merge of the small inputs",
    );
    let out = d.join("out.profdata");
    let keep = big_profile().len() as u64 / 2;
    let mut hit = 0;
    let mut whole: Option<Vec<u8>> = None;
    // Right after mapping (while it is parsed), and later (while it is parsed or while its
    // counters are added: then the merge starts again without it).
    for delay in [0, 1500, 4000].map(Duration::from_millis) {
        std::fs::write(&victim, big_profile()).unwrap();
        let (ended, mapped) = truncate_under(
            &[&s1, &victim, &s2],
            &victim,
            &out,
            &["--failure-mode=warn"],
            delay,
            keep,
        );
        let what = format!("truncated after {delay:?}");
        assert_eq!(
            ended.code,
            Some(0),
            "{what}: signal {:?}; stderr:\n{}",
            ended.signal,
            ended.stderr
        );
        if !mapped {
            // The big input was read whole and let go before the truncation.
            continue;
        }
        if ended.stderr.contains("3 of 3 inputs") {
            // Still mapped, but every byte of it had been read before the truncation (on a
            // fast machine the late point can fall after the read): then the output must be
            // the merge of all three whole inputs.
            let want = whole.get_or_insert_with(|| {
                std::fs::write(&victim, big_profile()).unwrap();
                let r = d.join("whole.profdata");
                assert_ok(
                    &run_ours([
                        s1.as_os_str(),
                        victim.as_os_str(),
                        s2.as_os_str(),
                        "-o".as_ref(),
                        r.as_os_str(),
                    ]),
                    "merge of the whole inputs",
                );
                std::fs::read(r).unwrap()
            });
            assert!(
                !ended.stderr.contains("warning") && std::fs::read(&out).unwrap() == *want,
                "{what}: a merge of all inputs must be the merge of the whole files:\n{}",
                ended.stderr
            );
            continue;
        }
        hit += 1;
        assert!(
            ended.stderr.contains("warning")
                && ended.stderr.contains(&format!(
                    "{}: the file changed while it was being read",
                    victim.display()
                ))
                && ended.stderr.contains("2 of 3 inputs"),
            "{what}: the warning must name the file:\n{}",
            ended.stderr
        );
        assert!(
            std::fs::read(&out).unwrap() == std::fs::read(&rest).unwrap(),
            "{what}: the output must be the merge of the other inputs"
        );
    }
    assert!(
        hit >= 1,
        "the big input was never truncated while it was mapped"
    );
}

/// Peak memory allowed to a merge that reads a never-ending input.
const SMALL_KIB: i64 = 64 << 10;

#[test]
fn dev_zero_as_an_input_fails_at_once() {
    fails_small(
        Path::new("/dev/zero"),
        &[],
        "/dev/zero: at offset 0x0: unrecognised file format",
    );
}

/// Makes a FIFO and a thread that writes `head` once, then `body` into it for ever (until
/// the reader goes away).
fn endless_fifo(dir: &Path, head: &'static [u8], body: &'static [u8]) -> PathBuf {
    let fifo = dir.join("endless.fifo");
    let st = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(st.success());
    let p = fifo.clone();
    std::thread::spawn(move || {
        // Blocks until the merge opens the FIFO; ends when it closes it (EPIPE).
        let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&p) else {
            return;
        };
        if f.write_all(head).is_err() {
            return;
        }
        while f.write_all(body).is_ok() {}
    });
    fifo
}

#[test]
fn an_endless_fifo_of_zeros_fails_at_once() {
    let dir = tempdir();
    let fifo = endless_fifo(dir.path(), b"", &[0; 65536]);
    let expected = format!(
        "{}: at offset 0x0: unrecognised file format",
        fifo.display()
    );
    fails_small(&fifo, &[], &expected);
}

#[test]
fn an_endless_fifo_of_text_stops_at_the_limit() {
    let dir = tempdir();
    // A text profile that never ends.
    let fifo = endless_fifo(
        dir.path(),
        b"# IR level Instrumentation Flag\n:ir\n",
        b"f\n# Func Hash:\n1\n# Num Counters:\n1\n# Counter Values:\n1\n\n",
    );
    // The error names the file, the limit and how to raise it.
    let expected = format!(
        "{}: more than 16777216 bytes from an input that is not a regular file (a pipe, FIFO \
         or device); reading stopped there. Set PGO_MERGE_STREAM_LIMIT=SIZE",
        fifo.display()
    );
    fails_small(&fifo, &[("PGO_MERGE_STREAM_LIMIT", "16M")], &expected);
    // A bad setting is a usage error naming the variable.
    let out2 = run_ours_env(Path::new("/dev/zero"), "lots");
    assert!(
        out2.contains("PGO_MERGE_STREAM_LIMIT=\"lots\" is not a size"),
        "{out2}"
    );
}

/// Merges `input` with `PGO_MERGE_STREAM_LIMIT=limit`; returns stderr.
fn run_ours_env(input: &Path, limit: &str) -> String {
    let out = pgo_merge()
        .env("PGO_MERGE_STREAM_LIMIT", limit)
        .arg("merge")
        .arg(input)
        .arg("-o")
        .arg("/dev/null")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_small_pipe_is_read_whole() {
    // A text profile through a pipe (standard input) still merges.
    let dir = tempdir();
    let out = dir.path().join("out.proftext");
    let mut child = pgo_merge()
        .args(["merge", "--text", "/dev/stdin", "-o"])
        .arg(&out)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"# IR level Instrumentation Flag\n:ir\nmain\n# Func Hash:\n1\n# Num Counters:\n1\n# Counter Values:\n7\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_ok(&o, "merge from a pipe");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("main\n# Func Hash:\n1\n"), "{text}");
}
