//! The way in for lightweight raw profiles: the binaries named for a merge, read once, the
//! `.build-id` trees to look others up in, and each input completed from the binary it came
//! from.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::InputPairing;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::frontends::correlate::CorrelationBinary;
use crate::frontends::input::InputFile;
use crate::frontends::profraw;
use crate::ir::correlation::{CorrelateKind, DebugInfoCounters};

/// Where lightweight raw profiles of a merge are completed from: the binaries named
/// (`--binary-file`, `--debug-info`) and `.build-id` trees (`--debug-file-directory` with
/// `--correlate`), matched to each profile by build ID. Empty: inputs are read as they are.
#[derive(Debug, Default)]
pub struct Correlator {
    binaries: Vec<CorrelationBinary>,
    /// Binaries named for the inputs a pattern matches (`--binary-for GLOB BIN`): used for
    /// those inputs instead of routing by build ID.
    pairings: Vec<Pairing>,
    trees: Vec<PathBuf>,
    tree_kind: Option<CorrelateKind>,
    /// Binaries found in the trees, by build ID (`None`: in no tree), read once.
    found: Mutex<HashMap<Vec<u8>, Option<Arc<CorrelationBinary>>>>,
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
            let (binary, found) = read_binary(path, *kind, max_warnings)?;
            warnings.extend(found);
            read.push(binary);
        }
        let correlator = Correlator {
            binaries: read,
            ..Correlator::default()
        };
        Ok((correlator, warnings))
    }

    /// Also looks up the binary of a profile that none of the named binaries matches in the
    /// `.build-id` trees `trees` (`DIR/.build-id/xx/rest-of-the-id.debug`, as LLVM's
    /// `--debug-file-directory`), read for correlation mode `kind`.
    pub fn with_build_id_trees(mut self, trees: Vec<PathBuf>, kind: CorrelateKind) -> Result<Self> {
        self.trees = trees;
        self.tree_kind = Some(kind);
        Ok(self)
    }

    /// Also completes the inputs whose path matches a pattern of `pairings` from the binary
    /// named with it, read for its mode (`--binary-for GLOB BIN`, `--debug-info-for GLOB
    /// BIN`), whether or not that binary has a build ID (if it has one, the profiles must
    /// carry it). A pattern without `/` is matched against the input's file name, one with
    /// `/` against its whole path as given; `*` and `?` never match `/`, `**` does. Returns
    /// the debug-info warnings, as [`Correlator::new`]; an invalid pattern is an error
    /// naming it.
    pub fn with_pairings(
        mut self,
        pairings: &[InputPairing],
        max_warnings: usize,
    ) -> Result<(Self, Vec<Warning>)> {
        let mut warnings = Vec::new();
        crate::sys::alloc::reserve(&mut self.pairings, pairings.len(), "--binary-for pairings")?;
        for p in pairings {
            let matcher = globset::GlobBuilder::new(&p.pattern)
                .literal_separator(true)
                .build()
                .map_err(|e| {
                    Error::new(ErrorKind::Usage(format!(
                        "{}: invalid input pattern {:?}: {e}",
                        p.option(),
                        p.pattern
                    )))
                })?
                .compile_matcher();
            let (binary, found) = read_binary(&p.binary, p.kind, max_warnings)?;
            warnings.extend(found);
            self.pairings.push(Pairing {
                pattern: p.pattern.clone(),
                whole_path: p.pattern.contains('/'),
                matcher,
                binary,
            });
        }
        Ok((self, warnings))
    }

    /// The pairing (its index among those given to [`Correlator::with_pairings`]) whose pattern
    /// matches `input`; an error naming both patterns if two do.
    fn pairing_for(&self, input: &Path) -> Result<Option<usize>> {
        let mut found: Option<usize> = None;
        for (i, p) in self.pairings.iter().enumerate() {
            if !p.matches(input) {
                continue;
            }
            if let Some(first) = found.map(|f| &self.pairings[f]) {
                return Err(Error::new(ErrorKind::Usage(format!(
                    "{}: input matched by two binary pairings, {:?} (binary {}) and {:?} \
                     (binary {}); name it by one pattern only",
                    input.display(),
                    first.pattern,
                    first.binary.path.display(),
                    p.pattern,
                    p.binary.path.display()
                ))));
            }
            found = Some(i);
        }
        Ok(found)
    }

    /// Checks the pairings against the merge's inputs before any is read: an input matched
    /// by two patterns is an error naming both; the patterns that match no input are
    /// returned (in the order given) for a warning.
    pub fn check_pairings<'a>(
        &self,
        inputs: impl IntoIterator<Item = &'a Path>,
    ) -> Result<Vec<String>> {
        let mut used = vec![false; self.pairings.len()];
        for input in inputs {
            if let Some(i) = self.pairing_for(input)? {
                used[i] = true;
            }
        }
        Ok(self
            .pairings
            .iter()
            .zip(used)
            .filter(|(_, u)| !u)
            .map(|(p, _)| p.pattern.clone())
            .collect())
    }

    /// True if no binary was named and no tree is searched.
    pub fn is_empty(&self) -> bool {
        self.binaries.is_empty() && self.trees.is_empty() && self.pairings.is_empty()
    }

    /// `file` with each lightweight raw profile in it completed from its binary (an error
    /// naming the build IDs if none of the binaries wrote it); unchanged if no binary was
    /// named or no profile of it is lightweight.
    pub fn apply(&self, file: InputFile) -> Result<InputFile> {
        if self.is_empty() {
            return Ok(file);
        }
        if let Some(i) = self.pairing_for(file.path())? {
            let binary = &self.pairings[i].binary;
            check_build_id(&self.pairings[i], file.bytes())
                .map_err(|e| e.with_path(file.path()))?;
            return match profraw::correlate::correlate(file.bytes(), &[binary]) {
                Ok(Some(bytes)) => Ok(file.with_bytes(bytes)),
                Ok(None) => Ok(file),
                Err(e) => Err(e.with_path(file.path())),
            };
        }
        let from_trees = self.look_up(file.bytes())?;
        let mut all: Vec<&CorrelationBinary> = self.binaries.iter().collect();
        all.extend(from_trees.iter().map(|b| &**b));
        match profraw::correlate::correlate(file.bytes(), &all) {
            Ok(Some(bytes)) => Ok(file.with_bytes(bytes)),
            Ok(None) => Ok(file),
            Err(e) => Err(self.with_trees(e).with_path(file.path())),
        }
    }

    /// The binaries in the trees for the build IDs of the lightweight profiles of `data`
    /// that no named binary has.
    fn look_up(&self, data: &[u8]) -> Result<Vec<Arc<CorrelationBinary>>> {
        let Some(kind) = self.tree_kind else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for id in profraw::correlate::lightweight_build_ids(data) {
            if self
                .binaries
                .iter()
                .any(|b| b.build_id.as_deref() == Some(&id[..]))
            {
                continue;
            }
            let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
            if !found.contains_key(&id) {
                let binary = match self
                    .trees
                    .iter()
                    .map(|t| tree_path(t, &id))
                    .find(|p| p.is_file())
                {
                    Some(path) => Some(Arc::new(read_binary(&path, kind, 1)?.0)),
                    None => None,
                };
                found.insert(id.clone(), binary);
            }
            out.extend(found[&id].clone());
        }
        Ok(out)
    }

    /// `e`, an error about a profile no binary matched, saying which trees were searched.
    fn with_trees(&self, e: Error) -> Error {
        match e.kind() {
            ErrorKind::Uncorrelated(text) if !self.trees.is_empty() => {
                let trees: Vec<String> =
                    self.trees.iter().map(|t| t.display().to_string()).collect();
                let kind = ErrorKind::Uncorrelated(format!(
                    "{text}; none of the .build-id trees searched holds it ({})",
                    trees.join(", ")
                ));
                match e.offset() {
                    Some(at) => Error::at(at, kind),
                    None => Error::new(kind),
                }
            }
            _ => e,
        }
    }
}

/// A pairing read: its pattern compiled, its binary read.
#[derive(Debug)]
struct Pairing {
    pattern: String,
    /// The pattern holds a `/`: matched against the whole path, else the file name.
    whole_path: bool,
    matcher: globset::GlobMatcher,
    binary: CorrelationBinary,
}

impl Pairing {
    /// True if the pattern matches `input` (its path as given).
    fn matches(&self, input: &Path) -> bool {
        if self.whole_path {
            self.matcher.is_match(input)
        } else {
            input
                .file_name()
                .is_some_and(|name| self.matcher.is_match(Path::new(name)))
        }
    }
}

/// For a pairing whose binary has a build ID: every lightweight profile of `data` must
/// carry it (a profile without one, or with another, was written by another binary).
/// Binaries without a build ID cannot be checked.
fn check_build_id(pairing: &Pairing, data: &[u8]) -> Result<()> {
    let Some(id) = pairing.binary.build_id.as_deref() else {
        return Ok(());
    };
    let hex = |id: &[u8]| -> String { id.iter().map(|b| format!("{b:02x}")).collect() };
    for (at, ids) in profraw::correlate::lightweight_profiles(data) {
        if ids.iter().any(|i| i == id) {
            continue;
        }
        let ours = if ids.is_empty() {
            "no build ID".to_string()
        } else {
            let ids: Vec<String> = ids.iter().map(|i| hex(i)).collect();
            format!("build ID {}", ids.join(", "))
        };
        return Err(Error::at(
            at,
            ErrorKind::Uncorrelated(format!(
                "a lightweight profile with {ours} is named by the pattern {:?} for {} (build \
                 ID {}), which did not write it",
                pairing.pattern,
                pairing.binary.path.display(),
                hex(id)
            )),
        ));
    }
    Ok(())
}

/// `DIR/.build-id/xx/yyyy….debug` for build ID `id`.
fn tree_path(dir: &Path, id: &[u8]) -> PathBuf {
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    let (head, rest) = hex.split_at(hex.len().min(2));
    dir.join(".build-id")
        .join(head)
        .join(format!("{rest}.debug"))
}

/// Reads one binary for correlation mode `kind`, keeping at most `max_warnings` warnings
/// (0: all) and a count of the rest.
fn read_binary(
    path: &Path,
    kind: CorrelateKind,
    max_warnings: usize,
) -> Result<(CorrelationBinary, Vec<Warning>)> {
    let file = InputFile::open(path)?;
    refuse_foreign(path, file.bytes())?;
    let (binary, mut warnings) = CorrelationBinary::parse(path, file.bytes(), kind)?;
    if max_warnings > 0 && warnings.len() > max_warnings {
        let rest = warnings.len() - max_warnings;
        warnings.truncate(max_warnings);
        warnings.push(
            Warning::new(format!("{rest} more debug-info warnings not shown")).with_path(path),
        );
    }
    Ok((binary, warnings))
}

/// Refuses a COFF, PE or Mach-O binary naming its format: correlation is implemented for
/// ELF only, since no Windows or macOS run could be checked here (llvm-profdata 19–22
/// correlate COFF in binary mode and refuse Mach-O).
fn refuse_foreign(path: &Path, bytes: &[u8]) -> Result<()> {
    use object::FileKind;
    let format = match FileKind::parse(bytes) {
        Ok(FileKind::Coff | FileKind::CoffBig | FileKind::CoffImport) => "a COFF object file",
        Ok(FileKind::Pe32 | FileKind::Pe64) => "a PE/COFF image (a Windows executable or DLL)",
        Ok(FileKind::MachO32 | FileKind::MachO64) => "a Mach-O file",
        Ok(FileKind::MachOFat32 | FileKind::MachOFat64) => "a universal (fat) Mach-O file",
        Ok(FileKind::DyldCache) => "a Mach-O dyld shared cache",
        _ => return Ok(()),
    };
    Err(Error::new(ErrorKind::Request(format!(
        "{format}: correlating lightweight raw profiles with binaries is implemented for ELF \
         only (COFF and Mach-O are not supported)"
    )))
    .with_path(path))
}

/// What the debug info of the binary `bytes` (read from `path`) says about its counters,
/// for `show --debug-info`, with the warnings about DIEs left out.
pub fn describe_debug_info(path: &Path, bytes: &[u8]) -> Result<(DebugInfoCounters, Vec<Warning>)> {
    refuse_foreign(path, bytes)?;
    crate::frontends::correlate::describe_debug_info(path, bytes)
}
