//! The binary side of lightweight instrumentation (`-mllvm -profile-correlate=binary`,
//! clang 18+): the per-function data records and names stay in the binary, in the sections
//! `__llvm_covdata` and `__llvm_covnames` (not loaded at run time), and the raw profile holds
//! only a header, the counters and the build ID. This module reads what a binary holds for
//! that; `profraw::correlate` puts it back into the raw profile.
//!
//! ELF only (32/64-bit, either byte order): COFF and Mach-O are refused with a message
//! naming the format, since no such file has been checked here.

use std::ops::Range;
use std::path::{Path, PathBuf};

use object::{Object, ObjectSection};

use crate::bytes::PointerWidth;
use crate::error::{Error, ErrorKind, Result};

/// ELF section of the counters (allocated; its address range is what the data records'
/// counter pointers point into).
const COUNTERS: &str = "__llvm_prf_cnts";
/// ELF section of the data records of a binary-correlated build.
const COVDATA: &str = "__llvm_covdata";
/// ELF section of the function names of a binary-correlated build (LLVM's names blob).
const COVNAMES: &str = "__llvm_covnames";

/// What one binary holds for correlating its raw profiles.
#[derive(Debug, Clone)]
pub struct CorrelationBinary {
    /// The file, for messages.
    pub path: PathBuf,
    /// Its GNU build ID (the `NT_GNU_BUILD_ID` note), if it has one.
    pub build_id: Option<Vec<u8>>,
    /// Pointer width of the binary.
    pub width: PointerWidth,
    /// True for a little-endian binary.
    pub little_endian: bool,
    /// Link-time addresses of the counters section, `[start, end)`.
    pub counters: Range<u64>,
    /// The data records (`__llvm_covdata`), in the layout of the raw version the binary's
    /// compiler writes; their counter pointers are absolute addresses.
    pub data: Vec<u8>,
    /// The names blob (`__llvm_covnames`), as a raw profile's names section holds it.
    pub names: Vec<u8>,
}

impl CorrelationBinary {
    /// Reads the correlation sections of the binary `bytes` (read from `path`). An error
    /// names what is missing: a binary built without `-profile-correlate=binary` has no
    /// `__llvm_covdata`.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<CorrelationBinary> {
        let refuse = |what: String| Error::new(ErrorKind::Request(what)).with_path(path);
        let file = object::File::parse(bytes).map_err(|e| {
            refuse(format!(
                "not an object file this build reads ({e}); correlation needs the ELF \
                 executable or shared library the raw profile came from"
            ))
        })?;
        if file.format() != object::BinaryFormat::Elf {
            return Err(refuse(format!(
                "a {:?} file: correlating raw profiles with binaries is implemented for ELF \
                 only",
                file.format()
            )));
        }
        let section = |name: &'static str| {
            file.section_by_name(name).ok_or_else(|| {
                refuse(format!(
                    "the binary has no {name} section: it was not built with \
                     -fprofile-generate -mllvm -profile-correlate=binary (or it was stripped \
                     of it)"
                ))
            })
        };
        let counters = section(COUNTERS)?;
        let start = counters.address();
        let end = start.checked_add(counters.size()).ok_or_else(|| {
            Error::malformed(0, "ELF section header", "__llvm_prf_cnts ends past 2^64")
                .with_path(path)
        })?;
        let data = contents(path, &section(COVDATA)?)?;
        let names = contents(path, &section(COVNAMES)?)?;
        let build_id = file
            .build_id()
            .map_err(|e| Error::malformed(0, "ELF build-ID note", e.to_string()).with_path(path))?
            .map(<[u8]>::to_vec);
        Ok(CorrelationBinary {
            path: path.to_path_buf(),
            build_id,
            width: if file.is_64() {
                PointerWidth::W64
            } else {
                PointerWidth::W32
            },
            little_endian: file.is_little_endian(),
            counters: start..end,
            data,
            names,
        })
    }
}

/// The bytes of `section`, inflated if it is zlib-compressed (`SHF_COMPRESSED`), within the
/// limit of decompressed bytes per input.
fn contents(path: &Path, section: &object::Section<'_, '_>) -> Result<Vec<u8>> {
    let at = section.file_range().map_or(0, |(offset, _)| offset);
    let bad = |e: object::Error| {
        Error::malformed(at, "ELF section", format!("{}: {e}", name_of(section))).with_path(path)
    };
    let compressed = section.compressed_data().map_err(bad)?;
    match compressed.format {
        object::CompressionFormat::None => Ok(compressed.data.to_vec()),
        object::CompressionFormat::Zlib => {
            let mut budget = crate::bytes::limits::InflateBudget::new()?;
            let mut out = Vec::new();
            crate::codec::names_blob::inflate(
                compressed.data,
                compressed.uncompressed_size,
                &mut out,
                &mut budget,
                "a compressed ELF section",
            )
            .map_err(|e| e.rebase(at).with_path(path))?;
            Ok(out)
        }
        other => Err(Error::new(ErrorKind::Request(format!(
            "section {} is compressed with {other:?}, which this build does not inflate \
             (zlib only)",
            name_of(section)
        )))
        .with_path(path)),
    }
}

fn name_of(section: &object::Section<'_, '_>) -> String {
    section.name().unwrap_or("?").to_string()
}
