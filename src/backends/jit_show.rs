//! `show` for the inputs of JIT symbolisation: jitdumps, perf maps and r2rmaps. Each report
//! is text or JSON (`schemas/show.schema.json`), rendered from the file's description (the front-ends' `describe_*` in
//! `code_regions`): what the file is, records or entries by kind, functions, the address
//! range they cover, and every warning with its offset or line.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::bytes::Endian;
use crate::error::Warning;
use crate::ir::code::{
    CodeDescription, JitDumpDescription, MapSummary, PerfMapDescription, R2rMapDescription,
};

fn range(r: Option<(u64, u64)>) -> String {
    match r {
        Some((a, b)) => format!("{a:#x}..{b:#x}"),
        None => "none".into(),
    }
}

/// The report of any input of symbolisation.
pub fn render(d: &CodeDescription) -> String {
    match d {
        CodeDescription::JitDump(d) => render_jitdump(d),
        CodeDescription::PerfMap(d) => render_perf_map(d),
        CodeDescription::R2rMap(d) => render_r2rmap(d),
    }
}

/// The report of a jitdump.
pub fn render_jitdump(d: &JitDumpDescription) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "jitdump version {}, {}, header {} bytes, machine {} ({}), pid {}, flags {:#x}{}",
        d.version,
        match d.endian {
            Endian::Little => "little-endian",
            Endian::Big => "big-endian",
        },
        d.header_size,
        d.elf_mach,
        d.machine,
        d.pid,
        d.flags,
        if d.arch_timestamps {
            " (architecture timestamps)"
        } else {
            ""
        }
    );
    let _ = writeln!(o, "size: {} bytes", d.file_size);
    let _ = writeln!(o, "records by type:");
    for (name, n) in &d.records_by_type {
        let _ = writeln!(o, "  {name:<22} {n:>10}");
    }
    let _ = writeln!(o, "  {:<22} {:>10}", "unknown (skipped)", d.unknown_records);
    let _ = writeln!(
        o,
        "functions: {} distinct names in {} loads",
        d.functions, d.loads
    );
    let _ = writeln!(o, "code address range: {}", range(d.address_range));
    let _ = writeln!(
        o,
        "record time range: {} (ns)",
        match d.time_range {
            Some((a, b)) => format!("{a}..{b}"),
            None => "none".into(),
        }
    );
    let _ = writeln!(
        o,
        "debug-info entries: {} ({} with corrupted file names)",
        d.debug_entries, d.corrupted_debug_names
    );
    warnings(&mut o, &d.warnings);
    o
}

fn warnings(o: &mut String, w: &[Warning]) {
    let _ = writeln!(o, "warnings: {}", w.len());
    for x in w {
        let _ = writeln!(o, "  {x}");
    }
}

fn entry_stats(o: &mut String, s: &MapSummary) {
    let _ = writeln!(
        o,
        "functions: {} distinct names in {} entries",
        s.distinct_names, s.entries
    );
    let _ = writeln!(o, "address range: {}", range(s.address_range));
    let _ = writeln!(
        o,
        "repeated start addresses: {}; overlapping entries: {}; zero-size entries: {}",
        s.repeated_starts, s.overlapping, s.zero_size
    );
}

/// The report of a `perf-PID.map`.
pub fn render_perf_map(d: &PerfMapDescription) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "perf map: {} entries read, {} lines skipped",
        d.summary.entries,
        d.warnings.len()
    );
    entry_stats(&mut o, &d.summary);
    warnings(&mut o, &d.warnings);
    o
}

/// The report of a ReadyToRun map.
pub fn render_r2rmap(d: &R2rMapDescription) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "ReadyToRun map (r2rmap) format version {}", d.version);
    let _ = writeln!(o, "signature: {}", d.signature_hex);
    let _ = writeln!(o, "target OS: {} ({})", d.os.0, d.os.1);
    let _ = writeln!(o, "target architecture: {} ({})", d.arch.0, d.arch.1);
    let _ = writeln!(o, "target ABI: {} ({})", d.abi.0, d.abi.1);
    let _ = writeln!(
        o,
        "method entries: {} (RVAs relative to the image base)",
        d.summary.entries
    );
    entry_stats(&mut o, &d.summary);
    warnings(&mut o, &d.warnings);
    o
}

/// An address range as the text prints it (`0x…` strings: addresses may pass 2^53, which
/// JSON numbers do not hold exactly), or `null`.
fn range_json(r: Option<(u64, u64)>) -> Value {
    match r {
        Some((a, b)) => json!({ "start": format!("{a:#x}"), "end": format!("{b:#x}") }),
        None => Value::Null,
    }
}

fn warnings_json(w: &[Warning]) -> Vec<Value> {
    w.iter().map(super::show::warning_json).collect()
}

/// The counts over a map's entries.
fn summary_json(s: &MapSummary) -> Value {
    json!({
        "entries": s.entries,
        "distinct_names": s.distinct_names,
        "address_range": range_json(s.address_range),
        "repeated_starts": s.repeated_starts,
        "overlapping": s.overlapping,
        "zero_size": s.zero_size,
    })
}

/// The JSON document of the input `file` (`schemas/show.schema.json`: `jitdump`,
/// `perf_map` or `r2rmap`, told apart by `format`): the facts of [`render`].
pub(crate) fn json(file: &str, d: &CodeDescription) -> Value {
    match d {
        CodeDescription::JitDump(d) => json_jitdump(file, d),
        CodeDescription::PerfMap(d) => json!({
            "file": file,
            "format": "perf-map",
            "lines_skipped": d.warnings.len(),
            "summary": summary_json(&d.summary),
            "warnings": warnings_json(&d.warnings),
        }),
        CodeDescription::R2rMap(d) => {
            let token = |t: &(u32, &str)| json!({ "token": t.0, "name": t.1 });
            json!({
                "file": file,
                "format": "r2rmap",
                "version": d.version,
                "signature": d.signature_hex,
                "os": token(&d.os),
                "arch": token(&d.arch),
                "abi": token(&d.abi),
                "summary": summary_json(&d.summary),
                "warnings": warnings_json(&d.warnings),
            })
        }
    }
}

fn json_jitdump(file: &str, d: &JitDumpDescription) -> Value {
    json!({
        "file": file,
        "format": "jitdump",
        "version": d.version,
        "byte_order": match d.endian {
            Endian::Little => "little-endian",
            Endian::Big => "big-endian",
        },
        "header_size": d.header_size,
        "elf_machine": d.elf_mach,
        "machine": d.machine,
        "pid": d.pid,
        "flags": d.flags,
        "arch_timestamps": d.arch_timestamps,
        "file_size": d.file_size,
        "records_by_type": d.records_by_type.iter().map(|(t, n)| json!({ "type": t, "count": n })).collect::<Vec<_>>(),
        "unknown_records": d.unknown_records,
        "functions": d.functions,
        "loads": d.loads,
        "address_range": range_json(d.address_range),
        "time_range": d.time_range.map(|(a, b)| json!({ "first": a, "last": b })),
        "debug_entries": d.debug_entries,
        "corrupted_debug_names": d.corrupted_debug_names,
        "warnings": warnings_json(&d.warnings),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perf_map_report() {
        let d = PerfMapDescription {
            summary: MapSummary {
                entries: 3,
                distinct_names: 2,
                address_range: Some((0x10, 0x1c)),
                repeated_starts: 1,
                overlapping: 1,
                zero_size: 1,
            },
            warnings: vec![Warning::at_line(4, "bad; line skipped")],
        };
        assert_eq!(
            render_perf_map(&d),
            "perf map: 3 entries read, 1 lines skipped\n\
             functions: 2 distinct names in 3 entries\n\
             address range: 0x10..0x1c\n\
             repeated start addresses: 1; overlapping entries: 1; zero-size entries: 1\n\
             warnings: 1\n  line 4: bad; line skipped\n"
        );
    }
}
