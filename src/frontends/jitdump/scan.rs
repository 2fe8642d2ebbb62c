//! The description of a jitdump that `show` prints: counts per record type, ranges and
//! problems, from one walk.

use std::collections::HashSet;

use super::HEADER_SIZE;
use super::debug_info::DebugInfo;
use super::header::JitDumpHeader;
use super::reader::JitDumpReader;
use super::records::{Record, RecordHeader, UnwindingInfo};
use crate::error::{Result, Warning};

/// Counts and problems of one walk over a jitdump ([`scan`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JitDumpSummary {
    /// Records per type id 0..=4.
    pub by_type: [u64; 5],
    /// Records of unknown types.
    pub unknown: u64,
    /// Distinct function names of CODE_LOAD records.
    pub functions: u64,
    /// Lowest code address and highest code end of the loads, if any.
    pub address_range: Option<(u64, u64)>,
    /// First and last record timestamps.
    pub time_range: Option<(u64, u64)>,
    /// Records whose timestamp is below the previous record's, and the largest step back.
    pub backwards: (u64, u64),
    /// Debug entries read, and how many had corrupted names.
    pub debug_entries: (u64, u64),
    /// Warnings: problems with their offsets (a few, then a count).
    pub warnings: Vec<Warning>,
}

/// Individual warnings kept per file; further ones are only counted.
pub const MAX_WARNINGS: usize = 20;

/// Collects warnings, keeping the first [`MAX_WARNINGS`] and counting the rest.
#[derive(Debug, Default)]
pub struct WarningSink {
    /// Kept warnings.
    pub kept: Vec<Warning>,
    /// Warnings not kept.
    pub dropped: u64,
}

impl WarningSink {
    /// Adds one.
    pub fn push(&mut self, w: Warning) {
        if self.kept.len() < MAX_WARNINGS {
            self.kept.push(w);
        } else {
            self.dropped += 1;
        }
    }
    /// The kept warnings plus a summary line for the dropped ones.
    pub fn finish(mut self) -> Vec<Warning> {
        if self.dropped > 0 {
            self.kept.push(Warning::new(format!(
                "… and {} more warnings like these",
                self.dropped
            )));
        }
        self.kept
    }
}

/// Walks every record of `data` and summarises it, for `show`. Errors in the header are
/// returned; problems in records become warnings with their offsets.
pub fn scan(data: &[u8]) -> Result<(JitDumpHeader, JitDumpSummary)> {
    let mut r = JitDumpReader::new(data)?;
    let header = *r.header();
    let mut walk = Walk::default();
    header_warnings(&header, &mut walk.w);
    loop {
        match r.next_record() {
            Ok(Some((rh, rec))) => walk.record(&rh, rec),
            Ok(None) => break,
            Err(e) => walk
                .w
                .push(Warning::from_error(&e).append("; the records before it are kept")),
        }
    }
    Ok((header, walk.finish()))
}

/// Warnings about a header that is read anyway.
fn header_warnings(header: &JitDumpHeader, w: &mut WarningSink) {
    if header.reserved_flags() != 0 {
        w.push(Warning::at(
            0x20,
            format!(
                "header flags {:#x} have reserved bits set (perf rejects such files); records \
                 read anyway",
                header.flags
            ),
        ));
    }
    if header.total_size as u64 != HEADER_SIZE {
        w.push(Warning::at(
            0x8,
            format!(
                "header total_size is {} (expected 40); records read from offset {:#x}",
                header.total_size,
                header.records_start()
            ),
        ));
    }
}

/// The state of [`scan`]'s walk.
#[derive(Default)]
struct Walk<'a> {
    s: JitDumpSummary,
    w: WarningSink,
    /// Distinct names of the loads.
    names: HashSet<&'a [u8]>,
    /// The latest timestamp so far.
    last_ts: Option<u64>,
    /// A line table waiting for the load it describes.
    pending_debug: Option<DebugInfo<'a>>,
}

impl<'a> Walk<'a> {
    /// Counts one record.
    fn record(&mut self, rh: &RecordHeader, rec: Record<'a>) {
        self.timestamp(rh.timestamp);
        let s = &mut self.s;
        match rec {
            Record::CodeLoad(l) => {
                s.by_type[0] += 1;
                self.names.insert(l.name);
                let end = l.code_addr.saturating_add(l.code_size);
                s.address_range = Some(match s.address_range {
                    None => (l.code_addr, end),
                    Some((a, b)) => (a.min(l.code_addr), b.max(end)),
                });
                if let Some(d) = self.pending_debug.take() {
                    walk_debug(&d, Some(l.code_size), s, &mut self.w);
                }
            }
            Record::CodeMove(_) => s.by_type[1] += 1,
            Record::DebugInfo(d) => {
                s.by_type[2] += 1;
                if let Some(prev) = self.pending_debug.replace(d) {
                    walk_debug(&prev, None, s, &mut self.w);
                }
            }
            Record::Close => s.by_type[3] += 1,
            Record::UnwindingInfo(u) => {
                s.by_type[4] += 1;
                check_unwinding(rh, &u, &mut self.w);
            }
            Record::Unknown { .. } => {
                s.unknown += 1;
                if s.unknown == 1 {
                    self.w.push(Warning::at(
                        rh.offset,
                        format!(
                            "record type {} is unknown; skipped (and any further ones, counted)",
                            rh.id
                        ),
                    ));
                }
            }
        }
    }

    /// Counts a record's timestamp: the time range and the steps back in time.
    fn timestamp(&mut self, ts: u64) {
        let s = &mut self.s;
        if let Some(prev) = self.last_ts
            && ts < prev
        {
            s.backwards.0 += 1;
            s.backwards.1 = s.backwards.1.max(prev - ts);
        }
        self.last_ts = Some(self.last_ts.map_or(ts, |p| p.max(ts)));
        s.time_range = Some(match s.time_range {
            None => (ts, ts),
            Some((a, b)) => (a.min(ts), b.max(ts)),
        });
    }

    /// The summary, with the warnings about the whole walk.
    fn finish(mut self) -> JitDumpSummary {
        if let Some(d) = self.pending_debug.take() {
            walk_debug(&d, None, &mut self.s, &mut self.w);
        }
        let (s, w) = (&mut self.s, &mut self.w);
        if s.backwards.0 > 0 {
            w.push(Warning::new(format!(
                "{} records have a timestamp earlier than a previous record's (at most {} ns); \
                 tolerated",
                s.backwards.0, s.backwards.1
            )));
        }
        if s.debug_entries.1 > 0 {
            w.push(Warning::new(format!(
                "{} debug-info file names have garbage before the name (the corrupted names \
                 node 18 and 20 write); the entries were found by their addresses",
                s.debug_entries.1
            )));
        }
        self.s.functions = self.names.len() as u64;
        self.s.warnings = self.w.finish();
        self.s
    }
}

/// Warns about an UNWINDING_INFO record whose sizes do not fit its data. perf
/// (util/jitdump.c) takes the record's data after the fixed part, the last
/// eh_frame_hdr_size bytes of the first unwinding_size as .eh_frame_hdr, and mapped_size
/// only as the length the process mapped: CPython 3.13 rounds it up to 16 bytes past
/// unwinding_size, which is fine.
fn check_unwinding(rh: &RecordHeader, u: &UnwindingInfo<'_>, w: &mut WarningSink) {
    if u.unwinding_size > u.data.len() as u64 || u.eh_frame_hdr_size > u.unwinding_size {
        w.push(Warning::at(
            rh.offset,
            format!(
                "UNWINDING_INFO sizes do not fit (unwinding {}, eh_frame_hdr {}, mapped {}, {} \
                 data bytes in the record)",
                u.unwinding_size,
                u.eh_frame_hdr_size,
                u.mapped_size,
                u.data.len()
            ),
        ));
    }
}

/// Walks a line table, counting its entries and the corrupted names; `size` is the code size
/// of the load it describes, if known.
fn walk_debug(d: &DebugInfo<'_>, size: Option<u64>, s: &mut JitDumpSummary, w: &mut WarningSink) {
    for e in d.entries(size) {
        match e {
            Ok(e) => {
                s.debug_entries.0 += 1;
                if e.corrupted {
                    s.debug_entries.1 += 1;
                }
            }
            Err(e) => {
                w.push(Warning::from_error(&e).append("; the rest of this line table is skipped"))
            }
        }
    }
}
