//! Warnings about the function hashes of front-end (clang, rustc) profiles, which depend on
//! the index version the compiler reads.

use crate::error::Warning;
use crate::ir::{FunctionRecord, Profile};

/// The top 4 bits of a function hash in a front-end profile. Clang 22 and later reserve
/// them (bit 60 marks context-sensitive records) and clear them in the hashes they compute
/// when the profile's index version is 13 or later; clang 21 and earlier, and clang 22
/// reading a version-12 profile, compute MD5-based hashes for larger functions, which use
/// all 64 bits. A front-end profile made by one scheme and read under the other does not
/// match those functions. Other producers of front-end records hash functions their own way:
/// rustc's coverage instrumentation (`-C instrument-coverage`) stores its 64-bit source
/// hashes, which only llvm-cov reads and matches as they are, so functions with Rust symbol
/// names are left out.
pub(super) fn fe_hash_warnings(profile: &Profile<'_>, version: u32, warnings: &mut Vec<Warning>) {
    let clang: Vec<&FunctionRecord<'_>> = profile
        .records
        .iter()
        .filter(|r| {
            !profile
                .names
                .get(r.key.name)
                .is_some_and(|n| is_rust_symbol(n))
        })
        .collect();
    let wide: Vec<&&FunctionRecord<'_>> = clang.iter().filter(|r| r.key.cfg >> 60 != 0).collect();
    if version < 13 {
        if wide.is_empty() && !clang.is_empty() {
            warnings.push(Warning::new(format!(
                "front-end profile written as index version {version}: clang 22 and later then \
                 hash functions with the older scheme; if this profile came from clang 22 or \
                 later, write version 13 (--target-llvm 22)"
            )));
        }
    } else if let Some(first) = wide.first() {
        let name = profile
            .names
            .get(first.key.name)
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .unwrap_or_else(|| format!("{:#018x}", first.key.name));
        warnings.push(Warning::new(format!(
            "front-end profile: {} of {} functions (e.g. {name}) have hashes that use the top \
             4 bits, which clang 22 and later reserve; they were made by clang 21 or earlier, \
             and clang 22 reading index version {version} will not match them: use \
             --target-llvm 19 (version 12) for such profiles",
            wide.len(),
            clang.len(),
        )));
    }
}

/// True for a Rust symbol name: v0 mangling (`_R` then a tag or version digit) or legacy
/// mangling (`_ZN…17h` + 16 hex digits + `E`). A `file;` prefix (local functions) is
/// skipped.
fn is_rust_symbol(name: &[u8]) -> bool {
    let name = name.rsplit(|&b| b == b';').next().unwrap_or(name);
    if let Some(rest) = name.strip_prefix(b"_R") {
        return rest
            .first()
            .is_some_and(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
    }
    name.starts_with(b"_ZN")
        && name.len() > 23
        && name.ends_with(b"E")
        && name[name.len() - 20..name.len() - 17] == *b"17h"
        && name[name.len() - 17..name.len() - 1]
            .iter()
            .all(u8::is_ascii_hexdigit)
}
