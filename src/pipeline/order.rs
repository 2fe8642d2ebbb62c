//! The `order` job: reads and merges the inputs' temporal traces, orders their functions
//! ([`crate::passes::order`]) and prints the order ([`crate::backends::order`]).
//!
//! One input is read as `llvm-profdata order` reads it: its traces as they are (no
//! reservoir sampling, no length limit, empty traces kept), so the order is
//! llvm-profdata's to the byte.
//! Several inputs (any mix of raw, indexed and text profiles) are first merged as `merge`
//! merges them, with its reservoir of traces.

use std::path::{Path, PathBuf};

use super::output::{self, Destination};
use super::{InputSpec, Message};
use crate::backends::order::{self as printer};
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::frontends::open::{InputFile, LlvmReader};
use crate::ir::Profile;
use crate::passes::Weight;
use crate::passes::merge::MergeOptions;
use crate::passes::order::{self, OrderOptions};

pub use crate::backends::order::OrderFormat;

/// What to order, and how to print it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OrderRequest {
    /// The profiles (raw, indexed or text), in order.
    pub files: Vec<PathBuf>,
    /// Where the order goes (`None` or `-`: standard output).
    pub output: Option<PathBuf>,
    /// Traces kept aside to measure the order (`--num-test-traces`): the last ones.
    pub test_traces: usize,
    /// The LLVM release whose `order` to reproduce (major version; 19 and 22/23 differ).
    pub llvm: u32,
    /// How to print it.
    pub format: OrderFormat,
    /// With several inputs: traces kept by the merge (`merge`'s default: 100).
    pub reservoir_size: u64,
    /// With several inputs: longer traces are cut to this many functions (default 10000).
    pub max_trace_length: u64,
}

impl OrderRequest {
    /// Orders the functions of `files` as llvm-profdata `llvm` does, printed as it prints
    /// them to standard output.
    pub fn new(files: Vec<PathBuf>, llvm: u32) -> Self {
        let defaults = MergeOptions::default();
        OrderRequest {
            files,
            output: None,
            test_traces: 0,
            llvm,
            format: OrderFormat::Llvm,
            reservoir_size: defaults.temporal_reservoir_size,
            max_trace_length: defaults.temporal_max_trace_length,
        }
    }
}

/// Orders the functions of `r`'s inputs and writes the order; returns what happened
/// (a warning when the inputs hold no traces: the order is then empty, as llvm-profdata's).
pub fn order(r: &OrderRequest) -> Result<Vec<Message>> {
    if r.files.is_empty() {
        return Err(Error::new(ErrorKind::Usage(
            "no input: order takes one or more profiles".into(),
        )));
    }
    #[cfg(not(feature = "json"))]
    if r.format == OrderFormat::Json {
        return Err(Error::new(ErrorKind::FeatureDisabled {
            what: "JSON output",
            feature: "json",
        }));
    }
    if let Some(o) = &r.output
        && let Some(same) = r.files.iter().find(|f| super::inputs::same_file(f, o))
    {
        return Err(Error::new(ErrorKind::Usage(format!(
            "{}: Input file name cannot be the same as the output file name!",
            same.display()
        ))));
    }
    if let [one] = r.files.as_slice() {
        // One input: its traces as they are (empty ones too), as llvm-profdata order
        // reads them.
        let file = InputFile::open(one)?.inflated()?;
        let read = LlvmReader::new()
            .read(file.bytes())
            .map_err(|e| file.or_changed(e).with_path(one))?;
        file.check_unchanged()?;
        let messages = read.warnings.into_iter().map(Message::Warning).collect();
        return order_and_write(r, &read.profile, messages);
    }
    let inputs: Vec<InputSpec> = r
        .files
        .iter()
        .map(|p| InputSpec::new(p, Weight::ONE))
        .collect();
    let opts = MergeOptions {
        temporal_reservoir_size: r.reservoir_size,
        temporal_max_trace_length: r.max_trace_length,
        ..MergeOptions::default()
    };
    let merged = super::llvm::merge_files(&inputs, &opts, None)?;
    let messages = merged.warnings.into_iter().map(Message::Warning).collect();
    order_and_write(r, &merged.profile, messages)
}

/// Orders the functions of `profile`'s traces and writes the order as `r` asks; returns
/// `messages` with a warning added when there are no traces.
fn order_and_write(
    r: &OrderRequest,
    profile: &Profile<'_>,
    mut messages: Vec<Message>,
) -> Result<Vec<Message>> {
    let traces = &profile.temporal.traces;
    if traces.is_empty() {
        messages.push(Message::Warning(no_traces(&r.files)));
    }
    let opts = OrderOptions {
        test_traces: r.test_traces,
        ..OrderOptions::for_llvm(r.llvm)
    };
    let ordered = order::order(traces, &opts)?;
    let text = printer::render(&ordered, &profile.names, r.format)?;
    let dest = Destination::of(r.output.as_deref().unwrap_or(Path::new("-")));
    output::write_bytes(&dest, &text)?;
    Ok(messages)
}

/// The warning for inputs without temporal traces.
fn no_traces(files: &[PathBuf]) -> Warning {
    let w = Warning::new(
        "no temporal traces: the order is empty (profiles get traces from programs built \
         with -ftemporal-profile, or -mllvm -pgo-temporal-instrumentation before clang 20)",
    );
    match files {
        [one] => w.with_path(one),
        _ => w,
    }
}
