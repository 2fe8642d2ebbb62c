//! Raw-profile magic, version word and header layout per version (v5, v7, v8, v9, v10, v11).

use crate::bytes::{Cursor, Endian, PointerWidth};
use crate::error::{Error, ErrorKind, Result};

/// Magic of a raw profile written by a 64-bit program (`\xfflprofr\x81` read big-endian).
pub const MAGIC_64: u64 = crate::codec::magic::RAW_MAGIC_64;
/// Magic of a raw profile written by a 32-bit program (`\xfflprofR\x81`).
pub const MAGIC_32: u64 = crate::codec::magic::RAW_MAGIC_32;

/// Oldest raw version read.
pub const OLDEST_VERSION: u32 = 4;
/// Newest raw version read (LLVM 23).
pub const NEWEST_VERSION: u32 = 11;

/// Sentence used in version errors.
pub const SUPPORTED: &str = "this build reads raw profile versions 4, 5 and 7 to 11 \
                             (LLVM 5 to 23); version 6 only existed on LLVM trunk in 2021";

/// Byte order and pointer width, decoded from the magic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Encoding {
    /// Byte order of every integer in the profile.
    pub endian: Endian,
    /// Pointer size of the writer.
    pub width: PointerWidth,
}

impl Encoding {
    /// Decodes the first 8 bytes of a profile, or `None` if they are not a raw magic.
    pub fn from_magic(b: [u8; 8]) -> Option<Encoding> {
        for endian in [Endian::Little, Endian::Big] {
            match endian.u64(b) {
                MAGIC_64 => {
                    return Some(Encoding {
                        endian,
                        width: PointerWidth::W64,
                    });
                }
                MAGIC_32 => {
                    return Some(Encoding {
                        endian,
                        width: PointerWidth::W32,
                    });
                }
                _ => {}
            }
        }
        None
    }

    /// "64-bit little-endian" etc.
    pub fn describe(&self) -> String {
        format!(
            "{}-bit {}-endian",
            self.width.bytes() * 8,
            match self.endian {
                Endian::Little => "little",
                Endian::Big => "big",
            }
        )
    }
}

/// The header fields that exist in some version. Absent fields read as 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Field {
    Magic,
    Version,
    BinaryIdsSize,
    NumData,
    PaddingBeforeCounters,
    NumCounters,
    PaddingAfterCounters,
    NumBitmapBytes,
    PaddingAfterBitmap,
    NumUniformCounters,
    PaddingAfterUniform,
    UniformCountersDelta,
    NamesSize,
    CountersDelta,
    BitmapDelta,
    NamesDelta,
    NumVTables,
    VNamesSize,
    ValueKindLast,
}

use Field::*;

impl Field {
    /// LLVM's name of the field, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Magic => "Magic",
            Version => "Version",
            BinaryIdsSize => "BinaryIdsSize",
            NumData => "NumData",
            PaddingBeforeCounters => "PaddingBytesBeforeCounters",
            NumCounters => "NumCounters",
            PaddingAfterCounters => "PaddingBytesAfterCounters",
            NumBitmapBytes => "NumBitmapBytes",
            PaddingAfterBitmap => "PaddingBytesAfterBitmapBytes",
            NumUniformCounters => "NumUniformCounters",
            PaddingAfterUniform => "PaddingBytesAfterUniformCounters",
            UniformCountersDelta => "UniformCountersDelta",
            NamesSize => "NamesSize",
            CountersDelta => "CountersDelta",
            BitmapDelta => "BitmapDelta",
            NamesDelta => "NamesDelta",
            NumVTables => "NumVTables",
            VNamesSize => "VNamesSize",
            ValueKindLast => "ValueKindLast",
        }
    }
}

/// Version 4 (LLVM 5–10; clang 9 writes it) and, probably, version 5 from LLVM 10: the
/// 8-word header without the counter paddings.
const V5_OLD: &[Field] = &[
    Magic,
    Version,
    NumData,
    NumCounters,
    NamesSize,
    CountersDelta,
    NamesDelta,
    ValueKindLast,
];
/// LLVM 11/12 version 5 (continuous mode added the two counter paddings).
const V5: &[Field] = &[
    Magic,
    Version,
    NumData,
    PaddingBeforeCounters,
    NumCounters,
    PaddingAfterCounters,
    NamesSize,
    CountersDelta,
    NamesDelta,
    ValueKindLast,
];
/// LLVM 13 (v7) and 14–17 (v8): binary IDs.
const V7_V8: &[Field] = &[
    Magic,
    Version,
    BinaryIdsSize,
    NumData,
    PaddingBeforeCounters,
    NumCounters,
    PaddingAfterCounters,
    NamesSize,
    CountersDelta,
    NamesDelta,
    ValueKindLast,
];
/// LLVM 18: MC/DC bitmaps.
const V9: &[Field] = &[
    Magic,
    Version,
    BinaryIdsSize,
    NumData,
    PaddingBeforeCounters,
    NumCounters,
    PaddingAfterCounters,
    NumBitmapBytes,
    PaddingAfterBitmap,
    NamesSize,
    CountersDelta,
    BitmapDelta,
    NamesDelta,
    ValueKindLast,
];
/// LLVM 19–22: vtable records and names.
const V10: &[Field] = &[
    Magic,
    Version,
    BinaryIdsSize,
    NumData,
    PaddingBeforeCounters,
    NumCounters,
    PaddingAfterCounters,
    NumBitmapBytes,
    PaddingAfterBitmap,
    NamesSize,
    CountersDelta,
    BitmapDelta,
    NamesDelta,
    NumVTables,
    VNamesSize,
    ValueKindLast,
];
/// LLVM 23: uniform counters for GPU offload profiles.
const V11: &[Field] = &[
    Magic,
    Version,
    BinaryIdsSize,
    NumData,
    PaddingBeforeCounters,
    NumCounters,
    PaddingAfterCounters,
    NumBitmapBytes,
    PaddingAfterBitmap,
    NumUniformCounters,
    PaddingAfterUniform,
    UniformCountersDelta,
    NamesSize,
    CountersDelta,
    BitmapDelta,
    NamesDelta,
    NumVTables,
    VNamesSize,
    ValueKindLast,
];

/// Which header layout a version 5 file uses (see `V5` and `V5_OLD`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderVariant {
    /// The layout of the version number.
    Standard,
    /// Version 5 written by LLVM 9/10 with the 8-word header.
    V5EightWords,
}

/// A decoded raw-profile header. Counts are counts (not bytes) exactly as in LLVM: NumData,
/// NumCounters (entries), NumVTables, NumUniformCounters; sizes are bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawHeader {
    /// Absolute offset of the magic in the file.
    pub start: u64,
    /// The fields of this header, in file order.
    pub fields: &'static [Field],
    /// Byte order and pointer width.
    pub encoding: Encoding,
    /// The whole version word (version in the low 32 bits, flags above).
    pub version_word: u64,
    /// Format version (low 32 bits of the version word).
    pub version: u32,
    /// Header size in bytes.
    pub size: u64,
    /// Bytes of binary-ID entries after the header (v7+).
    pub binary_ids_size: u64,
    /// Number of data records.
    pub num_data: u64,
    /// Padding between data records and counters.
    pub padding_before_counters: u64,
    /// Number of counter entries (8 bytes each, or 1 byte with byte coverage).
    pub num_counters: u64,
    /// Padding after the counters.
    pub padding_after_counters: u64,
    /// MC/DC bitmap bytes (v9+).
    pub num_bitmap_bytes: u64,
    /// Padding after the bitmap (v9+).
    pub padding_after_bitmap: u64,
    /// Number of 8-byte uniform counters (v11, GPU offload; 0 on CPUs).
    pub num_uniform_counters: u64,
    /// Padding after the uniform counters (v11).
    pub padding_after_uniform: u64,
    /// Uniform-counter delta (v11).
    pub uniform_counters_delta: u64,
    /// Bytes of the names section (without its padding).
    pub names_size: u64,
    /// v5–v7: address of the counters; v8+: counters minus data start (two's complement).
    pub counters_delta: u64,
    /// Bitmap minus data start (v9+); garbage when there is no bitmap.
    pub bitmap_delta: u64,
    /// Address of the names in the writer (unused).
    pub names_delta: u64,
    /// Number of vtable records (v10+).
    pub num_vtables: u64,
    /// Bytes of the vtable-names section (v10+).
    pub vnames_size: u64,
    /// Last value kind the writer knew (advisory).
    pub value_kind_last: u64,
}

impl RawHeader {
    /// Parses the header at the cursor (positioned at a magic). `variant` selects the
    /// alternative version-5 layout.
    pub fn parse(c: &mut Cursor<'_>, encoding: Encoding, variant: HeaderVariant) -> Result<Self> {
        let start = c.offset();
        let first = c.rest();
        // Peek at the version word to choose the layout.
        let version_word = encoding
            .endian
            .u64_at(first, 8)
            .ok_or_else(|| c.truncated("raw profile header (version word)", 16))?;
        let version = (version_word & 0xffff_ffff) as u32;
        let fields: &[Field] = match (version, variant) {
            (4, _) | (5, HeaderVariant::V5EightWords) => V5_OLD,
            (5, _) => V5,
            (7 | 8, _) => V7_V8,
            (9, _) => V9,
            (10, _) => V10,
            (11, _) => V11,
            _ => {
                return Err(Error::at(
                    start + 8,
                    ErrorKind::UnsupportedVersion {
                        format: "raw profile",
                        version: u64::from(version),
                        supported: SUPPORTED,
                    },
                ));
            }
        };
        let size = fields.len() as u64 * 8;
        if (c.remaining() as u64) < size {
            return Err(c.truncated("raw profile header", size));
        }
        let mut h = RawHeader {
            start,
            fields,
            encoding,
            version_word,
            version,
            size,
            binary_ids_size: 0,
            num_data: 0,
            padding_before_counters: 0,
            num_counters: 0,
            padding_after_counters: 0,
            num_bitmap_bytes: 0,
            padding_after_bitmap: 0,
            num_uniform_counters: 0,
            padding_after_uniform: 0,
            uniform_counters_delta: 0,
            names_size: 0,
            counters_delta: 0,
            bitmap_delta: 0,
            names_delta: 0,
            num_vtables: 0,
            vnames_size: 0,
            value_kind_last: 0,
        };
        for f in fields {
            let v = c.u64("raw profile header")?;
            match f {
                Magic | Version => {}
                BinaryIdsSize => h.binary_ids_size = v,
                NumData => h.num_data = v,
                PaddingBeforeCounters => h.padding_before_counters = v,
                NumCounters => h.num_counters = v,
                PaddingAfterCounters => h.padding_after_counters = v,
                NumBitmapBytes => h.num_bitmap_bytes = v,
                PaddingAfterBitmap => h.padding_after_bitmap = v,
                NumUniformCounters => h.num_uniform_counters = v,
                PaddingAfterUniform => h.padding_after_uniform = v,
                UniformCountersDelta => h.uniform_counters_delta = v,
                NamesSize => h.names_size = v,
                CountersDelta => h.counters_delta = v,
                BitmapDelta => h.bitmap_delta = v,
                NamesDelta => h.names_delta = v,
                NumVTables => h.num_vtables = v,
                VNamesSize => h.vnames_size = v,
                ValueKindLast => h.value_kind_last = v,
            }
        }
        Ok(h)
    }

    /// Absolute file offset of a field of this header (the header start if it has no such
    /// field).
    pub fn offset_of(&self, f: Field) -> u64 {
        match self.fields.iter().position(|x| *x == f) {
            Some(i) => self.start + 8 * i as u64,
            None => self.start,
        }
    }

    /// Number of value kinds a data record has NumValueSites slots for (fixed per version).
    pub fn value_kind_slots(&self) -> usize {
        if self.version >= 10 { 3 } else { 2 }
    }

    /// True if CounterPtr is relative to its data record (v8+).
    pub fn relative_pointers(&self) -> bool {
        self.version >= 8
    }

    /// True if binary-ID entries are padded to 8 bytes (v8+).
    pub fn padded_binary_ids(&self) -> bool {
        self.version >= 8
    }

    /// Width of a counter entry in bytes: 1 with single-byte coverage (v8+), else 8.
    pub fn counter_entry_size(&self) -> u64 {
        if self.version >= 8 && self.version_word & (1 << 60) != 0 {
            1
        } else {
            8
        }
    }

    /// Layout of one data record for this version and pointer width.
    pub fn record_layout(&self) -> RecordLayout {
        let p = self.encoding.width;
        match (self.version, p) {
            (..=8, PointerWidth::W64) => V1_TO_8_64,
            (..=8, PointerWidth::W32) => V1_TO_8_32,
            (9, PointerWidth::W64) => V9_64,
            (9, PointerWidth::W32) => V9_32,
            (10, PointerWidth::W64) => V10_64,
            (10, PointerWidth::W32) => V10_32,
            (_, PointerWidth::W64) => V11_64,
            (_, PointerWidth::W32) => V11_32,
        }
    }
}

/// Byte offsets of the fields of one data record (`__llvm_profile_data`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordLayout {
    /// Record size in bytes (a multiple of 8).
    pub size: u64,
    /// Pointer width.
    pub width: PointerWidth,
    /// Offset of CounterPtr.
    pub counter_ptr: usize,
    /// Offset of UniformCounterPtr (v11).
    pub uniform_ptr: Option<usize>,
    /// Offset of BitmapPtr (v9+).
    pub bitmap_ptr: Option<usize>,
    /// Offset of FunctionPointer.
    pub function_ptr: usize,
    /// Offset of the u32 NumCounters.
    pub num_counters: usize,
    /// Offset of the u16 NumValueSites array.
    pub value_sites: usize,
    /// Number of NumValueSites slots.
    pub value_kinds: usize,
    /// Offset of the u32 NumBitmapBytes (v9+).
    pub num_bitmap_bytes: Option<usize>,
}

/// A data record of versions 8 and earlier, 64-bit pointers.
const V1_TO_8_64: RecordLayout = RecordLayout {
    size: 48,
    width: PointerWidth::W64,
    counter_ptr: 16,
    uniform_ptr: None,
    bitmap_ptr: None,
    function_ptr: 24,
    num_counters: 40,
    value_sites: 44,
    value_kinds: 2,
    num_bitmap_bytes: None,
};

/// A data record of versions 8 and earlier, 32-bit pointers.
const V1_TO_8_32: RecordLayout = RecordLayout {
    size: 40,
    width: PointerWidth::W32,
    counter_ptr: 16,
    uniform_ptr: None,
    bitmap_ptr: None,
    function_ptr: 20,
    num_counters: 28,
    value_sites: 32,
    value_kinds: 2,
    num_bitmap_bytes: None,
};

/// A data record of version 9, 64-bit pointers.
const V9_64: RecordLayout = RecordLayout {
    size: 64,
    width: PointerWidth::W64,
    counter_ptr: 16,
    uniform_ptr: None,
    bitmap_ptr: Some(24),
    function_ptr: 32,
    num_counters: 48,
    value_sites: 52,
    value_kinds: 2,
    num_bitmap_bytes: Some(56),
};

/// A data record of version 9, 32-bit pointers.
const V9_32: RecordLayout = RecordLayout {
    size: 48,
    width: PointerWidth::W32,
    counter_ptr: 16,
    uniform_ptr: None,
    bitmap_ptr: Some(20),
    function_ptr: 24,
    num_counters: 32,
    value_sites: 36,
    value_kinds: 2,
    num_bitmap_bytes: Some(40),
};

/// A data record of version 10, 64-bit pointers.
const V10_64: RecordLayout = RecordLayout {
    size: 64,
    width: PointerWidth::W64,
    counter_ptr: 16,
    uniform_ptr: None,
    bitmap_ptr: Some(24),
    function_ptr: 32,
    num_counters: 48,
    value_sites: 52,
    value_kinds: 3,
    num_bitmap_bytes: Some(60),
};

/// A data record of version 10, 32-bit pointers.
const V10_32: RecordLayout = RecordLayout {
    size: 48,
    width: PointerWidth::W32,
    counter_ptr: 16,
    uniform_ptr: None,
    bitmap_ptr: Some(20),
    function_ptr: 24,
    num_counters: 32,
    value_sites: 36,
    value_kinds: 3,
    num_bitmap_bytes: Some(44),
};

/// A data record of version 11 and later, 64-bit pointers.
const V11_64: RecordLayout = RecordLayout {
    size: 72,
    width: PointerWidth::W64,
    counter_ptr: 16,
    uniform_ptr: Some(24),
    bitmap_ptr: Some(32),
    function_ptr: 40,
    num_counters: 56,
    value_sites: 60,
    value_kinds: 3,
    num_bitmap_bytes: Some(68),
};

/// A data record of version 11 and later, 32-bit pointers.
const V11_32: RecordLayout = RecordLayout {
    size: 56,
    width: PointerWidth::W32,
    counter_ptr: 16,
    uniform_ptr: Some(20),
    bitmap_ptr: Some(24),
    function_ptr: 28,
    num_counters: 36,
    value_sites: 40,
    value_kinds: 3,
    num_bitmap_bytes: Some(48),
};
