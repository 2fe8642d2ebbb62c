//! Data records (`__llvm_profile_data`) and how their counters and bitmap bytes are found.

use super::header::{RawHeader, RecordLayout};
use crate::bytes::PointerWidth;
use crate::error::{Error, Result};

/// How CounterPtr relates to the counters section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointerMode {
    /// v5–v7: CounterPtr and CountersDelta are absolute addresses.
    Absolute,
    /// v8+: CounterPtr is relative to its own record, CountersDelta to the data section.
    Relative,
}

/// The fields of one data record that the reader uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataRecord {
    /// Index in the data section.
    pub index: u64,
    /// Absolute file offset of the record.
    pub offset: u64,
    /// MD5 of the PGO name.
    pub name_ref: u64,
    /// Structural hash.
    pub func_hash: u64,
    /// CounterPtr as stored (zero-extended).
    pub counter_ptr: u64,
    /// BitmapPtr as stored (v9+).
    pub bitmap_ptr: u64,
    /// UniformCounterPtr as stored (v11; 0 before).
    pub uniform_counter_ptr: u64,
    /// Run-time address of the function (0 if not recorded).
    pub function_ptr: u64,
    /// Counter entries.
    pub num_counters: u32,
    /// Value sites per kind.
    pub value_sites: [u16; 3],
    /// MC/DC bitmap bytes (v9+).
    pub num_bitmap_bytes: u32,
}

impl DataRecord {
    /// Decodes record `index` from its bytes.
    pub fn decode(
        h: &RawHeader,
        l: &RecordLayout,
        bytes: &[u8],
        index: u64,
        offset: u64,
    ) -> Option<Self> {
        let e = h.encoding.endian;
        let ptr = |off: usize| -> Option<u64> {
            match l.width {
                PointerWidth::W32 => e.u32_at(bytes, off).map(u64::from),
                PointerWidth::W64 => e.u64_at(bytes, off),
            }
        };
        let mut value_sites = [0u16; 3];
        for (k, slot) in value_sites.iter_mut().enumerate().take(l.value_kinds) {
            *slot = e.u16_at(bytes, l.value_sites + 2 * k)?;
        }
        Some(DataRecord {
            index,
            offset,
            name_ref: e.u64_at(bytes, 0)?,
            func_hash: e.u64_at(bytes, 8)?,
            counter_ptr: ptr(l.counter_ptr)?,
            bitmap_ptr: match l.bitmap_ptr {
                Some(o) => ptr(o)?,
                None => 0,
            },
            uniform_counter_ptr: match l.uniform_ptr {
                Some(o) => ptr(o)?,
                None => 0,
            },
            function_ptr: ptr(l.function_ptr)?,
            num_counters: e.u32_at(bytes, l.num_counters)?,
            value_sites,
            num_bitmap_bytes: match l.num_bitmap_bytes {
                Some(o) => e.u32_at(bytes, o)?,
                None => 0,
            },
        })
    }

    /// True if the record is followed by a value-profile block.
    pub fn has_value_block(&self) -> bool {
        self.value_sites.iter().any(|&n| n != 0)
    }
}

/// Computes `pointer - delta` the way the runtime wrote it: modulo 2^(8·P), as a signed
/// P-byte number. For relative pointers the record's own position is added back
/// (`+ index × record size`), which is what LLVM's running `CountersDelta -= sizeof(Data)` does.
pub fn section_offset(
    mode: PointerMode,
    width: PointerWidth,
    pointer: u64,
    delta: u64,
    index: u64,
    record_size: u64,
) -> i64 {
    let diff = match mode {
        PointerMode::Absolute => pointer.wrapping_sub(delta),
        PointerMode::Relative => pointer
            .wrapping_add(index.wrapping_mul(record_size))
            .wrapping_sub(delta),
    };
    width.signed(diff)
}

/// Where a record's counters or bitmap bytes are inside their section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Byte offset inside the section.
    pub start: u64,
    /// Byte length.
    pub len: u64,
}

/// The section a record points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    /// Counters, through CounterPtr.
    Counter,
    /// MC/DC bitmap bytes, through BitmapPtr (v9+).
    Bitmap,
    /// Uniform counters, through UniformCounterPtr (v11).
    UniformCounter,
}

impl SpanKind {
    /// The singular noun in LLVM's messages ("counter offset ...").
    pub fn what(self) -> &'static str {
        match self {
            SpanKind::Counter => "counter",
            SpanKind::Bitmap => "bitmap",
            SpanKind::UniformCounter => "uniform counter",
        }
    }

    /// The plural noun in LLVM's messages ("number of counters ...").
    fn noun(self) -> &'static str {
        match self {
            SpanKind::Counter => "counters",
            SpanKind::Bitmap => "bitmap bytes",
            SpanKind::UniformCounter => "uniform counters",
        }
    }

    /// The record field the span comes from.
    fn field(self) -> &'static str {
        match self {
            SpanKind::Counter => "counter pointer",
            SpanKind::Bitmap => "bitmap pointer",
            SpanKind::UniformCounter => "uniform counter pointer",
        }
    }

    /// The stored pointer of this kind in `rec`.
    pub fn pointer(self, rec: &DataRecord) -> u64 {
        match self {
            SpanKind::Counter => rec.counter_ptr,
            SpanKind::Bitmap => rec.bitmap_ptr,
            SpanKind::UniformCounter => rec.uniform_counter_ptr,
        }
    }
}

/// Checks that `count` entries of `entry` bytes starting at `offset` fit in a section of
/// `section_len` bytes, with LLVM's wording.
pub fn check_span(
    offset: i64,
    count: u64,
    entry: u64,
    section_len: u64,
    kind: SpanKind,
    record_offset: u64,
) -> Result<Span> {
    let (what, field, noun) = (kind.what(), kind.field(), kind.noun());
    if offset < 0 {
        return Err(Error::malformed(
            record_offset,
            field,
            format!("{what} offset {offset} is negative"),
        ));
    }
    let off = offset as u64;
    if off >= section_len {
        return Err(Error::malformed(
            record_offset,
            field,
            format!(
                "{what} offset {off} is greater than the maximum {what} offset {}",
                section_len as i128 - 1
            ),
        ));
    }
    let max = (section_len - off) / entry;
    if count > max {
        return Err(Error::malformed(
            record_offset,
            field,
            format!("number of {noun} {count} is greater than the maximum number of {noun} {max}"),
        ));
    }
    Ok(Span {
        start: off,
        len: count * entry,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_offsets_from_real_files() {
        // clang-22 simple.c (format reference §17.1): CountersDelta −40, record 1 CounterPtr −88.
        let delta = (-40i64) as u64;
        assert_eq!(
            section_offset(
                PointerMode::Relative,
                PointerWidth::W64,
                (-88i64) as u64,
                delta,
                1,
                64
            ),
            16
        );
        assert_eq!(
            section_offset(
                PointerMode::Relative,
                PointerWidth::W64,
                (-144i64) as u64,
                delta,
                2,
                64
            ),
            24
        );
        // 32-bit writers store zero-extended 32-bit values.
        assert_eq!(
            section_offset(
                PointerMode::Relative,
                PointerWidth::W32,
                0xffff_ff90,
                0xffff_ffb8,
                1,
                48
            ),
            8
        );
        // Absolute pointers (v5-v7) ignore the record index.
        assert_eq!(
            section_offset(
                PointerMode::Absolute,
                PointerWidth::W64,
                0x5000_0010,
                0x5000_0000,
                7,
                48
            ),
            16
        );
    }

    #[test]
    fn span_checks_use_llvm_wording() {
        assert!(check_span(0, 2, 8, 16, SpanKind::Counter, 0).is_ok());
        let e = check_span(-8, 1, 8, 16, SpanKind::Counter, 0x40).unwrap_err();
        assert!(
            e.to_string().contains("counter offset -8 is negative"),
            "{e}"
        );
        assert_eq!(e.offset(), Some(0x40));
        let e = check_span(16, 1, 8, 16, SpanKind::Counter, 0).unwrap_err();
        assert!(
            e.to_string()
                .contains("greater than the maximum counter offset 15"),
            "{e}"
        );
        let e = check_span(8, 2, 8, 16, SpanKind::Counter, 0).unwrap_err();
        assert!(
            e.to_string()
                .contains("number of counters 2 is greater than the maximum number of counters 1"),
            "{e}"
        );
        let e = check_span(0, 1, 1, 0, SpanKind::Bitmap, 0).unwrap_err();
        assert!(e.to_string().contains("maximum bitmap offset -1"), "{e}");
        let e = check_span(8, 2, 8, 16, SpanKind::UniformCounter, 0).unwrap_err();
        assert!(
            e.to_string().contains(
                "number of uniform counters 2 is greater than the maximum number of uniform counters 1"
            ),
            "{e}"
        );
    }
}
