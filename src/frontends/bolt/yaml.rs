//! The reader of BOLT's YAML profiles: the event stream of a YAML parser (saphyr-parser,
//! which keeps its own stack on the heap) walked against the fixed shape of LLVM's
//! `BinaryProfile`, so nesting never goes deeper than that shape. Keys LLVM's mapping does
//! not know (or that LLVM 19 does not write: pseudo-probe data) are skipped, as
//! `merge-fdata`'s reader skips unknown keys. Errors name the line, the path of the value
//! (`functions[3].blocks[1].succ[0].cnt`) and what was expected.

use std::borrow::Cow;

use saphyr_parser::{Event, Parser, ScalarStyle, StrInput};

use crate::error::{Error, ErrorKind, Result};
use crate::ir::bolt_yaml::{
    HashFunction, PF_LBR, PF_MEMEVENT, PF_SAMPLE, YamlBlock, YamlCall, YamlFunction, YamlHeader,
    YamlProfile, YamlSuccessor,
};

/// True if `head` starts like a YAML document (`---`), as `merge-fdata` decides.
pub fn looks_like_yaml(head: &[u8]) -> bool {
    head.starts_with(b"---\n") || head.starts_with(b"---\r\n")
}

/// Reads a YAML profile from its bytes.
pub fn read_yaml(bytes: &[u8]) -> Result<YamlProfile> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Error::at(
            e.valid_up_to() as u64,
            ErrorKind::Malformed {
                what: "BOLT YAML profile",
                detail: "not UTF-8 text".into(),
            },
        )
    })?;
    let mut ev = Events {
        parser: Parser::new_from_str(text),
        peeked: None,
        line: 1,
    };
    let mut p = YamlProfile::default();
    let mut header = false;
    let mut functions = false;
    loop {
        let (e, _) = ev.next("the document")?;
        match e {
            Event::StreamStart | Event::DocumentStart(_) => {}
            Event::MappingStart(..) => break,
            _ => return Err(ev.bad("the document", "a mapping (header:, functions:)")),
        }
    }
    ev.map_body("", |ev, key| {
        match key {
            "header" => {
                header = true;
                p.header = read_header(ev)?;
            }
            "functions" => {
                functions = true;
                ev.seq("functions", |ev, i| {
                    p.functions
                        .push(read_function(ev, &format!("functions[{i}]"))?);
                    Ok(())
                })?;
            }
            _ => ev.skip()?,
        }
        Ok(())
    })?;
    for (seen, key) in [(header, "header"), (functions, "functions")] {
        if !seen {
            return Err(ev.bad("the document", &format!("the required key '{key}'")));
        }
    }
    Ok(p)
}

/// The parser's events with one of look-ahead.
struct Events<'a> {
    parser: Parser<'a, StrInput<'a>>,
    peeked: Option<(Event<'a>, u64)>,
    /// Line of the last event taken.
    line: u64,
}

impl<'a> Events<'a> {
    fn next(&mut self, path: &str) -> Result<(Event<'a>, u64)> {
        if let Some(p) = self.peeked.take() {
            self.line = p.1;
            return Ok(p);
        }
        match self.parser.next_event() {
            Some(Ok((e, span))) => {
                self.line = span.start.line() as u64;
                Ok((e, self.line))
            }
            Some(Err(e)) => Err(Error::at_line(
                e.marker().line() as u64,
                ErrorKind::Malformed {
                    what: "BOLT YAML profile",
                    detail: format!("{path}: not valid YAML: {}", e.info()),
                },
            )),
            None => Err(self.bad(path, "more (the file ends early)")),
        }
    }

    /// The line of the next event.
    fn peek_line(&mut self, path: &str) -> Result<u64> {
        self.peek(path)?;
        Ok(self.peeked.as_ref().map_or(self.line, |p| p.1))
    }

    fn peek(&mut self, path: &str) -> Result<&Event<'a>> {
        let e = match self.peeked.take() {
            Some(e) => e,
            None => self.next(path)?,
        };
        Ok(&self.peeked.insert(e).0)
    }

    /// The error at the last event: at `path`, `expected` was expected.
    fn bad(&self, path: &str, expected: &str) -> Error {
        let at = if path.is_empty() {
            "the document"
        } else {
            path
        };
        Error::at_line(
            self.line,
            ErrorKind::Malformed {
                what: "BOLT YAML profile",
                detail: format!("{at}: expected {expected}"),
            },
        )
    }

    /// Skips one node, however deep (a counter, no recursion).
    fn skip(&mut self) -> Result<()> {
        let mut depth = 0usize;
        loop {
            let (e, _) = self.next("a skipped value")?;
            match e {
                Event::SequenceStart(..) | Event::MappingStart(..) => depth += 1,
                Event::SequenceEnd | Event::MappingEnd => {
                    depth = depth
                        .checked_sub(1)
                        .ok_or_else(|| self.bad("a skipped value", "a value"))?;
                }
                Event::Scalar(..) | Event::Alias(_) => {}
                _ => return Err(self.bad("a skipped value", "a value")),
            }
            if depth == 0 {
                return Ok(());
            }
        }
    }

    /// A scalar at `path`.
    fn scalar(&mut self, path: &str) -> Result<Cow<'a, str>> {
        match self.next(path)?.0 {
            Event::Scalar(s, ..) => Ok(s),
            _ => Err(self.bad(path, "a scalar")),
        }
    }

    /// The keys of a mapping whose start was taken: `f` reads each key's value.
    fn map_body(
        &mut self,
        path: &str,
        mut f: impl FnMut(&mut Self, &str) -> Result<()>,
    ) -> Result<()> {
        loop {
            match self.next(path)?.0 {
                Event::MappingEnd => return Ok(()),
                Event::Scalar(k, ..) => f(self, &k)?,
                _ => return Err(self.bad(path, "a key")),
            }
        }
    }

    /// A mapping at `path`.
    fn map(&mut self, path: &str, f: impl FnMut(&mut Self, &str) -> Result<()>) -> Result<()> {
        match self.next(path)?.0 {
            Event::MappingStart(..) => self.map_body(path, f),
            _ => Err(self.bad(path, "a mapping")),
        }
    }

    /// A sequence at `path`: `f` reads element `i`.
    fn seq(&mut self, path: &str, mut f: impl FnMut(&mut Self, usize) -> Result<()>) -> Result<()> {
        match self.next(path)?.0 {
            Event::SequenceStart(..) => {}
            // A key without a value (`blocks:` and nothing under it): an empty sequence, as
            // LLVM's YAML input takes it.
            Event::Scalar(v, ScalarStyle::Plain, ..) if matches!(&*v, "" | "~" | "null") => {
                return Ok(());
            }
            _ => return Err(self.bad(path, "a sequence")),
        }
        let mut i = 0;
        loop {
            if matches!(self.peek(path)?, Event::SequenceEnd) {
                self.next(path)?;
                return Ok(());
            }
            f(self, i)?;
            i += 1;
        }
    }

    /// An unsigned integer of at most `bits` bits at `path`.
    fn uint(&mut self, path: &str, bits: u32) -> Result<u64> {
        let s = self.scalar(path)?;
        parse_uint(&s)
            .filter(|v| bits == 64 || *v >> bits == 0)
            .ok_or_else(|| {
                self.bad(
                    path,
                    &format!("an unsigned integer of at most {bits} bits, found '{s}'"),
                )
            })
    }

    fn u32(&mut self, path: &str) -> Result<u32> {
        self.uint(path, 32).map(|v| v as u32)
    }
}

/// An unsigned integer as LLVM's `getAsUnsignedInteger` with radix 0 reads it: `0x` hex,
/// `0b` binary, `0o` or a leading `0` octal, else decimal.
fn parse_uint(s: &str) -> Option<u64> {
    let (digits, radix) = if let Some(r) = s.strip_prefix("0x").or(s.strip_prefix("0X")) {
        (r, 16)
    } else if let Some(r) = s.strip_prefix("0b").or(s.strip_prefix("0B")) {
        (r, 2)
    } else if let Some(r) = s.strip_prefix("0o") {
        (r, 8)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    if digits.is_empty() || digits.starts_with(['+', '-']) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

fn read_header(ev: &mut Events<'_>) -> Result<YamlHeader> {
    let mut h = YamlHeader::default();
    let mut seen = [false; 3];
    ev.map("header", |ev, key| {
        let path = format!("header.{key}");
        match key {
            "profile-version" => {
                seen[0] = true;
                h.version = ev.u32(&path)?;
            }
            "binary-name" => {
                seen[1] = true;
                h.binary_name = ev.scalar(&path)?.into_owned();
            }
            "binary-build-id" => h.build_id = ev.scalar(&path)?.into_owned(),
            "profile-flags" => {
                seen[2] = true;
                h.flags = read_flags(ev, &path)?;
            }
            "profile-origin" => h.origin = ev.scalar(&path)?.into_owned(),
            "profile-events" => h.events = ev.scalar(&path)?.into_owned(),
            "dfs-order" => {
                h.dfs_order = match &*ev.scalar(&path)? {
                    "true" | "True" | "TRUE" | "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On"
                    | "ON" => true,
                    "false" | "False" | "FALSE" | "n" | "N" | "no" | "No" | "NO" | "off"
                    | "Off" | "OFF" => false,
                    _ => return Err(ev.bad(&path, "true or false")),
                }
            }
            "hash-func" => {
                h.hash_function = match &*ev.scalar(&path)? {
                    "std-hash" => HashFunction::StdHash,
                    "xxh3" => HashFunction::Xxh3,
                    _ => return Err(ev.bad(&path, "std-hash or xxh3")),
                }
            }
            _ => ev.skip()?,
        }
        Ok(())
    })?;
    required(
        ev,
        "header",
        &seen,
        &["profile-version", "binary-name", "profile-flags"],
    )?;
    Ok(h)
}

/// The error for the first required key not seen.
fn required(ev: &Events<'_>, path: &str, seen: &[bool], keys: &[&str]) -> Result<()> {
    match seen.iter().zip(keys).find(|(s, _)| !**s) {
        Some((_, k)) => Err(ev.bad(path, &format!("the required key '{k}'"))),
        None => Ok(()),
    }
}

fn read_flags(ev: &mut Events<'_>, path: &str) -> Result<u16> {
    let mut flags = 0;
    ev.seq(path, |ev, _| {
        flags |= match &*ev.scalar(path)? {
            "lbr" => PF_LBR,
            "sample" => PF_SAMPLE,
            "memevent" => PF_MEMEVENT,
            _ => return Err(ev.bad(path, "lbr, sample or memevent")),
        };
        Ok(())
    })?;
    Ok(flags)
}

fn read_function(ev: &mut Events<'_>, path: &str) -> Result<YamlFunction> {
    let mut f = YamlFunction {
        line: ev.peek_line(path)?,
        ..YamlFunction::default()
    };
    let mut seen = [false; 5];
    ev.map(path, |ev, key| {
        let at = format!("{path}.{key}");
        match key {
            "name" => {
                seen[0] = true;
                f.name = ev.scalar(&at)?.into_owned();
            }
            "fid" => {
                seen[1] = true;
                f.id = ev.u32(&at)?;
            }
            "hash" => {
                seen[2] = true;
                f.hash = ev.uint(&at, 64)?;
            }
            "exec" => {
                seen[3] = true;
                f.exec = ev.uint(&at, 64)?;
            }
            "nblocks" => {
                seen[4] = true;
                f.nblocks = ev.u32(&at)?;
            }
            "blocks" => ev.seq(&at, |ev, i| {
                f.blocks.push(read_block(ev, &format!("{at}[{i}]"))?);
                Ok(())
            })?,
            _ => ev.skip()?,
        }
        Ok(())
    })?;
    required(ev, path, &seen, &["name", "fid", "hash", "exec", "nblocks"])?;
    Ok(f)
}

fn read_block(ev: &mut Events<'_>, path: &str) -> Result<YamlBlock> {
    let mut b = YamlBlock::default();
    let mut seen = [false; 2];
    ev.map(path, |ev, key| {
        let at = format!("{path}.{key}");
        match key {
            "bid" => {
                seen[0] = true;
                b.index = ev.u32(&at)?;
            }
            "insns" => {
                seen[1] = true;
                b.insns = ev.u32(&at)?;
            }
            "hash" => b.hash = ev.uint(&at, 64)?,
            "exec" => b.exec = ev.uint(&at, 64)?,
            "events" => b.events = ev.uint(&at, 64)?,
            "calls" => ev.seq(&at, |ev, i| {
                b.calls.push(read_call(ev, &format!("{at}[{i}]"))?);
                Ok(())
            })?,
            "succ" => ev.seq(&at, |ev, i| {
                b.successors
                    .push(read_successor(ev, &format!("{at}[{i}]"))?);
                Ok(())
            })?,
            _ => ev.skip()?,
        }
        Ok(())
    })?;
    required(ev, path, &seen, &["bid", "insns"])?;
    Ok(b)
}

fn read_call(ev: &mut Events<'_>, path: &str) -> Result<YamlCall> {
    let mut c = YamlCall::default();
    let mut seen = [false; 3];
    ev.map(path, |ev, key| {
        let at = format!("{path}.{key}");
        match key {
            "off" => {
                seen[0] = true;
                c.offset = ev.u32(&at)?;
            }
            "fid" => {
                seen[1] = true;
                c.dest = ev.u32(&at)?;
            }
            "disc" => c.disc = ev.u32(&at)?,
            "cnt" => {
                seen[2] = true;
                c.count = ev.uint(&at, 64)?;
            }
            "mis" => c.mispreds = ev.uint(&at, 64)?,
            _ => ev.skip()?,
        }
        Ok(())
    })?;
    required(ev, path, &seen, &["off", "fid", "cnt"])?;
    Ok(c)
}

fn read_successor(ev: &mut Events<'_>, path: &str) -> Result<YamlSuccessor> {
    let mut s = YamlSuccessor::default();
    let mut seen = [false; 2];
    ev.map(path, |ev, key| {
        let at = format!("{path}.{key}");
        match key {
            "bid" => {
                seen[0] = true;
                s.index = ev.u32(&at)?;
            }
            "cnt" => {
                seen[1] = true;
                s.count = ev.uint(&at, 64)?;
            }
            "mis" => s.mispreds = ev.uint(&at, 64)?,
            _ => ev.skip()?,
        }
        Ok(())
    })?;
    required(ev, path, &seen, &["bid", "cnt"])?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_small_profile() {
        let p = read_yaml(
            b"---\nheader:\n  profile-version: 1\n  binary-name: 'a/b'\n  profile-flags: [ lbr ]\n\
              functions:\n  - name: main\n    fid: 3\n    hash: 0xAB\n    exec: 2\n    nblocks: 2\n\
              \x20   blocks:\n      - bid: 0\n        insns: 4\n        succ: [ { bid: 1, cnt: 5, mis: 1 } ]\n\
              \x20       calls: [ { off: 0x1B, fid: 7, cnt: 1 } ]\n        probes: [ { blk: 1 } ]\n...\n",
        )
        .unwrap();
        assert_eq!(p.header.binary_name, "a/b");
        assert_eq!(p.header.flags, PF_LBR);
        assert!(p.header.dfs_order);
        let f = &p.functions[0];
        assert_eq!((f.id, f.hash, f.nblocks), (3, 0xab, 2));
        assert_eq!(f.blocks[0].successors[0].mispreds, 1);
        assert_eq!(f.blocks[0].calls[0].offset, 0x1b);
    }

    #[test]
    fn errors_name_line_and_path() {
        let e = read_yaml(
            b"---\nheader:\n  profile-version: 1\n  binary-name: x\n  profile-flags: [ lbr ]\n\
              functions:\n  - name: main\n    fid: 3\n    hash: 0xAB\n    exec: 2x\n    nblocks: 2\n",
        )
        .unwrap_err();
        let s = e.to_string();
        assert!(s.contains("functions[0].exec") && s.contains("'2x'"), "{s}");
        assert_eq!(e.line(), Some(10), "{s}");
        let e =
            read_yaml(b"---\nheader:\n  binary-name: x\n  profile-flags: [ lbr ]\nfunctions: []\n")
                .unwrap_err();
        assert!(e.to_string().contains("'profile-version'"), "{e}");
        assert!(read_yaml(b"---\nheader: [\n").is_err());
    }
}
