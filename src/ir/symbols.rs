//! Symbol tables: name hash → name.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use crate::ir::name_hash::md5_hash;

/// A name as stored in profiles: bytes (almost always ASCII), shared.
pub type Name = Arc<[u8]>;

/// Hasher for keys that are already uniformly distributed 64-bit hashes (MD5-derived name
/// hashes): the key itself is the hash.
#[derive(Debug, Default, Clone, Copy)]
pub struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only used for u64 keys; fold anything else so the hasher stays correct.
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// `HashMap` keyed by name hashes.
pub type HashKeyed<V> = HashMap<u64, V, BuildHasherDefault<IdentityHasher>>;

/// Name hash → name. Names are hashed with [`md5_hash`], as LLVM does.
#[derive(Debug, Clone, Default)]
pub struct SymbolTable {
    map: HashKeyed<Name>,
}

impl SymbolTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty table with room for `n` names.
    pub fn with_capacity(n: usize) -> Self {
        SymbolTable {
            map: HashKeyed::with_capacity_and_hasher(n, Default::default()),
        }
    }

    /// Adds a name; returns its hash. An existing entry with the same hash is kept.
    pub fn insert(&mut self, name: &[u8]) -> u64 {
        let h = md5_hash(name);
        self.map.entry(h).or_insert_with(|| Arc::from(name));
        h
    }

    /// Adds a name whose hash is already known.
    pub fn insert_hashed(&mut self, hash: u64, name: Name) {
        self.map.entry(hash).or_insert(name);
    }

    /// The name of a hash, if known.
    pub fn get(&self, hash: u64) -> Option<&Name> {
        self.map.get(&hash)
    }

    /// True if the hash is known.
    pub fn contains(&self, hash: u64) -> bool {
        self.map.contains_key(&hash)
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Adds every name of `other`.
    pub fn extend_from(&mut self, other: &SymbolTable) {
        self.map.reserve(other.map.len());
        for (h, n) in &other.map {
            self.map.entry(*h).or_insert_with(|| n.clone());
        }
    }

    /// Iterates (hash, name) in unspecified order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &Name)> {
        self.map.iter().map(|(h, n)| (*h, n))
    }
}

/// The union of several inputs' name tables, in the order they were added: the first table
/// that names a hash wins, as with [`SymbolTable::extend_from`]. While only one table has been
/// added it is shared, not copied: most merges read files of one binary, whose table can hold
/// millions of names.
#[derive(Debug, Clone, Default)]
pub struct SymbolTableUnion {
    /// The only table added so far, if nothing else was added.
    shared: Option<Arc<SymbolTable>>,
    /// The union, once a second table or a single name was added.
    owned: SymbolTable,
}

impl SymbolTableUnion {
    /// Adds every entry of `table` not already named.
    pub fn add_table(&mut self, table: &Arc<SymbolTable>) {
        if self.shared.is_none() && self.owned.is_empty() {
            self.shared = Some(Arc::clone(table));
            return;
        }
        self.materialise();
        self.owned.extend_from(table);
    }

    /// Adds a name whose hash is known, unless the hash is already named.
    pub fn insert_hashed(&mut self, hash: u64, name: Name) {
        self.materialise();
        self.owned.insert_hashed(hash, name);
    }

    /// The name of a hash, if known.
    pub fn get(&self, hash: u64) -> Option<&Name> {
        match &self.shared {
            Some(t) => t.get(hash),
            None => self.owned.get(hash),
        }
    }

    /// The union as one table (the shared one itself if it is all there is).
    pub fn finish(self) -> Arc<SymbolTable> {
        match self.shared {
            Some(t) => t,
            None => Arc::new(self.owned),
        }
    }

    fn materialise(&mut self) {
        if let Some(t) = self.shared.take() {
            self.owned.extend_from(&t);
        }
    }
}

/// Renders a name for messages (lossy UTF-8).
pub fn display_name(name: &[u8]) -> String {
    String::from_utf8_lossy(name).into_owned()
}
