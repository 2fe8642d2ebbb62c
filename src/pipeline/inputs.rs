//! The input collector: turns the files, directories, weighted inputs and input lists of a
//! request into the ordered list of inputs, walking each directory and reading each list
//! once however many selections are made from them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{InputSpec, request_error};
use crate::error::{Error, ErrorKind, Result};
use crate::passes::Weight;

/// Which files of a directory an input selection takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Select {
    /// `*.profraw` and `*.profdata` (pgo-merge's own rule for LLVM merges).
    Llvm,
    /// Every regular file (llvm-profdata's rule).
    EveryFile,
    /// `*.iprof` and `*.iprof.gz`.
    Iprof,
    /// `*.iprof`, `*.iprof.gz`, `*.profraw`, `*.profdata` and `*.proftext` (runs that
    /// convert between GraalVM and LLVM profiles).
    IprofAndLlvm,
}

/// True for a name ending in `.iprof` or `.iprof.gz`.
pub fn has_iprof_extension(p: &Path) -> bool {
    let name = p.to_string_lossy();
    name.ends_with(".iprof") || name.ends_with(".iprof.gz")
}

/// True for a `.profraw`, `.profdata` or `.proftext` name.
pub fn has_llvm_extension(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("profraw" | "profdata" | "proftext")
    )
}

impl Select {
    /// Whether the selection takes `path` by its name (regular file or not).
    fn takes_name(self, path: &Path) -> bool {
        match self {
            Select::Llvm => matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("profraw" | "profdata")
            ),
            Select::EveryFile => true,
            Select::Iprof => has_iprof_extension(path),
            Select::IprofAndLlvm => has_iprof_extension(path) || has_llvm_extension(path),
        }
    }

    /// Whether a file named like a profile but not a regular file is reported. pgo-merge's
    /// own selections say so (a FIFO named `x.profraw` is probably a mistake); llvm-profdata's
    /// rule skips every such file without a word, and so does the drop-in.
    fn reports_skipped(self) -> bool {
        self != Select::EveryFile
    }
}

/// The sources of a request's inputs, in the order they are taken: plain inputs, then
/// weighted inputs, then the lines of each input list.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sources {
    /// Files or directories, weight 1.
    pub inputs: Vec<PathBuf>,
    /// Weighted files or directories.
    pub weighted: Vec<(Weight, PathBuf)>,
    /// Files listing inputs, one `FILE` or `W,FILE` per line.
    pub lists: Vec<PathBuf>,
}

/// Walks directories and reads input lists once, then makes selections from them.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    /// Per directory: its files (not directories) under it, recursively, sorted, with
    /// what each is unless it is a regular file (following links): "a FIFO", ….
    walked: HashMap<PathBuf, Vec<(PathBuf, Option<String>)>>,
    /// Per input list: its text, or why it could not be read.
    lists: HashMap<PathBuf, std::result::Result<String, (std::io::ErrorKind, String)>>,
    /// Files found in directories, named like profiles, that were skipped because they are
    /// not regular files, with what they are; each once.
    skipped: Vec<(PathBuf, String)>,
}

/// What a directory entry of type `ft` at `path` is unless it is a regular file (following
/// links). Only the file's type is looked at: nothing is opened.
fn not_regular(path: &Path, ft: std::fs::FileType) -> Option<String> {
    if ft.is_file() {
        return None;
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => None,
        Ok(m) if ft.is_symlink() => Some(format!(
            "a symbolic link to {}",
            crate::frontends::file_type_name(&m)
        )),
        Ok(m) => Some(crate::frontends::file_type_name(&m)),
        Err(e) if ft.is_symlink() => Some(format!("a symbolic link that cannot be followed ({e})")),
        Err(e) => Some(format!("a file that cannot be examined ({e})")),
    }
}

fn walk(dir: &Path, out: &mut Vec<(PathBuf, Option<String>)>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let ft = entry.file_type()?;
        if ft.is_dir() {
            walk(&path, out)?;
        } else {
            // Links to directories are not followed (a link cycle would never end).
            let what = not_regular(&path, ft);
            out.push((path, what));
        }
    }
    Ok(())
}

/// An error about an input path (exit code 1), as `PATH: message`.
fn path_error(p: &Path, e: std::io::Error) -> Error {
    Error::new(ErrorKind::Io(e)).with_path(p)
}

impl Collector {
    /// A collector with nothing walked yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn files_under(&mut self, dir: &Path) -> Result<&[(PathBuf, Option<String>)]> {
        if !self.walked.contains_key(dir) {
            let mut found = Vec::new();
            walk(dir, &mut found).map_err(|e| path_error(dir, e))?;
            found.sort();
            self.walked.insert(dir.to_path_buf(), found);
        }
        Ok(self.walked.get(dir).map_or(&[], Vec::as_slice))
    }

    fn list_text(&mut self, list: &Path, regular_only: bool) -> Result<Option<&str>> {
        if regular_only && !std::fs::metadata(list).is_ok_and(|m| m.is_file()) {
            return Ok(None);
        }
        let text = self.lists.entry(list.to_path_buf()).or_insert_with(|| {
            std::fs::read_to_string(list).map_err(|e| (e.kind(), e.to_string()))
        });
        // An input list that cannot be read is a bad input (exit code 1), like an input
        // file that cannot be read.
        match text {
            Ok(t) => Ok(Some(t.as_str())),
            Err((kind, m)) => Err(Error::new(ErrorKind::Io(std::io::Error::new(
                *kind,
                format!("cannot read the input list: {m}"),
            )))
            .with_path(list)),
        }
    }

    /// The inputs of `sources` under selection `select`, in order; a directory contributes
    /// its selected files sorted by path, never `output` itself (a merge never reads the
    /// file it is about to replace). With `require_found`, a directory with nothing
    /// selected is an error. Lists that are not regular files are skipped when
    /// `regular_lists_only` (a pipe read for one selection would be empty for the next).
    pub fn collect(
        &mut self,
        sources: &Sources,
        select: Select,
        output: Option<&Path>,
        require_found: bool,
        regular_lists_only: bool,
    ) -> Result<Vec<InputSpec>> {
        let out_canon = output.and_then(|o| std::fs::canonicalize(o).ok());
        let mut out = Vec::new();
        let mut add = |this: &mut Self, p: &Path, weight: Weight| -> Result<()> {
            let meta = std::fs::metadata(p).map_err(|e| path_error(p, e))?;
            if !meta.is_dir() {
                out.push(InputSpec::new(p, weight));
                return Ok(());
            }
            let mut any = false;
            let mut skipped = Vec::new();
            for (f, what) in this.files_under(p)? {
                if !select.takes_name(f) {
                    continue;
                }
                if let Some(what) = what {
                    // Never opened: reading a FIFO would wait for a writer for ever.
                    if select.reports_skipped() {
                        skipped.push((f.clone(), what.clone()));
                    }
                    continue;
                }
                any = true;
                if out_canon.is_some() && std::fs::canonicalize(f).ok() == out_canon {
                    continue;
                }
                out.push(InputSpec {
                    path: f.clone(),
                    weight,
                    found_in_directory: true,
                });
            }
            if !any && require_found {
                let why = match skipped.first() {
                    Some((f, what)) => format!(
                        "the directory holds no .profraw or .profdata files that are regular \
                         files ({} is {what})",
                        f.display()
                    ),
                    None => "the directory holds no .profraw or .profdata files".to_string(),
                };
                return Err(Error::new(ErrorKind::Io(std::io::Error::other(why))).with_path(p));
            }
            for s in skipped {
                if !this.skipped.contains(&s) {
                    this.skipped.push(s);
                }
            }
            Ok(())
        };
        for p in &sources.inputs {
            add(self, p, Weight::ONE)?;
        }
        for (w, p) in &sources.weighted {
            add(self, p, *w)?;
        }
        for list in &sources.lists {
            let Some(text) = self.list_text(list, regular_lists_only)? else {
                continue;
            };
            let entries: Vec<(Weight, PathBuf)> = text
                .lines()
                .filter_map(list_line)
                .map(|(w, f)| (w, PathBuf::from(f)))
                .collect();
            let lines: Vec<usize> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| list_line(l).is_some())
                .map(|(n, _)| n + 1)
                .collect();
            for ((w, f), n) in entries.iter().zip(lines) {
                add(self, f, *w).map_err(|e| {
                    let usage = e.is_request_error();
                    let msg = format!("{}:{}: {}", list.display(), n, e);
                    if usage {
                        request_error(msg)
                    } else {
                        Error::new(ErrorKind::Io(std::io::Error::other(msg)))
                    }
                })?;
            }
        }
        Ok(out)
    }
}

impl Collector {
    /// Warnings for the files named like profiles that directory walks found and skipped
    /// because they are not regular files, in the order they were found; each is reported
    /// once, however many selections met it.
    pub fn take_skipped(&mut self) -> Vec<crate::error::Warning> {
        std::mem::take(&mut self.skipped)
            .into_iter()
            .map(|(path, what)| {
                crate::error::Warning::new(format!(
                    "skipped: {what}, not a regular file (only regular files are read from a \
                     directory; name it as an input to read it)"
                ))
                .with_path(&path)
            })
            .collect()
    }
}

/// Leaves out the inputs named by the user that are not regular files (FIFOs, sockets,
/// devices, `/dev/stdin` on a pipe), as llvm-profdata leaves them out without a word, and
/// returns a warning for each: the drop-in's rule (pgo-merge itself reads them as pipes).
pub(crate) fn drop_non_regular(inputs: &mut Vec<InputSpec>) -> Vec<crate::error::Warning> {
    let mut warnings = Vec::new();
    inputs.retain(|i| {
        let meta = match std::fs::metadata(&i.path) {
            Ok(m) if !m.is_file() && !m.is_dir() => m,
            _ => return true,
        };
        warnings.push(
            crate::error::Warning::new(format!(
                "skipped: {}, not a regular file (llvm-profdata leaves such inputs out; \
                 pgo-merge reads them)",
                crate::frontends::file_type_name(&meta)
            ))
            .with_path(&i.path),
        );
        false
    });
    warnings
}

/// One line of an input list (`-f FILE`): `None` for a blank line or a `#` comment, else
/// the weight (1 unless the line is `W,FILE` with a valid weight) and the file.
pub fn list_line(line: &str) -> Option<(Weight, &str)> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    Some(match line.split_once(',') {
        Some((w, f)) => match w.trim().parse::<Weight>() {
            Ok(weight) => (weight, f.trim()),
            Err(_) => (Weight::ONE, line),
        },
        None => (Weight::ONE, line),
    })
}

/// Parses `W,FILE` (`--weighted-input`).
pub fn parse_weighted(s: &str) -> Result<(Weight, PathBuf)> {
    let (w, f) = s
        .split_once(',')
        .ok_or_else(|| request_error(format!("--weighted-input {s:?}: expected W,FILE")))?;
    let weight = w
        .trim()
        .parse::<Weight>()
        .map_err(|e| request_error(format!("--weighted-input {s:?}: {e}")))?;
    if f.is_empty() {
        return Err(request_error(format!(
            "--weighted-input {s:?}: the file name is empty"
        )));
    }
    Ok((weight, PathBuf::from(f)))
}
