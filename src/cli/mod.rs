//! The command line: argument parsing (`args`, `compat` for llvm-profdata's spellings), the
//! progress bar (`progress`), the messages (`messages`), the generated completions and man
//! page (`docs`), the llvm-profdata drop-in (`dropin`), and per subcommand one module that
//! maps its arguments to a driver request and prints the outcome (`merge`, `show`,
//! `overlap`, `symbolize`). Nothing here reads a profile or writes an output.
//!
//! `pgo-merge [merge] ...` merges; `pgo-merge show ...` and `pgo-merge overlap ...` describe
//! and compare. Run under the name `llvm-profdata` (a symlink or copy), the binary is a
//! drop-in for llvm-profdata's `merge`, `show` and `overlap`: same spellings, same output,
//! exit code 1 for every failure.
//!
//! Exit codes (one rule, [`EXIT_OK`], [`EXIT_FAILURE`], [`EXIT_USAGE`]): 0 success; 1 the
//! work failed (a missing, unreadable or corrupt input or input list, conflicting inputs, an
//! I/O error); 2 a usage error (a bad option or combination, no inputs). In drop-in mode
//! every failure exits with 1, as llvm-profdata's do.

pub mod args;
pub mod bolt;
pub mod compat;
pub mod docs;
pub mod dropin;
pub mod merge;
pub mod messages;
pub mod order;
pub mod overlap;
pub mod progress;
pub mod show;
pub mod symbolize;

use std::ffi::OsString;
use std::path::Path;

use clap::FromArgMatches;

pub use merge::run_merge;

/// Exit code for success.
pub const EXIT_OK: i32 = 0;
/// Exit code when the work failed (a bad or missing input, a conflict, an I/O error).
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

/// Arguments as strings, for what is only ever text (command names, help requests); never
/// for file names, which are bytes and pass to clap as [`OsString`]s.
fn strings(args: Vec<OsString>) -> Vec<String> {
    args.into_iter()
        .map(|a| {
            a.into_string()
                .unwrap_or_else(|os| os.to_string_lossy().into_owned())
        })
        .collect()
}

/// Parses `args` (already in clap's spelling) with `cmd` as `T`. On error prints clap's
/// message and returns the exit code (0 for `--help` and `--version`).
fn parse_clap<T: FromArgMatches>(
    cmd: clap::Command,
    args: Vec<OsString>,
    mode: Mode,
) -> Result<T, i32> {
    let mut full = vec![OsString::from(cmd.get_bin_name().unwrap_or(cmd.get_name()))];
    full.extend(args);
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

/// Parses native arguments with `cmd` as `T` after rewriting llvm-profdata spellings.
fn parse<T: FromArgMatches>(cmd: clap::Command, args: Vec<OsString>) -> Result<T, i32> {
    let bin = cmd.get_bin_name().unwrap_or(cmd.get_name()).to_string();
    let normalized = match compat::normalize(&args, &cmd) {
        Ok(n) => n,
        Err(msg) => {
            eprintln!("{bin}: error: {msg}");
            return Err(EXIT_USAGE);
        }
    };
    parse_clap(cmd, normalized, Mode::Native)
}

/// Runs the binary with `argv` (including the program name); returns the exit code.
pub fn main_with_args(argv: Vec<OsString>) -> i32 {
    let argv0 = argv
        .first()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|| "pgo-merge".into());
    let prog = Path::new(&argv0)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "pgo-merge".into());
    let rest: Vec<OsString> = argv.into_iter().skip(1).collect();
    if prog.starts_with("llvm-profdata") {
        dropin::main(&prog, &argv0, rest)
    } else if prog.starts_with("merge-fdata") {
        bolt::dropin(&prog, rest)
    } else {
        native(rest)
    }
}

/// True for the spellings of a help request.
fn is_help(a: &str) -> bool {
    matches!(a, "-h" | "--help" | "-help")
}

/// The command `arg` is a typo of, if `arg` cannot be anything else: no option, no file of
/// that name, nothing that looks like a file name (no `.` or `/`), and at most a typo or two
/// away from a command name.
pub fn misspelt_command(arg: &str) -> Option<&'static str> {
    if arg.starts_with('-')
        || arg.contains(['.', '/', '\\'])
        || arg.is_empty()
        || Path::new(arg).exists()
    {
        return None;
    }
    let lower = arg.to_lowercase();
    args::SUBCOMMANDS
        .iter()
        .map(|s| (compat::typo_distance(&lower, s), *s))
        .filter(|(d, s)| *d <= if s.len() <= 4 { 1 } else { 2 })
        .min_by_key(|(d, _)| *d)
        .map(|(_, s)| s)
}

/// Prints what `cmd FLAG` prints (`-h` or `--help`), as clap prints it.
fn print_clap_help(cmd: clap::Command, flag: &str) -> i32 {
    let bin = cmd.get_bin_name().unwrap_or(cmd.get_name()).to_string();
    match cmd.try_get_matches_from([bin.as_str(), flag]) {
        Err(e) => {
            let _ = e.print();
            if e.use_stderr() { EXIT_USAGE } else { EXIT_OK }
        }
        Ok(_) => EXIT_OK,
    }
}

/// Prints the help of the whole tool (`long`: `--help`, else `-h`) to standard output.
fn print_tool_help(long: bool) -> i32 {
    print_clap_help(args::cli(), if long { "--help" } else { "-h" })
}

/// `pgo-merge help [COMMAND]`.
fn help(rest: &[OsString]) -> i32 {
    let names: Vec<String> = strings(rest.to_vec());
    match names.as_slice() {
        [] => print_tool_help(true),
        [name] if name == "help" => print_tool_help(true),
        [name] if args::SUBCOMMANDS.contains(&name.as_str()) => {
            print_clap_help(args::subcommand(name), "--help")
        }
        [name] => {
            eprintln!("pgo-merge: error: no command {name:?}");
            match misspelt_command(name) {
                Some(s) => eprintln!("  tip: did you mean '{s}'? (see 'pgo-merge --help')"),
                None => eprintln!(
                    "  the commands are: {} (see 'pgo-merge --help')",
                    args::SUBCOMMANDS.join(", ")
                ),
            }
            EXIT_USAGE
        }
        _ => {
            eprintln!("pgo-merge: error: `help` takes at most one command name");
            EXIT_USAGE
        }
    }
}

/// `pgo-merge ...`.
fn native(mut rest: Vec<OsString>) -> i32 {
    let first = rest.first().and_then(|a| a.to_str()).map(str::to_string);
    let Some(first) = first else {
        if rest.is_empty() {
            // No arguments at all: say what the tool does and how to use it.
            let _ = args::cli()
                .help_template(
                    "{about}\n\n{usage-heading} {usage}\n\nCommands:\n{subcommands}\n\n\
                     See 'pgo-merge --help' for the options.\n",
                )
                .write_help(&mut std::io::stderr());
            return EXIT_USAGE;
        }
        return merge_default(rest);
    };
    match first.as_str() {
        "merge" => {
            rest.remove(0);
            match parse::<args::MergeArgs>(args::subcommand("merge"), rest) {
                Ok(a) => run_merge(a, Mode::Native, None),
                Err(code) => code,
            }
        }
        "show" => {
            rest.remove(0);
            match parse::<args::ShowArgs>(args::subcommand("show"), rest) {
                Ok(a) => show::run_show(a, Mode::Native),
                Err(code) => code,
            }
        }
        "overlap" => {
            rest.remove(0);
            match parse::<args::OverlapArgs>(args::subcommand("overlap"), rest) {
                Ok(a) => overlap::run_overlap(a, Mode::Native),
                Err(code) => code,
            }
        }
        "order" => {
            rest.remove(0);
            match parse::<args::OrderArgs>(args::subcommand("order"), rest) {
                Ok(a) => order::run_order(a, Mode::Native),
                Err(code) => code,
            }
        }
        "symbolize" => {
            rest.remove(0);
            match parse::<args::SymbolizeArgs>(args::subcommand("symbolize"), rest) {
                Ok(a) => symbolize::run_symbolize(a),
                Err(code) => code,
            }
        }
        "completions" => {
            rest.remove(0);
            match parse::<args::CompletionsArgs>(args::subcommand("completions"), rest) {
                Ok(a) => docs::completions(a.shell),
                Err(code) => code,
            }
        }
        "man" => {
            rest.remove(0);
            match parse::<args::ManArgs>(args::subcommand("man"), rest) {
                Ok(args::ManArgs {}) => docs::man(),
                Err(code) => code,
            }
        }
        "help" => help(&rest[1..]),
        a if is_help(a) => print_tool_help(a == "--help"),
        a => match misspelt_command(a) {
            Some(s) => {
                eprintln!(
                    "pgo-merge: error: {a:?} is neither a command nor an existing file\n  \
                     tip: did you mean '{s}'? (see 'pgo-merge --help')"
                );
                EXIT_USAGE
            }
            None => merge_default(rest),
        },
    }
}

/// `pgo-merge IN... -o OUT`: merge, the default command.
fn merge_default(rest: Vec<OsString>) -> i32 {
    // `--help` anywhere describes the whole tool, as `pgo-merge --help` does.
    if let Some(h) = rest
        .iter()
        .take_while(|a| *a != "--")
        .filter_map(|a| a.to_str())
        .find(|a| is_help(a))
    {
        return print_tool_help(h == "--help");
    }
    let cmd = args::subcommand("merge")
        .bin_name("pgo-merge")
        .display_name("pgo-merge")
        .about(args::ABOUT);
    match parse::<args::MergeArgs>(cmd, rest) {
        Ok(a) => run_merge(a, Mode::Native, None),
        Err(code) => code,
    }
}
