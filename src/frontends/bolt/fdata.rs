//! The reader of legacy BOLT profiles (`.fdata`, see [`crate::ir::bolt`] for the grammar):
//! lazy and zero-copy, it reads the header lines when made and then yields one
//! [`FdataLine`] view per record line, every field checked as LLVM's own reader
//! (`bolt/lib/Profile/DataReader.cpp`) checks it. A line that is not a record is an error
//! naming the line, the field and what was expected; blank lines are skipped.

use crate::error::{Error, ErrorKind, Result};
use crate::ir::bolt::{DecimalText, FdataLine, FdataLineKind, FdataLoc, FdataMode, HexText};

/// The first header line of a profile collected on a BOLT-optimised binary.
const BOLTED: &[u8] = b"boltedcollection";
/// The start of the header line of a profile of samples without branch records.
const NO_LBR: &[u8] = b"no_lbr";
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
            r.events = l[NO_LBR.len()..].trim_ascii_start();
        }
        r
    }

    /// The mode its header lines give.
    pub fn mode(&self) -> FdataMode {
        self.mode
    }

    /// The event names of a `no_lbr` header line (separated by spaces or tabs, as in the
    /// file).
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

/// The shape of a record line: its kind, its field names and how many locations come
/// before the counts.
struct Shape {
    kind: FdataLineKind,
    fields: &'static str,
    /// Number of fields.
    field_count: usize,
    /// Number of locations (three fields each).
    locs: usize,
}

const BRANCH: Shape = Shape {
    kind: FdataLineKind::Branch,
    fields: "T NAME OFFSET T NAME OFFSET MISPREDS COUNT",
    field_count: 8,
    locs: 2,
};
const SAMPLE: Shape = Shape {
    kind: FdataLineKind::Sample,
    fields: "T NAME OFFSET COUNT",
    field_count: 4,
    locs: 1,
};
const MEMORY: Shape = Shape {
    kind: FdataLineKind::Memory,
    fields: "T NAME OFFSET T NAME OFFSET COUNT",
    field_count: 7,
    locs: 2,
};

impl Shape {
    fn describe(&self) -> &'static str {
        match self.kind {
            FdataLineKind::Branch => "a branch line",
            FdataLineKind::Sample => "a sample line (no_lbr profile)",
            FdataLineKind::Memory => "a memory-event line",
        }
    }

    /// The name of field `i` (from 0).
    fn field_name(&self, i: usize) -> &'static str {
        self.fields.split(' ').nth(i).unwrap_or("field")
    }

    /// The location types its lines take.
    fn types(&self) -> (u8, u8, &'static str) {
        match self.kind {
            FdataLineKind::Memory => (3, 5, "3, 4 or 5"),
            _ => (0, 2, "0, 1 or 2"),
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
    let want = shape.field_count;
    // starts[i]: where field i starts; starts[want]: one past the end of the line plus one.
    let mut starts = [0usize; 9];
    let n = spaces(text, &mut starts[1..want]) + 1;
    if n != want {
        return Err(field_count_error(&shape, line, text, n));
    }
    starts[want] = text.len() + 1;
    let field = |i: usize| &text[starts[i]..starts[i + 1] - 1];
    if let Some(i) = (0..want).find(|&i| field(i).is_empty()) {
        return Err(empty_field_error(&shape, line, text, i));
    }
    let mut locs = [FdataLoc::default(); 2];
    for (k, loc) in locs.iter_mut().enumerate().take(shape.locs) {
        *loc = parse_loc(
            &shape,
            [field(3 * k), field(3 * k + 1), field(3 * k + 2)],
            3 * k,
        )
        .map_err(|d| bad_line(line, text, d))?;
    }
    let count = decimal(field(want - 1)).map_err(|d| bad_line(line, text, d))?;
    let mispreds = match shape.kind {
        FdataLineKind::Branch => Some(decimal(field(6)).map_err(|d| bad_line(line, text, d))?),
        _ => None,
    };
    let end_of = |i: usize| starts[i + 1] - 1;
    Ok(FdataLine {
        line,
        kind: shape.kind,
        locations: &text[..end_of(3 * shape.locs - 1)],
        signature: &text[..end_of(want - 2)],
        locs,
        mispreds,
        count: count.value,
    })
}

/// Puts one past each space of `text` into `after` while there is room; the number of
/// spaces, counted up to one more than the room.
///
/// Lines are short (about 90 bytes) and have a space every 10 bytes or so: eight bytes are
/// looked at a time (no call per space).
#[inline]
fn spaces(text: &[u8], after: &mut [usize]) -> usize {
    let mut n = 0;
    let mut note = |pos: usize| {
        if n < after.len() {
            after[n] = pos + 1;
        }
        n += 1;
        n > after.len()
    };
    let mut words = text.chunks_exact(8);
    for (w, word) in words.by_ref().enumerate() {
        let x = u64::from_le_bytes(word.try_into().unwrap_or([0; 8])) ^ 0x2020_2020_2020_2020;
        // The high bit of each byte of `x` that is zero (exactly: no borrow between bytes).
        let mut m =
            !(((x & 0x7f7f_7f7f_7f7f_7f7f) + 0x7f7f_7f7f_7f7f_7f7f) | x | 0x7f7f_7f7f_7f7f_7f7f);
        while m != 0 {
            if note(8 * w + (m.trailing_zeros() / 8) as usize) {
                return n;
            }
            m &= m - 1;
        }
    }
    let base = text.len() - words.remainder().len();
    for (i, &b) in words.remainder().iter().enumerate() {
        if b == b' ' && note(base + i) {
            return n;
        }
    }
    n
}

/// The error of a line of `shape` with `n` fields.
#[cold]
fn field_count_error(shape: &Shape, line: u64, text: &[u8], n: usize) -> Error {
    let want = shape.field_count;
    let empty = text.split(|&b| b == b' ').position(<[u8]>::is_empty);
    if let Some(i) = empty.filter(|&i| i < want) {
        return empty_field_error(shape, line, text, i);
    }
    let detail = if n > want {
        format!(
            "{} has {want} fields ({}), this one more",
            shape.describe(),
            shape.fields
        )
    } else {
        format!(
            "{} has {want} fields ({}), this one {n}: truncated?",
            shape.describe(),
            shape.fields
        )
    };
    bad_line(line, text, detail)
}

/// The error of a line whose field `i` (from 0) is empty.
#[cold]
fn empty_field_error(shape: &Shape, line: u64, text: &[u8], i: usize) -> Error {
    let detail = format!(
        "field {} ({}) is empty (two spaces in a row?)",
        i + 1,
        shape.field_name(i)
    );
    bad_line(line, text, detail)
}

/// The location whose fields (type, name, offset) are `f`, the first of them field `i`
/// (from 0) of a line of `shape`.
#[inline]
fn parse_loc<'a>(
    shape: &Shape,
    f: [&'a [u8]; 3],
    i: usize,
) -> std::result::Result<FdataLoc<'a>, String> {
    let (lo, hi, want) = shape.types();
    let kind = match f[0] {
        [t] if (b'0' + lo..=b'0' + hi).contains(t) => t - b'0',
        _ => {
            return Err(format!(
                "field {} (a location type) of {} is \"{}\": expected {want}",
                i + 1,
                shape.describe(),
                f[0].escape_ascii()
            ));
        }
    };
    let Some(offset) = HexText::parse(f[2]) else {
        return Err(format!(
            "field {} (an offset) is \"{}\": expected a hexadecimal number of at most 64 bits",
            i + 3,
            f[2].escape_ascii()
        ));
    };
    Ok(FdataLoc {
        kind,
        name: f[1],
        offset,
    })
}

/// A decimal count (or misprediction field) of at most 64 bits, kept with the length of
/// its text.
fn decimal(field: &[u8]) -> std::result::Result<DecimalText, String> {
    DecimalText::parse(field).ok_or_else(|| {
        format!(
            "a count is \"{}\": expected a decimal number of at most 64 bits (and 250 digits)",
            field.escape_ascii()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8]) -> Vec<FdataLine<'_>> {
        FdataReader::new(bytes).map(|l| l.unwrap()).collect()
    }

    #[test]
    fn spaces_are_found_in_every_position() {
        for len in 0..40 {
            for mask in [
                0u64,
                1,
                0x5555_5555_5555,
                0x00ff_ffff_ffff,
                0x8000_0001_0000_0003,
            ] {
                let text: Vec<u8> = (0..len)
                    .map(|i| {
                        if mask >> (i % 64) & 1 == 1 {
                            b' '
                        } else {
                            b'x' + (i % 3) as u8
                        }
                    })
                    .collect();
                let want: Vec<usize> = (0..len)
                    .filter(|&i| text[i] == b' ')
                    .map(|i| i + 1)
                    .collect();
                let mut after = [0usize; 7];
                let n = spaces(&text, &mut after);
                assert_eq!(n, want.len().min(8), "{len} {mask:x}");
                let k = n.min(7);
                assert_eq!(after[..k], want[..k], "{len} {mask:x}");
            }
        }
        // Bytes next to the space (0x1f, 0x21, 0xa0) are not spaces.
        let mut after = [0usize; 7];
        assert_eq!(spaces(b"\x1f!\xa0 \x20\xa0\x1f\x21 ", &mut after), 3);
        assert_eq!(after[..3], [4, 5, 9]);
    }

    #[test]
    fn branch_lines_and_blank_lines() {
        let v = lines(b"1 main 1a 1 main 2f 3 17\n\n0 [unknown] 0 1 f 0 0 5");
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].kind, FdataLineKind::Branch);
        assert_eq!(v[0].locations, b"1 main 1a 1 main 2f");
        assert_eq!(v[0].signature, b"1 main 1a 1 main 2f 3");
        assert_eq!((v[0].mispreds.map(|m| m.value), v[0].count), (Some(3), 17));
        assert_eq!(v[0].locs[1].name, b"main");
        assert_eq!(v[0].locs[1].offset.value, 0x2f);
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
