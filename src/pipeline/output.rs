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
/// created file gets (0666 less the umask). Errors carry the path.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> Result<()>,
) -> Result<()> {
    let io = |e: std::io::Error| Error::new(ErrorKind::Io(e)).with_path(path);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".pgo-merge-").suffix(".tmp");
    // A temporary file is private (0600) by default; the output is an ordinary file, made
    // as `File::create` would make it (0666 less the umask), not one only its owner reads.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir).map_err(io)?;
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
