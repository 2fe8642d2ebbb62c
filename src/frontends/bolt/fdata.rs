//! The reader of legacy BOLT profiles (`.fdata`, see [`crate::ir::bolt`] for the grammar):
//! lazy and zero-copy, it reads the header lines when made and then yields one
//! [`FdataLine`] view per record line, every field checked as LLVM's own reader
//! (`bolt/lib/Profile/DataReader.cpp`) checks it. A line that is not a record is an error
//! naming the line, the field and what was expected; blank lines are skipped.

use crate::error::{Error, ErrorKind, Result};
use crate::ir::bolt::{FdataLine, FdataLineKind, FdataMode};

/// The first header line of a profile collected on a BOLT-optimised binary.
const BOLTED: &[u8] = b"boltedcollection";
/// The start of the header line of a profile of samples without branch records.
const NO_LBR: &[u8] = b"no_lbr";
/// Longest hexadecimal offset: 64 bits.
const MAX_HEX_DIGITS: usize = 16;
/// How much of a bad line an error message quotes.
const QUOTE_LIMIT: usize = 80;

/// Reads one fdata file's bytes.
#[derive(Debug, Clone)]
pub struct FdataReader<'a> {
    bytes: &'a [u8],
    /// Start of the next line.
    pos: usize,
    /// Number of the line last taken (from 1).
    line: u64,
    mode: FdataMode,
    /// The event names after `no_lbr`, as in the file.
    events: &'a [u8],
}

impl<'a> FdataReader<'a> {
    /// A reader of `bytes`, its header lines read.
    pub fn new(bytes: &'a [u8]) -> FdataReader<'a> {
        let mut r = FdataReader {
            bytes,
            pos: 0,
            line: 0,
            mode: FdataMode::default(),
            events: &[],
        };
        if r.peek_line() == Some(BOLTED) {
            r.take_line();
            r.mode.bolted = true;
        }
        if let Some(l) = r.peek_line().filter(|l| l.starts_with(NO_LBR)) {
            r.take_line();
            r.mode.no_lbr = true;
            r.events = l[NO_LBR.len()..].strip_prefix(b" ").unwrap_or(&[]);
        }
        r
    }

    /// The mode its header lines give.
    pub fn mode(&self) -> FdataMode {
        self.mode
    }

    /// The event names of a `no_lbr` header line (space-separated, as in the file).
    pub fn events(&self) -> &'a [u8] {
        self.events
    }

    /// The next line, without its `\n`, not taken.
    fn peek_line(&self) -> Option<&'a [u8]> {
        let rest = self.bytes.get(self.pos..).filter(|r| !r.is_empty())?;
        Some(match memchr::memchr(b'\n', rest) {
            Some(n) => &rest[..n],
            None => rest,
        })
    }

    /// Takes the next line.
    fn take_line(&mut self) -> Option<&'a [u8]> {
        let l = self.peek_line()?;
        self.pos += l.len() + 1;
        self.line += 1;
        Some(l)
    }
}

impl<'a> Iterator for FdataReader<'a> {
    type Item = Result<FdataLine<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let l = self.take_line()?;
            if !l.is_empty() {
                return Some(parse_line(l, self.line, self.mode.no_lbr));
            }
        }
    }
}

/// The error of line `line`: `detail` says what was expected.
fn bad_line(line: u64, text: &[u8], detail: impl Into<String>) -> Error {
    let shown = &text[..text.len().min(QUOTE_LIMIT)];
    let more = if text.len() > QUOTE_LIMIT { "..." } else { "" };
    Error::at_line(
        line,
        ErrorKind::Malformed {
            what: "fdata line",
            detail: format!(
                "{} (the line: \"{}{more}\")",
                detail.into(),
                shown.escape_ascii()
            ),
        },
    )
}

/// The shape of a record line: its kind, its field names and how many fields of locations
/// come before the counts.
struct Shape {
    kind: FdataLineKind,
    fields: &'static str,
    location_fields: usize,
}

const BRANCH: Shape = Shape {
    kind: FdataLineKind::Branch,
    fields: "T NAME OFFSET T NAME OFFSET MISPREDS COUNT",
    location_fields: 6,
};
const SAMPLE: Shape = Shape {
    kind: FdataLineKind::Sample,
    fields: "T NAME OFFSET COUNT",
    location_fields: 3,
};
const MEMORY: Shape = Shape {
    kind: FdataLineKind::Memory,
    fields: "T NAME OFFSET T NAME OFFSET COUNT",
    location_fields: 6,
};

impl Shape {
    fn field_count(&self) -> usize {
        self.fields.split(' ').count()
    }

    fn describe(&self) -> &'static str {
        match self.kind {
            FdataLineKind::Branch => "a branch line",
            FdataLineKind::Sample => "a sample line (no_lbr profile)",
            FdataLineKind::Memory => "a memory-event line",
        }
    }
}

/// Parses one record line (not blank), numbered `line`; `no_lbr` says how lines whose
/// locations are of type 0–2 read.
fn parse_line(text: &[u8], line: u64, no_lbr: bool) -> Result<FdataLine<'_>> {
    let shape = match text[0] {
        b'0'..=b'2' if no_lbr => SAMPLE,
        b'0'..=b'2' => BRANCH,
        b'3'..=b'5' => MEMORY,
        _ => {
            return Err(bad_line(
                line,
                text,
                "expected a record starting with a location type: 0, 1 or 2 (a branch or \
                 sample), 3, 4 or 5 (a memory event)",
            ));
        }
    };
    let mut ends = [0usize; 8];
    let want = shape.field_count();
    let mut n = 0;
    let mut start = 0;
    for field in text.split(|&b| b == b' ') {
        if n == want {
            return Err(bad_line(
                line,
                text,
                format!(
                    "{} has {want} fields ({}), this one more",
                    shape.describe(),
                    shape.fields
                ),
            ));
        }
        check_field(&shape, n, field).map_err(|d| bad_line(line, text, d))?;
        start += field.len();
        ends[n] = start;
        start += 1;
        n += 1;
    }
    if n < want {
        return Err(bad_line(
            line,
            text,
            format!(
                "{} has {want} fields ({}), this one {n}: truncated?",
                shape.describe(),
                shape.fields
            ),
        ));
    }
    let locations = &text[..ends[shape.location_fields - 1]];
    let signature = &text[..ends[want - 2]];
    let count = decimal(&text[ends[want - 2] + 1..]).map_err(|d| bad_line(line, text, d))?;
    let mispreds = match shape.kind {
        FdataLineKind::Branch => {
            Some(decimal(&text[ends[5] + 1..ends[6]]).map_err(|d| bad_line(line, text, d))?)
        }
        _ => None,
    };
    Ok(FdataLine {
        line,
        kind: shape.kind,
        locations,
        signature,
        mispreds,
        count,
    })
}

/// Checks field `i` of a line of `shape` (the counts are checked when read).
fn check_field(shape: &Shape, i: usize, field: &[u8]) -> std::result::Result<(), String> {
    let name = shape.fields.split(' ').nth(i).unwrap_or("field");
    if field.is_empty() {
        return Err(format!(
            "field {} ({name}) is empty (two spaces in a row?)",
            i + 1
        ));
    }
    if i >= shape.location_fields {
        return Ok(());
    }
    match i % 3 {
        0 => {
            let ok = match shape.kind {
                FdataLineKind::Memory => matches!(field, b"3" | b"4" | b"5"),
                _ => matches!(field, b"0" | b"1" | b"2"),
            };
            if !ok {
                let want = match shape.kind {
                    FdataLineKind::Memory => "3, 4 or 5",
                    _ => "0, 1 or 2",
                };
                return Err(format!(
                    "field {} (a location type) of {} is \"{}\": expected {want}",
                    i + 1,
                    shape.describe(),
                    field.escape_ascii()
                ));
            }
        }
        2 if field.len() > MAX_HEX_DIGITS || !field.iter().all(u8::is_ascii_hexdigit) => {
            return Err(format!(
                "field {} (an offset) is \"{}\": expected a hexadecimal number of at most 64 bits",
                i + 1,
                field.escape_ascii()
            ));
        }
        _ => {}
    }
    Ok(())
}

/// A decimal count of at most 64 bits.
fn decimal(field: &[u8]) -> std::result::Result<u64, String> {
    let bad = || {
        format!(
            "a count is \"{}\": expected a decimal number of at most 64 bits",
            field.escape_ascii()
        )
    };
    if field.is_empty() {
        return Err(bad());
    }
    let mut v: u64 = 0;
    for &b in field {
        if !b.is_ascii_digit() {
            return Err(bad());
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(b - b'0')))
            .ok_or_else(bad)?;
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8]) -> Vec<FdataLine<'_>> {
        FdataReader::new(bytes).map(|l| l.unwrap()).collect()
    }

    #[test]
    fn branch_lines_and_blank_lines() {
        let v = lines(b"1 main 1a 1 main 2f 3 17\n\n0 [unknown] 0 1 f 0 0 5");
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].kind, FdataLineKind::Branch);
        assert_eq!(v[0].locations, b"1 main 1a 1 main 2f");
        assert_eq!(v[0].signature, b"1 main 1a 1 main 2f 3");
        assert_eq!((v[0].mispreds, v[0].count), (Some(3), 17));
        assert_eq!((v[1].line, v[1].count), (3, 5));
    }

    #[test]
    fn headers_samples_and_memory() {
        let r = FdataReader::new(b"boltedcollection\nno_lbr cycles:u\n1 f 10 4\n4 f 1 4 g 0 9\n");
        assert_eq!(
            r.mode(),
            FdataMode {
                bolted: true,
                no_lbr: true
            }
        );
        assert_eq!(r.events(), b"cycles:u");
        let v: Vec<_> = r.map(|l| l.unwrap()).collect();
        assert_eq!(v[0].kind, FdataLineKind::Sample);
        assert_eq!(
            (v[0].locations, v[0].count, v[0].line),
            (&b"1 f 10"[..], 4, 3)
        );
        assert_eq!(v[1].kind, FdataLineKind::Memory);
        assert_eq!((v[1].locations, v[1].count), (&b"4 f 1 4 g 0"[..], 9));
    }

    #[test]
    fn bad_lines_name_line_and_field() {
        let cases: &[(&[u8], &str)] = &[
            (b"1 main 1a 1 main 2f 0 1\n1 main 1a 1 ma", "line 2: "),
            (b"1 main 1a 1 main 2f 0 1x", "a count is \"1x\""),
            (b"1 main 1a 1 main 2f 0 1 9", "this one more"),
            (b"7 main 1a 1 main 2f 0 1", "location type"),
            (b"1 main 1g 1 main 2f 0 1", "(an offset) is \"1g\""),
            (b"1 main  1a 1 main 2f 0 1", "two spaces"),
            (
                b"1 main 1a 1 main 2f 0 99999999999999999999",
                "at most 64 bits",
            ),
            (b"1 main 1a 1 main 2f 0 1\r", "a count is \"1\\r\""),
            (b"no_lbr\n1 main 1a 1 main 2f 0 1", "sample line"),
        ];
        for (input, want) in cases {
            let e = FdataReader::new(input)
                .find_map(|l| l.err())
                .unwrap_or_else(|| panic!("no error for {:?}", input.escape_ascii().to_string()));
            let s = e.to_string();
            assert!(s.contains(want), "{s:?} lacks {want:?}");
            assert!(e.line().is_some(), "{s}");
        }
    }
}
