//! The symbol table of Java profiles (GraalVM `.iprof`): types and methods, identified by
//! name, never by the per-file ids a profile uses.
//!
//! * A **type** is its fully qualified name (`java.lang.String`, `[Ljava.lang.String;`, `int`).
//! * A **method** is its simple name plus its signature: the declaring type, the return type
//!   and the parameter types, in that order (the iprof `signature` array; the receiver is not
//!   listed). Two methods with one name and different signatures are different methods.
//!
//! Ids ([`TypeId`], [`MethodId`]) are dense indices into one table, assigned in insertion
//! order; they mean nothing outside that table. Translating between tables goes through the
//! names ([`JavaSymbols::intern_type`], [`JavaSymbols::intern_method`]).

use std::hash::Hasher;

use super::fx::{FxHashMap, FxHasher, hash_bytes};

/// A type of one [`JavaSymbols`] table: an index into its type list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u32);

/// A method of one [`JavaSymbols`] table: an index into its method list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MethodId(pub u32);

/// A borrowed view of one method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MethodRef<'a> {
    /// Simple name (`main`, `<init>`).
    pub name: &'a str,
    /// `[declaring type, return type, parameter types…]`; may be shorter in stripped files.
    pub signature: &'a [TypeId],
}

const END: u32 = u32::MAX;

/// Interned strings in one arena: index → text, text → index. No allocation per string.
#[derive(Debug, Clone, Default)]
struct StrArena {
    text: String,
    spans: Vec<(usize, usize)>,
    /// hash → first index with that hash; further ones chain through `next`.
    heads: FxHashMap<u64, u32>,
    next: Vec<u32>,
}

impl StrArena {
    fn len(&self) -> usize {
        self.spans.len()
    }
    fn get(&self, i: u32) -> Option<&str> {
        let &(a, b) = self.spans.get(i as usize)?;
        self.text.get(a..b)
    }
    fn find_hashed(&self, h: u64, s: &str) -> Option<u32> {
        let mut i = *self.heads.get(&h)?;
        while i != END {
            if self.get(i) == Some(s) {
                return Some(i);
            }
            i = self.next.get(i as usize).copied().unwrap_or(END);
        }
        None
    }
    fn find(&self, s: &str) -> Option<u32> {
        self.find_hashed(hash_bytes(s.as_bytes()), s)
    }
    fn intern(&mut self, s: &str) -> u32 {
        let h = hash_bytes(s.as_bytes());
        if let Some(i) = self.find_hashed(h, s) {
            return i;
        }
        let i = self.spans.len() as u32;
        let a = self.text.len();
        self.text.push_str(s);
        self.spans.push((a, self.text.len()));
        let prev = self.heads.insert(h, i).unwrap_or(END);
        self.next.push(prev);
        i
    }
    fn reserve(&mut self, n: usize) {
        self.spans.reserve(n);
        self.heads.reserve(n);
        self.next.reserve(n);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MethodRec {
    name: u32,
    sig_start: usize,
    sig_len: usize,
}

/// Types and methods of a Java profile, interned by name.
///
/// Invariants: every [`TypeId`] in a method signature is below [`JavaSymbols::type_count`];
/// no two types share a name and no two methods share (name, signature). Storage is a few
/// arenas (names, signatures) plus hash indices, so interning allocates nothing per symbol.
#[derive(Debug, Clone, Default)]
pub struct JavaSymbols {
    types: StrArena,
    names: StrArena,
    methods: Vec<MethodRec>,
    sig_pool: Vec<TypeId>,
    method_heads: FxHashMap<u64, u32>,
    method_next: Vec<u32>,
}

impl PartialEq for JavaSymbols {
    fn eq(&self, other: &Self) -> bool {
        self.type_count() == other.type_count()
            && self.types().zip(other.types()).all(|(a, b)| a == b)
            && self.method_count() == other.method_count()
            && self
                .methods()
                .zip(other.methods())
                .all(|((_, a), (_, b))| a == b)
    }
}

fn method_hash(name: u32, sig: &[TypeId]) -> u64 {
    let mut h = FxHasher::default();
    h.write_u32(name);
    h.write_usize(sig.len());
    for t in sig {
        h.write_u32(t.0);
    }
    h.finish()
}

impl JavaSymbols {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of types.
    pub fn type_count(&self) -> usize {
        self.types.len()
    }

    /// Number of methods.
    pub fn method_count(&self) -> usize {
        self.methods.len()
    }

    /// Reserves room for `types` more types and `methods` more methods.
    pub fn reserve(&mut self, types: usize, methods: usize) {
        self.types.reserve(types);
        self.methods.reserve(methods);
        self.method_heads.reserve(methods);
        self.method_next.reserve(methods);
    }

    /// The id of type `name`, adding it if new.
    pub fn intern_type(&mut self, name: &str) -> TypeId {
        TypeId(self.types.intern(name))
    }

    /// The id of type `name`, if present.
    pub fn type_id(&self, name: &str) -> Option<TypeId> {
        self.types.find(name).map(TypeId)
    }

    /// The name of a type, or `None` for an id that is not of this table.
    pub fn type_name(&self, id: TypeId) -> Option<&str> {
        self.types.get(id.0)
    }

    /// All types in id order.
    pub fn types(&self) -> impl ExactSizeIterator<Item = (TypeId, &str)> {
        (0..self.types.len() as u32).map(|i| (TypeId(i), self.types.get(i).unwrap_or("")))
    }

    fn rec(&self, id: MethodId) -> Option<MethodRef<'_>> {
        let m = self.methods.get(id.0 as usize)?;
        Some(MethodRef {
            name: self.names.get(m.name).unwrap_or(""),
            signature: self
                .sig_pool
                .get(m.sig_start..m.sig_start + m.sig_len)
                .unwrap_or_default(),
        })
    }

    fn find_method(&self, name: u32, h: u64, sig: &[TypeId]) -> Option<MethodId> {
        let mut i = *self.method_heads.get(&h)?;
        while i != END {
            if let Some(m) = self.methods.get(i as usize)
                && m.name == name
                && self.sig_pool.get(m.sig_start..m.sig_start + m.sig_len) == Some(sig)
            {
                return Some(MethodId(i));
            }
            i = self.method_next.get(i as usize).copied().unwrap_or(END);
        }
        None
    }

    /// The id of the method (`name`, `signature`), adding it if new. Signature ids must be of
    /// this table.
    pub fn intern_method(&mut self, name: &str, signature: &[TypeId]) -> MethodId {
        let name = self.names.intern(name);
        let h = method_hash(name, signature);
        if let Some(id) = self.find_method(name, h, signature) {
            return id;
        }
        let id = self.methods.len() as u32;
        self.methods.push(MethodRec {
            name,
            sig_start: self.sig_pool.len(),
            sig_len: signature.len(),
        });
        self.sig_pool.extend_from_slice(signature);
        let prev = self.method_heads.insert(h, id).unwrap_or(END);
        self.method_next.push(prev);
        MethodId(id)
    }

    /// The id of the method (`name`, `signature`), if present.
    pub fn method_id(&self, name: &str, signature: &[TypeId]) -> Option<MethodId> {
        let name = self.names.find(name)?;
        self.find_method(name, method_hash(name, signature), signature)
    }

    /// All methods with simple name `name`, in id order (a linear scan; for look-ups by
    /// name alone, e.g. symbolising samples that carry no signature).
    pub fn methods_named<'s>(&'s self, name: &str) -> impl Iterator<Item = MethodId> + 's {
        let want = self.names.find(name);
        self.methods
            .iter()
            .enumerate()
            .filter(move |(_, m)| Some(m.name) == want)
            .map(|(i, _)| MethodId(i as u32))
    }

    /// A method, or `None` for an id that is not of this table.
    pub fn method(&self, id: MethodId) -> Option<MethodRef<'_>> {
        self.rec(id)
    }

    /// All methods in id order.
    pub fn methods(&self) -> impl ExactSizeIterator<Item = (MethodId, MethodRef<'_>)> {
        (0..self.methods.len() as u32).map(|i| {
            let r = self.rec(MethodId(i)).unwrap_or(MethodRef {
                name: "",
                signature: &[],
            });
            (MethodId(i), r)
        })
    }

    /// The method's signature as type names (`[declaring, return, params…]`).
    pub fn signature_names(&self, id: MethodId) -> Vec<&str> {
        self.method(id)
            .map(|m| {
                m.signature
                    .iter()
                    .map(|t| self.type_name(*t).unwrap_or("?"))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A readable method name for messages: `Declaring.name(Param1, Param2)Return`.
    pub fn display_method(&self, id: MethodId) -> String {
        let Some(m) = self.method(id) else {
            return format!("<method {}>", id.0);
        };
        let names = self.signature_names(id);
        match names.as_slice() {
            [decl, ret, params @ ..] => format!("{decl}.{}({}){ret}", m.name, params.join(", ")),
            [decl] => format!("{decl}.{}", m.name),
            [] => m.name.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_by_name_and_signature() {
        let mut s = JavaSymbols::new();
        let int = s.intern_type("int");
        let str_ = s.intern_type("java.lang.String");
        assert_eq!(s.intern_type("int"), int);
        let a = s.intern_method("hashCode", &[str_, int]);
        let b = s.intern_method("hashCode", &[str_, int]);
        let c = s.intern_method("hashCode", &[int, int]);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(s.method_id("hashCode", &[str_, int]), Some(a));
        assert_eq!(s.method_id("nope", &[]), None);
        assert_eq!(s.methods_named("hashCode").count(), 2);
        assert_eq!(s.display_method(a), "java.lang.String.hashCode()int");
        assert_eq!(s.type_name(TypeId(99)), None);
    }
}
