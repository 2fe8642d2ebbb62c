//! Function identity in sample profiles: a name, or the MD5 of a name (LLVM's `FunctionId`).

use std::fmt;

use crate::ir::name_hash::md5_hash;
use crate::ir::symbols::Name;

/// A function as a sample profile names it: its (usually mangled) name, or only the 64-bit
/// MD5 of that name (extbinary profiles written with `--use-md5`).
///
/// Order (that of the variants, then of the values): every hash sorts before every name; hashes
/// compare as numbers, names byte by byte (a prefix first) — exactly LLVM's
/// `FunctionId::compare`, which decides the order of callees at a call site, of call
/// targets with equal counts and of name tables.
///
/// Equality: a hash never equals a name, even the name it is the hash of (as in LLVM). A
/// name made only of digits read from a text profile stays a name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FunctionId {
    /// The low 64 bits of the MD5 of the name. 0 is LLVM's default-constructed
    /// `FunctionId`, "no function": it is written as an empty name (or hash 0), and only
    /// made where LLVM's reader makes one (see `frontends::sample::extbinary`).
    Md5(u64),
    /// The name's bytes (not necessarily UTF-8).
    Name(Name),
}

impl FunctionId {
    /// A name.
    pub fn name(bytes: &[u8]) -> FunctionId {
        FunctionId::Name(Name::from(bytes))
    }

    /// The 64-bit hash LLVM uses for this function: the MD5 hash of a name, or the stored
    /// hash itself. A name and its hash give the same value.
    pub fn hash_code(&self) -> u64 {
        match self {
            FunctionId::Md5(h) => *h,
            FunctionId::Name(n) => md5_hash(n),
        }
    }

    /// The name's bytes, if this is a name.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            FunctionId::Md5(_) => None,
            FunctionId::Name(n) => Some(n),
        }
    }

    /// True for an empty name or the hash 0 (LLVM's "no function yet").
    pub fn is_empty(&self) -> bool {
        match self {
            FunctionId::Md5(h) => *h == 0,
            FunctionId::Name(n) => n.is_empty(),
        }
    }

    /// Appends the textual form to `out`: the name's bytes, or the hash in decimal (what
    /// LLVM's writers print for MD5 profiles); nothing for the hash 0, as LLVM prints it.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        match self {
            FunctionId::Md5(0) => {}
            FunctionId::Md5(h) => out.extend_from_slice(h.to_string().as_bytes()),
            FunctionId::Name(n) => out.extend_from_slice(n),
        }
    }
}

impl Ord for FunctionId {
    /// The derived order, with a shortcut for two handles of one shared name (merges share
    /// one copy of each name, so equal names are usually the same allocation).
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        match (self, other) {
            (FunctionId::Md5(a), FunctionId::Md5(b)) => a.cmp(b),
            (FunctionId::Md5(_), FunctionId::Name(_)) => Ordering::Less,
            (FunctionId::Name(_), FunctionId::Md5(_)) => Ordering::Greater,
            (FunctionId::Name(a), FunctionId::Name(b)) => {
                if std::sync::Arc::ptr_eq(a, b) {
                    Ordering::Equal
                } else {
                    a[..].cmp(&b[..])
                }
            }
        }
    }
}

impl PartialOrd for FunctionId {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Default for FunctionId {
    fn default() -> Self {
        FunctionId::Name(Name::from(&b""[..]))
    }
}

impl fmt::Display for FunctionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FunctionId::Md5(0) => Ok(()),
            FunctionId::Md5(h) => write!(f, "{h}"),
            FunctionId::Name(n) => f.write_str(&String::from_utf8_lossy(n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_llvms() {
        let mut v = [
            FunctionId::name(b"foo"),
            FunctionId::Md5(7),
            FunctionId::name(b"fo"),
            FunctionId::Md5(3),
            FunctionId::name(b"Z"),
        ];
        v.sort();
        let shown: Vec<String> = v.iter().map(|f| f.to_string()).collect();
        assert_eq!(shown, ["3", "7", "Z", "fo", "foo"]);
    }

    #[test]
    fn name_and_hash_share_a_hash_code_but_differ() {
        let n = FunctionId::name(b"main");
        let h = FunctionId::Md5(md5_hash(b"main"));
        assert_eq!(n.hash_code(), h.hash_code());
        assert_ne!(n, h);
    }
}
