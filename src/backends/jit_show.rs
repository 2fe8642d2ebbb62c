//! `show` for the inputs of JIT symbolisation: jitdumps, perf maps and r2rmaps. Each report
//! is plain text: what the file is, records or entries by kind, functions, the address range
//! they cover, and every warning with its offset or line.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::bytes::Endian;
use crate::error::Result;
use crate::frontends::jitdump::{self, record_type_name};
use crate::frontends::perfmap::{self, MapEntry, PerfMapReader};

fn range(r: Option<(u64, u64)>) -> String {
    match r {
        Some((a, b)) => format!("{a:#x}..{b:#x}"),
        None => "none".into(),
    }
}

/// The report of a jitdump. Errors: an unreadable header.
pub fn render_jitdump(data: &[u8]) -> Result<String> {
    let (h, s) = jitdump::scan(data)?;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "jitdump version {}, {}, header {} bytes, machine {} ({}), pid {}, flags {:#x}{}",
        h.version,
        match h.endian {
            Endian::Little => "little-endian",
            Endian::Big => "big-endian",
        },
        h.total_size,
        h.elf_mach,
        h.machine_name(),
        h.pid,
        h.flags,
        if h.flags & jitdump::FLAG_ARCH_TIMESTAMP != 0 {
            " (architecture timestamps)"
        } else {
            ""
        }
    );
    let _ = writeln!(o, "size: {} bytes", data.len());
    let _ = writeln!(o, "records by type:");
    for (id, n) in s.by_type.iter().enumerate() {
        let _ = writeln!(o, "  {:<22} {n:>10}", record_type_name(id as u32));
    }
    let _ = writeln!(o, "  {:<22} {:>10}", "unknown (skipped)", s.unknown);
    let _ = writeln!(
        o,
        "functions: {} distinct names in {} loads",
        s.functions, s.by_type[0]
    );
    let _ = writeln!(o, "code address range: {}", range(s.address_range));
    let _ = writeln!(
        o,
        "record time range: {} (ns)",
        match s.time_range {
            Some((a, b)) => format!("{a}..{b}"),
            None => "none".into(),
        }
    );
    let _ = writeln!(
        o,
        "debug-info entries: {} ({} with corrupted file names)",
        s.debug_entries.0, s.debug_entries.1
    );
    warnings(&mut o, &s.warnings);
    Ok(o)
}

fn warnings(o: &mut String, w: &[String]) {
    let _ = writeln!(o, "warnings: {}", w.len());
    for x in w {
        let _ = writeln!(o, "  {x}");
    }
}

fn entry_stats(o: &mut String, entries: &[MapEntry<'_>]) {
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
    let overlaps = sorted.windows(2).filter(|w| w[1].0 < w[0].1).count();
    let lo = sorted.first().map(|r| r.0);
    let hi = sorted.iter().map(|r| r.1).max();
    let _ = writeln!(
        o,
        "functions: {} distinct names in {} entries",
        names.len(),
        entries.len()
    );
    let _ = writeln!(o, "address range: {}", range(lo.zip(hi)));
    let _ = writeln!(
        o,
        "repeated start addresses: {}; overlapping entries: {}; zero-size entries: {}",
        starts.values().filter(|&&n| n > 1).count(),
        overlaps,
        entries.iter().filter(|e| e.size == 0).count()
    );
}

/// The report of a `perf-PID.map`.
pub fn render_perf_map(data: &[u8]) -> String {
    let mut entries = Vec::new();
    let mut w = Vec::new();
    for e in PerfMapReader::new(data).entries() {
        match e {
            Ok(e) => entries.push(e),
            Err(e) => w.push(format!("{e}; line skipped")),
        }
    }
    let mut o = String::new();
    let _ = writeln!(
        o,
        "perf map: {} entries read, {} lines skipped",
        entries.len(),
        w.len()
    );
    entry_stats(&mut o, &entries);
    warnings(&mut o, &w);
    o
}

/// The report of a ReadyToRun map. Errors: a bad or unsupported header.
pub fn render_r2rmap(data: &[u8]) -> Result<String> {
    let m = perfmap::read_r2rmap(data)?;
    let h = m.header;
    let mut o = String::new();
    let _ = writeln!(o, "ReadyToRun map (r2rmap) format version {}", h.version);
    let _ = writeln!(o, "signature: {}", h.signature_hex());
    let _ = writeln!(o, "target OS: {} ({})", h.os, h.os_name());
    let _ = writeln!(o, "target architecture: {} ({})", h.arch, h.arch_name());
    let _ = writeln!(o, "target ABI: {} ({})", h.abi, h.abi_name());
    let _ = writeln!(
        o,
        "method entries: {} (RVAs relative to the image base)",
        m.entries.len()
    );
    entry_stats(&mut o, &m.entries);
    warnings(&mut o, &m.warnings);
    Ok(o)
}
