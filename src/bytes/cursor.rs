//! A bounds-checked reader over a byte slice.

use crate::error::{Error, ErrorKind, Result};

/// Byte order of multi-byte integers in an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endian {
    /// Least significant byte first.
    Little,
    /// Most significant byte first.
    Big,
}

impl Endian {
    /// Reads a u16 from exactly 2 bytes.
    #[inline]
    pub fn u16(self, b: [u8; 2]) -> u16 {
        match self {
            Endian::Little => u16::from_le_bytes(b),
            Endian::Big => u16::from_be_bytes(b),
        }
    }
    /// Reads a u32 from exactly 4 bytes.
    #[inline]
    pub fn u32(self, b: [u8; 4]) -> u32 {
        match self {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    }
    /// Reads a u64 from exactly 8 bytes.
    #[inline]
    pub fn u64(self, b: [u8; 8]) -> u64 {
        match self {
            Endian::Little => u64::from_le_bytes(b),
            Endian::Big => u64::from_be_bytes(b),
        }
    }
    /// Reads a u64 at `off` of `data` if 8 bytes are there.
    #[inline]
    pub fn u64_at(self, data: &[u8], off: usize) -> Option<u64> {
        let b = data.get(off..off.checked_add(8)?)?;
        Some(self.u64(b.try_into().ok()?))
    }
    /// Reads a u32 at `off` of `data` if 4 bytes are there.
    #[inline]
    pub fn u32_at(self, data: &[u8], off: usize) -> Option<u32> {
        let b = data.get(off..off.checked_add(4)?)?;
        Some(self.u32(b.try_into().ok()?))
    }
    /// Reads a u16 at `off` of `data` if 2 bytes are there.
    #[inline]
    pub fn u16_at(self, data: &[u8], off: usize) -> Option<u16> {
        let b = data.get(off..off.checked_add(2)?)?;
        Some(self.u16(b.try_into().ok()?))
    }
    /// The 4 bytes of `v` in this byte order.
    #[inline]
    pub fn u32_bytes(self, v: u32) -> [u8; 4] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }
    /// The 8 bytes of `v` in this byte order.
    #[inline]
    pub fn u64_bytes(self, v: u64) -> [u8; 8] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }
}

/// A position in a byte slice that knows the slice's absolute offset in the file, so every
/// error it returns names the file offset.
///
/// Invariant: `pos <= data.len()`.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    endian: Endian,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `data`, whose first byte is at absolute offset `base`.
    pub fn new(data: &'a [u8], base: u64, endian: Endian) -> Self {
        Cursor {
            data,
            pos: 0,
            base,
            endian,
        }
    }

    /// The byte order used for integer reads.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Absolute file offset of the next byte to read.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Position relative to the start of this cursor's slice.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// True when nothing is left.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The unread bytes.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    /// An error of kind Truncated at the current offset.
    pub fn truncated(&self, what: &'static str, needed: u64) -> Error {
        Error::at(
            self.offset(),
            ErrorKind::Truncated {
                what,
                needed,
                available: self.remaining() as u64,
            },
        )
    }

    /// [`Cursor::truncated`] kept out of line: the reads below are inlined into the readers'
    /// loops, their error paths are not.
    #[cold]
    #[inline(never)]
    fn truncated_cold(&self, what: &'static str, needed: u64) -> Error {
        self.truncated(what, needed)
    }

    /// Takes `n` bytes.
    #[inline]
    pub fn bytes(&mut self, n: u64, what: &'static str) -> Result<&'a [u8]> {
        if n > self.remaining() as u64 {
            return Err(self.truncated_cold(what, n));
        }
        let n = n as usize;
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Takes exactly `N` bytes as an array.
    #[inline]
    pub fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let b = self.bytes(N as u64, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    /// Skips `n` bytes.
    #[inline]
    pub fn skip(&mut self, n: u64, what: &'static str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }

    /// Moves to position `pos` (relative to this cursor's slice).
    pub fn seek(&mut self, pos: u64, what: &'static str) -> Result<()> {
        if pos > self.data.len() as u64 {
            return Err(Error::at(
                self.base.saturating_add(pos),
                ErrorKind::Truncated {
                    what,
                    needed: pos,
                    available: self.data.len() as u64,
                },
            ));
        }
        self.pos = pos as usize;
        Ok(())
    }

    /// Reads one byte.
    pub fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }
    /// Reads a u16 in the cursor's byte order.
    #[inline]
    pub fn u16(&mut self, what: &'static str) -> Result<u16> {
        Ok(self.endian.u16(self.array(what)?))
    }
    /// Reads a u32 in the cursor's byte order.
    #[inline]
    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(self.endian.u32(self.array(what)?))
    }
    /// Reads a u64 in the cursor's byte order.
    #[inline]
    pub fn u64(&mut self, what: &'static str) -> Result<u64> {
        Ok(self.endian.u64(self.array(what)?))
    }
    /// Reads a pointer-sized unsigned integer (4 or 8 bytes), zero-extended.
    pub fn ptr(&mut self, width: PointerWidth, what: &'static str) -> Result<u64> {
        match width {
            PointerWidth::W32 => self.u32(what).map(u64::from),
            PointerWidth::W64 => self.u64(what),
        }
    }
}

/// Pointer size of the program that wrote a raw profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PointerWidth {
    /// 4-byte pointers.
    W32,
    /// 8-byte pointers.
    W64,
}

impl PointerWidth {
    /// Size in bytes.
    pub fn bytes(self) -> u64 {
        match self {
            PointerWidth::W32 => 4,
            PointerWidth::W64 => 8,
        }
    }

    /// Interprets `v` modulo 2^(8·size) as a signed number of this width.
    pub fn signed(self, v: u64) -> i64 {
        match self {
            PointerWidth::W32 => v as u32 as i32 as i64,
            PointerWidth::W64 => v as i64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_orders_and_reports_offsets() {
        let data = [0x01, 0x02, 0x03, 0x04, 0x05];
        let mut le = Cursor::new(&data, 0x100, Endian::Little);
        assert_eq!(le.u16("a").unwrap(), 0x0201);
        let mut be = Cursor::new(&data, 0x100, Endian::Big);
        assert_eq!(be.u32("b").unwrap(), 0x01020304);
        let err = be.u32("c").unwrap_err();
        assert_eq!(err.offset(), Some(0x104));
        assert!(err.to_string().contains("4 bytes needed, 1 left"), "{err}");
    }

    #[test]
    fn pointer_width_sign() {
        assert_eq!(PointerWidth::W32.signed(0xffff_ffb8), -72);
        assert_eq!(PointerWidth::W64.signed(0xffff_ffb8), 0xffff_ffb8);
        assert_eq!(PointerWidth::W64.signed(u64::MAX), -1);
    }
}
