//! llvm-profdata's command-line spellings.
//!
//! LLVM's option parser accepts long options with one or two dashes (`-failure-mode=all`,
//! `--failure-mode all`), boolean options with an explicit value (`-sparse=true`), and
//! enum-valued options spelled as bare flags (`-instr`, `-text`, `-binary`). This module
//! rewrites such arguments into the `--name=value` form our clap definitions understand.
//!
//! Run as `llvm-profdata` ([`dropin_normalize`]), exactly the options of the llvm-profdata
//! release followed (14, 19, 22 or 23; [`table_release`]) are accepted, no more and no fewer:
//! the tables list every option its `merge`, `show` and `overlap` take (from
//! `llvm-profdata-N SUBCOMMAND --help-hidden`, and LLVM's global options each accepts
//! unlisted), each either mapped to ours or refused with the reason it is not implemented —
//! never silently ignored. Unknown options and bad values are reported as that release
//! reports them, with its "Did you mean" suggestion.
//! Run as `pgo-merge` ([`normalize`]), our own options are accepted too, and llvm-profdata's
//! spellings of them.

mod distance;
mod dropin;
mod native;
mod table;
#[cfg(test)]
mod tests;

use std::ffi::{OsStr, OsString};

use pgo_merge::pipeline::inputs::split_os;

pub use distance::{edit_distance, typo_distance};
pub use dropin::{Dropin, Stop, dropin_help, dropin_normalize, merge_inputs_exist};
pub use native::normalize;
pub use table::{subcommand_text, table_release};

/// How an option is written on a command line: `-x` for one letter, else `--name`.
pub(super) fn dashed(name: &str) -> String {
    if name.chars().count() == 1 {
        format!("-{name}")
    } else {
        format!("--{name}")
    }
}

/// One command-line argument seen as an option: its text up to the first `=` (dashes and
/// name; `None` if that is not UTF-8, so no option of ours) and the bytes after the `=`,
/// kept as given: a value may be a file name, and file names are bytes, not text.
pub(super) fn split_option(a: &OsStr) -> (Option<&str>, Option<&OsStr>) {
    match split_os(a, b'=', false) {
        Some((head, value)) => (head.to_str(), Some(value)),
        None => (a.to_str(), None),
    }
}

/// `--LONG=VALUE` with VALUE's bytes as given.
pub(super) fn long_with_value(long: &str, value: &OsStr) -> OsString {
    let mut s = OsString::from(format!("--{long}="));
    s.push(value);
    s
}
