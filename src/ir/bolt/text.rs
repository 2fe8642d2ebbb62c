//! Numbers of fdata lines kept with their text: a merge keys lines by their text (as
//! `merge-fdata` does), so `1a`, `1A` and `01a` are three keys and each must be written back
//! as it was read. A number and the shape of its text (length, upper-case letters) take 16
//! bytes instead of a copy of the text, and compare in the text's byte order.

use std::cmp::Ordering;

/// Longest hexadecimal offset text: 64 bits.
pub const MAX_HEX_DIGITS: usize = 16;
/// Longest decimal text kept (a misprediction field keyed as text): leading zeros included.
pub const MAX_DECIMAL_DIGITS: usize = 250;

/// A hexadecimal number as its text was: value, number of digits (1 to 16, leading zeros
/// included) and which digits were upper-case letters (bit `i` = digit `i` from the left).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct HexText {
    /// The number.
    pub value: u64,
    /// Upper-case letters, bit `i` for the `i`-th digit from the left.
    pub upper: u16,
    /// Digits in the text, 1 to [`MAX_HEX_DIGITS`] (0 only in [`HexText::default`]).
    pub len: u8,
}

impl HexText {
    /// Reads `text`, or `None` if it is empty, longer than 16 digits or not hexadecimal.
    #[inline]
    pub fn parse(text: &[u8]) -> Option<HexText> {
        if text.is_empty() || text.len() > MAX_HEX_DIGITS {
            return None;
        }
        let (mut value, mut upper) = (0u64, 0u16);
        for (i, &b) in text.iter().enumerate() {
            let d = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => {
                    upper |= 1 << i;
                    b - b'A' + 10
                }
                _ => return None,
            };
            value = (value << 4) | u64::from(d);
        }
        Some(HexText {
            value,
            upper,
            len: text.len() as u8,
        })
    }

    /// The text, in `buf`.
    pub fn text(self, buf: &mut [u8; MAX_HEX_DIGITS]) -> &[u8] {
        let n = usize::from(self.len);
        for (i, b) in buf[..n].iter_mut().enumerate() {
            let d = ((self.value >> (4 * (n - 1 - i))) & 0xf) as u8;
            *b = match d {
                0..=9 => b'0' + d,
                _ if self.upper & (1 << i) != 0 => b'A' + d - 10,
                _ => b'a' + d - 10,
            };
        }
        &buf[..n]
    }

    /// The order of the two texts' bytes (a text before the texts it starts).
    pub fn cmp_text(self, other: HexText) -> Ordering {
        if self.upper == 0 && other.upper == 0 {
            // Digits and lower-case letters sort as their values: align the first digits.
            let a = self.value << (4 * (MAX_HEX_DIGITS - usize::from(self.len).max(1)));
            let b = other.value << (4 * (MAX_HEX_DIGITS - usize::from(other.len).max(1)));
            return a.cmp(&b).then(self.len.cmp(&other.len));
        }
        let (mut x, mut y) = ([0; MAX_HEX_DIGITS], [0; MAX_HEX_DIGITS]);
        self.text(&mut x).cmp(other.text(&mut y))
    }
}

/// A decimal number as its text was: value and number of digits (leading zeros included).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DecimalText {
    /// The number.
    pub value: u64,
    /// Digits in the text, 1 to [`MAX_DECIMAL_DIGITS`].
    pub len: u8,
}

impl DecimalText {
    /// Reads `text`, or `None` if it is empty, longer than [`MAX_DECIMAL_DIGITS`], not
    /// decimal or above 2^64 − 1.
    #[inline]
    pub fn parse(text: &[u8]) -> Option<DecimalText> {
        if text.is_empty() || text.len() > MAX_DECIMAL_DIGITS {
            return None;
        }
        let mut v: u64 = 0;
        for &b in text {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v.checked_mul(10)?.checked_add(u64::from(d))?;
        }
        Some(DecimalText {
            value: v,
            len: text.len() as u8,
        })
    }

    /// The text, zero-padded to its length, in `buf`.
    pub fn text(self, buf: &mut [u8; MAX_DECIMAL_DIGITS]) -> &[u8] {
        let n = usize::from(self.len);
        let mut v = self.value;
        for b in buf[..n].iter_mut().rev() {
            *b = b'0' + (v % 10) as u8;
            v /= 10;
        }
        &buf[..n]
    }

    /// The order of the two texts' bytes.
    pub fn cmp_text(self, other: DecimalText) -> Ordering {
        let (mut x, mut y) = ([0; MAX_DECIMAL_DIGITS], [0; MAX_DECIMAL_DIGITS]);
        self.text(&mut x).cmp(other.text(&mut y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_text_comes_back_and_sorts_as_bytes() {
        let texts: [&[u8]; 12] = [
            b"0",
            b"00",
            b"1",
            b"10",
            b"1A",
            b"1a",
            b"1aB",
            b"9",
            b"A",
            b"a",
            b"ffffffffffffffff",
            b"0000000000000001",
        ];
        let mut buf = [0; MAX_HEX_DIGITS];
        for a in texts {
            let h = HexText::parse(a).unwrap();
            assert_eq!(h.text(&mut buf), a);
            for b in texts {
                let g = HexText::parse(b).unwrap();
                assert_eq!(
                    h.cmp_text(g),
                    a.cmp(b),
                    "{:?} {:?}",
                    a.escape_ascii(),
                    b.escape_ascii()
                );
                assert_eq!(h == g, a == b);
            }
        }
        for bad in [&b""[..], b"g", b"10000000000000000", b"-1", b" 1"] {
            assert_eq!(HexText::parse(bad), None);
        }
    }

    #[test]
    fn decimal_text_keeps_leading_zeros() {
        let texts: [&[u8]; 6] = [b"0", b"00", b"007", b"10", b"9", b"18446744073709551615"];
        let mut buf = [0; MAX_DECIMAL_DIGITS];
        for a in texts {
            let d = DecimalText::parse(a).unwrap();
            assert_eq!(d.text(&mut buf), a);
            for b in texts {
                assert_eq!(d.cmp_text(DecimalText::parse(b).unwrap()), a.cmp(b));
            }
        }
        for bad in [&b""[..], b"18446744073709551616", b"1x", b"+1"] {
            assert_eq!(DecimalText::parse(bad), None);
        }
        assert!(DecimalText::parse(&[b'0'; 251]).is_none());
        assert_eq!(DecimalText::parse(&[b'0'; 250]).unwrap().len, 250);
    }
}
