//! The `pgo-merge` binary: a thin layer over the library.

use clap::Parser;
use pgo_merge::cli::{self, args::MergeArgs};

fn main() {
    let mut argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // `pgo-merge merge ...` is the same as `pgo-merge ...`.
    if argv.get(1).is_some_and(|a| a == "merge") {
        argv.remove(1);
    }
    let args = match MergeArgs::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => {
            let code = if e.use_stderr() {
                cli::EXIT_USAGE
            } else {
                cli::EXIT_OK
            };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    std::process::exit(cli::run_merge(args));
}
