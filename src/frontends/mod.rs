//! Front-ends: turn input files into the IR.
//!
//! [`read`] detects the format from the content and dispatches. Inputs are memory-mapped
//! ([`InputFile`]) and front-ends borrow counters from the mapping instead of copying them.

pub mod profraw;

use std::path::{Path, PathBuf};

use crate::detect::FormatKind;
use crate::error::{Error, ErrorKind, Result};
use crate::ir::Profile;

/// What a front-end produced from one input.
#[derive(Debug)]
pub struct ReadOutput<'a> {
    /// The profile.
    pub profile: Profile<'a>,
    /// Non-fatal problems found while reading.
    pub warnings: Vec<String>,
    /// A counter so large that the input is probably corrupt (raw inputs only).
    pub suspicious_counter: Option<profraw::SuspiciousCounter>,
    /// True for raw profiles (their temporal traces take the input's weight).
    pub raw: bool,
}

impl<'a> ReadOutput<'a> {
    /// Wraps a profile built in memory.
    pub fn from_profile(profile: Profile<'a>) -> Self {
        ReadOutput {
            profile,
            warnings: Vec::new(),
            suspicious_counter: None,
            raw: false,
        }
    }
}

/// Reads a profile of any supported format from `data`.
pub fn read<'a>(data: &'a [u8], cache: &profraw::NameCache) -> Result<ReadOutput<'a>> {
    match FormatKind::sniff(data) {
        FormatKind::RawProfile => {
            let r = profraw::read(data, cache)?;
            Ok(ReadOutput {
                profile: r.profile,
                warnings: r.warnings,
                suspicious_counter: r.suspicious_counter,
                raw: true,
            })
        }
        FormatKind::Empty => Err(Error::at(0, ErrorKind::Empty)),
        FormatKind::IndexedProfile => Err(Error::at(
            0,
            ErrorKind::Usage(
                "reading indexed profiles (.profdata) as input is not implemented yet; \
                 merge the original .profraw files instead"
                    .into(),
            ),
        )),
        FormatKind::TextProfile => Err(Error::at(
            0,
            ErrorKind::Usage(
                "reading text profiles (.proftext) as input is not implemented yet".into(),
            ),
        )),
        FormatKind::Unknown => Err(Error::at(
            0,
            ErrorKind::UnknownFormat {
                head: crate::bytes::hex_head(data),
            },
        )),
    }
}

/// An input file's bytes: memory-mapped when possible, read into memory otherwise (pipes,
/// empty files, file systems that cannot map).
#[derive(Debug)]
pub struct InputFile {
    path: PathBuf,
    data: InputData,
}

#[derive(Debug)]
enum InputData {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl InputFile {
    /// Opens and maps `path`.
    pub fn open(path: &Path) -> Result<InputFile> {
        let io = |e: std::io::Error| Error::new(ErrorKind::Io(e)).with_path(path);
        let file = std::fs::File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.is_dir() {
            return Err(Error::new(ErrorKind::Usage("is a directory".into())).with_path(path));
        }
        let data = if meta.is_file() && meta.len() > 0 {
            // SAFETY: the map is read-only. If another process truncates the file while we
            // read it, accesses past the new end fault; profile files are not modified while
            // a merge runs (the same assumption llvm-profdata's mmap-based reader makes).
            match unsafe { memmap2::Mmap::map(&file) } {
                Ok(m) => InputData::Mapped(m),
                Err(_) => InputData::Owned(std::fs::read(path).map_err(io)?),
            }
        } else {
            let mut v = Vec::new();
            std::io::Read::read_to_end(&mut &file, &mut v).map_err(io)?;
            InputData::Owned(v)
        };
        Ok(InputFile {
            path: path.to_path_buf(),
            data,
        })
    }

    /// Wraps bytes already in memory.
    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> InputFile {
        InputFile {
            path: path.to_path_buf(),
            data: InputData::Owned(bytes),
        }
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.data {
            InputData::Mapped(m) => m,
            InputData::Owned(v) => v,
        }
    }

    /// The path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
