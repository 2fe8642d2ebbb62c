//! The walk over a jitdump's records.

use super::RECORD_HEADER_SIZE;
use super::debug_info::DebugInfo;
use super::header::{JitDumpHeader, read_header};
use super::records::{
    CodeLoad, CodeMove, Record, RecordHeader, UnwindingInfo, fixed_size, id, record_type_name,
};
use crate::bytes::Endian;
use crate::error::{Error, ErrorKind, Result};

/// Walks the records of a jitdump held in memory (normally a memory map).
#[derive(Debug, Clone)]
pub struct JitDumpReader<'a> {
    data: &'a [u8],
    header: JitDumpHeader,
    pos: u64,
    done: bool,
}

impl<'a> JitDumpReader<'a> {
    /// Reads the header of `data`; records follow with [`JitDumpReader::next_record`].
    pub fn new(data: &'a [u8]) -> Result<Self> {
        let header = read_header(data)?;
        Ok(JitDumpReader {
            data,
            header,
            pos: header.records_start(),
            done: false,
        })
    }

    /// The file header.
    pub fn header(&self) -> &JitDumpHeader {
        &self.header
    }

    /// Absolute offset of the next record.
    pub fn offset(&self) -> u64 {
        self.pos
    }

    /// Total bytes of the input.
    pub fn len(&self) -> u64 {
        self.data.len() as u64
    }

    /// True if the input has no bytes (never the case after a header was read).
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The next record, `Ok(None)` at the end. After an error that makes the position of the
    /// next record unknown (a size below 16, or a record running past the end) the walk ends;
    /// after an error inside a record whose size is sound (too small for its type) it goes on
    /// with the next record.
    pub fn next_record(&mut self) -> Result<Option<(RecordHeader, Record<'a>)>> {
        if self.done {
            return Ok(None);
        }
        let off = self.pos;
        if off >= self.data.len() as u64 {
            self.done = true;
            return Ok(None);
        }
        let rh = self.record_header(off).inspect_err(|_| self.done = true)?;
        let size = u64::from(rh.total_size);
        self.pos = off + size;
        let rec = self.data.get(at(off)..at(off + size)).unwrap_or_default();
        let fixed = fixed_size(rh.id);
        if size < fixed {
            return Err(Error::malformed(
                off + 4,
                "jitdump record total_size",
                format!(
                    "{size} bytes for a {} record, whose fixed part is {fixed} bytes; record \
                     skipped",
                    record_type_name(rh.id)
                ),
            ));
        }
        let record = parse_record(self.header.endian, &rh, rec)?;
        Ok(Some((rh, record)))
    }

    /// The header of the record at `off` (inside the data), checked to lie inside the data
    /// and to be at least a record header long; an error ends the walk.
    fn record_header(&self, off: u64) -> Result<RecordHeader> {
        let len = self.data.len() as u64;
        let e = self.header.endian;
        let hdr = self
            .data
            .get(at(off)..at(off).saturating_add(RECORD_HEADER_SIZE as usize));
        let Some(hdr) = hdr.filter(|h| h.len() == RECORD_HEADER_SIZE as usize) else {
            return Err(Error::at(
                off,
                ErrorKind::Truncated {
                    what: "jitdump record header (the file ends inside it)",
                    needed: RECORD_HEADER_SIZE,
                    available: len - off,
                },
            ));
        };
        let rh = RecordHeader {
            id: e.u32_at(hdr, 0).unwrap_or(0),
            total_size: e.u32_at(hdr, 4).unwrap_or(0),
            timestamp: e.u64_at(hdr, 8).unwrap_or(0),
            offset: off,
        };
        let size = u64::from(rh.total_size);
        if size < RECORD_HEADER_SIZE {
            return Err(Error::malformed(
                off + 4,
                "jitdump record total_size",
                format!(
                    "{size} bytes for a {} record (id {}), smaller than the 16-byte record \
                     header; the records after it cannot be found",
                    record_type_name(rh.id),
                    rh.id
                ),
            ));
        }
        if size > len - off {
            return Err(Error::at(
                off,
                ErrorKind::Truncated {
                    what: record_what(rh.id),
                    needed: size,
                    available: len - off,
                },
            ));
        }
        Ok(rh)
    }

    /// True once the walk has ended (end of data or an error that stops it).
    pub fn is_done(&self) -> bool {
        self.done
    }
}

/// An offset as an index (past any slice if it does not fit).
fn at(o: u64) -> usize {
    usize::try_from(o).unwrap_or(usize::MAX)
}

/// The fields of record `rh`, whose bytes (header included, at least its type's fixed size)
/// are `rec`, in byte order `e`.
fn parse_record<'a>(e: Endian, rh: &RecordHeader, rec: &'a [u8]) -> Result<Record<'a>> {
    let off = rh.offset;
    let u32f = |o: usize| e.u32_at(rec, o).unwrap_or(0);
    let u64f = |o: usize| e.u64_at(rec, o).unwrap_or(0);
    Ok(match rh.id {
        id::CODE_LOAD => Record::CodeLoad(code_load(e, off, rec)?),
        id::CODE_MOVE => Record::CodeMove(CodeMove {
            pid: u32f(16),
            tid: u32f(20),
            vma: u64f(24),
            old_code_addr: u64f(32),
            new_code_addr: u64f(40),
            code_size: u64f(48),
            code_index: u64f(56),
        }),
        id::CODE_DEBUG_INFO => Record::DebugInfo(DebugInfo {
            code_addr: u64f(16),
            nr_entry: u64f(24),
            data: rec.get(32..).unwrap_or_default(),
            data_offset: off + 32,
            endian: e,
        }),
        id::CODE_CLOSE => Record::Close,
        id::CODE_UNWINDING_INFO => Record::UnwindingInfo(UnwindingInfo {
            unwinding_size: u64f(16),
            eh_frame_hdr_size: u64f(24),
            mapped_size: u64f(32),
            data: rec.get(40..).unwrap_or_default(),
        }),
        _ => Record::Unknown {
            payload: rec.get(16..).unwrap_or_default(),
        },
    })
}

/// A CODE_LOAD record at `off`: its fixed fields, the NUL-terminated name after them and
/// the code (perf takes the last `code_size` bytes of the record as the code).
fn code_load(e: Endian, off: u64, rec: &[u8]) -> Result<CodeLoad<'_>> {
    let u32f = |o: usize| e.u32_at(rec, o).unwrap_or(0);
    let u64f = |o: usize| e.u64_at(rec, o).unwrap_or(0);
    let tail = rec.get(56..).unwrap_or_default();
    let code_size = u64f(40);
    let Some(nul) = tail.iter().position(|&b| b == 0) else {
        return Err(Error::malformed(
            off + 56,
            "jitdump CODE_LOAD name",
            "no NUL terminator inside the record; record skipped",
        ));
    };
    let code = usize::try_from(code_size)
        .ok()
        .and_then(|n| tail.len().checked_sub(n).map(|s| (s, n)))
        .filter(|&(s, _)| s > nul)
        .and_then(|(s, n)| tail.get(s..s + n))
        .unwrap_or_default();
    Ok(CodeLoad {
        pid: u32f(16),
        tid: u32f(20),
        vma: u64f(24),
        code_addr: u64f(32),
        code_size,
        code_index: u64f(48),
        name: tail.get(..nul).unwrap_or_default(),
        code,
    })
}

fn record_what(id: u32) -> &'static str {
    match id {
        id::CODE_LOAD => "jitdump CODE_LOAD record (the file ends inside it)",
        id::CODE_MOVE => "jitdump CODE_MOVE record (the file ends inside it)",
        id::CODE_DEBUG_INFO => "jitdump CODE_DEBUG_INFO record (the file ends inside it)",
        id::CODE_CLOSE => "jitdump CODE_CLOSE record (the file ends inside it)",
        id::CODE_UNWINDING_INFO => "jitdump CODE_UNWINDING_INFO record (the file ends inside it)",
        _ => "jitdump record of unknown type (the file ends inside it)",
    }
}
