//! The fdata writer: the header lines `merge-fdata` writes (`boltedcollection`, then
//! `no_lbr` with the profile's event names, if any), then one line per entry in the profile's order: the locations (`T NAME
//! OFFSET`, offsets as their text was), the misprediction field where there is one (keyed
//! text under LLVM 19, the sum under LLVM 20), and the count, separated by single spaces.

use std::io::{self, Write};

use crate::ir::bolt::{FdataEntry, FdataNames, FdataProfile, MisColumn};

/// Bytes formatted before each write.
const CHUNK: usize = 1 << 16;

/// Writes `profile` to `out` (in chunks of 64 KiB: no need to buffer it).
///
/// One thread formats: formatting in parallel chunks was tried and cost more CPU than it
/// saved wall time on two cores (the runs' merge that orders the lines is serial).
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
#[inline]
pub fn write_line(buf: &mut Vec<u8>, names: &FdataNames, e: &FdataEntry) {
    let mut hex = [0u8; 16];
    for i in 0..e.loc_count() {
        let (kind, name, offset) = e.loc(i);
        if i > 0 {
            buf.push(b' ');
        }
        buf.push(b'0' + kind);
        buf.push(b' ');
        buf.extend_from_slice(names.get(name));
        buf.push(b' ');
        buf.extend_from_slice(offset.text(&mut hex));
    }
    let mut digits = [0u8; 20];
    match e.mis_column() {
        MisColumn::None => {}
        MisColumn::Summed(m) => {
            buf.push(b' ');
            buf.extend_from_slice(decimal(m, &mut digits));
        }
        MisColumn::Keyed(t) => {
            let mut text = [0u8; 250];
            buf.push(b' ');
            buf.extend_from_slice(t.text(&mut text));
        }
    }
    buf.push(b' ');
    buf.extend_from_slice(decimal(e.count, &mut digits));
    buf.push(b'\n');
}

/// `v` in decimal, in the end of `buf`.
fn decimal(mut v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            return &buf[i..];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::bolt::FdataLineKind::{Branch, Memory};
    use crate::ir::bolt::{FdataMode, test_line};

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
