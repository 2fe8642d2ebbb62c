//! Reproduces `OnDiskChainedHashTableGenerator`'s bucket count and item order.
//!
//! The generator starts with 64 buckets. Each insert first counts the entry and doubles the
//! table when `4 × entries ≥ 3 × buckets` (rehashing old buckets in index order, each chain
//! head to tail, inserting every item at the head of its new chain), then inserts the new item
//! at the head of its chain. Before emitting, the table is resized once more to 1 bucket for
//! ≤ 2 entries, else to the smallest power of two above `entries × 4 / 3`. Chains are emitted
//! head to tail.

/// The final table shape: for each bucket, the indices (into the insertion sequence) of its
/// items in emission order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketPlan {
    /// `buckets[b]` lists item indices of bucket `b`, head first.
    pub buckets: Vec<Vec<u32>>,
}

impl BucketPlan {
    /// Number of buckets (a power of two, at least 1).
    pub fn num_buckets(&self) -> usize {
        self.buckets.len()
    }
}

/// Chains are stored tail-first so that inserting at the head is a push.
fn insert(buckets: &mut [Vec<u32>], hashes: &[u64], item: u32) {
    let mask = buckets.len() as u64 - 1;
    let b = (hashes[item as usize] & mask) as usize;
    buckets[b].push(item);
}

fn resize(buckets: Vec<Vec<u32>>, new_size: usize, hashes: &[u64]) -> Vec<Vec<u32>> {
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); new_size];
    for chain in &buckets {
        // Walk head to tail = reverse of the tail-first storage.
        for &item in chain.iter().rev() {
            insert(&mut out, hashes, item);
        }
    }
    out
}

/// Computes where each item goes when `hashes` are inserted in this order.
pub fn plan(hashes: &[u64]) -> BucketPlan {
    let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); 64];
    let mut entries: u64 = 0;
    for i in 0..hashes.len() {
        entries += 1;
        if 4 * entries >= 3 * buckets.len() as u64 {
            let n = buckets.len() * 2;
            buckets = resize(buckets, n, hashes);
        }
        insert(&mut buckets, hashes, i as u32);
    }
    let target = if entries <= 2 {
        1
    } else {
        (entries * 4 / 3 + 1).next_power_of_two() as usize
    };
    if target != buckets.len() {
        buckets = resize(buckets, target, hashes);
    }
    for chain in &mut buckets {
        chain.reverse();
    }
    BucketPlan { buckets }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hashing::md5_hash;

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

    #[test]
    fn reproduces_the_basic22_order() {
        // Format reference §4.4: sorted insertion add1, dbl, main, neg, never into 64 buckets,
        // then a rehash to 8: bucket 2 holds main then neg; add1 in 4, dbl in 6, never in 7.
        let names = ["add1", "dbl", "main", "neg", "never"];
        let hashes: Vec<u64> = names.iter().map(|n| md5_hash(n.as_bytes())).collect();
        let p = plan(&hashes);
        assert_eq!(p.num_buckets(), 8);
        assert_eq!(p.buckets[2], vec![2, 3]);
        assert_eq!(p.buckets[4], vec![0]);
        assert_eq!(p.buckets[6], vec![1]);
        assert_eq!(p.buckets[7], vec![4]);
    }
}
