//! `show` of a GraalVM `.iprof` file: the file's summary, the most sampled methods, and what
//! pgo-merge would write for it, as text or as JSON (`schemas/show.schema.json`, format
//! `iprof`), both rendered from the same `IprofShowView`.

use std::fmt;

use serde_json::{Value, json};

use super::iprof::{IprofSummary, SizeReduction};
use crate::error::Warning;

/// Methods listed by `show` (text and JSON), most self samples first.
pub const SHOWN_SAMPLED_METHODS: usize = 25;

/// One method's sample counts from `samplingProfiles`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SampledMethod<'a> {
    /// `Declaring.name(params)ret`.
    pub(crate) method: &'a str,
    /// Samples in which the method is the innermost frame.
    pub(crate) self_samples: u64,
    /// Samples in which the method is on the stack (once per sample).
    pub(crate) total_samples: u64,
}

/// What `show` reports of one iprof file, computed elsewhere (the driver's `show_report`).
#[derive(Debug, Clone)]
pub(crate) struct IprofShowView<'a> {
    /// The file as read.
    pub(crate) input: &'a IprofSummary,
    /// The profile as pgo-merge would write it (canonical form).
    pub(crate) output: &'a IprofSummary,
    /// Before/after sizes.
    pub(crate) reduction: &'a SizeReduction,
    /// Reader warnings.
    pub(crate) warnings: &'a [Warning],
    /// Every sampled method, most self samples first (the report lists the first
    /// [`SHOWN_SAMPLED_METHODS`]).
    pub(crate) sampled_methods: Vec<SampledMethod<'a>>,
}

/// The text report.
pub(crate) fn text(v: &IprofShowView<'_>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "{}", v.input)?;
    if !v.sampled_methods.is_empty() {
        writeln!(
            f,
            "sampled methods: {} (self = innermost frame, total = anywhere on the stack; top {}):",
            v.sampled_methods.len(),
            SHOWN_SAMPLED_METHODS.min(v.sampled_methods.len())
        )?;
        writeln!(f, "  {:>10} {:>10}  method", "self", "total")?;
        for m in v.sampled_methods.iter().take(SHOWN_SAMPLED_METHODS) {
            writeln!(
                f,
                "  {:>10} {:>10}  {}",
                m.self_samples, m.total_samples, m.method
            )?;
        }
    }
    writeln!(f, "as written by pgo-merge (canonical):")?;
    writeln!(
        f,
        "  types {}, methods {}, context nodes {}, entries {}",
        v.output.types, v.output.methods, v.output.context_nodes, v.reduction.output_entries
    )?;
    writeln!(f, "  {}", v.reduction)
}

/// The sizes and section totals of one summary.
fn summary_json(s: &IprofSummary) -> Value {
    json!({
        "version": s.version.to_string(),
        "bytes": s.bytes,
        "types": s.types,
        "methods": s.methods,
        "context_nodes": s.context_nodes,
        "max_context_depth": s.max_depth,
        "sections": s.present.iter().map(|sec| json!({
            "name": sec.json_key(),
            "entries": s.totals.entries_of(*sec),
            "total_count": s.totals.sum_of(*sec),
            "max_count": s.totals.max_of(*sec),
        })).collect::<Vec<_>>(),
    })
}

/// The JSON document of the file `file` (`schemas/show.schema.json`, `iprof_profile`): the
/// facts of [`text`], plus the reader's warnings.
pub(crate) fn json(file: &str, v: &IprofShowView<'_>) -> Value {
    let r = v.reduction;
    json!({
        "file": file,
        "format": "iprof",
        "input": summary_json(v.input),
        "sampled_methods": v.sampled_methods.len(),
        "sampled_methods_listed": v.sampled_methods.iter().take(SHOWN_SAMPLED_METHODS).map(|m| json!({
            "method": m.method,
            "self_samples": m.self_samples,
            "total_samples": m.total_samples,
        })).collect::<Vec<_>>(),
        "canonical": {
            "summary": summary_json(v.output),
            "entries": r.output_entries,
        },
        "reduction": {
            "input_bytes": r.input_bytes,
            "output_bytes": r.output_bytes,
            "output_fraction": r.percent_of_input() / 100.0,
            "input_entries": r.input_entries,
            "output_entries": r.output_entries,
            "input_methods": r.input_methods,
            "output_methods": r.output_methods,
        },
        "warnings": v.warnings.iter().map(super::show::warning_json).collect::<Vec<_>>(),
    })
}
