//! [`IdMap`]: the ids a file gives its types and methods (any `i64`) → 32-bit values (an
//! index into the file's table, or for methods once interned an IR id marked
//! [`RESOLVED`](super::method_table::RESOLVED)).
//!
//! Ids in a dense non-negative range are kept in a vector indexed by id, the others in a
//! hash map. The vector grows with the number of ids inserted (at most about twice that,
//! plus 1024), never to a size read from the file. `u32::MAX` marks an empty slot, so it
//! must never be inserted as a value. The first insertion of an id wins.

use crate::ir::fx::FxHashMap;

/// Maps file ids (any `i64`) to indices: a vector for ids in a dense non-negative range (the
/// common case; it grows with the number of ids inserted, never to a size read from the
/// file), a hash map for the others.
#[derive(Debug, Default)]
pub(super) struct IdMap {
    /// `u32::MAX`: no entry.
    pub(super) dense: Vec<u32>,
    sparse: FxHashMap<i64, u32>,
    len: usize,
}

impl IdMap {
    const NONE: u32 = u32::MAX;

    pub(super) fn get(&self, id: i64) -> Option<u32> {
        let d = usize::try_from(id)
            .ok()
            .and_then(|i| self.dense.get(i))
            .copied()
            .filter(|&v| v != Self::NONE);
        d.or_else(|| self.sparse.get(&id).copied())
    }

    /// Every (id, value) pair: the dense range in id order, then the others in no order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (i64, u32)> + '_ {
        let dense = (0i64..)
            .zip(self.dense.iter().copied())
            .filter(|&(_, v)| v != Self::NONE);
        dense.chain(self.sparse.iter().map(|(&id, &v)| (id, v)))
    }

    /// The value slot of `id`, if present.
    pub(super) fn slot_mut(&mut self, id: i64) -> Option<&mut u32> {
        let dense = usize::try_from(id)
            .ok()
            .filter(|&i| self.dense.get(i).is_some_and(|&v| v != Self::NONE));
        match dense {
            Some(i) => self.dense.get_mut(i),
            None => self.sparse.get_mut(&id),
        }
    }

    /// Inserts; returns false if the id was already present.
    pub(super) fn insert(&mut self, id: i64, v: u32) -> bool {
        if self.get(id).is_some() {
            return false;
        }
        self.len += 1;
        if let Ok(i) = usize::try_from(id) {
            // Grow the vector only as far as the number of ids justifies.
            let limit = self.len.saturating_mul(2).saturating_add(1024);
            if i >= self.dense.len() && i < limit {
                // A quarter more at a time: the vector is a large part of a method table.
                let len = self.dense.len();
                let new_len = (i + 1).max(len + len / 4 + 256).min(limit);
                self.dense.reserve_exact(new_len - len);
                self.dense.resize(new_len, Self::NONE);
            }
            if let Some(slot) = self.dense.get_mut(i) {
                *slot = v;
                return true;
            }
        }
        self.sparse.insert(id, v);
        true
    }
}
