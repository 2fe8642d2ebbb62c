//! Back-end for GraalVM Native Image profiles: writes an [`IprofProfile`] as iprof JSON,
//! format 1.0.0 (1.1.0 when there are `instanceofProfiles`, the one field 1.1.0 adds).
//!
//! Output is deterministic: types and methods in id order with their ids as written, entries
//! of each section sorted by site (node id, then BCI), branch triples and type histograms in
//! their canonical orders ([`sort_branches`], [`sort_histogram`]). Run
//! [`crate::passes::normalise::canonicalize`] first for output that does not depend on the
//! inputs' ids or order (dense ids sorted by name, unreferenced symbols removed). The JSON is
//! written as one line, like GraalVM's own files, and streamed: nothing but one section's
//! sorted site list is buffered.

use std::fmt;
use std::io::{self, Write};

use crate::ir::context::Site;
use crate::ir::iprof::{
    IprofProfile, IprofVersion, Section, SectionTotals, SiteMap, TypeCount, sort_branches,
    sort_histogram,
};

/// Counts bytes written through it (to size an output without keeping it).
#[derive(Debug, Default, Clone, Copy)]
pub struct CountingSink {
    /// Bytes written so far.
    pub bytes: u64,
}

impl Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The version the writer declares for `p`: 1.1.0 if it carries instanceof profiles, else
/// 1.0.0.
pub fn output_version(p: &IprofProfile) -> IprofVersion {
    if p.present.contains(Section::Instanceof) && !p.instanceofs.is_empty() {
        IprofVersion::V1_1_0
    } else {
        IprofVersion::V1_0_0
    }
}

fn write_json_str<W: Write>(w: &mut W, s: &str) -> io::Result<()> {
    w.write_all(b"\"")?;
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            b'\n' => Some(b"\\n"),
            b'\r' => Some(b"\\r"),
            b'\t' => Some(b"\\t"),
            0..=0x1f => None,
            _ => continue,
        };
        w.write_all(bytes.get(start..i).unwrap_or_default())?;
        match esc {
            Some(e) => w.write_all(e)?,
            None => write!(w, "\\u{:04x}", b)?,
        }
        start = i + 1;
    }
    w.write_all(bytes.get(start..).unwrap_or_default())?;
    w.write_all(b"\"")
}

fn write_ctx<W: Write>(w: &mut W, p: &IprofProfile, site: Site) -> io::Result<()> {
    w.write_all(b"\"ctx\":\"")?;
    for (k, f) in p.contexts.frames(site).enumerate() {
        if k > 0 {
            w.write_all(b"<")?;
        }
        write!(w, "{}:{}", f.method.0, f.bci)?;
    }
    w.write_all(b"\"")
}

fn sorted_sites<V>(m: &SiteMap<V>) -> Vec<(Site, &V)> {
    let mut v: Vec<(Site, &V)> = m.iter().map(|(s, v)| (*s, v)).collect();
    v.sort_unstable_by_key(|(s, _)| *s);
    v
}

fn write_histogram<W: Write>(w: &mut W, h: &[TypeCount]) -> io::Result<()> {
    let mut h = h.to_vec();
    sort_histogram(&mut h);
    w.write_all(b"[")?;
    for (k, tc) in h.iter().enumerate() {
        if k > 0 {
            w.write_all(b",")?;
        }
        write!(w, "{},{}", tc.ty.0, tc.count)?;
    }
    w.write_all(b"]")
}

fn write_section<W: Write, V>(
    w: &mut W,
    p: &IprofProfile,
    key: &str,
    map: &SiteMap<V>,
    mut records: impl FnMut(&mut W, &V) -> io::Result<()>,
) -> io::Result<()> {
    write!(w, ",\"{key}\":[")?;
    for (k, (site, v)) in sorted_sites(map).into_iter().enumerate() {
        if k > 0 {
            w.write_all(b",")?;
        }
        w.write_all(b"{")?;
        write_ctx(w, p, site)?;
        w.write_all(b",\"records\":")?;
        records(w, v)?;
        w.write_all(b"}")?;
    }
    w.write_all(b"]")
}

/// Writes `p` as iprof JSON to `w` (buffer `w` yourself, e.g. with a `BufWriter`).
pub fn write<W: Write>(p: &IprofProfile, w: &mut W) -> io::Result<()> {
    write!(w, "{{\"version\":\"{}\",\"types\":[", output_version(p))?;
    for (k, (id, name)) in p.symbols.types().enumerate() {
        if k > 0 {
            w.write_all(b",")?;
        }
        write!(w, "{{\"id\":{},\"name\":", id.0)?;
        write_json_str(w, name)?;
        w.write_all(b"}")?;
    }
    w.write_all(b"],\"methods\":[")?;
    for (k, (id, m)) in p.symbols.methods().enumerate() {
        if k > 0 {
            w.write_all(b",")?;
        }
        write!(w, "{{\"id\":{},\"name\":", id.0)?;
        write_json_str(w, m.name)?;
        w.write_all(b",\"signature\":[")?;
        for (j, t) in m.signature.iter().enumerate() {
            if j > 0 {
                w.write_all(b",")?;
            }
            write!(w, "{}", t.0)?;
        }
        w.write_all(b"]}")?;
    }
    w.write_all(b"]")?;
    for s in Section::ALL {
        if !p.present.contains(s) {
            continue;
        }
        match s {
            Section::Monitor => {
                w.write_all(b",\"monitorProfiles\":[")?;
                if !p.monitors.is_empty() {
                    w.write_all(b"{\"ctx\":\"0:0\",\"records\":")?;
                    write_histogram(w, &p.monitors)?;
                    w.write_all(b"}")?;
                }
                w.write_all(b"]")?;
            }
            Section::CallCount => write_section(w, p, s.json_key(), &p.call_counts, |w, c| {
                write!(w, "[{c}]")
            })?,
            Section::Sampling => {
                write_section(w, p, s.json_key(), &p.samples, |w, c| write!(w, "[{c}]"))?
            }
            Section::Conditional => write_section(w, p, s.json_key(), &p.conditionals, |w, bs| {
                let mut bs = bs.clone();
                sort_branches(&mut bs);
                w.write_all(b"[")?;
                for (k, b) in bs.iter().enumerate() {
                    if k > 0 {
                        w.write_all(b",")?;
                    }
                    write!(w, "{},{},{}", b.target_bci, b.index, b.count)?;
                }
                w.write_all(b"]")
            })?,
            Section::VirtualInvoke => {
                write_section(w, p, s.json_key(), &p.virtual_invokes, |w, h| {
                    write_histogram(w, h)
                })?
            }
            Section::Instanceof => write_section(w, p, s.json_key(), &p.instanceofs, |w, h| {
                write_histogram(w, h)
            })?,
        }
    }
    w.write_all(b"}\n")
}

/// Writes `p` into a byte vector.
pub fn to_vec(p: &IprofProfile) -> Vec<u8> {
    let mut v = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = write(p, &mut v);
    v
}

/// The size in bytes `p` would have as written by [`write()`].
pub fn written_size(p: &IprofProfile) -> u64 {
    let mut sink = CountingSink::default();
    let _ = write(p, &mut sink);
    sink.bytes
}

/// What `pgo-merge show` prints for an iprof profile: counts per section and sizes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IprofSummary {
    /// Format version of the input (or of the output, for a written profile).
    pub version: IprofVersion,
    /// Size of the file in bytes, when known.
    pub bytes: Option<u64>,
    /// Number of types.
    pub types: usize,
    /// Number of methods.
    pub methods: usize,
    /// Number of context-tree nodes.
    pub context_nodes: usize,
    /// Deepest context, in frames.
    pub max_depth: u32,
    /// Per-section entry counts, sums and maxima.
    pub totals: SectionTotals,
    /// Sections present.
    pub present: Vec<Section>,
}

/// Summarises `p`; `bytes` is its file size if known.
pub fn summary(p: &IprofProfile, bytes: Option<u64>) -> IprofSummary {
    IprofSummary {
        version: p.version,
        bytes,
        types: p.symbols.type_count(),
        methods: p.symbols.method_count(),
        context_nodes: p.contexts.len(),
        max_depth: p.contexts.nodes().map(|(_, n)| n.depth).max().unwrap_or(0),
        totals: p.totals(),
        present: Section::ALL
            .into_iter()
            .filter(|s| p.present.contains(*s))
            .collect(),
    }
}

/// Formats a byte count as `3.99 MB` (decimal units) plus the exact count.
pub fn human_bytes(b: u64) -> String {
    if b >= 1_000_000 {
        format!("{:.2} MB ({b} bytes)", b as f64 / 1e6)
    } else if b >= 1_000 {
        format!("{:.1} kB ({b} bytes)", b as f64 / 1e3)
    } else {
        format!("{b} bytes")
    }
}

impl fmt::Display for IprofSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "iprof format version {}", self.version)?;
        if let Some(b) = self.bytes {
            writeln!(f, "size: {}", human_bytes(b))?;
        }
        writeln!(f, "types: {}", self.types)?;
        writeln!(f, "methods: {}", self.methods)?;
        writeln!(
            f,
            "context nodes: {} (deepest context: {} frames)",
            self.context_nodes, self.max_depth
        )?;
        writeln!(
            f,
            "{:<24} {:>10} {:>22} {:>20}",
            "section", "entries", "total count", "max count"
        )?;
        for s in &self.present {
            writeln!(
                f,
                "{:<24} {:>10} {:>22} {:>20}",
                s.json_key(),
                self.totals.entries_of(*s),
                self.totals.sum_of(*s),
                self.totals.max_of(*s)
            )?;
        }
        Ok(())
    }
}

/// Before/after sizes of a merge or trim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SizeReduction {
    /// Summed input sizes, bytes.
    pub input_bytes: u64,
    /// Output size, bytes.
    pub output_bytes: u64,
    /// Summed entries of the inputs.
    pub input_entries: u64,
    /// Entries of the output.
    pub output_entries: u64,
    /// Summed methods of the inputs.
    pub input_methods: u64,
    /// Methods of the output.
    pub output_methods: u64,
}

impl SizeReduction {
    /// Output size as a percentage of the input size (100 when the input is empty).
    pub fn percent_of_input(&self) -> f64 {
        if self.input_bytes == 0 {
            100.0
        } else {
            self.output_bytes as f64 * 100.0 / self.input_bytes as f64
        }
    }
}

impl fmt::Display for SizeReduction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "size {} -> {} ({:.1}% of the input); entries {} -> {}; methods {} -> {}",
            human_bytes(self.input_bytes),
            human_bytes(self.output_bytes),
            self.percent_of_input(),
            self.input_entries,
            self.output_entries,
            self.input_methods,
            self.output_methods
        )
    }
}
