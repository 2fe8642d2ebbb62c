//! Passes over the IR.

pub mod convert;
pub mod filter;
pub mod iprof_merge;
pub mod libstdcxx_sort;
pub mod merge;
pub mod normalise;
pub mod overlap;
pub mod remap;
pub mod symbolize;
pub mod temporal;
pub mod trim;
pub mod weight;

pub use merge::{FailureMode, InputSpec, MergeOptions, MergeOutput, merge_files, merge_profiles};
pub use weight::Weight;

/// The number of worker threads for `requested` (0 = one per core, at least 1), and a pool
/// of that many, for the passes that run in parallel.
pub(crate) fn worker_pool(requested: usize) -> crate::error::Result<(rayon::ThreadPool, usize)> {
    let threads = if requested == 0 {
        rayon::current_num_threads().max(1)
    } else {
        requested
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| {
            crate::error::Error::new(crate::error::ErrorKind::Io(std::io::Error::other(
                e.to_string(),
            )))
        })?;
    Ok((pool, threads))
}
