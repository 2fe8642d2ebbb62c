//! Lightweight raw profiles in a build without the `correlate` feature: no binary can be
//! read, so naming one is refused with the feature to turn on, and inputs are read as they
//! are (a lightweight profile's counters are then left out with the reader's warning).

use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind, Result, Warning};
use crate::frontends::input::InputFile;
use crate::ir::correlation::{CorrelateKind, DebugInfoCounters};

/// The error of every request that needs a binary read.
fn disabled() -> Error {
    Error::new(ErrorKind::FeatureDisabled {
        what: "lightweight raw profile correlation (--binary-file, --debug-info, --binary-for)",
        feature: "correlate",
    })
}

/// Without the `correlate` feature: holds nothing, completes nothing.
#[derive(Debug, Default)]
pub struct Correlator {
    _nothing: (),
}

impl Correlator {
    /// Refuses any binary: this build cannot read them.
    pub fn new(
        binaries: &[(CorrelateKind, PathBuf)],
        _max_warnings: usize,
    ) -> Result<(Correlator, Vec<Warning>)> {
        if binaries.is_empty() {
            Ok((Correlator::default(), Vec::new()))
        } else {
            Err(disabled())
        }
    }

    /// Refuses the trees: this build cannot read the binaries in them.
    pub fn with_build_id_trees(self, trees: Vec<PathBuf>, _kind: CorrelateKind) -> Result<Self> {
        if trees.is_empty() {
            Ok(self)
        } else {
            Err(disabled())
        }
    }

    /// Refuses any pairing: this build cannot read binaries.
    pub fn with_pairings(
        self,
        pairings: &[super::InputPairing],
        _max_warnings: usize,
    ) -> Result<(Self, Vec<Warning>)> {
        if pairings.is_empty() {
            Ok((self, Vec::new()))
        } else {
            Err(disabled())
        }
    }

    /// No pairing, so no pattern is left unmatched.
    pub fn check_pairings<'a>(
        &self,
        _inputs: impl IntoIterator<Item = &'a Path>,
    ) -> Result<Vec<String>> {
        Ok(Vec::new())
    }

    /// True: nothing to complete inputs from.
    pub fn is_empty(&self) -> bool {
        true
    }

    /// `file` as it is.
    pub fn apply(&self, file: InputFile) -> Result<InputFile> {
        Ok(file)
    }
}

/// Refused: this build cannot read debug info.
pub fn describe_debug_info(
    _path: &Path,
    _bytes: &[u8],
) -> Result<(DebugInfoCounters, Vec<Warning>)> {
    Err(disabled())
}
