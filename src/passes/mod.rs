//! Passes over the IR: each takes IR values and gives IR values. No pass opens a file or
//! calls a reader or a writer; the driver (`pipeline`) does that around them.

pub mod bolt_merge;
pub mod bolt_report;
pub mod bolt_yaml_merge;
pub mod convert;
pub mod filter;
pub mod iprof_merge;
pub mod llvm_normalise;
pub mod merge;
pub mod normalise;
pub mod order;
pub mod overlap;
pub mod remap;
// LLVM sample profiles.
pub mod sample;
pub mod symbolize;
pub mod temporal;
pub mod trim;

pub use crate::ir::Weight;
pub use merge::{FailureMode, MergeOptions, MergeOutput, merge_profiles};
