//! The code regions of every input, indexed for lookups by process, address and time.

use std::path::PathBuf;

use crate::error::{Error, ErrorKind, Result, Warning};
use crate::ir::code::CodeSource;
use crate::ir::fx::FxHashMap;

use super::SourceKind;
use super::index::{CodeIndex, CodeIndexBuilder, Region};

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
    pub warnings: Vec<Warning>,
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
        self.warnings
            .extend(src.warnings.iter().map(|m| m.clone().with_path(p)));
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
    /// Warnings from reading the inputs, each naming its input.
    pub warnings: Vec<Warning>,
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

    fn hit(&self, h: super::index::Hit, from_jitdump: bool) -> Option<Resolved<'_>> {
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
        hits: &mut Vec<Option<super::index::Hit>>,
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
