//! The one place that prints messages and turns errors into exit codes.

use std::io::Write;

use pgo_merge::pipeline::Message;

use super::{EXIT_FAILURE, Mode};

/// Prints `messages` to standard error as `PREFIX: message`, leaving out all but the
/// always-shown ones when `quiet`.
pub fn print(prefix: &str, messages: &[Message], quiet: bool) {
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    for m in messages {
        if m.always_shown() {
            let _ = writeln!(err, "{m}");
        } else if !quiet {
            let _ = writeln!(err, "{prefix}: {m}");
        }
    }
}

/// Prints a line to standard error unless `quiet`.
pub fn note(quiet: bool, line: std::fmt::Arguments<'_>) {
    if !quiet {
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
}

/// Prints an error as `PREFIX: error: …` and returns its exit code: the usage code for a
/// request the driver refused, else 1.
pub fn error(prefix: &str, e: &pgo_merge::Error, mode: Mode) -> i32 {
    eprintln!("{prefix}: error: {e}");
    if e.is_request_error() {
        mode.usage_code()
    } else {
        EXIT_FAILURE
    }
}
