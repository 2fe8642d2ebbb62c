//! Errors: one typed [`ErrorKind`] plus where it happened.
//!
//! Every error that comes from reading an input carries the absolute byte offset (from the
//! start of the file) at which the reader found the problem, and — once the caller knows it —
//! the path of the file. The message printed for a user is therefore always of the form
//! `FILE: at offset 0x1a4: <what was wrong and what was expected>`.

use std::fmt;
use std::path::{Path, PathBuf};

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong. Variants are stable enough to match on; their `Display` is the message a
/// user sees (without location, which [`Error`] adds).
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended before a structure it announces.
    Truncated {
        /// The structure being read.
        what: &'static str,
        /// Bytes the structure needs.
        needed: u64,
        /// Bytes that were left in the input.
        available: u64,
    },
    /// The input is empty (zero bytes).
    Empty,
    /// The content is not any format this crate reads.
    UnknownFormat {
        /// Hex dump of up to the first 8 bytes.
        head: String,
    },
    /// A magic number is not the one expected at this position.
    BadMagic {
        /// The 8 bytes read, as a little-endian u64.
        found: u64,
        /// What was expected there.
        expected: &'static str,
    },
    /// A format version this build does not read.
    UnsupportedVersion {
        /// Format name, e.g. "raw profile".
        format: &'static str,
        /// The version found in the file.
        version: u64,
        /// Which versions are supported, as a sentence fragment.
        supported: &'static str,
    },
    /// A count or size read from the input is above a named limit (see
    /// [`crate::bytes::limits`]); refusing it keeps allocations bounded.
    LimitExceeded {
        /// The field.
        what: &'static str,
        /// The value read.
        value: u64,
        /// The limit.
        limit: u64,
    },
    /// A field has a value that is inconsistent with the format.
    Malformed {
        /// The field or structure.
        what: &'static str,
        /// What was found and what was expected.
        detail: String,
    },
    /// zlib data that does not inflate to the announced size.
    Zlib(String),
    /// gzip data that does not inflate (a gzip-compressed iprof profile).
    Gzip(String),
    /// An operating-system error.
    Io(std::io::Error),
    /// Two inputs disagree about a function in a way that cannot be merged.
    MergeMismatch {
        /// Function name (or hash if unknown).
        function: String,
        /// What disagrees, e.g. "counter count differs".
        what: &'static str,
        /// Value seen first.
        first_value: u64,
        /// Input where it was seen first.
        first: String,
        /// Value that conflicts.
        second_value: u64,
        /// Input that conflicts.
        second: String,
    },
    /// Inputs of incompatible kinds (e.g. IR-level and front-end profiles).
    KindConflict(String),
    /// A JSON input (GraalVM `.iprof`) that is not JSON, has the wrong structure, or breaks a
    /// rule of its format. `json_path` locates the value (`conditionalProfiles[12].records`);
    /// syntax and type errors also carry the 1-based (line, column).
    Json {
        /// Where in the document, e.g. `methods[3].signature[1]`.
        json_path: String,
        /// 1-based line and column, when known.
        position: Option<(u64, u64)>,
        /// What was wrong and what was expected.
        detail: String,
    },
    /// The input changed while it was read (truncated, rewritten or grown by another
    /// process): what was read is not a consistent copy of any version of the file, so it is
    /// not used. The text says what changed.
    InputChanged(String),
    /// An input that is not a regular file (a pipe, a FIFO, a device) went on past the
    /// limit of what is read from such inputs.
    StreamTooLong {
        /// The limit in bytes.
        limit: u64,
        /// The environment variable that sets it.
        env: &'static str,
    },
    /// A file found by walking a directory that is not a regular file (a FIFO, a socket, a
    /// device put there since the walk): it is not opened, since reading it could wait for
    /// ever. The text says what it is.
    NotRegularFile(String),
    /// Memory that the system refused (`ulimit -v`, a memory cgroup): a size read from an
    /// input, or an input's own size, was more than the process may have.
    OutOfMemory {
        /// What the memory was for.
        what: &'static str,
        /// The bytes asked for.
        bytes: u64,
    },
    /// Compressed data that inflates to more than the limit of decompressed bytes per input
    /// (a "zip bomb" inflates a small file to gigabytes).
    InflateLimit {
        /// The compressed data.
        what: &'static str,
        /// The limit in bytes.
        limit: u64,
        /// The environment variable that sets it.
        env: &'static str,
    },
    /// A lightweight raw profile (`-profile-correlate=binary`: counters without data records
    /// or names) that cannot be completed from the binaries named: none carries its build ID,
    /// or the binary cannot have written it. The text names the IDs on both sides.
    Uncorrelated(String),
    /// An option or argument combination that cannot work, whatever the inputs hold (a bad
    /// option value, options that cannot go together, an option a kind of input does not
    /// take): the binary exits with its usage code, as for [`ErrorKind::Request`].
    Usage(String),
    /// The output cannot be written as asked from what the inputs hold (a profile the chosen
    /// format or layout cannot carry, a size limit no output meets): the work failed, not the
    /// request.
    CannotWrite(String),
    /// A broken promise inside this crate (a caller of a library function broke its
    /// documented precondition, or a bug), neither the inputs' fault nor the request's.
    Internal(String),
    /// A request to the driver that cannot work as asked (options that do not fit the
    /// inputs, no inputs, no output): the binary exits with its usage code.
    Request(String),
    /// An input format or a facility that this build of the library leaves out: the Cargo
    /// feature that brings it was off (the binary has every feature).
    FeatureDisabled {
        /// What is missing, e.g. "GraalVM .iprof".
        what: &'static str,
        /// The Cargo feature that brings it, e.g. "iprof".
        feature: &'static str,
    },
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Truncated {
                what,
                needed,
                available,
            } => write!(
                f,
                "unexpected end of data reading {what}: {needed} bytes needed, {available} left"
            ),
            Self::Empty => f.write_str("the file is empty"),
            Self::UnknownFormat { head } => write!(
                f,
                "unrecognised file format (first bytes {head}); expected an LLVM raw profile \
                 (.profraw), an indexed profile (.profdata) or a text profile (.proftext)"
            ),
            Self::BadMagic { found, expected } => {
                write!(f, "bad magic {found:#018x}: expected {expected}")
            }
            Self::UnsupportedVersion {
                format,
                version,
                supported,
            } => {
                write!(
                    f,
                    "{format} version {version} is not supported: {supported}"
                )
            }
            Self::LimitExceeded { what, value, limit } => {
                write!(f, "{what} is {value}, above the limit of {limit}")
            }
            Self::Malformed { what, detail } => write!(f, "{what}: {detail}"),
            Self::Zlib(m) => write!(f, "compressed names: {m}"),
            Self::Gzip(m) => write!(f, "gzip-compressed input: {m}"),
            Self::Io(e) => write!(f, "{e}"),
            Self::MergeMismatch {
                function,
                what,
                first_value,
                first,
                second_value,
                second,
            } => {
                write!(
                    f,
                    "function {function}: {what} ({first_value} in {first}, {second_value} in \
                     {second}); make sure that all profiles to be merged come from the same binary"
                )
            }
            Self::Json {
                json_path,
                position,
                detail,
            } => {
                write!(f, "{json_path}: {detail}")?;
                match position {
                    Some((l, c)) => write!(f, " (line {l}, column {c})"),
                    None => Ok(()),
                }
            }
            Self::InputChanged(m) => write!(
                f,
                "the file changed while it was being read ({m}); a process may still be writing \
                 it, and nothing read from it is used"
            ),
            Self::StreamTooLong { limit, env } => write!(
                f,
                "more than {limit} bytes from an input that is not a regular file (a pipe, FIFO \
                 or device); reading stopped there. Set {env}=SIZE (bytes, or with a K, M or G \
                 suffix) to read more"
            ),
            Self::NotRegularFile(m) => write!(
                f,
                "{m}, not a regular file: only regular files are read from a directory (name it \
                 as an input to read it)"
            ),
            Self::OutOfMemory { what, bytes } => write!(
                f,
                "cannot allocate {bytes} bytes for {what}: the system refused the memory (a \
                 limit on this process's memory such as ulimit -v or a memory cgroup)"
            ),
            Self::InflateLimit { what, limit, env } => write!(
                f,
                "{what} inflates to more than {limit} bytes, the limit of decompressed bytes per \
                 input; set {env}=SIZE (bytes, or with a K, M or G suffix) to allow more"
            ),
            Self::KindConflict(m)
            | Self::Usage(m)
            | Self::CannotWrite(m)
            | Self::Internal(m)
            | Self::Uncorrelated(m)
            | Self::Request(m) => f.write_str(m),
            Self::FeatureDisabled { what, feature } => write!(
                f,
                "this build has no {what} support: rebuild with --features {feature}"
            ),
        }
    }
}

impl std::error::Error for ErrorKind {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for ErrorKind {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e)
    }
}

/// An error with the location it refers to.
///
/// One word (a box): every `Result` of the crate carries an `Error` in its `Err` arm, so a
/// small error keeps the `Ok` path's moves and returns small. Errors are rare; the
/// allocation is paid only when one happens.
#[derive(Debug)]
pub struct Error(Box<Inner>);

/// What an [`Error`] holds, behind its box.
#[derive(Debug)]
struct Inner {
    kind: ErrorKind,
    offset: Option<u64>,
    line: Option<u64>,
    path: Option<PathBuf>,
    hint: Option<&'static str>,
}

impl Error {
    /// An error of `kind` at `offset` and `line` (either may be unknown).
    fn located(kind: ErrorKind, offset: Option<u64>, line: Option<u64>) -> Self {
        Error(Box::new(Inner {
            kind,
            offset,
            line,
            path: None,
            hint: None,
        }))
    }

    /// A new error without location.
    pub fn new(kind: ErrorKind) -> Self {
        Error::located(kind, None, None)
    }

    /// A new error at a 1-based line of a text input.
    pub fn at_line(line: u64, kind: ErrorKind) -> Self {
        Error::located(kind, None, Some(line))
    }

    /// A new error at an absolute byte offset of the input.
    pub fn at(offset: u64, kind: ErrorKind) -> Self {
        Error::located(kind, Some(offset), None)
    }

    /// Shorthand for [`ErrorKind::Malformed`] at an offset.
    pub fn malformed(offset: u64, what: &'static str, detail: impl Into<String>) -> Self {
        Error::at(
            offset,
            ErrorKind::Malformed {
                what,
                detail: detail.into(),
            },
        )
    }

    /// Attaches the input path unless one is already set.
    #[must_use]
    pub fn with_path(mut self, path: &Path) -> Self {
        if self.0.path.is_none() {
            self.0.path = Some(path.to_path_buf());
        }
        self
    }

    /// Adds what the user can do about it, printed after the message (`…; HINT`).
    #[must_use]
    pub fn with_hint(mut self, hint: &'static str) -> Self {
        self.0.hint = Some(hint);
        self
    }

    /// What the user can do about it, if the error says.
    pub fn hint(&self) -> Option<&'static str> {
        self.0.hint
    }

    /// Moves the offset by `base` (used when a sub-slice was parsed on its own).
    #[must_use]
    pub fn rebase(mut self, base: u64) -> Self {
        if let Some(o) = self.0.offset.as_mut() {
            *o = o.saturating_add(base);
        }
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The absolute byte offset in the input, when the error is about input bytes.
    pub fn offset(&self) -> Option<u64> {
        self.0.offset
    }

    /// The 1-based line of a text input, when the error is about a line.
    pub fn line(&self) -> Option<u64> {
        self.0.line
    }

    /// The input file, when known.
    pub fn path(&self) -> Option<&Path> {
        self.0.path.as_deref()
    }

    /// True if the request was at fault, not an input ([`ErrorKind::Request`],
    /// [`ErrorKind::Usage`]): the binary exits with its usage code (2).
    pub fn is_request_error(&self) -> bool {
        matches!(self.0.kind, ErrorKind::Request(_) | ErrorKind::Usage(_))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &*self.0;
        if let Some(p) = &e.path {
            write!(f, "{}: ", p.display())?;
        }
        if let Some(o) = e.offset {
            write!(f, "at offset {o:#x}: ")?;
        }
        if let Some(l) = e.line {
            write!(f, "line {l}: ")?;
        }
        fmt::Display::fmt(&e.kind, f)?;
        if let Some(h) = e.hint {
            write!(f, "; {h}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.kind {
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::new(kind)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Io(e))
    }
}

/// Where in an input a warning points.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Location {
    /// An absolute byte offset of a binary input.
    Offset(u64),
    /// A 1-based line of a text input.
    Line(u64),
    /// A JSON path (`$.types[3].name`) of a JSON input.
    JsonPath(String),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Offset(o) => write!(f, "at offset {o:#x}"),
            Location::Line(l) => write!(f, "line {l}"),
            Location::JsonPath(p) => f.write_str(p),
        }
    }
}

/// A non-fatal problem: printed to the user, collected by the library. Displayed as
/// `PATH: LOCATION: FUNCTION: message`, each part only when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The input it concerns, if any.
    pub path: Option<PathBuf>,
    /// Where in that input, if it is about particular bytes, a line or a JSON value.
    pub location: Option<Location>,
    /// The function it concerns, if any.
    pub function: Option<String>,
    /// The message.
    pub message: String,
}

impl Warning {
    /// A warning about an input as a whole.
    pub fn new(message: impl Into<String>) -> Self {
        Warning {
            path: None,
            location: None,
            function: None,
            message: message.into(),
        }
    }

    /// A warning about the bytes at an absolute offset.
    pub fn at(offset: u64, message: impl Into<String>) -> Self {
        Warning {
            location: Some(Location::Offset(offset)),
            ..Warning::new(message)
        }
    }

    /// A warning about a 1-based line of a text input.
    pub fn at_line(line: u64, message: impl Into<String>) -> Self {
        Warning {
            location: Some(Location::Line(line)),
            ..Warning::new(message)
        }
    }

    /// A warning about the value at a JSON path.
    pub fn at_json(path: impl Into<String>, message: impl Into<String>) -> Self {
        Warning {
            location: Some(Location::JsonPath(path.into())),
            ..Warning::new(message)
        }
    }

    /// A warning made of an error that did not stop the work: its path, location (the
    /// offset, else the line) and message (with its hint) are the error's.
    pub fn from_error(e: &Error) -> Self {
        let message = match e.hint() {
            Some(h) => format!("{}; {h}", e.kind()),
            None => e.kind().to_string(),
        };
        Warning {
            path: e.path().map(Path::to_path_buf),
            location: e
                .offset()
                .map(Location::Offset)
                .or(e.line().map(Location::Line)),
            function: None,
            message,
        }
    }

    /// Names the function the warning concerns.
    #[must_use]
    pub fn in_function(mut self, function: impl Into<String>) -> Self {
        self.function = Some(function.into());
        self
    }

    /// Adds words after the message (`message; more`).
    #[must_use]
    pub fn append(mut self, more: &str) -> Self {
        self.message.push_str(more);
        self
    }

    /// Attaches the input path unless one is already set.
    #[must_use]
    pub fn with_path(mut self, path: &Path) -> Self {
        if self.path.is_none() {
            self.path = Some(path.to_path_buf());
        }
        self
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.path {
            write!(f, "{}: ", p.display())?;
        }
        if let Some(l) = &self.location {
            write!(f, "{l}: ")?;
        }
        if let Some(func) = &self.function {
            write!(f, "{func}: ")?;
        }
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `Result` of the crate carries an `Error`: it stays one word.
    #[test]
    fn error_is_one_word() {
        assert!(std::mem::size_of::<Error>() <= 16);
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
        assert!(std::mem::size_of::<Result<()>>() <= 16);
        assert!(std::mem::size_of::<Result<u64>>() <= 16);
    }
}
