//! BOLT profiles read for `show` and `overlap`: an fdata or YAML profile's bytes into a
//! [`BranchProfile`], the format-neutral records of `ir::bolt_report`. fdata is read through
//! the reader's line views ([`FdataReader`]), YAML through [`read_yaml`], so every error
//! names the line (and, in YAML, the path of the value) as a merge's does.

use super::fdata::FdataReader;
use super::looks_like_fdata;
use super::yaml::{looks_like_yaml, read_yaml};
use std::fmt::Write as _;

use crate::error::{Error, ErrorKind, Result};
use crate::frontends::FormatKind;
use crate::ir::bolt::FdataLineKind;
use crate::ir::bolt_report::{BoltFormat, BoltRecord, BoltRecordKind, BranchProfile, Span};
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

/// The profile's records and their text, grown fallibly: the memory that grows with the
/// file is refused with an error, not an abort.
struct Builder {
    p: BranchProfile,
}

impl Builder {
    /// Room for one more record whose names take at most `bytes` bytes of text.
    fn reserve(&mut self, bytes: usize) -> Result<()> {
        alloc::reserve(&mut self.p.records, 1, RECORDS)?;
        self.p.text.try_reserve(bytes).map_err(|_| {
            Error::new(ErrorKind::OutOfMemory {
                what: RECORDS,
                bytes: (self.p.text.len() as u64).saturating_add(bytes as u64),
            })
        })
    }

    /// Appends `parts` as one span of text (room reserved by [`Builder::reserve`]).
    fn span(&mut self, parts: &[&str]) -> Span {
        let start = self.p.text.len();
        for s in parts {
            self.p.text.push_str(s);
        }
        Span {
            start,
            end: self.p.text.len(),
        }
    }

    /// An fdata location (`T NAME OFFSET`, fields checked by the reader: the offset is
    /// hexadecimal of at most 64 bits) appended as `NAME+0xOFFSET`; its span, and the span
    /// of `NAME` (a prefix of it).
    fn location<'a>(&mut self, mut fields: impl Iterator<Item = &'a [u8]>) -> (Span, Span) {
        let _type = fields.next();
        let name = String::from_utf8_lossy(fields.next().unwrap_or_default());
        let offset = fields
            .next()
            .and_then(|o| std::str::from_utf8(o).ok())
            .and_then(|o| u64::from_str_radix(o, 16).ok())
            .unwrap_or(0);
        let start = self.p.text.len();
        let symbol = self.span(&[&name]);
        // At most 16 hex digits: within the room reserved.
        let _ = write!(self.p.text, "+{offset:#x}");
        let whole = Span {
            start,
            end: self.p.text.len(),
        };
        (symbol, whole)
    }

    /// Adds a record.
    fn push(&mut self, r: BoltRecord) {
        self.p.records.push(r);
    }
}

/// Room for one fdata record's names: each location is written once, its name in at most
/// three times its bytes (a replacement character for a byte of bad UTF-8 takes 3), its
/// offset in at most `+0x` and 16 digits.
fn fdata_room(locations: &[u8]) -> usize {
    locations.len().saturating_mul(3).saturating_add(64)
}

/// Reads an fdata profile: one record per branch or sample line, memory events totalled.
fn read_fdata(bytes: &[u8]) -> Result<BranchProfile> {
    let reader = FdataReader::new(bytes);
    let mut b = Builder {
        p: BranchProfile::new(BoltFormat::Fdata),
    };
    b.p.sampled = reader.mode().no_lbr;
    b.p.bolted = reader.mode().bolted;
    b.p.events = String::from_utf8_lossy(reader.events()).into_owned();
    for line in reader {
        let line = line?;
        if line.kind == FdataLineKind::Memory {
            b.p.memory.0 += 1;
            b.p.memory.1 = b.p.memory.1.saturating_add(line.count);
            continue;
        }
        b.reserve(fdata_room(line.locations))?;
        let mut fields = line.locations.split(|&c| c == b' ');
        let (function, from) = b.location(fields.by_ref().take(3));
        let (kind, to) = match line.kind {
            FdataLineKind::Sample => (BoltRecordKind::Sample, Span::default()),
            _ => (BoltRecordKind::Branch, b.location(fields).1),
        };
        b.push(BoltRecord {
            function,
            kind,
            from,
            to,
            count: line.count,
            mispreds: line.mispreds.map_or(0, |m| m.value),
        });
    }
    Ok(b.p)
}

/// The records of a YAML profile: successor edges and call sites of LBR profiles, block
/// execution counts of sampled ones; calls name their callee by its `fid` in this profile.
fn from_yaml(y: &YamlProfile) -> Result<BranchProfile> {
    let mut b = Builder {
        p: BranchProfile::new(BoltFormat::Yaml),
    };
    b.p.sampled = y.header.flags & PF_LBR == 0;
    b.p.events = y.header.events.clone();
    b.p.binary = (y.header.binary_name.clone(), y.header.build_id.clone());
    let mut names: Vec<(u32, &str)> = y.functions.iter().map(|f| (f.id, &*f.name)).collect();
    names.sort_unstable();
    let callee = |fid: u32| match names.binary_search_by_key(&fid, |n| n.0) {
        Ok(i) => names[i].1.to_string(),
        Err(_) => format!("<fid {fid}>"),
    };
    for f in &y.functions {
        b.p.entries.push((f.name.clone(), f.exec));
        yaml_records(f, b.p.sampled, &callee, &mut b)?;
    }
    Ok(b.p)
}

/// The records of one YAML function.
fn yaml_records(
    f: &YamlFunction,
    sampled: bool,
    callee: &dyn Fn(u32) -> String,
    b: &mut Builder,
) -> Result<()> {
    let room = |to: usize| {
        f.name
            .len()
            .saturating_mul(2)
            .saturating_add(to)
            .saturating_add(64)
    };
    for block in &f.blocks {
        let bid = format!(":bb{}", block.index);
        let record = |b: &mut Builder, kind, site: &str, to: &[&str], count, mispreds| {
            let from = b.span(&[&f.name, &bid, site]);
            let function = Span {
                start: from.start,
                end: from.start + f.name.len(),
            };
            let to = b.span(to);
            b.push(BoltRecord {
                function,
                kind,
                from,
                to,
                count,
                mispreds,
            });
        };
        if sampled {
            b.reserve(room(0))?;
            record(b, BoltRecordKind::Sample, "", &[], block.exec, 0);
            continue;
        }
        for s in &block.successors {
            b.reserve(room(f.name.len()))?;
            let to_bid = format!(":bb{}", s.index);
            record(
                b,
                BoltRecordKind::Branch,
                "",
                &[&f.name, &to_bid],
                s.count,
                s.mispreds,
            );
        }
        for c in &block.calls {
            let mut to = callee(c.dest);
            if c.disc != 0 {
                to.push_str(&format!(" (discriminator {})", c.disc));
            }
            b.reserve(room(to.len()))?;
            let site = format!("+{:#x}", c.offset);
            record(b, BoltRecordKind::Call, &site, &[&to], c.count, c.mispreds);
        }
    }
    Ok(())
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
        assert_eq!(p.function(&p.records[0]), "[unknown]");
        let r = &p.records[1];
        assert_eq!(
            (p.function(r), p.from(r), p.to(r), r.count, r.mispreds),
            ("main", "main+0x1c", "main+0x1e", 9, 3)
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
