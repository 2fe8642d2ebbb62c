//! LLVM's binary sample-profile encodings, `SPF_Binary` and `SPF_Ext_Binary`: the pieces their
//! readers and writers share.
//!
//! Both start with ULEB128 `magic` (`SPROF42` and a format byte: `0xff` binary, `0x04`
//! extbinary) and ULEB128 version 103. Every number after that is ULEB128 unless said
//! otherwise. A function profile (the body of both formats) is:
//!
//! ```text
//! top level:  head_samples, context index (name table, or CS name table when context-
//!             sensitive), then the body
//! body:       total_samples, #records, records, #callsites, callsites
//! record:     line offset (≤ 0xffff), discriminator, samples, #targets,
//!             targets (name index, samples) — most samples first, ties by name
//! callsite:   line offset, discriminator, callee name index, then the callee's body
//! ```
//!
//! The profile summary is `total, max count, max function count, #counts, #functions,
//! #entries, (cutoff, min count, #counts) × #entries`.

use crate::bytes::leb128::write_uleb;
#[cfg(feature = "sample")]
use crate::bytes::stack::deep;
use crate::bytes::{Cursor, Endian};
use crate::error::{Error, ErrorKind, Result};
#[cfg(feature = "sample")]
use crate::ir::sample::{FunctionId, FunctionSamples};

/// The sample-profile format version both binary encodings carry (LLVM's `SPVersion`).
pub const VERSION: u64 = 103;

/// The magics of LLVM's binary sample encodings (`SPMagic(Format)`: `SPROF42` in the high
/// bytes, the format in the lowest), decoded here once for format detection, readers and
/// writers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleMagic {
    /// `SPF_Binary` (format byte `0xff`): header, summary, name table, function profiles to
    /// the end.
    Binary,
    /// `SPF_Ext_Binary` (format byte `0x04`): header, section table, sections.
    ExtBinary,
    /// `SPF_Compact_Binary` (format byte `0x02`), removed in LLVM 17: recognised, never read.
    CompactBinary,
}

/// `SPROF42` in the high bytes of every magic.
const SP_MAGIC_HIGH: u64 = u64::from_be_bytes(*b"SPROF42\0");

impl SampleMagic {
    /// The magic's value (written as ULEB128 at the start of a file).
    pub const fn value(self) -> u64 {
        SP_MAGIC_HIGH
            | match self {
                SampleMagic::Binary => 0xff,
                SampleMagic::ExtBinary => 0x04,
                SampleMagic::CompactBinary => 0x02,
            }
    }

    /// The encoding whose magic is `value`.
    pub const fn decode(value: u64) -> Option<SampleMagic> {
        match value {
            v if v == SampleMagic::Binary.value() => Some(SampleMagic::Binary),
            v if v == SampleMagic::ExtBinary.value() => Some(SampleMagic::ExtBinary),
            v if v == SampleMagic::CompactBinary.value() => Some(SampleMagic::CompactBinary),
            _ => None,
        }
    }

    /// The encoding whose ULEB128 magic `data` starts with. The number is decoded as LLVM's
    /// `decodeULEB128` decodes it for `hasFormat`: padding bytes of zero bits past 64 bits
    /// are accepted, a value that does not fit in 64 bits is no magic.
    pub fn sniff(data: &[u8]) -> Option<SampleMagic> {
        let mut value = 0u64;
        for (i, &byte) in data.iter().enumerate() {
            let slice = u64::from(byte & 0x7f);
            let shift = i.saturating_mul(7);
            if shift < 63 {
                value |= slice << shift;
            } else if shift == 63 && slice <= 1 {
                value |= slice << 63;
            } else if slice != 0 {
                return None;
            }
            if byte & 0x80 == 0 {
                return SampleMagic::decode(value);
            }
        }
        None
    }

    /// What a reader of this encoding expects at the start (for messages).
    pub fn expected(self) -> &'static str {
        match self {
            SampleMagic::Binary => "LLVM binary sample profile (SPROF42\\xff)",
            SampleMagic::ExtBinary => "LLVM extbinary sample profile (SPROF42\\x04)",
            SampleMagic::CompactBinary => "LLVM compact binary sample profile (SPROF42\\x02)",
        }
    }
}

/// Section types of extbinary profiles (LLVM's `SecType`).
pub mod sec {
    /// Profile summary.
    pub const SUMMARY: u64 = 1;
    /// Name table (strings, or MD5s).
    pub const NAME_TABLE: u64 = 2;
    /// Profile symbol list.
    pub const SYMBOL_LIST: u64 = 3;
    /// Function offset table (context index → offset in the profile section).
    pub const FUNC_OFFSET_TABLE: u64 = 4;
    /// Function metadata (checksums, attributes).
    pub const FUNC_METADATA: u64 = 5;
    /// Context-sensitive name table.
    pub const CS_NAME_TABLE: u64 = 6;
    /// Function profiles (`SecLBRProfile`).
    pub const LBR_PROFILE: u64 = 32;
}

/// One entry of an extbinary file's section table (`SecHdrTableEntry`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionEntry {
    /// Section type (`sec::*`).
    pub kind: u64,
    /// Flags (`flag::*`).
    pub flags: u64,
    /// Offset of the section from the file's start.
    pub offset: u64,
    /// Size in the file (compressed size framing included).
    pub size: u64,
    /// Where the entry itself is in the file (for messages).
    pub entry_at: u64,
}

/// Section flags. Common flags use the low 32 bits, section-specific ones the high 32.
pub mod flag {
    /// Common: the section is zlib-compressed.
    pub const COMPRESS: u64 = 1;
    /// Common: the profiles in this section have no inlined callees (split layout).
    pub const FLAT: u64 = 1 << 1;
    /// Name table: names are MD5s.
    pub const MD5_NAME: u64 = 1 << 32;
    /// Name table: MD5s are 8-byte little-endian words, not ULEB128.
    pub const FIXED_LENGTH_MD5: u64 = 1 << 33;
    /// Name table: some name has a `.__uniq.` suffix.
    pub const UNIQ_SUFFIX: u64 = 1 << 34;
    /// Summary: partial profile.
    pub const PARTIAL: u64 = 1 << 32;
    /// Summary: context-sensitive profile.
    pub const FULL_CONTEXT: u64 = 1 << 33;
    /// Summary: flow-sensitive discriminators.
    pub const FS_DISCRIMINATOR: u64 = 1 << 34;
    /// Summary: pre-inlined profile.
    pub const PRE_INLINED: u64 = 1 << 36;
    /// Summary: the profile has vtable type counts (LLVM 22 writers with that option).
    pub const HAS_VTABLE_TYPE_PROF: u64 = 1 << 37;
    /// Function metadata: checksums present (probe-based).
    pub const PROBE_BASED: u64 = 1 << 32;
    /// Function metadata: attributes present.
    pub const HAS_ATTRIBUTE: u64 = 1 << 33;
    /// Function offset table: entries sorted by context.
    pub const ORDERED: u64 = 1 << 32;
}

/// A reader of LLVM's sample-binary primitives with `readNumber<T>`'s checks.
#[derive(Debug, Clone)]
pub struct SampleCursor<'a> {
    /// The underlying cursor (absolute offsets).
    pub c: Cursor<'a>,
}

impl<'a> SampleCursor<'a> {
    /// A reader of `data`, whose first byte is at absolute offset `base`.
    pub fn new(data: &'a [u8], base: u64) -> Self {
        SampleCursor {
            c: Cursor::new(data, base, Endian::Little),
        }
    }

    /// Absolute offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.c.offset()
    }

    /// True when nothing is left.
    pub fn is_empty(&self) -> bool {
        self.c.is_empty()
    }

    /// A ULEB128 number.
    #[inline]
    pub fn num(&mut self, what: &'static str) -> Result<u64> {
        crate::bytes::leb128::read_uleb(&mut self.c, what)
    }

    /// A line offset where LLVM checks it: a ULEB128 number of at most 16 bits (LLVM's
    /// "illegal line offset" above).
    pub fn line_offset(&mut self, what: &'static str) -> Result<u32> {
        let at = self.c.offset();
        let line = self.num(what)?;
        if line > 0xffff {
            return Err(Error::malformed(
                at,
                what,
                format!("{line} is above 65535 (LLVM: illegal line offset)"),
            ));
        }
        Ok(line as u32)
    }

    /// A ULEB128 number LLVM reads as `uint32_t`: larger values are malformed.
    #[inline]
    pub fn num_u32(&mut self, what: &'static str) -> Result<u32> {
        let at = self.c.offset();
        let v = self.num(what)?;
        u32::try_from(v).map_err(|_| {
            Error::malformed(
                at,
                what,
                format!("{v} does not fit in 32 bits as LLVM reads it"),
            )
        })
    }

    /// A little-endian u64.
    pub fn u64_le(&mut self, what: &'static str) -> Result<u64> {
        self.c.u64(what)
    }

    /// A NUL-terminated string (without its NUL).
    pub fn string(&mut self, what: &'static str) -> Result<&'a [u8]> {
        let rest = self.c.rest();
        match memchr::memchr(0, rest) {
            Some(n) => {
                let s = self.c.bytes(n as u64, what)?;
                self.c.skip(1, what)?;
                Ok(s)
            }
            None => Err(self.c.truncated(what, rest.len() as u64 + 1)),
        }
    }

    /// A name-table index, checked against the table's length.
    pub fn index(&mut self, len: usize, what: &'static str) -> Result<usize> {
        let at = self.c.offset();
        let i = self.num(what)?;
        if i >= len as u64 {
            return Err(Error::malformed(
                at,
                what,
                format!("index {i} is past the end of a table of {len} entries"),
            ));
        }
        Ok(i as usize)
    }
}

/// Checks the ULEB128 magic and version at the start of a binary sample profile.
pub fn read_header(r: &mut SampleCursor<'_>, magic: SampleMagic) -> Result<()> {
    let at = r.offset();
    let m = r.num("magic")?;
    if m != magic.value() {
        return Err(Error::at(
            at,
            ErrorKind::BadMagic {
                found: m,
                expected: magic.expected(),
            },
        ));
    }
    let at = r.offset();
    let v = r.num("version")?;
    if v != VERSION {
        return Err(Error::at(
            at,
            ErrorKind::UnsupportedVersion {
                format: "LLVM sample profile",
                version: v,
                supported: "only version 103 exists",
            },
        ));
    }
    Ok(())
}

/// A stored profile summary (writers recompute it; readers keep it as LLVM's reader does,
/// see [`StoredSummary::to_summary`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredSummary {
    /// Sum of all body counts.
    pub total_count: u64,
    /// Largest body count.
    pub max_count: u64,
    /// Largest head count of a top-level function.
    pub max_function_count: u64,
    /// Number of body counts.
    pub num_counts: u64,
    /// Number of top-level functions.
    pub num_functions: u64,
    /// (cutoff, min count, number of counts).
    pub entries: Vec<(u64, u64, u64)>,
}

impl StoredSummary {
    /// The summary as LLVM's reader holds it (`ProfileSummary`): the number of counts and of
    /// functions, and each entry's cutoff, are 32-bit there, so larger stored values keep
    /// their low 32 bits, as in LLVM.
    pub fn to_summary(&self) -> crate::ir::summary::Summary {
        crate::ir::summary::Summary {
            num_functions: u64::from(self.num_functions as u32),
            num_counts: u64::from(self.num_counts as u32),
            max_function_count: self.max_function_count,
            max_count: self.max_count,
            max_internal_count: 0,
            total_count: self.total_count,
            detailed: self
                .entries
                .iter()
                .map(
                    |&(cutoff, min_count, num_counts)| crate::ir::summary::SummaryEntry {
                        cutoff: cutoff as u32,
                        min_count,
                        num_counts,
                    },
                )
                .collect(),
        }
    }
}

/// Reads a summary.
pub fn read_summary(r: &mut SampleCursor<'_>) -> Result<StoredSummary> {
    let mut s = StoredSummary {
        total_count: r.num("summary: total count")?,
        max_count: r.num("summary: maximum count")?,
        max_function_count: r.num("summary: maximum function count")?,
        num_counts: r.num("summary: number of counts")?,
        num_functions: r.num("summary: number of functions")?,
        entries: Vec::new(),
    };
    let n = r.num("summary: number of entries")?;
    // Each entry takes at least 3 bytes: the loop ends at the data's end.
    for _ in 0..n {
        let cutoff = r.num("summary entry: cutoff")?;
        let min = r.num("summary entry: minimum count")?;
        let count = r.num("summary entry: number of counts")?;
        s.entries.push((cutoff, min, count));
    }
    Ok(s)
}

/// Writes a summary.
pub fn write_summary(out: &mut Vec<u8>, s: &crate::ir::summary::Summary) {
    write_uleb(out, s.total_count);
    write_uleb(out, s.max_count);
    write_uleb(out, s.max_function_count);
    write_uleb(out, s.num_counts);
    write_uleb(out, s.num_functions);
    write_uleb(out, s.detailed.len() as u64);
    for e in &s.detailed {
        write_uleb(out, u64::from(e.cutoff));
        write_uleb(out, e.min_count);
        write_uleb(out, e.num_counts);
    }
}

/// Writes a plain name table (MD5 identities are written as their decimal text, as LLVM's
/// `operator<<` prints them).
#[cfg(feature = "sample")]
pub fn write_plain_names(out: &mut Vec<u8>, names: &[FunctionId]) {
    write_uleb(out, names.len() as u64);
    for n in names {
        n.write_to(out);
        out.push(0);
    }
}

/// Index of every function name in a name table, for writers.
#[cfg(feature = "sample")]
pub type NameIndex = std::collections::HashMap<FunctionId, u64>;

/// Writes one function body (without the head count and context index of a top-level
/// profile; with the callee's name index for nested ones, written by the caller). With
/// `vtables` (extbinary with `SecFlagHasVTableTypeProf`) every body, nested ones too, ends
/// with its vtable type counts: the number of locations, then per location its line offset,
/// discriminator, number of types and (name index, samples) pairs, locations and types in
/// their maps' order.
#[cfg(feature = "sample")]
pub fn write_body(out: &mut Vec<u8>, fs: &FunctionSamples, names: &NameIndex, vtables: bool) {
    write_uleb(out, fs.total_samples);
    write_uleb(out, fs.body.len() as u64);
    for (loc, rec) in &fs.body {
        write_uleb(out, u64::from(loc.line_offset));
        write_uleb(out, u64::from(loc.discriminator));
        write_uleb(out, rec.samples);
        write_uleb(out, rec.call_targets.len() as u64);
        for (target, count) in rec.sorted_call_targets() {
            write_uleb(out, names[target]);
            write_uleb(out, count);
        }
    }
    write_uleb(out, fs.callsite_count() as u64);
    for (loc, site) in &fs.callsites {
        for samples in site.values() {
            write_uleb(out, u64::from(loc.line_offset));
            write_uleb(out, u64::from(loc.discriminator));
            // The callee's own name, as LLVM writes it (it differs from the key only for
            // the unnamed callee an extbinary reader can make: see `frontends`).
            write_uleb(out, names[&samples.name]);
            deep(|| write_body(out, samples, names, vtables));
        }
    }
    if vtables {
        write_uleb(out, fs.type_counts.len() as u64);
        for (loc, types) in &fs.type_counts {
            write_uleb(out, u64::from(loc.line_offset));
            write_uleb(out, u64::from(loc.discriminator));
            write_uleb(out, types.len() as u64);
            for (t, count) in types {
                write_uleb(out, names[t]);
                write_uleb(out, *count);
            }
        }
    }
}

/// Adds the names a function's body refers to (call targets, inlined callees, recursively;
/// with `vtables`, vtable types too), as LLVM's `addNames` does.
#[cfg(feature = "sample")]
pub fn collect_body_names(
    fs: &FunctionSamples,
    out: &mut std::collections::BTreeSet<FunctionId>,
    vtables: bool,
) {
    let mut add = |n: &FunctionId| {
        if !out.contains(n) {
            out.insert(n.clone());
        }
    };
    for rec in fs.body.values() {
        rec.call_targets.keys().for_each(&mut add);
    }
    if vtables {
        fs.type_counts
            .values()
            .flat_map(|m| m.keys())
            .for_each(&mut add);
    }
    for site in fs.callsites.values() {
        for samples in site.values() {
            if !out.contains(&samples.name) {
                out.insert(samples.name.clone());
            }
            deep(|| collect_body_names(samples, out, vtables));
        }
    }
}

#[cfg(feature = "sample")]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magics_are_llvms() {
        // ULEB128 of the binary magic as llvm-profdata writes it.
        let mut v = Vec::new();
        for m in [
            SampleMagic::Binary,
            SampleMagic::ExtBinary,
            SampleMagic::CompactBinary,
        ] {
            v.clear();
            write_uleb(&mut v, m.value());
            assert_eq!(SampleMagic::sniff(&v), Some(m));
            // Zero padding past 64 bits is the same number (LLVM's decodeULEB128).
            let last = v.len() - 1;
            v[last] |= 0x80;
            v.extend_from_slice(&[0x80, 0x80, 0]);
            assert_eq!(SampleMagic::sniff(&v), Some(m));
            // Bits past 64 make it no number.
            *v.last_mut().unwrap() = 1;
            assert_eq!(SampleMagic::sniff(&v), None);
        }
        assert_eq!(SampleMagic::sniff(b"foo:1:2\n"), None);
        assert_eq!(SampleMagic::sniff(&[0xff]), None);
        assert_eq!(SampleMagic::Binary.value(), 0x5350_524f_4634_32ff);
        assert_eq!(SampleMagic::ExtBinary.value(), 0x5350_524f_4634_3204);
    }

    #[test]
    fn strings_and_indices_are_checked() {
        let mut r = SampleCursor::new(b"ab\0c", 10);
        assert_eq!(r.string("s").unwrap(), b"ab");
        let e = r.string("s").unwrap_err();
        assert_eq!(e.offset(), Some(13));
        let mut r = SampleCursor::new(&[5], 0);
        assert!(r.index(5, "i").is_err());
        let mut r = SampleCursor::new(&[0x80, 0x80, 0x80, 0x80, 0x10], 0);
        assert!(r.num_u32("n").is_err());
    }
}
