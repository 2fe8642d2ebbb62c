//! The input collector: turns the files, directories, weighted inputs and input lists of a
//! request into the ordered list of inputs, walking each directory and reading each list
//! once however many selections are made from them.
//!
//! Paths are bytes: a file name that is not UTF-8 (on the command line, after `W,` or on a
//! line of an input list) names the file it names; only messages show it lossily.
//!
//! Directories are walked as llvm-profdata walks them: symbolic links are followed, to files
//! and to directories. A link to a directory that holds it (a loop), a link that leads
//! nowhere and anything that is not a regular file (a FIFO, a socket, a device) is skipped
//! with a warning when the selection would have taken it by its name; the walk never
//! recurses (its depth is a stack on the heap) and never enters a directory twice along one
//! path.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::{InputSpec, Message, request_error};
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::passes::Weight;

/// The identity of a file: its device and inode, the same whatever name reaches it (hard
/// links, symbolic links, `./` and `../` spellings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The identity of the file `m` describes (`None` where the system has no inodes).
    pub fn of(m: &std::fs::Metadata) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(FileId {
                dev: m.dev(),
                ino: m.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = m;
            None
        }
    }

    /// The identity of the file `p` names, following links; `None` if it does not exist.
    pub fn of_path(p: &Path) -> Option<FileId> {
        std::fs::metadata(p).ok().as_ref().and_then(FileId::of)
    }
}

/// True when `a` and `b` name the same existing file (same device and inode: also through
/// links, hard links and other spellings), or are spelt the same.
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    match (FileId::of_path(a), FileId::of_path(b)) {
        (Some(x), Some(y)) => x == y,
        _ => match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        },
    }
}

/// A path made of the bytes `b` (a line of an input list): the bytes themselves on Unix,
/// where a file name is any bytes; elsewhere the text they hold.
pub(crate) fn path_from_bytes(b: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(OsStr::from_bytes(b))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(b).into_owned())
    }
}

/// Splits `s` at the first (`last`: the last) `sep`, an ASCII byte: what comes before and
/// after it, both as given.
pub fn split_os(s: &OsStr, sep: u8, last: bool) -> Option<(&OsStr, &OsStr)> {
    debug_assert!(sep.is_ascii());
    let bytes = s.as_encoded_bytes();
    let i = if last {
        bytes.iter().rposition(|&b| b == sep)?
    } else {
        bytes.iter().position(|&b| b == sep)?
    };
    // SAFETY: both halves are split right before and after an ASCII byte, which
    // `as_encoded_bytes` documents as a valid boundary of the encoding.
    unsafe {
        Some((
            OsStr::from_encoded_bytes_unchecked(&bytes[..i]),
            OsStr::from_encoded_bytes_unchecked(&bytes[i + 1..]),
        ))
    }
}

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
    /// `*.fdata` (BOLT profiles).
    #[cfg(feature = "bolt")]
    Fdata,
}

/// A family of profiles a directory can hold: what a run keeps of a directory holding both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// LLVM instrumentation profiles (`*.profraw`, `*.profdata`; `*.proftext` beside GraalVM
    /// profiles).
    Llvm,
    /// GraalVM Native Image profiles (`*.iprof`, `*.iprof.gz`).
    Iprof,
}

impl Family {
    /// True if a file of this name belongs to the family, as a directory walk tells them
    /// apart (by name: the contents are read later).
    fn names(self, path: &Path) -> bool {
        match self {
            Family::Llvm => Select::Llvm.takes_name(path),
            Family::Iprof => has_iprof_extension(path),
        }
    }

    /// True if a file of this name belongs to the other family.
    fn other_names(self, path: &Path) -> bool {
        match self {
            Family::Llvm => has_iprof_extension(path),
            Family::Iprof => has_llvm_extension(path),
        }
    }

    /// How the family's profiles are called in messages.
    fn what(self) -> &'static str {
        match self {
            Family::Llvm => "LLVM profiles (.profraw, .profdata)",
            Family::Iprof => "GraalVM profiles (.iprof)",
        }
    }
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

/// True for a name a directory walk takes as an LLVM profile: `*.profraw`, `*.profdata`, and
/// the same gzip-compressed (`*.profraw.gz`, `*.profdata.gz`, as Bazel's coverage collection
/// keeps raw profiles). Compressed files are sniffed like any other input.
fn has_llvm_walk_name(p: &Path) -> bool {
    let name = p.as_os_str().as_encoded_bytes();
    [".profraw", ".profdata", ".profraw.gz", ".profdata.gz"]
        .iter()
        .any(|ext| name.ends_with(ext.as_bytes()))
}

/// What a directory walk found at a path under the directory.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Found {
    /// A regular file, or a link to one.
    File,
    /// A FIFO, socket or device, or a link to one: what it is (`"a FIFO"`).
    Special(String),
    /// A symbolic link that leads to nothing, or an entry gone before it could be looked
    /// at: why.
    Unusable(String),
    /// A link to a directory that holds the link: following it would never end.
    Loop,
}

impl Found {
    /// Why a walk skips what it found here (`None` for a regular file).
    fn skipped_because(&self) -> Option<String> {
        match self {
            Found::File => None,
            Found::Special(what) => Some(format!("{what}, not a regular file")),
            Found::Unusable(why) => Some(why.clone()),
            Found::Loop => {
                Some("a link to a directory that holds it (a loop); not followed again".into())
            }
        }
    }
}

impl Select {
    /// True if the selection takes a file of this name, if it is a regular file.
    fn takes_name(self, path: &Path) -> bool {
        match self {
            Select::Llvm => has_llvm_walk_name(path),
            // As llvm-profdata: every regular file, links to files included.
            Select::EveryFile => true,
            Select::Iprof => has_iprof_extension(path),
            Select::IprofAndLlvm => {
                has_iprof_extension(path) || has_llvm_extension(path) || has_llvm_walk_name(path)
            }
            #[cfg(feature = "bolt")]
            Select::Fdata => path.extension().is_some_and(|e| e == "fdata"),
        }
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

/// How [`Collector::collect`] makes a selection.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Collect<'a> {
    /// Which files of a directory are taken.
    pub select: Select,
    /// The run's output: never taken from a directory (a merge never reads the file it is
    /// about to replace), by identity, whatever name reaches it.
    pub output: Option<&'a Path>,
    /// A directory with nothing selected is an error.
    pub require_found: bool,
    /// Lists that are not regular files are skipped (a pipe read for one selection would be
    /// empty for the next).
    pub regular_lists_only: bool,
    /// A named input (not one found in a directory) that does not exist is taken as a file
    /// all the same, for the merge to skip or refuse as its failure mode says, instead of
    /// failing the collection.
    pub missing_to_merge: bool,
    /// A directory holding profiles of both families adds only the files of this one, and a
    /// warning saying how many of the other it left out: a stray GraalVM profile in a
    /// directory of LLVM profiles is not converted into a C build's profile unasked (a file
    /// named on its own is). `None`: no such rule (llvm-profdata's, sample, BOLT merges).
    pub family: Option<Family>,
}

/// A selection: the inputs, in order, and what the walks skipped.
#[derive(Debug, Default)]
pub(crate) struct Collected {
    /// The inputs.
    pub inputs: Vec<InputSpec>,
    /// A warning per file a directory walk skipped (named like an input, but not a regular
    /// file, a link to nothing, or a loop).
    pub warnings: Vec<Message>,
}

/// Walks directories and reads input lists once, then makes selections from them.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    /// Per directory: what is under it, recursively (not the directories), sorted by path.
    walked: HashMap<PathBuf, Vec<(PathBuf, Found)>>,
    /// Per input list: its bytes, or why it could not be read.
    lists: HashMap<PathBuf, std::result::Result<Vec<u8>, (std::io::ErrorKind, String)>>,
}

/// The entries of the directory `dir`, as paths under it.
fn list_dir(dir: &Path) -> Result<Vec<(PathBuf, std::fs::FileType)>> {
    let io = |e| path_error(dir, e);
    let mut v = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let ft = entry.file_type().map_err(io)?;
        v.push((entry.path(), ft));
    }
    Ok(v)
}

/// [`Found::Special`], named by its type when it could be looked at.
fn special(meta: Option<std::fs::Metadata>) -> Found {
    Found::Special(meta.map_or_else(
        || "a FIFO, socket or device".into(),
        |m| crate::frontends::open::file_type_name(&m),
    ))
}

/// What `path`, an entry of type `ft`, is: a directory to enter (with its identity), or
/// what the walk found.
fn classify(path: &Path, ft: std::fs::FileType) -> std::result::Result<Option<FileId>, Found> {
    if ft.is_dir() {
        return Ok(std::fs::symlink_metadata(path)
            .ok()
            .as_ref()
            .and_then(FileId::of));
    }
    if ft.is_file() {
        return Err(Found::File);
    }
    if !ft.is_symlink() {
        return Err(special(std::fs::symlink_metadata(path).ok()));
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Ok(FileId::of(&m)),
        Ok(m) if m.is_file() => Err(Found::File),
        Ok(m) => Err(Found::Special(format!(
            "a symbolic link to {}",
            crate::frontends::open::file_type_name(&m)
        ))),
        Err(e) => {
            let to =
                std::fs::read_link(path).map_or_else(|_| "?".into(), |t| t.display().to_string());
            Err(Found::Unusable(
                if e.kind() == std::io::ErrorKind::NotFound {
                    format!("a dangling symbolic link (to {to}, which does not exist)")
                } else {
                    format!("a symbolic link (to {to}) that cannot be followed: {e}")
                },
            ))
        }
    }
}

/// Everything under `root` (a directory of identity `root_id`) that is not a directory,
/// following links; a link to a directory on the way down to it is a [`Found::Loop`]. Depth
/// first, with the directories being walked on a heap stack (no recursion).
fn walk(root: &Path, root_id: Option<FileId>) -> Result<Vec<(PathBuf, Found)>> {
    struct Frame {
        id: Option<FileId>,
        entries: std::vec::IntoIter<(PathBuf, std::fs::FileType)>,
    }
    let mut out = Vec::new();
    let mut stack = vec![Frame {
        id: root_id,
        entries: list_dir(root)?.into_iter(),
    }];
    while let Some(top) = stack.last_mut() {
        let Some((path, ft)) = top.entries.next() else {
            stack.pop();
            continue;
        };
        match classify(&path, ft) {
            Ok(id) if id.is_some() && stack.iter().any(|f| f.id == id) => {
                out.push((path, Found::Loop));
            }
            Ok(id) => {
                let entries = list_dir(&path)?.into_iter();
                stack.push(Frame { id, entries });
            }
            Err(found) => out.push((path, found)),
        }
    }
    Ok(out)
}

/// True if the regular files `files` of a directory hold profiles of `family` and of the other.
fn mixed_families(files: &[(PathBuf, Found)], family: Family) -> bool {
    let regular = || files.iter().filter(|(_, f)| *f == Found::File);
    regular().any(|(p, _)| family.names(p)) && regular().any(|(p, _)| family.other_names(p))
}

/// The warning for `n` files of the other family left out of the directory `dir`.
fn left_out_warning(dir: &Path, family: Family, n: usize) -> Warning {
    let other = match family {
        Family::Llvm => Family::Iprof,
        Family::Iprof => Family::Llvm,
    };
    let files = if n == 1 { "file" } else { "files" };
    Warning::new(format!(
        "left out {n} {files} of {}: the directory holds {}, and a directory adds the \
         profiles of the run's family only (name such a file, or list it with -f, to convert it)",
        other.what(),
        family.what()
    ))
    .with_path(dir)
}

/// An error about an input path (exit code 1), as `PATH: message`.
fn path_error(p: &Path, e: std::io::Error) -> Error {
    Error::new(ErrorKind::Io(e)).with_path(p)
}

/// The entries of an input list: the line number and the entry of each line that names an
/// input.
fn list_entries(bytes: &[u8]) -> Vec<(usize, Weight, PathBuf)> {
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter_map(|(n, line)| list_line(line).map(|(w, p)| (n + 1, w, p)))
        .collect()
}

impl Collector {
    /// A collector with nothing walked yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn files_under(&mut self, dir: &Path, id: Option<FileId>) -> Result<&[(PathBuf, Found)]> {
        if !self.walked.contains_key(dir) {
            let mut found = walk(dir, id)?;
            found.sort_by(|a, b| a.0.cmp(&b.0));
            self.walked.insert(dir.to_path_buf(), found);
        }
        Ok(self.walked.get(dir).map_or(&[], Vec::as_slice))
    }

    fn list_bytes(&mut self, list: &Path, regular_only: bool) -> Result<Option<&[u8]>> {
        if regular_only && !std::fs::metadata(list).is_ok_and(|m| m.is_file()) {
            return Ok(None);
        }
        let bytes = self
            .lists
            .entry(list.to_path_buf())
            .or_insert_with(|| std::fs::read(list).map_err(|e| (e.kind(), e.to_string())));
        // An input list that cannot be read is a bad input (exit code 1), like an input
        // file that cannot be read.
        match bytes {
            Ok(t) => Ok(Some(t.as_slice())),
            Err((kind, m)) => Err(Error::new(ErrorKind::Io(std::io::Error::new(
                *kind,
                format!("cannot read the input list: {m}"),
            )))
            .with_path(list)),
        }
    }

    /// Adds the input `p` of weight `weight` to `out`: a file as it is, a directory as its
    /// selected files in the order of their paths.
    fn add(
        &mut self,
        p: &Path,
        weight: Weight,
        how: &Collect<'_>,
        out: &mut Collected,
    ) -> Result<()> {
        let meta = match std::fs::metadata(p) {
            Ok(m) => m,
            Err(_) if how.missing_to_merge => {
                out.inputs.push(InputSpec::new(p, weight));
                return Ok(());
            }
            Err(e) => return Err(path_error(p, e)),
        };
        if !meta.is_dir() {
            out.inputs.push(InputSpec::new(p, weight));
            return Ok(());
        }
        let output = how.output.and_then(FileId::of_path);
        let mut any = false;
        let mut first_skipped = None;
        let files = self.files_under(p, FileId::of(&meta))?;
        let leave_out = how.family.filter(|f| mixed_families(files, *f));
        let mut left_out = 0usize;
        for (f, found) in files {
            if leave_out.is_some_and(|fam| fam.other_names(f)) {
                left_out += usize::from(*found == Found::File);
                continue;
            }
            if !how.select.takes_name(f) && *found != Found::Loop {
                continue;
            }
            if let Some(why) = found.skipped_because() {
                let w = Warning::new(format!("skipped: {why}")).with_path(f);
                first_skipped.get_or_insert_with(|| w.to_string());
                out.warnings.push(Message::Warning(w));
                continue;
            }
            any = true;
            if output.is_some() && FileId::of_path(f) == output {
                continue;
            }
            out.inputs.push(InputSpec {
                path: f.clone(),
                weight,
                found_in_directory: true,
            });
        }
        if let Some(fam) = leave_out
            && left_out > 0
        {
            out.warnings
                .push(Message::Warning(left_out_warning(p, fam, left_out)));
        }
        if !any && how.require_found {
            let why = match first_skipped {
                Some(w) => {
                    format!("the directory holds no usable .profraw or .profdata files ({w})")
                }
                None => "the directory holds no .profraw or .profdata files".into(),
            };
            return Err(Error::new(ErrorKind::Io(std::io::Error::other(why))).with_path(p));
        }
        Ok(())
    }

    /// The inputs of `sources` as `how` selects them, in order; a directory contributes its
    /// selected files sorted by path.
    pub fn collect(&mut self, sources: &Sources, how: &Collect<'_>) -> Result<Collected> {
        let mut out = Collected::default();
        for p in &sources.inputs {
            self.add(p, Weight::ONE, how, &mut out)?;
        }
        for (w, p) in &sources.weighted {
            self.add(p, *w, how, &mut out)?;
        }
        for list in &sources.lists {
            let Some(bytes) = self.list_bytes(list, how.regular_lists_only)? else {
                continue;
            };
            for (n, w, f) in list_entries(bytes) {
                self.add(&f, w, how, &mut out).map_err(|e| {
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

/// One line of an input list (`-f FILE`), its bytes: `None` for a blank line or a `#`
/// comment, else the weight (1 unless the line is `W,FILE` with a valid weight) and the
/// file. Spaces, tabs, `\r`, `\v` and `\f` around the line are not part of it (as
/// llvm-profdata trims them); the file name is the bytes between, whatever they are.
pub fn list_line(line: &[u8]) -> Option<(Weight, PathBuf)> {
    let line = trim_list_blanks(line);
    if line.is_empty() || line.starts_with(b"#") {
        return None;
    }
    let whole = || (Weight::ONE, path_from_bytes(line));
    let Some(comma) = line.iter().position(|&b| b == b',') else {
        return Some(whole());
    };
    let weight = std::str::from_utf8(&line[..comma])
        .ok()
        .and_then(|w| w.trim().parse::<Weight>().ok());
    Some(match weight {
        Some(w) => (w, path_from_bytes(trim_list_blanks(&line[comma + 1..]))),
        None => whole(),
    })
}

/// `b` without the blanks llvm-profdata trims from the lines of an input list.
fn trim_list_blanks(b: &[u8]) -> &[u8] {
    let blank = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | 0x0b | 0x0c);
    let start = b.iter().position(|c| !blank(c)).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !blank(c)).map_or(start, |i| i + 1);
    &b[start..end]
}

/// Parses `W,FILE` (`--weighted-input`); FILE is taken as given, whatever bytes it holds.
pub fn parse_weighted(s: &OsStr) -> Result<(Weight, PathBuf)> {
    let shown = s.to_string_lossy();
    let (w, f) = split_os(s, b',', false)
        .ok_or_else(|| request_error(format!("--weighted-input {shown:?}: expected W,FILE")))?;
    let weight = w
        .to_str()
        .unwrap_or("?")
        .trim()
        .parse::<Weight>()
        .map_err(|e| request_error(format!("--weighted-input {shown:?}: {e}")))?;
    if f.is_empty() {
        return Err(request_error(format!(
            "--weighted-input {shown:?}: the file name is empty"
        )));
    }
    Ok((weight, PathBuf::from(f)))
}

/// `W,FILE` as llvm-profdata reads `--weighted-input` (the llvm-profdata drop-in's rule): W
/// up to the first comma, all of it decimal digits (no blank, sign or fraction), a whole
/// number from 1 to 2^64 − 1; FILE the rest as given, blanks and all (empty without a comma).
/// None where llvm-profdata says "input weight must be a positive integer". Counts scaled by
/// such weights saturate, with a warning, as llvm-profdata's do.
pub fn parse_llvm_weighted(s: &OsStr) -> Option<(Weight, PathBuf)> {
    let (w, f) = split_os(s, b',', false).unwrap_or((s, OsStr::new("")));
    let w = w.to_str()?;
    if w.is_empty() || !w.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let weight = Weight::integer(w.parse::<u64>().ok()?)?;
    Some((weight, PathBuf::from(f)))
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
                crate::frontends::open::file_type_name(&meta)
            ))
            .with_path(&i.path),
        );
        false
    });
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llvm_weights() {
        let w = |s: &str| parse_llvm_weighted(OsStr::new(s)).map(|(w, f)| (w.to_string(), f));
        assert_eq!(w("3,a"), Some(("3".into(), PathBuf::from("a"))));
        assert_eq!(w("3, a"), Some(("3".into(), PathBuf::from(" a"))));
        assert_eq!(w("3"), Some(("3".into(), PathBuf::new())));
        assert_eq!(
            w("18446744073709551615,a").map(|x| x.0),
            Some(u64::MAX.to_string())
        );
        for bad in [
            " 3,a",
            "3 ,a",
            "0,a",
            "-1,a",
            "+1,a",
            "1.5,a",
            ",a",
            "18446744073709551616,a",
        ] {
            assert_eq!(w(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn list_lines_are_bytes() {
        assert_eq!(list_line(b"  # x"), None);
        assert_eq!(list_line(b" \t\r"), None);
        assert_eq!(
            list_line(b" a.profraw \r"),
            Some((Weight::ONE, PathBuf::from("a.profraw")))
        );
        let (w, p) = list_line(b"3, b\xff.profraw").unwrap();
        assert_eq!(w, "3".parse::<Weight>().unwrap());
        assert_eq!(p, path_from_bytes(b"b\xff.profraw"));
        // Not a weight: the whole line is the file name.
        assert_eq!(list_line(b"x,y").unwrap().1, PathBuf::from("x,y"));
    }

    #[test]
    fn splits_keep_bytes() {
        let s = path_from_bytes(b"2,a\xff@b,c");
        let (a, b) = split_os(s.as_os_str(), b',', false).unwrap();
        assert_eq!(
            (a, b),
            (OsStr::new("2"), path_from_bytes(b"a\xff@b,c").as_os_str())
        );
        let (a, b) = split_os(s.as_os_str(), b',', true).unwrap();
        assert_eq!(a, path_from_bytes(b"2,a\xff@b").as_os_str());
        assert_eq!(b, OsStr::new("c"));
        assert!(split_os(OsStr::new("abc"), b'@', true).is_none());
    }
}
