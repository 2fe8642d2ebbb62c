//! `pgo-merge show`: describe profiles of any input format.

use super::args::ShowArgs;
use super::merge::emit_report;
use super::{EXIT_FAILURE, Mode};
use crate::backends::show::{self, FunctionFilter, ShowOptions};
use crate::frontends::{self, InputFile, profraw::NameCache};

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
    let mut opts = ShowOptions {
        all_functions: a.all_functions,
        counts: a.counts,
        ic_targets: a.ic_targets,
        vtables: a.show_vtables,
        memop_sizes: a.memop_sizes,
        detailed_summary: a.detailed_summary,
        detailed_cutoffs: a.detailed_summary_cutoffs.clone(),
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
    };
    if let Some(o) = &a.output
        && let Some(same) = a.files.iter().find(|f| same_file(f, o))
    {
        eprintln!(
            "pgo-merge: error: {}: Input file name cannot be the same as the output file name!",
            same.display()
        );
        return EXIT_FAILURE;
    }
    let cache = NameCache::new();
    let mut out = String::new();
    let mut docs = Vec::new();
    for (i, path) in a.files.iter().enumerate() {
        let file = match InputFile::open(path) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("pgo-merge: error: {e}");
                return EXIT_FAILURE;
            }
        };
        let kind = crate::detect::FormatKind::sniff(file.bytes());
        if matches!(
            kind,
            crate::detect::FormatKind::JitDump
                | crate::detect::FormatKind::PerfMap
                | crate::detect::FormatKind::R2rMap
        ) {
            // Inputs of `symbolize`: records/entries, functions, address range, warnings.
            if json {
                eprintln!(
                    "pgo-merge: error: {}: --json is not available for a {}",
                    path.display(),
                    kind.name()
                );
                return EXIT_FAILURE;
            }
            use crate::backends::jit_show;
            use crate::frontends::code_regions as cr;
            let report = match kind {
                crate::detect::FormatKind::JitDump => {
                    cr::describe_jitdump(file.bytes()).map(|d| jit_show::render_jitdump(&d))
                }
                crate::detect::FormatKind::R2rMap => {
                    cr::describe_r2rmap(file.bytes()).map(|d| jit_show::render_r2rmap(&d))
                }
                _ => Ok(jit_show::render_perf_map(&cr::describe_perf_map(
                    file.bytes(),
                ))),
            };
            match report {
                Ok(r) => {
                    if a.files.len() > 1 {
                        out.push_str(&format!("==> {} <==\n", path.display()));
                    }
                    out.push_str(&r);
                    continue;
                }
                Err(e) => {
                    eprintln!("pgo-merge: error: {}", e.with_path(path));
                    return EXIT_FAILURE;
                }
            }
        }
        if kind == crate::detect::FormatKind::Iprof {
            // GraalVM profiles: sections, sizes and the reduction a canonical write gives.
            if json {
                eprintln!(
                    "pgo-merge: error: {}: --json is not available for .iprof files",
                    path.display()
                );
                return EXIT_FAILURE;
            }
            let read = crate::frontends::iprof::ReadOptions {
                lenient: false,
                referenced_symbols_only: false,
            };
            match crate::passes::iprof_merge::show_report(path, read, &Default::default(), false) {
                Ok(report) => {
                    if a.files.len() > 1 {
                        out.push_str(&format!("==> {} <==\n", path.display()));
                    }
                    out.push_str(&format!("{report}"));
                    if !out.ends_with('\n') {
                        out.push('\n');
                    }
                    continue;
                }
                Err(e) => {
                    eprintln!("pgo-merge: error: {}", e.with_path(path));
                    return EXIT_FAILURE;
                }
            }
        }
        let r = match frontends::read(file.bytes(), &cache) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("pgo-merge: error: {}", e.with_path(path));
                return EXIT_FAILURE;
            }
        };
        if mode == Mode::Native {
            for w in &r.warnings {
                eprintln!("pgo-merge: warning: {}: {w}", path.display());
            }
        }
        let name = path.display().to_string();
        if json {
            docs.push(show::render_json(
                &r.profile,
                &opts,
                &name,
                &r.profile.provenance.format,
            ));
            continue;
        }
        if a.files.len() > 1 {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&format!("==> {name} <==\n"));
        }
        opts.profile_version = a.profile_version.then_some(r.version);
        opts.text_input = r.format == crate::detect::FormatKind::TextProfile;
        out.push_str(&show::render_text(&r.profile, &opts));
        if mode == Mode::Native && !a.text && !a.covered {
            out.push_str(&format!(
                "Profile format: {}; flags: {}\n",
                r.profile.provenance.format, r.profile.kind
            ));
        }
    }
    if json {
        let v = if docs.len() == 1 {
            docs.pop().unwrap_or_default()
        } else {
            serde_json::Value::Array(docs)
        };
        out = serde_json::to_string_pretty(&v).unwrap_or_default();
        out.push('\n');
    }
    emit_report(a.output.as_deref(), &out)
}

/// True when `input` and `output` name the same file: the same spelling, or (when both
/// exist) the same canonical path. Writing the listing there would destroy the input.
fn same_file(input: &std::path::Path, output: &std::path::Path) -> bool {
    if input == output {
        return true;
    }
    match (std::fs::canonicalize(input), std::fs::canonicalize(output)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
