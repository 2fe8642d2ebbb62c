//! Gzip-compressed inputs. GraalVM profiles are often gzip-compressed (`.iprof.gz`), and
//! Bazel's coverage collection hands over LLVM raw profiles compressed too: what a
//! compressed input holds is told from its first inflated bytes, and inputs of formats whose
//! readers take plain bytes are inflated whole before they are read (the iprof reader
//! inflates as it parses).

use std::io::Read;

use super::detect::FormatKind;
use super::input::InputFile;
use crate::bytes::limits::InflateBudget;
use crate::error::{Error, ErrorKind, Result};

/// The first two bytes of every gzip member (RFC 1952, `ID1 ID2`).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Inflated bytes looked at to tell what a compressed input holds.
const PEEK: u64 = 512;

/// Bytes inflated at a time when an input is inflated whole.
const CHUNK: usize = 64 * 1024;

/// What the budget error calls an input being inflated.
const WHAT: &str = "a gzip-compressed input";

/// True if `data` starts with gzip's magic.
pub fn is_gzip(data: &[u8]) -> bool {
    data.starts_with(&GZIP_MAGIC)
}

/// The format of what the gzip data `data` holds, from its first 512 inflated bytes
/// (gzip inside gzip is [`FormatKind::Unknown`]: one layer is looked into, no more), or
/// `None` if not a byte of it can be inflated.
pub fn inner_kind(data: &[u8]) -> Option<FormatKind> {
    let mut head = Vec::new();
    let read = flate2::read::MultiGzDecoder::new(data)
        .take(PEEK)
        .read_to_end(&mut head);
    if read.is_err() && head.is_empty() {
        return None;
    }
    Some(if is_gzip(&head) {
        FormatKind::Unknown
    } else {
        FormatKind::sniff(&head)
    })
}

/// The format a gzip input is read as: what it holds; a GraalVM profile if nothing can be
/// inflated (the iprof reader, which reads `.iprof.gz`, then says what is wrong with it).
pub(crate) fn kind_of(data: &[u8]) -> FormatKind {
    inner_kind(data).unwrap_or(FormatKind::Iprof)
}

/// True if `data` is gzip data that the readers need inflated first: a format of its own
/// that is not a GraalVM profile (whose reader inflates), or nothing at all (an empty input
/// is then reported as one). Gzip holding bytes of no known format, gzip in gzip among them,
/// is left as it is, to be reported as what it is.
pub fn needs_inflating(data: &[u8]) -> bool {
    is_gzip(data) && !matches!(kind_of(data), FormatKind::Iprof | FormatKind::Unknown)
}

/// All of the gzip data `data` inflated, at most [`InflateBudget::new`]'s limit of bytes,
/// in memory allocated fallibly. A corrupt or truncated stream is [`ErrorKind::Gzip`].
pub fn inflate(data: &[u8]) -> Result<Vec<u8>> {
    let mut budget = InflateBudget::new()?;
    let mut dec = flate2::read::MultiGzDecoder::new(data);
    let mut out: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let n = match dec.read(&mut chunk) {
            Ok(0) => return Ok(out),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::new(ErrorKind::Gzip(e.to_string()))),
        };
        budget.take(n as u64, WHAT)?;
        crate::sys::alloc::reserve(&mut out, n, "an inflated gzip input")?;
        out.extend_from_slice(chunk.get(..n).unwrap_or_default());
    }
}

/// `file` as its readers take it: inflated if [`needs_inflating`], else as it is.
pub(crate) fn inflated(file: InputFile) -> Result<InputFile> {
    if !needs_inflating(file.bytes()) {
        return Ok(file);
    }
    let bytes = inflate(file.bytes()).map_err(|e| file.or_changed(e))?;
    Ok(file.with_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut e, data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn tells_what_is_inside() {
        let raw = [0x81, 0x72, 0x66, 0x6f, 0x72, 0x70, 0x6c, 0xff, 0, 0];
        assert_eq!(inner_kind(&gz(&raw)), Some(FormatKind::RawProfile));
        assert_eq!(inner_kind(&gz(b"{\"types\": []}")), Some(FormatKind::Iprof));
        assert_eq!(inner_kind(&gz(&gz(b"{}"))), Some(FormatKind::Unknown));
        assert_eq!(inner_kind(&GZIP_MAGIC), None);
        assert!(needs_inflating(&gz(&raw)));
        assert!(!needs_inflating(&gz(b"{}")));
        assert!(!needs_inflating(&GZIP_MAGIC));
        assert!(!needs_inflating(&gz(&gz(&raw))));
        assert!(needs_inflating(&gz(b"")));
        assert_eq!(inflate(&gz(&raw)).unwrap(), raw);
    }

    #[test]
    fn a_truncated_stream_is_an_error() {
        let data = gz(&[7u8; 100_000]);
        let e = inflate(data.get(..data.len() / 2).unwrap()).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Gzip(_)), "{e}");
    }
}
