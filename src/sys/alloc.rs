//! Memory sized by what an input says, allocated fallibly.
//!
//! A size read from a file, or the size of the file itself, may be more than the process
//! can have (`ulimit -v`, a memory cgroup). Allocating it with `Vec::with_capacity` or
//! `vec![0; n]` would abort the process; these functions return
//! [`ErrorKind::OutOfMemory`] instead, naming what the memory was for and how much it was.

use crate::error::{Error, ErrorKind, Result};

/// The error for `n` elements of `T` that could not be allocated for `what`.
fn refused<T>(n: usize, what: &'static str) -> Error {
    let bytes = (n as u64).saturating_mul(std::mem::size_of::<T>().max(1) as u64);
    Error::new(ErrorKind::OutOfMemory { what, bytes })
}

/// An empty vector with room for exactly `n` elements, or [`ErrorKind::OutOfMemory`].
pub fn with_capacity<T>(n: usize, what: &'static str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| refused::<T>(n, what))?;
    Ok(v)
}

/// Room for `additional` more elements in `v` (as `Vec::reserve`: growing by at least
/// doubling, so that a vector filled piece by piece is copied a few times only), or
/// [`ErrorKind::OutOfMemory`].
pub fn reserve<T>(v: &mut Vec<T>, additional: usize, what: &'static str) -> Result<()> {
    v.try_reserve(additional)
        .map_err(|_| refused::<T>(v.len().saturating_add(additional), what))
}

/// `n` zero bytes, or [`ErrorKind::OutOfMemory`].
pub fn zeroed(n: usize, what: &'static str) -> Result<Vec<u8>> {
    let mut v = with_capacity(n, what)?;
    v.resize(n, 0);
    Ok(v)
}

/// `n` copies of `value`, or [`ErrorKind::OutOfMemory`].
pub fn filled<T: Clone>(n: usize, value: T, what: &'static str) -> Result<Vec<T>> {
    let mut v = with_capacity(n, what)?;
    v.resize(n, value);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impossible_size_is_an_error() {
        let e = with_capacity::<u64>(usize::MAX / 4, "a test").unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::OutOfMemory { .. }), "{e}");
        assert!(e.to_string().contains("a test"), "{e}");
        assert_eq!(zeroed(3, "x").unwrap(), [0, 0, 0]);
        assert_eq!(filled(2, 7u32, "x").unwrap(), [7, 7]);
    }
}
