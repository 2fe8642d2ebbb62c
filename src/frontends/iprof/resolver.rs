//! The file's type table ([`TypeTable`]) and the [`Resolver`], which takes the file ids
//! that entries use (type ids in histograms, method ids in contexts) to IR ids, interning
//! each type or method in the profile's symbol table the first time it is met.
//!
//! Interning a method interns the types of its signature. The cache of type ids is a
//! vector indexed like `types` ([`NOT_YET`] until interned); that of method ids is the
//! method table's own id map, whose slot for a method holds its IR id marked
//! [`RESOLVED`] once interned. Only checked tables reach the resolver: every id in a
//! method's coded signature is an index into `types`.

use crate::bytes::leb128::take_uleb;
use crate::ir::java_symbols::{JavaSymbols, MethodId, TypeId};

use super::id_map::IdMap;
use super::method_table::{MethodTable, RESOLVED};
use super::model::TypeEntry;

/// Marks a cache slot of [`Resolver`] not interned yet.
pub(super) const NOT_YET: u32 = u32::MAX;

/// The file's `types` array with its id index.
pub(super) struct TypeTable<'a> {
    pub(super) entries: Vec<TypeEntry<'a>>,
    /// File type id → index in `entries` (first of duplicates).
    pub(super) idx: IdMap,
}

/// The IR id of type `i` of `types`, interned on first use (cached in `cache`).
fn type_in(
    types: &TypeTable<'_>,
    cache: &mut [u32],
    syms: &mut JavaSymbols,
    i: usize,
) -> Option<TypeId> {
    let slot = cache.get_mut(i)?;
    if *slot != NOT_YET {
        return Some(TypeId(*slot));
    }
    let t = syms.intern_type(&types.entries.get(i)?.name);
    *slot = t.0;
    Some(t)
}

/// Interns the method `name` with the coded signature `coded` (indices into `types`,
/// translated through `type_cache`); `sig` is scratch space.
fn intern_coded(
    types: &TypeTable<'_>,
    type_cache: &mut [u32],
    sig: &mut Vec<TypeId>,
    syms: &mut JavaSymbols,
    name: &str,
    mut coded: &[u8],
) -> MethodId {
    sig.clear();
    while let Some(t) = take_uleb(&mut coded) {
        if let Some(ty) = type_in(types, type_cache, syms, t as usize) {
            sig.push(ty);
        }
    }
    syms.intern_method(name, sig)
}

/// Resolves file ids to IR ids, interning symbols on first use.
pub(super) struct Resolver<'a> {
    pub(super) types: TypeTable<'a>,
    pub(super) methods: MethodTable,
    /// IR id per index in `types`, [`NOT_YET`] until interned. (A method's IR id, once
    /// interned, replaces its index in `methods.idx`, marked [`RESOLVED`].)
    pub(super) type_cache: Vec<u32>,
    pub(super) sig: Vec<TypeId>,
}

impl Resolver<'_> {
    pub(super) fn type_at(&mut self, syms: &mut JavaSymbols, i: usize) -> Option<TypeId> {
        type_in(&self.types, &mut self.type_cache, syms, i)
    }

    pub(super) fn type_id(&mut self, syms: &mut JavaSymbols, file_id: i64) -> Option<TypeId> {
        let i = self.types.idx.get(file_id)? as usize;
        self.type_at(syms, i)
    }

    /// Interns method `i` of the table (no caching: see [`Self::method_id`]).
    fn method_at(&mut self, syms: &mut JavaSymbols, i: usize) -> Option<MethodId> {
        let Resolver {
            types,
            methods,
            type_cache,
            sig,
        } = self;
        let (name, coded) = methods.record(i)?;
        Some(intern_coded(types, type_cache, sig, syms, name, coded))
    }

    /// Interns every method of the table that its id map leads to, in file order, reading
    /// the records front to back; lookups by id then find them resolved.
    pub(super) fn intern_all_methods(&mut self, syms: &mut JavaSymbols) {
        let mut ids = vec![None; self.methods.len()];
        for (id, i) in self.methods.idx.iter() {
            if let Some(slot) = ids.get_mut(i as usize) {
                *slot = Some(id);
            }
        }
        let Resolver {
            types,
            methods,
            type_cache,
            sig,
        } = self;
        let interned: Vec<Option<MethodId>> = methods
            .records()
            .zip(&ids)
            .map(|((name, coded), id)| {
                id.map(|_| intern_coded(types, type_cache, sig, syms, name, coded))
            })
            .collect();
        for (id, m) in ids.into_iter().zip(interned) {
            if let (Some(id), Some(m)) = (id, m) {
                self.methods.resolved(id, m);
            }
        }
    }

    /// The IR id of the method with file id `file_id`, interned on first use; from then on
    /// its slot in `methods.idx` holds the IR id (marked [`RESOLVED`]) instead of its index,
    /// so the cache costs no memory of its own.
    pub(super) fn method_id(&mut self, syms: &mut JavaSymbols, file_id: i64) -> Option<MethodId> {
        let v = self.methods.idx.get(file_id)?;
        if v & RESOLVED != 0 {
            return Some(MethodId(v & !RESOLVED));
        }
        let m = self.method_at(syms, v as usize)?;
        self.methods.resolved(file_id, m);
        Some(m)
    }
}
