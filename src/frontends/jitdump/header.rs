//! The file header: byte order, version, machine, flags.

use super::{FLAG_ARCH_TIMESTAMP, HEADER_SIZE, MAX_HEADER_SIZE};
use crate::bytes::Endian;
use crate::error::{Error, ErrorKind, Result};

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
