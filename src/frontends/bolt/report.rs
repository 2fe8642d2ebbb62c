//! BOLT profiles read for `show` and `overlap`: an fdata or YAML profile's bytes into a
//! [`BranchProfile`], the format-neutral records of `ir::bolt_report`. fdata is read through
//! the reader's line views ([`FdataReader`]), YAML through [`read_yaml`], so every error
//! names the line (and, in YAML, the path of the value) as a merge's does.

use super::fdata::FdataReader;
use super::looks_like_fdata;
use super::yaml::{looks_like_yaml, read_yaml};
use crate::error::Result;
use crate::frontends::FormatKind;
use crate::ir::bolt::FdataLineKind;
use crate::ir::bolt_report::{BoltFormat, BoltRecord, BoltRecordKind, BranchProfile};
use crate::ir::bolt_yaml::{PF_LBR, YamlFunction, YamlProfile};
use crate::sys::alloc;

/// What the records' memory is for, in an out-of-memory error.
const RECORDS: &str = "the records of a BOLT profile";

/// The BOLT format of a file from its first bytes, or `None` if it is not a BOLT profile.
/// Bytes that another format claims are not looked at ([`FormatKind::sniff`]), so no input
/// that `show` or `overlap` read before is read differently — except one: a perf map's rule
/// (`HEX HEX NAME`) also takes an fdata line whose first symbol is a hexadecimal word
/// (`1 add 1c 1 add 20 0 5`); such bytes are fdata when their first record is a valid fdata
/// line (a perf map starting at address 0–5 with a name of six words would not be read).
pub fn sniff_bolt(bytes: &[u8]) -> Option<BoltFormat> {
    let kind = FormatKind::sniff(bytes);
    match kind {
        FormatKind::Unknown if looks_like_yaml(bytes) => Some(BoltFormat::Yaml),
        FormatKind::Unknown if looks_like_fdata(bytes) => Some(BoltFormat::Fdata),
        FormatKind::PerfMap
            if looks_like_fdata(bytes) && matches!(FdataReader::new(bytes).next(), Some(Ok(_))) =>
        {
            Some(BoltFormat::Fdata)
        }
        _ => None,
    }
}

/// Reads a BOLT profile of `format` from `bytes` for a report. Errors name the line.
pub fn read_report(bytes: &[u8], format: BoltFormat) -> Result<BranchProfile> {
    let mut p = match format {
        BoltFormat::Fdata => read_fdata(bytes)?,
        BoltFormat::Yaml => from_yaml(&read_yaml(bytes)?)?,
    };
    p.normalise();
    Ok(p)
}

/// An fdata location (`T NAME OFFSET`) as its symbol and `NAME+0xOFFSET`. The reader has
/// checked the fields: three, the offset hexadecimal of at most 64 bits.
fn location(fields: &[&[u8]]) -> (String, String) {
    let name = String::from_utf8_lossy(fields.get(1).copied().unwrap_or_default()).into_owned();
    let offset = fields
        .get(2)
        .and_then(|o| std::str::from_utf8(o).ok())
        .and_then(|o| u64::from_str_radix(o, 16).ok())
        .unwrap_or(0);
    let shown = format!("{name}+{offset:#x}");
    (name, shown)
}

/// Reads an fdata profile: one record per branch or sample line, memory events totalled.
fn read_fdata(bytes: &[u8]) -> Result<BranchProfile> {
    let reader = FdataReader::new(bytes);
    let mut p = BranchProfile::new(BoltFormat::Fdata);
    p.sampled = reader.mode().no_lbr;
    p.bolted = reader.mode().bolted;
    p.events = String::from_utf8_lossy(reader.events()).into_owned();
    for line in reader {
        let line = line?;
        if line.kind == FdataLineKind::Memory {
            p.memory.0 += 1;
            p.memory.1 = p.memory.1.saturating_add(line.count);
            continue;
        }
        let fields: Vec<&[u8]> = line.locations.split(|&b| b == b' ').collect();
        let (function, from) = location(&fields);
        // The one allocation that grows with the file: refused memory is an error.
        alloc::reserve(&mut p.records, 1, RECORDS)?;
        let (kind, to) = match line.kind {
            FdataLineKind::Sample => (BoltRecordKind::Sample, String::new()),
            _ => (
                BoltRecordKind::Branch,
                location(&fields[3.min(fields.len())..]).1,
            ),
        };
        p.records.push(BoltRecord {
            function,
            kind,
            from,
            to,
            count: line.count,
            mispreds: line.mispreds.unwrap_or(0),
        });
    }
    Ok(p)
}

/// The records of a YAML profile: successor edges and call sites of LBR profiles, block
/// execution counts of sampled ones; calls name their callee by its `fid` in this profile.
fn from_yaml(y: &YamlProfile) -> Result<BranchProfile> {
    let mut p = BranchProfile::new(BoltFormat::Yaml);
    p.sampled = y.header.flags & PF_LBR == 0;
    p.events = y.header.events.clone();
    p.binary = (y.header.binary_name.clone(), y.header.build_id.clone());
    let mut names: Vec<(u32, &str)> = y.functions.iter().map(|f| (f.id, &*f.name)).collect();
    names.sort_unstable();
    let callee = |fid: u32| match names.binary_search_by_key(&fid, |n| n.0) {
        Ok(i) => names[i].1.to_string(),
        Err(_) => format!("<fid {fid}>"),
    };
    for f in &y.functions {
        p.entries.push((f.name.clone(), f.exec));
        let more = f
            .blocks
            .iter()
            .map(|b| b.successors.len() + b.calls.len() + 1);
        alloc::reserve(&mut p.records, more.sum(), RECORDS)?;
        yaml_records(f, p.sampled, &callee, &mut p.records);
    }
    Ok(p)
}

/// The records of one YAML function.
fn yaml_records(
    f: &YamlFunction,
    sampled: bool,
    callee: &dyn Fn(u32) -> String,
    out: &mut Vec<BoltRecord>,
) {
    let record = |kind, from: String, to: String, count, mispreds| BoltRecord {
        function: f.name.clone(),
        kind,
        from,
        to,
        count,
        mispreds,
    };
    for b in &f.blocks {
        let from = format!("{}:bb{}", f.name, b.index);
        if sampled {
            out.push(record(
                BoltRecordKind::Sample,
                from,
                String::new(),
                b.exec,
                0,
            ));
            continue;
        }
        for s in &b.successors {
            let to = format!("{}:bb{}", f.name, s.index);
            out.push(record(
                BoltRecordKind::Branch,
                from.clone(),
                to,
                s.count,
                s.mispreds,
            ));
        }
        for c in &b.calls {
            let mut to = callee(c.dest);
            if c.disc != 0 {
                to.push_str(&format!(" (discriminator {})", c.disc));
            }
            let site = format!("{from}+{:#x}", c.offset);
            out.push(record(BoltRecordKind::Call, site, to, c.count, c.mispreds));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fdata_branches_samples_and_memory() {
        let p = read_report(
            b"1 main 1c 1 main 1e 2 5\n1 main 1c 1 main 1e 1 4\n4 main 1 4 h 0 9\n0 [unknown] 0 1 main 0 0 1\n",
            BoltFormat::Fdata,
        )
        .unwrap();
        assert_eq!(p.memory, (1, 9));
        assert_eq!(p.records.len(), 2);
        assert_eq!(p.records[0].function, "[unknown]");
        let r = &p.records[1];
        assert_eq!(
            (&*r.from, &*r.to, r.count, r.mispreds),
            ("main+0x1c", "main+0x1e", 9, 3)
        );
        let s = read_report(b"no_lbr cycles\n1 f 10 4\n1 f 010 1\n", BoltFormat::Fdata).unwrap();
        assert!(s.sampled);
        assert_eq!(s.events, "cycles");
        assert_eq!(s.records.len(), 1);
        assert_eq!(
            (s.records[0].kind, s.records[0].count),
            (BoltRecordKind::Sample, 5)
        );
    }

    #[test]
    fn sniffs_only_unknown_bytes() {
        assert_eq!(
            sniff_bolt(b"1 main 1 1 main 2 0 1\n"),
            Some(BoltFormat::Fdata)
        );
        assert_eq!(sniff_bolt(b"---\nheader:\n"), Some(BoltFormat::Yaml));
        assert_eq!(sniff_bolt(b"# IR level\n:ir\n"), None);
        assert_eq!(sniff_bolt(b"{}"), None);
        // Hexadecimal symbols: a perf map's shape, an fdata line's fields.
        assert_eq!(sniff_bolt(b"1 f 0 1 f 10 0 30\n"), Some(BoltFormat::Fdata));
        assert_eq!(sniff_bolt(b"1 f some_function\n"), None);
    }
}
