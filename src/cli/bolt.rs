//! BOLT profiles on the command line: `pgo-merge a.fdata b.fdata -o merged.fdata` (a merge
//! whose inputs or output are fdata profiles), and the `merge-fdata` drop-in (the binary run
//! under a name starting with `merge-fdata`: `merge-fdata`, `merge-fdata-19`, ...).
//!
//! Which LLVM release's `merge-fdata` a merge follows: natively `--target-llvm N`, else LLVM
//! 20 and later; as the drop-in, the version in the program name (`merge-fdata-19`), else
//! `PGO_MERGE_TARGET_LLVM`, else LLVM 20 and later.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pgo_merge::pipeline::bolt::{
    BoltFormat, FdataMergeOutcome, FdataMergeRequest, FdataSemantics, has_fdata_extension,
    looks_like_fdata_file, merge_fdata,
};
use pgo_merge::pipeline::inputs::parse_weighted;
use pgo_merge::pipeline::{FailureMode, NoProgress};

use super::args::{FailureModeArg, MergeArgs};
use super::dropin::TARGET_ENV;
use super::{EXIT_FAILURE, EXIT_OK, EXIT_USAGE, Mode, messages};

/// True if a native merge is of BOLT profiles: its output is named `*.fdata`, or an input
/// named on the command line is an fdata profile (by name, or by its first bytes) or a BOLT
/// YAML profile (by its first bytes).
pub fn wants_fdata(a: &MergeArgs) -> bool {
    let named = a.inputs.iter().cloned().chain(
        a.weighted_inputs
            .iter()
            .filter_map(|w| parse_weighted(w).ok().map(|(_, p)| p)),
    );
    a.output.as_deref().is_some_and(has_fdata_extension)
        || named
            .into_iter()
            .any(|p| has_fdata_extension(&p) || looks_like_fdata_file(&p))
}

/// `pgo-merge IN.fdata... -o OUT.fdata`.
pub fn run_native(a: &MergeArgs) -> i32 {
    const PREFIX: &str = "pgo-merge";
    if let Some(flag) = unsupported(a) {
        eprintln!("{PREFIX}: error: {flag} does not apply to BOLT profiles (.fdata)");
        return EXIT_USAGE;
    }
    let mut weighted = Vec::with_capacity(a.weighted_inputs.len());
    for w in &a.weighted_inputs {
        match parse_weighted(w) {
            Ok(x) => weighted.push(x),
            Err(e) => return messages::error(PREFIX, &e, Mode::Native),
        }
    }
    let mut r = FdataMergeRequest::default();
    r.inputs = a.inputs.clone();
    r.weighted_inputs = weighted;
    r.input_lists = a.input_files.clone();
    r.output = a.output.clone();
    r.semantics = a
        .target_llvm
        .map_or(FdataSemantics::Llvm20, FdataSemantics::for_llvm);
    r.failure_mode = match a.failure_mode {
        FailureModeArg::Any => FailureMode::Any,
        FailureModeArg::All => FailureMode::All,
        FailureModeArg::Warn => FailureMode::Warn,
    };
    r.threads = a.threads;
    match merge_fdata(&r, &NoProgress) {
        Ok(o) => {
            messages::print(PREFIX, &o.messages, a.quiet);
            let what = match o.format {
                BoltFormat::Yaml => format!("YAML profiles: {} functions", o.lines),
                _ => format!("fdata profiles ({}): {} lines", o.mode.describe(), o.lines),
            };
            messages::note(
                a.quiet,
                format_args!(
                    "{PREFIX}: merged {} of {} {what}",
                    o.inputs_merged, o.inputs_total
                ),
            );
            EXIT_OK
        }
        Err(e) => messages::error(PREFIX, &e, Mode::Native),
    }
}

/// The first option given that an fdata merge does not take.
fn unsupported(a: &MergeArgs) -> Option<&'static str> {
    [
        (a.sample, "--sample"),
        (a.text, "--text"),
        (a.output_format.is_some(), "--output-format"),
        (a.format_version.is_some(), "--format-version"),
        (a.sparse, "--sparse"),
        (a.function.is_some(), "--function"),
        (a.no_function.is_some(), "--no-function"),
        (a.remapping_file.is_some(), "--remapping-file"),
        (a.dump_input_file_list, "--dump-input-file-list"),
    ]
    .into_iter()
    .find_map(|(set, name)| set.then_some(name))
}

/// The LLVM major version in a `merge-fdata` drop-in's name: `merge-fdata-19` → 19.
fn version_in_name(prog: &str) -> Option<u32> {
    let rest = prog.strip_prefix("merge-fdata")?;
    let rest = rest.strip_suffix(".exe").unwrap_or(rest);
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    let major: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let after = &rest[major.len()..];
    if major.is_empty() || !(after.is_empty() || after.starts_with('.')) {
        return None;
    }
    major.parse().ok()
}

/// The arguments of the drop-in, as `merge-fdata` takes them.
#[derive(Debug, Default)]
struct DropinArgs {
    inputs: Vec<PathBuf>,
    output: Option<PathBuf>,
    quiet: bool,
    /// `--print`: `exec` or `branches` (YAML merges list their functions).
    print: Option<String>,
}

/// Parses `merge-fdata`'s options (LLVM's spellings: one or two dashes, `-o FILE` or
/// `-o=FILE`; positional inputs may be comma-separated lists); `Err` is the message.
fn parse_dropin(args: Vec<OsString>) -> Result<Result<DropinArgs, i32>, String> {
    let mut d = DropinArgs::default();
    let mut it = args.into_iter();
    let mut positional_only = false;
    while let Some(a) = it.next() {
        let s = a.to_string_lossy();
        if positional_only || !s.starts_with('-') || s == "-" {
            for part in a.as_encoded_bytes().split(|&b| b == b',') {
                if !part.is_empty() {
                    // SAFETY: `part` is a sub-slice of an OsString's encoded bytes split at
                    // an ASCII comma, which is a valid boundary of that encoding.
                    let os = unsafe { OsString::from_encoded_bytes_unchecked(part.to_vec()) };
                    d.inputs.push(PathBuf::from(os));
                }
            }
            continue;
        }
        let name = s.trim_start_matches('-');
        let (name, value) = match name.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (name, None),
        };
        match name {
            "" => positional_only = true,
            "o" => {
                let v = match value {
                    Some(v) => PathBuf::from(v),
                    None => it
                        .next()
                        .map(PathBuf::from)
                        .ok_or("option -o needs a value (a file)")?,
                };
                d.output = Some(v);
            }
            "q" => d.quiet = true,
            "print" => {
                let v = match value {
                    Some(v) => v,
                    None => it
                        .next()
                        .map(|v| v.to_string_lossy().into_owned())
                        .ok_or("option -print needs a value: none, exec or branches")?,
                };
                if !matches!(v.as_str(), "none" | "exec" | "branches") {
                    return Err(format!("-print={v}: expected none, exec or branches"));
                }
                d.print = (v != "none").then_some(v);
            }
            "h" | "help" | "help-hidden" => {
                print!("{}", DROPIN_HELP);
                return Ok(Err(EXIT_OK));
            }
            "version" => {
                println!(
                    "pgo-merge {} (merge-fdata drop-in)",
                    env!("CARGO_PKG_VERSION")
                );
                return Ok(Err(EXIT_OK));
            }
            _ => return Err(format!("unknown option {s}")),
        }
    }
    if d.inputs.is_empty() {
        return Err("no input files (usage: merge-fdata [options] <fdata1> [<fdata2>]...)".into());
    }
    Ok(Ok(d))
}

const DROPIN_HELP: &str = "OVERVIEW: merge multiple fdata into a single file \
(pgo-merge's merge-fdata drop-in)

USAGE: merge-fdata [options] <fdata1> [<fdata2>]...

OPTIONS:
  -o <file>                  Write output to <file> (default: standard output)
  -q                         Do not write the merged profile
  --print=<value>            none, exec or branches (accepted; fdata merges print nothing)

Directories are walked for every regular file. Named merge-fdata-N, the merge follows LLVM
N's merge-fdata (19: mispredictions are part of a branch's key; 23: the no_lbr header keeps
the inputs' event names); otherwise LLVM 20 to 22's, or PGO_MERGE_TARGET_LLVM=N's.
";

/// The semantics of the drop-in named `prog`, or the message for a bad environment value.
fn dropin_semantics(prog: &str) -> Result<FdataSemantics, String> {
    if let Some(v) = version_in_name(prog) {
        return Ok(FdataSemantics::for_llvm(v));
    }
    match std::env::var(TARGET_ENV).ok().as_deref().map(str::trim) {
        None | Some("") => Ok(FdataSemantics::Llvm20),
        Some(v) => v.parse().map(FdataSemantics::for_llvm).map_err(|_| {
            format!("{TARGET_ENV}={v:?} is not an LLVM major version (e.g. {TARGET_ENV}=19)")
        }),
    }
}

/// The `merge-fdata` drop-in, run as `prog` with arguments `args`; returns the exit code
/// (1 for every failure, as merge-fdata's).
pub fn dropin(prog: &str, args: Vec<OsString>) -> i32 {
    let d = match parse_dropin(args) {
        Ok(Ok(d)) => d,
        Ok(Err(code)) => return code,
        Err(msg) => {
            eprintln!("{prog}: error: {msg}");
            return EXIT_FAILURE;
        }
    };
    let semantics = match dropin_semantics(prog) {
        Ok(s) => s,
        Err(msg) => {
            eprintln!("{prog}: error: {msg}");
            return EXIT_FAILURE;
        }
    };
    let mut r = FdataMergeRequest::default();
    r.inputs = d.inputs;
    r.output = d.output.filter(|o| o != Path::new("-"));
    r.semantics = semantics;
    r.every_file = true;
    r.write = !d.quiet;
    match merge_fdata(&r, &NoProgress) {
        Ok(o) => {
            dropin_report(prog, &o, d.print.as_deref());
            EXIT_OK
        }
        Err(e) => {
            messages::error(prog, &e, Mode::LlvmProfdata);
            EXIT_FAILURE
        }
    }
}

/// What `merge-fdata` prints on standard error after a merge.
fn dropin_report(prog: &str, o: &FdataMergeOutcome, print: Option<&str>) {
    match o.format {
        BoltFormat::Yaml => {
            for i in &o.inputs {
                eprintln!("Merging data from {}...", i.display());
            }
            messages::print(prog, &o.messages, false);
            eprintln!("Data for {} unique objects successfully merged.", o.lines);
            let Some(by) = print else { return };
            let mut list: Vec<(u64, &str)> = o
                .functions
                .iter()
                .map(|(n, exec, br)| (if by == "exec" { *exec } else { *br }, n.as_str()))
                .collect();
            list.sort_by(|a, b| b.cmp(a));
            let what = if by == "exec" {
                "execution"
            } else {
                "total branch"
            };
            eprintln!("Functions sorted by {what} count:");
            for (count, name) in list {
                eprintln!("{name} : {count}");
            }
        }
        _ => {
            eprintln!("Using legacy profile format.");
            messages::print(prog, &o.messages, false);
            eprintln!("Profile from {} files merged.", o.inputs_total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_in_names() {
        assert_eq!(version_in_name("merge-fdata-19"), Some(19));
        assert_eq!(version_in_name("merge-fdata"), None);
        assert_eq!(version_in_name("merge-fdata-22.1"), Some(22));
        assert_eq!(version_in_name("merge-fdatax"), None);
    }

    #[test]
    fn dropin_options() {
        let a = |v: &[&str]| parse_dropin(v.iter().map(OsString::from).collect());
        let d = a(&["a.fdata,b.fdata", "-o=x", "--q", "c"])
            .unwrap()
            .unwrap();
        assert_eq!(d.inputs.len(), 3);
        assert_eq!(d.output, Some(PathBuf::from("x")));
        assert!(d.quiet);
        assert!(a(&["-print=bogus", "a"]).is_err());
        assert!(a(&["-o"]).is_err());
        assert!(a(&["-print", "exec", "a"]).unwrap().is_ok());
    }
}
