//! Run as `llvm-profdata`: exactly llvm-profdata's options, its messages and its help.

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::io::Write as _;

use pgo_merge::pipeline::inputs::parse_llvm_weighted;
use pgo_merge::pipeline::sample::FsDiscriminatorPass;

use super::table::{Does, LlvmOption, RELEASES, find, generic, options, subcommand_text};
use super::{dashed, edit_distance, long_with_value, split_option};

/// llvm-profdata's "Did you mean" for the unknown option `arg` (without dashes, with any
/// `=value`) in release `r`: the listed option nearest by edit distance, the first of
/// equals; options that take a value are compared with the name only and suggested with the
/// value. (LLVM 14 also weighs LLVM's ~2000 code-generation options, which the drop-in does
/// not know: its suggestion may name one of those instead.)
pub(super) fn nearest(r: u32, sub: &str, arg: &str) -> Option<String> {
    let (lhs, rhs) = arg.split_once('=').unwrap_or((arg, ""));
    let mut best: Option<(usize, String)> = None;
    for o in generic(r).chain(options(r, sub)).filter(|o| o.listed) {
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

/// Who is parsing: the llvm-profdata release followed and how it names itself.
#[derive(Debug, Clone, Copy)]
pub struct Dropin<'a> {
    /// The release of the option table ([`super::table::RELEASES`]).
    pub release: u32,
    /// The subcommand (`merge`, `show`, `overlap`).
    pub sub: &'a str,
    /// What prefixes messages: the program name (LLVM 14: with the subcommand).
    pub prog: &'a str,
    /// What the "Try:" hint names: the program as invoked (LLVM 14: its name and the
    /// subcommand).
    pub argv0: &'a str,
}

/// What one pass over the arguments collected besides our spellings of them.
#[derive(Default)]
struct Seen {
    /// Our long names of the options llvm-profdata ignores unless in `merge --sample`.
    in_sample_merge: Vec<&'static str>,
    /// `--sample-frame-depth-for-cold-context` was 0.
    zero_frame_depth: bool,
}

/// LLVM's `StringRef::getAsInteger` with radix 0 (the radix sensed from `0x`, `0b`, `0o`
/// or a leading `0`), as its `uint` and `ulong` option parsers use it: the whole text, an
/// unsigned number up to `max`.
pub(super) fn llvm_unsigned(text: &str, max: u64) -> Option<u64> {
    let lower = text.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if lower.len() > 1 && lower.starts_with('0') && lower.as_bytes()[1].is_ascii_digit() {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix)
        .ok()
        .filter(|&v| v <= max)
}

/// The value of an option that takes one, checked as release `d.release` checks it: our
/// spelling of it, or None after printing llvm-profdata's message.
fn checked_value(d: &Dropin<'_>, o: &LlvmOption, long: &str, v: &OsStr) -> Option<OsString> {
    let text = v.to_string_lossy();
    let bad = |kind: &str| {
        eprintln!(
            "{}: for the --{long} option: '{text}' value invalid for {kind} argument!",
            d.prog
        );
        None
    };
    match o.value {
        Some("<uint>") => match llvm_unsigned(&text, u64::from(u32::MAX)) {
            Some(n) => Some(format!("--{long}={n}").into()),
            None => bad("uint"),
        },
        Some("<ulong>") => match llvm_unsigned(&text, u64::MAX) {
            Some(n) => Some(format!("--{long}={n}").into()),
            None => bad("ulong"),
        },
        // `cl::opt<float>`: strtod's syntax over the whole value (leading blanks allowed),
        // then rounded to single precision.
        Some("<number>") => match text.trim_start().parse::<f64>() {
            Ok(x) => Some(format!("--{long}={}", x as f32).into()),
            Err(_) => bad("floating point"),
        },
        Some("<800000,901000,999999>") => {
            let mut parts = Vec::new();
            for p in text.split(',') {
                match llvm_unsigned(p, u64::from(u32::MAX)) {
                    Some(n) => parts.push(n.to_string()),
                    None => {
                        eprintln!(
                            "{}: for the --{long} option: '{p}' value invalid for uint argument!",
                            d.prog
                        );
                        return None;
                    }
                }
            }
            Some(format!("--{long}={}", parts.join(",")).into())
        }
        Some("<value>") if !o.values.is_empty() => {
            if o.values_in(d.release).any(|x| x == text) {
                Some(long_with_value(long, v))
            } else {
                eprintln!(
                    "{}: for the --{long} option: Cannot find option named '{text}'!",
                    d.prog
                );
                None
            }
        }
        _ => Some(long_with_value(long, v)),
    }
}

/// LLVM's boolean option values: Some(on) for its spellings, None for anything else.
fn llvm_bool(value: Option<&OsStr>) -> Option<bool> {
    match value.map(|v| v.to_str()) {
        None | Some(Some("true" | "TRUE" | "True" | "1")) => Some(true),
        Some(Some("false" | "FALSE" | "False" | "0")) => Some(false),
        Some(_) => None,
    }
}

/// What the drop-in does with the known llvm-profdata option `o`, given as `a` with
/// `value` after its `=` (if any): pushes our spelling of it to `out`, taking its value from
/// `iter` when it has none; prints LLVM's message and returns false when it is refused.
fn dropin_option<'a>(
    d: &Dropin<'_>,
    o: &'static LlvmOption,
    value: Option<&OsStr>,
    iter: &mut impl Iterator<Item = &'a OsString>,
    out: &mut Vec<OsString>,
    seen: &mut Seen,
) -> Result<bool, Stop> {
    let prog = d.prog;
    let requires_value = || {
        eprintln!(
            "{prog}: for the {} option: requires a value!",
            dashed(o.name)
        );
        false
    };
    let bad_bool = |v: Option<&OsStr>| {
        eprintln!(
            "{prog}: for the {} option: '{}' is invalid value for boolean argument! \
             Try 0 or 1",
            dashed(o.name),
            v.and_then(OsStr::to_str).unwrap_or("?")
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
        // Its value is taken (and checked, as LLVM checks it) and dropped.
        Does::Ignored if o.value.is_some() => {
            match value.or_else(|| iter.next().map(OsString::as_os_str)) {
                None => requires_value(),
                Some(v) => checked_value(d, o, o.name, v).is_some(),
            }
        }
        Does::Ignored => true,
        Does::InSampleMerge(long) => match llvm_bool(value) {
            Some(on) => {
                // LLVM's last occurrence wins.
                seen.in_sample_merge.retain(|&l| l != long);
                if on {
                    seen.in_sample_merge.push(long);
                }
                true
            }
            None => bad_bool(value),
        },
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
                None => requires_value(),
                // Read after the options, as llvm-profdata reads it ([`merge_inputs_exist`]).
                Some(v) if long == "weighted-input" => {
                    out.push(long_with_value(long, v));
                    true
                }
                Some(v) => match checked_value(d, o, long, v) {
                    Some(_)
                        if long == "sample-frame-depth-for-cold-context"
                            && llvm_unsigned(&v.to_string_lossy(), u64::from(u32::MAX))
                                == Some(0) =>
                    {
                        // Decided once the options are known (only `merge --sample` uses it).
                        seen.zero_frame_depth = true;
                        true
                    }
                    Some(ours) => {
                        out.push(ours);
                        true
                    }
                    None => false,
                },
            }
        }
        Does::Ours(long) => match llvm_bool(value) {
            Some(true) => {
                out.push(format!("--{long}").into());
                true
            }
            Some(false) => true,
            None => bad_bool(value),
        },
    };
    Ok(ok)
}

/// What llvm-profdata says of the options once all are parsed, in its words, and the
/// options that count only in `merge --sample` added to `out` there. True if all is well.
fn after_options(d: &Dropin<'_>, out: &mut Vec<OsString>, seen: &Seen) -> bool {
    if d.sub != "merge" {
        return true;
    }
    let sample = out.iter().any(|a| a == "--sample");
    if sample {
        // First: after a `--` it would be an input.
        let ours = seen.in_sample_merge.iter().map(|l| format!("--{l}").into());
        out.splice(0..0, ours);
    }
    if sample && seen.zero_frame_depth {
        eprintln!("error: {ZERO_FRAME_DEPTH}");
        return false;
    }
    true
}

/// llvm-profdata's first look at a merge's inputs, in its order and words, given the
/// arguments [`dropin_normalize`] made: each file named on the command line, then each
/// weighted input (its weight read, then its file), must exist (`-`, standard input, aside),
/// whatever the failure mode. True if all do; else it said why.
pub fn merge_inputs_exist(out: &[OsString]) -> bool {
    let mut after_dashes = false;
    let mut weights = Vec::new();
    let mut positional = Vec::new();
    for a in out {
        if a == "--" && !after_dashes {
            after_dashes = true;
        } else if after_dashes || !a.as_encoded_bytes().starts_with(b"-") {
            positional.push(a.as_os_str());
        } else if let (Some("--weighted-input"), Some(w)) = split_option(a) {
            weights.push(w);
        }
    }
    for p in positional {
        if !exists(p) {
            return false;
        }
    }
    for w in weights {
        let Some((_, file)) = parse_llvm_weighted(w) else {
            eprintln!("error: input weight must be a positive integer");
            return false;
        };
        if !exists(file.as_os_str()) {
            return false;
        }
    }
    true
}

/// True if `file` is `-` or exists (links followed); else says so as llvm-profdata does,
/// the name's bytes as given.
fn exists(file: &OsStr) -> bool {
    if file == "-" || std::fs::metadata(file).is_ok() {
        return true;
    }
    let mut line = b"error: ".to_vec();
    if !file.is_empty() {
        line.extend_from_slice(file.as_encoded_bytes());
        line.extend_from_slice(b": ");
    }
    line.extend_from_slice(b"No such file or directory\n");
    let _ = std::io::stderr().lock().write_all(&line);
    false
}

/// Why `--sample-frame-depth-for-cold-context=0` is refused in a sample merge.
const ZERO_FRAME_DEPTH: &str = "--sample-frame-depth-for-cold-context=0 is not supported: \
    cold contexts cut to 0 frames become an empty context, which llvm-profdata writes but \
    cannot read back (1 keeps the context-less base profile)";

/// Rewrites the arguments of llvm-profdata subcommand `d.sub` (`merge`, `show`, `overlap`)
/// into arguments for our clap definition of it, accepting exactly the options of release
/// `d.release`, their values checked as it checks them. Messages go to standard error as they
/// come, as llvm-profdata prints them. Arguments are bytes: a file name, alone or as an
/// option's value, passes unchanged whatever it holds.
pub fn dropin_normalize(d: &Dropin<'_>, args: &[OsString]) -> Result<Vec<OsString>, Stop> {
    let (sub, prog, argv0, r) = (d.sub, d.prog, d.argv0, d.release);
    let mut out = Vec::with_capacity(args.len());
    let mut seen = Seen::default();
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
        if let Some(o) = find(r, sub, name) {
            failed |= !dropin_option(d, o, value, &mut iter, &mut out, &mut seen)?;
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
            && let Some(o) = find(r, sub, &c.to_string()).filter(|o| o.listed)
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
        if let Some(s) = nearest(r, sub, &suggest_for) {
            eprintln!("{prog}: Did you mean '{}'?", dashed(&s));
        }
        failed = true;
    }
    if failed || !after_options(d, &mut out, &seen) {
        Err(Stop::Failed)
    } else {
        Ok(out)
    }
}

/// llvm-profdata-style help of subcommand `sub` in release `r`: its options, those not
/// implemented, LLVM's options it accepts unlisted, and the generic ones. `prog` is the
/// program as the usage line names it.
pub fn dropin_help(r: u32, sub: &str, prog: &str) -> String {
    let (desc, usage) = subcommand_text(sub).unwrap_or(("", ""));
    let shown = |o: &LlvmOption| match o.value {
        Some(v) if o.name.len() > 1 => format!("--{}={v}", o.name),
        _ => dashed(o.name),
    };
    let mine = || options(r, sub);
    let width = mine()
        .chain(generic(r))
        .map(|o| shown(o).len())
        .max()
        .unwrap_or(0)
        + 2;
    let line = |s: &mut String, o: &LlvmOption, text: &str| {
        let _ = writeln!(s, "  {:<width$} - {text}", shown(o));
    };
    let describe = |o: &LlvmOption| -> String {
        match o.does {
            Does::Ours(target) if o.help.is_empty() => format!("Alias for --{target}"),
            _ => o.help_in(r).to_string(),
        }
    };
    let mut s = String::new();
    if r <= 14 {
        // LLVM 14: one overview per subcommand, and no subcommand line.
        let overview = match sub {
            "merge" => "LLVM profile data merger",
            "show" => "LLVM profile data summary",
            _ => "LLVM profile data overlap tool",
        };
        let _ = writeln!(s, "OVERVIEW: {overview}\n");
        let _ = writeln!(s, "USAGE: {prog} {usage}\n");
    } else {
        let _ = writeln!(s, "OVERVIEW: LLVM profile data\n");
        let _ = writeln!(s, "SUBCOMMAND '{sub}': {desc}\n");
        let _ = writeln!(s, "USAGE: {prog} {usage}\n");
    }
    let _ = writeln!(s, "OPTIONS:\n\nGeneral options:\n");
    for o in mine().filter(|o| o.listed && matches!(o.does, Does::Ours(_))) {
        line(&mut s, o, &describe(o));
    }
    let _ = writeln!(
        s,
        "\nNot implemented by pgo-merge's drop-in (refused with an error, never ignored):\n"
    );
    for o in mine().chain(generic(r)).filter(|o| o.listed) {
        if let Does::No(why) = o.does {
            line(&mut s, o, why);
        }
    }
    let _ = writeln!(s, "\n{UNLISTED_HEADING}:\n");
    for o in mine().filter(|o| !o.listed) {
        let text = match o.does {
            Does::No(why) => format!("not implemented: {why}"),
            Does::InSampleMerge(_) => format!(
                "{} (ignored outside merge --sample, as llvm-profdata ignores it)",
                describe(o)
            ),
            Does::Ignored => "accepted and ignored, as llvm-profdata does".to_string(),
            _ => describe(o),
        };
        line(&mut s, o, &text);
    }
    let _ = writeln!(s, "\nGeneric Options:\n");
    for o in generic(r)
        .filter(|o| o.listed && matches!(o.does, Does::Help | Does::Version | Does::Ignored))
    {
        line(&mut s, o, o.help);
    }
    let _ = writeln!(
        s,
        "\nThis is pgo-merge's llvm-profdata drop-in, following llvm-profdata {}'s options: \
         the options above are llvm-profdata's spellings; LLVM's other global \
         code-generation options, which llvm-profdata accepts and ignores, are not accepted. \
         `{prog} --version` says which LLVM version merge writes for.",
        if r == RELEASES[RELEASES.len() - 1] {
            format!("{r} (and later)")
        } else {
            r.to_string()
        }
    );
    s
}

/// The heading of the help's section of LLVM's options that llvm-profdata accepts without
/// listing them.
pub const UNLISTED_HEADING: &str = "LLVM's options that llvm-profdata accepts without listing them";
