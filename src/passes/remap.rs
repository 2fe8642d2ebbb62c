//! Symbol remapping (`--remapping-file`): records of an old function name are merged under a
//! new name, as llvm-profdata's `SymbolRemapper` does (instrumentation merges by name hash,
//! sample merges by name).
//!
//! The file has one `old_name new_name` pair per line, separated by one space. It is read as
//! llvm-profdata reads it: lines end at `\n` or `\r\n`; empty lines and lines whose first
//! byte is `#` are skipped; a NUL byte ends the file; any other line must be exactly two
//! non-empty names around one space. The first mapping of a name wins.

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::ir::Name;
use crate::ir::name_hash::md5_hash;

/// Old name → new name, and the same by name hash.
#[derive(Debug, Clone, Default)]
pub struct Remapping {
    map: HashMap<u64, (Name, u64)>,
    by_name: HashMap<Name, Name>,
}

impl Remapping {
    /// Parses a remapping file's text. Errors name the 1-based line.
    pub fn parse(text: &str) -> Result<Remapping> {
        Self::parse_bytes(text.as_bytes())
    }

    /// Parses a remapping file's bytes (names need not be UTF-8). Errors name the 1-based
    /// line, counting skipped lines.
    pub fn parse_bytes(bytes: &[u8]) -> Result<Remapping> {
        let bytes = match memchr::memchr(0, bytes) {
            Some(nul) => &bytes[..nul],
            None => bytes,
        };
        let mut r = Remapping::default();
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() || line[0] == b'#' {
                continue;
            }
            let bad = |detail: String| {
                Error::at_line(
                    i as u64 + 1,
                    ErrorKind::Malformed {
                        what: "remapping file",
                        detail,
                    },
                )
            };
            let mut parts = line.splitn(2, |&b| b == b' ');
            let old = parts.next().unwrap_or_default();
            let new = parts.next().unwrap_or_default();
            if old.is_empty() || new.is_empty() || new.contains(&b' ') {
                return Err(bad(format!(
                    "expected 'old_symbol new_symbol', found {:?}",
                    String::from_utf8_lossy(line)
                )));
            }
            let new_name: Name = Arc::from(new);
            // The first mapping of a name wins, as with llvm::DenseMap::insert.
            r.map
                .entry(md5_hash(old))
                .or_insert_with(|| (new_name.clone(), md5_hash(new)));
            r.by_name.entry(Arc::from(old)).or_insert(new_name);
        }
        Ok(r)
    }

    /// The name hash a record of `old` is merged under.
    pub fn map(&self, old: u64) -> u64 {
        self.map.get(&old).map_or(old, |(_, h)| *h)
    }

    /// The new name of `old`, if the file maps it.
    pub fn rename(&self, old: &[u8]) -> Option<&Name> {
        self.by_name.get(old)
    }

    /// True if the file maps no name.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// (old hash, new name, new hash) of every mapping.
    pub fn entries(&self) -> impl Iterator<Item = (u64, &Name, u64)> {
        self.map.iter().map(|(o, (n, h))| (*o, n, *h))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_maps() {
        let r = Remapping::parse("# c\n\nfoo bar\nfoo baz\n").unwrap();
        assert_eq!(r.map(md5_hash(b"foo")), md5_hash(b"bar"));
        assert_eq!(r.rename(b"foo").map(|n| &n[..]), Some(&b"bar"[..]));
        assert_eq!(r.rename(b"bar"), None);
        assert_eq!(r.map(7), 7);
        assert_eq!(Remapping::parse("a b c\n").unwrap_err().line(), Some(1));
        assert_eq!(
            Remapping::parse("ok fine\nlonely\n").unwrap_err().line(),
            Some(2)
        );
    }

    #[test]
    fn reads_lines_as_llvm_does() {
        // CRLF line ends; a lone CR is part of the name; NUL ends the file.
        let r = Remapping::parse_bytes(b"a b\r\nc d\re\n\nx y\0 bad line\n").unwrap();
        assert_eq!(r.rename(b"a").map(|n| &n[..]), Some(&b"b"[..]));
        assert_eq!(r.rename(b"c").map(|n| &n[..]), Some(&b"d\re"[..]));
        assert_eq!(r.rename(b"x").map(|n| &n[..]), Some(&b"y"[..]));
        // A line of spaces is not blank; an indented '#' is not a comment; lines are counted
        // with the skipped ones.
        for (text, line) in [
            (&b"# c\n\n \n"[..], 3),
            (&b"a b\n #x y\n"[..], 2),
            (&b"a  b\n"[..], 1),
            (&b"a b \n"[..], 1),
            (&b" a\n"[..], 1),
        ] {
            let e = Remapping::parse_bytes(text).unwrap_err();
            assert_eq!(e.line(), Some(line), "{:?}", String::from_utf8_lossy(text));
        }
    }
}
