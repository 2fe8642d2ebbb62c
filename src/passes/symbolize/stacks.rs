//! Sampled stacks resolved and counted: [`symbolize`] into [`Stacks`], and what they are
//! written as.

use std::io::{self, Write};

use crate::error::{Error, ErrorKind, Result};
use crate::ir::code::{SampleFrame, SampleSource, UNKNOWN};
use crate::ir::context::Frame;
use crate::ir::fx::FxHashMap;
use crate::ir::iprof::{IprofProfile, IprofVersion, Section, add_counts};
use crate::ir::java_symbols::{MethodId, TypeId};

use super::sample::SampleResolver;
use super::{Resolved, SymbolizeStats, Symbolizer};

/// Options of [`symbolize`].
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SymbolizeOptions {
    /// Accept a jitdump load up to this many ns *after* the sample when no earlier load
    /// covers the address (0, the default, agrees exactly with `perf inject --jit`).
    pub load_time_slack_ns: u64,
    /// Take every sample to be of this process, whatever id the text prints.
    pub pid: Option<u32>,
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
    /// and types built from the frame names ([`super::names::split`]), in canonical form. Stacks
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
                let m = match method_of.get(f as usize).copied().flatten() {
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
                        let s = super::names::split(name, default);
                        // Declaring type and return type at least, as GraalVM requires.
                        sig.clear();
                        sig.push(p.symbols.intern_type(&s.declaring));
                        sig.push(
                            p.symbols.intern_type(
                                s.ret
                                    .as_deref()
                                    .unwrap_or(super::names::UNKNOWN_RETURN_TYPE),
                            ),
                        );
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
