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
