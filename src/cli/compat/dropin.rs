//! Run as `llvm-profdata`: exactly llvm-profdata's options, its messages and its help.

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;

use pgo_merge::pipeline::sample::FsDiscriminatorPass;

use super::table::{Does, GENERIC, LlvmOption, find, subcommand_text, table};
use super::{dashed, edit_distance, long_with_value, split_option};

/// llvm-profdata's "Did you mean" for the unknown option `arg` (without dashes, with any
/// `=value`): the listed option nearest by edit distance, the first of equals; options that
/// take a value are compared with the name only and suggested with the value.
pub(super) fn nearest(sub: &str, arg: &str) -> Option<String> {
    let (lhs, rhs) = arg.split_once('=').unwrap_or((arg, ""));
    let mut best: Option<(usize, String)> = None;
    for o in GENERIC.iter().chain(table(sub)).filter(|o| o.listed) {
        let permit_value = o.value.is_some();
        let flag = if permit_value { lhs } else { arg };
        let d = edit_distance(o.name, flag);
        if best.as_ref().is_none_or(|(b, _)| d < *b) {
            let s = if rhs.is_empty() || !permit_value {
                o.name.to_string()
            } else {
                format!("{}={rhs}", o.name)
            };
            best = Some((d, s));
        }
    }
    best.map(|(_, s)| s)
}

/// What parsing llvm-profdata's arguments of a subcommand ended in, besides arguments for
/// clap.
#[derive(Debug, PartialEq, Eq)]
pub enum Stop {
    /// Print the subcommand's help and exit 0.
    Help,
    /// Print the version and exit 0.
    Version,
    /// These messages were printed to standard error already; exit 1.
    Failed,
}

/// What the drop-in does with the known llvm-profdata option `o`, given as `a` with
/// `value` after its `=` (if any): pushes our spelling of it to `out`, taking its value from
/// `iter` when it has none; prints LLVM's message and returns false when it is refused.
fn dropin_option<'a>(
    o: &LlvmOption,
    value: Option<&OsStr>,
    iter: &mut impl Iterator<Item = &'a OsString>,
    out: &mut Vec<OsString>,
    prog: &str,
) -> Result<bool, Stop> {
    let requires_value = || {
        eprintln!(
            "{prog}: for the {} option: requires a value!",
            dashed(o.name)
        );
        false
    };
    let ok = match o.does {
        Does::Help => return Err(Stop::Help),
        Does::Version => return Err(Stop::Version),
        Does::No(why) => {
            eprintln!(
                "{prog}: error: {} is not implemented by pgo-merge's llvm-profdata \
                 drop-in: {why}",
                dashed(o.name)
            );
            if o.value.is_some() && value.is_none() {
                iter.next();
            }
            false
        }
        Does::Ignored => true,
        Does::Ours(long @ "fs-discriminator-pass") => {
            // An enum: LLVM checks the value against its spellings, case and all.
            match value.or_else(|| iter.next().map(OsString::as_os_str)) {
                None => requires_value(),
                Some(v)
                    if v.to_str()
                        .and_then(FsDiscriminatorPass::from_llvm_name)
                        .is_none() =>
                {
                    eprintln!(
                        "{prog}: for the {} option: Cannot find option named '{}'!",
                        dashed(o.name),
                        v.to_string_lossy()
                    );
                    false
                }
                Some(v) => {
                    out.push(long_with_value(long, v));
                    true
                }
            }
        }
        Does::Ours(long) if o.value.is_some() => {
            match value.or_else(|| iter.next().map(OsString::as_os_str)) {
                Some(v) => {
                    out.push(long_with_value(long, v));
                    true
                }
                None => requires_value(),
            }
        }
        Does::Ours(long) => match value.map(|v| v.to_str()) {
            None | Some(Some("true" | "TRUE" | "True" | "1")) => {
                out.push(format!("--{long}").into());
                true
            }
            Some(Some("false" | "FALSE" | "False" | "0")) => true,
            Some(v) => {
                eprintln!(
                    "{prog}: for the {} option: '{}' is invalid value for boolean argument! \
                     Try 0 or 1",
                    dashed(o.name),
                    v.map_or_else(|| "?".into(), str::to_string)
                );
                false
            }
        },
    };
    Ok(ok)
}

/// Rewrites the arguments of llvm-profdata subcommand `sub` (`merge`, `show`, `overlap`) into
/// arguments for our clap definition of it, accepting exactly llvm-profdata's options.
/// `prog` prefixes messages (llvm-profdata's program name) and `argv0` is named in its "Try:"
/// hint. Messages go to standard error as they come, as llvm-profdata prints them. Arguments
/// are bytes: a file name, alone or as an option's value, passes unchanged whatever it holds.
pub fn dropin_normalize(
    sub: &str,
    args: &[OsString],
    prog: &str,
    argv0: &str,
) -> Result<Vec<OsString>, Stop> {
    let mut out = Vec::with_capacity(args.len());
    let mut failed = false;
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        if a == "--" {
            out.push(a.clone());
            out.extend(iter.cloned());
            break;
        }
        if a == "-" || !a.as_encoded_bytes().starts_with(b"-") {
            out.push(a.clone());
            continue;
        }
        let (head, value) = split_option(a);
        let head = head.unwrap_or("");
        let name = head
            .strip_prefix("--")
            .unwrap_or(&head[1.min(head.len())..]);
        if let Some(o) = find(sub, name) {
            failed |= !dropin_option(o, value, &mut iter, &mut out, prog)?;
            continue;
        }
        let shown = a.to_string_lossy();
        let body = shown.strip_prefix("--").unwrap_or(&shown[1..]);
        // As LLVM: an unknown `-xyz` whose first letter is a single-letter option is taken
        // as that option grouped with others; `-h...` prints the help, and an option that
        // needs a value cannot be grouped.
        let mut suggest_for = body.to_string();
        if body.chars().count() > 1
            && let Some(c) = body.chars().next()
            && let Some(o) = find(sub, &c.to_string()).filter(|o| o.listed)
        {
            if o.does == Does::Help {
                return Err(Stop::Help);
            }
            if o.value.is_some() {
                eprintln!("{prog}: for the -{c} option: may not occur within a group!");
                suggest_for = c.to_string();
            }
        }
        eprintln!("{prog}: Unknown command line argument '{shown}'.  Try: '{argv0} --help'");
        if let Some(s) = nearest(sub, &suggest_for) {
            eprintln!("{prog}: Did you mean '{}'?", dashed(&s));
        }
        failed = true;
    }
    if failed { Err(Stop::Failed) } else { Ok(out) }
}

/// llvm-profdata-style help of subcommand `sub`: its options, those not implemented, and
/// the generic ones.
pub fn dropin_help(sub: &str, prog: &str) -> String {
    let (desc, usage) = subcommand_text(sub).unwrap_or(("", ""));
    let shown = |o: &LlvmOption| match o.value {
        Some(v) if o.name.len() > 1 => format!("--{}={v}", o.name),
        _ => dashed(o.name),
    };
    let all: Vec<&LlvmOption> = table(sub)
        .iter()
        .chain(GENERIC)
        .filter(|o| o.listed || matches!(o.does, Does::Ours(_)))
        .collect();
    let width = all.iter().map(|o| shown(o).len()).max().unwrap_or(0) + 2;
    let line = |s: &mut String, o: &LlvmOption, text: &str| {
        let _ = writeln!(s, "  {:<width$} - {text}", shown(o));
    };
    let describe = |o: &LlvmOption| -> String {
        match o.does {
            Does::Ours(target) if o.help.is_empty() => format!("Alias for --{target}"),
            _ => o.help.to_string(),
        }
    };
    let mut s = String::new();
    let _ = writeln!(s, "OVERVIEW: LLVM profile data\n");
    let _ = writeln!(s, "SUBCOMMAND '{sub}': {desc}\n");
    let _ = writeln!(s, "USAGE: {prog} {usage}\n");
    let _ = writeln!(s, "OPTIONS:\n\nGeneral options:\n");
    for o in table(sub)
        .iter()
        .filter(|o| matches!(o.does, Does::Ours(_)))
    {
        line(&mut s, o, &describe(o));
    }
    let _ = writeln!(
        s,
        "\nNot implemented by pgo-merge's drop-in (refused with an error, never ignored):\n"
    );
    for o in table(sub)
        .iter()
        .chain(GENERIC)
        .filter(|o| matches!(o.does, Does::No(_)))
    {
        if let Does::No(why) = o.does {
            line(&mut s, o, why);
        }
    }
    let _ = writeln!(s, "\nGeneric Options:\n");
    for o in GENERIC
        .iter()
        .filter(|o| matches!(o.does, Does::Help | Does::Version))
    {
        line(&mut s, o, o.help);
    }
    let _ = writeln!(
        s,
        "\nThis is pgo-merge's llvm-profdata drop-in: the options above are llvm-profdata's \
         spellings; LLVM's global code-generation options, which llvm-profdata accepts and \
         ignores, are not accepted. `{prog} --version` says which LLVM version merge writes for."
    );
    s
}
