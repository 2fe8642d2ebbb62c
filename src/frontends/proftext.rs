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
//! Merges read text inputs with [`scan_cached`] (module `fast`): the same records, read at
//! close to the speed of scanning the bytes into one counter buffer and one store of value
//! sites per file (no record built), with names hashed once per merge; it hands anything
//! unusual back to [`read`]. [`read_cached`] is the same reader with the records built.

mod fast;

use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::ir::name_hash::md5_hash;
use crate::ir::{
    Counters, FunctionKey, FunctionRecord, Profile, ProfileKind, Provenance, SymbolTable,
    TemporalProfile, TemporalTrace, ValueCount, ValueKind, ValueProfile, ValueSite,
};

pub use fast::{TextNameCache, TextScan, read as read_cached, scan as scan_cached};

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
fn raw_hash(s: &str) -> Option<u64> {
    let h = s.strip_prefix("0x")?;
    if h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()) {
        u64::from_str_radix(h, 16).ok()
    } else {
        None
    }
}

/// Lines without blanks and comments, with 1-based numbers.
struct Lines<'a> {
    inner: std::iter::Peekable<std::iter::Enumerate<std::str::Lines<'a>>>,
    last: u64,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines {
            inner: text.lines().enumerate().peekable(),
            last: 0,
        }
    }
    fn skip_blanks(&mut self) {
        while let Some((_, l)) = self.inner.peek() {
            let l = l.strip_suffix('\r').unwrap_or(l);
            if l.is_empty() || l.starts_with('#') {
                self.inner.next();
            } else {
                break;
            }
        }
    }
    fn peek(&mut self) -> Option<&'a str> {
        self.skip_blanks();
        self.inner
            .peek()
            .map(|(_, l)| l.strip_suffix('\r').unwrap_or(l))
    }
    fn next(&mut self, what: &'static str) -> Result<(u64, &'a str)> {
        self.skip_blanks();
        match self.inner.next() {
            Some((i, l)) => {
                self.last = i as u64 + 1;
                Ok((self.last, l.strip_suffix('\r').unwrap_or(l)))
            }
            None => Err(Error::at_line(
                self.last + 1,
                ErrorKind::Truncated {
                    what,
                    needed: 1,
                    available: 0,
                },
            )),
        }
    }
}

fn bad(line: u64, what: &'static str, detail: impl Into<String>) -> Error {
    Error::at_line(
        line,
        ErrorKind::Malformed {
            what,
            detail: detail.into(),
        },
    )
}

fn number(line: u64, s: &str, what: &'static str) -> Result<u64> {
    parse_radix(s, 10).ok_or_else(|| bad(line, what, format!("{s:?} is not a decimal number")))
}

/// Reads a text profile.
pub fn read(data: &[u8]) -> Result<Profile<'static>> {
    let text = std::str::from_utf8(data).map_err(|e| {
        Error::at(
            e.valid_up_to() as u64,
            ErrorKind::Malformed {
                what: "text profile",
                detail: "not valid UTF-8".into(),
            },
        )
    })?;
    let mut lines = Lines::new(text);
    let mut kind = ProfileKind::empty();
    let mut names = SymbolTable::new();
    let mut vtable_names = SymbolTable::new();
    let mut temporal = TemporalProfile::default();

    // Header.
    while let Some(l) = lines.peek() {
        let Some(word) = l.strip_prefix(':') else {
            break;
        };
        let (n, _) = lines.next("header")?;
        match word.to_ascii_lowercase().as_str() {
            "ir" => kind.insert(ProfileKind::IR),
            "fe" => kind.insert(ProfileKind::FRONTEND),
            "csir" => kind.insert(ProfileKind::IR.union(ProfileKind::CONTEXT_SENSITIVE)),
            "entry_first" => kind.insert(ProfileKind::ENTRY_FIRST),
            "not_entry_first" => kind.remove(ProfileKind::ENTRY_FIRST),
            "single_byte_coverage" => kind.insert(ProfileKind::BYTE_COVERAGE),
            "instrument_loop_entries" => kind.insert(ProfileKind::LOOP_ENTRIES),
            "temporal_prof_traces" => {
                kind.insert(ProfileKind::TEMPORAL);
                let (ln, s) = lines.next("number of temporal traces")?;
                let count = parse_auto_radix(s).ok_or_else(|| {
                    bad(
                        ln,
                        "number of temporal traces",
                        format!("{s:?} is not a number"),
                    )
                })?;
                let (ln, s) = lines.next("temporal trace stream size")?;
                temporal.stream_size = parse_auto_radix(s).ok_or_else(|| {
                    bad(
                        ln,
                        "temporal trace stream size",
                        format!("{s:?} is not a number"),
                    )
                })?;
                for _ in 0..count {
                    let (ln, s) = lines.next("temporal trace weight")?;
                    let weight = parse_auto_radix(s).ok_or_else(|| {
                        bad(
                            ln,
                            "temporal trace weight",
                            format!("{s:?} is not a number"),
                        )
                    })?;
                    let (_, s) = lines.next("temporal trace functions")?;
                    let functions = s
                        .split(',')
                        .map(str::trim)
                        .filter(|f| !f.is_empty())
                        .map(|f| names.insert(f.as_bytes()))
                        .collect();
                    temporal.traces.push(TemporalTrace { weight, functions });
                }
            }
            other => {
                return Err(bad(
                    n,
                    "header line",
                    format!(
                        ":{other} is not a known header (ir, fe, csir, entry_first, not_entry_first, \
                         single_byte_coverage, instrument_loop_entries, temporal_prof_traces)"
                    ),
                ));
            }
        }
    }
    if kind.contains(ProfileKind::IR) {
        kind.remove(ProfileKind::FRONTEND);
    } else {
        kind.insert(ProfileKind::FRONTEND);
    }

    // Records.
    let mut records = Vec::new();
    while lines.peek().is_some() {
        let (_, name) = lines.next("function name")?;
        let name_hash = names.insert(name.as_bytes());
        let (ln, s) = lines.next("function hash")?;
        let cfg = parse_auto_radix(s)
            .ok_or_else(|| bad(ln, "function hash", format!("{s:?} is not a valid integer")))?;
        let (ln, s) = lines.next("number of counters")?;
        let n = number(ln, s, "number of counters")?;
        if n == 0 {
            return Err(bad(ln, "number of counters", "is zero"));
        }
        let mut counters = Vec::with_capacity(n.min(1 << 20) as usize);
        for _ in 0..n {
            let (ln, s) = lines.next("counter")?;
            counters.push(number(ln, s, "counter")?);
        }
        let mut bitmap = Vec::new();
        if let Some(l) = lines.peek()
            && let Some(count) = l.strip_prefix('$')
        {
            let (ln, _) = lines.next("number of bitmap bytes")?;
            let nb = parse_auto_radix(count.trim()).ok_or_else(|| {
                bad(
                    ln,
                    "number of bitmap bytes",
                    format!("{count:?} is not a valid integer"),
                )
            })?;
            for _ in 0..nb {
                let (ln, s) = lines.next("bitmap byte")?;
                let b = parse_auto_radix(s)
                    .and_then(|v| u8::try_from(v).ok())
                    .ok_or_else(|| bad(ln, "bitmap byte", format!("{s:?} is not a byte value")))?;
                bitmap.push(b);
            }
        }
        let values = read_values(&mut lines, &mut names, &mut vtable_names)?;
        records.push(FunctionRecord {
            key: FunctionKey {
                name: name_hash,
                cfg,
            },
            counters: Counters::Owned(counters),
            bitmap: bitmap.into(),
            values,
        });
    }

    Ok(Profile {
        kind,
        records,
        names: Arc::new(names),
        vtable_names: Arc::new(vtable_names),
        binary_ids: Vec::new(),
        temporal,
        uncorrelated_counters: 0,
        stored_summaries: None,
        layout: None,
        provenance: Provenance {
            path: None,
            format: "text profile".into(),
        },
    })
}

fn read_values(
    lines: &mut Lines<'_>,
    names: &mut SymbolTable,
    vtable_names: &mut SymbolTable,
) -> Result<Option<Box<ValueProfile>>> {
    // No value data unless the next line is a number (otherwise it is the next name).
    let Some(l) = lines.peek() else {
        return Ok(None);
    };
    let Some(nkinds) = parse_radix(l, 10) else {
        return Ok(None);
    };
    let (ln, _) = lines.next("number of value kinds")?;
    if nkinds == 0 || nkinds > ValueKind::COUNT as u64 {
        return Err(bad(
            ln,
            "number of value kinds",
            format!("{nkinds} is not 1, 2 or 3"),
        ));
    }
    let mut v = ValueProfile::default();
    for _ in 0..nkinds {
        let (ln, s) = lines.next("value kind")?;
        let k = number(ln, s, "value kind")?;
        let kind = u32::try_from(k)
            .ok()
            .and_then(ValueKind::from_u32)
            .ok_or_else(|| bad(ln, "value kind", format!("{k} is not 0, 1 or 2")))?;
        let (ln, s) = lines.next("number of value sites")?;
        let nsites = number(ln, s, "number of value sites")?;
        let mut sites = Vec::with_capacity(nsites.min(1 << 16) as usize);
        for _ in 0..nsites {
            let (ln, s) = lines.next("number of values at a site")?;
            let nvalues = number(ln, s, "number of values at a site")?;
            let mut site = ValueSite::default();
            for _ in 0..nvalues {
                let (ln, s) = lines.next("value")?;
                let (val, count) = s
                    .rsplit_once(':')
                    .ok_or_else(|| bad(ln, "value", format!("{s:?} is not VALUE:COUNT")))?;
                let count = number(ln, count, "value count")?;
                let value = match kind {
                    ValueKind::MemOpSize => number(ln, val, "value")?,
                    _ if val == EXTERNAL_SYMBOL => 0,
                    // llvm-profdata refuses these too ("symbol name is empty").
                    _ if val.is_empty() => {
                        return Err(bad(ln, "value", "the symbol name is empty"));
                    }
                    _ => match raw_hash(val) {
                        Some(h) if !names.contains(md5_hash(val.as_bytes())) => h,
                        _ if kind == ValueKind::VTable => vtable_names.insert(val.as_bytes()),
                        _ => names.insert(val.as_bytes()),
                    },
                };
                site.values.push(ValueCount { value, count });
            }
            sites.push(site);
        }
        if !sites.is_empty() {
            *v.kind_mut(kind) = sites;
        }
    }
    Ok((!v.is_empty()).then(|| Box::new(v)))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
