//! The `symbolize` job: sampled stacks (`perf script` text) plus the code regions of
//! jitdumps, perf maps and r2rmaps become folded stacks or an iprof sampling profile.

use std::path::PathBuf;

use super::output::{self, Destination};
use super::{Message, request_error};
use crate::error::{Result, Warning};
use crate::frontends::open::{CodeInput, InputFile, code_source, sampled_stacks};
use crate::passes::symbolize::{
    MethodSamples, SymbolizeOptions, SymbolizeStats, SymbolizerBuilder, method_samples,
    symbolize as resolve,
};

/// The output format of `symbolize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SymbolizeFormat {
    /// An iprof with `samplingProfiles`.
    Iprof,
    /// Folded stacks (`comm;outer;…;inner COUNT`).
    Folded,
}

/// What to symbolise.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SymbolizeRequest {
    /// `perf script` text.
    pub perf_script: PathBuf,
    /// Jitdumps.
    pub jitdumps: Vec<PathBuf>,
    /// Perf maps (`perf-PID.map`; the pid comes from the name).
    pub perf_maps: Vec<PathBuf>,
    /// r2rmaps with their load addresses.
    pub r2rmaps: Vec<(PathBuf, u64)>,
    /// The output (`-` for standard output).
    pub output: PathBuf,
    /// The output format; `None` chooses by the output's extension (`.iprof`, `.folded`).
    pub format: Option<SymbolizeFormat>,
    /// Nanoseconds a sample may precede the load of the code it hit.
    pub load_time_slack_ns: u64,
    /// Take every sample to be of this process (`--pid`).
    pub pid: Option<u32>,
    /// Also compute the methods with the most samples (for a summary).
    pub top_methods: bool,
}

/// What `symbolize` did.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct SymbolizeOutcome {
    /// Frame counts.
    pub stats: SymbolizeStats,
    /// Distinct stacks.
    pub stacks: usize,
    /// The methods with the most samples (when asked for).
    pub top_methods: Vec<MethodSamples>,
    /// Warnings about the code-region inputs.
    pub messages: Vec<Message>,
}

/// Splits `FILE@BASE`; BASE is hex with `0x` or decimal. A path that itself contains `@`
/// needs an explicit `@BASE` (the last `@` separates). FILE is taken as given, whatever bytes
/// it holds.
pub fn parse_r2r_arg(s: &std::ffi::OsStr) -> Result<(PathBuf, u64)> {
    match super::inputs::split_os(s, b'@', true) {
        Some((file, base)) if !file.is_empty() => {
            let base = base.to_string_lossy();
            let b = base.trim();
            let v = match b.strip_prefix("0x").or_else(|| b.strip_prefix("0X")) {
                Some(h) => u64::from_str_radix(h, 16),
                None => b.parse::<u64>(),
            }
            .map_err(|_| {
                request_error(format!(
                    "--r2rmap {:?}: BASE {base:?} is not a number (hex with 0x, or decimal)",
                    s.to_string_lossy()
                ))
            })?;
            Ok((PathBuf::from(file), v))
        }
        _ => Ok((PathBuf::from(s), 0)),
    }
}

fn output_format(r: &SymbolizeRequest) -> Result<SymbolizeFormat> {
    if let Some(f) = r.format {
        return Ok(f);
    }
    let name = r.output.to_string_lossy();
    if name == "-" {
        return Err(request_error(
            "writing to standard output (`-o -`) needs --output-format",
        ));
    }
    if name.ends_with(".iprof") {
        Ok(SymbolizeFormat::Iprof)
    } else if name.ends_with(".folded") {
        Ok(SymbolizeFormat::Folded)
    } else {
        Err(request_error(format!(
            "{}: the output's extension must be .iprof or .folded (or pass --output-format)",
            r.output.display()
        )))
    }
}

/// Checks the request before anything is read: the output format, at least one source of
/// code regions, and an output that is not one of the inputs. `Ok(Some(path))` names an
/// input the output would overwrite.
pub fn check(r: &SymbolizeRequest) -> Result<Option<PathBuf>> {
    output_format(r)?;
    if r.jitdumps.is_empty() && r.perf_maps.is_empty() && r.r2rmaps.is_empty() {
        return Err(request_error(
            "give at least one --jitdump, --perf-map or --r2rmap",
        ));
    }
    let inputs = r
        .jitdumps
        .iter()
        .chain(&r.perf_maps)
        .map(PathBuf::as_path)
        .chain(r.r2rmaps.iter().map(|(p, _)| p.as_path()))
        .chain(std::iter::once(r.perf_script.as_path()));
    for p in inputs {
        if super::show::same_file(p, &r.output) {
            return Ok(Some(p.to_path_buf()));
        }
    }
    Ok(None)
}

/// Reads the code regions and the samples, resolves the samples' unknown frames and
/// writes the stacks. Call [`check`] first.
pub fn symbolize(r: &SymbolizeRequest) -> Result<SymbolizeOutcome> {
    let format = output_format(r)?;
    let mut b = SymbolizerBuilder::new();
    // Jitdumps and perf maps of a process that still runs grow while they are read; what
    // was read is then still the beginning of the file, which is fine. A file that shrank is
    // not (`check_not_shrunk`).
    for p in &r.jitdumps {
        let f = InputFile::open(p)?;
        b.add_source(code_source(&f, p, CodeInput::JitDump)?)?;
        f.check_not_shrunk()?;
    }
    for p in &r.perf_maps {
        let f = InputFile::open(p)?;
        b.add_source(code_source(&f, p, CodeInput::PerfMap)?)?;
        f.check_not_shrunk()?;
    }
    for (p, base) in &r.r2rmaps {
        let f = InputFile::open(p)?;
        b.add_source(code_source(&f, p, CodeInput::R2rMap { base: *base })?)?;
        f.check_unchanged()?;
    }
    let sym = b.build()?;
    let mut messages: Vec<Message> = sym
        .warnings
        .iter()
        .map(|w| Message::Warning(w.clone()))
        .collect();
    let script = InputFile::open(&r.perf_script)?;
    let opts = SymbolizeOptions {
        load_time_slack_ns: r.load_time_slack_ns,
        pid: r.pid,
    };
    let stacks =
        resolve(&sym, sampled_stacks(script.bytes()), &opts).map_err(|e| script.or_changed(e))?;
    script.check_not_shrunk()?;
    messages.extend(
        stacks
            .stats
            .warnings()
            .into_iter()
            .map(|w| Message::Warning(Warning::new(w).with_path(&r.perf_script))),
    );
    let profile = (format == SymbolizeFormat::Iprof || r.top_methods).then(|| stacks.to_iprof());
    let dest = Destination::of(&r.output);
    match format {
        SymbolizeFormat::Folded => {
            let mut buf = Vec::new();
            stacks.write_folded(&mut buf)?;
            output::write_bytes(&dest, &buf)?;
        }
        SymbolizeFormat::Iprof => {
            if let Some(p) = &profile {
                super::merge::write_iprof(&dest, p)?;
            }
        }
    }
    Ok(SymbolizeOutcome {
        stats: stacks.stats,
        stacks: stacks.stacks.len(),
        top_methods: match (&profile, r.top_methods) {
            (Some(p), true) => method_samples(p).into_iter().take(10).collect(),
            _ => Vec::new(),
        },
        messages,
    })
}
