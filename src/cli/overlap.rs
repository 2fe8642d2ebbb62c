//! `pgo-merge overlap BASE TEST`: overlap arguments → [`OverlapRequest`].

use pgo_merge::pipeline::{self, OverlapRequest};

use super::args::OverlapArgs;
use super::{EXIT_OK, Mode, messages};

/// Runs `overlap`; returns the exit code.
pub fn run_overlap(a: OverlapArgs, mode: Mode) -> i32 {
    let req = OverlapRequest {
        base: a.base,
        test: a.test,
        cs: a.cs,
        value_cutoff: a.value_cutoff,
        function: a.function,
        top_differences: a.top_differences,
        output: a.output,
        llvm_profdata: mode == Mode::LlvmProfdata,
    };
    match pipeline::overlap(&req) {
        Ok(()) => EXIT_OK,
        Err(e) => messages::error("pgo-merge", &e, mode),
    }
}
