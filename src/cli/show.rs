//! `pgo-merge show`: show arguments → [`ShowRequest`].

use pgo_merge::pipeline::{
    self, FunctionFilter, SampleShowOptions, SampleShowRequest, ShowOptions, ShowRequest,
};

use super::args::ShowArgs;
use super::{EXIT_OK, Mode, messages};

/// Runs `show`; returns the exit code.
pub fn run_show(a: ShowArgs, mode: Mode) -> i32 {
    if a.debug_info.is_some() {
        return run_debug_info_show(a, mode);
    }
    let json = a.json
        || match a.show_format.as_deref() {
            None | Some("text") => false,
            Some("json") => true,
            // llvm-profdata's YAML is for `show --debug-info` only (above); its words.
            Some("yaml") if mode == Mode::LlvmProfdata => {
                let kind = if a.sample { "sample" } else { "instr" };
                eprintln!("error: YAML output is not supported for {kind} profiles");
                return mode.usage_code();
            }
            Some(other) => {
                eprintln!("pgo-merge: error: --show-format {other:?}: expected text or json");
                return mode.usage_code();
            }
        };
    if a.sample {
        return run_sample_show(a, json, mode);
    }
    // llvm-profdata ignores these without --sample; we say so, natively.
    if mode == Mode::Native
        && let Some(opt) = [
            (a.show_prof_sym_list, "--show-prof-sym-list"),
            (a.show_sec_info_only, "--show-sec-info-only"),
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
    let function = match (&a.function, mode) {
        (None, _) => None,
        (Some(f), Mode::LlvmProfdata) => Some(FunctionFilter::Substring(f.clone())),
        (Some(f), Mode::Native) => match regex::Regex::new(f) {
            Ok(r) => Some(FunctionFilter::Regex(r)),
            Err(e) => {
                eprintln!("pgo-merge: error: --function {f:?}: {e}");
                return mode.usage_code();
            }
        },
    };
    let mut req = ShowRequest::default();
    req.files = a.files;
    req.options = {
        let mut new_show_options = ShowOptions::default();
        new_show_options.all_functions = a.all_functions;
        new_show_options.counts = a.counts;
        new_show_options.ic_targets = a.ic_targets;
        new_show_options.vtables = a.show_vtables;
        new_show_options.memop_sizes = a.memop_sizes;
        new_show_options.detailed_summary = a.detailed_summary;
        new_show_options.detailed_cutoffs = a.detailed_summary_cutoffs;
        new_show_options.showcs = a.showcs;
        new_show_options.text = a.text;
        new_show_options.binary_ids = a.binary_ids;
        new_show_options.temporal_traces = a.temporal_profile_traces;
        new_show_options.topn = a.topn;
        new_show_options.function = function;
        new_show_options.value_cutoff = a.value_cutoff;
        new_show_options.list_below_cutoff = a.list_below_cutoff;
        new_show_options.covered = a.covered;
        new_show_options.hot_func_list = a.hot_func_list;
        new_show_options.profile_version = None;
        new_show_options.text_input = false;
        // The drop-in prints what the release it follows prints.
        new_show_options.llvm_release = if mode == Mode::LlvmProfdata {
            a.target_llvm
        } else {
            None
        };
        new_show_options
    };
    req.profile_version = a.profile_version;
    req.json = json;
    req.output = a.output;
    req.llvm_profdata = mode == Mode::LlvmProfdata;
    show_request(&req, mode)
}

/// `show --sample`: one sample profile, as llvm-profdata shows it.
fn run_sample_show(a: ShowArgs, json: bool, mode: Mode) -> i32 {
    let refuse = |what: &str| {
        let e = pgo_merge::Error::new(pgo_merge::ErrorKind::Request(format!(
            "{what} is not supported with --sample yet"
        )));
        messages::error("pgo-merge", &e, mode)
    };
    if a.files.len() != 1 {
        return refuse("showing more than one file");
    }
    // As llvm-profdata: --all-functions wins over --function.
    if a.all_functions && a.function.is_some() {
        eprintln!("warning: -function argument ignored: showing all functions");
    }
    let function = if a.all_functions {
        None
    } else {
        a.function.clone()
    };
    let mut req = SampleShowRequest::default();
    req.file = a.files[0].clone();
    req.options = {
        let mut new_sample_show_options = SampleShowOptions::default();
        new_sample_show_options.function = function;
        new_sample_show_options.json = json;
        new_sample_show_options.detailed_summary = a.detailed_summary;
        new_sample_show_options.llvm = a.target_llvm.unwrap_or(0);
        new_sample_show_options.symbol_list = a.show_prof_sym_list;
        new_sample_show_options.hot_func_list = a.hot_func_list;
        new_sample_show_options.topn = a.topn;
        new_sample_show_options
    };
    req.section_info_only = a.show_sec_info_only;
    req.target_llvm = a.target_llvm;
    req.output = a.output.clone();
    req.fs_discriminator_pass = a.fs.fs_discriminator_pass.unwrap_or_default();
    req.profile_is_fs = a.fs.profile_is_fs;
    match pipeline::show_sample(&req) {
        Ok(warnings) => {
            print_warnings(&warnings, mode);
            EXIT_OK
        }
        Err(e) => messages::error("pgo-merge", &e, mode),
    }
}

/// Warnings of a sample job: as llvm-profdata prints them (`warning: …`) in the drop-in,
/// with our prefix otherwise.
fn print_warnings(warnings: &[pgo_merge::pipeline::Message], mode: Mode) {
    if mode == Mode::LlvmProfdata {
        for w in warnings {
            if let pgo_merge::pipeline::Message::Warning(w) = w {
                eprintln!("warning: {}", w.message);
            }
        }
    } else {
        messages::print("pgo-merge", warnings, false);
    }
}

/// `show --debug-info BINARY`: the counters a lightweight build's debug info describes.
fn run_debug_info_show(a: ShowArgs, mode: Mode) -> i32 {
    let (json, yaml) = match a.show_format.as_deref() {
        None | Some("text") => (a.json, false),
        Some("json") => (true, false),
        Some("yaml") => (false, true),
        Some(other) => {
            eprintln!("pgo-merge: error: --show-format {other:?}: expected text, json or yaml");
            return mode.usage_code();
        }
    };
    let mut req = ShowRequest::default();
    req.debug_info = a.debug_info;
    req.json = json;
    req.yaml = yaml;
    req.symbol_list = a.show_prof_sym_list;
    req.options.detailed_summary = a.detailed_summary;
    req.options.llvm_release = (mode == Mode::LlvmProfdata)
        .then_some(a.target_llvm)
        .flatten();
    req.max_correlation_warnings = a.max_debug_info_correlation_warnings;
    req.output = a.output;
    req.llvm_profdata = mode == Mode::LlvmProfdata;
    show_request(&req, mode)
}

/// Runs a show request: its warnings printed, its exit code returned.
fn show_request(req: &ShowRequest, mode: Mode) -> i32 {
    match pipeline::show(req) {
        Ok(warnings) => {
            messages::print("pgo-merge", &warnings, false);
            EXIT_OK
        }
        Err(e) => messages::error("pgo-merge", &e, mode),
    }
}
