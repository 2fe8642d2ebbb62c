//! Resolving the frames of one sample: finding the sample's process, turning file-relative
//! addresses back into absolute ones, looking the frames up, and counting what could not be
//! resolved and why.
//!
//! * **Process.** `perf script -F pid,tid` prints `PID/TID`; its default layout prints one
//!   number, the *thread* id (as does `-F tid`; `-F pid` prints the process id). A lone id
//!   is matched, in order: `--pid` (every sample is of that process); a thread the inputs
//!   or the mmap events name (jitdump records and `PERF_RECORD_MMAP2 PID/TID` carry both
//!   ids); a process the inputs or the mmap events name; the one process all per-process
//!   inputs belong to. Otherwise it stays unmatched: only inputs for every process apply,
//!   and frames another process's inputs would resolve are counted, so that the caller can
//!   say how to fix the text.
//! * **File-relative addresses.** In call chains perf prints an address inside a
//!   file-backed mapping relative to the file (`ip - start + pgoff`), an address in
//!   anonymous memory or the kernel as it is. JIT code can live in a file mapping (V8's
//!   embedded builtins in Debian's `libnode.so.108`); the mapping events of `perf script
//!   --show-mmap-events` turn such addresses back into absolute ones.
//! * **Later loads.** A frame left unresolved that a jitdump load *after* the sample's
//!   time covers is counted: sample times before every load are what relative times
//!   (`perf script --reltime`) or a clock other than the jitdump's give.

use crate::ir::code::{Mapping, SampleFrame, SampleHeader, ThreadOf};
use crate::ir::fx::FxHashMap;

use super::index::Hit;
use super::{Resolved, SymbolizeOptions, SymbolizeStats, Symbolizer};

/// How a sample's process was found.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessMatch {
    /// The text gives no id: every input applies.
    NoId,
    /// `--pid`.
    Given(u32),
    /// The text's `PID/TID`.
    Printed(u32),
    /// A lone id that is a thread the inputs or mapping events name.
    Thread(u32),
    /// A lone id that is a process the inputs or mapping events name.
    Process(u32),
    /// A lone id matching nothing, while all per-process inputs belong to this process.
    OnlyProcess(u32),
    /// A lone id matching no process: only inputs for every process apply.
    Unmatched(u32),
}

impl ProcessMatch {
    /// The pid to resolve with (`None`: every input applies).
    pub fn pid(self) -> Option<u32> {
        match self {
            ProcessMatch::NoId => None,
            ProcessMatch::Given(p)
            | ProcessMatch::Printed(p)
            | ProcessMatch::Thread(p)
            | ProcessMatch::Process(p)
            | ProcessMatch::OnlyProcess(p)
            | ProcessMatch::Unmatched(p) => Some(p),
        }
    }
}

/// True if perf printed the frame's address relative to its DSO: a file path, but not
/// `//anon` nor a `/tmp/perf-PID.map` (perf names anonymous JIT memory after the map it
/// would read, and prints such addresses as they are).
pub fn is_file_relative(dso: Option<&str>) -> bool {
    let Some(d) = dso else { return false };
    if !d.starts_with('/') || d.starts_with("//") {
        return false;
    }
    let file = d.rsplit('/').next().unwrap_or(d);
    let perf_map = file
        .strip_prefix("perf-")
        .and_then(|r| r.strip_suffix(".map"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    !perf_map
}

/// True if .NET's JIT code can lie in this file mapping: the double mapping it runs JIT
/// code from when write-xor-execute is on (`/memfd:doublemapper (deleted)`), which only a
/// perf map may describe.
fn is_jit_file(dso: &str) -> bool {
    dso.starts_with("/memfd:")
}

/// True if a file mapping is one JIT runtimes are known to put code described by their
/// jitdumps or maps in: .NET's double mapping, its ReadyToRun images (`.dll`, described by
/// .NET 8's jitdumps), and the `libnode` whose embedded V8 builtins Debian's node 18
/// announces in its jitdump.
fn holds_jit_code(dso: &str) -> bool {
    is_jit_file(dso)
        || dso.ends_with(".dll")
        || dso
            .rsplit('/')
            .next()
            .is_some_and(|f| f.starts_with("libnode.so"))
}

/// Resolves samples one after the other, learning threads and file mappings from the
/// mapping events met on the way. `'s`: the symbolizer; `'a`: the sample text.
#[derive(Debug)]
pub struct SampleResolver<'s, 'a> {
    sym: &'s Symbolizer,
    opts: SymbolizeOptions,
    /// Thread → process, from mapping and task events.
    threads: FxHashMap<u32, u32>,
    /// File-backed mappings per process, in event order.
    files: FxHashMap<u32, Vec<Mapping<'a>>>,
    /// Unknown frames in file mappings no mapping event covers, per file.
    unmapped: FxHashMap<Box<str>, u64>,
    /// Counts so far.
    pub stats: SymbolizeStats,
    queries: Vec<(u64, u64)>,
    /// Per frame of the sample: its index in `queries`, if looked up, and whether perf
    /// printed it relative to a file mapping.
    slots: Vec<(Option<usize>, bool)>,
    hits: Vec<Option<Hit>>,
    batch: Vec<Option<Resolved<'s>>>,
}

impl<'s, 'a> SampleResolver<'s, 'a> {
    /// A resolver over `sym`.
    pub fn new(sym: &'s Symbolizer, opts: &SymbolizeOptions) -> Self {
        SampleResolver {
            sym,
            opts: *opts,
            threads: FxHashMap::default(),
            files: FxHashMap::default(),
            unmapped: FxHashMap::default(),
            stats: SymbolizeStats::default(),
            queries: Vec::with_capacity(128),
            slots: Vec::with_capacity(128),
            hits: Vec::with_capacity(128),
            batch: Vec::with_capacity(128),
        }
    }

    /// Learns a mapping event (in input order, before the samples that follow it).
    pub fn add_mapping(&mut self, m: Mapping<'a>) {
        self.stats.mapping_events += 1;
        self.threads.insert(m.tid, m.pid);
        self.threads.entry(m.pid).or_insert(m.pid);
        if is_file_relative(Some(m.path)) {
            self.files.entry(m.pid).or_default().push(m);
        }
    }

    /// Learns a task event: thread `tid` belongs to process `pid` (a fork or comm event of
    /// `perf script --show-task-events`, in input order).
    pub fn add_thread(&mut self, t: ThreadOf) {
        self.stats.task_events += 1;
        self.threads.insert(t.tid, t.pid);
        self.threads.entry(t.pid).or_insert(t.pid);
    }

    /// The counts, with the file mapping holding the most unknown frames no mapping event
    /// covers.
    pub fn finish(mut self) -> SymbolizeStats {
        let mut v: Vec<(&Box<str>, &u64)> = self.unmapped.iter().collect();
        // Files JIT code is known to live in first, then by count.
        v.sort_by(|a, b| (holds_jit_code(b.0), b.1, a.0).cmp(&(holds_jit_code(a.0), a.1, b.0)));
        self.stats.unmapped_dsos = v
            .into_iter()
            .take(3)
            .map(|(d, n)| (d.to_string(), *n))
            .collect();
        self.stats
    }

    /// The process of a sample (see the module documentation).
    pub fn process_of(&self, h: &SampleHeader<'_>) -> ProcessMatch {
        if let Some(p) = self.opts.pid {
            return ProcessMatch::Given(p);
        }
        if let Some(p) = h.pid {
            return ProcessMatch::Printed(p);
        }
        let Some(id) = h.id else {
            return ProcessMatch::NoId;
        };
        if let Some(p) = self.sym.process_of_thread(id) {
            return ProcessMatch::Thread(p);
        }
        if let Some(&p) = self.threads.get(&id) {
            return if p == id {
                ProcessMatch::Process(p)
            } else {
                ProcessMatch::Thread(p)
            };
        }
        if self.sym.has_process(id) {
            return ProcessMatch::Process(id);
        }
        match self.sym.single_process() {
            Some(p) => ProcessMatch::OnlyProcess(p),
            None => ProcessMatch::Unmatched(id),
        }
    }

    /// The absolute address of a frame perf printed relative to file `path` in process
    /// `pid`, from the newest mapping of that file covering it.
    fn absolute(&self, pid: Option<u32>, path: &str, rel: u64) -> Option<u64> {
        let v = self.files.get(&pid?)?;
        v.iter()
            .rev()
            .filter(|m| m.path == path)
            .find_map(|m| m.absolute(rel))
    }

    /// [`SampleResolver::absolute`], counting a frame no mapping covers in a file JIT code
    /// can be in (any file when `file_code`, the inputs describing file-mapped code).
    fn absolute_or_count(
        &mut self,
        pid: Option<u32>,
        dso: &str,
        rel: u64,
        file_code: bool,
    ) -> Option<u64> {
        let a = self.absolute(pid, dso, rel);
        if a.is_none() && (file_code || is_jit_file(dso)) {
            self.stats.file_relative_unmapped += 1;
            match self.unmapped.get_mut(dso) {
                Some(n) => *n += 1,
                None => {
                    self.unmapped.insert(dso.into(), 1);
                }
            }
        }
        a
    }

    /// Resolves the frames of one sample: `out[i]` is the JIT function of `frames[i]` when
    /// perf printed it `[unknown]` and an input covers it, else `None`. Counts into
    /// [`SampleResolver::stats`].
    pub fn resolve_sample(
        &mut self,
        h: &SampleHeader<'_>,
        frames: &[SampleFrame<'_>],
        out: &mut Vec<Option<Resolved<'s>>>,
    ) {
        let pm = self.process_of(h);
        let pid = pm.pid();
        self.stats.samples += 1;
        self.stats.frames += frames.len() as u64;
        if matches!(pm, ProcessMatch::OnlyProcess(_)) {
            self.stats.samples_by_only_process += 1;
        }
        let t = h.time_upper();
        // Per unknown frame: the address to look up (None: a file-relative address no
        // mapping covers).
        self.queries.clear();
        self.slots.clear();
        let file_code = self.sym.describes_file_code();
        for f in frames {
            if !f.is_unknown() {
                self.slots.push((None, false));
                continue;
            }
            let relative = !f.absolute && is_file_relative(f.dso);
            let addr = if relative {
                self.absolute_or_count(pid, f.dso.unwrap_or(""), f.ip, file_code)
            } else {
                Some(f.ip)
            };
            match addr {
                Some(a) => {
                    self.slots.push((Some(self.queries.len()), relative));
                    self.queries.push((a, t));
                }
                None => self.slots.push((None, relative)),
            }
        }
        self.sym.resolve_batch(
            pid,
            &self.queries,
            self.opts.load_time_slack_ns,
            &mut self.hits,
            &mut self.batch,
        );
        out.clear();
        for (f, &(slot, relative)) in frames.iter().zip(&self.slots) {
            if !f.is_unknown() {
                out.push(None);
                continue;
            }
            self.stats.unknown_frames += 1;
            let Some(q) = slot else {
                out.push(None);
                continue;
            };
            let r = self.batch.get(q).copied().flatten();
            let st = &mut self.stats;
            match r {
                Some(r) => {
                    if r.from_jitdump {
                        st.resolved_jitdump += 1;
                    } else {
                        st.resolved_map += 1;
                    }
                    if r.early {
                        st.resolved_early += 1;
                    }
                    if relative {
                        st.resolved_file_relative += 1;
                    }
                }
                None => {
                    st.no_mapping += u64::from(f.dso == Some("[unknown]"));
                    let (a, _) = self.queries.get(q).copied().unwrap_or_default();
                    if self
                        .sym
                        .resolve(pid, a, u64::MAX, 0)
                        .is_some_and(|l| l.from_jitdump)
                    {
                        st.later_load_only += 1;
                    } else if pid.is_some() && self.sym.resolve(None, a, t, 0).is_some() {
                        if let ProcessMatch::Unmatched(id) = pm {
                            st.unmatched_process += 1;
                            st.unmatched_example.get_or_insert(id);
                        } else {
                            st.other_process += 1;
                            st.other_process_example = st.other_process_example.or(pid);
                        }
                    }
                }
            }
            out.push(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::path::Path;

    use super::*;
    use crate::ir::code::{CodeRegion, CodeSource, SourceKind};
    use crate::passes::symbolize::SymbolizerBuilder;

    fn sym(pids: &[u32]) -> Symbolizer {
        let mut b = SymbolizerBuilder::new();
        for &pid in pids {
            b.add_source(CodeSource {
                path: Path::new("jit.dump").into(),
                kind: SourceKind::JitDump,
                pid: Some(pid),
                regions: vec![CodeRegion {
                    name: Cow::Borrowed("f"),
                    start: 0x1000 * u64::from(pid),
                    end: 0x1000 * u64::from(pid) + 0x10,
                    load_time: Some(10),
                    code_index: Some(1),
                }],
                threads: vec![pid, pid + 1],
                warnings: Vec::new(),
            })
            .unwrap();
        }
        b.build().unwrap()
    }

    fn header(pid: Option<u32>, id: Option<u32>) -> SampleHeader<'static> {
        SampleHeader {
            pid,
            tid: pid,
            id,
            time_ns: Some(20),
            time_unit_ns: 1,
            ..SampleHeader::default()
        }
    }

    #[test]
    fn process_of_a_sample() {
        let two = sym(&[5, 50]);
        let mut r = SampleResolver::new(&two, &SymbolizeOptions::default());
        assert_eq!(r.process_of(&header(None, None)), ProcessMatch::NoId);
        assert_eq!(
            r.process_of(&header(Some(9), None)),
            ProcessMatch::Printed(9)
        );
        assert_eq!(
            r.process_of(&header(None, Some(51))),
            ProcessMatch::Thread(50)
        );
        assert_eq!(
            r.process_of(&header(None, Some(5))),
            ProcessMatch::Thread(5)
        );
        assert_eq!(
            r.process_of(&header(None, Some(7))),
            ProcessMatch::Unmatched(7)
        );
        r.add_mapping(Mapping {
            pid: 50,
            tid: 7,
            start: 0,
            len: 1,
            pgoff: 0,
            path: "//anon",
        });
        assert_eq!(
            r.process_of(&header(None, Some(7))),
            ProcessMatch::Thread(50)
        );
        // An unmatched id: frames another process's dump covers are counted.
        let mut out = Vec::new();
        let f = SampleFrame {
            ip: 0x5005,
            sym: crate::ir::code::UNKNOWN,
            sym_off: None,
            dso: None,
            absolute: false,
        };
        r.resolve_sample(&header(None, Some(8)), &[f], &mut out);
        assert!(out[0].is_none());
        assert_eq!(
            (r.stats.unmatched_process, r.stats.unmatched_example),
            (1, Some(8))
        );
        // One process: it applies to every sample; --pid overrides everything.
        let one = sym(&[5]);
        let r = SampleResolver::new(&one, &SymbolizeOptions::default());
        assert_eq!(
            r.process_of(&header(None, Some(8))),
            ProcessMatch::OnlyProcess(5)
        );
        let opts = SymbolizeOptions {
            pid: Some(3),
            ..SymbolizeOptions::default()
        };
        let r = SampleResolver::new(&one, &opts);
        assert_eq!(r.process_of(&header(Some(9), None)), ProcessMatch::Given(3));
    }

    #[test]
    fn frames_only_another_process_covers_are_reported() {
        let two = sym(&[5, 6]);
        let mut r = SampleResolver::new(&two, &SymbolizeOptions::default());
        let f = SampleFrame {
            ip: 0x5005,
            sym: crate::ir::code::UNKNOWN,
            sym_off: None,
            dso: None,
            absolute: false,
        };
        let mut out = Vec::new();
        r.resolve_sample(&header(Some(6), None), &[f], &mut out);
        assert!(out[0].is_none());
        let st = r.finish();
        assert_eq!((st.other_process, st.other_process_example), (1, Some(6)));
        assert!(
            st.warnings()[0].contains("another process"),
            "{:?}",
            st.warnings()
        );
    }

    #[test]
    fn frames_in_no_mapping_are_reported() {
        let one = sym(&[5]);
        let mut r = SampleResolver::new(&one, &SymbolizeOptions::default());
        let f = SampleFrame {
            ip: 0x55913452a498,
            sym: crate::ir::code::UNKNOWN,
            sym_off: None,
            dso: Some("[unknown]"),
            absolute: false,
        };
        let mut out = Vec::new();
        r.resolve_sample(&header(Some(5), None), &[f, f, f], &mut out);
        let st = r.finish();
        assert_eq!(st.no_mapping, 3);
        assert!(
            st.warnings()[0].contains("frame pointers"),
            "{:?}",
            st.warnings()
        );
    }

    #[test]
    fn file_relative_dsos() {
        assert!(is_file_relative(Some("/usr/lib/libnode.so.108")));
        assert!(is_file_relative(Some("/tmp/perf-1.mapx")));
        assert!(!is_file_relative(Some("/tmp/perf-1234.map")));
        assert!(!is_file_relative(Some("//anon")));
        assert!(!is_file_relative(Some("[unknown]")));
        assert!(!is_file_relative(None));
    }

    #[test]
    fn later_loads_are_counted() {
        let one = sym(&[5]);
        let mut r = SampleResolver::new(&one, &SymbolizeOptions::default());
        let f = SampleFrame {
            ip: 0x5005,
            sym: crate::ir::code::UNKNOWN,
            sym_off: None,
            dso: None,
            absolute: false,
        };
        let mut h = header(Some(5), None);
        h.time_ns = Some(3);
        let mut out = Vec::new();
        r.resolve_sample(&h, &[f], &mut out);
        assert!(out[0].is_none());
        assert_eq!(r.stats.later_load_only, 1);
        assert!(r.stats.warnings()[0].contains("--reltime"));
    }
}
