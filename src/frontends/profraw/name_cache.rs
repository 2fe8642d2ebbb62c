//! Decoded names sections, shared between inputs.
//!
//! Every raw profile of one binary carries a byte-identical names section. Inflating it and
//! hashing every name once per distinct section (instead of once per file) is the largest
//! saving when merging many profiles of the same program.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex};

use crate::codec::names_blob;
use crate::error::Result;
use crate::ir::name_hash::md5_hash;
use crate::ir::{Name, SymbolTable};

/// Decoded blobs that share a key: the blob bytes and what they decode to.
type Bucket = Vec<(Arc<[u8]>, DecodedNames)>;

/// A decoded names section.
#[derive(Debug, Clone)]
pub struct DecodedNames {
    /// Its names by hash.
    pub table: Arc<SymbolTable>,
    /// The hashes of its names in the order the section lists them (repeats included): a
    /// profile's data records name their functions mostly in this order, so a reader that
    /// walks both checks most records' names without a probe into `table`.
    pub order: Arc<[u64]>,
}

/// A thread-safe cache of decoded names sections, keyed by their bytes.
#[derive(Debug, Default)]
pub struct NameCache {
    map: Mutex<HashMap<u64, Bucket>>,
}

impl NameCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    fn key(blob: &[u8]) -> u64 {
        let mut h = DefaultHasher::new();
        blob.len().hash(&mut h);
        blob.hash(&mut h);
        h.finish()
    }

    /// The symbol table of a names blob whose first byte is at absolute offset `base`,
    /// decoding it only if no identical blob was decoded before.
    pub fn get_or_decode(&self, blob: &[u8], base: u64) -> Result<DecodedNames> {
        let key = Self::key(blob);
        if let Ok(map) = self.map.lock()
            && let Some(list) = map.get(&key)
        {
            for (bytes, decoded) in list {
                if &**bytes == blob {
                    return Ok(decoded.clone());
                }
            }
        }
        // The names first, then their MD5s (in parallel: a million names take a tenth of a
        // second to hash), then the table at its size.
        let mut names: Vec<Name> = Vec::new();
        names_blob::for_each_name(blob, base, |n| names.push(Arc::from(n)))?;
        let hashes: Vec<u64> = crate::sys::threads::map(&names, 1 << 12, |_, n| md5_hash(n));
        let mut table = SymbolTable::with_capacity(names.len());
        for (&h, n) in hashes.iter().zip(names) {
            table.insert_hashed(h, n);
        }
        let decoded = DecodedNames {
            table: Arc::new(table),
            order: Arc::from(hashes),
        };
        if let Ok(mut map) = self.map.lock() {
            map.entry(key)
                .or_default()
                .push((Arc::from(blob), decoded.clone()));
        }
        Ok(decoded)
    }

    /// Number of distinct blobs decoded.
    pub fn len(&self) -> usize {
        self.map
            .lock()
            .map(|m| m.values().map(Vec::len).sum())
            .unwrap_or(0)
    }

    /// True if nothing was decoded yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
