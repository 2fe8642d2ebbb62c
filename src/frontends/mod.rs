//! Front-ends: turn input files into the IR.
//!
//! Library users reach every reader through one module, [`open`], the read side's entry
//! point, which hands back format-neutral values; the driver (`pipeline`) uses nothing else.
//! [`FormatKind::sniff`] detects a format from a file's first bytes and [`read`] reads a
//! whole LLVM instrumentation profile of any format. Inputs are memory-mapped
//! ([`InputFile`]) and front-ends borrow counters from the mapping instead of copying them; a
//! SIGBUS guard keeps a mapped file that another process truncates from ending the process,
//! and [`InputFile::check_unchanged`] reports such a file.
//!
//! Each format's own reader (`profraw`, `profdata`, `proftext`, `sample`, `iprof`, `bolt`,
//! `jitdump`, `perfmap`, `perf_script`, ...) is public only for this crate's tests and fuzz
//! targets, hidden from the documentation and not a stable interface.

#[cfg(feature = "bolt")]
#[doc(hidden)]
pub mod bolt;
#[cfg(feature = "jit")]
#[doc(hidden)]
pub mod code_regions;
#[cfg(feature = "correlate")]
#[doc(hidden)]
pub mod correlate;
#[doc(hidden)]
pub mod detect;
#[doc(hidden)]
pub mod fault_guard;
#[doc(hidden)]
pub mod gzip;
mod input;
#[cfg(feature = "iprof")]
#[doc(hidden)]
pub mod iprof;
#[cfg(feature = "jit")]
#[doc(hidden)]
pub mod jitdump;
#[doc(hidden)]
pub mod merge_input;
pub mod open;
#[cfg(feature = "jit")]
#[doc(hidden)]
pub mod perf_script;
#[cfg(feature = "jit")]
#[doc(hidden)]
pub mod perfmap;
#[doc(hidden)]
pub mod profdata;
#[doc(hidden)]
pub mod profraw;
#[doc(hidden)]
pub mod proftext;
#[cfg(feature = "sample")]
#[doc(hidden)]
pub mod sample;

use crate::error::{Error, ErrorKind, Result, Warning};
use crate::ir::Profile;
pub use detect::FormatKind;
pub use input::{DEFAULT_STREAM_LIMIT, InputFile, STREAM_LIMIT_ENV, file_type_name, stream_limit};
pub use merge_input::{MergeInput, MergeReader};
/// The cache of decoded raw-profile names sections that [`read`] takes.
pub use profraw::NameCache;

/// What a front-end produced from one input.
#[derive(Debug)]
pub struct ReadOutput<'a> {
    /// The profile.
    pub profile: Profile<'a>,
    /// Non-fatal problems found while reading.
    pub warnings: Vec<Warning>,
    /// A counter so large that the input is probably corrupt (raw inputs only).
    pub suspicious_counter: Option<profraw::SuspiciousCounter>,
    /// True for raw profiles (their temporal traces take the input's weight).
    pub raw: bool,
    /// The input's format.
    pub format: FormatKind,
    /// What `llvm-profdata show --profile-version` prints: the version word of a raw
    /// profile, the index version of an indexed one, 0 for text.
    pub version: u64,
}

impl<'a> ReadOutput<'a> {
    /// The implausibly large counter, if any, as (file offset, value).
    pub fn suspicious(&self) -> Option<(u64, u64)> {
        self.suspicious_counter
            .as_ref()
            .map(|s| (s.offset, s.value))
    }

    /// Wraps a profile built in memory.
    pub fn from_profile(profile: Profile<'a>) -> Self {
        ReadOutput {
            profile,
            warnings: Vec::new(),
            suspicious_counter: None,
            raw: false,
            format: FormatKind::Unknown,
            version: 0,
        }
    }
}

/// Reads a profile of any supported format from `data`.
pub fn read<'a>(data: &'a [u8], cache: &profraw::NameCache) -> Result<ReadOutput<'a>> {
    let kind = FormatKind::sniff(data);
    // A family this build leaves out: named with its feature rather than a step to take.
    kind.check_feature(data)?;
    match kind {
        FormatKind::RawProfile => {
            let r = profraw::read(data, cache)?;
            let version = r.headers.first().map_or(0, |h| h.version_word);
            Ok(ReadOutput {
                version,
                profile: r.profile,
                warnings: r.warnings,
                suspicious_counter: r.suspicious_counter,
                raw: true,
                format: FormatKind::RawProfile,
            })
        }
        FormatKind::Empty => Err(Error::at(0, ErrorKind::Empty)),
        FormatKind::IndexedProfile => {
            let r = profdata::read(data)?;
            Ok(ReadOutput {
                version: u64::from(r.version),
                profile: r.profile,
                warnings: r.warnings,
                suspicious_counter: None,
                raw: false,
                format: FormatKind::IndexedProfile,
            })
        }
        FormatKind::TextProfile => {
            let mut r = ReadOutput::from_profile(proftext::read(data)?);
            r.format = FormatKind::TextProfile;
            Ok(r)
        }
        FormatKind::SampleBinary | FormatKind::SampleExtBinary | FormatKind::SampleGcc => {
            Err(Error::new(ErrorKind::KindConflict(format!(
                "this is an {}, not an instrumentation profile: merge sample profiles with --sample",
                FormatKind::sniff(data).name()
            ))))
        }
        FormatKind::Iprof => Err(Error::new(ErrorKind::KindConflict(
            "this is a GraalVM Native Image profile (.iprof), and this step reads LLVM \
             profiles only: convert it first (`pgo-merge FILE.iprof -o FILE.profdata`, \
             docs/conversion.md), or give it to `pgo-merge show` or an .iprof merge"
                .into(),
        ))),
        FormatKind::JitDump | FormatKind::PerfMap | FormatKind::R2rMap | FormatKind::PerfScript => {
            Err(Error::new(ErrorKind::KindConflict(format!(
                "this is a {}, not a profile: turn sampled JIT code into a profile with \
                 `pgo-merge symbolize`, or describe it with `pgo-merge show`",
                FormatKind::sniff(data).name()
            ))))
        }
        FormatKind::Unknown if data.len() < 8 && starts_a_magic(data) => Err(Error::at(
            0,
            ErrorKind::Truncated {
                what: "profile magic (the file starts like a raw or indexed profile)",
                needed: 8,
                available: data.len() as u64,
            },
        )),
        FormatKind::Unknown => Err(Error::at(
            0,
            ErrorKind::UnknownFormat {
                head: describe_head(data),
            },
        )),
    }
}

/// The first bytes of an unrecognised input in hex, followed by the same bytes as text when
/// they are text (so that a text file shows how it starts: `5b 70 61 … ("[package")`).
fn describe_head(data: &[u8]) -> String {
    let hex = crate::bytes::hex_head(data);
    let head = &data[..data.len().min(8)];
    if !head.is_empty()
        && head
            .iter()
            .all(|&b| b.is_ascii_graphic() || b == b' ' || (b'\t'..=b'\r').contains(&b))
    {
        format!("{hex} ({:?})", String::from_utf8_lossy(head))
    } else {
        hex
    }
}

/// True if `data` (shorter than 8 bytes) is the beginning of a raw or indexed magic.
fn starts_a_magic(data: &[u8]) -> bool {
    let magics = [
        profraw::MAGIC_64.to_le_bytes(),
        profraw::MAGIC_64.to_be_bytes(),
        profraw::MAGIC_32.to_le_bytes(),
        profraw::MAGIC_32.to_be_bytes(),
        crate::codec::magic::INDEXED_MAGIC.to_le_bytes(),
    ];
    magics.iter().any(|m| m.starts_with(data))
}
