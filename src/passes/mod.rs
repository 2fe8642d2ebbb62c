//! Passes over the IR.

pub mod merge;
pub mod temporal;
pub mod weight;

pub use merge::{FailureMode, InputSpec, MergeOptions, MergeOutput, merge_files, merge_profiles};
pub use weight::Weight;
