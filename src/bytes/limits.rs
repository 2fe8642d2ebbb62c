//! Named limits on counts read from inputs.
//!
//! A reader never allocates memory sized by a field it has not checked: either the field is
//! bounded by the bytes that are actually present (most counts are, since every element takes
//! at least one byte), or it is checked against one of these limits first. The limits are far
//! above anything real profiles contain.

/// zlib cannot expand data by more than about 1032:1; a chunk that claims more is corrupt.
pub const MAX_ZLIB_RATIO: u64 = 1032;

/// Maximum value kinds in one value-profile block (LLVM knows 3: indirect call, mem-op, vtable).
pub const MAX_VALUE_KINDS: u32 = 3;

/// Maximum number of (value, count) pairs kept per value site, as LLVM's
/// `INSTR_PROF_MAX_NUM_VAL_PER_SITE`.
pub const MAX_VALUES_PER_SITE: usize = 255;

/// Maximum number of raw profiles concatenated in one file (each at least one header long, so
/// this only guards against pathological loops).
pub const MAX_PROFILES_PER_FILE: usize = 1 << 20;

/// Decompressed bytes allowed per input unless [`INFLATE_LIMIT_ENV`] says otherwise: 128 MiB.
/// A gzip-compressed `.iprof`, a raw or indexed profile's zlib-compressed names and a
/// compressed extbinary sample profile's sections inflate to at most this much, so that a
/// small file cannot make the process take gigabytes ("zip bomb": deflate expands data up to
/// about 1032:1, so 128 KiB inflate to 128 MiB). Real profiles are far below it: GraalVM
/// profiles are a few megabytes, the names of the largest binaries tens of megabytes.
pub const DEFAULT_INFLATE_LIMIT: u64 = 128 << 20;

/// The environment variable that sets the limit of decompressed bytes per input: bytes, or
/// a number with a `K`, `M` or `G` suffix (powers of 1024).
pub const INFLATE_LIMIT_ENV: &str = "PGO_MERGE_INFLATE_LIMIT";

/// The limit of decompressed bytes per input: [`INFLATE_LIMIT_ENV`] if set, else
/// [`DEFAULT_INFLATE_LIMIT`]. An unreadable setting is a request error.
pub fn inflate_limit() -> crate::error::Result<u64> {
    size_from_env(INFLATE_LIMIT_ENV, DEFAULT_INFLATE_LIMIT)
}

/// The decompressed bytes an input may still inflate to under [`inflate_limit`]: every
/// decompression of one input takes from the same budget, so that many compressed pieces
/// cannot add up to more than one may inflate to.
#[derive(Debug, Clone)]
pub struct InflateBudget {
    limit: u64,
    used: u64,
}

impl InflateBudget {
    /// A budget of [`inflate_limit`] bytes.
    pub fn new() -> crate::error::Result<InflateBudget> {
        Ok(InflateBudget::with_limit(inflate_limit()?))
    }

    /// A budget of `limit` bytes.
    pub fn with_limit(limit: u64) -> InflateBudget {
        InflateBudget { limit, used: 0 }
    }

    /// The limit, in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Takes `n` more decompressed bytes of `what`, or fails with
    /// [`crate::error::ErrorKind::InflateLimit`] if that would pass the limit.
    pub fn take(&mut self, n: u64, what: &'static str) -> crate::error::Result<()> {
        match self.used.checked_add(n).filter(|&u| u <= self.limit) {
            Some(u) => {
                self.used = u;
                Ok(())
            }
            None => Err(self.exceeded(what)),
        }
    }

    /// The error for `what` inflating past the limit.
    pub fn exceeded(&self, what: &'static str) -> crate::error::Error {
        crate::error::Error::new(crate::error::ErrorKind::InflateLimit {
            what,
            limit: self.limit,
            env: INFLATE_LIMIT_ENV,
        })
    }
}

/// The size in environment variable `env` (see [`parse_size`]), or `default` if it is not
/// set. An unreadable setting is a request error naming the variable.
pub fn size_from_env(env: &str, default: u64) -> crate::error::Result<u64> {
    match std::env::var(env) {
        Err(_) => Ok(default),
        Ok(v) => parse_size(&v).ok_or_else(|| {
            crate::error::Error::new(crate::error::ErrorKind::Request(format!(
                "{env}={v:?} is not a size: expected bytes, or a number with a K, M or G \
                 suffix (e.g. 512M)"
            )))
        }),
    }
}

/// `1234`, `64K`, `512M`, `2G` (also `KiB`/`MiB`/`GiB`, any case) in bytes.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(digits);
    let n: u64 = n.parse().ok()?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return None,
    };
    n.checked_mul(1u64 << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1234"), Some(1234));
        assert_eq!(parse_size("64K"), Some(64 << 10));
        assert_eq!(parse_size("512m"), Some(512 << 20));
        assert_eq!(parse_size("2GiB"), Some(2 << 30));
        assert_eq!(parse_size("1T"), None);
        assert_eq!(parse_size("M"), None);
        assert_eq!(parse_size("99999999999999999999G"), None);
    }
}
