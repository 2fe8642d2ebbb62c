//! What the index version or LLVM release written cannot hold: left out with a warning per
//! kind, or refused.

use super::ProfdataOptions;
use super::target::WriterModel;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::ir::{Profile, ProfileKind, ValueKind};

/// The writer's warnings about what `opts`' target cannot hold (`left out …`); an error
/// listing all of it instead with [`ProfdataOptions::strict`].
pub(super) fn losses_or_refusal(
    profile: &Profile<'_>,
    opts: &ProfdataOptions,
    model: &WriterModel,
) -> Result<Vec<Warning>> {
    let losses = losses(profile, opts.version, opts.llvm, model);
    if opts.strict && !losses.is_empty() {
        let what: Vec<String> = losses.iter().map(|(r, w)| format!("{r}: {w}")).collect();
        return Err(Error::new(ErrorKind::KindConflict(format!(
            "{}; not written (--strict-target)",
            what.join("; ")
        ))));
    }
    Ok(losses
        .into_iter()
        .map(|(r, w)| Warning::new(format!("{r}: left out {w}")))
        .collect())
}

/// One (reason, what) pair per kind of content that index `version` (or LLVM release `llvm`,
/// per `model`) cannot hold: why, and what and how much that is; empty if nothing is lost.
fn losses(
    profile: &Profile<'_>,
    version: u32,
    llvm: Option<u32>,
    model: &WriterModel,
) -> Vec<(String, String)> {
    let plural = |n: u64, one: &str, many: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let target = match llvm {
        Some(m) => format!("LLVM {m} (index version {version})"),
        None => format!("index version {version}"),
    };
    let mut out = Vec::new();
    if version < 12 {
        let (mut funcs, mut sites, mut values) = (0u64, 0u64, 0u64);
        for r in &profile.records {
            let Some(v) = &r.values else { continue };
            let s = v.kind(ValueKind::VTable);
            if !s.is_empty() {
                funcs += 1;
                sites += s.len() as u64;
                values += s.iter().map(|x| x.values.len() as u64).sum::<u64>();
            }
        }
        if funcs > 0 {
            out.push((
                format!("{target} cannot hold vtable value profiles (index version 12 and later)"),
                format!(
                    "{} ({}) of {}",
                    plural(sites, "vtable value site", "vtable value sites"),
                    plural(values, "value", "values"),
                    plural(funcs, "function", "functions")
                ),
            ));
        }
    }
    if version < 11 {
        let (mut funcs, mut bytes) = (0u64, 0u64);
        for r in profile.records.iter().filter(|r| !r.bitmap.is_empty()) {
            funcs += 1;
            bytes += r.bitmap.len() as u64;
        }
        if funcs > 0 {
            out.push((
                format!("{target} cannot hold MC/DC bitmaps (index version 11 and later)"),
                format!(
                    "the bitmaps of {} ({})",
                    plural(funcs, "function", "functions"),
                    plural(bytes, "byte", "bytes")
                ),
            ));
        }
    }
    if version < 10 && profile.kind.contains(ProfileKind::TEMPORAL) {
        out.push((
            format!("{target} cannot hold temporal traces (index version 10 and later)"),
            format!(
                "{} and the temporal flag",
                plural(profile.temporal.traces.len() as u64, "trace", "traces")
            ),
        ));
    }
    // Binary IDs an index version before 9 cannot hold are dropped without a word, as that
    // release's llvm-profdata drops them: `-fprofile-use` never reads them (they name the
    // binaries for debuginfod and correlation), and a warning on every merge of a clang 14
    // profile for LLVM 14 would only teach users to ignore warnings.
    let mut unknown = profile.kind;
    unknown.remove(model.known_flags);
    unknown.remove(
        ProfileKind::TEMPORAL
            .union(ProfileKind::MEMPROF)
            .union(ProfileKind::DEBUG_INFO_CORRELATE),
    );
    if unknown != ProfileKind::empty() {
        let names = unknown.names();
        let flags = if names.len() == 1 { "flag" } else { "flags" };
        out.push((
            format!(
                "{target} does not know the profile {flags} {}",
                names.join(", ")
            ),
            format!("the {flags}"),
        ));
    }
    out
}
