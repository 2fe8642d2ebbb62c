//! Magic numbers of LLVM's binary profile formats, as the first 8 bytes read as a
//! little-endian `u64` (a big-endian raw file shows the byte-swapped value).

/// Indexed profile (`\xfflprofi\x81`).
pub const INDEXED_MAGIC: u64 = 0x8169_666f_7270_6cff;
/// Raw profile of a 64-bit writer (`\xfflprofr\x81` read big-endian).
pub const RAW_MAGIC_64: u64 = 0xff6c_7072_6f66_7281;
/// Raw profile of a 32-bit writer (`\xfflprofR\x81` read big-endian).
pub const RAW_MAGIC_32: u64 = 0xff6c_7072_6f66_5281;
