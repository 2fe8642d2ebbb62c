//! Hostile systems: inputs that are FIFOs, sockets or devices, threads the system refuses,
//! memory it refuses, compressed inputs that inflate to gigabytes, and raw files of many
//! profiles. Each case runs the binary under the real limit (`prlimit --nproc`, `prlimit
//! --as`, a FIFO made with `mkfifo`) with a timeout around it, and must end with a success or
//! an error naming the cause: never a signal, a panic (exit 101) or the timeout.
//!
//! Thread limits: `prlimit --nproc` counts every process of the user, and root is exempt
//! from it, so as root the binary runs as `nobody` (`setpriv`) with `--nproc=1`: it may then
//! start no thread at all.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{dropin, raw, root, run_ours, tempdir, tool};

use crate::inputs_change::gen_profraw;

/// How a limited run ended.
#[derive(Debug)]
struct Ended {
    code: Option<i32>,
    signal: Option<i32>,
    timed_out: bool,
    stdout: String,
    stderr: String,
}

impl Ended {
    /// Asserts that the run ended by itself, with an exit code: no signal (an abort), no
    /// panic (101), no timeout (a hang).
    fn assert_clean(&self, what: &str) {
        assert!(
            !self.timed_out,
            "{what}: still running at the timeout (a hang)\n{self:?}"
        );
        assert!(
            self.signal.is_none(),
            "{what}: killed by a signal\n{self:?}"
        );
        assert_ne!(self.code, Some(101), "{what}: panicked\n{self:?}");
    }

    fn assert_success(&self, what: &str) {
        self.assert_clean(what);
        assert_eq!(self.code, Some(0), "{what}: failed\n{self:?}");
    }

    /// Asserts a clean failure (exit code 1) whose message contains `cause`.
    fn assert_error(&self, what: &str, cause: &str) {
        self.assert_clean(what);
        assert_eq!(self.code, Some(1), "{what}: expected exit code 1\n{self:?}");
        assert!(
            self.stderr.contains(cause),
            "{what}: the error does not name the cause ({cause})\n{self:?}"
        );
    }
}

/// Runs `program args` behind the `wrapper` command (e.g. `prlimit --as=…`), with extra
/// environment variables, killing it after `timeout`.
fn run_limited(
    wrapper: &[OsString],
    program: &Path,
    args: &[&OsStr],
    env: &[(&str, &str)],
    timeout: Duration,
) -> Ended {
    let mut cmd = match wrapper.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(program);
            c
        }
        None => Command::new(program),
    };
    cmd.args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    let t0 = Instant::now();
    let mut timed_out = false;
    while child.try_wait().expect("wait").is_none() {
        if t0.elapsed() > timeout {
            timed_out = true;
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().expect("output");
    Ended {
        code: out.status.code(),
        signal: out.status.signal(),
        timed_out,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn ours() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_pgo-merge"))
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

fn refs(v: &[OsString]) -> Vec<&OsStr> {
    v.iter().map(OsString::as_os_str).collect()
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(
        unsafe { libc::mkfifo(c.as_ptr(), 0o644) },
        0,
        "mkfifo {p:?}"
    );
}

const MINUTE: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------------------------
// FIFOs, sockets and devices

/// A directory with two raw profiles and, named like profiles, a FIFO (no writer: opening it
/// would wait for ever), a socket and a link to /dev/null.
fn dir_with_specials() -> (tempfile::TempDir, PathBuf) {
    let dir = tempdir();
    let d = dir.path().join("profiles");
    std::fs::create_dir(&d).unwrap();
    for f in ["ir-basic-run1", "ir-basic-run2"] {
        std::fs::copy(
            raw(&format!("clang22/{f}.profraw")),
            d.join(format!("{f}.profraw")),
        )
        .unwrap();
    }
    mkfifo(&d.join("fifo.profraw"));
    let _socket = std::os::unix::net::UnixListener::bind(d.join("socket.profraw")).unwrap();
    std::os::unix::fs::symlink("/dev/null", d.join("null.profraw")).unwrap();
    (dir, d)
}

#[test]
fn a_fifo_socket_or_device_in_a_directory_is_skipped_not_waited_on() {
    let (dir, d) = dir_with_specials();
    let out = dir.path().join("out.profdata");
    let args = [d.as_os_str(), OsStr::new("-o"), out.as_os_str()];
    let e = run_limited(&[], &ours(), &args, &[], MINUTE);
    e.assert_success("merge of a directory holding a FIFO");
    for what in [
        "fifo.profraw: skipped: a FIFO",
        "socket.profraw: skipped: a socket",
    ] {
        assert!(e.stderr.contains(what), "no warning {what:?}\n{e:?}");
    }
    assert!(
        e.stderr
            .contains("null.profraw: skipped: a symbolic link to a character device")
    );
    assert!(e.stderr.contains("2 of 2 inputs"), "{e:?}");

    // The drop-in leaves them out, as llvm-profdata does (which says nothing; we warn, as
    // natively: docs/usage.md, "Pipes and devices").
    let (_g, link) = dropin();
    let args = [
        OsStr::new("merge"),
        d.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
    ];
    let e = run_limited(&[], &link, &args, &[], MINUTE);
    e.assert_success("drop-in merge of a directory holding a FIFO");
    assert!(e.stderr.contains("fifo.profraw: skipped: a FIFO"), "{e:?}");
    if let Some(llvm) = tool("llvm-profdata-22", "a_fifo_socket_or_device_in_a_directory") {
        let theirs = dir.path().join("theirs.profdata");
        let args = [
            OsStr::new("merge"),
            d.as_os_str(),
            OsStr::new("-o"),
            theirs.as_os_str(),
        ];
        run_limited(&[], &llvm, &args, &[], MINUTE).assert_success("llvm-profdata-22");
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(&theirs).unwrap()
        );
    }
}

#[test]
fn a_fifo_named_as_an_input_is_read_as_a_pipe() {
    let dir = tempdir();
    let fifo = dir.path().join("in.profraw");
    mkfifo(&fifo);
    let src = raw("clang22/ir-basic-run1.profraw");
    let bytes = std::fs::read(&src).unwrap();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            // Opening waits for the reader, as a pipe does.
            let mut f = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            f.write_all(&bytes).unwrap();
        })
    };
    let out = dir.path().join("out.profdata");
    let args = [fifo.as_os_str(), OsStr::new("-o"), out.as_os_str()];
    run_limited(&[], &ours(), &args, &[], MINUTE).assert_success("merge of a FIFO");
    writer.join().unwrap();
    let expected = dir.path().join("expected.profdata");
    let r = run_ours([src.as_os_str(), OsStr::new("-o"), expected.as_os_str()]);
    assert!(r.status.success());
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&expected).unwrap()
    );

    // /dev/stdin on a pipe, too.
    let mut child = Command::new(ours())
        .args([OsStr::new("/dev/stdin"), OsStr::new("-o"), out.as_os_str()])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(&src).unwrap())
        .unwrap();
    assert!(child.wait_with_output().unwrap().status.success());
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&expected).unwrap()
    );
}

#[test]
fn the_dropin_leaves_out_a_fifo_named_as_an_input_as_llvm_profdata_does() {
    let dir = tempdir();
    let fifo = dir.path().join("in.profraw");
    mkfifo(&fifo);
    let src = raw("clang22/ir-basic-run1.profraw");
    let (_g, link) = dropin();
    let ours_out = dir.path().join("ours.profdata");
    let with = |o: &Path| {
        os(&["merge"])
            .into_iter()
            .chain([
                fifo.clone().into(),
                src.clone().into(),
                "-o".into(),
                o.into(),
            ])
            .collect::<Vec<OsString>>()
    };
    // No writer: reading it would wait for ever.
    let e = run_limited(&[], &link, &refs(&with(&ours_out)), &[], MINUTE);
    e.assert_success("drop-in merge naming a FIFO");
    assert!(e.stderr.contains("in.profraw: skipped: a FIFO"), "{e:?}");
    let alone = [
        OsStr::new("merge"),
        fifo.as_os_str(),
        OsStr::new("-o"),
        ours_out.as_os_str(),
    ];
    let e = run_limited(&[], &link, &alone, &[], MINUTE);
    e.assert_error("drop-in merge of a FIFO alone", "no input files");
    if let Some(llvm) = tool("llvm-profdata-22", "the_dropin_leaves_out_a_fifo") {
        let theirs = dir.path().join("theirs.profdata");
        run_limited(&[], &llvm, &refs(&with(&theirs)), &[], MINUTE).assert_success("llvm");
        let e = run_limited(&[], &link, &refs(&with(&ours_out)), &[], MINUTE);
        e.assert_success("drop-in");
        assert_eq!(
            std::fs::read(&ours_out).unwrap(),
            std::fs::read(&theirs).unwrap()
        );
        let alone = [
            OsStr::new("merge"),
            fifo.as_os_str(),
            OsStr::new("-o"),
            theirs.as_os_str(),
        ];
        let e = run_limited(&[], &llvm, &alone, &[], MINUTE);
        assert_eq!(e.code, Some(1), "llvm-profdata-22 on a FIFO alone: {e:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Threads the system refuses

/// The wrapper that runs the binary where it may start no thread: `prlimit --nproc=1` (the
/// user's processes already reach it), as `nobody` when running as root (root is exempt from
/// the limit). None, with a SKIPPED line, if that cannot be arranged.
fn no_threads(test: &str) -> Option<Vec<OsString>> {
    tool("prlimit", test)?;
    // SAFETY: no arguments, no side effects.
    if unsafe { libc::geteuid() } != 0 {
        return Some(os(&["prlimit", "--nproc=1", "--"]));
    }
    tool("setpriv", test)?;
    Some(os(&[
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "prlimit",
        "--nproc=1",
        "--",
    ]))
}

/// A temporary directory anyone may write (the limited runs are `nobody`'s).
fn open_tempdir() -> tempfile::TempDir {
    let dir = tempdir();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    dir
}

/// Runs `args` once freely and once where no thread can start; both must succeed with the
/// same output, the limited one with a warning naming the cause (unless `-j 1`, which needs
/// no thread).
fn same_without_threads(wrapper: &[OsString], args: &[&str], output: &str) {
    let dir = open_tempdir();
    let run = |w: &[OsString], name: &str| {
        let o = dir.path().join(name);
        let mut a: Vec<OsString> = args
            .iter()
            .map(|s| root().join(s).into_os_string())
            .collect();
        for x in &mut a {
            // Options and the subcommand are not paths.
            let s = x.to_string_lossy().into_owned();
            let rel = s
                .strip_prefix(&format!("{}/", root().display()))
                .unwrap_or(&s);
            if rel.starts_with('-') || !rel.contains('/') {
                *x = rel.into();
            }
        }
        a.push("-o".into());
        a.push(o.clone().into());
        let e = run_limited(w, &ours(), &refs(&a), &[], MINUTE * 5);
        (e, o)
    };
    let (free, free_out) = run(&[], &format!("free.{output}"));
    free.assert_success(&format!("{args:?}"));
    let (limited, limited_out) = run(wrapper, &format!("limited.{output}"));
    limited.assert_success(&format!("{args:?} with no threads"));
    assert_eq!(
        std::fs::read(&free_out).unwrap(),
        std::fs::read(&limited_out).unwrap(),
        "{args:?}: a different output with no threads"
    );
    if !args.contains(&"-j1") {
        assert!(
            limited.stderr.contains("could not start")
                && limited.stderr.contains("Resource temporarily unavailable"),
            "{args:?}: no warning naming the cause\n{limited:?}"
        );
    }
}

#[test]
fn merges_work_on_one_thread_when_the_system_refuses_threads() {
    let Some(w) = no_threads("merges_work_on_one_thread") else {
        return;
    };
    let a = "testdata/profraw/clang22/ir-basic-run1.profraw";
    let b = "testdata/profraw/clang22/ir-basic-run2.profraw";
    for j in ["-j0", "-j4", "-j1"] {
        same_without_threads(&w, &["merge", j, a, b], "profdata");
    }
    let i = "testdata/iprof/small-v1.1.0.iprof";
    same_without_threads(&w, &["merge", "-j4", i, i], "iprof");
    let s1 = "testdata/sample/flat.prof.txt";
    let s2 = "testdata/sample/flat-second.prof.txt";
    same_without_threads(&w, &["merge", "--sample", "-j4", s1, s2], "afdo");
}

#[test]
fn show_of_a_raw_profile_works_when_the_system_refuses_threads() {
    let Some(w) = no_threads("show_of_a_raw_profile") else {
        return;
    };
    let args = os(&["show", "--all-functions", "--counts"]);
    let mut args = args;
    args.push(raw("clang22/ir-basic-run1.profraw").into());
    let free = run_limited(&[], &ours(), &refs(&args), &[], MINUTE);
    free.assert_success("show");
    let limited = run_limited(&w, &ours(), &refs(&args), &[], MINUTE);
    limited.assert_success("show with no threads");
    assert_eq!(free.stdout, limited.stdout);
}

#[test]
fn rayon_num_threads_is_capped() {
    // 100000 threads' stacks do not fit in 4 GiB of address space; the capped count does.
    let Some(prlimit) = tool("prlimit", "rayon_num_threads_is_capped") else {
        return;
    };
    let dir = tempdir();
    let out = dir.path().join("out.profdata");
    let w = vec![
        prlimit.into_os_string(),
        format!("--as={}", 4u64 << 30).into(),
    ];
    let a = raw("clang22/ir-basic-run1.profraw");
    let args = [a.as_os_str(), OsStr::new("-o"), out.as_os_str()];
    let e = run_limited(
        &w,
        &ours(),
        &args,
        &[("RAYON_NUM_THREADS", "100000")],
        MINUTE,
    );
    e.assert_success("RAYON_NUM_THREADS=100000");
    assert!(
        e.stderr
            .contains("100000 worker threads asked for (by RAYON_NUM_THREADS); using"),
        "{e:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Memory the system refuses

/// At most two malloc arenas: each reserves 64 MiB of address space.
const FEW_ARENAS: [(&str, &str); 1] = [("MALLOC_ARENA_MAX", "2")];

/// The wrapper that gives 512 MiB of address space (with [`FEW_ARENAS`]).
fn as_512m(test: &str) -> Option<Vec<OsString>> {
    let prlimit = tool("prlimit", test)?;
    Some(vec![
        prlimit.into_os_string(),
        format!("--as={}", 512u64 << 20).into(),
    ])
}

/// gzip members: the JSON's opening, `n_mib` MiB of one letter (a string value), its close.
/// Deflate packs 1 MiB of one byte into about 1 KiB, so 2048 MiB take 2 MB.
fn gzip_bomb(n_mib: usize) -> Vec<u8> {
    use flate2::{Compression, write::GzEncoder};
    let member = |data: &[u8]| {
        let mut e = GzEncoder::new(Vec::new(), Compression::best());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    };
    let mut out = member(br#"{"version": "1.1.0", "types": [{"id": 0, "name": ""#);
    let mib = member(&vec![b'A'; 1 << 20]);
    for _ in 0..n_mib {
        out.extend_from_slice(&mib);
    }
    out.extend(member(br#""}]}"#));
    out
}

#[test]
fn a_gzip_bomb_stops_at_the_limit_of_decompressed_bytes() {
    let Some(w) = as_512m("a_gzip_bomb_stops") else {
        return;
    };
    let dir = tempdir();
    let bomb = dir.path().join("bomb.iprof.gz");
    std::fs::write(&bomb, gzip_bomb(2048)).unwrap();
    assert!(std::fs::metadata(&bomb).unwrap().len() < 3 << 20);
    let out = dir.path().join("out.iprof");
    let args = [bomb.as_os_str(), OsStr::new("-o"), out.as_os_str()];
    let e = run_limited(&w, &ours(), &args, &FEW_ARENAS, MINUTE * 5);
    e.assert_error("a 2 MB gzip bomb under 512 MiB", "PGO_MERGE_INFLATE_LIMIT");
    assert!(
        e.stderr.contains("inflates to more than 134217728 bytes"),
        "{e:?}"
    );
}

#[test]
fn the_limit_of_decompressed_bytes_applies_to_every_compressed_input() {
    let dir = tempdir();
    let iprof = dir.path().join("small.iprof.gz");
    {
        use flate2::{Compression, write::GzEncoder};
        let mut e = GzEncoder::new(Vec::new(), Compression::best());
        e.write_all(&std::fs::read(root().join("testdata/iprof/small-v1.1.0.iprof")).unwrap())
            .unwrap();
        std::fs::write(&iprof, e.finish().unwrap()).unwrap();
    }
    let cases: [(&str, Vec<OsString>); 3] = [
        (
            "gzip-compressed iprof",
            vec!["show".into(), iprof.clone().into()],
        ),
        (
            "compressed names",
            vec!["show".into(), raw("clang22/ir-basic-run1.profraw").into()],
        ),
        (
            "compressed sample-profile sections",
            vec![
                "show".into(),
                "--sample".into(),
                root()
                    .join("testdata/sample/llvm22/flat.compress.afdo")
                    .into(),
            ],
        ),
    ];
    for (what, args) in &cases {
        let free = run_limited(&[], &ours(), &refs(args), &[], MINUTE);
        free.assert_success(what);
        let small = [("PGO_MERGE_INFLATE_LIMIT", "64")];
        let e = run_limited(&[], &ours(), &refs(args), &small, MINUTE);
        e.assert_error(
            what,
            "the limit of decompressed bytes per input; set PGO_MERGE_INFLATE_LIMIT",
        );
    }
}

#[test]
fn a_sparse_raw_file_larger_than_the_memory_limit_is_an_error() {
    let Some(w) = as_512m("a_sparse_raw_file") else {
        return;
    };
    let dir = tempdir();
    let sparse = dir.path().join("sparse.profraw");
    let head = std::fs::read(raw("clang22/ir-basic-run1.profraw")).unwrap();
    let f = std::fs::File::create(&sparse).unwrap();
    (&f).write_all(&head[..64]).unwrap();
    f.set_len(1 << 30).unwrap();
    let out = dir.path().join("out.profdata");
    let args = [sparse.as_os_str(), OsStr::new("-o"), out.as_os_str()];
    let e = run_limited(&w, &ours(), &args, &FEW_ARENAS, MINUTE);
    e.assert_error(
        "a 1 GiB sparse profile under 512 MiB",
        "cannot allocate 1073741824 bytes",
    );
    if let Some(llvm) = tool("llvm-profdata-22", "a_sparse_raw_file") {
        let args = [
            OsStr::new("merge"),
            sparse.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ];
        let theirs = run_limited(&w, &llvm, &args, &FEW_ARENAS, MINUTE);
        assert_eq!(theirs.code, Some(1), "llvm-profdata-22: {theirs:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Raw files of many profiles

#[test]
fn a_raw_file_of_many_profiles_is_merged_in_memory_bounded_by_the_result() {
    let Some(prlimit) = tool("prlimit", "a_raw_file_of_many_profiles") else {
        return;
    };
    // 120 runs of one binary of 4,000 functions, appended: 103 MB. Read whole, its records
    // alone took 120 MB; profile by profile, a few.
    let dir = tempdir();
    let b = gen_profraw::Binary::new(4_000, 3);
    let (mut all, mut run) = (Vec::new(), Vec::new());
    let separate = dir.path().join("runs");
    std::fs::create_dir(&separate).unwrap();
    for i in 0..120 {
        gen_profraw::write_run(&b, i, 3, &mut run);
        all.extend_from_slice(&run);
        std::fs::write(separate.join(format!("run-{i:03}.profraw")), &run).unwrap();
    }
    let concat = dir.path().join("all.profraw");
    std::fs::write(&concat, &all).unwrap();
    drop(all);
    let out = dir.path().join("out.profdata");
    // The mapped file (103 MB) and the binary fit; the records of the whole file do not.
    let w = vec![
        prlimit.into_os_string(),
        format!("--as={}", 220u64 << 20).into(),
    ];
    let args = [
        OsStr::new("-j1"),
        concat.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
    ];
    let e = run_limited(&w, &ours(), &args, &FEW_ARENAS, MINUTE * 5);
    e.assert_success("a 103 MB file of 120 profiles under 220 MiB of address space");
    let expected = dir.path().join("expected.profdata");
    let r = run_ours([separate.as_os_str(), OsStr::new("-o"), expected.as_os_str()]);
    assert!(r.status.success());
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&expected).unwrap(),
        "merging the profiles of one file differs from merging them as files"
    );
}

// ---------------------------------------------------------------------------------------------
// BOLT fdata merges under memory limits

/// fdata profiles of `files` × `lines` branch lines drawn from `pool` branches of 2,000
/// functions (deterministic), in `dir`.
fn gen_fdata(dir: &Path, files: usize, lines: usize, pool: u64) {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for f in 0..files {
        let mut text = String::new();
        for _ in 0..lines {
            let b = next() % pool;
            let (from, to) = (b % 2_000, (b / 7) % 2_000);
            text.push_str(&format!(
                "1 _ZN5bench{from}function_of_a_long_nameEv {:x} 1 _ZN5bench{to}function_of_a_long_nameEv {:x} 0 {}\n",
                b % 4096,
                b / 4096 % 4096,
                next() % 1000
            ));
        }
        std::fs::write(dir.join(format!("p{f:03}.fdata")), text).unwrap();
    }
}

/// Under a limit of address space that the merge's data reaches, an fdata merge either
/// succeeds or ends with an error that names the memory refused: never an abort (every
/// allocation that grows with the input is fallible), on one thread and on two.
#[test]
fn fdata_merges_under_memory_limits_succeed_or_say_why() {
    let Some(prlimit) = tool("prlimit", "fdata_merges_under_memory_limits") else {
        return;
    };
    let dir = tempdir();
    gen_fdata(dir.path(), 20, 10_000, 1_000_000);
    let out = dir.path().join("out.fdata");
    let (mut ok, mut refused) = (0, 0);
    // Two threads need about 48 MiB before any input is read (the debug binary, two thread
    // stacks, a second malloc arena): below that a thread's first small allocation can fail
    // inside the standard library, which this sweep is not about.
    let sweeps: [(&str, &[u64]); 2] = [("-j1", &[24, 32, 40, 64, 160]), ("-j2", &[56, 96, 160])];
    for (j, limits) in sweeps {
        for &mib in limits {
            let w = vec![
                prlimit.clone().into_os_string(),
                format!("--as={}", mib << 20).into(),
            ];
            let args = [
                OsStr::new(j),
                dir.path().as_os_str(),
                OsStr::new("-o"),
                out.as_os_str(),
            ];
            let e = run_limited(&w, &ours(), &args, &FEW_ARENAS, MINUTE);
            let what = format!("fdata merge {j} under {mib} MiB");
            e.assert_clean(&what);
            if e.code == Some(0) {
                ok += 1;
            } else {
                e.assert_error(&what, "cannot allocate");
                refused += 1;
            }
        }
    }
    // The sweep must cover both sides, or it proves nothing.
    assert!(
        ok > 0 && refused > 0,
        "{ok} merges succeeded, {refused} refused"
    );
}
