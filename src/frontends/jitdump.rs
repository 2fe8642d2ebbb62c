//! Front-end for jitdump files (`jit-<pid>.dump`), the binary log in which JIT runtimes (V8,
//! .NET, Julia/LLVM, perf's JVMTI agent) describe the code they generate.
//!
//! Layout (all integers in the writer's byte order, detected from the magic): a file header
//! (40 bytes in every known writer), then records, each a 16-byte header `id, total_size,
//! timestamp` followed by its payload; `total_size` counts the whole record. Records may
//! start at any offset (V8's are unaligned), so every field is read with unaligned loads.
//!
//! [`JitDumpReader`] walks a byte slice (normally a memory map of the file) one record at a
//! time and hands out records that borrow from it: nothing is copied and nothing is
//! collected, so a multi-gigabyte dump costs only the pages the walk touches.
//!
//! Leniency, where real producers force it (see `shared/formats/jitdump.md` §5–6):
//! * header version 1 and 2 (Mono writes 2); a header `total_size` below 40 is read as 40,
//!   a larger one is followed (extra bytes skipped), as linux-perf-data does;
//! * reserved flag bits are reported ([`JitDumpHeader::reserved_flags`]), not fatal;
//! * a record whose size runs past the end of the file (the runtime was still writing) or is
//!   smaller than a record header ends the walk with an error carrying its offset; callers
//!   keep the records before it;
//! * a record of a known type whose size is too small for its fixed fields is an error with
//!   its offset, after which the walk continues with the next record;
//! * ids ≥ 5 are returned as [`Record::Unknown`] and skipped by size;
//! * DEBUG_INFO file names corrupted by node 18 and 20 (16 bytes of allocator data, with NULs, in
//!   front of the name) are walked as the reference describes: a NUL ends a name only if the
//!   next entry's address is plausible ([`DebugInfo::entries`]).

use crate::bytes::Endian;
use crate::error::{Error, ErrorKind, Result};

/// The magic, `JiTD` when printed as a big-endian u32.
pub const MAGIC: u32 = 0x4A69_5444;
/// Size of the file header every known writer uses.
pub const HEADER_SIZE: u64 = 40;
/// Size of a record header.
pub const RECORD_HEADER_SIZE: u64 = 16;
/// Largest header `total_size` followed (larger ones are treated as corrupt): the file
/// header has no variable part, so anything this large is garbage.
pub const MAX_HEADER_SIZE: u64 = 4096;
/// Flag bit 0: timestamps are raw architecture counter values (e.g. x86 TSC).
pub const FLAG_ARCH_TIMESTAMP: u64 = 1;

/// Record ids.
pub mod id {
    /// A function was generated.
    pub const CODE_LOAD: u32 = 0;
    /// A loaded function was moved.
    pub const CODE_MOVE: u32 = 1;
    /// Line table for the next CODE_LOAD.
    pub const CODE_DEBUG_INFO: u32 = 2;
    /// End of the runtime's output.
    pub const CODE_CLOSE: u32 = 3;
    /// Unwinding tables for the next CODE_LOAD.
    pub const CODE_UNWINDING_INFO: u32 = 4;
}

/// Name of a record type for messages and `show`.
pub fn record_type_name(id: u32) -> &'static str {
    match id {
        id::CODE_LOAD => "CODE_LOAD",
        id::CODE_MOVE => "CODE_MOVE",
        id::CODE_DEBUG_INFO => "CODE_DEBUG_INFO",
        id::CODE_CLOSE => "CODE_CLOSE",
        id::CODE_UNWINDING_INFO => "CODE_UNWINDING_INFO",
        _ => "unknown",
    }
}

/// The file header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JitDumpHeader {
    /// Byte order of the file.
    pub endian: Endian,
    /// Format version (1; Mono writes 2).
    pub version: u32,
    /// The header's `total_size` field as written.
    pub total_size: u32,
    /// ELF `e_machine` of the code (62 = x86-64).
    pub elf_mach: u32,
    /// Reserved (V8 writes 0xDEADBEEF).
    pub pad1: u32,
    /// Process id of the runtime.
    pub pid: u32,
    /// Creation time; producers disagree on its clock, so it is shown, never used.
    pub timestamp: u64,
    /// Flags; bit 0 = architecture timestamps.
    pub flags: u64,
}

impl JitDumpHeader {
    /// Flag bits other than bit 0, which perf rejects (non-zero means a damaged header).
    pub fn reserved_flags(&self) -> u64 {
        self.flags & !FLAG_ARCH_TIMESTAMP
    }

    /// Offset of the first record: `total_size` if it is at least 40, else 40.
    pub fn records_start(&self) -> u64 {
        u64::from(self.total_size).max(HEADER_SIZE)
    }

    /// Name of the ELF machine for `show`.
    pub fn machine_name(&self) -> &'static str {
        match self.elf_mach {
            3 => "i386",
            8 => "MIPS",
            20 => "PowerPC",
            21 => "PowerPC64",
            22 => "S390",
            40 => "ARM",
            62 => "x86-64",
            183 => "AArch64",
            243 => "RISC-V",
            258 => "LoongArch",
            _ => "unknown",
        }
    }
}

/// True if `data` starts with a jitdump magic in either byte order.
pub fn sniff(data: &[u8]) -> bool {
    data.starts_with(b"DTiJ") || data.starts_with(b"JiTD")
}

/// Reads the file header.
pub fn read_header(data: &[u8]) -> Result<JitDumpHeader> {
    let endian = if data.starts_with(b"DTiJ") {
        Endian::Little
    } else if data.starts_with(b"JiTD") {
        Endian::Big
    } else {
        let mut found = [0u8; 8];
        for (d, s) in found.iter_mut().zip(data) {
            *d = *s;
        }
        return Err(Error::at(
            0,
            ErrorKind::BadMagic {
                found: u64::from_le_bytes(found),
                expected: "a jitdump file (\"DTiJ\" little-endian or \"JiTD\" big-endian)",
            },
        ));
    };
    if (data.len() as u64) < HEADER_SIZE {
        return Err(Error::at(
            data.len() as u64,
            ErrorKind::Truncated {
                what: "jitdump file header",
                needed: HEADER_SIZE,
                available: data.len() as u64,
            },
        ));
    }
    let u32_at = |o: usize| endian.u32_at(data, o).unwrap_or(0);
    let u64_at = |o: usize| endian.u64_at(data, o).unwrap_or(0);
    let h = JitDumpHeader {
        endian,
        version: u32_at(4),
        total_size: u32_at(8),
        elf_mach: u32_at(12),
        pad1: u32_at(16),
        pid: u32_at(20),
        timestamp: u64_at(24),
        flags: u64_at(32),
    };
    if h.version == 0 || h.version > 2 {
        return Err(Error::at(
            4,
            ErrorKind::UnsupportedVersion {
                format: "jitdump",
                version: u64::from(h.version),
                supported: "this build reads versions 1 and 2",
            },
        ));
    }
    if u64::from(h.total_size) > MAX_HEADER_SIZE {
        return Err(Error::malformed(
            8,
            "jitdump header total_size",
            format!(
                "{} bytes; expected 40 (a header has no variable part; at most {MAX_HEADER_SIZE} \
                 is followed)",
                h.total_size
            ),
        ));
    }
    Ok(h)
}

/// A record header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHeader {
    /// Record type.
    pub id: u32,
    /// Bytes of the whole record, header included.
    pub total_size: u32,
    /// When the record was written (CLOCK_MONOTONIC ns, or TSC with flag bit 0).
    pub timestamp: u64,
    /// Absolute file offset of the record.
    pub offset: u64,
}

/// JIT_CODE_LOAD: a function was generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeLoad<'a> {
    /// Process id.
    pub pid: u32,
    /// Thread that emitted the code.
    pub tid: u32,
    /// "Virtual address of code start" (LLVM writes 0; use `code_addr`).
    pub vma: u64,
    /// Start address of the code.
    pub code_addr: u64,
    /// Bytes of machine code.
    pub code_size: u64,
    /// Unique id of this load, referenced by moves.
    pub code_index: u64,
    /// Function name without its NUL (UTF-8 in practice, not guaranteed).
    pub name: &'a [u8],
    /// The code bytes: the last `code_size` bytes of the record (as perf takes them); empty
    /// when the record is too short to hold them.
    pub code: &'a [u8],
}

impl CodeLoad<'_> {
    /// The name as text (invalid UTF-8 replaced).
    pub fn name_lossy(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.name)
    }
}

/// JIT_CODE_MOVE: a loaded function was relocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeMove {
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// New virtual address.
    pub vma: u64,
    /// Previous start.
    pub old_code_addr: u64,
    /// New start.
    pub new_code_addr: u64,
    /// Size (unchanged).
    pub code_size: u64,
    /// `code_index` of the original load.
    pub code_index: u64,
}

/// JIT_CODE_DEBUG_INFO: a line table for the next load. Entries are walked lazily.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DebugInfo<'a> {
    /// Address of the function described.
    pub code_addr: u64,
    /// Number of entries announced.
    pub nr_entry: u64,
    /// The entry bytes (record payload after the 32-byte fixed part).
    pub data: &'a [u8],
    /// Absolute offset of `data`.
    pub data_offset: u64,
    endian: Endian,
}

/// One line-table entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DebugEntry<'a> {
    /// Absolute code address of the line's first instruction.
    pub addr: u64,
    /// 1-based line.
    pub lineno: i32,
    /// Column discriminator (0 = default).
    pub discrim: i32,
    /// Source file name, without its NUL. May contain garbage in front of the real name
    /// (node 18 and 20); `corrupted` says so.
    pub name: &'a [u8],
    /// True when the name was found by skipping NULs inside it (see [`DebugInfo::entries`]).
    pub corrupted: bool,
}

/// Slack beyond the function's end accepted for a debug entry address (the reference's
/// rule: `code_addr … code_addr + code_size + 0x100`).
const DEBUG_ADDR_SLACK: u64 = 0x100;
/// Largest function size assumed when the debug record's load is not known.
const DEBUG_ADDR_RANGE_UNKNOWN: u64 = 1 << 24;

impl<'a> DebugInfo<'a> {
    /// Walks the entries. `code_size` is the size of the load the record belongs to (the
    /// next CODE_LOAD), when known; it sharpens the corrupted-name rule.
    ///
    /// Names end at a NUL, but node 18 and 20 write names whose first 16 bytes are allocator data
    /// containing NULs. So a NUL ends a name only if it is followed by a plausible next entry
    /// (its address within `code_addr … code_addr + code_size + 0x100`); the last entry's
    /// name ends at the first NUL after which only NUL padding remains. Errors carry the
    /// absolute offset of the entry.
    pub fn entries(&self, code_size: Option<u64>) -> DebugEntries<'a> {
        let hi = self.code_addr.saturating_add(
            code_size
                .map(|s| s.saturating_add(DEBUG_ADDR_SLACK))
                .unwrap_or(DEBUG_ADDR_RANGE_UNKNOWN),
        );
        DebugEntries {
            data: self.data,
            pos: 0,
            base: self.data_offset,
            left: self.nr_entry,
            lo: self.code_addr,
            hi,
            endian: self.endian,
            failed: false,
        }
    }
}

/// Iterator over the entries of a [`DebugInfo`].
#[derive(Debug, Clone)]
pub struct DebugEntries<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    left: u64,
    lo: u64,
    hi: u64,
    endian: Endian,
    failed: bool,
}

/// Fixed bytes of a debug entry before its name.
const DEBUG_ENTRY_FIXED: usize = 16;

impl<'a> Iterator for DebugEntries<'a> {
    type Item = Result<DebugEntry<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 || self.failed {
            return None;
        }
        let start = self.pos;
        let off = self.base + start as u64;
        let fixed = self.data.get(start..start.checked_add(DEBUG_ENTRY_FIXED)?);
        let Some(fixed) = fixed else {
            self.failed = true;
            return Some(Err(Error::at(
                off,
                ErrorKind::Truncated {
                    what: "jitdump debug entry (address, line, column)",
                    needed: DEBUG_ENTRY_FIXED as u64,
                    available: self.data.len().saturating_sub(start) as u64,
                },
            )));
        };
        let addr = self.endian.u64_at(fixed, 0).unwrap_or(0);
        let lineno = self.endian.u32_at(fixed, 8).unwrap_or(0) as i32;
        let discrim = self.endian.u32_at(fixed, 12).unwrap_or(0) as i32;
        let name_start = start + DEBUG_ENTRY_FIXED;
        let rest = self.data.get(name_start..).unwrap_or_default();
        let last = self.left == 1;
        let mut corrupted = false;
        let mut end = None;
        for (i, &b) in rest.iter().enumerate() {
            if b != 0 {
                continue;
            }
            let after = rest.get(i + 1..).unwrap_or_default();
            let plausible = if last {
                after.iter().all(|&x| x == 0)
            } else {
                self.endian
                    .u64_at(after, 0)
                    .is_some_and(|a| a >= self.lo && a < self.hi)
                    && after.len() > DEBUG_ENTRY_FIXED
            };
            if plausible {
                end = Some(i);
                break;
            }
            corrupted = true;
        }
        let Some(end) = end else {
            self.failed = true;
            return Some(Err(Error::malformed(
                self.base + name_start as u64,
                "jitdump debug entry file name",
                format!(
                    "no NUL-terminated name followed by {} found in the {} bytes left",
                    if last {
                        "only padding".to_string()
                    } else {
                        format!("an entry address in {:#x}..{:#x}", self.lo, self.hi)
                    },
                    rest.len()
                ),
            )));
        };
        self.pos = name_start + end + 1;
        self.left -= 1;
        Some(Ok(DebugEntry {
            addr,
            lineno,
            discrim,
            name: rest.get(..end).unwrap_or_default(),
            corrupted,
        }))
    }
}

/// JIT_CODE_UNWINDING_INFO: .eh_frame_hdr + .eh_frame for the next load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnwindingInfo<'a> {
    /// Bytes of unwinding data.
    pub unwinding_size: u64,
    /// Size of the leading .eh_frame_hdr.
    pub eh_frame_hdr_size: u64,
    /// How much the process mapped (0: use frame pointers).
    pub mapped_size: u64,
    /// The data after the 40-byte fixed part (unwinding data and padding).
    pub data: &'a [u8],
}

/// One record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record<'a> {
    /// JIT_CODE_LOAD.
    CodeLoad(CodeLoad<'a>),
    /// JIT_CODE_MOVE.
    CodeMove(CodeMove),
    /// JIT_CODE_DEBUG_INFO.
    DebugInfo(DebugInfo<'a>),
    /// JIT_CODE_CLOSE.
    Close,
    /// JIT_CODE_UNWINDING_INFO.
    UnwindingInfo(UnwindingInfo<'a>),
    /// A record type this reader does not know (id ≥ 5); skipped by size.
    Unknown {
        /// The record's payload.
        payload: &'a [u8],
    },
}

/// Fixed size of each known record type (header included).
fn fixed_size(id: u32) -> u64 {
    match id {
        id::CODE_LOAD => 56,
        id::CODE_MOVE => 64,
        id::CODE_DEBUG_INFO => 32,
        id::CODE_UNWINDING_INFO => 40,
        _ => RECORD_HEADER_SIZE,
    }
}

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
        let len = self.data.len() as u64;
        let off = self.pos;
        if off >= len {
            self.done = true;
            return Ok(None);
        }
        let e = self.header.endian;
        let at = |o: u64| usize::try_from(o).unwrap_or(usize::MAX);
        let hdr = self
            .data
            .get(at(off)..at(off).saturating_add(RECORD_HEADER_SIZE as usize));
        let Some(hdr) = hdr.filter(|h| h.len() == RECORD_HEADER_SIZE as usize) else {
            self.done = true;
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
            self.done = true;
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
            self.done = true;
            return Err(Error::at(
                off,
                ErrorKind::Truncated {
                    what: record_what(rh.id),
                    needed: size,
                    available: len - off,
                },
            ));
        }
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
        let u32f = |o: usize| e.u32_at(rec, o).unwrap_or(0);
        let u64f = |o: usize| e.u64_at(rec, o).unwrap_or(0);
        let record = match rh.id {
            id::CODE_LOAD => {
                let tail = rec.get(56..).unwrap_or_default();
                let code_size = u64f(40);
                let Some(nul) = tail.iter().position(|&b| b == 0) else {
                    return Err(Error::malformed(
                        off + 56,
                        "jitdump CODE_LOAD name",
                        "no NUL terminator inside the record; record skipped",
                    ));
                };
                // perf takes the last `code_size` bytes of the record as the code.
                let code = usize::try_from(code_size)
                    .ok()
                    .and_then(|n| tail.len().checked_sub(n).map(|s| (s, n)))
                    .filter(|&(s, _)| s > nul)
                    .and_then(|(s, n)| tail.get(s..s + n))
                    .unwrap_or_default();
                Record::CodeLoad(CodeLoad {
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
        };
        Ok(Some((rh, record)))
    }

    /// True once the walk has ended (end of data or an error that stops it).
    pub fn is_done(&self) -> bool {
        self.done
    }
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
    pub warnings: Vec<String>,
}

/// Individual warnings kept per file; further ones are only counted.
pub const MAX_WARNINGS: usize = 20;

/// Collects warnings, keeping the first [`MAX_WARNINGS`] and counting the rest.
#[derive(Debug, Default)]
pub struct WarningSink {
    /// Kept warnings.
    pub kept: Vec<String>,
    /// Warnings not kept.
    pub dropped: u64,
}

impl WarningSink {
    /// Adds one.
    pub fn push(&mut self, w: String) {
        if self.kept.len() < MAX_WARNINGS {
            self.kept.push(w);
        } else {
            self.dropped += 1;
        }
    }
    /// The kept warnings plus a summary line for the dropped ones.
    pub fn finish(mut self) -> Vec<String> {
        if self.dropped > 0 {
            self.kept
                .push(format!("… and {} more warnings like these", self.dropped));
        }
        self.kept
    }
}

/// Walks every record of `data` and summarises it, for `show`. Errors in the header are
/// returned; problems in records become warnings with their offsets.
pub fn scan(data: &[u8]) -> Result<(JitDumpHeader, JitDumpSummary)> {
    let mut r = JitDumpReader::new(data)?;
    let header = *r.header();
    let mut s = JitDumpSummary::default();
    let mut w = WarningSink::default();
    if header.reserved_flags() != 0 {
        w.push(format!(
            "at offset 0x20: header flags {:#x} have reserved bits set (perf rejects such \
             files); records read anyway",
            header.flags
        ));
    }
    if header.total_size as u64 != HEADER_SIZE {
        w.push(format!(
            "at offset 0x8: header total_size is {} (expected 40); records read from offset {:#x}",
            header.total_size,
            header.records_start()
        ));
    }
    let mut names = std::collections::HashSet::new();
    let mut last_ts: Option<u64> = None;
    let mut pending_debug: Option<DebugInfo<'_>> = None;
    loop {
        let (rh, rec) = match r.next_record() {
            Ok(Some(x)) => x,
            Ok(None) => break,
            Err(e) => {
                w.push(format!("{e}; the records before it are kept"));
                continue;
            }
        };
        if let Some(prev) = last_ts
            && rh.timestamp < prev
        {
            s.backwards.0 += 1;
            s.backwards.1 = s.backwards.1.max(prev - rh.timestamp);
        }
        last_ts = Some(last_ts.map_or(rh.timestamp, |p| p.max(rh.timestamp)));
        s.time_range = Some(match s.time_range {
            None => (rh.timestamp, rh.timestamp),
            Some((a, b)) => (a.min(rh.timestamp), b.max(rh.timestamp)),
        });
        match rec {
            Record::CodeLoad(l) => {
                s.by_type[0] += 1;
                names.insert(l.name);
                let end = l.code_addr.saturating_add(l.code_size);
                s.address_range = Some(match s.address_range {
                    None => (l.code_addr, end),
                    Some((a, b)) => (a.min(l.code_addr), b.max(end)),
                });
                if let Some(d) = pending_debug.take() {
                    walk_debug(&d, Some(l.code_size), &mut s, &mut w);
                }
            }
            Record::CodeMove(_) => s.by_type[1] += 1,
            Record::DebugInfo(d) => {
                s.by_type[2] += 1;
                if let Some(prev) = pending_debug.replace(d) {
                    walk_debug(&prev, None, &mut s, &mut w);
                }
            }
            Record::Close => s.by_type[3] += 1,
            Record::UnwindingInfo(u) => {
                s.by_type[4] += 1;
                // perf (util/jitdump.c) takes the record's data after the fixed part, the
                // last eh_frame_hdr_size bytes of the first unwinding_size as .eh_frame_hdr,
                // and mapped_size only as the length the process mapped: CPython 3.13 rounds
                // it up to 16 bytes past unwinding_size, which is fine.
                if u.unwinding_size > u.data.len() as u64 || u.eh_frame_hdr_size > u.unwinding_size
                {
                    w.push(format!(
                        "at offset {:#x}: UNWINDING_INFO sizes do not fit (unwinding {}, \
                         eh_frame_hdr {}, mapped {}, {} data bytes in the record)",
                        rh.offset,
                        u.unwinding_size,
                        u.eh_frame_hdr_size,
                        u.mapped_size,
                        u.data.len()
                    ));
                }
            }
            Record::Unknown { .. } => {
                s.unknown += 1;
                if s.unknown == 1 {
                    w.push(format!(
                        "at offset {:#x}: record type {} is unknown; skipped (and any further \
                         ones, counted)",
                        rh.offset, rh.id
                    ));
                }
            }
        }
    }
    if let Some(d) = pending_debug.take() {
        walk_debug(&d, None, &mut s, &mut w);
    }
    if s.backwards.0 > 0 {
        w.push(format!(
            "{} records have a timestamp earlier than a previous record's (at most {} ns); \
             tolerated",
            s.backwards.0, s.backwards.1
        ));
    }
    if s.debug_entries.1 > 0 {
        w.push(format!(
            "{} debug-info file names have garbage before the name (the corrupted names \
             node 18 and 20 write); the entries were found by their addresses",
            s.debug_entries.1
        ));
    }
    s.functions = names.len() as u64;
    s.warnings = w.finish();
    Ok((header, s))
}

fn walk_debug(d: &DebugInfo<'_>, size: Option<u64>, s: &mut JitDumpSummary, w: &mut WarningSink) {
    for e in d.entries(size) {
        match e {
            Ok(e) => {
                s.debug_entries.0 += 1;
                if e.corrupted {
                    s.debug_entries.1 += 1;
                }
            }
            Err(e) => w.push(format!("{e}; the rest of this line table is skipped")),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A little- or big-endian file builder with a comment per field at the call sites.
    pub(crate) struct Builder {
        pub bytes: Vec<u8>,
        big: bool,
    }

    impl Builder {
        pub fn new(big: bool) -> Self {
            Builder {
                bytes: Vec::new(),
                big,
            }
        }
        pub fn u32(&mut self, v: u32) -> &mut Self {
            let b = if self.big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            };
            self.bytes.extend_from_slice(&b);
            self
        }
        pub fn u64(&mut self, v: u64) -> &mut Self {
            let b = if self.big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            };
            self.bytes.extend_from_slice(&b);
            self
        }
        pub fn raw(&mut self, b: &[u8]) -> &mut Self {
            self.bytes.extend_from_slice(b);
            self
        }
        pub fn header(&mut self, version: u32, size: u32) -> &mut Self {
            self.u32(MAGIC) // magic
                .u32(version) // version
                .u32(size) // total_size
                .u32(62) // elf_mach: x86-64
                .u32(0xDEAD_BEEF) // pad1
                .u32(4242) // pid
                .u64(1_000) // timestamp
                .u64(0) // flags
        }
        pub fn load(&mut self, ts: u64, addr: u64, size: u64, index: u64, name: &str) -> &mut Self {
            let total = 56 + name.len() as u64 + 1 + size;
            self.u32(0) // id: CODE_LOAD
                .u32(total as u32) // total_size
                .u64(ts) // timestamp
                .u32(4242) // pid
                .u32(4243) // tid
                .u64(addr) // vma
                .u64(addr) // code_addr
                .u64(size) // code_size
                .u64(index) // code_index
                .raw(name.as_bytes())
                .raw(&[0]); // name + NUL
            for i in 0..size {
                self.bytes.push(i as u8); // code bytes
            }
            self
        }
    }

    #[test]
    fn reads_both_byte_orders() {
        for big in [false, true] {
            let mut b = Builder::new(big);
            b.header(1, 40).load(10, 0x1000, 4, 7, "f");
            b.u32(1) // id: CODE_MOVE
                .u32(64) // total_size
                .u64(11) // timestamp
                .u32(1) // pid
                .u32(2) // tid
                .u64(0x2000) // vma
                .u64(0x1000) // old
                .u64(0x2000) // new
                .u64(4) // size
                .u64(7); // index
            b.u32(3).u32(16).u64(12); // CODE_CLOSE
            let mut r = JitDumpReader::new(&b.bytes).unwrap();
            assert_eq!(r.header().pid, 4242);
            assert_eq!(r.header().pad1, 0xDEAD_BEEF);
            let (h, rec) = r.next_record().unwrap().unwrap();
            assert_eq!((h.offset, h.timestamp), (40, 10));
            let Record::CodeLoad(l) = rec else {
                panic!("{rec:?}")
            };
            assert_eq!(
                (l.code_addr, l.code_size, l.code_index, l.name),
                (0x1000, 4, 7, &b"f"[..])
            );
            assert_eq!(l.code, &[0, 1, 2, 3]);
            let (_, rec) = r.next_record().unwrap().unwrap();
            assert!(
                matches!(rec, Record::CodeMove(m) if m.new_code_addr == 0x2000 && m.code_index == 7)
            );
            assert!(matches!(r.next_record().unwrap().unwrap().1, Record::Close));
            assert!(r.next_record().unwrap().is_none());
        }
    }

    #[test]
    fn unknown_and_unwinding_records() {
        let mut b = Builder::new(false);
        b.header(1, 40);
        b.u32(7).u32(24).u64(1).u64(0xFFFF); // id 7, unknown: skipped by size
        b.u32(4) // UNWINDING_INFO
            .u32(40 + 24) // total_size
            .u64(2) // timestamp
            .u64(20) // unwinding_size
            .u64(20) // eh_frame_hdr_size
            .u64(0) // mapped_size
            .raw(&[1, 0x1b, 3, 0x3b])
            .raw(&[0; 20]); // eh_frame_hdr + padding
        b.load(3, 0x10, 1, 0, "f");
        let mut r = JitDumpReader::new(&b.bytes).unwrap();
        assert!(matches!(
            r.next_record().unwrap().unwrap(),
            (h, Record::Unknown { payload }) if h.id == 7 && payload.len() == 8
        ));
        assert!(matches!(
            r.next_record().unwrap().unwrap().1,
            Record::UnwindingInfo(u) if u.unwinding_size == 20 && u.mapped_size == 0 && u.data.len() == 24
        ));
        let (_, s) = scan(&b.bytes).unwrap();
        assert_eq!((s.by_type, s.unknown), ([1, 0, 0, 0, 1], 1));
        assert!(
            s.warnings[0].contains("record type 7 is unknown"),
            "{:?}",
            s.warnings
        );
        // CPython 3.13: mapped_size rounded up past unwinding_size is no problem; an
        // unwinding_size beyond the record's data is.
        for (unwinding, mapped, warns) in [(20u64, 32u64, false), (25, 32, true)] {
            let mut b = Builder::new(false);
            b.header(1, 40);
            b.u32(4) // UNWINDING_INFO
                .u32(40 + 24) // total_size
                .u64(2) // timestamp
                .u64(unwinding) // unwinding_size
                .u64(20) // eh_frame_hdr_size
                .u64(mapped) // mapped_size
                .raw(&[0; 24]); // unwinding data + padding
            let (_, s) = scan(&b.bytes).unwrap();
            assert_eq!(!s.warnings.is_empty(), warns, "{:?}", s.warnings);
        }
    }

    #[test]
    fn header_quirks() {
        // Mono: version 2, header total_size 32 (read from 40).
        let mut b = Builder::new(false);
        b.header(2, 32).load(1, 0x10, 1, 0, "m");
        let mut r = JitDumpReader::new(&b.bytes).unwrap();
        assert_eq!(r.offset(), 40);
        assert!(r.next_record().unwrap().is_some());
        // A larger header is followed.
        let mut b = Builder::new(false);
        b.header(1, 48)
            .u64(0xFFFF_FFFF_FFFF_FFFF)
            .load(1, 0x10, 1, 0, "m");
        let mut r = JitDumpReader::new(&b.bytes).unwrap();
        assert_eq!(r.offset(), 48);
        assert!(matches!(
            r.next_record().unwrap().unwrap().1,
            Record::CodeLoad(_)
        ));
        // Version 3 is refused with its own message, at the version's offset.
        let mut b = Builder::new(false);
        b.header(3, 40);
        let e = JitDumpReader::new(&b.bytes).unwrap_err();
        assert_eq!(e.offset(), Some(4));
        assert!(e.to_string().contains("version 3"), "{e}");
        let e = JitDumpReader::new(b"ELF\x7f").unwrap_err();
        assert!(e.to_string().contains("jitdump"), "{e}");
    }

    #[test]
    fn malformed_sizes_are_errors_with_offsets() {
        // A record smaller than its header ends the walk.
        let mut b = Builder::new(false);
        b.header(1, 40).load(1, 0x10, 1, 0, "a");
        let second = b.bytes.len() as u64;
        b.u32(0).u32(8).u64(2);
        let mut r = JitDumpReader::new(&b.bytes).unwrap();
        assert!(r.next_record().unwrap().is_some());
        let e = r.next_record().unwrap_err();
        assert_eq!(e.offset(), Some(second + 4));
        assert!(r.next_record().unwrap().is_none());
        // A CODE_LOAD of 20 bytes is skipped with an error; the next record is read.
        let mut b = Builder::new(false);
        b.header(1, 40);
        b.u32(0).u32(20).u64(1).u32(0);
        b.load(2, 0x20, 1, 1, "b");
        let mut r = JitDumpReader::new(&b.bytes).unwrap();
        assert_eq!(r.next_record().unwrap_err().offset(), Some(44));
        assert!(matches!(
            r.next_record().unwrap().unwrap().1,
            Record::CodeLoad(l) if l.name == b"b"
        ));
        // A record past the end: truncated, with its start offset.
        let mut b = Builder::new(false);
        b.header(1, 40).load(1, 0x10, 100, 0, "a");
        b.bytes.truncate(b.bytes.len() - 10);
        let mut r = JitDumpReader::new(&b.bytes).unwrap();
        let e = r.next_record().unwrap_err();
        assert_eq!(e.offset(), Some(40));
        assert!(
            e.to_string()
                .contains("CODE_LOAD record (the file ends inside it)"),
            "{e}"
        );
    }

    #[test]
    fn every_truncation_is_an_error_or_a_prefix() {
        let mut b = Builder::new(false);
        b.header(1, 40).load(1, 0x10, 5, 0, "alpha");
        b.u32(2) // DEBUG_INFO
            .u32(32 + 16 + 2) // total_size
            .u64(2) // ts
            .u64(0x30) // code_addr
            .u64(1) // nr_entry
            .u64(0x30) // addr
            .u32(1) // lineno
            .u32(0) // discrim
            .raw(b"x\0");
        b.load(3, 0x30, 3, 1, "beta");
        let full = b.bytes.clone();
        for n in 0..=full.len() {
            let Ok(mut r) = JitDumpReader::new(&full[..n]) else {
                assert!(n < 40);
                continue;
            };
            let mut loads = 0;
            loop {
                match r.next_record() {
                    Ok(Some((_, Record::CodeLoad(_)))) => loads += 1,
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    Err(e) => assert!(e.offset().is_some()),
                }
            }
            assert!(loads <= 2);
        }
    }

    #[test]
    fn corrupted_debug_names_are_walked_by_address() {
        // node 20: 16 bytes of allocator data (with NULs) in front of the real name.
        let mut b = Builder::new(false);
        let garbage: &[u8] = &[
            0x2f, 0x7c, 0xb3, 0x18, 0, 0, 0, 0, 0xc3, 0xda, 0xaf, 0xcd, 0x87, 0xb7, 0x7b, 0xf7,
        ];
        b.u64(0x1040)
            .u32(3)
            .u32(5)
            .raw(garbage)
            .raw(b"pus/a/work.js\0");
        b.u64(0x1050).u32(4).u32(1).raw(garbage).raw(b"rk.js\0");
        b.raw(&[0, 0, 0]); // padding
        let d = DebugInfo {
            code_addr: 0x1000,
            nr_entry: 2,
            data: &b.bytes,
            data_offset: 100,
            endian: Endian::Little,
        };
        let v: Vec<_> = d.entries(Some(0x80)).map(Result::unwrap).collect();
        assert_eq!(v.len(), 2);
        assert!(v[0].corrupted && v[1].corrupted);
        assert!(v[0].name.ends_with(b"pus/a/work.js"));
        assert_eq!(v[1].lineno, 4);
        // Intact names are not corrupted.
        let mut b = Builder::new(false);
        b.u64(0x1040).u32(3).u32(5).raw(b"node:internal/util\0");
        let d = DebugInfo {
            code_addr: 0x1000,
            nr_entry: 1,
            data: &b.bytes,
            data_offset: 0,
            endian: Endian::Little,
        };
        let v: Vec<_> = d.entries(None).map(Result::unwrap).collect();
        assert_eq!(v[0].name, b"node:internal/util");
        assert!(!v[0].corrupted);
    }
}
