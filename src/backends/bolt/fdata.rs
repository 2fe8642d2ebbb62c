//! The fdata writer: the header lines `merge-fdata` writes (`boltedcollection`, then a bare
//! `no_lbr`), then one line per key in the profile's order (sorted by key bytes): the key,
//! the summed mispredictions where they are a column of their own
//! ([`FdataCounts::has_mispreds`]), and the count, separated by single spaces.

use std::io::{self, Write};

use crate::ir::bolt::{FdataCounts, FdataProfile};

/// Writes `profile` to `out` (buffer it: this makes one small write per field).
pub fn write_fdata(profile: &FdataProfile, out: &mut dyn Write) -> io::Result<()> {
    if profile.mode.bolted {
        out.write_all(b"boltedcollection\n")?;
    }
    if profile.mode.no_lbr {
        out.write_all(b"no_lbr\n")?;
    }
    let mut digits = [0u8; 20];
    for (key, c) in &profile.entries {
        write_line(out, key, c, &mut digits)?;
    }
    Ok(())
}

fn write_line(
    out: &mut dyn Write,
    key: &[u8],
    c: &FdataCounts,
    digits: &mut [u8; 20],
) -> io::Result<()> {
    out.write_all(key)?;
    if c.has_mispreds {
        out.write_all(b" ")?;
        out.write_all(decimal(c.mispreds, digits))?;
    }
    out.write_all(b" ")?;
    out.write_all(decimal(c.count, digits))?;
    out.write_all(b"\n")
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
    use crate::ir::bolt::FdataMode;

    #[test]
    fn header_and_columns() {
        let p = FdataProfile {
            mode: FdataMode {
                bolted: true,
                no_lbr: false,
            },
            entries: vec![
                (
                    b"1 f 0 1 g 0".to_vec().into(),
                    FdataCounts {
                        mispreds: 3,
                        count: u64::MAX,
                        has_mispreds: true,
                    },
                ),
                (
                    b"4 f 1 4 g 0".to_vec().into(),
                    FdataCounts {
                        mispreds: 0,
                        count: 0,
                        has_mispreds: false,
                    },
                ),
            ],
        };
        let mut v = Vec::new();
        write_fdata(&p, &mut v).unwrap();
        assert_eq!(
            String::from_utf8(v).unwrap(),
            "boltedcollection\n1 f 0 1 g 0 3 18446744073709551615\n4 f 1 4 g 0 0\n"
        );
    }
}
