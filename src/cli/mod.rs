//! The command line: argument parsing (`args`, `compat` for llvm-profdata's spellings), the
//! progress bar (`progress`), the messages (`messages`), and per subcommand one module that
//! maps its arguments to a driver request and prints the outcome (`merge`, `show`,
//! `overlap`, `symbolize`). Nothing here reads a profile or writes an output.
//!
//! `pgo-merge [merge] ...` merges; `pgo-merge show ...` and `pgo-merge overlap ...` describe
//! and compare. Run under the name `llvm-profdata` (a symlink or copy), the binary is a
//! drop-in for llvm-profdata's `merge`, `show` and `overlap`: same spellings, same output,
//! exit code 1 for every failure.

pub mod args;
pub mod compat;
pub mod merge;
pub mod messages;
pub mod overlap;
pub mod progress;
pub mod show;
pub mod symbolize;

use std::ffi::OsString;

use clap::Parser;

pub use merge::run_merge;

/// Exit code for success.
pub const EXIT_OK: i32 = 0;
/// Exit code when the work failed (bad input, conflict, I/O error).
pub const EXIT_FAILURE: i32 = 1;
/// Exit code for a usage error (bad options). In llvm-profdata mode usage errors exit with 1,
/// as llvm-profdata does.
pub const EXIT_USAGE: i32 = 2;

/// How the binary was invoked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// As `pgo-merge`.
    Native,
    /// As `llvm-profdata`: outputs exactly as llvm-profdata's.
    LlvmProfdata,
}

impl Mode {
    /// The exit code of a usage error in this mode.
    pub fn usage_code(self) -> i32 {
        match self {
            Mode::Native => EXIT_USAGE,
            Mode::LlvmProfdata => EXIT_FAILURE,
        }
    }
}

/// Parses `args` (without the program and subcommand names) as `T` after rewriting
/// llvm-profdata spellings. On error prints the message and returns the exit code.
fn parse<T: Parser>(bin: &str, args: Vec<OsString>, mode: Mode) -> Result<T, i32> {
    let cmd = T::command();
    let mut strings = Vec::with_capacity(args.len());
    for a in args {
        match a.into_string() {
            Ok(s) => strings.push(s),
            // Non-UTF-8 arguments can only be file names: pass them through untouched.
            Err(os) => strings.push(os.to_string_lossy().into_owned()),
        }
    }
    let normalized = match compat::normalize(&strings, &cmd) {
        Ok(n) => n,
        Err(msg) => {
            eprintln!("{bin}: error: {msg}");
            return Err(mode.usage_code());
        }
    };
    let mut full = vec![bin.to_string()];
    full.extend(normalized);
    let matches = match cmd.try_get_matches_from(full) {
        Ok(m) => m,
        Err(e) => {
            let code = if e.use_stderr() {
                mode.usage_code()
            } else {
                EXIT_OK
            };
            let _ = e.print();
            return Err(code);
        }
    };
    T::from_arg_matches(&matches).map_err(|e| {
        let _ = e.print();
        mode.usage_code()
    })
}

/// Runs the binary with `argv` (including the program name); returns the exit code.
pub fn main_with_args(argv: Vec<OsString>) -> i32 {
    let prog = argv
        .first()
        .and_then(|p| std::path::Path::new(p).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "pgo-merge".into());
    let mode = if prog.starts_with("llvm-profdata") {
        Mode::LlvmProfdata
    } else {
        Mode::Native
    };
    let mut rest: Vec<OsString> = argv.into_iter().skip(1).collect();
    let sub = rest.first().and_then(|a| a.to_str()).map(str::to_string);
    let bin = match mode {
        Mode::Native => "pgo-merge",
        Mode::LlvmProfdata => "llvm-profdata",
    };
    match sub.as_deref() {
        Some("merge") => {
            rest.remove(0);
            match parse::<args::MergeArgs>(&format!("{bin} merge"), rest, mode) {
                Ok(a) => run_merge(a, mode),
                Err(code) => code,
            }
        }
        Some("show") => {
            rest.remove(0);
            match parse::<args::ShowArgs>(&format!("{bin} show"), rest, mode) {
                Ok(a) => show::run_show(a, mode),
                Err(code) => code,
            }
        }
        Some("symbolize") if mode == Mode::Native => {
            rest.remove(0);
            match parse::<args::SymbolizeArgs>("pgo-merge symbolize", rest, mode) {
                Ok(a) => symbolize::run_symbolize(a),
                Err(code) => code,
            }
        }
        Some("overlap") => {
            rest.remove(0);
            match parse::<args::OverlapArgs>(&format!("{bin} overlap"), rest, mode) {
                Ok(a) => overlap::run_overlap(a, mode),
                Err(code) => code,
            }
        }
        _ if mode == Mode::LlvmProfdata => match sub.as_deref() {
            Some("--help" | "-help" | "-h") | None => {
                eprintln!(
                    "USAGE: llvm-profdata <merge|show|overlap> [args...]\n\n(pgo-merge's llvm-profdata drop-in; `order` is not supported)"
                );
                if sub.is_none() { EXIT_FAILURE } else { EXIT_OK }
            }
            Some("--version" | "-version") => {
                println!(
                    "pgo-merge {} (llvm-profdata drop-in)",
                    env!("CARGO_PKG_VERSION")
                );
                EXIT_OK
            }
            Some(other) => {
                eprintln!(
                    "llvm-profdata: error: subcommand {other:?} is not supported by pgo-merge's drop-in (merge, show, overlap are)"
                );
                EXIT_FAILURE
            }
        },
        _ => match parse::<args::MergeArgs>(bin, rest, mode) {
            Ok(a) => run_merge(a, mode),
            Err(code) => code,
        },
    }
}
