//! Reproduces `OnDiskChainedHashTableGenerator`'s bucket count and item order.
//!
//! The generator starts with 64 buckets. Each insert first counts the entry and doubles the
//! table when `4 × entries ≥ 3 × buckets` (rehashing old buckets in index order, each chain
//! head to tail, inserting every item at the head of its new chain), then inserts the new item
//! at the head of its chain. Before emitting, the table is resized once more to 1 bucket for
//! ≤ 2 entries, else to the smallest power of two above `entries × 4 / 3`. Chains are emitted
//! head to tail.

/// The final table shape: for each bucket, the indices (into the insertion sequence) of its
/// items in emission order, stored bucket after bucket in one vector (a million-key table
/// would otherwise be millions of small vectors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketPlan {
    /// `starts[b]..starts[b + 1]` is bucket `b`'s range of `items`. Invariant: one more entry
    /// than there are buckets, non-decreasing, the last equal to `items.len()`.
    starts: Vec<u32>,
    /// Item indices, bucket after bucket, each chain head first.
    items: Vec<u32>,
}

impl BucketPlan {
    /// A plan from (bucket, item) pairs in emission order, buckets non-decreasing and below
    /// `num_buckets`. None if they are not.
    pub fn from_sorted(
        num_buckets: usize,
        pairs: impl IntoIterator<Item = (usize, u32)>,
    ) -> Option<BucketPlan> {
        let mut starts = Vec::with_capacity(num_buckets + 1);
        let mut items = Vec::new();
        starts.push(0);
        for (b, item) in pairs {
            if b >= num_buckets || b + 1 < starts.len() {
                return None;
            }
            while starts.len() <= b {
                starts.push(items.len() as u32);
            }
            items.push(item);
        }
        while starts.len() <= num_buckets {
            starts.push(items.len() as u32);
        }
        Some(BucketPlan { starts, items })
    }

    /// Number of buckets (a power of two, at least 1).
    pub fn num_buckets(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// The items of bucket `b`, head first (empty past the last bucket).
    pub fn bucket(&self, b: usize) -> &[u32] {
        match (self.starts.get(b), self.starts.get(b + 1)) {
            (Some(&s), Some(&e)) => self.items.get(s as usize..e as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// End of a chain.
const NIL: u32 = u32::MAX;

/// A chained table under construction: chains as intrusive lists (`heads` per bucket,
/// `next` per item), so that inserting at a chain's head and rehashing allocate nothing per
/// item.
struct Chains<'h> {
    hashes: &'h [u64],
    heads: Vec<u32>,
    next: Vec<u32>,
}

impl Chains<'_> {
    fn insert(&mut self, item: u32) {
        let b = (self.hashes[item as usize] & (self.heads.len() as u64 - 1)) as usize;
        self.next[item as usize] = self.heads[b];
        self.heads[b] = item;
    }

    /// Rehashes into `n` buckets: old buckets in index order, each chain head to tail, every
    /// item inserted at the head of its new chain.
    fn resize(&mut self, n: usize) {
        let old = std::mem::replace(&mut self.heads, vec![NIL; n]);
        for head in old {
            let mut item = head;
            while item != NIL {
                let after = self.next[item as usize];
                self.insert(item);
                item = after;
            }
        }
    }
}

/// Computes where each item goes when `hashes` are inserted in this order. Invariant:
/// fewer than 2^32 − 1 items.
pub fn plan(hashes: &[u64]) -> BucketPlan {
    let mut t = Chains {
        hashes,
        heads: vec![NIL; 64],
        next: vec![NIL; hashes.len()],
    };
    let mut entries: u64 = 0;
    for i in 0..hashes.len() {
        entries += 1;
        if 4 * entries >= 3 * t.heads.len() as u64 {
            t.resize(t.heads.len() * 2);
        }
        t.insert(i as u32);
    }
    let target = if entries <= 2 {
        1
    } else {
        (entries * 4 / 3 + 1).next_power_of_two() as usize
    };
    if target != t.heads.len() {
        t.resize(target);
    }
    let mut starts = Vec::with_capacity(t.heads.len() + 1);
    let mut items = Vec::with_capacity(hashes.len());
    for &head in &t.heads {
        starts.push(items.len() as u32);
        let mut item = head;
        while item != NIL {
            items.push(item);
            item = t.next[item as usize];
        }
    }
    starts.push(items.len() as u32);
    BucketPlan { starts, items }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::name_hash::md5_hash;

    #[test]
    fn bucket_counts_match_llvm() {
        for (n, expect) in [
            (0usize, 1usize),
            (2, 1),
            (5, 8),
            (7, 16),
            (50, 128),
            (90, 128),
            (130, 256),
        ] {
            let hashes: Vec<u64> = (0..n)
                .map(|i| md5_hash(format!("f{i}").as_bytes()))
                .collect();
            assert_eq!(plan(&hashes).num_buckets(), expect, "{n} entries");
        }
    }

    /// The generator's rules followed literally with a vector per chain (tail first).
    fn reference(hashes: &[u64]) -> Vec<Vec<u32>> {
        fn put(buckets: &mut [Vec<u32>], hashes: &[u64], item: u32) {
            let b = (hashes[item as usize] & (buckets.len() as u64 - 1)) as usize;
            buckets[b].push(item);
        }
        fn grow(old: Vec<Vec<u32>>, n: usize, hashes: &[u64]) -> Vec<Vec<u32>> {
            let mut out = vec![Vec::new(); n];
            for chain in &old {
                for &item in chain.iter().rev() {
                    put(&mut out, hashes, item);
                }
            }
            out
        }
        let mut buckets = vec![Vec::new(); 64];
        for i in 0..hashes.len() {
            if 4 * (i as u64 + 1) >= 3 * buckets.len() as u64 {
                let n = buckets.len() * 2;
                buckets = grow(buckets, n, hashes);
            }
            put(&mut buckets, hashes, i as u32);
        }
        let n = hashes.len() as u64;
        let target = if n <= 2 {
            1
        } else {
            (n * 4 / 3 + 1).next_power_of_two() as usize
        };
        if target != buckets.len() {
            buckets = grow(buckets, target, hashes);
        }
        buckets
            .iter()
            .map(|c| c.iter().rev().copied().collect())
            .collect()
    }

    proptest::proptest! {
        #[test]
        fn equals_the_literal_rules(hashes in proptest::collection::vec(0u64..4096, 0..700)) {
            let p = plan(&hashes);
            let want = reference(&hashes);
            proptest::prop_assert_eq!(p.num_buckets(), want.len());
            for (b, chain) in want.iter().enumerate() {
                proptest::prop_assert_eq!(p.bucket(b), chain.as_slice());
            }
        }
    }

    #[test]
    fn from_sorted_refuses_decreasing_buckets() {
        let p = BucketPlan::from_sorted(4, [(1, 0), (1, 1), (3, 2)]).expect("plan");
        assert_eq!(p.num_buckets(), 4);
        assert_eq!(
            (p.bucket(0), p.bucket(1), p.bucket(3)),
            (&[][..], &[0, 1][..], &[2][..])
        );
        assert!(BucketPlan::from_sorted(4, [(2, 0), (1, 1)]).is_none());
        assert!(BucketPlan::from_sorted(4, [(4, 0)]).is_none());
    }

    #[test]
    fn reproduces_the_basic22_order() {
        // Format reference §4.4: sorted insertion add1, dbl, main, neg, never into 64 buckets,
        // then a rehash to 8: bucket 2 holds main then neg; add1 in 4, dbl in 6, never in 7.
        let names = ["add1", "dbl", "main", "neg", "never"];
        let hashes: Vec<u64> = names.iter().map(|n| md5_hash(n.as_bytes())).collect();
        let p = plan(&hashes);
        assert_eq!(p.num_buckets(), 8);
        assert_eq!(p.bucket(2), &[2, 3]);
        assert_eq!(p.bucket(4), &[0]);
        assert_eq!(p.bucket(6), &[1]);
        assert_eq!(p.bucket(7), &[4]);
    }
}
