//! The way in for lightweight raw profiles: the binaries named for a merge, read once, and
//! each input completed from the one it came from.

use std::path::PathBuf;

use crate::error::{Result, Warning};
pub use crate::frontends::correlate::CorrelateKind;
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
    /// Reads what every binary of `binaries` holds for correlation in its mode, with the
    /// warnings about debug-info entries left out (at most `max_warnings` of them, 0 for
    /// all, then a count of the rest, as llvm-profdata's
    /// `--max-debug-info-correlation-warnings`); an error names the first file that is not
    /// an ELF binary built for its mode.
    pub fn new(
        binaries: &[(CorrelateKind, PathBuf)],
        max_warnings: usize,
    ) -> Result<(Correlator, Vec<Warning>)> {
        let mut read = Vec::new();
        let mut warnings = Vec::new();
        crate::sys::alloc::reserve(&mut read, binaries.len(), "binaries to correlate with")?;
        for (kind, path) in binaries {
            let file = InputFile::open(path)?;
            let (binary, mut found) = CorrelationBinary::parse(path, file.bytes(), *kind)?;
            if max_warnings > 0 && found.len() > max_warnings {
                let rest = found.len() - max_warnings;
                found.truncate(max_warnings);
                found.push(
                    Warning::new(format!("{rest} more debug-info warnings not shown"))
                        .with_path(path),
                );
            }
            warnings.extend(found);
            read.push(binary);
        }
        Ok((Correlator { binaries: read }, warnings))
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
