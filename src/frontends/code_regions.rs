//! The inputs of JIT symbolisation as IR: the code regions of a jitdump, a `perf-PID.map` or
//! an r2rmap ([`CodeSource`]), and the counts and header fields `show` reports of each
//! (`describe_*`).
//!
//! * A jitdump's CODE_LOAD records are regions loaded at the record's time; a CODE_MOVE adds
//!   the moved code (named as the load it moves) at its new address from the move's time
//!   on. The regions apply to the header's pid.
//! * A perf map's lines are time-less regions (a later line wins over an earlier
//!   overlapping one); the pid comes from the file name (`perf-1234.map`), and a map named
//!   otherwise applies to every process.
//! * An r2rmap's method lines are time-less regions at the image's load base plus their
//!   RVAs, for every process.
//!
//! Names borrow from the input's bytes (a jitdump name that is not UTF-8 is copied with
//! its invalid bytes replaced). Bad records and lines become warnings naming their offset or
//! line; the rest of the input is kept.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use super::jitdump::{self, JitDumpReader, MAX_WARNINGS, Record, record_type_name};
use super::perfmap::{self, MapEntry, NulLines, PerfMapReader};
use crate::error::{Result, Warning};
use crate::ir::code::{
    CodeRegion, CodeSource, JitDumpDescription, MapSummary, PerfMapDescription, R2rMapDescription,
    SourceKind,
};
use crate::ir::fx::FxHashMap;

/// The pid in a `perf-PID.map` file name, if it is one.
pub fn perf_map_pid(path: &Path) -> Option<u32> {
    let n = path.file_name()?.to_str()?;
    n.strip_prefix("perf-")?.strip_suffix(".map")?.parse().ok()
}

/// The warnings of one [`CodeSource`]: the first [`MAX_WARNINGS`] kept, the rest counted
/// (a damaged input would otherwise bury the other messages).
#[derive(Debug, Default)]
struct SourceWarnings {
    kept: Vec<Warning>,
    dropped: u64,
}

impl SourceWarnings {
    /// Adds one.
    fn push(&mut self, w: Warning) {
        if self.kept.len() < MAX_WARNINGS {
            self.kept.push(w);
        } else {
            self.dropped += 1;
        }
    }

    /// The kept warnings plus one counting the dropped ones.
    fn finish(mut self) -> Vec<Warning> {
        if self.dropped > 0 {
            self.kept.push(Warning::new(format!(
                "… and {} more warnings like these",
                self.dropped
            )));
        }
        self.kept
    }
}

/// The CODE_LOAD and CODE_MOVE records of a jitdump (its bytes, normally a memory map: the
/// walk never copies them) as regions of the header's pid. A load of no bytes (or whose end
/// would wrap) is a region covering nothing, as is such a move. A truncated or malformed
/// record becomes a warning with its offset; the records before it (and, where the walk
/// can go on, after it) are kept. Errors: an unreadable header (carrying `path`).
pub fn jitdump_source<'a>(path: &Path, data: &'a [u8]) -> Result<CodeSource<'a>> {
    let mut r = JitDumpReader::new(data).map_err(|e| e.with_path(path))?;
    let pid = r.header().pid;
    let mut w = SourceWarnings::default();
    if r.header().reserved_flags() != 0 {
        w.push(Warning::at(
            0x20,
            format!(
                "header flags {:#x} have reserved bits set (perf rejects such a file); \
                 records read anyway",
                r.header().flags
            ),
        ));
    }
    if r.header().flags & jitdump::FLAG_ARCH_TIMESTAMP != 0 {
        w.push(Warning::new(
            "header flag bit 0 is set: timestamps are architecture counter (TSC) values, \
             which perf script's times are not; resolution by time will be wrong unless \
             the samples use the same counter",
        ));
    }
    // code_index → the region of its latest load.
    let mut by_index: FxHashMap<u64, usize> = FxHashMap::default();
    let mut unknown = 0u64;
    let mut backwards = (0u64, 0u64);
    let mut last = 0u64;
    let mut regions: Vec<CodeRegion<'a>> = Vec::new();
    // The writers' thread ids (a cheap dedup of runs here; sorted and deduplicated below).
    let mut threads: Vec<u32> = Vec::new();
    loop {
        let (rh, rec) = match r.next_record() {
            Ok(Some(x)) => x,
            Ok(None) => break,
            Err(e) => {
                w.push(Warning::from_error(&e).append("; the records before it are kept"));
                continue;
            }
        };
        if rh.timestamp < last {
            backwards.0 += 1;
            backwards.1 = backwards.1.max(last - rh.timestamp);
        }
        last = last.max(rh.timestamp);
        match rec {
            Record::CodeLoad(l) => {
                if l.pid == pid && threads.last() != Some(&l.tid) {
                    threads.push(l.tid);
                }
                by_index.insert(l.code_index, regions.len());
                regions.push(CodeRegion {
                    name: String::from_utf8_lossy(l.name),
                    start: l.code_addr,
                    end: l.code_addr.checked_add(l.code_size).unwrap_or(l.code_addr),
                    load_time: Some(rh.timestamp),
                    code_index: Some(l.code_index),
                });
            }
            Record::CodeMove(m) => {
                let Some(&orig) = by_index.get(&m.code_index) else {
                    w.push(Warning::at(
                        rh.offset,
                        format!(
                            "CODE_MOVE of code_index {} that no earlier CODE_LOAD has; skipped",
                            m.code_index
                        ),
                    ));
                    continue;
                };
                let name = regions
                    .get(orig)
                    .map_or(Cow::Borrowed(""), |o| o.name.clone());
                regions.push(CodeRegion {
                    name,
                    start: m.new_code_addr,
                    end: m
                        .new_code_addr
                        .checked_add(m.code_size)
                        .unwrap_or(m.new_code_addr),
                    load_time: Some(rh.timestamp),
                    code_index: Some(m.code_index),
                });
            }
            Record::Unknown { .. } => unknown += 1,
            Record::DebugInfo(_) | Record::Close | Record::UnwindingInfo(_) => {}
        }
    }
    if unknown > 0 {
        w.push(Warning::new(format!(
            "{unknown} records of unknown type skipped"
        )));
    }
    if backwards.0 > 0 {
        w.push(Warning::new(format!(
            "{} records have a timestamp earlier than a previous record's (at most {} ns); \
             tolerated",
            backwards.0, backwards.1
        )));
    }
    threads.sort_unstable();
    threads.dedup();
    Ok(CodeSource {
        path: path.to_path_buf(),
        kind: SourceKind::JitDump,
        pid: Some(pid),
        regions,
        threads,
        warnings: w.finish(),
    })
}

/// The lines of a `perf-PID.map` as time-less regions (a size of 0 covers one byte, except
/// at the last address, where the region covers nothing). The pid comes from the file name
/// ([`perf_map_pid`]). Bad lines become warnings with their line numbers.
pub fn perf_map_source<'a>(path: &Path, data: &'a [u8]) -> CodeSource<'a> {
    let mut w = SourceWarnings::default();
    let mut regions = Vec::new();
    let mut nul = NulLines::default();
    for e in PerfMapReader::new(data).entries() {
        if let Ok(e) = &e {
            nul.add(e);
        }
        match e {
            Ok(e) => regions.push(CodeRegion {
                name: Cow::Borrowed(e.name),
                start: e.start,
                // The reader refuses START + SIZE past 2^64, but a size-0 line at the
                // last address would still end there once widened to one byte: such a
                // region covers nothing (as a jitdump load whose end would wrap) instead
                // of overflowing (the regression input is in fuzz/regressions/perf_map/).
                end: e.start.saturating_add(e.size.max(1)),
                load_time: None,
                code_index: None,
            }),
            Err(e) => w.push(Warning::from_error(&e).append("; line skipped")),
        }
    }
    if let Some(m) = nul.warning() {
        w.push(Warning::new(m));
    }
    CodeSource {
        path: path.to_path_buf(),
        kind: SourceKind::PerfMap,
        pid: perf_map_pid(path),
        regions,
        threads: Vec::new(),
        warnings: w.finish(),
    }
}

/// The method lines of an r2rmap whose image is loaded at `base` (its RVAs are added to
/// it) as time-less regions of every process; a line whose address would wrap is skipped
/// with a warning. Errors: a bad or unsupported header (carrying `path`).
pub fn r2rmap_source<'a>(path: &Path, data: &'a [u8], base: u64) -> Result<CodeSource<'a>> {
    let m = perfmap::read_r2rmap(data).map_err(|e| e.with_path(path))?;
    let mut w = SourceWarnings::default();
    for x in m.warnings {
        w.push(x);
    }
    let mut regions = Vec::with_capacity(m.entries.len());
    for e in &m.entries {
        let Some(start) = base.checked_add(e.start) else {
            w.push(Warning::at_line(e.line, "base + RVA overflows; skipped"));
            continue;
        };
        let Some(end) = start.checked_add(e.size.max(1)) else {
            w.push(Warning::at_line(
                e.line,
                "base + RVA + length overflows; skipped",
            ));
            continue;
        };
        regions.push(CodeRegion {
            name: Cow::Borrowed(e.name),
            start,
            end,
            load_time: None,
            code_index: None,
        });
    }
    Ok(CodeSource {
        path: path.to_path_buf(),
        kind: SourceKind::R2rMap,
        pid: None,
        regions,
        threads: Vec::new(),
        warnings: w.finish(),
    })
}

/// The header and record counts of a jitdump. Errors: an unreadable header.
pub fn describe_jitdump(data: &[u8]) -> Result<JitDumpDescription> {
    let (h, s) = jitdump::scan(data)?;
    Ok(JitDumpDescription {
        version: h.version,
        endian: h.endian,
        header_size: h.total_size,
        elf_mach: h.elf_mach,
        machine: h.machine_name(),
        pid: h.pid,
        flags: h.flags,
        arch_timestamps: h.flags & jitdump::FLAG_ARCH_TIMESTAMP != 0,
        file_size: data.len() as u64,
        records_by_type: s
            .by_type
            .iter()
            .enumerate()
            .map(|(id, &n)| (record_type_name(id as u32), n))
            .collect(),
        unknown_records: s.unknown,
        loads: s.by_type[0],
        functions: s.functions,
        address_range: s.address_range,
        time_range: s.time_range,
        debug_entries: s.debug_entries.0,
        corrupted_debug_names: s.debug_entries.1,
        warnings: s.warnings,
    })
}

/// Counts over the entries of a map.
fn map_summary(entries: &[MapEntry<'_>]) -> MapSummary {
    let mut names: HashMap<&str, u32> = HashMap::new();
    let mut starts: HashMap<u64, u32> = HashMap::new();
    for e in entries {
        *names.entry(e.name).or_default() += 1;
        *starts.entry(e.start).or_default() += 1;
    }
    let mut sorted: Vec<(u64, u64)> = entries
        .iter()
        .map(|e| (e.start, e.start.saturating_add(e.size)))
        .collect();
    sorted.sort_unstable();
    let lo = sorted.first().map(|r| r.0);
    let hi = sorted.iter().map(|r| r.1).max();
    MapSummary {
        entries: entries.len() as u64,
        distinct_names: names.len() as u64,
        address_range: lo.zip(hi),
        repeated_starts: starts.values().filter(|&&n| n > 1).count() as u64,
        overlapping: sorted.windows(2).filter(|w| w[1].0 < w[0].1).count() as u64,
        zero_size: entries.iter().filter(|e| e.size == 0).count() as u64,
    }
}

/// The entries of a `perf-PID.map`, counted, and its bad lines.
pub fn describe_perf_map(data: &[u8]) -> PerfMapDescription {
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    let mut nul = NulLines::default();
    for e in PerfMapReader::new(data).entries() {
        match e {
            Ok(e) => {
                nul.add(&e);
                entries.push(e);
            }
            Err(e) => warnings.push(Warning::from_error(&e).append("; line skipped")),
        }
    }
    warnings.extend(nul.warning().map(Warning::new));
    PerfMapDescription {
        summary: map_summary(&entries),
        warnings,
    }
}

/// The header of a ReadyToRun map, its method entries counted, and its bad lines. Errors:
/// a bad or unsupported header.
pub fn describe_r2rmap(data: &[u8]) -> Result<R2rMapDescription> {
    let m = perfmap::read_r2rmap(data)?;
    let h = m.header;
    Ok(R2rMapDescription {
        version: h.version,
        signature_hex: h.signature_hex(),
        os: (h.os, h.os_name()),
        arch: (h.arch, h.arch_name()),
        abi: (h.abi, h.abi_name()),
        summary: map_summary(&m.entries),
        warnings: m.warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontends::jitdump::tests::Builder;

    #[test]
    fn jitdump_loads_moves_and_warnings() {
        let mut b = Builder::new(false);
        b.header(1, 40)
            .load(2_000, 0x1000, 0x100, 1, "JS:*hot /app/a.js:3:1")
            .load(1_000, 0x3000, 0, 2, "empty");
        b.u32(1) // id: CODE_MOVE
            .u32(64) // total_size
            .u64(3_000) // timestamp
            .u32(4242) // pid
            .u32(4243) // tid
            .u64(0x2000) // vma
            .u64(0x1000) // old
            .u64(0x2000) // new
            .u64(0x100) // size
            .u64(1); // code_index
        b.u32(1) // id: CODE_MOVE of a code_index never loaded
            .u32(64)
            .u64(4_000)
            .u32(4242)
            .u32(4243)
            .u64(0)
            .u64(0)
            .u64(0x5000)
            .u64(0x10)
            .u64(9);
        let s = jitdump_source(Path::new("jit-4242.dump"), &b.bytes).unwrap();
        assert_eq!((s.kind, s.pid), (SourceKind::JitDump, Some(4242)));
        let got: Vec<_> = s
            .regions
            .iter()
            .map(|r| {
                (
                    &*r.name,
                    r.start,
                    r.end,
                    r.load_time,
                    r.code_index,
                    r.covers_code(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "JS:*hot /app/a.js:3:1",
                    0x1000,
                    0x1100,
                    Some(2_000),
                    Some(1),
                    true
                ),
                ("empty", 0x3000, 0x3000, Some(1_000), Some(2), false),
                (
                    "JS:*hot /app/a.js:3:1",
                    0x2000,
                    0x2100,
                    Some(3_000),
                    Some(1),
                    true
                ),
            ]
        );
        // Names borrow from the file.
        assert!(matches!(s.regions[0].name, Cow::Borrowed(_)));
        assert_eq!(
            s.warnings,
            vec![
                Warning::at(
                    (b.bytes.len() - 64) as u64,
                    "CODE_MOVE of code_index 9 that no earlier CODE_LOAD has; skipped"
                ),
                Warning::new(
                    "1 records have a timestamp earlier than a previous record's (at most 1000 \
                     ns); tolerated"
                ),
            ]
        );
        let e = jitdump_source(Path::new("x.dump"), b"nope").unwrap_err();
        assert!(e.to_string().contains("x.dump"), "{e}");
    }

    #[test]
    fn maps_pid_and_overflows() {
        let s = perf_map_source(Path::new("/tmp/perf-77.map"), b"10 0 a\nzz 1 b\n20 8 c d\n");
        assert_eq!((s.kind, s.pid), (SourceKind::PerfMap, Some(77)));
        let got: Vec<_> = s
            .regions
            .iter()
            .map(|r| (&*r.name, r.start, r.end))
            .collect();
        assert_eq!(got, vec![("a", 0x10, 0x11), ("c d", 0x20, 0x28)]);
        assert_eq!(s.warnings.len(), 1);
        assert_eq!(
            s.warnings[0].location,
            Some(crate::error::Location::Line(2)),
            "{:?}",
            s.warnings
        );
        assert!(
            s.warnings[0].to_string().starts_with("line 2: ")
                && s.warnings[0].message.ends_with("; line skipped"),
            "{:?}",
            s.warnings
        );
        assert_eq!(perf_map_pid(Path::new("jit.map")), None);
        let m = b"FFFFFFFF 00 734D59D6DE0E96AA3C77B3E2ED498097\n\
                  FFFFFFFE 00 1\nFFFFFFFD 00 2\nFFFFFFFC 00 3\nFFFFFFFB 00 1\n\
                  00000010 0D A::f()\n\
                  00000020 10 B::g()\n";
        let s = r2rmap_source(Path::new("a.r2rmap"), m, 0x1000).unwrap();
        assert_eq!((s.kind, s.pid), (SourceKind::R2rMap, None));
        let got: Vec<_> = s
            .regions
            .iter()
            .map(|r| (&*r.name, r.start, r.end))
            .collect();
        assert_eq!(
            got,
            vec![("A::f()", 0x1010, 0x101d), ("B::g()", 0x1020, 0x1030)]
        );
        let s = r2rmap_source(Path::new("a.r2rmap"), m, u64::MAX - 0x18).unwrap();
        assert_eq!(s.regions.len(), 0);
        assert_eq!(
            s.warnings,
            vec![
                Warning::at_line(6, "base + RVA + length overflows; skipped"),
                Warning::at_line(7, "base + RVA overflows; skipped")
            ]
        );
    }

    #[test]
    fn map_descriptions_count_entries() {
        let d = describe_perf_map(b"10 8 a\n14 8 b\n14 0 a\nzz 1 c\n");
        assert_eq!(
            d.summary,
            MapSummary {
                entries: 3,
                distinct_names: 2,
                address_range: Some((0x10, 0x1c)),
                repeated_starts: 1,
                overlapping: 1,
                zero_size: 1,
            }
        );
        assert_eq!(d.warnings.len(), 1);
        assert!(
            d.warnings[0].to_string().starts_with("line 4:"),
            "{:?}",
            d.warnings
        );
    }
}
