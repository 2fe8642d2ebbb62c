//! `show` and `overlap` of BOLT profiles (fdata and YAML): the files' bytes read into the
//! records of `ir::bolt_report`, the figures of `passes::bolt_report`, the reports of
//! `backends::bolt::report`. `show.rs` and `overlap.rs` hand their files here when
//! [`sniff`] says they are BOLT profiles.

use std::path::Path;

use serde_json::Value;

use crate::backends::bolt::report::{self, OverlapNames};
use crate::backends::show::ShowOptions;
use crate::error::{Error, ErrorKind, Result};
use crate::frontends::open::{read_report, sniff_bolt};
use crate::ir::bolt_report::{BoltFormat, BranchProfile};
use crate::passes::bolt_report::{self, OverlapOptions, SummaryOptions};

/// How many functions and records `show` lists without `--topn` or `--all-functions`.
pub const DEFAULT_TOPN: usize = 10;

/// The BOLT format of a file's bytes, `None` if they are not a BOLT profile.
pub(crate) fn sniff(bytes: &[u8]) -> Option<BoltFormat> {
    sniff_bolt(bytes)
}

/// Reads a BOLT profile of `format` from `bytes` (of `path`, for errors).
fn read(bytes: &[u8], format: BoltFormat, path: &Path) -> Result<BranchProfile> {
    read_report(bytes, format).map_err(|e| e.with_path(path))
}

/// The options of LLVM's `show` that mean nothing for a BOLT profile, if any is set.
fn llvm_only_option(o: &ShowOptions, profile_version: bool) -> Option<&'static str> {
    [
        (o.counts, "--counts"),
        (o.ic_targets, "--ic-targets"),
        (o.vtables, "--show-vtables"),
        (o.memop_sizes, "--memop-sizes"),
        (o.detailed_summary, "--detailed-summary"),
        (!o.detailed_cutoffs.is_empty(), "--detailed-summary-cutoffs"),
        (o.showcs, "--showcs"),
        (o.text, "--text"),
        (o.binary_ids, "--binary-ids"),
        (o.temporal_traces, "--temporal-profile-traces"),
        (o.list_below_cutoff, "--list-below-cutoff"),
        (o.covered, "--covered"),
        (o.hot_func_list, "--hot-func-list"),
        (profile_version, "--profile-version"),
    ]
    .into_iter()
    .find_map(|(on, name)| on.then_some(name))
}

/// One profile's part of `show`'s report.
pub(crate) enum Shown {
    /// The text report.
    Text(String),
    /// The JSON document (`schemas/show.schema.json`).
    Json(Value),
}

/// The report of one BOLT profile for `show`: its text, or its JSON document (`json`).
pub(crate) fn show_one(
    bytes: &[u8],
    format: BoltFormat,
    path: &Path,
    options: (&ShowOptions, bool),
    json: bool,
) -> Result<Shown> {
    let (o, profile_version) = options;
    if let Some(opt) = llvm_only_option(o, profile_version) {
        return Err(Error::new(ErrorKind::Usage(format!(
            "{opt} applies to LLVM profiles, not to a BOLT profile"
        )))
        .with_path(path));
    }
    let p = read(bytes, format, path)?;
    let matches = |name: &str| o.function.as_ref().is_none_or(|f| f.matches(name));
    let filter: &dyn Fn(&str) -> bool = &matches;
    let opts = SummaryOptions {
        limit: if o.all_functions {
            None
        } else if o.topn > 0 {
            Some(o.topn as usize)
        } else {
            Some(DEFAULT_TOPN)
        },
        function: o.function.as_ref().map(|_| filter),
        value_cutoff: o.value_cutoff,
    };
    let s = bolt_report::summarise(&p, &opts);
    Ok(if json {
        Shown::Json(report::show_json(&p, &s, &path.display().to_string()))
    } else {
        Shown::Text(report::show_text(&p, &s))
    })
}

/// What `overlap` asks of two BOLT profiles.
pub(crate) struct BoltOverlapRequest<'a> {
    /// The base profile's path and bytes.
    pub base: (&'a Path, &'a [u8]),
    /// The test profile's path and bytes.
    pub test: (&'a Path, &'a [u8]),
    /// Functions whose name contains this are listed (all of them).
    pub function: Option<&'a str>,
    /// Functions whose test count is at least this are listed (all of them).
    pub value_cutoff: Option<u64>,
    /// Otherwise, this many functions of the largest differences.
    pub top_differences: usize,
    /// A JSON document instead of text.
    pub json: bool,
}

/// Compares two BOLT profiles; the report. Profiles of different formats or modes do not
/// compare: an error naming both.
pub(crate) fn overlap(r: &BoltOverlapRequest<'_>) -> Result<String> {
    let side = |(path, bytes): (&Path, &[u8])| -> Result<BranchProfile> {
        let format = sniff(bytes).ok_or_else(|| mixed(r))?;
        read(bytes, format, path)
    };
    let base = side(r.base)?;
    let test = side(r.test)?;
    if (base.format, base.sampled) != (test.format, test.sampled) {
        return Err(Error::new(ErrorKind::KindConflict(format!(
            "{} is a BOLT {} profile ({}), {} a BOLT {} profile ({}): only profiles of one \
             format and mode compare",
            r.base.0.display(),
            base.format.name(),
            base.mode(),
            r.test.0.display(),
            test.format.name(),
            test.mode()
        ))));
    }
    let contains = |name: &str| r.function.is_none_or(|f| name.contains(f));
    let filter: &dyn Fn(&str) -> bool = &contains;
    let listed_all = r.function.is_some() || r.value_cutoff.is_some();
    let o = bolt_report::overlap(
        &base,
        &test,
        &OverlapOptions {
            limit: (!listed_all).then_some(r.top_differences),
            function: r.function.map(|_| filter),
            value_cutoff: r.value_cutoff.unwrap_or(0),
        },
    );
    let (b, t) = (
        r.base.0.display().to_string(),
        r.test.0.display().to_string(),
    );
    let names = OverlapNames { base: &b, test: &t };
    Ok(if r.json {
        let mut s = serde_json::to_string_pretty(&report::overlap_json(&base, &o, names))
            .unwrap_or_default();
        s.push('\n');
        s
    } else {
        report::overlap_text(&base, &o, names)
    })
}

/// The error of an overlap of a BOLT profile with a profile of another kind.
fn mixed(r: &BoltOverlapRequest<'_>) -> Error {
    let (bolt, other) = if sniff(r.base.1).is_some() {
        (r.base.0, r.test.0)
    } else {
        (r.test.0, r.base.0)
    };
    Error::new(ErrorKind::KindConflict(format!(
        "{} is a BOLT profile and {} is not: overlap compares a BOLT profile only with a BOLT \
         profile of the same format",
        bolt.display(),
        other.display()
    )))
}
