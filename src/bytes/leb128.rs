//! Unsigned LEB128 (as used by LLVM's names sections).

use super::Cursor;
use crate::error::{Error, Result};

/// Reads an unsigned LEB128 number of at most 10 bytes that fits in a u64.
pub fn read_uleb(c: &mut Cursor<'_>, what: &'static str) -> Result<u64> {
    let start = c.offset();
    let mut value: u64 = 0;
    let mut shift = 0u32;
    loop {
        let byte = c.u8(what)?;
        let low = u64::from(byte & 0x7f);
        if shift >= 64 || (shift == 63 && low > 1) {
            return Err(Error::malformed(
                start,
                what,
                "ULEB128 value does not fit in 64 bits",
            ));
        }
        value |= low << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
        shift += 7;
    }
}

/// Appends `v` as unsigned LEB128.
pub fn write_uleb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Reads an unsigned LEB128 number from the front of `bytes` (data this program wrote
/// itself with [`write_uleb`]), advancing past it; `None` if `bytes` ends first. Bits
/// beyond 64 are dropped.
pub fn take_uleb(bytes: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    let mut shift = 0u32;
    loop {
        let (&b, rest) = bytes.split_first()?;
        *bytes = rest;
        v |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
        shift += 7;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::Endian;

    #[test]
    fn round_trip() {
        for v in [0u64, 1, 127, 128, 389, 233, 1 << 40, u64::MAX] {
            let mut b = Vec::new();
            write_uleb(&mut b, v);
            let mut c = Cursor::new(&b, 0, Endian::Little);
            assert_eq!(read_uleb(&mut c, "x").unwrap(), v);
            assert!(c.is_empty());
        }
        let mut b = Vec::new();
        write_uleb(&mut b, 389);
        assert_eq!(b, [0x85, 0x03]);
        // take_uleb reads a run of them back from a slice.
        let mut b = Vec::new();
        let vs = [0u64, 127, 128, 1 << 40, u64::MAX];
        vs.iter().for_each(|&v| write_uleb(&mut b, v));
        let mut s = b.as_slice();
        let back: Vec<u64> = std::iter::from_fn(|| take_uleb(&mut s)).collect();
        assert_eq!(back, vs);
        assert_eq!(take_uleb(&mut &[0x80u8][..]), None);
    }

    #[test]
    fn rejects_overlong_and_truncated() {
        let b = [0xffu8; 11];
        let mut c = Cursor::new(&b, 0, Endian::Little);
        assert!(read_uleb(&mut c, "x").is_err());
        let b = [0x80u8];
        let mut c = Cursor::new(&b, 0, Endian::Little);
        assert!(read_uleb(&mut c, "x").is_err());
    }
}
