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
/// directory, which is renamed over `path` only if `fill` succeeds (otherwise it is removed
/// and `path` is untouched). Errors carry the path.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> Result<()>,
) -> Result<()> {
    let io = |e: std::io::Error| Error::new(ErrorKind::Io(e)).with_path(path);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".pgo-merge-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io)?;
    fill(tmp.as_file_mut()).map_err(|e| e.with_path(path))?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}
