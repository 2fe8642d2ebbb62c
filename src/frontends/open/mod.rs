//! The read side's one entry point for the driver: opens and sniffs inputs of every family
//! and hands back format-neutral values, so that `pipeline/` names no format's reader.
//!
//! As `object::read::File::parse` hides formats behind one value, each family has one way
//! in, and what comes out is IR or a value that says nothing of the encoding it came from:
//!
//! | family | way in | what comes out |
//! |---|---|---|
//! | LLVM instrumentation profiles, merged | [`MergeReader::read`] | [`MergeInput`]: records, or counters where they lie, described by a layout |
//! | LLVM instrumentation profiles, shown or compared | [`LlvmReader::read`] | [`ReadOutput`]: an `ir::Profile` with its warnings and detected format |
//! | LLVM sample profiles | [`SampleReader`] | `ir::sample` profiles, in flat or tree form ([`SampleRead`]), or the extbinary section table ([`SectionInfo`]) |
//! | GraalVM `.iprof` | [`IprofReader`], [`read_iprof_file`] | context trees ([`Lowered`]), in a profile of their own or added to a shared one ([`TreeInto`]) |
//! | jitdumps, perf maps, r2rmaps | [`code_source`], [`describe_code`] | `ir::code::CodeSource`, `ir::code::CodeDescription` |
//! | `perf script` text | [`sampled_stacks`] | an `ir::code::SampleSource` |
//! | lightweight raw profiles (`-profile-correlate=binary`) | [`Correlator::apply`], with the binaries named | the same input, its data records and names put back from its binary |
//! | BOLT fdata | [`FdataReader`] | `ir::bolt::FdataLine` views of the record lines, and the header mode |
//! | BOLT YAML | [`read_bolt_yaml`] | an `ir::bolt_yaml::YamlProfile` |
//! | BOLT profiles, shown or compared | [`read_report`] (after [`sniff_bolt`]) | an `ir::bolt_report::BranchProfile` |
//!
//! Detection results ([`FormatKind`]), the mapped input ([`InputFile`]) and the name of a
//! file's type ([`file_type_name`]) are format-neutral and handed on as they are. Options
//! a family's reader takes are part of its way in (`IprofReadOptions`; the sample reader is
//! built from the LLVM release it follows). `tests/integration/architecture.rs` checks that
//! `pipeline/` names no other module of `frontends`.

#[cfg(feature = "bolt")]
mod bolt;
#[cfg(feature = "jit")]
mod code;
#[cfg(feature = "correlate")]
mod correlate;
// Without the feature, the same names refuse lightweight profiles' binaries.
#[cfg(not(feature = "correlate"))]
#[path = "correlate_off.rs"]
mod correlate;
#[cfg(feature = "iprof")]
mod iprof;
#[cfg(feature = "sample")]
mod sample;

pub use super::ReadOutput;
pub use super::detect::FormatKind;
pub use super::input::{InputFile, file_type_name};
pub use super::merge_input::{Known, MergeInput, MergeReader, Part, Parts};
pub use crate::ir::correlation::CorrelateKind;
#[cfg(feature = "bolt")]
pub use bolt::{
    FdataReader, looks_like_bolt_profile, looks_like_bolt_yaml, read_bolt_yaml, read_report,
    sniff_bolt,
};
#[cfg(feature = "jit")]
pub use code::{CodeInput, code_source, describe_code, sampled_stacks};
pub use correlate::{Correlator, describe_debug_info};
#[cfg(feature = "iprof")]
pub use iprof::{CountScale, IprofReadOptions, IprofReader, Lowered, TreeInto, read_iprof_file};
#[cfg(feature = "sample")]
pub use sample::{SampleRead, SampleReader, SectionInfo};

use crate::error::Result;
use std::path::PathBuf;

/// A binary named for the inputs a pattern matches (`--binary-for GLOB BIN`,
/// `--debug-info-for GLOB BIN`), as the request gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputPairing {
    /// The shell-style pattern (see `Correlator::with_pairings`).
    pub pattern: String,
    /// How the binary is read.
    pub kind: CorrelateKind,
    /// The binary (or its debug file).
    pub binary: PathBuf,
}

impl InputPairing {
    /// The option that names such a pairing, for messages.
    pub fn option(&self) -> &'static str {
        match self.kind {
            CorrelateKind::Binary => "--binary-for",
            CorrelateKind::DebugInfo => "--debug-info-for",
        }
    }
}

/// Reads whole LLVM instrumentation profiles of any format (raw, indexed, text) into IR, for
/// `show`, `overlap`, conversions and `--normalize`'s first pass. One reader serves every
/// input of a job: it keeps the decoded names of raw files, shared by raw files of the same
/// binary.
#[derive(Default)]
pub struct LlvmReader {
    names: super::NameCache,
}

impl LlvmReader {
    /// A reader with nothing cached.
    pub fn new() -> Self {
        Self::default()
    }

    /// The profile in `data`, its format detected from its first bytes; a file of another
    /// family is refused with an error that says what it is and where it goes instead.
    pub fn read<'a>(&self, data: &'a [u8]) -> Result<ReadOutput<'a>> {
        super::read(data, &self.names)
    }
}
