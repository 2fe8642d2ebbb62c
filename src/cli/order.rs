//! `pgo-merge order PROFILE...`: order arguments → [`OrderRequest`].

use pgo_merge::pipeline::{self, OrderFormat, OrderRequest};

use super::args::{OrderArgs, OrderFormatArg};
use super::{EXIT_OK, Mode, messages};

/// The first LLVM release with `llvm-profdata order`.
const FIRST_LLVM: u32 = 17;

/// The LLVM release `order` follows natively when `--target-llvm` names none.
const DEFAULT_LLVM: u32 = 22;

/// Runs `order`; returns the exit code. In drop-in mode `a.target_llvm` is the release the
/// drop-in follows, and the output is llvm-profdata's (no warnings of ours).
pub fn run_order(a: OrderArgs, mode: Mode) -> i32 {
    if let Some(m) = a.target_llvm.filter(|&m| m < FIRST_LLVM) {
        eprintln!(
            "pgo-merge: error: --target-llvm {m}: llvm-profdata has order from LLVM {FIRST_LLVM}"
        );
        return mode.usage_code();
    }
    let mut req = OrderRequest::new(a.inputs, a.target_llvm.unwrap_or(DEFAULT_LLVM));
    req.output = a.output;
    req.test_traces = a.num_test_traces;
    req.reservoir_size = a.reservoir_size;
    req.max_trace_length = a.max_trace_length;
    req.format = if a.json {
        OrderFormat::Json
    } else {
        match a.format {
            OrderFormatArg::Llvm => OrderFormat::Llvm,
            OrderFormatArg::Symbols => OrderFormat::Symbols,
            OrderFormatArg::Ld64 => OrderFormat::Ld64,
            OrderFormatArg::Sections => OrderFormat::Sections,
            OrderFormatArg::GnuLd => OrderFormat::GnuLd,
        }
    };
    match pipeline::order(&req) {
        Ok(m) => {
            if mode == Mode::Native {
                messages::print("pgo-merge", &m, false);
            }
            EXIT_OK
        }
        Err(e) => messages::error("pgo-merge", &e, mode),
    }
}
