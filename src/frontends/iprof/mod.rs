//! Front-end for GraalVM Native Image profiles (`.iprof`): JSON, optionally gzip-compressed.
//!
//! Reading is one pass ([`stream`]): serde parses the bytes and hands each piece to a
//! [`lower::Lowerer`], which validates it and maps it into the IR ([`IprofProfile`]): types
//! and methods into the symbol table by name, every context into the context tree, each
//! section's payload onto its site. Section entries are lowered and dropped one at a time,
//! so no image of the whole document is ever built. The typed [`model`] (a faithful,
//! id-based image of the document that borrows strings from the input) is the same grammar
//! as a whole-document type: [`lower::lower`] maps it with the same lowerer, and error
//! messages use it to find the JSON path of a syntax or type error. Versions 1.x, 0.4.0 (the 1.0.0 layout under an older
//! version string) and the 0.2.0 layout are read; the output of [`crate::backends::iprof`]
//! is always 1.x.
//!
//! The parser is serde_json: the benchmark `benches/iprof.rs` measured it against simd-json
//! on real files, see the README. Error messages carry the JSON path of the bad value and,
//! for syntax and type errors, the line and column: when the fast parse fails the input is
//! parsed again with path tracking, so well-formed inputs pay nothing for it.

pub mod ctx;
mod entry;
mod id_map;
pub mod lower;
mod method_table;
pub mod model;
mod resolver;
pub mod stream;

use std::io::Read;

use crate::bytes::limits::InflateBudget;
use crate::error::{Error, ErrorKind, Result};
use crate::ir::iprof::IprofProfile;

pub use lower::{CountScale, Lowered, Lowerer, ReadOptions, SharedTarget, TableBuffers};
pub use model::Document;

/// gzip's magic bytes; `native-image --pgo` accepts gzip-compressed profiles.
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// What a gzip-compressed profile is, in the message of its limit of decompressed bytes
/// ([`crate::bytes::limits::inflate_limit`]).
const GZIP_WHAT: &str = "a gzip-compressed iprof profile";

/// True if `data` looks like an iprof profile: gzip data, or JSON text whose first
/// non-whitespace character (after an optional UTF-8 byte-order mark) opens an object.
pub fn sniff(data: &[u8]) -> bool {
    if data.starts_with(&GZIP_MAGIC) {
        return true;
    }
    let data = data.strip_prefix(b"\xef\xbb\xbf").unwrap_or(data);
    data.iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{')
}

/// Decompresses `data` if it is gzip-compressed.
pub fn maybe_inflate(data: &[u8]) -> Result<Option<Vec<u8>>> {
    if !data.starts_with(&GZIP_MAGIC) {
        return Ok(None);
    }
    let budget = InflateBudget::new()?;
    let mut out = Vec::new();
    let mut dec = flate2::read::MultiGzDecoder::new(data).take(budget.limit().saturating_add(1));
    dec.read_to_end(&mut out)
        .map_err(|e| Error::new(ErrorKind::Gzip(e.to_string())))?;
    if out.len() as u64 > budget.limit() {
        return Err(budget.exceeded(GZIP_WHAT));
    }
    Ok(Some(out))
}

/// Parses JSON text into the typed model. On failure the text is parsed again with path
/// tracking so that the error names the JSON path, line and column.
pub fn parse_document(json: &[u8]) -> Result<Document<'_>> {
    match serde_json::from_slice::<Document<'_>>(json) {
        Ok(d) => Ok(d),
        Err(first) => Err(locate_error(json, first)),
    }
}

/// Builds the error for a document serde could not parse.
pub(crate) fn locate_error(json: &[u8], first: serde_json::Error) -> Error {
    let mut de = serde_json::Deserializer::from_slice(json);
    match serde_path_to_error::deserialize::<_, Document<'_>>(&mut de) {
        Ok(_) => json_error(".".into(), first),
        Err(e) => {
            let path = e.path().to_string();
            json_error(path, e.into_inner())
        }
    }
}

/// The error for serde's `e` at the JSON path `path` (`.` for the top level).
pub(crate) fn json_error(path: String, e: serde_json::Error) -> Error {
    let position = (e.line() > 0).then(|| (e.line() as u64, e.column() as u64));
    let what = match e.classify() {
        serde_json::error::Category::Syntax => "invalid JSON: ",
        serde_json::error::Category::Eof => "invalid JSON (truncated): ",
        serde_json::error::Category::Data => "",
        serde_json::error::Category::Io => "",
    };
    // serde_json appends " at line L column C" to its messages; we print the position
    // ourselves.
    let msg = e.to_string();
    let msg = match msg.rfind(" at line ") {
        Some(k) => msg.get(..k).unwrap_or(&msg).to_string(),
        None => msg,
    };
    let json_path = if path == "." {
        "(top level)".to_string()
    } else {
        path
    };
    Error::new(ErrorKind::Json {
        json_path,
        position,
        detail: format!("{what}{msg}"),
    })
}

/// Reads an iprof profile from `data` (JSON or gzip-compressed JSON).
pub fn read(data: &[u8], opts: ReadOptions) -> Result<Lowered> {
    let inflated = maybe_inflate(data)?;
    let json = inflated.as_deref().unwrap_or(data);
    if json.is_empty() {
        return Err(Error::at(0, ErrorKind::Empty));
    }
    stream::read_json(json, opts)
}

/// Reads the iprof profile in file `path` (errors carry the path).
pub fn read_file(path: &std::path::Path, opts: ReadOptions) -> Result<Lowered> {
    read_file_into(path, Lowerer::new(opts))
}

/// Reads the iprof profile in file `path` into `lowerer` (see [`Lowerer::into_shared`] to
/// add it to a profile being merged). A plain file is parsed straight from its memory map,
/// whose pages are released as the parse moves on, and a gzip-compressed one straight from
/// the decompressor, so neither is ever resident as a whole. Errors carry the path.
pub fn read_file_into(path: &std::path::Path, lowerer: Lowerer<'_>) -> Result<Lowered> {
    read_input_into(&super::InputFile::open(path)?, lowerer)
}

/// As [`read_file_into`], for an input already opened.
pub fn read_input_into(f: &super::InputFile, lowerer: Lowerer<'_>) -> Result<Lowered> {
    let data = f.bytes();
    let r = if data.starts_with(&GZIP_MAGIC) {
        let budget = InflateBudget::new()?;
        let limit = budget.limit();
        let releasing = || Releasing {
            file: f,
            data,
            at: 0,
            released: 0,
        };
        // Bytes inflated by the parse (the second parse that places an error reads no more).
        let inflated = std::cell::Cell::new(0u64);
        let inflate = Counting {
            inner: flate2::read::MultiGzDecoder::new(releasing()),
            count: &inflated,
            limit,
        };
        let reader = std::io::BufReader::with_capacity(1 << 16, inflate);
        stream::lower_reader(reader, lowerer, |e| {
            // Past the limit, the parse was stopped there.
            if inflated.get() > limit {
                return budget.exceeded(GZIP_WHAT);
            }
            // The gzip data is checked first, as a whole: garbage inflated from corrupt data
            // looks like a JSON error long before the decompressor notices (at the CRC). The
            // stream is inflated to nowhere, so memory stays constant.
            let mut all = flate2::read::MultiGzDecoder::new(releasing()).take(limit + 1);
            match std::io::copy(&mut all, &mut std::io::sink()) {
                Err(z) => return Error::new(ErrorKind::Gzip(z.to_string())),
                Ok(n) if n > limit => return budget.exceeded(GZIP_WHAT),
                Ok(0) => return Error::at(0, ErrorKind::Empty),
                Ok(_) => {}
            }
            // Inflated again, streaming and only as far as the first parse read, to find
            // the JSON path of the error: memory stays that of the first parse (a whole
            // inflated copy can be hundreds of times the file).
            let again = flate2::read::MultiGzDecoder::new(releasing()).take(inflated.get());
            stream::locate_in_reader(std::io::BufReader::with_capacity(1 << 16, again), e)
        })
    } else if data.is_empty() {
        Err(Error::at(0, ErrorKind::Empty))
    } else {
        let release = |at: usize| f.release_before(at);
        stream::lower_json(data, lowerer, Some(&release))
    };
    // Nothing read from a file that changed meanwhile is used.
    let r = r.map_err(|e| f.or_changed(e))?;
    f.check_unchanged()?;
    Ok(r)
}

/// Reads a mapped input front to back, releasing the pages behind it from time to time
/// ([`super::InputFile::release_before`]) so that the compressed file is not resident as a
/// whole either.
struct Releasing<'f> {
    file: &'f super::InputFile,
    data: &'f [u8],
    /// Bytes read so far.
    at: usize,
    /// Bytes before this were released.
    released: usize,
}

impl Releasing<'_> {
    /// Bytes read between two releases.
    const EVERY: usize = 256 << 10;
}

impl Read for Releasing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let rest = self.data.get(self.at..).unwrap_or_default();
        let n = buf.len().min(rest.len());
        if let (Some(to), Some(from)) = (buf.get_mut(..n), rest.get(..n)) {
            to.copy_from_slice(from);
        }
        self.at += n;
        if self.at - self.released >= Self::EVERY {
            self.file.release_before(self.at);
            self.released = self.at;
        }
        Ok(n)
    }
}

/// A reader that adds the bytes it yields to `count`, and fails once they pass `limit`
/// (the reader of the parse then stops: its caller reports the limit).
struct Counting<'c, R> {
    inner: R,
    count: &'c std::cell::Cell<u64>,
    limit: u64,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        if self.count.get() > self.limit {
            return Err(std::io::Error::other(
                "the limit of decompressed bytes was passed",
            ));
        }
        Ok(n)
    }
}

/// Reads an iprof profile and returns only the IR, failing on any problem (strict mode).
pub fn read_profile(data: &[u8]) -> Result<IprofProfile> {
    read(data, ReadOptions::default()).map(|l| l.profile)
}
