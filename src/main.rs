//! The `pgo-merge` binary: maps arguments to a request of the library's driver
//! (`pgo_merge::pipeline`) and prints the outcome. Installed (or symlinked) as
//! `llvm-profdata` it behaves as llvm-profdata's `merge`, `show` and `overlap`.

// No function over 150 lines (clippy.toml); tests/integration/architecture.rs bans allows.
#![warn(clippy::too_many_lines)]

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
    // Rust starts programs with SIGPIPE ignored, so a write to a closed pipe fails with EPIPE:
    // `println!` then panics and other writers report "Broken pipe". A reader that has seen
    // enough (`pgo-merge show --json x | head`) ends the program quietly instead, as it ends
    // `cat`. Outputs written to files are never pipes, so this cannot cut a profile short.
    #[cfg(unix)]
    // SAFETY: as above; SIG_DFL installs no handler code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    std::process::exit(cli::main_with_args(argv));
}
