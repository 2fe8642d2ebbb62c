//! Front-end for text symbol maps of JIT and precompiled managed code:
//!
//! * `/tmp/perf-<pid>.map` ([`PerfMapReader`]): lines `START SIZE name`, written by V8
//!   (`--perf-basic-prof`), CoreCLR, HotSpot (`Compiler.perfmap`), Mono, LuaJIT, CPython.
//!   START and SIZE are hex with or without `0x`, either case; the name is the rest of the
//!   line, spaces included. There is no time: a later line overlapping an earlier one
//!   supersedes it, so the line number serves as a pseudo-timestamp.
//! * .NET ReadyToRun maps (`*.ni.r2rmap`, format version 1) ([`read_r2rmap`]): five header
//!   pseudo-entries (signature, version, OS, architecture, ABI) with tokens `FFFFFFFF` …
//!   `FFFFFFFB` in the RVA column, then `RVA LENGTH name` lines relative to the image base.
//!
//! Errors carry the 1-based line number. Rules follow `shared/formats/perfmap.md` §1.4:
//! split on the first two runs of blanks only; at most 16 significant hex digits; a
//! trailing `\r` is stripped; empty lines are skipped; a START + SIZE that wraps past 2^64
//! is an error.

use crate::error::{Error, ErrorKind, Result, Warning};

/// One line of a perf map or r2rmap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapEntry<'a> {
    /// Start address (perf map) or RVA (r2rmap).
    pub start: u64,
    /// Size in bytes (0 = a point symbol).
    pub size: u64,
    /// The symbol name, exactly as written up to the end of the line or a NUL byte.
    pub name: &'a str,
    /// 1-based line number.
    pub line: u64,
    /// What follows a NUL byte in the line (without the NUL), if the line has one: perf
    /// ends the name at the NUL and ignores the rest of the line, and so does this reader.
    /// .NET 8 writes some entries glued on after a NUL instead of on a line of their own.
    pub after_nul: Option<&'a [u8]>,
}

impl MapEntry<'_> {
    /// True if the text perf ignores after the NUL starts like another entry (`START SIZE
    /// name`).
    pub fn glued_entry(&self) -> bool {
        let Some(rest) = self.after_nul else {
            return false;
        };
        let rest = rest.split(|&b| b == 0).next().unwrap_or_default();
        let head = rest.get(..rest.len().min(80)).unwrap_or_default();
        let text = match std::str::from_utf8(head) {
            Ok(t) => t,
            Err(e) => std::str::from_utf8(head.get(..e.valid_up_to()).unwrap_or_default())
                .unwrap_or_default(),
        };
        matches!(split3(text), Some((a, b, _)) if parse_hex(a).is_some() && parse_hex(b).is_some())
    }
}

fn line_err(line: u64, what: &'static str, detail: impl Into<String>) -> Error {
    Error::at_line(
        line,
        ErrorKind::Malformed {
            what,
            detail: detail.into(),
        },
    )
}

/// Parses a hex number with an optional `0x`/`0X`, at most 16 significant digits.
fn parse_hex(s: &str) -> Option<u64> {
    let d = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if d.is_empty() || !d.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let sig = d.trim_start_matches('0');
    if sig.len() > 16 {
        return None;
    }
    u64::from_str_radix(if sig.is_empty() { "0" } else { sig }, 16).ok()
}

/// Splits `START SIZE name` on the first two runs of blanks.
fn split3(line: &str) -> Option<(&str, &str, &str)> {
    let is_blank = |c: char| c == ' ' || c == '\t';
    let line = line.trim_start_matches(is_blank);
    let (a, rest) = line.split_once(is_blank)?;
    let rest = rest.trim_start_matches(is_blank);
    let (b, name) = match rest.split_once(is_blank) {
        Some((b, n)) => (b, n.trim_start_matches(is_blank)),
        None => (rest, ""),
    };
    Some((a, b, name))
}

/// Parses one non-empty line (without its line terminator).
fn parse_line(line: &str, n: u64) -> Result<MapEntry<'_>> {
    let Some((a, b, name)) = split3(line) else {
        return Err(line_err(
            n,
            "perf map line",
            format!(
                "{:?}: expected `START SIZE name` (hex, hex, text)",
                clip(line)
            ),
        ));
    };
    let start = parse_hex(a).ok_or_else(|| {
        line_err(
            n,
            "perf map START",
            format!("{:?} is not a hex number of at most 16 digits", clip(a)),
        )
    })?;
    let size = parse_hex(b).ok_or_else(|| {
        line_err(
            n,
            "perf map SIZE",
            format!("{:?} is not a hex number of at most 16 digits", clip(b)),
        )
    })?;
    if name.is_empty() {
        return Err(line_err(n, "perf map line", "the symbol name is missing"));
    }
    if start.checked_add(size).is_none() {
        return Err(line_err(
            n,
            "perf map entry",
            format!("START {start:#x} + SIZE {size:#x} wraps past the end of the address space"),
        ));
    }
    Ok(MapEntry {
        start,
        size,
        name,
        line: n,
        after_nul: None,
    })
}

fn clip(s: &str) -> &str {
    match s.char_indices().nth(60) {
        Some((i, _)) => s.get(..i).unwrap_or(s),
        None => s,
    }
}

/// Lines of a text input with their 1-based numbers, `\n` or `\r\n` terminated, blank
/// ones left out.
fn raw_lines(data: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    data.split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| (i as u64 + 1, l.strip_suffix(b"\r").unwrap_or(l)))
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
}

/// A line as text; invalid UTF-8 is an error for that line only.
fn utf8_line(n: u64, l: &[u8]) -> Result<&str> {
    std::str::from_utf8(l).map_err(|e| line_err(n, "text", format!("not UTF-8: {e}")))
}

/// Lines of a text input with their 1-based numbers, `\n` or `\r\n` terminated; invalid
/// UTF-8 is an error for that line only.
fn lines(data: &[u8]) -> impl Iterator<Item = (u64, Result<&str>)> {
    raw_lines(data).map(|(n, l)| (n, utf8_line(n, l)))
}

/// Parses a perf map line as perf reads it: the line ends at a NUL byte, whose rest is
/// kept in [`MapEntry::after_nul`].
fn parse_map_line(n: u64, l: &[u8]) -> Result<MapEntry<'_>> {
    let (head, after_nul) = match memchr::memchr(0, l) {
        Some(i) => (l.get(..i).unwrap_or_default(), l.get(i + 1..)),
        None => (l, None),
    };
    let mut e = parse_line(utf8_line(n, head)?, n)?;
    e.after_nul = after_nul;
    Ok(e)
}

/// Counts the lines of a perf map that have a NUL byte, for one warning.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NulLines {
    /// Lines with a NUL.
    pub lines: u64,
    /// Of those, lines whose ignored rest starts like another entry.
    pub glued: u64,
    /// The first such line.
    pub first: Option<u64>,
}

impl NulLines {
    /// Counts an entry.
    pub fn add(&mut self, e: &MapEntry<'_>) {
        if e.after_nul.is_some() {
            self.lines += 1;
            self.glued += u64::from(e.glued_entry());
            self.first.get_or_insert(e.line);
        }
    }

    /// The warning, if some line has a NUL.
    pub fn warning(&self) -> Option<String> {
        let first = self.first?;
        Some(format!(
            "{} lines have a NUL byte (the first: line {first}); the name ends at the NUL and \
             the rest of the line is ignored, as perf does; {} of them carry another entry \
             glued on after the NUL (.NET 8 writes such lines), whose code stays [unknown] \
             for perf as here",
            self.lines, self.glued
        ))
    }
}

/// Walks the entries of a `perf-<pid>.map`, one `Result` per non-empty line: a bad line is
/// an error with its line number and the walk goes on.
#[derive(Debug, Clone)]
pub struct PerfMapReader<'a> {
    data: &'a [u8],
}

impl<'a> PerfMapReader<'a> {
    /// A reader over the bytes of a map.
    pub fn new(data: &'a [u8]) -> Self {
        PerfMapReader { data }
    }

    /// The entries (or per-line errors) in file order. A NUL byte ends a line's name, as it
    /// does for perf; what follows it is in [`MapEntry::after_nul`].
    pub fn entries(&self) -> impl Iterator<Item = Result<MapEntry<'a>>> + 'a {
        raw_lines(self.data).map(|(n, l)| parse_map_line(n, l))
    }
}

/// True if `data` looks like a perf map: its first line is `HEX HEX name`.
pub fn sniff_perf_map(data: &[u8]) -> bool {
    let line = data.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.get(..line.len().min(512)).unwrap_or_default();
    // The cut may fall inside a multi-byte character: keep the valid prefix.
    let first = match std::str::from_utf8(line) {
        Ok(s) => s,
        Err(e) => {
            std::str::from_utf8(line.get(..e.valid_up_to()).unwrap_or_default()).unwrap_or_default()
        }
    };
    let first = first.strip_suffix('\r').unwrap_or(first);
    matches!(split3(first), Some((a, b, n))
        if parse_hex(a).is_some() && parse_hex(b).is_some() && !n.is_empty())
}

/// True if `data` starts like an r2rmap (its signature pseudo-entry).
pub fn sniff_r2rmap(data: &[u8]) -> bool {
    data.starts_with(b"FFFFFFFF 00 ") || data.starts_with(b"ffffffff 00 ")
}

/// The header of a ReadyToRun map, format version 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct R2rHeader {
    /// The 16-byte signature (MD5 of the input assemblies' MVIDs and the target tokens).
    pub signature: [u8; 16],
    /// Format version.
    pub version: u32,
    /// Target OS token.
    pub os: u32,
    /// Target architecture token.
    pub arch: u32,
    /// Target ABI token.
    pub abi: u32,
}

impl R2rHeader {
    /// The signature as 32 upper-case hex digits, as written.
    pub fn signature_hex(&self) -> String {
        self.signature.iter().map(|b| format!("{b:02X}")).collect()
    }
    /// The OS token's name.
    pub fn os_name(&self) -> &'static str {
        match self.os {
            0 => "Unknown",
            1 => "Windows",
            2 => "Linux",
            3 => "OSX",
            4 => "FreeBSD",
            5 => "NetBSD",
            6 => "SunOS",
            7 => "OpenBSD",
            8 => "Browser",
            9 => "Wasi",
            _ => "(newer than this build knows)",
        }
    }
    /// The architecture token's name.
    pub fn arch_name(&self) -> &'static str {
        match self.arch {
            0 => "Unknown",
            1 => "ARM",
            2 => "ARM64",
            3 => "X64",
            4 => "X86",
            5 => "RiscV64",
            6 => "LoongArch64",
            7 => "Wasm",
            _ => "(newer than this build knows)",
        }
    }
    /// The ABI token's name.
    pub fn abi_name(&self) -> &'static str {
        match self.abi {
            0 => "Unknown",
            1 => "Default",
            2 => "Armel",
            _ => "(newer than this build knows)",
        }
    }
}

/// A ReadyToRun map: header and method entries (RVAs relative to the image base).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct R2rMap<'a> {
    /// The header.
    pub header: R2rHeader,
    /// Method entries in file order.
    pub entries: Vec<MapEntry<'a>>,
    /// Lines that could not be read, with their line numbers.
    pub warnings: Vec<Warning>,
}

/// The header pseudo-entry tokens in their fixed order.
const R2R_TOKENS: [(u32, &str); 5] = [
    (0xFFFF_FFFF, "signature"),
    (0xFFFF_FFFE, "format version"),
    (0xFFFF_FFFD, "target OS"),
    (0xFFFF_FFFC, "target architecture"),
    (0xFFFF_FFFB, "target ABI"),
];

/// Reads a ReadyToRun map. The five header lines are required and checked strictly (token,
/// length 0, value); a version above 1 is refused. Bad method lines become warnings with
/// their line numbers.
pub fn read_r2rmap(data: &[u8]) -> Result<R2rMap<'_>> {
    let mut it = lines(data);
    let mut values = [0u32; 4];
    let mut signature = [0u8; 16];
    for (k, (token, what)) in R2R_TOKENS.iter().enumerate() {
        let Some((n, l)) = it.next() else {
            return Err(Error::at_line(
                k as u64 + 1,
                ErrorKind::Truncated {
                    what: "r2rmap header (5 pseudo-entries: signature, version, OS, architecture, ABI)",
                    needed: 5,
                    available: k as u64,
                },
            ));
        };
        let e = parse_line(l?, n)?;
        if e.start != u64::from(*token) || e.size != 0 {
            return Err(line_err(
                n,
                "r2rmap header",
                format!(
                    "expected the {what} pseudo-entry `{token:08X} 00 …`, found `{:X} {:X} …`",
                    e.start, e.size
                ),
            ));
        }
        if k == 0 {
            let v = e.name.trim();
            if v.len() != 32 || !v.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(line_err(
                    n,
                    "r2rmap signature",
                    format!("{:?}: expected 32 hex digits (16 bytes)", clip(v)),
                ));
            }
            for (i, out) in signature.iter_mut().enumerate() {
                *out = v
                    .get(2 * i..2 * i + 2)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .unwrap_or(0);
            }
        } else {
            let v = e.name.trim();
            let parsed = v.parse::<u32>().map_err(|_| {
                line_err(
                    n,
                    "r2rmap header",
                    format!("{what}: {:?} is not a decimal number", clip(v)),
                )
            })?;
            if let Some(slot) = values.get_mut(k - 1) {
                *slot = parsed;
            }
        }
    }
    let header = R2rHeader {
        signature,
        version: values[0],
        os: values[1],
        arch: values[2],
        abi: values[3],
    };
    if header.version != 1 {
        return Err(Error::at_line(
            2,
            ErrorKind::UnsupportedVersion {
                format: "r2rmap",
                version: u64::from(header.version),
                supported: "this build reads format version 1",
            },
        ));
    }
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    for (n, l) in it {
        match l.and_then(|l| parse_line(l, n)) {
            Ok(e) if e.start > u64::from(u32::MAX) => warnings.push(Warning::at_line(
                n,
                format!("RVA {:#x} does not fit 32 bits; skipped", e.start),
            )),
            Ok(e) => entries.push(e),
            Err(e) => warnings.push(Warning::from_error(&e).append("; skipped")),
        }
    }
    Ok(R2rMap {
        header,
        entries,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_producers_spelling() {
        let map = b"18c4000 300 Builtin:DeoptimizationEntry_Eager\n\
                    0x00007fb9a4ec7640 0x0000000000000130 long Hot.fib(int)\n\
                    \n\
                    00007FB061490018 48 stub<1> AllocateTemporaryEntryPoints<PRECODE_FIXUP>\r\n\
                    7f1e20006e80 180 JS:*fib /a b/work.js:10:13";
        let v: Vec<_> = PerfMapReader::new(map)
            .entries()
            .map(Result::unwrap)
            .collect();
        assert_eq!(v.len(), 4);
        assert_eq!((v[0].start, v[0].size), (0x18c4000, 0x300));
        assert_eq!(
            (v[1].start, v[1].size, v[1].name),
            (0x7fb9a4ec7640, 0x130, "long Hot.fib(int)")
        );
        assert_eq!(v[2].line, 4);
        assert_eq!(
            v[2].name,
            "stub<1> AllocateTemporaryEntryPoints<PRECODE_FIXUP>"
        );
        assert_eq!(v[3].name, "JS:*fib /a b/work.js:10:13");
        assert!(sniff_perf_map(map));
        assert!(!sniff_perf_map(b"# IR level\n"));
    }

    #[test]
    fn a_nul_ends_the_line_as_for_perf() {
        // .NET 8: an entry glued on after a NUL; the bytes after a NUL need not be UTF-8.
        let map =
            b"0x7f52 22 bool [JitWork] P::<Main>m__2(int64)[QuickJitted]\x000x7f60 20 int64 X::Y()\n\
                    0x7f80 10 a\0\xff\xfe\n\
                    0x7f90 10 b\n";
        let v: Vec<_> = PerfMapReader::new(map)
            .entries()
            .map(Result::unwrap)
            .collect();
        let names: Vec<_> = v.iter().map(|e| (e.start, e.name)).collect();
        assert_eq!(
            names,
            vec![
                (0x7f52, "bool [JitWork] P::<Main>m__2(int64)[QuickJitted]"),
                (0x7f80, "a"),
                (0x7f90, "b")
            ]
        );
        assert!(v[0].glued_entry() && !v[1].glued_entry() && !v[2].glued_entry());
        let mut n = NulLines::default();
        v.iter().for_each(|e| n.add(e));
        assert_eq!((n.lines, n.glued, n.first), (2, 1, Some(1)));
        assert!(n.warning().unwrap().contains("as perf does"));
    }

    #[test]
    fn bad_lines_name_their_line() {
        let map = b"00007FB0614AABEG 130 bool Ignored\n\
                    FAAFFFFFFFFFFFFFF 300 x\n\
                    FFFFFFFFFFFFFFFE 100 TooBig(char)\n\
                    10 20\n";
        let v: Vec<_> = PerfMapReader::new(map).entries().collect();
        let lines: Vec<_> = v.iter().map(|r| r.as_ref().unwrap_err().line()).collect();
        assert_eq!(lines, vec![Some(1), Some(2), Some(3), Some(4)]);
        let e = v[2].as_ref().unwrap_err().to_string();
        assert!(e.contains("line 3") && e.contains("wraps"), "{e}");
    }

    #[test]
    fn r2rmap_header_and_entries() {
        let m = b"FFFFFFFF 00 734D59D6DE0E96AA3C77B3E2ED498097\n\
                  FFFFFFFE 00 1\nFFFFFFFD 00 2\nFFFFFFFC 00 3\nFFFFFFFB 00 1\n\
                  000115D0 0D Microsoft.CodeAnalysis.EmbeddedAttribute::.ctor()\n\
                  00011680 10 System.Boolean System.SR::UsingResourceKeys()\n";
        let r = read_r2rmap(m).unwrap();
        assert_eq!(r.header.signature_hex(), "734D59D6DE0E96AA3C77B3E2ED498097");
        assert_eq!(
            (
                r.header.version,
                r.header.os_name(),
                r.header.arch_name(),
                r.header.abi_name()
            ),
            (1, "Linux", "X64", "Default")
        );
        assert_eq!(r.entries.len(), 2);
        assert_eq!((r.entries[1].start, r.entries[1].size), (0x11680, 0x10));
        assert!(sniff_r2rmap(m));
        let bad = b"FFFFFFFF 00 734D\n";
        assert_eq!(read_r2rmap(bad).unwrap_err().line(), Some(1));
        let v2 = b"FFFFFFFF 00 734D59D6DE0E96AA3C77B3E2ED498097\nFFFFFFFE 00 2\nFFFFFFFD 00 2\nFFFFFFFC 00 3\nFFFFFFFB 00 1\n";
        assert!(
            read_r2rmap(v2)
                .unwrap_err()
                .to_string()
                .contains("version 2")
        );
    }
}
