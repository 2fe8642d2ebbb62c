//! The lines of a text profile, found with `memchr` and never copied, and the numbers on
//! them, parsed from their bytes.

use super::parse_auto_radix;
use crate::error::{Error, ErrorKind, Result};

/// The lines of a text profile without blanks and comments, with the positions that errors
/// turn into line numbers (1-based, counted only when an error is made).
pub(super) struct Lines<'a> {
    data: &'a [u8],
    /// Where the next line (blank or not) starts.
    pos: usize,
    /// The next non-blank line, once found: (start, end).
    peeked: Option<(usize, usize)>,
}

impl<'a> Lines<'a> {
    /// The lines of `data` (valid UTF-8).
    pub(super) fn new(data: &'a [u8]) -> Self {
        Lines {
            data,
            pos: 0,
            peeked: None,
        }
    }

    /// The next line that is neither blank nor a comment: (start, end), its line ending
    /// and carriage returns left out as [`str::lines`] and one more `strip_suffix('\r')` leave
    /// them out (two before a newline, one at the end of the file).
    #[inline]
    fn find(&mut self) -> Option<(usize, usize)> {
        if let Some(p) = self.peeked {
            return Some(p);
        }
        let data = self.data;
        loop {
            let start = self.pos;
            if start >= data.len() {
                return None;
            }
            let nl = memchr::memchr(b'\n', &data[start..]).map_or(data.len(), |i| start + i);
            self.pos = nl + 1;
            let mut end = nl;
            if end > start && data[end - 1] == b'\r' {
                end -= 1;
                if nl < data.len() && end > start && data[end - 1] == b'\r' {
                    end -= 1;
                }
            }
            if end > start && data[start] != b'#' {
                self.peeked = Some((start, end));
                return self.peeked;
            }
        }
    }

    /// Moves past blank lines and comments, unless a line is peeked. The comments of
    /// llvm-profdata's records are recognised without searching for their ends.
    #[inline]
    fn skip_blank_and_comments(&mut self) {
        if self.peeked.is_some() {
            return;
        }
        let d = self.data;
        while let Some(&b) = d.get(self.pos) {
            let rest = &d[self.pos..];
            self.pos += match b {
                b'\n' => 1,
                b'#' => match COMMENTS.iter().find(|c| rest.starts_with(c)) {
                    Some(c) => c.len(),
                    None => memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1),
                },
                _ => return,
            };
        }
    }

    /// The next line if it is `expected` (not empty, not a comment), found by comparing
    /// instead of searching for its end.
    #[inline]
    pub(super) fn next_if(&mut self, expected: &[u8]) -> Option<&'a [u8]> {
        if expected.first().is_none_or(|&b| b == b'#') {
            return None;
        }
        self.skip_blank_and_comments();
        if self.peeked.is_some() {
            return None;
        }
        let d = self.data;
        let start = self.pos;
        let end = start.checked_add(expected.len())?;
        if d.get(start..end)? == expected && d.get(end) == Some(&b'\n') {
            self.pos = end + 1;
            return Some(&d[start..end]);
        }
        None
    }

    #[inline]
    pub(super) fn peek(&mut self) -> Option<&'a [u8]> {
        let (s, e) = self.find()?;
        Some(&self.data[s..e])
    }

    #[inline]
    pub(super) fn next(&mut self) -> Option<&'a [u8]> {
        let (s, e) = self.find()?;
        self.peeked = None;
        Some(&self.data[s..e])
    }

    /// The next line, with where it starts; a truncation error naming `what` at the end.
    #[inline]
    pub(super) fn line(&mut self, what: &'static str) -> Result<(usize, &'a [u8])> {
        match self.find() {
            Some((s, e)) => {
                self.peeked = None;
                Ok((s, &self.data[s..e]))
            }
            None => Err(self.truncated(what)),
        }
    }

    /// The next line as a [`decimal`] number, with where it starts; an error naming `what`
    /// for any other line. Most lines of a profile are numbers of a few digits: they are
    /// parsed as the line is scanned, without searching for its end first.
    #[inline(always)]
    pub(super) fn number_at(&mut self, what: &'static str) -> Result<(usize, u64)> {
        self.skip_blank_and_comments();
        let at = self.pos;
        if self.peeked.is_none()
            && let Some(v) = decimal_line(self.data, &mut self.pos)
        {
            return Ok((at, v));
        }
        let (at, l) = self.line(what)?;
        match decimal(l) {
            Some(v) => Ok((at, v)),
            None => Err(self.bad(at, what, format!("{:?} is not a decimal number", text(l)))),
        }
    }

    /// [`Lines::number_at`] without the position.
    #[inline]
    pub(super) fn number(&mut self, what: &'static str) -> Result<u64> {
        self.number_at(what).map(|(_, v)| v)
    }

    /// The next `out.len() / 8` lines as [`decimal`] numbers (`what` each), into `out` as
    /// 8-byte little-endian words: a record's counters. The loop keeps its position in a
    /// register and writes into room made once, where a call per counter pushed each onto a
    /// vector.
    #[inline(always)]
    pub(super) fn decimals_into(&mut self, out: &mut [u8], what: &'static str) -> Result<()> {
        let d = self.data;
        for word in out.chunks_exact_mut(8) {
            let v = match self.peeked {
                None => match decimal_line(d, &mut self.pos) {
                    Some(v) => v,
                    None => self.number(what)?,
                },
                Some(_) => self.number(what)?,
            };
            word.copy_from_slice(&v.to_le_bytes());
        }
        Ok(())
    }

    /// The next line as [`auto_radix`] reads it (a decimal number the fast way unless it
    /// starts with `0`); for any other line the error `what` with `detail` of the line.
    #[inline(always)]
    pub(super) fn auto_radix(
        &mut self,
        what: &'static str,
        detail: fn(&str) -> String,
    ) -> Result<u64> {
        self.skip_blank_and_comments();
        if self.peeked.is_none()
            && self.data.get(self.pos).is_some_and(|&b| b != b'0')
            && let Some(v) = decimal_line(self.data, &mut self.pos)
        {
            return Ok(v);
        }
        let (at, l) = self.line(what)?;
        auto_radix(l).ok_or_else(|| self.bad(at, what, detail(text(l))))
    }

    /// The error `what: detail` at the line starting at byte `at`.
    #[cold]
    pub(super) fn bad(&self, at: usize, what: &'static str, detail: String) -> Error {
        Error::at_line(
            line_of(self.data, at),
            ErrorKind::Malformed { what, detail },
        )
    }

    /// The error of a file that ends where a line `what` was expected: at the line after
    /// the last one read (all of them were).
    #[cold]
    fn truncated(&self, what: &'static str) -> Error {
        let mut all = Lines::new(self.data);
        let mut last = 0;
        while let Some((s, _)) = all.find() {
            last = line_of(self.data, s);
            all.peeked = None;
        }
        Error::at_line(
            last + 1,
            ErrorKind::Truncated {
                what,
                needed: 1,
                available: 0,
            },
        )
    }

    /// Where the next line starts: the bound for counts of lines still to come.
    pub(super) fn remaining(&self) -> usize {
        self.data
            .len()
            .saturating_sub(self.peeked.map_or(self.pos, |(s, _)| s))
    }
}

/// The comments llvm-profdata writes in a record, with their newlines.
const COMMENTS: [&[u8]; 3] = [
    b"# Func Hash:\n",
    b"# Num Counters:\n",
    b"# Counter Values:\n",
];

/// The number on the line at `*pos` if that line is 1–19 digits and its newline (no overflow
/// is possible), moving `*pos` past it; `None` (and `*pos` unchanged) for anything else,
/// which [`decimal`] then judges.
#[inline(always)]
fn decimal_line(d: &[u8], pos: &mut usize) -> Option<u64> {
    let start = *pos;
    // One digit and its newline: most counters of most profiles.
    if let Some(&[b, nl]) = d.get(start..start + 2) {
        let v = b.wrapping_sub(b'0');
        if v < 10 && nl == b'\n' {
            *pos = start + 2;
            return Some(u64::from(v));
        }
    }
    let mut i = start;
    let mut v: u64 = 0;
    // Eight digits at a time while the number stays within 19 digits (function hashes have
    // 17–20), then one at a time.
    while i - start <= 11
        && let Some(w) = d.get(i..i + 8)
    {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        let Some(eight) = eight_digits(u64::from_le_bytes(a)) else {
            break;
        };
        v = v * 100_000_000 + eight;
        i += 8;
    }
    let end = d.len().min(start + 19);
    while i < end {
        let digit = d[i].wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        v = v * 10 + u64::from(digit);
        i += 1;
    }
    if i > start && d.get(i) == Some(&b'\n') {
        *pos = i + 1;
        return Some(v);
    }
    None
}

/// The value of eight ASCII digits read as a little-endian word (the first digit in the low
/// byte), or `None` if a byte is not a digit: three multiplications instead of eight
/// dependent ones.
#[inline(always)]
fn eight_digits(w: u64) -> Option<u64> {
    // A byte is a digit if subtracting '0' does not borrow and adding 0x46 (0x7f - '9')
    // does not reach the high bit; bytes of the word are checked together.
    let sub = w.wrapping_sub(0x3030_3030_3030_3030);
    let add = w.wrapping_add(0x4646_4646_4646_4646);
    if (sub | add) & 0x8080_8080_8080_8080 != 0 {
        return None;
    }
    // Pairs, then fours, then the eight: each step combines neighbours with 10, 100, 10⁴.
    let v = sub.wrapping_mul(10).wrapping_add(sub >> 8);
    let v = ((v & 0x0000_00ff_0000_00ff).wrapping_mul(100 + (1_000_000 << 32))
        + ((v >> 16) & 0x0000_00ff_0000_00ff).wrapping_mul(1 + (10_000 << 32)))
        >> 32;
    Some(v)
}

/// The 1-based number of the line that starts at byte `at`.
#[cold]
pub(super) fn line_of(data: &[u8], at: usize) -> u64 {
    memchr::memchr_iter(b'\n', &data[..at.min(data.len())]).count() as u64 + 1
}

/// A line of the input as text (the input was checked to be UTF-8, and lines end at ASCII
/// bytes).
pub(super) fn text(l: &[u8]) -> &str {
    std::str::from_utf8(l).unwrap_or_default()
}

/// A decimal number as [`super::parse_radix`] reads one with radix 10 (digits only, any
/// number of them, no overflow); `None` for anything else.
#[inline]
pub(super) fn decimal(s: &[u8]) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &b in s {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

/// [`super::parse_auto_radix`] on bytes (decimal fast; the other radixes through it).
pub(super) fn auto_radix(s: &[u8]) -> Option<u64> {
    if s.len() > 1 && s[0] == b'0' {
        return parse_auto_radix(std::str::from_utf8(s).ok()?);
    }
    decimal(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_digits_at_once_are_eight_one_at_a_time() {
        for s in [
            b"00000000",
            b"12345678",
            b"99999999",
            b"90000001",
            b"07654321",
        ] {
            let want = std::str::from_utf8(s).unwrap().parse::<u64>().unwrap();
            assert_eq!(eight_digits(u64::from_le_bytes(*s)), Some(want));
        }
        for at in 0..8 {
            for bad in [b'/', b':', b'\n', b'a', 0x80, 0xb0, 0xff, 0] {
                let mut s = *b"12345678";
                s[at] = bad;
                assert_eq!(
                    eight_digits(u64::from_le_bytes(s)),
                    None,
                    "{bad:#x} at {at}"
                );
            }
        }
        // Every length up to 20 digits, as lines.
        for len in 1..=21 {
            let digits: String = (0..len).map(|i| char::from(b'1' + (i % 9) as u8)).collect();
            let line = format!("{digits}\n");
            assert_eq!(
                Lines::new(line.as_bytes()).number("n").ok(),
                digits.parse::<u64>().ok(),
                "{digits}"
            );
        }
    }

    #[test]
    fn decimal_lines_are_those_of_the_general_parser() {
        let cases: &[&[u8]] = &[
            b"0\n",
            b"7\n",
            b"42\n",
            b"1234567890123456789\n",
            b"12345678901234567890\n",
            b"18446744073709551615\n",
            b"18446744073709551616\n",
            b"5",
            b"\n",
            b"# 3\n",
            b"-1\n",
            b"3 \n",
            b"0x10\n",
            b"0000000000000000000000042\n",
            b"5\r\n",
        ];
        for &c in cases {
            let mut lines = Lines::new(c);
            let want = std::str::from_utf8(c)
                .ok()
                .and_then(|s| s.lines().find(|l| !l.is_empty() && !l.starts_with('#')))
                .and_then(|l| super::super::parse_radix(l, 10));
            assert_eq!(
                lines.number("n").ok(),
                want,
                "{:?}",
                String::from_utf8_lossy(c)
            );
            let mut out = [0u8; 8];
            let got = Lines::new(c)
                .decimals_into(&mut out, "n")
                .ok()
                .map(|()| u64::from_le_bytes(out));
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(c));
        }
    }
}
