//! The `pgo-merge` binary: maps arguments to a request of the library's driver
//! (`pgo_merge::pipeline`) and prints the outcome. Installed (or symlinked) as
//! `llvm-profdata` it behaves as llvm-profdata's `merge`, `show` and `overlap`.

mod cli;

fn main() {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    std::process::exit(cli::main_with_args(argv));
}
