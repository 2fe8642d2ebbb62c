//! The llvm-profdata drop-in: the binary run under a name starting with `llvm-profdata`
//! (`llvm-profdata`, `llvm-profdata-19`, ...) takes llvm-profdata's subcommands and options
//! ([`super::compat`]), prints its help and messages in its style, and exits with 1 on every
//! failure.
//!
//! Which LLVM release `merge` writes for: the version in the program name
//! (`llvm-profdata-19` writes what LLVM 19 reads), else the environment variable
//! [`TARGET_ENV`], else the default (what llvm-profdata 22 writes). llvm-profdata's own
//! `--write-prev-version` wins over both.

use std::ffi::OsString;

use super::{EXIT_FAILURE, EXIT_OK, Mode, args, compat, merge, order, overlap, parse_clap, show};

/// The environment variable naming the LLVM major version an unversioned drop-in writes for.
pub const TARGET_ENV: &str = "PGO_MERGE_TARGET_LLVM";

/// The LLVM release whose index version the drop-in writes when nothing names one.
pub const DEFAULT_LLVM: u32 = 22;

/// Where the target LLVM version came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetFrom {
    /// The program name (`llvm-profdata-19`).
    Name(String),
    /// [`TARGET_ENV`].
    Env,
}

/// The LLVM major version the drop-in writes for, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// LLVM major version.
    pub llvm: u32,
    /// Its source.
    pub from: TargetFrom,
}

impl Target {
    /// Says where the target came from, for messages.
    pub fn source(&self) -> String {
        match &self.from {
            TargetFrom::Name(n) => format!("from the program name {n}"),
            TargetFrom::Env => format!("from {TARGET_ENV}={}", self.llvm),
        }
    }
}

/// The LLVM major version in a drop-in's program name: `llvm-profdata-19` → 19 (also
/// `llvm-profdata19`, `llvm-profdata-19.1`, `llvm-profdata-19.exe`); None for a name without
/// one.
pub fn version_in_name(prog: &str) -> Option<u32> {
    let rest = prog.strip_prefix("llvm-profdata")?;
    let rest = rest.strip_suffix(".exe").unwrap_or(rest);
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    let major: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let after = &rest[major.len()..];
    if major.is_empty() || !(after.is_empty() || after.starts_with('.')) {
        return None;
    }
    major.parse().ok()
}

/// The target of the drop-in named `prog`, given the value of [`TARGET_ENV`]; an error
/// message for a value that is not a version.
pub fn target(prog: &str, env: Option<&str>) -> Result<Option<Target>, String> {
    if let Some(llvm) = version_in_name(prog) {
        return Ok(Some(Target {
            llvm,
            from: TargetFrom::Name(prog.to_string()),
        }));
    }
    match env.map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) => match v.parse::<u32>() {
            Ok(llvm) => Ok(Some(Target {
                llvm,
                from: TargetFrom::Env,
            })),
            Err(_) => Err(format!(
                "{TARGET_ENV}={v:?} is not an LLVM major version (e.g. {TARGET_ENV}=19)"
            )),
        },
    }
}

fn env_target(prog: &str) -> Result<Option<Target>, String> {
    let env = std::env::var(TARGET_ENV).ok();
    target(prog, env.as_deref())
}

/// The LLVM release `show --sample` and `overlap --sample` follow when run as `prog` (it
/// decides how sample profiles read, their text dialect and the reports' wording), or the
/// exit code after saying why the name or `PGO_MERGE_TARGET_LLVM` names none.
fn sample_release(prog: &str) -> Result<Option<u32>, i32> {
    env_target(prog).map(|t| t.map(|t| t.llvm)).map_err(|e| {
        eprintln!("{prog}: error: {e}");
        EXIT_FAILURE
    })
}

/// The LLVM release whose options, messages and `show` output the drop-in named `prog`
/// follows: the one it writes for (its name, else [`TARGET_ENV`]), else [`DEFAULT_LLVM`]
/// (also when [`TARGET_ENV`] is not a version: merge reports that).
pub fn followed_release(prog: &str) -> u32 {
    match env_target(prog) {
        Ok(Some(t)) => t.llvm,
        _ => DEFAULT_LLVM,
    }
}

/// What `--version` prints in drop-in mode.
pub fn version_text(prog: &str) -> String {
    let head = format!(
        "pgo-merge {} (llvm-profdata drop-in, run as {prog})",
        env!("CARGO_PKG_VERSION")
    );
    match env_target(prog) {
        Ok(Some(t)) => format!(
            "{head}\n  LLVM version {}: merge writes indexed profiles that LLVM {} reads ({})\n",
            t.llvm,
            t.llvm,
            t.source()
        ),
        Ok(None) => format!(
            "{head}\n  LLVM version {DEFAULT_LLVM}: merge writes indexed profiles that LLVM \
             {DEFAULT_LLVM} and later read (the default; for LLVM N, name the drop-in \
             llvm-profdata-N or set {TARGET_ENV}=N)\n"
        ),
        Err(e) => format!("{head}\n  error: {e}\n"),
    }
}

/// LLVM 14's usage line of the tool.
fn usage_14(prog: &str) -> String {
    format!("USAGE: {prog} <merge|show|overlap> [args...]")
}

/// llvm-profdata-style help of the drop-in itself, as release `release` words it.
fn tool_help(prog: &str, release: u32) -> String {
    if release <= 14 {
        return format!(
            "OVERVIEW: LLVM profile data tools\n\nUSAGE: {prog} <command> [args...]\n\
             USAGE: {prog} <command> -help\n\nSee each individual command --help for more \
             details.\nAvailable commands: merge, show, overlap\n\n{}",
            version_text(prog)
        );
    }
    let mut s = String::from("OVERVIEW: LLVM profile data\n\n");
    s += &format!("USAGE: {prog} [subcommand] [options]\n\nSUBCOMMANDS:\n\n");
    for sub in ["merge", "order", "overlap", "show"] {
        let desc = match compat::subcommand_text(sub) {
            Some((d, _)) => d,
            None => "Not implemented by pgo-merge's drop-in",
        };
        s += &format!("  {sub:<7} - {desc}\n");
    }
    s += &format!(
        "\n  Type \"{prog} <subcommand> --help\" to get more help on a specific subcommand\n\n"
    );
    s += &version_text(prog);
    s
}

/// Runs the drop-in: `prog` is the program's file name, `argv0` as invoked.
pub fn main(prog: &str, argv0: &str, rest: Vec<OsString>) -> i32 {
    let release = compat::table_release(followed_release(prog));
    let Some(sub) = rest.first().map(|s| s.to_string_lossy().into_owned()) else {
        match release {
            ..=14 => eprintln!("{prog}: No command specified!\n{}", usage_14(prog)),
            // LLVM 19's words, its misspelt program name included.
            19 => eprintln!("{prog}: No subcommand specified! Run llvm-profata --help for usage."),
            _ => eprintln!("{prog}: No subcommand specified! Run {prog} --help for usage."),
        }
        return EXIT_FAILURE;
    };
    let rest = &rest[1..];
    match sub.as_str() {
        "merge" | "show" | "overlap" => {}
        "-h" | "-help" | "--help" | "-help-hidden" | "--help-hidden" | "-help-list"
        | "--help-list" | "-help-list-hidden" | "--help-list-hidden" => {
            print!("{}", tool_help(prog, release));
            return EXIT_OK;
        }
        "-version" | "--version" => {
            print!("{}", version_text(prog));
            return EXIT_OK;
        }
        _ if release <= 14 => {
            eprintln!("{prog}: Unknown command!\n{}", usage_14(prog));
            return EXIT_FAILURE;
        }
        "order" => {}
        other => {
            eprintln!("{prog}: Unknown subcommand '{other}'.  Try: '{argv0} --help'");
            // Our addition: llvm-profdata suggests nothing here.
            if let Some(s) = ["merge", "show", "overlap", "order"]
                .into_iter()
                .find(|s| compat::typo_distance(&other.to_lowercase(), s) <= 2)
            {
                eprintln!("{prog}: Did you mean '{s}'?");
            }
            return EXIT_FAILURE;
        }
    }
    // LLVM 14 runs each subcommand as a program named after both, and names that in its
    // messages and "Try:" hint; later releases name the program.
    let (msg_prog, hint) = if release <= 14 {
        let both = format!("{prog} {sub}");
        (both.clone(), both)
    } else {
        (prog.to_string(), argv0.to_string())
    };
    let d = compat::Dropin {
        release,
        sub: &sub,
        prog: &msg_prog,
        argv0: &hint,
    };
    let normalized = match compat::dropin_normalize(&d, rest) {
        Ok(n) => n,
        Err(compat::Stop::Help) => {
            print!("{}", compat::dropin_help(release, &sub, prog));
            return EXIT_OK;
        }
        Err(compat::Stop::Version) => {
            print!("{}", version_text(prog));
            return EXIT_OK;
        }
        Err(compat::Stop::Failed) => return EXIT_FAILURE,
    };
    if sub == "merge" && !compat::merge_inputs_exist(&normalized) {
        return EXIT_FAILURE;
    }
    let cmd = args::subcommand(&sub).bin_name(format!("{prog} {sub}"));
    let mode = Mode::LlvmProfdata;
    match sub.as_str() {
        "merge" => {
            let mut a: args::MergeArgs = match parse_clap(cmd, normalized, mode) {
                Ok(a) => a,
                Err(code) => return code,
            };
            let target = if a.write_prev_version {
                None
            } else {
                match env_target(prog) {
                    Ok(t) => t,
                    Err(e) => {
                        eprintln!("{prog}: error: {e}");
                        return EXIT_FAILURE;
                    }
                }
            };
            a.target_llvm = target.as_ref().map(|t| t.llvm);
            merge::run_merge(a, mode, target.as_ref())
        }
        "order" => match parse_clap::<args::OrderArgs>(cmd, normalized, mode) {
            Ok(mut a) => {
                if let Some(code) = order_positionals(prog, argv0, &a.inputs) {
                    return code;
                }
                // The order follows the release whose options are taken (19: nth_element).
                a.target_llvm = Some(followed_release(prog));
                order::run_order(a, mode)
            }
            Err(code) => code,
        },
        "show" => match parse_clap::<args::ShowArgs>(cmd, normalized, mode) {
            Ok(mut a) => {
                if a.sample {
                    match sample_release(prog) {
                        Ok(llvm) => a.target_llvm = llvm,
                        Err(code) => return code,
                    }
                } else {
                    // The text of instrumentation profiles follows the options' release.
                    a.target_llvm = Some(release);
                }
                show::run_show(a, mode)
            }
            Err(code) => code,
        },
        _ => match parse_clap::<args::OverlapArgs>(cmd, normalized, mode) {
            Ok(mut a) => {
                if a.sample {
                    match sample_release(prog) {
                        Ok(llvm) => a.target_llvm = llvm,
                        Err(code) => return code,
                    }
                } else {
                    // The report of instrumentation profiles follows the options' release.
                    a.target_llvm = Some(release);
                }
                overlap::run_overlap(a, mode)
            }
            Err(code) => code,
        },
    }
}

/// llvm-profdata's `order` takes one profile: its words for none or several, and the exit
/// code; None when there is one.
fn order_positionals(prog: &str, argv0: &str, inputs: &[std::path::PathBuf]) -> Option<i32> {
    match inputs.len() {
        1 => None,
        0 => {
            // llvm-profdata opens the empty file name.
            eprintln!("error: No such file or directory");
            Some(EXIT_FAILURE)
        }
        _ => {
            eprintln!(
                "{prog}: Too many positional arguments specified!\nCan specify at most 1 \
                 positional arguments: See: {argv0} --help"
            );
            Some(EXIT_FAILURE)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_in_names() {
        assert_eq!(version_in_name("llvm-profdata"), None);
        assert_eq!(version_in_name("llvm-profdata-14"), Some(14));
        assert_eq!(version_in_name("llvm-profdata-19"), Some(19));
        assert_eq!(version_in_name("llvm-profdata-22.exe"), Some(22));
        assert_eq!(version_in_name("llvm-profdata19"), Some(19));
        assert_eq!(version_in_name("llvm-profdata-19.1"), Some(19));
        assert_eq!(version_in_name("llvm-profdata-real"), None);
        assert_eq!(version_in_name("llvm-profdata-19x"), None);
    }

    #[test]
    fn name_wins_over_environment() {
        let t = target("llvm-profdata-19", Some("14")).unwrap().unwrap();
        assert_eq!(t.llvm, 19);
        let t = target("llvm-profdata", Some(" 14 ")).unwrap().unwrap();
        assert_eq!((t.llvm, t.from), (14, TargetFrom::Env));
        assert_eq!(target("llvm-profdata", Some("")).unwrap(), None);
        assert_eq!(target("llvm-profdata", None).unwrap(), None);
        assert!(
            target("llvm-profdata", Some("nineteen"))
                .unwrap_err()
                .contains(TARGET_ENV)
        );
    }
}
