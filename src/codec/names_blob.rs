//! LLVM's names blob: the framing of the raw profile's names and vtable-names sections and of
//! the indexed profile's vtable-names section.
//!
//! A blob is a sequence of chunks, each `ULEB128 uncompressed_len, ULEB128 compressed_len,
//! payload`, where the payload is zlib data inflating to exactly `uncompressed_len` bytes, or
//! `uncompressed_len` plain bytes when `compressed_len` is 0. Zero bytes between chunks are
//! skipped. The inflated text is the names joined by the byte `0x01`.

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

use crate::bytes::leb128::{read_uleb, write_uleb};
use crate::bytes::limits::{InflateBudget, MAX_ZLIB_RATIO};
use crate::bytes::{Cursor, Endian};
use crate::error::{Error, ErrorKind, Result};

/// Separator between names.
pub const SEPARATOR: u8 = 0x01;

/// Decodes a blob whose first byte is at absolute offset `base`, calling `f` with every name
/// (possibly empty names are skipped, as LLVM does). Its compressed chunks together inflate
/// to at most the limit of decompressed bytes ([`InflateBudget`]).
pub fn for_each_name(blob: &[u8], base: u64, mut f: impl FnMut(&[u8])) -> Result<()> {
    let mut c = Cursor::new(blob, base, Endian::Little);
    let mut inflated = Vec::new();
    let mut budget = InflateBudget::new()?;
    while !c.is_empty() {
        if c.rest().first() == Some(&0) {
            c.skip(1, "names padding")?;
            continue;
        }
        let chunk_at = c.offset();
        let ulen = read_uleb(&mut c, "names chunk: uncompressed length")?;
        let clen = read_uleb(&mut c, "names chunk: compressed length")?;
        let text: &[u8] = if clen == 0 {
            c.bytes(ulen, "names chunk: uncompressed names")?
        } else {
            let payload_at = c.offset();
            let payload = c.bytes(clen, "names chunk: zlib data")?;
            inflate(
                payload,
                ulen,
                &mut inflated,
                &mut budget,
                "compressed names",
            )
            .map_err(|e| e.rebase(payload_at))?;
            &inflated
        };
        let _ = chunk_at;
        for name in text.split(|&b| b == SEPARATOR) {
            if !name.is_empty() {
                f(name);
            }
        }
    }
    Ok(())
}

/// Inflates zlib `data` (`what`, for messages) that must produce exactly `expected` bytes
/// into `out` (cleared first), taking them from `budget`. Errors carry offsets relative to
/// the start of `data`.
pub fn inflate(
    data: &[u8],
    expected: u64,
    out: &mut Vec<u8>,
    budget: &mut InflateBudget,
    what: &'static str,
) -> Result<()> {
    let limit = (data.len() as u64)
        .saturating_mul(MAX_ZLIB_RATIO)
        .saturating_add(64);
    if expected > limit {
        return Err(Error::at(
            0,
            ErrorKind::LimitExceeded {
                what: "uncompressed length of a zlib names chunk",
                value: expected,
                limit,
            },
        ));
    }
    if budget.take(expected, what).is_err() {
        return Err(Error::at(
            0,
            ErrorKind::InflateLimit {
                what,
                limit: budget.limit(),
                env: crate::bytes::limits::INFLATE_LIMIT_ENV,
            },
        ));
    }
    out.clear();
    let want = usize::try_from(expected).unwrap_or(usize::MAX);
    crate::sys::alloc::reserve(out, want, what)?;
    let mut z = Decompress::new(true);
    loop {
        let before_in = z.total_in() as usize;
        let status = z
            .decompress_vec(
                data.get(before_in..).unwrap_or(&[]),
                out,
                FlushDecompress::Finish,
            )
            .map_err(|e| Error::at(z.total_in(), ErrorKind::Zlib(e.to_string())))?;
        match status {
            Status::StreamEnd => break,
            Status::Ok | Status::BufError => {
                if out.len() as u64 >= expected {
                    // The stream wants to produce more than announced.
                    return Err(Error::at(
                        z.total_in(),
                        ErrorKind::Zlib(format!(
                            "inflates to more than the announced {expected} bytes"
                        )),
                    ));
                }
                if z.total_in() as usize == before_in && status == Status::BufError {
                    return Err(Error::at(
                        z.total_in(),
                        ErrorKind::Zlib("zlib stream is cut short".into()),
                    ));
                }
            }
        }
    }
    if out.len() as u64 != expected {
        return Err(Error::at(
            z.total_in(),
            ErrorKind::Zlib(format!(
                "inflates to {} bytes, the chunk announced {expected}",
                out.len()
            )),
        ));
    }
    Ok(())
}

/// Encodes names as one chunk, zlib-compressed (level 9, as LLVM) if `compress`, else plain.
pub fn encode<'n>(names: impl IntoIterator<Item = &'n [u8]>, compress: bool) -> Vec<u8> {
    let mut text = Vec::new();
    for (i, n) in names.into_iter().enumerate() {
        if i > 0 {
            text.push(SEPARATOR);
        }
        text.extend_from_slice(n);
    }
    let mut out = Vec::new();
    if text.is_empty() {
        return out;
    }
    write_uleb(&mut out, text.len() as u64);
    if compress {
        let mut z = Compress::new(Compression::best(), true);
        let mut packed = Vec::with_capacity(text.len() + 64);
        loop {
            let consumed = z.total_in() as usize;
            packed.reserve(64);
            match z.compress_vec(&text[consumed..], &mut packed, FlushCompress::Finish) {
                Ok(Status::StreamEnd) => break,
                Ok(_) => continue,
                // Compressing an in-memory buffer cannot fail; fall back to plain text.
                Err(_) => {
                    write_uleb(&mut out, 0);
                    out.extend_from_slice(&text);
                    return out;
                }
            }
        }
        write_uleb(&mut out, packed.len() as u64);
        out.extend_from_slice(&packed);
    } else {
        write_uleb(&mut out, 0);
        out.extend_from_slice(&text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(blob: &[u8]) -> Result<Vec<Vec<u8>>> {
        let mut v = Vec::new();
        for_each_name(blob, 0, |n| v.push(n.to_vec()))?;
        Ok(v)
    }

    #[test]
    fn plain_and_compressed_round_trip() {
        let input: Vec<&[u8]> = vec![b"bar", b"main", b"simple.c;foo"];
        for compress in [false, true] {
            let blob = encode(input.iter().copied(), compress);
            assert_eq!(
                names(&blob).unwrap(),
                input.iter().map(|s| s.to_vec()).collect::<Vec<_>>()
            );
        }
        // LLVM's own plain encoding, from a real file.
        let plain = b"\x15\x00bar\x01main\x01simple.c;foo";
        assert_eq!(encode(input.iter().copied(), false), plain);
    }

    #[test]
    fn skips_zero_padding_between_chunks() {
        let mut blob = encode([b"a".as_slice()], false);
        blob.extend_from_slice(&[0, 0, 0]);
        blob.extend(encode([b"b".as_slice()], true));
        assert_eq!(names(&blob).unwrap(), vec![b"a".to_vec(), b"b".to_vec()]);
    }

    #[test]
    fn rejects_bad_zlib_and_wrong_lengths() {
        let blob = encode([b"hello".as_slice(), b"world"], true);
        // Announce one byte more than the payload inflates to.
        let mut bad = blob.clone();
        bad[0] += 1;
        assert!(names(&bad).is_err());
        // Corrupt the payload.
        let mut bad = blob.clone();
        let n = bad.len();
        bad[n - 3] ^= 0xff;
        assert!(names(&bad).is_err());
        // Truncate.
        assert!(names(&blob[..blob.len() - 2]).is_err());
        // Absurd uncompressed length.
        let mut huge = Vec::new();
        write_uleb(&mut huge, 1 << 40);
        write_uleb(&mut huge, 4);
        huge.extend_from_slice(&[0x78, 0xda, 0, 0]);
        let e = names(&huge).unwrap_err();
        assert!(e.to_string().contains("limit"), "{e}");
    }
}
