//! The iteration order of a libstdc++ `std::unordered_map<uint64_t, T>`, which decides the
//! order of some records LLVM writes.
//!
//! `llvm-profdata` keeps sample profiles in `SampleProfileMap`, an `std::unordered_map` keyed
//! by a 64-bit hash of each function's context (the MD5 of a name). Most of what it writes is
//! sorted first, but the extbinary function-metadata section (checksums, attributes) is
//! written in the map's own iteration order, and the merge fills its map in each input map's
//! iteration order. To write the same bytes we replay the container: the order depends only
//! on the keys, the order they were first inserted in and the bucket counts, which follow
//! libstdc++'s prime rehash policy (maximum load factor 1, growth factor 2). `std::hash` of an
//! integer is the integer itself.
//!
//! Model of libstdc++'s `_Hashtable` with unique keys: all nodes form one singly linked list
//! (the iteration order); a bucket points at the node *before* its first node. A new key whose
//! bucket is empty goes to the front of the list; otherwise it goes to the front of its
//! bucket's run. A rehash walks the old list and rebuilds the list the same way.

#[cfg(feature = "sample")]
use crate::codec::llvm_hash::ContextHash;
#[cfg(feature = "sample")]
use crate::ir::sample::{SampleContext, SampleProfile};

/// libstdc++'s `__fast_bkt`: bucket counts for requests below 14.
const FAST_BUCKETS: [u64; 14] = [2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13];

/// libstdc++'s `__prime_list` from 17 on (the part `_M_next_bkt` searches), up to what any
/// profile can need; the last entry stands for "no more growth" as libstdc++'s last prime does.
const PRIMES: &[u64] = &[
    17,
    19,
    23,
    29,
    31,
    37,
    41,
    43,
    47,
    53,
    59,
    61,
    67,
    71,
    73,
    79,
    83,
    89,
    97,
    103,
    109,
    113,
    127,
    137,
    139,
    149,
    157,
    167,
    179,
    193,
    199,
    211,
    227,
    241,
    257,
    277,
    293,
    313,
    337,
    359,
    383,
    409,
    439,
    467,
    503,
    541,
    577,
    619,
    661,
    709,
    761,
    823,
    887,
    953,
    1031,
    1109,
    1193,
    1289,
    1381,
    1493,
    1613,
    1741,
    1879,
    2029,
    2179,
    2357,
    2549,
    2753,
    2971,
    3209,
    3469,
    3739,
    4027,
    4349,
    4703,
    5087,
    5503,
    5953,
    6427,
    6949,
    7517,
    8123,
    8783,
    9497,
    10273,
    11113,
    12011,
    12983,
    14033,
    15173,
    16411,
    17749,
    19183,
    20753,
    22447,
    24281,
    26267,
    28411,
    30727,
    33223,
    35933,
    38873,
    42043,
    45481,
    49201,
    53201,
    57557,
    62233,
    67307,
    72817,
    78779,
    85229,
    92203,
    99733,
    107897,
    116731,
    126271,
    136607,
    147793,
    159871,
    172933,
    187091,
    202409,
    218971,
    236897,
    256279,
    277261,
    299951,
    324503,
    351061,
    379787,
    410857,
    444487,
    480881,
    520241,
    562841,
    608903,
    658753,
    712697,
    771049,
    834181,
    902483,
    976369,
    1056323,
    1142821,
    1236397,
    1337629,
    1447153,
    1565659,
    1693859,
    1832561,
    1982627,
    2144977,
    2320627,
    2510653,
    2716249,
    2938679,
    3179303,
    3439651,
    3721303,
    4026031,
    4355707,
    4712381,
    5098259,
    5515729,
    5967347,
    6456007,
    6984629,
    7556579,
    8175383,
    8844859,
    9569143,
    10352717,
    11200489,
    12117689,
    13109983,
    14183539,
    15345007,
    16601593,
    17961079,
    19431899,
    21023161,
    22744717,
    24607243,
    26622317,
    28802401,
    31160981,
    33712729,
    36473443,
    39460231,
    42691603,
    46187573,
    49969847,
    54061849,
    58488943,
    63278561,
    68460391,
    74066549,
    80131819,
    86693767,
    93793069,
    101473717,
    109783337,
    118773397,
    128499677,
    139022417,
    150406843,
    162723577,
    176048909,
    190465427,
    206062531,
    222936881,
    241193053,
    260944219,
    282312799,
    305431229,
    330442829,
    357502601,
    386778277,
    418451333,
    452718089,
    489790921,
    529899637,
    573292817,
    620239453,
    671030513,
    725980837,
    785430967,
    849749479,
    919334987,
    994618837,
    1076067617,
    1164186217,
    1259520799,
    1362662261,
    1474249943,
    1594975441,
    1725587117,
    1866894511,
    2019773507,
    2185171673,
    2364114217,
    2557710269,
    2767159799,
    2993761039,
    3238918481,
    3504151727,
    3791104843,
    4101556399,
    4294967291,
    6442450933,
    8589934583,
    12884901857,
];

const NIL: u32 = u32::MAX;
/// Stands for the list head (`_M_before_begin`) in bucket slots.
const HEAD: u32 = u32::MAX - 1;

/// Replays insertions of distinct 64-bit keys into a libstdc++ `unordered_map` and yields the
/// map's iteration order.
///
/// Keys are identified by the index of their first insertion (`0, 1, 2, …`); inserting a key
/// already present changes nothing, as `operator[]`/`try_emplace` do not.
#[derive(Debug, Clone)]
pub struct UnorderedOrder {
    keys: Vec<u64>,
    next: Vec<u32>,
    /// Per bucket: the node before the bucket's first node (`HEAD` for the list head), or NIL.
    buckets: Vec<u32>,
    first: u32,
    next_resize: u64,
    index: std::collections::HashMap<u64, u32>,
    /// Keys present (`_M_element_count`): inserted minus removed.
    live: u64,
}

impl Default for UnorderedOrder {
    fn default() -> Self {
        Self::new()
    }
}

impl UnorderedOrder {
    /// An empty map (one bucket, as a default-constructed `unordered_map`).
    pub fn new() -> Self {
        UnorderedOrder {
            keys: Vec::new(),
            next: Vec::new(),
            buckets: vec![NIL],
            first: NIL,
            next_resize: 0,
            index: std::collections::HashMap::new(),
            live: 0,
        }
    }

    /// Number of distinct keys inserted.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True if nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// `_Prime_rehash_policy::_M_next_bkt`: the bucket count for a request of `n`, updating
    /// the next resize threshold.
    fn next_bucket_count(&mut self, n: u64) -> u64 {
        if n < FAST_BUCKETS.len() as u64 {
            if n == 0 {
                return 1;
            }
            let b = FAST_BUCKETS[n as usize];
            self.next_resize = b;
            return b;
        }
        let last = PRIMES.len() - 1;
        let i = PRIMES[..last].partition_point(|&p| p < n);
        if i == last {
            self.next_resize = u64::MAX;
        } else {
            self.next_resize = PRIMES[i];
        }
        PRIMES[i]
    }

    /// `_M_need_rehash` for one insertion: the new bucket count, if any.
    fn need_rehash(&mut self) -> Option<u64> {
        let n_bkt = self.buckets.len() as u64;
        let n_elt = self.live;
        if n_elt < self.next_resize {
            return None;
        }
        // The maximum load factor is 1, so the floating-point arithmetic of libstdc++ is exact
        // for every count a profile can have.
        let min_bkts = (n_elt + 1).max(if self.next_resize == 0 { 11 } else { 0 });
        if min_bkts >= n_bkt {
            let want = (min_bkts + 1).max(n_bkt * 2);
            Some(self.next_bucket_count(want))
        } else {
            self.next_resize = n_bkt;
            None
        }
    }

    fn bucket_of(&self, node: u32, n: u64) -> usize {
        (self.keys[node as usize] % n) as usize
    }

    fn rehash(&mut self, n: u64) {
        let mut buckets = vec![NIL; n as usize];
        let mut p = self.first;
        self.first = NIL;
        let mut bbegin_bkt = 0usize;
        while p != NIL {
            let following = self.next[p as usize];
            let b = self.bucket_of(p, n);
            if buckets[b] == NIL {
                self.next[p as usize] = self.first;
                self.first = p;
                buckets[b] = HEAD;
                if self.next[p as usize] != NIL {
                    buckets[bbegin_bkt] = p;
                }
                bbegin_bkt = b;
            } else {
                let before = buckets[b];
                let after = self.after(before);
                self.next[p as usize] = after;
                self.set_after(before, p);
            }
            p = following;
        }
        self.buckets = buckets;
    }

    fn after(&self, node: u32) -> u32 {
        if node == HEAD {
            self.first
        } else {
            self.next[node as usize]
        }
    }

    fn set_after(&mut self, node: u32, value: u32) {
        if node == HEAD {
            self.first = value;
        } else {
            self.next[node as usize] = value;
        }
    }

    /// Inserts `key` if absent; returns true if it was new.
    pub fn insert(&mut self, key: u64) -> bool {
        if self.index.contains_key(&key) {
            return false;
        }
        if let Some(n) = self.need_rehash() {
            self.rehash(n);
        }
        let node = self.keys.len() as u32;
        self.keys.push(key);
        self.next.push(NIL);
        self.index.insert(key, node);
        self.live += 1;
        let n = self.buckets.len() as u64;
        let b = (key % n) as usize;
        if self.buckets[b] != NIL {
            let before = self.buckets[b];
            let after = self.after(before);
            self.next[node as usize] = after;
            self.set_after(before, node);
        } else {
            self.next[node as usize] = self.first;
            self.first = node;
            if self.next[node as usize] != NIL {
                let nb = self.bucket_of(self.next[node as usize], n);
                self.buckets[nb] = node;
            }
            self.buckets[b] = HEAD;
        }
        true
    }

    /// Removes `key` if present (`erase`, libstdc++'s `_M_erase`): the others keep their
    /// relative order, and a later insertion sees the buckets as libstdc++ leaves them.
    pub fn remove(&mut self, key: u64) -> bool {
        let Some(node) = self.index.remove(&key) else {
            return false;
        };
        let n = self.buckets.len() as u64;
        let b = self.bucket_of(node, n);
        // The node before it: from the node before its bucket's first node, within the run.
        let bucket_before = self.buckets[b];
        let mut prev = bucket_before;
        while self.after(prev) != node {
            prev = self.after(prev);
        }
        let following = self.next[node as usize];
        let following_bkt = (following != NIL).then(|| self.bucket_of(following, n));
        if prev == bucket_before {
            // It began its bucket (`_M_remove_bucket_begin`): the bucket empties unless the
            // next node is in it; a next node of another bucket now begins after `prev`.
            if following_bkt != Some(b) {
                if let Some(nb) = following_bkt {
                    self.buckets[nb] = bucket_before;
                }
                self.buckets[b] = NIL;
            }
        } else if let Some(nb) = following_bkt
            && nb != b
        {
            self.buckets[nb] = prev;
        }
        self.set_after(prev, following);
        self.next[node as usize] = NIL;
        self.live -= 1;
        true
    }

    /// Removes every key of `keys` that is present (a run of `erase` calls, as one pass over
    /// the list); returns how many were. The others keep their relative order.
    pub fn remove_many(&mut self, keys: impl IntoIterator<Item = u64>) -> usize {
        let mut gone = vec![false; self.keys.len()];
        let mut removed = 0;
        for k in keys {
            if let Some(node) = self.index.remove(&k) {
                gone[node as usize] = true;
                removed += 1;
            }
        }
        if removed == 0 {
            return 0;
        }
        self.live -= removed as u64;
        let mut prev = HEAD;
        let mut p = self.first;
        while p != NIL {
            let following = self.next[p as usize];
            if gone[p as usize] {
                self.next[p as usize] = NIL;
            } else {
                self.set_after(prev, p);
                prev = p;
            }
            p = following;
        }
        self.set_after(prev, NIL);
        self.rebuild_buckets();
        removed
    }

    fn rebuild_buckets(&mut self) {
        let n = self.buckets.len() as u64;
        self.buckets.iter_mut().for_each(|b| *b = NIL);
        let mut prev = HEAD;
        let mut p = self.first;
        while p != NIL {
            let b = self.bucket_of(p, n);
            if self.buckets[b] == NIL {
                self.buckets[b] = prev;
            }
            prev = p;
            p = self.next[p as usize];
        }
    }

    /// The keys in iteration order.
    pub fn keys_in_order(&self) -> Vec<u64> {
        self.order().into_iter().map(|i| self.keys[i]).collect()
    }

    /// Insertion indices (0 = first key inserted) in iteration order.
    pub fn order(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.index.len());
        let mut p = self.first;
        while p != NIL {
            out.push(p as usize);
            p = self.next[p as usize];
        }
        out
    }
}

/// The iteration order of a map filled with `keys` in this order (repeats ignored), as
/// indices into `keys` of each key's first occurrence.
pub fn iteration_order(keys: &[u64]) -> Vec<usize> {
    let mut m = UnorderedOrder::new();
    let mut first_at = Vec::with_capacity(keys.len());
    for (i, &k) in keys.iter().enumerate() {
        if m.insert(k) {
            first_at.push(i);
        }
    }
    m.order().into_iter().map(|n| first_at[n]).collect()
}

/// The key LLVM's `SampleProfileMap` stores a top-level profile under: the MD5 of a plain
/// function's name; for a calling context, `hash_combine_range` of its frames' hashes
/// (`SampleContext::getHashCode`), hashed as the release `hash` stands for does.
#[cfg(feature = "sample")]
pub fn sample_map_key(ctx: &SampleContext, hash: ContextHash) -> u64 {
    match ctx {
        SampleContext::Function(f) => f.hash_code(),
        SampleContext::Context(frames) => {
            let hashes: Vec<u64> = frames
                .iter()
                .map(|fr| {
                    hash.frame(
                        || fr.function.hash_code(),
                        fr.function.as_bytes(),
                        fr.location.line_offset,
                        fr.location.discriminator,
                    )
                })
                .collect();
            hash.combine(&hashes)
        }
    }
}

/// The iteration order of a sample profile's `SampleProfileMap`, replayed from its
/// [`SampleProfile::insertion_order`] and its [`SampleProfile::erased`] keys (each erased
/// after the number of insertions [`SampleProfile::erased_after`] says); `None` when it
/// cannot be (order unknown or stale).
#[cfg(feature = "sample")]
pub fn sample_map_order(profile: &SampleProfile) -> Option<Vec<&SampleContext>> {
    let order = &profile.insertion_order;
    let erased = &profile.erased;
    // When each key was erased: after that many insertions (all of them when not said).
    let after = |e: usize| profile.erased_after.get(e).copied().unwrap_or(order.len());
    if (1..erased.len()).any(|e| after(e) < after(e - 1)) {
        return None;
    }
    // Usable only if it is a history of the map that ends with the profile's keys: each
    // insertion of a key absent then, each erasure of a key present, and what remains every
    // profile exactly once (a pass that added or removed profiles without recording it
    // leaves it stale). A key erased and inserted again appears twice in `order`.
    let mut live: std::collections::HashSet<&SampleContext> =
        std::collections::HashSet::with_capacity(order.len());
    let mut e = 0;
    for (i, c) in order.iter().enumerate() {
        while e < erased.len() && after(e) <= i {
            if !live.remove(&erased[e]) {
                return None;
            }
            e += 1;
        }
        if !live.insert(c) {
            return None;
        }
    }
    if !erased[e..].iter().all(|c| live.remove(c))
        || live.len() != profile.functions.len()
        || !live.iter().all(|c| profile.functions.contains_key(*c))
    {
        return None;
    }
    let keys: Vec<u64> = order
        .iter()
        .map(|c| sample_map_key(c, profile.context_hash))
        .collect();
    if erased.is_empty() {
        return Some(
            iteration_order(&keys)
                .into_iter()
                .map(|i| &order[i])
                .collect(),
        );
    }
    let erased_keys: Vec<u64> = erased
        .iter()
        .map(|c| sample_map_key(c, profile.context_hash))
        .collect();
    let mut m = UnorderedOrder::new();
    let mut first_at = Vec::with_capacity(keys.len());
    let mut e = 0;
    for (i, &k) in keys.iter().enumerate() {
        while e < erased_keys.len() && after(e) <= i {
            m.remove(erased_keys[e]);
            e += 1;
        }
        if m.insert(k) {
            first_at.push(i);
        }
    }
    m.remove_many(erased_keys[e..].iter().copied());
    Some(m.order().into_iter().map(|n| &order[first_at[n]]).collect())
}

/// The insertion order of the map `llvm-profdata merge --sample` builds from `inputs` (in
/// input order): each input's contexts in that input map's iteration order, each context
/// once. Inputs whose order cannot be replayed contribute theirs as recorded.
#[cfg(feature = "sample")]
pub fn merged_insertion_order<'p>(
    inputs: impl IntoIterator<Item = &'p SampleProfile>,
) -> Vec<SampleContext> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for p in inputs {
        let order: Vec<&SampleContext> =
            sample_map_order(p).unwrap_or_else(|| p.insertion_order.iter().collect());
        for ctx in order {
            if seen.insert(ctx.clone()) {
                out.push(ctx.clone());
            }
        }
    }
    out
}

#[cfg(feature = "sample")]
#[cfg(test)]
mod tests {
    use super::*;

    /// Expected orders printed by a C++ program inserting the same keys into
    /// `std::unordered_map<uint64_t, int>` (g++ 12, libstdc++ 12).
    #[test]
    fn matches_libstdcxx() {
        // 1..=40 in order: crosses the rehashes at 13 and 29 buckets.
        let keys: Vec<u64> = (1..=40).collect();
        let mut m = UnorderedOrder::new();
        for &k in &keys {
            m.insert(k);
        }
        assert_eq!(m.keys_in_order(), EXPECTED_1_TO_40.to_vec());
        let mut m = UnorderedOrder::new();
        for &k in &MIXED_KEYS {
            m.insert(k);
        }
        assert_eq!(m.keys_in_order(), EXPECTED_MIXED.to_vec());
    }

    #[test]
    fn repeats_and_removal() {
        let order = iteration_order(&[5, 7, 5, 9]);
        assert_eq!(order.len(), 3);
        let mut m = UnorderedOrder::new();
        for k in [3u64, 4, 5] {
            m.insert(k);
        }
        let before = m.keys_in_order();
        assert!(m.remove(4));
        assert!(!m.remove(4));
        let after: Vec<u64> = before.into_iter().filter(|&k| k != 4).collect();
        assert_eq!(m.keys_in_order(), after);
    }

    #[test]
    fn removing_many_is_removing_each() {
        let keys: Vec<u64> = (1..=40).map(|k| k * 7919 % 101).collect();
        let mut one = UnorderedOrder::new();
        let mut many = UnorderedOrder::new();
        for &k in &keys {
            one.insert(k);
            many.insert(k);
        }
        let drop: Vec<u64> = keys.iter().copied().step_by(3).chain([1000]).collect();
        for &k in &drop {
            one.remove(k);
        }
        assert_eq!(many.remove_many(drop.iter().copied()), 14);
        assert_eq!(many.keys_in_order(), one.keys_in_order());
        assert_eq!(many.order(), one.order());
    }

    /// Erasing one key at a time (libstdc++'s bucket fix-ups) leaves the buckets as a
    /// rebuild from the list does, so insertions interleaved with erasures (a layout
    /// conversion's) place keys alike.
    #[test]
    fn interleaved_erasures_keep_the_buckets_libstdcxx_keeps() {
        let mut fast = UnorderedOrder::new();
        let mut rebuilt = UnorderedOrder::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut present: Vec<u64> = Vec::new();
        for step in 0..3000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if step % 3 == 2 && !present.is_empty() {
                let k = present.swap_remove((x % present.len() as u64) as usize);
                assert!(fast.remove(k));
                assert_eq!(rebuilt.remove_many([k]), 1);
            } else {
                let k = x % 5000;
                if fast.insert(k) {
                    present.push(k);
                }
                rebuilt.insert(k);
            }
            assert_eq!(fast.keys_in_order(), rebuilt.keys_in_order(), "step {step}");
        }
        assert_eq!(fast.live as usize, present.len());
    }

    /// A record is replayed only if it is a history of the map ending with the profile's
    /// keys; a key erased and inserted again is one.
    #[test]
    fn only_a_consistent_history_is_replayed() {
        use crate::ir::sample::FunctionId;
        let f = |n: &str| SampleContext::Function(FunctionId::name(n.as_bytes()));
        let mut p = SampleProfile::new();
        for n in ["a", "b"] {
            p.insertion_order.push(f(n));
            p.entry(f(n));
        }
        assert_eq!(sample_map_order(&p).map(|o| o.len()), Some(2));
        p.erased.push(f("a"));
        p.erased_after.push(2);
        p.insertion_order.push(f("a"));
        assert_eq!(sample_map_order(&p).map(|o| o.len()), Some(2));
        // Inserted twice without the erasure between.
        let mut twice = p.clone();
        twice.erased.clear();
        twice.erased_after.clear();
        assert!(sample_map_order(&twice).is_none());
        // Erased before it was inserted.
        let mut early = p.clone();
        early.erased_after[0] = 0;
        assert!(sample_map_order(&early).is_none());
        // Erased and not inserted again, yet still a profile.
        let mut stale = p.clone();
        stale.insertion_order.pop();
        assert!(sample_map_order(&stale).is_none());
    }

    const EXPECTED_1_TO_40: [u64; 40] = [
        40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 14,
        15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
    ];
    const MIXED_KEYS: [u64; 24] = [
        15860402102123842989,
        7273575876580499574,
        8865281517519135030,
        3485510186621062260,
        3236705911238380268,
        10885233071271705465,
        11156226912729756367,
        15684481891198857450,
        15972665364527374987,
        10344392119048899982,
        645269288288561941,
        3363491038161739523,
        6177946897817735677,
        1017748214402220190,
        13340112794022449183,
        14228648557578896383,
        3836218302174783160,
        11758576192419380597,
        18182783979729537871,
        10591109319140219417,
        6073964772129268077,
        13599634467830471407,
        1088271138339594778,
        9272385106312786398,
    ];
    const EXPECTED_MIXED: [u64; 24] = [
        13599634467830471407,
        6073964772129268077,
        10591109319140219417,
        18182783979729537871,
        3836218302174783160,
        14228648557578896383,
        11758576192419380597,
        13340112794022449183,
        3485510186621062260,
        1017748214402220190,
        8865281517519135030,
        7273575876580499574,
        3236705911238380268,
        9272385106312786398,
        15684481891198857450,
        15860402102123842989,
        3363491038161739523,
        10885233071271705465,
        11156226912729756367,
        15972665364527374987,
        10344392119048899982,
        645269288288561941,
        1088271138339594778,
        6177946897817735677,
    ];
}
