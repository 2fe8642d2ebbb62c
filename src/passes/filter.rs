//! Function filters (`--function`, `--no-function`) applied to a merged profile, as
//! llvm-profdata's `filterFunctions`: a name is kept if it matches the positive pattern (when
//! given) and does not match the negative one (which wins). Patterns are regular expressions
//! matched anywhere in the name (Rust `regex` syntax; LLVM uses POSIX extended expressions,
//! which agree for ordinary patterns). A pattern that looks like an MSVC-mangled name
//! (starts with `?`) is matched literally, as LLVM does.

use regex::Regex;

use crate::error::{Error, ErrorKind, Result};
use crate::ir::Profile;

/// Compiles a filter pattern.
pub fn compile(pattern: &str) -> Result<Regex> {
    let msvc = pattern.starts_with('?')
        && pattern
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '?' | '@' | '$' | '_'));
    let src = if msvc {
        regex::escape(pattern)
    } else {
        pattern.to_string()
    };
    Regex::new(&src).map_err(|e| {
        Error::new(ErrorKind::Usage(format!(
            "invalid function filter {pattern:?}: {e}"
        )))
    })
}

/// Removes the records of names rejected by the filters. Returns (names removed, names
/// before), which llvm-profdata reports as "N of M functions in the original profile are
/// filtered."
pub fn retain(
    profile: &mut Profile<'_>,
    keep: Option<&Regex>,
    drop: Option<&Regex>,
) -> (usize, usize) {
    let mut names: Vec<u64> = profile.records.iter().map(|r| r.key.name).collect();
    names.sort_unstable();
    names.dedup();
    let total = names.len();
    let ok = |h: u64| -> bool {
        let name = profile
            .names
            .get(h)
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .unwrap_or_default();
        if drop.is_some_and(|d| d.is_match(&name)) {
            return false;
        }
        keep.is_none_or(|k| k.is_match(&name))
    };
    let kept: std::collections::HashSet<u64> = names.into_iter().filter(|h| ok(*h)).collect();
    let removed = total - kept.len();
    profile.records.retain(|r| kept.contains(&r.key.name));
    (removed, total)
}
