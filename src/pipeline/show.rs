//! The `show` job: describes inputs of every format — LLVM profiles as llvm-profdata's
//! `show` does (or as JSON), iprof profiles, jitdumps, perf maps and r2rmaps — and writes
//! the report.

use std::path::{Path, PathBuf};

use super::Message;
use super::output::{self, Destination};
use crate::backends::debug_info;
#[cfg(feature = "jit")]
use crate::backends::jit_show;
use crate::backends::show::{self, ShowOptions};
use crate::error::{Error, ErrorKind, Result, Warning};
#[cfg(feature = "jit")]
use crate::frontends::open;
#[cfg(feature = "iprof")]
use crate::frontends::open::IprofReadOptions;
use crate::frontends::open::{FormatKind, InputFile, LlvmReader, describe_debug_info};

/// What to show.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ShowRequest {
    /// The files, in order.
    pub files: Vec<PathBuf>,
    /// What to print of LLVM profiles.
    pub options: ShowOptions,
    /// Print `--profile-version` (the raw version word or the index version).
    pub profile_version: bool,
    /// A JSON document (`schemas/show.schema.json`) instead of text, for every format but
    /// sample profiles (`show --sample` has a request of its own).
    pub json: bool,
    /// Where the report goes (`None` or `-`: standard output).
    pub output: Option<PathBuf>,
    /// llvm-profdata's output exactly: no reader warnings, no trailing format line.
    pub llvm_profdata: bool,
    /// Describe the counters that this binary's debug info holds (a build with `-g -mllvm
    /// -profile-correlate=debug-info`) instead of the files, as `llvm-profdata show
    /// --debug-info` does.
    pub debug_info: Option<PathBuf>,
    /// With [`ShowRequest::debug_info`]: the probes in LLVM's YAML.
    pub yaml: bool,
    /// With [`ShowRequest::debug_info`]: list the function names (`--show-prof-sym-list`).
    pub symbol_list: bool,
    /// With [`ShowRequest::debug_info`]: warnings shown about incomplete counters DIEs (0:
    /// all).
    pub max_correlation_warnings: usize,
}

/// True when `input` and `output` name the same file: the same spelling, or the same file
/// (device and inode) by whatever names. Writing the report there would destroy the input.
pub(crate) fn same_file(input: &Path, output: &Path) -> bool {
    super::inputs::same_file(input, output)
}

/// Describes the files of `r` and writes the report; returns the readers' warnings.
pub fn show(r: &ShowRequest) -> Result<Vec<Message>> {
    if let Some(o) = &r.output
        && let Some(same) = r.files.iter().find(|f| same_file(f, o))
    {
        return Err(Error::new(ErrorKind::Usage(format!(
            "{}: Input file name cannot be the same as the output file name!",
            same.display()
        ))));
    }
    #[cfg(not(feature = "json"))]
    if r.json {
        return Err(Error::new(ErrorKind::FeatureDisabled {
            what: "JSON output",
            feature: "json",
        }));
    }
    let report = match &r.debug_info {
        Some(binary) => render_debug_info(r, binary)?,
        None => render(r)?,
    };
    let dest = Destination::of(r.output.as_deref().unwrap_or(Path::new("-")));
    output::write_bytes(&dest, report.0.as_bytes())?;
    Ok(report.1)
}

/// The report of `r`, and the readers' warnings.
fn render(r: &ShowRequest) -> Result<(String, Vec<Message>)> {
    let mut opts = r.options.clone();
    let reader = LlvmReader::new();
    let mut out = String::new();
    #[cfg(feature = "json")]
    let mut docs = Vec::new();
    let mut messages = Vec::new();
    let several = r.files.len() > 1;
    for (i, path) in r.files.iter().enumerate() {
        let file = InputFile::open(path)?.inflated()?;
        let kind = FormatKind::sniff(file.bytes());
        kind.check_feature(file.bytes())?;
        #[cfg(feature = "bolt")]
        if let Some(format) = super::bolt_show::sniff(file.bytes()) {
            // BOLT profiles (fdata, YAML): totals, hottest functions and branches.
            let shown = super::bolt_show::show_one(
                file.bytes(),
                format,
                path,
                (&r.options, r.profile_version),
                r.json,
            )
            .map_err(|e| file.or_changed(e))?;
            file.check_unchanged()?;
            match shown {
                #[cfg(feature = "json")]
                super::bolt_show::Shown::Json(doc) => docs.push(doc),
                super::bolt_show::Shown::Text(text) => {
                    if several {
                        if i > 0 {
                            out.push('\n');
                        }
                        out.push_str(&format!("==> {} <==\n", path.display()));
                    }
                    out.push_str(&text);
                }
            }
            continue;
        }
        #[cfg(feature = "jit")]
        if matches!(
            kind,
            FormatKind::JitDump | FormatKind::PerfMap | FormatKind::R2rMap
        ) {
            // Inputs of `symbolize`: records/entries, functions, address range, warnings.
            let described =
                open::describe_code(kind, file.bytes()).map_err(|e| file.or_changed(e))?;
            // Maps and jitdumps of a running process grow: what was read is still whole.
            file.check_not_shrunk()?;
            #[cfg(feature = "json")]
            if r.json {
                docs.push(jit_show::json(&path.display().to_string(), &described));
                continue;
            }
            let report = jit_show::render(&described);
            if several {
                out.push_str(&format!("==> {} <==\n", path.display()));
            }
            out.push_str(&report);
            continue;
        }
        #[cfg(feature = "iprof")]
        if kind == FormatKind::Iprof {
            // GraalVM profiles: sections, sizes and the reduction a canonical write gives.
            let read = IprofReadOptions {
                lenient: false,
                referenced_symbols_only: false,
            };
            let report = super::iprof::show_report(path, read, &Default::default(), false)
                .map_err(|e| e.with_path(path))?;
            // The reader's warnings (unknown keys, ...): the report has no line for them.
            messages.extend(
                report
                    .warnings
                    .iter()
                    .map(|w| Message::Warning(w.clone().with_path(path))),
            );
            #[cfg(feature = "json")]
            if r.json {
                docs.push(report.to_json(&path.display().to_string()));
                continue;
            }
            if several {
                out.push_str(&format!("==> {} <==\n", path.display()));
            }
            out.push_str(&format!("{report}"));
            if !out.ends_with('\n') {
                out.push('\n');
            }
            continue;
        }
        let read = reader.read(file.bytes()).map_err(|e| file.or_changed(e))?;
        if !r.llvm_profdata {
            messages.extend(
                read.warnings
                    .iter()
                    .map(|w| Message::Warning(w.clone().with_path(path))),
            );
        }
        let name = path.display().to_string();
        #[cfg(feature = "json")]
        if r.json {
            docs.push(show::render_json(
                &read.profile,
                &opts,
                &name,
                &read.profile.provenance.format,
            ));
            file.check_unchanged()?;
            continue;
        }
        if several {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&format!("==> {name} <==\n"));
        }
        opts.profile_version = r.profile_version.then_some(read.version);
        opts.text_input = read.format == FormatKind::TextProfile;
        // llvm-profdata prints the `Binary IDs:` header for a raw profile only when it has
        // binary IDs (an indexed profile always has the header, except in LLVM 14).
        let no_header = if read.raw {
            read.profile.binary_ids.is_empty()
        } else {
            r.options.llvm_release.is_some_and(|v| v <= 14)
        };
        opts.binary_ids = r.options.binary_ids && !no_header;
        out.push_str(&show::render_text(&read.profile, &opts));
        if !r.llvm_profdata && !opts.text && !opts.covered {
            out.push_str(&format!(
                "Profile format: {}; flags: {}\n",
                read.profile.provenance.format, read.profile.kind
            ));
        }
        // The report was made from the file's bytes: they must still be the file's.
        file.check_unchanged()?;
    }
    #[cfg(feature = "json")]
    if r.json {
        let v = if docs.len() == 1 {
            docs.pop().unwrap_or_default()
        } else {
            serde_json::Value::Array(docs)
        };
        out = serde_json::to_string_pretty(&v).unwrap_or_default();
        out.push('\n');
    }
    Ok((out, messages))
}

/// `show --debug-info`: what the debug info of `binary` says about its counters.
fn render_debug_info(r: &ShowRequest, binary: &Path) -> Result<(String, Vec<Message>)> {
    if r.json {
        return Err(Error::new(ErrorKind::Usage(
            "JSON output is not supported for debug info correlation".into(),
        )));
    }
    let file = InputFile::open(binary)?;
    let (counters, mut warnings) = describe_debug_info(binary, file.bytes())?;
    file.check_unchanged()?;
    let max = r.max_correlation_warnings;
    if max > 0 && warnings.len() > max {
        let rest = warnings.len() - max;
        warnings.truncate(max);
        warnings.push(Warning::new(format!(
            "{rest} more debug-info warnings not shown"
        )));
    }
    let text = if r.yaml {
        debug_info::render_yaml(&counters, r.options.llvm_release)
    } else {
        debug_info::render_text(
            &counters,
            r.symbol_list,
            r.options.detailed_summary,
            r.options.llvm_release,
        )
    };
    Ok((text, warnings.into_iter().map(Message::Warning).collect()))
}
