//! Unsigned LEB128 (as used by LLVM's names sections).

use super::Cursor;
use crate::error::{Error, Result};

/// Reads an unsigned LEB128 number of at most 10 bytes that fits in a u64.
#[inline]
pub fn read_uleb(c: &mut Cursor<'_>, what: &'static str) -> Result<u64> {
    // Fast path: a well-formed number whose bytes are all there, decoded from the slice
    // and the cursor moved once. Anything else (the data ends first, or the value does not
    // fit) takes the byte-by-byte path, which reports it.
    let rest = c.rest();
    let mut value = 0u64;
    for (i, &byte) in rest.iter().take(10).enumerate() {
        let low = u64::from(byte & 0x7f);
        if i == 9 && low > 1 {
            break;
        }
        value |= low << (7 * i);
        if byte & 0x80 == 0 {
            c.skip(i as u64 + 1, what)?;
            return Ok(value);
        }
    }
    read_uleb_slow(c, what)
}

/// [`read_uleb`] byte by byte, with its errors.
#[cold]
fn read_uleb_slow(c: &mut Cursor<'_>, what: &'static str) -> Result<u64> {
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
    fn fast_path_agrees_with_byte_by_byte() {
        // Every prefix of numbers of 1 to 11 bytes, well-formed or not, at an offset.
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for len in 1..=11usize {
            for last in [0x00u8, 0x01, 0x02, 0x7f] {
                let mut v = vec![0xffu8; len - 1];
                v.push(last);
                v.push(0x05);
                cases.push(v);
            }
        }
        for case in &cases {
            for cut in 0..=case.len() {
                let data = &case[..cut];
                let mut a = Cursor::new(data, 100, Endian::Little);
                let mut b = Cursor::new(data, 100, Endian::Little);
                let fast = read_uleb(&mut a, "n").map_err(|e| e.to_string());
                let slow = read_uleb_slow(&mut b, "n").map_err(|e| e.to_string());
                assert_eq!(fast, slow, "{data:02x?}");
                if fast.is_ok() {
                    assert_eq!(a.offset(), b.offset(), "{data:02x?}");
                }
            }
        }
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
