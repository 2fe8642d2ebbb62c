//! BOLT profiles: `fdata` (the legacy text format of `llvm-bolt -instrument`, `perf2bolt` and
//! `merge-fdata`) and YAML (`llvm-bolt -w`).

pub mod fdata;
pub mod report;
pub mod yaml;

pub use fdata::FdataReader;

/// True if `head` (the first bytes of a file) starts like an fdata profile: a header line
/// (`boltedcollection`, `no_lbr`) or a record whose first field is a location type (0–5)
/// followed by a space.
pub fn looks_like_fdata(head: &[u8]) -> bool {
    head.starts_with(b"boltedcollection\n")
        || head.starts_with(b"no_lbr")
        || matches!(head, [b'0'..=b'5', b' ', ..])
}
