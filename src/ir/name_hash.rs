//! LLVM's name hash: the first 8 bytes of the MD5 digest of a name, read little-endian.
//!
//! This is `llvm::MD5Hash`, used for raw-profile NameRefs, indexed-profile keys, indirect-call
//! target values and vtable hashes. The value does not depend on any file's byte order.

/// Low 64 bits of MD5(name), little-endian.
#[inline]
pub fn md5_hash(name: &[u8]) -> u64 {
    let digest = md5::compute(name).0;
    let mut low = [0u8; 8];
    low.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(low)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // Values from real LLVM files (see the format references).
        assert_eq!(md5_hash(b"main"), 0xdb956436e78dd5fa);
        assert_eq!(md5_hash(b"bar"), 0xe413754a191db537);
        assert_eq!(md5_hash(b"simple.c;foo"), 0x21fbba61644c5788);
        assert_eq!(md5_hash(b"simple.c:foo"), 0x7d6282a81b4d7dd6);
        assert_eq!(md5_hash(b"_ZTV1A"), 0xa80047fd60784dd0);
    }
}
