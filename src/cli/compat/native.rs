//! Run as `pgo-merge`: our options, and llvm-profdata's spellings of them.

use std::ffi::OsString;

use super::table::{Does, GENERIC, GLOBAL, MERGE, OVERLAP, SHOW};
use super::{long_with_value, split_option, typo_distance};

/// llvm-profdata's options that `pgo-merge` (native mode) recognises as llvm-profdata's but
/// does not implement, with the reason.
fn not_implemented(name: &str) -> Option<&'static str> {
    MERGE
        .iter()
        .chain(SHOW)
        .chain(OVERLAP)
        .chain(GLOBAL)
        .chain(GENERIC)
        .find(|o| o.name == name)
        .and_then(|o| match o.does {
            Does::No(why) => Some(why),
            _ => None,
        })
}

/// The long option of `cmd` nearest to `name`, if it is close enough to be a typo of it.
pub fn similar_option(cmd: &clap::Command, name: &str) -> Option<String> {
    let names = cmd.get_arguments().flat_map(|a| {
        a.get_long()
            .into_iter()
            .chain(a.get_all_aliases().unwrap_or_default())
    });
    names
        .map(|n| (typo_distance(n, name), n))
        .filter(|(d, n)| *d <= 2.max(n.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n.to_string())
}

/// Rewrites llvm-profdata spellings of the options `cmd` defines into `--name[=value]` form.
/// Arguments that are not options (and everything after `--`) pass unchanged; short options
/// pass unchanged (clap reads `-o FILE` and `-o=FILE`). Returns the message of the first
/// unsupported or unknown single-dash option; unknown double-dash options are left for clap
/// to report.
pub fn normalize(args: &[OsString], cmd: &clap::Command) -> Result<Vec<OsString>, String> {
    let lookup = |name: &str| -> Option<bool> {
        cmd.get_arguments().find_map(|a| {
            let matches = a.get_long() == Some(name)
                || a.get_all_aliases().is_some_and(|al| al.contains(&name));
            matches.then(|| a.get_action().takes_values())
        })
    };
    let mut out = Vec::with_capacity(args.len());
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        if a == "--" {
            out.push(a.clone());
            out.extend(iter.cloned());
            break;
        }
        let bytes = a.as_encoded_bytes();
        if a == "-" || !bytes.starts_with(b"-") {
            out.push(a.clone());
            continue;
        }
        let dashes = bytes.iter().take_while(|&&b| b == b'-').count();
        let shown = a.to_string_lossy();
        // A short option with its value attached (`-j1`, `-oout.profdata`, `-o` and a file
        // name that is not UTF-8) when it is not a long option: clap takes it as it is.
        let short = bytes
            .get(1)
            .filter(|b| b.is_ascii())
            .map(|&b| char::from(b));
        let attached = dashes == 1 && short_takes_value(cmd, short);
        let (head, value) = split_option(a);
        let Some(name) = head.map(|h| &h[dashes.min(h.len())..]) else {
            if attached {
                out.push(a.clone());
                continue;
            }
            return Err(format!("unknown option {shown:?} (see --help)"));
        };
        if dashes == 1 && name.chars().count() == 1 {
            out.push(a.clone());
            continue;
        }
        if dashes > 2 || name.is_empty() {
            return Err(format!("unknown option {shown:?}"));
        }
        if name == "help" && value.is_none() {
            out.push("--help".into());
            continue;
        }
        if lookup(name).is_none()
            && let Some(why) = not_implemented(name)
        {
            return Err(format!(
                "llvm-profdata option -{name} is not supported by pgo-merge: {why}"
            ));
        }
        match lookup(name) {
            Some(true) => out.push(match value {
                Some(v) => long_with_value(name, v),
                None => format!("--{name}").into(),
            }),
            Some(false) => match value.map(|v| v.to_str()) {
                None | Some(Some("true" | "TRUE" | "True" | "1")) => {
                    out.push(format!("--{name}").into());
                }
                Some(Some("false" | "FALSE" | "False" | "0")) => {}
                Some(_) => {
                    return Err(format!(
                        "option -{name} takes no value (got {:?})",
                        value.unwrap_or_default().to_string_lossy()
                    ));
                }
            },
            None if dashes == 2 || attached => out.push(a.clone()),
            None => {
                return Err(match similar_option(cmd, name) {
                    Some(s) => {
                        format!("unknown option {shown:?}; did you mean --{s}? (see --help)")
                    }
                    None => format!("unknown option {shown:?} (see --help)"),
                });
            }
        }
    }
    Ok(out)
}

/// True if `c` is a short option of `cmd` that takes a value.
fn short_takes_value(cmd: &clap::Command, c: Option<char>) -> bool {
    c.is_some_and(|c| {
        cmd.get_arguments()
            .any(|a| a.get_short() == Some(c) && a.get_action().takes_values())
    })
}
