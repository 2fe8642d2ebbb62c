//! Symbol remapping (`--remapping-file`): records of an old function name are merged under a
//! new name, as llvm-profdata's `SymbolRemapper` does.
//!
//! The file has one `old_name new_name` pair per line, separated by one space; blank lines
//! and lines starting with `#` are ignored.

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::ir::Name;
use crate::ir::name_hash::md5_hash;

/// Old name hash → new name.
#[derive(Debug, Clone, Default)]
pub struct Remapping {
    map: HashMap<u64, (Name, u64)>,
}

impl Remapping {
    /// Parses a remapping file's text. Errors name the 1-based line.
    pub fn parse(text: &str) -> Result<Remapping> {
        let mut map = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let parts: Vec<&str> = line.split(' ').collect();
            let [old, new] = parts.as_slice() else {
                return Err(Error::at_line(
                    i as u64 + 1,
                    ErrorKind::Malformed {
                        what: "remapping file",
                        detail: format!("expected 'old_symbol new_symbol', found {line:?}"),
                    },
                ));
            };
            if old.is_empty() || new.is_empty() {
                return Err(Error::at_line(
                    i as u64 + 1,
                    ErrorKind::Malformed {
                        what: "remapping file",
                        detail: "expected 'old_symbol new_symbol'".into(),
                    },
                ));
            }
            // The first mapping of a name wins, as with llvm::DenseMap::insert.
            map.entry(md5_hash(old.as_bytes()))
                .or_insert_with(|| (Arc::from(new.as_bytes()), md5_hash(new.as_bytes())));
        }
        Ok(Remapping { map })
    }

    /// The name hash a record of `old` is merged under.
    pub fn map(&self, old: u64) -> u64 {
        self.map.get(&old).map_or(old, |(_, h)| *h)
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
        assert_eq!(r.map(7), 7);
        assert_eq!(Remapping::parse("a b c\n").unwrap_err().line(), Some(1));
        assert_eq!(
            Remapping::parse("ok fine\nlonely\n").unwrap_err().line(),
            Some(2)
        );
    }
}
