//! The inputs of JIT symbolisation: code regions (jitdumps, perf maps, r2rmaps) and sampled
//! stacks (`perf script` text), as the IR of `ir::code`.

use std::path::Path;

use super::{FormatKind, InputFile};
use crate::error::Result;
use crate::frontends::code_regions as regions;
use crate::frontends::perf_script::PerfScriptReader;
use crate::ir::code::{CodeDescription, CodeSource, SampleSource};

/// What a file given as a source of code regions is taken to be (the user says so: the
/// option it was given with).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeInput {
    /// A jitdump.
    JitDump,
    /// A `perf-PID.map` (the pid comes from the file name).
    PerfMap,
    /// A ReadyToRun map of an image loaded at `base`.
    R2rMap {
        /// The image's load address.
        base: u64,
    },
}

/// The code regions of `file` (found at `path`, which names them and may give the pid),
/// read as `input` says. Errors carry the path, or say that the file changed.
pub fn code_source<'a>(
    file: &'a InputFile,
    path: &Path,
    input: CodeInput,
) -> Result<CodeSource<'a>> {
    let data = file.bytes();
    match input {
        CodeInput::JitDump => regions::jitdump_source(path, data).map_err(|e| file.or_changed(e)),
        CodeInput::PerfMap => Ok(regions::perf_map_source(path, data)),
        CodeInput::R2rMap { base } => {
            regions::r2rmap_source(path, data, base).map_err(|e| file.or_changed(e))
        }
    }
}

/// What `show` reports of `data`, detected as `kind` (a jitdump or an r2rmap; anything else
/// is read as a perf map, whose lines that do not parse are reported).
pub fn describe_code(kind: FormatKind, data: &[u8]) -> Result<CodeDescription> {
    Ok(match kind {
        FormatKind::JitDump => CodeDescription::JitDump(regions::describe_jitdump(data)?),
        FormatKind::R2rMap => CodeDescription::R2rMap(regions::describe_r2rmap(data)?),
        _ => CodeDescription::PerfMap(regions::describe_perf_map(data)),
    })
}

/// The sampled stacks of `perf script` text in `data`, in whatever `-F` layout it was
/// written.
pub fn sampled_stacks(data: &[u8]) -> impl SampleSource<'_> {
    PerfScriptReader::new(data)
}
