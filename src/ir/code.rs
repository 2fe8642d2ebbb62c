//! Code regions of JIT and AOT code, and sampled stacks: what the symbolisation pass
//! consumes.
//!
//! ```text
//!  jitdump / perf map / r2rmap ──front-end──► CodeSource ─┐
//!  perf script text ────────────front-end──► SampleSource ┴─► symbolisation pass
//! ```
//!
//! * A [`CodeSource`] is the code one input describes: named address ranges
//!   ([`CodeRegion`]), with load times where the input has them, and the problems met while
//!   reading it. Names borrow from the input's bytes where they can.
//! * A [`SampleSource`] hands out sampled stacks one at a time: a [`SampleHeader`] and its
//!   frames ([`SampleFrame`]), innermost first, borrowing from the input.

use std::borrow::Cow;
use std::path::PathBuf;

use crate::error::Result;

/// The kind of input a code region came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceKind {
    /// A jitdump CODE_LOAD (or MOVE).
    JitDump,
    /// A `perf-PID.map` line.
    PerfMap,
    /// An r2rmap method line (RVA + load base).
    R2rMap,
}

/// One piece of generated or precompiled code: `[start, end)`, named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeRegion<'a> {
    /// The function name as the runtime wrote it (borrowed from the input when it is valid
    /// UTF-8).
    pub name: Cow<'a, str>,
    /// First byte of the code.
    pub start: u64,
    /// One past the last byte. `end <= start`: the code covers no address (a zero-size
    /// load, or one whose end would wrap); it is still a function of the input.
    pub end: u64,
    /// When the code was loaded (ns of the input's clock), for inputs that say so
    /// (jitdumps); `None` for time-less maps, where a later region supersedes an earlier
    /// overlapping one.
    pub load_time: Option<u64>,
    /// The load's `code_index` (jitdumps only).
    pub code_index: Option<u64>,
}

impl CodeRegion<'_> {
    /// True if the region covers at least one address.
    pub fn covers_code(&self) -> bool {
        self.end > self.start
    }
}

/// The code regions read from one input, in input order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeSource<'a> {
    /// The input.
    pub path: PathBuf,
    /// Its kind.
    pub kind: SourceKind,
    /// The process the regions apply to (`None`: every process).
    pub pid: Option<u32>,
    /// The regions, in input order (later ones win over earlier ones loaded at the same
    /// time).
    pub regions: Vec<CodeRegion<'a>>,
    /// Problems met while reading, each naming its offset or line (not the path), in the
    /// order found.
    pub warnings: Vec<String>,
}

/// The name perf prints for a frame it could not symbolise.
pub const UNKNOWN: &str = "[unknown]";

/// One frame of a sampled call chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleFrame<'a> {
    /// The sampled address: absolute for anonymous/unknown mappings (JIT code), relative to
    /// the mapping for file-backed DSOs.
    pub ip: u64,
    /// The symbol without `+0xOFF`; [`UNKNOWN`] when the sampler could not name it.
    pub sym: &'a str,
    /// The `+0xOFF` offset, when known.
    pub sym_off: Option<u64>,
    /// The DSO, when known.
    pub dso: Option<&'a str>,
}

impl SampleFrame<'_> {
    /// True if the sampler could not name the frame.
    #[inline]
    pub fn is_unknown(&self) -> bool {
        self.sym == UNKNOWN || self.sym.is_empty()
    }
}

/// The header of one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SampleHeader<'a> {
    /// Command name (may contain spaces; empty when not known).
    pub comm: &'a str,
    /// Process id, when known.
    pub pid: Option<u32>,
    /// Thread id, when known.
    pub tid: Option<u32>,
    /// Time in nanoseconds (CLOCK_MONOTONIC with `perf record -k mono`), when known.
    pub time_ns: Option<u64>,
    /// The precision of the time in nanoseconds (1000 for perf script's default µs).
    pub time_unit_ns: u64,
    /// 1-based line of the header in its input.
    pub line: u64,
}

impl SampleHeader<'_> {
    /// The latest instant the time can stand for: the end of its unit (perf truncates, so
    /// a sample printed as `…123456` happened in `[…123456000, …123456999]` ns).
    /// `u64::MAX` when there is no time.
    #[inline]
    pub fn time_upper(&self) -> u64 {
        self.time_ns.map_or(u64::MAX, |t| {
            t.saturating_add(self.time_unit_ns.saturating_sub(1))
        })
    }
}

/// Sampled stacks, one at a time.
pub trait SampleSource<'a> {
    /// The next sample: its header, with its frames (innermost first) in `frames` (cleared
    /// first). `Ok(None)` at the end. Errors name their position in the input.
    fn next_sample(
        &mut self,
        frames: &mut Vec<SampleFrame<'a>>,
    ) -> Result<Option<SampleHeader<'a>>>;
}

impl<'a, S: SampleSource<'a> + ?Sized> SampleSource<'a> for &mut S {
    #[inline]
    fn next_sample(
        &mut self,
        frames: &mut Vec<SampleFrame<'a>>,
    ) -> Result<Option<SampleHeader<'a>>> {
        (**self).next_sample(frames)
    }
}
