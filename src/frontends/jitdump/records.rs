//! Record types: ids, the record header and the fixed fields of each known type.

use super::RECORD_HEADER_SIZE;
use super::debug_info::DebugInfo;

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
pub(super) fn fixed_size(id: u32) -> u64 {
    match id {
        id::CODE_LOAD => 56,
        id::CODE_MOVE => 64,
        id::CODE_DEBUG_INFO => 32,
        id::CODE_UNWINDING_INFO => 40,
        _ => RECORD_HEADER_SIZE,
    }
}
