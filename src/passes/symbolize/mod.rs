//! Symbolising sampled JIT code: code regions (from jitdumps, perf maps and r2rmaps) in,
//! sampled stacks resolved against them, profiles out. Both inputs are IR
//! ([`crate::ir::code`]): the front-ends read the files.
//!
//! ```text
//!  CodeSource ─┐                           SampleSource
//!  CodeSource ─┼─► SymbolizerBuilder ─► Symbolizer ──► symbolize() ──► Stacks
//!  CodeSource ─┘     (regions)          (indexes)      (resolve)         ├─► folded stacks
//!                                                                        └─► iprof samplingProfiles
//! ```
//!
//! * Only frames that the sampler itself could not name (`[unknown]`) are resolved; frames
//!   it named keep its name. A frame is looked up first in the jitdumps of its process (by
//!   load time, see [`index`]), then in the time-less maps (perf maps of that process, maps
//!   whose pid is unknown, r2rmaps), where a later line wins over an earlier overlapping one.
//! * A sample's time is taken at the end of its unit
//!   ([`crate::ir::code::SampleHeader::time_upper`]; µs in perf script's default output), so
//!   a load logged within the same microsecond before the sample is seen, as perf sees it.
//! * MOVE records add the moved code at its new address from the move's time on; the old
//!   range stays mapped until other code is loaded over it, as with `perf inject --jit`.

mod history;
pub mod index;
pub mod names;
pub mod sample;

use std::io::{self, Write};
use std::path::PathBuf;

use crate::error::{Error, ErrorKind, Result};
use crate::ir::code::{CodeSource, SampleFrame, SampleSource, UNKNOWN};
use crate::ir::context::Frame;
use crate::ir::fx::FxHashMap;
use crate::ir::iprof::{IprofProfile, IprofVersion, Section, add_counts};
use crate::ir::java_symbols::{MethodId, TypeId};

use index::{CodeIndex, CodeIndexBuilder, Region};
pub use sample::{ProcessMatch, SampleResolver};

pub use crate::ir::code::SourceKind;

/// What a region stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Symbol {
    /// Index into the name table.
    name: u32,
    /// Start of the code (for addresses relative to the function).
    pub start: u64,
    /// The load's `code_index` (jitdumps only).
    pub code_index: Option<u64>,
    /// Where it came from.
    pub kind: SourceKind,
}

/// A resolved address.
#[derive(Debug, Clone, Copy)]
pub struct Resolved<'s> {
    sym: &'s Symbolizer,
    /// The symbol.
    pub symbol: &'s Symbol,
    /// Index of the symbol in the symbolizer (a stable id for caching).
    pub symbol_id: u32,
    /// Found only thanks to the load-time slack (the load is later than the sample).
    pub early: bool,
    /// Found in a jitdump (else in a perf map or r2rmap); known without touching the symbol.
    pub from_jitdump: bool,
}

impl<'s> Resolved<'s> {
    /// The function name as the runtime wrote it.
    pub fn name(&self) -> &'s str {
        self.sym.name(self.symbol)
    }
}

/// Per-input statistics of the code regions read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceStats {
    /// The input.
    pub path: PathBuf,
    /// Its kind.
    pub kind: Option<SourceKind>,
    /// Process the regions apply to (`None`: every process).
    pub pid: Option<u32>,
    /// Regions added.
    pub regions: u64,
}

/// Collects code regions (from jitdumps and maps).
#[derive(Debug, Default)]
pub struct SymbolizerBuilder {
    names: Vec<Box<str>>,
    name_ids: FxHashMap<Box<str>, u32>,
    symbols: Vec<Symbol>,
    /// Timed regions per pid.
    jit: Vec<(Option<u32>, CodeIndexBuilder)>,
    /// Time-less regions per pid; the time is a global sequence number (later line wins).
    maps: Vec<(Option<u32>, CodeIndexBuilder)>,
    seq: u64,
    /// Thread id → process id, from the inputs that name threads (jitdumps).
    threads: FxHashMap<u32, u32>,
    /// Per input.
    pub sources: Vec<SourceStats>,
    /// Warnings, each naming its input and offset or line.
    pub warnings: Vec<String>,
}

impl SymbolizerBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    fn name_id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.name_ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.into());
        self.name_ids.insert(name.into(), id);
        id
    }

    fn symbol(
        &mut self,
        name: &str,
        start: u64,
        code_index: Option<u64>,
        kind: SourceKind,
    ) -> Result<u32> {
        if self.symbols.len() >= (u32::MAX - 1) as usize {
            return Err(Error::new(ErrorKind::LimitExceeded {
                what: "code regions",
                value: self.symbols.len() as u64,
                limit: u64::from(u32::MAX) - 1,
            }));
        }
        let name = self.name_id(name);
        self.symbols.push(Symbol {
            name,
            start,
            code_index,
            kind,
        });
        Ok(self.symbols.len() as u32 - 1)
    }

    /// Adds the code regions of one input (see [`crate::ir::code::CodeSource`]). Regions
    /// of a jitdump go to the timed index of its pid, at their load times (one without a
    /// time counts as loaded from the start); those of maps go to the time-less index of
    /// their pid, where each region is later than every region added before it. Every
    /// region is a symbol, even one covering no address. The warnings are kept, each
    /// prefixed with the input's path. Errors: more than `u32::MAX - 1` regions in all.
    pub fn add_source(&mut self, src: CodeSource<'_>) -> Result<()> {
        let timed = src.kind == SourceKind::JitDump;
        let indexes = if timed { &mut self.jit } else { &mut self.maps };
        let ix = match indexes.iter().position(|(p, _)| *p == src.pid) {
            Some(i) => i,
            None => {
                // Maps are only asked for their latest line (`resolve`): their index keeps
                // no older lines under it, so nested regions cost linear memory.
                let b = if timed {
                    CodeIndexBuilder::new()
                } else {
                    CodeIndexBuilder::newest_only()
                };
                indexes.push((src.pid, b));
                indexes.len() - 1
            }
        };
        let mut regions = 0u64;
        for r in &src.regions {
            let sym = self.symbol(&r.name, r.start, r.code_index, src.kind)?;
            if !r.covers_code() {
                continue;
            }
            let time = if timed {
                r.load_time.unwrap_or(0)
            } else {
                self.seq += 1;
                self.seq
            };
            let indexes = if timed { &mut self.jit } else { &mut self.maps };
            if let Some((_, b)) = indexes.get_mut(ix) {
                b.add(Region {
                    start: r.start,
                    end: r.end,
                    time,
                    payload: sym,
                });
            }
            regions += 1;
        }
        if let Some(pid) = src.pid {
            for &t in &src.threads {
                self.threads.insert(t, pid);
            }
        }
        let p = &src.path;
        self.warnings.extend(
            src.warnings
                .iter()
                .map(|m| m.clone().with_path(p).to_string()),
        );
        self.sources.push(SourceStats {
            path: src.path,
            kind: Some(src.kind),
            pid: src.pid,
            regions,
        });
        Ok(())
    }

    /// Builds the indexes.
    pub fn build(self) -> Result<Symbolizer> {
        let build_all =
            |v: Vec<(Option<u32>, CodeIndexBuilder)>| -> Result<Vec<(Option<u32>, CodeIndex)>> {
                v.into_iter().map(|(p, b)| Ok((p, b.build()?))).collect()
            };
        let mut pids: Vec<u32> = self.sources.iter().filter_map(|s| s.pid).collect();
        pids.sort_unstable();
        pids.dedup();
        Ok(Symbolizer {
            names: self.names,
            symbols: self.symbols,
            jit: build_all(self.jit)?,
            maps: build_all(self.maps)?,
            threads: self.threads,
            pids,
            sources: self.sources,
            warnings: self.warnings,
        })
    }
}

/// Resolves (pid, address, time) to JIT functions.
#[derive(Debug, Default)]
pub struct Symbolizer {
    names: Vec<Box<str>>,
    symbols: Vec<Symbol>,
    jit: Vec<(Option<u32>, CodeIndex)>,
    maps: Vec<(Option<u32>, CodeIndex)>,
    /// Thread id → process id, from the inputs that name threads.
    threads: FxHashMap<u32, u32>,
    /// The processes the inputs belong to, ascending (inputs for every process not
    /// counted).
    pids: Vec<u32>,
    /// Per input.
    pub sources: Vec<SourceStats>,
    /// Warnings from reading the inputs.
    pub warnings: Vec<String>,
}

impl Symbolizer {
    /// The process whose inputs name thread `tid` (a jitdump record written by it).
    pub fn process_of_thread(&self, tid: u32) -> Option<u32> {
        self.threads.get(&tid).copied()
    }

    /// True if some input belongs to process `pid`.
    pub fn has_process(&self, pid: u32) -> bool {
        self.pids.binary_search(&pid).is_ok()
    }

    /// True if some input is a jitdump (whose loads may lie inside file mappings).
    pub fn has_jitdumps(&self) -> bool {
        !self.jit.is_empty()
    }

    /// True if some input can describe code inside file mappings: jitdumps (V8's builtins
    /// in Debian's libnode.so.108, .NET 8's ReadyToRun code in `.dll` images) and r2rmaps.
    pub fn describes_file_code(&self) -> bool {
        self.has_jitdumps()
            || self
                .sources
                .iter()
                .any(|s| s.kind == Some(SourceKind::R2rMap))
    }

    /// The process all per-process inputs belong to, if they all belong to one.
    pub fn single_process(&self) -> Option<u32> {
        match self.pids.as_slice() {
            [p] => Some(*p),
            _ => None,
        }
    }

    /// The name of a symbol.
    pub fn name(&self, s: &Symbol) -> &str {
        self.names.get(s.name as usize).map_or("", |n| n)
    }

    /// Number of symbols (regions) known.
    pub fn symbol_count(&self) -> usize {
        self.symbols.len()
    }

    fn hit(&self, h: index::Hit, from_jitdump: bool) -> Option<Resolved<'_>> {
        let symbol_id = h.payload;
        let symbol = self.symbols.get(symbol_id as usize)?;
        Some(Resolved {
            sym: self,
            symbol,
            symbol_id,
            early: h.early,
            from_jitdump,
        })
    }

    /// The function that covered `addr` in process `pid` (`None`: any process) at `time`
    /// (ns; `u64::MAX` when unknown): jitdumps first (newest load at or before `time`, or
    /// one at most `slack` ns later), then the time-less maps (latest line).
    #[inline]
    pub fn resolve(
        &self,
        pid: Option<u32>,
        addr: u64,
        time: u64,
        slack: u64,
    ) -> Option<Resolved<'_>> {
        let applies = |p: &Option<u32>| pid.is_none() || p.is_none() || *p == pid;
        for (p, ix) in &self.jit {
            if applies(p)
                && let Some(h) = ix.lookup(addr, time, slack)
            {
                return self.hit(h, true);
            }
        }
        for (p, ix) in &self.maps {
            if applies(p)
                && let Some(h) = ix.lookup(addr, u64::MAX, 0)
            {
                return self.hit(h, false);
            }
        }
        None
    }

    /// [`Symbolizer::resolve`] for the frames of one sample: `out[i]` answers
    /// `queries[i] = (addr, time)`. The lookups in the process's jitdump run in lockstep
    /// ([`CodeIndex::lookup_batch`]); addresses it does not cover go through
    /// [`Symbolizer::resolve`]. `hits` is scratch space.
    pub fn resolve_batch<'s>(
        &'s self,
        pid: Option<u32>,
        queries: &[(u64, u64)],
        slack: u64,
        hits: &mut Vec<Option<index::Hit>>,
        out: &mut Vec<Option<Resolved<'s>>>,
    ) {
        out.clear();
        let first = self
            .jit
            .iter()
            .find(|(p, _)| pid.is_none() || p.is_none() || *p == pid);
        let Some((_, ix)) = first else {
            out.extend(queries.iter().map(|&(a, t)| self.resolve(pid, a, t, slack)));
            return;
        };
        ix.lookup_batch(queries, slack, hits);
        for (&(a, t), h) in queries.iter().zip(hits.iter()) {
            out.push(match h {
                Some(h) => self.hit(*h, true),
                None => self.resolve(pid, a, t, slack),
            });
        }
    }

    /// The jitdump regions of `pid` covering `addr` at any time (diagnostics and tests).
    pub fn all_jit_covering(&self, pid: u32, addr: u64) -> Vec<(&str, u64)> {
        self.jit
            .iter()
            .filter(|(p, _)| *p == Some(pid))
            .flat_map(|(_, ix)| ix.all_covering(addr))
            .filter_map(|(t, p)| Some((self.name(self.symbols.get(p as usize)?), t)))
            .collect()
    }
}

/// Options of [`symbolize`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SymbolizeOptions {
    /// Accept a jitdump load up to this many ns *after* the sample when no earlier load
    /// covers the address (0, the default, agrees exactly with `perf inject --jit`).
    pub load_time_slack_ns: u64,
    /// Take every sample to be of this process, whatever id the text prints.
    pub pid: Option<u32>,
}

/// Counts of one symbolisation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SymbolizeStats {
    /// Samples read.
    pub samples: u64,
    /// Frames read.
    pub frames: u64,
    /// Frames perf could not name.
    pub unknown_frames: u64,
    /// Of those, resolved through a jitdump.
    pub resolved_jitdump: u64,
    /// Of those, resolved through a perf map or r2rmap.
    pub resolved_map: u64,
    /// Resolved only thanks to the load-time slack.
    pub resolved_early: u64,
    /// Mapping events (`perf script --show-mmap-events`) of processes read.
    pub mapping_events: u64,
    /// Task events (`perf script --show-task-events`: forks and comms) read.
    pub task_events: u64,
    /// Resolved frames perf printed relative to a file mapping (made absolute through the
    /// mapping events).
    pub resolved_file_relative: u64,
    /// Unknown frames perf printed relative to a file mapping that no mapping event
    /// covers (not looked up), counted where JIT code can lie: in any file mapping when an
    /// input can describe such code ([`Symbolizer::describes_file_code`]), else in the
    /// mappings .NET runs JIT code from (`/memfd:doublemapper (deleted)`); reported when
    /// they are at least 1% of the unknown frames.
    pub file_relative_unmapped: u64,
    /// The file mappings holding those frames (at most three; those JIT code is known to
    /// live in first, then by count), with their counts.
    pub unmapped_dsos: Vec<(String, u64)>,
    /// Unresolved frames of samples whose process is known that the inputs of another
    /// process would resolve (reported when they are at least 10% of the unknown frames:
    /// the inputs are probably of another run).
    pub other_process: u64,
    /// The process of one such frame.
    pub other_process_example: Option<u32>,
    /// Unresolved frames at addresses in no mapping of their process (perf prints their
    /// DSO as `[unknown]`): what walking a stack without frame pointers leaves; reported
    /// when they are at least a quarter of the unknown frames.
    pub no_mapping: u64,
    /// Unresolved frames that a jitdump load *later* than the sample covers.
    pub later_load_only: u64,
    /// Unresolved frames of samples whose lone id matched no process that another
    /// process's inputs would resolve.
    pub unmatched_process: u64,
    /// One such id.
    pub unmatched_example: Option<u32>,
    /// Samples whose lone id matched no process, resolved with the one process all
    /// per-process inputs belong to.
    pub samples_by_only_process: u64,
}

impl SymbolizeStats {
    /// The warning for unknown frames in file mappings that no mapping event covers.
    fn unmapped_warning(&self) -> String {
        let files: Vec<String> = self
            .unmapped_dsos
            .iter()
            .map(|(d, n)| format!("{n} in {d}"))
            .collect();
        let why = if self
            .unmapped_dsos
            .iter()
            .any(|(d, _)| d.starts_with("/memfd:doublemapper"))
        {
            "; .NET runs its JIT code from /memfd:doublemapper when write-xor-execute is on \
             (the default; DOTNET_EnableWriteXorExecute=0 puts it in anonymous memory), and \
             .NET 8's jitdumps describe the precompiled code of its .dll images"
        } else {
            ""
        };
        let fix = if self.mapping_events == 0 {
            "write the samples with `perf script --show-mmap-events`"
        } else {
            "no mmap event of the sample's process covers them: write the samples with \
             `perf script -F comm,pid,tid,time,ip,sym,dso --show-mmap-events`"
        };
        format!(
            "{} of the {} [unknown] frames lie in file mappings ({}), whose addresses perf \
             prints relative to the file{why}; JIT code there resolves only through the \
             mappings: {fix}",
            self.file_relative_unmapped,
            self.unknown_frames,
            files.join(", ")
        )
    }

    /// Frames left `[unknown]`.
    pub fn unresolved(&self) -> u64 {
        self.unknown_frames - self.resolved_jitdump - self.resolved_map
    }

    /// What the counts say is probably wrong with the input, one warning per problem,
    /// each with its likely causes and fix.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if self.later_load_only > 0 {
            w.push(format!(
                "{} [unknown] frames are covered only by jitdump code loaded after their \
                 sample's time; likely causes: relative sample times (`perf script --reltime` \
                 or `--deltatime`; write the samples without them) or samples recorded with \
                 a clock other than the jitdump's (record with `perf record -k mono`)",
                self.later_load_only
            ));
        }
        if self.unmatched_process > 0 {
            w.push(format!(
                "{} [unknown] frames of samples whose id (e.g. {}) matches no process of the \
                 jitdumps and perf maps would resolve in another process: plain `perf script` \
                 prints the thread id, not the process id; write the samples with \
                 `perf script -F comm,pid,tid,time,ip,sym,dso` (or add --show-task-events, \
                 whose fork events name each thread's process), or pass --pid",
                self.unmatched_process,
                self.unmatched_example.unwrap_or(0)
            ));
        }
        // A few unknown frames in libraries are normal (stripped code); JIT code inside a
        // file mapping makes many.
        if self.file_relative_unmapped > 0
            && self.file_relative_unmapped.saturating_mul(100) >= self.unknown_frames
        {
            w.push(self.unmapped_warning());
        }
        if self.no_mapping > 0 && self.no_mapping.saturating_mul(4) >= self.unknown_frames {
            w.push(format!(
                "{} of the {} [unknown] frames are at addresses in no mapping of their \
                 process (perf prints their DSO as [unknown]): no JIT code is there; such \
                 frames are what walking a stack without frame pointers leaves (record with \
                 `perf record --call-graph dwarf`, or have the runtime keep frame pointers)",
                self.no_mapping, self.unknown_frames
            ));
        }
        if self.other_process.saturating_mul(10) >= self.unknown_frames && self.other_process > 0 {
            w.push(format!(
                "{} [unknown] frames (e.g. of process {}) are covered only by the jitdumps or \
                 perf maps of another process: are the inputs from this recording? (a perf \
                 map applies to the process its name `perf-PID.map` says)",
                self.other_process,
                self.other_process_example.unwrap_or(0)
            ));
        }
        w
    }
}

/// Interned frame names.
#[derive(Debug, Default, Clone)]
pub struct FrameNames {
    names: Vec<Box<str>>,
    ids: FxHashMap<Box<str>, u32>,
}

impl FrameNames {
    /// The id of `name`, adding it if new.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        id
    }
    /// The name of an id.
    pub fn get(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", |n| n)
    }
    /// Number of names.
    pub fn len(&self) -> usize {
        self.names.len()
    }
    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Distinct resolved stacks with their sample counts.
///
/// Each key is `[comm, innermost frame, …, outermost frame]` as ids into `names`.
#[derive(Debug, Default, Clone)]
pub struct Stacks {
    /// Frame and comm names.
    pub names: FrameNames,
    /// Per distinct stack, the number of samples.
    pub stacks: FxHashMap<Box<[u32]>, u64>,
    /// Counts.
    pub stats: SymbolizeStats,
    /// Frame ids that came from JIT regions (resolved by us).
    jit_frames: Vec<bool>,
}

/// Resolves one frame: the sampler's name if it had one, else the resolved JIT name, else
/// `[unknown]`. Returns the name and how it was found.
pub fn frame_name<'a>(
    sym: &'a Symbolizer,
    pid: Option<u32>,
    time: u64,
    f: &SampleFrame<'a>,
    slack: u64,
) -> (&'a str, Option<Resolved<'a>>) {
    if !f.is_unknown() {
        return (f.sym, None);
    }
    match sym.resolve(pid, f.ip, time, slack) {
        Some(r) => (r.name(), Some(r)),
        None => (UNKNOWN, None),
    }
}

/// Reads the samples of `samples` (e.g. a `perf script` text's reader) and resolves their
/// `[unknown]` frames through `sym` ([`SampleResolver`]: the sample's process, addresses
/// made absolute through mapping events), collecting distinct stacks. Errors are the
/// source's (naming their position in its input), and a source with no sample.
pub fn symbolize<'a, S: SampleSource<'a>>(
    sym: &Symbolizer,
    mut samples: S,
    opts: &SymbolizeOptions,
) -> Result<Stacks> {
    let mut out = Stacks::default();
    let mut frames: Vec<SampleFrame<'a>> = Vec::with_capacity(128);
    let mut key: Vec<u32> = Vec::with_capacity(128);
    // symbol id → frame id, so resolved frames are not hashed again.
    let mut sym_frame: Vec<u32> = vec![u32::MAX; sym.symbol_count()];
    let unknown = out.names.intern(UNKNOWN);
    let mut last_perf: Option<(&str, u32)> = None;
    let mut rs = SampleResolver::new(sym, opts);
    let mut mappings = Vec::new();
    let mut threads = Vec::new();
    let mut resolved = Vec::with_capacity(128);
    while let Some(h) = samples.next_sample(&mut frames)? {
        samples.take_mappings(&mut mappings);
        for m in mappings.drain(..) {
            rs.add_mapping(m);
        }
        samples.take_threads(&mut threads);
        for t in threads.drain(..) {
            rs.add_thread(t);
        }
        rs.resolve_sample(&h, &frames, &mut resolved);
        key.clear();
        key.push(out.names.intern(h.comm));
        for (f, r) in frames.iter().zip(&resolved) {
            let id = if f.is_unknown() {
                match r {
                    Some(r) => match sym_frame.get(r.symbol_id as usize).copied() {
                        Some(id) if id != u32::MAX => id,
                        _ => {
                            let id = out.names.intern(r.name());
                            if let Some(slot) = sym_frame.get_mut(r.symbol_id as usize) {
                                *slot = id;
                            }
                            if out.jit_frames.len() <= id as usize {
                                out.jit_frames.resize(id as usize + 1, false);
                            }
                            if let Some(j) = out.jit_frames.get_mut(id as usize) {
                                *j = true;
                            }
                            id
                        }
                    },
                    None => unknown,
                }
            } else {
                // Consecutive frames often repeat a name (recursion): skip the hash then.
                match last_perf {
                    Some((n, id)) if n == f.sym => id,
                    _ => {
                        let id = out.names.intern(f.sym);
                        last_perf = Some((f.sym, id));
                        id
                    }
                }
            };
            key.push(id);
        }
        match out.stacks.get_mut(key.as_slice()) {
            Some(c) => *c = add_counts(*c, 1),
            None => {
                out.stacks.insert(key.as_slice().into(), 1);
            }
        }
    }
    samples.take_mappings(&mut mappings);
    rs.stats.mapping_events += mappings.len() as u64;
    samples.take_threads(&mut threads);
    rs.stats.task_events += threads.len() as u64;
    out.stats = rs.finish();
    if out.stats.samples == 0 {
        return Err(Error::new(ErrorKind::Malformed {
            what: "perf script",
            detail: "no samples (the text is empty or holds only comments and events); \
                     record with `perf record -k mono -g` and write the samples with \
                     `perf script`"
                .into(),
        }));
    }
    Ok(out)
}

/// How a folded-stack frame name is written: `;` separates frames and the last space
/// separates the count, so a `;` inside a name (Java's `Lpkg/Type;::m`) is written as `:`
/// and line breaks as spaces.
fn folded_frame(name: &str) -> std::borrow::Cow<'_, str> {
    if name.contains([';', '\n', '\r']) {
        std::borrow::Cow::Owned(name.replace(';', ":").replace(['\n', '\r'], " "))
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

impl Stacks {
    /// True if frame name `id` was resolved through a JIT region.
    pub fn is_jit_frame(&self, id: u32) -> bool {
        self.jit_frames.get(id as usize).copied().unwrap_or(false)
    }

    /// The folded-stacks lines (`comm;outermost;…;innermost COUNT`, without `comm;` when
    /// the text has no comms), sorted, one per distinct stack.
    pub fn folded_lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .stacks
            .iter()
            .map(|(k, c)| {
                let mut s = String::new();
                if let Some((comm, frames)) = k.split_first() {
                    // A text without comms (`perf script -F` without `comm`): the stack
                    // starts with its outermost frame.
                    let comm = self.names.get(*comm);
                    s.push_str(&folded_frame(comm));
                    for (i, f) in frames.iter().rev().enumerate() {
                        if i > 0 || !comm.is_empty() {
                            s.push(';');
                        }
                        s.push_str(&folded_frame(self.names.get(*f)));
                    }
                }
                s.push(' ');
                s.push_str(&c.to_string());
                s
            })
            .collect();
        lines.sort_unstable();
        lines
    }

    /// Writes the folded stacks.
    pub fn write_folded(&self, w: &mut impl Write) -> io::Result<()> {
        for l in self.folded_lines() {
            w.write_all(l.as_bytes())?;
            w.write_all(b"\n")?;
        }
        Ok(())
    }

    /// The stacks as an iprof profile: one sampling-profile context per distinct stack
    /// (innermost frame first, every BCI 0: jitdumps carry no bytecode positions), methods
    /// and types built from the frame names ([`names::split`]), in canonical form. Stacks
    /// that differ only in the process name are one context.
    pub fn to_iprof(&self) -> IprofProfile {
        let mut p = IprofProfile {
            version: IprofVersion::V1_0_0,
            ..IprofProfile::default()
        };
        p.present.insert(Section::Sampling);
        let mut method_of: Vec<Option<MethodId>> = vec![None; self.names.len()];
        let mut frames: Vec<Frame> = Vec::new();
        let mut sig: Vec<TypeId> = Vec::new();
        let mut keys: Vec<(&Box<[u32]>, &u64)> = self.stacks.iter().collect();
        keys.sort_unstable();
        for (k, &c) in keys {
            frames.clear();
            for &f in k.get(1..).unwrap_or_default() {
                let m =
                    match method_of.get(f as usize).copied().flatten() {
                        Some(m) => m,
                        None => {
                            let name = self.names.get(f);
                            let default = if self.is_jit_frame(f) {
                                "(jit)"
                            } else if name == UNKNOWN {
                                "(unknown)"
                            } else {
                                "(native)"
                            };
                            let s = names::split(name, default);
                            // Declaring type and return type at least, as GraalVM requires.
                            sig.clear();
                            sig.push(p.symbols.intern_type(&s.declaring));
                            sig.push(p.symbols.intern_type(
                                s.ret.as_deref().unwrap_or(names::UNKNOWN_RETURN_TYPE),
                            ));
                            for t in &s.params {
                                sig.push(p.symbols.intern_type(t));
                            }
                            let m = p.symbols.intern_method(&s.method, &sig);
                            if let Some(slot) = method_of.get_mut(f as usize) {
                                *slot = Some(m);
                            }
                            m
                        }
                    };
                frames.push(Frame { method: m, bci: 0 });
            }
            if let Some(site) = p.contexts.intern_innermost_first(&frames) {
                let e = p.samples.entry(site).or_insert(0);
                *e = add_counts(*e, c);
            }
        }
        crate::passes::normalise::canonicalize_owned(p, false)
    }
}

/// Per-method sample counts of a profile's `samplingProfiles`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodSamples {
    /// `Declaring.name(params)ret`.
    pub method: String,
    /// Samples in which the method is the innermost frame.
    pub self_samples: u64,
    /// Samples in which the method is on the stack (once per sample, even if recursive).
    pub total_samples: u64,
}

/// Self and total sample counts per method, sorted by self then total (descending), then
/// name.
pub fn method_samples(p: &IprofProfile) -> Vec<MethodSamples> {
    // Per method: self count, total count, and the index of the last stack that counted it
    // in its total (a method recursing in one stack counts once there). Constant work per
    // frame: a list of the methods seen in the stack made a stack of n frames cost n².
    let mut acc: FxHashMap<MethodId, (u64, u64, usize)> = FxHashMap::default();
    for (i, (site, &c)) in p.samples.iter().enumerate() {
        for (k, f) in p.contexts.frames(*site).enumerate() {
            let e = acc.entry(f.method).or_insert((0, 0, usize::MAX));
            if k == 0 {
                e.0 = add_counts(e.0, c);
            }
            if e.2 != i {
                e.2 = i;
                e.1 = add_counts(e.1, c);
            }
        }
    }
    let mut v: Vec<MethodSamples> = acc
        .into_iter()
        .map(|(m, (s, t, _))| MethodSamples {
            method: p.symbols.display_method(m),
            self_samples: s,
            total_samples: t,
        })
        .collect();
    v.sort_by(|a, b| {
        b.self_samples
            .cmp(&a.self_samples)
            .then(b.total_samples.cmp(&a.total_samples))
            .then_with(|| a.method.cmp(&b.method))
    });
    v
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::path::Path;

    use super::*;
    use crate::ir::code::{CodeRegion, SampleHeader};

    fn load(
        name: &'static str,
        start: u64,
        size: u64,
        time: u64,
        index: u64,
    ) -> CodeRegion<'static> {
        CodeRegion {
            name: Cow::Borrowed(name),
            start,
            end: start + size,
            load_time: Some(time),
            code_index: Some(index),
        }
    }

    fn sym() -> Symbolizer {
        let mut s = SymbolizerBuilder::new();
        s.add_source(CodeSource {
            path: Path::new("jit-4242.dump").into(),
            kind: SourceKind::JitDump,
            pid: Some(4242),
            regions: vec![
                // Loaded 500 ns into the microsecond the sample below is taken in.
                load("JS:*hot /app/a.js:3:1", 0x1000, 0x100, 1_000_000_500, 1),
                load(
                    "Ljava/lang/String;::hashCode",
                    0x1000,
                    0x80,
                    2_000_000_000,
                    2,
                ),
                // A zero-size load: a symbol, no region.
                load("nothing", 0x4000, 0, 2_000_000_000, 3),
            ],
            threads: vec![4242],
            warnings: vec![crate::error::Warning::at(0x28, "something")],
        })
        .unwrap();
        s.build().unwrap()
    }

    /// Samples given in memory: (header, frames) per sample.
    struct Samples(std::vec::IntoIter<(SampleHeader<'static>, Vec<SampleFrame<'static>>)>);

    impl SampleSource<'static> for Samples {
        fn next_sample(
            &mut self,
            frames: &mut Vec<SampleFrame<'static>>,
        ) -> Result<Option<SampleHeader<'static>>> {
            frames.clear();
            Ok(self.0.next().map(|(h, f)| {
                frames.extend(f);
                h
            }))
        }
    }

    /// A sample of process 4242 at `micros` µs, printed with µs precision.
    fn sample(
        comm: &'static str,
        micros: u64,
        frames: &[(u64, &'static str)],
    ) -> (SampleHeader<'static>, Vec<SampleFrame<'static>>) {
        let h = SampleHeader {
            comm,
            pid: Some(4242),
            tid: Some(7),
            id: None,
            time_ns: Some(micros * 1000),
            time_unit_ns: 1000,
            line: 1,
        };
        let f = frames
            .iter()
            .map(|&(ip, sym)| SampleFrame {
                ip,
                sym,
                sym_off: None,
                dso: None,
                absolute: false,
            })
            .collect();
        (h, f)
    }

    #[test]
    fn sources_warnings_and_symbols() {
        let s = sym();
        assert_eq!(s.symbol_count(), 3);
        assert_eq!(s.warnings, vec!["jit-4242.dump: at offset 0x28: something"]);
        assert_eq!(
            s.sources,
            vec![SourceStats {
                path: "jit-4242.dump".into(),
                kind: Some(SourceKind::JitDump),
                pid: Some(4242),
                regions: 2,
            }]
        );
    }

    #[test]
    fn sample_time_is_the_end_of_its_unit() {
        let samples = Samples(vec![sample("node", 1_000_000, &[(0x1010, UNKNOWN)])].into_iter());
        let st = symbolize(&sym(), samples, &SymbolizeOptions::default()).unwrap();
        assert_eq!(st.stats.resolved_jitdump, 1);
        assert_eq!(st.folded_lines(), vec!["node;JS:*hot /app/a.js:3:1 1"]);
    }

    #[test]
    fn slack_reuse_and_folded_names() {
        let s = sym();
        // Before any load: unresolved unless the slack reaches the first load.
        assert!(s.resolve(Some(4242), 0x1010, 999_000_000, 0).is_none());
        let r = s
            .resolve(Some(4242), 0x1010, 999_000_000, 2_000_000)
            .unwrap();
        assert!(r.early && r.name() == "JS:*hot /app/a.js:3:1");
        // After the second load: the reused start is the Java method; the tail beyond its
        // 0x80 bytes still belongs to the first load.
        assert_eq!(
            s.resolve(Some(4242), 0x1010, 3_000_000_000, 0)
                .unwrap()
                .name(),
            "Ljava/lang/String;::hashCode"
        );
        assert_eq!(
            s.resolve(Some(4242), 0x10a0, 3_000_000_000, 0)
                .unwrap()
                .name(),
            "JS:*hot /app/a.js:3:1"
        );
        // Another process's samples are not resolved with this dump.
        assert!(s.resolve(Some(1), 0x1010, 3_000_000_000, 0).is_none());
        let frames = [(0x1010, UNKNOWN), (0x99, "main")];
        let samples = Samples(
            vec![
                sample("java", 3_000_000, &frames),
                sample("java", 3_000_001, &frames),
            ]
            .into_iter(),
        );
        let st = symbolize(&s, samples, &SymbolizeOptions::default()).unwrap();
        // `;` inside a name is written as `:` in folded stacks.
        assert_eq!(
            st.folded_lines(),
            vec!["java;main;Ljava/lang/String:::hashCode 2"]
        );
        let p = st.to_iprof();
        let ms = method_samples(&p);
        // Every method has a return type (a placeholder when the name has none).
        assert_eq!(ms[0].method, "java.lang.String.hashCode()(unknown)");
        assert_eq!((ms[0].self_samples, ms[0].total_samples), (2, 2));
        assert_eq!((ms[1].self_samples, ms[1].total_samples), (0, 2));
    }

    #[test]
    fn map_sources_later_regions_win() {
        let map = |path: &str, pid, regions: &[(&'static str, u64, u64)]| CodeSource {
            path: Path::new(path).into(),
            kind: SourceKind::PerfMap,
            pid,
            regions: regions
                .iter()
                .map(|&(n, start, end)| CodeRegion {
                    name: Cow::Borrowed(n),
                    start,
                    end,
                    load_time: None,
                    code_index: None,
                })
                .collect(),
            threads: Vec::new(),
            warnings: Vec::new(),
        };
        let mut b = SymbolizerBuilder::new();
        b.add_source(map("a.map", None, &[("a", 0x10, 0x20), ("b", 0x18, 0x20)]))
            .unwrap();
        b.add_source(map("perf-5.map", Some(5), &[("c", 0x30, 0x34)]))
            .unwrap();
        let s = b.build().unwrap();
        let name = |pid, addr| s.resolve(pid, addr, 0, 0).map(|r| r.name());
        assert_eq!(name(Some(1), 0x11), Some("a"));
        assert_eq!(name(Some(1), 0x19), Some("b"));
        assert_eq!(name(Some(5), 0x19), Some("b"));
        assert_eq!(name(Some(5), 0x31), Some("c"));
        assert_eq!(name(Some(1), 0x31), None);
        assert_eq!(name(None, 0x31), Some("c"));
        assert!(!s.resolve(Some(5), 0x31, 0, 0).unwrap().from_jitdump);
    }
}
