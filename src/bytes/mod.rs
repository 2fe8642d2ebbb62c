//! Byte-level helpers shared by every binary format: a bounds-checked [`Cursor`] that carries
//! the byte order and absolute offsets, a little-endian [`ByteWriter`] with back-patching,
//! LEB128 and the named input limits.

mod cursor;
pub mod leb128;
pub mod limits;
#[cfg(feature = "sample")]
pub mod stack;
mod writer;

pub use cursor::{Cursor, Endian, PointerWidth};
pub use writer::{ByteWriter, SeekWrite, Slot};

/// Bytes needed to pad `n` to a multiple of 8: `(8 - n % 8) % 8`.
#[inline]
pub fn pad8(n: u64) -> u64 {
    (8 - n % 8) % 8
}

/// `n` rounded up to a multiple of 8, or `None` on overflow.
#[inline]
pub fn align8(n: u64) -> Option<u64> {
    n.checked_add(pad8(n))
}

/// Up to the first 8 bytes of `data` as space-separated hex, for error messages.
pub fn hex_head(data: &[u8]) -> String {
    let n = data.len().min(8);
    let mut s = String::with_capacity(n * 3);
    for (i, b) in data.iter().take(n).enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("{b:02x}"));
    }
    if s.is_empty() {
        s.push_str("(none)");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding() {
        assert_eq!(pad8(0), 0);
        assert_eq!(pad8(1), 7);
        assert_eq!(pad8(20), 4);
        assert_eq!(pad8(31), 1);
        assert_eq!(align8(31), Some(32));
        assert_eq!(align8(u64::MAX), None);
    }
}
