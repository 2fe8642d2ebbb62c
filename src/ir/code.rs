//! Code regions of JIT and AOT code, and sampled stacks: what the symbolisation pass
//! consumes, and what `show` reports of the files the regions come from.
//!
//! ```text
//!  jitdump / perf map / r2rmap ──front-end──► CodeSource ─┐
//!  perf script text ────────────front-end──► SampleSource ┴─► symbolisation pass
//!  the same files ──────────────front-end──► *Description ──► `show` back-end
//! ```
//!
//! * A [`CodeSource`] is the code one input describes: named address ranges
//!   ([`CodeRegion`]), with load times where the input has them, and the problems met while
//!   reading it. Names borrow from the input's bytes where they can.
//! * A [`SampleSource`] hands out sampled stacks one at a time: a [`SampleHeader`] and its
//!   frames ([`SampleFrame`]), innermost first, borrowing from the input.
//! * [`JitDumpDescription`], [`PerfMapDescription`] and [`R2rMapDescription`] are the counts
//!   and header fields of one such file, for a report ([`CodeDescription`]: any of them).

use std::borrow::Cow;
use std::path::PathBuf;

use crate::bytes::Endian;
use crate::error::{Result, Warning};

/// The kind of input a code region came from.
#[non_exhaustive]
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
    /// Thread ids of `pid` the input names (a jitdump's records carry the id of the thread
    /// that wrote them), ascending, distinct: a sample that shows only a thread id is
    /// matched to its process through them.
    pub threads: Vec<u32>,
    /// Problems met while reading, each with its offset or line where it has one (not the
    /// path: the source's own), in the order found.
    pub warnings: Vec<Warning>,
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
    /// True if `ip` is absolute whatever the DSO: perf prints the sampled address so when it
    /// shows no call chain (the frame on the header line). Call-chain entries inside a
    /// file-backed DSO are printed relative to the file.
    pub absolute: bool,
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
    /// Process id, when the text says it is one (the `PID/TID` of `-F pid,tid`).
    pub pid: Option<u32>,
    /// Thread id, when the text says it is one (the `PID/TID` of `-F pid,tid`).
    pub tid: Option<u32>,
    /// The one id of a header that prints a single number (`comm ID TIME:`): the **thread**
    /// id in perf script's default layout (and with `-F tid`), the process id with `-F pid`.
    /// The text cannot tell which; the symbolisation pass finds the process.
    pub id: Option<u32>,
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

/// A file or anonymous memory mapped into a process (perf's `PERF_RECORD_MMAP`/`MMAP2`
/// events, printed by `perf script --show-mmap-events`): `len` bytes at `start`, backed by
/// `path` from file offset `pgoff` on.
///
/// Perf prints a sampled address inside a file-backed mapping relative to the file
/// (`ip - start + pgoff`); the mapping turns it back into the absolute address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mapping<'a> {
    /// Process the mapping belongs to.
    pub pid: u32,
    /// Thread that made it (a thread of `pid`).
    pub tid: u32,
    /// First mapped address.
    pub start: u64,
    /// Length in bytes.
    pub len: u64,
    /// File offset mapped at `start`.
    pub pgoff: u64,
    /// The file (or `//anon`, `[vdso]`, …) as perf prints it.
    pub path: &'a str,
}

impl Mapping<'_> {
    /// The absolute address of file-relative address `rel` (perf's `ip - start + pgoff`),
    /// if the mapping covers it.
    pub fn absolute(&self, rel: u64) -> Option<u64> {
        let off = rel.checked_sub(self.pgoff)?;
        (off < self.len)
            .then(|| self.start.checked_add(off))
            .flatten()
    }
}

/// A thread and the process it belongs to, from perf's task events (`perf script
/// --show-task-events`: `PERF_RECORD_FORK(PID:TID):(PPID:PTID)`, `PERF_RECORD_COMM: comm:PID/TID`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadOf {
    /// The process.
    pub pid: u32,
    /// The thread.
    pub tid: u32,
}

/// Sampled stacks, one at a time.
pub trait SampleSource<'a> {
    /// The next sample: its header, with its frames (innermost first) in `frames` (cleared
    /// first). `Ok(None)` at the end. Errors name their position in the input.
    fn next_sample(
        &mut self,
        frames: &mut Vec<SampleFrame<'a>>,
    ) -> Result<Option<SampleHeader<'a>>>;

    /// Moves the mappings met since the last call (in input order, all before the sample
    /// [`SampleSource::next_sample`] returned last) to `out`. Sources without mapping
    /// events have none.
    fn take_mappings(&mut self, out: &mut Vec<Mapping<'a>>) {
        let _ = out;
    }

    /// Moves the threads named by task events met since the last call (in input order, all
    /// before the sample [`SampleSource::next_sample`] returned last) to `out`. Sources
    /// without task events have none.
    fn take_threads(&mut self, out: &mut Vec<ThreadOf>) {
        let _ = out;
    }
}

impl<'a, S: SampleSource<'a> + ?Sized> SampleSource<'a> for &mut S {
    #[inline]
    fn next_sample(
        &mut self,
        frames: &mut Vec<SampleFrame<'a>>,
    ) -> Result<Option<SampleHeader<'a>>> {
        (**self).next_sample(frames)
    }

    fn take_mappings(&mut self, out: &mut Vec<Mapping<'a>>) {
        (**self).take_mappings(out);
    }

    fn take_threads(&mut self, out: &mut Vec<ThreadOf>) {
        (**self).take_threads(out);
    }
}

/// What `show` reports of one input of symbolisation, whichever kind it is.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodeDescription {
    /// A jitdump.
    JitDump(JitDumpDescription),
    /// A `perf-PID.map`.
    PerfMap(PerfMapDescription),
    /// A ReadyToRun map.
    R2rMap(R2rMapDescription),
}

/// What a jitdump holds: its header and per-record-type counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JitDumpDescription {
    /// Format version.
    pub version: u32,
    /// Byte order.
    pub endian: Endian,
    /// The header's `total_size` field as written.
    pub header_size: u32,
    /// ELF `e_machine` of the code.
    pub elf_mach: u32,
    /// Its name.
    pub machine: &'static str,
    /// Process id of the runtime.
    pub pid: u32,
    /// Header flags.
    pub flags: u64,
    /// Flag bit 0: timestamps are architecture counter values.
    pub arch_timestamps: bool,
    /// Bytes of the file.
    pub file_size: u64,
    /// Records per known type, in type-id order: (type name, count).
    pub records_by_type: Vec<(&'static str, u64)>,
    /// Records of unknown types (skipped).
    pub unknown_records: u64,
    /// CODE_LOAD records.
    pub loads: u64,
    /// Distinct function names of the loads.
    pub functions: u64,
    /// Lowest code address and highest code end of the loads, if any.
    pub address_range: Option<(u64, u64)>,
    /// First and last record timestamps, if any.
    pub time_range: Option<(u64, u64)>,
    /// Debug-info (line-table) entries read.
    pub debug_entries: u64,
    /// Of those, entries whose file name had garbage in front of it.
    pub corrupted_debug_names: u64,
    /// Problems with their offsets.
    pub warnings: Vec<Warning>,
}

/// Counts over the entries of a perf map or r2rmap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MapSummary {
    /// Entries read.
    pub entries: u64,
    /// Distinct names among them.
    pub distinct_names: u64,
    /// Lowest start and highest end, if any.
    pub address_range: Option<(u64, u64)>,
    /// Start addresses that more than one entry has.
    pub repeated_starts: u64,
    /// Entries overlapping the one before them in address order.
    pub overlapping: u64,
    /// Entries of size 0.
    pub zero_size: u64,
}

/// What a `perf-PID.map` holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerfMapDescription {
    /// Counts over the entries read.
    pub summary: MapSummary,
    /// Lines skipped, each with its line number.
    pub warnings: Vec<Warning>,
}

/// What a ReadyToRun map holds: its header and entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct R2rMapDescription {
    /// Format version.
    pub version: u32,
    /// The signature as 32 upper-case hex digits.
    pub signature_hex: String,
    /// Target OS token and name.
    pub os: (u32, &'static str),
    /// Target architecture token and name.
    pub arch: (u32, &'static str),
    /// Target ABI token and name.
    pub abi: (u32, &'static str),
    /// Counts over the method entries (RVAs relative to the image base).
    pub summary: MapSummary,
    /// Lines skipped, each with its line number.
    pub warnings: Vec<Warning>,
}
