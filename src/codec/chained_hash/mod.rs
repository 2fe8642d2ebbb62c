//! LLVM's on-disk chained hash table (`llvm/Support/OnDiskHashTable.h`), as used by indexed
//! profiles: the bucket layout a reader needs and, for the writer, the exact bucket count and
//! item order LLVM's generator produces (so our files can be byte-identical to LLVM's).
//!
//! Layout: the payload is, for each non-empty bucket in index order, a u16 item count
//! followed by the items; then zero padding to 8; then `u64 NumBuckets`, `u64 NumEntries` and
//! `NumBuckets` u64 absolute offsets of the buckets (0 for empty ones). An item is
//! `u64 hash, u64 key length, u64 data length, key bytes, data bytes`. The bucket of a key is
//! `hash & (NumBuckets − 1)`.

mod generator;
pub mod reader;

pub use generator::{BucketPlan, plan};
