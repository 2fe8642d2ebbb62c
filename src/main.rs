//! The `pgo-merge` binary: maps arguments to a request of the library's driver
//! (`pgo_merge::pipeline`) and prints the outcome. Installed (or symlinked) as
//! `llvm-profdata` it behaves as llvm-profdata's `merge`, `show` and `overlap`.

mod cli;

fn main() {
    // A write past the file-size limit (`ulimit -f`) raises SIGXFSZ, which kills the process
    // by default, without a word. Ignored, the write fails with EFBIG instead, and the
    // output's error says so; the output itself is never partial (it is written atomically).
    #[cfg(unix)]
    // SAFETY: called first, before any thread exists; SIG_IGN installs no handler code.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    std::process::exit(cli::main_with_args(argv));
}
