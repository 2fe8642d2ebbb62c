//! `pgo-merge overlap BASE TEST`: overlap arguments → [`OverlapRequest`].

use pgo_merge::pipeline::{self, OverlapRequest, SampleOverlapOptions, SampleOverlapRequest};

use super::args::OverlapArgs;
use super::{EXIT_OK, Mode, messages};

/// Runs `overlap`; returns the exit code.
pub fn run_overlap(a: OverlapArgs, mode: Mode) -> i32 {
    if a.sample {
        return run_sample_overlap(a, mode);
    }
    // llvm-profdata ignores these without --sample; we say so, natively.
    if mode == Mode::Native
        && let Some(opt) = [
            (a.similarity_cutoff != 0, "--similarity-cutoff"),
            (
                a.fs.fs_discriminator_pass.is_some(),
                "--fs-discriminator-pass",
            ),
            (a.fs.profile_is_fs, "--profile-isfs"),
        ]
        .iter()
        .find_map(|(on, name)| on.then_some(*name))
    {
        eprintln!("pgo-merge: error: {opt} applies to sample profiles: add --sample");
        return mode.usage_code();
    }
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

/// `overlap --sample`: two sample profiles compared as llvm-profdata compares them (the
/// report is llvm-profdata's in both modes).
fn run_sample_overlap(a: OverlapArgs, mode: Mode) -> i32 {
    let req = SampleOverlapRequest {
        base: a.base,
        test: a.test,
        options: SampleOverlapOptions {
            similarity_cutoff: a.similarity_cutoff,
            value_cutoff: a.value_cutoff.unwrap_or(u64::MAX),
            function: a.function.unwrap_or_default(),
        },
        target_llvm: a.target_llvm,
        output: a.output,
        fs_discriminator_pass: a.fs.fs_discriminator_pass.unwrap_or_default(),
        profile_is_fs: a.fs.profile_is_fs,
    };
    match pipeline::overlap_sample(&req) {
        Ok(()) => EXIT_OK,
        Err(e) => messages::error("pgo-merge", &e, mode),
    }
}
