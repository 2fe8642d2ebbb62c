//! JIT_CODE_DEBUG_INFO line tables, walked lazily.

use crate::bytes::Endian;
use crate::error::{Error, ErrorKind, Result};

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
    /// The file's byte order.
    pub(super) endian: Endian,
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
