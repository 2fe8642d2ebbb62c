//! `pgo-merge show`: show arguments → [`ShowRequest`].

use pgo_merge::pipeline::{
    self, FunctionFilter, SampleShowOptions, SampleShowRequest, ShowOptions, ShowRequest,
};

use super::args::ShowArgs;
use super::{EXIT_OK, Mode, messages};

/// Runs `show`; returns the exit code.
pub fn run_show(a: ShowArgs, mode: Mode) -> i32 {
    let json = a.json
        || match a.show_format.as_deref() {
            None | Some("text") => false,
            Some("json") => true,
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
    let req = ShowRequest {
        files: a.files,
        options: ShowOptions {
            all_functions: a.all_functions,
            counts: a.counts,
            ic_targets: a.ic_targets,
            vtables: a.show_vtables,
            memop_sizes: a.memop_sizes,
            detailed_summary: a.detailed_summary,
            detailed_cutoffs: a.detailed_summary_cutoffs,
            showcs: a.showcs,
            text: a.text,
            binary_ids: a.binary_ids,
            temporal_traces: a.temporal_profile_traces,
            topn: a.topn,
            function,
            value_cutoff: a.value_cutoff,
            list_below_cutoff: a.list_below_cutoff,
            covered: a.covered,
            hot_func_list: a.hot_func_list,
            profile_version: None,
            text_input: false,
        },
        profile_version: a.profile_version,
        json,
        output: a.output,
        llvm_profdata: mode == Mode::LlvmProfdata,
    };
    match pipeline::show(&req) {
        Ok(warnings) => {
            messages::print("pgo-merge", &warnings, false);
            EXIT_OK
        }
        Err(e) => messages::error("pgo-merge", &e, mode),
    }
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
    let req = SampleShowRequest {
        file: a.files[0].clone(),
        options: SampleShowOptions {
            function,
            json,
            detailed_summary: a.detailed_summary,
            llvm: a.target_llvm.unwrap_or(0),
            symbol_list: a.show_prof_sym_list,
            hot_func_list: a.hot_func_list,
            topn: a.topn,
        },
        section_info_only: a.show_sec_info_only,
        target_llvm: a.target_llvm,
        output: a.output.clone(),
        fs_discriminator_pass: a.fs.fs_discriminator_pass.unwrap_or_default(),
        profile_is_fs: a.fs.profile_is_fs,
    };
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
