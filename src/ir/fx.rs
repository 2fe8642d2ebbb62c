//! A small, fast, non-cryptographic hasher for in-memory tables (the "Fx" hash of rustc and
//! Firefox, from the `rustc-hash` crate), on the hot paths of iprof, sample-profile and text-profile reading and merging.
//!
//! Its keys include bytes read from inputs (function names of text and sample profiles,
//! Java symbols of iprof files, `perf script` frames), not only ids this process made up.
//! It is not resistant to hash flooding: an input crafted so that many names collide makes
//! those tables slow (never wrong). Profiles are build artefacts of the user's own builds,
//! and SipHash (std's flooding-resistant default) costs these tables a large share of their
//! time; the trade is made knowingly.

use std::collections::{HashMap, HashSet};
use std::hash::Hasher;

pub use rustc_hash::{FxBuildHasher, FxHasher};

/// Hashes bytes with [`FxHasher`] (a final `0xff` byte, as `str`'s `Hash` adds, keeps a
/// byte string apart from its prefixes).
#[inline]
pub fn hash_bytes(b: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(b);
    h.write_u8(0xff);
    h.finish()
}

/// `HashMap` with the Fx hash.
pub type FxHashMap<K, V> = HashMap<K, V, FxBuildHasher>;
/// `HashSet` with the Fx hash.
pub type FxHashSet<K> = HashSet<K, FxBuildHasher>;
