//! Names and symbol tables shared by the text inputs of one merge.
//!
//! Names are hashed through a [`TextNameCache`] shared by the merge's inputs, so that a name
//! seen in an earlier input costs a hash-map look-up instead of an MD5, and inputs naming the
//! same functions share one symbol table (which the merge then adds once, not once per input).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use super::reader::TextScan;
use crate::codec::value_prof_data::FlatValues;
use crate::ir::fx::FxBuildHasher;
use crate::ir::name_hash::md5_hash;
use crate::ir::{LayoutRecord, SymbolTable};

/// Name → MD5 name hash.
type NameHashes = HashMap<Box<[u8]>, u64, FxBuildHasher>;

/// A symbol table shared by inputs whose records have these name hashes, in this order.
type SharedTable = (Arc<[u64]>, Arc<SymbolTable>);

/// Most distinct symbol tables kept (one per distinct sequence of function names).
const MAX_TABLES: usize = 16;

/// Names and symbol tables shared by the text inputs of one merge (thread-safe).
#[derive(Debug, Default)]
pub struct TextNameCache {
    /// Every name hashed so far. Readers take a snapshot (an `Arc`) and look names up without
    /// a lock; a reader that hashed new names publishes a new map with them.
    hashes: RwLock<Arc<NameHashes>>,
    /// Symbol tables by the sequence of their records' name hashes (a fingerprint, then the
    /// full sequence compared).
    tables: Mutex<HashMap<u64, Vec<SharedTable>>>,
    /// The empty table of inputs without vtable names.
    pub(super) empty: Arc<SymbolTable>,
    /// The function names of the last input read whose records named functions not in the
    /// one before, in record order: the next input of the same program names the same
    /// functions in the same order, so its names are compared with these instead of looked
    /// up.
    last: RwLock<Arc<RecordNames>>,
    /// The buffers of scans already merged ([`TextNameCache::recycle`]), for the next
    /// inputs: fresh buffers of a few hundred kilobytes come from `mmap` and cost a page
    /// fault per page written (about 60 per file of the sqlite workload, a tenth of its time).
    spare: Mutex<Vec<Buffers>>,
}

/// The allocations of one [`TextScan`], emptied.
#[derive(Debug, Default)]
pub(super) struct Buffers {
    pub(super) bytes: Vec<u8>,
    pub(super) records: Vec<LayoutRecord>,
    pub(super) values: FlatValues,
}

/// Most spare [`Buffers`] kept: more than the inputs one window has in flight.
const MAX_SPARE: usize = 16;

/// Function names in record order, one after another, with their hashes.
#[derive(Debug, Default)]
struct RecordNames {
    bytes: Vec<u8>,
    /// Per record: end of its name in `bytes`, and its hash.
    ends: Vec<(usize, u64)>,
}

impl RecordNames {
    /// Record `i`'s name and its hash.
    #[inline]
    fn get(&self, i: usize) -> Option<(&[u8], u64)> {
        let &(end, h) = self.ends.get(i)?;
        let start = match i.checked_sub(1) {
            Some(p) => self.ends.get(p)?.0,
            None => 0,
        };
        Some((self.bytes.get(start..end)?, h))
    }

    /// The hash of record `i`'s name if that name is `name`.
    #[inline]
    fn hash_if(&self, i: usize, name: &[u8]) -> Option<u64> {
        let &(end, h) = self.ends.get(i)?;
        let start = match i.checked_sub(1) {
            Some(p) => self.ends.get(p)?.0,
            None => 0,
        };
        (self.bytes.get(start..end)? == name).then_some(h)
    }
}

impl TextNameCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes back the buffers of `scan` (merged and no longer needed), so that the next
    /// scan writes into pages already mapped.
    pub fn recycle(&self, scan: TextScan) {
        let TextScan {
            mut bytes,
            layout,
            mut values,
            ..
        } = scan;
        let mut records = layout.records;
        bytes.clear();
        records.clear();
        values.clear();
        if let Ok(mut spare) = self.spare.lock()
            && spare.len() < MAX_SPARE
        {
            spare.push(Buffers {
                bytes,
                records,
                values,
            });
        }
    }

    /// Spare buffers, or new ones.
    pub(super) fn buffers(&self) -> Buffers {
        self.spare
            .lock()
            .ok()
            .and_then(|mut s| s.pop())
            .unwrap_or_default()
    }
}

/// Hashes names through a snapshot of the cache, remembering the ones it had to hash.
pub(super) struct Hasher<'a, 'c> {
    known: Arc<NameHashes>,
    /// The last input's function names, and whether every record so far matched them.
    last: Arc<RecordNames>,
    same_as_last: bool,
    new: HashMap<&'a [u8], u64, FxBuildHasher>,
    cache: &'c TextNameCache,
}

impl<'a, 'c> Hasher<'a, 'c> {
    pub(super) fn new(cache: &'c TextNameCache) -> Self {
        let known = cache
            .hashes
            .read()
            .map(|m| Arc::clone(&m))
            .unwrap_or_default();
        let last = cache
            .last
            .read()
            .map(|m| Arc::clone(&m))
            .unwrap_or_default();
        Hasher {
            known,
            last,
            same_as_last: true,
            new: HashMap::default(),
            cache,
        }
    }

    /// Record `i`'s name and hash in the last input (the name this input's record `i` most
    /// likely has).
    #[inline]
    pub(super) fn expected(&self, i: usize) -> Option<(&[u8], u64)> {
        self.last.get(i)
    }

    /// The hash of record `i`'s function name.
    #[inline]
    pub(super) fn record_name(&mut self, i: usize, name: &'a [u8]) -> u64 {
        if let Some(h) = self.last.hash_if(i, name) {
            return h;
        }
        self.same_as_last = false;
        self.hash(name)
    }

    pub(super) fn hash(&mut self, name: &'a [u8]) -> u64 {
        if let Some(&h) = self.known.get(name) {
            return h;
        }
        *self.new.entry(name).or_insert_with(|| md5_hash(name))
    }

    /// Publishes the names hashed here, and the records' names if they were not the last
    /// input's.
    pub(super) fn publish(self, record_names: &[(u64, &[u8])]) {
        if !self.same_as_last || self.last.ends.len() != record_names.len() {
            let mut r = RecordNames::default();
            for &(h, n) in record_names {
                r.bytes.extend_from_slice(n);
                r.ends.push((r.bytes.len(), h));
            }
            if let Ok(mut last) = self.cache.last.write() {
                *last = Arc::new(r);
            }
        }
        if self.new.is_empty() {
            return;
        }
        if let Ok(mut shared) = self.cache.hashes.write() {
            let mut m: NameHashes = (**shared).clone();
            for (n, h) in self.new {
                m.entry(Box::from(n)).or_insert(h);
            }
            *shared = Arc::new(m);
        }
    }
}

/// The symbol table of a file: its records' names and its value sites' target names. Files
/// whose records name the same functions in the same order share one table, unless a target
/// is not among those functions.
pub(super) fn table_of(
    cache: &TextNameCache,
    record_names: &[(u64, &[u8])],
    targets: &[(u64, &[u8])],
) -> Arc<SymbolTable> {
    let mut fp = record_names.len() as u64;
    for &(h, _) in record_names {
        fp = (fp.rotate_left(23) ^ h).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    let same = |seq: &[u64]| {
        seq.len() == record_names.len() && seq.iter().zip(record_names).all(|(a, (b, _))| a == b)
    };
    let mut shared = None;
    if let Ok(map) = cache.tables.lock()
        && let Some(list) = map.get(&fp)
    {
        shared = list
            .iter()
            .find(|(seq, _)| same(seq))
            .map(|(_, t)| Arc::clone(t));
    }
    let table = match shared {
        Some(t) => t,
        None => {
            let mut t = SymbolTable::new();
            for &(h, n) in record_names {
                t.insert_hashed(h, Arc::from(n));
            }
            let t = Arc::new(t);
            if let Ok(mut map) = cache.tables.lock()
                && map.values().map(Vec::len).sum::<usize>() < MAX_TABLES
            {
                let seq: Arc<[u64]> = record_names.iter().map(|&(h, _)| h).collect();
                map.entry(fp).or_default().push((seq, Arc::clone(&t)));
            }
            t
        }
    };
    if targets.iter().all(|&(h, _)| table.contains(h)) {
        return table;
    }
    let mut t = (*table).clone();
    for &(h, n) in targets {
        t.insert_hashed(h, Arc::from(n));
    }
    Arc::new(t)
}
