//! Writing output files atomically: the contents go to a file with no name yet, in the
//! destination's directory, which becomes the destination only once complete, so that a
//! failed, interrupted or killed run never leaves a partial output or replaces an existing
//! one with a partial one.
//!
//! On Linux the file is opened with `O_TMPFILE` (no name exists while it is written; a
//! process killed mid-write leaves nothing behind), then given a temporary name
//! (`.pgo-merge-XXXXXX.tmp`, with `linkat`) and renamed over the destination at once. Where
//! `O_TMPFILE` is not supported (other systems, some file systems), the file is created under
//! that temporary name from the start and removed on every error the process survives; a
//! signal that ends the process while it writes (Ctrl-C, `kill`) can leave it behind there.
//!
//! **Durability** is a separate matter: the rename makes the output complete for every
//! process at once, but a power loss or kernel crash soon after it may still lose the new
//! file's data on some file systems, as it may for any compiler's output. Syncing the file and
//! its directory to disk first costs a few milliseconds on an idle disk and much more behind a
//! busy one (an `fsync` waits for the journal), so it is asked for, not done by default:
//! [`SYNC_ENV`] set to `1`.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind, Result};

/// The environment variable that makes outputs durable: `1` syncs each output file, and
/// then its directory, to disk before and after it is renamed into place (see the module
/// documentation); unset, empty or `0`, outputs are not synced.
pub const SYNC_ENV: &str = "PGO_MERGE_SYNC_OUTPUT";

/// True if [`SYNC_ENV`] asks for synced outputs (read once per process).
fn sync_outputs() -> bool {
    static SYNC: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SYNC.get_or_init(|| std::env::var_os(SYNC_ENV).is_some_and(|v| !v.is_empty() && v != "0"))
}

/// Writes `bytes` to `path` atomically (temporary file + rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |f| {
        f.write_all(bytes).map_err(|e| Error::new(ErrorKind::Io(e)))
    })
}

/// An error about the output `path`: `kind` and what to tell the user.
fn output_error(path: &Path, kind: std::io::ErrorKind, message: String) -> Error {
    Error::new(ErrorKind::Io(std::io::Error::new(kind, message))).with_path(path)
}

/// An I/O error met while writing the output `path`, said so, with a word on the file-size
/// limit (EFBIG's "File too large" does not say which limit).
fn write_error(path: &Path, e: &std::io::Error) -> Error {
    let why = match e.raw_os_error() {
        #[cfg(unix)]
        Some(libc::EFBIG) => {
            ": the output would be larger than the file-size limit of the process (ulimit -f) \
             or than the file system allows"
        }
        _ => "",
    };
    output_error(path, e.kind(), format!("cannot write the output: {e}{why}"))
}

/// Creates `path` atomically: `fill` writes the contents into a temporary file in the
/// directory of the destination, which is renamed over the destination only if `fill`
/// succeeds (otherwise it is discarded and the destination is untouched); with [`SYNC_ENV`]
/// the file is synced to disk before the rename and the directory after it, so that the
/// rename survives a crash of the system. Errors carry the path and
/// name the output, not the temporary file: a missing or unwritable directory is named as
/// such.
///
/// * A new file gets the permissions a newly created file gets (0666 less the umask); a
///   file replaced keeps its permission bits.
/// * An existing file the process may not write (read-only to it) is not replaced: that is
///   an error, as it is for llvm-profdata and `cp`, which write files in place. (Root may
///   write any file, so root replaces it, as those tools do.)
/// * A symbolic link is written through: its target is replaced atomically, in the target's
///   directory, and the link stays. A dangling link and a loop of links are errors.
/// * An existing destination that is not a regular file (`/dev/null`, a FIFO, a terminal, a
///   socket) is written in place, as llvm-profdata writes it: renaming a file over it would
///   replace the device or pipe instead of writing to it. So is a link to something that has
///   no name (`/dev/stdout` or `/proc/self/fd/1` when standard output is a pipe or a socket,
///   or a file since deleted); `/dev/stdout` of a run whose output is redirected to a file
///   names that file, which is replaced atomically like any other.
/// * A directory is an error.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> Result<()>,
) -> Result<()> {
    let target = match through_links(path)? {
        Through::Named(t) => t,
        Through::Unnamed => return write_in_place(path, path, fill),
    };
    let mut mode = None;
    match std::fs::metadata(&target) {
        Ok(m) if m.is_dir() => {
            return Err(output_error(
                path,
                std::io::ErrorKind::IsADirectory,
                "the output is a directory; name a file to write to".into(),
            ));
        }
        Ok(m) if !m.is_file() => return write_in_place(path, &target, fill),
        Ok(m) => {
            if !may_write(&target, &m) {
                return Err(output_error(
                    path,
                    std::io::ErrorKind::PermissionDenied,
                    "cannot write the output: the file exists and is read-only (no permission \
                     to write it); it is not replaced"
                        .into(),
                ));
            }
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                mode = Some(m.permissions().mode() & 0o777);
            }
            #[cfg(not(unix))]
            let _ = m;
        }
        Err(_) => {}
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut staged = Staged::create(dir).map_err(|e| directory_error(path, dir, e))?;
    fill(staged.file()).map_err(|e| match e.kind() {
        ErrorKind::Io(io) if e.path().is_none() => write_error(path, io),
        _ => e.with_path(path),
    })?;
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::PermissionsExt;
        staged
            .file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(|e| write_error(path, &e))?;
    }
    let sync = sync_outputs();
    if sync {
        staged
            .file()
            .sync_all()
            .map_err(|e| write_error(path, &e))?;
    }
    staged.persist(&target).map_err(|e| write_error(path, &e))?;
    // The rename is durable once the directory is synced too. Some file systems cannot
    // sync a directory; the file itself is already on disk, so that is not an error.
    #[cfg(unix)]
    if sync && let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Whether the process may write the existing file `target` (metadata `m`) in place: the
/// system's answer for the effective user (root may write any file). Asked with `faccessat`,
/// not by opening the file for writing, which file watchers would see as a write.
fn may_write(target: &Path, m: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let _ = m;
        let Ok(c) = std::ffi::CString::new(target.as_os_str().as_bytes()) else {
            return true;
        };
        // SAFETY: `c` is a NUL-terminated path that outlives the call.
        let r =
            unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), libc::W_OK, libc::AT_EACCESS) };
        // Only a refusal counts: a read-only file system or any other failure shows up,
        // with its own message, when the new file is created.
        r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EACCES)
    }
    #[cfg(not(unix))]
    {
        let _ = target;
        !m.permissions().readonly()
    }
}

/// Where a symbolic link (or a name that is none) leads.
enum Through {
    /// To this name: the file to replace, or a device, FIFO or socket with a name.
    Named(PathBuf),
    /// To something that exists but has no name to replace: a pipe or socket (as
    /// `/proc/self/fd/N` links to them, and `/dev/stdout` through them), or a deleted file.
    /// Written in place through the link.
    Unnamed,
}

/// The file `path` names: `path` itself, or, for a symbolic link, the file it finally
/// points to (which must exist: a dangling link is an error, as `cp` refuses to write
/// through one, since the name the user sees would then point to a file made in some other
/// directory). Loops of links are an error.
fn through_links(path: &Path) -> Result<Through> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {}
        _ => return Ok(Through::Named(path.to_path_buf())),
    }
    let shown = std::fs::read_link(path).map_or_else(|_| "?".into(), |t| t.display().to_string());
    match std::fs::canonicalize(path) {
        Ok(t) => Ok(Through::Named(t)),
        // The system's own links to open files (`/proc/self/fd/N`) lead to pipes, sockets
        // and deleted files, which exist (`stat` reaches them) but have no name.
        Err(_) if std::fs::metadata(path).is_ok_and(|m| !m.is_dir()) => Ok(Through::Unnamed),
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => Err(output_error(
            path,
            e.kind(),
            format!(
                "cannot write the output: it is a symbolic link (to {shown}) in a loop of \
                 links that never reaches a file"
            ),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(output_error(
            path,
            e.kind(),
            format!(
                "cannot write the output: it is a symbolic link to {shown}, which does not \
                 exist; not writing through a dangling link (create the target or remove the \
                 link)"
            ),
        )),
        Err(e) => Err(output_error(
            path,
            e.kind(),
            format!(
                "cannot write the output: it is a symbolic link (to {shown}) that cannot be followed: {e}"
            ),
        )),
    }
}

/// Writes to `target`, an existing file that is not a regular file (a device, a pipe, a
/// socket) or that has no name, in place. Writers may seek back to patch what they wrote; a
/// pipe cannot seek, so the contents go through an unnamed temporary file first, and nothing
/// reaches the destination unless they are complete.
fn write_in_place(
    path: &Path,
    target: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> Result<()>,
) -> Result<()> {
    let io = |e: std::io::Error| write_error(path, &e);
    let mut tmp = anonymous_temp().map_err(io)?;
    fill(&mut tmp).map_err(|e| e.with_path(path))?;
    let mut out = open_in_place(target).map_err(io)?;
    std::io::Seek::rewind(&mut tmp).map_err(io)?;
    std::io::copy(&mut tmp, &mut out).map_err(io)?;
    out.flush().map_err(io)
}

/// `target`, open for writing in place: a regular file (reached through a link to a deleted
/// file) truncated first, as llvm-profdata opens it; standard output or standard error
/// themselves when `target` is the same file (a socket cannot be opened by name; a pipe or a
/// terminal is the same either way); anything else opened by name.
fn open_in_place(target: &Path) -> std::io::Result<std::fs::File> {
    let meta = std::fs::metadata(target)?;
    let mut open = std::fs::OpenOptions::new();
    open.write(true);
    if meta.is_file() {
        return open.truncate(true).open(target);
    }
    #[cfg(unix)]
    if let Some(f) = standard_stream(&meta) {
        return Ok(f);
    }
    open.open(target)
}

/// A duplicate of standard output or standard error, whichever is the file `meta` describes
/// (the same device and inode).
#[cfg(unix)]
fn standard_stream(meta: &std::fs::Metadata) -> Option<std::fs::File> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let (out, err) = (std::io::stdout(), std::io::stderr());
    [out.as_fd(), err.as_fd()].into_iter().find_map(|fd| {
        let f = std::fs::File::from(fd.try_clone_to_owned().ok()?);
        let m = f.metadata().ok()?;
        (m.dev() == meta.dev() && m.ino() == meta.ino()).then_some(f)
    })
}

/// The file an output is written to before it becomes the output.
enum Staged {
    /// Linux: an `O_TMPFILE` file, nameless until it is complete.
    #[cfg(target_os = "linux")]
    Unnamed { file: std::fs::File, dir: PathBuf },
    /// A file under a temporary name, removed if dropped before it is persisted.
    Named(std::fs::File, TempName),
}

/// A temporary name, `.pgo-merge-XXXXXXXXXXXX.tmp` (hidden, and plainly not an output):
/// the file under it is removed when this is dropped, unless [`TempName::persist`] renamed
/// it into place.
struct TempName(Option<PathBuf>);

/// How many random names are tried before giving up (each taken one is a file that another
/// process created under a name of the same pattern).
const TEMP_ATTEMPTS: u32 = 64;

impl TempName {
    /// Picks a free name in `dir` and calls `make` to create the file under it; `make` fails
    /// with [`std::io::ErrorKind::AlreadyExists`] when the name is taken, and another name
    /// is tried.
    fn make_in(
        dir: &Path,
        mut make: impl FnMut(&Path) -> std::io::Result<()>,
    ) -> std::io::Result<TempName> {
        for attempt in 0..TEMP_ATTEMPTS {
            let path = dir.join(format!(".pgo-merge-{}.tmp", random_suffix(attempt)));
            match make(&path) {
                Ok(()) => return Ok(TempName(Some(path))),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "every temporary name tried was taken",
        ))
    }

    /// Renames the file to `target`, atomically replacing what was there. If the rename
    /// fails, the file is removed when `self` is dropped.
    fn persist(mut self, target: &Path) -> std::io::Result<()> {
        if let Some(p) = &self.0 {
            std::fs::rename(p, target)?;
            self.0 = None;
        }
        Ok(())
    }
}

impl Drop for TempName {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            // Nothing more can be done about a file that cannot be removed.
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Twelve hex digits that differ between calls, processes and attempts (std's randomly
/// seeded hasher over the process ID, the attempt and the time): names, not secrets.
fn random_suffix(attempt: u32) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u32(attempt);
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    format!("{:012x}", h.finish() & 0xffff_ffff_ffff)
}

/// A new file under a temporary name in `dir`, open for reading and writing, created with
/// `mode` (less the umask) where modes exist.
fn create_named(dir: &Path, mode: u32) -> std::io::Result<(std::fs::File, TempName)> {
    let mut file = None;
    let name = TempName::make_in(dir, |p| {
        let mut o = std::fs::OpenOptions::new();
        o.read(true).write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut o, mode);
        #[cfg(not(unix))]
        let _ = mode;
        file = Some(o.open(p)?);
        Ok(())
    })?;
    match file {
        Some(f) => Ok((f, name)),
        None => Err(std::io::Error::other("no temporary file was created")),
    }
}

/// The mode of an output before the umask: an ordinary file, as `File::create` makes it,
/// not one only its owner reads.
const OUTPUT_MODE: u32 = 0o666;

/// A private temporary file without a name, in the system's temporary directory:
/// `O_TMPFILE` where the system has it, else a named file removed at once.
fn anonymous_temp() -> std::io::Result<std::fs::File> {
    let dir = std::env::temp_dir();
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .mode(0o600)
            .custom_flags(libc::O_TMPFILE)
            .open(&dir)
        {
            Ok(file) => return Ok(file),
            Err(e) if !unsupported_tmpfile(&e) => return Err(e),
            Err(_) => {}
        }
    }
    let (file, name) = create_named(&dir, 0o600)?;
    drop(name);
    Ok(file)
}

/// True if `e`, from an `O_TMPFILE` open, says that the kernel (EISDIR, EINVAL before
/// 3.11) or the file system (EOPNOTSUPP) does not support it.
#[cfg(target_os = "linux")]
fn unsupported_tmpfile(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL)
    )
}

impl Staged {
    /// A new, empty file in `dir`: nameless where the system can, else under a temporary
    /// name.
    fn create(dir: &Path) -> std::io::Result<Staged> {
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::fs::OpenOptionsExt;
            match std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .mode(OUTPUT_MODE)
                .custom_flags(libc::O_TMPFILE)
                .open(dir)
            {
                Ok(file) => {
                    return Ok(Staged::Unnamed {
                        file,
                        dir: dir.to_path_buf(),
                    });
                }
                // Not supported by the kernel or the file system: a named temporary file
                // instead.
                Err(e) if unsupported_tmpfile(&e) => {}
                Err(e) => return Err(e),
            }
        }
        let (file, name) = create_named(dir, OUTPUT_MODE)?;
        Ok(Staged::Named(file, name))
    }

    fn file(&mut self) -> &mut std::fs::File {
        match self {
            #[cfg(target_os = "linux")]
            Staged::Unnamed { file, .. } => file,
            Staged::Named(file, _) => file,
        }
    }

    /// Makes the complete file `target` (atomically replacing what was there).
    fn persist(self, target: &Path) -> std::io::Result<()> {
        let named = match self {
            #[cfg(target_os = "linux")]
            Staged::Unnamed { mut file, dir } => match link_unnamed(&file, &dir) {
                Ok(t) => t,
                // No /proc to name the file by (a minimal chroot): copied to a named file.
                Err(_) => copy_to_named(&mut file, &dir)?,
            },
            Staged::Named(_, name) => name,
        };
        // Removed again if the rename fails.
        named.persist(target)
    }
}

/// A copy of `file` (from its start) under a temporary name in `dir` (synced to disk with
/// [`SYNC_ENV`]).
fn copy_to_named(file: &mut std::fs::File, dir: &Path) -> std::io::Result<TempName> {
    let (mut t, name) = create_named(dir, OUTPUT_MODE)?;
    std::io::Seek::rewind(file)?;
    std::io::copy(file, &mut t)?;
    if sync_outputs() {
        t.sync_all()?;
    }
    Ok(name)
}

/// Gives the `O_TMPFILE` file `file` a temporary name in `dir` (then it is renamed over
/// the output: `linkat` cannot replace an existing file). The name exists only between the
/// two calls.
#[cfg(target_os = "linux")]
fn link_unnamed(file: &std::fs::File, dir: &Path) -> std::io::Result<TempName> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::io::AsRawFd;
    let from = std::ffi::CString::new(format!("/proc/self/fd/{}", file.as_raw_fd()))
        .map_err(std::io::Error::other)?;
    TempName::make_in(dir, |to| {
        let to =
            std::ffi::CString::new(to.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
        // SAFETY: both paths are NUL-terminated strings that outlive the call.
        let r = unsafe {
            libc::linkat(
                libc::AT_FDCWD,
                from.as_ptr(),
                libc::AT_FDCWD,
                to.as_ptr(),
                libc::AT_SYMLINK_FOLLOW,
            )
        };
        if r == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    })
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
            // An error may end with the file's name (" at path ..."); the OS message is
            // what matters.
            let os = e.to_string();
            let os = os.rfind(" at path ").map_or(os.as_str(), |i| &os[..i]);
            format!("cannot write the output: cannot create a file in the directory {shown}: {os}")
        }
    };
    output_error(path, e.kind(), message)
}

/// Where an output goes.
#[non_exhaustive]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// The permission bits a file made by `File::create` gets in `dir` (0666 less the umask).
    #[cfg(unix)]
    fn created_mode(dir: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        let probe = dir.join("probe");
        std::fs::File::create(&probe).unwrap();
        let mode = std::fs::metadata(&probe).unwrap().permissions().mode() & 0o777;
        std::fs::remove_file(&probe).unwrap();
        mode
    }

    /// Where `O_TMPFILE` is not supported: a named temporary file beside the output, renamed
    /// over it, with the mode of an ordinary new file, and nothing else left behind.
    #[test]
    fn named_staging_replaces_the_output() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.profdata");
        std::fs::write(&target, b"old").unwrap();
        let (file, name) = create_named(dir.path(), OUTPUT_MODE).unwrap();
        let mut s = Staged::Named(file, name);
        s.file().write_all(b"new contents").unwrap();
        s.persist(&target).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new contents");
        assert_eq!(names(dir.path()), ["out.profdata"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, created_mode(dir.path()));
        }
    }

    /// A named temporary file dropped before it is persisted (a write failed) is removed,
    /// and the output is left as it was.
    #[test]
    fn named_staging_dropped_leaves_the_output_alone() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.profdata");
        std::fs::write(&target, b"old").unwrap();
        let (file, name) = create_named(dir.path(), OUTPUT_MODE).unwrap();
        let mut s = Staged::Named(file, name);
        s.file().write_all(b"half").unwrap();
        assert_eq!(names(dir.path()).len(), 2);
        drop(s);
        assert_eq!(names(dir.path()), ["out.profdata"]);
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
    }

    /// Without `/proc` an `O_TMPFILE` file cannot be linked by name: its contents are copied
    /// to a named temporary file, which then becomes the output.
    #[cfg(target_os = "linux")]
    #[test]
    fn unnamed_file_copied_when_it_cannot_be_linked() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.profdata");
        let mut s = Staged::create(dir.path()).unwrap();
        s.file().write_all(b"0123456789").unwrap();
        let Staged::Unnamed { mut file, .. } = s else {
            eprintln!("unnamed_file_copied_when_it_cannot_be_linked: SKIPPED (no O_TMPFILE here)");
            return;
        };
        assert!(
            names(dir.path()).is_empty(),
            "an O_TMPFILE file has no name"
        );
        let t = copy_to_named(&mut file, dir.path()).unwrap();
        drop(file);
        t.persist(&target).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"0123456789");
        assert_eq!(names(dir.path()), ["out.profdata"]);
    }
}
