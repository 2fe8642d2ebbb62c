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
    let mut req = OverlapRequest::default();
    req.base = a.base;
    req.test = a.test;
    req.cs = a.cs;
    req.value_cutoff = a.value_cutoff;
    req.function = a.function;
    req.top_differences = a.top_differences;
    req.output = a.output;
    req.llvm_profdata = mode == Mode::LlvmProfdata;
    req.llvm_release = if mode == Mode::LlvmProfdata {
        a.target_llvm
    } else {
        None
    };
    req.json = a.json;
    match pipeline::overlap(&req) {
        Ok(()) => EXIT_OK,
        Err(e) => messages::error("pgo-merge", &e, mode),
    }
}

/// `overlap --sample`: two sample profiles compared as llvm-profdata compares them (the
/// report is llvm-profdata's in both modes).
fn run_sample_overlap(a: OverlapArgs, mode: Mode) -> i32 {
    let mut req = SampleOverlapRequest::default();
    req.base = a.base;
    req.test = a.test;
    req.options = {
        let mut new_sample_overlap_options = SampleOverlapOptions::default();
        new_sample_overlap_options.similarity_cutoff = a.similarity_cutoff;
        new_sample_overlap_options.value_cutoff = a.value_cutoff.unwrap_or(u64::MAX);
        new_sample_overlap_options.function = a.function.unwrap_or_default();
        new_sample_overlap_options
    };
    req.target_llvm = a.target_llvm;
    req.output = a.output;
    req.fs_discriminator_pass = a.fs.fs_discriminator_pass.unwrap_or_default();
    req.profile_is_fs = a.fs.profile_is_fs;
    req.json = a.json;
    match pipeline::overlap_sample(&req) {
        Ok(()) => EXIT_OK,
        Err(e) => messages::error("pgo-merge", &e, mode),
    }
}
