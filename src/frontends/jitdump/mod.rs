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
//!
//! Modules: `header` (the file header), `records` (record types and their fixed fields),
//! `debug_info` (line tables, walked lazily), `reader` (the walk), `scan` (the summary
//! `show` prints).

mod debug_info;
mod header;
mod reader;
mod records;
mod scan;
#[cfg(test)]
pub(crate) mod tests;

pub use debug_info::{DebugEntries, DebugEntry, DebugInfo};
pub use header::{JitDumpHeader, read_header, sniff};
pub use reader::JitDumpReader;
pub use records::{CodeLoad, CodeMove, Record, RecordHeader, UnwindingInfo, id, record_type_name};
pub use scan::{JitDumpSummary, MAX_WARNINGS, WarningSink, scan};

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
