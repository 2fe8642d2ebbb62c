//! Magic numbers of LLVM's binary profile formats, as the first 8 bytes read as a
//! little-endian `u64` (a big-endian raw file shows the byte-swapped value).

/// Indexed profile (`\xfflprofi\x81`).
pub const INDEXED_MAGIC: u64 = 0x8169_666f_7270_6cff;
/// Raw profile of a 64-bit writer (`\xfflprofr\x81` read big-endian).
pub const RAW_MAGIC_64: u64 = 0xff6c_7072_6f66_7281;
/// Raw profile of a 32-bit writer (`\xfflprofR\x81` read big-endian).
pub const RAW_MAGIC_32: u64 = 0xff6c_7072_6f66_5281;

/// Each raw-profile version and the first and last LLVM release (major version) whose
/// runtime writes it; ascending. Version 6 only existed on LLVM trunk (2021).
pub const RAW_RELEASES: &[(u32, u32, u32)] = &[
    (4, 5, 10),
    (5, 11, 12),
    (7, 13, 13),
    (8, 14, 17),
    (9, 18, 18),
    (10, 19, 22),
    (11, 23, 23),
];

/// The raw version of a raw profile from its first 16 bytes (the magic, in the writer's
/// byte order, then the version word, whose low 32 bits are the version), or `None` if
/// they are not a raw profile's.
pub fn raw_version(head: &[u8]) -> Option<u32> {
    let word = |b: &[u8]| -> Option<[u8; 8]> { b.try_into().ok() };
    let magic = u64::from_le_bytes(word(head.get(..8)?)?);
    let version = word(head.get(8..16)?)?;
    let v = if magic == RAW_MAGIC_64 || magic == RAW_MAGIC_32 {
        u64::from_le_bytes(version)
    } else if magic.swap_bytes() == RAW_MAGIC_64 || magic.swap_bytes() == RAW_MAGIC_32 {
        u64::from_be_bytes(version)
    } else {
        return None;
    };
    Some((v & 0xffff_ffff) as u32)
}

/// The last LLVM release whose runtime writes raw version `v`, if it is a known one.
pub fn last_release_writing_raw(v: u32) -> Option<u32> {
    RAW_RELEASES
        .iter()
        .find(|&&(version, _, _)| version == v)
        .map(|&(_, _, last)| last)
}
