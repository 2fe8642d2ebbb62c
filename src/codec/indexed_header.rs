//! The header of an indexed profile (`.profdata`), read and written from one table.
//!
//! Layout (little-endian, 8-byte fields): the magic, the version word (index version in the
//! low 32 bits, variant flags above), then the version-gated fields of [`FIELDS`] in table
//! order, each present from its [`FieldDef::since`] version on. The header's size is therefore
//! 16 + 8 × (fields present): 40 bytes for versions 1 to 7, 72 from version 12 on.
//!
//! Adding an index version means adding its row to [`RELEASES`] (and a row to [`FIELDS`] if it
//! adds a header field): the reader's version check, its message, the writer's header and
//! [`size`] follow from the tables.

use std::sync::LazyLock;

use crate::bytes::{ByteWriter, Cursor, Endian};
use crate::codec::magic::INDEXED_MAGIC;
use crate::error::{Error, ErrorKind, Result};

/// Each index version from 7 on and the first LLVM release (major version) whose
/// `llvm-profdata merge` writes it; ascending in both. Versions 1 to 6 are read only.
pub const RELEASES: &[(u32, u32)] = &[
    (7, 12),
    (8, 15),
    (9, 16),
    (10, 17),
    (11, 18),
    (12, 19),
    (13, 22),
    (14, 23),
];

/// Newest index version (read and written): the last row of [`RELEASES`].
pub const NEWEST_VERSION: u32 = RELEASES[RELEASES.len() - 1].0;

/// The LLVM release that first writes [`NEWEST_VERSION`].
pub const NEWEST_LLVM: u32 = RELEASES[RELEASES.len() - 1].1;

/// A version-gated 8-byte field of the header, after the magic and the version word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Unused (written 0, ignored when read).
    Unused,
    /// Hash type (0 = MD5, the only one LLVM defines).
    HashType,
    /// Offset of the on-disk hash table's bucket array.
    HashOffset,
    /// Offset of the MemProf section.
    MemProfOffset,
    /// Offset of the binary-ID section.
    BinaryIdOffset,
    /// Offset of the temporal-trace section.
    TemporalOffset,
    /// Offset of the vtable-names section.
    VTableNamesOffset,
}

/// One row of [`FIELDS`].
#[derive(Debug, Clone, Copy)]
pub struct FieldDef {
    /// The field.
    pub field: Field,
    /// The first index version whose header has it.
    pub since: u32,
    /// What it is, as errors name it (`indexed profile header: …`).
    pub what: &'static str,
}

/// The header's fields after the version word, in file order.
pub const FIELDS: &[FieldDef] = &[
    FieldDef {
        field: Field::Unused,
        since: 1,
        what: "indexed profile header: unused",
    },
    FieldDef {
        field: Field::HashType,
        since: 1,
        what: "indexed profile header: hash type",
    },
    FieldDef {
        field: Field::HashOffset,
        since: 1,
        what: "indexed profile header: hash table offset",
    },
    FieldDef {
        field: Field::MemProfOffset,
        since: 8,
        what: "indexed profile header: MemProf offset",
    },
    FieldDef {
        field: Field::BinaryIdOffset,
        since: 9,
        what: "indexed profile header: binary ID offset",
    },
    FieldDef {
        field: Field::TemporalOffset,
        since: 10,
        what: "indexed profile header: temporal traces offset",
    },
    FieldDef {
        field: Field::VTableNamesOffset,
        since: 12,
        what: "indexed profile header: vtable names offset",
    },
];

/// The fields present in the header of index `version`, in file order.
pub fn fields(version: u32) -> impl Iterator<Item = &'static FieldDef> {
    FIELDS.iter().filter(move |f| f.since <= version)
}

/// True if the header of index `version` has `field` (and so the file has its section).
pub fn has(version: u32, field: Field) -> bool {
    fields(version).any(|f| f.field == field)
}

/// Header size in bytes for index `version`.
pub fn size(version: u32) -> u64 {
    16 + 8 * fields(version).count() as u64
}

/// Header fields (absent ones are 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexedHeader {
    /// Version word (version in the low 32 bits, variant flags above).
    pub version_word: u64,
    /// Hash type (0 = MD5, the only one).
    pub hash_type: u64,
    /// Offset of the bucket array.
    pub hash_offset: u64,
    /// Offset of the MemProf section (v8+).
    pub memprof_offset: u64,
    /// Offset of the binary-ID section (v9+).
    pub binary_id_offset: u64,
    /// Offset of the temporal-trace section (v10+).
    pub temporal_offset: u64,
    /// Offset of the vtable-names section (v12+).
    pub vtable_names_offset: u64,
    /// Header size in bytes.
    pub size: u64,
}

impl IndexedHeader {
    /// The index version (the version word's low 32 bits).
    pub fn version(&self) -> u32 {
        (self.version_word & 0xffff_ffff) as u32
    }

    /// The value of `field` (0 for [`Field::Unused`]).
    pub fn get(&self, field: Field) -> u64 {
        match field {
            Field::Unused => 0,
            Field::HashType => self.hash_type,
            Field::HashOffset => self.hash_offset,
            Field::MemProfOffset => self.memprof_offset,
            Field::BinaryIdOffset => self.binary_id_offset,
            Field::TemporalOffset => self.temporal_offset,
            Field::VTableNamesOffset => self.vtable_names_offset,
        }
    }

    /// Where `field` is kept; None for [`Field::Unused`], which is not.
    fn slot(&mut self, field: Field) -> Option<&mut u64> {
        Some(match field {
            Field::Unused => return None,
            Field::HashType => &mut self.hash_type,
            Field::HashOffset => &mut self.hash_offset,
            Field::MemProfOffset => &mut self.memprof_offset,
            Field::BinaryIdOffset => &mut self.binary_id_offset,
            Field::TemporalOffset => &mut self.temporal_offset,
            Field::VTableNamesOffset => &mut self.vtable_names_offset,
        })
    }
}

/// Which versions are read, for [`ErrorKind::UnsupportedVersion`]: made from the tables once.
static SUPPORTED: LazyLock<String> = LazyLock::new(|| {
    format!(
        "the newest index version this build reads is {NEWEST_VERSION} (LLVM {NEWEST_LLVM}); \
         versions 1 to {NEWEST_VERSION} are read"
    )
});

/// Parses the header at the start of `data`: checks the magic, the version (1 to
/// [`NEWEST_VERSION`]) and the hash type, and reads the fields the version has.
pub fn parse(data: &[u8]) -> Result<IndexedHeader> {
    let mut c = Cursor::new(data, 0, Endian::Little);
    let magic = c.u64("indexed profile magic")?;
    if magic != INDEXED_MAGIC {
        return Err(Error::at(
            0,
            ErrorKind::BadMagic {
                found: magic,
                expected: "the indexed profile magic \\xfflprofi\\x81",
            },
        ));
    }
    let version_word = c.u64("indexed profile header: version")?;
    let mut h = IndexedHeader {
        version_word,
        ..IndexedHeader::default()
    };
    let version = h.version();
    if version == 0 || version > NEWEST_VERSION {
        return Err(Error::at(
            8,
            ErrorKind::UnsupportedVersion {
                format: "indexed profile",
                version: u64::from(version),
                supported: SUPPORTED.as_str(),
            },
        ));
    }
    for f in fields(version) {
        let v = c.u64(f.what)?;
        if let Some(slot) = h.slot(f.field) {
            *slot = v;
        }
    }
    h.size = c.offset();
    if h.hash_type != 0 {
        return Err(Error::malformed(
            24,
            "indexed profile header: hash type",
            format!(
                "{} is not 0 (MD5), the only hash type LLVM defines",
                h.hash_type
            ),
        ));
    }
    Ok(h)
}

/// Writes `h` as the header of its version (`h.version()`): the magic, the version word and
/// the fields that version has ([`Field::Unused`] as 0), [`size`] bytes in all. `h.size` is
/// not read.
pub fn write(w: &mut ByteWriter<'_>, h: &IndexedHeader) {
    w.u64(INDEXED_MAGIC);
    w.u64(h.version_word);
    for f in fields(h.version()) {
        w.u64(h.get(f.field));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header of `version` with every field it has set to a distinct value.
    fn sample(version: u32) -> IndexedHeader {
        let mut h = IndexedHeader {
            version_word: u64::from(version) | (1 << 56),
            ..IndexedHeader::default()
        };
        for (i, f) in fields(version).enumerate() {
            if let Some(slot) = h.slot(f.field)
                && f.field != Field::HashType
            {
                *slot = 0x1000 * (i as u64 + 1);
            }
        }
        h.size = size(version);
        h
    }

    #[test]
    fn round_trip_every_version() {
        for version in 1..=NEWEST_VERSION {
            let h = sample(version);
            let mut w = ByteWriter::new();
            write(&mut w, &h);
            assert_eq!(w.len(), size(version), "v{version}");
            let read = parse(w.as_slice()).expect("a written header reads back");
            assert_eq!(read, h, "v{version}");
        }
    }

    #[test]
    fn sizes_are_llvms() {
        let want = [
            (1, 40),
            (7, 40),
            (8, 48),
            (9, 56),
            (10, 64),
            (11, 64),
            (12, 72),
            (14, 72),
        ];
        for (version, bytes) in want {
            assert_eq!(size(version), bytes, "v{version}");
        }
    }

    #[test]
    fn tables_are_ascending() {
        assert!(
            RELEASES
                .windows(2)
                .all(|p| p[0].0 < p[1].0 && p[0].1 < p[1].1)
        );
        assert!(FIELDS.windows(2).all(|p| p[0].since <= p[1].since));
        assert!(FIELDS.iter().all(|f| f.since <= NEWEST_VERSION));
    }

    #[test]
    fn newer_versions_are_refused_naming_the_newest() {
        let h = sample(NEWEST_VERSION + 1);
        let mut w = ByteWriter::new();
        write(&mut w, &h);
        let e = parse(w.as_slice()).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains(&format!(
                "newest index version this build reads is {NEWEST_VERSION}"
            )),
            "{msg}"
        );
    }
}
