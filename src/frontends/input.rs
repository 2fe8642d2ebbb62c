//! [`InputFile`]: an input's bytes, memory-mapped when it is a regular file, read with a
//! limit when it is not, and checked after reading for changes made by other processes.
//!
//! **Files that change under us.** A profile may be rewritten while a merge reads it: an
//! instrumented process that ends late truncates its `.profraw` and writes it again, `%m`
//! pools are updated in place. Two things keep that from crashing the process or leaking
//! into the output:
//!
//! * the mapping is registered with [`super::fault_guard`], so touching a page that the
//!   truncation removed reads zeros instead of raising `SIGBUS`, and the input is flagged;
//! * the size and modification time taken when the file was opened are compared again by
//!   [`InputFile::check_unchanged`], which also reports the flag.
//!
//! Callers check after they have used the bytes and before their result goes anywhere; a
//! changed input is an error naming the file ([`ErrorKind::InputChanged`]). A file
//! *replaced* by another one (renamed over its name) is not a change: the file opened stays
//! whole and is read as it was.
//!
//! **Inputs that are not regular files** (pipes, FIFOs, devices, `/dev/stdin`) are read into
//! memory, at most [`stream_limit`] bytes (256 MiB unless [`STREAM_LIMIT_ENV`] says
//! otherwise); one whose first bytes hold a NUL byte and match no binary format is rejected at
//! once (`/dev/zero`), since no text format has NUL bytes.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::fault_guard::{self, Registration};
use super::{FormatKind, describe_head, starts_a_magic};
use crate::error::{Error, ErrorKind, Result};

/// Bytes read at most from an input that is not a regular file, unless
/// [`STREAM_LIMIT_ENV`] sets another limit: 256 MiB.
pub const DEFAULT_STREAM_LIMIT: u64 = 256 << 20;

/// The environment variable that sets the limit of bytes read from an input that is not a
/// regular file: bytes, or a number with a `K`, `M` or `G` suffix (powers of 1024).
pub const STREAM_LIMIT_ENV: &str = "PGO_MERGE_STREAM_LIMIT";

/// An input file's bytes: memory-mapped when possible, read into memory otherwise (pipes,
/// devices, empty files, file systems that cannot map, more mappings at once than the fault
/// guard tracks).
#[derive(Debug)]
pub struct InputFile {
    path: PathBuf,
    data: InputData,
    origin: Origin,
}

#[derive(Debug)]
enum InputData {
    /// Fields drop in order: the range is unregistered before it is unmapped.
    Mapped {
        guard: Registration,
        map: memmap2::Mmap,
    },
    Owned(Vec<u8>),
}

/// Where the bytes came from, for the check after reading.
#[derive(Debug)]
enum Origin {
    /// A regular file, still open, and what it was like when opened.
    Regular { file: File, opened: Stamp },
    /// A pipe, FIFO or device: read once, nothing to compare.
    Stream,
    /// Bytes given in memory.
    Memory,
}

/// What changes when a file is written: its size and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }
}

impl InputFile {
    /// Opens `path`, an input the user named: maps a regular file, reads anything else (at
    /// most [`stream_limit`] bytes). A FIFO is read as a pipe is: opening it waits for a
    /// writer, reading it ends when the writer closes it.
    pub fn open(path: &Path) -> Result<InputFile> {
        let io = |e: std::io::Error| Error::new(ErrorKind::Io(e)).with_path(path);
        let file = File::open(path).map_err(io)?;
        Self::from_file(file, path)
    }

    /// Opens `path`, an input found by walking a directory, only if it is a regular file:
    /// without waiting, whatever it is (it is opened with `O_NONBLOCK`, so a FIFO put in its
    /// place since the walk fails at once instead of waiting for a writer). Anything else
    /// is [`ErrorKind::NotRegularFile`].
    pub fn open_regular(path: &Path) -> Result<InputFile> {
        let io = |e: std::io::Error| Error::new(ErrorKind::Io(e)).with_path(path);
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
        let file = options.open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(
                Error::new(ErrorKind::NotRegularFile(file_type_name(&meta))).with_path(path)
            );
        }
        Self::from_file(file, path)
    }

    /// The input in `file`, just opened from `path`.
    fn from_file(file: File, path: &Path) -> Result<InputFile> {
        let io = |e: std::io::Error| Error::new(ErrorKind::Io(e)).with_path(path);
        let meta = file.metadata().map_err(io)?;
        if meta.is_dir() {
            // An input that cannot be read, not a usage error: exit 1, as for a missing file.
            let e = std::io::Error::from(std::io::ErrorKind::IsADirectory);
            return Err(Error::new(ErrorKind::Io(e)).with_path(path));
        }
        if !meta.is_file() {
            let data = read_stream(&file, path)?;
            return Ok(InputFile {
                path: path.to_path_buf(),
                data: InputData::Owned(data),
                origin: Origin::Stream,
            });
        }
        let opened = Stamp::of(&meta);
        let data = match map_guarded(&file, meta.len()) {
            Some(d) => d,
            // Files that report no size (some of /proc and /sys) are read like streams.
            None if meta.len() == 0 => InputData::Owned(read_stream(&file, path)?),
            None => InputData::Owned(read_whole(&file, meta.len()).map_err(|e| e.with_path(path))?),
        };
        Ok(InputFile {
            path: path.to_path_buf(),
            data,
            origin: Origin::Regular { file, opened },
        })
    }

    /// Wraps bytes already in memory.
    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> InputFile {
        InputFile {
            path: path.to_path_buf(),
            data: InputData::Owned(bytes),
            origin: Origin::Memory,
        }
    }

    /// This input with `bytes` in place of its own (its inflated bytes), still checked
    /// against the file it came from by [`InputFile::check_unchanged`].
    pub(crate) fn with_bytes(self, bytes: Vec<u8>) -> InputFile {
        InputFile {
            path: self.path,
            data: InputData::Owned(bytes),
            origin: self.origin,
        }
    }

    /// This input as the readers take it: gzip-compressed data that is not a GraalVM
    /// profile (the iprof reader inflates as it parses) inflated whole, at most the limit
    /// of decompressed bytes per input (`PGO_MERGE_INFLATE_LIMIT`); anything else as it is.
    pub fn inflated(self) -> Result<InputFile> {
        super::gzip::inflated(self)
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.data {
            InputData::Mapped { map, .. } => map,
            InputData::Owned(v) => v,
        }
    }

    /// The path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Fails with [`ErrorKind::InputChanged`] (naming the file) if the file was truncated
    /// under the mapping while it was read, or its size or modification time is not what it
    /// was when it was opened. Call it after the bytes have been used, before the result is
    /// kept: then what was used is the whole file as it was when opened, short of a change
    /// too quick for the file system's timestamps to show.
    pub fn check_unchanged(&self) -> Result<()> {
        self.check(false)
    }

    /// As [`InputFile::check_unchanged`], for files that are only ever appended to while
    /// they are written (perf maps and jitdumps of a running process): a file that grew is
    /// fine, since the bytes read are still the beginning of it; one that shrank or was
    /// truncated under the mapping is not.
    pub fn check_not_shrunk(&self) -> Result<()> {
        self.check(true)
    }

    /// An error met while reading this file, with the path: or, if the file changed while
    /// it was read, that (the likelier cause).
    pub fn or_changed(&self, e: Error) -> Error {
        match self.check_unchanged() {
            Err(c) if matches!(c.kind(), ErrorKind::InputChanged(_)) => c,
            _ => e.with_path(&self.path),
        }
    }

    fn check(&self, growth_is_fine: bool) -> Result<()> {
        let changed =
            |what: String| Err(Error::new(ErrorKind::InputChanged(what)).with_path(&self.path));
        let faulted = matches!(&self.data, InputData::Mapped { guard, .. } if guard.faulted());
        let Origin::Regular { file, opened } = &self.origin else {
            return Ok(());
        };
        let now = match file.metadata() {
            Ok(m) => Stamp::of(&m),
            Err(e) => return Err(Error::new(ErrorKind::Io(e)).with_path(&self.path)),
        };
        if faulted {
            // A fault with the size back where it was: truncated and written again, or the
            // storage failed to deliver a page (an I/O error also raises SIGBUS).
            return changed(if now.len < opened.len {
                format!(
                    "it was truncated: {} bytes when it was opened, {} bytes now",
                    opened.len, now.len
                )
            } else {
                "part of it could not be read: it was truncated and written again, or the \
                 storage failed"
                    .into()
            });
        }
        if now.len < opened.len || (now.len > opened.len && !growth_is_fine) {
            return changed(format!(
                "{} bytes when it was opened, {} bytes now",
                opened.len, now.len
            ));
        }
        if now.modified != opened.modified && !(growth_is_fine && now.len > opened.len) {
            return changed("it was modified after it was opened".into());
        }
        Ok(())
    }

    /// Drops the pages of a mapped input that lie wholly before byte `offset` from this
    /// process's resident memory (`MADV_DONTNEED`), for readers that go through a file once
    /// front to back: an input in flight then costs the part being parsed, not its size.
    /// The bytes stay readable: touching them again reads them back from the file (through
    /// the page cache). Inputs held in memory are left alone.
    pub fn release_before(&self, offset: usize) {
        #[cfg(unix)]
        if let InputData::Mapped { map, .. } = &self.data {
            const PAGE: usize = 4096;
            let end = offset.min(map.len()) / PAGE * PAGE;
            if end > 0 {
                // SAFETY: the mapping is read-only and never written through, and the range
                // is inside it. On a file mapping, MADV_DONTNEED only discards the resident
                // copies of the pages; the next access re-reads them from the file (through
                // the page cache). If the file was truncated meanwhile, that access reads
                // zeros through the fault guard and `check_unchanged` reports the file, as
                // for any other page. A failure only means the pages stay.
                let _ = unsafe {
                    map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, end)
                };
            }
        }
    }
}

/// Reads the whole of `file`, a regular file of `len` bytes that could not be mapped, into
/// memory allocated fallibly: a file larger than the memory the process may have (a sparse
/// file under `ulimit -v`) is [`ErrorKind::OutOfMemory`], not an abort.
fn read_whole(file: &File, len: u64) -> Result<Vec<u8>> {
    let n = usize::try_from(len).unwrap_or(usize::MAX);
    let mut v = crate::sys::alloc::with_capacity(n, "a copy of an input that could not be mapped")?;
    // `take`: a file that grew since is read as it was, and `check_unchanged` reports it.
    file.take(len)
        .read_to_end(&mut v)
        .map_err(|e| Error::new(ErrorKind::Io(e)))?;
    Ok(v)
}

/// What a file that is not a regular file is, for messages: "a FIFO", "a socket", ….
pub fn file_type_name(meta: &std::fs::Metadata) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        let name = if t.is_fifo() {
            "a FIFO"
        } else if t.is_socket() {
            "a socket"
        } else if t.is_char_device() {
            "a character device"
        } else if t.is_block_device() {
            "a block device"
        } else if t.is_dir() {
            "a directory"
        } else if t.is_symlink() {
            "a symbolic link"
        } else {
            "not a regular file"
        };
        name.to_string()
    }
    #[cfg(not(unix))]
    {
        if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file"
        }
        .to_string()
    }
}

/// Maps `file` (`len` bytes, not empty) and registers the mapping with the fault guard;
/// `None` if either fails (the caller reads the file instead).
fn map_guarded(file: &File, len: u64) -> Option<InputData> {
    if len == 0 {
        return None;
    }
    // SAFETY: the map is read-only. Another process may still change the file: a
    // truncation would make accesses past the new end fault, which the registration below
    // turns into reads of zeros and a flag (see `fault_guard`); any change, truncation or
    // not, is reported by `check_unchanged`, which every reader of a mapped input calls
    // before it keeps what it read. Without a registration the map is not used.
    let map = unsafe { memmap2::Mmap::map(file) }.ok()?;
    let guard = fault_guard::register(map.as_ptr(), map.len())?;
    Some(InputData::Mapped { guard, map })
}

/// The limit of bytes read from an input that is not a regular file: [`STREAM_LIMIT_ENV`]
/// if set, else [`DEFAULT_STREAM_LIMIT`]. An unreadable setting is a request error.
pub fn stream_limit() -> Result<u64> {
    crate::bytes::limits::size_from_env(STREAM_LIMIT_ENV, DEFAULT_STREAM_LIMIT)
}

/// Reads an input that is not a regular file: its first bytes, rejected at once if they
/// are no known format and hold a NUL byte, then the rest up to [`stream_limit`].
fn read_stream(file: &File, path: &Path) -> Result<Vec<u8>> {
    let io = |e: std::io::Error| Error::new(ErrorKind::Io(e)).with_path(path);
    let limit = stream_limit().map_err(|e| e.with_path(path))?;
    let mut r = file.take(limit.saturating_add(1));
    let mut data = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    let mut checked = false;
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        let got = chunk.get(..n).unwrap_or_default();
        crate::sys::alloc::reserve(&mut data, got.len(), "an input read from a pipe or device")
            .map_err(|e| e.with_path(path))?;
        data.extend_from_slice(got);
        // Enough bytes to tell a magic (a pipe may deliver them a few at a time).
        if !checked && data.len() >= 8 {
            checked = true;
            if hopeless_head(&data) {
                break;
            }
        }
    }
    if hopeless_head(&data) {
        return Err(Error::at(
            0,
            ErrorKind::UnknownFormat {
                head: describe_head(&data),
            },
        )
        .with_path(path));
    }
    if data.len() as u64 > limit {
        return Err(Error::new(ErrorKind::StreamTooLong {
            limit,
            env: STREAM_LIMIT_ENV,
        })
        .with_path(path));
    }
    Ok(data)
}

/// True if `head`, the first bytes of a stream, can begin no input this crate reads: no
/// binary format's magic, and a NUL byte, which no text format has.
fn hopeless_head(head: &[u8]) -> bool {
    let first = head.get(..head.len().min(8)).unwrap_or_default();
    FormatKind::sniff(head) == FormatKind::Unknown
        && !starts_a_magic(first)
        && head.iter().take(512).any(|&b| b == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads() {
        assert!(hopeless_head(&[0; 64]));
        assert!(!hopeless_head(b"main\n# Func Hash:\n"));
        // A raw profile's magic, then NUL bytes of its header.
        let mut raw = crate::frontends::profraw::MAGIC_64.to_le_bytes().to_vec();
        raw.extend([0; 56]);
        assert!(!hopeless_head(&raw));
        // gzip (a compressed iprof).
        assert!(!hopeless_head(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0]));
        // The beginning of a magic, cut short.
        assert!(!hopeless_head(&[0xff, 0x6c, 0x70]));
    }

    #[test]
    fn a_rewritten_file_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.proftext");
        std::fs::write(&p, b"main\n# Func Hash:\n1\n").unwrap();
        let f = InputFile::open(&p).unwrap();
        assert!(f.check_unchanged().is_ok());
        std::fs::write(&p, b"main\n# Func Hash:\n1\n# more\n").unwrap();
        let e = f.check_unchanged().unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::InputChanged(_)), "{e}");
        assert_eq!(e.path(), Some(p.as_path()));
        // Grown: fine for a file that is only appended to.
        assert!(f.check_not_shrunk().is_ok());
        std::fs::write(&p, b"m").unwrap();
        assert!(f.check_not_shrunk().is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_found_in_a_directory_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.profraw");
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // Opened without O_NONBLOCK this would wait for a writer for ever.
        let e = InputFile::open_regular(&p).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::NotRegularFile(_)), "{e}");
        assert!(e.to_string().contains("a FIFO"), "{e}");
        std::fs::write(dir.path().join("y"), b"x").unwrap();
        assert!(InputFile::open_regular(&dir.path().join("y")).is_ok());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_truncated_mapping_reads_zeros_and_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.bin");
        std::fs::write(&p, vec![7u8; 64 << 10]).unwrap();
        let f = InputFile::open(&p).unwrap();
        assert!(matches!(f.data, InputData::Mapped { .. }));
        std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len(4096)
            .unwrap();
        // Past the new end: without the guard this access raises SIGBUS.
        let tail = f.bytes().get(32 << 10..).unwrap();
        assert!(tail.iter().all(|&b| b == 0));
        assert_eq!(f.bytes().first(), Some(&7));
        let e = f.check_unchanged().unwrap_err();
        assert!(e.to_string().contains("truncated"), "{e}");
    }
}
