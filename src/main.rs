//! The `pgo-merge` binary: a thin layer over the library. Installed (or symlinked) as
//! `llvm-profdata` it behaves as llvm-profdata's `merge`, `show` and `overlap`.

fn main() {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    std::process::exit(pgo_merge::cli::main_with_args(argv));
}
