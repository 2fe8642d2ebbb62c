//! Front-end for LLVM's text profile format (`.proftext`).
//!
//! Header lines start with `:` (`ir`, `fe`, `csir`, `entry_first`, `not_entry_first`,
//! `single_byte_coverage`, `instrument_loop_entries`, `temporal_prof_traces` followed by its
//! traces); then records: name, structural hash (radix from its prefix, as LLVM's
//! `getAsInteger(0)`), counter count, counters, optionally `$N` and N bitmap bytes, optionally
//! value data. Empty lines and lines starting with `#` are skipped everywhere.
//!
//! Values of indirect-call and vtable sites are names, hashed with MD5; `** External Symbol **`
//! is 0. As an extension, `0x` followed by exactly 16 hex digits is read as the hash itself, so
//! that targets whose names are unknown survive a text round trip (our writer prints them that
//! way; llvm-profdata prints them as external symbols and loses them).
//!
//! One reader (module `reader`, one grammar) describes a file as its records lie: counters
//! in one buffer, value sites in one store, names hashed once per merge through a
//! [`TextNameCache`] ([`TextScan`]). A merge folds that description ([`scan_cached`]);
//! [`read`] builds IR records from it.

mod cache;
mod lines;
mod reader;

use crate::error::Result;
use crate::ir::Profile;

pub use cache::TextNameCache;
pub use reader::{TextScan, scan};

/// The literal LLVM uses for a value with no known name.
pub const EXTERNAL_SYMBOL: &str = "** External Symbol **";

/// Parses an unsigned integer the way LLVM's `StringRef::getAsInteger(0, …)` does: `0x`/`0X`
/// hex, `0b`/`0B` binary, `0o`/`0O` octal, a leading `0` octal, otherwise decimal; the whole
/// string must be consumed.
pub fn parse_auto_radix(s: &str) -> Option<u64> {
    let (digits, radix) = if let Some(r) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (r, 16)
    } else if let Some(r) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        (r, 2)
    } else if let Some(r) = s.strip_prefix("0o").or_else(|| s.strip_prefix("0O")) {
        (r, 8)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    parse_radix(digits, radix)
}

/// Parses digits of `radix` (no sign, no whitespace, non-empty).
pub fn parse_radix(s: &str, radix: u32) -> Option<u64> {
    if s.is_empty() || !s.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(s, radix).ok()
}

/// True if `data` looks like a text profile: LLVM's rule (the first min(8, size) bytes are
/// printable or whitespace), and then, after blank lines and `#` comments, either a `:`
/// header line (`:ir`, `:fe`, …: LLVM's header syntax; an unknown word is then a text-profile
/// error with its line), or the first record's name line followed by a line that parses as
/// its structural hash (as [`read`] parses it), or nothing at all (an empty profile, as LLVM
/// reads one). Any other text (`notes.txt`, `Cargo.toml`, a one-line file) is not a text
/// profile, so that it is reported as an unrecognised format instead of by a line of a
/// record it never was.
///
/// `data` must hold the file up to the first record's hash line: a head cut before it reads
/// as not a text profile.
pub fn sniff(data: &[u8]) -> bool {
    let head = &data[..data.len().min(8)];
    if !head
        .iter()
        .all(|&b| b.is_ascii_graphic() || b == b' ' || (b'\t'..=b'\r').contains(&b))
    {
        return false;
    }
    let mut lines = data
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| !l.is_empty() && !l.starts_with(b"#"));
    let Some(first) = lines.next() else {
        return true;
    };
    if first.starts_with(b":") {
        return true;
    }
    lines
        .next()
        .and_then(|l| std::str::from_utf8(l).ok())
        .and_then(parse_auto_radix)
        .is_some()
}

/// A hash written as `0x` + 16 hex digits (our extension for unnamed targets).
pub(crate) fn raw_hash(s: &str) -> Option<u64> {
    let h = s.strip_prefix("0x")?;
    if h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()) {
        u64::from_str_radix(h, 16).ok()
    } else {
        None
    }
}

/// Reads a text profile into IR records (errors name the line).
pub fn read(data: &[u8]) -> Result<Profile<'static>> {
    let s = scan(data, &TextNameCache::new())?;
    let records = s.records();
    Ok(Profile {
        records,
        ..s.profile
    })
}

/// Describes a text profile for a merge, its names hashed through `cache`; `None` if it is
/// not one (then [`read`] gives the error, with its line).
pub fn scan_cached(data: &[u8], cache: &TextNameCache) -> Option<TextScan> {
    scan(data, cache).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::name_hash::md5_hash;
    use crate::ir::{ProfileKind, ValueCount, ValueKind};

    #[test]
    fn auto_radix_like_llvm() {
        assert_eq!(
            parse_auto_radix("391958515247906348"),
            Some(391958515247906348)
        );
        assert_eq!(parse_auto_radix("0x13"), Some(0x13));
        assert_eq!(parse_auto_radix("017"), Some(15));
        assert_eq!(parse_auto_radix("0b101"), Some(5));
        assert_eq!(parse_auto_radix("0"), Some(0));
        assert_eq!(parse_auto_radix(""), None);
        assert_eq!(parse_auto_radix("12a"), None);
        assert_eq!(parse_auto_radix("-1"), None);
        assert_eq!(parse_auto_radix("08"), None);
    }

    #[test]
    fn reads_the_reference_example() {
        let text = "# IR level Instrumentation Flag\n:ir\nmain\n# Func Hash:\n391958515247906348\n\
                    # Num Counters:\n2\n# Counter Values:\n50\n100\n# Num Value Kinds:\n2\n\
                    # ValueKind = IPVK_IndirectCallTarget:\n0\n# NumValueSites:\n1\n3\nneg:53\n\
                    ** External Symbol **:34\n0x00000000000000ff:13\n# ValueKind = IPVK_MemOPSize:\n\
                    1\n# NumValueSites:\n1\n1\n17:50\n\nnever\n3\n1\n0\n";
        let p = read(text.as_bytes()).unwrap();
        assert!(p.kind.contains(ProfileKind::IR));
        assert_eq!(p.records.len(), 2);
        let v = p.records[0].values.as_ref().unwrap();
        let ic = &v.kind(ValueKind::IndirectCall)[0].values;
        assert_eq!(ic[0].value, md5_hash(b"neg"));
        assert_eq!(ic[1].value, 0);
        assert_eq!(ic[2].value, 0xff);
        assert_eq!(
            v.kind(ValueKind::MemOpSize)[0].values[0],
            ValueCount {
                value: 17,
                count: 50
            }
        );
        assert_eq!(p.records[1].key.cfg, 3);
        assert!(p.records[1].values.is_none());
    }

    #[test]
    fn sniffs_text_profiles_not_other_text() {
        for yes in [
            &b"# IR level Instrumentation Flag\n:ir\nmain\n# Func Hash:\n12\n1\n5\n"[..],
            b":bogus\n",
            b"main\n12\n1\n5\n",
            b"main\r\n0x1f\r\n",
            b"\n\n# only comments\n",
            b"f\n0\n",
            b"name with spaces\n\n# Func Hash:\n017\n",
        ] {
            assert!(sniff(yes), "{:?}", String::from_utf8_lossy(yes));
        }
        for no in [
            &b"hello world\nthis is notes\n"[..],
            b"line 2\n",
            b"[package]\nname = \"pgo-merge\"\n",
            b"main\n",
            b"main\n-1\n",
            b"main\n12 \n",
            b"\x7fELF\x02\x01\x01\x00",
        ] {
            assert!(!sniff(no), "{:?}", String::from_utf8_lossy(no));
        }
    }

    #[test]
    fn errors_name_the_line() {
        let e = read(b":ir\nmain\n12\nx\n").unwrap_err();
        assert_eq!(e.line(), Some(4), "{e}");
        let e = read(b":bogus\n").unwrap_err();
        assert_eq!(e.line(), Some(1));
        let e = read(b"f\n1\n2\n5\n").unwrap_err();
        assert!(e.to_string().contains("counter"), "{e}");
        let e = read(b"f\n1\n0\n").unwrap_err();
        assert!(e.to_string().contains("zero"), "{e}");
        // An indirect-call target with no name (llvm-profdata: "symbol name is empty").
        let e = read(b"f\n1\n1\n5\n1\n0\n1\n1\n:10\n").unwrap_err();
        assert_eq!(e.line(), Some(9), "{e}");
        assert!(e.to_string().contains("symbol name is empty"), "{e}");
    }

    #[test]
    fn reads_windows_line_ends_non_ascii_names_and_leading_zeros() {
        let lf = ":ir\nfé\n0x10\n2\n5\n0000000000000000000000007\n1\n0\n1\n1\ng:3\n";
        let a = read(lf.as_bytes()).unwrap();
        let b = read(lf.replace('\n', "\r\n").as_bytes()).unwrap();
        assert_eq!(a.records, b.records);
        assert_eq!(a.records[0].key.name, md5_hash("fé".as_bytes()));
        assert_eq!(a.records[0].counters.get(1), Some(7));
        // The last line may end in a carriage return without a newline.
        let c = read(b"f\n1\n1\n5\r").unwrap();
        assert_eq!(c.records[0].counters.get(0), Some(5));
        // Errors name the same lines either way.
        let e = read(b"f\r\n1\r\n2\r\n\r\n5\r\nx\r\n").unwrap_err();
        assert_eq!(e.line(), Some(6), "{e}");
        let e = read(b"f\xff\n1\n1\n5\n").unwrap_err();
        assert!(e.to_string().contains("UTF-8"), "{e}");
    }

    #[test]
    fn reads_temporal_traces_and_raw_hash_targets() {
        let t = ":ir\n:temporal_prof_traces\n1\n4\n10\n f , g,\nf\n1\n1\n5\n1\n0\n1\n2\n\
                 0x00000000000000ff:3\nf:4\n";
        let p = read(t.as_bytes()).unwrap();
        assert_eq!(p.temporal.stream_size, 4);
        assert_eq!(p.temporal.traces[0].weight, 10);
        assert_eq!(
            p.temporal.traces[0].functions,
            [md5_hash(b"f"), md5_hash(b"g")]
        );
        assert!(p.names.contains(md5_hash(b"g")));
        let site = &p.records[0]
            .values
            .as_ref()
            .unwrap()
            .kind(ValueKind::IndirectCall)[0];
        assert_eq!(site.values[0].value, 0xff);
        assert_eq!(site.values[1].value, md5_hash(b"f"));
        // A raw hash that is the name of a function met before is that name.
        let t = "0x00000000000000ff\n1\n1\n5\n1\n0\n1\n1\n0x00000000000000ff:3\n";
        let p = read(t.as_bytes()).unwrap();
        let site = &p.records[0]
            .values
            .as_ref()
            .unwrap()
            .kind(ValueKind::IndirectCall)[0];
        assert_eq!(site.values[0].value, md5_hash(b"0x00000000000000ff"));
    }

    #[test]
    fn more_counters_than_lines_fail_at_the_end_of_the_file() {
        let e = read(b"f\n1\n999999999999\n5\n\n").unwrap_err();
        assert_eq!(e.line(), Some(5), "{e}");
        assert!(e.to_string().contains("counter"), "{e}");
        let e = read(b"f\n1\n999999999999\n5\nx\n").unwrap_err();
        assert_eq!(e.line(), Some(5), "{e}");
    }
}
