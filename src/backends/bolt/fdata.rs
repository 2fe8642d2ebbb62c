//! The fdata writer: the header lines `merge-fdata` writes (`boltedcollection`, then
//! `no_lbr` with the profile's event names, if any), then one line per entry in the profile's order: the locations (`T NAME
//! OFFSET`, offsets as their text was), the misprediction field where there is one (keyed
//! text under LLVM 19, the sum under LLVM 20), and the count, separated by single spaces.

use std::io::{self, Write};

use crate::ir::bolt::{FdataEntry, FdataNames, FdataProfile, HexText, MAX_HEX_DIGITS, MisColumn};

/// Bytes formatted before each write.
const CHUNK: usize = 1 << 16;

/// Writes `profile` to `out` (in chunks of 64 KiB: no need to buffer it).
///
/// One thread formats: formatting in parallel chunks was tried and cost more CPU than it
/// saved wall time on two cores; a window of runs formatted in parallel, a buffer each,
/// saved no wall time on the loaded two-core machine and held more memory.
pub fn write_fdata(profile: &FdataProfile, out: &mut dyn Write) -> io::Result<()> {
    if profile.mode.bolted {
        out.write_all(b"boltedcollection\n")?;
    }
    if profile.mode.no_lbr {
        out.write_all(b"no_lbr")?;
        for e in &profile.events {
            out.write_all(b" ")?;
            out.write_all(e)?;
        }
        out.write_all(b"\n")?;
    }
    let mut buf = Vec::with_capacity(CHUNK + 1024);
    for e in profile.iter() {
        write_line(&mut buf, profile.names(), e);
        if buf.len() >= CHUNK {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)
}

/// Appends the line of `e` to `buf`.
///
/// Offsets and numbers are formatted into fixed arrays appended whole (one 16- or 20-byte
/// copy, then the length set back), so that a line costs no call to `memcpy` but for the
/// names.
#[inline]
pub fn write_line(buf: &mut Vec<u8>, names: &FdataNames, e: &FdataEntry) {
    for i in 0..e.loc_count() {
        let (kind, name, offset) = e.loc(i);
        if i > 0 {
            buf.push(b' ');
        }
        buf.extend_from_slice(&[b'0' + kind, b' ']);
        buf.extend_from_slice(names.get(name));
        buf.push(b' ');
        push_hex(buf, offset);
    }
    match e.mis_column() {
        MisColumn::None => {}
        MisColumn::Summed(m) => {
            buf.push(b' ');
            push_decimal(buf, m);
        }
        MisColumn::Keyed(t) => {
            let mut text = [0u8; 250];
            buf.push(b' ');
            buf.extend_from_slice(t.text(&mut text));
        }
    }
    buf.push(b' ');
    push_decimal(buf, e.count);
    buf.push(b'\n');
}

/// Appends `array`, then keeps only its first `len` bytes.
#[inline]
fn push_prefix<const N: usize>(buf: &mut Vec<u8>, array: &[u8; N], len: usize) {
    let at = buf.len();
    buf.extend_from_slice(array);
    buf.truncate(at + len);
}

/// Appends the text of `offset` as it was read.
#[inline]
fn push_hex(buf: &mut Vec<u8>, offset: HexText) {
    let mut digits = [0u8; MAX_HEX_DIGITS];
    if offset.upper != 0 {
        buf.extend_from_slice(offset.text(&mut digits));
        return;
    }
    // No upper-case letter: every digit from the table of lower-case ones.
    let n = usize::from(offset.len);
    for (i, d) in digits[..n].iter_mut().enumerate() {
        *d = b"0123456789abcdef"[((offset.value >> (4 * (n - 1 - i))) & 0xf) as usize];
    }
    push_prefix(buf, &digits, n);
}

/// Appends `v` in decimal.
#[inline]
fn push_decimal(buf: &mut Vec<u8>, v: u64) {
    let n = v.checked_ilog10().map_or(1, |l| l as usize + 1);
    let mut digits = [0u8; 20];
    let mut rest = v;
    for d in digits[..n].iter_mut().rev() {
        *d = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    push_prefix(buf, &digits, n);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::bolt::FdataLineKind::{Branch, Memory};
    use crate::ir::bolt::{FdataMode, test_line};

    #[test]
    fn numbers_are_written_as_text() {
        for v in [0, 1, 9, 10, 99, 100, 12345, u64::MAX / 10, u64::MAX] {
            let mut buf = b"x".to_vec();
            push_decimal(&mut buf, v);
            assert_eq!(buf, format!("x{v}").as_bytes());
        }
        for t in ["0", "00", "1a", "0001a", "ffffffffffffffff", "1aB", "A"] {
            let mut buf = Vec::new();
            push_hex(&mut buf, HexText::parse(t.as_bytes()).unwrap());
            assert_eq!(buf, t.as_bytes());
        }
    }

    #[test]
    fn header_columns_and_text_as_read() {
        let mut names = FdataNames::default();
        let (f, g) = (names.push(b"f").unwrap(), names.push(b"g").unwrap());
        let b = test_line(Branch, &[(1, "f", "0A"), (1, "g", "00")], Some("007"), 0);
        let k = test_line(Branch, &[(1, "f", "0B"), (1, "g", "00")], Some("007"), 0);
        let m = test_line(Memory, &[(4, "f", "1"), (4, "g", "0")], None, 0);
        let mode = FdataMode {
            bolted: true,
            no_lbr: false,
        };
        let entries = vec![
            FdataEntry::new(&m, [f, g], false, [0, 0]),
            FdataEntry::new(&k, [f, g], true, [5, 0]),
            FdataEntry::new(&b, [f, g], false, [u64::MAX, 3]),
        ];
        let p = FdataProfile::from_entries(mode, names, entries);
        let mut v = Vec::new();
        write_fdata(&p, &mut v).unwrap();
        assert_eq!(
            String::from_utf8(v).unwrap(),
            "boltedcollection\n1 f 0A 1 g 00 3 18446744073709551615\n1 f 0B 1 g 00 007 5\n\
             4 f 1 4 g 0 0\n"
        );
    }
}
