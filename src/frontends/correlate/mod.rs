//! The binary side of lightweight instrumentation: the raw profile holds only a header, the
//! counters and the build ID; the per-function data records and names stay in the binary,
//! either as data records in the sections `__llvm_covdata` and `__llvm_covnames` (not loaded
//! at run time; `-mllvm -profile-correlate=binary`, clang 18+) or as DWARF describing each
//! function's counters variable (`-mllvm -profile-correlate=debug-info`, clang 18+, or
//! `-mllvm -debug-info-correlate`, clang 14–17; see `dwarf`). This module reads what a
//! binary holds for that; `profraw::correlate` puts it back into the raw profile.
//!
//! ELF only (32/64-bit, either byte order): COFF and Mach-O are refused with a message
//! naming the format, since no such file has been checked here.

mod dwarf;

use std::ops::Range;
use std::path::{Path, PathBuf};

use object::{Object, ObjectSection};

use crate::bytes::PointerWidth;
use crate::error::{Error, ErrorKind, Result, Warning};

/// ELF section of the counters (allocated; its address range is what the data records'
/// counter pointers point into).
const COUNTERS: &str = "__llvm_prf_cnts";
/// ELF section of the MC/DC bitmaps (allocated; what the data records' bitmap pointers and
/// the debug info's `__profbm_*` variables point into).
const BITMAPS: &str = "__llvm_prf_bits";
/// ELF section of the data records of a binary-correlated build.
const COVDATA: &str = "__llvm_covdata";
/// ELF section of the function names of a binary-correlated build (LLVM's names blob).
const COVNAMES: &str = "__llvm_covnames";

pub use crate::ir::correlation::CorrelateKind;

/// What LLVM's correlator keeps of one function: the fields of a data record that a
/// lightweight profile lacks (no value sites; the MC/DC bitmap only from raw version 11,
/// as llvm-profdata-23 keeps it, and LLVM 22 and earlier do not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    /// MD5 of the function's PGO name.
    pub name_ref: u64,
    /// Structural (CFG) hash.
    pub func_hash: u64,
    /// Byte offset of the function's counters in the counters section.
    pub counter_offset: u64,
    /// Address of the function (0 if unknown).
    pub function_ptr: u64,
    /// Number of counters.
    pub num_counters: u32,
    /// Byte offset of the function's MC/DC bitmap in `__llvm_prf_bits` (0 without one).
    pub bitmap_offset: u64,
    /// Number of MC/DC bitmap bytes (0 without a bitmap).
    pub num_bitmap_bytes: u32,
}

/// The records a binary holds, in the form its mode gives them.
#[derive(Debug, Clone)]
pub enum Records {
    /// `__llvm_covdata`: data records in the layout of the raw version the binary's compiler
    /// writes (known only with the profile), counter pointers absolute.
    Covdata(Vec<u8>),
    /// Probes read from the debug info, one per counter offset.
    Probes(Vec<Probe>),
}

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
    /// Link-time addresses of the MC/DC bitmaps section, `[start, end)` (empty without one).
    pub bitmaps: Range<u64>,
    /// The data records.
    pub records: Records,
    /// The names blob, as a raw profile's names section holds it (`__llvm_covnames`, or
    /// built from the debug info's names, uncompressed as LLVM builds it).
    pub names: Vec<u8>,
}

impl CorrelationBinary {
    /// Reads what the binary `bytes` (read from `path`) holds for correlation in mode
    /// `kind`, with the warnings about debug-info entries left out. An error names what is
    /// missing: a binary built without `-profile-correlate=binary` has no `__llvm_covdata`.
    pub fn parse(
        path: &Path,
        bytes: &[u8],
        kind: CorrelateKind,
    ) -> Result<(CorrelationBinary, Vec<Warning>)> {
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
        let flag = match kind {
            CorrelateKind::Binary => "-profile-correlate=binary",
            CorrelateKind::DebugInfo => "-g -profile-correlate=debug-info",
        };
        let section = |name: &'static str| {
            file.section_by_name(name).ok_or_else(|| {
                refuse(format!(
                    "the binary has no {name} section: it was not built with \
                     -fprofile-generate -mllvm {flag} (or it was stripped of it)"
                ))
            })
        };
        let counters = section(COUNTERS)?;
        let start = counters.address();
        let end = start.checked_add(counters.size()).ok_or_else(|| {
            Error::malformed(0, "ELF section header", "__llvm_prf_cnts ends past 2^64")
                .with_path(path)
        })?;
        let counters = start..end;
        let bitmaps = section_range(&file, BITMAPS);
        let (records, names, warnings) = match kind {
            CorrelateKind::Binary => (
                Records::Covdata(contents(path, &section(COVDATA)?)?),
                contents(path, &section(COVNAMES)?)?,
                Vec::new(),
            ),
            CorrelateKind::DebugInfo => {
                let found = dwarf::probes(path, &file, (&counters, &bitmaps), false)?;
                if found.names.is_empty() {
                    return Err(refuse(format!(
                        "the debug info describes no profile counters: the binary was not \
                         built with -fprofile-generate -mllvm {flag}"
                    )));
                }
                let names =
                    crate::codec::names_blob::encode(found.names.iter().map(Vec::as_slice), false);
                (Records::Probes(found.probes), names, found.warnings)
            }
        };
        let build_id = file
            .build_id()
            .map_err(|e| Error::malformed(0, "ELF build-ID note", e.to_string()).with_path(path))?
            .map(<[u8]>::to_vec);
        let warnings = warnings.into_iter().map(|w| w.with_path(path)).collect();
        let binary = CorrelationBinary {
            path: path.to_path_buf(),
            build_id,
            width: if file.is_64() {
                PointerWidth::W64
            } else {
                PointerWidth::W32
            },
            little_endian: file.is_little_endian(),
            counters,
            bitmaps,
            records,
            names,
        };
        Ok((binary, warnings))
    }
}

/// The link-time address range of the section `name`, empty if the file has none (or if
/// its end would pass 2^64).
fn section_range(file: &object::File<'_>, name: &str) -> Range<u64> {
    file.section_by_name(name)
        .and_then(|s| Some(s.address()..s.address().checked_add(s.size())?))
        .unwrap_or(0..0)
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

/// What the debug info of the binary `bytes` (read from `path`) says about its counters, as
/// `llvm-profdata show --debug-info` reports it, with the warnings about DIEs left out.
pub fn describe_debug_info(
    path: &Path,
    bytes: &[u8],
) -> Result<(crate::ir::correlation::DebugInfoCounters, Vec<Warning>)> {
    let refuse = |what: String| Error::new(ErrorKind::Request(what)).with_path(path);
    let file = object::File::parse(bytes)
        .map_err(|e| refuse(format!("not an object file this build reads ({e})")))?;
    if file.format() != object::BinaryFormat::Elf {
        return Err(refuse(format!(
            "a {:?} file: debug-info correlation is implemented for ELF only",
            file.format()
        )));
    }
    let counters = file.section_by_name(COUNTERS).ok_or_else(|| {
        refuse(format!(
            "the binary has no {COUNTERS} section: it was not built with -fprofile-generate"
        ))
    })?;
    let range = counters.address()..counters.address().saturating_add(counters.size());
    let bitmaps = section_range(&file, BITMAPS);
    let found = dwarf::probes(path, &file, (&range, &bitmaps), true)?;
    if found.probes.is_empty() {
        return Err(refuse(
            "the debug info describes no profile counters: the binary was not built with -g \
             -mllvm -profile-correlate=debug-info"
                .to_string(),
        ));
    }
    let report = crate::ir::correlation::DebugInfoCounters {
        functions: found.probes.len(),
        probes: found.described,
        counters_size: counters.size(),
    };
    let warnings = found
        .warnings
        .into_iter()
        .map(|w| w.with_path(path))
        .collect();
    Ok((report, warnings))
}
