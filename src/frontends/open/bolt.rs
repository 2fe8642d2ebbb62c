//! BOLT profiles' way in: the fdata reader (line views over the file's bytes), the YAML
//! reader, the reader of either into branch records for `show`/`overlap`, and what a file's
//! first bytes say it is.

pub use super::super::bolt::FdataReader;
pub use super::super::bolt::report::{read_report, sniff_bolt};
use super::super::bolt::{looks_like_fdata, yaml};
use crate::error::Result;
use crate::ir::bolt_yaml::YamlProfile;

/// The YAML profile in `bytes` (`llvm-bolt -w`, `perf2bolt -w`).
pub fn read_bolt_yaml(bytes: &[u8]) -> Result<YamlProfile> {
    yaml::read_yaml(bytes)
}

/// True if `head` (a file's first bytes) starts as a YAML document: `merge-fdata` decides
/// the format of a merge by its first input this way.
pub fn looks_like_bolt_yaml(head: &[u8]) -> bool {
    yaml::looks_like_yaml(head)
}

/// True if `head` (a file's first 32 bytes or more) looks like a BOLT profile: fdata (a
/// header line, or a record starting with a location type) or YAML as LLVM writes it (`---`
/// then `header:`).
pub fn looks_like_bolt_profile(head: &[u8]) -> bool {
    looks_like_fdata(head) || head.starts_with(b"---\nheader:")
}
