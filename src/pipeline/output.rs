//! Writing output files atomically: to a temporary file in the destination directory, then
//! renamed over the destination, so a failed run never leaves a partial file.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, ErrorKind, Result};

/// Writes `bytes` to `path` atomically (temporary file + rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |f| {
        f.write_all(bytes).map_err(|e| Error::new(ErrorKind::Io(e)))
    })
}

/// Creates `path` atomically: `fill` writes the contents into a temporary file in the same
/// directory, which is synced to disk and renamed over `path` only if `fill` succeeds
/// (otherwise it is removed and `path` is untouched); the directory is then synced so
/// that the rename survives a crash. The file gets the permissions a newly
/// created file gets (0666 less the umask). Errors carry the path and name the output, not
/// the temporary file: a missing or unwritable directory is named as such.
///
/// An existing `path` that is not a regular file (`/dev/null`, a FIFO, a terminal) is
/// written in place, as llvm-profdata writes it: renaming a file over it would replace the
/// device or pipe instead of writing to it.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> Result<()>,
) -> Result<()> {
    let fail = |kind: std::io::ErrorKind, message: String| {
        Error::new(ErrorKind::Io(std::io::Error::new(kind, message))).with_path(path)
    };
    let io = |e: std::io::Error| fail(e.kind(), format!("cannot write the output: {e}"));
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            return Err(fail(
                std::io::ErrorKind::IsADirectory,
                "the output is a directory; name a file to write to".into(),
            ));
        }
        Ok(m) if !m.is_file() => {
            // Writers may seek back to patch what they wrote; a pipe cannot seek, so the
            // contents go through an unnamed temporary file first.
            let mut tmp = tempfile::tempfile().map_err(io)?;
            fill(&mut tmp).map_err(|e| e.with_path(path))?;
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(io)?;
            std::io::Seek::rewind(&mut tmp).map_err(io)?;
            std::io::copy(&mut tmp, &mut out).map_err(io)?;
            return out.flush().map_err(io);
        }
        _ => {}
    }
    let mut builder = tempfile::Builder::new();
    builder.prefix(".pgo-merge-").suffix(".tmp");
    // A temporary file is private (0600) by default; the output is an ordinary file, made
    // as `File::create` would make it (0666 less the umask), not one only its owner reads.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder
        .tempfile_in(dir)
        .map_err(|e| directory_error(path, dir, e))?;
    fill(tmp.as_file_mut()).map_err(|e| e.with_path(path))?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    // The rename is durable once the directory is synced too. Some file systems cannot
    // sync a directory; the file itself is already on disk, so that is not an error.
    #[cfg(unix)]
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Why no file can be created in `dir`, the directory of the output `path`, as an error about
/// the output (the temporary file that could not be created is an implementation detail).
fn directory_error(path: &Path, dir: &Path, e: std::io::Error) -> Error {
    let shown = dir.display();
    let message = match std::fs::metadata(dir) {
        Err(m) if m.kind() == std::io::ErrorKind::NotFound => {
            format!("cannot write the output: the directory {shown} does not exist")
        }
        Ok(m) if !m.is_dir() => {
            format!("cannot write the output: {shown} is not a directory")
        }
        _ if e.kind() == std::io::ErrorKind::PermissionDenied => format!(
            "cannot write the output: no permission to create files in the directory {shown}"
        ),
        _ => {
            // tempfile appends the temporary file's name; the OS message is what matters.
            let os = e.to_string();
            let os = os.rfind(" at path ").map_or(os.as_str(), |i| &os[..i]);
            format!("cannot write the output: cannot create a file in the directory {shown}: {os}")
        }
    };
    Error::new(ErrorKind::Io(std::io::Error::new(e.kind(), message))).with_path(path)
}

/// Where an output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// Standard output (`-`).
    Stdout,
    /// A file, written atomically.
    File(std::path::PathBuf),
}

impl Destination {
    /// `-` is standard output; anything else a file.
    pub fn of(path: &Path) -> Destination {
        if path.as_os_str() == "-" {
            Destination::Stdout
        } else {
            Destination::File(path.to_path_buf())
        }
    }
}

/// Writes `bytes` to `dest`.
pub fn write_bytes(dest: &Destination, bytes: &[u8]) -> Result<()> {
    match dest {
        Destination::File(p) => write_atomic(p, bytes),
        Destination::Stdout => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes)?;
            out.flush()?;
            Ok(())
        }
    }
}

/// Streams what `fill` writes to `dest` (a file atomically, as [`write_atomic_with`]).
pub fn write_stream(
    dest: &Destination,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    match dest {
        Destination::File(p) => {
            write_atomic_with(p, |f| fill(f).map_err(|e| Error::new(ErrorKind::Io(e))))
        }
        Destination::Stdout => {
            let mut out = std::io::stdout().lock();
            fill(&mut out).map_err(|e| Error::new(ErrorKind::Io(e)))?;
            out.flush()?;
            Ok(())
        }
    }
}
