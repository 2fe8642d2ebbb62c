//! The way in for lightweight raw profiles: the binaries named for a merge, read once, and
//! each input completed from the one it came from.

use std::path::PathBuf;

use crate::error::Result;
use crate::frontends::correlate::CorrelationBinary;
use crate::frontends::input::InputFile;
use crate::frontends::profraw;

/// The binaries (`--binary-file`) that lightweight raw profiles of a merge are completed
/// from, matched to each profile by build ID. Empty: inputs are read as they are.
#[derive(Debug, Default)]
pub struct Correlator {
    binaries: Vec<CorrelationBinary>,
}

impl Correlator {
    /// Reads the correlation sections of every binary in `paths`; an error names the first
    /// file that is not an ELF binary built for correlation.
    pub fn new(paths: &[PathBuf]) -> Result<Correlator> {
        let mut binaries = Vec::new();
        crate::sys::alloc::reserve(&mut binaries, paths.len(), "binaries to correlate with")?;
        for path in paths {
            let file = InputFile::open(path)?;
            binaries.push(CorrelationBinary::parse(path, file.bytes())?);
        }
        Ok(Correlator { binaries })
    }

    /// True if no binary was named.
    pub fn is_empty(&self) -> bool {
        self.binaries.is_empty()
    }

    /// `file` with each lightweight raw profile in it completed from its binary (an error
    /// naming the build IDs if none of the binaries wrote it); unchanged if no binary was
    /// named or no profile of it is lightweight.
    pub fn apply(&self, file: InputFile) -> Result<InputFile> {
        if self.is_empty() {
            return Ok(file);
        }
        match profraw::correlate::correlate(file.bytes(), &self.binaries) {
            Ok(Some(bytes)) => Ok(file.with_bytes(bytes)),
            Ok(None) => Ok(file),
            Err(e) => Err(e.with_path(file.path())),
        }
    }
}
