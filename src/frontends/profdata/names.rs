//! The names of an indexed profile's keys, shared between inputs.
//!
//! Every item of the on-disk hash table stores its key's 64-bit hash next to the key (the
//! function's name). The reader checks each stored hash against the MD5 of its name, as the
//! name is the function's identity and a wrong stored hash would file the record under
//! another function; but indexed profiles of one program (per-benchmark or per-shard
//! profiles, re-merges) hold the same names in the same table order. So the names of a
//! table whose every stored hash was checked are kept, with their hashes and their symbol
//! table: a later table with the same (hash, name) sequence, compared byte for byte, is
//! known to be consistent without hashing any name again, and shares the symbol table (so
//! that the merge adds the table once, not once per input).
//!
//! A table with a stored hash that is not its name's MD5 is never kept: each such file is
//! checked on its own and gets its own warnings.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::codec::chained_hash::reader::Item;
use crate::error::Warning;
use crate::ir::SymbolTable;
use crate::ir::name_hash::md5_hash;

/// Most distinct tables kept: merges read the profiles of a few programs; a merge of many
/// unrelated ones checks the names of the later ones per file instead of holding them all.
const MAX_TABLES: usize = 16;

/// The checked names of one table: its items' hashes and names in table order.
#[derive(Debug)]
pub(super) struct KnownNames {
    /// Per item: the stored hash, which is the MD5 of its name.
    pub(super) hashes: Arc<[u64]>,
    /// The names one after another; `ends[i]` is the end of name `i` in `bytes`.
    bytes: Vec<u8>,
    ends: Vec<usize>,
    /// Hash → name, for every item.
    pub(super) table: Arc<SymbolTable>,
}

impl KnownNames {
    /// The name of item `i`, if the table has that many items.
    #[inline]
    pub(super) fn name(&self, i: usize) -> Option<&[u8]> {
        let start = match i {
            0 => 0,
            _ => *self.ends.get(i - 1)?,
        };
        self.bytes.get(start..*self.ends.get(i)?)
    }

    /// True if the items of `file` hold exactly these hashes and names, in this order.
    fn matches(&self, file: &[u8], items: &[Item]) -> bool {
        if items.len() != self.hashes.len() {
            return false;
        }
        let mut start = 0;
        for ((it, &h), &end) in items.iter().zip(self.hashes.iter()).zip(&self.ends) {
            if it.hash != h || Some(&self.bytes[start..end]) != key_bytes(file, it) {
                return false;
            }
            start = end;
        }
        true
    }
}

/// The bytes of an item's key (the walk checked that they lie in the file).
fn key_bytes<'a>(file: &'a [u8], it: &Item) -> Option<&'a [u8]> {
    file.get(it.key.0 as usize..(it.key.0 + it.key.1) as usize)
}

/// The names of one table as the reader uses them.
#[derive(Debug)]
pub(crate) struct TableNames {
    /// Per item, in table order: the MD5 of its name (the records' name hash).
    pub hashes: Arc<[u64]>,
    /// Hash → name, for every item.
    pub table: Arc<SymbolTable>,
    /// Items whose stored hash is not the MD5 of their name.
    pub warnings: Vec<Warning>,
}

/// A thread-safe store of the checked name tables of the indexed inputs of one merge.
#[derive(Debug, Default)]
pub struct IndexedNameCache {
    /// Keyed by a fingerprint of the stored hashes; candidates are compared in full.
    map: Mutex<HashMap<u64, Vec<Arc<KnownNames>>>>,
    /// An empty table, shared by every input without vtable names.
    empty: Arc<SymbolTable>,
    /// The table [`IndexedNameCache::names_of`] last found or kept: the one the next input
    /// most likely has (inputs of one program come one after another).
    recent: Mutex<Option<Arc<KnownNames>>>,
    /// The sizes of the last file described in one pass (records, value blocks, sites,
    /// values): the next input of the same program has about as many, so its buffers are
    /// made at that size instead of growing by doubling (each step a copy).
    sizes: [AtomicUsize; 4],
}

impl IndexedNameCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// A shared empty symbol table.
    pub(crate) fn empty_table(&self) -> Arc<SymbolTable> {
        Arc::clone(&self.empty)
    }

    /// The table last found or kept by [`IndexedNameCache::names_of`].
    pub(super) fn recent(&self) -> Option<Arc<KnownNames>> {
        self.recent.lock().ok()?.clone()
    }

    /// The sizes [`IndexedNameCache::set_sizes`] last kept (zeros at first).
    pub(super) fn sizes(&self) -> [usize; 4] {
        self.sizes.each_ref().map(|a| a.load(Ordering::Relaxed))
    }

    /// Keeps the sizes of a file just described, for the next one.
    pub(super) fn set_sizes(&self, sizes: [usize; 4]) {
        for (a, v) in self.sizes.iter().zip(sizes) {
            a.store(v, Ordering::Relaxed);
        }
    }

    /// Remembers `k` as the most recent table.
    fn set_recent(&self, k: &Arc<KnownNames>) {
        if let Ok(mut r) = self.recent.lock() {
            *r = Some(Arc::clone(k));
        }
    }

    /// Number of distinct name tables kept.
    pub fn len(&self) -> usize {
        self.map
            .lock()
            .map(|m| m.values().map(Vec::len).sum())
            .unwrap_or(0)
    }

    /// True if nothing is kept yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The names of the table whose items are `items`: from the cache when an identical
    /// sequence of (stored hash, name) was checked before, otherwise by hashing every name.
    pub(crate) fn names_of(&self, file: &[u8], items: &[Item]) -> TableNames {
        let fp = fingerprint(items);
        if let Ok(map) = self.map.lock()
            && let Some(list) = map.get(&fp)
        {
            for k in list {
                if k.matches(file, items) {
                    self.set_recent(k);
                    return TableNames {
                        hashes: Arc::clone(&k.hashes),
                        table: Arc::clone(&k.table),
                        warnings: Vec::new(),
                    };
                }
            }
        }
        let mut table = SymbolTable::new();
        let mut hashes = Vec::with_capacity(items.len());
        let mut warnings = Vec::new();
        let mut bytes = Vec::new();
        let mut ends = Vec::with_capacity(items.len());
        for it in items {
            let key = key_bytes(file, it).unwrap_or(&[]);
            let h = md5_hash(key);
            if h != it.hash {
                warnings.push(Warning::at(
                    it.offset,
                    format!(
                        "hash table item: stored hash {:#018x} is not the MD5 hash of its name \
                         {:?} ({h:#018x})",
                        it.hash,
                        String::from_utf8_lossy(key)
                    ),
                ));
            }
            table.insert_hashed(h, Arc::from(key));
            hashes.push(h);
            bytes.extend_from_slice(key);
            ends.push(bytes.len());
        }
        let names = TableNames {
            hashes: hashes.into(),
            table: Arc::new(table),
            warnings,
        };
        if names.warnings.is_empty()
            && let Ok(mut map) = self.map.lock()
            && map.values().map(Vec::len).sum::<usize>() < MAX_TABLES
        {
            let k = Arc::new(KnownNames {
                hashes: Arc::clone(&names.hashes),
                bytes,
                ends,
                table: Arc::clone(&names.table),
            });
            self.set_recent(&k);
            map.entry(fp).or_default().push(k);
        }
        names
    }
}

/// A fingerprint of a table's stored hashes and key lengths (the candidates it selects are
/// compared in full).
fn fingerprint(items: &[Item]) -> u64 {
    let mut h = items.len() as u64;
    for it in items {
        h = (h.rotate_left(23) ^ it.hash ^ it.key.1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    h
}
